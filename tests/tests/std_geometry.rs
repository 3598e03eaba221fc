//! The geometry functions of `std` against the reference: Crop, CropAbs, CropRel, AddBorders,
//! FlipVertical, FlipHorizontal, Turn180, Turn90, Turn270, Transpose, StackHorizontal, StackVertical,
//! ShufflePlanes and SplitPlanes. Every chain runs on R81 and on our core through the oracle driver
//! (tests/oracle/driver.c) over the vsvknoise source; the fingerprints (every pixel and frame property,
//! the clip's length, rate and format) or the error lines must be identical.
//!
//! Needs `scripts/setup.sh` (the reference) and our core built in release mode. Environment as for
//! tests/tests/oracle.rs (VSVK_REF, VSVK_CORE, VSVK_INCLUDE).

use vsvk_tests::oracle::{check_all, check_errors, check_modes, reference_core, run, Case};

/// The noise source at the size most cases use.
fn video(format: &str, chain: &str) -> Case {
    Case::sized(format, 64, 48, 6, chain)
}
/// The formats every function is tried on.
const FORMATS: [&str; 7] = ["Gray8", "YUV420P8", "YUV422P10", "YUV444P16", "RGB24", "GrayS", "YUV420PH"];
/// More subsamplings and sample types.
const MORE_FORMATS: [&str; 7] = ["YUV410P8", "YUV411P8", "YUV440P8", "Gray16", "RGBH", "YUV444PS", "Gray32"];

fn over_formats(formats: &[&str], chains: &[&str]) -> Vec<Case> {
    formats.iter().flat_map(|f| chains.iter().map(move |c| video(f, c))).collect()
}

// pfGray16, pfYUV444P8 and pfGray8 as numbers, for BlankClip's format argument.
const GRAY16: &str = "269484032";
const YUV444P8: &str = "805830656";
const GRAY8: &str = "268959744";

// ---- Crop, CropAbs, CropRel ------------------------------------------------------------------------------

#[test]
fn crop() {
    let chains = [
        "std.Crop:left=4:right=8:top=4:bottom=12",
        "std.Crop:left=4",
        "std.Crop:bottom=4",
        "std.CropRel:left=8:right=4:top=12:bottom=4",
        "std.CropAbs:width=16:height=12:left=8:top=4",
        "std.CropAbs:width=16:height=12:x=8:y=4",
        "std.CropAbs:width=16:height=12:x=4:left=8:y=8:top=4",
        "std.CropAbs:width=64:height=48",
        "std.Crop",
        "std.Crop:left=4,std.Crop:right=4,std.Crop:top=4",
    ];
    let mut cases = over_formats(&FORMATS, &chains);
    cases.extend(over_formats(&MORE_FORMATS, &chains[..5]));
    // odd sizes and odd crops where the format allows them
    for f in ["Gray8", "RGB24", "YUV444P16", "GrayS"] {
        cases.push(Case::sized(f, 333, 97, 3, "std.Crop:left=3:right=5:top=1:bottom=7"));
        cases.push(Case::sized(f, 333, 97, 3, "std.CropAbs:width=1:height=1:left=332:top=96"));
    }
    cases.push(Case::sized("YUV422P10", 66, 37, 3, "std.Crop:left=2:top=3:bottom=1"));
    cases.push(Case::sized("YUV440P8", 37, 66, 3, "std.Crop:left=3:top=2:bottom=2"));
    check_all(&cases);
}

#[test]
fn crop_variable_clips() {
    check_all(&[
        // CropAbs takes clips of variable size and format and makes them constant in size
        video("YUV420P8", "std.BlankClip:varsize=1,std.CropAbs:width=10:height=10"),
        video("YUV420P8", "std.BlankClip:varformat=1,std.CropAbs:width=10:height=10:left=2"),
        video("YUV420P8", "std.BlankClip:varformat=1:varsize=1,std.CropAbs:width=10:height=10"),
        video("YUV420P8", "std.BlankClip:varformat=1:varsize=1,std.CropAbs:width=10:height=10,std.FlipVertical"),
    ]);
}

