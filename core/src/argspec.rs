//! Argument and return type strings of registered functions ("clip:vnode;planes:int[]:opt;any"):
//! parsing them when a function is registered, and checking a call's arguments (and a function's
//! return values) against them with the reference core's (R81) messages.
//!
//! An entry is `name:type[:modifier...]`, entries are separated by `;`, a trailing `;` is optional
//! and empty entries are skipped. Types: `int float data func vnode anode vframe aframe`, each
//! optionally followed by `[]` for an array. Modifiers: `opt` (may be left out), `empty` (an array
//! that accepts zero values; arrays only), and the residency modifiers `gpu` / `all` (video nodes
//! and video frames only; plain means CPU resident). A lone `any` entry, last, accepts arguments
//! that are not declared.
//!
//! Where R81's registerFunction is more lenient this parser is stricter on purpose: names must be
//! unique and `any` must come last (R81 accepts duplicate names and an `any` anywhere). R81 rejects
//! names that start with `_`; this parser accepts them like map keys. Empty modifiers (`x:int:`)
//! are ignored, as in R81.
use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use thiserror::Error;
use vsvk_plugin_api::abi::*;

use crate::frame::Frame;
use crate::map::{Map, Values};
use crate::node::Node;

/// The residency a node reports (nrCPU / nrGPU). The only place that asks a node.
fn node_residency(n: &Node) -> i32 {
    n.residency()
}

/// The residency a frame reports (nrCPU / nrGPU). The only place that asks a frame.
fn frame_residency(f: &Frame) -> i32 {
    f.residency()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgType {
    Int,
    Float,
    Data,
    Func,
    VideoNode,
    AudioNode,
    VideoFrame,
    AudioFrame,
}

impl ArgType {
    pub const ALL: [ArgType; 8] = [
        ArgType::Int,
        ArgType::Float,
        ArgType::Data,
        ArgType::Func,
        ArgType::VideoNode,
        ArgType::AudioNode,
        ArgType::VideoFrame,
        ArgType::AudioFrame,
    ];

    /// The name used in argument strings.
    pub fn name(self) -> &'static str {
        match self {
            ArgType::Int => "int",
            ArgType::Float => "float",
            ArgType::Data => "data",
            ArgType::Func => "func",
            ArgType::VideoNode => "vnode",
            ArgType::AudioNode => "anode",
            ArgType::VideoFrame => "vframe",
            ArgType::AudioFrame => "aframe",
        }
    }

    pub fn from_name(s: &str) -> Option<ArgType> {
        ArgType::ALL.into_iter().find(|t| t.name() == s)
    }

    /// The VSPropertyType code (ptInt ... ptAudioFrame).
    pub fn type_code(self) -> i32 {
        match self {
            ArgType::Int => ptInt,
            ArgType::Float => ptFloat,
            ArgType::Data => ptData,
            ArgType::Func => ptFunction,
            ArgType::VideoNode => ptVideoNode,
            ArgType::AudioNode => ptAudioNode,
            ArgType::VideoFrame => ptVideoFrame,
            ArgType::AudioFrame => ptAudioFrame,
        }
    }

    /// Whether a map entry holds values of this type (empty arrays keep their type).
    pub fn matches(self, v: &Values) -> bool {
        matches!(
            (self, v),
            (ArgType::Int, Values::Int(_))
                | (ArgType::Float, Values::Float(_))
                | (ArgType::Data, Values::Data(_))
                | (ArgType::Func, Values::Function(_))
                | (ArgType::VideoNode, Values::VideoNode(_))
                | (ArgType::AudioNode, Values::AudioNode(_))
                | (ArgType::VideoFrame, Values::VideoFrame(_))
                | (ArgType::AudioFrame, Values::AudioFrame(_))
        )
    }

    /// Whether the `gpu` / `all` modifiers may be given (vnode and vframe).
    pub fn has_residency(self) -> bool {
        matches!(self, ArgType::VideoNode | ArgType::VideoFrame)
    }
}

impl fmt::Display for ArgType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which residency a video node or frame argument accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Residency {
    /// No modifier: CPU resident only.
    #[default]
    Cpu,
    /// `gpu`: GPU resident only.
    Gpu,
    /// `all`: either.
    All,
}

impl Residency {
    /// The modifier that declares it; none for plain (CPU).
    pub fn modifier(self) -> Option<&'static str> {
        match self {
            Residency::Cpu => None,
            Residency::Gpu => Some("gpu"),
            Residency::All => Some("all"),
        }
    }

    /// Whether a node or frame of residency `r` (nrCPU / nrGPU) is accepted.
    pub fn accepts(self, r: i32) -> bool {
        match self {
            Residency::Cpu => r != nrGPU,
            Residency::Gpu => r == nrGPU,
            Residency::All => true,
        }
    }
}

/// One declared argument (or return value).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ArgSpec {
    pub name: String,
    pub ty: ArgType,
    /// `[]`: any number of values; otherwise at most one.
    pub array: bool,
    /// `opt`: may be absent.
    pub optional: bool,
    /// `empty`: zero values accepted (arrays only).
    pub empty: bool,
    /// Meaningful for vnode and vframe only; `Cpu` for every other type.
    pub residency: Residency,
}

