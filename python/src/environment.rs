//! Environments: each holds its own core and its own outputs, as VapourSynth's environment API
//! has it. Which environment is current is the registered policy's decision (Python code in
//! environment.py); this file holds the per-environment state and the lookups the rest of the
//! module makes through it (`crate::core()`, the outputs).
//!
//! A Core object refers to its environment's state, not to the EnvironmentData object, so that
//! the data can be collected (policies hold it by weak reference) while Core objects live on:
//! those then raise, as the environment is gone.
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use vsvk::core::Core;

use crate::Output;

/// What an environment owns. Its core is made on first use, with the environment's flags.
pub struct EnvState {
    pub id: u64,
    flags: i32,
    core: Mutex<Option<Arc<Core>>>,
    pub outputs: Mutex<BTreeMap<i32, Output>>,
    destroyed: AtomicBool,
}

impl EnvState {
    /// The environment's core; an error once the environment is destroyed.
    pub fn core(&self) -> PyResult<Arc<Core>> {
        let live = || {
            if self.destroyed.load(Ordering::Acquire) {
                Err(crate::err("Use of invalidated Core (the environment has been destroyed)."))
            } else {
                Ok(())
            }
        };
        live()?;
        if let Some(c) = self.core.lock().clone() {
            return Ok(c);
        }
        // sys.path is read before the lock is taken: reading it takes the interpreter, which a
        // thread waiting for this lock may hold.
        let folders = crate::site_plugins::folders();
        let mut c = self.core.lock();
        live()?;
        Ok(c.get_or_insert_with(|| {
            let core = Core::with_plugin_folders(self.flags, vsvk::api::wiring(), &folders);
            // As R81's module does: warnings and worse go to stderr whatever handlers a script
            // adds (the core itself keeps messages only while no handler is installed, so the
            // autoloading's reach this one).
            core.log.add(vsvk::log::HandlerImpl::Rust(Box::new(|level, msg| {
                if level >= vsvk_plugin_api::abi::mtWarning {
                    eprintln!("{}: {msg}", vsvk::log::level_name(level));
                }
            })));
            core
        })
        .clone())
    }

    pub fn is_destroyed(&self) -> bool {
        self.destroyed.load(Ordering::Acquire)
    }
}

/// An environment's handle, as policies see it. Only the module creates them.
#[pyclass(module = "vsvk", frozen, weakref)]
pub struct EnvironmentData {
    pub state: Arc<EnvState>,
    // made with the data, as tools tell an environment with a core by the data's referents
    core_obj: Py<crate::corepy::Core>,
    // whether being collected undestroyed is worth a warning (not for the standalone environment)
    warn: bool,
}

impl Drop for EnvironmentData {
    /// Collected without destroy_environment: the environment ends all the same, without its
    /// on-destroy callbacks, and says so.
    fn drop(&mut self) {
        // the standalone environment lives as long as the process: collected at exit, its core
        // is left to the process's end, as freeing it would join threads that may be waiting
        // for the interpreter
        if self.state.is_destroyed() || !self.warn {
            return;
        }
        Python::attach(|py| {
            if self.warn {
                let msg = c"An environment is getting collected without EnvironmentPolicyAPI.destroy_environment(): its on-destroy callbacks do not run";
                if let Err(e) = PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyRuntimeWarning>(), msg, 1) {
                    e.write_unraisable(py, None);
                }
            }
            end(py, &self.state);
        });
    }
}

#[pymethods]
impl EnvironmentData {
    #[new]
    fn py_new() -> PyResult<Self> {
        Err(PyRuntimeError::new_err("Cannot directly instantiate this class."))
    }
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        visit.call(&self.core_obj)
    }
    fn __repr__(&self) -> String {
        format!("<vsvk.EnvironmentData {}{}>", self.state.id, if self.state.is_destroyed() { " (destroyed)" } else { "" })
    }
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

