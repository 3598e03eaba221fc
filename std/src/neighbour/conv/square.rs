//! Square kernels of 5x5 taps and up through AVX-512 or AVX2, the interior of each row read in
//! place: R81's SIMD float chain, and exact integer sums of 8- and 16-bit samples.

use super::super::plane::{has_avx2, has_avx512, sym, RowDst, RowSrc};
use super::{exact_in_f32, Job, Mode};

/// R81's SIMD interior of a square kernel of 5x5 taps or more through the AVX-512 or AVX2
/// kernel where the CPU has one; false, with nothing written, where not. Output i reads columns
/// i..i + n of each window row.
#[inline(always)]
pub(super) fn float_fast(job: &Job, rows: &[&[f32]], out: &mut [f32]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let (n, len) = (rows.len(), out.len());
        assert!(len >= 32 && rows.iter().all(|row| row.len() >= len + n - 1));
        let avx512 = has_avx512();
        if !avx512 && !has_avx2() {
            return false;
        }
        macro_rules! call {
            ($k:literal) => {{
                let p: [*const f32; $k] = std::array::from_fn(|k| rows[k].as_ptr());
                if avx512 {
                    // SAFETY: the CPU has AVX-512 F and FMA (checked above); row k is read at
                    // columns below out.len() + n - 1, inside it (asserted above).
                    unsafe { square_fma_avx512::<$k>(&p, &job.mf, job.rdiv, job.bias, job.saturate, out) }
                } else {
                    // SAFETY: the CPU has AVX2 and FMA (checked above); the reads as above.
                    unsafe { square_fma_avx2::<$k>(&p, &job.mf, job.rdiv, job.bias, job.saturate, out) }
                }
            }};
        }
        with_k!(n, call, [5, 7, 9, 11])
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (job, rows, out);
        false
    }
}

/// Generates the AVX-512 and AVX2 forms of the fused square chain: each output sample is
/// m[0] * tap 0 + 0, then every other tap fused in row order, then times rdiv plus bias in one
/// rounding (made positive unless saturating), which is R81's SIMD order. B vectors of output
/// are worked on at once so that each coefficient is loaded once for B chains and the chains
/// (dependent fused adds) overlap; rows of fewer than B vectors go one vector at a time. The last
/// block overlaps the one before, which is safe because each sample is computed alone.
macro_rules! square_fma_kernel {
    ($name:ident, $feat:literal, $v:ty, $lanes:literal, $set1:ident, $zero:ident, $load:ident, $store:ident, $fma:ident, $abs:expr) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feat)]
        unsafe fn $name<const N: usize>(p: &[*const f32; N], m: &[f32], rdiv: f32, bias: f32, saturate: bool, out: &mut [f32]) {
            use std::arch::x86_64::*;
            #[target_feature(enable = $feat)]
            #[inline]
            unsafe fn block<const N: usize, const B: usize>(p: &[*const f32; N], m: &[f32], x: usize) -> [$v; B] {
                let mut acc: [$v; B] = [$zero(); B];
                for ky in 0..N {
                    let row = p[ky].add(x);
                    for kx in 0..N {
                        let c = $set1(m[ky * N + kx]);
                        for (b, a) in acc.iter_mut().enumerate() {
                            *a = $fma(c, $load(row.add(kx + b * $lanes)), *a);
                        }
                    }
                }
                acc
            }
            #[target_feature(enable = $feat)]
            #[inline]
            unsafe fn run<const N: usize, const B: usize>(p: &[*const f32; N], m: &[f32], rdiv: f32, bias: f32, saturate: bool, out: &mut [f32]) {
                let (n, step) = (out.len(), B * $lanes);
                let (rv, bv) = ($set1(rdiv), $set1(bias));
                let o = out.as_mut_ptr();
                let mut i = 0;
                loop {
                    let x = i.min(n - step);
                    let acc = block::<N, B>(p, m, x);
                    for (b, a) in acc.into_iter().enumerate() {
                        let v = $fma(a, rv, bv);
                        let v = if saturate { v } else { $abs(v) };
                        $store(o.add(x + b * $lanes), v);
                    }
                    if x == n - step {
                        break;
                    }
                    i += step;
                }
            }
            assert!(m.len() == N * N && out.len() >= $lanes);
            if out.len() >= 4 * $lanes {
                run::<N, 4>(p, m, rdiv, bias, saturate, out)
            } else {
                run::<N, 1>(p, m, rdiv, bias, saturate, out)
            }
        }
    };
}

