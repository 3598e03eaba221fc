//! The CUDA driver API, loaded from libcuda.so.1 at run time so that nothing builds against CUDA
//! and a machine without the driver gets a clear error: the primary context of the CUDA device
//! that is a core's Vulkan device (matched by UUID), and the imports of exported plane memory and
//! timeline semaphores, each made once and cached. The Python module's DLPack hand-off and gpu_map
//! use it, and so do the runtime's copies by CUDA (gpu::cuda_copy).
// CUDA's handles (streams, contexts, imports) are pointers the driver alone reads: passing them on
// dereferences nothing on our side. The one call that takes memory pointers, `copy`, is unsafe.
#![allow(clippy::not_unsafe_ptr_arg_deref)]
// (sym! casts each symbol to the type of the field it fills)
#![allow(clippy::missing_transmute_annotations)]
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

pub type CuResult = c_int;
type CuDevice = c_int;
pub type CuContext = *mut c_void;
pub type CuStream = *mut c_void;
pub type CuDevicePtr = u64;
type CuExternalMemory = *mut c_void;
pub type CuExternalSemaphore = *mut c_void;
pub type CuEvent = *mut c_void;

const CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD: c_int = 1;
const CUDA_EXTERNAL_MEMORY_DEDICATED: c_uint = 1;
const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD: c_int = 9;
/// VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT
pub const VK_OPAQUE_FD: i32 = 1;
const CU_STREAM_NON_BLOCKING: c_uint = 1;
const CU_EVENT_BLOCKING_SYNC: c_uint = 1;
const CU_EVENT_DISABLE_TIMING: c_uint = 2;
const CU_MEMORYTYPE_HOST: c_uint = 1;
const CU_MEMORYTYPE_DEVICE: c_uint = 2;

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

/// CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS and _SIGNAL_PARAMS share this layout (144 bytes): the
/// fence value first, flags at 72; the rest is unused for timeline semaphores.
#[repr(C)]
pub struct SemaphoreParams {
    fence_value: u64,
    unused: [u64; 8],
    flags: c_uint,
    reserved: [c_uint; 17],
}

impl SemaphoreParams {
    pub fn value(v: u64) -> SemaphoreParams {
        SemaphoreParams { fence_value: v, unused: [0; 8], flags: 0, reserved: [0; 17] }
    }
}

/// CUDA_MEMCPY2D (128 bytes), device to device only here.
#[repr(C)]
struct Memcpy2d {
    src_x: usize,
    src_y: usize,
    src_type: c_uint,
    src_host: *const c_void,
    src_device: CuDevicePtr,
    src_array: *mut c_void,
    src_pitch: usize,
    dst_x: usize,
    dst_y: usize,
    dst_type: c_uint,
    dst_host: *mut c_void,
    dst_device: CuDevicePtr,
    dst_array: *mut c_void,
    dst_pitch: usize,
    width_bytes: usize,
    height: usize,
}

const _: () = {
    assert!(std::mem::size_of::<ExternalMemoryHandleDesc>() == 104);
    assert!(std::mem::size_of::<ExternalMemoryBufferDesc>() == 88);
    assert!(std::mem::size_of::<ExternalSemaphoreHandleDesc>() == 96);
    assert!(std::mem::size_of::<SemaphoreParams>() == 144);
    assert!(std::mem::offset_of!(SemaphoreParams, flags) == 72);
    assert!(std::mem::size_of::<Memcpy2d>() == 128);
};

#[cfg(unix)]
extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
    pub fn close(fd: c_int) -> c_int;
}
const RTLD_NOW: c_int = 2;

// This interop imports POSIX fds (CUDA's OPAQUE_FD handle types); on Windows it would take the
// core's NT handles with CUDA's OPAQUE_WIN32 types, which is not written yet, so there the driver
// is reported as unavailable and nothing is ever exported for CUDA (close is never reached).
#[cfg(windows)]
unsafe fn dlopen(_file: *const c_char, _mode: c_int) -> *mut c_void {
    std::ptr::null_mut()
}
#[cfg(windows)]
unsafe fn dlsym(_handle: *mut c_void, _name: *const c_char) -> *mut c_void {
    std::ptr::null_mut()
}
#[cfg(windows)]
unsafe fn dlerror() -> *mut c_char {
    c"vsvk's CUDA interop is not available on Windows yet (it imports POSIX fds)".as_ptr() as *mut c_char
}
#[cfg(windows)]
pub unsafe fn close(_fd: c_int) -> c_int {
    unreachable!("no CUDA import runs on Windows")
}

