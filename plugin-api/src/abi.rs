//! The VapourSynth API 4.3 C ABI as Rust `#[repr(C)]` types. Shared by the core (which fills the
//! function tables) and by Rust plugins (which call through them). Layouts are checked against the
//! C headers by `tests/abi`.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

use std::ffi::{c_char, c_int, c_void};

pub const VAPOURSYNTH_API_MAJOR: c_int = 4;
pub const VAPOURSYNTH_API_MINOR: c_int = 3;
pub const fn make_version(major: c_int, minor: c_int) -> c_int {
    (major << 16) | minor
}
pub const VAPOURSYNTH_API_VERSION: c_int = make_version(VAPOURSYNTH_API_MAJOR, VAPOURSYNTH_API_MINOR);
pub const VS_AUDIO_FRAME_SAMPLES: c_int = 3072;

macro_rules! opaque {
    ($($name:ident),*) => {$(
        #[repr(C)]
        pub struct $name { _private: [u8; 0] }
    )*};
}
opaque!(VSFrame, VSNode, VSCore, VSPlugin, VSPluginFunction, VSFunction, VSMap, VSLogHandle, VSFrameContext);

/// The GPU function table returned by `getVulkanAPI`; defined with the rest of `VSVulkan4.h`.
pub use crate::vulkan::VSVULKANAPI;

// VSColorFamily
pub const cfUndefined: c_int = 0;
pub const cfGray: c_int = 1;
pub const cfRGB: c_int = 2;
pub const cfYUV: c_int = 3;
// VSSampleType
pub const stInteger: c_int = 0;
pub const stFloat: c_int = 1;

pub const fn make_video_id(cf: u32, st: u32, bits: u32, ssw: u32, ssh: u32) -> u32 {
    (cf << 28) | (st << 24) | (bits << 16) | (ssw << 8) | ssh
}

