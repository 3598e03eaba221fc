//! Geometry: Crop, CropAbs, CropRel, AddBorders, FlipVertical, FlipHorizontal, Transpose, Turn180,
//! Turn90, Turn270, StackHorizontal, StackVertical, ShufflePlanes, SplitPlanes. Each reads and
//! writes samples in host memory: GPU clips are brought down first and the result goes back up.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::node::Node;
use vsvk_plugin_api::plugin::Registrar;
use vsvk_plugin_api::residency::on_host;
use vsvk_plugin_api::values::{MapRead, MapWrite};
use vsvk_plugin_api::{Error, Result};

use crate::util::{dst_plane, is_constant, residency_mismatch, src_plane, video_info, Dst, Src};
use vsvk_plugin_api::simd::f32_to_half;

pub fn register(r: &Registrar) {
    r.function("Crop", "clip:vnode:all;left:int:opt;right:int:opt;top:int:opt;bottom:int:opt;", "clip:vnode:all;", crop_rel);
    r.function("CropAbs", "clip:vnode:all;width:int;height:int;left:int:opt;top:int:opt;x:int:opt;y:int:opt;", "clip:vnode:all;", crop_abs);
    r.function("CropRel", "clip:vnode:all;left:int:opt;right:int:opt;top:int:opt;bottom:int:opt;", "clip:vnode:all;", crop_rel);
    r.function("AddBorders", "clip:vnode:all;left:int:opt;right:int:opt;top:int:opt;bottom:int:opt;color:float[]:opt;", "clip:vnode:all;", add_borders);
    r.function("ShufflePlanes", "clips:vnode[]:all;planes:int[];colorfamily:int;prop_src:vnode:all:opt;", "clip:vnode:all;", shuffle_planes);
    r.function("SplitPlanes", "clip:vnode:all;", "clip:vnode[]:all;", split_planes);
    r.function("StackVertical", "clips:vnode[]:all;", "clip:vnode:all;", stack_vertical);
    r.function("StackHorizontal", "clips:vnode[]:all;", "clip:vnode:all;", stack_horizontal);
    r.function("Transpose", "clip:vnode:all;", "clip:vnode:all;", transpose);
    r.function("FlipVertical", "clip:vnode:all;", "clip:vnode:all;", flip_vertical);
    r.function("FlipHorizontal", "clip:vnode:all;", "clip:vnode:all;", flip_horizontal);
    r.function("Turn180", "clip:vnode:all;", "clip:vnode:all;", turn180);
    r.function("Turn90", "clip:vnode:all;", "clip:vnode:all;", turn90);
    r.function("Turn270", "clip:vnode:all;", "clip:vnode:all;", turn270);
}

/// Runs `$body` with `$t` bound to the unsigned type of a sample of `$bps` bytes.
macro_rules! by_size {
    ($bps:expr, $t:ident => $body:expr) => {
        match $bps {
            1 => {
                type $t = u8;
                $body
            }
            2 => {
                type $t = u16;
                $body
            }
            _ => {
                type $t = u32;
                $body
            }
        }
    };
}

/// A host-memory filter of `f` on `inputs` (frame n of each), returned under `clip`: on the GPU
/// when the first input is.
fn pixel_filter<F: Filter>(out: &mut Out, core: Core, name: &str, info: VSVideoInfo, inputs: Vec<Node>, f: F) -> Result<()> {
    let node = on_host(core, inputs, |inputs| filter::create_node(core, Spec { name: name.into(), info, inputs, gpu_output: false }, f, fmParallel))?;
    out.set_node("clip", node);
    Ok(())
}

fn frame_format(f: &Frame) -> Result<VSVideoFormat> {
    f.video_format().ok_or_else(|| Error::whole("only video frames are supported"))
}

fn first(frames: Vec<Frame>) -> Result<Frame> {
    frames.into_iter().next().ok_or_else(|| Error::whole("internal error: a requested frame is missing"))
}

// ---- Crop ----------------------------------------------------------------------------------------

#[derive(Clone, Copy)]
struct CropRect {
    x: i64,
    y: i64,
    w: i64,
    h: i64,
}

/// R81's checks, in its order: the subsampling (only with a known format), the size, the corner,
/// then the frame's bounds (only with known dimensions). The messages say `Crop: ` for CropAbs
/// too, as R81's do, so they are shown as they are.
fn check_crop(r: CropRect, fmt: Option<&VSVideoFormat>, size: Option<(i32, i32)>) -> Result<()> {
    if let Some(f) = fmt {
        let (mw, mh) = (1i64 << f.subSamplingW, 1i64 << f.subSamplingH);
        if r.y % mh != 0 {
            return Err(Error::whole(format!("Crop: cropped area needs to have mod {mh} height offset")));
        }
        if r.x % mw != 0 {
            return Err(Error::whole(format!("Crop: cropped area needs to have mod {mw} width offset")));
        }
        if r.h % mh != 0 {
            return Err(Error::whole(format!("Crop: cropped area needs to have mod {mh} height")));
        }
        if r.w % mw != 0 {
            return Err(Error::whole(format!("Crop: cropped area needs to have mod {mw} width")));
        }
    }
    if r.w <= 0 || r.h <= 0 {
        return Err(Error::whole("Crop: negative/zero cropping dimensions not allowed"));
    }
    if r.x < 0 || r.y < 0 {
        return Err(Error::whole("Crop: negative corner coordinates not allowed"));
    }
    if let Some((w, h)) = size {
        if r.x + r.w > w as i64 || r.y + r.h > h as i64 {
            return Err(Error::whole("Crop: cropped area extends beyond frame dimensions"));
        }
    }
    Ok(())
}

struct CropFilter {
    r: CropRect,
}

