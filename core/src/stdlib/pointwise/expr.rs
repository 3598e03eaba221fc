//! std.Expr: a per-pixel expression in reverse polish notation over up to 26 clips.
//!
//! Each plane's expression is parsed once into a graph of operations (identical subexpressions
//! shared), simplified the way the reference simplifies it, and flattened into a short program of
//! whole-block instructions that the per-row loop runs over blocks of samples.
//!
//! Semantics (all matched against the reference's plain C path): values are f32; the
//! transcendental operations are the C library's single precision ones; comparisons and logic
//! give 1 or 0 and treat values above zero as true; integer output is clamped to the format's
//! range (a NaN becomes 0) and rounded half to even; float output is stored as is.
//!
//! The reference rewrites expressions before running them (constant folding, algebraic
//! identities, reassociation of constants, reciprocals for constant divisors, powers with small
//! exponents as products and square roots, fused multiply-adds), which changes float results in
//! the last bit; the same rewrites are applied here so that results agree.
use std::collections::HashMap;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use super::merge::with_fast_math;
use super::*;

pub fn register(r: &super::super::Registrar) {
    r.add("Expr", "clips:vnode[]:all;expr:data[];format:int:opt;", "clip:vnode:all;", expr);
}

// ---- tokens and parsing ----------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum K {
    Load(u8),
    Const(u32),
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Pow,
    Gt,
    Lt,
    Eq,
    Ge,
    Le,
    And,
    Or,
    Xor,
    Not,
    Exp,
    Log,
    Sqrt,
    Abs,
    Sin,
    Cos,
    Neg,
    Tern,
    /// a * b + c, rounded once
    Fma,
}

impl K {
    fn arity(self) -> usize {
        match self {
            K::Load(_) | K::Const(_) => 0,
            K::Not | K::Exp | K::Log | K::Sqrt | K::Abs | K::Sin | K::Cos | K::Neg => 1,
            K::Tern | K::Fma => 3,
            _ => 2,
        }
    }
    fn commutative(self) -> bool {
        matches!(self, K::Mul | K::Eq | K::And | K::Or | K::Xor)
    }
}

fn op_of(tok: &str) -> Option<K> {
    Some(match tok {
        "+" => K::Add,
        "-" => K::Sub,
        "*" => K::Mul,
        "/" => K::Div,
        "max" => K::Max,
        "min" => K::Min,
        "pow" => K::Pow,
        ">" => K::Gt,
        "<" => K::Lt,
        "=" => K::Eq,
        ">=" => K::Ge,
        "<=" => K::Le,
        "and" => K::And,
        "or" => K::Or,
        "xor" => K::Xor,
        "not" => K::Not,
        "exp" => K::Exp,
        "log" => K::Log,
        "sqrt" => K::Sqrt,
        "abs" => K::Abs,
        "sin" => K::Sin,
        "cos" => K::Cos,
        "?" => K::Tern,
        _ => return None,
    })
}

/// Clip letters: x, y, z, then a to w.
fn clip_of(tok: &str) -> Option<usize> {
    let b = tok.as_bytes();
    if b.len() != 1 {
        return None;
    }
    match b[0] {
        b'x' => Some(0),
        b'y' => Some(1),
        b'z' => Some(2),
        c @ b'a'..=b'w' => Some(3 + (c - b'a') as usize),
        _ => None,
    }
}

enum NumErr {
    Fail,
    Partial,
}

/// A number the way a C++ stream reads a float: sign, digits, one point, an exponent; the token
/// must be read whole; values beyond the float range fail.
fn parse_number(tok: &str) -> Result<f32, NumErr> {
    let b = tok.as_bytes();
    let mut i = 0;
    let mut acc = String::new();
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        acc.push(b[i] as char);
        i += 1;
    }
    let (mut dot, mut exp, mut mant) = (false, false, false);
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            acc.push(c as char);
            if !exp {
                mant = true;
            }
            i += 1;
        } else if c == b'.' && !dot && !exp {
            acc.push('.');
            dot = true;
            i += 1;
        } else if (c == b'e' || c == b'E') && !exp && mant {
            acc.push('e');
            exp = true;
            i += 1;
            if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                acc.push(b[i] as char);
                i += 1;
            }
        } else {
            break;
        }
    }
    let v: f32 = acc.parse().map_err(|_| NumErr::Fail)?;
    if v.is_infinite() {
        return Err(NumErr::Fail);
    }
    if i < b.len() {
        return Err(NumErr::Partial);
    }
    Ok(v)
}

/// `dup`, `dupN`, `swap`, `swapN`: the index, or None for an illegal suffix.
fn stack_op(tok: &str, prefix: &str, default: usize) -> Option<Option<usize>> {
    let rest = tok.strip_prefix(prefix)?;
    if rest.is_empty() {
        return Some(Some(default));
    }
    if !rest.bytes().all(|c| c.is_ascii_digit()) {
        return Some(None);
    }
    Some(rest.parse::<i32>().ok().map(|v| v as usize))
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

// ---- the expression graph -----------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Node {
    k: K,
    a: [u32; 3],
}

#[derive(Default)]
struct Dag {
    nodes: Vec<Node>,
    index: HashMap<Node, u32>,
}

const NONE: u32 = u32::MAX;

