//! FrameEval and ModifyFrame: filters whose frames a script function chooses or makes, frame by
//! frame. Both run on [`vsvk_plugin_api::activation`]: FrameEval requests from the clip its
//! function returns, a node known only during the activation, and ModifyFrame declares its clips
//! as dependencies beside a `clip` it never requests from.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::activation::{create, Activation, Declaration, Next, Reason, Steps};
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::frame::Frame;
use vsvk_plugin_api::function::Function;
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::node::Node;
use vsvk_plugin_api::values::{MapRead, MapWrite, OwnedMap};
use vsvk_plugin_api::{Error, Result};

use crate::util::video_info;

fn missing() -> Error {
    Error::invalid("internal error: a requested frame is missing")
}

/// Calls the script's function with `n` and the frames under `f`. Its error is the frame's error
/// as the function wrote it, with no filter name before it.
fn call(func: &Function, n: i32, frames: Vec<Frame>) -> Result<OwnedMap> {
    let mut args = OwnedMap::new();
    args.put_int("n", n as i64, false)?;
    for f in frames {
        args.put_frame("f", f, true)?;
    }
    func.call(&args).map_err(|e| match e {
        Error::Invalid(m) => Error::whole(m),
        e => e,
    })
}

/// A returned frame must live where the node said its frames do: the core treats a mismatch as a
/// filter's misuse (fatal), but here it is the script's function that chose the frame.
fn residency_matches(f: &Frame, gpu: bool) -> Result<()> {
    match (gpu, f.residency() == nrGPU) {
        (true, false) => Err(Error::invalid("Returned frame is in host memory but clip is GPU resident (std.GPUUpload it, or return a frame of a GPU clip)")),
        (false, true) => Err(Error::invalid("Returned frame is GPU resident but clip is not (std.GPUDownload it, or pass a GPU clip as clip)")),
        _ => Ok(()),
    }
}

// ---- FrameEval --------------------------------------------------------------------------------------

struct FrameEval {
    vi: VSVideoInfo,
    /// Whether `clip` is GPU resident: the node declares what its clip does (ffGPUOutput), so a
    /// script's GPU clip can pass through FrameEval, and a frame from elsewhere is that frame's error.
    gpu: bool,
    func: Function,
    prop_src: Vec<Node>,
}

impl FrameEval {
    /// The clip the function chooses for frame `n`, given the prop_src frames (requested before).
    fn evaluate(&self, n: i32, act: &Activation<'_>) -> Result<Node> {
        let frames = self.prop_src.iter().map(|p| act.frame(p, n).ok_or_else(missing)).collect::<Result<Vec<_>>>()?;
        let ret = call(&self.func, n, frames)?;
        // one map call: what is not a node fails to read as one
        match ret.get_node("val", 0) {
            Ok(node) if node.media_type() == mtVideo => Ok(node),
            _ => Err(Error::invalid("Function didn't return a clip")),
        }
    }
}

impl Steps for FrameEval {
    /// The clip the function chose, kept until its frame is ready.
    type Data = Node;

    fn activate(&self, n: i32, reason: Reason, chosen: Option<Node>, act: &mut Activation<'_>) -> Result<Next<Node>> {
        let Some(chosen) = chosen else {
            if reason == Reason::Initial && !self.prop_src.is_empty() {
                for p in &self.prop_src {
                    act.request(p, n);
                }
                return Ok(Next::Wait(None));
            }
            let node = self.evaluate(n, act)?;
            act.request(&node, n);
            return Ok(Next::Wait(Some(node)));
        };
        let f = act.frame(&chosen, n).ok_or_else(missing)?;
        residency_matches(&f, self.gpu)?;
        if self.vi.width != 0 && (f.width(0) != self.vi.width || f.height(0) != self.vi.height) {
            return Err(Error::invalid("Returned frame has wrong dimensions"));
        }
        if self.vi.format.colorFamily != cfUndefined && f.video_format() != Some(self.vi.format) {
            return Err(Error::invalid("Returned frame has wrong format"));
        }
        Ok(Next::Frame(f))
    }
}

pub fn frame_eval(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let vi = video_info(&clip)?;
    let func = args.function("eval")?.ok_or_else(|| Error::invalid("argument eval is required"))?;
    let prop_src = args.nodes("prop_src")?;
    let clip_src = args.nodes("clip_src")?;
    let deps = prop_src.iter().chain(&clip_src).map(|n| (n.clone(), rpGeneral)).collect();
    let mode = if prop_src.is_empty() { fmUnordered } else { fmParallelRequests };
    let gpu = clip.residency() == nrGPU;
    let decl = Declaration { name: "FrameEval".into(), info: vi, deps, mode, gpu_output: gpu };
    create(out, core, decl, FrameEval { vi, gpu, func, prop_src });
    Ok(())
}

// ---- ModifyFrame ------------------------------------------------------------------------------------

struct ModifyFrame {
    vi: VSVideoInfo,
    /// Whether `clip` is GPU resident (see FrameEval::gpu).
    gpu: bool,
    clips: Vec<Node>,
    func: Function,
}

impl Steps for ModifyFrame {
    type Data = ();

    fn activate(&self, n: i32, reason: Reason, _data: Option<()>, act: &mut Activation<'_>) -> Result<Next<()>> {
        if reason == Reason::Initial {
            for c in &self.clips {
                act.request(c, n);
            }
            return Ok(Next::Wait(None));
        }
        let frames = self.clips.iter().map(|c| act.frame(c, n).ok_or_else(missing)).collect::<Result<Vec<_>>>()?;
        let ret = call(&self.func, n, frames)?;
        let f = match ret.get_frame("val", 0) {
            Ok(f) if f.frame_type() == mtVideo => f,
            _ => return Err(Error::invalid("Returned value not a frame")),
        };
        residency_matches(&f, self.gpu)?;
        if self.vi.format.colorFamily != cfUndefined && f.video_format() != Some(self.vi.format) {
            return Err(Error::invalid("Returned frame has the wrong format"));
        }
        if self.vi.width != 0 && (f.width(0) != self.vi.width || f.height(0) != self.vi.height) {
            return Err(Error::invalid("Returned frame has the wrong dimensions"));
        }
        Ok(Next::Frame(f))
    }
}

pub fn modify_frame(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let vi = video_info(&clip)?;
    let clips = args.nodes("clips")?;
    let func = args.function("selector")?.ok_or_else(|| Error::invalid("argument selector is required"))?;
    let deps = clips.iter().map(|c| (c.clone(), rpStrictSpatial)).collect();
    let gpu = clip.residency() == nrGPU;
    let decl = Declaration { name: "ModifyFrame".into(), info: vi, deps, mode: fmParallelRequests, gpu_output: gpu };
    create(out, core, decl, ModifyFrame { vi, gpu, clips, func });
    Ok(())
}
