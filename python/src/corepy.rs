//! `vsvk.core` and what hangs off it: plugins as attributes (`core.std`), their functions called
//! with positional and keyword arguments typed by the function's argument string, core settings,
//! and the Vulkan device calls.
use std::sync::atomic::Ordering;
use std::sync::Arc;

use pyo3::exceptions::{PyAttributeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use vsvk::argspec::ArgSpec;
use vsvk::function::{Function as VsFunction, FunctionImpl};
use vsvk::map::{Map, Value, Values};
use vsvk::plugin::Plugin as VsPlugin;
use vsvk_plugin_api::abi::*;

use crate::convert::{map_to_return, to_values_any, to_values_typed};
use crate::environment::EnvState;
use crate::format::{format_from_py, format_or_none, query, VideoFormat};
use vsvk::core::Core as VsCore;

/// An environment's core (one object per environment). Raises once the environment is destroyed.
#[pyclass(module = "vsvk", frozen, weakref)]
pub struct Core {
    pub env: Arc<EnvState>,
}

impl Core {
    fn c(&self) -> PyResult<Arc<VsCore>> {
        self.env.core()
    }
}

/// core.timings: whether nodes record their processing time, and the time of freed nodes.
#[pyclass(module = "vsvk", frozen)]
pub struct CoreTimings {
    core: Arc<VsCore>,
}

#[pymethods]
impl CoreTimings {
    #[getter]
    fn enabled(&self) -> bool {
        self.core.node_timing.load(Ordering::Relaxed)
    }
    #[setter]
    fn set_enabled(&self, on: bool) {
        self.core.node_timing.store(on, Ordering::Relaxed);
    }
    #[getter]
    fn freed_nodes(&self) -> i64 {
        self.core.freed_node_ns.load(Ordering::Relaxed)
    }
    #[setter]
    fn set_freed_nodes(&self, v: i64) -> PyResult<()> {
        if v != 0 {
            return Err(PyValueError::new_err("freed_nodes can only be reset, to 0"));
        }
        self.core.freed_node_ns.store(0, Ordering::Relaxed);
        Ok(())
    }
}

/// What core.add_log_handler returns, for remove_log_handler.
#[pyclass(module = "vsvk", frozen)]
pub struct LogHandle {
    id: u64,
}

const MB: i64 = 1 << 20;

fn deprecated(py: Python<'_>, msg: &std::ffi::CStr) -> PyResult<()> {
    PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyDeprecationWarning>(), msg, 1)
}

