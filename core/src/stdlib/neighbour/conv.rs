//! Convolution: square (3x3 to 11x11), horizontal, vertical and separable (vertical pass, then
//! horizontal) kernels, edges mirrored with the edge sample repeated.
//!
//! Integer: the exact integer sum, converted to single precision, times 1/divisor plus bias in one
//! fused multiply-add, rounded to nearest even, made positive unless saturating, clamped.
//! Float: single precision in the order of additions R81 uses (see `Path`).
use std::ops::Range;

use super::plane::{clamp_to_int, f32_to_half, f32_to_halves, half_to_f32, halves_to_f32, multiversion, sym, IntPx, Packed, Padded, PlaneIn, PlaneOut, RowSrc};
use super::Path;
use crate::frame::Frame;
use crate::stdlib::util::Kind;

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
}

// ---- integer ------------------------------------------------------------------------------------

/// Integer accumulators: 32 bits where the coefficients cannot overflow them, else 64.
pub trait Acc: Copy + Default + std::ops::AddAssign + Send + Sync + 'static {
    fn prod(m: i32, v: i32) -> Self;
    fn to_f32(self) -> f32;
}
impl Acc for i32 {
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
    fn prod(m: i32, v: i32) -> i64 {
        m as i64 * v as i64
    }
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }
}

/// acc[x] += sum over k of m[k] * row[x + k], for K taps at once.
#[inline(always)]
fn acc_k<T: IntPx, A: Acc, const K: usize>(acc: &mut [A], row: &[T], m: &[i32]) {
    let m: [i32; K] = std::array::from_fn(|k| m[k]);
    let n = acc.len();
    let row = &row[..n + K - 1];
    for x in 0..n {
        let mut s = A::default();
        for k in 0..K {
            s += A::prod(m[k], row[x + k].get());
        }
        acc[x] += s;
    }
}

/// acc[x] += sum over all taps of m[k] * row[x + k].
#[inline(always)]
fn acc_row<T: IntPx, A: Acc>(acc: &mut [A], row: &[T], m: &[i32]) {
    let mut off = 0;
    while off < m.len() {
        let (r, mm) = (&row[off..], &m[off..]);
        let step = match mm.len() {
            11.. => {
                acc_k::<T, A, 11>(acc, r, mm);
                11
            }
            9..=10 => {
                acc_k::<T, A, 9>(acc, r, mm);
                9
            }
            7..=8 => {
                acc_k::<T, A, 7>(acc, r, mm);
                7
            }
            5..=6 => {
                acc_k::<T, A, 5>(acc, r, mm);
                5
            }
            3..=4 => {
                acc_k::<T, A, 3>(acc, r, mm);
                3
            }
            _ => {
                acc_k::<T, A, 1>(acc, r, mm);
                1
            }
        };
        off += step;
    }
}

#[inline(always)]
fn finish_int<T: IntPx, A: Acc>(job: &Job, acc: &[A], out: &mut [T]) {
    let (rdiv, bias, maxf) = (job.rdiv, job.bias, job.max as f32);
    if job.saturate {
        for (o, &s) in out.iter_mut().zip(acc) {
            let v = s.to_f32().mul_add(rdiv, bias).round_ties_even();
            *o = T::put(clamp_to_int(v, maxf));
        }
    } else {
        for (o, &s) in out.iter_mut().zip(acc) {
            let v = s.to_f32().mul_add(rdiv, bias).round_ties_even().abs();
            *o = T::put(clamp_to_int(v, maxf));
        }
    }
}

/// Square kernels and horizontal ones (a square of height 1).
#[inline(always)]
fn int_2d<T: IntPx, A: Acc>(job: &Job, src: &impl RowSrc<T>, dst: &mut impl FnMut(usize, &[T]), n: usize, rows: usize) {
    let (w, h) = (src.w(), src.h());
    let r = n / 2;
    let ry = rows / 2;
    let pad = Padded::<T>::build(src, r, |a, b| b.copy_from_slice(a));
    let mut acc = vec![A::default(); w];
    let mut out = vec![T::default(); w];
    for y in 0..h {
        acc.fill(A::default());
        for ky in 0..rows {
            let row = pad.row(sym(y as isize + ky as isize - ry as isize, h));
            acc_row(&mut acc, row, &job.mi[ky * n..(ky + 1) * n]);
        }
        finish_int(job, &acc, &mut out);
        dst(y, &out);
    }
}

#[inline(always)]
fn int_v<T: IntPx, A: Acc>(job: &Job, src: &impl RowSrc<T>, dst: &mut impl FnMut(usize, &[T])) {
    let (w, h) = (src.w(), src.h());
    let n = job.taps;
    let r = n / 2;
    let mut acc = vec![A::default(); w];
    let mut out = vec![T::default(); w];
    for y in 0..h {
        acc.fill(A::default());
        for k in 0..n {
            let row = src.row(sym(y as isize + k as isize - r as isize, h));
            acc_k::<T, A, 1>(&mut acc, row, &job.mi[k..k + 1]);
        }
        finish_int(job, &acc, &mut out);
        dst(y, &out);
    }
}

