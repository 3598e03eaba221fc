//! Sobel and Prewitt: the gradient magnitude over a 3x3 neighbourhood (edge samples repeated),
//! times `scale`.
use super::morph::row9;
use super::plane::{clamp_idx, clamp_to_int, f32_to_halves, multiversion, HalfRows, IntPx, PlaneIn, PlaneOut};
use super::Path;
use vsvk_plugin_api::frame::{Frame, FrameMut};
use crate::util::Kind;

/// Calls a row kernel instantiated for the job's kind (unit scale or not, Sobel or Prewitt).
macro_rules! by_kind {
    ($f:ident, $job:expr, $a:expr, $b:expr, $c:expr, $out:expr) => {
        match ($job.scale == 1.0, $job.sobel) {
            (true, true) => $f::<true, true>($job, $a, $b, $c, $out),
            (true, false) => $f::<true, false>($job, $a, $b, $c, $out),
            (false, true) => $f::<false, true>($job, $a, $b, $c, $out),
            (false, false) => $f::<false, false>($job, $a, $b, $c, $out),
        }
    };
}

#[derive(Clone, Copy)]
pub struct Job {
    pub sobel: bool,
    pub scale: f32,
    pub max: i32,
    pub path: Path,
}

const SEL: [(usize, isize); 9] = [(0, -1), (0, 0), (0, 1), (1, -1), (1, 0), (1, 1), (2, -1), (2, 0), (2, 1)];

/// The two gradients, exact (in 16 bits for 8-bit samples, which vectorises twice as wide).
#[inline(always)]
fn int_grad<T: IntPx>(v: [T; 9], k: i32) -> (f32, f32) {
    if T::BITS == 8 {
        let [tl, t, tr, l, _, r, bl, b, br] = v.map(|s| s.get() as i16);
        let k = k as i16;
        let gx = (tr + k * r + br) - (tl + k * l + bl);
        let gy = (bl + k * b + br) - (tl + k * t + tr);
        (gx as f32, gy as f32)
    } else {
        let [tl, t, tr, l, _, r, bl, b, br] = v.map(|s| s.get());
        let gx = (tr + k * r + br) - (tl + k * l + bl);
        let gy = (bl + k * b + br) - (tl + k * t + tr);
        (gx as f32, gy as f32)
    }
}

#[inline(always)]
fn int_plane<T: IntPx>(job: &Job, src: &PlaneIn<T>, dst: &mut PlaneOut<T>, bits: u32) {
    let h = src.h;
    let k = if job.sobel { 2 } else { 1 };
    let (scale, maxf) = (job.scale, job.max as f32);
    // Below 10 bits the sums of squares are exact in single precision, so both orders agree.
    let fused = job.path == Path::C && bits > 9;
    for y in 0..h {
        let a = src.row(clamp_idx(y as isize - 1, h));
        let b = src.row(y);
        let c = src.row(clamp_idx(y as isize + 1, h));
        let out = dst.row_mut(y);
        let fin = move |s: f32| -> T { T::put(clamp_to_int((s.sqrt() * scale).round_ties_even(), maxf)) };
        if fused {
            row9(a, b, c, &SEL, out, move |v: [T; 9]| {
                let (x, y) = int_grad(v, k);
                fin(y.mul_add(y, x * x))
            });
        } else {
            row9(a, b, c, &SEL, out, move |v: [T; 9]| {
                let (x, y) = int_grad(v, k);
                fin(x * x + y * y)
            });
        }
    }
}

#[inline(always)]
fn float_row(job: &Job, a: &[f32], b: &[f32], c: &[f32], out: &mut [f32]) {
    let k = if job.sobel { 2.0f32 } else { 1.0 };
    let scale = job.scale;
    match job.path {
        Path::C => row9(a, b, c, &SEL, out, move |v: [f32; 9]| {
            let [tl, t, tr, l, _, r, bl, b, br] = v;
            let gx = tr + k * r + br - tl - k * l - bl;
            let gy = bl + k * b + br - tl - k * t - tr;
            gy.mul_add(gy, gx * gx).sqrt() * scale
        }),
        Path::Simd => row9(a, b, c, &SEL, out, move |v: [f32; 9]| {
            let [tl, t, tr, l, _, r, bl, b, br] = v;
            let d = br - tl;
            let gx = d + tr + k * r - k * l - bl;
            let gy = d + bl + k * b - k * t - tr;
            (gx * gx + gy * gy).sqrt() * scale
        }),
    }
}

