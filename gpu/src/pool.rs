//! The pooled VRAM sub-allocator: gpu-allocator carves 128 MB blocks into regions; freed buffers
//! are kept in size buckets for reuse; every byte is accounted against the VRAM limit
//! (setMaxVRAMUse), together with reservations of memory allocated outside the core.
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator, AllocatorCreateDesc};
use gpu_allocator::{AllocationSizes, AllocatorDebugSettings, MemoryLocation};
use parking_lot::Mutex;

pub const BLOCK_SIZE: u64 = 128 << 20;
/// Blocks of host visible memory (staging; planes on unified and resizable BAR devices) are
/// smaller: committing (pinning) 128 MB of it took the first frames tens of milliseconds on an
/// H200, which 16 MB blocks avoid at no cost to throughput.
pub const HOST_BLOCK_SIZE: u64 = 16 << 20;

/// The alignment of frame planes in host memory (the runtime's frames use this one): host transfer
/// buffers become frame planes, so they are aligned as much.
pub const ALIGNMENT: usize = 64;

/// The most bytes of freed buffers a core keeps: 1 GiB, or $VSVK_FRAME_POOL_MB (read once; for
/// measuring how much reuse large frames need, e.g. 2160p float chains with many requests in flight).
/// A device keeps as much idle host transfer memory (download planes, pinned frames) at most.
pub fn pool_bytes() -> usize {
    static BYTES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| std::env::var("VSVK_FRAME_POOL_MB").ok().and_then(|v| v.trim().parse::<usize>().ok()).map_or(1 << 30, |mb| mb << 20))
}

/// A region of a pooled block.
pub struct Region {
    alloc: Allocation,
    /// Counted in `used` (device memory); host transfer memory in system RAM is not (the guide's
    /// `allocated`: such staging counts toward the host's framebuffer bytes instead).
    counted: bool,
}

impl Region {
    pub fn size(&self) -> u64 {
        self.alloc.size()
    }
    pub fn offset(&self) -> u64 {
        self.alloc.offset()
    }
    pub fn memory(&self) -> vk::DeviceMemory {
        // SAFETY: only used to bind resources and report the block, never freed by us directly.
        unsafe { self.alloc.memory() }
    }
    pub fn mapped(&self) -> *mut u8 {
        self.alloc.mapped_ptr().map_or(std::ptr::null_mut(), |p| p.as_ptr().cast())
    }
    pub fn flags(&self) -> vk::MemoryPropertyFlags {
        self.alloc.memory_properties()
    }
}

/// A buffer bound to a pooled region.
pub struct PooledBuffer {
    pub buffer: vk::Buffer,
    pub region: Region,
    pub size: u64,
    pub usage: vk::BufferUsageFlags,
    location: MemoryLocation,
    host_transfer: bool,
}

// SAFETY: handles and a mapping pointer into memory the pool owns; no thread affinity.
unsafe impl Send for PooledBuffer {}
unsafe impl Sync for PooledBuffer {}

impl PooledBuffer {
    pub fn mapped(&self) -> *mut u8 {
        self.region.mapped()
    }
}

/// A bucket: size, usage, location, and (bit 3) whether it holds host transfer buffers, which are
/// counted differently.
type BucketKey = (u64, u32, u8);

pub struct Pool {
    alloc: Mutex<Option<Allocator>>,
    /// Idle exportable plane allocations by plane size (see gpu::frame::Exportable).
    exportables: Mutex<HashMap<u64, Vec<super::frame::Exportable>>>,
    buckets: Mutex<HashMap<BucketKey, Vec<PooledBuffer>>>,
    /// Set once by `close` (a device loss): buffers and exportables given back from then on go
    /// straight to the driver. Read under the bucket's lock, so that nothing given back while
    /// `close` empties the buckets can land in one after it.
    closed: AtomicBool,
    /// Bytes of live regions, bucketed buffers included.
    pub used: AtomicI64,
    pub bucketed: AtomicI64,
    /// Bytes of idle host transfer buffers in the buckets: pinned system memory the VRAM limit
    /// never reclaims (it is not counted there), so it is capped like the host's frame pool.
    host_bucketed: AtomicI64,
    /// Bytes of live frame planes (their allocations), for freeCore's warning.
    pub frame_bytes: AtomicI64,
    /// Bytes declared through reserveGPUMemory.
    pub reserved: AtomicI64,
    pub limit: AtomicI64,
    /// Where frame planes go: host visible on unified memory devices (direct uploads).
    pub plane_location: MemoryLocation,
    granularity: u64,
    /// The compute and transfer queue families when they differ: buffers are then shared
    /// concurrently by both, so planes written on one queue are readable on the other without
    /// ownership transfers.
    pub families: Vec<u32>,
    unified: bool,
}

