//! Copies by CUDA between host frames in CUDA's pinned memory and the device's exportable planes:
//! the route that reaches the bus both ways at once. Vulkan's queues stop near 71 GB/s together on
//! the H100 whatever the host memory, CUDA's copies on Vulkan's host memory near 52, and CUDA's
//! copies on CUDA's pinned memory move 95-98 (bench/vkcopy, docs/BENCHMARKS.md, Transfers). So
//! large host frames live in CUDA's pinned memory (`HostBlock`), and their uploads and downloads
//! go on two CUDA streams, one a direction, into and out of planes the device exported and CUDA
//! imported once (gpu::cuda's cache). The upload stream signals a timeline semaphore of the device
//! that CUDA imported: an upload's value is its planes' producer, so Vulkan's queues and host waits
//! order after it as after any submission. A download waits for its planes' producers (on its
//! stream, by a CUDA event, where that is our upload stream; else on the host), then queues its
//! copies and waits on the host for an event after them. Downloads use no semaphore of the
//! device: while the download stream waited on the upload stream's timeline and the host on the
//! download stream's, every row with a download stopped near 1,550 fps on the H100 whatever the
//! frame's size (bench/results/h100-2026-12-07-bench-18); with events the 2160p 16-bit round
//! trip ran 1,605 fps (h100-2026-12-07-s44/events-roundtrip.txt).
use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::cuda::{self, Cuda, CuEvent, CuExternalSemaphore, CuStream, Mem};
use crate::device::Device;
use crate::exec::{wait_value, Timeline};
use crate::frame::GpuPlane;
use crate::pinned::{Pinner, PinnedPool, Sizes};

/// The CUDA copies of one device.
pub struct CudaCopies {
    pub cu: &'static Cuda,
    dev: Arc<Device>,
    up: Lane,
    down: DownStream,
    /// Pinned host blocks for frame planes, idle ones kept for the next frame of their size.
    blocks: Arc<PinnedPool>,
}

/// VSVK_CUDA_PIN_ALONE=1 (measurements): each thread with no idle block pins a slab of its own and
/// none is pinned ahead (crate::pinned), the way before single-flight pinning.
fn pin_alone() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| crate::settings::switch_on("VSVK_CUDA_PIN_ALONE"))
}

/// VSVK_CUDA_PIN_WAIT=1 (measurements): a new frame with no idle pinned blocks waits for them to be
/// pinned, rather than taking the device's host memory meanwhile (CudaCopies::frame_blocks).
fn pin_wait() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| crate::settings::switch_on("VSVK_CUDA_PIN_WAIT"))
}

