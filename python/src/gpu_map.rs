//! `vsvk.gpu_map(clip, fn, ...)`: a filter made from a Python function over CUDA tensors, whose
//! frames stay on the GPU both ways.
//!
//! Per frame: the input planes (frames n-radius..n+radius, clamped) are imported into CUDA once
//! per allocation (cuda.rs caches by memoryId) and the output frame's planes are new exportable
//! allocations, imported likewise; an input is used in place when it is already in exportable
//! memory and nobody else holds it or its planes (no cache, no other consumer: a plane handed to a
//! foreign API must be nobody else's), else the core copies it on the device (`exportable_copy`).
//! On the filter's own CUDA stream: waits for the inputs' producer pairs (their timelines imported
//! into CUDA), `fn`'s work (the stream is torch's current stream during the call), copies of any
//! returned tensors into the output planes, and the signal of the filter's core timeline, which is
//! then published as the output planes' producer pair (the guide's order: the signal is on its way
//! before the value is published). No host wait per frame: frames and tensors the queued work
//! reads are kept in a retire list and let go once the timeline is seen past their value, when
//! a later frame comes (or when the filter is freed).
//!
//! The interpreter is held only around the tensors and the call of `fn`; submissions are
//! serialised by the filter's lock so timeline values reach the stream in increasing order, and
//! everything else (requests, copies, imports) runs on the core's threads in parallel.
use std::collections::VecDeque;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyModule};
use vsvk::frame::{Frame, MemStats};
use vsvk::gpu::device::Device;
use vsvk::gpu::exec::Timeline;
use vsvk::gpu::frame::{gpu_plane, owns_plane, GpuPlane};
use vsvk::gpu::transfer::Transfer;
use vsvk::map::Map;
use vsvk::node::{Filter, FilterImpl, MediaInfo, Node};
use vsvk::scheduler::FrameCall;
use vsvk_plugin_api::abi::*;

use crate::cuda::{cuda, import_memory, import_semaphore, release_memory, use_cached, Cuda, CuDevicePtr, CuExternalSemaphore, CuStream};
use crate::dlpack::{capsule, dtype, Foreign, Owner};
use crate::err;

/// What gpu_map did, process wide, for `vsvk.gpu_map_stats()`: the device part reads these to
/// show that no host waits happen per frame and how many device copies were made.
#[derive(Default)]
struct Counters {
    frames: AtomicU64,
    errors: AtomicU64,
    inputs_in_place: AtomicU64,
    input_copies: AtomicU64,
    returned_copies: AtomicU64,
    host_waits: AtomicU64,
}

static COUNTERS: Counters =
    Counters { frames: AtomicU64::new(0), errors: AtomicU64::new(0), inputs_in_place: AtomicU64::new(0), input_copies: AtomicU64::new(0), returned_copies: AtomicU64::new(0), host_waits: AtomicU64::new(0) };

fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// Runs fn with the filter's stream current, and asks returned objects for capsules on it, so
/// that torch orders whatever it did on other streams before our copies.
const HELPER: &str = r#"
def run(fn, stream, handle, n, src, dst, props):
    import torch
    with torch.cuda.stream(stream):
        r = fn(n, src, dst, props)
        if r is None:
            return None
        if not isinstance(r, (list, tuple)):
            r = [r]
        out = []
        for i, t in enumerate(r):
            if not hasattr(t, '__dlpack__'):
                raise TypeError(f'fn returned a {type(t).__name__} as plane {i}, not a tensor')
            # A stream means nothing off the GPU (torch refuses one for a CPU tensor): such a
            # tensor is exported without it, for the device check to name where it lives.
            dev = t.__dlpack_device__() if hasattr(t, '__dlpack_device__') else (2, 0)
            out.append(t.__dlpack__(stream=handle) if int(dev[0]) in (2, 13) else t.__dlpack__())
        return out
"#;

/// One plane as CUDA sees it.
#[derive(Clone, Copy)]
struct View {
    base: CuDevicePtr,
    memory_id: u64,
    width: i32,
    height: i32,
    stride: isize,
}

/// A frame imported for one call: the frame CUDA reads or writes, and its planes.
struct Imported {
    frame: Arc<Frame>,
    views: Vec<View>,
}

/// Work on the stream not yet seen finished: what it reads and writes stays alive until then.
struct Retired {
    value: u64,
    frames: Vec<Arc<Frame>>,
    memory: Vec<u64>,
    returned: Vec<Foreign>,
}

