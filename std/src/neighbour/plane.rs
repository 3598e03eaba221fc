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

/// IEEE half (as bits) to single precision; exact.
#[inline(always)]
pub fn half_to_f32(h: u16) -> f32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = if exp == 0x1f {
        sign | 0x7f80_0000 | (man << 13)
    } else if exp == 0 {
        if man == 0 {
            sign
        } else {
            // subnormal: value = man * 2^-24
            let v = man as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -v } else { v };
        }
    } else {
        sign | ((exp + 112) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

/// Single precision to IEEE half bits, rounding to nearest even.
#[inline(always)]
pub fn f32_to_half(v: f32) -> u16 {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let round = (rem > mid || (rem == mid && half & 1 == 1)) as u32;
        return sign | (half + round) as u16;
    }
    let half = ((e as u32) << 10) | (mant >> 13);
    let rem = mant & 0x1fff;
    let round = (rem > 0x1000 || (rem == 0x1000 && half & 1 == 1)) as u32;
    sign | (half + round) as u16
}

pub fn halves_to_f32(src: &[u16], dst: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if has_f16c() {
        // SAFETY: the CPU has F16C and AVX (checked).
        unsafe { halves_to_f32_f16c(src, dst) };
        return;
    }
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = half_to_f32(s);
    }
}

pub fn f32_to_halves(src: &[f32], dst: &mut [u16]) {
    #[cfg(target_arch = "x86_64")]
    if has_f16c() {
        // SAFETY: the CPU has F16C and AVX (checked).
        unsafe { f32_to_halves_f16c(src, dst) };
        return;
    }
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = f32_to_half(s);
    }
}

#[cfg(target_arch = "x86_64")]
pub fn has_f16c() -> bool {
    std::is_x86_feature_detected!("f16c") && std::is_x86_feature_detected!("avx")
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn halves_to_f32_f16c(src: &[u16], dst: &mut [f32]) {
    use std::arch::x86_64::*;
    let n = src.len().min(dst.len());
    let mut i = 0;
    while i + 8 <= n {
        let h = _mm_loadu_si128(src.as_ptr().add(i).cast());
        _mm256_storeu_ps(dst.as_mut_ptr().add(i), _mm256_cvtph_ps(h));
        i += 8;
    }
    for k in i..n {
        dst[k] = half_to_f32(src[k]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn f32_to_halves_f16c(src: &[f32], dst: &mut [u16]) {
    use std::arch::x86_64::*;
    let n = src.len().min(dst.len());
    let mut i = 0;
    while i + 8 <= n {
        let v = _mm256_loadu_ps(src.as_ptr().add(i));
        let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v);
        _mm_storeu_si128(dst.as_mut_ptr().add(i).cast(), h);
        i += 8;
    }
    for k in i..n {
        dst[k] = f32_to_half(src[k]);
    }
}

/// Whether the AVX2 + FMA builds of the kernels may run here.
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the AVX-512 builds of the kernels may run here.
///
/// `VSVK_NO_AVX512=1` (read once, at the first call) makes this false on a CPU that has AVX-512,
/// so that the AVX2 builds, which CPUs without AVX-512 run, can be tested and timed on one that
/// has it.
pub fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static AVX512: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *AVX512.get_or_init(|| {
            let off = std::env::var_os("VSVK_NO_AVX512").is_some_and(|v| v == "1");
            !off && has_avx2()
                && std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512bw")
                && std::is_x86_feature_detected!("avx512vl")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Defines `$name`, which runs `$impl` (an `#[inline(always)]` function) compiled for AVX2 + FMA
/// when the CPU has them and for the baseline otherwise. Results are the same either way (the
/// kernels only use operations whose results do not depend on the instruction set).
#[macro_export]
#[doc(hidden)]
macro_rules! multiversion {
    ($vis:vis fn $name:ident => $impl:ident ($($a:ident : $t:ty),* $(,)?) $(-> $ret:ty)?) => {
        // The variants are never inlined into their callers: a kernel is compiled once per
        // instruction set, not once per call site (inlined, the fused kernels multiplied the
        // library's code by the number of places that call them).
        $vis fn $name($($a: $t),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
                #[inline(never)]
                unsafe fn fast512($($a: $t),*) $(-> $ret)? {
                    $impl($($a),*)
                }
                if $crate::neighbour::plane::has_avx512() {
                    // SAFETY: the CPU supports AVX-512 F/BW/VL (checked just above).
                    return unsafe { fast512($($a),*) };
                }
                #[target_feature(enable = "avx2,fma")]
                #[inline(never)]
                unsafe fn fast($($a: $t),*) $(-> $ret)? {
                    $impl($($a),*)
                }
                if $crate::neighbour::plane::has_avx2() {
                    // SAFETY: the CPU supports AVX2 and FMA (checked just above).
                    return unsafe { fast($($a),*) };
                }
            }
            $impl($($a),*)
        }
    };
}
pub use crate::multiversion;
