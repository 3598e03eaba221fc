//! Neighbourhood filters: Convolution, BoxBlur, Minimum, Maximum, Median, Inflate, Deflate, Sobel,
//! Prewitt.
//!
//! Results follow the reference (VapourSynth R81) sample for sample. Integer results do not depend
//! on the instruction set. Float results do in R81 (its SIMD and plain C builds add things up in
//! different orders), so float arithmetic here follows one of two recorded orders: the SIMD one by
//! default and the plain one after `std.SetMaxCPU("none")`. Half-float planes go through the plain
//! float arithmetic and are rounded back to half.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::invoke::PluginRef;
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::node::Node;
use vsvk_plugin_api::plugin::Registrar;
use vsvk_plugin_api::residency;
use vsvk_plugin_api::values::{MapRead, MapWrite, OwnedMap};
use vsvk_plugin_api::{Error, Result};

use crate::util::{self, Kind};

mod boxblur;
mod conv;
mod edge;
mod morph;
pub mod plane;

pub fn register(r: &Registrar) {
    const RET: &str = "clip:vnode:all;";
    r.function("Minimum", "clip:vnode:all;planes:int[]:opt;threshold:float:opt;coordinates:int[]:opt;", RET, minimum);
    r.function("Maximum", "clip:vnode:all;planes:int[]:opt;threshold:float:opt;coordinates:int[]:opt;", RET, maximum);
    r.function("Median", "clip:vnode:all;planes:int[]:opt;", RET, median);
    r.function("Deflate", "clip:vnode:all;planes:int[]:opt;threshold:float:opt;", RET, deflate);
    r.function("Inflate", "clip:vnode:all;planes:int[]:opt;threshold:float:opt;", RET, inflate);
    r.function(
        "Convolution",
        "clip:vnode:all;matrix:float[];bias:float:opt;divisor:float:opt;planes:int[]:opt;saturate:int:opt;mode:data:opt;",
        RET,
        convolution,
    );
    r.function("Prewitt", "clip:vnode:all;planes:int[]:opt;scale:float:opt;", RET, prewitt);
    r.function("Sobel", "clip:vnode:all;planes:int[]:opt;scale:float:opt;", RET, sobel);
    r.function("BoxBlur", "clip:vnode:all;planes:int[]:opt;hradius:int:opt;hpasses:int:opt;vradius:int:opt;vpasses:int:opt;", RET, box_blur);
}

/// Which of R81's float orders to follow.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Path {
    /// R81's plain C build (`SetMaxCPU("none")`).
    C,
    /// R81's SIMD build (its default on x86-64).
    Simd,
}

/// The path std.SetMaxCPU chose: asked of std itself, whose SetMaxCPU reports the level without
/// changing it when passed an empty one.
pub(crate) fn cpu_path(core: Core) -> Result<Path> {
    let std = PluginRef::by_id(core, "com.vapoursynth.std").ok_or_else(|| Error::invalid("the std plugin is missing"))?;
    let mut args = OwnedMap::new();
    args.put_data("cpu", b"", dtUtf8, false)?;
    let level = std.invoke("SetMaxCPU", &args)?.get_data("cpu", 0)?.to_str_lossy();
    Ok(if level == "none" { Path::C } else { Path::Simd })
}

/// What every filter here checks first: the clip, its format and the planes argument.
struct Common {
    node: Node,
    vi: VSVideoInfo,
    planes: [bool; 3],
}

