//! Host <-> GPU copies: std.GPUUpload / std.GPUDownload, and GPU -> GPU copies into exportable
//! planes for getExportableFrameFilter. Where plane memory is host visible (unified memory
//! devices) uploads are direct copies into the mapped plane; otherwise they are staged through a
//! host visible buffer and a copy on the transfer queue. The primitives over plane buffers (the
//! host barrier, the availability round trip) are the GPU crate's, re-exported here.
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use ash::vk;

use super::device::{Device, Queue};
use super::exec::{PoolInner, Retained, WaitOutcome};
use super::frame::{gpu_plane, new_frame};
use super::GpuBuffer;
use vsvk_gpu::settings::kb_setting;
use vsvk_gpu::upload_kernel::UploadKernel;
pub use vsvk_gpu::transfer::*;
use crate::core::Core;
use crate::frame::{Buffer, Frame};
use crate::stats::{self, Stat};
use vsvk_plugin_api::vulkan::vqTransfer;

/// One filter instance's transfer machinery: an exec pool on the transfer queue, and for
/// GPUDownload pools on the core's private copy queues, used in turn.
pub struct Transfer {
    pub dev: Arc<Device>,
    pool: Arc<PoolInner>,
    down: Vec<Arc<PoolInner>>,
    /// GPUUpload's uploads by the shader cores (see `for_uploads`): pools on the compute family's
    /// private queues, used in turn, and the kernel (dropped after them: field order).
    sm: Vec<Arc<PoolInner>>,
    kernel: Option<UploadKernel>,
    next: AtomicUsize,
    /// Whether copies last kept off the compute family (see compute_busy).
    busy: AtomicBool,
}

impl Drop for Transfer {
    fn drop(&mut self) {
        self.pool.clone().destroy();
        for p in self.down.iter().chain(&self.sm) {
            p.clone().destroy();
        }
    }
}

/// Host frame planes in host transfer memory (pinned frames, downloads' planes): copied by the
/// copy engines either way, and read by the upload kernel.
pub const HOST_PLANE_USAGE: vk::BufferUsageFlags =
    vk::BufferUsageFlags::from_raw(vk::BufferUsageFlags::TRANSFER_SRC.as_raw() | vk::BufferUsageFlags::TRANSFER_DST.as_raw() | vk::BufferUsageFlags::STORAGE_BUFFER.as_raw());

fn plane_bytes(f: &Frame, p: usize) -> usize {
    let pl = &f.planes()[p];
    pl.stride as usize * pl.height as usize
}

/// Copies plane `p` between host frames' layouts row by row when strides differ.
unsafe fn copy_rows(dst: *mut u8, dst_stride: usize, src: *const u8, src_stride: usize, row: usize, height: usize) {
    if dst_stride == src_stride {
        std::ptr::copy_nonoverlapping(src, dst, dst_stride * height);
    } else {
        for y in 0..height {
            std::ptr::copy_nonoverlapping(src.add(y * src_stride), dst.add(y * dst_stride), row);
        }
    }
}

impl Transfer {
    pub fn new(dev: &Arc<Device>, threads: usize) -> Result<Transfer, String> {
        // VSVK_TRANSFER_QUEUE=compute puts the copies on the compute queue (latency experiments).
        let q = if std::env::var("VSVK_TRANSFER_QUEUE").is_ok_and(|v| v == "compute") { vsvk_plugin_api::vulkan::vqCompute } else { vqTransfer };
        Ok(Transfer {
            dev: dev.clone(),
            pool: PoolInner::create(dev, q, threads)?,
            down: Vec::new(),
            sm: Vec::new(),
            kernel: None,
            next: AtomicUsize::new(0),
            busy: AtomicBool::new(false),
        })
    }

    /// GPUUpload's Transfer: large frames already in host transfer memory (pinned frames) go up
    /// by the upload kernel on the device's upload queues (private, of the compute family) while
    /// the compute queue is idle (see compute_idle), else by the transfer queue's copy engine.
    /// VSVK_UPLOAD_SM=0 keeps them on the copy engine (measurements). Not on unified memory, where
    /// uploads are host writes, unless VSVK_UPLOAD_SM=1, which also puts the kernel on the compute
    /// queue where the family has no private queue (lavapipe: the tests).
    pub fn for_uploads(dev: &Arc<Device>, threads: usize) -> Result<Transfer, String> {
        let mut t = Transfer::new(dev, threads)?;
        let (wanted, forced) = kernel_setting(dev, "VSVK_UPLOAD_SM");
        let mut queues = dev.upload.clone();
        if queues.is_empty() && forced {
            queues.push(dev.compute.clone());
        }
        if wanted && !queues.is_empty() {
            // Without the kernel (a driver refusing its pipeline) uploads take the copy engine.
            if let Ok(kernel) = UploadKernel::new(dev) {
                for q in queues {
                    t.sm.push(PoolInner::create_on(dev, q, false, threads)?);
                }
                t.kernel = Some(kernel);
            }
        }
        Ok(t)
    }

