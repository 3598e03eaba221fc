//! vk.Expr: std.Expr compiled to a GLSL compute shader per plane at filter creation.
//!
//! The language, the argument string, the checks and the error messages are R81's std.Expr
//! (learnt by running it): the clips `x y z a..w`, numbers, `+ - * / max min pow exp log sqrt
//! abs sin cos not and or xor < > = >= <= ?`, `dup dupN swap swapN`. R81's std.Expr has nothing
//! more (no frame number, coordinates, pixel offsets, variables or frame properties: it refuses
//! those tokens as numbers it cannot convert), so neither has vk.Expr.
//!
//! Each plane's expression is parsed and rewritten as R81 rewrites it ([`parse`]), then written
//! out as GLSL ([`glsl`]). Generated plane shaders are kept per (expression, formats) for the
//! process, and the core keeps their compilations by source, so a filter made again costs a
//! pipeline, not a parse and a compile.
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use vsvk_expr::clips;
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::{api, Core};
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::Frame;
use vsvk_plugin_api::gpu::{ExecPool, Gpu, PipelineId};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::{Error, Result};

use crate::kernel::{plane_size, St};
use crate::Reg;

mod glsl;
mod parse;

pub fn register(r: &Reg) {
    r.function("Expr", "clips:vnode[]:gpu;expr:data[];format:int:opt;", create);
}

/// Push constants: grid size and output stride, then one input stride per bound clip.
const PUSH_WORDS: usize = 32;

/// What makes one output plane.
enum Job {
    /// plane p of the first clip, unchanged
    Copy,
    /// the shader, and the clips bound at 1.. in order
    Run { pipe: PipelineId, clips: Vec<usize> },
}

struct Expr {
    /// dropped first: freeing the pool drains the GPU before anything else goes
    pool: ExecPool,
    gpu: Gpu,
    format: VSVideoFormat,
    width: i32,
    height: i32,
    jobs: Vec<Job>,
}

impl Filter for Expr {
    fn get_frame(&self, _n: i32, frames: Vec<Frame>, _core: Core) -> Result<Frame> {
        let g = &self.gpu;
        let mut out = g.new_frame(&self.format, self.width, self.height, Some(&frames[0]))?;
        let bps = self.format.bytesPerSample as isize;
        let mut ex = self.pool.acquire()?;
        for (p, job) in self.jobs.iter().enumerate() {
            let d = g.plane_mut(&out, p as i32)?;
            match job {
                Job::Copy => {
                    let s = g.plane(&frames[0], p as i32)?;
                    ex.copy(s.buffer, d.buffer, s.bufferSize.min(d.bufferSize));
                }
                Job::Run { pipe, clips } => {
                    let (w, h) = plane_size(&self.format, self.width, self.height, p);
                    let mut push = [0u32; PUSH_WORDS];
                    push[0] = w as u32;
                    push[1] = h as u32;
                    push[2] = (out.stride(p as i32) / bps) as u32;
                    let mut bufs = vec![d.buffer];
                    for (j, &c) in clips.iter().enumerate() {
                        let f = &frames[c];
                        bufs.push(g.plane(f, p as i32)?.buffer);
                        push[4 + j] = (f.stride(p as i32) / f.format().bytesPerSample as isize) as u32;
                    }
                    ex.dispatch(*pipe, &bufs, &push, [(w as u32).div_ceil(16), (h as u32).div_ceil(16), 1])?;
                }
            }
        }
        for f in &frames {
            ex.reads(f);
        }
        for p in 0..self.format.numPlanes {
            ex.writes(&mut out, p);
        }
        ex.submit()?;
        Ok(out.freeze())
    }
}

/// std.Expr's formats: 8..16 bit integer, 16 or 32 bit float.
fn supported(f: &VSVideoFormat) -> bool {
    f.colorFamily != cfUndefined && ((f.sampleType == stInteger && (8..=16).contains(&f.bitsPerSample)) || (f.sampleType == stFloat && (f.bitsPerSample == 16 || f.bitsPerSample == 32)))
}

fn check_format(f: &VSVideoFormat) -> Result<()> {
    if supported(f) {
        Ok(())
    } else {
        Err(Error::invalid(format!("Input clip must be constant format 8..16 bit integer or 16-32 bit float, passed {}.", Core::format_name(f))))
    }
}

