//! getVulkanAPI. The GPU half (one Vulkan 1.4 device, pools, exec pools, shaders, export) is its
//! own piece of work; until it lands, the table is complete and every entry fails cleanly: it
//! writes a message naming the call into the caller's error buffer (or logs it to stderr when the
//! call has none) and returns its failure value.
use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use ash::vk;
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::vulkan::*;

fn message(call: &str) -> String {
    format!("{call}: this vsvk build has no Vulkan device yet (the GPU half is not implemented)")
}

fn fail(call: &str, err: *mut c_char, size: c_int) {
    let msg = message(call);
    if err.is_null() || size <= 0 {
        eprintln!("vsvk: {msg}");
        return;
    }
    let n = msg.len().min(size as usize - 1);
    // SAFETY: the caller's buffer holds `size` bytes; we write at most size-1 and a NUL.
    unsafe {
        ptr::copy_nonoverlapping(msg.as_ptr(), err.cast::<u8>(), n);
        *err.add(n) = 0;
    }
}

fn note(call: &str) {
    eprintln!("vsvk: {}", message(call));
}

type C = *mut VSCore;
type F = *const VSFrame;
type E = *mut c_char;
type Tl = *mut VSGPUTimeline;
type Pool = *mut VSGPUExecPool;
type Ctx = *mut VSGPUExecContext;

