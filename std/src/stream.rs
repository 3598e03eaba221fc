//! Output rows written past the caches (streaming, non-temporal stores) when the frames in flight
//! cannot stay in the last-level cache anyway.
//!
//! A plain store to a line that is not cached first reads the line from memory (a read for
//! ownership) and later writes it back: two transfers per written line. A streaming store is one.
//! When every thread writes a large frame, the frames in flight (each thread's output and the
//! input its consumer reads) overflow the last-level cache, the stores go to memory either way,
//! and memory bandwidth is the limit: on the H100 host (16 threads, 1080p 4:4:4 float)
//! std.Invert ran at 1.8-2.1x its plain-store speed, a chain of three at 1.4x. Where the frames
//! in flight fit, a consumer finds its input in the cache, and streaming it out costs: a chain of
//! three Inverts at 1 to 4 threads ran at 0.83-0.95x. Hence the rule below, the one glibc's memcpy
//! follows for large copies (non-temporal past a share of the shared cache). docs/BENCHMARKS.md
//! has the measurements.
//!
//! `VSVK_STREAM_STORES=1` (or `0`) forces the choice, for tests and measurements.
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::frame::FrameMut;

/// Whether a filter writing `dst`, a new output frame, on `core` (its thread count) should stream
/// its rows.
pub fn stream_outputs(core: Core, dst: &FrameMut) -> bool {
    match forced() {
        Some(on) => on,
        None => overflows(frame_bytes(dst), core.info().threads.max(1) as usize, last_level_cache()),
    }
}

/// Bytes of every plane of `f`, padding included.
fn frame_bytes(f: &FrameMut) -> usize {
    (0..f.format().numPlanes).map(|p| f.stride(p).unsigned_abs() * f.height(p) as usize).sum()
}

/// Each thread's output frame and the input frame its consumer reads, against the cache.
fn overflows(frame_bytes: usize, threads: usize, cache_bytes: usize) -> bool {
    frame_bytes.saturating_mul(2 * threads) > cache_bytes
}

fn forced() -> Option<bool> {
    static FORCED: std::sync::OnceLock<Option<bool>> = std::sync::OnceLock::new();
    *FORCED.get_or_init(|| match std::env::var("VSVK_STREAM_STORES").ok()?.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    })
}

/// Bytes of the largest data cache as the kernel reports it, or 32 MiB where it does not.
fn last_level_cache() -> usize {
    static BYTES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| {
        (0..8)
            .filter_map(|i| {
                let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
                let kind = std::fs::read_to_string(format!("{dir}/type")).ok()?;
                if kind.trim() == "Instruction" {
                    return None;
                }
                parse_size(&std::fs::read_to_string(format!("{dir}/size")).ok()?)
            })
            .max()
            .unwrap_or(32 << 20)
    })
}

/// "32768K", "300M", "1024" as sysfs writes cache sizes.
fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (num, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let n: usize = num.parse().ok()?;
    match unit {
        "" => Some(n),
        "K" => Some(n << 10),
        "M" => Some(n << 20),
        "G" => Some(n << 30),
        _ => None,
    }
}

