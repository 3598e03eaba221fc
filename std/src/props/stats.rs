//! PlaneStats' integer sums: minimum, maximum, sum and sum of absolute differences of a plane.
//! Integer sums are exact in any order, so any blocking gives R81's results; the AVX2 kernels
//! use the byte sum-of-absolute-differences instruction for 8 bits and 16-bit minima, maxima and
//! widening adds for 16 (samples widened to u32 before the reductions kept the loop at 0.03x R81).

use crate::util::Src;

pub(super) trait StatSample: Copy + Into<u32> + Ord + Default {
    const MAX: Self;
    /// The AVX2 kernel over a whole plane (the caller checks for AVX2).
    #[cfg(target_arch = "x86_64")]
    unsafe fn plane_avx2(a: &Src, b: Option<&Src>) -> (u32, u32, u64, u64);
}

impl StatSample for u8 {
    const MAX: u8 = u8::MAX;
    #[cfg(target_arch = "x86_64")]
    unsafe fn plane_avx2(a: &Src, b: Option<&Src>) -> (u32, u32, u64, u64) {
        plane_u8_avx2(a, b)
    }
}

impl StatSample for u16 {
    const MAX: u16 = u16::MAX;
    #[cfg(target_arch = "x86_64")]
    unsafe fn plane_avx2(a: &Src, b: Option<&Src>) -> (u32, u32, u64, u64) {
        plane_u16_avx2(a, b)
    }
}

/// (min, max, sum, sum of |a - b|) over a plane of samples T (`b` the same size).
pub(super) fn int_stats<T: StatSample>(a: &Src, b: Option<&Src>) -> (u32, u32, u64, u64) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected at run time.
            return unsafe { T::plane_avx2(a, b) };
        }
    }
    let (mut mn, mut mx, mut sum, mut diff) = (u32::MAX, 0u32, 0u64, 0u64);
    for y in 0..a.h {
        // SAFETY: y < h; the caller's planes hold samples of T.
        let r = unsafe { row_scalar(a.row::<T>(y), b.map(|b| b.row::<T>(y))) };
        mn = mn.min(r.0);
        mx = mx.max(r.1);
        sum += r.2;
        diff += r.3;
    }
    (mn, mx, sum, diff)
}

