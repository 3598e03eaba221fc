//! std.SeparateFields: each frame becomes its two fields, in field order. A field is every other
//! row of the frame's planes, which the core shares rather than copies ([`FrameMut::field_of`]
//! through vsvk's views), so a field costs no sample copy on vsvk.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::residency::on_host;
use vsvk_plugin_api::{Error, Result};

use super::{first, scale_duration, scale_fps};
use crate::util::{is_constant, video_info};

struct SeparateFields {
    tff: Option<bool>,
    modify_duration: bool,
}

impl Filter for SeparateFields {
    fn requests(&self, n: i32, _lengths: &[i32]) -> Vec<(usize, i32)> {
        vec![(0, n / 2)]
    }

    fn get_frame(&self, n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let src = first(frames)?;
        let top_first = match src.props().int("_FieldBased") {
            Some(1) => false,
            Some(2) => true,
            _ => self.tff.ok_or_else(|| Error::whole("SeparateFields: no field order provided"))?,
        };
        // The first field of a frame is the top one when top field first.
        let top = (n % 2 == 0) == top_first;
        let mut f = FrameMut::field_of(core, &src, !top)?;
        let mut props = f.props_mut();
        props.delete("_FieldBased");
        props.set_int("_Field", top as i64);
        if self.modify_duration {
            scale_duration(&mut props, 1, 2);
        }
        Ok(f.freeze())
    }
}

pub(super) fn separate_fields(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    let tff = a.int("tff")?.map(|v| v != 0);
    let modify_duration = a.bool("modify_duration", true)?;
    if !is_constant(&vi) {
        return Err(Error::invalid("clip must have constant format and dimensions"));
    }
    if vi.height % (2 << vi.format.subSamplingH) != 0 {
        return Err(Error::invalid("clip height must be mod 2 in the smallest subsampled plane"));
    }
    if vi.numFrames as i64 * 2 > i32::MAX as i64 {
        return Err(Error::invalid("resulting clip is too long"));
    }
    let mut ovi = vi;
    ovi.numFrames *= 2;
    ovi.height /= 2;
    if modify_duration {
        scale_fps(&mut ovi, 2, 1);
    }
    let filter = SeparateFields { tff, modify_duration };
    // fields are made in host memory: a GPU clip is brought down and its fields go back up
    let node = on_host(core, vec![clip], |inputs| {
        filter::create_node_with_patterns(core, Spec { name: "SeparateFields".into(), info: ovi, inputs, gpu_output: false }, &[rpGeneral], filter, fmParallel)
    })?;
    out.set_node("clip", node);
    Ok(())
}
