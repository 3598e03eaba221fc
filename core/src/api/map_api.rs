//! VSMap entry points.
use std::ffi::{c_char, c_int};
use std::ptr;

use vsvk_plugin_api::abi::*;

use super::{fatal, guard, lossy, req_str};
use crate::frame::Frame;
use crate::function::Function;
use crate::map::{saturate_float, saturate_int, Data, Map, MapError, SetError, Value, Values};
use crate::node::Node;

fn map_ref<'a>(call: &str, m: *const VSMap) -> &'a Map {
    if m.is_null() {
        fatal(&format!("{call}: map is NULL"));
    }
    // SAFETY: non-null map pointers come from createMap or a frame's property map.
    unsafe { &*m.cast::<Map>() }
}

fn map_mut<'a>(call: &str, m: *mut VSMap) -> &'a mut Map {
    if m.is_null() {
        fatal(&format!("{call}: map is NULL"));
    }
    // SAFETY: as for map_ref; the caller owns the map for writing by the API's rules.
    unsafe { &mut *m.cast::<Map>() }
}

fn set_err(error: *mut c_int, e: Result<(), MapError>) {
    if !error.is_null() {
        // SAFETY: a non-null error pointer is writable by contract.
        unsafe { *error = e.err().map_or(peSuccess, MapError::code) };
    }
}

/// Getters without an error pointer treat failure as fatal, as the reference does.
fn report<T: Default>(call: &str, key: &[u8], error: *mut c_int, r: Result<T, MapError>) -> T {
    match r {
        Ok(v) => {
            set_err(error, Ok(()));
            v
        }
        Err(e) => {
            if error.is_null() {
                fatal(&format!("{call}: property read of '{}' failed ({e}) and no error pointer was given", lossy(key)));
            }
            set_err(error, Err(e));
            T::default()
        }
    }
}

fn idx(index: c_int) -> Result<usize, MapError> {
    usize::try_from(index).map_err(|_| MapError::Index)
}

fn setter(call: &str, r: Result<(), SetError>) -> c_int {
    match r {
        Ok(()) => 0,
        Err(SetError::NotAllowedInFrameProps) if call.starts_with("copyMap") => fatal(&format!("{call}: {}", SetError::NotAllowedInFrameProps)),
        Err(_) => 1,
    }
}

pub unsafe extern "C" fn create_map() -> *mut VSMap {
    guard("createMap", || Box::into_raw(Box::new(Map::new())).cast())
}

pub unsafe extern "C" fn free_map(m: *mut VSMap) {
    guard("freeMap", || {
        if !m.is_null() {
            // SAFETY: maps handed out by createMap are boxed.
            drop(unsafe { Box::from_raw(m.cast::<Map>()) });
        }
    })
}

pub unsafe extern "C" fn clear_map(m: *mut VSMap) {
    guard("clearMap", || map_mut("clearMap", m).clear())
}

pub unsafe extern "C" fn copy_map(src: *const VSMap, dst: *mut VSMap) {
    guard("copyMap", || {
        // a map copied into itself stays as it is, so other maps can be read in place rather than
        // cloned first (std.CopyFrameProps copies one per frame)
        if std::ptr::eq(src.cast::<u8>(), dst.cast::<u8>()) {
            map_ref("copyMap", src);
            return;
        }
        let s = map_ref("copyMap", src);
        setter("copyMap", map_mut("copyMap", dst).copy_from(s));
    })
}

pub unsafe extern "C" fn map_set_error(m: *mut VSMap, msg: *const c_char) {
    guard("mapSetError", || {
        let text = if msg.is_null() { String::new() } else { lossy(req_str("mapSetError", "message", msg)) };
        map_mut("mapSetError", m).set_error(&text)
    })
}

pub unsafe extern "C" fn map_get_error(m: *const VSMap) -> *const c_char {
    guard("mapGetError", || map_ref("mapGetError", m).error().map_or(ptr::null(), |e| e.as_ptr()))
}

pub unsafe extern "C" fn map_num_keys(m: *const VSMap) -> c_int {
    guard("mapNumKeys", || map_ref("mapNumKeys", m).num_keys() as c_int)
}

pub unsafe extern "C" fn map_get_key(m: *const VSMap, index: c_int) -> *const c_char {
    guard("mapGetKey", || {
        let map = map_ref("mapGetKey", m);
        match usize::try_from(index).ok().and_then(|i| map.key(i)) {
            Some(k) => k.as_ptr(),
            None => fatal(&format!("mapGetKey: index {index} out of bounds (the map has {} keys)", map.num_keys())),
        }
    })
}

