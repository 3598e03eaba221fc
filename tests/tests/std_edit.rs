//! The frame editing functions of `std` against the reference: Trim, Splice, Loop, Reverse,
//! SelectEvery, Interleave, DeleteFrames, DuplicateFrames, FreezeFrames, AssumeFPS, SeparateFields,
//! DoubleWeave, AverageFrames, SetFieldBased and SetVideoCache. Every chain runs on R81 and on our core
//! through the oracle driver (tests/oracle/driver.c) over the vsvknoise source, whose frames carry
//! _DurationNum/_DurationDen and properties naming the frame; the fingerprints (every pixel and frame
//! property, the clip's length, rate and format) or the error lines must be identical. Some chains set
//! properties with std.SetFrameProps/RemoveFrameProps first.
//!
//! Needs `scripts/setup.sh` (the reference) and our core built in release mode. Environment as for
//! tests/tests/oracle.rs (VSVK_REF, VSVK_CORE, VSVK_INCLUDE).

use vsvk_tests::oracle::{check_all, check_errors, check_modes, reference_core, run, Case};

/// The noise source at the size most cases use.
fn video(format: &str, chain: &str) -> Case {
    Case::sized(format, 64, 48, 10, chain)
}

/// The formats every function is tried on.
const FORMATS: [&str; 7] = ["Gray8", "YUV420P8", "YUV422P10", "YUV444P16", "RGB24", "GrayS", "YUV420PH"];
/// More subsamplings and sample types.
const MORE_FORMATS: [&str; 7] = ["YUV410P8", "YUV411P8", "YUV440P8", "Gray16", "RGBH", "YUV444PS", "Gray32"];

fn over_formats(formats: &[&str], chains: &[&str]) -> Vec<Case> {
    formats.iter().flat_map(|f| chains.iter().map(move |c| video(f, c))).collect()
}

// pfGray16 as a number, for BlankClip's format argument.
const GRAY16: &str = "269484032";

// ---- Trim, Loop, Reverse ----------------------------------------------------------------------------------

#[test]
fn trim_loop_reverse() {
    let chains = [
        "std.Trim:first=2:last=7",
        "std.Trim:first=2",
        "std.Trim:last=5",
        "std.Trim:length=3",
        "std.Trim:first=2:length=3",
        "std.Trim:first=9",
        "std.Trim:first=0:last=9",
        "std.Trim",
        "std.Reverse",
        "std.Trim:first=2:last=7,std.Reverse",
        "std.Loop:times=3",
        "std.Loop:times=1",
        "std.Loop:times=2,std.Loop:times=2,std.Reverse",
        "std.Loop,std.Trim:first=2147483640",
        "std.Loop:times=0,std.Trim:first=2147483645",
        "std.Loop:times=214748364,std.Trim:first=2147483635",
    ];
    let mut cases = over_formats(&["YUV420P8", "GrayS"], &chains);
    cases.extend(over_formats(&FORMATS, &["std.Trim:first=1:last=4,std.Reverse,std.Loop:times=2"]));
    // variable clips pass through
    cases.push(video("YUV420P8", "std.BlankClip:varformat=1:varsize=1,std.Trim:first=2,std.Reverse,std.Loop:times=2"));
    check_all(&cases);
}

#[test]
fn trim_loop_errors() {
    let v = |c: &str| video("YUV420P8", c);
    check_errors(&[
        v("std.Trim:last=5:length=3"),
        v("std.Trim:last=-1:length=0"),
        v("std.Trim:first=-1"),
        v("std.Trim:first=-1:last=-3"),
        v("std.Trim:first=-1:length=0"),
        v("std.Trim:first=10"),
        v("std.Trim:first=12:last=5"),
        v("std.Trim:first=12:length=0"),
        v("std.Trim:last=10"),
        v("std.Trim:last=-1"),
        v("std.Trim:first=5:last=4"),
        v("std.Trim:length=0"),
        v("std.Trim:length=-1"),
        v("std.Trim:length=11"),
        v("std.Trim:first=2:length=9"),
        v("std.Loop:times=-1"),
        v("std.Loop:times=300000000"),
        v("std.Loop:times=0,std.Loop:times=2"),
    ]);
}

