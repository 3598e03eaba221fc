//! The `text` namespace against the reference: Text, FrameNum, FrameProps, ClipInfo and CoreInfo.
//! Every chain runs on R81 and on our core through the oracle driver (tests/oracle/driver.c) over the
//! vsvknoise source; the fingerprints (every pixel and frame property, the clip's length, rate and
//! format) or the error lines must be identical. So every glyph of the font, the layout (margins,
//! alignment, scale, wrapping, line breaks, dropped lines) and the colours in every kind of format
//! are held against R81's.
//!
//! CoreInfo prints getCoreInfo's version text, which names the core and so differs by nature; its
//! test compares everything but the pixels.
//!
//! Needs `scripts/setup.sh` (the reference) and our core built in release mode. Environment as for
//! tests/tests/oracle.rs (VSVK_REF, VSVK_CORE, VSVK_INCLUDE).

use vsvk_tests::oracle::{check_all, check_errors, check_modes, list, our_core, reference_core, run, Case, Run};

/// The noise source at the size most cases use.
fn video(format: &str, chain: &str) -> Case {
    Case::sized(format, 320, 240, 2, chain)
}

const FORMATS: [&str; 12] =
    ["Gray8", "Gray10", "Gray16", "GrayH", "GrayS", "YUV420P8", "YUV422P10", "YUV444P16", "YUV410P8", "YUV440P8", "RGB24", "RGBS"];

/// Every byte Text can be given through the driver: all but NUL and its separators ',' and ':'.
fn every_byte() -> Vec<u8> {
    (1..=255u8).filter(|b| !matches!(b, b',' | b':')).collect()
}

fn text_chain(text: &[u8], extra: &str) -> Vec<u8> {
    let mut c = b"text.Text:text='".to_vec();
    c.extend_from_slice(text);
    c.extend_from_slice(extra.as_bytes());
    c
}

#[test]
fn signatures_are_the_reference_ones() {
    let want = list(&reference_core(), "text");
    assert!(want.contains("text.Text("), "the reference lists no text functions:\n{want}");
    assert_eq!(list(&our_core(), "text"), want);
}

/// The whole font: every byte value, read as Windows-1252, in every kind of format.
#[test]
fn every_glyph_in_every_format() {
    let mut cases = Vec::new();
    for f in FORMATS {
        cases.push(Case::bytes(f, 640, 480, 1, &text_chain(&every_byte(), "")));
        cases.push(Case::bytes(f, 320, 240, 1, &text_chain(b"Hello world!", ":alignment=5:scale=2")));
    }
    cases.push(Case::bytes("YUV420P8", 640, 480, 1, &text_chain(b"caf\xc3\xa9 \x80 \x81\x8d\x8f\x90\x9d \x7f \x09\x0b\x0c", "")));
    check_all(&cases);
}

#[test]
fn alignment_and_scale() {
    let mut cases = Vec::new();
    for a in 1..=9 {
        for s in [1, 2, 3] {
            cases.push(video("YUV420P8", &format!("text.Text:text='Ab cd\nefg:alignment={a}:scale={s}")));
        }
        // odd offsets: the text box starts between chroma samples
        cases.push(Case::sized("YUV420P8", 66, 50, 1, &format!("text.Text:text='abc:alignment={a}")));
        cases.push(Case::sized("YUV410P8", 76, 52, 1, &format!("text.Text:text='a\nbcd:alignment={a}")));
        cases.push(Case::sized("Gray8", 67, 53, 1, &format!("text.Text:text='abcd:alignment={a}")));
        cases.push(Case::sized("YUV440P8", 58, 66, 1, &format!("text.Text:text='x\nyz:alignment={a}:scale=1")));
    }
    check_all(&cases);
}

