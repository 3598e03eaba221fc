//! The machinery every vk filter shares: sample types, GLSL generation around a per-sample
//! body, and [`Program`], a list of dispatches and copies that makes one output frame from the
//! input frames in one submission.
//!
//! A shader sees its output at binding 0 and its sources at bindings 1.., each read through
//! `ldI(x, y)` (`int` for integer samples, `float` for float ones) and written with
//! `st(x, y, v)`. Push constants carry the grid size and the row strides (in samples), which
//! come from the frames, plus twelve ints of per-dispatch constants (`pc.k0..k2`). Filter
//! parameters that do not change per dispatch are baked into the source as `#define`s (floats as
//! their exact bits), and the core caches compilations by source text.
//!
//! Float arithmetic is written with `precise` so the compiler neither contracts `a*b+c` into a
//! fused operation nor reassociates, matching std's single rounding per operation; where std
//! fuses (`mul_add`) the shader calls `fma`. Half floats are converted by hand, exactly and with
//! round-to-nearest-even, rather than through `packHalf2x16`, whose rounding Vulkan leaves open.
use ash::vk;
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::frame::{Frame, PropsMut};
use vsvk_plugin_api::gpu::{Buffer, ExecPool, Gpu, PipelineId};
use vsvk_plugin_api::{Error, Result};

/// How a buffer's samples are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum St {
    U8,
    U16,
    /// half floats, read and written as f32
    F16,
    F32,
    /// 32-bit integers (scratch planes, raw copies of float samples)
    I32,
}

impl St {
    pub fn of(f: &VSVideoFormat) -> St {
        match (f.sampleType, f.bytesPerSample) {
            (st, 1) if st == stInteger => St::U8,
            (st, 2) if st == stInteger => St::U16,
            (_, 2) => St::F16,
            (st, _) if st == stFloat => St::F32,
            _ => St::I32,
        }
    }
    /// The same bytes, as integers (for filters that move samples without looking at them).
    pub fn raw(self) -> St {
        match self {
            St::F16 => St::U16,
            St::F32 => St::I32,
            s => s,
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, St::F16 | St::F32)
    }
    fn storage(self) -> &'static str {
        match self {
            St::U8 => "uint8_t",
            St::U16 | St::F16 => "uint16_t",
            St::F32 => "float",
            St::I32 => "int",
        }
    }
    pub fn bytes(self) -> u64 {
        match self {
            St::U8 => 1,
            St::U16 | St::F16 => 2,
            St::F32 | St::I32 => 4,
        }
    }
}

/// GLSL for a float constant, exactly.
pub fn flt(v: f32) -> String {
    format!("uintBitsToFloat({}u)", v.to_bits())
}

/// Exact half <-> float conversions, round to nearest even (`packHalf2x16`'s rounding is left
/// open), for every shader that reads or writes half samples.
pub(crate) const HALF: &str = r#"
float h2f(uint h) {
    uint s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0u) { float v = float(m) * 5.9604644775390625e-8; return s != 0u ? -v : v; }
    if (e == 31u) return uintBitsToFloat(s | 0x7f800000u | (m << 13));
    return uintBitsToFloat(s | ((e + 112u) << 23) | (m << 13));
}
uint f2h(float f) {
    uint x = floatBitsToUint(f), s = (x >> 16) & 0x8000u, e = (x >> 23) & 0xffu, m = x & 0x7fffffu;
    if (e == 255u) return s | 0x7c00u | (m != 0u ? 0x200u | (m >> 13) : 0u);
    int ee = int(e) - 112;
    if (ee >= 31) return s | 0x7c00u;
    if (ee <= 0) {
        if (ee < -10) return s;
        m |= 0x800000u;
        uint sh = uint(14 - ee), hm = m >> sh, rem = m & ((1u << sh) - 1u), half_ = 1u << (sh - 1u);
        if (rem > half_ || (rem == half_ && (hm & 1u) != 0u)) hm++;
        return s | hm;
    }
    uint hm = m >> 13, rem = m & 0x1fffu, h = s | (uint(ee) << 10) | hm;
    if (rem > 0x1000u || (rem == 0x1000u && (hm & 1u) != 0u)) h++;
    return h;
}
"#;

