//! Invert, InvertMask, Limiter, Levels, Binarize, BinarizeMask, Lut, Lut2, Merge, MaskedMerge,
//! MakeDiff, MergeDiff: std's arithmetic per sample, as one kernel per plane.
//!
//! Integer results are std's exactly (the same integer formulas; Levels goes through a table
//! built on the host with std's own single precision steps). Float results are std's exactly too
//! wherever std does plain IEEE operations (`precise` arithmetic; MaskedMerge's fused
//! multiply-adds emulated exactly, Merge's `fma`, which lavapipe does not fuse, within one unit
//! in the last place); Levels with a gamma other than 1 calls `pow`, whose GPU precision Vulkan
//! bounds only loosely. What R81's MaskedMerge does with one mask plane on subsampled chroma
//! and with premultiplied integer clips was learned from its output (see `chroma_mask` and
//! `MaskedMerge::program`).
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, PropsRef};
use vsvk_plugin_api::map::{Args, Out, Value};
use vsvk_plugin_api::{Error, Result};

use crate::kernel::*;
use crate::{finish, Reg};

pub fn register(r: &Reg) {
    r.function("Invert", "clip:vnode:gpu;planes:int[]:opt;", |a, o, c| invert(a, o, c, false));
    r.function("InvertMask", "clip:vnode:gpu;planes:int[]:opt;", |a, o, c| invert(a, o, c, true));
    r.function("Limiter", "clip:vnode:gpu;min:float[]:opt;max:float[]:opt;planes:int[]:opt;", limiter);
    r.function("Levels", "clip:vnode:gpu;min_in:float[]:opt;max_in:float[]:opt;gamma:float[]:opt;min_out:float[]:opt;max_out:float[]:opt;planes:int[]:opt;", levels);
    r.function("Binarize", "clip:vnode:gpu;threshold:float[]:opt;v0:float[]:opt;v1:float[]:opt;planes:int[]:opt;", |a, o, c| binarize(a, o, c, false));
    r.function("BinarizeMask", "clip:vnode:gpu;threshold:float[]:opt;v0:float[]:opt;v1:float[]:opt;planes:int[]:opt;", |a, o, c| binarize(a, o, c, true));
    r.function("Lut", "clip:vnode:gpu;planes:int[]:opt;lut:int[]:opt;lutf:float[]:opt;function:func:opt;bits:int:opt;floatout:int:opt;", |a, o, c| lut(a, o, c, false));
    r.function(
        "Lut2",
        "clipa:vnode:gpu;clipb:vnode:gpu;planes:int[]:opt;lut:int[]:opt;lutf:float[]:opt;function:func:opt;bits:int:opt;floatout:int:opt;",
        |a, o, c| lut(a, o, c, true),
    );
    r.function("Merge", "clipa:vnode:gpu;clipb:vnode:gpu;weight:float[]:opt;", merge);
    r.function("MaskedMerge", "clipa:vnode:gpu;clipb:vnode:gpu;mask:vnode:gpu;planes:int[]:opt;first_plane:int:opt;premultiplied:int:opt;", masked_merge);
    r.function("MakeDiff", "clipa:vnode:gpu;clipb:vnode:gpu;planes:int[]:opt;", |a, o, c| diff(a, o, c, true));
    r.function("MergeDiff", "clipa:vnode:gpu;clipb:vnode:gpu;planes:int[]:opt;", |a, o, c| diff(a, o, c, false));
}

fn is_chroma(f: &VSVideoFormat, p: usize) -> bool {
    f.colorFamily == cfYUV && p > 0
}

fn max_value(f: &VSVideoFormat) -> i64 {
    (1i64 << f.bitsPerSample) - 1
}

/// std's rounding of a float argument to an integer sample: add a half, truncate.
fn round_arg(v: f64) -> i64 {
    if v.is_nan() {
        i64::MIN
    } else {
        (v + 0.5) as i64
    }
}

/// A one-input filter of the same format: `body(plane)` is the kernel body for a processed
/// plane; the others are copied.
fn simple(out: &mut Out, core: Core, name: &str, clip: vsvk_plugin_api::node::Node, planes: [bool; 3], body: impl Fn(usize) -> String) -> Result<()> {
    let vi = clip.video_info()?;
    let f = vi.format;
    let mut prog = Program::new(core, f, vi.width, vi.height)?;
    let t = St::of(&f);
    for p in 0..f.numPlanes as usize {
        if planes[p] {
            let k = prog.kernel(t, &[t], "", "", &body(p))?;
            prog.plane_job(k, p, vec![Src::Plane { input: 0, plane: p }]);
        } else {
            prog.copies.push((0, p, p));
        }
    }
    finish(out, core, name, vi, vec![clip], prog)
}

