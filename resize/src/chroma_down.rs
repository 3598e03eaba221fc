//! The fast path of `chroma_mask`: one full-size plane brought down to one chroma-size plane of a
//! 4:2:0, 4:2:2 or 4:4:0 format, bit for bit what zimg's bilinear 4:4:4 to 4:2:x conversion
//! gives for a chroma plane, without zimg converting three planes of a whole frame. What zimg
//! does was learned by running it (and R81) on impulses, noise and extreme values:
//!
//! - an output sample is a tent of half-width two source samples, centred where the chroma
//!   location puts it; the weights are sixteenths, and samples past an edge are mirrored onto it
//!   (-1 is 0, n is n - 1). A field is an image of its own, its chroma a quarter or a half of a
//!   field row off the progressive place.
//! - the vertical pass runs first, then the horizontal one.
//! - integers of 9-16 bits: each pass rounds, (sum + 8) >> 4, and clamps to the depth's maximum.
//!   8 bits: zimg works on the samples shifted up to 16 bits, where both passes are exact, and
//!   rounds to 8 bits half to even at the end: that is the exact weighted sum over 256 (or 16
//!   with one pass), rounded half to even.
//! - single precision: an output reads the samples under its tent (three where it is centred on
//!   a sample, else four), the window moved inside the plane at the edges, zero weights included;
//!   the window's samples at even and at odd places feed two chains of fused multiply-adds, added
//!   at the end. Half precision is widened first, rounded to half between the passes and at the
//!   end. Only a NaN's sign and payload may differ from zimg's (which NaN an operation passes on
//!   follows the compiler's operand order): MaskedMerge clamps a NaN mask away, PreMultiply gives NaN
//!   either way.
//!
//! The float arithmetic is that of zimg's AVX2 and AVX-512 code; elsewhere `covers` says no and
//! zimg does the work.
use std::ops::Range;

/// The samples of a plane.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Samples {
    U8,
    /// 9 to 16 bits, `max` being 2^bits - 1.
    U16 { max: u16 },
    F32,
    F16,
}

impl Samples {
    fn bytes(self) -> usize {
        match self {
            Samples::U8 => 1,
            Samples::U16 { .. } | Samples::F16 => 2,
            Samples::F32 => 4,
        }
    }
}

/// What sites the chroma: the subsampling (0 or 1 each way), the chroma location (0-5) and
/// whether the frame is resampled field by field.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Siting {
    pub ssw: u32,
    pub ssh: u32,
    pub location: u8,
    pub fields: bool,
}

/// A plane read: `height` rows of `width` samples, `stride` bytes apart.
#[derive(Clone, Copy)]
pub(crate) struct Src {
    pub ptr: *const u8,
    pub stride: isize,
    pub width: usize,
    pub height: usize,
}

/// A plane written, as `Src`.
pub(crate) struct Dst {
    pub ptr: *mut u8,
    pub stride: isize,
}

/// Whether `downsample` gives zimg's result for these: the subsamplings it knows, planes of at
/// least four samples (fields included) along each resampled way, and float only where the
/// machine runs the zimg code it copies.
pub(crate) fn covers(samples: Samples, s: &Siting, width: usize, height: usize) -> bool {
    let rows = if s.fields { height / 2 } else { height };
    // (fields of four rows, windows moved at both edges, sum otherwise there)
    let sizes = (s.ssw == 0 || (width >= 6 && width % 2 == 0)) && (s.ssh == 0 || (rows >= 6 && rows % 2 == 0));
    let float_ok = !matches!(samples, Samples::F32 | Samples::F16) || float_like_zimg();
    s.ssw <= 1 && s.ssh <= 1 && s.ssw + s.ssh > 0 && s.location <= 5 && (!s.fields || s.ssh == 1) && sizes && float_ok
}

/// zimg's float kernels fuse multiply-adds from AVX2 on; without FMA (or off x86) ours would
/// differ from them.
fn float_like_zimg() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        vsvk_plugin_api::simd::has_avx2()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// One output sample: `taps` (3 or 4) source samples from `start`, weighted in sixteenths
/// (`w[3]` is 0 for three).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Window {
    start: usize,
    taps: usize,
    w: [u16; 4],
}

