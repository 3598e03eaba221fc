//! The runtime's layer over the GPU half (the vsvk-gpu crate, re-exported here so that
//! `vsvk::gpu::...` paths stay): the per-core device (CoreGpu), GPU frames (`frame`), frames over
//! imported memory (`import`), whole frame uploads and downloads (`transfer`), and the eviction of
//! the caches' GPU frames under VRAM pressure. What the GPU crate needs of frames it reaches
//! through `frame::GpuPlanes`, which the runtime's Frame implements here. The C ABI layer
//! (api::vulkan_api) only converts.
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

pub use vsvk_gpu::{cuda, cuda_copy, device, exec, export, handle, pool, shader, video};
pub use vsvk_gpu::{make_room, relieve, trim, GpuBuffer, GpuMemory, Reservation, DEVICE_LOST};

pub mod frame;
pub mod import;
pub mod transfer;

pub use device::Device;

use crate::core::Core;

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
        // Pressure on the device evicts the caches' GPU frames, which the GPU crate cannot name.
        vsvk_gpu::set_evictor(evict_cached);
        vsvk_gpu::stall::set_reporter(report_stall);
        match Device::create(index, host_limit) {
            Ok(d) => {
                let key = Arc::as_ptr(&d) as usize;
                let mut cores = CORES.lock();
                cores.retain(|(_, c)| c.strong_count() > 0);
                cores.push((key, Arc::downgrade(&core.arc())));
                drop(cores);
                s.1 = DeviceState::Up(d.clone());
                if crate::frame::pinned_frames_for(d.unified) {
                    // CUDA's copies where asked for and the driver takes the device; else Vulkan's.
                    let wanted = cuda_copy::wanted();
                    let cuda = (wanted != cuda_copy::Wanted::Never).then(|| cuda_copy::CudaCopies::new(&d));
                    if let (Some(Err(e)), cuda_copy::Wanted::Asked) = (&cuda, wanted) {
                        core.log_message(vsvk_plugin_api::abi::mtWarning, &format!("VSVK_CUDA_COPIES=1: copies stay on Vulkan's queues: {e}"));
                    }
                    core.mem.use_pinned(&d, cuda.and_then(Result::ok));
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
    vsvk_gpu::vram_mode() != vsvk_gpu::VramMode::None && (0..f.num_planes() as i32).find_map(|p| frame::gpu_plane(f, p)).is_some_and(|g| g.dev.pool.over_limit())
}


/// Where the GPU crate's stall reports go: a warning to every core the device serves.
fn report_stall(dev: &Device, msg: &str) {
    let key = dev as *const Device as usize;
    let cores: Vec<Arc<Core>> = CORES.lock().iter().filter(|(k, _)| *k == key).filter_map(|(_, c)| c.upgrade()).collect();
    if cores.is_empty() {
        eprintln!("vsvk: {msg}");
    }
    for core in cores {
        core.log_message(vsvk_plugin_api::abi::mtWarning, msg);
    }
}

/// The evictor the GPU crate's `relieve` calls: every node's cached GPU frames of the cores `dev`
/// serves, until its allocation is down to `target`.
fn evict_cached(dev: &Arc<Device>, target: i64) {
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
}
