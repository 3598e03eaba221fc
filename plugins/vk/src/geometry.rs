//! Crop, AddBorders, FlipVertical, FlipHorizontal, Turn180, Transpose, StackHorizontal,
//! StackVertical, ShufflePlanes. They move samples without looking at them, so every format is
//! handled as raw integers of its size and the output is std's bit for bit.
//!
//! One kernel does all of them: output sample (x, y) + offset takes source sample
//! (ax*x + bx*y + cx, ay*x + by*y + cy), or a fill value where that lies outside the source.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::node::Node;
use vsvk_plugin_api::{Error, Result};

use crate::kernel::*;
use crate::{finish, Reg};

pub fn register(r: &Reg) {
    r.function("Crop", "clip:vnode:gpu;left:int:opt;right:int:opt;top:int:opt;bottom:int:opt;", crop);
    r.function("AddBorders", "clip:vnode:gpu;left:int:opt;right:int:opt;top:int:opt;bottom:int:opt;color:float[]:opt;", add_borders);
    r.function("FlipVertical", "clip:vnode:gpu;", |a, o, c| orient(a, o, c, "FlipVertical"));
    r.function("FlipHorizontal", "clip:vnode:gpu;", |a, o, c| orient(a, o, c, "FlipHorizontal"));
    r.function("Turn180", "clip:vnode:gpu;", |a, o, c| orient(a, o, c, "Turn180"));
    r.function("Transpose", "clip:vnode:gpu;", |a, o, c| orient(a, o, c, "Transpose"));
    r.function("StackHorizontal", "clips:vnode[]:gpu;", |a, o, c| stack(a, o, c, false));
    r.function("StackVertical", "clips:vnode[]:gpu;", |a, o, c| stack(a, o, c, true));
    r.function("ShufflePlanes", "clips:vnode[]:gpu;planes:int[];colorfamily:int;prop_src:vnode:gpu:opt;", shuffle);
}

const REMAP: &str = "int sx = pc.k0.x * x + pc.k0.y * y + pc.k0.z, sy = pc.k1.x * x + pc.k1.y * y + pc.k1.z;
    if (sx < 0 || sy < 0 || sx >= pc.k0.w || sy >= pc.k1.w) { if (pc.k2.w != 0) st(x + pc.k2.x, y + pc.k2.y, pc.k2.z); }
    else st(x + pc.k2.x, y + pc.k2.y, ld0(sx, sy));";

/// The source position of output (x, y) and what to do outside the source.
#[derive(Clone, Copy)]
struct Map {
    a: [i32; 3],
    b: [i32; 3],
    src: (i32, i32),
    offset: (i32, i32),
    fill: Option<i32>,
}

impl Map {
    fn shift(dx: i32, dy: i32, src: (i32, i32)) -> Map {
        Map { a: [1, 0, dx], b: [0, 1, dy], src, offset: (0, 0), fill: None }
    }
}

fn add(prog: &mut Program, input: usize, plane: usize, grid: (i32, i32), m: Map) -> Result<()> {
    let t = St::of(&prog.format).raw();
    let k = prog.kernel(t, &[t], "", "", REMAP)?;
    let mut kk = [0i32; 12];
    kk[0..3].copy_from_slice(&m.a);
    kk[3] = m.src.0;
    kk[4..7].copy_from_slice(&m.b);
    kk[7] = m.src.1;
    kk[8] = m.offset.0;
    kk[9] = m.offset.1;
    kk[10] = m.fill.unwrap_or(0);
    kk[11] = m.fill.is_some() as i32;
    prog.jobs.push(Job { pipe: k, dst: Dst::Plane(plane), srcs: vec![Src::Plane { input, plane }], grid, k: kk, barrier: false });
    Ok(())
}

fn constant(vi: &VSVideoInfo) -> Result<()> {
    if vi.format.colorFamily == cfUndefined || vi.width <= 0 || vi.height <= 0 {
        return Err(Error::invalid("the clip must have constant format and dimensions"));
    }
    Ok(())
}