#[pyfunction]
#[pyo3(signature = (flags = 0, warn = true))]
fn _env_create(py: Python<'_>, flags: i32, warn: bool) -> PyResult<EnvironmentData> {
    let state = EnvState {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        flags,
        core: Mutex::new(None),
        outputs: Mutex::new(BTreeMap::new()),
        destroyed: AtomicBool::new(false),
    };
    let state = Arc::new(state);
    let core_obj = Py::new(py, crate::corepy::Core { env: state.clone() })?;
    Ok(EnvironmentData { state, core_obj, warn })
}

/// Ends an environment: its outputs are cleared and its core is released (freed once no node or
/// frame of it is left). False when it was destroyed already.
#[pyfunction]
fn _env_destroy(py: Python<'_>, data: &Bound<'_, EnvironmentData>) -> bool {
    end(py, &data.get().state)
}

fn end(py: Python<'_>, state: &EnvState) -> bool {
    if state.destroyed.swap(true, Ordering::AcqRel) {
        return false;
    }
    let outputs = std::mem::take(&mut *state.outputs.lock());
    let core = state.core.lock().take();
    if let Some(c) = &core {
        // its nodes take no new work from Python (node::check_alive)
        c.freed.store(true, Ordering::Release);
    }
    let finalizing = py.import("sys").and_then(|s| s.call_method0("is_finalizing")?.extract::<bool>()).unwrap_or(true);
    if finalizing {
        // as for the standalone environment: the process's end frees it
        std::mem::forget(core);
        std::mem::forget(outputs);
        return true;
    }
    // without the interpreter: freeing the core joins its threads, which may be waiting for it
    py.detach(move || {
        drop(outputs);
        drop(core);
    });
    true
}

#[pyfunction]
fn _env_alive(data: &Bound<'_, EnvironmentData>) -> bool {
    !data.get().state.is_destroyed()
}

#[pyfunction]
fn _env_id(data: &Bound<'_, EnvironmentData>) -> u64 {
    data.get().state.id
}

/// The environment's Core object (one per environment, so `core.core is core.core`).
#[pyfunction]
fn _env_core(py: Python<'_>, data: &Bound<'_, EnvironmentData>) -> PyResult<Py<crate::corepy::Core>> {
    let d = data.get();
    if d.state.is_destroyed() {
        return Err(crate::err("Use of invalidated Core (the environment has been destroyed)."));
    }
    Ok(d.core_obj.clone_ref(py))
}

/// The address of the environment's VSCore, for code that calls the C API itself.
#[pyfunction]
fn _env_core_ptr(data: &Bound<'_, EnvironmentData>) -> PyResult<usize> {
    let core = data.get().state.core()?;
    Ok(Core::as_raw(&core) as usize)
}

/// The address of the VSAPI table of `version`, or 0 when that version is not supported.
#[pyfunction]
fn _vsapi_ptr(version: i32) -> usize {
    vsvk::api::getVapourSynthAPI(version) as usize
}

/// The current environment's state, as the registered policy names it (the module's
/// `_current_data`, which registers the standalone policy when none is).
pub fn current(py: Python<'_>) -> PyResult<Arc<EnvState>> {
    let data = py.import("vsvk")?.getattr("_current_data")?.call0()?;
    let data = data.cast_into::<EnvironmentData>().map_err(|_| crate::err("the environment policy returned something that is not an EnvironmentData"))?;
    Ok(data.get().state.clone())
}

/// The current environment's core.
pub fn current_core() -> PyResult<Arc<Core>> {
    Python::attach(|py| current(py)?.core())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<EnvironmentData>()?;
    m.add_function(wrap_pyfunction!(_env_create, m)?)?;
    m.add_function(wrap_pyfunction!(_env_destroy, m)?)?;
    m.add_function(wrap_pyfunction!(_env_alive, m)?)?;
    m.add_function(wrap_pyfunction!(_env_id, m)?)?;
    m.add_function(wrap_pyfunction!(_env_core, m)?)?;
    m.add_function(wrap_pyfunction!(_env_core_ptr, m)?)?;
    m.add_function(wrap_pyfunction!(_vsapi_ptr, m)?)?;
    Ok(())
}
