//! The `std` namespace's filters written on vsvk-plugin-api alone. The core creates the std plugin
//! (com.vapoursynth.std), registers into it what needs the runtime (LoadPlugin, SetMaxCPU,
//! GPUUpload/GPUDownload, ...) and the std modules not yet moved here, then calls [`init`], which
//! registers this crate's functions into the same plugin through the VSPLUGINAPI table. Functions
//! move here module by module; each keeps R81's argument string character for character.
//!
//! Moved so far: `props` (SetFieldBased, SetFrameProp, SetFrameProps, RemoveFrameProps,
//! CopyFrameProps, ClipToProp, PropToClip, PlaneStats, PEMVerifier, and FrameEval and ModifyFrame,
//! which run on the plugin layer's `activation` filters),
//! `neighbour` (Convolution, BoxBlur, Minimum, Maximum, Median, Inflate, Deflate, Sobel, Prewitt),
//! `geometry` (Crop, CropAbs, CropRel, AddBorders, the flips and turns, the stacks,
//! ShufflePlanes, SplitPlanes) and `edit` (Trim, Splice, Loop, Reverse, SelectEvery, Interleave,
//! DeleteFrames, DuplicateFrames, FreezeFrames, AssumeFPS, DoubleWeave, AverageFrames,
//! SetVideoCache; SeparateFields stays in the core, whose planes can be views of every other row)
//! the `pointwise` filters but the merges (Invert, InvertMask, Limiter, Binarize, BinarizeMask,
//! Levels, Lut, Lut2, Expr) and `audio` (AudioGain, AudioMix, AudioSplice, AudioTrim, AudioLoop,
//! AudioReverse, AudioResample, ShuffleChannels, SplitChannels, AssumeSampleRate, SetAudioCache,
//! BlankAudio).
//! `neighbour::plane` (half floats, CPU dispatch), `stream`, `edit::reduce` and
//! `pointwise::fast_math` also serve modules still in the core.
// the ABI's constants keep their C names (stInteger, cfYUV) and are matched on
#![allow(non_upper_case_globals)]

use vsvk_plugin_api::abi::{VSPlugin, VSPLUGINAPI};
use vsvk_plugin_api::plugin::Registrar;

pub mod audio;
pub mod edit;
mod geometry;
pub mod neighbour;
pub mod pointwise;
mod props;
pub mod stream;
pub mod util;

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
    edit::register(r);
    geometry::register(r);
    neighbour::register(r);
    pointwise::register(r);
    props::register(r);
}
