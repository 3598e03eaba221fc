//! Clips: VideoNode and AudioNode (on a common RawNode) over the core's nodes; frame fetching with
//! the interpreter released and Ctrl-C honoured; in-order prefetching with a bounded number of
//! requests in flight (frames(), and `vsvk pipe`).
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};
use pyo3::exceptions::{PyAttributeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use vsvk::frame::Frame;
use vsvk::node::Node;
use vsvk::scheduler::{self, Delivery};
use vsvk_plugin_api::abi::*;

use crate::corepy::Plugin;
use crate::format::VideoFormat;
use crate::frame::frame_to_py;

#[pyclass(module = "vsvk", subclass, frozen, weakref)]
pub struct RawNode {
    pub node: Arc<Node>,
}

#[pyclass(module = "vsvk", extends = RawNode, frozen)]
pub struct VideoNode;

#[pyclass(module = "vsvk", extends = RawNode, frozen)]
pub struct AudioNode;

pub fn node_to_py(py: Python<'_>, n: Arc<Node>) -> PyResult<Bound<'_, PyAny>> {
    let audio = n.is_audio();
    let init = PyClassInitializer::from(RawNode { node: n });
    if audio {
        Ok(Bound::new(py, init.add_subclass(AudioNode))?.into_any())
    } else {
        Ok(Bound::new(py, init.add_subclass(VideoNode))?.into_any())
    }
}

pub fn node_from_py(obj: &Bound<'_, PyAny>) -> Option<Arc<Node>> {
    obj.cast::<RawNode>().ok().map(|n| n.get().node.clone())
}

fn node_of<'a>(slf: &'a Bound<'_, impl pyo3::PyClass<BaseType = RawNode>>) -> &'a Arc<Node> {
    &slf.as_super().get().node
}

const WAIT_SLICE: Duration = Duration::from_millis(50);

/// Frame `n` of `node`, waited for with the interpreter released; Ctrl-C (and any other pending
/// signal handler's exception) ends the wait.
/// An error once the node's environment is destroyed: its core takes no new work.
pub fn check_alive(node: &Arc<Node>) -> PyResult<()> {
    if node.core.freed.load(std::sync::atomic::Ordering::Acquire) {
        let kind = if node.is_audio() { "AudioNode" } else { "VideoNode" };
        return Err(crate::err(format!("Use of invalidated {kind} (its environment has been destroyed)")));
    }
    Ok(())
}

pub fn fetch(py: Python<'_>, node: &Arc<Node>, n: i32) -> PyResult<Arc<Frame>> {
    check_alive(node)?;
    if n < 0 || n >= node.num_frames() {
        return Err(PyValueError::new_err(format!("frame {n} requested, but the clip has {} frames (0 to {})", node.num_frames(), node.num_frames() - 1)));
    }
    if scheduler::on_worker_thread() {
        // a callback running on a core thread: the core lends the pool a thread while this blocks
        let node = node.clone();
        return py.detach(move || scheduler::get_frame(&node, n)).map_err(|e| crate::tunnel::error_from(py, &e));
    }
    let (tx, rx) = crossbeam_channel::bounded::<Delivery>(1);
    // not queued behind getFrameAsync callbacks: this wait may run inside one of them
    scheduler::get_frame_unordered(
        node,
        n,
        Box::new(move |r| {
            let _ = tx.send(r);
        }),
    );
    loop {
        match py.detach(|| rx.recv_timeout(WAIT_SLICE)) {
            Ok(r) => return r.map_err(|e| crate::tunnel::error_from(py, &e)),
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return Err(crate::err("the frame request was dropped")),
        }
    }
}

type Shared = Arc<(Mutex<HashMap<i32, Delivery>>, Condvar)>;

/// Hands out frames `start..end` of a node in order, with at most `window` requested and not yet
/// handed out.
pub struct Prefetcher {
    node: Arc<Node>,
    next_out: i32,
    next_req: i32,
    end: i32,
    window: i32,
    shared: Shared,
}

impl Prefetcher {
    pub fn new(node: Arc<Node>, start: i32, end: i32, window: usize) -> Prefetcher {
        Prefetcher {
            node,
            next_out: start,
            next_req: start,
            end,
            window: window.clamp(1, i32::MAX as usize) as i32,
            shared: Arc::new((Mutex::new(HashMap::new()), Condvar::new())),
        }
    }

    fn fill(&mut self) {
        while self.next_req < self.end && self.next_req - self.next_out < self.window {
            let shared = self.shared.clone();
            let n = self.next_req;
            // the handover takes its own lock: no need to queue behind getFrameAsync callbacks
            scheduler::get_frame_unordered(
                &self.node,
                n,
                Box::new(move |r| {
                    let (lock, cv) = &*shared;
                    lock.lock().insert(n, r);
                    cv.notify_all();
                }),
            );
            self.next_req += 1;
        }
    }

    /// The next frame and its number; None at the end. Waits with the interpreter released.
    pub fn next(&mut self, py: Python<'_>) -> Option<PyResult<(i32, Arc<Frame>)>> {
        if self.next_out >= self.end {
            return None;
        }
        self.fill();
        let n = self.next_out;
        let got = loop {
            let shared = self.shared.clone();
            let r = py.detach(move || {
                let (lock, cv) = &*shared;
                let mut m = lock.lock();
                if let Some(r) = m.remove(&n) {
                    return Some(r);
                }
                cv.wait_for(&mut m, WAIT_SLICE);
                m.remove(&n)
            });
            if let Some(r) = r {
                break r;
            }
            if let Err(e) = py.check_signals() {
                return Some(Err(e));
            }
        };
        self.next_out += 1;
        self.fill();
        Some(got.map(|f| (n, f)).map_err(crate::err))
    }
}

/// What node.frames() returns.
#[pyclass(module = "vsvk")]
pub struct FrameIterator {
    pre: Prefetcher,
    close: bool,
    last: Option<Py<PyAny>>,
}

#[pymethods]
impl FrameIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        if self.close {
            if let Some(last) = self.last.take() {
                let _ = last.bind(py).call_method0("close");
            }
        }
        match self.pre.next(py) {
            None => Ok(None),
            Some(Err(e)) => Err(e),
            Some(Ok((_, f))) => {
                let obj = frame_to_py(py, f, false)?.unbind();
                if self.close {
                    self.last = Some(obj.clone_ref(py));
                }
                Ok(Some(obj))
            }
        }
    }
}

