//! What the layers above the runtime plug into a core when it is made: the C ABI layer's function
//! tables (VSAPI, VSPLUGINAPI), which the runtime only hands on to C plugins' callbacks, and the
//! registration of the built-in plugins (std, resize, text). The runtime calls both without
//! knowing the layers that provide them, so no module of it imports one above it.
use std::sync::Arc;

use vsvk_plugin_api::abi::{VSAPI, VSPLUGINAPI};

use crate::core::Core;

#[derive(Clone, Copy)]
pub struct Wiring {
    pub vsapi: *const VSAPI,
    pub plugin_api: *const VSPLUGINAPI,
    /// Registers the built-in plugins on a new core, before autoloading.
    pub builtins: fn(&Arc<Core>),
}

// SAFETY: the pointers are to immutable statics of the C ABI layer, valid for the process's life.
unsafe impl Send for Wiring {}
// SAFETY: as above; nothing is ever written through them.
unsafe impl Sync for Wiring {}
