//! The complete example plugin of docs/PLUGIN-API.md, kept here so that it is compiled.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::Frame;
use vsvk_plugin_api::gpu::{ExecPool, Gpu, PipelineId};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::plugin::Registrar;
use vsvk_plugin_api::{Error, Result};

const SCALE: &str = "#version 460
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) writeonly buffer D { uint8_t d[]; };
layout(std430, binding = 1) readonly buffer S { uint8_t s[]; };
layout(push_constant) uniform P { uint n; float k; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) d[i] = uint8_t(min(uint(float(uint(s[i])) * p.k + 0.5), 255u));
}";

struct Scale {
    pool: ExecPool, // owns the pipeline; freeing it drains the GPU first
    gpu: Gpu,
    pipe: PipelineId,
    factor: f32,
}

impl Filter for Scale {
    fn get_frame(&self, _n: i32, frames: Vec<Frame>, _core: Core) -> Result<Frame> {
        let src = &frames[0];
        let f = src.format();
        let mut dst = self.gpu.new_frame(&f, src.width(0), src.height(0), Some(src))?;
        let mut ex = self.pool.acquire()?; // abandoned if anything below fails
        for p in 0..f.numPlanes {
            let (s, d) = (self.gpu.plane(src, p)?, self.gpu.plane_mut(&dst, p)?);
            let n = s.bufferSize as u32; // stride * height bytes, padding included
            ex.dispatch(self.pipe, &[d.buffer, s.buffer], &[n, self.factor.to_bits()], [n.div_ceil(64), 1, 1])?;
            ex.writes(&mut dst, p);
        }
        ex.reads(src);
        ex.submit()?;
        Ok(dst.freeze())
    }
}

fn create(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = clip.video_info()?;
    if vi.format.sampleType != stInteger || vi.format.bitsPerSample != 8 {
        return Err(Error::invalid("8-bit integer clips only"));
    }
    let factor = a.float("factor")?.unwrap_or(2.0) as f32;
    let gpu = Gpu::new(core)?;
    let mut pool = gpu.exec_pool()?;
    let pipe = pool.pipeline(SCALE, 2, 8)?;
    let spec = Spec { name: "Scale".into(), info: vi, inputs: vec![clip], gpu_output: true };
    filter::create(out, core, spec, Scale { pool, gpu, pipe, factor });
    Ok(())
}

fn init(r: &Registrar) {
    r.configure("com.example.scale", "scale", "Scales samples on the GPU", (1, 0));
    // vnode:gpu in and out: the core uploads CPU clips on its own
    r.function("Scale", "clip:vnode:gpu;factor:float:opt;", "clip:vnode:gpu;", create);
}

vsvk_plugin_api::export_plugin!(init);
