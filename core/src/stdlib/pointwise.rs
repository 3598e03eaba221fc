//! Pointwise filters still in the core: Merge, MaskedMerge, MakeDiff, MergeDiff,
//! MakeFullDiff, MergeFullDiff, PreMultiply. (Invert, InvertMask, Limiter, Levels, Binarize,
//! BinarizeMask, Lut, Lut2 and Expr moved to vsvk-std, with the AVX2 wrapper `fast_math` the
//! merges use from there.)
//!
//! Every filter here works row by row on plain slices so that the inner loops vectorise. Half
//! precision planes are widened to f32 a row at a time, processed by the f32 code and narrowed
//! again with round-to-nearest-even, which is what the reference does as well.
//!
//! The arithmetic (rounding of arguments, order of float operations, where a fused multiply-add
//! is used) was matched against the reference core by running it, sample for sample.
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use super::util::{self, Args, FnFilter};
use crate::core::Core;
use crate::format;
use crate::frame::Frame;
use crate::map::Map;
use crate::node::{MediaInfo, Node};

mod merge;

pub fn register(r: &super::Registrar) {
    merge::register(r);
}

// ---- shared helpers ------------------------------------------------------------------------------

/// A format's name as the reference prints it in messages.
pub(crate) fn fmt_name(f: &VSVideoFormat) -> String {
    if f.colorFamily == cfUndefined {
        return "Undefined".into();
    }
    format::video_name(f).unwrap_or_else(|| "Undefined".into())
}

/// `Gray8[64x8]`, `Gray8[undefined]`: a clip's format and size in messages.
pub(crate) fn clip_desc(vi: &VSVideoInfo) -> String {
    if vi.width == 0 || vi.height == 0 {
        format!("{}[undefined]", fmt_name(&vi.format))
    } else {
        format!("{}[{}x{}]", fmt_name(&vi.format), vi.width, vi.height)
    }
}

/// 8 to 16 bit integer or 16/32 bit float samples.
pub(crate) fn format_supported(f: &VSVideoFormat) -> bool {
    f.colorFamily != cfUndefined
        && ((f.sampleType == stInteger && (8..=16).contains(&f.bitsPerSample))
            || (f.sampleType == stFloat && (f.bitsPerSample == 16 || f.bitsPerSample == 32)))
}

/// The reference's check on the sample format of an input (or output) clip.
pub(crate) fn check_format(f: &VSVideoFormat) -> Result<(), String> {
    if format_supported(f) {
        Ok(())
    } else {
        Err(format!("Input clip must be constant format 8..16 bit integer or 16-32 bit float, passed {}.", fmt_name(f)))
    }
}

/// Same format and the same known dimensions.
pub(crate) fn same_format_and_size(a: &VSVideoInfo, b: &VSVideoInfo) -> bool {
    a.format == b.format && a.width == b.width && a.height == b.height && a.width > 0 && a.height > 0
}

