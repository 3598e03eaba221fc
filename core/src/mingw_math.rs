//! Correct fused multiply-adds for the mingw-w64 build. Rust lowers `mul_add` on a CPU baseline
//! without FMA to calls of the C library's `fmaf` and `fma`, which glibc computes exactly (one
//! rounding, as the instruction would) but mingw-w64's runtime does not: its results differ in the
//! last bit, and with them Levels' tables, Expr's fused products and every other `mul_add` that
//! the Linux build and R81 agree on. Defined here, these take precedence over the runtime's archive
//! members for every object of vsvk.dll (zimg's C++ too); the libm crate gives the exact results.
//! (The symbols are exported from the DLL as a side effect of being unmangled; nothing uses that.)

#[no_mangle]
extern "C" fn fmaf(x: f32, y: f32, z: f32) -> f32 {
    libm::fmaf(x, y, z)
}

#[no_mangle]
extern "C" fn fma(x: f64, y: f64, z: f64) -> f64 {
    libm::fma(x, y, z)
}