fn frames_iter(node: &Arc<Node>, prefetch: Option<i64>, backlog: Option<i64>, close: bool) -> FrameIterator {
    let threads = node.core.threads() as i64;
    let prefetch = prefetch.filter(|p| *p > 0).unwrap_or(threads);
    let window = backlog.filter(|b| *b > 0).map(|b| b.max(prefetch)).unwrap_or(prefetch);
    FrameIterator { pre: Prefetcher::new(node.clone(), 0, node.num_frames(), window as usize), close, last: None }
}

fn get_frame_async_impl(py: Python<'_>, node: &Arc<Node>, n: i32, cb: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
    check_alive(node)?;
    // called on a core thread: in the environment current now
    let cb = match cb {
        Some(cb) => Some(py.import("vsvk")?.getattr("_bind_env")?.call1((cb,))?.unbind()),
        None => None,
    };
    let future = match &cb {
        Some(_) => None,
        None => {
            let future = py.import("concurrent.futures")?.getattr("Future")?.call0()?;
            // destroying the environment waits for it
            Some(py.import("vsvk")?.getattr("_track_future")?.call1((future,))?.unbind())
        }
    };
    let fut2 = future.as_ref().map(|f| f.clone_ref(py));
    let deliver = move |r: Delivery| {
        // nobody to deliver to once the interpreter is gone (a frame in flight at exit)
        crate::shutdown::with_python(|py| {
            let (frame, error) = match r {
                Ok(f) => match frame_to_py(py, f, false) {
                    Ok(obj) => (obj.unbind(), None),
                    Err(e) => (py.None(), Some(e)),
                },
                Err(e) => (py.None(), Some(crate::tunnel::error_from(py, &e))),
            };
            let result = match (&cb, &fut2) {
                (Some(cb), _) => cb.bind(py).call1((frame, error.map(|e| e.into_value(py)))).map(|_| ()),
                (None, Some(fut)) => match error {
                    None => fut.bind(py).call_method1("set_result", (frame,)).map(|_| ()),
                    Some(e) => fut.bind(py).call_method1("set_exception", (e.into_value(py),)).map(|_| ()),
                },
                _ => Ok(()),
            };
            if let Err(e) = result {
                e.print(py);
            }
        });
    };
    if n < 0 || n >= node.num_frames() {
        let e = PyValueError::new_err(format!("frame {n} requested, but the clip has {} frames", node.num_frames()));
        return Err(e);
    }
    scheduler::get_frame_async(node, n, Box::new(deliver));
    Ok(future.unwrap_or_else(|| py.None()))
}