    /// A Transfer whose downloads, and uploads from host transfer memory, go to the private copy
    /// queues in turn, so that a download waiting on its frame's producer holds up no upload (nor,
    /// with several queues, other downloads), and copies of small frames, each a submission of its
    /// own, run beside each other rather than one after another on one queue.
    pub fn with_copy_queues(dev: &Arc<Device>, threads: usize) -> Result<Transfer, String> {
        let mut t = Transfer::new(dev, threads)?;
        // VSVK_DOWNLOAD_RING=N: contexts per download pool (default as any pool's: the thread
        // count, 2 to 8). Each download holds one until its copy completes, so the ring caps the
        // downloads in flight.
        let ring = std::env::var("VSVK_DOWNLOAD_RING").ok().and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(threads.clamp(2, 8)).clamp(2, 64);
        for q in dev.download_queues() {
            if !Arc::ptr_eq(&q, &dev.transfer) {
                t.down.push(PoolInner::create_with_ring(dev, q, false, ring)?);
            }
        }
        // Large downloads go by the copy kernel on the compute family's copy queues while the
        // compute queue is idle (see compute_idle): on the H100 the 2160p 16-bit round trip ran
        // 1,407 fps against 1,348 with copy engine downloads, in one call (docs/BENCHMARKS.md,
        // Transfers). VSVK_DOWNLOAD_SM=0 keeps them on the copy engines; =1 also where device
        // memory is the host's or the family has no copy queue (then the compute queue: lavapipe,
        // the tests).
        let (wanted, forced) = kernel_setting(dev, "VSVK_DOWNLOAD_SM");
        if wanted {
            if forced && !t.down.iter().any(|p| p.queue.family == dev.compute.family) {
                t.down.push(PoolInner::create_with_ring(dev, dev.compute.clone(), false, ring)?);
            }
            if t.down.iter().any(|p| p.queue.family == dev.compute.family) {
                t.kernel = UploadKernel::new(dev).ok();
            }
        }
        Ok(t)
    }

