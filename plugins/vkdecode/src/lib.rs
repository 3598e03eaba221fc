//! The `vkdec` namespace: `vkdec.Source(source, threads, cache, gpu)`, a video source for mp4,
//! mkv and MPEG-TS files holding H.264, HEVC or AV1, with frame-exact random access.
//!
//! Decoding is FFmpeg's (a minimal static build, scripts/setup-ffmpeg.sh), driven by a small C
//! shim (src/shim) that owns the demuxer, the packet index, seeking and the decoded-frame cache;
//! `source` is its safe face, `filter` the VapourSynth filter, `upload` the copy onto the core's
//! GPU, `vkvideo` the Vulkan Video path and `props` the frame properties. plugins/README.md says what it decodes and how.
use vsvk_plugin_api::plugin::Registrar;

mod error;
mod ffi;
mod filter;
mod props;
pub mod source;
mod upload;
mod vkvideo;

pub use error::DecodeError;

fn init(r: &Registrar) {
    r.configure("com.vsvk.vkdec", "vkdec", "Video source decoding into the core's GPU (vsvk)", (1, 0));
    r.function("Source", filter::ARGS, "clip:vnode:all;", filter::create);
}

vsvk_plugin_api::export_plugin!(init);