/// The windows of `count` outputs over `n` source samples, output `i` centred at `centre(i)`
/// quarters of a sample; None where a tent does not fit one window. A window holds the samples
/// under the tent (three where it is centred on one), moved inside the plane at the edges, with
/// the weights of the mirrored samples added where they land.
fn windows(n: usize, count: usize, centre: impl Fn(usize) -> i64) -> Option<Vec<Window>> {
    let n_i = n as i64;
    (0..count)
        .map(|i| {
            let c = centre(i);
            let first = (c - 8).div_euclid(4) + 1;
            let taps = if c % 4 == 0 { 3 } else { 4 };
            let start = first.min(n_i - taps as i64).max(0);
            let mut w = [0u16; 4];
            for j in first..first + taps as i64 {
                let folded = if j < 0 { -j - 1 } else if j >= n_i { 2 * n_i - 1 - j } else { j };
                let at = usize::try_from(folded - start).ok().filter(|&t| t < taps)?;
                w[at] += (8 - (4 * j - c).abs()) as u16;
            }
            Some(Window { start: start as usize, taps, w })
        })
        .collect()
}

/// The outputs whose windows are the middle one's, moved two samples per output and with a
/// fourth sample inside the plane: the run the inner loops take without looking at windows.
fn interior(wins: &[Window], n: usize) -> (Range<usize>, isize, Window) {
    let mid = wins.len() / 2;
    let offset = |i: usize| wins[i].start as isize - 2 * i as isize;
    let (d, m) = (offset(mid), wins[mid]);
    let same = |i: usize| offset(i) == d && wins[i].w == m.w && wins[i].taps == m.taps && wins[i].start + 4 <= n;
    if !same(mid) {
        return (mid..mid, d, m);
    }
    let mut lo = mid;
    while lo > 0 && same(lo - 1) {
        lo -= 1;
    }
    let mut hi = mid + 1;
    while hi < wins.len() && same(hi) {
        hi += 1;
    }
    (lo..hi, d, m)
}

/// A horizontal pass: its windows and, worked out once a frame, their interior run.
pub(super) struct Across {
    wins: Vec<Window>,
    run: Range<usize>,
    d: isize,
    m: Window,
}

impl Across {
    fn new(wins: Vec<Window>, n: usize) -> Across {
        let (run, d, m) = interior(&wins, n);
        Across { wins, run, d, m }
    }
}

/// Horizontal centres in quarters: left-sited locations (0, 2, 4) on the even sample, the others
/// half-way to the next.
fn centre_h(location: u8) -> impl Fn(usize) -> i64 {
    let off = if location % 2 == 0 { 0 } else { 2 };
    move |i| 8 * i as i64 + off
}

/// Vertical centres in quarters, of a progressive frame or of the field of `parity` (its rows
/// counted in the field): centre (0, 1) half-way, top (2, 3) on the even row, bottom (4, 5) on
/// the odd one. A field's chroma row k is the frame's chroma row 2k + parity.
fn centre_v(location: u8, parity: Option<i64>) -> impl Fn(usize) -> i64 {
    let off = match location {
        0 | 1 => 2,
        2 | 3 => 0,
        _ => 4,
    };
    move |k| match parity {
        None => 8 * k as i64 + off,
        Some(p) => 8 * k as i64 + 2 * p + off / 2,
    }
}

/// Brings `src` (the full-size plane) down to `dst`, a plane of `src.width >> ssw` by
/// `src.height >> ssh` samples. Only for what `covers` accepts.
///
/// # Safety
/// `src` describes a readable plane and `dst` a writable one of that size and `samples`, neither
/// overlapping the other, with rows aligned for the sample type.
pub(crate) unsafe fn downsample(src: Src, dst: Dst, samples: Samples, s: &Siting) {
    debug_assert!(covers(samples, s, src.width, src.height));
    let (w, h) = (src.width, src.height);
    let h_wins = if s.ssw == 1 { Some(Across::new(windows(w, w / 2, centre_h(s.location)).expect("covered sizes"), w)) } else { None };
    let parities: &[Option<i64>] = if s.fields { &[Some(0), Some(1)] } else { &[None] };
    for &parity in parities {
        let (rows, first, step) = match parity {
            Some(p) => (h / 2, p as usize, 2),
            None => (h, 0, 1),
        };
        let v_wins = if s.ssh == 1 { windows(rows, rows / 2, centre_v(s.location, parity)).expect("covered sizes") } else { Vec::new() };
        let out_rows = if s.ssh == 1 { rows / 2 } else { rows };
        for k in 0..out_rows {
            // the source rows of output k (the same row four times, weight 16, without a
            // vertical pass)
            // (a three-tap window names its last row twice, the second time with no weight)
            let (ys, vw) = match v_wins.get(k) {
                Some(win) => (std::array::from_fn(|t| first + step * (win.start + t.min(win.taps - 1))), Some((win.w, win.taps))),
                None => ([first + step * k; 4], None),
            };
            let y_out = first + step * k;
            // SAFETY: the rows lie inside the planes (the caller's contract); the windows stay
            // inside the source (`windows`).
            unsafe {
                let row = |y: usize| src.ptr.offset(y as isize * src.stride);
                let out = dst.ptr.offset(y_out as isize * dst.stride);
                row_down(ys.map(row), out, w, samples, vw, h_wins.as_ref());
            }
        }
    }
}

