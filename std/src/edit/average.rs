//! std.AverageFrames: a weighted sum of frames of one clip around frame n (temporal), or of frame n
//! of several clips, divided by a scale.
//!
//! Integer formats: weights and scale are rounded to integers (half away from zero), the weighted
//! sum is exact (integer YUV chroma taken relative to the middle of the range), then it is turned
//! into single precision, multiplied by the single precision reciprocal of the scale and rounded to
//! nearest, ties to even. Float formats: single precision fused multiply-adds in weight order, then
//! the reciprocal of the scale. Half samples are computed in single precision.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::residency::on_host;
use vsvk_plugin_api::{Error, Result};

use super::format_name;
use crate::neighbour::plane::{f32_to_halves, halves_to_f32, multiversion};
use crate::util::{dst_plane, residency_mismatch, src_plane, video_info, Src};

const MAX_WEIGHTS: usize = 31;

fn round_half_away(v: f64) -> f64 {
    v.signum() * (v.abs() + 0.5).floor()
}

#[derive(Clone)]
enum Weights {
    Int { w: Vec<i32>, recip: f32 },
    Float { w: Vec<f32>, recip: f32 },
}

pub fn average_frames(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clips = a.nodes("clips")?;
    let weights = a.floats("weights")?.unwrap_or_default();
    let scenechange = a.bool("scenechange", false)?;
    let single = clips.len() == 1;
    if single && weights.len() % 2 == 0 {
        return Err(Error::invalid("Number of weights must be odd when only one clip supplied"));
    }
    if !single && weights.len() != clips.len() {
        return Err(Error::invalid("Number of weights must match number of clips supplied"));
    }
    if weights.is_empty() || weights.len() > MAX_WEIGHTS {
        return Err(Error::invalid("Must use between 1 and 31 weights and input clips"));
    }
    if scenechange && !single {
        return Err(Error::invalid("Scenechange can only be used in single clip mode"));
    }
    let infos: Vec<VSVideoInfo> = clips.iter().map(video_info).collect::<Result<_>>()?;
    let vi = infos[0];
    let fmt = vi.format;
    let ok_format = fmt.colorFamily != cfUndefined
        && ((fmt.sampleType == stInteger && fmt.bitsPerSample <= 16) || (fmt.sampleType == stFloat && (fmt.bitsPerSample == 16 || fmt.bitsPerSample == 32)));
    if !ok_format {
        return Err(Error::invalid(format!("Input clip must be constant format 8..16 bit integer or 16-32 bit float, passed {}.", format_name(&fmt))));
    }
    if vi.width == 0 || vi.height == 0 {
        return Err(Error::invalid("clips must have constant dimensions"));
    }
    for (i, b) in infos.iter().enumerate().skip(1) {
        if b.format != fmt || b.width != vi.width || b.height != vi.height {
            return Err(Error::invalid(format!(
                "All clips must have the same format, passed {}[{}x{}] and {}[{}x{}] in clip #{i}",
                format_name(&fmt),
                vi.width,
                vi.height,
                format_name(&b.format),
                b.width,
                b.height
            )));
        }
    }
    if let Some(m) = residency_mismatch(&clips) {
        return Err(Error::invalid(m));
    }
    let scale = a.float("scale")?;
    let weights = if fmt.sampleType == stInteger {
        let w: Vec<i64> = weights.iter().map(|&v| round_half_away(v).clamp(-1e12, 1e12) as i64).collect();
        if w.iter().any(|&v| !(-1023..=1023).contains(&v)) {
            return Err(Error::invalid("coefficients may only be between -1023 and 1023"));
        }
        let s = match scale {
            Some(s) => {
                let s = round_half_away(s);
                if s.is_nan() || s <= 0.0 {
                    return Err(Error::invalid("scale must be a positive number"));
                }
                s
            }
            None => {
                let sum: i64 = w.iter().sum();
                if sum > 0 {
                    sum as f64
                } else {
                    1.0
                }
            }
        };
        Weights::Int { w: w.iter().map(|&v| v as i32).collect(), recip: 1.0f32 / s as f32 }
    } else {
        let s = match scale {
            Some(s) => {
                if s.is_nan() || s <= 0.0 {
                    return Err(Error::invalid("scale must be a positive number"));
                }
                s
            }
            None => {
                let sum: f64 = weights.iter().sum();
                if sum > 0.0 {
                    sum
                } else {
                    1.0
                }
            }
        };
        Weights::Float { w: weights.iter().map(|&v| v as f32).collect(), recip: 1.0f32 / s as f32 }
    };
    // Plane numbers up to 2 are taken whatever the format; those it lacks are ignored.
    let process = planes_arg(a)?;

    let count = weights_len(&weights);
    let radius = (count / 2) as i32;
    // One clip is read around frame n (general); several at frame n, strictly spatial where a
    // clip is as long as the output (a short one's last frame is asked for again and again).
    let patterns: Vec<i32> = if single {
        vec![rpGeneral]
    } else {
        infos.iter().map(|v| if v.numFrames == vi.numFrames { rpStrictSpatial } else { rpGeneral }).collect()
    };
    let filter = Average { fmt, single, scenechange, count, radius, last: vi.numFrames - 1, weights, process };
    let node = on_host(core, clips, |inputs| {
        filter::create_node_with_patterns(core, Spec { name: "AverageFrames".into(), info: vi, inputs, gpu_output: false }, &patterns, filter, fmParallel)
    })?;
    out.set_node("clip", node);
    Ok(())
}