/// Every VSPresetVideoFormat constant, by name, in the header's order.
pub const PRESET_VIDEO_FORMATS: &[(&str, u32)] = &[
    ("pfNone", 0),
    ("pfGray8", make_video_id(1, 0, 8, 0, 0)),
    ("pfGray9", make_video_id(1, 0, 9, 0, 0)),
    ("pfGray10", make_video_id(1, 0, 10, 0, 0)),
    ("pfGray12", make_video_id(1, 0, 12, 0, 0)),
    ("pfGray14", make_video_id(1, 0, 14, 0, 0)),
    ("pfGray16", make_video_id(1, 0, 16, 0, 0)),
    ("pfGray32", make_video_id(1, 0, 32, 0, 0)),
    ("pfGrayH", make_video_id(1, 1, 16, 0, 0)),
    ("pfGrayS", make_video_id(1, 1, 32, 0, 0)),
    ("pfYUV410P8", make_video_id(3, 0, 8, 2, 2)),
    ("pfYUV411P8", make_video_id(3, 0, 8, 2, 0)),
    ("pfYUV440P8", make_video_id(3, 0, 8, 0, 1)),
    ("pfYUV420P8", make_video_id(3, 0, 8, 1, 1)),
    ("pfYUV422P8", make_video_id(3, 0, 8, 1, 0)),
    ("pfYUV444P8", make_video_id(3, 0, 8, 0, 0)),
    ("pfYUV420P9", make_video_id(3, 0, 9, 1, 1)),
    ("pfYUV422P9", make_video_id(3, 0, 9, 1, 0)),
    ("pfYUV444P9", make_video_id(3, 0, 9, 0, 0)),
    ("pfYUV420P10", make_video_id(3, 0, 10, 1, 1)),
    ("pfYUV422P10", make_video_id(3, 0, 10, 1, 0)),
    ("pfYUV444P10", make_video_id(3, 0, 10, 0, 0)),
    ("pfYUV420P12", make_video_id(3, 0, 12, 1, 1)),
    ("pfYUV422P12", make_video_id(3, 0, 12, 1, 0)),
    ("pfYUV444P12", make_video_id(3, 0, 12, 0, 0)),
    ("pfYUV420P14", make_video_id(3, 0, 14, 1, 1)),
    ("pfYUV422P14", make_video_id(3, 0, 14, 1, 0)),
    ("pfYUV444P14", make_video_id(3, 0, 14, 0, 0)),
    ("pfYUV410P16", make_video_id(3, 0, 16, 2, 2)),
    ("pfYUV411P16", make_video_id(3, 0, 16, 2, 0)),
    ("pfYUV440P16", make_video_id(3, 0, 16, 0, 1)),
    ("pfYUV420P16", make_video_id(3, 0, 16, 1, 1)),
    ("pfYUV422P16", make_video_id(3, 0, 16, 1, 0)),
    ("pfYUV444P16", make_video_id(3, 0, 16, 0, 0)),
    ("pfYUV410PH", make_video_id(3, 1, 16, 2, 2)),
    ("pfYUV410PS", make_video_id(3, 1, 32, 2, 2)),
    ("pfYUV411PH", make_video_id(3, 1, 16, 2, 0)),
    ("pfYUV411PS", make_video_id(3, 1, 32, 2, 0)),
    ("pfYUV440PH", make_video_id(3, 1, 16, 0, 1)),
    ("pfYUV440PS", make_video_id(3, 1, 32, 0, 1)),
    ("pfYUV420PH", make_video_id(3, 1, 16, 1, 1)),
    ("pfYUV420PS", make_video_id(3, 1, 32, 1, 1)),
    ("pfYUV422PH", make_video_id(3, 1, 16, 1, 0)),
    ("pfYUV422PS", make_video_id(3, 1, 32, 1, 0)),
    ("pfYUV444PH", make_video_id(3, 1, 16, 0, 0)),
    ("pfYUV444PS", make_video_id(3, 1, 32, 0, 0)),
    ("pfRGB24", make_video_id(2, 0, 8, 0, 0)),
    ("pfRGB27", make_video_id(2, 0, 9, 0, 0)),
    ("pfRGB30", make_video_id(2, 0, 10, 0, 0)),
    ("pfRGB36", make_video_id(2, 0, 12, 0, 0)),
    ("pfRGB42", make_video_id(2, 0, 14, 0, 0)),
    ("pfRGB48", make_video_id(2, 0, 16, 0, 0)),
    ("pfRGBH", make_video_id(2, 1, 16, 0, 0)),
    ("pfRGBS", make_video_id(2, 1, 32, 0, 0)),
];
pub const pfNone: u32 = 0;
pub const pfGray8: u32 = make_video_id(1, 0, 8, 0, 0);
pub const pfGray16: u32 = make_video_id(1, 0, 16, 0, 0);
pub const pfGrayS: u32 = make_video_id(1, 1, 32, 0, 0);
pub const pfYUV420P8: u32 = make_video_id(3, 0, 8, 1, 1);
pub const pfYUV444P16: u32 = make_video_id(3, 0, 16, 0, 0);
pub const pfRGB24: u32 = make_video_id(2, 0, 8, 0, 0);

// VSFilterMode
pub const fmParallel: c_int = 0;
pub const fmParallelRequests: c_int = 1;
pub const fmUnordered: c_int = 2;
pub const fmFrameState: c_int = 3;
// VSFilterFlags
pub const ffGPUOutput: c_int = 1;
// VSNodeResidency
pub const nrCPU: c_int = 0;
pub const nrGPU: c_int = 1;
// VSMediaType
pub const mtVideo: c_int = 1;
pub const mtAudio: c_int = 2;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct VSVideoFormat {
    pub colorFamily: c_int,
    pub sampleType: c_int,
    pub bitsPerSample: c_int,
    pub bytesPerSample: c_int,
    pub subSamplingW: c_int,
    pub subSamplingH: c_int,
    pub numPlanes: c_int,
}

