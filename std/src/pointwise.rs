//! Pointwise filters: Invert, InvertMask, Limiter, Levels, Binarize, BinarizeMask, Lut, Lut2,
//! Expr (`expr`, compiled to machine code by `expr_jit`), and in `merge` Merge, MaskedMerge,
//! MakeDiff, MergeDiff, MakeFullDiff, MergeFullDiff and PreMultiply.
//!
//! Every filter here works row by row on plain slices so that the inner loops vectorise. Half
//! precision planes are widened to f32 a row at a time, processed by the f32 code and narrowed
//! again with round-to-nearest-even, which is what the reference does as well.
//!
//! The arithmetic (rounding of arguments, order of float operations, where a fused multiply-add
//! is used) was matched against the reference core by running it, sample for sample.
use std::sync::Arc;

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::node::Node;
use vsvk_plugin_api::plugin::Registrar;
use vsvk_plugin_api::residency;
use vsvk_plugin_api::simd;
use vsvk_plugin_api::values::MapRead;
use vsvk_plugin_api::{Error, Result};

use crate::util;

pub mod cmath;
mod expr;
#[cfg(target_arch = "x86_64")]
mod expr_jit;
pub mod fast_math;
mod lut;
mod merge;
pub mod table8;

use fast_math::with_fast_math;

pub fn register(r: &Registrar) {
    const RET: &str = "clip:vnode:all;";
    r.function("Invert", "clip:vnode:all;planes:int[]:opt;", RET, |i, o, c| invert(i, o, c, false));
    r.function("InvertMask", "clip:vnode:all;planes:int[]:opt;", RET, |i, o, c| invert(i, o, c, true));
    r.function("Limiter", "clip:vnode:all;min:float[]:opt;max:float[]:opt;planes:int[]:opt;", RET, limiter);
    r.function(
        "Levels",
        "clip:vnode:all;min_in:float[]:opt;max_in:float[]:opt;gamma:float[]:opt;min_out:float[]:opt;max_out:float[]:opt;planes:int[]:opt;",
        RET,
        levels,
    );
    r.function(
        "Binarize",
        "clip:vnode:all;threshold:float[]:opt;v0:float[]:opt;v1:float[]:opt;planes:int[]:opt;",
        RET,
        |i, o, c| binarize(i, o, c, false),
    );
    r.function(
        "BinarizeMask",
        "clip:vnode:all;threshold:float[]:opt;v0:float[]:opt;v1:float[]:opt;planes:int[]:opt;",
        RET,
        |i, o, c| binarize(i, o, c, true),
    );
    lut::register(r);
    merge::register(r);
    expr::register(r);
}

// ---- shared helpers ------------------------------------------------------------------------------

/// A format's name as the reference prints it in messages.
fn fmt_name(f: &VSVideoFormat) -> String {
    if f.colorFamily == cfUndefined {
        return "Undefined".into();
    }
    Core::format_name(f)
}

/// 8 to 16 bit integer or 16/32 bit float samples.
fn format_supported(f: &VSVideoFormat) -> bool {
    f.colorFamily != cfUndefined
        && ((f.sampleType == stInteger && (8..=16).contains(&f.bitsPerSample))
            || (f.sampleType == stFloat && (f.bitsPerSample == 16 || f.bitsPerSample == 32)))
}

/// The reference's check on the sample format of an input clip.
fn check_format(f: &VSVideoFormat) -> Result<()> {
    if format_supported(f) {
        Ok(())
    } else {
        Err(Error::invalid(format!("Input clip must be constant format 8..16 bit integer or 16-32 bit float, passed {}.", fmt_name(f))))
    }
}

/// The `planes` argument as the pointwise filters read it: indices 0..2 (a plane the clip does
/// not have is simply not there to process), each at most once; absent means every plane, an
/// empty list none.
fn planes_arg(args: &Args, key: &str) -> Result<[bool; 3]> {
    planes_list(args, key)?.map_err(|e| Error::invalid(e.message()))
}

/// [`planes_arg`] with its own errors apart, for the filters that word them otherwise.
fn planes_list(args: &Args, key: &str) -> Result<std::result::Result<[bool; 3], PlanesError>> {
    if !args.contains(key) {
        return Ok(Ok([true; 3]));
    }
    let mut out = [false; 3];
    for p in args.get_ints(key)? {
        if !(0..3).contains(&p) {
            return Ok(Err(PlanesError::Range));
        }
        if out[p as usize] {
            return Ok(Err(PlanesError::Twice));
        }
        out[p as usize] = true;
    }
    Ok(Ok(out))
}

