//! ABI types shared between the vsvk core and plugins, and (in `safe`) a layer for Rust filter authors.
pub mod abi;
pub mod vulkan;
