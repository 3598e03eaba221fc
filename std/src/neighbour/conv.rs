//! Convolution: square (3x3 to 11x11), horizontal, vertical and separable (vertical pass, then
//! horizontal) kernels, edges mirrored with the edge sample repeated.
//!
//! Integer: the exact integer sum, converted to single precision, times 1/divisor plus bias in one
//! fused multiply-add, rounded to nearest even, made positive unless saturating, clamped.
//! Float: single precision in the order of additions R81 uses (see `Path`).
use std::ops::Range;

use super::plane::{clamp_to_int, f32_to_half, f32_to_halves, half_to_f32, halves_to_f32, multiversion, sym, HalfOut, IntPx, Packed, PadRows, PlaneIn, PlaneOut, RowDst, RowSrc};
use super::Path;
use vsvk_plugin_api::frame::{Frame, FrameMut};
use crate::util::Kind;

/// Applies `$mac!(K)` for the const K equal to `$n` among the kernel sizes that have fused
/// kernels; evaluates to false for other sizes.
macro_rules! with_k {
    ($n:expr, $mac:ident, [$($k:literal),*]) => {
        match $n {
            $($k => { $mac!($k); true })*
            _ => false,
        }
    };
}

// (after with_k!, which it uses)
mod square;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Square,
    H,
    V,
    HV,
}

pub struct Job {
    pub mode: Mode,
    /// Taps per dimension (square) or in all (h, v, hv).
    pub taps: usize,
    /// Coefficients rounded (integer formats) and as given (float formats).
    pub mi: Vec<i32>,
    pub mf: Vec<f32>,
    pub rdiv: f32,
    pub bias: f32,
    pub saturate: bool,
    pub max: i32,
    pub path: Path,
    /// Samples are half floats (worked on as single precision).
    pub half: bool,
    /// The integer finish of 16-bit sums, where one reproduces the single-precision one (see
    /// `find_fin16`).
    pub fin16: Option<Fin16>,
}

// ---- integer ------------------------------------------------------------------------------------

/// Integer accumulators: 32 bits where the coefficients cannot overflow them, else 64.
pub trait Acc: Copy + Default + std::ops::AddAssign + Send + Sync + 'static {
    fn prod(m: i32, v: i32) -> Self;
    /// self + m * v.
    #[inline(always)]
    fn mac(self, m: i32, v: i32) -> Self {
        let mut s = self;
        s += Self::prod(m, v);
        s
    }
    fn to_f32(self) -> f32;
    /// One output row through the row kernel compiled for this accumulator and `T`.
    fn row<T: ConvPx>(job: &Job, taps: &[ITap<T>], acc: &mut [Self], out: &mut [T]);
}
impl Acc for i32 {
    #[inline(always)]
    fn row<T: ConvPx>(job: &Job, taps: &[ITap<T>], acc: &mut [i32], out: &mut [T]) {
        T::row_i32(job, taps, acc, out)
    }
    #[inline(always)]
    fn prod(m: i32, v: i32) -> i32 {
        m * v
    }
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }
}
impl Acc for i64 {
    #[inline(always)]
    fn row<T: ConvPx>(job: &Job, taps: &[ITap<T>], acc: &mut [i64], out: &mut [T]) {
        T::row_i64(job, taps, acc, out)
    }
    #[inline(always)]
    fn prod(m: i32, v: i32) -> i64 {
        m as i64 * v as i64
    }
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }
}

/// A 16-bit sum that wraps: exact whenever the final sum fits 16 bits, whatever the partial sums
/// (arithmetic modulo 2^16), so 8-bit kernels whose sums fit run twice as wide as in 32 bits.
#[derive(Clone, Copy, Default)]
pub struct W16(i16);
impl std::ops::AddAssign for W16 {
    #[inline(always)]
    fn add_assign(&mut self, o: W16) {
        self.0 = self.0.wrapping_add(o.0);
    }
}
impl Acc for W16 {
    #[inline(always)]
    fn row<T: ConvPx>(job: &Job, taps: &[ITap<T>], acc: &mut [W16], out: &mut [T]) {
        T::row_w16(job, taps, acc, out)
    }
    #[inline(always)]
    fn prod(m: i32, v: i32) -> W16 {
        W16((m as i16).wrapping_mul(v as i16))
    }
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self.0 as f32
    }
}

/// Sums in single precision for kernels whose sums stay below 2^24 (`exact_in_f32`): every
/// product and partial sum is exact, so one fused multiply-add per tap, in any order, gives the
/// integer sum (where 32-bit integer multiplies are slower).
#[derive(Clone, Copy, Default)]
pub struct ExactF32(f32);
impl std::ops::AddAssign for ExactF32 {
    #[inline(always)]
    fn add_assign(&mut self, o: ExactF32) {
        self.0 += o.0;
    }
}
impl Acc for ExactF32 {
    #[inline(always)]
    fn row<T: ConvPx>(job: &Job, taps: &[ITap<T>], acc: &mut [ExactF32], out: &mut [T]) {
        T::row_exact(job, taps, acc, out)
    }
    #[inline(always)]
    fn prod(m: i32, v: i32) -> ExactF32 {
        ExactF32(m as f32 * v as f32)
    }
    #[inline(always)]
    fn mac(self, m: i32, v: i32) -> ExactF32 {
        ExactF32((m as f32).mul_add(v as f32, self.0))
    }
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self.0
    }
}

/// Whether every sum of the kernel (each pass of a separable one) fits 16 signed bits.
fn fits_i16(job: &Job) -> bool {
    let pos: i64 = job.mi.iter().filter(|&&m| m > 0).map(|&m| m as i64).sum();
    let neg: i64 = job.mi.iter().filter(|&&m| m < 0).map(|&m| -(m as i64)).sum();
    pos * job.max as i64 <= i16::MAX as i64 && neg * job.max as i64 <= -(i16::MIN as i64)
}

/// How a 16-bit sum becomes an output sample in 16-bit integer arithmetic. A candidate is kept
/// only if it gives the single-precision finish's result (`fin_int`) for every sum the kernel can
/// produce, so either way the output is the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fin16 {
    /// Divided by 2^k, rounded to nearest even, plus c.
    Shift { k: u32, c: i16 },
    /// Times a / 2^15, rounded half up, plus c.
    MulHrs { a: i16, c: i16 },
}

/// `f` applied to sum `s`, made positive unless saturating, clamped to 0..=max.
#[inline(always)]
fn fin16_apply<const SAT: bool>(f: Fin16, s: i16, max: i16) -> i16 {
    let t = match f {
        Fin16::Shift { k: 0, c } => s.wrapping_add(c),
        Fin16::Shift { k, c } => {
            let half = (1i16 << (k - 1)) - 1;
            (s.wrapping_add(half).wrapping_add((s >> k) & 1) >> k).wrapping_add(c)
        }
        Fin16::MulHrs { a, c } => ((((s as i32) * (a as i32) + (1 << 14)) >> 15) as i16).wrapping_add(c),
    };
    let t = if SAT { t } else { t.wrapping_abs() };
    t.clamp(0, max)
}

/// The integer finish for a kernel whose sums fit 16 bits (`fits_i16`), if one matches.
pub fn find_fin16(job: &Job) -> Option<Fin16> {
    if !fits_i16(job) {
        return None;
    }
    let max = job.max as i64;
    let lo = -job.mi.iter().filter(|&&m| m < 0).map(|&m| -(m as i64)).sum::<i64>() * max;
    let hi = job.mi.iter().filter(|&&m| m > 0).map(|&m| m as i64).sum::<i64>() * max;
    let (rdiv, bias, maxf) = (job.rdiv, job.bias, job.max as f32);
    let c = bias.round();
    if !(-32768.0..=32767.0).contains(&c) {
        return None;
    }
    let c = c as i16;
    let mut cands = Vec::new();
    for k in 0..15 {
        if rdiv == 1.0 / (1u32 << k) as f32 {
            cands.push(Fin16::Shift { k, c });
        }
    }
    let a = (rdiv as f64 * 32768.0).round();
    if a.abs() <= 32767.0 && a != 0.0 {
        cands.push(Fin16::MulHrs { a: a as i16, c });
    }
    cands.into_iter().find(|&f| {
        (lo..=hi).all(|s| {
            let want = fin_int::<u16, i32>(s as i32, rdiv, bias, maxf, job.saturate).get();
            let got = if job.saturate {
                fin16_apply::<true>(f, s as i16, job.max as i16)
            } else {
                fin16_apply::<false>(f, s as i16, job.max as i16)
            };
            got as i32 == want
        })
    })
}

/// One output row of a kernel summed in single precision (`ExactF32`).
#[inline(always)]
fn exact_row<T: IntPx>(job: &Job, taps: &[ITap<T>], acc: &mut [ExactF32], out: &mut [T]) {
    // AVX-512 where the CPU has it, else the AVX2 twins (same sums in the same order).
    #[cfg(target_arch = "x86_64")]
    if T::BITS == 16 && super::plane::has_avx2() {
        let wide = super::plane::has_avx512();
        macro_rules! call {
            ($k:literal) => {{
                let n = out.len();
                let p = tap_ptrs::<T, $k>(taps, n);
                let p16: [*const u16; $k] = std::array::from_fn(|k| p[k].cast::<u16>());
                let m: [f32; $k] = std::array::from_fn(|k| taps[k].1 as f32);
                let (rdiv, bias, maxf, sat, o) = (job.rdiv, job.bias, job.max as f32, job.saturate, out.as_mut_ptr().cast::<u16>());
                let done = if taps.iter().all(|t| t.1.unsigned_abs() <= 32767) {
                    let mi: [i16; $k] = std::array::from_fn(|k| taps[k].1 as i16);
                    // SAFETY: the CPU has AVX-512 F/BW/VL where `wide`, else AVX2 and FMA
                    // (checked); every tap holds n samples and out n (tap_ptrs checked); T is u16;
                    // |m| <= 32767, and the sums are exact in f32 (exact_in_f32).
                    unsafe {
                        if wide {
                            x86::exact_u16_madd_avx512::<$k>(&p16, &mi, rdiv, bias, maxf, sat, o, n)
                        } else {
                            x86::exact_u16_madd_avx2::<$k>(&p16, &mi, rdiv, bias, maxf, sat, o, n)
                        }
                    }
                } else {
                    0
                };
                let done = if done == n {
                    done
                } else {
                    // SAFETY: as above.
                    unsafe {
                        if wide {
                            x86::exact_u16_avx512::<$k>(&p16, &m, rdiv, bias, maxf, sat, o, n)
                        } else {
                            x86::exact_u16_avx2::<$k>(&p16, &m, rdiv, bias, maxf, sat, o, n)
                        }
                    }
                };
                if done < n {
                    let rest: Vec<ITap<T>> = taps.iter().map(|&(t, m)| (&t[done..], m)).collect();
                    int_row::<T, ExactF32>(job, &rest, &mut acc[done..], &mut out[done..]);
                }
            }};
        }
        if with_k!(taps.len(), call, [1, 2, 3, 4, 5, 6, 7, 8, 9]) {
            return;
        }
    }
    int_row::<T, ExactF32>(job, taps, acc, out)
}

