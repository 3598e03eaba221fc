//! Closures compiled for AVX2 and FMA where the machine has them: the row loops of the pointwise
//! filters (here and the core's merges) vectorise wider inside them, and `f32::mul_add` becomes
//! one instruction instead of a library call.
#[cfg(target_arch = "x86_64")]
use std::sync::OnceLock;

/// Runs `f` compiled for AVX2 and FMA when the machine has them (the results are the same either
/// way: fused multiply-adds are exact operations, done in software where the hardware lacks them).
#[inline(always)]
pub fn with_fast_math<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2_fma() {
            // SAFETY: the features were detected at run time.
            return unsafe { with_avx2(f) };
        }
    }
    f()
}

/// Whether the CPU has AVX2 and FMA, detected once: loops that ask per block of samples (Expr's
/// integer stores) pay a load, not the feature test.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn has_avx2_fma() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}
