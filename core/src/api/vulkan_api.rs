//! getVulkanAPI: the C ABI of the GPU half. Entries only check and convert; the work is in
//! crate::gpu. Failures write a message naming the call into the caller's buffer (or log it when
//! the call has none); misuses the API defines as fatal end the process with a message naming it.
use std::ffi::{c_char, c_int, c_void};
use std::ptr;
use std::sync::Arc;

use ash::vk;
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::vulkan::*;

use super::{fatal, guard};
use crate::core::Core;
use crate::frame::Frame;
use crate::gpu::exec::{outcome_code, PoolInner, Retained, SendPtr, Slot, Timeline};
use crate::gpu::frame::{gpu_plane, owns_plane};
use crate::gpu::{Device, GpuBuffer, GpuMemory, Reservation};

/// Writes `msg` into a caller's error buffer (NUL terminated, truncated to fit).
fn set_err(err: *mut c_char, size: c_int, msg: &str) {
    if err.is_null() || size <= 0 {
        return;
    }
    let n = msg.len().min(size as usize - 1);
    // SAFETY: the caller's buffer holds `size` bytes; we write at most size-1 and a NUL.
    unsafe {
        ptr::copy_nonoverlapping(msg.as_ptr(), err.cast::<u8>(), n);
        *err.add(n) = 0;
    }
}

/// A failure: the message goes to the caller's buffer as is (as R81's do), or to stderr naming
/// the call when there is no buffer.
pub(super) fn fail(call: &str, err: *mut c_char, size: c_int, msg: &str) {
    if err.is_null() || size <= 0 {
        eprintln!("vsvk: {call}: {msg}");
    }
    set_err(err, size, msg);
}

type C = *mut VSCore;
type F = *const VSFrame;
type E = *mut c_char;
type Tl = *mut VSGPUTimeline;
type Pool = *mut VSGPUExecPool;
type Ctx = *mut VSGPUExecContext;

pub(super) fn core<'a>(call: &str, c: C) -> &'a Core {
    if c.is_null() {
        fatal(&format!("{call}: core is NULL"));
    }
    // SAFETY: a core pointer from createCore, alive while the caller uses it.
    unsafe { Core::borrow_raw(c) }
}

fn frame<'a>(call: &str, f: F) -> &'a Frame {
    if f.is_null() {
        fatal(&format!("{call}: frame is NULL"));
    }
    // SAFETY: non-null frame pointers are live references by contract.
    unsafe { Frame::borrow_raw(f) }
}

pub(super) fn device(call: &str, c: C, e: E, s: c_int) -> Option<Arc<Device>> {
    let core = core(call, c);
    match core.gpu.device(core) {
        Ok(d) => Some(d),
        Err(m) => {
            fail(call, e, s, &m);
            None
        }
    }
}

pub(super) fn timeline<'a>(call: &str, t: Tl) -> &'a Timeline {
    if t.is_null() {
        fatal(&format!("{call}: timeline is NULL"));
    }
    // SAFETY: VSGPUTimeline* is an Arc<Timeline> pointer (Arc::into_raw / a pool's own Arc).
    unsafe { &*t.cast::<Timeline>() }
}

/// A counted reference to a timeline handle.
fn timeline_arc(call: &str, t: Tl) -> Arc<Timeline> {
    timeline(call, t);
    // SAFETY: a live Arc<Timeline> pointer; we take one more reference.
    unsafe {
        Arc::increment_strong_count(t.cast::<Timeline>());
        Arc::from_raw(t.cast::<Timeline>())
    }
}

fn exec_pool<'a>(call: &str, p: Pool) -> &'a Arc<PoolInner> {
    if p.is_null() {
        fatal(&format!("{call}: pool is NULL"));
    }
    // SAFETY: VSGPUExecPool* is a Box<PoolHandle> from createGPUExecPool.
    unsafe { &(*p.cast::<PoolHandle>()).pool }
}

fn context(call: &str, c: Ctx) -> (&'static Slot, Arc<PoolInner>) {
    if c.is_null() {
        fatal(&format!("{call}: context is NULL"));
    }
    // SAFETY: a context handle from gpuExecAcquire; its pool is alive (freeing a pool with a held
    // context is fatal).
    unsafe { crate::gpu::exec::slot_pool(c as *const Slot) }
}

