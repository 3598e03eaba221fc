//! GPU resident frame planes: a linear storage buffer (pooled, or a dedicated exportable
//! allocation for frames handed to foreign APIs) with exactly the CPU frame's stride, and the
//! plane's producer pair. Dropping a plane waits out its producer before the memory is reused.
//! The frames that hold planes are the runtime's: this crate sees them through `GpuPlanes`.
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use ash::vk;
use parking_lot::Mutex;

use super::device::Device;
use super::exec::{wait_value, Timeline, WaitOutcome};
use super::pool::PooledBuffer;

/// Something whose planes may be GPU resident: the runtime's frames, which this crate never names
/// (they sit above it). Exec contexts hold what they read and write as `Arc<dyn GpuPlanes>` until
/// the submission completes, and wait and publish the planes' producer pairs through it.
pub trait GpuPlanes: Send + Sync + 'static {
    /// How many planes there are (GPU resident or not).
    fn plane_count(&self) -> usize;
    /// The GPU storage of plane `p`, if it is GPU resident.
    fn gpu_plane_at(&self, p: i32) -> Option<&GpuPlane>;
    /// Whether this holds plane `p` outright (nothing else shares its storage).
    fn holds_plane(&self, p: i32) -> bool;
}

/// So that the functions below take `&Arc<Frame>` as they take `&Frame`.
impl<T: GpuPlanes + ?Sized> GpuPlanes for Arc<T> {
    fn plane_count(&self) -> usize {
        (**self).plane_count()
    }
    fn gpu_plane_at(&self, p: i32) -> Option<&GpuPlane> {
        (**self).gpu_plane_at(p)
    }
    fn holds_plane(&self, p: i32) -> bool {
        (**self).holds_plane(p)
    }
}

/// The usage every plane buffer has: copies both ways, storage and device address.
pub const PLANE_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::TRANSFER_SRC.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw()
        | vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS.as_raw(),
);

#[derive(Clone, Default)]
pub struct Producer {
    pub timeline: Option<Arc<Timeline>>,
    pub value: u64,
}

/// An allocation of its own made with export info, for planes foreign APIs import. Recycled
/// through their own size buckets (gpu-allocator's blocks cannot be exported).
pub struct Exportable {
    pub buffer: vk::Buffer,
    pub memory: vk::DeviceMemory,
    pub alloc_size: u64,
    pub type_index: u32,
    /// Identity of the allocation, kept across reuse.
    pub memory_id: u64,
    mapped: *mut u8,
}

// SAFETY: handles and a persistent mapping of memory this value owns.
unsafe impl Send for Exportable {}
unsafe impl Sync for Exportable {}

