//! Point, Bilinear, Bicubic, Lanczos, Spline16, Spline36 and Spline64 for the same-format case:
//! each plane resampled on the GPU, horizontally and vertically, with the output the reference
//! core's `resize` namespace (zimg) gives for integer formats bit for bit.
//!
//! What zimg does was learned from R81's output (impulse responses through resize, then whole
//! frames), not from its sources:
//! * Taps: output sample i sits at `(i + 0.5) / scale + shift` on the input, `scale = dst /
//!   src_width`; a window of `max(2 * ceil(support / min(scale, 1)), 1)` taps starts at the
//!   rounded-up half position, the kernel is evaluated at `(tap - pos) * min(scale, 1)` and
//!   normalised by the window's sum, taps past an edge fold back onto the plane (the edge sample
//!   counted twice). Rows keep their nonzero span; all share the widest span, shifted left at
//!   the right edge.
//! * Integer passes work on 16-bit values (8-bit samples are shifted up by 8 first, other depths
//!   stay as they are): 14-bit fixed-point taps, rounded from the doubles with the rounding error
//!   carried to the next tap (so each row sums to exactly 1), sums over `sample - 32768` rounded
//!   half up and clamped to the depth's range. Between the two passes values stay at 16 bits; at
//!   the end 8-bit output is rounded half to even from the 16-bit value.
//! * The pass that does less work on the larger image goes first (the cost rule in `h_first`).
//! * Subsampled chroma is shifted for its siting (`_ChromaLocation`, or the `chromaloc_in` and
//!   `chromaloc` arguments), by the part of a chroma sample it sits off the centre of the luma
//!   samples it covers.
//! Float passes use the same taps as floats and one rounding per operation; zimg's vector code
//! sums in its own order with fused multiply-adds, so float output differs from R81's in the
//! last bits (tests/tests/vk_resize.rs bounds it).
//!
//! Interlaced frames (`_FieldBased` 1 or 2) and single fields (`_Field`) are refused with an
//! error naming resize, which handles them.
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, PropsMut, PropsRef};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::{Error, Result};

use crate::kernel::*;
use crate::Reg;

const ARGS: &str = "clip:vnode:gpu;width:int:opt;height:int:opt;format:int:opt;filter_param_a:float:opt;filter_param_b:float:opt;src_left:float:opt;src_top:float:opt;src_width:float:opt;src_height:float:opt;chromaloc_in:int:opt;chromaloc:int:opt;";

pub fn register(r: &Reg) {
    r.function("Point", ARGS, |a, o, c| create(a, o, c, "Point"));
    r.function("Bilinear", ARGS, |a, o, c| create(a, o, c, "Bilinear"));
    r.function("Bicubic", ARGS, |a, o, c| create(a, o, c, "Bicubic"));
    r.function("Lanczos", ARGS, |a, o, c| create(a, o, c, "Lanczos"));
    r.function("Spline16", ARGS, |a, o, c| create(a, o, c, "Spline16"));
    r.function("Spline36", ARGS, |a, o, c| create(a, o, c, "Spline36"));
    r.function("Spline64", ARGS, |a, o, c| create(a, o, c, "Spline64"));
}

/// A resampling kernel.
#[derive(Clone, Copy, Debug)]
enum Kernel {
    Point,
    Bilinear,
    /// b, c
    Bicubic(f64, f64),
    /// taps
    Lanczos(u32),
    Spline16,
    Spline36,
    Spline64,
}

fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        let x = x * std::f64::consts::PI;
        x.sin() / x
    }
}

impl Kernel {
    fn support(self) -> f64 {
        match self {
            Kernel::Point => 0.0,
            Kernel::Bilinear => 1.0,
            Kernel::Bicubic(..) | Kernel::Spline16 => 2.0,
            Kernel::Lanczos(t) => t as f64,
            Kernel::Spline36 => 3.0,
            Kernel::Spline64 => 4.0,
        }
    }

