//! Any map, read and written typed: [`MapRead`] and [`MapWrite`] give every value type of the
//! ABI (int, float, data, video and audio nodes and frames, functions), element counts, keys and
//! the map's error, for argument maps, result maps, frame properties and maps of our own
//! ([`OwnedMap`]). [`Values`] holds all the values of one key.
use std::ffi::{c_int, CStr, CString};

use crate::abi::*;
use crate::api::api;
use crate::error::{Error, MapError, Result};
use crate::frame::Frame;
use crate::function::Function;
use crate::node::Node;

/// A key as the ABI wants it, terminated: short keys (all real ones) on the stack, so that
/// reading or writing a property costs no allocation per frame.
pub(crate) enum Key {
    Short([u8; 64]),
    Long(CString),
}

impl Key {
    /// `None` for a key with a NUL, which no map can hold.
    pub(crate) fn new(key: &str) -> Option<Key> {
        let b = key.as_bytes();
        if b.contains(&0) {
            return None;
        }
        if b.len() < 64 {
            let mut buf = [0u8; 64];
            buf[..b.len()].copy_from_slice(b);
            Some(Key::Short(buf))
        } else {
            CString::new(key).ok().map(Key::Long)
        }
    }
    pub(crate) fn as_ptr(&self) -> *const std::ffi::c_char {
        match self {
            Key::Short(b) => b.as_ptr().cast(),
            Key::Long(c) => c.as_ptr(),
        }
    }
}

fn ckey(key: &str) -> Option<Key> {
    Key::new(key)
}

fn fail(key: &str, e: MapError) -> Error {
    Error::Map { key: key.into(), error: e }
}

fn check(key: &str, err: c_int) -> Result<()> {
    match err {
        0 => Ok(()),
        e if e == peUnset => Err(fail(key, MapError::Missing)),
        e if e == peType => Err(fail(key, MapError::WrongType)),
        e if e == peIndex => Err(fail(key, MapError::Index)),
        _ => Err(fail(key, MapError::HasError)),
    }
}

/// One data value: its bytes and its type hint (`dtUtf8`, `dtBinary`, `dtUnknown`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Data {
    pub bytes: Vec<u8>,
    pub hint: c_int,
}

impl Data {
    pub fn to_str_lossy(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// Every value under one key.
#[derive(Clone)]
pub enum Values {
    Int(Vec<i64>),
    Float(Vec<f64>),
    Data(Vec<Data>),
    VideoNode(Vec<Node>),
    AudioNode(Vec<Node>),
    VideoFrame(Vec<Frame>),
    AudioFrame(Vec<Frame>),
    Function(Vec<Function>),
}

/// Reading a map. Getters take the element index; a missing key, a wrong type or an index past
/// the end is an [`Error::Map`].
pub trait MapRead {
    fn map_ptr(&self) -> *const VSMap;

    /// The map's error message, if one was set.
    fn error(&self) -> Option<String> {
        // SAFETY: a valid map; the string lives as long as the map is unchanged and is copied here.
        let p = unsafe { (api().mapGetError)(self.map_ptr()) };
        // SAFETY: non-null strings from the core are terminated.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }

    fn num_keys(&self) -> usize {
        // SAFETY: a valid map.
        unsafe { (api().mapNumKeys)(self.map_ptr()) }.max(0) as usize
    }

    /// The keys in the map's order.
    fn keys(&self) -> Vec<String> {
        (0..self.num_keys())
            .map(|i| {
                // SAFETY: a valid map and an index below numKeys; the string is copied at once.
                let p = unsafe { (api().mapGetKey)(self.map_ptr(), i as c_int) };
                // SAFETY: keys are terminated strings.
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            })
            .collect()
    }

    /// How many values the key holds; 0 when absent.
    fn num_elements(&self, key: &str) -> usize {
        let Some(k) = ckey(key) else { return 0 };
        // SAFETY: a valid map and key.
        unsafe { (api().mapNumElements)(self.map_ptr(), k.as_ptr()) }.max(0) as usize
    }

    fn contains(&self, key: &str) -> bool {
        self.value_type(key) != ptUnset
    }

    /// `ptInt`, `ptFloat`, ... or `ptUnset`.
    fn value_type(&self, key: &str) -> c_int {
        let Some(k) = ckey(key) else { return ptUnset };
        // SAFETY: a valid map and key.
        unsafe { (api().mapGetType)(self.map_ptr(), k.as_ptr()) }
    }

    fn get_int(&self, key: &str, index: usize) -> Result<i64> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::Missing))?;
        let mut err = 0;
        // SAFETY: a valid map and key.
        let v = unsafe { (api().mapGetInt)(self.map_ptr(), k.as_ptr(), index as c_int, &mut err) };
        check(key, err).map(|_| v)
    }

