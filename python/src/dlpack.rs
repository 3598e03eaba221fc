//! GPU frames handed to CUDA frameworks (PyTorch, CuPy, JAX, ...) through DLPack, without a host
//! copy: `torch.from_dlpack(vsvk.gpu_planes(frame)[0])`.
//!
//! `gpu_planes(frame)` takes one device-side copy of a GPU frame into exportable memory (the rule
//! getExportableFrameFilter follows for filters: a plane handed to a foreign API is that API's for
//! good, so it can never be one the core's caches or other consumers still hold) and returns one
//! `GPUPlane` per plane. `GPUPlane.__dlpack__(stream=...)` exports the plane's allocation
//! (exportGPUPlane's opaque fd), imports it into CUDA once per memoryId (cuImportExternalMemory,
//! cached), and enqueues a wait for the plane's producer pair on the consumer's stream through the
//! imported timeline semaphore (cuWaitExternalSemaphoresAsync), so the consumer's kernels start only
//! once the core's copy has landed, with no host wait. Where the producer's semaphore cannot be
//! exported it falls back to a host wait (waitGPUFrame). The tensor is a view of the plane: shape
//! (height, width), the plane's stride in elements, uint8/uint16/float16/float32; it keeps the
//! frame alive, and its deleter synchronises the CUDA context before letting the frame go, since
//! DLPack deleters run when the last reference goes while queued kernels may still read it.
//!
//! CUDA is reached through the driver library (libcuda.so.1) opened at run time, so the module
//! has no CUDA dependency and reports a clear error where there is no driver. Linux only: the
//! Windows path (opaque win32 handles) is the CUDA SDK example's (sdk-examples/).
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use pyo3::exceptions::{PyBufferError, PyIndexError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyList;
use vsvk::frame::Frame;
use vsvk_plugin_api::abi::*;

use crate::err;

// ---- the CUDA driver API, as far as it is used here -------------------------------------------------

type CuResult = c_int;
type CuDevice = c_int;
type CuContext = *mut c_void;
type CuStream = *mut c_void;
type CuDevicePtr = u64;
type CuExternalMemory = *mut c_void;
type CuExternalSemaphore = *mut c_void;

const CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD: c_int = 1;
const CUDA_EXTERNAL_MEMORY_DEDICATED: c_uint = 1;
const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD: c_int = 9;
/// VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT
const VK_OPAQUE_FD: i32 = 1;

/// CUDA_EXTERNAL_MEMORY_HANDLE_DESC (104 bytes; the handle union at 8, 16 bytes).
#[repr(C)]
struct ExternalMemoryHandleDesc {
    kind: c_int,
    handle: [u64; 2],
    size: u64,
    flags: c_uint,
    reserved: [c_uint; 16],
}

/// CUDA_EXTERNAL_MEMORY_BUFFER_DESC (88 bytes).
#[repr(C)]
struct ExternalMemoryBufferDesc {
    offset: u64,
    size: u64,
    flags: c_uint,
    reserved: [c_uint; 16],
}

/// CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC (96 bytes).
#[repr(C)]
struct ExternalSemaphoreHandleDesc {
    kind: c_int,
    handle: [u64; 2],
    flags: c_uint,
    reserved: [c_uint; 16],
}

/// CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS (144 bytes): fence value first, flags at 72.
#[repr(C)]
struct ExternalSemaphoreWaitParams {
    fence_value: u64,
    nvsci: u64,
    keyed_mutex_key: u64,
    keyed_mutex_timeout: c_uint,
    reserved_params: [c_uint; 11],
    flags: c_uint,
    reserved: [c_uint; 16],
}

const _: () = {
    assert!(std::mem::size_of::<ExternalMemoryHandleDesc>() == 104);
    assert!(std::mem::size_of::<ExternalMemoryBufferDesc>() == 88);
    assert!(std::mem::size_of::<ExternalSemaphoreHandleDesc>() == 96);
    assert!(std::mem::size_of::<ExternalSemaphoreWaitParams>() == 144);
    assert!(std::mem::offset_of!(ExternalSemaphoreWaitParams, flags) == 72);
};

extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
    fn close(fd: c_int) -> c_int;
}
const RTLD_NOW: c_int = 2;

