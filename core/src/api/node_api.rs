//! VSNode and frame-request entry points.
use std::ffi::{c_char, c_int, c_void};
use std::ptr;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use super::{fatal, guard, lossy, req_str};
use crate::core::Core;
use crate::frame::Frame;
use crate::map::{Map, Value};
use crate::node::{CreationInfo, FilterImpl, MediaInfo, Node};
use crate::scheduler::{self, FrameCall};

fn node<'a>(call: &str, n: *mut VSNode) -> &'a Node {
    if n.is_null() {
        fatal(&format!("{call}: node is NULL"));
    }
    // SAFETY: non-null node pointers are live references by contract.
    unsafe { Node::borrow_raw(n) }
}

fn frame_ctx<'a>(call: &str, ctx: *mut VSFrameContext) -> &'a mut FrameCall<'a> {
    if ctx.is_null() {
        fatal(&format!("{call}: frame context is NULL (only valid inside a filter's getFrame)"));
    }
    // SAFETY: frame contexts are only handed to a filter during its activation.
    unsafe { FrameCall::from_raw(ctx) }
}

/// Checks and builds a filter node; the error names the filter and what was wrong.
#[allow(clippy::too_many_arguments)]
pub(crate) fn make_node(
    name: &str,
    info: MediaInfo,
    get_frame: Option<VSFilterGetFrame>,
    free: VSFilterFree,
    mode: c_int,
    flags: c_int,
    deps: *const VSFilterDependency,
    num_deps: c_int,
    instance: *mut c_void,
    core: &Core,
) -> Result<Arc<Node>, String> {
    let Some(get_frame) = get_frame else {
        return Err(format!("{name}: no getFrame function given"));
    };
    if !(fmParallel..=fmFrameState).contains(&mode) {
        return Err(format!("{name}: invalid filter mode {mode}"));
    }
    if flags & !ffGPUOutput != 0 {
        return Err(format!("{name}: unknown filter flags {flags:#x}"));
    }
    if flags & ffGPUOutput != 0 && matches!(info, MediaInfo::Audio(_)) {
        return Err(format!("{name}: audio filters cannot produce GPU frames"));
    }
    match &info {
        MediaInfo::Video(vi) => {
            if vi.format.colorFamily != cfUndefined && !crate::format::is_valid_video(&vi.format) {
                return Err(format!("{name}: the video format is invalid"));
            }
            if vi.numFrames <= 0 {
                return Err(format!("{name}: the clip must have at least one frame (numFrames is {})", vi.numFrames));
            }
            if vi.width < 0 || vi.height < 0 || (vi.width == 0) != (vi.height == 0) {
                return Err(format!("{name}: invalid dimensions {}x{}", vi.width, vi.height));
            }
            if vi.width > 0 && (vi.width % (1 << vi.format.subSamplingW) != 0 || vi.height % (1 << vi.format.subSamplingH) != 0) {
                return Err(format!("{name}: dimensions {}x{} are not a multiple of the format's subsampling", vi.width, vi.height));
            }
            if vi.fpsNum < 0 || vi.fpsDen < 0 || (vi.fpsNum == 0) != (vi.fpsDen == 0) {
                return Err(format!("{name}: invalid frame rate {}/{}", vi.fpsNum, vi.fpsDen));
            }
        }
        MediaInfo::Audio(ai) => {
            if !crate::format::is_valid_audio(&ai.format) {
                return Err(format!("{name}: the audio format is invalid"));
            }
            if ai.numSamples <= 0 {
                return Err(format!("{name}: the clip must have at least one sample"));
            }
            if let Some(e) = crate::node::audio_length_error(name, ai.numSamples) {
                return Err(e);
            }
            if ai.sampleRate <= 0 {
                return Err(format!("{name}: invalid sample rate {}", ai.sampleRate));
            }
        }
    }
    let mut dep_list = Vec::new();
    if num_deps > 0 {
        if deps.is_null() {
            return Err(format!("{name}: {num_deps} dependencies declared but none given"));
        }
        for i in 0..num_deps as usize {
            // SAFETY: `deps` holds `num_deps` entries by contract.
            let d = unsafe { *deps.add(i) };
            if d.source.is_null() {
                return Err(format!("{name}: dependency {i} is NULL"));
            }
            if !(rpGeneral..=rpFrameReuseLastOnly).contains(&d.requestPattern) {
                return Err(format!("{name}: dependency {i} has an invalid request pattern {}", d.requestPattern));
            }
            // SAFETY: a live node reference of the caller's; we take our own.
            dep_list.push((unsafe { Node::clone_raw(d.source) }, d.requestPattern));
        }
    }
    let core = core.arc();
    let creation = crate::plugin::creation_stack(&core);
    Ok(Node::new(core, name, info, FilterImpl::C { get_frame, free, instance_data: instance }, mode, flags, dep_list, creation))
}