// ---- SelectEvery, Interleave, Splice ------------------------------------------------------------------------

#[test]
fn select_every() {
    let chains = [
        "std.SelectEvery:cycle=3:offsets=0:offsets=2",
        "std.SelectEvery:cycle=3:offsets=2:offsets=0",
        "std.SelectEvery:cycle=3:offsets=0:offsets=0",
        "std.SelectEvery:cycle=4:offsets=3:offsets=1:offsets=2",
        "std.SelectEvery:cycle=4:offsets=1:offsets=3:offsets=2:offsets=0",
        "std.SelectEvery:cycle=20:offsets=5:offsets=15",
        "std.SelectEvery:cycle=2:offsets=1",
        "std.SelectEvery:cycle=3:offsets=2:offsets=0:modify_duration=0",
        "std.SelectEvery:cycle=2:offsets=0:offsets=1:offsets=1",
    ];
    let mut cases = over_formats(&["YUV420P8"], &chains);
    cases.extend(over_formats(&FORMATS, &chains[..1]));
    // the durations: scaled and reduced when both are integers, left alone otherwise
    for props in [
        "std.SetFrameProps:_DurationNum=7:_DurationDen=5",
        "std.SetFrameProps:_DurationNum=0:_DurationDen=5",
        "std.SetFrameProps:_DurationNum=-3:_DurationDen=5",
        "std.SetFrameProps:_DurationNum=3.0:_DurationDen=5",
        "std.RemoveFrameProps:props='_DurationNum",
        "std.RemoveFrameProps:props='_DurationNum:props='_DurationDen",
    ] {
        cases.push(video("YUV420P8", &format!("{props},std.SelectEvery:cycle=4:offsets=3:offsets=1:offsets=2")));
    }
    cases.push(video("YUV420P8", "std.BlankClip:fpsnum=0,std.SelectEvery:cycle=3:offsets=1"));
    cases.push(video("YUV420P8", "std.BlankClip:varformat=1:varsize=1,std.SelectEvery:cycle=3:offsets=1"));
    check_all(&cases);
}

#[test]
fn interleave_splice() {
    let v = |c: &str| video("YUV420P8", c);
    let mut cases = vec![
        v("std.Interleave:@clips"),
        v("std.Interleave:@clips:clips=$0"),
        v("std.Interleave:@clips:clips=$0:clips=$0:clips=$0"),
        v("std.FlipVertical,std.Interleave:@clips:clips=$0"),
        v("std.Trim:length=3,std.Interleave:@clips:clips=$0"),
        v("std.Trim:length=3,std.Interleave:@clips:clips=$0:extend=1"),
        v("std.Trim:length=3,std.Interleave:@clips:clips=$0:extend=0"),
        v("std.Trim:length=3,std.Interleave:@clips:clips=$0:modify_duration=0"),
        v("std.Trim:length=3,std.Interleave:@clips:clips=$1:clips=$0:extend=1"),
        v("std.SetFrameProps:_DurationNum=4:_DurationDen=6,std.Interleave:@clips:clips=$0:clips=$0"),
        v("std.BlankClip:fpsnum=5:fpsden=1001,std.Interleave:@clips:clips=$0:mismatch=1"),
        v(&format!("std.BlankClip:format={GRAY16},std.Interleave:@clips:clips=$0:mismatch=1")),
        v(&format!("std.BlankClip:width=8:format={GRAY16}:fpsnum=3:fpsden=2,std.Interleave:@clips:clips=$0:mismatch=1")),
        v("std.BlankClip:fpsnum=0,std.Interleave:@clips:clips=$1:clips=$1"),
        v("std.BlankClip:varformat=1,std.Interleave:@clips:clips=$1"),
        v("std.BlankClip:varsize=1,std.Interleave:@clips:clips=$1"),
        v("std.BlankClip:varsize=1,std.Interleave:@clips:clips=$0:mismatch=1"),
        v("std.BlankClip:varformat=1:varsize=1:fpsnum=0,std.Interleave:@clips:clips=$0:mismatch=1"),
        v("std.Splice:@clips"),
        v("std.Splice:@clips:clips=$0"),
        v("std.Trim:length=3,std.Splice:@clips:clips=$0"),
        v("std.Trim:length=3,std.Splice:@clips:clips=$0:clips=$1:clips=$0"),
        v("std.BlankClip:fpsnum=3:fpsden=2,std.Splice:@clips:clips=$0:clips=$0"),
        v("std.BlankClip:fpsnum=0,std.Splice:@clips:clips=$1:clips=$1"),
        v(&format!("std.BlankClip:format={GRAY16},std.Splice:@clips:clips=$0:mismatch=1")),
        v(&format!("std.BlankClip:width=8:format={GRAY16},std.Splice:@clips:clips=$0:mismatch=1")),
        v("std.BlankClip:varsize=1,std.Splice:@clips:clips=$0:mismatch=1"),
        v("std.BlankClip:varformat=1:varsize=1:fpsnum=0,std.Splice:@clips:clips=$0:mismatch=1"),
    ];
    cases.extend(over_formats(&FORMATS, &["std.Reverse,std.Interleave:@clips:clips=$0", "std.Reverse,std.Splice:@clips:clips=$0"]));
    check_all(&cases);
}

