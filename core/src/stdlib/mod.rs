//! The built-in `std` namespace. This module registers it; each family of functions lives in its
//! own module.
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use crate::core::Core;
use crate::map::Map;
use crate::plugin::{FuncImpl, Plugin};

mod blank;
mod load;

pub const STD_ID: &str = "com.vapoursynth.std";

type StdFn = fn(&Map, &mut Map, &Arc<Core>) -> Result<(), String>;

/// Registers `std` on a new core.
pub fn register(core: &Arc<Core>) {
    let p = Plugin::new_builtin(core, STD_ID, "std", "VapourSynth Core Functions", make_version(crate::core::CORE_VERSION, 0));
    let add = |name: &'static str, args: &str, ret: &str, f: StdFn| {
        let imp = FuncImpl::Rust(Box::new(move |input: &Map, out: &mut Map, core: &Arc<Core>| {
            if let Err(e) = f(input, out, core) {
                out.set_error(&format!("{name}: {e}"));
            }
        }));
        p.register(name, args, ret, imp).expect("built-in signatures are valid");
    };
    add(
        "BlankClip",
        "clip:vnode:all:opt;width:int:opt;height:int:opt;format:int:opt;length:int:opt;fpsnum:int:opt;fpsden:int:opt;color:float[]:opt;keep:int:opt;varsize:int:opt;varformat:int:opt;gpu:int:opt;",
        "clip:vnode;",
        blank::blank_clip,
    );
    add(
        "BlankAudio",
        "clip:anode:opt;channels:int[]:opt;bits:int:opt;sampletype:int:opt;samplerate:int:opt;length:int:opt;keep:int:opt;waveform:data:opt;amplitude:float:opt;frequency:float:opt;",
        "clip:anode;",
        blank::blank_audio,
    );
    add("LoadPlugin", "path:data;altsearchpath:int:opt;forcens:data:opt;forceid:data:opt;", "", load::load_plugin);
    add("LoadAllPlugins", "path:data;", "", load::load_all_plugins);
    p.lock();
    core.plugins.write().push(p);
}