#[pymethods]
impl Core {
    #[getter]
    fn core(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }
    #[getter]
    fn num_threads(&self) -> PyResult<usize> {
        Ok(self.c()?.threads())
    }
    #[setter]
    fn set_num_threads(&self, n: i64) -> PyResult<()> {
        let core = self.c()?;
        let n = if n <= 0 { vsvk::core::default_threads() } else { n as usize };
        core.pool.set_threads(n);
        Ok(())
    }
    /// The frame cache budget, in MiB.
    #[getter]
    fn max_cache_size(&self) -> PyResult<i64> {
        Ok(self.c()?.max_cache.load(Ordering::Relaxed) / MB)
    }
    #[setter]
    fn set_max_cache_size(&self, mb: i64) -> PyResult<()> {
        let core = self.c()?;
        if mb > 0 {
            core.max_cache.store(mb.saturating_mul(MB), Ordering::Relaxed);
        }
        Ok(())
    }
    /// Frame memory in use, in MiB.
    #[getter]
    fn used_cache_size(&self) -> PyResult<i64> {
        Ok(self.c()?.mem.used.load(Ordering::Relaxed) / MB)
    }
    #[getter]
    fn flags(&self) -> PyResult<i32> {
        Ok(self.c()?.flags)
    }
    #[getter]
    fn timings(&self) -> PyResult<CoreTimings> {
        Ok(CoreTimings { core: self.c()? })
    }
    fn plugins(&self) -> PyResult<Vec<Plugin>> {
        Ok(self.c()?.plugins.read().iter().map(|p| Plugin { plugin: p.clone(), bound: None }).collect())
    }
    #[pyo3(signature = (color_family, sample_type, bits_per_sample, subsampling_w = 0, subsampling_h = 0))]
    fn query_video_format(&self, color_family: i32, sample_type: i32, bits_per_sample: i32, subsampling_w: i32, subsampling_h: i32) -> PyResult<VideoFormat> {
        query(color_family, sample_type, bits_per_sample, subsampling_w, subsampling_h)
    }
    fn get_video_format(&self, id: &Bound<'_, PyAny>) -> PyResult<VideoFormat> {
        format_or_none(id)
    }
    /// A new, writable, zeroed frame.
    fn create_video_frame<'py>(&self, py: Python<'py>, format: &Bound<'py, PyAny>, width: i32, height: i32) -> PyResult<Bound<'py, PyAny>> {
        let f = format_from_py(format)?;
        let core = self.c()?;
        let frame = vsvk::frame::Frame::new_video(&f, width, height, &core.mem).map_err(|e| PyValueError::new_err(e.to_string()))?;
        crate::frame::frame_to_py(py, Arc::new(frame), true)
    }
    fn log_message(&self, message_type: i32, message: &str) -> PyResult<()> {
        self.c()?.log_message(message_type, message);
        Ok(())
    }
    /// Calls handler(message_type, message) for every message the core logs.
    fn add_log_handler(&self, handler_func: Py<PyAny>) -> PyResult<LogHandle> {
        let h = self.c()?.log.add(vsvk::log::HandlerImpl::Rust(Box::new(move |level, msg| {
            // nothing to hand the message to once the interpreter is gone
            crate::shutdown::with_python(|py| {
                let mt = py.import("vsvk").and_then(|m| m.getattr("MessageType")?.call1((level,)));
                let r = match mt {
                    Ok(mt) => handler_func.bind(py).call1((mt, msg)),
                    Err(e) => Err(e),
                };
                if let Err(e) = r {
                    e.print(py);
                }
            });
        })));
        Ok(LogHandle { id: h.id })
    }
    fn remove_log_handler(&self, handle: &LogHandle) -> PyResult<bool> {
        Ok(self.c()?.log.remove(handle.id))
    }
    fn clear_cache(&self) -> PyResult<()> {
        self.c()?.clear_caches();
        Ok(())
    }
    #[getter]
    fn core_version<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("vsvk")?.getattr("__version__")
    }
    #[getter]
    fn api_version<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("vsvk")?.getattr("__api_version__")
    }
    /// Deprecated in R81 (which warns): str(core) gives the same text.
    fn version(&self, py: Python<'_>) -> PyResult<String> {
        deprecated(py, c"core.version() is deprecated, use str(core)!")?;
        self.__str__()
    }
    /// Deprecated in R81 (which warns): core.core_version.release_major.
    fn version_number(&self, py: Python<'_>) -> PyResult<i32> {
        deprecated(py, c"core.version_number() is deprecated, use core.core_version.release_major!")?;
        Ok(vsvk::core::CORE_VERSION)
    }
    fn __str__(&self) -> PyResult<String> {
        Ok(self.c()?.version_string.to_string_lossy().into_owned())
    }

    /// Picks the Vulkan device (an index from vulkan_devices; -1: automatically), before first use.
    #[pyo3(signature = (index = -1))]
    fn set_vulkan_device(&self, index: i32) -> PyResult<()> {
        crate::vulkan::set_device(&self.c()?, index).map_err(crate::err)
    }
    /// Every Vulkan device: index, name, api_version, type, device_memory, usable, reason, uuid.
    #[getter]
    fn vulkan_devices<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let list = crate::vulkan::devices().map_err(crate::err)?;
        list.iter()
            .enumerate()
            .map(|(i, e)| {
                let d = PyDict::new(py);
                d.set_item("index", i)?;
                d.set_item("name", crate::vulkan::c_text(&e.deviceName))?;
                let v = e.apiVersion;
                d.set_item("api_version", (v >> 22 & 0x7f, v >> 12 & 0x3ff, v & 0xfff))?;
                d.set_item("type", crate::vulkan::device_type(e.deviceType))?;
                d.set_item("device_memory", e.deviceMemory)?;
                d.set_item("usable", e.usable != 0)?;
                d.set_item("reason", crate::vulkan::c_text(&e.unusableReason))?;
                d.set_item("uuid", crate::vulkan::hex(&e.deviceUUID))?;
                Ok(d)
            })
            .collect()
    }
    /// The device the core uses: name, device_memory, budget, allocated, limit, uuid, ...
    #[getter]
    fn vulkan_device_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let i = crate::vulkan::core_info(&self.c()?).map_err(crate::err)?;
        let d = PyDict::new(py);
        d.set_item("name", crate::vulkan::c_text(&i.deviceName))?;
        d.set_item("device_memory", i.deviceMemory)?;
        d.set_item("budget", i.budget)?;
        d.set_item("allocated", i.allocated)?;
        d.set_item("limit", i.limit)?;
        d.set_item("uuid", crate::vulkan::hex(&i.deviceUUID))?;
        d.set_item("export_handle_type", i.exportHandleType)?;
        d.set_item("semaphore_export_handle_type", i.semaphoreExportHandleType)?;
        d.set_item("unified_memory", i.unifiedMemory != 0)?;
        Ok(d)
    }
    /// The GPU frame cache budget, in MiB.
    #[getter]
    fn max_vram_cache_size(&self) -> PyResult<i64> {
        Ok(crate::vulkan::max_vram(&self.c()?, 0) / MB)
    }
    #[setter]
    fn set_max_vram_cache_size(&self, mb: i64) -> PyResult<()> {
        crate::vulkan::max_vram(&self.c()?, mb.saturating_mul(MB));
        Ok(())
    }

    fn __getattr__(&self, name: &str) -> PyResult<Plugin> {
        // the message's start is what tools match on (vstools' tests do)
        match self.c()?.plugin_by_ns(name) {
            Some(p) => Ok(Plugin { plugin: p, bound: None }),
            None => Err(PyAttributeError::new_err(format!(
                "No attribute with the name {name} exists (no plugin with that namespace is loaded)"
            ))),
        }
    }
    fn __dir__(&self) -> PyResult<Vec<String>> {
        let mut v: Vec<String> = [
            "add_log_handler", "api_version", "clear_cache", "core", "core_version", "create_video_frame", "flags",
            "get_video_format", "log_message", "max_cache_size", "max_vram_cache_size", "num_threads", "plugins",
            "query_video_format", "remove_log_handler", "set_vulkan_device", "timings", "used_cache_size", "version",
            "version_number", "vulkan_device_info", "vulkan_devices",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(self.c()?.plugins.read().iter().map(|p| p.namespace().to_string()));
        Ok(v)
    }
    fn __repr__(&self) -> PyResult<String> {
        let c = self.c()?;
        Ok(format!(
            "<vsvk.Core core_version=R{}, api_version=R{}.{}, num_threads={}, max_cache_size={}, used_cache_size={}>",
            vsvk::core::CORE_VERSION,
            VAPOURSYNTH_API_MAJOR,
            VAPOURSYNTH_API_MINOR,
            c.threads(),
            c.max_cache.load(Ordering::Relaxed) / MB,
            c.mem.used.load(Ordering::Relaxed) / MB
        ))
    }
}