/// What VSGPUExecPool* points at.
struct PoolHandle {
    pool: Arc<PoolInner>,
    /// A filter's pool on a kernel queue counts as filter kernels on the device while it lives.
    _kernels: Option<vsvk_gpu::filter_kernels::FilterPool>,
}

fn cstr_into(dst: &mut [c_char], s: &str) {
    let n = s.len().min(dst.len() - 1);
    for (d, b) in dst.iter_mut().zip(s.bytes().take(n)) {
        *d = b as c_char;
    }
    dst[n] = 0;
}

// ---- Devices ------------------------------------------------------------------------------------

unsafe extern "C" fn enumerate_vulkan_devices(entries: *mut VSVulkanDeviceListEntry, max: c_int, e: E, s: c_int) -> c_int {
    guard("enumerateVulkanDevices", || match crate::gpu::device::enumerate() {
        Err(m) => {
            fail("enumerateVulkanDevices", e, s, &m);
            -1
        }
        Ok(list) => {
            if !entries.is_null() {
                for (i, d) in list.iter().enumerate().take(max.max(0) as usize) {
                    // SAFETY: the caller's array holds `max` entries.
                    let out = unsafe { &mut *entries.add(i) };
                    // SAFETY: plain data.
                    *out = unsafe { std::mem::zeroed() };
                    cstr_into(&mut out.deviceName, &d.name);
                    out.apiVersion = d.api_version;
                    out.deviceType = d.device_type.as_raw();
                    out.deviceMemory = d.device_memory;
                    out.usable = d.usable.is_ok() as c_int;
                    cstr_into(&mut out.unusableReason, d.usable.as_ref().err().map_or("", |s| s.as_str()));
                    out.deviceUUID = d.uuid;
                    out.deviceLUID = d.luid;
                    out.deviceNodeMask = d.node_mask;
                    out.deviceLUIDValid = d.luid_valid as c_int;
                }
            }
            list.len() as c_int
        }
    })
}

unsafe extern "C" fn set_vulkan_device(c: C, index: c_int, e: E, s: c_int) -> c_int {
    guard("setVulkanDevice", || match core("setVulkanDevice", c).gpu.select(core("setVulkanDevice", c), index) {
        Ok(()) => 0,
        Err(m) => {
            fail("setVulkanDevice", e, s, &m);
            1
        }
    })
}

unsafe extern "C" fn get_vulkan_core_info(c: C, info: *mut VSVulkanCoreInfo, e: E, s: c_int) -> c_int {
    guard("getVulkanCoreInfo", || {
        super::req_ptr("getVulkanCoreInfo", "info", info);
        let Some(d) = device("getVulkanCoreInfo", c, e, s) else { return 1 };
        // SAFETY: the caller's struct; plain data.
        let out = unsafe { &mut *info };
        // SAFETY: plain data.
        *out = unsafe { std::mem::zeroed() };
        cstr_into(&mut out.deviceName, &d.name);
        out.deviceMemory = d.info.device_memory;
        out.budget = d.budget;
        out.allocated = d.pool.allocated();
        out.limit = d.pool.limit.load(std::sync::atomic::Ordering::Relaxed);
        out.deviceUUID = d.info.uuid;
        out.deviceLUID = d.info.luid;
        out.deviceNodeMask = d.info.node_mask;
        out.deviceLUIDValid = d.info.luid_valid as c_int;
        out.exportHandleType = d.export_memory_type();
        out.semaphoreExportHandleType = d.export_semaphore_type();
        out.unifiedMemory = d.unified as c_int;
        0
    })
}

unsafe extern "C" fn set_max_vram_use(bytes: i64, c: C) -> i64 {
    guard("setMaxVRAMUse", || {
        let Some(d) = device("setMaxVRAMUse", c, ptr::null_mut(), 0) else { return 0 };
        if bytes > 0 {
            d.pool.limit.store(bytes.max(crate::gpu::device::LIMIT_FLOOR), std::sync::atomic::Ordering::Relaxed);
            if d.pool.over_limit() {
                crate::gpu::relieve(&d);
            }
        }
        d.pool.limit.load(std::sync::atomic::Ordering::Relaxed)
    })
}

// ---- Raw Vulkan access --------------------------------------------------------------------------

