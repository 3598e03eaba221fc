//! Plugins: loading shared libraries through VapourSynthPluginInit2, their registered functions,
//! invoke with argument checking, and the CPU variants of a library (finding plugins is autoload's).
use std::collections::BTreeMap;
use std::ffi::{c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use parking_lot::{Mutex, RwLock};
use thiserror::Error;
use vsvk_plugin_api::abi::*;

use crate::argspec::Signature;
use crate::core::Core;
use crate::map::Map;

pub type BuiltinFn = Box<dyn Fn(&Map, &mut Map, &Arc<Core>) + Send + Sync>;

pub enum FuncImpl {
    C { func: VSPublicFunction, data: *mut c_void },
    Rust(BuiltinFn),
}

pub struct PluginFunction {
    pub name: CString,
    pub args: CString,
    pub ret: CString,
    pub sig: Signature,
    pub imp: FuncImpl,
}

// SAFETY: registered functions must be callable from any thread (API contract); the data pointer
// belongs to the plugin.
unsafe impl Send for PluginFunction {}
unsafe impl Sync for PluginFunction {}

pub struct PluginConfig {
    pub id: CString,
    pub ns: CString,
    pub name: CString,
    pub version: i32,
    pub api_version: i32,
    pub flags: i32,
}

pub struct Plugin {
    pub config: OnceLock<PluginConfig>,
    pub path: CString,
    lib: Mutex<Option<libloading::Library>>,
    pub functions: RwLock<BTreeMap<CString, Arc<PluginFunction>>>,
    /// Set once initialisation is over: registration then needs pcModifiable.
    locked: AtomicBool,
    pub core: Weak<Core>,
    /// Overrides from std.LoadPlugin's forcens/forceid, applied at configPlugin.
    force_ns: Option<String>,
    force_id: Option<String>,
}

#[derive(Debug, Error)]
pub enum PluginError {
    #[error("Failed to load {path}. Error given: {msg}")]
    Open { path: String, msg: String },
    #[error("No entry point found in {0}")]
    NoEntryPoint(String),
    #[error("Plugin {0} did not call configPlugin in its initialisation")]
    NotConfigured(String),
    #[error("Plugin {path} requires API R{major}.{minor} but this core provides R4.3")]
    Api { path: String, major: i32, minor: i32 },
    #[error("Plugin {given} already loaded ({id}) from {path}")]
    DuplicateId { given: String, id: String, path: String },
    #[error("Plugin load of {given} failed, namespace {ns} already populated by {path}")]
    DuplicateNamespace { given: String, ns: String, path: String },
    #[error("Invalid plugin configuration in {path}: {msg}")]
    BadConfig { path: String, msg: String },
}

impl Plugin {
    pub fn new_builtin(core: &Arc<Core>, id: &str, ns: &str, name: &str, version: i32) -> Arc<Plugin> {
        let p = Plugin::blank(core, CString::default(), None, None);
        let _ = p.config.set(PluginConfig {
            id: cstring(id),
            ns: cstring(ns),
            name: cstring(name),
            version,
            api_version: VAPOURSYNTH_API_VERSION,
            flags: 0,
        });
        Arc::new(p)
    }
    fn blank(core: &Arc<Core>, path: CString, force_ns: Option<String>, force_id: Option<String>) -> Plugin {
        Plugin {
            config: OnceLock::new(),
            path,
            lib: Mutex::new(None),
            functions: RwLock::new(BTreeMap::new()),
            locked: AtomicBool::new(false),
            core: Arc::downgrade(core),
            force_ns,
            force_id,
        }
    }
    pub fn id(&self) -> &str {
        self.config.get().and_then(|c| c.id.to_str().ok()).unwrap_or("")
    }
    pub fn namespace(&self) -> &str {
        self.config.get().and_then(|c| c.ns.to_str().ok()).unwrap_or("")
    }
    pub fn lock(&self) {
        if self.config.get().is_some_and(|c| c.flags & pcModifiable == 0) {
            self.locked.store(true, Ordering::Release);
        }
    }
    pub fn unload(&self, keep_loaded: bool) {
        self.functions.write().clear();
        if let Some(lib) = self.lib.lock().take() {
            if keep_loaded {
                std::mem::forget(lib);
            }
        }
    }
    pub fn as_raw(p: &Arc<Plugin>) -> *mut VSPlugin {
        Arc::as_ptr(p) as *mut VSPlugin
    }
    /// # Safety
    /// `p` points at a plugin its core still holds.
    pub unsafe fn borrow_raw<'a>(p: *const VSPlugin) -> &'a Plugin {
        &*p.cast::<Plugin>()
    }

    /// Handles configPlugin; returns an error message for the log when refused.
    pub fn configure(&self, id: &str, ns: &str, name: &str, version: i32, api: i32, flags: i32) -> Result<(), String> {
        if self.config.get().is_some() {
            return Err("configPlugin called more than once".into());
        }
        let major = api >> 16;
        let minor = api & 0xffff;
        if major != VAPOURSYNTH_API_MAJOR || minor > VAPOURSYNTH_API_MINOR {
            return Err(format!("the plugin requires API R{major}.{minor} but this core provides R4.3"));
        }
        let id = self.force_id.as_deref().unwrap_or(id);
        let ns = self.force_ns.as_deref().unwrap_or(ns);
        if id.is_empty() {
            return Err("empty plugin identifier".into());
        }
        if !crate::map::is_valid_key(ns.as_bytes()) {
            return Err(format!("invalid namespace '{ns}'"));
        }
        if flags & !pcModifiable != 0 {
            return Err(format!("unknown configuration flags {flags:#x}"));
        }
        let _ = self.config.set(PluginConfig { id: cstring(id), ns: cstring(ns), name: cstring(name), version, api_version: api, flags });
        Ok(())
    }

    /// Handles registerFunction.
    pub fn register(&self, name: &str, args: &str, ret: &str, imp: FuncImpl) -> Result<(), String> {
        if self.locked.load(Ordering::Acquire) {
            return Err(format!("{}: registering {name} after initialisation needs pcModifiable", self.namespace()));
        }
        if self.config.get().is_none() {
            return Err(format!("{name}: registerFunction called before configPlugin"));
        }
        if !crate::map::is_valid_key(name.as_bytes()) {
            return Err(format!("{}: invalid function name '{name}'", self.namespace()));
        }
        // Worded as the reference logs it, with our pointer to the offending entry after it.
        let misuse = |e: crate::argspec::SpecError| format!("API MISUSE! Function '{name}' failed to register with error: {} ({e})", e.reference_message());
        let sig = Signature::parse(args).map_err(misuse)?;
        Signature::parse(ret).map_err(misuse)?;
        let mut fs = self.functions.write();
        let key = cstring(name);
        if fs.contains_key(&key) {
            return Err(format!("{}: function {name} is already registered", self.namespace()));
        }
        fs.insert(key, Arc::new(PluginFunction { name: cstring(name), args: cstring(args), ret: cstring(ret), sig, imp }));
        Ok(())
    }

    pub fn function(&self, name: &str) -> Option<Arc<PluginFunction>> {
        self.functions.read().get(&cstring(name)).cloned()
    }
}

thread_local! {
    /// Invocations in progress on this thread, innermost last, for graph inspection.
    pub static INVOKE_STACK: std::cell::RefCell<Vec<(CString, CString, CString, Map)>> = const { std::cell::RefCell::new(Vec::new()) };
    /// For each invocation in progress on this thread, innermost last: the turn among the queues
    /// that run filters' kernels its exec pools took, once it made one.
    static INVOKE_KERNEL_TURN: std::cell::RefCell<Vec<Option<usize>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The turn among the kernel queues for an exec pool on the compute queue made now: every pool
/// one invocation (a filter's creation) makes shares the turn `next` gave its first, so that a
/// filter's own pools keep one queue's order; None outside any invocation (the compute queue).
pub fn kernel_turn_for_invocation(next: impl FnOnce() -> usize) -> Option<usize> {
    INVOKE_KERNEL_TURN.with(|s| s.borrow_mut().last_mut().map(|t| *t.get_or_insert_with(next)))
}

/// invoke: checks the arguments against the function's signature and calls it.
pub fn invoke(plugin: &Plugin, name: &str, args: &Map) -> Map {
    let mut out = Map::new();
    let Some(f) = plugin.function(name) else {
        out.set_error(&format!("Function '{name}' not found in {}", plugin.id()));
        return out;
    };
    let Some(core) = plugin.core.upgrade() else {
        out.set_error(&format!("{name}: the core is gone"));
        return out;
    };
    // Node arguments of the wrong residency get GPUUpload / GPUDownload inserted, as in R81.
    let adapted;
    let args = match f.sig.check_adapting(name, args) {
        Err(e) => {
            out.set_error(&e);
            return out;
        }
        Ok(conv) if conv.is_empty() => args,
        Ok(conv) => match core.residency_adapter.get().ok_or_else(|| format!("{name}: a node argument needs GPUUpload or GPUDownload, and no std plugin is registered to make them")).and_then(|adapt| adapt(&core, name, args, &conv)) {
            Ok(m) => {
                adapted = m;
                &adapted
            }
            Err(e) => {
                out.set_error(&e);
                return out;
            }
        },
    };
    let inspect = core.graph_inspection();
    INVOKE_KERNEL_TURN.with(|s| s.borrow_mut().push(None));
    if inspect {
        let cfg = plugin.config.get().expect("registered functions imply a configured plugin");
        INVOKE_STACK.with(|s| s.borrow_mut().push((f.name.clone(), cfg.id.clone(), cfg.ns.clone(), args.clone())));
    }
    match &f.imp {
        FuncImpl::C { func, data } => {
            // SAFETY: the plugin's function with its data; maps outlive the call.
            unsafe { func((args as *const Map).cast(), (&mut out as *mut Map).cast(), *data, Core::as_raw(&core), core.wiring.vsapi) };
        }
        FuncImpl::Rust(func) => {
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| func(args, &mut out, &core))).is_err() {
                out.set_error(&format!("{name}: internal error (panic)"));
            }
        }
    }
    if inspect {
        INVOKE_STACK.with(|s| s.borrow_mut().pop());
    }
    INVOKE_KERNEL_TURN.with(|s| s.borrow_mut().pop());
    // Residency of returned nodes against the return type: a lie is fatal, as in R81.
    if out.error().is_none() {
        if let Ok(rs) = crate::argspec::Signature::parse(&f.ret.to_string_lossy()) {
            if let Err(crate::argspec::ReturnIssue::Fatal(m)) = rs.check_returns(name, &out) {
                core.log_message(mtFatal, &m);
                crate::fatal::fatal(&m);
            }
        }
    }
    out
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).expect("NULs replaced")
}