fn invert(a: &Args, out: &mut Out, core: Core, mask: bool) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = clip.video_info()?;
    check_format(&vi)?;
    let f = vi.format;
    let planes = planes_arg(a.ints("planes")?, f.numPlanes)?;
    let name = if mask { "InvertMask" } else { "Invert" };
    simple(out, core, name, clip, planes, |p| {
        if f.sampleType == stInteger {
            format!("st(x, y, {} - ld0(x, y));", max_value(&f))
        } else if !mask && is_chroma(&f, p) {
            "st(x, y, -ld0(x, y));".into()
        } else {
            "precise float v = 1.0 - ld0(x, y); st(x, y, v);".into()
        }
    })
}

fn limiter(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = clip.video_info()?;
    check_format(&vi)?;
    let f = vi.format;
    let np = f.numPlanes;
    let mins = plane_values(a.floats("min")?, "min", np)?;
    let maxs = plane_values(a.floats("max")?, "max", np)?;
    let planes = planes_arg(a.ints("planes")?, np)?;
    let float = f.sampleType == stFloat;
    let maxval = max_value(&f);
    let mut lo = [0f64; 3];
    let mut hi = [0f64; 3];
    for p in 0..np as usize {
        if float {
            let (dlo, dhi) = if is_chroma(&f, p) { (-0.5, 0.5) } else { (0.0, 1.0) };
            lo[p] = pick(&mins, p).unwrap_or(dlo);
            hi[p] = pick(&maxs, p).unwrap_or(dhi);
        } else {
            let int = |v: Option<f64>, def: i64, what: &str| -> Result<f64> {
                match v {
                    None => Ok(def as f64),
                    Some(v) => {
                        let r = round_arg(v);
                        if r < 0 || r > maxval {
                            Err(Error::invalid(format!("{what} out of range")))
                        } else {
                            Ok(r as f64)
                        }
                    }
                }
            };
            lo[p] = int(pick(&mins, p), 0, "min")?;
            hi[p] = int(pick(&maxs, p), maxval, "max")?;
        }
        if lo[p] > hi[p] {
            return Err(Error::invalid("min bigger than max"));
        }
    }
    simple(out, core, "Limiter", clip, planes, |p| {
        if float {
            format!("float l = {}, h = {}, v = ld0(x, y); float t = v > l ? v : l; st(x, y, t < h ? t : h);", flt(lo[p] as f32), flt(hi[p] as f32))
        } else {
            format!("st(x, y, clamp(ld0(x, y), {}, {}));", lo[p] as i64, hi[p] as i64)
        }
    })
}

fn binarize(a: &Args, out: &mut Out, core: Core, mask: bool) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = clip.video_info()?;
    check_format(&vi)?;
    let f = vi.format;
    let np = f.numPlanes;
    let thr = plane_values(a.floats("threshold")?, "threshold", np)?;
    let v0s = plane_values(a.floats("v0")?, "v0", np)?;
    let v1s = plane_values(a.floats("v1")?, "v1", np)?;
    let planes = planes_arg(a.ints("planes")?, np)?;
    let float = f.sampleType == stFloat;
    let maxval = max_value(&f);
    let mut bodies = Vec::new();
    for p in 0..np as usize {
        if float {
            let chroma = !mask && is_chroma(&f, p);
            let t = pick(&thr, p).unwrap_or(if chroma { 0.0 } else { 0.5 }) as f32;
            let v0 = pick(&v0s, p).unwrap_or(if chroma { -0.5 } else { 0.0 }) as f32;
            let v1 = pick(&v1s, p).unwrap_or(if chroma { 0.5 } else { 1.0 }) as f32;
            bodies.push(format!("st(x, y, ld0(x, y) < {} ? {} : {});", flt(t), flt(v0), flt(v1)));
        } else {
            let int = |v: Option<f64>, def: i64, what: &str| -> Result<i64> {
                match v {
                    None => Ok(def),
                    Some(v) => {
                        let r = round_arg(v);
                        if r < 0 || r > maxval {
                            Err(Error::invalid(format!("{what} out of range")))
                        } else {
                            Ok(r)
                        }
                    }
                }
            };
            let t = int(pick(&thr, p), 1 << (f.bitsPerSample - 1), "threshold")?;
            let v0 = int(pick(&v0s, p), 0, "v0")?;
            let v1 = int(pick(&v1s, p), maxval, "v1")?;
            bodies.push(format!("st(x, y, ld0(x, y) < {t} ? {v0} : {v1});"));
        }
    }
    simple(out, core, if mask { "BinarizeMask" } else { "Binarize" }, clip, planes, |p| bodies[p].clone())
}

