//! Frames that are views of another frame's rows, vsvk's extension (not part of R81): a field of a
//! frame ([`FrameMut::field_of`]) is every other row of each of its planes, which a core can share
//! as they are (the plane's start one row down for the bottom field, the stride doubled) where
//! VSAPI can only share whole planes (`newVideoFrame2`).
//!
//! The core that links the built-in crates hands its table over before they register
//! ([`provide`]); a plugin built on this layer and loaded as a library of its own, or running on
//! R81, has none, and `field_of` copies the rows instead: the same frame either way, shared where
//! the core can share it.
use std::ffi::c_int;
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::abi::*;
use crate::api::{api, Core};
use crate::error::{Error, Result};
use crate::frame::{Frame, FrameMut};

pub const VSVK_VIEWS_API_VERSION: c_int = 1;

/// The core's half of the extension, laid out as C would (no header declares it yet: only the
/// core's own copy of this layer is handed one).
#[repr(C)]
#[allow(non_snake_case)]
pub struct VSVKVIEWSAPI {
    pub version: c_int,
    /// A new frame whose plane p is rows `bottom`, `bottom + 2`, ... of `src`'s plane p (half the
    /// height, the width and format unchanged), sharing `src`'s memory, with a copy of `src`'s
    /// properties; NULL where `src` is not a CPU video frame whose height splits into two fields
    /// in every plane.
    pub newFieldFrame: unsafe extern "C" fn(src: *const VSFrame, bottom: c_int, core: *mut VSCore) -> *mut VSFrame,
}

static VIEWS: AtomicPtr<VSVKVIEWSAPI> = AtomicPtr::new(std::ptr::null_mut());

/// Makes `table` the one [`FrameMut::field_of`] uses; the core calls this before the built-in
/// crates register. A table of another version is ignored.
pub fn provide(table: &'static VSVKVIEWSAPI) {
    if table.version == VSVK_VIEWS_API_VERSION {
        VIEWS.store(std::ptr::from_ref(table).cast_mut(), Ordering::Release);
    }
}

fn views() -> Option<&'static VSVKVIEWSAPI> {
    let p = VIEWS.load(Ordering::Acquire);
    // SAFETY: only `provide` stores here, and what it stores is 'static.
    (!p.is_null()).then(|| unsafe { &*p })
}

impl FrameMut {
    /// Field `bottom` (0 top, 1 bottom) of the CPU video frame `src`: rows `bottom`, `bottom + 2`,
    /// ... of each plane, half the height, with `src`'s properties. Shared with `src` where the
    /// core provides views ([`provide`]), copied otherwise; writing a shared field copies its
    /// plane first, as writing any shared plane does.
    pub fn field_of(core: Core, src: &Frame, bottom: bool) -> Result<FrameMut> {
        // the core checks the frame itself, which spares the per-frame path five calls to ask first
        if let Some(v) = views() {
            // SAFETY: a frame we hold, a core from the core.
            let p = unsafe { (v.newFieldFrame)(src.as_ptr(), bottom as c_int, core.as_ptr()) };
            if p.is_null() {
                return Err(Error::invalid("a field of a frame that is not a CPU video frame whose planes split into fields"));
            }
            // SAFETY: a new frame, whose only reference is ours.
            return Ok(unsafe { FrameMut::from_raw(p) });
        }
        let f = src.video_format().ok_or_else(|| Error::invalid("a field of an audio frame"))?;
        if src.residency() == nrGPU {
            return Err(Error::invalid("a field of a GPU frame"));
        }
        let (w, h) = (src.width(0), src.height(0));
        if h % (2 << f.subSamplingH) != 0 {
            return Err(Error::invalid(format!("a field of a frame {h} rows high, which does not split into fields in every plane")));
        }
        let out = FrameMut::new_video(core, &f, w, h / 2, Some(src))?;
        let bps = f.bytesPerSample as usize;
        for p in 0..f.numPlanes {
            let s = src.plane::<u8>(p).ok_or_else(|| Error::invalid("a field of a GPU frame"))?;
            let (sp, ss) = (s.as_ptr(), s.stride());
            let (row, rows) = (src.width(p) as usize * bps, out.height(p) as usize);
            let ds = out.stride(p);
            // SAFETY: our new CPU frame, the only reference.
            let dp = unsafe { (api().getWritePtr)(out.as_ptr(), p) };
            for y in 0..rows {
                // SAFETY: source row 2y + bottom lies inside `src`'s plane (twice the field's
                // rows), destination row y inside ours; each holds `row` bytes; distinct frames.
                unsafe { std::ptr::copy_nonoverlapping(sp.offset((2 * y + bottom as usize) as isize * ss), dp.offset(y as isize * ds), row) };
            }
        }
        Ok(out)
    }
}
