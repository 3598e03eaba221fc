//! `vkdec.Source`: the clip a file's video stream makes.
//!
//! Which decoder, and where frames go: with `gpu=1`, or by default when the core has a Vulkan
//! device, frames are GPU resident (the clip a GPU chain wants). Where that GPU's video engine
//! decodes the stream (and `hwdec` is not 0) the pictures never leave the GPU (vkvideo.rs);
//! elsewhere the CPU decodes and the frames are uploaded here, so that the copy is the source's,
//! not an inserted `std.GPUUpload`. With `gpu=0`, or without a device, the CPU decodes into host
//! frames. The choice, and why, is said once in the core's log when the clip is made.
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
use crate::vkvideo::{self, Crossing, Splitter};

pub const ARGS: &str = "source:data;threads:int:opt;cache:int:opt;gpu:int:opt;hwdec:int:opt;";

enum Output {
    Host,
    Upload(Uploader),
    /// Carrier frames for [`Split`] (vkvideo.rs).
    Video(Crossing),
}

/// The decoder, and the timeline value of the last picture it handed to the Vulkan copy.
struct Decoder {
    source: Source,
    signalled: u64,
}

struct SourceFilter {
    decoder: Mutex<Decoder>,
    info: Info,
    format: VSVideoFormat,
    output: Output,
}

impl Filter for SourceFilter {
    fn requests(&self, _n: i32, _lengths: &[i32]) -> Vec<(usize, i32)> {
        Vec::new()
    }

