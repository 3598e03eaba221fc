//! Between Python values and the core's maps: function arguments (typed by the function's argument
//! string, see vsvk::argspec), return values, frame properties, and Python callables as VSFunctions.
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use vsvk::argspec::{ArgSpec, ArgType};
use vsvk::function::{Function, FunctionImpl};
use vsvk::map::{Data, Map, Values};
use vsvk_plugin_api::abi::*;

use crate::corepy;
use crate::frame::{frame_from_py, frame_to_py};
use crate::node::{node_from_py, node_to_py};

/// The values of one map entry as Python objects.
pub fn values_to_py<'py>(py: Python<'py>, v: &Values) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let mut out = Vec::with_capacity(v.len());
    match v {
        Values::Int(a) => {
            for i in a {
                out.push(i.into_pyobject(py)?.into_any());
            }
        }
        Values::Float(a) => {
            for f in a {
                out.push(PyFloat::new(py, *f).into_any());
            }
        }
        Values::Data(a) => {
            for d in a {
                out.push(data_to_py(py, d));
            }
        }
        Values::Function(a) => {
            for f in a {
                out.push(Bound::new(py, corepy::Func { func: f.clone() })?.into_any());
            }
        }
        Values::VideoNode(a) | Values::AudioNode(a) => {
            for n in a {
                out.push(node_to_py(py, n.clone())?);
            }
        }
        Values::VideoFrame(a) | Values::AudioFrame(a) => {
            for f in a {
                out.push(frame_to_py(py, f.clone(), false)?);
            }
        }
    }
    Ok(out)
}

pub fn data_to_py<'py>(py: Python<'py>, d: &Data) -> Bound<'py, PyAny> {
    if d.hint == dtUtf8 {
        if let Ok(s) = std::str::from_utf8(d.as_bytes()) {
            return PyString::new(py, s).into_any();
        }
    }
    PyBytes::new(py, d.as_bytes()).into_any()
}

/// One value for one element, a list for any other number.
pub fn values_to_py_flat<'py>(py: Python<'py>, v: &Values) -> PyResult<Bound<'py, PyAny>> {
    let mut items = values_to_py(py, v)?;
    if items.len() == 1 {
        Ok(items.pop().expect("one"))
    } else {
        Ok(PyList::new(py, items)?.into_any())
    }
}

/// A map as a dict of flattened values.
pub fn map_to_dict<'py>(py: Python<'py>, m: &Map) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in m.iter() {
        d.set_item(k.to_string_lossy(), values_to_py_flat(py, v)?)?;
    }
    Ok(d)
}

/// What a function call returns: None for no values, the value itself for one key, else a dict.
pub fn map_to_return(py: Python<'_>, m: &Map) -> PyResult<Py<PyAny>> {
    if let Some(e) = m.error() {
        return Err(crate::err(e.to_string_lossy()));
    }
    match m.num_keys() {
        0 => Ok(py.None()),
        1 => {
            let (_, v) = m.iter().next().expect("one key");
            Ok(values_to_py_flat(py, v)?.unbind())
        }
        _ => Ok(map_to_dict(py, m)?.into_any().unbind()),
    }
}

/// The elements a Python value stands for: a list's or tuple's items, else the value itself.
fn elements<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        obj.try_iter()?.collect()
    } else {
        Ok(vec![obj.clone()])
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

fn to_int(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(i);
    }
    // as the reference, whatever int() accepts (a float is truncated, a numeric string parsed)
    obj.py().import("builtins")?.getattr("int")?.call1((obj,))?.extract::<i64>()
}

fn to_float(obj: &Bound<'_, PyAny>) -> PyResult<f64> {
    if let Ok(f) = obj.extract::<f64>() {
        return Ok(f);
    }
    // as the reference, whatever float() accepts, and float()'s exception for the rest (ValueError
    // for a string that is no number, TypeError for other types)
    obj.py().import("builtins")?.getattr("float")?.call1((obj,))?.extract::<f64>()
}