/// A compute shader around `body`, which runs once per grid position `(x, y)` inside the grid.
/// `local` is the workgroup size (16x16 for plane kernels).
pub fn shader(dst: St, srcs: &[St], defines: &str, helpers: &str, body: &str) -> String {
    let mut s = String::from(
        "#version 460\n\
         #extension GL_EXT_shader_8bit_storage : require\n\
         #extension GL_EXT_shader_16bit_storage : require\n\
         #extension GL_EXT_shader_explicit_arithmetic_types_int8 : require\n\
         #extension GL_EXT_shader_explicit_arithmetic_types_int16 : require\n\
         layout(local_size_x = 16, local_size_y = 16) in;\n\
         layout(push_constant) uniform PC { ivec4 dim; ivec4 st; ivec4 k0; ivec4 k1; ivec4 k2; } pc;\n",
    );
    s += &format!("layout(std430, set = 0, binding = 0) writeonly buffer D {{ {} d[]; }};\n", dst.storage());
    for (i, t) in srcs.iter().enumerate() {
        s += &format!("layout(std430, set = 0, binding = {}) readonly buffer S{i} {{ {} s{i}[]; }};\n", i + 1, t.storage());
    }
    s += HALF;
    s += "#define W pc.dim.x\n#define H pc.dim.y\n";
    for (i, t) in srcs.iter().enumerate() {
        let stride = if i < 4 { format!("pc.st[{i}]") } else { "0".into() };
        let (ty, conv) = match t {
            St::U8 | St::U16 | St::I32 => ("int", format!("int(s{i}[IDX])")),
            St::F16 => ("float", format!("h2f(uint(s{i}[IDX]))")),
            St::F32 => ("float", format!("s{i}[IDX]")),
        };
        s += &format!("{ty} ld{i}(int x, int y) {{ return {}; }}\n", conv.replace("IDX", &format!("y * {stride} + x")));
        s += &format!("{ty} tb{i}(int i) {{ return {}; }}\n", conv.replace("IDX", "i"));
    }
    s += match dst {
        St::U8 => "void st(int x, int y, int v) { d[y * pc.dim.z + x] = uint8_t(v); }\n",
        St::U16 => "void st(int x, int y, int v) { d[y * pc.dim.z + x] = uint16_t(v); }\n",
        St::I32 => "void st(int x, int y, int v) { d[y * pc.dim.z + x] = v; }\n",
        St::F16 => "void st(int x, int y, float v) { d[y * pc.dim.z + x] = uint16_t(f2h(v)); }\n",
        St::F32 => "void st(int x, int y, float v) { d[y * pc.dim.z + x] = v; }\n",
    };
    s += defines;
    s += "\n";
    s += helpers;
    s += "\nvoid main() {\n    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);\n    if (x >= W || y >= H) return;\n";
    s += body;
    s += "\n}\n";
    s
}

/// Where a dispatch reads from.
#[derive(Clone, Copy, Debug)]
pub enum Src {
    /// plane `plane` of input frame `input`
    Plane { input: usize, plane: usize },
    /// a per-frame scratch buffer of the program
    Scratch(usize),
    /// a table the filter owns
    Table(usize),
}

/// Where a dispatch writes.
#[derive(Clone, Copy, Debug)]
pub enum Dst {
    Plane(usize),
    Scratch(usize),
}

/// One dispatch over a `w` x `h` grid.
#[derive(Clone, Debug)]
pub struct Job {
    pub pipe: PipelineId,
    pub dst: Dst,
    pub srcs: Vec<Src>,
    pub grid: (i32, i32),
    pub k: [i32; 12],
    /// wait for everything recorded before (a source written earlier in the program)
    pub barrier: bool,
}