/// Every VSAudioChannels constant, by name.
pub const AUDIO_CHANNELS: &[(&str, c_int)] = &[
    ("acFrontLeft", 0),
    ("acFrontRight", 1),
    ("acFrontCenter", 2),
    ("acLowFrequency", 3),
    ("acBackLeft", 4),
    ("acBackRight", 5),
    ("acFrontLeftOFCenter", 6),
    ("acFrontRightOFCenter", 7),
    ("acBackCenter", 8),
    ("acSideLeft", 9),
    ("acSideRight", 10),
    ("acTopCenter", 11),
    ("acTopFrontLeft", 12),
    ("acTopFrontCenter", 13),
    ("acTopFrontRight", 14),
    ("acTopBackLeft", 15),
    ("acTopBackCenter", 16),
    ("acTopBackRight", 17),
    ("acStereoLeft", 29),
    ("acStereoRight", 30),
    ("acWideLeft", 31),
    ("acWideRight", 32),
    ("acSurroundDirectLeft", 33),
    ("acSurroundDirectRight", 34),
    ("acLowFrequency2", 35),
];
pub const acFrontLeft: c_int = 0;
pub const acFrontRight: c_int = 1;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct VSAudioFormat {
    pub sampleType: c_int,
    pub bitsPerSample: c_int,
    pub bytesPerSample: c_int,
    pub numChannels: c_int,
    pub channelLayout: u64,
}

