//! The core's function table, kept once per process. Every call from the core into a plugin
//! hands the table over; the layer stores the first one so that wrappers (frames, nodes, maps)
//! need not carry it. A process loads one core library, so there is only ever one table.
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::abi::{VSAPI, VSCore, VSVideoFormat};

static API: AtomicPtr<VSAPI> = AtomicPtr::new(std::ptr::null_mut());

/// Records the table handed to an entry point.
pub(crate) fn set(vsapi: *const VSAPI) {
    // stored only when it differs: every activation of every filter comes here, and a store per
    // call would have the threads take the cache line from each other (it is the same table)
    if !vsapi.is_null() && API.load(Ordering::Relaxed) != vsapi.cast_mut() {
        API.store(vsapi.cast_mut(), Ordering::Release);
    }
}

/// The core's table. Only entry points of this layer run plugin code, and each stores the table
/// before that, so a missing table is a bug in the layer.
pub fn api() -> &'static VSAPI {
    let p = API.load(Ordering::Acquire);
    assert!(!p.is_null(), "vsvk-plugin-api: the VSAPI table is used before any entry point stored it");
    // SAFETY: the core's table lives as long as the core library, which outlives its plugins.
    unsafe { &*p }
}

/// The core a call came with. Only valid during that call and the life of filters it creates.
#[derive(Clone, Copy, Debug)]
pub struct Core(pub(crate) *mut VSCore);

// SAFETY: the core is thread safe; the pointer is only handed back to the core's own functions.
unsafe impl Send for Core {}
unsafe impl Sync for Core {}

impl Core {
    pub fn as_ptr(self) -> *mut VSCore {
        self.0
    }

    /// A message in the core's log (`mtInformation`, `mtWarning`, ...).
    pub fn log(self, level: std::ffi::c_int, msg: &str) {
        let c = std::ffi::CString::new(msg.replace('\0', " ")).expect("NULs replaced");
        // SAFETY: a valid core and a terminated string, copied by the core.
        unsafe { (api().logMessage)(level, c.as_ptr(), self.0) };
    }

    /// `getCoreInfo`: the version text, thread count and frame cache figures now.
    pub fn info(self) -> CoreInfo {
        let mut i = std::mem::MaybeUninit::<crate::abi::VSCoreInfo>::uninit();
        // SAFETY: a valid out pointer the core fills completely.
        let i = unsafe {
            (api().getCoreInfo)(self.0, i.as_mut_ptr());
            i.assume_init()
        };
        // SAFETY: the version text is a terminated string the core keeps; copied here.
        let version = if i.versionString.is_null() { String::new() } else { unsafe { std::ffi::CStr::from_ptr(i.versionString) }.to_string_lossy().into_owned() };
        CoreInfo { version, core: i.core, api: i.api, threads: i.numThreads, max_cache: i.maxFramebufferSize, used_cache: i.usedFramebufferSize }
    }

    /// `queryVideoFormat`: the format with these properties, if the core knows one.
    pub fn query_video_format(self, color_family: i32, sample_type: i32, bits: i32, ssw: i32, ssh: i32) -> Option<VSVideoFormat> {
        let mut f = VSVideoFormat::default();
        // SAFETY: `f` is a valid out pointer and the core pointer came from the core.
        let ok = unsafe { (api().queryVideoFormat)(&mut f, color_family, sample_type, bits, ssw, ssh, self.0) };
        (ok != 0).then_some(f)
    }

    /// `getVideoFormatByID`: the format a format id (`format=` arguments) names, if it is one.
    pub fn video_format_by_id(self, id: u32) -> Option<VSVideoFormat> {
        let mut f = VSVideoFormat::default();
        // SAFETY: `f` is a valid out pointer and the core pointer came from the core.
        let ok = unsafe { (api().getVideoFormatByID)(&mut f, id, self.0) };
        (ok != 0).then_some(f)
    }

    /// The short name of a format (`YUV420P8`), for messages.
    pub fn format_name(f: &VSVideoFormat) -> String {
        let mut buf = [0 as std::ffi::c_char; 32];
        // SAFETY: the buffer has the 32 bytes the function writes at most.
        let ok = unsafe { (api().getVideoFormatName)(f, buf.as_mut_ptr()) };
        if ok == 0 {
            return "Undefined".into();
        }
        // SAFETY: the core wrote a terminated string into the buffer.
        unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
    }
}

/// What `getCoreInfo` tells, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreInfo {
    pub version: String,
    pub core: i32,
    pub api: i32,
    pub threads: i32,
    /// The frame cache's limit and use, in bytes.
    pub max_cache: i64,
    pub used_cache: i64,
}

impl Core {
    /// `queryAudioFormat`: the audio format with this sample type, bit depth and channel layout
    /// (a bit per channel constant), if the core accepts it.
    pub fn query_audio_format(self, sample_type: i32, bits: i32, channel_layout: u64) -> Option<crate::abi::VSAudioFormat> {
        let mut f = crate::abi::VSAudioFormat::default();
        // SAFETY: `f` is a valid out pointer and the core pointer came from the core.
        let ok = unsafe { (api().queryAudioFormat)(&mut f, sample_type, bits, channel_layout, self.0) };
        (ok != 0).then_some(f)
    }
}
