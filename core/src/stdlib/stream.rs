//! The core's side of std's streamed output rows (`vsvk_std::stream`): the same rule, fed with
//! the core's own thread count and frames.
use crate::core::Core;
use crate::frame::Frame;

pub(crate) use vsvk_std::stream::{copy_row, fence};

/// Whether a filter of `core` writing frames of `frame_bytes` should stream its output rows.
pub(crate) fn stream_outputs(core: &Core, frame_bytes: usize) -> bool {
    vsvk_std::stream::stream_outputs(core.threads(), frame_bytes)
}

/// Bytes of every plane of `f`, padding included.
pub(crate) fn frame_bytes(f: &Frame) -> usize {
    f.planes().iter().map(|pl| pl.stride.unsigned_abs() * pl.height as usize).sum()
}
