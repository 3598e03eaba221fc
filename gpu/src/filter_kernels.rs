//! Whether filters may be running kernels on the device: their live exec pools on the compute
//! family's kernel queues, and whether any filter ever submitted to the compute queue by itself
//! (lockVulkanQueue). The copy kernels keep off the shader cores while either holds
//! (core's transfer::compute_idle). The compute queue's busy share cannot tell them: it needs a
//! window of GPU time before it knows, and every stall caught on the H100 (BM3D at 1080p and
//! 2160p) came in a run's first frames, with copy kernels on the compute family's other queues
//! beside the filter's first kernels, all of them unfinished (docs/BENCHMARKS.md). Nor does it see
//! work a filter submits on its own timeline.
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

#[derive(Default)]
pub struct FilterKernels {
    pools: AtomicUsize,
    locked: AtomicBool,
}

/// One filter's exec pool on a kernel queue, counted while it lives.
pub struct FilterPool(Arc<FilterKernels>);

impl Drop for FilterPool {
    fn drop(&mut self) {
        self.0.pools.fetch_sub(1, Ordering::Relaxed);
    }
}

impl FilterKernels {
    /// A filter's exec pool was made on a queue that runs kernels; hold the guard as long as it lives.
    pub fn pool_made(self: &Arc<Self>) -> FilterPool {
        self.pools.fetch_add(1, Ordering::Relaxed);
        FilterPool(self.clone())
    }

    /// A filter locked the compute queue to submit its own work: from then on for the device's life,
    /// since nothing says when such a filter is done.
    pub fn queue_locked(&self) {
        if !self.locked.load(Ordering::Relaxed) {
            self.locked.store(true, Ordering::Relaxed);
        }
    }

    pub fn present(&self) -> bool {
        self.pools.load(Ordering::Relaxed) > 0 || self.locked.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::FilterKernels;
    use std::sync::Arc;

    #[test]
    fn present_while_a_pool_lives_and_for_good_after_a_queue_lock() {
        let k = Arc::new(FilterKernels::default());
        assert!(!k.present());
        let a = k.pool_made();
        let b = k.pool_made();
        drop(a);
        assert!(k.present());
        drop(b);
        assert!(!k.present());
        k.queue_locked();
        assert!(k.present());
    }
}
