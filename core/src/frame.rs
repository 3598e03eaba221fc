//! Video and audio frames. Planes are 64-byte aligned buffers shared copy-on-write between frames;
//! a frame handed out as `VSFrame*` is an `Arc<Frame>` turned into a raw pointer.
use std::alloc::{self, Layout};
use std::cell::UnsafeCell;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use crate::format;
use crate::map::Map;

/// Planes' alignment, the GPU crate's (its host transfer buffers become planes).
pub use crate::gpu::pool::ALIGNMENT;

/// Bytes of frame memory alive for one core, for getCoreInfo and the cache's budget, and the
/// core's pool of freed frame buffers.
#[derive(Default, Debug)]
pub struct MemStats {
    pub used: AtomicI64,
    pool: parking_lot::Mutex<BufferPool>,
    /// Where large video planes come from once set: host cached Vulkan memory of the core's
    /// device, which GPUUpload copies from with the copy engine instead of the CPU.
    pinned: std::sync::OnceLock<PinnedHost>,
}

/// The device whose host memory backs large frames (`pinned_frames_for`: the memory is pinned, and
/// up to `pool_bytes` of it is kept idle in the device pool's buckets), and CUDA's copies where
/// they run for the device, whose pinned memory backs the frames large enough for them
/// (gpu::cuda_copy::takes_frame).
pub struct PinnedHost(pub Arc<crate::gpu::device::Device>, pub Option<Arc<crate::gpu::cuda_copy::CudaCopies>>);

impl std::fmt::Debug for PinnedHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PinnedHost")
    }
}

/// Planes smaller than this stay in the heap: the copy engine's setup is not worth it for them.
const PINNED_MIN: usize = 256 << 10;

/// Whether large host frames live in the device's host transfer memory once it is up:
/// VSVK_PINNED_FRAMES=1 always, 0 never, and by default on discrete devices (not unified memory),
/// where their uploads then go by the upload kernel or a copy engine instead of the CPU writing
/// into the BAR (which tops out near 34 GB/s on the H100 for both cores).
pub fn pinned_frames_for(unified: bool) -> bool {
    match std::env::var("VSVK_PINNED_FRAMES").ok().as_deref().map(str::trim) {
        Some("1") => true,
        Some("0") => false,
        _ => !unified,
    }
}

/// Freed frame buffers kept for the next frame of the same size. Without it every large frame was
/// a fresh mapping from the allocator, paid for again in page faults and the kernel's zeroing (a
/// fifth of the time of an upload/filter/download chain on the H200), and smaller ones were zeroed
/// by calloc. Reused buffers are not zeroed again: their bytes are initialised (old frame data),
/// and nothing reads a new frame's samples before writing them, as with the reference's pool.
#[derive(Default, Debug)]
struct BufferPool {
    by_len: std::collections::HashMap<usize, Vec<PooledPtr>>,
    bytes: usize,
}

#[derive(Debug)]
struct PooledPtr(NonNull<u8>);
// SAFETY: a pooled pointer is an allocation owned by the pool alone.
unsafe impl Send for PooledPtr {}

/// The most bytes of freed buffers a core keeps, the GPU crate's (a device keeps as much idle host
/// transfer memory at most).
pub(crate) use crate::gpu::pool::pool_bytes;

