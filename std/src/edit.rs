//! Frame-level editing: Trim, Splice, Loop, Reverse, SelectEvery, Interleave, DeleteFrames,
//! DuplicateFrames, FreezeFrames, AssumeFPS, SeparateFields, DoubleWeave, AverageFrames,
//! SetVideoCache.
//!
//! The frame selectors pass frames on untouched (or with their duration scaled), so they work
//! wherever the frames live; SeparateFields, DoubleWeave and AverageFrames work in host memory.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut, PropsMut};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::node::Node;
use vsvk_plugin_api::plugin::Registrar;
use vsvk_plugin_api::residency::on_host;
use vsvk_plugin_api::values::MapRead;
use vsvk_plugin_api::{Error, Result};

use crate::util::{dst_plane, is_constant, props_filter_info, residency_mismatch, src_plane, video_info};

mod average;
mod fields;

pub fn register(r: &Registrar) {
    r.function("Trim", "clip:vnode:all;first:int:opt;last:int:opt;length:int:opt;", "clip:vnode:all;", trim);
    r.function("Splice", "clips:vnode[]:all;mismatch:int:opt;", "clip:vnode:all;", splice);
    r.function("Loop", "clip:vnode:all;times:int:opt;", "clip:vnode:all;", loop_);
    r.function("Reverse", "clip:vnode:all;", "clip:vnode:all;", reverse);
    r.function("SelectEvery", "clip:vnode:all;cycle:int;offsets:int[];modify_duration:int:opt;", "clip:vnode:all;", select_every);
    r.function("Interleave", "clips:vnode[]:all;extend:int:opt;mismatch:int:opt;modify_duration:int:opt;", "clip:vnode:all;", interleave);
    r.function("DeleteFrames", "clip:vnode:all;frames:int[];", "clip:vnode:all;", delete_frames);
    r.function("DuplicateFrames", "clip:vnode:all;frames:int[];", "clip:vnode:all;", duplicate_frames);
    r.function("FreezeFrames", "clip:vnode:all;first:int[]:empty;last:int[]:empty;replacement:int[]:empty;", "clip:vnode:all;", freeze_frames);
    r.function("AssumeFPS", "clip:vnode:all;src:vnode:all:opt;fpsnum:int:opt;fpsden:int:opt;", "clip:vnode:all;", assume_fps);
    r.function("SeparateFields", "clip:vnode:all;tff:int:opt;modify_duration:int:opt;", "clip:vnode:all;", fields::separate_fields);
    r.function("DoubleWeave", "clip:vnode:all;tff:int:opt;", "clip:vnode:all;", double_weave);
    r.function("AverageFrames", "clips:vnode[]:all;weights:float[];scale:float:opt;scenechange:int:opt;planes:int[]:opt;", "clip:vnode:all;", average::average_frames);
    r.function("SetVideoCache", "clip:vnode:all;mode:int:opt;fixedsize:int:opt;maxsize:int:opt;maxhistory:int:opt;", "", set_video_cache);
}

// ---- shared pieces --------------------------------------------------------------------------------

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

/// num/den in lowest terms (a zero numerator gives 0/1, as R81's reduction does).
pub fn reduce(num: i64, den: i64) -> (i64, i64) {
    let g = gcd(num, den);
    if g == 0 {
        (num, den)
    } else {
        (num / g, den / g)
    }
}

/// A frame rate times mul/div, in lowest terms; 0/0 (variable) stays.
fn scale_fps(vi: &mut VSVideoInfo, mul: i64, div: i64) {
    if vi.fpsNum > 0 && vi.fpsDen > 0 {
        (vi.fpsNum, vi.fpsDen) = reduce(vi.fpsNum * mul, vi.fpsDen * div);
    }
}

/// The frame's duration times mul/div, when it has one (both properties, as integers).
pub fn scale_duration(props: &mut PropsMut<'_>, mul: i64, div: i64) {
    let (Ok(num), Ok(den)) = (props.get_int("_DurationNum", 0), props.get_int("_DurationDen", 0)) else {
        return;
    };
    let (num, den) = reduce(num.saturating_mul(mul), den.saturating_mul(div));
    props.set_int("_DurationNum", num);
    props.set_int("_DurationDen", den);
}