unsafe extern "C" fn get_vulkan_handles(c: C, h: *mut VSVulkanCoreHandles, e: E, s: c_int) -> c_int {
    guard("getVulkanHandles", || {
        super::req_ptr("getVulkanHandles", "handles", h);
        let Some(d) = device("getVulkanHandles", c, e, s) else { return 1 };
        // SAFETY: the caller's struct.
        unsafe {
            *h = VSVulkanCoreHandles {
                instance: d.instance.instance.handle(),
                physicalDevice: d.pdev,
                device: d.device.handle(),
                getInstanceProcAddr: Some(d.get_instance_proc_addr),
                computeQueueFamily: d.compute.family,
                computeQueueIndex: d.compute.index,
                transferQueueFamily: d.transfer.family,
                transferQueueIndex: d.transfer.index,
            }
        };
        0
    })
}

unsafe extern "C" fn get_vulkan_functions(c: C, e: E, s: c_int) -> *const VSVulkanFunctions {
    guard("getVulkanFunctions", || match device("getVulkanFunctions", c, e, s) {
        // The table lives in the device, which the core keeps for its lifetime.
        Some(d) => &*d.functions as *const VSVulkanFunctions,
        None => ptr::null(),
    })
}

unsafe extern "C" fn lock_vulkan_queue(c: C, q: c_int) {
    guard("lockVulkanQueue", || match device("lockVulkanQueue", c, ptr::null_mut(), 0) {
        Some(d) => {
            if q != vqTransfer {
                d.filter_kernels.queue_locked();
            }
            d.queue(q).lock()
        }
        None => fatal("lockVulkanQueue: no Vulkan device"),
    })
}

unsafe extern "C" fn unlock_vulkan_queue(c: C, q: c_int) {
    guard("unlockVulkanQueue", || match core("unlockVulkanQueue", c).gpu.existing() {
        // SAFETY: the caller holds the lock by the API's contract.
        Some(d) => unsafe { d.queue(q).unlock() },
        None => fatal("unlockVulkanQueue: no Vulkan device"),
    })
}

// ---- GPU frames ---------------------------------------------------------------------------------

unsafe extern "C" fn new_gpu_video_frame(fmt: *const VSVideoFormat, w: c_int, h: c_int, prop_src: F, c: C) -> *mut VSFrame {
    guard("newGPUVideoFrame", || {
        super::req_ptr("newGPUVideoFrame", "format", fmt);
        let core = core("newGPUVideoFrame", c);
        let d = match core.gpu.device(core) {
            Ok(d) => d,
            Err(m) => {
                core.log_message(mtWarning, &format!("GPU frame requested but no Vulkan device: {m}"));
                return ptr::null_mut();
            }
        };
        // SAFETY: checked non-null.
        let f = match crate::gpu::frame::new_frame(&d, &core.mem, unsafe { &*fmt }, w, h, true) {
            Ok(f) => f,
            Err(m) if m.starts_with("Error in frame creation") => fatal(&format!("newGPUVideoFrame: {m}")),
            Err(m) => {
                core.log_message(mtWarning, &format!("newGPUVideoFrame: {m}"));
                return ptr::null_mut();
            }
        };
        if !prop_src.is_null() {
            // SAFETY: `f` is new; `prop_src` is a live frame.
            unsafe { *f.props_mut() = Frame::borrow_raw(prop_src).props().clone() };
        }
        Frame::into_raw(Arc::new(f)) as *mut VSFrame
    })
}

unsafe extern "C" fn get_gpu_plane(f: F, plane: c_int, info: *mut VSVulkanPlaneInfo) -> c_int {
    guard("getGPUPlane", || {
        let fr = frame("getGPUPlane", f);
        let Some(g) = gpu_plane(fr, plane) else { return 1 };
        if !info.is_null() {
            let p = g.producer();
            // SAFETY: the caller's struct.
            unsafe {
                *info = VSVulkanPlaneInfo {
                    buffer: g.buffer(),
                    bufferSize: g.size,
                    readySemaphore: p.timeline.as_ref().map_or(vk::Semaphore::null(), |t| t.sem),
                    readyValue: if p.timeline.is_some() { p.value } else { 0 },
                }
            };
        }
        0
    })
}

