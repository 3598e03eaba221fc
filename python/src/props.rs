//! FrameProps: a frame's properties as a MutableMapping, with the behaviour of R81's (learned by
//! running it): keys()/values()/items() are the collections.abc views, equality and hashing are
//! identity, deleting a missing key is no error, and every value that cannot be stored (None, a
//! node, a function, a mixed list, an object of no map type) is a vsvk.Error.
//!
//! `_ColorRange`, the pre-API-4.2 name of `_Range` (0 full, 1 limited, where `_Range` has 0 limited,
//! 1 full), is a view of `_Range`: reading it gives `_Range`'s values unchanged, writing integers
//! stores them in `_Range` with 0 and 1 swapped (the core's map does that, see vsvk::map), deleting
//! it deletes both keys. Reading or writing it warns (DeprecationWarning). `_Range`'s 0 and 1 read
//! as members of the Range enum.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pyo3::exceptions::{PyAttributeError, PyKeyError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use vsvk::argspec::{ArgSpec, ArgType};
use vsvk::frame::Frame;
use vsvk::map::Values;

use crate::convert::{to_values_typed, values_to_py};
use crate::frame::RawFrame;

const LEGACY_RANGE: &str = "_ColorRange";
const RANGE: &str = "_Range";

/// A frame's properties (writes need a writable frame).
#[pyclass(module = "vsvk", frozen, mapping)]
pub struct FrameProps {
    /// The Python frame, whose closing (close(), a `with` block's end) closes this mapping too.
    owner: Py<RawFrame>,
    writable: Arc<AtomicBool>,
}

/// The DeprecationWarning R81 gives wherever a script names `_ColorRange`.
pub(crate) fn warn_legacy(py: Python<'_>) -> PyResult<()> {
    let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
    PyErr::warn(py, &category, c"The _ColorRange frame property has been deprecated, use _Range instead", 1)
}

/// The map type a Python value is stored as, or the error R81 gives for it.
fn value_type(obj: &Bound<'_, PyAny>) -> PyResult<ArgType> {
    if obj.is_instance_of::<PyBool>() || obj.is_instance_of::<PyInt>() {
        return Ok(ArgType::Int);
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(ArgType::Float);
    }
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>() {
        return Ok(ArgType::Data);
    }
    if let Ok(f) = obj.cast::<RawFrame>() {
        let audio = f.get().frame()?.is_audio();
        return Ok(if audio { ArgType::AudioFrame } else { ArgType::VideoFrame });
    }
    if crate::node::node_from_py(obj).is_some() {
        return Err(crate::err("Nodes cannot be stored in frame properties"));
    }
    if obj.is_callable() {
        return Err(crate::err("Functions cannot be stored in frame properties"));
    }
    let name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    Err(crate::err(format!("Setter was passed an unsupported type ({name})")))
}

/// A property value from Python: one value, or any other iterable of values of one type (empty:
/// None, the key is removed).
fn to_prop_values(obj: &Bound<'_, PyAny>, key: &str) -> PyResult<Option<Values>> {
    let single = obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>();
    let items: Vec<Bound<'_, PyAny>> = match obj.try_iter() {
        Ok(it) if !single && obj.cast::<RawFrame>().is_err() => it.collect::<PyResult<_>>()?,
        _ => vec![obj.clone()],
    };
    let Some(first) = items.first() else { return Ok(None) };
    let ty = value_type(first)?;
    for o in &items[1..] {
        if value_type(o)? != ty {
            return Err(crate::err("Not all values are of the same type"));
        }
    }
    let mut spec = ArgSpec::new(key, ty);
    spec.array = true;
    let list = PyList::new(obj.py(), items)?;
    to_values_typed(list.as_any(), &spec, key).map(Some).map_err(|e| crate::err(e.to_string()))
}

/// pop's `default`, given by position or by keyword (None is a default too).
fn optional_default<'py>(args: &Bound<'py, PyTuple>, kwargs: Option<&Bound<'py, PyDict>>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let mut default = match args.len() {
        0 => None,
        1 => Some(args.get_item(0)?),
        n => return Err(pyo3::exceptions::PyTypeError::new_err(format!("pop() takes at most 2 positional arguments ({} given)", n + 1))),
    };
    for (k, v) in kwargs.into_iter().flat_map(|k| k.iter()) {
        let k: String = k.extract()?;
        if k != "default" || default.is_some() {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!("pop() got an unexpected keyword argument '{k}'")));
        }
        default = Some(v);
    }
    Ok(default)
}

