//! GPU resident frame planes: a linear storage buffer (pooled, or a dedicated exportable
//! allocation for frames handed to foreign APIs) with exactly the CPU frame's stride, and the
//! plane's producer pair. Dropping a plane waits out its producer before the memory is reused.
use std::sync::Arc;

use ash::vk;
use parking_lot::Mutex;
use vsvk_plugin_api::abi::*;

use super::device::Device;
use super::exec::{wait_value, Timeline, WaitOutcome};
use super::pool::PooledBuffer;
use crate::frame::Frame;

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

/// A dedicated allocation made with export info, for planes foreign APIs import.
pub struct Exportable {
    pub buffer: vk::Buffer,
    pub memory: vk::DeviceMemory,
    pub alloc_size: u64,
    pub type_index: u32,
}

enum Backing {
    Pooled(PooledBuffer),
    Exportable(Exportable),
}

pub struct GpuPlane {
    pub dev: Arc<Device>,
    backing: Option<Backing>,
    pub size: u64,
    /// Identity of the underlying allocation, never reused on this device.
    pub memory_id: u64,
    producer: Mutex<Producer>,
}

impl GpuPlane {
    /// A pooled plane buffer of `size` bytes, made room for under the VRAM limit first.
    pub fn new(dev: &Arc<Device>, size: usize) -> Result<GpuPlane, String> {
        super::make_room(dev, size as i64);
        let b = dev
            .pool
            .create_buffer(&dev.device, size as u64, PLANE_USAGE, dev.pool.plane_location, vk::MemoryPropertyFlags::empty())
            .or_else(|_| {
                // Pressure: give back everything idle and try once more.
                super::relieve(dev);
                dev.pool.create_buffer(&dev.device, size as u64, PLANE_USAGE, dev.pool.plane_location, vk::MemoryPropertyFlags::empty())
            })?;
        Ok(GpuPlane {
            dev: dev.clone(),
            backing: Some(Backing::Pooled(b)),
            size: size as u64,
            memory_id: dev.next_memory_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            producer: Mutex::new(Producer::default()),
        })
    }

    /// A plane in its own exportable allocation.
    pub fn new_exportable(dev: &Arc<Device>, size: usize) -> Result<GpuPlane, String> {
        let d = &dev.device;
        let handle = vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD;
        let mut ext = vk::ExternalMemoryBufferCreateInfo::default().handle_types(handle);
        let ci = vk::BufferCreateInfo::default().size(size as u64).usage(PLANE_USAGE).push_next(&mut ext);
        // SAFETY: valid create info.
        let buffer = unsafe { d.create_buffer(&ci, None) }.map_err(|r| format!("vkCreateBuffer failed (VkResult {})", r.as_raw()))?;
        // SAFETY: a live buffer.
        let req = unsafe { d.get_buffer_memory_requirements(buffer) };
        let Some(type_index) = (0..dev.mem_props.memory_type_count).find(|&i| {
            req.memory_type_bits & (1 << i) != 0
                && dev.mem_props.memory_types[i as usize].property_flags.contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
        }) else {
            // SAFETY: unused.
            unsafe { d.destroy_buffer(buffer, None) };
            return Err("no device local memory type for an exportable plane".into());
        };
        let mut export = vk::ExportMemoryAllocateInfo::default().handle_types(handle);
        let mut flags = vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let ai = vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(type_index).push_next(&mut export).push_next(&mut flags);
        // SAFETY: valid allocate info.
        let memory = match unsafe { d.allocate_memory(&ai, None) } {
            Ok(m) => m,
            Err(r) => {
                // SAFETY: unused.
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(format!("Failed to allocate a GPU plane: vkAllocateMemory failed (VkResult {})", r.as_raw()));
            }
        };
        // SAFETY: compatible memory.
        unsafe { d.bind_buffer_memory(buffer, memory, 0) }.map_err(|r| format!("vkBindBufferMemory failed ({})", r.as_raw()))?;
        dev.pool.used.fetch_add(req.size as i64, std::sync::atomic::Ordering::Relaxed);
        Ok(GpuPlane {
            dev: dev.clone(),
            backing: Some(Backing::Exportable(Exportable { buffer, memory, alloc_size: req.size, type_index })),
            size: size as u64,
            memory_id: dev.next_memory_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            producer: Mutex::new(Producer::default()),
        })
    }

    pub fn buffer(&self) -> vk::Buffer {
        match self.backing.as_ref() {
            Some(Backing::Pooled(b)) => b.buffer,
            Some(Backing::Exportable(e)) => e.buffer,
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
            _ => None,
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
            Some(Backing::Pooled(b)) => self.dev.pool.recycle(&self.dev.device, b),
            Some(Backing::Exportable(e)) => {
                // SAFETY: nothing uses the plane any more (its producer is done; readers retain frames).
                unsafe {
                    self.dev.device.destroy_buffer(e.buffer, None);
                    self.dev.device.free_memory(e.memory, None);
                }
                self.dev.pool.used.fetch_sub(e.alloc_size as i64, std::sync::atomic::Ordering::Relaxed);
            }
            None => {}
        }
    }
}

/// The GPU storage of plane `p` of a frame, if it is GPU resident.
pub fn gpu_plane(f: &Frame, p: i32) -> Option<&GpuPlane> {
    f.plane(p).and_then(|pl| pl.buf.gpu())
}

/// Whether the frame holds plane `p` outright (no other frame shares its storage).
pub fn owns_plane(f: &Frame, p: i32) -> bool {
    let Some(pl) = f.plane(p) else { return false };
    let own = f.planes().iter().filter(|q| Arc::ptr_eq(&q.buf, &pl.buf)).count();
    Arc::strong_count(&pl.buf) == own
}

/// Host waits every plane's producer pair.
pub fn wait_frame(f: &Frame) -> Result<(), (i32, String)> {
    for p in 0..f.num_planes() as i32 {
        if let Some(g) = gpu_plane(f, p) {
            g.wait_host()?;
        }
    }
    Ok(())
}

pub fn is_gpu(f: &Frame) -> bool {
    f.residency() == nrGPU
}

/// A new GPU frame like newVideoFrame would make, properties copied from `props`.
pub fn new_frame(
    dev: &Arc<Device>,
    stats: &Arc<crate::frame::MemStats>,
    fmt: &VSVideoFormat,
    w: i32,
    h: i32,
    exportable: bool,
) -> Result<Frame, String> {
    match Frame::new_gpu_video(fmt, w, h, stats, |len| {
        if exportable {
            GpuPlane::new_exportable(dev, len)
        } else {
            GpuPlane::new(dev, len)
        }
    }) {
        Ok(Ok(f)) => Ok(f),
        Ok(Err(e)) => Err(format!("Failed to allocate a GPU plane: {e}")),
        Err(e) => Err(format!("Error in frame creation: {e}")),
    }
}