#[test]
fn lines_wrapping_and_dropping() {
    let cases = [
        (320, 240, &b"abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 the end"[..], ""),
        (120, 100, b"abcdefghijklmn", ""),
        (80, 100, b"ab cd ef gh ij kl mn", ""),
        (64, 120, b"abcdefgh\nij", ":alignment=1"),
        (100, 80, b"a\nb\nc\nd\ne\nf", ""),
        (100, 80, b"a\nb\nc\nd\ne\nf", ":alignment=1"),
        (100, 80, b"a\nb\nc\nd\ne\nf", ":alignment=5"),
        (64, 64, b"abcdefghij", ":alignment=3"),
        (200, 120, b"abc\n", ":alignment=1"),
        (200, 120, b"abc\n\n", ":alignment=5"),
        (200, 120, b"abc\r\n", ":alignment=2"),
        (200, 120, b"\nabc", ":alignment=4"),
        (200, 120, b"abc\r", ":alignment=1"),
        (200, 160, b"a\r\nb\n\rc\r\rd", ""),
        (200, 120, b"line1\n\nline3\n", ":alignment=9"),
        (200, 120, b"   ", ""),
        (200, 120, b"a  ", ":alignment=9"),
        (200, 120, b"", ""),
        (40, 48, b"Ab", ""),
        (79, 96, b"Ab", ":scale=2"),
        (320, 240, b"wrap at scale three please", ":scale=3:alignment=8"),
    ];
    let cases: Vec<Case> = cases.iter().map(|(w, h, t, extra)| Case::bytes("Gray8", *w, *h, 1, &text_chain(t, extra))).collect();
    check_all(&cases);
}

#[test]
fn frame_numbers() {
    check_all(&[
        Case::sized("YUV420P8", 320, 240, 12, "text.FrameNum"),
        Case::sized("RGB24", 320, 240, 3, "text.FrameNum:alignment=5:scale=4"),
        Case::sized("GrayS", 64, 48, 11, "text.FrameNum:alignment=3"),
    ]);
}

#[test]
fn frame_properties() {
    let cases = [
        "text.FrameProps",
        "text.FrameProps:alignment=3:scale=2",
        "std.SetFrameProps:Fa=1.5:Fa=2.25:Fb=0.1:Fc=100000000000000000000.0:Fd=-3.0:Da='x:Da='yz:E=0.000001234:G=123456789.0:Ia=1:Ia=-2:Ia=3:Ib=9223372036854775807:Db=',text.FrameProps",
        "text.FrameProps:props='VsvkTag:props='Nope:props='VsvkFrame",
        "text.FrameProps:props='Nope",
        "std.RemoveFrameProps:props='VsvkBlob:props='VsvkFrame:props='VsvkLevel:props='VsvkList:props='VsvkTag:props='_DurationNum:props='_DurationDen,text.FrameProps",
        "resize.Bicubic:format=805830656,text.FrameProps",
    ];
    let mut all = Vec::new();
    for c in cases {
        all.push(Case::sized("Gray8", 640, 480, 2, c));
        all.push(Case::sized("YUV420P16", 640, 480, 1, c));
    }
    check_all(&all);
}

