//! Plane views, edge mirroring, padded row buffers, half-float conversion and the AVX2 dispatch
//! used by the neighbourhood filters.
use std::marker::PhantomData;

use vsvk_plugin_api::frame::{Frame, FrameMut};

/// Read access to one plane of a frame, row by row.
pub struct PlaneIn<'a, T> {
    base: *const u8,
    stride: isize,
    pub w: usize,
    pub h: usize,
    _m: PhantomData<&'a [T]>,
}

impl<'a, T: Copy> PlaneIn<'a, T> {
    pub fn new(f: &'a Frame, p: usize) -> Self {
        let pl = f.plane::<T>(p as i32).expect("a CPU plane");
        PlaneIn { base: pl.as_ptr().cast(), stride: pl.stride(), w: pl.width, h: pl.height, _m: PhantomData }
    }
    #[inline(always)]
    pub fn row(&self, y: usize) -> &'a [T] {
        assert!(y < self.h);
        // SAFETY: the row lies inside the plane and holds `w` samples of T (the format says so).
        unsafe { std::slice::from_raw_parts(self.base.offset(y as isize * self.stride).cast::<T>(), self.w) }
    }
}

/// Write access to one plane of a frame this filter owns.
pub struct PlaneOut<'a, T: Copy> {
    base: *mut u8,
    stride: isize,
    pub w: usize,
    pub h: usize,
    /// Rows streamed past the caches (see `crate::stream`): the row handed out is a buffer,
    /// written to the plane when another row is asked for or the view is dropped. Kernels write
    /// each row whole before they move to another, and never come back to it.
    stream: Option<(Vec<T>, Option<usize>)>,
    _m: PhantomData<&'a mut [T]>,
}

impl<'a, T: Copy> PlaneOut<'a, T> {
    pub fn new(f: &'a mut FrameMut, p: usize) -> Self {
        let mut pl = f.plane_mut::<T>(p as i32).expect("a CPU plane");
        PlaneOut { base: pl.as_mut_ptr().cast(), stride: pl.stride(), w: pl.width, h: pl.height, stream: None, _m: PhantomData }
    }
    /// The same view, its rows written with streaming stores when `on`.
    pub fn streamed(mut self, on: bool) -> Self
    where
        T: Default,
    {
        if on {
            self.stream = Some((vec![T::default(); self.w], None));
        }
        self
    }
    #[inline(always)]
    pub fn row_mut(&mut self, y: usize) -> &mut [T] {
        assert!(y < self.h);
        if self.stream.is_some() {
            return self.stream_row(y);
        }
        // SAFETY: rows are disjoint and inside the plane; `&mut self` keeps one row borrowed at a time.
        unsafe { std::slice::from_raw_parts_mut(self.base.offset(y as isize * self.stride).cast::<T>(), self.w) }
    }
    #[inline(never)]
    fn stream_row(&mut self, y: usize) -> &mut [T] {
        self.flush_unless(Some(y));
        let (buf, held) = self.stream.as_mut().expect("a streamed view");
        *held = Some(y);
        buf
    }
    /// Writes the held row out unless it is `keep`.
    fn flush_unless(&mut self, keep: Option<usize>) {
        let Some((buf, held)) = self.stream.as_mut() else { return };
        match *held {
            Some(r) if Some(r) != keep => {
                // SAFETY: row `r` is inside the plane (checked when handed out) and holds `w`
                // samples; nothing else refers to it while the view is borrowed mutably.
                let row = unsafe { std::slice::from_raw_parts_mut(self.base.offset(r as isize * self.stride).cast::<T>(), self.w) };
                crate::stream::copy_row(buf, row);
                *held = None;
            }
            _ => {}
        }
    }
}

impl<T: Copy> Drop for PlaneOut<'_, T> {
    fn drop(&mut self) {
        if self.stream.is_some() {
            self.flush_unless(None);
            crate::stream::fence();
        }
    }
}

/// Symmetric extension with the edge sample repeated (.. 1 0 | 0 1 2 .. n-1 | n-1 n-2 ..),
/// periodic beyond one reflection.
#[inline(always)]
pub fn sym(i: isize, n: usize) -> usize {
    if (0..n as isize).contains(&i) {
        // most calls: no division
        return i as usize;
    }
    let n2 = 2 * n as isize;
    let m = i.rem_euclid(n2) as usize;
    if m < n {
        m
    } else {
        2 * n - 1 - m
    }
}

#[inline(always)]
pub fn clamp_idx(i: isize, n: usize) -> usize {
    i.clamp(0, n as isize - 1) as usize
}