/// CUDA's pinned host memory (cuMemHostAlloc), timed as `cuda host new`.
struct CudaPinner(&'static Cuda);

impl Pinner for CudaPinner {
    fn pin(&self, bytes: usize) -> Result<*mut u8, String> {
        let _t = crate::stats::time(crate::stats::Stat::CudaHostNew);
        self.0.alloc_host(bytes)
    }
    unsafe fn unpin(&self, p: *mut u8) {
        // SAFETY: the caller's promise.
        unsafe { self.0.free_host(p) };
    }
}

/// Slabs are anonymous memory in transparent huge pages, touched, then registered with CUDA
/// (crate::huge_pages); VSVK_CUDA_PIN_HUGE=0 has cuMemHostAlloc pin them instead, as does a slab
/// whose mapping or registration fails. Timed as `cuda host new` either way. On the H100, in one
/// call: 10 slabs in 319 ms against 8 in 536-590 ms by cuMemHostAlloc over 400 new 2160p 16-bit
/// frames, and that upload row ran 1.27x R81 against 0.80-0.85x
/// (bench/results/h100-2026-12-08-s48/pinning-1.txt). (Unix only, as CUDA's copies are.)
fn pinner(cu: &'static Cuda) -> Arc<dyn Pinner> {
    #[cfg(unix)]
    if !crate::settings::switch_off("VSVK_CUDA_PIN_HUGE") {
        return Arc::new(huge::CudaHugePinner { cu, maps: Mutex::new(std::collections::HashMap::new()) });
    }
    Arc::new(CudaPinner(cu))
}

#[cfg(unix)]
mod huge {
    use std::collections::HashMap;

    use parking_lot::Mutex;

    use crate::cuda::Cuda;
    use crate::huge_pages::HugeMap;
    use crate::pinned::Pinner;

    /// Huge-page slabs registered with CUDA, each kept mapped until it is unpinned; a slab not in
    /// `maps` came from cuMemHostAlloc.
    pub(super) struct CudaHugePinner {
        pub(super) cu: &'static Cuda,
        pub(super) maps: Mutex<HashMap<usize, HugeMap>>,
    }

    impl CudaHugePinner {
        fn register(&self, bytes: usize) -> Result<*mut u8, String> {
            let map = HugeMap::new(bytes)?;
            let (p, len) = map.region();
            // SAFETY: the map's bytes stay mapped while it is kept below, until unpin.
            unsafe { self.cu.register_host(p, len) }?;
            self.maps.lock().insert(p as usize, map);
            Ok(p)
        }
    }

    impl Pinner for CudaHugePinner {
        fn pin(&self, bytes: usize) -> Result<*mut u8, String> {
            let _t = crate::stats::time(crate::stats::Stat::CudaHostNew);
            self.register(bytes).or_else(|_| self.cu.alloc_host(bytes))
        }
        unsafe fn unpin(&self, p: *mut u8) {
            let map = self.maps.lock().remove(&(p as usize));
            match map {
                // SAFETY: the caller's promise: registered by pin, unused now; unmapped after.
                Some(map) => unsafe {
                    self.cu.unregister_host(p);
                    drop(map);
                },
                // SAFETY: the caller's promise: cuMemHostAlloc's, unused now.
                None => unsafe { self.cu.free_host(p) },
            }
        }
    }
}

/// About how much one slab holds, and at most how many blocks.
const SLAB_BYTES: usize = 128 << 20;
const SLAB_BLOCKS: usize = 16;

/// Events the upload stream records, one after each upload, in turn: value v's is `v % UP_EVENTS`.
/// A download waits for a later upload's record of that event where v's was overwritten, which
/// is still after v (the stream runs its uploads in order, and they wait for nothing).
const UP_EVENTS: usize = 64;

/// How many uploads may be queued on the stream before the next waits on the host: 8 by default,
/// as many as the core's upload pool by Vulkan holds submissions (an exec pool's ring is two to
/// eight contexts, and acquiring one waits out the oldest); VSVK_CUDA_UPLOADS_AHEAD=N sets it,
/// 0 leaves the stream unbounded.
fn uploads_ahead() -> u64 {
    static N: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *N.get_or_init(|| parse_uploads_ahead(std::env::var("VSVK_CUDA_UPLOADS_AHEAD").ok().as_deref()))
}

const UPLOADS_AHEAD: u64 = 8;

fn parse_uploads_ahead(v: Option<&str>) -> u64 {
    v.and_then(|v| v.trim().parse().ok()).unwrap_or(UPLOADS_AHEAD)
}

/// The upload stream and the timeline it signals.
struct Lane {
    stream: CuStream,
    timeline: Arc<Timeline>,
    sem: CuExternalSemaphore,
    events: Vec<CuEvent>,
    state: Mutex<LaneState>,
}

#[derive(Default)]
struct LaneState {
    /// The last value queued.
    queued: u64,
    /// What copies still being made need kept, by the value that ends them: the source frame and
    /// the uses of imported memory.
    held: VecDeque<(u64, Held)>,
    /// The value whose upload each event was last recorded after; 0 where a record failed (a
    /// download then waits for the timeline itself).
    recorded: Vec<u64>,
}

/// The download stream, and idle events to wait for its copies with.
struct DownStream {
    stream: CuStream,
    idle: Mutex<Vec<CuEvent>>,
}

struct Held {
    _keep: Option<Box<dyn Send + Sync>>,
    memory: Vec<u64>,
}

impl Drop for Held {
    fn drop(&mut self) {
        for &m in &self.memory {
            cuda::release_memory(m);
        }
    }
}

// SAFETY: CUDA streams and imported semaphores are plain identifiers, usable from any thread.
unsafe impl Send for Lane {}
// SAFETY: as above; the mutable state is behind the mutex.
unsafe impl Sync for Lane {}
// SAFETY: a CUDA stream and events, plain identifiers usable from any thread; the idle list is
// behind its mutex.
unsafe impl Send for DownStream {}
// SAFETY: as above.
unsafe impl Sync for DownStream {}

impl Lane {
    fn new(cu: &'static Cuda, dev: &Arc<Device>) -> Result<Lane, String> {
        let timeline = Timeline::for_cuda(dev)?;
        let sem = cuda::import_semaphore(cu, &timeline).ok_or("CUDA could not import a timeline semaphore of the device")?;
        let stream = cu.new_stream()?;
        let mut events = Vec::with_capacity(UP_EVENTS);
        while events.len() < UP_EVENTS {
            match cu.new_event() {
                Ok(e) => events.push(e),
                Err(e) => {
                    events.into_iter().for_each(|x| cu.destroy_event(x));
                    cu.destroy_stream(stream);
                    return Err(e);
                }
            }
        }
        let state = LaneState { recorded: vec![0; UP_EVENTS], ..LaneState::default() };
        Ok(Lane { stream, timeline, sem, events, state: Mutex::new(state) })
    }

    /// Makes `stream` wait on the device for this lane's `value`: by its event where that still
    /// stands for it or a later value, else by the timeline.
    fn order_after(&self, cu: &Cuda, stream: CuStream, value: u64) -> Result<(), String> {
        // (under the lock, so that no upload records the event again between the check and the wait)
        let st = self.state.lock();
        let slot = (value % UP_EVENTS as u64) as usize;
        if st.recorded[slot] >= value {
            cu.wait_event(stream, self.events[slot])
        } else {
            cu.wait(self.sem, value, stream)
        }
    }

    /// Queues the uploads `copies` and the signal of the lane's next value after them, holds
    /// `held` until that value, and returns it. The value is signalled even after a failed copy:
    /// planes and waits name it, and a value never signalled would hold them forever; the error
    /// still goes to the caller. Where the signal itself fails, `held` is kept for good: copies
    /// may still read it.
    ///
    /// # Safety
    /// The host sides of `copies` stay valid until the value is reached.
    unsafe fn queue(&self, cu: &Cuda, copies: &[Copy2d], held: Held) -> Result<u64, String> {
        let mut st = self.state.lock();
        self.sweep(&mut st);
        let value = st.queued + 1;
        // SAFETY: the caller's promise.
        let queued = unsafe { queue_copies(cu, copies, self.stream) };
        if let Err(e) = cu.signal(self.sem, value, self.stream) {
            st.held.push_back((u64::MAX, held));
            return Err(format!("GPUUpload by CUDA: {e}"));
        }
        st.queued = value;
        st.held.push_back((value, held));
        let slot = (value % UP_EVENTS as u64) as usize;
        st.recorded[slot] = if queued.is_ok() && cu.record(self.events[slot], self.stream).is_ok() { value } else { 0 };
        drop(st);
        if let Err(e) = queued {
            // The copies queued before the failed one may still write the caller's host frame,
            // which it drops on the error.
            let _ = wait_value(&self.timeline.dev, self.timeline.sem, value);
            return Err(format!("GPUUpload by CUDA: {e}"));
        }
        Ok(value)
    }

    /// Waits on the host until fewer than uploads_ahead() uploads are queued ahead of the stream.
    /// Nothing else holds back a thread that uploads new frames: each upload returns once queued,
    /// and its source frame stays pinned until the copy is done, so frames the CPU fills faster
    /// than the bus takes them may pile up on the stream, each in newly pinned memory (119
    /// allocations of 28 ms in 2,000 new 2160p 16-bit frames on the H100, where a new frame each
    /// time went up at 0.57-0.62x R81; bench/results/h100-2026-12-07-s45/cudawait.txt). Uploads
    /// wait for nothing on the stream, so this wait always ends.
    fn wait_room(&self, dev: &Device) -> Result<(), String> {
        let ahead = uploads_ahead();
        if ahead == 0 {
            return Ok(());
        }
        let queued = self.state.lock().queued;
        let Some(v) = queued.checked_sub(ahead - 1).filter(|&v| v > 0 && self.timeline.pending(v)) else { return Ok(()) };
        wait_value(dev, self.timeline.sem, v).into_result().map_err(|e| format!("GPUUpload by CUDA: {e}"))
    }

    /// Lets go of what finished copies held.
    fn sweep(&self, st: &mut LaneState) {
        let Some(reached) = self.timeline.reached() else { return };
        while st.held.front().is_some_and(|(v, _)| *v <= reached) {
            st.held.pop_front();
        }
    }
}

impl DownStream {
    fn new(cu: &Cuda) -> Result<DownStream, String> {
        Ok(DownStream { stream: cu.new_stream()?, idle: Mutex::new(Vec::new()) })
    }

    /// Queues, after `after_upload` of `up` (0: nothing), `copies` into host memory, and waits on
    /// the host until they are done, error or not: the caller frees the host frame on an error.
    ///
    /// # Safety
    /// The host sides of `copies` stay valid until this returns.
    unsafe fn copy_and_wait(&self, cu: &Cuda, up: &Lane, after_upload: u64, copies: &[Copy2d]) -> Result<(), String> {
        let event = match self.idle.lock().pop() {
            Some(e) => e,
            None => cu.new_event().map_err(|e| format!("GPUDownload by CUDA: {e}"))?,
        };
        let mut queued = if after_upload > 0 { up.order_after(cu, self.stream, after_upload) } else { Ok(()) };
        if queued.is_ok() {
            // SAFETY: the caller's promise.
            queued = unsafe { queue_copies(cu, copies, self.stream) };
        }
        match cu.record(event, self.stream).and_then(|_| cu.synchronize(event)) {
            Ok(()) => self.idle.lock().push(event),
            Err(e) => {
                // Copies queued before the failure may still write the host frame: wait for the
                // whole context rather than let it go.
                // SAFETY: waits for this context's work; takes no pointers.
                let _ = cu.with_ctx(|| cu.check(unsafe { (cu.ctx_synchronize)() }, "cuCtxSynchronize"));
                cu.destroy_event(event);
                return Err(format!("GPUDownload by CUDA: the copy did not complete: {e}"));
            }
        }
        queued.map_err(|e| format!("GPUDownload by CUDA: {e}"))
    }
}

/// One copy: destination, its pitch, source, its pitch, bytes a row, rows.
type Copy2d = (Mem, usize, Mem, usize, usize, usize);

/// Queues `copies` on `stream`, stopping at the first that fails.
///
/// # Safety
/// The host sides of `copies` stay valid until the stream has run them.
unsafe fn queue_copies(cu: &Cuda, copies: &[Copy2d], stream: CuStream) -> Result<(), String> {
    copies.iter().try_for_each(|&(dst, dst_pitch, src, src_pitch, row, rows)| {
        // SAFETY: the caller's promise.
        unsafe { cu.copy(dst, dst_pitch, src, src_pitch, row, rows, stream) }
    })
}

/// One plane's copy: `rows` rows of `row_bytes`, the host side at `host` with rows `host_pitch`
/// apart, the device side `plane_offset` bytes into the plane with rows `plane_pitch` apart.
pub struct PlaneCopy<'a> {
    pub host: *mut u8,
    pub host_pitch: usize,
    pub plane: &'a GpuPlane,
    pub plane_offset: usize,
    pub plane_pitch: usize,
    pub row_bytes: usize,
    pub rows: usize,
}