struct State {
    /// the last value enqueued on the stream
    signalled: u64,
    retired: VecDeque<Retired>,
}

struct GpuMap {
    clip: Arc<Node>,
    vi: VSVideoInfo,
    radius: i32,
    func: Py<PyAny>,
    convert: Py<PyAny>,
    helper: Py<PyAny>,
    stream_obj: Py<PyAny>,
    dev: Arc<Device>,
    transfer: Transfer,
    stats: Arc<MemStats>,
    timeline: Arc<Timeline>,
    sem: CuExternalSemaphore,
    stream: CuStream,
    state: Mutex<State>,
}

// SAFETY: CUDA handles are plain identifiers usable from any thread; the rest is Send + Sync.
unsafe impl Send for GpuMap {}
// SAFETY: as above; the state is behind its lock.
unsafe impl Sync for GpuMap {}

/// How a call of fn ended.
enum Outcome {
    Done { props: Map, returned: Vec<Foreign> },
    Failed { why: String, returned: Vec<Foreign> },
}

impl GpuMap {
    fn import_plane(&self, cu: &'static Cuda, g: &GpuPlane) -> Result<CuDevicePtr, String> {
        let e = g.exportable().ok_or("the plane is not in exportable memory")?;
        if let Some(base) = use_cached(e.memory_id) {
            return Ok(base);
        }
        import_memory(cu, &vsvk::gpu::export::export_memory(g)?)
    }

    fn import_frame(&self, cu: &'static Cuda, f: Arc<Frame>) -> Result<Imported, String> {
        let mut views = Vec::new();
        for p in 0..f.num_planes() as i32 {
            let (g, pl) = (gpu_plane(&f, p).ok_or("not a GPU plane")?, f.plane(p).ok_or("no such plane")?);
            let base = match self.import_plane(cu, g) {
                Ok(b) => b,
                Err(m) => {
                    views.iter().for_each(|v: &View| release_memory(v.memory_id));
                    return Err(m);
                }
            };
            let memory_id = g.exportable().map_or(0, |e| e.memory_id);
            views.push(View { base, memory_id, width: pl.width, height: pl.height, stride: pl.stride });
        }
        Ok(Imported { frame: f, views })
    }

    /// An input as CUDA may read it: in place when only we hold it and it is exportable already,
    /// else a device copy into exportable memory.
    fn input(&self, cu: &'static Cuda, f: Arc<Frame>) -> Result<Imported, String> {
        if f.residency() != nrGPU {
            return Err("an input frame is not GPU resident".into());
        }
        let np = f.num_planes() as i32;
        let own = Arc::strong_count(&f) == 1 && (0..np).all(|p| owns_plane(&f, p) && gpu_plane(&f, p).is_some_and(|g| g.exportable().is_some()));
        let f = if own {
            bump(&COUNTERS.inputs_in_place);
            f
        } else {
            bump(&COUNTERS.input_copies);
            self.transfer.exportable_copy(&self.stats, &f)?
        };
        self.import_frame(cu, f)
    }

    /// Lets go of retired work the timeline has passed; the interpreter is held (returned
    /// tensors' deleters may need it).
    fn reap(&self, st: &mut State, all: bool) {
        let reached = self.timeline.reached().unwrap_or(0);
        while st.retired.front().is_some_and(|r| all || r.value <= reached) {
            let r = st.retired.pop_front().expect("checked");
            r.memory.iter().for_each(|&m| release_memory(m));
            drop(r.returned);
            drop(r.frames);
        }
    }

    /// The device side waits for every plane's producer pair, deduplicated per timeline.
    fn wait_inputs(&self, cu: &'static Cuda, inputs: &[Imported]) -> Result<(), String> {
        let mut pairs: Vec<(Arc<Timeline>, u64)> = Vec::new();
        for f in inputs {
            for p in 0..f.frame.num_planes() as i32 {
                let pr = gpu_plane(&f.frame, p).expect("imported").producer();
                let Some(t) = pr.timeline else { continue };
                match pairs.iter_mut().find(|(q, _)| q.sem == t.sem) {
                    Some(e) => e.1 = e.1.max(pr.value),
                    None => pairs.push((t, pr.value)),
                }
            }
        }
        for (t, v) in pairs {
            match import_semaphore(cu, &t) {
                Some(sem) => cu.wait(sem, v, self.stream)?,
                None => {
                    // a producer whose timeline cannot be exported (a third party's): the host waits
                    bump(&COUNTERS.host_waits);
                    if let vsvk::gpu::exec::WaitOutcome::Failed(m) = vsvk::gpu::exec::wait_value(&t.dev, t.sem, v) {
                        return Err(m);
                    }
                }
            }
        }
        Ok(())
    }