#[test]
fn select_interleave_splice_errors() {
    let v = |c: &str| video("YUV420P8", c);
    check_errors(&[
        v("std.SelectEvery:cycle=0:offsets=0"),
        v("std.SelectEvery:cycle=1:offsets=0"),
        v("std.SelectEvery:cycle=-3:offsets=0"),
        v("std.SelectEvery:cycle=3:offsets=3"),
        v("std.SelectEvery:cycle=3:offsets=-1"),
        v("std.SelectEvery:cycle=20:offsets=15"),
        v("std.BlankClip:width=8,std.Interleave:@clips:clips=$0"),
        v("std.BlankClip:fpsnum=5:fpsden=1001,std.Interleave:@clips:clips=$0"),
        v("std.BlankClip:fpsnum=0,std.Interleave:@clips:clips=$0"),
        v("std.BlankClip:fpsnum=3:fpsden=2,std.Interleave:@clips:clips=$0:clips=$0"),
        v(&format!("std.BlankClip:format={GRAY16},std.Interleave:@clips:clips=$0")),
        v(&format!("std.BlankClip:width=8:format={GRAY16}:fpsnum=3:fpsden=2,std.Interleave:@clips:clips=$0")),
        v("std.BlankClip:varformat=1:varsize=1,std.Interleave:@clips:clips=$0"),
        v("std.BlankClip:varsize=1,std.Interleave:@clips:clips=$0"),
        v("std.BlankClip:varformat=1,std.Interleave:@clips:clips=$0"),
        v("std.Loop:times=0,std.Interleave:@clips:clips=$0"),
        v("std.Loop:times=0,std.Interleave:@clips:clips=$1"),
        v("std.BlankClip:width=8,std.Splice:@clips:clips=$0"),
        v(&format!("std.BlankClip:format={GRAY16},std.Splice:@clips:clips=$0")),
        v(&format!("std.BlankClip:width=8:format={GRAY16},std.Splice:@clips:clips=$0")),
        v("std.BlankClip:varformat=1:varsize=1,std.Splice:@clips:clips=$0"),
        v("std.BlankClip:varsize=1,std.Splice:@clips:clips=$0"),
        v("std.Loop:times=0,std.Splice:@clips:clips=$0"),
        v("std.Loop:times=214748364,std.Splice:@clips:clips=$0"),
    ]);
}

// ---- DeleteFrames, DuplicateFrames, FreezeFrames ----------------------------------------------------------

