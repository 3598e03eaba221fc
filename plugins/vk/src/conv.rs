//! Convolution, with std's arguments and R81's arithmetic, plus what BoxBlur, Sobel and Prewitt
//! share with it: std's argument checks and two exactly rounded operations in GLSL.
//!
//! Integer formats: the exact integer sum (two 32-bit halves where it could overflow), converted
//! to single precision with one rounding, then `sum * (1/divisor) + bias` with one rounding (a
//! fused multiply-add), rounded to nearest even, made positive unless saturating, clamped.
//! Float formats: single precision in the order of R81's SIMD build (its default), except for
//! half samples outside the 3x3 kernel, which R81 runs through its plain C code and so do we.
//!
//! GLSL's `fma` need not be fused (lavapipe rounds twice) and the core's device need not offer
//! 64-bit floats or integers, so the fused multiply-add is emulated in single precision (`fmaE`):
//! the product split exactly (Dekker), added exactly to the addend (two-sum), the two small
//! remainders added with rounding to odd, and one final rounding to nearest; this gives the
//! correctly rounded `a * b + c` for operands whose product neither overflows nor underflows
//! (Boldo and Melquiond's emulation). Every step is `precise` so nothing is contracted.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::node::Node;
use vsvk_plugin_api::{Error, Result};

use crate::kernel::*;
use crate::{finish, Reg};

pub fn register(r: &Reg) {
    r.function(
        "Convolution",
        "clip:vnode:gpu;matrix:float[];bias:float:opt;divisor:float:opt;planes:int[]:opt;saturate:int:opt;mode:data:opt;",
        convolution,
    );
}

/// GLSL: `fmaE(a, b, c)`, the correctly rounded `a * b + c`; `sqrtRN(s)`, the correctly rounded
/// square root (Vulkan bounds `sqrt` only to a few units in the last place); `symI(i, n)`, the
/// index mirrored into 0..n with the edge sample repeated, as often as needed.
pub const EXACT: &str = "
float fmaE(float a, float b, float c) {
    precise float p = a * b;
    if (p == 0.0) { precise float z = c + p; return z; }
    precise float ca = 4097.0 * a; precise float ah = ca - (ca - a); precise float al = a - ah;
    precise float cb = 4097.0 * b; precise float bh = cb - (cb - b); precise float bl = b - bh;
    precise float pl = (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
    precise float th = c + p; precise float t1 = th - c; precise float tl = (c - (th - t1)) + (p - t1);
    precise float s = tl + pl; precise float s1 = s - tl; precise float se = (tl - (s - s1)) + (pl - s1);
    uint sb = floatBitsToUint(s);
    // round to odd: an inexact even result moves one unit towards the exact value
    if (se != 0.0 && (sb & 1u) == 0u) sb = ((se > 0.0) == (s > 0.0)) ? sb + 1u : sb - 1u;
    precise float r = th + uintBitsToFloat(sb);
    return r;
}
float sqrtRN(float s) {
    if (!(s > 0.0) || isinf(s)) return sqrt(s);
    float r = sqrt(s);
    // r is right when r * prev(r) < s <= r * next(r); the signs of the exact residuals decide
    for (int i = 0; i < 8; i++) {
        float nx = uintBitsToFloat(floatBitsToUint(r) + 1u), pv = uintBitsToFloat(floatBitsToUint(r) - 1u);
        if (fmaE(-r, nx, s) > 0.0) r = nx;
        else if (fmaE(-r, pv, s) <= 0.0) r = pv;
        else break;
    }
    return r;
}
int symI(int i, int n) {
    int n2 = 2 * n;
    int m = i >= 0 ? i % n2 : n2 - 1 - ((-i - 1) % n2);
    return m < n ? m : n2 - 1 - m;
}
";

/// What std checks first for every filter here: the clip's format and the planes argument.
pub struct Common {
    pub clip: Node,
    pub vi: VSVideoInfo,
    pub planes: [bool; 3],
}

pub fn common(a: &Args) -> Result<Common> {
    let clip = a.node("clip")?;
    let vi = clip.video_info()?;
    let f = vi.format;
    let ok = f.colorFamily != cfUndefined
        && ((f.sampleType == stInteger && (8..=16).contains(&f.bitsPerSample)) || (f.sampleType == stFloat && (f.bitsPerSample == 16 || f.bitsPerSample == 32)));
    if !ok {
        let name = if f.colorFamily == cfUndefined { "Undefined".to_string() } else { Core::format_name(&f) };
        return Err(Error::invalid(format!("Input clip must be constant format 8..16 bit integer or 16-32 bit float, passed {name}.")));
    }
    let planes = planes_arg(a.ints("planes")?, f.numPlanes)?;
    Ok(Common { clip, vi, planes })
}

/// std's size check: processed planes of at least 4x4 (clips of varying size pass it).
pub fn check_min_size(c: &Common) -> Result<()> {
    if c.vi.width == 0 || c.vi.height == 0 {
        return Ok(());
    }
    for p in 0..3 {
        if c.planes[p] {
            let (w, h) = plane_size(&c.vi.format, c.vi.width, c.vi.height, p);
            if w < 4 || h < 4 {
                return Err(Error::invalid("Cannot process planes smaller than 4x4."));
            }
        }
    }
    Ok(())
}

/// Every std check passed, what a GPU program needs on top: one size for every frame.
pub fn check_constant(c: &Common) -> Result<()> {
    if c.vi.width <= 0 || c.vi.height <= 0 {
        return Err(Error::invalid("the clip must have constant dimensions"));
    }
    Ok(())
}

pub fn max_value(f: &VSVideoFormat) -> i32 {
    ((1i64 << f.bitsPerSample) - 1) as i32
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Square,
    H,
    V,
    HV,
}

/// How a float chain adds each product: fused (`acc = m * v + acc`, one rounding) or not.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Fma,
    Add,
}

