//! Merge, MaskedMerge, MakeDiff, MergeDiff, MakeFullDiff, MergeFullDiff and PreMultiply.
use std::sync::Arc;

use vsvk_plugin_api::abi::*;
use vsvk_resize::chroma_mask::{ChromaMask, PlaneView};

use super::*;
use super::fast_math::with_fast_math;

pub fn register(r: &Registrar) {
    r.function("Merge", "clipa:vnode:all;clipb:vnode:all;weight:float[]:opt;", "clip:vnode:all;", merge);
    r.function(
        "MaskedMerge",
        "clipa:vnode:all;clipb:vnode:all;mask:vnode:all;planes:int[]:opt;first_plane:int:opt;premultiplied:int:opt;",
        "clip:vnode:all;",
        masked_merge,
    );
    r.function("MakeDiff", "clipa:vnode:all;clipb:vnode:all;planes:int[]:opt;", "clip:vnode:all;", |i, o, c| diff(i, o, c, DiffOp::Make));
    r.function("MergeDiff", "clipa:vnode:all;clipb:vnode:all;planes:int[]:opt;", "clip:vnode:all;", |i, o, c| diff(i, o, c, DiffOp::Merge));
    r.function("MakeFullDiff", "clipa:vnode:all;clipb:vnode:all;", "clip:vnode:all;", make_full_diff);
    r.function("MergeFullDiff", "clipa:vnode:all;clipb:vnode:all;", "clip:vnode:all;", merge_full_diff);
    r.function("PreMultiply", "clip:vnode:all;alpha:vnode:all;", "clip:vnode:all;", premultiply);
}

/// Two clips of one supported format and size, as most of these filters require.
fn two_clips(args: &Args, what: &str) -> Result<(Node, Node, VSVideoInfo, VSVideoInfo)> {
    let a = args.node("clipa")?;
    let b = args.node("clipb")?;
    let va = util::video_info(&a)?;
    let vb = util::video_info(&b)?;
    check_format(&va.format)?;
    if !same_format_and_size(&va, &vb) {
        return Err(Error::invalid(format!("{what}, passed {} and {}", clip_desc(&va), clip_desc(&vb))));
    }
    Ok((a, b, va, vb))
}

const SAME: &str = "both clips must have the same constant format and dimensions";

/// `Gray8[64x8]`, `Gray8[undefined]`: a clip's format and size in messages.
fn clip_desc(vi: &VSVideoInfo) -> String {
    if vi.width == 0 || vi.height == 0 {
        format!("{}[undefined]", fmt_name(&vi.format))
    } else {
        format!("{}[{}x{}]", fmt_name(&vi.format), vi.width, vi.height)
    }
}

/// Same format and the same known dimensions.
fn same_format_and_size(a: &VSVideoInfo, b: &VSVideoInfo) -> bool {
    a.format == b.format && a.width == b.width && a.height == b.height && a.width > 0 && a.height > 0
}

// ---- Merge -----------------------------------------------------------------------------------------

fn merge(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let (a, b, vi, _) = two_clips(args, SAME)?;
    let fmt = vi.format;
    let np = fmt.numPlanes as usize;
    let weights = args.floats("weight")?.unwrap_or_default();
    if weights.len() > np {
        return Err(Error::invalid("more weights given than the number of planes to merge"));
    }
    if weights.iter().any(|w| !(0.0..=1.0).contains(w)) {
        return Err(Error::invalid("weights must be between 0 and 1"));
    }
    let w: [f64; 3] = std::array::from_fn(|p| if weights.is_empty() { 0.5 } else { weights[p.min(weights.len() - 1)] });
    let node = pointwise_node(core, "Merge", vi, vec![a, b], Patterns::ByLength, move |frames, core| {
        let (fa, fb) = (&frames[0], &frames[1]);
        // a weight of 0 keeps clipa's plane, one of 1 takes clipb's: both shared, not copied
        let shared: [Option<(&Frame, i32)>; 3] = std::array::from_fn(|p| {
            if p >= np {
                None
            } else if w[p] == 0.0 {
                Some((fa, p as i32))
            } else if w[p] == 1.0 {
                Some((fb, p as i32))
            } else {
                None
            }
        });
        let mut dst = FrameMut::new_video_sharing(core, &fmt, fa.width(0), fa.height(0), shared, Some(fa))?;
        let stream = crate::stream::stream_outputs(core, &dst);
        for p in 0..np {
            if shared[p].is_some() {
                continue;
            }
            let s = [PlaneRef::new(fa, p)?, PlaneRef::new(fb, p)?];
            let d = PlaneMut::output(&mut dst, p, stream)?;
            if fmt.sampleType == stFloat {
                let wf = w[p] as f32;
                let half = fmt.bytesPerSample == 2;
                // inline(always): both closures must end up inside with_fast_math's AVX2/FMA code
                // (left out of line, mul_add was a library call per sample: 0.1x R81)
                with_fast_math(#[inline(always)] || {
                    map_rows_f32(&s, &[half, half], d, half, #[inline(always)] |o, i| {
                        for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                            *o = (y - x).mul_add(wf, x);
                        }
                    })
                });
            } else {
                let wi = ((w[p] * 32768.0 + 0.5).floor() as i32).min(32767);
                if fmt.bytesPerSample == 1 {
                    map_rows::<u8, u8>(&s, d, |o, i| merge_row_u8(o, i[0], i[1], wi));
                } else {
                    with_fast_math(#[inline(always)] || {
                        map_rows::<u16, u16>(&s, d, #[inline(always)] |o, i| {
                            for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                                let x = x as i32;
                                *o = (x + (((y as i32 - x) * wi + 16384) >> 15)) as u16;
                            }
                        })
                    });
                }
            }
        }
        Ok(dst.freeze())
    })?;
    out.set_node("clip", node);
    Ok(())
}