/// Which planes the `planes` argument names (all by default): indices past 2 are errors, those
/// within 0..=2 but past the format's planes are taken and ignored.
fn planes_arg(a: &Args) -> Result<[bool; 3]> {
    let Some(list) = a.ints("planes")? else {
        return Ok([true; 3]);
    };
    let mut out = [false; 3];
    for p in list {
        if !(0..3).contains(&p) {
            return Err(Error::invalid("plane index out of range"));
        }
        if out[p as usize] {
            return Err(Error::invalid("plane specified twice"));
        }
        out[p as usize] = true;
    }
    Ok(out)
}

struct Average {
    fmt: VSVideoFormat,
    single: bool,
    scenechange: bool,
    count: usize,
    radius: i32,
    last: i32,
    weights: Weights,
    process: [bool; 3],
}

impl Filter for Average {
    fn requests(&self, n: i32, lengths: &[i32]) -> Vec<(usize, i32)> {
        if self.single {
            (0..self.count as i32).map(|k| (0, (n - self.radius + k).clamp(0, self.last))).collect()
        } else {
            (0..lengths.len()).map(|i| (i, n)).collect()
        }
    }

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let (fmt, count, radius, single) = (self.fmt, self.count, self.radius, self.single);
        if frames.len() != count {
            return Err(Error::whole("internal error: a requested frame is missing"));
        }
        let base = if single { radius as usize } else { 0 };
        // Scene changes: walking out from the centre, once a frame is marked as starting (going
        // back) or ending (going forward) a scene, the weights of the frames beyond it move onto
        // the centre frame.
        let mut moved = vec![false; count];
        if single && self.scenechange {
            let r = radius as usize;
            let flag = |f: &Frame, key: &str| f.props().int(key).is_some_and(|v| v != 0);
            let mut cut = false;
            for k in (0..r).rev() {
                cut = cut || flag(&frames[k + 1], "_SceneChangePrev");
                moved[k] = cut;
            }
            let mut cut = false;
            for k in r + 1..count {
                cut = cut || flag(&frames[k - 1], "_SceneChangeNext");
                moved[k] = cut;
            }
        }
        let weights = self.weights.moved(&moved, base);
        let use_: Vec<usize> = (0..count).filter(|&k| !moved[k]).collect();
        let main = &frames[base];
        // Planes left alone are shared with the centre frame, not copied.
        let keep = |p: usize| (p < fmt.numPlanes as usize && !self.process[p]).then_some((main, p as i32));
        let mut f = FrameMut::new_video_sharing(core, &fmt, main.width(0), main.height(0), [keep(0), keep(1), keep(2)], Some(main))
            .map_err(|e| Error::whole(e.to_string()))?;
        for (p, &wanted) in self.process.iter().enumerate().take(fmt.numPlanes as usize) {
            if !wanted {
                continue;
            }
            let srcs: Vec<Src> = use_.iter().map(|&i| src_plane(&frames[i], p)).collect::<Result<_>>()?;
            let d = dst_plane(&mut f, p)?;
            // SAFETY: `f` is ours; every plane has the same dimensions and sample type.
            unsafe {
                match &weights {
                    Weights::Int { w, recip } => {
                        let w: Vec<i32> = use_.iter().map(|&k| w[k]).collect();
                        let w = &w;
                        let chroma = p > 0 && fmt.colorFamily == cfYUV;
                        let bias = if chroma { 1i32 << (fmt.bitsPerSample - 1) } else { 0 };
                        let max = (1i32 << fmt.bitsPerSample) - 1;
                        if fmt.bytesPerSample == 1 {
                            int_plane::<u8>(&srcs, d.ptr, d.stride, d.w, d.h, w, *recip, bias, max);
                        } else {
                            int_plane::<u16>(&srcs, d.ptr, d.stride, d.w, d.h, w, *recip, bias, max);
                        }
                    }
                    Weights::Float { w, recip } => {
                        let w: Vec<f32> = use_.iter().map(|&k| w[k]).collect();
                        let w = &w;
                        float_plane(&srcs, d.ptr, d.stride, d.w, d.h, w, *recip, fmt.bytesPerSample == 2);
                    }
                }
            }
        }
        Ok(f.freeze())
    }
}

