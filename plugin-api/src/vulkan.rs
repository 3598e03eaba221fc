//! The GPU half of the VapourSynth API 4.3 (`VSVulkan4.h`) as Rust `#[repr(C)]` types, in the
//! style of [`crate::abi`]. Vulkan types come from `ash` (Vulkan 1.3.281); the few Vulkan 1.4
//! names it lacks are defined here. Layouts are checked against the C header by
//! `tests/tests/abi_layout.rs`.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

use std::ffi::{c_char, c_int, c_void, CStr};

use ash::vk;

use crate::abi::{VSCore, VSFrame, VSFrameContext, VSNode, VSVideoFormat};

/// `VS_VULKAN_API_VERSION`: the core always creates a Vulkan 1.4 device.
pub const VS_VULKAN_API_VERSION: u32 = vk::make_api_version(0, 1, 4, 0);

/// `VS_GPU_IMPORT_CHARGED_AGAIN`: 1 where importing exported memory charges it to the process again.
#[cfg(windows)]
pub const VS_GPU_IMPORT_CHARGED_AGAIN: c_int = 1;
#[cfg(not(windows))]
pub const VS_GPU_IMPORT_CHARGED_AGAIN: c_int = 0;

// enum VSVulkanLevel: the handle a VSVulkanFunctions entry is loaded from.
pub const VS_VK_GLOBAL: c_int = 0;
pub const VS_VK_INSTANCE: c_int = 1;
pub const VS_VK_DEVICE: c_int = 2;
// enum VSVulkanRequirement
pub const VS_VK_REQUIRED: c_int = 0;
pub const VS_VK_OPTIONAL: c_int = 1;
// VSVulkanQueueType
pub const vqCompute: c_int = 0;
pub const vqTransfer: c_int = 1;
// VSGPUDrainResult
pub const gdDrained: c_int = 0;
pub const gdIncomplete: c_int = 1;
pub const gdDeviceLost: c_int = 2;
// VSGPUShaderLanguage
pub const slGLSL: c_int = 0;

/// `vsGPUDrainSafeToDestroy`: whether resources used by the waited-for work may be destroyed.
/// Only the known safe results say yes, so values added later count as unsafe.
pub const fn vsGPUDrainSafeToDestroy(drainResult: c_int) -> c_int {
    (drainResult == gdDrained || drainResult == gdDeviceLost) as c_int
}

// Vulkan 1.4 core commands that ash 0.38 only knows under their KHR names. The promoted
// commands have exactly the KHR signatures (their structs are aliases), so the KHR function
// pointer types are the right ones.
pub type PFN_vkMapMemory2 = vk::PFN_vkMapMemory2KHR;
pub type PFN_vkUnmapMemory2 = vk::PFN_vkUnmapMemory2KHR;
pub type PFN_vkGetImageSubresourceLayout2 = vk::PFN_vkGetImageSubresourceLayout2KHR;
pub type PFN_vkCmdBindDescriptorSets2 = vk::PFN_vkCmdBindDescriptorSets2KHR;
pub type PFN_vkCmdPushConstants2 = vk::PFN_vkCmdPushConstants2KHR;
pub type PFN_vkCmdPushDescriptorSet = vk::PFN_vkCmdPushDescriptorSetKHR;
pub type PFN_vkCmdPushDescriptorSetWithTemplate = vk::PFN_vkCmdPushDescriptorSetWithTemplateKHR;

/// One entry of `VS_VK_FUNCTION_LIST`, with where its pointer lives in [`VSVulkanFunctions`].
#[derive(Clone, Copy, Debug)]
pub struct VSVulkanFunctionEntry {
    /// The Vulkan command name, e.g. `vkCreateBuffer` (also the member name).
    pub name: &'static CStr,
    /// `VS_VK_GLOBAL`, `VS_VK_INSTANCE` or `VS_VK_DEVICE`.
    pub level: c_int,
    /// `VS_VK_REQUIRED` or `VS_VK_OPTIONAL`.
    pub requirement: c_int,
    /// Byte offset of the member in [`VSVulkanFunctions`].
    pub offset: usize,
}

