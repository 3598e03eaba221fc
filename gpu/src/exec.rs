//! Timelines and exec pools: reference counted timeline semaphores, and per filter instance pools
//! of recording contexts that wait producer pairs, keep what a submission uses alive until it
//! completes, allocate timeline values under the queue lock and publish producer pairs. Also the
//! host waits (VSGPUDrainResult) and the fatal misuses the API defines.
use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::thread::ThreadId;

use ash::vk;
use parking_lot::{Condvar, Mutex};
use vsvk_plugin_api::vulkan::*;

use super::device::{Device, Queue};
use super::frame::{gpu_plane, GpuPlanes};
use super::{GpuBuffer, GpuMemory, DEVICE_LOST};
use crate::fatal::fatal;

/// A reference counted timeline semaphore (`VSGPUTimeline`).
pub struct Timeline {
    pub dev: Arc<Device>,
    pub sem: vk::Semaphore,
    /// For an exec pool's timeline: the last value the pool submitted (the bound for waits and
    /// for publishing).
    pub pool_submitted: Option<Arc<AtomicU64>>,
    /// For an exec pool's timeline: the queue (family, index) its submissions signal it from.
    pub queue: Option<(u32, u32)>,
    /// Signalled by CUDA's copies (gpu::cuda_copy): submissions wait for its values on the host
    /// before they are queued (see `submit`).
    pub by_cuda: bool,
}

impl Timeline {
    pub fn new(dev: &Arc<Device>, pool_submitted: Option<Arc<AtomicU64>>) -> Result<Arc<Timeline>, String> {
        Ok(Arc::new(Timeline { dev: dev.clone(), sem: dev.create_timeline()?, pool_submitted, queue: None, by_cuda: false }))
    }

    /// A timeline CUDA's copy stream signals once it has imported it.
    pub fn for_cuda(dev: &Arc<Device>) -> Result<Arc<Timeline>, String> {
        Ok(Arc::new(Timeline { dev: dev.clone(), sem: dev.create_timeline()?, pool_submitted: None, queue: None, by_cuda: true }))
    }

    /// An exec pool's timeline, signalled only by submissions to `queue`.
    fn for_pool(dev: &Arc<Device>, submitted: Arc<AtomicU64>, queue: &Queue) -> Result<Arc<Timeline>, String> {
        Ok(Arc::new(Timeline { dev: dev.clone(), sem: dev.create_timeline()?, pool_submitted: Some(submitted), queue: Some((queue.family, queue.index)), by_cuda: false }))
    }

    /// Whether the GPU has yet to reach `value` (also where the counter cannot be read).
    pub fn pending(&self, value: u64) -> bool {
        self.reached().is_none_or(|r| r < value)
    }

    /// The counter's value now, without waiting; None when it cannot be read (device loss). A
    /// reset force-signals timelines to the maximum, which callers reaping work must not take for
    /// completion: they see u64::MAX and check the device.
    pub fn reached(&self) -> Option<u64> {
        // SAFETY: a live semaphore of this device.
        unsafe { self.dev.device.get_semaphore_counter_value(self.sem) }.ok()
    }
}

impl Drop for Timeline {
    fn drop(&mut self) {
        // Nothing may still be waiting on it: planes naming it hold references, pools drain first;
        // on Mesa drivers the queues' own threads may still hold it (see drain_queues).
        self.dev.drain_queues();
        // SAFETY: the last reference, and no queue holds the semaphore any more.
        unsafe { self.dev.device.destroy_semaphore(self.sem, None) };
    }
}

pub enum WaitOutcome {
    Done,
    Lost,
    Failed(String),
}

impl WaitOutcome {
    /// Done as Ok; device loss and failures as their message.
    pub fn into_result(self) -> Result<(), String> {
        match self {
            WaitOutcome::Done => Ok(()),
            WaitOutcome::Lost => Err(DEVICE_LOST.into()),
            WaitOutcome::Failed(e) => Err(e),
        }
    }
}

