//! Frame-level editing: Trim, Splice, Loop, Reverse, SelectEvery, Interleave, DeleteFrames,
//! DuplicateFrames, FreezeFrames, AssumeFPS, SeparateFields, DoubleWeave, AverageFrames,
//! SetFieldBased, SetVideoCache.
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use super::geometry::{dst_plane, format_name, gen_node, pixel_node, props_node, residency_mismatch, src_plane, Make, Requests};
use super::util::{is_constant, new_video, set_clip, video_info, Args};
use crate::core::Core;
use crate::frame::{Frame, Plane};
use crate::map::Map;
use crate::node::Node;

mod average;

pub fn register(r: &super::Registrar) {
    r.add("Trim", "clip:vnode:all;first:int:opt;last:int:opt;length:int:opt;", "clip:vnode:all;", trim);
    r.add("Splice", "clips:vnode[]:all;mismatch:int:opt;", "clip:vnode:all;", splice);
    r.add("Loop", "clip:vnode:all;times:int:opt;", "clip:vnode:all;", loop_);
    r.add("Reverse", "clip:vnode:all;", "clip:vnode:all;", reverse);
    r.add("SelectEvery", "clip:vnode:all;cycle:int;offsets:int[];modify_duration:int:opt;", "clip:vnode:all;", select_every);
    r.add("Interleave", "clips:vnode[]:all;extend:int:opt;mismatch:int:opt;modify_duration:int:opt;", "clip:vnode:all;", interleave);
    r.add("DeleteFrames", "clip:vnode:all;frames:int[];", "clip:vnode:all;", delete_frames);
    r.add("DuplicateFrames", "clip:vnode:all;frames:int[];", "clip:vnode:all;", duplicate_frames);
    r.add("FreezeFrames", "clip:vnode:all;first:int[]:empty;last:int[]:empty;replacement:int[]:empty;", "clip:vnode:all;", freeze_frames);
    r.add("AssumeFPS", "clip:vnode:all;src:vnode:all:opt;fpsnum:int:opt;fpsden:int:opt;", "clip:vnode:all;", assume_fps);
    r.add("SeparateFields", "clip:vnode:all;tff:int:opt;modify_duration:int:opt;", "clip:vnode:all;", separate_fields);
    r.add("DoubleWeave", "clip:vnode:all;tff:int:opt;", "clip:vnode:all;", double_weave);
    r.add("AverageFrames", "clips:vnode[]:all;weights:float[];scale:float:opt;scenechange:int:opt;planes:int[]:opt;", "clip:vnode:all;", average::average_frames);
    r.add("SetVideoCache", "clip:vnode:all;mode:int:opt;fixedsize:int:opt;maxsize:int:opt;maxhistory:int:opt;", "", set_video_cache);
}

// ---- shared pieces --------------------------------------------------------------------------------