fn levels(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = clip.video_info()?;
    check_format(&vi)?;
    let f = vi.format;
    let np = f.numPlanes;
    let vals = ["min_in", "max_in", "gamma", "min_out", "max_out"].map(|k| a.floats(k).and_then(|v| plane_values(v, k, np)));
    let [min_in, max_in, gamma, min_out, max_out] = vals;
    let (min_in, max_in, gamma, min_out, max_out) = (min_in?, max_in?, gamma?, min_out?, max_out?);
    let planes = planes_arg(a.ints("planes")?, np)?;
    let float = f.sampleType == stFloat;
    let maxval = max_value(&f);
    let top = if float { 1.0 } else { maxval as f64 };
    let mut params = [[0f64; 5]; 3];
    for p in 0..np as usize {
        let mut v = [
            pick(&min_in, p).unwrap_or(0.0),
            pick(&max_in, p).unwrap_or(top),
            pick(&gamma, p).unwrap_or(1.0),
            pick(&min_out, p).unwrap_or(0.0),
            pick(&max_out, p).unwrap_or(top),
        ];
        if v[1] <= v[0] {
            return Err(Error::invalid("max_in must be greater than min_in"));
        }
        if !(v[2].is_finite() && v[2] > 0.0) {
            return Err(Error::invalid("gamma must be finite and positive"));
        }
        if !float {
            for i in [0, 1, 3, 4] {
                v[i] = (v[i] + 0.5).floor();
            }
            if v[1] <= v[0] {
                return Err(Error::invalid("max_in and min_in are too close"));
            }
        }
        params[p] = v;
    }
    let mut prog = Program::new(core, f, vi.width, vi.height)?;
    let t = St::of(&f);
    for p in 0..np as usize {
        if !planes[p] {
            prog.copies.push((0, p, p));
            continue;
        }
        let [lo, hi, g, olo, ohi] = params[p].map(|v| v as f32);
        if float {
            let orange = ohi - olo;
            let body = if g == 1.0 {
                let scale = orange / (hi - lo);
                format!(
                    "float v = ld0(x, y), l = {}, h = {}; float c = v > l ? v : l; c = c < h ? c : h; precise float r = fma(c - l, {}, {}); st(x, y, r);",
                    flt(lo),
                    flt(hi),
                    flt(scale),
                    flt(olo)
                )
            } else {
                let rec = 1.0f32 / (hi - lo);
                format!(
                    "float v = ld0(x, y), l = {}, h = {}; float c = v > l ? v : l; c = c < h ? c : h; precise float n = (c - l) * {}; precise float r = fma(pow(n, {}), {}, {}); st(x, y, r);",
                    flt(lo),
                    flt(hi),
                    flt(rec),
                    flt(1.0 / g),
                    flt(orange),
                    flt(olo)
                )
            };
            let k = prog.kernel(t, &[t], "", "", &body)?;
            prog.plane_job(k, p, vec![Src::Plane { input: 0, plane: p }]);
        } else {
            let range = hi - lo;
            let e = 1.0f32 / g;
            let orange = ohi - olo;
            let size = 1usize << f.bitsPerSample;
            let table: Vec<i32> = (0..size)
                .map(|x| {
                    let v = (x as f32).max(lo).min(hi);
                    let v = (v - lo) / range;
                    let v = if g == 1.0 { v } else { v.powf(e) };
                    let o = v.mul_add(orange, olo);
                    (o + 0.5).floor().clamp(0.0, maxval as f32) as i32
                })
                .collect();
            let tb = prog.table(&table)?;
            let k = prog.kernel(t, &[t, St::I32], "", "", "st(x, y, tb1(ld0(x, y)));")?;
            prog.plane_job(k, p, vec![Src::Plane { input: 0, plane: p }, Src::Table(tb)]);
        }
    }
    finish(out, core, "Levels", vi, vec![clip], prog)
}