/// One row of an 8-bit Merge: x + (((y - x) * wi + 16384) >> 15) per sample.
fn merge_row_u8(o: &mut [u8], a: &[u8], b: &[u8], wi: i32) {
    let n = o.len().min(a.len()).min(b.len());
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if simd::has_avx2() {
        // SAFETY: AVX2 was detected at run time; the three slices hold at least n samples.
        done = unsafe { merge_u8_avx2(o.as_mut_ptr(), a.as_ptr(), b.as_ptr(), wi as i16, n) };
    }
    for ((o, &x), &y) in o[done..n].iter_mut().zip(&a[done..n]).zip(&b[done..n]) {
        let x = x as i32;
        *o = (x + (((y as i32 - x) * wi + 16384) >> 15)) as u8;
    }
}

/// `merge_row_u8`'s samples 32 at a time: the difference fits 16 bits and pmulhrsw computes
/// exactly (d * wi + 16384) >> 15 (wi <= 32767), so the sum runs in 16-bit lanes, twice as wide
/// as the 32-bit products the compiler makes of the formula. Returns the samples done (a
/// multiple of 32).
///
/// # Safety
/// The CPU has AVX2; `o`, `a` and `b` point to at least `n` samples.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn merge_u8_avx2(o: *mut u8, a: *const u8, b: *const u8, wi: i16, n: usize) -> usize {
    use std::arch::x86_64::*;
    let w = _mm256_set1_epi16(wi);
    let mut x = 0;
    while x + 32 <= n {
        // SAFETY: x + 32 <= n samples of each row (the caller's contract).
        let (va, vb) = unsafe { (_mm256_loadu_si256(a.add(x).cast()), _mm256_loadu_si256(b.add(x).cast())) };
        let lo = |v: __m256i| _mm256_cvtepu8_epi16(_mm256_castsi256_si128(v));
        let hi = |v: __m256i| _mm256_cvtepu8_epi16(_mm256_extracti128_si256::<1>(v));
        let r_lo = _mm256_add_epi16(lo(va), _mm256_mulhrs_epi16(_mm256_sub_epi16(lo(vb), lo(va)), w));
        let r_hi = _mm256_add_epi16(hi(va), _mm256_mulhrs_epi16(_mm256_sub_epi16(hi(vb), hi(va)), w));
        // the results lie between x and y: packing loses nothing; the permute undoes its lane order
        let r = _mm256_permute4x64_epi64::<0b11011000>(_mm256_packus_epi16(r_lo, r_hi));
        // SAFETY: as above, for the output row.
        unsafe { _mm256_storeu_si256(o.add(x).cast(), r) };
        x += 32;
    }
    x
}

