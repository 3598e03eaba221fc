//! Foreign memory in, from Python: `vsvk.gpu_import(fd, size)` imports an allocation another API
//! exported as an opaque fd (CUDA's VMM memory through cuMemExportToShareableHandle, a second
//! Vulkan device) once, and `GPUImport.frame(...)` makes GPU frames over ranges of it, which
//! std.ModifyFrame or FrameEval hand to the graph. The same calls plugins reach through
//! include/VSVulkanImport4.h (core::gpu::import), so the checks and messages are those.
use std::sync::Arc;

use pyo3::prelude::*;
use vsvk::gpu::exec::Timeline;
use vsvk::gpu::import::{check_handle, import_memory, import_timeline, imported_frame, ImportedMemory, PlaneAt, Release};

use crate::err;

const OPAQUE_FD: i32 = 1;

/// An imported allocation; frames made over it keep it alive past close().
#[pyclass(module = "vsvk", name = "GPUImport", frozen)]
pub struct GpuImport {
    memory: parking_lot::Mutex<Option<Arc<ImportedMemory>>>,
}

/// A foreign timeline semaphore imported as the producer of frames' planes.
#[pyclass(module = "vsvk", name = "GPUTimeline", frozen)]
pub struct GpuTimeline {
    timeline: Arc<Timeline>,
}

/// (offset, stride) pairs, one per plane.
fn plane_layout(planes: &Bound<'_, PyAny>) -> PyResult<Vec<(u64, isize)>> {
    let list: Vec<Bound<'_, PyAny>> = planes.extract().map_err(|_| err("gpu_import: planes must be a list of (offset, stride) pairs, one per plane"))?;
    list.iter()
        .enumerate()
        .map(|(p, t)| t.extract::<(u64, isize)>().map_err(|_| err(format!("gpu_import: plane {p}: expected an (offset, stride) pair of non-negative integers"))))
        .collect()
}

#[pymethods]
impl GpuImport {
    /// A GPU frame whose planes lie at `planes[p] = (offset, stride)` in this allocation. With a
    /// timeline, consumers wait for it to reach `value` on the device: the foreign side must have
    /// queued that signal already. Without one the memory must be ready now (e.g. after
    /// torch.cuda.synchronize()). `on_release()` runs once, on any thread, when the graph is done
    /// with the frame and the memory may be written again; never when this call fails.
    #[pyo3(signature = (format, width, height, planes, timeline = None, value = 0, on_release = None))]
    #[allow(clippy::too_many_arguments)]
    fn frame<'py>(
        &self,
        py: Python<'py>,
        format: &Bound<'py, PyAny>,
        width: i32,
        height: i32,
        planes: &Bound<'py, PyAny>,
        timeline: Option<PyRef<'py, GpuTimeline>>,
        value: u64,
        on_release: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let memory = self.memory.lock().clone().ok_or_else(|| err("gpu_import: the import is closed"))?;
        let fmt = crate::format::format_from_py(format)?;
        let layout = plane_layout(planes)?;
        if let Some(f) = &on_release {
            if !f.is_callable() {
                return Err(err("gpu_import: on_release must be callable"));
            }
        }
        let core = crate::core()?;
        let dev = core.gpu.device(&core).map_err(|e| err(format!("gpu_import: {e}")))?;
        let at = layout.into_iter().map(|(offset, stride)| PlaneAt { memory: memory.clone(), offset, stride }).collect();
        let producer = timeline.map(|t| (t.timeline.clone(), value));
        let release = on_release.map(|f| {
            let f = f.unbind();
            Release::new(move || {
                Python::attach(|py| {
                    if let Err(e) = f.call0(py) {
                        e.write_unraisable(py, None);
                    }
                })
            })
        });
        let frame = imported_frame(&dev, &core.mem, &fmt, width, height, at, producer, release).map_err(|e| err(format!("gpu_import: {e}")))?;
        crate::frame::frame_to_py(py, Arc::new(frame), false)
    }

    /// Drops this object's reference: the memory goes once no frame over it is left.
    fn close(&self) {
        self.memory.lock().take();
    }

    #[getter]
    fn size(&self) -> PyResult<u64> {
        self.memory.lock().as_ref().map(|m| m.size).ok_or_else(|| err("gpu_import: the import is closed"))
    }
}

/// Imports `size` bytes exported as the opaque fd `fd` (the allocation's whole size, as exported).
/// `memory_type`: the exporter's Vulkan memory type index, which a Vulkan exporter of the same GPU
/// must pass; -1 (CUDA) for the device's own. The fd belongs to the import from then on; when this
/// raises it is still the caller's to close.
#[pyfunction]
#[pyo3(signature = (fd, size, memory_type = -1))]
fn gpu_import(fd: i32, size: u64, memory_type: i32) -> PyResult<GpuImport> {
    check_handle(fd, size).map_err(|e| err(format!("gpu_import: {e}")))?;
    let core = crate::core()?;
    let dev = core.gpu.device(&core).map_err(|e| err(format!("gpu_import: {e}")))?;
    let memory = import_memory(&dev, OPAQUE_FD, fd, size, (memory_type >= 0).then_some(memory_type as u32)).map_err(|e| err(format!("gpu_import: {e}")))?;
    Ok(GpuImport { memory: parking_lot::Mutex::new(Some(memory)) })
}

/// Imports a timeline semaphore exported as an opaque fd (consumed on success only), to pass as
/// GPUImport.frame's timeline.
#[pyfunction]
fn gpu_import_timeline(fd: i32) -> PyResult<GpuTimeline> {
    let core = crate::core()?;
    let dev = core.gpu.device(&core).map_err(|e| err(format!("gpu_import_timeline: {e}")))?;
    let timeline = import_timeline(&dev, OPAQUE_FD, fd).map_err(|e| err(format!("gpu_import_timeline: {e}")))?;
    Ok(GpuTimeline { timeline })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GpuImport>()?;
    m.add_class::<GpuTimeline>()?;
    m.add_function(wrap_pyfunction!(gpu_import, m)?)?;
    m.add_function(wrap_pyfunction!(gpu_import_timeline, m)?)?;
    Ok(())
}