    fn at(self, x: f64) -> f64 {
        let x = x.abs();
        match self {
            Kernel::Point => 1.0,
            Kernel::Bilinear => (1.0 - x).max(0.0),
            Kernel::Bicubic(b, c) => {
                let (p0, p2, p3) = ((6.0 - 2.0 * b) / 6.0, (-18.0 + 12.0 * b + 6.0 * c) / 6.0, (12.0 - 9.0 * b - 6.0 * c) / 6.0);
                let (q0, q1, q2, q3) = ((8.0 * b + 24.0 * c) / 6.0, (-12.0 * b - 48.0 * c) / 6.0, (6.0 * b + 30.0 * c) / 6.0, (-b - 6.0 * c) / 6.0);
                if x < 1.0 {
                    p0 + x * x * (p2 + x * p3)
                } else if x < 2.0 {
                    q0 + x * (q1 + x * (q2 + x * q3))
                } else {
                    0.0
                }
            }
            Kernel::Lanczos(t) => {
                if x < t as f64 {
                    sinc(x) * sinc(x / t as f64)
                } else {
                    0.0
                }
            }
            Kernel::Spline16 => {
                if x < 1.0 {
                    ((x - 9.0 / 5.0) * x - 1.0 / 5.0) * x + 1.0
                } else if x < 2.0 {
                    let x = x - 1.0;
                    ((-1.0 / 3.0 * x + 4.0 / 5.0) * x - 7.0 / 15.0) * x
                } else {
                    0.0
                }
            }
            Kernel::Spline36 => {
                if x < 1.0 {
                    ((13.0 / 11.0 * x - 453.0 / 209.0) * x - 3.0 / 209.0) * x + 1.0
                } else if x < 2.0 {
                    let x = x - 1.0;
                    ((-6.0 / 11.0 * x + 270.0 / 209.0) * x - 156.0 / 209.0) * x
                } else if x < 3.0 {
                    let x = x - 2.0;
                    ((1.0 / 11.0 * x - 45.0 / 209.0) * x + 26.0 / 209.0) * x
                } else {
                    0.0
                }
            }
            Kernel::Spline64 => {
                if x < 1.0 {
                    ((49.0 / 41.0 * x - 6387.0 / 2911.0) * x - 3.0 / 2911.0) * x + 1.0
                } else if x < 2.0 {
                    let x = x - 1.0;
                    ((-24.0 / 41.0 * x + 4032.0 / 2911.0) * x - 2328.0 / 2911.0) * x
                } else if x < 3.0 {
                    let x = x - 2.0;
                    ((6.0 / 41.0 * x - 1008.0 / 2911.0) * x + 582.0 / 2911.0) * x
                } else if x < 4.0 {
                    let x = x - 3.0;
                    ((-1.0 / 41.0 * x + 168.0 / 2911.0) * x - 97.0 / 2911.0) * x
                } else {
                    0.0
                }
            }
        }
    }
}

/// One direction's taps: output sample i reads `width` input samples from `left[i]` on.
#[derive(Debug)]
struct Taps {
    left: Vec<i32>,
    width: usize,
    /// 14-bit fixed point, `width` per output sample
    fixed: Vec<i32>,
    float: Vec<f32>,
}