#[inline(always)]
fn f32_plane(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>) {
    let h = src.h;
    for y in 0..h {
        let a = src.row(clamp_idx(y as isize - 1, h));
        let b = src.row(y);
        let c = src.row(clamp_idx(y as isize + 1, h));
        float_row(job, a, b, c, dst.row_mut(y));
    }
}

#[inline(always)]
fn half_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>) {
    let job = Job { path: job.path, ..*job };
    let (w, h) = (src.w, src.h);
    let mut rows = HalfRows::new(w);
    let mut out = vec![0f32; w];
    for y in 0..h {
        let [a, b, c] = rows.window(src, y);
        float_row(&job, a, b, c, &mut out);
        f32_to_halves(&out, dst.row_mut(y));
    }
}

#[inline(always)]
fn u8_plane(job: &Job, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>) {
    #[cfg(target_arch = "x86_64")]
    if src.w >= 18 && super::plane::has_avx2() {
        let (w, h) = (src.w, src.h);
        let avx512 = super::plane::has_avx512();
        for y in 0..h {
            let a = src.row(clamp_idx(y as isize - 1, h));
            let b = src.row(y);
            let c = src.row(clamp_idx(y as isize + 1, h));
            let out = dst.row_mut(y);
            // SAFETY: the CPU has AVX2 and FMA (checked above), and AVX-512 F/BW where that row
            // function is taken; the rows are w >= 18 (w >= 34 for AVX-512) samples long.
            unsafe {
                if w >= 34 && avx512 {
                    by_kind!(u8_row_avx512, job, a, b, c, out);
                    continue;
                }
                by_kind!(u8_row_avx2, job, a, b, c, out)
            }
        }
        return;
    }
    int_plane(job, src, dst, 8)
}

/// The first and last samples of a row whose interior a vector kernel did, as the scalar path
/// (unfused squares, as R81's SIMD path).
#[inline(always)]
fn edge_columns<T: IntPx>(sobel: bool, scale: f32, maxf: f32, a: &[T], b: &[T], c: &[T], out: &mut [T]) {
    let (w, k) = (b.len(), if sobel { 2 } else { 1 });
    for x in [0, w - 1] {
        let at = |r: &[T], dx: isize| r[clamp_idx(x as isize + dx, w)];
        let v = [at(a, -1), at(a, 0), at(a, 1), at(b, -1), at(b, 0), at(b, 1), at(c, -1), at(c, 0), at(c, 1)];
        let (gx, gy) = int_grad(v, k);
        out[x] = T::put(clamp_to_int(((gx * gx + gy * gy).sqrt() * scale).round_ties_even(), maxf));
    }
}

/// One row of 8-bit samples, 16 at a time: the squares summed exactly in 32-bit integers
/// (vpmaddwd on interleaved gradients), the square root in single precision as the scalar path
/// takes it, and the conversion rounding to nearest even itself (the default MXCSR mode), which
/// equals rounding first; clamping to 255 before it and the packs' saturation after it give the
/// scalar path's clamp.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn u8_row_avx2<const UNIT: bool, const SOBEL: bool>(job: &Job, a: &[u8], b: &[u8], c: &[u8], out: &mut [u8]) {
    use std::arch::x86_64::*;
    let w = b.len();
    debug_assert!(w >= 18 && a.len() == w && c.len() == w && out.len() >= w);
    let n = w - 2;
    let (scale, maxf) = (job.scale, job.max as f32);
    let vscale = _mm256_set1_ps(scale);
    let vmax = _mm256_set1_ps(maxf);
    // SAFETY (whole loop): x + 18 <= w, so every 16-byte load at x, x + 1, x + 2 and the store at
    // x + 1 stay inside rows of w samples.
    let ld = |r: &[u8], x: usize| _mm256_cvtepu8_epi16(_mm_loadu_si128(r.as_ptr().add(x).cast()));
    let fin = |s: __m256i| -> __m256i {
        let mut f = _mm256_sqrt_ps(_mm256_cvtepi32_ps(s));
        if !UNIT {
            f = _mm256_mul_ps(f, vscale);
        }
        // NaN stays NaN here (second operand), converts to i32::MIN and packs to 0, as the
        // scalar clamp turns NaN into 0.
        _mm256_cvtps_epi32(_mm256_min_ps(vmax, f))
    };
    let mut i = 0;
    loop {
        let x = i.min(n - 16);
        let (tl, t, tr) = (ld(a, x), ld(a, x + 1), ld(a, x + 2));
        let (l, r) = (ld(b, x), ld(b, x + 2));
        let (bl, bm, br) = (ld(c, x), ld(c, x + 1), ld(c, x + 2));
        // The corners feed both gradients: with d1 = br - tl and d2 = tr - bl,
        // gx = d1 + d2 + k (r - l) and gy = d1 - d2 + k (b - t) (exact in 16 bits).
        let (d1, d2) = (_mm256_sub_epi16(br, tl), _mm256_sub_epi16(tr, bl));
        let (mut hx, mut hy) = (_mm256_sub_epi16(r, l), _mm256_sub_epi16(bm, t));
        if SOBEL {
            hx = _mm256_add_epi16(hx, hx);
            hy = _mm256_add_epi16(hy, hy);
        }
        let gx = _mm256_add_epi16(_mm256_add_epi16(d1, d2), hx);
        let gy = _mm256_add_epi16(_mm256_sub_epi16(d1, d2), hy);
        let lo = _mm256_unpacklo_epi16(gx, gy);
        let hi = _mm256_unpackhi_epi16(gx, gy);
        let slo = fin(_mm256_madd_epi16(lo, lo));
        let shi = fin(_mm256_madd_epi16(hi, hi));
        // The unpacks and packs both work within 128-bit lanes, so the order comes back.
        let p16 = _mm256_packs_epi32(slo, shi);
        let p8 = _mm256_packus_epi16(p16, p16);
        let q = _mm256_permute4x64_epi64::<0b1000>(p8);
        _mm_storeu_si128(out.as_mut_ptr().add(x + 1).cast(), _mm256_castsi256_si128(q));
        if x == n - 16 {
            break;
        }
        i += 16;
    }
    edge_columns(SOBEL, scale, maxf, a, b, c, out);
}