impl ArgSpec {
    pub fn new(name: &str, ty: ArgType) -> ArgSpec {
        ArgSpec { name: name.to_owned(), ty, array: false, optional: false, empty: false, residency: Residency::Cpu }
    }
}

impl fmt::Display for ArgSpec {
    /// Canonical form: `name:type[]:opt:empty:gpu`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.name, self.ty)?;
        if self.array {
            f.write_str("[]")?;
        }
        if self.optional {
            f.write_str(":opt")?;
        }
        if self.empty {
            f.write_str(":empty")?;
        }
        if let Some(m) = self.residency.modifier() {
            write!(f, ":{m}")?;
        }
        Ok(())
    }
}

/// Why an argument string was rejected. `index` is the 1-based position of the `;`-separated
/// entry (empty entries count), `entry` its text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SpecError {
    #[error("the argument string is not valid UTF-8")]
    NotUtf8,
    #[error("argument {index} ('{entry}'): incomplete, expected name:type")]
    Incomplete { index: usize, entry: String },
    #[error("argument {index} ('{entry}'): empty name")]
    EmptyName { index: usize, entry: String },
    #[error("argument {index} ('{entry}'): invalid name {name}, names are letters, digits and underscores, not starting with a digit")]
    BadName { index: usize, entry: String, name: String },
    #[error("argument {index} ('{entry}'): duplicate name {name}")]
    DuplicateName { index: usize, entry: String, name: String },
    #[error("argument {index} ('{entry}'): unknown type {ty}")]
    UnknownType { index: usize, entry: String, ty: String },
    #[error("argument {index} ('{entry}'): unknown modifier {modifier}")]
    UnknownModifier { index: usize, entry: String, modifier: String },
    #[error("argument {index} ('{entry}'): duplicate modifier {modifier}")]
    DuplicateModifier { index: usize, entry: String, modifier: String },
    #[error("argument {index} ('{entry}'): empty on a non-array")]
    EmptyOnScalar { index: usize, entry: String },
    #[error("argument {index} ('{entry}'): residency modifier {modifier} is only valid on vnode and vframe, not {ty}")]
    ResidencyNotAllowed { index: usize, entry: String, modifier: String, ty: ArgType },
    #[error("argument {index} ('{entry}'): more than one residency modifier")]
    ConflictingResidency { index: usize, entry: String },
    #[error("argument {index} ('{entry}'): any must be the last entry")]
    AnyNotLast { index: usize, entry: String },
}

impl SpecError {
    /// 1-based entry position; 0 for `NotUtf8`.
    pub fn index(&self) -> usize {
        match self {
            SpecError::NotUtf8 => 0,
            SpecError::Incomplete { index, .. }
            | SpecError::EmptyName { index, .. }
            | SpecError::BadName { index, .. }
            | SpecError::DuplicateName { index, .. }
            | SpecError::UnknownType { index, .. }
            | SpecError::UnknownModifier { index, .. }
            | SpecError::DuplicateModifier { index, .. }
            | SpecError::EmptyOnScalar { index, .. }
            | SpecError::ResidencyNotAllowed { index, .. }
            | SpecError::ConflictingResidency { index, .. }
            | SpecError::AnyNotLast { index, .. } => *index,
        }
    }

    /// The offending entry's text; empty for `NotUtf8`.
    pub fn entry(&self) -> &str {
        match self {
            SpecError::NotUtf8 => "",
            SpecError::Incomplete { entry, .. }
            | SpecError::EmptyName { entry, .. }
            | SpecError::BadName { entry, .. }
            | SpecError::DuplicateName { entry, .. }
            | SpecError::UnknownType { entry, .. }
            | SpecError::UnknownModifier { entry, .. }
            | SpecError::DuplicateModifier { entry, .. }
            | SpecError::EmptyOnScalar { entry, .. }
            | SpecError::ResidencyNotAllowed { entry, .. }
            | SpecError::ConflictingResidency { entry, .. }
            | SpecError::AnyNotLast { entry, .. } => entry,
        }
    }

    fn entry_name(&self) -> &str {
        self.entry().split(':').next().unwrap_or("")
    }

    /// R81's wording of the same problem. R81 logs a failed registration at mtCritical as
    /// "API MISUSE! Function '<name>' failed to register with error: " followed by this.
    /// (R81 itself accepts duplicate names and a non-final `any`; their texts here are ours.)
    pub fn reference_message(&self) -> String {
        let name = self.entry_name();
        match self {
            SpecError::NotUtf8 => "Argument string is not valid UTF-8.".to_owned(),
            SpecError::Incomplete { entry, .. } | SpecError::EmptyName { entry, .. } => {
                format!("Invalid argument specifier '{entry}'. It appears to be incomplete.")
            }
            SpecError::BadName { name, .. } => format!("Argument name '{name}' contains illegal characters."),
            SpecError::DuplicateName { name, .. } => format!("Argument '{name}' is declared more than once."),
            SpecError::UnknownType { ty, .. } => {
                format!("Argument '{name}' has invalid type '{}'.", ty.strip_suffix("[]").unwrap_or(ty))
            }
            SpecError::UnknownModifier { modifier, .. } => {
                format!("Argument '{name}' has unknown argument modifier '{modifier}'")
            }
            SpecError::DuplicateModifier { modifier, .. } if modifier == "gpu" || modifier == "all" => {
                format!("Argument '{name}' has more than one residency modifier")
            }
            SpecError::DuplicateModifier { modifier, .. } => {
                format!("Argument '{name}' has duplicate argument specifier '{modifier}'")
            }
            SpecError::EmptyOnScalar { .. } => {
                format!("Argument '{name}' is not an array. Only array arguments can have the empty flag set.")
            }
            SpecError::ResidencyNotAllowed { modifier, .. } => format!(
                "Argument '{name}': residency modifier '{modifier}' is only valid on vnode and vframe arguments"
            ),
            SpecError::ConflictingResidency { .. } => format!("Argument '{name}' has more than one residency modifier"),
            SpecError::AnyNotLast { .. } => "'any' must be the last argument specifier.".to_owned(),
        }
    }
}

