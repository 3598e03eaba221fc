//! Clip slicing, `+` and `*`. Like the reference, these call std.Trim, std.SelectEvery,
//! std.Reverse, std.Splice and std.Loop (std.AudioTrim ... for audio) when the core has them; for
//! video clips a core without them gets the same frames from a small pass-through filter here.
use std::ffi::c_void;
use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use vsvk::frame::Frame;
use vsvk::map::{Map, Value, Values};
use vsvk::node::{Filter, FilterImpl, MediaInfo, Node};
use vsvk::scheduler::FrameCall;
use vsvk_plugin_api::abi::*;

/// Calls std.`name`; None when the core has no such function.
fn std_call(py: Python<'_>, name: &str, args: Map) -> Option<PyResult<Arc<Node>>> {
    let core = match crate::core() {
        Ok(c) => c,
        Err(e) => return Some(Err(e)),
    };
    let std = core.plugin_by_ns("std")?;
    std.function(name)?;
    let name2 = name.to_string();
    let out = py.detach(move || vsvk::plugin::invoke(&std, &name2, &args));
    if let Some(e) = out.error() {
        return Some(Err(crate::err(e.to_string_lossy())));
    }
    Some(out.get_node(b"clip", 0).cloned().map_err(|_| crate::err(format!("std.{name} returned no clip"))))
}

fn with_clip(clip: &Arc<Node>) -> Map {
    let mut m = Map::new();
    m.set(b"clip", Value::Node(clip.clone()), false).expect("valid key");
    m
}

/// Output frame n is frame `map(n).1` of source `map(n).0`.
struct Remap {
    srcs: Vec<Arc<Node>>,
    map: Box<dyn Fn(i32) -> (usize, i32) + Send + Sync>,
}

impl Filter for Remap {
    fn get_frame(&self, n: i32, reason: i32, _fd: &mut *mut c_void, call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
        let (i, m) = (self.map)(n);
        match reason {
            arInitial => {
                call.request(&self.srcs[i], m);
                Ok(None)
            }
            arAllFramesReady => call.get(&self.srcs[i], m).map(Some).ok_or_else(|| format!("frame {m} was not delivered")),
            _ => Ok(None),
        }
    }
}

fn remap_node(name: &str, srcs: Vec<Arc<Node>>, frames: i32, map: impl Fn(i32) -> (usize, i32) + Send + Sync + 'static) -> Arc<Node> {
    let mut vi = *srcs[0].video_info().expect("video");
    vi.numFrames = frames;
    let deps = srcs.iter().map(|s| (s.clone(), rpGeneral)).collect();
    let core = srcs[0].core.clone();
    Node::new(core, name, MediaInfo::Video(vi), FilterImpl::Rust(Box::new(Remap { srcs, map: Box::new(map) })), fmParallel, 0, deps, Vec::new())
}

/// Frames `first..=last` (video) or samples `first..=last` (audio).
fn trim(py: Python<'_>, clip: &Arc<Node>, first: i64, last: i64) -> PyResult<Arc<Node>> {
    let total = if clip.is_audio() { clip.audio_info().expect("audio").numSamples } else { clip.num_frames() as i64 };
    if first == 0 && last == total - 1 {
        return Ok(clip.clone());
    }
    let mut args = with_clip(clip);
    args.set_int("first", first);
    args.set_int("last", last);
    if clip.is_audio() {
        return std_call(py, "AudioTrim", args).unwrap_or_else(|| Err(missing("AudioTrim")));
    }
    if let Some(r) = std_call(py, "Trim", args) {
        return r;
    }
    let first = first as i32;
    Ok(remap_node("Trim", vec![clip.clone()], (last - first as i64 + 1) as i32, move |n| (0, first + n)))
}

fn reverse(py: Python<'_>, clip: &Arc<Node>) -> PyResult<Arc<Node>> {
    if clip.is_audio() {
        return std_call(py, "AudioReverse", with_clip(clip)).unwrap_or_else(|| Err(missing("AudioReverse")));
    }
    if let Some(r) = std_call(py, "Reverse", with_clip(clip)) {
        return r;
    }
    let last = clip.num_frames() - 1;
    Ok(remap_node("Reverse", vec![clip.clone()], clip.num_frames(), move |n| (0, last - n)))
}