fn to_data(obj: &Bound<'_, PyAny>) -> PyResult<Data> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Data::new(s.to_str()?.as_bytes(), dtUtf8));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Data::new(b.as_bytes(), dtBinary));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Data::new(&b.to_vec(), dtBinary));
    }
    let s = obj.str()?;
    Ok(Data::new(s.to_str()?.as_bytes(), dtUtf8))
}

/// A Python callable (or a plugin function, or a function from a map) as a VSFunction.
pub fn to_function(obj: &Bound<'_, PyAny>) -> PyResult<Arc<Function>> {
    if let Ok(f) = obj.cast::<corepy::Func>() {
        return Ok(f.get().func.clone());
    }
    if let Ok(f) = obj.cast::<corepy::Function>() {
        return f.get().as_vs_function();
    }
    if !obj.is_callable() {
        return Err(PyTypeError::new_err(format!("a {} is not callable", type_name(obj))));
    }
    python_function(obj.clone().unbind())
}

/// Converts `obj` for a declared argument. `func` names the function in messages.
pub fn to_values_typed(obj: &Bound<'_, PyAny>, spec: &ArgSpec, func: &str) -> PyResult<Values> {
    let items = elements(obj)?;
    let bad = |o: &Bound<'_, PyAny>| {
        crate::err(format!("{func}: argument {} expects {} values, not {}", spec.name, spec.ty.name(), type_name(o)))
    };
    Ok(match spec.ty {
        ArgType::Int => Values::Int(items.iter().map(to_int).collect::<PyResult<_>>()?),
        ArgType::Float => Values::Float(items.iter().map(to_float).collect::<PyResult<_>>()?),
        ArgType::Data => Values::Data(items.iter().map(to_data).collect::<PyResult<_>>()?),
        ArgType::Func => Values::Function(items.iter().map(|o| to_function(o).map_err(|_| bad(o))).collect::<PyResult<_>>()?),
        ArgType::VideoNode | ArgType::AudioNode => {
            let mut v = Vec::new();
            for o in &items {
                let n = node_from_py(o).ok_or_else(|| bad(o))?;
                if n.is_audio() != (spec.ty == ArgType::AudioNode) {
                    return Err(bad(o));
                }
                v.push(n);
            }
            if spec.ty == ArgType::AudioNode {
                Values::AudioNode(v)
            } else {
                Values::VideoNode(v)
            }
        }
        ArgType::VideoFrame | ArgType::AudioFrame => {
            let mut v = Vec::new();
            for o in &items {
                let f = frame_from_py(o).ok_or_else(|| bad(o))?;
                if f.is_audio() != (spec.ty == ArgType::AudioFrame) {
                    return Err(bad(o));
                }
                v.push(f);
            }
            if spec.ty == ArgType::AudioFrame {
                Values::AudioFrame(v)
            } else {
                Values::VideoFrame(v)
            }
        }
    })
}

/// The type a Python value has in a map when nothing declares it.
fn infer_type(obj: &Bound<'_, PyAny>) -> Option<ArgType> {
    if obj.is_instance_of::<PyBool>() || obj.is_instance_of::<PyInt>() {
        Some(ArgType::Int)
    } else if obj.is_instance_of::<PyFloat>() {
        Some(ArgType::Float)
    } else if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>() {
        Some(ArgType::Data)
    } else if let Some(n) = node_from_py(obj) {
        Some(if n.is_audio() { ArgType::AudioNode } else { ArgType::VideoNode })
    } else if let Some(f) = frame_from_py(obj) {
        Some(if f.is_audio() { ArgType::AudioFrame } else { ArgType::VideoFrame })
    } else if obj.is_callable() {
        Some(ArgType::Func)
    } else if obj.hasattr("__index__").unwrap_or(false) {
        Some(ArgType::Int)
    } else if obj.hasattr("__float__").unwrap_or(false) {
        Some(ArgType::Float)
    } else {
        None
    }
}

