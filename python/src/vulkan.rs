//! The Vulkan device calls, through the core's own VSVULKANAPI table (getVulkanAPI), so that what
//! scripts and `vsvk devices` see is exactly what plugins see. Failures come back as the message
//! the call wrote.
use std::ffi::{c_char, c_int, CStr};
use std::sync::Arc;

use vsvk::core::Core;
use vsvk_plugin_api::vulkan::{VSVulkanCoreInfo, VSVulkanDeviceListEntry, VSVULKANAPI};

fn api() -> &'static VSVULKANAPI {
    // SAFETY: the core's static tables; getVulkanAPI never returns NULL.
    unsafe { &*((*vsvk::api::vsapi()).getVulkanAPI)() }
}

fn raw(core: &Arc<Core>) -> *mut vsvk_plugin_api::abi::VSCore {
    Core::as_raw(core)
}

fn message(buf: &[c_char], call: &str) -> String {
    // SAFETY: the buffer is NUL-terminated (zeroed, and the API writes at most size-1 bytes).
    let s = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned();
    if s.is_empty() {
        format!("{call} failed")
    } else {
        s
    }
}

pub fn c_text(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars.iter().take_while(|c| **c != 0).map(|c| *c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// VkPhysicalDeviceType as a word.
pub fn device_type(t: c_int) -> &'static str {
    match t {
        1 => "integrated",
        2 => "discrete",
        3 => "virtual",
        4 => "cpu",
        _ => "other",
    }
}

pub fn devices() -> Result<Vec<VSVulkanDeviceListEntry>, String> {
    let mut err = [0 as c_char; 1024];
    let api = api();
    // SAFETY: a NULL array asks for the count only.
    let n = unsafe { (api.enumerateVulkanDevices)(std::ptr::null_mut(), 0, err.as_mut_ptr(), err.len() as c_int) };
    if n < 0 {
        return Err(message(&err, "enumerateVulkanDevices"));
    }
    let mut entries = vec![VSVulkanDeviceListEntry::default(); n as usize];
    // SAFETY: room for n entries.
    let m = unsafe { (api.enumerateVulkanDevices)(entries.as_mut_ptr(), n, err.as_mut_ptr(), err.len() as c_int) };
    if m < 0 {
        return Err(message(&err, "enumerateVulkanDevices"));
    }
    entries.truncate(m.min(n) as usize);
    Ok(entries)
}

pub fn set_device(core: &Arc<Core>, index: i32) -> Result<(), String> {
    let mut err = [0 as c_char; 1024];
    // SAFETY: a live core and an error buffer of the given size.
    let rc = unsafe { (api().setVulkanDevice)(raw(core), index, err.as_mut_ptr(), err.len() as c_int) };
    // int results are 0 on success (VSVulkan4.h)
    if rc == 0 {
        Ok(())
    } else {
        Err(message(&err, "setVulkanDevice"))
    }
}

pub fn core_info(core: &Arc<Core>) -> Result<VSVulkanCoreInfo, String> {
    let mut err = [0 as c_char; 1024];
    let mut info = VSVulkanCoreInfo::default();
    // SAFETY: as above, with a struct to fill.
    let rc = unsafe { (api().getVulkanCoreInfo)(raw(core), &mut info, err.as_mut_ptr(), err.len() as c_int) };
    if rc == 0 {
        Ok(info)
    } else {
        Err(message(&err, "getVulkanCoreInfo"))
    }
}

/// setMaxVRAMUse: sets the budget when `bytes` > 0; returns the budget in force.
pub fn max_vram(core: &Arc<Core>, bytes: i64) -> i64 {
    // SAFETY: a live core.
    unsafe { (api().setMaxVRAMUse)(bytes, raw(core)) }
}
