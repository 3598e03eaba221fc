//! The frame scheduler: a thread pool running filter activations, one context per (node, frame)
//! in flight shared by everyone waiting for that frame, dependency tracking and the filter modes.
//!
//! A frame request finds the frame in the node's cache, joins the context already producing it,
//! or starts a new context with an `arInitial` activation. A context whose filter requested frames
//! waits until every one of them is delivered, then runs again with `arAllFramesReady` (or
//! `arError` when one failed). Nothing blocks a worker while it waits: waiting is bookkeeping.
use std::cell::Cell;
use std::collections::VecDeque;
use std::ffi::{c_void, CString};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use smallvec::SmallVec;
use vsvk_plugin_api::abi::*;

use crate::core::Core;
use crate::frame::{Frame, FrameFormat};
use crate::node::{FilterImpl, Node};

/// Work for the pool: a frame context's next activation (the scheduler's own, most of the queue,
/// kept without a heap allocation), or any other job.
enum Task {
    Activate(Arc<FrameCtx>, i32),
    Call(Box<dyn FnOnce() + Send>),
}

impl Task {
    fn run(self) {
        match self {
            Task::Activate(ctx, reason) => activate(ctx, reason),
            Task::Call(f) => f(),
        }
    }
}

struct PoolState {
    queue: VecDeque<Task>,
    /// Threads the core asked for; workers above it retire.
    target: usize,
    /// Extra workers lent while a worker blocks in a synchronous getFrame.
    lent: usize,
    spawned: usize,
    idle: usize,
    /// Tasks being run now; a task's captures (frame contexts, nodes) are released when it ends.
    running: usize,
    shutdown: bool,
    /// The workers, joined by `shutdown` so that none outlives the core.
    handles: Vec<thread::JoinHandle<()>>,
}

pub struct Pool {
    state: Mutex<PoolState>,
    work: Condvar,
    /// The queue's length, read without the lock by a worker waiting awake (`spin_for_work`).
    queued: AtomicUsize,
    /// Whether a worker waits awake now: one at a time.
    spinning: AtomicBool,
    /// How long it waits (`spin_for_work`).
    spin: Duration,
    /// How many times a worker went to sleep.
    #[cfg(test)]
    sleeps: AtomicUsize,
    /// Frame contexts and external callbacks not yet finished: freeCore waits for zero.
    outstanding: AtomicUsize,
    done_lock: Mutex<()>,
    done: Condvar,
}

thread_local! {
    static ON_WORKER: Cell<bool> = const { Cell::new(false) };
}

pub fn on_worker_thread() -> bool {
    ON_WORKER.with(|w| w.get())
}

impl Pool {
    pub fn new(threads: usize) -> Arc<Pool> {
        Pool::with_spin(threads, spin_setting())
    }

    fn with_spin(threads: usize, spin: Duration) -> Arc<Pool> {
        Arc::new(Pool {
            state: Mutex::new(PoolState {
                queue: VecDeque::new(),
                target: threads.max(1),
                lent: 0,
                spawned: 0,
                idle: 0,
                running: 0,
                shutdown: false,
                handles: Vec::new(),
            }),
            work: Condvar::new(),
            queued: AtomicUsize::new(0),
            spinning: AtomicBool::new(false),
            spin,
            #[cfg(test)]
            sleeps: AtomicUsize::new(0),
            outstanding: AtomicUsize::new(0),
            done_lock: Mutex::new(()),
            done: Condvar::new(),
        })
    }

    pub fn threads(&self) -> usize {
        self.state.lock().target
    }

    pub fn set_threads(self: &Arc<Self>, n: usize) {
        let mut s = self.state.lock();
        s.target = n.max(1);
        drop(s);
        self.work.notify_all();
    }

    pub fn spawn(self: &Arc<Self>, job: Box<dyn FnOnce() + Send>) {
        self.push(Task::Call(job));
    }

    fn push(self: &Arc<Self>, task: Task) {
        let mut s = self.state.lock();
        s.queue.push_back(task);
        self.queued.store(s.queue.len(), Ordering::Relaxed);
        if s.idle > 0 {
            drop(s);
            self.work.notify_one();
        } else if s.spawned < s.target + s.lent && !s.shutdown {
            s.spawned += 1;
            let pool = self.clone();
            let h = thread::Builder::new().name("vsvk-worker".into()).spawn(move || pool.worker()).expect("spawning a worker thread");
            // Workers that retired (after a lent one's getFrame returned) are joined, not let go: a
            // finished handle only means the worker's function returned, and its thread may still
            // run our thread-local destructors, which must not outlive freeCore and the library.
            let (retired, live): (Vec<_>, Vec<_>) = std::mem::take(&mut s.handles).into_iter().partition(|h| h.is_finished());
            s.handles = live;
            s.handles.push(h);
            drop(s);
            join_all(retired);
        }
    }