impl Pool {
    /// A buffer create info with the pool's sharing mode.
    pub fn buffer_info(&self, size: u64, usage: vk::BufferUsageFlags) -> vk::BufferCreateInfo<'_> {
        let ci = vk::BufferCreateInfo::default().size(size).usage(usage);
        if self.families.len() > 1 {
            ci.sharing_mode(vk::SharingMode::CONCURRENT).queue_family_indices(&self.families)
        } else {
            ci.sharing_mode(vk::SharingMode::EXCLUSIVE)
        }
    }
}

/// Whether (most of) the device local memory is host visible too: a resizable BAR. Planes then
/// live there, mapped, and uploads are direct writes.
pub fn resizable_bar(mem: &vk::PhysicalDeviceMemoryProperties) -> bool {
    let largest = super::device::largest_device_heap(mem);
    let want = vk::MemoryPropertyFlags::DEVICE_LOCAL | vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    mem.memory_types_as_slice().iter().any(|t| {
        t.property_flags.contains(want) && mem.memory_heaps[t.heap_index as usize].size >= largest / 2 && largest > 0
    })
}

/// VSVK_PLANE_ALIGN=BYTES (a power of two; measurements): the least alignment of buffers in device
/// memory (planes, plugins' buffers), where the driver asks for less.
fn device_align() -> u64 {
    static A: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *A.get_or_init(|| std::env::var("VSVK_PLANE_ALIGN").ok().and_then(|v| v.trim().parse::<u64>().ok()).filter(|a| a.is_power_of_two()).unwrap_or(1))
}

fn location_code(l: MemoryLocation) -> u8 {
    match l {
        MemoryLocation::GpuOnly => 0,
        MemoryLocation::CpuToGpu => 1,
        MemoryLocation::GpuToCpu => 2,
        _ => 3,
    }
}

fn bucket_key(size: u64, usage: vk::BufferUsageFlags, location: MemoryLocation, host_transfer: bool) -> BucketKey {
    (bucket_size(size), usage.as_raw(), location_code(location) | if host_transfer { 8 } else { 0 })
}

fn bucket_size(size: u64) -> u64 {
    size.div_ceil(4096) * 4096
}