#[test]
fn delete_duplicate_freeze() {
    let chains = [
        "std.DeleteFrames:frames=3",
        "std.DeleteFrames:frames=5:frames=2:frames=7",
        "std.DeleteFrames:frames=0:frames=9",
        "std.DuplicateFrames:frames=3",
        "std.DuplicateFrames:frames=3:frames=3",
        "std.DuplicateFrames:frames=9:frames=0:frames=4:frames=9",
        "std.FreezeFrames:first=1:last=2:replacement=5",
        "std.FreezeFrames:first=2:last=1:replacement=5",
        "std.FreezeFrames:first=5:last=6:replacement=0:first=1:last=2:replacement=8",
        "std.FreezeFrames:first=0:last=9:replacement=4",
        "std.FreezeFrames:first=3:last=3:replacement=3:first=4:last=4:replacement=9",
        "std.DuplicateFrames:frames=3,std.DeleteFrames:frames=1,std.FreezeFrames:first=2:last=4:replacement=0",
    ];
    let mut cases = over_formats(&["YUV420P8"], &chains);
    cases.extend(over_formats(&FORMATS, &chains[11..]));
    cases.push(video("YUV420P8", "std.BlankClip:varformat=1:varsize=1,std.DeleteFrames:frames=1,std.DuplicateFrames:frames=0,std.FreezeFrames:first=0:last=1:replacement=3"));
    check_all(&cases);
}

#[test]
fn delete_duplicate_freeze_errors() {
    let v = |c: &str| video("YUV420P8", c);
    check_errors(&[
        v("std.DeleteFrames:frames=3:frames=3"),
        v("std.DeleteFrames:frames=10"),
        v("std.DeleteFrames:frames=-1"),
        v("std.DeleteFrames:frames=10:frames=10"),
        v("std.DeleteFrames:frames=3:frames=3:frames=11"),
        v("std.Trim:length=1,std.DeleteFrames:frames=0"),
        v("std.Trim:length=2,std.DeleteFrames:frames=1:frames=0"),
        v("std.DuplicateFrames:frames=10"),
        v("std.DuplicateFrames:frames=-1"),
        v("std.Loop:times=0,std.DuplicateFrames:frames=0"),
        v("std.FreezeFrames"),
        v("std.FreezeFrames:first=1"),
        v("std.FreezeFrames:first=1:last=2"),
        v("std.FreezeFrames:first=1:last=10:replacement=5"),
        v("std.FreezeFrames:first=-1:last=2:replacement=5"),
        v("std.FreezeFrames:first=1:last=2:replacement=10"),
        v("std.FreezeFrames:first=1:last=2:replacement=-1"),
        v("std.FreezeFrames:first=1:last=4:replacement=5:first=3:last=6:replacement=0"),
        v("std.FreezeFrames:first=1:last=4:replacement=5:first=3:last=6:replacement=20"),
        v("std.FreezeFrames:first=3:last=4:replacement=5:first=1:last=3:replacement=0"),
        v("std.FreezeFrames:first=3:last=4:replacement=5:first=4:last=1:replacement=0"),
        v("std.FreezeFrames:first=1:last=2:replacement=5:first=3:last=6"),
    ]);
}

// ---- AssumeFPS, SetFieldBased, SetVideoCache ---------------------------------------------------------------

#[test]
fn assume_fps_set_field_based() {
    let v = |c: &str| video("YUV420P8", c);
    let mut cases = vec![
        v("std.AssumeFPS:fpsnum=30"),
        v("std.AssumeFPS:fpsnum=30:fpsden=2"),
        v("std.AssumeFPS:fpsnum=60:fpsden=2"),
        v("std.AssumeFPS:fpsnum=30000:fpsden=1001"),
        v("std.AssumeFPS:src=$0"),
        v("std.AssumeFPS:src=$0:fpsden=3"),
        v("std.BlankClip:fpsnum=7:fpsden=3,std.AssumeFPS:@:clip=$0:src=$1"),
        v("std.RemoveFrameProps:props='_DurationNum:props='_DurationDen,std.AssumeFPS:fpsnum=30"),
        v("std.BlankClip:fpsnum=0,std.AssumeFPS:fpsnum=25"),
        v("std.BlankClip:varformat=1:varsize=1,std.AssumeFPS:fpsnum=3"),
        v("std.SetFieldBased:value=0"),
        v("std.SetFieldBased:value=1"),
        v("std.SetFieldBased:value=2"),
        v("std.SeparateFields:tff=1,std.SetFieldBased:value=0"),
        v("std.BlankClip:varformat=1,std.SetFieldBased:value=1"),
    ];
    cases.extend(over_formats(&FORMATS, &["std.AssumeFPS:fpsnum=50:fpsden=2,std.SetFieldBased:value=2"]));
    check_all(&cases);
}