fn select_every(py: Python<'_>, clip: &Arc<Node>, cycle: i64) -> PyResult<Arc<Node>> {
    if cycle == 1 {
        return Ok(clip.clone());
    }
    if clip.is_audio() {
        return Err(PyValueError::new_err("audio clips cannot be sliced with a step"));
    }
    let mut args = with_clip(clip);
    args.set_int("cycle", cycle);
    args.set_values(b"offsets", Values::Int(vec![0])).expect("valid key");
    if let Some(r) = std_call(py, "SelectEvery", args) {
        return r;
    }
    let c = cycle as i32;
    let frames = (clip.num_frames() + c - 1) / c;
    Ok(remap_node("SelectEvery", vec![clip.clone()], frames, move |n| (0, n * c)))
}

fn missing(name: &str) -> PyErr {
    crate::err(format!("this core has no std.{name} yet, which audio clips need for this operation"))
}

/// `clip[key]` for an int or a slice; indices count frames (video) or samples (audio).
pub fn getitem(py: Python<'_>, clip: &Arc<Node>, key: &Bound<'_, PyAny>) -> PyResult<Arc<Node>> {
    let len = if clip.is_audio() { clip.audio_info().expect("audio").numSamples } else { clip.num_frames() as i64 };
    if let Ok(slice) = key.cast::<pyo3::types::PySlice>() {
        let (start, stop, step): (i64, i64, i64) = slice.call_method1("indices", (len,))?.extract()?;
        let count = if step > 0 { (stop - start + step - 1).max(0) / step } else { (start - stop - step - 1).max(0) / -step };
        if count <= 0 {
            return Err(PyValueError::new_err("the slice selects no frames"));
        }
        if step > 0 {
            let last = start + (count - 1) * step;
            let t = trim(py, clip, start, last)?;
            select_every(py, &t, step)
        } else {
            let lowest = start + (count - 1) * step;
            let t = trim(py, clip, lowest, start)?;
            let r = reverse(py, &t)?;
            select_every(py, &r, -step)
        }
    } else {
        let i: i64 = key.extract()?;
        let i = if i < 0 { i + len } else { i };
        if i < 0 || i >= len {
            return Err(PyIndexError::new_err("index out of range"));
        }
        trim(py, clip, i, i)
    }
}

/// `a + b`.
pub fn splice(py: Python<'_>, a: &Arc<Node>, b: &Arc<Node>) -> PyResult<Arc<Node>> {
    if a.is_audio() != b.is_audio() {
        return Err(pyo3::exceptions::PyNotImplementedError::new_err("cannot splice audio and video"));
    }
    let mut args = Map::new();
    let clips = vec![a.clone(), b.clone()];
    let values = if a.is_audio() { Values::AudioNode(clips) } else { Values::VideoNode(clips) };
    args.set_values(b"clips", values).expect("valid key");
    if a.is_audio() {
        return std_call(py, "AudioSplice", args).unwrap_or_else(|| Err(missing("AudioSplice")));
    }
    if let Some(r) = std_call(py, "Splice", args) {
        return r;
    }
    let (va, vb) = (a.video_info().expect("video"), b.video_info().expect("video"));
    if va.format != vb.format || va.width != vb.width || va.height != vb.height {
        return Err(crate::err("Splice: the clips' formats or dimensions differ"));
    }
    let na = va.numFrames;
    Ok(remap_node("Splice", vec![a.clone(), b.clone()], na + vb.numFrames, move |n| if n < na { (0, n) } else { (1, n - na) }))
}

/// `clip * times`.
pub fn repeat(py: Python<'_>, clip: &Arc<Node>, times: i64) -> PyResult<Arc<Node>> {
    if times < 0 {
        return Err(PyValueError::new_err("a clip can only be repeated a positive number of times"));
    }
    if times == 0 {
        return Err(PyValueError::new_err("repeating a clip 0 times leaves nothing"));
    }
    let mut args = with_clip(clip);
    args.set_int("times", times);
    if clip.is_audio() {
        return std_call(py, "AudioLoop", args).unwrap_or_else(|| Err(missing("AudioLoop")));
    }
    if let Some(r) = std_call(py, "Loop", args) {
        return r;
    }
    let len = clip.num_frames();
    let total = (len as i64 * times).min(i32::MAX as i64) as i32;
    Ok(remap_node("Loop", vec![clip.clone()], total, move |n| (0, n % len)))
}
