//! Interop: exporting plane memory and timeline semaphores as opaque handles (gpu::handle: fds,
//! or NT handles on Windows), and the
//! availability round trip of waitGPUFrame.
use std::sync::Arc;

use ash::vk;
use vsvk_plugin_api::vulkan::*;

use super::device::Device;
use super::frame::{gpu_plane, GpuPlanes};
use super::handle;

pub struct ExportedPlane {
    pub memory_id: u64,
    pub memory_size: u64,
    pub type_index: u32,
    pub offset: u64,
    pub size: u64,
    pub handle_type: i32,
    /// An fd, or an NT HANDLE on Windows; the receiver's to close (see gpu::handle).
    pub handle: isize,
}

/// exportGPUPlane: the allocation behind a plane, which is the foreign API's from then on (see
/// gpu::frame's owners).
pub fn export_plane<F: GpuPlanes + ?Sized>(f: &F, plane: i32) -> Result<ExportedPlane, String> {
    let g = gpu_plane(f, plane).ok_or("The frame is not GPU resident or the plane does not exist")?;
    g.exportable().ok_or(NOT_EXPORTABLE)?;
    let _ = g.owner.compare_exchange(
        super::frame::OWNER_CORE,
        super::frame::OWNER_FOREIGN_FRESH,
        std::sync::atomic::Ordering::Relaxed,
        std::sync::atomic::Ordering::Relaxed,
    );
    export_memory(g)
}

const NOT_EXPORTABLE: &str =
    "the plane is not in exportable memory (GPUUpload's frames are not): take the frame with getExportableFrameFilter, which hands out exportable copies";

/// The allocation behind a plane as an opaque handle, its owner left as it is: for the core's own
/// interop (the Python module's gpu_map), which tracks when the foreign side is done itself.
pub fn export_memory(g: &super::frame::GpuPlane) -> Result<ExportedPlane, String> {
    let x = g.dev.memory_export.as_ref().ok_or("this device cannot export memory (exportHandleType is 0)")?;
    let e = g.exportable().ok_or(NOT_EXPORTABLE)?;
    let handle = handle::get_memory(x, e.memory)?;
    Ok(ExportedPlane {
        memory_id: e.memory_id,
        memory_size: e.alloc_size,
        type_index: e.type_index,
        offset: 0,
        size: g.size,
        handle_type: handle::MEMORY_TYPE,
        handle,
    })
}

pub fn export_semaphore(dev: &Device, sem: vk::Semaphore) -> Result<(i32, isize), String> {
    if sem == vk::Semaphore::null() {
        return Err("Cannot export a null semaphore".into());
    }
    let x = dev.semaphore_export.as_ref().ok_or("this device cannot export semaphores (semaphoreExportHandleType is 0)")?;
    Ok((handle::SEMAPHORE_TYPE, handle::get_semaphore(x, sem)?))
}

/// waitGPUFrame: host waits every producer pair, then one submission whose barrier makes the
/// device's writes available to the host and foreign domains.
pub fn wait_frame<F: GpuPlanes>(f: &Arc<F>) -> Result<(), (i32, String)> {
    let Some(dev) = (0..f.plane_count() as i32).find_map(|p| gpu_plane(f, p)).map(|g| g.dev.clone()) else {
        return Err((gdIncomplete, "The frame is not GPU resident".into()));
    };
    super::frame::wait_frame(f)?;
    super::transfer::availability_round_trip(&dev, f).map_err(|e| (if dev.is_lost() { gdDeviceLost } else { gdIncomplete }, e))
}