#[test]
fn crop_errors() {
    let v = |c: &str| video("YUV420P8", c);
    check_errors(&[
        v("std.Crop:left=-5"),
        v("std.Crop:left=-4"),
        v("std.Crop:left=1"),
        v("std.Crop:top=1"),
        v("std.Crop:right=3"),
        v("std.Crop:bottom=3"),
        v("std.Crop:left=1:top=1"),
        v("std.Crop:right=1:bottom=1"),
        v("std.Crop:left=1:bottom=1"),
        v("std.Crop:top=1:bottom=2"),
        v("std.Crop:left=64"),
        v("std.Crop:left=400"),
        v("std.Crop:left=40:right=40"),
        v("std.Crop:left=80:top=1"),
        v("std.Crop:top=-2"),
        v("std.CropRel:left=3"),
        v("std.CropAbs:width=10"),
        v("std.CropAbs:width=0:height=10"),
        v("std.CropAbs:width=10:height=0"),
        v("std.CropAbs:width=-2:height=10:left=-2"),
        v("std.CropAbs:width=0:height=0:left=1"),
        v("std.CropAbs:width=11:height=10"),
        v("std.CropAbs:width=10:height=11"),
        v("std.CropAbs:width=11:height=11:top=1:left=1"),
        v("std.CropAbs:width=11:height=10:left=-2"),
        v("std.CropAbs:width=10:height=10:left=-2:top=1"),
        v("std.CropAbs:width=10:height=10:x=-2"),
        v("std.CropAbs:width=10:height=10:x=3"),
        v("std.CropAbs:width=66:height=48"),
        v("std.CropAbs:width=60:height=10:left=6"),
        v("std.CropAbs:width=30:height=60:left=2:top=-2"),
        video("YUV410P8", "std.Crop:left=2"),
        video("YUV410P8", "std.Crop:top=2"),
        video("YUV422P10", "std.Crop:left=1"),
        // variable clips: Crop wants constant ones; CropAbs checks what it can when created and
        // the rest per frame
        v("std.BlankClip:varformat=1,std.Crop:left=2"),
        v("std.BlankClip:varsize=1,std.Crop:left=2"),
        v("std.BlankClip:varsize=1,std.CropAbs:width=10:height=10:left=1"),
        v("std.BlankClip:varsize=1:width=10:height=10,std.CropAbs:width=10:height=10:left=2"),
        v("std.BlankClip:varformat=1,std.CropAbs:width=11:height=10"),
        v("std.BlankClip:varformat=1,std.CropAbs:width=200:height=10"),
        v("std.BlankClip:varformat=1:varsize=1,std.CropAbs:width=11:height=10:left=1"),
        v("std.BlankClip:varformat=1:varsize=1,std.CropAbs:width=-2:height=10"),
        v("std.BlankClip:varformat=1:varsize=1,std.CropAbs:width=2:height=10:left=-2"),
    ]);
}

// ---- AddBorders ----------------------------------------------------------------------------------------

#[test]
fn add_borders() {
    let chains = [
        "std.AddBorders:left=4:right=8:top=4:bottom=12",
        "std.AddBorders:left=4",
        "std.AddBorders:bottom=4",
        "std.AddBorders",
    ];
    let mut cases = over_formats(&FORMATS, &chains);
    cases.extend(over_formats(&MORE_FORMATS, &chains[..1]));
    // colours: rounding, the extremes, float and half values
    for (f, colors) in [
        ("YUV420P8", ":color=1.5:color=2.5:color=255.4"),
        ("YUV420P8", ":color=0.0:color=0.0:color=0.0"),
        ("YUV422P10", ":color=1023.0:color=512.0:color=0.49"),
        ("YUV444P16", ":color=65535.0:color=1.0:color=2.0"),
        ("RGB24", ":color=255.0:color=128.0:color=3.0"),
        ("Gray8", ":color=200.0"),
        ("GrayS", ":color=0.1"),
        ("GrayS", ":color=-1000.0"),
        ("GrayS", ":color=3.4e+38"),
        ("YUV420PH", ":color=0.1:color=-0.3:color=0.7"),
        ("YUV420PH", ":color=65519.0:color=-65505.0:color=0.0001"),
    ] {
        cases.push(video(f, &format!("std.AddBorders:left=2:right=4:top=2:bottom=2{colors}")));
    }
    for f in ["Gray8", "RGB24", "YUV444P16", "GrayS"] {
        cases.push(Case::sized(f, 333, 97, 3, "std.AddBorders:left=3:right=5:top=1:bottom=7"));
    }
    // variable size: each frame grows by the borders
    cases.push(video("YUV420P8", "std.BlankClip:varsize=1,std.AddBorders:left=2:top=4"));
    check_all(&cases);
}

