//! Pinned host memory for frame planes: slabs from a pinner (huge pages registered with CUDA, or
//! cuMemHostAlloc's, for CUDA's copies), carved into blocks of one length, lent to frames and taken
//! back for the next frame of that length.
//!
//! Pinning is slow: a 128 MB slab took 28 ms on the H100, near 4.6 GB/s, a tenth of the bus. So one
//! slab of a length is pinned at a time and threads that find no idle block meanwhile wait for it;
//! where each such thread pinned its own, 16 threads starting on new frames at once pinned 16 slabs
//! for one frame each, the idle blocks beyond the bound were let go and pinned again later (119
//! slabs in 2,000 new 2160p 16-bit frames, bench/results/h100-2026-12-07-s45/cudawait.txt; that row
//! ran 0.62-0.79x R81 in h100-2026-12-07-s46). Taking a length's last idle block starts the next
//! slab's pinning in the background, so that a growing number of frames in flight finds it pinned
//! or under way.
//!
//! A new frame need not wait for those later slabs: `blocks_now` lends a whole frame's blocks where
//! they are idle and otherwise none, pinning the missing lengths in the background, and the caller
//! takes other memory for that frame. Only a length's first slab is waited for, so that a frame
//! made once at the start and used over and over (a looped source) lives in pinned memory. With
//! every frame waiting, a 400-frame run of new 2160p 16-bit frames spent 592 ms in ten pins,
//! longer than the run itself (h100-2026-12-07-s47/pinning-1.txt).
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

/// What pins host memory and lets it go.
pub trait Pinner: Send + Sync + 'static {
    /// `bytes` of pinned host memory, page aligned.
    fn pin(&self, bytes: usize) -> Result<*mut u8, String>;
    /// # Safety
    /// `p` came from `pin` and nothing uses it any more.
    unsafe fn unpin(&self, p: *mut u8);
}

/// How much a slab holds, at most how many blocks, and how many bytes of idle blocks are kept.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub slab_bytes: usize,
    pub slab_blocks: usize,
    pub idle_bytes: usize,
}

/// One pinned allocation carved into blocks of one length; let go once no block of it is lent or
/// idle (each holds the slab).
struct Slab {
    ptr: *mut u8,
    pinner: Arc<dyn Pinner>,
}

// SAFETY: plain host memory owned by this value.
unsafe impl Send for Slab {}
// SAFETY: as above; the blocks' users share it by the frame's rule.
unsafe impl Sync for Slab {}

impl Drop for Slab {
    fn drop(&mut self) {
        // SAFETY: pinned by this pinner, and no block of it is used any more.
        unsafe { self.pinner.unpin(self.ptr) };
    }
}

/// A slab just pinned: its start, the slab, the blocks' spacing and count.
type NewSlab = (*mut u8, Arc<Slab>, usize, usize);

#[derive(Default)]
struct Idle {
    by_len: HashMap<usize, Vec<(usize, Arc<Slab>)>>,
    bytes: usize,
    /// Lengths a slab is being pinned for: one at a time each, which the others wait for.
    pinning: HashSet<usize>,
    /// Lengths a slab was ever pinned for (blocks_now waits only for a length's first).
    ever: HashSet<usize>,
    /// When a background pin of a length last failed: blocks_now asks for none again within
    /// PIN_RETRY, so that frames going without do not each start a pin that fails.
    failed: HashMap<usize, Instant>,
}

const PIN_RETRY: Duration = Duration::from_secs(1);

/// The pinned blocks of one pinner.
pub struct PinnedPool {
    pinner: Arc<dyn Pinner>,
    sizes: Sizes,
    /// Each thread with no idle block pins a slab of its own, and none is pinned ahead.
    alone: bool,
    idle: Mutex<Idle>,
    /// Signalled when a slab's pinning ends (its blocks idle, or it failed).
    pinned: Condvar,
    me: Weak<PinnedPool>,
}

/// Pinned host memory lent to a frame plane; back to its pool's idle blocks when dropped.
pub struct Block {
    ptr: *mut u8,
    len: usize,
    slab: Arc<Slab>,
    pool: Weak<PinnedPool>,
}

// SAFETY: plain host memory owned by this value.
unsafe impl Send for Block {}
// SAFETY: as above; shared access is read-only (the frame's rule).
unsafe impl Sync for Block {}