// VSPropertyType
pub const ptUnset: c_int = 0;
pub const ptInt: c_int = 1;
pub const ptFloat: c_int = 2;
pub const ptData: c_int = 3;
pub const ptFunction: c_int = 4;
pub const ptVideoNode: c_int = 5;
pub const ptAudioNode: c_int = 6;
pub const ptVideoFrame: c_int = 7;
pub const ptAudioFrame: c_int = 8;
// VSMapPropertyError
pub const peSuccess: c_int = 0;
pub const peUnset: c_int = 1;
pub const peType: c_int = 2;
pub const peIndex: c_int = 4;
pub const peError: c_int = 3;
// VSMapAppendMode
pub const maReplace: c_int = 0;
pub const maAppend: c_int = 1;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VSCoreInfo {
    pub versionString: *const c_char,
    pub core: c_int,
    pub api: c_int,
    pub numThreads: c_int,
    pub maxFramebufferSize: i64,
    pub usedFramebufferSize: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VSCoreInfo2 {
    pub versionString: *const c_char,
    pub coreVersion: c_int,
    pub apiVersion: c_int,
    pub creationFlags: c_int,
    pub numThreads: c_int,
    pub maxFramebufferSize: i64,
    pub usedFramebufferSize: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VSVideoInfo {
    pub format: VSVideoFormat,
    pub fpsNum: i64,
    pub fpsDen: i64,
    pub width: c_int,
    pub height: c_int,
    pub numFrames: c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VSAudioInfo {
    pub format: VSAudioFormat,
    pub sampleRate: c_int,
    pub numSamples: i64,
    pub numFrames: c_int,
}

// VSActivationReason
pub const arInitial: c_int = 0;
pub const arAllFramesReady: c_int = 1;
pub const arError: c_int = -1;
// VSMessageType
pub const mtDebug: c_int = 0;
pub const mtInformation: c_int = 1;
pub const mtWarning: c_int = 2;
pub const mtCritical: c_int = 3;
pub const mtFatal: c_int = 4;
// VSCoreCreationFlags
pub const ccfEnableGraphInspection: c_int = 1;
pub const ccfDisableAutoLoading: c_int = 2;
pub const ccfDisableLibraryUnloading: c_int = 4;
pub const ccfEnableFrameRefDebug: c_int = 8;
// VSPluginConfigFlags
pub const pcModifiable: c_int = 1;
// VSDataTypeHint
pub const dtUnknown: c_int = -1;
pub const dtBinary: c_int = 0;
pub const dtUtf8: c_int = 1;
// VSRequestPattern
pub const rpGeneral: c_int = 0;
pub const rpNoFrameReuse: c_int = 1;
pub const rpStrictSpatial: c_int = 2;
pub const rpFrameReuseLastOnly: c_int = 3;
// VSCacheMode
pub const cmAuto: c_int = -1;
pub const cmForceDisable: c_int = 0;
pub const cmForceEnable: c_int = 1;

pub type VSGetVapourSynthAPI = unsafe extern "C" fn(version: c_int) -> *const VSAPI;
pub type VSPublicFunction =
    unsafe extern "C" fn(in_: *const VSMap, out: *mut VSMap, userData: *mut c_void, core: *mut VSCore, vsapi: *const VSAPI);
pub type VSInitPlugin = unsafe extern "C" fn(plugin: *mut VSPlugin, vspapi: *const VSPLUGINAPI);
pub type VSFreeFunctionData = Option<unsafe extern "C" fn(userData: *mut c_void)>;
pub type VSFilterGetFrame = unsafe extern "C" fn(
    n: c_int,
    activationReason: c_int,
    instanceData: *mut c_void,
    frameData: *mut *mut c_void,
    frameCtx: *mut VSFrameContext,
    core: *mut VSCore,
    vsapi: *const VSAPI,
) -> *const VSFrame;
pub type VSFilterFree = Option<unsafe extern "C" fn(instanceData: *mut c_void, core: *mut VSCore, vsapi: *const VSAPI)>;
pub type VSFrameDoneCallback = Option<
    unsafe extern "C" fn(userData: *mut c_void, f: *const VSFrame, n: c_int, node: *mut VSNode, errorMsg: *const c_char),
>;
pub type VSLogHandler = Option<unsafe extern "C" fn(msgType: c_int, msg: *const c_char, userData: *mut c_void)>;
pub type VSLogHandlerFree = Option<unsafe extern "C" fn(userData: *mut c_void)>;

#[repr(C)]
pub struct VSPLUGINAPI {
    pub getAPIVersion: unsafe extern "C" fn() -> c_int,
    pub configPlugin: unsafe extern "C" fn(
        identifier: *const c_char,
        pluginNamespace: *const c_char,
        name: *const c_char,
        pluginVersion: c_int,
        apiVersion: c_int,
        flags: c_int,
        plugin: *mut VSPlugin,
    ) -> c_int,
    pub registerFunction: unsafe extern "C" fn(
        name: *const c_char,
        args: *const c_char,
        returnType: *const c_char,
        argsFunc: Option<VSPublicFunction>,
        functionData: *mut c_void,
        plugin: *mut VSPlugin,
    ) -> c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VSFilterDependency {
    pub source: *mut VSNode,
    pub requestPattern: c_int,
}

type F = *const VSFrame;
type Fm = *mut VSFrame;
type N = *mut VSNode;
type C = *mut VSCore;
type M = *mut VSMap;
type Mc = *const VSMap;
type S = *const c_char;
type I = c_int;
type Gf = Option<VSFilterGetFrame>;

/// The VSAPI function table, member for member.
#[repr(C)]
pub struct VSAPI {
    pub createVideoFilter: unsafe extern "C" fn(M, S, *const VSVideoInfo, Gf, VSFilterFree, I, *const VSFilterDependency, I, *mut c_void, C),
    pub createVideoFilter2: unsafe extern "C" fn(S, *const VSVideoInfo, Gf, VSFilterFree, I, *const VSFilterDependency, I, *mut c_void, C) -> N,
    pub createAudioFilter: unsafe extern "C" fn(M, S, *const VSAudioInfo, Gf, VSFilterFree, I, *const VSFilterDependency, I, *mut c_void, C),
    pub createAudioFilter2: unsafe extern "C" fn(S, *const VSAudioInfo, Gf, VSFilterFree, I, *const VSFilterDependency, I, *mut c_void, C) -> N,
    pub setLinearFilter: unsafe extern "C" fn(N) -> I,
    pub setCacheMode: unsafe extern "C" fn(N, I),
    pub setCacheOptions: unsafe extern "C" fn(N, I, I, I),
    pub freeNode: unsafe extern "C" fn(N),
    pub addNodeRef: unsafe extern "C" fn(N) -> N,
    pub getNodeType: unsafe extern "C" fn(N) -> I,
    pub getVideoInfo: unsafe extern "C" fn(N) -> *const VSVideoInfo,
    pub getAudioInfo: unsafe extern "C" fn(N) -> *const VSAudioInfo,
    pub newVideoFrame: unsafe extern "C" fn(*const VSVideoFormat, I, I, F, C) -> Fm,
    pub newVideoFrame2: unsafe extern "C" fn(*const VSVideoFormat, I, I, *const F, *const I, F, C) -> Fm,
    pub newAudioFrame: unsafe extern "C" fn(*const VSAudioFormat, I, F, C) -> Fm,
    pub newAudioFrame2: unsafe extern "C" fn(*const VSAudioFormat, I, *const F, *const I, F, C) -> Fm,
    pub freeFrame: unsafe extern "C" fn(F),
    pub addFrameRef: unsafe extern "C" fn(F) -> F,
    pub copyFrame: unsafe extern "C" fn(F, C) -> Fm,
    pub getFramePropertiesRO: unsafe extern "C" fn(F) -> Mc,
    pub getFramePropertiesRW: unsafe extern "C" fn(Fm) -> M,
    pub getStride: unsafe extern "C" fn(F, I) -> isize,
    pub getReadPtr: unsafe extern "C" fn(F, I) -> *const u8,
    pub getWritePtr: unsafe extern "C" fn(Fm, I) -> *mut u8,
    pub getVideoFrameFormat: unsafe extern "C" fn(F) -> *const VSVideoFormat,
    pub getAudioFrameFormat: unsafe extern "C" fn(F) -> *const VSAudioFormat,
    pub getFrameType: unsafe extern "C" fn(F) -> I,
    pub getFrameWidth: unsafe extern "C" fn(F, I) -> I,
    pub getFrameHeight: unsafe extern "C" fn(F, I) -> I,
    pub getFrameLength: unsafe extern "C" fn(F) -> I,
    pub getVideoFormatName: unsafe extern "C" fn(*const VSVideoFormat, *mut c_char) -> I,
    pub getAudioFormatName: unsafe extern "C" fn(*const VSAudioFormat, *mut c_char) -> I,
    pub queryVideoFormat: unsafe extern "C" fn(*mut VSVideoFormat, I, I, I, I, I, C) -> I,
    pub queryAudioFormat: unsafe extern "C" fn(*mut VSAudioFormat, I, I, u64, C) -> I,
    pub queryVideoFormatID: unsafe extern "C" fn(I, I, I, I, I, C) -> u32,
    pub getVideoFormatByID: unsafe extern "C" fn(*mut VSVideoFormat, u32, C) -> I,
    pub getFrame: unsafe extern "C" fn(I, N, *mut c_char, I) -> F,
    pub getFrameAsync: unsafe extern "C" fn(I, N, VSFrameDoneCallback, *mut c_void),
    pub getFrameFilter: unsafe extern "C" fn(I, N, *mut VSFrameContext) -> F,
    pub requestFrameFilter: unsafe extern "C" fn(I, N, *mut VSFrameContext),
    pub releaseFrameEarly: unsafe extern "C" fn(N, I, *mut VSFrameContext),
    pub cacheFrame: unsafe extern "C" fn(F, I, *mut VSFrameContext),
    pub setFilterError: unsafe extern "C" fn(S, *mut VSFrameContext),
    pub createFunction: unsafe extern "C" fn(Option<VSPublicFunction>, *mut c_void, VSFreeFunctionData, C) -> *mut VSFunction,
    pub freeFunction: unsafe extern "C" fn(*mut VSFunction),
    pub addFunctionRef: unsafe extern "C" fn(*mut VSFunction) -> *mut VSFunction,
    pub callFunction: unsafe extern "C" fn(*mut VSFunction, Mc, M),
    pub createMap: unsafe extern "C" fn() -> M,
    pub freeMap: unsafe extern "C" fn(M),
    pub clearMap: unsafe extern "C" fn(M),
    pub copyMap: unsafe extern "C" fn(Mc, M),
    pub mapSetError: unsafe extern "C" fn(M, S),
    pub mapGetError: unsafe extern "C" fn(Mc) -> S,
    pub mapNumKeys: unsafe extern "C" fn(Mc) -> I,
    pub mapGetKey: unsafe extern "C" fn(Mc, I) -> S,
    pub mapDeleteKey: unsafe extern "C" fn(M, S) -> I,
    pub mapNumElements: unsafe extern "C" fn(Mc, S) -> I,
    pub mapGetType: unsafe extern "C" fn(Mc, S) -> I,
    pub mapSetEmpty: unsafe extern "C" fn(M, S, I) -> I,
    pub mapGetInt: unsafe extern "C" fn(Mc, S, I, *mut I) -> i64,
    pub mapGetIntSaturated: unsafe extern "C" fn(Mc, S, I, *mut I) -> I,
    pub mapGetIntArray: unsafe extern "C" fn(Mc, S, *mut I) -> *const i64,
    pub mapSetInt: unsafe extern "C" fn(M, S, i64, I) -> I,
    pub mapSetIntArray: unsafe extern "C" fn(M, S, *const i64, I) -> I,
    pub mapGetFloat: unsafe extern "C" fn(Mc, S, I, *mut I) -> f64,
    pub mapGetFloatSaturated: unsafe extern "C" fn(Mc, S, I, *mut I) -> f32,
    pub mapGetFloatArray: unsafe extern "C" fn(Mc, S, *mut I) -> *const f64,
    pub mapSetFloat: unsafe extern "C" fn(M, S, f64, I) -> I,
    pub mapSetFloatArray: unsafe extern "C" fn(M, S, *const f64, I) -> I,
    pub mapGetData: unsafe extern "C" fn(Mc, S, I, *mut I) -> S,
    pub mapGetDataSize: unsafe extern "C" fn(Mc, S, I, *mut I) -> I,
    pub mapGetDataTypeHint: unsafe extern "C" fn(Mc, S, I, *mut I) -> I,
    pub mapSetData: unsafe extern "C" fn(M, S, S, I, I, I) -> I,
    pub mapGetNode: unsafe extern "C" fn(Mc, S, I, *mut I) -> N,
    pub mapSetNode: unsafe extern "C" fn(M, S, N, I) -> I,
    pub mapConsumeNode: unsafe extern "C" fn(M, S, N, I) -> I,
    pub mapGetFrame: unsafe extern "C" fn(Mc, S, I, *mut I) -> F,
    pub mapSetFrame: unsafe extern "C" fn(M, S, F, I) -> I,
    pub mapConsumeFrame: unsafe extern "C" fn(M, S, F, I) -> I,
    pub mapGetFunction: unsafe extern "C" fn(Mc, S, I, *mut I) -> *mut VSFunction,
    pub mapSetFunction: unsafe extern "C" fn(M, S, *mut VSFunction, I) -> I,
    pub mapConsumeFunction: unsafe extern "C" fn(M, S, *mut VSFunction, I) -> I,
    pub registerFunction: unsafe extern "C" fn(S, S, S, Option<VSPublicFunction>, *mut c_void, *mut VSPlugin) -> I,
    pub getPluginByID: unsafe extern "C" fn(S, C) -> *mut VSPlugin,
    pub getPluginByNamespace: unsafe extern "C" fn(S, C) -> *mut VSPlugin,
    pub getNextPlugin: unsafe extern "C" fn(*mut VSPlugin, C) -> *mut VSPlugin,
    pub getPluginName: unsafe extern "C" fn(*mut VSPlugin) -> S,
    pub getPluginID: unsafe extern "C" fn(*mut VSPlugin) -> S,
    pub getPluginNamespace: unsafe extern "C" fn(*mut VSPlugin) -> S,
    pub getNextPluginFunction: unsafe extern "C" fn(*mut VSPluginFunction, *mut VSPlugin) -> *mut VSPluginFunction,
    pub getPluginFunctionByName: unsafe extern "C" fn(S, *mut VSPlugin) -> *mut VSPluginFunction,
    pub getPluginFunctionName: unsafe extern "C" fn(*mut VSPluginFunction) -> S,
    pub getPluginFunctionArguments: unsafe extern "C" fn(*mut VSPluginFunction) -> S,
    pub getPluginFunctionReturnType: unsafe extern "C" fn(*mut VSPluginFunction) -> S,
    pub getPluginPath: unsafe extern "C" fn(*const VSPlugin) -> S,
    pub getPluginVersion: unsafe extern "C" fn(*const VSPlugin) -> I,
    pub invoke: unsafe extern "C" fn(*mut VSPlugin, S, Mc) -> M,
    pub createCore: unsafe extern "C" fn(I) -> C,
    pub freeCore: unsafe extern "C" fn(C),
    pub setMaxCacheSize: unsafe extern "C" fn(i64, C) -> i64,
    pub setThreadCount: unsafe extern "C" fn(I, C) -> I,
    pub getCoreInfo: unsafe extern "C" fn(C, *mut VSCoreInfo),
    pub getAPIVersion: unsafe extern "C" fn() -> I,
    pub logMessage: unsafe extern "C" fn(I, S, C),
    pub addLogHandler: unsafe extern "C" fn(VSLogHandler, VSLogHandlerFree, *mut c_void, C) -> *mut VSLogHandle,
    pub removeLogHandler: unsafe extern "C" fn(*mut VSLogHandle, C) -> I,
    // API 4.1
    pub clearNodeCache: unsafe extern "C" fn(N),
    pub clearCoreCaches: unsafe extern "C" fn(C),
    pub getNodeName: unsafe extern "C" fn(N) -> S,
    pub getNodeFilterMode: unsafe extern "C" fn(N) -> I,
    pub getNumNodeDependencies: unsafe extern "C" fn(N) -> I,
    pub getNodeDependency: unsafe extern "C" fn(N, I) -> *const VSFilterDependency,
    pub getCoreNodeTiming: unsafe extern "C" fn(C) -> I,
    pub setCoreNodeTiming: unsafe extern "C" fn(C, I),
    pub getNodeProcessingTime: unsafe extern "C" fn(N, I) -> i64,
    pub getFreedNodeProcessingTime: unsafe extern "C" fn(C, I) -> i64,
    // API 4.2
    pub getCoreInfo2: unsafe extern "C" fn(C, *mut VSCoreInfo2),
    // API 4.3
    pub createVideoFilterEx:
        unsafe extern "C" fn(M, S, *const VSVideoInfo, Gf, VSFilterFree, I, I, *const VSFilterDependency, I, *mut c_void, C),
    pub createVideoFilterEx2:
        unsafe extern "C" fn(S, *const VSVideoInfo, Gf, VSFilterFree, I, I, *const VSFilterDependency, I, *mut c_void, C) -> N,
    pub getVulkanAPI: unsafe extern "C" fn() -> *const VSVULKANAPI,
    pub getNodeResidency: unsafe extern "C" fn(N) -> I,
    pub getFrameResidency: unsafe extern "C" fn(F) -> I,
    // graph inspection (VS_GRAPH_API)
    pub getNodeCreationFunctionName: unsafe extern "C" fn(N, I) -> S,
    pub getNodeCreationPluginID: unsafe extern "C" fn(N, I) -> S,
    pub getNodeCreationPluginNS: unsafe extern "C" fn(N, I) -> S,
    pub getNodeCreationFunctionArguments: unsafe extern "C" fn(N, I) -> Mc,
}
