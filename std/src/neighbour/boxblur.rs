//! BoxBlur: `hpasses` horizontal then `vpasses` vertical box filters of width 2r+1, edge samples
//! repeated. Integer passes round up and down in turn (first pass of each direction up), which
//! keeps repeated passes from drifting; float passes use a running sum in R81's order.
use super::plane::{f32_to_halves, halves_to_f32, multiversion, IntPx, PlaneIn, PlaneOut};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use crate::util::Kind;

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
    /// `floor` of a window sum plus rounding as an i32.
    #[inline(always)]
    fn quot(self, s: f64) -> i32 {
        // SAFETY: s is a sum of at most 2r + 1 samples below 2^16 plus 2r, all non-negative, so
        // the quotient is a finite sample value in 0..=65535. The plain conversion lets the loops
        // vectorise: `as` adds a NaN and range check per sample.
        unsafe { self.floor(s).to_int_unchecked::<i32>() }
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
            dst[x] = T::put(div.quot(sum_at(x) as f64 + round));
        }
        let n = w - 2 * r;
        let hi = &pre[2 * r + 1..][..n];
        let lo = &pre[..n];
        let out = &mut dst[r..][..n];
        for i in 0..n {
            out[i] = T::put(div.quot((hi[i] - lo[i]) as f64 + round));
        }
        for x in w - r..w {
            dst[x] = T::put(div.quot(sum_at(x) as f64 + round));
        }
    } else {
        for x in 0..w {
            dst[x] = T::put(div.quot(sum_at(x) as f64 + round));
        }
    }
}

/// floor(s / d) (`up`: rounded up instead) for a row of window sums, when every sum plus d is
/// below 2^24 (exact in single precision): a reciprocal estimate, then one correction.
#[inline(always)]
fn div_row_f32<T: IntPx>(sums: &[i32], out: &mut [T], d: i32, up: bool) {
    let inv = 1.0f32 / d as f32;
    let round = if up { d - 1 } else { 0 };
    let out = &mut out[..sums.len()];
    for (o, &s) in out.iter_mut().zip(sums) {
        let s = s + round;
        // SAFETY: 0 <= s < 2^24, so the estimate is finite, non-negative and small.
        let q = unsafe { (s as f32 * inv).to_int_unchecked::<i32>() };
        let rem = s - q * d;
        let q = q - (rem < 0) as i32 + (rem >= d) as i32;
        *o = T::put(q);
    }
}

/// Window sums of 2r+1 samples (edges repeated) along G rows at once: G independent running
/// sums, so the additions of one row do not wait on each other.
#[inline(always)]
fn h_sums<T: IntPx, const G: usize>(rows: [&[T]; G], r: usize, sums: &mut [i32]) {
    let w = rows[0].len();
    let last = w - 1;
    let mut s: [i32; G] = [0; G];
    let direct = r.min(last);
    for g in 0..G {
        let row = rows[g];
        let mut v = (r as i32 + 1) * row[0].get();
        for k in 1..=direct {
            v += row[k].get();
        }
        v += (r - direct) as i32 * row[last].get();
        s[g] = v;
        sums[g * w] = v;
    }
    for x in 1..w {
        let add = (x + r).min(last);
        let sub = x.saturating_sub(r + 1);
        for g in 0..G {
            s[g] += rows[g][add].get() - rows[g][sub].get();
            sums[g * w + x] = s[g];
        }
    }
}

#[inline(always)]
fn int_plane<T: IntPx>(job: &Job, src: &PlaneIn<T>, dst: &mut PlaneOut<T>, max: i32) {
    let exact = |r: usize| (2 * r as i64 + 1) * max as i64 + 2 * r as i64 + 2 < (1 << 24);
    int_stream(job, src, dst, exact(job.hradius), exact(job.vradius))
}