/// The taps taking `src` samples to `dst`, the input window starting at `shift` and `width`
/// samples wide.
fn taps(k: Kernel, src: usize, dst: usize, shift: f64, width: f64) -> Result<Taps> {
    let scale = dst as f64 / width;
    let step = scale.min(1.0);
    let support = k.support() / step;
    if !support.is_finite() || support > (u32::MAX / 2) as f64 || support.ceil() * 2.0 * dst as f64 > 1e9 {
        return Err(Error::invalid("filter width too great"));
    }
    let size = ((support.ceil() as usize) * 2).max(1);
    let srcf = src as f64;
    let mut rows: Vec<BTreeMap<usize, f64>> = Vec::with_capacity(dst);
    for i in 0..dst {
        let pos = (i as f64 + 0.5) / scale + shift;
        let begin = (pos - size as f64 / 2.0 + 0.5).floor() + 0.5;
        let total: f64 = (0..size).map(|j| k.at((begin + j as f64 - pos) * step)).sum();
        let mut row = BTreeMap::new();
        for j in 0..size {
            let x = begin + j as f64;
            let folded = if x < 0.0 {
                -x
            } else if x >= srcf {
                (2.0 * srcf - x).min(srcf - 0.5)
            } else {
                x
            };
            // a window far past the plane folds back past its other edge
            let idx = (folded.floor().max(0.0) as usize).min(src - 1);
            *row.entry(idx).or_insert(0.0) += k.at((x - pos) * step) / total;
        }
        rows.push(row);
    }
    let spans: Vec<(usize, usize)> = rows
        .iter()
        .map(|r| {
            let mut nz = r.iter().filter(|(_, &v)| v != 0.0).map(|(&i, _)| i);
            match nz.next() {
                Some(first) => (first, nz.last().unwrap_or(first) + 1),
                None => (0, 1),
            }
        })
        .collect();
    let width = spans.iter().map(|(a, b)| b - a).max().unwrap_or(1);
    let mut t = Taps { left: Vec::with_capacity(dst), width, fixed: Vec::with_capacity(dst * width), float: Vec::with_capacity(dst * width) };
    for (row, &(a, _)) in rows.iter().zip(&spans) {
        let left = a.min(src - width);
        let mut carry = 0.0f64;
        for j in 0..width {
            let c = row.get(&(left + j)).copied().unwrap_or(0.0);
            let v = c * 16384.0 + carry;
            let q = v.round_ties_even();
            carry = v - q;
            t.fixed.push(q as i32);
            t.float.push(c as f32);
        }
        t.left.push(left as i32);
    }
    Ok(t)
}

/// Whether the horizontal pass goes first: the order that costs less, counting a horizontal
/// pass as twice a vertical one.
fn h_first(xscale: f64, yscale: f64) -> bool {
    let h = xscale.max(1.0) * 2.0 + xscale * yscale.max(1.0);
    let v = yscale.max(1.0) + yscale * xscale.max(1.0) * 2.0;
    h < v
}

/// How far a chroma sample sits before the centre of the luma samples it covers, in chroma
/// samples, along a direction subsampled by `2^ss`: `cosited` for left/top siting, `-cosited`
/// for bottom.
fn siting(ss: i32, sign: f64) -> f64 {
    if ss == 0 {
        0.0
    } else {
        sign * (1.0 - 1.0 / (1 << ss) as f64) / 2.0
    }
}

/// Horizontal and vertical siting signs of a chroma location (0 left, 1 center, 2 top left,
/// 3 top, 4 bottom left, 5 bottom).
fn loc_signs(loc: i32) -> (f64, f64) {
    let h = if loc % 2 == 0 { 1.0 } else { 0.0 };
    let v = match loc {
        2 | 3 => 1.0,
        4 | 5 => -1.0,
        _ => 0.0,
    };
    (h, v)
}

/// Everything about a resize that does not depend on the frames.
#[derive(Clone, Debug)]
struct Plan {
    name: &'static str,
    kernel: Kernel,
    format: VSVideoFormat,
    src: (i32, i32),
    dst: (i32, i32),
    /// src_left, src_top, src_width, src_height
    window: [f64; 4],
}

const H_INT: &str = "
    int l = tb1(x), b = x * TAPS, acc = 0;
    for (int j = 0; j < TAPS; j++) acc += tb2(b + j) * ((ld0(l + j, y) << UP) - 32768);
    int v = clamp(((acc + 8192) >> 14) + 32768, 0, PMAX);
    if (DOWN8 != 0) v = min((v + 127 + ((v >> 8) & 1)) >> 8, 255);
    st(x, y, v);";
