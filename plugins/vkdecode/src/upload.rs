//! Decoded planes onto the core's GPU: one host-visible staging buffer per frame, filled with
//! the planes at the GPU frame's own strides, copied into the frame's plane buffers by one
//! submission on the filter's exec pool, which publishes the planes' producer pairs.
use ash::vk;
use vsvk_plugin_api::abi::VSVideoFormat;
use vsvk_plugin_api::frame::FrameMut;
use vsvk_plugin_api::gpu::{ExecPool, Gpu};
use vsvk_plugin_api::{Error, Result};

use crate::source::Decoded;

pub struct Uploader {
    pool: ExecPool,
}

impl Uploader {
    pub fn new(gpu: &Gpu) -> Result<Uploader> {
        Ok(Uploader { pool: gpu.exec_pool()? })
    }

    /// A GPU frame holding `d`'s planes; properties are the caller's to add.
    pub fn upload(&self, d: &Decoded, format: &VSVideoFormat, width: i32, height: i32) -> Result<FrameMut> {
        let gpu = self.pool.gpu();
        let mut f = gpu.new_frame(format, width, height, None)?;
        let planes = d.planes() as usize;
        let mut offsets = Vec::with_capacity(planes);
        let mut total = 0u64;
        for p in 0..planes {
            offsets.push(total);
            total += f.stride(p as i32) as u64 * f.height(p as i32) as u64;
        }
        let staging = gpu.buffer(total, vk::BufferUsageFlags::TRANSFER_SRC, vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT, vk::MemoryPropertyFlags::empty())?;
        let base = staging.info.mapped.cast::<u8>();
        if base.is_null() {
            return Err(Error::Core { call: "createGPUBuffer", message: "host visible memory came back unmapped".into() });
        }
        for (p, &off) in offsets.iter().enumerate() {
            let stride = f.stride(p as i32) as usize;
            for (y, row) in d.rows(p).enumerate() {
                let at = off as usize + y * stride;
                assert!(at + row.len() <= total as usize && row.len() <= stride, "plane {p} row {y} outside the staging buffer");
                // SAFETY: the mapping holds `total` bytes (checked just above) and is ours alone
                // until the submission below.
                unsafe { std::ptr::copy_nonoverlapping(row.as_ptr(), base.add(at), row.len()) };
            }
        }
        let mut ex = self.pool.acquire()?;
        let cmd = ex.command_buffer();
        for (p, &off) in offsets.iter().enumerate() {
            let plane = gpu.plane_mut(&f, p as i32)?;
            let region = [vk::BufferCopy2::default().src_offset(off).dst_offset(0).size(plane.bufferSize)];
            let info = vk::CopyBufferInfo2::default().src_buffer(staging.handle()).dst_buffer(plane.buffer).regions(&region);
            // SAFETY: recording into the command buffer of our acquired context; both buffers
            // live until the submission completes (the staging one is handed to the context).
            unsafe { (gpu.fns().vkCmdCopyBuffer2.expect("in the core's table"))(cmd, &info) };
            ex.writes(&mut f, p as i32);
        }
        ex.uses_buffer(staging);
        ex.submit()?;
        Ok(f)
    }
}