/// One output row of a kernel whose sums fit 16 bits.
#[inline(always)]
fn w16_row<T: IntPx>(job: &Job, taps: &[ITap<T>], acc: &mut [W16], out: &mut [T]) {
    macro_rules! call {
        ($k:literal) => {
            w16_k::<T, $k>(job, taps, out)
        };
    }
    if !with_k!(taps.len(), call, [1, 2, 3, 4, 5, 6, 7, 8, 9]) {
        int_row::<T, W16>(job, taps, acc, out)
    }
}

/// All K taps summed in 16 bits and finished in one pass, through `job.fin16` where there is one.
#[inline(always)]
fn w16_k<T: IntPx, const K: usize>(job: &Job, taps: &[ITap<T>], out: &mut [T]) {
    let Some(f) = job.fin16 else {
        return fused_k::<T, W16, K>(job, taps, out);
    };
    let n = out.len();
    let p = tap_ptrs::<T, K>(taps, n);
    let m: [i16; K] = std::array::from_fn(|k| taps[k].1 as i16);
    let max = job.max as i16;
    #[cfg(target_arch = "x86_64")]
    if T::BITS == 8 {
        // (the compiler widens the portable loop below to 32 bits: half the samples per vector)
        let p8: [*const u8; K] = std::array::from_fn(|k| p[k].cast::<u8>());
        let o8 = out.as_mut_ptr().cast::<u8>();
        let done = if super::plane::has_avx512() {
            // SAFETY: the CPU has AVX-512 F/BW/VL (checked); every tap holds n samples and out
            // n (tap_ptrs checked), T is u8 (8 bits).
            unsafe { x86::w16_u8_avx512::<K>(&p8, &m, f, job.saturate, o8, n) }
        } else if super::plane::has_avx2() {
            // SAFETY: as above, with AVX2.
            unsafe { x86::w16_u8_avx2::<K>(&p8, &m, f, job.saturate, o8, n) }
        } else {
            0
        };
        if done > 0 {
            let p: [*const T; K] = std::array::from_fn(|k| p[k].wrapping_add(done));
            return w16_tail::<T, K>(&p, &m, f, job.saturate, max, &mut out[done..]);
        }
    }
    w16_tail::<T, K>(&p, &m, f, job.saturate, max, out)
}

/// The portable loop of `w16_k` (also the tail after the vector loops).
#[inline(always)]
fn w16_tail<T: IntPx, const K: usize>(p: &[*const T; K], m: &[i16; K], f: Fin16, saturate: bool, max: i16, out: &mut [T]) {
    let n = out.len();
    macro_rules! go {
        ($sat:literal, $f:expr) => {{
            let f = $f;
            for x in 0..n {
                let mut s = 0i16;
                for k in 0..K {
                    // SAFETY: every tap slice holds at least n samples (tap_ptrs checked).
                    s = s.wrapping_add(m[k].wrapping_mul(unsafe { *p[k].add(x) }.get() as i16));
                }
                out[x] = T::put(fin16_apply::<$sat>(f, s, max) as i32);
            }
        }};
    }
    // one loop per variant, so the choice is not made per sample
    match (saturate, f) {
        (true, Fin16::Shift { k: 0, c }) => go!(true, Fin16::Shift { k: 0, c }),
        (true, Fin16::Shift { k, c }) => go!(true, Fin16::Shift { k: k.max(1), c }),
        (true, Fin16::MulHrs { a, c }) => go!(true, Fin16::MulHrs { a, c }),
        (false, Fin16::Shift { k: 0, c }) => go!(false, Fin16::Shift { k: 0, c }),
        (false, Fin16::Shift { k, c }) => go!(false, Fin16::Shift { k: k.max(1), c }),
        (false, Fin16::MulHrs { a, c }) => go!(false, Fin16::MulHrs { a, c }),
    }
}

