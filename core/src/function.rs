//! VSFunction: a callable stored in maps (callbacks from scripts and filters like FrameEval).
use std::ffi::c_void;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use crate::core::Core;
use crate::map::Map;

pub type RustFunction = Box<dyn Fn(&Map, &mut Map) + Send + Sync>;

pub enum FunctionImpl {
    C { func: VSPublicFunction, data: *mut c_void, free: VSFreeFunctionData },
    Rust(RustFunction),
}

pub struct Function {
    pub imp: FunctionImpl,
    pub core: Arc<Core>,
}

// SAFETY: a VSFunction may be called from any thread by the API's contract; its data is the
// creator's responsibility.
unsafe impl Send for Function {}
unsafe impl Sync for Function {}

impl Function {
    pub fn call(&self, input: &Map, out: &mut Map) {
        match &self.imp {
            FunctionImpl::C { func, data, .. } => {
                // SAFETY: the creator's function and data; the maps live across the call.
                unsafe {
                    func(
                        (input as *const Map).cast(),
                        (out as *mut Map).cast(),
                        *data,
                        Core::as_raw(&self.core),
                        self.core.wiring.vsapi,
                    )
                }
            }
            FunctionImpl::Rust(f) => f(input, out),
        }
    }
    pub fn into_raw(f: Arc<Function>) -> *mut VSFunction {
        Arc::into_raw(f) as *mut VSFunction
    }
    /// # Safety
    /// `p` came from `into_raw` and still holds a reference.
    pub unsafe fn borrow_raw<'a>(p: *mut VSFunction) -> &'a Function {
        &*p.cast::<Function>()
    }
    /// # Safety
    /// As for `borrow_raw`.
    pub unsafe fn clone_raw(p: *mut VSFunction) -> Arc<Function> {
        Arc::increment_strong_count(p.cast::<Function>());
        Arc::from_raw(p.cast::<Function>())
    }
    /// # Safety
    /// As for `borrow_raw`; consumes the raw reference.
    pub unsafe fn from_raw(p: *mut VSFunction) -> Arc<Function> {
        Arc::from_raw(p.cast::<Function>())
    }
}

impl Drop for Function {
    fn drop(&mut self) {
        if let FunctionImpl::C { free: Some(free), data, .. } = self.imp {
            // SAFETY: called once with the data the function was created with.
            unsafe { free(data) };
        }
    }
}
