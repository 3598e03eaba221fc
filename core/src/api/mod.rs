//! The C ABI: the VSAPI and VSPLUGINAPI tables. Every entry checks its pointers, converts, calls
//! the safe layer, and keeps panics from crossing into C.
use std::ffi::{c_char, c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use vsvk_plugin_api::abi::*;

mod core_api;
mod frame_api;
mod map_api;
pub(crate) mod node_api;
mod plugin_api;
pub mod vulkan_api;
mod import_api;
mod views_api;

/// Runs `f`, turning a panic into a fatal error naming the entry point: unwinding into C is
/// undefined, and a panic here means our own invariant broke.
pub(crate) fn guard<R>(call: &str, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(e) => {
            let what = e
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| e.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            fatal(&format!("{call}: internal error: {what}"))
        }
    }
}

pub(crate) use crate::fatal::fatal;

/// Reads a required C string argument; NULL is fatal, naming the call and the argument.
pub(crate) fn req_str<'a>(call: &str, what: &str, p: *const c_char) -> &'a [u8] {
    if p.is_null() {
        fatal(&format!("{call}: {what} is NULL"));
    }
    // SAFETY: non-null C strings passed to the API are NUL-terminated by contract.
    unsafe { CStr::from_ptr(p) }.to_bytes()
}

pub(crate) fn req_ptr<T>(call: &str, what: &str, p: *const T) {
    if p.is_null() {
        fatal(&format!("{call}: {what} is NULL"));
    }
}

pub(crate) fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

unsafe extern "C" fn get_api_version() -> c_int {
    VAPOURSYNTH_API_VERSION
}