/// The 16-bit kernels for 8-bit samples in AVX2 and AVX-512 (the same arithmetic as `w16_tail`).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Fin16;
    use std::arch::x86_64::*;

    /// The samples done: all of them from 16 on, else none; the caller finishes the rest.
    ///
    /// # Safety
    /// The CPU has AVX2; each `p[k]` points to `n` readable samples and `out` to `n` writable.
    #[target_feature(enable = "avx2")]
    pub unsafe fn w16_u8_avx2<const K: usize>(p: &[*const u8; K], m: &[i16; K], f: Fin16, saturate: bool, out: *mut u8, n: usize) -> usize {
        let mv: [__m256i; K] = std::array::from_fn(|k| _mm256_set1_epi16(m[k]));
        let zero = _mm256_setzero_si256();
        let one = _mm256_set1_epi16(1);
        let (k, half, a, c) = match f {
            Fin16::Shift { k, c } => (k, (1i16 << k.max(1) - 1) - 1, 0, c),
            Fin16::MulHrs { a, c } => (0, 0, a, c),
        };
        let (kc, halfv, av, cv) = (_mm_cvtsi32_si128(k as i32), _mm256_set1_epi16(half), _mm256_set1_epi16(a), _mm256_set1_epi16(c));
        let sum = |x: usize| {
            // three chains (wrapping sums in any order): shorter dependencies
            let mut s = [zero; 3];
            for t in 0..K {
                // SAFETY: x + 16 <= n samples of tap t are readable (the caller's contract).
                let v = _mm256_cvtepu8_epi16(unsafe { _mm_loadu_si128(p[t].add(x).cast()) });
                s[t % 3] = _mm256_add_epi16(s[t % 3], _mm256_mullo_epi16(v, mv[t]));
            }
            _mm256_add_epi16(_mm256_add_epi16(s[0], s[1]), s[2])
        };
        macro_rules! go {
            ($fin:expr) => {{
                let mut x = 0;
                while x + 16 <= n {
                    let t = $fin(sum(x));
                    let t = if saturate { t } else { _mm256_abs_epi16(t) };
                    // packing saturates to 0..=255, the clamp of 8-bit samples
                    let b = _mm256_permute4x64_epi64::<0b1000>(_mm256_packus_epi16(t, t));
                    // SAFETY: x + 16 <= n samples of out are writable.
                    unsafe { _mm_storeu_si128(out.add(x).cast(), _mm256_castsi256_si128(b)) };
                    x += 16;
                    if x < n && x + 16 > n {
                        // the last samples through one vector that overlaps the previous one
                        x = n - 16;
                    }
                }
                x
            }};
        }
        match f {
            Fin16::Shift { k: 0, .. } => go!(|s| _mm256_add_epi16(s, cv)),
            Fin16::Shift { .. } => go!(|s| {
                let odd = _mm256_and_si256(_mm256_sra_epi16(s, kc), one);
                _mm256_add_epi16(_mm256_sra_epi16(_mm256_add_epi16(_mm256_add_epi16(s, halfv), odd), kc), cv)
            }),
            Fin16::MulHrs { .. } => go!(|s| _mm256_add_epi16(_mm256_mulhrs_epi16(s, av), cv)),
        }
    }

    /// `ExactF32` kernels of 16-bit samples, 16 at a time: the samples done (all of them from 16
    /// on, else none).
    ///
    /// # Safety
    /// The CPU has AVX-512 F/BW/VL; each `p[k]` points to `n` readable samples and `out` to `n`
    /// writable.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn exact_u16_avx512<const K: usize>(p: &[*const u16; K], m: &[f32; K], rdiv: f32, bias: f32, maxf: f32, saturate: bool, out: *mut u16, n: usize) -> usize {
        let mv: [__m512; K] = std::array::from_fn(|k| _mm512_set1_ps(m[k]));
        let (rv, bv, maxv, zero) = (_mm512_set1_ps(rdiv), _mm512_set1_ps(bias), _mm512_set1_ps(maxf), _mm512_setzero_ps());
        let mut x = 0;
        while x + 16 <= n {
            // three chains (the sums are exact in any order): shorter dependencies
            let mut s = [zero; 3];
            for t in 0..K {
                // SAFETY: x + 16 <= n samples of tap t are readable (the caller's contract).
                let v = _mm512_cvtepi32_ps(_mm512_cvtepu16_epi32(unsafe { _mm256_loadu_si256(p[t].add(x).cast()) }));
                s[t % 3] = _mm512_fmadd_ps(mv[t], v, s[t % 3]);
            }
            let s = _mm512_add_ps(_mm512_add_ps(s[0], s[1]), s[2]);
            // as fin_int: one rounding of s * rdiv + bias, to nearest even; made positive unless
            // saturating; NaN and negatives to 0 (max takes its second operand for NaN), clamped
            // (rounding after the clamp is the same, the bounds being integers)
            let v = _mm512_fmadd_ps(s, rv, bv);
            let v = if saturate { v } else { _mm512_abs_ps(v) };
            let v = _mm512_min_ps(_mm512_max_ps(v, zero), maxv);
            let i = _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(v);
            // SAFETY: x + 16 <= n samples of out are writable.
            unsafe { _mm256_storeu_si256(out.add(x).cast(), _mm512_cvtepi32_epi16(i)) };
            x += 16;
            if x < n && x + 16 > n {
                x = n - 16;
            }
        }
        x
    }

    /// `exact_u16_avx512` for integer coefficients that fit i16, 32 samples at a time: the sums
    /// are exact integers either way, here taken two taps at a time by vpmaddwd (on samples
    /// moved to signed by -32768, added back as one constant), then finished the same way.
    /// Returns how many samples it did (n, or 0 when n < 32).
    ///
    /// # Safety
    /// As `exact_u16_avx512`; besides, |m| <= 32767 (so no vpmaddwd pair overflows; the 32-bit
    /// additions may wrap on the way, which leaves the final sum exact) and every sum of the
    /// kernel is below 2^24 (exact in f32).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn exact_u16_madd_avx512<const K: usize>(p: &[*const u16; K], m: &[i16; K], rdiv: f32, bias: f32, maxf: f32, saturate: bool, out: *mut u16, n: usize) -> usize {
        if n < 32 {
            return 0;
        }
        let pair = |j: usize| {
            let hi = if 2 * j + 1 < K { m[2 * j + 1] } else { 0 };
            _mm512_set1_epi32((((hi as u16 as u32) << 16) | m[2 * j] as u16 as u32) as i32)
        };
        let pairs: [__m512i; 5] = std::array::from_fn(|j| if 2 * j < K { pair(j) } else { _mm512_setzero_si512() });
        let off = _mm512_set1_epi32(32768 * m.iter().map(|&v| v as i32).sum::<i32>());
        let flip = _mm512_set1_epi16(i16::MIN);
        let (rv, bv, maxv, zero) = (_mm512_set1_ps(rdiv), _mm512_set1_ps(bias), _mm512_set1_ps(maxf), _mm512_setzero_ps());
        let fin = |s: __m512i| {
            let v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), rv, bv);
            let v = if saturate { v } else { _mm512_abs_ps(v) };
            let v = _mm512_min_ps(_mm512_max_ps(v, zero), maxv);
            _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(v)
        };
        let mut i = 0;
        loop {
            let x = i.min(n - 32);
            // SAFETY: x + 32 <= n samples of tap k are readable (the caller's contract).
            let ld = |k: usize| _mm512_xor_si512(unsafe { _mm512_loadu_si512(p[k].add(x).cast()) }, flip);
            let (mut lo, mut hi) = (off, off);
            for j in 0..(K + 1) / 2 {
                let a = ld(2 * j);
                let b = if 2 * j + 1 < K { ld(2 * j + 1) } else { _mm512_setzero_si512() };
                lo = _mm512_add_epi32(lo, _mm512_madd_epi16(_mm512_unpacklo_epi16(a, b), pairs[j]));
                hi = _mm512_add_epi32(hi, _mm512_madd_epi16(_mm512_unpackhi_epi16(a, b), pairs[j]));
            }
            // the unpacks and the pack both work within 128-bit lanes, so the order comes back
            let r = _mm512_packus_epi32(fin(lo), fin(hi));
            // SAFETY: x + 32 <= n samples of out are writable.
            unsafe { _mm512_storeu_si512(out.add(x).cast(), r) };
            if x == n - 32 {
                break;
            }
            i += 32;
        }
        n
    }

    /// `exact_u16_avx512` in AVX2 registers, 8 samples at a time: the samples done (all of them
    /// from 8 on, else none).
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; each `p[k]` points to `n` readable samples and `out` to `n`
    /// writable.
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn exact_u16_avx2<const K: usize>(p: &[*const u16; K], m: &[f32; K], rdiv: f32, bias: f32, maxf: f32, saturate: bool, out: *mut u16, n: usize) -> usize {
        let mv: [__m256; K] = std::array::from_fn(|k| _mm256_set1_ps(m[k]));
        let (rv, bv, maxv, zero) = (_mm256_set1_ps(rdiv), _mm256_set1_ps(bias), _mm256_set1_ps(maxf), _mm256_setzero_ps());
        let sign = _mm256_set1_ps(-0.0);
        let mut x = 0;
        while x + 8 <= n {
            // three chains (the sums are exact in any order): shorter dependencies
            let mut s = [zero; 3];
            for t in 0..K {
                // SAFETY: x + 8 <= n samples of tap t are readable (the caller's contract).
                let v = _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(unsafe { _mm_loadu_si128(p[t].add(x).cast()) }));
                s[t % 3] = _mm256_fmadd_ps(mv[t], v, s[t % 3]);
            }
            let s = _mm256_add_ps(_mm256_add_ps(s[0], s[1]), s[2]);
            // the finish of exact_u16_avx512 (the conversion rounds to nearest even, the default
            // rounding mode)
            let v = _mm256_fmadd_ps(s, rv, bv);
            let v = if saturate { v } else { _mm256_andnot_ps(sign, v) };
            let v = _mm256_min_ps(_mm256_max_ps(v, zero), maxv);
            let i = _mm256_cvtps_epi32(v);
            // 0..=65535 packs unchanged; the pack works within 128-bit lanes, so the two halves
            // are brought together after it
            let h = _mm256_permute4x64_epi64::<0b1000>(_mm256_packus_epi32(i, i));
            // SAFETY: x + 8 <= n samples of out are writable.
            unsafe { _mm_storeu_si128(out.add(x).cast(), _mm256_castsi256_si128(h)) };
            x += 8;
            if x < n && x + 8 > n {
                x = n - 8;
            }
        }
        x
    }

    /// `exact_u16_madd_avx512` in AVX2 registers, 16 samples at a time. Returns how many samples
    /// it did (n, or 0 when n < 16).
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; as `exact_u16_madd_avx512` otherwise.
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn exact_u16_madd_avx2<const K: usize>(p: &[*const u16; K], m: &[i16; K], rdiv: f32, bias: f32, maxf: f32, saturate: bool, out: *mut u16, n: usize) -> usize {
        if n < 16 {
            return 0;
        }
        let pair = |j: usize| {
            let hi = if 2 * j + 1 < K { m[2 * j + 1] } else { 0 };
            _mm256_set1_epi32((((hi as u16 as u32) << 16) | m[2 * j] as u16 as u32) as i32)
        };
        let pairs: [__m256i; 5] = std::array::from_fn(|j| if 2 * j < K { pair(j) } else { _mm256_setzero_si256() });
        let off = _mm256_set1_epi32(m.iter().map(|&v| v as i32).sum::<i32>().wrapping_mul(32768));
        let flip = _mm256_set1_epi16(i16::MIN);
        let (rv, bv, maxv, zero) = (_mm256_set1_ps(rdiv), _mm256_set1_ps(bias), _mm256_set1_ps(maxf), _mm256_setzero_ps());
        let sign = _mm256_set1_ps(-0.0);
        let fin = |s: __m256i| {
            let v = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), rv, bv);
            let v = if saturate { v } else { _mm256_andnot_ps(sign, v) };
            let v = _mm256_min_ps(_mm256_max_ps(v, zero), maxv);
            _mm256_cvtps_epi32(v)
        };
        let mut i = 0;
        loop {
            let x = i.min(n - 16);
            // SAFETY: x + 16 <= n samples of tap k are readable (the caller's contract).
            let ld = |k: usize| _mm256_xor_si256(unsafe { _mm256_loadu_si256(p[k].add(x).cast()) }, flip);
            let (mut lo, mut hi) = (off, off);
            for j in 0..(K + 1) / 2 {
                let a = ld(2 * j);
                let b = if 2 * j + 1 < K { ld(2 * j + 1) } else { _mm256_setzero_si256() };
                lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), pairs[j]));
                hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), pairs[j]));
            }
            // the unpacks and the pack both work within 128-bit lanes, so the order comes back
            let r = _mm256_packus_epi32(fin(lo), fin(hi));
            // SAFETY: x + 16 <= n samples of out are writable.
            unsafe { _mm256_storeu_si256(out.add(x).cast(), r) };
            if x == n - 16 {
                break;
            }
            i += 16;
        }
        n
    }

    /// As `w16_u8_avx2`, 32 samples at a time.
    ///
    /// # Safety
    /// The CPU has AVX-512 F/BW/VL; as `w16_u8_avx2` otherwise.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    pub unsafe fn w16_u8_avx512<const K: usize>(p: &[*const u8; K], m: &[i16; K], f: Fin16, saturate: bool, out: *mut u8, n: usize) -> usize {
        let mv: [__m512i; K] = std::array::from_fn(|k| _mm512_set1_epi16(m[k]));
        let zero = _mm512_setzero_si512();
        let one = _mm512_set1_epi16(1);
        let (k, half, a, c) = match f {
            Fin16::Shift { k, c } => (k, (1i16 << k.max(1) - 1) - 1, 0, c),
            Fin16::MulHrs { a, c } => (0, 0, a, c),
        };
        let (kc, halfv, av, cv) = (_mm_cvtsi32_si128(k as i32), _mm512_set1_epi16(half), _mm512_set1_epi16(a), _mm512_set1_epi16(c));
        let sum = |x: usize| {
            // three chains (wrapping sums in any order): shorter dependencies
            let mut s = [zero; 3];
            for t in 0..K {
                // SAFETY: x + 32 <= n samples of tap t are readable (the caller's contract).
                let v = _mm512_cvtepu8_epi16(unsafe { _mm256_loadu_si256(p[t].add(x).cast()) });
                s[t % 3] = _mm512_add_epi16(s[t % 3], _mm512_mullo_epi16(v, mv[t]));
            }
            _mm512_add_epi16(_mm512_add_epi16(s[0], s[1]), s[2])
        };
        macro_rules! go {
            ($fin:expr) => {{
                let mut x = 0;
                while x + 32 <= n {
                    let t = $fin(sum(x));
                    let t = if saturate { t } else { _mm512_abs_epi16(t) };
                    // negatives to 0, then the unsigned narrowing saturates at 255
                    let b = _mm512_cvtusepi16_epi8(_mm512_max_epi16(t, zero));
                    // SAFETY: x + 32 <= n samples of out are writable.
                    unsafe { _mm256_storeu_si256(out.add(x).cast(), b) };
                    x += 32;
                    if x < n && x + 32 > n {
                        // the last samples through one vector that overlaps the previous one
                        x = n - 32;
                    }
                }
                x
            }};
        }
        match f {
            Fin16::Shift { k: 0, .. } => go!(|s| _mm512_add_epi16(s, cv)),
            Fin16::Shift { .. } => go!(|s| {
                let odd = _mm512_and_si512(_mm512_sra_epi16(s, kc), one);
                _mm512_add_epi16(_mm512_sra_epi16(_mm512_add_epi16(_mm512_add_epi16(s, halfv), odd), kc), cv)
            }),
            Fin16::MulHrs { .. } => go!(|s| _mm512_add_epi16(_mm512_mulhrs_epi16(s, av), cv)),
        }
    }
}

/// Integer taps: a slice (already offset to the tap's position) and its coefficient.
type ITap<'a, T> = (&'a [T], i32);

/// The sample types of integer kernels, with their row kernels: each is compiled once per
/// instruction set (`multiversion!`) and called once per output row, so the plane loops that
/// call them from several places do not each carry a copy of every fused kernel.
pub trait ConvPx: IntPx {
    fn row_i32(job: &Job, taps: &[ITap<Self>], acc: &mut [i32], out: &mut [Self]);
    fn row_i64(job: &Job, taps: &[ITap<Self>], acc: &mut [i64], out: &mut [Self]);
    fn row_w16(job: &Job, taps: &[ITap<Self>], acc: &mut [W16], out: &mut [Self]);
    fn row_exact(job: &Job, taps: &[ITap<Self>], acc: &mut [ExactF32], out: &mut [Self]);
}