square_fma_kernel!(square_fma_avx512, "avx512f,avx512vl,avx2,fma", __m512, 16, _mm512_set1_ps, _mm512_setzero_ps, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_fmadd_ps, |v| _mm512_abs_ps(v));
square_fma_kernel!(square_fma_avx2, "avx2,fma", __m256, 8, _mm256_set1_ps, _mm256_setzero_ps, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_fmadd_ps, |v| _mm256_andnot_ps(_mm256_set1_ps(-0.0), v));

/// An integer square kernel of 5x5 taps or more on 16-bit samples, where the AVX-512 or AVX2
/// kernel below applies: every coefficient fits i16, the sums are exact in single precision
/// (then any order of additions gives R81's result) and rows hold at least 2r + 32 samples.
/// False, with nothing written, where it does not apply.
pub(super) fn int_u16(job: &Job, src: &impl RowSrc<u16>, dst: &mut impl RowDst<u16>) -> bool {
    if !int_applies(job, src.w(), 32) || !exact_in_f32(job) || job.mi.iter().any(|m| m.unsigned_abs() > 32767) {
        return false;
    }
    let m: Vec<i16> = job.mi.iter().map(|&m| m as i16).collect();
    let f = IntFin::of(job);
    let avx512 = has_avx512();
    macro_rules! call {
        ($k:literal) => {
            int_rows::<u16, $k>(src, dst, 32, |p, out| {
                if avx512 {
                    // SAFETY: the CPU has AVX-512 F/BW/VL (checked); row k of `p` is readable
                    // for out.len() + n - 1 samples (int_rows).
                    unsafe { square_u16_avx512::<$k>(p, &m, &f, out) }
                } else {
                    // SAFETY: the CPU has AVX2 and FMA (checked); the reads as above.
                    unsafe { square_u16_avx2::<$k>(p, &m, &f, out) }
                }
            })
        };
    }
    with_k!(job.taps, call, [5, 7, 9, 11])
}

/// The same for 8-bit samples, where every sum fits i16 (any order of additions gives the exact
/// sum) and every coefficient fits i8: two taps a vpmaddubsw (a pair's sum fits i16 too, so
/// nothing saturates), even and odd outputs from loads one sample apart, blocks of 64 outputs
/// (AVX-512) or 32 (AVX2).
pub(super) fn int_u8(job: &Job, src: &impl RowSrc<u8>, dst: &mut impl RowDst<u8>) -> bool {
    // (interiors of 32 to 63 samples take the AVX2 kernel on AVX-512 machines too)
    let avx512 = has_avx512() && src.w() >= 2 * (job.taps / 2) + 64;
    let block = if avx512 { 64 } else { 32 };
    if !int_applies(job, src.w(), block) || !super::fits_i16(job) || job.mi.iter().any(|&m| i8::try_from(m).is_err()) {
        return false;
    }
    let m: Vec<i8> = job.mi.iter().map(|&m| m as i8).collect();
    let f = IntFin::of(job);
    macro_rules! call {
        ($k:literal) => {
            int_rows::<u8, $k>(src, dst, block, |p, out| {
                if avx512 {
                    // SAFETY: the CPU has AVX-512 F/BW/VL (checked); row k of `p` is readable
                    // for out.len() + n - 1 samples (int_rows).
                    unsafe { square_u8_avx512::<$k>(p, &m, &f, out) }
                } else {
                    // SAFETY: the CPU has AVX2 and FMA (checked); the reads as above.
                    unsafe { square_u8_avx2::<$k>(p, &m, &f, out) }
                }
            })
        };
    }
    with_k!(job.taps, call, [5, 7, 9, 11])
}

/// What the integer kernels share: a square kernel of 5x5 to 11x11 taps, an interior of at least
/// `block` samples a row, AVX2 at least.
fn int_applies(job: &Job, w: usize, block: usize) -> bool {
    let r = job.taps / 2;
    job.mode == Mode::Square && (5..=11).contains(&job.taps) && w >= 2 * r + block && has_avx2()
}

