//! Property maps: ordered keys with typed value arrays, copy-on-write so that copying a frame's
//! properties or a function's arguments costs a reference count per key.
use std::ffi::{CStr, CString};
use std::sync::Arc;

use thiserror::Error;
use vsvk_plugin_api::abi::*;

use crate::frame::Frame;
use crate::function::Function;
use crate::node::Node;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum MapError {
    #[error("key not found")]
    Unset,
    #[error("key holds another type")]
    Type,
    #[error("index out of range")]
    Index,
    #[error("map holds an error")]
    Error,
}

impl MapError {
    pub fn code(self) -> i32 {
        match self {
            MapError::Unset => peUnset,
            MapError::Type => peType,
            MapError::Index => peIndex,
            MapError::Error => peError,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum SetError {
    #[error("invalid key name")]
    BadKey,
    #[error("appending a value of another type")]
    TypeMismatch,
    #[error("nodes and functions cannot be stored in frame properties")]
    NotAllowedInFrameProps,
    #[error("the key already exists")]
    Exists,
    #[error("invalid type")]
    BadType,
}

/// Binary or text data; kept NUL-terminated so the C side can read it as a string.
#[derive(Clone)]
pub struct Data {
    bytes: Box<[u8]>,
    pub hint: i32,
}

impl Data {
    pub fn new(content: &[u8], hint: i32) -> Data {
        let mut v = Vec::with_capacity(content.len() + 1);
        v.extend_from_slice(content);
        v.push(0);
        Data { bytes: v.into_boxed_slice(), hint }
    }
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.bytes.len() - 1]
    }
    pub fn as_ptr(&self) -> *const std::ffi::c_char {
        self.bytes.as_ptr().cast()
    }
    pub fn len(&self) -> usize {
        self.bytes.len() - 1
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn to_str_lossy(&self) -> String {
        String::from_utf8_lossy(self.as_bytes()).into_owned()
    }
}

#[derive(Clone)]
pub enum Values {
    Int(Vec<i64>),
    Float(Vec<f64>),
    Data(Vec<Data>),
    Function(Vec<Arc<Function>>),
    VideoNode(Vec<Arc<Node>>),
    AudioNode(Vec<Arc<Node>>),
    VideoFrame(Vec<Arc<Frame>>),
    AudioFrame(Vec<Arc<Frame>>),
}

/// One value, as the setters take it.
pub enum Value {
    Int(i64),
    Float(f64),
    Data(Data),
    Function(Arc<Function>),
    Node(Arc<Node>),
    Frame(Arc<Frame>),
}

impl Values {
    pub fn type_code(&self) -> i32 {
        match self {
            Values::Int(_) => ptInt,
            Values::Float(_) => ptFloat,
            Values::Data(_) => ptData,
            Values::Function(_) => ptFunction,
            Values::VideoNode(_) => ptVideoNode,
            Values::AudioNode(_) => ptAudioNode,
            Values::VideoFrame(_) => ptVideoFrame,
            Values::AudioFrame(_) => ptAudioFrame,
        }
    }
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Data(v) => v.len(),
            Values::Function(v) => v.len(),
            Values::VideoNode(v) | Values::AudioNode(v) => v.len(),
            Values::VideoFrame(v) | Values::AudioFrame(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn empty_of(ty: i32) -> Option<Values> {
        Some(match ty {
            ptInt => Values::Int(Vec::new()),
            ptFloat => Values::Float(Vec::new()),
            ptData => Values::Data(Vec::new()),
            ptFunction => Values::Function(Vec::new()),
            ptVideoNode => Values::VideoNode(Vec::new()),
            ptAudioNode => Values::AudioNode(Vec::new()),
            ptVideoFrame => Values::VideoFrame(Vec::new()),
            ptAudioFrame => Values::AudioFrame(Vec::new()),
            _ => return None,
        })
    }
    fn of(v: Value) -> Values {
        match v {
            Value::Int(i) => Values::Int(vec![i]),
            Value::Float(f) => Values::Float(vec![f]),
            Value::Data(d) => Values::Data(vec![d]),
            Value::Function(f) => Values::Function(vec![f]),
            Value::Node(n) if n.is_audio() => Values::AudioNode(vec![n]),
            Value::Node(n) => Values::VideoNode(vec![n]),
            Value::Frame(f) if f.is_audio() => Values::AudioFrame(vec![f]),
            Value::Frame(f) => Values::VideoFrame(vec![f]),
        }
    }
    /// Appends when the value has this array's type; hands the value back otherwise.
    fn push(&mut self, v: Value) -> Result<(), Value> {
        match (self, v) {
            (Values::Int(a), Value::Int(i)) => a.push(i),
            (Values::Float(a), Value::Float(f)) => a.push(f),
            (Values::Data(a), Value::Data(d)) => a.push(d),
            (Values::Function(a), Value::Function(f)) => a.push(f),
            (Values::VideoNode(a), Value::Node(n)) if !n.is_audio() => a.push(n),
            (Values::AudioNode(a), Value::Node(n)) if n.is_audio() => a.push(n),
            (Values::VideoFrame(a), Value::Frame(f)) if !f.is_audio() => a.push(f),
            (Values::AudioFrame(a), Value::Frame(f)) if f.is_audio() => a.push(f),
            (_, v) => return Err(v),
        }
        Ok(())
    }
    fn allowed_in_frame_props(&self) -> bool {
        !matches!(self, Values::Function(_) | Values::VideoNode(_) | Values::AudioNode(_))
    }
}

#[derive(Clone, Default)]
pub struct Map {
    /// Sorted by key bytes, as the reference orders them; values shared until written.
    entries: Vec<(CString, Arc<Values>)>,
    error: bool,
    frame_props: bool,
}

const ERROR_KEY: &CStr = c"_Error";

/// Keys are identifiers: a letter or underscore, then letters, digits and underscores.
pub fn is_valid_key(key: &[u8]) -> bool {
    match key.split_first() {
        Some((first, rest)) => {
            (first.is_ascii_alphabetic() || *first == b'_') && rest.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
        }
        None => false,
    }
}

impl Map {
    pub fn new() -> Map {
        Map::default()
    }
    pub fn new_frame_props() -> Map {
        Map { frame_props: true, ..Map::default() }
    }
    pub fn is_frame_props(&self) -> bool {
        self.frame_props
    }
    fn find(&self, key: &[u8]) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.as_bytes().cmp(key))
    }
    pub fn clear(&mut self) {
        self.entries.clear();
        self.error = false;
    }
    pub fn set_error(&mut self, msg: &str) {
        self.entries.clear();
        let d = Data::new(msg.replace('\0', " ").as_bytes(), dtUtf8);
        self.entries.push((ERROR_KEY.to_owned(), Arc::new(Values::Data(vec![d]))));
        self.error = true;
    }
    pub fn error(&self) -> Option<&CStr> {
        if !self.error { return None; }
        match &*self.entries[self.find(ERROR_KEY.to_bytes()).ok()?].1 {
            Values::Data(d) => d.first().and_then(|d| CStr::from_bytes_with_nul(&d.bytes).ok()),
            _ => None,
        }
    }
    pub fn num_keys(&self) -> usize {
        self.entries.len()
    }
    pub fn key(&self, i: usize) -> Option<&CStr> {
        self.entries.get(i).map(|(k, _)| k.as_c_str())
    }
    pub fn keys(&self) -> impl Iterator<Item = &CStr> {
        self.entries.iter().map(|(k, _)| k.as_c_str())
    }
    pub fn iter(&self) -> impl Iterator<Item = (&CStr, &Values)> {
        self.entries.iter().map(|(k, v)| (k.as_c_str(), &**v))
    }
    pub fn get(&self, key: &[u8]) -> Result<&Values, MapError> {
        if self.error {
            return Err(MapError::Error);
        }
        self.find(key).map(|i| &*self.entries[i].1).map_err(|_| MapError::Unset)
    }
    pub fn contains(&self, key: &[u8]) -> bool {
        self.find(key).is_ok()
    }
    pub fn delete(&mut self, key: &[u8]) -> bool {
        match self.find(key) {
            Ok(i) => {
                self.entries.remove(i);
                true
            }
            Err(_) => false,
        }
    }
    fn check_allowed(&self, v: &Values) -> Result<(), SetError> {
        if self.frame_props && !v.allowed_in_frame_props() {
            return Err(SetError::NotAllowedInFrameProps);
        }
        Ok(())
    }
    /// Replaces the key's values with `value`, or appends to them when `append` is set.
    pub fn set(&mut self, key: &[u8], value: Value, append: bool) -> Result<(), SetError> {
        if !is_valid_key(key) {
            return Err(SetError::BadKey);
        }
        let (key, value) = match value {
            Value::Int(v) if key == LEGACY_RANGE => (RANGE, Value::Int(swap_range(v))),
            v => (key, v),
        };
        let fresh = Values::of(value);
        self.check_allowed(&fresh)?;
        match self.find(key) {
            Ok(i) if append => {
                let existing = Arc::make_mut(&mut self.entries[i].1);
                let single = match fresh {
                    Values::Int(mut v) => Value::Int(v.pop().expect("one")),
                    Values::Float(mut v) => Value::Float(v.pop().expect("one")),
                    Values::Data(mut v) => Value::Data(v.pop().expect("one")),
                    Values::Function(mut v) => Value::Function(v.pop().expect("one")),
                    Values::VideoNode(mut v) | Values::AudioNode(mut v) => Value::Node(v.pop().expect("one")),
                    Values::VideoFrame(mut v) | Values::AudioFrame(mut v) => Value::Frame(v.pop().expect("one")),
                };
                existing.push(single).map_err(|_| SetError::TypeMismatch)
            }
            Ok(i) => {
                self.entries[i].1 = Arc::new(fresh);
                Ok(())
            }
            Err(i) => {
                self.entries.insert(i, (CString::new(key).map_err(|_| SetError::BadKey)?, Arc::new(fresh)));
                Ok(())
            }
        }
    }
    /// Stores a whole array at once, replacing what the key held.
    pub fn set_values(&mut self, key: &[u8], values: Values) -> Result<(), SetError> {
        if !is_valid_key(key) {
            return Err(SetError::BadKey);
        }
        let (key, values) = match values {
            Values::Int(v) if key == LEGACY_RANGE => (RANGE, Values::Int(v.into_iter().map(swap_range).collect())),
            v => (key, v),
        };
        self.check_allowed(&values)?;
        match self.find(key) {
            Ok(i) => self.entries[i].1 = Arc::new(values),
            Err(i) => self.entries.insert(i, (CString::new(key).map_err(|_| SetError::BadKey)?, Arc::new(values))),
        }
        Ok(())
    }
    /// Creates the key with no values; fails when it exists.
    pub fn set_empty(&mut self, key: &[u8], ty: i32) -> Result<(), SetError> {
        if !is_valid_key(key) {
            return Err(SetError::BadKey);
        }
        let v = Values::empty_of(ty).ok_or(SetError::BadType)?;
        let key = if ty == ptInt && key == LEGACY_RANGE { RANGE } else { key };
        self.check_allowed(&v)?;
        match self.find(key) {
            Ok(_) => Err(SetError::Exists),
            Err(i) => {
                self.entries.insert(i, (CString::new(key).map_err(|_| SetError::BadKey)?, Arc::new(v)));
                Ok(())
            }
        }
    }
    /// Copies every key of `src` in, replacing existing ones. Fails (copying nothing further) when
    /// a node or function would land in a frame property map.
    pub fn copy_from(&mut self, src: &Map) -> Result<(), SetError> {
        for (k, v) in &src.entries {
            self.check_allowed(v)?;
            match self.find(k.as_bytes()) {
                Ok(i) => self.entries[i].1 = v.clone(),
                Err(i) => self.entries.insert(i, (k.clone(), v.clone())),
            }
        }
        Ok(())
    }

    /// The reference checks the index before the type.
    fn element(&self, key: &[u8], i: usize) -> Result<&Values, MapError> {
        let vals = self.get(key)?;
        if i >= vals.len() {
            return Err(MapError::Index);
        }
        Ok(vals)
    }
    pub fn get_int(&self, key: &[u8], i: usize) -> Result<i64, MapError> {
        let (key, swap) = if key == LEGACY_RANGE { (RANGE, true) } else { (key, false) };
        match self.element(key, i)? {
            Values::Int(v) => v.get(i).map(|&v| if swap { swap_range(v) } else { v }).ok_or(MapError::Index),
            _ => Err(MapError::Type),
        }
    }
    pub fn get_float(&self, key: &[u8], i: usize) -> Result<f64, MapError> {
        match self.element(key, i)? {
            Values::Float(v) => v.get(i).copied().ok_or(MapError::Index),
            _ => Err(MapError::Type),
        }
    }
    pub fn get_data(&self, key: &[u8], i: usize) -> Result<&Data, MapError> {
        match self.element(key, i)? {
            Values::Data(v) => v.get(i).ok_or(MapError::Index),
            _ => Err(MapError::Type),
        }
    }
    pub fn get_node(&self, key: &[u8], i: usize) -> Result<&Arc<Node>, MapError> {
        match self.element(key, i)? {
            Values::VideoNode(v) | Values::AudioNode(v) => v.get(i).ok_or(MapError::Index),
            _ => Err(MapError::Type),
        }
    }
    pub fn get_frame(&self, key: &[u8], i: usize) -> Result<&Arc<Frame>, MapError> {
        match self.element(key, i)? {
            Values::VideoFrame(v) | Values::AudioFrame(v) => v.get(i).ok_or(MapError::Index),
            _ => Err(MapError::Type),
        }
    }
    pub fn get_function(&self, key: &[u8], i: usize) -> Result<&Arc<Function>, MapError> {
        match self.element(key, i)? {
            Values::Function(v) => v.get(i).ok_or(MapError::Index),
            _ => Err(MapError::Type),
        }
    }
    /// Optional-argument helpers for built-in functions: `Ok(None)` when the key is absent.
    pub fn opt_int(&self, key: &str) -> Option<i64> {
        self.get_int(key.as_bytes(), 0).ok()
    }
    pub fn opt_float(&self, key: &str) -> Option<f64> {
        self.get_float(key.as_bytes(), 0).ok()
    }
    pub fn set_int(&mut self, key: &str, v: i64) {
        self.set(key.as_bytes(), Value::Int(v), false).expect("built-in keys are valid");
    }
    pub fn set_float(&mut self, key: &str, v: f64) {
        self.set(key.as_bytes(), Value::Float(v), false).expect("built-in keys are valid");
    }
    pub fn set_str(&mut self, key: &str, v: &str) {
        self.set(key.as_bytes(), Value::Data(Data::new(v.as_bytes(), dtUtf8)), false).expect("built-in keys are valid");
    }
}

// ---- the pre-API-4.2 `_ColorRange` -----------------------------------------------------------------
//
// Plugins written before API 4.2 still read and write `_ColorRange` (0 full, 1 limited), which R81
// keeps working by treating it as a view of `_Range` (0 limited, 1 full) in every map, frame
// property map or not (learned by running R81 through its public API: tests/oracle/props_alias.c):
// - integers stored under `_ColorRange` (set, append, whole arrays, an empty int key) land in
//   `_Range` with 0 and 1 swapped and other values kept; other types are stored under the literal
//   key;
// - mapGetInt reads `_Range` the same way; mapGetType, mapNumElements and mapGetIntArray describe
//   `_Range`; the other getters and the key listing see only literal keys;
// - deleting `_ColorRange` deletes `_Range` and the literal key.
// Map::set, set_values, set_empty and get_int apply it, so std.SetFrameProps and SetFrameProp store
// as R81 does; get, delete and copy_from stay literal, so that the core's own code means what it
// says. The map ABI reaches the rest through get_described, get_int_array and delete_key below.

const LEGACY_RANGE: &[u8] = b"_ColorRange";
const RANGE: &[u8] = b"_Range";

fn swap_range(v: i64) -> i64 {
    match v {
        0 => 1,
        1 => 0,
        v => v,
    }
}

/// What mapGetIntArray hands out for a one-element `_Range` read as `_ColorRange`: R81 answers
/// 1 when `_Range` is 0 and 0 for any other value, from storage that outlives the map.
static LEGACY_ONE: i64 = 1;
static LEGACY_ZERO: i64 = 0;

impl Map {
    /// The values mapGetType and mapNumElements describe: `_Range`'s for `_ColorRange`.
    pub fn get_described(&self, key: &[u8]) -> Result<&Values, MapError> {
        self.get(if key == LEGACY_RANGE { RANGE } else { key })
    }