pub struct Cuda {
    get_error_string: unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult,
    ctx_push: unsafe extern "C" fn(CuContext) -> CuResult,
    ctx_pop: unsafe extern "C" fn(*mut CuContext) -> CuResult,
    pub ctx_synchronize: unsafe extern "C" fn() -> CuResult,
    import_memory: unsafe extern "C" fn(*mut CuExternalMemory, *const ExternalMemoryHandleDesc) -> CuResult,
    mapped_buffer: unsafe extern "C" fn(*mut CuDevicePtr, CuExternalMemory, *const ExternalMemoryBufferDesc) -> CuResult,
    destroy_memory: unsafe extern "C" fn(CuExternalMemory) -> CuResult,
    mem_free: unsafe extern "C" fn(CuDevicePtr) -> CuResult,
    import_semaphore: unsafe extern "C" fn(*mut CuExternalSemaphore, *const ExternalSemaphoreHandleDesc) -> CuResult,
    destroy_semaphore: unsafe extern "C" fn(CuExternalSemaphore) -> CuResult,
    wait_semaphores: unsafe extern "C" fn(*const CuExternalSemaphore, *const SemaphoreParams, c_uint, CuStream) -> CuResult,
    signal_semaphores: unsafe extern "C" fn(*const CuExternalSemaphore, *const SemaphoreParams, c_uint, CuStream) -> CuResult,
    stream_create: unsafe extern "C" fn(*mut CuStream, c_uint) -> CuResult,
    stream_destroy: unsafe extern "C" fn(CuStream) -> CuResult,
    memcpy_2d: unsafe extern "C" fn(*const Memcpy2d, CuStream) -> CuResult,
    mem_host_alloc: unsafe extern "C" fn(*mut *mut c_void, usize, c_uint) -> CuResult,
    mem_free_host: unsafe extern "C" fn(*mut c_void) -> CuResult,
    mem_host_register: unsafe extern "C" fn(*mut c_void, usize, c_uint) -> CuResult,
    mem_host_unregister: unsafe extern "C" fn(*mut c_void) -> CuResult,
    event_create: unsafe extern "C" fn(*mut CuEvent, c_uint) -> CuResult,
    event_destroy: unsafe extern "C" fn(CuEvent) -> CuResult,
    event_record: unsafe extern "C" fn(CuEvent, CuStream) -> CuResult,
    event_synchronize: unsafe extern "C" fn(CuEvent) -> CuResult,
    stream_wait_event: unsafe extern "C" fn(CuStream, CuEvent, c_uint) -> CuResult,
    /// the primary context of the CUDA device that is the core's Vulkan device, and its ordinal
    ctx: CuContext,
    pub ordinal: i32,
}

// SAFETY: the driver API is thread safe; the context handle is only passed back to it.
unsafe impl Send for Cuda {}
// SAFETY: as above.
unsafe impl Sync for Cuda {}

impl Cuda {
    pub fn check(&self, r: CuResult, call: &str) -> Result<(), String> {
        if r == 0 {
            return Ok(());
        }
        let mut s: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorString writes a static string or leaves NULL.
        unsafe { (self.get_error_string)(r, &mut s) };
        // SAFETY: a static NUL-terminated string when not NULL.
        let what = if s.is_null() { format!("error {r}") } else { unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned() };
        Err(format!("{call} failed: {what}"))
    }

    /// Runs `f` with the context current on this thread.
    pub fn with_ctx<T>(&self, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
        // SAFETY: the primary context is retained for the life of the process.
        self.check(unsafe { (self.ctx_push)(self.ctx) }, "cuCtxPushCurrent")?;
        let r = f();
        let mut old: CuContext = std::ptr::null_mut();
        // SAFETY: pops what was pushed above.
        unsafe { (self.ctx_pop)(&mut old) };
        r
    }

    /// Makes `stream` wait until the timeline reaches `value`, on the device.
    pub fn wait(&self, sem: CuExternalSemaphore, value: u64, stream: CuStream) -> Result<(), String> {
        let p = SemaphoreParams::value(value);
        // SAFETY: an imported timeline semaphore and a stream of this context.
        self.with_ctx(|| self.check(unsafe { (self.wait_semaphores)(&sem, &p, 1, stream) }, "cuWaitExternalSemaphoresAsync"))
    }

