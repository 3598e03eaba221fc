//! Properties and callbacks: SetFrameProp, SetFrameProps, RemoveFrameProps, CopyFrameProps,
//! ClipToProp, PropToClip, PlaneStats, FrameEval, ModifyFrame, PEMVerifier. (SetMaxCPU is in cpu.rs.)
use std::ffi::c_void;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

mod stats;

use super::util::{make_node, set_clip, video_info, Args, FnFilter};
use crate::core::Core;
use crate::format;
use crate::frame::Frame;
use crate::map::{is_valid_key, Map, Value, Values};
use crate::node::{Filter, MediaInfo, Node};
use crate::scheduler::FrameCall;

const BAD_PROP_NAME: &str = "'prop' must be a valid property name, a letter or underscore followed by letters, digits and underscores";

pub fn register(r: &super::Registrar) {
    r.add("CopyFrameProps", "clip:vnode:all;prop_src:vnode:all;props:data[]:opt;", "clip:vnode:all;", copy_frame_props);
    r.add("ClipToProp", "clip:vnode:all;mclip:vnode:all;prop:data:opt;", "clip:vnode:all;", clip_to_prop);
    r.add("PropToClip", "clip:vnode:all;prop:data:opt;index:int:opt;", "clip:vnode:all;", prop_to_clip);
    r.add("PlaneStats", "clipa:vnode:all;clipb:vnode:all:opt;plane:int:opt;prop:data:opt;", "clip:vnode:all;", plane_stats);
    r.add("FrameEval", "clip:vnode:all;eval:func;prop_src:vnode[]:all:opt;clip_src:vnode[]:all:opt;", "clip:vnode:all;", frame_eval);
    r.add("ModifyFrame", "clip:vnode:all;clips:vnode[]:all;selector:func;", "clip:vnode:all;", modify_frame);
    r.add("PEMVerifier", "clip:vnode;upper:float[]:opt;lower:float[]:opt;", "clip:vnode;", pem_verifier);
}

// ---- shared pieces ------------------------------------------------------------------------------

/// A node whose frames are its first input's with other properties: its output lives where that
/// input's frames do (GPU resident frames are declared so, never touched).
fn props_only_node(core: &Arc<Core>, name: &str, vi: VSVideoInfo, filter: FnFilter, deps: Vec<(Arc<Node>, i32)>) -> Arc<Node> {
    let flags = if deps[0].0.residency() == nrGPU { ffGPUOutput } else { 0 };
    let creation = crate::plugin::creation_stack(core);
    Node::new(core.clone(), name, MediaInfo::Video(vi), crate::node::FilterImpl::Rust(Box::new(filter)), fmParallel, flags, deps, creation)
}

/// The name R81 gives a clip's format in messages ("Undefined" for a variable format).
fn format_name(f: &VSVideoFormat) -> String {
    if f.colorFamily == cfUndefined {
        "Undefined".into()
    } else {
        format::video_name(f).unwrap_or_else(|| "Undefined".into())
    }
}

/// Integer formats of 8 to 16 bits and float formats (PlaneStats and PEMVerifier take these).
fn stats_format_ok(f: &VSVideoFormat) -> bool {
    f.colorFamily != cfUndefined
        && ((f.sampleType == stInteger && f.bitsPerSample <= 16) || (f.sampleType == stFloat && (f.bitsPerSample == 16 || f.bitsPerSample == 32)))
}

/// The samples of one plane row as f32 (float formats) or u32 (integer formats).
fn row_f32(f: &Frame, p: usize, y: usize, out: &mut Vec<f32>) {
    let fmt = f.video_format().expect("video frame");
    if fmt.bytesPerSample == 2 {
        // F16C where the CPU has it (a conversion per sample kept half PlaneStats at 0.15x R81);
        // it quiets signalling NaNs, which leaves the statistics as they were: min and max skip
        // NaNs, and the sums' conversion to double quiets them anyway
        let src = super::util::row::<u16>(f, p, y);
        // (no clear first: resizing to the same length writes nothing)
        out.resize(src.len(), 0.0);
        super::neighbour::plane::halves_to_f32(src, out);
    } else {
        out.clear();
        out.extend_from_slice(super::util::row::<f32>(f, p, y));
    }
}