/// Host waits for `value` on a timeline, checking the counter that satisfied the wait: a reset
/// force-signals timelines to the maximum, which is device loss, not completion.
pub fn wait_value(dev: &Device, sem: vk::Semaphore, value: u64) -> WaitOutcome {
    if dev.is_lost() {
        return WaitOutcome::Lost;
    }
    let sems = [sem];
    let values = [value];
    let info = vk::SemaphoreWaitInfo::default().semaphores(&sems).values(&values);
    let mut retries = 0;
    let stall = super::stall::threshold();
    let started = std::time::Instant::now();
    let mut next_report = stall;
    loop {
        let timeout = match next_report {
            Some(at) => at.saturating_sub(started.elapsed()).as_nanos().min(u64::MAX as u128) as u64,
            None => u64::MAX,
        };
        // SAFETY: a live semaphore of this device.
        match unsafe { dev.device.wait_semaphores(&info, timeout) } {
            Ok(()) => break,
            Err(vk::Result::ERROR_DEVICE_LOST) => {
                dev.mark_lost();
                return WaitOutcome::Lost;
            }
            Err(vk::Result::TIMEOUT) => {
                if let (Some(at), Some(step)) = (next_report, stall) {
                    if started.elapsed() >= at {
                        super::stall::report(dev, sem, value, started.elapsed(), &pool_views(dev));
                        next_report = Some(at + step);
                    }
                }
            }
            Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY | vk::Result::ERROR_OUT_OF_DEVICE_MEMORY) if retries < 8 => {
                retries += 1;
                std::thread::sleep(std::time::Duration::from_millis(1 << retries));
            }
            Err(r) => return WaitOutcome::Failed(format!("waiting for a GPU submission failed and could not be retried (VkResult {})", r.as_raw())),
        }
    }
    // SAFETY: as above.
    match unsafe { dev.device.get_semaphore_counter_value(sem) } {
        Ok(c) if c == u64::MAX && value != u64::MAX => {
            dev.mark_lost();
            WaitOutcome::Lost
        }
        Ok(_) => WaitOutcome::Done,
        Err(vk::Result::ERROR_DEVICE_LOST) => {
            dev.mark_lost();
            WaitOutcome::Lost
        }
        Err(r) => WaitOutcome::Failed(format!("reading a timeline failed (VkResult {})", r.as_raw())),
    }
}

/// Waits on the host, before a submission is queued, for the values it would wait for on timelines
/// CUDA's copies signal. With such waits left to the GPU, KNLMeans at 2160p after uploads by CUDA
/// spent 1,139 us a submission under the queue's lock on the H100 and ran 0.88x R81 where Vulkan's
/// copies made it 0.99x (bench/results/h100-2026-12-07-s44/events-cuda.txt). In one later call,
/// both ways (h100-2026-12-07-s45/cudawait.txt): a submission 177 us against 266, and vk.Expr at
/// 1080p 1.02x R81 against 0.69x; KNLMeans at 2160p 1.01x against 1.10x, BM3D 0.97x against 0.94x.
/// VSVK_CUDA_GPU_WAITS=1 leaves such waits to the GPU.
fn wait_cuda_uploads(waits: &HashMap<vk::Semaphore, (u64, Arc<Timeline>)>) -> Result<(), String> {
    static ON_GPU: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON_GPU.get_or_init(|| crate::settings::switch_on("VSVK_CUDA_GPU_WAITS")) {
        return Ok(());
    }
    for (v, t) in waits.values().filter(|(v, t)| t.by_cuda && t.pending(*v)) {
        let _t = crate::stats::time(crate::stats::Stat::CudaHostWait);
        wait_value(&t.dev, t.sem, *v).into_result().map_err(|e| format!("waiting for an upload by CUDA: {e}"))?;
    }
    Ok(())
}

pub fn outcome_code(o: &WaitOutcome) -> (i32, Option<String>) {
    match o {
        WaitOutcome::Done => (gdDrained, None),
        WaitOutcome::Lost => (gdDeviceLost, Some(DEVICE_LOST.into())),
        WaitOutcome::Failed(e) => (gdIncomplete, Some(e.clone())),
    }
}

/// Something a submission keeps alive until it completes.
pub enum Retained {
    /// A frame (the runtime's, seen through its planes).
    Frame(Arc<dyn GpuPlanes>),
    Buffer(Box<GpuBuffer>),
    Memory(Box<GpuMemory>),
    Callback(VSGPUReleaseFunc, SendPtr),
    /// Core internal cleanups.
    Internal(Box<dyn FnOnce() + Send>),
}

pub struct SendPtr(pub *mut c_void);
// SAFETY: the release callback contract: callable from any thread.
unsafe impl Send for SendPtr {}

