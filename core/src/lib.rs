//! vsvk: a VapourSynth API 4.3 compatible frame server core.
#![allow(non_upper_case_globals)]
//!
//! Layering: `api` is the C ABI (checks and conversions only); `core`, `node`, `scheduler`,
//! `frame`, `map`, `plugin` and friends are the safe layer it calls.
pub mod wiring;
#[cfg(all(windows, target_env = "gnu"))]
mod mingw_math;
pub mod api;
pub mod argspec;
pub mod autoload;
pub mod cache;
pub mod core;
pub mod delivery;
/// Fatal misuses, from the GPU crate at the bottom (the lowest crate that needs them).
use vsvk_gpu::fatal;
pub mod format;
pub mod frame;
pub mod function;
pub mod gpu;
pub mod log;
pub mod map;
pub mod node;
pub mod plugin;
pub mod scheduler;
/// The profiling counters, the GPU crate's (most of the steps it counts are the GPU half's).
pub use vsvk_gpu::stats;
pub mod stdlib;