/// One output row from the four source rows at `rows`.
///
/// # Safety
/// The rows hold `w` samples, the output `w >> ssw`, of `samples`' type, suitably aligned.
#[inline(never)]
unsafe fn row_down(rows: [*const u8; 4], out: *mut u8, w: usize, samples: Samples, vw: Option<([u16; 4], usize)>, h_wins: Option<&Across>) {
    let n_out = if h_wins.is_some() { w / 2 } else { w };
    // SAFETY: as the caller promises.
    let row = |p: *const u8| unsafe { std::slice::from_raw_parts(p, w * samples.bytes()) };
    // SAFETY: as the caller promises.
    let out = unsafe { std::slice::from_raw_parts_mut(out, n_out * samples.bytes()) };
    match samples {
        Samples::U8 => {
            let mut tmp = vec![0u16; w];
            kernels::vertical_u8(rows.map(row), vw.map_or([16, 0, 0, 0], |v| v.0), &mut tmp);
            // the vertical sums weigh sixteen in all (a row without a pass too), the horizontal
            // ones another sixteen
            let shift = if h_wins.is_some() { 8 } else { 4 };
            match h_wins {
                Some(wins) => kernels::horizontal_u8(&tmp, wins, out, shift),
                None => kernels::narrow_u8(&tmp, out, shift),
            }
        }
        Samples::U16 { max } => {
            let mut tmp = Vec::new();
            let v: &[u16] = match vw {
                Some((vw, _)) => {
                    tmp.resize(w, 0);
                    kernels::vertical_u16(rows.map(|r| cast(row(r))), vw, max, &mut tmp);
                    &tmp
                }
                None => cast(row(rows[0])),
            };
            let out: &mut [u16] = cast_mut(out);
            match h_wins {
                Some(wins) => kernels::horizontal_u16(v, wins, out, max),
                None => out.copy_from_slice(v),
            }
        }
        Samples::F32 => {
            let mut tmp = Vec::new();
            let v: &[f32] = match vw {
                Some((vw, taps)) => {
                    tmp.resize(w, 0.0);
                    kernels::vertical_f32(rows.map(|r| cast(row(r))), vw, taps == 4, &mut tmp);
                    &tmp
                }
                None => cast(row(rows[0])),
            };
            let out: &mut [f32] = cast_mut(out);
            match h_wins {
                Some(wins) => kernels::horizontal_f32(v, wins, out),
                None => out.copy_from_slice(v),
            }
        }
        Samples::F16 => {
            let wide: Vec<Vec<f32>> = rows
                .iter()
                .map(|&r| {
                    let mut f = vec![0f32; w];
                    vsvk_plugin_api::simd::halves_to_f32(cast(row(r)), &mut f);
                    f
                })
                .collect();
            let mut v = vec![0f32; w];
            match vw {
                Some((vw, taps)) => {
                    kernels::vertical_f32(std::array::from_fn(|t| &wide[t][..]), vw, taps == 4, &mut v);
                    // zimg keeps the vertical pass's result in half precision
                    let mut halves = vec![0u16; w];
                    vsvk_plugin_api::simd::f32_to_halves(&v, &mut halves);
                    vsvk_plugin_api::simd::halves_to_f32(&halves, &mut v);
                }
                None => v.copy_from_slice(&wide[0]),
            }
            let mut o = vec![0f32; n_out];
            match h_wins {
                Some(wins) => kernels::horizontal_f32(&v, wins, &mut o),
                None => o.copy_from_slice(&v),
            }
            vsvk_plugin_api::simd::f32_to_halves(&o, cast_mut(out));
        }
    }
}