#[derive(Debug, Clone, Copy)]
enum PlanesError {
    Range,
    Twice,
}

impl PlanesError {
    fn message(self) -> String {
        match self {
            PlanesError::Range => "plane index out of range".into(),
            PlanesError::Twice => "plane specified twice".into(),
        }
    }
}

/// A per-plane float array argument: at most one value per plane; plane `p` takes value `p` or
/// the last one given.
fn plane_values(args: &Args, key: &str, num_planes: i32) -> Result<Option<Vec<f64>>> {
    match args.floats(key)? {
        None => Ok(None),
        Some(v) if v.is_empty() => Ok(None),
        Some(v) if v.len() > num_planes as usize => Err(Error::invalid(format!("{key} has more values specified than there are planes"))),
        Some(v) => Ok(Some(v)),
    }
}

fn pick(v: &Option<Vec<f64>>, p: usize) -> Option<f64> {
    v.as_ref().map(|v| v[p.min(v.len() - 1)])
}

/// How the reference turns a float argument into an integer sample value: add one half and
/// truncate toward zero (out-of-range values saturate, and are then rejected by the caller).
fn round_arg(v: f64) -> i64 {
    if v.is_nan() {
        return i64::MIN;
    }
    (v + 0.5) as i64
}

fn max_value(f: &VSVideoFormat) -> i64 {
    (1i64 << f.bitsPerSample) - 1
}

/// Chroma plane of a YUV format (float chroma is centred on zero).
fn is_chroma(f: &VSVideoFormat, p: usize) -> bool {
    f.colorFamily == cfYUV && p > 0
}

// Half to single precision and back (round to nearest even), a row at a time, F16C where the CPU
// has it. F16C quiets signalling NaNs on the way in; arithmetic quiets them too, and so does the
// narrowing for those a filter passes through untouched, so no output depends on it. (A table
// lookup per sample here kept half-float MakeDiff at 0.3x R81.)
use vsvk_plugin_api::simd::{f32_to_halves as f32_to_half_row, halves_to_f32 as half_to_f32_row};

// ---- planes as rows of samples ------------------------------------------------------------------

/// Samples a plane can hold.
trait Pix: Copy + Default + Send + Sync + 'static {}
impl Pix for u8 {}
impl Pix for u16 {}
impl Pix for u32 {}

/// A read-only view of one plane.
#[derive(Clone, Copy)]
struct PlaneRef {
    ptr: *const u8,
    stride: isize,
    width: usize,
    height: usize,
}

impl PlaneRef {
    fn new(f: &Frame, p: usize) -> Result<PlaneRef> {
        let s = util::src_plane(f, p)?;
        Ok(PlaneRef { ptr: s.ptr, stride: s.stride, width: s.w, height: s.h })
    }
    #[inline(always)]
    fn row<T>(&self, y: usize) -> &[T] {
        debug_assert!(y < self.height);
        // SAFETY: row `y` lies inside the plane and holds `width` samples of the plane's type;
        // the frame outlives the view (the caller holds it for the whole call).
        unsafe { std::slice::from_raw_parts(self.ptr.offset(y as isize * self.stride).cast::<T>(), self.width) }
    }
}

/// A writable view of one plane of a frame this filter owns.
struct PlaneMut {
    ptr: *mut u8,
    stride: isize,
    width: usize,
    height: usize,
    /// fill_rows (and map_rows on it) and map_rows_f32 write the rows with streaming stores (see `stream`).
    stream: bool,
}

impl PlaneMut {
    /// Plane `p` of a new frame that fill_rows, map_rows or map_rows_f32 fill: streamed past the
    /// caches where `stream` says frames this large overflow them.
    fn output(f: &mut FrameMut, p: usize, stream: bool) -> Result<PlaneMut> {
        let d = util::dst_plane(f, p)?;
        Ok(PlaneMut { ptr: d.ptr, stride: d.stride, width: d.w, height: d.h, stream })
    }
    #[inline(always)]
    fn row<T>(&mut self, y: usize) -> &mut [T] {
        debug_assert!(y < self.height);
        // SAFETY: rows are disjoint and inside the plane, of a frame the caller owns and keeps
        // alive while the view is used.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.offset(y as isize * self.stride).cast::<T>(), self.width) }
    }
}