/// Host memory pinned by CUDA, a host frame plane's; back to its device's idle blocks when dropped.
pub type HostBlock = crate::pinned::Block;

/// Whether copies go by CUDA (VSVK_CUDA_COPIES): `Asked` (1) where the driver and the device allow,
/// with a warning where they do not; `Never` (0); `WhereAvailable` (unset) likewise, silently.
/// CUDA's copies move both directions at the bus's speed at once, where Vulkan's queues stop near
/// 71 GB/s together: the 2160p 16-bit round trip ran 1,649 fps by default with them against 1,360
/// without, on H100s (bench/results/h100-2026-12-07-bench-20, -bench-17). But with CUDA's copies
/// for every frame, 1080p frames beside filters trailed Vulkan's copies (KNLMeans 0.87x R81,
/// BM3D 0.72x, our vk filters 0.73-0.86x, -bench-19-cuda, against 0.99-1.69x by Vulkan's in
/// -bench-17), so CUDA takes only frames of `takes_frame`'s size.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Wanted {
    Asked,
    Never,
    WhereAvailable,
}

pub fn wanted() -> Wanted {
    match std::env::var("VSVK_CUDA_COPIES").ok().as_deref().map(str::trim) {
        Some("1") => Wanted::Asked,
        Some("0") => Wanted::Never,
        _ => Wanted::WhereAvailable,
    }
}