impl Filter for CropFilter {
    const SPATIAL: bool = true;

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let (src, r) = (first(frames)?, self.r);
        let fmt = frame_format(&src)?;
        check_crop(r, Some(&fmt), Some((src.width(0), src.height(0))))?;
        let mut out = FrameMut::new_video(core, &fmt, r.w as i32, r.h as i32, Some(&src)).map_err(|e| Error::whole(e.to_string()))?;
        let bps = fmt.bytesPerSample as usize;
        for p in 0..fmt.numPlanes as usize {
            let (sx, sy) = if p == 0 { (0, 0) } else { (fmt.subSamplingW, fmt.subSamplingH) };
            let (x0, y0) = ((r.x >> sx) as usize, (r.y >> sy) as usize);
            let s = src_plane(&src, p)?;
            let d = dst_plane(&mut out, p)?;
            // SAFETY: `out` is ours; rows stay inside both planes (checked above).
            unsafe {
                for y in 0..d.h {
                    let from = s.ptr.offset((y + y0) as isize * s.stride).add(x0 * bps);
                    std::ptr::copy_nonoverlapping(from, d.ptr.offset(y as isize * d.stride), d.w * bps);
                }
            }
        }
        Ok(out.freeze())
    }
}

/// Errors here are R81's own words (`Crop: ` also for CropAbs, whose node R81 names Crop too),
/// shown as they are.
fn make_crop(out: &mut Out, core: Core, clip: Node, vi: VSVideoInfo, r: CropRect) -> Result<()> {
    let known_fmt = (vi.format.colorFamily != cfUndefined).then_some(&vi.format);
    let known_size = (vi.width > 0 && vi.height > 0).then_some((vi.width, vi.height));
    check_crop(r, known_fmt, known_size)?;
    let mut ovi = vi;
    ovi.width = r.w as i32;
    ovi.height = r.h as i32;
    pixel_filter(out, core, "Crop", ovi, vec![clip], CropFilter { r }).map_err(|e| match e {
        Error::Whole(m) => Error::Whole(m),
        e => Error::whole(e.to_string()),
    })
}

fn int_or0(args: &Args, k: &str) -> Result<i64> {
    Ok(args.int(k)?.unwrap_or(0))
}

fn crop_rel(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let vi = video_info(&clip)?;
    if !is_constant(&vi) {
        return Err(Error::whole("Crop: constant format and dimensions needed"));
    }
    let (l, r, t, b) = (int_or0(args, "left")?, int_or0(args, "right")?, int_or0(args, "top")?, int_or0(args, "bottom")?);
    let rect = CropRect { x: l, y: t, w: vi.width as i64 - l - r, h: vi.height as i64 - t - b };
    make_crop(out, core, clip, vi, rect)
}

fn crop_abs(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let vi = video_info(&clip)?;
    let x = match args.int("left")? {
        Some(v) => v,
        None => int_or0(args, "x")?,
    };
    let y = match args.int("top")? {
        Some(v) => v,
        None => int_or0(args, "y")?,
    };
    let rect = CropRect { x, y, w: int_or0(args, "width")?, h: int_or0(args, "height")? };
    // R81 names CropAbs's node Crop too (graph inspection shows it)
    make_crop(out, core, clip, vi, rect)
}

// ---- AddBorders ----------------------------------------------------------------------------------

/// The raw sample for a colour value, or None when it is outside what the format holds. Integer
/// values round half up; float values must stay finite in the sample's precision.
fn color_sample(fmt: &VSVideoFormat, v: f64) -> Option<u32> {
    if fmt.sampleType == stInteger {
        if v < 0.0 {
            return None;
        }
        let r = (v + 0.5).floor();
        let max = ((1u64 << fmt.bitsPerSample) - 1) as f64;
        if r.is_nan() || r > max {
            return None;
        }
        Some(r as u32)
    } else if fmt.bytesPerSample == 2 {
        let h = f32_to_half(v as f32);
        if h & 0x7c00 == 0x7c00 {
            return None;
        }
        Some(h as u32)
    } else {
        let f = v as f32;
        if !f.is_finite() {
            return None;
        }
        Some(f.to_bits())
    }
}

/// Black: zero, with integer YUV chroma at the middle of the range.
fn black(fmt: &VSVideoFormat) -> [u32; 3] {
    let mut c = [0u32; 3];
    if fmt.colorFamily == cfYUV && fmt.sampleType == stInteger {
        c[1] = 1 << (fmt.bitsPerSample - 1);
        c[2] = c[1];
    }
    c
}

fn fill_row(row: *mut u8, bps: usize, n: usize, v: u32) {
    // SAFETY: the caller gives `n` samples of `bps` bytes at `row`.
    unsafe {
        by_size!(bps, T => std::slice::from_raw_parts_mut(row.cast::<T>(), n).fill(v as T))
    }
}

struct AddBordersFilter {
    fmt: VSVideoFormat,
    l: i64,
    r: i64,
    t: i64,
    b: i64,
    color: [u32; 3],
}

impl Filter for AddBordersFilter {
    const SPATIAL: bool = true;

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let src = first(frames)?;
        let Self { fmt, l, r, t, b, color } = *self;
        let w = src.width(0) + (l + r) as i32;
        let h = src.height(0) + (t + b) as i32;
        let mut f = FrameMut::new_video(core, &fmt, w, h, Some(&src)).map_err(|e| Error::whole(e.to_string()))?;
        let bps = fmt.bytesPerSample as usize;
        for (p, &v) in color.iter().enumerate().take(fmt.numPlanes as usize) {
            let (sx, sy) = if p == 0 { (0, 0) } else { (fmt.subSamplingW, fmt.subSamplingH) };
            let (pl, pt) = ((l >> sx) as usize, (t >> sy) as usize);
            let s = src_plane(&src, p)?;
            let d = dst_plane(&mut f, p)?;
            // SAFETY: `f` is ours; all writes stay inside its plane.
            unsafe {
                for y in 0..d.h {
                    let row = d.ptr.offset(y as isize * d.stride);
                    if y < pt || y >= pt + s.h {
                        fill_row(row, bps, d.w, v);
                    } else {
                        fill_row(row, bps, pl, v);
                        std::ptr::copy_nonoverlapping(s.ptr.offset((y - pt) as isize * s.stride), row.add(pl * bps), s.w * bps);
                        fill_row(row.add((pl + s.w) * bps), bps, d.w - pl - s.w, v);
                    }
                }
            }
        }
        Ok(f.freeze())
    }
}

