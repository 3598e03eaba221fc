//! Minimum, Maximum, Median, Inflate and Deflate: 3x3 neighbourhoods with the edge samples
//! repeated.
use super::plane::{clamp_idx, f32_to_halves, multiversion, HalfRows, IntPx, PlaneIn, PlaneOut};
use super::{Path, Threshold};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use crate::util::Kind;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    Min,
    Max,
    Median,
    Inflate,
    Deflate,
}

#[derive(Clone, Copy)]
pub struct Job {
    pub op: Op,
    /// Minimum/Maximum: which of the eight neighbours take part (row by row, centre left out).
    pub coords: [bool; 8],
    pub th: Threshold,
    pub path: Path,
}

/// Where each of the nine window positions (row-major, centre at 4) reads: (row 0..3, dx).
fn selection(job: &Job) -> [(usize, isize); 9] {
    let mut sel = [(1usize, 0isize); 9];
    let mut n = 0;
    for k in 0..9 {
        let pos = ((k / 3) as usize, (k % 3) as isize - 1);
        if k == 4 {
            sel[k] = pos;
            continue;
        }
        // a neighbour left out reads the centre instead, which changes neither minimum nor maximum
        if job.coords[n] {
            sel[k] = pos;
        }
        n += 1;
    }
    sel
}

/// Runs `px` over one output row from the rows above (`a`), at (`b`) and below (`c`): the
/// interior as straight slices in blocks of a fixed size (each one a few full vectors; the last
/// block overlaps the one before rather than leaving a narrow tail), the first and last samples
/// with clamped indices.
#[inline(always)]
pub fn row9<T: Copy, U: Copy>(a: &[T], b: &[T], c: &[T], sel: &[(usize, isize); 9], out: &mut [U], px: impl Fn([T; 9]) -> U) {
    const BLOCK: usize = 64;
    let w = b.len();
    let rows = [a, b, c];
    if w >= 3 {
        let n = w - 2;
        let s = |k: usize| -> &[T] {
            let (r, dx) = sel[k];
            &rows[r][(1 + dx) as usize..][..n]
        };
        let (s0, s1, s2, s3, s4, s5, s6, s7, s8) = (s(0), s(1), s(2), s(3), s(4), s(5), s(6), s(7), s(8));
        let o = &mut out[1..][..n];
        if n >= BLOCK {
            let mut i = 0;
            loop {
                let b0 = i.min(n - BLOCK);
                let t = |s: &[T]| -> [T; BLOCK] { s[b0..b0 + BLOCK].try_into().expect("a block") };
                let (t0, t1, t2, t3, t4, t5, t6, t7, t8) = (t(s0), t(s1), t(s2), t(s3), t(s4), t(s5), t(s6), t(s7), t(s8));
                let ob = &mut o[b0..b0 + BLOCK];
                for j in 0..BLOCK {
                    ob[j] = px([t0[j], t1[j], t2[j], t3[j], t4[j], t5[j], t6[j], t7[j], t8[j]]);
                }
                if b0 + BLOCK == n {
                    break;
                }
                i += BLOCK;
            }
        } else {
            for i in 0..n {
                o[i] = px([s0[i], s1[i], s2[i], s3[i], s4[i], s5[i], s6[i], s7[i], s8[i]]);
            }
        }
    }
    if w == 0 {
        return;
    }
    for x in [0, w - 1] {
        let mut v = [b[x]; 9];
        for (k, &(r, dx)) in sel.iter().enumerate() {
            v[k] = rows[r][clamp_idx(x as isize + dx, w)];
        }
        out[x] = px(v);
    }
}

/// The median of nine values with a fixed network of compare-exchanges.
#[inline(always)]
pub fn median9<T: Copy>(v: [T; 9], min: impl Fn(T, T) -> T + Copy, max: impl Fn(T, T) -> T + Copy) -> T {
    let [mut p0, mut p1, mut p2, mut p3, mut p4, mut p5, mut p6, mut p7, mut p8] = v;
    macro_rules! cx {
        ($a:ident, $b:ident) => {{
            let (x, y) = ($a, $b);
            $a = min(x, y);
            $b = max(x, y);
        }};
    }
    cx!(p1, p2);
    cx!(p4, p5);
    cx!(p7, p8);
    cx!(p0, p1);
    cx!(p3, p4);
    cx!(p6, p7);
    cx!(p1, p2);
    cx!(p4, p5);
    cx!(p7, p8);
    cx!(p0, p3);
    cx!(p5, p8);
    cx!(p4, p7);
    cx!(p3, p6);
    cx!(p1, p4);
    cx!(p2, p5);
    cx!(p4, p7);
    cx!(p4, p2);
    cx!(p6, p4);
    cx!(p4, p2);
    let _ = (p0, p1, p2, p3, p5, p6, p7, p8);
    p4
}

