//! vsvk: a VapourSynth API 4.3 compatible frame server core.
#![allow(non_upper_case_globals)]
//!
//! Layering: `api` is the C ABI (checks and conversions only); `core`, `node`, `scheduler`,
//! `frame`, `map`, `plugin` and friends are the safe layer it calls.
#[cfg(all(windows, target_env = "gnu"))]
mod mingw_math;
pub mod api;
pub mod argspec;
pub mod autoload;
pub mod cache;
pub mod core;
pub mod delivery;
mod fatal;
pub mod format;
pub mod frame;
pub mod function;
pub mod gpu;
pub mod log;
pub mod map;
pub mod node;
pub mod plugin;
pub mod resize; pub mod text;
pub mod scheduler;
pub mod stats;
pub mod stdlib;