/// The portable row kernel, also the SIMD kernels' row tails.
fn row_scalar<T: StatSample>(a: &[T], b: Option<&[T]>) -> (u32, u32, u64, u64) {
    let (mut mn, mut mx, mut sum, mut diff) = (T::MAX, T::default(), 0u64, 0u64);
    for &v in a {
        mn = mn.min(v);
        mx = mx.max(v);
        sum += Into::<u32>::into(v) as u64;
    }
    if let Some(b) = b {
        for (&x, &z) in a.iter().zip(b) {
            diff += Into::<u32>::into(x).abs_diff(z.into()) as u64;
        }
    }
    // an empty row leaves (MAX, 0): neutral for the plane's reduction
    (mn.into(), mx.into(), sum, diff)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn plane_u8_avx2(a: &Src, b: Option<&Src>) -> (u32, u32, u64, u64) {
    use std::arch::x86_64::*;
    let zero = _mm256_setzero_si256();
    // the accumulators live across rows: reducing them per row cost a third of the time at 1080p
    let (mut vmn, mut vmx) = (_mm256_set1_epi8(-1), zero);
    let (mut vs, mut vd) = (zero, zero);
    let (mut mn, mut mx, mut sum, mut diff) = (u32::MAX, 0u32, 0u64, 0u64);
    for y in 0..a.h {
        // SAFETY: y < h; 8-bit planes (int_stats' caller).
        let (ra, rb) = (a.row::<u8>(y), b.map(|b| b.row::<u8>(y)));
        let n = ra.len() / 32 * 32;
        for i in (0..n).step_by(32) {
            // SAFETY: i + 32 <= n <= the rows' length (the planes have one size).
            let va = _mm256_loadu_si256(ra.as_ptr().add(i).cast());
            vmn = _mm256_min_epu8(vmn, va);
            vmx = _mm256_max_epu8(vmx, va);
            // four 64-bit sums of eight bytes each
            vs = _mm256_add_epi64(vs, _mm256_sad_epu8(va, zero));
            if let Some(rb) = rb {
                let vb = _mm256_loadu_si256(rb.as_ptr().add(i).cast());
                vd = _mm256_add_epi64(vd, _mm256_sad_epu8(va, vb));
            }
        }
        let t = row_scalar(&ra[n..], rb.map(|b| &b[n..]));
        mn = mn.min(t.0);
        mx = mx.max(t.1);
        sum += t.2;
        diff += t.3;
    }
    let (mut m, mut x, mut s, mut d) = ([0u8; 32], [0u8; 32], [0u64; 4], [0u64; 4]);
    _mm256_storeu_si256(m.as_mut_ptr().cast(), vmn);
    _mm256_storeu_si256(x.as_mut_ptr().cast(), vmx);
    _mm256_storeu_si256(s.as_mut_ptr().cast(), vs);
    _mm256_storeu_si256(d.as_mut_ptr().cast(), vd);
    // the vector lanes start at (255, 0), neutral where no row had 32 samples
    let mn = m.iter().fold(mn, |acc, &v| acc.min(v as u32));
    let mx = x.iter().fold(mx, |acc, &v| acc.max(v as u32));
    (mn, mx, s.iter().sum::<u64>() + sum, d.iter().sum::<u64>() + diff)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn plane_u16_avx2(a: &Src, b: Option<&Src>) -> (u32, u32, u64, u64) {
    use std::arch::x86_64::*;
    let zero = _mm256_setzero_si256();
    let (mut vmn, mut vmx) = (_mm256_set1_epi16(-1), zero);
    let (mut mn, mut mx, mut sum, mut diff) = (u32::MAX, 0u32, 0u64, 0u64);
    let flush = |v: __m256i| -> u64 {
        let mut l = [0u32; 8];
        _mm256_storeu_si256(l.as_mut_ptr().cast(), v);
        l.iter().map(|&x| x as u64).sum()
    };
    // 32-bit lanes take two samples below 2^16 per step: flushed after at most 2^14 steps
    const FLUSH: usize = 1 << 14;
    let (mut vs, mut vd, mut steps) = (zero, zero, 0usize);
    for y in 0..a.h {
        // SAFETY: y < h; 16-bit planes (int_stats' caller).
        let (ra, rb) = (a.row::<u16>(y), b.map(|b| b.row::<u16>(y)));
        let n = ra.len() / 16 * 16;
        // the flush is decided per piece of row, keeping the inner loop free of it
        for start in (0..n).step_by(16 * FLUSH / 2) {
            let end = (start + 16 * FLUSH / 2).min(n);
            if steps + (end - start) / 16 > FLUSH {
                sum += flush(vs);
                diff += flush(vd);
                (vs, vd, steps) = (zero, zero, 0);
            }
            steps += (end - start) / 16;
            for i in (start..end).step_by(16) {
                // SAFETY: i + 16 <= n <= the rows' length (the planes have one size).
                let va = _mm256_loadu_si256(ra.as_ptr().add(i).cast());
                vmn = _mm256_min_epu16(vmn, va);
                vmx = _mm256_max_epu16(vmx, va);
                vs = _mm256_add_epi32(vs, _mm256_add_epi32(_mm256_unpacklo_epi16(va, zero), _mm256_unpackhi_epi16(va, zero)));
                if let Some(rb) = rb {
                    let vb = _mm256_loadu_si256(rb.as_ptr().add(i).cast());
                    let ad = _mm256_sub_epi16(_mm256_max_epu16(va, vb), _mm256_min_epu16(va, vb));
                    vd = _mm256_add_epi32(vd, _mm256_add_epi32(_mm256_unpacklo_epi16(ad, zero), _mm256_unpackhi_epi16(ad, zero)));
                }
            }
        }
        let t = row_scalar(&ra[n..], rb.map(|b| &b[n..]));
        mn = mn.min(t.0);
        mx = mx.max(t.1);
        sum += t.2;
        diff += t.3;
    }
    sum += flush(vs);
    diff += flush(vd);
    let (mut m, mut x) = ([0u16; 16], [0u16; 16]);
    _mm256_storeu_si256(m.as_mut_ptr().cast(), vmn);
    _mm256_storeu_si256(x.as_mut_ptr().cast(), vmx);
    // the vector lanes start at (65535, 0), neutral where no row had 16 samples
    let mn = m.iter().fold(mn, |acc, &v| acc.min(v as u32));
    let mx = x.iter().fold(mx, |acc, &v| acc.max(v as u32));
    (mn, mx, sum, diff)
}

/// (min, max, sum, sum of |a - b|) of a float plane, of single or half precision (`half`) samples.
///
/// The sums are R81's to the bit: four double accumulators over the whole plane, sample `x` of a
/// row (from its start) going to accumulator `x % 4`, added up as (0 + 2) + (1 + 3) at the end.
/// Found by running R81 on planes whose sums round (tiny and large samples mixed, widths of every
/// remainder mod 4): its AVX2 code does exactly this, its portable code (std.SetMaxCPU none)
/// adds the samples one by one over the plane, which the same data tells apart. One accumulator
/// per row, as before, matched neither and was a fifth of R81's speed.
pub(super) fn float_stats(a: &Src, b: Option<&Src>, half: bool) -> (f32, f32, f64, f64) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("f16c") {
            // SAFETY: AVX2 and F16C were detected at run time.
            return unsafe {
                if half {
                    float_stats_avx2::<true>(a, b)
                } else {
                    float_stats_avx2::<false>(a, b)
                }
            };
        }
    }
    float_stats_body(a, b, half)
}

