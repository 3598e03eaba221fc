//! GPU frames: the GPU crate's planes (re-exported) inside the runtime's frames. Frame implements
//! the GPU crate's `GpuPlanes`, through which exec contexts hold frames and wait their producers.
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

pub use vsvk_gpu::frame::*;

use super::device::Device;
use crate::frame::{Frame, MemStats};

impl GpuPlanes for Frame {
    fn plane_count(&self) -> usize {
        self.num_planes()
    }
    fn gpu_plane_at(&self, p: i32) -> Option<&GpuPlane> {
        self.plane(p).and_then(|pl| pl.buf.gpu())
    }
    fn holds_plane(&self, p: i32) -> bool {
        let Some(pl) = self.plane(p) else { return false };
        let own = self.planes().iter().filter(|q| Arc::ptr_eq(&q.buf, &pl.buf)).count();
        Arc::strong_count(&pl.buf) == own
    }
}

pub fn is_gpu(f: &Frame) -> bool {
    f.residency() == nrGPU
}

/// A new GPU frame like newVideoFrame would make, properties copied from `props`.
pub fn new_frame(
    dev: &Arc<Device>,
    stats: &Arc<MemStats>,
    fmt: &VSVideoFormat,
    w: i32,
    h: i32,
    exportable: bool,
) -> Result<Frame, String> {
    match Frame::new_gpu_video(fmt, w, h, stats, |len| GpuPlane::new(dev, len, exportable)) {
        Ok(Ok(f)) => Ok(f),
        Ok(Err(e)) => Err(format!("Failed to allocate a GPU plane: {e}")),
        Err(e) => Err(format!("Error in frame creation: {e}")),
    }
}