    fn worker(self: Arc<Self>) {
        ON_WORKER.with(|w| w.set(true));
        let mut s = self.state.lock();
        let mut spun = false;
        loop {
            if s.spawned > s.target + s.lent || (s.shutdown && s.queue.is_empty()) {
                s.spawned -= 1;
                return;
            }
            if let Some(task) = s.queue.pop_front() {
                self.queued.store(s.queue.len(), Ordering::Relaxed);
                spun = false;
                s.running += 1;
                drop(s);
                task.run();
                s = self.state.lock();
                s.running -= 1;
                if s.running == 0 && s.queue.is_empty() {
                    // wait_idle may be waiting for the last task to let go of its references
                    drop(s);
                    drop(self.done_lock.lock());
                    self.done.notify_all();
                    s = self.state.lock();
                }
                continue;
            }
            if !spun && !s.shutdown && s.running == 0 {
                // (only while no task runs, so that it takes no CPU from the pool's own work)
                // then back to the top, to take under the lock whatever came meanwhile
                spun = true;
                self.spin_for_work(&mut s);
                continue;
            }
            s.idle += 1;
            #[cfg(test)]
            self.sleeps.fetch_add(1, Ordering::Relaxed);
            self.work.wait(&mut s);
            s.idle -= 1;
            spun = false;
        }
    }

    /// Before a worker sleeps while no task runs, one worker at a time waits awake for new work a
    /// moment (`spin`, VSVK_SPIN_US, default 100 us; 0 never). A request from outside the pool
    /// (the host's getFrameAsync after each delivered frame) then finds the worker running, where
    /// a sleeping one would cost both threads a futex wake: at one thread a chain of 100 cheap
    /// filters ran faster than the host re-requested, so the worker slept after every other frame
    /// and ran at 0.75x R81 on two CPUs, against 1.4x when both threads shared one CPU
    /// (docs/BENCHMARKS.md, Host).
    fn spin_for_work(&self, s: &mut parking_lot::MutexGuard<'_, PoolState>) {
        let spin = self.spin;
        if spin.is_zero() || self.spinning.swap(true, Ordering::Acquire) {
            return;
        }
        parking_lot::MutexGuard::unlocked(s, || {
            let start = Instant::now();
            let mut i = 0u32;
            while self.queued.load(Ordering::Relaxed) == 0 {
                i = i.wrapping_add(1);
                if i % 64 == 0 && start.elapsed() >= spin {
                    break;
                }
                std::hint::spin_loop();
            }
        });
        self.spinning.store(false, Ordering::Release);
    }

    /// Runs `f`, which blocks, with one more worker so the pool keeps its full width meanwhile.
    pub fn while_blocked<R>(self: &Arc<Self>, f: impl FnOnce() -> R) -> R {
        if !on_worker_thread() {
            return f();
        }
        {
            let mut s = self.state.lock();
            s.lent += 1;
            if !s.queue.is_empty() && s.idle == 0 {
                s.spawned += 1;
                let pool = self.clone();
                let h = thread::Builder::new().name("vsvk-worker".into()).spawn(move || pool.worker()).expect("spawning a worker thread");
                s.handles.push(h);
            }
        }
        let r = f();
        self.state.lock().lent -= 1;
        r
    }

    pub fn begin(&self) {
        self.outstanding.fetch_add(1, Ordering::AcqRel);
    }
    pub fn end(&self) {
        if self.outstanding.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _g = self.done_lock.lock();
            self.done.notify_all();
        }
    }
    /// Waits until no frame request is in flight and no task runs: a finished request's context
    /// (and the nodes it holds) is released by the task that finished it, after `end`.
    pub fn wait_idle(&self) {
        let mut g = self.done_lock.lock();
        while self.outstanding.load(Ordering::Acquire) != 0 || self.busy() {
            self.done.wait(&mut g);
        }
    }
    fn busy(&self) -> bool {
        let s = self.state.lock();
        s.running > 0 || !s.queue.is_empty()
    }
    pub fn shutdown(&self) {
        let handles = {
            let mut s = self.state.lock();
            s.shutdown = true;
            std::mem::take(&mut s.handles)
        };
        self.work.notify_all();
        // As R81's freeCore does, join the workers: no thread of ours may still run once freeCore
        // returns (the host may unload the library next). A worker that drops the core cannot join
        // itself; then they are left to finish on their own.
        if !on_worker_thread() {
            join_all(handles);
        }
    }

    /// How many workers the pool holds handles to (running, idle or retired but not yet joined).
    #[cfg(test)]
    fn handles(&self) -> usize {
        self.state.lock().handles.len()
    }
}

fn spin_setting() -> Duration {
    Duration::from_micros(std::env::var("VSVK_SPIN_US").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(100))
}

fn join_all(handles: Vec<thread::JoinHandle<()>>) {
    for h in handles {
        let _ = h.join();
    }
}

pub type Delivery = Result<Arc<Frame>, String>;

pub enum Waiter {
    /// A frame context that requested frame `n` of the node at `from`.
    Parent { ctx: Arc<FrameCtx>, from: usize, n: i32 },
    External(Box<dyn FnOnce(Delivery) + Send>),
}

