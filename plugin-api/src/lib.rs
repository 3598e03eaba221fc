//! ABI types shared between the vsvk core and plugins (`abi`, `vulkan`), and a safe layer for
//! writing VapourSynth-ABI plugins in Rust (the other modules; docs/PLUGIN-API.md walks through a
//! complete plugin).
//!
//! The safe layer: [`plugin`] registers functions, [`map`] reads typed arguments and writes
//! results, [`node`] and [`frame`] wrap clips and frames, [`filter`] turns a Rust [`filter::Filter`]
//! into a core filter (video or audio), [`activation`] makes filters of several activation steps
//! with per-frame data (FrameEval, ModifyFrame), [`gpu`] runs compute work on the core's Vulkan device (exec pools as a guard,
//! shaders compiled through the core, pipelines with push descriptors and push constants), and
//! [`error::Error`] is what they all fail with. [`values`] reads and writes any map (every value
//! type, keys, errors: arguments, results, frame properties, [`values::OwnedMap`]), [`function`]
//! calls and makes function references, [`invoke`] calls other plugins' functions,
//! [`residency`] runs host-memory filters on GPU clips, [`views`] makes frames that share another
//! frame's rows (fields) where the core allows it, and [`simd`] gives kernels half-precision
//! conversions and CPU feature dispatch ([`multiversion!`]). The core's built-in namespaces (std, text, resize)
//! are written on this layer too and registered into their plugin through [`plugin::init`]. Every entry point from the core goes through
//! [`plugin`] or [`filter`], which catch panics and turn errors into the core's error strings.
pub mod abi;
pub mod vulkan;
#[allow(non_snake_case, non_camel_case_types)]
pub mod import;

pub mod activation;
pub mod api;
pub mod error;
pub mod filter;
pub mod frame;
pub mod function;
pub mod gpu;
pub mod invoke;
pub mod map;
pub mod node;
pub mod plugin;
pub mod residency;
pub mod simd;
pub mod values;
pub mod views;

pub use error::{Error, Result};
