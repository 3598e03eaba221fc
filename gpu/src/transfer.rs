//! Transfer primitives over plane buffers: the barrier that makes device writes visible to the
//! host, and the availability round trip of waitGPUFrame and of mapped downloads. Whole frame
//! uploads and downloads (std.GPUUpload / std.GPUDownload) are the runtime's, built on these.
use std::sync::Arc;

use ash::vk;
use vsvk_plugin_api::vulkan::vqTransfer;

use super::device::Device;
use super::exec::PoolInner;
use super::frame::GpuPlanes;

/// A global barrier from every device write to host (and foreign) reads.
pub fn host_barrier(dev: &Device, cb: vk::CommandBuffer) {
    write_barrier(dev, cb, vk::PipelineStageFlags2::HOST, vk::AccessFlags2::HOST_READ | vk::AccessFlags2::MEMORY_READ);
}

/// A global barrier from every earlier command's writes to `stage`'s `access` (`cb` recording in a
/// context this thread holds).
pub fn write_barrier(dev: &Device, cb: vk::CommandBuffer, stage: vk::PipelineStageFlags2, access: vk::AccessFlags2) {
    let mb = [vk::MemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
        .dst_stage_mask(stage)
        .dst_access_mask(access)];
    let dep = vk::DependencyInfo::default().memory_barriers(&mb);
    // SAFETY: recording into a context we hold.
    unsafe { dev.device.cmd_pipeline_barrier2(cb, &dep) };
}

/// One submission that waits the frame's producers and makes their writes available to the host;
/// returns once it completed.
pub fn availability_round_trip<F: GpuPlanes>(dev: &Arc<Device>, f: &Arc<F>) -> Result<(), String> {
    let pool = PoolInner::create(dev, vqTransfer, 2)?;
    let r = round_trip(&pool, f);
    pool.destroy();
    r
}

/// The availability round trip on `pool`.
pub fn round_trip<F: GpuPlanes>(pool: &Arc<PoolInner>, f: &Arc<F>) -> Result<(), String> {
    let slot = pool.acquire()?;
    host_barrier(&pool.dev, slot.cb);
    pool.reads_frame_internal(slot, f.clone());
    let v = pool.submit(slot)?;
    pool.wait_value(v).into_result()
}
