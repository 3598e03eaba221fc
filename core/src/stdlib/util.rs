//! Shared pieces for the built-in filters: typed argument access, the `planes` argument, frames
//! and rows of samples, and `FnFilter`, the common filter shape (output frame n is made from
//! frames of its inputs chosen by n).
use std::ffi::c_void;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use crate::core::Core;
use crate::frame::Frame;
use crate::map::{Map, Value, Values};
use crate::node::{Filter, FilterImpl, MediaInfo, Node};
use crate::scheduler::FrameCall;

/// Typed access to a function's arguments. Types were already checked against the signature,
/// so these only tell present from absent.
pub struct Args<'a>(pub &'a Map);

impl Args<'_> {
    pub fn node(&self, key: &str) -> Result<Arc<Node>, String> {
        self.0.get_node(key.as_bytes(), 0).cloned().map_err(|_| format!("argument {key} is required"))
    }
    pub fn opt_node(&self, key: &str) -> Option<Arc<Node>> {
        self.0.get_node(key.as_bytes(), 0).ok().cloned()
    }
    pub fn nodes(&self, key: &str) -> Vec<Arc<Node>> {
        match self.0.get(key.as_bytes()) {
            Ok(Values::VideoNode(v)) | Ok(Values::AudioNode(v)) => v.clone(),
            _ => Vec::new(),
        }
    }
    pub fn int(&self, key: &str) -> Option<i64> {
        self.0.get_int(key.as_bytes(), 0).ok()
    }
    pub fn float(&self, key: &str) -> Option<f64> {
        self.0.get_float(key.as_bytes(), 0).ok()
    }
    pub fn bool(&self, key: &str, default: bool) -> bool {
        self.int(key).map_or(default, |v| v != 0)
    }
    pub fn ints(&self, key: &str) -> Option<Vec<i64>> {
        match self.0.get(key.as_bytes()) {
            Ok(Values::Int(v)) => Some(v.clone()),
            _ => None,
        }
    }
    pub fn floats(&self, key: &str) -> Option<Vec<f64>> {
        match self.0.get(key.as_bytes()) {
            Ok(Values::Float(v)) => Some(v.clone()),
            _ => None,
        }
    }
    pub fn string(&self, key: &str) -> Option<String> {
        self.0.get_data(key.as_bytes(), 0).ok().map(|d| d.to_str_lossy())
    }
    pub fn strings(&self, key: &str) -> Option<Vec<String>> {
        match self.0.get(key.as_bytes()) {
            Ok(Values::Data(v)) => Some(v.iter().map(|d| d.to_str_lossy()).collect()),
            _ => None,
        }
    }
    pub fn function(&self, key: &str) -> Option<Arc<crate::function::Function>> {
        self.0.get_function(key.as_bytes(), 0).ok().cloned()
    }
    pub fn contains(&self, key: &str) -> bool {
        self.0.contains(key.as_bytes())
    }
}

/// The video description of a node, or the message R81 gives for an audio clip.
pub fn video_info(node: &Node) -> Result<VSVideoInfo, String> {
    node.video_info().copied().ok_or_else(|| "only video clips are supported".to_string())
}

pub fn audio_info(node: &Node) -> Result<VSAudioInfo, String> {
    node.audio_info().copied().ok_or_else(|| "only audio clips are supported".to_string())
}

/// Constant format and dimensions (neither varies from frame to frame).
pub fn is_constant(vi: &VSVideoInfo) -> bool {
    vi.format.colorFamily != cfUndefined && vi.width > 0 && vi.height > 0
}

pub fn require_constant(vi: &VSVideoInfo) -> Result<(), String> {
    if is_constant(vi) {
        Ok(())
    } else {
        Err("only clips with constant format and dimensions supported".into())
    }
}

/// The `planes` argument: absent means every plane; listed planes must exist and appear once.
pub fn planes_arg(args: &Args, key: &str, num_planes: i32) -> Result<[bool; 3], String> {
    let Some(list) = args.ints(key) else {
        return Ok([true, num_planes > 1, num_planes > 2]);
    };
    let mut out = [false; 3];
    for p in list {
        if p < 0 || p >= num_planes as i64 {
            return Err("plane index out of range".into());
        }
        if out[p as usize] {
            return Err("plane specified twice".into());
        }
        out[p as usize] = true;
    }
    Ok(out)
}

pub fn set_clip(out: &mut Map, node: Arc<Node>) {
    out.set(b"clip", Value::Node(node), false).expect("clip is a valid key");
}

pub fn append_clip(out: &mut Map, node: Arc<Node>) {
    out.set(b"clip", Value::Node(node), true).expect("clip is a valid key");
}

/// A new writable video frame; properties copied from `props` when given.
pub fn new_video(core: &Core, fmt: &VSVideoFormat, w: i32, h: i32, props: Option<&Frame>) -> Result<Frame, String> {
    let f = Frame::new_video(fmt, w, h, &core.mem).map_err(|e| e.to_string())?;
    if let Some(src) = props {
        // SAFETY: `f` is new and unshared.
        unsafe { *f.props_mut() = src.props().clone() };
    }
    Ok(f)
}

/// Sample types a plane can be read and written as.
pub trait Sample: Copy + Default + Send + Sync + 'static {}
impl Sample for u8 {}
impl Sample for u16 {}
impl Sample for u32 {}
impl Sample for f32 {}

