//! The vk plugin (plugins/vk, GPU-native std filters) against std on the reference core (R81),
//! on lavapipe: `vk.X` on our core (and on R81, which loads the plugin like any other) must give
//! `std.X` on R81's output. Integer formats must be identical (the fingerprint covers every
//! sample and property); float formats are identical too except where a filter calls a GPU
//! transcendental (`pow`, `exp`, `log`, ...), whose precision Vulkan bounds only loosely: there
//! the largest difference is measured from dumps of both outputs and held to a stated bound.
//!
//! Needs `scripts/setup.sh`, our core and the plugin built in release mode (`cargo build
//! --release`; the plugin is target/release/libvsvk_vk.so, or $VSVK_VK_PLUGIN).

mod common;

use std::path::Path;

use common::{core_name, our_core, reference_core};
use vsvk_tests::reference;
use vsvk_tests::vk::{both, drive as drive_sized, drive3 as drive, exact, float_samples as samples};

/// vk against std on a float format: the largest difference of any sample, which must be at
/// most `bound`; returned so the caller can say what it was.
fn close(format: &str, steps: &str, bound: f32) -> f32 {
    let (s, v) = both(steps);
    let dir = reference::target_dir().join("vsvk-vk-dumps");
    std::fs::create_dir_all(&dir).expect("dump folder");
    let tag = format!("{}-{}", std::process::id(), steps.len() ^ format.len() << 8);
    let want_path = dir.join(format!("std-{tag}"));
    drive(&reference_core(), format, &s, Some(&want_path)).unwrap_or_else(|e| panic!("{e}"));
    let half = format.ends_with('H');
    let want = samples(&want_path, half);
    let mut worst = 0f32;
    for core in [our_core(), reference_core()] {
        let got_path = dir.join(format!("vk-{tag}"));
        drive(&core, format, &v, Some(&got_path)).unwrap_or_else(|e| panic!("{e}"));
        let got = samples(&got_path, half);
        assert_eq!(got.len(), want.len(), "{v} on {format}: sample counts");
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            let d = (a - b).abs();
            assert!(d <= bound && a.is_nan() == b.is_nan(), "{} {v} on {format}: sample {i} is {a}, std gives {b} (bound {bound})", core_name(&core));
            worst = worst.max(d);
        }
        let _ = std::fs::remove_file(&got_path);
    }
    let _ = std::fs::remove_file(&want_path);
    worst
}

const INT: [&str; 5] = ["Gray8", "YUV420P10", "YUV422P8", "YUV444P16", "RGB24"];
const FLOAT: [&str; 4] = ["GrayS", "YUV444PH", "YUV420PS", "RGBS"];

/// Filters whose float results are std's exactly as well.
const POINTWISE: [&str; 14] = [
    "NS.Invert",
    "NS.Invert:planes=0:planes=2",
    "NS.InvertMask",
    "NS.Limiter:min=20.0:max=200.0",
    "NS.Limiter",
    "NS.Binarize",
    "NS.Binarize:threshold=60.0:v0=10.0:v1=90.0:planes=1",
    "NS.BinarizeMask",
    "NS.Levels:min_in=16.0:max_in=235.0:min_out=10.0:max_out=240.0",
    "NS.FlipVertical,NS.Merge:@:clipa=$0:clipb=$1:weight=0.3",
    "NS.FlipVertical,NS.Merge:@:clipa=$0:clipb=$1:weight=0.0:weight=1.0:weight=0.7",
    "NS.FlipVertical,NS.MakeDiff:@:clipa=$0:clipb=$1",
    "NS.FlipVertical,NS.MergeDiff:@:clipa=$0:clipb=$1:planes=0",
    "NS.FlipVertical,NS.FlipHorizontal,NS.MaskedMerge:@:clipa=$0:clipb=$1:mask=$2",
];

#[test]
fn pointwise_integer_formats_identical() {
    for f in INT {
        for s in POINTWISE {
            if f.starts_with("Gray") && s.contains("weight=0.0:") {
                continue; // more weights than planes: an error on both
            }
            exact(f, s);
        }
    }
}