/// Fills every output row with `f(row, y)`. Where `dst` is streamed, `f` fills a buffer that
/// then goes to the plane with streaming stores.
#[inline(always)]
fn fill_rows<U: Pix>(mut dst: PlaneMut, mut f: impl FnMut(&mut [U], usize)) {
    let mut out = if dst.stream { vec![U::default(); dst.width] } else { Vec::new() };
    for y in 0..dst.height {
        // one call of `f`: with two (one per branch) the compiler kept `f` out of line, outside
        // the caller's target features
        let row: &mut [U] = if dst.stream { &mut out } else { dst.row::<U>(y) };
        f(row, y);
        if dst.stream {
            crate::stream::copy_row(&out, dst.row::<U>(y));
        }
    }
    if dst.stream {
        crate::stream::fence();
    }
}

/// Applies `f` to every row: integer samples of type `T` to `U`.
#[inline(always)]
fn map_rows<T: Pix, U: Pix>(src: &[PlaneRef], dst: PlaneMut, mut f: impl FnMut(&mut [U], &[&[T]])) {
    let mut rows: Vec<&[T]> = Vec::with_capacity(src.len());
    // inline(always): callers inside `with_fast_math` need `f` compiled into its AVX2 code, which
    // it only is where this closure is inlined too (MakeDiff's 8-bit loop stayed SSE2: 0.7x)
    fill_rows(dst, #[inline(always)] |o, y| {
        rows.clear();
        rows.extend(src.iter().map(|s| s.row::<T>(y)));
        f(o, &rows);
    });
}

/// Applies `f` to every row of float samples; half precision planes are widened and narrowed
/// around it. `half_in[i]` says whether input `i` holds halves.
#[inline(always)]
fn map_rows_f32(src: &[PlaneRef], half_in: &[bool], mut dst: PlaneMut, half_out: bool, mut f: impl FnMut(&mut [f32], &[&[f32]])) {
    assert!(src.len() <= 3, "map_rows_f32 takes up to three planes");
    let w = dst.width;
    // Half in and out: chunks of each row, widened into buffers that stay in L1, worked on and
    // narrowed (whole rows through row buffers left half MakeDiff at 0.9x R81 on two threads).
    // Otherwise whole rows. Rows written as halves are never streamed.
    const CHUNK: usize = 256;
    let step = if half_out && half_in.iter().all(|&h| h) { CHUNK } else { w.max(1) };
    let mut bufs: Vec<Vec<f32>> = half_in.iter().map(|&h| vec![0.0f32; if h { step } else { 0 }]).collect();
    let mut out = vec![0.0f32; if half_out || dst.stream { step } else { 0 }];
    for y in 0..dst.height {
        for x0 in (0..w).step_by(step) {
            let xs = x0..x0 + step.min(w - x0);
            for (i, s) in src.iter().enumerate() {
                if half_in[i] {
                    half_to_f32_row(&s.row::<u16>(y)[xs.clone()], &mut bufs[i][..xs.len()]);
                }
            }
            let rows: [&[f32]; 3] = std::array::from_fn(|i| match src.get(i) {
                Some(_) if half_in[i] => &bufs[i][..xs.len()],
                Some(s) => &s.row::<f32>(y)[xs.clone()],
                None => &[],
            });
            // one call of `f`, as in fill_rows: with two, the compiler kept `f` out of line,
            // outside the caller's FMA, and Merge's mul_add became a library call (0.1x R81)
            let row: &mut [f32] = if half_out || dst.stream { &mut out[..xs.len()] } else { &mut dst.row::<f32>(y)[xs.clone()] };
            f(row, &rows[..src.len()]);
            if half_out {
                f32_to_half_row(&out[..xs.len()], &mut dst.row::<u16>(y)[xs]);
            } else if dst.stream {
                // (whole rows here: `step` is the width)
                crate::stream::copy_row(&out, dst.row::<f32>(y));
            }
        }
    }
    if dst.stream {
        crate::stream::fence();
    }
}

/// A filter of one input whose frame n comes from frame n of the input: `run` fills the new
/// frame's selected planes (the others are shared with the source).
struct PointFilter<R> {
    planes: [bool; 3],
    run: R,
}