impl Dag {
    fn raw(&mut self, k: K, a: [u32; 3]) -> u32 {
        let n = Node { k, a };
        if let Some(&id) = self.index.get(&n) {
            return id;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(n);
        self.index.insert(n, id);
        id
    }
    /// A node with commutative operands in canonical order: a constant on the right, otherwise
    /// the later-made operand on the left.
    fn mk(&mut self, k: K, mut a: [u32; 3]) -> u32 {
        if k == K::Add && self.is_const(a[0]) && !self.is_const(a[1]) {
            a.swap(0, 1);
        }
        if k.commutative() {
            let (x, y) = (a[0], a[1]);
            let (cx, cy) = (self.is_const(x), self.is_const(y));
            if (cx && !cy) || (cx == cy && x < y) {
                a[0] = y;
                a[1] = x;
            }
        }
        self.raw(k, a)
    }
    fn k(&self, id: u32) -> K {
        self.nodes[id as usize].k
    }
    fn arg(&self, id: u32, i: usize) -> u32 {
        self.nodes[id as usize].a[i]
    }
    fn konst(&mut self, v: f32) -> u32 {
        self.raw(K::Const(v.to_bits()), [NONE; 3])
    }
    fn is_const(&self, id: u32) -> bool {
        matches!(self.k(id), K::Const(_))
    }
    fn cval(&self, id: u32) -> Option<f32> {
        match self.k(id) {
            K::Const(b) => Some(f32::from_bits(b)),
            _ => None,
        }
    }
    fn un(&mut self, k: K, a: u32) -> u32 {
        self.mk(k, [a, NONE, NONE])
    }
    fn bin(&mut self, k: K, a: u32, b: u32) -> u32 {
        self.mk(k, [a, b, NONE])
    }
}

/// The value of an operation on constants, exactly as the per-pixel code computes it.
fn eval_op(k: K, a: f32, b: f32, c: f32) -> f32 {
    let t = |v: bool| if v { 1.0 } else { 0.0 };
    match k {
        K::Add => a + b,
        K::Sub => a - b,
        K::Mul => a * b,
        K::Div => a / b,
        K::Max => {
            if a < b {
                b
            } else {
                a
            }
        }
        K::Min => {
            if b < a {
                b
            } else {
                a
            }
        }
        K::Pow => a.powf(b),
        K::Gt => t(a > b),
        K::Lt => t(a < b),
        K::Eq => t(a == b),
        K::Ge => t(a >= b),
        K::Le => t(a <= b),
        K::And => t(a > 0.0 && b > 0.0),
        K::Or => t(a > 0.0 || b > 0.0),
        K::Xor => t((a > 0.0) != (b > 0.0)),
        K::Not => t(a <= 0.0 || a.is_nan()),
        K::Exp => a.exp(),
        K::Log => a.ln(),
        K::Sqrt => a.sqrt(),
        K::Abs => a.abs(),
        K::Sin => a.sin(),
        K::Cos => a.cos(),
        K::Neg => -a,
        K::Tern => {
            if a > 0.0 {
                b
            } else {
                c
            }
        }
        K::Fma => a.mul_add(b, c),
        K::Load(_) | K::Const(_) => unreachable!("not an operation"),
    }
}

/// The deepest nesting an expression may have.
const MAX_DEPTH: u32 = 5000;

/// Parses one expression into the graph; returns its root and its nesting depth.
fn parse(expr: &str, inputs: usize, dag: &mut Dag) -> Result<(u32, u32), String> {
    let mut stack: Vec<u32> = Vec::new();
    // the nesting depth of each value on the stack (a clip or constant is 1); deeper than
    // MAX_DEPTH is refused, as the reference does
    let mut depth: Vec<u32> = Vec::new();
    let too_deep = || format!("expression nested too deeply, rewrite it to be less deeply nested: {expr}");
    let mut any = false;
    for tok in expr.split(is_space).filter(|t| !t.is_empty()) {
        any = true;
        let short = || format!("insufficient values on stack: {tok}");
        if let Some(k) = op_of(tok) {
            let n = k.arity();
            if stack.len() < n {
                return Err(short());
            }
            let args = stack.split_off(stack.len() - n);
            let d = depth.split_off(depth.len() - n).into_iter().max().unwrap_or(0) + 1;
            if d > MAX_DEPTH {
                return Err(too_deep());
            }
            let mut a = [NONE; 3];
            a[..n].copy_from_slice(&args);
            let id = dag.mk(k, a);
            stack.push(id);
            depth.push(d);
        } else if let Some(c) = clip_of(tok) {
            if c >= inputs {
                return Err(format!("reference to undefined clip: {tok}"));
            }
            stack.push(dag.raw(K::Load(c as u8), [NONE; 3]));
            depth.push(1);
        } else if let Some(i) = stack_op(tok, "dup", 0) {
            let i = i.ok_or_else(|| format!("illegal token: {tok}"))?;
            if stack.len() <= i {
                return Err(short());
            }
            stack.push(stack[stack.len() - 1 - i]);
            depth.push(depth[depth.len() - 1 - i]);
        } else if let Some(i) = stack_op(tok, "swap", 1) {
            let i = i.ok_or_else(|| format!("illegal token: {tok}"))?;
            if stack.len() <= i {
                return Err(short());
            }
            let top = stack.len() - 1;
            stack.swap(top, top - i);
            depth.swap(top, top - i);
        } else {
            match parse_number(tok) {
                Ok(v) => {
                    stack.push(dag.konst(v));
                    depth.push(1);
                }
                Err(NumErr::Fail) => return Err(format!("failed to convert '{tok}' to float")),
                Err(NumErr::Partial) => return Err(format!("failed to convert '{tok}' to float, not the whole token could be converted")),
            }
        }
    }
    if !any {
        return Err(format!("empty expression: {expr}"));
    }
    if stack.len() != 1 {
        return Err(format!("unconsumed values on stack: {expr}"));
    }
    Ok((stack[0], depth[0]))
}

// ---- simplification ------------------------------------------------------------------------------------------

/// Sums and products with more terms than this (expressions that double themselves with dup) are
/// left as they are rather than flattened.
const TERMS_LIMIT: usize = 4096;

struct Opt<'a> {
    dag: &'a mut Dag,
    memo: HashMap<u32, u32>,
}

