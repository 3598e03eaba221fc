//! What kernels written on this layer share with the core's own: half-precision conversions
//! (scalar, and 8 at a time with F16C) and CPU feature dispatch ([`multiversion!`], which compiles
//! a kernel for AVX-512, AVX2 + FMA and the baseline and picks one at run time). One copy for
//! every built-in namespace, so that a kernel moved out of the core into a crate on this layer
//! compiles and dispatches as it did.
/// IEEE half (as bits) to single precision; exact.
#[inline(always)]
pub fn half_to_f32(h: u16) -> f32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = if exp == 0x1f {
        sign | 0x7f80_0000 | (man << 13)
    } else if exp == 0 {
        if man == 0 {
            sign
        } else {
            // subnormal: value = man * 2^-24
            let v = man as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -v } else { v };
        }
    } else {
        sign | ((exp + 112) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

/// Single precision to IEEE half bits, rounding to nearest even.
#[inline]
pub fn f32_to_half(v: f32) -> u16 {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let round = (rem > mid || (rem == mid && half & 1 == 1)) as u32;
        return sign | (half + round) as u16;
    }
    let half = ((e as u32) << 10) | (mant >> 13);
    let rem = mant & 0x1fff;
    let round = (rem > 0x1000 || (rem == 0x1000 && half & 1 == 1)) as u32;
    sign | (half + round) as u16
}

/// Half-precision samples (as bits) widened to single precision.
pub fn halves_to_f32(src: &[u16], dst: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if has_f16c() {
        // SAFETY: the CPU has F16C and AVX (checked).
        unsafe { halves_to_f32_f16c(src, dst) };
        return;
    }
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = half_to_f32(s);
    }
}

/// Single-precision samples rounded to half precision (as bits), to nearest even.
pub fn f32_to_halves(src: &[f32], dst: &mut [u16]) {
    #[cfg(target_arch = "x86_64")]
    if has_f16c() {
        // SAFETY: the CPU has F16C and AVX (checked).
        unsafe { f32_to_halves_f16c(src, dst) };
        return;
    }
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = f32_to_half(s);
    }
}

/// Whether the CPU converts halves in hardware (F16C with AVX).
#[cfg(target_arch = "x86_64")]
pub fn has_f16c() -> bool {
    std::is_x86_feature_detected!("f16c") && std::is_x86_feature_detected!("avx")
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn halves_to_f32_f16c(src: &[u16], dst: &mut [f32]) {
    use std::arch::x86_64::*;
    let n = src.len().min(dst.len());
    let mut i = 0;
    while i + 8 <= n {
        let h = _mm_loadu_si128(src.as_ptr().add(i).cast());
        _mm256_storeu_ps(dst.as_mut_ptr().add(i), _mm256_cvtph_ps(h));
        i += 8;
    }
    for k in i..n {
        dst[k] = half_to_f32(src[k]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn f32_to_halves_f16c(src: &[f32], dst: &mut [u16]) {
    use std::arch::x86_64::*;
    let n = src.len().min(dst.len());
    let mut i = 0;
    while i + 8 <= n {
        let v = _mm256_loadu_ps(src.as_ptr().add(i));
        let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v);
        _mm_storeu_si128(dst.as_mut_ptr().add(i).cast(), h);
        i += 8;
    }
    for k in i..n {
        dst[k] = f32_to_half(src[k]);
    }
}

/// Whether the AVX2 + FMA builds of the kernels may run here.
#[inline]
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the AVX-512 builds of the kernels may run here.
///
/// `VSVK_NO_AVX512=1` (read once, at the first call) makes this false on a CPU that has AVX-512,
/// so that the AVX2 builds, which CPUs without AVX-512 run, can be tested and timed on one that
/// has it.
pub fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static AVX512: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *AVX512.get_or_init(|| {
            let off = std::env::var_os("VSVK_NO_AVX512").is_some_and(|v| v == "1");
            !off && has_avx2()
                && std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512bw")
                && std::is_x86_feature_detected!("avx512vl")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Defines `$name`, which runs `$impl` (an `#[inline(always)]` function) compiled for AVX2 + FMA
/// when the CPU has them and for the baseline otherwise. Results are the same either way (the
/// kernels only use operations whose results do not depend on the instruction set).
#[macro_export]
macro_rules! multiversion {
    ($vis:vis fn $name:ident => $impl:ident ($($a:ident : $t:ty),* $(,)?) $(-> $ret:ty)?) => {
        // The variants are never inlined into their callers: a kernel is compiled once per
        // instruction set, not once per call site (inlined, the fused kernels multiplied the
        // library's code by the number of places that call them).
        $vis fn $name($($a: $t),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
                #[inline(never)]
                unsafe fn fast512($($a: $t),*) $(-> $ret)? {
                    $impl($($a),*)
                }
                if $crate::simd::has_avx512() {
                    // SAFETY: the CPU supports AVX-512 F/BW/VL (checked just above).
                    return unsafe { fast512($($a),*) };
                }
                #[target_feature(enable = "avx2,fma")]
                #[inline(never)]
                unsafe fn fast($($a: $t),*) $(-> $ret)? {
                    $impl($($a),*)
                }
                if $crate::simd::has_avx2() {
                    // SAFETY: the CPU supports AVX2 and FMA (checked just above).
                    return unsafe { fast($($a),*) };
                }
            }
            $impl($($a),*)
        }
    };
}