/// Copies `src` to `dst` (same length) with streaming stores where `dst` allows them; callers
/// end the plane with `fence`, which orders these stores before the frame is handed on.
pub fn copy_row<T: Copy>(src: &[T], dst: &mut [T]) {
    assert_eq!(src.len(), dst.len());
    let bytes = std::mem::size_of_val(dst);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let (s, d) = (src.as_ptr().cast::<u8>(), dst.as_mut_ptr().cast::<u8>());
        let head = (d.align_offset(16)).min(bytes);
        let body = (bytes - head) / 16 * 16;
        // SAFETY: `src` and `dst` are distinct slices of `bytes` bytes; the head and tail are
        // plain copies, the body's stores start at a 16-byte aligned address of `dst`, and every
        // access stays inside both slices.
        unsafe {
            std::ptr::copy_nonoverlapping(s, d, head);
            let mut i = head;
            while i < head + body {
                _mm_stream_si128(d.add(i).cast(), _mm_loadu_si128(s.add(i).cast()));
                i += 16;
            }
            std::ptr::copy_nonoverlapping(s.add(i), d.add(i), bytes - i);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

/// Fills `dst` with `v`, with streaming stores where `dst` allows them; callers end the plane with
/// `fence`, as for `copy_row`.
pub fn fill_row<T: Copy>(dst: &mut [T], v: T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let size = std::mem::size_of::<T>();
        // 16 bytes of the value repeated; samples of 1, 2 and 4 bytes divide them, and a slice
        // of T starts at a multiple of its size, so the aligned body starts on a sample too
        if size == 0 || 16 % size != 0 {
            dst.fill(v);
            return;
        }
        let pattern = [v; 16];
        let head_bytes = dst.as_ptr().cast::<u8>().align_offset(16);
        if head_bytes % size != 0 {
            dst.fill(v);
            return;
        }
        let head = (head_bytes / size).min(dst.len());
        let body = (dst.len() - head) * size / 16 * 16 / size;
        dst[..head].fill(v);
        // SAFETY: `pattern` holds at least 16 bytes; each store writes 16 bytes at a 16-byte
        // aligned address inside `dst[head..head + body]`.
        unsafe {
            let word = _mm_loadu_si128(pattern.as_ptr().cast());
            let d = dst.as_mut_ptr().add(head).cast::<u8>();
            let mut i = 0;
            while i < body * size {
                _mm_stream_si128(d.add(i).cast(), word);
                i += 16;
            }
        }
        dst[head + body..].fill(v);
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.fill(v);
}

/// Makes the streaming stores so far visible before anything after them (the frame is handed to
/// other threads once the filter returns).
pub fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: sfence has no preconditions.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_row_every_offset_and_length() {
        let src: Vec<u16> = (0..300u16).map(|i| i.wrapping_mul(7919)).collect();
        for off in 0..9 {
            for len in [0, 1, 5, 7, 8, 9, 31, 64, 65, 200] {
                let mut buf = vec![0xffffu16; 300];
                copy_row(&src[..len], &mut buf[off..off + len]);
                fence();
                assert_eq!(
                    &buf[off..off + len],
                    &src[..len],
                    "offset {off} length {len}"
                );
                assert!(
                    buf[..off]
                        .iter()
                        .chain(&buf[off + len..])
                        .all(|&v| v == 0xffff),
                    "outside the row at {off}/{len}"
                );
            }
        }
    }

    #[test]
    fn fill_row_every_offset_and_length() {
        fn each<T: Copy + PartialEq + std::fmt::Debug>(v: T, other: T) {
            for off in 0..9 {
                for len in [0, 1, 5, 7, 8, 9, 31, 64, 65, 200] {
                    let mut buf = vec![other; 300];
                    fill_row(&mut buf[off..off + len], v);
                    fence();
                    assert!(buf[off..off + len].iter().all(|&x| x == v), "offset {off} length {len}: {:?}", &buf[off..off + len]);
                    assert!(buf[..off].iter().chain(&buf[off + len..]).all(|&x| x == other), "outside the row at {off}/{len}");
                }
            }
        }
        each(0xa5u8, 0);
        each(0x1234u16, 0xffff);
        each(0.625f32, -1.0);
        each(0x0102_0304u32, 7);
    }

    #[test]
    fn frames_in_flight_against_the_cache() {
        let f444s = 3 * 1920 * 4 * 1080; // 1080p 4:4:4 float, 25 MB
        let l3 = 300 << 20; // the H100 host's
        assert!(overflows(f444s, 16, l3) && overflows(f444s, 8, l3));
        assert!(!overflows(f444s, 4, l3) && !overflows(f444s, 1, l3));
        assert!(
            !overflows(1920 * 1080 * 3 / 2, 16, l3),
            "1080p 4:2:0 8-bit stays cached"
        );
        assert!(overflows(usize::MAX / 2, 3, l3));
    }

    #[test]
    fn cache_sizes_as_sysfs_writes_them() {
        assert_eq!(parse_size("32768K\n"), Some(32 << 20));
        assert_eq!(parse_size("300M"), Some(300 << 20));
        assert_eq!(parse_size("1024"), Some(1024));
        assert_eq!(parse_size("12Q"), None);
        assert!(last_level_cache() >= 1 << 20);
    }
}