/// Whether a video frame of `bytes` (all planes) goes by CUDA where CUDA copies for its device:
/// from VSVK_CUDA_FRAME_MIN_KB, by default 12 MiB. So 2160p 16-bit 4:2:0 frames (23.7 MiB) and
/// float gray ones (31.6 MiB) go by CUDA, and 2160p 8-bit 4:2:0 (11.9 MiB) and every 1080p frame
/// (float gray: 7.9 MiB) by Vulkan's copies, as in the bench of -bench-20.
pub fn takes_frame(bytes: usize) -> bool {
    static MIN: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    bytes >= *MIN.get_or_init(|| crate::settings::kb_setting("VSVK_CUDA_FRAME_MIN_KB").unwrap_or(12 << 20))
}

impl CudaCopies {
    /// CUDA's copies for `dev`: the CUDA device with its UUID, exportable memory and timelines as
    /// opaque fds; the error says what is missing.
    pub fn new(dev: &Arc<Device>) -> Result<Arc<CudaCopies>, String> {
        if dev.memory_export.is_none() || dev.semaphore_export.is_none() || crate::handle::MEMORY_TYPE != cuda::VK_OPAQUE_FD {
            return Err("the device exports no opaque fds for CUDA to import".into());
        }
        let cu = cuda::for_uuid(dev.info.uuid, &dev.name)?;
        let up = Lane::new(cu, dev)?;
        let down = DownStream::new(cu).inspect_err(|_| {
            up.events.iter().for_each(|&e| cu.destroy_event(e));
            cu.destroy_stream(up.stream);
        })?;
        let sizes = Sizes { slab_bytes: SLAB_BYTES, slab_blocks: SLAB_BLOCKS, idle_bytes: crate::pool::pool_bytes() };
        let blocks = PinnedPool::new(pinner(cu), sizes, pin_alone());
        Ok(Arc::new(CudaCopies { cu, dev: dev.clone(), up, down, blocks }))
    }