impl Exportable {
    fn create(dev: &Device, size: u64) -> Result<Exportable, String> {
        // The pool's 4 KB granularity, like pooled planes.
        let size = size.div_ceil(4096) * 4096;
        let d = &dev.device;
        let handle = super::handle::MEMORY;
        let mut ext = vk::ExternalMemoryBufferCreateInfo::default().handle_types(handle);
        let ci = dev.pool.buffer_info(size, PLANE_USAGE).push_next(&mut ext);
        // SAFETY: valid create info.
        let buffer = unsafe { d.create_buffer(&ci, None) }.map_err(|r| format!("vkCreateBuffer failed (VkResult {})", r.as_raw()))?;
        // SAFETY: a live buffer.
        let req = unsafe { d.get_buffer_memory_requirements(buffer) };
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let fits = |i: u32, f: vk::MemoryPropertyFlags| req.memory_type_bits & (1 << i) != 0 && dev.mem_props.memory_types[i as usize].property_flags.contains(f);
        let n = dev.mem_props.memory_type_count;
        let chosen = if dev.unified { (0..n).find(|&i| fits(i, vk::MemoryPropertyFlags::DEVICE_LOCAL | host)) } else { None }
            .or_else(|| (0..n).find(|&i| fits(i, vk::MemoryPropertyFlags::DEVICE_LOCAL)));
        let Some(type_index) = chosen else {
            // SAFETY: unused.
            unsafe { d.destroy_buffer(buffer, None) };
            return Err("no device local memory type for an exportable plane".into());
        };
        let mut export = vk::ExportMemoryAllocateInfo::default().handle_types(handle);
        let mut flags = vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().buffer(buffer);
        let ai = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(type_index)
            .push_next(&mut export)
            .push_next(&mut flags)
            .push_next(&mut dedicated);
        // SAFETY: valid allocate info.
        let memory = match unsafe { d.allocate_memory(&ai, None) } {
            Ok(m) => m,
            Err(r) => {
                // SAFETY: unused.
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(format!("vkAllocateMemory failed (VkResult {})", r.as_raw()));
            }
        };
        // SAFETY: compatible memory.
        if let Err(r) = unsafe { d.bind_buffer_memory(buffer, memory, 0) } {
            // SAFETY: unused.
            unsafe {
                d.destroy_buffer(buffer, None);
                d.free_memory(memory, None);
            }
            return Err(format!("vkBindBufferMemory failed (VkResult {})", r.as_raw()));
        }
        let mut mapped = std::ptr::null_mut();
        if dev.mem_props.memory_types[type_index as usize].property_flags.contains(host) {
            // SAFETY: host visible memory, mapped once for its lifetime.
            if let Ok(p) = unsafe { d.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()) } {
                mapped = p.cast();
            }
        }
        dev.pool.used.fetch_add(req.size as i64, std::sync::atomic::Ordering::Relaxed);
        Ok(Exportable {
            buffer,
            memory,
            alloc_size: req.size,
            type_index,
            memory_id: super::device::new_memory_id(),
            mapped,
        })
    }

    /// Frees the allocation (not back to a bucket), and CUDA's import of it with it.
    pub fn destroy(self, dev: &Device) {
        super::cuda::forget_memory(self.memory_id);
        // SAFETY: nothing uses it any more.
        unsafe {
            dev.device.destroy_buffer(self.buffer, None);
            dev.device.free_memory(self.memory, None);
        }
        dev.pool.used.fetch_sub(self.alloc_size as i64, std::sync::atomic::Ordering::Relaxed);
    }
}

enum Backing {
    Pooled(PooledBuffer),
    Exportable(Exportable),
    /// A buffer over memory another API exported (gpu::import), which it keeps alive.
    Imported(vk::Buffer, Arc<super::import::ImportedMemory>, Option<Arc<super::import::Release>>),
}

/// Who may touch a plane: the core's side, or a foreign API it was handed to.
pub const OWNER_CORE: u8 = 0;
/// A fresh plane exported with exportGPUPlane: the foreign API's until its frame is returned
/// from getFrame or passed to cacheFrame.
pub const OWNER_FOREIGN_FRESH: u8 = 1;
/// A plane of an input taken with getExportableFrameFilter: the foreign API's for good.
pub const OWNER_FOREIGN: u8 = 2;

pub struct GpuPlane {
    pub dev: Arc<Device>,
    backing: Option<Backing>,
    pub size: u64,
    /// Identity of the underlying allocation, never reused on this device.
    pub memory_id: u64,
    producer: Mutex<Producer>,
    pub owner: AtomicU8,
}