/// A per-frame scratch plane: `w` x `h` samples of 4 bytes, rows `w` apart.
#[derive(Clone, Copy, Debug)]
pub struct Scratch {
    pub w: i32,
    pub h: i32,
}

/// How to make one output frame: copies of whole planes, then dispatches in order.
pub struct Program {
    /// dropped first: freeing the pool drains the GPU before the tables go
    pub pool: ExecPool,
    pub gpu: Gpu,
    pub format: VSVideoFormat,
    pub width: i32,
    pub height: i32,
    /// input whose properties the output takes
    pub props_from: usize,
    /// (input, plane) -> output plane, copied unchanged
    pub copies: Vec<(usize, usize, usize)>,
    pub jobs: Vec<Job>,
    pub scratch: Vec<Scratch>,
    pub tables: Vec<Buffer>,
    /// pipelines by shader source: planes with the same kernel share one
    made: std::collections::HashMap<String, PipelineId>,
}

impl Program {
    pub fn new(core: Core, format: VSVideoFormat, width: i32, height: i32) -> Result<Program> {
        let gpu = Gpu::new(core)?;
        Ok(Program { pool: gpu.exec_pool()?, gpu, format, width, height, props_from: 0, copies: Vec::new(), jobs: Vec::new(), scratch: Vec::new(), tables: Vec::new(), made: Default::default() })
    }

    /// Compiles a kernel with `dst` and `srcs` storage.
    pub fn kernel(&mut self, dst: St, srcs: &[St], defines: &str, helpers: &str, body: &str) -> Result<PipelineId> {
        let src = shader(dst, srcs, defines, helpers, body);
        if let Some(&p) = self.made.get(&src) {
            return Ok(p);
        }
        let p = self.pool.pipeline(&src, 1 + srcs.len() as u32, 80)?;
        self.made.insert(src, p);
        Ok(p)
    }

    pub fn table<T: Copy>(&mut self, data: &[T]) -> Result<usize> {
        self.tables.push(self.gpu.table_buffer(data)?);
        Ok(self.tables.len() - 1)
    }

    /// Plane dimensions of the output.
    pub fn plane_size(&self, p: usize) -> (i32, i32) {
        plane_size(&self.format, self.width, self.height, p)
    }

    /// A job over the whole output plane `p` reading `srcs`.
    pub fn plane_job(&mut self, pipe: PipelineId, p: usize, srcs: Vec<Src>) {
        let grid = self.plane_size(p);
        self.jobs.push(Job { pipe, dst: Dst::Plane(p), srcs, grid, k: [0; 12], barrier: false });
    }

    /// Runs the program on the input frames.
    pub fn run(&self, frames: &[Frame]) -> Result<Frame> {
        self.run_then(frames, |_| {})
    }