    /// Builds the tensors, calls fn and checks what it returned and what it kept.
    fn call<'py>(&self, py: Python<'py>, n: i32, nums: &[i32], uniq: &[i32], inputs: &[Imported], out: &Imported) -> Outcome {
        let fmt_in = self.clip.video_info().expect("video").format;
        let fmt_out = self.vi.format;
        let mut watched: Vec<(String, Arc<AtomicBool>, Arc<Frame>, i32)> = Vec::new();
        let mut tensors = |f: &Imported, fmt: &VSVideoFormat, what: &str| -> PyResult<Bound<'py, PyList>> {
            let list = PyList::empty(py);
            for (p, v) in f.views.iter().enumerate() {
                let alive = Arc::new(AtomicBool::new(true));
                let base = use_cached(v.memory_id).ok_or_else(|| err("an import went missing"))?;
                let cap = capsule(py, base, v.height, v.width, v.stride, fmt.sampleType == stFloat, fmt.bytesPerSample, Owner::Watched(alive.clone(), v.memory_id))?;
                list.append(self.convert.bind(py).call1((cap,))?)?;
                watched.push((format!("{what}[{p}]"), alive, f.frame.clone(), p as i32));
            }
            Ok(list)
        };
        let made = (|| -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyList>, Bound<'py, PyDict>)> {
            let mut frames = Vec::new();
            for (i, f) in inputs.iter().enumerate() {
                frames.push(tensors(f, &fmt_in, &format!("src[{}]", uniq[i]))?);
            }
            let src = if self.radius == 0 {
                frames[0].clone().into_any()
            } else {
                PyList::new(py, nums.iter().map(|m| frames[uniq.iter().position(|u| u == m).expect("listed")].clone()))?.into_any()
            };
            let dst = tensors(out, &fmt_out, "dst")?;
            let centre = &inputs[uniq.iter().position(|&u| u == nums[self.radius as usize]).expect("listed")].frame;
            let props = crate::convert::map_to_dict(py, centre.props())?;
            Ok((src, dst, props))
        })();
        let (src, dst, props) = match made {
            Ok(x) => x,
            Err(e) => return Outcome::Failed { why: format!("the tensors could not be made: {e}"), returned: Vec::new() },
        };
        let handle = self.stream as usize;
        let r = self.helper.bind(py).call1((self.func.bind(py), self.stream_obj.bind(py), handle, n, &src, &dst, &props));
        drop((src, dst));
        let mut returned = Vec::new();
        let mut why = match r {
            Err(e) => {
                let t = crate::convert::exception_text(py, &e);
                drop(e); // its traceback holds fn's locals, the tensors among them
                Some(format!("fn raised: {t}"))
            }
            Ok(r) if r.is_none() => None,
            Ok(r) => self.take_returned(py, &r, out, &mut returned).err(),
        };
        let mut map = Map::new_frame_props();
        if why.is_none() {
            if let Err(e) = crate::convert::dict_to_map(&props, &mut map) {
                why = Some(format!("props could not be set: {e}"));
            }
        }
        drop(props);
        let kept: Vec<_> = watched.iter().filter(|w| w.1.load(Ordering::Acquire)).collect();
        if !kept.is_empty() {
            for (_, _, f, p) in &kept {
                // the tensor outlives the call: its allocation must never serve another frame
                if let Some(g) = gpu_plane(f, *p) {
                    g.owner.store(vsvk::gpu::frame::OWNER_FOREIGN, Ordering::Relaxed);
                }
            }
            let names: Vec<_> = kept.iter().map(|k| k.0.as_str()).collect();
            why.get_or_insert(format!(
                "fn kept {} past its call: the tensors gpu_map hands out are views of frames the graph reuses once the call's work is done; clone() what must outlive the call",
                names.join(", ")
            ));
        }
        match why {
            None => Outcome::Done { props: map, returned },
            Some(why) => Outcome::Failed { why, returned },
        }
    }

    /// Checks the tensors fn returned and queues their copies into the output planes.
    fn take_returned(&self, _py: Python<'_>, r: &Bound<'_, PyAny>, out: &Imported, returned: &mut Vec<Foreign>) -> Result<(), String> {
        let cu = cuda().expect("checked at creation");
        let caps: Vec<Bound<'_, PyAny>> = r.extract().map_err(|e| format!("fn returned something other than None or a list of tensors: {e}"))?;
        if caps.len() != out.views.len() {
            return Err(format!("fn returned {} planes; the output format has {}", caps.len(), out.views.len()));
        }
        let fmt = self.vi.format;
        let (code, bits, name) = dtype(fmt.sampleType == stFloat, fmt.bytesPerSample);
        for (p, (cap, v)) in caps.iter().zip(&out.views).enumerate() {
            let t = Foreign::take(cap).map_err(|e| format!("plane {p}: {e}"))?;
            let device = t.device;
            let (tc, tb, tl) = t.dtype;
            let shape = t.shape.clone();
            let strides = t.strides.clone();
            let data = t.data;
            returned.push(t);
            if device != (2, cu.ordinal) {
                let kind = match device.0 {
                    1 => "the CPU".to_string(),
                    2 => format!("CUDA device {}", device.1),
                    k => format!("DLPack device type {k}"),
                };
                return Err(format!("returned plane {p} lives on {kind}, not on CUDA device {} (the core's GPU)", cu.ordinal));
            }
            if (tc, tb, tl) != (code, bits, 1) {
                return Err(format!("returned plane {p} has DLPack dtype (code {tc}, {tb} bits, {tl} lanes); the output format needs {name}"));
            }
            if shape != [v.height as i64, v.width as i64] {
                return Err(format!("returned plane {p} has shape {shape:?}; the output plane is (height, width) = ({}, {})", v.height, v.width));
            }
            let row = match strides.as_deref() {
                None => v.width as i64,
                Some([s0, 1]) if *s0 >= v.width as i64 => *s0,
                Some(s) => return Err(format!("returned plane {p} has strides {s:?} (in elements); rows must be contiguous (stride (row, 1)): call .contiguous()")),
            };
            let item = fmt.bytesPerSample as usize;
            cu.copy_2d(v.base, v.stride as usize, data, row as usize * item, v.width as usize * item, v.height as usize, self.stream)?;
            bump(&COUNTERS.returned_copies);
        }
        Ok(())
    }

    fn process(&self, n: i32, call: &mut FrameCall) -> Result<Arc<Frame>, String> {
        let cu = cuda()?;
        let last = self.clip.num_frames() - 1;
        let nums: Vec<i32> = (n - self.radius..=n + self.radius).map(|m| m.clamp(0, last)).collect();
        let mut uniq = nums.clone();
        uniq.dedup();
        let mut inputs = Vec::new();
        let release = |fs: &[Imported]| fs.iter().flat_map(|f| &f.views).for_each(|v| release_memory(v.memory_id));
        for &m in &uniq {
            let f = call.get(&self.clip, m).ok_or("internal error: a requested frame is missing")?;
            call.release_early(&self.clip, m);
            match self.input(cu, f) {
                Ok(i) => inputs.push(i),
                Err(e) => {
                    release(&inputs);
                    return Err(e);
                }
            }
        }
        let out = vsvk::gpu::frame::new_frame(&self.dev, &self.stats, &self.vi.format, self.vi.width, self.vi.height, true).and_then(|f| {
            if (0..f.num_planes() as i32).any(|p| gpu_plane(&f, p).is_none_or(|g| g.exportable().is_none())) {
                return Err("the Vulkan device cannot export memory (exportHandleType is 0)".into());
            }
            self.import_frame(cu, Arc::new(f))
        });
        let out = match out {
            Ok(o) => o,
            Err(e) => {
                release(&inputs);
                return Err(e);
            }
        };
        let mut st = self.state.lock();
        let waited = self.wait_inputs(cu, &inputs);
        let outcome = match waited {
            Err(e) => Outcome::Failed { why: e, returned: Vec::new() },
            Ok(()) => crate::shutdown::with_python(|py| {
                self.reap(&mut st, false);
                self.call(py, n, &nums, &uniq, &inputs, &out)
            })
            .unwrap_or_else(|| Outcome::Failed { why: "the interpreter is exiting".into(), returned: Vec::new() }),
        };
        // the signal goes on the stream whatever happened, so that the retire list drains
        let value = st.signalled + 1;
        let signalled = cu.signal(self.sem, value, self.stream);
        let mut memory: Vec<u64> = inputs.iter().chain([&out]).flat_map(|f| f.views.iter().map(|v| v.memory_id)).collect();
        let mut frames: Vec<Arc<Frame>> = inputs.into_iter().map(|i| i.frame).collect();
        let (result, returned) = match outcome {
            Outcome::Done { props, returned } if signalled.is_ok() => {
                // SAFETY: the output frame is ours alone until it is returned.
                unsafe { *out.frame.props_mut() = props };
                for p in 0..out.frame.num_planes() as i32 {
                    gpu_plane(&out.frame, p).expect("GPU plane").set_producer(Some(self.timeline.clone()), value);
                }
                (Ok(out.frame.clone()), returned)
            }
            Outcome::Done { returned, .. } => (Err(signalled.clone().err().unwrap_or_default()), returned),
            Outcome::Failed { why, returned } => {
                frames.push(out.frame.clone());
                (Err(why), returned)
            }
        };
        if signalled.is_ok() {
            st.signalled = value;
            st.retired.push_back(Retired { value, frames, memory, returned });
        } else {
            // nothing will signal the value: finish the stream on the host and let go now
            bump(&COUNTERS.host_waits);
            // SAFETY: a plain driver call with the context current.
            let _ = cu.with_ctx(|| cu.check(unsafe { (cu.ctx_synchronize)() }, "cuCtxSynchronize"));
            memory.drain(..).for_each(|m| release_memory(m));
            crate::shutdown::with_python(|_py| drop(returned));
            drop(frames);
        }
        drop(st);
        bump(&COUNTERS.frames);
        if result.is_err() {
            bump(&COUNTERS.errors);
        }
        result.map_err(|e| format!("gpu_map: frame {n}: {e}"))
    }
}

