//! std.Expr: a per-pixel expression in reverse polish notation over up to 26 clips.
//!
//! Each plane's expression is parsed once into a graph of operations (identical subexpressions
//! shared), simplified the way the reference simplifies it, and flattened into a short program of
//! whole-block instructions that the per-row loop runs over blocks of samples. Where the CPU has
//! AVX2, programs without transcendental operations are compiled to machine code instead
//! (`expr_jit`), which computes the same values with them kept in registers.
//!
//! Semantics (matched against the reference's plain C path): values are f32; the transcendental
//! operations are the C library's single precision ones; comparisons and logic give 1 or 0 and
//! treat values above zero as true; integer output is clamped to the format's range (a NaN
//! becomes 0) and rounded half to even; float output is stored as is. Two rules of its default
//! compiled code apply unless std.SetMaxCPU("none") was called: a square root takes a negative or
//! NaN operand as 0, and a NaN stored into integers becomes the maximum.
//!
//! The reference rewrites expressions before running them (constant folding, algebraic
//! identities, reassociation of constants, reciprocals for constant divisors, powers with small
//! exponents as products and square roots, fused multiply-adds), which changes float results in
//! the last bit; the same rewrites are applied here so that results agree.
use std::collections::HashMap;
use std::sync::Arc;

use vsvk_expr::{clips, parse, rewrite, Dag, K};
use vsvk_plugin_api::abi::*;

use super::fast_math::with_fast_math;
use super::*;
use crate::neighbour::{cpu_path, Path};

pub fn register(r: &Registrar) {
    r.function(
        "Expr",
        "clips:vnode[]:all;expr:data[];format:int:opt;",
        "clip:vnode:all;",
        expr,
    );
}

// ---- parsing and rewriting ----------------------------------------------------------------------------------
//
// The language, its checks and messages and R81's rewrites are vsvk-expr's, shared with the vk
// plugin's vk.Expr; what is std's own is which product of a sum gets fused below.

/// Operations in the tree below `id` (shared subtrees counted each time, saturating).
fn size(d: &Dag, id: u32) -> usize {
    fn go(d: &Dag, id: u32, memo: &mut HashMap<u32, usize>) -> usize {
        if let Some(&s) = memo.get(&id) {
            return s;
        }
        let n = d.nodes[id as usize];
        let s = (0..n.k.arity()).fold(1usize, |acc, i| acc.saturating_add(go(d, n.a[i], memo)));
        memo.insert(id, s);
        s
    }
    go(d, id, &mut HashMap::new())
}

/// R81's rewrites as this CPU path applies them. vk.Expr adds passes found by probing R81's
/// default (compiled) path: terms of sums and factors of products put in clip order, quotients
/// cancelling common factors, and a different choice of which product of a sum to fuse. std.Expr
/// keeps the rules its results are pinned with (std_pointwise.rs compares them with R81 bit for
/// bit, the transcendental cases on R81's plain C path, `--maxcpu none`); the plugin's additions
/// were never checked against those cases, so sharing them would risk changing std.Expr's output.
fn optimize(dag: &mut Dag, root: u32) -> u32 {
    let root = rewrite::simplify(dag, root);
    let root = rewrite::expand_pow(dag, root);
    let root = rewrite::distribute(dag, root);
    rewrite::fuse(dag, root, &|d: &Dag, l: u32, r: u32| {
        size(d, l) < size(d, r)
    })
}

// ---- the program ---------------------------------------------------------------------------------------------

const BLOCK: usize = 128;

#[derive(Clone, Copy, Debug)]
pub(super) enum Ins {
    Load {
        dst: u16,
        clip: u8,
    },
    Const {
        dst: u16,
        v: f32,
    },
    Op {
        k: K,
        dst: u16,
        a: u16,
        b: u16,
        c: u16,
    },
}

/// A compiled plane expression: instructions over registers of BLOCK samples.
#[derive(Clone, Debug)]
pub(super) struct Program {
    pub(super) ins: Vec<Ins>,
    /// The constants, each in a register of its own: filled once per plane, not once per block.
    pub(super) consts: Vec<Ins>,
    pub(super) regs: usize,
    pub(super) result: u16,
}

/// The program std.Expr makes of `expr` over `clips` clips on the default (compiled) path, for
/// float output: for tests of the code generator.
#[cfg(test)]
pub(super) fn test_program(expr: &str, clips: usize) -> Program {
    let mut dag = Dag::default();
    let (root, _) = parse(expr, clips, &mut dag).expect("a valid expression");
    let root = optimize(&mut dag, root);
    let root = rewrite::clamp_sqrt(&mut dag, root);
    compile(&dag, root)
}

