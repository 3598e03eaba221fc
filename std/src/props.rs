//! Properties and callbacks: SetFieldBased, SetFrameProp, SetFrameProps and RemoveFrameProps
//! (each passes frame n on with other properties, wherever the frames live), CopyFrameProps,
//! ClipToProp, PropToClip, PlaneStats, PEMVerifier, and FrameEval and ModifyFrame (`eval`).
//! (SetMaxCPU stays in the core.)
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::activation::{create, create_node, frame_now, Activation, Declaration, Next, Reason, Steps};
use vsvk_plugin_api::api::{api, Core};
use vsvk_plugin_api::filter::spatial_pattern;
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::node::Node;
use vsvk_plugin_api::plugin::Registrar;
use vsvk_plugin_api::residency::on_host;
use vsvk_plugin_api::simd::halves_to_f32;
use vsvk_plugin_api::values::{MapRead, MapWrite, Values};
use vsvk_plugin_api::{Error, Result};

use crate::util::{is_constant, is_valid_key, props_filter, residency_mismatch, src_plane, video_info, Src};

mod eval;
mod stats;

const BAD_PROP_NAME: &str = "'prop' must be a valid property name, a letter or underscore followed by letters, digits and underscores";

pub fn register(r: &Registrar) {
    r.function("SetFrameProp", "clip:vnode:all;prop:data;intval:int[]:opt;floatval:float[]:opt;data:data[]:opt;", "clip:vnode:all;", set_frame_prop);
    r.function("SetFrameProps", "clip:vnode:all;any", "clip:vnode:all;", set_frame_props);
    r.function("RemoveFrameProps", "clip:vnode:all;props:data[]:opt;", "clip:vnode:all;", remove_frame_props);
    r.function("SetFieldBased", "clip:vnode:all;value:int;", "clip:vnode:all;", set_field_based);
    r.function("CopyFrameProps", "clip:vnode:all;prop_src:vnode:all;props:data[]:opt;", "clip:vnode:all;", copy_frame_props);
    r.function("ClipToProp", "clip:vnode:all;mclip:vnode:all;prop:data:opt;", "clip:vnode:all;", clip_to_prop);
    r.function("PropToClip", "clip:vnode:all;prop:data:opt;index:int:opt;", "clip:vnode:all;", prop_to_clip);
    r.function("PlaneStats", "clipa:vnode:all;clipb:vnode:all:opt;plane:int:opt;prop:data:opt;", "clip:vnode:all;", plane_stats);
    r.function("FrameEval", "clip:vnode:all;eval:func;prop_src:vnode[]:all:opt;clip_src:vnode[]:all:opt;", "clip:vnode:all;", eval::frame_eval);
    r.function("ModifyFrame", "clip:vnode:all;clips:vnode[]:all;selector:func;", "clip:vnode:all;", eval::modify_frame);
    r.function("PEMVerifier", "clip:vnode;upper:float[]:opt;lower:float[]:opt;", "clip:vnode;", pem_verifier);
}

fn set_field_based(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let value = args.int("value")?.unwrap_or(-1);
    if !(0..=2).contains(&value) {
        return Err(Error::invalid("value must be 0, 1 or 2"));
    }
    props_filter(out, core, "SetFieldBased", clip, move |props| {
        props.delete("_Field");
        props.set_int("_FieldBased", value);
    })
}

fn set_frame_prop(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let prop = args.get_data("prop", 0).map(|d| d.to_str_lossy()).unwrap_or_default();
    if !is_valid_key(prop.as_bytes()) {
        return Err(Error::invalid(BAD_PROP_NAME));
    }
    let given: Vec<&str> = ["intval", "floatval", "data"].into_iter().filter(|k| args.contains(k)).collect();
    if given.is_empty() {
        return Err(Error::invalid("one of 'intval', 'floatval', or 'data' must be passed."));
    }
    if given.len() > 1 {
        return Err(Error::invalid("only one of 'intval', 'floatval', and 'data' can be passed."));
    }
    let values = args.values(given[0]).ok_or_else(|| Error::invalid(format!("argument {} could not be read", given[0])))?;
    props_filter(out, core, "SetFrameProp", clip, move |props| {
        let _ = props.put_values(&prop, values.clone());
    })
}