thread_local! {
    /// The context this thread is recording, if any.
    static HELD: Cell<*const Slot> = const { Cell::new(std::ptr::null()) };
    /// Set while release callbacks run on this thread.
    static IN_RELEASE: Cell<u32> = const { Cell::new(0) };
}

pub fn in_release() -> bool {
    IN_RELEASE.with(|c| c.get() > 0)
}

/// Fatal when called from inside a release callback.
pub fn forbid_in_release(call: &str) {
    if in_release() {
        fatal(&format!(
            "{call} called from a gpuExecRetain release callback; a release callback may only free what its object owns"
        ));
    }
}

fn release_all(list: Vec<Retained>) {
    if list.is_empty() {
        return;
    }
    IN_RELEASE.with(|c| c.set(c.get() + 1));
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            IN_RELEASE.with(|c| c.set(c.get() - 1));
        }
    }
    let _leave = Leave;
    for r in list {
        match r {
            Retained::Callback(Some(f), obj) => {
                // SAFETY: the filter's callback with the object it registered.
                unsafe { f(obj.0) };
            }
            Retained::Internal(f) => f(),
            other => drop(other),
        }
    }
}

/// What a recording collected: frames read, planes written, retained objects, their bytes.
type Recording = (Vec<Arc<dyn GpuPlanes>>, Vec<(Arc<dyn GpuPlanes>, i32)>, Vec<Retained>, u64);

struct Inflight {
    /// The context it was recorded on.
    slot: usize,
    value: u64,
    /// Its place in the queue's order (stall reports), and the producer values it waits for: their
    /// timelines stay alive until it completes (a written plane's earlier producer is no longer
    /// held by the plane once the submission is its producer, and a semaphore that pending work
    /// waits on must not be destroyed).
    seq: u64,
    waits: Vec<(Arc<Timeline>, u64)>,
    retained: Vec<Retained>,
    bytes: i64,
}

#[derive(Default)]
struct SlotState {
    owner: Option<ThreadId>,
    reads: Vec<Arc<dyn GpuPlanes>>,
    writes: Vec<(Arc<dyn GpuPlanes>, i32)>,
    retained: Vec<Retained>,
    retained_bytes: u64,
    /// The submitted value, what it keeps alive, and the bytes that counts against the budget.
    inflight: Option<Inflight>,
}

/// One recording context (`VSGPUExecContext`).
pub struct Slot {
    pool: Weak<PoolInner>,
    index: usize,
    cmd_pool: vk::CommandPool,
    pub cb: vk::CommandBuffer,
}

/// An exec pool (`VSGPUExecPool` points at a `Box<Arc<PoolInner>>`).
pub struct PoolInner {
    pub dev: Arc<Device>,
    /// A number naming the pool in stall reports.
    pub id: u64,
    /// Compute pools count against the device's in-flight budget; transfer pools do not.
    counts: bool,
    pub queue: Arc<Queue>,
    pub timeline: Arc<Timeline>,
    pub submitted: Arc<AtomicU64>,
    pub slots: Vec<Slot>,
    state: Mutex<Vec<SlotState>>,
    cv: Condvar,
    /// Held while release callbacks of this pool run, so a drain can wait out concurrent sweeps.
    releasing: Mutex<()>,
    /// Timestamps around each recording (VSVK_GPU_TIMES).
    timing: Option<super::timing::Queries>,
}

impl Drop for PoolInner {
    fn drop(&mut self) {
        // As for timelines (see drain_queues).
        self.dev.drain_queues();
        for s in &self.slots {
            // SAFETY: every submission completed (freeGPUExecPool drained) or the device is lost.
            unsafe { self.dev.device.destroy_command_pool(s.cmd_pool, None) };
        }
        if let Some(t) = &self.timing {
            t.destroy(&self.dev);
        }
    }
}

impl PoolInner {
    pub fn create(dev: &Arc<Device>, queue: i32, threads: usize) -> Result<Arc<PoolInner>, String> {
        Self::create_on(dev, dev.queue(queue).clone(), queue != vqTransfer, threads)
    }

    /// An exec pool on `q` (also the core's private copy queues); `counts`: whether what its
    /// submissions retain counts against the device's in-flight budget (compute work does).
    pub fn create_on(dev: &Arc<Device>, q: Arc<super::device::Queue>, counts: bool, threads: usize) -> Result<Arc<PoolInner>, String> {
        Self::create_with_ring(dev, q, counts, threads.clamp(2, 8))
    }