impl FrameProps {
    pub(crate) fn new(owner: Py<RawFrame>, writable: Arc<AtomicBool>) -> FrameProps {
        FrameProps { owner, writable }
    }
    /// The frame, or R81's RuntimeError once the Python frame is closed.
    fn frame(&self) -> PyResult<Arc<Frame>> {
        self.owner.get().frame()
    }
    fn check_writable(&self, deleting: bool) -> PyResult<()> {
        match (self.writable.load(Ordering::Acquire), deleting) {
            (true, _) => Ok(()),
            (false, true) => Err(crate::err("Cannot delete properties of a read only object")),
            (false, false) => Err(crate::err("Cannot set properties of a read only object")),
        }
    }
    fn lookup<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        let key = if key == LEGACY_RANGE {
            warn_legacy(py)?;
            RANGE
        } else {
            key
        };
        let frame = self.frame()?;
        let Ok(values) = frame.props().get(key.as_bytes()) else { return Ok(None) };
        let mut items = values_to_py(py, values)?;
        if key == RANGE && matches!(values, Values::Int(_)) {
            let range = py.import("vsvk")?.getattr("Range")?;
            for item in items.iter_mut() {
                let v: i64 = item.extract()?;
                if v == 0 || v == 1 {
                    *item = range.call1((v,))?;
                }
            }
        }
        Ok(Some(if items.len() == 1 { items.pop().expect("one") } else { PyList::new(py, items)?.into_any() }))
    }
    pub(crate) fn set(&self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_writable(false)?;
        if key == LEGACY_RANGE {
            warn_legacy(value.py())?;
        }
        let values = to_prop_values(value, key)?;
        let frame = self.frame()?;
        // SAFETY: writable frames are ours alone.
        let map = unsafe { frame.props_mut() };
        match values {
            Some(v) => map.set_values(key.as_bytes(), v).map_err(|e| crate::err(format!("property {key}: {e}"))),
            None => {
                // an empty list: the key with no values would read back as nothing; remove it
                map.delete(key.as_bytes());
                Ok(())
            }
        }
    }
    fn remove(&self, key: &str) -> PyResult<()> {
        self.check_writable(true)?;
        // SAFETY: writable frames are ours alone.
        unsafe { self.frame()?.props_mut() }.delete_key(key.as_bytes());
        Ok(())
    }
    pub(crate) fn clear_all(&self) -> PyResult<()> {
        self.check_writable(true)?;
        // SAFETY: writable frames are ours alone.
        unsafe { self.frame()?.props_mut() }.clear();
        Ok(())
    }
    fn key_list(&self) -> PyResult<Vec<String>> {
        Ok(self.frame()?.props().keys().map(|k| k.to_string_lossy().into_owned()).collect())
    }
    fn view<'py>(slf: &Bound<'py, Self>, kind: &str) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("collections.abc")?.getattr(kind)?.call1((slf,))
    }
}