#[allow(clippy::too_many_arguments)]
fn create_into_map(
    call: &str,
    out: *mut VSMap,
    name: *const c_char,
    info: MediaInfo,
    get_frame: Option<VSFilterGetFrame>,
    free: VSFilterFree,
    mode: c_int,
    flags: c_int,
    deps: *const VSFilterDependency,
    num_deps: c_int,
    instance: *mut c_void,
    c: *mut VSCore,
) {
    super::req_ptr(call, "out map", out);
    super::req_ptr(call, "core", c);
    let name = lossy(req_str(call, "name", name));
    // SAFETY: checked non-null; a live core.
    let core = unsafe { Core::borrow_raw(c) };
    // SAFETY: the caller's output map.
    let out = unsafe { &mut *out.cast::<Map>() };
    match make_node(&name, info, get_frame, free, mode, flags, deps, num_deps, instance, core) {
        Ok(n) => {
            if out.set(b"clip", Value::Node(n), true).is_err() {
                out.set_error(&format!("{name}: the output map already holds a clip of another type"));
            }
        }
        // The instance data stays the plugin's: whether it frees it after a failure is its call.
        Err(e) => out.set_error(&e),
    }
}

#[allow(clippy::too_many_arguments)]
fn create_node_ptr(
    call: &str,
    name: *const c_char,
    info: MediaInfo,
    get_frame: Option<VSFilterGetFrame>,
    free: VSFilterFree,
    mode: c_int,
    flags: c_int,
    deps: *const VSFilterDependency,
    num_deps: c_int,
    instance: *mut c_void,
    c: *mut VSCore,
) -> *mut VSNode {
    super::req_ptr(call, "core", c);
    let name = lossy(req_str(call, "name", name));
    // SAFETY: checked non-null; a live core.
    let core = unsafe { Core::borrow_raw(c) };
    match make_node(&name, info, get_frame, free, mode, flags, deps, num_deps, instance, core) {
        Ok(n) => Node::into_raw(n),
        Err(e) => {
            core.log_message(mtCritical, &e);
            ptr::null_mut()
        }
    }
}

fn vinfo(call: &str, vi: *const VSVideoInfo) -> MediaInfo {
    super::req_ptr(call, "video info", vi);
    // SAFETY: checked non-null.
    MediaInfo::Video(unsafe { *vi })
}

fn ainfo(call: &str, ai: *const VSAudioInfo) -> MediaInfo {
    super::req_ptr(call, "audio info", ai);
    // SAFETY: checked non-null.
    let mut ai = unsafe { *ai };
    // numFrames follows from numSamples, whatever the caller wrote there.
    ai.numFrames = ((ai.numSamples + VS_AUDIO_FRAME_SAMPLES as i64 - 1) / VS_AUDIO_FRAME_SAMPLES as i64).clamp(0, i32::MAX as i64) as i32;
    MediaInfo::Audio(ai)
}

pub unsafe extern "C" fn create_video_filter(
    out: *mut VSMap,
    name: *const c_char,
    vi: *const VSVideoInfo,
    gf: Option<VSFilterGetFrame>,
    free: VSFilterFree,
    mode: c_int,
    deps: *const VSFilterDependency,
    nd: c_int,
    inst: *mut c_void,
    c: *mut VSCore,
) {
    guard("createVideoFilter", || {
        create_into_map("createVideoFilter", out, name, vinfo("createVideoFilter", vi), gf, free, mode, 0, deps, nd, inst, c)
    })
}