/// One integer horizontal pass over the `g` rows of `rows` (g <= G) into `dst` (rows packed):
/// 32-bit running sums where `exact`, else prefix sums in 64 bits (`pre` is their scratch).
#[inline(always)]
fn h_group_int<T: IntPx>(rows: &[&[T]; G], g: usize, dst: &mut [T], r: usize, up: bool, sums: &mut [i32], exact: bool, pre: &mut Vec<i64>) {
    let w = rows[0].len();
    if !exact {
        for k in 0..g {
            h_int(rows[k], &mut dst[k * w..(k + 1) * w], r, up, pre);
        }
        return;
    }
    if g == G {
        h_sums::<T, G>(*rows, r, sums);
    } else {
        for k in 0..g {
            h_sums::<T, 1>([rows[k]], r, &mut sums[k * w..(k + 1) * w]);
        }
    }
    for k in 0..g {
        div_row_f32(&sums[k * w..(k + 1) * w], &mut dst[k * w..(k + 1) * w], (2 * r + 1) as i32, up);
    }
}

/// The running window sums of an integer vertical pass at row `y`, from the rows of the pass
/// before held in `input`: started at row 0 as r + 1 times the first row plus the rows below it,
/// then one row in and one out per step. `S` is i32 where the caller checked the sums fit, else f64
/// (exact integers either way: the sums stay below 2^53).
#[inline(always)]
fn v_sums<T: IntPx, S>(input: &Ring<T>, y: usize, h: usize, r: usize, sum: &mut [S], of: impl Fn(i32) -> S)
where
    S: Copy + std::ops::Add<Output = S> + std::ops::Sub<Output = S> + std::ops::Mul<Output = S>,
{
    if y == 0 {
        let times = of(r as i32 + 1);
        for (s, &v) in sum.iter_mut().zip(input.row(0)) {
            *s = times * of(v.get());
        }
        let direct = r.min(h - 1);
        for k in 1..=direct {
            for (s, &v) in sum.iter_mut().zip(input.row(k)) {
                *s = *s + of(v.get());
            }
        }
        if r > direct {
            let extra = of((r - direct) as i32);
            for (s, &v) in sum.iter_mut().zip(input.row(h - 1)) {
                *s = *s + extra * of(v.get());
            }
        }
    } else {
        let add = input.row((y + r).min(h - 1));
        let sub = input.row(y.saturating_sub(r + 1));
        for ((s, &p), &m) in sum.iter_mut().zip(add).zip(sub) {
            *s = *s + (of(p.get()) - of(m.get()));
        }
    }
}

/// One integer vertical pass whose sums are exact in 32 bits (the caller checked).
#[inline(always)]
fn v_row_int<T: IntPx>(input: &Ring<T>, y: usize, h: usize, r: usize, up: bool, sum: &mut [i32], out: &mut [T]) {
    v_sums(input, y, h, r, sum, |v| v);
    div_row_f32(sum, out, (2 * r + 1) as i32, up);
}

/// As `v_row_int` for windows whose sums are not exact in single precision: sums in double
/// precision (exact integers), quotients through `Div`.
#[inline(always)]
fn v_row_wide<T: IntPx>(input: &Ring<T>, y: usize, h: usize, r: usize, up: bool, sum: &mut [f64], out: &mut [T]) {
    v_sums(input, y, h, r, sum, |v| v as f64);
    let div = Div::new(2 * r + 1);
    let round = if up { (2 * r) as f64 } else { 0.0 };
    for (o, &s) in out.iter_mut().zip(sum.iter()) {
        *o = T::put(div.quot(s + round));
    }
}

/// One integer vertical pass (see `v_row_int` and `v_row_wide`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn v_row_any<T: IntPx>(input: &Ring<T>, y: usize, h: usize, r: usize, up: bool, sum: &mut [i32], wide: &mut [f64], out: &mut [T]) {
    if wide.is_empty() {
        v_row_int(input, y, h, r, up, sum, out)
    } else {
        v_row_wide(input, y, h, r, up, wide, out)
    }
}