const V_INT: &str = "
    int l = tb1(y), b = y * TAPS, acc = 0;
    for (int j = 0; j < TAPS; j++) acc += tb2(b + j) * ((ld0(x, l + j) << UP) - 32768);
    int v = clamp(((acc + 8192) >> 14) + 32768, 0, PMAX);
    if (DOWN8 != 0) v = min((v + 127 + ((v >> 8) & 1)) >> 8, 255);
    st(x, y, v);";
const H_FLOAT: &str = "
    int l = tb1(x), b = x * TAPS;
    precise float acc = 0.0;
    for (int j = 0; j < TAPS; j++) acc = acc + tb2(b + j) * ld0(l + j, y);
    st(x, y, acc);";
const V_FLOAT: &str = "
    int l = tb1(y), b = y * TAPS;
    precise float acc = 0.0;
    for (int j = 0; j < TAPS; j++) acc = acc + tb2(b + j) * ld0(x, l + j);
    st(x, y, acc);";

impl Plan {
    /// The program for chroma sited at `loc_in` on the input and `loc_out` on the output.
    fn program(&self, core: Core, loc_in: i32, loc_out: i32) -> Result<Program> {
        let f = self.format;
        let mut prog = Program::new(core, f, self.dst.0, self.dst.1)?;
        let st = St::of(&f);
        let float = st.is_float();
        let mid = if st == St::F16 { St::F16 } else if float { St::F32 } else { St::I32 };
        let eight = st == St::U8;
        let pmax = if eight { 65535 } else { (1i32 << f.bitsPerSample) - 1 };
        let [left, top, ww, wh] = self.window;
        for p in 0..f.numPlanes as usize {
            let (ssw, ssh) = if p == 0 || f.colorFamily != cfYUV { (0, 0) } else { (f.subSamplingW, f.subSamplingH) };
            let (sw, sh) = plane_size(&f, self.src.0, self.src.1, p);
            let (dw, dh) = plane_size(&f, self.dst.0, self.dst.1, p);
            let (sx, sy) = ((1 << ssw) as f64, (1 << ssh) as f64);
            let (in_h, in_v) = loc_signs(loc_in);
            let (out_h, out_v) = loc_signs(loc_out);
            let (cw, ch) = (ww / sx, wh / sy);
            let (xscale, yscale) = (dw as f64 / cw, dh as f64 / ch);
            let xshift = left / sx + siting(ssw, in_h) - siting(ssw, out_h) / xscale;
            let yshift = top / sy + siting(ssh, in_v) - siting(ssh, out_v) / yscale;
            let need_h = sw != dw || xshift != 0.0 || cw != sw as f64;
            let need_v = sh != dh || yshift != 0.0 || ch != sh as f64;
            let mut passes = Vec::new();
            if need_h {
                passes.push((true, taps(self.kernel, sw as usize, dw as usize, xshift, cw)?));
            }
            if need_v {
                passes.push((false, taps(self.kernel, sh as usize, dh as usize, yshift, ch)?));
            }
            if passes.len() == 2 && !h_first(xscale, yscale) {
                passes.swap(0, 1);
            }
            if passes.is_empty() {
                prog.copies.push((0, p, p));
                continue;
            }
            let n = passes.len();
            let mut from = Src::Plane { input: 0, plane: p };
            let mut size = (sw, sh);
            for (i, (horizontal, t)) in passes.into_iter().enumerate() {
                let last = i + 1 == n;
                size = if horizontal { (dw, size.1) } else { (size.0, dh) };
                let src_st = if i == 0 { st } else { mid };
                let dst_st = if last { st } else { mid };
                let defines = format!(
                    "#define TAPS {}\n#define UP {}\n#define PMAX {pmax}\n#define DOWN8 {}\n",
                    t.width,
                    if eight && i == 0 { 8 } else { 0 },
                    (eight && last) as i32
                );
                let body = match (float, horizontal) {
                    (false, true) => H_INT,
                    (false, false) => V_INT,
                    (true, true) => H_FLOAT,
                    (true, false) => V_FLOAT,
                };
                let coef_st = if float { St::F32 } else { St::I32 };
                let pipe = prog.kernel(dst_st, &[src_st, St::I32, coef_st], &defines, "", body)?;
                let lefts = prog.table(&t.left)?;
                let coefs = if float { prog.table(&t.float)? } else { prog.table(&t.fixed)? };
                let dst = if last {
                    Dst::Plane(p)
                } else {
                    prog.scratch.push(Scratch { w: size.0, h: size.1 });
                    Dst::Scratch(prog.scratch.len() - 1)
                };
                prog.jobs.push(Job { pipe, dst, srcs: vec![from, Src::Table(lefts), Src::Table(coefs)], grid: size, k: [0; 12], barrier: i > 0 });
                if let Dst::Scratch(s) = dst {
                    from = Src::Scratch(s);
                }
            }
        }
        Ok(prog)
    }
}