pub unsafe extern "C" fn create_video_filter2(
    name: *const c_char,
    vi: *const VSVideoInfo,
    gf: Option<VSFilterGetFrame>,
    free: VSFilterFree,
    mode: c_int,
    deps: *const VSFilterDependency,
    nd: c_int,
    inst: *mut c_void,
    c: *mut VSCore,
) -> *mut VSNode {
    guard("createVideoFilter2", || create_node_ptr("createVideoFilter2", name, vinfo("createVideoFilter2", vi), gf, free, mode, 0, deps, nd, inst, c))
}

pub unsafe extern "C" fn create_video_filter_ex(
    out: *mut VSMap,
    name: *const c_char,
    vi: *const VSVideoInfo,
    gf: Option<VSFilterGetFrame>,
    free: VSFilterFree,
    mode: c_int,
    flags: c_int,
    deps: *const VSFilterDependency,
    nd: c_int,
    inst: *mut c_void,
    c: *mut VSCore,
) {
    guard("createVideoFilterEx", || {
        create_into_map("createVideoFilterEx", out, name, vinfo("createVideoFilterEx", vi), gf, free, mode, flags, deps, nd, inst, c)
    })
}

pub unsafe extern "C" fn create_video_filter_ex2(
    name: *const c_char,
    vi: *const VSVideoInfo,
    gf: Option<VSFilterGetFrame>,
    free: VSFilterFree,
    mode: c_int,
    flags: c_int,
    deps: *const VSFilterDependency,
    nd: c_int,
    inst: *mut c_void,
    c: *mut VSCore,
) -> *mut VSNode {
    guard("createVideoFilterEx2", || {
        create_node_ptr("createVideoFilterEx2", name, vinfo("createVideoFilterEx2", vi), gf, free, mode, flags, deps, nd, inst, c)
    })
}

pub unsafe extern "C" fn create_audio_filter(
    out: *mut VSMap,
    name: *const c_char,
    ai: *const VSAudioInfo,
    gf: Option<VSFilterGetFrame>,
    free: VSFilterFree,
    mode: c_int,
    deps: *const VSFilterDependency,
    nd: c_int,
    inst: *mut c_void,
    c: *mut VSCore,
) {
    guard("createAudioFilter", || {
        create_into_map("createAudioFilter", out, name, ainfo("createAudioFilter", ai), gf, free, mode, 0, deps, nd, inst, c)
    })
}

pub unsafe extern "C" fn create_audio_filter2(
    name: *const c_char,
    ai: *const VSAudioInfo,
    gf: Option<VSFilterGetFrame>,
    free: VSFilterFree,
    mode: c_int,
    deps: *const VSFilterDependency,
    nd: c_int,
    inst: *mut c_void,
    c: *mut VSCore,
) -> *mut VSNode {
    guard("createAudioFilter2", || create_node_ptr("createAudioFilter2", name, ainfo("createAudioFilter2", ai), gf, free, mode, 0, deps, nd, inst, c))
}

pub unsafe extern "C" fn set_linear_filter(n: *mut VSNode) -> c_int {
    guard("setLinearFilter", || {
        let nd = node("setLinearFilter", n);
        let mut c = nd.cache.lock();
        c.linear = true;
        // R81's answer: the thread count plus ten (tests/tests/plugin_api.rs holds the two cores'
        // answers against each other)
        nd.core.threads() as c_int + 10
    })
}

pub unsafe extern "C" fn set_cache_mode(n: *mut VSNode, mode: c_int) {
    guard("setCacheMode", || node("setCacheMode", n).cache.lock().set_mode(mode))
}

pub unsafe extern "C" fn set_cache_options(n: *mut VSNode, fixed: c_int, max_size: c_int, max_history: c_int) {
    guard("setCacheOptions", || node("setCacheOptions", n).cache.lock().set_options(fixed, max_size, max_history))
}

pub unsafe extern "C" fn free_node(n: *mut VSNode) {
    guard("freeNode", || {
        if !n.is_null() {
            // SAFETY: the caller gives up one reference.
            drop(unsafe { Node::from_raw(n) });
        }
    })
}

pub unsafe extern "C" fn add_node_ref(n: *mut VSNode) -> *mut VSNode {
    guard("addNodeRef", || {
        node("addNodeRef", n);
        // SAFETY: a live node.
        Node::into_raw(unsafe { Node::clone_raw(n) })
    })
}

pub unsafe extern "C" fn get_node_type(n: *mut VSNode) -> c_int {
    guard("getNodeType", || node("getNodeType", n).media_type())
}

