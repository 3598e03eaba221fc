//! Neighbourhood filters: Convolution, BoxBlur, Minimum, Maximum, Median, Inflate, Deflate, Sobel,
//! Prewitt.
//!
//! Results follow the reference (VapourSynth R81) sample for sample. Integer results do not depend
//! on the instruction set. Float results do in R81 (its SIMD and plain C builds add things up in
//! different orders), so float arithmetic here follows one of two recorded orders: the SIMD one by
//! default and the plain one after `std.SetMaxCPU("none")`. Half-float planes go through the plain
//! float arithmetic and are rounded back to half.
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use super::util::{self, Args, Kind};
use crate::core::Core;
use crate::frame::Frame;
use crate::map::Map;
use crate::node::Node;

mod boxblur;
mod conv;
mod edge;
mod morph;
pub(crate) mod plane;

pub fn register(r: &super::Registrar) {
    const RET: &str = "clip:vnode:all;";
    r.add("Minimum", "clip:vnode:all;planes:int[]:opt;threshold:float:opt;coordinates:int[]:opt;", RET, minimum);
    r.add("Maximum", "clip:vnode:all;planes:int[]:opt;threshold:float:opt;coordinates:int[]:opt;", RET, maximum);
    r.add("Median", "clip:vnode:all;planes:int[]:opt;", RET, median);
    r.add("Deflate", "clip:vnode:all;planes:int[]:opt;threshold:float:opt;", RET, deflate);
    r.add("Inflate", "clip:vnode:all;planes:int[]:opt;threshold:float:opt;", RET, inflate);
    r.add(
        "Convolution",
        "clip:vnode:all;matrix:float[];bias:float:opt;divisor:float:opt;planes:int[]:opt;saturate:int:opt;mode:data:opt;",
        RET,
        convolution,
    );
    r.add("Prewitt", "clip:vnode:all;planes:int[]:opt;scale:float:opt;", RET, prewitt);
    r.add("Sobel", "clip:vnode:all;planes:int[]:opt;scale:float:opt;", RET, sobel);
    r.add("BoxBlur", "clip:vnode:all;planes:int[]:opt;hradius:int:opt;hpasses:int:opt;vradius:int:opt;vpasses:int:opt;", RET, box_blur);
}

/// Which of R81's float orders to follow.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Path {
    /// R81's plain C build (`SetMaxCPU("none")`).
    C,
    /// R81's SIMD build (its default on x86-64).
    Simd,
}

fn cpu_path(core: &Core) -> Path {
    if core.max_cpu.lock().as_str() == "none" {
        Path::C
    } else {
        Path::Simd
    }
}

/// What every filter here checks first: the clip, its format and the planes argument.
struct Common {
    node: Arc<Node>,
    vi: VSVideoInfo,
    planes: [bool; 3],
}

fn common(a: &Args) -> Result<Common, String> {
    let node = a.node("clip")?;
    let vi = util::video_info(&node)?;
    let f = &vi.format;
    let ok = f.colorFamily != cfUndefined
        && ((f.sampleType == stInteger && (8..=16).contains(&f.bitsPerSample))
            || (f.sampleType == stFloat && (f.bitsPerSample == 16 || f.bitsPerSample == 32)));
    if !ok {
        let name = if f.colorFamily == cfUndefined {
            "Undefined".to_string()
        } else {
            crate::format::video_name(f).unwrap_or_else(|| "Undefined".into())
        };
        return Err(format!("Input clip must be constant format 8..16 bit integer or 16-32 bit float, passed {name}."));
    }
    // R81 checks indices against 3 whatever the clip: a listed plane the clip lacks is ignored.
    let mut planes = [false; 3];
    match a.ints("planes") {
        None => {
            for (p, on) in planes.iter_mut().enumerate() {
                *on = (p as i32) < f.numPlanes;
            }
        }
        Some(list) => {
            let mut seen = [false; 3];
            for p in list {
                if !(0..3).contains(&p) {
                    return Err("plane index out of range".into());
                }
                if seen[p as usize] {
                    return Err("plane specified twice".into());
                }
                seen[p as usize] = true;
                planes[p as usize] = (p as i32) < f.numPlanes;
            }
        }
    }
    Ok(Common { node, vi, planes })
}

fn plane_dims(vi: &VSVideoInfo, p: usize) -> (i32, i32) {
    if p == 0 {
        (vi.width, vi.height)
    } else {
        (vi.width >> vi.format.subSamplingW, vi.height >> vi.format.subSamplingH)
    }
}

/// Processed planes must be at least 4x4 (not checked for clips of varying size).
fn check_min_size(c: &Common) -> Result<(), String> {
    if c.vi.width == 0 || c.vi.height == 0 {
        return Ok(());
    }
    for p in 0..3 {
        if c.planes[p] {
            let (w, h) = plane_dims(&c.vi, p);
            if w < 4 || h < 4 {
                return Err("Cannot process planes smaller than 4x4.".into());
            }
        }
    }
    Ok(())
}