fn set_frame_props(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let mut values: Vec<(String, Values)> = Vec::new();
    for k in args.keys() {
        if k == "clip" {
            continue;
        }
        let v = args.values(&k).ok_or_else(|| Error::invalid(format!("argument {k} could not be read")))?;
        if matches!(v, Values::Function(_) | Values::VideoNode(_) | Values::AudioNode(_)) {
            return Err(Error::invalid(format!("nodes and functions cannot be stored as frame properties ('{k}')")));
        }
        values.push((k, v));
    }
    props_filter(out, core, "SetFrameProps", clip, move |props| {
        for (k, v) in &values {
            let _ = props.put_values(k, v.clone());
        }
    })
}

/// Glob matching as RemoveFrameProps does it: `*` any run of characters, `?` any one character.
fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == name[n]) {
            p += 1;
            n += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, n));
            p += 1;
        } else if let Some((sp, sn)) = star {
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    while p < pattern.len() && pattern[p] == b'*' {
        p += 1;
    }
    p == pattern.len()
}

fn remove_frame_props(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let patterns: Option<Vec<Vec<u8>>> = match args.values("props") {
        Some(Values::Data(v)) => Some(v.into_iter().map(|d| d.bytes).collect()),
        _ => None,
    };
    props_filter(out, core, "RemoveFrameProps", clip, move |props| match &patterns {
        None => props.clear(),
        Some(pats) => {
            for k in props.keys() {
                if pats.iter().any(|p| glob_match(p, k.as_bytes())) {
                    props.delete_key(&k);
                }
            }
        }
    })
}

// ---- shared pieces ------------------------------------------------------------------------------

/// A filter whose frame n is made in one step from frame n of each of its `inputs` (clamped to
/// each by the core). It is declared through `activation` rather than `filter::Spec` because these
/// filters declare their dependencies as R81 does, which Spec cannot say for all of them (ClipToProp's
/// mclip is `rpNoFrameReuse`).
struct Spatial<M> {
    inputs: Vec<Node>,
    make: M,
}

impl<M: Fn(i32, Vec<Frame>, Core) -> Result<Frame> + Send + Sync + 'static> Steps for Spatial<M> {
    type Data = ();

    fn activate(&self, n: i32, reason: Reason, _data: Option<()>, act: &mut Activation<'_>) -> Result<Next<()>> {
        if reason == Reason::Initial {
            for node in &self.inputs {
                act.request(node, n);
            }
            return Ok(Next::Wait(None));
        }
        let frames = self.inputs.iter().map(|node| act.frame(node, n).ok_or_else(missing)).collect::<Result<Vec<_>>>()?;
        Ok(Next::Frame((self.make)(n, frames, act.core())?))
    }
}

/// Holds the closure to the signature `Spatial` needs where the filter is made, so that a
/// mismatch is reported there.
fn spatial<M: Fn(i32, Vec<Frame>, Core) -> Result<Frame> + Send + Sync + 'static>(inputs: Vec<Node>, make: M) -> Spatial<M> {
    Spatial { inputs, make }
}

fn missing() -> Error {
    Error::invalid("internal error: a requested frame is missing")
}

/// The declaration of a filter named `name` with `deps`, in parallel mode; GPU resident output
/// where the first dependency's frames are (for filters that pass their first input's planes on
/// untouched).
fn declare(name: &str, info: VSVideoInfo, deps: Vec<(Node, i32)>, props_only: bool) -> Declaration {
    let gpu_output = props_only && deps[0].0.residency() == nrGPU;
    Declaration { name: name.into(), info, deps, mode: fmParallel, gpu_output }
}

/// The name R81 gives a clip's format in messages ("Undefined" for a variable format).
fn format_name(f: &VSVideoFormat) -> String {
    if f.colorFamily == cfUndefined {
        "Undefined".into()
    } else {
        Core::format_name(f)
    }
}

/// Integer formats of 8 to 16 bits and float formats (PlaneStats and PEMVerifier take these).
fn stats_format_ok(f: &VSVideoFormat) -> bool {
    f.colorFamily != cfUndefined
        && ((f.sampleType == stInteger && f.bitsPerSample <= 16) || (f.sampleType == stFloat && (f.bitsPerSample == 16 || f.bitsPerSample == 32)))
}

fn format_error(f: &VSVideoFormat) -> Error {
    Error::invalid(format!("Input clip must be constant format 8..16 bit integer or 16-32 bit float, passed {}.", format_name(f)))
}

/// A string argument's first value.
fn string_arg(args: &Args, key: &str) -> Option<String> {
    args.get_data(key, 0).ok().map(|d| d.to_str_lossy())
}