/// The rows of a plane through an integer square `kernel` of N x N taps, which computes
/// out.len() >= `block` outputs, output i from columns i..i + N of each row it is given. The
/// interior reads the plane's rows in place. The edge columns go through the same kernel over
/// short rows of mirrored samples: `block` outputs a side, of which the r outer ones are kept
/// (every sum is exact, so where an output is computed does not change it).
#[inline(always)]
fn int_rows<T: Copy + Default, const N: usize>(src: &impl RowSrc<T>, dst: &mut impl RowDst<T>, block: usize, kernel: impl Fn(&[*const T; N], &mut [T])) -> bool {
    let (w, h, r) = (src.w(), src.h(), N / 2);
    let span = block + 2 * r;
    let mut short = vec![T::default(); N * span];
    let mut edge = vec![T::default(); block];
    for y in 0..h {
        let rows: [&[T]; N] = std::array::from_fn(|k| src.row(sym(y as isize + k as isize - r as isize, h)));
        let out = dst.row(y);
        assert!(rows.iter().all(|row| row.len() == w) && out.len() == w && w >= 2 * r + block);
        kernel(&rows.map(|row| row.as_ptr()), &mut out[r..w - r]);
        // left: short column c is source column c - r; right: w - block - r + c
        for (first, keep) in [(-(r as isize), 0..r), ((w - block - r) as isize, block - r..block)] {
            for (row, s) in rows.iter().zip(short.chunks_exact_mut(span)) {
                // span - r columns inside the row, r outside it (mirrored)
                let inside = if first < 0 { r..span } else { 0..span - r };
                let from = (first + inside.start as isize) as usize;
                s[inside.clone()].copy_from_slice(&row[from..from + inside.len()]);
                for c in (0..span).filter(|c| !inside.contains(c)) {
                    s[c] = row[sym(first + c as isize, w)];
                }
            }
            let p: [*const T; N] = std::array::from_fn(|k| short[k * span..].as_ptr());
            kernel(&p, &mut edge);
            let at = (first + r as isize) as usize + keep.start;
            out[at..at + r].copy_from_slice(&edge[keep]);
        }
        dst.done(y);
    }
    true
}

/// The finish of an integer sum: one rounding of sum * rdiv + bias (to nearest even), made
/// positive unless saturating, clamped to 0..=max (R81's, as `fin_int`).
struct IntFin {
    rdiv: f32,
    bias: f32,
    max: f32,
    saturate: bool,
}

impl IntFin {
    fn of(job: &Job) -> IntFin {
        IntFin { rdiv: job.rdiv, bias: job.bias, max: job.max as f32, saturate: job.saturate }
    }
}

