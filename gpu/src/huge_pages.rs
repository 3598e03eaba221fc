//! Anonymous host memory that asks for transparent huge pages (2 MiB) and is touched once, for
//! slabs a pinner registers afterwards (CUDA's, by default: gpu::cuda_copy). Faulting in 128 MB
//! page by page cost about 95 ms on the development VM against about 30 with huge pages; on the
//! H100's host a 128 MB slab took 32 ms this way, touch and registration together, against 67-74
//! ms by cuMemHostAlloc in the same call (docs/BENCHMARKS.md). Where the kernel has no huge pages
//! the memory is ordinary.

/// Huge pages' size and so the mapping's alignment.
pub const HUGE: usize = 2 << 20;

/// One mapping, unmapped when dropped.
pub struct HugeMap {
    base: *mut u8,
    total: usize,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: plain host memory owned by this value.
unsafe impl Send for HugeMap {}
// SAFETY: as above; its users share it by their own rules.
unsafe impl Sync for HugeMap {}

impl HugeMap {
    /// At least `len` bytes (whole huge pages), zeroed, aligned to HUGE, every page touched.
    pub fn new(len: usize) -> Result<HugeMap, String> {
        let len = len.max(1).div_ceil(HUGE) * HUGE;
        let total = len + HUGE;
        // SAFETY: a new private anonymous mapping; no address given.
        let base = unsafe { libc::mmap(std::ptr::null_mut(), total, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
        if base == libc::MAP_FAILED {
            return Err(format!("mmap of {total} bytes failed: {}", std::io::Error::last_os_error()));
        }
        let base = base.cast::<u8>();
        let ptr = base.wrapping_add(base.align_offset(HUGE));
        // SAFETY: [ptr, ptr + len) lies inside the mapping (HUGE bytes of slack for the alignment).
        // The advice is a hint: where the kernel refuses it, the pages stay ordinary.
        unsafe { libc::madvise(ptr.cast(), len, libc::MADV_HUGEPAGE) };
        // (one write a base page faults every page in now, huge or not, rather than inside the
        // pinner's walk)
        for off in (0..len).step_by(4096) {
            // SAFETY: inside the mapping, which is writable.
            unsafe { ptr.add(off).write_volatile(0) };
        }
        Ok(HugeMap { base, total, ptr, len })
    }

    /// Its start and length.
    pub fn region(&self) -> (*mut u8, usize) {
        (self.ptr, self.len)
    }
}

impl Drop for HugeMap {
    fn drop(&mut self) {
        // SAFETY: the whole mapping made in new; nothing uses it any more (the owner's promise).
        unsafe { libc::munmap(self.base.cast(), self.total) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapping_is_aligned_whole_huge_pages_zeroed_and_writable() {
        let m = HugeMap::new(5 * HUGE + 123).unwrap();
        let (p, len) = m.region();
        assert_eq!(p as usize % HUGE, 0);
        assert_eq!(len, 6 * HUGE);
        // SAFETY: the mapping's len bytes.
        let bytes = unsafe { std::slice::from_raw_parts_mut(p, len) };
        assert!(bytes.iter().all(|&b| b == 0));
        bytes[len - 1] = 9;
        bytes[0] = 7;
        assert_eq!((bytes[0], bytes[len - 1]), (7, 9));
        let second = HugeMap::new(HUGE).unwrap();
        let ((a, alen), (b, blen)) = ((p as usize, len), (second.region().0 as usize, second.region().1));
        assert!(b >= a + alen || b + blen <= a, "two mappings do not overlap");
    }

    #[test]
    fn huge_pages_back_the_mapping_where_the_kernel_offers_them() {
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        if !thp.contains("[madvise]") && !thp.contains("[always]") {
            eprintln!("transparent huge pages off here ({}): not checked", thp.trim());
            return;
        }
        let m = HugeMap::new(8 * HUGE).unwrap();
        let (p, len) = m.region();
        // the mapping's AnonHugePages in /proc/self/smaps (the kernel may split or lack some)
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        let mut huge_kb = 0;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ').filter(|(r, _)| r.contains('-') && r.chars().all(|c| c.is_ascii_hexdigit() || c == '-')) {
                let (lo, hi) = range.split_once('-').unwrap();
                let (lo, hi) = (usize::from_str_radix(lo, 16).unwrap(), usize::from_str_radix(hi, 16).unwrap());
                inside = lo <= p as usize && p as usize + len <= hi;
            } else if inside {
                if let Some(kb) = line.strip_prefix("AnonHugePages:") {
                    huge_kb = kb.trim().trim_end_matches(" kB").trim().parse::<usize>().unwrap();
                }
            }
        }
        assert!(huge_kb >= 2048, "no huge page backs the 16 MiB mapping (AnonHugePages {huge_kb} kB)");
    }
}