unsafe extern "C" fn set_gpu_plane_producer(f: F, plane: c_int, t: Tl, value: u64) {
    guard("setGPUPlaneProducer", || {
        let fr = frame("setGPUPlaneProducer", f);
        let Some(g) = gpu_plane(fr, plane) else {
            fatal(&format!("setGPUPlaneProducer: plane {plane} of the frame is not a GPU resident plane"));
        };
        if !owns_plane(fr, plane) {
            fatal(&format!(
                "setGPUPlaneProducer called on plane {plane} of a frame that shares it with another frame; a GPU plane has no copy on write, so the write would land in the other frame too. Take a new frame with the properties of the old one instead of copying it."
            ));
        }
        if t.is_null() {
            g.set_producer(None, 0);
            return;
        }
        let tl = timeline("setGPUPlaneProducer", t);
        if let Some(sub) = &tl.pool_submitted {
            if value > sub.load(std::sync::atomic::Ordering::Acquire) {
                fatal("setGPUPlaneProducer published a value on an exec pool's timeline that the pool has not submitted");
            }
        }
        g.set_producer(Some(timeline_arc("setGPUPlaneProducer", t)), value);
    })
}

// ---- Timelines ----------------------------------------------------------------------------------

unsafe extern "C" fn create_gpu_timeline(c: C, e: E, s: c_int) -> Tl {
    guard("createGPUTimeline", || {
        let Some(d) = device("createGPUTimeline", c, e, s) else { return ptr::null_mut() };
        match Timeline::new(&d, None) {
            Ok(t) => Arc::into_raw(t).cast_mut().cast(),
            Err(m) => {
                fail("createGPUTimeline", e, s, &m);
                ptr::null_mut()
            }
        }
    })
}

unsafe extern "C" fn free_gpu_timeline(t: Tl) {
    guard("freeGPUTimeline", || {
        if !t.is_null() {
            // SAFETY: one reference the caller gives up.
            drop(unsafe { Arc::from_raw(t.cast::<Timeline>()) });
        }
    })
}

unsafe extern "C" fn add_gpu_timeline_ref(t: Tl) {
    guard("addGPUTimelineRef", || std::mem::forget(timeline_arc("addGPUTimelineRef", t)))
}

unsafe extern "C" fn get_gpu_timeline_semaphore(t: Tl) -> vk::Semaphore {
    guard("getGPUTimelineSemaphore", || timeline("getGPUTimelineSemaphore", t).sem)
}

unsafe extern "C" fn gpu_timeline_wait_value(t: Tl, value: u64, e: E, s: c_int) -> c_int {
    guard("gpuTimelineWaitValue", || {
        let tl = timeline("gpuTimelineWaitValue", t);
        crate::gpu::exec::forbid_in_release("gpuTimelineWaitValue");
        if let Some(sub) = &tl.pool_submitted {
            if value > sub.load(std::sync::atomic::Ordering::Acquire) {
                fatal("gpuTimelineWaitValue called with a value past everything the pool submitted on this timeline");
            }
        }
        let (code, msg) = outcome_code(&crate::gpu::exec::wait_value(&tl.dev, tl.sem, value));
        if let Some(m) = msg {
            fail("gpuTimelineWaitValue", e, s, &m);
        }
        code
    })
}

// ---- Pooled device memory -------------------------------------------------------------------------

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn create_gpu_buffer(
    c: C,
    size: vk::DeviceSize,
    usage: vk::BufferUsageFlags,
    required: vk::MemoryPropertyFlags,
    preferred: vk::MemoryPropertyFlags,
    info: *mut VSVulkanBufferInfo,
    e: E,
    s: c_int,
) -> *mut VSGPUBuffer {
    guard("createGPUBuffer", || {
        let Some(d) = device("createGPUBuffer", c, e, s) else { return ptr::null_mut() };
        match GpuBuffer::new(&d, size, usage, required, preferred) {
            Ok(b) => {
                if !info.is_null() {
                    let pb = b.get();
                    let address = if pb.usage.contains(vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS) && usage.contains(vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS) {
                        // SAFETY: a buffer with the device address usage on a bufferDeviceAddress device.
                        unsafe { d.device.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(pb.buffer)) }
                    } else {
                        0
                    };
                    let flags = pb.region.flags();
                    // SAFETY: the caller's struct.
                    unsafe {
                        *info = VSVulkanBufferInfo {
                            buffer: pb.buffer,
                            address,
                            mapped: if flags.contains(vk::MemoryPropertyFlags::HOST_VISIBLE) { pb.mapped().cast() } else { ptr::null_mut() },
                            size,
                            memoryFlags: flags,
                        }
                    };
                }
                Box::into_raw(Box::new(b)).cast()
            }
            Err(m) => {
                fail("createGPUBuffer", e, s, &m);
                ptr::null_mut()
            }
        }
    })
}