#[test]
fn add_borders_errors() {
    let v = |c: &str| video("YUV420P8", c);
    check_errors(&[
        v("std.AddBorders:left=1"),
        v("std.AddBorders:right=3"),
        v("std.AddBorders:top=1"),
        v("std.AddBorders:bottom=3"),
        v("std.AddBorders:left=1:top=1"),
        v("std.AddBorders:left=-2"),
        v("std.AddBorders:left=-2:top=1"),
        v("std.AddBorders:left=3:top=-1"),
        v("std.AddBorders:left=2:color=1.0"),
        v("std.AddBorders:left=2:color=1.0:color=2.0"),
        v("std.AddBorders:left=2:color=1.0:color=2.0:color=3.0:color=4.0"),
        v("std.AddBorders:left=1:color=1.0"),
        v("std.AddBorders:left=2:color=300.0:color=2.0:color=3.0"),
        v("std.AddBorders:left=2:color=255.5:color=2.0:color=3.0"),
        v("std.AddBorders:left=2:color=-0.4:color=2.0:color=3.0"),
        v("std.AddBorders:left=2:color=-1.0:color=2.0:color=3.0"),
        video("YUV444P16", "std.AddBorders:left=2:color=65535.5:color=2.0:color=3.0"),
        video("GrayS", "std.AddBorders:left=2:color=1.0:color=3.0"),
        video("GrayS", "std.AddBorders:left=2:color=1.0e+39"),
        video("GrayS", "std.AddBorders:left=2:color=-1.0e+39"),
        video("GrayH", "std.AddBorders:left=2:color=65520.0"),
        video("GrayH", "std.AddBorders:left=2:color=1.0e+10"),
        v("std.BlankClip:varformat=1,std.AddBorders:left=2"),
        v("std.BlankClip:varformat=1,std.AddBorders:left=-2"),
        v("std.BlankClip:varsize=1,std.AddBorders:left=1"),
    ]);
}

// ---- flips, turns, Transpose ---------------------------------------------------------------------------

#[test]
fn flips_and_turns() {
    let chains = [
        "std.FlipVertical",
        "std.FlipHorizontal",
        "std.Turn180",
        "std.Transpose",
        "std.Turn90",
        "std.Turn270",
        "std.FlipHorizontal,std.FlipVertical,std.Transpose",
    ];
    let mut cases = over_formats(&FORMATS, &chains);
    cases.extend(over_formats(&MORE_FORMATS, &chains));
    for f in ["Gray8", "RGB24", "YUV444P16", "GrayS", "YUV422P10", "YUV440P8"] {
        for c in chains {
            cases.push(Case::sized(f, 334, 98, 3, c));
        }
    }
    for c in &chains[..6] {
        cases.push(Case::sized("Gray8", 333, 97, 3, c));
        cases.push(Case::sized("Gray8", 1, 1, 2, c));
    }
    // flips and Turn180 take any clip; the transposing ones want constant ones
    for c in &chains[..3] {
        cases.push(video("YUV420P8", &format!("std.BlankClip:varformat=1,{c}")));
        cases.push(video("YUV420P8", &format!("std.BlankClip:varformat=1:varsize=1,{c}")));
    }
    check_all(&cases);
}

#[test]
fn transpose_errors() {
    let mut cases = Vec::new();
    for f in ["Transpose", "Turn90", "Turn270"] {
        cases.push(video("YUV420P8", &format!("std.BlankClip:varformat=1,std.{f}")));
        cases.push(video("YUV420P8", &format!("std.BlankClip:varsize=1,std.{f}")));
    }
    check_errors(&cases);
}

// ---- stacking ------------------------------------------------------------------------------------------