    /// Enqueues the timeline's signal to `value` on `stream`, after everything queued before it.
    pub fn signal(&self, sem: CuExternalSemaphore, value: u64, stream: CuStream) -> Result<(), String> {
        let p = SemaphoreParams::value(value);
        // SAFETY: as above.
        self.with_ctx(|| self.check(unsafe { (self.signal_semaphores)(&sem, &p, 1, stream) }, "cuSignalExternalSemaphoresAsync"))
    }

    /// A stream of the primary context that does not synchronise with the legacy default stream.
    pub fn new_stream(&self) -> Result<CuStream, String> {
        let mut s: CuStream = std::ptr::null_mut();
        // SAFETY: writes a new stream handle.
        self.with_ctx(|| self.check(unsafe { (self.stream_create)(&mut s, CU_STREAM_NON_BLOCKING) }, "cuStreamCreate"))?;
        Ok(s)
    }

    pub fn destroy_stream(&self, s: CuStream) {
        // SAFETY: a stream made by new_stream; its queued work still completes (the driver's rule).
        let _ = self.with_ctx(|| self.check(unsafe { (self.stream_destroy)(s) }, "cuStreamDestroy"));
    }

    /// Queues a copy of `rows` rows of `row_bytes` bytes between two device pitched layouts.
    #[allow(clippy::too_many_arguments)]
    pub fn copy_2d(&self, dst: CuDevicePtr, dst_pitch: usize, src: CuDevicePtr, src_pitch: usize, row_bytes: usize, rows: usize, stream: CuStream) -> Result<(), String> {
        // SAFETY: device addresses only, which the driver checks itself.
        unsafe { self.copy(Mem::Device(dst), dst_pitch, Mem::Device(src), src_pitch, row_bytes, rows, stream) }
    }

    /// Queues a copy of `rows` rows of `row_bytes` bytes between two pitched layouts, each in host
    /// or device memory; asynchronous only where host memory is pinned (alloc_host's).
    ///
    /// # Safety
    /// Host sides cover `rows` rows at their pitch and stay alive (and, for the destination,
    /// untouched) until the stream has run the copy.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn copy(&self, dst: Mem, dst_pitch: usize, src: Mem, src_pitch: usize, row_bytes: usize, rows: usize, stream: CuStream) -> Result<(), String> {
        let (src_type, src_host, src_device) = src.parts();
        let (dst_type, dst_host, dst_device) = dst.parts();
        let c = Memcpy2d {
            src_x: 0,
            src_y: 0,
            src_type,
            src_host,
            src_device,
            src_array: std::ptr::null_mut(),
            src_pitch,
            dst_x: 0,
            dst_y: 0,
            dst_type,
            dst_host: dst_host as *mut c_void,
            dst_device,
            dst_array: std::ptr::null_mut(),
            dst_pitch,
            width_bytes: row_bytes,
            height: rows,
        };
        // SAFETY: both ranges are memory the caller vouches for.
        self.with_ctx(|| self.check(unsafe { (self.memcpy_2d)(&c, stream) }, "cuMemcpy2DAsync"))
    }

    /// An event for ordering streams and waiting on the host; a host wait on it sleeps rather
    /// than spins, and it keeps no timestamps.
    pub fn new_event(&self) -> Result<CuEvent, String> {
        let mut e: CuEvent = std::ptr::null_mut();
        // SAFETY: writes a new event handle.
        self.with_ctx(|| self.check(unsafe { (self.event_create)(&mut e, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING) }, "cuEventCreate"))?;
        Ok(e)
    }

    pub fn destroy_event(&self, e: CuEvent) {
        // SAFETY: an event made by new_event; a record still queued completes (the driver's rule).
        let _ = self.with_ctx(|| self.check(unsafe { (self.event_destroy)(e) }, "cuEventDestroy"));
    }

    /// Enqueues `e` on `stream`: it completes once everything queued there before it has.
    pub fn record(&self, e: CuEvent, stream: CuStream) -> Result<(), String> {
        // SAFETY: an event and a stream of this context.
        self.with_ctx(|| self.check(unsafe { (self.event_record)(e, stream) }, "cuEventRecord"))
    }

    /// Makes `stream` wait, on the device, for the last record of `e` queued before this call.
    pub fn wait_event(&self, stream: CuStream, e: CuEvent) -> Result<(), String> {
        // SAFETY: as above.
        self.with_ctx(|| self.check(unsafe { (self.stream_wait_event)(stream, e, 0) }, "cuStreamWaitEvent"))
    }

    /// Waits on the host for the last record of `e`.
    pub fn synchronize(&self, e: CuEvent) -> Result<(), String> {
        // SAFETY: as above.
        self.with_ctx(|| self.check(unsafe { (self.event_synchronize)(e) }, "cuEventSynchronize"))
    }

    /// `len` bytes of pinned host memory, which CUDA's copy engines read and write at the bus's
    /// speed in both directions at once (Vulkan's own host memory reaches about half of it).
    pub fn alloc_host(&self, len: usize) -> Result<*mut u8, String> {
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: writes a new allocation's address.
        self.with_ctx(|| self.check(unsafe { (self.mem_host_alloc)(&mut p, len.max(1), 0) }, "cuMemHostAlloc"))?;
        Ok(p.cast())
    }

    /// Pins `len` bytes of host memory at `p` for CUDA's copies, as alloc_host's are.
    ///
    /// # Safety
    /// `p` is the start of `len` bytes of host memory that stay mapped until unregister_host.
    pub unsafe fn register_host(&self, p: *mut u8, len: usize) -> Result<(), String> {
        // SAFETY: the caller's promise.
        self.with_ctx(|| self.check(unsafe { (self.mem_host_register)(p.cast(), len, 0) }, "cuMemHostRegister"))
    }

    /// Unpins what register_host pinned.
    ///
    /// # Safety
    /// `p` was registered and nothing uses it by CUDA any more.
    pub unsafe fn unregister_host(&self, p: *mut u8) {
        // SAFETY: the caller's promise.
        let _ = self.with_ctx(|| self.check(unsafe { (self.mem_host_unregister)(p.cast()) }, "cuMemHostUnregister"));
    }

    /// Frees what alloc_host gave.
    ///
    /// # Safety
    /// `p` came from alloc_host and nothing uses it any more.
    pub unsafe fn free_host(&self, p: *mut u8) {
        // SAFETY: the caller's promise.
        let _ = self.with_ctx(|| self.check(unsafe { (self.mem_free_host)(p.cast()) }, "cuMemFreeHost"));
    }
}