/// As `with_fast_math`, preferring AVX-512 (F, BW, VL): for loops whose code is faster with it
/// (MaskedMerge's integer blend: +25% at one thread, about R81's speed); Merge's own loop became
/// slower with it, so the choice is per loop, measured.
#[inline(always)]
fn with_wide_math<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        if simd::has_avx512() {
            // SAFETY: the features were detected at run time.
            return unsafe { with_avx512(f) };
        }
    }
    with_fast_math(f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
unsafe fn with_avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// One row of float MaskedMerge on half samples ([clipa, clipb, mask]), widened as loaded and
/// narrowed as stored, eight at a time (the same operations as the row loop over single
/// precision rows: converting whole rows into buffers first left it at 0.8x R81). The last
/// samples go through the same code from padded copies, so every sample is converted alike.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn masked_merge_half_avx2(rows: [&[u16]; 3], out: &mut [u16], premultiplied: bool) {
    use std::arch::x86_64::*;
    let n = out.len();
    assert!(rows.iter().all(|r| r.len() >= n));
    let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
    let eight = |a: *const u16, b: *const u16, m: *const u16, o: *mut u16| {
        let [a, b, m] = [a, b, m].map(|p| _mm256_cvtph_ps(_mm_loadu_si128(p.cast())));
        // clamp_f32(m, 0, 1): max_ps and min_ps take the second operand for NaN, as it does
        let m = _mm256_min_ps(_mm256_max_ps(m, zero), one);
        let v = if premultiplied { _mm256_fmadd_ps(a, _mm256_sub_ps(one, m), b) } else { _mm256_fmadd_ps(_mm256_sub_ps(b, a), m, a) };
        _mm_storeu_si128(o.cast(), _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v));
    };
    let n8 = n / 8 * 8;
    for x in (0..n8).step_by(8) {
        // SAFETY: x + 8 <= n, so the eight samples are inside every row and the output.
        eight(rows[0].as_ptr().add(x), rows[1].as_ptr().add(x), rows[2].as_ptr().add(x), out.as_mut_ptr().add(x));
    }
    if n8 < n {
        let pad = |r: &[u16]| {
            let mut t = [0u16; 8];
            t[..n - n8].copy_from_slice(&r[n8..n]);
            t
        };
        let (a, b, m) = (pad(rows[0]), pad(rows[1]), pad(rows[2]));
        let mut o = [0u16; 8];
        eight(a.as_ptr(), b.as_ptr(), m.as_ptr(), o.as_mut_ptr());
        out[n8..].copy_from_slice(&o[..n - n8]);
    }
}

// ---- MakeDiff, MergeDiff ------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum DiffOp {
    Make,
    Merge,
}

fn diff(args: &Args, out: &mut Out, core: Core, op: DiffOp) -> Result<()> {
    let (a, b, vi, _) = two_clips(args, SAME)?;
    let planes = planes_arg(args, "planes")?;
    let fmt = vi.format;
    let name = if op == DiffOp::Make { "MakeDiff" } else { "MergeDiff" };
    let node = pointwise_node(core, name, vi, vec![a, b], Patterns::ByLength, move |frames, core| {
        let (fa, fb) = (&frames[0], &frames[1]);
        let mut dst = new_frame_like(core, &fmt, fa, &planes)?;
        let stream = crate::stream::stream_outputs(core, &dst);
        for p in 0..fmt.numPlanes as usize {
            if !planes[p] {
                continue;
            }
            let s = [PlaneRef::new(fa, p)?, PlaneRef::new(fb, p)?];
            let d = PlaneMut::output(&mut dst, p, stream)?;
            if fmt.sampleType == stFloat {
                let half = fmt.bytesPerSample == 2;
                match op {
                    DiffOp::Make => map_rows_f32(&s, &[half, half], d, half, |o, i| {
                        for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                            *o = x - y;
                        }
                    }),
                    DiffOp::Merge => map_rows_f32(&s, &[half, half], d, half, |o, i| {
                        for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                            *o = x + y;
                        }
                    }),
                }
            } else {
                // one loop per operation and width, so that each is a handful of vector
                // instructions (a runtime sign times y kept the loop scalar: 0.28x R81); 8-bit
                // sums fit 16-bit lanes; the closures inline(always), as in Merge (out of line, the
                // 8-bit loops were SSE2 code: 0.7x)
                let half = 1i32 << (fmt.bitsPerSample - 1);
                let max = max_value(&fmt) as i32;
                with_fast_math(#[inline(always)] || match (fmt.bytesPerSample, op) {
                    (1, DiffOp::Make) => map_rows::<u8, u8>(&s, d, #[inline(always)] |o, i| {
                        for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                            *o = (x as i16 - y as i16 + 128).clamp(0, 255) as u8;
                        }
                    }),
                    (1, DiffOp::Merge) => map_rows::<u8, u8>(&s, d, #[inline(always)] |o, i| {
                        for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                            *o = (x as i16 + y as i16 - 128).clamp(0, 255) as u8;
                        }
                    }),
                    // `move`: with `half` and `max` borrowed, the loop reloaded them from memory
                    // for every sample and stayed scalar (0.28x R81 at 16 bits)
                    (_, DiffOp::Make) => map_rows::<u16, u16>(&s, d, #[inline(always)] move |o, i| {
                        for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                            *o = (x as i32 - y as i32 + half).clamp(0, max) as u16;
                        }
                    }),
                    (_, DiffOp::Merge) => map_rows::<u16, u16>(&s, d, #[inline(always)] move |o, i| {
                        for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                            *o = (x as i32 + y as i32 - half).clamp(0, max) as u16;
                        }
                    }),
                });
            }
        }
        Ok(dst.freeze())
    })?;
    out.set_node("clip", node);
    Ok(())
}