pub unsafe extern "C" fn map_delete_key(m: *mut VSMap, key: *const c_char) -> c_int {
    guard("mapDeleteKey", || map_mut("mapDeleteKey", m).delete_key(req_str("mapDeleteKey", "key", key)) as c_int)
}

pub unsafe extern "C" fn map_num_elements(m: *const VSMap, key: *const c_char) -> c_int {
    guard("mapNumElements", || match map_ref("mapNumElements", m).get_described(req_str("mapNumElements", "key", key)) {
        Ok(v) => v.len() as c_int,
        Err(_) => -1,
    })
}

pub unsafe extern "C" fn map_get_type(m: *const VSMap, key: *const c_char) -> c_int {
    guard("mapGetType", || match map_ref("mapGetType", m).get_described(req_str("mapGetType", "key", key)) {
        Ok(v) => v.type_code(),
        Err(_) => ptUnset,
    })
}

pub unsafe extern "C" fn map_set_empty(m: *mut VSMap, key: *const c_char, ty: c_int) -> c_int {
    guard("mapSetEmpty", || match map_mut("mapSetEmpty", m).set_empty(req_str("mapSetEmpty", "key", key), ty) {
        Ok(()) => 0,
        Err(_) => 1,
    })
}

pub unsafe extern "C" fn map_get_int(m: *const VSMap, key: *const c_char, index: c_int, error: *mut c_int) -> i64 {
    guard("mapGetInt", || {
        let k = req_str("mapGetInt", "key", key);
        report("mapGetInt", k, error, idx(index).and_then(|i| map_ref("mapGetInt", m).get_int(k, i)))
    })
}

pub unsafe extern "C" fn map_get_int_saturated(m: *const VSMap, key: *const c_char, index: c_int, error: *mut c_int) -> c_int {
    saturate_int(map_get_int(m, key, index, error))
}

pub unsafe extern "C" fn map_get_int_array(m: *const VSMap, key: *const c_char, error: *mut c_int) -> *const i64 {
    guard("mapGetIntArray", || {
        let k = req_str("mapGetIntArray", "key", key);
        let r = map_ref("mapGetIntArray", m).get_int_array(k).map(|a| a.as_ptr());
        match r {
            Ok(p) => {
                set_err(error, Ok(()));
                p
            }
            Err(e) => {
                if error.is_null() {
                    fatal(&format!("mapGetIntArray: property read of '{}' failed ({e}) and no error pointer was given", lossy(k)));
                }
                set_err(error, Err(e));
                ptr::null()
            }
        }
    })
}

pub unsafe extern "C" fn map_set_int(m: *mut VSMap, key: *const c_char, v: i64, append: c_int) -> c_int {
    guard("mapSetInt", || setter("mapSetInt", map_mut("mapSetInt", m).set(req_str("mapSetInt", "key", key), Value::Int(v), append != 0)))
}

pub unsafe extern "C" fn map_set_int_array(m: *mut VSMap, key: *const c_char, v: *const i64, size: c_int) -> c_int {
    guard("mapSetIntArray", || {
        if size < 0 || (size > 0 && v.is_null()) {
            return 1;
        }
        // SAFETY: `v` points at `size` integers by contract (checked non-null above).
        let vals = if size == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(v, size as usize) }.to_vec() };
        setter("mapSetIntArray", map_mut("mapSetIntArray", m).set_values(req_str("mapSetIntArray", "key", key), Values::Int(vals)))
    })
}

pub unsafe extern "C" fn map_get_float(m: *const VSMap, key: *const c_char, index: c_int, error: *mut c_int) -> f64 {
    guard("mapGetFloat", || {
        let k = req_str("mapGetFloat", "key", key);
        report("mapGetFloat", k, error, idx(index).and_then(|i| map_ref("mapGetFloat", m).get_float(k, i)))
    })
}

pub unsafe extern "C" fn map_get_float_saturated(m: *const VSMap, key: *const c_char, index: c_int, error: *mut c_int) -> f32 {
    saturate_float(map_get_float(m, key, index, error))
}