static PLUGIN_LOADING: Mutex<()> = Mutex::new(());

/// Loads one plugin library into the core (std.LoadPlugin): a plain library with CPU-specific
/// siblings loads its best sibling.
/// `alt_search` is LoadPlugin's altsearchpath: on Windows, the DLL's dependencies are then looked
/// for by the altered search order (the DLL's folder, then the standard order, PATH included)
/// instead of the DLL's folder and the safe default folders; elsewhere it changes nothing.
pub fn load(core: &Arc<Core>, path: &Path, force_ns: Option<&str>, force_id: Option<&str>, alt_search: bool) -> Result<Arc<Plugin>, PluginError> {
    load_file(core, path, &with_best_variant(path), force_ns, force_id, alt_search)
}

/// Loads exactly the file `path`, as autoloading does (variants are the manifest's business).
pub fn load_exact(core: &Arc<Core>, path: &Path) -> Result<Arc<Plugin>, PluginError> {
    load_file(core, path, path, None, None, false)
}

/// Loads `chosen` for a request that named `given` (the name messages use).
fn load_file(core: &Arc<Core>, given: &Path, chosen: &Path, force_ns: Option<&str>, force_id: Option<&str>, alt_search: bool) -> Result<Arc<Plugin>, PluginError> {
    let _serial = core.load_lock.lock();
    let _global = PLUGIN_LOADING.lock();
    let display = given.display().to_string();
    let path = chosen;
    let canonical = canonical(path);
    let lib = open_library(&canonical, alt_search).map_err(|e| PluginError::Open { path: display.clone(), msg: dl_message(&e) })?;
    // SAFETY: the symbol's type is fixed by the plugin ABI.
    let init: libloading::Symbol<VSInitPlugin> =
        unsafe { lib.get(b"VapourSynthPluginInit2\0") }.map_err(|_| PluginError::NoEntryPoint(display.clone()))?;
    let plugin = Arc::new(Plugin::blank(core, cstring(&canonical.to_string_lossy()), force_ns.map(String::from), force_id.map(String::from)));
    // SAFETY: the entry point gets our plugin handle and the plugin API table for its duration.
    unsafe { init(Plugin::as_raw(&plugin), core.wiring.plugin_api) };
    let Some(cfg) = plugin.config.get() else {
        return Err(PluginError::NotConfigured(display));
    };
    {
        let plugins = core.plugins.read();
        if let Some(other) = plugins.iter().find(|p| p.id() == plugin.id()) {
            return Err(PluginError::DuplicateId { given: display, id: plugin.id().into(), path: other.path.to_string_lossy().into() });
        }
        if let Some(other) = plugins.iter().find(|p| p.namespace() == plugin.namespace()) {
            return Err(PluginError::DuplicateNamespace { given: display, ns: plugin.namespace().into(), path: other.path.to_string_lossy().into() });
        }
    }
    let _ = cfg;
    plugin.lock();
    *plugin.lib.lock() = Some(lib);
    let mut plugins = core.plugins.write();
    plugins.push(plugin.clone());
    plugins.sort_by(|a, b| a.id().cmp(b.id()));
    Ok(plugin)
}