struct Cuda {
    get_error_string: unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult,
    ctx_push: unsafe extern "C" fn(CuContext) -> CuResult,
    ctx_pop: unsafe extern "C" fn(*mut CuContext) -> CuResult,
    ctx_synchronize: unsafe extern "C" fn() -> CuResult,
    import_memory: unsafe extern "C" fn(*mut CuExternalMemory, *const ExternalMemoryHandleDesc) -> CuResult,
    mapped_buffer: unsafe extern "C" fn(*mut CuDevicePtr, CuExternalMemory, *const ExternalMemoryBufferDesc) -> CuResult,
    destroy_memory: unsafe extern "C" fn(CuExternalMemory) -> CuResult,
    mem_free: unsafe extern "C" fn(CuDevicePtr) -> CuResult,
    import_semaphore: unsafe extern "C" fn(*mut CuExternalSemaphore, *const ExternalSemaphoreHandleDesc) -> CuResult,
    wait_semaphores: unsafe extern "C" fn(*const CuExternalSemaphore, *const ExternalSemaphoreWaitParams, c_uint, CuStream) -> CuResult,
    /// the primary context of the CUDA device that is the core's Vulkan device, and its ordinal
    ctx: CuContext,
    ordinal: i32,
}

// SAFETY: the driver API is thread safe; the context handle is only passed back to it.
unsafe impl Send for Cuda {}
// SAFETY: as above.
unsafe impl Sync for Cuda {}

impl Cuda {
    fn check(&self, r: CuResult, call: &str) -> Result<(), String> {
        if r == 0 {
            return Ok(());
        }
        let mut s: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorString writes a static string or leaves NULL.
        unsafe { (self.get_error_string)(r, &mut s) };
        let what = if s.is_null() { format!("error {r}") } else { unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned() };
        Err(format!("{call} failed: {what}"))
    }

    /// Runs `f` with the context current on this thread.
    fn with_ctx<T>(&self, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
        // SAFETY: the primary context is retained for the life of the process.
        self.check(unsafe { (self.ctx_push)(self.ctx) }, "cuCtxPushCurrent")?;
        let r = f();
        let mut old: CuContext = std::ptr::null_mut();
        // SAFETY: pops what was pushed above.
        unsafe { (self.ctx_pop)(&mut old) };
        r
    }
}

fn load_cuda() -> Result<Cuda, String> {
    // SAFETY: dlopen/dlsym with NUL-terminated names; symbols are cast to their documented types.
    unsafe {
        let lib = dlopen(c"libcuda.so.1".as_ptr(), RTLD_NOW);
        if lib.is_null() {
            let e = dlerror();
            let why = if e.is_null() { String::new() } else { CStr::from_ptr(e).to_string_lossy().into_owned() };
            return Err(format!("DLPack hand-off needs the CUDA driver (libcuda.so.1), which cannot be loaded: {why}"));
        }
        macro_rules! sym {
            ($name:literal) => {{
                let p = dlsym(lib, concat!($name, "\0").as_ptr() as *const c_char);
                if p.is_null() {
                    return Err(format!("the CUDA driver lacks {}", $name));
                }
                std::mem::transmute::<*mut c_void, _>(p)
            }};
        }
        let init: unsafe extern "C" fn(c_uint) -> CuResult = sym!("cuInit");
        let count: unsafe extern "C" fn(*mut c_int) -> CuResult = sym!("cuDeviceGetCount");
        let get: unsafe extern "C" fn(*mut CuDevice, c_int) -> CuResult = sym!("cuDeviceGet");
        let uuid: unsafe extern "C" fn(*mut [u8; 16], CuDevice) -> CuResult = sym!("cuDeviceGetUuid_v2");
        let retain: unsafe extern "C" fn(*mut CuContext, CuDevice) -> CuResult = sym!("cuDevicePrimaryCtxRetain");
        let mut cuda = Cuda {
            get_error_string: sym!("cuGetErrorString"),
            ctx_push: sym!("cuCtxPushCurrent_v2"),
            ctx_pop: sym!("cuCtxPopCurrent_v2"),
            ctx_synchronize: sym!("cuCtxSynchronize"),
            import_memory: sym!("cuImportExternalMemory"),
            mapped_buffer: sym!("cuExternalMemoryGetMappedBuffer"),
            destroy_memory: sym!("cuDestroyExternalMemory"),
            mem_free: sym!("cuMemFree_v2"),
            import_semaphore: sym!("cuImportExternalSemaphore"),
            wait_semaphores: sym!("cuWaitExternalSemaphoresAsync"),
            ctx: std::ptr::null_mut(),
            ordinal: -1,
        };
        cuda.check(init(0), "cuInit")?;
        let mut n = 0;
        cuda.check(count(&mut n), "cuDeviceGetCount")?;
        // the CUDA device that is the core's Vulkan device: same UUID
        let info = crate::vulkan::core_info(&crate::core().map_err(|e| e.to_string())?).map_err(|e| format!("getVulkanCoreInfo: {e}"))?;
        for i in 0..n {
            let mut dev = 0;
            cuda.check(get(&mut dev, i), "cuDeviceGet")?;
            let mut id = [0u8; 16];
            cuda.check(uuid(&mut id, dev), "cuDeviceGetUuid")?;
            if id == info.deviceUUID {
                let mut ctx: CuContext = std::ptr::null_mut();
                cuda.check(retain(&mut ctx, dev), "cuDevicePrimaryCtxRetain")?;
                cuda.ctx = ctx;
                cuda.ordinal = i;
                return Ok(cuda);
            }
        }
        Err(format!("no CUDA device is the core's Vulkan device ({})", crate::vulkan::c_text(&info.deviceName)))
    }
}