macro_rules! conv_px {
    ($t:ty, $i32:ident, $i64:ident, $w16:ident, $ex:ident) => {
        impl ConvPx for $t {
            #[inline(always)]
            fn row_i32(job: &Job, taps: &[ITap<$t>], acc: &mut [i32], out: &mut [$t]) {
                #[inline(always)]
                fn imp(job: &Job, taps: &[ITap<$t>], acc: &mut [i32], out: &mut [$t]) {
                    int_row::<$t, i32>(job, taps, acc, out)
                }
                multiversion!(fn $i32 => imp(job: &Job, taps: &[ITap<$t>], acc: &mut [i32], out: &mut [$t]));
                $i32(job, taps, acc, out)
            }
            #[inline(always)]
            fn row_i64(job: &Job, taps: &[ITap<$t>], acc: &mut [i64], out: &mut [$t]) {
                #[inline(always)]
                fn imp(job: &Job, taps: &[ITap<$t>], acc: &mut [i64], out: &mut [$t]) {
                    int_row::<$t, i64>(job, taps, acc, out)
                }
                multiversion!(fn $i64 => imp(job: &Job, taps: &[ITap<$t>], acc: &mut [i64], out: &mut [$t]));
                $i64(job, taps, acc, out)
            }
            #[inline(always)]
            fn row_w16(job: &Job, taps: &[ITap<$t>], acc: &mut [W16], out: &mut [$t]) {
                #[inline(always)]
                fn imp(job: &Job, taps: &[ITap<$t>], acc: &mut [W16], out: &mut [$t]) {
                    w16_row::<$t>(job, taps, acc, out)
                }
                multiversion!(fn $w16 => imp(job: &Job, taps: &[ITap<$t>], acc: &mut [W16], out: &mut [$t]));
                $w16(job, taps, acc, out)
            }
            #[inline(always)]
            fn row_exact(job: &Job, taps: &[ITap<$t>], acc: &mut [ExactF32], out: &mut [$t]) {
                #[inline(always)]
                fn imp(job: &Job, taps: &[ITap<$t>], acc: &mut [ExactF32], out: &mut [$t]) {
                    exact_row::<$t>(job, taps, acc, out)
                }
                multiversion!(fn $ex => imp(job: &Job, taps: &[ITap<$t>], acc: &mut [ExactF32], out: &mut [$t]));
                $ex(job, taps, acc, out)
            }
        }
    };
}
conv_px!(u8, row_i32_u8, row_i64_u8, row_w16_u8, row_exact_u8);
conv_px!(u16, row_i32_u16, row_i64_u16, row_w16_u16, row_exact_u16);

/// acc[x] (= 0 when `first`) += sum over the K taps of m * v[x].
#[inline(always)]
fn sum_k<T: IntPx, A: Acc, const K: usize>(acc: &mut [A], taps: &[ITap<T>], first: bool) {
    let n = acc.len();
    let p = tap_ptrs::<T, K>(taps, n);
    let m: [i32; K] = std::array::from_fn(|k| taps[k].1);
    if first {
        for x in 0..n {
            let mut v = A::default();
            for k in 0..K {
                // SAFETY: every tap slice holds at least n samples (tap_ptrs checked).
                v = v.mac(m[k], unsafe { *p[k].add(x) }.get());
            }
            acc[x] = v;
        }
    } else {
        for x in 0..n {
            let mut v = acc[x];
            for k in 0..K {
                // SAFETY: as above.
                v = v.mac(m[k], unsafe { *p[k].add(x) }.get());
            }
            acc[x] = v;
        }
    }
}

/// The start of each of K tap slices, each checked to hold at least n samples. (Plain pointers
/// keep the kernels' loops free of bounds checks and let them vectorise.)
#[inline(always)]
fn tap_ptrs<T, const K: usize>(taps: &[(&[T], impl Copy)], n: usize) -> [*const T; K] {
    std::array::from_fn(|k| {
        assert!(taps[k].0.len() >= n);
        taps[k].0.as_ptr()
    })
}

/// The rounding and clamping of one integer sum.
#[inline(always)]
fn fin_int<T: IntPx, A: Acc>(s: A, rdiv: f32, bias: f32, maxf: f32, saturate: bool) -> T {
    let v = s.to_f32().mul_add(rdiv, bias).round_ties_even();
    T::put(clamp_to_int(if saturate { v } else { v.abs() }, maxf))
}

/// All K taps summed and finished in one pass.
#[inline(always)]
fn fused_k<T: IntPx, A: Acc, const K: usize>(job: &Job, taps: &[ITap<T>], out: &mut [T]) {
    let n = out.len();
    let p = tap_ptrs::<T, K>(taps, n);
    let m: [i32; K] = std::array::from_fn(|k| taps[k].1);
    let (rdiv, bias, maxf) = (job.rdiv, job.bias, job.max as f32);
    macro_rules! go {
        ($saturate:literal) => {
            for x in 0..n {
                let mut v = A::default();
                for k in 0..K {
                    // SAFETY: every tap slice holds at least n samples (tap_ptrs checked).
                    v = v.mac(m[k], unsafe { *p[k].add(x) }.get());
                }
                out[x] = fin_int::<T, A>(v, rdiv, bias, maxf, $saturate);
            }
        };
    }
    if job.saturate {
        go!(true)
    } else {
        go!(false)
    }
}

/// One output row from its taps (zero coefficients already left out).
#[inline(always)]
fn int_row<T: IntPx, A: Acc>(job: &Job, taps: &[ITap<T>], acc: &mut [A], out: &mut [T]) {
    macro_rules! by_len {
        ($f:ident, $len:expr, $($args:expr),*) => {
            match $len {
                1 => $f::<T, A, 1>($($args),*),
                2 => $f::<T, A, 2>($($args),*),
                3 => $f::<T, A, 3>($($args),*),
                4 => $f::<T, A, 4>($($args),*),
                5 => $f::<T, A, 5>($($args),*),
                6 => $f::<T, A, 6>($($args),*),
                7 => $f::<T, A, 7>($($args),*),
                8 => $f::<T, A, 8>($($args),*),
                _ => $f::<T, A, 9>($($args),*),
            }
        };
    }
    if taps.is_empty() {
        // every coefficient is zero: the sum is zero
        acc.fill(A::default());
        let (rdiv, bias, maxf) = (job.rdiv, job.bias, job.max as f32);
        for (o, &s) in out.iter_mut().zip(acc.iter()) {
            *o = fin_int::<T, A>(s, rdiv, bias, maxf, job.saturate);
        }
        return;
    }
    if taps.len() <= 9 {
        by_len!(fused_k, taps.len(), job, taps, out);
        return;
    }
    for (i, chunk) in taps.chunks(9).enumerate() {
        by_len!(sum_k, chunk.len(), acc, chunk, i == 0);
    }
    let (rdiv, bias, maxf) = (job.rdiv, job.bias, job.max as f32);
    if job.saturate {
        for (o, &s) in out.iter_mut().zip(acc.iter()) {
            *o = fin_int::<T, A>(s, rdiv, bias, maxf, true);
        }
    } else {
        for (o, &s) in out.iter_mut().zip(acc.iter()) {
            *o = fin_int::<T, A>(s, rdiv, bias, maxf, false);
        }
    }
}

/// Output samples worked on at once, tap after tap: each tap is one plain loop over the chunk
/// (contiguous loads, one multiply-add per sample, nothing for the compiler to gather), and the
/// chunk's accumulators stay in L1. Each sample still sees its taps in the same order. (Blocks
/// with every tap unrolled per sample kept their accumulator arrays on the stack, or were
/// vectorised across taps with gathers: 3-10x slower.)
const CHUNK: usize = 256;

/// The chunks of a row of `n` samples: (start, length).
#[inline(always)]
fn chunks(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).step_by(CHUNK).map(move |b| (b, CHUNK.min(n - b)))
}

/// Tap k's samples for the chunk at `base`.
#[inline(always)]
fn tap_at<'a, const K: usize>(p: &[*const f32; K], k: usize, base: usize, len: usize) -> &'a [f32] {
    // SAFETY: every tap slice holds at least n >= base + len samples (tap_ptrs checked).
    unsafe { std::slice::from_raw_parts(p[k].add(base), len) }
}

/// v = the K taps in order, fused (v starting at 0, or as given when `init`). Taps go over the
/// chunk four at a time, so the accumulators are loaded and stored once per four taps.
#[inline(always)]
fn fma_taps<const K: usize>(p: &[*const f32; K], m: &[f32; K], v: &mut [f32], base: usize, init: bool) {
    taps_by4::<K, true>(p, m, v, base, init)
}

/// As `fma_taps` with a separate multiply and add per tap.
#[inline(always)]
fn add_taps<const K: usize>(p: &[*const f32; K], m: &[f32; K], v: &mut [f32], base: usize, init: bool) {
    taps_by4::<K, false>(p, m, v, base, init)
}

#[inline(always)]
fn tap_op<const FMA: bool>(m: f32, x: f32, a: f32) -> f32 {
    if FMA {
        m.mul_add(x, a)
    } else {
        a + m * x
    }
}

#[inline(always)]
fn taps_by4<const K: usize, const FMA: bool>(p: &[*const f32; K], m: &[f32; K], v: &mut [f32], base: usize, init: bool) {
    let len = v.len();
    if K <= 9 {
        // few enough taps for their pointers and coefficients to stay in registers: one pass,
        // every tap per sample, vectorised across samples
        for (x, a) in v.iter_mut().enumerate() {
            let mut acc = if init { *a } else { 0.0 };
            for k in 0..K {
                // SAFETY: every tap slice holds at least n >= base + len samples (tap_ptrs checked).
                acc = tap_op::<FMA>(m[k], unsafe { *p[k].add(base + x) }, acc);
            }
            *a = acc;
        }
        return;
    }
    let mut k = 0;
    // without `init` the first group starts from 0 (as a chain from 0 would: 0 + m * x, or fused)
    let mut zero = !init;
    while k < K {
        let z = std::mem::replace(&mut zero, false);
        let start = |a: f32| if z { 0.0 } else { a };
        let t = |i: usize| tap_at(p, k + i, base, len);
        match K - k {
            1 => {
                let (s0, m0) = (t(0), m[k]);
                for (a, &x0) in v.iter_mut().zip(s0) {
                    *a = tap_op::<FMA>(m0, x0, start(*a));
                }
                k += 1;
            }
            2 => {
                let (s0, s1, m0, m1) = (t(0), t(1), m[k], m[k + 1]);
                for ((a, &x0), &x1) in v.iter_mut().zip(s0).zip(s1) {
                    *a = tap_op::<FMA>(m1, x1, tap_op::<FMA>(m0, x0, start(*a)));
                }
                k += 2;
            }
            3 => {
                let (s0, s1, s2, m0, m1, m2) = (t(0), t(1), t(2), m[k], m[k + 1], m[k + 2]);
                for (((a, &x0), &x1), &x2) in v.iter_mut().zip(s0).zip(s1).zip(s2) {
                    *a = tap_op::<FMA>(m2, x2, tap_op::<FMA>(m1, x1, tap_op::<FMA>(m0, x0, start(*a))));
                }
                k += 3;
            }
            _ => {
                let (s0, s1, s2, s3) = (t(0), t(1), t(2), t(3));
                let (m0, m1, m2, m3) = (m[k], m[k + 1], m[k + 2], m[k + 3]);
                for ((((a, &x0), &x1), &x2), &x3) in v.iter_mut().zip(s0).zip(s1).zip(s2).zip(s3) {
                    *a = tap_op::<FMA>(m3, x3, tap_op::<FMA>(m2, x2, tap_op::<FMA>(m1, x1, tap_op::<FMA>(m0, x0, start(*a)))));
                }
                k += 4;
            }
        }
    }
}