/// Row `y` of a float plane as f32: half precision samples (`half`) widened, single precision
/// ones copied.
fn row_f32(s: &Src, half: bool, y: usize, out: &mut Vec<f32>) {
    if half {
        // F16C where the CPU has it (a conversion per sample kept half PlaneStats at 0.15x R81);
        // it quiets signalling NaNs, which leaves the statistics as they were: min and max skip
        // NaNs, and the sums' conversion to double quiets them anyway
        // SAFETY: the callers' y < h; a plane of half samples.
        let src = unsafe { s.row::<u16>(y) };
        // (no clear first: resizing to the same length writes nothing)
        out.resize(src.len(), 0.0);
        halves_to_f32(src, out);
    } else {
        out.clear();
        // SAFETY: as above; a plane of f32 samples.
        out.extend_from_slice(unsafe { s.row::<f32>(y) });
    }
}

/// Row `y` of an integer plane of `bytes` bytes per sample as u32.
fn row_u32(s: &Src, bytes: i32, y: usize, out: &mut Vec<u32>) {
    out.clear();
    // SAFETY (all three): the callers' y < h; the plane's samples have `bytes` bytes.
    match bytes {
        1 => out.extend(unsafe { s.row::<u8>(y) }.iter().map(|&v| v as u32)),
        2 => out.extend(unsafe { s.row::<u16>(y) }.iter().map(|&v| v as u32)),
        _ => out.extend_from_slice(unsafe { s.row::<u32>(y) }),
    }
}

// ---- CopyFrameProps ---------------------------------------------------------------------------------

fn copy_frame_props(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let src = args.node("prop_src")?;
    let names: Option<Vec<String>> = match args.values("props") {
        Some(Values::Data(v)) => Some(v.iter().map(|d| d.to_str_lossy()).collect()),
        _ => None,
    };
    let vi = video_info(&clip)?;
    let deps = vec![(clip.clone(), rpStrictSpatial), (src.clone(), spatial_pattern(video_info(&src)?.numFrames, vi.numFrames))];
    let make = move |_: i32, frames: Vec<Frame>, core: Core| {
        let mut f = FrameMut::copy_of(core, &frames[0]);
        let from = frames[1].props();
        let mut props = f.props_mut();
        match &names {
            None => {
                props.clear();
                // SAFETY: two live property maps, the source read only.
                unsafe { (api().copyMap)(from.map_ptr(), props.map_mut_ptr()) };
            }
            Some(names) => {
                for k in names {
                    // as mapDeleteKey deletes it (`_ColorRange` takes `_Range` with it), then the
                    // source's values, unchanged (for `_ColorRange`: `_Range`'s)
                    props.delete_key(k);
                    let k = if k == "_ColorRange" { "_Range" } else { k.as_str() };
                    if let Some(v) = from.values(k) {
                        let _ = props.put_values(k, v);
                    }
                }
            }
        }
        Ok(f.freeze())
    };
    create(out, core, declare("CopyFrameProps", vi, deps, true), spatial(vec![clip, src], make));
    Ok(())
}

// ---- ClipToProp, PropToClip ---------------------------------------------------------------------------

fn clip_to_prop(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let mclip = args.node("mclip")?;
    let prop = string_arg(args, "prop").unwrap_or_else(|| "_Alpha".into());
    if !is_valid_key(prop.as_bytes()) {
        return Err(Error::invalid(BAD_PROP_NAME));
    }
    let cvi = video_info(&clip)?;
    let mvi = video_info(&mclip)?;
    if !is_constant(&cvi) || !is_constant(&mvi) {
        return Err(Error::invalid("clips must have constant format and dimensions"));
    }
    let mut vi = cvi;
    vi.numFrames = mvi.numFrames;
    let deps = vec![(clip.clone(), spatial_pattern(cvi.numFrames, vi.numFrames)), (mclip.clone(), rpNoFrameReuse)];
    let make = move |_: i32, mut frames: Vec<Frame>, core: Core| {
        let m = frames.pop().ok_or_else(missing)?;
        let mut f = FrameMut::copy_of(core, &frames[0]);
        f.props_mut().put_frame(&prop, m, false)?;
        Ok(f.freeze())
    };
    create(out, core, declare("ClipToProp", vi, deps, true), spatial(vec![clip, mclip], make));
    Ok(())
}

/// The video frame stored under `prop` at `index`, read literally (as mapGetFrame does).
fn stored_frame(f: &Frame, prop: &str, index: i64) -> Option<Frame> {
    let i = usize::try_from(index).ok()?;
    f.props().get_frame(prop, i).ok().filter(|s| s.frame_type() == mtVideo)
}