impl GpuPlane {
    /// A plane buffer of `size` bytes, made room for under the VRAM limit first: pooled, or in an
    /// exportable allocation when `exportable` and the device can export.
    pub fn new(dev: &Arc<Device>, size: usize, exportable: bool) -> Result<GpuPlane, String> {
        super::make_room(dev, size as i64);
        if exportable && dev.memory_export.is_some() {
            let e = match dev.pool.take_exportable(size as u64) {
                Some(e) => e,
                None => Exportable::create(dev, size as u64).or_else(|_| {
                    super::relieve(dev);
                    Exportable::create(dev, size as u64)
                })?,
            };
            dev.pool.frame_bytes.fetch_add(e.alloc_size as i64, Ordering::Relaxed);
            return Ok(GpuPlane {
                dev: dev.clone(),
                memory_id: e.memory_id,
                backing: Some(Backing::Exportable(e)),
                size: size as u64,
                producer: Mutex::new(Producer::default()),
                owner: AtomicU8::new(OWNER_CORE),
            });
        }
        let b = dev
            .pool
            .create_buffer(&dev.device, size as u64, PLANE_USAGE, dev.pool.plane_location, vk::MemoryPropertyFlags::empty())
            .or_else(|_| {
                // Pressure: give back everything idle and try once more.
                super::relieve(dev);
                dev.pool.create_buffer(&dev.device, size as u64, PLANE_USAGE, dev.pool.plane_location, vk::MemoryPropertyFlags::empty())
            })?;
        dev.pool.frame_bytes.fetch_add(b.region.size() as i64, Ordering::Relaxed);
        Ok(GpuPlane {
            dev: dev.clone(),
            backing: Some(Backing::Pooled(b)),
            size: size as u64,
            memory_id: super::device::new_memory_id(),
            producer: Mutex::new(Producer::default()),
            owner: AtomicU8::new(OWNER_CORE),
        })
    }

    /// A plane over imported memory: `buffer` is bound to it, and the plane's memory identity is
    /// the import's.
    pub fn imported(dev: &Arc<Device>, buffer: vk::Buffer, memory: Arc<super::import::ImportedMemory>, release: Option<Arc<super::import::Release>>, size: u64) -> GpuPlane {
        GpuPlane {
            dev: dev.clone(),
            memory_id: memory.memory_id,
            backing: Some(Backing::Imported(buffer, memory, release)),
            size,
            producer: Mutex::new(Producer::default()),
            owner: AtomicU8::new(OWNER_CORE),
        }
    }

    pub fn buffer(&self) -> vk::Buffer {
        match self.backing.as_ref() {
            Some(Backing::Pooled(b)) => b.buffer,
            Some(Backing::Exportable(e)) => e.buffer,
            Some(Backing::Imported(b, ..)) => *b,
            None => vk::Buffer::null(),
        }
    }
    pub fn exportable(&self) -> Option<&Exportable> {
        match self.backing.as_ref() {
            Some(Backing::Exportable(e)) => Some(e),
            _ => None,
        }
    }
    /// The host mapping, when the plane's memory is host visible and coherent.
    pub fn mapped(&self) -> Option<*mut u8> {
        match self.backing.as_ref() {
            Some(Backing::Pooled(b)) => {
                let p = b.mapped();
                (!p.is_null() && b.region.flags().contains(vk::MemoryPropertyFlags::HOST_COHERENT)).then_some(p)
            }
            Some(Backing::Exportable(e)) => (!e.mapped.is_null()).then_some(e.mapped),
            Some(Backing::Imported(..)) | None => None,
        }
    }
    pub fn producer(&self) -> Producer {
        self.producer.lock().clone()
    }
    pub fn set_producer(&self, timeline: Option<Arc<Timeline>>, value: u64) {
        *self.producer.lock() = Producer { timeline, value };
    }
    /// Host waits for the producer pair.
    pub fn wait_host(&self) -> Result<(), (i32, String)> {
        let p = self.producer();
        if let Some(t) = p.timeline {
            match wait_value(&self.dev, t.sem, p.value) {
                WaitOutcome::Done => {}
                WaitOutcome::Lost => return Err((vsvk_plugin_api::vulkan::gdDeviceLost, super::DEVICE_LOST.into())),
                WaitOutcome::Failed(e) => return Err((vsvk_plugin_api::vulkan::gdIncomplete, e)),
            }
        }
        Ok(())
    }
}