#[pymethods]
impl RawNode {
    fn get_frame<'py>(&self, py: Python<'py>, n: i32) -> PyResult<Bound<'py, PyAny>> {
        let f = fetch(py, &self.node, n)?;
        frame_to_py(py, f, false)
    }
    /// With `cb`, calls cb(frame, None) or cb(None, error) on a core thread when the frame is done;
    /// without, returns a concurrent.futures.Future.
    #[pyo3(signature = (n, cb = None))]
    fn get_frame_async(&self, py: Python<'_>, n: i32, cb: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        get_frame_async_impl(py, &self.node, n, cb)
    }
    /// Every frame in order, `prefetch` (default: the core's threads) requested ahead.
    #[pyo3(signature = (prefetch = None, backlog = None, close = false, collect_garbage = true))]
    fn frames(&self, prefetch: Option<i64>, backlog: Option<i64>, close: bool, collect_garbage: bool) -> PyResult<FrameIterator> {
        let _ = collect_garbage;
        check_alive(&self.node)?;
        Ok(frames_iter(&self.node, prefetch, backlog, close))
    }
    fn clear_cache(&self) {
        self.node.clear_cache();
    }
    #[getter]
    fn node_name(&self) -> String {
        self.node.name_str()
    }
    /// Nanoseconds spent in this node's filter while core.timings.enabled is set; set it to 0 to reset.
    #[getter]
    fn timings(&self) -> i64 {
        self.node.processing_ns.load(std::sync::atomic::Ordering::Relaxed)
    }
    #[setter]
    fn set_timings(&self, v: i64) -> PyResult<()> {
        if v != 0 {
            return Err(PyValueError::new_err("timings can only be reset, to 0"));
        }
        self.node.processing_ns.store(0, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
    #[getter]
    fn mode<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("vsvk")?.getattr("FilterMode")?.call1((self.node.mode,))
    }
    #[getter]
    fn dependencies<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let deps: Vec<Bound<'py, PyAny>> = self
            .node
            .deps
            .iter()
            // SAFETY: the node holds its dependencies alive.
            .map(|d| node_to_py(py, unsafe { Node::clone_raw(d.source) }))
            .collect::<PyResult<_>>()?;
        PyTuple::new(py, deps)
    }
    #[pyo3(signature = (version = None))]
    fn is_inspectable(&self, version: Option<i32>) -> bool {
        let _ = version;
        self.node.core.graph_inspection()
    }
    #[getter]
    fn num_frames(&self) -> i32 {
        self.node.num_frames()
    }
    /// Frames of a video clip, samples of an audio clip (as R81 counts them).
    fn __len__(&self) -> usize {
        match self.node.audio_info() {
            Some(ai) => ai.numSamples.max(0) as usize,
            None => self.node.num_frames().max(0) as usize,
        }
    }
    fn __getitem__<'py>(&self, py: Python<'py>, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let n = crate::remap::getitem(py, &self.node, key)?;
        node_to_py(py, n)
    }
    fn __add__<'py>(&self, py: Python<'py>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let Some(o) = node_from_py(other) else { return Ok(py.NotImplemented().into_bound(py)) };
        node_to_py(py, crate::remap::splice(py, &self.node, &o)?)
    }
    fn __radd__<'py>(&self, py: Python<'py>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let Some(o) = node_from_py(other) else { return Ok(py.NotImplemented().into_bound(py)) };
        node_to_py(py, crate::remap::splice(py, &o, &self.node)?)
    }
    fn __mul__<'py>(&self, py: Python<'py>, times: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let Ok(t) = times.extract::<i64>() else { return Ok(py.NotImplemented().into_bound(py)) };
        node_to_py(py, crate::remap::repeat(py, &self.node, t)?)
    }
    /// `n * clip` is refused, as in R81 (only `clip * n` repeats).
    fn __rmul__<'py>(&self, py: Python<'py>, _times: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        Ok(py.NotImplemented().into_bound(py))
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        node_from_py(other).is_some_and(|o| Arc::ptr_eq(&o, &self.node))
    }
    fn __hash__(&self) -> u64 {
        Arc::as_ptr(&self.node) as usize as u64
    }
    /// `clip.namespace`: the plugin, with this clip bound as the first argument of its functions.
    fn __getattr__(slf: &Bound<'_, Self>, name: &str) -> PyResult<Plugin> {
        match slf.get().node.core.plugin_by_ns(name) {
            Some(p) => Ok(Plugin { plugin: p, bound: Some(slf.clone().into_any().unbind()) }),
            None => Err(PyAttributeError::new_err(format!(
                "no attribute or plugin namespace named {name} (is the plugin that provides it loaded?)"
            ))),
        }
    }
}