// ---- MakeFullDiff, MergeFullDiff ------------------------------------------------------------------------

/// Integer formats one bit deeper, for the full difference.
fn wider(core: Core, f: &VSVideoFormat) -> VSVideoFormat {
    if f.sampleType == stFloat {
        return *f;
    }
    core.query_video_format(f.colorFamily, f.sampleType, f.bitsPerSample + 1, f.subSamplingW, f.subSamplingH).expect("a valid deeper format")
}

fn make_full_diff(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let (a, b, vi, _) = two_clips(args, SAME)?;
    let fmt = vi.format;
    let ofmt = wider(core, &fmt);
    let mut ovi = vi;
    ovi.format = ofmt;
    let all = [true; 3];
    let node = pointwise_node(core, "MakeFullDiff", ovi, vec![a, b], Patterns::ByLength, move |frames, core| {
        let (fa, fb) = (&frames[0], &frames[1]);
        let mut dst = new_frame_like(core, &ofmt, fa, &all)?;
        let stream = crate::stream::stream_outputs(core, &dst);
        for p in 0..fmt.numPlanes as usize {
            let s = [PlaneRef::new(fa, p)?, PlaneRef::new(fb, p)?];
            let d = PlaneMut::output(&mut dst, p, stream)?;
            if fmt.sampleType == stFloat {
                let half = fmt.bytesPerSample == 2;
                map_rows_f32(&s, &[half, half], d, half, |o, i| {
                    for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                        *o = x - y;
                    }
                });
            } else {
                let off = 1i32 << fmt.bitsPerSample;
                match fmt.bytesPerSample {
                    1 => map_rows::<u8, u16>(&s, d, |o, i| {
                        for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                            *o = (x as i32 - y as i32 + off) as u16;
                        }
                    }),
                    _ if ofmt.bytesPerSample == 2 => map_rows::<u16, u16>(&s, d, |o, i| {
                        for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                            *o = (x as i32 - y as i32 + off) as u16;
                        }
                    }),
                    _ => map_rows::<u16, u32>(&s, d, |o, i| {
                        for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                            *o = (x as i32 - y as i32 + off) as u32;
                        }
                    }),
                }
            }
        }
        Ok(dst.freeze())
    })?;
    out.set_node("clip", node);
    Ok(())
}

fn merge_full_diff(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let a = args.node("clipa")?;
    let b = args.node("clipb")?;
    let vi = util::video_info(&a)?;
    let vb = util::video_info(&b)?;
    check_format(&vi.format)?;
    let fmt = vi.format;
    let dfmt = wider(core, &fmt);
    if !(vb.format == dfmt && vi.width == vb.width && vi.height == vb.height && vi.width > 0 && vi.height > 0) {
        return Err(Error::invalid(format!(
            "both clips must have the same (bitdepth+1 for second clip) constant format and dimensions, passed {} and {}",
            clip_desc(&vi),
            clip_desc(&vb)
        )));
    }
    let all = [true; 3];
    let node = pointwise_node(core, "MergeFullDiff", vi, vec![a, b], Patterns::ByLength, move |frames, core| {
        let (fa, fb) = (&frames[0], &frames[1]);
        let mut dst = new_frame_like(core, &fmt, fa, &all)?;
        let stream = crate::stream::stream_outputs(core, &dst);
        for p in 0..fmt.numPlanes as usize {
            let s = [PlaneRef::new(fa, p)?, PlaneRef::new(fb, p)?];
            let d = PlaneMut::output(&mut dst, p, stream)?;
            if fmt.sampleType == stFloat {
                let half = fmt.bytesPerSample == 2;
                map_rows_f32(&s, &[half, half], d, half, |o, i| {
                    for ((o, &x), &y) in o.iter_mut().zip(i[0]).zip(i[1]) {
                        *o = x + y;
                    }
                });
            } else {
                // one loop per width, each a handful of vector instructions (a loop over rows
                // with 64-bit sums for the 17-bit differences was 0.4x R81): 8-bit sums fit
                // 16-bit lanes, 16-bit ones (17-bit differences) 32-bit lanes
                let off = 1i32 << fmt.bitsPerSample;
                let max = max_value(&fmt) as i32;
                let (sa, sb) = (s[0], s[1]);
                with_fast_math(#[inline(always)] || match dfmt.bytesPerSample {
                    2 if fmt.bytesPerSample == 1 => fill_rows::<u8>(d, #[inline(always)] move |o, y| {
                        let (off, max) = (off as i16, max as i16);
                        for ((o, &x), &v) in o.iter_mut().zip(sa.row::<u8>(y)).zip(sb.row::<u16>(y)) {
                            *o = (x as i16 + v as i16 - off).clamp(0, max) as u8;
                        }
                    }),
                    2 => fill_rows::<u16>(d, #[inline(always)] move |o, y| {
                        for ((o, &x), &v) in o.iter_mut().zip(sa.row::<u16>(y)).zip(sb.row::<u16>(y)) {
                            *o = (x as i32 + v as i32 - off).clamp(0, max) as u16;
                        }
                    }),
                    _ => fill_rows::<u16>(d, #[inline(always)] move |o, y| {
                        for ((o, &x), &v) in o.iter_mut().zip(sa.row::<u16>(y)).zip(sb.row::<u32>(y)) {
                            *o = (x as i32 + v as i32 - off).clamp(0, max) as u16;
                        }
                    }),
                });
            }
        }
        Ok(dst.freeze())
    })?;
    out.set_node("clip", node);
    Ok(())
}