fn lut(a: &Args, out: &mut Out, core: Core, two: bool) -> Result<()> {
    let (ca, cb) = if two { (a.node("clipa")?, Some(a.node("clipb")?)) } else { (a.node("clip")?, None) };
    let va = ca.video_info()?;
    let vb = cb.as_ref().map(|c| c.video_info()).transpose()?;
    let int16 = |f: &VSVideoFormat| f.colorFamily != cfUndefined && f.sampleType == stInteger && f.bitsPerSample <= 16;
    if va.width <= 0 || va.height <= 0 {
        return Err(Error::invalid("only clips with constant format and dimensions supported"));
    }
    match &vb {
        None if !int16(&va.format) => return Err(Error::invalid("only clips with integer samples and up to 16 bits per channel precision supported")),
        Some(vb)
            if !(int16(&va.format)
                && int16(&vb.format)
                && va.width == vb.width
                && va.height == vb.height
                && va.format.subSamplingW == vb.format.subSamplingW
                && va.format.subSamplingH == vb.format.subSamplingH
                && va.format.bitsPerSample + vb.format.bitsPerSample <= 20) =>
        {
            return Err(Error::invalid("only clips with integer samples, same dimensions, same subsampling and up to a total of 20 indexing bits supported"))
        }
        _ => {}
    }
    let f = va.format;
    let floatout = a.bool("floatout", false)?;
    let bits = a.int("bits")?.unwrap_or(if floatout { 32 } else { f.bitsPerSample as i64 });
    let ofmt = match (floatout, bits) {
        (true, 32) => core.query_video_format(f.colorFamily, stFloat, 32, f.subSamplingW, f.subSamplingH),
        (false, 8..=16) => core.query_video_format(f.colorFamily, stInteger, bits as i32, f.subSamplingW, f.subSamplingH),
        _ => None,
    }
    .ok_or_else(|| Error::invalid("only 8-16 bit integer and 32 bit float output supported"))?;
    let planes = planes_arg(a.ints("planes")?, f.numPlanes)?;
    let (li, lf, func) = (a.ints("lut")?, a.floats("lutf")?, a.function("function")?);
    match li.is_some() as u32 + lf.is_some() as u32 + func.is_some() as u32 {
        0 => return Err(Error::invalid("none of lut, lutf and function are set")),
        1 => {}
        _ => return Err(Error::invalid("more than one of lut, lutf and function are set")),
    }
    if li.is_some() && floatout {
        return Err(Error::invalid("lut set but float output specified"));
    }
    if lf.is_some() && !floatout {
        return Err(Error::invalid("lutf set but float output not specified"));
    }
    let bits_a = f.bitsPerSample;
    let bits_b = vb.map_or(0, |v| v.format.bitsPerSample);
    let entries = 1usize << (bits_a + bits_b);
    let limit = 1i64 << ofmt.bitsPerSample;
    // the table as 32-bit words: ints, or float bits
    let table: Vec<u32> = if let Some(l) = li {
        if l.len() != entries {
            return Err(Error::invalid(format!("bad lut length. Expected {entries} elements, got {} instead", l.len())));
        }
        if let Some(&v) = l.iter().find(|&&v| v < 0 || v >= limit) {
            return Err(Error::invalid(format!("lut value {v} out of valid range [0,{limit}]")));
        }
        l.iter().map(|&v| v as u32).collect()
    } else if let Some(l) = lf {
        if l.len() != entries {
            return Err(Error::invalid(format!("bad lut length. Expected {entries} elements, got {} instead", l.len())));
        }
        l.iter().map(|&v| (v as f32).to_bits()).collect()
    } else {
        let func = func.expect("one is set");
        let mut t = Vec::with_capacity(entries);
        for i in 0..entries {
            let (x, y) = ((i & ((1 << bits_a) - 1)) as i64, (i >> bits_a) as i64);
            let call = if two { format!("function({x}, {y})") } else { format!("function({x})") };
            let v = func.call_xy(x, two.then_some(y)).map_err(|e| Error::invalid(format!("{call} returned an error: {e}")))?;
            match (v, floatout) {
                (Value::Float(v), true) => t.push((v as f32).to_bits()),
                (Value::Int(v), false) if v >= 0 && v < limit => t.push(v as u32),
                (Value::Int(v), false) => return Err(Error::invalid(format!("{call} returned invalid value: {v}, max allowed: {limit}"))),
                (_, true) => return Err(Error::invalid(format!("{call} didn't return a float value"))),
                (_, false) => return Err(Error::invalid(format!("{call} didn't return an integer value"))),
            }
        }
        t
    };
    let np = f.numPlanes as usize;
    if ofmt != f && (0..np).any(|p| !planes[p]) {
        return Err(Error::invalid("every plane must be processed when bits or floatout changes the sample storage"));
    }
    let mut ovi = va;
    ovi.format = ofmt;
    let mut prog = Program::new(core, ofmt, va.width, va.height)?;
    let tb = prog.table(&table)?;
    let (ta, to) = (St::of(&f), St::of(&ofmt));
    let fetch = if to.is_float() { "intBitsToFloat(tb1(IDX))" } else { "tb1(IDX)" };
    for p in 0..np {
        if !planes[p] {
            prog.copies.push((0, p, p));
            continue;
        }
        let (srcs, idx, tys) = match &vb {
            None => (vec![Src::Plane { input: 0, plane: p }, Src::Table(tb)], "ld0(x, y)".to_string(), vec![ta, St::I32]),
            Some(vb) => (
                vec![Src::Plane { input: 0, plane: p }, Src::Table(tb), Src::Plane { input: 1, plane: p }],
                format!("ld0(x, y) + (ld2(x, y) << {bits_a})"),
                vec![ta, St::I32, St::of(&vb.format)],
            ),
        };
        let k = prog.kernel(to, &tys, "", "", &format!("st(x, y, {});", fetch.replace("IDX", &idx)))?;
        prog.plane_job(k, p, srcs);
    }
    let mut inputs = vec![ca];
    inputs.extend(cb);
    finish(out, core, if two { "Lut2" } else { "Lut" }, ovi, inputs, prog)
}

