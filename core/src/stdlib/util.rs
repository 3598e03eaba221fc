//! What std's runtime functions share: typed reads of their arguments and node creation with
//! graph inspection's record of the call.
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use crate::core::Core;
use crate::map::{Map, Value};
use crate::node::{Filter, FilterImpl, MediaInfo, Node};

/// Typed access to a function's arguments. Types were already checked against the signature,
/// so these only tell present from absent.
pub struct Args<'a>(pub &'a Map);

impl Args<'_> {
    pub fn node(&self, key: &str) -> Result<Arc<Node>, String> {
        self.0.get_node(key.as_bytes(), 0).cloned().map_err(|_| format!("argument {key} is required"))
    }
    pub fn string(&self, key: &str) -> Option<String> {
        self.0.get_data(key.as_bytes(), 0).ok().map(|d| d.to_str_lossy())
    }
}

/// The video description of a node, or the message R81 gives for an audio clip.
pub fn video_info(node: &Node) -> Result<VSVideoInfo, String> {
    node.video_info().copied().ok_or_else(|| "only video clips are supported".to_string())
}

pub fn set_clip(out: &mut Map, node: Arc<Node>) {
    out.set(b"clip", Value::Node(node), false).expect("clip is a valid key");
}

/// Builds a node for a built-in filter, with graph inspection's record of the call.
pub fn make_node(core: &Arc<Core>, name: &str, info: MediaInfo, filter: Box<dyn Filter>, mode: i32, deps: Vec<(Arc<Node>, i32)>) -> Arc<Node> {
    let creation = crate::plugin::creation_stack(core);
    Node::new(core.clone(), name, info, FilterImpl::Rust(filter), mode, 0, deps, creation)
}