/// Rows of plane `p`, `width` samples each.
pub fn rows<T: Sample>(f: &Frame, p: usize) -> impl Iterator<Item = &[T]> + '_ {
    let pl = &f.planes()[p];
    let base = f.read_ptr(p as i32).expect("plane exists");
    let (w, stride) = (pl.width as usize, pl.stride);
    // SAFETY: every row starts inside the plane and holds `w` samples of T (the format says so).
    (0..pl.height as usize).map(move |y| unsafe { std::slice::from_raw_parts(base.offset(y as isize * stride).cast::<T>(), w) })
}

/// One row of plane `p`.
pub fn row<T: Sample>(f: &Frame, p: usize, y: usize) -> &[T] {
    let pl = &f.planes()[p];
    assert!(y < pl.height as usize);
    let base = f.read_ptr(p as i32).expect("plane exists");
    // SAFETY: the row is inside the plane and holds `width` samples of T.
    unsafe { std::slice::from_raw_parts(base.offset(y as isize * pl.stride).cast::<T>(), pl.width as usize) }
}

/// Writable rows of plane `p` of a frame this filter owns (new or copied, not yet shared).
pub fn rows_mut<T: Sample>(f: &mut Frame, p: usize) -> impl Iterator<Item = &mut [T]> + '_ {
    // SAFETY: `&mut Frame` means nobody else holds this frame; write_ptr makes the plane private.
    let base = unsafe { f.write_ptr(p as i32) }.expect("plane exists");
    let pl = &f.planes()[p];
    let (w, h, stride) = (pl.width as usize, pl.height as usize, pl.stride);
    // SAFETY: rows are disjoint (stride >= row bytes) and inside the plane.
    (0..h).map(move |y| unsafe { std::slice::from_raw_parts_mut(base.offset(y as isize * stride).cast::<T>(), w) })
}

pub use vsvk_std::util::{kind, Kind};

type Requests = Box<dyn Fn(i32) -> Vec<(usize, i32)> + Send + Sync>;
type Make = Box<dyn Fn(i32, &[Arc<Frame>], &Arc<Core>) -> Result<Arc<Frame>, String> + Send + Sync>;

/// The common filter shape: `requests(n)` names (input index, frame) pairs, and `make` gets those
/// frames, in that order, once they are all there.
pub struct FnFilter {
    pub inputs: Vec<Arc<Node>>,
    pub requests: Requests,
    pub make: Make,
}

impl Filter for FnFilter {
    fn get_frame(&self, n: i32, reason: i32, _fd: &mut *mut c_void, call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
        let wanted = (self.requests)(n);
        if reason == arInitial {
            for &(i, m) in &wanted {
                call.request(&self.inputs[i], m);
            }
            return Ok(None);
        }
        if reason != arAllFramesReady {
            return Ok(None);
        }
        let frames: Vec<Arc<Frame>> = wanted
            .iter()
            .map(|&(i, m)| call.get(&self.inputs[i], m).ok_or_else(|| "internal error: a requested frame is missing".to_string()))
            .collect::<Result<_, _>>()?;
        let core = call.core().clone();
        (self.make)(n, &frames, &core).map(Some)
    }
}

/// Builds a node for a built-in filter, with graph inspection's record of the call.
pub fn make_node(core: &Arc<Core>, name: &str, info: MediaInfo, filter: Box<dyn Filter>, mode: i32, deps: Vec<(Arc<Node>, i32)>) -> Arc<Node> {
    let creation = crate::plugin::creation_stack(core);
    Node::new(core.clone(), name, info, FilterImpl::Rust(filter), mode, 0, deps, creation)
}

/// Builds a node that reads and writes samples in host memory (`build` gets the inputs) so that
/// it takes GPU resident clips as R81's std does for its `vnode:all` arguments: such inputs are
/// downloaded for it, and its output goes back to the GPU when its first input was there.
pub fn on_host(core: &Arc<Core>, inputs: Vec<Arc<Node>>, build: impl FnOnce(Vec<Arc<Node>>) -> Arc<Node>) -> Result<Arc<Node>, String> {
    let gpu = inputs.first().is_some_and(|n| n.residency() == nrGPU);
    let inputs = inputs.into_iter().map(|n| if n.residency() == nrGPU { super::gpu::convert(core, n, false) } else { Ok(n) }).collect::<Result<Vec<_>, _>>()?;
    let node = build(inputs);
    if gpu {
        super::gpu::convert(core, node, true)
    } else {
        Ok(node)
    }
}

/// A filter whose output frame n is made from frame n of each input (spatial filters).
pub fn spatial(
    core: &Arc<Core>,
    name: &str,
    vi: VSVideoInfo,
    inputs: Vec<Arc<Node>>,
    make: impl Fn(i32, &[Arc<Frame>], &Arc<Core>) -> Result<Arc<Frame>, String> + Send + Sync + 'static,
) -> Arc<Node> {
    let count = inputs.len();
    let deps = inputs.iter().map(|n| (n.clone(), rpStrictSpatial)).collect();
    let filter = FnFilter { inputs, requests: Box::new(move |n| (0..count).map(|i| (i, n)).collect()), make: Box::new(make) };
    make_node(core, name, MediaInfo::Video(vi), Box::new(filter), fmParallel, deps)
}