// ---- colour range --------------------------------------------------------------------------------------

/// Whether a frame holds limited range samples: `_Range` (0 limited, 1 full) or the older
/// `_ColorRange` (1 limited); without either, YUV and gray are limited and RGB is full.
fn is_limited(f: &Frame) -> bool {
    let props = f.props();
    if let Some(v) = props.int("_Range") {
        return v == 0;
    }
    if let Some(v) = props.int("_ColorRange") {
        return v == 1;
    }
    f.format().colorFamily != cfRGB
}

/// The sample value that stays put when scaled by an alpha: the black level (limited luma/RGB)
/// or the chroma midpoint.
fn alpha_offset(fmt: &VSVideoFormat, p: usize, limited: bool) -> i64 {
    if is_chroma(fmt, p) {
        1i64 << (fmt.bitsPerSample - 1)
    } else if limited {
        16i64 << (fmt.bitsPerSample - 8)
    } else {
        0
    }
}

// ---- PreMultiply -----------------------------------------------------------------------------------------

fn premultiply(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let alpha = args.node("alpha")?;
    let vi = util::video_info(&clip)?;
    let va = util::video_info(&alpha)?;
    check_format(&vi.format)?;
    let fmt = vi.format;
    if !(va.format.colorFamily == cfGray && va.format.sampleType == fmt.sampleType && va.format.bitsPerSample == fmt.bitsPerSample) {
        return Err(Error::invalid("alpha clip must be grayscale and same sample format and bitdepth as main clip"));
    }
    if !(vi.width == va.width && vi.height == va.height && vi.width > 0 && vi.height > 0) {
        return Err(Error::invalid(SAME));
    }
    let all = [true; 3];
    let chroma = Arc::new(ChromaMask::default());
    let node = pointwise_node(core, "PreMultiply", vi, vec![clip, alpha], Patterns::ByLength, move |frames, core| {
        let (fc, fa) = (&frames[0], &frames[1]);
        let mut dst = new_frame_like(core, &fmt, fc, &all)?;
        let limited = fmt.sampleType == stInteger && is_limited(fc);
        let mx = max_value(&fmt);
        // the alpha at the chroma planes' size: sited by the clip's chroma location, by fields
        // where the alpha is interlaced
        let small = if is_subsampled(&fmt) { Some(chroma.resample(PlaneRef::new(fa, 0)?.view(), mask_location(fa), &fmt, chroma_location(fc), field_based(fa)).map_err(|e| Error::invalid(e.to_string()))?) } else { None };
        for p in 0..fmt.numPlanes as usize {
            let a_plane = match &small {
                Some(f) if p > 0 => PlaneRef::of_view(f.view(p)),
                _ => PlaneRef::new(fa, 0)?,
            };
            let s = PlaneRef::new(fc, p)?;
            let d = PlaneMut::output(&mut dst, p, false)?;
            if fmt.sampleType == stFloat {
                let half = fmt.bytesPerSample == 2;
                map_rows_f32(&[s, a_plane], &[half, half], d, half, |o, i| {
                    for ((o, &x), &m) in o.iter_mut().zip(i[0]).zip(i[1]) {
                        *o = x * m;
                    }
                });
            } else {
                let off = alpha_offset(&fmt, p, limited);
                premultiply_int(d, s, a_plane, None, &fmt, off, mx);
            }
        }
        Ok(dst.freeze())
    })?;
    out.set_node("clip", node);
    Ok(())
}