/// Identifiers: a letter or underscore, then letters, digits and underscores.
fn is_identifier(s: &str) -> bool {
    let mut b = s.bytes();
    match b.next() {
        Some(c) if c.is_ascii_alphabetic() || c == b'_' => b.all(|c| c.is_ascii_alphanumeric() || c == b'_'),
        _ => false,
    }
}

/// A node argument whose residency doesn't match its declaration; R81 wraps such nodes in
/// std.GPUUpload (`to == Residency::Gpu`) or std.GPUDownload (`to == Residency::Cpu`) before
/// calling the function, logging `log_message` at mtInformation once per argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeConversion {
    pub arg: String,
    /// Positions within the argument's array that need the conversion.
    pub indices: Vec<usize>,
    /// `Gpu`: upload; `Cpu`: download. Never `All`.
    pub to: Residency,
}

impl NodeConversion {
    /// "GPUUpload" or "GPUDownload" (in the std namespace).
    pub fn filter_name(&self) -> &'static str {
        match self.to {
            Residency::Gpu => "GPUUpload",
            _ => "GPUDownload",
        }
    }

    /// R81's log line (mtInformation), e.g. "V: automatically inserted GPUDownload for argument 'v'".
    pub fn log_message(&self, func_name: &str) -> String {
        format!("{func_name}: automatically inserted {} for argument '{}'", self.filter_name(), self.arg)
    }
}

/// What R81 reports about a function's return values that don't match its return type string.
/// It never fails the call: a warning is logged at mtWarning, a fatal error at mtFatal (R81 aborts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReturnIssue {
    Warning(String),
    Fatal(String),
}

impl ReturnIssue {
    pub fn message(&self) -> &str {
        match self {
            ReturnIssue::Warning(m) | ReturnIssue::Fatal(m) => m,
        }
    }
    /// mtWarning or mtFatal.
    pub fn message_type(&self) -> i32 {
        match self {
            ReturnIssue::Warning(_) => mtWarning,
            ReturnIssue::Fatal(_) => mtFatal,
        }
    }
}

/// A parsed argument or return type string, with the string as it was registered.
#[derive(Debug, Clone)]
pub struct Signature {
    args: Vec<ArgSpec>,
    any: bool,
    source: String,
}

impl Signature {
    /// Parses an argument or return type string.
    pub fn parse(s: &str) -> Result<Signature, SpecError> {
        let mut args: Vec<ArgSpec> = Vec::new();
        let mut names: HashSet<&str> = HashSet::new();
        let mut any_at: Option<(usize, &str)> = None;
        for (i, entry) in s.split(';').enumerate() {
            let index = i + 1;
            if entry.is_empty() {
                continue;
            }
            if let Some((index, entry)) = any_at {
                return Err(SpecError::AnyNotLast { index, entry: entry.to_owned() });
            }
            if entry == "any" {
                any_at = Some((index, entry));
                continue;
            }
            let arg = parse_entry(index, entry)?;
            if !names.insert(entry.split(':').next().unwrap_or("")) {
                return Err(SpecError::DuplicateName { index, entry: entry.to_owned(), name: arg.name });
            }
            args.push(arg);
        }
        Ok(Signature { args, any: any_at.is_some(), source: s.to_owned() })
    }

    /// Parses bytes from the C side (without the NUL).
    pub fn parse_bytes(s: &[u8]) -> Result<Signature, SpecError> {
        Signature::parse(std::str::from_utf8(s).map_err(|_| SpecError::NotUtf8)?)
    }

    /// The string as registered (what getPluginFunctionArguments / ReturnType hand back).
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The declared arguments, in declaration order.
    pub fn args(&self) -> &[ArgSpec] {
        &self.args
    }

    pub fn arg(&self, name: &str) -> Option<&ArgSpec> {
        self.args.iter().find(|a| a.name == name)
    }

    /// Whether the string ends in `any` (undeclared arguments are accepted).
    pub fn accepts_any(&self) -> bool {
        self.any
    }

    /// invoke's argument check: `Err` holds the message the call fails with, e.g.
    /// "Crop: argument clip is required". Strict about node residency: a plain vnode argument
    /// takes CPU resident nodes only, `vnode:gpu` GPU resident ones only, `vnode:all` both;
    /// R81 converts such nodes instead, see `check_adapting`.
    pub fn check(&self, func_name: &str, args: &Map) -> Result<(), String> {
        self.check_args(func_name, args, false).map(|_| ())
    }

    /// invoke's argument check as R81 does it: node arguments of the wrong residency are not
    /// errors but come back as the conversions to make (in declaration order) before the call.
    pub fn check_adapting(&self, func_name: &str, args: &Map) -> Result<Vec<NodeConversion>, String> {
        self.check_args(func_name, args, true)
    }

