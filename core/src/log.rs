//! Log handlers. Messages are dispatched one at a time, in order, by whichever thread finds the
//! dispatcher free; handlers may log and add or remove handlers (themselves included) meanwhile.
use std::collections::VecDeque;
use std::ffi::{c_void, CStr, CString};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::{self, ThreadId};

use parking_lot::{Condvar, Mutex};
use vsvk_plugin_api::abi::*;

pub type RustHandler = Box<dyn Fn(i32, &str) + Send + Sync>;

pub enum HandlerImpl {
    C { handler: unsafe extern "C" fn(i32, *const std::ffi::c_char, *mut c_void), free: VSLogHandlerFree, data: *mut c_void },
    Rust(RustHandler),
}

pub struct Handler {
    pub id: u64,
    imp: HandlerImpl,
    removed: AtomicBool,
}

// SAFETY: handlers are documented to be callable from any thread; their data is the owner's.
unsafe impl Send for Handler {}
unsafe impl Sync for Handler {}

impl Handler {
    fn call(&self, level: i32, msg: &CStr) {
        match &self.imp {
            // SAFETY: the registrant's handler with its own data and a NUL-terminated message.
            HandlerImpl::C { handler, data, .. } => unsafe { handler(level, msg.as_ptr(), *data) },
            HandlerImpl::Rust(f) => f(level, &msg.to_string_lossy()),
        }
    }
    fn free(&self) {
        if let HandlerImpl::C { free: Some(free), data, .. } = self.imp {
            // SAFETY: called once, after the last call of the handler.
            unsafe { free(data) };
        }
    }
}

#[derive(Default)]
struct State {
    handlers: Vec<Arc<Handler>>,
    queue: VecDeque<(i32, CString)>,
    dispatcher: Option<ThreadId>,
    /// The handler being called right now, so removal can wait for it.
    calling: Option<u64>,
}

#[derive(Default)]
pub struct Log {
    state: Mutex<State>,
    idle: Condvar,
    next_id: AtomicU64,
}

impl Log {
    pub fn add(&self, imp: HandlerImpl) -> Arc<Handler> {
        let h = Arc::new(Handler { id: self.next_id.fetch_add(1, Ordering::Relaxed) + 1, imp, removed: AtomicBool::new(false) });
        self.state.lock().handlers.push(h.clone());
        h
    }

    /// Removes a handler; returns false when it is not (or no longer) registered.
    pub fn remove(&self, id: u64) -> bool {
        let me = thread::current().id();
        let h = {
            let mut s = self.state.lock();
            let Some(i) = s.handlers.iter().position(|h| h.id == id) else { return false };
            let h = s.handlers.remove(i);
            h.removed.store(true, Ordering::Release);
            // A running call of this handler on another thread must return before its free runs.
            while s.calling == Some(id) && s.dispatcher != Some(me) {
                self.idle.wait(&mut s);
            }
            h
        };
        h.free();
        true
    }

    pub fn has_handlers(&self) -> bool {
        !self.state.lock().handlers.is_empty()
    }

    pub fn message(&self, level: i32, msg: &str) {
        let text = CString::new(msg.replace('\0', " ")).expect("NULs replaced");
        let me = thread::current().id();
        let mut s = self.state.lock();
        if s.handlers.is_empty() {
            drop(s);
            if level >= mtWarning {
                eprintln!("{}: {}", level_name(level), msg);
            }
        } else {
            s.queue.push_back((level, text));
            if s.dispatcher.is_none() {
                s.dispatcher = Some(me);
                while let Some((lvl, m)) = s.queue.pop_front() {
                    let hs = s.handlers.clone();
                    for h in hs {
                        if h.removed.load(Ordering::Acquire) {
                            continue;
                        }
                        s.calling = Some(h.id);
                        drop(s);
                        h.call(lvl, &m);
                        s = self.state.lock();
                        s.calling = None;
                        self.idle.notify_all();
                    }
                }
                s.dispatcher = None;
            }
            drop(s);
        }
        if level == mtFatal {
            eprintln!("vsvk: fatal error: {msg}");
            std::process::abort();
        }
    }

    /// Frees every remaining handler; used when the core goes away.
    pub fn clear(&self) {
        let hs = std::mem::take(&mut self.state.lock().handlers);
        for h in hs {
            h.free();
        }
    }
}

pub fn level_name(level: i32) -> &'static str {
    match level {
        mtDebug => "Debug",
        mtInformation => "Information",
        mtWarning => "Warning",
        mtCritical => "Critical",
        _ => "Fatal",
    }
}