impl Weights {
    /// The weights with those of the `moved` positions added onto position `to` (the centre). As
    /// R81 sums them (which matters in floating point): the moved ones first, from the far end
    /// forward in, then from the far end backward in, and the centre's own weight last.
    fn moved(&self, moved: &[bool], to: usize) -> Weights {
        let order: Vec<usize> = (to + 1..moved.len()).rev().chain(0..to).filter(|&k| moved[k]).collect();
        let mut out = self.clone();
        match &mut out {
            Weights::Int { w, .. } => {
                let s: i32 = order.iter().map(|&k| w[k]).sum();
                w[to] += s;
            }
            Weights::Float { w, .. } => {
                let mut s = 0f32;
                for &k in &order {
                    s += w[k];
                }
                w[to] += s;
            }
        }
        out
    }
}

fn weights_len(w: &Weights) -> usize {
    match w {
        Weights::Int { w, .. } => w.len(),
        Weights::Float { w, .. } => w.len(),
    }
}

trait IntSample: Copy {
    fn get(self) -> i32;
    fn put(v: i32) -> Self;
}
impl IntSample for u8 {
    fn get(self) -> i32 {
        self as i32
    }
    fn put(v: i32) -> Self {
        v as u8
    }
}
impl IntSample for u16 {
    fn get(self) -> i32 {
        self as i32
    }
    fn put(v: i32) -> Self {
        v as u16
    }
}

/// Samples per chunk: a chunk's sums stay in registers while every source is added to them, so
/// the sums are neither stored nor re-read per source (a whole-row accumulator was, and the
/// stores were most of the filter's time with many threads sharing the memory bus).
const CHUNK: usize = 64;

/// # Safety
/// `srcs` and the destination are planes of `w` x `h` samples of T.
#[allow(clippy::too_many_arguments)]
unsafe fn int_plane<T: IntRows>(srcs: &[Src], dst: *mut u8, stride: isize, w: usize, h: usize, weights: &[i32], recip: f32, bias: i32, max: i32) {
    let mut rows: Vec<&[T]> = Vec::with_capacity(srcs.len());
    for y in 0..h {
        rows.clear();
        rows.extend(srcs.iter().map(|s| s.row::<T>(y)));
        let out = std::slice::from_raw_parts_mut(dst.offset(y as isize * stride).cast::<T>(), w);
        T::row(&rows, weights, out, recip, bias, max);
    }
}

/// The row loop, compiled once per instruction set: in the baseline x86-64 build rounding to
/// nearest even is a call to `rintf` per sample (no SSE4.1).
trait IntRows: IntSample {
    fn row(srcs: &[&[Self]], weights: &[i32], out: &mut [Self], recip: f32, bias: i32, max: i32);
}

/// The exact weighted sums of `n` samples from `x`, source by source in weight order.
#[inline(always)]
fn int_sums<T: IntSample, const N: usize>(srcs: &[&[T]], weights: &[i32], x: usize, n: usize, bias: i32) -> [i32; N] {
    let mut acc = [0i32; N];
    for (s, &wt) in srcs.iter().zip(weights) {
        let s = &s[x..x + n];
        for (a, &v) in acc[..n].iter_mut().zip(s) {
            *a += (v.get() - bias) * wt;
        }
    }
    acc
}

#[inline(always)]
fn int_finish<T: IntSample>(acc: &[i32], out: &mut [T], recip: f32, bias: i32, max: i32) {
    for (o, &a) in out.iter_mut().zip(acc) {
        // SAFETY: |a| <= 31 * 1023 * 65535 < 2^31 and 0 < recip <= 1 (the scale is a positive
        // integer), so the rounded product is finite and an i32. The plain conversion is what lets
        // the loop vectorise: `as` adds a NaN and range check per sample (80% of the filter's time).
        let v = unsafe { ((a as f32) * recip).round_ties_even().to_int_unchecked::<i32>() } + bias;
        *o = T::put(v.clamp(0, max));
    }
}

#[inline(always)]
fn int_row_impl<T: IntSample>(srcs: &[&[T]], weights: &[i32], out: &mut [T], recip: f32, bias: i32, max: i32) {
    let w = out.len();
    let mut x = 0;
    while x + CHUNK <= w {
        // fixed length: the sums live in registers
        let acc = int_sums::<T, CHUNK>(srcs, weights, x, CHUNK, bias);
        int_finish(&acc, &mut out[x..x + CHUNK], recip, bias, max);
        x += CHUNK;
    }
    if x < w {
        let acc = int_sums::<T, CHUNK>(srcs, weights, x, w - x, bias);
        int_finish(&acc[..w - x], &mut out[x..], recip, bias, max);
    }
}