    fn check_args(&self, func_name: &str, args: &Map, adapt: bool) -> Result<Vec<NodeConversion>, String> {
        self.check_shape(func_name, args, "argument", "argument(s)")?;
        // Residency comes last, after the undeclared names, in declaration order.
        let mut conversions = Vec::new();
        for a in &self.args {
            let Ok(v) = args.get(a.name.as_bytes()) else { continue };
            match v {
                Values::VideoFrame(frames) if a.ty == ArgType::VideoFrame => {
                    for f in frames {
                        let r = frame_residency(f);
                        if !a.residency.accepts(r) {
                            return Err(if r == nrGPU {
                                format!("{func_name}: argument '{}' expects a CPU frame but a GPU resident frame was passed", a.name)
                            } else {
                                format!("{func_name}: argument '{}' expects a GPU resident frame but a CPU frame was passed", a.name)
                            });
                        }
                    }
                }
                Values::VideoNode(nodes) if a.ty == ArgType::VideoNode => {
                    let indices: Vec<usize> = nodes
                        .iter()
                        .enumerate()
                        .filter(|(_, n)| !a.residency.accepts(node_residency(n)))
                        .map(|(i, _)| i)
                        .collect();
                    let Some(&first) = indices.first() else { continue };
                    let gpu = node_residency(&nodes[first]) == nrGPU;
                    if !adapt {
                        return Err(if gpu {
                            format!(
                                "{func_name}: argument '{}' expects a CPU node but a GPU resident node was passed",
                                a.name
                            )
                        } else {
                            format!(
                                "{func_name}: argument '{}' expects a GPU resident node but a CPU node was passed",
                                a.name
                            )
                        });
                    }
                    let to = if a.residency == Residency::Gpu { Residency::Gpu } else { Residency::Cpu };
                    conversions.push(NodeConversion { arg: a.name.clone(), indices, to });
                }
                _ => {}
            }
        }
        Ok(conversions)
    }

    /// The check R81 makes of what a function returned, against its return type string.
    /// Video nodes of the wrong residency are fatal and checked first; the rest are warnings
    /// worded like the argument messages ("F: return value clip is required",
    /// "F: no return value(s) named a, b"). Frames' residency is not checked.
    pub fn check_returns(&self, func_name: &str, out: &Map) -> Result<(), ReturnIssue> {
        for a in &self.args {
            if a.ty != ArgType::VideoNode {
                continue;
            }
            let Ok(Values::VideoNode(nodes)) = out.get(a.name.as_bytes()) else { continue };
            for n in nodes {
                let r = node_residency(n);
                if a.residency.accepts(r) {
                    continue;
                }
                return Err(ReturnIssue::Fatal(if r == nrGPU {
                    format!("{func_name}: node returned under '{}' was created with ffGPUOutput but is declared plain vnode", a.name)
                } else {
                    format!("{func_name}: node returned under '{}' is declared vnode:gpu but was not created with ffGPUOutput", a.name)
                }));
            }
        }
        self.check_shape(func_name, out, "return value", "return value(s)").map_err(ReturnIssue::Warning)
    }

    /// Presence, type, emptiness and count of each declared key in declaration order, then the
    /// undeclared keys (all named at once, in map order).
    fn check_shape(&self, func_name: &str, map: &Map, what: &str, whats: &str) -> Result<(), String> {
        for a in &self.args {
            let v = match map.get(a.name.as_bytes()) {
                Ok(v) => v,
                Err(_) if a.optional => continue,
                Err(_) => return Err(format!("{func_name}: {what} {} is required", a.name)),
            };
            if !a.ty.matches(v) {
                return Err(format!("{func_name}: {what} {} is not of the correct type", a.name));
            }
            if v.is_empty() && !a.empty {
                return Err(format!("{func_name}: {what} {} does not accept empty arrays", a.name));
            }
            if !a.array && v.len() > 1 {
                return Err(format!(
                    "{func_name}: {what} {} is not of array type but more than one value was supplied",
                    a.name
                ));
            }
        }
        if !self.any {
            let unknown: Vec<String> = map
                .iter()
                .map(|(k, _)| k.to_bytes())
                .filter(|k| !self.args.iter().any(|a| a.name.as_bytes() == *k))
                .map(|k| String::from_utf8_lossy(k).into_owned())
                .collect();
            if !unknown.is_empty() {
                return Err(format!("{func_name}: no {whats} named {}", unknown.join(", ")));
            }
        }
        Ok(())
    }
}