impl Block {
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Whether `pool` lent it.
    pub fn of(&self, pool: &PinnedPool) -> bool {
        std::ptr::eq(self.pool.as_ptr(), pool)
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // (without its pool the block just lets go of its slab)
        if let Some(p) = self.pool.upgrade() {
            p.give(self.ptr, self.len, self.slab.clone());
        }
    }
}

impl PinnedPool {
    pub fn new(pinner: Arc<dyn Pinner>, sizes: Sizes, alone: bool) -> Arc<PinnedPool> {
        Arc::new_cyclic(|me| PinnedPool { pinner, sizes, alone, idle: Mutex::new(Idle::default()), pinned: Condvar::new(), me: me.clone() })
    }

    /// `len` bytes of pinned host memory: an idle block of that length, else one of a new slab's,
    /// whose others go idle; waits for a slab of that length already being pinned.
    pub fn block(&self, len: usize) -> Result<Block, String> {
        if self.alone {
            if let Some(b) = self.take_idle(&mut self.idle.lock(), len) {
                return Ok(b);
            }
            let slab = self.pin_slab(len)?;
            return Ok(self.lend_first(&mut self.idle.lock(), len, slab));
        }
        let mut idle = self.idle.lock();
        loop {
            if let Some(b) = self.take_idle(&mut idle, len) {
                if idle.by_len.get(&len).is_none_or(Vec::is_empty) {
                    self.pin_ahead(&mut idle, len);
                }
                return Ok(b);
            }
            if idle.pinning.contains(&len) {
                self.pinned.wait(&mut idle);
                continue;
            }
            idle.pinning.insert(len);
            drop(idle);
            let pinned = self.pin_slab(len);
            idle = self.idle.lock();
            idle.pinning.remove(&len);
            self.pinned.notify_all();
            return Ok(self.lend_first(&mut idle, len, pinned?));
        }
    }

    /// Blocks of each length in `lens`, in order, where idle ones are there for all of them; else
    /// none, and each length short of idle blocks is pinned in the background (one slab at a time,
    /// as ever). A length never pinned before is waited for instead (its first slab), unless its
    /// pin failed within PIN_RETRY. Taking a length's last idle block pins its next slab ahead.
    pub fn blocks_now(&self, lens: &[usize]) -> Option<Vec<Block>> {
        let mut want: HashMap<usize, usize> = HashMap::new();
        for &len in lens {
            *want.entry(len).or_default() += 1;
        }
        let mut idle = self.idle.lock();
        loop {
            let short: Vec<usize> = want.iter().filter(|&(len, n)| idle.by_len.get(len).map_or(0, Vec::len) < *n).map(|(&len, _)| len).collect();
            if short.is_empty() {
                break;
            }
            for &len in &short {
                self.pin_ahead(&mut idle, len);
            }
            if !short.iter().any(|len| !idle.ever.contains(len) && idle.pinning.contains(len)) {
                return None;
            }
            self.pinned.wait(&mut idle);
        }
        // (every take succeeds: counted above, under the same lock; a block dropped here would
        // deadlock on that lock, so none is)
        let blocks: Vec<Block> = lens.iter().filter_map(|&len| self.take_idle(&mut idle, len)).collect();
        for len in want.into_keys() {
            if idle.by_len.get(&len).is_none_or(Vec::is_empty) {
                self.pin_ahead(&mut idle, len);
            }
        }
        Some(blocks)
    }

    /// The first block of a slab just pinned, its others idle.
    fn lend_first(&self, idle: &mut Idle, len: usize, (ptr, slab, step, n): NewSlab) -> Block {
        idle.ever.insert(len);
        Self::add_idle(idle, len, &slab, (1..n).map(|i| ptr as usize + i * step));
        self.lend(ptr, len, slab)
    }

    fn lend(&self, ptr: *mut u8, len: usize, slab: Arc<Slab>) -> Block {
        Block { ptr, len, slab, pool: self.me.clone() }
    }

    fn take_idle(&self, idle: &mut Idle, len: usize) -> Option<Block> {
        let (p, slab) = idle.by_len.get_mut(&len).and_then(Vec::pop)?;
        idle.bytes -= len;
        Some(self.lend(p as *mut u8, len, slab))
    }