/// One side of a copy: host memory or a device address.
#[derive(Clone, Copy)]
pub enum Mem {
    Host(*const u8),
    Device(CuDevicePtr),
}

impl Mem {
    fn parts(self) -> (c_uint, *const c_void, CuDevicePtr) {
        match self {
            Mem::Host(p) => (CU_MEMORYTYPE_HOST, p.cast(), 0),
            Mem::Device(d) => (CU_MEMORYTYPE_DEVICE, std::ptr::null(), d),
        }
    }
}

fn load_cuda(uuid: [u8; 16], name: &str) -> Result<Cuda, String> {
    // SAFETY: dlopen/dlsym with NUL-terminated names; symbols are cast to their documented types.
    unsafe {
        let lib = dlopen(c"libcuda.so.1".as_ptr(), RTLD_NOW);
        if lib.is_null() {
            let e = dlerror();
            let why = if e.is_null() { String::new() } else { CStr::from_ptr(e).to_string_lossy().into_owned() };
            return Err(format!("the CUDA driver (libcuda.so.1), which cannot be loaded: {why}"));
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
        let get_uuid: unsafe extern "C" fn(*mut [u8; 16], CuDevice) -> CuResult = sym!("cuDeviceGetUuid_v2");
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
            destroy_semaphore: sym!("cuDestroyExternalSemaphore"),
            wait_semaphores: sym!("cuWaitExternalSemaphoresAsync"),
            signal_semaphores: sym!("cuSignalExternalSemaphoresAsync"),
            stream_create: sym!("cuStreamCreate"),
            stream_destroy: sym!("cuStreamDestroy_v2"),
            memcpy_2d: sym!("cuMemcpy2DAsync_v2"),
            mem_host_alloc: sym!("cuMemHostAlloc"),
            mem_free_host: sym!("cuMemFreeHost"),
            mem_host_register: sym!("cuMemHostRegister_v2"),
            mem_host_unregister: sym!("cuMemHostUnregister"),
            event_create: sym!("cuEventCreate"),
            event_destroy: sym!("cuEventDestroy_v2"),
            event_record: sym!("cuEventRecord"),
            event_synchronize: sym!("cuEventSynchronize"),
            stream_wait_event: sym!("cuStreamWaitEvent"),
            ctx: std::ptr::null_mut(),
            ordinal: -1,
        };
        cuda.check(init(0), "cuInit")?;
        let mut n = 0;
        cuda.check(count(&mut n), "cuDeviceGetCount")?;
        // the CUDA device that is the core's Vulkan device: same UUID
        for i in 0..n {
            let mut dev = 0;
            cuda.check(get(&mut dev, i), "cuDeviceGet")?;
            let mut id = [0u8; 16];
            cuda.check(get_uuid(&mut id, dev), "cuDeviceGetUuid")?;
            if id == uuid {
                let mut ctx: CuContext = std::ptr::null_mut();
                cuda.check(retain(&mut ctx, dev), "cuDevicePrimaryCtxRetain")?;
                cuda.ctx = ctx;
                cuda.ordinal = i;
                return Ok(cuda);
            }
        }
        Err(format!("no CUDA device is the core's Vulkan device ({name})"))
    }
}