unsafe extern "C" fn destroy_gpu_buffer(b: *mut VSGPUBuffer) {
    guard("destroyGPUBuffer", || {
        if !b.is_null() {
            // SAFETY: a buffer from createGPUBuffer, given back.
            drop(unsafe { Box::from_raw(b.cast::<GpuBuffer>()) });
        }
    })
}

unsafe extern "C" fn allocate_gpu_memory(
    c: C,
    req: *const vk::MemoryRequirements,
    required: vk::MemoryPropertyFlags,
    preferred: vk::MemoryPropertyFlags,
    info: *mut VSVulkanMemoryInfo,
    e: E,
    s: c_int,
) -> *mut VSGPUMemory {
    guard("allocateGPUMemory", || {
        super::req_ptr("allocateGPUMemory", "requirements", req);
        let Some(d) = device("allocateGPUMemory", c, e, s) else { return ptr::null_mut() };
        // SAFETY: checked non-null.
        match GpuMemory::new(&d, unsafe { *req }, required, preferred) {
            Ok(m) => {
                if !info.is_null() {
                    let r = m.region.as_ref().expect("live region");
                    let delta = m.bind_offset - r.offset();
                    let mapped = r.mapped();
                    // SAFETY: the caller's struct; the mapping covers the region.
                    unsafe {
                        *info = VSVulkanMemoryInfo {
                            memory: r.memory(),
                            offset: m.bind_offset,
                            size: r.size() - delta,
                            mapped: if mapped.is_null() { ptr::null_mut() } else { mapped.add(delta as usize).cast() },
                            memoryFlags: r.flags(),
                        }
                    };
                }
                Box::into_raw(Box::new(m)).cast()
            }
            Err(m) => {
                fail("allocateGPUMemory", e, s, &m);
                ptr::null_mut()
            }
        }
    })
}

unsafe extern "C" fn free_gpu_memory(m: *mut VSGPUMemory) {
    guard("freeGPUMemory", || {
        if !m.is_null() {
            // SAFETY: a region from allocateGPUMemory, given back.
            drop(unsafe { Box::from_raw(m.cast::<GpuMemory>()) });
        }
    })
}

unsafe extern "C" fn reserve_gpu_memory(c: C, bytes: i64, e: E, s: c_int) -> *mut VSGPUMemoryReservation {
    guard("reserveGPUMemory", || {
        let Some(d) = device("reserveGPUMemory", c, e, s) else { return ptr::null_mut() };
        let r = Box::new(Reservation { dev: d, bytes: parking_lot::Mutex::new(0) });
        r.update(bytes);
        Box::into_raw(r).cast()
    })
}

unsafe extern "C" fn update_gpu_memory_reservation(r: *mut VSGPUMemoryReservation, bytes: i64) {
    guard("updateGPUMemoryReservation", || {
        if r.is_null() {
            fatal("updateGPUMemoryReservation: reservation is NULL");
        }
        // SAFETY: a live reservation.
        unsafe { &*r.cast::<Reservation>() }.update(bytes);
    })
}

unsafe extern "C" fn release_gpu_memory_reservation(r: *mut VSGPUMemoryReservation) {
    guard("releaseGPUMemoryReservation", || {
        if !r.is_null() {
            // SAFETY: given back.
            drop(unsafe { Box::from_raw(r.cast::<Reservation>()) });
        }
    })
}

// ---- Shaders ------------------------------------------------------------------------------------

unsafe extern "C" fn compile_gpu_shader(c: C, language: c_int, source: *const c_char, e: E, s: c_int) -> *mut VSGPUShader {
    guard("compileGPUShader", || {
        let core = core("compileGPUShader", c);
        if language != slGLSL {
            fail("compileGPUShader", e, s, &format!("unknown shader language {language}, this core only knows GLSL ({slGLSL})"));
            return ptr::null_mut();
        }
        let src = super::lossy(super::req_str("compileGPUShader", "source", source));
        match crate::gpu::shader::compile(&core.gpu.shaders, &src) {
            Ok(words) => Box::into_raw(Box::new(words)).cast(),
            Err(m) => {
                fail("compileGPUShader", e, s, &m);
                ptr::null_mut()
            }
        }
    })
}

