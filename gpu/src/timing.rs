//! GPU time of every submission, for profiling on a real device (VSVK_GPU_TIMES=1, read once): each
//! exec pool on a compute capable queue brackets its contexts' recordings with timestamps, and
//! the completed pairs are gathered process wide. The report, printed with the core's statistics,
//! gives per pool the submissions and their mean GPU time, per queue how much of the run it was
//! busy, and for the whole device how busy it was and how much its queues overlapped: whether a
//! chain waits on the GPU's work or on the gaps between it.
//!
//! Pools on the device's compute queue are timed always, cheaply (two timestamps a submission, one
//! query read when it completes), to feed `Load`: how busy that queue has been lately, which the
//! runtime's downloads consult to keep their copies off the compute family while it is busy.
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use ash::vk;
use parking_lot::Mutex;

use super::device::Device;

pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("VSVK_GPU_TIMES").is_some_and(|v| v != "0"))
}

/// VSVK_COMPUTE_TIMING=0 (measurements): the compute queue's pools go untimed unless
/// VSVK_GPU_TIMES asks, which leaves the busy share at zero (downloads then always spread).
pub fn compute_timing() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("VSVK_COMPUTE_TIMING").map_or(true, |v| v.trim() != "0"))
}

/// One completed submission: its pool, queue, and GPU start and end in nanoseconds.
struct Span {
    pool: u64,
    queue: (u32, u32),
    start: f64,
    end: f64,
}

static SPANS: Mutex<Vec<Span>> = Mutex::new(Vec::new());

/// A pool's timestamp queries: two per context.
pub struct Queries {
    pool: vk::QueryPool,
    period: f64,
}

impl Queries {
    /// Queries for `contexts` contexts on a queue of `family`, when timing is on or `always`, and
    /// the family can write timestamps and reset queries (compute capable).
    pub fn new(dev: &Device, family: u32, contexts: usize, always: bool) -> Option<Queries> {
        if !enabled() && !always {
            return None;
        }
        // SAFETY: a query on the device's physical device.
        let fams = unsafe { dev.instance.instance.get_physical_device_queue_family_properties(dev.pdev) };
        let f = fams.get(family as usize)?;
        if f.timestamp_valid_bits == 0 || !f.queue_flags.contains(vk::QueueFlags::COMPUTE) {
            return None;
        }
        let ci = vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(2 * contexts as u32);
        // SAFETY: a valid create info.
        let pool = unsafe { dev.device.create_query_pool(&ci, None) }.ok()?;
        Some(Queries { pool, period: dev.props.limits.timestamp_period as f64 })
    }

    /// At the start of context `i`'s recording. TOP_OF_PIPE, deprecated in synchronization2 but
    /// still a single stage, which a timestamp write needs (NONE names no stage).
    pub fn begin(&self, dev: &Device, cb: vk::CommandBuffer, i: usize) {
        // SAFETY: recording into a context the caller holds; the queries are this context's.
        unsafe {
            dev.device.cmd_reset_query_pool(cb, self.pool, 2 * i as u32, 2);
            dev.device.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::TOP_OF_PIPE, self.pool, 2 * i as u32);
        }
    }

    /// At the end of context `i`'s recording, before it is submitted.
    pub fn end(&self, dev: &Device, cb: vk::CommandBuffer, i: usize) {
        // SAFETY: as above.
        unsafe { dev.device.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, self.pool, 2 * i as u32 + 1) };
    }

    /// After context `i`'s submission completed: records its span, and feeds `load` (the compute
    /// queue's) when given.
    pub fn completed(&self, dev: &Device, pool: u64, queue: (u32, u32), i: usize, load: Option<&Load>) {
        let mut t = [0u64; 2];
        // SAFETY: both queries were written by a completed submission.
        let r = unsafe { dev.device.get_query_pool_results(self.pool, 2 * i as u32, &mut t, vk::QueryResultFlags::TYPE_64) };
        if r.is_ok() && t[1] >= t[0] {
            let (start, end) = (t[0] as f64 * self.period, t[1] as f64 * self.period);
            if let Some(l) = load {
                l.add(start, end);
            }
            if enabled() {
                SPANS.lock().push(Span { pool, queue, start, end });
            }
        }
    }

    pub fn destroy(&self, dev: &Device) {
        // SAFETY: every submission using the queries completed (the pool drained).
        unsafe { dev.device.destroy_query_pool(self.pool, None) };
    }
}

/// How busy a queue has been over its last window of GPU time: the share of each window (WINDOW
/// of GPU time or more, closed by the submission that passes it) its submissions ran. Spans on one
/// queue mostly follow each other, so the sum of their lengths stands for the union. Filters'
/// kernels run on two queues by default (device::kernel_queues_wanted), whose spans complete out of
/// order and overlap: a span that began before the window counts from the window's start, and
/// overlapping ones each count, capped at a share of 1, which errs toward busy.
pub struct Load {
    state: Mutex<LoadState>,
    /// The last closed window's busy share, in thousandths.
    permille: AtomicU32,
}

struct LoadState {
    start: f64,
    busy: f64,
    /// When the last window closed, on the host's clock.
    closed: Option<Instant>,
}

/// GPU time a window covers at least (ns).
const WINDOW: f64 = 20e6;
/// A share older than this (host time) no longer describes the queue: it has gone quiet.
const STALE_MS: u128 = 200;

impl Default for Load {
    fn default() -> Self {
        Load { state: Mutex::new(LoadState { start: f64::NAN, busy: 0.0, closed: None }), permille: AtomicU32::new(0) }
    }
}