/// R81's conditions on an output's alpha clip: GRAY of the clip's sample type and depth, the
/// clip's dimensions and length.
fn check_alpha(clip: &Node, alpha: &Node) -> PyResult<()> {
    let (c, a) = (clip.video_info().expect("video"), alpha.video_info().expect("video"));
    let (cf, af) = (&c.format, &a.format);
    if af.colorFamily != cfGray || af.sampleType != cf.sampleType || af.bitsPerSample != cf.bitsPerSample {
        return Err(crate::err("Alpha clip format must match the main video (GRAY of its sample type and depth)"));
    }
    if (a.width, a.height) != (c.width, c.height) {
        return Err(crate::err("Alpha clip dimensions must match the main video"));
    }
    if a.numFrames != c.numFrames {
        return Err(crate::err("Alpha clip length must match the main video"));
    }
    Ok(())
}

pub fn fps_fraction<'py>(py: Python<'py>, num: i64, den: i64) -> PyResult<Bound<'py, PyAny>> {
    py.import("fractions")?.getattr("Fraction")?.call1((num, den.max(1)))
}

#[pymethods]
impl VideoNode {
    #[getter]
    fn format(slf: &Bound<'_, Self>) -> VideoFormat {
        VideoFormat::new(&node_of(slf).video_info().expect("video").format)
    }
    #[getter]
    fn width(slf: &Bound<'_, Self>) -> i32 {
        node_of(slf).video_info().expect("video").width
    }
    #[getter]
    fn height(slf: &Bound<'_, Self>) -> i32 {
        node_of(slf).video_info().expect("video").height
    }
    #[getter]
    fn fps_num(slf: &Bound<'_, Self>) -> i64 {
        node_of(slf).video_info().expect("video").fpsNum
    }
    #[getter]
    fn fps_den(slf: &Bound<'_, Self>) -> i64 {
        node_of(slf).video_info().expect("video").fpsDen
    }
    #[getter]
    fn fps<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let vi = node_of(slf).video_info().expect("video");
        fps_fraction(slf.py(), vi.fpsNum, vi.fpsDen)
    }
    #[getter]
    fn gpu_resident(slf: &Bound<'_, Self>) -> bool {
        node_of(slf).residency() == nrGPU
    }
    fn __dir__(slf: &Bound<'_, Self>) -> PyResult<Vec<String>> {
        crate::objects::node_dir(slf.as_any(), false)
    }
    #[pyo3(signature = (index = 0, alpha = None, alt_output = 0))]
    fn set_output(slf: &Bound<'_, Self>, index: i32, alpha: Option<&Bound<'_, PyAny>>, alt_output: i32) -> PyResult<()> {
        let alpha = match alpha {
            None => None,
            Some(a) if a.is_none() => None,
            Some(a) => match node_from_py(a) {
                Some(n) if !n.is_audio() => Some(n),
                _ => return Err(PyTypeError::new_err("alpha must be a VideoNode")),
            },
        };
        if let Some(a) = &alpha {
            check_alpha(node_of(slf), a)?;
        }
        if !(0..=2).contains(&alt_output) {
            return Err(PyValueError::new_err("alt_output must be 0, 1 or 2"));
        }
        crate::set_output(slf.py(), index, crate::Output::Video { clip: node_of(slf).clone(), alpha, alt_output })?;
        Ok(())
    }
    /// Writes every frame to `fileobj` (raw planes, or y4m), as `vsvk pipe` does.
    #[pyo3(signature = (fileobj, y4m = false, progress_update = None, prefetch = 0, backlog = -1))]
    fn output(
        slf: &Bound<'_, Self>,
        fileobj: &Bound<'_, PyAny>,
        y4m: bool,
        progress_update: Option<&Bound<'_, PyAny>>,
        prefetch: i64,
        backlog: i64,
    ) -> PyResult<()> {
        let node = node_of(slf).clone();
        let header = if y4m { crate::pipe::y4m_header(&node, node.num_frames() as i64).map_err(crate::err)?.into_bytes() } else { Vec::new() };
        write_output(&node, fileobj, &header, progress_update, (prefetch, backlog), |f, buf| {
            if y4m {
                buf.extend_from_slice(b"FRAME\n");
            }
            crate::pipe::append_planes(f, buf);
        })
    }
    fn __repr__(slf: &Bound<'_, Self>) -> String {
        let vi = node_of(slf).video_info().expect("video");
        format!(
            "<vsvk.VideoNode format={}, width={}, height={}, num_frames={}, fps={}>",
            VideoFormat::new(&vi.format).name(),
            vi.width,
            vi.height,
            vi.numFrames,
            fps_text(vi.fpsNum, vi.fpsDen)
        )
    }
}