/// Square kernels and horizontal ones (a square of height 1), read in place: the interior
/// columns straight from the source rows, the `r` columns at each edge (or the whole row when no
/// column has all its taps inside) one sample at a time through a table of mirrored columns.
#[inline(always)]
fn int_2d<T: ConvPx, A: Acc>(job: &Job, src: &impl RowSrc<T>, dst: &mut impl RowDst<T>, n: usize, rows: usize) {
    let (w, h) = (src.w(), src.h());
    let r = n / 2;
    let ry = rows / 2;
    let mut acc = vec![A::default(); w];
    let inner = w > 2 * r;
    let len = if inner { w - 2 * r } else { 0 };
    let edge_cols: Vec<usize> = if inner { (0..r).chain(w - r..w).collect() } else { (0..w).collect() };
    // (window row, source column per edge column, coefficient) for each nonzero tap
    let edge_taps: Vec<(usize, Vec<usize>, i32)> = (0..rows)
        .flat_map(|ky| (0..n).map(move |kx| (ky, kx)))
        .filter(|&(ky, kx)| job.mi[ky * n + kx] != 0)
        .map(|(ky, kx)| {
            let cols = edge_cols.iter().map(|&x| sym(x as isize + kx as isize - r as isize, w)).collect();
            (ky, cols, job.mi[ky * n + kx])
        })
        .collect();
    let nonzero: Vec<(usize, usize, i32)> =
        (0..rows).flat_map(|ky| (0..n).map(move |kx| (ky, kx))).map(|(ky, kx)| (ky, kx, job.mi[ky * n + kx])).filter(|t| t.2 != 0).collect();
    let (rdiv, bias, maxf) = (job.rdiv, job.bias, job.max as f32);
    let mut taps: Vec<ITap<T>> = Vec::with_capacity(n * rows);
    let mut win: Vec<&[T]> = Vec::with_capacity(rows);
    for y in 0..h {
        let out = dst.row(y);
        win.clear();
        win.extend((0..rows).map(|k| src.row(sym(y as isize + k as isize - ry as isize, h))));
        if inner {
            taps.clear();
            taps.extend(nonzero.iter().map(|&(ky, kx, m)| (&win[ky][kx..kx + len], m)));
            A::row(job, &taps, &mut acc[..len], &mut out[r..w - r]);
        }
        for (i, &x) in edge_cols.iter().enumerate() {
            let mut s = A::default();
            for (ky, cols, m) in &edge_taps {
                s += A::prod(*m, win[*ky][cols[i]].get());
            }
            out[x] = fin_int::<T, A>(s, rdiv, bias, maxf, job.saturate);
        }
        dst.done(y);
    }
}

#[inline(always)]
fn int_v<T: ConvPx, A: Acc>(job: &Job, src: &impl RowSrc<T>, dst: &mut impl RowDst<T>) {
    let (w, h) = (src.w(), src.h());
    let n = job.taps;
    let r = n / 2;
    let mut acc = vec![A::default(); w];
    let mut taps: Vec<ITap<T>> = Vec::with_capacity(n);
    for y in 0..h {
        let out = dst.row(y);
        taps.clear();
        for k in 0..n {
            let m = job.mi[k];
            if m != 0 {
                taps.push((src.row(sym(y as isize + k as isize - r as isize, h)), m));
            }
        }
        A::row(job, &taps, &mut acc, out);
        dst.done(y);
    }
}

#[inline(always)]
fn int_plane<T: ConvPx, A: Acc>(job: &Job, src: &PlaneIn<T>, dst: &mut PlaneOut<T>) {
    match job.mode {
        Mode::Square => int_2d::<T, A>(job, src, dst, job.taps, job.taps),
        Mode::H => int_2d::<T, A>(job, src, dst, job.taps, 1),
        Mode::V => int_v::<T, A>(job, src, dst),
        Mode::HV => {
            let mut mid = Packed::<T>::new(src.w, src.h);
            int_v::<T, A>(job, src, &mut mid);
            int_2d::<T, A>(job, &mid, dst, job.taps, 1);
        }
    }
}

// ---- float --------------------------------------------------------------------------------------

/// How one chain of products is added up.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    /// acc = m * v + acc, one rounding.
    Fma,
    /// acc = acc + round(m * v).
    Add,
}

#[inline(always)]
fn pass(acc: &mut [f32], src: &[f32], m: f32, op: Op) {
    let src = &src[..acc.len()];
    match op {
        Op::Fma => {
            for (a, &s) in acc.iter_mut().zip(src) {
                *a = m.mul_add(s, *a);
            }
        }
        Op::Add => {
            for (a, &s) in acc.iter_mut().zip(src) {
                *a += m * s;
            }
        }
    }
}

#[inline(always)]
fn finish_fma(job: &Job, acc: &[f32], out: &mut [f32]) {
    let (rdiv, bias) = (job.rdiv, job.bias);
    if job.saturate {
        for (o, &s) in out.iter_mut().zip(acc) {
            *o = s.mul_add(rdiv, bias);
        }
    } else {
        for (o, &s) in out.iter_mut().zip(acc) {
            *o = s.mul_add(rdiv, bias).abs();
        }
    }
}

/// A tap: window row (0..rows), column offset (0..n) in the padded row, coefficient.
type Tap = (usize, usize, f32);

fn taps_in(job: &Job, n: usize, rows: usize, order: impl Iterator<Item = (usize, usize)>) -> Vec<Tap> {
    let _ = rows;
    order.map(|(ky, kx)| (ky, kx, job.mf[ky * n + kx])).collect()
}

/// acc[x] (= 0 when `first`) followed by the K taps, in order.
#[inline(always)]
fn chain_k<const K: usize>(acc: &mut [f32], taps: &[(&[f32], f32)], op: Op, first: bool) {
    let n = acc.len();
    let p = tap_ptrs::<f32, K>(taps, n);
    let m: [f32; K] = std::array::from_fn(|k| taps[k].1);
    for (base, len) in chunks(n) {
        let v = &mut acc[base..base + len];
        match op {
            Op::Fma => fma_taps(&p, &m, v, base, !first),
            Op::Add => add_taps(&p, &m, v, base, !first),
        }
    }
}

/// One chain over `taps` for output columns `xs`, into acc (len = xs.len()).
#[inline(always)]
fn chain(acc: &mut [f32], rows: &[&[f32]], taps: &[Tap], xs: Range<usize>, op: Op) {
    let list: Vec<(&[f32], f32)> = taps.iter().map(|&(ky, kx, m)| (&rows[ky][xs.start + kx..], m)).collect();
    chain_list(acc, &list, op, true);
}

/// acc (= 0 when `first`) followed by the taps of `list` (slices already at the first column).
#[inline(always)]
fn chain_list_impl(acc: &mut [f32], list: &[(&[f32], f32)], op: Op, first: bool) {
    if list.is_empty() && first {
        acc.fill(0.0);
    }
    for (i, c) in list.chunks(8).enumerate() {
        let first = first && i == 0;
        match c.len() {
            1 => chain_k::<1>(acc, c, op, first),
            2 => chain_k::<2>(acc, c, op, first),
            3 => chain_k::<3>(acc, c, op, first),
            4 => chain_k::<4>(acc, c, op, first),
            5 => chain_k::<5>(acc, c, op, first),
            6 => chain_k::<6>(acc, c, op, first),
            7 => chain_k::<7>(acc, c, op, first),
            _ => chain_k::<8>(acc, c, op, first),
        }
    }
}
multiversion!(fn chain_list => chain_list_impl(acc: &mut [f32], list: &[(&[f32], f32)], op: Op, first: bool));

/// One chain of K taps finished in the same pass: out = chain * rdiv + bias in one rounding,
/// made positive unless saturating.
#[inline(always)]
fn chain_fin_k<const K: usize>(job: &Job, list: &[(&[f32], f32)], op: Op, out: &mut [f32]) {
    let n = out.len();
    let p = tap_ptrs::<f32, K>(list, n);
    let m: [f32; K] = std::array::from_fn(|k| list[k].1);
    let (rdiv, bias) = (job.rdiv, job.bias);
    let mut buf = [0f32; CHUNK];
    for (base, len) in chunks(n) {
        let v = &mut buf[..len];
        match op {
            Op::Fma => fma_taps(&p, &m, v, base, false),
            Op::Add => add_taps(&p, &m, v, base, false),
        }
        let o = &mut out[base..base + len];
        if job.saturate {
            for (o, &s) in o.iter_mut().zip(v.iter()) {
                *o = s.mul_add(rdiv, bias);
            }
        } else {
            for (o, &s) in o.iter_mut().zip(v.iter()) {
                *o = s.mul_add(rdiv, bias).abs();
            }
        }
    }
}

/// `chain_fin_k` for the sizes it is built for; false for others.
#[inline(always)]
fn chain_fin_impl(job: &Job, list: &[(&[f32], f32)], op: Op, out: &mut [f32]) -> bool {
    macro_rules! call {
        ($k:literal) => {
            chain_fin_k::<$k>(job, list, op, out)
        };
    }
    with_k!(list.len(), call, [3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25])
}
multiversion!(fn chain_fin => chain_fin_impl(job: &Job, list: &[(&[f32], f32)], op: Op, out: &mut [f32]) -> bool);

/// Even and odd taps in two fused chains: R81's SIMD one-dimensional kernels of up to ten taps
/// (the sum times rdiv plus bias in one rounding) or, with `SQ3`, its 3x3 kernel (coefficients
/// already divided; the bias added to the odd chain, then the even one).
#[inline(always)]
fn even_odd<const K: usize, const SQ3: bool>(job: &Job, list: &[(&[f32], f32)], m: [f32; K], out: &mut [f32]) {
    let n = out.len();
    let p = tap_ptrs::<f32, K>(list, n);
    let (rdiv, bias) = (job.rdiv, job.bias);
    // few enough taps for both chains to stay in registers: one pass, every tap per sample,
    // vectorised across samples, finished and stored straight away (two passes through chunk
    // buffers were a third of a horizontal kernel's time)
    const { assert!(K <= 10, "R81's two-chain kernels take at most ten taps") };
    macro_rules! one_pass {
        ($sat:literal) => {
            for (x, d) in out.iter_mut().enumerate() {
                let (mut ev, mut od) = (0f32, 0f32);
                for k in 0..K {
                    // SAFETY: every tap slice holds at least n samples (tap_ptrs checked).
                    let v = unsafe { *p[k].add(x) };
                    if k % 2 == 0 {
                        ev = m[k].mul_add(v, ev);
                    } else {
                        od = m[k].mul_add(v, od);
                    }
                }
                let v = if SQ3 { (od + bias) + ev } else { (ev + od).mul_add(rdiv, bias) };
                *d = if $sat { v } else { v.abs() };
            }
        };
    }
    if job.saturate {
        one_pass!(true)
    } else {
        one_pass!(false)
    }
}

