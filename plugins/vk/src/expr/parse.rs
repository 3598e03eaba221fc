//! R81's rewrites as vk.Expr applies them. R81 rewrites expressions before running them, and
//! those rewrites change float results in the last bit, so the GPU must run the rewritten graph,
//! not the expression as written.
//!
//! The language and most rewrites are vsvk-expr's, shared with the core's CPU std.Expr. Three
//! things are the plugin's own, found by probing R81's default (compiled) path (`vk_expr.rs`
//! holds the cases), where the shared rules alone differ from R81 in the last bit: the order of
//! the terms of a sum and the factors of a product ([`Canon`]), quotients cancelling common
//! factors ([`Canon::cancel`]), and which of two products a sum fuses ([`fuse_left`]). The core
//! keeps its own rules, against which its results are pinned, so these stay here rather than in
//! the shared crate.
#![allow(clippy::needless_range_loop)]
use std::collections::HashMap;

use vsvk_expr::rewrite::{self, sum_terms, TERMS_LIMIT};
pub use vsvk_expr::{parse, Dag, K, NONE};

/// The ordering pass, with its own memo of rewritten nodes.
struct Canon<'a> {
    dag: &'a mut Dag,
    memo: HashMap<u32, u32>,
}

impl Canon<'_> {
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
        sum_terms(self.dag, id, 1.0, &mut raw);
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
}

/// Which product of a sum R81 fuses, found by probing it (the core's rule, the smaller operand
/// first, differs on `x 2 pow y 3 pow +`): R81 orders the terms of a sum by their clips and fuses
/// the last. With each product's clips sorted (constants left out), the product whose list is
/// the greater one where they first differ is fused: y*y*y over x*x, z*0.5 over x*x*y, z*x over
/// x*(y*y). Where that says nothing (other factors than clips, one list a prefix of the other),
/// the right operand. True where the left one is fused.
fn fuse_left(d: &Dag, l: u32, r: u32) -> bool {
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
    match (rewrite::product(d, l).is_some() && rewrite::product(d, r).is_some(), clips_of(d, l), clips_of(d, r)) {
        (true, Some(p), Some(q)) => p.iter().zip(&q).find(|(u, v)| u != v).is_some_and(|(u, v)| u > v),
        _ => false,
    }
}

pub fn optimize(dag: &mut Dag, root: u32) -> u32 {
    let root = rewrite::simplify(dag, root);
    // before powers are written out as products: R81 sorts (x*z)*y into (x*y)*z but leaves
    // x*y*y, which it collects as x*y^2, as x*(y*y)
    let root = Canon { dag, memo: HashMap::new() }.canon(root);
    let root = rewrite::expand_pow(dag, root);
    let root = rewrite::distribute(dag, root);
    rewrite::fuse(dag, root, &fuse_left)
}