impl MemStats {
    /// Large video planes come from `dev`'s host memory from now on, or from CUDA's pinned memory
    /// where `cuda` copies for it.
    pub fn use_pinned(&self, dev: &Arc<crate::gpu::device::Device>, cuda: Option<Arc<crate::gpu::cuda_copy::CudaCopies>>) {
        let _ = self.pinned.set(PinnedHost(dev.clone(), cuda));
    }
    /// The CUDA copies whose pinned memory large planes come from, if any.
    pub fn cuda_copies(&self) -> Option<&Arc<crate::gpu::cuda_copy::CudaCopies>> {
        self.pinned.get().and_then(|p| p.1.as_ref())
    }
    fn take(&self, len: usize) -> Option<NonNull<u8>> {
        let mut p = self.pool.lock();
        let ptr = p.by_len.get_mut(&len)?.pop()?.0;
        p.bytes -= len;
        Some(ptr)
    }
    /// Keeps `ptr` (an allocation of `len` bytes with Buffer's layout) or hands it back.
    fn give(&self, ptr: NonNull<u8>, len: usize) {
        {
            let mut p = self.pool.lock();
            if p.bytes + len <= pool_bytes() {
                p.bytes += len;
                p.by_len.entry(len).or_default().push(PooledPtr(ptr));
                return;
            }
        }
        // SAFETY: allocated by Buffer::allocate with this layout, owned by us.
        unsafe { alloc::dealloc(ptr.as_ptr(), Buffer::layout(len)) };
    }
}

impl Drop for MemStats {
    fn drop(&mut self) {
        for (len, v) in self.pool.get_mut().by_len.drain() {
            for p in v {
                // SAFETY: every pooled pointer is an allocation of `len` bytes with Buffer's layout.
                unsafe { alloc::dealloc(p.0.as_ptr(), Buffer::layout(len)) };
            }
        }
    }
}

pub struct Buffer {
    ptr: NonNull<u8>,
    len: usize,
    stats: Arc<MemStats>,
    /// GPU resident storage (a plane in VRAM); `ptr` is then dangling and nothing is host side.
    gpu: Option<Box<crate::gpu::frame::GpuPlane>>,
    /// Host memory that is a mapped Vulkan buffer (GPUDownload's readback, which the transfer
    /// queue wrote into directly); `ptr` is its mapping. Returned to the GPU pool when dropped.
    mapped: Option<Box<crate::gpu::GpuBuffer>>,
    /// Host memory CUDA pinned (pinned frames where copies go by CUDA); `ptr` is its start.
    cuda: Option<Box<crate::gpu::cuda_copy::HostBlock>>,
}

// SAFETY: the buffer is plain bytes owned by this value; shared access is read-only by the API's
// contract, and writes happen only through a frame that holds the sole reference (see make_unique).
unsafe impl Send for Buffer {}
unsafe impl Sync for Buffer {}