static VSAPI_TABLE: VSAPI = VSAPI {
    createVideoFilter: node_api::create_video_filter,
    createVideoFilter2: node_api::create_video_filter2,
    createAudioFilter: node_api::create_audio_filter,
    createAudioFilter2: node_api::create_audio_filter2,
    setLinearFilter: node_api::set_linear_filter,
    setCacheMode: node_api::set_cache_mode,
    setCacheOptions: node_api::set_cache_options,
    freeNode: node_api::free_node,
    addNodeRef: node_api::add_node_ref,
    getNodeType: node_api::get_node_type,
    getVideoInfo: node_api::get_video_info,
    getAudioInfo: node_api::get_audio_info,
    newVideoFrame: frame_api::new_video_frame,
    newVideoFrame2: frame_api::new_video_frame2,
    newAudioFrame: frame_api::new_audio_frame,
    newAudioFrame2: frame_api::new_audio_frame2,
    freeFrame: frame_api::free_frame,
    addFrameRef: frame_api::add_frame_ref,
    copyFrame: frame_api::copy_frame,
    getFramePropertiesRO: frame_api::get_frame_properties_ro,
    getFramePropertiesRW: frame_api::get_frame_properties_rw,
    getStride: frame_api::get_stride,
    getReadPtr: frame_api::get_read_ptr,
    getWritePtr: frame_api::get_write_ptr,
    getVideoFrameFormat: frame_api::get_video_frame_format,
    getAudioFrameFormat: frame_api::get_audio_frame_format,
    getFrameType: frame_api::get_frame_type,
    getFrameWidth: frame_api::get_frame_width,
    getFrameHeight: frame_api::get_frame_height,
    getFrameLength: frame_api::get_frame_length,
    getVideoFormatName: frame_api::get_video_format_name,
    getAudioFormatName: frame_api::get_audio_format_name,
    queryVideoFormat: frame_api::query_video_format,
    queryAudioFormat: frame_api::query_audio_format,
    queryVideoFormatID: frame_api::query_video_format_id,
    getVideoFormatByID: frame_api::get_video_format_by_id,
    getFrame: node_api::get_frame,
    getFrameAsync: node_api::get_frame_async,
    getFrameFilter: node_api::get_frame_filter,
    requestFrameFilter: node_api::request_frame_filter,
    releaseFrameEarly: node_api::release_frame_early,
    cacheFrame: node_api::cache_frame,
    setFilterError: node_api::set_filter_error,
    createFunction: core_api::create_function,
    freeFunction: core_api::free_function,
    addFunctionRef: core_api::add_function_ref,
    callFunction: core_api::call_function,
    createMap: map_api::create_map,
    freeMap: map_api::free_map,
    clearMap: map_api::clear_map,
    copyMap: map_api::copy_map,
    mapSetError: map_api::map_set_error,
    mapGetError: map_api::map_get_error,
    mapNumKeys: map_api::map_num_keys,
    mapGetKey: map_api::map_get_key,
    mapDeleteKey: map_api::map_delete_key,
    mapNumElements: map_api::map_num_elements,
    mapGetType: map_api::map_get_type,
    mapSetEmpty: map_api::map_set_empty,
    mapGetInt: map_api::map_get_int,
    mapGetIntSaturated: map_api::map_get_int_saturated,
    mapGetIntArray: map_api::map_get_int_array,
    mapSetInt: map_api::map_set_int,
    mapSetIntArray: map_api::map_set_int_array,
    mapGetFloat: map_api::map_get_float,
    mapGetFloatSaturated: map_api::map_get_float_saturated,
    mapGetFloatArray: map_api::map_get_float_array,
    mapSetFloat: map_api::map_set_float,
    mapSetFloatArray: map_api::map_set_float_array,
    mapGetData: map_api::map_get_data,
    mapGetDataSize: map_api::map_get_data_size,
    mapGetDataTypeHint: map_api::map_get_data_type_hint,
    mapSetData: map_api::map_set_data,
    mapGetNode: map_api::map_get_node,
    mapSetNode: map_api::map_set_node,
    mapConsumeNode: map_api::map_consume_node,
    mapGetFrame: map_api::map_get_frame,
    mapSetFrame: map_api::map_set_frame,
    mapConsumeFrame: map_api::map_consume_frame,
    mapGetFunction: map_api::map_get_function,
    mapSetFunction: map_api::map_set_function,
    mapConsumeFunction: map_api::map_consume_function,
    registerFunction: plugin_api::register_function,
    getPluginByID: plugin_api::get_plugin_by_id,
    getPluginByNamespace: plugin_api::get_plugin_by_namespace,
    getNextPlugin: plugin_api::get_next_plugin,
    getPluginName: plugin_api::get_plugin_name,
    getPluginID: plugin_api::get_plugin_id,
    getPluginNamespace: plugin_api::get_plugin_namespace,
    getNextPluginFunction: plugin_api::get_next_plugin_function,
    getPluginFunctionByName: plugin_api::get_plugin_function_by_name,
    getPluginFunctionName: plugin_api::get_plugin_function_name,
    getPluginFunctionArguments: plugin_api::get_plugin_function_arguments,
    getPluginFunctionReturnType: plugin_api::get_plugin_function_return_type,
    getPluginPath: plugin_api::get_plugin_path,
    getPluginVersion: plugin_api::get_plugin_version,
    invoke: plugin_api::invoke,
    createCore: core_api::create_core,
    freeCore: core_api::free_core,
    setMaxCacheSize: core_api::set_max_cache_size,
    setThreadCount: core_api::set_thread_count,
    getCoreInfo: core_api::get_core_info,
    getAPIVersion: get_api_version,
    logMessage: core_api::log_message,
    addLogHandler: core_api::add_log_handler,
    removeLogHandler: core_api::remove_log_handler,
    clearNodeCache: node_api::clear_node_cache,
    clearCoreCaches: core_api::clear_core_caches,
    getNodeName: node_api::get_node_name,
    getNodeFilterMode: node_api::get_node_filter_mode,
    getNumNodeDependencies: node_api::get_num_node_dependencies,
    getNodeDependency: node_api::get_node_dependency,
    getCoreNodeTiming: core_api::get_core_node_timing,
    setCoreNodeTiming: core_api::set_core_node_timing,
    getNodeProcessingTime: node_api::get_node_processing_time,
    getFreedNodeProcessingTime: core_api::get_freed_node_processing_time,
    getCoreInfo2: core_api::get_core_info2,
    createVideoFilterEx: node_api::create_video_filter_ex,
    createVideoFilterEx2: node_api::create_video_filter_ex2,
    getVulkanAPI: vulkan_api::get_vulkan_api,
    getNodeResidency: node_api::get_node_residency,
    getFrameResidency: frame_api::get_frame_residency,
    getNodeCreationFunctionName: node_api::get_node_creation_function_name,
    getNodeCreationPluginID: node_api::get_node_creation_plugin_id,
    getNodeCreationPluginNS: node_api::get_node_creation_plugin_ns,
    getNodeCreationFunctionArguments: node_api::get_node_creation_function_arguments,
};