fn vinfo(node: &Node) -> Result<VSVideoInfo, String> {
    video_info(node)
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

/// num/den in lowest terms (a zero numerator gives 0/1, as R81's reduction does).
pub(super) fn reduce(num: i64, den: i64) -> (i64, i64) {
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
fn scale_duration(props: &mut Map, mul: i64, div: i64) {
    let (Ok(num), Ok(den)) = (props.get_int(b"_DurationNum", 0), props.get_int(b"_DurationDen", 0)) else {
        return;
    };
    let (num, den) = reduce(num.saturating_mul(mul), den.saturating_mul(div));
    props.set_int("_DurationNum", num);
    props.set_int("_DurationDen", den);
}

/// A frame-selecting filter: output frame n is frame `map(n)` of one of the inputs, passed on as
/// it is (or with its duration scaled).
fn select_node(
    core: &Arc<Core>,
    name: &str,
    vi: VSVideoInfo,
    inputs: Vec<Arc<Node>>,
    pattern: i32,
    map: impl Fn(i32) -> (usize, i32) + Send + Sync + 'static,
    duration: Option<(i64, i64)>,
) -> Arc<Node> {
    let patterns = vec![pattern; inputs.len()];
    let requests: Requests = Box::new(move |n| vec![map(n)]);
    let make: Make = Box::new(move |_, frames, _| match duration {
        None => Ok(frames[0].clone()),
        Some((mul, div)) => {
            let f = frames[0].shallow_copy();
            // SAFETY: `f` is new and ours alone.
            scale_duration(unsafe { f.props_mut() }, mul, div);
            Ok(Arc::new(f))
        }
    });
    gen_node(core, name, vi, inputs, patterns, requests, make)
}

// ---- Trim, Loop, Reverse ---------------------------------------------------------------------------

fn trim(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = vinfo(&clip)?;
    let (first, last, length) = (a.int("first"), a.int("last"), a.int("length"));
    if last.is_some() && length.is_some() {
        return Err("both last frame and length specified".into());
    }
    let len = vi.numFrames as i64;
    let first = first.unwrap_or(0);
    if first < 0 {
        return Err("invalid first frame specified (less than 0)".into());
    }
    if first >= len {
        return Err("invalid first frame specified (beyond clip end)".into());
    }
    if let Some(l) = last {
        if l < first {
            return Err("invalid last frame specified (last is less than first)".into());
        }
    }
    if let Some(l) = length {
        if l < 1 {
            return Err("invalid length specified (less than 1)".into());
        }
    }
    let last = match (last, length) {
        (Some(l), _) => l,
        (None, Some(n)) => first.saturating_add(n - 1),
        _ => len - 1,
    };
    if last >= len {
        return Err("last frame beyond clip end".into());
    }
    if first == 0 && last == len - 1 {
        set_clip(out, clip);
        return Ok(());
    }
    let mut ovi = vi;
    ovi.numFrames = (last - first + 1) as i32;
    let first = first as i32;
    set_clip(out, select_node(core, "Trim", ovi, vec![clip], rpNoFrameReuse, move |n| (0, n + first), None));
    Ok(())
}

fn loop_(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = vinfo(&clip)?;
    let times = a.int("times").unwrap_or(0);
    if times < 0 {
        return Err("cannot repeat clip a negative number of times".into());
    }
    if times == 1 {
        set_clip(out, clip);
        return Ok(());
    }
    let len = vi.numFrames;
    let total = if times == 0 { i32::MAX as i64 } else { len as i64 * times };
    if total > i32::MAX as i64 {
        return Err("resulting clip is too long".into());
    }
    let mut ovi = vi;
    ovi.numFrames = total as i32;
    set_clip(out, select_node(core, "Loop", ovi, vec![clip], rpGeneral, move |n| (0, n % len), None));
    Ok(())
}

fn reverse(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let clip = Args(input).node("clip")?;
    let vi = vinfo(&clip)?;
    let last = vi.numFrames - 1;
    set_clip(out, select_node(core, "Reverse", vi, vec![clip], rpNoFrameReuse, move |n| (0, last - n), None));
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

fn splice(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clips = a.nodes("clips");
    let mismatch = a.bool("mismatch", false);
    if clips.len() == 1 {
        set_clip(out, clips[0].clone());
        return Ok(());
    }
    if let Some(m) = residency_mismatch(&clips) {
        return Err(m);
    }
    let infos: Vec<VSVideoInfo> = clips.iter().map(|c| vinfo(c)).collect::<Result<_, _>>()?;
    if !mismatch {
        if let Some(m) = mismatch_message("Splice", &infos, false) {
            out.set_error(&m);
            return Ok(());
        }
    }
    let total: i64 = infos.iter().map(|v| v.numFrames as i64).sum();
    if total > i32::MAX as i64 {
        return Err("the resulting clip is too long".into());
    }
    let mut vi = merged_info(&infos);
    vi.numFrames = total as i32;
    let starts: Vec<i32> = infos.iter().scan(0i32, |s, v| {
        let here = *s;
        *s += v.numFrames;
        Some(here)
    }).collect();
    let map = move |n: i32| {
        let i = starts.partition_point(|&s| s <= n) - 1;
        (i, n - starts[i])
    };
    set_clip(out, select_node(core, "Splice", vi, clips, rpNoFrameReuse, map, None));
    Ok(())
}

fn interleave(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clips = a.nodes("clips");
    let extend = a.bool("extend", false);
    let mismatch = a.bool("mismatch", false);
    let modify_duration = a.bool("modify_duration", true);
    if clips.len() == 1 {
        set_clip(out, clips[0].clone());
        return Ok(());
    }
    if let Some(m) = residency_mismatch(&clips) {
        return Err(m);
    }
    let infos: Vec<VSVideoInfo> = clips.iter().map(|c| vinfo(c)).collect::<Result<_, _>>()?;
    if !mismatch {
        if let Some(m) = mismatch_message("Interleave", &infos, true) {
            out.set_error(&m);
            return Ok(());
        }
    }
    let count = clips.len() as i64;
    let total = if extend {
        infos.iter().map(|v| v.numFrames as i64).max().unwrap_or(0) * count
    } else {
        infos.iter().enumerate().map(|(i, v)| (v.numFrames as i64 - 1) * count + i as i64 + 1).max().unwrap_or(0)
    };
    if total > i32::MAX as i64 {
        return Err("resulting clip is too long".into());
    }
    let mut vi = merged_info(&infos);
    vi.numFrames = total as i32;
    if modify_duration {
        scale_fps(&mut vi, count, 1);
    }
    let n_clips = clips.len() as i32;
    let duration = modify_duration.then_some((1, count));
    set_clip(out, select_node(core, "Interleave", vi, clips, rpNoFrameReuse, move |n| ((n % n_clips) as usize, n / n_clips), duration));
    Ok(())
}

// ---- SelectEvery, DeleteFrames, DuplicateFrames, FreezeFrames ----------------------------------------

fn select_every(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = vinfo(&clip)?;
    let cycle = a.int("cycle").unwrap_or(0);
    let offsets = a.ints("offsets").unwrap_or_default();
    let modify_duration = a.bool("modify_duration", true);
    if cycle <= 1 {
        return Err("invalid cycle size (must be greater than 1)".into());
    }
    if offsets.iter().any(|&o| o < 0 || o >= cycle) {
        return Err("invalid offset specified".into());
    }
    let len = vi.numFrames as i64;
    let full = len / cycle;
    // The last, partial cycle keeps the offsets that land inside the clip, in their order.
    let tail: Vec<i64> = offsets.iter().copied().filter(|&o| o < len % cycle).collect();
    let per = offsets.len() as i64;
    let total = full * per + tail.len() as i64;
    if total == 0 {
        return Err("no frames to output, all offsets outside available frames".into());
    }
    if total > i32::MAX as i64 {
        return Err("resulting clip is too long".into());
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
    set_clip(out, select_node(core, "SelectEvery", ovi, vec![clip], rpGeneral, map, duration));
    Ok(())
}

fn delete_frames(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = vinfo(&clip)?;
    let mut frames = a.ints("frames").unwrap_or_default();
    let len = vi.numFrames as i64;
    if frames.iter().any(|&f| f < 0 || f >= len) {
        return Err("out of bounds frame number".into());
    }
    frames.sort_unstable();
    if frames.windows(2).any(|w| w[0] == w[1]) {
        return Err("can't delete a frame more than once".into());
    }
    if frames.len() as i64 >= len {
        return Err("can't delete all frames".into());
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
    set_clip(out, select_node(core, "DeleteFrames", ovi, vec![clip], rpNoFrameReuse, map, None));
    Ok(())
}

fn duplicate_frames(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = vinfo(&clip)?;
    let mut frames = a.ints("frames").unwrap_or_default();
    let len = vi.numFrames as i64;
    if frames.iter().any(|&f| f < 0 || f >= len) {
        return Err("out of bounds frame number".into());
    }
    let total = len + frames.len() as i64;
    if total > i32::MAX as i64 {
        return Err("resulting clip is too long".into());
    }
    frames.sort_unstable();
    let mut ovi = vi;
    ovi.numFrames = total as i32;
    // The k-th extra copy (in sorted order) of source frame d_k sits at output position d_k + k + 1.
    let extras: Vec<i64> = frames.iter().enumerate().map(|(k, &d)| d + k as i64 + 1).collect();
    let map = move |n: i32| (0, n - extras.partition_point(|&e| e <= n as i64) as i32);
    set_clip(out, select_node(core, "DuplicateFrames", ovi, vec![clip], rpGeneral, map, None));
    Ok(())
}

fn freeze_frames(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = vinfo(&clip)?;
    let first = a.ints("first").unwrap_or_default();
    let last = a.ints("last").unwrap_or_default();
    let repl = a.ints("replacement").unwrap_or_default();
    if first.len() != last.len() || first.len() != repl.len() {
        return Err("'first', 'last', and 'replacement' must have the same length.".into());
    }
    if first.is_empty() {
        set_clip(out, clip);
        return Ok(());
    }
    let len = vi.numFrames as i64;
    let mut ranges: Vec<(i64, i64, i64)> = Vec::new();
    for i in 0..first.len() {
        let (f, l) = (first[i].min(last[i]), first[i].max(last[i]));
        if f < 0 || l >= len || repl[i] < 0 || repl[i] >= len {
            return Err("out of bounds frame number(s)".into());
        }
        ranges.push((f, l, repl[i]));
    }
    ranges.sort_unstable();
    if ranges.windows(2).any(|w| w[1].0 <= w[0].1) {
        return Err("the frame ranges must not overlap".into());
    }
    let map = move |n: i32| {
        let n64 = n as i64;
        let i = ranges.partition_point(|r| r.0 <= n64);
        match i.checked_sub(1).map(|i| ranges[i]) {
            Some((_, l, r)) if n64 <= l => (0, r as i32),
            _ => (0, n),
        }
    };
    set_clip(out, select_node(core, "FreezeFrames", vi, vec![clip], rpGeneral, map, None));
    Ok(())
}

// ---- AssumeFPS, SetFieldBased, SetVideoCache ----------------------------------------------------------

fn assume_fps(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let mut vi = vinfo(&clip)?;
    let src = a.opt_node("src");
    let num = a.int("fpsnum");
    if src.is_some() == num.is_some() {
        return Err("need to specify source clip or fps".into());
    }
    let (num, den) = match &src {
        Some(s) => {
            let svi = vinfo(s)?;
            (svi.fpsNum, svi.fpsDen)
        }
        None => (num.unwrap_or(0), a.int("fpsden").unwrap_or(1)),
    };
    if num <= 0 || den <= 0 {
        return Err("invalid framerate specified".into());
    }
    (vi.fpsNum, vi.fpsDen) = reduce(num, den);
    let (fnum, fden) = (vi.fpsNum, vi.fpsDen);
    let node = props_node(core, "AssumeFPS", vi, clip, move |f, _| {
        let f = f.shallow_copy();
        // SAFETY: `f` is new and ours alone.
        let props = unsafe { f.props_mut() };
        props.set_int("_DurationNum", fden);
        props.set_int("_DurationDen", fnum);
        Ok(Arc::new(f))
    });
    set_clip(out, node);
    Ok(())
}

fn set_video_cache(input: &Map, _out: &mut Map, _core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let mut cache = clip.cache.lock();
    if let Some(m) = a.int("mode") {
        cache.set_mode(m.clamp(i32::MIN as i64, i32::MAX as i64) as i32);
    }
    let opt = |k: &str| a.int(k).map_or(-1, |v| v.clamp(-1, i32::MAX as i64) as i32);
    cache.set_options(opt("fixedsize"), opt("maxsize"), opt("maxhistory"));
    Ok(())
}

// ---- fields ------------------------------------------------------------------------------------------

fn int_prop(f: &Frame, key: &str) -> Option<i64> {
    f.props().get_int(key.as_bytes(), 0).ok()
}

fn separate_fields(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = vinfo(&clip)?;
    let tff = a.int("tff").map(|v| v != 0);
    let modify_duration = a.bool("modify_duration", true);
    if !is_constant(&vi) {
        return Err("clip must have constant format and dimensions".into());
    }
    if vi.height % (2 << vi.format.subSamplingH) != 0 {
        return Err("clip height must be mod 2 in the smallest subsampled plane".into());
    }
    if vi.numFrames as i64 * 2 > i32::MAX as i64 {
        return Err("resulting clip is too long".into());
    }
    let mut ovi = vi;
    ovi.numFrames *= 2;
    ovi.height /= 2;
    if modify_duration {
        scale_fps(&mut ovi, 2, 1);
    }
    let fmt = vi.format;
    let requests: Requests = Box::new(|n| vec![(0, n / 2)]);
    let make: Make = Box::new(move |n, frames, core| {
        let src = &frames[0];
        let top_first = match int_prop(src, "_FieldBased") {
            Some(1) => false,
            Some(2) => true,
            _ => tff.ok_or("SeparateFields: no field order provided")?,
        };
        // The first field of a frame is the top one when top field first.
        let top = (n % 2 == 0) == top_first;
        let f = new_video(core, &fmt, ovi.width, ovi.height, Some(src))?;
        // The field is every other row of the frame: its planes are shared, with twice the stride.
        for p in 0..fmt.numPlanes as usize {
            let pl = &src.planes()[p];
            let field = Plane {
                buf: pl.buf.clone(),
                offset: if top { pl.offset } else { (pl.offset as isize + pl.stride) as usize },
                stride: pl.stride * 2,
                width: pl.width,
                height: pl.height / 2,
            };
            // SAFETY: `f` is new and ours; the plane has the dimensions of the field's plane.
            unsafe { f.set_plane(p, field) };
        }
        // SAFETY: as above.
        let props = unsafe { f.props_mut() };
        props.delete(b"_FieldBased");
        props.set_int("_Field", top as i64);
        if modify_duration {
            scale_duration(props, 1, 2);
        }
        Ok(Arc::new(f))
    });
    set_clip(out, pixel_node(core, "SeparateFields", ovi, vec![clip], vec![rpGeneral], requests, make)?);
    Ok(())
}

fn double_weave(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let vi = vinfo(&clip)?;
    let tff = a.int("tff").map(|v| v != 0);
    if !is_constant(&vi) {
        return Err("clip must have constant format and dimensions".into());
    }
    let mut ovi = vi;
    ovi.height *= 2;
    let fmt = vi.format;
    let last = vi.numFrames - 1;
    let requests: Requests = Box::new(move |n| vec![(0, n), (0, (n + 1).min(last))]);
    let make: Make = Box::new(move |n, frames, core| {
        let (a, b) = (&frames[0], &frames[1]);
        // The fields' own marks decide when they are a proper pair; the tff argument otherwise.
        let a_top = match (int_prop(a, "_Field"), int_prop(b, "_Field")) {
            (Some(fa), Some(fb)) if (fa != 0) != (fb != 0) => fa != 0,
            _ => match tff {
                Some(t) => (n % 2 == 0) == t,
                None => return Err("DoubleWeave: field order could not be determined from frame properties".into()),
            },
        };
        let b_index = (n + 1).min(last);
        let (top, bottom) = if a_top { (a, b) } else { (b, a) };
        let top_index = if a_top { n } else { b_index };
        let f = new_video(core, &fmt, ovi.width, ovi.height, Some(a))?;
        let bps = fmt.bytesPerSample as usize;
        for p in 0..fmt.numPlanes as usize {
            let (t, bt) = (src_plane(top, p), src_plane(bottom, p));
            // SAFETY: `f` is ours; its plane has twice the rows of each field.
            unsafe {
                let d = dst_plane(&f, p);
                for y in 0..t.h {
                    std::ptr::copy_nonoverlapping(t.ptr.offset(y as isize * t.stride), d.ptr.offset((2 * y) as isize * d.stride), d.w * bps);
                    std::ptr::copy_nonoverlapping(bt.ptr.offset(y as isize * bt.stride), d.ptr.offset((2 * y + 1) as isize * d.stride), d.w * bps);
                }
            }
        }
        // SAFETY: as above.
        let props = unsafe { f.props_mut() };
        props.delete(b"_Field");
        props.set_int("_FieldBased", if top_index == n { 2 } else { 1 });
        Ok(Arc::new(f))
    });
    set_clip(out, pixel_node(core, "DoubleWeave", ovi, vec![clip], vec![rpGeneral], requests, make)?);
    Ok(())
}

