//! VideoFormat: a video format as scripts see it (clip.format, core.get_video_format ...).
use pyo3::prelude::*;
use pyo3::types::PyDict;
use vsvk::format as vf;
use vsvk_plugin_api::abi::*;

#[pyclass(module = "vsvk", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct VideoFormat {
    pub f: VSVideoFormatKey,
}

/// VSVideoFormat's fields, hashable.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct VSVideoFormatKey(pub [i32; 7]);

impl VideoFormat {
    /// `f`, or for a clip of varying format (colour family undefined) the format of id 0 (NONE),
    /// all of whose fields are 0, as R81 reports it.
    pub fn new(f: &VSVideoFormat) -> VideoFormat {
        if f.colorFamily == cfUndefined {
            return VideoFormat { f: VSVideoFormatKey([0; 7]) };
        }
        VideoFormat {
            f: VSVideoFormatKey([f.colorFamily, f.sampleType, f.bitsPerSample, f.bytesPerSample, f.subSamplingW, f.subSamplingH, f.numPlanes]),
        }
    }
    pub fn vs(&self) -> VSVideoFormat {
        let [cf, st, bits, bytes, ssw, ssh, planes] = self.f.0;
        VSVideoFormat { colorFamily: cf, sampleType: st, bitsPerSample: bits, bytesPerSample: bytes, subSamplingW: ssw, subSamplingH: ssh, numPlanes: planes }
    }
}

fn enum_member<'py>(py: Python<'py>, class: &str, v: i32) -> PyResult<Bound<'py, PyAny>> {
    py.import("vsvk")?.getattr(class)?.call1((v,))
}

/// A format from what scripts pass: a VideoFormat, a preset or a format id (of a real format).
pub fn format_from_py(obj: &Bound<'_, PyAny>) -> PyResult<VSVideoFormat> {
    if let Ok(f) = obj.cast::<VideoFormat>() {
        return Ok(f.get().vs());
    }
    let id: u32 = obj.extract()?;
    vf::video_by_id(id).ok_or_else(|| crate::err(format!("{id} is not a valid video format id")))
}

/// core.get_video_format: as format_from_py, but an id of no format gives the NONE format (id 0),
/// as in R81.
pub fn format_or_none(obj: &Bound<'_, PyAny>) -> PyResult<VideoFormat> {
    if let Ok(f) = obj.cast::<VideoFormat>() {
        return Ok(f.get().clone());
    }
    let id: u32 = obj.extract()?;
    Ok(vf::video_by_id(id).map(|f| VideoFormat::new(&f)).unwrap_or(VideoFormat { f: VSVideoFormatKey([0; 7]) }))
}

pub fn query(cf: i32, st: i32, bits: i32, ssw: i32, ssh: i32) -> PyResult<VideoFormat> {
    vf::query_video(cf, st, bits, ssw, ssh)
        .map(|f| VideoFormat::new(&f))
        .ok_or_else(|| crate::err(format!("invalid format specification (color family {cf}, sample type {st}, {bits} bits, subsampling {ssw}/{ssh})")))
}

#[pymethods]
impl VideoFormat {
    #[getter]
    fn id(&self) -> u32 {
        vf::video_id(&self.vs())
    }
    #[getter]
    pub fn name(&self) -> String {
        if self.f.0[0] == cfUndefined {
            return "None".into();
        }
        vf::video_name(&self.vs()).unwrap_or_else(|| "invalid".into())
    }
    #[getter]
    fn color_family<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        enum_member(py, "ColorFamily", self.f.0[0])
    }
    #[getter]
    fn sample_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        enum_member(py, "SampleType", self.f.0[1])
    }
    #[getter]
    fn bits_per_sample(&self) -> i32 {
        self.f.0[2]
    }
    #[getter]
    fn bytes_per_sample(&self) -> i32 {
        self.f.0[3]
    }
    #[getter]
    fn subsampling_w(&self) -> i32 {
        self.f.0[4]
    }
    #[getter]
    fn subsampling_h(&self) -> i32 {
        self.f.0[5]
    }
    #[getter]
    fn num_planes(&self) -> i32 {
        self.f.0[6]
    }

    fn _as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("id", self.id())?;
        d.set_item("name", self.name())?;
        d.set_item("color_family", self.color_family(py)?)?;
        d.set_item("sample_type", self.sample_type(py)?)?;
        d.set_item("bits_per_sample", self.bits_per_sample())?;
        d.set_item("bytes_per_sample", self.bytes_per_sample())?;
        d.set_item("subsampling_w", self.subsampling_w())?;
        d.set_item("subsampling_h", self.subsampling_h())?;
        d.set_item("num_planes", self.num_planes())?;
        Ok(d)
    }

    /// This format with some fields changed.
    #[pyo3(signature = (*, core = None, color_family = None, sample_type = None, bits_per_sample = None, subsampling_w = None, subsampling_h = None))]
    fn replace(
        &self,
        core: Option<Bound<'_, PyAny>>,
        color_family: Option<i32>,
        sample_type: Option<i32>,
        bits_per_sample: Option<i32>,
        subsampling_w: Option<i32>,
        subsampling_h: Option<i32>,
    ) -> PyResult<VideoFormat> {
        let _ = core;
        let [cf, st, bits, _, ssw, ssh, _] = self.f.0;
        if cf == cfUndefined {
            // R81 gives the NONE format back whatever is asked
            return Ok(self.clone());
        }
        // the subsampling is kept (YUV420 to GRAY is an error, as in R81)
        query(
            color_family.unwrap_or(cf),
            sample_type.unwrap_or(st),
            bits_per_sample.unwrap_or(bits),
            subsampling_w.unwrap_or(ssw),
            subsampling_h.unwrap_or(ssh),
        )
    }

    fn __int__(&self) -> u32 {
        self.id()
    }
    /// A field per line, as R81 writes it.
    fn __str__(&self) -> String {
        let [cf, st, bits, bytes, ssw, ssh, planes] = self.f.0;
        let cf = ["UNDEFINED", "GRAY", "RGB", "YUV"].get(cf as usize).copied().unwrap_or("?");
        let st = if st == stFloat { "FLOAT" } else { "INTEGER" };
        let sub = |s: i32| if s == 0 { "None".to_string() } else { format!("{}x", 1 << s) };
        format!(
            "VideoFormat\n\tID: {}\n\tName: {}\n\tColor Family: {cf}\n\tSample Type: {st}\n\tBits Per Sample: {bits}\n\tBytes Per Sample: {bytes}\n\tNum Planes: {planes}\n\tSubsampling W: {}\n\tSubsampling H: {}\n",
            self.id(),
            self.name(),
            sub(ssw),
            sub(ssh)
        )
    }
    fn __repr__(&self) -> String {
        let [cf, st, bits, bytes, ssw, ssh, planes] = self.f.0;
        let cf = ["UNDEFINED", "GRAY", "RGB", "YUV"].get(cf as usize).copied().unwrap_or("?");
        let st = if st == stFloat { "FLOAT" } else { "INTEGER" };
        format!(
            "<vsvk.VideoFormat id={}, name={}, color_family={cf}, sample_type={st}, bits_per_sample={bits}, bytes_per_sample={bytes}, num_planes={planes}, subsampling_w={ssw}, subsampling_h={ssh}>",
            self.id(),
            self.name()
        )
    }
}