impl Buffer {
    fn layout(len: usize) -> Layout {
        Layout::from_size_align(len.max(1), ALIGNMENT).expect("frame sizes are bounded")
    }
    /// A buffer of zeroes (audio frames: filters leave silence unwritten).
    pub fn new(len: usize, stats: &Arc<MemStats>) -> Buffer {
        Self::allocate(len, stats, true)
    }
    /// A buffer whose bytes are initialised but may hold an earlier frame's data (video planes,
    /// which filters write whole, as with the reference's pool).
    pub fn new_unzeroed(len: usize, stats: &Arc<MemStats>) -> Buffer {
        Self::allocate(len, stats, false)
    }
    /// A pooled buffer of the same size, else a fresh one (zeroed, so that no byte is ever
    /// uninitialised); cleared when `zeroed`.
    fn allocate(len: usize, stats: &Arc<MemStats>, zeroed: bool) -> Buffer {
        if !zeroed && len >= PINNED_MIN && !crate::gpu::exec::in_release() {
            if let Some(PinnedHost(dev, _)) = stats.pinned.get() {
                if let Ok(b) = crate::gpu::GpuBuffer::host_transfer(dev, len as u64, crate::gpu::transfer::HOST_PLANE_USAGE) {
                    return Buffer::new_mapped(len, b, stats);
                }
            }
        }
        let ptr = match stats.take(len) {
            Some(p) => {
                crate::stats::count(crate::stats::Stat::HostReuse);
                if zeroed {
                    // SAFETY: a pooled allocation of `len` bytes, owned by us now.
                    unsafe { std::ptr::write_bytes(p.as_ptr(), 0, len) };
                }
                p
            }
            None => {
                let _t = crate::stats::time(crate::stats::Stat::HostNew);
                let layout = Self::layout(len);
                // SAFETY: the layout has non-zero size.
                let raw = unsafe { alloc::alloc_zeroed(layout) };
                NonNull::new(raw).unwrap_or_else(|| alloc::handle_alloc_error(layout))
            }
        };
        stats.used.fetch_add((len + ALIGNMENT) as i64, Ordering::Relaxed);
        Buffer { ptr, len, stats: stats.clone(), gpu: None, mapped: None, cuda: None }
    }
    /// A GPU resident plane of `len` bytes; no host memory.
    pub fn new_gpu(len: usize, gpu: crate::gpu::frame::GpuPlane, stats: &Arc<MemStats>) -> Buffer {
        Buffer { ptr: NonNull::dangling(), len, stats: stats.clone(), gpu: Some(Box::new(gpu)), mapped: None, cuda: None }
    }
    /// Host plane memory that is the mapping of `b` (at least `len` bytes, mapped, 64-byte
    /// aligned: GpuBuffer::host_transfer's promise), counted as the core's framebuffer memory.
    pub fn new_mapped(len: usize, b: crate::gpu::GpuBuffer, stats: &Arc<MemStats>) -> Buffer {
        let ptr = NonNull::new(b.get().mapped()).expect("host transfer buffers are mapped");
        debug_assert!(ptr.as_ptr() as usize % ALIGNMENT == 0 && b.get().size as usize >= len);
        stats.used.fetch_add((len + ALIGNMENT) as i64, Ordering::Relaxed);
        Buffer { ptr, len, stats: stats.clone(), gpu: None, mapped: Some(Box::new(b)), cuda: None }
    }
    /// Host plane memory in CUDA's pinned block `b` (at least `len` bytes), counted as the core's
    /// framebuffer memory.
    pub fn new_cuda(len: usize, b: crate::gpu::cuda_copy::HostBlock, stats: &Arc<MemStats>) -> Buffer {
        let ptr = NonNull::new(b.ptr()).expect("CUDA's host allocations are not null");
        debug_assert!((ptr.as_ptr() as usize).is_multiple_of(ALIGNMENT) && b.len() >= len);
        stats.used.fetch_add((len + ALIGNMENT) as i64, Ordering::Relaxed);
        Buffer { ptr, len, stats: stats.clone(), gpu: None, mapped: None, cuda: Some(Box::new(b)) }
    }
    /// CUDA's pinned block behind a host plane.
    pub fn cuda_host(&self) -> Option<&crate::gpu::cuda_copy::HostBlock> {
        self.cuda.as_deref()
    }
    /// The Vulkan buffer behind a mapped host plane.
    pub fn mapped_vk(&self) -> Option<&crate::gpu::GpuBuffer> {
        self.mapped.as_deref()
    }
    pub fn gpu(&self) -> Option<&crate::gpu::frame::GpuPlane> {
        self.gpu.as_deref()
    }
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Clone for Buffer {
    fn clone(&self) -> Buffer {
        if self.gpu.is_some() {
            crate::fatal::fatal("Copy on write of GPU resident planes is not implemented");
        }
        // (a copy of a plane in CUDA's pinned memory stays there, so that its frame still goes by
        // CUDA: CUDA copies only frames whose planes are all its own)
        let cuda = self.cuda.as_ref().and(self.stats.cuda_copies()).filter(|_| !crate::gpu::exec::in_release()).and_then(|c| c.host_block(self.len).ok());
        let b = match cuda {
            Some(block) => Buffer::new_cuda(self.len, block, &self.stats),
            None => Buffer::allocate(self.len, &self.stats, false),
        };
        // SAFETY: both regions are `len` bytes long and distinct allocations.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), b.ptr.as_ptr(), self.len) };
        b
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if self.gpu.is_some() {
            return;
        }
        self.stats.used.fetch_sub((self.len + ALIGNMENT) as i64, Ordering::Relaxed);
        if self.mapped.take().is_some() || self.cuda.take().is_some() {
            // The GPU buffer or CUDA block went back to its pool as it dropped.
            return;
        }
        self.stats.give(self.ptr, self.len);
    }
}

#[derive(Clone)]
pub struct Plane {
    pub buf: Arc<Buffer>,
    pub offset: usize,
    pub stride: isize,
    pub width: i32,
    pub height: i32,
}

impl Plane {
    fn ptr(&self) -> *mut u8 {
        // SAFETY: offset lies inside the buffer by construction.
        unsafe { self.buf.as_ptr().add(self.offset) }
    }
}

#[derive(Clone, Copy)]
pub enum FrameFormat {
    Video(VSVideoFormat),
    Audio(VSAudioFormat),
}

pub struct Frame {
    pub format: FrameFormat,
    /// Video: frame width and height. Audio: samples in `width`, 1 in `height`.
    pub width: i32,
    pub height: i32,
    planes: UnsafeCell<Vec<Plane>>,
    props: UnsafeCell<Map>,
    pub residency: i32,
}

// SAFETY: the UnsafeCells are only written through `&mut`-like access that the API grants to the
// single owner of a frame not yet shared (a new or copied frame); readers never race a writer.
unsafe impl Send for Frame {}
unsafe impl Sync for Frame {}

pub fn aligned_stride(bytes: usize) -> usize {
    bytes.div_ceil(ALIGNMENT) * ALIGNMENT
}

#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("invalid format")]
    BadFormat,
    #[error("invalid dimensions ({0}x{1})")]
    BadDimensions(i32, i32),
    #[error("dimensions ({0}x{1}) are not a multiple of the format's subsampling")]
    Subsampling(i32, i32),
    #[error("invalid number of samples ({0})")]
    BadLength(i32),
}