#[test]
fn stack() {
    let chains = [
        "std.FlipVertical,std.StackHorizontal:@clips:clips=$0",
        "std.FlipVertical,std.StackVertical:@clips:clips=$0:clips=$0",
        "std.StackHorizontal:@clips",
        "std.StackVertical:@clips",
        "std.Crop:left=4:right=8,std.StackHorizontal:@clips:clips=$0:clips=$1",
        "std.Crop:top=4:bottom=8,std.StackVertical:@clips:clips=$1:clips=$0",
        // a shorter clip repeats its last frame; the length is the longest
        "std.BlankClip:length=9,std.StackHorizontal:@clips:clips=$0",
        "std.BlankClip:length=2,std.StackVertical:@clips:clips=$0",
        // the rate is the first clip's
        "std.BlankClip:fpsnum=5:fpsden=3,std.StackVertical:@clips:clips=$0",
        "std.BlankClip:fpsnum=0,std.StackVertical:@clips",
    ];
    let mut cases = over_formats(&FORMATS, &chains);
    cases.extend(over_formats(&MORE_FORMATS, &chains[..2]));
    cases.push(Case::sized("Gray8", 3, 5, 3, "std.StackHorizontal:@clips:clips=$0,std.StackVertical:@clips:clips=$1"));
    cases.push(Case::sized("YUV444P16", 333, 97, 3, "std.FlipHorizontal,std.StackVertical:@clips:clips=$0"));
    // one clip comes back as it is, whatever it is
    cases.push(video("YUV420P8", "std.BlankClip:varformat=1,std.StackHorizontal:@clips"));
    cases.push(video("YUV420P8", "std.BlankClip:varsize=1,std.StackVertical:@clips"));
    check_all(&cases);
}

#[test]
fn stack_errors() {
    let v = |c: &str| video("YUV420P8", c);
    check_errors(&[
        v("std.Crop:top=2,std.StackHorizontal:@clips:clips=$0"),
        v("std.Crop:left=2,std.StackVertical:@clips:clips=$0"),
        v(&format!("std.BlankClip:format={GRAY16},std.StackVertical:@clips:clips=$0")),
        v(&format!("std.BlankClip:format={GRAY16},std.StackHorizontal:@clips:clips=$0")),
        v("std.BlankClip:varformat=1,std.StackHorizontal:@clips:clips=$0"),
        v("std.BlankClip:varformat=1,std.StackHorizontal:@clips:clips=$1"),
        v("std.BlankClip:varsize=1,std.StackVertical:@clips:clips=$1"),
        v("std.BlankClip:varsize=1,std.StackHorizontal:@clips:clips=$0"),
    ]);
}

// ---- ShufflePlanes, SplitPlanes ------------------------------------------------------------------------------

#[test]
fn shuffle_planes() {
    let chains = [
        "std.ShufflePlanes:@clips:planes=0:colorfamily=1",
        "std.ShufflePlanes:@clips:planes=0:planes=1:planes=2:colorfamily=3",
        "std.ShufflePlanes:@clips:planes=0:planes=0:planes=0:colorfamily=3",
        "std.ShufflePlanes:@clips:planes=0:planes=0:planes=0:colorfamily=2",
        "std.ShufflePlanes:@clips:planes=0:colorfamily=2",
        "std.ShufflePlanes:@clips:planes=0:planes=0:colorfamily=3",
        "std.ShufflePlanes:@clips:planes=0:colorfamily=1:prop_src=$0",
        "std.FlipVertical,std.ShufflePlanes:@clips:clips=$0:planes=0:planes=0:planes=0:colorfamily=2",
        "std.FlipVertical,std.ShufflePlanes:@clips:clips=$0:planes=0:planes=0:planes=0:colorfamily=3:prop_src=$1",
    ];
    // (gray clips have only plane 0)
    let mut cases: Vec<Case> = over_formats(&FORMATS, &chains)
        .into_iter()
        .filter(|c| !(c.source[1].starts_with("Gray") && (c.chain_text().contains("planes=1") || c.chain_text().contains("planes=2"))))
        .collect();
    for f in ["YUV420P8", "YUV422P10", "YUV444P16", "RGB24", "YUV420PH", "YUV444PS", "YUV410P8"] {
        for c in [
            "std.ShufflePlanes:@clips:planes=1:colorfamily=1",
            "std.ShufflePlanes:@clips:planes=2:colorfamily=1",
            "std.ShufflePlanes:@clips:planes=0:planes=2:planes=1:colorfamily=3",
            "std.ShufflePlanes:@clips:planes=0:planes=1:planes=1:colorfamily=3",
            "std.ShufflePlanes:@clips:planes=1:planes=1:planes=2:colorfamily=3",
            "std.ShufflePlanes:@clips:planes=2:planes=2:planes=2:colorfamily=2",
            // clips past the last one are the last one; the length is the longest
            "std.FlipHorizontal,std.ShufflePlanes:@clips:clips=$0:planes=0:planes=1:planes=2:colorfamily=3",
            "std.BlankClip:length=9,std.ShufflePlanes:@clips:clips=$0:planes=0:planes=1:planes=2:colorfamily=3",
            "std.BlankClip:length=1,std.ShufflePlanes:@clips:clips=$0:clips=$1:planes=0:planes=1:planes=2:colorfamily=3",
        ] {
            cases.push(video(f, c));
        }
    }
    cases.extend([
        // planes of several clips put together: gray planes of a YUV444 clip, the chroma of another
        video("YUV420P8", &format!("std.BlankClip:format={GRAY8}:color=77.0,std.ShufflePlanes:@:clips=$1:clips=$0:planes=0:planes=1:planes=2:colorfamily=3")),
        video("YUV420P8", &format!("std.BlankClip:format={YUV444P8}:width=32:height=24,std.ShufflePlanes:@clips:clips=$0:planes=0:planes=1:planes=2:colorfamily=3")),
        video("YUV420P8", &format!("std.BlankClip:format={YUV444P8}:width=32:height=48,std.ShufflePlanes:@clips:clips=$0:planes=0:planes=1:planes=2:colorfamily=3")),
        video("Gray8", "std.ShufflePlanes:@clips:planes=0:planes=0:planes=0:colorfamily=3,std.ShufflePlanes:@clips:planes=2:colorfamily=1"),
        Case::sized("YUV444P16", 333, 97, 3, "std.ShufflePlanes:@clips:planes=2:planes=0:planes=1:colorfamily=2"),
    ]);
    check_all(&cases);
}