fn add_borders(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let vi = video_info(&clip)?;
    let (l, r, t, b) = (int_or0(args, "left")?, int_or0(args, "right")?, int_or0(args, "top")?, int_or0(args, "bottom")?);
    if l < 0 || r < 0 || t < 0 || b < 0 {
        return Err(Error::invalid("border size to add must not be negative"));
    }
    if vi.format.colorFamily == cfUndefined {
        return Err(Error::invalid("input needs to be constant format"));
    }
    let fmt = vi.format;
    let (mw, mh) = (1i64 << fmt.subSamplingW, 1i64 << fmt.subSamplingH);
    if t % mh != 0 || b % mh != 0 {
        return Err(Error::invalid(format!("added area needs to have mod {mh} height")));
    }
    if l % mw != 0 || r % mw != 0 {
        return Err(Error::invalid(format!("added area needs to have mod {mw} width")));
    }
    if l == 0 && r == 0 && t == 0 && b == 0 {
        out.set_node("clip", clip);
        return Ok(());
    }
    let mut color = black(&fmt);
    if let Some(c) = args.floats("color")? {
        if c.len() != fmt.numPlanes as usize {
            return Err(Error::invalid("invalid number of color values specified"));
        }
        for (i, &v) in c.iter().enumerate() {
            color[i] = color_sample(&fmt, v).ok_or_else(|| Error::invalid("color value out of range"))?;
        }
    }
    let mut ovi = vi;
    if vi.width > 0 {
        let (w, h) = (vi.width as i64 + l + r, vi.height as i64 + t + b);
        if w > i32::MAX as i64 || h > i32::MAX as i64 {
            return Err(Error::invalid("resulting frame is too big"));
        }
        ovi.width = w as i32;
        ovi.height = h as i32;
    }
    pixel_filter(out, core, "AddBorders", ovi, vec![clip], AddBordersFilter { fmt, l, r, t, b, color })
}

// ---- flips and turns -----------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Orient {
    FlipV,
    FlipH,
    Turn180,
    Transpose,
    Turn90,
    Turn270,
}

impl Orient {
    fn swaps(self) -> bool {
        matches!(self, Orient::Transpose | Orient::Turn90 | Orient::Turn270)
    }
}

/// The format of a clip with rows and columns swapped.
fn swapped_format(core: Core, f: &VSVideoFormat) -> Option<VSVideoFormat> {
    core.query_video_format(f.colorFamily, f.sampleType, f.bitsPerSample, f.subSamplingH, f.subSamplingW)
}

/// `dst` = `src` in reverse order (same length).
fn reverse_row<T: Copy>(dst: &mut [T], src: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        let e = std::mem::size_of::<T>();
        assert_eq!(dst.len(), src.len());
        if matches!(e, 1 | 2 | 4 | 8) && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected; the slices are views of `T`, plain data of `e` bytes.
            unsafe {
                let n = std::mem::size_of_val(dst);
                let d = std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u8>(), n);
                let s = std::slice::from_raw_parts(src.as_ptr().cast::<u8>(), n);
                return reverse_bytes_avx2(d, s, e);
            }
        }
    }
    // a reversed iterator compiles to a scalar loop: the fallback only
    for (a, b) in dst.iter_mut().zip(src.iter().rev()) {
        *a = *b;
    }
}

/// Reverses the order of the `e`-byte elements of `s` into `d`, 32 bytes per shuffle and lane
/// swap (the reversed iterator stayed scalar in some instantiations: Turn180 at 16 bits was 0.38x
/// R81 while FlipHorizontal, the same loop, was 3x).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn reverse_bytes_avx2(d: &mut [u8], s: &[u8], e: usize) {
    use std::arch::x86_64::*;
    let n = d.len();
    // within each 16-byte lane: byte i takes byte 16 - e - (i / e) * e + i % e
    let mask: [u8; 32] = std::array::from_fn(|i| {
        let i = i % 16;
        (16 - e - (i / e) * e + i % e) as u8
    });
    let m = _mm256_loadu_si256(mask.as_ptr().cast());
    let blocks = n / 32;
    for k in 0..blocks {
        // SAFETY (caller): k * 32 + 32 <= n for both slices.
        let v = _mm256_loadu_si256(s.as_ptr().add(n - 32 * (k + 1)).cast());
        let r = _mm256_permute2x128_si256::<0x01>(_mm256_shuffle_epi8(v, m), _mm256_shuffle_epi8(v, m));
        _mm256_storeu_si256(d.as_mut_ptr().add(32 * k).cast(), r);
    }
    let done = blocks * 32;
    // the rest, element by element: d[done..] takes s[..n - done] reversed
    for j in (done..n).step_by(e) {
        let from = n - e - j;
        d[j..j + e].copy_from_slice(&s[from..from + e]);
    }
}

