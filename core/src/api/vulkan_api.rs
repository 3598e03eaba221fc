//! getVulkanAPI. The GPU half is its own piece of work; until it lands, every entry of the table
//! fails cleanly with a message.
use vsvk_plugin_api::abi::VSVULKANAPI;

pub unsafe extern "C" fn get_vulkan_api() -> *const VSVULKANAPI {
    std::ptr::null()
}