impl Filter for GpuMap {
    fn get_frame(&self, n: i32, reason: i32, _fd: &mut *mut c_void, call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
        match reason {
            arInitial => {
                for m in n - self.radius..=n + self.radius {
                    call.request(&self.clip, m);
                }
                Ok(None)
            }
            arAllFramesReady => self.process(n, call).map(Some),
            _ => Ok(None),
        }
    }
}

impl Drop for GpuMap {
    fn drop(&mut self) {
        let signalled = self.state.get_mut().signalled;
        let _ = vsvk::gpu::exec::wait_value(&self.dev, self.timeline.sem, signalled);
        let st = self.state.get_mut();
        let retired: Vec<Retired> = st.retired.drain(..).collect();
        if let Ok(cu) = cuda() {
            retired.iter().flat_map(|r| &r.memory).for_each(|&m| release_memory(m));
            cu.destroy_stream(self.stream);
        }
        // returned tensors' deleters may be Python's (CuPy): run them with the interpreter held;
        // when it is gone, what it owned went with it
        crate::shutdown::with_python(move |_py| drop(retired));
    }
}

/// What gpu_map is asked for, checked before CUDA is looked for (so that these errors show
/// without a GPU too).
fn output_info(clip: &Arc<Node>, func: &Bound<'_, PyAny>, format: Option<&Bound<'_, PyAny>>, width: Option<i32>, height: Option<i32>, radius: i32) -> PyResult<VSVideoInfo> {
    let vi = *clip.video_info().ok_or_else(|| err("gpu_map: clip must be a video clip"))?;
    if clip.residency() != nrGPU {
        return Err(err("gpu_map: clip is not GPU resident (pass clip.std.GPUUpload(), or a GPU filter's output)"));
    }
    if vi.format.colorFamily == cfUndefined || vi.width == 0 || vi.height == 0 {
        return Err(err("gpu_map: clip must have a constant format and dimensions"));
    }
    if !func.is_callable() {
        return Err(err("gpu_map: fn must be callable as fn(n, src, dst, props)"));
    }
    if !(0..=32).contains(&radius) {
        return Err(err(format!("gpu_map: radius must be 0 to 32, not {radius}")));
    }
    let mut out = vi;
    if let Some(f) = format {
        out.format = crate::format::format_from_py(f)?;
    }
    if out.format.colorFamily == cfUndefined {
        return Err(err("gpu_map: format must be a known video format"));
    }
    if ![1, 2, 4].contains(&out.format.bytesPerSample) {
        return Err(err("gpu_map: the output format's samples must be 1, 2 or 4 bytes"));
    }
    out.width = width.unwrap_or(vi.width);
    out.height = height.unwrap_or(vi.height);
    if out.width <= 0 || out.height <= 0 {
        return Err(err(format!("gpu_map: width and height must be positive, not {}x{}", out.width, out.height)));
    }
    if out.width % (1 << out.format.subSamplingW) != 0 || out.height % (1 << out.format.subSamplingH) != 0 {
        return Err(err(format!("gpu_map: {}x{} does not fit the output format's chroma subsampling", out.width, out.height)));
    }
    Ok(out)
}

