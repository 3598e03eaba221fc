//! The `vsvk` Python module: the vsvk core (vsvk-core's safe layer) as VapourSynth's Python API
//! presents it, so that scripts written for VapourSynth run with `import vsvk as vs` (and, under
//! `vsvk pipe`, with `import vapoursynth as vs` unchanged). It also holds the code behind the vsvk
//! command (`_main`): the cli/ program only starts a Python interpreter that calls it.
//!
//! A core per environment (environment.rs), created on first use with plugin autoloading (see
//! vsvk::autoload), the `vapoursynth/plugins` folders of `sys.path` included (site_plugins). Frames
//! are waited for with the interpreter released, so Python callbacks (std.FrameEval,
//! std.ModifyFrame, ...) run on the core's threads meanwhile, and in slices of 50 ms so that Ctrl-C
//! interrupts any wait.
#![allow(non_upper_case_globals)]
use std::sync::Arc;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyCodeMethods, PyDict, PyTuple};
use vsvk::core::Core;
use vsvk::node::Node;
use vsvk_plugin_api::abi::*;

pub mod cli;
pub mod convert;
pub mod corepy;
pub mod cuda;
pub mod dlpack;
pub mod gpu_import;
pub mod gpu_map;
pub mod environment;
pub mod format;
pub mod frontends;
pub mod frame;
pub mod node;
pub mod objects;
pub mod pipe;
pub mod props;
pub mod remap;
pub mod shutdown;
pub mod site_plugins;
pub mod tunnel;
pub mod vulkan;
pub mod wave;

pyo3::create_exception!(vsvk, Error, PyException, "Errors of the vsvk core and of the functions it runs.");

pub fn err(msg: impl Into<String>) -> PyErr {
    Error::new_err(msg.into())
}

/// The current environment's core (see environment.rs): the standalone environment's unless a
/// policy says otherwise.
pub fn core() -> PyResult<Arc<Core>> {
    environment::current_core()
}

#[derive(Clone)]
pub enum Output {
    Video { clip: Arc<Node>, alpha: Option<Arc<Node>>, alt_output: i32 },
    Audio(Arc<Node>),
}

/// The current environment's outputs.
fn outputs(py: Python<'_>) -> PyResult<Arc<environment::EnvState>> {
    environment::current(py)
}

pub fn set_output(py: Python<'_>, index: i32, out: Output) -> PyResult<()> {
    outputs(py)?.outputs.lock().insert(index, out);
    Ok(())
}

pub fn output(py: Python<'_>, index: i32) -> PyResult<Option<Output>> {
    Ok(outputs(py)?.outputs.lock().get(&index).cloned())
}

fn output_to_py<'py>(py: Python<'py>, out: &Output) -> PyResult<Bound<'py, PyAny>> {
    match out {
        Output::Audio(n) => node::node_to_py(py, n.clone()),
        Output::Video { clip, alpha, alt_output } => {
            let m = py.import("vsvk")?;
            let clip = node::node_to_py(py, clip.clone())?;
            let alpha = match alpha {
                Some(a) => node::node_to_py(py, a.clone())?,
                None => py.None().into_bound(py),
            };
            m.getattr("VideoOutputTuple")?.call1((clip, alpha, *alt_output))
        }
    }
}

