//! Admission control for getFrameAsync: while the core's GPU device is over its VRAM limit, new
//! external requests wait until earlier ones finish instead of starting at once. Every request in
//! flight holds its chain's intermediate GPU frames; under a tight limit, starting more of them
//! only makes the caches give up the frames a temporal filter will ask for again, and the core
//! then computes each of those several times (4 x KNLMeans d=1 under a 256 MB limit ran at half
//! R81's speed that way). Holding requests back keeps the working set near the limit, so the
//! caches keep their frames.
//!
//! Requests made on a worker thread (a filter fetching a frame while producing another) are never
//! held: the request waiting on them would then wait forever.
use std::collections::VecDeque;
use std::sync::OnceLock;

use parking_lot::Mutex;

/// A held request's start.
pub type Start = Box<dyn FnOnce() + Send>;

#[derive(Default)]
pub struct Admission {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    running: usize,
    held: VecDeque<Start>,
}

/// How many external requests run under pressure before new ones are held:
/// VSVK_ADMIT_UNDER_PRESSURE (0 turns admission control off), default 4.
fn floor() -> usize {
    static N: OnceLock<usize> = OnceLock::new();
    *N.get_or_init(|| std::env::var("VSVK_ADMIT_UNDER_PRESSURE").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(4))
}

impl Admission {
    /// Starts a request now (returns it to be run) or holds it. `pressed` says whether the core is
    /// over its VRAM limit; `worker` whether the caller is one of the core's workers.
    pub fn admit(&self, pressed: bool, worker: bool, start: Start) -> Option<Start> {
        let mut st = self.state.lock();
        let hold = floor() > 0 && !worker && pressed && (st.running >= floor() || !st.held.is_empty());
        if hold {
            st.held.push_back(start);
            return None;
        }
        st.running += 1;
        Some(start)
    }

    /// An admitted request finished: the held ones that may start now (all of them once the
    /// pressure is gone, else enough to keep the floor running).
    pub fn finished(&self, pressed: bool) -> Vec<Start> {
        let mut st = self.state.lock();
        st.running = st.running.saturating_sub(1);
        let room = if pressed { floor().saturating_sub(st.running) } else { st.held.len() };
        let n = room.min(st.held.len());
        st.running += n;
        st.held.drain(..n).collect()
    }

    /// Requests held now.
    pub fn held(&self) -> usize {
        self.state.lock().held.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn counter(c: &Arc<AtomicUsize>) -> Start {
        let c = c.clone();
        Box::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
        })
    }

    #[test]
    fn under_pressure_requests_past_the_floor_wait_for_earlier_ones() {
        let a = Admission::default();
        let ran = Arc::new(AtomicUsize::new(0));
        let run = |s: Option<Start>| {
            if let Some(s) = s {
                s()
            }
        };
        for _ in 0..floor() {
            run(a.admit(true, false, counter(&ran)));
        }
        assert_eq!(ran.load(Ordering::SeqCst), floor());
        run(a.admit(true, false, counter(&ran)));
        run(a.admit(true, false, counter(&ran)));
        assert_eq!(ran.load(Ordering::SeqCst), floor(), "past the floor, requests are held");
        assert_eq!(a.held(), 2);
        // A worker's request is never held (the request it serves would wait on it forever).
        run(a.admit(true, true, counter(&ran)));
        assert_eq!(ran.load(Ordering::SeqCst), floor() + 1);
        // Still pressed: one finishing lets one start.
        let next = a.finished(true);
        assert_eq!(next.len(), 0, "the worker's request took the room");
        let next = a.finished(true);
        assert_eq!(next.len(), 1);
        next.into_iter().for_each(|s| s());
        // Pressure gone: everything held starts.
        let next = a.finished(false);
        assert_eq!(next.len(), 1);
        next.into_iter().for_each(|s| s());
        assert_eq!(ran.load(Ordering::SeqCst), floor() + 3);
        assert_eq!(a.held(), 0);
    }

    #[test]
    fn without_pressure_nothing_is_held() {
        let a = Admission::default();
        for _ in 0..100 {
            assert!(a.admit(false, false, Box::new(|| {})).is_some());
        }
        assert_eq!(a.held(), 0);
    }
}