/// A tap: offsets from the output sample and its coefficient.
type Tap = (i32, i32, f32);

/// GLSL adding `taps` to the precise float `acc`, in order.
fn chain(acc: &str, taps: &[Tap], op: Op) -> String {
    let mut s = String::new();
    for &(dx, dy, m) in taps {
        let v = format!("ld0(cx[{}], ry[{}])", dx + 12, dy + 12);
        match op {
            Op::Fma => s += &format!("    {acc} = fmaE({}, {v}, {acc});\n", flt(m)),
            Op::Add => s += &format!("    {{ precise float p_ = {} * {v}; {acc} = {acc} + p_; }}\n", flt(m)),
        }
    }
    s
}

/// What every convolution kernel's body starts with: the mirrored column and row of each offset
/// (index = offset + 12).
fn coords(r: i32, dxs: bool, dys: bool) -> String {
    let mut s = String::from("    int cx[25]; int ry[25];\n");
    for d in -r..=r {
        s += &format!("    cx[{}] = {};\n", d + 12, if dxs { format!("symI(x + ({d}), W)") } else { "x".into() });
        s += &format!("    ry[{}] = {};\n", d + 12, if dys { format!("symI(y + ({d}), H)") } else { "y".into() });
    }
    s
}

struct Conv {
    taps: usize,
    mi: Vec<i32>,
    mf: Vec<f32>,
    rdiv: f32,
    bias: f32,
    saturate: bool,
    max: i32,
}

impl Conv {
    /// The last step of a pass on float samples: `acc * rdiv + bias` fused, made positive unless
    /// saturating, rounded to half when `half_mid` (half samples stored between passes).
    fn float_finish(&self, half_mid: bool) -> String {
        let mut s = format!("    float o = fmaE(acc, {}, {});\n", flt(self.rdiv), flt(self.bias));
        if !self.saturate {
            s += "    o = abs(o);\n";
        }
        if half_mid {
            s += "    o = h2f(f2h(o));\n";
        }
        s += "    st(x, y, o);\n";
        s
    }