/// The rows of a half-float plane in single precision, for a 3x3 window moving down the plane:
/// row r in slot r % 3, each converted once, when a window first needs it (the whole plane
/// converted up front cost a zeroed plane-sized buffer and a pass over memory).
pub struct HalfRows {
    w: usize,
    buf: Vec<f32>,
    slot_row: [usize; 3],
}

impl HalfRows {
    pub fn new(w: usize) -> HalfRows {
        HalfRows { w, buf: vec![0.0; 3 * w], slot_row: [usize::MAX; 3] }
    }

    /// Rows y - 1, y and y + 1 of `src` (clamped to the plane) as single precision.
    pub fn window(&mut self, src: &PlaneIn<u16>, y: usize) -> [&[f32]; 3] {
        let rows = [-1isize, 0, 1].map(|d| clamp_idx(y as isize + d, src.h));
        for r in rows {
            // rows y - 1..=y + 1 have distinct slots; a clamped one is row y
            if self.slot_row[r % 3] != r {
                halves_to_f32(src.row(r), &mut self.buf[(r % 3) * self.w..][..self.w]);
                self.slot_row[r % 3] = r;
            }
        }
        rows.map(|r| &self.buf[(r % 3) * self.w..][..self.w])
    }
}

/// Anything that hands out rows of samples.
pub trait RowSrc<T> {
    fn w(&self) -> usize;
    fn h(&self) -> usize;
    fn row(&self, y: usize) -> &[T];
}

impl<T: Copy> RowSrc<T> for PlaneIn<'_, T> {
    fn w(&self) -> usize {
        self.w
    }
    fn h(&self) -> usize {
        self.h
    }
    #[inline(always)]
    fn row(&self, y: usize) -> &[T] {
        PlaneIn::row(self, y)
    }
}

/// Anything that takes rows of output: `row(y)` is where row y goes, `done(y)` once it is written.
pub trait RowDst<U> {
    fn row(&mut self, y: usize) -> &mut [U];
    fn done(&mut self, _y: usize) {}
}

impl<U: Copy> RowDst<U> for PlaneOut<'_, U> {
    #[inline(always)]
    fn row(&mut self, y: usize) -> &mut [U] {
        self.row_mut(y)
    }
}

impl<U: Copy + Default> RowDst<U> for Packed<U> {
    #[inline(always)]
    fn row(&mut self, y: usize) -> &mut [U] {
        self.row_mut(y)
    }
}

/// Single-precision rows written to a half-float plane.
pub struct HalfOut<'a, 'b> {
    pub out: &'b mut PlaneOut<'a, u16>,
    pub tmp: Vec<f32>,
}

impl RowDst<f32> for HalfOut<'_, '_> {
    #[inline(always)]
    fn row(&mut self, _y: usize) -> &mut [f32] {
        &mut self.tmp
    }
    #[inline(always)]
    fn done(&mut self, y: usize) {
        f32_to_halves(&self.tmp, self.out.row_mut(y));
    }
}

/// A plane held in memory, rows packed.
pub struct Packed<T> {
    pub buf: Vec<T>,
    pub w: usize,
    pub h: usize,
}

impl<T: Copy + Default> Packed<T> {
    pub fn new(w: usize, h: usize) -> Packed<T> {
        Packed { buf: vec![T::default(); w * h], w, h }
    }
    #[inline(always)]
    pub fn row_mut(&mut self, y: usize) -> &mut [T] {
        &mut self.buf[y * self.w..][..self.w]
    }
}

impl<T: Copy> RowSrc<T> for Packed<T> {
    fn w(&self) -> usize {
        self.w
    }
    fn h(&self) -> usize {
        self.h
    }
    #[inline(always)]
    fn row(&self, y: usize) -> &[T] {
        &self.buf[y * self.w..][..self.w]
    }
}

/// The rows around one output row, each copied once with `r` mirrored columns on each side: a
/// window of `rows` slots that follows the output row down the plane (so it stays in cache).
pub struct PadRows<U> {
    pw: usize,
    r: usize,
    h: usize,
    rows: usize,
    slot_row: Vec<usize>,
    buf: Vec<U>,
}

impl<U: Copy + Default> PadRows<U> {
    pub fn new(w: usize, h: usize, r: usize, rows: usize) -> PadRows<U> {
        let pw = w + 2 * r;
        PadRows { pw, r, h, rows, slot_row: vec![usize::MAX; rows], buf: vec![U::default(); rows * pw] }
    }

    fn needed(&self, y: usize, k: usize) -> usize {
        sym(y as isize + k as isize - (self.rows / 2) as isize, self.h)
    }

    /// Makes the rows of the window around output row `y` available.
    pub fn prepare(&mut self, src: &impl RowSrc<U>, y: usize) {
        self.prepare_conv(src, y, |a, b| b.copy_from_slice(a));
    }