/// Bytes as samples of a wider type.
fn cast<T: bytemuck_lite::Sample>(b: &[u8]) -> &[T] {
    assert!(b.as_ptr().align_offset(std::mem::align_of::<T>()) == 0 && b.len() % std::mem::size_of::<T>() == 0);
    // SAFETY: aligned, whole samples, and every bit pattern is a valid sample.
    unsafe { std::slice::from_raw_parts(b.as_ptr().cast(), b.len() / std::mem::size_of::<T>()) }
}

fn cast_mut<T: bytemuck_lite::Sample>(b: &mut [u8]) -> &mut [T] {
    assert!(b.as_ptr().align_offset(std::mem::align_of::<T>()) == 0 && b.len() % std::mem::size_of::<T>() == 0);
    // SAFETY: as in `cast`.
    unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr().cast(), b.len() / std::mem::size_of::<T>()) }
}

mod bytemuck_lite {
    /// Plain sample types: any bits are a value.
    pub trait Sample: Copy {}
    impl Sample for u16 {}
    impl Sample for f32 {}
}

/// The loops, each compiled for the wider instruction sets where the machine has them.
mod kernels {
    use super::Across;
    use vsvk_plugin_api::multiversion;

    /// Rounds `s / 2^shift` half to even (zimg's last step at 8 bits).
    #[inline(always)]
    fn rne(s: u32, shift: u32) -> u8 {
        ((s + (1 << (shift - 1)) - 1 + ((s >> shift) & 1)) >> shift) as u8
    }

    #[inline(always)]
    fn vertical_u8_impl(rows: [&[u8]; 4], w: [u16; 4], out: &mut [u16]) {
        let [a, b, c, d] = rows;
        for ((((o, &a), &b), &c), &d) in out.iter_mut().zip(a).zip(b).zip(c).zip(d) {
            // at most 255 * 16: no overflow
            *o = w[0] * a as u16 + w[1] * b as u16 + w[2] * c as u16 + w[3] * d as u16;
        }
    }
    multiversion!(pub(super) fn vertical_u8 => vertical_u8_impl(rows: [&[u8]; 4], w: [u16; 4], out: &mut [u16]));

    #[inline(always)]
    fn narrow_u8_impl(v: &[u16], out: &mut [u8], shift: u32) {
        for (o, &s) in out.iter_mut().zip(v) {
            *o = rne(s as u32, shift);
        }
    }
    multiversion!(pub(super) fn narrow_u8 => narrow_u8_impl(v: &[u16], out: &mut [u8], shift: u32));

    #[inline(always)]
    fn horizontal_u8_impl(v: &[u16], a: &Across, out: &mut [u8], shift: u32) {
        let (run, d, w, wins) = (a.run.clone(), a.d, a.m.w, &a.wins[..]);
        let from = (2 * run.start as isize + d) as usize;
        let src = &v[from..from + 2 * run.len() + 2];
        for ((o, p), q) in out[run.clone()].iter_mut().zip(src.chunks_exact(2)).zip(src[2..].chunks_exact(2)) {
            // 16-bit sums: at most 255 * 256
            let s = w[0] * p[0] + w[1] * p[1] + w[2] * q[0] + w[3] * q[1];
            *o = rne(s as u32, shift);
        }
        for i in (0..run.start).chain(run.end..wins.len()) {
            let win = &wins[i];
            let s: u32 = (0..win.taps).map(|t| win.w[t] as u32 * v[win.start + t] as u32).sum();
            out[i] = rne(s, shift);
        }
    }
    multiversion!(pub(super) fn horizontal_u8 => horizontal_u8_impl(v: &[u16], a: &Across, out: &mut [u8], shift: u32));

    #[inline(always)]
    fn vertical_u16_impl(rows: [&[u16]; 4], w: [u16; 4], max: u16, out: &mut [u16]) {
        let [a, b, c, d] = rows;
        let w = w.map(u32::from);
        for ((((o, &a), &b), &c), &d) in out.iter_mut().zip(a).zip(b).zip(c).zip(d) {
            let s = w[0] * a as u32 + w[1] * b as u32 + w[2] * c as u32 + w[3] * d as u32;
            *o = ((s + 8) >> 4).min(max as u32) as u16;
        }
    }
    multiversion!(pub(super) fn vertical_u16 => vertical_u16_impl(rows: [&[u16]; 4], w: [u16; 4], max: u16, out: &mut [u16]));