fn crop(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = clip.video_info()?;
    constant(&vi)?;
    let f = vi.format;
    let [l, r, t, b] = ["left", "right", "top", "bottom"].map(|k| a.int(k).map(|v| v.unwrap_or(0)));
    let (l, r, t, b) = (l?, r?, t?, b?);
    let (w, h) = (vi.width as i64 - l - r, vi.height as i64 - t - b);
    let (mw, mh) = (1i64 << f.subSamplingW, 1i64 << f.subSamplingH);
    if t % mh != 0 {
        return Err(Error::invalid(format!("cropped area needs to have mod {mh} height offset")));
    }
    if l % mw != 0 {
        return Err(Error::invalid(format!("cropped area needs to have mod {mw} width offset")));
    }
    if h % mh != 0 {
        return Err(Error::invalid(format!("cropped area needs to have mod {mh} height")));
    }
    if w % mw != 0 {
        return Err(Error::invalid(format!("cropped area needs to have mod {mw} width")));
    }
    if w <= 0 || h <= 0 {
        return Err(Error::invalid("negative/zero cropping dimensions not allowed"));
    }
    if l < 0 || t < 0 {
        return Err(Error::invalid("negative corner coordinates not allowed"));
    }
    if l + w > vi.width as i64 || t + h > vi.height as i64 {
        return Err(Error::invalid("cropped area extends beyond frame dimensions"));
    }
    let mut prog = Program::new(core, f, w as i32, h as i32)?;
    for p in 0..f.numPlanes as usize {
        let (sx, sy) = if p == 0 { (0, 0) } else { (f.subSamplingW, f.subSamplingH) };
        let src = plane_size(&f, vi.width, vi.height, p);
        let grid = prog.plane_size(p);
        add(&mut prog, 0, p, grid, Map::shift((l >> sx) as i32, (t >> sy) as i32, src))?;
    }
    finish(out, core, "Crop", vi, vec![clip], prog)
}

/// The raw sample for a colour value (std's rounding and range checks).
fn color_sample(f: &VSVideoFormat, v: f64) -> Option<i32> {
    if f.sampleType == stInteger {
        let r = (v + 0.5).floor();
        (v >= 0.0 && !r.is_nan() && r <= ((1u64 << f.bitsPerSample) - 1) as f64).then_some(r as i32)
    } else if f.bytesPerSample == 2 {
        let h = half_bits(v as f32);
        (h & 0x7c00 != 0x7c00).then_some(h as i32)
    } else {
        let x = v as f32;
        x.is_finite().then_some(x.to_bits() as i32)
    }
}

/// Single to half precision, round to nearest even.
pub fn half_bits(f: f32) -> u16 {
    let x = f.to_bits();
    let s = ((x >> 16) & 0x8000) as u16;
    let e = ((x >> 23) & 0xff) as i32;
    let mut m = x & 0x7f_ffff;
    if e == 255 {
        return s | 0x7c00 | if m != 0 { 0x200 | (m >> 13) as u16 } else { 0 };
    }
    let ee = e - 112;
    if ee >= 31 {
        return s | 0x7c00;
    }
    if ee <= 0 {
        if ee < -10 {
            return s;
        }
        m |= 0x80_0000;
        let sh = (14 - ee) as u32;
        let (mut hm, rem, half) = (m >> sh, m & ((1 << sh) - 1), 1u32 << (sh - 1));
        if rem > half || (rem == half && hm & 1 != 0) {
            hm += 1;
        }
        return s | hm as u16;
    }
    let (hm, rem) = (m >> 13, m & 0x1fff);
    let mut h = s as u32 | ((ee as u32) << 10) | hm;
    if rem > 0x1000 || (rem == 0x1000 && hm & 1 != 0) {
        h += 1;
    }
    h as u16
}