fn cuda() -> Result<&'static Cuda, String> {
    static CUDA: OnceLock<Result<Cuda, String>> = OnceLock::new();
    CUDA.get_or_init(load_cuda).as_ref().map_err(Clone::clone)
}

// ---- imports, cached -----------------------------------------------------------------------------

struct MemoryImport {
    memory: CuExternalMemory,
    base: CuDevicePtr,
    users: usize,
    last_use: u64,
}

struct SemaphoreImport {
    semaphore: CuExternalSemaphore,
    /// keeps the VkSemaphore alive, so its handle value (the key) cannot be reused
    _timeline: Arc<vsvk::gpu::exec::Timeline>,
}

#[derive(Default)]
struct Imports {
    memory: HashMap<u64, MemoryImport>,
    semaphores: HashMap<u64, SemaphoreImport>,
    uses: u64,
}

// SAFETY: CUDA handles are plain identifiers, usable from any thread.
unsafe impl Send for Imports {}

/// Imports not used by a tensor kept at most (each pins its allocation while it is kept).
const KEEP_IDLE: usize = 32;

static IMPORTS: OnceLock<Mutex<Imports>> = OnceLock::new();

fn imports() -> &'static Mutex<Imports> {
    IMPORTS.get_or_init(|| Mutex::new(Imports::default()))
}

/// The device address of the allocation behind an exported plane, imported once per memoryId;
/// takes one use, given back with release_memory.
fn import_memory(cu: &Cuda, e: &vsvk::gpu::export::ExportedPlane) -> Result<CuDevicePtr, String> {
    let mut im = imports().lock();
    im.uses += 1;
    let now = im.uses;
    if let Some(m) = im.memory.get_mut(&e.memory_id) {
        // SAFETY: a new fd for an allocation imported already: ours to close.
        unsafe { close(e.fd) };
        m.users += 1;
        m.last_use = now;
        return Ok(m.base);
    }
    if e.handle_type != VK_OPAQUE_FD {
        // SAFETY: ours, not consumed.
        unsafe { close(e.fd) };
        return Err(format!("exportGPUPlane gave handle type {}, not an opaque fd", e.handle_type));
    }
    let (memory, base) = cu.with_ctx(|| {
        let mut desc = ExternalMemoryHandleDesc {
            kind: CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD,
            handle: [e.fd as u32 as u64, 0],
            size: e.memory_size,
            flags: CUDA_EXTERNAL_MEMORY_DEDICATED, // vsvk's exportable planes are dedicated allocations
            reserved: [0; 16],
        };
        let mut memory: CuExternalMemory = std::ptr::null_mut();
        // SAFETY: a valid descriptor; the fd is consumed on success only.
        let mut r = unsafe { (cu.import_memory)(&mut memory, &desc) };
        if r != 0 {
            desc.flags = 0;
            // SAFETY: as above.
            r = unsafe { (cu.import_memory)(&mut memory, &desc) };
        }
        if let Err(m) = cu.check(r, "cuImportExternalMemory") {
            // SAFETY: not consumed by a failed import.
            unsafe { close(e.fd) };
            return Err(m);
        }
        let buf = ExternalMemoryBufferDesc { offset: 0, size: e.memory_size, flags: 0, reserved: [0; 16] };
        let mut base: CuDevicePtr = 0;
        // SAFETY: maps the whole imported allocation.
        if let Err(m) = cu.check(unsafe { (cu.mapped_buffer)(&mut base, memory, &buf) }, "cuExternalMemoryGetMappedBuffer") {
            // SAFETY: the import made above.
            unsafe { (cu.destroy_memory)(memory) };
            return Err(m);
        }
        Ok((memory, base))
    })?;
    im.memory.insert(e.memory_id, MemoryImport { memory, base, users: 1, last_use: now });
    Ok(base)
}