fn compile(dag: &Dag, root: u32) -> Program {
    // post-order, each node computed once; registers reused after a value's last use
    let mut order = Vec::new();
    let mut seen = HashMap::new();
    fn visit(d: &Dag, id: u32, seen: &mut HashMap<u32, ()>, order: &mut Vec<u32>) {
        if seen.contains_key(&id) {
            return;
        }
        seen.insert(id, ());
        let n = d.nodes[id as usize];
        for i in 0..n.k.arity() {
            visit(d, n.a[i], seen, order);
        }
        order.push(id);
    }
    visit(dag, root, &mut seen, &mut order);
    let pos: HashMap<u32, usize> = order.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut last_use = vec![0usize; order.len()];
    for (i, &id) in order.iter().enumerate() {
        let n = dag.nodes[id as usize];
        for j in 0..n.k.arity() {
            last_use[pos[&n.a[j]]] = i;
        }
    }
    last_use[order.len() - 1] = usize::MAX;
    let mut reg_of: HashMap<u32, u16> = HashMap::new();
    let mut free: Vec<u16> = Vec::new();
    let mut regs = 0u16;
    let mut ins = Vec::new();
    let mut consts = Vec::new();
    let mut pinned: Vec<u16> = Vec::new();
    for (i, &id) in order.iter().enumerate() {
        let n = dag.nodes[id as usize];
        let args: Vec<u16> = (0..n.k.arity()).map(|j| reg_of[&n.a[j]]).collect();
        if let K::Const(b) = n.k {
            // never freed, so never overwritten
            regs += 1;
            pinned.push(regs - 1);
            reg_of.insert(id, regs - 1);
            consts.push(Ins::Const { dst: regs - 1, v: f32::from_bits(b) });
            continue;
        }
        let dst = free.pop().unwrap_or_else(|| {
            regs += 1;
            regs - 1
        });
        // operands whose last use is here are free from the next instruction on (never the
        // destination of this one, so that an instruction never writes what it reads)
        for j in 0..n.k.arity() {
            let p = pos[&n.a[j]];
            if last_use[p] == i && !free.contains(&reg_of[&n.a[j]]) && !pinned.contains(&reg_of[&n.a[j]]) {
                free.insert(0, reg_of[&n.a[j]]);
            }
        }
        reg_of.insert(id, dst);
        let g = |j: usize| args.get(j).or(args.first()).copied().unwrap_or(0);
        ins.push(match n.k {
            K::Load(c) => Ins::Load { dst, clip: c },
            K::Const(b) => Ins::Const {
                dst,
                v: f32::from_bits(b),
            },
            k => Ins::Op {
                k,
                dst,
                a: g(0),
                b: g(1),
                c: g(2),
            },
        });
    }
    Program {
        ins,
        consts,
        regs: regs.max(1) as usize,
        result: reg_of[&root],
    }
}

impl Program {
    /// The clips the program reads, each once.
    fn clips(&self) -> Vec<u8> {
        let mut c: Vec<u8> = self.ins.iter().filter_map(|i| if let Ins::Load { clip, .. } = *i { Some(clip) } else { None }).collect();
        c.sort_unstable();
        c.dedup();
        c
    }

    /// The program's 8-bit output for each 8-bit input value, computed by the same block code
    /// that runs over frames, so that a table lookup gives what running it would.
    fn table_u8(&self) -> [u8; 256] {
        let mut regs = vec![[0f32; BLOCK]; self.regs];
        for c in &self.consts {
            if let Ins::Const { dst, v } = *c {
                regs[dst as usize] = [v; BLOCK];
            }
        }
        let mut table = [0u8; 256];
        for x0 in (0..256).step_by(BLOCK) {
            let n = BLOCK.min(256 - x0);
            let load = |_: u8, r: &mut [f32; BLOCK]| {
                for (i, v) in r.iter_mut().enumerate() {
                    *v = if i < n { (x0 + i) as f32 } else { 0.0 };
                }
            };
            with_fast_math(|| run_block(self, &mut regs, &load, n));
            store_int(&regs[self.result as usize][..n], &mut table[x0..x0 + n], 255.0);
        }
        table
    }
}

