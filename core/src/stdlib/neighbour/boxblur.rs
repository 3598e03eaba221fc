//! BoxBlur: `hpasses` horizontal then `vpasses` vertical box filters of width 2r+1, edge samples
//! repeated. Integer passes round up and down in turn (first pass of each direction up), which
//! keeps repeated passes from drifting; float passes use a running sum in R81's order.
use super::plane::{clamp_idx, f32_to_half, f32_to_halves, half_to_f32, halves_to_f32, multiversion, IntPx, PlaneIn, PlaneOut};
use crate::frame::Frame;
use crate::stdlib::util::Kind;

#[derive(Clone, Copy)]
pub struct Job {
    pub hradius: usize,
    pub hpasses: usize,
    pub vradius: usize,
    pub vpasses: usize,
}

/// Exact floor(s / d) for 0 <= s < 2^52 through double precision, corrected by one where the
/// reciprocal's rounding lands on the wrong side of an integer.
#[derive(Clone, Copy)]
struct Div {
    d: f64,
    inv: f64,
}

impl Div {
    fn new(d: usize) -> Div {
        Div { d: d as f64, inv: 1.0 / d as f64 }
    }
    #[inline(always)]
    fn floor(self, s: f64) -> f64 {
        let q = (s * self.inv).floor();
        let q = if q * self.d > s { q - 1.0 } else { q };
        if (q + 1.0) * self.d <= s {
            q + 1.0
        } else {
            q
        }
    }
}

// ---- integer ------------------------------------------------------------------------------------

/// One horizontal pass over a row. `pre` is scratch for the row's prefix sums.
#[inline(always)]
fn h_int<T: IntPx>(src: &[T], dst: &mut [T], r: usize, up: bool, pre: &mut Vec<i64>) {
    let w = src.len();
    pre.clear();
    pre.push(0);
    let mut acc = 0i64;
    for &s in src {
        acc += s.get() as i64;
        pre.push(acc);
    }
    let div = Div::new(2 * r + 1);
    let round = if up { (2 * r) as f64 } else { 0.0 };
    let first = src[0].get() as i64;
    let last = src[w - 1].get() as i64;
    let sum_at = |x: usize| -> i64 {
        let lo = x as i64 - r as i64;
        let hi = x as i64 + r as i64;
        let mut s = pre[(hi.min(w as i64 - 1) + 1) as usize] - pre[lo.max(0) as usize];
        if lo < 0 {
            s += -lo * first;
        }
        if hi > w as i64 - 1 {
            s += (hi - (w as i64 - 1)) * last;
        }
        s
    };
    if 2 * r + 1 <= w {
        // left and right ends read repeated edge samples; the middle is a plain difference
        for x in 0..r {
            dst[x] = T::put(div.floor(sum_at(x) as f64 + round) as i32);
        }
        let n = w - 2 * r;
        let hi = &pre[2 * r + 1..][..n];
        let lo = &pre[..n];
        let out = &mut dst[r..][..n];
        for i in 0..n {
            out[i] = T::put(div.floor((hi[i] - lo[i]) as f64 + round) as i32);
        }
        for x in w - r..w {
            dst[x] = T::put(div.floor(sum_at(x) as f64 + round) as i32);
        }
    } else {
        for x in 0..w {
            dst[x] = T::put(div.floor(sum_at(x) as f64 + round) as i32);
        }
    }
}

/// One vertical pass over a whole plane of `w` x `h` samples (rows packed).
#[inline(always)]
fn v_int<T: IntPx>(src: &[T], dst: &mut [T], w: usize, h: usize, r: usize, up: bool) {
    let div = Div::new(2 * r + 1);
    let round = if up { (2 * r) as f64 } else { 0.0 };
    let row = |y: isize| &src[clamp_idx(y, h) * w..][..w];
    // running sums of the window around row 0: r+1 copies of row 0, then rows 1..=r (clamped)
    let mut sum = vec![0f64; w];
    let first = row(0);
    for (s, &v) in sum.iter_mut().zip(first) {
        *s = (r as f64 + 1.0) * v.get() as f64;
    }
    let direct = r.min(h - 1);
    for k in 1..=direct {
        for (s, &v) in sum.iter_mut().zip(row(k as isize)) {
            *s += v.get() as f64;
        }
    }
    if r > direct {
        let extra = (r - direct) as f64;
        for (s, &v) in sum.iter_mut().zip(row(h as isize - 1)) {
            *s += extra * v.get() as f64;
        }
    }
    for y in 0..h {
        if y > 0 {
            let add = row(y as isize + r as isize);
            let sub = row(y as isize - r as isize - 1);
            for i in 0..w {
                sum[i] += add[i].get() as f64 - sub[i].get() as f64;
            }
        }
        let out = &mut dst[y * w..][..w];
        for i in 0..w {
            out[i] = T::put(div.floor(sum[i] + round) as i32);
        }
    }
}

