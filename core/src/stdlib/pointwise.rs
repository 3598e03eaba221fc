//! The pointwise filter still in the core: Expr. (Invert, InvertMask, Limiter, Levels, Binarize,
//! BinarizeMask, Lut, Lut2, Merge, MaskedMerge, MakeDiff, MergeDiff, MakeFullDiff, MergeFullDiff
//! and PreMultiply moved to vsvk-std, with the C library's float functions `cmath`, the 8-bit
//! table lookup `table8` and `with_fast_math` that Expr shares.)
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

use vsvk_std::pointwise::{cmath, table8};

mod expr;
#[cfg(target_arch = "x86_64")]
mod expr_jit;

pub fn register(r: &super::Registrar) {
    expr::register(r);
}

// ---- shared helpers ------------------------------------------------------------------------------

/// A format's name as the reference prints it in messages.
pub(crate) fn fmt_name(f: &VSVideoFormat) -> String {
    if f.colorFamily == cfUndefined {
        return "Undefined".into();
    }
    format::video_name(f).unwrap_or_else(|| "Undefined".into())
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

pub(crate) fn max_value(f: &VSVideoFormat) -> i64 {
    (1i64 << f.bitsPerSample) - 1
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
}

impl PlaneMut {
    pub(crate) fn new(f: &mut Frame, p: usize) -> PlaneMut {
        // SAFETY: `&mut Frame` means we hold the only reference; write_ptr makes the plane ours.
        let ptr = unsafe { f.write_ptr(p as i32) }.expect("plane exists");
        let pl = &f.planes()[p];
        PlaneMut { ptr, stride: pl.stride, width: pl.width as usize, height: pl.height as usize }
    }
    #[inline(always)]
    pub(crate) fn row<T>(&mut self, y: usize) -> &mut [T] {
        debug_assert!(y < self.height);
        // SAFETY: rows are disjoint and inside the plane.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.offset(y as isize * self.stride).cast::<T>(), self.width) }
    }
}

/// Fills every output row with `f(row, y)`.
#[inline(always)]
pub(crate) fn fill_rows<U: Pix>(mut dst: PlaneMut, mut f: impl FnMut(&mut [U], usize)) {
    for y in 0..dst.height {
        f(dst.row::<U>(y), y);
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