/// Where one input plane's samples come from.
#[derive(Clone, Copy)]
enum Src {
    U8(*const u8),
    U16(*const u16),
    Half(*const u16),
    F32(*const f32),
}

#[inline(always)]
fn run_block(
    p: &Program,
    regs: &mut [[f32; BLOCK]],
    load: &dyn Fn(u8, &mut [f32; BLOCK]),
    n: usize,
) {
    for ins in &p.ins {
        match *ins {
            Ins::Load { dst, clip } => load(clip, &mut regs[dst as usize]),
            Ins::Const { dst, v } => regs[dst as usize] = [v; BLOCK],
            Ins::Op { k, dst, a, b, c } => {
                debug_assert!(dst != a && dst != b && dst != c);
                let base = regs.as_mut_ptr();
                // SAFETY: the registers exist, and the compiler never makes an instruction's
                // destination one of its operands (unused operand slots repeat the first operand).
                let (ra, rb, rc, o) = unsafe {
                    (
                        &*base.add(a as usize),
                        &*base.add(b as usize),
                        &*base.add(c as usize),
                        &mut *base.add(dst as usize),
                    )
                };
                macro_rules! each {
                    (|$x:ident, $y:ident, $z:ident| $e:expr) => {
                        for i in 0..BLOCK {
                            let ($x, $y, $z) = (ra[i], rb[i], rc[i]);
                            o[i] = $e;
                        }
                    };
                }
                macro_rules! each_n {
                    (|$x:ident, $y:ident| $e:expr) => {
                        for i in 0..n {
                            let ($x, $y) = (ra[i], rb[i]);
                            o[i] = $e;
                        }
                    };
                }
                let t = |v: bool| if v { 1.0f32 } else { 0.0 };
                match k {
                    K::Add => each!(|x, y, _z| x + y),
                    K::Sub => each!(|x, y, _z| x - y),
                    K::Mul => each!(|x, y, _z| x * y),
                    K::Div => each!(|x, y, _z| x / y),
                    K::Max => each!(|x, y, _z| if x < y { y } else { x }),
                    K::Min => each!(|x, y, _z| if y < x { y } else { x }),
                    K::Gt => each!(|x, y, _z| t(x > y)),
                    K::Lt => each!(|x, y, _z| t(x < y)),
                    K::Eq => each!(|x, y, _z| t(x == y)),
                    K::Ge => each!(|x, y, _z| t(x >= y)),
                    K::Le => each!(|x, y, _z| t(x <= y)),
                    K::And => each!(|x, y, _z| t(x > 0.0 && y > 0.0)),
                    K::Or => each!(|x, y, _z| t(x > 0.0 || y > 0.0)),
                    K::Xor => each!(|x, y, _z| t((x > 0.0) != (y > 0.0))),
                    K::Not => each!(|x, _y, _z| t(!(x > 0.0))),
                    K::Abs => each!(|x, _y, _z| x.abs()),
                    K::Neg => each!(|x, _y, _z| -x),
                    K::Sqrt => each!(|x, _y, _z| x.sqrt()),
                    K::Tern => each!(|x, y, z| if x > 0.0 { y } else { z }),
                    K::Fma => each!(|x, y, z| x.mul_add(y, z)),
                    K::Exp => each_n!(|x, _y| super::cmath::expf(x)),
                    K::Log => each_n!(|x, _y| super::cmath::logf(x)),
                    K::Sin => each_n!(|x, _y| super::cmath::sinf(x)),
                    K::Cos => each_n!(|x, _y| super::cmath::cosf(x)),
                    K::Pow => each_n!(|x, y| super::cmath::powf(x, y)),
                    K::Load(_) | K::Const(_) => unreachable!("not an operation"),
                }
            }
        }
    }
}

