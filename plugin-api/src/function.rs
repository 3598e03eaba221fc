//! Function references: script functions handed in as arguments (called with a map of
//! arguments, giving a map of results), and Rust closures made into functions the core can hold.
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::abi::*;
use crate::api::{self, api, Core};
use crate::error::Result;
use crate::values::{MapRead, MapWrite, OwnedMap};

/// One reference to a function, released on drop.
pub struct Function(*mut VSFunction);

// SAFETY: function references may be used and released from any thread (API contract).
unsafe impl Send for Function {}
unsafe impl Sync for Function {}

impl Function {
    /// # Safety
    /// `p` is a function reference the caller owns and gives up.
    pub unsafe fn from_raw(p: *mut VSFunction) -> Function {
        Function(p)
    }
    pub fn as_ptr(&self) -> *mut VSFunction {
        self.0
    }
    pub fn into_raw(self) -> *mut VSFunction {
        let p = self.0;
        std::mem::forget(self);
        p
    }

    /// Calls the function; its error, if it sets one, comes back as [`Error::Invalid`] with the
    /// function's own message.
    pub fn call(&self, args: &OwnedMap) -> Result<OwnedMap> {
        let mut out = OwnedMap::new();
        // SAFETY: our reference and two valid maps.
        unsafe { (api().callFunction)(self.0, args.as_ptr(), out.as_mut_ptr()) };
        out.ok()
    }

    /// Calls it with `x` (and `y`) as ints and returns what it put under `val`: an int, a float,
    /// or its error.
    pub fn call_xy(&self, x: i64, y: Option<i64>) -> Result<Value, String> {
        let mut inp = OwnedMap::new();
        let set = |m: &mut OwnedMap, k: &str, v: i64| m.put_int(k, v, false).map_err(|e| e.to_string());
        set(&mut inp, "x", x)?;
        if let Some(y) = y {
            set(&mut inp, "y", y)?;
        }
        let out = self.call(&inp).map_err(|e| e.to_string())?;
        Ok(match out.value_type("val") {
            t if t == ptInt => Value::Int(out.get_int("val", 0).map_err(|e| e.to_string())?),
            t if t == ptFloat => Value::Float(out.get_float("val", 0).map_err(|e| e.to_string())?),
            _ => Value::None,
        })
    }

    /// A function the core can hold and call (`createFunction`) running `f`: it reads its
    /// arguments and writes its results; an error becomes the result map's error.
    pub fn new<F>(core: Core, f: F) -> Function
    where
        F: Fn(&crate::map::Args, &mut crate::map::Out, Core) -> Result<()> + Send + Sync + 'static,
    {
        type Boxed = Box<dyn Fn(&crate::map::Args, &mut crate::map::Out, Core) -> Result<()> + Send + Sync>;
        unsafe extern "C" fn call(inp: *const VSMap, out: *mut VSMap, data: *mut c_void, core: *mut VSCore, vsapi: *const VSAPI) {
            api::set(vsapi);
            // SAFETY: `data` is the box made below, alive until `free`; the maps are the call's.
            let (f, args, mut out) = unsafe { (&*(data as *const Boxed), crate::map::Args::from_raw(inp), crate::map::Out::from_raw(out)) };
            match catch_unwind(AssertUnwindSafe(|| f(&args, &mut out, Core(core)))) {
                Ok(Ok(())) => {}
                Ok(Err(e)) => out.set_error(&e.to_string()),
                Err(p) => out.set_error(&format!("internal error: {}", crate::plugin::panic_text(&*p))),
            }
        }
        unsafe extern "C" fn free(data: *mut c_void) {
            // SAFETY: the core frees the data exactly once.
            drop(unsafe { Box::from_raw(data as *mut Boxed) });
        }
        let data: Box<Boxed> = Box::new(Box::new(f));
        // SAFETY: the callbacks match the data, which the core owns from here.
        Function(unsafe { (api().createFunction)(Some(call), Box::into_raw(data).cast(), Some(free), core.as_ptr()) })
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    None,
}

impl Clone for Function {
    fn clone(&self) -> Function {
        // SAFETY: we hold a reference, so adding one is valid.
        Function(unsafe { (api().addFunctionRef)(self.0) })
    }
}

impl Drop for Function {
    fn drop(&mut self) {
        // SAFETY: we own this reference.
        unsafe { (api().freeFunction)(self.0) }
    }
}
