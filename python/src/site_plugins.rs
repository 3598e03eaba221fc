//! The plugin folders on the interpreter's `sys.path`: plugin wheels install into
//! `site-packages/vapoursynth/plugins/`, which R81's core reads because its library sits in that
//! package. Our module lives elsewhere, so it looks there on every `sys.path` entry.
use std::path::PathBuf;

use pyo3::prelude::*;

/// Every `<entry>/vapoursynth/plugins` folder of `sys.path`, in its order (an empty entry is the
/// current folder). The core reads each folder once, so repeated entries cost nothing.
pub fn folders() -> Vec<PathBuf> {
    Python::attach(|py| {
        let Ok(path) = py.import("sys").and_then(|s| s.getattr("path")) else { return Vec::new() };
        let Ok(entries) = path.try_iter() else { return Vec::new() };
        let cwd = std::env::current_dir().unwrap_or_default();
        entries
            .flatten()
            .filter_map(|e| e.extract::<PathBuf>().ok())
            .map(|e| cwd.join(e).join("vapoursynth").join("plugins"))
            .filter(|d| d.is_dir())
            .collect()
    })
}
