//! Argument maps as typed values, and the map a function returns its result in.
//!
//! The core has already checked every argument against the function's argument string (its
//! types, arrays, optional entries), so what remains here is reading them typed: a wrong type
//! can only mean that the string and the code disagree, which is reported as an argument error.
use std::ffi::{c_int, CString};

use crate::abi::*;
use crate::api::api;
use crate::error::{Error, Result};
use crate::node::Node;
pub use crate::function::{Function, Value};
use crate::values::{MapRead, MapWrite};

fn ckey(key: &str) -> CString {
    CString::new(key).expect("argument names have no NUL")
}

/// The arguments a function was called with.
pub struct Args<'a> {
    map: *const VSMap,
    _m: std::marker::PhantomData<&'a VSMap>,
}

impl<'a> Args<'a> {
    /// # Safety
    /// `map` is valid for `'a`.
    pub unsafe fn from_raw(map: *const VSMap) -> Args<'a> {
        Args { map, _m: std::marker::PhantomData }
    }

    pub fn as_ptr(&self) -> *const VSMap {
        self.map
    }

    /// How many values the key holds; 0 when absent.
    pub fn count(&self, key: &str) -> usize {
        // SAFETY: valid map and key.
        let n = unsafe { (api().mapNumElements)(self.map, ckey(key).as_ptr()) };
        n.max(0) as usize
    }

    fn wrong(key: &str, want: &str) -> Error {
        Error::Argument { key: key.into(), problem: format!("expected {want}") }
    }

    pub fn int(&self, key: &str) -> Result<Option<i64>> {
        if self.count(key) == 0 {
            return Ok(None);
        }
        let mut err: c_int = 0;
        // SAFETY: valid map and key.
        let v = unsafe { (api().mapGetInt)(self.map, ckey(key).as_ptr(), 0, &mut err) };
        if err != 0 {
            return Err(Self::wrong(key, "an int"));
        }
        Ok(Some(v))
    }

    pub fn bool(&self, key: &str, default: bool) -> Result<bool> {
        Ok(self.int(key)?.map_or(default, |v| v != 0))
    }

    pub fn float(&self, key: &str) -> Result<Option<f64>> {
        if self.count(key) == 0 {
            return Ok(None);
        }
        let mut err: c_int = 0;
        // SAFETY: valid map and key.
        let v = unsafe { (api().mapGetFloat)(self.map, ckey(key).as_ptr(), 0, &mut err) };
        if err != 0 {
            return Err(Self::wrong(key, "a float"));
        }
        Ok(Some(v))
    }

    /// Every value of an int array argument; `None` when absent.
    pub fn ints(&self, key: &str) -> Result<Option<Vec<i64>>> {
        let n = self.count(key);
        if n == 0 {
            return Ok(None);
        }
        let mut err: c_int = 0;
        // SAFETY: valid map and key; the array has n elements while the map lives.
        let p = unsafe { (api().mapGetIntArray)(self.map, ckey(key).as_ptr(), &mut err) };
        if err != 0 || p.is_null() {
            return Err(Self::wrong(key, "ints"));
        }
        // SAFETY: as above.
        Ok(Some(unsafe { std::slice::from_raw_parts(p, n) }.to_vec()))
    }

    pub fn floats(&self, key: &str) -> Result<Option<Vec<f64>>> {
        let n = self.count(key);
        if n == 0 {
            return Ok(None);
        }
        let mut err: c_int = 0;
        // SAFETY: valid map and key; the array has n elements while the map lives.
        let p = unsafe { (api().mapGetFloatArray)(self.map, ckey(key).as_ptr(), &mut err) };
        if err != 0 || p.is_null() {
            return Err(Self::wrong(key, "floats"));
        }
        // SAFETY: as above.
        Ok(Some(unsafe { std::slice::from_raw_parts(p, n) }.to_vec()))
    }

    /// String (data) values.
    pub fn strings(&self, key: &str) -> Result<Option<Vec<String>>> {
        let n = self.count(key);
        if n == 0 {
            return Ok(None);
        }
        let k = ckey(key);
        let mut out = Vec::with_capacity(n);
        for i in 0..n as c_int {
            let mut err: c_int = 0;
            // SAFETY: valid map, key and index.
            let (p, size) = unsafe { ((api().mapGetData)(self.map, k.as_ptr(), i, &mut err), (api().mapGetDataSize)(self.map, k.as_ptr(), i, &mut err)) };
            if err != 0 || p.is_null() {
                return Err(Self::wrong(key, "data"));
            }
            // SAFETY: the core gives `size` bytes at `p`.
            let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), size.max(0) as usize) };
            out.push(String::from_utf8_lossy(bytes).into_owned());
        }
        Ok(Some(out))
    }

    /// The clips under a key; empty when absent.
    pub fn nodes(&self, key: &str) -> Result<Vec<Node>> {
        let k = ckey(key);
        (0..self.count(key) as c_int)
            .map(|i| {
                let mut err: c_int = 0;
                // SAFETY: valid map, key and index; mapGetNode returns a new reference.
                let p = unsafe { (api().mapGetNode)(self.map, k.as_ptr(), i, &mut err) };
                if err != 0 || p.is_null() {
                    Err(Self::wrong(key, "a clip"))
                } else {
                    // SAFETY: the reference is ours.
                    Ok(unsafe { Node::from_raw(p) })
                }
            })
            .collect()
    }

    pub fn node(&self, key: &str) -> Result<Node> {
        self.nodes(key)?.into_iter().next().ok_or_else(|| Error::Argument { key: key.into(), problem: "missing".into() })
    }

    pub fn function(&self, key: &str) -> Result<Option<Function>> {
        if self.count(key) == 0 {
            return Ok(None);
        }
        let mut err: c_int = 0;
        // SAFETY: valid map and key; mapGetFunction returns a new reference.
        let p = unsafe { (api().mapGetFunction)(self.map, ckey(key).as_ptr(), 0, &mut err) };
        if err != 0 || p.is_null() {
            return Err(Self::wrong(key, "a function"));
        }
        // SAFETY: the reference is ours.
        Ok(Some(unsafe { Function::from_raw(p) }))
    }
}

/// The map a function returns its results in.
pub struct Out<'a> {
    map: *mut VSMap,
    _m: std::marker::PhantomData<&'a mut VSMap>,
}

impl<'a> Out<'a> {
    /// # Safety
    /// `map` is valid and writable for `'a`.
    pub unsafe fn from_raw(map: *mut VSMap) -> Out<'a> {
        Out { map, _m: std::marker::PhantomData }
    }
    pub fn as_ptr(&mut self) -> *mut VSMap {
        self.map
    }
    pub fn set_error(&mut self, msg: &str) {
        let c = CString::new(msg.replace('\0', " ")).expect("NULs replaced");
        // SAFETY: valid map.
        unsafe { (api().mapSetError)(self.map, c.as_ptr()) }
    }
    /// Returns a clip under `key`.
    pub fn set_node(&mut self, key: &str, node: Node) {
        // SAFETY: valid map and key; the reference is handed over.
        unsafe { (api().mapConsumeNode)(self.map, ckey(key).as_ptr(), node.into_raw(), maReplace) };
    }
}

impl MapRead for Args<'_> {
    fn map_ptr(&self) -> *const VSMap {
        self.map
    }
}

impl MapRead for Out<'_> {
    fn map_ptr(&self) -> *const VSMap {
        self.map
    }
}

impl MapWrite for Out<'_> {
    fn map_mut_ptr(&mut self) -> *mut VSMap {
        self.map
    }
}
