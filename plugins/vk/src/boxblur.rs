//! BoxBlur: `hpasses` horizontal then `vpasses` vertical box filters of width 2r+1, edge samples
//! repeated, passes ping-ponging through two scratch planes.
//!
//! Integer passes are exact: each sample's window sum in 32 bits (edge samples counted as often
//! as the window runs past the edge), divided rounding up on the first, third, ... pass of each
//! direction and down on the others, as std does. Float passes follow R81's running sum: one
//! invocation per row (or column) starts from r times the first sample plus samples 0..=r, then
//! takes one sample off and adds one on per step; half samples are rounded to half between
//! passes.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::{Error, Result};

use crate::conv::common;
use crate::kernel::*;
use crate::{finish, Reg};

pub fn register(r: &Reg) {
    r.function("BoxBlur", "clip:vnode:gpu;planes:int[]:opt;hradius:int:opt;hpasses:int:opt;vradius:int:opt;vpasses:int:opt;", box_blur);
}

/// An integer pass over one sample along `LEN` samples at `AT(i)`: `k0.x` radius, `k0.y` 1 to
/// round up. The window sum counts the edge samples as often as the window runs past them; with
/// std's largest radius, 30000, it and the rounding stay below 2^32 (60001 * 65535 + 60000).
const INT_PASS: &str = "
    uint R = uint(pc.k0.x), last = uint(LEN - 1), pos = uint(POS);
    uint s = 0u;
    if (R > pos) s += (R - pos) * uint(ld0(AT(0)));
    if (pos + R > last) s += (pos + R - last) * uint(ld0(AT(int(last))));
    for (uint i = pos > R ? pos - R : 0u; i <= min(pos + R, last); i++) s += uint(ld0(AT(int(i))));
    uint d = 2u * R + 1u;
    st(x, y, int((s + (pc.k0.y != 0 ? d - 1u : 0u)) / d));
";

/// A float pass over one row (`AT(i)` = (i, row)) of a plane `k0.z` x `k0.w`;
/// invocation (x, y) of a 16-wide grid takes line y * 16 + x.
const FLOAT_LINE: &str = "
    int ln = y * 16 + x;
    if (ln >= NLINES) return;
    int R = pc.k0.x, last = LEN - 1;
    float inv = uintBitsToFloat(uint(pc.k1.x));
    precise float v = ld0(AT(0)) * float(R);
    // k = 0..=R without overflowing k when R is the largest int
    for (int k = 0; k < R; k++) v = v + ld0(AT(min(k, last)));
    v = v + ld0(AT(min(R, last)));
    { precise float o = v * inv; st(AT(0), KEEP(o)); }
    for (int i = 1; i <= last; i++) {
        v = (v - ld0(AT(max(i - R - 1, 0)))) + ld0(AT(R > last - i ? last : i + R));
        precise float o = v * inv;
        st(AT(i), KEEP(o));
    }
";

fn box_blur(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let c = common(a)?;
    let hradius = a.int("hradius")?.unwrap_or(1);
    let hpasses = a.int("hpasses")?.unwrap_or(1);
    let vradius = a.int("vradius")?.unwrap_or(1);
    let vpasses = a.int("vpasses")?.unwrap_or(1);
    if hradius < 0 || vradius < 0 {
        return Err(Error::invalid("radius can't be negative"));
    }
    if hpasses < 0 || vpasses < 0 {
        return Err(Error::invalid("number of passes can't be negative"));
    }
    if hradius > 30000 || vradius > 30000 {
        return Err(Error::invalid("radius must be less than 30000"));
    }
    let h_on = hradius > 0 && hpasses > 0;
    let v_on = vradius > 0 && vpasses > 0;
    if !h_on && !v_on {
        return Err(Error::invalid("nothing to be performed"));
    }
    if c.vi.width < 4 || c.vi.height < 4 {
        return Err(Error::invalid("dimensions must be at least 4x4"));
    }
    let f = c.vi.format;
    let float = f.sampleType == stFloat;
    let (hpasses, vpasses) = (hpasses.min(i32::MAX as i64), vpasses.min(i32::MAX as i64));
    let mut passes: Vec<(bool, i32, bool)> = Vec::new(); // (vertical, radius, round up)
    if h_on {
        passes.extend((0..hpasses).map(|i| (false, hradius as i32, i % 2 == 0)));
    }
    if v_on {
        passes.extend((0..vpasses).map(|i| (true, vradius as i32, i % 2 == 0)));
    }
    let t = St::of(&f);
    let half = t == St::F16;
    // between passes: integers, or single floats (rounded to half for half samples)
    let mid = if float { St::F32 } else { St::I32 };
    let mut prog = Program::new(core, f, c.vi.width, c.vi.height)?;
    if passes.len() > 1 {
        prog.scratch.push(Scratch { w: c.vi.width, h: c.vi.height });
        prog.scratch.push(Scratch { w: c.vi.width, h: c.vi.height });
    }
    for p in 0..f.numPlanes as usize {
        if !c.planes[p] {
            prog.copies.push((0, p, p));
            continue;
        }
        let (pw, ph) = prog.plane_size(p);
        let last = passes.len() - 1;
        for (i, &(vertical, r, up)) in passes.iter().enumerate() {
            let src = if i == 0 { Src::Plane { input: 0, plane: p } } else { Src::Scratch((i - 1) % 2) };
            let dst = if i == last { Dst::Plane(p) } else { Dst::Scratch(i % 2) };
            let (st_src, st_dst) = (if i == 0 { t } else { mid }, if i == last { t } else { mid });
            let inv = 1.0f32 / (2 * r + 1) as f32;
            let (defines, code, grid) = if float {
                let lines = if vertical { pw } else { ph };
                let len = if vertical { ph } else { pw };
                let at = if vertical { "ln, (i)" } else { "(i), ln" };
                let keep = if half && i != last { "h2f(f2h(o))" } else { "o" };
                let defines = format!("#define NLINES {lines}\n#define LEN {len}\n#define AT(i) {at}\n#define KEEP(o) {keep}\n");
                (defines, FLOAT_LINE, (16, (lines + 15) / 16))
            } else {
                let (len, pos, at) = if vertical { (ph, "y", "x, (i)") } else { (pw, "x", "(i), y") };
                (format!("#define LEN {len}\n#define POS {pos}\n#define AT(i) {at}\n"), INT_PASS, (pw, ph))
            };
            let kern = prog.kernel(st_dst, &[st_src], &defines, "", code)?;
            let mut k = [0i32; 12];
            k[0] = r;
            k[1] = up as i32;
            k[4] = inv.to_bits() as i32;
            prog.jobs.push(Job { pipe: kern, dst, srcs: vec![src], grid, k, barrier: !prog.jobs.is_empty() });
        }
    }
    finish(out, core, "BoxBlur", c.vi, vec![c.clip], prog)
}