impl Drop for GpuPlane {
    fn drop(&mut self) {
        // The memory may be reused at once: whatever writes it must have finished.
        let _ = self.wait_host();
        match self.backing.take() {
            Some(Backing::Pooled(b)) => {
                self.dev.pool.frame_bytes.fetch_sub(b.region.size() as i64, Ordering::Relaxed);
                self.dev.recycle_buffer(b)
            }
            Some(Backing::Exportable(e)) => {
                self.dev.pool.frame_bytes.fetch_sub(e.alloc_size as i64, Ordering::Relaxed);
                let over = self.dev.pool.over_limit() && super::vram_mode() == super::VramMode::Evict;
                if self.owner.load(Ordering::Relaxed) != OWNER_CORE || over || self.dev.is_lost() {
                    // A foreign API may still hold an import of it: never hand it to another plane.
                    e.destroy(&self.dev);
                } else if let Some(e) = self.dev.pool.keep_exportable(self.size, e) {
                    e.destroy(&self.dev);
                }
            }
            Some(Backing::Imported(buffer, memory, release)) => {
                // SAFETY: the plane's own buffer; its producer was waited out above and every
                // reader held the frame until its work completed.
                unsafe { self.dev.device.destroy_buffer(buffer, None) };
                drop(release); // the frame's last plane tells the foreign owner it may reuse the memory
                drop(memory);
            }
            None => {}
        }
    }
}

/// Fatal when a recording touches a plane a foreign API owns.
pub fn check_core_owned<F: GpuPlanes + ?Sized>(f: &F, call: &str) {
    for p in 0..f.plane_count() as i32 {
        if let Some(g) = gpu_plane(f, p) {
            if g.owner.load(Ordering::Relaxed) != OWNER_CORE {
                crate::fatal::fatal(&format!(
                    "{call} called on plane {p} while a foreign API owns it: a fresh plane exported with exportGPUPlane stays the foreign API's until a frame containing it is returned from getFrame or passed to cacheFrame, and an input taken with getExportableFrameFilter is the foreign API's for good. A filter exports a plane or records work on it, never both; the filter that receives a returned frame can do the latter."
                ));
            }
        }
    }
}

/// A frame a filter returns (or caches) goes back to the core: fresh exported planes return;
/// planes of inputs taken with getExportableFrameFilter cannot.
pub fn take_back<F: GpuPlanes + ?Sized>(name: &str, f: &F) -> Result<(), String> {
    for p in 0..f.plane_count() as i32 {
        if let Some(g) = gpu_plane(f, p) {
            if g.owner.load(Ordering::Relaxed) == OWNER_FOREIGN {
                return Err(format!(
                    "Filter {name} returned a frame whose planes could not be taken back from a foreign API: it holds a plane of an input taken with getExportableFrameFilter, and such inputs never go back to the core, unlike new frames and frames taken with getFrameFilter"
                ));
            }
        }
    }
    for p in 0..f.plane_count() as i32 {
        if let Some(g) = gpu_plane(f, p) {
            let _ = g.owner.compare_exchange(OWNER_FOREIGN_FRESH, OWNER_CORE, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
    Ok(())
}

/// The GPU storage of plane `p` of a frame, if it is GPU resident.
pub fn gpu_plane<F: GpuPlanes + ?Sized>(f: &F, p: i32) -> Option<&GpuPlane> {
    f.gpu_plane_at(p)
}

/// Whether the frame holds plane `p` outright (no other frame shares its storage).
pub fn owns_plane<F: GpuPlanes + ?Sized>(f: &F, p: i32) -> bool {
    f.holds_plane(p)
}

/// Host waits every plane's producer pair.
pub fn wait_frame<F: GpuPlanes + ?Sized>(f: &F) -> Result<(), (i32, String)> {
    for p in 0..f.plane_count() as i32 {
        if let Some(g) = gpu_plane(f, p) {
            g.wait_host()?;
        }
    }
    Ok(())
}
