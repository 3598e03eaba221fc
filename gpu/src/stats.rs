//! Where a GPU chain's time goes inside the core, for profiling on a real device: counts and total
//! time of the host-side steps around the GPU (copies, waits, allocations), printed to stderr when a
//! core is freed. Off unless $VSVK_STATS is set (read once), and then process wide: a profile of one
//! chain in one process, not an API.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

#[derive(Clone, Copy)]
pub enum Stat {
    /// GPUUpload: the host copy into mapped device memory.
    UploadCopy,
    /// GPUUpload through a staging buffer: allocation, copy and submission.
    UploadStaged,
    /// GPUDownload: waiting for the transfer queue's copy into the frame's host transfer memory.
    DownloadWait,
    /// GPUDownload where planes are mapped host memory (unified memory): the host's copy out of
    /// them into the CPU frame.
    DownloadCopy,
    /// A GPU buffer or frame plane that came from a bucket.
    VramReuse,
    /// A GPU buffer that needed a new region (and a vkCreateBuffer).
    VramNew,
    /// gpuExecAcquire waiting for the ring's oldest submission.
    AcquireWait,
    /// gpuExecAcquire held back by the in-flight byte budget.
    InflightGate,
    /// vkQueueSubmit2 under the queue lock, the lock's wait included.
    Submit,
    /// A host frame buffer taken from the core's pool.
    HostReuse,
    /// A host frame buffer freshly allocated (and zeroed by the system).
    HostNew,
    /// Host waits a plugin asked for (waitGPUFrame and the exec pool waits).
    PluginWait,
    /// GPUUpload by the upload kernel (a pinned frame read by the shader cores).
    UploadKernel,
    /// GPUDownload by the copy kernel (the shader cores writing the host frame).
    DownloadKernel,
    /// GPUUpload by CUDA's copy engines (gpu::cuda_copy).
    UploadCuda,
    /// GPUDownload by CUDA's copy engines, its wait included.
    DownloadCuda,
    /// GPUDownload waiting on the host for its source before queueing a copy on one of the compute
    /// family's other queues (transfer.rs, behind_compute_queue).
    DownloadHostWait,
    /// A queue's warm-up as the device comes up (warmup.rs), its wait included.
    QueueWarmup,
    /// A new slab of CUDA's pinned host memory for frame planes (cuda_copy's pinner).
    CudaHostNew,
    /// A submission waiting on the host for an upload by CUDA before it is queued (exec.rs).
    CudaHostWait,
    /// A new host frame CUDA would copy that found no idle pinned blocks and took the device's host
    /// memory instead (cuda_copy::CudaCopies::frame_blocks).
    CudaHostLater,
}

const NAMES: [&str; 21] = [
    "upload copy",
    "upload staged",
    "download wait",
    "download copy",
    "vram reuse",
    "vram new",
    "acquire wait",
    "inflight gate",
    "submit",
    "host reuse",
    "host new",
    "plugin wait",
    "upload kernel",
    "download kernel",
    "upload cuda",
    "download cuda",
    "download host wait",
    "queue warmup",
    "cuda host new",
    "cuda host wait",
    "cuda host later",
];

struct Counter {
    count: AtomicU64,
    nanos: AtomicU64,
}

static COUNTERS: [Counter; 21] = [const { Counter { count: AtomicU64::new(0), nanos: AtomicU64::new(0) } }; 21];

pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("VSVK_STATS").is_some_and(|v| v != "0"))
}

/// Adds the time from its creation to its drop to `stat`.
pub struct Timer(Stat, Instant);

impl Drop for Timer {
    fn drop(&mut self) {
        let c = &COUNTERS[self.0 as usize];
        c.count.fetch_add(1, Ordering::Relaxed);
        c.nanos.fetch_add(self.1.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }
}

/// A timer for `stat` while statistics are on.
pub fn time(stat: Stat) -> Option<Timer> {
    enabled().then(|| Timer(stat, Instant::now()))
}

/// Counts one event of `stat` without a duration.
pub fn count(stat: Stat) {
    if enabled() {
        COUNTERS[stat as usize].count.fetch_add(1, Ordering::Relaxed);
    }
}

/// The table so far, a line per step that happened.
pub fn report() -> String {
    let mut s = String::from("vsvk stats: step, count, total ms, mean us\n");
    for (i, c) in COUNTERS.iter().enumerate() {
        let n = c.count.load(Ordering::Relaxed);
        if n == 0 {
            continue;
        }
        let ns = c.nanos.load(Ordering::Relaxed);
        s += &format!("vsvk stats: {:<14} {:>9} {:>10.1} {:>9.1}\n", NAMES[i], n, ns as f64 / 1e6, ns as f64 / 1e3 / n as f64);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cover_every_step() {
        assert_eq!(Stat::CudaHostLater as usize + 1, NAMES.len());
        assert_eq!(NAMES.len(), COUNTERS.len());
    }
}