/// Two clips of one supported format and size.
fn two(a: &Args) -> Result<(vsvk_plugin_api::node::Node, vsvk_plugin_api::node::Node, VSVideoInfo)> {
    let (ca, cb) = (a.node("clipa")?, a.node("clipb")?);
    let (va, vb) = (ca.video_info()?, cb.video_info()?);
    check_format(&va)?;
    if va.format != vb.format || va.width != vb.width || va.height != vb.height {
        return Err(Error::invalid("both clips must have the same constant format and dimensions"));
    }
    Ok((ca, cb, va))
}

fn merge(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let (ca, cb, vi) = two(a)?;
    let f = vi.format;
    let np = f.numPlanes as usize;
    let weights = a.floats("weight")?.unwrap_or_default();
    if weights.len() > np {
        return Err(Error::invalid("more weights given than the number of planes to merge"));
    }
    if weights.iter().any(|w| !(0.0..=1.0).contains(w)) {
        return Err(Error::invalid("weights must be between 0 and 1"));
    }
    let w: [f64; 3] = std::array::from_fn(|p| if weights.is_empty() { 0.5 } else { weights[p.min(weights.len() - 1)] });
    let mut prog = Program::new(core, f, vi.width, vi.height)?;
    let t = St::of(&f);
    for p in 0..np {
        if w[p] == 0.0 {
            prog.copies.push((0, p, p));
        } else if w[p] == 1.0 {
            prog.copies.push((1, p, p));
        } else {
            let body = if t.is_float() {
                format!("float a = ld0(x, y), b = ld1(x, y); precise float r = fma(b - a, {}, a); st(x, y, r);", flt(w[p] as f32))
            } else {
                let wi = ((w[p] * 32768.0 + 0.5).floor() as i32).min(32767);
                format!("int a = ld0(x, y), b = ld1(x, y); st(x, y, a + (((b - a) * {wi} + 16384) >> 15));")
            };
            let k = prog.kernel(t, &[t, t], "", "", &body)?;
            prog.plane_job(k, p, vec![Src::Plane { input: 0, plane: p }, Src::Plane { input: 1, plane: p }]);
        }
    }
    finish(out, core, "Merge", vi, vec![ca, cb], prog)
}

fn diff(a: &Args, out: &mut Out, core: Core, make: bool) -> Result<()> {
    let (ca, cb, vi) = two(a)?;
    let f = vi.format;
    let planes = planes_arg(a.ints("planes")?, f.numPlanes)?;
    let mut prog = Program::new(core, f, vi.width, vi.height)?;
    let t = St::of(&f);
    let op = if make { "-" } else { "+" };
    for p in 0..f.numPlanes as usize {
        if !planes[p] {
            prog.copies.push((0, p, p));
            continue;
        }
        let body = if t.is_float() {
            format!("precise float r = ld0(x, y) {op} ld1(x, y); st(x, y, r);")
        } else {
            let half = 1i32 << (f.bitsPerSample - 1);
            let bias = if make { half } else { -half };
            format!("st(x, y, clamp(ld0(x, y) {op} ld1(x, y) + ({bias}), 0, {}));", max_value(&f))
        };
        let k = prog.kernel(t, &[t, t], "", "", &body)?;
        prog.plane_job(k, p, vec![Src::Plane { input: 0, plane: p }, Src::Plane { input: 1, plane: p }]);
    }
    finish(out, core, if make { "MakeDiff" } else { "MergeDiff" }, vi, vec![ca, cb], prog)
}