struct Fetched {
    node: *const Node,
    n: i32,
    frame: Arc<Frame>,
}

#[derive(Default)]
struct CtxState {
    waiters: SmallVec<[Waiter; 1]>,
    frame_data: usize,
    pending: usize,
    fetched: SmallVec<[Fetched; 2]>,
    dep_error: Option<String>,
}

/// One frame of one node being produced.
pub struct FrameCtx {
    pub node: Arc<Node>,
    pub n: i32,
    state: Mutex<CtxState>,
}

// SAFETY: the raw node pointers in `fetched` are only compared, never dereferenced.
unsafe impl Send for FrameCtx {}
unsafe impl Sync for FrameCtx {}

/// What a filter sees as `VSFrameContext*` during one activation.
pub struct FrameCall<'a> {
    pub ctx: &'a FrameCtx,
    requests: SmallVec<[(Arc<Node>, i32); 2]>,
    error: Option<String>,
}

impl FrameCall<'_> {
    pub fn node(&self) -> &Arc<Node> {
        &self.ctx.node
    }
    pub fn core(&self) -> &Arc<Core> {
        &self.ctx.node.core
    }
    /// Asks for frame `n` of `node` (clamped to the clip) before the next activation.
    pub fn request(&mut self, node: &Arc<Node>, n: i32) {
        let n = clamp_frame(node, n);
        if !self.requests.iter().any(|(d, m)| Arc::ptr_eq(d, node) && *m == n) {
            self.requests.push((node.clone(), n));
        }
    }
    /// A frame delivered for an earlier request, or None when it was not requested.
    pub fn get(&self, node: &Node, n: i32) -> Option<Arc<Frame>> {
        let n = clamp_frame(node, n);
        let st = self.ctx.state.lock();
        st.fetched.iter().find(|f| std::ptr::eq(f.node, node) && f.n == n).map(|f| f.frame.clone())
    }
    pub fn release_early(&self, node: &Node, n: i32) {
        let n = clamp_frame(node, n);
        self.ctx.state.lock().fetched.retain(|f| !(std::ptr::eq(f.node, node) && f.n == n));
    }
    pub fn set_error(&mut self, msg: String) {
        self.error = Some(msg);
    }
    pub fn as_raw(&mut self) -> *mut VSFrameContext {
        (self as *mut Self).cast()
    }
    /// # Safety
    /// `p` is the context pointer of an activation still running on this thread.
    pub unsafe fn from_raw<'b>(p: *mut VSFrameContext) -> &'b mut FrameCall<'b> {
        &mut *p.cast::<FrameCall<'b>>()
    }
}

pub fn clamp_frame(node: &Node, n: i32) -> i32 {
    n.clamp(0, (node.num_frames() - 1).max(0))
}

/// Requests frame `n` of `node` for `waiter`. `n` must be inside the clip.
pub fn request(node: &Arc<Node>, n: i32, waiter: Waiter) {
    let (caching, hit) = cache_lookup(node, n);
    if let Some(f) = hit {
        deliver(waiter, Ok(f));
        return;
    }
    let mut inflight = node.inflight.lock();
    if let Some(ctx) = inflight.get(&n) {
        ctx.state.lock().waiters.push(waiter);
        return;
    }
    // The frame may have landed in the cache between the lookup and taking the lock (a cache
    // that was off then cannot have taken it; one turned on since is merely missed once).
    if let Some(f) = caching.then(|| cache_lookup(node, n).1).flatten() {
        drop(inflight);
        deliver(waiter, Ok(f));
        return;
    }
    let ctx = Arc::new(FrameCtx {
        node: node.clone(),
        n,
        state: Mutex::new(CtxState { waiters: smallvec::smallvec![waiter], ..CtxState::default() }),
    });
    inflight.insert(n, ctx.clone());
    drop(inflight);
    node.core.pool.begin();
    schedule(ctx, arInitial);
}

/// Whether the node caches, and its frame n if the cache holds it.
fn cache_lookup(node: &Node, n: i32) -> (bool, Option<Arc<Frame>>) {
    let mut c = node.cache.lock();
    if c.enabled() {
        (true, c.get(n))
    } else {
        (false, None)
    }
}

fn deliver(waiter: Waiter, result: Delivery) {
    if let Some((ctx, reason)) = hand_over(waiter, result) {
        continue_here_or_schedule(ctx, reason);
    }
}

/// Gives `result` to `waiter`; returns the parent context when this was the last frame it waited
/// for, with the reason of its next activation, for the caller to run or queue.
fn hand_over(waiter: Waiter, result: Delivery) -> Option<(Arc<FrameCtx>, i32)> {
    match waiter {
        Waiter::External(cb) => {
            cb(result);
            None
        }
        Waiter::Parent { ctx: parent, from, n } => {
            let ready = {
                let mut st = parent.state.lock();
                match result {
                    Ok(frame) => st.fetched.push(Fetched { node: from as *const Node, n, frame }),
                    Err(e) => {
                        st.dep_error.get_or_insert(e);
                    }
                }
                st.pending -= 1;
                (st.pending == 0).then(|| if st.dep_error.is_some() { arError } else { arAllFramesReady })
            };
            ready.map(|reason| (parent, reason))
        }
    }
}