unsafe extern "C" fn get_gpu_shader_code(sh: *const VSGPUShader, size: *mut usize) -> *const u32 {
    guard("getGPUShaderCode", || {
        if sh.is_null() {
            fatal("getGPUShaderCode: shader is NULL");
        }
        // SAFETY: a shader from compileGPUShader.
        let words = unsafe { &*sh.cast::<Arc<[u32]>>() };
        if !size.is_null() {
            // SAFETY: the caller's out parameter.
            unsafe { *size = words.len() * 4 };
        }
        words.as_ptr()
    })
}

unsafe extern "C" fn free_gpu_shader(sh: *mut VSGPUShader) {
    guard("freeGPUShader", || {
        if !sh.is_null() {
            // SAFETY: given back.
            drop(unsafe { Box::from_raw(sh.cast::<Arc<[u32]>>()) });
        }
    })
}

// ---- Exec pools ---------------------------------------------------------------------------------

unsafe extern "C" fn create_gpu_exec_pool(c: C, queue: c_int, e: E, s: c_int) -> Pool {
    guard("createGPUExecPool", || {
        crate::gpu::exec::forbid_in_release("createGPUExecPool");
        let Some(d) = device("createGPUExecPool", c, e, s) else { return ptr::null_mut() };
        let threads = core("createGPUExecPool", c).threads();
        // Filters' pools on the compute queue take the kernel queues in turn, one per filter
        // created (device.rs, kernel_queues_wanted); others stay on the compute queue.
        let made = if queue == vqTransfer {
            PoolInner::create(&d, queue, threads).map(|p| (p, None))
        } else {
            let turn = crate::plugin::kernel_turn_for_invocation(|| d.next_kernel_turn()).unwrap_or(0);
            PoolInner::create_on(&d, d.kernel_queue(turn).clone(), true, threads).map(|p| (p, Some(d.filter_kernels.pool_made())))
        };
        match made {
            Ok((pool, kernels)) => Box::into_raw(Box::new(PoolHandle { pool, _kernels: kernels })).cast(),
            Err(m) => {
                fail("createGPUExecPool", e, s, &m);
                ptr::null_mut()
            }
        }
    })
}

unsafe extern "C" fn free_gpu_exec_pool(p: Pool) {
    guard("freeGPUExecPool", || {
        if p.is_null() {
            return;
        }
        crate::gpu::exec::forbid_in_release("freeGPUExecPool");
        // SAFETY: given back.
        let h = unsafe { Box::from_raw(p.cast::<PoolHandle>()) };
        h.pool.clone().destroy();
    })
}

fn drain_result(call: &str, o: crate::gpu::exec::WaitOutcome, e: E, s: c_int) -> c_int {
    let (code, msg) = outcome_code(&o);
    if let Some(m) = msg {
        fail(call, e, s, &m);
    }
    code
}

unsafe extern "C" fn gpu_exec_pool_wait_idle(p: Pool, e: E, s: c_int) -> c_int {
    guard("gpuExecPoolWaitIdle", || {
        let pool = exec_pool("gpuExecPoolWaitIdle", p);
        let _t = crate::stats::time(crate::stats::Stat::PluginWait);
        drain_result("gpuExecPoolWaitIdle", pool.wait_idle("gpuExecPoolWaitIdle"), e, s)
    })
}

unsafe extern "C" fn gpu_exec_wait_value(p: Pool, value: u64, e: E, s: c_int) -> c_int {
    guard("gpuExecWaitValue", || {
        let pool = exec_pool("gpuExecWaitValue", p);
        let _t = crate::stats::time(crate::stats::Stat::PluginWait);
        drain_result("gpuExecWaitValue", pool.wait_value(value), e, s)
    })
}

unsafe extern "C" fn gpu_exec_pool_timeline(p: Pool) -> Tl {
    guard("gpuExecPoolTimeline", || {
        if p.is_null() {
            fatal("gpuExecPoolTimeline: pool is NULL");
        }
        // SAFETY: a live pool handle; the pool holds its timeline's reference.
        let h = unsafe { &*p.cast::<PoolHandle>() };
        Arc::as_ptr(&h.pool.timeline).cast_mut().cast()
    })
}

