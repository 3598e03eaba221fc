//! vsvk's frame views (`vsvk_plugin_api::views`, not part of R81): fields whose planes share the
//! frame's memory, every other row of it. The core hands the table to the layer before the
//! built-in crates register (`register_builtins`), so std.SeparateFields makes its fields without
//! copying a sample.
use std::ffi::c_int;
use std::ptr;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::views::{VSVKVIEWSAPI, VSVK_VIEWS_API_VERSION};

use super::guard;
use crate::frame::Frame;

unsafe extern "C" fn new_field_frame(src: *const VSFrame, bottom: c_int, _core: *mut VSCore) -> *mut VSFrame {
    guard("newFieldFrame", || {
        if src.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: a frame reference the caller holds for the call.
        let s = unsafe { Frame::borrow_raw(src) };
        // GPU planes stay whole: shaders and transfers address a GPU plane from its start
        let Some(fmt) = s.video_format().filter(|_| s.residency() == nrCPU) else { return ptr::null_mut() };
        if s.height % (2 << fmt.subSamplingH) != 0 {
            return ptr::null_mut();
        }
        let mut f = s.shallow_copy();
        f.height /= 2;
        for (p, pl) in s.planes().iter().enumerate() {
            let mut field = pl.clone();
            if bottom != 0 {
                field.offset = (pl.offset as isize + pl.stride) as usize;
            }
            field.stride = pl.stride * 2;
            field.height = pl.height / 2;
            // SAFETY: `f` is new and ours; the plane has the dimensions of the field's plane.
            unsafe { f.set_plane(p, field) };
        }
        Frame::into_raw(Arc::new(f)).cast_mut()
    })
}

pub(super) static TABLE: VSVKVIEWSAPI = VSVKVIEWSAPI { version: VSVK_VIEWS_API_VERSION, newFieldFrame: new_field_frame };