fn first(frames: Vec<Frame>) -> Result<Frame> {
    frames.into_iter().next().ok_or_else(|| Error::whole("internal error: a requested frame is missing"))
}

/// Output frame n is frame `map(n)` of one of the inputs, passed on as it is (or with its
/// duration scaled by `duration`).
struct Select<M> {
    map: M,
    duration: Option<(i64, i64)>,
}

impl<M: Fn(i32) -> (usize, i32) + Send + Sync + 'static> Filter for Select<M> {
    fn requests(&self, n: i32, _lengths: &[i32]) -> Vec<(usize, i32)> {
        vec![(self.map)(n)]
    }

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let f = first(frames)?;
        match self.duration {
            None => Ok(f),
            Some((mul, div)) => {
                let mut c = FrameMut::copy_of(core, &f);
                scale_duration(&mut c.props_mut(), mul, div);
                Ok(c.freeze())
            }
        }
    }
}

/// Returns under `clip` a frame-selecting filter; its frames live where the first input's do.
#[allow(clippy::too_many_arguments)]
fn select(
    out: &mut Out,
    core: Core,
    name: &str,
    info: VSVideoInfo,
    inputs: Vec<Node>,
    pattern: i32,
    map: impl Fn(i32) -> (usize, i32) + Send + Sync + 'static,
    duration: Option<(i64, i64)>,
) {
    let patterns = vec![pattern; inputs.len()];
    select_with(out, core, name, info, inputs, patterns, map, duration);
}

/// [`select`] with a request pattern per input.
#[allow(clippy::too_many_arguments)]
fn select_with(
    out: &mut Out,
    core: Core,
    name: &str,
    info: VSVideoInfo,
    inputs: Vec<Node>,
    patterns: Vec<i32>,
    map: impl Fn(i32) -> (usize, i32) + Send + Sync + 'static,
    duration: Option<(i64, i64)>,
) {
    let gpu_output = inputs[0].residency() == nrGPU;
    filter::create_with_patterns(out, core, Spec { name: name.into(), info, inputs, gpu_output }, &patterns, Select { map, duration });
}

pub(crate) fn format_name(f: &VSVideoFormat) -> String {
    if f.colorFamily == cfUndefined {
        "Undefined".into()
    } else {
        Core::format_name(f)
    }
}

// ---- Trim, Loop, Reverse ---------------------------------------------------------------------------

fn trim(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    let (first, last, length) = (a.int("first")?, a.int("last")?, a.int("length")?);
    if last.is_some() && length.is_some() {
        return Err(Error::invalid("both last frame and length specified"));
    }
    let len = vi.numFrames as i64;
    let first = first.unwrap_or(0);
    if first < 0 {
        return Err(Error::invalid("invalid first frame specified (less than 0)"));
    }
    if first >= len {
        return Err(Error::invalid("invalid first frame specified (beyond clip end)"));
    }
    if let Some(l) = last {
        if l < first {
            return Err(Error::invalid("invalid last frame specified (last is less than first)"));
        }
    }
    if let Some(l) = length {
        if l < 1 {
            return Err(Error::invalid("invalid length specified (less than 1)"));
        }
    }
    let last = match (last, length) {
        (Some(l), _) => l,
        (None, Some(n)) => first.saturating_add(n - 1),
        _ => len - 1,
    };
    if last >= len {
        return Err(Error::invalid("last frame beyond clip end"));
    }
    if first == 0 && last == len - 1 {
        out.set_node("clip", clip);
        return Ok(());
    }
    let mut ovi = vi;
    ovi.numFrames = (last - first + 1) as i32;
    let first = first as i32;
    select(out, core, "Trim", ovi, vec![clip], rpNoFrameReuse, move |n| (0, n + first), None);
    Ok(())
}

