//! Frames: VideoFrame and AudioFrame over the core's frames, their properties as a mapping
//! (FrameProps), and planes readable through the buffer protocol without copying (PlaneBuffer,
//! handed out as a memoryview: `numpy.asarray(frame[0])` is a view of the plane itself).
//!
//! Frames from the core are read-only. `copy()` gives a writable frame (sharing planes until one
//! is written); it turns read-only once it is handed back to the core (returned from a callback,
//! passed to a function or stored in a property), as the core may share it from then on.
use std::ffi::{c_int, c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::exceptions::{PyAttributeError, PyBufferError, PyIndexError, PyKeyError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMemoryView, PyTuple};
use vsvk::frame::Frame;
use vsvk_plugin_api::abi::*;

use crate::convert::{to_values_any, values_to_py_flat};
use crate::format::VideoFormat;

#[pyclass(module = "vsvk", subclass, frozen)]
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
        self.inner.lock().clone().ok_or_else(|| PyValueError::new_err("the frame is closed"))
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

fn sample_format(float: bool, bytes: i32, audio: bool) -> &'static CStr {
    match (float, bytes, audio) {
        (true, 2, _) => c"e",
        (true, _, _) => c"f",
        (false, 1, _) => c"B",
        (false, 2, false) => c"H",
        (false, 2, true) => c"h",
        (false, _, false) => c"I",
        (false, _, true) => c"i",
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
        PlaneBuffer { _frame: f, ptr, writable, format: sample_format(float, bytes, audio), itemsize: item, ndim, shape, strides, contiguous }
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
    fn props(&self) -> PyResult<FrameProps> {
        Ok(FrameProps { frame: self.frame()?, writable: self.writable.clone() })
    }
    #[setter]
    fn set_props(&self, new: &Bound<'_, PyAny>) -> PyResult<()> {
        let props = self.props()?;
        props.check_writable()?;
        // SAFETY: writable frames are ours alone.
        let map = unsafe { props.frame.props_mut() };
        map.clear();
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

/// A frame's properties as a mutable mapping (writes need a writable frame).
#[pyclass(module = "vsvk", frozen, mapping)]
pub struct FrameProps {
    frame: Arc<Frame>,
    writable: Arc<AtomicBool>,
}

impl FrameProps {
    fn check_writable(&self) -> PyResult<()> {
        if self.writable.load(Ordering::Acquire) {
            Ok(())
        } else {
            Err(crate::err("the frame is read-only: copy() it to change its properties"))
        }
    }
    fn lookup<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.frame.props().get(key.as_bytes()) {
            Ok(v) => Ok(Some(values_to_py_flat(py, v)?)),
            Err(_) => Ok(None),
        }
    }
    fn set(&self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_writable()?;
        // SAFETY: writable frames are ours alone.
        let map = unsafe { self.frame.props_mut() };
        if value.is_none() {
            map.delete(key.as_bytes());
            return Ok(());
        }
        match to_values_any(value, key)? {
            Some(v) => map.set_values(key.as_bytes(), v).map_err(|e| PyValueError::new_err(format!("property {key}: {e}"))),
            None => {
                // an empty list: the key with no values would read back as nothing; remove it
                map.delete(key.as_bytes());
                Ok(())
            }
        }
    }
    fn remove(&self, key: &str) -> PyResult<bool> {
        self.check_writable()?;
        // SAFETY: writable frames are ours alone.
        Ok(unsafe { self.frame.props_mut() }.delete(key.as_bytes()))
    }
    fn key_list(&self) -> Vec<String> {
        self.frame.props().keys().map(|k| k.to_string_lossy().into_owned()).collect()
    }
}

#[pymethods]
impl FrameProps {
    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        self.lookup(py, key)?.ok_or_else(|| PyKeyError::new_err(key.to_string()))
    }
    fn __setitem__(&self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(key, value)
    }
    fn __delitem__(&self, key: &str) -> PyResult<()> {
        if self.remove(key)? {
            Ok(())
        } else {
            Err(PyKeyError::new_err(key.to_string()))
        }
    }
    fn __contains__(&self, key: &str) -> bool {
        self.frame.props().contains(key.as_bytes())
    }
    fn __len__(&self) -> usize {
        self.frame.props().num_keys()
    }
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyList::new(py, self.key_list())?.as_any().try_iter()?.into_any())
    }
    fn keys(&self) -> Vec<String> {
        self.key_list()
    }
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.frame.props().iter().map(|(_, v)| values_to_py_flat(py, v)).collect()
    }
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
        self.frame.props().iter().map(|(k, v)| Ok((k.to_string_lossy().into_owned(), values_to_py_flat(py, v)?))).collect()
    }
    #[pyo3(signature = (key, default = None))]
    fn get<'py>(&self, py: Python<'py>, key: &str, default: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.lookup(py, key)?.unwrap_or_else(|| default.unwrap_or_else(|| py.None().into_bound(py))))
    }
    /// A plain dict of the properties.
    fn copy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        crate::convert::map_to_dict(py, self.frame.props())
    }
    #[pyo3(signature = (key, default = None))]
    fn setdefault<'py>(&self, py: Python<'py>, key: &str, default: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        if let Some(v) = self.lookup(py, key)? {
            return Ok(v);
        }
        let d = default.unwrap_or_else(|| 0i64.into_pyobject(py).expect("int").into_any());
        self.set(key, &d)?;
        Ok(d)
    }
    #[pyo3(signature = (key, *default))]
    fn pop<'py>(&self, py: Python<'py>, key: &str, default: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        match self.lookup(py, key)? {
            Some(v) => {
                self.remove(key)?;
                Ok(v)
            }
            None if !default.is_empty() => default.get_item(0),
            None => Err(PyKeyError::new_err(key.to_string())),
        }
    }
    #[pyo3(signature = (other = None, **kwargs))]
    fn update(&self, other: Option<&Bound<'_, PyAny>>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        if let Some(o) = other {
            let items = if o.hasattr("keys")? {
                let mut v = Vec::new();
                for k in o.call_method0("keys")?.try_iter()? {
                    let k = k?;
                    let val = o.get_item(&k)?;
                    v.push((k.extract::<String>()?, val));
                }
                v
            } else {
                o.try_iter()?.map(|i| i?.extract::<(String, Bound<'_, PyAny>)>()).collect::<PyResult<_>>()?
            };
            for (k, v) in items {
                self.set(&k, &v)?;
            }
        }
        if let Some(kw) = kwargs {
            for (k, v) in kw.iter() {
                self.set(&k.extract::<String>()?, &v)?;
            }
        }
        Ok(())
    }
    fn clear(&self) -> PyResult<()> {
        self.check_writable()?;
        // SAFETY: writable frames are ours alone.
        unsafe { self.frame.props_mut() }.clear();
        Ok(())
    }
    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        self.lookup(py, name)?.ok_or_else(|| PyAttributeError::new_err(format!("the frame has no property {name}")))
    }
    fn __setattr__(&self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(name, value)
    }
    fn __delattr__(&self, name: &str) -> PyResult<()> {
        if self.remove(name)? {
            Ok(())
        } else {
            Err(PyAttributeError::new_err(format!("the frame has no property {name}")))
        }
    }
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mine = self.copy(py)?;
        let theirs = if let Ok(p) = other.cast::<FrameProps>() { p.get().copy(py)?.into_any() } else { other.clone() };
        mine.as_any().eq(theirs)
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("<vsvk.FrameProps {}>", self.copy(py)?.repr()?))
    }
}