    fn get_float(&self, key: &str, index: usize) -> Result<f64> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::Missing))?;
        let mut err = 0;
        // SAFETY: a valid map and key.
        let v = unsafe { (api().mapGetFloat)(self.map_ptr(), k.as_ptr(), index as c_int, &mut err) };
        check(key, err).map(|_| v)
    }

    fn get_data(&self, key: &str, index: usize) -> Result<Data> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::Missing))?;
        let (mut e1, mut e2, mut e3) = (0, 0, 0);
        // SAFETY: a valid map, key and index; the bytes are copied before the map can change.
        unsafe {
            let p = (api().mapGetData)(self.map_ptr(), k.as_ptr(), index as c_int, &mut e1);
            check(key, e1)?;
            let size = (api().mapGetDataSize)(self.map_ptr(), k.as_ptr(), index as c_int, &mut e2);
            let hint = (api().mapGetDataTypeHint)(self.map_ptr(), k.as_ptr(), index as c_int, &mut e3);
            check(key, e2.max(e3))?;
            let bytes = if p.is_null() { Vec::new() } else { std::slice::from_raw_parts(p.cast::<u8>(), size.max(0) as usize).to_vec() };
            Ok(Data { bytes, hint })
        }
    }

    /// A clip (video or audio); a new reference.
    fn get_node(&self, key: &str, index: usize) -> Result<Node> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::Missing))?;
        let mut err = 0;
        // SAFETY: a valid map and key; mapGetNode gives a new reference.
        let p = unsafe { (api().mapGetNode)(self.map_ptr(), k.as_ptr(), index as c_int, &mut err) };
        check(key, err)?;
        // SAFETY: the reference is ours.
        Ok(unsafe { Node::from_raw(p) })
    }

    /// A frame (video or audio); a new reference.
    fn get_frame(&self, key: &str, index: usize) -> Result<Frame> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::Missing))?;
        let mut err = 0;
        // SAFETY: a valid map and key; mapGetFrame gives a new reference.
        let p = unsafe { (api().mapGetFrame)(self.map_ptr(), k.as_ptr(), index as c_int, &mut err) };
        check(key, err)?;
        // SAFETY: the reference is ours.
        Ok(unsafe { Frame::from_raw(p) })
    }

    fn get_function(&self, key: &str, index: usize) -> Result<Function> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::Missing))?;
        let mut err = 0;
        // SAFETY: a valid map and key; mapGetFunction gives a new reference.
        let p = unsafe { (api().mapGetFunction)(self.map_ptr(), k.as_ptr(), index as c_int, &mut err) };
        check(key, err)?;
        // SAFETY: the reference is ours.
        Ok(unsafe { Function::from_raw(p) })
    }

    /// Every int of a key (one copy of the core's array).
    fn get_ints(&self, key: &str) -> Result<Vec<i64>> {
        let n = self.num_elements(key);
        let k = ckey(key).ok_or_else(|| fail(key, MapError::Missing))?;
        let mut err = 0;
        // SAFETY: a valid map and key; the array has n elements while the map is unchanged.
        let p = unsafe { (api().mapGetIntArray)(self.map_ptr(), k.as_ptr(), &mut err) };
        check(key, err)?;
        // SAFETY: as above.
        Ok(if p.is_null() || n == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(p, n) }.to_vec() })
    }

    fn get_floats(&self, key: &str) -> Result<Vec<f64>> {
        let n = self.num_elements(key);
        let k = ckey(key).ok_or_else(|| fail(key, MapError::Missing))?;
        let mut err = 0;
        // SAFETY: a valid map and key; the array has n elements while the map is unchanged.
        let p = unsafe { (api().mapGetFloatArray)(self.map_ptr(), k.as_ptr(), &mut err) };
        check(key, err)?;
        // SAFETY: as above.
        Ok(if p.is_null() || n == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(p, n) }.to_vec() })
    }

    /// Every value of a key, typed; `None` when absent. Literal: what is stored under this very
    /// key (for `_ColorRange`, which the core's getters of types and counts read as a view of
    /// `_Range`, the values stored under the literal key, never ints).
    fn values(&self, key: &str) -> Option<Values> {
        if key == LEGACY_RANGE {
            return literal_legacy_range(self);
        }
        let n = self.num_elements(key);
        let v = match self.value_type(key) {
            t if t == ptInt && n == 0 => Values::Int(Vec::new()),
            t if t == ptFloat && n == 0 => Values::Float(Vec::new()),
            t if t == ptInt => Values::Int(self.get_ints(key).ok()?),
            t if t == ptFloat => Values::Float(self.get_floats(key).ok()?),
            t if t == ptData => Values::Data((0..n).map(|i| self.get_data(key, i)).collect::<Result<_>>().ok()?),
            t if t == ptVideoNode => Values::VideoNode((0..n).map(|i| self.get_node(key, i)).collect::<Result<_>>().ok()?),
            t if t == ptAudioNode => Values::AudioNode((0..n).map(|i| self.get_node(key, i)).collect::<Result<_>>().ok()?),
            t if t == ptVideoFrame => Values::VideoFrame((0..n).map(|i| self.get_frame(key, i)).collect::<Result<_>>().ok()?),
            t if t == ptAudioFrame => Values::AudioFrame((0..n).map(|i| self.get_frame(key, i)).collect::<Result<_>>().ok()?),
            t if t == ptFunction => Values::Function((0..n).map(|i| self.get_function(key, i)).collect::<Result<_>>().ok()?),
            _ => return None,
        };
        Some(v)
    }
}