#[test]
fn assume_fps_set_field_based_errors() {
    let v = |c: &str| video("YUV420P8", c);
    check_errors(&[
        v("std.AssumeFPS"),
        v("std.AssumeFPS:fpsden=2"),
        v("std.AssumeFPS:src=$0:fpsnum=3"),
        v("std.AssumeFPS:fpsnum=0"),
        v("std.AssumeFPS:fpsnum=-1"),
        v("std.AssumeFPS:fpsnum=0:fpsden=3"),
        v("std.AssumeFPS:fpsnum=1:fpsden=0"),
        v("std.AssumeFPS:fpsnum=1:fpsden=-1"),
        v("std.BlankClip:fpsnum=0,std.AssumeFPS:src=$1"),
        v("std.SetFieldBased"),
        v("std.SetFieldBased:value=3"),
        v("std.SetFieldBased:value=-1"),
        // SetVideoCache returns nothing, which the driver reports the same way for both cores
        v("std.SetVideoCache"),
        v("std.SetVideoCache:mode=1:fixedsize=1:maxsize=30:maxhistory=10"),
        v("std.SetVideoCache:mode=0"),
        v("std.SetVideoCache:mode=5"),
        v("std.SetVideoCache:mode=-5:maxsize=-3"),
    ]);
}

// ---- SeparateFields, DoubleWeave -------------------------------------------------------------------------

#[test]
fn fields() {
    let chains = [
        "std.SeparateFields:tff=1",
        "std.SeparateFields:tff=0",
        "std.SeparateFields:tff=1:modify_duration=0",
        "std.SetFieldBased:value=1,std.SeparateFields",
        "std.SetFieldBased:value=2,std.SeparateFields:tff=0",
        "std.SetFieldBased:value=0,std.SeparateFields:tff=0",
        "std.SeparateFields:tff=1,std.SeparateFields:tff=0",
        "std.SeparateFields:tff=1,std.FlipVertical",
        "std.SeparateFields:tff=1,std.Crop:top=2",
        "std.SeparateFields:tff=1,std.Trim:first=1,std.DoubleWeave,std.Trim:last=16",
        "std.SeparateFields:tff=1,std.DoubleWeave:tff=0",
        "std.SeparateFields:tff=1,std.DoubleWeave:tff=1",
        "std.SeparateFields:tff=1,std.SetFieldBased:value=0,std.DoubleWeave:tff=1",
        "std.SeparateFields:tff=1,std.SetFieldBased:value=0,std.DoubleWeave:tff=0",
        "std.SeparateFields:tff=0,std.DoubleWeave:tff=1,std.SelectEvery:cycle=2:offsets=0",
        "std.DoubleWeave:tff=1",
        "std.DoubleWeave:tff=0",
        "std.SetFieldBased:value=1,std.DoubleWeave:tff=1",
    ];
    let mut cases = over_formats(&["YUV420P8"], &chains);
    cases.extend(over_formats(&FORMATS, &["std.SeparateFields:tff=1", "std.SeparateFields:tff=0,std.DoubleWeave:tff=0"]));
    cases.extend(over_formats(&MORE_FORMATS, &["std.SeparateFields:tff=1,std.DoubleWeave:tff=1"]));
    cases.push(Case::sized("YUV422P8", 32, 26, 4, "std.SeparateFields:tff=1"));
    cases.push(Case::sized("YUV420P8", 32, 28, 4, "std.SeparateFields:tff=0"));
    cases.push(Case::sized("Gray8", 333, 98, 4, "std.SeparateFields:tff=1,std.DoubleWeave:tff=0"));
    cases.push(video("YUV420P8", "std.BlankClip:fpsnum=0,std.SeparateFields:tff=1"));
    cases.push(video("YUV420P8", "std.BlankClip:fpsnum=0,std.DoubleWeave:tff=1"));
    check_all(&cases);
}