#[inline(always)]
fn int_plane<T: IntPx>(job: &Job, src: &PlaneIn<T>, dst: &mut PlaneOut<T>) {
    let (w, h) = (src.w, src.h);
    let mut a = vec![T::default(); w * h];
    for y in 0..h {
        a[y * w..(y + 1) * w].copy_from_slice(src.row(y));
    }
    let mut b = vec![T::default(); w * h];
    let mut pre = Vec::with_capacity(w + 1);
    for pass in 0..job.hpasses {
        for y in 0..h {
            h_int(&a[y * w..][..w], &mut b[y * w..][..w], job.hradius, pass % 2 == 0, &mut pre);
        }
        std::mem::swap(&mut a, &mut b);
    }
    for pass in 0..job.vpasses {
        v_int(&a, &mut b, w, h, job.vradius, pass % 2 == 0);
        std::mem::swap(&mut a, &mut b);
    }
    for y in 0..h {
        dst.row_mut(y).copy_from_slice(&a[y * w..][..w]);
    }
}

// ---- float --------------------------------------------------------------------------------------

/// One horizontal pass: a running sum started as r times the first sample plus samples 0..=r,
/// then one sample leaves and one enters per step.
#[inline(always)]
fn h_float(src: &[f32], dst: &mut [f32], r: usize) {
    let w = src.len();
    let inv = 1.0f32 / (2 * r + 1) as f32;
    let at = |i: isize| src[clamp_idx(i, w)];
    let mut s = src[0] * r as f32;
    for k in 0..=r {
        s += at(k as isize);
    }
    dst[0] = s * inv;
    for x in 1..w {
        s = (s - at(x as isize - r as isize - 1)) + at((x + r) as isize);
        dst[x] = s * inv;
    }
}

#[inline(always)]
fn v_float(src: &[f32], dst: &mut [f32], w: usize, h: usize, r: usize) {
    let inv = 1.0f32 / (2 * r + 1) as f32;
    let row = |y: isize| &src[clamp_idx(y, h) * w..][..w];
    let mut sum: Vec<f32> = row(0).iter().map(|&v| v * r as f32).collect();
    for k in 0..=r {
        for (s, &v) in sum.iter_mut().zip(row(k as isize)) {
            *s += v;
        }
    }
    for y in 0..h {
        if y > 0 {
            let add = row(y as isize + r as isize);
            let sub = row(y as isize - r as isize - 1);
            for i in 0..w {
                sum[i] = (sum[i] - sub[i]) + add[i];
            }
        }
        let out = &mut dst[y * w..][..w];
        for i in 0..w {
            out[i] = sum[i] * inv;
        }
    }
}

#[inline(always)]
fn float_passes(job: &Job, mut a: Vec<f32>, w: usize, h: usize, half: bool) -> Vec<f32> {
    let mut b = vec![0f32; w * h];
    // half samples are stored as half between passes
    let store = |b: &mut Vec<f32>| {
        if half {
            for v in b.iter_mut() {
                *v = half_to_f32(f32_to_half(*v));
            }
        }
    };
    for _ in 0..job.hpasses {
        for y in 0..h {
            h_float(&a[y * w..][..w], &mut b[y * w..][..w], job.hradius);
        }
        store(&mut b);
        std::mem::swap(&mut a, &mut b);
    }
    for _ in 0..job.vpasses {
        v_float(&a, &mut b, w, h, job.vradius);
        store(&mut b);
        std::mem::swap(&mut a, &mut b);
    }
    a
}

#[inline(always)]
fn f32_plane(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>) {
    let (w, h) = (src.w, src.h);
    let mut a = vec![0f32; w * h];
    for y in 0..h {
        a[y * w..(y + 1) * w].copy_from_slice(src.row(y));
    }
    let a = float_passes(job, a, w, h, false);
    for y in 0..h {
        dst.row_mut(y).copy_from_slice(&a[y * w..][..w]);
    }
}

#[inline(always)]
fn half_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>) {
    let (w, h) = (src.w, src.h);
    let mut a = vec![0f32; w * h];
    for y in 0..h {
        halves_to_f32(src.row(y), &mut a[y * w..(y + 1) * w]);
    }
    let a = float_passes(job, a, w, h, true);
    for y in 0..h {
        f32_to_halves(&a[y * w..][..w], dst.row_mut(y));
    }
}

#[inline(always)]
fn u8_plane(job: &Job, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>) {
    int_plane(job, src, dst)
}
#[inline(always)]
fn u16_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>) {
    int_plane(job, src, dst)
}

multiversion!(fn plane_u8 => u8_plane(job: &Job, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>));
multiversion!(fn plane_u16 => u16_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>));
multiversion!(fn plane_f32 => f32_plane(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>));
multiversion!(fn plane_f16 => half_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>));

pub fn run(job: &Job, kind: Kind, src: &Frame, dst: &mut Frame, p: usize) {
    match kind {
        Kind::U8 => plane_u8(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p)),
        Kind::U16 => plane_u16(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p)),
        Kind::F32 => plane_f32(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p)),
        Kind::F16 => plane_f16(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p)),
        Kind::U32 => unreachable!("rejected when the filter is made"),
    }
}