macro_rules! vulkan_functions {
    ($(($level:ident, $req:ident, $member:ident, $pfn:ty),)*) => {
        /// The core's Vulkan dispatch table, in `VS_VK_FUNCTION_LIST` order. Entries marked
        /// `VS_VK_OPTIONAL` may be `None`.
        #[repr(C)]
        #[derive(Clone, Copy, Default)]
        pub struct VSVulkanFunctions {
            $(pub $member: Option<$pfn>,)*
        }

        /// `VS_VK_FUNCTION_LIST`: every member of [`VSVulkanFunctions`], in order.
        pub const VS_VK_FUNCTION_LIST: &[VSVulkanFunctionEntry] = &[
            $(VSVulkanFunctionEntry {
                name: match CStr::from_bytes_with_nul(concat!(stringify!($member), "\0").as_bytes()) {
                    Ok(name) => name,
                    Err(_) => panic!("bad Vulkan command name"),
                },
                level: $level,
                requirement: $req,
                offset: core::mem::offset_of!(VSVulkanFunctions, $member),
            },)*
        ];
    };
}

vulkan_functions! {
            (VS_VK_GLOBAL, VS_VK_REQUIRED, vkEnumerateInstanceVersion, vk::PFN_vkEnumerateInstanceVersion),
            (VS_VK_GLOBAL, VS_VK_REQUIRED, vkEnumerateInstanceExtensionProperties, vk::PFN_vkEnumerateInstanceExtensionProperties),
            (VS_VK_GLOBAL, VS_VK_REQUIRED, vkEnumerateInstanceLayerProperties, vk::PFN_vkEnumerateInstanceLayerProperties),
            (VS_VK_GLOBAL, VS_VK_REQUIRED, vkCreateInstance, vk::PFN_vkCreateInstance),
            (VS_VK_INSTANCE, VS_VK_REQUIRED, vkDestroyInstance, vk::PFN_vkDestroyInstance),
            (VS_VK_INSTANCE, VS_VK_REQUIRED, vkEnumeratePhysicalDevices, vk::PFN_vkEnumeratePhysicalDevices),
            (VS_VK_INSTANCE, VS_VK_REQUIRED, vkGetPhysicalDeviceProperties2, vk::PFN_vkGetPhysicalDeviceProperties2),
            (VS_VK_INSTANCE, VS_VK_REQUIRED, vkGetPhysicalDeviceFeatures2, vk::PFN_vkGetPhysicalDeviceFeatures2),
            (VS_VK_INSTANCE, VS_VK_REQUIRED, vkGetPhysicalDeviceMemoryProperties2, vk::PFN_vkGetPhysicalDeviceMemoryProperties2),
            (VS_VK_INSTANCE, VS_VK_REQUIRED, vkGetPhysicalDeviceQueueFamilyProperties2, vk::PFN_vkGetPhysicalDeviceQueueFamilyProperties2),
            (VS_VK_INSTANCE, VS_VK_REQUIRED, vkGetPhysicalDeviceFormatProperties2, vk::PFN_vkGetPhysicalDeviceFormatProperties2),
            (VS_VK_INSTANCE, VS_VK_REQUIRED, vkGetPhysicalDeviceImageFormatProperties2, vk::PFN_vkGetPhysicalDeviceImageFormatProperties2),
            (VS_VK_INSTANCE, VS_VK_REQUIRED, vkEnumerateDeviceExtensionProperties, vk::PFN_vkEnumerateDeviceExtensionProperties),
            (VS_VK_INSTANCE, VS_VK_REQUIRED, vkCreateDevice, vk::PFN_vkCreateDevice),
            (VS_VK_INSTANCE, VS_VK_REQUIRED, vkGetDeviceProcAddr, vk::PFN_vkGetDeviceProcAddr),
            (VS_VK_INSTANCE, VS_VK_OPTIONAL, vkCreateDebugUtilsMessengerEXT, vk::PFN_vkCreateDebugUtilsMessengerEXT),
            (VS_VK_INSTANCE, VS_VK_OPTIONAL, vkDestroyDebugUtilsMessengerEXT, vk::PFN_vkDestroyDebugUtilsMessengerEXT),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyDevice, vk::PFN_vkDestroyDevice),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDeviceWaitIdle, vk::PFN_vkDeviceWaitIdle),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkGetDeviceQueue2, vk::PFN_vkGetDeviceQueue2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkQueueSubmit2, vk::PFN_vkQueueSubmit2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkQueueWaitIdle, vk::PFN_vkQueueWaitIdle),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkAllocateMemory, vk::PFN_vkAllocateMemory),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkFreeMemory, vk::PFN_vkFreeMemory),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkMapMemory2, PFN_vkMapMemory2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkUnmapMemory2, PFN_vkUnmapMemory2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkFlushMappedMemoryRanges, vk::PFN_vkFlushMappedMemoryRanges),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkInvalidateMappedMemoryRanges, vk::PFN_vkInvalidateMappedMemoryRanges),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateBuffer, vk::PFN_vkCreateBuffer),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyBuffer, vk::PFN_vkDestroyBuffer),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkGetBufferMemoryRequirements2, vk::PFN_vkGetBufferMemoryRequirements2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkBindBufferMemory2, vk::PFN_vkBindBufferMemory2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkGetBufferDeviceAddress, vk::PFN_vkGetBufferDeviceAddress),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkGetDeviceBufferMemoryRequirements, vk::PFN_vkGetDeviceBufferMemoryRequirements),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateImage, vk::PFN_vkCreateImage),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyImage, vk::PFN_vkDestroyImage),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkGetImageMemoryRequirements2, vk::PFN_vkGetImageMemoryRequirements2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkBindImageMemory2, vk::PFN_vkBindImageMemory2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateImageView, vk::PFN_vkCreateImageView),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyImageView, vk::PFN_vkDestroyImageView),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkGetImageSubresourceLayout2, PFN_vkGetImageSubresourceLayout2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkGetDeviceImageMemoryRequirements, vk::PFN_vkGetDeviceImageMemoryRequirements),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateSampler, vk::PFN_vkCreateSampler),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroySampler, vk::PFN_vkDestroySampler),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateSamplerYcbcrConversion, vk::PFN_vkCreateSamplerYcbcrConversion),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroySamplerYcbcrConversion, vk::PFN_vkDestroySamplerYcbcrConversion),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateDescriptorSetLayout, vk::PFN_vkCreateDescriptorSetLayout),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyDescriptorSetLayout, vk::PFN_vkDestroyDescriptorSetLayout),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateDescriptorPool, vk::PFN_vkCreateDescriptorPool),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyDescriptorPool, vk::PFN_vkDestroyDescriptorPool),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkResetDescriptorPool, vk::PFN_vkResetDescriptorPool),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkAllocateDescriptorSets, vk::PFN_vkAllocateDescriptorSets),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkFreeDescriptorSets, vk::PFN_vkFreeDescriptorSets),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkUpdateDescriptorSets, vk::PFN_vkUpdateDescriptorSets),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateDescriptorUpdateTemplate, vk::PFN_vkCreateDescriptorUpdateTemplate),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyDescriptorUpdateTemplate, vk::PFN_vkDestroyDescriptorUpdateTemplate),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkUpdateDescriptorSetWithTemplate, vk::PFN_vkUpdateDescriptorSetWithTemplate),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkGetDescriptorSetLayoutSupport, vk::PFN_vkGetDescriptorSetLayoutSupport),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreatePipelineLayout, vk::PFN_vkCreatePipelineLayout),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyPipelineLayout, vk::PFN_vkDestroyPipelineLayout),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateComputePipelines, vk::PFN_vkCreateComputePipelines),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyPipeline, vk::PFN_vkDestroyPipeline),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreatePipelineCache, vk::PFN_vkCreatePipelineCache),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyPipelineCache, vk::PFN_vkDestroyPipelineCache),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkGetPipelineCacheData, vk::PFN_vkGetPipelineCacheData),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkMergePipelineCaches, vk::PFN_vkMergePipelineCaches),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateShaderModule, vk::PFN_vkCreateShaderModule),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyShaderModule, vk::PFN_vkDestroyShaderModule),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateCommandPool, vk::PFN_vkCreateCommandPool),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyCommandPool, vk::PFN_vkDestroyCommandPool),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkResetCommandPool, vk::PFN_vkResetCommandPool),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkTrimCommandPool, vk::PFN_vkTrimCommandPool),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkAllocateCommandBuffers, vk::PFN_vkAllocateCommandBuffers),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkFreeCommandBuffers, vk::PFN_vkFreeCommandBuffers),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkBeginCommandBuffer, vk::PFN_vkBeginCommandBuffer),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkEndCommandBuffer, vk::PFN_vkEndCommandBuffer),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkResetCommandBuffer, vk::PFN_vkResetCommandBuffer),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdExecuteCommands, vk::PFN_vkCmdExecuteCommands),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdBindPipeline, vk::PFN_vkCmdBindPipeline),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdBindDescriptorSets2, PFN_vkCmdBindDescriptorSets2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdPushConstants2, PFN_vkCmdPushConstants2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdPushDescriptorSet, PFN_vkCmdPushDescriptorSet),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdPushDescriptorSetWithTemplate, PFN_vkCmdPushDescriptorSetWithTemplate),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdDispatch, vk::PFN_vkCmdDispatch),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdDispatchBase, vk::PFN_vkCmdDispatchBase),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdDispatchIndirect, vk::PFN_vkCmdDispatchIndirect),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdPipelineBarrier2, vk::PFN_vkCmdPipelineBarrier2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdCopyBuffer2, vk::PFN_vkCmdCopyBuffer2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdCopyImage2, vk::PFN_vkCmdCopyImage2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdCopyBufferToImage2, vk::PFN_vkCmdCopyBufferToImage2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdCopyImageToBuffer2, vk::PFN_vkCmdCopyImageToBuffer2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdBlitImage2, vk::PFN_vkCmdBlitImage2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdFillBuffer, vk::PFN_vkCmdFillBuffer),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdUpdateBuffer, vk::PFN_vkCmdUpdateBuffer),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdClearColorImage, vk::PFN_vkCmdClearColorImage),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateSemaphore, vk::PFN_vkCreateSemaphore),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroySemaphore, vk::PFN_vkDestroySemaphore),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkWaitSemaphores, vk::PFN_vkWaitSemaphores),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkSignalSemaphore, vk::PFN_vkSignalSemaphore),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkGetSemaphoreCounterValue, vk::PFN_vkGetSemaphoreCounterValue),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateFence, vk::PFN_vkCreateFence),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyFence, vk::PFN_vkDestroyFence),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkResetFences, vk::PFN_vkResetFences),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkWaitForFences, vk::PFN_vkWaitForFences),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkGetFenceStatus, vk::PFN_vkGetFenceStatus),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateEvent, vk::PFN_vkCreateEvent),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyEvent, vk::PFN_vkDestroyEvent),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdSetEvent2, vk::PFN_vkCmdSetEvent2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdResetEvent2, vk::PFN_vkCmdResetEvent2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdWaitEvents2, vk::PFN_vkCmdWaitEvents2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCreateQueryPool, vk::PFN_vkCreateQueryPool),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkDestroyQueryPool, vk::PFN_vkDestroyQueryPool),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkGetQueryPoolResults, vk::PFN_vkGetQueryPoolResults),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkResetQueryPool, vk::PFN_vkResetQueryPool),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdResetQueryPool, vk::PFN_vkCmdResetQueryPool),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdWriteTimestamp2, vk::PFN_vkCmdWriteTimestamp2),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdCopyQueryPoolResults, vk::PFN_vkCmdCopyQueryPoolResults),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdBeginQuery, vk::PFN_vkCmdBeginQuery),
            (VS_VK_DEVICE, VS_VK_REQUIRED, vkCmdEndQuery, vk::PFN_vkCmdEndQuery),
            (VS_VK_DEVICE, VS_VK_OPTIONAL, vkSetDebugUtilsObjectNameEXT, vk::PFN_vkSetDebugUtilsObjectNameEXT),
            (VS_VK_DEVICE, VS_VK_OPTIONAL, vkCmdBeginDebugUtilsLabelEXT, vk::PFN_vkCmdBeginDebugUtilsLabelEXT),
            (VS_VK_DEVICE, VS_VK_OPTIONAL, vkCmdEndDebugUtilsLabelEXT, vk::PFN_vkCmdEndDebugUtilsLabelEXT),
}