fn loop_(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    let times = a.int("times")?.unwrap_or(0);
    if times < 0 {
        return Err(Error::invalid("cannot repeat clip a negative number of times"));
    }
    if times == 1 {
        out.set_node("clip", clip);
        return Ok(());
    }
    let len = vi.numFrames;
    let total = if times == 0 { i32::MAX as i64 } else { len as i64 * times };
    if total > i32::MAX as i64 {
        return Err(Error::invalid("resulting clip is too long"));
    }
    let mut ovi = vi;
    ovi.numFrames = total as i32;
    select(out, core, "Loop", ovi, vec![clip], rpGeneral, move |n| (0, n % len), None);
    Ok(())
}

fn reverse(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    let last = vi.numFrames - 1;
    select(out, core, "Reverse", vi, vec![clip], rpNoFrameReuse, move |n| (0, last - n), None);
    Ok(())
}

// ---- Splice, Interleave -----------------------------------------------------------------------------

fn dims_text(vi: &VSVideoInfo) -> String {
    if vi.width > 0 {
        format!("[{}x{}]", vi.width, vi.height)
    } else {
        "[undefined]".into()
    }
}

fn fps_text(vi: &VSVideoInfo) -> String {
    if vi.fpsNum > 0 {
        format!("at {}/{} fps", vi.fpsNum, vi.fpsDen)
    } else {
        "at a variable frame rate".into()
    }
}

/// R81's message for the first clip that differs from the first one, or None when all match.
/// Splice does not compare frame rates; Interleave does.
fn mismatch_message(name: &str, infos: &[VSVideoInfo], with_fps: bool) -> Option<String> {
    let a = &infos[0];
    for (i, b) in infos.iter().enumerate().skip(1) {
        let mut what = Vec::new();
        if a.format != b.format {
            what.push("format");
        }
        if a.width != b.width || a.height != b.height {
            what.push("dimensions");
        }
        let fps_differs = with_fps && (a.fpsNum != b.fpsNum || a.fpsDen != b.fpsDen);
        if fps_differs {
            what.push("framerate");
        }
        if what.is_empty() {
            continue;
        }
        let (fa, fb) = (format_name(&a.format), format_name(&b.format));
        let (da, db) = (dims_text(a), dims_text(b));
        let passed = if fps_differs {
            format!("{fa}{da} {} and {fb}{db} {}", fps_text(a), fps_text(b))
        } else {
            format!("{fa}{da} and {fb}{db}")
        };
        return Some(format!("{name}: clips are mismatched in {} starting at clip #{i}, passed {passed}", what.join(", ")));
    }
    None
}

/// The common description of mismatched clips: what they share, the rest variable.
fn merged_info(infos: &[VSVideoInfo]) -> VSVideoInfo {
    let mut vi = infos[0];
    for b in &infos[1..] {
        if b.format != vi.format {
            vi.format = VSVideoFormat::default();
        }
        if b.width != vi.width || b.height != vi.height {
            vi.width = 0;
            vi.height = 0;
        }
        if b.fpsNum != vi.fpsNum || b.fpsDen != vi.fpsDen {
            vi.fpsNum = 0;
            vi.fpsDen = 0;
        }
    }
    vi
}

fn splice(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let mut clips = a.nodes("clips")?;
    let mismatch = a.bool("mismatch", false)?;
    if clips.len() == 1 {
        out.set_node("clip", clips.remove(0));
        return Ok(());
    }
    if let Some(m) = residency_mismatch(&clips) {
        return Err(Error::invalid(m));
    }
    let infos: Vec<VSVideoInfo> = clips.iter().map(video_info).collect::<Result<_>>()?;
    if !mismatch {
        if let Some(m) = mismatch_message("Splice", &infos, false) {
            return Err(Error::whole(m));
        }
    }
    let total: i64 = infos.iter().map(|v| v.numFrames as i64).sum();
    if total > i32::MAX as i64 {
        return Err(Error::invalid("the resulting clip is too long"));
    }
    let mut vi = merged_info(&infos);
    vi.numFrames = total as i32;
    let starts: Vec<i32> = infos
        .iter()
        .scan(0i32, |s, v| {
            let here = *s;
            *s += v.numFrames;
            Some(here)
        })
        .collect();
    let map = move |n: i32| {
        let i = starts.partition_point(|&s| s <= n) - 1;
        (i, n - starts[i])
    };
    select(out, core, "Splice", vi, clips, rpNoFrameReuse, map, None);
    Ok(())
}

