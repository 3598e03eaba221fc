//! std's neighbourhood filters (Convolution, BoxBlur, Minimum, Maximum, Median, Inflate, Deflate,
//! Sobel, Prewitt) against the reference core (VapourSynth R81), through the oracle's C driver
//! (tests/oracle/driver.c) and noise source (tests/plugins/vsvknoise.c): the fingerprints (every
//! pixel and frame property) must be identical.
//!
//! Float formats are checked twice: with R81's default code (its SIMD kernels) and after
//! `std.SetMaxCPU("none")` (its plain C kernels; the driver's `--maxcpu none`). The two add things
//! up in different orders, so their float results differ in the last bits; ours follow whichever
//! the level selects, and both must match bit for bit. (The plain results are those of R81's
//! build for this machine's CPU, libvapoursynthfilters_zn4.so; a build for another CPU rounds
//! some sums differently.) Half-float results are rounded back to half, and must match too.
//!
//! Needs what tests/tests/oracle.rs needs: `scripts/setup.sh` and our core built in release mode.

use std::path::Path;
use std::sync::OnceLock;

use vsvk_tests::oracle::{self, check_in, compile_wrapped_driver, list, our_core, reference_core, Case};

/// The noise source in one format and size, three frames, then `chain`.
fn case(format: &str, width: u32, height: u32, chain: &str) -> Case {
    Case::sized(format, width, height, 3, chain)
}

/// Integer formats: one run (R81's results do not depend on its CPU level there, except Sobel
/// and Prewitt above 9 bits, which `check_both` covers).
fn check(format: &str, width: u32, height: u32, chain: &str) {
    check_in(&case(format, width, height, chain), &[&[]]);
}

/// Both of R81's orders: its default and `SetMaxCPU("none")`.
fn check_both(format: &str, width: u32, height: u32, chain: &str) {
    check_in(&case(format, width, height, chain), &[&[], &["--maxcpu", "none"]]);
}

/// Both cores fail, with the same message.
fn check_error(format: &str, width: u32, height: u32, chain: &str) {
    oracle::check_error(case(format, width, height, chain));
}

/// The driver with `var=value` set before it starts (read by our core, not by R81), built once
/// per name.
fn driver_with_env(name: &str, var: &str, value: &str, cell: &'static OnceLock<Result<std::path::PathBuf, String>>) -> &'static Path {
    let text = format!("#include <stdlib.h>\n\n__attribute__((constructor)) static void vsvk_env(void) {{\n    setenv(\"{var}\", \"{value}\", 1);\n}}\n\n#include \"driver.c\"\n");
    match cell.get_or_init(|| compile_wrapped_driver(name, &text)) {
        Ok(d) => d,
        Err(e) => panic!("cannot build the C programs: {e}"),
    }
}

/// VSVK_NO_AVX512=1: our core runs the AVX2 builds of its kernels, as on a CPU without AVX-512
/// (the variable is read once, at the first kernel).
fn no_avx512_driver() -> &'static Path {
    static DRIVER: OnceLock<Result<std::path::PathBuf, String>> = OnceLock::new();
    driver_with_env("noavx512driver", "VSVK_NO_AVX512", "1", &DRIVER)
}

/// `check_both` with our AVX2 kernels (`no_avx512_driver`).
fn check_avx2(format: &str, width: u32, height: u32, chain: &str) {
    let case = case(format, width, height, chain).with_driver(no_avx512_driver());
    check_in(&case, &[&[], &["--maxcpu", "none"]]);
}

/// VSVK_STREAM_STORES=1: our core writes every output row with streaming stores, through a row
/// buffer, as it does for large frames on many threads.
fn stream_driver() -> &'static Path {
    static DRIVER: OnceLock<Result<std::path::PathBuf, String>> = OnceLock::new();
    driver_with_env("streamdriver", "VSVK_STREAM_STORES", "1", &DRIVER)
}

/// `std.Convolution` with these coefficients and extra arguments.
fn conv(matrix: &[f64], extra: &str) -> String {
    let mut s = String::from("std.Convolution");
    for m in matrix {
        s.push_str(&format!(":matrix={m:?}"));
    }
    s.push_str(extra);
    s
}

/// Repeatable coefficients in lo..hi with two decimals.
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
const COORDS: &str = ":coordinates=1:coordinates=0:coordinates=1:coordinates=1:coordinates=0:coordinates=0:coordinates=1:coordinates=1";

