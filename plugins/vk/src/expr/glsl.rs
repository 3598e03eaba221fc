//! The rewritten expression graph as a GLSL compute shader: one `precise float` per graph node,
//! in post-order, so that every shared subexpression is computed once and every operation rounds
//! once, in the order R81 rounds.
//!
//! Vulkan only promises correct rounding for `+`, `-` and `*`. Division and `sqrt` may be 2.5 units
//! in the last place off (NVIDIA's are), and `fma` may round twice (lavapipe's does), while R81
//! divides, takes roots and fuses exactly. So the shader fuses by hand (Boldo and Melquiond's
//! emulation: an exact product, an exact sum and one addition rounded to odd) and corrects the
//! native quotient and root with the exact remainder that fused operation gives, so all three
//! are IEEE's correctly rounded results on any device.
//!
//! The transcendental functions take R81's domains (seen by running it): `log` of anything below
//! the smallest normal float is the log of that float (no NaN, no -inf), `exp` clamps its argument
//! to +-88.3762626647949 and gives 0 below the normal range, a negative number's square root is 0,
//! and `pow` is `exp(y * log(x))` with those rules; `sin` and `cos` reduce their argument to
//! [-pi, pi] first, where Vulkan bounds the GPU's error. Their values are the GPU's, whose precision
//! Vulkan bounds only loosely; tests/tests/vk_expr.rs states and checks the bound.
use super::parse::{Dag, K, NONE};
use crate::kernel::St;

/// What a compiled plane needs: the shader and the clips it reads, in binding order.
#[derive(Clone, Debug)]
pub struct Plane {
    pub source: String,
    pub clips: Vec<usize>,
}

fn storage(t: St) -> &'static str {
    match t {
        St::U8 => "uint8_t",
        St::U16 | St::F16 => "uint16_t",
        St::F32 => "float",
        St::I32 => "int",
    }
}

/// GLSL for a float constant, exactly.
fn flt(bits: u32) -> String {
    format!("uintBitsToFloat({bits}u)")
}

const HEADER: &str = "#version 460
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform PC { ivec4 dim; ivec4 st[7]; } pc;
";