#[test]
fn pointwise_float_formats() {
    for f in FLOAT {
        for s in POINTWISE {
            let s = s.replace("min=20.0:max=200.0", "min=0.1:max=0.8").replace("threshold=60.0:v0=10.0:v1=90.0", "threshold=0.3:v0=0.1:v1=0.9");
            let s = s.replace("min_in=16.0:max_in=235.0:min_out=10.0:max_out=240.0", "min_in=0.1:max_in=0.9:min_out=0.05:max_out=0.95");
            if f.starts_with("Gray") && s.contains("weight=0.0:") {
                continue;
            }
            if fused(&s) {
                let d = close(f, &s, fma_bound(f));
                eprintln!("{s} on {f}: largest difference {d:e}");
            } else {
                exact(f, &s);
            }
        }
        // pow on the GPU: within a few units in the last place of a value in [0, 1]
        let d = close(f, "NS.Levels:gamma=1.7:min_in=0.1:max_in=0.9", 2e-6);
        eprintln!("Levels gamma=1.7 on {f}: largest difference {d:e}");
    }
}

/// Filters where std computes `a * b + c` with one rounding (a fused multiply-add). GLSL's `fma`
/// is only required to be as precise as a multiply followed by an add, and lavapipe does exactly
/// that (two roundings; NVIDIA fuses): the result may then differ from std's in the last place.
/// MaskedMerge emulates the fused operation exactly (its float results are std's).
fn fused(steps: &str) -> bool {
    steps.contains("NS.Merge:") || steps.contains("Levels:min_in=0.1:max_in=0.9:min_out")
}

/// One unit in the last place of a sample in [-1, 2]: 2^-22 in single precision, 2^-9 in half.
fn fma_bound(format: &str) -> f32 {
    if format.ends_with('H') {
        1.0 / 512.0
    } else {
        1.0 / 4_194_304.0
    }
}

fn lut_args(key: &str, n: usize, f: impl Fn(usize) -> String) -> String {
    (0..n).map(|i| format!(":{key}={}", f(i))).collect()
}

#[test]
fn luts() {
    exact("Gray8", &format!("NS.Lut{}", lut_args("lut", 256, |i| ((i * 7 + 3) % 256).to_string())));
    exact("YUV420P10", &format!("NS.Lut:planes=1{}", lut_args("lut", 1024, |i| ((i * 13) % 1024).to_string())));
    exact("YUV420P8", &format!("NS.Lut:bits=16{}", lut_args("lut", 256, |i| (i * 200).to_string())));
    exact("Gray8", &format!("NS.Lut:floatout=1{}", lut_args("lutf", 256, |i| format!("{:.3}", i as f32 / 3.0))));
}

/// A table of `n` pseudo-random entries below `top` (floats in [0, 1) with 6 decimals if
/// `float`), written to a file under the target folder for the driver's `key=<FILE`: Lut2's
/// smallest table (8 + 8 bits, 65536 entries) does not fit in one command line argument.
fn table_file(name: &str, n: usize, top: u64, float: bool, seed: u64) -> String {
    let dir = reference::target_dir().join("vsvk-vk-tables");
    std::fs::create_dir_all(&dir).expect("table folder");
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut text = String::with_capacity(n * 8);
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if float {
            text += &format!("{:.6} ", (x >> 11) as f64 / (1u64 << 53) as f64);
        } else {
            text += &format!("{} ", (x >> 11) % top);
        }
    }
    let path = dir.join(format!("{name}-{}.txt", std::process::id()));
    std::fs::write(&path, text).expect("table file");
    let path = path.to_str().expect("utf-8 path").to_string();
    assert!(!path.contains([',', ':']), "{path}: the driver splits chains at ',' and ':'");
    path
}