    /// An integer pass: taps as (dx, dy, coefficient); `bits` of the samples read.
    fn int_body(&self, taps: &[(i32, i32, i32)], r: i32, dxs: bool, dys: bool, bits: i32) -> String {
        let mut s = coords(r, dxs, dys);
        let sum_bound: i64 = taps.iter().map(|t| (t.2 as i64).abs()).sum::<i64>() * ((1i64 << bits) - 1);
        let wide = sum_bound > i32::MAX as i64;
        if wide {
            // the sum of the high bytes' and the low bytes' products, each within 32 bits
            s += "    int ah = 0, al = 0;\n";
            for &(dx, dy, m) in taps {
                s += &format!("    {{ int v = ld0(cx[{}], ry[{}]); ah += {m} * (v >> 8); al += {m} * (v & 255); }}\n", dx + 12, dy + 12);
            }
            // sum = ah * 256 + al = yy * 256 + r0 with 0 <= r0 < 256 = (yy >> 12) * 2^20 + rest
            s += "    int yy = ah + (al >> 8), r0 = al & 255;\n    int hi = yy >> 12, lo = (yy & 4095) * 256 + r0;\n";
        } else {
            s += "    int acc = 0;\n";
            for &(dx, dy, m) in taps {
                s += &format!("    acc += {m} * ld0(cx[{}], ry[{}]);\n", dx + 12, dy + 12);
            }
            s += "    int hi = acc >> 20, lo = acc & 1048575;\n";
        }
        // both parts are exact in single precision, so one precise addition rounds the sum once
        s += "    precise float sf = float(hi) * 1048576.0 + float(lo);\n";
        s += &format!("    float o = roundEven(fmaE(sf, {}, {}));\n", flt(self.rdiv), flt(self.bias));
        if !self.saturate {
            s += "    o = abs(o);\n";
        }
        s += &format!("    st(x, y, int(min(max(o, 0.0), {}.0)));\n", self.max);
        s
    }
}