impl core::fmt::Debug for VSVulkanFunctions {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("VSVulkanFunctions").finish_non_exhaustive()
    }
}

macro_rules! opaque {
    ($($name:ident),*) => {$(
        #[repr(C)]
        pub struct $name { _private: [u8; 0] }
    )*};
}
opaque!(
    VSGPUTimeline,
    VSGPUBuffer,
    VSGPUMemory,
    VSGPUMemoryReservation,
    VSGPUExecPool,
    VSGPUExecContext,
    VSGPUShader
);

/// Deferred cleanup registered with `gpuExecRetain`.
pub type VSGPUReleaseFunc = Option<unsafe extern "C" fn(object: *mut c_void)>;

/// Implements `Default` as all-zero, which is what C callers start from.
macro_rules! zeroed_default {
    ($($name:ident),*) => {$(
        impl Default for $name {
            fn default() -> Self {
                // SAFETY: every field is an integer, a raw pointer, a Vulkan handle or an
                // Option of a function pointer, all of which are valid when zero.
                unsafe { core::mem::zeroed() }
            }
        }
    )*};
}

/// The core's Vulkan objects.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VSVulkanCoreHandles {
    pub instance: vk::Instance,
    pub physicalDevice: vk::PhysicalDevice,
    pub device: vk::Device,
    pub getInstanceProcAddr: Option<vk::PFN_vkGetInstanceProcAddr>,
    pub computeQueueFamily: u32,
    pub computeQueueIndex: u32,
    pub transferQueueFamily: u32,
    pub transferQueueIndex: u32,
}