static PLUGIN_API_TABLE: VSPLUGINAPI = VSPLUGINAPI {
    getAPIVersion: get_api_version,
    configPlugin: plugin_api::config_plugin,
    registerFunction: plugin_api::register_function,
};

pub fn vsapi() -> *const VSAPI {
    &VSAPI_TABLE
}

pub fn plugin_api() -> *const VSPLUGINAPI {
    &PLUGIN_API_TABLE
}

/// What a core made through this layer is wired with: these tables for its C plugins, and the
/// built-in plugins (Core::new takes it, so the runtime needs no way up here).
pub fn wiring() -> crate::wiring::Wiring {
    crate::wiring::Wiring { vsapi: vsapi(), plugin_api: plugin_api(), builtins: register_builtins }
}

/// std, resize and text, registered on every new core as R81 registers its filters library.
/// The namespaces written on vsvk-plugin-api (resize, text) register their functions through the
/// VSPLUGINAPI table into a plugin the core configures, as a plugin library's init would.
fn register_builtins(core: &std::sync::Arc<crate::core::Core>) {
    // one std plugin, two halves: the core's functions, then vsvk-std's
    let std = crate::stdlib::plugin(core);
    // std.SeparateFields' fields share the frame's rows, which only this core can make
    vsvk_plugin_api::views::provide(&views_api::TABLE);
    // SAFETY: a live plugin of this core and the layer's own table, valid for the call.
    unsafe { vsvk_std::init(crate::plugin::Plugin::as_raw(&std), plugin_api()) };
    std.lock();
    core.plugins.write().push(std);
    builtin_crate(core, vsvk_resize::RESIZE_ID, vsvk_resize::NAMESPACE, vsvk_resize::NAME, vsvk_resize::init);
    builtin_crate(core, vsvk_text::TEXT_ID, vsvk_text::NAMESPACE, vsvk_text::NAME, vsvk_text::init);
}

/// A built-in plugin whose functions come from a crate on the plugin layer: the core creates and
/// configures it, `init` registers the functions (through registerFunction), then it is locked.
fn builtin_crate(core: &std::sync::Arc<crate::core::Core>, id: &str, ns: &str, name: &str, init: vsvk_plugin_api::plugin::InitFn) {
    let p = crate::plugin::Plugin::new_builtin(core, id, ns, name, make_version(crate::core::CORE_VERSION, 0));
    // SAFETY: a live plugin of this core and the layer's own table, valid for the call.
    unsafe { init(crate::plugin::Plugin::as_raw(&p), plugin_api()) };
    p.lock();
    core.plugins.write().push(p);
}

/// The library's entry point: the table for any API 4.x up to 4.3, NULL otherwise.
#[no_mangle]
pub extern "C" fn getVapourSynthAPI(version: c_int) -> *const VSAPI {
    let major = version >> 16;
    let minor = version & 0xffff;
    if major == VAPOURSYNTH_API_MAJOR && minor <= VAPOURSYNTH_API_MINOR {
        vsapi()
    } else {
        std::ptr::null()
    }
}

