//! `vkdec.Source`: the clip a file's video stream makes.
//!
//! Where frames go: with `gpu=1`, or by default when the core has a Vulkan device, frames are
//! GPU resident (the clip a GPU chain wants, uploaded here so that the copy is the source's, not
//! an inserted `std.GPUUpload`); with `gpu=0`, or without a device, host frames. Which decoder
//! runs, and where its frames go, is said once in the core's log when the clip is made.
use std::path::PathBuf;
use std::sync::Mutex;

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::gpu::Gpu;
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::{Error, Result};

use crate::props;
use crate::source::{describe, Family, Info, Options, Source};
use crate::upload::Uploader;

pub const ARGS: &str = "source:data;threads:int:opt;cache:int:opt;gpu:int:opt;";

struct SourceFilter {
    source: Mutex<Source>,
    info: Info,
    format: VSVideoFormat,
    upload: Option<Uploader>,
}

impl Filter for SourceFilter {
    fn requests(&self, _n: i32, _lengths: &[i32]) -> Vec<(usize, i32)> {
        Vec::new()
    }

    fn get_frame(&self, n: i32, _frames: Vec<Frame>, core: Core) -> Result<Frame> {
        // fmUnordered: the lock is never contended, it only proves the decoder is used alone
        let decoded = self.source.lock().unwrap_or_else(|e| e.into_inner()).frame(n as i64)?;
        let (w, h) = (self.info.width, self.info.height);
        let mut f = match &self.upload {
            Some(u) => u.upload(&decoded, &self.format, w, h)?,
            None => {
                let mut f = FrameMut::new_video(core, &self.format, w, h, None)?;
                for p in 0..decoded.planes() as usize {
                    for (y, row) in decoded.rows(p).enumerate() {
                        let dst = f.row_bytes_mut(p as i32, y).ok_or_else(|| Error::invalid("a host frame came back GPU resident"))?;
                        dst.copy_from_slice(&row[..dst.len()]);
                    }
                }
                f
            }
        };
        props::apply(&mut f.props_mut(), &decoded.meta(), self.info.time_base);
        Ok(f.freeze())
    }
}

fn vs_format(core: Core, i: &Info) -> Result<VSVideoFormat> {
    let family = match i.family {
        Family::Gray => cfGray,
        Family::Yuv => cfYUV,
        Family::Rgb => cfRGB,
    };
    let f = core
        .query_video_format(family, stInteger, i.bits, i.ssw, i.ssh)
        .ok_or_else(|| Error::invalid(format!("{} bits with subsampling {}x{} has no VapourSynth format", i.bits, i.ssw, i.ssh)))?;
    if i.width % (1 << i.ssw) != 0 || i.height % (1 << i.ssh) != 0 {
        return Err(Error::invalid(format!("{}x{} is not a whole number of chroma samples for {}", i.width, i.height, Core::format_name(&f))));
    }
    Ok(f)
}

pub fn create(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let path = args.strings("source")?.and_then(|v| v.into_iter().next()).ok_or_else(|| Error::invalid("no source file given"))?;
    let threads = args.int("threads")?.unwrap_or(0);
    let cache = args.int("cache")?.unwrap_or(16);
    let gpu_arg = args.int("gpu")?.unwrap_or(-1);
    if !(0..=256).contains(&threads) {
        return Err(Error::invalid("threads must be between 0 (automatic) and 256"));
    }
    if !(1..=1024).contains(&cache) {
        return Err(Error::invalid("cache must be between 1 and 1024 frames"));
    }
    if !(-1..=1).contains(&gpu_arg) {
        return Err(Error::invalid("gpu must be 0 (host frames), 1 (GPU frames) or -1 (GPU frames when the core has a device)"));
    }
    let source = Source::open(&PathBuf::from(&path), &Options { threads: threads as i32, cache: cache as i32 })?;
    let info = source.info().clone();
    let format = vs_format(core, &info)?;
    let frames = i32::try_from(info.frames).map_err(|_| Error::invalid(format!("{} frames are more than a clip can hold", info.frames)))?;

    let gpu = match gpu_arg {
        0 => None,
        1 => Some(Gpu::new(core)?),
        _ => Gpu::new(core).ok(),
    };
    let upload = gpu.as_ref().map(Uploader::new).transpose()?;
    let whither = if upload.is_some() { "frames uploaded to the core's GPU" } else { "host frames" };
    core.log(
        mtInformation,
        &format!("vkdec.Source: {path}: {}, {}: CPU decode ({}, {} threads), {whither}", describe(&info), Core::format_name(&format), info.decoder, info.threads),
    );

    let vi = VSVideoInfo { format, fpsNum: info.fps.0, fpsDen: info.fps.1, width: info.width, height: info.height, numFrames: frames };
    let gpu_output = upload.is_some();
    let f = SourceFilter { source: Mutex::new(source), info, format, upload };
    filter::create_with_mode(out, core, Spec { name: "Source".into(), info: vi, inputs: Vec::new(), gpu_output }, f, fmUnordered);
    Ok(())
}