macro_rules! int_rows {
    ($t:ty, $name:ident) => {
        impl IntRows for $t {
            fn row(srcs: &[&[$t]], weights: &[i32], out: &mut [$t], recip: f32, bias: i32, max: i32) {
                #[inline(always)]
                fn imp(srcs: &[&[$t]], weights: &[i32], out: &mut [$t], recip: f32, bias: i32, max: i32) {
                    int_row_impl::<$t>(srcs, weights, out, recip, bias, max)
                }
                multiversion!(fn $name => imp(srcs: &[&[$t]], weights: &[i32], out: &mut [$t], recip: f32, bias: i32, max: i32));
                $name(srcs, weights, out, recip, bias, max)
            }
        }
    };
}
int_rows!(u8, int_row_u8);
int_rows!(u16, int_row_u16);

/// # Safety
/// As for `int_plane`, with f32 samples (or half ones when `half`).
#[allow(clippy::too_many_arguments)]
unsafe fn float_plane(srcs: &[Src], dst: *mut u8, stride: isize, w: usize, h: usize, weights: &[f32], recip: f32, half: bool) {
    if half {
        let mut rows: Vec<&[u16]> = Vec::with_capacity(srcs.len());
        for y in 0..h {
            rows.clear();
            rows.extend(srcs.iter().map(|s| s.row::<u16>(y)));
            let out = std::slice::from_raw_parts_mut(dst.offset(y as isize * stride).cast::<u16>(), w);
            half_row(&rows, weights, out, recip);
        }
    } else {
        let mut rows: Vec<&[f32]> = Vec::with_capacity(srcs.len());
        for y in 0..h {
            rows.clear();
            rows.extend(srcs.iter().map(|s| s.row::<f32>(y)));
            let out = std::slice::from_raw_parts_mut(dst.offset(y as isize * stride).cast::<f32>(), w);
            float_row(&rows, weights, out, recip);
        }
    }
}

/// Fused multiply-adds of `n` samples from `x` onto zero, source by source in weight order.
/// `mul_add` is a true fused multiply-add in every build; with the instruction it is also fast.
#[inline(always)]
fn float_sums<const N: usize>(srcs: &[&[f32]], weights: &[f32], x: usize, n: usize) -> [f32; N] {
    let mut acc = [0f32; N];
    for (s, &wt) in srcs.iter().zip(weights) {
        for (a, &v) in acc[..n].iter_mut().zip(&s[x..x + n]) {
            *a = v.mul_add(wt, *a);
        }
    }
    acc
}

#[inline(always)]
fn float_row_impl(srcs: &[&[f32]], weights: &[f32], out: &mut [f32], recip: f32) {
    let w = out.len();
    let mut x = 0;
    while x + CHUNK <= w {
        let acc = float_sums::<CHUNK>(srcs, weights, x, CHUNK);
        for (o, &a) in out[x..x + CHUNK].iter_mut().zip(&acc) {
            *o = a * recip;
        }
        x += CHUNK;
    }
    if x < w {
        let acc = float_sums::<CHUNK>(srcs, weights, x, w - x);
        for (o, &a) in out[x..].iter_mut().zip(&acc) {
            *o = a * recip;
        }
    }
}
multiversion!(fn float_row => float_row_impl(srcs: &[&[f32]], weights: &[f32], out: &mut [f32], recip: f32));

/// Half rows: each chunk of each source is widened to single precision (exactly), then summed
/// as the float rows are; the result is rounded to half once.
#[inline(always)]
fn half_row_impl(srcs: &[&[u16]], weights: &[f32], out: &mut [u16], recip: f32) {
    let w = out.len();
    let mut wide = [0f32; CHUNK];
    let mut x = 0;
    while x < w {
        let n = (w - x).min(CHUNK);
        let mut acc = [0f32; CHUNK];
        for (s, &wt) in srcs.iter().zip(weights) {
            halves_to_f32(&s[x..x + n], &mut wide[..n]);
            for (a, &v) in acc[..n].iter_mut().zip(&wide[..n]) {
                *a = v.mul_add(wt, *a);
            }
        }
        for a in &mut acc[..n] {
            *a *= recip;
        }
        f32_to_halves(&acc[..n], &mut out[x..x + n]);
        x += n;
    }
}
multiversion!(fn half_row => half_row_impl(srcs: &[&[u16]], weights: &[f32], out: &mut [u16], recip: f32));
