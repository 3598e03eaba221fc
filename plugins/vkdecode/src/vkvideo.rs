//! The Vulkan Video path: pictures decoded by the GPU's video engine become GPU frames without
//! leaving the GPU.
//!
//! The core's device carries no video extensions (the GPU guide fixes its extension set), so
//! FFmpeg decodes on a device of its own on the same GPU (the shim checks the UUID), and pictures
//! cross over the way the guide prescribes for a second device: per frame the core exports the
//! plane of a carrier frame (a Gray frame holding the luma rows, then the interleaved chroma rows,
//! as NV12/P010 store them), FFmpeg's device copies the picture into it and signals a timeline of
//! ours that the core exported once; the carrier's producer pair names that value. The carriers are
//! the frames of an inner filter (the decoder); a second filter, the clip the user gets, splits each
//! carrier into Y, U and V with a compute pass on the core's queue (its exec pool), shifting P010's
//! high-aligned samples down, and publishes their producer pairs. Two filters, because an exported
//! plane is the foreign API's until a frame holding it is returned from getFrame: the filter that
//! exports a plane may not also record work on it.
//! The decoder's picture goes back to FFmpeg as soon as the copy is submitted (FFmpeg's next write
//! to it waits for the copy), so the decoder's surface pool only holds what its cache holds.
use std::ffi::c_char;
use std::os::fd::{FromRawFd, OwnedFd};

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::gpu::{ExecPool, Gpu, PipelineId};
use vsvk_plugin_api::vulkan::*;
use vsvk_plugin_api::{Error, Result};

use crate::source::{Decoded, HwDevice, HwTarget, Info, Source};

const SPLIT: &str = r#"#version 460
// One output word (4 bytes of 8-bit samples, 2 of 16-bit ones) per invocation, so that no two
// invocations write the same word. mode 0: luma rows; 1 and 2: U and V out of interleaved rows.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform P {
    uint mode, wide, shift, words, rows, src_stride, dst_stride, src_row0;
} p;
uint at(uint i) { return i < uint(src.length()) ? src[i] : 0u; }
void main() {
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x >= p.words || y >= p.rows) return;
    uint s = (p.src_row0 + y) * p.src_stride;
    uint v;
    if (p.mode == 0u) {
        uint w = at(s + x);
        v = p.wide == 0u ? w : (((w & 0xffffu) >> p.shift) | (((w >> 16) >> p.shift) << 16));
    } else {
        uint a = at(s + 2u * x), b = at(s + 2u * x + 1u);
        if (p.wide == 0u) {
            uint o = p.mode == 1u ? 0u : 8u;
            v = ((a >> o) & 0xffu) | (((a >> (o + 16u)) & 0xffu) << 8) | (((b >> o) & 0xffu) << 16) | (((b >> (o + 16u)) & 0xffu) << 24);
        } else {
            uint o = p.mode == 1u ? 0u : 16u;
            v = (((a >> o) & 0xffffu) >> p.shift) | ((((b >> o) & 0xffffu) >> p.shift) << 16);
        }
    }
    dst[y * p.dst_stride + x] = v;
}
"#;

fn buf() -> [c_char; 1024] {
    [0; 1024]
}

