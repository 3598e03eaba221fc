//! Plugin, plugin function and invoke entry points.
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use super::{fatal, guard, lossy, req_str};
use crate::core::Core;
use crate::map::Map;
use crate::plugin::{self, FuncImpl, Plugin, PluginFunction};

fn plugin_ref<'a>(call: &str, p: *const VSPlugin) -> &'a Plugin {
    if p.is_null() {
        fatal(&format!("{call}: plugin is NULL"));
    }
    // SAFETY: plugin pointers come from the core, which keeps its plugins for its lifetime.
    unsafe { Plugin::borrow_raw(p) }
}

fn core<'a>(call: &str, c: *mut VSCore) -> &'a Core {
    if c.is_null() {
        fatal(&format!("{call}: core is NULL"));
    }
    // SAFETY: a live core pointer.
    unsafe { Core::borrow_raw(c) }
}

fn func_ref<'a>(call: &str, f: *mut VSPluginFunction) -> &'a PluginFunction {
    if f.is_null() {
        fatal(&format!("{call}: function is NULL"));
    }
    // SAFETY: plugin function pointers live as long as their plugin.
    unsafe { &*f.cast::<PluginFunction>() }
}

fn str_or_empty<'a>(p: *const c_char) -> &'a str {
    plugin::cstr_opt(p).unwrap_or("")
}

pub unsafe extern "C" fn config_plugin(
    id: *const c_char,
    ns: *const c_char,
    name: *const c_char,
    version: c_int,
    api: c_int,
    flags: c_int,
    p: *mut VSPlugin,
) -> c_int {
    guard("configPlugin", || {
        let pl = plugin_ref("configPlugin", p);
        let id = lossy(req_str("configPlugin", "identifier", id));
        let ns = lossy(req_str("configPlugin", "namespace", ns));
        let name = lossy(req_str("configPlugin", "name", name));
        match pl.configure(&id, &ns, &name, version, api, flags) {
            Ok(()) => 1,
            Err(e) => {
                if let Some(c) = pl.core.upgrade() {
                    c.log_message(mtCritical, &format!("configPlugin ({}): {e}", pl.path.to_string_lossy()));
                }
                0
            }
        }
    })
}

pub unsafe extern "C" fn register_function(
    name: *const c_char,
    args: *const c_char,
    ret: *const c_char,
    func: Option<VSPublicFunction>,
    data: *mut c_void,
    p: *mut VSPlugin,
) -> c_int {
    guard("registerFunction", || {
        let pl = plugin_ref("registerFunction", p);
        let name = lossy(req_str("registerFunction", "name", name));
        let args = lossy(req_str("registerFunction", "args", args));
        let ret = if ret.is_null() { "any".to_string() } else { lossy(req_str("registerFunction", "returnType", ret)) };
        let Some(func) = func else {
            fatal(&format!("registerFunction: {name} has a NULL function pointer"));
        };
        match pl.register(&name, &args, &ret, FuncImpl::C { func, data }) {
            Ok(()) => 1,
            Err(e) => {
                if let Some(c) = pl.core.upgrade() {
                    c.log_message(mtCritical, &e);
                }
                0
            }
        }
    })
}

pub unsafe extern "C" fn get_plugin_by_id(id: *const c_char, c: *mut VSCore) -> *mut VSPlugin {
    guard("getPluginByID", || {
        let id = lossy(req_str("getPluginByID", "identifier", id));
        core("getPluginByID", c).plugin_by_id(&id).map_or(ptr::null_mut(), |p| Plugin::as_raw(&p))
    })
}

pub unsafe extern "C" fn get_plugin_by_namespace(ns: *const c_char, c: *mut VSCore) -> *mut VSPlugin {
    guard("getPluginByNamespace", || {
        let ns = lossy(req_str("getPluginByNamespace", "namespace", ns));
        core("getPluginByNamespace", c).plugin_by_ns(&ns).map_or(ptr::null_mut(), |p| Plugin::as_raw(&p))
    })
}

