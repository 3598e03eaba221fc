//! Rows of 8-bit samples through a 256-entry table: Levels, Lut and the one-input Expr on 8-bit
//! clips all come down to this.
//!
//! A scalar lookup moves about one sample a cycle, no faster than R81's vector code computing
//! the same function; AVX-512 VBMI's two-table byte permute looks up 64 samples in a handful of
//! instructions, so tables beat arithmetic wherever that instruction exists (Ice Lake and later,
//! Zen 4 and later).

use std::sync::OnceLock;

/// `dst[i] = table[src[i]]` over the shorter of the two rows.
pub fn apply(table: &[u8; 256], src: &[u8], dst: &mut [u8]) {
    let n = src.len().min(dst.len());
    let (src, dst) = (&src[..n], &mut dst[..n]);
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if has_vbmi() {
        // SAFETY: AVX-512 F, BW and VBMI were detected at run time; both rows hold n samples.
        done = unsafe { apply_vbmi(table, src.as_ptr(), dst.as_mut_ptr(), n) };
    }
    for (o, &x) in dst[done..].iter_mut().zip(&src[done..]) {
        *o = table[x as usize];
    }
}

/// AVX-512 VBMI, and AVX-512 not switched off (`VSVK_NO_AVX512=1`, see `has_avx512`).
#[cfg(target_arch = "x86_64")]
fn has_vbmi() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| vsvk_plugin_api::simd::has_avx512() && std::arch::is_x86_feature_detected!("avx512vbmi"))
}

/// Whole blocks of 64 samples; returns how many samples it did (a multiple of 64).
///
/// # Safety
/// The CPU has AVX-512 F, BW and VBMI; `src` and `dst` point to `n` readable and writable bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn apply_vbmi(table: &[u8; 256], src: *const u8, dst: *mut u8, n: usize) -> usize {
    use std::arch::x86_64::*;
    // SAFETY: the table is 256 bytes, four unaligned 64-byte loads.
    let t: [__m512i; 4] = std::array::from_fn(|k| unsafe { _mm512_loadu_si512(table.as_ptr().add(64 * k).cast()) });
    let mut x = 0;
    while x + 64 <= n {
        // SAFETY: x + 64 <= n bytes are readable and writable (the caller's contract).
        unsafe {
            let i = _mm512_loadu_si512(src.add(x).cast());
            // the permute uses the low seven bits of each index (bit 6 picks the second table);
            // the top bit picks between the two halves of the table
            let lo = _mm512_permutex2var_epi8(t[0], i, t[1]);
            let hi = _mm512_permutex2var_epi8(t[2], i, t[3]);
            let r = _mm512_mask_blend_epi8(_mm512_movepi8_mask(i), lo, hi);
            _mm512_storeu_si512(dst.add(x).cast(), r);
        }
        x += 64;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_at_every_offset_reads_its_entry() {
        // a table that is no simple function of the index, so a wrong half or lane shows
        let table: [u8; 256] = std::array::from_fn(|i| ((i * 151 + 7) % 256) as u8 ^ 0x5a);
        // 300 samples: four whole blocks and a tail, every value several times
        let src: Vec<u8> = (0..300u32).map(|i| ((i * 37) % 256) as u8).collect();
        for start in 0..3 {
            let s = &src[start..];
            let mut dst = vec![0u8; s.len()];
            apply(&table, s, &mut dst);
            for (k, (&o, &x)) in dst.iter().zip(s).enumerate() {
                assert_eq!(o, table[x as usize], "sample {k} (value {x}), row offset {start}");
            }
        }
    }
}
