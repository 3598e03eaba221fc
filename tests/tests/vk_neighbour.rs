//! vk.Convolution, vk.BoxBlur, vk.Sobel and vk.Prewitt (plugins/vk) against std on the reference
//! core (R81), on lavapipe: `vk.X` on our core and on R81 (which loads the plugin like any other)
//! must give R81's `std.X` fingerprint for fingerprint (every sample and property), on integer
//! and float formats alike, with R81's default code (its SIMD build's float order); and bad
//! arguments must fail with std's message.
//!
//! The float results are identical because the plugin rounds where R81 does: its fused
//! multiply-adds are emulated exactly in single precision (GLSL's `fma` need not be fused) and
//! its square roots correctly rounded (GLSL's `sqrt` need not be), so no bound is needed.
//!
//! Needs `scripts/setup.sh`, our core and the plugin built in release mode (`cargo build
//! --release`; the plugin is target/release/libvsvk_vk.so, or $VSVK_VK_PLUGIN).

mod common;

use std::path::Path;

use common::{core_name, our_core, reference_core};
use vsvk_tests::vk::{self, both, size};

/// One driver run on a `w` x `h` noise clip (2 frames, seed 7): the result line up to the
/// thread count, or the error line.
fn drive(core: &Path, format: &str, size: (u32, u32), steps: &str) -> Result<String, String> {
    vk::drive(core, format, size, 2, 7, steps, None)
}

/// vk on our core and on R81 against std on R81, fingerprint for fingerprint, at `size`.
fn exact_at(format: &str, size: (u32, u32), steps: &str) {
    let (s, v) = both(steps);
    let want = drive(&reference_core(), format, size, &s).unwrap_or_else(|e| panic!("R81 {s} ({format}): {e}"));
    for core in [our_core(), reference_core()] {
        let got = drive(&core, format, size, &v).unwrap_or_else(|e| panic!("{} {v} ({format}): {e}", core_name(&core)));
        assert_eq!(got, want, "{} {v} on {format} {size:?}: vk against R81's std", core_name(&core));
    }
}

fn exact(format: &str, steps: &str) {
    exact_at(format, size(format), steps)
}

/// Both fail, vk (on both cores) with std's message on R81, the filter's name included.
fn same_error(format: &str, size: (u32, u32), steps: &str) {
    let (s, v) = both(steps);
    let want = drive(&reference_core(), format, size, &s).expect_err("std must fail");
    // "error: <message from the core>"; std's and vk's differ only in the namespace, if at all
    let want = want.replace("std.", "vk.");
    for core in [our_core(), reference_core()] {
        let got = drive(&core, format, size, &v).expect_err("vk must fail");
        assert_eq!(got.replace("std.", "vk."), want, "{} {v} on {format}", core_name(&core));
    }
}

const INT: [&str; 6] = ["Gray8", "YUV420P10", "YUV422P8", "YUV444P16", "RGB24", "Gray12"];
const FLOAT: [&str; 3] = ["GrayS", "YUV444PS", "YUV420PH"];

/// `NS.Convolution` with these coefficients and extra arguments.
fn conv(matrix: &[f64], extra: &str) -> String {
    let mut s = String::from("NS.Convolution");
    for m in matrix {
        s.push_str(&format!(":matrix={m:?}"));
    }
    s.push_str(extra);
    s
}

/// Repeatable coefficients in lo..hi with two decimals (integer formats round them).
fn coefficients(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut z = seed;
    (0..n)
        .map(|_| {
            z = z.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let u = (z >> 11) as f64 / (1u64 << 53) as f64;
            ((lo + u * (hi - lo)) * 100.0).round() / 100.0
        })
        .collect()
}

const BINOMIAL: [f64; 9] = [1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0];
const EDGE: [f64; 9] = [1.0, 2.0, 1.0, 0.0, 0.0, 0.0, -1.0, -2.0, -1.0];

/// Square kernels of every size, with and without bias, divisor and saturation.
fn squares() -> Vec<String> {
    let mut v = vec![
        conv(&BINOMIAL, ""),
        conv(&EDGE, ":saturate=0"),
        conv(&EDGE, ":bias=3.5:divisor=-2.0"),
        conv(&[1.4, -2.6, 1.0, -2.0, 3.0, 2.0, -1.0, 2.0, 1.5], ":divisor=7.0:bias=3.3:planes=0"),
    ];
    for (i, n) in [25usize, 49, 81, 121].into_iter().enumerate() {
        let extra = if i % 2 == 0 { ":bias=0.25:divisor=3.5" } else { ":bias=-1.5:saturate=0" };
        v.push(conv(&coefficients(n, 10 + i as u64, -5.0, 9.0), extra));
    }
    v
}

/// One-dimensional kernels in every mode.
fn lines() -> Vec<String> {
    let mut v = Vec::new();
    for (i, n) in [3usize, 5, 7, 9, 11, 13, 21, 25].into_iter().enumerate() {
        let m = coefficients(n, 100 + n as u64, -5.0, 9.0);
        let mode = ["h", "v", "hv", "vh"][i % 4];
        let extra = if i % 3 == 0 { ":bias=-0.5:saturate=0" } else { ":divisor=4.5" };
        v.push(conv(&m, &format!("{extra}:mode='{mode}")));
        v.push(conv(&m, &format!(":mode='{}", ["v", "hv", "h", "h"][i % 4])));
    }
    v
}

fn no_planes_on_gray(format: &str, s: &str) -> Option<String> {
    (!(format.starts_with("Gray") && s.contains("planes=1"))).then(|| s.to_string())
}