#[inline(always)]
pub fn fmin(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}
#[inline(always)]
pub fn fmax(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

#[inline(always)]
fn int_plane<T: IntPx>(job: &Job, src: &PlaneIn<T>, dst: &mut PlaneOut<T>) {
    let sel = selection(job);
    let t = T::put(job.th.int);
    let h = src.h;
    let four = T::wide_const(4);
    for y in 0..h {
        let a = src.row(clamp_idx(y as isize - 1, h));
        let b = src.row(y);
        let c = src.row(clamp_idx(y as isize + 1, h));
        let out = dst.row_mut(y);
        // saturating arithmetic gives the same answers as wider sums here: the minimum is never
        // below 0 and the maximum never above the largest sample value
        match job.op {
            Op::Min => row9(a, b, c, &sel, out, move |v: [T; 9]| {
                let m = v[0].min(v[1]).min(v[2]).min(v[3]).min(v[4]).min(v[5]).min(v[6]).min(v[7]).min(v[8]);
                m.max(v[4].sat_sub(t))
            }),
            Op::Max => row9(a, b, c, &sel, out, move |v: [T; 9]| {
                let m = v[0].max(v[1]).max(v[2]).max(v[3]).max(v[4]).max(v[5]).max(v[6]).max(v[7]).max(v[8]);
                m.min(v[4].sat_add(t))
            }),
            Op::Median => row9(a, b, c, &sel, out, move |v: [T; 9]| median9(v, Ord::min, Ord::max)),
            Op::Inflate => row9(a, b, c, &sel, out, move |v: [T; 9]| {
                let w = v.map(T::wide);
                let sum = w[0] + w[1] + w[2] + w[3] + w[5] + w[6] + w[7] + w[8];
                let avg = T::from_wide((sum + four) >> 3);
                avg.max(v[4]).min(v[4].sat_add(t))
            }),
            Op::Deflate => row9(a, b, c, &sel, out, move |v: [T; 9]| {
                let w = v.map(T::wide);
                let sum = w[0] + w[1] + w[2] + w[3] + w[5] + w[6] + w[7] + w[8];
                let avg = T::from_wide((sum + four) >> 3);
                avg.min(v[4]).max(v[4].sat_sub(t))
            }),
        }
    }
}

/// The average of the eight neighbours in R81's order of additions.
#[inline(always)]
fn avg8(v: &[f32; 9], path: Path) -> f32 {
    let s = match path {
        Path::C => v[0] + v[1] + v[2] + v[3] + v[5] + v[6] + v[7] + v[8],
        Path::Simd => {
            let a = ((v[0] + v[1]) + v[5]) + v[7];
            let b = ((v[2] + v[3]) + v[6]) + v[8];
            a + b
        }
    };
    s * 0.125
}

/// One float output row from float rows `a`, `b`, `c`.
#[inline(always)]
fn float_row(job: &Job, sel: &[(usize, isize); 9], a: &[f32], b: &[f32], c: &[f32], out: &mut [f32]) {
    let t = job.th.float;
    match job.op {
        Op::Min => row9(a, b, c, sel, out, move |v: [f32; 9]| fmax(v.iter().copied().fold(v[4], fmin), v[4] - t)),
        Op::Max => row9(a, b, c, sel, out, move |v: [f32; 9]| fmin(v.iter().copied().fold(v[4], fmax), v[4] + t)),
        Op::Median => row9(a, b, c, sel, out, move |v: [f32; 9]| median9(v, fmin, fmax)),
        Op::Inflate => match job.path {
            Path::C => row9(a, b, c, sel, out, move |v: [f32; 9]| fmin(fmax(avg8(&v, Path::C), v[4]), v[4] + t)),
            Path::Simd => row9(a, b, c, sel, out, move |v: [f32; 9]| fmin(fmax(avg8(&v, Path::Simd), v[4]), v[4] + t)),
        },
        Op::Deflate => match job.path {
            Path::C => row9(a, b, c, sel, out, move |v: [f32; 9]| fmax(fmin(avg8(&v, Path::C), v[4]), v[4] - t)),
            Path::Simd => row9(a, b, c, sel, out, move |v: [f32; 9]| fmax(fmin(avg8(&v, Path::Simd), v[4]), v[4] - t)),
        },
    }
}

#[inline(always)]
fn f32_plane(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>) {
    let sel = selection(job);
    let h = src.h;
    for y in 0..h {
        let a = src.row(clamp_idx(y as isize - 1, h));
        let b = src.row(y);
        let c = src.row(clamp_idx(y as isize + 1, h));
        float_row(job, &sel, a, b, c, dst.row_mut(y));
    }
}

#[inline(always)]
fn half_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>) {
    // Half samples are worked on as single precision (the plain order) and rounded back.
    let job = Job { path: job.path, ..*job };
    let sel = selection(&job);
    let (w, h) = (src.w, src.h);
    let mut rows = HalfRows::new(w);
    let mut out = vec![0f32; w];
    for y in 0..h {
        let [a, b, c] = rows.window(src, y);
        float_row(&job, &sel, a, b, c, &mut out);
        f32_to_halves(&out, dst.row_mut(y));
    }
}

multiversion!(fn plane_u8 => int_plane_u8(job: &Job, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>));
multiversion!(fn plane_u16 => int_plane_u16(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>));
multiversion!(fn plane_f32 => f32_plane_(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>));
multiversion!(fn plane_f16 => half_plane_(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>));

#[inline(always)]
fn int_plane_u8(job: &Job, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>) {
    int_plane(job, src, dst)
}
#[inline(always)]
fn int_plane_u16(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>) {
    int_plane(job, src, dst)
}
#[inline(always)]
fn f32_plane_(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>) {
    f32_plane(job, src, dst)
}
#[inline(always)]
fn half_plane_(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>) {
    half_plane(job, src, dst)
}

pub fn run(job: &Job, kind: Kind, src: &Frame, dst: &mut FrameMut, p: usize, stream: bool) {
    match kind {
        Kind::U8 => plane_u8(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::U16 => plane_u16(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::F32 => plane_f32(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::F16 => plane_f16(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::U32 => unreachable!("rejected when the filter is made"),
    }
}