fn parse_entry(index: usize, entry: &str) -> Result<ArgSpec, SpecError> {
    let err_entry = || entry.to_owned();
    let mut parts = entry.split(':');
    let name = parts.next().unwrap_or("");
    let Some(ty_str) = parts.next() else {
        return Err(SpecError::Incomplete { index, entry: err_entry() });
    };
    if name.is_empty() {
        return Err(SpecError::EmptyName { index, entry: err_entry() });
    }
    if !is_identifier(name) {
        return Err(SpecError::BadName { index, entry: err_entry(), name: name.to_owned() });
    }
    let (base, array) = match ty_str.strip_suffix("[]") {
        Some(base) => (base, true),
        None => (ty_str, false),
    };
    let ty = ArgType::from_name(base).ok_or_else(|| SpecError::UnknownType {
        index,
        entry: err_entry(),
        ty: ty_str.to_owned(),
    })?;
    let mut arg =
        ArgSpec { name: name.to_owned(), ty, array, optional: false, empty: false, residency: Residency::Cpu };
    let mut residency_given: Option<&str> = None;
    for m in parts {
        let dup = || SpecError::DuplicateModifier { index, entry: err_entry(), modifier: m.to_owned() };
        match m {
            "" => {}
            "opt" if arg.optional => return Err(dup()),
            "opt" => arg.optional = true,
            "empty" if arg.empty => return Err(dup()),
            "empty" => arg.empty = true,
            "gpu" | "all" => {
                if !ty.has_residency() {
                    return Err(SpecError::ResidencyNotAllowed {
                        index,
                        entry: err_entry(),
                        modifier: m.to_owned(),
                        ty,
                    });
                }
                match residency_given {
                    Some(prev) if prev == m => return Err(dup()),
                    Some(_) => return Err(SpecError::ConflictingResidency { index, entry: err_entry() }),
                    None => {}
                }
                residency_given = Some(m);
                arg.residency = if m == "gpu" { Residency::Gpu } else { Residency::All };
            }
            _ => return Err(SpecError::UnknownModifier { index, entry: err_entry(), modifier: m.to_owned() }),
        }
    }
    if arg.empty && !arg.array {
        return Err(SpecError::EmptyOnScalar { index, entry: err_entry() });
    }
    Ok(arg)
}

impl FromStr for Signature {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Signature, SpecError> {
        Signature::parse(s)
    }
}