impl Opt<'_> {
    /// x^n for a small integer n > 0 by halving: x^n = x^ceil(n/2) * x^floor(n/2).
    fn ipow(&mut self, x: u32, n: u32) -> u32 {
        match n {
            1 => x,
            2 => self.dag.bin(K::Mul, x, x),
            _ => {
                let a = self.ipow(x, n.div_ceil(2));
                let b = self.ipow(x, n / 2);
                self.dag.bin(K::Mul, a, b)
            }
        }
    }

    /// pow with a constant exponent: products, reciprocals and square roots where the exponent is
    /// a multiple of 1/4 and the integer power involved is at most 64.
    fn pow_const(&mut self, x: u32, e: f32) -> Option<u32> {
        if e == 0.0 {
            return Some(self.dag.konst(1.0));
        }
        let e4 = e * 4.0;
        if e4.fract() != 0.0 {
            return None;
        }
        let (n, roots) = if e.fract() == 0.0 {
            (e, 0)
        } else if (e * 2.0).fract() == 0.0 {
            (e * 2.0, 1)
        } else {
            (e4, 2)
        };
        if n.abs() > 64.0 {
            return None;
        }
        let mut v = self.ipow(x, n.abs() as u32);
        if n < 0.0 {
            let one = self.dag.konst(1.0);
            v = self.dag.bin(K::Div, one, v);
        }
        for _ in 0..roots {
            v = self.dag.un(K::Sqrt, v);
        }
        Some(v)
    }

    /// Terms of a sum (through +, - and negation), each with its coefficient (a constant factor
    /// of a product counts as the coefficient), in the order they appear.
    fn sum_terms(&self, id: u32, sign: f32, out: &mut Vec<(u32, f32)>) {
        if out.len() > TERMS_LIMIT {
            return;
        }
        let d = &*self.dag;
        match d.k(id) {
            K::Add => {
                self.sum_terms(d.arg(id, 0), sign, out);
                self.sum_terms(d.arg(id, 1), sign, out);
            }
            K::Sub => {
                self.sum_terms(d.arg(id, 0), sign, out);
                self.sum_terms(d.arg(id, 1), -sign, out);
            }
            K::Neg => self.sum_terms(d.arg(id, 0), -sign, out),
            K::Mul if d.is_const(d.arg(id, 1)) && !d.is_const(d.arg(id, 0)) => {
                let c = d.cval(d.arg(id, 1)).unwrap_or(1.0);
                out.push((d.arg(id, 0), sign * c));
            }
            _ => out.push((id, sign)),
        }
    }

    /// A sum in which some term appears more than once, with like terms combined (in the order
    /// of their first appearance); None when there is nothing to combine.
    fn collect_sum(&mut self, k: K, a: [u32; 3]) -> Option<u32> {
        let mut terms = Vec::new();
        self.sum_terms(a[0], 1.0, &mut terms);
        self.sum_terms(a[1], if k == K::Sub { -1.0 } else { 1.0 }, &mut terms);
        if terms.len() > TERMS_LIMIT {
            return None;
        }
        let mut merged: Vec<(u32, f32)> = Vec::new();
        let mut combined = false;
        let mut konst: Option<(usize, f32)> = None;
        for (t, c) in terms {
            if let Some(v) = self.dag.cval(t) {
                match &mut konst {
                    Some((_, acc)) => {
                        *acc += v * c;
                    }
                    None => {
                        konst = Some((merged.len(), v * c));
                        merged.push((t, 0.0));
                    }
                }
                continue;
            }
            match merged.iter_mut().find(|(m, _)| *m == t) {
                Some((_, acc)) => {
                    *acc += c;
                    combined = true;
                }
                None => merged.push((t, c)),
            }
        }
        if !combined {
            return None;
        }
        let d = &mut *self.dag;
        let mut acc: Option<u32> = None;
        for (i, &(t, c)) in merged.iter().enumerate() {
            let (t, c) = match konst {
                Some((pos, v)) if pos == i => (d.konst(v), 1.0),
                _ => (t, c),
            };
            if c == 0.0 {
                continue;
            }
            acc = Some(match acc {
                None if c == 1.0 => t,
                None if c == -1.0 => d.un(K::Neg, t),
                None => {
                    let cc = d.konst(c);
                    d.bin(K::Mul, t, cc)
                }
                Some(s) if c == 1.0 => d.bin(K::Add, s, t),
                Some(s) if c == -1.0 => d.bin(K::Sub, s, t),
                Some(s) => {
                    let cc = d.konst(c);
                    let m = d.bin(K::Mul, t, cc);
                    d.bin(K::Add, s, m)
                }
            });
        }
        Some(acc.unwrap_or_else(|| d.konst(0.0)))
    }

    /// Factors of a product (through *), in the order they appear.
    fn product_factors(&self, id: u32, out: &mut Vec<u32>) {
        if out.len() > TERMS_LIMIT {
            return;
        }
        let d = &*self.dag;
        if d.k(id) == K::Mul {
            self.product_factors(d.arg(id, 0), out);
            self.product_factors(d.arg(id, 1), out);
        } else {
            out.push(id);
        }
    }

    /// A product in which some factor appears more than once, as powers in the order of first
    /// appearance with the constants last; None when no factor repeats.
    fn collect_product(&mut self, a: [u32; 3]) -> Option<u32> {
        let mut fs = Vec::new();
        self.product_factors(a[0], &mut fs);
        self.product_factors(a[1], &mut fs);
        if fs.len() > TERMS_LIMIT {
            return None;
        }
        let mut counts: Vec<(u32, u32)> = Vec::new();
        let mut konst: Option<f32> = None;
        let mut repeated = false;
        for f in fs {
            if let Some(v) = self.dag.cval(f) {
                konst = Some(konst.map_or(v, |k| k * v));
                continue;
            }
            match counts.iter_mut().find(|(m, _)| *m == f) {
                Some((_, n)) => {
                    *n += 1;
                    repeated = true;
                }
                None => counts.push((f, 1)),
            }
        }
        if !repeated {
            return None;
        }
        let d = &mut *self.dag;
        let mut acc: Option<u32> = None;
        for (f, n) in counts {
            let t = if n == 1 {
                f
            } else {
                let e = d.konst(n as f32);
                d.bin(K::Pow, f, e)
            };
            acc = Some(match acc {
                None => t,
                Some(s) => d.raw(K::Mul, [s, t, NONE]),
            });
        }
        let mut r = acc.expect("a repeated factor");
        if let Some(c) = konst {
            let cc = d.konst(c);
            r = d.bin(K::Mul, r, cc);
        }
        Some(r)
    }

    /// A sum whose non-constant terms all cancel. The reference turns such a sum into 0 as a whole,
    /// dropping its constant terms as well ("x 3 + x -" gives 0, not 3), and so do we.
    fn cancels_out(&self, id: u32) -> bool {
        let mut terms = Vec::new();
        self.sum_terms(id, 1.0, &mut terms);
        if terms.len() > TERMS_LIMIT {
            return false;
        }
        let mut merged: Vec<(u32, f32)> = Vec::new();
        for (t, c) in terms {
            if self.dag.is_const(t) {
                continue;
            }
            match merged.iter_mut().find(|(m, _)| *m == t) {
                Some((_, acc)) => *acc += c,
                None => merged.push((t, c)),
            }
        }
        !merged.is_empty() && merged.iter().all(|&(_, c)| c == 0.0)
    }

    /// One round of local rewrites over the graph below `id`.
    fn simplify(&mut self, id: u32) -> u32 {
        if let Some(&r) = self.memo.get(&id) {
            return r;
        }
        let n = self.dag.nodes[id as usize];
        if matches!(n.k, K::Add | K::Sub) && self.cancels_out(id) {
            let z = self.dag.konst(0.0);
            self.memo.insert(id, z);
            return z;
        }
        let mut a = n.a;
        for i in 0..n.k.arity() {
            a[i] = self.simplify(a[i]);
        }
        let r = self.rewrite(n.k, a);
        self.memo.insert(id, r);
        r
    }

    fn rewrite(&mut self, k: K, a: [u32; 3]) -> u32 {
        let d = &mut *self.dag;
        let ar = k.arity();
        // constant folding
        if ar > 0 && (0..ar).all(|i| d.is_const(a[i])) {
            let v = |i: usize| if i < ar { d.cval(a[i]).unwrap_or(0.0) } else { 0.0 };
            let r = eval_op(k, v(0), v(1), v(2));
            return d.konst(r);
        }
        let (x, y) = (a[0], a.get(1).copied().unwrap_or(NONE));
        let cy = if ar >= 2 { d.cval(y) } else { None };
        match k {
            K::Add => {
                if cy == Some(0.0) {
                    return x;
                }
                if let Some(r) = self.collect_sum(k, a) {
                    return r;
                }
                let d = &mut *self.dag;
                if x == y {
                    let two = d.konst(2.0);
                    return d.bin(K::Mul, x, two);
                }
                if d.k(y) == K::Neg {
                    let q = d.arg(y, 0);
                    return d.bin(K::Sub, x, q);
                }
                if d.k(x) == K::Neg {
                    let p = d.arg(x, 0);
                    return d.bin(K::Sub, y, p);
                }
                // (p + c1) + c2 -> p + (c1 + c2)
                if let Some(c2) = cy {
                    if d.k(x) == K::Add {
                        if let Some(c1) = d.cval(d.arg(x, 1)) {
                            let p = d.arg(x, 0);
                            let c = d.konst(c1 + c2);
                            return d.bin(K::Add, p, c);
                        }
                    }
                }
                // (p + c1) + (q + c2) -> (p + q) + (c1 + c2)
                if d.k(x) == K::Add && d.k(y) == K::Add {
                    if let (Some(c1), Some(c2)) = (d.cval(d.arg(x, 1)), d.cval(d.arg(y, 1))) {
                        let (p, q) = (d.arg(x, 0), d.arg(y, 0));
                        let s = d.bin(K::Add, p, q);
                        let c = d.konst(c1 + c2);
                        return d.bin(K::Add, s, c);
                    }
                }
                // (p + q) + p -> p*2 + q
                for (s, t) in [(x, y), (y, x)] {
                    if d.k(s) == K::Add && cy.is_none() {
                        let (p, q) = (d.arg(s, 0), d.arg(s, 1));
                        if p == t || q == t {
                            let other = if p == t { q } else { p };
                            let two = d.konst(2.0);
                            let m = d.bin(K::Mul, t, two);
                            return d.bin(K::Add, m, other);
                        }
                    }
                }
            }
            K::Sub => {
                if x == y {
                    return d.konst(0.0);
                }
                if let Some(r) = self.collect_sum(k, a) {
                    return r;
                }
                let d = &mut *self.dag;
                if let Some(c) = cy {
                    if c == 0.0 {
                        return x;
                    }
                    let nc = d.konst(-c);
                    return d.bin(K::Add, x, nc);
                }
                if d.cval(x) == Some(0.0) {
                    return d.un(K::Neg, y);
                }
                if d.k(y) == K::Neg {
                    let q = d.arg(y, 0);
                    return d.bin(K::Add, x, q);
                }
            }
            K::Mul => {
                match cy {
                    Some(c) if c == 1.0 => return x,
                    Some(c) if c == 0.0 => return d.konst(0.0),
                    Some(c) if c == -1.0 => return d.un(K::Neg, x),
                    _ => {}
                }
                if x == y && d.k(x) == K::Sqrt {
                    return d.arg(x, 0);
                }
                if let Some(r) = self.collect_product(a) {
                    return r;
                }
                let d = &mut *self.dag;
                if d.k(x) == K::Neg {
                    let p = d.arg(x, 0);
                    let m = d.bin(K::Mul, p, y);
                    return d.un(K::Neg, m);
                }
                if d.k(y) == K::Neg {
                    let q = d.arg(y, 0);
                    let m = d.bin(K::Mul, x, q);
                    return d.un(K::Neg, m);
                }
                // (p / q) * (r / s) -> (p * r) / (q * s); (p / q) * r -> (p * r) / q
                if d.k(x) == K::Div && d.k(y) == K::Div {
                    let (p, q, r, s2) = (d.arg(x, 0), d.arg(x, 1), d.arg(y, 0), d.arg(y, 1));
                    let n = d.bin(K::Mul, p, r);
                    let m = d.bin(K::Mul, q, s2);
                    return d.bin(K::Div, n, m);
                }
                if d.k(x) == K::Div && cy.is_none() {
                    let (p, q) = (d.arg(x, 0), d.arg(x, 1));
                    if q == y {
                        return p;
                    }
                    let n = d.bin(K::Mul, p, y);
                    return d.bin(K::Div, n, q);
                }
                if d.k(y) == K::Div {
                    let (p, q) = (d.arg(y, 0), d.arg(y, 1));
                    if q == x {
                        return p;
                    }
                    let n = d.bin(K::Mul, x, p);
                    return d.bin(K::Div, n, q);
                }
                if d.k(x) == K::Div && cy.is_some() {
                    let (p, q) = (d.arg(x, 0), d.arg(x, 1));
                    let n = d.bin(K::Mul, p, y);
                    return d.bin(K::Div, n, q);
                }
                let cx1 = if d.k(x) == K::Mul { d.cval(d.arg(x, 1)) } else { None };
                let cy1 = if d.k(y) == K::Mul { d.cval(d.arg(y, 1)) } else { None };
                match (cx1, cy, cy1) {
                    // (p * c1) * c2 -> p * (c1 * c2)
                    (Some(c1), Some(c2), _) => {
                        let p = d.arg(x, 0);
                        let c = d.konst(c1 * c2);
                        return d.bin(K::Mul, p, c);
                    }
                    // (p * c1) * (q * c2) -> (p * q) * (c1 * c2)
                    (Some(c1), None, Some(c2)) => {
                        let (p, q) = (d.arg(x, 0), d.arg(y, 0));
                        let m = d.bin(K::Mul, p, q);
                        let c = d.konst(c1 * c2);
                        return d.bin(K::Mul, m, c);
                    }
                    // (p * c) * q -> (p * q) * c
                    (Some(c1), None, None) => {
                        let p = d.arg(x, 0);
                        let m = d.bin(K::Mul, p, y);
                        let c = d.konst(c1);
                        return d.bin(K::Mul, m, c);
                    }
                    (None, None, Some(c2)) => {
                        let q = d.arg(y, 0);
                        let m = d.bin(K::Mul, x, q);
                        let c = d.konst(c2);
                        return d.bin(K::Mul, m, c);
                    }
                    _ => {}
                }
            }
            K::Div => {
                if x == y {
                    return d.konst(1.0);
                }
                if d.cval(x) == Some(0.0) {
                    return d.konst(0.0);
                }
                if let Some(c) = cy {
                    let r = d.konst(1.0f32 / c);
                    return d.bin(K::Mul, x, r);
                }
                // (p / q) / r -> p / (q * r); p / (q / r) -> (p * r) / q
                if d.k(x) == K::Div {
                    let (p, q) = (d.arg(x, 0), d.arg(x, 1));
                    let m = d.bin(K::Mul, q, y);
                    return d.bin(K::Div, p, m);
                }
                if d.k(y) == K::Div {
                    let (q, r) = (d.arg(y, 0), d.arg(y, 1));
                    let m = d.bin(K::Mul, x, r);
                    return d.bin(K::Div, m, q);
                }
                // p / (q * c) -> (p * (1/c)) / q
                if d.k(y) == K::Mul {
                    if let Some(c) = d.cval(d.arg(y, 1)) {
                        let q = d.arg(y, 0);
                        let r = d.konst(1.0f32 / c);
                        let m = d.bin(K::Mul, x, r);
                        return d.bin(K::Div, m, q);
                    }
                }
            }
            K::Neg => {
                if d.k(x) == K::Neg {
                    return d.arg(x, 0);
                }
            }
            K::Max | K::Min => {
                if x == y {
                    return x;
                }
            }
            K::Eq | K::Ge | K::Le => {
                if x == y {
                    return d.konst(1.0);
                }
            }
            K::Gt | K::Lt => {
                if x == y {
                    return d.konst(0.0);
                }
            }
            K::Tern => {
                if let Some(c) = d.cval(x) {
                    return if c > 0.0 { a[1] } else { a[2] };
                }
                if a[1] == a[2] {
                    return a[1];
                }
            }
            K::Not => {
                if d.k(x) == K::Not {
                    let p = d.arg(x, 0);
                    let z = d.konst(0.0);
                    return d.bin(K::Gt, p, z);
                }
            }
            K::Sqrt => {
                if d.k(x) == K::Pow && d.cval(d.arg(x, 1)) == Some(2.0) {
                    let p = d.arg(x, 0);
                    return d.un(K::Abs, p);
                }
                if d.k(x) == K::Mul && d.arg(x, 0) == d.arg(x, 1) {
                    let p = d.arg(x, 0);
                    return d.un(K::Abs, p);
                }
            }
            K::Abs => {
                if d.k(x) == K::Abs {
                    return x;
                }
            }
            K::Exp => {
                if d.k(x) == K::Log {
                    return d.arg(x, 0);
                }
            }
            K::Log => {
                if d.k(x) == K::Exp {
                    return d.arg(x, 0);
                }
            }
            K::Pow => {
                if let Some(e) = cy {
                    if e == 1.0 {
                        return x;
                    }
                    if e == 0.0 {
                        return d.konst(1.0);
                    }
                    // sqrt(p)^2 -> p; (p * p)^e -> p^(2e); (p / q)^n -> p^n / q^n
                    if e == 2.0 && d.k(x) == K::Sqrt {
                        return d.arg(x, 0);
                    }
                    if d.k(x) == K::Mul && d.arg(x, 0) == d.arg(x, 1) {
                        let p = d.arg(x, 0);
                        let c = d.konst(2.0 * e);
                        return d.bin(K::Pow, p, c);
                    }
                    if d.k(x) == K::Div && e.fract() == 0.0 && e > 0.0 && e <= 64.0 {
                        let (p, q) = (d.arg(x, 0), d.arg(x, 1));
                        let n = d.bin(K::Pow, p, y);
                        let m = d.bin(K::Pow, q, y);
                        return d.bin(K::Div, n, m);
                    }
                }
            }
            _ => {}
        }
        let d = &mut *self.dag;
        d.mk(k, a)
    }

    /// pow with a constant exponent written out as products and square roots.
    fn expand_pow(&mut self, id: u32) -> u32 {
        if let Some(&r) = self.memo.get(&id) {
            return r;
        }
        let n = self.dag.nodes[id as usize];
        let mut a = n.a;
        for i in 0..n.k.arity() {
            a[i] = self.expand_pow(a[i]);
        }
        let e = if n.k == K::Pow { self.dag.cval(a[1]) } else { None };
        let r = match (n.k, e) {
            (K::Pow, Some(e)) => match self.pow_const(a[0], e) {
                Some(r) => r,
                None => self.dag.mk(n.k, a),
            },
            _ => self.dag.mk(n.k, a),
        };
        self.memo.insert(id, r);
        r
    }

    /// (p + c1) * c2 -> fma(p, c2, c1 * c2), for p that is not itself a product.
    fn distribute(&mut self, id: u32) -> u32 {
        if let Some(&r) = self.memo.get(&id) {
            return r;
        }
        let n = self.dag.nodes[id as usize];
        let mut a = n.a;
        for i in 0..n.k.arity() {
            a[i] = self.distribute(a[i]);
        }
        let d = &mut *self.dag;
        let r = if n.k == K::Mul && d.k(a[0]) == K::Add {
            let s = a[0];
            match (d.cval(a[1]), d.cval(d.arg(s, 1))) {
                (Some(c2), Some(c1)) if !matches!(d.k(d.arg(s, 0)), K::Mul | K::Fma) => {
                    let p = d.arg(s, 0);
                    let cm = d.konst(c2);
                    let cc = d.konst(c1 * c2);
                    d.raw(K::Fma, [p, cm, cc])
                }
                _ => d.mk(n.k, a),
            }
        } else {
            d.mk(n.k, a)
        };
        self.memo.insert(id, r);
        r
    }

    /// a*b + c, c + a*b, a*b - c and c - a*b as one fused operation.
    fn fuse(&mut self, id: u32) -> u32 {
        if let Some(&r) = self.memo.get(&id) {
            return r;
        }
        let n = self.dag.nodes[id as usize];
        let mut a = n.a;
        for i in 0..n.k.arity() {
            a[i] = self.fuse(a[i]);
        }
        let d = &mut *self.dag;
        let prod = |d: &Dag, v: u32| -> Option<(u32, u32, bool)> {
            match d.k(v) {
                K::Mul => Some((d.arg(v, 0), d.arg(v, 1), false)),
                K::Neg if d.k(d.arg(v, 0)) == K::Mul => {
                    let m = d.arg(v, 0);
                    Some((d.arg(m, 0), d.arg(m, 1), true))
                }
                _ => None,
            }
        };
        let neg = |d: &mut Dag, v: u32| -> u32 {
            match d.cval(v) {
                Some(c) => d.konst(-c),
                None => d.un(K::Neg, v),
            }
        };
        let r = match n.k {
            K::Add => {
                // the smaller operand (by size; the right one on a tie) is fused first
                let (l, r) = if size(d, a[0]) < size(d, a[1]) { (a[1], a[0]) } else { (a[0], a[1]) };
                if let Some((p, q, ng)) = prod(d, r) {
                    let p = if ng { neg(d, p) } else { p };
                    d.raw(K::Fma, [p, q, l])
                } else if let Some((p, q, ng)) = prod(d, l) {
                    let p = if ng { neg(d, p) } else { p };
                    d.raw(K::Fma, [p, q, r])
                } else {
                    d.mk(n.k, a)
                }
            }
            K::Sub => {
                if let Some((p, q, ng)) = prod(d, a[1]) {
                    let p = if ng { p } else { neg(d, p) };
                    d.raw(K::Fma, [p, q, a[0]])
                } else if let Some((p, q, ng)) = prod(d, a[0]) {
                    let p = if ng { neg(d, p) } else { p };
                    let c = neg(d, a[1]);
                    d.raw(K::Fma, [p, q, c])
                } else {
                    d.mk(n.k, a)
                }
            }
            _ => d.mk(n.k, a),
        };
        self.memo.insert(id, r);
        r
    }
}

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

