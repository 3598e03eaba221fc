//! vk's resizers (Point, Bilinear, Bicubic, Lanczos, Spline16/36/64; plugins/vk/src/resize.rs)
//! against R81's `resize` namespace (zimg), on lavapipe, run on our core and on R81 (which loads
//! the plugin like any other):
//! * integer formats: every sample and frame property identical, over up- and downscaling, one
//!   direction only, source windows and shifts, chroma siting from arguments and from frames,
//!   kernel parameters, every subsampling;
//! * float formats: every sample within a stated bound. zimg's vector code sums each output
//!   sample's taps in its own order (and with fused multiply-adds); the plugin sums them in tap
//!   order with one rounding per operation, so results differ in the last bits: up to a few
//!   ulps of 1.0 for single precision, and for half precision (zimg keeps half samples between
//!   the two passes, as the plugin does) a changed rounding to half moves a sample by one half
//!   ulp, which the second pass can double;
//! * bad arguments and frames the plugin does not handle fail with a message naming the problem.
//!
//! Needs `scripts/setup.sh`, our core and the plugin built in release mode.

mod common;

use std::path::Path;

use common::{core_name, our_core, reference_core};
use vsvk_tests::reference;
use vsvk_tests::vk::{self, float_samples};

/// One run of `steps` over 2 noise frames of `format` at `w` x `h` (seed 5), samples dumped to `dump` if given.
fn drive(core: &Path, format: &str, (w, h): (u32, u32), steps: &str, dump: Option<&Path>) -> Result<String, String> {
    vk::drive(core, format, (w, h), 2, 5, steps, dump).map_err(|e| format!("{} {steps} ({format}): {e}", core_name(core)))
}

/// `pre` then `resize.<call>` on R81, and `pre` then `vk.<call>` and a download.
fn chains(pre: &str, call: &str) -> (String, String) {
    let pre = if pre.is_empty() { String::new() } else { format!("{pre},") };
    (format!("{pre}resize.{call}"), format!("{pre}vk.{call},std.GPUDownload"))
}

/// vk on both cores gives R81's resize fingerprint.
fn identical(format: &str, size: (u32, u32), pre: &str, call: &str) {
    let (r, v) = chains(pre, call);
    let want = drive(&reference_core(), format, size, &r, None).unwrap_or_else(|e| panic!("{e}"));
    for core in [our_core(), reference_core()] {
        let got = drive(&core, format, size, &v, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got, want, "{} {v} on {format} {size:?}: vk against R81's resize", core_name(&core));
    }
}

/// Calls that exercise the taps: scaling both ways, one direction, windows, shifts, parameters.
const CALLS: [&str; 14] = [
    "Bicubic:width=80:height=64",
    "Bicubic:width=40:height=28:filter_param_a=0.333:filter_param_b=0.333",
    "Spline36:width=36:height=20",
    "Lanczos:width=32:height=48",
    "Lanczos:width=72:height=40:filter_param_a=5.0",
    "Bilinear:width=64:height=24",
    "Spline64:width=52:height=36:src_left=1.3:src_top=-0.7",
    "Spline16:width=64:height=48:src_left=0.25",
    "Bicubic:width=32:height=24:src_left=3.5:src_top=2.25:src_width=40.5:src_height=30.0",
    "Point:width=20:height=12",
    "Point:width=100:height=88",
    "Bilinear:width=128:height=96:src_width=4.0:src_height=4.0",
    "Lanczos:width=64:height=48:src_left=1000000.0",
    "Spline36:width=60",
];

#[test]
fn integer_formats_identical_to_resize() {
    for format in ["Gray8", "YUV420P8", "YUV420P10", "YUV422P16", "YUV444P12", "RGB24"] {
        for call in CALLS {
            identical(format, (64, 48), "", call);
        }
    }
    // odd sizes where the format allows, and the other subsamplings
    identical("Gray16", (45, 29), "", "Spline36:width=81:height=17");
    identical("RGB48", (45, 29), "", "Bicubic:width=30:height=60");
    identical("YUV410P8", (64, 48), "", "Spline36:width=40:height=28");
    identical("YUV411P8", (64, 48), "", "Lanczos:width=88:height=30:src_left=0.6");
    identical("YUV440P8", (64, 48), "", "Bicubic:width=40:height=60");
}