/// The output set at `index`: a VideoOutputTuple for video, the AudioNode for audio.
#[pyfunction]
#[pyo3(signature = (index = 0))]
fn get_output(py: Python<'_>, index: i32) -> PyResult<Bound<'_, PyAny>> {
    match output(py, index)? {
        Some(o) => output_to_py(py, &o),
        None => Err(pyo3::exceptions::PyKeyError::new_err(format!("no output set at index {index}"))),
    }
}

/// Every output, by index (a read-only mapping).
#[pyfunction]
fn get_outputs(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let d = PyDict::new(py);
    let outs: Vec<(i32, Output)> = outputs(py)?.outputs.lock().iter().map(|(k, v)| (*k, v.clone())).collect();
    for (k, v) in outs {
        d.set_item(k, output_to_py(py, &v)?)?;
    }
    py.import("types")?.getattr("MappingProxyType")?.call1((d,))
}

#[pyfunction]
#[pyo3(signature = (index = 0))]
fn clear_output(py: Python<'_>, index: i32) -> PyResult<()> {
    outputs(py)?.outputs.lock().remove(&index);
    Ok(())
}

#[pyfunction]
fn clear_outputs(py: Python<'_>) -> PyResult<()> {
    outputs(py)?.outputs.lock().clear();
    Ok(())
}

/// The vsvk command's entry point (cli/ calls it). Ends the process: flushes Python's streams and
/// exits without tearing the interpreter down, so that frames still in flight on the core's
/// threads cannot hold the exit up.
#[pyfunction]
fn _main(py: Python<'_>, args: Vec<String>) -> PyResult<()> {
    // Ctrl-C raises KeyboardInterrupt even when the interpreter was started with SIGINT ignored
    // (as a non-interactive shell starts background jobs)
    let signal = py.import("signal")?;
    signal.call_method1("signal", (signal.getattr("SIGINT")?, signal.getattr("default_int_handler")?))?;
    let code = cli::main(py, &args);
    let sys = py.import("sys")?;
    for stream in ["stdout", "stderr"] {
        if let Ok(s) = sys.getattr(stream) {
            let _ = s.call_method0("flush");
        }
    }
    std::process::exit(code);
}

#[pymodule]
#[pyo3(name = "vsvk")]
fn vsvk_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add_class::<corepy::Core>()?;
    m.add_class::<corepy::Plugin>()?;
    m.add_class::<corepy::Function>()?;
    m.add_class::<corepy::Func>()?;
    m.add_class::<corepy::CoreTimings>()?;
    m.add_class::<corepy::LogHandle>()?;
    m.add_class::<format::VideoFormat>()?;
    m.add_class::<node::RawNode>()?;
    m.add_class::<node::VideoNode>()?;
    m.add_class::<node::AudioNode>()?;
    m.add_class::<node::FrameIterator>()?;
    m.add_class::<frame::RawFrame>()?;
    m.add_class::<frame::VideoFrame>()?;
    m.add_class::<frame::AudioFrame>()?;
    m.add_class::<props::FrameProps>()?;
    m.add_class::<frame::PlaneBuffer>()?;
    dlpack::register(m)?;
    gpu_import::register(m)?;
    gpu_map::register(m)?;
    m.add_function(wrap_pyfunction!(get_output, m)?)?;
    m.add_function(wrap_pyfunction!(get_outputs, m)?)?;
    m.add_function(wrap_pyfunction!(clear_output, m)?)?;
    m.add_function(wrap_pyfunction!(clear_outputs, m)?)?;
    m.add_function(wrap_pyfunction!(_main, m)?)?;
    environment::register(m)?;
    shutdown::register(m)?;

    let presets = PyDict::new(py);
    for (name, id) in PRESET_VIDEO_FORMATS {
        presets.set_item(*name, *id)?;
    }
    let channels = PyDict::new(py);
    for (name, pos) in AUDIO_CHANNELS {
        channels.set_item(*name, *pos)?;
    }
    m.add("_PRESETS", presets)?;
    m.add("_CHANNELS", channels)?;
    m.add("_CORE_VERSION", vsvk::core::CORE_VERSION)?;
    m.add("_API_MAJOR", VAPOURSYNTH_API_MAJOR)?;
    m.add("_API_MINOR", VAPOURSYNTH_API_MINOR)?;
    let globals = m.dict();
    let code = std::ffi::CString::new(include_str!("constants.py")).expect("no NULs in the source");
    let code = pyo3::types::PyCode::compile(py, &code, c"vsvk/constants.py", pyo3::types::code::PyCodeInput::File)?;
    code.run(Some(&globals), None)?;
    objects::register(m)?;
    let all: Vec<String> = globals.keys().iter().filter_map(|k| k.extract::<String>().ok()).filter(|k| !k.starts_with('_')).collect();
    m.add("__all__", PyTuple::new(py, all)?)?;
    let code = std::ffi::CString::new(include_str!("environment.py")).expect("no NULs in the source");
    let code = pyo3::types::PyCode::compile(py, &code, c"vsvk/environment.py", pyo3::types::code::PyCodeInput::File)?;
    code.run(Some(&globals), None)?;
    let code = std::ffi::CString::new(include_str!("internals.py")).expect("no NULs in the source");
    let code = pyo3::types::PyCode::compile(py, &code, c"vsvk/internals.py", pyo3::types::code::PyCodeInput::File)?;
    code.run(Some(&globals), None)?;
    // `vsvk render` and vsvk.render (chunked rendering on Ray): modules of their own, which Ray's
    // workers import by these names to run the tasks; Ray itself is imported only when one runs.
    embedded_module(m, "_render_task", c"vsvk/render_task.py", include_str!("render_task.py"))?;
    let job = embedded_module(m, "_render", c"vsvk/render_job.py", include_str!("render_job.py"))?;
    embedded_module(m, "_render_cli", c"vsvk/render_cli.py", include_str!("render_cli.py"))?;
    m.setattr("render", job.getattr("render")?)?;
    Ok(())
}

/// A Python module `vsvk.NAME` from source built into the extension, registered in sys.modules so
/// that `import vsvk.NAME` (and unpickling what refers to it) finds it once vsvk is imported.
fn embedded_module<'py>(parent: &Bound<'py, PyModule>, name: &str, file: &std::ffi::CStr, source: &str) -> PyResult<Bound<'py, PyModule>> {
    let py = parent.py();
    let full = format!("vsvk.{name}");
    let m = PyModule::new(py, &full)?;
    m.setattr("__file__", file.to_string_lossy().as_ref())?;
    py.import("sys")?.getattr("modules")?.set_item(&full, &m)?;
    let code = std::ffi::CString::new(source).expect("no NULs in the source");
    let code = pyo3::types::PyCode::compile(py, &code, file, pyo3::types::code::PyCodeInput::File)?;
    code.run(Some(&m.dict()), None)?;
    parent.setattr(name, &m)?;
    Ok(m)
}