/// Every format the tests use, with a frame size that fits its subsampling, in order:
/// (name, float, regular size, odd size).
const FORMATS: [(&str, bool, (u32, u32), (u32, u32)); 8] = [
    ("Gray8", false, (320, 240), (333, 97)),
    ("YUV420P8", false, (320, 240), (334, 98)),
    ("YUV422P10", false, (320, 240), (334, 97)),
    ("YUV444P16", false, (320, 240), (333, 97)),
    ("RGB24", false, (320, 240), (333, 97)),
    ("GrayS", true, (320, 240), (333, 97)),
    ("YUV444PS", true, (320, 240), (333, 97)),
    ("YUV420PH", true, (320, 240), (334, 98)),
];

/// `chain` over every format, regular and odd size.
fn all_formats(chain: &str) {
    for (format, float, (w, h), (ow, oh)) in FORMATS {
        if float {
            check_both(format, w, h, chain);
            check_both(format, ow, oh, chain);
        } else {
            check(format, w, h, chain);
            check(format, ow, oh, chain);
        }
    }
}

/// Every function over every format with rows streamed (`stream_driver`): kernels write each
/// row whole before the next, so the buffered rows reach the plane intact.
#[test]
fn streamed_rows() {
    let chains = [
        "std.Minimum".to_string(),
        "std.Maximum".into(),
        "std.Median".into(),
        "std.Inflate".into(),
        "std.Deflate".into(),
        "std.Sobel".into(),
        "std.Prewitt".into(),
        "std.BoxBlur:hradius=2:vradius=3:hpasses=2".into(),
        conv(&BINOMIAL, ""),
        conv(&coefficients(25, 1, -3.0, 9.0), ":bias=2.5:divisor=11.0"),
        conv(&[1.0, 4.0, 6.0, 4.0, 1.0], ":mode='h"),
        conv(&[1.0, -3.0, 6.0, 2.0, 1.0, 0.0, 4.0], ":mode='v"),
        conv(&[1.0, 2.0, 3.0, 2.0, 1.0], ":mode='hv"),
    ];
    for chain in &chains {
        for (format, float, (w, h), (ow, oh)) in FORMATS {
            for (w, h) in [(w, h), (ow, oh)] {
                let c = case(format, w, h, chain).with_driver(stream_driver());
                let paths: &[&[&str]] = if float { &[&[], &["--maxcpu", "none"]] } else { &[&[]] };
                check_in(&c, paths);
            }
        }
    }
}

/// std.BlankClip filling its frames with streaming stores (as for large frames on many threads)
/// gives R81's frames: samples of 1, 2 and 4 bytes, rows on and off the 16-byte grid.
#[test]
fn streamed_blank_frames() {
    // YUV420P8, Gray16 and RGBS
    for (id, color) in [(805830913, ":color=16.0:color=128.0:color=200.0"), (269484032, ":color=1000.0"), (555745280, ":color=0.25:color=-0.125:color=0.5")] {
        for (w, h) in [(322, 240), (98, 30)] {
            let chain = format!("std.BlankClip:@:format={id}:width={w}:height={h}:length=3{color}");
            check_in(&case("YUV420P8", 16, 16, &chain).with_driver(stream_driver()), &[&[]]);
        }
    }
}