    /// An exec pool of `n` contexts (at least 2), for the core's own pools whose ring is not a
    /// plugin's concern (GPUDownload's, which a thread holds for the whole copy and its wait).
    pub fn create_with_ring(dev: &Arc<Device>, q: Arc<super::device::Queue>, counts: bool, n: usize) -> Result<Arc<PoolInner>, String> {
        Self::build(dev, q, counts, n, true)
    }

    /// A pool of two contexts whose submissions are neither timed nor counted in the queue's load
    /// (the device's warm-up, before any user's work).
    pub fn create_untimed(dev: &Arc<Device>, q: Arc<super::device::Queue>) -> Result<Arc<PoolInner>, String> {
        Self::build(dev, q, false, 2, false)
    }

    fn build(dev: &Arc<Device>, q: Arc<super::device::Queue>, counts: bool, n: usize, timed: bool) -> Result<Arc<PoolInner>, String> {
        forbid_in_release("createGPUExecPool");
        if dev.is_lost() {
            return Err(DEVICE_LOST.into());
        }
        let submitted = Arc::new(AtomicU64::new(0));
        let timeline = Timeline::for_pool(dev, submitted.clone(), &q)?;
        let q_family = q.family;
        let on_compute = dev.runs_kernels(&q);
        let n = n.max(2);
        let mut handles = Vec::new();
        for _ in 0..n {
            let ci = vk::CommandPoolCreateInfo::default().queue_family_index(q.family).flags(vk::CommandPoolCreateFlags::TRANSIENT);
            // SAFETY: valid create info.
            let cp = unsafe { dev.device.create_command_pool(&ci, None) }.map_err(|r| format!("vkCreateCommandPool failed ({})", r.as_raw()))?;
            let ai = vk::CommandBufferAllocateInfo::default().command_pool(cp).level(vk::CommandBufferLevel::PRIMARY).command_buffer_count(1);
            // SAFETY: as above.
            let cb = unsafe { dev.device.allocate_command_buffers(&ai) }.map_err(|r| format!("vkAllocateCommandBuffers failed ({})", r.as_raw()))?[0];
            handles.push((cp, cb));
        }
        static IDS: AtomicU64 = AtomicU64::new(1);
        let pool = Arc::new_cyclic(|me: &Weak<PoolInner>| PoolInner {
            dev: dev.clone(),
            id: IDS.fetch_add(1, Ordering::Relaxed),
            counts,
            queue: q,
            timeline,
            submitted,
            slots: handles.iter().enumerate().map(|(index, &(cmd_pool, cb))| Slot { pool: me.clone(), index, cmd_pool, cb }).collect(),
            state: Mutex::new((0..n).map(|_| SlotState::default()).collect()),
            cv: Condvar::new(),
            releasing: Mutex::new(()),
            timing: timed.then(|| super::timing::Queries::new(dev, q_family, n, on_compute && super::timing::compute_timing())).flatten(),
        });
        let mut reg = dev.exec_pools.lock();
        reg.retain(|w| w.strong_count() > 0);
        reg.push(Arc::downgrade(&pool));
        Ok(pool)
    }

    fn holds_context_here(&self) -> bool {
        let held = HELD.with(|h| h.get());
        self.slots.iter().any(|s| std::ptr::eq(s, held))
    }

