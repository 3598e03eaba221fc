//! Minimum, Maximum, Median, Inflate, Deflate: 3x3 neighbourhoods, edge samples repeated, with
//! std's thresholds and R81's order of float additions (its SIMD build, the default), so every
//! format gives std's output exactly: the integer paths are integer arithmetic and the float
//! paths are comparisons and `precise` additions in the same order.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::{Error, Result};

use crate::kernel::*;
use crate::{finish, Reg};

pub fn register(r: &Reg) {
    r.function("Minimum", "clip:vnode:gpu;planes:int[]:opt;threshold:float:opt;coordinates:int[]:opt;", |a, o, c| morph(a, o, c, Op::Min));
    r.function("Maximum", "clip:vnode:gpu;planes:int[]:opt;threshold:float:opt;coordinates:int[]:opt;", |a, o, c| morph(a, o, c, Op::Max));
    r.function("Median", "clip:vnode:gpu;planes:int[]:opt;", |a, o, c| morph(a, o, c, Op::Median));
    r.function("Inflate", "clip:vnode:gpu;planes:int[]:opt;threshold:float:opt;", |a, o, c| morph(a, o, c, Op::Inflate));
    r.function("Deflate", "clip:vnode:gpu;planes:int[]:opt;threshold:float:opt;", |a, o, c| morph(a, o, c, Op::Deflate));
}

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Min,
    Max,
    Median,
    Inflate,
    Deflate,
}

/// The nine window samples v0..v8 (row by row, centre v4), edges repeated; neighbours left out
/// by `coordinates` read the centre, which changes neither a minimum nor a maximum.
fn window(coords: [bool; 8], ty: &str) -> String {
    let mut s = format!("int xl = max(x - 1, 0), xr = min(x + 1, W - 1), yu = max(y - 1, 0), yd = min(y + 1, H - 1);\n    {ty} v4 = ld0(x, y);\n");
    let pos = [("xl", "yu"), ("x", "yu"), ("xr", "yu"), ("xl", "y"), ("xr", "y"), ("xl", "yd"), ("x", "yd"), ("xr", "yd")];
    let names = [0, 1, 2, 3, 5, 6, 7, 8];
    for (n, &(px, py)) in pos.iter().enumerate() {
        if coords[n] {
            s += &format!("    {ty} v{} = ld0({px}, {py});\n", names[n]);
        } else {
            s += &format!("    {ty} v{} = v4;\n", names[n]);
        }
    }
    s
}

const MEDIAN: &str = "
#define CX(a, b) { T t_ = a; a = MN(t_, b); b = MX(t_, b); }
T median9(T p0, T p1, T p2, T p3, T p4, T p5, T p6, T p7, T p8) {
    CX(p1, p2) CX(p4, p5) CX(p7, p8) CX(p0, p1) CX(p3, p4) CX(p6, p7) CX(p1, p2) CX(p4, p5) CX(p7, p8)
    CX(p0, p3) CX(p5, p8) CX(p4, p7) CX(p3, p6) CX(p1, p4) CX(p2, p5) CX(p4, p7) CX(p4, p2) CX(p6, p4) CX(p4, p2)
    return p4;
}
";

