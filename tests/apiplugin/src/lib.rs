//! The vsvkapi test namespace, on vsvk-plugin-api alone (tests/tests/plugin_api.rs loads it on
//! R81 and on vsvk):
//!
//! * `vsvkapi.Linear(clip)`: the clip's frames, each with `LinearHint`, what `setLinearFilter`
//!   returned for the filter (`Node::set_linear_filter`), so that both cores' answers are compared.
//! * `vsvkapi.Field(clip, bottom)`: field `bottom` of each frame (`FrameMut::field_of`). A plugin
//!   library has no views table (only the core's own copy of the layer gets one), so this is the
//!   copying path on both cores, held against std.SeparateFields.
use std::sync::{Arc, OnceLock};

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::plugin::Registrar;
use vsvk_plugin_api::{Error, Result};

fn init(r: &Registrar) {
    r.configure("com.vsvk.apitest", "vsvkapi", "vsvk-plugin-api test filters", (1, 0));
    r.function("Linear", "clip:vnode;", "clip:vnode;", linear);
    r.function("Field", "clip:vnode;bottom:int;", "clip:vnode;", field);
}

vsvk_plugin_api::export_plugin!(init);

fn first(frames: Vec<Frame>) -> Result<Frame> {
    frames.into_iter().next().ok_or_else(|| Error::invalid("a requested frame is missing"))
}

/// The hint is known only once the node exists, after the instance was handed to the core: the
/// two share it.
struct Linear {
    hint: Arc<OnceLock<i64>>,
}

impl Filter for Linear {
    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let mut f = FrameMut::copy_of(core, &first(frames)?);
        f.props_mut().set_int("LinearHint", self.hint.get().copied().unwrap_or(-1));
        Ok(f.freeze())
    }
}

fn linear(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let info = clip.video_info()?;
    let hint = Arc::new(OnceLock::new());
    let node = filter::create_node(core, Spec { name: "Linear".into(), info, inputs: vec![clip], gpu_output: false }, Linear { hint: hint.clone() }, fmParallel)?;
    let _ = hint.set(node.set_linear_filter() as i64);
    out.set_node("clip", node);
    Ok(())
}

struct Field {
    bottom: bool,
}

impl Filter for Field {
    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        Ok(FrameMut::field_of(core, &first(frames)?, self.bottom)?.freeze())
    }
}

fn field(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let mut info = clip.video_info()?;
    let bottom = a.int("bottom")?.unwrap_or(0) != 0;
    info.height /= 2;
    filter::create(out, core, Spec { name: "Field".into(), info, inputs: vec![clip], gpu_output: false }, Field { bottom });
    Ok(())
}