/// Converts a value nothing declares (an `any` argument, a callback's result): one value, or any
/// other iterable (a dict gives its keys) of values of one type, as R81 takes them; the type comes
/// from the values. None for an empty one. Values of no map type, or of mixed types, are a
/// vsvk.Error.
pub fn to_values_any(obj: &Bound<'_, PyAny>, key: &str) -> PyResult<Option<Values>> {
    let single = obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>();
    let items: Vec<Bound<'_, PyAny>> = match obj.try_iter() {
        Ok(it) if !single && node_from_py(obj).is_none() && obj.cast::<crate::frame::RawFrame>().is_err() => it.collect::<PyResult<_>>()?,
        _ => vec![obj.clone()],
    };
    let Some(first) = items.first() else { return Ok(None) };
    let unsupported = |o: &Bound<'_, PyAny>| crate::err(format!("argument {key} was passed an unsupported type ({})", type_name(o)));
    let ty = infer_type(first).ok_or_else(|| unsupported(first))?;
    for o in &items[1..] {
        if infer_type(o).ok_or_else(|| unsupported(o))? != ty {
            return Err(crate::err(format!("not all values are of the same type in {key}")));
        }
    }
    let mut spec = ArgSpec::new(key, ty);
    spec.array = true;
    let list = PyList::new(obj.py(), items)?;
    to_values_typed(list.as_any(), &spec, key).map(Some)
}

/// Stores a dict's items in a map, each typed by its value.
pub fn dict_to_map(d: &Bound<'_, PyDict>, out: &mut Map) -> PyResult<()> {
    for (k, v) in d.iter() {
        let key: String = k.extract()?;
        if v.is_none() {
            continue;
        }
        if let Some(vals) = to_values_any(&v, &key)? {
            out.set_values(key.as_bytes(), vals).map_err(|e| PyValueError::new_err(format!("{key}: {e}")))?;
        }
    }
    Ok(())
}

/// The text of a Python exception with its traceback.
pub fn exception_text(py: Python<'_>, e: &PyErr) -> String {
    let formatted = py
        .import("traceback")
        .and_then(|tb| tb.getattr("format_exception")?.call1((e.get_type(py), e.value(py), e.traceback(py))))
        .and_then(|lines| lines.extract::<Vec<String>>());
    match formatted {
        Ok(lines) => lines.concat().trim_end().to_string(),
        Err(_) => e.to_string(),
    }
}

/// A Python callable as a VSFunction: called with the input map's items as keyword arguments; a
/// dict it returns becomes the output map, anything else (but None) the output's `val`. An exception
/// becomes the output map's error, with its traceback.
pub fn python_function(callable: Py<PyAny>) -> PyResult<Arc<Function>> {
    let core = crate::core()?;
    // called on the core's threads: in the environment it was made in
    let callable = Python::attach(|py| -> PyResult<Py<PyAny>> { Ok(py.import("vsvk")?.getattr("_bind_env")?.call1((callable,))?.unbind()) })?;
    let imp = FunctionImpl::Rust(Box::new(move |input: &Map, out: &mut Map| {
        // at the interpreter's exit, frames still in flight get an error (shutdown.rs)
        let attached = crate::shutdown::with_python(|py| {
            let result = (|| -> PyResult<()> {
                let kwargs = map_to_dict(py, input)?;
                let r = callable.bind(py).call((), Some(&kwargs))?;
                if r.is_none() {
                    return Ok(());
                }
                if let Ok(d) = r.cast::<PyDict>() {
                    return dict_to_map(d, out);
                }
                if let Some(v) = to_values_any(&r, "val")? {
                    out.set_values(b"val", v).map_err(|e| PyValueError::new_err(e.to_string()))?;
                }
                Ok(())
            })();
            if let Err(e) = result {
                let mut text = exception_text(py, &e);
                if let Some(mark) = crate::tunnel::stash(py, &e) {
                    text = format!("{mark}\n{text}");
                }
                out.set_error(&text);
            }
        });
        if attached.is_none() {
            out.set_error("the Python interpreter is shutting down");
        }
    }));
    Ok(Arc::new(Function { imp, core }))
}
