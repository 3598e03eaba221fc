//! The built-in `std` namespace's functions that need the runtime (plugin loading, SetMaxCPU,
//! GPUUpload/GPUDownload and the residency adapter). This module makes the std plugin with them;
//! vsvk-std then registers every filter into it (`api::register_builtins`).
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use crate::core::Core;
use crate::map::Map;
use crate::plugin::{FuncImpl, Plugin};

mod cpu;
pub(crate) mod gpu;
mod load;
mod util;

pub const STD_ID: &str = "com.vapoursynth.std";

/// A built-in function: reads its arguments from the map, writes its results to `out`. An `Err`
/// becomes the map's error, prefixed with the function's name as the reference does.
pub type StdFn = fn(&Map, &mut Map, &Arc<Core>) -> Result<(), String>;

pub struct Registrar<'a> {
    plugin: &'a Plugin,
}

impl Registrar<'_> {
    /// `args` and `ret` are the reference's argument strings, character for character.
    pub fn add(&self, name: &'static str, args: &str, ret: &str, f: StdFn) {
        let imp = FuncImpl::Rust(Box::new(move |input: &Map, out: &mut Map, core: &Arc<Core>| {
            if let Err(e) = f(input, out, core) {
                out.set_error(&format!("{name}: {e}"));
            }
        }));
        self.plugin.register(name, args, ret, imp).expect("built-in signatures are valid");
    }
}

/// Makes `std` on a new core with the runtime's functions, unlocked: the caller has vsvk-std
/// register the filters, then locks it and adds it to the core.
pub fn plugin(core: &Arc<Core>) -> Arc<Plugin> {
    let p = Plugin::new_builtin(core, STD_ID, "std", "VapourSynth Core Functions", make_version(crate::core::CORE_VERSION, 0));
    let r = Registrar { plugin: &p };
    load::register(&r);
    cpu::register(&r);
    gpu::register(&r);
    let _ = core.residency_adapter.set(gpu::adapt);
    p
}
