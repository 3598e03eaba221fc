//! Geometry: Crop, CropAbs, CropRel, AddBorders, FlipVertical, FlipHorizontal, Transpose, Turn180,
//! Turn90, Turn270, StackHorizontal, StackVertical, ShufflePlanes, SplitPlanes.
//!
//! Also the pieces edit.rs shares: `Gen` (a filter whose errors reach the caller verbatim, so that
//! messages can carry R81's own prefix) and plane access helpers.
use std::ffi::c_void;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use super::util::{append_clip, is_constant, new_video, set_clip, video_info, Args};
use crate::core::Core;
use crate::format;
use crate::frame::Frame;
use crate::map::Map;
use crate::node::{Filter, FilterImpl, MediaInfo, Node};
use crate::scheduler::FrameCall;

pub fn register(r: &super::Registrar) {
    r.add("Crop", "clip:vnode:all;left:int:opt;right:int:opt;top:int:opt;bottom:int:opt;", "clip:vnode:all;", crop_rel);
    r.add("CropAbs", "clip:vnode:all;width:int;height:int;left:int:opt;top:int:opt;x:int:opt;y:int:opt;", "clip:vnode:all;", crop_abs);
    r.add("CropRel", "clip:vnode:all;left:int:opt;right:int:opt;top:int:opt;bottom:int:opt;", "clip:vnode:all;", crop_rel);
    r.add("AddBorders", "clip:vnode:all;left:int:opt;right:int:opt;top:int:opt;bottom:int:opt;color:float[]:opt;", "clip:vnode:all;", add_borders);
    r.add("ShufflePlanes", "clips:vnode[]:all;planes:int[];colorfamily:int;prop_src:vnode:all:opt;", "clip:vnode:all;", shuffle_planes);
    r.add("SplitPlanes", "clip:vnode:all;", "clip:vnode[]:all;", split_planes);
    r.add("StackVertical", "clips:vnode[]:all;", "clip:vnode:all;", stack_vertical);
    r.add("StackHorizontal", "clips:vnode[]:all;", "clip:vnode:all;", stack_horizontal);
    r.add("Transpose", "clip:vnode:all;", "clip:vnode:all;", transpose);
    r.add("FlipVertical", "clip:vnode:all;", "clip:vnode:all;", flip_vertical);
    r.add("FlipHorizontal", "clip:vnode:all;", "clip:vnode:all;", flip_horizontal);
    r.add("Turn180", "clip:vnode:all;", "clip:vnode:all;", turn180);
    r.add("Turn90", "clip:vnode:all;", "clip:vnode:all;", turn90);
    r.add("Turn270", "clip:vnode:all;", "clip:vnode:all;", turn270);
}

// ---- shared pieces --------------------------------------------------------------------------------

pub(super) type Requests = Box<dyn Fn(i32) -> Vec<(usize, i32)> + Send + Sync>;
pub(super) type Make = Box<dyn Fn(i32, &[Arc<Frame>], &Arc<Core>) -> Result<Arc<Frame>, String> + Send + Sync>;

/// Like util's FnFilter, but an error from `make` reaches the caller as it is (the filter sets it),
/// so each message carries its own prefix, as R81's do ("Crop: ..." also for CropAbs).
pub(super) struct Gen {
    pub inputs: Vec<Arc<Node>>,
    pub requests: Requests,
    pub make: Make,
}

impl Filter for Gen {
    fn get_frame(&self, n: i32, reason: i32, _fd: &mut *mut c_void, call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
        let wanted = (self.requests)(n);
        if reason == arInitial {
            for &(i, m) in &wanted {
                call.request(&self.inputs[i], m);
            }
            return Ok(None);
        }
        if reason != arAllFramesReady {
            return Ok(None);
        }
        let mut frames = Vec::with_capacity(wanted.len());
        for &(i, m) in &wanted {
            match call.get(&self.inputs[i], m) {
                Some(f) => frames.push(f),
                None => return Err("internal error: a requested frame is missing".into()),
            }
        }
        let core = call.core().clone();
        match (self.make)(n, &frames, &core) {
            Ok(f) => Ok(Some(f)),
            Err(e) => {
                call.set_error(e);
                Ok(None)
            }
        }
    }
}

pub(super) fn is_gpu(n: &Node) -> bool {
    n.residency() == nrGPU
}

/// R81's message when some clips are GPU resident and others not.
pub(super) fn residency_mismatch(clips: &[Arc<Node>]) -> Option<String> {
    let first = is_gpu(clips.first()?);
    clips.iter().position(|c| is_gpu(c) != first).map(|i| {
        format!("clips are mismatched in residency starting at clip #{i}; all clips must be CPU or all GPU, insert GPUUpload or GPUDownload to make them match")
    })
}

/// A node of `Gen` that passes frames on (or copies of them): its output lives where its first
/// input's does.
pub(super) fn gen_node(
    core: &Arc<Core>,
    name: &str,
    vi: VSVideoInfo,
    inputs: Vec<Arc<Node>>,
    patterns: Vec<i32>,
    requests: Requests,
    make: Make,
) -> Arc<Node> {
    let flags = if is_gpu(&inputs[0]) { ffGPUOutput } else { 0 };
    let deps = inputs.iter().cloned().zip(patterns).collect();
    let filter = Gen { inputs, requests, make };
    let creation = crate::plugin::creation_stack(core);
    Node::new(core.clone(), name, MediaInfo::Video(vi), FilterImpl::Rust(Box::new(filter)), fmParallel, flags, deps, creation)
}

/// A node of `Gen` that reads and writes samples, which it does in host memory: GPU resident
/// inputs are brought down first and the result goes back up, so the output lives where the first
/// input does.
pub(super) fn pixel_node(
    core: &Arc<Core>,
    name: &str,
    vi: VSVideoInfo,
    inputs: Vec<Arc<Node>>,
    patterns: Vec<i32>,
    requests: Requests,
    make: Make,
) -> Result<Arc<Node>, String> {
    super::util::on_host(core, inputs, |inputs| gen_node(core, name, vi, inputs, patterns, requests, make))
}

/// Strictly spatial when the output is as long as the input.
fn spatial_pattern(clip: &Node, vi: &VSVideoInfo) -> i32 {
    if clip.num_frames() == vi.numFrames {
        rpStrictSpatial
    } else {
        rpGeneral
    }
}

