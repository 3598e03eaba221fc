//! Filters that drive the core's activations themselves: a [`Steps`] filter sees each activation
//! of a frame (initial, all frames ready), chooses per frame which nodes to request (any node, not
//! only those declared as dependencies), and keeps per-frame data between the activations of one
//! frame (the `frameData` of the getFrame callback), owned and typed.
//!
//! [`crate::filter::Filter`] covers filters whose requests follow from the frame number alone and
//! whose frame is made in one step once they are ready. Some filters cannot be written so: one
//! that calls a script function to choose the clip it takes frame n from (std.FrameEval) requests
//! from a node known only during the activation and must remember it until the frame is ready,
//! and one that hands all its inputs' frames to a function (std.ModifyFrame) needs its own
//! dependency declarations and filter mode. This module is that lower level, kept safe: the layer
//! owns the raw `frameData` slot (boxing what the filter keeps, dropping it on the core's error
//! activation), catches panics and turns errors into the core's filter error text.
//!
//! [`frame_now`] fetches a frame synchronously, for the creation functions that must look at a
//! clip's first frame before they can describe their output.
use std::ffi::{c_int, c_void, CString};
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::abi::*;
use crate::api::{self, Core};
use crate::error::{Error, Result};
use crate::frame::Frame;
use crate::map::Out;
use crate::node::Node;

/// Why the core activates the filter for a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The first activation of a frame.
    Initial,
    /// Every frame requested by the previous activation is ready.
    AllFramesReady,
}

/// What an activation ends with.
pub enum Next<D> {
    /// The output frame: the frame's activations are over.
    Frame(Frame),
    /// Frames were requested ([`Activation::request`]); the filter is activated again with
    /// [`Reason::AllFramesReady`] once they are ready, and gets `D` back then.
    Wait(Option<D>),
}

/// A filter run activation by activation.
pub trait Steps: Send + Sync + 'static {
    /// What the filter keeps between the activations of one frame. It may move to another thread
    /// with the frame.
    type Data: Send + 'static;

    /// One activation of frame `n`. `data` is what the previous activation of this frame kept
    /// (`None` on the first). An error ends the frame with `Name: message` (an
    /// [`Error::Whole`] as written: how a script function's own error is passed on).
    ///
    /// The core's error activation (a requested frame failed) never reaches the filter: the layer
    /// drops the frame's data and the core reports the failed frame's error.
    fn activate(&self, n: i32, reason: Reason, data: Option<Self::Data>, act: &mut Activation<'_>) -> Result<Next<Self::Data>>;
}

/// The core's frame context during one activation.
pub struct Activation<'a> {
    ctx: *mut VSFrameContext,
    core: Core,
    requested: usize,
    _call: PhantomData<&'a mut VSFrameContext>,
}

impl Activation<'_> {
    /// Requests frame `n` of `node` (clamped to the clip by the core) for the next activation.
    /// Any node may be requested, declared as a dependency or not.
    pub fn request(&mut self, node: &Node, n: i32) {
        self.requested += 1;
        // SAFETY: a live node and the context of the running activation.
        unsafe { (api::api().requestFrameFilter)(n, node.as_ptr(), self.ctx) };
    }

    /// Frame `n` of `node` if an earlier activation of this frame requested it and it is ready.
    pub fn frame(&self, node: &Node, n: i32) -> Option<Frame> {
        // SAFETY: as above; getFrameFilter gives a new reference or NULL.
        let p = unsafe { (api::api().getFrameFilter)(n, node.as_ptr(), self.ctx) };
        // SAFETY: the reference is ours.
        (!p.is_null()).then(|| unsafe { Frame::from_raw(p) })
    }

    pub fn core(&self) -> Core {
        self.core
    }
}

/// How the filter is declared to the core: unlike [`crate::filter::Spec`], its dependencies (with
/// their request patterns) and its mode are given as they are, since they need not be the nodes
/// the filter requests from.
pub struct Declaration {
    pub name: String,
    pub info: VSVideoInfo,
    /// The core's dependency records: (node, `rpGeneral`, `rpStrictSpatial`, ...).
    pub deps: Vec<(Node, c_int)>,
    /// `fmParallel`, `fmParallelRequests`, `fmUnordered` or `fmFrameState`.
    pub mode: c_int,
    /// Declares GPU resident output (`ffGPUOutput`).
    pub gpu_output: bool,
}

struct Instance<S> {
    name: String,
    filter: S,
}

/// Creates the filter and returns it under `clip`.
pub fn create<S: Steps>(out: &mut Out, core: Core, decl: Declaration, filter: S) {
    let deps: Vec<VSFilterDependency> = decl.deps.iter().map(|(n, p)| VSFilterDependency { source: n.as_ptr(), requestPattern: *p }).collect();
    let name = CString::new(decl.name.clone()).expect("filter names have no NUL");
    let flags = if decl.gpu_output { ffGPUOutput } else { 0 };
    let inst = Box::new(Instance { name: decl.name, filter });
    // SAFETY: the info, dependencies (alive in `decl` for the call) and name are valid for the
    // call; the core owns the instance from here and hands it back to `free`.
    unsafe {
        (api::api().createVideoFilterEx)(
            out.as_ptr(),
            name.as_ptr(),
            &decl.info,
            Some(get_frame::<S>),
            Some(free::<S>),
            decl.mode,
            flags,
            deps.as_ptr(),
            deps.len() as c_int,
            Box::into_raw(inst).cast(),
            core.as_ptr(),
        )
    };
}