    /// The pool a copy of `bytes` goes to: the copy queues in turn, else the transfer queue's.
    /// Only queues outside the compute family while the compute queue is busy (COMPUTE_BUSY): a
    /// copy on a compute family queue runs on the same engine as the filters' kernels and slows
    /// them (on the H100, BM3D's 1080p kernels took 1.11 ms a frame beside such copies and 0.90
    /// ms without; docs/BENCHMARKS.md), where small copies beside light kernels gain from the
    /// extra queues. Likewise for copies of frames the copy engine would upload while uploads
    /// from host memory run (gpu::recent).
    fn copy_pool(&self, bytes: usize) -> &Arc<PoolInner> {
        if self.down.is_empty() {
            return &self.pool;
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let beside_uploads = bytes >= upload_dma_min() && self.dev.dma_uploads.within(std::time::Duration::from_millis(100));
        let avoid = beside_uploads || self.compute_busy();
        match pick_queue(&self.down, |p| p.queue.family, self.pool.queue.family, self.dev.compute.family, n, avoid) {
            Some(i) => &self.down[i],
            None => &self.pool,
        }
    }

    /// Whether the compute queue counts as busy: above the threshold's share of its recent GPU
    /// time (VSVK_COMPUTE_BUSY_PERCENT, default 75; 101 never), and once busy until it is below
    /// two thirds of it.
    fn compute_busy(&self) -> bool {
        static LIMIT: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
        let limit = *LIMIT.get_or_init(|| share_setting("VSVK_COMPUTE_BUSY_PERCENT", 75.0));
        let share = self.dev.compute_load.share();
        let was = self.busy.load(Ordering::Relaxed);
        let now = if was { share >= limit * 2.0 / 3.0 } else { share >= limit };
        if now != was {
            self.busy.store(now, Ordering::Relaxed);
        }
        now
    }

    /// Whether the copy kernel may run: the compute queue had next to no work in its last window
    /// (under VSVK_KERNEL_COPY_IDLE_PERCENT of it, default 2; 101 always). The kernel's workgroups
    /// hold shader cores for as long as the bus takes, so beside any filter's kernels the copy
    /// engines do better. On the H100, in one call: vk.Expr 2160p ran 1.74x R81 with copy engine
    /// downloads and 1.44x with kernel ones, BM3D 2160p 1.07x against 0.99x, while the round trip
    /// with no filter ran 1,374 fps by the kernel against 1,327; with 1 MB frames uploaded by the
    /// kernel vk.Expr 1080p ran 1.11x, where the bench just before had 1.39x by the copy engine
    /// (docs/BENCHMARKS.md, Transfers).
    ///
    /// And only while no filter may run kernels (`vsvk_gpu::filter_kernels`): the busy share knows
    /// nothing before its first window closes, and the stalls caught on the H100 all came in those
    /// first frames with copy kernels beside a filter's. VSVK_KERNEL_COPY_BESIDE_FILTERS=1 leaves
    /// that to the busy share as before (measurements); the 101 above lets them run beside any.
    fn compute_idle(&self) -> bool {
        static LIMIT: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
        static BESIDE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let limit = *LIMIT.get_or_init(|| share_setting("VSVK_KERNEL_COPY_IDLE_PERCENT", 2.0));
        let beside = *BESIDE.get_or_init(|| vsvk_gpu::settings::switch_on("VSVK_KERNEL_COPY_BESIDE_FILTERS"));
        limit > 1.0 || (self.dev.compute_load.share() < limit && (beside || !self.dev.filter_kernels.present()))
    }

    /// Whether the upload kernel can take `src` into `dst`: each plane laid out alike from the start
    /// of both buffers, in whole 16-byte words, from host buffers the kernel can read.
    fn kernel_fits(&self, kernel: &UploadKernel, src: &Frame, dst: &Frame, bufs: &[&GpuBuffer]) -> bool {
        bufs.iter().enumerate().all(|(p, b)| kernel_takes_plane(kernel, dst, src, b, p))
    }

    /// Whether the copy kernel can take `src` (GPU) into `dst` (host transfer memory) plane by plane.
    fn download_kernel_fits(&self, kernel: &UploadKernel, src: &Frame, dst: &Frame) -> bool {
        (0..src.num_planes()).all(|p| dst.planes()[p].buf.mapped_vk().is_some_and(|b| kernel_takes_plane(kernel, src, dst, b, p)))
    }

    /// The compute family's copy queues in turn (there is one where the kernel exists).
    fn compute_pool(&self) -> &Arc<PoolInner> {
        let family = self.dev.compute.family;
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        &self.down[in_turn(&self.down, |p| p.queue.family == family, n).expect("a compute family copy queue")]
    }

    fn direct(&self) -> bool {
        !self.dev.force_staging
    }

    /// A GPU copy of a CPU frame.
    pub fn upload(&self, core: &Core, src: &Arc<Frame>) -> Result<Arc<Frame>, String> {
        // Direct uploads run no GPU work, but a lost device's frames feed nothing that could.
        if self.dev.is_lost() {
            return Err(super::DEVICE_LOST.into());
        }
        let vf = *src.video_format().ok_or("GPUUpload: only video frames can be uploaded")?;
        // Planes in CUDA's pinned memory go up by CUDA, into exportable planes CUDA imports, from
        // 1 MB (smaller ones the CPU writes into the BAR, below), while no filter keeps the compute
        // queue busy (cuda_beside_filters).
        let total: usize = (0..src.num_planes()).map(|p| plane_bytes(src, p)).sum();
        let cuda = core.mem.cuda_copies().filter(|c| {
            (0..src.num_planes()).all(|p| src.planes()[p].buf.cuda_host().is_some_and(|b| c.owns(b)))
                && cuda_takes_upload(total, self.direct(), || !cuda_beside_filters() && self.compute_busy())
        });
        // VS_VULKAN_EXPORTABLE_UPLOADS: uploads land in exportable planes (R81's knob).
        let exportable = cuda.is_some() || std::env::var_os("VS_VULKAN_EXPORTABLE_UPLOADS").is_some_and(|v| v != "0");
        let dst = new_frame(&self.dev, &core.mem, &vf, src.width, src.height, exportable)?;
        // SAFETY: `dst` is new and unshared.
        unsafe { *dst.props_mut() = src.props().clone() };
        let dst = Arc::new(dst);
        let np = dst.num_planes();
        if let Some(cuda) = cuda {
            let t = stats::time(Stat::UploadCuda);
            let copies = plane_copies(&dst, src, vf.bytesPerSample as usize);
            if cuda.upload(&copies, Box::new(src.clone()))? {
                return Ok(dst);
            }
            // (not CUDA's upload after all: uncounted)
            std::mem::forget(t);
        }
        // Planes already in host transfer memory (a download's, or pinned frames) go up by the
        // upload kernel or the copy engine: no CPU pass at all.
        let pinned: Option<Vec<&GpuBuffer>> = (0..np).map(|p| src.planes()[p].buf.mapped_vk()).collect();
        let cpu_writes = self.direct() && (0..np).all(|p| gpu_plane(&dst, p as i32).and_then(|g| g.mapped()).is_some());
        // VSVK_UPLOAD_CPU_EVERY=N (an experiment): every N-th large upload the CPU writes into the
        // BAR, beside the GPU's reads of the others from host memory.
        let cpu_turn = cpu_writes && cpu_every().is_some_and(|n| self.next.fetch_add(1, Ordering::Relaxed) % n == 0);
        let dma = !cpu_turn && (total >= upload_dma_min() || !cpu_writes);
        // Frames the CPU could write go by the kernel only while no downloads run: beside them the
        // 1080p round trips ran 1.68x and 1.97x R81 with kernel uploads, 2.48x and 2.44x with the
        // CPU's writes, in one H100 call (docs/BENCHMARKS.md).
        let small_by_kernel = total >= upload_kernel_min() && !self.dev.downloads.within(std::time::Duration::from_millis(100));
        // (a Transfer made for downloads has the kernel but no upload queues)
        let kernel = self.kernel.as_ref().filter(|_| !self.sm.is_empty() && !cpu_turn).filter(|k| {
            pinned.as_ref().is_some_and(|b| (dma || small_by_kernel) && self.kernel_fits(k, src, &dst, b)) && self.compute_idle()
        });
        if let Some(bufs) = pinned.filter(|b| (dma || kernel.is_some()) && b.iter().all(|b| b.get().usage.contains(vk::BufferUsageFlags::TRANSFER_SRC))) {
            let _t = stats::time(Stat::UploadStaged);
            if let Some(kernel) = kernel {
                stats::count(Stat::UploadKernel);
                let pool = &self.sm[self.next.fetch_add(1, Ordering::Relaxed) % self.sm.len()];
                let slot = pool.acquire()?;
                for (p, b) in bufs.iter().enumerate() {
                    let g = gpu_plane(&dst, p as i32).expect("GPU plane");
                    // SAFETY: recording on a compute family queue; kernel_fits checked usage and
                    // sizes; the source frame is retained and the plane written until completion.
                    unsafe { kernel.record(slot.cb, b.get().buffer, g.buffer(), plane_bytes(&dst, p) as u64) };
                    pool.writes_plane(slot, dst.clone(), p as i32);
                }
                pool.retain(slot, "GPUUpload", Retained::Frame(src.clone()), 0);
                pool.submit(slot)?;
                return Ok(dst);
            }
            // A copy engine's upload: downloads keep off the compute family meanwhile (gpu::recent),
            // where beside the kernel's they run on any copy queue.
            self.dev.dma_uploads.note();
            let pool = self.copy_pool(0);
            let slot = pool.acquire()?;
            for (p, b) in bufs.iter().enumerate() {
                let g = gpu_plane(&dst, p as i32).expect("GPU plane");
                let (s, d) = (&src.planes()[p], &dst.planes()[p]);
                let regions = plane_regions(s, d, vf.bytesPerSample as u64, plane_bytes(&dst, p) as u64);
                // SAFETY: recording into our context; both buffers cover the regions.
                unsafe { self.dev.device.cmd_copy_buffer(slot.cb, b.get().buffer, g.buffer(), &regions) };
                pool.writes_plane(slot, dst.clone(), p as i32);
            }
            pool.retain(slot, "GPUUpload", Retained::Frame(src.clone()), 0);
            pool.submit(slot)?;
            return Ok(dst);
        }
        if cpu_writes {
            let _t = stats::time(Stat::UploadCopy);
            for p in 0..np {
                let g = gpu_plane(&dst, p as i32).expect("GPU plane");
                let (s, d) = (&src.planes()[p], &dst.planes()[p]);
                let row = d.width as usize * vf.bytesPerSample as usize;
                // SAFETY: the mapping covers stride * height bytes; the source plane is readable.
                unsafe {
                    copy_rows(g.mapped().expect("mapped"), d.stride as usize, src.read_ptr(p as i32).expect("plane"), s.stride as usize, row, d.height as usize)
                };
            }
            // Host written: ready now (NULL producers).
            return Ok(dst);
        }
        let _t = stats::time(Stat::UploadStaged);
        let slot = self.pool.acquire()?;
        for p in 0..np {
            let g = gpu_plane(&dst, p as i32).expect("GPU plane");
            let n = plane_bytes(&dst, p);
            // Cached system memory: the host writes it at memory speed, the copy engine reads it
            // over the bus (where the direct path writes the BAR with the CPU).
            let staging = match GpuBuffer::host_transfer(&self.dev, n as u64, vk::BufferUsageFlags::TRANSFER_SRC) {
                Ok(b) => b,
                Err(e) => {
                    self.pool.abandon(slot);
                    return Err(e);
                }
            };
            let (s, d) = (&src.planes()[p], &dst.planes()[p]);
            let row = d.width as usize * vf.bytesPerSample as usize;
            // SAFETY: a host visible staging buffer of n bytes.
            unsafe { copy_rows(staging.get().mapped(), d.stride as usize, src.read_ptr(p as i32).expect("plane"), s.stride as usize, row, d.height as usize) };
            let region = vk::BufferCopy { src_offset: 0, dst_offset: 0, size: n as u64 };
            // SAFETY: recording into our context.
            unsafe { self.dev.device.cmd_copy_buffer(slot.cb, staging.get().buffer, g.buffer(), &[region]) };
            self.pool.retain(slot, "GPUUpload", Retained::Buffer(Box::new(staging)), 0);
            self.pool.writes_plane(slot, dst.clone(), p as i32);
        }
        self.pool.submit(slot)?;
        Ok(dst)
    }

    /// A CPU copy of a GPU frame.
    pub fn download(&self, core: &Core, src: &Arc<Frame>) -> Result<Arc<Frame>, String> {
        // A mapped read would succeed, returning whatever the lost work left in the plane.
        if self.dev.is_lost() {
            return Err(super::DEVICE_LOST.into());
        }
        let vf = *src.video_format().ok_or("GPUDownload: only video frames can be downloaded")?;
        self.dev.downloads.note();
        let np = src.num_planes();
        // Direct reads only where device memory is the host's: reading a BAR mapping over the bus
        // is slow, so discrete cards copy to cached host memory first.
        let mapped = self.direct() && self.dev.unified && (0..np).all(|p| gpu_plane(src, p as i32).and_then(|g| g.mapped()).is_some());
        if mapped {
            let dst = Frame::new_video(&vf, src.width, src.height, &core.mem).map_err(|e| format!("Error in frame creation: {e}"))?;
            // SAFETY: `dst` is new and unshared.
            unsafe { *dst.props_mut() = src.props().clone() };
            let pending = (0..np).any(|p| gpu_plane(src, p as i32).is_some_and(|g| g.producer().timeline.is_some()));
            if pending {
                super::frame::wait_frame(src).map_err(|e| e.1)?;
                round_trip(&self.pool, src)?;
            }
            let _t = stats::time(Stat::DownloadCopy);
            for p in 0..np {
                let g = gpu_plane(src, p as i32).expect("GPU plane");
                let (s, d) = (&src.planes()[p], &dst.planes()[p]);
                let row = d.width as usize * vf.bytesPerSample as usize;
                // SAFETY: `dst` is ours; the mapping covers the plane.
                unsafe { copy_rows(dst.write_ptr(p as i32).expect("plane"), d.stride as usize, g.mapped().expect("mapped"), s.stride as usize, row, d.height as usize) };
            }
            return Ok(Arc::new(dst));
        }
        // CUDA copies exportable planes (the uploads it made) into its pinned memory.
        let total: usize = (0..np).map(|p| plane_bytes(src, p)).sum();
        let exportable = || (0..np).all(|p| gpu_plane(src, p as i32).is_some_and(|g| g.exportable().is_some()));
        if let Some(cuda) = core.mem.cuda_copies().filter(|_| vsvk_gpu::cuda_copy::takes_frame(total) && exportable()) {
            let t = stats::time(Stat::DownloadCuda);
            let dst = host_frame_like(src, &vf, |len| cuda.host_block(len).map(|b| Buffer::new_cuda(len, b, &core.mem)))?;
            if cuda.download(&plane_copies(src, &dst, vf.bytesPerSample as usize))? {
                return Ok(Arc::new(dst));
            }
            // (not CUDA's download after all: uncounted)
            std::mem::forget(t);
        }
        // The transfer queue writes the planes straight into host cached Vulkan memory that then
        // is the CPU frame's (no second pass through host memory, which in a 2160p chain cost
        // more CPU time than everything else together).
        let dev = &self.dev;
        let dst = host_frame_like(src, &vf, |len| GpuBuffer::host_transfer(dev, len as u64, HOST_PLANE_USAGE).map(|b| Buffer::new_mapped(len, b, &core.mem)))?;
        if host_wait_first() {
            // An experiment: the copy is queued only once its source is ready, so no copy waits
            // on the GPU behind another frame's producer.
            super::frame::wait_frame(src).map_err(|e| e.1)?;
        }
        let by_kernel = self.kernel.as_ref().filter(|k| total >= download_kernel_min() && self.compute_idle() && self.download_kernel_fits(k, src, &dst));
        let pool = match by_kernel {
            Some(_) => self.compute_pool(),
            None => self.copy_pool(total),
        };
        if !host_wait_first() && behind_compute_queue(&self.dev, &pool.queue, src) {
            let _t = stats::time(Stat::DownloadHostWait);
            super::frame::wait_frame(src).map_err(|e| e.1)?;
        }
        let slot = pool.acquire()?;
        if let Some(kernel) = by_kernel {
            stats::count(Stat::DownloadKernel);
            for p in 0..np {
                let g = gpu_plane(src, p as i32).expect("checked by download_kernel_fits");
                let rb = dst.planes()[p].buf.mapped_vk().expect("a readback plane");
                // SAFETY: a compute family queue; download_kernel_fits checked usage and sizes; the
                // source frame is read-tracked and `dst` waited for below.
                unsafe { kernel.record(slot.cb, g.buffer(), rb.get().buffer, plane_bytes(src, p) as u64) };
            }
        }
        for p in (0..np).filter(|_| by_kernel.is_none()) {
            let Some(g) = gpu_plane(src, p as i32) else {
                pool.abandon(slot);
                return Err("GPUDownload: source frame is not GPU resident".into());
            };
            let (s, d) = (&src.planes()[p], &dst.planes()[p]);
            let rb = d.buf.mapped_vk().expect("a readback plane");
            let regions = plane_regions(s, d, vf.bytesPerSample as u64, plane_bytes(src, p) as u64);
            // SAFETY: recording into our context; both buffers cover the regions.
            unsafe { self.dev.device.cmd_copy_buffer(slot.cb, g.buffer(), rb.get().buffer, &regions) };
        }
        host_barrier(&self.dev, slot.cb);
        pool.reads_frame_internal(slot, src.clone());
        let v = pool.submit(slot)?;
        let t = stats::time(Stat::DownloadWait);
        let waited = pool.wait_value(v);
        drop(t);
        match waited {
            WaitOutcome::Done => Ok(Arc::new(dst)),
            WaitOutcome::Lost => Err(super::DEVICE_LOST.into()),
            WaitOutcome::Failed(e) => Err(format!("GPU filter: the readback did not complete: {e}")),
        }
    }

    /// A GPU copy of a GPU frame in exportable allocations.
    pub fn exportable_copy(&self, stats: &Arc<crate::frame::MemStats>, src: &Arc<Frame>) -> Result<Arc<Frame>, String> {
        let vf = *src.video_format().ok_or("only video frames")?;
        let dst = new_frame(&self.dev, stats, &vf, src.width, src.height, true)?;
        // SAFETY: `dst` is new and unshared.
        unsafe { *dst.props_mut() = src.props().clone() };
        let dst = Arc::new(dst);
        let slot = self.pool.acquire()?;
        for p in 0..dst.num_planes() {
            let (Some(s), Some(d)) = (gpu_plane(src, p as i32), gpu_plane(&dst, p as i32)) else {
                self.pool.abandon(slot);
                return Err("getExportableFrameFilter needs a GPU resident video frame".into());
            };
            let region = vk::BufferCopy { src_offset: 0, dst_offset: 0, size: d.size };
            // SAFETY: recording into our context.
            unsafe { self.dev.device.cmd_copy_buffer(slot.cb, s.buffer(), d.buffer(), &[region]) };
            self.pool.writes_plane(slot, dst.clone(), p as i32);
        }
        self.pool.reads_frame_internal(slot, src.clone());
        self.pool.submit(slot)?;
        Ok(dst)
    }
}

/// A download's host frame: `src`'s format, size and properties, its planes from `make`.
fn host_frame_like(src: &Frame, vf: &vsvk_plugin_api::abi::VSVideoFormat, make: impl FnMut(usize) -> Result<Buffer, String>) -> Result<Frame, String> {
    let dst = match Frame::new_video_in(vf, src.width, src.height, make) {
        Ok(Ok(f)) => f,
        Ok(Err(e)) => return Err(e),
        Err(e) => return Err(format!("Error in frame creation: {e}")),
    };
    // SAFETY: `dst` is new and unshared.
    unsafe { *dst.props_mut() = src.props().clone() };
    Ok(dst)
}

/// CUDA's copy of each plane between the GPU frame `gpu` and the host frame `host` (either way).
fn plane_copies<'a>(gpu: &'a Frame, host: &Frame, bytes_per_sample: usize) -> Vec<vsvk_gpu::cuda_copy::PlaneCopy<'a>> {
    (0..gpu.num_planes())
        .map(|p| {
            let (g, h) = (&gpu.planes()[p], &host.planes()[p]);
            vsvk_gpu::cuda_copy::PlaneCopy {
                // SAFETY: the offset lies inside the host plane's buffer.
                host: unsafe { h.buf.as_ptr().add(h.offset) },
                host_pitch: h.stride as usize,
                plane: gpu_plane(gpu, p as i32).expect("a GPU frame's plane"),
                plane_offset: g.offset,
                plane_pitch: g.stride as usize,
                row_bytes: g.width as usize * bytes_per_sample,
                rows: g.height as usize,
            }
        })
        .collect()
}