fn max_value(f: &VSVideoFormat) -> i32 {
    ((1i64 << f.bitsPerSample) - 1) as i32
}

/// A threshold argument: integer formats take it rounded, float formats as given.
#[derive(Clone, Copy, Debug)]
pub struct Threshold {
    pub int: i32,
    pub float: f32,
}

fn threshold(a: &Args, f: &VSVideoFormat) -> Result<Threshold, String> {
    let max = max_value(f);
    let mut t = Threshold { int: max, float: f32::MAX };
    if let Some(v) = a.float("threshold") {
        if f.sampleType == stInteger {
            let r = v.round();
            if !(r >= 0.0 && r <= max as f64) {
                return Err("threshold bigger than sample value.".into());
            }
            t.int = r as i32;
        } else {
            if v < 0.0 {
                return Err("threshold must be a positive value.".into());
            }
            t.float = v as f32;
        }
    }
    Ok(t)
}

/// The node of a filter that replaces each selected plane with `f(source, output, plane, stream)`
/// and passes the others through; `stream`: whether to write rows past the caches.
fn make_filter(
    core: &Arc<Core>,
    name: &str,
    c: &Common,
    f: impl Fn(&Frame, &mut Frame, usize, bool) -> Result<(), String> + Send + Sync + 'static,
) -> Result<Arc<Node>, String> {
    let planes = c.planes;
    util::on_host(core, vec![c.node.clone()], |inputs| util::spatial(core, name, c.vi, inputs, move |_n, frames, core| {
        let src = &frames[0];
        let fmt = *src.video_format().ok_or("only video clips are supported")?;
        let mut dst = util::new_video(core, &fmt, src.width, src.height, Some(src))?;
        let stream = super::stream::stream_outputs(core, super::stream::frame_bytes(&dst));
        for p in 0..fmt.numPlanes as usize {
            if planes[p] {
                f(src, &mut dst, p, stream)?;
            } else {
                // SAFETY: `dst` is new and ours alone; the plane is shared read-only.
                unsafe { dst.set_plane(p, src.planes()[p].clone()) };
            }
        }
        Ok(Arc::new(dst))
    }))
}

fn frame_kind(f: &Frame) -> Kind {
    util::kind(f.video_format().expect("video frame"))
}

// ---- Minimum, Maximum, Median, Inflate, Deflate ---------------------------------------------------

fn morph_filter(input: &Map, out: &mut Map, core: &Arc<Core>, name: &str, op: morph::Op) -> Result<(), String> {
    let a = Args(input);
    let c = common(&a)?;
    let fmt = c.vi.format;
    let th = match op {
        morph::Op::Median => Threshold { int: 0, float: 0.0 },
        _ => threshold(&a, &fmt)?,
    };
    let mut coords = [true; 8];
    if matches!(op, morph::Op::Min | morph::Op::Max) {
        if let Some(list) = a.ints("coordinates") {
            if list.len() != 8 {
                return Err("coordinates must contain exactly 8 numbers.".into());
            }
            for (c, v) in coords.iter_mut().zip(list) {
                *c = v != 0;
            }
        }
    }
    check_min_size(&c)?;
    let job = morph::Job { op, coords, th, path: cpu_path(core) };
    let node = make_filter(core, name, &c, move |src, dst, p, stream| {
        morph::run(&job, frame_kind(src), src, dst, p, stream);
        Ok(())
    })?;
    util::set_clip(out, node);
    Ok(())
}

fn minimum(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    morph_filter(input, out, core, "Minimum", morph::Op::Min)
}
fn maximum(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    morph_filter(input, out, core, "Maximum", morph::Op::Max)
}
fn median(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    morph_filter(input, out, core, "Median", morph::Op::Median)
}
fn inflate(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    morph_filter(input, out, core, "Inflate", morph::Op::Inflate)
}
fn deflate(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    morph_filter(input, out, core, "Deflate", morph::Op::Deflate)
}

// ---- Sobel, Prewitt --------------------------------------------------------------------------------

fn edge_filter(input: &Map, out: &mut Map, core: &Arc<Core>, name: &str, sobel: bool) -> Result<(), String> {
    let a = Args(input);
    let c = common(&a)?;
    let scale = a.float("scale").unwrap_or(1.0);
    if scale < 0.0 {
        return Err("scale must not be negative.".into());
    }
    check_min_size(&c)?;
    let job = edge::Job { sobel, scale: scale as f32, max: max_value(&c.vi.format), path: cpu_path(core) };
    let node = make_filter(core, name, &c, move |src, dst, p, stream| {
        edge::run(&job, frame_kind(src), src, dst, p, stream);
        Ok(())
    })?;
    util::set_clip(out, node);
    Ok(())
}

fn sobel(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    edge_filter(input, out, core, "Sobel", true)
}
fn prewitt(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    edge_filter(input, out, core, "Prewitt", false)
}

