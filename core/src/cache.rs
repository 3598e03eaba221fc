//! Per-node frame caches: a small LRU keyed by frame number, sized by the cache mode and by how
//! the node's consumers declared they request it.
use std::collections::VecDeque;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use crate::frame::Frame;

pub const DEFAULT_MAX_SIZE: i32 = 20;
pub const DEFAULT_MAX_HISTORY: i32 = 20;

pub struct Cache {
    pub mode: i32,
    pub fixed_size: bool,
    pub max_size: i32,
    pub max_history: i32,
    /// Consumers that may ask for a frame more than once keep the cache useful in auto mode.
    pub reusing_consumers: u32,
    pub last_only_consumers: u32,
    pub linear: bool,
    frames: VecDeque<(i32, Arc<Frame>)>,
    pub hits: u64,
    pub misses: u64,
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            mode: cmAuto,
            fixed_size: false,
            max_size: DEFAULT_MAX_SIZE,
            max_history: DEFAULT_MAX_HISTORY,
            reusing_consumers: 0,
            last_only_consumers: 0,
            linear: false,
            frames: VecDeque::new(),
            hits: 0,
            misses: 0,
        }
    }
}

impl Cache {
    pub fn enabled(&self) -> bool {
        match self.mode {
            cmForceEnable => true,
            cmForceDisable => false,
            _ => self.linear || self.reusing_consumers > 0 || self.last_only_consumers > 0,
        }
    }
    fn capacity(&self) -> usize {
        if self.mode == cmAuto && !self.linear && self.reusing_consumers == 0 {
            // Only rpFrameReuseLastOnly consumers: the newest frame is all that is ever asked twice.
            return 1;
        }
        self.max_size.max(0) as usize
    }
    pub fn set_mode(&mut self, mode: i32) {
        self.mode = mode.clamp(cmAuto, cmForceEnable);
        self.fixed_size = false;
        self.max_size = DEFAULT_MAX_SIZE;
        self.max_history = DEFAULT_MAX_HISTORY;
        if !self.enabled() {
            self.frames.clear();
        }
    }
    pub fn set_options(&mut self, fixed: i32, max_size: i32, max_history: i32) {
        if fixed >= 0 {
            self.fixed_size = fixed != 0;
        }
        if max_size >= 0 {
            self.max_size = max_size;
        }
        if max_history >= 0 {
            self.max_history = max_history;
        }
        self.trim(self.capacity());
    }
    pub fn get(&mut self, n: i32) -> Option<Arc<Frame>> {
        let i = self.frames.iter().position(|(k, _)| *k == n);
        match i {
            Some(i) => {
                self.hits += 1;
                let e = self.frames.remove(i).expect("index from position");
                let f = e.1.clone();
                self.frames.push_back(e);
                Some(f)
            }
            None => {
                self.misses += 1;
                None
            }
        }
    }
    /// Stores a frame; `under_pressure` (the core is over its cache budget) keeps the cache at one.
    pub fn insert(&mut self, n: i32, f: Arc<Frame>, under_pressure: bool) {
        if !self.enabled() {
            return;
        }
        if let Some(i) = self.frames.iter().position(|(k, _)| *k == n) {
            self.frames.remove(i);
        }
        self.frames.push_back((n, f));
        let cap = if under_pressure && !self.fixed_size { 1 } else { self.capacity() };
        self.trim(cap);
    }
    fn trim(&mut self, cap: usize) {
        while self.frames.len() > cap {
            self.frames.pop_front();
        }
    }
    pub fn clear(&mut self) {
        self.frames.clear();
    }
    /// Takes the GPU resident frames out (least recently used first), for VRAM pressure; the
    /// caller drops them outside the cache lock.
    pub fn evict_gpu(&mut self) -> Vec<Arc<Frame>> {
        let (gpu, keep): (VecDeque<_>, VecDeque<_>) = self.frames.drain(..).partition(|(_, f)| f.residency() == nrGPU);
        self.frames = keep;
        gpu.into_iter().map(|(_, f)| f).collect()
    }
    pub fn len(&self) -> usize {
        self.frames.len()
    }
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}
