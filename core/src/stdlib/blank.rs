//! std.BlankClip: constant video (BlankAudio is vsvk-std's).
use std::ffi::c_void;
use std::sync::{Arc, OnceLock};

use vsvk_plugin_api::abi::*;

use crate::core::Core;
use crate::format;
use crate::frame::Frame;
use crate::map::{Map, Values};
use super::util::set_clip;
use crate::node::{Filter, FilterImpl, MediaInfo, Node};
use crate::scheduler::FrameCall;

fn reduce(num: i64, den: i64) -> (i64, i64) {
    fn gcd(a: i64, b: i64) -> i64 {
        if b == 0 {
            a.abs()
        } else {
            gcd(b, a % b)
        }
    }
    let g = gcd(num, den).max(1);
    (num / g, den / g)
}

pub fn register(r: &super::Registrar) {
    r.add(
        "BlankClip",
        "clip:vnode:all:opt;width:int:opt;height:int:opt;format:int:opt;length:int:opt;fpsnum:int:opt;fpsden:int:opt;color:float[]:opt;keep:int:opt;varsize:int:opt;varformat:int:opt;gpu:int:opt;",
        "clip:vnode:all;",
        blank_clip,
    );
}

struct BlankVideo {
    format: VSVideoFormat,
    width: i32,
    height: i32,
    color: [f64; 3],
    fps: (i64, i64),
    keep: OnceLock<Arc<Frame>>,
    keeps: bool,
    core: Arc<Core>,
    /// gpu=1 (or a GPU clip argument): frames are uploaded to the core's Vulkan device.
    gpu: Option<crate::gpu::transfer::Transfer>,
}

impl BlankVideo {
    fn make(&self) -> Result<Arc<Frame>, String> {
        let f = Frame::new_video(&self.format, self.width, self.height, &self.core.mem).map_err(|e| e.to_string())?;
        for p in 0..self.format.numPlanes {
            let pl = &f.planes()[p as usize];
            let (w, h, stride) = (pl.width as usize, pl.height as usize, pl.stride as usize);
            // SAFETY: `f` is new and ours alone.
            let base = unsafe { f.write_ptr(p) }.expect("plane exists");
            let v = self.color[p as usize];
            for y in 0..h {
                // SAFETY: each row holds `w` samples inside the plane's stride.
                unsafe {
                    let row = base.add(y * stride);
                    match (self.format.sampleType, self.format.bytesPerSample) {
                        (stInteger, 1) => std::ptr::write_bytes(row, v as u8, w),
                        (stInteger, 2) => std::slice::from_raw_parts_mut(row.cast::<u16>(), w).fill(v as u16),
                        (stInteger, _) => std::slice::from_raw_parts_mut(row.cast::<u32>(), w).fill(v as u32),
                        (_, 2) => std::slice::from_raw_parts_mut(row.cast::<u16>(), w).fill(f32_to_half(v as f32)),
                        _ => std::slice::from_raw_parts_mut(row.cast::<f32>(), w).fill(v as f32),
                    }
                }
            }
        }
        if self.fps.0 > 0 {
            // SAFETY: `f` is new and ours alone.
            let props = unsafe { f.props_mut() };
            props.set_int("_DurationNum", self.fps.1);
            props.set_int("_DurationDen", self.fps.0);
        }
        let f = Arc::new(f);
        match &self.gpu {
            Some(t) => t.upload(&self.core, &f),
            None => Ok(f),
        }
    }
}

impl Filter for BlankVideo {
    fn get_frame(&self, _n: i32, reason: i32, _fd: &mut *mut c_void, _call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
        if reason != arInitial {
            return Ok(None);
        }
        if let Some(f) = self.keep.get() {
            return Ok(Some(f.clone()));
        }
        let f = self.make()?;
        if !self.keeps {
            return Ok(Some(f));
        }
        // Two first requests may both make one; every request gets the one kept.
        let _ = self.keep.set(f);
        Ok(self.keep.get().cloned())
    }
}

pub use vsvk_plugin_api::simd::f32_to_half;

fn int_arg(m: &Map, key: &str) -> Option<i64> {
    m.opt_int(key)
}