/// Whether the copy kernel can move plane `p` between the GPU frame `gpu` and the host frame
/// `host`, whose plane is in `host_buf`: laid out alike from the start of both buffers, in whole
/// 16-byte words within one binding, both buffers storage buffers holding the plane.
fn kernel_takes_plane(kernel: &UploadKernel, gpu: &Frame, host: &Frame, host_buf: &GpuBuffer, p: usize) -> bool {
    let (g, h) = (&gpu.planes()[p], &host.planes()[p]);
    let bytes = plane_bytes(gpu, p) as u64;
    g.stride == h.stride
        && g.offset == 0
        && h.offset == 0
        && kernel.fits(bytes)
        && host_buf.get().usage.contains(vk::BufferUsageFlags::STORAGE_BUFFER)
        && host_buf.get().size >= bytes
        && gpu_plane(gpu, p as i32).is_some_and(|g| g.size >= bytes)
}

/// The smallest frame that goes up with the copy engine from host transfer memory where the CPU
/// could write it into mapped VRAM instead (VSVK_UPLOAD_DMA_MIN_KB, default 8 MB): a copy engine
/// submission costs the queue a fixed time that small frames do not repay (a 1080p 8-bit round
/// trip with every upload on the copy engine ran at 3,688 fps against 6,509 by the CPU; H200).
fn upload_dma_min() -> usize {
    static MIN: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MIN.get_or_init(|| kb_setting("VSVK_UPLOAD_DMA_MIN_KB").unwrap_or(8 << 20))
}