/// The pre-API-4.2 name of `_Range`. The core (as R81) stores ints set under it in `_Range` (0
/// and 1 swapped) and describes `_Range` when asked its type or count, while its other getters
/// read the literal key, which holds only non-int values.
const LEGACY_RANGE: &str = "_ColorRange";

/// The values stored under the literal `_ColorRange`, found by reading each element with each
/// literal getter (an empty literal key reads as absent).
fn literal_legacy_range<M: MapRead + ?Sized>(m: &M) -> Option<Values> {
    let k = LEGACY_RANGE;
    if m.get_float(k, 0).is_ok() {
        return Some(Values::Float((0..).map_while(|i| m.get_float(k, i).ok()).collect()));
    }
    if m.get_data(k, 0).is_ok() {
        return Some(Values::Data((0..).map_while(|i| m.get_data(k, i).ok()).collect()));
    }
    if let Ok(f) = m.get_frame(k, 0) {
        let audio = f.frame_type() == mtAudio;
        let v: Vec<Frame> = (0..).map_while(|i| m.get_frame(k, i).ok()).collect();
        return Some(if audio { Values::AudioFrame(v) } else { Values::VideoFrame(v) });
    }
    if let Ok(n) = m.get_node(k, 0) {
        let audio = n.media_type() == mtAudio;
        let v: Vec<Node> = (0..).map_while(|i| m.get_node(k, i).ok()).collect();
        return Some(if audio { Values::AudioNode(v) } else { Values::VideoNode(v) });
    }
    if m.get_function(k, 0).is_ok() {
        return Some(Values::Function((0..).map_while(|i| m.get_function(k, i).ok()).collect()));
    }
    None
}