    #[inline(always)]
    fn horizontal_u16_impl(v: &[u16], a: &Across, out: &mut [u16], max: u16) {
        let (run, d, w, wins) = (a.run.clone(), a.d, a.m.w, &a.wins[..]);
        let from = (2 * run.start as isize + d) as usize;
        let src = &v[from..from + 2 * run.len() + 2];
        let (w, max) = (w.map(u32::from), max as u32);
        for ((o, p), q) in out[run.clone()].iter_mut().zip(src.chunks_exact(2)).zip(src[2..].chunks_exact(2)) {
            let s = w[0] * p[0] as u32 + w[1] * p[1] as u32 + w[2] * q[0] as u32 + w[3] * q[1] as u32;
            *o = ((s + 8) >> 4).min(max) as u16;
        }
        for i in (0..run.start).chain(run.end..wins.len()) {
            let win = &wins[i];
            let s: u32 = (0..win.taps).map(|t| win.w[t] as u32 * v[win.start + t] as u32).sum();
            out[i] = ((s + 8) >> 4).min(max) as u16;
        }
    }
    multiversion!(pub(super) fn horizontal_u16 => horizontal_u16_impl(v: &[u16], a: &Across, out: &mut [u16], max: u16));

    /// zimg's order: the even places of the window in one chain, the odd in another (three taps:
    /// the odd chain is one product).
    #[inline(always)]
    fn taps4(w: [f32; 4], x: [f32; 4]) -> f32 {
        w[2].mul_add(x[2], w[0] * x[0]) + w[3].mul_add(x[3], w[1] * x[1])
    }

    #[inline(always)]
    fn taps3(w: [f32; 4], x: [f32; 3]) -> f32 {
        w[2].mul_add(x[2], w[0] * x[0]) + w[1] * x[1]
    }

    fn sixteenths(w: [u16; 4]) -> [f32; 4] {
        w.map(|w| w as f32 / 16.0)
    }

    #[inline(always)]
    fn vertical_f32_impl(rows: [&[f32]; 4], w: [u16; 4], four: bool, out: &mut [f32]) {
        let [a, b, c, d] = rows;
        let w = sixteenths(w);
        if four {
            for ((((o, &a), &b), &c), &d) in out.iter_mut().zip(a).zip(b).zip(c).zip(d) {
                *o = taps4(w, [a, b, c, d]);
            }
        } else {
            for (((o, &a), &b), &c) in out.iter_mut().zip(a).zip(b).zip(c) {
                *o = taps3(w, [a, b, c]);
            }
        }
    }
    multiversion!(pub(super) fn vertical_f32 => vertical_f32_impl(rows: [&[f32]; 4], w: [u16; 4], four: bool, out: &mut [f32]));

    #[inline(always)]
    fn horizontal_f32_impl(v: &[f32], a: &Across, out: &mut [f32]) {
        let (run, d, m, wins) = (a.run.clone(), a.d, a.m, &a.wins[..]);
        let from = (2 * run.start as isize + d) as usize;
        let src = &v[from..from + 2 * run.len() + 2];
        let w = sixteenths(m.w);
        let pairs = out[run.clone()].iter_mut().zip(src.chunks_exact(2)).zip(src[2..].chunks_exact(2));
        if m.taps == 4 {
            for ((o, p), q) in pairs {
                *o = taps4(w, [p[0], p[1], q[0], q[1]]);
            }
        } else {
            for ((o, p), q) in pairs {
                *o = taps3(w, [p[0], p[1], q[0]]);
            }
        }
        for i in (0..run.start).chain(run.end..wins.len()) {
            let win = &wins[i];
            let w = sixteenths(win.w);
            out[i] = if win.taps == 4 { taps4(w, std::array::from_fn(|t| v[win.start + t])) } else { taps3(w, std::array::from_fn(|t| v[win.start + t])) };
        }
    }
    multiversion!(pub(super) fn horizontal_f32 => horizontal_f32_impl(v: &[f32], a: &Across, out: &mut [f32]));
}