/// Generates the AVX-512 and AVX2 forms of the 16-bit integer square kernel: samples moved to
/// signed by -32768 (the offset added back as one constant), two taps of a row per vpmaddwd
/// (a tap pair's products cannot overflow i32; the running sums may wrap, which leaves the final,
/// exact sum right), four blocks of two vectors at a time, one at a time on rows shorter than
/// that, the last block overlapping the one before (each sample is computed alone). The unpacks
/// and the final pack both work within 128-bit lanes, so the samples come back in order.
macro_rules! square_u16_kernel {
    ($name:ident, $feat:literal, $vi:ty, $lanes:literal, $load:ident, $store:ident, $xor:ident, $zero:ident, $set1_16:ident, $set1_32:ident,
     $madd:ident, $add32:ident, $unlo:ident, $unhi:ident, $packus:ident, $cvt_ps:ident, $fma:ident, $set1_ps:ident, $zero_ps:ident,
     $abs:expr, $min:ident, $max:ident, $round:expr) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feat)]
        unsafe fn $name<const N: usize>(p: &[*const u16; N], m: &[i16], f: &IntFin, out: &mut [u16]) {
            use std::arch::x86_64::*;
            #[target_feature(enable = $feat)]
            #[inline]
            unsafe fn run<const N: usize, const B: usize>(p: &[*const u16; N], m: &[i16], f: &IntFin, out: &mut [u16]) {
                let pair = |ky: usize, j: usize| {
                    let lo = m[ky * N + 2 * j] as u16 as u32;
                    let hi = if 2 * j + 1 < N { m[ky * N + 2 * j + 1] as u16 as u32 } else { 0 };
                    $set1_32(((hi << 16) | lo) as i32)
                };
                let off = $set1_32(m.iter().map(|&v| v as i32).sum::<i32>().wrapping_mul(32768));
                let flip = $set1_16(i16::MIN);
                let (rv, bv, maxv, zero) = ($set1_ps(f.rdiv), $set1_ps(f.bias), $set1_ps(f.max), $zero_ps());
                let fin = |s: $vi| {
                    let v = $fma($cvt_ps(s), rv, bv);
                    let v = if f.saturate { v } else { $abs(v) };
                    $round($min($max(v, zero), maxv))
                };
                let (n, step) = (out.len(), B * $lanes);
                let o = out.as_mut_ptr();
                let mut i = 0;
                loop {
                    let x = i.min(n - step);
                    let mut lo = [off; B];
                    let mut hi = [off; B];
                    for ky in 0..N {
                        let row = p[ky].add(x);
                        for j in 0..N.div_ceil(2) {
                            let c = pair(ky, j);
                            for b in 0..B {
                                let a = $xor($load(row.add(2 * j + b * $lanes).cast()), flip);
                                let d = if 2 * j + 1 < N { $xor($load(row.add(2 * j + 1 + b * $lanes).cast()), flip) } else { $zero() };
                                lo[b] = $add32(lo[b], $madd($unlo(a, d), c));
                                hi[b] = $add32(hi[b], $madd($unhi(a, d), c));
                            }
                        }
                    }
                    for b in 0..B {
                        $store(o.add(x + b * $lanes).cast(), $packus(fin(lo[b]), fin(hi[b])));
                    }
                    if x == n - step {
                        break;
                    }
                    i += step;
                }
            }
            assert!(m.len() == N * N && out.len() >= $lanes);
            if out.len() >= 4 * $lanes {
                run::<N, 4>(p, m, f, out)
            } else {
                run::<N, 1>(p, m, f, out)
            }
        }
    };
}

square_u16_kernel!(square_u16_avx512, "avx512f,avx512bw,avx512vl,avx2,fma", __m512i, 32, _mm512_loadu_si512, _mm512_storeu_si512, _mm512_xor_si512,
    _mm512_setzero_si512, _mm512_set1_epi16, _mm512_set1_epi32, _mm512_madd_epi16, _mm512_add_epi32, _mm512_unpacklo_epi16, _mm512_unpackhi_epi16,
    _mm512_packus_epi32, _mm512_cvtepi32_ps, _mm512_fmadd_ps, _mm512_set1_ps, _mm512_setzero_ps, |v| _mm512_abs_ps(v), _mm512_min_ps, _mm512_max_ps,
    |v| _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(v));
square_u16_kernel!(square_u16_avx2, "avx2,fma", __m256i, 16, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_xor_si256,
    _mm256_setzero_si256, _mm256_set1_epi16, _mm256_set1_epi32, _mm256_madd_epi16, _mm256_add_epi32, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16,
    _mm256_packus_epi32, _mm256_cvtepi32_ps, _mm256_fmadd_ps, _mm256_set1_ps, _mm256_setzero_ps, |v| _mm256_andnot_ps(_mm256_set1_ps(-0.0), v), _mm256_min_ps, _mm256_max_ps,
    |v| _mm256_cvtps_epi32(v));

