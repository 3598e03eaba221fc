//! Clips: an owned node reference, released on drop.
use crate::abi::{mtAudio, mtVideo, VSAudioInfo, VSNode, VSVideoInfo};
use crate::api::api;
use crate::error::{Error, Result};

pub struct Node(*mut VSNode);

// SAFETY: node references may be used and released from any thread.
unsafe impl Send for Node {}
unsafe impl Sync for Node {}

impl Node {
    /// Takes over one reference the caller owns.
    ///
    /// # Safety
    /// `p` is a node reference the caller owns and gives up.
    pub unsafe fn from_raw(p: *mut VSNode) -> Node {
        Node(p)
    }

    pub fn as_ptr(&self) -> *mut VSNode {
        self.0
    }

    /// Gives the reference up to the caller.
    pub fn into_raw(self) -> *mut VSNode {
        let p = self.0;
        std::mem::forget(self);
        p
    }

    /// The clip's video info; an error for audio clips.
    pub fn video_info(&self) -> Result<VSVideoInfo> {
        // SAFETY: we hold a reference to the node.
        unsafe {
            if (api().getNodeType)(self.0) != mtVideo {
                return Err(Error::invalid("a video clip is needed, not an audio clip"));
            }
            Ok(*(api().getVideoInfo)(self.0))
        }
    }

    /// `mtVideo` or `mtAudio`.
    pub fn media_type(&self) -> i32 {
        // SAFETY: we hold a reference to the node.
        unsafe { (api().getNodeType)(self.0) }
    }

    /// The clip's audio info; an error for video clips.
    pub fn audio_info(&self) -> Result<VSAudioInfo> {
        if self.media_type() != mtAudio {
            return Err(Error::invalid("an audio clip is needed, not a video clip"));
        }
        // SAFETY: we hold a reference to an audio node.
        Ok(unsafe { *(api().getAudioInfo)(self.0) })
    }

    /// How many frames the clip has, video or audio (an audio frame holds
    /// `VS_AUDIO_FRAME_SAMPLES` samples, the last one fewer).
    pub fn num_frames(&self) -> i32 {
        match self.audio_info() {
            Ok(ai) => ai.numFrames,
            Err(_) => self.video_info().map_or(1, |v| v.numFrames),
        }
    }

    /// `nrGPU` when the clip's frames are GPU resident, else `nrCPU`.
    pub fn residency(&self) -> i32 {
        // SAFETY: we hold a reference to the node.
        unsafe { (api().getNodeResidency)(self.0) }
    }

    /// `setCacheMode`: how the core caches this node's frames (`cmAuto`, `cmForceDisable`,
    /// `cmForceEnable`); what std.SetVideoCache sets on the clip it is given.
    pub fn set_cache_mode(&self, mode: i32) {
        // SAFETY: we hold a reference to the node.
        unsafe { (api().setCacheMode)(self.0, mode) }
    }

    /// `setCacheOptions`: the cache's fixed size, largest size and history length, each left as
    /// it is where negative.
    pub fn set_cache_options(&self, fixed_size: i32, max_size: i32, max_history: i32) {
        // SAFETY: we hold a reference to the node.
        unsafe { (api().setCacheOptions)(self.0, fixed_size, max_size, max_history) }
    }

    /// `setLinearFilter`: marks the filter as one that makes frames most cheaply in order (a
    /// decoder), for which the core keeps a cache even in automatic mode. Call it on a node just
    /// made ([`crate::filter::create_node`]), before anything requests its frames. Returns the
    /// core's bound on how many frames beyond the one requested are worth making ahead and
    /// caching (`cacheFrame`, which this layer does not wrap yet): the thread count plus ten, on
    /// vsvk as on R81.
    pub fn set_linear_filter(&self) -> i32 {
        // SAFETY: we hold a reference to the node.
        unsafe { (api().setLinearFilter)(self.0) }
    }

    /// The filter's name (`getNodeName`).
    pub fn name(&self) -> String {
        // SAFETY: we hold a reference; the name is copied at once.
        let p = unsafe { (api().getNodeName)(self.0) };
        if p.is_null() {
            return String::new();
        }
        // SAFETY: a terminated string of the core's.
        unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

impl Clone for Node {
    fn clone(&self) -> Node {
        // SAFETY: we hold a reference, so adding one is valid.
        Node(unsafe { (api().addNodeRef)(self.0) })
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        // SAFETY: we own this reference.
        unsafe { (api().freeNode)(self.0) }
    }
}
