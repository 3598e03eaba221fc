//! What fields.rs and the other modules still in the core share: `Gen` (a filter whose errors reach
//! the caller verbatim, so that messages can carry R81's own prefix), node builders, residency
//! checks and plane access. The geometry filters themselves live in vsvk-std.
use std::ffi::c_void;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use crate::core::Core;
use crate::frame::Frame;
use crate::node::{Filter, FilterImpl, MediaInfo, Node};
use crate::scheduler::FrameCall;

// ---- shared pieces --------------------------------------------------------------------------------

pub(super) type Requests = Box<dyn Fn(i32) -> Vec<(usize, i32)> + Send + Sync>;
pub(super) type Make = Box<dyn Fn(i32, &[Arc<Frame>], &Arc<Core>) -> Result<Arc<Frame>, String> + Send + Sync>;

/// Like util's FnFilter, but an error from `make` reaches the caller as it is (the filter sets it),
/// so each message carries its own prefix, as R81's do ("Crop: ..." also for CropAbs).
pub(super) struct Gen {
    pub inputs: Vec<Arc<Node>>,
    pub requests: Requests,
    pub make: Make,
}

impl Filter for Gen {
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
        let mut frames = Vec::with_capacity(wanted.len());
        for &(i, m) in &wanted {
            match call.get(&self.inputs[i], m) {
                Some(f) => frames.push(f),
                None => return Err("internal error: a requested frame is missing".into()),
            }
        }
        let core = call.core().clone();
        match (self.make)(n, &frames, &core) {
            Ok(f) => Ok(Some(f)),
            Err(e) => {
                call.set_error(e);
                Ok(None)
            }
        }
    }
}

pub(super) fn is_gpu(n: &Node) -> bool {
    n.residency() == nrGPU
}

/// R81's message when some clips are GPU resident and others not.
pub(super) fn residency_mismatch(clips: &[Arc<Node>]) -> Option<String> {
    let first = is_gpu(clips.first()?);
    clips.iter().position(|c| is_gpu(c) != first).map(vsvk_std::util::residency_mismatch_message)
}

/// A node of `Gen` that passes frames on (or copies of them): its output lives where its first
/// input's does.
pub(super) fn gen_node(
    core: &Arc<Core>,
    name: &str,
    vi: VSVideoInfo,
    inputs: Vec<Arc<Node>>,
    patterns: Vec<i32>,
    requests: Requests,
    make: Make,
) -> Arc<Node> {
    let flags = if is_gpu(&inputs[0]) { ffGPUOutput } else { 0 };
    let deps = inputs.iter().cloned().zip(patterns).collect();
    let filter = Gen { inputs, requests, make };
    let creation = crate::plugin::creation_stack(core);
    Node::new(core.clone(), name, MediaInfo::Video(vi), FilterImpl::Rust(Box::new(filter)), fmParallel, flags, deps, creation)
}

/// A node of `Gen` that reads and writes samples, which it does in host memory: GPU resident
/// inputs are brought down first and the result goes back up, so the output lives where the first
/// input does.
pub(super) fn pixel_node(
    core: &Arc<Core>,
    name: &str,
    vi: VSVideoInfo,
    inputs: Vec<Arc<Node>>,
    patterns: Vec<i32>,
    requests: Requests,
    make: Make,
) -> Result<Arc<Node>, String> {
    super::util::on_host(core, inputs, |inputs| gen_node(core, name, vi, inputs, patterns, requests, make))
}