/// `float_stats` over rows of f32 samples, or of half samples (`HALF`) widened as they are loaded
/// (a separate conversion pass into a row buffer was a third of half PlaneStats' time).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn float_stats_avx2<const HALF: bool>(a: &Src, b: Option<&Src>) -> (f32, f32, f64, f64) {
    use std::arch::x86_64::*;
    // min_ps(v, m) is `v < m ? v : m`: NaN samples are skipped, as f32::min does
    let (mut vmn, mut vmx) = (_mm256_set1_ps(f32::INFINITY), _mm256_set1_ps(f32::NEG_INFINITY));
    let (mut smn, mut smx) = (f32::INFINITY, f32::NEG_INFINITY);
    let (mut vs, mut vd) = (_mm256_setzero_pd(), _mm256_setzero_pd());
    // four samples into the four accumulators, in the samples' order (the adds to one
    // accumulator must stay in R81's order: they round)
    let add4 = |acc: __m256d, v: __m128| _mm256_add_pd(acc, _mm256_cvtps_pd(v));
    let absd = |x: __m256, z: __m256| _mm256_and_ps(_mm256_sub_ps(x, z), _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff)));
    // row y's start and width; eight samples from i; one sample at i
    // SAFETY: y < h (the loop below), inside the plane.
    let start = |f: &Src, y: usize| -> (*const u8, usize) { unsafe { (f.ptr.offset(y as isize * f.stride), f.w) } };
    // SAFETY (both): i (+ 8) is within the row the pointer starts (the callers' loops).
    let load8 = |p: *const u8, i: usize| unsafe {
        if HALF {
            _mm256_cvtph_ps(_mm_loadu_si128(p.cast::<u16>().add(i).cast()))
        } else {
            _mm256_loadu_ps(p.cast::<f32>().add(i))
        }
    };
    let load1 = |p: *const u8, i: usize| unsafe {
        if HALF {
            vsvk_plugin_api::simd::half_to_f32(*p.cast::<u16>().add(i))
        } else {
            *p.cast::<f32>().add(i)
        }
    };
    for y in 0..a.h {
        let (pa, w) = start(a, y);
        let pb = b.map(|b| start(b, y).0);
        let n8 = w / 8 * 8;
        for i in (0..n8).step_by(8) {
            let v = load8(pa, i);
            vmn = _mm256_min_ps(v, vmn);
            vmx = _mm256_max_ps(v, vmx);
            vs = add4(add4(vs, _mm256_castps256_ps128(v)), _mm256_extractf128_ps::<1>(v));
            if let Some(pb) = pb {
                let d = absd(v, load8(pb, i));
                vd = add4(add4(vd, _mm256_castps256_ps128(d)), _mm256_extractf128_ps::<1>(d));
            }
        }
        // the last one to seven samples: four at once, then the rest padded with zeros into
        // accumulators 0, 1, 2 (zeros leave the others as they are: the sums never hold -0)
        let mut i = n8;
        while i < w {
            let k = (w - i).min(4);
            let (mut t, mut u) = ([0.0f32; 4], [0.0f32; 4]);
            for j in 0..k {
                t[j] = load1(pa, i + j);
                if let Some(pb) = pb {
                    u[j] = (t[j] - load1(pb, i + j)).abs();
                }
            }
            vs = add4(vs, _mm_loadu_ps(t.as_ptr()));
            if pb.is_some() {
                vd = add4(vd, _mm_loadu_ps(u.as_ptr()));
            }
            for &v in &t[..k] {
                smn = if v < smn { v } else { smn };
                smx = if v > smx { v } else { smx };
            }
            i += k;
        }
    }
    let (mut m, mut x, mut s, mut d) = ([0f32; 8], [0f32; 8], [0f64; 4], [0f64; 4]);
    _mm256_storeu_ps(m.as_mut_ptr(), vmn);
    _mm256_storeu_ps(x.as_mut_ptr(), vmx);
    _mm256_storeu_pd(s.as_mut_ptr(), vs);
    _mm256_storeu_pd(d.as_mut_ptr(), vd);
    let min = m.iter().fold(smn, |acc, &v| if v < acc { v } else { acc });
    let max = x.iter().fold(smx, |acc, &v| if v > acc { v } else { acc });
    (min, max, (s[0] + s[2]) + (s[1] + s[3]), (d[0] + d[2]) + (d[1] + d[3]))
}

