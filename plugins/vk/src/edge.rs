//! Sobel and Prewitt: the gradient magnitude over a 3x3 neighbourhood (edge samples repeated),
//! times `scale`, in the order of R81's SIMD build (its default): on integer formats the exact
//! gradients, squared and added in single precision with a rounding each, the square root
//! correctly rounded (`sqrtRN`), times scale, rounded to nearest even and clamped; on float
//! formats the gradients summed from `br - tl` on, as that build does.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::{Error, Result};

use crate::conv::{check_constant, check_min_size, common, max_value, EXACT};
use crate::kernel::*;
use crate::{finish, Reg};

pub fn register(r: &Reg) {
    r.function("Sobel", "clip:vnode:gpu;planes:int[]:opt;scale:float:opt;", |a, o, c| edge(a, o, c, true));
    r.function("Prewitt", "clip:vnode:gpu;planes:int[]:opt;scale:float:opt;", |a, o, c| edge(a, o, c, false));
}

fn edge(a: &Args, out: &mut Out, core: Core, sobel: bool) -> Result<()> {
    let c = common(a)?;
    let scale = a.float("scale")?.unwrap_or(1.0);
    if scale < 0.0 {
        return Err(Error::invalid("scale must not be negative."));
    }
    check_min_size(&c)?;
    check_constant(&c)?;
    let f = c.vi.format;
    let float = f.sampleType == stFloat;
    let k = if sobel { 2 } else { 1 };
    let mut body = String::from(
        "    int xl = max(x - 1, 0), xr = min(x + 1, W - 1), yu = max(y - 1, 0), yd = min(y + 1, H - 1);\n    \
         T tl = ld0(xl, yu), t = ld0(x, yu), tr = ld0(xr, yu), l = ld0(xl, y), r = ld0(xr, y), bl = ld0(xl, yd), b = ld0(x, yd), br = ld0(xr, yd);\n",
    );
    if float {
        body = body.replace('T', "float");
        body += &format!(
            "    precise float d = br - tl;\n    precise float gx = (((d + tr) + {k}.0 * r) - {k}.0 * l) - bl;\n    \
             precise float gy = (((d + bl) + {k}.0 * b) - {k}.0 * t) - tr;\n    precise float s = gx * gx + gy * gy;\n    \
             precise float o = sqrtRN(s) * {};\n    st(x, y, o);\n",
            flt(scale as f32)
        );
    } else {
        body = body.replace('T', "int");
        body += &format!(
            "    int gx = (tr + {k} * r + br) - (tl + {k} * l + bl), gy = (bl + {k} * b + br) - (tl + {k} * t + tr);\n    \
             precise float fx = float(gx), fy = float(gy);\n    precise float s = fx * fx + fy * fy;\n    \
             precise float o = sqrtRN(s) * {};\n    st(x, y, int(min(roundEven(o), {}.0)));\n",
            flt(scale as f32),
            max_value(&f)
        );
    }
    let mut prog = Program::new(core, f, c.vi.width, c.vi.height)?;
    let t = St::of(&f);
    for p in 0..f.numPlanes as usize {
        if c.planes[p] {
            let kern = prog.kernel(t, &[t], "", EXACT, &body)?;
            prog.plane_job(kern, p, vec![Src::Plane { input: 0, plane: p }]);
        } else {
            prog.copies.push((0, p, p));
        }
    }
    finish(out, core, if sobel { "Sobel" } else { "Prewitt" }, c.vi, vec![c.clip], prog)
}