/// A plugin: its functions are attributes. From a clip (`clip.std`), the clip is bound as the
/// first argument of every function.
#[pyclass(module = "vsvk", frozen)]
pub struct Plugin {
    pub plugin: Arc<VsPlugin>,
    pub bound: Option<Py<PyAny>>,
}

#[pymethods]
impl Plugin {
    #[getter]
    fn identifier(&self) -> String {
        self.plugin.id().to_string()
    }
    #[getter]
    fn namespace(&self) -> String {
        self.plugin.namespace().to_string()
    }
    #[getter]
    fn name(&self) -> String {
        self.plugin.config.get().map(|c| c.name.to_string_lossy().into_owned()).unwrap_or_default()
    }
    #[getter]
    fn version<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = self.plugin.config.get().map(|c| c.version).unwrap_or(0);
        py.import("vsvk")?.getattr("PluginVersion")?.call1((v >> 16, v & 0xffff))
    }
    #[getter]
    fn plugin_path(&self) -> String {
        self.plugin.path.to_string_lossy().into_owned()
    }
    /// An iterator over the functions (R81 returns one, not a list).
    fn functions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let list: Vec<Function> = self
            .plugin
            .functions
            .read()
            .keys()
            .map(|k| Function { plugin: self.plugin.clone(), name: k.to_string_lossy().into_owned(), bound: self.bound.as_ref().map(|b| b.clone_ref(py)) })
            .collect();
        Ok(pyo3::types::PyList::new(py, list)?.as_any().try_iter()?.into_any())
    }
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Function> {
        if self.plugin.function(name).is_none() {
            return Err(PyAttributeError::new_err(format!("{} has no function named {name}", self.plugin.namespace())));
        }
        Ok(Function { plugin: self.plugin.clone(), name: name.to_string(), bound: self.bound.as_ref().map(|b| b.clone_ref(py)) })
    }
    fn __dir__(&self) -> Vec<String> {
        let mut v: Vec<String> = self.plugin.functions.read().keys().map(|k| k.to_string_lossy().into_owned()).collect();
        v.extend(["functions", "identifier", "name", "namespace", "plugin_path", "version"].map(String::from));
        v
    }
    fn __repr__(&self) -> String {
        format!("<vsvk.Plugin {} ({}, {})>", self.plugin.namespace(), self.plugin.id(), self.name())
    }
}