/// Runs a program over one plane. `srcs[c]` is plane `p` of clip `c`.
#[inline(always)]
fn run_plane(
    prog: &Program,
    srcs: &[(PlaneRef, VSVideoFormat)],
    dst: &mut PlaneMut,
    ofmt: &VSVideoFormat,
) {
    let (w, h) = (dst.width, dst.height);
    let mut regs = vec![[0f32; BLOCK]; prog.regs];
    for c in &prog.consts {
        if let Ins::Const { dst, v } = *c {
            regs[dst as usize] = [v; BLOCK];
        }
    }
    let max = max_value(ofmt) as f32;
    for y in 0..h {
        let ptrs: Vec<Src> = srcs
            .iter()
            .map(|(s, f)| match (f.sampleType, f.bytesPerSample) {
                (stInteger, 1) => Src::U8(s.row::<u8>(y).as_ptr()),
                (stInteger, _) => Src::U16(s.row::<u16>(y).as_ptr()),
                (_, 2) => Src::Half(s.row::<u16>(y).as_ptr()),
                _ => Src::F32(s.row::<f32>(y).as_ptr()),
            })
            .collect();
        let mut x0 = 0;
        while x0 < w {
            // a row's last piece is a whole block ending at the row's end, overlapping the one
            // before (every sample is computed alone, so the overlap is written twice with the
            // same values): partial blocks took the slow element-wise loads and stores
            if w >= BLOCK && x0 + BLOCK > w {
                x0 = w - BLOCK;
            }
            let n = BLOCK.min(w - x0);
            let load = |c: u8, r: &mut [f32; BLOCK]| {
                // SAFETY: each row holds `w` samples and x0 + n <= w.
                unsafe {
                    match ptrs[c as usize] {
                        Src::U8(p) if n == BLOCK => {
                            // a fixed-size block: one unrolled run of widening conversions
                            let s = &*p.add(x0).cast::<[u8; BLOCK]>();
                            for i in 0..BLOCK {
                                r[i] = s[i] as f32;
                            }
                            return;
                        }
                        Src::U8(p) => {
                            let s = std::slice::from_raw_parts(p.add(x0), n);
                            for (o, &v) in r.iter_mut().zip(s) {
                                *o = v as f32;
                            }
                        }
                        Src::U16(p) if n == BLOCK => {
                            // a fixed-size block: one unrolled run of widening conversions
                            let s = &*p.add(x0).cast::<[u16; BLOCK]>();
                            for i in 0..BLOCK {
                                r[i] = s[i] as f32;
                            }
                            return;
                        }
                        Src::U16(p) => {
                            let s = std::slice::from_raw_parts(p.add(x0), n);
                            for (o, &v) in r.iter_mut().zip(s) {
                                *o = v as f32;
                            }
                        }
                        Src::Half(p) => {
                            let s = std::slice::from_raw_parts(p.add(x0), n);
                            half_to_f32_row(s, &mut r[..n]);
                        }
                        Src::F32(p) => {
                            // whole blocks as fixed-size copies the compiler inlines (a memmove
                            // call per block was half of Expr's time on float planes)
                            if n == BLOCK {
                                *r = *p.add(x0).cast::<[f32; BLOCK]>();
                            } else {
                                r[..n].copy_from_slice(std::slice::from_raw_parts(p.add(x0), n));
                            }
                        }
                    }
                }
                // keep the unused tail harmless
                for v in r[n..].iter_mut() {
                    *v = 0.0;
                }
            };
            run_block(prog, &mut regs, &load, n);
            let res = &regs[prog.result as usize];
            match (ofmt.sampleType, ofmt.bytesPerSample) {
                (stInteger, 1) => store_int(&res[..n], &mut dst.row::<u8>(y)[x0..x0 + n], max),
                (stInteger, _) => store_int(&res[..n], &mut dst.row::<u16>(y)[x0..x0 + n], max),
                (_, 2) => f32_to_half_row(&res[..n], &mut dst.row::<u16>(y)[x0..x0 + n]),
                _ if n == BLOCK => {
                    let o: &mut [f32; BLOCK] = (&mut dst.row::<f32>(y)[x0..x0 + BLOCK]).try_into().expect("a whole block");
                    *o = *res;
                }
                _ => dst.row::<f32>(y)[x0..x0 + n].copy_from_slice(&res[..n]),
            }
            x0 += n;
        }
    }
}

/// An integer output sample: how `to_int`'s result narrows, and the AVX2 kernel that does whole
/// vectors of it (returning how many values it did).
trait StoreInt: Copy {
    fn narrow(v: i32) -> Self;
    #[cfg(target_arch = "x86_64")]
    unsafe fn store_avx2(res: *const f32, out: *mut Self, max: f32, n: usize) -> usize;
}

impl StoreInt for u8 {
    fn narrow(v: i32) -> u8 {
        v as u8
    }
    #[cfg(target_arch = "x86_64")]
    unsafe fn store_avx2(res: *const f32, out: *mut u8, max: f32, n: usize) -> usize {
        store_u8_avx2(res, out, max, n)
    }
}

