//! The GPU half of vsvk, a crate below the runtime: the Vulkan 1.4 device a core uses (the
//! runtime brings one up per core, lazily or as setVulkanDevice chose) and all that lives on it.
//! Layered like wgpu's core: `device` (instance, device, queues, function table), `pool` (pooled
//! VRAM and its accounting), `exec` (timelines and exec pools), `shader` (runtime GLSL
//! compilation), `frame` (GPU planes), `pinned` (pinned host blocks for frames), `export` and
//! `import` (interop), `transfer` (the availability round trip), `video` (decode capabilities).
//! It knows nothing of frames, nodes, cores or the C ABI: what holds planes reaches it through
//! `frame::GpuPlanes`, and what frees memory above it under pressure through `set_evictor`. The
//! runtime (vsvk-core) builds the per-core device, frame uploads and downloads on top of it.
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use ash::vk;
use gpu_allocator::MemoryLocation;
use parking_lot::Mutex;

pub mod cuda;
pub mod cuda_copy;
pub mod device;
pub mod exec;
pub mod export;
pub mod fatal;
pub mod filter_kernels;
pub mod frame;
pub mod handle;
#[cfg(unix)]
pub mod huge_pages;
pub mod import;
pub mod pinned;
pub mod pool;
pub mod recent;
pub mod settings;
pub mod shader;
pub mod spirv;
pub mod stall;
pub mod stats;
pub mod timing;
pub mod transfer;
pub mod upload_kernel;
pub mod video;
pub mod warmup;

pub use device::Device;

pub const DEVICE_LOST: &str = "the GPU device was reset (a driver timeout or a device loss), so no further GPU work can run on this core";

/// What frees GPU memory held above this crate (the runtime's caches of GPU frames), given the
/// device and the allocation to get down to. The runtime sets it; this crate cannot name caches.
pub type Evictor = fn(&Arc<Device>, i64);

static EVICTOR: OnceLock<Evictor> = OnceLock::new();

/// Sets what `relieve` evicts through, once per process (later calls change nothing).
pub fn set_evictor(f: Evictor) {
    let _ = EVICTOR.set(f);
}

/// Under pressure: evicts cached GPU frames (least valuable: every node's cached GPU frames, through
/// the evictor) down to a tenth under the limit, reaps finished submissions, and hands idle buckets
/// back.
pub fn relieve(dev: &Arc<Device>) {
    exec::sweep_all(dev);
    trim(dev);
    let limit = dev.pool.limit.load(Ordering::Relaxed);
    let target = limit - limit / 10;
    if dev.pool.allocated() <= target {
        return;
    }
    if let Some(evict) = EVICTOR.get() {
        evict(dev, target);
    }
    trim(dev);
}

/// Hands every idle pooled buffer and exportable allocation back to the driver.
pub fn trim(dev: &Device) {
    dev.pool.trim(&dev.device);
    for e in dev.pool.drain_exportables() {
        e.destroy(dev);
    }
}

/// What an allocation past the VRAM limit does (VSVK_VRAM_MODE). `keep`, the default: cached GPU
/// frames are evicted, and freed buffers stay in the pool's buckets for the next frame of their
/// size. `evict` also hands idle buffers back to the driver and destroys freed ones while over the
/// limit: where the frames in flight alone exceed the limit, every frame then costs a fresh
/// allocation, often of a whole block (4 x KNLMeans d=1 under a 256 MB limit ran at 0.46x R81 that
/// way, at 1.36x with `keep`; H200, docs/BENCHMARKS.md). `soft` only keeps caches small (the
/// pressure caches see), and `none` ignores the limit except for reservations and failed
/// allocations, which always relieve the pool in full.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VramMode {
    Evict,
    Keep,
    Soft,
    None,
}

pub fn vram_mode() -> VramMode {
    static M: OnceLock<VramMode> = OnceLock::new();
    *M.get_or_init(|| match std::env::var("VSVK_VRAM_MODE").as_deref().map(str::trim) {
        Ok("evict") => VramMode::Evict,
        Ok("soft") => VramMode::Soft,
        Ok("none") => VramMode::None,
        _ => VramMode::Keep,
    })
}

/// Makes room for `bytes` more under the limit, if it can.
pub fn make_room(dev: &Arc<Device>, bytes: i64) {
    exec::forbid_in_release("a GPU allocation");
    if dev.pool.allocated() + bytes > dev.pool.limit.load(Ordering::Relaxed) {
        match vram_mode() {
            VramMode::Evict => relieve(dev),
            VramMode::Keep => {
                exec::sweep_all(dev);
                let limit = dev.pool.limit.load(Ordering::Relaxed);
                if let Some(evict) = EVICTOR.get() {
                    evict(dev, limit - limit / 10);
                }
            }
            VramMode::Soft | VramMode::None => {}
        }
    }
}