/// Gives back one use; idle imports past KEEP_IDLE go, least recently used first.
fn release_memory(cu: &Cuda, memory_id: u64) {
    let mut im = imports().lock();
    if let Some(m) = im.memory.get_mut(&memory_id) {
        m.users = m.users.saturating_sub(1);
    }
    let mut idle: Vec<(u64, u64)> = im.memory.iter().filter(|(_, m)| m.users == 0).map(|(k, m)| (m.last_use, *k)).collect();
    if idle.len() <= KEEP_IDLE {
        return;
    }
    idle.sort_unstable();
    for (_, k) in &idle[..idle.len() - KEEP_IDLE] {
        if let Some(m) = im.memory.remove(k) {
            let _ = cu.with_ctx(|| {
                // SAFETY: no tensor uses it, and the context was synchronised by the deleter.
                unsafe {
                    (cu.mem_free)(m.base);
                    (cu.destroy_memory)(m.memory);
                }
                Ok(())
            });
        }
    }
}

/// A VkSemaphore's handle value (a non-dispatchable handle is a u64).
fn semaphore_key(t: &vsvk::gpu::exec::Timeline) -> u64 {
    // SAFETY: ash's handle types are transparent wrappers of the u64 handle.
    unsafe { std::mem::transmute_copy(&t.sem) }
}

/// The CUDA semaphore for a producer timeline, imported once; None where it cannot be exported.
fn import_semaphore(cu: &Cuda, timeline: &Arc<vsvk::gpu::exec::Timeline>) -> Option<CuExternalSemaphore> {
    let key = semaphore_key(timeline);
    let mut im = imports().lock();
    if let Some(s) = im.semaphores.get(&key) {
        return Some(s.semaphore);
    }
    let (kind, fd) = vsvk::gpu::export::export_semaphore(&timeline.dev, timeline.sem).ok()?;
    if kind != VK_OPAQUE_FD {
        // SAFETY: ours, not consumed.
        unsafe { close(fd) };
        return None;
    }
    let desc = ExternalSemaphoreHandleDesc { kind: CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD, handle: [fd as u32 as u64, 0], flags: 0, reserved: [0; 16] };
    let mut sem: CuExternalSemaphore = std::ptr::null_mut();
    // SAFETY: a valid descriptor; the fd is consumed on success only.
    let r = cu.with_ctx(|| cu.check(unsafe { (cu.import_semaphore)(&mut sem, &desc) }, "cuImportExternalSemaphore"));
    if r.is_err() {
        // SAFETY: not consumed by a failed import.
        unsafe { close(fd) };
        return None;
    }
    im.semaphores.insert(key, SemaphoreImport { semaphore: sem, _timeline: timeline.clone() });
    Some(sem)
}

// ---- DLPack ----------------------------------------------------------------------------------------

const KDL_CUDA: i32 = 2;

#[repr(C)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// What a handed-out tensor owns: its shape arrays, the frame and one use of the import.
struct TensorCtx {
    shape: [i64; 2],
    strides: [i64; 2],
    frame: Option<Arc<Frame>>,
    memory_id: u64,
}

unsafe extern "C" fn delete_tensor(t: *mut DLManagedTensor) {
    if t.is_null() {
        return;
    }
    // SAFETY: made by Box::into_raw in __dlpack__, deleted once (DLPack's contract).
    let t = unsafe { Box::from_raw(t) };
    // SAFETY: as above.
    let mut ctx = unsafe { Box::from_raw(t.manager_ctx as *mut TensorCtx) };
    if let Ok(cu) = cuda() {
        // kernels queued on any stream may still read the plane: finish them before the frame,
        // whose memory the core recycles, goes
        let _ = cu.with_ctx(|| cu.check(unsafe { (cu.ctx_synchronize)() }, "cuCtxSynchronize"));
        ctx.frame = None;
        release_memory(cu, ctx.memory_id);
    }
}

unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    // SAFETY: called by Python with the capsule; unconsumed capsules still carry their name.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, c"dltensor".as_ptr()) == 1 {
            let t = ffi::PyCapsule_GetPointer(capsule, c"dltensor".as_ptr()) as *mut DLManagedTensor;
            delete_tensor(t);
        } else {
            ffi::PyErr_Clear();
        }
    }
}

/// One plane of a GPU frame, for DLPack consumers (`torch.from_dlpack`, `cupy.from_dlpack`).
#[pyclass(module = "vsvk", frozen, name = "GPUPlane")]
pub struct GPUPlane {
    frame: Arc<Frame>,
    plane: i32,
    width: i32,
    height: i32,
    stride: isize,
    bytes: i32,
    float: bool,
}

impl GPUPlane {
    fn dtype(&self) -> (u8, u8, &'static str) {
        match (self.float, self.bytes) {
            (true, 2) => (2, 16, "float16"),
            (true, _) => (2, 32, "float32"),
            (false, 1) => (1, 8, "uint8"),
            (false, 2) => (1, 16, "uint16"),
            (false, _) => (1, 32, "uint32"),
        }
    }

    fn producer(&self) -> vsvk::gpu::frame::Producer {
        vsvk::gpu::frame::gpu_plane(&self.frame, self.plane).expect("a GPU plane").producer()
    }
}

#[pymethods]
impl GPUPlane {
    #[getter]
    fn plane(&self) -> i32 {
        self.plane
    }
    /// (height, width), in samples.
    #[getter]
    fn shape(&self) -> (i32, i32) {
        (self.height, self.width)
    }
    /// (row stride, sample size), in bytes.
    #[getter]
    fn strides(&self) -> (isize, i32) {
        (self.stride, self.bytes)
    }
    #[getter]
    fn dtype_name(&self) -> &'static str {
        self.dtype().2
    }
    /// The identity of the exportable allocation holding the plane.
    #[getter]
    fn memory_id(&self) -> u64 {
        vsvk::gpu::frame::gpu_plane(&self.frame, self.plane).map(|g| g.memory_id).unwrap_or(0)
    }
    /// The producer pair consumers wait for: (VkSemaphore as an int, value), or None when ready.
    #[getter]
    fn ready(&self) -> Option<(u64, u64)> {
        let p = self.producer();
        p.timeline.map(|t| (semaphore_key(&t), p.value))
    }

    fn __dlpack_device__(&self) -> PyResult<(i32, i32)> {
        let cu = cuda().map_err(err)?;
        Ok((KDL_CUDA, cu.ordinal))
    }

    /// A "dltensor" capsule over the plane. `stream` is the consumer's CUDA stream (None: the
    /// legacy default stream; -1: no synchronisation); the producer pair is waited on it.
    #[pyo3(signature = (*, stream = None, max_version = None, dl_device = None, copy = None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<isize>,
        max_version: Option<(i32, i32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = max_version; // the legacy capsule, which every consumer takes
        let cu = cuda().map_err(err)?;
        if let Some(d) = dl_device {
            if d != (KDL_CUDA, cu.ordinal) {
                return Err(PyBufferError::new_err(format!("the plane lives on CUDA device {}, not on {d:?}", cu.ordinal)));
            }
        }
        if copy == Some(true) {
            return Err(PyBufferError::new_err("GPUPlane hands out views only (copy=True is not supported)"));
        }
        let frame = self.frame.clone();
        let plane = self.plane;
        let producer = self.producer();
        let (base, memory_id) = py
            .detach(|| -> Result<(CuDevicePtr, u64), String> {
                let e = vsvk::gpu::export::export_plane(&frame, plane)?;
                let base = import_memory(cu, &e)?;
                let ready = (|| -> Result<(), String> {
                    let Some(t) = producer.timeline.as_ref() else { return Ok(()) };
                    if stream == Some(-1) {
                        return Ok(()); // the consumer asked for no synchronisation
                    }
                    match import_semaphore(cu, t) {
                        Some(sem) => {
                            let params = ExternalSemaphoreWaitParams {
                                fence_value: producer.value,
                                nvsci: 0,
                                keyed_mutex_key: 0,
                                keyed_mutex_timeout: 0,
                                reserved_params: [0; 11],
                                flags: 0,
                                reserved: [0; 16],
                            };
                            // None is the legacy default stream, CU_STREAM_LEGACY (1)
                            let s = stream.unwrap_or(1) as usize as CuStream;
                            cu.with_ctx(|| cu.check(unsafe { (cu.wait_semaphores)(&sem, &params, 1, s) }, "cuWaitExternalSemaphoresAsync"))
                        }
                        // a producer that cannot be waited on the device: wait on the host
                        None => vsvk::gpu::export::wait_frame(&frame).map_err(|(_, m)| m),
                    }
                })();
                if let Err(m) = ready {
                    release_memory(cu, e.memory_id);
                    return Err(m);
                }
                Ok((base + e.offset, e.memory_id))
            })
            .map_err(err)?;
        let item = self.bytes as isize;
        let ctx = Box::new(TensorCtx { shape: [self.height as i64, self.width as i64], strides: [(self.stride / item) as i64, 1], frame: Some(frame), memory_id });
        let ctx = Box::into_raw(ctx);
        let (code, bits, _) = self.dtype();
        let t = Box::new(DLManagedTensor {
            dl_tensor: DLTensor {
                data: base as usize as *mut c_void,
                device: DLDevice { device_type: KDL_CUDA, device_id: cu.ordinal },
                ndim: 2,
                dtype: DLDataType { code, bits, lanes: 1 },
                // SAFETY: ctx lives until the deleter runs.
                shape: unsafe { (*ctx).shape.as_mut_ptr() },
                strides: unsafe { (*ctx).strides.as_mut_ptr() },
                byte_offset: 0,
            },
            manager_ctx: ctx as *mut c_void,
            deleter: Some(delete_tensor),
        });
        let t = Box::into_raw(t);
        // SAFETY: a named capsule over the tensor; its destructor deletes it unless a consumer
        // took it (and renamed it "used_dltensor").
        let cap = unsafe { ffi::PyCapsule_New(t as *mut c_void, c"dltensor".as_ptr(), Some(capsule_destructor)) };
        if cap.is_null() {
            // SAFETY: the capsule was not made, so the tensor is still ours.
            unsafe { delete_tensor(t) };
            return Err(PyErr::fetch(py));
        }
        // SAFETY: a new reference.
        Ok(unsafe { Bound::from_owned_ptr(py, cap) })
    }

    fn __repr__(&self) -> String {
        format!("<vsvk.GPUPlane {} {}x{} {}>", self.plane, self.width, self.height, self.dtype().2)
    }
}