/// The `planes` argument as the pointwise filters read it: indices 0..2 (a plane the clip does
/// not have is simply not there to process), each at most once; absent means every plane.
pub(crate) fn planes_arg(args: &Args, key: &str) -> Result<[bool; 3], PlanesError> {
    let Some(list) = args.ints(key) else {
        return Ok([true; 3]);
    };
    let mut out = [false; 3];
    for p in list {
        if !(0..3).contains(&p) {
            return Err(PlanesError::Range);
        }
        if out[p as usize] {
            return Err(PlanesError::Twice);
        }
        out[p as usize] = true;
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum PlanesError {
    Range,
    Twice,
}

impl PlanesError {
    pub(crate) fn message(self) -> String {
        match self {
            PlanesError::Range => "plane index out of range".into(),
            PlanesError::Twice => "plane specified twice".into(),
        }
    }
}

pub(crate) fn max_value(f: &VSVideoFormat) -> i64 {
    (1i64 << f.bitsPerSample) - 1
}

/// Chroma plane of a YUV format (float chroma is centred on zero).
pub(crate) fn is_chroma(f: &VSVideoFormat, p: usize) -> bool {
    f.colorFamily == cfYUV && p > 0
}

// ---- half precision --------------------------------------------------------------------------------

// Half to single precision and back (round to nearest even), a row at a time: the neighbourhood
// filters' conversions, F16C where the CPU has it. F16C quiets signalling NaNs on the way in;
// arithmetic quiets them too, and so does the narrowing for those a filter passes through
// untouched, so no output depends on it. (A table lookup per sample here kept half-float
// MakeDiff at 0.3x R81.)
pub(crate) use super::neighbour::plane::{f32_to_halves as f32_to_half_row, halves_to_f32 as half_to_f32_row};

// ---- planes as rows of samples ------------------------------------------------------------------

/// Samples a plane can hold.
pub(crate) trait Pix: Copy + Default + Send + Sync + 'static {}
impl Pix for u8 {}
impl Pix for u16 {}
impl Pix for u32 {}

/// A read-only view of one plane.
#[derive(Clone, Copy)]
pub(crate) struct PlaneRef {
    ptr: *const u8,
    stride: isize,
    pub width: usize,
    pub height: usize,
}

// SAFETY: a view into a frame that the caller keeps alive and nobody writes.
unsafe impl Send for PlaneRef {}
unsafe impl Sync for PlaneRef {}

impl PlaneRef {
    pub(crate) fn new(f: &Frame, p: usize) -> PlaneRef {
        let pl = &f.planes()[p];
        PlaneRef { ptr: f.read_ptr(p as i32).expect("plane exists"), stride: pl.stride, width: pl.width as usize, height: pl.height as usize }
    }
    /// A chroma plane of a resampled mask, which the caller keeps alive as it does frames.
    pub(crate) fn of_view(v: vsvk_resize::chroma_mask::PlaneView) -> PlaneRef {
        PlaneRef { ptr: v.ptr, stride: v.stride, width: v.width, height: v.height }
    }
    /// The same plane as the resampler reads it.
    pub(crate) fn view(&self) -> vsvk_resize::chroma_mask::PlaneView {
        vsvk_resize::chroma_mask::PlaneView { ptr: self.ptr, stride: self.stride, width: self.width, height: self.height }
    }
    #[inline(always)]
    pub(crate) fn row<T>(&self, y: usize) -> &[T] {
        debug_assert!(y < self.height);
        // SAFETY: row `y` lies inside the plane and holds `width` samples of the plane's type.
        unsafe { std::slice::from_raw_parts(self.ptr.offset(y as isize * self.stride).cast::<T>(), self.width) }
    }
}

/// A writable view of one plane of a frame this filter owns.
pub(crate) struct PlaneMut {
    ptr: *mut u8,
    stride: isize,
    pub width: usize,
    pub height: usize,
    /// fill_rows (and map_rows on it) and map_rows_f32 write the rows with streaming stores (see `stream`).
    stream: bool,
}

impl PlaneMut {
    pub(crate) fn new(f: &mut Frame, p: usize) -> PlaneMut {
        // SAFETY: `&mut Frame` means we hold the only reference; write_ptr makes the plane ours.
        let ptr = unsafe { f.write_ptr(p as i32) }.expect("plane exists");
        let pl = &f.planes()[p];
        PlaneMut { ptr, stride: pl.stride, width: pl.width as usize, height: pl.height as usize, stream: false }
    }
    /// Plane `p` of a new frame of `core` that fill_rows, map_rows or map_rows_f32 fill: streamed past the
    /// caches where frames this large overflow them.
    pub(crate) fn output(f: &mut Frame, p: usize, core: &Core) -> PlaneMut {
        let stream = super::stream::stream_outputs(core, super::stream::frame_bytes(f));
        PlaneMut { stream, ..PlaneMut::new(f, p) }
    }
    #[inline(always)]
    pub(crate) fn row<T>(&mut self, y: usize) -> &mut [T] {
        debug_assert!(y < self.height);
        // SAFETY: rows are disjoint and inside the plane.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.offset(y as isize * self.stride).cast::<T>(), self.width) }
    }
}

/// Fills every output row with `f(row, y)`. Where `dst` is streamed, `f` fills a buffer that
/// then goes to the plane with streaming stores.
#[inline(always)]
pub(crate) fn fill_rows<U: Pix>(mut dst: PlaneMut, mut f: impl FnMut(&mut [U], usize)) {
    let mut out = if dst.stream { vec![U::default(); dst.width] } else { Vec::new() };
    for y in 0..dst.height {
        // one call of `f`: with two (one per branch) the compiler kept `f` out of line, outside
        // the caller's target features (PreMultiply's floor became a library call)
        let row: &mut [U] = if dst.stream { &mut out } else { dst.row::<U>(y) };
        f(row, y);
        if dst.stream {
            super::stream::copy_row(&out, dst.row::<U>(y));
        }
    }
    if dst.stream {
        super::stream::fence();
    }
}

/// Applies `f` to every row: integer samples of type `T` to `U`.
#[inline(always)]
pub(crate) fn map_rows<T: Pix, U: Pix>(src: &[PlaneRef], dst: PlaneMut, mut f: impl FnMut(&mut [U], &[&[T]])) {
    let mut rows: Vec<&[T]> = Vec::with_capacity(src.len());
    fill_rows(dst, |o, y| {
        rows.clear();
        rows.extend(src.iter().map(|s| s.row::<T>(y)));
        f(o, &rows);
    });
}

/// Applies `f` to every row of float samples; half precision planes are widened and narrowed
/// around it. `half_in[i]` says whether input `i` holds halves.
#[inline(always)]
pub(crate) fn map_rows_f32(src: &[PlaneRef], half_in: &[bool], mut dst: PlaneMut, half_out: bool, mut f: impl FnMut(&mut [f32], &[&[f32]])) {
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
                super::stream::copy_row(&out, dst.row::<f32>(y));
            }
        }
    }
    if dst.stream {
        super::stream::fence();
    }
}