impl Pool {
    pub fn new(
        instance: &ash::Instance,
        device: &ash::Device,
        pdev: vk::PhysicalDevice,
        mem: &vk::PhysicalDeviceMemoryProperties,
        unified: bool,
        limit: i64,
        families: Vec<u32>,
    ) -> Result<Pool, String> {
        let mut debug_settings = AllocatorDebugSettings::default();
        debug_settings.log_leaks_on_shutdown = false;
        let desc = AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: pdev,
            debug_settings,
            buffer_device_address: true,
            allocation_sizes: {
                // VSVK_HOST_BLOCK_MB: the block size of host visible memory (experiments).
                let host = std::env::var("VSVK_HOST_BLOCK_MB").ok().and_then(|v| v.parse::<u64>().ok()).map_or(HOST_BLOCK_SIZE, |mb| (mb << 20).max(4 << 20));
                AllocationSizes::new(BLOCK_SIZE, host)
            },
        };
        let alloc = Allocator::new(&desc).map_err(|e| format!("cannot create the memory pool: {e}"))?;
        // SAFETY: a query on the physical device.
        let props = unsafe { instance.get_physical_device_properties(pdev) };
        Ok(Pool {
            alloc: Mutex::new(Some(alloc)),
            exportables: Mutex::new(HashMap::new()),
            buckets: Mutex::new(HashMap::new()),
            closed: AtomicBool::new(false),
            used: AtomicI64::new(0),
            bucketed: AtomicI64::new(0),
            host_bucketed: AtomicI64::new(0),
            frame_bytes: AtomicI64::new(0),
            reserved: AtomicI64::new(0),
            limit: AtomicI64::new(limit),
            // VSVK_PLANE_MEMORY=device: planes in device local memory the host cannot map, even
            // where the BAR covers VRAM (uploads then go through staging; experiments).
            plane_location: if (unified || resizable_bar(mem)) && !std::env::var("VSVK_PLANE_MEMORY").is_ok_and(|v| v == "device") {
                MemoryLocation::CpuToGpu
            } else {
                MemoryLocation::GpuOnly
            },
            granularity: props.limits.buffer_image_granularity,
            families,
            unified,
        })
    }

    /// Bytes counted against the limit: pooled regions and reservations.
    pub fn allocated(&self) -> i64 {
        self.used.load(Ordering::Relaxed) + self.reserved.load(Ordering::Relaxed)
    }
    pub fn over_limit(&self) -> bool {
        self.allocated() > self.limit.load(Ordering::Relaxed)
    }

    pub fn location_for(&self, required: vk::MemoryPropertyFlags, preferred: vk::MemoryPropertyFlags) -> MemoryLocation {
        let want = required | preferred;
        if want.contains(vk::MemoryPropertyFlags::HOST_CACHED) {
            MemoryLocation::GpuToCpu
        } else if want.contains(vk::MemoryPropertyFlags::HOST_VISIBLE) || self.unified {
            // Where all memory is host visible, it comes back mapped, as the API promises for
            // host visible memory.
            MemoryLocation::CpuToGpu
        } else {
            MemoryLocation::GpuOnly
        }
    }

    pub fn alloc_region(
        &self,
        req: vk::MemoryRequirements,
        location: MemoryLocation,
        required: vk::MemoryPropertyFlags,
        linear: bool,
    ) -> Result<Region, String> {
        self.alloc_region_as(req, location, required, linear, false)
    }

    fn alloc_region_as(
        &self,
        req: vk::MemoryRequirements,
        location: MemoryLocation,
        required: vk::MemoryPropertyFlags,
        linear: bool,
        host_transfer: bool,
    ) -> Result<Region, String> {
        // gpu-allocator keeps linear and optimal resources a granularity page apart; a page
        // coarser than a 64 KB region is refused, as the API says.
        if !linear && self.granularity > 65536 {
            return Err(format!(
                "This device's buffer/image granularity ({}) is coarser than the pool's regions",
                self.granularity
            ));
        }
        let mut guard = self.alloc.lock();
        let a = guard.as_mut().ok_or("the device is being torn down")?;
        let desc = AllocationCreateDesc {
            name: "vsvk",
            requirements: req,
            location,
            linear,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        };
        let alloc = a.allocate(&desc).map_err(|e| format!("a GPU allocation of {} bytes failed: {e}", req.size))?;
        if !alloc.memory_properties().contains(required) {
            let _ = a.free(alloc);
            return Err("No memory type provides the requested properties for this allocation".into());
        }
        let counted = !host_transfer || alloc.memory_properties().contains(vk::MemoryPropertyFlags::DEVICE_LOCAL);
        if counted {
            self.used.fetch_add(alloc.size() as i64, Ordering::Relaxed);
        }
        Ok(Region { alloc, counted })
    }

    pub fn free_region(&self, r: Region) {
        if r.counted {
            self.used.fetch_sub(r.alloc.size() as i64, Ordering::Relaxed);
        }
        if let Some(a) = self.alloc.lock().as_mut() {
            let _ = a.free(r.alloc);
        }
    }

    /// A buffer from the bucket of its size and kind, or a new one.
    pub fn create_buffer(
        &self,
        dev: &ash::Device,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
        required: vk::MemoryPropertyFlags,
    ) -> Result<PooledBuffer, String> {
        self.create_buffer_as(dev, size, usage, location, required, false)
    }

    /// A host cached transfer buffer: a plane GPUDownload copies into and hands on as the CPU
    /// frame's memory (TRANSFER_DST), or GPUUpload's staging (TRANSFER_SRC). Mapped, 64-byte
    /// aligned like every frame plane, and (in system RAM) not counted as device memory.
    pub fn create_host_transfer(&self, dev: &ash::Device, size: u64, usage: vk::BufferUsageFlags) -> Result<PooledBuffer, String> {
        self.create_buffer_as(dev, size, usage, MemoryLocation::GpuToCpu, vk::MemoryPropertyFlags::HOST_VISIBLE, true)
    }

    fn create_buffer_as(
        &self,
        dev: &ash::Device,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
        required: vk::MemoryPropertyFlags,
        host_transfer: bool,
    ) -> Result<PooledBuffer, String> {
        if size == 0 {
            return Err("A GPU buffer needs a nonzero size".into());
        }
        let key = bucket_key(size, usage, location, host_transfer);
        if let Some(mut b) = self.buckets.lock().get_mut(&key).and_then(Vec::pop) {
            self.unbucket(&b);
            b.size = size;
            crate::stats::count(crate::stats::Stat::VramReuse);
            return Ok(b);
        }
        let _t = crate::stats::time(crate::stats::Stat::VramNew);
        let ci = self.buffer_info(key.0, usage);
        // SAFETY: a valid create info.
        let buffer = unsafe { dev.create_buffer(&ci, None) }.map_err(|r| format!("vkCreateBuffer failed (VkResult {})", r.as_raw()))?;
        // SAFETY: a buffer just created.
        let mut req = unsafe { dev.get_buffer_memory_requirements(buffer) };
        if host_transfer {
            req.alignment = req.alignment.max(ALIGNMENT as u64);
        } else {
            req.alignment = req.alignment.max(device_align());
        }
        let region = match self.alloc_region_as(req, location, required, true, host_transfer) {
            Ok(r) => r,
            Err(e) => {
                // SAFETY: unused buffer.
                unsafe { dev.destroy_buffer(buffer, None) };
                return Err(e);
            }
        };
        // SAFETY: region and buffer are compatible (requirements honoured by the allocator).
        if let Err(r) = unsafe { dev.bind_buffer_memory(buffer, region.memory(), region.offset()) } {
            // SAFETY: unused buffer.
            unsafe { dev.destroy_buffer(buffer, None) };
            self.free_region(region);
            return Err(format!("vkBindBufferMemory failed (VkResult {})", r.as_raw()));
        }
        Ok(PooledBuffer { buffer, region, size, usage, location, host_transfer })
    }

    /// Gives a buffer back: kept in its bucket, over the VRAM limit too unless VSVK_VRAM_MODE=evict
    /// (see `vram_mode`).
    pub fn recycle(&self, dev: &ash::Device, b: PooledBuffer) {
        let n = b.region.size() as i64;
        let host_full = b.host_transfer && self.host_bucketed.load(Ordering::Relaxed) + n > pool_bytes() as i64;
        if host_full || (self.over_limit() && super::vram_mode() == super::VramMode::Evict) {
            self.destroy_buffer(dev, b);
            return;
        }
        let key = bucket_key(b.size, b.usage, b.location, b.host_transfer);
        let mut buckets = self.buckets.lock();
        if self.closed.load(Ordering::Acquire) {
            drop(buckets);
            self.destroy_buffer(dev, b);
            return;
        }
        self.bucketed.fetch_add(n, Ordering::Relaxed);
        if b.host_transfer {
            self.host_bucketed.fetch_add(n, Ordering::Relaxed);
        }
        buckets.entry(key).or_default().push(b);
    }

    /// Takes a buffer's bytes off the idle counts as it leaves its bucket.
    fn unbucket(&self, b: &PooledBuffer) {
        let n = b.region.size() as i64;
        self.bucketed.fetch_sub(n, Ordering::Relaxed);
        if b.host_transfer {
            self.host_bucketed.fetch_sub(n, Ordering::Relaxed);
        }
    }

    pub fn destroy_buffer(&self, dev: &ash::Device, b: PooledBuffer) {
        // SAFETY: the buffer is no longer used by anything (the caller's contract).
        unsafe { dev.destroy_buffer(b.buffer, None) };
        self.free_region(b.region);
    }

    pub fn take_exportable(&self, size: u64) -> Option<super::frame::Exportable> {
        let e = self.exportables.lock().get_mut(&size).and_then(Vec::pop)?;
        self.bucketed.fetch_sub(e.alloc_size as i64, Ordering::Relaxed);
        Some(e)
    }
    /// Keeps an idle exportable allocation for reuse; gives it back (`Some`) for the caller to
    /// destroy once the pool is closed.
    #[must_use]
    pub fn keep_exportable(&self, size: u64, e: super::frame::Exportable) -> Option<super::frame::Exportable> {
        let mut kept = self.exportables.lock();
        if self.closed.load(Ordering::Acquire) {
            return Some(e);
        }
        self.bucketed.fetch_add(e.alloc_size as i64, Ordering::Relaxed);
        kept.entry(size).or_default().push(e);
        None
    }

    /// Stops all reuse (the device is lost: nothing will run on what is kept): frees every
    /// bucketed buffer and returns the idle exportables for the caller to destroy. Whatever is
    /// given back later goes to the driver at once.
    pub fn close(&self, dev: &ash::Device) -> Vec<super::frame::Exportable> {
        self.closed.store(true, Ordering::Release);
        self.trim(dev);
        self.drain_exportables()
    }
    /// Takes every idle exportable allocation, for the caller to destroy.
    pub fn drain_exportables(&self) -> Vec<super::frame::Exportable> {
        let all: Vec<_> = self.exportables.lock().drain().flat_map(|(_, v)| v).collect();
        for e in &all {
            self.bucketed.fetch_sub(e.alloc_size as i64, Ordering::Relaxed);
        }
        all
    }

    /// Frees every bucketed buffer; returns the bytes released.
    pub fn trim(&self, dev: &ash::Device) -> i64 {
        let all: Vec<PooledBuffer> = self.buckets.lock().drain().flat_map(|(_, v)| v).collect();
        let mut n = 0;
        for b in all {
            n += b.region.size() as i64;
            self.unbucket(&b);
            self.destroy_buffer(dev, b);
        }
        n
    }

    pub fn teardown(&self, dev: &ash::Device) {
        self.trim(dev);
        // Dropping the allocator frees its blocks.
        drop(self.alloc.lock().take());
    }
}