/// One input, frame n of it for output frame n: a spatial filter that works on samples.
pub(super) fn spatial_node(
    core: &Arc<Core>,
    name: &str,
    vi: VSVideoInfo,
    clip: Arc<Node>,
    make: impl Fn(&Frame, &Arc<Core>) -> Result<Arc<Frame>, String> + Send + Sync + 'static,
) -> Result<Arc<Node>, String> {
    let pattern = spatial_pattern(&clip, &vi);
    pixel_node(core, name, vi, vec![clip], vec![pattern], Box::new(|n| vec![(0, n)]), Box::new(move |_, fr, core| make(&fr[0], core)))
}

/// A spatial filter that only touches frame properties: it works wherever the frames live.
pub(super) fn props_node(
    core: &Arc<Core>,
    name: &str,
    vi: VSVideoInfo,
    clip: Arc<Node>,
    make: impl Fn(&Frame, &Arc<Core>) -> Result<Arc<Frame>, String> + Send + Sync + 'static,
) -> Arc<Node> {
    let pattern = spatial_pattern(&clip, &vi);
    gen_node(core, name, vi, vec![clip], vec![pattern], Box::new(|n| vec![(0, n)]), Box::new(move |_, fr, core| make(&fr[0], core)))
}

/// The name R81 gives a format in messages ("Undefined" for a variable one).
pub(super) fn format_name(f: &VSVideoFormat) -> String {
    if f.colorFamily == cfUndefined {
        return "Undefined".into();
    }
    format::video_name(f).unwrap_or_else(|| "Undefined".into())
}

pub(super) fn frame_format(f: &Frame) -> Result<VSVideoFormat, String> {
    f.video_format().copied().ok_or_else(|| "only video frames are supported".to_string())
}

/// A plane to read: first sample, stride in bytes, width and height in samples.
#[derive(Clone, Copy)]
pub(super) struct Src {
    pub ptr: *const u8,
    pub stride: isize,
    pub w: usize,
    pub h: usize,
}

/// A plane to write.
#[derive(Clone, Copy)]
pub(super) struct Dst {
    pub ptr: *mut u8,
    pub stride: isize,
    pub w: usize,
    pub h: usize,
}

pub(super) fn src_plane(f: &Frame, p: usize) -> Src {
    let pl = &f.planes()[p];
    Src { ptr: f.read_ptr(p as i32).expect("plane exists"), stride: pl.stride, w: pl.width as usize, h: pl.height as usize }
}

/// # Safety
/// `f` is a frame this filter made and has not shared yet.
pub(super) unsafe fn dst_plane(f: &Frame, p: usize) -> Dst {
    let ptr = f.write_ptr(p as i32).expect("plane exists");
    let pl = &f.planes()[p];
    Dst { ptr, stride: pl.stride, w: pl.width as usize, h: pl.height as usize }
}

impl Src {
    /// Row `y` as samples of T.
    ///
    /// # Safety
    /// `y < h` and T is the plane's sample size.
    pub unsafe fn row<T>(&self, y: usize) -> &[T] {
        std::slice::from_raw_parts(self.ptr.offset(y as isize * self.stride).cast::<T>(), self.w)
    }
}

impl Dst {
    /// # Safety
    /// As for `Src::row`; rows of one plane are disjoint.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn row<T>(&self, y: usize) -> &mut [T] {
        std::slice::from_raw_parts_mut(self.ptr.offset(y as isize * self.stride).cast::<T>(), self.w)
    }
}

/// Runs `$body` with `$t` bound to the unsigned type of a sample of `$bps` bytes.
macro_rules! by_size {
    ($bps:expr, $t:ident => $body:expr) => {
        match $bps {
            1 => {
                type $t = u8;
                $body
            }
            2 => {
                type $t = u16;
                $body
            }
            _ => {
                type $t = u32;
                $body
            }
        }
    };
}

fn vinfo(node: &Node) -> Result<VSVideoInfo, String> {
    video_info(node)
}

// ---- Crop ----------------------------------------------------------------------------------------

#[derive(Clone, Copy)]
struct CropRect {
    x: i64,
    y: i64,
    w: i64,
    h: i64,
}

/// R81's checks, in its order: the subsampling (only with a known format), the size, the corner,
/// then the frame's bounds (only with known dimensions).
fn check_crop(r: CropRect, fmt: Option<&VSVideoFormat>, size: Option<(i32, i32)>) -> Result<(), String> {
    if let Some(f) = fmt {
        let (mw, mh) = (1i64 << f.subSamplingW, 1i64 << f.subSamplingH);
        if r.y % mh != 0 {
            return Err(format!("Crop: cropped area needs to have mod {mh} height offset"));
        }
        if r.x % mw != 0 {
            return Err(format!("Crop: cropped area needs to have mod {mw} width offset"));
        }
        if r.h % mh != 0 {
            return Err(format!("Crop: cropped area needs to have mod {mh} height"));
        }
        if r.w % mw != 0 {
            return Err(format!("Crop: cropped area needs to have mod {mw} width"));
        }
    }
    if r.w <= 0 || r.h <= 0 {
        return Err("Crop: negative/zero cropping dimensions not allowed".into());
    }
    if r.x < 0 || r.y < 0 {
        return Err("Crop: negative corner coordinates not allowed".into());
    }
    if let Some((w, h)) = size {
        if r.x + r.w > w as i64 || r.y + r.h > h as i64 {
            return Err("Crop: cropped area extends beyond frame dimensions".into());
        }
    }
    Ok(())
}

fn crop_frame(src: &Frame, r: CropRect, core: &Arc<Core>) -> Result<Arc<Frame>, String> {
    let fmt = frame_format(src)?;
    check_crop(r, Some(&fmt), Some((src.width, src.height)))?;
    let out = new_video(core, &fmt, r.w as i32, r.h as i32, Some(src))?;
    let bps = fmt.bytesPerSample as usize;
    for p in 0..fmt.numPlanes as usize {
        let (sx, sy) = if p == 0 { (0, 0) } else { (fmt.subSamplingW, fmt.subSamplingH) };
        let (x0, y0) = ((r.x >> sx) as usize, (r.y >> sy) as usize);
        let s = src_plane(src, p);
        // SAFETY: `out` is ours; rows stay inside both planes (checked above).
        unsafe {
            let d = dst_plane(&out, p);
            for y in 0..d.h {
                let from = s.ptr.offset((y + y0) as isize * s.stride).add(x0 * bps);
                std::ptr::copy_nonoverlapping(from, d.ptr.offset(y as isize * d.stride), d.w * bps);
            }
        }
    }
    Ok(Arc::new(out))
}