    /// Claims a context and begins recording.
    pub fn acquire(self: &Arc<Self>) -> Result<&Slot, String> {
        forbid_in_release("gpuExecAcquire");
        if self.dev.is_lost() {
            return Err(DEVICE_LOST.into());
        }
        let me = std::thread::current().id();
        let held = HELD.with(|h| h.get());
        if held.is_null() && self.counts {
            gate_inflight(&self.dev);
        }
        let (idx, wait_for) = {
            let mut st = self.state.lock();
            loop {
                if let Some(i) = st.iter().position(|s| s.owner.is_none() && s.inflight.is_none()) {
                    st[i].owner = Some(me);
                    break (i, None);
                }
                // The ring's oldest submission.
                if let Some(i) = st
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.owner.is_none())
                    .min_by_key(|(_, s)| s.inflight.as_ref().map_or(0, |f| f.value))
                    .map(|(i, _)| i)
                {
                    st[i].owner = Some(me);
                    let v = st[i].inflight.as_ref().map(|f| f.value);
                    break (i, v);
                }
                if !held.is_null() {
                    let other = !self.holds_context_here();
                    fatal(&if other {
                        "gpuExecAcquire called by a thread already holding a context of another pool; hold one at a time and let a timeline value carry the dependency".to_string()
                    } else {
                        "gpuExecAcquire called by a thread already holding a context of this pool; submit or abandon it first".to_string()
                    });
                }
                let _t = crate::stats::time(crate::stats::Stat::AcquireWait);
                self.cv.wait(&mut st);
            }
        };
        if let Some(v) = wait_for {
            let t = crate::stats::time(crate::stats::Stat::AcquireWait);
            let waited = wait_value(&self.dev, self.timeline.sem, v);
            drop(t);
            if let WaitOutcome::Lost = waited {
                self.release_slot_owner(idx);
                return Err(DEVICE_LOST.into());
            }
            let list = self.state.lock()[idx].inflight.take().map(|f| self.retire(f)).unwrap_or_default();
            let _r = self.releasing.lock();
            release_all(list);
        }
        let slot = &self.slots[idx];
        let d = &self.dev.device;
        // SAFETY: the slot's previous submission completed; we own the slot.
        let r = unsafe {
            d.reset_command_pool(slot.cmd_pool, vk::CommandPoolResetFlags::empty()).and_then(|_| {
                d.begin_command_buffer(slot.cb, &vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT))
            })
        };
        if let Err(r) = r {
            self.release_slot_owner(idx);
            if r == vk::Result::ERROR_DEVICE_LOST {
                self.dev.mark_lost();
                return Err(DEVICE_LOST.into());
            }
            return Err(format!("vkBeginCommandBuffer failed (VkResult {})", r.as_raw()));
        }
        if let Some(t) = &self.timing {
            t.begin(&self.dev, slot.cb, idx);
        }
        HELD.with(|h| h.set(slot));
        Ok(slot)
    }

    fn release_slot_owner(&self, idx: usize) {
        self.state.lock()[idx].owner = None;
        self.cv.notify_all();
    }

    /// Checks the calling thread records on `slot`; fatal otherwise.
    pub fn check_owner(&self, slot: &Slot, call: &str) {
        let st = self.state.lock();
        match st[slot.index].owner {
            Some(t) if t == std::thread::current().id() => {}
            Some(_) => fatal(&format!("{call} called from a thread other than the one that acquired the context")),
            None => fatal(&format!(
                "{call} called with a context handle whose recording was already ended by gpuExecSubmit or gpuExecAbandon"
            )),
        }
    }

    pub fn reads_frame(&self, slot: &Slot, f: Arc<dyn GpuPlanes>) {
        self.check_owner(slot, "gpuExecReadsFrame");
        super::frame::check_core_owned(&*f, "gpuExecReadsFrame");
        self.state.lock()[slot.index].reads.push(f);
    }

    /// reads_frame for the core's own recordings, which may touch frames a foreign API owns
    /// (waitGPUFrame's availability submission, copies for getExportableFrameFilter).
    pub fn reads_frame_internal(&self, slot: &Slot, f: Arc<dyn GpuPlanes>) {
        self.check_owner(slot, "gpuExecReadsFrame");
        self.state.lock()[slot.index].reads.push(f);
    }

    pub fn writes_plane(&self, slot: &Slot, f: Arc<dyn GpuPlanes>, plane: i32) {
        self.check_owner(slot, "gpuExecWritesPlane");
        if gpu_plane(&*f, plane).is_none() {
            fatal(&format!("gpuExecWritesPlane: plane {plane} of the frame is not a GPU resident plane"));
        }
        super::frame::check_core_owned(&*f, "gpuExecWritesPlane");
        if !super::frame::owns_plane(&*f, plane) {
            fatal(&format!(
                "gpuExecWritesPlane called on plane {plane} of a frame that shares it with another frame; a GPU plane has no copy on write, so the write would land in the other frame too. Take a new frame with the properties of the old one instead of copying it."
            ));
        }
        self.state.lock()[slot.index].writes.push((f, plane));
    }

    pub fn retain(&self, slot: &Slot, call: &str, r: Retained, bytes: u64) {
        self.check_owner(slot, call);
        let mut st = self.state.lock();
        st[slot.index].retained.push(r);
        st[slot.index].retained_bytes += bytes;
    }

    fn take_recording(&self, slot: &Slot) -> Recording {
        let mut st = self.state.lock();
        let s = &mut st[slot.index];
        let bytes = std::mem::take(&mut s.retained_bytes);
        (std::mem::take(&mut s.reads), std::mem::take(&mut s.writes), std::mem::take(&mut s.retained), bytes)
    }

    /// A completed (or abandoned by a reset) submission: its bytes leave the budget.
    fn retire(&self, f: Inflight) -> Vec<Retained> {
        if let Some(t) = self.timing.as_ref().filter(|_| !self.dev.is_lost()) {
            let load = self.dev.runs_kernels(&self.queue).then_some(&self.dev.compute_load);
            t.completed(&self.dev, self.id, (self.queue.family, self.queue.index), f.slot, load);
        }
        if f.bytes != 0 {
            self.dev.inflight_bytes.fetch_sub(f.bytes, Ordering::AcqRel);
        }
        f.retained
    }

    fn end_recording(&self, slot: &Slot, inflight: Option<Inflight>) {
        {
            let mut st = self.state.lock();
            st[slot.index].owner = None;
            st[slot.index].inflight = inflight;
        }
        HELD.with(|h| {
            if std::ptr::eq(h.get(), slot) {
                h.set(std::ptr::null());
            }
        });
        self.cv.notify_all();
    }

    pub fn abandon(&self, slot: &Slot) {
        self.check_owner(slot, "gpuExecAbandon");
        // SAFETY: end the recording so the buffer can be reset later; its contents are discarded.
        unsafe {
            let _ = self.dev.device.end_command_buffer(slot.cb);
        }
        let (reads, writes, retained, _) = self.take_recording(slot);
        self.end_recording(slot, None);
        drop(writes);
        drop(reads);
        release_all(retained);
    }

    pub fn submit(&self, slot: &Slot) -> Result<u64, String> {
        self.check_owner(slot, "gpuExecSubmit");
        let (reads, writes, mut retained, bytes) = self.take_recording(slot);
        let fail = |this: &Self, retained: Vec<Retained>, e: String| {
            this.end_recording(slot, None);
            release_all(retained);
            Err(e)
        };
        if let Some(t) = &self.timing {
            t.end(&self.dev, slot.cb, slot.index);
        }
        // SAFETY: we own the recording.
        if let Err(r) = unsafe { self.dev.device.end_command_buffer(slot.cb) } {
            return fail(self, retained, format!("vkEndCommandBuffer failed (VkResult {})", r.as_raw()));
        }
        // Wait every producer pair of what is read (and of what is overwritten), one wait per
        // semaphore at its highest value.
        let mut waits: HashMap<vk::Semaphore, (u64, Arc<Timeline>)> = HashMap::new();
        let mut add = |f: &dyn GpuPlanes| {
            for p in 0..f.plane_count() as i32 {
                if let Some(g) = gpu_plane(f, p) {
                    let pr = g.producer();
                    if let Some(t) = pr.timeline {
                        let e = waits.entry(t.sem).or_insert((0, t.clone()));
                        e.0 = e.0.max(pr.value);
                    }
                }
            }
        };
        for f in &reads {
            add(&**f);
        }
        for (f, _) in &writes {
            add(&**f);
        }
        let wait_infos: Vec<vk::SemaphoreSubmitInfo> = waits
            .iter()
            .map(|(s, (v, _))| vk::SemaphoreSubmitInfo::default().semaphore(*s).value(*v).stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS))
            .collect();
        if let Err(e) = wait_cuda_uploads(&waits) {
            drop(reads);
            drop(writes);
            return fail(self, retained, e);
        }
        let cbs = [vk::CommandBufferSubmitInfo::default().command_buffer(slot.cb)];
        if self.dev.injected_loss() {
            drop(reads);
            drop(writes);
            return fail(self, retained, format!("vkQueueSubmit2 failed: {DEVICE_LOST}"));
        }
        let t = crate::stats::time(crate::stats::Stat::Submit);
        let result = self.queue.with(|q| {
            // Checked under the queue lock: a loss (a simulated one included) is final, and the
            // driver would refuse the submission.
            if self.dev.is_lost() {
                return Err(vk::Result::ERROR_DEVICE_LOST);
            }
            // Allocated before the submission, so no reaper can see the counter pass it: a value
            // whose submission then fails is past checking (waiting for it hangs), as the API says.
            let value = self.submitted.load(Ordering::Relaxed) + 1;
            self.submitted.store(value, Ordering::Release);
            let signal = [vk::SemaphoreSubmitInfo::default().semaphore(self.timeline.sem).value(value).stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
            let submit = vk::SubmitInfo2::default().wait_semaphore_infos(&wait_infos).command_buffer_infos(&cbs).signal_semaphore_infos(&signal);
            // SAFETY: the queue lock is held; all handles are live.
            let r = unsafe { self.dev.device.queue_submit2(q, &[submit], vk::Fence::null()) };
            r.map(|_| (value, self.queue.seq.fetch_add(1, Ordering::Relaxed)))
        });
        drop(t);
        let (value, seq) = match result {
            Ok(v) => v,
            Err(r) => {
                drop(reads);
                drop(writes);
                if r == vk::Result::ERROR_DEVICE_LOST {
                    self.dev.mark_lost();
                    return fail(self, retained, format!("vkQueueSubmit2 failed: {DEVICE_LOST}"));
                }
                return fail(self, retained, format!("vkQueueSubmit2 failed (VkResult {})", r.as_raw()));
            }
        };
        for (f, p) in &writes {
            if let Some(g) = gpu_plane(f, *p) {
                g.set_producer(Some(self.timeline.clone()), value);
            }
        }
        drop(writes);
        retained.extend(reads.into_iter().map(Retained::Frame));
        let waits: Vec<(Arc<Timeline>, u64)> = waits.into_values().map(|(v, t)| (t, v)).collect();
        let bytes = if self.counts { bytes as i64 } else { 0 };
        if bytes != 0 {
            self.dev.inflight_bytes.fetch_add(bytes, Ordering::AcqRel);
        }
        self.end_recording(slot, Some(Inflight { slot: slot.index, value, seq, waits, retained, bytes }));
        self.sweep();
        Ok(value)
    }

    /// Releases what completed submissions retained.
    pub fn sweep(&self) {
        // SAFETY: a live semaphore.
        let counter = match unsafe { self.dev.device.get_semaphore_counter_value(self.timeline.sem) } {
            Ok(c) => c,
            Err(vk::Result::ERROR_DEVICE_LOST) => {
                self.dev.mark_lost();
                u64::MAX
            }
            Err(_) => return,
        };
        let submitted = self.submitted.load(Ordering::Acquire);
        if counter > submitted && counter != u64::MAX {
            fatal("the exec pool's timeline was signalled from outside the pool: its counter is past the last value the pool submitted");
        }
        let lost = counter == u64::MAX || self.dev.is_lost();
        let _r = self.releasing.lock();
        let mut done = Vec::new();
        {
            let mut st = self.state.lock();
            for s in st.iter_mut() {
                if s.inflight.as_ref().is_some_and(|f| lost || f.value <= counter) {
                    done.extend(s.inflight.take().map(|f| self.retire(f)).unwrap_or_default());
                }
            }
        }
        release_all(done);
    }

    /// Waits for one submitted value.
    pub fn wait_value(&self, value: u64) -> WaitOutcome {
        forbid_in_release("gpuExecWaitValue");
        if value > self.submitted.load(Ordering::Acquire) {
            fatal("gpuExecWaitValue called with a value past everything the pool has submitted, which nothing will ever signal");
        }
        let o = wait_value(&self.dev, self.timeline.sem, value);
        self.sweep();
        o
    }

    /// Waits for every submission and runs every release callback.
    pub fn wait_idle(&self, call: &str) -> WaitOutcome {
        forbid_in_release(call);
        if self.holds_context_here() {
            fatal(&format!("{call} called by a thread holding a context of the pool; submit or abandon it first"));
        }
        let v = self.submitted.load(Ordering::Acquire);
        let o = if v == 0 { WaitOutcome::Done } else { wait_value(&self.dev, self.timeline.sem, v) };
        match o {
            WaitOutcome::Done | WaitOutcome::Lost => {
                self.sweep();
                // A concurrent sweep that took some retentions first finishes under `releasing`.
                drop(self.releasing.lock());
            }
            WaitOutcome::Failed(_) => {}
        }
        o
    }

    /// freeGPUExecPool: fatal while a context is held, then drains.
    pub fn destroy(self: Arc<Self>) {
        forbid_in_release("freeGPUExecPool");
        if self.state.lock().iter().any(|s| s.owner.is_some()) {
            fatal("freeGPUExecPool called while a thread still holds one of the pool's contexts");
        }
        let _ = self.wait_idle("freeGPUExecPool");
        // Anything left (an incomplete wait) is released with the device idle.
        if self.state.lock().iter().any(|s| s.inflight.is_some()) {
            // SAFETY: waits for the device to be idle.
            unsafe {
                let _ = self.dev.device.device_wait_idle();
            }
            let mut left = Vec::new();
            for s in self.state.lock().iter_mut() {
                left.extend(s.inflight.take().map(|f| self.retire(f)).unwrap_or_default());
            }
            release_all(left);
        }
    }
}