fn convolution(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let c = common(a)?;
    let fmt = c.vi.format;
    let mode = match a.strings("mode")?.map(|v| v[0].clone()).as_deref() {
        None | Some("s") => Mode::Square,
        Some("h") => Mode::H,
        Some("v") => Mode::V,
        Some("hv") | Some("vh") => Mode::HV,
        _ => return Err(Error::invalid("mode must be one of 's', 'h', 'v', 'hv', 'vh'.")),
    };
    let matrix = a.floats("matrix")?.unwrap_or_default();
    let n = matrix.len();
    let taps = if mode == Mode::Square {
        match n {
            9 => 3,
            25 => 5,
            49 => 7,
            81 => 9,
            121 => 11,
            _ => {
                return Err(Error::invalid(
                    "When mode starts with 's', matrix must contain exactly 9, 25, 49, 81 or 121 numbers (a 3x3, 5x5, 7x7, 9x9 or 11x11 square).",
                ))
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
    if c.vi.width != 0 && c.vi.height != 0 && mode != Mode::Square {
        let radius = (taps / 2) as i32;
        for p in 0..3 {
            if !c.planes[p] {
                continue;
            }
            let (w, h) = plane_size(&fmt, c.vi.width, c.vi.height, p);
            if matches!(mode, Mode::H | Mode::HV) && w <= radius {
                return Err(Error::invalid("Width must be bigger than convolution radius."));
            }
            if matches!(mode, Mode::V | Mode::HV) && h <= radius {
                return Err(Error::invalid("Height must be bigger than convolution radius."));
            }
        }
    }
    check_constant(&c)?;
    let job = Conv { taps, mi, mf, rdiv: 1.0 / divisor, bias, saturate, max: max_value(&fmt) };

    let mut prog = Program::new(core, fmt, c.vi.width, c.vi.height)?;
    let t = St::of(&fmt);
    let half = t == St::F16;
    let helpers = EXACT;
    if mode == Mode::HV {
        prog.scratch.push(Scratch { w: c.vi.width, h: c.vi.height });
    }
    let n = job.taps;
    let r = (n / 2) as i32;
    for p in 0..fmt.numPlanes as usize {
        if !c.planes[p] {
            prog.copies.push((0, p, p));
            continue;
        }
        let (w, _) = prog.plane_size(p);
        let plane = Src::Plane { input: 0, plane: p };
        if !float {
            let bits = fmt.bitsPerSample;
            let line = |vertical: bool| -> Vec<(i32, i32, i32)> {
                (0..n).map(|k| if vertical { (0, k as i32 - r, job.mi[k]) } else { (k as i32 - r, 0, job.mi[k]) }).collect()
            };
            let nz = |v: Vec<(i32, i32, i32)>| -> Vec<(i32, i32, i32)> { v.into_iter().filter(|t| t.2 != 0).collect() };
            match mode {
                Mode::Square => {
                    let sq: Vec<(i32, i32, i32)> = (0..n * n).map(|i| ((i % n) as i32 - r, (i / n) as i32 - r, job.mi[i])).collect();
                    let k = prog.kernel(t, &[t], "", helpers, &job.int_body(&nz(sq), r, true, true, bits))?;
                    prog.plane_job(k, p, vec![plane]);
                }
                Mode::H | Mode::V => {
                    let v = mode == Mode::V;
                    let k = prog.kernel(t, &[t], "", helpers, &job.int_body(&nz(line(v)), r, !v, v, bits))?;
                    prog.plane_job(k, p, vec![plane]);
                }
                Mode::HV => {
                    // the vertical pass first, finished and clamped like a whole convolution
                    let kv = prog.kernel(St::I32, &[t], "", helpers, &job.int_body(&nz(line(true)), r, false, true, bits))?;
                    let kh = prog.kernel(t, &[St::I32], "", helpers, &job.int_body(&nz(line(false)), r, true, false, bits))?;
                    let grid = prog.plane_size(p);
                    prog.jobs.push(Job { pipe: kv, dst: Dst::Scratch(0), srcs: vec![plane], grid, k: [0; 12], barrier: !prog.jobs.is_empty() });
                    prog.jobs.push(Job { pipe: kh, dst: Dst::Plane(p), srcs: vec![Src::Scratch(0)], grid, k: [0; 12], barrier: true });
                }
            }
            continue;
        }
        // float: R81's SIMD orders, or its plain C ones for half samples outside 3x3
        let plain = half && !(mode == Mode::Square && n == 3);
        match mode {
            Mode::Square => {
                let body = coords(r, true, true) + &float_square(&job, w, plain);
                let k = prog.kernel(t, &[t], "", helpers, &body)?;
                prog.plane_job(k, p, vec![plane]);
            }
            Mode::H | Mode::V => {
                let v = mode == Mode::V;
                let body = coords(r, !v, v) + &float_line(&job, w, v, plain, false);
                let k = prog.kernel(t, &[t], "", helpers, &body)?;
                prog.plane_job(k, p, vec![plane]);
            }
            Mode::HV => {
                let bv = coords(r, false, true) + &float_line(&job, w, true, plain, half);
                let bh = coords(r, true, false) + &float_line(&job, w, false, plain, false);
                let kv = prog.kernel(St::F32, &[t], "", helpers, &bv)?;
                let kh = prog.kernel(t, &[St::F32], "", helpers, &bh)?;
                let grid = prog.plane_size(p);
                prog.jobs.push(Job { pipe: kv, dst: Dst::Scratch(0), srcs: vec![plane], grid, k: [0; 12], barrier: !prog.jobs.is_empty() });
                prog.jobs.push(Job { pipe: kh, dst: Dst::Plane(p), srcs: vec![Src::Scratch(0)], grid, k: [0; 12], barrier: true });
            }
        }
    }
    finish(out, core, "Convolution", c.vi, vec![c.clip], prog)
}

/// A square kernel on float samples for a plane `w` wide.
fn float_square(job: &Conv, w: i32, plain: bool) -> String {
    let n = job.taps;
    let r = (n / 2) as i32;
    let tap = |ky: usize, kx: usize| -> Tap { (kx as i32 - r, ky as i32 - r, job.mf[ky * n + kx]) };
    let rows: Vec<Tap> = (0..n).flat_map(|y| (0..n).map(move |x| (y, x))).map(|(y, x)| tap(y, x)).collect();
    let cols: Vec<Tap> = (0..n).flat_map(|x| (0..n).map(move |y| (y, x))).map(|(y, x)| tap(y, x)).collect();
    let mut s = String::from("    precise float acc = 0.0;\n");
    if n == 3 && !plain {
        // R81's SIMD 3x3: coefficients divided first, even and odd taps in two fused chains, the
        // bias added to the odd one, then the even one
        let m: Vec<Tap> = rows.iter().map(|&(dx, dy, m)| (dx, dy, m * job.rdiv)).collect();
        let even: Vec<Tap> = m.iter().copied().step_by(2).collect();
        let odd: Vec<Tap> = m.iter().copied().skip(1).step_by(2).collect();
        s += "    precise float e = 0.0, od = 0.0;\n";
        s += &chain("e", &even, Op::Fma);
        s += &chain("od", &odd, Op::Fma);
        s += &format!("    precise float o = (od + {}) + e;\n", flt(job.bias));
        if !job.saturate {
            s += "    o = abs(o);\n";
        }
        s += "    st(x, y, o);\n";
        return s;
    }
    // (columns where the inner order applies, inner order, inner op, outer op): the outer order
    // is always column by column
    let (inner, outer_op, inner_op, lo, hi) = if plain {
        // the plain C code: 5x5 fuses, 7x7 does not, 9x9 and 11x11 fuse over the interior
        // sixteen columns at a time and not elsewhere
        match n {
            5 => (&cols, Op::Fma, Op::Fma, 0, 0),
            7 => (&cols, Op::Add, Op::Add, 0, 0),
            _ => {
                let l = r.min(w);
                (&cols, Op::Add, Op::Fma, l, l + ((w - 2 * r).max(0) / 16) * 16)
            }
        }
    } else {
        // the SIMD code takes the interior in row order, fused, when it is at least 32 wide; the
        // rest goes through the plain code as built for the SIMD level (5x5 fused, larger not)
        let edge_op = if n == 5 { Op::Fma } else { Op::Add };
        if w >= 2 * r + 32 {
            (&rows, edge_op, Op::Fma, r, w - r)
        } else {
            (&cols, edge_op, edge_op, 0, 0)
        }
    };
    if lo < hi {
        s += &format!("    if (x >= {lo} && x < {hi}) {{\n");
        s += &chain("acc", inner, inner_op);
        s += "    } else {\n";
        s += &chain("acc", &cols, outer_op);
        s += "    }\n";
    } else {
        s += &chain("acc", &cols, outer_op);
    }
    s + &job.float_finish(false)
}

/// A horizontal or vertical pass on float samples for a plane `w` wide.
fn float_line(job: &Conv, w: i32, vertical: bool, plain: bool, half_mid: bool) -> String {
    let n = job.taps;
    let r = (n / 2) as i32;
    let all: Vec<Tap> = (0..n).map(|k| if vertical { (0, k as i32 - r, job.mf[k]) } else { (k as i32 - r, 0, job.mf[k]) }).collect();
    let mut s = String::from("    precise float acc = 0.0;\n");
    if plain {
        if vertical {
            s += &chain("acc", &all, Op::Add);
        } else {
            // the interior adds rounded products; the edge columns of the half build fuse
            let e = r.min(w);
            let st = (w - r).max(e);
            s += &format!("    if (x >= {e} && x < {st}) {{\n");
            s += &chain("acc", &all, Op::Add);
            s += "    } else {\n";
            s += &chain("acc", &all, Op::Fma);
            s += "    }\n";
        }
    } else if n <= 10 {
        // even and odd taps in two fused chains, added, then finished
        let even: Vec<Tap> = all.iter().copied().step_by(2).collect();
        let odd: Vec<Tap> = all.iter().copied().skip(1).step_by(2).collect();
        s += "    precise float e = 0.0, od = 0.0;\n";
        s += &chain("e", &even, Op::Fma);
        s += &chain("od", &odd, Op::Fma);
        s += "    acc = e + od;\n";
    } else {
        // blocks of ten taps: the even ones continue the sum so far, the odd ones start afresh
        s += "    precise float od;\n";
        for block in (0..n).step_by(10) {
            let end = (block + 10).min(n);
            let even: Vec<Tap> = (block..end).step_by(2).map(|k| all[k]).collect();
            let odd: Vec<Tap> = (block + 1..end).step_by(2).map(|k| all[k]).collect();
            s += &chain("acc", &even, Op::Fma);
            s += "    od = 0.0;\n";
            s += &chain("od", &odd, Op::Fma);
            s += "    acc = acc + od;\n";
        }
    }
    s + &job.float_finish(half_mid)
}