fn interleave(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let mut clips = a.nodes("clips")?;
    let extend = a.bool("extend", false)?;
    let mismatch = a.bool("mismatch", false)?;
    let modify_duration = a.bool("modify_duration", true)?;
    if clips.len() == 1 {
        out.set_node("clip", clips.remove(0));
        return Ok(());
    }
    if let Some(m) = residency_mismatch(&clips) {
        return Err(Error::invalid(m));
    }
    let infos: Vec<VSVideoInfo> = clips.iter().map(video_info).collect::<Result<_>>()?;
    if !mismatch {
        if let Some(m) = mismatch_message("Interleave", &infos, true) {
            return Err(Error::whole(m));
        }
    }
    let count = clips.len() as i64;
    let total = if extend {
        infos.iter().map(|v| v.numFrames as i64).max().unwrap_or(0) * count
    } else {
        infos.iter().enumerate().map(|(i, v)| (v.numFrames as i64 - 1) * count + i as i64 + 1).max().unwrap_or(0)
    };
    if total > i32::MAX as i64 {
        return Err(Error::invalid("resulting clip is too long"));
    }
    let mut vi = merged_info(&infos);
    vi.numFrames = total as i32;
    if modify_duration {
        scale_fps(&mut vi, count, 1);
    }
    let n_clips = clips.len() as i32;
    let duration = modify_duration.then_some((1, count));
    // a clip shorter than the longest gives its last frame again, as R81 declares
    let longest = infos.iter().map(|v| v.numFrames).max().unwrap_or(0);
    let patterns = infos.iter().map(|v| if v.numFrames < longest { rpFrameReuseLastOnly } else { rpNoFrameReuse }).collect();
    select_with(out, core, "Interleave", vi, clips, patterns, move |n| ((n % n_clips) as usize, n / n_clips), duration);
    Ok(())
}

// ---- SelectEvery, DeleteFrames, DuplicateFrames, FreezeFrames ----------------------------------------

fn select_every(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    let cycle = a.int("cycle")?.unwrap_or(0);
    let offsets = a.ints("offsets")?.unwrap_or_default();
    let modify_duration = a.bool("modify_duration", true)?;
    if cycle <= 1 {
        return Err(Error::invalid("invalid cycle size (must be greater than 1)"));
    }
    if offsets.iter().any(|&o| o < 0 || o >= cycle) {
        return Err(Error::invalid("invalid offset specified"));
    }
    // Each source frame is read once unless an offset repeats (R81 declares the same).
    let mut sorted = offsets.clone();
    sorted.sort_unstable();
    let pattern = if sorted.windows(2).any(|w| w[0] == w[1]) { rpGeneral } else { rpNoFrameReuse };
    let len = vi.numFrames as i64;
    let full = len / cycle;
    // The last, partial cycle keeps the offsets that land inside the clip, in their order.
    let tail: Vec<i64> = offsets.iter().copied().filter(|&o| o < len % cycle).collect();
    let per = offsets.len() as i64;
    let total = full * per + tail.len() as i64;
    if total == 0 {
        return Err(Error::invalid("no frames to output, all offsets outside available frames"));
    }
    if total > i32::MAX as i64 {
        return Err(Error::invalid("resulting clip is too long"));
    }
    let mut ovi = vi;
    ovi.numFrames = total as i32;
    if modify_duration {
        scale_fps(&mut ovi, per, cycle);
    }
    let map = move |n: i32| {
        let n = n as i64;
        let src = if n < full * per { (n / per) * cycle + offsets[(n % per) as usize] } else { full * cycle + tail[(n - full * per) as usize] };
        (0, src as i32)
    };
    let duration = modify_duration.then_some((cycle, per));
    select(out, core, "SelectEvery", ovi, vec![clip], pattern, map, duration);
    Ok(())
}

