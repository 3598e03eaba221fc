//! The `vk` namespace: std's filters as GPU-native filters. Every filter takes `vnode:gpu` clips
//! (the core uploads CPU clips on its own) and returns GPU frames, made by compute shaders on
//! the core's device through vsvk-plugin-api. It is an ordinary VapourSynth API 4.3 plugin, so
//! R81 loads it as well as vsvk does. plugins/README.md lists the filters and what they match.
use vsvk_plugin_api::abi::VSVideoInfo;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::Frame;
use vsvk_plugin_api::map::Out;
use vsvk_plugin_api::node::Node;
use vsvk_plugin_api::plugin::{CreateFn, Registrar};
use vsvk_plugin_api::Result;

mod boxblur;
mod conv;
mod edge;
pub mod expr;
mod geometry;
pub mod kernel;
mod neighbour;
mod pointwise;
mod resize;
mod stats;

use kernel::Program;

/// Registration with the namespace's return type.
pub struct Reg<'a>(&'a Registrar);

impl Reg<'_> {
    fn function(&self, name: &str, args: &str, create: CreateFn) {
        self.0.function(name, args, "clip:vnode:gpu;", create);
    }
}

fn init(r: &Registrar) {
    r.configure("com.vsvk.vk", "vk", "GPU-native std filters (vsvk)", (1, 0));
    let reg = Reg(r);
    pointwise::register(&reg);
    geometry::register(&reg);
    neighbour::register(&reg);
    conv::register(&reg);
    boxblur::register(&reg);
    edge::register(&reg);
    stats::register(&reg);
    expr::register(&reg);
    resize::register(&reg);
}

vsvk_plugin_api::export_plugin!(init);

/// A filter that runs one [`Program`] per frame.
struct Kernel(Program);

impl Filter for Kernel {
    fn get_frame(&self, _n: i32, frames: Vec<Frame>, _core: Core) -> Result<Frame> {
        self.0.run(&frames)
    }
}

/// Creates the filter running `prog` on frame n of each input.
fn finish(out: &mut Out, core: Core, name: &str, mut info: VSVideoInfo, inputs: Vec<Node>, prog: Program) -> Result<()> {
    info.format = prog.format;
    info.width = prog.width;
    info.height = prog.height;
    filter::create(out, core, Spec { name: name.into(), info, inputs, gpu_output: true }, Kernel(prog));
    Ok(())
}