pub unsafe extern "C" fn get_next_plugin(p: *mut VSPlugin, c: *mut VSCore) -> *mut VSPlugin {
    guard("getNextPlugin", || {
        let plugins = core("getNextPlugin", c).plugins.read();
        let next = if p.is_null() {
            plugins.first()
        } else {
            let i = plugins.iter().position(|x| ptr::eq(Arc::as_ptr(x), p.cast::<Plugin>()));
            i.and_then(|i| plugins.get(i + 1))
        };
        next.map_or(ptr::null_mut(), Plugin::as_raw)
    })
}

pub unsafe extern "C" fn get_plugin_name(p: *mut VSPlugin) -> *const c_char {
    guard("getPluginName", || plugin_ref("getPluginName", p).config.get().map_or(ptr::null(), |c| c.name.as_ptr()))
}

pub unsafe extern "C" fn get_plugin_id(p: *mut VSPlugin) -> *const c_char {
    guard("getPluginID", || plugin_ref("getPluginID", p).config.get().map_or(ptr::null(), |c| c.id.as_ptr()))
}

pub unsafe extern "C" fn get_plugin_namespace(p: *mut VSPlugin) -> *const c_char {
    guard("getPluginNamespace", || plugin_ref("getPluginNamespace", p).config.get().map_or(ptr::null(), |c| c.ns.as_ptr()))
}

pub unsafe extern "C" fn get_next_plugin_function(f: *mut VSPluginFunction, p: *mut VSPlugin) -> *mut VSPluginFunction {
    guard("getNextPluginFunction", || {
        let fs = plugin_ref("getNextPluginFunction", p).functions.read();
        let next = if f.is_null() {
            fs.values().next()
        } else {
            let cur = func_ref("getNextPluginFunction", f);
            fs.range::<CStr, _>((std::ops::Bound::Excluded(cur.name.as_c_str()), std::ops::Bound::Unbounded)).next().map(|(_, v)| v)
        };
        next.map_or(ptr::null_mut(), |v| Arc::as_ptr(v) as *mut VSPluginFunction)
    })
}

pub unsafe extern "C" fn get_plugin_function_by_name(name: *const c_char, p: *mut VSPlugin) -> *mut VSPluginFunction {
    guard("getPluginFunctionByName", || {
        let name = lossy(req_str("getPluginFunctionByName", "name", name));
        plugin_ref("getPluginFunctionByName", p).function(&name).map_or(ptr::null_mut(), |f| Arc::as_ptr(&f) as *mut VSPluginFunction)
    })
}

pub unsafe extern "C" fn get_plugin_function_name(f: *mut VSPluginFunction) -> *const c_char {
    guard("getPluginFunctionName", || func_ref("getPluginFunctionName", f).name.as_ptr())
}

pub unsafe extern "C" fn get_plugin_function_arguments(f: *mut VSPluginFunction) -> *const c_char {
    guard("getPluginFunctionArguments", || func_ref("getPluginFunctionArguments", f).args.as_ptr())
}

pub unsafe extern "C" fn get_plugin_function_return_type(f: *mut VSPluginFunction) -> *const c_char {
    guard("getPluginFunctionReturnType", || func_ref("getPluginFunctionReturnType", f).ret.as_ptr())
}

pub unsafe extern "C" fn get_plugin_path(p: *const VSPlugin) -> *const c_char {
    guard("getPluginPath", || {
        let pl = plugin_ref("getPluginPath", p);
        if pl.path.is_empty() {
            ptr::null()
        } else {
            pl.path.as_ptr()
        }
    })
}

pub unsafe extern "C" fn get_plugin_version(p: *const VSPlugin) -> c_int {
    guard("getPluginVersion", || plugin_ref("getPluginVersion", p).config.get().map_or(0, |c| c.version))
}

pub unsafe extern "C" fn invoke(p: *mut VSPlugin, name: *const c_char, args: *const VSMap) -> *mut VSMap {
    guard("invoke", || {
        let pl = plugin_ref("invoke", p);
        let name = str_or_empty(name).to_string();
        let empty = Map::new();
        // SAFETY: a non-null args pointer is a live map.
        let args = if args.is_null() { &empty } else { unsafe { &*args.cast::<Map>() } };
        Box::into_raw(Box::new(plugin::invoke(pl, &name, args))).cast()
    })
}