/// Exact arithmetic on top of correctly rounded `+ - *` (see the module's comment). The splitting
/// needs |a|, |b| below 2^100 or so and no underflow; outside that range (never reached by
/// video samples and the constants they meet) the native operation is used.
const EXACT: &str = r#"
const float LIM_HI = 1e30, LIM_LO = 1e-30;
void two_sum(float a, float b, out float s, out float e) {
    precise float ss = a + b;
    precise float bb = ss - a;
    precise float ee = (a - (ss - bb)) + (b - bb);
    s = ss; e = ee;
}
void split(float a, out float hi, out float lo) {
    precise float c = 4097.0 * a;
    precise float h = c - (c - a);
    precise float l = a - h;
    hi = h; lo = l;
}
float xfma(float a, float b, float c) {
    precise float p = a * b;
    float aa = abs(a), ab = abs(b), ac = abs(c), ap = abs(p);
    if (!(aa < LIM_HI && ab < LIM_HI && ac < LIM_HI && ap < LIM_HI) || aa < LIM_LO || ab < LIM_LO || (ap < LIM_LO && p != 0.0)) {
        precise float r = p + c;
        return r;
    }
    float ah, al, bh, bl;
    split(a, ah, al);
    split(b, bh, bl);
    precise float e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    float th, tl, v, ve;
    two_sum(c, p, th, tl);
    two_sum(tl, e, v, ve);
    // v rounded to odd: an inexact v with an even last bit moves one unit towards the exact sum
    uint vb = floatBitsToUint(v);
    if (ve != 0.0 && (vb & 1u) == 0u)
        v = uintBitsToFloat(((ve > 0.0) == (v > 0.0)) ? vb + 1u : vb - 1u);
    precise float r = th + v;
    return r;
}
float xdiv(float a, float b) {
    precise float q = a / b;
    float aq = abs(q);
    if (!(aq < LIM_HI && aq > LIM_LO && abs(a) < LIM_HI && abs(b) < LIM_HI && abs(a) > LIM_LO && abs(b) > LIM_LO)) return q;
    for (int i = 0; i < 3; i++) {
        // q is a/b correctly rounded when the remainder a - q*b (exact) is below half the gap
        // to q's neighbour on the side of a/b, times |b|; a quotient is never a tie
        float r = xfma(-q, b, a);
        if (r == 0.0) return q;
        bool grow = ((r > 0.0) == (b > 0.0)) == (q > 0.0);
        uint qb = floatBitsToUint(abs(q));
        float n = uintBitsToFloat(grow ? qb + 1u : qb - 1u);
        precise float u = abs(n - abs(q));
        precise float lim = abs(b) * u * 0.5;
        if (abs(r) < lim) return q;
        q = q > 0.0 ? n : -n;
    }
    return q;
}
float xsqrt(float x) {
    if (!(x > 0.0)) return 0.0;
    precise float s = sqrt(x);
    if (!(x < LIM_HI && x > LIM_LO)) return s;
    for (int i = 0; i < 3; i++) {
        // with r = x - s*s (exact) and u the gap to the neighbour on the side of sqrt(x), s is
        // correct when r <= s*u above it and -r < s*u below it (both sides are multiples of u*u)
        float r = xfma(-s, s, x);
        if (r == 0.0) return s;
        bool grow = r > 0.0;
        uint sb = floatBitsToUint(s);
        float n = uintBitsToFloat(grow ? sb + 1u : sb - 1u);
        precise float u = abs(n - s);
        precise float lim = s * u;
        if (grow ? r <= lim : -r < lim) return s;
        s = n;
    }
    return s;
}
float xdivsqrt(float a, float z) {
    if (z > 0.0) return xdiv(a, xsqrt(z));
    precise float r = z == 0.0 ? a / 0.0 : a * 0.0;
    return r;
}
// sin and cos on the GPU are only bounded on [-pi, pi] (2^-11 absolutely there, nothing beyond):
// the argument is reduced by 2*pi first, in two exact steps (2*pi = C1 + C2, C1 its float)
float reduce(float x) {
    if (!(abs(x) < 1e6)) return x;
    float k = roundEven(x * 0.15915494309189535);
    float r = xfma(-k, 6.2831854820251465, x);
    return xfma(-k, -1.7484555314695172e-7, r);
}
float xsin(float x) { return sin(reduce(x)); }
float xcos(float x) { return cos(reduce(x)); }
const float EXP_HI = 88.3762626647949, FLT_MINN = 1.17549435e-38;
// exp reduced by ln 2 (two exact steps) and scaled back by a power of two: the GPU's own exp
// loses 2 ulp per unit of its argument
float xexp(float x) {
    float t = x < EXP_HI ? x : EXP_HI;
    t = t > -EXP_HI ? t : -EXP_HI;
    float k = roundEven(t * 1.4426950408889634);
    float r = xfma(-k, 0.693145751953125, t);
    r = xfma(-k, 1.4286068203094172e-6, r);
    int ki = int(k);
    float e = ldexp(ldexp(exp(r), ki / 2), ki - ki / 2);
    return e < FLT_MINN ? 0.0 : e;
}
float xlog(float x) {
    return log(x > FLT_MINN ? x : FLT_MINN);
}
// R81's pow is exp(y * log(x)) in single precision, the product rounded: so is this one
float xpow(float x, float y) {
    precise float t = y * xlog(x);
    return xexp(t);
}
"#;

