//! Nodes: a filter instance with its output description, dependencies, cache and the bookkeeping
//! the scheduler needs. `VSNode*` is an `Arc<Node>` turned into a raw pointer.
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;
use std::ffi::{c_void, CString};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use vsvk_plugin_api::abi::*;

use crate::cache::Cache;
use crate::core::Core;
use crate::frame::Frame;
use crate::map::Map;
use crate::scheduler::{FrameCall, FrameCtx};

/// A filter written in Rust, for the built-in namespaces.
pub trait Filter: Send + Sync {
    /// Same contract as VSFilterGetFrame: `Ok(None)` after requesting frames in `call`.
    fn get_frame(&self, n: i32, reason: i32, frame_data: &mut *mut c_void, call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String>;
}

pub enum FilterImpl {
    C { get_frame: VSFilterGetFrame, free: VSFilterFree, instance_data: *mut c_void },
    Rust(Box<dyn Filter>),
}

#[derive(Clone, Copy)]
pub enum MediaInfo {
    Video(VSVideoInfo),
    Audio(VSAudioInfo),
}

/// What graph inspection records of the function call that created a node.
/// The most samples an audio clip may hold: the reference allows i32::MAX whole frames.
pub const MAX_AUDIO_SAMPLES: i64 = i32::MAX as i64 * VS_AUDIO_FRAME_SAMPLES as i64;

/// The creation-time refusal of an audio clip longer than frame numbers reach, worded as the
/// reference's filter creation words it (without the calling function's prefix).
pub fn audio_length_error(name: &str, samples: i64) -> Option<String> {
    (samples > MAX_AUDIO_SAMPLES).then(|| format!("Filter {name} specified {samples} output samples but {MAX_AUDIO_SAMPLES} samples is the upper limit"))
}

pub struct CreationInfo {
    pub function: CString,
    pub plugin_id: CString,
    pub plugin_ns: CString,
    pub args: Map,
}

/// Serialises calls for the filter modes that need it; frames that find it busy wait in `queue`.
///
/// Serialised filters often keep state from one frame to the next (a temporal filter's
/// transformed neighbours, a source's read position): in frame order they carry it forward, where
/// the order the inputs happened to arrive in makes them start over. So the gate runs its frames
/// lowest first: the next one is the lowest waiting in `queue`, and for the modes that order
/// (`orders`) a frame also waits while a lower frame of the node has asked for its inputs and not
/// yet come back with them (`awaiting`); that frame comes to the gate in any case (with its inputs
/// or with their error), and runs first. On the H100, in arrival order, bm3dvk2.BM3D transformed
/// 30% more frames than under R81 (789 against 609 for 620 frames at 1080p; bench/vktrace).
#[derive(Default)]
pub struct Gate {
    pub holder: Option<i32>,
    pub queue: VecDeque<(Arc<FrameCtx>, i32)>,
    /// Frames whose filter call asked for inputs that have not all arrived yet.
    pub awaiting: std::collections::BTreeSet<i32>,
}

/// The filter modes whose gate keeps frame order (fmFrameState holds its gate across a frame's
/// calls, which an order would only delay).
pub fn orders(mode: i32) -> bool {
    mode == fmParallelRequests || mode == fmUnordered
}

impl Gate {
    /// Whether frame `n` should let a lower frame go first: one is awaiting its inputs.
    pub fn defers(&self, n: i32) -> bool {
        self.awaiting.first().is_some_and(|&m| m < n)
    }