/// One GPUPlane per plane of a GPU frame, over one device-side copy of it in exportable memory.
#[pyfunction]
fn gpu_planes<'py>(py: Python<'py>, frame: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let f = crate::frame::frame_from_py(frame).ok_or_else(|| err("gpu_planes takes a VideoFrame"))?;
    let vf = *f.video_format().ok_or_else(|| err("gpu_planes takes a video frame"))?;
    if f.residency() != nrGPU {
        return Err(err("the frame is not GPU resident (std.GPUUpload the clip first)"));
    }
    let dev = vsvk::gpu::frame::gpu_plane(&f, 0).ok_or_else(|| err("the frame has no GPU plane"))?.dev.clone();
    let copy = py
        .detach(|| {
            let stats = Arc::new(vsvk::frame::MemStats::default());
            vsvk::gpu::transfer::Transfer::new(&dev, 2).and_then(|t| t.exportable_copy(&stats, &f))
        })
        .map_err(err)?;
    if (0..copy.num_planes() as i32).any(|p| vsvk::gpu::frame::gpu_plane(&copy, p).is_none_or(|g| g.exportable().is_none())) {
        return Err(err("this Vulkan device cannot export memory (exportHandleType is 0)"));
    }
    let list = PyList::empty(py);
    for p in 0..copy.num_planes() as i32 {
        let pl = copy.plane(p).ok_or_else(|| PyIndexError::new_err("plane"))?;
        let g = GPUPlane {
            frame: copy.clone(),
            plane: p,
            width: pl.width,
            height: pl.height,
            stride: pl.stride,
            bytes: vf.bytesPerSample,
            float: vf.sampleType == stFloat,
        };
        list.append(Bound::new(py, g)?)?;
    }
    Ok(list)
}

/// Adds GPUPlane and gpu_planes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GPUPlane>()?;
    m.add_function(wrap_pyfunction!(gpu_planes, m)?)?;
    Ok(())
}