impl Frame {
    pub fn new_video(f: &VSVideoFormat, w: i32, h: i32, stats: &Arc<MemStats>) -> Result<Frame, FrameError> {
        let mut blocks = Frame::cuda_blocks(f, w, h, stats).map(Vec::into_iter);
        let mut plane = |len| match blocks.as_mut().and_then(Iterator::next) {
            Some(b) => Buffer::new_cuda(len, b, stats),
            None => Buffer::new_unzeroed(len, stats),
        };
        match Frame::new_video_in(f, w, h, |len| Ok(plane(len)))? {
            Ok(fr) => Ok(fr),
            Err(e) => unreachable!("host allocation reports no error: {e}"),
        }
    }

    /// The bytes of a video frame's planes (`stride * height` each); 0 for a format or size that
    /// new_video_in refuses.
    pub fn video_bytes(f: &VSVideoFormat, w: i32, h: i32) -> usize {
        Frame::plane_lens(f, w, h).iter().sum()
    }

    /// Each plane's bytes (`stride * height`) in a video frame; none for a format or size that
    /// new_video_in refuses.
    fn plane_lens(f: &VSVideoFormat, w: i32, h: i32) -> Vec<usize> {
        if !format::is_valid_video(f) || w <= 0 || h <= 0 {
            return Vec::new();
        }
        (0..f.numPlanes as usize)
            .map(|p| {
                let (_, ph, stride) = Frame::plane_layout(f, w, h, p);
                stride * ph.max(0) as usize
            })
            .collect()
    }

    /// CUDA's pinned blocks for every plane of a new video frame, where CUDA copies for the core's
    /// device, the frame is large enough for it (cuda_copy::takes_frame) and idle blocks are there
    /// (cuda_copy::CudaCopies::frame_blocks). Otherwise none: the planes take the device's host
    /// memory as smaller frames do (Buffer::allocate), GPUUpload copies such a frame by Vulkan, and
    /// CUDA only copies frames whose planes are all its own.
    fn cuda_blocks(f: &VSVideoFormat, w: i32, h: i32, stats: &Arc<MemStats>) -> Option<Vec<crate::gpu::cuda_copy::HostBlock>> {
        let cuda = stats.cuda_copies()?;
        let lens = Frame::plane_lens(f, w, h);
        let bytes: usize = lens.iter().sum();
        if !crate::gpu::cuda_copy::takes_frame(bytes) || lens.iter().any(|&l| l < PINNED_MIN) || crate::gpu::exec::in_release() {
            return None;
        }
        cuda.frame_blocks(&lens).ok().flatten()
    }

