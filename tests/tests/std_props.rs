//! The property and callback functions of `std` against the reference: SetFrameProp, SetFrameProps,
//! RemoveFrameProps, CopyFrameProps, ClipToProp, PropToClip, PlaneStats, FrameEval, ModifyFrame and
//! PEMVerifier. Every chain runs on R81 and on our core through the oracle driver (tests/oracle/driver.c)
//! over the vsvknoise source; the fingerprints (every pixel and frame property, the clip's format) or
//! the error lines must be identical. FrameEval and ModifyFrame get their callbacks from the test plugin
//! tests/plugins/vsvkfunc.c, which builds them with createFunction and invokes the std filter.
//!
//! Needs `scripts/setup.sh` (the reference) and our core built in release mode. Environment as for
//! tests/tests/oracle.rs (VSVK_REF, VSVK_CORE, VSVK_INCLUDE).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use vsvk_tests::reference;

const RUN_LIMIT: Duration = Duration::from_secs(180);

// ---- building the C programs ------------------------------------------------------------------------

struct Tools {
    driver: PathBuf,
    plugins: Vec<PathBuf>,
}

fn build_tools() -> Result<Tools, String> {
    let include = reference::include_dir()?;
    let root = reference::workspace_root();
    let out = reference::target_dir().join("vsvk-std");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let inc = format!("-I{}", include.display());
    let pid = std::process::id();
    let jobs: [(&str, &str, bool); 3] = [
        ("driver", "tests/oracle/driver.c", false),
        ("vsvknoise.so", "tests/plugins/vsvknoise.c", true),
        ("vsvkfunc.so", "tests/plugins/vsvkfunc.c", true),
    ];
    let mut built = Vec::new();
    for (name, source, shared) in jobs {
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
    let driver = built.remove(0);
    Ok(Tools { driver, plugins: built })
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
    chain: String,
    source: Vec<String>,
}

impl Case {
    fn video(format: &str, chain: &str) -> Case {
        Case::video_sized(format, 320, 240, 10, chain)
    }
    fn video_sized(format: &str, width: u32, height: u32, frames: u32, chain: &str) -> Case {
        let source = ["--format", format, "--width", &width.to_string(), "--height", &height.to_string(), "--frames", &frames.to_string(), "--seed", "7"];
        Case { chain: chain.to_string(), source: source.iter().map(|s| s.to_string()).collect() }
    }
    fn describe(&self) -> String {
        format!("{} | {}", self.source.join(" "), self.chain)
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
}

fn run(core: &Path, case: &Case, mode: &[&str]) -> Run {
    let t = tools();
    let mut cmd = Command::new(&t.driver);
    cmd.arg(core);
    for p in &t.plugins {
        cmd.arg("--plugin").arg(p);
    }
    cmd.args(&case.source).args(mode).arg(&case.chain);
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

fn reference_core() -> PathBuf {
    reference::reference_core().unwrap_or_else(|e| panic!("{e}"))
}

fn our_core() -> PathBuf {
    reference::our_core().unwrap_or_else(|e| panic!("{e}"))
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(12)..].join("\n")
}

/// Same fingerprint on both cores; the reference must succeed. Also with one thread and one request.
fn check(case: Case) {
    let want = run(&reference_core(), &case, &[]);
    assert!(want.ok(), "the reference fails, so the case is wrong: {}\n  {}\n{}", case.describe(), want.line, tail(&want.stderr));
    for mode in [&[][..], &["--threads", "1", "--requests", "1"], &["--threads", "7", "--requests", "16"]] {
        let got = run(&our_core(), &case, mode);
        assert!(
            got.fingerprint() == want.fingerprint(),
            "our core differs on {} [{}]\n  reference: {}\n  ours:      {}\n{}",
            case.describe(),
            mode.join(" "),
            want.fingerprint(),
            got.fingerprint(),
            tail(&got.stderr)
        );
    }
}

/// Both cores fail with the same line. Frames are fetched one at a time, in order, so that a failing
/// frame is always the first one to fail.
fn check_error(case: Case) {
    let mode = ["--requests", "1"];
    let want = run(&reference_core(), &case, &mode);
    assert!(want.line.starts_with("error:"), "the reference does not fail on {}: {}", case.describe(), want.line);
    let got = run(&our_core(), &case, &mode);
    assert!(got.line == want.line, "our core fails differently on {}\n  reference: {}\n  ours:      {}", case.describe(), want.line, got.line);
}

macro_rules! oracle {
    ($($(#[$attr:meta])* $name:ident => $case:expr;)*) => { $( #[test] $(#[$attr])* fn $name() { check($case) } )* };
}

macro_rules! oracle_error {
    ($($(#[$attr:meta])* $name:ident => $case:expr;)*) => { $( #[test] $(#[$attr])* fn $name() { check_error($case) } )* };
}

/// A second, different source: vsvknoise with another seed, in `format` (an id), `length` frames.
fn noise(format: u32, width: u32, height: u32, length: u32) -> String {
    format!("vsvknoise.Noise:@:width={width}:height={height}:length={length}:format={format}:seed=3")
}

const GRAY8: u32 = 0x1008_0000;
const GRAY16: u32 = 0x1010_0000;
const GRAYS: u32 = 0x1120_0000;
const YUV420P8: u32 = 0x3008_0101;
const YUV420P10: u32 = 0x300a_0101;
const YUV444PH: u32 = 0x3110_0000;
const RGB24: u32 = 0x2008_0000;

// ---- SetFrameProp, SetFrameProps, RemoveFrameProps, CopyFrameProps ----------------------------------

oracle! {
    setframeprop_int => Case::video("YUV420P8", "std.SetFrameProp:prop='VsvkNew:intval=3:intval=-4");
    setframeprop_float_replaces => Case::video("YUV420P8", "std.SetFrameProp:prop='VsvkFrame:floatval=0.5:floatval=1.5");
    setframeprop_data => Case::video("Gray16", "std.SetFrameProp:prop='VsvkTag:data='xx:data='yy");
    setframeprops_kinds => Case::video("YUV420P8", "std.SetFrameProps:VsvkExtra=5:VsvkName='seven:VsvkList=2.5:VsvkBlob=1:VsvkBlob=2");
    setframeprops_nothing => Case::video("RGB24", "std.SetFrameProps");
    removeframeprops_all => Case::video("YUV420P8", "std.RemoveFrameProps");
    removeframeprops_names => Case::video("YUV420P8", "std.RemoveFrameProps:props='VsvkTag:props='Nope:props='_DurationNum");
    removeframeprops_globs => Case::video("YUV420P8", "std.RemoveFrameProps:props='Vsvk*:props='_Dur?tionNum");
    removeframeprops_glob_middle => Case::video("YUV420P8", "std.RemoveFrameProps:props='V*L*");
    removeframeprops_no_classes => Case::video("YUV420P8", "std.RemoveFrameProps:props='VsvkTa[gx]:props='VsvkBlo\\b");
    copyframeprops_all => Case::video("YUV420P8", "std.BlankClip:@:clip=$0,std.CopyFrameProps:@:clip=$1:prop_src=$0");
    copyframeprops_some => Case::video("YUV420P8", "std.BlankClip:@:clip=$0,std.CopyFrameProps:@:clip=$1:prop_src=$0:props='VsvkTag:props='_DurationNum:props='Nope:props='Vsvk*");
    copyframeprops_missing_removes => Case::video("YUV420P8", "std.BlankClip:@:clip=$0,std.CopyFrameProps:@:clip=$0:prop_src=$1:props='VsvkTag:props='_DurationDen");
    copyframeprops_short_source => Case::video("YUV420P8", "std.BlankClip:@:clip=$0:length=3,std.SetFrameProps:Short=1,std.CopyFrameProps:@:clip=$0:prop_src=$2");
    copyframeprops_other_format => Case::video("YUV420P8", &format!("{},std.CopyFrameProps:@:clip=$1:prop_src=$0", noise(GRAY8, 64, 48, 4)));
}

oracle_error! {
    error_setframeprop_bad_name => Case::video("YUV420P8", "std.SetFrameProp:prop='1x:intval=1");
    error_setframeprop_empty_name => Case::video("YUV420P8", "std.SetFrameProp:prop=':intval=1");
    error_setframeprop_no_value => Case::video("YUV420P8", "std.SetFrameProp:prop='x");
    error_setframeprop_two_values => Case::video("YUV420P8", "std.SetFrameProp:prop='x:intval=1:data='d");
    error_setframeprops_node => Case::video("YUV420P8", "std.SetFrameProps:B=$0:A=1");
    error_setframeprops_first_bad_key => Case::video("YUV420P8", "std.SetFrameProps:B=$0:A=$0");
    error_copyframeprops_audio => Case::video("YUV420P8", "std.BlankAudio:@,std.CopyFrameProps:@:clip=$0:prop_src=$1");
}

// ---- ClipToProp, PropToClip -------------------------------------------------------------------------

oracle! {
    cliptoprop_default => Case::video("YUV420P8", &format!("{},std.ClipToProp:@:clip=$0:mclip=$1", noise(GRAY8, 32, 16, 4)));
    cliptoprop_named_longer => Case::video("YUV420P8", &format!("{},std.ClipToProp:@:clip=$0:mclip=$1:prop='M", noise(GRAY8, 32, 16, 14)));
    proptoclip_round_trip => Case::video("YUV420P10", &format!("{},std.ClipToProp:@:clip=$0:mclip=$1:prop='M,std.PropToClip:prop='M", noise(YUV420P8, 32, 16, 14)));
    proptoclip_itself => Case::video("RGB24", "std.ClipToProp:mclip=$0,std.PropToClip");
    proptoclip_index => Case::video("YUV420P8", &format!("{},std.ClipToProp:@:clip=$0:mclip=$1,std.ClipToProp:mclip=$0,std.PropToClip:index=0", noise(GRAY8, 32, 16, 10)));
}

oracle_error! {
    error_cliptoprop_bad_name => Case::video("YUV420P8", "std.ClipToProp:mclip=$0:prop='");
    error_cliptoprop_variable => Case::video("YUV420P8", "std.BlankClip:@:varsize=1,std.ClipToProp:@mclip:clip=$0");
    error_proptoclip_nothing => Case::video("YUV420P8", "std.PropToClip:prop='VsvkTag");
    error_proptoclip_index_out => Case::video("YUV420P8", "std.ClipToProp:mclip=$0,std.PropToClip:index=1");
    error_proptoclip_negative => Case::video("YUV420P8", "std.PropToClip:index=-1:prop='");
    error_proptoclip_empty_name => Case::video("YUV420P8", "std.PropToClip:prop='");
    error_proptoclip_mismatch => Case::video_sized("YUV420P8", 64, 48, 4, &format!(
        "{},{},std.ClipToProp:@:clip=$0:mclip=$1,std.ClipToProp:@:clip=$0:mclip=$2,vsvkfunc.Eval:@:clip=$3:clips=$3:clips=$4,std.PropToClip",
        noise(GRAY8, 32, 16, 4),
        noise(GRAY8, 16, 16, 4)
    ));
    error_proptoclip_missing_later => Case::video_sized("YUV420P8", 64, 48, 4, &format!(
        "{},std.ClipToProp:@:clip=$0:mclip=$1,vsvkfunc.Eval:@:clip=$2:clips=$2:clips=$0,std.PropToClip",
        noise(GRAY8, 32, 16, 4)
    ));
}

// ---- PlaneStats -------------------------------------------------------------------------------------

oracle! {
    planestats_yuv420p8 => Case::video("YUV420P8", "std.PlaneStats:@clipa");
    planestats_chroma => Case::video("YUV420P8", "std.PlaneStats:@clipa:plane=1");
    planestats_odd_size => Case::video_sized("YUV444P8", 333, 97, 5, "std.PlaneStats:@clipa:plane=2:prop='Odd");
    planestats_gray16 => Case::video("Gray16", "std.PlaneStats:@clipa");
    planestats_yuv420p10 => Case::video("YUV420P10", "std.PlaneStats:@clipa:plane=2");
    planestats_half => Case::video("YUV444PH", "std.PlaneStats:@clipa:plane=1");
    planestats_float => Case::video_sized("GrayS", 640, 480, 6, "std.PlaneStats:@clipa");
    planestats_diff_8 => Case::video("Gray8", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1", noise(GRAY8, 320, 240, 10)));
    planestats_diff_16 => Case::video("Gray16", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1:prop='X", noise(GRAY16, 320, 240, 10)));
    planestats_diff_10 => Case::video("YUV420P10", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1:plane=1", noise(YUV420P10, 320, 240, 10)));
    planestats_diff_float => Case::video_sized("GrayS", 640, 480, 6, &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1", noise(GRAYS, 640, 480, 6)));
    planestats_diff_half => Case::video("YUV444PH", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1:plane=2", noise(YUV444PH, 320, 240, 3)));
    planestats_diff_short_b => Case::video("RGB24", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1", noise(RGB24, 320, 240, 3)));
    planestats_chained => Case::video("YUV420P8", "std.PlaneStats:@clipa,std.PlaneStats:@clipa:plane=1:prop='U,std.PlaneStats:@clipa:plane=2:prop='V");
}

oracle_error! {
    error_planestats_format => Case::video("YUV420P8", "std.BlankClip:@:format=270532608,std.PlaneStats:@clipa");
    error_planestats_variable_format => Case::video("YUV420P8", "std.BlankClip:@:varformat=1,std.PlaneStats:@clipa");
    error_planestats_plane => Case::video("YUV420P8", "std.PlaneStats:@clipa:plane=3");
    error_planestats_negative_plane => Case::video("GrayS", "std.PlaneStats:@clipa:plane=-1");
    error_planestats_clipb_format => Case::video("YUV420P8", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1:prop='", noise(GRAY8, 320, 240, 10)));
    error_planestats_clipb_size => Case::video("YUV420P8", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1", noise(YUV420P8, 64, 48, 10)));
    error_planestats_clipb_variable => Case::video("YUV420P8", "std.BlankClip:@:clip=$0:varsize=1,std.PlaneStats:@:clipa=$0:clipb=$1");
    error_planestats_variable_both => Case::video("YUV420P8", "std.BlankClip:@:clip=$0:varsize=1,std.PlaneStats:@:clipa=$1:clipb=$1");
    error_planestats_prop => Case::video("YUV420P8", "std.PlaneStats:@clipa:prop='1x");
}

// ---- FrameEval --------------------------------------------------------------------------------------

/// A second clip for the callbacks to choose from: BlankClip like the source.
const BLANK: &str = "std.BlankClip:@:clip=$0";

fn eval(args: &str) -> String {
    format!("{BLANK},vsvkfunc.Eval:@:clip=$0:clips=$0:clips=$1{args}")
}

fn modify(args: &str) -> String {
    format!("{BLANK},vsvkfunc.Modify:@:clip=$0:clips=$0:clips=$1{args}")
}

oracle! {
    frameeval_by_frame_number => Case::video("YUV420P8", &eval(""));
    frameeval_first_value => Case::video("YUV420P8", &eval(":mode=6"));
    frameeval_prop_src => Case::video("YUV420P8", &eval(":mode=1:prop_src=$0"));
    frameeval_two_prop_src => Case::video("YUV420P8", &eval(":mode=1:prop_src=$1:prop_src=$0"));
    frameeval_f_only_with_prop_src => Case::video("YUV420P8", &eval(":mode=5:prop_src=$0:prop_src=$1"));
    frameeval_no_f_without_prop_src => Case::video("YUV420P8", &eval(":mode=5"));
    frameeval_clip_src => Case::video("Gray16", &eval(":clip_src=$1:clip_src=$0"));
    frameeval_short_clip => Case::video("YUV420P8", "std.BlankClip:@:clip=$0:length=2,vsvkfunc.Eval:@:clip=$0:clips=$0:clips=$1");
    frameeval_variable_format => Case::video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:format={GRAY8}:width=64:height=48:varformat=1:length=6,vsvkfunc.Eval:@:clip=$1:clips=$0:clips=$1"));
    frameeval_variable_everything => Case::video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:format={GRAY8}:width=32:height=48:varformat=1:varsize=1:length=6,vsvkfunc.Eval:@:clip=$1:clips=$0:clips=$1"));
    frameeval_chained => Case::video("YUV420P8", &format!("{},vsvkfunc.Eval:@:clip=$0:clips=$2:clips=$0:mode=1:prop_src=$2", eval("")));
}

oracle_error! {
    error_frameeval_wrong_key => Case::video("YUV420P8", &eval(":key='clip"));
    error_frameeval_no_f => Case::video("YUV420P8", &eval(":mode=1"));
    error_frameeval_callback_error => Case::video("YUV420P8", &eval(":mode=2"));
    error_frameeval_int => Case::video("YUV420P8", &eval(":mode=3"));
    error_frameeval_nothing => Case::video("YUV420P8", &eval(":mode=4"));
    error_frameeval_dimensions => Case::video("YUV420P8", &format!("std.BlankClip:@:format={GRAY8},vsvkfunc.Eval:@:clip=$0:clips=$0:clips=$1"));
    error_frameeval_format => Case::video_sized("YUV420P8", 64, 48, 6, &format!("std.BlankClip:@:format={GRAY8}:width=64:height=48,vsvkfunc.Eval:@:clip=$0:clips=$0:clips=$1"));
    error_frameeval_format_variable_size => Case::video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:format={GRAY8}:width=64:height=48:varsize=1,vsvkfunc.Eval:@:clip=$1:clips=$0:clips=$1"));
}

// ---- ModifyFrame ------------------------------------------------------------------------------------

oracle! {
    modifyframe_copy_and_set => Case::video("YUV420P8", &modify(""));
    modifyframe_pass_through => Case::video("YUV420P8", &modify(":mode=1"));
    modifyframe_one_clip => Case::video("GrayS", "vsvkfunc.Modify:clips=$0");
    modifyframe_short_clip => Case::video("YUV420P8", "std.BlankClip:@:clip=$0:length=2,vsvkfunc.Modify:@:clip=$0:clips=$0:clips=$1");
    modifyframe_short_output => Case::video("YUV420P8", "std.BlankClip:@:clip=$0:length=2,vsvkfunc.Modify:@:clip=$1:clips=$0:clips=$1");
    modifyframe_variable_size => Case::video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:width=64:height=48:format={YUV420P8}:varsize=1:length=6,vsvkfunc.Modify:@:clip=$1:clips=$0:clips=$1:mode=1"));
    modifyframe_variable_everything => Case::video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:width=64:height=48:format={YUV420P8}:varsize=1:varformat=1:length=6,vsvkfunc.Modify:@:clip=$1:clips=$0:mode=5"));
}

oracle_error! {
    error_modifyframe_wrong_key => Case::video("YUV420P8", &modify(":key='clip"));
    error_modifyframe_callback_error => Case::video("YUV420P8", &modify(":mode=2"));
    error_modifyframe_nothing => Case::video("YUV420P8", &modify(":mode=3"));
    error_modifyframe_int => Case::video("YUV420P8", &modify(":mode=4"));
    error_modifyframe_format => Case::video("YUV420P8", &modify(":mode=5"));
    error_modifyframe_dimensions => Case::video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:width=32:height=48:format={YUV420P8},vsvkfunc.Modify:@:clip=$0:clips=$0:clips=$1:mode=1"));
    error_modifyframe_dimensions_variable_format => Case::video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:width=64:height=48:format={YUV420P8}:varformat=1,vsvkfunc.Modify:@:clip=$1:clips=$0:mode=5"));
}

// ---- PEMVerifier ------------------------------------------------------------------------------------

oracle! {
    pemverifier_defaults => Case::video("YUV420P8", "std.PEMVerifier");
    pemverifier_float_defaults => Case::video("YUV444PS", "std.PEMVerifier");
    pemverifier_limits_hold => Case::video("YUV420P16", "std.PEMVerifier:lower=0.0:lower=0.0:lower=0.0:upper=65535.0:upper=65535.0:upper=65535.0");
    pemverifier_rounded_limits => Case::video("Gray8", "std.PEMVerifier:lower=-0.4:upper=255.4");
}

oracle_error! {
    error_pemverifier_upper => Case::video("YUV420P8", "std.PEMVerifier:upper=255.0:upper=255.0:upper=100.0");
    error_pemverifier_lower => Case::video("YUV420P8", "std.PEMVerifier:lower=0.0:lower=100.0:lower=0.0");
    error_pemverifier_unscaled => Case::video("YUV420P16", "std.PEMVerifier:upper=255.0:upper=255.0:upper=100.0");
    error_pemverifier_float => Case::video("YUV444PS", "std.PEMVerifier:lower=0.0:lower=0.0:lower=0.0");
    error_pemverifier_half => Case::video("GrayH", "std.PEMVerifier:lower=0.5");
    error_pemverifier_rounding => Case::video("Gray8", "std.PEMVerifier:lower=20.5");
    error_pemverifier_count_lower => Case::video("YUV420P8", "std.PEMVerifier:lower=300.0:lower=0.0:upper=1.0");
    error_pemverifier_count_upper => Case::video("YUV420P8", "std.PEMVerifier:lower=0.0:lower=0.0:lower=0.0:upper=1.0");
    error_pemverifier_lower_range => Case::video("YUV420P8", "std.PEMVerifier:lower=0.0:lower=0.0:lower=300.0:upper=1.0:upper=300.0:upper=1.0");
    error_pemverifier_upper_range => Case::video("Gray8", "std.PEMVerifier:upper=255.6");
    error_pemverifier_upper_below_lower => Case::video("Gray8", "std.PEMVerifier:lower=5.6:upper=5.4");
    error_pemverifier_format => Case::video("YUV420P8", "std.BlankClip:@:format=270532608,std.PEMVerifier");
    error_pemverifier_variable_format => Case::video("YUV420P8", "std.BlankClip:@:varformat=1,std.PEMVerifier");
}
