//! Frames over foreign memory: the GPU crate's import (re-exported) of memory and timelines, and
//! the runtime's frames whose planes are buffers over that memory.
use std::sync::Arc;

use vsvk_plugin_api::abi::VSVideoFormat;

pub use vsvk_gpu::import::*;

use super::device::Device;
use super::exec::Timeline;
use crate::frame::{Frame, MemStats};

/// A GPU frame whose planes are the given ranges of imported memory, with `producer` (a value
/// whose signal the foreign side has already queued) as every plane's producer pair; `release`
/// runs once the frame's last plane is gone, and is disarmed when no frame is made.
#[allow(clippy::too_many_arguments)]
pub fn imported_frame(
    dev: &Arc<Device>,
    stats: &Arc<MemStats>,
    fmt: &VSVideoFormat,
    width: i32,
    height: i32,
    planes: Vec<PlaneAt>,
    producer: Option<(Arc<Timeline>, u64)>,
    release: Option<Arc<Release>>,
) -> Result<Frame, ImportError> {
    let made = (|| {
        if !crate::format::is_valid_video(fmt) {
            return Err(ImportError::Layout("the format is not a valid video format".into()));
        }
        if planes.len() != fmt.numPlanes as usize {
            return Err(ImportError::Layout(format!("the format has {} planes, {} were given", fmt.numPlanes, planes.len())));
        }
        if width <= 0 || height <= 0 {
            return Err(ImportError::Layout(format!("dimensions {width}x{height}: both must be positive")));
        }
        if width % (1 << fmt.subSamplingW) != 0 || height % (1 << fmt.subSamplingH) != 0 {
            return Err(ImportError::Layout(format!("dimensions {width}x{height} are not whole multiples of the format's subsampling")));
        }
        let mut made = Vec::new();
        for (p, at) in planes.into_iter().enumerate() {
            let (pw, ph) = crate::format::plane_dims(fmt, width, height, p);
            let row = pw as isize * fmt.bytesPerSample as isize;
            if at.stride < row || at.stride % fmt.bytesPerSample as isize != 0 {
                return Err(ImportError::Layout(format!("plane {p}: stride {} is below the row's {row} bytes or not a whole number of samples", at.stride)));
            }
            let size = at.stride as u64 * ph as u64;
            made.push((plane_over(dev, p, &at, size, release.clone())?, at.stride));
        }
        // Only now: a plane dropped on a refusal above would wait for its producer on the host.
        if let Some((t, v)) = &producer {
            made.iter().for_each(|(g, _)| g.set_producer(Some(t.clone()), *v));
        }
        Frame::from_gpu_planes(fmt, width, height, stats, made).map_err(|e| ImportError::Layout(format!("{e:?}")))
    })();
    if made.is_err() {
        if let Some(r) = &release {
            r.disarm();
        }
    }
    made
}
