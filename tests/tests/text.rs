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

use std::fmt::Write as _;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use vsvk_tests::reference;

const RUN_LIMIT: Duration = Duration::from_secs(180);

// ---- building the C programs ------------------------------------------------------------------------

struct Tools {
    driver: PathBuf,
    noise: PathBuf,
}

fn build_tools() -> Result<Tools, String> {
    let include = reference::include_dir()?;
    let root = reference::workspace_root();
    let out = reference::target_dir().join("vsvk-text");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let inc = format!("-I{}", include.display());
    let pid = std::process::id();
    let mut built = Vec::new();
    for (name, source, shared) in [("driver", "tests/oracle/driver.c", false), ("vsvknoise.so", "tests/plugins/vsvknoise.c", true)] {
        let target = out.join(name);
        let mut args: Vec<&str> = vec!["-O2", "-Wall", "-Wextra", "-Werror", &inc, source];
        if shared {
            args.extend(["-shared", "-fPIC"]);
        } else {
            args.extend(["-ldl", "-lpthread"]);
        }
        // build beside the target and rename, so that other test processes never see half a file
        let tmp = target.with_extension(format!("tmp{pid}"));
        let result = Command::new("gcc").args(&args).arg("-o").arg(&tmp).current_dir(&root).output().map_err(|e| format!("cannot run gcc: {e}"))?;
        if !result.status.success() {
            return Err(format!("gcc {} failed:\n{}", args.join(" "), String::from_utf8_lossy(&result.stderr)));
        }
        std::fs::rename(&tmp, &target).map_err(|e| format!("cannot rename {}: {e}", tmp.display()))?;
        built.push(target);
    }
    let noise = built.pop().expect("two programs");
    let driver = built.pop().expect("two programs");
    Ok(Tools { driver, noise })
}

fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Result<Tools, String>> = OnceLock::new();
    match TOOLS.get_or_init(build_tools) {
        Ok(t) => t,
        Err(e) => panic!("cannot build the C programs: {e}"),
    }
}

// ---- cases and runs ---------------------------------------------------------------------------------

#[derive(Clone)]
struct Case {
    /// Raw bytes: Text's argument may hold any byte but NUL, ',' and ':' (the driver's separators).
    chain: Vec<u8>,
    source: Vec<String>,
}

impl Case {
    fn sized(format: &str, width: u32, height: u32, frames: u32, chain: &str) -> Case {
        Case::bytes(format, width, height, frames, chain.as_bytes())
    }
    fn bytes(format: &str, width: u32, height: u32, frames: u32, chain: &[u8]) -> Case {
        let source = ["--format", format, "--width", &width.to_string(), "--height", &height.to_string(), "--frames", &frames.to_string(), "--seed", "7"];
        Case { chain: chain.to_vec(), source: source.iter().map(|s| s.to_string()).collect() }
    }
    fn video(format: &str, chain: &str) -> Case {
        Case::sized(format, 320, 240, 2, chain)
    }
    fn describe(&self) -> String {
        format!("{} | {}", self.source.join(" "), String::from_utf8_lossy(&self.chain).escape_debug())
    }
}

struct Run {
    line: String,
    stderr: String,
}

impl Run {
    fn ok(&self) -> bool {
        self.line.starts_with("ok ")
    }
    fn fingerprint(&self) -> &str {
        match self.line.find(" threads=") {
            Some(i) if self.ok() => &self.line[..i],
            _ => &self.line,
        }
    }
    fn stderr_tail(&self) -> String {
        let lines: Vec<&str> = self.stderr.lines().collect();
        lines[lines.len().saturating_sub(10)..].join("\n")
    }
}

