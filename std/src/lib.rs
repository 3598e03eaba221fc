//! The `std` namespace's filters written on vsvk-plugin-api alone. The core creates the std plugin
//! (com.vapoursynth.std), registers into it what needs the runtime (LoadPlugin, SetMaxCPU,
//! GPUUpload/GPUDownload, ...), then calls [`init`], which registers every filter into the same
//! plugin through the VSPLUGINAPI table, each with R81's argument string character for character.
//!
//! The modules: `props` (SetFieldBased, SetFrameProp, SetFrameProps, RemoveFrameProps,
//! CopyFrameProps, ClipToProp, PropToClip, PlaneStats, PEMVerifier, and FrameEval and ModifyFrame,
//! which run on the plugin layer's `activation` filters),
//! `neighbour` (Convolution, BoxBlur, Minimum, Maximum, Median, Inflate, Deflate, Sobel, Prewitt),
//! `geometry` (Crop, CropAbs, CropRel, AddBorders, the flips and turns, the stacks,
//! ShufflePlanes, SplitPlanes) and `edit` (Trim, Splice, Loop, Reverse, SelectEvery, Interleave,
//! DeleteFrames, DuplicateFrames, FreezeFrames, AssumeFPS, SeparateFields (whose fields share the
//! frame's rows through the core's views), DoubleWeave, AverageFrames, SetVideoCache)
//! the `pointwise` filters (Invert, InvertMask, Limiter, Binarize, BinarizeMask, Levels, Lut, Lut2,
//! Expr, and in `pointwise::merge` Merge, MaskedMerge, MakeDiff, MergeDiff, MakeFullDiff,
//! MergeFullDiff, PreMultiply), `audio` (AudioGain, AudioMix, AudioSplice, AudioTrim, AudioLoop,
//! AudioReverse, AudioResample, ShuffleChannels, SplitChannels, AssumeSampleRate, SetAudioCache,
//! BlankAudio) and `blank` (BlankClip, whose GPU frames are filled on the GPU).
// the ABI's constants keep their C names (stInteger, cfYUV) and are matched on
#![allow(non_upper_case_globals)]

use vsvk_plugin_api::abi::{VSPlugin, VSPLUGINAPI};
use vsvk_plugin_api::plugin::Registrar;

mod audio;
mod blank;
mod edit;
mod geometry;
mod neighbour;
mod pointwise;
mod props;
mod stream;
mod util;

/// Registers this crate's functions into the std plugin the core made and configured.
///
/// # Safety
/// `plugin` and `papi` are the core's, valid for the call.
pub unsafe extern "C" fn init(plugin: *mut VSPlugin, papi: *const VSPLUGINAPI) {
    // SAFETY: forwarded unchanged from the core.
    unsafe { vsvk_plugin_api::plugin::init(plugin, papi, register) }
}

fn register(r: &Registrar) {
    audio::register(r);
    blank::register(r);
    edit::register(r);
    geometry::register(r);
    neighbour::register(r);
    pointwise::register(r);
    props::register(r);
}
