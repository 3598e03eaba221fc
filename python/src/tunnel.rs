//! Exceptions that are not errors (KeyboardInterrupt, SystemExit and other BaseExceptions that
//! are not Exceptions) raised in a Python callback on a core thread reach the caller that waits
//! for the frame as themselves, as R81 has them: the callback's error text carries a mark, and the
//! waiting side raises the exception the mark names instead of vsvk.Error.
//!
//! Marks whose error never reaches Python (a filter that swallowed it) would keep their
//! exceptions alive, so only the latest few are kept.
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

const KEPT: usize = 64;
const MARK: &str = "[vsvk: exception ";

static NEXT: AtomicU64 = AtomicU64::new(1);
static STASH: Mutex<VecDeque<(u64, Py<PyAny>)>> = Mutex::new(VecDeque::new());
/// For an exception that must reach the caller as itself, the mark to put in the error text.
pub fn stash(py: Python<'_>, e: &PyErr) -> Option<String> {
    if e.is_instance_of::<PyException>(py) {
        return None;
    }
    let value = e.value(py).clone().into_any();
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut s = STASH.lock();
    if s.len() >= KEPT {
        s.pop_front();
    }
    s.push_back((id, value.unbind()));
    Some(format!("{MARK}{id}]"))
}

/// The exception to raise for a frame request's error text: the marked exception when the text
/// carries a mark still kept, vsvk.Error otherwise.
pub fn error_from(py: Python<'_>, text: &str) -> PyErr {
    let id = text.find(MARK).and_then(|i| {
        let rest = &text[i + MARK.len()..];
        rest[..rest.find(']')?].parse::<u64>().ok()
    });
    if let Some(id) = id {
        let mut s = STASH.lock();
        if let Some(pos) = s.iter().position(|(k, _)| *k == id) {
            let (_, exc) = s.remove(pos).expect("the position was found");
            // the same exception raised again for other requests (a callback called once per
            // frame asked for) is raised here once: its other marks go too
            let ptr = exc.as_ptr();
            let others: Vec<Py<PyAny>> = s.iter().filter(|(_, e)| e.as_ptr() == ptr).map(|(_, e)| e.clone_ref(py)).collect();
            s.retain(|(_, e)| e.as_ptr() != ptr);
            drop(s);
            drop(others);
            return PyErr::from_value(exc.into_bound(py));
        }
    }
    crate::err(text.to_string())
}