fn prop_to_clip(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let prop = string_arg(args, "prop").unwrap_or_else(|| "_Alpha".into());
    let index = args.int("index")?.unwrap_or(0);
    if prop.is_empty() {
        return Err(Error::invalid("property name can't be an empty string"));
    }
    if index < 0 {
        return Err(Error::invalid("index can't be negative"));
    }
    let cvi = video_info(&clip)?;
    let first = frame_now(&clip, 0)?;
    let none_stored = || Error::invalid(format!("no frame stored in property: {prop} index {index}"));
    let stored = stored_frame(&first, &prop, index).ok_or_else(none_stored)?;
    let fmt = stored.video_format().ok_or_else(none_stored)?;
    let vi = VSVideoInfo { format: fmt, fpsNum: cvi.fpsNum, fpsDen: cvi.fpsDen, width: stored.width(0), height: stored.height(0), numFrames: cvi.numFrames };
    let deps = vec![(clip.clone(), rpStrictSpatial)];
    let make = move |_: i32, frames: Vec<Frame>, _: Core| {
        let f = stored_frame(&frames[0], &prop, index).ok_or_else(|| Error::invalid("failed to extract frame from specified property"))?;
        if f.video_format() != Some(vi.format) || f.width(0) != vi.width || f.height(0) != vi.height {
            return Err(Error::invalid("retrieved frame doesn't match output format or dimensions"));
        }
        Ok(f)
    };
    create(out, core, declare("PropToClip", vi, deps, false), spatial(vec![clip], make));
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

fn compute_stats(fmt: &VSVideoFormat, a: &Src, b: Option<&Src>) -> Stats {
    let count = (a.w * a.h) as f64;
    if fmt.sampleType == stFloat {
        let (mn, mx, sum, diff) = stats::float_stats(a, b, fmt.bytesPerSample == 2);
        Stats { min: mn as f64, max: mx as f64, average: sum / count, diff: b.map(|_| diff / count), float: true }
    } else {
        let (mn, mx, sum, diff) = if fmt.bytesPerSample == 1 { stats::int_stats::<u8>(a, b) } else { stats::int_stats::<u16>(a, b) };
        let scale = count * ((1u64 << fmt.bitsPerSample) - 1) as f64;
        Stats { min: mn as f64, max: mx as f64, average: sum as f64 / scale, diff: b.map(|_| diff as f64 / scale), float: false }
    }
}

fn plane_stats(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clipa = args.node("clipa")?;
    let clipb = args.nodes("clipb")?.into_iter().next();
    let vi = video_info(&clipa)?;
    if !stats_format_ok(&vi.format) {
        return Err(format_error(&vi.format));
    }
    let plane = args.int("plane")?.unwrap_or(0);
    if plane < 0 || plane >= vi.format.numPlanes as i64 {
        return Err(Error::invalid("invalid plane specified"));
    }
    if let Some(b) = &clipb {
        let bvi = video_info(b)?;
        let dims = |v: &VSVideoInfo| if v.width > 0 { format!("{}x{}", v.width, v.height) } else { "undefined".into() };
        if bvi.format != vi.format || bvi.width != vi.width || bvi.height != vi.height || vi.width == 0 {
            return Err(Error::invalid(format!(
                "both input clips must have the same format when second clip is used, passed {}[{}] and {}[{}]",
                format_name(&vi.format),
                dims(&vi),
                format_name(&bvi.format),
                dims(&bvi)
            )));
        }
    }
    let prop = string_arg(args, "prop").unwrap_or_else(|| "PlaneStats".into());
    if !is_valid_key(prop.as_bytes()) {
        return Err(Error::invalid(BAD_PROP_NAME));
    }
    let keys = ["Min", "Max", "Average", "Diff"].map(|s| format!("{prop}{s}"));
    let plane = plane as usize;
    let with_b = clipb.is_some();
    let mut given = vec![clipa];
    given.extend(clipb);
    if let Some(m) = residency_mismatch(&given) {
        return Err(Error::invalid(m));
    }
    let fmt = vi.format;
    // the statistics are computed in host memory: GPU clips are downloaded for it (and the
    // frames, with their new properties, uploaded again)
    let node = on_host(core, given, |inputs| {
        let deps = inputs.iter().map(|n| (n.clone(), spatial_pattern(n.video_info().map_or(1, |v| v.numFrames), vi.numFrames))).collect();
        let make = move |_: i32, frames: Vec<Frame>, core: Core| {
            let a = src_plane(&frames[0], plane)?;
            let b = if with_b { Some(src_plane(&frames[1], plane)?) } else { None };
            let s = compute_stats(&fmt, &a, b.as_ref());
            let mut f = FrameMut::copy_of(core, &frames[0]);
            let mut props = f.props_mut();
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
            Ok(f.freeze())
        };
        create_node(core, declare("PlaneStats", vi, deps, false), spatial(inputs, make))
    })?;
    out.set_node("clip", node);
    Ok(())
}

// ---- PEMVerifier ------------------------------------------------------------------------------------

fn pem_verifier(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let vi = video_info(&clip)?;
    if !stats_format_ok(&vi.format) {
        return Err(format_error(&vi.format));
    }
    let np = vi.format.numPlanes as usize;
    let float = vi.format.sampleType == stFloat;
    let (half, bytes) = (vi.format.bytesPerSample == 2, vi.format.bytesPerSample);
    let max = ((1i64 << vi.format.bitsPerSample) - 1) as f64;
    let mut lower = [if float { f64::NEG_INFINITY } else { 0.0 }; 3];
    let mut upper = [if float { f64::INFINITY } else { max }; 3];
    // Integer limits are rounded to whole sample values before they are checked.
    let conv = |v: f64| if float { v } else { (v + 0.5).floor() };
    let floats = |key: &str| match args.values(key) {
        Some(Values::Float(v)) => Some(v),
        _ => None,
    };
    if let Some(l) = floats("lower") {
        if l.len() != np {
            return Err(Error::invalid("number of lower plane limits does not match the number of planes"));
        }
        for (i, &v) in l.iter().enumerate() {
            lower[i] = conv(v);
            if !float && (lower[i] < 0.0 || lower[i] > max) {
                return Err(Error::invalid("Invalid lower bound given"));
            }
        }
    }
    if let Some(u) = floats("upper") {
        if u.len() != np {
            return Err(Error::invalid("number of upper plane limits does not match the number of planes"));
        }
        for (i, &v) in u.iter().enumerate() {
            upper[i] = conv(v);
            if upper[i] < lower[i] || (!float && upper[i] > max) {
                return Err(Error::invalid("Invalid upper bound given"));
            }
        }
    }
    let deps = vec![(clip.clone(), rpStrictSpatial)];
    let make = move |n: i32, mut frames: Vec<Frame>, _: Core| {
        let f = frames.pop().ok_or_else(missing)?;
        for p in 0..np {
            let s = src_plane(&f, p)?;
            if float {
                let (lo, hi) = (lower[p] as f32, upper[p] as f32);
                let mut r = Vec::new();
                for y in 0..s.h {
                    row_f32(&s, half, y, &mut r);
                    if let Some(x) = r.iter().position(|&v| v < lo || v > hi) {
                        return Err(Error::invalid(format!("Illegal sample value ({:.6}) at: plane: {p} Y: {y}, X: {x}, Frame: {n}", r[x])));
                    }
                }
            } else {
                let (lo, hi) = (lower[p] as i64 as u32, upper[p] as i64 as u32);
                let mut r = Vec::new();
                for y in 0..s.h {
                    row_u32(&s, bytes, y, &mut r);
                    if let Some(x) = r.iter().position(|&v| v < lo || v > hi) {
                        return Err(Error::invalid(format!("Illegal sample value ({}) at: plane: {p} Y: {y}, X: {x}, Frame: {n}", r[x])));
                    }
                }
            }
        }
        Ok(f)
    };
    create(out, core, declare("PEMVerifier", vi, deps, false), spatial(vec![clip], make));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match(b"*", b"Foo"));
        assert!(glob_match(b"F*", b"FooBar"));
        assert!(glob_match(b"*o*", b"_Fo"));
        assert!(!glob_match(b"?oo", b"FooBar"));
        assert!(glob_match(b"?oo", b"Foo"));
        assert!(glob_match(b"Foo*Bar*", b"FooBar"));
        assert!(!glob_match(b"F*r", b"Foo"));
        assert!(glob_match(b"*?", b"a"));
        assert!(!glob_match(b"*?", b""));
        assert!(!glob_match(b"Ba[rz]", b"Bar"));
    }

    #[test]
    fn halves() {
        use vsvk_plugin_api::simd::{f32_to_half, half_to_f32, halves_to_f32};
        assert_eq!(half_to_f32(0x3c00), 1.0);
        assert_eq!(half_to_f32(0xc000), -2.0);
        assert_eq!(half_to_f32(0x0001), 5.960_464_5e-8);
        for v in [0.5f32, 0.333, 1234.0, -0.0001] {
            let h = f32_to_half(v);
            assert_eq!(f32_to_half(half_to_f32(h)), h);
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