unsafe extern "C" fn enumerate_vulkan_devices(_: *mut VSVulkanDeviceListEntry, _: c_int, e: E, s: c_int) -> c_int {
    fail("enumerateVulkanDevices", e, s);
    -1
}
unsafe extern "C" fn set_vulkan_device(_: C, _: c_int, e: E, s: c_int) -> c_int {
    fail("setVulkanDevice", e, s);
    0
}
unsafe extern "C" fn get_vulkan_core_info(_: C, _: *mut VSVulkanCoreInfo, e: E, s: c_int) -> c_int {
    fail("getVulkanCoreInfo", e, s);
    0
}
unsafe extern "C" fn set_max_vram_use(_: i64, _: C) -> i64 {
    note("setMaxVRAMUse");
    0
}
unsafe extern "C" fn get_vulkan_handles(_: C, _: *mut VSVulkanCoreHandles, e: E, s: c_int) -> c_int {
    fail("getVulkanHandles", e, s);
    0
}
unsafe extern "C" fn get_vulkan_functions(_: C, e: E, s: c_int) -> *const VSVulkanFunctions {
    fail("getVulkanFunctions", e, s);
    ptr::null()
}
unsafe extern "C" fn lock_vulkan_queue(_: C, _: c_int) {
    note("lockVulkanQueue");
}
unsafe extern "C" fn unlock_vulkan_queue(_: C, _: c_int) {
    note("unlockVulkanQueue");
}
unsafe extern "C" fn new_gpu_video_frame(_: *const VSVideoFormat, _: c_int, _: c_int, _: F, _: C) -> *mut VSFrame {
    note("newGPUVideoFrame");
    ptr::null_mut()
}
unsafe extern "C" fn get_gpu_plane(_: F, _: c_int, _: *mut VSVulkanPlaneInfo) -> c_int {
    note("getGPUPlane");
    0
}
unsafe extern "C" fn set_gpu_plane_producer(_: F, _: c_int, _: Tl, _: u64) {
    note("setGPUPlaneProducer");
}
unsafe extern "C" fn create_gpu_timeline(_: C, e: E, s: c_int) -> Tl {
    fail("createGPUTimeline", e, s);
    ptr::null_mut()
}
unsafe extern "C" fn free_gpu_timeline(_: Tl) {}
unsafe extern "C" fn add_gpu_timeline_ref(_: Tl) {
    note("addGPUTimelineRef");
}
unsafe extern "C" fn get_gpu_timeline_semaphore(_: Tl) -> vk::Semaphore {
    note("getGPUTimelineSemaphore");
    vk::Semaphore::null()
}
unsafe extern "C" fn gpu_timeline_wait_value(_: Tl, _: u64, e: E, s: c_int) -> c_int {
    fail("gpuTimelineWaitValue", e, s);
    gdIncomplete
}
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn create_gpu_buffer(
    _: C,
    _: vk::DeviceSize,
    _: vk::BufferUsageFlags,
    _: vk::MemoryPropertyFlags,
    _: vk::MemoryPropertyFlags,
    _: *mut VSVulkanBufferInfo,
    e: E,
    s: c_int,
) -> *mut VSGPUBuffer {
    fail("createGPUBuffer", e, s);
    ptr::null_mut()
}
unsafe extern "C" fn destroy_gpu_buffer(_: *mut VSGPUBuffer) {}
unsafe extern "C" fn allocate_gpu_memory(
    _: C,
    _: *const vk::MemoryRequirements,
    _: vk::MemoryPropertyFlags,
    _: vk::MemoryPropertyFlags,
    _: *mut VSVulkanMemoryInfo,
    e: E,
    s: c_int,
) -> *mut VSGPUMemory {
    fail("allocateGPUMemory", e, s);
    ptr::null_mut()
}
unsafe extern "C" fn free_gpu_memory(_: *mut VSGPUMemory) {}
unsafe extern "C" fn reserve_gpu_memory(_: C, _: i64, e: E, s: c_int) -> *mut VSGPUMemoryReservation {
    fail("reserveGPUMemory", e, s);
    ptr::null_mut()
}
unsafe extern "C" fn update_gpu_memory_reservation(_: *mut VSGPUMemoryReservation, _: i64) {
    note("updateGPUMemoryReservation");
}
unsafe extern "C" fn release_gpu_memory_reservation(_: *mut VSGPUMemoryReservation) {}
unsafe extern "C" fn compile_gpu_shader(_: C, _: c_int, _: *const c_char, e: E, s: c_int) -> *mut VSGPUShader {
    fail("compileGPUShader", e, s);
    ptr::null_mut()
}
unsafe extern "C" fn get_gpu_shader_code(_: *const VSGPUShader, size: *mut usize) -> *const u32 {
    if !size.is_null() {
        // SAFETY: a non-null size pointer is writable by contract.
        *size = 0;
    }
    note("getGPUShaderCode");
    ptr::null()
}
unsafe extern "C" fn free_gpu_shader(_: *mut VSGPUShader) {}
unsafe extern "C" fn create_gpu_exec_pool(_: C, _: c_int, e: E, s: c_int) -> Pool {
    fail("createGPUExecPool", e, s);
    ptr::null_mut()
}
unsafe extern "C" fn free_gpu_exec_pool(_: Pool) {}
unsafe extern "C" fn gpu_exec_pool_wait_idle(_: Pool, e: E, s: c_int) -> c_int {
    fail("gpuExecPoolWaitIdle", e, s);
    gdIncomplete
}
unsafe extern "C" fn gpu_exec_wait_value(_: Pool, _: u64, e: E, s: c_int) -> c_int {
    fail("gpuExecWaitValue", e, s);
    gdIncomplete
}
unsafe extern "C" fn gpu_exec_pool_timeline(_: Pool) -> Tl {
    note("gpuExecPoolTimeline");
    ptr::null_mut()
}
unsafe extern "C" fn gpu_exec_acquire(_: Pool, e: E, s: c_int) -> Ctx {
    fail("gpuExecAcquire", e, s);
    ptr::null_mut()
}
unsafe extern "C" fn gpu_exec_command_buffer(_: Ctx) -> vk::CommandBuffer {
    note("gpuExecCommandBuffer");
    vk::CommandBuffer::null()
}
unsafe extern "C" fn gpu_exec_reads_frame(_: Ctx, _: F) {
    note("gpuExecReadsFrame");
}
unsafe extern "C" fn gpu_exec_writes_plane(_: Ctx, _: *mut VSFrame, _: c_int) {
    note("gpuExecWritesPlane");
}
unsafe extern "C" fn gpu_exec_uses_buffer(_: Ctx, _: *mut VSGPUBuffer) {
    note("gpuExecUsesBuffer");
}
unsafe extern "C" fn gpu_exec_uses_memory(_: Ctx, _: *mut VSGPUMemory) {
    note("gpuExecUsesMemory");
}
unsafe extern "C" fn gpu_exec_retain(_: Ctx, _: VSGPUReleaseFunc, _: *mut c_void, _: vk::DeviceSize) {
    note("gpuExecRetain");
}
unsafe extern "C" fn gpu_exec_submit(_: Ctx, _: *mut u64, e: E, s: c_int) -> c_int {
    fail("gpuExecSubmit", e, s);
    0
}
unsafe extern "C" fn gpu_exec_abandon(_: Ctx) {}
unsafe extern "C" fn export_gpu_plane(_: F, _: c_int, _: *mut VSVulkanExportedMemory, e: E, s: c_int) -> c_int {
    fail("exportGPUPlane", e, s);
    0
}
unsafe extern "C" fn export_gpu_semaphore(_: C, _: vk::Semaphore, _: *mut VSVulkanExportedSemaphore, e: E, s: c_int) -> c_int {
    fail("exportGPUSemaphore", e, s);
    0
}
/// No GPU frame can exist without a device, so every frame is already complete.
unsafe extern "C" fn wait_gpu_frame(_: F, _: E, _: c_int) -> c_int {
    gdDrained
}
unsafe extern "C" fn get_exportable_frame_filter(_: c_int, _: *mut VSNode, _: *mut VSFrameContext, e: E, s: c_int) -> F {
    fail("getExportableFrameFilter", e, s);
    ptr::null()
}