#[cfg(unix)]
fn open_library(path: &Path, _alt_search: bool) -> Result<libloading::Library, libloading::Error> {
    use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
    // SAFETY: loading a plugin runs its initialisers; that is what loading a plugin means.
    unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }.map(libloading::Library::from)
}

/// Windows: LoadLibraryExW on the absolute path (the altered search order needs one), the DLL's own
/// folder searched for its dependencies either way.
#[cfg(windows)]
fn open_library(path: &Path, alt_search: bool) -> Result<libloading::Library, libloading::Error> {
    use libloading::os::windows::{Library, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR, LOAD_WITH_ALTERED_SEARCH_PATH};
    let flags = if alt_search { LOAD_WITH_ALTERED_SEARCH_PATH } else { LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS };
    // SAFETY: loading a plugin runs its initialisers; that is what loading a plugin means.
    unsafe { Library::load_with_flags(path, flags) }.map(libloading::Library::from)
}

/// A plugin's path as the core records it: links resolved. On Windows, without the verbatim
/// `\\?\` prefix std::fs::canonicalize adds, which would then show in the plugin's path.
fn canonical(path: &Path) -> PathBuf {
    let c = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if cfg!(windows) {
        strip_verbatim(&c)
    } else {
        c
    }
}

/// `\\?\C:\x` as `C:\x`, `\\?\UNC\host\x` as `\\host\x`; other paths as they are.
pub fn strip_verbatim(path: &Path) -> PathBuf {
    let s = path.to_string_lossy();
    if let Some(rest) = s.strip_prefix(r"\\?\UNC\") {
        PathBuf::from(format!(r"\\{rest}"))
    } else if let Some(rest) = s.strip_prefix(r"\\?\") {
        PathBuf::from(rest)
    } else {
        path.to_path_buf()
    }
}

