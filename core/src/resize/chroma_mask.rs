//! A full-size mask plane brought down to the chroma planes of a subsampled format, as R81's
//! std.MaskedMerge (with `first_plane` or a gray mask) and std.PreMultiply do it. Learned by running
//! R81 on impulses and noise: its result is, bit for bit, resize.Bilinear's chroma of a 4:4:4 clip
//! whose three planes are the mask, converted to the clip's format with the clip's
//! `_ChromaLocation` (missing or out of range: left; the mask's own is only checked) and, where the mask's `_FieldBased` says
//! interlaced (1 or 2) and the format halves the height at most, field by field. So it is zimg's
//! bilinear graph, the same one our resize namespace builds.
use std::ffi::c_int;
use std::sync::Arc;

use parking_lot::Mutex;
use vsvk_plugin_api::abi::*;

use super::zimg_sys::*;
use super::{default_params, run_graph, zimg_format, Graph, Planes, Resolved};
use crate::core::Core;
use crate::format;
use crate::frame::Frame;

/// The zimg graphs one filter needs (a frame's chroma location and field order pick one), built
/// once each.
#[derive(Default)]
pub(crate) struct ChromaMask {
    graphs: Mutex<Vec<((c_int, c_int), Arc<Graph>)>>,
}

/// The chroma locations zimg knows (left, center, top left, top, bottom left, bottom).
const LOCATIONS: std::ops::RangeInclusive<i64> = 0..=5;

impl ChromaMask {
    /// Plane 0 of `mask` (the clip's size) resampled into planes 1 and 2 of a new frame of
    /// `fmt`, a subsampled YUV format of the mask's sample type (plane 0 of the result is left
    /// as it comes).
    pub(crate) fn resample(&self, mask: &Frame, fmt: &VSVideoFormat, chroma_location: i64, field_based: i64, core: &Arc<Core>) -> Result<Frame, String> {
        let (w, h) = (mask.width, mask.height);
        let loc = if LOCATIONS.contains(&chroma_location) { chroma_location as c_int } else { 0 };
        // the mask's own location sites nothing, but R81 refuses one zimg does not know
        if let Ok(v) = mask.props().get_int(b"_ChromaLocation", 0) {
            if !LOCATIONS.contains(&v) {
                return Err(format!("Resize error {ZIMG_ERROR_UNRECOGNIZED_CHROMA_LOCATION}: unrecognized chroma location"));
            }
        }
        // zimg resamples interlaced chroma only up to 2x vertically; R81 then treats the frame
        // as progressive. Fields whose height the subsampling does not divide leave R81's last
        // chroma rows unwritten (whatever the memory held): those frames are resampled whole.
        let interlaced = matches!(field_based, 1 | 2) && fmt.subSamplingH <= 1 && h % (2 << fmt.subSamplingH) == 0;
        let (rows, parities) = if interlaced { (h / 2, vec![ZIMG_FIELD_TOP, ZIMG_FIELD_BOTTOM]) } else { (h, vec![ZIMG_FIELD_PROGRESSIVE]) };
        let out = Frame::new_video(fmt, w, h, &core.mem).map_err(|e| format!("MaskedMerge: {e}"))?;
        let src_ptr = mask.read_ptr(0).ok_or("the mask has no planes")?;
        let src_stride = mask.planes()[0].stride;
        for (i, &parity) in parities.iter().enumerate() {
            let graph = self.graph(fmt, w as u32, rows as u32, loc, parity)?;
            let (row0, step) = if interlaced { (i as isize, 2) } else { (0, 1) };
            // SAFETY: row `row0` lies inside the mask's plane 0.
            let src = unsafe { src_ptr.offset(row0 * src_stride) };
            let from: Planes<*const u8> = [(src, src_stride * step); 3];
            let mut to: Planes<*mut u8> = [(std::ptr::null_mut(), 0); 3];
            for (p, pl) in out.planes().iter().enumerate().take(3) {
                // SAFETY: `out` is new and ours alone; row `row0` lies inside each plane.
                let base = unsafe { out.write_ptr(p as i32) }.expect("plane exists");
                // SAFETY: as above.
                to[p] = (unsafe { base.offset(row0 * pl.stride) }, pl.stride * step);
            }
            run_graph(&graph, &from, &to)?;
        }
        Ok(out)
    }

    fn graph(&self, fmt: &VSVideoFormat, w: u32, h: u32, loc: c_int, parity: c_int) -> Result<Arc<Graph>, String> {
        if let Some((_, g)) = self.graphs.lock().iter().find(|(k, _)| *k == (loc, parity)) {
            return Ok(g.clone());
        }
        let full = format::query_video(cfYUV, fmt.sampleType, fmt.bitsPerSample, 0, 0).ok_or("no 4:4:4 format for the mask")?;
        // what resize assumes of YUV without properties: unspecified colours, limited range
        let colours = Resolved { matrix: 2, transfer: 2, primaries: 2, range: 0, chromaloc: loc };
        let (src, dst) = (zimg_format(&full, w, h, &colours, parity)?, zimg_format(fmt, w, h, &colours, parity)?);
        let mut gp = default_params();
        gp.resample_filter = ZIMG_RESIZE_BILINEAR;
        gp.resample_filter_uv = ZIMG_RESIZE_BILINEAR;
        gp.dither_type = ZIMG_DITHER_NONE;
        gp.cpu_type = ZIMG_CPU_AUTO_64B;
        // SAFETY: valid formats and parameters of this API version.
        let ptr = unsafe { zimg_filter_graph_build(&src, &dst, &gp) };
        if ptr.is_null() {
            let (code, msg) = last_error();
            return Err(format!("Resize error {code}: {msg}"));
        }
        let mut tmp_size = 0usize;
        // SAFETY: `ptr` is a graph just built.
        unsafe { zimg_filter_graph_get_tmp_size(ptr, &mut tmp_size) };
        let g = Arc::new(Graph { ptr, tmp_size });
        self.graphs.lock().push(((loc, parity), g.clone()));
        Ok(g)
    }
}