#[inline(always)]
fn int_plane<T: IntPx, A: Acc>(job: &Job, src: &PlaneIn<T>, dst: &mut PlaneOut<T>) {
    let mut put = |y: usize, row: &[T]| dst.row_mut(y).copy_from_slice(row);
    match job.mode {
        Mode::Square => int_2d::<T, A>(job, src, &mut put, job.taps, job.taps),
        Mode::H => int_2d::<T, A>(job, src, &mut put, job.taps, 1),
        Mode::V => int_v::<T, A>(job, src, &mut put),
        Mode::HV => {
            let mut mid = Packed::<T>::new(src.w, src.h);
            int_v::<T, A>(job, src, &mut |y, row: &[T]| mid.row_mut(y).copy_from_slice(row));
            int_2d::<T, A>(job, &mid, &mut put, job.taps, 1);
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

/// One chain over `taps` for output columns `xs`, into acc (len = xs.len()).
#[inline(always)]
fn chain(acc: &mut [f32], rows: &[&[f32]], taps: &[Tap], xs: Range<usize>, op: Op) {
    acc.fill(0.0);
    for &(ky, kx, m) in taps {
        pass(acc, &rows[ky][xs.start + kx..], m, op);
    }
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

/// Rows for output row y of a kernel `rows` tall, from padded rows.
#[inline(always)]
fn window<'a>(pad: &'a Padded<f32>, y: usize, rows: usize) -> Vec<&'a [f32]> {
    let r = rows / 2;
    (0..rows).map(|k| pad.row(sym(y as isize + k as isize - r as isize, pad.h))).collect()
}

#[inline(always)]
fn float_square(job: &Job, src: &impl RowSrc<f32>, dst: &mut impl FnMut(usize, &[f32])) {
    let (w, h) = (src.w(), src.h());
    let n = job.taps;
    let r = n / 2;
    let pad = Padded::<f32>::build(src, r, |a, b| b.copy_from_slice(a));
    let ((c_order, c_op), (e_order, e_op)) = c_square_order(n);
    let c_taps = taps_in(job, n, n, c_order.into_iter());
    let e_taps = taps_in(job, n, n, e_order.into_iter());
    // the plain code does the interior sixteen columns at a time and the rest like the edges
    let edge_l = r.min(w);
    let edge_r = edge_l + (w.saturating_sub(2 * r) / 16) * 16;
    let mut acc = vec![0f32; w];
    let mut out = vec![0f32; w];
    match (job.path, n) {
        (Path::C, _) => {
            for y in 0..h {
                let rows = window(&pad, y, n);
                chain(&mut acc, &rows, &c_taps, 0..w, c_op);
                if e_op != c_op {
                    chain(&mut acc[..edge_l], &rows, &e_taps, 0..edge_l, e_op);
                    chain(&mut acc[edge_r..], &rows, &e_taps, edge_r..w, e_op);
                }
                finish_fma(job, &acc, &mut out);
                dst(y, &out);
            }
        }
        (Path::Simd, 3) => {
            // coefficients pre-divided; even and odd taps in two chains; bias added to the odd one
            let m: Vec<f32> = job.mf.iter().map(|&m| m * job.rdiv).collect();
            let even: Vec<Tap> = (0..9).step_by(2).map(|i| (i / 3, i % 3, m[i])).collect();
            let odd: Vec<Tap> = (1..9).step_by(2).map(|i| (i / 3, i % 3, m[i])).collect();
            let mut acc2 = vec![0f32; w];
            let bias = job.bias;
            for y in 0..h {
                let rows = window(&pad, y, 3);
                chain(&mut acc, &rows, &even, 0..w, Op::Fma);
                chain(&mut acc2, &rows, &odd, 0..w, Op::Fma);
                if job.saturate {
                    for ((o, &e), &d) in out.iter_mut().zip(&acc).zip(&acc2) {
                        *o = (d + bias) + e;
                    }
                } else {
                    for ((o, &e), &d) in out.iter_mut().zip(&acc).zip(&acc2) {
                        *o = ((d + bias) + e).abs();
                    }
                }
                dst(y, &out);
            }
        }
        (Path::Simd, _) => {
            // row order over the interior when it is wide enough, the plain order elsewhere
            let simd_taps = taps_in(job, n, n, (0..n).flat_map(|y| (0..n).map(move |x| (y, x))));
            // the SIMD code covers the interior when it is at least 32 wide; otherwise the row
            // goes through the plain code as built for the SIMD level, which fuses nothing for
            // 9x9 and 11x11 (their edge order everywhere)
            let wide = w >= 2 * r + 32;
            for y in 0..h {
                let rows = window(&pad, y, n);
                if wide {
                    chain(&mut acc[r..w - r], &rows, &simd_taps, r..w - r, Op::Fma);
                    chain(&mut acc[..r], &rows, &e_taps, 0..r, e_op);
                    chain(&mut acc[w - r..], &rows, &e_taps, w - r..w, e_op);
                } else if n >= 9 {
                    chain(&mut acc, &rows, &e_taps, 0..w, e_op);
                } else {
                    chain(&mut acc, &rows, &c_taps, 0..w, c_op);
                }
                finish_fma(job, &acc, &mut out);
                dst(y, &out);
            }
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
fn float_1d(job: &Job, src: &impl RowSrc<f32>, dst: &mut impl FnMut(usize, &[f32]), vertical: bool) {
    let (w, h) = (src.w(), src.h());
    let n = job.taps;
    let r = n / 2;
    let mut acc = vec![0f32; w];
    let mut acc2 = vec![0f32; w];
    let mut out = vec![0f32; w];
    // as (row, column) taps over a window of n rows x 1 column or 1 row x n columns
    let tap = |k: usize| -> Tap {
        if vertical {
            (k, 0, job.mf[k])
        } else {
            (0, k, job.mf[k])
        }
    };
    let all: Vec<Tap> = (0..n).map(tap).collect();
    let pad = if vertical { None } else { Some(Padded::<f32>::build(src, r, |a, b| b.copy_from_slice(a))) };
    for y in 0..h {
        let rows: Vec<&[f32]> = match &pad {
            Some(p) => vec![p.row(y)],
            None => (0..n).map(|k| src.row(sym(y as isize + k as isize - r as isize, h))).collect(),
        };
        match job.path {
            Path::C => {
                chain(&mut acc, &rows, &all, 0..w, Op::Add);
                if !vertical {
                    // the edge columns of the plain horizontal code: products fused or added
                    // one by one, by tap, as R81's build does for each kernel length
                    let ops = c_h_edge_ops(n, job.half);
                    let e = r.min(w);
                    let s = w.saturating_sub(r).max(e);
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
                // blocks of ten taps, alternating between two chains; the first chain of a block
                // continues from the sum so far, the second starts afresh
                acc.fill(0.0);
                for block in (0..n).step_by(10) {
                    acc2.fill(0.0);
                    for k in block..(block + 10).min(n) {
                        let (_, kx, m) = all[k];
                        let ky = if vertical { k } else { 0 };
                        let a = if (k - block) % 2 == 0 { &mut acc } else { &mut acc2 };
                        pass(a, &rows[ky][kx..], m, Op::Fma);
                    }
                    for (a, &b) in acc.iter_mut().zip(&acc2) {
                        *a += b;
                    }
                }
            }
        }
        finish_fma(job, &acc, &mut out);
        dst(y, &out);
    }
}

#[inline(always)]
fn float_any(job: &Job, src: &impl RowSrc<f32>, dst: &mut impl FnMut(usize, &[f32]), half: bool) {
    match job.mode {
        Mode::Square => float_square(job, src, dst),
        Mode::H => float_1d(job, src, dst, false),
        Mode::V => float_1d(job, src, dst, true),
        Mode::HV => {
            let mut mid = Packed::<f32>::new(src.w(), src.h());
            float_1d(job, src, &mut |y, row: &[f32]| mid.row_mut(y).copy_from_slice(row), true);
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
    float_any(job, src, &mut |y, row: &[f32]| dst.row_mut(y).copy_from_slice(row), false);
}

#[inline(always)]
fn half_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>) {
    let mut f = Packed::<f32>::new(src.w, src.h);
    for y in 0..src.h {
        halves_to_f32(src.row(y), f.row_mut(y));
    }
    // R81's SIMD build takes half samples in its 3x3 kernel only; everything else is plain C
    let path = if job.mode == Mode::Square && job.taps == 3 { job.path } else { Path::C };
    let job = Job { path, mi: Vec::new(), mf: job.mf.clone(), half: true, ..*job };
    float_any(&job, &f, &mut |y, row: &[f32]| f32_to_halves(row, dst.row_mut(y)), true);
}

#[inline(always)]
fn u8_plane(job: &Job, wide: bool, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>) {
    if wide {
        int_plane::<u8, i64>(job, src, dst)
    } else {
        int_plane::<u8, i32>(job, src, dst)
    }
}
#[inline(always)]
fn u16_plane(job: &Job, wide: bool, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>) {
    if wide {
        int_plane::<u16, i64>(job, src, dst)
    } else {
        int_plane::<u16, i32>(job, src, dst)
    }
}

multiversion!(fn plane_u8 => u8_plane(job: &Job, wide: bool, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>));
multiversion!(fn plane_u16 => u16_plane(job: &Job, wide: bool, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>));
multiversion!(fn plane_f32 => f32_plane(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>));
multiversion!(fn plane_f16 => half_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>));

pub fn run(job: &Job, kind: Kind, src: &Frame, dst: &mut Frame, p: usize) {
    // 32-bit sums unless the coefficients could overflow them
    let bound: i64 = job.mi.iter().map(|&m| (m as i64).abs()).sum::<i64>() * job.max as i64;
    let wide = bound > i32::MAX as i64;
    match kind {
        Kind::U8 => plane_u8(job, wide, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p)),
        Kind::U16 => plane_u16(job, wide, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p)),
        Kind::F32 => plane_f32(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p)),
        Kind::F16 => plane_f16(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p)),
        Kind::U32 => unreachable!("rejected when the filter is made"),
    }
}