    /// The waiting activation with the lowest frame number (the earliest of them on a tie), passing
    /// over those that defer to a lower frame awaiting its inputs when `ordered`.
    /// A first call (arInitial) only asks for inputs, so it never waits for order.
    pub fn take_next(&mut self, ordered: bool) -> Option<(Arc<FrameCtx>, i32)> {
        let i = self
            .queue
            .iter()
            .enumerate()
            .filter(|(_, (c, r))| !(ordered && *r != arInitial && self.defers(c.n)))
            .min_by_key(|(i, (c, _))| (c.n, *i))
            .map(|(i, _)| i)?;
        self.queue.remove(i)
    }
}

pub struct Node {
    pub core: Arc<Core>,
    pub name: CString,
    pub info: MediaInfo,
    pub filter: FilterImpl,
    pub mode: i32,
    pub flags: i32,
    pub deps: Vec<VSFilterDependency>,
    /// Our own references to the dependencies, so the array above stays valid for inspection.
    dep_refs: Vec<Arc<Node>>,
    pub cache: Mutex<Cache>,
    pub inflight: Mutex<HashMap<i32, Arc<FrameCtx>, BuildHasherDefault<FrameNumberHasher>>>,
    pub gate: Mutex<Gate>,
    pub processing_ns: AtomicI64,
    pub creation: Vec<CreationInfo>,
}

// SAFETY: the raw instance data belongs to the filter, which the API requires to be callable from
// any thread in the way its filter mode allows; the scheduler enforces that mode.
unsafe impl Send for Node {}
unsafe impl Sync for Node {}

/// Hashes a frame number for the in-flight table: one multiplication (Fibonacci hashing, which
/// fills the high bits the table's probing uses) instead of SipHash, which the scheduler paid twice
/// per frame per node. Frame numbers are not attacker-chosen keys.
#[derive(Default)]
pub struct FrameNumberHasher(u64);

impl std::hash::Hasher for FrameNumberHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_i32(&mut self, n: i32) {
        self.0 = (n as u32 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl Node {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        core: Arc<Core>,
        name: &str,
        info: MediaInfo,
        filter: FilterImpl,
        mode: i32,
        flags: i32,
        deps: Vec<(Arc<Node>, i32)>,
        creation: Vec<CreationInfo>,
    ) -> Arc<Node> {
        for (d, pattern) in &deps {
            let mut c = d.cache.lock();
            match *pattern {
                rpStrictSpatial | rpNoFrameReuse => {}
                rpFrameReuseLastOnly => c.last_only_consumers += 1,
                _ => c.reusing_consumers += 1,
            }
        }
        let core2 = core.clone();
        let raw_deps = deps.iter().map(|(d, p)| VSFilterDependency { source: Node::as_raw(d), requestPattern: *p }).collect();
        let node = Arc::new(Node {
            core,
            name: CString::new(name.replace('\0', " ")).expect("NULs replaced"),
            info,
            filter,
            mode,
            flags,
            deps: raw_deps,
            dep_refs: deps.into_iter().map(|(d, _)| d).collect(),
            cache: Mutex::new(Cache::default()),
            inflight: Mutex::new(HashMap::default()),
            gate: Mutex::new(Gate::default()),
            processing_ns: AtomicI64::new(0),
            creation,
        });
        core2.register_node(&node);
        node
    }
    pub fn is_audio(&self) -> bool {
        matches!(self.info, MediaInfo::Audio(_))
    }
    pub fn media_type(&self) -> i32 {
        if self.is_audio() {
            mtAudio
        } else {
            mtVideo
        }
    }
    pub fn num_frames(&self) -> i32 {
        match &self.info {
            MediaInfo::Video(vi) => vi.numFrames,
            MediaInfo::Audio(ai) => ai.numFrames,
        }
    }
    pub fn video_info(&self) -> Option<&VSVideoInfo> {
        match &self.info {
            MediaInfo::Video(vi) => Some(vi),
            MediaInfo::Audio(_) => None,
        }
    }
    pub fn audio_info(&self) -> Option<&VSAudioInfo> {
        match &self.info {
            MediaInfo::Audio(ai) => Some(ai),
            MediaInfo::Video(_) => None,
        }
    }
    pub fn residency(&self) -> i32 {
        if self.flags & ffGPUOutput != 0 {
            nrGPU
        } else {
            nrCPU
        }
    }
    pub fn name_str(&self) -> String {
        self.name.to_string_lossy().into_owned()
    }
    pub fn as_raw(n: &Arc<Node>) -> *mut VSNode {
        Arc::as_ptr(n) as *mut VSNode
    }
    pub fn into_raw(n: Arc<Node>) -> *mut VSNode {
        Arc::into_raw(n) as *mut VSNode
    }
    /// # Safety
    /// `p` came from `into_raw`/`as_raw` of a node that is still referenced.
    pub unsafe fn borrow_raw<'a>(p: *mut VSNode) -> &'a Node {
        &*p.cast::<Node>()
    }
    /// # Safety
    /// As for `borrow_raw`.
    pub unsafe fn clone_raw(p: *mut VSNode) -> Arc<Node> {
        Arc::increment_strong_count(p.cast::<Node>());
        Arc::from_raw(p.cast::<Node>())
    }
    /// # Safety
    /// As for `borrow_raw`; the raw reference is consumed.
    pub unsafe fn from_raw(p: *mut VSNode) -> Arc<Node> {
        Arc::from_raw(p.cast::<Node>())
    }
    pub fn clear_cache(&self) {
        self.cache.lock().clear();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if let FilterImpl::C { free: Some(free), instance_data, .. } = self.filter {
            // SAFETY: the filter's free function is called once, with the data it was created with.
            unsafe { free(instance_data, Core::as_raw(&self.core), self.core.wiring.vsapi) };
        }
        for (d, dep) in self.dep_refs.iter().zip(&self.deps) {
            let mut c = d.cache.lock();
            match dep.requestPattern {
                rpStrictSpatial | rpNoFrameReuse => {}
                rpFrameReuseLastOnly => c.last_only_consumers = c.last_only_consumers.saturating_sub(1),
                _ => c.reusing_consumers = c.reusing_consumers.saturating_sub(1),
            }
        }
        self.core.freed_node_ns.fetch_add(self.processing_ns.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}