/// Resolves a context handle to its slot and pool; the pool outlives its contexts.
///
/// # Safety
/// `ctx` came from gpuExecAcquire of a pool not yet freed.
pub unsafe fn slot_pool<'a>(ctx: *const Slot) -> (&'a Slot, Arc<PoolInner>) {
    let slot = &*ctx;
    let pool = slot.pool.upgrade().unwrap_or_else(|| fatal("an exec context was used after freeGPUExecPool"));
    (slot, pool)
}

/// The oldest submission holding budget bytes, as (pool, value).
fn oldest_inflight(dev: &Device) -> Option<(Arc<PoolInner>, u64)> {
    let pools: Vec<Arc<PoolInner>> = dev.exec_pools.lock().iter().filter_map(Weak::upgrade).collect();
    let mut best: Option<(Arc<PoolInner>, u64)> = None;
    for p in pools {
        let v = p.state.lock().iter().filter_map(|s| s.inflight.as_ref().filter(|f| f.bytes > 0).map(|f| f.value)).min();
        if let Some(v) = v {
            if best.as_ref().is_none_or(|b| v < b.1) {
                best = Some((p, v));
            }
        }
    }
    best
}

/// Acquire's admission control: while submitted work retains more than the in-flight budget (a
/// quarter of the VRAM limit, at least 256 MB), wait out the oldest such submission.
fn gate_inflight(dev: &Arc<Device>) {
    let budget = (dev.pool.limit.load(Ordering::Relaxed) / 4).max(super::device::LIMIT_FLOOR);
    let mut rounds = 0;
    let _t = (dev.inflight_bytes.load(Ordering::Acquire) > budget).then(|| crate::stats::time(crate::stats::Stat::InflightGate));
    while dev.inflight_bytes.load(Ordering::Acquire) > budget && rounds < 64 {
        rounds += 1;
        sweep_all(dev);
        if dev.inflight_bytes.load(Ordering::Acquire) <= budget {
            break;
        }
        let Some((pool, v)) = oldest_inflight(dev) else { break };
        if let WaitOutcome::Lost = wait_value(dev, pool.timeline.sem, v) {
            break;
        }
        pool.sweep();
    }
}

/// Device wide sweep of every pool (memory pressure).
pub fn sweep_all(dev: &Device) {
    let pools: Vec<Arc<PoolInner>> = dev.exec_pools.lock().iter().filter_map(Weak::upgrade).collect();
    for p in pools {
        p.sweep();
    }
}

/// What every exec pool of the device holds, for a stall report. Reads the pools' states one at a
/// time, so the picture may be a moment out of step between pools.
fn pool_views(dev: &Device) -> Vec<super::stall::PoolView> {
    let pools: Vec<Arc<PoolInner>> = dev.exec_pools.lock().iter().filter_map(Weak::upgrade).collect();
    pools
        .iter()
        .map(|p| {
            let st = p.state.lock();
            super::stall::PoolView {
                id: p.id,
                queue: (p.queue.family, p.queue.index),
                timeline: p.timeline.clone(),
                submitted: p.submitted.load(Ordering::Acquire),
                reached: p.timeline.reached(),
                recording: st.iter().filter(|s| s.owner.is_some()).count(),
                pending: st
                    .iter()
                    .filter_map(|s| s.inflight.as_ref())
                    .map(|f| super::stall::Pending { value: f.value, seq: f.seq, waits: f.waits.clone() })
                    .collect(),
            }
        })
        .collect()
}