// ---- Recording contexts ---------------------------------------------------------------------------

unsafe extern "C" fn gpu_exec_acquire(p: Pool, e: E, s: c_int) -> Ctx {
    guard("gpuExecAcquire", || {
        let pool = exec_pool("gpuExecAcquire", p);
        match pool.acquire() {
            Ok(slot) => (slot as *const Slot).cast_mut().cast(),
            Err(m) => {
                fail("gpuExecAcquire", e, s, &m);
                ptr::null_mut()
            }
        }
    })
}

unsafe extern "C" fn gpu_exec_command_buffer(c: Ctx) -> vk::CommandBuffer {
    guard("gpuExecCommandBuffer", || {
        let (slot, pool) = context("gpuExecCommandBuffer", c);
        pool.check_owner(slot, "gpuExecCommandBuffer");
        slot.cb
    })
}

unsafe extern "C" fn gpu_exec_reads_frame(c: Ctx, f: F) {
    guard("gpuExecReadsFrame", || {
        let (slot, pool) = context("gpuExecReadsFrame", c);
        frame("gpuExecReadsFrame", f);
        // SAFETY: a live frame; the context takes its own reference.
        pool.reads_frame(slot, unsafe { Frame::clone_raw(f) });
    })
}

unsafe extern "C" fn gpu_exec_writes_plane(c: Ctx, f: *mut VSFrame, plane: c_int) {
    guard("gpuExecWritesPlane", || {
        let (slot, pool) = context("gpuExecWritesPlane", c);
        frame("gpuExecWritesPlane", f);
        // SAFETY: a live frame.
        pool.writes_plane(slot, unsafe { Frame::clone_raw(f) }, plane);
    })
}

unsafe extern "C" fn gpu_exec_uses_buffer(c: Ctx, b: *mut VSGPUBuffer) {
    guard("gpuExecUsesBuffer", || {
        let (slot, pool) = context("gpuExecUsesBuffer", c);
        if b.is_null() {
            return;
        }
        // SAFETY: ownership transfers to the context.
        let b = unsafe { Box::from_raw(b.cast::<GpuBuffer>()) };
        let bytes = b.get().region.size();
        pool.retain(slot, "gpuExecUsesBuffer", Retained::Buffer(b), bytes);
    })
}

unsafe extern "C" fn gpu_exec_uses_memory(c: Ctx, m: *mut VSGPUMemory) {
    guard("gpuExecUsesMemory", || {
        let (slot, pool) = context("gpuExecUsesMemory", c);
        if m.is_null() {
            return;
        }
        // SAFETY: ownership transfers to the context.
        let m = unsafe { Box::from_raw(m.cast::<GpuMemory>()) };
        let bytes = m.region.as_ref().map_or(0, |r| r.size());
        pool.retain(slot, "gpuExecUsesMemory", Retained::Memory(m), bytes);
    })
}

unsafe extern "C" fn gpu_exec_retain(c: Ctx, release: VSGPUReleaseFunc, object: *mut c_void, bytes: vk::DeviceSize) {
    guard("gpuExecRetain", || {
        let (slot, pool) = context("gpuExecRetain", c);
        pool.retain(slot, "gpuExecRetain", Retained::Callback(release, SendPtr(object)), bytes);
    })
}

unsafe extern "C" fn gpu_exec_submit(c: Ctx, signaled: *mut u64, e: E, s: c_int) -> c_int {
    guard("gpuExecSubmit", || {
        let (slot, pool) = context("gpuExecSubmit", c);
        match pool.submit(slot) {
            Ok(v) => {
                if !signaled.is_null() {
                    // SAFETY: the caller's out parameter.
                    unsafe { *signaled = v };
                }
                0
            }
            Err(m) => {
                fail("gpuExecSubmit", e, s, &m);
                1
            }
        }
    })
}

unsafe extern "C" fn gpu_exec_abandon(c: Ctx) {
    guard("gpuExecAbandon", || {
        let (slot, pool) = context("gpuExecAbandon", c);
        pool.abandon(slot);
    })
}

// ---- Interop ------------------------------------------------------------------------------------