/// The driver with the primary context of the CUDA device whose UUID is `uuid` (a Vulkan
/// device's, `name` in errors), loaded once per device; the error says why there is none.
pub fn for_uuid(uuid: [u8; 16], name: &str) -> Result<&'static Cuda, String> {
    type Loaded = ([u8; 16], Result<&'static Cuda, String>);
    static LOADED: Mutex<Vec<Loaded>> = Mutex::new(Vec::new());
    let mut loaded = LOADED.lock();
    if let Some((_, r)) = loaded.iter().find(|(u, _)| *u == uuid) {
        return r.clone();
    }
    // (leaked: one per device for the life of the process, as the primary context it retains)
    let r = load_cuda(uuid, name).map(|c| &*Box::leak(Box::new(c)));
    loaded.push((uuid, r.clone()));
    r
}

// ---- imports, cached -----------------------------------------------------------------------------

struct MemoryImport {
    cu: &'static Cuda,
    memory: CuExternalMemory,
    base: CuDevicePtr,
    users: usize,
    last_use: u64,
    /// The allocation was freed on the Vulkan side while a user still had the import: it goes
    /// with the last use (the import alone keeps the memory).
    orphan: bool,
    /// Kept while the allocation lives, idle or not (keep_until_freed): the core's own copies
    /// reuse the same planes frame after frame, and an import evicted and made again costs a
    /// cuMemFree, which waits for the whole device.
    lasting: bool,
}

impl MemoryImport {
    fn destroy(self) {
        let cu = self.cu;
        let _ = cu.with_ctx(|| {
            // SAFETY: nobody uses it: no tensor, no queued work (the callers' rule).
            unsafe {
                (cu.mem_free)(self.base);
                (cu.destroy_memory)(self.memory);
            }
            Ok(())
        });
    }
}

struct SemaphoreImport {
    cu: &'static Cuda,
    semaphore: CuExternalSemaphore,
    /// keeps the VkSemaphore alive, so its handle value (the key) cannot be reused; when this is
    /// the last reference the import is forgotten (forget_unused_semaphores)
    timeline: Arc<crate::exec::Timeline>,
}

#[derive(Default)]
struct Imports {
    memory: HashMap<u64, MemoryImport>,
    semaphores: HashMap<u64, SemaphoreImport>,
    uses: u64,
}

// SAFETY: CUDA handles are plain identifiers, usable from any thread.
unsafe impl Send for Imports {}

/// Imports nobody uses kept at most (each pins its allocation while it is kept).
const KEEP_IDLE: usize = 32;

static IMPORTS: OnceLock<Mutex<Imports>> = OnceLock::new();

fn imports() -> &'static Mutex<Imports> {
    IMPORTS.get_or_init(|| Mutex::new(Imports::default()))
}

/// How many memory imports were made (not found in the cache), for the interop counters.
pub static MEMORY_IMPORTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Takes one use of the import of `memory_id` when it exists already.
pub fn use_cached(memory_id: u64) -> Option<CuDevicePtr> {
    let mut im = imports().lock();
    im.uses += 1;
    let now = im.uses;
    let m = im.memory.get_mut(&memory_id)?;
    m.users += 1;
    m.last_use = now;
    Some(m.base)
}