    fn get_frame(&self, n: i32, _frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let (w, h) = (self.info.width, self.info.height);
        // fmUnordered: the lock is never contended, it only proves the decoder is used alone
        let mut dec = self.decoder.lock().unwrap_or_else(|e| e.into_inner());
        let decoded = dec.source.frame(n as i64)?;
        let meta = decoded.meta();
        if let Output::Video(v) = &self.output {
            let value = dec.signalled + 1;
            let mut carrier = v.take(&mut dec.source, decoded, value)?;
            dec.signalled = value;
            drop(dec);
            props::apply(&mut carrier.props_mut(), &meta, self.info.time_base);
            return Ok(carrier.freeze());
        }
        drop(dec);
        let mut f = match &self.output {
            Output::Upload(u) => u.upload(&decoded, &self.format, w, h)?,
            _ => {
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
        props::apply(&mut f.props_mut(), &meta, self.info.time_base);
        Ok(f.freeze())
    }
}

/// The clip of the Vulkan Video path: each carrier of the decoder filter split into Y, U and V.
struct Split {
    splitter: Splitter,
    format: VSVideoFormat,
    width: i32,
    height: i32,
}

impl Filter for Split {
    fn get_frame(&self, _n: i32, frames: Vec<Frame>, _core: Core) -> Result<Frame> {
        let carrier = frames.first().ok_or_else(|| Error::invalid("no carrier frame"))?;
        Ok(self.splitter.split(carrier, &self.format, self.width, self.height)?.freeze())
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

/// Opens `path` for Vulkan Video decode on the core's GPU, or says why not.
fn open_on_gpu(gpu: &Gpu, path: &str, opt: &Options) -> std::result::Result<(Source, Crossing), String> {
    let dev = vkvideo::hw_device(gpu)?;
    let mut src = Source::open(&PathBuf::from(path), &Options { hw: Some(dev), ..*opt }).map_err(|e| e.to_string())?;
    if !src.info().hw {
        return Err("the decoder did not take the GPU".into());
    }
    // what may be alive at once: the cache, the pictures waiting to be trusted, the references
    let surfaces = opt.cache as i64 + 1 + 16;
    let crossing = Crossing::new(gpu, &mut src, surfaces).map_err(|e| e.to_string())?;
    Ok((src, crossing))
}

pub fn create(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let path = args.strings("source")?.and_then(|v| v.into_iter().next()).ok_or_else(|| Error::invalid("no source file given"))?;
    let threads = args.int("threads")?.unwrap_or(0);
    let cache = args.int("cache")?.unwrap_or(16);
    let gpu_arg = args.int("gpu")?.unwrap_or(-1);
    let hwdec = args.int("hwdec")?.unwrap_or(1);
    if !(0..=256).contains(&threads) {
        return Err(Error::invalid("threads must be between 0 (automatic) and 256"));
    }
    if !(1..=1024).contains(&cache) {
        return Err(Error::invalid("cache must be between 1 and 1024 frames"));
    }
    if !(-1..=1).contains(&gpu_arg) {
        return Err(Error::invalid("gpu must be 0 (host frames), 1 (GPU frames) or -1 (GPU frames when the core has a device)"));
    }
    let opt = Options { threads: threads as i32, cache: cache as i32, hw: None };
    let gpu = match gpu_arg {
        0 => None,
        1 => Some(Gpu::new(core)?),
        _ => Gpu::new(core).ok(),
    };
    // Vulkan Video first where the GPU may decode; the CPU for everything else
    let mut why_cpu = match (&gpu, hwdec) {
        (None, _) => "no GPU frames asked for".to_string(),
        (_, 0) => "hwdec=0".to_string(),
        _ => String::new(),
    };
    let mut video = None;
    if let (Some(g), true) = (&gpu, why_cpu.is_empty()) {
        match open_on_gpu(g, &path, &opt) {
            Ok(v) => video = Some(v),
            Err(e) => why_cpu = e,
        }
    }
    let (source, output) = match video {
        Some((s, v)) => (s, Output::Video(v)),
        None => {
            let s = Source::open(&PathBuf::from(&path), &opt)?;
            let o = match &gpu {
                Some(g) => Output::Upload(Uploader::new(g)?),
                None => Output::Host,
            };
            (s, o)
        }
    };
    let info = source.info().clone();
    let format = vs_format(core, &info)?;
    let frames = i32::try_from(info.frames).map_err(|_| Error::invalid(format!("{} frames are more than a clip can hold", info.frames)))?;
    let how = match &output {
        Output::Video(_) => format!("Vulkan Video decode ({}) on the core's GPU, frames never leave it", info.decoder),
        Output::Upload(_) => format!("CPU decode ({}, {} threads; {why_cpu}), frames uploaded to the core's GPU", info.decoder, info.threads),
        Output::Host => format!("CPU decode ({}, {} threads; {why_cpu}), host frames", info.decoder, info.threads),
    };
    core.log(mtInformation, &format!("vkdec.Source: {path}: {}, {}: {how}", describe(&info), Core::format_name(&format)));

    let vi = VSVideoInfo { format, fpsNum: info.fps.0, fpsDen: info.fps.1, width: info.width, height: info.height, numFrames: frames };
    let (w, h, bits) = (info.width, info.height, info.bits);
    if let Output::Video(c) = &output {
        let carriers = VSVideoInfo { format: c.carrier, height: h + h / 2, ..vi };
        let f = SourceFilter { decoder: Mutex::new(Decoder { source, signalled: 0 }), info, format, output };
        let decoder = filter::create_node(core, Spec { name: "SourceDecoder".into(), info: carriers, inputs: Vec::new(), gpu_output: true }, f, fmUnordered)?;
        let split = Split { splitter: Splitter::new(gpu.as_ref().expect("the video path has a GPU"), bits)?, format, width: w, height: h };
        filter::create(out, core, Spec { name: "Source".into(), info: vi, inputs: vec![decoder], gpu_output: true }, split);
        return Ok(());
    }
    let gpu_output = !matches!(output, Output::Host);
    let f = SourceFilter { decoder: Mutex::new(Decoder { source, signalled: 0 }), info, format, output };
    filter::create_with_mode(out, core, Spec { name: "Source".into(), info: vi, inputs: Vec::new(), gpu_output }, f, fmUnordered);
    Ok(())
}