unsafe extern "C" fn export_gpu_plane(f: F, plane: c_int, out: *mut VSVulkanExportedMemory, e: E, s: c_int) -> c_int {
    guard("exportGPUPlane", || {
        super::req_ptr("exportGPUPlane", "out", out);
        match crate::gpu::export::export_plane(frame("exportGPUPlane", f), plane) {
            Ok(x) => {
                // SAFETY: the caller's struct.
                unsafe {
                    *out = VSVulkanExportedMemory {
                        memoryId: x.memory_id,
                        memorySize: x.memory_size,
                        memoryTypeIndex: x.type_index,
                        offset: x.offset,
                        size: x.size,
                        handleType: x.handle_type,
                        handle: x.handle,
                    }
                };
                0
            }
            Err(m) => {
                fail("exportGPUPlane", e, s, &m);
                1
            }
        }
    })
}

unsafe extern "C" fn export_gpu_semaphore(c: C, sem: vk::Semaphore, out: *mut VSVulkanExportedSemaphore, e: E, s: c_int) -> c_int {
    guard("exportGPUSemaphore", || {
        super::req_ptr("exportGPUSemaphore", "out", out);
        let Some(d) = device("exportGPUSemaphore", c, e, s) else { return 1 };
        match crate::gpu::export::export_semaphore(&d, sem) {
            Ok((ty, handle)) => {
                // SAFETY: the caller's struct.
                unsafe { *out = VSVulkanExportedSemaphore { handleType: ty, handle } };
                0
            }
            Err(m) => {
                fail("exportGPUSemaphore", e, s, &m);
                1
            }
        }
    })
}

unsafe extern "C" fn wait_gpu_frame(f: F, e: E, s: c_int) -> c_int {
    guard("waitGPUFrame", || {
        frame("waitGPUFrame", f);
        // SAFETY: a live frame.
        let fr = unsafe { Frame::clone_raw(f) };
        let _t = crate::stats::time(crate::stats::Stat::PluginWait);
        match crate::gpu::export::wait_frame(&fr) {
            Ok(()) => 0,
            Err((code, m)) => {
                fail("waitGPUFrame", e, s, &m);
                if code == gdDrained {
                    gdIncomplete
                } else {
                    code
                }
            }
        }
    })
}

unsafe extern "C" fn get_exportable_frame_filter(n: c_int, node: *mut VSNode, ctx: *mut VSFrameContext, e: E, s: c_int) -> F {
    guard("getExportableFrameFilter", || {
        // SAFETY: forwarded to getFrameFilter, which checks its arguments.
        let f = unsafe { super::node_api::get_frame_filter(n, node, ctx) };
        if f.is_null() {
            fail("getExportableFrameFilter", e, s, "The frame was not requested, or the request failed");
            return ptr::null();
        }
        // SAFETY: the reference getFrameFilter returned, now ours.
        let src = unsafe { Frame::from_raw(f) };
        let planes: Vec<_> = (0..src.num_planes() as i32).map(|p| gpu_plane(&src, p)).collect();
        if src.is_audio() || planes.iter().any(Option::is_none) {
            fail("getExportableFrameFilter", e, s, "getExportableFrameFilter needs a GPU resident video frame");
            return ptr::null();
        }
        // Always a copy of its own: the input is the foreign API's for good, which must not reach
        // a frame anyone else (a cache, another consumer) holds.
        let dev = planes[0].expect("checked").dev.clone();
        let stats = Arc::new(crate::frame::MemStats::default());
        let r = crate::gpu::transfer::Transfer::new(&dev, 2).and_then(|t| t.exportable_copy(&stats, &src));
        match r {
            Ok(x) => {
                for p in 0..x.num_planes() as i32 {
                    if let Some(g) = gpu_plane(&x, p) {
                        g.owner.store(crate::gpu::frame::OWNER_FOREIGN, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                Frame::into_raw(x)
            }
            Err(m) => {
                fail("getExportableFrameFilter", e, s, &m);
                ptr::null()
            }
        }
    })
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

/// # Safety
/// Callable from C at any time; the table is static.
pub unsafe extern "C" fn get_vulkan_api() -> *const vsvk_plugin_api::abi::VSVULKANAPI {
    (&TABLE as *const VSVULKANAPI).cast()
}