#[test]
fn clip_information() {
    let mut cases = vec![
        Case::sized("Gray8", 640, 560, 2, "text.ClipInfo"),
        Case::sized("YUV420P10", 640, 560, 1, "text.ClipInfo"),
        Case::sized("YUV411P8", 640, 560, 1, "text.ClipInfo"),
        Case::sized("YUV440P8", 640, 560, 1, "text.ClipInfo"),
        Case::sized("RGBS", 640, 560, 1, "text.ClipInfo:alignment=6"),
        Case::sized("YUV420PH", 640, 560, 1, "text.ClipInfo:alignment=2"),
        Case::sized("Gray8", 320, 240, 1, "text.ClipInfo:scale=2"),
        Case::sized("Gray8", 640, 560, 1, "std.SetFrameProps:_Matrix=1:_Primaries=9:_Transfer=16:_Range=1:_ChromaLocation=2:_FieldBased=2:_PictType='B:_SARNum=4:_SARDen=3,text.ClipInfo"),
        Case::sized("Gray8", 640, 560, 1, "std.RemoveFrameProps:props='_DurationNum,text.ClipInfo"),
        Case::sized("Gray8", 640, 560, 1, "std.SetFrameProps:_DurationNum=0,text.ClipInfo"),
        Case::sized("Gray8", 640, 560, 1, "std.BlankClip:@:width=640:height=560:format=268959744:varsize=1:length=2,text.ClipInfo"),
        Case::sized("Gray8", 640, 560, 1, "std.BlankClip:@:width=640:height=560:format=268959744:varformat=1:length=2,text.ClipInfo"),
        Case::sized("Gray8", 640, 560, 1, "std.BlankClip:@:width=640:height=560:format=268959744:fpsnum=0:length=2,text.ClipInfo"),
    ];
    let values: [(&str, &[i64]); 6] = [
        ("_Matrix", &[-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
        ("_Primaries", &[0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 22, 23]),
        ("_Transfer", &[0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]),
        ("_Range", &[-1, 0, 1, 2]),
        ("_ChromaLocation", &[-1, 0, 1, 2, 3, 4, 5, 6]),
        ("_FieldBased", &[-1, 0, 1, 2, 3]),
    ];
    for (key, vals) in values {
        for v in vals {
            cases.push(Case::sized("Gray8", 640, 560, 1, &format!("std.SetFrameProps:{key}={v},text.ClipInfo")));
        }
    }
    for sar in ["_SARNum=0:_SARDen=3", "_SARNum=4:_SARDen=0", "_SARNum=4", "_SARDen=3", "_SARNum=-4:_SARDen=3", "_PictType='", "_PictType='IB", "_PictType=5"] {
        cases.push(Case::sized("Gray8", 640, 560, 1, &format!("std.SetFrameProps:{sar},text.ClipInfo")));
    }
    check_all(&cases);
}

/// CoreInfo: our version text differs from R81's by nature, so only the clip it makes is compared,
/// and it must be drawn in the same place with the same number of lines (checked by drawing it
/// into a frame whose size leaves room for all of them).
#[test]
fn core_information() {
    for case in [Case::sized("Gray8", 640, 480, 2, "text.CoreInfo"), Case::sized("YUV420P8", 640, 480, 1, "text.CoreInfo:@"), Case::sized("RGB24", 640, 480, 1, "text.CoreInfo:alignment=5:scale=1")] {
        let want = run(&reference_core(), &case, &[]);
        let got = run(&our_core(), &case, &[]);
        assert!(want.ok() && got.ok(), "{}\n  reference: {}\n  ours:      {}", case.describe(), want.line, got.line);
        let clip = |r: &Run| r.fingerprint().split(" frames=").nth(1).unwrap_or_default().to_string();
        assert_eq!(clip(&got), clip(&want), "{}", case.describe());
    }
}

#[test]
fn whatever_the_threads() {
    check_modes(Case::sized("YUV420P8", 320, 240, 20, "text.FrameNum,text.FrameProps:alignment=3,text.ClipInfo:alignment=1"));
}

#[test]
fn errors() {
    let one = |f: &str, w: u32, h: u32, c: &str| Case::sized(f, w, h, 1, c);
    check_errors(&[
        one("Gray8", 320, 240, "text.Text"),
        one("Gray8", 320, 240, "text.FrameNum:alignment=0"),
        one("Gray8", 320, 240, "text.FrameNum:scale=0"),
        one("Gray8", 320, 240, "text.Text:text='a:scale=65537"),
        one("Gray8", 320, 240, "text.Text:text='a:scale=65536"),
        one("Gray8", 320, 240, "text.Text:text='a:scale=-1"),
        one("Gray8", 320, 240, "text.ClipInfo:alignment=10"),
        one("Gray8", 320, 240, "text.FrameProps:scale=0"),
        one("Gray8", 320, 240, "text.CoreInfo:alignment=0"),
        one("Gray8", 320, 240, "text.Text:text='a:alignment=0:scale=0"),
        one("Gray8", 320, 240, "std.BlankClip:@:format=270532608,text.FrameNum"),
        one("Gray8", 320, 240, "std.BlankClip:@:format=270532608,text.CoreInfo"),
        one("Gray32", 320, 240, "text.Text:text='a"),
        one("Gray8", 39, 48, "text.Text:text='a"),
        one("Gray8", 40, 47, "text.Text:text='a"),
        one("Gray8", 47, 64, "text.FrameNum:scale=2"),
        one("YUV420P8", 40, 62, "text.ClipInfo:scale=2"),
    ]);
}

/// Graph inspection records the filters of the built-in crates (text, and the std filters that
/// moved to vsvk-std) as R81 records its own: node name, creation function, plugin identifier and
/// namespace, argument keys (tests/oracle/creation.c).
#[test]
fn graph_inspection_records_them_as_r81_does() {
    use std::process::Command;
    use vsvk_tests::{oracle::compile_into, process, reference};
    let probe = compile_into(&reference::target_dir().join("vsvk-creation"), "creation", "tests/oracle/creation.c", false, &[])
        .unwrap_or_else(|e| panic!("cannot build the probe: {e}"));
    let run = |core: &std::path::Path| {
        let mut cmd = Command::new(&probe);
        cmd.arg(core);
        let out = process::run(cmd, std::time::Duration::from_secs(60));
        assert!(out.success() && out.stdout.ends_with("end\n"), "the probe failed on {}: {}", core.display(), out.describe());
        out.stdout
    };
    let want = run(&reference_core());
    assert!(want.contains("0: Text com.vapoursynth.text text args clip text"), "unexpected on R81:\n{want}");
    assert_eq!(run(&our_core()), want);
}