/// Taps of R81's chroma mask along one direction subsampled by `2^ss`: MaskedMerge with one
/// mask plane on subsampled chroma resamples the luma mask as resize.Bilinear does (zimg), with
/// the chroma sample sited by `sign` (1 left/top, 0 centre, -1 bottom; learned from R81's
/// output). Per output sample of `n_out`: the first input sample and the weights of a window of
/// fixed span over `n_in` input samples, as (numerator, denominator `2 * 4^ss`). The triangle's
/// weights are dyadic, so zimg's 14-bit taps hold them exactly. Taps past an edge fold back onto
/// the plane and merge with the tap they land on; the window starts at the first nonzero tap,
/// moved left where it would pass the right edge (which decides the order of float sums).
fn mask_taps(ss: i32, sign: f64, n_in: i32, n_out: i32) -> (Vec<(i32, Vec<i32>)>, i32) {
    let s = 1i32 << ss;
    let den = 2 * s * s;
    let pos = 0.5 * s as f64 - sign * (s - 1) as f64 / 2.0;
    let taps: Vec<(i32, i32)> = (-2 * s..=2 * s)
        .filter_map(|d| {
            let w = 1.0 - (d as f64 + 0.5 - pos).abs() / s as f64;
            (w > 0.0).then(|| (d, (w / s as f64 * den as f64).round() as i32))
        })
        .collect();
    let span = taps.len() as i32;
    let fold = |k: i32| if k < 0 { -1 - k } else if k >= n_in { 2 * n_in - 1 - k } else { k };
    let rows = (0..n_out)
        .map(|i| {
            let mut w = vec![0i32; n_in as usize];
            for &(d, t) in &taps {
                w[fold(i * s + d) as usize] += t;
            }
            let first = w.iter().position(|&t| t != 0).unwrap_or(0) as i32;
            let start = first.min(n_in - span).max(0);
            (start, (start..start + span).map(|k| w.get(k as usize).copied().unwrap_or(0)).collect())
        })
        .collect();
    (rows, den)
}

/// GLSL `cm(x, y)`: the mask of chroma sample (x, y) from the luma mask (input 2, `lw` x `lh`),
/// chroma location `loc`, as R81 computes it (zimg's bilinear resampling, learned from its
/// output): vertical pass first where both directions are subsampled. Integer passes round half
/// up, 8-bit samples go through 16 bits and come back rounded half to even. Float passes sum
/// each window in two interleaved fused multiply-add chains (even and odd taps) added at the
/// end, fused exactly (`fmaE`); half is rounded between the passes and at the end.
fn chroma_mask(f: &VSVideoFormat, lw: i32, lh: i32, loc: i32) -> String {
    let hsign = if loc % 2 == 0 { 1.0 } else { 0.0 };
    let vsign = match loc {
        2 | 3 => 1.0,
        4 | 5 => -1.0,
        _ => 0.0,
    };
    let (sw, sh) = (f.subSamplingW, f.subSamplingH);
    let float = f.sampleType == stFloat;
    let half = float && f.bitsPerSample == 16;
    let eight = !float && f.bitsPerSample == 8;
    let ty = if float { "float" } else { "int" };
    let weight = |n: i32, den: i32| if float { flt(n as f32 / den as f32) } else { n.to_string() };
    // one direction: GLSL setting `{v}s` (start) and `{v}w[]` (weights) for output index `{i}`
    let direction = |v: &str, i: &str, ss: i32, sign: f64, n_in: i32| -> (String, usize, i32) {
        if ss == 0 {
            return (format!("    int {v}s = {i}; {ty} {v}w[1] = {ty}[]({});\n", weight(1, 1)), 1, 1);
        }
        let s = 1i32 << ss;
        let (rows, den) = mask_taps(ss, sign, n_in, n_in >> ss);
        let span = rows[0].1.len();
        // the interior rows all look like this one
        let mid = rows.len() / 2;
        let (reg_start, reg) = (rows[mid].0 - mid as i32 * s, rows[mid].1.clone());
        let list = |w: &[i32]| w.iter().map(|&n| weight(n, den)).collect::<Vec<_>>().join(", ");
        let mut g = format!("    int {v}s; {ty} {v}w[{span}];\n    ");
        for (k, (start, w)) in rows.iter().enumerate() {
            if *start != k as i32 * s + reg_start || *w != reg {
                g += &format!("if ({i} == {k}) {{ {v}s = {start}; {v}w = {ty}[]({}); }} else ", list(w));
            }
        }
        g += &format!("{{ {v}s = {i} * {s} + ({reg_start}); {v}w = {ty}[]({}); }}\n", list(&reg));
        (g, span, den)
    };
    let (hg, hspan, hden) = direction("h", "x", sw, hsign, lw);
    let (vg, vspan, vden) = direction("v", "y", sh, vsign, lh);
    // one pass over `terms` (weight, sample) with `den` (integer) or in two chains (float)
    let pass = |terms: &[(String, String)], den: i32| -> String {
        if terms.len() == 1 {
            return terms[0].1.clone();
        }
        if float {
            let chain = |start: usize| {
                let mut e = format!("({} * {})", terms[start].0, terms[start].1);
                for t in terms.iter().skip(start + 2).step_by(2) {
                    e = format!("fmaE({}, {}, {e})", t.0, t.1);
                }
                e
            };
            format!("({} + {})", chain(0), chain(1))
        } else {
            let sum: Vec<String> = terms.iter().map(|(w, v)| format!("{w} * {v}")).collect();
            format!("(({}) + {}) / {den}", sum.join(" + "), den / 2)
        }
    };
    // a window wider than a tiny plane reaches past it with zero weights: read inside it
    let at = |base: &str, o: usize, span: usize, n: i32| if span as i32 > n { format!("min({base} + {o}, {})", n - 1) } else { format!("{base} + {o}") };
    let load = |j: usize, k: usize| {
        let l = format!("ld2({}, {})", at("hs", j, hspan, lw), at("vs", k, vspan, lh));
        if eight {
            format!("({l} << 8)")
        } else {
            l
        }
    };
    let mut g = format!("{ty} cm(int x, int y) {{\n{hg}{vg}");
    for j in 0..hspan {
        let terms: Vec<(String, String)> = (0..vspan).map(|k| (format!("vw[{k}]"), load(j, k))).collect();
        let c = pass(&terms, vden);
        let c = if half && vspan > 1 { format!("h2f(f2h({c}))") } else { c };
        g += &format!("    precise {ty} c{j} = {c};\n");
    }
    let terms: Vec<(String, String)> = (0..hspan).map(|j| (format!("hw[{j}]"), format!("c{j}"))).collect();
    g += &format!("    precise {ty} r = {};\n", pass(&terms, hden));
    if eight {
        g += "    return (r >> 8) + ((r & 255) > 128 || ((r & 255) == 128 && (r & 256) != 0) ? 1 : 0);\n";
    } else if half {
        g += "    return h2f(f2h(r));\n";
    } else {
        g += "    return r;\n";
    }
    g += "}\n";
    g
}