/// The integer passes streamed through rings of rows, as `float_stream` does; the rounding
/// alternates per pass of each direction, first up. `hx` and `vx`: whether the window sums of
/// each direction are exact in 32 bits and single precision.
#[inline(always)]
fn int_stream<T: IntPx>(job: &Job, src: &PlaneIn<T>, dst: &mut PlaneOut<T>, hx: bool, vx: bool) {
    let (w, h) = (src.w, src.h);
    let (hr, hp, vr, vp) = (job.hradius, job.hpasses, job.vradius, job.vpasses);
    let mut rings: Vec<Ring<T>> = ring_sizes(job, h).into_iter().map(|n| Ring::new(n, w)).collect();
    let mut made = vec![0usize; rings.len()];
    let mut t = vec![0usize; vp + 1];
    let mut vsums: Vec<Vec<i32>> = (0..vp).map(|_| vec![0i32; if vx { w } else { 0 }]).collect();
    let mut vwide: Vec<Vec<f64>> = (0..vp).map(|_| vec![0f64; if vx { 0 } else { w }]).collect();
    let mut hsums = if hp > 0 && hx { vec![0i32; G * w] } else { Vec::new() };
    let mut pre = Vec::new();
    let (mut ta, mut tb) = (vec![T::default(); if hp > 1 { G * w } else { 0 }], vec![T::default(); if hp > 2 { G * w } else { 0 }]);
    for y in 0..h {
        targets(&mut t, y, vr, h);
        while made[0] <= t[0] {
            let y0 = made[0];
            let g = (h - y0).min(G);
            // slots y0 .. y0 + g are adjacent: the ring's size and y0 are multiples of G
            let ring = &mut rings[0];
            let slot = (y0 % ring.n) * w;
            let out = &mut ring.buf[slot..slot + g * w];
            let rows: [&[T]; G] = std::array::from_fn(|i| src.row(y0 + i.min(g - 1)));
            if hp == 0 {
                for (i, row) in rows.iter().take(g).enumerate() {
                    out[i * w..(i + 1) * w].copy_from_slice(row);
                }
            } else if hp == 1 {
                h_group_int(&rows, g, out, hr, true, &mut hsums, hx, &mut pre);
            } else {
                h_group_int(&rows, g, &mut ta[..g * w], hr, true, &mut hsums, hx, &mut pre);
                for p in 1..hp {
                    let from: [&[T]; G] = std::array::from_fn(|i| &ta[i.min(g - 1) * w..][..w]);
                    let to = if p == hp - 1 { &mut out[..] } else { &mut tb[..g * w] };
                    h_group_int(&from, g, to, hr, p % 2 == 0, &mut hsums, hx, &mut pre);
                    if p < hp - 1 {
                        std::mem::swap(&mut ta, &mut tb);
                    }
                }
            }
            made[0] += g;
        }
        for k in 1..vp {
            let (before, after) = rings.split_at_mut(k);
            while made[k] <= t[k] {
                let out = after[0].row_mut(made[k]);
                v_row_any(&before[k - 1], made[k], h, vr, (k - 1) % 2 == 0, &mut vsums[k - 1], &mut vwide[k - 1], out);
                made[k] += 1;
            }
        }
        let out = dst.row_mut(y);
        if vp == 0 {
            out.copy_from_slice(rings[0].row(y));
        } else {
            v_row_any(&rings[vp - 1], y, h, vr, (vp - 1) % 2 == 0, &mut vsums[vp - 1], &mut vwide[vp - 1], out);
        }
    }
}

// ---- float --------------------------------------------------------------------------------------