#[inline(always)]
fn even_odd_fin_k<const K: usize>(job: &Job, list: &[(&[f32], f32)], out: &mut [f32]) {
    even_odd::<K, false>(job, list, std::array::from_fn(|k| list[k].1), out)
}

#[inline(always)]
fn square3_simd_impl(job: &Job, list: &[(&[f32], f32)], out: &mut [f32]) {
    even_odd::<9, true>(job, list, std::array::from_fn(|k| list[k].1 * job.rdiv), out)
}
multiversion!(fn square3_simd => square3_simd_impl(job: &Job, list: &[(&[f32], f32)], out: &mut [f32]));

/// The taps of the SIMD 3x3 kernel, in its order.
fn square3_taps(job: &Job) -> Vec<Tap> {
    taps_in(job, 3, 3, (0..9).map(|i| (i / 3, i % 3)))
}

/// The samples a row of the SIMD 3x3 kernel is stored as: single precision, or half (each result
/// converted as it is stored, rounded to nearest even, as `f32_to_halves`).
trait Out3: Copy {
    const HALF: bool;
    fn put(v: f32) -> Self;
}
impl Out3 for f32 {
    const HALF: bool = false;
    #[inline(always)]
    fn put(v: f32) -> f32 {
        v
    }
}
impl Out3 for u16 {
    const HALF: bool = true;
    #[inline(always)]
    fn put(v: f32) -> u16 {
        f32_to_half(v)
    }
}

/// One output row of the SIMD 3x3 kernel (`square3_taps`) from the three source rows around it,
/// each of out.len() >= 3 samples: the interior read in place, the two edge columns with their
/// mirrored neighbours.
#[inline(always)]
fn square3_row(job: &Job, taps: &[Tap], rows: [&[f32]; 3], out: &mut [f32]) {
    if square3_fast(job, taps, rows, out) {
        return;
    }
    let w = out.len();
    let list: Vec<(&[f32], f32)> = taps.iter().map(|&(ky, kx, m)| (&rows[ky][kx..], m)).collect();
    square3_simd(job, &list, &mut out[1..w - 1]);
    for x in [0, w - 1] {
        let e: [[f32; 3]; 3] = std::array::from_fn(|ky| std::array::from_fn(|kx| rows[ky][sym(x as isize + kx as isize - 1, w)]));
        let list: Vec<(&[f32], f32)> = taps.iter().map(|&(ky, kx, m)| (&e[ky][kx..], m)).collect();
        square3_simd(job, &list, &mut out[x..x + 1]);
    }
}

/// `square3_row` through the AVX-512 or AVX2 kernel, where the CPU and the width allow one;
/// false, with nothing written, where not.
#[inline(always)]
fn square3_fast<O: Out3>(job: &Job, taps: &[Tap], rows: [&[f32]; 3], out: &mut [O]) -> bool {
    let w = out.len();
    assert!(w >= 3 && rows.iter().all(|r| r.len() >= w));
    #[cfg(target_arch = "x86_64")]
    {
        // (every CPU with AVX2 has F16C; the kernels are built with it for half output)
        if !super::plane::has_f16c() {
            return false;
        }
        let avx512 = w >= 34 && super::plane::has_avx512();
        if avx512 || (w >= 18 && super::plane::has_avx2()) {
            let m: [f32; 9] = std::array::from_fn(|k| taps[k].2 * job.rdiv);
            let p: [*const f32; 9] = std::array::from_fn(|k| rows[taps[k].0][taps[k].1..].as_ptr());
            let inner = &mut out[1..w - 1];
            let none = (std::ptr::null(), std::ptr::null_mut());
            if avx512 {
                // SAFETY: the CPU has AVX-512 F/VL, AVX2, FMA and F16C (checked above); tap k
                // reads row[kx..kx + w - 2] with kx <= 2, inside the row of at least w samples.
                unsafe { square3_avx512::<O, false>(p, none, m, job.bias, job.saturate, inner) };
            } else {
                // SAFETY: the CPU has AVX2, FMA and F16C (checked above); the reads as above.
                unsafe { square3_avx2::<O, false>(p, none, m, job.bias, job.saturate, inner) };
            }
            square3_edges(job, taps, &m, rows, out);
            return true;
        }
    }
    false
}

/// The two edge columns of `square3_fast`, computed alone with their mirrored neighbours.
#[inline(always)]
fn square3_edges<O: Out3>(job: &Job, taps: &[Tap], m: &[f32; 9], rows: [&[f32]; 3], out: &mut [O]) {
    let w = out.len();
    for x in [0, w - 1] {
        let v = std::array::from_fn(|k| rows[taps[k].0][sym(x as isize + taps[k].1 as isize - 1, w)]);
        out[x] = O::put(square3_one(v, m, job.bias, job.saturate));
    }
}

/// `square3_avx512` in AVX2 registers, for a row of at least 16 samples: the same two chains,
/// the same operations per sample (and the same `FUSE`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn square3_avx2<O: Out3, const FUSE: bool>(p: [*const f32; 9], fuse: (*const u16, *mut f32), m: [f32; 9], bias: f32, saturate: bool, out: &mut [O]) {
    use std::arch::x86_64::*;
    let n = out.len();
    debug_assert!(n >= 16);
    let mv: [__m256; 9] = std::array::from_fn(|k| _mm256_set1_ps(m[k]));
    let (bv, zero, sign) = (_mm256_set1_ps(bias), _mm256_setzero_ps(), _mm256_set1_ps(-0.0));
    let o = out.as_mut_ptr();
    let mut i = 0;
    loop {
        // the last block overlaps the one before; each sample is computed alone, so that is safe
        let x = i.min(n - 16);
        for h in [x, x + 8] {
            // SAFETY: h + 8 <= n <= the length every tap pointer, the fused row and `out` are
            // valid for.
            let ld = |k: usize| {
                if FUSE && k >= 6 {
                    _mm256_cvtph_ps(_mm_loadu_si128(fuse.0.add(h + k - 6).cast()))
                } else {
                    _mm256_loadu_ps(p[k].add(h))
                }
            };
            let b0 = ld(6);
            if FUSE {
                _mm256_storeu_ps(fuse.1.add(h), b0);
            }
            let mut ev = _mm256_fmadd_ps(mv[0], ld(0), zero);
            let mut od = _mm256_fmadd_ps(mv[1], ld(1), zero);
            ev = _mm256_fmadd_ps(mv[2], ld(2), ev);
            od = _mm256_fmadd_ps(mv[3], ld(3), od);
            ev = _mm256_fmadd_ps(mv[4], ld(4), ev);
            od = _mm256_fmadd_ps(mv[5], ld(5), od);
            ev = _mm256_fmadd_ps(mv[6], b0, ev);
            od = _mm256_fmadd_ps(mv[7], ld(7), od);
            ev = _mm256_fmadd_ps(mv[8], ld(8), ev);
            let mut v = _mm256_add_ps(_mm256_add_ps(od, bv), ev);
            if !saturate {
                // the sign bit cleared, as abs
                v = _mm256_andnot_ps(sign, v);
            }
            if O::HALF {
                _mm_storeu_si128(o.add(h).cast(), _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v));
            } else {
                _mm256_storeu_ps(o.add(h).cast(), v);
            }
        }
        if x == n - 16 {
            break;
        }
        i += 16;
    }
}

/// `square3_simd`'s row of at least 32 samples. Each tap pointer must be readable for
/// `out.len()` samples. With `FUSE`, the bottom row's taps (6, 7, 8) are read as half samples
/// from `fuse.0` (readable for out.len() + 2) instead, and their conversion stored to `fuse.1`
/// (writable for out.len(), apart from what the other taps read): the row is converted while it
/// is first used.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma,f16c")]
unsafe fn square3_avx512<O: Out3, const FUSE: bool>(p: [*const f32; 9], fuse: (*const u16, *mut f32), m: [f32; 9], bias: f32, saturate: bool, out: &mut [O]) {
    use std::arch::x86_64::*;
    let n = out.len();
    debug_assert!(n >= 32);
    let mv: [__m512; 9] = std::array::from_fn(|k| _mm512_set1_ps(m[k]));
    let (bv, zero) = (_mm512_set1_ps(bias), _mm512_setzero_ps());
    let o = out.as_mut_ptr();
    let mut i = 0;
    loop {
        // the last block overlaps the one before; each sample is computed alone, so that is safe
        let x = i.min(n - 32);
        for h in [x, x + 16] {
            // SAFETY: h + 16 <= n <= the length every tap pointer, the fused row and `out` are
            // valid for.
            let ld = |k: usize| {
                if FUSE && k >= 6 {
                    _mm512_cvtph_ps(_mm256_loadu_si256(fuse.0.add(h + k - 6).cast()))
                } else {
                    _mm512_loadu_ps(p[k].add(h))
                }
            };
            let b0 = ld(6);
            if FUSE {
                _mm512_storeu_ps(fuse.1.add(h), b0);
            }
            let mut ev = _mm512_fmadd_ps(mv[0], ld(0), zero);
            let mut od = _mm512_fmadd_ps(mv[1], ld(1), zero);
            ev = _mm512_fmadd_ps(mv[2], ld(2), ev);
            od = _mm512_fmadd_ps(mv[3], ld(3), od);
            ev = _mm512_fmadd_ps(mv[4], ld(4), ev);
            od = _mm512_fmadd_ps(mv[5], ld(5), od);
            ev = _mm512_fmadd_ps(mv[6], b0, ev);
            od = _mm512_fmadd_ps(mv[7], ld(7), od);
            ev = _mm512_fmadd_ps(mv[8], ld(8), ev);
            let mut v = _mm512_add_ps(_mm512_add_ps(od, bv), ev);
            if !saturate {
                v = _mm512_abs_ps(v);
            }
            if O::HALF {
                _mm256_storeu_si256(o.add(h).cast(), _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v));
            } else {
                _mm512_storeu_ps(o.add(h).cast(), v);
            }
        }
        if x == n - 32 {
            break;
        }
        i += 32;
    }
}

/// One sample of `square3_simd` (the same chains in the same order), for the edge columns.
#[inline(always)]
fn square3_one(v: [f32; 9], m: &[f32; 9], bias: f32, saturate: bool) -> f32 {
    let (mut ev, mut od) = (0f32, 0f32);
    for k in 0..9 {
        if k % 2 == 0 {
            ev = m[k].mul_add(v[k], ev);
        } else {
            od = m[k].mul_add(v[k], od);
        }
    }
    let r = (od + bias) + ev;
    if saturate {
        r
    } else {
        r.abs()
    }
}