fn make_crop(core: &Arc<Core>, name: &str, clip: Arc<Node>, vi: VSVideoInfo, r: CropRect) -> Result<Arc<Node>, String> {
    let known_fmt = (vi.format.colorFamily != cfUndefined).then_some(&vi.format);
    let known_size = (vi.width > 0 && vi.height > 0).then_some((vi.width, vi.height));
    check_crop(r, known_fmt, known_size)?;
    let mut out = vi;
    out.width = r.w as i32;
    out.height = r.h as i32;
    spatial_node(core, name, out, clip, move |f, core| crop_frame(f, r, core))
}

fn crop_rel(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = vinfo(&clip)?;
    if !is_constant(&vi) {
        out.set_error("Crop: constant format and dimensions needed");
        return Ok(());
    }
    let (l, r, t, b) = (a.int("left").unwrap_or(0), a.int("right").unwrap_or(0), a.int("top").unwrap_or(0), a.int("bottom").unwrap_or(0));
    let rect = CropRect { x: l, y: t, w: vi.width as i64 - l - r, h: vi.height as i64 - t - b };
    match make_crop(core, "Crop", clip, vi, rect) {
        Ok(n) => set_clip(out, n),
        Err(e) => out.set_error(&e),
    }
    Ok(())
}

fn crop_abs(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = vinfo(&clip)?;
    let x = a.int("left").or_else(|| a.int("x")).unwrap_or(0);
    let y = a.int("top").or_else(|| a.int("y")).unwrap_or(0);
    let rect = CropRect { x, y, w: a.int("width").unwrap_or(0), h: a.int("height").unwrap_or(0) };
    match make_crop(core, "CropAbs", clip, vi, rect) {
        Ok(n) => set_clip(out, n),
        Err(e) => out.set_error(&e),
    }
    Ok(())
}

// ---- AddBorders ----------------------------------------------------------------------------------

/// The raw sample for a colour value, or None when it is outside what the format holds. Integer
/// values round half up; float values must stay finite in the sample's precision.
pub(super) fn color_sample(fmt: &VSVideoFormat, v: f64) -> Option<u32> {
    if fmt.sampleType == stInteger {
        if v < 0.0 {
            return None;
        }
        let r = (v + 0.5).floor();
        let max = ((1u64 << fmt.bitsPerSample) - 1) as f64;
        if r.is_nan() || r > max {
            return None;
        }
        Some(r as u32)
    } else if fmt.bytesPerSample == 2 {
        let h = super::blank::f32_to_half(v as f32);
        if h & 0x7c00 == 0x7c00 {
            return None;
        }
        Some(h as u32)
    } else {
        let f = v as f32;
        if !f.is_finite() {
            return None;
        }
        Some(f.to_bits())
    }
}

/// Black: zero, with integer YUV chroma at the middle of the range.
pub(super) fn black(fmt: &VSVideoFormat) -> [u32; 3] {
    let mut c = [0u32; 3];
    if fmt.colorFamily == cfYUV && fmt.sampleType == stInteger {
        c[1] = 1 << (fmt.bitsPerSample - 1);
        c[2] = c[1];
    }
    c
}

fn fill_row(row: *mut u8, bps: usize, n: usize, v: u32) {
    // SAFETY: the caller gives `n` samples of `bps` bytes at `row`.
    unsafe {
        by_size!(bps, T => std::slice::from_raw_parts_mut(row.cast::<T>(), n).fill(v as T))
    }
}

fn add_borders(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = vinfo(&clip)?;
    let (l, r, t, b) = (a.int("left").unwrap_or(0), a.int("right").unwrap_or(0), a.int("top").unwrap_or(0), a.int("bottom").unwrap_or(0));
    if l < 0 || r < 0 || t < 0 || b < 0 {
        return Err("border size to add must not be negative".into());
    }
    if vi.format.colorFamily == cfUndefined {
        return Err("input needs to be constant format".into());
    }
    let fmt = vi.format;
    let (mw, mh) = (1i64 << fmt.subSamplingW, 1i64 << fmt.subSamplingH);
    if t % mh != 0 || b % mh != 0 {
        return Err(format!("added area needs to have mod {mh} height"));
    }
    if l % mw != 0 || r % mw != 0 {
        return Err(format!("added area needs to have mod {mw} width"));
    }
    if l == 0 && r == 0 && t == 0 && b == 0 {
        set_clip(out, clip);
        return Ok(());
    }
    let mut color = black(&fmt);
    if let Some(c) = a.floats("color") {
        if c.len() != fmt.numPlanes as usize {
            return Err("invalid number of color values specified".into());
        }
        for (i, &v) in c.iter().enumerate() {
            color[i] = color_sample(&fmt, v).ok_or("color value out of range")?;
        }
    }
    let mut ovi = vi;
    if vi.width > 0 {
        let (w, h) = (vi.width as i64 + l + r, vi.height as i64 + t + b);
        if w > i32::MAX as i64 || h > i32::MAX as i64 {
            return Err("resulting frame is too big".into());
        }
        ovi.width = w as i32;
        ovi.height = h as i32;
    }
    let node = spatial_node(core, "AddBorders", ovi, clip, move |src, core| {
        let w = src.width + (l + r) as i32;
        let h = src.height + (t + b) as i32;
        let f = new_video(core, &fmt, w, h, Some(src))?;
        let bps = fmt.bytesPerSample as usize;
        for (p, &v) in color.iter().enumerate().take(fmt.numPlanes as usize) {
            let (sx, sy) = if p == 0 { (0, 0) } else { (fmt.subSamplingW, fmt.subSamplingH) };
            let (pl, pt) = ((l >> sx) as usize, (t >> sy) as usize);
            let s = src_plane(src, p);
            // SAFETY: `f` is ours; all writes stay inside its plane.
            unsafe {
                let d = dst_plane(&f, p);
                for y in 0..d.h {
                    let row = d.ptr.offset(y as isize * d.stride);
                    if y < pt || y >= pt + s.h {
                        fill_row(row, bps, d.w, v);
                    } else {
                        fill_row(row, bps, pl, v);
                        std::ptr::copy_nonoverlapping(s.ptr.offset((y - pt) as isize * s.stride), row.add(pl * bps), s.w * bps);
                        fill_row(row.add((pl + s.w) * bps), bps, d.w - pl - s.w, v);
                    }
                }
            }
        }
        Ok(Arc::new(f))
    })?;
    set_clip(out, node);
    Ok(())
}

