//! std.SeparateFields, the piece of the editing functions that stays in the core (the rest moved
//! to vsvk-std's `edit`): its fields are views of the frame's planes (every other row, twice the
//! stride), which the core's planes can be and the plugin API's frames cannot, so moving it would
//! mean copying every field.
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use super::geometry::{pixel_node, Make, Requests};
use super::util::{is_constant, new_video, set_clip, video_info, Args};
use crate::core::Core;
use crate::frame::{Frame, Plane};
use crate::map::Map;
use vsvk_std::edit::reduce;

pub fn register(r: &super::Registrar) {
    r.add("SeparateFields", "clip:vnode:all;tff:int:opt;modify_duration:int:opt;", "clip:vnode:all;", separate_fields);
}

/// A frame rate times mul/div, in lowest terms; 0/0 (variable) stays.
fn scale_fps(vi: &mut VSVideoInfo, mul: i64, div: i64) {
    if vi.fpsNum > 0 && vi.fpsDen > 0 {
        (vi.fpsNum, vi.fpsDen) = reduce(vi.fpsNum * mul, vi.fpsDen * div);
    }
}

/// The frame's duration times mul/div, when it has one (both properties, as integers); the
/// core's map twin of vsvk-std's `edit::scale_duration`.
fn scale_duration(props: &mut Map, mul: i64, div: i64) {
    let (Ok(num), Ok(den)) = (props.get_int(b"_DurationNum", 0), props.get_int(b"_DurationDen", 0)) else {
        return;
    };
    let (num, den) = reduce(num.saturating_mul(mul), den.saturating_mul(div));
    props.set_int("_DurationNum", num);
    props.set_int("_DurationDen", den);
}

fn int_prop(f: &Frame, key: &str) -> Option<i64> {
    f.props().get_int(key.as_bytes(), 0).ok()
}

fn separate_fields(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    let tff = a.int("tff").map(|v| v != 0);
    let modify_duration = a.bool("modify_duration", true);
    if !is_constant(&vi) {
        return Err("clip must have constant format and dimensions".into());
    }
    if vi.height % (2 << vi.format.subSamplingH) != 0 {
        return Err("clip height must be mod 2 in the smallest subsampled plane".into());
    }
    if vi.numFrames as i64 * 2 > i32::MAX as i64 {
        return Err("resulting clip is too long".into());
    }
    let mut ovi = vi;
    ovi.numFrames *= 2;
    ovi.height /= 2;
    if modify_duration {
        scale_fps(&mut ovi, 2, 1);
    }
    let fmt = vi.format;
    let requests: Requests = Box::new(|n| vec![(0, n / 2)]);
    let make: Make = Box::new(move |n, frames, core| {
        let src = &frames[0];
        let top_first = match int_prop(src, "_FieldBased") {
            Some(1) => false,
            Some(2) => true,
            _ => tff.ok_or("SeparateFields: no field order provided")?,
        };
        // The first field of a frame is the top one when top field first.
        let top = (n % 2 == 0) == top_first;
        let f = new_video(core, &fmt, ovi.width, ovi.height, Some(src))?;
        // The field is every other row of the frame: its planes are shared, with twice the stride.
        for p in 0..fmt.numPlanes as usize {
            let pl = &src.planes()[p];
            let field = Plane {
                buf: pl.buf.clone(),
                offset: if top { pl.offset } else { (pl.offset as isize + pl.stride) as usize },
                stride: pl.stride * 2,
                width: pl.width,
                height: pl.height / 2,
            };
            // SAFETY: `f` is new and ours; the plane has the dimensions of the field's plane.
            unsafe { f.set_plane(p, field) };
        }
        // SAFETY: as above.
        let props = unsafe { f.props_mut() };
        props.delete(b"_FieldBased");
        props.set_int("_Field", top as i64);
        if modify_duration {
            scale_duration(props, 1, 2);
        }
        Ok(Arc::new(f))
    });
    set_clip(out, pixel_node(core, "SeparateFields", ovi, vec![clip], vec![rpGeneral], requests, make)?);
    Ok(())
}