/// Row `y` of a float plane as f32: the frame's own samples, or half precision ones widened
/// into `buf`.
fn float_row<'a>(f: &'a Src, half: bool, y: usize, buf: &'a mut Vec<f32>) -> &'a [f32] {
    if half {
        super::row_f32(f, true, y, buf);
        buf
    } else {
        // SAFETY: the callers' y < h; a plane of f32 samples.
        unsafe { f.row::<f32>(y) }
    }
}

/// The portable version of the AVX2 kernel, the same sums in the same order.
fn float_stats_body(a: &Src, b: Option<&Src>, half: bool) -> (f32, f32, f64, f64) {
    let (mut ba, mut bb) = (Vec::new(), Vec::new());
    let (mut sum, mut diff) = ([0.0f64; 4], [0.0f64; 4]);
    // eight running minima and maxima: `if v < m` is the vector min instruction's own rule, and
    // skips NaN samples as f32::min does
    let (mut mn, mut mx) = ([f32::INFINITY; 8], [f32::NEG_INFINITY; 8]);
    for y in 0..a.h {
        let ra = float_row(a, half, y, &mut ba);
        let mut c8 = ra.chunks_exact(8);
        for c in &mut c8 {
            for j in 0..8 {
                mn[j] = if c[j] < mn[j] { c[j] } else { mn[j] };
                mx[j] = if c[j] > mx[j] { c[j] } else { mx[j] };
            }
        }
        for &v in c8.remainder() {
            mn[0] = if v < mn[0] { v } else { mn[0] };
            mx[0] = if v > mx[0] { v } else { mx[0] };
        }
        let mut c4 = ra.chunks_exact(4);
        for c in &mut c4 {
            for j in 0..4 {
                sum[j] += c[j] as f64;
            }
        }
        for (j, &v) in c4.remainder().iter().enumerate() {
            sum[j] += v as f64;
        }
        if let Some(b) = b {
            let rb = float_row(b, half, y, &mut bb);
            let mut ca = ra.chunks_exact(4);
            let mut cb = rb.chunks_exact(4);
            for (x, z) in (&mut ca).zip(&mut cb) {
                for j in 0..4 {
                    diff[j] += (x[j] - z[j]).abs() as f64;
                }
            }
            for (j, (&x, &z)) in ca.remainder().iter().zip(cb.remainder()).enumerate() {
                diff[j] += (x - z).abs() as f64;
            }
        }
    }
    let min = mn.iter().fold(f32::INFINITY, |m, &v| if v < m { v } else { m });
    let max = mx.iter().fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m });
    (min, max, (sum[0] + sum[2]) + (sum[1] + sum[3]), (diff[0] + diff[2]) + (diff[1] + diff[3]))
}