#[pymethods]
impl FrameProps {
    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        self.lookup(py, key)?.ok_or_else(|| PyKeyError::new_err(key.to_string()))
    }
    fn __setitem__(&self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(key, value)
    }
    fn __delitem__(&self, key: &str) -> PyResult<()> {
        self.remove(key)
    }
    fn __contains__(&self, key: &str) -> PyResult<bool> {
        let key = if key == LEGACY_RANGE { RANGE } else { key };
        Ok(self.frame()?.props().contains(key.as_bytes()))
    }
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.frame()?.props().num_keys())
    }
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyList::new(py, self.key_list()?)?.as_any().try_iter()?.into_any())
    }
    fn keys<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(slf, "KeysView")
    }
    fn values<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(slf, "ValuesView")
    }
    fn items<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(slf, "ItemsView")
    }
    #[pyo3(signature = (key, /, default = None))]
    fn get<'py>(&self, py: Python<'py>, key: &str, default: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.lookup(py, key)?.unwrap_or_else(|| default.unwrap_or_else(|| py.None().into_bound(py))))
    }
    /// A plain dict of the properties.
    fn copy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for k in self.key_list()? {
            if let Some(v) = self.lookup(py, &k)? {
                d.set_item(k, v)?;
            }
        }
        Ok(d)
    }
    /// The value of `key`, set to `default` first if missing (0 when not given; None is not a value
    /// that can be stored).
    #[pyo3(signature = (key, /, *default))]
    fn setdefault<'py>(&self, py: Python<'py>, key: &str, default: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        if let Some(v) = self.lookup(py, key)? {
            return Ok(v);
        }
        let d = if default.is_empty() { 0i64.into_pyobject(py)?.into_any() } else { default.get_item(0)? };
        self.set(key, &d)?;
        Ok(self.lookup(py, key)?.unwrap_or(d))
    }
    /// The value of `key`, removed; `default` (positional or keyword, None included) when missing.
    #[pyo3(signature = (key, /, *args, **kwargs))]
    fn pop<'py>(&self, py: Python<'py>, key: &str, args: &Bound<'py, PyTuple>, kwargs: Option<&Bound<'py, PyDict>>) -> PyResult<Bound<'py, PyAny>> {
        let default = optional_default(args, kwargs)?;
        match self.lookup(py, key)? {
            Some(v) => {
                self.remove(key)?;
                Ok(v)
            }
            None => default.ok_or_else(|| PyKeyError::new_err(key.to_string())),
        }
    }
    /// The first property (in iteration order) removed and returned as (key, value).
    fn popitem<'py>(&self, py: Python<'py>) -> PyResult<(String, Bound<'py, PyAny>)> {
        self.check_writable(true)?;
        let Some(key) = self.key_list()?.into_iter().next() else { return Err(PyKeyError::new_err("popitem(): the properties are empty")) };
        // a literal `_ColorRange` (a value that was no integer) is taken as it is, not as `_Range`
        let value = match key.as_str() {
            LEGACY_RANGE => crate::convert::values_to_py_flat(py, self.frame()?.props().get(key.as_bytes()).map_err(|e| crate::err(e.to_string()))?)?,
            _ => self.lookup(py, &key)?.ok_or_else(|| PyKeyError::new_err(key.clone()))?,
        };
        // SAFETY: writable frames are ours alone.
        unsafe { self.frame()?.props_mut() }.delete(key.as_bytes());
        Ok((key, value))
    }
    #[pyo3(signature = (other = None, **kwargs))]
    fn update(&self, other: Option<&Bound<'_, PyAny>>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        if let Some(o) = other {
            let items = if o.hasattr("keys")? {
                let mut v = Vec::new();
                for k in o.call_method0("keys")?.try_iter()? {
                    let k = k?;
                    let val = o.get_item(&k)?;
                    v.push((k.extract::<String>()?, val));
                }
                v
            } else {
                o.try_iter()?.map(|i| i?.extract::<(String, Bound<'_, PyAny>)>()).collect::<PyResult<_>>()?
            };
            for (k, v) in items {
                self.set(&k, &v)?;
            }
        }
        if let Some(kw) = kwargs {
            for (k, v) in kw.iter() {
                self.set(&k.extract::<String>()?, &v)?;
            }
        }
        Ok(())
    }
    fn clear(&self) -> PyResult<()> {
        self.clear_all()
    }
    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        self.lookup(py, name)?.ok_or_else(|| PyAttributeError::new_err(format!("the frame has no property {name}")))
    }
    fn __setattr__(&self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(name, value)
    }
    fn __delattr__(&self, name: &str) -> PyResult<()> {
        self.remove(name)
    }
    /// The methods and the properties (which are attributes too).
    fn __dir__(slf: &Bound<'_, Self>) -> PyResult<Vec<String>> {
        let object = slf.py().import("builtins")?.getattr("object")?;
        let mut v: Vec<String> = object.getattr("__dir__")?.call1((slf,))?.extract()?;
        v.extend(slf.get().key_list()?);
        Ok(v)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        if self.frame().is_err() {
            return Ok("<vsvk.FrameProps on closed frame>".into());
        }
        Ok(format!("<vsvk.FrameProps {}>", self.copy(py)?.repr()?))
    }
}