/// `vsvk.gpu_map(clip, fn, format=None, width=None, height=None, radius=0)`; see docs/GPU.md.
#[pyfunction]
#[pyo3(signature = (clip, r#fn, format = None, width = None, height = None, radius = 0))]
fn gpu_map<'py>(
    py: Python<'py>,
    clip: &Bound<'py, PyAny>,
    r#fn: &Bound<'py, PyAny>,
    format: Option<&Bound<'py, PyAny>>,
    width: Option<i32>,
    height: Option<i32>,
    radius: i32,
) -> PyResult<Bound<'py, PyAny>> {
    let node = crate::node::node_from_py(clip).ok_or_else(|| err("gpu_map: clip must be a VideoNode"))?;
    let vi = output_info(&node, r#fn, format, width, height, radius)?;
    let cu = cuda().map_err(|e| err(crate::cuda::needs("gpu_map", &e)))?;
    let core = crate::core()?;
    let info = crate::vulkan::core_info(&core).map_err(err)?;
    if info.exportHandleType != crate::cuda::VK_OPAQUE_FD || info.semaphoreExportHandleType != crate::cuda::VK_OPAQUE_FD {
        return Err(err("gpu_map: the core's Vulkan device cannot export memory and timelines as opaque fds, which CUDA imports"));
    }
    let torch = py.import("torch").map_err(|e| err(format!("gpu_map needs PyTorch: {e}")))?;
    let convert = py.import("torch.utils.dlpack")?.getattr("from_dlpack")?;
    let dev = core.gpu.device(&core).map_err(err)?;
    let timeline = Timeline::new(&dev, None).map_err(err)?;
    let sem = import_semaphore(cu, &timeline).ok_or_else(|| err("gpu_map: the filter's timeline cannot be imported into CUDA"))?;
    let stream = cu.new_stream().map_err(err)?;
    let cuda_mod = torch.getattr("cuda")?;
    let device = torch.call_method1("device", ("cuda", cu.ordinal))?;
    let kw = PyDict::new(py);
    kw.set_item("device", device)?;
    let stream_obj = cuda_mod.getattr("ExternalStream")?.call((stream as usize,), Some(&kw));
    let stream_obj = match stream_obj {
        Ok(s) => s,
        Err(e) => {
            cu.destroy_stream(stream);
            return Err(e);
        }
    };
    let helper = PyModule::from_code(py, &std::ffi::CString::new(HELPER).expect("no NUL"), c"vsvk_gpu_map.py", c"vsvk_gpu_map")?.getattr("run")?;
    let transfer = Transfer::new(&dev, 2).map_err(err)?;
    let mode = fmParallel;
    let deps = vec![(node.clone(), if radius == 0 { rpStrictSpatial } else { rpGeneral })];
    let filter = GpuMap {
        clip: node,
        vi,
        radius,
        func: r#fn.clone().unbind(),
        convert: convert.unbind(),
        helper: helper.unbind(),
        stream_obj: stream_obj.unbind(),
        dev,
        transfer,
        stats: core.mem.clone(),
        timeline,
        sem,
        stream,
        state: Mutex::new(State { signalled: 0, retired: VecDeque::new() }),
    };
    let n = Node::new(core, "gpu_map", MediaInfo::Video(vi), FilterImpl::Rust(Box::new(filter)), mode, ffGPUOutput, deps, Vec::new());
    crate::node::node_to_py(py, n)
}

/// The counters behind gpu_map, and the CUDA memory imports made (cached ones are not counted).
#[pyfunction]
fn gpu_map_stats<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let c = &COUNTERS;
    for (k, v) in [
        ("frames", &c.frames),
        ("errors", &c.errors),
        ("inputs_in_place", &c.inputs_in_place),
        ("input_copies", &c.input_copies),
        ("returned_copies", &c.returned_copies),
        ("host_waits", &c.host_waits),
        ("memory_imports", &crate::cuda::MEMORY_IMPORTS),
    ] {
        d.set_item(k, v.load(Ordering::Relaxed))?;
    }
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gpu_map, m)?)?;
    m.add_function(wrap_pyfunction!(gpu_map_stats, m)?)?;
    Ok(())
}