    /// Plane `p`'s width and height, and its row stride in bytes, in every video frame.
    fn plane_layout(f: &VSVideoFormat, w: i32, h: i32, p: usize) -> (i32, i32, usize) {
        let (pw, ph) = format::plane_dims(f, w, h, p);
        (pw, ph, aligned_stride(pw as usize * f.bytesPerSample as usize))
    }

    /// A video frame whose planes (`stride * height` bytes each, the layout every video frame
    /// has) come from `make`, after the format and size checks every video frame passes.
    pub fn new_video_in(
        f: &VSVideoFormat,
        w: i32,
        h: i32,
        mut make: impl FnMut(usize) -> Result<Buffer, String>,
    ) -> Result<Result<Frame, String>, FrameError> {
        if !format::is_valid_video(f) {
            return Err(FrameError::BadFormat);
        }
        if w <= 0 || h <= 0 {
            return Err(FrameError::BadDimensions(w, h));
        }
        if w % (1 << f.subSamplingW) != 0 || h % (1 << f.subSamplingH) != 0 {
            return Err(FrameError::Subsampling(w, h));
        }
        let mut planes = Vec::with_capacity(f.numPlanes as usize);
        for p in 0..f.numPlanes as usize {
            let (pw, ph, stride) = Frame::plane_layout(f, w, h, p);
            let buf = match make(stride * ph as usize) {
                Ok(b) => b,
                Err(e) => return Ok(Err(e)),
            };
            planes.push(Plane { buf: Arc::new(buf), offset: 0, stride: stride as isize, width: pw, height: ph });
        }
        let gpu = planes.iter().any(|p| p.buf.gpu().is_some());
        let mut fr = Frame::assemble(FrameFormat::Video(*f), w, h, planes);
        if gpu {
            fr.residency = nrGPU;
        }
        Ok(Ok(fr))
    }

    /// A GPU resident video frame whose planes already exist (memory another API exported):
    /// `planes[p]` is plane p's storage and row stride in bytes.
    pub fn from_gpu_planes(f: &VSVideoFormat, w: i32, h: i32, stats: &Arc<MemStats>, planes: Vec<(crate::gpu::frame::GpuPlane, isize)>) -> Result<Frame, FrameError> {
        if !format::is_valid_video(f) || planes.len() != f.numPlanes as usize {
            return Err(FrameError::BadFormat);
        }
        if w <= 0 || h <= 0 {
            return Err(FrameError::BadDimensions(w, h));
        }
        if w % (1 << f.subSamplingW) != 0 || h % (1 << f.subSamplingH) != 0 {
            return Err(FrameError::Subsampling(w, h));
        }
        let planes = planes
            .into_iter()
            .enumerate()
            .map(|(p, (g, stride))| {
                let (pw, ph) = format::plane_dims(f, w, h, p);
                Plane { buf: Arc::new(Buffer::new_gpu(g.size as usize, g, stats)), offset: 0, stride, width: pw, height: ph }
            })
            .collect();
        let mut fr = Frame::assemble(FrameFormat::Video(*f), w, h, planes);
        fr.residency = nrGPU;
        Ok(fr)
    }

    /// A GPU resident video frame: the CPU frame's layout, each plane's `stride * height` bytes
    /// coming from `alloc` instead of host memory (a CPU frame of the size is never allocated).
    pub fn new_gpu_video(
        f: &VSVideoFormat,
        w: i32,
        h: i32,
        stats: &Arc<MemStats>,
        mut alloc: impl FnMut(usize) -> Result<crate::gpu::frame::GpuPlane, String>,
    ) -> Result<Result<Frame, String>, FrameError> {
        Frame::new_video_in(f, w, h, |len| alloc(len).map(|g| Buffer::new_gpu(len, g, stats)))
    }

