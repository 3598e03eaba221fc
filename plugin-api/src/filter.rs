//! Filters: a Rust [`Filter`] behind the core's getFrame/free callbacks.
//!
//! The layer does the request/ready dance: on the initial activation it requests what
//! [`Filter::requests`] names, and once they are ready it hands the frames to
//! [`Filter::get_frame`] in the same order. Errors become `Name: message` filter errors (an
//! [`crate::Error::Whole`] its message alone) and panics
//! are caught, so nothing unwinds into the core.
use std::ffi::{c_int, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::abi::*;
use crate::api::{self, Core};
use crate::error::Result;
use crate::frame::Frame;
use crate::map::Out;
use crate::node::Node;

pub trait Filter: Send + Sync + 'static {
    /// Frame n of every input (its last frame where it is shorter), in input order, whatever
    /// [`Filter::requests`] says: the layer then asks for them without building a list per
    /// frame, which counts for filters as cheap as a property change.
    const SPATIAL: bool = false;

    /// The input frames output frame `n` needs, as (input index, frame number). The default is
    /// frame `n` of every input, or its last frame when it is shorter.
    fn requests(&self, n: i32, lengths: &[i32]) -> Vec<(usize, i32)> {
        lengths.iter().enumerate().map(|(i, &len)| (i, n.min(len - 1).max(0))).collect()
    }

    /// Makes output frame `n` from the requested frames.
    fn get_frame(&self, n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame>;
}

/// How the filter is declared to the core.
pub struct Spec {
    pub name: String,
    pub info: VSVideoInfo,
    pub inputs: Vec<Node>,
    /// Declares GPU resident output (`ffGPUOutput`); the return type must say `vnode:gpu`.
    pub gpu_output: bool,
}

struct Instance<F> {
    name: String,
    inputs: Vec<Node>,
    lengths: Vec<i32>,
    filter: F,
}

/// What both ways of creating a filter hand the core: its name, its dependencies (by
/// [`spatial_pattern`]), its flags and the boxed instance `free` gets back.
struct Prepared<F> {
    name: CString,
    deps: Vec<VSFilterDependency>,
    flags: c_int,
    info: VSVideoInfo,
    inst: Box<Instance<F>>,
}

/// The request pattern of an input whose frame n (or its last, where it is shorter) makes output
/// frame n, as R81 declares it: strict spatial where the input is at least as long as the output,
/// else its last frame is asked for again and again.
pub fn spatial_pattern(input_frames: i32, output_frames: i32) -> i32 {
    if input_frames >= output_frames {
        rpStrictSpatial
    } else {
        rpFrameReuseLastOnly
    }
}

fn prepare<F: Filter>(spec: Spec, filter: F) -> Prepared<F> {
    let lengths: Vec<i32> = spec.inputs.iter().map(|n| n.video_info().map_or(1, |v| v.numFrames)).collect();
    let deps: Vec<VSFilterDependency> = spec
        .inputs
        .iter()
        .zip(&lengths)
        .map(|(n, &len)| VSFilterDependency { source: n.as_ptr(), requestPattern: spatial_pattern(len, spec.info.numFrames) })
        .collect();
    let name = CString::new(spec.name.clone()).expect("filter names have no NUL");
    let flags = if spec.gpu_output { ffGPUOutput } else { 0 };
    let info = spec.info;
    let inst = Box::new(Instance { name: spec.name, inputs: spec.inputs, lengths, filter });
    Prepared { name, deps, flags, info, inst }
}

impl<F> Prepared<F> {
    /// The dependencies declared with the given request patterns instead of those [`prepare`]
    /// infers from the lengths: a filter that reads frames out of order, or skips and repeats
    /// them (Trim: `rpNoFrameReuse`, Loop: `rpGeneral` though as long as its input), tells the
    /// core so, which graph inspection shows and the cache sizes by.
    fn with_patterns(mut self, patterns: &[i32]) -> Self {
        assert_eq!(patterns.len(), self.deps.len(), "one request pattern per input");
        for (d, &p) in self.deps.iter_mut().zip(patterns) {
            d.requestPattern = p;
        }
        self
    }
}

impl<F> Prepared<F> {
    /// The dependencies declared as the inputs at `declared` (indices into the inputs, repeats
    /// allowed), in that order, each with the pattern given.
    fn declaring(mut self, declared: &[(usize, i32)]) -> Self {
        self.deps = declared.iter().map(|&(i, p)| VSFilterDependency { source: self.deps[i].source, requestPattern: p }).collect();
        self
    }
}

/// Creates the filter and returns it under `clip`.
pub fn create<F: Filter>(out: &mut Out, core: Core, spec: Spec, filter: F) {
    create_with_mode(out, core, spec, filter, fmParallel)
}

/// [`create`] with one request pattern per input (`rpGeneral`, `rpNoFrameReuse`,
/// `rpStrictSpatial`, ...), in input order, declared as given. A separate function rather than a
/// field of [`Spec`], so that the struct literals of existing filters stay valid.
pub fn create_with_patterns<F: Filter>(out: &mut Out, core: Core, spec: Spec, patterns: &[i32], filter: F) {
    submit(out, core, prepare(spec, filter).with_patterns(patterns), fmParallel)
}

/// [`create`] with another filter mode: `fmUnordered` for a source whose state (a decoder) only
/// one thread may drive at a time.
pub fn create_with_mode<F: Filter>(out: &mut Out, core: Core, spec: Spec, filter: F, mode: c_int) {
    submit(out, core, prepare(spec, filter), mode)
}

fn submit<F: Filter>(out: &mut Out, core: Core, prepared: Prepared<F>, mode: c_int) {
    let Prepared { name, deps, flags, info, inst } = prepared;
    let a = api::api();
    // SAFETY: the info, dependencies and name are valid for the call; the core owns the instance
    // from here and hands it back to `free`.
    unsafe {
        (a.createVideoFilterEx)(
            out.as_ptr(),
            name.as_ptr(),
            &info,
            Some(get_frame::<F>),
            Some(free::<F>),
            mode,
            flags,
            deps.as_ptr(),
            deps.len() as c_int,
            Box::into_raw(inst).cast(),
            core.as_ptr(),
        )
    };
}

/// Creates the filter and hands its node back instead of returning it under `clip`: for a filter
/// that only another filter of the plugin reads.
pub fn create_node<F: Filter>(core: Core, spec: Spec, filter: F, mode: c_int) -> Result<Node> {
    submit_node(core, prepare(spec, filter), mode)
}

/// [`create_node`] with one request pattern per input, as [`create_with_patterns`].
pub fn create_node_with_patterns<F: Filter>(core: Core, spec: Spec, patterns: &[i32], filter: F, mode: c_int) -> Result<Node> {
    submit_node(core, prepare(spec, filter).with_patterns(patterns), mode)
}

/// [`create_node`] declaring as dependencies the inputs at `declared` (indices into the spec's
/// inputs, repeats allowed, each with its request pattern), in that order, while frames are still
/// requested from the inputs as [`Filter::requests`] says: graph tools read a filter's dependency
/// list, and R81 lists some filters' inputs once per output plane and once more for the
/// properties' source (ShufflePlanes), where requesting a frame per entry would cost the filter
/// for nothing.
pub fn create_node_declaring<F: Filter>(core: Core, spec: Spec, declared: &[(usize, i32)], filter: F, mode: c_int) -> Result<Node> {
    assert!(declared.iter().all(|&(i, _)| i < spec.inputs.len()), "declared dependencies are inputs");
    submit_node(core, prepare(spec, filter).declaring(declared), mode)
}

fn submit_node<F: Filter>(core: Core, prepared: Prepared<F>, mode: c_int) -> Result<Node> {
    let Prepared { name, deps, flags, info, inst } = prepared;
    let a = api::api();
    // SAFETY: as in create_with_mode; on success the core owns the instance and gives us a node
    // reference (a failure is a critical error of the core's, and the instance is lost with it).
    let node = unsafe {
        (a.createVideoFilterEx2)(name.as_ptr(), &info, Some(get_frame::<F>), Some(free::<F>), mode, flags, deps.as_ptr(), deps.len() as c_int, Box::into_raw(inst).cast(), core.as_ptr())
    };
    if node.is_null() {
        return Err(crate::Error::Core { call: "createVideoFilterEx2", message: "the core refused the filter".into() });
    }
    // SAFETY: a new node reference, ours.
    Ok(unsafe { Node::from_raw(node) })
}

unsafe extern "C" fn get_frame<F: Filter>(
    n: c_int,
    reason: c_int,
    data: *mut c_void,
    _frame_data: *mut *mut c_void,
    ctx: *mut VSFrameContext,
    core: *mut VSCore,
    vsapi: *const VSAPI,
) -> *const VSFrame {
    api::set(vsapi);
    // SAFETY: `data` is the Instance created for this filter, alive until `free`.
    let inst = unsafe { &*(data as *const Instance<F>) };
    let a = api::api();
    let r = catch_unwind(AssertUnwindSafe(|| -> Result<*const VSFrame> {
        if F::SPATIAL {
            let at = |len: i32| n.min(len - 1).max(0);
            if reason == arInitial {
                for (node, &len) in inst.inputs.iter().zip(&inst.lengths) {
                    // SAFETY: a node of this filter, within the call.
                    unsafe { (a.requestFrameFilter)(at(len), node.as_ptr(), ctx) };
                }
                return Ok(std::ptr::null());
            }
            if reason != arAllFramesReady {
                return Ok(std::ptr::null());
            }
            // SAFETY: every one of these was requested and is ready; each call gives a reference.
            let frames = inst.inputs.iter().zip(&inst.lengths).map(|(node, &len)| unsafe { Frame::from_raw((a.getFrameFilter)(at(len), node.as_ptr(), ctx)) }).collect();
            return Ok(inst.filter.get_frame(n, frames, Core(core))?.into_raw());
        }
        let reqs = inst.filter.requests(n, &inst.lengths);
        // a filter that needs no input frames (a source) makes its frame straight away
        if reason == arInitial && !reqs.is_empty() {
            for (i, m) in reqs {
                // SAFETY: a node of this filter, within the call.
                unsafe { (a.requestFrameFilter)(m, inst.inputs[i].as_ptr(), ctx) };
            }
            return Ok(std::ptr::null());
        }
        if reason != arAllFramesReady && reason != arInitial {
            return Ok(std::ptr::null());
        }
        // SAFETY: every one of these was requested and is ready; each call gives a reference.
        let frames = reqs.into_iter().map(|(i, m)| unsafe { Frame::from_raw((a.getFrameFilter)(m, inst.inputs[i].as_ptr(), ctx)) }).collect();
        Ok(inst.filter.get_frame(n, frames, Core(core))?.into_raw())
    }));
    let msg = match r {
        Ok(Ok(f)) => return f,
        Ok(Err(e)) => e.shown_for(&inst.name),
        Err(p) => format!("{}: internal error: {}", inst.name, crate::plugin::panic_text(&*p)),
    };
    let c = CString::new(msg.replace('\0', " ")).expect("NULs replaced");
    // SAFETY: the context of this call.
    unsafe { (a.setFilterError)(c.as_ptr(), ctx) };
    std::ptr::null()
}

unsafe extern "C" fn free<F: Filter>(data: *mut c_void, _core: *mut VSCore, vsapi: *const VSAPI) {
    api::set(vsapi);
    // SAFETY: the core gives the instance back exactly once.
    let inst = unsafe { Box::from_raw(data as *mut Instance<F>) };
    if let Err(p) = catch_unwind(AssertUnwindSafe(move || drop(inst))) {
        eprintln!("filter free failed: {}", crate::plugin::panic_text(&*p));
    }
}

// ---- audio ---------------------------------------------------------------------------------------

/// How an audio filter is declared to the core: [`Spec`]'s counterpart for audio clips. A type of
/// its own rather than an enum in `Spec`, so that the video filters' struct literals stay valid.
/// The same [`Filter`] trait serves both: frame n of an audio clip is its samples from
/// `n * VS_AUDIO_FRAME_SAMPLES` on, made with [`crate::frame::FrameMut::new_audio`] and read with
/// [`Frame::channel`]. There is no GPU residency for audio, hence no flags.
pub struct AudioSpec {
    pub name: String,
    pub info: VSAudioInfo,
    pub inputs: Vec<Node>,
}

/// [`prepare`] for audio: the inputs' lengths are counted in audio frames when they are audio
/// clips, and an input is strictly spatial where it is as long as the output.
fn prepare_audio<F: Filter>(spec: AudioSpec, patterns: Option<&[i32]>, filter: F) -> (CString, Vec<VSFilterDependency>, VSAudioInfo, Box<Instance<F>>) {
    let lengths: Vec<i32> = spec.inputs.iter().map(Node::num_frames).collect();
    let mut deps: Vec<VSFilterDependency> = spec
        .inputs
        .iter()
        .zip(&lengths)
        .map(|(n, &len)| VSFilterDependency { source: n.as_ptr(), requestPattern: if len == spec.info.numFrames { rpStrictSpatial } else { rpGeneral } })
        .collect();
    if let Some(p) = patterns {
        assert_eq!(p.len(), deps.len(), "one request pattern per input");
        for (d, &p) in deps.iter_mut().zip(p) {
            d.requestPattern = p;
        }
    }
    let name = CString::new(spec.name.clone()).expect("filter names have no NUL");
    let info = spec.info;
    (name, deps, info, Box::new(Instance { name: spec.name, inputs: spec.inputs, lengths, filter }))
}

/// Creates the audio filter (`createAudioFilter`, parallel) and returns it under `clip`; with
/// `patterns`, one request pattern per input as [`create_with_patterns`].
pub fn create_audio<F: Filter>(out: &mut Out, core: Core, spec: AudioSpec, patterns: Option<&[i32]>, filter: F) {
    let (name, deps, info, inst) = prepare_audio(spec, patterns, filter);
    let a = api::api();
    // SAFETY: the info, dependencies and name are valid for the call; the core owns the instance
    // from here and hands it back to `free`.
    unsafe {
        (a.createAudioFilter)(
            out.as_ptr(),
            name.as_ptr(),
            &info,
            Some(get_frame::<F>),
            Some(free::<F>),
            fmParallel,
            deps.as_ptr(),
            deps.len() as c_int,
            Box::into_raw(inst).cast(),
            core.as_ptr(),
        )
    };
}

/// [`create_audio`] handing the node back (`createAudioFilter2`), with a filter mode of choice.
pub fn create_audio_node<F: Filter>(core: Core, spec: AudioSpec, patterns: Option<&[i32]>, filter: F, mode: c_int) -> Result<Node> {
    let (name, deps, info, inst) = prepare_audio(spec, patterns, filter);
    let a = api::api();
    // SAFETY: as in create_audio; on success the core owns the instance and gives us a node
    // reference (a failure is a critical error of the core's, and the instance is lost with it).
    let node = unsafe { (a.createAudioFilter2)(name.as_ptr(), &info, Some(get_frame::<F>), Some(free::<F>), mode, deps.as_ptr(), deps.len() as c_int, Box::into_raw(inst).cast(), core.as_ptr()) };
    if node.is_null() {
        return Err(crate::Error::Core { call: "createAudioFilter2", message: "the core refused the filter".into() });
    }
    // SAFETY: a new node reference, ours.
    Ok(unsafe { Node::from_raw(node) })
}