    /// Runs the program, letting `props` edit the output's properties (which start as a copy of
    /// input `props_from`'s) before it is frozen.
    pub fn run_then(&self, frames: &[Frame], props: impl FnOnce(&mut PropsMut<'_>)) -> Result<Frame> {
        let g = &self.gpu;
        let mut out = g.new_frame(&self.format, self.width, self.height, Some(&frames[self.props_from]))?;
        props(&mut out.props_mut());
        let bps = self.format.bytesPerSample as isize;
        let scratch: Vec<Buffer> = self
            .scratch
            .iter()
            .map(|s| g.buffer((s.w as u64) * (s.h as u64) * 4, vk::BufferUsageFlags::STORAGE_BUFFER, vk::MemoryPropertyFlags::empty(), vk::MemoryPropertyFlags::DEVICE_LOCAL))
            .collect::<Result<_>>()?;
        let mut ex = self.pool.acquire()?;
        for &(i, sp, dp) in &self.copies {
            let s = g.plane(&frames[i], sp as i32)?;
            let d = g.plane_mut(&out, dp as i32)?;
            ex.copy(s.buffer, d.buffer, s.bufferSize.min(d.bufferSize));
        }
        for j in &self.jobs {
            if j.barrier {
                ex.barrier();
            }
            let mut bufs = Vec::with_capacity(1 + j.srcs.len());
            let mut push = [0i32; 20];
            push[0] = j.grid.0;
            push[1] = j.grid.1;
            match j.dst {
                Dst::Plane(p) => {
                    bufs.push(g.plane_mut(&out, p as i32)?.buffer);
                    push[2] = (out.stride(p as i32) / bps) as i32;
                }
                Dst::Scratch(k) => {
                    bufs.push(scratch[k].handle());
                    push[2] = self.scratch[k].w;
                }
            }
            for (n, s) in j.srcs.iter().enumerate() {
                let (b, stride) = match *s {
                    Src::Plane { input, plane } => {
                        let f = &frames[input];
                        let sb = f.format().bytesPerSample as isize;
                        (g.plane(f, plane as i32)?.buffer, (f.stride(plane as i32) / sb) as i32)
                    }
                    Src::Scratch(k) => (scratch[k].handle(), self.scratch[k].w),
                    Src::Table(t) => (self.tables[t].handle(), 0),
                };
                bufs.push(b);
                if n < 4 {
                    push[4 + n] = stride;
                }
            }
            push[8..20].copy_from_slice(&j.k);
            let words: Vec<u32> = push.iter().map(|&v| v as u32).collect();
            ex.dispatch(j.pipe, &bufs, &words, [(j.grid.0 as u32).div_ceil(16), (j.grid.1 as u32).div_ceil(16), 1])?;
        }
        for f in frames {
            ex.reads(f);
        }
        for p in 0..self.format.numPlanes {
            ex.writes(&mut out, p);
        }
        for s in scratch {
            ex.uses_buffer(s);
        }
        ex.submit()?;
        Ok(out.freeze())
    }
}

pub fn plane_size(f: &VSVideoFormat, w: i32, h: i32, p: usize) -> (i32, i32) {
    if p == 0 {
        (w, h)
    } else {
        (w >> f.subSamplingW, h >> f.subSamplingH)
    }
}

/// The formats std's sample filters take: 8..16 bit integer, 16 or 32 bit float.
pub fn check_format(vi: &VSVideoInfo) -> Result<()> {
    let f = vi.format;
    let ok = f.colorFamily != cfUndefined
        && ((f.sampleType == stInteger && (8..=16).contains(&f.bitsPerSample)) || (f.sampleType == stFloat && (f.bitsPerSample == 16 || f.bitsPerSample == 32)));
    if !ok {
        return Err(Error::invalid(format!("the clip must be 8..16 bit integer or 16/32 bit float, passed {}", Core::format_name(&f))));
    }
    if vi.width <= 0 || vi.height <= 0 {
        return Err(Error::invalid("the clip must have constant dimensions"));
    }
    Ok(())
}

/// The `planes` argument: indices 0..2 at most once each; absent means all.
pub fn planes_arg(list: Option<Vec<i64>>, np: i32) -> Result<[bool; 3]> {
    let Some(list) = list else {
        return Ok([0, 1, 2].map(|p| p < np));
    };
    let mut out = [false; 3];
    for p in list {
        if !(0..3).contains(&p) {
            return Err(Error::invalid("plane index out of range"));
        }
        if out[p as usize] {
            return Err(Error::invalid("plane specified twice"));
        }
        out[p as usize] = p < np as i64;
    }
    Ok(out)
}

/// A float array argument with at most one value per plane: plane p takes value p or the last.
pub fn plane_values(v: Option<Vec<f64>>, key: &str, np: i32) -> Result<Option<Vec<f64>>> {
    match v {
        Some(v) if v.len() > np as usize => Err(Error::invalid(format!("{key} has more values specified than there are planes"))),
        Some(v) if v.is_empty() => Ok(None),
        v => Ok(v),
    }
}

pub fn pick(v: &Option<Vec<f64>>, p: usize) -> Option<f64> {
    v.as_ref().map(|v| v[p.min(v.len() - 1)])
}