thread_local! {
    /// Activations run inline on this thread right now, and whether a serialising gate is held.
    static INLINE_DEPTH: Cell<u32> = const { Cell::new(0) };
    static HOLDS_GATE: Cell<bool> = const { Cell::new(false) };
}

/// How deep inline activations may nest before the rest goes through the queue; bounds the stack.
const MAX_INLINE_DEPTH: u32 = 8;

/// A frame just finished made `ctx` ready: run its next activation on this worker, skipping a
/// trip through the queue, unless that would nest too deep or extend a held gate.
fn continue_here_or_schedule(ctx: Arc<FrameCtx>, reason: i32) {
    let depth = INLINE_DEPTH.with(Cell::get);
    if on_worker_thread() && depth < MAX_INLINE_DEPTH && !HOLDS_GATE.with(Cell::get) {
        INLINE_DEPTH.with(|d| d.set(depth + 1));
        activate(ctx, reason);
        INLINE_DEPTH.with(|d| d.set(depth));
    } else {
        schedule(ctx, reason);
    }
}

fn schedule(ctx: Arc<FrameCtx>, reason: i32) {
    let pool = ctx.node.core.pool.clone();
    pool.push(Task::Activate(ctx, reason));
}

fn needs_gate(mode: i32, reason: i32) -> bool {
    match mode {
        fmParallel => false,
        fmParallelRequests => reason != arInitial,
        _ => true,
    }
}

/// Runs one activation, honouring the node's filter mode; queued activations of a serialised node
/// run on this thread when the gate frees.
fn activate(ctx: Arc<FrameCtx>, reason: i32) {
    let node = ctx.node.clone();
    if !needs_gate(node.mode, reason) {
        run(&ctx, reason);
        return;
    }
    let ordered = crate::node::orders(node.mode);
    {
        let mut g = node.gate.lock();
        if ordered && reason != arInitial {
            g.awaiting.remove(&ctx.n);
        }
        match g.holder {
            // fmFrameState keeps the gate for a frame from its first activation to its completion.
            Some(h) if !(node.mode == fmFrameState && h == ctx.n) => {
                g.queue.push_back((ctx, reason));
                return;
            }
            // A lower frame awaiting its inputs goes first; it takes this one when it is done.
            None if ordered && reason != arInitial && g.defers(ctx.n) => {
                g.queue.push_back((ctx, reason));
                return;
            }
            _ => g.holder = Some(ctx.n),
        }
    }
    let mut next = Some((ctx, reason));
    let held_before = HOLDS_GATE.with(|h| h.replace(true));
    while let Some((c, r)) = next.take() {
        let finished = run(&c, r);
        let mut g = node.gate.lock();
        if node.mode != fmFrameState || finished {
            g.holder = None;
        }
        if g.holder.is_none() {
            if let Some((qc, qr)) = g.take_next(ordered) {
                g.holder = Some(qc.n);
                next = Some((qc, qr));
            }
        }
    }
    HOLDS_GATE.with(|h| h.set(held_before));
}

/// Calls the filter once; returns whether the frame is finished (delivered or failed).
fn run(ctx: &Arc<FrameCtx>, reason: i32) -> bool {
    let node = &ctx.node;
    let mut call = FrameCall { ctx, requests: SmallVec::new(), error: None };
    let mut frame_data = ctx.state.lock().frame_data as *mut c_void;
    let timing = node.core.node_timing.load(Ordering::Relaxed);
    let t0 = timing.then(Instant::now);
    let result: Result<Option<Arc<Frame>>, String> = match &node.filter {
        FilterImpl::C { get_frame, instance_data, .. } => {
            // SAFETY: the filter's own callback with its own instance data, as the API specifies;
            // `call` outlives the call and is the context the filter may pass back to us.
            let f = unsafe {
                get_frame(ctx.n, reason, *instance_data, &mut frame_data, call.as_raw(), Core::as_raw(&node.core), node.core.wiring.vsapi)
            };
            if f.is_null() {
                Ok(None)
            } else {
                // SAFETY: a returned frame carries one reference, which we take over.
                Ok(Some(unsafe { Frame::from_raw(f) }))
            }
        }
        FilterImpl::Rust(filter) => {
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| filter.get_frame(ctx.n, reason, &mut frame_data, &mut call))) {
                Ok(r) => r,
                Err(_) => Err("the filter panicked".into()),
            }
        }
    };
    if let Some(t0) = t0 {
        node.processing_ns.fetch_add(t0.elapsed().as_nanos() as i64, Ordering::Relaxed);
    }
    let FrameCall { requests, error, .. } = call;
    // Text given to setFilterError reaches the caller verbatim, as in R81; only errors a Rust filter
    // returns get the node's name in front.
    let from_set_error = error.is_some();
    let result = match (result, error) {
        (_, Some(e)) => Err(e),
        (r, None) => r,
    };

    if reason == arError {
        let e = ctx.state.lock().dep_error.clone().unwrap_or_default();
        complete(ctx, Err(e));
        return true;
    }
    match result {
        Err(e) if from_set_error => {
            complete(ctx, Err(e));
            true
        }
        Err(e) => {
            complete(ctx, Err(format!("{}: {}", node.name_str(), e).trim_start_matches(": ").to_string()));
            true
        }
        Ok(Some(frame)) => {
            let checked = check_output(node, &frame).map(|_| frame);
            complete(ctx, checked);
            true
        }
        Ok(None) if !requests.is_empty() => {
            // frame_data matters only to a later activation, so it is kept only where one follows
            {
                let mut st = ctx.state.lock();
                st.frame_data = frame_data as usize;
                st.pending = requests.len() + 1;
            }
            // Before the requests go out: an input already cached brings the frame back at once.
            if crate::node::orders(node.mode) {
                node.gate.lock().awaiting.insert(ctx.n);
            }
            for (dep, n) in requests {
                let from = Arc::as_ptr(&dep) as usize;
                request(&dep, n, Waiter::Parent { ctx: ctx.clone(), from, n });
            }
            deliver_placeholder(ctx);
            false
        }
        Ok(None) => {
            let msg = if reason == arInitial {
                format!("{}: the filter returned no frame and requested none", node.name_str())
            } else {
                format!("{}: the filter returned no frame and set no error", node.name_str())
            };
            complete(ctx, Err(msg));
            true
        }
    }
}