/// What MaskedMerge's kernels depend on beyond its arguments: the frames' chroma location (for
/// a mask taken from luma onto subsampled chroma) and whether they are limited range (for
/// premultiplied integer clips).
type MergeKey = (i32, bool);

struct MaskedMerge {
    format: VSVideoFormat,
    width: i32,
    height: i32,
    planes: [bool; 3],
    single: bool,
    premultiplied: bool,
    /// a single mask plane resampled for chroma
    resampled: bool,
    /// the frames' chroma locations must agree
    check_loc: bool,
    /// the frames' ranges must agree and pick the offset
    check_range: bool,
    programs: Mutex<HashMap<MergeKey, Arc<Program>>>,
}

impl MaskedMerge {
    fn program(&self, core: Core, (loc, limited): MergeKey) -> Result<Program> {
        let f = self.format;
        let mut prog = Program::new(core, f, self.width, self.height)?;
        let t = St::of(&f);
        let mx = max_value(&f);
        let bits = f.bitsPerSample;
        for p in 0..f.numPlanes as usize {
            if !self.planes[p] {
                prog.copies.push((0, p, p));
                continue;
            }
            let resample = self.resampled && p > 0;
            let (helpers, m) = if resample { (chroma_mask(&f, self.width, self.height, loc), "cm(x, y)") } else { (String::new(), "ld2(x, y)") };
            let helpers = if t.is_float() { format!("{}{helpers}", crate::conv::EXACT) } else { helpers };
            let body = if t.is_float() {
                // R81 fuses these multiply-adds: exactly emulated (GLSL's fma need not be fused)
                let merge = if self.premultiplied { "fmaE(a, 1.0 - c, b)" } else { "fmaE(b - a, c, a)" };
                format!("float a = ld0(x, y), b = ld1(x, y), m = {m}; float c = m > 0.0 ? m : 0.0; c = c < 1.0 ? c : 1.0; precise float r = {merge}; st(x, y, r);")
            } else if self.premultiplied {
                // clipa's distance from black (or from grey for chroma) scaled by 1 - mask,
                // rounded to nearest (no ties: the divisor is odd), then clipb added
                let off = if is_chroma(&f, p) {
                    1i64 << (bits - 1)
                } else if limited {
                    16i64 << (bits - 8)
                } else {
                    0
                };
                format!(
                    "int a = ld0(x, y), b = ld1(x, y); uint m = min(uint({m}), {mx}u); int d = a - {off}; uint q = (uint(abs(d)) * ({mx}u - m) + {}u) / {mx}u; int r = d < 0 ? -int(q) : int(q); st(x, y, clamp(r + b, 0, {mx}));",
                    mx / 2
                )
            } else if f.bytesPerSample == 1 {
                format!("uint a = uint(ld0(x, y)), b = uint(ld1(x, y)), m = uint({m}); uint n = a * (255u - m) + b * m + 127u; st(x, y, int((n * 32897u) >> 23));")
            } else {
                format!("uint a = uint(ld0(x, y)), b = uint(ld1(x, y)), m = min(uint({m}), {mx}u); uint n = a * ({mx}u - m) + b * m + {}u; st(x, y, int((n + (n >> {bits}) + 1u) >> {bits}));", mx / 2)
            };
            let k = prog.kernel(t, &[t, t, t], "", &helpers, &body)?;
            let mp = if self.single { 0 } else { p };
            prog.plane_job(k, p, vec![Src::Plane { input: 0, plane: p }, Src::Plane { input: 1, plane: p }, Src::Plane { input: 2, plane: mp }]);
        }
        Ok(prog)
    }
}