impl<R: Fn(&Frame, &mut FrameMut, bool) -> Result<()> + Send + Sync + 'static> Filter for PointFilter<R> {
    const SPATIAL: bool = true;

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let src = frames.into_iter().next().ok_or_else(|| Error::invalid("internal error: a requested frame is missing"))?;
        let fmt = src.video_format().ok_or_else(|| Error::invalid("only video clips are supported"))?;
        let mut dst = new_frame_like(core, &fmt, &src, &self.planes)?;
        let stream = crate::stream::stream_outputs(core, &dst);
        (self.run)(&src, &mut dst, stream)?;
        Ok(dst.freeze())
    }
}

/// A new frame for the output with `src`'s properties; planes not in `process` are shared with
/// `src` (they pass through unchanged), the others are new and for the caller to fill.
fn new_frame_like(core: Core, fmt: &VSVideoFormat, src: &Frame, process: &[bool; 3]) -> Result<FrameMut> {
    if src.video_format().as_ref() != Some(fmt) {
        // another sample type or size: the callers process every plane
        return FrameMut::new_video(core, fmt, src.width(0), src.height(0), Some(src));
    }
    let mut shared = [None; 3];
    for (p, s) in shared.iter_mut().enumerate().take(fmt.numPlanes as usize) {
        if !process[p] {
            *s = Some((src, p as i32));
        }
    }
    FrameMut::new_video_sharing(core, fmt, src.width(0), src.height(0), shared, Some(src))
}

/// Returns under `clip` the filter `name` on `node`, whose frame n is `run`'s work on frame n;
/// GPU clips are processed in host memory and uploaded again.
fn pointwise_filter(
    out: &mut Out,
    core: Core,
    name: &str,
    vi: VSVideoInfo,
    node: Node,
    planes: [bool; 3],
    run: impl Fn(&Frame, &mut FrameMut, bool) -> Result<()> + Send + Sync + 'static,
) -> Result<()> {
    let node = residency::on_host(core, vec![node], |inputs| {
        let spec = Spec { name: name.into(), info: vi, inputs, gpu_output: false };
        filter::create_node_with_patterns(core, spec, &[rpStrictSpatial], PointFilter { planes, run }, fmParallel)
    })?;
    out.set_node("clip", node);
    Ok(())
}

/// A filter whose frame n comes from frame n of each input (the last frame of a shorter input).
struct MultiFilter<M> {
    make: M,
}

impl<M: Fn(&[Frame], Core) -> Result<Frame> + Send + Sync + 'static> Filter for MultiFilter<M> {
    const SPATIAL: bool = true;

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        (self.make)(&frames, core)
    }
}

/// How a [`MultiFilter`] declares its inputs, as R81 does for each filter.
#[derive(Clone, Copy)]
enum Patterns {
    /// Strict spatial whatever an input's length (Lut2).
    Strict,
    /// [`filter::spatial_pattern`]: a shorter input's last frame is reused (the merges).
    ByLength,
}

/// The node of [`MultiFilter`] on `inputs`, all in host memory or all on the GPU (processed in
/// host memory and uploaded again).
fn pointwise_node(
    core: Core,
    name: &str,
    vi: VSVideoInfo,
    inputs: Vec<Node>,
    patterns: Patterns,
    make: impl Fn(&[Frame], Core) -> Result<Frame> + Send + Sync + 'static,
) -> Result<Node> {
    if let Some(m) = util::residency_mismatch(&inputs) {
        return Err(Error::invalid(m));
    }
    residency::on_host(core, inputs, |inputs| {
        let spec = Spec { name: name.into(), info: vi, inputs, gpu_output: false };
        match patterns {
            Patterns::Strict => {
                let strict = vec![rpStrictSpatial; spec.inputs.len()];
                filter::create_node_with_patterns(core, spec, &strict, MultiFilter { make }, fmParallel)
            }
            Patterns::ByLength => filter::create_node(core, spec, MultiFilter { make }, fmParallel),
        }
    })
}

// ---- Invert, InvertMask ------------------------------------------------------------------------------