fn create(a: &Args, out: &mut Out, core: Core, name: &'static str) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = clip.video_info()?;
    check_format(&vi)?;
    let f = vi.format;
    let width = a.int("width")?.unwrap_or(vi.width as i64);
    let height = a.int("height")?.unwrap_or(vi.height as i64);
    if let Some(id) = a.int("format")? {
        let own = ((f.colorFamily as i64) << 28) | ((f.sampleType as i64) << 24) | ((f.bitsPerSample as i64) << 16) | ((f.subSamplingW as i64) << 8) | f.subSamplingH as i64;
        if id != own {
            return Err(Error::invalid(format!("vk resizers keep the clip's format ({}); use resize.{name} to convert formats", Core::format_name(&f))));
        }
    }
    if width <= 0 || height <= 0 || width > i32::MAX as i64 || height > i32::MAX as i64 {
        return Err(Error::invalid("width and height must be positive"));
    }
    if width % (1 << f.subSamplingW) != 0 || height % (1 << f.subSamplingH) != 0 {
        return Err(Error::invalid("image dimensions must be divisible by subsampling factor"));
    }
    let pa = a.float("filter_param_a")?;
    let pb = a.float("filter_param_b")?;
    let kernel = match name {
        "Point" => Kernel::Point,
        "Bilinear" => Kernel::Bilinear,
        "Bicubic" => Kernel::Bicubic(pa.filter(|v| !v.is_nan()).unwrap_or(0.0), pb.filter(|v| !v.is_nan()).unwrap_or(0.5)),
        "Lanczos" => {
            let t = pa.filter(|v| !v.is_nan()).unwrap_or(3.0).clamp(1.0, u32::MAX as f64).trunc();
            if t >= 16.0 {
                return Err(Error::invalid("lanczos tap count too high"));
            }
            Kernel::Lanczos(t as u32)
        }
        "Spline16" => Kernel::Spline16,
        "Spline36" => Kernel::Spline36,
        _ => Kernel::Spline64,
    };
    let window = [
        a.float("src_left")?.unwrap_or(0.0),
        a.float("src_top")?.unwrap_or(0.0),
        a.float("src_width")?.unwrap_or(vi.width as f64),
        a.float("src_height")?.unwrap_or(vi.height as f64),
    ];
    if window.iter().any(|v| !v.is_finite()) {
        return Err(Error::invalid("src_left, src_top, src_width and src_height must be finite"));
    }
    if window[2] <= 0.0 || window[3] <= 0.0 {
        return Err(Error::invalid("active window must be positive"));
    }
    let loc = |key: &str| -> Result<Option<i32>> {
        match a.int(key)? {
            Some(v) if !(0..=5).contains(&v) => Err(Error::invalid(format!("{key}: unrecognized chroma location {v}"))),
            v => Ok(v.map(|v| v as i32)),
        }
    };
    let (loc_in, loc_out) = (loc("chromaloc_in")?, loc("chromaloc")?);
    let plan = Plan { name, kernel, format: f, src: (vi.width, vi.height), dst: (width as i32, height as i32), window };
    // built now so that a bad window or kernel fails the call, not the first frame
    let first = plan.program(core, loc_in.unwrap_or(0), loc_out.or(loc_in).unwrap_or(0))?;
    let subsampled = f.colorFamily == cfYUV && (f.subSamplingW != 0 || f.subSamplingH != 0);
    let key = if subsampled { (loc_in.unwrap_or(0), loc_out.or(loc_in).unwrap_or(0)) } else { (0, 0) };
    let mut info = vi;
    info.width = width as i32;
    info.height = height as i32;
    let r = Resize { plan, loc_in, loc_out, subsampled, programs: Mutex::new(HashMap::from([(key, Arc::new(first))])) };
    filter::create(out, core, Spec { name: name.into(), info, inputs: vec![clip], gpu_output: true }, r);
    Ok(())
}

