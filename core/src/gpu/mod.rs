//! The GPU half: one Vulkan 1.4 device per core, brought up lazily (or chosen up front with
//! setVulkanDevice). Layered like wgpu's core: `device` (instance, device, queues, function
//! table), `pool` (pooled VRAM and its accounting), `exec` (timelines and exec pools), `shader`
//! (runtime GLSL compilation), `frame` (GPU planes), `export` (interop), `transfer` (host <-> GPU
//! copies for std.GPUUpload / std.GPUDownload). The C ABI layer (api::vulkan_api) only converts.
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use ash::vk;
use gpu_allocator::MemoryLocation;
use parking_lot::Mutex;

pub mod device;
pub mod exec;
pub mod export;
pub mod frame;
pub mod handle;
pub mod import;
pub mod pool;
pub mod shader;
pub mod transfer;
pub mod video;

pub use device::Device;

use crate::core::Core;

pub const DEVICE_LOST: &str = "the GPU device was reset (a driver timeout or a device loss), so no further GPU work can run on this core";

enum DeviceState {
    NotYet,
    Up(Arc<Device>),
    Failed(String),
}

/// A core's GPU state.
pub struct CoreGpu {
    selected: Mutex<(i32, DeviceState)>,
    /// compileGPUShader's per-core cache, by source text.
    pub shaders: Mutex<HashMap<String, Arc<[u32]>>>,
}

impl Default for CoreGpu {
    fn default() -> Self {
        CoreGpu { selected: Mutex::new((-1, DeviceState::NotYet)), shaders: Mutex::new(HashMap::new()) }
    }
}

/// The cores a device serves, for evicting their cached GPU frames under pressure.
static CORES: Mutex<Vec<(usize, Weak<Core>)>> = Mutex::new(Vec::new());

impl CoreGpu {
    /// The core's device, created on first use.
    pub fn device(&self, core: &Core) -> Result<Arc<Device>, String> {
        let mut s = self.selected.lock();
        match &s.1 {
            DeviceState::Up(d) => return Ok(d.clone()),
            DeviceState::Failed(e) => return Err(e.clone()),
            DeviceState::NotYet => {}
        }
        let index = s.0;
        Self::bring_up(&mut s, core, index)
    }

    fn bring_up(s: &mut (i32, DeviceState), core: &Core, index: i32) -> Result<Arc<Device>, String> {
        s.0 = index;
        let host_limit = core.max_cache.load(Ordering::Relaxed);
        match Device::create(index, host_limit) {
            Ok(d) => {
                let key = Arc::as_ptr(&d) as usize;
                let mut cores = CORES.lock();
                cores.retain(|(_, c)| c.strong_count() > 0);
                cores.push((key, Arc::downgrade(&core.arc())));
                drop(cores);
                s.1 = DeviceState::Up(d.clone());
                if crate::frame::pinned_frames_requested() {
                    core.mem.use_pinned(&d);
                }
                let mb = |b: i64| b >> 20;
                core.log_message(
                    vsvk_plugin_api::abi::mtInformation,
                    &format!(
                        "Vulkan device: {}, VRAM limit {} MB of {} MB budget{}, uploads {}, {}",
                        d.name,
                        mb(d.pool.limit.load(Ordering::Relaxed)),
                        mb(d.budget),
                        if d.unified { ", unified memory (shared with the host)" } else { "" },
                        if d.force_staging || d.pool.plane_location == gpu_allocator::MemoryLocation::GpuOnly {
                            "staged"
                        } else if d.unified {
                            "direct"
                        } else {
                            "direct (resizable BAR)"
                        },
                        if Arc::ptr_eq(&d.compute, &d.transfer) {
                            "no transfer family so transfers share the compute queue".to_string()
                        } else {
                            format!("transfer queue family {} with {} private copy queue(s) for downloads", d.transfer.family, d.copy.len())
                        }
                    ),
                );
                Ok(d)
            }
            Err(e) => {
                s.1 = DeviceState::Failed(e.clone());
                Err(e)
            }
        }
    }

    /// The device if it is up already.
    pub fn existing(&self) -> Option<Arc<Device>> {
        match &self.selected.lock().1 {
            DeviceState::Up(d) => Some(d.clone()),
            _ => None,
        }
    }

    /// setVulkanDevice: selects and brings up the device at once (an unusable or missing device
    /// fails here with its reason, and the core has no device from then on); only before first use.
    pub fn select(&self, core: &Core, index: i32) -> Result<(), String> {
        let mut s = self.selected.lock();
        match &s.1 {
            DeviceState::Up(_) => return Err("setVulkanDevice must be called before the Vulkan device is first used".into()),
            DeviceState::Failed(e) => return Err(format!("Vulkan device creation already failed: {e}")),
            DeviceState::NotYet => {}
        }
        Self::bring_up(&mut s, core, index.max(-1)).map(|_| ())
    }
}

/// freeCore with GPU frames still alive: they stay valid (and return their VRAM when released),
/// but the user hears of it, as from R81.
pub fn warn_at_free(core: &Core) {
    if let Some(d) = core.gpu.existing() {
        let b = d.pool.frame_bytes.load(Ordering::Relaxed);
        if b > 0 {
            core.log_message(vsvk_plugin_api::abi::mtWarning, &format!("Core freed but {b} bytes still allocated in GPU framebuffers"));
        }
    }
}

/// Whether `f` is a GPU frame whose device is over its VRAM limit (the cache then keeps no more
/// than it must, as under host memory pressure).
pub fn over_vram(f: &crate::frame::Frame) -> bool {
    (0..f.num_planes() as i32).find_map(|p| frame::gpu_plane(f, p)).is_some_and(|g| g.dev.pool.over_limit())
}

/// Under pressure: evicts cached GPU frames (least valuable: every node's cached GPU frames) down
/// to a tenth under the limit, reaps finished submissions, and hands idle buckets back.
pub fn relieve(dev: &Arc<Device>) {
    exec::sweep_all(dev);
    trim(dev);
    let limit = dev.pool.limit.load(Ordering::Relaxed);
    let target = limit - limit / 10;
    if dev.pool.allocated() <= target {
        return;
    }
    let key = Arc::as_ptr(dev) as usize;
    let cores: Vec<Arc<Core>> = CORES.lock().iter().filter(|(k, _)| *k == key).filter_map(|(_, c)| c.upgrade()).collect();
    for core in cores {
        let nodes: Vec<Arc<crate::node::Node>> = core.nodes.lock().iter().filter_map(Weak::upgrade).collect();
        for n in nodes {
            let evicted = {
                let mut c = n.cache.lock();
                if c.fixed_size {
                    continue; // a size the user fixed is kept, as on the host side
                }
                c.evict_gpu()
            };
            drop(evicted);
            if dev.pool.allocated() <= target {
                break;
            }
        }
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

/// Makes room for `bytes` more under the limit, if it can.
pub fn make_room(dev: &Arc<Device>, bytes: i64) {
    exec::forbid_in_release("a GPU allocation");
    if dev.pool.allocated() + bytes > dev.pool.limit.load(Ordering::Relaxed) {
        relieve(dev);
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