    /// `len` bytes of pinned host memory for a frame plane (crate::pinned: an idle block of that
    /// length, else one of a new slab's).
    pub fn host_block(&self, len: usize) -> Result<HostBlock, String> {
        self.blocks.block(len)
    }

    /// Pinned blocks for a new host frame's planes of `lens` bytes, in order, where idle ones are
    /// there now (or a length's first slab is being pinned: crate::pinned::PinnedPool::blocks_now);
    /// None where they are not, counted as `cuda host later`: their pinning goes on in the
    /// background, and the frame takes the device's host memory, which GPUUpload copies with a copy
    /// engine (the route on which the new-frame 2160p 16-bit upload ran 1.19-1.22x R81 alone,
    /// bench/results/h100-2026-12-07-bench-17). Measured on the H100 (h100-2026-12-08-s48/pinning-1):
    /// beside cuMemHostAlloc's slabs it did not help that row (0.80x against 0.85x waiting) and the
    /// new-frame round trip fell (1,090 fps against 1,602); beside huge-page slabs, as now, the row
    /// ran 1.27x and 1.35x (-bench-24), the round trip 1,543 and 1,597. Huge-page slabs with frames
    /// waiting are not measured. With VSVK_CUDA_PIN_WAIT=1 or VSVK_CUDA_PIN_ALONE=1 the frame waits
    /// for its blocks instead; an error is a failed pin then.
    pub fn frame_blocks(&self, lens: &[usize]) -> Result<Option<Vec<HostBlock>>, String> {
        if pin_wait() || pin_alone() {
            return lens.iter().map(|&len| self.blocks.block(len)).collect::<Result<Vec<_>, _>>().map(Some);
        }
        let got = self.blocks.blocks_now(lens);
        if got.is_none() {
            crate::stats::count(crate::stats::Stat::CudaHostLater);
        }
        Ok(got)
    }