    pub fn new_audio(f: &VSAudioFormat, samples: i32, stats: &Arc<MemStats>) -> Result<Frame, FrameError> {
        if !format::is_valid_audio(f) {
            return Err(FrameError::BadFormat);
        }
        if samples <= 0 || samples > VS_AUDIO_FRAME_SAMPLES {
            return Err(FrameError::BadLength(samples));
        }
        // Every channel gets a full-size slot in one allocation, as the reference lays them out.
        let stride = VS_AUDIO_FRAME_SAMPLES as usize * f.bytesPerSample as usize;
        let buf = Arc::new(Buffer::new(stride * f.numChannels as usize, stats));
        let planes = (0..f.numChannels as usize)
            .map(|c| Plane { buf: buf.clone(), offset: c * stride, stride: stride as isize, width: samples, height: 1 })
            .collect();
        Ok(Frame::assemble(FrameFormat::Audio(*f), samples, 1, planes))
    }

    fn assemble(format: FrameFormat, width: i32, height: i32, planes: Vec<Plane>) -> Frame {
        Frame {
            format,
            width,
            height,
            planes: UnsafeCell::new(planes),
            props: UnsafeCell::new(Map::new_frame_props()),
            residency: nrCPU,
        }
    }

    /// A new frame sharing this one's planes and a copy of its properties.
    pub fn shallow_copy(&self) -> Frame {
        let mut f = Frame::assemble(self.format, self.width, self.height, self.planes().to_vec());
        f.residency = self.residency;
        // SAFETY: `f` is not shared yet.
        unsafe { *f.props.get() = self.props().clone() };
        f
    }