/// Integer premultiplication, R81's formula off + floor(((x - off) * m + mx / 2) / mx) with
/// mx = 2^bits - 1, in unsigned lanes twice as wide as the samples so that it vectorises (an
/// i64 division per sample was 0.1-0.25x R81; f64 lanes 0.9x at 16 bits; a sign split for
/// x < off 0.7x in 8-bit MaskedMerge). Adding off to the quotient is adding off * mx to the
/// numerator, so the result is floor(n / mx) with n = x * m + off * (mx - m) + mx / 2: no term
/// is negative, n is at most mx * mx + mx / 2 (x and off are at most mx), so the result lies in
/// 0..=mx, and (n + (n >> bits) + 1) >> bits is floor(n / mx) over that range without
/// overflowing the lane (both checked in the tests below).
///
/// `$scale` is that formula; `$plane` runs a plane of `$t` samples through it: PreMultiply (`b`
/// None) scale(x, m), MaskedMerge of premultiplied clips (`b` the second clip, `m` the mask)
/// clamp(scale(x, mx - m) + b - off), reading the samples where they lie.
macro_rules! premultiply_kernels {
    ($scale:ident, $plane:ident, $t:ty, $wide:ty, $signed:ty) => {
        #[inline(always)]
        fn $scale(x: $wide, m: $wide, off: $wide, mx: $wide, bits: u32) -> $wide {
            let n = x * m + off * (mx - m) + mx / 2;
            (n + (n >> bits) + 1) >> bits
        }

        #[inline(always)]
        fn $plane(mut dst: PlaneMut, x: PlaneRef, m: PlaneRef, b: Option<PlaneRef>, off: i64, mx: i64) {
            let (off, mx) = (off as $wide, mx as $wide);
            let (bits, top) = ((mx as u32 + 1).trailing_zeros(), mx as $signed);
            for y in 0..dst.height {
                let xr = x.row::<$t>(y);
                let mr = m.row::<$t>(y);
                let o = dst.row::<$t>(y);
                match b {
                    None => {
                        // min: a sample above mx (stray high bits in a 9-16-bit plane) still
                        // gives one in range
                        for ((o, &x), &m) in o.iter_mut().zip(xr).zip(mr) {
                            *o = $scale(x as $wide, m as $wide, off, mx, bits).min(mx) as $t;
                        }
                    }
                    Some(b) => {
                        for (((o, &x), &m), &b) in o.iter_mut().zip(xr).zip(mr).zip(b.row::<$t>(y)) {
                            let v = $scale(x as $wide, mx - m as $wide, off, mx, bits) as $signed + b as $signed - off as $signed;
                            *o = v.clamp(0, top) as $t;
                        }
                    }
                }
            }
        }
    };
}
premultiply_kernels!(scale_about_8, premultiply_u8, u8, u16, i16);
premultiply_kernels!(scale_about_16, premultiply_u16, u16, u32, i32);

// whole planes per instruction set: the widening, the multiplications and the narrowing
// vectorise only with the wider instruction sets
vsvk_plugin_api::multiversion!(fn premultiply_8 => premultiply_u8(dst: PlaneMut, x: PlaneRef, m: PlaneRef, b: Option<PlaneRef>, off: i64, mx: i64));
vsvk_plugin_api::multiversion!(fn premultiply_16 => premultiply_u16(dst: PlaneMut, x: PlaneRef, m: PlaneRef, b: Option<PlaneRef>, off: i64, mx: i64));

/// A plane of the clip's integer samples through `premultiply_kernels`.
fn premultiply_int(dst: PlaneMut, x: PlaneRef, m: PlaneRef, b: Option<PlaneRef>, fmt: &VSVideoFormat, off: i64, mx: i64) {
    match fmt.bytesPerSample {
        1 => premultiply_8(dst, x, m, b, off, mx),
        _ => premultiply_16(dst, x, m, b, off, mx),
    }
}

// ---- the mask of subsampled planes ------------------------------------------------------------------

/// A frame's `_ChromaLocation`, left (0) when it has none.
fn chroma_location(f: &Frame) -> i64 {
    mask_location(f).unwrap_or(0)
}

/// A mask's own `_ChromaLocation`, which resampling only checks.
fn mask_location(f: &Frame) -> Option<i64> {
    f.props().int("_ChromaLocation")
}

/// A frame's `_FieldBased`, progressive (0) when it has none.
fn field_based(f: &Frame) -> i64 {
    f.props().int("_FieldBased").unwrap_or(0)
}

fn is_subsampled(fmt: &VSVideoFormat) -> bool {
    fmt.subSamplingW > 0 || fmt.subSamplingH > 0
}