fn add_borders(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = clip.video_info()?;
    constant(&vi)?;
    let f = vi.format;
    let [l, r, t, b] = ["left", "right", "top", "bottom"].map(|k| a.int(k).map(|v| v.unwrap_or(0)));
    let (l, r, t, b) = (l?, r?, t?, b?);
    if l < 0 || r < 0 || t < 0 || b < 0 {
        return Err(Error::invalid("border size to add must not be negative"));
    }
    let (mw, mh) = (1i64 << f.subSamplingW, 1i64 << f.subSamplingH);
    if t % mh != 0 || b % mh != 0 {
        return Err(Error::invalid(format!("added area needs to have mod {mh} height")));
    }
    if l % mw != 0 || r % mw != 0 {
        return Err(Error::invalid(format!("added area needs to have mod {mw} width")));
    }
    let mut color = [0i32; 3];
    if f.colorFamily == cfYUV && f.sampleType == stInteger {
        color[1] = 1 << (f.bitsPerSample - 1);
        color[2] = color[1];
    }
    if let Some(c) = a.floats("color")? {
        if c.len() != f.numPlanes as usize {
            return Err(Error::invalid("invalid number of color values specified"));
        }
        for (i, &v) in c.iter().enumerate() {
            color[i] = color_sample(&f, v).ok_or_else(|| Error::invalid("color value out of range"))?;
        }
    }
    let (w, h) = (vi.width as i64 + l + r, vi.height as i64 + t + b);
    if w > i32::MAX as i64 || h > i32::MAX as i64 {
        return Err(Error::invalid("resulting frame is too big"));
    }
    let mut prog = Program::new(core, f, w as i32, h as i32)?;
    for p in 0..f.numPlanes as usize {
        let (sx, sy) = if p == 0 { (0, 0) } else { (f.subSamplingW, f.subSamplingH) };
        let src = plane_size(&f, vi.width, vi.height, p);
        let grid = prog.plane_size(p);
        let mut m = Map::shift(-((l >> sx) as i32), -((t >> sy) as i32), src);
        m.fill = Some(color[p]);
        add(&mut prog, 0, p, grid, m)?;
    }
    finish(out, core, "AddBorders", vi, vec![clip], prog)
}

fn orient(a: &Args, out: &mut Out, core: Core, name: &str) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = clip.video_info()?;
    constant(&vi)?;
    let f = vi.format;
    let swap = name == "Transpose";
    let (of, w, h) = if swap {
        let of = core
            .query_video_format(f.colorFamily, f.sampleType, f.bitsPerSample, f.subSamplingH, f.subSamplingW)
            .ok_or_else(|| Error::invalid("the transposed format is not valid"))?;
        (of, vi.height, vi.width)
    } else {
        (f, vi.width, vi.height)
    };
    let mut prog = Program::new(core, of, w, h)?;
    for p in 0..f.numPlanes as usize {
        let src = plane_size(&f, vi.width, vi.height, p);
        let (sw, sh) = src;
        let m = match name {
            "FlipVertical" => Map { a: [1, 0, 0], b: [0, -1, sh - 1], src, offset: (0, 0), fill: None },
            "FlipHorizontal" => Map { a: [-1, 0, sw - 1], b: [0, 1, 0], src, offset: (0, 0), fill: None },
            "Turn180" => Map { a: [-1, 0, sw - 1], b: [0, -1, sh - 1], src, offset: (0, 0), fill: None },
            _ => Map { a: [0, 1, 0], b: [1, 0, 0], src, offset: (0, 0), fill: None },
        };
        let grid = prog.plane_size(p);
        add(&mut prog, 0, p, grid, m)?;
    }
    let mut ovi = vi;
    ovi.format = of;
    finish(out, core, name, ovi, vec![clip], prog)
}