/// `u8_row_avx2` 32 samples at a time (half the instructions per sample, which is what bounds it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
unsafe fn u8_row_avx512<const UNIT: bool, const SOBEL: bool>(job: &Job, a: &[u8], b: &[u8], c: &[u8], out: &mut [u8]) {
    use std::arch::x86_64::*;
    let w = b.len();
    debug_assert!(w >= 34 && a.len() == w && c.len() == w && out.len() >= w);
    let n = w - 2;
    let (scale, maxf) = (job.scale, job.max as f32);
    let vscale = _mm512_set1_ps(scale);
    let vmax = _mm512_set1_ps(maxf);
    // SAFETY (whole loop): x + 34 <= w, so every 32-byte load at x, x + 1, x + 2 and the store at
    // x + 1 stay inside rows of w samples.
    let ld = |r: &[u8], x: usize| _mm512_cvtepu8_epi16(_mm256_loadu_si256(r.as_ptr().add(x).cast()));
    let fin = |s: __m512i| -> __m512i {
        let mut f = _mm512_sqrt_ps(_mm512_cvtepi32_ps(s));
        if !UNIT {
            f = _mm512_mul_ps(f, vscale);
        }
        _mm512_cvtps_epi32(_mm512_min_ps(vmax, f))
    };
    let order = _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0);
    let mut i = 0;
    loop {
        let x = i.min(n - 32);
        let (tl, t, tr) = (ld(a, x), ld(a, x + 1), ld(a, x + 2));
        let (l, r) = (ld(b, x), ld(b, x + 2));
        let (bl, bm, br) = (ld(c, x), ld(c, x + 1), ld(c, x + 2));
        let (d1, d2) = (_mm512_sub_epi16(br, tl), _mm512_sub_epi16(tr, bl));
        let (mut hx, mut hy) = (_mm512_sub_epi16(r, l), _mm512_sub_epi16(bm, t));
        if SOBEL {
            hx = _mm512_add_epi16(hx, hx);
            hy = _mm512_add_epi16(hy, hy);
        }
        let gx = _mm512_add_epi16(_mm512_add_epi16(d1, d2), hx);
        let gy = _mm512_add_epi16(_mm512_sub_epi16(d1, d2), hy);
        let lo = _mm512_unpacklo_epi16(gx, gy);
        let hi = _mm512_unpackhi_epi16(gx, gy);
        let slo = fin(_mm512_madd_epi16(lo, lo));
        let shi = fin(_mm512_madd_epi16(hi, hi));
        let p16 = _mm512_packs_epi32(slo, shi);
        let p8 = _mm512_packus_epi16(p16, p16);
        let q = _mm512_permutexvar_epi64(order, p8);
        _mm256_storeu_si256(out.as_mut_ptr().add(x + 1).cast(), _mm512_castsi512_si256(q));
        if x == n - 32 {
            break;
        }
        i += 32;
    }
    edge_columns(SOBEL, scale, maxf, a, b, c, out);
}
#[inline(always)]
fn u16_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>, bits: u32) {
    // R81's plain C path fuses the sum of squares above 9 bits; its SIMD path, this kernel's, does not
    let fused = job.path == Path::C && bits > 9;
    #[cfg(target_arch = "x86_64")]
    if !fused && src.w >= 18 && super::plane::has_avx512() {
        let h = src.h;
        for y in 0..h {
            let a = src.row(clamp_idx(y as isize - 1, h));
            let b = src.row(y);
            let c = src.row(clamp_idx(y as isize + 1, h));
            let out = dst.row_mut(y);
            // SAFETY: the CPU has AVX-512 F/BW/VL (checked above); the rows are w >= 18 samples.
            unsafe {
                by_kind!(u16_row_avx512, job, a, b, c, out)
            }
        }
        return;
    }
    int_plane(job, src, dst, bits)
}