// ---- flips and turns -----------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Orient {
    FlipV,
    FlipH,
    Turn180,
    Transpose,
    Turn90,
    Turn270,
}

impl Orient {
    fn swaps(self) -> bool {
        matches!(self, Orient::Transpose | Orient::Turn90 | Orient::Turn270)
    }
}

/// The format of a clip with rows and columns swapped.
fn swapped_format(f: &VSVideoFormat) -> Option<VSVideoFormat> {
    format::query_video(f.colorFamily, f.sampleType, f.bitsPerSample, f.subSamplingH, f.subSamplingW)
}

/// Writes `s` into `d` under the orientation: d[y][x] = s[sy][sx].
///
/// # Safety
/// Both planes hold samples of T and have the matching sizes.
/// `dst` = `src` in reverse order (same length).
fn reverse_row<T: Copy>(dst: &mut [T], src: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        let e = std::mem::size_of::<T>();
        assert_eq!(dst.len(), src.len());
        if matches!(e, 1 | 2 | 4 | 8) && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected; the slices are views of `T`, plain data of `e` bytes.
            unsafe {
                let n = std::mem::size_of_val(dst);
                let d = std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u8>(), n);
                let s = std::slice::from_raw_parts(src.as_ptr().cast::<u8>(), n);
                return reverse_bytes_avx2(d, s, e);
            }
        }
    }
    // a reversed iterator compiles to a scalar loop: the fallback only
    for (a, b) in dst.iter_mut().zip(src.iter().rev()) {
        *a = *b;
    }
}

/// Reverses the order of the `e`-byte elements of `s` into `d`, 32 bytes per shuffle and lane
/// swap (the reversed iterator stayed scalar in some instantiations: Turn180 at 16 bits was 0.38x
/// R81 while FlipHorizontal, the same loop, was 3x).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn reverse_bytes_avx2(d: &mut [u8], s: &[u8], e: usize) {
    use std::arch::x86_64::*;
    let n = d.len();
    // within each 16-byte lane: byte i takes byte 16 - e - (i / e) * e + i % e
    let mask: [u8; 32] = std::array::from_fn(|i| {
        let i = i % 16;
        (16 - e - (i / e) * e + i % e) as u8
    });
    let m = _mm256_loadu_si256(mask.as_ptr().cast());
    let blocks = n / 32;
    for k in 0..blocks {
        // SAFETY (caller): k * 32 + 32 <= n for both slices.
        let v = _mm256_loadu_si256(s.as_ptr().add(n - 32 * (k + 1)).cast());
        let r = _mm256_permute2x128_si256::<0x01>(_mm256_shuffle_epi8(v, m), _mm256_shuffle_epi8(v, m));
        _mm256_storeu_si256(d.as_mut_ptr().add(32 * k).cast(), r);
    }
    let done = blocks * 32;
    // the rest, element by element: d[done..] takes s[..n - done] reversed
    for j in (done..n).step_by(e) {
        let from = n - e - j;
        d[j..j + e].copy_from_slice(&s[from..from + e]);
    }
}

unsafe fn orient_plane<T: Copy>(s: Src, d: Dst, o: Orient) {
    match o {
        Orient::FlipV => {
            for y in 0..d.h {
                d.row::<T>(y).copy_from_slice(s.row::<T>(s.h - 1 - y));
            }
        }
        Orient::FlipH | Orient::Turn180 => {
            for y in 0..d.h {
                let sy = if o == Orient::FlipH { y } else { s.h - 1 - y };
                let (dr, sr) = (d.row::<T>(y), s.row::<T>(sy));
                reverse_row(dr, sr);
            }
        }
        _ if std::mem::size_of::<T>() == 1 => turn_bytes(s, d, o),
        #[cfg(target_arch = "x86_64")]
        _ if std::mem::size_of::<T>() == 2 => turn_blocks::<u16, 8>(s, d, o, transpose8x16),
        #[cfg(target_arch = "x86_64")]
        _ if std::mem::size_of::<T>() == 4 => {
            if std::arch::is_x86_feature_detected!("avx") {
                turn_u32_avx(s, d, o)
            } else {
                turn_blocks::<u32, 4>(s, d, o, transpose4x32)
            }
        }
        _ => {
            // d is s.h wide and s.w high. In 16 x 16 tiles read row by row into a small array and
            // written back as whole destination rows: both planes stay in cache and the inner
            // loops have fixed sizes the compiler can unroll (a per-sample address computation
            // with the orientation decided inside the loop was half R81's speed).
            const B: usize = 16;
            let dest = |dy: usize| -> *mut T { d.ptr.offset(dy as isize * d.stride).cast::<T>() };
            for by in (0..s.h).step_by(B) {
                for bx in (0..s.w).step_by(B) {
                    let (hb, wb) = ((s.h - by).min(B), (s.w - bx).min(B));
                    let first = s.row::<T>(by)[bx];
                    let mut t = [[first; B]; B];
                    if hb == B && wb == B {
                        // fixed bounds: unrolled into shuffles
                        let rows: [&[T]; B] = std::array::from_fn(|i| &s.row::<T>(by + i)[bx..bx + B]);
                        for (j, tj) in t.iter_mut().enumerate() {
                            for (i, r) in rows.iter().enumerate() {
                                tj[i] = r[j];
                            }
                        }
                    } else {
                        for i in 0..hb {
                            let r = &s.row::<T>(by + i)[bx..bx + wb];
                            for (j, &v) in r.iter().enumerate() {
                                t[j][i] = v;
                            }
                        }
                    }
                    for (j, col) in t.iter().enumerate().take(wb) {
                        let sx = bx + j;
                        let col = &col[..hb];
                        match o {
                            Orient::Transpose => std::slice::from_raw_parts_mut(dest(sx).add(by), hb).copy_from_slice(col),
                            // clockwise: source row sy lands in column s.h - 1 - sy
                            Orient::Turn90 => {
                                let row = std::slice::from_raw_parts_mut(dest(sx).add(s.h - by - hb), hb);
                                for (a, &v) in row.iter_mut().zip(col.iter().rev()) {
                                    *a = v;
                                }
                            }
                            _ => std::slice::from_raw_parts_mut(dest(s.w - 1 - sx).add(by), hb).copy_from_slice(col),
                        }
                    }
                }
            }
        }
    }
}

