//! What pointwise.rs, still in the core, keeps of the geometry filters' helpers: the residency
//! check. The geometry filters themselves live in vsvk-std.
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use crate::node::Node;

fn is_gpu(n: &Node) -> bool {
    n.residency() == nrGPU
}

/// R81's message when some clips are GPU resident and others not.
pub(super) fn residency_mismatch(clips: &[Arc<Node>]) -> Option<String> {
    let first = is_gpu(clips.first()?);
    clips.iter().position(|c| is_gpu(c) != first).map(vsvk_std::util::residency_mismatch_message)
}