#[test]
fn convolution_square_integer() {
    for f in INT {
        for s in squares() {
            exact(f, &s);
        }
    }
    // the largest sums (two 32-bit halves on the GPU) and rounding ties
    exact("YUV444P16", &conv(&[1023.0; 121], ":divisor=123783.0"));
    exact("YUV444P16", &conv(&[1023.0; 9], ":divisor=10088.458450591905"));
    exact("Gray16", &conv(&coefficients(121, 5, -1023.0, 1023.0), ":bias=7.0:saturate=0"));
    exact("Gray8", &conv(&[0.4; 9], ""));
    exact("Gray8", &conv(&[1.0, -2.0, 1.0, -2.0, 3.0, 2.0, -1.0, 2.0, 1.0], ":divisor=2.0:bias=-20.5:saturate=0"));
    exact("YUV420P8", &conv(&BINOMIAL, ":planes=1:planes=2"));
}

#[test]
fn convolution_lines_integer() {
    for f in INT {
        for s in lines() {
            exact(f, &s);
        }
    }
}

#[test]
fn convolution_float() {
    for f in FLOAT {
        for s in squares().into_iter().chain(lines()) {
            exact(f, &s);
        }
        exact(f, &conv(&[0.1, -2.3, 3.0, 2.7, 5.0, 2.0, 1.1, 2.0, 1.0], ":bias=0.3:saturate=0"));
        exact(f, &conv(&[1.0, 1.0, 1.0, 1.0, 1024.0, 1.0, 1.0, 1.0, 1.0], ""));
    }
    // planes narrower than R81's SIMD interior (and 4:2:2 chroma) take its other orders
    for w in [20, 36, 41, 80] {
        for n in [25usize, 49, 81, 121] {
            exact_at("GrayS", (w, 21), &conv(&coefficients(n, n as u64, -3.0, 9.0), ":bias=0.25:divisor=3.5"));
        }
    }
    exact("YUV422PH", &conv(&coefficients(81, 3, -3.0, 9.0), ""));
    exact_at("GrayH", (80, 21), &conv(&coefficients(121, 4, -3.0, 9.0), ":saturate=0"));
}

#[test]
fn sobel_prewitt() {
    for f in INT.iter().chain(&FLOAT) {
        for s in ["NS.Sobel", "NS.Prewitt", "NS.Sobel:scale=0.37", "NS.Prewitt:scale=2.5:planes=0", "NS.Sobel:scale=1.7:planes=1:planes=2"] {
            if let Some(s) = no_planes_on_gray(f, s) {
                exact(f, &s);
            }
        }
    }
    exact("YUV444P16", "NS.Sobel:scale=2.5");
    exact_at("YUV444PS", (4, 4), "NS.Sobel");
}

#[test]
fn boxblur() {
    let cases = [
        "NS.BoxBlur",
        "NS.BoxBlur:hradius=3:hpasses=2:vradius=2:vpasses=3",
        "NS.BoxBlur:hradius=5:vradius=0",
        "NS.BoxBlur:hradius=0:vradius=4:vpasses=3",
        "NS.BoxBlur:hradius=40:vradius=30",
        "NS.BoxBlur:hradius=2:hpasses=0:vradius=3:planes=1:planes=2",
        "NS.BoxBlur:hradius=400:hpasses=2:vradius=1",
        // the largest radius std takes
        "NS.BoxBlur:hradius=30000:vradius=29999:vpasses=2",
    ];
    for f in INT.iter().chain(&FLOAT) {
        for s in cases {
            if let Some(s) = no_planes_on_gray(f, s) {
                exact(f, &s);
            }
        }
    }
    exact_at("Gray16", (4, 6), "NS.BoxBlur:hradius=9:vradius=9:hpasses=3");
}

#[test]
fn errors_are_std_errors() {
    let m9 = conv(&BINOMIAL, "");
    for (format, size, steps) in [
        ("Gray8", (64, 32), format!("{m9}:mode='x")),
        ("Gray8", (64, 32), format!("{m9}:planes=5")),
        ("Gray8", (64, 32), conv(&[1.0; 4], "")),
        ("Gray8", (64, 32), conv(&[1.0; 2], ":mode='h")),
        ("Gray8", (64, 32), conv(&[1.0; 4], ":mode='h")),
        ("Gray8", (64, 32), conv(&[1.0; 27], ":mode='v")),
        ("Gray8", (64, 32), conv(&[1.0, 1.0, 1.0, 1.0, 1023.5, 1.0, 1.0, 1.0, 1.0], "")),
        ("Gray8", (12, 12), conv(&[1.0; 25], ":mode='h")),
        ("Gray8", (30, 12), conv(&[1.0; 25], ":mode='v")),
        ("YUV420P8", (6, 6), m9.clone()),
        ("Gray32", (64, 32), m9.clone()),
        ("Gray8", (64, 32), "NS.Sobel:scale=-1.0".into()),
        ("GrayS", (64, 32), "NS.Prewitt:scale=-0.5".into()),
        ("Gray8", (3, 32), "NS.Sobel".into()),
        ("YUV420P8", (64, 32), "NS.Prewitt:planes=0:planes=0".into()),
        ("Gray8", (64, 32), "NS.BoxBlur:hradius=-1".into()),
        ("Gray8", (64, 32), "NS.BoxBlur:vpasses=-1".into()),
        ("Gray8", (64, 32), "NS.BoxBlur:hradius=0:vradius=0".into()),
        ("Gray8", (3, 4), "NS.BoxBlur".into()),
        ("Gray8", (64, 32), "NS.BoxBlur:planes=3".into()),
        ("Gray8", (64, 32), "NS.BoxBlur:hradius=30001:hpasses=0".into()),
        ("Gray8", (3, 3), "NS.BoxBlur:vradius=40000".into()),
        ("Gray8", (64, 32), "NS.BoxBlur:hradius=40000:hpasses=-1".into()),
    ] {
        same_error(format, size, &steps);
    }
}
