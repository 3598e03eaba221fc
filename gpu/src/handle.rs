//! The platform's opaque handles, the one place export and import differ by OS: POSIX fds
//! (VK_KHR_external_memory_fd / external_semaphore_fd) elsewhere, NT handles
//! (VK_KHR_external_memory_win32 / external_semaphore_win32) on Windows, which is what CUDA and
//! D3D12 import there. A handle travels as an `isize` (the ABI's `intptr_t`): an fd, or a HANDLE.
//!
//! Ownership differs too (the guide's VSVulkanExportedMemory): a successful import consumes an fd,
//! while an NT handle stays the caller's, to CloseHandle once the import exists.
use std::ffi::CStr;

use ash::vk;

#[cfg(not(windows))]
mod os {
    use super::*;
    pub const EXT_MEMORY: &CStr = c"VK_KHR_external_memory_fd";
    pub const EXT_SEMAPHORE: &CStr = c"VK_KHR_external_semaphore_fd";
    pub const MEMORY: vk::ExternalMemoryHandleTypeFlags = vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD;
    pub const SEMAPHORE: vk::ExternalSemaphoreHandleTypeFlags = vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD;
    pub type MemoryExt = ash::khr::external_memory_fd::Device;
    pub type SemaphoreExt = ash::khr::external_semaphore_fd::Device;

    pub fn get_memory(x: &MemoryExt, memory: vk::DeviceMemory) -> Result<isize, String> {
        let info = vk::MemoryGetFdInfoKHR::default().memory(memory).handle_type(MEMORY);
        // SAFETY: the caller passes exportable memory of x's device.
        let fd = unsafe { x.get_memory_fd(&info) }.map_err(|r| format!("vkGetMemoryFdKHR failed (VkResult {})", r.as_raw()))?;
        Ok(fd as isize)
    }

    pub fn get_semaphore(x: &SemaphoreExt, sem: vk::Semaphore) -> Result<isize, String> {
        let info = vk::SemaphoreGetFdInfoKHR::default().semaphore(sem).handle_type(SEMAPHORE);
        // SAFETY: a semaphore of x's device; the driver rejects non-exportable ones.
        let fd = unsafe { x.get_semaphore_fd(&info) }.map_err(|r| format!("vkGetSemaphoreFdKHR failed (VkResult {})", r.as_raw()))?;
        Ok(fd as isize)
    }
}

#[cfg(windows)]
mod os {
    use super::*;
    pub const EXT_MEMORY: &CStr = c"VK_KHR_external_memory_win32";
    pub const EXT_SEMAPHORE: &CStr = c"VK_KHR_external_semaphore_win32";
    pub const MEMORY: vk::ExternalMemoryHandleTypeFlags = vk::ExternalMemoryHandleTypeFlags::OPAQUE_WIN32;
    pub const SEMAPHORE: vk::ExternalSemaphoreHandleTypeFlags = vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_WIN32;
    pub type MemoryExt = ash::khr::external_memory_win32::Device;
    pub type SemaphoreExt = ash::khr::external_semaphore_win32::Device;

    pub fn get_memory(x: &MemoryExt, memory: vk::DeviceMemory) -> Result<isize, String> {
        let info = vk::MemoryGetWin32HandleInfoKHR::default().memory(memory).handle_type(MEMORY);
        // SAFETY: the caller passes exportable memory of x's device.
        let h = unsafe { x.get_memory_win32_handle(&info) }.map_err(|r| format!("vkGetMemoryWin32HandleKHR failed (VkResult {})", r.as_raw()))?;
        Ok(h)
    }

    pub fn get_semaphore(x: &SemaphoreExt, sem: vk::Semaphore) -> Result<isize, String> {
        let info = vk::SemaphoreGetWin32HandleInfoKHR::default().semaphore(sem).handle_type(SEMAPHORE);
        // SAFETY: a semaphore of x's device; the driver rejects non-exportable ones.
        let h = unsafe { x.get_semaphore_win32_handle(&info) }.map_err(|r| format!("vkGetSemaphoreWin32HandleKHR failed (VkResult {})", r.as_raw()))?;
        Ok(h)
    }
}

pub use os::*;

/// The memory handle type exportGPUPlane hands out, as the ABI's int.
pub const MEMORY_TYPE: i32 = MEMORY.as_raw() as i32;
/// The semaphore handle type exportGPUSemaphore hands out, as the ABI's int.
pub const SEMAPHORE_TYPE: i32 = SEMAPHORE.as_raw() as i32;