static TABLE: VSVULKANAPI = VSVULKANAPI {
    enumerateVulkanDevices: enumerate_vulkan_devices,
    setVulkanDevice: set_vulkan_device,
    getVulkanCoreInfo: get_vulkan_core_info,
    setMaxVRAMUse: set_max_vram_use,
    getVulkanHandles: get_vulkan_handles,
    getVulkanFunctions: get_vulkan_functions,
    lockVulkanQueue: lock_vulkan_queue,
    unlockVulkanQueue: unlock_vulkan_queue,
    newGPUVideoFrame: new_gpu_video_frame,
    getGPUPlane: get_gpu_plane,
    setGPUPlaneProducer: set_gpu_plane_producer,
    createGPUTimeline: create_gpu_timeline,
    freeGPUTimeline: free_gpu_timeline,
    addGPUTimelineRef: add_gpu_timeline_ref,
    getGPUTimelineSemaphore: get_gpu_timeline_semaphore,
    gpuTimelineWaitValue: gpu_timeline_wait_value,
    createGPUBuffer: create_gpu_buffer,
    destroyGPUBuffer: destroy_gpu_buffer,
    allocateGPUMemory: allocate_gpu_memory,
    freeGPUMemory: free_gpu_memory,
    reserveGPUMemory: reserve_gpu_memory,
    updateGPUMemoryReservation: update_gpu_memory_reservation,
    releaseGPUMemoryReservation: release_gpu_memory_reservation,
    compileGPUShader: compile_gpu_shader,
    getGPUShaderCode: get_gpu_shader_code,
    freeGPUShader: free_gpu_shader,
    createGPUExecPool: create_gpu_exec_pool,
    freeGPUExecPool: free_gpu_exec_pool,
    gpuExecPoolWaitIdle: gpu_exec_pool_wait_idle,
    gpuExecWaitValue: gpu_exec_wait_value,
    gpuExecPoolTimeline: gpu_exec_pool_timeline,
    gpuExecAcquire: gpu_exec_acquire,
    gpuExecCommandBuffer: gpu_exec_command_buffer,
    gpuExecReadsFrame: gpu_exec_reads_frame,
    gpuExecWritesPlane: gpu_exec_writes_plane,
    gpuExecUsesBuffer: gpu_exec_uses_buffer,
    gpuExecUsesMemory: gpu_exec_uses_memory,
    gpuExecRetain: gpu_exec_retain,
    gpuExecSubmit: gpu_exec_submit,
    gpuExecAbandon: gpu_exec_abandon,
    exportGPUPlane: export_gpu_plane,
    exportGPUSemaphore: export_gpu_semaphore,
    waitGPUFrame: wait_gpu_frame,
    getExportableFrameFilter: get_exportable_frame_filter,
};

pub unsafe extern "C" fn get_vulkan_api() -> *const vsvk_plugin_api::abi::VSVULKANAPI {
    (&TABLE as *const VSVULKANAPI).cast()
}