fn dl_message(e: &libloading::Error) -> String {
    match e {
        libloading::Error::DlOpen { desc } => {
            let s = format!("{desc:?}");
            s.trim_matches('"').to_string()
        }
        other => other.to_string(),
    }
}

/// The variant suffix of a manifest library for this CPU, best first.
fn cpu_variants() -> Vec<&'static str> {
    let mut v = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let avx2 = has!("avx2") && has!("fma") && has!("bmi1") && has!("bmi2") && has!("f16c") && has!("lzcnt") && has!("movbe");
        let zn4 = avx2
            && has!("avx512f")
            && has!("avx512bw")
            && has!("avx512dq")
            && has!("avx512vl")
            && has!("avx512cd")
            && has!("avx512vbmi")
            && has!("avx512vbmi2")
            && has!("avx512vnni")
            && has!("avx512bitalg")
            && has!("avx512vpopcntdq")
            && has!("avx512ifma");
        if zn4 {
            v.push(".zn4");
        }
        if avx2 {
            v.push(".avx2");
        }
    }
    v.push("");
    v
}

/// The platform's library suffix, as R81 looks for plugins.
pub const LIB_SUFFIX: &str = if cfg!(windows) { ".dll" } else { ".so" };
const VARIANTS: [&str; 2] = [".zn4", ".avx2"];