/// A GPU plane: a linear buffer laid out like the CPU plane, plus its ready pair.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VSVulkanPlaneInfo {
    pub buffer: vk::Buffer,
    pub bufferSize: vk::DeviceSize,
    pub readySemaphore: vk::Semaphore,
    pub readyValue: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VSVulkanBufferInfo {
    pub buffer: vk::Buffer,
    pub address: vk::DeviceAddress,
    pub mapped: *mut c_void,
    pub size: vk::DeviceSize,
    pub memoryFlags: vk::MemoryPropertyFlags,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VSVulkanMemoryInfo {
    pub memory: vk::DeviceMemory,
    pub offset: vk::DeviceSize,
    pub size: vk::DeviceSize,
    pub mapped: *mut c_void,
    pub memoryFlags: vk::MemoryPropertyFlags,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VSVulkanExportedMemory {
    pub memoryId: u64,
    pub memorySize: vk::DeviceSize,
    pub memoryTypeIndex: u32,
    pub offset: vk::DeviceSize,
    pub size: vk::DeviceSize,
    /// A `VkExternalMemoryHandleTypeFlagBits` value.
    pub handleType: c_int,
    /// A HANDLE on Windows, a file descriptor elsewhere (`intptr_t`).
    pub handle: isize,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VSVulkanExportedSemaphore {
    /// A `VkExternalSemaphoreHandleTypeFlagBits` value.
    pub handleType: c_int,
    /// A HANDLE on Windows, a file descriptor elsewhere (`intptr_t`).
    pub handle: isize,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VSVulkanCoreInfo {
    pub deviceName: [c_char; 256],
    pub deviceMemory: i64,
    pub budget: i64,
    pub allocated: i64,
    pub limit: i64,
    pub deviceUUID: [u8; vk::UUID_SIZE],
    pub deviceLUID: [u8; vk::LUID_SIZE],
    pub deviceNodeMask: u32,
    pub deviceLUIDValid: c_int,
    pub exportHandleType: c_int,
    pub semaphoreExportHandleType: c_int,
    pub unifiedMemory: c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VSVulkanDeviceListEntry {
    pub deviceName: [c_char; 256],
    pub apiVersion: u32,
    /// A `VkPhysicalDeviceType` value.
    pub deviceType: c_int,
    pub deviceMemory: i64,
    pub usable: c_int,
    pub unusableReason: [c_char; 256],
    pub deviceUUID: [u8; vk::UUID_SIZE],
    pub deviceLUID: [u8; vk::LUID_SIZE],
    pub deviceNodeMask: u32,
    pub deviceLUIDValid: c_int,
}

zeroed_default!(
    VSVulkanCoreHandles,
    VSVulkanPlaneInfo,
    VSVulkanBufferInfo,
    VSVulkanMemoryInfo,
    VSVulkanExportedMemory,
    VSVulkanExportedSemaphore,
    VSVulkanCoreInfo,
    VSVulkanDeviceListEntry
);

type C = *mut VSCore;
type F = *const VSFrame;
type I = c_int;
type E = *mut c_char; // error message buffer
type Pool = *mut VSGPUExecPool;
type Ctx = *mut VSGPUExecContext;
type Tl = *mut VSGPUTimeline;

/// The `VSVULKANAPI` function table, member for member.
#[repr(C)]
pub struct VSVULKANAPI {
    // devices
    pub enumerateVulkanDevices: unsafe extern "C" fn(*mut VSVulkanDeviceListEntry, I, E, I) -> I,
    pub setVulkanDevice: unsafe extern "C" fn(C, I, E, I) -> I,
    pub getVulkanCoreInfo: unsafe extern "C" fn(C, *mut VSVulkanCoreInfo, E, I) -> I,
    pub setMaxVRAMUse: unsafe extern "C" fn(i64, C) -> i64,
    // raw Vulkan access
    pub getVulkanHandles: unsafe extern "C" fn(C, *mut VSVulkanCoreHandles, E, I) -> I,
    pub getVulkanFunctions: unsafe extern "C" fn(C, E, I) -> *const VSVulkanFunctions,
    pub lockVulkanQueue: unsafe extern "C" fn(C, I),
    pub unlockVulkanQueue: unsafe extern "C" fn(C, I),
    // GPU frames
    pub newGPUVideoFrame: unsafe extern "C" fn(*const VSVideoFormat, I, I, F, C) -> *mut VSFrame,
    pub getGPUPlane: unsafe extern "C" fn(F, I, *mut VSVulkanPlaneInfo) -> I,
    pub setGPUPlaneProducer: unsafe extern "C" fn(F, I, Tl, u64),
    // timelines
    pub createGPUTimeline: unsafe extern "C" fn(C, E, I) -> Tl,
    pub freeGPUTimeline: unsafe extern "C" fn(Tl),
    pub addGPUTimelineRef: unsafe extern "C" fn(Tl),
    pub getGPUTimelineSemaphore: unsafe extern "C" fn(Tl) -> vk::Semaphore,
    pub gpuTimelineWaitValue: unsafe extern "C" fn(Tl, u64, E, I) -> I,
    // pooled device memory
    pub createGPUBuffer: unsafe extern "C" fn(
        C,
        vk::DeviceSize,
        vk::BufferUsageFlags,
        vk::MemoryPropertyFlags,
        vk::MemoryPropertyFlags,
        *mut VSVulkanBufferInfo,
        E,
        I,
    ) -> *mut VSGPUBuffer,
    pub destroyGPUBuffer: unsafe extern "C" fn(*mut VSGPUBuffer),
    pub allocateGPUMemory: unsafe extern "C" fn(
        C,
        *const vk::MemoryRequirements,
        vk::MemoryPropertyFlags,
        vk::MemoryPropertyFlags,
        *mut VSVulkanMemoryInfo,
        E,
        I,
    ) -> *mut VSGPUMemory,
    pub freeGPUMemory: unsafe extern "C" fn(*mut VSGPUMemory),
    pub reserveGPUMemory: unsafe extern "C" fn(C, i64, E, I) -> *mut VSGPUMemoryReservation,
    pub updateGPUMemoryReservation: unsafe extern "C" fn(*mut VSGPUMemoryReservation, i64),
    pub releaseGPUMemoryReservation: unsafe extern "C" fn(*mut VSGPUMemoryReservation),
    // shaders
    pub compileGPUShader: unsafe extern "C" fn(C, I, *const c_char, E, I) -> *mut VSGPUShader,
    pub getGPUShaderCode: unsafe extern "C" fn(*const VSGPUShader, *mut usize) -> *const u32,
    pub freeGPUShader: unsafe extern "C" fn(*mut VSGPUShader),
    // exec pools
    pub createGPUExecPool: unsafe extern "C" fn(C, I, E, I) -> Pool,
    pub freeGPUExecPool: unsafe extern "C" fn(Pool),
    pub gpuExecPoolWaitIdle: unsafe extern "C" fn(Pool, E, I) -> I,
    pub gpuExecWaitValue: unsafe extern "C" fn(Pool, u64, E, I) -> I,
    pub gpuExecPoolTimeline: unsafe extern "C" fn(Pool) -> Tl,
    // recording contexts
    pub gpuExecAcquire: unsafe extern "C" fn(Pool, E, I) -> Ctx,
    pub gpuExecCommandBuffer: unsafe extern "C" fn(Ctx) -> vk::CommandBuffer,
    pub gpuExecReadsFrame: unsafe extern "C" fn(Ctx, F),
    pub gpuExecWritesPlane: unsafe extern "C" fn(Ctx, *mut VSFrame, I),
    pub gpuExecUsesBuffer: unsafe extern "C" fn(Ctx, *mut VSGPUBuffer),
    pub gpuExecUsesMemory: unsafe extern "C" fn(Ctx, *mut VSGPUMemory),
    pub gpuExecRetain: unsafe extern "C" fn(Ctx, VSGPUReleaseFunc, *mut c_void, vk::DeviceSize),
    pub gpuExecSubmit: unsafe extern "C" fn(Ctx, *mut u64, E, I) -> I,
    pub gpuExecAbandon: unsafe extern "C" fn(Ctx),
    // interop
    pub exportGPUPlane: unsafe extern "C" fn(F, I, *mut VSVulkanExportedMemory, E, I) -> I,
    pub exportGPUSemaphore: unsafe extern "C" fn(C, vk::Semaphore, *mut VSVulkanExportedSemaphore, E, I) -> I,
    pub waitGPUFrame: unsafe extern "C" fn(F, E, I) -> I,
    pub getExportableFrameFilter: unsafe extern "C" fn(I, *mut VSNode, *mut VSFrameContext, E, I) -> F,
}