fn invert(args: &Args, out: &mut Out, core: Core, mask: bool) -> Result<()> {
    let node = args.node("clip")?;
    let vi = util::video_info(&node)?;
    // the only filters here that take clips of variable format: the frame's format decides
    let check = |f: &VSVideoFormat| -> Result<()> {
        if format_supported(f) {
            Ok(())
        } else {
            Err(Error::invalid(format!("Input clip must be 8..16 bit integer or 16-32 bit float, passed {}.", fmt_name(f))))
        }
    };
    if vi.format.colorFamily != cfUndefined {
        check(&vi.format)?;
    }
    let planes = planes_arg(&args, "planes")?;
    let name = if mask { "InvertMask" } else { "Invert" };
    pointwise_filter(out, core, name, vi, node, planes, move |src, dst, stream| {
        let fmt = src.video_format().ok_or_else(|| Error::invalid("only video clips are supported"))?;
        check(&fmt)?;
        for p in 0..fmt.numPlanes as usize {
            if !planes[p] {
                continue;
            }
            let s = [PlaneRef::new(src, p)?];
            let d = PlaneMut::output(dst, p, stream)?;
            if fmt.sampleType == stInteger {
                let max = max_value(&fmt) as u32;
                match fmt.bytesPerSample {
                    1 => map_rows::<u8, u8>(&s, d, |o, i| {
                        for (o, &x) in o.iter_mut().zip(i[0]) {
                            *o = (max as u8).wrapping_sub(x);
                        }
                    }),
                    _ => map_rows::<u16, u16>(&s, d, |o, i| {
                        for (o, &x) in o.iter_mut().zip(i[0]) {
                            *o = (max as u16).wrapping_sub(x);
                        }
                    }),
                }
            } else {
                let half = fmt.bytesPerSample == 2;
                if !mask && is_chroma(&fmt, p) {
                    map_rows_f32(&s, &[half], d, half, |o, i| {
                        for (o, &x) in o.iter_mut().zip(i[0]) {
                            *o = -x;
                        }
                    });
                } else {
                    map_rows_f32(&s, &[half], d, half, |o, i| {
                        for (o, &x) in o.iter_mut().zip(i[0]) {
                            *o = 1.0 - x;
                        }
                    });
                }
            }
        }
        Ok(())
    })?;
    Ok(())
}

// ---- Limiter ---------------------------------------------------------------------------------------

fn limiter(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let node = args.node("clip")?;
    let vi = util::video_info(&node)?;
    check_format(&vi.format)?;
    let fmt = vi.format;
    let np = fmt.numPlanes;
    let mins = plane_values(&args, "min", np)?;
    let maxs = plane_values(&args, "max", np)?;
    let planes = planes_arg(&args, "planes")?;
    let float = fmt.sampleType == stFloat;
    let maxval = max_value(&fmt);
    let mut lo = [0f64; 3];
    let mut hi = [0f64; 3];
    for p in 0..np as usize {
        if float {
            let (dlo, dhi) = if is_chroma(&fmt, p) { (-0.5, 0.5) } else { (0.0, 1.0) };
            lo[p] = pick(&mins, p).unwrap_or(dlo);
            hi[p] = pick(&maxs, p).unwrap_or(dhi);
        } else {
            lo[p] = match pick(&mins, p) {
                Some(v) => {
                    let r = round_arg(v);
                    if r < 0 || r > maxval {
                        return Err(Error::invalid("min out of range"));
                    }
                    r as f64
                }
                None => 0.0,
            };
            hi[p] = match pick(&maxs, p) {
                Some(v) => {
                    let r = round_arg(v);
                    if r < 0 || r > maxval {
                        return Err(Error::invalid("max out of range"));
                    }
                    r as f64
                }
                None => maxval as f64,
            };
        }
        if lo[p] > hi[p] {
            return Err(Error::invalid("min bigger than max"));
        }
    }
    pointwise_filter(out, core, "Limiter", vi, node, planes, move |src, dst, stream| {
        for p in 0..np as usize {
            if !planes[p] {
                continue;
            }
            let s = [PlaneRef::new(src, p)?];
            let d = PlaneMut::output(dst, p, stream)?;
            if float {
                let (l, h) = (lo[p] as f32, hi[p] as f32);
                let half = fmt.bytesPerSample == 2;
                map_rows_f32(&s, &[half], d, half, |o, i| {
                    for (o, &x) in o.iter_mut().zip(i[0]) {
                        *o = clamp_f32(x, l, h);
                    }
                });
            } else if fmt.bytesPerSample == 1 {
                let (l, h) = (lo[p] as u8, hi[p] as u8);
                map_rows::<u8, u8>(&s, d, |o, i| {
                    for (o, &x) in o.iter_mut().zip(i[0]) {
                        *o = x.max(l).min(h);
                    }
                });
            } else {
                let (l, h) = (lo[p] as u16, hi[p] as u16);
                map_rows::<u16, u16>(&s, d, |o, i| {
                    for (o, &x) in o.iter_mut().zip(i[0]) {
                        *o = x.max(l).min(h);
                    }
                });
            }
        }
        Ok(())
    })?;
    Ok(())
}