/// Horizontal passes over G rows at once: per row a running sum started as r times the first
/// sample plus samples 0..=r, then one sample leaves and one enters per step (G independent
/// chains, so they overlap in time).
#[inline(always)]
fn h_float<const G: usize>(src: [&[f32]; G], dst: &mut [f32], r: usize) {
    let w = src[0].len();
    let last = w - 1;
    let inv = 1.0f32 / (2 * r + 1) as f32;
    let mut s = [0f32; G];
    for g in 0..G {
        let row = src[g];
        let mut v = row[0] * r as f32;
        for k in 0..=r {
            v += row[k.min(last)];
        }
        s[g] = v;
        dst[g * w] = v * inv;
    }
    for x in 1..w {
        let add = (x + r).min(last);
        let sub = x.saturating_sub(r + 1);
        for g in 0..G {
            s[g] = (s[g] - src[g][sub]) + src[g][add];
            dst[g * w + x] = s[g] * inv;
        }
    }
}

/// Rows of one pass kept for the next: a ring of the last `n` rows made (row y in slot y % n).
struct Ring<T> {
    buf: Vec<T>,
    n: usize,
    w: usize,
}

impl<T: Copy + Default> Ring<T> {
    fn new(n: usize, w: usize) -> Ring<T> {
        Ring { buf: vec![T::default(); n * w], n, w }
    }
    #[inline(always)]
    fn row(&self, y: usize) -> &[T] {
        &self.buf[(y % self.n) * self.w..][..self.w]
    }
    #[inline(always)]
    fn row_mut(&mut self, y: usize) -> &mut [T] {
        &mut self.buf[(y % self.n) * self.w..][..self.w]
    }
}

/// The sizes of the rings of a streamed blur: ring 0 holds the rows of all horizontal passes,
/// ring k (1 <= k < vp) those of vertical pass k; the last vertical pass writes the destination.
/// For output row y, pass k is made up to row t[k]: t[vp] = y and t[k] = min(t[k + 1] + r,
/// h - 1). Pass k + 1 then reads rows t[k + 1] - r - 1 ..= t[k] of ring k, 2r + 2 rows once
/// running, rows 0 ..= t[k] at y = 0. The horizontal rows are made G at a time from a multiple
/// of G, so up to G - 1 more.
fn ring_sizes(job: &Job, h: usize) -> Vec<usize> {
    let (vr, vp) = (job.vradius, job.vpasses);
    let span = |k: usize| ((vp - k) * vr + 1).max(2 * vr + 2).min(h);
    let mut n = vec![if vp == 0 { G } else { (span(0) + G - 1).div_ceil(G) * G }];
    n.extend((1..vp).map(span));
    n
}

/// The rows each pass is to have made before output row `y` is made (see `ring_sizes`).
#[inline(always)]
fn targets(t: &mut [usize], y: usize, vr: usize, h: usize) {
    let vp = t.len() - 1;
    t[vp] = y;
    for k in (0..vp).rev() {
        t[k] = (t[k + 1] + vr).min(h - 1);
    }
}

/// Where the samples come from and go to: single precision, or half (widened exactly on reading,
/// rounded to half after every pass as R81 stores them).
enum Io<'s, 'a, 'b> {
    F32(&'s PlaneIn<'a, f32>, &'s mut PlaneOut<'b, f32>),
    F16(&'s PlaneIn<'a, u16>, &'s mut PlaneOut<'b, u16>),
}

/// Rows a horizontal pass makes at once (independent running sums that overlap in time).
const G: usize = 8;

/// One horizontal pass over the `g` rows of `rows` (`g` <= G) into `dst` (rows packed).
#[inline(always)]
fn h_group(rows: &[&[f32]; G], g: usize, dst: &mut [f32], r: usize) {
    let w = rows[0].len();
    if g == G {
        h_float::<G>(*rows, &mut dst[..G * w], r);
    } else {
        for k in 0..g {
            h_float::<1>([rows[k]], &mut dst[k * w..(k + 1) * w], r);
        }
    }
}

/// Rounds single precision samples to the nearest half, as a pass's half output is stored.
#[inline(always)]
fn round_to_half(v: &mut [f32], tmp: &mut Vec<u16>) {
    tmp.resize(v.len(), 0);
    f32_to_halves(v, tmp);
    halves_to_f32(tmp, v);
}