/// Drops the extra pending count taken while requests were being issued.
fn deliver_placeholder(ctx: &Arc<FrameCtx>) {
    let ready = {
        let mut st = ctx.state.lock();
        st.pending -= 1;
        (st.pending == 0).then(|| if st.dep_error.is_some() { arError } else { arAllFramesReady })
    };
    if let Some(reason) = ready {
        continue_here_or_schedule(ctx.clone(), reason);
    }
}

/// The frame a filter returns must be what it declared (for constant formats and sizes).
fn check_output(node: &Node, f: &Frame) -> Result<(), String> {
    // Residency is part of the type: what the node declared (ffGPUOutput) is what it must return.
    if (node.flags & ffGPUOutput != 0) != (f.residency() == nrGPU) && !node.is_audio() {
        crate::fatal::fatal(&if f.residency() == nrGPU {
            format!("Filter {} returned a GPU resident frame without being created with ffGPUOutput", node.name_str())
        } else {
            format!("Filter {} is declared to return GPU resident frames but returned a CPU frame", node.name_str())
        });
    }
    if f.residency() == nrGPU {
        crate::gpu::frame::take_back(&node.name_str(), f)?;
    }
    match (&node.info, &f.format) {
        (crate::node::MediaInfo::Video(vi), FrameFormat::Video(ff)) => {
            if vi.format.colorFamily != cfUndefined && vi.format != *ff {
                return Err(format!("{}: the filter returned a frame of another format than it declared", node.name_str()));
            }
            if vi.width != 0 && (vi.width != f.width || vi.height != f.height) {
                return Err(format!(
                    "{}: the filter returned a {}x{} frame but declared {}x{}",
                    node.name_str(),
                    f.width,
                    f.height,
                    vi.width,
                    vi.height
                ));
            }
            Ok(())
        }
        (crate::node::MediaInfo::Audio(ai), FrameFormat::Audio(af)) => {
            if ai.format != *af {
                return Err(format!("{}: the filter returned audio of another format than it declared", node.name_str()));
            }
            Ok(())
        }
        _ => Err(format!("{}: the filter returned a frame of the wrong media type", node.name_str())),
    }
}

fn complete(ctx: &Arc<FrameCtx>, result: Delivery) {
    let node = &ctx.node;
    if let Ok(f) = &result {
        // GPU frames count against the VRAM limit the way host frames count against the cache's.
        let pressure = node.core.over_cache_budget() || crate::gpu::over_vram(f);
        let mut c = node.cache.lock();
        c.insert(ctx.n, f.clone(), pressure);
    }
    let waiters = {
        let mut inflight = node.inflight.lock();
        inflight.remove(&ctx.n);
        let mut st = ctx.state.lock();
        st.fetched.clear();
        std::mem::take(&mut st.waiters)
    };
    // A frame several contexts wait for (a temporal filter's neighbours) can make all of them
    // ready at once: only the last runs on this thread, the others go to the queue for idle
    // workers. Running them all here one after another serialised a temporal filter on whichever
    // worker finished the shared frame while the other workers had nothing to do.
    // The last waiter is given `result` itself rather than a copy, so that a frame with one
    // consumer reaches it as that consumer's only reference (gpu_map then hands it to CUDA in
    // place instead of copying it).
    let mut last: Option<(Arc<FrameCtx>, i32)> = None;
    let mut ready = |next: Option<(Arc<FrameCtx>, i32)>| {
        if let Some((c, r)) = next.and_then(|n| last.replace(n)) {
            schedule(c, r);
        }
    };
    let mut waiters = waiters.into_iter();
    let final_waiter = waiters.next_back();
    for w in waiters {
        ready(hand_over(w, result.clone()));
    }
    if let Some(w) = final_waiter {
        ready(hand_over(w, result));
    }
    if let Some((c, r)) = last {
        continue_here_or_schedule(c, r);
    }
    node.core.pool.end();
}