#[test]
fn fields_errors() {
    let v = |c: &str| video("YUV420P8", c);
    check_errors(&[
        v("std.SeparateFields"),
        v("std.SetFieldBased:value=0,std.SeparateFields"),
        v("std.Crop:bottom=2,std.SeparateFields:tff=1"),
        Case::sized("YUV420P8", 32, 26, 4, "std.SeparateFields:tff=1"),
        Case::sized("Gray8", 32, 25, 4, "std.SeparateFields:tff=1"),
        v("std.BlankClip:varformat=1,std.SeparateFields:tff=1"),
        v("std.BlankClip:varsize=1,std.SeparateFields:tff=1"),
        v("std.Loop:times=0,std.SeparateFields:tff=1"),
        v("std.DoubleWeave"),
        v("std.SetFieldBased:value=1,std.DoubleWeave"),
        v("std.SeparateFields:tff=1,std.DoubleWeave"),
        v("std.BlankClip:varformat=1,std.DoubleWeave:tff=1"),
        v("std.BlankClip:varsize=1,std.DoubleWeave:tff=1"),
    ]);
}

// ---- AverageFrames ------------------------------------------------------------------------------------------

fn weights(w: &[f64]) -> String {
    w.iter().map(|x| format!(":weights={x:?}")).collect()
}

#[test]
fn average_frames() {
    let mut chains: Vec<String> = [
        &[1.0, 2.0, 1.0][..],
        &[1.0],
        &[1.0, 1.0, 1.0, 1.0, 1.0],
        &[1.0, -2.0, 1.0],
        &[1.0, -1.0, 0.0],
        &[1.0, 1.0, -3.0],
        &[0.3, 0.7, 0.1],
        &[1.5, 2.0, 1.0],
        &[2.5, -1.5, 1.0, 4.0, 0.4],
        &[0.4, 0.4, 0.4],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        &[1023.0, 1022.0, -1021.0, 1019.0, 1013.0],
    ]
    .iter()
    .map(|w| format!("std.AverageFrames:@clips{}", weights(w)))
    .collect();
    for extra in [":scale=2.5", ":scale=0.5", ":scale=3.3", ":scale=7.77", ":scale=100.0", ":planes=0", ":planes=2:planes=1", ":planes=1:planes=2"] {
        chains.push(format!("std.AverageFrames:@clips{}{extra}", weights(&[1.0, 2.0, 1.0])));
    }
    // several clips: frame n of each; the first clip gives the length, rate and properties
    chains.push(format!("std.Reverse,std.AverageFrames:@clips:clips=$0{}", weights(&[1.0, 3.0])));
    chains.push(format!("std.FlipVertical,std.AverageFrames:@clips:clips=$0:clips=$0{}:scale=4.0", weights(&[1.0, 1.0, 3.0])));
    chains.push(format!("std.BlankClip:length=3,std.AverageFrames:@clips:clips=$0{}", weights(&[1.0, 1.0])));
    chains.push(format!("std.Trim:length=4,std.AverageFrames:@clips:clips=$0{}:planes=0", weights(&[0.25, 0.75])));
    let chains: Vec<&str> = chains.iter().map(|s| s.as_str()).collect();
    let mut cases = over_formats(&FORMATS, &chains);
    cases.extend(over_formats(&["Gray16", "RGBH", "YUV444PS", "YUV440P8"], &chains[..3]));
    // large sums in 16 bits, where single precision rounds
    for w in [&[1023.0; 31][..], &[1021.0, 1023.0, 1019.0], &[1000.0, 1001.0, 999.0, 998.0, 997.0, 1003.0, 1007.0]] {
        let s: f64 = w.iter().sum();
        cases.push(video("YUV444P16", &format!("std.AverageFrames:@clips{}:scale={s:?}", weights(w))));
    }
    cases.push(video("YUV444P16", &format!("std.AverageFrames:@clips{}:scale=17.0", weights(&[7.0, 1001.0, -999.0, 3.0, 5.0]))));
    check_all(&cases);
}

