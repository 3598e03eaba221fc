//! include/VSVulkanImport4.h, vsvk's extension: the C ABI of gpu::import. Entries only check and
//! convert; `vsvkGetImportAPI` is exported so plugins find it beside the VSAPI they were given.
use std::ffi::{c_char, c_int, c_void};
use std::ptr;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::import::*;
use vsvk_plugin_api::vulkan::VSGPUTimeline;

use super::guard;
use super::vulkan_api::{core, device, fail, timeline};
use crate::frame::Frame;
use crate::gpu::exec::Timeline;
use crate::gpu::import::{import_memory, import_timeline, imported_frame, ImportedMemory, PlaneAt, Release};

type E = *mut c_char;

unsafe extern "C" fn import_gpu_memory(c: *mut VSCore, handle_type: c_int, handle: c_int, size: u64, type_index: c_int, e: E, s: c_int) -> *mut VSGPUImportedMemory {
    guard("importGPUMemory", || {
        let Some(d) = device("importGPUMemory", c, e, s) else { return ptr::null_mut() };
        match import_memory(&d, handle_type, handle, size, (type_index >= 0).then_some(type_index as u32)) {
            Ok(m) => Arc::into_raw(m).cast_mut().cast(),
            Err(m) => {
                fail("importGPUMemory", e, s, &m.to_string());
                ptr::null_mut()
            }
        }
    })
}

unsafe extern "C" fn free_gpu_memory(m: *mut VSGPUImportedMemory) {
    guard("freeGPUMemory", || {
        if !m.is_null() {
            // SAFETY: made by importGPUMemory with Arc::into_raw; the caller's reference.
            drop(unsafe { Arc::from_raw(m.cast::<ImportedMemory>()) });
        }
    })
}

unsafe extern "C" fn import_gpu_timeline(c: *mut VSCore, handle_type: c_int, handle: c_int, e: E, s: c_int) -> *mut VSGPUTimeline {
    guard("importGPUTimeline", || {
        let Some(d) = device("importGPUTimeline", c, e, s) else { return ptr::null_mut() };
        match import_timeline(&d, handle_type, handle) {
            Ok(t) => Arc::into_raw(t).cast_mut().cast(),
            Err(m) => {
                fail("importGPUTimeline", e, s, &m.to_string());
                ptr::null_mut()
            }
        }
    })
}

/// Hands a C callback and its data to whichever thread lets the frame go.
struct Callback(unsafe extern "C" fn(*mut c_void), *mut c_void);
// SAFETY: the header tells callers the callback may run on any thread.
unsafe impl Send for Callback {}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn new_imported_gpu_frame(
    fmt: *const VSVideoFormat,
    w: c_int,
    h: c_int,
    planes: *const VSVulkanImportedPlane,
    t: *mut VSGPUTimeline,
    value: u64,
    release: VSGPUImportRelease,
    user_data: *mut c_void,
    prop_src: *const VSFrame,
    c: *mut VSCore,
    e: E,
    s: c_int,
) -> *mut VSFrame {
    guard("newImportedGPUFrame", || {
        super::req_ptr("newImportedGPUFrame", "format", fmt);
        super::req_ptr("newImportedGPUFrame", "planes", planes);
        let Some(d) = device("newImportedGPUFrame", c, e, s) else { return ptr::null_mut() };
        // SAFETY: checked non-null; the caller's format.
        let fmt = unsafe { &*fmt };
        let n = fmt.numPlanes.clamp(0, 3) as usize;
        // SAFETY: one entry per plane of the format, by the header's contract.
        let given = unsafe { std::slice::from_raw_parts(planes, n) };
        let mut at = Vec::new();
        for (p, g) in given.iter().enumerate() {
            if g.memory.is_null() {
                fail("newImportedGPUFrame", e, s, &format!("plane {p}: memory is NULL"));
                return ptr::null_mut();
            }
            // SAFETY: an Arc<ImportedMemory> pointer from importGPUMemory, alive while the caller
            // holds it; this takes a reference of the frame's own.
            let memory = unsafe {
                Arc::increment_strong_count(g.memory.cast::<ImportedMemory>());
                Arc::from_raw(g.memory.cast::<ImportedMemory>())
            };
            at.push(PlaneAt { memory, offset: g.offset, stride: g.stride });
        }
        let producer = (!t.is_null()).then(|| {
            let tl = timeline("newImportedGPUFrame", t);
            // the guide's rule for setGPUPlaneProducer holds here too: nothing would ever release
            // a consumer waiting for a value the pool has not submitted
            if tl.pool_submitted.as_ref().is_some_and(|sub| value > sub.load(std::sync::atomic::Ordering::Acquire)) {
                super::fatal("newImportedGPUFrame published a value on an exec pool's timeline that the pool has not submitted");
            }
            // SAFETY: a VSGPUTimeline is an Arc<Timeline> pointer; the frame takes its own reference.
            unsafe {
                Arc::increment_strong_count(tl as *const Timeline);
                (Arc::from_raw(tl as *const Timeline), value)
            }
        });
        let rel = release.map(|f| {
            let cb = Callback(f, user_data);
            Release::new(move || {
                let cb = cb;
                // SAFETY: the caller's callback with its own data, called once.
                unsafe { (cb.0)(cb.1) }
            })
        });
        let core = core("newImportedGPUFrame", c);
        match imported_frame(&d, &core.mem, fmt, w, h, at, producer, rel) {
            Ok(f) => {
                if !prop_src.is_null() {
                    // SAFETY: `f` is new; `prop_src` is a live frame.
                    unsafe { *f.props_mut() = Frame::borrow_raw(prop_src).props().clone() };
                }
                Frame::into_raw(Arc::new(f)) as *mut VSFrame
            }
            Err(m) => {
                fail("newImportedGPUFrame", e, s, &m.to_string());
                ptr::null_mut()
            }
        }
    })
}

static TABLE: VSVKIMPORTAPI = VSVKIMPORTAPI {
    version: VSVK_IMPORT_API_VERSION,
    importGPUMemory: import_gpu_memory,
    freeGPUMemory: free_gpu_memory,
    importGPUTimeline: import_gpu_timeline,
    newImportedGPUFrame: new_imported_gpu_frame,
};

/// The extension's table; NULL for a version this core does not know.
#[no_mangle]
pub extern "C" fn vsvkGetImportAPI(version: c_int) -> *const VSVKIMPORTAPI {
    if version == VSVK_IMPORT_API_VERSION {
        &TABLE
    } else {
        ptr::null()
    }
}