pub unsafe extern "C" fn get_video_info(n: *mut VSNode) -> *const VSVideoInfo {
    guard("getVideoInfo", || node("getVideoInfo", n).video_info().map_or(ptr::null(), |v| v as *const _))
}

pub unsafe extern "C" fn get_audio_info(n: *mut VSNode) -> *const VSAudioInfo {
    guard("getAudioInfo", || node("getAudioInfo", n).audio_info().map_or(ptr::null(), |v| v as *const _))
}

fn write_error(buf: *mut c_char, size: c_int, msg: &str) {
    if buf.is_null() || size <= 0 {
        return;
    }
    let bytes = msg.as_bytes();
    let n = bytes.len().min(size as usize - 1);
    // SAFETY: the caller's buffer holds `size` bytes; we write at most size-1 and a NUL.
    unsafe {
        ptr::copy_nonoverlapping(bytes.as_ptr(), buf.cast::<u8>(), n);
        *buf.add(n) = 0;
    }
}

pub unsafe extern "C" fn get_frame(n: c_int, nd: *mut VSNode, err: *mut c_char, size: c_int) -> *const VSFrame {
    guard("getFrame", || {
        node("getFrame", nd);
        // SAFETY: a live node; the request holds its own reference.
        let nref = unsafe { Node::clone_raw(nd) };
        match scheduler::get_frame(&nref, n) {
            Ok(f) => {
                write_error(err, size, "");
                Frame::into_raw(f)
            }
            Err(e) => {
                write_error(err, size, &e);
                ptr::null()
            }
        }
    })
}

struct SendPtr(*mut c_void);
// SAFETY: the callback's user data is the caller's to use from the thread that completes the frame,
// as getFrameAsync documents.
unsafe impl Send for SendPtr {}

pub unsafe extern "C" fn get_frame_async(n: c_int, nd: *mut VSNode, cb: VSFrameDoneCallback, user: *mut c_void) {
    guard("getFrameAsync", || {
        node("getFrameAsync", nd);
        let Some(cb) = cb else { fatal("getFrameAsync: callback is NULL") };
        // SAFETY: a live node; the request holds its own reference until the callback returns.
        let nref = unsafe { Node::clone_raw(nd) };
        let user = SendPtr(user);
        let raw = SendPtr(nd.cast());
        let keep = nref.clone();
        scheduler::get_frame_async(
            &nref,
            n,
            Box::new(move |r| {
                let _keep = &keep;
                let (user, raw) = (user, raw);
                match r {
                    // SAFETY: the caller's callback gets the frame's reference and its user data.
                    Ok(f) => unsafe { cb(user.0, Frame::into_raw(f), n, raw.0.cast(), ptr::null()) },
                    Err(e) => {
                        let msg = scheduler::error_cstring(&e);
                        // SAFETY: as above; the message lives across the call.
                        unsafe { cb(user.0, ptr::null(), n, raw.0.cast(), msg.as_ptr()) }
                    }
                }
            }),
        );
    })
}

pub unsafe extern "C" fn get_frame_filter(n: c_int, nd: *mut VSNode, ctx: *mut VSFrameContext) -> *const VSFrame {
    guard("getFrameFilter", || {
        let dep = node("getFrameFilter", nd);
        let call = frame_ctx("getFrameFilter", ctx);
        call.get(dep, n).map_or(ptr::null(), Frame::into_raw)
    })
}

pub unsafe extern "C" fn request_frame_filter(n: c_int, nd: *mut VSNode, ctx: *mut VSFrameContext) {
    guard("requestFrameFilter", || {
        node("requestFrameFilter", nd);
        let call = frame_ctx("requestFrameFilter", ctx);
        // SAFETY: a live node.
        let dep = unsafe { Node::clone_raw(nd) };
        call.request(&dep, n);
    })
}

pub unsafe extern "C" fn release_frame_early(nd: *mut VSNode, n: c_int, ctx: *mut VSFrameContext) {
    guard("releaseFrameEarly", || {
        let dep = node("releaseFrameEarly", nd);
        frame_ctx("releaseFrameEarly", ctx).release_early(dep, n);
    })
}