fn stack(a: &Args, out: &mut Out, core: Core, vertical: bool) -> Result<()> {
    let clips = a.nodes("clips")?;
    let infos: Vec<VSVideoInfo> = clips.iter().map(|c| c.video_info()).collect::<Result<_>>()?;
    let first = infos[0];
    for vi in &infos {
        constant(vi)?;
        let fits = if vertical { vi.width == first.width } else { vi.height == first.height };
        if vi.format != first.format || !fits {
            return Err(Error::invalid(format!("clip format and {} must match", if vertical { "width" } else { "height" })));
        }
    }
    let total: i64 = infos.iter().map(|v| if vertical { v.height as i64 } else { v.width as i64 }).sum();
    if total > i32::MAX as i64 {
        return Err(Error::invalid("resulting frame is too big"));
    }
    let f = first.format;
    let (w, h) = if vertical { (first.width, total as i32) } else { (total as i32, first.height) };
    let mut prog = Program::new(core, f, w, h)?;
    for p in 0..f.numPlanes as usize {
        let mut pos = 0;
        for (i, vi) in infos.iter().enumerate() {
            let src = plane_size(&f, vi.width, vi.height, p);
            let mut m = Map::shift(0, 0, src);
            m.offset = if vertical { (0, pos) } else { (pos, 0) };
            add(&mut prog, i, p, src, m)?;
            pos += if vertical { src.1 } else { src.0 };
        }
    }
    let mut vi = first;
    vi.numFrames = infos.iter().map(|v| v.numFrames).max().unwrap_or(0);
    finish(out, core, if vertical { "StackVertical" } else { "StackHorizontal" }, vi, clips, prog)
}

fn shuffle(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clips = a.nodes("clips")?;
    let planes = a.ints("planes")?.unwrap_or_default();
    let cf = match a.int("colorfamily")?.unwrap_or(0) {
        1 => cfGray,
        2 => cfRGB,
        3 => cfYUV,
        _ => return Err(Error::invalid("invalid output colorfamily")),
    };
    let n_out = if cf == cfGray { 1 } else { 3 };
    if clips.is_empty() || clips.len() > n_out {
        return Err(Error::invalid("1-3 clips need to be specified"));
    }
    if planes.len() > n_out {
        return Err(Error::invalid("too many planes specified"));
    }
    let infos: Vec<VSVideoInfo> = clips.iter().map(|c| c.video_info()).collect::<Result<_>>()?;
    for vi in &infos {
        constant(vi)?;
    }
    let mut sel = Vec::new();
    for i in 0..n_out {
        let c = i.min(clips.len() - 1);
        let p = planes.get(i).copied().unwrap_or(0);
        if p < 0 || p >= infos[c].format.numPlanes as i64 {
            return Err(Error::invalid("invalid plane specified"));
        }
        sel.push((c, p as usize));
    }
    let psize = |(c, p): (usize, usize)| plane_size(&infos[c].format, infos[c].width, infos[c].height, p);
    let f0 = infos[sel[0].0].format;
    let (w, h) = psize(sel[0]);
    let fmt = if cf == cfGray {
        core.query_video_format(cfGray, f0.sampleType, f0.bitsPerSample, 0, 0)
    } else {
        let (s1, s2) = (psize(sel[1]), psize(sel[2]));
        if s1 != s2 {
            return Err(Error::invalid("plane 1 and 2 do not have the same size"));
        }
        let ss = |full: i32, part: i32| (0..=4).find(|&s| part << s == full);
        let (Some(ssw), Some(ssh)) = (ss(w, s1.0), ss(h, s1.1)) else {
            return Err(Error::invalid("plane 1 and 2 are not subsampled multiples of first plane"));
        };
        for &(c, _) in &sel[1..] {
            let f = infos[c].format;
            if f.sampleType != f0.sampleType || f.bitsPerSample != f0.bitsPerSample {
                return Err(Error::invalid("plane 1 and 2 do not have binary compatible storage"));
            }
        }
        if cf == cfRGB && (ssw != 0 || ssh != 0) {
            return Err(Error::invalid("subsampled RGB not allowed"));
        }
        core.query_video_format(cf, f0.sampleType, f0.bitsPerSample, ssw, ssh)
    }
    .ok_or_else(|| Error::invalid("the resulting format is not valid"))?;
    let mut prog = Program::new(core, fmt, w, h)?;
    for (i, &(c, p)) in sel.iter().enumerate() {
        prog.copies.push((c, p, i));
    }
    let mut inputs: Vec<Node> = clips;
    if let Some(ps) = a.nodes("prop_src")?.into_iter().next() {
        inputs.push(ps);
        prog.props_from = inputs.len() - 1;
    }
    let mut vi = infos[0];
    vi.numFrames = infos.iter().map(|v| v.numFrames).max().unwrap_or(0);
    finish(out, core, "ShufflePlanes", vi, inputs, prog)
}