    /// Whether `b` is one of this device's blocks (its copies may read and write it).
    pub fn owns(&self, b: &HostBlock) -> bool {
        b.of(&self.blocks)
    }

    /// The device address of each plane's allocation, one use taken of each import (given back by
    /// Held); None where a plane is not exportable or the import fails, with no use left taken.
    fn addresses(&self, planes: &[PlaneCopy]) -> Option<Vec<(u64, u64)>> {
        let mut got = Vec::with_capacity(planes.len());
        for c in planes {
            let e = c.plane.exportable()?;
            let base = match cuda::use_cached(e.memory_id) {
                Some(b) => Ok(b),
                None => crate::export::export_memory(c.plane).and_then(|x| cuda::import_memory(self.cu, &x)).inspect(|_| cuda::keep_until_freed(e.memory_id)),
            };
            match base {
                Ok(b) => got.push((e.memory_id, b)),
                Err(_) => {
                    got.iter().for_each(|&(m, _)| cuda::release_memory(m));
                    return None;
                }
            }
        }
        Some(got)
    }

    /// Queues the uploads of `planes` (host to plane) and makes the upload's value each plane's
    /// producer; `keep` (the source frame) is held until the copies are done. Ok(false) where
    /// CUDA cannot reach a plane (not exportable, or the import failed): nothing was queued.
    pub fn upload(&self, planes: &[PlaneCopy], keep: Box<dyn Send + Sync>) -> Result<bool, String> {
        self.up.wait_room(&self.dev)?;
        let Some(addr) = self.addresses(planes) else { return Ok(false) };
        let copies: Vec<Copy2d> =
            planes.iter().zip(&addr).map(|(c, &(_, base))| (Mem::Device(base + c.plane_offset as u64), c.plane_pitch, Mem::Host(c.host), c.host_pitch, c.row_bytes, c.rows)).collect();
        let held = Held { _keep: Some(keep), memory: addr.iter().map(|a| a.0).collect() };
        // SAFETY: the host planes are the source frame's, which `held` keeps until the value.
        let value = unsafe { self.up.queue(self.cu, &copies, held) }?;
        for c in planes {
            c.plane.set_producer(Some(self.up.timeline.clone()), value);
        }
        Ok(true)
    }