fn morph(a: &Args, out: &mut Out, core: Core, op: Op) -> Result<()> {
    let clip = a.node("clip")?;
    let vi = clip.video_info()?;
    check_format(&vi)?;
    let f = vi.format;
    let planes = planes_arg(a.ints("planes")?, f.numPlanes)?;
    for p in 0..f.numPlanes as usize {
        let (w, h) = plane_size(&f, vi.width, vi.height, p);
        if planes[p] && (w < 4 || h < 4) {
            return Err(Error::invalid("Cannot process planes smaller than 4x4."));
        }
    }
    let maxv = (1i64 << f.bitsPerSample) - 1;
    let float = f.sampleType == stFloat;
    let (mut ti, mut tf) = (maxv, f32::MAX);
    if op != Op::Median {
        if let Some(v) = a.float("threshold")? {
            if float {
                if v < 0.0 {
                    return Err(Error::invalid("threshold must be a positive value."));
                }
                tf = v as f32;
            } else {
                let r = v.round();
                if !(r >= 0.0 && r <= maxv as f64) {
                    return Err(Error::invalid("threshold bigger than sample value."));
                }
                ti = r as i64;
            }
        }
    }
    let mut coords = [true; 8];
    if matches!(op, Op::Min | Op::Max) {
        if let Some(c) = a.ints("coordinates")? {
            if c.len() != 8 {
                return Err(Error::invalid("coordinates must contain exactly 8 numbers."));
            }
            for (i, v) in c.iter().enumerate() {
                coords[i] = *v != 0;
            }
        }
    }
    let ty = if float { "float" } else { "int" };
    let (mn, mx) = if float { ("fmin_", "fmax_") } else { ("min", "max") };
    let helpers = format!(
        "float fmin_(float a, float b) {{ return a < b ? a : b; }}\nfloat fmax_(float a, float b) {{ return a > b ? a : b; }}\n#define T {ty}\n#define MN {mn}\n#define MX {mx}\n{MEDIAN}"
    );
    let all = "v0, v1, v2, v3, v4, v5, v6, v7, v8";
    let body = window(coords, ty)
        + &match (op, float) {
            (Op::Min, false) => format!("    st(x, y, max(min(min(min(v0, v1), min(v2, v3)), min(min(v4, v5), min(min(v6, v7), v8))), max(v4 - {ti}, 0)));"),
            (Op::Max, false) => format!("    st(x, y, min(max(max(max(v0, v1), max(v2, v3)), max(max(v4, v5), max(max(v6, v7), v8))), min(v4 + {ti}, {maxv})));"),
            (Op::Min, true) => format!(
                "    float m = v4; m = fmin_(m, v0); m = fmin_(m, v1); m = fmin_(m, v2); m = fmin_(m, v3); m = fmin_(m, v4); m = fmin_(m, v5); m = fmin_(m, v6); m = fmin_(m, v7); m = fmin_(m, v8);\n    precise float l = v4 - {}; st(x, y, fmax_(m, l));",
                flt(tf)
            ),
            (Op::Max, true) => format!(
                "    float m = v4; m = fmax_(m, v0); m = fmax_(m, v1); m = fmax_(m, v2); m = fmax_(m, v3); m = fmax_(m, v4); m = fmax_(m, v5); m = fmax_(m, v6); m = fmax_(m, v7); m = fmax_(m, v8);\n    precise float l = v4 + {}; st(x, y, fmin_(m, l));",
                flt(tf)
            ),
            (Op::Median, _) => format!("    st(x, y, median9({all}));"),
            (Op::Inflate, false) => format!("    int avg = (v0 + v1 + v2 + v3 + v5 + v6 + v7 + v8 + 4) >> 3; st(x, y, min(max(avg, v4), min(v4 + {ti}, {maxv})));"),
            (Op::Deflate, false) => format!("    int avg = (v0 + v1 + v2 + v3 + v5 + v6 + v7 + v8 + 4) >> 3; st(x, y, max(min(avg, v4), max(v4 - {ti}, 0)));"),
            (Op::Inflate, true) => format!(
                "    precise float s = (((v0 + v1) + v5) + v7) + (((v2 + v3) + v6) + v8); precise float avg = s * 0.125; precise float l = v4 + {}; st(x, y, fmin_(fmax_(avg, v4), l));",
                flt(tf)
            ),
            (Op::Deflate, true) => format!(
                "    precise float s = (((v0 + v1) + v5) + v7) + (((v2 + v3) + v6) + v8); precise float avg = s * 0.125; precise float l = v4 - {}; st(x, y, fmax_(fmin_(avg, v4), l));",
                flt(tf)
            ),
        };
    // half samples take std's plain order of additions
    let body = if f.bytesPerSample == 2 && float { body.replace("(((v0 + v1) + v5) + v7) + (((v2 + v3) + v6) + v8)", "v0 + v1 + v2 + v3 + v5 + v6 + v7 + v8") } else { body };
    let mut prog = Program::new(core, f, vi.width, vi.height)?;
    let t = St::of(&f);
    for p in 0..f.numPlanes as usize {
        if planes[p] {
            let k = prog.kernel(t, &[t], "", &helpers, &body)?;
            prog.plane_job(k, p, vec![Src::Plane { input: 0, plane: p }]);
        } else {
            prog.copies.push((0, p, p));
        }
    }
    let name = match op {
        Op::Min => "Minimum",
        Op::Max => "Maximum",
        Op::Median => "Median",
        Op::Inflate => "Inflate",
        Op::Deflate => "Deflate",
    };
    finish(out, core, name, vi, vec![clip], prog)
}