/// The smallest upload CUDA takes where the CPU could write the frame into mapped VRAM instead
/// (VSVK_CUDA_UPLOAD_MIN_KB, default 1 MB): a copy on CUDA's stream costs the host a call, not a
/// queue submission, so frames the copy engine's Vulkan route leaves to the CPU (upload_dma_min)
/// go by the bus's DMA here.
fn cuda_upload_min() -> usize {
    static MIN: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MIN.get_or_init(|| kb_setting("VSVK_CUDA_UPLOAD_MIN_KB").unwrap_or(1 << 20))
}

/// Whether CUDA copies a frame of `total` bytes whose planes are all in its pinned memory, where
/// the CPU could write the BAR (`direct`) and a filter may keep the compute queue busy (asked only
/// where it decides).
fn cuda_takes_upload(total: usize, direct: bool, filter_busy: impl FnOnce() -> bool) -> bool {
    !direct || (total >= cuda_upload_min() && !filter_busy())
}

/// Whether uploads go by CUDA while a filter keeps the compute queue busy (compute_busy):
/// VSVK_CUDA_UPLOADS_BESIDE_FILTERS=1 (measurements); by default the CPU then writes such frames
/// into the BAR. A filter's submission waits on the host for an upload by CUDA before it is queued
/// (vsvk_gpu::exec), and the CPU's writes leave nothing to wait for. On the H100, BM3D at 2160p
/// (its queue 96% busy) ran 1.06x R81 this way against 0.99x by CUDA in one call
/// (h100-2026-12-07-s47/roundtrip-3), and 1.07-1.11x against 0.95-1.00x over the two calls before;
/// with no filter (the transfer rows) the compute queue is idle and CUDA's copies stay. Where the
/// planes are not in the BAR, the frame goes by the staging copy instead.
fn cuda_beside_filters() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| vsvk_gpu::settings::switch_on("VSVK_CUDA_UPLOADS_BESIDE_FILTERS"))
}

