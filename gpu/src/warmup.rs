//! Each queue's first work, done once as the device comes up, one queue after another: a fill, a
//! copy into host memory and, on the compute family, a dispatch of the copy kernel, each the kind
//! of command the queue carries later.
//!
//! Why: in five GPU stalls caught on the H100 (a filter's kernel on the compute queue never ending;
//! in the two where they were read, the GPU idle by its clock reasons yet "100% busy", and no Xid
//! in the kernel log), four had the first submissions of
//! the compute family's other queues unfinished, and the fifth their second and third, all in the first
//! few frames of a run while the compute queue ran the filter (bench/results/log-2026-12-07.md). Where
//! the driver sets a queue up on its first use, that then happens here, with nothing beside it.
//! VSVK_QUEUE_WARMUP=0 leaves it out (the A/B in scripts/device/parts/hang.sh).
use std::sync::Arc;

use ash::vk;

use super::device::Device;
use super::exec::PoolInner;
use super::upload_kernel::UploadKernel;
use super::GpuBuffer;

/// Bytes each queue fills and copies: a whole number of the copy kernel's 16-byte words.
const BYTES: u64 = 4096;
/// What the fill writes, so that each queue's copy is seen to arrive.
const PATTERN: u32 = 0x5a5a_5a5a;

/// Every earlier command's writes before any later command's reads and writes.
fn barrier(dev: &Device, cb: vk::CommandBuffer) {
    super::transfer::write_barrier(dev, cb, vk::PipelineStageFlags2::ALL_COMMANDS, vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE);
}

/// Whether `dev` warms its queues up: unless VSVK_QUEUE_WARMUP=0, or a device loss is injected
/// (VSVK_INJECT_DEVICE_LOST counts submissions from the first one the core's users cause).
pub fn enabled(dev: &Device) -> bool {
    dev.inject_after.is_none() && std::env::var_os("VSVK_QUEUE_WARMUP").is_none_or(|v| v != "0")
}

/// Runs the warm-up on every queue of `dev`, waiting for each before the next.
pub fn warm_queues(dev: &Arc<Device>) -> Result<(), String> {
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
    let local = GpuBuffer::new(dev, BYTES, usage, vk::MemoryPropertyFlags::DEVICE_LOCAL, vk::MemoryPropertyFlags::empty())?;
    let host = GpuBuffer::host_transfer(dev, BYTES, usage)?;
    // Without the kernel (a driver that cannot build it) the copies still warm every queue.
    let kernel = UploadKernel::new(dev).ok();
    for q in dev.all_queues() {
        let _t = super::stats::time(super::stats::Stat::QueueWarmup);
        let pool = PoolInner::create_untimed(dev, q.clone())?;
        let result = warm_one(dev, &pool, &local, &host, kernel.as_ref().filter(|_| q.family == dev.compute.family));
        pool.destroy();
        result.map_err(|e| format!("queue {}.{}: {e}", q.family, q.index))?;
    }
    Ok(())
}

fn warm_one(dev: &Device, pool: &Arc<PoolInner>, local: &GpuBuffer, host: &GpuBuffer, kernel: Option<&UploadKernel>) -> Result<(), String> {
    let seen = host.get().mapped();
    // SAFETY: a mapped host coherent buffer of BYTES that no GPU work uses now (each queue's
    // submission completed before the next is recorded).
    unsafe { std::ptr::write_bytes(seen, 0, BYTES as usize) };
    let slot = pool.acquire()?;
    let (src, dst) = (local.get().buffer, host.get().buffer);
    let d = &dev.device;
    // SAFETY: recording into the context this thread holds; both buffers hold BYTES with the
    // usages named above and outlive the wait below; the kernel only on a compute family queue.
    unsafe {
        d.cmd_fill_buffer(slot.cb, src, 0, BYTES, PATTERN);
        barrier(dev, slot.cb);
        d.cmd_copy_buffer(slot.cb, src, dst, &[vk::BufferCopy { src_offset: 0, dst_offset: 0, size: BYTES }]);
        if let Some(k) = kernel {
            barrier(dev, slot.cb);
            k.record(slot.cb, src, dst, BYTES);
        }
    }
    let v = pool.submit(slot)?;
    pool.wait_value(v).into_result()?;
    // SAFETY: as above; the submission wrote it and completed.
    let arrived = unsafe { std::slice::from_raw_parts(seen, BYTES as usize) };
    if arrived.iter().any(|&b| b != PATTERN as u8) {
        return Err("its copy into host memory did not arrive".into());
    }
    Ok(())
}