// ---- Convolution -----------------------------------------------------------------------------------

fn convolution(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let c = common(&a)?;
    let fmt = c.vi.format;
    let mode = match a.string("mode").as_deref() {
        None | Some("s") => conv::Mode::Square,
        Some("h") => conv::Mode::H,
        Some("v") => conv::Mode::V,
        Some("hv") | Some("vh") => conv::Mode::HV,
        _ => return Err("mode must be one of 's', 'h', 'v', 'hv', 'vh'.".into()),
    };
    let matrix = a.floats("matrix").unwrap_or_default();
    let n = matrix.len();
    let taps = if mode == conv::Mode::Square {
        match n {
            9 => 3,
            25 => 5,
            49 => 7,
            81 => 9,
            121 => 11,
            _ => {
                return Err("When mode starts with 's', matrix must contain exactly 9, 25, 49, 81 or 121 numbers (a 3x3, 5x5, 7x7, 9x9 or 11x11 square).".into())
            }
        }
    } else {
        if !(3..=25).contains(&n) {
            return Err("When mode starts with 'h' or 'v', matrix must contain between 3 and 25 numbers.".into());
        }
        if n % 2 == 0 {
            return Err("matrix must contain an odd number of numbers.".into());
        }
        n
    };
    let float = fmt.sampleType == stFloat;
    let mut mi = Vec::with_capacity(n);
    for &v in &matrix {
        let r = v.round();
        if !float && !(-1023.0..=1023.0).contains(&r) {
            return Err("coefficients may only be between -1023 and 1023".into());
        }
        mi.push(r as i32);
    }
    let mf: Vec<f32> = matrix.iter().map(|&v| v as f32).collect();
    let bias = a.float("bias").unwrap_or(0.0) as f32;
    let mut divisor = a.float("divisor").unwrap_or(0.0) as f32;
    if divisor == 0.0 {
        divisor = if float { mf.iter().sum::<f32>() } else { mi.iter().sum::<i32>() as f32 };
        if divisor == 0.0 {
            divisor = 1.0;
        }
    }
    let saturate = a.bool("saturate", true);
    check_min_size(&c)?;
    if c.vi.width != 0 && c.vi.height != 0 && mode != conv::Mode::Square {
        let radius = (taps / 2) as i32;
        for p in 0..3 {
            if !c.planes[p] {
                continue;
            }
            let (w, h) = plane_dims(&c.vi, p);
            if matches!(mode, conv::Mode::H | conv::Mode::HV) && w <= radius {
                return Err("Width must be bigger than convolution radius.".into());
            }
            if matches!(mode, conv::Mode::V | conv::Mode::HV) && h <= radius {
                return Err("Height must be bigger than convolution radius.".into());
            }
        }
    }
    let mut job = conv::Job {
        mode,
        taps,
        mi,
        mf,
        rdiv: 1.0 / divisor,
        bias,
        saturate,
        max: max_value(&fmt),
        path: cpu_path(core),
        half: false,
        fin16: None,
    };
    job.fin16 = conv::find_fin16(&job);
    let node = make_filter(core, "Convolution", &c, move |src, dst, p, stream| {
        conv::run(&job, frame_kind(src), src, dst, p, stream);
        Ok(())
    })?;
    util::set_clip(out, node);
    Ok(())
}

// ---- BoxBlur ---------------------------------------------------------------------------------------

fn box_blur(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let c = common(&a)?;
    let hradius = a.int("hradius").unwrap_or(1);
    let hpasses = a.int("hpasses").unwrap_or(1);
    let vradius = a.int("vradius").unwrap_or(1);
    let vpasses = a.int("vpasses").unwrap_or(1);
    if hradius < 0 || vradius < 0 {
        return Err("radius can't be negative".into());
    }
    if hpasses < 0 || vpasses < 0 {
        return Err("number of passes can't be negative".into());
    }
    if hradius > 30000 || vradius > 30000 {
        return Err("radius must be less than 30000".into());
    }
    let h_on = hradius > 0 && hpasses > 0;
    let v_on = vradius > 0 && vpasses > 0;
    if !h_on && !v_on {
        return Err("nothing to be performed".into());
    }
    if c.vi.width < 4 || c.vi.height < 4 {
        return Err("dimensions must be at least 4x4".into());
    }
    let clip_i = |v: i64| v.min(i32::MAX as i64) as usize;
    let job = boxblur::Job {
        hradius: if h_on { clip_i(hradius) } else { 0 },
        hpasses: if h_on { clip_i(hpasses) } else { 0 },
        vradius: if v_on { clip_i(vradius) } else { 0 },
        vpasses: if v_on { clip_i(vpasses) } else { 0 },
    };
    let node = make_filter(core, "BoxBlur", &c, move |src, dst, p, stream| {
        boxblur::run(&job, frame_kind(src), src, dst, p, stream);
        Ok(())
    })?;
    util::set_clip(out, node);
    Ok(())
}
