//! The C shim's declarations (src/shim/vkdec.h, kept in step by hand). Nothing but `source.rs`
//! calls these.
use std::ffi::{c_char, c_int, c_void};

pub const VKD_OK: c_int = 0;
pub const VKD_NOT_FOUND: c_int = 1;
pub const VKD_UNSUPPORTED: c_int = 2;
pub const VKD_INVALID: c_int = 3;
pub const VKD_DAMAGED: c_int = 4;

pub const VKD_GRAY: c_int = 0;
pub const VKD_RGB: c_int = 2;

#[repr(C)]
pub struct VkdOptions {
    pub threads: c_int,
    pub cache: c_int,
    pub hw: c_int,
    pub hw_index: c_int,
    pub hw_uuid: [u8; 16],
}

#[repr(C)]
pub struct VkdInfo {
    pub codec: [c_char; 32],
    pub decoder: [c_char; 32],
    pub container: [c_char; 32],
    pub width: c_int,
    pub height: c_int,
    pub family: c_int,
    pub bits: c_int,
    pub ssw: c_int,
    pub ssh: c_int,
    pub planes: c_int,
    pub frames: i64,
    pub fps_num: i64,
    pub fps_den: i64,
    pub tb_num: c_int,
    pub tb_den: c_int,
    pub threads: c_int,
    pub hw: c_int,
}

#[repr(C)]
pub struct VkdFrame {
    pub data: [*const u8; 3],
    pub linesize: [c_int; 3],
    pub width: c_int,
    pub height: c_int,
    pub pts: i64,
    pub duration: i64,
    pub pict_type: c_char,
    pub key: c_int,
    pub matrix: c_int,
    pub transfer: c_int,
    pub primaries: c_int,
    pub range: c_int,
    pub chroma_location: c_int,
    pub interlaced: c_int,
    pub top_field_first: c_int,
    pub hw: c_int,
    pub hold: *mut c_void,
}

#[repr(C)]
pub struct VkdHwTarget {
    pub handle_type: c_int,
    pub fd: c_int,
    pub memory_id: u64,
    pub memory_size: u64,
    pub memory_type: u32,
    pub offset: u64,
    pub size: u64,
    pub stride: u64,
    pub width: c_int,
    pub height: c_int,
    pub signal_value: u64,
}

#[repr(C)]
pub struct VkdSource {
    _private: [u8; 0],
}

extern "C" {
    pub fn vkd_open(path: *const c_char, opt: *const VkdOptions, out: *mut *mut VkdSource, err: *mut c_char, errlen: c_int) -> c_int;
    pub fn vkd_info(s: *const VkdSource) -> *const VkdInfo;
    pub fn vkd_frame(s: *mut VkdSource, n: i64, out: *mut VkdFrame, err: *mut c_char, errlen: c_int) -> c_int;
    pub fn vkd_release(hold: *mut c_void);
    pub fn vkd_seeks(s: *const VkdSource) -> i64;
    pub fn vkd_close(s: *mut VkdSource);
    pub fn vkd_hw_set_timeline(s: *mut VkdSource, handle_type: c_int, fd: c_int, err: *mut c_char, errlen: c_int) -> c_int;
    pub fn vkd_hw_copy(s: *mut VkdSource, hold: *mut c_void, t: *const VkdHwTarget, err: *mut c_char, errlen: c_int) -> c_int;
}