/// Writes `s` into `d` under the orientation: d[y][x] = s[sy][sx].
///
/// # Safety
/// Both planes hold samples of T and have the matching sizes.
unsafe fn orient_plane<T: Copy>(s: Src, d: Dst, o: Orient) {
    match o {
        Orient::FlipV => {
            for y in 0..d.h {
                d.row::<T>(y).copy_from_slice(s.row::<T>(s.h - 1 - y));
            }
        }
        Orient::FlipH | Orient::Turn180 => {
            for y in 0..d.h {
                let sy = if o == Orient::FlipH { y } else { s.h - 1 - y };
                let (dr, sr) = (d.row::<T>(y), s.row::<T>(sy));
                reverse_row(dr, sr);
            }
        }
        _ if std::mem::size_of::<T>() == 1 => turn_bytes(s, d, o),
        #[cfg(target_arch = "x86_64")]
        _ if std::mem::size_of::<T>() == 2 => turn_blocks::<u16, 8>(s, d, o, transpose8x16),
        #[cfg(target_arch = "x86_64")]
        _ if std::mem::size_of::<T>() == 4 => {
            if std::arch::is_x86_feature_detected!("avx") {
                turn_u32_avx(s, d, o)
            } else {
                turn_blocks::<u32, 4>(s, d, o, transpose4x32)
            }
        }
        _ => {
            // d is s.h wide and s.w high. In 16 x 16 tiles read row by row into a small array and
            // written back as whole destination rows: both planes stay in cache and the inner
            // loops have fixed sizes the compiler can unroll (a per-sample address computation
            // with the orientation decided inside the loop was half R81's speed).
            const B: usize = 16;
            let dest = |dy: usize| -> *mut T { d.ptr.offset(dy as isize * d.stride).cast::<T>() };
            for by in (0..s.h).step_by(B) {
                for bx in (0..s.w).step_by(B) {
                    let (hb, wb) = ((s.h - by).min(B), (s.w - bx).min(B));
                    let first = s.row::<T>(by)[bx];
                    let mut t = [[first; B]; B];
                    if hb == B && wb == B {
                        // fixed bounds: unrolled into shuffles
                        let rows: [&[T]; B] = std::array::from_fn(|i| &s.row::<T>(by + i)[bx..bx + B]);
                        for (j, tj) in t.iter_mut().enumerate() {
                            for (i, r) in rows.iter().enumerate() {
                                tj[i] = r[j];
                            }
                        }
                    } else {
                        for i in 0..hb {
                            let r = &s.row::<T>(by + i)[bx..bx + wb];
                            for (j, &v) in r.iter().enumerate() {
                                t[j][i] = v;
                            }
                        }
                    }
                    for (j, col) in t.iter().enumerate().take(wb) {
                        let sx = bx + j;
                        let col = &col[..hb];
                        match o {
                            Orient::Transpose => std::slice::from_raw_parts_mut(dest(sx).add(by), hb).copy_from_slice(col),
                            // clockwise: source row sy lands in column s.h - 1 - sy
                            Orient::Turn90 => {
                                let row = std::slice::from_raw_parts_mut(dest(sx).add(s.h - by - hb), hb);
                                for (a, &v) in row.iter_mut().zip(col.iter().rev()) {
                                    *a = v;
                                }
                            }
                            _ => std::slice::from_raw_parts_mut(dest(s.w - 1 - sx).add(by), hb).copy_from_slice(col),
                        }
                    }
                }
            }
        }
    }
}

/// Transposes an 8 x 8 block of bytes held as eight rows of a u64 each (byte j of row i is sample
/// (i, j)): three rounds of swapping the off-diagonal halves of 2x2, 4x4 and 8x8 sub-blocks.
#[inline(always)]
fn transpose8(r: &mut [u64; 8]) {
    for (dist, shift, mask) in [(1, 8, 0x00ff_00ff_00ff_00ffu64), (2, 16, 0x0000_ffff_0000_ffff), (4, 32, 0x0000_0000_ffff_ffff)] {
        for i in 0..8 {
            if i & dist == 0 {
                let t = ((r[i] >> shift) ^ r[i + dist]) & mask;
                r[i + dist] ^= t;
                r[i] ^= t << shift;
            }
        }
    }
}

/// The 16 x 16 block of bytes whose rows start at `rows`, as its 16 columns: four rounds of
/// interleaving row i with row i + 8 (each round halves the distance between the bytes of a
/// column; after four every column is whole and in order).
///
/// # Safety
/// Each pointer points to 16 readable bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn transpose16(rows: &[*const u8; 16]) -> [std::arch::x86_64::__m128i; 16] {
    use std::arch::x86_64::*;
    // SAFETY: 16 readable bytes at each pointer (the caller's contract).
    let mut r: [__m128i; 16] = std::array::from_fn(|i| unsafe { _mm_loadu_si128(rows[i].cast()) });
    for _ in 0..4 {
        r = std::array::from_fn(|k| {
            let i = k / 2;
            if k % 2 == 0 {
                _mm_unpacklo_epi8(r[i], r[i + 8])
            } else {
                _mm_unpackhi_epi8(r[i], r[i + 8])
            }
        });
    }
    r
}

/// The B x B block whose rows start at `rows` as its B columns, for B 16-bit samples a row (B =
/// 8) or 32-bit ones (B = 4): rounds of interleaving row i with row i + B/2 (each round halves
/// the distance between the samples of a column; after log2 B rounds every column is whole and
/// in order), as `transpose16` does with bytes.
///
/// # Safety
/// Each pointer points to 16 readable bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn transpose8x16(rows: &[*const u16; 8]) -> [std::arch::x86_64::__m128i; 8] {
    use std::arch::x86_64::*;
    // SAFETY: 16 readable bytes at each pointer (the caller's contract).
    let mut r: [__m128i; 8] = std::array::from_fn(|i| unsafe { _mm_loadu_si128(rows[i].cast()) });
    for _ in 0..3 {
        r = std::array::from_fn(|k| if k % 2 == 0 { _mm_unpacklo_epi16(r[k / 2], r[k / 2 + 4]) } else { _mm_unpackhi_epi16(r[k / 2], r[k / 2 + 4]) });
    }
    r
}