// each sample v becomes fma(v, scale, offset), rounded once as f32::mul_add rounds
vsvk_plugin_api::multiversion!(fn scale_row => scale_row_impl(row: &mut [f32], scale: f32, offset: f32));
#[inline(always)]
fn scale_row_impl(row: &mut [f32], scale: f32, offset: f32) {
    for v in row {
        *v = v.mul_add(scale, offset);
    }
}

/// min(max(x, lo), hi) with the operand order of the SSE instructions: NaN becomes `hi`... the
/// reference's plain code gives the same for every non-NaN value.
#[inline(always)]
pub(crate) fn clamp_f32(x: f32, lo: f32, hi: f32) -> f32 {
    let t = if x > lo { x } else { lo };
    if t < hi {
        t
    } else {
        hi
    }
}

// ---- Binarize, BinarizeMask -------------------------------------------------------------------------

fn binarize(args: &Args, out: &mut Out, core: Core, mask: bool) -> Result<()> {
    let node = args.node("clip")?;
    let vi = util::video_info(&node)?;
    check_format(&vi.format)?;
    let fmt = vi.format;
    let np = fmt.numPlanes;
    let thr = plane_values(&args, "threshold", np)?;
    let v0s = plane_values(&args, "v0", np)?;
    let v1s = plane_values(&args, "v1", np)?;
    let planes = planes_arg(&args, "planes")?;
    let float = fmt.sampleType == stFloat;
    let maxval = max_value(&fmt);
    let mut t = [0f64; 3];
    let mut a = [0f64; 3];
    let mut b = [0f64; 3];
    for p in 0..np as usize {
        if float {
            let chroma = !mask && is_chroma(&fmt, p);
            t[p] = pick(&thr, p).unwrap_or(if chroma { 0.0 } else { 0.5 });
            a[p] = pick(&v0s, p).unwrap_or(if chroma { -0.5 } else { 0.0 });
            b[p] = pick(&v1s, p).unwrap_or(if chroma { 0.5 } else { 1.0 });
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
            t[p] = int(pick(&thr, p), 1 << (fmt.bitsPerSample - 1), "threshold")?;
            a[p] = int(pick(&v0s, p), 0, "v0")?;
            b[p] = int(pick(&v1s, p), maxval, "v1")?;
        }
    }
    let name = if mask { "BinarizeMask" } else { "Binarize" };
    pointwise_filter(out, core, name, vi, node, planes, move |src, dst, stream| {
        for p in 0..np as usize {
            if !planes[p] {
                continue;
            }
            let s = [PlaneRef::new(src, p)?];
            let d = PlaneMut::output(dst, p, stream)?;
            if float {
                let (t, a, b) = (t[p] as f32, a[p] as f32, b[p] as f32);
                let half = fmt.bytesPerSample == 2;
                map_rows_f32(&s, &[half], d, half, |o, i| {
                    for (o, &x) in o.iter_mut().zip(i[0]) {
                        *o = if x < t { a } else { b };
                    }
                });
            } else if fmt.bytesPerSample == 1 {
                let (t, a, b) = (t[p] as u8 as u32, a[p] as u8, b[p] as u8);
                map_rows::<u8, u8>(&s, d, |o, i| {
                    for (o, &x) in o.iter_mut().zip(i[0]) {
                        *o = if (x as u32) < t { a } else { b };
                    }
                });
            } else {
                let (t, a, b) = (t[p] as u32, a[p] as u16, b[p] as u16);
                map_rows::<u16, u16>(&s, d, |o, i| {
                    for (o, &x) in o.iter_mut().zip(i[0]) {
                        *o = if (x as u32) < t { a } else { b };
                    }
                });
            }
        }
        Ok(())
    })?;
    Ok(())
}

// ---- Levels ------------------------------------------------------------------------------------------