fn run_args(core: &Path, args: &[OsString]) -> Run {
    let t = tools();
    let mut cmd = Command::new(&t.driver);
    cmd.arg(core).arg("--plugin").arg(&t.noise).args(args);
    cmd.env("LD_LIBRARY_PATH", reference::library_path()).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {}: {e}", t.driver.display()));
    let mut out_pipe = child.stdout.take().expect("piped");
    let mut err_pipe = child.stderr.take().expect("piped");
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out_pipe.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err_pipe.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting for the driver") {
            break Some(s);
        }
        if start.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let last = stdout.lines().rev().find(|l| l.starts_with("ok ") || l.starts_with("error:"));
    let line = match (status, last) {
        (None, _) => format!("hung: killed after {} s", RUN_LIMIT.as_secs()),
        (Some(_), Some(l)) => l.to_string(),
        (Some(s), None) => format!("crashed: {s}, no result line (stdout: {:?})", stdout.trim()),
    };
    Run { line, stderr }
}

fn run(core: &Path, case: &Case, mode: &[&str]) -> Run {
    let mut args: Vec<OsString> = case.source.iter().map(OsString::from).collect();
    args.extend(mode.iter().map(OsString::from));
    args.push(OsString::from_vec(case.chain.clone()));
    run_args(core, &args)
}

fn reference_core() -> PathBuf {
    reference::reference_core().unwrap_or_else(|e| panic!("{e}"))
}

fn our_core() -> PathBuf {
    reference::our_core().unwrap_or_else(|e| panic!("{e}"))
}

/// Runs every case on both cores; the fingerprints must match (and R81 must succeed).
fn check_all(cases: &[Case]) {
    let mut failures = String::new();
    for case in cases {
        let want = run(&reference_core(), case, &[]);
        if !want.ok() {
            let _ = writeln!(failures, "the reference fails, so the case is wrong: {}\n  {}\n{}", case.describe(), want.line, want.stderr_tail());
            continue;
        }
        let got = run(&our_core(), case, &[]);
        if got.fingerprint() != want.fingerprint() {
            let _ = writeln!(failures, "{}\n  reference: {}\n  ours:      {}\n{}", case.describe(), want.fingerprint(), got.fingerprint(), got.stderr_tail());
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

/// Every case must fail on both cores with the same line. One frame and one request at a time, so
/// that an error raised while making frames names the same frame on both.
fn check_errors(cases: &[Case]) {
    let mut failures = String::new();
    let mode = ["--requests", "1"];
    for case in cases {
        let want = run(&reference_core(), case, &mode);
        if !want.line.starts_with("error:") {
            let _ = writeln!(failures, "the reference does not fail on {}: {}", case.describe(), want.line);
            continue;
        }
        let got = run(&our_core(), case, &mode);
        if got.line != want.line {
            let _ = writeln!(failures, "{}\n  reference: {}\n  ours:      {}", case.describe(), want.line, got.line);
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

/// The same output whatever the threads, the requests in flight and the fetching mode.
fn check_modes(case: Case) {
    let want = run(&reference_core(), &case, &[]);
    assert!(want.ok(), "the reference fails on {}: {}", case.describe(), want.line);
    let modes: [&[&str]; 4] = [&["--threads", "1"], &["--threads", "7", "--requests", "1"], &["--threads", "32", "--requests", "64"], &["--threads", "4", "--sync", "--requests", "3"]];
    let mut failures = String::new();
    for mode in modes {
        let got = run(&our_core(), &case, mode);
        if got.fingerprint() != want.fingerprint() {
            let _ = writeln!(failures, "{} [{}]\n  reference: {}\n  ours:      {}", case.describe(), mode.join(" "), want.fingerprint(), got.fingerprint());
        }
    }
    assert!(failures.is_empty(), "{failures}");
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
    let listing = |core: &Path| {
        let t = tools();
        let out = Command::new(&t.driver)
            .arg(core)
            .args(["--list", "text"])
            .env("LD_LIBRARY_PATH", reference::library_path())
            .output()
            .expect("driver runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let want = listing(&reference_core());
    assert!(want.contains("text.Text("), "the reference lists no text functions:\n{want}");
    assert_eq!(listing(&our_core()), want);
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
            cases.push(Case::video("YUV420P8", &format!("text.Text:text='Ab cd\nefg:alignment={a}:scale={s}")));
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