/// A scratch buffer (`VSGPUBuffer`).
pub struct GpuBuffer {
    pub dev: Arc<Device>,
    pub buf: Option<pool::PooledBuffer>,
}

impl Drop for GpuBuffer {
    fn drop(&mut self) {
        if let Some(b) = self.buf.take() {
            self.dev.recycle_buffer(b);
        }
    }
}

impl GpuBuffer {
    pub fn new(
        dev: &Arc<Device>,
        size: u64,
        usage: vk::BufferUsageFlags,
        required: vk::MemoryPropertyFlags,
        preferred: vk::MemoryPropertyFlags,
    ) -> Result<GpuBuffer, String> {
        if size == 0 {
            return Err("A GPU buffer needs a nonzero size".into());
        }
        make_room(dev, size as i64);
        let loc = dev.pool.location_for(required, preferred);
        let mut usage = usage;
        if usage.contains(vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS) || usage.is_empty() {
            usage |= vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        }
        let b = dev.pool.create_buffer(&dev.device, size, usage, loc, required).or_else(|_| {
            relieve(dev);
            dev.pool.create_buffer(&dev.device, size, usage, loc, required)
        })?;
        Ok(GpuBuffer { dev: dev.clone(), buf: Some(b) })
    }
    pub fn get(&self) -> &pool::PooledBuffer {
        self.buf.as_ref().expect("live until dropped")
    }

    /// A mapped host cached transfer buffer (see Pool::create_host_transfer): a downloaded
    /// plane, or upload staging. No room is made in the VRAM budget: on a discrete card this is
    /// system memory.
    pub fn host_transfer(dev: &Arc<Device>, size: u64, usage: vk::BufferUsageFlags) -> Result<GpuBuffer, String> {
        exec::forbid_in_release("a GPU allocation");
        let b = dev.pool.create_host_transfer(&dev.device, size, usage).or_else(|_| {
            relieve(dev);
            dev.pool.create_host_transfer(&dev.device, size, usage)
        })?;
        let b = GpuBuffer { dev: dev.clone(), buf: Some(b) };
        if b.get().mapped().is_null() {
            return Err("the host transfer memory is not host visible".into());
        }
        Ok(b)
    }
}

/// A bare region (`VSGPUMemory`).
pub struct GpuMemory {
    pub dev: Arc<Device>,
    pub region: Option<pool::Region>,
    /// Where the caller binds: the region's offset moved up to the caller's alignment.
    pub bind_offset: u64,
}

impl Drop for GpuMemory {
    fn drop(&mut self) {
        if let Some(r) = self.region.take() {
            self.dev.pool.free_region(r);
        }
    }
}

impl GpuMemory {
    pub fn new(
        dev: &Arc<Device>,
        req: vk::MemoryRequirements,
        required: vk::MemoryPropertyFlags,
        preferred: vk::MemoryPropertyFlags,
    ) -> Result<GpuMemory, String> {
        if req.size == 0 {
            return Err("A GPU allocation needs a nonzero size".into());
        }
        make_room(dev, req.size as i64);
        let loc: MemoryLocation = dev.pool.location_for(required, preferred);
        // Reserve the distance to any alignment, so a coarse image alignment is always met.
        let align = req.alignment.max(1);
        let padded = vk::MemoryRequirements { size: req.size + align, alignment: 256.min(align), memory_type_bits: req.memory_type_bits };
        let r = dev.pool.alloc_region(padded, loc, required, false).or_else(|_| {
            relieve(dev);
            dev.pool.alloc_region(padded, loc, required, false)
        })?;
        let start = r.offset();
        let bind = start.div_ceil(align) * align;
        if bind + req.size > start + r.size() {
            dev.pool.free_region(r);
            return Err("internal error: an aligned region does not fit".into());
        }
        Ok(GpuMemory { dev: dev.clone(), region: Some(r), bind_offset: bind })
    }
}

/// A reservation (`VSGPUMemoryReservation`): bytes allocated outside the core.
pub struct Reservation {
    pub dev: Arc<Device>,
    pub bytes: Mutex<i64>,
}

impl Reservation {
    pub fn update(&self, bytes: i64) {
        let bytes = bytes.max(0);
        let grew = {
            let mut b = self.bytes.lock();
            let delta = bytes - *b;
            *b = bytes;
            self.dev.pool.reserved.fetch_add(delta, Ordering::Relaxed);
            delta > 0
        };
        if grew && self.dev.pool.over_limit() {
            relieve(&self.dev);
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.dev.pool.reserved.fetch_sub(*self.bytes.lock(), Ordering::Relaxed);
    }
}