fn row_u32(f: &Frame, p: usize, y: usize, out: &mut Vec<u32>) {
    out.clear();
    let fmt = f.video_format().expect("video frame");
    match fmt.bytesPerSample {
        1 => out.extend(super::util::row::<u8>(f, p, y).iter().map(|&v| v as u32)),
        2 => out.extend(super::util::row::<u16>(f, p, y).iter().map(|&v| v as u32)),
        _ => out.extend_from_slice(super::util::row::<u32>(f, p, y)),
    }
}

// ---- CopyFrameProps (SetFrameProp, SetFrameProps and RemoveFrameProps are vsvk-std's) ---------------

fn copy_frame_props(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let src = a.node("prop_src")?;
    let names = a.strings("props");
    let vi = *clip.video_info().expect("video clip");
    let deps = vec![(clip.clone(), rpStrictSpatial), (src.clone(), rpGeneral)];
    let filter = FnFilter {
        inputs: vec![clip, src],
        requests: Box::new(|n| vec![(0, n), (1, n)]),
        make: Box::new(move |_, frames, _| {
            let f = frames[0].shallow_copy();
            let from = frames[1].props();
            // SAFETY: `f` is new and ours alone.
            let props = unsafe { f.props_mut() };
            match &names {
                None => *props = from.clone(),
                Some(names) => {
                    for k in names {
                        props.copy_key_from(from, k.as_bytes());
                    }
                }
            }
            Ok(Arc::new(f))
        }),
    };
    set_clip(out, props_only_node(core, "CopyFrameProps", vi, filter, deps));
    Ok(())
}

// ---- ClipToProp, PropToClip ---------------------------------------------------------------------------

fn clip_to_prop(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let mclip = a.node("mclip")?;
    let prop = a.string("prop").unwrap_or_else(|| "_Alpha".into());
    if !is_valid_key(prop.as_bytes()) {
        return Err(BAD_PROP_NAME.into());
    }
    let cvi = video_info(&clip)?;
    let mvi = video_info(&mclip)?;
    if !super::util::is_constant(&cvi) || !super::util::is_constant(&mvi) {
        return Err("clips must have constant format and dimensions".into());
    }
    let mut vi = cvi;
    vi.numFrames = mvi.numFrames;
    let deps = vec![(clip.clone(), rpGeneral), (mclip.clone(), rpStrictSpatial)];
    let filter = FnFilter {
        inputs: vec![clip, mclip],
        requests: Box::new(|n| vec![(0, n), (1, n)]),
        make: Box::new(move |_, frames, _| {
            let f = frames[0].shallow_copy();
            // SAFETY: `f` is new and ours alone.
            unsafe { f.props_mut() }.set(prop.as_bytes(), Value::Frame(frames[1].clone()), false).map_err(|e| e.to_string())?;
            Ok(Arc::new(f))
        }),
    };
    set_clip(out, props_only_node(core, "ClipToProp", vi, filter, deps));
    Ok(())
}

fn stored_frame(f: &Frame, prop: &str, index: i64) -> Option<Arc<Frame>> {
    match f.props().get(prop.as_bytes()) {
        Ok(Values::VideoFrame(v)) => usize::try_from(index).ok().and_then(|i| v.get(i)).cloned(),
        _ => None,
    }
}

fn prop_to_clip(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let prop = a.string("prop").unwrap_or_else(|| "_Alpha".into());
    let index = a.int("index").unwrap_or(0);
    if prop.is_empty() {
        return Err("property name can't be an empty string".into());
    }
    if index < 0 {
        return Err("index can't be negative".into());
    }
    let cvi = video_info(&clip)?;
    let first = crate::scheduler::get_frame(&clip, 0)?;
    let stored = stored_frame(&first, &prop, index).ok_or_else(|| format!("no frame stored in property: {prop} index {index}"))?;
    let fmt = *stored.video_format().ok_or_else(|| format!("no frame stored in property: {prop} index {index}"))?;
    let vi = VSVideoInfo { format: fmt, fpsNum: cvi.fpsNum, fpsDen: cvi.fpsDen, width: stored.width, height: stored.height, numFrames: cvi.numFrames };
    let deps = vec![(clip.clone(), rpStrictSpatial)];
    let filter = FnFilter {
        inputs: vec![clip],
        requests: Box::new(|n| vec![(0, n)]),
        make: Box::new(move |_, frames, _| {
            let f = stored_frame(&frames[0], &prop, index).ok_or("failed to extract frame from specified property")?;
            if f.video_format() != Some(&vi.format) || f.width != vi.width || f.height != vi.height {
                return Err("retrieved frame doesn't match output format or dimensions".into());
            }
            Ok(f)
        }),
    };
    set_clip(out, make_node(core, "PropToClip", MediaInfo::Video(vi), Box::new(filter), fmParallel, deps));
    Ok(())
}

