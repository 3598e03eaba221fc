//! The module's Python-side objects beyond the constants (objects.py: ChannelLayout, get_plugin_dir
//! and the other path functions), and what they need from the core.
use pyo3::prelude::*;
use pyo3::types::code::PyCodeInput;
use pyo3::types::{PyCode, PyCodeMethods};

/// The folders plugin autoloading reads, in order (the user's folder last).
#[pyfunction]
fn _autoload_folders() -> Vec<String> {
    vsvk::autoload::folders(&[]).iter().map(|p| p.to_string_lossy().into_owned()).collect()
}

/// Adds objects.py's names to the module (after constants.py, whose names it uses).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(_autoload_folders, m)?)?;
    let code = std::ffi::CString::new(include_str!("objects.py")).expect("no NULs in the source");
    let code = PyCode::compile(py, &code, c"vsvk/objects.py", PyCodeInput::File)?;
    code.run(Some(&m.dict()), None)?;
    Ok(())
}

/// `dir()` of a node: its attributes, then the namespaces of the plugins that have a function whose
/// first argument takes a node of this kind (those a method call can bind it to), as R81 lists them.
pub fn node_dir(node: &Bound<'_, PyAny>, audio: bool) -> PyResult<Vec<String>> {
    let object = node.py().import("builtins")?.getattr("object")?;
    let mut v: Vec<String> = object.getattr("__dir__")?.call1((node,))?.extract()?;
    let wanted = if audio { vsvk::argspec::ArgType::AudioNode } else { vsvk::argspec::ArgType::VideoNode };
    // the node's own core: its environment need not be the current one
    let core = match crate::node::node_from_py(node) {
        Some(n) => n.core.clone(),
        None => crate::core()?,
    };
    for p in core.plugins.read().iter() {
        if p.functions.read().values().any(|f| f.sig.args().first().is_some_and(|a| a.ty == wanted)) {
            v.push(p.namespace().to_string());
        }
    }
    Ok(v)
}