/// Creates the filter and hands its node back (for [`crate::residency::on_host`] and filters
/// that only another filter reads).
pub fn create_node<S: Steps>(core: Core, decl: Declaration, filter: S) -> Result<Node> {
    let deps: Vec<VSFilterDependency> = decl.deps.iter().map(|(n, p)| VSFilterDependency { source: n.as_ptr(), requestPattern: *p }).collect();
    let name = CString::new(decl.name.clone()).expect("filter names have no NUL");
    let flags = if decl.gpu_output { ffGPUOutput } else { 0 };
    let inst = Box::new(Instance { name: decl.name, filter });
    // SAFETY: as in `create`; on success the core owns the instance and gives us a node reference.
    let node = unsafe {
        (api::api().createVideoFilterEx2)(name.as_ptr(), &decl.info, Some(get_frame::<S>), Some(free::<S>), decl.mode, flags, deps.as_ptr(), deps.len() as c_int, Box::into_raw(inst).cast(), core.as_ptr())
    };
    if node.is_null() {
        return Err(Error::Core { call: "createVideoFilterEx2", message: "the core refused the filter".into() });
    }
    // SAFETY: a new node reference, ours.
    Ok(unsafe { Node::from_raw(node) })
}

/// Frame `n` of `node`, waiting for it (`getFrame`); the core's error text on failure. Not for
/// use inside an activation, which requests instead.
pub fn frame_now(node: &Node, n: i32) -> Result<Frame> {
    let mut buf = vec![0 as std::ffi::c_char; 4096];
    // SAFETY: a live node and a buffer of the size given.
    let p = unsafe { (api::api().getFrame)(n, node.as_ptr(), buf.as_mut_ptr(), buf.len() as c_int) };
    if p.is_null() {
        return Err(Error::Invalid(crate::error::buffer_text(&buf)));
    }
    // SAFETY: getFrame gives a reference, ours.
    Ok(unsafe { Frame::from_raw(p) })
}

unsafe extern "C" fn get_frame<S: Steps>(
    n: c_int,
    reason: c_int,
    data: *mut c_void,
    frame_data: *mut *mut c_void,
    ctx: *mut VSFrameContext,
    core: *mut VSCore,
    vsapi: *const VSAPI,
) -> *const VSFrame {
    api::set(vsapi);
    // SAFETY: `data` is the Instance created for this filter, alive until `free`.
    let inst = unsafe { &*(data as *const Instance<S>) };
    // The slot holds a Box<S::Data> made below by an earlier activation of this frame, or NULL;
    // it is emptied here so that each box has one owner.
    // SAFETY: the core hands the frame's slot to every activation of that frame.
    let kept = unsafe {
        let p = std::mem::replace(&mut *frame_data, std::ptr::null_mut());
        (!p.is_null()).then(|| Box::from_raw(p.cast::<S::Data>()))
    };
    let reason = match reason {
        r if r == arInitial => Reason::Initial,
        r if r == arAllFramesReady => Reason::AllFramesReady,
        // arError: the frame is over, and its data with it (dropped without unwinding into C)
        _ => {
            if let Err(p) = catch_unwind(AssertUnwindSafe(move || drop(kept))) {
                eprintln!("{}: frame data drop failed: {}", inst.name, crate::plugin::panic_text(&*p));
            }
            return std::ptr::null();
        }
    };
    let mut act = Activation { ctx, core: Core(core), requested: 0, _call: PhantomData };
    let r = catch_unwind(AssertUnwindSafe(|| inst.filter.activate(n, reason, kept.map(|b| *b), &mut act)));
    let msg = match r {
        Ok(Ok(Next::Frame(f))) => return f.into_raw(),
        Ok(Ok(Next::Wait(d))) => {
            // the core activates the frame again only when something was requested; otherwise it
            // reports the frame as one the filter neither made nor requested, and the data would
            // never come back
            if act.requested > 0 {
                if let Some(d) = d {
                    // SAFETY: the frame's slot, read back (and emptied) by its next activation.
                    unsafe { *frame_data = Box::into_raw(Box::new(d)).cast() };
                }
            }
            return std::ptr::null();
        }
        Ok(Err(e)) => e.shown_for(&inst.name),
        Err(p) => format!("{}: internal error: {}", inst.name, crate::plugin::panic_text(&*p)),
    };
    let c = CString::new(msg.replace('\0', " ")).expect("NULs replaced");
    // SAFETY: the context of this call.
    unsafe { (api::api().setFilterError)(c.as_ptr(), ctx) };
    std::ptr::null()
}

unsafe extern "C" fn free<S: Steps>(data: *mut c_void, _core: *mut VSCore, vsapi: *const VSAPI) {
    api::set(vsapi);
    // SAFETY: the core gives the instance back exactly once.
    let inst = unsafe { Box::from_raw(data as *mut Instance<S>) };
    if let Err(p) = catch_unwind(AssertUnwindSafe(move || drop(inst))) {
        eprintln!("filter free failed: {}", crate::plugin::panic_text(&*p));
    }
}