/// One vertical pass making row `y` from the rows of the pass before, held in `input`: a running
/// sum started at row 0 as r times the first row plus rows 0..=r, then one row leaves and one
/// enters per step (edge rows repeated), times 1 / (2r + 1).
#[inline(always)]
fn v_row(input: &Ring<f32>, y: usize, h: usize, r: usize, sum: &mut [f32], out: &mut [f32]) {
    let inv = 1.0f32 / (2 * r + 1) as f32;
    if y == 0 {
        for (s, &v) in sum.iter_mut().zip(input.row(0)) {
            *s = v * r as f32;
        }
        for k in 0..=r {
            for (s, &v) in sum.iter_mut().zip(input.row(k.min(h - 1))) {
                *s += v;
            }
        }
        for (o, &s) in out.iter_mut().zip(sum.iter()) {
            *o = s * inv;
        }
    } else {
        let add = input.row((y + r).min(h - 1));
        let sub = input.row(y.saturating_sub(r + 1));
        let w = sum.len();
        let (add, sub, out) = (&add[..w], &sub[..w], &mut out[..w]);
        for i in 0..w {
            let s = (sum[i] - sub[i]) + add[i];
            sum[i] = s;
            out[i] = s * inv;
        }
    }
}

/// Scratch of the horizontal passes.
struct HScratch {
    /// half source rows widened to single precision
    conv: Vec<f32>,
    /// rows between horizontal passes
    ta: Vec<f32>,
    tb: Vec<f32>,
    tmp16: Vec<u16>,
}

/// All horizontal passes over the rows y0 .. y0 + g of the source (g <= G) into `out` (packed).
#[inline(always)]
fn h_rows(job: &Job, io: &Io, y0: usize, g: usize, out: &mut [f32], sc: &mut HScratch) {
    let w = match io {
        Io::F32(s, _) => s.w,
        Io::F16(s, _) => s.w,
    };
    let half = matches!(io, Io::F16(..));
    let HScratch { conv, ta, tb, tmp16 } = sc;
    let rows: [&[f32]; G] = match io {
        Io::F32(s, _) => std::array::from_fn(|i| s.row(y0 + i.min(g - 1))),
        Io::F16(s, _) => {
            for i in 0..g {
                halves_to_f32(s.row(y0 + i), &mut conv[i * w..(i + 1) * w]);
            }
            std::array::from_fn(|i| &conv[i.min(g - 1) * w..][..w])
        }
    };
    let (hp, r) = (job.hpasses, job.hradius);
    if hp == 0 {
        for (i, row) in rows.iter().take(g).enumerate() {
            out[i * w..(i + 1) * w].copy_from_slice(row);
        }
        return;
    }
    if hp == 1 {
        h_group(&rows, g, out, r);
        if half {
            round_to_half(out, tmp16);
        }
        return;
    }
    h_group(&rows, g, &mut ta[..g * w], r);
    if half {
        round_to_half(&mut ta[..g * w], tmp16);
    }
    for p in 1..hp {
        let from: [&[f32]; G] = std::array::from_fn(|i| &ta[i.min(g - 1) * w..][..w]);
        let to = if p == hp - 1 { &mut out[..] } else { &mut tb[..g * w] };
        h_group(&from, g, to, r);
        if half {
            round_to_half(to, tmp16);
        }
        if p < hp - 1 {
            std::mem::swap(ta, tb);
        }
    }
}