fn delete_frames(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    let mut frames = a.ints("frames")?.unwrap_or_default();
    let len = vi.numFrames as i64;
    if frames.iter().any(|&f| f < 0 || f >= len) {
        return Err(Error::invalid("out of bounds frame number"));
    }
    frames.sort_unstable();
    if frames.windows(2).any(|w| w[0] == w[1]) {
        return Err(Error::invalid("can't delete a frame more than once"));
    }
    if frames.len() as i64 >= len {
        return Err(Error::invalid("can't delete all frames"));
    }
    let mut ovi = vi;
    ovi.numFrames = (len - frames.len() as i64) as i32;
    let deleted: Vec<i32> = frames.iter().map(|&f| f as i32).collect();
    let map = move |n: i32| {
        // the smallest source frame m with m - (deleted frames <= m) == n, m not deleted
        let mut m = n;
        for &d in &deleted {
            if d <= m {
                m += 1;
            } else {
                break;
            }
        }
        (0, m)
    };
    select(out, core, "DeleteFrames", ovi, vec![clip], rpNoFrameReuse, map, None);
    Ok(())
}

fn duplicate_frames(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    let mut frames = a.ints("frames")?.unwrap_or_default();
    let len = vi.numFrames as i64;
    if frames.iter().any(|&f| f < 0 || f >= len) {
        return Err(Error::invalid("out of bounds frame number"));
    }
    let total = len + frames.len() as i64;
    if total > i32::MAX as i64 {
        return Err(Error::invalid("resulting clip is too long"));
    }
    frames.sort_unstable();
    let mut ovi = vi;
    ovi.numFrames = total as i32;
    // The k-th extra copy (in sorted order) of source frame d_k sits at output position d_k + k + 1.
    let extras: Vec<i64> = frames.iter().enumerate().map(|(k, &d)| d + k as i64 + 1).collect();
    let map = move |n: i32| (0, n - extras.partition_point(|&e| e <= n as i64) as i32);
    select(out, core, "DuplicateFrames", ovi, vec![clip], rpGeneral, map, None);
    Ok(())
}

fn freeze_frames(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    let first = a.ints("first")?.unwrap_or_default();
    let last = a.ints("last")?.unwrap_or_default();
    let repl = a.ints("replacement")?.unwrap_or_default();
    if first.len() != last.len() || first.len() != repl.len() {
        return Err(Error::invalid("'first', 'last', and 'replacement' must have the same length."));
    }
    if first.is_empty() {
        out.set_node("clip", clip);
        return Ok(());
    }
    let len = vi.numFrames as i64;
    let mut ranges: Vec<(i64, i64, i64)> = Vec::new();
    for i in 0..first.len() {
        let (f, l) = (first[i].min(last[i]), first[i].max(last[i]));
        if f < 0 || l >= len || repl[i] < 0 || repl[i] >= len {
            return Err(Error::invalid("out of bounds frame number(s)"));
        }
        ranges.push((f, l, repl[i]));
    }
    ranges.sort_unstable();
    if ranges.windows(2).any(|w| w[1].0 <= w[0].1) {
        return Err(Error::invalid("the frame ranges must not overlap"));
    }
    let map = move |n: i32| {
        let n64 = n as i64;
        let i = ranges.partition_point(|r| r.0 <= n64);
        match i.checked_sub(1).map(|i| ranges[i]) {
            Some((_, l, r)) if n64 <= l => (0, r as i32),
            _ => (0, n),
        }
    };
    select(out, core, "FreezeFrames", vi, vec![clip], rpGeneral, map, None);
    Ok(())
}

// ---- AssumeFPS, SetVideoCache -------------------------------------------------------------------------

fn assume_fps(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let mut vi = video_info(&clip)?;
    let src = a.nodes("src")?.into_iter().next();
    let num = a.int("fpsnum")?;
    if src.is_some() == num.is_some() {
        return Err(Error::invalid("need to specify source clip or fps"));
    }
    let (num, den) = match &src {
        Some(s) => {
            let svi = video_info(s)?;
            (svi.fpsNum, svi.fpsDen)
        }
        None => (num.unwrap_or(0), a.int("fpsden")?.unwrap_or(1)),
    };
    if num <= 0 || den <= 0 {
        return Err(Error::invalid("invalid framerate specified"));
    }
    (vi.fpsNum, vi.fpsDen) = reduce(num, den);
    let (fnum, fden) = (vi.fpsNum, vi.fpsDen);
    props_filter_info(out, core, "AssumeFPS", clip, vi, move |props| {
        props.set_int("_DurationNum", fden);
        props.set_int("_DurationDen", fnum);
    });
    Ok(())
}

