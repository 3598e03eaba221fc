//! Frames: VideoFrame and AudioFrame over the core's frames (their properties: props.rs), and
//! planes readable through the buffer protocol without copying (PlaneBuffer, handed out as a
//! memoryview: `numpy.asarray(frame[0])` is a view of the plane itself).
//!
//! Frames from the core are read-only. `copy()` gives a writable frame (sharing planes until one
//! is written); it turns read-only once it is handed back to the core (returned from a callback,
//! passed to a function or stored in a property), as the core may share it from then on.
use std::ffi::{c_int, c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::exceptions::{PyBufferError, PyIndexError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyMemoryView, PyTuple};
use vsvk::frame::Frame;
use vsvk_plugin_api::abi::*;

use crate::format::VideoFormat;
use crate::props::FrameProps;

#[pyclass(module = "vsvk", subclass, frozen, weakref)]
pub struct RawFrame {
    inner: Mutex<Option<Arc<Frame>>>,
    writable: Arc<AtomicBool>,
}

#[pyclass(module = "vsvk", extends = RawFrame, frozen)]
pub struct VideoFrame;

#[pyclass(module = "vsvk", extends = RawFrame, frozen)]
pub struct AudioFrame;

impl RawFrame {
    pub fn frame(&self) -> PyResult<Arc<Frame>> {
        self.inner.lock().clone().ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("the frame is closed"))
    }
    fn writable(&self) -> bool {
        self.writable.load(Ordering::Acquire)
    }
}

pub fn frame_to_py(py: Python<'_>, f: Arc<Frame>, writable: bool) -> PyResult<Bound<'_, PyAny>> {
    let audio = f.is_audio();
    let base = RawFrame { inner: Mutex::new(Some(f)), writable: Arc::new(AtomicBool::new(writable)) };
    let init = PyClassInitializer::from(base);
    if audio {
        Ok(Bound::new(py, init.add_subclass(AudioFrame))?.into_any())
    } else {
        Ok(Bound::new(py, init.add_subclass(VideoFrame))?.into_any())
    }
}

/// The core's frame behind a Python frame; from now on the core may share it, so it turns read-only.
pub fn frame_from_py(obj: &Bound<'_, PyAny>) -> Option<Arc<Frame>> {
    let rf = obj.cast::<RawFrame>().ok()?;
    let rf = rf.get();
    rf.writable.store(false, Ordering::Release);
    rf.frame().ok()
}

fn base<'a>(slf: &'a Bound<'_, impl pyo3::PyClass<BaseType = RawFrame>>) -> &'a RawFrame {
    slf.as_super().get()
}

fn plane_index(f: &Frame, index: isize) -> PyResult<i32> {
    let n = f.num_planes() as isize;
    let i = if index < 0 { index + n } else { index };
    if i < 0 || i >= n {
        return Err(PyIndexError::new_err("plane index out of range"));
    }
    Ok(i as i32)
}

/// A plane's memory for the buffer protocol.
#[pyclass(module = "vsvk", frozen)]
pub struct PlaneBuffer {
    _frame: Arc<Frame>,
    ptr: usize,
    writable: bool,
    format: &'static CStr,
    itemsize: isize,
    ndim: c_int,
    shape: [isize; 2],
    strides: [isize; 2],
    contiguous: bool,
}

fn sample_format(float: bool, bytes: i32) -> &'static CStr {
    match (float, bytes) {
        (true, 2) => c"e",
        (true, _) => c"f",
        (false, 1) => c"B",
        // integer audio too is described as unsigned, as R81 does
        (false, 2) => c"H",
        (false, _) => c"I",
    }
}

impl PlaneBuffer {
    fn new(f: Arc<Frame>, plane: i32, writable: bool) -> PlaneBuffer {
        let (float, bytes, audio) = match (f.video_format(), f.audio_format()) {
            (Some(vf), _) => (vf.sampleType == stFloat, vf.bytesPerSample, false),
            (None, Some(af)) => (af.sampleType == stFloat, af.bytesPerSample, true),
            _ => (false, 1, false),
        };
        let pl = f.plane(plane).expect("plane index checked");
        let ptr = if writable {
            // SAFETY: a writable frame is owned by this Python frame alone (see the module notes).
            unsafe { f.write_ptr(plane) }.expect("plane index checked") as usize
        } else {
            f.read_ptr(plane).expect("plane index checked") as usize
        };
        let item = bytes as isize;
        let (ndim, shape, strides, contiguous) = if audio {
            (1, [pl.width as isize, 0], [item, 0], true)
        } else {
            let row = pl.width as isize * item;
            (2, [pl.height as isize, pl.width as isize], [pl.stride, item], pl.stride == row || pl.height <= 1)
        };
        PlaneBuffer { _frame: f, ptr, writable, format: sample_format(float, bytes), itemsize: item, ndim, shape, strides, contiguous }
    }
}