struct Resize {
    plan: Plan,
    loc_in: Option<i32>,
    loc_out: Option<i32>,
    subsampled: bool,
    /// by (input, output) chroma location; one entry unless the frames' siting varies
    programs: Mutex<HashMap<(i32, i32), Arc<Program>>>,
}

/// A colour property that is present and not "unspecified" (2).
fn given(p: &PropsRef<'_>, key: &str) -> Option<i64> {
    p.int(key).filter(|&v| v != 2)
}

impl Filter for Resize {
    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let name = self.plan.name;
        let props = frames[0].props();
        if props.int("_Field").is_some() || matches!(props.int("_FieldBased"), Some(1) | Some(2)) {
            return Err(Error::invalid(format!("interlaced frames (_FieldBased) and single fields (_Field) are not supported; resize.{name} handles them")));
        }
        let range = match props.int("_Range") {
            Some(v @ (0 | 1)) => Some(v),
            Some(v) => return Err(Error::invalid(format!("bad _Range value: {v}"))),
            // the pre-API-4.2 property, whose values are swapped
            None => match props.int("_ColorRange") {
                Some(0) => Some(1),
                Some(1) => Some(0),
                _ => None,
            },
        };
        let key = if self.subsampled {
            let li = match self.loc_in {
                Some(v) => v,
                None => match props.int("_ChromaLocation") {
                    None => 0,
                    Some(v) if (0..=5).contains(&v) => v as i32,
                    Some(v) => return Err(Error::invalid(format!("unrecognized chroma location {v}"))),
                },
            };
            (li, self.loc_out.unwrap_or(li))
        } else {
            (0, 0)
        };
        let prog = {
            let mut progs = self.programs.lock().map_err(|_| Error::invalid("a previous frame panicked"))?;
            match progs.get(&key) {
                Some(p) => p.clone(),
                None => {
                    let p = Arc::new(self.plan.program(core, key.0, key.1)?);
                    progs.insert(key, p.clone());
                    p
                }
            }
        };
        let rgb = self.plan.format.colorFamily == cfRGB;
        let matrix = given(&props, "_Matrix");
        if rgb && matrix.is_some_and(|m| m != 0) {
            return Err(Error::invalid("RGB color family cannot have YUV matrix coefficients"));
        }
        let matrix = matrix.unwrap_or(if rgb { 0 } else { 2 });
        let transfer = given(&props, "_Transfer").unwrap_or(2);
        let primaries = given(&props, "_Primaries").unwrap_or(2);
        let range = range.unwrap_or(rgb as i64);
        drop(props);
        prog.run_then(&frames, |p: &mut PropsMut<'_>| {
            // first: R81 takes the pre-4.2 name as an alias of _Range, deleting both
            p.delete("_ColorRange");
            p.set_int("_Matrix", matrix);
            p.set_int("_Transfer", transfer);
            p.set_int("_Primaries", primaries);
            p.set_int("_Range", range);
            if self.subsampled {
                p.set_int("_ChromaLocation", key.1 as i64);
            } else {
                p.delete("_ChromaLocation");
            }
        })
    }
}