fn set_video_cache(a: &Args, _out: &mut Out, _core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    if let Some(m) = a.int("mode")? {
        clip.set_cache_mode(m.clamp(i32::MIN as i64, i32::MAX as i64) as i32);
    }
    let opt = |k: &str| a.int(k).map(|v| v.map_or(-1, |v| v.clamp(-1, i32::MAX as i64) as i32));
    clip.set_cache_options(opt("fixedsize")?, opt("maxsize")?, opt("maxhistory")?);
    Ok(())
}

// ---- DoubleWeave --------------------------------------------------------------------------------------

struct DoubleWeave {
    fmt: VSVideoFormat,
    ovi: VSVideoInfo,
    last: i32,
    tff: Option<bool>,
}

impl Filter for DoubleWeave {
    fn requests(&self, n: i32, _lengths: &[i32]) -> Vec<(usize, i32)> {
        vec![(0, n), (0, (n + 1).min(self.last))]
    }

    fn get_frame(&self, n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let (fmt, last) = (self.fmt, self.last);
        let (a, b) = match &frames[..] {
            [a, b] => (a, b),
            _ => return Err(Error::whole("internal error: a requested frame is missing")),
        };
        // The fields' own marks decide when they are a proper pair; the tff argument otherwise.
        let a_top = match (a.props().int("_Field"), b.props().int("_Field")) {
            (Some(fa), Some(fb)) if (fa != 0) != (fb != 0) => fa != 0,
            _ => match self.tff {
                Some(t) => (n % 2 == 0) == t,
                None => return Err(Error::whole("DoubleWeave: field order could not be determined from frame properties")),
            },
        };
        let b_index = (n + 1).min(last);
        let (top, bottom) = if a_top { (a, b) } else { (b, a) };
        let top_index = if a_top { n } else { b_index };
        let mut f = FrameMut::new_video(core, &fmt, self.ovi.width, self.ovi.height, Some(a)).map_err(|e| Error::whole(e.to_string()))?;
        let bps = fmt.bytesPerSample as usize;
        for p in 0..fmt.numPlanes as usize {
            let (t, bt) = (src_plane(top, p)?, src_plane(bottom, p)?);
            let d = dst_plane(&mut f, p)?;
            // SAFETY: `f` is ours; its plane has twice the rows of each field, rows as wide.
            unsafe {
                for y in 0..t.h {
                    std::ptr::copy_nonoverlapping(t.ptr.offset(y as isize * t.stride), d.ptr.offset((2 * y) as isize * d.stride), d.w * bps);
                    std::ptr::copy_nonoverlapping(bt.ptr.offset(y as isize * bt.stride), d.ptr.offset((2 * y + 1) as isize * d.stride), d.w * bps);
                }
            }
        }
        let mut props = f.props_mut();
        props.delete("_Field");
        props.set_int("_FieldBased", if top_index == n { 2 } else { 1 });
        Ok(f.freeze())
    }
}

fn double_weave(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = video_info(&clip)?;
    let tff = a.int("tff")?.map(|v| v != 0);
    if !is_constant(&vi) {
        return Err(Error::invalid("clip must have constant format and dimensions"));
    }
    let mut ovi = vi;
    ovi.height *= 2;
    let filter = DoubleWeave { fmt: vi.format, ovi, last: vi.numFrames - 1, tff };
    let node = on_host(core, vec![clip], |inputs| {
        filter::create_node_with_patterns(core, Spec { name: "DoubleWeave".into(), info: ovi, inputs, gpu_output: false }, &[rpGeneral], filter, fmParallel)
    })?;
    out.set_node("clip", node);
    Ok(())
}