// ---- PlaneStats ----------------------------------------------------------------------------------

struct Stats {
    min: f64,
    max: f64,
    average: f64,
    diff: Option<f64>,
    float: bool,
}

fn compute_stats(a: &Frame, b: Option<&Frame>, plane: usize) -> Stats {
    let fmt = *a.video_format().expect("video frame");
    let pl = &a.planes()[plane];
    let (w, h) = (pl.width as usize, pl.height as usize);
    let count = (w * h) as f64;
    if fmt.sampleType == stFloat {
        let (mn, mx, sum, diff) = stats::float_stats(a, b, plane, h);
        Stats { min: mn as f64, max: mx as f64, average: sum / count, diff: b.map(|_| diff / count), float: true }
    } else {
        let (mn, mx, sum, diff) = if fmt.bytesPerSample == 1 { stats::int_stats::<u8>(a, b, plane, h) } else { stats::int_stats::<u16>(a, b, plane, h) };
        let scale = count * ((1u64 << fmt.bitsPerSample) - 1) as f64;
        Stats { min: mn as f64, max: mx as f64, average: sum as f64 / scale, diff: b.map(|_| diff as f64 / scale), float: false }
    }
}

fn plane_stats(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clipa = a.node("clipa")?;
    let clipb = a.opt_node("clipb");
    let vi = video_info(&clipa)?;
    if !stats_format_ok(&vi.format) {
        return Err(format!(
            "Input clip must be constant format 8..16 bit integer or 16-32 bit float, passed {}.",
            format_name(&vi.format)
        ));
    }
    let plane = a.int("plane").unwrap_or(0);
    if plane < 0 || plane >= vi.format.numPlanes as i64 {
        return Err("invalid plane specified".into());
    }
    if let Some(b) = &clipb {
        let bvi = video_info(b)?;
        let dims = |v: &VSVideoInfo| if v.width > 0 { format!("{}x{}", v.width, v.height) } else { "undefined".into() };
        if bvi.format != vi.format || bvi.width != vi.width || bvi.height != vi.height || vi.width == 0 {
            return Err(format!(
                "both input clips must have the same format when second clip is used, passed {}[{}] and {}[{}]",
                format_name(&vi.format),
                dims(&vi),
                format_name(&bvi.format),
                dims(&bvi)
            ));
        }
    }
    let prop = a.string("prop").unwrap_or_else(|| "PlaneStats".into());
    if !is_valid_key(prop.as_bytes()) {
        return Err(BAD_PROP_NAME.into());
    }
    let keys = ["Min", "Max", "Average", "Diff"].map(|s| format!("{prop}{s}"));
    let plane = plane as usize;
    let with_b = clipb.is_some();
    let mut given = vec![clipa];
    given.extend(clipb);
    if let Some(m) = super::geometry::residency_mismatch(&given) {
        return Err(m);
    }
    // the statistics are computed in host memory: GPU clips are downloaded for it (and the
    // frames, with their new properties, uploaded again)
    let node = super::util::on_host(core, given, |inputs| {
        let deps = inputs.iter().map(|n| (n.clone(), rpStrictSpatial)).collect();
        let count = inputs.len();
        let filter = FnFilter {
            inputs,
            requests: Box::new(move |n| (0..count).map(|i| (i, n)).collect()),
            make: Box::new(move |_, frames, _| {
                let s = compute_stats(&frames[0], if with_b { Some(&frames[1]) } else { None }, plane);
                let f = frames[0].shallow_copy();
                // SAFETY: `f` is new and ours alone.
                let props = unsafe { f.props_mut() };
                if s.float {
                    props.set_float(&keys[0], s.min);
                    props.set_float(&keys[1], s.max);
                } else {
                    props.set_int(&keys[0], s.min as i64);
                    props.set_int(&keys[1], s.max as i64);
                }
                props.set_float(&keys[2], s.average);
                if let Some(d) = s.diff {
                    props.set_float(&keys[3], d);
                }
                Ok(Arc::new(f))
            }),
        };
        make_node(core, "PlaneStats", MediaInfo::Video(vi), Box::new(filter), fmParallel, deps)
    })?;
    set_clip(out, node);
    Ok(())
}