#[test]
fn shuffle_planes_errors() {
    let v = |c: &str| video("YUV420P8", c);
    check_errors(&[
        v("std.ShufflePlanes:@clips:planes=3:colorfamily=1"),
        v("std.ShufflePlanes:@clips:planes=-1:colorfamily=1"),
        v("std.ShufflePlanes:@clips:planes=0:planes=1:colorfamily=1"),
        v("std.ShufflePlanes:@clips:clips=$0:planes=0:colorfamily=1"),
        v("std.ShufflePlanes:@clips:clips=$0:clips=$0:planes=0:colorfamily=1"),
        v("std.ShufflePlanes:@clips:planes=0:planes=1:planes=2:planes=0:colorfamily=3"),
        v("std.ShufflePlanes:@clips:planes=0:planes=1:planes=2:colorfamily=2"),
        v("std.ShufflePlanes:@clips:planes=0:planes=1:planes=2:colorfamily=0"),
        v("std.ShufflePlanes:@clips:planes=0:planes=1:planes=2:colorfamily=4"),
        v("std.ShufflePlanes:@clips:planes=5:planes=1:planes=2:planes=0:colorfamily=7"),
        v("std.ShufflePlanes:@clips:planes=1:planes=0:planes=0:colorfamily=3"),
        v("std.ShufflePlanes:@clips:planes=1:colorfamily=3"),
        v("std.ShufflePlanes:@clips:planes=0:planes=1:colorfamily=3"),
        v("std.ShufflePlanes:@clips:planes=2:planes=1:colorfamily=3"),
        v("std.ShufflePlanes:@clips:planes=0:planes=2:colorfamily=2"),
        v("std.ShufflePlanes:@clips:clips=$0:clips=$0:clips=$0:planes=0:colorfamily=3"),
        v("std.ShufflePlanes:@clips:clips=$0:clips=$0:clips=$0:planes=0:colorfamily=7"),
        v("std.ShufflePlanes:@clips:clips=$0:clips=$0:clips=$0:planes=0:planes=0:planes=0:planes=0:colorfamily=3"),
        v("std.BlankClip:varformat=1,std.ShufflePlanes:@clips:planes=0:colorfamily=1"),
        v("std.BlankClip:varsize=1,std.ShufflePlanes:@clips:planes=0:colorfamily=1"),
        v("std.BlankClip:varsize=1,std.ShufflePlanes:@clips:planes=0:colorfamily=7"),
        v("std.BlankClip:varsize=1,std.ShufflePlanes:@clips:planes=0:planes=0:planes=0:planes=0:colorfamily=3"),
        v("std.BlankClip:varsize=1,std.ShufflePlanes:@clips:clips=$0:planes=7:colorfamily=3"),
        v(&format!("std.BlankClip:format={GRAY16},std.ShufflePlanes:@clips:clips=$0:planes=0:planes=1:planes=2:colorfamily=3")),
        v(&format!("std.BlankClip:format={GRAY16},std.ShufflePlanes:@clips:clips=$0:planes=0:planes=0:colorfamily=2")),
        v(&format!("std.BlankClip:format={GRAY16},std.ShufflePlanes:@clips:clips=$0:planes=1:planes=0:colorfamily=2")),
        v(&format!("std.BlankClip:format={GRAY16}:width=16:height=12,std.ShufflePlanes:@clips:clips=$0:planes=0:planes=0:colorfamily=2")),
        v(&format!("std.BlankClip:format={GRAY8}:width=33:height=24,std.ShufflePlanes:@clips:planes=0:planes=1:planes=2:colorfamily=3:clips=$0")),
        v(&format!("std.BlankClip:format={YUV444P8}:width=32:height=24,std.ShufflePlanes:@clips:clips=$0:planes=0:planes=1:planes=2:colorfamily=2")),
    ]);
}