/// The float passes streamed through rings of rows: the horizontal passes make G rows at a time
/// from the source, each vertical pass but the last keeps the rows the next one still reads, and
/// the last writes the destination. Nothing is as large as the plane (whole-plane temporaries
/// were page faults, clearing and copies: most of the filter's time). The operations per sample
/// and their order are those of the passes made one after another over the whole plane.
#[inline(always)]
fn float_stream(job: &Job, mut io: Io) {
    let (w, h) = match &io {
        Io::F32(s, _) => (s.w, s.h),
        Io::F16(s, _) => (s.w, s.h),
    };
    let half = matches!(io, Io::F16(..));
    let (vr, vp) = (job.vradius, job.vpasses);
    let mut rings: Vec<Ring<f32>> = ring_sizes(job, h).into_iter().map(|n| Ring::new(n, w)).collect();
    let mut made = vec![0usize; rings.len()];
    let mut t = vec![0usize; vp + 1];
    let mut sums: Vec<Vec<f32>> = (0..vp).map(|_| vec![0f32; w]).collect();
    let mut sc = HScratch {
        conv: if half { vec![0f32; G * w] } else { Vec::new() },
        ta: if job.hpasses > 1 { vec![0f32; G * w] } else { Vec::new() },
        tb: if job.hpasses > 2 { vec![0f32; G * w] } else { Vec::new() },
        tmp16: Vec::new(),
    };
    let mut last = if half { vec![0f32; w] } else { Vec::new() };
    for y in 0..h {
        targets(&mut t, y, vr, h);
        while made[0] <= t[0] {
            let y0 = made[0];
            let g = (h - y0).min(G);
            // slots y0 .. y0 + g are adjacent: the ring's size and y0 are multiples of G
            let ring = &mut rings[0];
            let slot = (y0 % ring.n) * w;
            h_rows(job, &io, y0, g, &mut ring.buf[slot..slot + g * w], &mut sc);
            made[0] += g;
        }
        for k in 1..vp {
            let (before, after) = rings.split_at_mut(k);
            while made[k] <= t[k] {
                let out = after[0].row_mut(made[k]);
                v_row(&before[k - 1], made[k], h, vr, &mut sums[k - 1], out);
                if half {
                    round_to_half(out, &mut sc.tmp16);
                }
                made[k] += 1;
            }
        }
        match &mut io {
            Io::F32(_, d) => {
                let out = d.row_mut(y);
                if vp == 0 {
                    out.copy_from_slice(rings[0].row(y));
                } else {
                    v_row(&rings[vp - 1], y, h, vr, &mut sums[vp - 1], out);
                }
            }
            Io::F16(_, d) => {
                // the conversion to half is the last pass's rounding
                let row = if vp == 0 {
                    rings[0].row(y)
                } else {
                    v_row(&rings[vp - 1], y, h, vr, &mut sums[vp - 1], &mut last);
                    &last[..]
                };
                f32_to_halves(row, d.row_mut(y));
            }
        }
    }
}

#[inline(always)]
fn f32_plane(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>) {
    float_stream(job, Io::F32(src, dst))
}

#[inline(always)]
fn half_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>) {
    float_stream(job, Io::F16(src, dst))
}

#[inline(always)]
fn u8_plane(job: &Job, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>) {
    int_plane(job, src, dst, 255)
}
#[inline(always)]
fn u16_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>, max: i32) {
    int_plane(job, src, dst, max)
}

multiversion!(fn plane_u8 => u8_plane(job: &Job, src: &PlaneIn<u8>, dst: &mut PlaneOut<u8>));
multiversion!(fn plane_u16 => u16_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>, max: i32));
multiversion!(fn plane_f32 => f32_plane(job: &Job, src: &PlaneIn<f32>, dst: &mut PlaneOut<f32>));
multiversion!(fn plane_f16 => half_plane(job: &Job, src: &PlaneIn<u16>, dst: &mut PlaneOut<u16>));

pub fn run(job: &Job, kind: Kind, src: &Frame, dst: &mut FrameMut, p: usize, stream: bool) {
    match kind {
        Kind::U8 => plane_u8(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::U16 => {
            let max = src.video_format().map_or(65535, |f| ((1i64 << f.bitsPerSample) - 1) as i32);
            plane_u16(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream), max)
        }
        Kind::F32 => plane_f32(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::F16 => plane_f16(job, &PlaneIn::new(src, p), &mut PlaneOut::new(dst, p).streamed(stream)),
        Kind::U32 => unreachable!("rejected when the filter is made"),
    }
}