// ---- FrameEval --------------------------------------------------------------------------------------

struct FrameEvalFilter {
    vi: VSVideoInfo,
    /// Whether `clip` is GPU resident: the node declares what its clip does (ffGPUOutput), so a
    /// script's GPU clip can pass through FrameEval, and a frame from elsewhere is that frame's error.
    gpu: bool,
    func: Arc<crate::function::Function>,
    prop_src: Vec<Arc<Node>>,
}

/// What FrameEval keeps between activations of one frame: the clip the function chose.
struct Chosen(Arc<Node>);

impl FrameEvalFilter {
    fn evaluate(&self, n: i32, call: &mut FrameCall) -> Result<Arc<Node>, Option<String>> {
        let mut args = Map::new();
        args.set_int("n", n as i64);
        for p in &self.prop_src {
            let f = call.get(p, n).ok_or_else(|| Some("internal error: a requested frame is missing".to_string()))?;
            args.set(b"f", Value::Frame(f), true).expect("f is a valid key");
        }
        let mut ret = Map::new();
        self.func.call(&args, &mut ret);
        if let Some(e) = ret.error() {
            call.set_error(e.to_string_lossy().into_owned());
            return Err(None);
        }
        match ret.get(b"val") {
            Ok(Values::VideoNode(v)) if !v.is_empty() => Ok(v[0].clone()),
            _ => Err(Some("Function didn't return a clip".into())),
        }
    }
}

impl Filter for FrameEvalFilter {
    fn get_frame(&self, n: i32, reason: i32, fd: &mut *mut c_void, call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
        let take = |fd: &mut *mut c_void| -> Option<Box<Chosen>> {
            if fd.is_null() {
                None
            } else {
                // SAFETY: set below from Box::into_raw, taken once.
                let b = unsafe { Box::from_raw((*fd).cast::<Chosen>()) };
                *fd = std::ptr::null_mut();
                Some(b)
            }
        };
        if reason == arError {
            drop(take(fd));
            return Ok(None);
        }
        let Some(chosen) = take(fd) else {
            if reason == arInitial && !self.prop_src.is_empty() {
                for p in &self.prop_src {
                    call.request(p, n);
                }
                return Ok(None);
            }
            if reason != arInitial && reason != arAllFramesReady {
                return Ok(None);
            }
            let node = match self.evaluate(n, call) {
                Ok(node) => node,
                Err(None) => return Ok(None),
                Err(Some(e)) => return Err(e),
            };
            call.request(&node, n);
            *fd = Box::into_raw(Box::new(Chosen(node))).cast();
            return Ok(None);
        };
        let f = call.get(&chosen.0, n).ok_or("internal error: a requested frame is missing")?;
        residency_matches(&f, self.gpu)?;
        if self.vi.width != 0 && (f.width != self.vi.width || f.height != self.vi.height) {
            return Err("Returned frame has wrong dimensions".into());
        }
        if self.vi.format.colorFamily != cfUndefined && f.video_format() != Some(&self.vi.format) {
            return Err("Returned frame has wrong format".into());
        }
        Ok(Some(f))
    }
}

