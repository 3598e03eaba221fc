//! PlaneStats: a GPU reduction, one invocation per row, read back on the host, which adds the
//! rows up and writes std's properties on a copy of the frame (the planes are shared, not
//! copied). Integer sums are exact (64-bit, carried by hand in two words), so integer formats
//! give std's properties exactly. Float rows are summed in single precision on the GPU and the
//! rows in double on the host, where std sums everything in double: the average and difference
//! then differ from std's by rounding only (relative error around 1e-7); minimum and maximum are
//! exact.
use ash::vk;
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::gpu::{ExecPool, Gpu, PipelineId};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::{Error, Result};

use crate::kernel::{plane_size, St};
use crate::Reg;

pub fn register(r: &Reg) {
    r.function("PlaneStats", "clipa:vnode:gpu;clipb:vnode:gpu:opt;plane:int:opt;prop:data:opt;", create);
}

struct Stats {
    pool: ExecPool,
    gpu: Gpu,
    pipe: PipelineId,
    plane: usize,
    height: i32,
    width: i32,
    float: bool,
    bits: i32,
    two: bool,
    keys: [String; 4],
}

fn shader(t: St, two: bool) -> String {
    let load = |b: &str| match t {
        St::F16 => format!("h2f(uint({b}[i]))"),
        St::F32 => format!("{b}[i]"),
        _ => format!("uint({b}[i])"),
    };
    let storage = match t {
        St::U8 => "uint8_t",
        St::U16 | St::F16 => "uint16_t",
        _ => "float",
    };
    let float = t.is_float();
    let mut s = format!(
        "#version 460
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 64) in;
layout(push_constant) uniform PC {{ ivec4 dim; }} pc;
layout(std430, binding = 0) writeonly buffer R {{ uint r[]; }};
layout(std430, binding = 1) readonly buffer A {{ {storage} a[]; }};
layout(std430, binding = 2) readonly buffer B {{ {storage} b[]; }};
float h2f(uint h) {{
    uint s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0u) {{ float v = float(m) * 5.9604644775390625e-8; return s != 0u ? -v : v; }}
    if (e == 31u) return uintBitsToFloat(s | 0x7f800000u | (m << 13));
    return uintBitsToFloat(s | ((e + 112u) << 23) | (m << 13));
}}
void main() {{
    int y = int(gl_GlobalInvocationID.x);
    if (y >= pc.dim.y) return;
    int base = y * pc.dim.z;
"
    );
    if float {
        s += &format!(
            "    float mn = 1.0 / 0.0, mx = -1.0 / 0.0; precise float sum = 0.0, diff = 0.0;
    for (int x = 0; x < pc.dim.x; x++) {{ int i = base + x; float v = {}; mn = min(mn, v); mx = max(mx, v); sum += v; {} }}
    r[y * 6] = floatBitsToUint(mn); r[y * 6 + 1] = floatBitsToUint(mx); r[y * 6 + 2] = floatBitsToUint(sum); r[y * 6 + 4] = floatBitsToUint(diff);
}}
",
            load("a"),
            if two { format!("diff += abs(v - {});", load("b")) } else { String::new() }
        );
    } else {
        s += &format!(
            "    uint mn = 0xffffffffu, mx = 0u, slo = 0u, shi = 0u, dlo = 0u, dhi = 0u;
    for (int x = 0; x < pc.dim.x; x++) {{ int i = base + x; uint v = {}; mn = min(mn, v); mx = max(mx, v);
        uint c; slo = uaddCarry(slo, v, c); shi += c; {} }}
    r[y * 6] = mn; r[y * 6 + 1] = mx; r[y * 6 + 2] = slo; r[y * 6 + 3] = shi; r[y * 6 + 4] = dlo; r[y * 6 + 5] = dhi;
}}
",
            load("a"),
            if two { format!("uint w = {}; uint d = v > w ? v - w : w - v; dlo = uaddCarry(dlo, d, c); dhi += c;", load("b")) } else { String::new() }
        );
    }
    s
}

