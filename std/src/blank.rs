//! std.BlankClip: constant video, in host memory or, with gpu=1 (or a GPU resident clip to take
//! the properties of), made on the GPU by filling each plane there (BlankAudio is `audio`'s).
use std::sync::OnceLock;

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::gpu::{ExecPool, Gpu, WHOLE_SIZE};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::plugin::Registrar;
use vsvk_plugin_api::simd::f32_to_half;
use vsvk_plugin_api::{Error, Result};

use crate::edit::reduce;

pub fn register(r: &Registrar) {
    r.function(
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
    /// Each plane's sample as stored (the low `bytesPerSample` bytes).
    samples: [u32; 3],
    fps: (i64, i64),
    /// keep=1: the one frame every request gets, made on the first.
    keeps: bool,
    kept: OnceLock<Frame>,
    /// GPU resident output: the instance's exec pool, freed (and drained) with it.
    gpu: Option<ExecPool>,
}

/// A sample value as the bits it is stored as.
fn sample_bits(f: &VSVideoFormat, v: f64) -> u32 {
    match (f.sampleType, f.bytesPerSample) {
        // integer values were checked against the format's range
        (stInteger, _) => v as u32,
        (_, 2) => f32_to_half(v as f32) as u32,
        _ => (v as f32).to_bits(),
    }
}

/// The 32-bit word vkCmdFillBuffer repeats: the sample as often as it fits.
fn fill_word(bytes_per_sample: i32, sample: u32) -> u32 {
    match bytes_per_sample {
        1 => sample * 0x0101_0101,
        2 => sample * 0x0001_0001,
        _ => sample,
    }
}

/// Fills a plane of a new frame; with streaming stores (`stream`) where the frames in flight
/// overflow the cache, as the std filters write theirs (crate::stream): a new 2160p 16-bit frame
/// per request is then written at memory speed rather than read for ownership first.
fn fill_plane<T: Copy>(f: &mut FrameMut, plane: i32, v: T, stream: bool) {
    let mut rows = f.plane_mut::<T>(plane).expect("a new CPU frame");
    for row in rows.rows_mut() {
        if stream {
            crate::stream::fill_row(row, v);
        } else {
            row.fill(v);
        }
    }
}

impl BlankVideo {
    fn set_duration(&self, f: &mut FrameMut) {
        if self.fps.0 > 0 {
            let mut props = f.props_mut();
            props.set_int("_DurationNum", self.fps.1);
            props.set_int("_DurationDen", self.fps.0);
        }
    }

    fn make_host(&self, core: Core) -> Result<Frame> {
        let mut f = FrameMut::new_video(core, &self.format, self.width, self.height, None)?;
        let stream = crate::stream::stream_outputs(core, &f);
        for p in 0..self.format.numPlanes {
            let v = self.samples[p as usize];
            match self.format.bytesPerSample {
                1 => fill_plane(&mut f, p, v as u8, stream),
                2 => fill_plane(&mut f, p, v as u16, stream),
                _ => fill_plane(&mut f, p, v, stream),
            }
        }
        if stream {
            crate::stream::fence();
        }
        self.set_duration(&mut f);
        Ok(f.freeze())
    }

    fn make_gpu(&self, pool: &ExecPool) -> Result<Frame> {
        let gpu = pool.gpu();
        let mut f = gpu.new_frame(&self.format, self.width, self.height, None)?;
        self.set_duration(&mut f);
        let mut ex = pool.acquire()?;
        for p in 0..self.format.numPlanes {
            let plane = gpu.plane_mut(&f, p)?;
            // A plane is stride * height bytes with the host plane's stride, which the core
            // aligns to 64 bytes, so whole rows padding included are a multiple of 4; a core whose
            // strides are not gets the buffer filled to its end instead.
            let size = if plane.bufferSize.is_multiple_of(4) { plane.bufferSize } else { WHOLE_SIZE };
            ex.fill(plane.buffer, 0, size, fill_word(self.format.bytesPerSample, self.samples[p as usize]))?;
            ex.writes(&mut f, p);
        }
        ex.submit()?;
        Ok(f.freeze())
    }

    fn make(&self, core: Core) -> Result<Frame> {
        match &self.gpu {
            Some(pool) => self.make_gpu(pool),
            None => self.make_host(core),
        }
    }
}

impl Filter for BlankVideo {
    fn requests(&self, _n: i32, _lengths: &[i32]) -> Vec<(usize, i32)> {
        Vec::new()
    }

    fn get_frame(&self, _n: i32, _frames: Vec<Frame>, core: Core) -> Result<Frame> {
        if !self.keeps {
            return self.make(core);
        }
        if let Some(f) = self.kept.get() {
            return Ok(f.clone());
        }
        let f = self.make(core)?;
        // Two first requests may both make one; every request gets the one kept.
        Ok(self.kept.get_or_init(|| f).clone())
    }
}

/// The message of a core call's error, without the call's name.
fn core_message(e: Error) -> String {
    match e {
        Error::Core { message, .. } => message,
        e => e.to_string(),
    }
}

pub fn blank_clip(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let src = a.nodes("clip")?.into_iter().next();
    let mut vi = match &src {
        Some(n) => n.video_info()?,
        None => VSVideoInfo {
            format: core.video_format_by_id(pfRGB24).expect("preset"),
            fpsNum: 24,
            fpsDen: 1,
            width: 640,
            height: 480,
            numFrames: 240,
        },
    };
    if let Some(w) = a.int("width")? {
        vi.width = i32::try_from(w).map_err(|_| Error::invalid("invalid width"))?;
    }
    if let Some(h) = a.int("height")? {
        vi.height = i32::try_from(h).map_err(|_| Error::invalid("invalid height"))?;
    }
    if let Some(f) = a.int("format")? {
        vi.format = u32::try_from(f).ok().and_then(|id| core.video_format_by_id(id)).ok_or_else(|| Error::invalid("invalid format"))?;
    }
    if let Some(l) = a.int("length")? {
        vi.numFrames = i32::try_from(l).map_err(|_| Error::invalid("invalid length"))?;
    }
    // fpsnum alone makes the rate whole; fpsden alone divides the clip's (or the default) rate
    if let Some(n) = a.int("fpsnum")? {
        vi.fpsNum = n;
        vi.fpsDen = 1;
    }
    if let Some(d) = a.int("fpsden")? {
        vi.fpsDen = d;
    }
    // a clip of variable format or size passes it on unless the arguments replace it
    if vi.format.colorFamily == cfUndefined {
        return Err(Error::invalid("invalid format"));
    }
    if vi.width <= 0 || vi.width % (1 << vi.format.subSamplingW) != 0 {
        return Err(Error::invalid("invalid width"));
    }
    if vi.height <= 0 || vi.height % (1 << vi.format.subSamplingH) != 0 {
        return Err(Error::invalid("invalid height"));
    }
    if vi.numFrames <= 0 {
        return Err(Error::invalid("invalid length"));
    }
    if vi.fpsNum < 0 || vi.fpsDen < 0 || (vi.fpsNum > 0 && vi.fpsDen == 0) {
        return Err(Error::invalid("invalid framerate specified"));
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
    if let Some(c) = a.floats("color")?.filter(|c| !c.is_empty()) {
        if c.len() != np {
            return Err(Error::invalid("invalid number of color values specified"));
        }
        for (i, &v) in c.iter().enumerate() {
            if !float {
                let max = ((1u64 << vi.format.bitsPerSample) - 1) as f64;
                if v < 0.0 || v > max {
                    return Err(Error::invalid("color value out of range"));
                }
                color[i] = (v + 0.5).floor();
            } else {
                // a value the sample type cannot hold (it would become infinite) is refused
                let finite = if vi.format.bitsPerSample == 16 { f32_to_half(v as f32) & 0x7c00 != 0x7c00 } else { (v as f32).is_finite() };
                if !finite {
                    return Err(Error::invalid("color value out of range"));
                }
                color[i] = v;
            }
        }
    }
    // Residency: gpu=1, or that of the clip argument (vnode:all), unless gpu says otherwise.
    let gpu = match a.int("gpu")? {
        Some(g) => g != 0,
        None => src.as_ref().is_some_and(|n| n.residency() == nrGPU),
    };
    let pool = if gpu {
        let g = Gpu::new(core).map_err(|e| Error::invalid(format!("GPU frame requested but no Vulkan device: {}", core_message(e))))?;
        Some(g.exec_pool()?)
    } else {
        None
    };
    let keep = a.int("keep")?.unwrap_or(0) != 0;
    let filter = BlankVideo {
        format: vi.format,
        width: vi.width,
        height: vi.height,
        samples: color.map(|v| sample_bits(&vi.format, v)),
        fps: (vi.fpsNum, vi.fpsDen),
        // The kept frame is made on the first request, not here: by then a GPUUpload made after
        // this clip has brought up the device, and with pinned frames a host frame is then in
        // host transfer memory that uploads copy from with the copy engine.
        keeps: keep,
        kept: OnceLock::new(),
        gpu: pool,
    };
    let mut out_vi = vi;
    if a.int("varsize")?.unwrap_or(0) != 0 {
        out_vi.width = 0;
        out_vi.height = 0;
    }
    if a.int("varformat")?.unwrap_or(0) != 0 {
        out_vi.format = VSVideoFormat::default();
    }
    let mode = if keep { fmUnordered } else { fmParallel };
    let spec = Spec { name: "BlankClip".into(), info: out_vi, inputs: Vec::new(), gpu_output: gpu };
    filter::create_with_mode(out, core, spec, filter, mode);
    Ok(())
}