    /// mapGetIntArray: an empty array is an index error, as in R81; `_ColorRange` gives a single
    /// `_Range` value translated, a longer array untranslated (as R81 does).
    pub fn get_int_array(&self, key: &[u8]) -> Result<&[i64], MapError> {
        let legacy = key == LEGACY_RANGE;
        match self.get_described(key)? {
            Values::Int(v) if v.is_empty() => Err(MapError::Index),
            Values::Int(v) if legacy && v.len() == 1 => Ok(std::slice::from_ref(if v[0] == 0 { &LEGACY_ONE } else { &LEGACY_ZERO })),
            Values::Int(v) => Ok(v),
            _ => Err(MapError::Type),
        }
    }

    /// mapDeleteKey: whether anything was deleted.
    pub fn delete_key(&mut self, key: &[u8]) -> bool {
        let literal = self.delete(key);
        let aliased = key == LEGACY_RANGE && self.delete(RANGE);
        literal || aliased
    }
}

/// Clamps like the reference's saturated getters.
pub fn saturate_int(v: i64) -> i32 {
    v.clamp(i32::MIN as i64, i32::MAX as i64) as i32
}
pub fn saturate_float(v: f64) -> f32 {
    v.clamp(-(f32::MAX as f64), f32::MAX as f64) as f32
}