impl StoreInt for u16 {
    fn narrow(v: i32) -> u16 {
        v as u16
    }
    #[cfg(target_arch = "x86_64")]
    unsafe fn store_avx2(res: *const f32, out: *mut u16, max: f32, n: usize) -> usize {
        store_u16_avx2(res, out, max, n)
    }
}

/// `out[i] = to_int(res[i], max)`, in vectors where the CPU has AVX2.
#[inline(always)]
fn store_int<T: StoreInt>(res: &[f32], out: &mut [T], max: f32) {
    let n = res.len().min(out.len());
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if super::fast_math::has_avx2_fma() {
        // SAFETY: AVX2 was detected at run time; both slices hold at least n values.
        done = unsafe { T::store_avx2(res.as_ptr(), out.as_mut_ptr(), max, n) };
    }
    for (o, &v) in out[done..n].iter_mut().zip(&res[done..n]) {
        *o = T::narrow(to_int(v, max));
    }
}

/// `store_int` for u16, 16 values at a time, as `store_u8_avx2` (the compiler's narrowing was a quarter
/// of a two-clip 16-bit Expr's time). Returns the values done, a multiple of 16.
///
/// # Safety
/// AVX2 must be available; `res` and `out` must hold `n` values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn store_u16_avx2(res: *const f32, out: *mut u16, max: f32, n: usize) -> usize {
    use std::arch::x86_64::*;
    let (maxv, zero) = (_mm256_set1_ps(max), _mm256_setzero_ps());
    let mut x = 0;
    while x + 16 <= n {
        let q: [__m256i; 2] = std::array::from_fn(|k| {
            // SAFETY: x + 16 <= n values are readable (the caller's contract).
            let v = unsafe { _mm256_loadu_ps(res.add(x + 8 * k)) };
            // the rules of to_int: a NaN becomes 0, then half to even
            let t = _mm256_max_ps(_mm256_min_ps(maxv, v), zero);
            _mm256_cvttps_epi32(_mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(t))
        });
        // packus works per 128-bit lane: the quarters come out as 0, 2, 1, 3
        let p = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(q[0], q[1]));
        // SAFETY: x + 16 <= n samples are writable.
        _mm256_storeu_si256(out.add(x).cast(), p);
        x += 16;
    }
    x
}

/// `store_int` for u8, 32 values at a time (the compiler's code for `to_int` spends most of its time
/// narrowing 32-bit lanes one by one). Returns the values done, a multiple of 32.
///
/// # Safety
/// The CPU has AVX2; `res` points to `n` readable values and `out` to `n` writable samples.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn store_u8_avx2(res: *const f32, out: *mut u8, max: f32, n: usize) -> usize {
    use std::arch::x86_64::*;
    let (maxv, zero) = (_mm256_set1_ps(max), _mm256_setzero_ps());
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let mut x = 0;
    while x + 32 <= n {
        let q: [__m256i; 4] = std::array::from_fn(|k| {
            // SAFETY: x + 32 <= n values are readable (the caller's contract).
            let v = unsafe { _mm256_loadu_ps(res.add(x + 8 * k)) };
            // as to_int: min(max, v) keeps a NaN (the first operand is returned only when it
            // is smaller), max(t, 0) turns it into 0; then half to even
            let t = _mm256_max_ps(_mm256_min_ps(maxv, v), zero);
            _mm256_cvttps_epi32(_mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(t))
        });
        let b = _mm256_packus_epi16(_mm256_packus_epi32(q[0], q[1]), _mm256_packus_epi32(q[2], q[3]));
        // SAFETY: x + 32 <= n samples are writable.
        unsafe { _mm256_storeu_si256(out.add(x).cast(), _mm256_permutevar8x32_epi32(b, order)) };
        x += 32;
    }
    x
}

/// Clamp to [0, max] and round half to even; a NaN becomes 0 (the reference's C path; for its
/// compiled default code the program ends in min(max, v) first, which makes a NaN `max`).
#[inline(always)]
fn to_int(v: f32, max: f32) -> i32 {
    let t = if max < v { max } else { v };
    let t = if 0.0 < t { t } else { 0.0 };
    // adding 2^23 rounds to an integer, half to even, for 0 <= t < 2^23, and leaves that
    // integer in the low mantissa bits
    ((t + 8_388_608.0).to_bits() - 0x4b00_0000) as i32
}

// ---- the filter ------------------------------------------------------------------------------------------------