pub fn blank_clip(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let src = input.get_node(b"clip", 0).ok().cloned();
    let mut vi = src.as_ref().and_then(|n| n.video_info().copied()).unwrap_or(VSVideoInfo {
        format: format::video_by_id(pfRGB24).expect("preset"),
        fpsNum: 24,
        fpsDen: 1,
        width: 640,
        height: 480,
        numFrames: 240,
    });
    if let Some(w) = int_arg(input, "width") {
        vi.width = i32::try_from(w).map_err(|_| "invalid width")?;
    }
    if let Some(h) = int_arg(input, "height") {
        vi.height = i32::try_from(h).map_err(|_| "invalid height")?;
    }
    if let Some(f) = int_arg(input, "format") {
        vi.format = u32::try_from(f).ok().and_then(format::video_by_id).ok_or("invalid format")?;
    }
    if let Some(l) = int_arg(input, "length") {
        vi.numFrames = i32::try_from(l).map_err(|_| "invalid length")?;
    }
    // fpsnum alone makes the rate whole; fpsden alone divides the clip's (or the default) rate
    let fpsnum = int_arg(input, "fpsnum");
    if let Some(n) = fpsnum {
        vi.fpsNum = n;
        vi.fpsDen = 1;
    }
    if let Some(d) = int_arg(input, "fpsden") {
        vi.fpsDen = d;
    }
    // a clip of variable format or size passes it on unless the arguments replace it
    if vi.format.colorFamily == cfUndefined {
        return Err("invalid format".into());
    }
    if vi.width <= 0 || vi.width % (1 << vi.format.subSamplingW) != 0 {
        return Err("invalid width".into());
    }
    if vi.height <= 0 || vi.height % (1 << vi.format.subSamplingH) != 0 {
        return Err("invalid height".into());
    }
    if vi.numFrames <= 0 {
        return Err("invalid length".into());
    }
    if vi.fpsNum < 0 || vi.fpsDen < 0 || (vi.fpsNum > 0 && vi.fpsDen == 0) {
        return Err("invalid framerate specified".into());
    }
    if vi.fpsNum == 0 {
        vi.fpsDen = 0;
    } else {
        (vi.fpsNum, vi.fpsDen) = reduce(vi.fpsNum, vi.fpsDen);
    }
    let np = vi.format.numPlanes as usize;
    let mut color = [0.0f64; 3];
    let float = vi.format.sampleType == stFloat;
    if vi.format.colorFamily == cfYUV && !float {
        let mid = (1u64 << (vi.format.bitsPerSample - 1)) as f64;
        color[1] = mid;
        color[2] = mid;
    }
    match input.get(b"color") {
        Ok(Values::Float(c)) if !c.is_empty() => {
            if c.len() != np {
                return Err("invalid number of color values specified".into());
            }
            for (i, &v) in c.iter().enumerate() {
                if !float {
                    let max = ((1u64 << vi.format.bitsPerSample) - 1) as f64;
                    if v < 0.0 || v > max {
                        return Err("color value out of range".into());
                    }
                    color[i] = (v + 0.5).floor();
                } else {
                    // a value the sample type cannot hold (it would become infinite) is refused
                    let finite = if vi.format.bitsPerSample == 16 { f32_to_half(v as f32) & 0x7c00 != 0x7c00 } else { (v as f32).is_finite() };
                    if !finite {
                        return Err("color value out of range".into());
                    }
                    color[i] = v;
                }
            }
        }
        _ => {}
    }
    // Residency: gpu=1, or that of the clip argument (vnode:all), unless gpu says otherwise.
    let gpu = match input.opt_int("gpu") {
        Some(g) => g != 0,
        None => src.as_ref().is_some_and(|n| n.residency() == nrGPU),
    };
    let transfer = if gpu {
        let dev = core.gpu.device(core).map_err(|e| format!("GPU frame requested but no Vulkan device: {e}"))?;
        Some(crate::gpu::transfer::Transfer::new(&dev, core.threads())?)
    } else {
        None
    };
    let keep = input.opt_int("keep").unwrap_or(0) != 0;
    let filter = BlankVideo {
        format: vi.format,
        width: vi.width,
        height: vi.height,
        color,
        fps: (vi.fpsNum, vi.fpsDen),
        keep: OnceLock::new(),
        // The kept frame is made on the first request, not here: by then a GPUUpload made after
        // this clip has brought up the device, and with pinned frames the frame is then in host
        // transfer memory that uploads copy from with the copy engine.
        keeps: keep,
        core: core.clone(),
        gpu: transfer,
    };
    let mut out_vi = vi;
    if input.opt_int("varsize").unwrap_or(0) != 0 {
        out_vi.width = 0;
        out_vi.height = 0;
    }
    if input.opt_int("varformat").unwrap_or(0) != 0 {
        out_vi.format = VSVideoFormat::default();
    }
    let mode = if keep { fmUnordered } else { fmParallel };
    let creation = crate::plugin::creation_stack(core);
    let flags = if gpu { ffGPUOutput } else { 0 };
    let node = Node::new(core.clone(), "BlankClip", MediaInfo::Video(out_vi), FilterImpl::Rust(Box::new(filter)), mode, flags, Vec::new(), creation);
    set_clip(out, node);
    Ok(())
}