/// VSVK_UPLOAD_CPU_EVERY=N: every N-th upload the CPU writes into mapped VRAM where the GPU would
/// read it from host memory (None: never).
fn cpu_every() -> Option<usize> {
    static N: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *N.get_or_init(|| std::env::var("VSVK_UPLOAD_CPU_EVERY").ok().and_then(|v| v.trim().parse::<usize>().ok()).filter(|&n| n > 0))
}

/// The smallest upload from host transfer memory the copy kernel takes where the CPU could write
/// the frame into mapped VRAM instead (VSVK_UPLOAD_KERNEL_MIN_KB, default 1 MB). The kernel runs
/// only while the compute queue is idle, so this decides chains without GPU filters alone: there
/// the CPU's writes into the BAR ran at R81's speed (33.5 GB/s, 1.00x on the H100's upload-only
/// 1080p rows), where the kernel from 1 MB ran those rows 1.43x and 1.81x in one call and 1.05x
/// and 1.30x in another (docs/BENCHMARKS.md). Smaller frames were not measured: each is a
/// submission of its own.
fn upload_kernel_min() -> usize {
    static MIN: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MIN.get_or_init(|| kb_setting("VSVK_UPLOAD_KERNEL_MIN_KB").unwrap_or(1 << 20))
}

/// The smallest download the copy kernel takes (VSVK_DOWNLOAD_KERNEL_MIN_KB, default 8 MB): on the
/// H100 the 1080p round trips (3 and 6 MB frames) with both copies by the kernel ran 1.51x and
/// 2.39x R81, where the bench just before had 2.92x and 2.79x by the copy engines.
fn download_kernel_min() -> usize {
    static MIN: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MIN.get_or_init(|| kb_setting("VSVK_DOWNLOAD_KERNEL_MIN_KB").unwrap_or(8 << 20))
}