/// `dir/name.so` becomes `dir/name.zn4.so` or `dir/name.avx2.so` when this CPU can run it.
pub fn with_best_variant(path: &Path) -> PathBuf {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return path.to_path_buf();
    };
    let Some(stem) = name.strip_suffix(LIB_SUFFIX) else { return path.to_path_buf() };
    if VARIANTS.iter().any(|v| stem.ends_with(v)) {
        return path.to_path_buf();
    }
    pick_variant(dir, stem).unwrap_or_else(|| path.to_path_buf())
}

/// Picks the best variant of a manifest library for this CPU.
pub fn pick_variant(dir: &Path, base: &str) -> Option<PathBuf> {
    cpu_variants().into_iter().map(|v| dir.join(format!("{base}{v}{LIB_SUFFIX}"))).find(|p| p.is_file())
}

pub fn cstr_opt<'a>(p: *const std::ffi::c_char) -> Option<&'a str> {
    if p.is_null() {
        None
    } else {
        // SAFETY: non-null C strings from the API are NUL-terminated by contract.
        unsafe { CStr::from_ptr(p) }.to_str().ok()
    }
}

/// The chain of plugin function calls that is creating a node on this thread, innermost first,
/// for graph inspection (empty where the core does not record it).
pub(crate) fn creation_stack(core: &Core) -> Vec<crate::node::CreationInfo> {
    if !core.graph_inspection() {
        return Vec::new();
    }
    INVOKE_STACK.with(|s| {
        s.borrow()
            .iter()
            .rev()
            .map(|(f, id, ns, args)| crate::node::CreationInfo { function: f.clone(), plugin_id: id.clone(), plugin_ns: ns.clone(), args: args.clone() })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::{kernel_turn_for_invocation, INVOKE_KERNEL_TURN};

    #[test]
    fn a_filters_pools_share_one_kernel_queue_turn() {
        let enter = || INVOKE_KERNEL_TURN.with(|s| s.borrow_mut().push(None));
        let leave = || INVOKE_KERNEL_TURN.with(|s| s.borrow_mut().pop());
        // outside any filter's creation: the compute queue
        assert_eq!(kernel_turn_for_invocation(|| 7), None);
        enter();
        assert_eq!(kernel_turn_for_invocation(|| 3), Some(3));
        // the same creation's next pool keeps its turn; no new turn is taken
        assert_eq!(kernel_turn_for_invocation(|| panic!("a second turn")), Some(3));
        // a filter created inside it takes a turn of its own, and the outer one keeps its own
        enter();
        assert_eq!(kernel_turn_for_invocation(|| 4), Some(4));
        leave();
        assert_eq!(kernel_turn_for_invocation(|| panic!("a second turn")), Some(3));
        leave();
        assert_eq!(kernel_turn_for_invocation(|| 8), None);
    }
}