    fn add_idle(idle: &mut Idle, len: usize, slab: &Arc<Slab>, blocks: impl Iterator<Item = usize>) {
        let list = idle.by_len.entry(len).or_default();
        for p in blocks {
            idle.bytes += len;
            list.push((p, slab.clone()));
        }
    }

    /// Pins the next slab of `len` in the background, unless one is under way already.
    fn pin_ahead(&self, idle: &mut Idle, len: usize) {
        if idle.failed.get(&len).is_some_and(|t| t.elapsed() < PIN_RETRY) {
            return;
        }
        let Some(me) = self.me.upgrade().filter(|_| idle.pinning.insert(len)) else { return };
        let spawned = std::thread::Builder::new().name("vsvk-pin".into()).spawn(move || {
            let pinned = me.pin_slab(len);
            let mut idle = me.idle.lock();
            idle.pinning.remove(&len);
            match pinned {
                Ok((ptr, slab, step, n)) => {
                    idle.failed.remove(&len);
                    idle.ever.insert(len);
                    Self::add_idle(&mut idle, len, &slab, (0..n).map(|i| ptr as usize + i * step));
                }
                Err(_) => {
                    idle.failed.insert(len, Instant::now());
                }
            }
            me.pinned.notify_all();
        });
        if spawned.is_err() {
            idle.pinning.remove(&len);
        }
    }

