//! Core, function and logging entry points.
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use super::{fatal, guard, lossy, req_str};
use crate::core::{Core, CORE_VERSION};
use crate::function::{Function, FunctionImpl};
use crate::log::HandlerImpl;
use crate::map::Map;

fn core<'a>(call: &str, c: *mut VSCore) -> &'a Core {
    if c.is_null() {
        fatal(&format!("{call}: core is NULL"));
    }
    // SAFETY: a core pointer from createCore, alive while the caller uses it.
    unsafe { Core::borrow_raw(c) }
}

pub unsafe extern "C" fn create_core(flags: c_int) -> *mut VSCore {
    guard("createCore", || Arc::into_raw(Core::new(flags, super::wiring())) as *mut VSCore)
}

pub unsafe extern "C" fn free_core(c: *mut VSCore) {
    guard("freeCore", || {
        if c.is_null() {
            return;
        }
        let cr = core("freeCore", c);
        if cr.freed.swap(true, Ordering::AcqRel) {
            fatal("freeCore: the core was already freed");
        }
        // Requests still in flight finish first, so their callbacks never see a half-gone core.
        if !crate::scheduler::on_worker_thread() {
            cr.pool.wait_idle();
        }
        crate::gpu::warn_at_free(cr);
        // SAFETY: releases the reference createCore handed out; nodes still alive keep the rest.
        drop(unsafe { Arc::from_raw(c.cast::<Core>()) });
    })
}

pub unsafe extern "C" fn set_max_cache_size(bytes: i64, c: *mut VSCore) -> i64 {
    guard("setMaxCacheSize", || {
        let cr = core("setMaxCacheSize", c);
        if bytes > 0 {
            cr.max_cache.store(bytes, Ordering::Relaxed);
        }
        cr.max_cache.load(Ordering::Relaxed)
    })
}

pub unsafe extern "C" fn set_thread_count(threads: c_int, c: *mut VSCore) -> c_int {
    guard("setThreadCount", || {
        let cr = core("setThreadCount", c);
        let n = if threads <= 0 { crate::core::default_threads() } else { threads as usize };
        cr.pool.set_threads(n);
        cr.threads() as c_int
    })
}

pub unsafe extern "C" fn get_core_info(c: *mut VSCore, info: *mut VSCoreInfo) {
    guard("getCoreInfo", || {
        super::req_ptr("getCoreInfo", "info", info);
        let cr = core("getCoreInfo", c);
        // SAFETY: checked non-null; the caller's struct.
        unsafe {
            *info = VSCoreInfo {
                versionString: cr.version_string.as_ptr(),
                core: CORE_VERSION,
                api: VAPOURSYNTH_API_VERSION,
                numThreads: cr.threads() as c_int,
                maxFramebufferSize: cr.max_cache.load(Ordering::Relaxed),
                usedFramebufferSize: cr.mem.used.load(Ordering::Relaxed),
            }
        };
    })
}

pub unsafe extern "C" fn get_core_info2(c: *mut VSCore, info: *mut VSCoreInfo2) {
    guard("getCoreInfo2", || {
        super::req_ptr("getCoreInfo2", "info", info);
        let cr = core("getCoreInfo2", c);
        // SAFETY: checked non-null; the caller's struct.
        unsafe {
            *info = VSCoreInfo2 {
                versionString: cr.version_string.as_ptr(),
                coreVersion: CORE_VERSION,
                apiVersion: VAPOURSYNTH_API_VERSION,
                creationFlags: cr.flags,
                numThreads: cr.threads() as c_int,
                maxFramebufferSize: cr.max_cache.load(Ordering::Relaxed),
                usedFramebufferSize: cr.mem.used.load(Ordering::Relaxed),
            }
        };
    })
}

pub unsafe extern "C" fn log_message(level: c_int, msg: *const c_char, c: *mut VSCore) {
    guard("logMessage", || {
        let text = lossy(req_str("logMessage", "message", msg));
        core("logMessage", c).log_message(level.clamp(mtDebug, mtFatal), &text);
    })
}

pub unsafe extern "C" fn add_log_handler(handler: VSLogHandler, free: VSLogHandlerFree, data: *mut c_void, c: *mut VSCore) -> *mut VSLogHandle {
    guard("addLogHandler", || {
        let Some(handler) = handler else { fatal("addLogHandler: handler is NULL") };
        let h = core("addLogHandler", c).log.add(HandlerImpl::C { handler, free, data });
        // The handle is the handler's id; it never collides with a pointer the caller owns.
        h.id as usize as *mut VSLogHandle
    })
}

pub unsafe extern "C" fn remove_log_handler(handle: *mut VSLogHandle, c: *mut VSCore) -> c_int {
    guard("removeLogHandler", || core("removeLogHandler", c).log.remove(handle as usize as u64) as c_int)
}

pub unsafe extern "C" fn clear_core_caches(c: *mut VSCore) {
    guard("clearCoreCaches", || {
        core("clearCoreCaches", c).clear_caches();
    })
}

pub unsafe extern "C" fn get_core_node_timing(c: *mut VSCore) -> c_int {
    guard("getCoreNodeTiming", || core("getCoreNodeTiming", c).node_timing.load(Ordering::Relaxed) as c_int)
}

pub unsafe extern "C" fn set_core_node_timing(c: *mut VSCore, enable: c_int) {
    guard("setCoreNodeTiming", || core("setCoreNodeTiming", c).node_timing.store(enable != 0, Ordering::Relaxed))
}

pub unsafe extern "C" fn get_freed_node_processing_time(c: *mut VSCore, reset: c_int) -> i64 {
    guard("getFreedNodeProcessingTime", || {
        let cr = core("getFreedNodeProcessingTime", c);
        if reset != 0 {
            cr.freed_node_ns.swap(0, Ordering::Relaxed)
        } else {
            cr.freed_node_ns.load(Ordering::Relaxed)
        }
    })
}

pub unsafe extern "C" fn create_function(func: Option<VSPublicFunction>, data: *mut c_void, free: VSFreeFunctionData, c: *mut VSCore) -> *mut VSFunction {
    guard("createFunction", || {
        let Some(func) = func else { fatal("createFunction: function is NULL") };
        let cr = core("createFunction", c).arc();
        Function::into_raw(Arc::new(Function { imp: FunctionImpl::C { func, data, free }, core: cr }))
    })
}

pub unsafe extern "C" fn free_function(f: *mut VSFunction) {
    guard("freeFunction", || {
        if !f.is_null() {
            // SAFETY: the caller gives up one reference.
            drop(unsafe { Function::from_raw(f) });
        }
    })
}

pub unsafe extern "C" fn add_function_ref(f: *mut VSFunction) -> *mut VSFunction {
    guard("addFunctionRef", || {
        super::req_ptr("addFunctionRef", "function", f);
        // SAFETY: a live function.
        Function::into_raw(unsafe { Function::clone_raw(f) })
    })
}

pub unsafe extern "C" fn call_function(f: *mut VSFunction, input: *const VSMap, out: *mut VSMap) {
    guard("callFunction", || {
        super::req_ptr("callFunction", "function", f);
        super::req_ptr("callFunction", "input map", input);
        super::req_ptr("callFunction", "output map", out);
        // SAFETY: all three checked non-null and live by contract.
        unsafe { Function::borrow_raw(f).call(&*input.cast::<Map>(), &mut *out.cast::<Map>()) };
    })
}
