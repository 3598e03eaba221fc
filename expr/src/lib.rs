//! The language of std.Expr, shared by the core's CPU std.Expr and the vk plugin's GPU vk.Expr
//! (the plugin cannot link the core): reverse polish tokens, their checks and R81's messages for
//! them, the graph of operations an expression parses into (identical subexpressions shared),
//! and the rewrites R81 applies before running an expression ([`rewrite`]). Each side runs the
//! graph its own way (the core as block instructions, the plugin as GLSL) and adds the rewrite
//! passes only it needs.
#![allow(clippy::needless_range_loop)]
use std::collections::HashMap;
use std::fmt;

pub mod clips;
pub mod rewrite;

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
    pub fn commutative(self) -> bool {
        matches!(self, K::Mul | K::Eq | K::And | K::Or | K::Xor)
    }
}

pub fn op_of(tok: &str) -> Option<K> {
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
pub fn clip_of(tok: &str) -> Option<usize> {
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

/// The tokens of an expression: what lies between runs of the C locale's white space.
pub fn tokens(expr: &str) -> impl Iterator<Item = &str> {
    expr.split(is_space).filter(|t| !t.is_empty())
}

/// What one token means, before it meets the stack.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Token {
    Op(K),
    /// a clip letter's index (x y z a .. w)
    Clip(usize),
    /// `dup` / `dupN`: copy the value N below the top
    Dup(usize),
    /// `swap` / `swapN`: exchange the top and the value N below it
    Swap(usize),
    Number(f32),
}

/// Reads one token; clip letters are not checked against the clips given here (see [`parse`]).
pub fn token(tok: &str) -> Result<Token, ParseError> {
    if let Some(k) = op_of(tok) {
        return Ok(Token::Op(k));
    }
    if let Some(c) = clip_of(tok) {
        return Ok(Token::Clip(c));
    }
    if let Some(i) = stack_op(tok, "dup", 0) {
        return i.map(Token::Dup).ok_or_else(|| ParseError::IllegalToken(tok.into()));
    }
    if let Some(i) = stack_op(tok, "swap", 1) {
        return i.map(Token::Swap).ok_or_else(|| ParseError::IllegalToken(tok.into()));
    }
    match parse_number(tok) {
        Ok(v) => Ok(Token::Number(v)),
        Err(NumErr::Fail) => Err(ParseError::NotFloat(tok.into())),
        Err(NumErr::Partial) => Err(ParseError::NotWholeFloat(tok.into())),
    }
}

/// Why an expression is refused; its message is R81's, naming the token or the expression.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ParseError {
    /// an operation or stack operation wanting more values than the stack holds (the token)
    InsufficientValues(String),
    /// a clip letter beyond the clips given (the token)
    UndefinedClip(String),
    /// `dup` or `swap` with a suffix that is not a number (the token)
    IllegalToken(String),
    /// a token that is nothing else and does not start as a number (the token)
    NotFloat(String),
    /// a token that starts as a number but goes on (the token)
    NotWholeFloat(String),
    /// no tokens at all (the expression)
    Empty(String),
    /// more than one value left at the end (the expression)
    Unconsumed(String),
    /// nested deeper than [`MAX_DEPTH`] (the expression)
    TooDeep(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::InsufficientValues(t) => write!(f, "insufficient values on stack: {t}"),
            ParseError::UndefinedClip(t) => write!(f, "reference to undefined clip: {t}"),
            ParseError::IllegalToken(t) => write!(f, "illegal token: {t}"),
            ParseError::NotFloat(t) => write!(f, "failed to convert '{t}' to float"),
            ParseError::NotWholeFloat(t) => write!(f, "failed to convert '{t}' to float, not the whole token could be converted"),
            ParseError::Empty(e) => write!(f, "empty expression: {e}"),
            ParseError::Unconsumed(e) => write!(f, "unconsumed values on stack: {e}"),
            ParseError::TooDeep(e) => write!(f, "expression nested too deeply, rewrite it to be less deeply nested: {e}"),
        }
    }
}