#[test]
fn lut2() {
    let t88 = table_file("lut2-8-8", 1 << 16, 256, false, 1);
    // clipb: the source flipped, or another depth of it through std.Lut (on the CPU for both)
    let flipped = "std.FlipVertical,NS.Lut2:@:clipa=$0:clipb=$1";
    exact("YUV420P8", &format!("{flipped}:lut=<{t88}"));
    exact("RGB24", &format!("{flipped}:lut=<{t88}"));
    exact("YUV444P8", &format!("{flipped}:lut=<{t88}:planes=0:planes=2"));
    exact("Gray8", &format!("{flipped}:lut=<{t88}:planes=0"));
    // 8 + 10 bits -> 10 bits
    let to10 = table_file("lut-8-to-10", 256, 1024, false, 2);
    let t810 = table_file("lut2-8-10", 1 << 18, 1024, false, 3);
    exact("YUV420P8", &format!("std.Lut:bits=10:lut=<{to10},NS.Lut2:@:clipa=$0:clipb=$1:bits=10:lut=<{t810}"));
    // 10 + 8 bits -> 16 bits
    let to8 = table_file("lut-10-to-8", 1024, 256, false, 4);
    let t108 = table_file("lut2-10-8", 1 << 18, 65536, false, 5);
    exact("YUV422P10", &format!("std.Lut:bits=8:lut=<{to8},NS.Lut2:@:clipa=$0:clipb=$1:bits=16:lut=<{t108}"));
    // 8 + 8 bits -> float
    let tf = table_file("lut2-8-8-float", 1 << 16, 0, true, 6);
    exact("YUV420P8", &format!("{flipped}:floatout=1:lutf=<{tf}"));
    // the comparison sees the table: another one must not match std's output
    let other = table_file("lut2-8-8-other", 1 << 16, 256, false, 7);
    let (s, _) = both(&format!("{flipped}:lut=<{t88}"));
    let (_, v) = both(&format!("{flipped}:lut=<{other}"));
    let want = drive(&reference_core(), "YUV420P8", &s, None).unwrap_or_else(|e| panic!("{e}"));
    let got = drive(&our_core(), "YUV420P8", &v, None).unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(got, want, "vk.Lut2 with another table gave std's output");
    for f in [t88, to10, t810, to8, t108, tf, other] {
        let _ = std::fs::remove_file(f);
    }
}

/// `exact` at frame size `size` (subsamplings that `vk::size` does not fit).
fn exact_at(format: &str, size: (u32, u32), steps: &str) {
    let (s, v) = both(steps);
    let run = |core: &Path, steps: &str| drive_sized(core, format, size, 3, 11, steps, None).unwrap_or_else(|e| panic!("{} {steps} ({format}): {e}", core_name(core)));
    let want = run(&reference_core(), &s);
    for core in [our_core(), reference_core()] {
        assert_eq!(run(&core, &v), want, "{} {v} on {format}: vk against R81's std", core_name(&core));
    }
}

const MASKED: &str = "NS.FlipVertical,NS.FlipHorizontal,NS.MaskedMerge:@:clipa=$0:clipb=$1:mask=$2";

/// Every subsampling std takes, at frame sizes that fit it (odd chroma sizes where allowed).
const SUBSAMPLED: [(&str, (u32, u32)); 9] = [
    ("YUV420P8", (46, 30)),
    ("YUV422P10", (46, 29)),
    ("YUV420P16", (46, 30)),
    ("YUV411P8", (48, 29)),
    ("YUV410P8", (44, 28)),
    ("YUV440P8", (45, 30)),
    ("YUV420PS", (46, 30)),
    ("YUV420PH", (46, 30)),
    ("824181250", (44, 28)), // YUV410PS, which has no preset name
];

