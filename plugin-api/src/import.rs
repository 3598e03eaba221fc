//! vsvk's extension header include/VSVulkanImport4.h (not part of R81): foreign memory in, the
//! types member for member. `VSVKIMPORTAPI` comes from the core's exported `vsvkGetImportAPI`.
use std::ffi::{c_char, c_int, c_void};

use crate::abi::{VSCore, VSFrame, VSVideoFormat};
use crate::vulkan::VSGPUTimeline;

pub const VSVK_IMPORT_API_VERSION: c_int = 1;

#[repr(C)]
pub struct VSGPUImportedMemory {
    _private: [u8; 0],
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct VSVulkanImportedPlane {
    pub memory: *mut VSGPUImportedMemory,
    pub offset: u64,
    pub stride: isize,
}

pub type VSGPUImportRelease = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

#[repr(C)]
pub struct VSVKIMPORTAPI {
    pub version: c_int,
    pub importGPUMemory: unsafe extern "C" fn(*mut VSCore, c_int, c_int, u64, c_int, *mut c_char, c_int) -> *mut VSGPUImportedMemory,
    pub freeGPUMemory: unsafe extern "C" fn(*mut VSGPUImportedMemory),
    pub importGPUTimeline: unsafe extern "C" fn(*mut VSCore, c_int, c_int, *mut c_char, c_int) -> *mut VSGPUTimeline,
    #[allow(clippy::type_complexity)]
    pub newImportedGPUFrame: unsafe extern "C" fn(
        *const VSVideoFormat,
        c_int,
        c_int,
        *const VSVulkanImportedPlane,
        *mut VSGPUTimeline,
        u64,
        VSGPUImportRelease,
        *mut c_void,
        *const VSFrame,
        *mut VSCore,
        *mut c_char,
        c_int,
    ) -> *mut VSFrame,
}