#[pymethods]
impl PlaneBuffer {
    unsafe fn __getbuffer__(slf: Bound<'_, Self>, view: *mut ffi::Py_buffer, flags: c_int) -> PyResult<()> {
        let me = slf.get();
        if view.is_null() {
            return Err(PyBufferError::new_err("no view to fill"));
        }
        if flags & ffi::PyBUF_WRITABLE != 0 && !me.writable {
            return Err(PyBufferError::new_err("the frame is read-only: copy() it to get a writable frame"));
        }
        if (flags & ffi::PyBUF_STRIDES) != ffi::PyBUF_STRIDES && !me.contiguous {
            return Err(PyBufferError::new_err("the plane's rows are padded: ask for a strided buffer"));
        }
        if (flags & ffi::PyBUF_C_CONTIGUOUS) == ffi::PyBUF_C_CONTIGUOUS && !me.contiguous {
            return Err(PyBufferError::new_err("the plane's rows are padded, so it is not contiguous"));
        }
        let count: isize = me.shape[..me.ndim as usize].iter().product();
        // SAFETY: `view` is the caller's to fill; shape, strides and format live as long as `slf`,
        // which the view keeps alive through `obj`.
        unsafe {
            (*view).obj = slf.clone().into_any().into_ptr();
            (*view).buf = me.ptr as *mut c_void;
            (*view).len = count * me.itemsize;
            (*view).readonly = (!me.writable) as c_int;
            (*view).itemsize = me.itemsize;
            (*view).format = if flags & ffi::PyBUF_FORMAT != 0 { me.format.as_ptr() as *mut _ } else { std::ptr::null_mut() };
            (*view).ndim = me.ndim;
            (*view).shape = if flags & ffi::PyBUF_ND != 0 { me.shape.as_ptr() as *mut _ } else { std::ptr::null_mut() };
            (*view).strides =
                if (flags & ffi::PyBUF_STRIDES) == ffi::PyBUF_STRIDES { me.strides.as_ptr() as *mut _ } else { std::ptr::null_mut() };
            (*view).suboffsets = std::ptr::null_mut();
            (*view).internal = std::ptr::null_mut();
        }
        Ok(())
    }
    unsafe fn __releasebuffer__(&self, _view: *mut ffi::Py_buffer) {}
}

fn plane_view<'py>(py: Python<'py>, rf: &RawFrame, index: isize) -> PyResult<Bound<'py, PyMemoryView>> {
    let f = rf.frame()?;
    if f.residency() == nrGPU {
        return Err(crate::err("the frame is GPU resident: its planes cannot be read from the CPU (std.GPUDownload it first)"));
    }
    let p = plane_index(&f, index)?;
    let buf = Bound::new(py, PlaneBuffer::new(f, p, rf.writable()))?;
    PyMemoryView::from(buf.as_any())
}

fn c_void_p<'py>(py: Python<'py>, addr: usize) -> PyResult<Bound<'py, PyAny>> {
    py.import("ctypes")?.getattr("c_void_p")?.call1((addr,))
}

#[pymethods]
impl RawFrame {
    #[getter]
    fn closed(&self) -> bool {
        self.inner.lock().is_none()
    }
    fn close(&self) {
        self.inner.lock().take();
    }
    /// A writable copy (planes are shared until written).
    fn copy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = self.frame()?;
        frame_to_py(py, Arc::new(f.shallow_copy()), true)
    }
    #[getter]
    fn props(slf: &Bound<'_, Self>) -> PyResult<FrameProps> {
        let me = slf.get();
        me.frame()?;
        Ok(FrameProps::new(slf.clone().unbind(), me.writable.clone()))
    }
    #[setter]
    fn set_props(slf: &Bound<'_, Self>, new: &Bound<'_, PyAny>) -> PyResult<()> {
        let props = Self::props(slf)?;
        props.clear_all()?;
        for item in new.call_method0("items")?.try_iter()? {
            let (k, v): (String, Bound<'_, PyAny>) = item?.extract()?;
            props.set(&k, &v)?;
        }
        Ok(())
    }
    fn get_read_ptr<'py>(&self, py: Python<'py>, plane: isize) -> PyResult<Bound<'py, PyAny>> {
        let f = self.frame()?;
        let p = plane_index(&f, plane)?;
        c_void_p(py, f.read_ptr(p).expect("checked") as usize)
    }
    fn get_write_ptr<'py>(&self, py: Python<'py>, plane: isize) -> PyResult<Bound<'py, PyAny>> {
        let f = self.frame()?;
        if !self.writable() {
            return Err(crate::err("the frame is read-only: copy() it to get a writable frame"));
        }
        let p = plane_index(&f, plane)?;
        // SAFETY: writable frames are ours alone.
        c_void_p(py, unsafe { f.write_ptr(p) }.expect("checked") as usize)
    }
    fn get_stride(&self, plane: isize) -> PyResult<isize> {
        let f = self.frame()?;
        let p = plane_index(&f, plane)?;
        Ok(f.plane(p).expect("checked").stride)
    }
    #[getter]
    fn readonly(&self) -> bool {
        !self.writable()
    }
    #[getter]
    fn gpu_resident(&self) -> PyResult<bool> {
        Ok(self.frame()?.residency() == nrGPU)
    }
    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }
    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyTuple>) -> bool {
        self.close();
        false
    }
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.frame()?.num_planes())
    }
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyMemoryView>> {
        plane_view(py, self, index)
    }
}

