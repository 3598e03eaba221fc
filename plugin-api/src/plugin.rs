//! Plugin registration: `VapourSynthPluginInit2` through [`export_plugin!`], and functions
//! registered with a plain Rust create function.
//!
//! ```ignore
//! fn init(r: &Registrar) {
//!     r.configure("com.example.double", "double", "Doubles things", (1, 0));
//!     r.function("Double", "clip:vnode;", "clip:vnode;", double_create);
//! }
//! vsvk_plugin_api::export_plugin!(init);
//! ```
use std::ffi::{c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::abi::*;
use crate::api::{self, Core};
use crate::error::Result;
use crate::map::{Args, Out};

/// What a registered function does when called: read `args`, put the result into `out`. An
/// error is shown as `Name: error` ([`crate::Error::Whole`] as written).
pub type CreateFn = fn(&Args, &mut Out, Core) -> Result<()>;

struct Entry {
    name: String,
    create: CreateFn,
}

/// What `VapourSynthPluginInit2` was handed.
pub struct Registrar {
    plugin: *mut VSPlugin,
    papi: *const VSPLUGINAPI,
}

impl Registrar {
    pub fn configure(&self, identifier: &str, namespace: &str, name: &str, version: (i32, i32)) {
        let c = |s: &str| CString::new(s).expect("no NUL in plugin names");
        let (i, ns, n) = (c(identifier), c(namespace), c(name));
        // SAFETY: the table and plugin came from the core for this call.
        unsafe {
            ((*self.papi).configPlugin)(i.as_ptr(), ns.as_ptr(), n.as_ptr(), make_version(version.0, version.1), VAPOURSYNTH_API_VERSION, 0, self.plugin)
        };
    }

    /// Registers `name` with the core's argument and return type strings.
    pub fn function(&self, name: &str, args: &str, returns: &str, create: CreateFn) {
        let c = |s: &str| CString::new(s).expect("no NUL in signatures");
        let (n, a, r) = (c(name), c(args), c(returns));
        // one Entry per registration, alive as long as the plugin can be called: leaked on purpose
        let entry = Box::into_raw(Box::new(Entry { name: name.to_string(), create }));
        // SAFETY: as above; the entry pointer stays valid forever.
        unsafe { ((*self.papi).registerFunction)(n.as_ptr(), a.as_ptr(), r.as_ptr(), Some(call), entry.cast(), self.plugin) };
    }
}

/// The panic message, for reporting a bug instead of unwinding into C.
pub(crate) fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "unknown panic".into())
}

unsafe extern "C" fn call(in_: *const VSMap, out: *mut VSMap, user: *mut c_void, core: *mut VSCore, vsapi: *const VSAPI) {
    api::set(vsapi);
    // SAFETY: `user` is the Entry registered with this function; the maps are valid for the call.
    let entry = unsafe { &*(user as *const Entry) };
    // SAFETY: the core's argument and result maps, live for the call.
    let (args, mut out) = unsafe { (Args::from_raw(in_), Out::from_raw(out)) };
    let r = catch_unwind(AssertUnwindSafe(|| (entry.create)(&args, &mut out, Core(core))));
    match r {
        Ok(Ok(())) => {}
        Ok(Err(e)) => out.set_error(&e.shown_for(&entry.name)),
        Err(p) => out.set_error(&format!("{}: internal error: {}", entry.name, panic_text(&*p))),
    }
}

/// The shape of `VapourSynthPluginInit2`: what the core calls to have a plugin register its
/// functions (built-in namespaces export one under a plain Rust name).
pub type InitFn = unsafe extern "C" fn(*mut VSPlugin, *const VSPLUGINAPI);

/// Runs a plugin's init function, catching panics.
///
/// # Safety
/// The arguments are those the core passed to `VapourSynthPluginInit2`.
pub unsafe fn init(plugin: *mut VSPlugin, vspapi: *const VSPLUGINAPI, f: fn(&Registrar)) {
    let r = Registrar { plugin, papi: vspapi };
    if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(&r))) {
        eprintln!("plugin init failed: {}", panic_text(&*p));
    }
}

/// Exports `VapourSynthPluginInit2` calling `init(&Registrar)`.
#[macro_export]
macro_rules! export_plugin {
    ($init:path) => {
        /// The plugin entry point the core looks for.
        ///
        /// # Safety
        /// Called by the core with its own plugin handle and table.
        #[no_mangle]
        pub unsafe extern "C" fn VapourSynthPluginInit2(plugin: *mut $crate::abi::VSPlugin, vspapi: *const $crate::abi::VSPLUGINAPI) {
            // SAFETY: forwarded unchanged from the core.
            unsafe { $crate::plugin::init(plugin, vspapi, $init) }
        }
    };
}