#[test]
fn split_planes() {
    // the driver looks at the first clip of the array: the first plane as a gray clip
    let mut cases = over_formats(&FORMATS, &["std.SplitPlanes", "std.FlipVertical,std.SplitPlanes"]);
    cases.extend(over_formats(&MORE_FORMATS, &["std.SplitPlanes"]));
    cases.push(Case::sized("YUV444P16", 333, 97, 3, "std.SplitPlanes"));
    check_all(&cases);
    check_errors(&[video("YUV420P8", "std.BlankClip:varformat=1,std.SplitPlanes")]);
}

#[test]
fn geometry_whatever_the_threads() {
    check_modes(Case::sized(
        "YUV420P8",
        128,
        96,
        12,
        "std.Crop:left=4:top=2,std.AddBorders:right=4:bottom=2,std.Transpose,std.FlipHorizontal,std.StackVertical:@clips:clips=$4,std.ShufflePlanes:@clips:planes=0:planes=2:planes=1:colorfamily=3",
    ));
    check_modes(Case::sized("GrayS", 99, 77, 12, "std.Turn90,std.Turn180,std.CropAbs:width=50:height=40:left=3:top=5,std.StackHorizontal:@clips:clips=$3"));
}

/// GPU resident clips (R81 takes them in every function here): frames come back the same after
/// GPUDownload, and a clip list that mixes residencies is refused. Skipped when the reference finds
/// no Vulkan device.
#[test]
fn gpu_resident_clips() {
    let probe = run(&reference_core(), &video("YUV420P8", "std.GPUUpload,std.GPUDownload"), &[]);
    if !probe.ok() {
        eprintln!("skipped: the reference has no GPU here ({})", probe.line);
        return;
    }
    let chains = [
        "std.FlipVertical",
        "std.FlipHorizontal",
        "std.Turn180",
        "std.Transpose",
        "std.Turn90",
        "std.AddBorders:left=2:top=4",
        "std.AddBorders",
        "std.Crop",
        "std.CropAbs:width=64:height=48",
        "std.StackVertical:@clips",
        "std.StackHorizontal:@clips:clips=$1",
        "std.ShufflePlanes:@clips:planes=0:colorfamily=1",
        "std.ShufflePlanes:@clips:planes=0:planes=2:planes=1:colorfamily=3:prop_src=$0",
        "std.SplitPlanes",
    ];
    let cases: Vec<Case> = chains.iter().map(|c| video("YUV420P8", &format!("std.GPUUpload,{c},std.GPUDownload"))).collect();
    check_all(&cases);
    check_errors(&[
        video("YUV420P8", "std.GPUUpload,std.StackVertical:@clips:clips=$0"),
        video("YUV420P8", &format!("std.BlankClip:format={GRAY16},std.GPUUpload,std.StackVertical:@clips:clips=$0")),
        video("YUV420P8", "std.GPUUpload,std.ShufflePlanes:@clips:clips=$0:planes=0:colorfamily=3"),
        video("YUV420P8", &format!("std.BlankClip:format={GRAY16},std.GPUUpload,std.ShufflePlanes:@clips:clips=$0:planes=0:planes=3:colorfamily=3")),
    ]);
}