/// Transposes an 8 x 8 block of bytes held as eight rows of a u64 each (byte j of row i is sample
/// (i, j)): three rounds of swapping the off-diagonal halves of 2x2, 4x4 and 8x8 sub-blocks.
#[inline(always)]
fn transpose8(r: &mut [u64; 8]) {
    for (dist, shift, mask) in [(1, 8, 0x00ff_00ff_00ff_00ffu64), (2, 16, 0x0000_ffff_0000_ffff), (4, 32, 0x0000_0000_ffff_ffff)] {
        for i in 0..8 {
            if i & dist == 0 {
                let t = ((r[i] >> shift) ^ r[i + dist]) & mask;
                r[i + dist] ^= t;
                r[i] ^= t << shift;
            }
        }
    }
}

/// The 16 x 16 block of bytes whose rows start at `rows`, as its 16 columns: four rounds of
/// interleaving row i with row i + 8 (each round halves the distance between the bytes of a
/// column; after four every column is whole and in order).
///
/// # Safety
/// Each pointer points to 16 readable bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn transpose16(rows: &[*const u8; 16]) -> [std::arch::x86_64::__m128i; 16] {
    use std::arch::x86_64::*;
    // SAFETY: 16 readable bytes at each pointer (the caller's contract).
    let mut r: [__m128i; 16] = std::array::from_fn(|i| unsafe { _mm_loadu_si128(rows[i].cast()) });
    for _ in 0..4 {
        r = std::array::from_fn(|k| {
            let i = k / 2;
            if k % 2 == 0 {
                _mm_unpacklo_epi8(r[i], r[i + 8])
            } else {
                _mm_unpackhi_epi8(r[i], r[i + 8])
            }
        });
    }
    r
}

/// The B x B block whose rows start at `rows` as its B columns, for B 16-bit samples a row (B =
/// 8) or 32-bit ones (B = 4): rounds of interleaving row i with row i + B/2 (each round halves
/// the distance between the samples of a column; after log2 B rounds every column is whole and
/// in order), as `transpose16` does with bytes.
///
/// # Safety
/// Each pointer points to 16 readable bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn transpose8x16(rows: &[*const u16; 8]) -> [std::arch::x86_64::__m128i; 8] {
    use std::arch::x86_64::*;
    // SAFETY: 16 readable bytes at each pointer (the caller's contract).
    let mut r: [__m128i; 8] = std::array::from_fn(|i| unsafe { _mm_loadu_si128(rows[i].cast()) });
    for _ in 0..3 {
        r = std::array::from_fn(|k| if k % 2 == 0 { _mm_unpacklo_epi16(r[k / 2], r[k / 2 + 4]) } else { _mm_unpackhi_epi16(r[k / 2], r[k / 2 + 4]) });
    }
    r
}

/// As `transpose8x16`, for 4 x 4 blocks of 32-bit samples.
///
/// # Safety
/// Each pointer points to 16 readable bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn transpose4x32(rows: &[*const u32; 4]) -> [std::arch::x86_64::__m128i; 4] {
    use std::arch::x86_64::*;
    // SAFETY: 16 readable bytes at each pointer (the caller's contract).
    let mut r: [__m128i; 4] = std::array::from_fn(|i| unsafe { _mm_loadu_si128(rows[i].cast()) });
    for _ in 0..2 {
        r = std::array::from_fn(|k| if k % 2 == 0 { _mm_unpacklo_epi32(r[k / 2], r[k / 2 + 2]) } else { _mm_unpackhi_epi32(r[k / 2], r[k / 2 + 2]) });
    }
    r
}

/// Transpose, Turn90 and Turn270 of 16- and 32-bit planes: B x B blocks of 16 bytes a row
/// through SSE2 (baseline on x86-64), a strip of B source rows at a time (read as B sequential
/// streams; square tiles of 32 to 64 samples were up to 1.8x slower here), the right and bottom
/// strips sample by sample. A 16 x 16 tile copied through an array was slower than R81 (the
/// column stores of run-time length were calls to memmove).
///
/// # Safety
/// As for `orient_plane`, with samples of T (`B` of them are 16 bytes).
#[cfg(target_arch = "x86_64")]
unsafe fn turn_blocks<T: Copy, const B: usize>(s: Src, d: Dst, o: Orient, tr: unsafe fn(&[*const T; B]) -> [std::arch::x86_64::__m128i; B]) {
    let at = |dx: usize, dy: usize| -> *mut T { d.ptr.offset(dy as isize * d.stride).cast::<T>().add(dx) };
    // where source sample (sx, sy) goes
    let dest = |sx: usize, sy: usize| match o {
        Orient::Transpose => (sy, sx),
        Orient::Turn90 => (s.h - 1 - sy, sx),
        _ => (sy, s.w - 1 - sx),
    };
    let (wb, hb) = (s.w / B * B, s.h / B * B);
    // Turn90 reads a block's rows bottom up, which reverses each column as it needs
    let up = o == Orient::Turn90;
    for by in (0..hb).step_by(B) {
        for bx in (0..wb).step_by(B) {
            let rows: [*const T; B] = std::array::from_fn(|i| s.row::<T>(if up { by + B - 1 - i } else { by + i }).as_ptr().add(bx));
            let cols = tr(&rows);
            for (j, c) in cols.iter().enumerate() {
                let (dx, dy) = dest(bx + j, if up { by + B - 1 } else { by });
                std::arch::x86_64::_mm_storeu_si128(at(dx, dy).cast(), *c);
            }
        }
    }
    turn_rest::<T>(&s, &d, o, wb, hb);
}