fn optimize(dag: &mut Dag, root: u32) -> u32 {
    let mut root = root;
    for _ in 0..64 {
        let mut o = Opt { dag, memo: HashMap::new() };
        let r = o.simplify(root);
        if r == root {
            break;
        }
        root = r;
    }
    let mut o = Opt { dag, memo: HashMap::new() };
    let root = o.expand_pow(root);
    let mut o = Opt { dag, memo: HashMap::new() };
    let root = o.distribute(root);
    let mut o = Opt { dag, memo: HashMap::new() };
    o.fuse(root)
}

// ---- the program ---------------------------------------------------------------------------------------------

const BLOCK: usize = 64;

#[derive(Clone, Copy, Debug)]
enum Ins {
    Load { dst: u16, clip: u8 },
    Const { dst: u16, v: f32 },
    Op { k: K, dst: u16, a: u16, b: u16, c: u16 },
}

/// A compiled plane expression: instructions over registers of BLOCK samples.
#[derive(Clone, Debug)]
struct Program {
    ins: Vec<Ins>,
    regs: usize,
    result: u16,
    clips: Vec<u8>,
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
    let mut clips = Vec::new();
    for (i, &id) in order.iter().enumerate() {
        let n = dag.nodes[id as usize];
        let args: Vec<u16> = (0..n.k.arity()).map(|j| reg_of[&n.a[j]]).collect();
        let dst = free.pop().unwrap_or_else(|| {
            regs += 1;
            regs - 1
        });
        // operands whose last use is here are free from the next instruction on (never the
        // destination of this one, so that an instruction never writes what it reads)
        for j in 0..n.k.arity() {
            let p = pos[&n.a[j]];
            if last_use[p] == i && !free.contains(&reg_of[&n.a[j]]) {
                free.insert(0, reg_of[&n.a[j]]);
            }
        }
        reg_of.insert(id, dst);
        let g = |j: usize| args.get(j).or(args.first()).copied().unwrap_or(0);
        ins.push(match n.k {
            K::Load(c) => {
                if !clips.contains(&c) {
                    clips.push(c);
                }
                Ins::Load { dst, clip: c }
            }
            K::Const(b) => Ins::Const { dst, v: f32::from_bits(b) },
            k => Ins::Op { k, dst, a: g(0), b: g(1), c: g(2) },
        });
    }
    Program { ins, regs: regs.max(1) as usize, result: reg_of[&root], clips }
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
fn run_block(p: &Program, regs: &mut [[f32; BLOCK]], load: &dyn Fn(u8, &mut [f32; BLOCK]), n: usize) {
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
                    (&*base.add(a as usize), &*base.add(b as usize), &*base.add(c as usize), &mut *base.add(dst as usize))
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
                    K::Exp => each_n!(|x, _y| x.exp()),
                    K::Log => each_n!(|x, _y| x.ln()),
                    K::Sin => each_n!(|x, _y| x.sin()),
                    K::Cos => each_n!(|x, _y| x.cos()),
                    K::Pow => each_n!(|x, y| x.powf(y)),
                    K::Load(_) | K::Const(_) => unreachable!("not an operation"),
                }
            }
        }
    }
}