impl std::error::Error for ParseError {}

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
    #[inline]
    pub fn raw(&mut self, k: K, a: [u32; 3]) -> u32 {
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
    #[inline]
    pub fn mk(&mut self, k: K, mut a: [u32; 3]) -> u32 {
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
    #[inline]
    pub fn k(&self, id: u32) -> K {
        self.nodes[id as usize].k
    }
    #[inline]
    pub fn arg(&self, id: u32, i: usize) -> u32 {
        self.nodes[id as usize].a[i]
    }
    #[inline]
    pub fn konst(&mut self, v: f32) -> u32 {
        self.raw(K::Const(v.to_bits()), [NONE; 3])
    }
    #[inline]
    pub fn is_const(&self, id: u32) -> bool {
        matches!(self.k(id), K::Const(_))
    }
    #[inline]
    pub fn cval(&self, id: u32) -> Option<f32> {
        match self.k(id) {
            K::Const(b) => Some(f32::from_bits(b)),
            _ => None,
        }
    }
    #[inline]
    pub fn un(&mut self, k: K, a: u32) -> u32 {
        self.mk(k, [a, NONE, NONE])
    }
    #[inline]
    pub fn bin(&mut self, k: K, a: u32, b: u32) -> u32 {
        self.mk(k, [a, b, NONE])
    }
}

/// The value of an operation on constants, exactly as the per-pixel code computes it.
pub fn eval_op(k: K, a: f32, b: f32, c: f32) -> f32 {
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
pub const MAX_DEPTH: u32 = 5000;

/// Parses one expression over `inputs` clips into the graph; returns its root and its nesting
/// depth (the rewrites recurse that deep, so callers give deep ones a large stack).
pub fn parse(expr: &str, inputs: usize, dag: &mut Dag) -> Result<(u32, u32), ParseError> {
    let mut stack: Vec<u32> = Vec::new();
    // the nesting depth of each value on the stack (a clip or constant is 1); deeper than
    // MAX_DEPTH is refused, as the reference does
    let mut depth: Vec<u32> = Vec::new();
    let mut any = false;
    for tok in tokens(expr) {
        any = true;
        let short = || ParseError::InsufficientValues(tok.into());
        match token(tok)? {
            Token::Op(k) => {
                let n = k.arity();
                if stack.len() < n {
                    return Err(short());
                }
                let args = stack.split_off(stack.len() - n);
                let d = depth.split_off(depth.len() - n).into_iter().max().unwrap_or(0) + 1;
                if d > MAX_DEPTH {
                    return Err(ParseError::TooDeep(expr.into()));
                }
                let mut a = [NONE; 3];
                a[..n].copy_from_slice(&args);
                let id = dag.mk(k, a);
                stack.push(id);
                depth.push(d);
            }
            Token::Clip(c) => {
                if c >= inputs {
                    return Err(ParseError::UndefinedClip(tok.into()));
                }
                stack.push(dag.raw(K::Load(c as u8), [NONE; 3]));
                depth.push(1);
            }
            Token::Dup(i) => {
                if stack.len() <= i {
                    return Err(short());
                }
                stack.push(stack[stack.len() - 1 - i]);
                depth.push(depth[depth.len() - 1 - i]);
            }
            Token::Swap(i) => {
                if stack.len() <= i {
                    return Err(short());
                }
                let top = stack.len() - 1;
                stack.swap(top, top - i);
                depth.swap(top, top - i);
            }
            Token::Number(v) => {
                stack.push(dag.konst(v));
                depth.push(1);
            }
        }
    }
    if !any {
        return Err(ParseError::Empty(expr.into()));
    }
    if stack.len() != 1 {
        return Err(ParseError::Unconsumed(expr.into()));
    }
    Ok((stack[0], depth[0]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(expr: &str, inputs: usize) -> String {
        parse(expr, inputs, &mut Dag::default()).expect_err("refused").to_string()
    }

    #[test]
    fn tokens_split_on_c_white_space() {
        let t: Vec<&str> = tokens(" x\ty\n+\r\x0b\x0c2.5 ").collect();
        assert_eq!(t, ["x", "y", "+", "2.5"]);
        // a non-breaking space is not C white space: it stays inside the token
        assert_eq!(tokens("x\u{a0}y").count(), 1);
    }

    #[test]
    fn tokens_read() {
        assert_eq!(token("+"), Ok(Token::Op(K::Add)));
        assert_eq!(token("?"), Ok(Token::Op(K::Tern)));
        assert_eq!(token("x"), Ok(Token::Clip(0)));
        assert_eq!(token("z"), Ok(Token::Clip(2)));
        assert_eq!(token("a"), Ok(Token::Clip(3)));
        assert_eq!(token("w"), Ok(Token::Clip(25)));
        assert_eq!(token("dup"), Ok(Token::Dup(0)));
        assert_eq!(token("dup3"), Ok(Token::Dup(3)));
        assert_eq!(token("swap"), Ok(Token::Swap(1)));
        assert_eq!(token("swap2"), Ok(Token::Swap(2)));
        assert_eq!(token("-1.5e2"), Ok(Token::Number(-150.0)));
        assert_eq!(token(".5"), Ok(Token::Number(0.5)));
        assert_eq!(token("+7"), Ok(Token::Number(7.0)));
    }

    #[test]
    fn parse_shares_identical_subexpressions() {
        let mut dag = Dag::default();
        let (root, depth) = parse("x y + x y + *", 2, &mut dag).unwrap();
        assert_eq!(depth, 3);
        let n = dag.nodes[root as usize];
        assert_eq!(n.k, K::Mul);
        assert_eq!(n.a[0], n.a[1]);
        // x, y, x+y and the product
        assert_eq!(dag.nodes.len(), 4);
    }

    #[test]
    fn a_message_per_error() {
        assert_eq!(err("x +", 1), "insufficient values on stack: +");
        assert_eq!(err("x dup1", 1), "insufficient values on stack: dup1");
        assert_eq!(err("x swap", 1), "insufficient values on stack: swap");
        assert_eq!(err("x y +", 1), "reference to undefined clip: y");
        assert_eq!(err("x dupx", 1), "illegal token: dupx");
        assert_eq!(err("x swap-1", 1), "illegal token: swap-1");
        assert_eq!(err("x foo", 1), "failed to convert 'foo' to float");
        assert_eq!(err("x 1e40 +", 1), "failed to convert '1e40' to float");
        assert_eq!(err("x 2.5q +", 1), "failed to convert '2.5q' to float, not the whole token could be converted");
        assert_eq!(err(" \t", 1), "empty expression:  \t");
        assert_eq!(err("x x", 1), "unconsumed values on stack: x x");
        let deep = format!("x{}", " 1 +".repeat(MAX_DEPTH as usize));
        assert_eq!(err(&deep, 1), format!("expression nested too deeply, rewrite it to be less deeply nested: {deep}"));
        assert!(parse(&format!("x{}", " 1 +".repeat(MAX_DEPTH as usize - 1)), 1, &mut Dag::default()).is_ok());
    }

    #[test]
    fn rewrites_fold_and_fuse() {
        let mut dag = Dag::default();
        let (root, _) = parse("2 3 * x y * +", 2, &mut dag).unwrap();
        let root = rewrite::simplify(&mut dag, root);
        let root = rewrite::fuse(&mut dag, root, &|_, _, _| false);
        let n = dag.nodes[root as usize];
        assert_eq!(n.k, K::Fma);
        assert_eq!(dag.cval(n.a[2]), Some(6.0));
    }
}
