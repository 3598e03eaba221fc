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
//! CUDA is reached through cuda.rs (the driver library opened at run time). Linux only: the
//! Windows path (opaque win32 handles) is the CUDA SDK example's (sdk-examples/). gpu_map.rs hands
//! its planes out through the same capsules (`capsule`), with the tensor's life watched instead.
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pyo3::exceptions::{PyBufferError, PyIndexError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyList;
use vsvk::frame::Frame;
use vsvk_plugin_api::abi::*;

use crate::cuda::{cuda, import_memory, import_semaphore, release_memory, semaphore_key, CuDevicePtr, CuStream};
use crate::err;

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

/// What a handed-out tensor owns: its shape arrays, and either the frame and one use of the
/// import (gpu_planes: given back once the context is synchronised), or a flag gpu_map reads to
/// learn whether the consumer let go of the tensor by the end of its call.
struct TensorCtx {
    shape: [i64; 2],
    strides: [i64; 2],
    owner: Owner,
}

pub enum Owner {
    /// gpu_planes: the frame and one use of the memory import.
    Frame(Option<Arc<Frame>>, u64),
    /// gpu_map: cleared when the consumer lets go, and one use of the memory import, given back
    /// without synchronising (gpu_map's own use covers its queued work).
    Watched(Arc<AtomicBool>, u64),
}

unsafe extern "C" fn delete_tensor(t: *mut DLManagedTensor) {
    if t.is_null() {
        return;
    }
    // SAFETY: made by Box::into_raw in `capsule`, deleted once (DLPack's contract).
    let t = unsafe { Box::from_raw(t) };
    // SAFETY: as above.
    let mut ctx = unsafe { Box::from_raw(t.manager_ctx as *mut TensorCtx) };
    let Ok(cu) = cuda() else { return };
    match &mut ctx.owner {
        Owner::Frame(frame, memory_id) => {
            // kernels queued on any stream may still read the plane: finish them before the frame,
            // whose memory the core recycles, goes
            // SAFETY: a plain driver call with the context current.
            let _ = cu.with_ctx(|| cu.check(unsafe { (cu.ctx_synchronize)() }, "cuCtxSynchronize"));
            *frame = None;
            release_memory(*memory_id);
        }
        Owner::Watched(alive, memory_id) => {
            alive.store(false, Ordering::Release);
            release_memory(*memory_id);
        }
    }
}

/// DLPack's sample type for a format's sample type and size: (code, bits, name).
pub fn dtype(float: bool, bytes: i32) -> (u8, u8, &'static str) {
    match (float, bytes) {
        (true, 2) => (2, 16, "float16"),
        (true, _) => (2, 32, "float32"),
        (false, 1) => (1, 8, "uint8"),
        (false, 2) => (1, 16, "uint16"),
        (false, _) => (1, 32, "uint32"),
    }
}

/// A "dltensor" capsule over a (height, width) plane at device address `data` with a row stride
/// of `stride` bytes, owned by `owner` until the consumer's deleter runs.
pub fn capsule<'py>(py: Python<'py>, data: CuDevicePtr, height: i32, width: i32, stride: isize, float: bool, bytes: i32, owner: Owner) -> PyResult<Bound<'py, PyAny>> {
    let cu = cuda().map_err(|e| err(crate::cuda::needs("DLPack hand-off", &e)))?;
    let ctx = Box::new(TensorCtx { shape: [height as i64, width as i64], strides: [(stride / bytes as isize) as i64, 1], owner });
    let ctx = Box::into_raw(ctx);
    let (code, bits, _) = dtype(float, bytes);
    let t = Box::new(DLManagedTensor {
        dl_tensor: DLTensor {
            data: data as usize as *mut c_void,
            device: DLDevice { device_type: KDL_CUDA, device_id: cu.ordinal },
            ndim: 2,
            dtype: DLDataType { code, bits, lanes: 1 },
            // SAFETY: ctx lives until the deleter runs.
            shape: unsafe { (*ctx).shape.as_mut_ptr() },
            // SAFETY: as above.
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

/// What a consumer's `__dlpack__` capsule holds, for gpu_map's checks of returned tensors.
pub struct Foreign {
    pub data: CuDevicePtr,
    pub device: (i32, i32),
    pub dtype: (u8, u8, u16),
    pub shape: Vec<i64>,
    /// in elements; None means compact row-major
    pub strides: Option<Vec<i64>>,
    managed: *mut DLManagedTensor,
}

// SAFETY: the tensor is only described and finally deleted, under the GIL, by its holder.
unsafe impl Send for Foreign {}

impl Foreign {
    /// Takes the tensor out of a "dltensor" capsule (renaming it "used_dltensor", as consumers do).
    pub fn take(cap: &Bound<'_, PyAny>) -> PyResult<Foreign> {
        // SAFETY: capsule calls on a live object; the pointer is read only while valid.
        unsafe {
            let p = cap.as_ptr();
            if ffi::PyCapsule_IsValid(p, c"dltensor".as_ptr()) != 1 {
                ffi::PyErr_Clear();
                return Err(err("__dlpack__ did not return an unused \"dltensor\" capsule"));
            }
            let m = ffi::PyCapsule_GetPointer(p, c"dltensor".as_ptr()) as *mut DLManagedTensor;
            if ffi::PyCapsule_SetName(p, c"used_dltensor".as_ptr()) != 0 {
                return Err(PyErr::fetch(cap.py()));
            }
            let t = &(*m).dl_tensor;
            let nd = t.ndim.max(0) as usize;
            let shape = if t.shape.is_null() { Vec::new() } else { std::slice::from_raw_parts(t.shape, nd).to_vec() };
            let strides = (!t.strides.is_null()).then(|| std::slice::from_raw_parts(t.strides, nd).to_vec());
            Ok(Foreign {
                data: t.data as usize as u64 + t.byte_offset,
                device: (t.device.device_type, t.device.device_id),
                dtype: (t.dtype.code, t.dtype.bits, t.dtype.lanes),
                shape,
                strides,
                managed: m,
            })
        }
    }
}

impl Drop for Foreign {
    fn drop(&mut self) {
        // SAFETY: taken from a capsule that no longer owns it; deleted once, here.
        unsafe {
            if let Some(d) = (*self.managed).deleter {
                d(self.managed);
            }
        }
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
        dtype(self.float, self.bytes)
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
        let cu = cuda().map_err(|e| err(crate::cuda::needs("DLPack hand-off", &e)))?;
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
        let cu = cuda().map_err(|e| err(crate::cuda::needs("DLPack hand-off", &e)))?;
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
                            // None is the legacy default stream, CU_STREAM_LEGACY (1)
                            let s = stream.unwrap_or(1) as usize as CuStream;
                            cu.wait(sem, producer.value, s)
                        }
                        // a producer that cannot be waited on the device: wait on the host
                        None => vsvk::gpu::export::wait_frame(&frame).map_err(|(_, m)| m),
                    }
                })();
                if let Err(m) = ready {
                    release_memory(e.memory_id);
                    return Err(m);
                }
                Ok((base + e.offset, e.memory_id))
            })
            .map_err(err)?;
        capsule(py, base, self.height, self.width, self.stride, self.float, self.bytes, Owner::Frame(Some(frame), memory_id))
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