/// `even_odd_fin_k` for the one-dimensional kernel lengths R81's SIMD code fuses; false for others.
#[inline(always)]
fn even_odd_fin_impl(job: &Job, list: &[(&[f32], f32)], out: &mut [f32]) -> bool {
    macro_rules! call {
        ($k:literal) => {
            even_odd_fin_k::<$k>(job, list, out)
        };
    }
    with_k!(list.len(), call, [3, 5, 7, 9])
}
multiversion!(fn even_odd_fin => even_odd_fin_impl(job: &Job, list: &[(&[f32], f32)], out: &mut [f32]) -> bool);

/// Tap slices for output columns `xs` (window rows, taps in chain order).
#[inline(always)]
fn tap_list<'a>(rows: &[&'a [f32]], taps: &[Tap], xs: &Range<usize>) -> Vec<(&'a [f32], f32)> {
    taps.iter().map(|&(ky, kx, m)| (&rows[ky][xs.start + kx..], m)).collect()
}

/// The plain C order for a square kernel of n x n taps: (interior, edge columns).
fn c_square_order(n: usize) -> ((Vec<(usize, usize)>, Op), (Vec<(usize, usize)>, Op)) {
    let cols: Vec<(usize, usize)> = (0..n).flat_map(|x| (0..n).map(move |y| (y, x))).collect();
    match n {
        3 => {
            let mut o: Vec<(usize, usize)> = vec![(0, 1), (0, 0)];
            o.extend((2..9).map(|i| (i / 3, i % 3)));
            ((o.clone(), Op::Fma), (o, Op::Fma))
        }
        5 => ((cols.clone(), Op::Fma), (cols, Op::Fma)),
        7 => ((cols.clone(), Op::Add), (cols, Op::Add)),
        _ => ((cols.clone(), Op::Fma), (cols, Op::Add)),
    }
}


#[inline(always)]
fn float_square(job: &Job, src: &impl RowSrc<f32>, dst: &mut impl RowDst<f32>) {
    let (w, h) = (src.w(), src.h());
    let n = job.taps;
    let r = n / 2;
    let mut pad = PadRows::<f32>::new(w, h, r, n);
    let ((c_order, c_op), (e_order, e_op)) = c_square_order(n);
    let c_taps = taps_in(job, n, n, c_order.into_iter());
    let e_taps = taps_in(job, n, n, e_order.into_iter());
    // the plain code does the interior sixteen columns at a time and the rest like the edges
    let edge_l = r.min(w);
    let edge_r = edge_l + (w.saturating_sub(2 * r) / 16) * 16;
    let mut acc = vec![0f32; w];
    match (job.path, n) {
        (Path::C, _) => {
            for y in 0..h {
                let out = dst.row(y);
                pad.prepare(src, y);
                let rows = pad.window(y);
                if e_op == c_op && chain_fin(job, &tap_list(&rows, &c_taps, &(0..w)), c_op, out) {
                    dst.done(y);
                    continue;
                }
                chain(&mut acc, &rows, &c_taps, 0..w, c_op);
                if e_op != c_op {
                    chain(&mut acc[..edge_l], &rows, &e_taps, 0..edge_l, e_op);
                    chain(&mut acc[edge_r..], &rows, &e_taps, edge_r..w, e_op);
                }
                finish_fma(job, &acc, out);
                dst.done(y);
            }
        }
        (Path::Simd, 3) => {
            let taps = square3_taps(job);
            if w < 3 {
                for y in 0..h {
                    let out = dst.row(y);
                    pad.prepare(src, y);
                    let rows = pad.window(y);
                    square3_simd(job, &tap_list(&rows, &taps, &(0..w)), out);
                    dst.done(y);
                }
                return;
            }
            // Every sample is computed alone (same taps, same order), so the interior reads the
            // plane's rows in place and only the two edge columns get their mirrored neighbours
            // copied: no padded copy of the whole plane.
            for y in 0..h {
                let out = dst.row(y);
                let rows = [src.row(sym(y as isize - 1, h)), src.row(y), src.row(sym(y as isize + 1, h))];
                square3_row(job, &taps, rows, out);
                dst.done(y);
            }
        }
        (Path::Simd, _) if w >= 2 * r + 32 => {
            // R81's SIMD code covers the interior (row order, one fused chain) when it is at
            // least 32 wide. Every output sample is computed alone, so the interior reads the
            // plane's rows in place; only the r columns at each edge see mirrored samples, from
            // short copies (padding whole rows cost a sixth of the filter's time).
            let simd_taps = taps_in(job, n, n, (0..n).flat_map(|y| (0..n).map(move |x| (y, x))));
            for y in 0..h {
                let mut window: [&[f32]; 11] = [&[]; 11];
                for (k, row) in window[..n].iter_mut().enumerate() {
                    *row = src.row(sym(y as isize + k as isize - r as isize, h));
                }
                let rows = &window[..n];
                let out = dst.row(y);
                let inner = &mut out[r..w - r];
                if !square::float_fast(job, rows, inner) {
                    let xs = 0..w - 2 * r;
                    if !chain_fin(job, &tap_list(rows, &simd_taps, &xs), Op::Fma, inner) {
                        chain(&mut acc[xs.clone()], rows, &simd_taps, xs.clone(), Op::Fma);
                        finish_fma(job, &acc[xs], inner);
                    }
                }
                square_edges(job, &e_taps, e_op, rows, out);
                dst.done(y);
            }
        }
        (Path::Simd, _) => {
            // narrower: the plain code as built for the SIMD level, which fuses nothing for 9x9
            // and 11x11 (their edge order everywhere)
            for y in 0..h {
                let out = dst.row(y);
                pad.prepare(src, y);
                let rows = pad.window(y);
                if n >= 9 {
                    chain(&mut acc, &rows, &e_taps, 0..w, e_op);
                } else {
                    chain(&mut acc, &rows, &c_taps, 0..w, c_op);
                }
                finish_fma(job, &acc, out);
                dst.done(y);
            }
        }
    }
}

/// The r edge columns on each side of a square kernel's row, in the plain code's order (`taps`,
/// `op`), from short copies of the 3r columns they read (mirrored). The 2r chains go tap by tap
/// side by side: one after the other, each waited on its multiply-adds' latency (a sixth of the
/// 5x5 filter's time).
#[inline(always)]
fn square_edges(job: &Job, taps: &[Tap], op: Op, rows: &[&[f32]], out: &mut [f32]) {
    macro_rules! call {
        ($n:literal, $r:literal, $s:literal) => {
            square_edges_k::<$n, $r, $s>(job, taps, op, rows, out)
        };
    }
    match rows.len() {
        5 => call!(5, 2, 6),
        7 => call!(7, 3, 9),
        9 => call!(9, 4, 12),
        11 => call!(11, 5, 15),
        n => unreachable!("square kernels are 5x5 to 11x11 here, not {n}x{n}"),
    }
}

/// `square_edges` for N x N taps, R = N / 2, S = 3R.
#[inline(always)]
fn square_edges_k<const N: usize, const R: usize, const S: usize>(job: &Job, taps: &[Tap], op: Op, rows: &[&[f32]], out: &mut [f32]) {
    let w = out.len();
    // short[ky][side][c]: left, source column c - R; right, source column w - 2R + c
    let mut short = [[[0f32; S]; 2]; N];
    for (s, row) in short.iter_mut().zip(rows) {
        for c in 0..S {
            s[0][c] = row[sym(c as isize - R as isize, w)];
            s[1][c] = row[sym((w + c) as isize - 2 * R as isize, w)];
        }
    }
    let mut acc = [[0f32; R]; 2];
    for &(ky, kx, m) in taps {
        for (a, s) in acc.iter_mut().zip(&short[ky]) {
            let s: &[f32; R] = s[kx..kx + R].try_into().expect("kx < N = S - R + 1");
            for (a, &v) in a.iter_mut().zip(s) {
                *a = match op {
                    Op::Fma => m.mul_add(v, *a),
                    Op::Add => *a + m * v,
                };
            }
        }
    }
    for (a, base) in acc.iter().zip([0, w - R]) {
        for (o, &a) in out[base..base + R].iter_mut().zip(a) {
            let v = a.mul_add(job.rdiv, job.bias);
            *o = if job.saturate { v } else { v.abs() };
        }
    }
}

/// How the plain C build adds up each tap of a horizontal kernel in the edge columns (the
/// longer kernels' patterns are how R81's compiler laid out that loop for single precision).
fn c_h_edge_ops(n: usize, half: bool) -> Vec<Op> {
    if half {
        // R81's half-float build of this code fuses every tap
        return vec![Op::Fma; n];
    }
    (0..n)
        .map(|k| match n {
            19 if k > 8 => Op::Add,
            21 | 25 if k < n - 1 => Op::Add,
            23 if k != 10 => Op::Add,
            _ => Op::Fma,
        })
        .collect()
}

/// Horizontal (`vertical == false`) or vertical one-dimensional kernels.
#[inline(always)]
fn float_1d(job: &Job, src: &impl RowSrc<f32>, dst: &mut impl RowDst<f32>, vertical: bool) {
    let (w, h) = (src.w(), src.h());
    let n = job.taps;
    let r = n / 2;
    let mut acc = vec![0f32; w];
    let mut acc2 = vec![0f32; w];
    // as (row, column) taps over a window of n rows x 1 column or 1 row x n columns
    let tap = |k: usize| -> Tap {
        if vertical {
            (k, 0, job.mf[k])
        } else {
            (0, k, job.mf[k])
        }
    };
    let all: Vec<Tap> = (0..n).map(tap).collect();
    if !vertical && job.path == Path::Simd && matches!(n, 3 | 5 | 7 | 9) {
        return float_h_simd(job, src, dst);
    }
    let mut pad = if vertical { None } else { Some(PadRows::<f32>::new(w, h, r, 1)) };
    for y in 0..h {
        let out = dst.row(y);
        let rows: Vec<&[f32]> = match &mut pad {
            Some(p) => {
                p.prepare(src, y);
                p.window(y)
            }
            None => (0..n).map(|k| src.row(sym(y as isize + k as isize - r as isize, h))).collect(),
        };
        match job.path {
            Path::C => {
                if vertical {
                    if chain_fin(job, &tap_list(&rows, &all, &(0..w)), Op::Add, out) {
                        dst.done(y);
                        continue;
                    }
                    chain(&mut acc, &rows, &all, 0..w, Op::Add);
                } else {
                    // the interior adds rounded products; the edge columns fuse or add each tap as
                    // R81's build does for each kernel length
                    let e = r.min(w);
                    let s = w.saturating_sub(r).max(e);
                    if chain_fin(job, &tap_list(&rows, &all, &(e..s)), Op::Add, &mut out[e..s]) {
                        let ops = c_h_edge_ops(n, job.half);
                        for cols in [0..e, s..w] {
                            let a = &mut acc[cols.clone()];
                            a.fill(0.0);
                            for (k, &(_, kx, m)) in all.iter().enumerate() {
                                pass(a, &rows[0][cols.start + kx..], m, ops[k]);
                            }
                            finish_fma(job, &acc[cols.clone()], &mut out[cols]);
                        }
                        dst.done(y);
                        continue;
                    }
                    chain(&mut acc, &rows, &all, 0..w, Op::Add);
                    let ops = c_h_edge_ops(n, job.half);
                    for cols in [0..e, s..w] {
                        let a = &mut acc[cols.clone()];
                        a.fill(0.0);
                        for (k, &(_, kx, m)) in all.iter().enumerate() {
                            pass(a, &rows[0][cols.start + kx..], m, ops[k]);
                        }
                    }
                }
            }
            Path::Simd => {
                if n <= 10 && even_odd_fin(job, &tap_list(&rows, &all, &(0..w)), out) {
                    dst.done(y);
                    continue;
                }
                // blocks of ten taps, alternating between two chains; the first chain of a block
                // continues from the sum so far, the second starts afresh
                for block in (0..n).step_by(10) {
                    let end = (block + 10).min(n);
                    let tap = |k: usize| -> (&[f32], f32) {
                        let (_, kx, m) = all[k];
                        let ky = if vertical { k } else { 0 };
                        (&rows[ky][kx..], m)
                    };
                    let even: Vec<(&[f32], f32)> = (block..end).step_by(2).map(tap).collect();
                    let odd: Vec<(&[f32], f32)> = (block + 1..end).step_by(2).map(tap).collect();
                    chain_list(&mut acc, &even, Op::Fma, block == 0);
                    chain_list(&mut acc2, &odd, Op::Fma, true);
                    for (a, &b) in acc.iter_mut().zip(&acc2) {
                        *a += b;
                    }
                }
            }
        }
        finish_fma(job, &acc, out);
        dst.done(y);
    }
}

