//! std.GPUUpload and std.GPUDownload: moving clips between host memory and the core's Vulkan
//! device, and the automatic conversions invoke inserts for vnode arguments of the wrong residency.
use std::ffi::c_void;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use super::util::{make_node, set_clip, video_info, Args};
use super::Registrar;
use crate::argspec::NodeConversion;
use crate::core::Core;
use crate::frame::Frame;
use crate::gpu::transfer::Transfer;
use crate::map::{Map, Values};
use crate::node::{Filter, FilterImpl, MediaInfo, Node};
use crate::scheduler::FrameCall;

pub fn register(r: &Registrar) {
    r.add("GPUUpload", "clip:vnode:all;", "clip:vnode:gpu;", upload);
    r.add("GPUDownload", "clip:vnode:all;", "clip:vnode;", download);
}

struct Move {
    input: Arc<Node>,
    to_gpu: bool,
    t: Transfer,
}

impl Filter for Move {
    fn get_frame(&self, n: i32, reason: i32, _fd: &mut *mut c_void, call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
        if reason == arInitial {
            call.request(&self.input, n);
            return Ok(None);
        }
        if reason != arAllFramesReady {
            return Ok(None);
        }
        let src = call.get(&self.input, n).ok_or("internal error: a requested frame is missing")?;
        let core = call.core().clone();
        let gpu = src.residency() == nrGPU;
        if self.to_gpu {
            if gpu {
                return Ok(Some(src));
            }
            self.t.upload(&core, &src).map(Some)
        } else {
            if !gpu {
                return Err("GPUDownload: source frame is not GPU resident".into());
            }
            self.t.download(&core, &src).map(Some)
        }
    }
}

/// A node moving `input` to the GPU (`to_gpu`) or back; `input` itself when it is there already.
pub fn convert(core: &Arc<Core>, input: Arc<Node>, to_gpu: bool) -> Result<Arc<Node>, String> {
    let vi = video_info(&input)?;
    let gpu = input.residency() == nrGPU;
    if gpu == to_gpu {
        return Ok(input);
    }
    let dev = core.gpu.device(core).map_err(|e| format!("GPU frame requested but no Vulkan device: {e}"))?;
    // Uploads copy with the GPU only from host transfer memory (pinned frames); otherwise the CPU
    // writes the BAR. Either way they go to the transfer queue, and downloads to the copy queues:
    // on shared queues an upload and a download run one after the other, where on queues of
    // their own the two directions of the bus can both be busy (on the H100 a pinned 2160p 16-bit
    // round trip moved 27 GB/s each way with shared queues, while PCIe carries 50.8 each way at
    // once). VSVK_UPLOAD_QUEUES=shared puts pinned uploads on the copy queues too (measurements).
    let shared = std::env::var("VSVK_UPLOAD_QUEUES").is_ok_and(|v| v == "shared");
    let t = if to_gpu && !shared { Transfer::for_uploads(&dev, core.threads())? } else { Transfer::with_copy_queues(&dev, core.threads())? };
    let name = if to_gpu { "GPUUpload" } else { "GPUDownload" };
    let flags = if to_gpu { ffGPUOutput } else { 0 };
    let creation = crate::plugin::creation_stack(core);
    let deps = vec![(input.clone(), rpStrictSpatial)];
    let filter = Move { input, to_gpu, t };
    let _ = make_node; // the shared helper builds CPU nodes only; GPU output needs the flag
    Ok(Node::new(core.clone(), name, MediaInfo::Video(vi), FilterImpl::Rust(Box::new(filter)), fmParallel, flags, deps, creation))
}

fn upload(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let clip = Args(input).node("clip")?;
    set_clip(out, convert(core, clip, true)?);
    Ok(())
}

fn download(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let clip = Args(input).node("clip")?;
    set_clip(out, convert(core, clip, false)?);
    Ok(())
}

/// invoke's automatic conversions: the arguments with the nodes named in `conv` wrapped in
/// GPUUpload / GPUDownload, each logged at mtInformation as R81 does.
pub fn adapt(core: &Arc<Core>, func_name: &str, args: &Map, conv: &[NodeConversion]) -> Result<Map, String> {
    let mut m = args.clone();
    for c in conv {
        let Ok(Values::VideoNode(nodes)) = args.get(c.arg.as_bytes()) else { continue };
        let mut nodes = nodes.clone();
        for &i in &c.indices {
            let to_gpu = c.filter_name() == "GPUUpload";
            nodes[i] = convert(core, nodes[i].clone(), to_gpu).map_err(|e| format!("{func_name}: {e}"))?;
        }
        m.set_values(c.arg.as_bytes(), Values::VideoNode(nodes)).map_err(|_| format!("{func_name}: internal error adapting '{}'", c.arg))?;
        core.log_message(mtInformation, &c.log_message(func_name));
    }
    Ok(m)
}