/// One mask plane on subsampled chroma: R81 resamples the luma mask to the chroma size as
/// resize.Bilinear does, sited by the frames' _ChromaLocation (learned from R81's output).
#[test]
fn masked_merge_one_mask_plane_on_subsampled_chroma() {
    for (f, size) in SUBSAMPLED {
        exact_at(f, size, &format!("{MASKED}:first_plane=1"));
        exact_at(f, size, &format!("{MASKED}:first_plane=1:premultiplied=1:planes=1:planes=2"));
    }
    // a Gray mask is a single plane too
    exact_at("YUV420P10", (46, 30), "NS.FlipVertical,NS.FlipHorizontal,std.ShufflePlanes:@clips:planes=0:colorfamily=1,NS.MaskedMerge:@:clipa=$0:clipb=$1:mask=$3");
    // every chroma location, and locations that change from frame to frame
    for loc in 0..6 {
        let steps = format!("std.SetFrameProps:_ChromaLocation={loc},NS.FlipVertical,NS.FlipHorizontal,NS.MaskedMerge:@:clipa=$1:clipb=$2:mask=$3:first_plane=1");
        exact_at("YUV420P10", (46, 30), &steps);
        if loc % 3 != 0 {
            exact_at("YUV410P8", (44, 28), &steps);
            exact_at("YUV420PH", (46, 30), &steps);
        }
    }
    exact_at(
        "YUV420P16",
        (46, 30),
        "std.SetFrameProps:_ChromaLocation=2,std.SetFrameProps:@:clip=$0:_ChromaLocation=5,std.Interleave:@:clips=$0:clips=$1:clips=$2,NS.FlipVertical,NS.FlipHorizontal,NS.MaskedMerge:@:clipa=$3:clipb=$4:mask=$5:first_plane=1",
    );
}

/// premultiplied: clipa's distance from black (limited or full range, from each frame's
/// _Range) or from grey (chroma) scaled by 1 - mask, plus clipb.
#[test]
fn masked_merge_premultiplied() {
    for f in INT.iter().chain(&FLOAT).chain(&["Gray16", "YUV420P12", "RGB48", "YUV420PH"]) {
        exact(f, &format!("{MASKED}:premultiplied=1"));
    }
    exact("YUV444P10", &format!("{MASKED}:premultiplied=1:planes=0:planes=2"));
    // full range YUV, limited range RGB, and the range changing from frame to frame
    exact("YUV420P8", "std.SetFrameProps:_Range=1,NS.FlipVertical,NS.FlipHorizontal,NS.MaskedMerge:@:clipa=$1:clipb=$2:mask=$3:premultiplied=1");
    exact("RGB24", "std.SetFrameProps:_Range=0,NS.FlipVertical,NS.FlipHorizontal,NS.MaskedMerge:@:clipa=$1:clipb=$2:mask=$3:premultiplied=1");
    exact("YUV444P16", "std.SetFrameProps:_Range=1,std.Interleave:@:clips=$0:clips=$1,NS.FlipVertical,NS.FlipHorizontal,NS.MaskedMerge:@:clipa=$2:clipb=$3:mask=$4:premultiplied=1");
}

/// Frames that disagree: std fails the frame, and so must vk, with std's words.
#[test]
fn masked_merge_frame_errors() {
    for (steps, msg) in [
        ("std.SetFrameProps:_ChromaLocation=3,NS.FlipVertical:@:clip=$0,NS.FlipHorizontal,NS.MaskedMerge:@:clipa=$1:clipb=$2:mask=$3:first_plane=1", "clipa and clipb have different chroma locations (_ChromaLocation 3 vs 0)"),
        ("std.SetFrameProps:_ChromaLocation=3,NS.FlipVertical:@:clip=$0,NS.FlipHorizontal,NS.MaskedMerge:@:clipa=$1:clipb=$2:mask=$3", "clipa and clipb have different chroma locations (_ChromaLocation 3 vs 0)"),
        ("std.SetFrameProps:_Range=1,NS.FlipVertical:@:clip=$0,NS.FlipHorizontal,NS.MaskedMerge:@:clipa=$1:clipb=$2:mask=$3:premultiplied=1", "Input frames must have the same range"),
    ] {
        let (s, v) = both(steps);
        let e = drive(&reference_core(), "YUV420P8", &s, None).expect_err("std must fail");
        assert!(e.contains(msg), "R81 {s}: {e}");
        for core in [our_core(), reference_core()] {
            let e = drive(&core, "YUV420P8", &v, None).expect_err("vk must fail");
            assert!(e.contains(msg), "{} {v}: {e}", core_name(&core));
        }
    }
    // on 4:4:4 the chroma location does not matter, and float clips have no range to check
    exact("YUV444P8", "std.SetFrameProps:_ChromaLocation=3,NS.FlipVertical:@:clip=$0,NS.FlipHorizontal,NS.MaskedMerge:@:clipa=$1:clipb=$2:mask=$3:first_plane=1");
    exact("YUV444PS", "std.SetFrameProps:_Range=1,NS.FlipVertical:@:clip=$0,NS.FlipHorizontal,NS.MaskedMerge:@:clipa=$1:clipb=$2:mask=$3:premultiplied=1");
}