fn text(b: &[c_char]) -> String {
    let bytes: Vec<u8> = b.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Where FFmpeg should decode: the core's GPU (its index in the core instance's list, which a
/// fresh instance lists in the same order, and its UUID, which the shim checks), or why not.
pub fn hw_device(gpu: &Gpu) -> std::result::Result<HwDevice, String> {
    let t = gpu.table();
    let core = gpu.core().as_ptr();
    let mut info = VSVulkanCoreInfo::default();
    let mut e = buf();
    // SAFETY: a valid core, out struct and error buffer.
    if unsafe { (t.getVulkanCoreInfo)(core, &mut info, e.as_mut_ptr(), e.len() as i32) } != 0 {
        return Err(text(&e));
    }
    let mut h = VSVulkanCoreHandles::default();
    // SAFETY: as above.
    if unsafe { (t.getVulkanHandles)(core, &mut h, e.as_mut_ptr(), e.len() as i32) } != 0 {
        return Err(text(&e));
    }
    let gipa = h.getInstanceProcAddr.ok_or("the core gives no vkGetInstanceProcAddr")?;
    let static_fn = ash::StaticFn { get_instance_proc_addr: gipa };
    // SAFETY: the core's live instance with its own loader entry point; only queries are made.
    let instance = unsafe { ash::Instance::load(&static_fn, h.instance) };
    // SAFETY: the core's live instance.
    let list = unsafe { instance.enumerate_physical_devices() }.map_err(|r| format!("vkEnumeratePhysicalDevices failed ({r})"))?;
    let index = list.iter().position(|&p| p == h.physicalDevice).ok_or("the core's GPU is not in its instance's list")?;
    // SAFETY: a physical device of that instance.
    let families = unsafe { instance.get_physical_device_queue_family_properties(h.physicalDevice) };
    if !families.iter().any(|f| f.queue_flags.contains(ash::vk::QueueFlags::VIDEO_DECODE_KHR)) {
        return Err("the core's GPU has no video decode queue".into());
    }
    if info.exportHandleType == 0 || info.semaphoreExportHandleType == 0 {
        return Err("the core's device cannot export memory and semaphores, which the decoder's device needs".into());
    }
    Ok(HwDevice { index: index as i32, uuid: info.deviceUUID })
}

/// A core timeline of ours, released when dropped (frames naming it keep their own references).
struct Timeline(*mut VSGPUTimeline, Gpu);

impl Drop for Timeline {
    fn drop(&mut self) {
        // SAFETY: our reference, released once.
        unsafe { (self.1.table().freeGPUTimeline)(self.0) }
    }
}

/// The decoder's surfaces, declared to the core's VRAM budget (they live on FFmpeg's device).
struct Reservation(*mut VSGPUMemoryReservation, Gpu);

impl Drop for Reservation {
    fn drop(&mut self) {
        // SAFETY: our reservation, released once.
        unsafe { (self.1.table().releaseGPUMemoryReservation)(self.0) }
    }
}

/// The decoder's side: the timeline its copies signal and the carrier format.
pub struct Crossing {
    gpu: Gpu,
    timeline: Timeline,
    pub carrier: VSVideoFormat,
    _reservation: Option<Reservation>,
}

// SAFETY: the timeline and reservation handles are only given back to the core's thread-safe
// functions.
unsafe impl Send for Crossing {}
unsafe impl Sync for Crossing {}

/// The clip's side: the exec pool and pipeline of the split.
pub struct Splitter {
    gpu: Gpu,
    pool: ExecPool,
    split: PipelineId,
    bits: i32,
}

impl Splitter {
    pub fn new(gpu: &Gpu, bits: i32) -> Result<Splitter> {
        let mut pool = gpu.exec_pool()?;
        let split = pool.pipeline(SPLIT, 2, 32)?;
        Ok(Splitter { gpu: *gpu, pool, split, bits })
    }
}

impl Crossing {
    /// Sets up the crossing for `src`, which decodes with Vulkan Video; `surfaces` is how many
    /// decoder pictures may be alive at once (its cache and its reference pictures).
    pub fn new(gpu: &Gpu, src: &mut Source, surfaces: i64) -> Result<Crossing> {
        let info = src.info().clone();
        let core = gpu.core();
        let t = gpu.table();
        let mut e = buf();
        // SAFETY: valid core and error buffer; the timeline is ours until dropped.
        let raw = unsafe { (t.createGPUTimeline)(core.as_ptr(), e.as_mut_ptr(), e.len() as i32) };
        if raw.is_null() {
            return Err(Error::Core { call: "createGPUTimeline", message: text(&e) });
        }
        let timeline = Timeline(raw, *gpu);
        let mut ex = VSVulkanExportedSemaphore::default();
        // SAFETY: our live timeline.
        let sem = unsafe { (t.getGPUTimelineSemaphore)(raw) };
        // SAFETY: the core's own semaphore, a valid out struct and error buffer; the handle is ours.
        if unsafe { (t.exportGPUSemaphore)(core.as_ptr(), sem, &mut ex, e.as_mut_ptr(), e.len() as i32) } != 0 {
            return Err(Error::Core { call: "exportGPUSemaphore", message: text(&e) });
        }
        // SAFETY: a descriptor the export just created, ours alone.
        let fd = unsafe { OwnedFd::from_raw_fd(ex.handle as i32) };
        src.set_timeline(ex.handleType, fd)?;
        let carrier = core
            .query_video_format(cfGray, stInteger, if info.bits > 8 { 16 } else { 8 }, 0, 0)
            .ok_or_else(|| Error::invalid("no Gray format for the decoder's pictures"))?;
        let bytes = surfaces * picture_bytes(&info) as i64;
        // SAFETY: valid core and error buffer; the reservation is ours until dropped.
        let res = unsafe { (t.reserveGPUMemory)(core.as_ptr(), bytes, e.as_mut_ptr(), e.len() as i32) };
        let _reservation = (!res.is_null()).then_some(Reservation(res, *gpu));
        Ok(Crossing { gpu: *gpu, timeline, carrier, _reservation })
    }

    /// Copies `d` out of the decoder (with `src` locked: the copy runs on its device) into a
    /// carrier frame and gives the picture back; `value` is this picture's timeline value, larger
    /// than every earlier one. The carrier is for returning from getFrame, nothing else.
    pub fn take(&self, src: &mut Source, d: Decoded, value: u64) -> Result<FrameMut> {
        let info = src.info();
        let (w, h) = (info.width, info.height);
        let carrier = self.gpu.new_frame(&self.carrier, w, h + h / 2, None)?;
        let t = self.gpu.table();
        let mut m = VSVulkanExportedMemory::default();
        let mut e = buf();
        // SAFETY: a GPU frame we made and hold; the handle comes back to us.
        if unsafe { (t.exportGPUPlane)(carrier.as_ptr(), 0, &mut m, e.as_mut_ptr(), e.len() as i32) } != 0 {
            return Err(Error::Core { call: "exportGPUPlane", message: text(&e) });
        }
        let target = HwTarget {
            handle_type: m.handleType,
            // SAFETY: a descriptor the export just created, ours alone.
            fd: unsafe { OwnedFd::from_raw_fd(m.handle as i32) },
            memory_id: m.memoryId,
            memory_size: m.memorySize,
            memory_type: m.memoryTypeIndex,
            offset: m.offset,
            size: m.size,
            stride: carrier.stride(0) as u64,
            width: w,
            height: h,
            signal: value,
        };
        src.copy_hw(&d, target)?;
        drop(d); // back to the decoder's pool: its next write to the picture waits for the copy
        // SAFETY: our frame and timeline; the copy just submitted signals `value`.
        unsafe { (t.setGPUPlaneProducer)(carrier.as_ptr(), 0, self.timeline.0, value) };
        Ok(carrier)
    }
}

impl Splitter {
    /// The clip's frame from a carrier (with the carrier's properties): Y, U and V split on the
    /// core's queue.
    pub fn split(&self, carrier: &Frame, format: &VSVideoFormat, w: i32, h: i32) -> Result<FrameMut> {
        let mut out = self.gpu.new_frame(format, w, h, Some(carrier))?;
        let src = self.gpu.plane(carrier, 0)?;
        let wide = (self.bits > 8) as u32;
        let bytes = 1 + wide;
        let shift = if wide == 1 { 16 - self.bits as u32 } else { 0 };
        let src_stride = carrier.stride(0) as u32 / 4;
        let mut ex = self.pool.acquire()?;
        ex.reads(carrier);
        for p in 0..3 {
            let dst = self.gpu.plane_mut(&out, p)?;
            let (pw, ph) = (out.width(p) as u32, out.height(p) as u32);
            let words = (pw * bytes).div_ceil(4);
            let row0 = if p == 0 { 0 } else { h as u32 };
            let push = [p as u32, wide, shift, words, ph, src_stride, out.stride(p) as u32 / 4, row0];
            ex.dispatch(self.split, &[src.buffer, dst.buffer], &push, [words.div_ceil(64), ph, 1])?;
            ex.writes(&mut out, p);
        }
        ex.submit()?;
        Ok(out)
    }
}

/// Bytes of one decoder picture (4:2:0, 1 or 2 bytes a sample).
fn picture_bytes(i: &Info) -> u64 {
    let b = if i.bits > 8 { 2 } else { 1 };
    i.width as u64 * i.height as u64 * 3 / 2 * b
}