/// As `transpose8x16`, for 4 x 4 blocks of 32-bit samples.
///
/// # Safety
/// Each pointer points to 16 readable bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn transpose4x32(rows: &[*const u32; 4]) -> [std::arch::x86_64::__m128i; 4] {
    use std::arch::x86_64::*;
    // SAFETY: 16 readable bytes at each pointer (the caller's contract).
    let mut r: [__m128i; 4] = std::array::from_fn(|i| unsafe { _mm_loadu_si128(rows[i].cast()) });
    for _ in 0..2 {
        r = std::array::from_fn(|k| if k % 2 == 0 { _mm_unpacklo_epi32(r[k / 2], r[k / 2 + 2]) } else { _mm_unpackhi_epi32(r[k / 2], r[k / 2 + 2]) });
    }
    r
}

/// Transpose, Turn90 and Turn270 of 16- and 32-bit planes: B x B blocks of 16 bytes a row
/// through SSE2 (baseline on x86-64), a strip of B source rows at a time (read as B sequential
/// streams; square tiles of 32 to 64 samples were up to 1.8x slower here), the right and bottom
/// strips sample by sample. A 16 x 16 tile copied through an array was slower than R81 (the
/// column stores of run-time length were calls to memmove).
///
/// # Safety
/// As for `orient_plane`, with samples of T (`B` of them are 16 bytes).
#[cfg(target_arch = "x86_64")]
// compiled on its own: inlined into the filter's get_frame (as it was after the move to vsvk-std)
// its loops took 3% more instructions than in the core's closure (callgrind, 16-bit Transpose)
#[inline(never)]
unsafe fn turn_blocks<T: Copy, const B: usize>(s: Src, d: Dst, o: Orient, tr: unsafe fn(&[*const T; B]) -> [std::arch::x86_64::__m128i; B]) {
    let at = |dx: usize, dy: usize| -> *mut T { d.ptr.offset(dy as isize * d.stride).cast::<T>().add(dx) };
    // where source sample (sx, sy) goes
    let dest = |sx: usize, sy: usize| match o {
        Orient::Transpose => (sy, sx),
        Orient::Turn90 => (s.h - 1 - sy, sx),
        _ => (sy, s.w - 1 - sx),
    };
    let (wb, hb) = (s.w / B * B, s.h / B * B);
    // Turn90 reads a block's rows bottom up, which reverses each column as it needs
    let up = o == Orient::Turn90;
    for by in (0..hb).step_by(B) {
        for bx in (0..wb).step_by(B) {
            let rows: [*const T; B] = std::array::from_fn(|i| s.row::<T>(if up { by + B - 1 - i } else { by + i }).as_ptr().add(bx));
            let cols = tr(&rows);
            for (j, c) in cols.iter().enumerate() {
                let (dx, dy) = dest(bx + j, if up { by + B - 1 } else { by });
                std::arch::x86_64::_mm_storeu_si128(at(dx, dy).cast(), *c);
            }
        }
    }
    turn_rest::<T>(&s, &d, o, wb, hb);
}

/// The samples of a turn outside the whole blocks: columns from `wb` on in rows above `hb`, and
/// every row from `hb` on.
///
/// # Safety
/// As for `orient_plane`, with samples of T.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn turn_rest<T: Copy>(s: &Src, d: &Dst, o: Orient, wb: usize, hb: usize) {
    for sy in 0..s.h {
        let row = s.row::<T>(sy);
        let from = if sy < hb { wb } else { 0 };
        for (sx, &v) in row.iter().enumerate().skip(from) {
            let (dx, dy) = match o {
                Orient::Transpose => (sy, sx),
                Orient::Turn90 => (s.h - 1 - sy, sx),
                _ => (sy, s.w - 1 - sx),
            };
            *d.ptr.offset(dy as isize * d.stride).cast::<T>().add(dx) = v;
        }
    }
}

/// As `turn_blocks` for 32-bit samples in 8 x 8 blocks through AVX: each destination row gets
/// 32 bytes per block instead of 16 (half as many partial cache lines in flight).
///
/// # Safety
/// As for `orient_plane`, with 32-bit samples; the CPU has AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn turn_u32_avx(s: Src, d: Dst, o: Orient) {
    let (wb, hb) = (s.w / 8 * 8, s.h / 8 * 8);
    let up = o == Orient::Turn90;
    // Four blocks one above the other give each destination row 128 contiguous bytes, two whole
    // cache lines where the row is aligned (one block wrote half lines, completed a strip later:
    // Transpose of float 1080p at 16 threads 0.81x R81, 1.0x stacked by four, 0.94x by two; 16-bit
    // planes were slower stacked and keep single blocks); the rows below the last stack go one
    // block at a time. Turn90 fills its destination rows from the right, not aligned to the
    // stacks where the height is no multiple of 32: its blocks stay single, which measured faster.
    let k = if o == Orient::Turn90 { 1 } else { 4 };
    let hb2 = s.h / (8 * k) * (8 * k);
    for by in (0..hb2).step_by(8 * k) {
        for bx in (0..wb).step_by(8) {
            for i in 0..k {
                block_u32_avx(&s, &d, o, up, bx, by + 8 * i);
            }
        }
    }
    for by in (hb2..hb).step_by(8) {
        for bx in (0..wb).step_by(8) {
            block_u32_avx(&s, &d, o, up, bx, by);
        }
    }
    turn_rest::<u32>(&s, &d, o, wb, hb);
}