fn frame_eval(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    let func = a.function("eval").ok_or("argument eval is required")?;
    let prop_src = a.nodes("prop_src");
    let clip_src = a.nodes("clip_src");
    let mut deps: Vec<(Arc<Node>, i32)> = Vec::new();
    for n in prop_src.iter().chain(&clip_src) {
        deps.push((n.clone(), rpGeneral));
    }
    let mode = if prop_src.is_empty() { fmUnordered } else { fmParallelRequests };
    let gpu = clip.residency() == nrGPU;
    let filter = FrameEvalFilter { vi, gpu, func, prop_src };
    set_clip(out, residency_node(core, "FrameEval", vi, Box::new(filter), mode, deps, gpu));
    Ok(())
}

// ---- ModifyFrame ------------------------------------------------------------------------------------

struct ModifyFrameFilter {
    vi: VSVideoInfo,
    /// Whether `clip` is GPU resident (see FrameEvalFilter::gpu).
    gpu: bool,
    clips: Vec<Arc<Node>>,
    func: Arc<crate::function::Function>,
}

impl Filter for ModifyFrameFilter {
    fn get_frame(&self, n: i32, reason: i32, _fd: &mut *mut c_void, call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
        if reason == arInitial {
            for c in &self.clips {
                call.request(c, n);
            }
            return Ok(None);
        }
        if reason != arAllFramesReady {
            return Ok(None);
        }
        let mut args = Map::new();
        args.set_int("n", n as i64);
        for c in &self.clips {
            let f = call.get(c, n).ok_or("internal error: a requested frame is missing")?;
            args.set(b"f", Value::Frame(f), true).expect("f is a valid key");
        }
        let mut ret = Map::new();
        self.func.call(&args, &mut ret);
        if let Some(e) = ret.error() {
            call.set_error(e.to_string_lossy().into_owned());
            return Ok(None);
        }
        let f = match ret.get(b"val") {
            Ok(Values::VideoFrame(v)) if !v.is_empty() => v[0].clone(),
            _ => return Err("Returned value not a frame".into()),
        };
        residency_matches(&f, self.gpu)?;
        if self.vi.format.colorFamily != cfUndefined && f.video_format() != Some(&self.vi.format) {
            return Err("Returned frame has the wrong format".into());
        }
        if self.vi.width != 0 && (f.width != self.vi.width || f.height != self.vi.height) {
            return Err("Returned frame has the wrong dimensions".into());
        }
        Ok(Some(f))
    }
}

fn modify_frame(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    let clips = a.nodes("clips");
    let func = a.function("selector").ok_or("argument selector is required")?;
    let deps = clips.iter().map(|c| (c.clone(), rpStrictSpatial)).collect();
    let gpu = clip.residency() == nrGPU;
    let filter = ModifyFrameFilter { vi, gpu, clips, func };
    set_clip(out, residency_node(core, "ModifyFrame", vi, Box::new(filter), fmParallelRequests, deps, gpu));
    Ok(())
}

/// A node declared GPU resident (ffGPUOutput) where its `clip` is, since R81's `clip:vnode:all`
/// lets a script hand FrameEval and ModifyFrame a GPU clip and the frames they return come from it.
fn residency_node(core: &Arc<Core>, name: &str, vi: VSVideoInfo, filter: Box<dyn Filter>, mode: i32, deps: Vec<(Arc<Node>, i32)>, gpu: bool) -> Arc<Node> {
    let creation = crate::plugin::creation_stack(core);
    let flags = if gpu { ffGPUOutput } else { 0 };
    Node::new(core.clone(), name, MediaInfo::Video(vi), crate::node::FilterImpl::Rust(filter), mode, flags, deps, creation)
}

/// A returned frame must live where the node said its frames do: the scheduler treats a mismatch
/// as a filter's misuse (fatal), but here it is the script's function that chose the frame.
fn residency_matches(f: &Frame, gpu: bool) -> Result<(), String> {
    match (gpu, f.residency() == nrGPU) {
        (true, false) => Err("Returned frame is in host memory but clip is GPU resident (std.GPUUpload it, or return a frame of a GPU clip)".into()),
        (false, true) => Err("Returned frame is GPU resident but clip is not (std.GPUDownload it, or pass a GPU clip as clip)".into()),
        _ => Ok(()),
    }
}

// ---- PEMVerifier ------------------------------------------------------------------------------------