#[test]
fn average_frames_scene_changes() {
    let mut cases = Vec::new();
    let w5 = weights(&[1.0, 2.0, 3.0, 4.0, 5.0]);
    let w7 = weights(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
    for f in ["Gray8", "YUV420P8", "GrayS", "YUV420PH"] {
        for w in [&w5, &w7] {
            for kind in ["Prev", "Next"] {
                // every frame marked
                cases.push(video(f, &format!("std.SetFrameProps:_SceneChange{kind}=1,std.AverageFrames:@clips{w}:scenechange=1")));
                // marks on some frames only: two of every three, or one of every three
                cases.push(video(
                    f,
                    &format!("std.SelectEvery:cycle=4:offsets=0:offsets=1:modify_duration=0,std.SetFrameProps:_SceneChange{kind}=1,std.Interleave:@clips:clips=$0:clips=$2:modify_duration=0,std.AverageFrames:@clips{w}:scenechange=1"),
                ));
                cases.push(video(
                    f,
                    &format!("std.SelectEvery:cycle=4:offsets=0:offsets=1:modify_duration=0,std.SetFrameProps:_SceneChange{kind}=1,std.Interleave:@clips:clips=$0:clips=$0:modify_duration=0,std.AverageFrames:@clips{w}:scenechange=1"),
                ));
            }
            // both kinds of mark, and marks that scenechange=0 ignores
            cases.push(video(
                f,
                &format!("std.SelectEvery:cycle=3:offsets=0:modify_duration=0,std.SetFrameProps:_SceneChangePrev=1:_SceneChangeNext=1,std.Interleave:@clips:clips=$0:clips=$0:modify_duration=0,std.AverageFrames:@clips{w}:scenechange=1"),
            ));
            cases.push(video(f, &format!("std.SetFrameProps:_SceneChangePrev=1,std.AverageFrames:@clips{w}:scenechange=0")));
        }
    }
    check_all(&cases);
}

#[test]
fn average_frames_errors() {
    let v = |c: &str| video("YUV420P8", c);
    let w3 = weights(&[1.0, 1.0, 1.0]);
    check_errors(&[
        v(&format!("std.AverageFrames:@clips{}", weights(&[1.0, 2.0]))),
        v(&format!("std.AverageFrames:@clips{}", weights(&[1.0; 32]))),
        v(&format!("std.AverageFrames:@clips{}", weights(&[1.0; 33]))),
        v("std.AverageFrames:@clips:clips=$0:weights=1.0"),
        v(&format!("std.AverageFrames:@clips:clips=$0{w3}")),
        v("std.AverageFrames:@clips:clips=$0:weights=1.0:weights=1.0:scenechange=1"),
        v("std.AverageFrames:@clips:weights=1"),
        v(&format!("std.AverageFrames:@clips{w3}:scale=0.0")),
        v(&format!("std.AverageFrames:@clips{w3}:scale=-4.0")),
        v(&format!("std.AverageFrames:@clips{w3}:scale=0.4")),
        video("GrayS", &format!("std.AverageFrames:@clips{w3}:scale=0.0")),
        v(&format!("std.AverageFrames:@clips{}", weights(&[1000000.0, 1.0, -3.0]))),
        v(&format!("std.AverageFrames:@clips{}", weights(&[3000000000.0, 1.0, -3.0]))),
        v(&format!("std.AverageFrames:@clips{}", weights(&[1023.5, 1.0, -3.0]))),
        v(&format!("std.AverageFrames:@clips{w3}:planes=3")),
        v(&format!("std.AverageFrames:@clips{w3}:planes=0:planes=0")),
        video("Gray8", &format!("std.AverageFrames:@clips{w3}:planes=1:planes=1")),
        video("Gray32", &format!("std.AverageFrames:@clips{w3}")),
        v(&format!("std.BlankClip:varformat=1,std.AverageFrames:@clips{w3}")),
        v(&format!("std.BlankClip:varsize=1,std.AverageFrames:@clips{w3}")),
        v(&format!("std.BlankClip:format={GRAY16},std.AverageFrames:@clips:clips=$0:weights=1.0:weights=1.0")),
        v("std.BlankClip:width=16,std.AverageFrames:@clips:clips=$0:weights=1.0:weights=1.0"),
    ]);
}

#[test]
fn edits_whatever_the_threads() {
    check_modes(Case::sized(
        "YUV420P8",
        96,
        64,
        30,
        "std.SelectEvery:cycle=3:offsets=2:offsets=0,std.Reverse,std.AverageFrames:@clips:weights=1.0:weights=2.0:weights=3.0:weights=2.0:weights=1.0,std.SeparateFields:tff=1,std.DoubleWeave:tff=1,std.Interleave:@clips:clips=$0:mismatch=1",
    ));
    check_modes(Case::sized(
        "GrayS",
        64,
        48,
        30,
        "std.DuplicateFrames:frames=3:frames=9,std.DeleteFrames:frames=1,std.FreezeFrames:first=2:last=4:replacement=20,std.Loop:times=3,std.Trim:first=5:length=50,std.Splice:@clips:clips=$0,std.AverageFrames:@clips:weights=0.2:weights=0.5:weights=0.3",
    ));
}

/// GPU resident clips: frame editing keeps them on the GPU, sample work gives the same frames, and
/// clip lists that mix residencies are refused. Skipped when the reference finds no Vulkan device.
#[test]
fn gpu_resident_clips() {
    let probe = run(&reference_core(), &video("YUV420P8", "std.GPUUpload,std.GPUDownload"), &[]);
    if !probe.ok() {
        eprintln!("skipped: the reference has no GPU here ({})", probe.line);
        return;
    }
    let chains = [
        "std.Trim:first=1",
        "std.Reverse",
        "std.Loop:times=2",
        "std.SelectEvery:cycle=2:offsets=0",
        "std.Interleave:@clips:clips=$1",
        "std.Splice:@clips:clips=$1",
        "std.DeleteFrames:frames=0",
        "std.DuplicateFrames:frames=0",
        "std.FreezeFrames:first=0:last=1:replacement=2",
        "std.AssumeFPS:fpsnum=5",
        "std.AssumeFPS:src=$0",
        "std.SetFieldBased:value=1",
        "std.SeparateFields:tff=1",
        "std.DoubleWeave:tff=1",
        "std.AverageFrames:@clips:weights=1.0:weights=2.0:weights=1.0",
        "std.FlipVertical,std.AverageFrames:@clips:clips=$1:weights=1.0:weights=3.0",
    ];
    let cases: Vec<Case> = chains.iter().map(|c| video("YUV420P8", &format!("std.GPUUpload,{c},std.GPUDownload"))).collect();
    check_all(&cases);
    check_errors(&[
        video("YUV420P8", "std.GPUUpload,std.Interleave:@clips:clips=$0"),
        video("YUV420P8", "std.GPUUpload,std.Splice:@clips:clips=$0"),
        video("YUV420P8", &format!("std.BlankClip:format={GRAY16},std.GPUUpload,std.Splice:@clips:clips=$0")),
        video("YUV420P8", "std.GPUUpload,std.AverageFrames:@clips:clips=$0:weights=1.0:weights=1.0"),
        video("YUV420P8", &format!("std.BlankClip:format={GRAY16},std.GPUUpload,std.AverageFrames:@clips:clips=$0:weights=1.0:weights=1.0")),
    ]);
}
