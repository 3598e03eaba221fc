//! The `vsvk` Python module: the vsvk core (vsvk-core's safe layer) as VapourSynth's Python API
//! presents it, so that scripts written for VapourSynth run with `import vsvk as vs` (and, under
//! `vsvk pipe`, with `import vapoursynth as vs` unchanged). It also holds the code behind the vsvk
//! command (`_main`): the cli/ program only starts a Python interpreter that calls it.
//!
//! One core per process, created on first use with plugin autoloading (see vsvk::plugin). Frames
//! are waited for with the interpreter released, so Python callbacks (std.FrameEval,
//! std.ModifyFrame, ...) run on the core's threads meanwhile, and in slices of 50 ms so that Ctrl-C
//! interrupts any wait.
#![allow(non_upper_case_globals)]
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyCodeMethods, PyDict, PyTuple};
use vsvk::core::Core;
use vsvk::node::Node;
use vsvk_plugin_api::abi::*;

pub mod cli;
pub mod convert;
pub mod corepy;
pub mod dlpack;
pub mod format;
pub mod frame;
pub mod node;
pub mod pipe;
pub mod remap;
pub mod vulkan;
pub mod wave;

pyo3::create_exception!(vsvk, Error, PyException, "Errors of the vsvk core and of the functions it runs.");

pub fn err(msg: impl Into<String>) -> PyErr {
    Error::new_err(msg.into())
}

static CORE: OnceLock<Arc<Core>> = OnceLock::new();

/// The process's core. Never freed: the process ends with it (freeing it at interpreter exit
/// would join worker threads that may be waiting for the interpreter).
pub fn core() -> &'static Arc<Core> {
    CORE.get_or_init(|| {
        let core = Core::new(0);
        // As R81's module does: warnings and worse go to stderr whatever handlers a script adds
        // (the core itself only keeps messages while no handler is installed).
        core.log.add(vsvk::log::HandlerImpl::Rust(Box::new(|level, msg| {
            if level >= mtWarning {
                eprintln!("{}: {msg}", vsvk::log::level_name(level));
            }
        })));
        core
    })
}

/// Whether the core exists yet (so that asking for it doesn't create it).
pub fn core_created() -> bool {
    CORE.get().is_some()
}

#[derive(Clone)]
pub enum Output {
    Video { clip: Arc<Node>, alpha: Option<Arc<Node>>, alt_output: i32 },
    Audio(Arc<Node>),
}

static OUTPUTS: Mutex<BTreeMap<i32, Output>> = Mutex::new(BTreeMap::new());

pub fn set_output(index: i32, out: Output) {
    OUTPUTS.lock().insert(index, out);
}

pub fn output(index: i32) -> Option<Output> {
    OUTPUTS.lock().get(&index).cloned()
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
    match output(index) {
        Some(o) => output_to_py(py, &o),
        None => Err(pyo3::exceptions::PyKeyError::new_err(format!("no output set at index {index}"))),
    }
}

/// Every output, by index (a read-only mapping).
#[pyfunction]
fn get_outputs(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let d = PyDict::new(py);
    let outs: Vec<(i32, Output)> = OUTPUTS.lock().iter().map(|(k, v)| (*k, v.clone())).collect();
    for (k, v) in outs {
        d.set_item(k, output_to_py(py, &v)?)?;
    }
    py.import("types")?.getattr("MappingProxyType")?.call1((d,))
}

#[pyfunction]
#[pyo3(signature = (index = 0))]
fn clear_output(index: i32) {
    OUTPUTS.lock().remove(&index);
}

#[pyfunction]
fn clear_outputs() {
    OUTPUTS.lock().clear();
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
    m.add_class::<frame::FrameProps>()?;
    m.add_class::<frame::PlaneBuffer>()?;
    dlpack::register(m)?;
    m.add_function(wrap_pyfunction!(get_output, m)?)?;
    m.add_function(wrap_pyfunction!(get_outputs, m)?)?;
    m.add_function(wrap_pyfunction!(clear_output, m)?)?;
    m.add_function(wrap_pyfunction!(clear_outputs, m)?)?;
    m.add_function(wrap_pyfunction!(_main, m)?)?;
    m.add("core", Py::new(py, corepy::Core {})?)?;

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
    let all: Vec<String> = globals.keys().iter().filter_map(|k| k.extract::<String>().ok()).filter(|k| !k.starts_with('_')).collect();
    m.add("__all__", PyTuple::new(py, all)?)?;
    Ok(())
}