const GEOMETRY: [&str; 10] = [
    "NS.Crop:left=4:right=2:top=2:bottom=4",
    "NS.AddBorders:left=2:right=4:top=6:bottom=2",
    "NS.FlipVertical",
    "NS.FlipHorizontal",
    "NS.Turn180",
    "NS.Transpose",
    "NS.FlipVertical,NS.StackHorizontal:@:clips=$0:clips=$1:clips=$0",
    "NS.FlipVertical,NS.StackVertical:@:clips=$1:clips=$0",
    "NS.ShufflePlanes:@clips:planes=0:colorfamily=1",
    "NS.FlipVertical,NS.ShufflePlanes:@:clips=$0:clips=$1:planes=0:planes=0:planes=0:colorfamily=2",
];

#[test]
fn geometry_every_format_identical() {
    for f in INT.iter().chain(&FLOAT) {
        for s in GEOMETRY {
            exact(f, s);
        }
    }
    exact("YUV444P8", "NS.AddBorders:left=3:right=1:color=10.0:color=20.0:color=30.0");
    exact("YUV444PS", "NS.AddBorders:top=3:color=0.5:color=-0.25:color=0.125");
    exact("YUV444PH", "NS.AddBorders:bottom=1:color=0.3:color=0.1:color=-0.1");
    exact("YUV420P8", "NS.Invert,NS.ShufflePlanes:@:clips=$1:clips=$0:planes=0:planes=1:planes=2:colorfamily=3:prop_src=$0");
}

#[test]
fn errors_name_the_filter_and_the_problem() {
    for (steps, msg) in [
        ("vk.Crop:left=50", "Crop: negative/zero cropping dimensions not allowed"),
        ("vk.Limiter:min=300.0", "Limiter: min out of range"),
        ("vk.Invert:planes=3", "Invert: plane index out of range"),
        ("vk.Lut:lut=1", "Lut: bad lut length. Expected 256 elements, got 1 instead"),
        ("vk.Merge:@:clipa=$0:clipb=$0:weight=2.0", "Merge: weights must be between 0 and 1"),
    ] {
        for core in [our_core(), reference_core()] {
            let e = drive(&core, "Gray8", steps, None).expect_err("must fail");
            assert!(e.contains(msg), "{} {steps}: {e}", core_name(&core));
        }
    }
}

const NEIGHBOUR: [&str; 9] = [
    "NS.Minimum",
    "NS.Maximum:planes=0",
    "NS.Minimum:coordinates=1:coordinates=0:coordinates=1:coordinates=0:coordinates=0:coordinates=1:coordinates=0:coordinates=1",
    "NS.Maximum:threshold=3.0",
    "NS.Median",
    "NS.Inflate",
    "NS.Deflate",
    "NS.Inflate:threshold=2.0",
    "NS.Deflate:threshold=5.0:planes=1:planes=2",
];

#[test]
fn neighbourhood_every_format_identical() {
    for f in INT.iter().chain(&FLOAT) {
        for s in NEIGHBOUR {
            let s = if f.starts_with("Gray") { s.replace(":planes=1:planes=2", "") } else { s.to_string() };
            let s = if FLOAT.contains(f) { s.replace("threshold=3.0", "threshold=0.01").replace("threshold=2.0", "threshold=0.02").replace("threshold=5.0", "threshold=0.05") } else { s };
            exact(f, &s);
        }
    }
}

#[test]
fn plane_stats_integer_identical() {
    // the properties are part of the fingerprint
    for f in INT {
        exact(f, "NS.PlaneStats:@clipa");
        exact(f, "NS.FlipVertical,NS.PlaneStats:@:clipa=$0:clipb=$1:plane=0:prop='PS");
    }
    exact("YUV420P10", "NS.FlipHorizontal,NS.PlaneStats:@:clipa=$0:clipb=$1:plane=2");
}