    /// Copies `planes` (plane to host) once their producers are done, and waits for it. Ok(false)
    /// where CUDA cannot reach a plane: nothing was queued.
    ///
    /// A filter's output is waited for on the host, not on the stream: the one stream takes
    /// downloads in the order they are queued, and a copy waiting there for its frame's filter
    /// held up every download behind it. On the H100 that made KNLMeans and BM3D at 2160p 0.83x
    /// R81 against 0.97-0.98x by Vulkan's several download queues, in one call. A plane our
    /// upload stream made is waited for on the stream: uploads finish in the order they were
    /// queued, so nothing waits long behind it there, where a host wait keeps the copy from being
    /// queued until the thread has seen the upload finish. With host waits for both, the 2160p
    /// 16-bit round trip ran 791 fps against 1,112 by Vulkan's queues on one H100; with stream
    /// waits for both, 1,578 against 1,432 on another (bench/results/log-2026-12-07.md). The
    /// caller waits for the copy anyway.
    pub fn download(&self, planes: &[PlaneCopy]) -> Result<bool, String> {
        let mut after_upload = 0;
        for c in planes {
            let p = c.plane.producer();
            match &p.timeline {
                Some(t) if Arc::ptr_eq(t, &self.up.timeline) => after_upload = after_upload.max(p.value),
                Some(_) => c.plane.wait_host().map_err(|e| e.1)?,
                None => {}
            }
        }
        let Some(addr) = self.addresses(planes) else { return Ok(false) };
        let copies: Vec<Copy2d> =
            planes.iter().zip(&addr).map(|(c, &(_, base))| (Mem::Host(c.host), c.host_pitch, Mem::Device(base + c.plane_offset as u64), c.plane_pitch, c.row_bytes, c.rows)).collect();
        // (the uses of the imports end once the copies are done, here)
        let _held = Held { _keep: None, memory: addr.iter().map(|a| a.0).collect() };
        // SAFETY: the host planes are the caller's new frame, which it keeps until this returns.
        unsafe { self.down.copy_and_wait(self.cu, &self.up, after_upload, &copies) }?;
        Ok(true)
    }
}

impl Drop for CudaCopies {
    fn drop(&mut self) {
        let up = &mut self.up;
        let last = up.state.get_mut().queued;
        if last > 0 {
            let _ = wait_value(&self.dev, up.timeline.sem, last);
        }
        up.state.get_mut().held.clear();
        up.events.iter().for_each(|&e| self.cu.destroy_event(e));
        self.cu.destroy_stream(up.stream);
        // (downloads wait for their copies before they return: nothing is queued there)
        self.down.idle.get_mut().drain(..).for_each(|e| self.cu.destroy_event(e));
        self.cu.destroy_stream(self.down.stream);
        // (the upload stream is done: no signal of its timeline is left)
        cuda::forget_semaphore(&self.up.timeline);
        // (idle blocks go with the pool; a slab a frame still uses lives on with it)
    }
}

#[cfg(test)]
mod tests {
    /// The default route by size (the test run sets no VSVK_CUDA_FRAME_MIN_KB; .ci/run neither).
    #[test]
    fn frames_from_12_mib_go_by_cuda() {
        assert!(std::env::var_os("VSVK_CUDA_FRAME_MIN_KB").is_none(), "the test needs the default");
        assert!(!super::takes_frame(3_110_400), "1080p 8-bit 4:2:0");
        assert!(!super::takes_frame(8_294_400), "1080p float gray");
        assert!(!super::takes_frame(12_441_600), "2160p 8-bit 4:2:0");
        assert!(super::takes_frame(12 << 20));
        assert!(super::takes_frame(24_883_200), "2160p 16-bit 4:2:0");
    }

    #[test]
    fn uploads_ahead_default_bounds_the_stream_and_zero_unbounds_it() {
        assert_eq!(super::parse_uploads_ahead(None), 8);
        assert_eq!(super::parse_uploads_ahead(Some(" 16 ")), 16);
        assert_eq!(super::parse_uploads_ahead(Some("0")), 0);
        assert_eq!(super::parse_uploads_ahead(Some("many")), 8, "not a number: the default");
    }
}