fn create(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let ca = a.node("clipa")?;
    let vi = ca.video_info()?;
    crate::kernel::check_format(&vi)?;
    let f = vi.format;
    let plane = a.int("plane")?.unwrap_or(0);
    if plane < 0 || plane >= f.numPlanes as i64 {
        return Err(Error::invalid("invalid plane specified"));
    }
    let cb = a.nodes("clipb")?.into_iter().next();
    if let Some(b) = &cb {
        let bv = b.video_info()?;
        if bv.format != f || bv.width != vi.width || bv.height != vi.height {
            return Err(Error::invalid("both input clips must have the same format when second clip is used"));
        }
    }
    let prop = a.strings("prop")?.and_then(|v| v.into_iter().next()).unwrap_or_else(|| "PlaneStats".into());
    let gpu = Gpu::new(core)?;
    let mut pool = gpu.exec_pool()?;
    let pipe = pool.pipeline(&shader(St::of(&f), cb.is_some()), 3, 16)?;
    let (w, h) = plane_size(&f, vi.width, vi.height, plane as usize);
    let stats = Stats {
        pool,
        gpu,
        pipe,
        plane: plane as usize,
        width: w,
        height: h,
        float: f.sampleType == stFloat,
        bits: f.bitsPerSample,
        two: cb.is_some(),
        keys: ["Min", "Max", "Average", "Diff"].map(|s| format!("{prop}{s}")),
    };
    let mut inputs = vec![ca];
    inputs.extend(cb);
    filter::create(out, core, Spec { name: "PlaneStats".into(), info: vi, inputs, gpu_output: true }, stats);
    Ok(())
}

impl Filter for Stats {
    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let g = &self.gpu;
        let h = self.height as usize;
        let rows = g.buffer(
            (h * 6 * 4) as u64,
            vk::BufferUsageFlags::STORAGE_BUFFER,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            vk::MemoryPropertyFlags::HOST_CACHED,
        )?;
        let fa = &frames[0];
        let bps = fa.format().bytesPerSample as isize;
        let pa = g.plane(fa, self.plane as i32)?;
        let pb = if self.two { g.plane(&frames[1], self.plane as i32)? } else { pa };
        let stride = (fa.stride(self.plane as i32) / bps) as u32;
        let value = {
            let mut ex = self.pool.acquire()?;
            ex.dispatch(self.pipe, &[rows.handle(), pa.buffer, pb.buffer], &[self.width as u32, self.height as u32, stride, 0], [(h as u32).div_ceil(64), 1, 1])?;
            ex.barrier();
            for f in &frames {
                ex.reads(f);
            }
            ex.submit()?
        };
        self.pool.wait(value)?;
        let r: &[u32] = rows.mapped(h * 6).ok_or_else(|| Error::invalid("the row sums are not host visible"))?;
        let count = (self.width as f64) * (self.height as f64);
        let mut o = FrameMut::copy_of(core, fa);
        let mut props = o.props_mut();
        if self.float {
            let (mut mn, mut mx, mut sum, mut diff) = (f32::INFINITY, f32::NEG_INFINITY, 0f64, 0f64);
            for y in 0..h {
                mn = mn.min(f32::from_bits(r[y * 6]));
                mx = mx.max(f32::from_bits(r[y * 6 + 1]));
                sum += f32::from_bits(r[y * 6 + 2]) as f64;
                diff += f32::from_bits(r[y * 6 + 4]) as f64;
            }
            props.set_float(&self.keys[0], mn as f64);
            props.set_float(&self.keys[1], mx as f64);
            props.set_float(&self.keys[2], sum / count);
            if self.two {
                props.set_float(&self.keys[3], diff / count);
            }
        } else {
            let (mut mn, mut mx, mut sum, mut diff) = (u32::MAX, 0u32, 0u64, 0u64);
            for y in 0..h {
                mn = mn.min(r[y * 6]);
                mx = mx.max(r[y * 6 + 1]);
                sum += r[y * 6 + 2] as u64 | (r[y * 6 + 3] as u64) << 32;
                diff += r[y * 6 + 4] as u64 | (r[y * 6 + 5] as u64) << 32;
            }
            let scale = count * ((1u64 << self.bits) - 1) as f64;
            props.set_int(&self.keys[0], mn as i64);
            props.set_int(&self.keys[1], mx as i64);
            props.set_float(&self.keys[2], sum as f64 / scale);
            if self.two {
                props.set_float(&self.keys[3], diff as f64 / scale);
            }
        }
        drop(rows);
        Ok(o.freeze())
    }
}