/// One row of 9- to 16-bit samples, 16 at a time: the gradients exact in 32-bit integers (with
/// d1 = br - tl and d2 = tr - bl, gx = d1 + d2 + k (r - l) and gy = d1 - d2 + k (b - t)), then as
/// the scalar path: single precision squares added (not fused), the square root, the scale, and
/// the conversion rounding to nearest even (MXCSR's default, equal to rounding first); min(max, v)
/// before it and the signed max with 0 after it give the scalar clamp (a NaN converts to i32::MIN).
/// The rows are at least 16 samples wide here; the last step overlaps the one before.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
unsafe fn u16_row_avx512<const UNIT: bool, const SOBEL: bool>(job: &Job, a: &[u16], b: &[u16], c: &[u16], out: &mut [u16]) {
    use std::arch::x86_64::*;
    let w = b.len();
    debug_assert!(w >= 18 && a.len() == w && c.len() == w && out.len() >= w);
    let n = w - 2;
    let (scale, maxf) = (job.scale, job.max as f32);
    let (vscale, vmax, zero) = (_mm512_set1_ps(scale), _mm512_set1_ps(maxf), _mm512_setzero_si512());
    // SAFETY (whole loop): x + 18 <= w, so the 16-sample loads at x, x + 1 and x + 2 and the store
    // at x + 1 stay inside rows of w samples.
    let ld = |r: &[u16], x: usize| _mm512_cvtepu16_epi32(_mm256_loadu_si256(r.as_ptr().add(x).cast()));
    let mut i = 0;
    loop {
        let x = i.min(n - 16);
        let (d1, d2) = (_mm512_sub_epi32(ld(c, x + 2), ld(a, x)), _mm512_sub_epi32(ld(a, x + 2), ld(c, x)));
        let (mut hx, mut hy) = (_mm512_sub_epi32(ld(b, x + 2), ld(b, x)), _mm512_sub_epi32(ld(c, x + 1), ld(a, x + 1)));
        if SOBEL {
            hx = _mm512_add_epi32(hx, hx);
            hy = _mm512_add_epi32(hy, hy);
        }
        let gx = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_add_epi32(d1, d2), hx));
        let gy = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_sub_epi32(d1, d2), hy));
        let mut f = _mm512_sqrt_ps(_mm512_add_ps(_mm512_mul_ps(gx, gx), _mm512_mul_ps(gy, gy)));
        if !UNIT {
            f = _mm512_mul_ps(f, vscale);
        }
        let v = _mm512_max_epi32(_mm512_cvtps_epi32(_mm512_min_ps(vmax, f)), zero);
        _mm256_storeu_si256(out.as_mut_ptr().add(x + 1).cast(), _mm512_cvtusepi32_epi16(v));
        if x == n - 16 {
            break;
        }
        i += 16;
    }
    edge_columns(SOBEL, scale, maxf, a, b, c, out);
}

multiversion!(fn plane_u8 => u8_plane(job: &Job, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>));
multiversion!(fn plane_u16 => u16_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>, bits: u32));
multiversion!(fn plane_f32 => f32_plane(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>));
multiversion!(fn plane_f16 => half_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>));

pub fn run(job: &Job, kind: Kind, src: &Frame, dst: &mut FrameMut, p: usize, stream: bool) {
    let bits = src.video_format().map_or(8, |f| f.bitsPerSample as u32);
    match kind {
        Kind::U8 => plane_u8(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::U16 => plane_u16(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream), bits),
        Kind::F32 => plane_f32(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::F16 => plane_f16(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::U32 => unreachable!("rejected when the filter is made"),
    }
}
