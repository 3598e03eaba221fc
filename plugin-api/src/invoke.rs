//! Calling other plugins' functions: a plugin found by identifier or namespace, and `invoke` of
//! one of its functions with an [`OwnedMap`] of arguments.
use std::ffi::CString;

use crate::abi::VSPlugin;
use crate::api::{api, Core};
use crate::error::{Error, Result};
use crate::values::OwnedMap;

/// A plugin of a core (plugins live as long as their core).
#[derive(Clone, Copy)]
pub struct PluginRef(*mut VSPlugin);

// SAFETY: the core's plugins are thread safe; the pointer is only handed back to the core.
unsafe impl Send for PluginRef {}
unsafe impl Sync for PluginRef {}

impl PluginRef {
    /// The plugin with this identifier (`com.vapoursynth.std`).
    pub fn by_id(core: Core, id: &str) -> Option<PluginRef> {
        let c = CString::new(id).ok()?;
        // SAFETY: a valid core and a terminated string.
        let p = unsafe { (api().getPluginByID)(c.as_ptr(), core.as_ptr()) };
        (!p.is_null()).then_some(PluginRef(p))
    }

    /// The plugin with this namespace (`std`).
    pub fn by_namespace(core: Core, ns: &str) -> Option<PluginRef> {
        let c = CString::new(ns).ok()?;
        // SAFETY: a valid core and a terminated string.
        let p = unsafe { (api().getPluginByNamespace)(c.as_ptr(), core.as_ptr()) };
        (!p.is_null()).then_some(PluginRef(p))
    }

    pub fn as_ptr(self) -> *mut VSPlugin {
        self.0
    }

    /// Calls `name` with `args`. The function's error comes back as [`Error::Invalid`] with its
    /// message unchanged.
    pub fn invoke(self, name: &str, args: &OwnedMap) -> Result<OwnedMap> {
        let c = CString::new(name).map_err(|_| Error::invalid(format!("invalid function name {name:?}")))?;
        // SAFETY: a plugin of a live core, a terminated name and a valid map; the result is ours.
        let out = unsafe { OwnedMap::from_raw((api().invoke)(self.0, c.as_ptr(), args.as_ptr())) };
        out.ok()
    }
}
