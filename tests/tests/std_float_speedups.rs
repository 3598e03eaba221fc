//! The chunked, streamed and block kernels of std.AverageFrames, std.BoxBlur and std.Transpose /
//! Turn90 / Turn270 against the reference at sizes that are not multiples of their chunks, rings
//! or tiles: one sample, narrower than a chunk, one past a chunk or tile, odd heights, radii wider
//! than the plane. Every chain runs on R81 and on our core through the oracle driver; the
//! fingerprints (every pixel and frame property) must be identical, so float results must come
//! from the same operations in the same order as R81's.
//!
//! Needs `scripts/setup.sh` (the reference) and our core built in release mode. Environment as for
//! tests/tests/oracle.rs (VSVK_REF, VSVK_CORE, VSVK_INCLUDE).

use vsvk_tests::oracle::{check_all, Case};

/// Widths and heights around the chunk (64 samples), tile (16, 8) and ring sizes.
const SIZES: [(u32, u32); 8] = [(1, 1), (3, 2), (7, 5), (17, 33), (63, 9), (65, 7), (131, 19), (200, 66)];
/// BoxBlur takes planes of 4 x 4 and more.
const BLUR_SIZES: [(u32, u32); 8] = [(4, 4), (5, 7), (6, 4), (17, 33), (63, 9), (65, 7), (131, 19), (200, 66)];

/// `sizes` with each dimension doubled where `format` subsamples it, so that every plane keeps the
/// listed size or half of it.
fn cases(formats: &[&str], sizes: &[(u32, u32)], chains: &[String]) -> Vec<Case> {
    let mut out = Vec::new();
    for f in formats {
        let (sw, sh) = if f.contains("420") { (2, 2) } else if f.contains("422") { (2, 1) } else { (1, 1) };
        for &(w, h) in sizes {
            for c in chains {
                out.push(Case::sized(f, w * sw, h * sh, 5, c));
            }
        }
    }
    out
}

fn weights(w: &[f64]) -> String {
    w.iter().map(|x| format!(":weights={x:?}")).collect()
}

#[test]
fn average_frames_odd_sizes() {
    let chains: Vec<String> = vec![
        format!("std.AverageFrames:@clips{}", weights(&[1.0, 2.0, 1.0])),
        format!("std.AverageFrames:@clips{}", weights(&[0.3, 0.7, 0.1])),
        format!("std.AverageFrames:@clips{}:scale=3.3", weights(&[2.5, -1.5, 1.0, 4.0, 0.4])),
        format!("std.AverageFrames:@clips{}", weights(&[1.0])),
        format!("std.Reverse,std.AverageFrames:@clips:clips=$0{}", weights(&[1.0, 3.0])),
        format!("std.AverageFrames:@clips{}:planes=0", weights(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])),
    ];
    check_all(&cases(&["Gray8", "YUV420P8", "Gray16", "YUV444P16", "YUV422P10", "GrayS", "GrayH", "YUV444PS", "YUV444PH"], &SIZES, &chains));
}

#[test]
fn box_blur_odd_sizes() {
    let chains: Vec<String> = [
        "std.BoxBlur:hradius=2:vradius=2",
        "std.BoxBlur:hradius=1:vradius=3",
        "std.BoxBlur:hradius=2:hpasses=2:vradius=1:vpasses=3",
        "std.BoxBlur:hradius=5:hpasses=3:vpasses=0",
        "std.BoxBlur:hpasses=0:vradius=4:vpasses=2",
        "std.BoxBlur:hradius=9:vradius=12",
        "std.BoxBlur:hradius=40:vradius=40:vpasses=2",
        "std.BoxBlur:planes=0:hradius=3:vradius=2",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    check_all(&cases(&["GrayS", "GrayH", "YUV444PS", "YUV420PH", "Gray8", "YUV420P10", "Gray16", "YUV444P16"], &BLUR_SIZES, &chains));
    // 16-bit windows too wide for 32-bit sums: 64-bit prefix sums and double precision running sums
    check_all(&cases(&["Gray16"], &BLUR_SIZES[5..], &["std.BoxBlur:hradius=130:vradius=2".to_string(), "std.BoxBlur:hradius=2:vradius=150:vpasses=2".to_string(), "std.BoxBlur:hradius=130:hpasses=3:vradius=140:vpasses=3".to_string()]));
}

#[test]
fn turns_odd_sizes() {
    let chains: Vec<String> = ["std.Transpose", "std.Turn90", "std.Turn270", "std.Transpose,std.Turn90"].iter().map(|s| s.to_string()).collect();
    check_all(&cases(&["Gray16", "YUV444P16", "YUV420P10", "GrayS", "GrayH", "YUV444PS", "YUV422PH", "Gray8"], &SIZES, &chains));
}