    /// The same from samples of another type, converted by `conv`.
    #[inline(always)]
    pub fn prepare_conv<T: Copy>(&mut self, src: &impl RowSrc<T>, y: usize, conv: impl Fn(&[T], &mut [U])) {
        for s in 0..self.rows {
            let row = self.slot_row[s];
            if row != usize::MAX && !(0..self.rows).any(|k| self.needed(y, k) == row) {
                self.slot_row[s] = usize::MAX;
            }
        }
        for k in 0..self.rows {
            let row = self.needed(y, k);
            if self.slot_row.contains(&row) {
                continue;
            }
            let s = self.slot_row.iter().position(|&r| r == usize::MAX).expect("a window has as many slots as rows");
            self.slot_row[s] = row;
            let (r, pw) = (self.r, self.pw);
            let src_row = src.row(row);
            let w = src_row.len();
            let out = &mut self.buf[s * pw..(s + 1) * pw];
            conv(src_row, &mut out[r..r + w]);
            for k in 0..r {
                out[r - 1 - k] = out[r + sym(-1 - k as isize, w)];
                out[r + w + k] = out[r + sym((w + k) as isize, w)];
            }
        }
    }

    /// The padded rows of the window around `y` (after `prepare(y)`), top to bottom.
    pub fn window(&self, y: usize) -> Vec<&[U]> {
        (0..self.rows)
            .map(|k| {
                let row = self.needed(y, k);
                let s = self.slot_row.iter().position(|&r| r == row).expect("prepared");
                &self.buf[s * self.pw..(s + 1) * self.pw]
            })
            .collect()
    }
}

/// `v` clamped to 0..=max (NaN to 0) as an integer, without the saturating conversion's checks
/// (which keep loops from vectorising).
#[inline(always)]
pub fn clamp_to_int(v: f32, max: f32) -> i32 {
    let v = v.max(0.0).min(max);
    // SAFETY: v is finite and within 0..=max, which fits i32 (max is at most 65535).
    unsafe { v.to_int_unchecked::<i32>() }
}

/// Integer samples.
pub trait IntPx: Copy + Default + Ord + Send + Sync + 'static {
    /// A type that holds the sum of eight samples.
    type Wide: Copy + Default + std::ops::Add<Output = Self::Wide> + std::ops::Shr<u32, Output = Self::Wide>;
    const BITS: u32;
    fn get(self) -> i32;
    fn put(v: i32) -> Self;
    fn wide(self) -> Self::Wide;
    fn wide_const(v: u32) -> Self::Wide;
    fn from_wide(v: Self::Wide) -> Self;
    fn sat_add(self, o: Self) -> Self;
    fn sat_sub(self, o: Self) -> Self;
}
impl IntPx for u8 {
    type Wide = u16;
    const BITS: u32 = 8;
    #[inline(always)]
    fn get(self) -> i32 {
        self as i32
    }
    #[inline(always)]
    fn put(v: i32) -> Self {
        v as u8
    }
    #[inline(always)]
    fn wide(self) -> u16 {
        self as u16
    }
    #[inline(always)]
    fn wide_const(v: u32) -> u16 {
        v as u16
    }
    #[inline(always)]
    fn from_wide(v: u16) -> Self {
        v as u8
    }
    #[inline(always)]
    fn sat_add(self, o: Self) -> Self {
        self.saturating_add(o)
    }
    #[inline(always)]
    fn sat_sub(self, o: Self) -> Self {
        self.saturating_sub(o)
    }
}
impl IntPx for u16 {
    type Wide = u32;
    const BITS: u32 = 16;
    #[inline(always)]
    fn get(self) -> i32 {
        self as i32
    }
    #[inline(always)]
    fn put(v: i32) -> Self {
        v as u16
    }
    #[inline(always)]
    fn wide(self) -> u32 {
        self as u32
    }
    #[inline(always)]
    fn wide_const(v: u32) -> u32 {
        v
    }
    #[inline(always)]
    fn from_wide(v: u32) -> Self {
        v as u16
    }
    #[inline(always)]
    fn sat_add(self, o: Self) -> Self {
        self.saturating_add(o)
    }
    #[inline(always)]
    fn sat_sub(self, o: Self) -> Self {
        self.saturating_sub(o)
    }
}

// Half conversions and CPU dispatch live in the plugin layer, shared with the crates built on it.
pub use vsvk_plugin_api::simd::{f32_to_half, f32_to_halves, half_to_f32, halves_to_f32, has_avx2, has_avx512};
#[cfg(target_arch = "x86_64")]
pub use vsvk_plugin_api::simd::has_f16c;
pub use vsvk_plugin_api::multiversion;