pub fn fps_text(num: i64, den: i64) -> String {
    if den == 1 || num == 0 {
        num.to_string()
    } else {
        format!("{num}/{den}")
    }
}

#[pymethods]
impl AudioNode {
    #[getter]
    fn sample_type<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let st = node_of(slf).audio_info().expect("audio").format.sampleType;
        slf.py().import("vsvk")?.getattr("SampleType")?.call1((st,))
    }
    #[getter]
    fn bits_per_sample(slf: &Bound<'_, Self>) -> i32 {
        node_of(slf).audio_info().expect("audio").format.bitsPerSample
    }
    #[getter]
    fn bytes_per_sample(slf: &Bound<'_, Self>) -> i32 {
        node_of(slf).audio_info().expect("audio").format.bytesPerSample
    }
    #[getter]
    fn channel_layout(slf: &Bound<'_, Self>) -> u64 {
        node_of(slf).audio_info().expect("audio").format.channelLayout
    }
    #[getter]
    fn num_channels(slf: &Bound<'_, Self>) -> i32 {
        node_of(slf).audio_info().expect("audio").format.numChannels
    }
    /// The channel layout as a vsvk.ChannelLayout (an int that iterates over its channels).
    #[getter]
    fn channels<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let layout = node_of(slf).audio_info().expect("audio").format.channelLayout;
        slf.py().import("vsvk")?.getattr("ChannelLayout")?.call1((layout,))
    }
    #[getter]
    fn sample_rate(slf: &Bound<'_, Self>) -> i32 {
        node_of(slf).audio_info().expect("audio").sampleRate
    }
    #[getter]
    fn num_samples(slf: &Bound<'_, Self>) -> i64 {
        node_of(slf).audio_info().expect("audio").numSamples
    }
    #[getter]
    fn gpu_resident(&self) -> bool {
        false
    }
    fn __dir__(slf: &Bound<'_, Self>) -> PyResult<Vec<String>> {
        crate::objects::node_dir(slf.as_any(), true)
    }
    #[pyo3(signature = (index = 0))]
    fn set_output(slf: &Bound<'_, Self>, index: i32) -> PyResult<()> {
        crate::set_output(slf.py(), index, crate::Output::Audio(node_of(slf).clone()))
    }
    /// Writes every sample to `fileobj`, interleaved by channel (raw, or after a WAVE or Wave64
    /// header), as `vsvk pipe` does.
    #[pyo3(signature = (fileobj, wav = false, w64 = false, progress_update = None, prefetch = 0, backlog = -1))]
    fn output(
        slf: &Bound<'_, Self>,
        fileobj: &Bound<'_, PyAny>,
        wav: bool,
        w64: bool,
        progress_update: Option<&Bound<'_, PyAny>>,
        prefetch: i64,
        backlog: i64,
    ) -> PyResult<()> {
        let node = node_of(slf).clone();
        let ai = node.audio_info().expect("audio");
        let kind = match (wav, w64) {
            (true, true) => return Err(PyValueError::new_err("wav and w64 cannot both be chosen")),
            (true, false) => Some(crate::wave::Wave::Riff),
            (false, true) => Some(crate::wave::Wave::W64),
            (false, false) => None,
        };
        let header = match kind {
            Some(kind) => crate::wave::header(kind, &ai.format, ai.sampleRate, ai.numSamples).map_err(crate::err)?,
            None => Vec::new(),
        };
        write_output(&node, fileobj, &header, progress_update, (prefetch, backlog), |f, buf| crate::pipe::append_samples(f, buf))
    }
    fn __repr__(slf: &Bound<'_, Self>) -> String {
        let ai = node_of(slf).audio_info().expect("audio");
        format!(
            "<vsvk.AudioNode bits_per_sample={}, sample_type={}, num_channels={}, sample_rate={}, num_samples={}>",
            ai.format.bitsPerSample,
            if ai.format.sampleType == stFloat { "FLOAT" } else { "INTEGER" },
            ai.format.numChannels,
            ai.sampleRate,
            ai.numSamples
        )
    }
}