/// Runs a program over one plane. `srcs[c]` is plane `p` of clip `c`.
#[inline(always)]
fn run_plane(prog: &Program, srcs: &[(PlaneRef, VSVideoFormat)], dst: &mut PlaneMut, ofmt: &VSVideoFormat) {
    let (w, h) = (dst.width, dst.height);
    let mut regs = vec![[0f32; BLOCK]; prog.regs];
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
            let n = BLOCK.min(w - x0);
            let load = |c: u8, r: &mut [f32; BLOCK]| {
                // SAFETY: each row holds `w` samples and x0 + n <= w.
                unsafe {
                    match ptrs[c as usize] {
                        Src::U8(p) => {
                            let s = std::slice::from_raw_parts(p.add(x0), n);
                            for (o, &v) in r.iter_mut().zip(s) {
                                *o = v as f32;
                            }
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
                            let s = std::slice::from_raw_parts(p.add(x0), n);
                            r[..n].copy_from_slice(s);
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
                (stInteger, 1) => {
                    for (o, &v) in dst.row::<u8>(y)[x0..x0 + n].iter_mut().zip(res) {
                        *o = to_int(v, max) as u8;
                    }
                }
                (stInteger, _) => {
                    for (o, &v) in dst.row::<u16>(y)[x0..x0 + n].iter_mut().zip(res) {
                        *o = to_int(v, max) as u16;
                    }
                }
                (_, 2) => f32_to_half_row(&res[..n], &mut dst.row::<u16>(y)[x0..x0 + n]),
                _ => dst.row::<f32>(y)[x0..x0 + n].copy_from_slice(&res[..n]),
            }
            x0 += n;
        }
    }
}

/// Clamp to [0, max] and round half to even; a NaN becomes 0 (the reference's C path; its compiled
/// default code makes it `max`, but it also never makes a NaN out of a square root or logarithm of a
/// negative number, which would become 0 here as there).
#[inline(always)]
fn to_int(v: f32, max: f32) -> i32 {
    let t = if max < v { max } else { v };
    let t = if 0.0 < t { t } else { 0.0 };
    // adding 2^23 rounds to an integer, half to even, for 0 <= t < 2^23, and leaves that
    // integer in the low mantissa bits
    ((t + 8_388_608.0).to_bits() - 0x4b00_0000) as i32
}

// ---- the filter ------------------------------------------------------------------------------------------------

/// What each output plane does.
#[derive(Clone)]
enum PlaneJob {
    Copy,
    Run(Arc<Program>),
}

fn expr(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let args = Args(input);
    let nodes = args.nodes("clips");
    let exprs = args.strings("expr").unwrap_or_default();
    let mut vis = Vec::with_capacity(nodes.len());
    for n in &nodes {
        let vi = util::video_info(n)?;
        if !util::is_constant(&vi) {
            return Err("Only clips with constant format and dimensions allowed".into());
        }
        vis.push(vi);
    }
    if nodes.len() > 26 {
        return Err("More than 26 input clips provided".into());
    }
    for vi in &vis {
        check_format(&vi.format)?;
    }
    let v0 = vis[0];
    for vi in &vis[1..] {
        if vi.format.numPlanes != v0.format.numPlanes
            || vi.width != v0.width
            || vi.height != v0.height
            || vi.format.subSamplingW != v0.format.subSamplingW
            || vi.format.subSamplingH != v0.format.subSamplingH
        {
            return Err("All inputs must have the same number of planes and the same dimensions, subsampling included".into());
        }
    }
    let mut ovi = v0;
    if let Some(id) = args.int("format") {
        let f = u32::try_from(id).ok().and_then(format::video_by_id).ok_or("the format id specified in format is invalid")?;
        if f.colorFamily != v0.format.colorFamily || f.subSamplingW != v0.format.subSamplingW || f.subSamplingH != v0.format.subSamplingH {
            return Err("the output format must have the same color family and subsampling as the input".into());
        }
        ovi.format = f;
    }
    let ofmt = ovi.format;
    check_format(&ofmt)?;
    let np = ofmt.numPlanes as usize;
    if exprs.len() > np {
        return Err("More expressions given than there are planes".into());
    }
    let mut jobs = Vec::with_capacity(np);
    for p in 0..np {
        let e = &exprs[p.min(exprs.len() - 1)];
        if e.is_empty() {
            jobs.push(PlaneJob::Copy);
            continue;
        }
        let mut dag = Dag::default();
        let (root, depth) = parse(e, nodes.len(), &mut dag)?;
        let build = move || {
            let mut dag = dag;
            let root = optimize(&mut dag, root);
            compile(&dag, root)
        };
        // the rewriting recurses as deep as the expression nests: deep ones get a thread with
        // room for that, whatever thread creates the filter
        let prog = if depth > 200 {
            std::thread::scope(|s| std::thread::Builder::new().stack_size(256 << 20).spawn_scoped(s, build).map(|h| h.join()))
                .map_err(|e| format!("cannot start a thread: {e}"))?
                .map_err(|_| "internal error while compiling the expression".to_string())?
        } else {
            build()
        };
        jobs.push(PlaneJob::Run(Arc::new(prog)));
    }
    let first_fmt = v0.format;
    let fmts: Vec<VSVideoFormat> = vis.iter().map(|v| v.format).collect();
    let node = pointwise_node(core, "Expr", ovi, nodes, move |_, frames, core| {
        let f0 = &frames[0];
        let copy: [bool; 3] = std::array::from_fn(|p| p < np && matches!(jobs[p], PlaneJob::Copy) && first_fmt == ofmt);
        let process: [bool; 3] = std::array::from_fn(|p| !copy[p]);
        let mut dst = new_frame_like(core, &ofmt, f0, &process)?;
        for p in 0..np {
            let PlaneJob::Run(prog) = &jobs[p] else { continue };
            let srcs: Vec<(PlaneRef, VSVideoFormat)> = frames.iter().zip(&fmts).map(|(f, fmt)| (PlaneRef::new(f, p), *fmt)).collect();
            let mut d = PlaneMut::new(&mut dst, p);
            with_fast_math(|| run_plane(prog, &srcs, &mut d, &ofmt));
        }
        Ok(Arc::new(dst))
    })?;
    util::set_clip(out, node);
    Ok(())
}