/// A setting in percent of the compute queue's time (`default` where unset), as a share, 0 to 1.
fn share_setting(var: &str, default: f64) -> f64 {
    std::env::var(var).ok().and_then(|v| v.trim().parse::<f64>().ok()).unwrap_or(default) / 100.0
}

/// Which of the copy queues `down` (each of the queue family `family` gives) takes the `n`-th copy:
/// each in turn, or where `avoid_compute` those outside the `compute` family in turn, else the
/// transfer queue's own pool (None) where that is outside it, else each in turn after all.
fn pick_queue<T>(down: &[T], family: impl Fn(&T) -> u32, own: u32, compute: u32, n: usize, avoid_compute: bool) -> Option<usize> {
    if down.is_empty() {
        return None;
    }
    if avoid_compute {
        if let Some(i) = in_turn(down, |q| family(q) != compute, n) {
            return Some(i);
        }
        if own != compute {
            return None;
        }
    }
    Some(n % down.len())
}

/// The index of the `n`-th of the `items` that `keep` accepts, taken in turn; None where it
/// accepts none.
fn in_turn<T>(items: &[T], keep: impl Fn(&T) -> bool, n: usize) -> Option<usize> {
    let count = items.iter().filter(|q| keep(q)).count();
    if count == 0 {
        return None;
    }
    items.iter().enumerate().filter(|(_, q)| keep(q)).nth(n % count).map(|(i, _)| i)
}

/// A copy kernel's setting `var` on `dev`: (wanted, forced). "1" forces it, also where device
/// memory is the host's or staging is forced; "0" turns it off; unset, it is wanted on discrete
/// devices without forced staging.
fn kernel_setting(dev: &Device, var: &str) -> (bool, bool) {
    let setting = std::env::var(var).ok();
    let forced = setting.as_deref() == Some("1");
    (forced || (!dev.unified && !dev.force_staging && setting.as_deref() != Some("0")), forced)
}

/// Whether a copy of `src` queued on `queue` would wait on the GPU, from one of the compute
/// family's other queues, for work not yet done that may be a filter's (on a queue that runs
/// filters' kernels, or a timeline the core did not make). Such a copy waits on the host first
/// instead, which costs the downloading thread (that waits for its copy anyway) one wake-up, and
/// those queues never hold work behind a filter's kernel. It came from the GPU stalls on the H100,
/// whose reports showed copies there waiting on a filter's unfinished kernel; a stall came with it
/// in place too, its waits met when submitted, so it is not their cause (docs/BENCHMARKS.md,
/// Today). Copies behind the upload kernel's queues keep their GPU waits.
/// VSVK_COMPUTE_FAMILY_WAITS=1 (an experiment) restores the GPU waits (scripts/device/parts/hang.sh).
fn behind_compute_queue(dev: &Device, queue: &Queue, src: &Frame) -> bool {
    static KEEP_GPU_WAITS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *KEEP_GPU_WAITS.get_or_init(|| std::env::var_os("VSVK_COMPUTE_FAMILY_WAITS").is_some_and(|v| v == "1")) {
        return false;
    }
    let producers = (0..src.num_planes()).filter_map(|p| gpu_plane(src, p as i32)).filter_map(|g| {
        let pr = g.producer();
        pr.timeline.map(|t| (t.queue, move || t.pending(pr.value)))
    });
    waits_behind(&dev.kernel_queue_ids(), (queue.family, queue.index), producers)
}

/// behind_compute_queue's rule: on `queue`, of the compute family but none of the queues that
/// run filters' kernels (`kernel`: the compute queue first), a producer (the queue its timeline is
/// signalled from, None where unknown; whether its value is still to come, asked last as it
/// reads the counter) that may be on one of those and is unfinished.
fn waits_behind<P: FnOnce() -> bool>(kernel: &[(u32, u32)], queue: (u32, u32), mut producers: impl Iterator<Item = (Option<(u32, u32)>, P)>) -> bool {
    queue.0 == kernel[0].0 && !kernel.contains(&queue) && producers.any(|(q, pending)| q.is_none_or(|q| kernel.contains(&q)) && pending())
}

