//! Python callbacks the core's threads make (filters' Python functions, frame callbacks, log
//! handlers) and the interpreter's exit. A thread that takes the interpreter while it finalizes
//! is ended by it (pthread_exit), which aborts the process when Rust frames are on its stack. So
//! at exit (an atexit hook, before finalization) no new callback may start, and those under way
//! are waited for; after it, callbacks are refused (the frame gets an error).
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

static CLOSING: AtomicBool = AtomicBool::new(false);
static INSIDE: AtomicUsize = AtomicUsize::new(0);

/// Runs `f` with the interpreter; None once the interpreter is closing or gone.
pub fn with_python<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    INSIDE.fetch_add(1, Ordering::SeqCst);
    let r = if CLOSING.load(Ordering::SeqCst) { None } else { Python::try_attach(f) };
    INSIDE.fetch_sub(1, Ordering::SeqCst);
    r
}

/// The atexit hook: refuses new callbacks and lets those under way end (a callback that never
/// ends is given up on after a while: the exit must not hang).
#[pyfunction]
fn _at_exit(py: Python<'_>) {
    CLOSING.store(true, Ordering::SeqCst);
    py.detach(|| {
        let until = Instant::now() + Duration::from_secs(5);
        while INSIDE.load(Ordering::SeqCst) > 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_at_exit, m)?)?;
    m.py().import("atexit")?.call_method1("register", (m.getattr("_at_exit")?,))?;
    Ok(())
}