macro_rules! every_format {
    ($($name:ident => $chain:expr;)*) => { $( #[test] fn $name() { all_formats(&$chain) } )* };
}

macro_rules! cases {
    ($($name:ident => $body:expr;)*) => { $( #[test] fn $name() { $body } )* };
}

// ---- every function over every format -----------------------------------------------------------------

every_format! {
    minimum => "std.Minimum";
    maximum => "std.Maximum";
    median => "std.Median";
    inflate => "std.Inflate";
    deflate => "std.Deflate";
    sobel => "std.Sobel";
    prewitt => "std.Prewitt";
    boxblur => "std.BoxBlur";
    convolution_3x3 => conv(&BINOMIAL, "");
    convolution_5x5 => conv(&coefficients(25, 1, -3.0, 9.0), ":bias=2.5:divisor=11.0");
    convolution_h => conv(&[1.0, 4.0, 6.0, 4.0, 1.0], ":mode='h");
    convolution_v => conv(&[1.0, -3.0, 6.0, 2.0, 1.0, 0.0, 4.0], ":mode='v");
    convolution_hv => conv(&[1.0, 2.0, 3.0, 2.0, 1.0], ":mode='hv");
}

// ---- options ----------------------------------------------------------------------------------------

cases! {
    // thresholds are rounded half away from zero for integer formats
    minimum_threshold => {
        check("Gray8", 333, 97, "std.Minimum:threshold=4.5");
        check("YUV444P16", 320, 240, "std.Minimum:threshold=700.0");
        check_both("GrayS", 333, 97, "std.Minimum:threshold=0.02");
    };
    maximum_threshold_coordinates => {
        check("Gray8", 333, 97, &format!("std.Maximum:threshold=2.5{COORDS}"));
        check("YUV422P10", 334, 97, &format!("std.Maximum{COORDS}"));
        check_both("YUV444PS", 333, 97, &format!("std.Maximum:threshold=0.01{COORDS}"));
        check_both("YUV420PH", 334, 98, &format!("std.Minimum{COORDS}"));
    };
    coordinates_none => check("YUV420P8", 320, 240, "std.Minimum:coordinates=0:coordinates=0:coordinates=0:coordinates=0:coordinates=0:coordinates=0:coordinates=0:coordinates=0");
    inflate_deflate_threshold => {
        check("Gray8", 333, 97, "std.Inflate:threshold=3.0");
        check("YUV444P16", 333, 97, "std.Deflate:threshold=500.0");
        check_both("GrayS", 333, 97, "std.Inflate:threshold=0.004");
        check_both("YUV420PH", 334, 98, "std.Deflate:threshold=0.004");
    };
    planes => {
        check("YUV420P8", 320, 240, "std.Median:planes=0");
        check("RGB24", 333, 97, "std.Minimum:planes=2:planes=0");
        check("YUV444P16", 320, 240, "std.BoxBlur:planes=1:hradius=3");
        check_both("YUV444PS", 320, 240, &conv(&BINOMIAL, ":planes=1:planes=2"));
        // an index the clip lacks (but below 3) is ignored
        check("Gray8", 320, 240, "std.Sobel:planes=0:planes=2");
    };
    sobel_prewitt_scale => {
        check("Gray8", 333, 97, "std.Sobel:scale=0.37");
        check("YUV420P8", 320, 240, "std.Prewitt:scale=2.5");
        // above 9 bits R81's two builds round the magnitude differently
        check_both("YUV444P16", 333, 97, "std.Sobel:scale=2.5");
        check_both("YUV422P10", 334, 97, "std.Prewitt:scale=0.5");
        check_both("GrayS", 333, 97, "std.Sobel:scale=0.7");
        check_both("YUV420PH", 334, 98, "std.Prewitt:scale=1.7");
    };
    sobel_prewitt_8bit_widths_scales => {
        // the 8-bit rows go 16 or 32 samples at a time with an overlapping last block
        for w in [4, 17, 18, 19, 33, 34, 35, 66, 97] {
            check("Gray8", w, 9, "std.Sobel");
            check("Gray8", w, 9, "std.Prewitt");
        }
        for scale in ["0.0", "1.0", "0.5", "3.0", "100000.0"] {
            check("Gray8", 130, 33, &format!("std.Sobel:scale={scale}"));
            check("Gray8", 130, 33, &format!("std.Prewitt:scale={scale}"));
        }
    };
    sobel_prewitt_16bit_widths_scales => {
        // 9- to 16-bit rows go 16 samples at a time with an overlapping last block where the CPU
        // has AVX-512 (both of R81's paths: its plain C code fuses the sum of squares above 9 bits)
        for f in ["Gray16", "YUV444P10"] {
            for w in [4, 17, 18, 19, 33, 34, 35, 66, 97] {
                check_both(f, w, 9, "std.Sobel");
                check_both(f, w, 9, "std.Prewitt");
            }
        }
        for scale in ["0.0", "1.0", "0.5", "3.0", "100000.0"] {
            check_both("Gray16", 130, 33, &format!("std.Sobel:scale={scale}"));
            check_both("YUV444P12", 130, 33, &format!("std.Prewitt:scale={scale}"));
        }
    };
    boxblur_options => {
        for chain in [
            "std.BoxBlur:hradius=3:hpasses=2:vradius=2:vpasses=3",
            "std.BoxBlur:hradius=5:vradius=0",
            "std.BoxBlur:hradius=0:vradius=4:vpasses=3",
            "std.BoxBlur:hradius=40:vradius=30",
            "std.BoxBlur:hradius=400:hpasses=2:vradius=1",
        ] {
            check("Gray8", 333, 97, chain);
            check("YUV444P16", 333, 97, chain);
            check_both("GrayS", 333, 97, chain);
            check_both("YUV420PH", 334, 98, chain);
        }
    };
    convolution_rounding => {
        // ties go to even; coefficients round half away from zero; bias, divisor and saturate
        check("Gray8", 333, 97, &conv(&[1.4, -2.6, 1.0, -2.0, 3.0, 2.0, -1.0, 2.0, 1.5], ":divisor=7.0:bias=3.3"));
        check("Gray8", 333, 97, &conv(&[1.0, -2.0, 1.0, -2.0, 3.0, 2.0, -1.0, 2.0, 1.0], ":divisor=2.0:bias=-20.5:saturate=0"));
        check("YUV420P8", 320, 240, &conv(&EDGE, ":saturate=0"));
        // 16-bit sums exact in single precision go two taps at a time, 32 samples per block
        for w in [33, 34, 35, 66, 333] {
            check("Gray16", w, 7, &conv(&EDGE, ":saturate=0:bias=-3.5"));
            check("Gray16", w, 7, &conv(&[1.0; 9], ""));
            check("Gray10", w, 7, &conv(&[-5.0, 2.0, 7.0, 2.0, -9.0, 1.0, 3.0, 2.0, 1.0], ":saturate=0:divisor=3.0"));
            check("Gray16", w, 7, &conv(&[1.0, -3.0, 6.0, 2.0, 1.0], ":mode='h:saturate=0"));
        }
        check("YUV444P16", 333, 97, &conv(&[1023.0; 9], ":divisor=10088.458450591905"));
        check("YUV444P16", 333, 97, &conv(&[1023.0; 121], ":divisor=123783.0"));
        check("Gray8", 333, 97, &conv(&[2.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -0.5], ":divisor=-3.0"));
        check("Gray8", 320, 240, &conv(&[0.4; 9], ""));
        // the integer finishes of 8-bit kernels: a rounded multiply (box, divisor 9), a rounded
        // shift (binomial, divisor 16), on odd sizes and in both 4:2:0 chroma and luma
        check("Gray8", 333, 97, &conv(&[1.0; 9], ""));
        check("YUV420P8", 334, 98, &conv(&[1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0], ""));
        check("Gray8", 333, 97, &conv(&[1.0; 25], ":bias=2.0"));
    };
    convolution_float_options => {
        check_both("GrayS", 333, 97, &conv(&EDGE, ":saturate=0:bias=0.1"));
        check_both("GrayS", 333, 97, &conv(&EDGE, ":divisor=-2.0"));
        check_both("YUV444PS", 333, 97, &conv(&[0.1, -2.3, 3.0, 2.7, 5.0, 2.0, 1.1, 2.0, 1.0], ":bias=0.3:saturate=0"));
        check_both("GrayS", 320, 240, &conv(&[1.0, 1.0, 1.0, 1.0, -8.0, 1.0, 1.0, 1.0, 1.0], ""));
        // the 3x3 float rows are read in place with only the edge columns mirrored
        for w in [4, 5, 17, 33, 34, 35, 50, 66] {
            check_both("GrayS", w, 5, &conv(&[0.1, -2.3, 3.0, 2.7, 5.0, 2.0, 1.1, 2.0, 1.0], ":bias=0.3"));
            check_both("YUV444PH", w, 5, &conv(&[0.1, -2.3, 3.0, 2.7, 5.0, 2.0, 1.1, 2.0, 1.0], ":saturate=0"));
        }
    };
    convolution_avx2 => {
        // the AVX2 kernels that stand in for the AVX-512 ones: float and half 3x3 rows of 16
        // samples (two vectors) with an overlapping last block, half rows converted as the kernel
        // first reads them; 16-bit sums exact in f32 16 samples a block (two taps per vpmaddwd),
        // 8 at a time below that; widths around each block size, the plain code below 18
        let float3 = conv(&[0.1, -2.3, 3.0, 2.7, 5.0, 2.0, 1.1, 2.0, 1.0], ":bias=0.3");
        let float3_abs = conv(&[0.1, -2.3, 3.0, 2.7, 5.0, 2.0, 1.1, 2.0, 1.0], ":saturate=0:divisor=-1.5");
        for w in [4, 5, 9, 10, 11, 16, 17, 18, 19, 20, 25, 33, 34, 35, 36, 50, 66, 333] {
            check_avx2("GrayS", w, 7, &float3);
            check_avx2("GrayH", w, 7, &float3_abs);
            check_avx2("YUV444PH", w, 5, &conv(&BINOMIAL, ":bias=0.1"));
            check_avx2("Gray16", w, 7, &conv(&EDGE, ":saturate=0:bias=-3.5"));
            check_avx2("Gray16", w, 7, &conv(&[1.0; 9], ""));
            check_avx2("Gray10", w, 7, &conv(&[-5.0, 2.0, 7.0, 2.0, -9.0, 1.0, 3.0, 2.0, 1.0], ":saturate=0:divisor=3.0"));
            check_avx2("Gray16", w, 7, &conv(&[1.0, -3.0, 6.0, 2.0, 1.0], ":mode='h:saturate=0"));
            check_avx2("Gray16", w, 7, &conv(&[1.0, -3.0, 6.0, 2.0, 1.0, 4.0, 1.0], ":mode='v:divisor=5.0"));
        }
        // whole frames: 4:2:0 (chroma half as wide and high), heights down to R81's smallest
        check_avx2("YUV420PH", 334, 98, &conv(&BINOMIAL, ""));
        check_avx2("YUV420PS", 334, 98, &float3);
        check_avx2("YUV420P16", 334, 98, &conv(&BINOMIAL, ":bias=1.5"));
        check_avx2("YUV444P16", 333, 97, &conv(&[1023.0; 9], ":divisor=10088.458450591905"));
        for h in [4, 5, 6] {
            check_avx2("GrayH", 70, h, &float3);
            check_avx2("GrayS", 70, h, &float3);
        }
    };
    convolution_half_rows => {
        // half 3x3 through the AVX-512 kernels, the row below converted as the kernel reads it:
        // around the block sizes and the smallest heights
        let chain = conv(&[0.1, -2.3, 3.0, 2.7, 5.0, 2.0, 1.1, 2.0, 1.0], ":bias=-0.2");
        for w in [18, 19, 31, 32, 33, 34, 35, 36, 63, 64, 65, 66, 67, 333] {
            check_both("GrayH", w, 7, &chain);
        }
        for h in [4, 5, 6] {
            check_both("GrayH", 70, h, &chain);
        }
        check_both("YUV420PH", 1920, 64, &conv(&BINOMIAL, ":saturate=0:bias=-2.0"));
    };
    half_rows => {
        // half planes are converted a row at a time into a ring of three: the smallest heights
        // (the clamped rows share a slot with the middle one) and a plane taller than the ring
        for h in [4, 5, 6, 7, 40] {
            for f in ["std.Minimum", "std.Maximum:threshold=0.1", "std.Median", "std.Inflate", "std.Deflate", "std.Sobel", "std.Prewitt:scale=0.7"] {
                check_both("GrayH", 37, h, f);
            }
        }
    };
    convolution_square_rows => {
        // square float kernels of 5x5 and up: the interior read in place, 4 vectors a block (one
        // at a time below that) with an overlapping last block, the r edge columns on each side
        // from mirrored copies; interiors around each block size of the AVX-512 and AVX2 kernels
        for (i, n) in [5usize, 7, 11].into_iter().enumerate() {
            let r = n / 2;
            let chain = conv(&coefficients(n * n, 40 + i as u64, -5.0, 9.0), ":bias=0.25:divisor=-3.5:saturate=0");
            let inner = if n == 5 { vec![32, 33, 47, 63, 64, 65, 66, 97, 128, 131] } else { vec![32, 64, 65] };
            for w in inner {
                check_both("GrayS", (w + 2 * r) as u32, 13, &chain);
                check_avx2("GrayS", (w + 2 * r) as u32, 13, &chain);
            }
        }
        check_avx2("YUV420PS", 334, 98, &conv(&coefficients(25, 1, -3.0, 9.0), ":bias=2.5:divisor=11.0"));
        // the same for integer sums of 16-bit samples (exact in single precision: pairs of taps
        // per vpmaddwd, blocks of 128 samples with AVX-512, 64 with AVX2); the edge columns come
        // from a block over a short mirrored row
        for (i, n) in [5usize, 7, 11].into_iter().enumerate() {
            let r = n / 2;
            let m: Vec<f64> = coefficients(n * n, 50 + i as u64, -9.0, 9.0).iter().map(|v| v.round()).collect();
            let inner = if n == 5 { vec![32, 33, 63, 64, 65, 127, 128, 129, 131, 200] } else { vec![32, 64, 129] };
            for w in inner {
                let w = (w + 2 * r) as u32;
                check("Gray16", w, 13, &conv(&m, ":bias=-1.5:divisor=7.0:saturate=0"));
                check_avx2("Gray16", w, 13, &conv(&m, ":bias=-1.5:divisor=7.0:saturate=0"));
                check_avx2("Gray10", w, 13, &conv(&m, ":bias=3.0"));
            }
        }
        // 8-bit samples whose sums fit 16 bits, coefficients in i8: two taps a vpmaddubsw, even
        // and odd outputs apart, blocks of 64 (AVX-512) or 32 (AVX2) outputs
        for (i, n) in [5usize, 7, 9, 11].into_iter().enumerate() {
            let r = n / 2;
            // sums within 16 bits: |coefficients| adding up to at most 128 on each side
            let m: Vec<f64> = coefficients(n * n, 60 + i as u64, -2.0, 2.0).iter().map(|v| v.round()).collect();
            let inner = if n == 5 { vec![32, 33, 63, 64, 65, 95, 127, 128, 129, 200] } else { vec![32, 64, 65, 129] };
            for w in inner {
                let w = (w + 2 * r) as u32;
                check("Gray8", w, 13, &conv(&m, ":bias=-1.5:divisor=3.0:saturate=0"));
                check_avx2("Gray8", w, 13, &conv(&m, ":bias=2.0"));
            }
        }
        // the largest coefficients i8 holds, and one beyond (another path)
        let edge8: Vec<f64> = (0..25).map(|k| match k { 0 => 127.0, 24 => -128.0, _ => 0.0 }).collect();
        check("Gray8", 200, 13, &conv(&edge8, ":saturate=0"));
        check("Gray8", 200, 13, &conv(&edge8, ":divisor=1.0:bias=128.0"));
        let over: Vec<f64> = (0..25).map(|k| match k { 12 => 128.0, _ => 0.0 }).collect();
        check("Gray8", 200, 13, &conv(&over, ":divisor=100.0"));
        check_avx2("YUV420P8", 334, 98, &conv(&coefficients(25, 1, -3.0, 9.0).iter().map(|v| v.round()).collect::<Vec<_>>(), ":bias=2.5:divisor=11.0"));
        // coefficients at R81's limit, on 10 bits (sums still exact in single precision)
        let big: Vec<f64> = (0..25).map(|k| if k < 15 { 1023.0 * if k % 2 == 0 { -1.0 } else { 1.0 } } else { 100.0 - k as f64 }).collect();
        check("YUV444P10", 333, 97, &conv(&big, ":saturate=0"));
        check_avx2("YUV420P16", 334, 98, &conv(&coefficients(25, 1, -3.0, 9.0), ":bias=2.5:divisor=11.0"));
    };
    convolution_sizes => {
        for (i, n) in [9usize, 25, 49, 81, 121].into_iter().enumerate() {
            let m = coefficients(n, 10 + i as u64, -5.0, 9.0);
            let chain = conv(&m, ":bias=0.25:divisor=3.5");
            check("Gray8", 333, 37, &chain);
            check("YUV444P16", 333, 37, &chain);
            check_both("GrayS", 333, 37, &chain);
            check_both("GrayH", 333, 37, &chain);
            // narrow planes take R81's other code paths
            for w in [20, 36, 41] {
                check_both("GrayS", w, 29, &chain);
            }
        }
    };
    convolution_lengths => {
        for n in (3..=25).step_by(2) {
            let m = coefficients(n, 100 + n as u64, -5.0, 9.0);
            for mode in ["h", "v", "hv"] {
                let chain = conv(&m, &format!(":bias=-0.5:saturate=0:mode='{mode}"));
                check("YUV420P8", 320, 240, &chain);
                check_both("GrayS", 100, 37, &chain);
            }
            check_both("GrayS", 29, 29, &conv(&m, ":mode='h"));
            check_both("YUV420PH", 334, 98, &conv(&m, ":mode='hv"));
        }
    };
    // the SIMD horizontal kernels of 3 to 9 taps read the interior in place and copy only the edge
    // columns: planes about as wide as the kernel, where the edges meet or the interior is short
    convolution_h_narrow => {
        for n in [3usize, 5, 7, 9] {
            let m = coefficients(n, 7 + n as u64, -5.0, 9.0);
            for w in [n.max(4), n + 2, 2 * n - 1, 2 * n + 3] {
                check_both("GrayS", w as u32, 5, &conv(&m, ":mode='h:saturate=0"));
                check_both("GrayS", w as u32, 5, &conv(&m, ":mode='h:bias=0.5:divisor=3.0"));
            }
        }
    };
    small_planes => {
        // 4x4 is the smallest R81 takes; kernels wider than the plane mirror more than once
        check("Gray8", 4, 4, &conv(&coefficients(121, 3, 1.0, 9.0), ":divisor=1000.0"));
        check_both("GrayS", 5, 4, &conv(&coefficients(121, 4, -2.0, 9.0), ""));
        check("YUV420P8", 8, 8, "std.Median");
        check_both("YUV444PS", 4, 4, "std.Sobel");
        check("Gray16", 4, 6, "std.BoxBlur:hradius=9:vradius=9:hpasses=3");
        check("YUV420P8", 6, 6, "std.Inflate:planes=0");
    };
    more_depths => {
        for format in ["Gray9", "Gray12", "YUV444P14", "RGB30", "RGB48"] {
            check(format, 333, 97, "std.Median,std.Sobel");
            check(format, 333, 97, &conv(&BINOMIAL, ":bias=1.5"));
            check(format, 333, 97, "std.BoxBlur:hradius=2:hpasses=2:vradius=3");
        }
        check_both("RGBH", 333, 97, "std.Inflate,std.Maximum");
        check_both("RGBS", 333, 97, "std.Deflate,std.Prewitt");
    };
    chains => {
        check("YUV420P8", 320, 240, "std.Minimum,std.Maximum,std.Median,std.Inflate,std.Deflate,std.BoxBlur");
        check_both("YUV444PS", 320, 240, "std.Sobel,std.BoxBlur:hradius=2,std.Convolution:matrix=1.0:matrix=2.0:matrix=1.0:mode='v");
    };
    // the std_* cases of oracle.rs that only need these filters
    oracle_std_cases => {
        check("YUV420P8", 320, 240, &conv(&BINOMIAL, ""));
        check("YUV420P16", 320, 240, "std.Minimum,std.Maximum");
        check("YUV420P8", 320, 240, "std.Median,std.Inflate,std.Deflate");
        check("GrayS", 320, 240, "std.BoxBlur:hradius=2:vradius=3");
    };
}

// ---- errors -------------------------------------------------------------------------------------------

cases! {
    error_formats => {
        for chain in ["std.Minimum", "std.Median", "std.Inflate", "std.Sobel", "std.Prewitt", "std.BoxBlur", "std.Convolution:matrix=1.0:matrix=1.0:matrix=1.0"] {
            check_error("Gray32", 64, 32, chain);
            check_error("Gray8", 64, 32, &format!("std.BlankClip:@:varformat=1,{chain}"));
        }
    };
    error_planes => {
        for f in ["std.Maximum", "std.Median", "std.Deflate", "std.Prewitt", "std.BoxBlur"] {
            check_error("YUV420P8", 64, 32, &format!("{f}:planes=3"));
            check_error("Gray8", 64, 32, &format!("{f}:planes=-1"));
            check_error("YUV420P8", 64, 32, &format!("{f}:planes=0:planes=0"));
        }
        check_error("Gray8", 64, 32, &conv(&BINOMIAL, ":planes=5"));
        // the planes argument is checked before the others
        check_error("Gray8", 64, 32, "std.Minimum:planes=5:threshold=-1.0");
        check_error("Gray8", 64, 32, "std.BoxBlur:planes=5:hradius=-1");
    };
    error_thresholds => {
        for f in ["std.Minimum", "std.Maximum", "std.Inflate", "std.Deflate"] {
            check_error("Gray8", 64, 32, &format!("{f}:threshold=-1.0"));
            check_error("Gray8", 64, 32, &format!("{f}:threshold=255.5"));
            check_error("Gray16", 64, 32, &format!("{f}:threshold=65535.6"));
            check_error("GrayS", 64, 32, &format!("{f}:threshold=-0.1"));
        }
        check_error("Gray8", 64, 32, "std.Minimum:threshold=-1.0:coordinates=1");
    };
    error_coordinates => {
        check_error("Gray8", 64, 32, "std.Minimum:coordinates=1");
        check_error("Gray8", 64, 32, "std.Maximum:coordinates=1:coordinates=1:coordinates=1:coordinates=1:coordinates=1:coordinates=1:coordinates=1:coordinates=1:coordinates=1");
    };
    error_sizes => {
        for f in ["std.Minimum", "std.Median", "std.Inflate", "std.Sobel", "std.Convolution:matrix=1.0:matrix=1.0:matrix=1.0:mode='h"] {
            check_error("Gray8", 3, 32, f);
            check_error("Gray8", 32, 3, f);
            check_error("YUV420P8", 6, 6, f);
        }
        check_error("Gray8", 3, 4, "std.BoxBlur");
        check_error("Gray8", 3, 4, "std.BoxBlur:planes=1");
        check_error("Gray8", 64, 32, "std.BlankClip:@:varsize=1,std.BoxBlur");
        check_error("Gray8", 12, 12, &conv(&[1.0; 25], ":mode='h"));
        check_error("Gray8", 30, 12, &conv(&[1.0; 25], ":mode='v"));
        check_error("Gray8", 4, 30, &conv(&[1.0; 9], ":mode='hv"));
        check_error("YUV420P8", 8, 40, &conv(&[1.0; 9], ":mode='h"));
    };
    error_convolution => {
        check_error("Gray8", 64, 32, &conv(&BINOMIAL, ":mode='x"));
        check_error("Gray8", 64, 32, &conv(&BINOMIAL, ":mode='"));
        check_error("Gray8", 64, 32, &conv(&BINOMIAL, ":mode='sq"));
        check_error("Gray8", 64, 32, &conv(&[1.0; 4], ""));
        check_error("Gray8", 64, 32, &conv(&[1.0; 4], ":mode='x"));
        check_error("Gray8", 64, 32, &conv(&[1.0; 2], ":mode='h"));
        check_error("Gray8", 64, 32, &conv(&[1.0; 27], ":mode='v"));
        check_error("Gray8", 64, 32, &conv(&[1.0; 4], ":mode='h"));
        check_error("Gray8", 64, 32, &conv(&[1.0; 26], ":mode='hv"));
        check_error("Gray8", 64, 32, &conv(&[1.0, 1.0, 1.0, 1.0, 1023.5, 1.0, 1.0, 1.0, 1.0], ""));
        check_error("YUV444P16", 64, 32, &conv(&[1.0, 1.0, 1.0, 1.0, -1023.5, 1.0, 1.0, 1.0, 1.0], ""));
        check_error("Gray8", 64, 32, &conv(&[2000.0, 1.0, 1.0, 1.0], ":mode='h"));
        // float formats take any coefficient
        check_both("GrayS", 64, 32, &conv(&[1.0, 1.0, 1.0, 1.0, 1024.0, 1.0, 1.0, 1.0, 1.0], ""));
    };
    error_sobel => {
        check_error("Gray8", 64, 32, "std.Sobel:scale=-1.0");
        check_error("GrayS", 64, 32, "std.Prewitt:scale=-0.5");
        check_error("Gray8", 3, 32, "std.Sobel:scale=-1.0");
    };
    error_boxblur => {
        check_error("Gray8", 64, 32, "std.BoxBlur:hradius=-1");
        check_error("Gray8", 64, 32, "std.BoxBlur:vradius=-1");
        check_error("Gray8", 64, 32, "std.BoxBlur:hpasses=-1");
        check_error("Gray8", 64, 32, "std.BoxBlur:vpasses=-1");
        check_error("Gray8", 64, 32, "std.BoxBlur:hradius=0:vradius=0");
        check_error("Gray8", 64, 32, "std.BoxBlur:hpasses=0:vpasses=0");
        check_error("Gray8", 64, 32, "std.BoxBlur:hradius=2:hpasses=0:vradius=0");
        check_error("Gray8", 3, 32, "std.BoxBlur:hradius=0:vradius=0");
        check_error("Gray8", 64, 32, "std.BoxBlur:hradius=30001");
        check_error("Gray8", 64, 32, "std.BoxBlur:vradius=40000:hradius=0");
    };
}

/// The argument lists are R81's, character for character.
#[test]
fn signatures() {
    let list = |core: &std::path::Path| -> Vec<String> {
        list(core, "std")
            .lines()
            .filter(|l| {
                ["Convolution(", "BoxBlur(", "Minimum(", "Maximum(", "Median(", "Inflate(", "Deflate(", "Sobel(", "Prewitt("]
                    .iter()
                    .any(|f| l.starts_with(&format!("std.{f}")))
            })
            .map(|l| l.to_string())
            .collect()
    };
    let want = list(&reference_core());
    assert_eq!(want.len(), 9, "R81 lists {want:?}");
    let mut got = list(&our_core());
    let mut want = want;
    got.sort();
    want.sort();
    assert_eq!(got, want);
}