/// A new frame for the output with `src`'s properties; planes not in `process` are shared with
/// `src` (they pass through unchanged), the others are new and for the caller to fill.
pub(crate) fn new_frame_like(core: &Core, fmt: &VSVideoFormat, src: &Frame, process: &[bool; 3]) -> Result<Frame, String> {
    if src.video_format() != Some(fmt) {
        let f = util::new_video(core, fmt, src.width, src.height, Some(src))?;
        for p in 0..fmt.numPlanes as usize {
            if !process[p] {
                // SAFETY: `f` is new and not shared; the plane has the same format and size.
                unsafe { f.set_plane(p, src.planes()[p].clone()) };
            }
        }
        return Ok(f);
    }
    // same format: share everything, then give the processed planes buffers of their own
    let f = src.shallow_copy();
    for p in 0..fmt.numPlanes as usize {
        if process[p] {
            let (w, h) = format::plane_dims(fmt, src.width, src.height, p);
            let stride = crate::frame::aligned_stride(w as usize * fmt.bytesPerSample as usize);
            let buf = Arc::new(crate::frame::Buffer::new_unzeroed(stride * h as usize, &core.mem));
            // SAFETY: `f` is new and not shared; the plane has the size and stride of the format.
            unsafe { f.set_plane(p, crate::frame::Plane { buf, offset: 0, stride: stride as isize, width: w, height: h }) };
        }
    }
    Ok(f)
}

/// A filter whose frame n comes from frame n of each input (the last frame of a shorter input).
pub(crate) fn pointwise_node(
    core: &Arc<Core>,
    name: &str,
    vi: VSVideoInfo,
    inputs: Vec<Arc<Node>>,
    make: impl Fn(i32, &[Arc<Frame>], &Arc<Core>) -> Result<Arc<Frame>, String> + Send + Sync + 'static,
) -> Result<Arc<Node>, String> {
    if let Some(m) = super::geometry::residency_mismatch(&inputs) {
        return Err(m);
    }
    util::on_host(core, inputs, |inputs| {
        let lens: Vec<i32> = inputs.iter().map(|n| n.num_frames()).collect();
        // a shorter input gives its last frame again: declared as R81 does
        let deps = inputs.iter().zip(&lens).map(|(n, &len)| (n.clone(), vsvk_plugin_api::filter::spatial_pattern(len, vi.numFrames))).collect();
        let filter = FnFilter {
            inputs,
            requests: Box::new(move |n| lens.iter().enumerate().map(|(i, &len)| (i, n.min(len - 1).max(0))).collect()),
            make: Box::new(make),
        };
        util::make_node(core, name, MediaInfo::Video(vi), Box::new(filter), fmParallel, deps)
    })
}

pub(crate) fn frame_format(f: &Frame) -> VSVideoFormat {
    *f.video_format().expect("video frame")
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