#[pymethods]
impl VideoFrame {
    #[getter]
    fn format(slf: &Bound<'_, Self>) -> PyResult<VideoFormat> {
        Ok(VideoFormat::new(base(slf).frame()?.video_format().expect("a video frame")))
    }
    #[getter]
    fn width(slf: &Bound<'_, Self>) -> PyResult<i32> {
        Ok(base(slf).frame()?.width)
    }
    #[getter]
    fn height(slf: &Bound<'_, Self>) -> PyResult<i32> {
        Ok(base(slf).frame()?.height)
    }
    /// Each plane's view in turn.
    fn readchunks<'py>(slf: &Bound<'py, Self>) -> PyResult<Vec<Bound<'py, PyMemoryView>>> {
        let rf = base(slf);
        let n = rf.frame()?.num_planes();
        (0..n as isize).map(|i| plane_view(slf.py(), rf, i)).collect()
    }
    fn __repr__(slf: &Bound<'_, Self>) -> String {
        let rf = base(slf);
        match rf.frame() {
            Ok(f) => format!(
                "<vsvk.VideoFrame format={}, width={}, height={}, readonly={}>",
                vsvk::format::video_name(f.video_format().expect("video")).unwrap_or_default(),
                f.width,
                f.height,
                if rf.writable() { "False" } else { "True" }
            ),
            Err(_) => "<vsvk.VideoFrame closed>".into(),
        }
    }
}

#[pymethods]
impl AudioFrame {
    #[getter]
    fn sample_type<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let st = base(slf).frame()?.audio_format().expect("audio").sampleType;
        slf.py().import("vsvk")?.getattr("SampleType")?.call1((st,))
    }
    #[getter]
    fn bits_per_sample(slf: &Bound<'_, Self>) -> PyResult<i32> {
        Ok(base(slf).frame()?.audio_format().expect("audio").bitsPerSample)
    }
    #[getter]
    fn bytes_per_sample(slf: &Bound<'_, Self>) -> PyResult<i32> {
        Ok(base(slf).frame()?.audio_format().expect("audio").bytesPerSample)
    }
    #[getter]
    fn channel_layout(slf: &Bound<'_, Self>) -> PyResult<u64> {
        Ok(base(slf).frame()?.audio_format().expect("audio").channelLayout)
    }
    #[getter]
    fn num_channels(slf: &Bound<'_, Self>) -> PyResult<i32> {
        Ok(base(slf).frame()?.audio_format().expect("audio").numChannels)
    }
    /// The channel layout as a vsvk.ChannelLayout (an int that iterates over its channels).
    #[getter]
    fn channels<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let layout = base(slf).frame()?.audio_format().expect("audio").channelLayout;
        slf.py().import("vsvk")?.getattr("ChannelLayout")?.call1((layout,))
    }
    /// Samples in this frame.
    #[getter]
    fn num_samples(slf: &Bound<'_, Self>) -> PyResult<i32> {
        Ok(base(slf).frame()?.width)
    }
    fn __repr__(slf: &Bound<'_, Self>) -> String {
        match base(slf).frame() {
            Ok(f) => {
                let af = f.audio_format().expect("audio");
                format!(
                    "<vsvk.AudioFrame bits_per_sample={}, num_channels={}, samples={}>",
                    af.bitsPerSample, af.numChannels, f.width
                )
            }
            Err(_) => "<vsvk.AudioFrame closed>".into(),
        }
    }
}