fn common(a: &Args) -> Result<Common> {
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
            Core::format_name(f)
        };
        return Err(Error::invalid(format!("Input clip must be constant format 8..16 bit integer or 16-32 bit float, passed {name}.")));
    }
    // R81 checks indices against 3 whatever the clip: a listed plane the clip lacks is ignored.
    let mut planes = [false; 3];
    // an empty list is a list: no plane processed
    let list = if a.contains("planes") { Some(a.get_ints("planes")?) } else { None };
    match list {
        None => {
            for (p, on) in planes.iter_mut().enumerate() {
                *on = (p as i32) < f.numPlanes;
            }
        }
        Some(list) => {
            let mut seen = [false; 3];
            for p in list {
                if !(0..3).contains(&p) {
                    return Err(Error::invalid("plane index out of range"));
                }
                if seen[p as usize] {
                    return Err(Error::invalid("plane specified twice"));
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
fn check_min_size(c: &Common) -> Result<()> {
    if c.vi.width == 0 || c.vi.height == 0 {
        return Ok(());
    }
    for p in 0..3 {
        if c.planes[p] {
            let (w, h) = plane_dims(&c.vi, p);
            if w < 4 || h < 4 {
                return Err(Error::invalid("Cannot process planes smaller than 4x4."));
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

fn threshold(a: &Args, f: &VSVideoFormat) -> Result<Threshold> {
    let max = max_value(f);
    let mut t = Threshold { int: max, float: f32::MAX };
    if let Some(v) = a.float("threshold")? {
        if f.sampleType == stInteger {
            let r = v.round();
            if !(r >= 0.0 && r <= max as f64) {
                return Err(Error::invalid("threshold bigger than sample value."));
            }
            t.int = r as i32;
        } else {
            if v < 0.0 {
                return Err(Error::invalid("threshold must be a positive value."));
            }
            t.float = v as f32;
        }
    }
    Ok(t)
}

/// A filter that replaces each selected plane with `run(job, kind, source, output, plane,
/// stream)` and passes the others through; `stream`: whether to write rows past the caches.
struct PlaneFilter<J> {
    planes: [bool; 3],
    job: J,
    run: fn(&J, Kind, &Frame, &mut FrameMut, usize, bool),
}

impl<J: Send + Sync + 'static> Filter for PlaneFilter<J> {
    const SPATIAL: bool = true;

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let src = frames.into_iter().next().ok_or_else(|| Error::invalid("internal error: a requested frame is missing"))?;
        let fmt = src.video_format().ok_or_else(|| Error::invalid("only video clips are supported"))?;
        let kind = util::kind(&fmt);
        let mut shared = [None; 3];
        for (p, s) in shared.iter_mut().enumerate().take(fmt.numPlanes as usize) {
            if !self.planes[p] {
                *s = Some((&src, p as i32));
            }
        }
        let mut dst = FrameMut::new_video_sharing(core, &fmt, src.width(0), src.height(0), shared, Some(&src))?;
        let stream = crate::stream::stream_outputs(core, &dst);
        for p in 0..fmt.numPlanes as usize {
            if self.planes[p] {
                (self.run)(&self.job, kind, &src, &mut dst, p, stream);
            }
        }
        Ok(dst.freeze())
    }
}

/// Returns under `clip` the filter `name` running `run` with `job` on the selected planes; GPU
/// clips are processed in host memory and uploaded again.
fn make_filter<J: Send + Sync + 'static>(out: &mut Out, core: Core, name: &str, c: Common, job: J, run: fn(&J, Kind, &Frame, &mut FrameMut, usize, bool)) -> Result<()> {
    let Common { node, vi, planes } = c;
    let node = residency::on_host(core, vec![node], |inputs| {
        filter::create_node(core, Spec { name: name.into(), info: vi, inputs, gpu_output: false }, PlaneFilter { planes, job, run }, fmParallel)
    })?;
    out.set_node("clip", node);
    Ok(())
}

// ---- Minimum, Maximum, Median, Inflate, Deflate ---------------------------------------------------

fn morph_filter(args: &Args, out: &mut Out, core: Core, name: &str, op: morph::Op) -> Result<()> {
    let a = args;
    let c = common(&a)?;
    let fmt = c.vi.format;
    let th = match op {
        morph::Op::Median => Threshold { int: 0, float: 0.0 },
        _ => threshold(&a, &fmt)?,
    };
    let mut coords = [true; 8];
    if matches!(op, morph::Op::Min | morph::Op::Max) {
        if let Some(list) = a.ints("coordinates")? {
            if list.len() != 8 {
                return Err(Error::invalid("coordinates must contain exactly 8 numbers."));
            }
            for (c, v) in coords.iter_mut().zip(list) {
                *c = v != 0;
            }
        }
    }
    check_min_size(&c)?;
    let job = morph::Job { op, coords, th, path: cpu_path(core)? };
    make_filter(out, core, name, c, job, morph::run)
}

fn minimum(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    morph_filter(args, out, core, "Minimum", morph::Op::Min)
}
fn maximum(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    morph_filter(args, out, core, "Maximum", morph::Op::Max)
}
fn median(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    morph_filter(args, out, core, "Median", morph::Op::Median)
}
fn inflate(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    morph_filter(args, out, core, "Inflate", morph::Op::Inflate)
}
fn deflate(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    morph_filter(args, out, core, "Deflate", morph::Op::Deflate)
}

// ---- Sobel, Prewitt --------------------------------------------------------------------------------

fn edge_filter(args: &Args, out: &mut Out, core: Core, name: &str, sobel: bool) -> Result<()> {
    let a = args;
    let c = common(&a)?;
    let scale = a.float("scale")?.unwrap_or(1.0);
    if scale < 0.0 {
        return Err(Error::invalid("scale must not be negative."));
    }
    check_min_size(&c)?;
    let job = edge::Job { sobel, scale: scale as f32, max: max_value(&c.vi.format), path: cpu_path(core)? };
    make_filter(out, core, name, c, job, edge::run)
}

fn sobel(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    edge_filter(args, out, core, "Sobel", true)
}
fn prewitt(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    edge_filter(args, out, core, "Prewitt", false)
}

// ---- Convolution -----------------------------------------------------------------------------------

fn convolution(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let a = args;
    let c = common(&a)?;
    let fmt = c.vi.format;
    let mode = match a.get_data("mode", 0).ok().map(|d| d.to_str_lossy()).as_deref() {
        None | Some("s") => conv::Mode::Square,
        Some("h") => conv::Mode::H,
        Some("v") => conv::Mode::V,
        Some("hv") | Some("vh") => conv::Mode::HV,
        _ => return Err(Error::invalid("mode must be one of 's', 'h', 'v', 'hv', 'vh'.")),
    };
    let matrix = a.floats("matrix")?.unwrap_or_default();
    let n = matrix.len();
    let taps = if mode == conv::Mode::Square {
        match n {
            9 => 3,
            25 => 5,
            49 => 7,
            81 => 9,
            121 => 11,
            _ => {
                return Err(Error::invalid("When mode starts with 's', matrix must contain exactly 9, 25, 49, 81 or 121 numbers (a 3x3, 5x5, 7x7, 9x9 or 11x11 square)."))
            }
        }
    } else {
        if !(3..=25).contains(&n) {
            return Err(Error::invalid("When mode starts with 'h' or 'v', matrix must contain between 3 and 25 numbers."));
        }
        if n % 2 == 0 {
            return Err(Error::invalid("matrix must contain an odd number of numbers."));
        }
        n
    };
    let float = fmt.sampleType == stFloat;
    let mut mi = Vec::with_capacity(n);
    for &v in &matrix {
        let r = v.round();
        if !float && !(-1023.0..=1023.0).contains(&r) {
            return Err(Error::invalid("coefficients may only be between -1023 and 1023"));
        }
        mi.push(r as i32);
    }
    let mf: Vec<f32> = matrix.iter().map(|&v| v as f32).collect();
    let bias = a.float("bias")?.unwrap_or(0.0) as f32;
    let mut divisor = a.float("divisor")?.unwrap_or(0.0) as f32;
    if divisor == 0.0 {
        divisor = if float { mf.iter().sum::<f32>() } else { mi.iter().sum::<i32>() as f32 };
        if divisor == 0.0 {
            divisor = 1.0;
        }
    }
    let saturate = a.bool("saturate", true)?;
    check_min_size(&c)?;
    if c.vi.width != 0 && c.vi.height != 0 && mode != conv::Mode::Square {
        let radius = (taps / 2) as i32;
        for p in 0..3 {
            if !c.planes[p] {
                continue;
            }
            let (w, h) = plane_dims(&c.vi, p);
            if matches!(mode, conv::Mode::H | conv::Mode::HV) && w <= radius {
                return Err(Error::invalid("Width must be bigger than convolution radius."));
            }
            if matches!(mode, conv::Mode::V | conv::Mode::HV) && h <= radius {
                return Err(Error::invalid("Height must be bigger than convolution radius."));
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
        path: cpu_path(core)?,
        half: false,
        fin16: None,
    };
    job.fin16 = conv::find_fin16(&job);
    make_filter(out, core, "Convolution", c, job, conv::run)
}

// ---- BoxBlur ---------------------------------------------------------------------------------------

fn box_blur(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let a = args;
    let c = common(&a)?;
    let hradius = a.int("hradius")?.unwrap_or(1);
    let hpasses = a.int("hpasses")?.unwrap_or(1);
    let vradius = a.int("vradius")?.unwrap_or(1);
    let vpasses = a.int("vpasses")?.unwrap_or(1);
    if hradius < 0 || vradius < 0 {
        return Err(Error::invalid("radius can't be negative"));
    }
    if hpasses < 0 || vpasses < 0 {
        return Err(Error::invalid("number of passes can't be negative"));
    }
    if hradius > 30000 || vradius > 30000 {
        return Err(Error::invalid("radius must be less than 30000"));
    }
    let h_on = hradius > 0 && hpasses > 0;
    let v_on = vradius > 0 && vpasses > 0;
    if !h_on && !v_on {
        return Err(Error::invalid("nothing to be performed"));
    }
    if c.vi.width < 4 || c.vi.height < 4 {
        return Err(Error::invalid("dimensions must be at least 4x4"));
    }
    let clip_i = |v: i64| v.min(i32::MAX as i64) as usize;
    let job = boxblur::Job {
        hradius: if h_on { clip_i(hradius) } else { 0 },
        hpasses: if h_on { clip_i(hpasses) } else { 0 },
        vradius: if v_on { clip_i(vradius) } else { 0 },
        vpasses: if v_on { clip_i(vpasses) } else { 0 },
    };
    make_filter(out, core, "BoxBlur", c, job, boxblur::run)
}
