//! The core: thread pool, plugins, logging and memory accounting. `VSCore*` is an `Arc<Core>`'s
//! data pointer; nodes and functions hold the core alive until the last of them is gone.
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::{Mutex, RwLock};
use vsvk_plugin_api::abi::*;

use crate::delivery::OneAtATime;
use crate::frame::MemStats;
use crate::log::Log;
use crate::node::Node;
use crate::plugin::Plugin;
use crate::scheduler::Pool;

pub const CORE_VERSION: i32 = 81;

pub struct Core {
    pub flags: i32,
    pub mem: Arc<MemStats>,
    pub max_cache: AtomicI64,
    pub pool: Arc<Pool>,
    /// getFrameAsync's completion callbacks, which the API promises never overlap.
    pub frame_callbacks: OneAtATime,
    pub plugins: RwLock<Vec<Arc<Plugin>>>,
    pub log: Log,
    pub node_timing: AtomicBool,
    pub freed_node_ns: AtomicI64,
    pub version_string: CString,
    /// Set by freeCore; the core lives on while stray references remain, but takes no new work.
    pub freed: AtomicBool,
    /// Serialises plugin loading so ids and namespaces are checked and claimed atomically.
    pub load_lock: Mutex<()>,
    /// std.SetMaxCPU's level; empty until set.
    pub max_cpu: Mutex<String>,
    /// Every node created on this core, for clearCoreCaches.
    pub nodes: Mutex<Vec<Weak<Node>>>,
    /// The C ABI layer's tables, handed to C plugins' callbacks, and the built-ins (see wiring).
    pub wiring: crate::wiring::Wiring,
    /// How invoke wraps node arguments of the wrong residency in GPUUpload / GPUDownload: std
    /// registers it with those filters, since the runtime below std cannot name them.
    pub residency_adapter: std::sync::OnceLock<ResidencyAdapter>,
    /// The GPU half: the core's Vulkan device (lazily), shader cache.
    pub gpu: crate::gpu::CoreGpu,
    me: Weak<Core>,
}

/// invoke's automatic conversions: `args` with the nodes named in the conversions wrapped.
pub type ResidencyAdapter = fn(&Arc<Core>, &str, &crate::map::Map, &[crate::argspec::NodeConversion]) -> Result<crate::map::Map, String>;

pub fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Half the physical memory, as the reference sizes its default cache budget.
fn default_cache_budget() -> i64 {
    let total_kb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("MemTotal:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<i64>().ok()));
    match total_kb {
        Some(kb) => kb * 1024 / 2,
        None => 4 << 30,
    }
}

impl Core {
    /// A core wired by the layer that makes it (`api::wiring()`).
    pub fn new(flags: i32, wiring: crate::wiring::Wiring) -> Arc<Core> {
        Core::with_plugin_folders(flags, wiring, &[])
    }
    /// A core whose autoloading also reads `frontend`'s folders (see autoload::folders).
    pub fn with_plugin_folders(flags: i32, wiring: crate::wiring::Wiring, frontend: &[std::path::PathBuf]) -> Arc<Core> {
        let core = Arc::new_cyclic(|me| Core {
            flags,
            wiring,
            residency_adapter: std::sync::OnceLock::new(),
            mem: Arc::new(MemStats::default()),
            max_cache: AtomicI64::new(default_cache_budget()),
            pool: Pool::new(default_threads()),
            frame_callbacks: OneAtATime::default(),
            plugins: RwLock::new(Vec::new()),
            log: Log::default(),
            node_timing: AtomicBool::new(false),
            freed_node_ns: AtomicI64::new(0),
            version_string: CString::new(format!(
                "vsvk {} (a VapourSynth-compatible core)\nCore R{}\nAPI R{}.{}\n",
                env!("CARGO_PKG_VERSION"),
                CORE_VERSION,
                VAPOURSYNTH_API_MAJOR,
                VAPOURSYNTH_API_MINOR
            ))
            .expect("no NULs"),
            freed: AtomicBool::new(false),
            load_lock: Mutex::new(()),
            nodes: Mutex::new(Vec::new()),
            max_cpu: Mutex::new(String::new()),
            gpu: Default::default(),
            me: me.clone(),
        });
        (wiring.builtins)(&core);
        if flags & ccfDisableAutoLoading == 0 {
            crate::autoload::autoload(&core, frontend);
        }
        core
    }
    pub fn arc(&self) -> Arc<Core> {
        self.me.upgrade().expect("a live core is referenced")
    }
    pub fn as_raw(c: &Arc<Core>) -> *mut VSCore {
        Arc::as_ptr(c) as *mut VSCore
    }
    /// # Safety
    /// `p` is a core pointer from createCore that still has a reference.
    pub unsafe fn borrow_raw<'a>(p: *mut VSCore) -> &'a Core {
        &*p.cast::<Core>()
    }
    pub fn over_cache_budget(&self) -> bool {
        self.mem.used.load(Ordering::Relaxed) > self.max_cache.load(Ordering::Relaxed)
    }
    pub fn threads(&self) -> usize {
        self.pool.threads()
    }
    pub fn plugin_by_ns(&self, ns: &str) -> Option<Arc<Plugin>> {
        self.plugins.read().iter().find(|p| p.namespace() == ns).cloned()
    }
    pub fn plugin_by_id(&self, id: &str) -> Option<Arc<Plugin>> {
        self.plugins.read().iter().find(|p| p.id() == id).cloned()
    }
    pub fn log_message(&self, level: i32, msg: &str) {
        self.log.message(level, msg);
    }
    pub fn register_node(&self, n: &Arc<Node>) {
        let mut nodes = self.nodes.lock();
        // Prune on growth so the list stays proportional to the live graph.
        if nodes.len() >= 64 && nodes.len().is_power_of_two() {
            nodes.retain(|w| w.strong_count() > 0);
        }
        nodes.push(Arc::downgrade(n));
    }
    pub fn clear_caches(&self) {
        let nodes: Vec<Arc<Node>> = self.nodes.lock().iter().filter_map(Weak::upgrade).collect();
        for n in nodes {
            n.clear_cache();
        }
    }
    pub fn graph_inspection(&self) -> bool {
        self.flags & ccfEnableGraphInspection != 0
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        self.pool.shutdown();
        // Plugins (and their libraries) go after every node and function, which held us alive.
        let plugins = std::mem::take(&mut *self.plugins.write());
        let keep_loaded = self.flags & ccfDisableLibraryUnloading != 0;
        for p in plugins {
            p.unload(keep_loaded);
        }
        self.log.clear();
        if crate::stats::enabled() {
            eprint!("{}", crate::stats::report());
        }
        if vsvk_gpu::timing::enabled() {
            eprint!("{}", vsvk_gpu::timing::report());
        }
    }
}
