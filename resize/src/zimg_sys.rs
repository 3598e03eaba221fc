//! Hand-written declarations for the part of zimg's C API (API 2.5) that the resize
//! namespace uses. zimg is built from vendored
//! sources by the `vsvk-zimg` crate (third_party/zimg) and linked statically.
//!
//! Enumerations are plain `c_int`s here: the values travel unchanged from frame properties and
//! arguments (ITU-T H.273 numbers for matrix, transfer and primaries), and zimg itself reports
//! the ones it does not know.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_uint, c_void};

// Links the static zimg archive (the crate has no Rust items).
use vsvk_zimg as _;

/// API 2.5: the first with `scene_referred` and `chromatic_adaptation` in the graph parameters.
pub const ZIMG_API_VERSION: c_uint = (2 << 8) | 5;
pub const ZIMG_BUFFER_MAX: c_uint = c_uint::MAX;

// error codes
pub const ZIMG_ERROR_NO_COLORSPACE_CONVERSION: c_int = (3 << 10) + 2;
pub const ZIMG_ERROR_UNRECOGNIZED_CHROMA_LOCATION: c_int = (2 << 10) + 1;

// zimg_cpu_type_e
pub const ZIMG_CPU_NONE: c_int = 0;
pub const ZIMG_CPU_AUTO: c_int = 1;
pub const ZIMG_CPU_AUTO_64B: c_int = 2;
pub const ZIMG_CPU_X86_MMX: c_int = 1000;
pub const ZIMG_CPU_X86_SSE: c_int = 1001;
pub const ZIMG_CPU_X86_SSE2: c_int = 1002;
pub const ZIMG_CPU_X86_SSE3: c_int = 1003;
pub const ZIMG_CPU_X86_SSSE3: c_int = 1004;
pub const ZIMG_CPU_X86_SSE41: c_int = 1005;
pub const ZIMG_CPU_X86_SSE42: c_int = 1006;
pub const ZIMG_CPU_X86_AVX: c_int = 1007;
pub const ZIMG_CPU_X86_F16C: c_int = 1008;
pub const ZIMG_CPU_X86_AVX2: c_int = 1009;
pub const ZIMG_CPU_X86_AVX512F: c_int = 1010;
pub const ZIMG_CPU_X86_AVX512_SKX: c_int = 1011;
pub const ZIMG_CPU_X86_AVX512_CLX: c_int = 1012;
pub const ZIMG_CPU_X86_AVX512_SNC: c_int = 1014;

// zimg_pixel_type_e
pub const ZIMG_PIXEL_BYTE: c_int = 0;
pub const ZIMG_PIXEL_WORD: c_int = 1;
pub const ZIMG_PIXEL_HALF: c_int = 2;
pub const ZIMG_PIXEL_FLOAT: c_int = 3;

// zimg_color_family_e
pub const ZIMG_COLOR_GREY: c_int = 0;
pub const ZIMG_COLOR_RGB: c_int = 1;
pub const ZIMG_COLOR_YUV: c_int = 2;

// zimg_field_parity_e
pub const ZIMG_FIELD_PROGRESSIVE: c_int = 0;
pub const ZIMG_FIELD_TOP: c_int = 1;
pub const ZIMG_FIELD_BOTTOM: c_int = 2;

// zimg_resample_filter_e
pub const ZIMG_RESIZE_POINT: c_int = 0;
pub const ZIMG_RESIZE_BILINEAR: c_int = 1;
pub const ZIMG_RESIZE_BICUBIC: c_int = 2;
pub const ZIMG_RESIZE_SPLINE16: c_int = 3;
pub const ZIMG_RESIZE_SPLINE36: c_int = 4;
pub const ZIMG_RESIZE_LANCZOS: c_int = 5;
pub const ZIMG_RESIZE_SPLINE64: c_int = 6;

// zimg_dither_type_e
pub const ZIMG_DITHER_NONE: c_int = 0;
pub const ZIMG_DITHER_ORDERED: c_int = 1;
pub const ZIMG_DITHER_RANDOM: c_int = 2;
pub const ZIMG_DITHER_ERROR_DIFFUSION: c_int = 3;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ActiveRegion {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
}