/// The samples of a turn outside the whole blocks: columns from `wb` on in rows above `hb`, and
/// every row from `hb` on.
///
/// # Safety
/// As for `orient_plane`, with samples of T.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn turn_rest<T: Copy>(s: &Src, d: &Dst, o: Orient, wb: usize, hb: usize) {
    for sy in 0..s.h {
        let row = s.row::<T>(sy);
        let from = if sy < hb { wb } else { 0 };
        for (sx, &v) in row.iter().enumerate().skip(from) {
            let (dx, dy) = match o {
                Orient::Transpose => (sy, sx),
                Orient::Turn90 => (s.h - 1 - sy, sx),
                _ => (sy, s.w - 1 - sx),
            };
            *d.ptr.offset(dy as isize * d.stride).cast::<T>().add(dx) = v;
        }
    }
}

/// As `turn_blocks` for 32-bit samples in 8 x 8 blocks through AVX: each destination row gets
/// 32 bytes per block instead of 16 (half as many partial cache lines in flight).
///
/// # Safety
/// As for `orient_plane`, with 32-bit samples; the CPU has AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn turn_u32_avx(s: Src, d: Dst, o: Orient) {
    let (wb, hb) = (s.w / 8 * 8, s.h / 8 * 8);
    let up = o == Orient::Turn90;
    // Four blocks one above the other give each destination row 128 contiguous bytes, two whole
    // cache lines where the row is aligned (one block wrote half lines, completed a strip later:
    // Transpose of float 1080p at 16 threads 0.81x R81, 1.0x stacked by four, 0.94x by two; 16-bit
    // planes were slower stacked and keep single blocks); the rows below the last stack go one
    // block at a time. Turn90 fills its destination rows from the right, not aligned to the
    // stacks where the height is no multiple of 32: its blocks stay single, which measured faster.
    let k = if o == Orient::Turn90 { 1 } else { 4 };
    let hb2 = s.h / (8 * k) * (8 * k);
    for by in (0..hb2).step_by(8 * k) {
        for bx in (0..wb).step_by(8) {
            for i in 0..k {
                block_u32_avx(&s, &d, o, up, bx, by + 8 * i);
            }
        }
    }
    for by in (hb2..hb).step_by(8) {
        for bx in (0..wb).step_by(8) {
            block_u32_avx(&s, &d, o, up, bx, by);
        }
    }
    turn_rest::<u32>(&s, &d, o, wb, hb);
}

/// One 8 x 8 block of `turn_u32_avx`: source columns bx.. of rows by.. (read bottom up for
/// Turn90) into its place.
///
/// # Safety
/// As for `turn_u32_avx`; bx + 8 <= w and by + 8 <= h.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
unsafe fn block_u32_avx(s: &Src, d: &Dst, o: Orient, up: bool, bx: usize, by: usize) {
    use std::arch::x86_64::*;
    let at = |dx: usize, dy: usize| -> *mut f32 { d.ptr.offset(dy as isize * d.stride).cast::<f32>().add(dx) };
    // plain loops, not closures: they are compiled with AVX like this function
    let mut r = [_mm256_setzero_ps(); 8];
    for (i, v) in r.iter_mut().enumerate() {
        // SAFETY: 8 samples from bx in each of the block's rows (bx + 8 <= wb <= w).
        *v = _mm256_loadu_ps(s.row::<f32>(if up { by + 7 - i } else { by + i }).as_ptr().add(bx));
    }
    // pairs of rows interleaved, then pairs of pairs: u[k] holds columns k and k + 4 of
    // rows 0-3 (k < 4) or 4-7 (k >= 4), one per 128-bit half
    let mut t = [_mm256_setzero_ps(); 8];
    for k in (0..8).step_by(2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    let mut u = [_mm256_setzero_ps(); 8];
    for q in [0, 4] {
        u[q] = _mm256_shuffle_ps::<0x44>(t[q], t[q + 2]);
        u[q + 1] = _mm256_shuffle_ps::<0xee>(t[q], t[q + 2]);
        u[q + 2] = _mm256_shuffle_ps::<0x44>(t[q + 1], t[q + 3]);
        u[q + 3] = _mm256_shuffle_ps::<0xee>(t[q + 1], t[q + 3]);
    }
    for j in 0..8 {
        let c = if j < 4 { _mm256_permute2f128_ps::<0x20>(u[j], u[j + 4]) } else { _mm256_permute2f128_ps::<0x31>(u[j - 4], u[j]) };
        let (dx, dy) = match o {
            Orient::Transpose => (by, bx + j),
            Orient::Turn90 => (s.h - by - 8, bx + j),
            _ => (by, s.w - 1 - bx - j),
        };
        _mm256_storeu_ps(at(dx, dy), c);
    }
}

/// Transpose, Turn90 and Turn270 of 8-bit planes: whole 8 x 8 blocks through `transpose8` (eight
/// loads and eight stores of 8 bytes instead of 64 of each), the right and bottom strips sample
/// by sample.
///
/// # Safety
/// As for `orient_plane`, with samples of one byte.
unsafe fn turn_bytes(s: Src, d: Dst, o: Orient) {
    let at = |dx: usize, dy: usize| -> *mut u8 { d.ptr.offset(dy as isize * d.stride).add(dx) };
    // where source sample (sx, sy) goes
    let dest = |sx: usize, sy: usize| match o {
        Orient::Transpose => (sy, sx),
        Orient::Turn90 => (s.h - 1 - sy, sx),
        _ => (sy, s.w - 1 - sx),
    };
    let (w8, h8) = (s.w / 8 * 8, s.h / 8 * 8);
    // 16 x 16 blocks through SSE2 (baseline on x86-64), the rest of the 8 x 8 grid below; Turn90
    // reads the block's rows bottom up, which reverses each column as it needs
    let (w16, h16) = if cfg!(target_arch = "x86_64") { (s.w / 16 * 16, s.h / 16 * 16) } else { (0, 0) };
    #[cfg(target_arch = "x86_64")]
    for by in (0..h16).step_by(16) {
        for bx in (0..w16).step_by(16) {
            let up = o == Orient::Turn90;
            let rows: [*const u8; 16] = std::array::from_fn(|i| s.row::<u8>(if up { by + 15 - i } else { by + i })[bx..bx + 16].as_ptr());
            let cols = transpose16(&rows);
            for (j, c) in cols.iter().enumerate() {
                let (dx, dy) = dest(bx + j, if up { by + 15 } else { by });
                std::arch::x86_64::_mm_storeu_si128(at(dx, dy).cast(), *c);
            }
        }
    }
    for by in (0..h8).step_by(8) {
        for bx in (0..w8).step_by(8) {
            if by < h16 && bx < w16 {
                continue;
            }
            let mut r: [u64; 8] = std::array::from_fn(|i| {
                let row = &s.row::<u8>(by + i)[bx..bx + 8];
                u64::from_le_bytes(row.try_into().expect("8 bytes"))
            });
            transpose8(&mut r);
            // r[j] is source column bx + j, rows by..by + 8 in order
            for (j, &v) in r.iter().enumerate() {
                let (dx, dy) = dest(bx + j, by);
                let (v, dx) = if o == Orient::Turn90 { (v.swap_bytes(), dx - 7) } else { (v, dx) };
                std::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), at(dx, dy), 8);
            }
        }
    }
    for sy in 0..s.h {
        let row = s.row::<u8>(sy);
        let from = if sy < h8 { w8 } else { 0 };
        for (sx, &v) in row.iter().enumerate().skip(from) {
            let (dx, dy) = dest(sx, sy);
            *at(dx, dy) = v;
        }
    }
}