fn levels(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let node = args.node("clip")?;
    let vi = util::video_info(&node)?;
    check_format(&vi.format)?;
    let fmt = vi.format;
    let np = fmt.numPlanes;
    let min_in = plane_values(&args, "min_in", np)?;
    let max_in = plane_values(&args, "max_in", np)?;
    let gamma = plane_values(&args, "gamma", np)?;
    let min_out = plane_values(&args, "min_out", np)?;
    let max_out = plane_values(&args, "max_out", np)?;
    let planes = planes_arg(&args, "planes")?;
    let float = fmt.sampleType == stFloat;
    let maxval = max_value(&fmt);
    let top = if float { 1.0 } else { maxval as f64 };
    // per plane: min_in, max_in, gamma, min_out, max_out
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
    // integer formats go through a table per plane
    let luts: Vec<Option<Arc<Vec<u16>>>> = (0..np as usize)
        .map(|p| {
            if float || !planes[p] {
                return None;
            }
            let [lo, hi, g, olo, ohi] = params[p].map(|v| v as f32);
            let range = hi - lo;
            let e = 1.0f32 / g;
            let orange = ohi - olo;
            let size = if fmt.bytesPerSample == 1 { 256 } else { 65536 };
            let table = (0..size)
                .map(|x| {
                    let v = (x as f32).max(lo).min(hi);
                    let v = (v - lo) / range;
                    let v = if g == 1.0 { v } else { cmath::powf(v, e) };
                    let o = v.mul_add(orange, olo);
                    (o + 0.5).floor().clamp(0.0, maxval as f32) as u16
                })
                .collect();
            Some(Arc::new(table))
        })
        .collect();
    pointwise_filter(out, core, "Levels", vi, node, planes, move |src, dst, stream| {
        for p in 0..np as usize {
            if !planes[p] {
                continue;
            }
            let s = [PlaneRef::new(src, p)?];
            let d = PlaneMut::output(dst, p, stream)?;
            if float {
                let [lo, hi, g, olo, ohi] = params[p].map(|v| v as f32);
                let rec = 1.0f32 / (hi - lo);
                let e = 1.0f32 / g;
                let orange = ohi - olo;
                let half = fmt.bytesPerSample == 2;
                if g == 1.0 {
                    // a straight line: one fused multiply-add
                    let scale = orange / (hi - lo);
                    // (inline(always): as in Merge, the closures must not be left out of line)
                    with_fast_math(#[inline(always)] || {
                        map_rows_f32(&s, &[half], d, half, #[inline(always)] |o, i| {
                            for (o, &x) in o.iter_mut().zip(i[0]) {
                                *o = (clamp_f32(x, lo, hi) - lo).mul_add(scale, olo);
                            }
                        })
                    });
                } else {
                    // The C library's powf is nearly all of the time, so it is called for the
                    // samples that need it alone: those clamped to the ends of the input range
                    // (black and white, every negative chroma sample) have exact powers already,
                    // as powf gives them (pow(1, y) = 1 for any y, pow(+0, y) = +0 for y > 0).
                    // Their indices are gathered without branches, which mispredicted on noisy
                    // chroma, and the scaling is one vector pass of fused multiply-adds.
                    let skip_zero = e > 0.0;
                    let mut idx: Vec<u32> = Vec::new();
                    map_rows_f32(&s, &[half], d, half, |o, i| {
                        for (o, &x) in o.iter_mut().zip(i[0]) {
                            *o = (clamp_f32(x, lo, hi) - lo) * rec;
                        }
                        idx.resize(o.len(), 0);
                        let mut n = 0;
                        for (k, &v) in o.iter().enumerate() {
                            idx[n] = k as u32;
                            n += (v != 1.0 && !(skip_zero && v.to_bits() == 0)) as usize;
                        }
                        for &k in &idx[..n] {
                            o[k as usize] = cmath::powf(o[k as usize], e);
                        }
                        scale_row(o, orange, olo);
                    });
                }
            } else {
                let table = luts[p].as_ref().expect("table built");
                if fmt.bytesPerSample == 1 {
                    let t: [u8; 256] = std::array::from_fn(|i| table[i] as u8);
                    map_rows::<u8, u8>(&s, d, |o, i| table8::apply(&t, i[0], o));
                } else {
                    let t: &[u16; 65536] = table[..].try_into().expect("full table");
                    map_rows::<u16, u16>(&s, d, |o, i| {
                        for (o, &x) in o.iter_mut().zip(i[0]) {
                            *o = t[x as usize];
                        }
                    });
                }
            }
        }
        Ok(())
    })?;
    Ok(())
}