    /// A new slab of blocks of `len` bytes.
    fn pin_slab(&self, len: usize) -> Result<NewSlab, String> {
        // Blocks start on page boundaries.
        let step = len.max(1).div_ceil(4096) * 4096;
        let n = (self.sizes.slab_bytes / step).clamp(1, self.sizes.slab_blocks.max(1));
        // (a panic in the pinner must not leave the length marked as pinning: its waiters would
        // wait for good)
        let pinned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.pinner.pin(step * n)));
        let ptr = pinned.unwrap_or_else(|_| Err("pinning host memory panicked".into()))?;
        Ok((ptr, Arc::new(Slab { ptr, pinner: self.pinner.clone() }), step, n))
    }

    fn give(&self, ptr: *mut u8, len: usize, slab: Arc<Slab>) {
        let mut idle = self.idle.lock();
        // (a block not kept lets go of its slab, which is unpinned with its last block)
        if idle.bytes + len <= self.sizes.idle_bytes {
            idle.bytes += len;
            idle.by_len.entry(len).or_default().push((ptr as usize, slab));
        }
    }

    #[cfg(test)]
    fn idle_blocks(&self, len: usize) -> usize {
        self.idle.lock().by_len.get(&len).map_or(0, Vec::len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::{alloc, dealloc, Layout};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Barrier;
    use std::time::{Duration, Instant};

    /// Heap memory standing in for pinned memory: counts its pins, each taking `delay`.
    struct Fake {
        pins: AtomicUsize,
        /// Pins under way now, and the most at once.
        active: AtomicUsize,
        most: AtomicUsize,
        unpins: AtomicUsize,
        delay: Duration,
        fail: bool,
        sizes: Mutex<HashMap<usize, usize>>,
    }

    impl Fake {
        fn new(delay_ms: u64, fail: bool) -> Arc<Fake> {
            Arc::new(Fake { pins: AtomicUsize::new(0), active: AtomicUsize::new(0), most: AtomicUsize::new(0), unpins: AtomicUsize::new(0), delay: Duration::from_millis(delay_ms), fail, sizes: Mutex::new(HashMap::new()) })
        }
        fn pins(&self) -> usize {
            self.pins.load(Ordering::SeqCst)
        }
    }

    impl Pinner for Fake {
        fn pin(&self, bytes: usize) -> Result<*mut u8, String> {
            let now = self.active.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(self.delay);
            self.active.fetch_sub(1, Ordering::SeqCst);
            self.pins.fetch_add(1, Ordering::SeqCst);
            if self.fail {
                return Err("cuMemHostAlloc failed: out of memory".into());
            }
            // SAFETY: a non-zero size, page aligned.
            let p = unsafe { alloc(Layout::from_size_align(bytes, 4096).unwrap()) };
            assert!(!p.is_null());
            self.sizes.lock().insert(p as usize, bytes);
            Ok(p)
        }
        unsafe fn unpin(&self, p: *mut u8) {
            self.unpins.fetch_add(1, Ordering::SeqCst);
            let bytes = self.sizes.lock().remove(&(p as usize)).expect("unpinned once, after its pin");
            // SAFETY: allocated by pin with this layout.
            unsafe { dealloc(p, Layout::from_size_align(bytes, 4096).unwrap()) };
        }
    }

    const LEN: usize = 16 << 10;
    /// Slabs of four blocks of LEN.
    const SIZES: Sizes = Sizes { slab_bytes: 4 * LEN, slab_blocks: 16, idle_bytes: 1 << 20 };

    fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
        let t = Instant::now();
        while !done() {
            assert!(t.elapsed() < Duration::from_secs(10), "{what}: not within 10 s");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// 16 threads asking at once: (blocks each got, distinct addresses) and the pins made.
    fn sixteen_at_once(pool: &Arc<PinnedPool>) -> Vec<Block> {
        let start = Barrier::new(16);
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..16).map(|_| s.spawn(|| {
                start.wait();
                pool.block(LEN).unwrap()
            })).collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    #[test]
    fn threads_starting_together_wait_for_one_slab_at_a_time() {
        let fake = Fake::new(150, false);
        let pool = PinnedPool::new(fake.clone(), SIZES, false);
        let got = sixteen_at_once(&pool);
        let mut addrs: Vec<usize> = got.iter().map(|b| b.ptr() as usize).collect();
        addrs.sort_unstable();
        addrs.dedup();
        assert_eq!(addrs.len(), 16, "each thread its own block");
        // 4 slabs for 16 blocks, and the one pinned ahead when the last idle block went
        wait_for("the slab pinned ahead", || fake.pins() == 5);
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(fake.pins(), 5, "no more slabs than blocks asked for need, plus one ahead");
        assert_eq!(fake.most.load(Ordering::SeqCst), 1, "one pin at a time");
        assert_eq!(pool.idle_blocks(LEN), 4);
    }

    #[test]
    fn threads_pinning_alone_pin_a_slab_each() {
        let fake = Fake::new(150, false);
        let pool = PinnedPool::new(fake.clone(), SIZES, true);
        let got = sixteen_at_once(&pool);
        assert_eq!(got.len(), 16);
        assert!(fake.pins() >= 12, "the old way: a slab for nearly every thread ({} pins)", fake.pins());
        assert!(fake.most.load(Ordering::SeqCst) >= 8, "pins at once");
    }

    #[test]
    fn a_block_given_back_is_lent_again_without_a_pin() {
        let fake = Fake::new(0, false);
        let pool = PinnedPool::new(fake.clone(), SIZES, false);
        let a = pool.block(LEN).unwrap();
        // SAFETY: LEN bytes lent to us.
        unsafe { std::ptr::write_bytes(a.ptr(), 7, LEN) };
        let p = a.ptr();
        assert!(a.of(&pool) && a.len() == LEN);
        drop(a);
        let b = pool.block(LEN).unwrap();
        assert_eq!(b.ptr(), p, "the block just given back");
        // SAFETY: as above; the bytes written before it went idle are still there.
        assert_eq!(unsafe { *b.ptr().add(LEN - 1) }, 7);
        assert_eq!(fake.pins(), 1);
        let other = PinnedPool::new(fake.clone(), SIZES, false);
        assert!(!b.of(&other));
    }

    #[test]
    fn taking_the_last_idle_block_pins_the_next_slab_ahead() {
        let fake = Fake::new(20, false);
        let pool = PinnedPool::new(fake.clone(), SIZES, false);
        let held: Vec<Block> = (0..4).map(|_| pool.block(LEN).unwrap()).collect();
        assert_eq!(pool.idle_blocks(LEN), 0);
        wait_for("the slab pinned ahead", || pool.idle_blocks(LEN) == 4);
        assert_eq!(fake.pins(), 2);
        let t = Instant::now();
        let fifth = pool.block(LEN).unwrap();
        assert!(t.elapsed() < Duration::from_millis(15), "the fifth block was idle, no pin waited for");
        assert!(held.iter().all(|b| b.ptr() != fifth.ptr()));
    }

    #[test]
    fn a_failed_pin_fails_every_waiter_and_hangs_none() {
        let fake = Fake::new(50, true);
        let pool = PinnedPool::new(fake.clone(), SIZES, false);
        let start = Barrier::new(4);
        let errs: Vec<String> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4).map(|_| s.spawn(|| {
                start.wait();
                pool.block(LEN).err().expect("no memory to lend")
            })).collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(errs.iter().all(|e| e.contains("cuMemHostAlloc failed")), "{errs:?}");
        assert_eq!(fake.pins(), 4, "each thread tried once");
        assert_eq!(fake.most.load(Ordering::SeqCst), 1, "one at a time");
    }

    #[test]
    fn a_slab_is_unpinned_once_no_block_of_it_is_lent_or_kept() {
        let fake = Fake::new(0, false);
        // idle blocks kept: one block's bytes at most
        let pool = PinnedPool::new(fake.clone(), Sizes { idle_bytes: LEN, ..SIZES }, false);
        let first: Vec<Block> = (0..4).map(|_| pool.block(LEN).unwrap()).collect();
        wait_for("the slab pinned ahead", || pool.idle_blocks(LEN) == 4);
        drop(first);
        // the second slab's idle blocks are over the bound already: the first slab's went
        assert_eq!(fake.unpins.load(Ordering::SeqCst), 1);
        assert_eq!(pool.idle_blocks(LEN), 4);
        wait_for("the pinning thread to let go of the pool", || Arc::strong_count(&pool) == 1);
        drop(pool);
        assert_eq!(fake.unpins.load(Ordering::SeqCst), 2, "the pool's idle slab goes with it");
    }

    #[test]
    fn a_frame_waits_for_its_lengths_first_slabs_only() {
        let fake = Fake::new(100, false);
        let pool = PinnedPool::new(fake.clone(), SIZES, false);
        let lens = [LEN, LEN / 4, LEN / 4];
        // nothing pinned yet: the first frame waits for both lengths' first slabs, pinned side by side
        let t = Instant::now();
        let first = pool.blocks_now(&lens).expect("the first slabs, waited for");
        assert!(t.elapsed() >= Duration::from_millis(100));
        assert_eq!(first.iter().map(Block::len).collect::<Vec<_>>(), lens, "in plane order");
        assert_ne!(first[1].ptr(), first[2].ptr(), "two chroma planes, two blocks");
        assert!(first.iter().all(|b| b.of(&pool)));
        assert_eq!(fake.most.load(Ordering::SeqCst), 2, "the two lengths pinned at once");
        assert_eq!((pool.idle_blocks(LEN), pool.idle_blocks(LEN / 4)), (3, 14));
        // LEN's last three idle blocks: the third frame takes the last, which pins the next slab ahead
        let more: Vec<Vec<Block>> = (0..3).map(|_| pool.blocks_now(&lens).expect("idle blocks")).collect();
        assert_eq!(pool.idle_blocks(LEN), 0);
        // a known length short of blocks: no wait, no block, the pin going on behind
        let t = Instant::now();
        for _ in 0..20 {
            assert!(pool.blocks_now(&lens).is_none());
        }
        assert!(t.elapsed() < Duration::from_millis(80), "frames waited on a later slab: {:?}", t.elapsed());
        assert_eq!(pool.idle_blocks(LEN / 4), 8, "no chroma block taken for a frame that got none");
        wait_for("LEN's next slab", || pool.idle_blocks(LEN) == 4);
        assert_eq!(fake.pins(), 3, "one slab ahead, however many frames went without");
        assert!(pool.blocks_now(&lens).is_some());
        drop((first, more));
    }

    #[test]
    fn a_failed_background_pin_is_not_tried_again_at_once() {
        let fake = Fake::new(0, true);
        let pool = PinnedPool::new(fake.clone(), SIZES, false);
        assert!(pool.blocks_now(&[LEN]).is_none(), "the first slab failed: no blocks, no hang");
        assert_eq!(fake.pins(), 1);
        for _ in 0..100 {
            assert!(pool.blocks_now(&[LEN]).is_none());
        }
        assert_eq!(fake.pins(), 1, "frames go without, rather than each asking for a pin that fails");
        pool.idle.lock().failed.insert(LEN, Instant::now() - PIN_RETRY);
        assert!(pool.blocks_now(&[LEN]).is_none());
        assert_eq!(fake.pins(), 2, "tried again after PIN_RETRY");
    }
}