fn orient_frame(src: &Frame, o: Orient, core: &Arc<Core>) -> Result<Arc<Frame>, String> {
    let fmt = frame_format(src)?;
    let (ofmt, w, h) = if o.swaps() {
        (swapped_format(&fmt).ok_or("the transposed format is not valid")?, src.height, src.width)
    } else {
        (fmt, src.width, src.height)
    };
    let f = new_video(core, &ofmt, w, h, Some(src))?;
    for p in 0..fmt.numPlanes as usize {
        let s = src_plane(src, p);
        // SAFETY: `f` is ours and its planes have the sizes the orientation gives.
        unsafe {
            let d = dst_plane(&f, p);
            by_size!(fmt.bytesPerSample, T => orient_plane::<T>(s, d, o));
        }
    }
    Ok(Arc::new(f))
}

fn orient(input: &Map, out: &mut Map, core: &Arc<Core>, name: &str, o: Orient) -> Result<(), String> {
    let clip = Args(input).node("clip")?;
    let mut vi = vinfo(&clip)?;
    if o.swaps() {
        if !is_constant(&vi) {
            return Err("clip must have constant format and dimensions".into());
        }
        vi.format = swapped_format(&vi.format).ok_or("the transposed format is not valid")?;
        std::mem::swap(&mut vi.width, &mut vi.height);
    }
    set_clip(out, spatial_node(core, name, vi, clip, move |f, core| orient_frame(f, o, core))?);
    Ok(())
}

fn flip_vertical(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    orient(input, out, core, "FlipVertical", Orient::FlipV)
}
fn flip_horizontal(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    orient(input, out, core, "FlipHorizontal", Orient::FlipH)
}
fn turn180(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    orient(input, out, core, "Turn180", Orient::Turn180)
}
fn transpose(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    orient(input, out, core, "Transpose", Orient::Transpose)
}
fn turn90(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    orient(input, out, core, "Turn90", Orient::Turn90)
}
fn turn270(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    orient(input, out, core, "Turn270", Orient::Turn270)
}

// ---- stacking ------------------------------------------------------------------------------------

/// Request patterns for inputs read at frame n: strictly spatial when every input is as long as
/// the output, general otherwise (a short input's last frame is asked for again and again).
pub(super) fn same_n_patterns(clips: &[Arc<Node>], len: i32) -> Vec<i32> {
    clips.iter().map(|c| if c.num_frames() == len { rpStrictSpatial } else { rpGeneral }).collect()
}

fn stack(input: &Map, out: &mut Map, core: &Arc<Core>, vertical: bool) -> Result<(), String> {
    let name = if vertical { "StackVertical" } else { "StackHorizontal" };
    let clips = Args(input).nodes("clips");
    if clips.len() == 1 {
        set_clip(out, clips[0].clone());
        return Ok(());
    }
    let infos: Vec<VSVideoInfo> = clips.iter().map(|c| vinfo(c)).collect::<Result<_, _>>()?;
    let first = infos[0];
    for vi in &infos {
        let fits = if vertical { vi.width == first.width } else { vi.height == first.height };
        if !is_constant(vi) || vi.format != first.format || !fits {
            let what = if vertical { "width" } else { "height" };
            return Err(format!("clip format and {what} must match"));
        }
    }
    if let Some(m) = residency_mismatch(&clips) {
        return Err(m);
    }
    let mut vi = first;
    let total: i64 = infos.iter().map(|v| if vertical { v.height as i64 } else { v.width as i64 }).sum();
    if total > i32::MAX as i64 {
        return Err("resulting frame is too big".into());
    }
    if vertical {
        vi.height = total as i32;
    } else {
        vi.width = total as i32;
    }
    vi.numFrames = infos.iter().map(|v| v.numFrames).max().unwrap_or(0);
    let fmt = vi.format;
    let count = clips.len();
    let patterns = same_n_patterns(&clips, vi.numFrames);
    let node = pixel_node(
        core,
        name,
        vi,
        clips,
        patterns,
        Box::new(move |n| (0..count).map(|i| (i, n)).collect()),
        Box::new(move |_, frames, core| {
            let f = new_video(core, &fmt, vi.width, vi.height, Some(&frames[0]))?;
            let bps = fmt.bytesPerSample as usize;
            for p in 0..fmt.numPlanes as usize {
                // SAFETY: `f` is ours; each input lands in its own part of the plane.
                unsafe {
                    let d = dst_plane(&f, p);
                    let mut pos = 0usize;
                    for src in frames {
                        let s = src_plane(src, p);
                        for y in 0..s.h {
                            let (dy, dx) = if vertical { (pos + y, 0) } else { (y, pos) };
                            let to = d.ptr.offset(dy as isize * d.stride).add(dx * bps);
                            std::ptr::copy_nonoverlapping(s.ptr.offset(y as isize * s.stride), to, s.w * bps);
                        }
                        pos += if vertical { s.h } else { s.w };
                    }
                }
            }
            Ok(Arc::new(f))
        }),
    )?;
    set_clip(out, node);
    Ok(())
}