/// Equal when bit for bit the same: zimg's default region is NaN ("the whole image"), which a
/// float comparison never finds equal, and formats are compared to find cached graphs.
impl PartialEq for ActiveRegion {
    fn eq(&self, o: &Self) -> bool {
        let bits = |r: &Self| [r.left, r.top, r.width, r.height].map(f64::to_bits);
        bits(self) == bits(o)
    }
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct zimg_image_format {
    pub version: c_uint,
    pub width: c_uint,
    pub height: c_uint,
    pub pixel_type: c_int,
    pub subsample_w: c_uint,
    pub subsample_h: c_uint,
    pub color_family: c_int,
    pub matrix_coefficients: c_int,
    pub transfer_characteristics: c_int,
    pub color_primaries: c_int,
    pub depth: c_uint,
    pub pixel_range: c_int,
    pub field_parity: c_int,
    pub chroma_location: c_int,
    pub active_region: ActiveRegion,
    pub alpha: c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct zimg_graph_builder_params {
    pub version: c_uint,
    pub resample_filter: c_int,
    pub filter_param_a: f64,
    pub filter_param_b: f64,
    pub resample_filter_uv: c_int,
    pub filter_param_a_uv: f64,
    pub filter_param_b_uv: f64,
    pub dither_type: c_int,
    pub cpu_type: c_int,
    pub nominal_peak_luminance: f64,
    pub allow_approximate_gamma: c_char,
    pub scene_referred: c_char,
    pub chromatic_adaptation: c_char,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct zimg_plane_const {
    pub data: *const c_void,
    pub stride: isize,
    pub mask: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct zimg_plane {
    pub data: *mut c_void,
    pub stride: isize,
    pub mask: c_uint,
}

#[repr(C)]
pub struct zimg_image_buffer_const {
    pub version: c_uint,
    pub plane: [zimg_plane_const; 4],
}

#[repr(C)]
pub struct zimg_image_buffer {
    pub version: c_uint,
    pub plane: [zimg_plane; 4],
}

#[repr(C)]
pub struct zimg_filter_graph {
    _opaque: [u8; 0],
}

pub type zimg_filter_graph_callback = Option<unsafe extern "C" fn(user: *mut c_void, i: c_uint, left: c_uint, right: c_uint) -> c_int>;

// The symbols come from the vsvk-zimg crate (a static build of the vendored sources).
extern "C" {
    pub fn zimg_get_version_info(major: *mut c_uint, minor: *mut c_uint, micro: *mut c_uint);
    pub fn zimg_get_last_error(err_msg: *mut c_char, n: usize) -> c_int;
    pub fn zimg_clear_last_error();
    pub fn zimg_image_format_default(ptr: *mut zimg_image_format, version: c_uint);
    pub fn zimg_graph_builder_params_default(ptr: *mut zimg_graph_builder_params, version: c_uint);
    pub fn zimg_filter_graph_build(
        src_format: *const zimg_image_format,
        dst_format: *const zimg_image_format,
        params: *const zimg_graph_builder_params,
    ) -> *mut zimg_filter_graph;
    pub fn zimg_filter_graph_free(ptr: *mut zimg_filter_graph);
    pub fn zimg_filter_graph_get_tmp_size(ptr: *const zimg_filter_graph, out: *mut usize) -> c_int;
    pub fn zimg_filter_graph_process(
        ptr: *const zimg_filter_graph,
        src: *const zimg_image_buffer_const,
        dst: *const zimg_image_buffer,
        tmp: *mut c_void,
        unpack_cb: zimg_filter_graph_callback,
        unpack_user: *mut c_void,
        pack_cb: zimg_filter_graph_callback,
        pack_user: *mut c_void,
    ) -> c_int;
}

/// zimg's last error on this thread: its code and message, cut to 63 bytes as R81 reports it.
pub fn last_error() -> (c_int, String) {
    let mut buf = [0 as c_char; 64];
    // SAFETY: the buffer is writable for its whole length; zimg NUL-terminates within it.
    let code = unsafe { zimg_get_last_error(buf.as_mut_ptr(), buf.len()) };
    // SAFETY: zimg wrote a NUL-terminated string into `buf` (or left it zeroed).
    let msg = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned();
    // SAFETY: no arguments; resets this thread's error state.
    unsafe { zimg_clear_last_error() };
    (code, msg)
}

pub fn default_format() -> zimg_image_format {
    let mut f = std::mem::MaybeUninit::<zimg_image_format>::zeroed();
    // SAFETY: zimg fills every field of a structure of this API version.
    unsafe {
        zimg_image_format_default(f.as_mut_ptr(), ZIMG_API_VERSION);
        f.assume_init()
    }
}

pub fn default_params() -> zimg_graph_builder_params {
    let mut p = std::mem::MaybeUninit::<zimg_graph_builder_params>::zeroed();
    // SAFETY: as above.
    unsafe {
        zimg_graph_builder_params_default(p.as_mut_ptr(), ZIMG_API_VERSION);
        p.assume_init()
    }
}

/// The library's version, e.g. (3, 0, 6).
pub fn version() -> (u32, u32, u32) {
    let (mut a, mut b, mut c) = (0, 0, 0);
    // SAFETY: three writable integers.
    unsafe { zimg_get_version_info(&mut a, &mut b, &mut c) };
    (a, b, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layouts zimg.h (API 2.5) gives on x86-64.
    #[test]
    fn layouts_match_the_c_header() {
        assert_eq!(std::mem::size_of::<zimg_image_format>(), 96);
        assert_eq!(std::mem::offset_of!(zimg_image_format, active_region), 56);
        assert_eq!(std::mem::offset_of!(zimg_image_format, alpha), 88);
        assert_eq!(std::mem::size_of::<zimg_graph_builder_params>(), 72);
        assert_eq!(std::mem::offset_of!(zimg_graph_builder_params, filter_param_a_uv), 32);
        assert_eq!(std::mem::offset_of!(zimg_graph_builder_params, nominal_peak_luminance), 56);
        assert_eq!(std::mem::offset_of!(zimg_graph_builder_params, allow_approximate_gamma), 64);
        assert_eq!(std::mem::offset_of!(zimg_graph_builder_params, chromatic_adaptation), 66);
        assert_eq!(std::mem::size_of::<zimg_image_buffer_const>(), 104);
        let f = default_format();
        assert_eq!(f.version, ZIMG_API_VERSION);
        assert!(f.active_region.left.is_nan());
        let p = default_params();
        assert_eq!((p.scene_referred, p.chromatic_adaptation), (0, 0));
        // the vendored snapshot (third_party/zimg/upstream/VERSION), as R81 reports its own
        assert_eq!(version(), (3, 0, 6));
    }
}