/// One 8 x 8 block of `turn_u32_avx`: source columns bx.. of rows by.. (read bottom up for
/// Turn90) into its place.
///
/// # Safety
/// As for `turn_u32_avx`; bx + 8 <= w and by + 8 <= h.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
unsafe fn block_u32_avx(s: &Src, d: &Dst, o: Orient, up: bool, bx: usize, by: usize) {
    use std::arch::x86_64::*;
    let at = |dx: usize, dy: usize| -> *mut f32 { d.ptr.offset(dy as isize * d.stride).cast::<f32>().add(dx) };
    // plain loops, not closures: they are compiled with AVX like this function
    let mut r = [_mm256_setzero_ps(); 8];
    for (i, v) in r.iter_mut().enumerate() {
        // SAFETY: 8 samples from bx in each of the block's rows (bx + 8 <= wb <= w).
        *v = _mm256_loadu_ps(s.row::<f32>(if up { by + 7 - i } else { by + i }).as_ptr().add(bx));
    }
    // pairs of rows interleaved, then pairs of pairs: u[k] holds columns k and k + 4 of
    // rows 0-3 (k < 4) or 4-7 (k >= 4), one per 128-bit half
    let mut t = [_mm256_setzero_ps(); 8];
    for k in (0..8).step_by(2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    let mut u = [_mm256_setzero_ps(); 8];
    for q in [0, 4] {
        u[q] = _mm256_shuffle_ps::<0x44>(t[q], t[q + 2]);
        u[q + 1] = _mm256_shuffle_ps::<0xee>(t[q], t[q + 2]);
        u[q + 2] = _mm256_shuffle_ps::<0x44>(t[q + 1], t[q + 3]);
        u[q + 3] = _mm256_shuffle_ps::<0xee>(t[q + 1], t[q + 3]);
    }
    for j in 0..8 {
        let c = if j < 4 { _mm256_permute2f128_ps::<0x20>(u[j], u[j + 4]) } else { _mm256_permute2f128_ps::<0x31>(u[j - 4], u[j]) };
        let (dx, dy) = match o {
            Orient::Transpose => (by, bx + j),
            Orient::Turn90 => (s.h - by - 8, bx + j),
            _ => (by, s.w - 1 - bx - j),
        };
        _mm256_storeu_ps(at(dx, dy), c);
    }
}

/// Transpose, Turn90 and Turn270 of 8-bit planes: whole 8 x 8 blocks through `transpose8` (eight
/// loads and eight stores of 8 bytes instead of 64 of each), the right and bottom strips sample
/// by sample.
///
/// # Safety
/// As for `orient_plane`, with samples of one byte.
unsafe fn turn_bytes(s: Src, d: Dst, o: Orient) {
    let at = |dx: usize, dy: usize| -> *mut u8 { d.ptr.offset(dy as isize * d.stride).add(dx) };
    // where source sample (sx, sy) goes
    let dest = |sx: usize, sy: usize| match o {
        Orient::Transpose => (sy, sx),
        Orient::Turn90 => (s.h - 1 - sy, sx),
        _ => (sy, s.w - 1 - sx),
    };
    let (w8, h8) = (s.w / 8 * 8, s.h / 8 * 8);
    // 16 x 16 blocks through SSE2 (baseline on x86-64), the rest of the 8 x 8 grid below; Turn90
    // reads the block's rows bottom up, which reverses each column as it needs
    let (w16, h16) = if cfg!(target_arch = "x86_64") { (s.w / 16 * 16, s.h / 16 * 16) } else { (0, 0) };
    #[cfg(target_arch = "x86_64")]
    for by in (0..h16).step_by(16) {
        for bx in (0..w16).step_by(16) {
            let up = o == Orient::Turn90;
            let rows: [*const u8; 16] = std::array::from_fn(|i| s.row::<u8>(if up { by + 15 - i } else { by + i })[bx..bx + 16].as_ptr());
            let cols = transpose16(&rows);
            for (j, c) in cols.iter().enumerate() {
                let (dx, dy) = dest(bx + j, if up { by + 15 } else { by });
                std::arch::x86_64::_mm_storeu_si128(at(dx, dy).cast(), *c);
            }
        }
    }
    for by in (0..h8).step_by(8) {
        for bx in (0..w8).step_by(8) {
            if by < h16 && bx < w16 {
                continue;
            }
            let mut r: [u64; 8] = std::array::from_fn(|i| {
                let row = &s.row::<u8>(by + i)[bx..bx + 8];
                u64::from_le_bytes(row.try_into().expect("8 bytes"))
            });
            transpose8(&mut r);
            // r[j] is source column bx + j, rows by..by + 8 in order
            for (j, &v) in r.iter().enumerate() {
                let (dx, dy) = dest(bx + j, by);
                let (v, dx) = if o == Orient::Turn90 { (v.swap_bytes(), dx - 7) } else { (v, dx) };
                std::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), at(dx, dy), 8);
            }
        }
    }
    for sy in 0..s.h {
        let row = s.row::<u8>(sy);
        let from = if sy < h8 { w8 } else { 0 };
        for (sx, &v) in row.iter().enumerate().skip(from) {
            let (dx, dy) = dest(sx, sy);
            *at(dx, dy) = v;
        }
    }
}

struct OrientFilter {
    o: Orient,
}

impl Filter for OrientFilter {
    const SPATIAL: bool = true;

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let (src, o) = (first(frames)?, self.o);
        let fmt = frame_format(&src)?;
        let (ofmt, w, h) = if o.swaps() {
            (swapped_format(core, &fmt).ok_or_else(|| Error::whole("the transposed format is not valid"))?, src.height(0), src.width(0))
        } else {
            (fmt, src.width(0), src.height(0))
        };
        let mut f = FrameMut::new_video(core, &ofmt, w, h, Some(&src)).map_err(|e| Error::whole(e.to_string()))?;
        for p in 0..fmt.numPlanes as usize {
            let s = src_plane(&src, p)?;
            let d = dst_plane(&mut f, p)?;
            // SAFETY: `f` is ours and its planes have the sizes the orientation gives.
            unsafe { by_size!(fmt.bytesPerSample, T => orient_plane::<T>(s, d, o)) };
        }
        Ok(f.freeze())
    }
}