pub unsafe extern "C" fn map_get_float_array(m: *const VSMap, key: *const c_char, error: *mut c_int) -> *const f64 {
    guard("mapGetFloatArray", || {
        let k = req_str("mapGetFloatArray", "key", key);
        // R81 answers an empty array with an index error and no pointer
        let r = map_ref("mapGetFloatArray", m).get(k).and_then(|v| match v {
            Values::Float(a) if a.is_empty() => Err(MapError::Index),
            Values::Float(a) => Ok(a.as_ptr()),
            _ => Err(MapError::Type),
        });
        match r {
            Ok(p) => {
                set_err(error, Ok(()));
                p
            }
            Err(e) => {
                if error.is_null() {
                    fatal(&format!("mapGetFloatArray: property read of '{}' failed ({e}) and no error pointer was given", lossy(k)));
                }
                set_err(error, Err(e));
                ptr::null()
            }
        }
    })
}

pub unsafe extern "C" fn map_set_float(m: *mut VSMap, key: *const c_char, v: f64, append: c_int) -> c_int {
    guard("mapSetFloat", || {
        setter("mapSetFloat", map_mut("mapSetFloat", m).set(req_str("mapSetFloat", "key", key), Value::Float(v), append != 0))
    })
}

pub unsafe extern "C" fn map_set_float_array(m: *mut VSMap, key: *const c_char, v: *const f64, size: c_int) -> c_int {
    guard("mapSetFloatArray", || {
        if size < 0 || (size > 0 && v.is_null()) {
            return 1;
        }
        // SAFETY: `v` points at `size` doubles by contract (checked non-null above).
        let vals = if size == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(v, size as usize) }.to_vec() };
        setter("mapSetFloatArray", map_mut("mapSetFloatArray", m).set_values(req_str("mapSetFloatArray", "key", key), Values::Float(vals)))
    })
}

pub unsafe extern "C" fn map_get_data(m: *const VSMap, key: *const c_char, index: c_int, error: *mut c_int) -> *const c_char {
    guard("mapGetData", || {
        let k = req_str("mapGetData", "key", key);
        let r = idx(index).and_then(|i| map_ref("mapGetData", m).get_data(k, i).map(|d| d.as_ptr()));
        report("mapGetData", k, error, r.map(Some)).unwrap_or(ptr::null())
    })
}

pub unsafe extern "C" fn map_get_data_size(m: *const VSMap, key: *const c_char, index: c_int, error: *mut c_int) -> c_int {
    guard("mapGetDataSize", || {
        let k = req_str("mapGetDataSize", "key", key);
        let r = idx(index).and_then(|i| map_ref("mapGetDataSize", m).get_data(k, i).map(|d| d.len() as c_int));
        report("mapGetDataSize", k, error, r.map(Some)).unwrap_or(-1)
    })
}

pub unsafe extern "C" fn map_get_data_type_hint(m: *const VSMap, key: *const c_char, index: c_int, error: *mut c_int) -> c_int {
    guard("mapGetDataTypeHint", || {
        let k = req_str("mapGetDataTypeHint", "key", key);
        let r = idx(index).and_then(|i| map_ref("mapGetDataTypeHint", m).get_data(k, i).map(|d| d.hint));
        report("mapGetDataTypeHint", k, error, r.map(Some)).unwrap_or(dtUnknown)
    })
}

pub unsafe extern "C" fn map_set_data(m: *mut VSMap, key: *const c_char, data: *const c_char, size: c_int, hint: c_int, append: c_int) -> c_int {
    guard("mapSetData", || {
        let bytes: &[u8] = if size < 0 {
            req_str("mapSetData", "data", data)
        } else if size == 0 {
            &[]
        } else {
            super::req_ptr("mapSetData", "data", data);
            // SAFETY: `data` holds `size` bytes by contract.
            unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size as usize) }
        };
        let hint = if (dtUnknown..=dtUtf8).contains(&hint) { hint } else { dtUnknown };
        setter("mapSetData", map_mut("mapSetData", m).set(req_str("mapSetData", "key", key), Value::Data(Data::new(bytes, hint)), append != 0))
    })
}

pub unsafe extern "C" fn map_get_node(m: *const VSMap, key: *const c_char, index: c_int, error: *mut c_int) -> *mut VSNode {
    guard("mapGetNode", || {
        let k = req_str("mapGetNode", "key", key);
        let r = idx(index).and_then(|i| map_ref("mapGetNode", m).get_node(k, i).map(|n| Node::into_raw(n.clone())));
        report("mapGetNode", k, error, r.map(Some)).unwrap_or(ptr::null_mut())
    })
}