pub unsafe extern "C" fn cache_frame(f: *const VSFrame, n: c_int, ctx: *mut VSFrameContext) {
    guard("cacheFrame", || {
        super::req_ptr("cacheFrame", "frame", f);
        let call = frame_ctx("cacheFrame", ctx);
        let nd = call.node().clone();
        if n < 0 || n >= nd.num_frames() {
            return;
        }
        // SAFETY: a live frame; the cache takes its own reference.
        let fr = unsafe { Frame::clone_raw(f) };
        let pressure = nd.core.over_cache_budget() || crate::gpu::over_vram(&fr);
        // A frame passed to cacheFrame goes back to the core (fresh exported planes return).
        let _ = crate::gpu::frame::take_back(&nd.name_str(), &fr);
        nd.cache.lock().insert(n, fr, pressure);
    })
}

pub unsafe extern "C" fn set_filter_error(msg: *const c_char, ctx: *mut VSFrameContext) {
    guard("setFilterError", || {
        let text = if msg.is_null() { "unspecified error".to_string() } else { lossy(req_str("setFilterError", "message", msg)) };
        frame_ctx("setFilterError", ctx).set_error(text);
    })
}

pub unsafe extern "C" fn clear_node_cache(n: *mut VSNode) {
    guard("clearNodeCache", || node("clearNodeCache", n).clear_cache())
}

pub unsafe extern "C" fn get_node_name(n: *mut VSNode) -> *const c_char {
    guard("getNodeName", || node("getNodeName", n).name.as_ptr())
}

pub unsafe extern "C" fn get_node_filter_mode(n: *mut VSNode) -> c_int {
    guard("getNodeFilterMode", || node("getNodeFilterMode", n).mode)
}

pub unsafe extern "C" fn get_num_node_dependencies(n: *mut VSNode) -> c_int {
    guard("getNumNodeDependencies", || node("getNumNodeDependencies", n).deps.len() as c_int)
}

pub unsafe extern "C" fn get_node_dependency(n: *mut VSNode, index: c_int) -> *const VSFilterDependency {
    guard("getNodeDependency", || {
        let nd = node("getNodeDependency", n);
        usize::try_from(index).ok().and_then(|i| nd.deps.get(i)).map_or(ptr::null(), |d| d as *const _)
    })
}

pub unsafe extern "C" fn get_node_processing_time(n: *mut VSNode, reset: c_int) -> i64 {
    guard("getNodeProcessingTime", || {
        let nd = node("getNodeProcessingTime", n);
        if reset != 0 {
            nd.processing_ns.swap(0, Ordering::Relaxed)
        } else {
            nd.processing_ns.load(Ordering::Relaxed)
        }
    })
}

pub unsafe extern "C" fn get_node_residency(n: *mut VSNode) -> c_int {
    guard("getNodeResidency", || node("getNodeResidency", n).residency())
}

fn creation_level<'a>(call: &str, n: *mut VSNode, level: c_int) -> Option<&'a CreationInfo> {
    let nd = node(call, n);
    usize::try_from(level).ok().and_then(|l| nd.creation.get(l))
}

pub unsafe extern "C" fn get_node_creation_function_name(n: *mut VSNode, level: c_int) -> *const c_char {
    guard("getNodeCreationFunctionName", || {
        creation_level("getNodeCreationFunctionName", n, level).map_or(ptr::null(), |c| c.function.as_ptr())
    })
}

pub unsafe extern "C" fn get_node_creation_plugin_id(n: *mut VSNode, level: c_int) -> *const c_char {
    guard("getNodeCreationPluginID", || creation_level("getNodeCreationPluginID", n, level).map_or(ptr::null(), |c| c.plugin_id.as_ptr()))
}

pub unsafe extern "C" fn get_node_creation_plugin_ns(n: *mut VSNode, level: c_int) -> *const c_char {
    guard("getNodeCreationPluginNS", || creation_level("getNodeCreationPluginNS", n, level).map_or(ptr::null(), |c| c.plugin_ns.as_ptr()))
}

pub unsafe extern "C" fn get_node_creation_function_arguments(n: *mut VSNode, level: c_int) -> *const VSMap {
    guard("getNodeCreationFunctionArguments", || {
        creation_level("getNodeCreationFunctionArguments", n, level).map_or(ptr::null(), |c| (&c.args as *const Map).cast())
    })
}
