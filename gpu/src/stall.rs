//! Host waits that outlast the stall threshold: what the device's exec pools hold, so that a stuck
//! pipeline says which submission it waits on and what that submission waits for. Every GPU
//! submission of the core passes through an exec pool, so their state is the whole picture: per
//! queue, the unfinished submissions in the order the queue received them, each with the producer
//! values it waits for and where each of those counters stands. The first of them on a queue is
//! what holds that queue up.
//!
//! The threshold is VSVK_GPU_STALL_SECONDS (default 30; 0 turns the report off). A wait goes on
//! after its report: a long GPU job is not an error, only worth a word.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use ash::vk;

use super::device::Device;
use super::exec::Timeline;

/// Where a stall report goes: the runtime logs it to the cores the device serves. Without one,
/// stderr.
pub type Reporter = fn(&Device, &str);

static REPORTER: OnceLock<Reporter> = OnceLock::new();

/// Sets where stall reports go, once per process (later calls change nothing).
pub fn set_reporter(f: Reporter) {
    let _ = REPORTER.set(f);
}

/// How long a host wait runs before it is reported; None when reports are off.
pub fn threshold() -> Option<Duration> {
    static T: OnceLock<Option<Duration>> = OnceLock::new();
    *T.get_or_init(|| {
        let s = std::env::var("VSVK_GPU_STALL_SECONDS").ok().and_then(|v| v.trim().parse::<f64>().ok()).unwrap_or(30.0);
        (s > 0.0 && s.is_finite()).then(|| Duration::from_secs_f64(s))
    })
}

/// One unfinished submission as the report lists it; the timelines are held so that they outlive
/// the report even where the submission completes meanwhile.
pub struct Pending {
    pub value: u64,
    /// Its place in its queue's order of submissions.
    pub seq: u64,
    pub waits: Vec<(Arc<Timeline>, u64)>,
}

/// One exec pool as the report lists it.
pub struct PoolView {
    pub id: u64,
    pub queue: (u32, u32),
    pub timeline: Arc<Timeline>,
    pub submitted: u64,
    /// The counter now; None when it cannot be read.
    pub reached: Option<u64>,
    pub recording: usize,
    pub pending: Vec<Pending>,
}

/// When the last full report went out (ms since the first), so that many threads stuck on one
/// stall give one report per threshold, each with a line of its own.
static LAST_FULL: AtomicU64 = AtomicU64::new(u64::MAX);

fn since_start() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_millis() as u64
}

/// Called by a host wait each time it passes the threshold again: `sem` at `value` is what this
/// thread waits for, `waited` how long so far.
pub fn report(dev: &Device, sem: vk::Semaphore, value: u64, waited: Duration, pools: &[PoolView]) {
    let name = |s: vk::Semaphore| -> String {
        match pools.iter().find(|p| p.timeline.sem == s) {
            Some(p) => format!("pool {}", p.id),
            None => format!("timeline {:#x} (no exec pool's)", ash::vk::Handle::as_raw(s)),
        }
    };
    let counter = |s: vk::Semaphore| -> String {
        // SAFETY: the semaphore waited on (its waiter holds it) or one of the timelines the views
        // hold.
        match unsafe { dev.device.get_semaphore_counter_value(s) } {
            Ok(c) => c.to_string(),
            Err(r) => format!("unreadable ({})", r.as_raw()),
        }
    };
    let thread = std::thread::current();
    let mut msg = format!(
        "GPU stall: thread {} has waited {:.1} s for value {} of {} (at {}){}",
        thread.name().unwrap_or("unnamed"),
        waited.as_secs_f64(),
        value,
        name(sem),
        counter(sem),
        if dev.is_lost() { "; the device is lost" } else { "" }
    );
    let now = since_start();
    let last = LAST_FULL.load(Ordering::Relaxed);
    let period = threshold().map_or(30_000, |t| t.as_millis() as u64);
    if (last == u64::MAX || now.saturating_sub(last) >= period) && LAST_FULL.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
        msg.push_str(&full(pools, &name, &counter));
    }
    match REPORTER.get() {
        Some(f) => f(dev, &msg),
        None => eprintln!("vsvk: {msg}"),
    }
}

/// Every queue's unfinished submissions in the queue's order, then every pool.
fn full(pools: &[PoolView], name: &dyn Fn(vk::Semaphore) -> String, counter: &dyn Fn(vk::Semaphore) -> String) -> String {
    let mut out = String::from("\nUnfinished submissions by queue (family.index), oldest first:");
    let mut queues: Vec<(u32, u32)> = pools.iter().map(|p| p.queue).collect();
    queues.sort();
    queues.dedup();
    for q in queues {
        let mut subs: Vec<(&PoolView, &Pending)> =
            pools.iter().filter(|p| p.queue == q).flat_map(|p| p.pending.iter().filter(|s| p.reached.is_none_or(|r| s.value > r)).map(move |s| (p, s))).collect();
        subs.sort_by_key(|(_, s)| s.seq);
        out.push_str(&format!("\n  queue {}.{}: {} unfinished", q.0, q.1, subs.len()));
        for (p, s) in subs.iter().take(8) {
            let waits: Vec<String> = s.waits.iter().map(|(t, v)| format!("{} >= {} (at {})", name(t.sem), v, counter(t.sem))).collect();
            out.push_str(&format!(
                "\n    #{} pool {} value {}{}",
                s.seq,
                p.id,
                s.value,
                if waits.is_empty() { String::new() } else { format!(", waits {}", waits.join(", ")) }
            ));
        }
    }
    out.push_str("\nExec pools:");
    for p in pools {
        out.push_str(&format!(
            "\n  pool {} on queue {}.{}: submitted {}, counter {}, {} context(s) recording, {} submission(s) held",
            p.id,
            p.queue.0,
            p.queue.1,
            p.submitted,
            p.reached.map_or("unreadable".into(), |r| r.to_string()),
            p.recording,
            p.pending.len()
        ));
    }
    out
}