/// A plane program compiled to machine code (`expr_jit`), where the machine allows it.
#[cfg(target_arch = "x86_64")]
type Jit = super::expr_jit::Kernel;
#[cfg(not(target_arch = "x86_64"))]
enum Jit {}

/// The compiled form of `prog` for these clips and output, unless the program or the CPU rules
/// it out (or VSVK_EXPR_JIT=0, which keeps every plane on the interpreter, as the tests that
/// compare the two paths do).
fn compile_jit(prog: &Program, clips: &[VSVideoFormat], out: &VSVideoFormat) -> Option<Arc<Jit>> {
    if std::env::var_os("VSVK_EXPR_JIT").is_some_and(|v| v == "0") {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        use super::expr_jit::Sample;
        let sample = |f: &VSVideoFormat| match (f.sampleType, f.bytesPerSample) {
            (stInteger, 1) => Sample::U8,
            (stInteger, _) => Sample::U16,
            (_, 2) => Sample::Half,
            _ => Sample::F32,
        };
        let inputs: Vec<Sample> = clips.iter().map(sample).collect();
        // a program the compiler declines (transcendental operations, an old CPU) runs on the
        // interpreter, which gives the same results
        Jit::compile(prog, &inputs, sample(out), max_value(out) as f32).ok().map(Arc::new)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (prog, clips, out);
        None
    }
}