/// `output()` of a clip: `header`, then each frame as `append` writes it, in order, with the frames
/// after it requested ahead (`prefetch`, default the core's threads, at least `backlog`) and
/// `progress_update(done, total)` before the first and after each.
fn write_output(
    node: &Arc<Node>,
    fileobj: &Bound<'_, PyAny>,
    header: &[u8],
    progress_update: Option<&Bound<'_, PyAny>>,
    (prefetch, backlog): (i64, i64),
    append: impl Fn(&Frame, &mut Vec<u8>),
) -> PyResult<()> {
    let py = fileobj.py();
    if !header.is_empty() {
        fileobj.call_method1("write", (pyo3::types::PyBytes::new(py, header),))?;
    }
    let window = if prefetch > 0 { prefetch } else { node.core.threads() as i64 }.max(backlog);
    let total = node.num_frames();
    if let Some(cb) = progress_update {
        cb.call1((0, total))?;
    }
    let mut pre = Prefetcher::new(node.clone(), 0, total, window as usize);
    let mut buf = Vec::new();
    while let Some(r) = pre.next(py) {
        let (n, f) = r?;
        buf.clear();
        append(&f, &mut buf);
        fileobj.call_method1("write", (pyo3::types::PyBytes::new(py, &buf),))?;
        if let Some(cb) = progress_update {
            cb.call1((n + 1, total))?;
        }
    }
    Ok(())
}