/// Generates the AVX-512 and AVX2 forms of the 8-bit integer square kernel. A vector of L bytes
/// loaded at column c holds L/2 pairs (c + 2i, c + 2i + 1): vpmaddubsw with the coefficients of
/// taps (2j, 2j + 1) gives their part of output c - 2j + 2i. So loads at x + 2j (even outputs)
/// and x + 2j + 1 (odd outputs) cover taps 2j and 2j + 1 of L outputs in i16 lanes; an odd last
/// tap pairs with the one before it, with a zero coefficient for that one, so no load passes the
/// last column a row's outputs read. The sums wrap in i16 and are exact (fits_i16). The finish
/// is `IntFin` in single precision on sign-extended sums; each even output and the odd one after
/// it are joined into one 16-bit word. Blocks of L outputs, the last overlapping the one before.
macro_rules! square_u8_kernel {
    ($name:ident, $feat:literal, $vi:ty, $half:ty, $lanes:literal, $load:ident, $set1_16:ident, $zero:ident, $maddubs:ident, $add16:ident,
     $lo_half:expr, $hi_half:expr, $ext:ident, $cvt_ps:ident, $fma:ident, $set1_ps:ident, $zero_ps:ident, $abs:expr, $min:ident, $max:ident,
     $round:expr, $slli:ident, $or:ident, $store_words:expr) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feat)]
        unsafe fn $name<const N: usize>(p: &[*const u8; N], m: &[i8], f: &IntFin, out: &mut [u8]) {
            use std::arch::x86_64::*;
            assert!(m.len() == N * N && out.len() >= $lanes);
            // (tap a, tap b, coefficients): a + 1 = b; the pair of an odd last tap is (N - 2, N - 1)
            // with a zero for N - 2
            let pairs = N.div_ceil(2);
            let coef = |ky: usize, j: usize| -> (usize, i16) {
                let a = (2 * j).min(N - 2);
                let ca = if 2 * j == N - 1 { 0 } else { m[ky * N + a] };
                let cb = m[ky * N + a + 1];
                (a, (((cb as u8 as u16) << 8) | ca as u8 as u16) as i16)
            };
            let (rv, bv, maxv, zero) = ($set1_ps(f.rdiv), $set1_ps(f.bias), $set1_ps(f.max), $zero_ps());
            let fin = |s: $half| {
                let v = $fma($cvt_ps($ext(s)), rv, bv);
                let v = if f.saturate { v } else { $abs(v) };
                $round($min($max(v, zero), maxv))
            };
            let n = out.len();
            let o = out.as_mut_ptr();
            let mut i = 0;
            loop {
                let x = i.min(n - $lanes);
                let (mut ev, mut od) = ($zero(), $zero());
                for ky in 0..N {
                    let row = p[ky].add(x);
                    for j in 0..pairs {
                        let (a, c) = coef(ky, j);
                        let c = $set1_16(c);
                        ev = $add16(ev, $maddubs($load(row.add(a).cast()), c));
                        od = $add16(od, $maddubs($load(row.add(a + 1).cast()), c));
                    }
                }
                for (h, (e, d)) in [($lo_half(ev), $lo_half(od)), ($hi_half(ev), $hi_half(od))].into_iter().enumerate() {
                    // output x + 2i is even lane i, x + 2i + 1 odd lane i: one 16-bit word
                    let words = $or(fin(e), $slli::<8>(fin(d)));
                    $store_words(o.add(x + h * $lanes / 2), words);
                }
                if x == n - $lanes {
                    break;
                }
                i += $lanes;
            }
        }
    };
}

square_u8_kernel!(square_u8_avx512, "avx512f,avx512bw,avx512vl,avx2,fma", __m512i, __m256i, 64, _mm512_loadu_si512, _mm512_set1_epi16,
    _mm512_setzero_si512, _mm512_maddubs_epi16, _mm512_add_epi16, |v| _mm512_castsi512_si256(v), |v| _mm512_extracti64x4_epi64::<1>(v),
    _mm512_cvtepi16_epi32, _mm512_cvtepi32_ps, _mm512_fmadd_ps, _mm512_set1_ps, _mm512_setzero_ps, |v| _mm512_abs_ps(v), _mm512_min_ps, _mm512_max_ps,
    |v| _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(v), _mm512_slli_epi32, _mm512_or_si512,
    |p: *mut u8, v| _mm256_storeu_si256(p.cast(), _mm512_cvtepi32_epi16(v)));
square_u8_kernel!(square_u8_avx2, "avx2,fma", __m256i, __m128i, 32, _mm256_loadu_si256, _mm256_set1_epi16,
    _mm256_setzero_si256, _mm256_maddubs_epi16, _mm256_add_epi16, |v| _mm256_castsi256_si128(v), |v| _mm256_extracti128_si256::<1>(v),
    _mm256_cvtepi16_epi32, _mm256_cvtepi32_ps, _mm256_fmadd_ps, _mm256_set1_ps, _mm256_setzero_ps, |v| _mm256_andnot_ps(_mm256_set1_ps(-0.0), v),
    _mm256_min_ps, _mm256_max_ps, |v| _mm256_cvtps_epi32(v), _mm256_slli_epi32, _mm256_or_si256,
    |p: *mut u8, v| {
        // the words of 8 lanes, packed (within 128-bit halves, hence the permute)
        let w = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(v, v));
        _mm_storeu_si128(p.cast(), _mm256_castsi256_si128(w))
    });
