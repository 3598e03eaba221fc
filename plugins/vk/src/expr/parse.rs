//! Parsing and rewriting of std.Expr's language. R81 rewrites expressions before running them
//! (constant folding, algebraic identities, reassociation of constants, reciprocals for constant
//! divisors, small constant powers as products and square roots, fused multiply-adds, operands
//! of sums and products put in order), and those rewrites change float results in the last bit,
//! so the GPU must run the rewritten graph, not the expression as written.
//!
//! Parsing and most rewrites are a copy of our core's CPU Expr (core/src/stdlib/pointwise/
//! expr.rs; the plugin cannot link the core). Three things were added here after probing R81
//! (`vk_expr.rs` holds the cases), where the core's copy differs from R81 in the last bit:
//! the order of the terms of a sum and the factors of a product ([`Opt::canon`]), quotients
//! cancelling common factors ([`Opt::cancel`]), and which of two products a sum fuses.
#![allow(clippy::needless_range_loop)]
use std::collections::HashMap;

// ---- tokens and parsing ----------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum K {
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
    pub fn arity(self) -> usize {
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
pub struct Node {
    pub k: K,
    pub a: [u32; 3],
}

#[derive(Default)]
pub struct Dag {
    pub nodes: Vec<Node>,
    index: HashMap<Node, u32>,
}

pub const NONE: u32 = u32::MAX;

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
pub fn parse(expr: &str, inputs: usize, dag: &mut Dag) -> Result<(u32, u32), String> {
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

    /// The clips of a product of clips and constants, sorted (constants left out); None for
    /// anything else.
    fn product_clips(&self, v: u32) -> Option<Vec<u8>> {
        let d = &*self.dag;
        let mut out = Vec::new();
        let mut todo = vec![v];
        while let Some(t) = todo.pop() {
            match d.k(t) {
                K::Mul => todo.extend([d.arg(t, 0), d.arg(t, 1)]),
                // a small whole power (x*x was collected as x^2) counts its base that often
                K::Pow => match d.cval(d.arg(t, 1)) {
                    Some(e) if e.fract() == 0.0 && (1.0..=64.0).contains(&e) => todo.extend(std::iter::repeat_n(d.arg(t, 0), e as usize)),
                    _ => return None,
                },
                K::Load(c) => out.push(c),
                K::Const(_) => {}
                _ => return None,
            }
        }
        out.sort_unstable();
        Some(out)
    }

    /// R81 orders the terms of a sum and the factors of a product by their clips before it runs
    /// them (found by probing: `z y + x +` is (x + y) + z there, `y x z + -` is (-x + y) - z,
    /// `3 z + y y + +` is fma(y, 2, z) + 3, `z y * x *` is (x * y) * z). Sums (through + - and
    /// negation, constant factors as coefficients) whose every term is a product of clips are
    /// rebuilt from the left in the order of each term's sorted clips, constants last; products
    /// of clips alone likewise, their constant last. Other chains are left as they are: how R81
    /// orders other terms is not known.
    fn canon(&mut self, id: u32) -> u32 {
        if let Some(&r) = self.memo.get(&id) {
            return r;
        }
        let n = self.dag.nodes[id as usize];
        let sorted = match n.k {
            K::Add | K::Sub => self.canon_sum(id),
            K::Mul => self.canon_product(id),
            K::Div => self.cancel(id),
            _ => None,
        };
        let r = match sorted {
            Some(r) => r,
            None => {
                let mut a = n.a;
                for i in 0..n.k.arity() {
                    a[i] = self.canon(a[i]);
                }
                self.dag.raw(n.k, a)
            }
        };
        self.memo.insert(id, r);
        r
    }

    /// Every clip a term reads, sorted (a term that is not a product of clips is ordered by
    /// them: `1.7 y / z y + +` adds 1.7/y, y, z in that order there).
    fn all_clips(&self, v: u32) -> Option<Vec<u8>> {
        let d = &*self.dag;
        let mut out = Vec::new();
        let mut todo = vec![v];
        while let Some(t) = todo.pop() {
            if out.len() > TERMS_LIMIT {
                return None;
            }
            let n = d.nodes[t as usize];
            if let K::Load(c) = n.k {
                out.push(c);
            }
            todo.extend(n.a[..n.k.arity()].iter().copied());
        }
        out.sort_unstable();
        (!out.is_empty()).then_some(out)
    }

    /// A sum through additions alone (no subtraction or negation on the way to its terms).
    fn only_adds(&self, id: u32) -> bool {
        let d = &*self.dag;
        let mut todo = vec![id];
        while let Some(t) = todo.pop() {
            match d.k(t) {
                K::Add => todo.extend([d.arg(t, 0), d.arg(t, 1)]),
                K::Sub | K::Neg => return false,
                _ => {}
            }
        }
        true
    }

    fn canon_sum(&mut self, id: u32) -> Option<u32> {
        let mut raw = Vec::new();
        self.sum_terms(id, 1.0, &mut raw);
        if raw.len() < 2 || raw.len() > TERMS_LIMIT {
            return None;
        }
        let mut terms: Vec<(Option<Vec<u8>>, u32, f32)> = Vec::new();
        let mut konst: Option<f32> = None;
        for (t, c) in raw {
            if let Some(v) = self.dag.cval(t) {
                konst = Some(konst.map_or(v * c, |k| k + v * c));
                continue;
            }
            let t = self.canon(t);
            let key = match self.dag.k(t) {
                // a product of other things than clips: its place is not known
                K::Mul => self.product_clips(t),
                _ => self.product_clips(t).or_else(|| self.all_clips(t)),
            };
            terms.push((key, t, c));
        }
        if terms.is_empty() {
            return None;
        }
        // terms that are not products of clips keep their order; a constant still goes last
        // (`x 1.7 + 3 x / +` is (x + 3/x) + 1.7 there)
        // (through additions only: `z x / 3 y - +` stays z/x + (3 - y))
        if terms.iter().any(|t| t.0.is_none()) && (konst.is_none() || !self.only_adds(id)) {
            return None;
        }
        if terms.iter().all(|t| t.0.is_some()) {
            terms.sort_by(|a, b| a.0.cmp(&b.0));
        }
        // a sum starts with its first positive term rather than a negation (`y y * x x * -` is
        // fma(-x, x, y*y) there)
        if terms[0].2 < 0.0 {
            if let Some(i) = terms.iter().position(|t| t.2 > 0.0) {
                let t = terms.remove(i);
                terms.insert(0, t);
            }
        }
        let d = &mut *self.dag;
        let scaled = |d: &mut Dag, t: u32, c: f32| if c == 1.0 { t } else { let k = d.konst(c); d.raw(K::Mul, [t, k, NONE]) };
        let (_, t0, c0) = terms[0];
        let mut acc = if c0 == -1.0 { d.raw(K::Neg, [t0, NONE, NONE]) } else { scaled(d, t0, c0) };
        for &(_, t, c) in &terms[1..] {
            acc = if c == -1.0 {
                d.raw(K::Sub, [acc, t, NONE])
            } else {
                let s = scaled(d, t, c);
                d.raw(K::Add, [acc, s, NONE])
            };
        }
        if let Some(k) = konst.filter(|&k| k != 0.0) {
            let k = d.konst(k);
            acc = d.raw(K::Add, [acc, k, NONE]);
        }
        Some(acc)
    }

    /// A quotient of products with factors in common, cancelled: R81 makes `z y z * z * /`
    /// 1/(y*z) and `0.5 y * y 3 * /` the constant 0.5/3 (found by probing).
    fn cancel(&mut self, id: u32) -> Option<u32> {
        let (p, q) = (self.canon(self.dag.arg(id, 0)), self.canon(self.dag.arg(id, 1)));
        let factors = |d: &Dag, v: u32| -> (Vec<u32>, Option<f32>) {
            let (mut out, mut k) = (Vec::new(), None::<f32>);
            let mut todo = vec![v];
            while let Some(t) = todo.pop() {
                match d.k(t) {
                    K::Mul => {
                        todo.push(d.arg(t, 1));
                        todo.push(d.arg(t, 0));
                    }
                    K::Const(b) => k = Some(k.map_or(f32::from_bits(b), |c| c * f32::from_bits(b))),
                    // x*x was collected as x^2: its factors are x and x
                    K::Pow => match d.cval(d.arg(t, 1)) {
                        Some(e) if e.fract() == 0.0 && (1.0..=64.0).contains(&e) => todo.extend(std::iter::repeat_n(d.arg(t, 0), e as usize)),
                        _ => out.push(t),
                    },
                    _ => out.push(t),
                }
            }
            (out, k)
        };
        let (mut num, kn) = factors(self.dag, p);
        let (mut den, kd) = factors(self.dag, q);
        let mut any = false;
        let mut i = 0;
        while i < num.len() {
            if let Some(j) = den.iter().position(|&t| t == num[i]) {
                den.remove(j);
                num.remove(i);
                any = true;
            } else {
                i += 1;
            }
        }
        if !any {
            return None;
        }
        let d = &mut *self.dag;
        let build = |d: &mut Dag, list: &[u32], k: Option<f32>| -> u32 {
            let mut acc = list.first().copied();
            for &t in list.iter().skip(1) {
                acc = Some(d.raw(K::Mul, [acc.expect("set"), t, NONE]));
            }
            match (acc, k) {
                (Some(a), Some(c)) => {
                    let c = d.konst(c);
                    d.raw(K::Mul, [a, c, NONE])
                }
                (Some(a), None) => a,
                (None, c) => d.konst(c.unwrap_or(1.0)),
            }
        };
        let n = build(d, &num, kn);
        if den.is_empty() {
            let c = kd.unwrap_or(1.0);
            return Some(match d.cval(n) {
                Some(v) => d.konst(v / c),
                None if c == 1.0 => n,
                None => {
                    let r = d.konst(1.0 / c);
                    d.raw(K::Mul, [n, r, NONE])
                }
            });
        }
        let m = build(d, &den, kd);
        Some(d.raw(K::Div, [n, m, NONE]))
    }

    fn canon_product(&mut self, id: u32) -> Option<u32> {
        let mut factors = Vec::new();
        let mut todo = vec![id];
        while let Some(t) = todo.pop() {
            if self.dag.k(t) == K::Mul {
                todo.push(self.dag.arg(t, 1));
                todo.push(self.dag.arg(t, 0));
            } else {
                factors.push(t);
            }
        }
        let mut clips: Vec<(u8, u32)> = Vec::new();
        let mut consts = Vec::new();
        for &t in &factors {
            match self.dag.k(t) {
                K::Load(c) => clips.push((c, t)),
                K::Const(_) => consts.push(t),
                _ => return None,
            }
        }
        if clips.is_empty() {
            return None;
        }
        clips.sort_by_key(|&(c, _)| c);
        let list: Vec<u32> = clips.into_iter().map(|(_, t)| t).chain(consts).collect();
        let d = &mut *self.dag;
        Some(list[1..].iter().fold(list[0], |acc, &t| d.raw(K::Mul, [acc, t, NONE])))
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
                // which product R81 fuses, found by probing it (the core's rule, the smaller
                // operand first, differs on `x 2 pow y 3 pow +`): R81 orders the terms of a sum
                // by their clips and fuses the last. With each product's clips sorted (constants
                // left out), the product whose list is the greater one where they first differ
                // is fused: y*y*y over x*x, z*0.5 over x*x*y, z*x over x*(y*y). Where that says
                // nothing (other factors than clips, one list a prefix of the other), the right
                // operand.
                let clips_of = |d: &Dag, v: u32| -> Option<Vec<u8>> {
                    let mut out = Vec::new();
                    let mut todo = vec![v];
                    while let Some(t) = todo.pop() {
                        match d.k(t) {
                            K::Mul => todo.extend([d.arg(t, 0), d.arg(t, 1)]),
                            K::Neg => todo.push(d.arg(t, 0)),
                            K::Load(c) => out.push(c),
                            K::Const(_) => {}
                            _ => return None,
                        }
                    }
                    out.sort_unstable();
                    Some(out)
                };
                let left_first = match (prod(d, a[0]).is_some() && prod(d, a[1]).is_some(), clips_of(d, a[0]), clips_of(d, a[1])) {
                    (true, Some(p), Some(q)) => p.iter().zip(&q).find(|(u, v)| u != v).is_some_and(|(u, v)| u > v),
                    _ => false,
                };
                let (l, r) = if left_first { (a[1], a[0]) } else { (a[0], a[1]) };
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

pub fn optimize(dag: &mut Dag, root: u32) -> u32 {
    let mut root = root;
    for _ in 0..64 {
        let mut o = Opt { dag, memo: HashMap::new() };
        let r = o.simplify(root);
        if r == root {
            break;
        }
        root = r;
    }
    // before powers are written out as products: R81 sorts (x*z)*y into (x*y)*z but leaves
    // x*y*y, which it collects as x*y^2, as x*(y*y)
    let mut o = Opt { dag, memo: HashMap::new() };
    let root = o.canon(root);
    let mut o = Opt { dag, memo: HashMap::new() };
    let root = o.expand_pow(root);
    let mut o = Opt { dag, memo: HashMap::new() };
    let root = o.distribute(root);
    let mut o = Opt { dag, memo: HashMap::new() };
    o.fuse(root)
}