/// Writing a map. `append` adds to the key's values (of the same type); otherwise the key's
/// values are replaced.
pub trait MapWrite: MapRead {
    fn map_mut_ptr(&mut self) -> *mut VSMap;

    fn set_error(&mut self, msg: &str) {
        let c = CString::new(msg.replace('\0', " ")).expect("NULs replaced");
        // SAFETY: a valid map; the core copies the message.
        unsafe { (api().mapSetError)(self.map_mut_ptr(), c.as_ptr()) }
    }

    /// Removes every key (and the error, if any).
    fn clear(&mut self) {
        // SAFETY: a valid map.
        unsafe { (api().clearMap)(self.map_mut_ptr()) }
    }

    /// Removes the key; false when it was not there.
    fn delete_key(&mut self, key: &str) -> bool {
        let Some(k) = ckey(key) else { return false };
        // SAFETY: a valid map and key.
        unsafe { (api().mapDeleteKey)(self.map_mut_ptr(), k.as_ptr()) != 0 }
    }

    /// The key with no values, of type `pt` (`ptInt`, ...).
    fn set_empty(&mut self, key: &str, pt: c_int) -> Result<()> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::InvalidKey))?;
        // SAFETY: a valid map and key.
        let r = unsafe { (api().mapSetEmpty)(self.map_mut_ptr(), k.as_ptr(), pt) };
        written(key, r)
    }

    fn put_int(&mut self, key: &str, v: i64, append: bool) -> Result<()> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::InvalidKey))?;
        // SAFETY: a valid map and key.
        written(key, unsafe { (api().mapSetInt)(self.map_mut_ptr(), k.as_ptr(), v, mode(append)) })
    }

    fn put_ints(&mut self, key: &str, v: &[i64]) -> Result<()> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::InvalidKey))?;
        // SAFETY: a valid map and key; the core copies `len` values.
        written(key, unsafe { (api().mapSetIntArray)(self.map_mut_ptr(), k.as_ptr(), v.as_ptr(), v.len() as c_int) })
    }

    fn put_float(&mut self, key: &str, v: f64, append: bool) -> Result<()> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::InvalidKey))?;
        // SAFETY: a valid map and key.
        written(key, unsafe { (api().mapSetFloat)(self.map_mut_ptr(), k.as_ptr(), v, mode(append)) })
    }

    fn put_floats(&mut self, key: &str, v: &[f64]) -> Result<()> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::InvalidKey))?;
        // SAFETY: a valid map and key; the core copies `len` values.
        written(key, unsafe { (api().mapSetFloatArray)(self.map_mut_ptr(), k.as_ptr(), v.as_ptr(), v.len() as c_int) })
    }

    /// Bytes with a type hint (`dtUtf8` for text, `dtBinary`).
    fn put_data(&mut self, key: &str, bytes: &[u8], hint: c_int, append: bool) -> Result<()> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::InvalidKey))?;
        // SAFETY: a valid map and key; the core copies `len` bytes.
        written(key, unsafe { (api().mapSetData)(self.map_mut_ptr(), k.as_ptr(), bytes.as_ptr().cast(), bytes.len() as c_int, hint, mode(append)) })
    }

    fn put_node(&mut self, key: &str, node: Node, append: bool) -> Result<()> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::InvalidKey))?;
        // SAFETY: a valid map and key; the reference is handed over (consumed even on failure).
        written(key, unsafe { (api().mapConsumeNode)(self.map_mut_ptr(), k.as_ptr(), node.into_raw(), mode(append)) })
    }

    fn put_frame(&mut self, key: &str, frame: Frame, append: bool) -> Result<()> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::InvalidKey))?;
        // SAFETY: a valid map and key; the reference is handed over (consumed even on failure).
        written(key, unsafe { (api().mapConsumeFrame)(self.map_mut_ptr(), k.as_ptr(), frame.into_raw(), mode(append)) })
    }

    fn put_function(&mut self, key: &str, f: Function, append: bool) -> Result<()> {
        let k = ckey(key).ok_or_else(|| fail(key, MapError::InvalidKey))?;
        // SAFETY: a valid map and key; the reference is handed over (consumed even on failure).
        written(key, unsafe { (api().mapConsumeFunction)(self.map_mut_ptr(), k.as_ptr(), f.into_raw(), mode(append)) })
    }

    /// Every value of `v` under `key`, replacing what was there: the first value replaces, the
    /// others are appended (as a C plugin would store them, so the core's `_ColorRange` view of
    /// `_Range` applies as it does to any plugin), ints and floats as whole arrays.
    fn put_values(&mut self, key: &str, v: Values) -> Result<()> {
        match v {
            Values::Int(a) if a.is_empty() => self.set_empty(key, ptInt),
            Values::Float(a) if a.is_empty() => self.set_empty(key, ptFloat),
            Values::Int(a) => self.put_ints(key, &a),
            Values::Float(a) => self.put_floats(key, &a),
            Values::Data(a) => each(self, key, ptData, a, |m, k, d, app| m.put_data(k, &d.bytes, d.hint, app)),
            Values::VideoNode(a) => each(self, key, ptVideoNode, a, |m, k, n, app| m.put_node(k, n, app)),
            Values::AudioNode(a) => each(self, key, ptAudioNode, a, |m, k, n, app| m.put_node(k, n, app)),
            Values::VideoFrame(a) => each(self, key, ptVideoFrame, a, |m, k, f, app| m.put_frame(k, f, app)),
            Values::AudioFrame(a) => each(self, key, ptAudioFrame, a, |m, k, f, app| m.put_frame(k, f, app)),
            Values::Function(a) => each(self, key, ptFunction, a, |m, k, f, app| m.put_function(k, f, app)),
        }
    }
}