#[test]
fn chroma_siting_and_colour_properties_as_resize() {
    for format in ["YUV420P8", "YUV422P10", "YUV410P8"] {
        for loc in 0..6 {
            identical(format, (64, 48), "", &format!("Spline36:width=40:height=28:chromaloc_in={loc}"));
            identical(format, (64, 48), &format!("std.SetFrameProps:_ChromaLocation={loc}"), "Bicubic:width=80:height=56");
        }
        identical(format, (64, 48), "", "Spline36:width=40:height=28:chromaloc_in=2:chromaloc=5");
        identical(format, (64, 48), "std.SetFrameProps:_ChromaLocation=3", "Bilinear:width=40:height=28:chromaloc=0");
    }
    // properties: _Range kept (or taken from the pre-4.2 _ColorRange), colour descriptions kept
    // unless unspecified, _ChromaLocation dropped where there is no subsampling
    identical("YUV420P8", (64, 48), "std.SetFrameProps:_Range=1:_Matrix=1:_Transfer=1:_Primaries=1", "Bicubic:width=40:height=30");
    identical("YUV420P8", (64, 48), "std.SetFrameProps:_ColorRange=0:_Matrix=2", "Bicubic:width=40:height=30");
    identical("YUV444P8", (64, 48), "std.SetFrameProps:_ChromaLocation=2:_Matrix=5", "Bicubic:width=40:height=30");
    identical("RGB24", (64, 48), "std.SetFrameProps:_Matrix=2:_Range=0", "Spline16:width=40:height=30");
    identical("YUV444P8", (64, 48), "std.SetFrameProps:_Matrix=0", "Spline16:width=40:height=30");
    identical("Gray8", (64, 48), "std.SetFrameProps:_Range=1", "Spline16:width=40:height=30");
}

#[test]
fn float_formats_within_bound() {
    // single: 8 ulps of 1.0; half: 2 ulps of 1.0 (the largest seen on lavapipe is half that)
    const SINGLE: f64 = 8.0 * f32::EPSILON as f64;
    const HALF: f64 = 2.0 / 1024.0;
    let dir = reference::target_dir().join("vsvk-vk-resize");
    std::fs::create_dir_all(&dir).expect("cannot create the dump folder");
    let mut worst_seen = [0f64; 2];
    for format in ["GrayS", "YUV420PS", "RGBS", "YUV444PH", "YUV420PH"] {
        let half = format.ends_with('H');
        for call in CALLS {
            let (r, v) = chains("", call);
            let want_file = dir.join(format!("r81-{}", std::process::id()));
            drive(&reference_core(), format, (64, 48), &r, Some(&want_file)).unwrap_or_else(|e| panic!("{e}"));
            let want: Vec<f64> = float_samples(&want_file, half).into_iter().map(f64::from).collect();
            for core in [our_core(), reference_core()] {
                let got_file = dir.join(format!("vk-{}", std::process::id()));
                drive(&core, format, (64, 48), &v, Some(&got_file)).unwrap_or_else(|e| panic!("{e}"));
                let got: Vec<f64> = float_samples(&got_file, half).into_iter().map(f64::from).collect();
                assert_eq!(got.len(), want.len(), "{} {v} on {format}: sample count", core_name(&core));
                let worst = got.iter().zip(&want).map(|(a, b)| if a == b { 0.0 } else { (a - b).abs() }).fold(0.0, f64::max);
                let bound = if half { HALF } else { SINGLE };
                assert!(worst <= bound, "{} {v} on {format}: differs from R81's resize by {worst} (bound {bound})", core_name(&core));
                worst_seen[half as usize] = worst_seen[half as usize].max(worst);
            }
        }
    }
    eprintln!("largest difference from R81's resize: single {:e}, half {:e}", worst_seen[0], worst_seen[1]);
}

/// vk fails on both cores with a message containing `want`.
fn fails(format: &str, pre: &str, call: &str, want: &str) {
    let (_, v) = chains(pre, call);
    for core in [our_core(), reference_core()] {
        let got = drive(&core, format, (64, 48), &v, None).expect_err("vk must fail");
        assert!(got.contains(want), "{} {v} on {format}: {got:?} does not say {want:?}", core_name(&core));
    }
}

#[test]
fn bad_arguments_and_frames_fail_clearly() {
    fails("YUV420P8", "", "Bicubic:width=41:height=30", "vk.Bicubic: Bicubic: image dimensions must be divisible by subsampling factor");
    fails("YUV420P8", "", "Bicubic:width=40:height=30:format=1", "keep the clip's format (YUV420P8); use resize.Bicubic to convert formats");
    fails("YUV420P8", "", "Spline36:width=0", "width and height must be positive");
    fails("Gray8", "", "Lanczos:width=40:filter_param_a=16.0", "lanczos tap count too high");
    fails("Gray8", "", "Bilinear:width=40:src_width=0.0", "active window must be positive");
    fails("Gray8", "", "Bilinear:width=40:src_height=-3.0", "active window must be positive");
    fails("YUV420P8", "", "Bilinear:width=40:chromaloc_in=7", "chromaloc_in: unrecognized chroma location 7");
    fails("YUV420P8", "std.SetFrameProps:_ChromaLocation=9", "Bilinear:width=40", "unrecognized chroma location 9");
    fails("YUV420P8", "std.SetFieldBased:value=1", "Point:width=40", "interlaced frames (_FieldBased) and single fields (_Field) are not supported; resize.Point handles them");
    fails("YUV420P8", "std.SetFrameProps:_Range=3", "Point:width=40", "bad _Range value: 3");
    fails("RGB24", "std.SetFrameProps:_Matrix=1", "Point:width=40", "RGB color family cannot have YUV matrix coefficients");
}