/// A frame's chroma location as R81's MaskedMerge reads it: absent, not an int or negative
/// count as 0 (left).
fn chroma_loc(p: &PropsRef<'_>) -> i64 {
    p.int("_ChromaLocation").unwrap_or(0).max(0)
}

/// Whether R81's MaskedMerge takes a frame as limited range (offset black at 16): `_Range` 0,
/// or no range at all on YUV and Gray. `_ColorRange` is the pre-API-4.2 name, values swapped.
fn limited_range(p: &PropsRef<'_>, rgb: bool) -> bool {
    let r = p.int("_Range").or_else(|| {
        p.int("_ColorRange").map(|v| match v {
            0 => 1,
            1 => 0,
            v => v,
        })
    });
    match r {
        None => !rgb,
        Some(v) => v == 0,
    }
}

impl Filter for MaskedMerge {
    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let (pa, pb) = (frames[0].props(), frames[1].props());
        let mut key = (0, false);
        if self.check_loc {
            let (la, lb) = (chroma_loc(&pa), chroma_loc(&pb));
            if la != lb {
                return Err(Error::invalid(format!("clipa and clipb have different chroma locations (_ChromaLocation {la} vs {lb})")));
            }
            if self.resampled {
                if la > 5 {
                    return Err(Error::invalid(format!("unrecognized chroma location (_ChromaLocation {la})")));
                }
                key.0 = la as i32;
            }
        }
        if self.check_range {
            let rgb = self.format.colorFamily == cfRGB;
            let (ra, rb) = (limited_range(&pa, rgb), limited_range(&pb, rgb));
            if ra != rb {
                return Err(Error::invalid("Input frames must have the same range"));
            }
            key.1 = ra;
        }
        drop((pa, pb));
        let prog = {
            let mut progs = self.programs.lock().map_err(|_| Error::invalid("a previous frame panicked"))?;
            match progs.get(&key) {
                Some(p) => p.clone(),
                None => {
                    let p = Arc::new(self.program(core, key)?);
                    progs.insert(key, p.clone());
                    p
                }
            }
        };
        prog.run(&frames)
    }
}

fn masked_merge(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let (ca, cb, vi) = two(a)?;
    let mask = a.node("mask")?;
    let vm = mask.video_info()?;
    let planes = planes_arg(a.ints("planes")?, vi.format.numPlanes)?;
    let first_plane = a.bool("first_plane", false)?;
    let premultiplied = a.bool("premultiplied", false)?;
    let (f, mf) = (vi.format, vm.format);
    let single = first_plane || mf.colorFamily == cfGray;
    let ok = vm.width == vi.width
        && vm.height == vi.height
        && mf.colorFamily != cfUndefined
        && mf.sampleType == f.sampleType
        && mf.bitsPerSample == f.bitsPerSample
        && (single || (mf.subSamplingW == f.subSamplingW && mf.subSamplingH == f.subSamplingH && mf.colorFamily == f.colorFamily));
    if !ok {
        return Err(Error::invalid("mask clip must have same dimensions, sample type and bitdepth as main clip and be the same format or grayscale"));
    }
    let subsampled = f.subSamplingW > 0 || f.subSamplingH > 0;
    let chroma = planes[1] || planes[2];
    let mm = MaskedMerge {
        format: f,
        width: vi.width,
        height: vi.height,
        planes,
        single,
        premultiplied,
        resampled: single && subsampled && chroma,
        check_loc: subsampled && chroma,
        check_range: premultiplied && f.sampleType == stInteger && planes.iter().any(|&p| p),
        programs: Mutex::new(HashMap::new()),
    };
    // the first program now: kernels that do not compile fail here, not on the first frame
    let key = (0, mm.check_range && f.colorFamily != cfRGB);
    let first = mm.program(core, key)?;
    mm.programs.lock().map_err(|_| Error::invalid("a previous frame panicked"))?.insert(key, Arc::new(first));
    let mut info = vi;
    info.format = f;
    filter::create(out, core, Spec { name: "MaskedMerge".into(), info, inputs: vec![ca, cb, mask], gpu_output: true }, mm);
    Ok(())
}