/// A plugin function.
#[pyclass(module = "vsvk", frozen)]
pub struct Function {
    pub plugin: Arc<VsPlugin>,
    pub name: String,
    pub bound: Option<Py<PyAny>>,
}

impl Function {
    /// This function as a VSFunction (when passed where a function is expected).
    pub fn as_vs_function(&self) -> PyResult<Arc<VsFunction>> {
        let core = self.plugin.core.upgrade().ok_or_else(|| crate::err(format!("{}: the core of the plugin is gone", self.name)))?;
        let plugin = self.plugin.clone();
        let name = self.name.clone();
        let imp = FunctionImpl::Rust(Box::new(move |input: &Map, out: &mut Map| {
            let r = vsvk::plugin::invoke(&plugin, &name, input);
            if let Some(e) = r.error() {
                out.set_error(&e.to_string_lossy());
            } else if let Err(e) = out.copy_from(&r) {
                out.set_error(&format!("{name}: {e}"));
            }
        }));
        Ok(Arc::new(VsFunction { imp, core }))
    }

    /// The argument map for a call, filled as R81 fills it: keyword arguments first (a trailing
    /// underscore lets them be named like Python keywords, `lambda_`; a later one of the same name
    /// wins), then the positional ones (the bound clip first) in the order of the arguments not
    /// named. None means "not given", but an argument the function does not take is an error even
    /// when it is None. A function whose signature ends in `any` takes any name.
    fn arguments(&self, py: Python<'_>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Map> {
        let f = self.plugin.function(&self.name).ok_or_else(|| crate::err(format!("{}: the function is gone", self.name)))?;
        let specs = f.sig.args();
        let name = &self.name;
        let mut named: Vec<(String, Bound<'_, PyAny>)> = Vec::new();
        let mut unknown: Vec<String> = Vec::new();
        if let Some(kw) = kwargs {
            for (k, v) in kw.iter() {
                let mut key: String = k.extract()?;
                if f.sig.arg(&key).is_none() && key.len() > 1 && key.ends_with('_') && f.sig.arg(&key[..key.len() - 1]).is_some() {
                    key.pop();
                }
                if key == "_ColorRange" {
                    crate::props::warn_legacy(py)?;
                }
                if f.sig.arg(&key).is_none() && !f.sig.accepts_any() {
                    unknown.push(key);
                } else if let Some(slot) = named.iter_mut().find(|(k, _)| *k == key) {
                    slot.1 = v;
                } else {
                    named.push((key, v));
                }
            }
        }
        if !unknown.is_empty() {
            return Err(crate::err(format!("{name}: no argument(s) named {}", unknown.join(", "))));
        }
        let mut positional: Vec<Bound<'_, PyAny>> = Vec::new();
        if let Some(b) = &self.bound {
            positional.push(b.bind(py).clone());
        }
        positional.extend(args.iter());
        let free: Vec<&ArgSpec> = specs.iter().filter(|s| !named.iter().any(|(k, _)| *k == s.name)).collect();
        if positional.len() > free.len() {
            return Err(crate::err(format!(
                "{name}: {} positional arguments given, but the function takes at most {} besides those named",
                positional.len(),
                free.len()
            )));
        }
        let mut map = Map::new();
        let given = positional.into_iter().zip(free).map(|(obj, spec)| (spec.name.clone(), obj)).chain(named);
        for (key, obj) in given {
            if obj.is_none() {
                continue;
            }
            let values = match f.sig.arg(&key) {
                Some(spec) => Some(to_values_typed(&obj, spec, name)?),
                // an undeclared argument of a function that takes `any`
                None => to_values_any(&obj, &key).map_err(|e| crate::err(format!("{name}: {}", e.value(py))))?,
            };
            let set_error = |e: vsvk::map::SetError| crate::err(format!("{name}: argument {key}: {e}"));
            match values {
                // R81 appends each argument's values to the call's map, so `_ColorRange` and
                // `_Range` given together (one key there, see vsvk::map) both land in `_Range`
                Some(Values::Int(ints)) if (key == "_ColorRange" || key == "_Range") && map.contains(b"_Range") => {
                    for i in ints {
                        map.set(key.as_bytes(), Value::Int(i), true).map_err(set_error)?;
                    }
                }
                Some(v) => map.set_values(key.as_bytes(), v).map_err(set_error)?,
                None => {}
            }
        }
        Ok(map)
    }
}

#[pymethods]
impl Function {
    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }
    #[getter]
    fn plugin(&self, py: Python<'_>) -> Plugin {
        Plugin { plugin: self.plugin.clone(), bound: self.bound.as_ref().map(|b| b.clone_ref(py)) }
    }
    /// The argument string, as registered.
    #[getter]
    fn signature(&self) -> String {
        self.plugin.function(&self.name).map(|f| f.args.to_string_lossy().into_owned()).unwrap_or_default()
    }
    #[getter]
    fn return_signature(&self) -> String {
        self.plugin.function(&self.name).map(|f| f.ret.to_string_lossy().into_owned()).unwrap_or_default()
    }
    /// The inspect.Signature of the call (without the bound clip), from vsvk.construct_signature.
    #[getter]
    fn __signature__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let injected = match &self.bound {
            Some(_) => self.plugin.function(&self.name).and_then(|f| f.sig.args().first().map(|a| a.name.clone())),
            None => None,
        };
        py.import("vsvk")?.getattr("construct_signature")?.call1((self.signature(), self.return_signature(), injected, self.name.clone()))
    }
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let map = self.arguments(py, args, kwargs)?;
        let plugin = self.plugin.clone();
        let name = self.name.clone();
        // released: a function may wait for frames whose filters call back into Python
        let out = py.detach(move || vsvk::plugin::invoke(&plugin, &name, &map));
        map_to_return(py, &out)
    }
    fn __repr__(&self) -> String {
        format!("<vsvk.Function {}.{}({})>", self.plugin.namespace(), self.name, self.signature())
    }
}

/// A function from a map (a callback handed to a script): called with keyword arguments.
#[pyclass(module = "vsvk", frozen)]
pub struct Func {
    pub func: Arc<VsFunction>,
}

#[pymethods]
impl Func {
    #[pyo3(signature = (**kwargs))]
    fn __call__(&self, py: Python<'_>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyAny>> {
        let mut input = Map::new();
        if let Some(kw) = kwargs {
            crate::convert::dict_to_map(kw, &mut input)?;
        }
        let func = self.func.clone();
        let out = py.detach(move || {
            let mut out = Map::new();
            func.call(&input, &mut out);
            out
        });
        map_to_return(py, &out)
    }
}