fn orient(args: &Args, out: &mut Out, core: Core, name: &str, o: Orient) -> Result<()> {
    let clip = args.node("clip")?;
    let mut vi = video_info(&clip)?;
    if o.swaps() {
        if !is_constant(&vi) {
            return Err(Error::invalid("clip must have constant format and dimensions"));
        }
        vi.format = swapped_format(core, &vi.format).ok_or_else(|| Error::invalid("the transposed format is not valid"))?;
        std::mem::swap(&mut vi.width, &mut vi.height);
    }
    pixel_filter(out, core, name, vi, vec![clip], OrientFilter { o })
}

fn flip_vertical(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    orient(args, out, core, "FlipVertical", Orient::FlipV)
}
fn flip_horizontal(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    orient(args, out, core, "FlipHorizontal", Orient::FlipH)
}
fn turn180(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    orient(args, out, core, "Turn180", Orient::Turn180)
}
fn transpose(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    orient(args, out, core, "Transpose", Orient::Transpose)
}
fn turn90(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    orient(args, out, core, "Turn90", Orient::Turn90)
}
fn turn270(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    orient(args, out, core, "Turn270", Orient::Turn270)
}

// ---- stacking ------------------------------------------------------------------------------------

struct StackFilter {
    vertical: bool,
    fmt: VSVideoFormat,
    w: i32,
    h: i32,
}

impl Filter for StackFilter {
    const SPATIAL: bool = true;

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let (fmt, vertical) = (self.fmt, self.vertical);
        let props = frames.first().ok_or_else(|| Error::whole("internal error: a requested frame is missing"))?;
        let mut f = FrameMut::new_video(core, &fmt, self.w, self.h, Some(props)).map_err(|e| Error::whole(e.to_string()))?;
        let bps = fmt.bytesPerSample as usize;
        for p in 0..fmt.numPlanes as usize {
            let d = dst_plane(&mut f, p)?;
            let mut pos = 0usize;
            for src in &frames {
                let s = src_plane(src, p)?;
                // SAFETY: `f` is ours; each input lands in its own part of the plane.
                unsafe {
                    for y in 0..s.h {
                        let (dy, dx) = if vertical { (pos + y, 0) } else { (y, pos) };
                        let to = d.ptr.offset(dy as isize * d.stride).add(dx * bps);
                        std::ptr::copy_nonoverlapping(s.ptr.offset(y as isize * s.stride), to, s.w * bps);
                    }
                }
                pos += if vertical { s.h } else { s.w };
            }
        }
        Ok(f.freeze())
    }
}

fn stack(args: &Args, out: &mut Out, core: Core, vertical: bool) -> Result<()> {
    let name = if vertical { "StackVertical" } else { "StackHorizontal" };
    let mut clips = args.nodes("clips")?;
    if clips.len() == 1 {
        out.set_node("clip", clips.remove(0));
        return Ok(());
    }
    let infos: Vec<VSVideoInfo> = clips.iter().map(video_info).collect::<Result<_>>()?;
    let first = infos[0];
    for vi in &infos {
        let fits = if vertical { vi.width == first.width } else { vi.height == first.height };
        if !is_constant(vi) || vi.format != first.format || !fits {
            let what = if vertical { "width" } else { "height" };
            return Err(Error::invalid(format!("clip format and {what} must match")));
        }
    }
    if let Some(m) = residency_mismatch(&clips) {
        return Err(Error::invalid(m));
    }
    let mut vi = first;
    let total: i64 = infos.iter().map(|v| if vertical { v.height as i64 } else { v.width as i64 }).sum();
    if total > i32::MAX as i64 {
        return Err(Error::invalid("resulting frame is too big"));
    }
    if vertical {
        vi.height = total as i32;
    } else {
        vi.width = total as i32;
    }
    vi.numFrames = infos.iter().map(|v| v.numFrames).max().unwrap_or(0);
    pixel_filter(out, core, name, vi, clips, StackFilter { vertical, fmt: vi.format, w: vi.width, h: vi.height })
}

fn stack_vertical(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    stack(args, out, core, true)
}
fn stack_horizontal(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    stack(args, out, core, false)
}

// ---- ShufflePlanes and SplitPlanes -----------------------------------------------------------------

/// The dimensions of plane `p` of a clip of `vi` (constant format and size).
fn plane_size(vi: &VSVideoInfo, p: usize) -> (i32, i32) {
    if p == 0 {
        (vi.width, vi.height)
    } else {
        (vi.width >> vi.format.subSamplingW, vi.height >> vi.format.subSamplingH)
    }
}

struct ShuffleFilter {
    /// Output plane i is plane `sel[i].1` of input `sel[i].0`, shared, not copied.
    sel: Vec<(usize, i32)>,
    fmt: VSVideoFormat,
    w: i32,
    h: i32,
    /// The properties come from the last input (prop_src) instead of the first.
    prop_src: bool,
}

impl Filter for ShuffleFilter {
    const SPATIAL: bool = true;

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let parts: [Option<(&Frame, i32)>; 3] = std::array::from_fn(|i| self.sel.get(i).map(|&(c, p)| (&frames[c], p)));
        let props = if self.prop_src { frames.last() } else { frames.first() };
        let f = FrameMut::new_video_sharing(core, &self.fmt, self.w, self.h, parts, props).map_err(|e| Error::whole(e.to_string()))?;
        Ok(f.freeze())
    }
}