fn pem_verifier(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    if !stats_format_ok(&vi.format) {
        return Err(format!(
            "Input clip must be constant format 8..16 bit integer or 16-32 bit float, passed {}.",
            format_name(&vi.format)
        ));
    }
    let np = vi.format.numPlanes as usize;
    let float = vi.format.sampleType == stFloat;
    let max = ((1i64 << vi.format.bitsPerSample) - 1) as f64;
    let mut lower = [if float { f64::NEG_INFINITY } else { 0.0 }; 3];
    let mut upper = [if float { f64::INFINITY } else { max }; 3];
    // Integer limits are rounded to whole sample values before they are checked.
    let conv = |v: f64| if float { v } else { (v + 0.5).floor() };
    if let Some(l) = a.floats("lower") {
        if l.len() != np {
            return Err("number of lower plane limits does not match the number of planes".into());
        }
        for (i, &v) in l.iter().enumerate() {
            lower[i] = conv(v);
            if !float && (lower[i] < 0.0 || lower[i] > max) {
                return Err("Invalid lower bound given".into());
            }
        }
    }
    if let Some(u) = a.floats("upper") {
        if u.len() != np {
            return Err("number of upper plane limits does not match the number of planes".into());
        }
        for (i, &v) in u.iter().enumerate() {
            upper[i] = conv(v);
            if upper[i] < lower[i] || (!float && upper[i] > max) {
                return Err("Invalid upper bound given".into());
            }
        }
    }
    let deps = vec![(clip.clone(), rpStrictSpatial)];
    let filter = FnFilter {
        inputs: vec![clip],
        requests: Box::new(|n| vec![(0, n)]),
        make: Box::new(move |n, frames, _| {
            let f = &frames[0];
            for p in 0..np {
                if float {
                    let (lo, hi) = (lower[p] as f32, upper[p] as f32);
                    let mut r = Vec::new();
                    for y in 0..f.planes()[p].height as usize {
                        row_f32(f, p, y, &mut r);
                        if let Some(x) = r.iter().position(|&v| v < lo || v > hi) {
                            return Err(format!("Illegal sample value ({:.6}) at: plane: {p} Y: {y}, X: {x}, Frame: {n}", r[x]));
                        }
                    }
                } else {
                    let (lo, hi) = (lower[p] as i64 as u32, upper[p] as i64 as u32);
                    let check = |r: &[u32], y: usize| -> Result<(), String> {
                        match r.iter().position(|&v| v < lo || v > hi) {
                            Some(x) => Err(format!("Illegal sample value ({}) at: plane: {p} Y: {y}, X: {x}, Frame: {n}", r[x])),
                            None => Ok(()),
                        }
                    };
                    let mut r = Vec::new();
                    for y in 0..f.planes()[p].height as usize {
                        row_u32(f, p, y, &mut r);
                        check(&r, y)?;
                    }
                }
            }
            Ok(f.clone())
        }),
    };
    set_clip(out, make_node(core, "PEMVerifier", MediaInfo::Video(vi), Box::new(filter), fmParallel, deps));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves() {
        use super::super::neighbour::plane::{half_to_f32, halves_to_f32};
        assert_eq!(half_to_f32(0x3c00), 1.0);
        assert_eq!(half_to_f32(0xc000), -2.0);
        assert_eq!(half_to_f32(0x0001), 5.960_464_5e-8);
        for v in [0.5f32, 0.333, 1234.0, -0.0001] {
            let h = super::super::blank::f32_to_half(v);
            assert_eq!(super::super::blank::f32_to_half(half_to_f32(h)), h);
        }
        // the row conversion PlaneStats uses (F16C where the CPU has it) gives the same bits for
        // every half that is not a NaN, and a NaN for every NaN
        let all: Vec<u16> = (0..=u16::MAX).collect();
        let mut row = vec![0f32; all.len()];
        halves_to_f32(&all, &mut row);
        for (&h, &v) in all.iter().zip(&row) {
            let want = half_to_f32(h);
            assert!(if want.is_nan() { v.is_nan() } else { v.to_bits() == want.to_bits() }, "{h:#06x}: {v} for {want}");
        }
    }
}