fn stack_vertical(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    stack(input, out, core, true)
}
fn stack_horizontal(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    stack(input, out, core, false)
}

// ---- ShufflePlanes and SplitPlanes -----------------------------------------------------------------

/// A frame of `fmt` (w x h) whose planes are `(input frame, plane)` shared, not copied, with the
/// properties of `props`.
fn assemble(core: &Core, fmt: &VSVideoFormat, w: i32, h: i32, planes: &[(&Frame, usize)], props: &Frame) -> Result<Arc<Frame>, String> {
    let f = new_video(core, fmt, w, h, Some(props))?;
    for (i, &(src, p)) in planes.iter().enumerate() {
        // SAFETY: `f` is new and ours; the plane has the dimensions the format gives plane i.
        unsafe { f.set_plane(i, src.planes()[p].clone()) };
    }
    Ok(Arc::new(f))
}

fn plane_size(vi: &VSVideoInfo, p: usize) -> (i32, i32) {
    format::plane_dims(&vi.format, vi.width, vi.height, p)
}

fn shuffle_planes(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clips = a.nodes("clips");
    let planes = a.ints("planes").unwrap_or_default();
    let cf = a.int("colorfamily").unwrap_or(0);
    let prop_src = a.opt_node("prop_src");
    let cf = match cf {
        1 => cfGray,
        2 => cfRGB,
        3 => cfYUV,
        _ => return Err("invalid output colorfamily".into()),
    };
    let out_planes = if cf == cfGray { 1 } else { 3 };
    if clips.is_empty() || clips.len() > out_planes {
        return Err("1-3 clips need to be specified".into());
    }
    if planes.len() > out_planes {
        return Err("too many planes specified".into());
    }
    let infos: Vec<VSVideoInfo> = clips.iter().map(|c| vinfo(c)).collect::<Result<_, _>>()?;
    if infos.iter().any(|vi| !is_constant(vi)) {
        return Err("only clips with constant format and dimensions supported".into());
    }
    if let Some(m) = residency_mismatch(&clips) {
        return Err(m);
    }
    if let Some(p) = &prop_src {
        vinfo(p)?;
    }
    // Output plane i: plane `planes[i]` (0 where not given) of clip i (the last clip past the end).
    let mut sel = Vec::with_capacity(out_planes);
    for i in 0..out_planes {
        let c = i.min(clips.len() - 1);
        let p = planes.get(i).copied().unwrap_or(0);
        if p < 0 || p >= infos[c].format.numPlanes as i64 {
            return Err("invalid plane specified".into());
        }
        sel.push((c, p as usize));
    }
    let f0 = infos[sel[0].0].format;
    let (w, h) = plane_size(&infos[sel[0].0], sel[0].1);
    let fmt = if cf == cfGray {
        format::query_video(cfGray, f0.sampleType, f0.bitsPerSample, 0, 0)
    } else {
        let s1 = plane_size(&infos[sel[1].0], sel[1].1);
        let s2 = plane_size(&infos[sel[2].0], sel[2].1);
        if s1 != s2 {
            return Err("plane 1 and 2 do not have the same size".into());
        }
        let ss = |full: i32, part: i32| (0..=4).find(|&s| part << s == full);
        let (Some(ssw), Some(ssh)) = (ss(w, s1.0), ss(h, s1.1)) else {
            return Err("plane 1 and 2 are not subsampled multiples of first plane".into());
        };
        for &(c, _) in &sel[1..] {
            let f = infos[c].format;
            if f.sampleType != f0.sampleType || f.bitsPerSample != f0.bitsPerSample {
                return Err("plane 1 and 2 do not have binary compatible storage".into());
            }
        }
        if cf == cfRGB && (ssw != 0 || ssh != 0) {
            return Err("subsampled RGB not allowed".into());
        }
        format::query_video(cf, f0.sampleType, f0.bitsPerSample, ssw, ssh)
    };
    let fmt = fmt.ok_or("the resulting format is not valid")?;
    let mut vi = infos[0];
    vi.format = fmt;
    vi.width = w;
    vi.height = h;
    vi.numFrames = infos.iter().map(|v| v.numFrames).max().unwrap_or(0);
    let mut inputs = clips.clone();
    let has_prop_src = prop_src.is_some();
    if let Some(p) = prop_src {
        inputs.push(p);
    }
    let count = inputs.len();
    let patterns = same_n_patterns(&inputs, vi.numFrames);
    let node = pixel_node(
        core,
        "ShufflePlanes",
        vi,
        inputs,
        patterns,
        Box::new(move |n| (0..count).map(|i| (i, n)).collect()),
        Box::new(move |_, frames, core| {
            let parts: Vec<(&Frame, usize)> = sel.iter().map(|&(c, p)| (&*frames[c], p)).collect();
            let props = if has_prop_src { &frames[count - 1] } else { &frames[0] };
            assemble(core, &fmt, w, h, &parts, props)
        }),
    )?;
    set_clip(out, node);
    Ok(())
}

fn split_planes(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let clip = Args(input).node("clip")?;
    let vi = vinfo(&clip)?;
    if vi.format.colorFamily == cfUndefined {
        return Err("only constant format clips supported".into());
    }
    let gray = format::query_video(cfGray, vi.format.sampleType, vi.format.bitsPerSample, 0, 0).expect("a gray format of the same samples");
    for p in 0..vi.format.numPlanes as usize {
        let mut pvi = vi;
        pvi.format = gray;
        (pvi.width, pvi.height) = if vi.width > 0 { plane_size(&vi, p) } else { (0, 0) };
        let node = spatial_node(core, "SplitPlanes", pvi, clip.clone(), move |f, core| {
            let pl = &f.planes()[p];
            assemble(core, &gray, pl.width, pl.height, &[(f, p)], f)
        })?;
        append_clip(out, node);
    }
    Ok(())
}
