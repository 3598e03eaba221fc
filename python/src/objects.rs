//! The module's Python-side objects beyond the constants (objects.py: ChannelLayout, get_plugin_dir
//! and the other path functions), and what they need from the core.
use pyo3::prelude::*;
use pyo3::types::code::PyCodeInput;
use pyo3::types::{PyCode, PyCodeMethods};

/// The folders plugin autoloading reads, in order (the user's folder last).
#[pyfunction]
fn _autoload_folders() -> Vec<String> {
    vsvk::plugin::autoload_folders().iter().map(|p| p.to_string_lossy().into_owned()).collect()
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