fn each<M: MapWrite + ?Sized, T>(m: &mut M, key: &str, pt: c_int, items: Vec<T>, put: impl Fn(&mut M, &str, T, bool) -> Result<()>) -> Result<()> {
    if items.is_empty() {
        return m.set_empty(key, pt);
    }
    items.into_iter().enumerate().try_for_each(|(i, x)| put(m, key, x, i > 0))
}

fn mode(append: bool) -> c_int {
    if append {
        maAppend
    } else {
        maReplace
    }
}

fn written(key: &str, r: c_int) -> Result<()> {
    if r == 0 {
        Ok(())
    } else {
        Err(fail(key, MapError::NotWritten))
    }
}

/// A map of our own (`createMap`), freed on drop: arguments for [`crate::invoke`] and function
/// calls, and what they return.
pub struct OwnedMap(*mut VSMap);

// SAFETY: a map used by one owner at a time; the core's maps have no thread affinity.
unsafe impl Send for OwnedMap {}

impl OwnedMap {
    pub fn new() -> OwnedMap {
        // SAFETY: createMap has no preconditions and never returns NULL.
        OwnedMap(unsafe { (api().createMap)() })
    }
    /// # Safety
    /// `p` is a map the caller owns and gives up.
    pub unsafe fn from_raw(p: *mut VSMap) -> OwnedMap {
        OwnedMap(p)
    }
    pub fn as_ptr(&self) -> *const VSMap {
        self.0
    }
    pub fn as_mut_ptr(&mut self) -> *mut VSMap {
        self.0
    }
    /// Turns the map's error, if any, into ours.
    pub fn ok(self) -> Result<OwnedMap> {
        match self.error() {
            Some(e) => Err(Error::Invalid(e)),
            None => Ok(self),
        }
    }
}

impl Default for OwnedMap {
    fn default() -> Self {
        OwnedMap::new()
    }
}

impl Drop for OwnedMap {
    fn drop(&mut self) {
        // SAFETY: we own the map.
        unsafe { (api().freeMap)(self.0) }
    }
}

impl MapRead for OwnedMap {
    fn map_ptr(&self) -> *const VSMap {
        self.0
    }
}

impl MapWrite for OwnedMap {
    fn map_mut_ptr(&mut self) -> *mut VSMap {
        self.0
    }
}