pub unsafe extern "C" fn map_set_node(m: *mut VSMap, key: *const c_char, node: *mut VSNode, append: c_int) -> c_int {
    guard("mapSetNode", || {
        super::req_ptr("mapSetNode", "node", node);
        // SAFETY: a node pointer with a reference the caller keeps; we take our own.
        let n = unsafe { Node::clone_raw(node) };
        setter("mapSetNode", map_mut("mapSetNode", m).set(req_str("mapSetNode", "key", key), Value::Node(n), append != 0))
    })
}

pub unsafe extern "C" fn map_consume_node(m: *mut VSMap, key: *const c_char, node: *mut VSNode, append: c_int) -> c_int {
    guard("mapConsumeNode", || {
        super::req_ptr("mapConsumeNode", "node", node);
        // SAFETY: the caller hands its reference over, even when storing fails.
        let n = unsafe { Node::from_raw(node) };
        setter("mapConsumeNode", map_mut("mapConsumeNode", m).set(req_str("mapConsumeNode", "key", key), Value::Node(n), append != 0))
    })
}

pub unsafe extern "C" fn map_get_frame(m: *const VSMap, key: *const c_char, index: c_int, error: *mut c_int) -> *const VSFrame {
    guard("mapGetFrame", || {
        let k = req_str("mapGetFrame", "key", key);
        let r = idx(index).and_then(|i| map_ref("mapGetFrame", m).get_frame(k, i).map(|f| Frame::into_raw(f.clone())));
        report("mapGetFrame", k, error, r.map(Some)).unwrap_or(ptr::null())
    })
}

pub unsafe extern "C" fn map_set_frame(m: *mut VSMap, key: *const c_char, f: *const VSFrame, append: c_int) -> c_int {
    guard("mapSetFrame", || {
        super::req_ptr("mapSetFrame", "frame", f);
        // SAFETY: a live frame reference; we take our own.
        let fr = unsafe { Frame::clone_raw(f) };
        setter("mapSetFrame", map_mut("mapSetFrame", m).set(req_str("mapSetFrame", "key", key), Value::Frame(fr), append != 0))
    })
}

pub unsafe extern "C" fn map_consume_frame(m: *mut VSMap, key: *const c_char, f: *const VSFrame, append: c_int) -> c_int {
    guard("mapConsumeFrame", || {
        super::req_ptr("mapConsumeFrame", "frame", f);
        // SAFETY: the caller hands its reference over.
        let fr = unsafe { Frame::from_raw(f) };
        setter("mapConsumeFrame", map_mut("mapConsumeFrame", m).set(req_str("mapConsumeFrame", "key", key), Value::Frame(fr), append != 0))
    })
}

pub unsafe extern "C" fn map_get_function(m: *const VSMap, key: *const c_char, index: c_int, error: *mut c_int) -> *mut VSFunction {
    guard("mapGetFunction", || {
        let k = req_str("mapGetFunction", "key", key);
        let r = idx(index).and_then(|i| map_ref("mapGetFunction", m).get_function(k, i).map(|f| Function::into_raw(f.clone())));
        report("mapGetFunction", k, error, r.map(Some)).unwrap_or(ptr::null_mut())
    })
}

pub unsafe extern "C" fn map_set_function(m: *mut VSMap, key: *const c_char, f: *mut VSFunction, append: c_int) -> c_int {
    guard("mapSetFunction", || {
        super::req_ptr("mapSetFunction", "function", f);
        // SAFETY: a live function reference; we take our own.
        let func = unsafe { Function::clone_raw(f) };
        setter("mapSetFunction", map_mut("mapSetFunction", m).set(req_str("mapSetFunction", "key", key), Value::Function(func), append != 0))
    })
}

pub unsafe extern "C" fn map_consume_function(m: *mut VSMap, key: *const c_char, f: *mut VSFunction, append: c_int) -> c_int {
    guard("mapConsumeFunction", || {
        super::req_ptr("mapConsumeFunction", "function", f);
        // SAFETY: the caller hands its reference over.
        let func = unsafe { Function::from_raw(f) };
        setter(
            "mapConsumeFunction",
            map_mut("mapConsumeFunction", m).set(req_str("mapConsumeFunction", "key", key), Value::Function(func), append != 0),
        )
    })
}
