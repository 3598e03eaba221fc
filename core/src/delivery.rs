//! Completion callbacks of a core's external frame requests, run one at a time.
//!
//! The API promises that getFrameAsync callbacks never overlap, and hosts such as vspipe rely on it
//! without a lock of their own. A worker that finishes a frame must not wait for another callback to
//! return, though, or the filters would be serialised behind the host: so a finished frame's callback
//! joins a queue, and the thread that finds no callback running runs the queue until it is empty
//! while the others go back to work. A callback that asks for a cached frame finds its own thread
//! running the queue, so the answer waits its turn instead of nesting inside the callback.
use std::collections::VecDeque;

use parking_lot::Mutex;

pub type Callback = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct State {
    queue: VecDeque<Callback>,
    /// A thread is running the queue; it will see whatever is pushed before it lets go.
    running: bool,
}

#[derive(Default)]
pub struct OneAtATime {
    state: Mutex<State>,
}

impl OneAtATime {
    /// Runs `cb` after every callback given before it and never beside another: here and now when
    /// none runs (then also those that arrive meanwhile), otherwise on the thread running them.
    pub fn run(&self, cb: Callback) {
        let mut s = self.state.lock();
        s.queue.push_back(cb);
        if s.running {
            return;
        }
        s.running = true;
        // Taking the next callback and letting go of `running` happen under the same lock as a push,
        // so a callback pushed while the last one runs is never left without a runner.
        while let Some(cb) = s.queue.pop_front() {
            drop(s);
            // A panicking callback must not leave `running` set: every later one would wait forever.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(cb));
            s = self.state.lock();
        }
        s.running = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::thread;
    use std::time::Duration;

    #[test]
    fn callbacks_from_many_threads_never_overlap_and_all_run() {
        let q = Arc::new(OneAtATime::default());
        let inside = Arc::new(AtomicUsize::new(0));
        let overlaps = Arc::new(AtomicUsize::new(0));
        let ran = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (q, inside, overlaps, ran) = (q.clone(), inside.clone(), overlaps.clone(), ran.clone());
                thread::spawn(move || {
                    for _ in 0..50 {
                        let (inside, overlaps, ran) = (inside.clone(), overlaps.clone(), ran.clone());
                        q.run(Box::new(move || {
                            if inside.fetch_add(1, Ordering::SeqCst) != 0 {
                                overlaps.fetch_add(1, Ordering::SeqCst);
                            }
                            thread::sleep(Duration::from_micros(50));
                            ran.fetch_add(1, Ordering::SeqCst);
                            inside.fetch_sub(1, Ordering::SeqCst);
                        }));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        // every push returns only once its callback ran or another thread was running the queue;
        // when all threads are done the last runner has emptied it
        assert_eq!(ran.load(Ordering::SeqCst), 400);
        assert_eq!(overlaps.load(Ordering::SeqCst), 0);
    }

    /// A callback that gives another (as one asking for a cached frame does) does not nest: the new
    /// one runs after it returns, on the same thread, and a chain of them takes no stack.
    #[test]
    fn a_callback_given_from_a_callback_runs_after_it() {
        fn chain(q: Arc<OneAtATime>, left: usize, depth: Arc<AtomicUsize>, deepest: Arc<AtomicUsize>) {
            let q2 = q.clone();
            q.run(Box::new(move || {
                let d = depth.fetch_add(1, Ordering::SeqCst) + 1;
                deepest.fetch_max(d, Ordering::SeqCst);
                if left > 0 {
                    chain(q2, left - 1, depth.clone(), deepest.clone());
                }
                depth.fetch_sub(1, Ordering::SeqCst);
            }));
        }
        let q = Arc::new(OneAtATime::default());
        let deepest = Arc::new(AtomicUsize::new(0));
        chain(q, 100_000, Arc::new(AtomicUsize::new(0)), deepest.clone());
        assert_eq!(deepest.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_panicking_callback_does_not_stop_the_queue() {
        let q = OneAtATime::default();
        q.run(Box::new(|| panic!("on purpose")));
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        q.run(Box::new(move || {
            r.fetch_add(1, Ordering::SeqCst);
        }));
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    }
}
