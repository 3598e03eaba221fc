//! Host-memory filters on GPU clips: [`on_host`] downloads GPU resident inputs for a filter that
//! reads and writes samples in host memory, and uploads its output again when its first input
//! was on the GPU, with std.GPUDownload and std.GPUUpload (R81's std does this for its
//! `vnode:all` arguments).
use crate::abi::nrGPU;
use crate::api::Core;
use crate::error::{Error, Result};
use crate::invoke::PluginRef;
use crate::node::Node;
use crate::values::{MapRead, MapWrite, OwnedMap};

/// `node` moved to the GPU (`to_gpu`) or to host memory through std; `node` itself when it is
/// there already.
pub fn convert(core: Core, node: Node, to_gpu: bool) -> Result<Node> {
    if (node.residency() == nrGPU) == to_gpu {
        return Ok(node);
    }
    let std = PluginRef::by_id(core, "com.vapoursynth.std").ok_or_else(|| Error::invalid("the std plugin is missing"))?;
    let mut args = OwnedMap::new();
    args.put_node("clip", node, false)?;
    let out = std.invoke(if to_gpu { "GPUUpload" } else { "GPUDownload" }, &args)?;
    out.get_node("clip", 0)
}

/// Builds a filter (`build` gets the inputs, each in host memory) and returns its node, on the GPU
/// when the first input was.
pub fn on_host(core: Core, inputs: Vec<Node>, build: impl FnOnce(Vec<Node>) -> Result<Node>) -> Result<Node> {
    let gpu = inputs.first().is_some_and(|n| n.residency() == nrGPU);
    let inputs = inputs.into_iter().map(|n| convert(core, n, false)).collect::<Result<Vec<_>>>()?;
    let node = build(inputs)?;
    if gpu {
        convert(core, node, true)
    } else {
        Ok(node)
    }
}