/// Starts an external request (getFrameAsync): `cb` runs once the frame is done, never beside
/// another such callback of the same core (see `delivery`) and never before this returns (as in R81:
/// the caller may hold a lock its callback takes); freeCore waits for it.
pub fn get_frame_async(node: &Arc<Node>, n: i32, cb: Box<dyn FnOnce(Delivery) + Send>) {
    let core = node.core.clone();
    let cb = external_callback(node, cb);
    let finish = Box::new(move |r| core.frame_callbacks.run(Box::new(move || cb(r))));
    let node = node.clone();
    // Even a cached frame is looked up on a worker, so that its callback does not run in here.
    node.core.pool.clone().spawn(Box::new(move || start_external(&node, n, finish)));
}

/// Starts an external request whose `cb` runs on whichever thread finishes the frame (this one when
/// it is cached), beside anything else: for waits with a lock of their own (a synchronous
/// getFrame), which must not queue behind a running callback that may be the very one waiting.
pub fn get_frame_unordered(node: &Arc<Node>, n: i32, cb: Box<dyn FnOnce(Delivery) + Send>) {
    start_external(node, n, external_callback(node, cb));
}

/// Counts a request as outstanding (freeCore waits) until its callback has returned.
struct Outstanding(Arc<Pool>);

impl Drop for Outstanding {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// `cb`, counted as outstanding from now until it returns.
fn external_callback(node: &Node, cb: Box<dyn FnOnce(Delivery) + Send>) -> Box<dyn FnOnce(Delivery) + Send> {
    node.core.pool.begin();
    let outstanding = Outstanding(node.core.pool.clone());
    Box::new(move |r| {
        let _outstanding = outstanding;
        cb(r);
    })
}

fn start_external(node: &Arc<Node>, n: i32, finish: Box<dyn FnOnce(Delivery) + Send>) {
    if n < 0 || n >= node.num_frames() {
        finish(Err(format!("Invalid frame number {} requested, clip only has {} frames", n, node.num_frames())));
        return;
    }
    request(node, n, Waiter::External(finish));
}

/// Blocks until frame `n` is produced.
pub fn get_frame(node: &Arc<Node>, n: i32) -> Delivery {
    let (tx, rx) = crossbeam_channel::bounded(1);
    get_frame_unordered(
        node,
        n,
        Box::new(move |r| {
            let _ = tx.send(r);
        }),
    );
    let pool = node.core.pool.clone();
    pool.while_blocked(|| rx.recv().unwrap_or_else(|_| Err("the frame request was dropped".into())))
}

pub fn error_cstring(msg: &str) -> CString {
    CString::new(msg.replace('\0', " ")).expect("NULs replaced")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    /// Stands for a thread-local a worker leaves behind: its destructor runs after the worker's
    /// function has returned, and takes a while.
    struct SlowDrop {
        started: Arc<AtomicBool>,
        ended: Arc<AtomicBool>,
    }
    impl Drop for SlowDrop {
        fn drop(&mut self) {
            self.started.store(true, Ordering::SeqCst);
            thread::sleep(Duration::from_millis(300));
            self.ended.store(true, Ordering::SeqCst);
        }
    }
    thread_local! {
        static LEFT: RefCell<Option<SlowDrop>> = const { RefCell::new(None) };
    }

    fn wait_for(what: &str, f: impl Fn() -> bool) {
        let until = Instant::now() + Duration::from_secs(20);
        while !f() {
            assert!(Instant::now() < until, "timed out waiting for {what}");
            thread::sleep(Duration::from_millis(1));
        }
    }

    /// Makes frames of a 64x8 Gray8 clip.
    struct Source;
    impl crate::node::Filter for Source {
        fn get_frame(&self, _n: i32, _r: i32, _fd: &mut *mut std::ffi::c_void, _call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
            let fmt = crate::format::query_video(cfGray, stInteger, 8, 0, 0).expect("Gray8");
            Frame::new_video(&fmt, 64, 8, &Arc::new(crate::frame::MemStats::default())).map(|f| Some(Arc::new(f))).map_err(|e| e.to_string())
        }
    }
    /// Requests frame n of its clip spatially, lets the context's copy go, and records the frames
    /// it finishes, in order, with how many references the frame it was handed had.
    struct Counter {
        clip: Arc<Node>,
        seen: Arc<Mutex<Vec<(i32, usize)>>>,
    }
    impl crate::node::Filter for Counter {
        fn get_frame(&self, n: i32, reason: i32, _fd: &mut *mut std::ffi::c_void, call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
            if reason == arInitial {
                call.request(&self.clip, n);
                return Ok(None);
            }
            let f = call.get(&self.clip, n).ok_or("missing")?;
            call.release_early(&self.clip, n);
            self.seen.lock().push((n, Arc::strong_count(&f)));
            Ok(Some(f))
        }
    }

    #[test]
    fn a_frame_with_one_consumer_reaches_it_as_its_only_reference() {
        let core = crate::core::Core::new(ccfDisableAutoLoading, crate::api::wiring());
        let fmt = crate::format::query_video(cfGray, stInteger, 8, 0, 0).expect("Gray8");
        let vi = VSVideoInfo { format: fmt, fpsNum: 1, fpsDen: 1, width: 64, height: 8, numFrames: 50 };
        let src = Node::new(core.clone(), "Source", crate::node::MediaInfo::Video(vi), crate::node::FilterImpl::Rust(Box::new(Source)), fmParallel, 0, Vec::new(), Vec::new());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let counter = Counter { clip: src.clone(), seen: seen.clone() };
        let node = Node::new(core.clone(), "Counter", crate::node::MediaInfo::Video(vi), crate::node::FilterImpl::Rust(Box::new(counter)), fmParallel, 0, vec![(src, rpStrictSpatial)], Vec::new());
        for n in 0..50 {
            get_frame(&node, n).expect("a frame");
        }
        // the producer's completion ran the consumer inline on its worker, or queued it: either
        // way the consumer holds the frame alone (no cache, the context's copy released)
        assert_eq!(seen.lock().iter().map(|s| s.1).collect::<Vec<_>>(), vec![1; 50]);
    }

    /// A serialised filter that records the frames it is called for; its call for frame 0 waits
    /// until the calls for `hold` frames wait at its gate.
    struct Recorder {
        order: Arc<Mutex<Vec<i32>>>,
        node: Arc<Mutex<Option<std::sync::Weak<Node>>>>,
        hold: usize,
    }
    impl crate::node::Filter for Recorder {
        fn get_frame(&self, n: i32, _r: i32, _fd: &mut *mut std::ffi::c_void, _call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
            if n == 0 {
                let node = self.node.lock().clone().and_then(|w| w.upgrade()).ok_or("no node")?;
                wait_for("the other calls to queue at the gate", || node.gate.lock().queue.len() == self.hold);
            }
            self.order.lock().push(n);
            let fmt = crate::format::query_video(cfGray, stInteger, 8, 0, 0).expect("Gray8");
            Frame::new_video(&fmt, 64, 8, &Arc::new(crate::frame::MemStats::default())).map(|f| Some(Arc::new(f))).map_err(|e| e.to_string())
        }
    }

    #[test]
    fn a_serialised_filter_takes_waiting_frames_lowest_first() {
        let core = crate::core::Core::new(ccfDisableAutoLoading, crate::api::wiring());
        core.pool.set_threads(4);
        let fmt = crate::format::query_video(cfGray, stInteger, 8, 0, 0).expect("Gray8");
        let vi = VSVideoInfo { format: fmt, fpsNum: 1, fpsDen: 1, width: 64, height: 8, numFrames: 50 };
        let order = Arc::new(Mutex::new(Vec::new()));
        let slot = Arc::new(Mutex::new(None));
        let rec = Recorder { order: order.clone(), node: slot.clone(), hold: 3 };
        let node = Node::new(core.clone(), "Recorder", crate::node::MediaInfo::Video(vi), crate::node::FilterImpl::Rust(Box::new(rec)), fmUnordered, 0, Vec::new(), Vec::new());
        *slot.lock() = Some(Arc::downgrade(&node));
        let (tx, rx) = crossbeam_channel::unbounded();
        // Frame 0 takes the gate; 9, 5 and 7 arrive in that order while it is held.
        for n in [0, 9, 5, 7] {
            let tx = tx.clone();
            get_frame_async(&node, n, Box::new(move |d: Delivery| tx.send(d.is_ok()).unwrap()));
            if n == 0 {
                wait_for("frame 0 to take the gate", || node.gate.lock().holder == Some(0));
            }
        }
        for _ in 0..4 {
            assert!(rx.recv_timeout(Duration::from_secs(20)).expect("a delivery"), "a frame failed");
        }
        assert_eq!(*order.lock(), vec![0, 5, 7, 9]);
    }

    /// A source whose frame 1 is held back until `release` is set.
    struct SlowOne {
        release: Arc<AtomicBool>,
    }
    impl crate::node::Filter for SlowOne {
        fn get_frame(&self, n: i32, _r: i32, _fd: &mut *mut std::ffi::c_void, _call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
            if n == 1 {
                wait_for("the test to release frame 1", || self.release.load(Ordering::SeqCst));
            }
            Source.get_frame(n, arInitial, _fd, _call)
        }
    }

    #[test]
    fn a_frame_order_filter_waits_for_a_lower_frame_still_fetching_its_inputs() {
        for mode in [fmParallelRequests, fmUnordered] {
            let core = crate::core::Core::new(ccfDisableAutoLoading, crate::api::wiring());
            core.pool.set_threads(4);
            let fmt = crate::format::query_video(cfGray, stInteger, 8, 0, 0).expect("Gray8");
            let vi = VSVideoInfo { format: fmt, fpsNum: 1, fpsDen: 1, width: 64, height: 8, numFrames: 50 };
            let release = Arc::new(AtomicBool::new(false));
            let src = Node::new(core.clone(), "SlowOne", crate::node::MediaInfo::Video(vi), crate::node::FilterImpl::Rust(Box::new(SlowOne { release: release.clone() })), fmParallel, 0, Vec::new(), Vec::new());
            let seen = Arc::new(Mutex::new(Vec::new()));
            let f = Counter { clip: src.clone(), seen: seen.clone() };
            let node = Node::new(core.clone(), "Counter", crate::node::MediaInfo::Video(vi), crate::node::FilterImpl::Rust(Box::new(f)), mode, 0, vec![(src, rpStrictSpatial)], Vec::new());
            let (tx, rx) = crossbeam_channel::unbounded();
            for n in [1, 2, 3] {
                let tx = tx.clone();
                get_frame_async(&node, n, Box::new(move |d: Delivery| tx.send(d.is_ok()).unwrap()));
            }
            // Frames 2 and 3 have their inputs; frame 1 is still fetching its own, so they wait.
            wait_for("frames 2 and 3 to wait at the gate", || node.gate.lock().queue.len() == 2);
            thread::sleep(Duration::from_millis(50));
            assert!(seen.lock().is_empty(), "mode {mode}: ran {:?} before frame 1 had its input", seen.lock());
            release.store(true, Ordering::SeqCst);
            for _ in 0..3 {
                assert!(rx.recv_timeout(Duration::from_secs(20)).expect("a delivery"), "a frame failed");
            }
            assert_eq!(seen.lock().iter().map(|s| s.0).collect::<Vec<_>>(), vec![1, 2, 3], "mode {mode}");
            assert!(node.gate.lock().awaiting.is_empty() && node.gate.lock().queue.is_empty());
        }
    }

    /// A worker that waits awake takes tasks pushed from outside the pool after it ran dry without
    /// going to sleep; one that does not sleeps.
    #[test]
    fn an_idle_worker_waits_awake_a_moment_before_sleeping() {
        for (spin, sleeps) in [(Duration::from_secs(1), false), (Duration::ZERO, true)] {
            let pool = Pool::with_spin(1, spin);
            let (tx, rx) = crossbeam_channel::unbounded();
            for _ in 0..3 {
                let tx = tx.clone();
                pool.spawn(Box::new(move || tx.send(()).unwrap()));
                rx.recv_timeout(Duration::from_secs(20)).expect("the task ran");
                thread::sleep(Duration::from_millis(5));
            }
            assert_eq!(pool.sleeps.load(Ordering::SeqCst) > 0, sleeps, "waiting awake for {spin:?}");
            pool.shutdown();
        }
    }

    #[test]
    fn retired_worker_is_joined_not_let_go() {
        let pool = Pool::new(1);
        let started = Arc::new(AtomicBool::new(false));
        let ended = Arc::new(AtomicBool::new(false));
        let leave = {
            let (s, e) = (started.clone(), ended.clone());
            move || LEFT.with(|l| *l.borrow_mut() = Some(SlowDrop { started: s.clone(), ended: e.clone() }))
        };
        // A task blocks in a synchronous wait for another: the pool lends a second worker for it,
        // and once the wait is over one of the two retires.
        let (tx, rx) = crossbeam_channel::bounded(1);
        let (p, l) = (pool.clone(), leave.clone());
        pool.spawn(Box::new(move || {
            l();
            let l2 = l.clone();
            p.while_blocked(|| {
                p.spawn(Box::new(move || {
                    l2();
                    tx.send(()).unwrap();
                }));
                rx.recv().unwrap();
            });
        }));
        wait_for("a worker to retire", || started.load(Ordering::SeqCst));
        // Keep the remaining worker busy so the next task needs a new worker.
        pool.set_threads(2);
        let (busy_tx, busy_rx) = crossbeam_channel::bounded::<()>(0);
        let running = Arc::new(AtomicBool::new(false));
        let r = running.clone();
        pool.spawn(Box::new(move || {
            r.store(true, Ordering::SeqCst);
            let _ = busy_rx.recv();
        }));
        wait_for("the busy task to start", || running.load(Ordering::SeqCst));
        pool.spawn(Box::new(|| {}));
        assert!(
            ended.load(Ordering::SeqCst),
            "spawning a worker returned while a retired worker's thread was still running its thread-local destructors"
        );
        drop(busy_tx);
        pool.wait_idle();
        pool.shutdown();
        assert_eq!(pool.handles(), 0);
    }
}