impl fmt::Display for Signature {
    /// Canonical form: each argument followed by `;`, then `any` when accepted. Parsing it gives
    /// the same arguments back; `as_str` gives the string as registered.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for a in &self.args {
            write!(f, "{a};")?;
        }
        if self.any {
            f.write_str("any")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn p(s: &str) -> Signature {
        Signature::parse(s).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }
    fn e(s: &str) -> SpecError {
        match Signature::parse(s) {
            Ok(sig) => panic!("{s:?} parsed as {sig}"),
            Err(e) => e,
        }
    }

    #[test]
    fn every_type_scalar_and_array() {
        for t in ArgType::ALL {
            let sig = p(&format!("x:{t};y:{t}[]"));
            assert_eq!(sig.args().len(), 2);
            assert_eq!(sig.args()[0], ArgSpec::new("x", t));
            assert_eq!(sig.args()[1], ArgSpec { array: true, ..ArgSpec::new("y", t) });
            assert!(!sig.accepts_any());
            assert_eq!(ArgType::from_name(t.name()), Some(t));
        }
        assert_eq!(ArgType::Func.type_code(), ptFunction);
        assert_eq!(ArgType::VideoNode.type_code(), ptVideoNode);
    }

    #[test]
    fn the_example() {
        let s = "clip:vnode;planes:int[]:opt;matrix:float[]:empty;eval:func;src:vnode:all:opt;g:vnode:gpu;any";
        let sig = p(s);
        assert_eq!(sig.as_str(), s);
        assert!(sig.accepts_any());
        let a = sig.args();
        assert_eq!(a.len(), 6);
        assert_eq!(a[0], ArgSpec::new("clip", ArgType::VideoNode));
        assert_eq!(a[1], ArgSpec { array: true, optional: true, ..ArgSpec::new("planes", ArgType::Int) });
        assert_eq!(a[2], ArgSpec { array: true, empty: true, ..ArgSpec::new("matrix", ArgType::Float) });
        assert_eq!(a[3], ArgSpec::new("eval", ArgType::Func));
        assert_eq!(
            a[4],
            ArgSpec { optional: true, residency: Residency::All, ..ArgSpec::new("src", ArgType::VideoNode) }
        );
        assert_eq!(a[5], ArgSpec { residency: Residency::Gpu, ..ArgSpec::new("g", ArgType::VideoNode) });
        assert_eq!(
            sig.to_string(),
            "clip:vnode;planes:int[]:opt;matrix:float[]:empty;eval:func;src:vnode:opt:all;g:vnode:gpu;any"
        );
        assert_eq!(sig.arg("eval").map(|a| a.ty), Some(ArgType::Func));
        assert!(sig.arg("nope").is_none());
    }

    #[test]
    fn modifiers_in_any_order() {
        let a = p("x:vnode[]:all:empty:opt").args()[0].clone();
        assert!(a.array && a.empty && a.optional && a.residency == Residency::All);
        let b = p("x:int[]:opt:empty;").args()[0].clone();
        assert!(b.array && b.empty && b.optional);
        assert_eq!(p("x:vframe:gpu").args()[0].residency, Residency::Gpu);
        assert_eq!(p("x:vframe:all").args()[0].residency, Residency::All);
        assert_eq!(p("x:vnode").args()[0].residency, Residency::Cpu);
    }

    #[test]
    fn return_types_and_edges() {
        let clip = p("clip:vnode;");
        assert_eq!(clip.args(), &[ArgSpec::new("clip", ArgType::VideoNode)]);
        assert!(!clip.accepts_any());
        let any = p("any");
        assert!(any.args().is_empty() && any.accepts_any());
        assert!(p("any;").accepts_any());
        assert!(p("a:int;any").accepts_any());
        let none = p("");
        assert!(none.args().is_empty() && !none.accepts_any());
        assert_eq!(none.to_string(), "");
        // Trailing ';' optional, empty entries and empty modifiers skipped (as in R81).
        assert_eq!(p("x:int").args(), p("x:int;").args());
        assert_eq!(p("x:int;;y:int;").args().len(), 2);
        assert_eq!(p(";;").args().len(), 0);
        assert_eq!(p("x:int:").args()[0], ArgSpec::new("x", ArgType::Int));
        // `any` as a name is just a name.
        assert_eq!(p("any:int").args()[0].name, "any");
        assert_eq!(p("_x:int;X9_:float").args().len(), 2);
        assert_eq!(p("x:int;").as_str(), "x:int;");
        assert_eq!("a:data[]".parse::<Signature>().unwrap().args()[0].ty, ArgType::Data);
        assert_eq!(Signature::parse_bytes(b"a:anode").unwrap().args()[0].ty, ArgType::AudioNode);
        assert_eq!(Signature::parse_bytes(b"a:\xffint").unwrap_err(), SpecError::NotUtf8);
    }

    #[test]
    fn rejections() {
        assert!(matches!(e("x"), SpecError::Incomplete { index: 1, .. }));
        assert!(matches!(e("x:int;y"), SpecError::Incomplete { index: 2, .. }));
        assert!(matches!(e(":int"), SpecError::EmptyName { index: 1, .. }));
        assert!(matches!(e("1x:int"), SpecError::BadName { .. }));
        assert!(matches!(e("x-y:int"), SpecError::BadName { .. }));
        assert!(matches!(e(" x:int"), SpecError::BadName { .. }));
        assert!(matches!(e("x:int;x:float"), SpecError::DuplicateName { index: 2, .. }));
        assert!(matches!(e("x:foo"), SpecError::UnknownType { .. }));
        assert!(matches!(e("x:INT"), SpecError::UnknownType { .. }));
        assert!(matches!(e("x: int"), SpecError::UnknownType { .. }));
        assert!(matches!(e("x:int "), SpecError::UnknownType { .. }));
        assert!(matches!(e("x:"), SpecError::UnknownType { .. }));
        assert!(matches!(e("x:[]"), SpecError::UnknownType { .. }));
        assert!(matches!(e("x:int[][]"), SpecError::UnknownType { .. }));
        assert!(matches!(e("x:int:bogus"), SpecError::UnknownModifier { .. }));
        assert!(matches!(e("x:vnode:GPU"), SpecError::UnknownModifier { .. }));
        assert!(matches!(e("x:int[]:array"), SpecError::UnknownModifier { .. }));
        assert!(matches!(e("x:int:opt:opt"), SpecError::DuplicateModifier { .. }));
        assert!(matches!(e("x:int[]:empty:empty"), SpecError::DuplicateModifier { .. }));
        assert!(matches!(e("x:vnode:gpu:gpu"), SpecError::DuplicateModifier { .. }));
        assert!(matches!(e("x:vnode:gpu:all"), SpecError::ConflictingResidency { .. }));
        assert!(matches!(e("x:vnode:all:gpu"), SpecError::ConflictingResidency { .. }));
        assert!(matches!(e("x:int:empty"), SpecError::EmptyOnScalar { .. }));
        assert!(matches!(e("x:vnode:opt:empty"), SpecError::EmptyOnScalar { .. }));
        for t in ["int", "float", "data", "func", "anode", "aframe", "int[]", "anode[]"] {
            assert!(matches!(e(&format!("x:{t}:gpu")), SpecError::ResidencyNotAllowed { .. }), "{t}");
            assert!(matches!(e(&format!("x:{t}:all")), SpecError::ResidencyNotAllowed { .. }), "{t}");
        }
        assert!(matches!(e("any;x:int"), SpecError::AnyNotLast { index: 1, .. }));
        assert!(matches!(e("any;any"), SpecError::AnyNotLast { .. }));
        assert!(matches!(e("x:int;any;;y:int"), SpecError::AnyNotLast { index: 2, .. }));
        // A return type string like R81 rejects it.
        assert!(matches!(e("foo"), SpecError::Incomplete { .. }));
    }

    #[test]
    fn messages_name_the_entry() {
        let err = e("clip:vnode;planes:int[]:opt;x:foo");
        assert_eq!(err.to_string(), "argument 3 ('x:foo'): unknown type foo");
        assert_eq!(err.index(), 3);
        assert_eq!(err.entry(), "x:foo");
        assert_eq!(err.reference_message(), "Argument 'x' has invalid type 'foo'.");
        assert_eq!(e("x:int;;y:float:opt:opt").to_string(), "argument 3 ('y:float:opt:opt'): duplicate modifier opt");
        assert_eq!(
            e("x:int:empty").reference_message(),
            "Argument 'x' is not an array. Only array arguments can have the empty flag set."
        );
        assert_eq!(e(":int").reference_message(), "Invalid argument specifier ':int'. It appears to be incomplete.");
        assert_eq!(e("x:int:bogus").reference_message(), "Argument 'x' has unknown argument modifier 'bogus'");
        assert_eq!(e("x:int:opt:opt").reference_message(), "Argument 'x' has duplicate argument specifier 'opt'");
        assert_eq!(
            e("x:anode:gpu").reference_message(),
            "Argument 'x': residency modifier 'gpu' is only valid on vnode and vframe arguments"
        );
        assert_eq!(e("x:vnode:gpu:all").reference_message(), "Argument 'x' has more than one residency modifier");
        assert_eq!(e("x:vnode:gpu:gpu").reference_message(), "Argument 'x' has more than one residency modifier");
        assert_eq!(e("1x:int").reference_message(), "Argument name '1x' contains illegal characters.");
        assert_eq!(e("x:int[][]").reference_message(), "Argument 'x' has invalid type 'int[]'.");
        for s in [
            "x",
            ":int",
            "1x:int",
            "x:int;x:int",
            "x:foo",
            "x:int:bogus",
            "x:int:opt:opt",
            "x:int:empty",
            "x:int:gpu",
            "x:vnode:gpu:all",
            "any;x:int",
        ] {
            let err = e(s);
            let shown = err.to_string();
            assert!(shown.starts_with(&format!("argument {} ('", err.index())), "{shown}");
            assert!(shown.contains(err.entry()), "{shown}");
        }
    }

    #[test]
    fn residency_accepts() {
        assert!(Residency::Cpu.accepts(nrCPU) && !Residency::Cpu.accepts(nrGPU));
        assert!(!Residency::Gpu.accepts(nrCPU) && Residency::Gpu.accepts(nrGPU));
        assert!(Residency::All.accepts(nrCPU) && Residency::All.accepts(nrGPU));
    }

    // ---- check(), on values that need no nodes ----

    use crate::map::{Data, Value};

    fn map(f: impl FnOnce(&mut Map)) -> Map {
        let mut m = Map::new();
        f(&mut m);
        m
    }
    fn int(m: &mut Map, k: &str, v: i64, append: bool) {
        m.set(k.as_bytes(), Value::Int(v), append).unwrap();
    }

    #[test]
    fn check_messages() {
        let a = p("a:int[];b:int[]:empty;c:int:opt;d:float:opt;e:data:opt;f:func:opt;");
        let ok = |m: &mut Map| {
            int(m, "a", 1, false);
            m.set_empty(b"b", ptInt).unwrap();
        };
        assert_eq!(a.check("A", &map(ok)), Ok(()));
        assert_eq!(a.check("A", &Map::new()).unwrap_err(), "A: argument a is required");
        assert_eq!(a.check("A", &map(|m| int(m, "a", 1, false))).unwrap_err(), "A: argument b is required");
        assert_eq!(
            a.check(
                "A",
                &map(|m| {
                    ok(m);
                    m.set_empty(b"c", ptInt).unwrap();
                })
            )
            .unwrap_err(),
            "A: argument c does not accept empty arrays"
        );
        assert_eq!(
            a.check(
                "A",
                &map(|m| {
                    ok(m);
                    m.set_empty(b"c", ptFloat).unwrap();
                })
            )
            .unwrap_err(),
            "A: argument c is not of the correct type"
        );
        assert_eq!(
            a.check(
                "A",
                &map(|m| {
                    ok(m);
                    for k in ["zz", "yy", "bogus"] {
                        int(m, k, 1, false);
                    }
                })
            )
            .unwrap_err(),
            "A: no argument(s) named bogus, yy, zz"
        );
        assert_eq!(
            a.check(
                "A",
                &map(|m| {
                    ok(m);
                    m.set_float("d", 1.0);
                    m.set(b"d", Value::Float(2.0), true).unwrap();
                })
            )
            .unwrap_err(),
            "A: argument d is not of array type but more than one value was supplied"
        );
        assert_eq!(
            a.check(
                "A",
                &map(|m| {
                    ok(m);
                    int(m, "e", 1, false);
                    int(m, "aa", 1, false);
                })
            )
            .unwrap_err(),
            "A: argument e is not of the correct type"
        );
        assert_eq!(
            a.check(
                "A",
                &map(|m| {
                    ok(m);
                    m.set_empty(b"f", ptVideoNode).unwrap();
                })
            )
            .unwrap_err(),
            "A: argument f is not of the correct type"
        );
        // Missing comes before a later wrong type; type before emptiness.
        assert_eq!(a.check("A", &map(|m| m.set_float("b", 1.0))).unwrap_err(), "A: argument a is required");
        assert_eq!(
            a.check("A", &map(|m| m.set_empty(b"a", ptFloat).unwrap())).unwrap_err(),
            "A: argument a is not of the correct type"
        );
        assert_eq!(
            a.check(
                "A",
                &map(|m| {
                    m.set_empty(b"a", ptInt).unwrap();
                    m.set_float("b", 1.0);
                })
            )
            .unwrap_err(),
            "A: argument a does not accept empty arrays"
        );

        let any = p("x:int;any");
        assert_eq!(
            any.check(
                "Any",
                &map(|m| {
                    int(m, "x", 1, false);
                    int(m, "zz", 1, false);
                })
            ),
            Ok(())
        );
        assert_eq!(any.check("Any", &map(|m| int(m, "zz", 1, false))).unwrap_err(), "Any: argument x is required");
        let none = p("");
        assert_eq!(none.check("N", &map(|m| m.set_str("q", "s"))).unwrap_err(), "N: no argument(s) named q");
        assert_eq!(none.check("N", &Map::new()), Ok(()));
        assert_eq!(
            p("d:data").check(
                "D",
                &map(|m| {
                    m.set(b"d", Value::Data(Data::new(b"x", dtUtf8)), false).unwrap();
                })
            ),
            Ok(())
        );
    }

    #[test]
    fn check_returns_messages() {
        let r = p("x:int;y:int[]:opt;z:int[]:empty:opt;");
        assert_eq!(r.check_returns("C", &map(|m| int(m, "x", 1, false))), Ok(()));
        assert_eq!(
            r.check_returns("C", &Map::new()),
            Err(ReturnIssue::Warning("C: return value x is required".into()))
        );
        assert_eq!(
            r.check_returns(
                "C",
                &map(|m| {
                    int(m, "x", 1, false);
                    int(m, "q", 1, false);
                    int(m, "a", 1, false);
                })
            ),
            Err(ReturnIssue::Warning("C: no return value(s) named a, q".into()))
        );
        assert_eq!(
            r.check_returns(
                "C",
                &map(|m| {
                    int(m, "x", 1, false);
                    m.set_empty(b"y", ptInt).unwrap();
                })
            )
            .unwrap_err()
            .message(),
            "C: return value y does not accept empty arrays"
        );
        assert_eq!(r.check_returns("C", &map(|m| m.set_float("x", 1.0))).unwrap_err().message_type(), mtWarning);
    }

    // ---- fuzzing the parser ----

    fn arb_argspec() -> impl Strategy<Value = ArgSpec> {
        (
            "[A-Za-z_][A-Za-z0-9_]{0,6}",
            prop::sample::select(ArgType::ALL.to_vec()),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            0..3u8,
        )
            .prop_map(|(name, ty, array, optional, empty, r)| ArgSpec {
                name,
                ty,
                array,
                optional,
                empty: empty && array,
                residency: if ty.has_residency() {
                    [Residency::Cpu, Residency::Gpu, Residency::All][r as usize]
                } else {
                    Residency::Cpu
                },
            })
    }

    /// Valid argument strings with their expected arguments: unique names, modifiers shuffled,
    /// empty modifiers and entries sprinkled, optional trailing ';' and `any`.
    fn arb_valid() -> impl Strategy<Value = (String, Vec<ArgSpec>, bool)> {
        (prop::collection::vec(arb_argspec(), 0..6), any::<bool>(), any::<bool>(), any::<u64>()).prop_map(
            |(mut args, any, trailing, mut seed)| {
                let mut seen = HashSet::new();
                args.retain(|a| seen.insert(a.name.clone()));
                let mut next = || {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (seed >> 33) as usize
                };
                let mut entries: Vec<String> = Vec::new();
                for a in &args {
                    let mut mods: Vec<&str> = Vec::new();
                    if a.optional {
                        mods.push("opt");
                    }
                    if a.empty {
                        mods.push("empty");
                    }
                    if let Some(m) = a.residency.modifier() {
                        mods.push(m);
                    }
                    if next() % 4 == 0 {
                        mods.push("");
                    }
                    for i in (1..mods.len()).rev() {
                        mods.swap(i, next() % (i + 1));
                    }
                    let mut e = format!("{}:{}{}", a.name, a.ty, if a.array { "[]" } else { "" });
                    for m in mods {
                        e.push(':');
                        e.push_str(m);
                    }
                    entries.push(e);
                    if next() % 5 == 0 {
                        entries.push(String::new());
                    }
                }
                if any {
                    entries.push("any".into());
                }
                let mut s = entries.join(";");
                if trailing && !s.is_empty() {
                    s.push(';');
                }
                (s, args, any)
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

        #[test]
        fn parse_never_panics(s in any::<String>()) {
            if let Ok(sig) = Signature::parse(&s) {
                prop_assert_eq!(sig.as_str(), s.as_str());
                let again = Signature::parse(&sig.to_string()).expect("canonical form parses");
                prop_assert_eq!(again.args(), sig.args());
            }
        }

        #[test]
        fn parse_never_panics_near_grammar(s in "([a-z_1]{0,3}(:(int|float|vnode|vframe|anode|data|func|aframe|foo|)(\\[\\])?)?(:(opt|empty|gpu|all|any|))*;?|any;){0,5}") {
            match Signature::parse(&s) {
                Ok(sig) => {
                    let again = Signature::parse(&sig.to_string()).expect("canonical form parses");
                    prop_assert_eq!(again.args(), sig.args());
                    prop_assert_eq!(again.accepts_any(), sig.accepts_any());
                }
                Err(err) => {
                    let shown = err.to_string();
                    prop_assert!(shown.contains(err.entry()));
                    prop_assert!(!err.reference_message().is_empty());
                }
            }
        }

        #[test]
        fn valid_specs_round_trip((s, args, any) in arb_valid()) {
            let sig = Signature::parse(&s).map_err(|e| TestCaseError::fail(format!("{s:?}: {e}")))?;
            prop_assert_eq!(sig.args(), &args[..]);
            prop_assert_eq!(sig.accepts_any(), any);
            prop_assert_eq!(sig.as_str(), s.as_str());
            let canon = sig.to_string();
            let again = Signature::parse(&canon).unwrap();
            prop_assert_eq!(again.args(), &args[..]);
            prop_assert_eq!(again.accepts_any(), any);
            prop_assert_eq!(again.to_string(), canon);
        }
    }
}