impl PlaneRef {
    /// A chroma plane of a resampled mask, which the caller keeps alive as it does frames.
    fn of_view(v: PlaneView) -> PlaneRef {
        PlaneRef { ptr: v.ptr, stride: v.stride, width: v.width, height: v.height }
    }
    /// The same plane as the resampler reads it.
    fn view(&self) -> PlaneView {
        PlaneView { ptr: self.ptr, stride: self.stride, width: self.width, height: self.height }
    }
}

// ---- MaskedMerge ------------------------------------------------------------------------------------------

fn masked_merge(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let (a, b, vi, _) = two_clips(args, SAME)?;
    let mask = args.node("mask")?;
    let vm = util::video_info(&mask)?;
    let planes = planes_arg(args, "planes")?;
    let first_plane = args.bool("first_plane", false)?;
    let premultiplied = args.bool("premultiplied", false)?;
    let fmt = vi.format;
    let mfmt = vm.format;
    let mask_gray = mfmt.colorFamily == cfGray;
    let single = first_plane || mask_gray;
    let mask_ok = vm.width == vi.width
        && vm.height == vi.height
        && mfmt.colorFamily != cfUndefined
        && mfmt.sampleType == fmt.sampleType
        && mfmt.bitsPerSample == fmt.bitsPerSample
        && (single || (mfmt.subSamplingW == fmt.subSamplingW && mfmt.subSamplingH == fmt.subSamplingH && mfmt.colorFamily == fmt.colorFamily));
    if !mask_ok {
        return Err(Error::invalid(format!(
            "mask clip must have same dimensions, sample type and bitdepth as main clip and be the same format or grayscale, passed {} and {}",
            clip_desc(&vi),
            clip_desc(&vm)
        )));
    }
    let np = fmt.numPlanes as usize;
    let chroma = Arc::new(ChromaMask::default());
    let node = pointwise_node(core, "MaskedMerge", vi, vec![a, b, mask], Patterns::ByLength, move |frames, core| {
        let (fa, fb, fm) = (&frames[0], &frames[1], &frames[2]);
        let subsampled = is_subsampled(&fmt);
        let loc = chroma_location(fa);
        if subsampled && loc != chroma_location(fb) {
            return Err(Error::invalid(format!("clipa and clipb have different chroma locations (_ChromaLocation {loc} vs {})", chroma_location(fb))));
        }
        // one plane of mask for all: at the chroma planes' size, sited by the clips' chroma
        // location, by fields where the mask is interlaced
        let small = if single && subsampled && planes[1..np].iter().any(|&p| p) { Some(chroma.resample(PlaneRef::new(fm, 0)?.view(), mask_location(fm), &fmt, loc, field_based(fm)).map_err(|e| Error::invalid(e.to_string()))?) } else { None };
        let mut dst = new_frame_like(core, &fmt, fa, &planes)?;
        let limited = if premultiplied && fmt.sampleType == stInteger {
            let la = is_limited(fa);
            if la != is_limited(fb) {
                return Err(Error::invalid("Input frames must have the same range"));
            }
            la
        } else {
            false
        };
        let mx = max_value(&fmt);
        for p in 0..np {
            if !planes[p] {
                continue;
            }
            let s = [PlaneRef::new(fa, p)?, PlaneRef::new(fb, p)?];
            let mref = match &small {
                Some(f) if p > 0 => PlaneRef::of_view(f.view(p)),
                _ => PlaneRef::new(fm, if single { 0 } else { p })?,
            };
            let mut d = PlaneMut::output(&mut dst, p, false)?;
            let (w, h) = (d.width, d.height);
            if fmt.sampleType == stFloat {
                let half = fmt.bytesPerSample == 2;
                let mut xa = vec![0f32; w];
                let mut xb = vec![0f32; w];
                let mut xm = vec![0f32; w];
                let mut o = vec![0f32; w];
                #[cfg(target_arch = "x86_64")]
                if half && simd::has_avx2() && simd::has_f16c() {
                    for y in 0..h {
                        let rows = [s[0].row::<u16>(y), s[1].row::<u16>(y), mref.row::<u16>(y)];
                        // SAFETY: the CPU has AVX2, FMA and F16C (checked just above).
                        unsafe { masked_merge_half_avx2(rows, d.row::<u16>(y), premultiplied) };
                    }
                    continue;
                }
                for y in 0..h {
                    let ra: &[f32] = if half {
                        half_to_f32_row(s[0].row::<u16>(y), &mut xa);
                        &xa
                    } else {
                        s[0].row::<f32>(y)
                    };
                    let rb: &[f32] = if half {
                        half_to_f32_row(s[1].row::<u16>(y), &mut xb);
                        &xb
                    } else {
                        s[1].row::<f32>(y)
                    };
                    let rm: &[f32] = if half {
                        half_to_f32_row(mref.row::<u16>(y), &mut xm);
                        &xm
                    } else {
                        mref.row::<f32>(y)
                    };
                    with_fast_math(#[inline(always)] || {
                        if premultiplied {
                            for (((o, &a), &b), &m) in o.iter_mut().zip(ra).zip(rb).zip(rm) {
                                *o = a.mul_add(1.0 - clamp_f32(m, 0.0, 1.0), b);
                            }
                        } else {
                            for (((o, &a), &b), &m) in o.iter_mut().zip(ra).zip(rb).zip(rm) {
                                *o = (b - a).mul_add(clamp_f32(m, 0.0, 1.0), a);
                            }
                        }
                    });
                    if half {
                        f32_to_half_row(&o, d.row::<u16>(y));
                    } else {
                        d.row::<f32>(y).copy_from_slice(&o);
                    }
                }
            } else if premultiplied {
                let off = alpha_offset(&fmt, p, limited);
                premultiply_int(d, s[0], mref, Some(s[1]), &fmt, off, mx);
            } else if fmt.bytesPerSample == 1 {
                for y in 0..h {
                    let rm = mref.row::<u8>(y);
                    let (ra, rb) = (s[0].row::<u8>(y), s[1].row::<u8>(y));
                    let o = d.row::<u8>(y);
                    with_wide_math(#[inline(always)] || {
                        // Sixteen-bit lanes, twice as many per vector as the thirty-two-bit
                        // form: n is at most 255 * 255 + 127, and (n + 1 + (n >> 8)) >> 8 is
                        // n / 255 exactly over that range (checked for every n).
                        for (((o, &a), &b), &m) in o.iter_mut().zip(ra).zip(rb).zip(rm) {
                            let m = m as u16;
                            let n = a as u16 * (255 - m) + b as u16 * m + 127;
                            *o = ((n + 1 + (n >> 8)) >> 8) as u8;
                        }
                    });
                }
            } else {
                let bits = fmt.bitsPerSample as u32;
                let mxu = mx as u32;
                for y in 0..h {
                    let rm = mref.row::<u16>(y);
                    let (ra, rb) = (s[0].row::<u16>(y), s[1].row::<u16>(y));
                    let o = d.row::<u16>(y);
                    with_wide_math(#[inline(always)] || {
                        for (((o, &a), &b), &m) in o.iter_mut().zip(ra).zip(rb).zip(rm) {
                            let m = (m as u32).min(mxu);
                            let n = a as u32 * (mxu - m) + b as u32 * m + mxu / 2;
                            *o = ((n + (n >> bits) + 1) >> bits) as u16;
                        }
                    });
                }
            }
        }
        Ok(dst.freeze())
    })?;
    out.set_node("clip", node);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integer formula, as R81 computes it.
    fn exact(x: i64, m: i64, off: i64, mx: i64) -> i64 {
        off + ((x - off) * m + mx / 2).div_euclid(mx)
    }

    /// Every input up to 12 bits, a grid beyond (the offsets PreMultiply uses: none, the limited
    /// black level, the chroma midpoint).
    #[test]
    fn scale_about_is_exact() {
        for bits in 8..=16u32 {
            let mx = (1i64 << bits) - 1;
            let step = match bits {
                ..=12 => 1,
                16 => 7,
                _ => 3,
            };
            let mut values: Vec<i64> = (0..=mx).step_by(step).collect();
            values.extend([mx - 1, mx]);
            for off in [0, 16i64 << (bits - 8), 1i64 << (bits - 1)] {
                for &x in &values {
                    for &m in &values {
                        let got = if bits == 8 {
                            scale_about_8(x as u16, m as u16, off as u16, mx as u16, bits) as i64
                        } else {
                            scale_about_16(x as u32, m as u32, off as u32, mx as u32, bits) as i64
                        };
                        assert_eq!(got, exact(x, m, off, mx), "{bits} bits: x {x}, m {m}, off {off}");
                    }
                }
            }
        }
    }

    /// The division by 2^bits - 1 over every numerator a depth gives, without overflowing the
    /// lanes (u16 at 8 bits, u32 beyond).
    #[test]
    fn division_by_max_is_exact() {
        let (mx, n_max): (u16, u16) = (255, 255 * 255 + 127);
        assert_eq!((0..=n_max).find(|&n| n.checked_add((n >> 8) + 1).map(|s| s >> 8) != Some(n / mx)), None);
        for bits in 9..=16u32 {
            let mx = (1u32 << bits) - 1;
            let n_max = mx * mx + mx / 2;
            let bad = (0..=n_max).find(|&n| n.checked_add((n >> bits) + 1).map(|s| s >> bits) != Some(n / mx));
            assert_eq!(bad, None, "{bits} bits");
        }
    }
}
