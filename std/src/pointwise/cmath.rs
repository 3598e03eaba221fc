//! The C library's float functions, the ones R81's results come from: R81 calls the platform's C
//! library for Levels' gamma and Expr's exp, log, sin, cos and pow, and these functions differ in
//! their last bit between C libraries. Elsewhere Rust's f32 methods are those very calls (glibc's,
//! as R81's on Linux); on Windows they would be mingw-w64's own, while R81 calls the Universal CRT
//! (api-ms-win-crt-math, i.e. ucrtbase.dll), so there the same functions are taken from ucrtbase.

#[cfg(not(windows))]
mod os {
    #[inline]
    pub fn powf(x: f32, y: f32) -> f32 {
        x.powf(y)
    }
    #[inline]
    pub fn expf(x: f32) -> f32 {
        x.exp()
    }
    #[inline]
    pub fn logf(x: f32) -> f32 {
        x.ln()
    }
    #[inline]
    pub fn sinf(x: f32) -> f32 {
        x.sin()
    }
    #[inline]
    pub fn cosf(x: f32) -> f32 {
        x.cos()
    }
}

#[cfg(windows)]
mod os {
    use std::sync::OnceLock;

    type Unary = unsafe extern "C" fn(f32) -> f32;
    type Binary = unsafe extern "C" fn(f32, f32) -> f32;

    struct Ucrt {
        powf: Binary,
        expf: Unary,
        logf: Unary,
        sinf: Unary,
        cosf: Unary,
        /// Keeps the functions loaded.
        _lib: libloading::Library,
    }

    fn ucrt() -> &'static Ucrt {
        static UCRT: OnceLock<Ucrt> = OnceLock::new();
        UCRT.get_or_init(|| {
            // ucrtbase.dll is part of Windows from 10 on (and of the VC++ runtime before), as R81
            // requires it too; a Windows without it cannot run R81 either.
            // SAFETY: loading the C runtime runs no code of ours; its initialisers are the system's.
            let lib = unsafe { libloading::Library::new("ucrtbase.dll") }
                .unwrap_or_else(|e| fatal(&format!("cannot load ucrtbase.dll (the Universal C Runtime): {e}")));
            // SAFETY: the C library's documented signatures (float in, float out).
            unsafe {
                let get = |name: &[u8]| -> *const () {
                    *lib.get::<*const ()>(name)
                        .unwrap_or_else(|e| fatal(&format!("ucrtbase.dll lacks {}: {e}", String::from_utf8_lossy(name))))
                };
                Ucrt {
                    powf: std::mem::transmute::<*const (), Binary>(get(b"powf\0")),
                    expf: std::mem::transmute::<*const (), Unary>(get(b"expf\0")),
                    logf: std::mem::transmute::<*const (), Unary>(get(b"logf\0")),
                    sinf: std::mem::transmute::<*const (), Unary>(get(b"sinf\0")),
                    cosf: std::mem::transmute::<*const (), Unary>(get(b"cosf\0")),
                    _lib: lib,
                }
            }
        })
    }

    /// Without the C library R81's results cannot be had: stop, as the core does on a broken
    /// installation, rather than give other numbers.
    fn fatal(msg: &str) -> ! {
        eprintln!("vsvk: {msg}");
        std::process::abort()
    }

    pub fn powf(x: f32, y: f32) -> f32 {
        // SAFETY: a pure C function on two floats.
        unsafe { (ucrt().powf)(x, y) }
    }
    pub fn expf(x: f32) -> f32 {
        // SAFETY: a pure C function on a float.
        unsafe { (ucrt().expf)(x) }
    }
    pub fn logf(x: f32) -> f32 {
        // SAFETY: a pure C function on a float.
        unsafe { (ucrt().logf)(x) }
    }
    pub fn sinf(x: f32) -> f32 {
        // SAFETY: a pure C function on a float.
        unsafe { (ucrt().sinf)(x) }
    }
    pub fn cosf(x: f32) -> f32 {
        // SAFETY: a pure C function on a float.
        unsafe { (ucrt().cosf)(x) }
    }
}

pub use os::*;