/// The device address of the allocation behind an exported plane, imported once per memoryId;
/// takes one use, given back with release_memory. The fd is consumed either way.
pub fn import_memory(cu: &'static Cuda, e: &crate::export::ExportedPlane) -> Result<CuDevicePtr, String> {
    if let Some(base) = use_cached(e.memory_id) {
        // SAFETY: a new fd for an allocation imported already: ours to close.
        unsafe { close(e.handle as i32) };
        return Ok(base);
    }
    if e.handle_type != VK_OPAQUE_FD {
        // SAFETY: ours, not consumed.
        unsafe { close(e.handle as i32) };
        return Err(format!("exportGPUPlane gave handle type {}, not an opaque fd", e.handle_type));
    }
    let (memory, base) = cu.with_ctx(|| {
        let desc = ExternalMemoryHandleDesc {
            kind: CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD,
            handle: [e.handle as u32 as u64, 0],
            size: e.memory_size,
            // vsvk's exportable planes are always dedicated allocations (gpu::frame), and CUDA
            // requires the flag to say so: no second try without it, which would hide a mismatch
            // and reuse an fd a failed import might have taken
            flags: CUDA_EXTERNAL_MEMORY_DEDICATED,
            reserved: [0; 16],
        };
        let mut memory: CuExternalMemory = std::ptr::null_mut();
        // SAFETY: a valid descriptor; the fd is consumed on success only.
        let r = unsafe { (cu.import_memory)(&mut memory, &desc) };
        if let Err(m) = cu.check(r, "cuImportExternalMemory") {
            // SAFETY: not consumed by a failed import.
            unsafe { close(e.handle as i32) };
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
    MEMORY_IMPORTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut im = imports().lock();
    im.uses += 1;
    let now = im.uses;
    if let Some(m) = im.memory.get_mut(&e.memory_id) {
        // another thread imported it meanwhile: keep theirs
        m.users += 1;
        m.last_use = now;
        let _ = cu.with_ctx(|| {
            // SAFETY: ours, unused by anything.
            unsafe {
                (cu.mem_free)(base);
                (cu.destroy_memory)(memory);
            }
            Ok(())
        });
        return Ok(m.base);
    }
    im.memory.insert(e.memory_id, MemoryImport { cu, memory, base, users: 1, last_use: now, orphan: false, lasting: false });
    Ok(base)
}

/// Gives back one use; idle imports past KEEP_IDLE go, least recently used first, and an orphan
/// (see forget_memory) at its last use. Callers make sure no queued work still reads what they give
/// back (see the Python module's DLPack hand-off and gpu_map, and gpu::cuda_copy).
pub fn release_memory(memory_id: u64) {
    let mut im = imports().lock();
    if let Some(m) = im.memory.get_mut(&memory_id) {
        m.users = m.users.saturating_sub(1);
        if m.users == 0 && m.orphan {
            if let Some(m) = im.memory.remove(&memory_id) {
                m.destroy();
            }
            return;
        }
    }
    for k in to_evict(im.memory.iter().map(|(k, m)| (*k, m.users, m.lasting, m.last_use))) {
        if let Some(m) = im.memory.remove(&k) {
            m.destroy();
        }
    }
}

/// Which imports go, of (memory id, users, lasting, last use): the least recently used idle ones
/// past KEEP_IDLE, never one in use or lasting (keep_until_freed).
fn to_evict(imports: impl Iterator<Item = (u64, usize, bool, u64)>) -> Vec<u64> {
    let mut idle: Vec<(u64, u64)> = imports.filter(|&(_, users, lasting, _)| users == 0 && !lasting).map(|(k, _, _, last)| (last, k)).collect();
    if idle.len() <= KEEP_IDLE {
        return Vec::new();
    }
    idle.sort_unstable();
    idle[..idle.len() - KEEP_IDLE].iter().map(|&(_, k)| k).collect()
}

#[cfg(test)]
mod tests {
    use super::{to_evict, KEEP_IDLE};

    #[test]
    fn idle_imports_past_the_cap_go_oldest_first_but_never_lasting_or_used_ones() {
        let n = KEEP_IDLE as u64;
        // the core's copies: more lasting imports than the cap, all idle between frames
        let lasting: Vec<_> = (0..3 * n).map(|k| (k, 0, true, k)).collect();
        assert!(to_evict(lasting.iter().copied()).is_empty());
        // the Python module's: idle ones past the cap go, least recently used first
        let mut python: Vec<_> = (0..n + 3).map(|k| (100 + k, 0, false, 1000 - k)).collect();
        python.push((7, 1, false, 0)); // in use, however old
        let mut gone = to_evict(python.iter().copied().chain(lasting.iter().copied()));
        gone.sort_unstable();
        assert_eq!(gone, [100 + n, 101 + n, 102 + n]);
        assert!(to_evict((0..n).map(|k| (k, 0, false, k))).is_empty());
    }
}

/// Keeps the import of `memory_id` until its allocation is freed (forget_memory), however long it
/// sits idle.
pub fn keep_until_freed(memory_id: u64) {
    if let Some(m) = imports().lock().memory.get_mut(&memory_id) {
        m.lasting = true;
    }
}

/// The allocation `memory_id` is being freed on the Vulkan side (gpu::frame's Exportable): its
/// import goes now, or with its last use, so that the import does not keep the memory.
pub fn forget_memory(memory_id: u64) {
    let Some(im) = IMPORTS.get() else { return };
    let mut im = im.lock();
    match im.memory.get_mut(&memory_id) {
        Some(m) if m.users > 0 => m.orphan = true,
        Some(_) => {
            if let Some(m) = im.memory.remove(&memory_id) {
                m.destroy();
            }
        }
        None => {}
    }
}

/// Drops the imports of timelines only this cache still holds (no plane names them, no filter
/// signals them any more). Kept, they would hold their semaphores, and the Vulkan device through
/// them, for the life of the process: one set per script reload. A wait a consumer queued on one
/// may still be pending on a stream we do not know (DLPack's), and CUDA wants those finished
/// before the destroy, so the context is synchronised first: a host wait, but only when a new
/// timeline is imported and garbage is there, not per frame.
fn forget_unused_semaphores(im: &mut Imports) {
    let unused: Vec<u64> = im.semaphores.iter().filter(|(_, s)| Arc::strong_count(&s.timeline) == 1).map(|(k, _)| *k).collect();
    let mut synced: Vec<*const Cuda> = Vec::new();
    for k in unused {
        let cu = im.semaphores[&k].cu;
        if !synced.contains(&(cu as *const Cuda)) {
            // SAFETY: a plain driver call with the context current.
            if cu.with_ctx(|| cu.check(unsafe { (cu.ctx_synchronize)() }, "cuCtxSynchronize")).is_err() {
                continue;
            }
            synced.push(cu);
        }
        if let Some(s) = im.semaphores.remove(&k) {
            // SAFETY: an import of ours that no queued work uses (see above).
            let _ = cu.with_ctx(|| cu.check(unsafe { (cu.destroy_semaphore)(s.semaphore) }, "cuDestroyExternalSemaphore"));
        }
    }
}

/// Drops the import of `timeline` (whose waits and signals are all done: the caller's promise),
/// then any other only the cache still holds, so that a device whose last user is gone goes now
/// rather than at the next import.
pub fn forget_semaphore(timeline: &crate::exec::Timeline) {
    let Some(im) = IMPORTS.get() else { return };
    let mut im = im.lock();
    if let Some(s) = im.semaphores.remove(&semaphore_key(timeline)) {
        let cu = s.cu;
        // SAFETY: an import of ours that no queued work uses (the caller's promise).
        let _ = cu.with_ctx(|| cu.check(unsafe { (cu.destroy_semaphore)(s.semaphore) }, "cuDestroyExternalSemaphore"));
        forget_unused_semaphores(&mut im);
    }
}

/// A VkSemaphore's handle value (a non-dispatchable handle is a u64).
pub fn semaphore_key(t: &crate::exec::Timeline) -> u64 {
    // SAFETY: ash's handle types are transparent wrappers of the u64 handle.
    unsafe { std::mem::transmute_copy(&t.sem) }
}

/// The CUDA semaphore for a core timeline, imported once; None where it cannot be exported.
pub fn import_semaphore(cu: &'static Cuda, timeline: &Arc<crate::exec::Timeline>) -> Option<CuExternalSemaphore> {
    let key = semaphore_key(timeline);
    let mut im = imports().lock();
    if let Some(s) = im.semaphores.get(&key) {
        return Some(s.semaphore);
    }
    forget_unused_semaphores(&mut im);
    let (kind, fd) = crate::export::export_semaphore(&timeline.dev, timeline.sem).ok()?;
    // an fd: this module's CUDA interop is the POSIX one
    let fd = fd as i32;
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
    im.semaphores.insert(key, SemaphoreImport { cu, semaphore: sem, timeline: timeline.clone() });
    Some(sem)
}