/// Runs a compiled program over one plane of at least 8 samples a row.
fn run_plane_jit(jit: &Jit, srcs: &[(PlaneRef, VSVideoFormat)], dst: &mut PlaneMut) {
    #[cfg(target_arch = "x86_64")]
    {
        let mut spill = jit.spill_area();
        let mut rows = [std::ptr::null::<u8>(); 26];
        // each row through a slice of its own sample type, so that the pointer covers the row
        let out_bytes = jit.out_bytes();
        for y in 0..dst.height {
            for (r, (s, f)) in rows.iter_mut().zip(srcs) {
                *r = match f.bytesPerSample {
                    1 => s.row::<u8>(y).as_ptr(),
                    2 => s.row::<u16>(y).as_ptr().cast(),
                    _ => s.row::<f32>(y).as_ptr().cast(),
                };
            }
            let w = dst.width;
            let out: *mut u8 = match out_bytes {
                1 => dst.row::<u8>(y).as_mut_ptr(),
                2 => dst.row::<u16>(y).as_mut_ptr().cast(),
                _ => dst.row::<f32>(y).as_mut_ptr().cast(),
            };
            // SAFETY: every clip's plane has the output plane's size (checked when the filter was
            // made), so each row pointer has w samples of its clip's type, as the kernel was
            // compiled for, and the output row w samples of the output's; w >= 8 (the caller's).
            unsafe { jit.run_row(&rows[..srcs.len()], out, w, &mut spill) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    match *jit {}
}

/// What each output plane does.
#[derive(Clone)]
enum PlaneJob {
    Copy,
    Run(Arc<Program>, Option<Arc<Jit>>),
    /// 8-bit output from one 8-bit input plane (or none): the program's 256 possible results,
    /// looked up (a vector permute where the CPU has one) instead of run per sample.
    Table { clip: usize, table: Arc<[u8; 256]> },
}

fn expr(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let nodes = args.nodes("clips")?;
    let exprs = args.strings("expr")?.unwrap_or_default();
    let vis = nodes.iter().map(util::video_info).collect::<Result<Vec<_>>>()?;
    clips::check_clips(&vis, check_format)?;
    let v0 = vis[0];
    let requested = args.int("format")?.map(|id| u32::try_from(id).ok().and_then(|id| core.video_format_by_id(id)));
    let ofmt = clips::output_format(&v0.format, requested, exprs.len(), check_format)?;
    let ovi = VSVideoInfo { format: ofmt, ..v0 };
    let np = ofmt.numPlanes as usize;
    // R81's default (compiled) code takes a negative square root operand as 0 and stores a NaN
    // into integers as the maximum; its plain C path (std.SetMaxCPU("none")) does neither
    let compiled_rules = cpu_path(core)? != Path::C;
    let mut jobs = Vec::with_capacity(np);
    for p in 0..np {
        let e = &exprs[p.min(exprs.len() - 1)];
        if e.is_empty() {
            jobs.push(PlaneJob::Copy);
            continue;
        }
        let mut dag = Dag::default();
        let (root, depth) = parse(e, nodes.len(), &mut dag).map_err(|e| Error::invalid(e.to_string()))?;
        let build = move || {
            let mut dag = dag;
            let mut root = optimize(&mut dag, root);
            if compiled_rules {
                root = rewrite::clamp_sqrt(&mut dag, root);
                if ofmt.sampleType == stInteger {
                    // min(max, v) as the per-pixel code computes it: `v` when below, else the
                    // maximum, a NaN included (R81's compiled store; its C path makes a NaN 0,
                    // as our store does after this)
                    let top = dag.konst(max_value(&ofmt) as f32);
                    root = dag.raw(K::Min, [top, root, vsvk_expr::NONE]);
                }
            }
            compile(&dag, root)
        };
        // the rewriting recurses as deep as the expression nests: deep ones get a thread with
        // room for that, whatever thread creates the filter
        let prog = if depth > 200 {
            std::thread::scope(|s| {
                std::thread::Builder::new()
                    .stack_size(256 << 20)
                    .spawn_scoped(s, build)
                    .map(|h| h.join())
            })
            .map_err(|e| Error::invalid(format!("cannot start a thread: {e}")))?
            .map_err(|_| Error::invalid("internal error while compiling the expression"))?
        } else {
            build()
        };
        let clips = prog.clips();
        let is_u8 = |f: &VSVideoFormat| f.sampleType == stInteger && f.bitsPerSample == 8;
        // a constant program reads no clip: its table is indexed by the first clip's samples
        let clip = clips.first().map_or(0, |&c| c as usize);
        if is_u8(&ofmt) && clips.len() <= 1 && is_u8(&vis[clip].format) {
            jobs.push(PlaneJob::Table { clip, table: Arc::new(prog.table_u8()) });
        } else {
            let jit = compile_jit(&prog, &vis.iter().map(|v| v.format).collect::<Vec<_>>(), &ofmt);
            jobs.push(PlaneJob::Run(Arc::new(prog), jit));
        }
    }
    let first_fmt = v0.format;
    let fmts: Vec<VSVideoFormat> = vis.iter().map(|v| v.format).collect();
    let node = expr_node(core, ovi, nodes, move |frames, core| {
        let f0 = &frames[0];
        let copy: [bool; 3] = std::array::from_fn(|p| {
            p < np && matches!(jobs[p], PlaneJob::Copy) && first_fmt == ofmt
        });
        let process: [bool; 3] = std::array::from_fn(|p| !copy[p]);
        let mut dst = new_frame_like(core, &ofmt, f0, &process)?;
        for p in 0..np {
            let (prog, jit) = match &jobs[p] {
                PlaneJob::Copy => continue,
                PlaneJob::Table { clip, table } => {
                    let s = [PlaneRef::new(&frames[*clip], p)?];
                    map_rows::<u8, u8>(&s, PlaneMut::output(&mut dst, p, false)?, |o, i| table8::apply(table, i[0], o));
                    continue;
                }
                PlaneJob::Run(prog, jit) => (prog, jit),
            };
            let srcs: Vec<(PlaneRef, VSVideoFormat)> = frames
                .iter()
                .zip(&fmts)
                .map(|(f, fmt)| Ok((PlaneRef::new(f, p)?, *fmt)))
                .collect::<Result<_>>()?;
            let mut d = PlaneMut::output(&mut dst, p, false)?;
            match jit {
                Some(jit) if d.width >= 8 => run_plane_jit(jit, &srcs, &mut d),
                _ => with_fast_math(|| run_plane(prog, &srcs, &mut d, &ofmt)),
            }
        }
        Ok(dst.freeze())
    })?;
    out.set_node("clip", node);
    Ok(())
}

/// The node of [`MultiFilter`] on `inputs` (all in host memory or all on the GPU, processed in
/// host memory and uploaded again), each input declared as R81's Expr declares it: strict spatial,
/// or its last frame again where it is shorter than the output.
fn expr_node(core: Core, vi: VSVideoInfo, inputs: Vec<Node>, make: impl Fn(&[Frame], Core) -> Result<Frame> + Send + Sync + 'static) -> Result<Node> {
    if let Some(m) = util::residency_mismatch(&inputs) {
        return Err(Error::invalid(m));
    }
    residency::on_host(core, inputs, |inputs| {
        let spec = Spec { name: "Expr".into(), info: vi, inputs, gpu_output: false };
        filter::create_node(core, spec, MultiFilter { make }, fmParallel)
    })
}