impl Load {
    pub fn add(&self, start: f64, end: f64) {
        let mut st = self.state.lock();
        // (a span from before the last window's end by more than a window: the clock started over)
        if st.start.is_nan() || start < st.start - WINDOW {
            st.start = start;
            st.busy = 0.0;
        }
        st.busy += (end - start.max(st.start)).max(0.0);
        let len = end - st.start;
        if len >= WINDOW {
            self.permille.store((1000.0 * st.busy / len).min(1000.0) as u32, Ordering::Relaxed);
            st.start = end;
            st.busy = 0.0;
            st.closed = Some(Instant::now());
        }
    }

    /// The busy share of the last window, 0 to 1; 0 when it is older than STALE_MS.
    pub fn share(&self) -> f64 {
        let fresh = self.state.lock().closed.is_some_and(|t| t.elapsed().as_millis() < STALE_MS);
        if fresh {
            self.permille.load(Ordering::Relaxed) as f64 / 1000.0
        } else {
            0.0
        }
    }
}

/// Total length of the union of `spans` (sorted by start).
fn busy(spans: &[(f64, f64)]) -> f64 {
    let mut total = 0.0;
    let mut cur: Option<(f64, f64)> = None;
    for &(s, e) in spans {
        match cur {
            Some((cs, ce)) if s <= ce => cur = Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                total += ce - cs;
                cur = Some((s, e));
            }
            None => cur = Some((s, e)),
        }
    }
    total + cur.map_or(0.0, |(s, e)| e - s)
}

/// The report so far; empty when nothing was timed.
pub fn report() -> String {
    let spans = SPANS.lock();
    if spans.is_empty() {
        return String::new();
    }
    let first = spans.iter().map(|s| s.start).fold(f64::INFINITY, f64::min);
    let last = spans.iter().map(|s| s.end).fold(0.0, f64::max);
    let span = (last - first).max(1.0);
    let mut out = format!("vsvk gpu times: {} submissions over {:.1} ms of GPU time line\n", spans.len(), span / 1e6);
    let mut pools: Vec<(u64, (u32, u32))> = spans.iter().map(|s| (s.pool, s.queue)).collect();
    pools.sort();
    pools.dedup();
    for (p, q) in pools {
        let d: Vec<f64> = spans.iter().filter(|s| s.pool == p).map(|s| s.end - s.start).collect();
        let sum: f64 = d.iter().sum();
        out += &format!(
            "vsvk gpu times: pool {p} on queue {}.{}: {} submissions, mean {:.1} us, total {:.1} ms\n",
            q.0,
            q.1,
            d.len(),
            sum / d.len() as f64 / 1e3,
            sum / 1e6
        );
    }
    let mut queues: Vec<(u32, u32)> = spans.iter().map(|s| s.queue).collect();
    queues.sort();
    queues.dedup();
    for q in queues {
        let mut v: Vec<(f64, f64)> = spans.iter().filter(|s| s.queue == q).map(|s| (s.start, s.end)).collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        out += &format!("vsvk gpu times: queue {}.{} busy {:.1}% of the time line\n", q.0, q.1, 100.0 * busy(&v) / span);
    }
    let mut all: Vec<(f64, f64)> = spans.iter().map(|s| (s.start, s.end)).collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let union = busy(&all);
    let sum: f64 = all.iter().map(|(s, e)| e - s).sum();
    out += &format!(
        "vsvk gpu times: some queue busy {:.1}% of the time line; {:.2} submissions running at once on average while busy\n",
        100.0 * union / span,
        sum / union.max(1.0)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::{busy, Load};

    #[test]
    fn load_is_the_busy_share_of_each_window() {
        let l = Load::default();
        assert_eq!(l.share(), 0.0);
        // 5 ms of work in each 10 ms: the first window closes at 25 ms (at least 20 ms long)
        for k in 0..3 {
            let t = k as f64 * 10e6;
            l.add(t, t + 5e6);
        }
        assert!((l.share() - 0.6).abs() < 1e-9, "{}", l.share()); // 15 ms busy over 25
        // the next from 25 ms: half busy to 45, then one span busy throughout to 65
        l.add(30e6, 35e6);
        l.add(40e6, 45e6);
        assert!((l.share() - 0.5).abs() < 1e-9, "{}", l.share());
        l.add(45e6, 65e6);
        assert!((l.share() - 1.0).abs() < 1e-9, "{}", l.share());
    }

    #[test]
    fn spans_of_two_queues_count_from_the_window_start_and_cap_at_busy() {
        let l = Load::default();
        // two queues at once: 5 + 10 ms on one, 18 ms on the other, over 24 ms
        l.add(0.0, 5e6);
        l.add(8e6, 18e6);
        l.add(6e6, 24e6);
        assert!((l.share() - 1.0).abs() < 1e-9, "{}", l.share()); // 33 ms counted, capped
        // the next window starts at 24 ms: a span from 20 ms counts its 6 ms after 24
        l.add(20e6, 30e6);
        l.add(34e6, 44e6);
        assert!((l.share() - 0.8).abs() < 1e-9, "{}", l.share()); // 16 ms busy over 20
        // a clock that started over begins a new window
        l.add(0.0, 25e6);
        assert!((l.share() - 1.0).abs() < 1e-9, "{}", l.share());
    }

    #[test]
    fn busy_is_the_union() {
        assert_eq!(busy(&[(0.0, 2.0), (1.0, 3.0), (5.0, 6.0)]), 4.0);
        assert_eq!(busy(&[(0.0, 10.0), (1.0, 2.0), (3.0, 4.0)]), 10.0);
        assert_eq!(busy(&[]), 0.0);
    }
}