fn format_by_id(id: i64, core: Core) -> Option<VSVideoFormat> {
    let id = u32::try_from(id).ok()?;
    let mut f = VSVideoFormat::default();
    // SAFETY: `f` is a valid out pointer and the core pointer came from the core.
    let ok = unsafe { (api().getVideoFormatByID)(&mut f, id, core.as_ptr()) };
    (ok != 0 && f.colorFamily != cfUndefined).then_some(f)
}

/// A plane's shader for an expression over clips of these storages.
type Key = (String, Vec<u8>, u8, i64);

fn code(t: St) -> u8 {
    t as u8
}

fn cache() -> &'static Mutex<HashMap<Key, Arc<glsl::Plane>>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<glsl::Plane>>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Parses, rewrites and writes out one plane's expression (errors are R81's messages).
fn compile(expr: &str, types: &[St], out: St, max: i64) -> Result<Arc<glsl::Plane>> {
    let key: Key = (expr.to_string(), types.iter().map(|&t| code(t)).collect(), code(out), max);
    if let Some(p) = cache().lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(p.clone());
    }
    let mut dag = parse::Dag::default();
    let (root, depth) = parse::parse(expr, types.len(), &mut dag).map_err(|e| Error::invalid(e.to_string()))?;
    let types_owned = types.to_vec();
    let build = move || {
        let mut dag = dag;
        let root = parse::optimize(&mut dag, root);
        glsl::shader(&dag, root, &types_owned, out, max)
    };
    // the rewriting recurses as deep as the expression nests: deep ones get a thread with room
    let plane = if depth > 200 {
        std::thread::scope(|s| std::thread::Builder::new().stack_size(256 << 20).spawn_scoped(s, build).map(|h| h.join()))
            .map_err(|e| Error::invalid(format!("cannot start a thread: {e}")))?
            .map_err(|_| Error::invalid("internal error while compiling the expression"))?
    } else {
        build()
    };
    let plane = Arc::new(plane);
    cache().lock().unwrap_or_else(|e| e.into_inner()).insert(key, plane.clone());
    Ok(plane)
}

fn create(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let nodes = a.nodes("clips")?;
    let exprs = a.strings("expr")?.unwrap_or_default();
    if nodes.is_empty() || exprs.is_empty() {
        return Err(Error::invalid("argument expr does not accept empty arrays"));
    }
    let vis = nodes.iter().map(|n| n.video_info()).collect::<Result<Vec<_>>>()?;
    clips::check_clips(&vis, check_format)?;
    let v0 = vis[0];
    let requested = a.int("format")?.map(|id| format_by_id(id, core));
    let ofmt = clips::output_format(&v0.format, requested, exprs.len(), check_format)?;
    let ovi = VSVideoInfo { format: ofmt, ..v0 };
    let np = ofmt.numPlanes as usize;
    let types: Vec<St> = vis.iter().map(|v| St::of(&v.format)).collect();
    let ot = St::of(&ofmt);
    let max = if ofmt.sampleType == stInteger { (1i64 << ofmt.bitsPerSample) - 1 } else { 0 };
    let planes: Vec<Option<Arc<glsl::Plane>>> = (0..np)
        .map(|p| {
            let e = &exprs[p.min(exprs.len() - 1)];
            // an empty expression copies the first clip's plane; where the output format differs
            // from it, R81 leaves the new plane unwritten (zeros, as far as can be seen): zeros
            if e.is_empty() && v0.format == ofmt {
                Ok(None)
            } else if e.is_empty() {
                compile("0", &types, ot, max).map(Some)
            } else {
                compile(e, &types, ot, max).map(Some)
            }
        })
        .collect::<Result<_>>()?;
    let gpu = Gpu::new(core)?;
    let mut pool = gpu.exec_pool()?;
    let mut made: HashMap<String, PipelineId> = HashMap::new();
    let mut jobs = Vec::with_capacity(np);
    for plane in planes {
        let Some(plane) = plane else {
            jobs.push(Job::Copy);
            continue;
        };
        let pipe = match made.get(&plane.source) {
            Some(&p) => p,
            None => {
                let p = pool.pipeline(&plane.source, 1 + plane.clips.len() as u32, (PUSH_WORDS * 4) as u32)?;
                made.insert(plane.source.clone(), p);
                p
            }
        };
        jobs.push(Job::Run { pipe, clips: plane.clips.clone() });
    }
    let spec = Spec { name: "Expr".into(), info: ovi, inputs: nodes, gpu_output: true };
    filter::create(out, core, spec, Expr { pool, gpu, format: ofmt, width: ovi.width, height: ovi.height, jobs });
    Ok(())
}