    pub fn residency(&self) -> i32 {
        self.residency
    }
    pub fn is_audio(&self) -> bool {
        matches!(self.format, FrameFormat::Audio(_))
    }
    pub fn media_type(&self) -> i32 {
        if self.is_audio() {
            mtAudio
        } else {
            mtVideo
        }
    }
    pub fn video_format(&self) -> Option<&VSVideoFormat> {
        match &self.format {
            FrameFormat::Video(f) => Some(f),
            FrameFormat::Audio(_) => None,
        }
    }
    pub fn audio_format(&self) -> Option<&VSAudioFormat> {
        match &self.format {
            FrameFormat::Audio(f) => Some(f),
            FrameFormat::Video(_) => None,
        }
    }
    pub fn planes(&self) -> &[Plane] {
        // SAFETY: see the Sync impl; readers only.
        unsafe { &*self.planes.get() }
    }
    pub fn num_planes(&self) -> usize {
        self.planes().len()
    }
    pub fn plane(&self, p: i32) -> Option<&Plane> {
        usize::try_from(p).ok().and_then(|p| self.planes().get(p))
    }
    pub fn props(&self) -> &Map {
        // SAFETY: see the Sync impl.
        unsafe { &*self.props.get() }
    }
    /// # Safety
    /// The caller holds the only reference to a frame it may write (new or copied), as the API requires.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn props_mut(&self) -> &mut Map {
        &mut *self.props.get()
    }
    pub fn read_ptr(&self, p: i32) -> Option<*const u8> {
        self.plane(p).map(|pl| pl.ptr() as *const u8)
    }
    /// Makes plane `p` private to this frame (copying a shared buffer) and returns where to write.
    ///
    /// # Safety
    /// As for `props_mut`: the caller owns the frame exclusively.
    pub unsafe fn write_ptr(&self, p: i32) -> Option<*mut u8> {
        let idx = usize::try_from(p).ok()?;
        let planes = &mut *self.planes.get();
        let old = planes.get(idx)?.buf.clone();
        let own = planes.iter().filter(|pl| Arc::ptr_eq(&pl.buf, &old)).count();
        // `old` itself is one more strong reference than the frame's own.
        if Arc::strong_count(&old) > own + 1 {
            let fresh = Arc::new((*old).clone());
            for pl in planes.iter_mut().filter(|pl| Arc::ptr_eq(&pl.buf, &old)) {
                pl.buf = fresh.clone();
            }
        }
        Some(planes[idx].ptr())
    }
    /// Replaces plane `p` with `src` (shared, not copied); used by newVideoFrame2.
    ///
    /// # Safety
    /// As for `props_mut`.
    pub unsafe fn set_plane(&self, p: usize, src: Plane) {
        (&mut *self.planes.get())[p] = src;
    }

    pub fn into_raw(f: Arc<Frame>) -> *const VSFrame {
        Arc::into_raw(f).cast()
    }
    /// # Safety
    /// `p` came from `into_raw` and still holds a reference.
    pub unsafe fn borrow_raw<'a>(p: *const VSFrame) -> &'a Frame {
        &*p.cast::<Frame>()
    }
    /// A new counted reference to a raw frame.
    ///
    /// # Safety
    /// As for `borrow_raw`.
    pub unsafe fn clone_raw(p: *const VSFrame) -> Arc<Frame> {
        Arc::increment_strong_count(p.cast::<Frame>());
        Arc::from_raw(p.cast::<Frame>())
    }
    /// Takes over the reference a raw frame holds.
    ///
    /// # Safety
    /// As for `borrow_raw`; the raw pointer must not be used afterwards.
    pub unsafe fn from_raw(p: *const VSFrame) -> Arc<Frame> {
        Arc::from_raw(p.cast::<Frame>())
    }
    /// Approximate bytes held, for cache budgeting.
    pub fn byte_size(&self) -> usize {
        let mut seen: Vec<*const Buffer> = Vec::new();
        let mut total = 0;
        for pl in self.planes() {
            let p = Arc::as_ptr(&pl.buf);
            if pl.buf.gpu().is_some() {
                continue; // VRAM is accounted by the GPU pool
            }
            if !seen.contains(&p) {
                seen.push(p);
                total += pl.buf.len();
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vsvk_plugin_api::abi::{cfGray, cfYUV, stFloat, stInteger};

    fn frame_bytes(family: i32, sample: i32, bits: i32, ss: i32, w: i32, h: i32) -> usize {
        let f = format::query_video(family, sample, bits, ss, ss).expect("a legal format");
        let bytes = Frame::video_bytes(&f, w, h);
        let stats = Arc::new(MemStats::default());
        let fr = Frame::new_video(&f, w, h, &stats).expect("a frame");
        // (the planes new_video lays out are the bytes counted)
        let planes: usize = fr.planes().iter().map(|p| p.stride as usize * p.height as usize).sum();
        assert_eq!(bytes, planes);
        bytes
    }

    /// The sizes that choose a frame's route to the device (cuda_copy::takes_frame).
    #[test]
    fn video_bytes_count_every_planes_rows() {
        assert_eq!(frame_bytes(cfYUV, stInteger, 8, 1, 1920, 1080), 3_110_400);
        assert_eq!(frame_bytes(cfYUV, stInteger, 8, 1, 3840, 2160), 12_441_600);
        assert_eq!(frame_bytes(cfYUV, stInteger, 16, 1, 3840, 2160), 24_883_200);
        assert_eq!(frame_bytes(cfGray, stFloat, 32, 0, 1920, 1080), 8_294_400);
        // rows padded to the stride's alignment: 100 bytes of luma and 50 of each chroma a row
        assert_eq!(frame_bytes(cfYUV, stInteger, 8, 1, 100, 10), aligned_stride(100) * 10 + 2 * aligned_stride(50) * 5);
        let f = format::query_video(cfGray, stInteger, 8, 0, 0).unwrap();
        assert_eq!(Frame::video_bytes(&f, 0, 10), 0);
    }
}
