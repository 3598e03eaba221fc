//! Sobel and Prewitt: the gradient magnitude over a 3x3 neighbourhood (edge samples repeated),
//! times `scale`.
use super::morph::row9;
use super::plane::{clamp_idx, clamp_to_int, f32_to_halves, halves_to_f32, multiversion, IntPx, PlaneIn, PlaneOut};
use super::Path;
use crate::frame::Frame;
use crate::stdlib::util::Kind;

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
    let mut rows = vec![0f32; w * h];
    for y in 0..h {
        halves_to_f32(src.row(y), &mut rows[y * w..(y + 1) * w]);
    }
    let mut out = vec![0f32; w];
    for y in 0..h {
        let r = |yy: isize| &rows[clamp_idx(yy, h) * w..][..w];
        float_row(&job, r(y as isize - 1), r(y as isize), r(y as isize + 1), &mut out);
        f32_to_halves(&out, dst.row_mut(y));
    }
}

#[inline(always)]
fn u8_plane(job: &Job, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>) {
    int_plane(job, src, dst, 8)
}
#[inline(always)]
fn u16_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>, bits: u32) {
    int_plane(job, src, dst, bits)
}

multiversion!(fn plane_u8 => u8_plane(job: &Job, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>));
multiversion!(fn plane_u16 => u16_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>, bits: u32));
multiversion!(fn plane_f32 => f32_plane(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>));
multiversion!(fn plane_f16 => half_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>));

pub fn run(job: &Job, kind: Kind, src: &Frame, dst: &mut Frame, p: usize) {
    let bits = src.video_format().map_or(8, |f| f.bitsPerSample as u32);
    match kind {
        Kind::U8 => plane_u8(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p)),
        Kind::U16 => plane_u16(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p), bits),
        Kind::F32 => plane_f32(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p)),
        Kind::F16 => plane_f16(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p)),
        Kind::U32 => unreachable!("rejected when the filter is made"),
    }
}
