//! The rewrites R81 applies to an expression before it runs it (constant folding, algebraic
//! identities, reassociation of constants, reciprocals for constant divisors, small constant
//! powers as products and square roots, fused multiply-adds). They change float results in the
//! last bit, so both of our Exprs run the rewritten graph. Each pass is a function over the
//! graph; a side strings together the passes it needs (see the core's and the plugin's
//! `optimize`).
use std::collections::HashMap;

use crate::{eval_op, Dag, K, NONE};

/// Terms of a sum (through +, - and negation), each with its coefficient (a constant factor
/// of a product counts as the coefficient), in the order they appear.
pub fn sum_terms(d: &Dag, id: u32, sign: f32, out: &mut Vec<(u32, f32)>) {
    if out.len() > TERMS_LIMIT {
        return;
    }
    match d.k(id) {
        K::Add => {
            sum_terms(d, d.arg(id, 0), sign, out);
            sum_terms(d, d.arg(id, 1), sign, out);
        }
        K::Sub => {
            sum_terms(d, d.arg(id, 0), sign, out);
            sum_terms(d, d.arg(id, 1), -sign, out);
        }
        K::Neg => sum_terms(d, d.arg(id, 0), -sign, out),
        K::Mul if d.is_const(d.arg(id, 1)) && !d.is_const(d.arg(id, 0)) => {
            let c = d.cval(d.arg(id, 1)).unwrap_or(1.0);
            out.push((d.arg(id, 0), sign * c));
        }
        _ => out.push((id, sign)),
    }
}

/// Sums and products with more terms than this (expressions that double themselves with dup) are
/// left as they are rather than flattened.
pub const TERMS_LIMIT: usize = 4096;

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

    fn sum_terms(&self, id: u32, sign: f32, out: &mut Vec<(u32, f32)>) {
        sum_terms(self.dag, id, sign, out)
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
    fn fuse(&mut self, id: u32, swap: &dyn Fn(&Dag, u32, u32) -> bool) -> u32 {
        if let Some(&r) = self.memo.get(&id) {
            return r;
        }
        let n = self.dag.nodes[id as usize];
        let mut a = n.a;
        for i in 0..n.k.arity() {
            a[i] = self.fuse(a[i], swap);
        }
        let d = &mut *self.dag;
        let neg = |d: &mut Dag, v: u32| -> u32 {
            match d.cval(v) {
                Some(c) => d.konst(-c),
                None => d.un(K::Neg, v),
            }
        };
        let r = match n.k {
            K::Add => {
                let (l, r) = if swap(d, a[0], a[1]) { (a[1], a[0]) } else { (a[0], a[1]) };
                if let Some((p, q, ng)) = product(d, r) {
                    let p = if ng { neg(d, p) } else { p };
                    d.raw(K::Fma, [p, q, l])
                } else if let Some((p, q, ng)) = product(d, l) {
                    let p = if ng { neg(d, p) } else { p };
                    d.raw(K::Fma, [p, q, r])
                } else {
                    d.mk(n.k, a)
                }
            }
            K::Sub => {
                if let Some((p, q, ng)) = product(d, a[1]) {
                    let p = if ng { p } else { neg(d, p) };
                    d.raw(K::Fma, [p, q, a[0]])
                } else if let Some((p, q, ng)) = product(d, a[0]) {
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

/// The operands of a product or of a negated product (then the flag is set), for fusing.
pub fn product(d: &Dag, v: u32) -> Option<(u32, u32, bool)> {
    match d.k(v) {
        K::Mul => Some((d.arg(v, 0), d.arg(v, 1), false)),
        K::Neg if d.k(d.arg(v, 0)) == K::Mul => {
            let m = d.arg(v, 0);
            Some((d.arg(m, 0), d.arg(m, 1), true))
        }
        _ => None,
    }
}

/// Local rewrites, repeated until nothing changes (64 rounds at most).
pub fn simplify(dag: &mut Dag, root: u32) -> u32 {
    let mut root = root;
    for _ in 0..64 {
        let mut o = Opt { dag, memo: HashMap::new() };
        let r = o.simplify(root);
        if r == root {
            break;
        }
        root = r;
    }
    root
}

/// pow with a constant exponent written out as products, reciprocals and square roots.
pub fn expand_pow(dag: &mut Dag, root: u32) -> u32 {
    Opt { dag, memo: HashMap::new() }.expand_pow(root)
}

/// Every square root's operand clamped below at zero: `sqrt(max(0, p))`, with max as the
/// per-pixel code computes it (`if 0 < p { p } else { 0 }`: a NaN or a negative zero becomes
/// +0). R81's compiled code (its default on x86) does this, so that a square root never makes a
/// NaN; its plain C path and its constant folding, which runs before, do not. Applied last, on
/// the rewritten graph, so that constants are already folded the unclamped way.
pub fn clamp_sqrt(dag: &mut Dag, root: u32) -> u32 {
    fn go(d: &mut Dag, id: u32, memo: &mut HashMap<u32, u32>) -> u32 {
        if let Some(&r) = memo.get(&id) {
            return r;
        }
        let n = d.nodes[id as usize];
        let mut a = n.a;
        for i in 0..n.k.arity() {
            a[i] = go(d, a[i], memo);
        }
        let r = if n.k == K::Sqrt {
            let zero = d.konst(0.0);
            // raw: max is not commutative under NaN, the zero stays first
            let m = d.raw(K::Max, [zero, a[0], NONE]);
            d.raw(K::Sqrt, [m, NONE, NONE])
        } else {
            d.raw(n.k, a)
        };
        memo.insert(id, r);
        r
    }
    go(dag, root, &mut HashMap::new())
}

/// (p + c1) * c2 as fma(p, c2, c1 * c2).
pub fn distribute(dag: &mut Dag, root: u32) -> u32 {
    Opt { dag, memo: HashMap::new() }.distribute(root)
}

/// Products added to or subtracted from something as fused multiply-adds. Where both operands
/// of a sum are products, the right one is fused unless `swap(dag, left, right)` says the left
/// one is: which one R81 fuses is where the core and the plugin differ (see theirs).
pub fn fuse(dag: &mut Dag, root: u32, swap: &dyn Fn(&Dag, u32, u32) -> bool) -> u32 {
    Opt { dag, memo: HashMap::new() }.fuse(root, swap)
}