/// VSVK_DOWNLOAD_HOST_WAIT=1: downloads wait for their source on the host before queueing the copy.
fn host_wait_first() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("VSVK_DOWNLOAD_HOST_WAIT").is_some_and(|v| v == "1"))
}

/// The copy of plane `s` into `d` (each at its offset in its buffer): one region, or one per row
/// where the layouts differ (a plugin's strides, or a plane that is a view into a larger buffer,
/// as SeparateFields' fields are).
fn plane_regions(s: &crate::frame::Plane, d: &crate::frame::Plane, bytes_per_sample: u64, whole: u64) -> Vec<vk::BufferCopy> {
    if s.stride == d.stride && s.offset == 0 && d.offset == 0 {
        return vec![vk::BufferCopy { src_offset: 0, dst_offset: 0, size: whole }];
    }
    let row = d.width as u64 * bytes_per_sample;
    let (so, doff) = (s.offset as u64, d.offset as u64);
    (0..d.height as u64).map(|y| vk::BufferCopy { src_offset: so + y * s.stride as u64, dst_offset: doff + y * d.stride as u64, size: row }).collect()
}

#[cfg(test)]
mod tests {
    use super::{cuda_takes_upload, pick_queue, waits_behind};

    #[test]
    fn cuda_leaves_uploads_to_the_cpu_beside_a_busy_filter_where_the_cpu_can_write_the_bar() {
        let big = 24 << 20;
        let asked = std::cell::Cell::new(0);
        let busy = |b: bool| {
            let asked = &asked;
            move || {
                asked.set(asked.get() + 1);
                b
            }
        };
        assert!(cuda_takes_upload(big, true, busy(false)), "no filter busy: CUDA's copies");
        assert!(!cuda_takes_upload(big, true, busy(true)), "a busy filter: the CPU's writes");
        assert_eq!(asked.get(), 2);
        // under 1 MB the CPU writes the BAR anyway, busy or not (the share is not asked)
        assert!(!cuda_takes_upload(512 << 10, true, busy(false)));
        // no BAR to write: CUDA whatever the size or the queue
        assert!(cuda_takes_upload(512 << 10, false, busy(true)));
        assert!(cuda_takes_upload(big, false, busy(true)));
        assert_eq!(asked.get(), 2);
    }

    #[test]
    fn only_the_compute_familys_other_queues_wait_on_the_host_for_the_compute_queue() {
        let (compute, other, transfer, upload, spread) = ((2, 0), (2, 1), (1, 1), (2, 4), (2, 6));
        let kernel = [compute];
        let pending = |q: Option<(u32, u32)>| (q, (|| true) as fn() -> bool);
        let done = |q: Option<(u32, u32)>| (q, (|| false) as fn() -> bool);
        // a copy on another compute family queue, behind the compute queue's unfinished work
        assert!(waits_behind(&kernel, other, [pending(Some(compute))].into_iter()));
        // ... or behind a timeline the core did not make
        assert!(waits_behind(&kernel, other, [done(Some(upload)), pending(None)].into_iter()));
        // finished work, the upload kernel's queue, and other queues wait on the GPU as before
        assert!(!waits_behind(&kernel, other, [done(Some(compute)), done(None)].into_iter()));
        assert!(!waits_behind(&kernel, other, [pending(Some(upload))].into_iter()));
        assert!(!waits_behind(&kernel, transfer, [pending(Some(compute))].into_iter()));
        assert!(!waits_behind(&kernel, compute, [pending(Some(compute))].into_iter()));
        assert!(!waits_behind(&kernel, other, std::iter::empty::<(Option<(u32, u32)>, fn() -> bool)>()));
        // with exec pools spread over a further queue, its work counts as the compute queue's
        let kernel = [compute, spread];
        assert!(waits_behind(&kernel, other, [pending(Some(spread))].into_iter()));
        assert!(!waits_behind(&kernel, spread, [pending(Some(compute))].into_iter()));
    }

    #[test]
    fn copies_avoid_the_compute_family_only_when_asked_and_where_they_can() {
        // queues given by their families alone
        let pick = |down: &[u32], own, compute, n, avoid| pick_queue(down, |&f| f, own, compute, n, avoid);
        // the H100's layout: a private transfer family queue (1) and three compute queues (2)
        let down = [1, 2, 2, 2];
        let turns: Vec<_> = (0..5).map(|n| pick(&down, 1, 2, n, false)).collect();
        assert_eq!(turns, [Some(0), Some(1), Some(2), Some(3), Some(0)]);
        assert!((0..5).all(|n| pick(&down, 1, 2, n, true) == Some(0)));
        // no copy queue outside the compute family: the transfer queue's own pool
        assert_eq!(pick(&[2, 2], 1, 2, 3, true), None);
        // nothing outside it at all: in turn as before
        assert_eq!(pick(&[2, 2], 2, 2, 3, true), Some(1));
        // two outside: those in turn
        let outside: Vec<_> = (0..4).map(|n| pick(&[2, 1, 2, 1], 1, 2, n, true)).collect();
        assert_eq!(outside, [Some(1), Some(3), Some(1), Some(3)]);
        assert_eq!(pick(&[], 1, 2, 0, false), None);
    }
}
