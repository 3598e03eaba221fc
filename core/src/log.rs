//! Log handlers. Messages are dispatched one at a time, in order, by whichever thread finds the
//! dispatcher free; handlers may log and add or remove handlers (themselves included) meanwhile.
//!
//! While no handler is installed messages are kept (up to a budget) for the next handler added, as
//! the API documents and R81 does: a host adds its handler after creating the core, and what the
//! core said meanwhile (autoloading plugins) reaches it then. Nothing goes to stderr but a fatal
//! error, just before the process aborts.
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

/// What the messages kept for a handler may take: each counts its length and a fixed overhead, so
/// that it holds several hundred of the usual ones.
const KEPT_BUDGET: usize = 64 << 10;
const KEPT_OVERHEAD: usize = 64;

#[derive(Default)]
struct State {
    handlers: Vec<Arc<Handler>>,
    queue: VecDeque<(i32, CString)>,
    dispatcher: Option<ThreadId>,
    /// The handler being called right now, so removal can wait for it.
    calling: Option<u64>,
    /// Messages logged while no handler was installed, their cost, and how many did not fit.
    kept: VecDeque<(i32, CString)>,
    kept_bytes: usize,
    discarded: u64,
}

#[derive(Default)]
pub struct Log {
    state: Mutex<State>,
    idle: Condvar,
    next_id: AtomicU64,
}

impl Log {
    /// Installs a handler; the messages kept while there was none are delivered to it first.
    pub fn add(&self, imp: HandlerImpl) -> Arc<Handler> {
        let h = Arc::new(Handler { id: self.next_id.fetch_add(1, Ordering::Relaxed) + 1, imp, removed: AtomicBool::new(false) });
        let mut s = self.state.lock();
        s.handlers.push(h.clone());
        let mut kept = std::mem::take(&mut s.kept);
        s.kept_bytes = 0;
        if s.discarded > 0 {
            let note = format!("{} log message(s) were discarded before they could be delivered", std::mem::take(&mut s.discarded));
            kept.push_back((mtWarning, CString::new(note).expect("no NULs")));
        }
        if !kept.is_empty() {
            // ahead of anything logged since: these came first
            kept.extend(s.queue.drain(..));
            s.queue = kept;
            self.dispatch(s);
        }
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
        let mut s = self.state.lock();
        if s.handlers.is_empty() {
            if level != mtFatal {
                let cost = text.as_bytes().len() + KEPT_OVERHEAD;
                if s.kept_bytes + cost <= KEPT_BUDGET {
                    s.kept_bytes += cost;
                    s.kept.push_back((level, text));
                } else {
                    s.discarded += 1;
                }
            }
        } else {
            s.queue.push_back((level, text));
            self.dispatch(s);
        }
        if level == mtFatal {
            eprintln!("vsvk: fatal error: {msg}");
            std::process::abort();
        }
    }

    /// Delivers the queued messages unless another thread (or an outer call on this one) does.
    fn dispatch<'a>(&'a self, mut s: parking_lot::MutexGuard<'a, State>) {
        if s.dispatcher.is_some() {
            return;
        }
        s.dispatcher = Some(thread::current().id());
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