/// R81's SIMD horizontal kernels of 3 to 9 taps. Every sample is computed alone (the same taps
/// in the same order), so the interior reads the rows in place and only the `r` columns at each
/// edge get their mirrored neighbours copied (a padded copy of every row was a fifth of the
/// filter's time).
#[inline(always)]
fn float_h_simd(job: &Job, src: &impl RowSrc<f32>, dst: &mut impl RowDst<f32>) {
    let (w, h) = (src.w(), src.h());
    let (n, r) = (job.taps, job.taps / 2);
    let (e, s) = (r.min(w), w.saturating_sub(r).max(r.min(w)));
    let mut tmp = vec![0f32; 3 * r];
    for y in 0..h {
        let row = src.row(y);
        let out = dst.row(y);
        if s > e {
            // output x = e + i reads row[x - r + k] = row[i + k] (e == r here)
            let list: Vec<(&[f32], f32)> = (0..n).map(|k| (&row[k..], job.mf[k])).collect();
            even_odd_fin(job, &list, &mut out[e..s]);
        }
        for cols in [0..e, s..w] {
            if cols.is_empty() {
                continue;
            }
            let t = &mut tmp[..cols.len() + 2 * r];
            for (j, v) in t.iter_mut().enumerate() {
                *v = row[sym((cols.start + j) as isize - r as isize, w)];
            }
            let list: Vec<(&[f32], f32)> = (0..n).map(|k| (&t[k..], job.mf[k])).collect();
            even_odd_fin(job, &list, &mut out[cols]);
        }
        dst.done(y);
    }
}

#[inline(always)]
fn float_any(job: &Job, src: &impl RowSrc<f32>, dst: &mut impl RowDst<f32>, half: bool) {
    match job.mode {
        Mode::Square => float_square(job, src, dst),
        Mode::H => float_1d(job, src, dst, false),
        Mode::V => float_1d(job, src, dst, true),
        Mode::HV => {
            let mut mid = Packed::<f32>::new(src.w(), src.h());
            float_1d(job, src, &mut mid, true);
            if half {
                // half samples are stored as half between the passes
                for v in mid.buf.iter_mut() {
                    *v = half_to_f32(f32_to_half(*v));
                }
            }
            float_1d(job, &mid, dst, false);
        }
    }
}

#[inline(always)]
fn f32_plane(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>) {
    float_any(job, src, dst, false);
}

#[inline(always)]
fn half_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>) {
    if job.mode == Mode::Square && job.taps == 3 && matches!(job.path, Path::Simd) && src.w >= 3 {
        return half_square3(job, src, dst);
    }
    let mut f = Packed::<f32>::new(src.w, src.h);
    for y in 0..src.h {
        halves_to_f32(src.row(y), f.row_mut(y));
    }
    // R81's SIMD build takes half samples in its 3x3 kernel only; everything else is plain C
    let path = if job.mode == Mode::Square && job.taps == 3 { job.path } else { Path::C };
    let job = Job { path, mi: Vec::new(), mf: job.mf.clone(), half: true, ..*job };
    let mut out = HalfOut { out: dst, tmp: vec![0f32; src.w] };
    float_any(&job, &f, &mut out, true);
}

/// The SIMD 3x3 kernel on half samples: each source row converted to single precision once, into
/// a ring of three rows (row y in slot y % 3, so rows y - 1, y and y + 1 never share a slot), and
/// each output row converted back as it is stored; the whole plane is never held as floats. Where
/// the AVX kernels run, the row below is converted by the kernel itself as it first reads it (a
/// separate conversion pass waited on memory for a third of the time).
#[inline(always)]
fn half_square3(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>) {
    let (w, h) = (src.w, src.h);
    let job = Job { mi: Vec::new(), mf: job.mf.clone(), half: true, ..*job };
    let taps = square3_taps(&job);
    let mut ring = vec![0f32; 3 * w];
    let mut tag = [usize::MAX; 3];
    let mut tmp = vec![0f32; w];
    #[cfg(target_arch = "x86_64")]
    let (avx512, avx2) = {
        let f16c = super::plane::has_f16c();
        let avx512 = f16c && w >= 34 && super::plane::has_avx512();
        (avx512, f16c && !avx512 && w >= 18 && super::plane::has_avx2())
    };
    for y in 0..h {
        let ys = [sym(y as isize - 1, h), y, sym(y as isize + 1, h)];
        #[cfg(target_arch = "x86_64")]
        if (avx512 || avx2) && y >= 1 && y + 1 < h && tag[(y + 1) % 3] != y + 1 {
            let m: [f32; 9] = std::array::from_fn(|k| taps[k].2 * job.rdiv);
            // rows y - 1 and y are in the ring (y >= 1: row y + 1 was converted for row y - 1
            // or at the start), row y + 1 goes to the third slot
            debug_assert!(tag[(y - 1) % 3] == y - 1 && tag[y % 3] == y);
            let below = src.row(y + 1);
            // every pointer from one, so that the kernel may write one slot while reading two
            let base = ring.as_mut_ptr();
            // the upper taps in their rows' slots (the lower ones are read from `below`)
            let p: [*const f32; 9] = std::array::from_fn(|k| {
                let (ky, kx) = (taps[k].0, taps[k].1);
                if ky == 2 {
                    std::ptr::null()
                } else {
                    base.wrapping_add((ys[ky] % 3) * w + kx).cast_const()
                }
            });
            // the slot of row y + 1, neither of the two the upper taps read
            let fuse = (below.as_ptr(), base.wrapping_add(((y + 1) % 3) * w));
            let out = dst.row_mut(y);
            let inner = &mut out[1..w - 1];
            if avx512 {
                // SAFETY: the CPU has AVX-512 F/VL, AVX2, FMA and F16C (checked above); every
                // tap reads w - 2 samples from column kx <= 2 of a row of w (a slot of the ring
                // of 3 * w, or for the row below `below`), and the row below's first w - 2
                // columns are written to its own slot.
                unsafe { square3_avx512::<u16, true>(p, fuse, m, job.bias, job.saturate, inner) };
            } else {
                // SAFETY: as above, with AVX2, FMA and F16C.
                unsafe { square3_avx2::<u16, true>(p, fuse, m, job.bias, job.saturate, inner) };
            }
            // the last two columns of the row below, converted the same way (w >= 18)
            halves_to_f32(&below[w - 8..], &mut ring[((y + 1) % 3) * w + w - 8..][..8]);
            tag[(y + 1) % 3] = y + 1;
            let rows = ys.map(|r| &ring[(r % 3) * w..][..w]);
            square3_edges(&job, &taps, &m, rows, out);
            continue;
        }
        for r in ys {
            if tag[r % 3] != r {
                halves_to_f32(src.row(r), &mut ring[(r % 3) * w..][..w]);
                tag[r % 3] = r;
            }
        }
        let rows = ys.map(|r| &ring[(r % 3) * w..][..w]);
        let out = dst.row_mut(y);
        if !square3_fast(&job, &taps, rows, out) {
            square3_row(&job, &taps, rows, &mut tmp);
            f32_to_halves(&tmp, out);
        }
    }
}

#[inline(always)]
fn u8_plane(job: &Job, wide: bool, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>) {
    if square::int_u8(job, src, dst) {
    } else if fits_i16(job) {
        int_plane::<u8, W16>(job, src, dst)
    } else if exact_in_f32(job) {
        int_plane::<u8, ExactF32>(job, src, dst)
    } else if wide {
        int_plane::<u8, i64>(job, src, dst)
    } else {
        int_plane::<u8, i32>(job, src, dst)
    }
}
#[inline(always)]
fn u16_plane(job: &Job, wide: bool, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>) {
    if fits_i16(job) {
        int_plane::<u16, W16>(job, src, dst)
    } else if square::int_u16(job, src, dst) {
    } else if exact_in_f32(job) {
        int_plane::<u16, ExactF32>(job, src, dst)
    } else if wide {
        int_plane::<u16, i64>(job, src, dst)
    } else {
        int_plane::<u16, i32>(job, src, dst)
    }
}

multiversion!(fn plane_u8 => u8_plane(job: &Job, wide: bool, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>));
multiversion!(fn plane_u16 => u16_plane(job: &Job, wide: bool, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>));
multiversion!(fn plane_f32 => f32_plane(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>));
multiversion!(fn plane_f16 => half_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>));

/// Whether every partial sum of the kernel stays below 2^24 in magnitude.
fn exact_in_f32(job: &Job) -> bool {
    let per_pass: i64 = match job.mode {
        Mode::Square | Mode::H | Mode::V | Mode::HV => job.mi.iter().map(|&m| (m as i64).abs()).sum(),
    };
    per_pass * (job.max as i64) < (1 << 24)
}

pub fn run(job: &Job, kind: Kind, src: &Frame, dst: &mut FrameMut, p: usize, stream: bool) {
    // 32-bit sums unless the coefficients could overflow them
    let bound: i64 = job.mi.iter().map(|&m| (m as i64).abs()).sum::<i64>() * job.max as i64;
    let wide = bound > i32::MAX as i64;
    match kind {
        Kind::U8 => plane_u8(job, wide, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::U16 => plane_u16(job, wide, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::F32 => plane_f32(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::F16 => plane_f16(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::U32 => unreachable!("rejected when the filter is made"),
    }
}