/// The shader for one plane: `root` of `dag` over clips of storage `clips[c]`, into `out`
/// (`max` is the largest integer sample for integer output).
pub fn shader(dag: &Dag, root: u32, clip_types: &[St], out: St, max: i64) -> Plane {
    // post-order without recursion: graphs nest up to 5000 deep
    let n = dag.nodes.len();
    let mut seen = vec![false; n];
    let mut order = Vec::new();
    let mut stack = vec![(root, false)];
    while let Some((id, done)) = stack.pop() {
        if done {
            order.push(id);
            continue;
        }
        if seen[id as usize] {
            continue;
        }
        seen[id as usize] = true;
        stack.push((id, true));
        let node = dag.nodes[id as usize];
        for i in (0..node.k.arity()).rev() {
            if !seen[node.a[i] as usize] {
                stack.push((node.a[i], false));
            }
        }
    }
    let mut clips: Vec<usize> = Vec::new();
    for &id in &order {
        if let K::Load(c) = dag.nodes[id as usize].k {
            if !clips.contains(&(c as usize)) {
                clips.push(c as usize);
            }
        }
    }
    clips.sort_unstable();
    let mut s = String::from(HEADER);
    s += &format!("layout(std430, set = 0, binding = 0) writeonly buffer D {{ {} d[]; }};\n", storage(out));
    for (j, &c) in clips.iter().enumerate() {
        s += &format!("layout(std430, set = 0, binding = {}) readonly buffer S{j} {{ {} s{j}[]; }};\n", j + 1, storage(clip_types[c]));
    }
    s += crate::kernel::HALF;
    s += EXACT;
    s += "void main() {\n    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);\n    if (x >= pc.dim.x || y >= pc.dim.y) return;\n";
    let v = |id: u32| format!("v{id}");
    for &id in &order {
        let node = dag.nodes[id as usize];
        let a = |i: usize| if node.a[i] == NONE { String::new() } else { v(node.a[i]) };
        let t = |cond: String| format!("({cond}) ? 1.0 : 0.0");
        let e = match node.k {
            K::Load(c) => {
                let j = clips.iter().position(|&k| k == c as usize).expect("collected");
                let idx = format!("y * pc.st[{}][{}] + x", j / 4, j % 4);
                match clip_types[c as usize] {
                    St::F16 => format!("h2f(uint(s{j}[{idx}]))"),
                    St::F32 => format!("s{j}[{idx}]"),
                    _ => format!("float(uint(s{j}[{idx}]))"),
                }
            }
            K::Const(b) => flt(b),
            K::Add => format!("{} + {}", a(0), a(1)),
            K::Sub => format!("{} - {}", a(0), a(1)),
            K::Mul => format!("{} * {}", a(0), a(1)),
            // R81 divides by a square root with a reciprocal square root: a negative radicand
            // gives 0 there, not the quotient by sqrt's 0
            K::Div if dag.nodes[node.a[1] as usize].k == K::Sqrt => format!("xdivsqrt({}, {})", a(0), v(dag.nodes[node.a[1] as usize].a[0])),
            K::Div => format!("xdiv({}, {})", a(0), a(1)),
            K::Max => format!("{0} < {1} ? {1} : {0}", a(0), a(1)),
            K::Min => format!("{1} < {0} ? {1} : {0}", a(0), a(1)),
            K::Pow => format!("xpow({}, {})", a(0), a(1)),
            K::Gt => t(format!("{} > {}", a(0), a(1))),
            K::Lt => t(format!("{} < {}", a(0), a(1))),
            K::Eq => t(format!("{} == {}", a(0), a(1))),
            K::Ge => t(format!("{} >= {}", a(0), a(1))),
            K::Le => t(format!("{} <= {}", a(0), a(1))),
            K::And => t(format!("{} > 0.0 && {} > 0.0", a(0), a(1))),
            K::Or => t(format!("{} > 0.0 || {} > 0.0", a(0), a(1))),
            K::Xor => t(format!("({} > 0.0) != ({} > 0.0)", a(0), a(1))),
            K::Not => format!("({} > 0.0) ? 0.0 : 1.0", a(0)),
            K::Exp => format!("xexp({})", a(0)),
            K::Log => format!("xlog({})", a(0)),
            K::Sqrt => format!("xsqrt({})", a(0)),
            K::Abs => format!("abs({})", a(0)),
            K::Sin => format!("xsin({})", a(0)),
            K::Cos => format!("xcos({})", a(0)),
            K::Neg => format!("-{}", a(0)),
            K::Tern => format!("({} > 0.0) ? {} : {}", a(0), a(1), a(2)),
            K::Fma => format!("xfma({}, {}, {})", a(0), a(1), a(2)),
        };
        s += &format!("    precise float {} = {e};\n", v(id));
    }
    let r = v(root);
    s += "    int o = y * pc.dim.z + x;\n";
    s += &match out {
        // clamp (a NaN becomes the maximum, as in R81's compiled code), then round half to even:
        // adding 2^23 leaves the rounded integer in the low mantissa bits
        St::U8 | St::U16 => format!(
            "    float c = {r} < {m} ? {r} : {m};\n    c = c > 0.0 ? c : 0.0;\n    precise float q = c + 8388608.0;\n    d[o] = {ty}(floatBitsToUint(q) - 0x4b000000u);\n",
            m = flt((max as f32).to_bits()),
            ty = storage(out)
        ),
        St::F16 => format!("    d[o] = uint16_t(f2h({r}));\n"),
        _ => format!("    d[o] = {r};\n"),
    };
    s += "}\n";
    Plane { source: s, clips }
}