fn shuffle_planes(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clips = args.nodes("clips")?;
    let planes = args.ints("planes")?.unwrap_or_default();
    let cf = args.int("colorfamily")?.unwrap_or(0);
    let prop_src = if args.contains("prop_src") { Some(args.node("prop_src")?) } else { None };
    let cf = match cf {
        1 => cfGray,
        2 => cfRGB,
        3 => cfYUV,
        _ => return Err(Error::invalid("invalid output colorfamily")),
    };
    let out_planes = if cf == cfGray { 1 } else { 3 };
    if clips.is_empty() || clips.len() > out_planes {
        return Err(Error::invalid("1-3 clips need to be specified"));
    }
    if planes.len() > out_planes {
        return Err(Error::invalid("too many planes specified"));
    }
    let infos: Vec<VSVideoInfo> = clips.iter().map(video_info).collect::<Result<_>>()?;
    if infos.iter().any(|vi| !is_constant(vi)) {
        return Err(Error::invalid("only clips with constant format and dimensions supported"));
    }
    if let Some(m) = residency_mismatch(&clips) {
        return Err(Error::invalid(m));
    }
    if let Some(p) = &prop_src {
        video_info(p)?;
    }
    // Output plane i: plane `planes[i]` (0 where not given) of clip i (the last clip past the end).
    let mut sel = Vec::with_capacity(out_planes);
    for i in 0..out_planes {
        let c = i.min(clips.len() - 1);
        let p = planes.get(i).copied().unwrap_or(0);
        if p < 0 || p >= infos[c].format.numPlanes as i64 {
            return Err(Error::invalid("invalid plane specified"));
        }
        sel.push((c, p as i32));
    }
    let f0 = infos[sel[0].0].format;
    let (w, h) = plane_size(&infos[sel[0].0], sel[0].1 as usize);
    let fmt = if cf == cfGray {
        core.query_video_format(cfGray, f0.sampleType, f0.bitsPerSample, 0, 0)
    } else {
        let s1 = plane_size(&infos[sel[1].0], sel[1].1 as usize);
        let s2 = plane_size(&infos[sel[2].0], sel[2].1 as usize);
        if s1 != s2 {
            return Err(Error::invalid("plane 1 and 2 do not have the same size"));
        }
        let ss = |full: i32, part: i32| (0..=4).find(|&s| part << s == full);
        let (Some(ssw), Some(ssh)) = (ss(w, s1.0), ss(h, s1.1)) else {
            return Err(Error::invalid("plane 1 and 2 are not subsampled multiples of first plane"));
        };
        for &(c, _) in &sel[1..] {
            let f = infos[c].format;
            if f.sampleType != f0.sampleType || f.bitsPerSample != f0.bitsPerSample {
                return Err(Error::invalid("plane 1 and 2 do not have binary compatible storage"));
            }
        }
        if cf == cfRGB && (ssw != 0 || ssh != 0) {
            return Err(Error::invalid("subsampled RGB not allowed"));
        }
        core.query_video_format(cf, f0.sampleType, f0.bitsPerSample, ssw, ssh)
    };
    let fmt = fmt.ok_or_else(|| Error::invalid("the resulting format is not valid"))?;
    let mut vi = infos[0];
    vi.format = fmt;
    vi.width = w;
    vi.height = h;
    vi.numFrames = infos.iter().map(|v| v.numFrames).max().unwrap_or(0);
    let mut inputs = clips;
    let has_prop_src = prop_src.is_some();
    // Declared as R81 does: the clip of each output plane (the first plane's strict spatial even
    // where its clip is shorter), then the properties' source (the first clip where none is given).
    let len = |i: usize| inputs.get(i).or(prop_src.as_ref()).map_or(1, |n| n.video_info().map_or(1, |v| v.numFrames));
    let mut declared: Vec<(usize, i32)> =
        sel.iter().enumerate().map(|(k, &(c, _))| (c, if k == 0 { rpStrictSpatial } else { filter::spatial_pattern(len(c), vi.numFrames) })).collect();
    let prop = if has_prop_src { inputs.len() } else { 0 };
    declared.push((prop, filter::spatial_pattern(len(prop), vi.numFrames)));
    inputs.extend(prop_src);
    let f = ShuffleFilter { sel, fmt, w, h, prop_src: has_prop_src };
    let node = on_host(core, inputs, |inputs| {
        filter::create_node_declaring(core, Spec { name: "ShufflePlanes".into(), info: vi, inputs, gpu_output: false }, &declared, f, fmParallel)
    })?;
    out.set_node("clip", node);
    Ok(())
}

struct SplitFilter {
    plane: i32,
    gray: VSVideoFormat,
}

impl Filter for SplitFilter {
    const SPATIAL: bool = true;

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let src = first(frames)?;
        let (w, h) = (src.width(self.plane), src.height(self.plane));
        let f = FrameMut::new_video_sharing(core, &self.gray, w, h, [Some((&src, self.plane)), None, None], Some(&src)).map_err(|e| Error::whole(e.to_string()))?;
        Ok(f.freeze())
    }
}

fn split_planes(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let vi = video_info(&clip)?;
    if vi.format.colorFamily == cfUndefined {
        return Err(Error::invalid("only constant format clips supported"));
    }
    let gray = core.query_video_format(cfGray, vi.format.sampleType, vi.format.bitsPerSample, 0, 0).ok_or_else(|| Error::invalid("the gray format is not valid"))?;
    for p in 0..vi.format.numPlanes as usize {
        let mut pvi = vi;
        pvi.format = gray;
        (pvi.width, pvi.height) = if vi.width > 0 { plane_size(&vi, p) } else { (0, 0) };
        let node = on_host(core, vec![clip.clone()], |inputs| {
            filter::create_node(core, Spec { name: "SplitPlanes".into(), info: pvi, inputs, gpu_output: false }, SplitFilter { plane: p as i32, gray }, fmParallel)
        })?;
        out.put_node("clip", node, true)?;
    }
    Ok(())
}
