//! The oracle: every chain runs on the reference core (VapourSynth R81) and on ours through the same C
//! driver (tests/oracle/driver.c) and the same source plugin (tests/plugins/vsvknoise.c), and the
//! fingerprints they print (a hash of every pixel, sample and frame property, the frame count and
//! the clip's format) must be identical.
//!
//! Needs `scripts/setup.sh` (the reference and the plugins) and our core built in release mode
//! (`scripts/test.sh` does both builds). Environment:
//!   VSVK_REF      the reference folder (default ~/.cache/vsvk-ref)
//!   VSVK_CORE     the core under test (default target/release/libvsvk.so); pointing it at the
//!                 reference core itself checks the harness
//!   VSVK_INCLUDE  the API headers the C programs are built against (default the reference's)

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use vsvk_tests::reference;

/// How long one driver run may take before it counts as hung.
const RUN_LIMIT: Duration = Duration::from_secs(180);

// ---- building the C programs --------------------------------------------------------------------------

struct Tools {
    driver: PathBuf,
    noise: PathBuf,
}

fn build_tools() -> Result<Tools, String> {
    let include = reference::include_dir()?;
    let root = reference::workspace_root();
    let out = reference::target_dir().join("vsvk-oracle");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let driver = out.join("driver");
    let noise = out.join("vsvknoise.so");
    let pid = std::process::id();
    let inc = format!("-I{}", include.display());
    let jobs: [(&Path, Vec<&str>); 2] = [
        (&driver, vec!["-O2", "-Wall", "-Wextra", "-Werror", &inc, "tests/oracle/driver.c", "-ldl", "-lpthread"]),
        (&noise, vec!["-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", &inc, "tests/plugins/vsvknoise.c"]),
    ];
    for (target, args) in jobs.iter() {
        // build beside the target and rename, so that other test processes never see half a file
        let tmp = target.with_extension(format!("tmp{pid}"));
        let result = Command::new("gcc")
            .args(args)
            .arg("-o")
            .arg(&tmp)
            .current_dir(&root)
            .output()
            .map_err(|e| format!("cannot run gcc: {e}"))?;
        if !result.status.success() {
            return Err(format!(
                "gcc {} failed:\n{}",
                args.join(" "),
                String::from_utf8_lossy(&result.stderr)
            ));
        }
        std::fs::rename(&tmp, target).map_err(|e| format!("cannot rename {}: {e}", tmp.display()))?;
    }
    Ok(Tools { driver, noise })
}

fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Result<Tools, String>> = OnceLock::new();
    match TOOLS.get_or_init(build_tools) {
        Ok(t) => t,
        Err(e) => panic!("cannot build the oracle's C programs: {e}"),
    }
}

fn reference_core() -> PathBuf {
    reference::reference_core().unwrap_or_else(|e| panic!("{e}"))
}

fn our_core() -> PathBuf {
    reference::our_core().unwrap_or_else(|e| panic!("{e}"))
}

// ---- cases ----------------------------------------------------------------------------------------------

/// One clip to produce: the source (video or audio) and the chain of filters after it.
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
        Case {
            chain: chain.to_string(),
            source: ["--format", format, "--width", &width.to_string(), "--height", &height.to_string(),
                     "--frames", &frames.to_string(), "--seed", "7"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }

    /// `bits` 16, 24 or 32 for integer samples, 0 for 32-bit float; `channels` a channel layout mask.
    fn audio(bits: u32, channels: u64, chain: &str) -> Case {
        let mut source: Vec<String> = ["--audio", "--samples", "100000", "--samplerate", "44100", "--channels"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        source.push(channels.to_string());
        if bits == 0 {
            source.push("--float".into());
        } else {
            source.push("--bits".into());
            source.push(bits.to_string());
        }
        Case { chain: chain.to_string(), source }
    }

    /// The plugins the chain's namespaces need.
    fn plugins(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for step in self.chain.split(',') {
            let ns = step.split('.').next().unwrap_or("");
            if let Some(p) = reference::plugin_for_namespace(ns) {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }

    fn describe(&self) -> String {
        format!("{} | {}", self.source.join(" "), self.chain)
    }
}

/// What one run printed: the fingerprint (its line without the parts that may differ between
/// equivalent runs: the thread count and the speed), and stderr for the failure messages.
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
        let from = lines.len().saturating_sub(15);
        lines[from..].join("\n")
    }
}

fn run(core: &Path, case: &Case, mode: &[&str]) -> Run {
    let t = tools();
    let mut cmd = Command::new(&t.driver);
    cmd.arg(core).arg("--plugin").arg(&t.noise);
    for p in case.plugins() {
        cmd.arg("--plugin").arg(p);
    }
    cmd.args(&case.source).args(mode).arg(&case.chain);
    cmd.env("LD_LIBRARY_PATH", reference::library_path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {}: {e}", t.driver.display()));
    // drain both pipes on their own threads so that a chatty child never blocks
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
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
        if let Some(status) = child.try_wait().expect("waiting for the driver") {
            break Some(status);
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

/// The reference's fingerprint of a case, which must be a success.
fn reference_run(case: &Case) -> Run {
    let r = run(&reference_core(), case, &[]);
    assert!(
        r.ok(),
        "the reference core fails on this case, so the case is wrong: {}\n  {}\n{}",
        case.describe(),
        r.line,
        r.stderr_tail()
    );
    r
}

fn mismatch(case: &Case, mode: &[&str], want: &Run, got: &Run) -> String {
    format!(
        "our core differs from the reference on {} [{}]\n  reference: {}\n  ours:      {}\n{}",
        case.describe(),
        mode.join(" "),
        want.fingerprint(),
        got.fingerprint(),
        got.stderr_tail()
    )
}

/// The case must give the reference's fingerprint on our core.
fn check(case: Case) {
    let want = reference_run(&case);
    let got = run(&our_core(), &case, &[]);
    assert!(got.fingerprint() == want.fingerprint(), "{}", mismatch(&case, &[], &want, &got));
}

/// The case must fail on both cores with the same message (errors from plugins, passed through).
fn check_error(case: Case) {
    let want = run(&reference_core(), &case, &[]);
    assert!(want.line.starts_with("error:"), "the reference core does not fail on {}: {}", case.describe(), want.line);
    let got = run(&our_core(), &case, &[]);
    assert!(got.line == want.line, "{}", mismatch(&case, &[], &want, &got));
}

/// The case must give the reference's fingerprint whatever the thread count, the number of requests
/// in flight, and with the synchronous getFrame.
fn check_modes(case: Case) {
    let want = reference_run(&case);
    // the case itself must be deterministic on the reference, or comparing against it means nothing
    let again = run(&reference_core(), &case, &["--threads", "1", "--requests", "1"]);
    assert!(
        again.fingerprint() == want.fingerprint(),
        "the reference core is not deterministic on {}:\n  {}\n  {}",
        case.describe(),
        want.fingerprint(),
        again.fingerprint()
    );
    let ours = our_core();
    let modes: [&[&str]; 8] = [
        &["--threads", "1"],
        &["--threads", "2"],
        &["--threads", "7"],
        &["--threads", "32"],
        &["--threads", "7", "--requests", "1"],
        &["--threads", "32", "--requests", "64"],
        &["--threads", "2", "--sync"],
        &["--threads", "7", "--sync", "--requests", "4"],
    ];
    let mut failures = String::new();
    for mode in modes {
        let got = run(&ours, &case, mode);
        if got.fingerprint() != want.fingerprint() {
            let _ = writeln!(failures, "{}", mismatch(&case, mode, &want, &got));
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

// ---- the harness itself, on the reference alone ------------------------------------------------------------

/// The driver and the noise source give one answer on the reference core whatever the threads, the
/// requests in flight or the fetching mode, for every kind of format. Needs only the reference.
#[test]
fn harness_is_deterministic_on_the_reference() {
    let core = reference_core();
    let cases = [
        Case::video("YUV420P8", "-"),
        Case::video("YUV420P10", "-"),
        Case::video("YUV444PH", "-"),
        Case::video("RGBS", "-"),
        Case::video("YUV420P8", "cas.CAS,bwdif.Bwdif:field=1,znedi3.nnedi3:field=0,zsmooth.RemoveGrain:mode=12"),
        Case::audio(24, 3, "-"),
    ];
    for case in cases {
        let first = run(&core, &case, &["--threads", "1"]);
        assert!(first.ok(), "{}: {}\n{}", case.describe(), first.line, first.stderr_tail());
        for mode in [&["--threads", "7"][..], &["--threads", "32", "--requests", "3"], &["--threads", "4", "--sync", "--requests", "3"]] {
            let other = run(&core, &case, mode);
            assert_eq!(first.fingerprint(), other.fingerprint(), "{} [{}]", case.describe(), mode.join(" "));
        }
    }
    // different sources give different fingerprints
    let a = run(&core, &Case::video("YUV420P8", "-"), &[]);
    let mut seeded = Case::video("YUV420P8", "-");
    seeded.source.extend(["--seed".to_string(), "8".to_string()]);
    let b = run(&core, &seeded, &[]);
    assert!(a.ok() && b.ok() && a.fingerprint() != b.fingerprint(), "the seed changes nothing: {} / {}", a.line, b.line);
}

/// Errors come back as one "error:" line and exit status 1.
#[test]
fn harness_reports_errors() {
    let r = run(&reference_core(), &Case::video("YUV420P8", "nosuch.Filter"), &[]);
    assert!(r.line.starts_with("error:") && r.line.contains("nosuch"), "{}", r.line);
    let r = run(&reference_core(), &Case::video("YUV420P8", "std.Crop:left=-5"), &[]);
    assert!(r.line.starts_with("error:"), "{}", r.line);
}

// ---- the cases ---------------------------------------------------------------------------------------------

macro_rules! oracle {
    ($($(#[$attr:meta])* $name:ident => $case:expr;)*) => { $( #[test] $(#[$attr])* fn $name() { check($case) } )* };
}

macro_rules! oracle_modes {
    ($($(#[$attr:meta])* $name:ident => $case:expr;)*) => { $( #[test] $(#[$attr])* fn $name() { check_modes($case) } )* };
}

macro_rules! oracle_error {
    ($($(#[$attr:meta])* $name:ident => $case:expr;)*) => { $( #[test] $(#[$attr])* fn $name() { check_error($case) } )* };
}

const FOUR: &str = "cas.CAS,bwdif.Bwdif:field=1,znedi3.nnedi3:field=0,zsmooth.RemoveGrain:mode=12";

/// dfttest2_cpu takes its window and per-frequency sigma as flat arrays: a flat window for 16x16
/// blocks (scaled so the output keeps its level) and one sigma per frequency bin (16 x 9).
fn dfttest(extra: &str) -> String {
    let mut s = String::from("dfttest2_cpu.DFTTest");
    for _ in 0..256 {
        s.push_str(":window=0.03125");
    }
    for _ in 0..16 * 9 {
        s.push_str(":sigma=8.0");
    }
    s.push_str(":sigma2=8.0:pmin=0.0:pmax=500.0:filter_type=0:radius=0:block_size=16:block_step=12:zero_mean=0");
    s.push_str(extra);
    s
}

const MV_BW_FW: &str = "mv.Super,mv.Analyse:@super:isb=1,mv.Analyse:@:super=$1:isb=0";

fn mv(tail: &str) -> String {
    format!("{MV_BW_FW},{tail}")
}

// The four named plugins, alone and chained, over formats of every kind.
oracle! {
    cas_yuv420p8 => Case::video("YUV420P8", "cas.CAS");
    cas_yuv420p16 => Case::video("YUV420P16", "cas.CAS:sharpness=0.8");
    cas_grays => Case::video("GrayS", "cas.CAS");
    cas_rgb24 => Case::video("RGB24", "cas.CAS");
    cas_yuv444ps => Case::video("YUV444PS", "cas.CAS:planes=0:planes=1:planes=2");
    cas_yuv422p10 => Case::video("YUV422P10", "cas.CAS");
    bwdif_yuv420p8 => Case::video("YUV420P8", "bwdif.Bwdif:field=1");
    bwdif_yuv420p16 => Case::video("YUV420P16", "bwdif.Bwdif:field=1");
    bwdif_grays => Case::video("GrayS", "bwdif.Bwdif:field=1");
    bwdif_rgb24 => Case::video("RGB24", "bwdif.Bwdif:field=0");
    bwdif_double_rate => Case::video("YUV420P8", "bwdif.Bwdif:field=3");
    znedi3_yuv420p8 => Case::video("YUV420P8", "znedi3.nnedi3:field=0");
    znedi3_yuv420p16 => Case::video("YUV420P16", "znedi3.nnedi3:field=0");
    znedi3_grays => Case::video("GrayS", "znedi3.nnedi3:field=0");
    znedi3_rgb24 => Case::video("RGB24", "znedi3.nnedi3:field=0");
    znedi3_yuv420ph => Case::video("YUV420PH", "znedi3.nnedi3:field=0");
    znedi3_dh => Case::video("YUV420P8", "znedi3.nnedi3:field=1:dh=1");
    removegrain_yuv420p8 => Case::video("YUV420P8", "zsmooth.RemoveGrain:mode=12");
    removegrain_yuv420p16 => Case::video("YUV420P16", "zsmooth.RemoveGrain:mode=12");
    removegrain_grays => Case::video("GrayS", "zsmooth.RemoveGrain:mode=12");
    removegrain_rgb24 => Case::video("RGB24", "zsmooth.RemoveGrain:mode=12");
    removegrain_yuv420ph => Case::video("YUV420PH", "zsmooth.RemoveGrain:mode=12");
    four_yuv420p8 => Case::video("YUV420P8", FOUR);
    four_yuv420p16 => Case::video("YUV420P16", FOUR);
    four_grays => Case::video("GrayS", FOUR);
    four_rgb24 => Case::video("RGB24", FOUR);
    four_yuv444ps => Case::video("YUV444PS", FOUR);
    four_yuv422p10 => Case::video("YUV422P10", FOUR);
}

// The same output whatever the threads, requests in flight and fetching mode.
oracle_modes! {
    modes_four_yuv420p8 => Case::video("YUV420P8", FOUR);
    modes_four_grays => Case::video("GrayS", FOUR);
    modes_temporal => Case::video("YUV420P16", "zsmooth.TemporalMedian:radius=2,zsmooth.FluxSmoothT");
    modes_mvtools => Case::video("YUV420P8", &mv("mv.FlowFPS:@:clip=$0:super=$1:mvbw=$2:mvfw=$3:num=48000:den=1001"));
    modes_tivtc => Case::video("YUV420P8", "tivtc.TFM:order=1,tivtc.TDecimate");
    modes_std => Case::video("YUV420P8", "std.SelectEvery:cycle=3:offsets=2:offsets=0,std.Reverse,std.PlaneStats:@clipa");
    modes_audio => Case::audio(16, 3, "std.AudioGain:gain=0.5,std.AudioReverse");
}

// More CPU plugins from the wheels.
oracle! {
    zsmooth_temporalmedian => Case::video("YUV420P8", "zsmooth.TemporalMedian");
    zsmooth_fluxsmootht => Case::video("YUV420P8", "zsmooth.FluxSmoothT");
    zsmooth_degrainmedian => Case::video("YUV420P8", "zsmooth.DegrainMedian");
    zsmooth_median => Case::video("GrayS", "zsmooth.Median");
    zsmooth_ttempsmooth => Case::video("YUV420P8", "zsmooth.TTempSmooth:scthresh=0.0");
    zsmooth_verticalcleaner => Case::video("YUV420P16", "zsmooth.VerticalCleaner:mode=1");
    zsmooth_ccd => Case::video("RGB24", "zsmooth.CCD:scale=1.0");
    vszip_boxblur => Case::video("YUV420P8", "vszip.BoxBlur:hradius=2:vradius=2");
    vszip_bilateral => Case::video("YUV420P16", "vszip.Bilateral");
    vszip_clahe => Case::video("YUV420P8", "vszip.CLAHE");
    vszip_deband => Case::video("YUV420P8", "vszip.Deband");
    vszip_combmask => Case::video("YUV420P8", "vszip.CombMask");
    vszip_adaptivegrainmask => Case::video("YUV420P8", "vszip.AdaptiveGrainMask");
    vszip_planeminmax => Case::video("YUV420P16", "vszip.PlaneMinMax:@clipa");
    vszip_planeaverage => Case::video("YUV420P8", "vszip.PlaneAverage:@clipa:exclude=0");
    vszip_mosquitonr => Case::video("YUV420P8", "vszip.MosquitoNR");
    vszip_checkmate => Case::video("YUV420P8", "vszip.Checkmate");
    vszip_eedi3 => Case::video("YUV420P8", "vszip.EEDI3:field=1");
    vszip_wnnm => Case::video("GrayS", "vszip.WNNM");
    edgemasks_sobel => Case::video("YUV420P8", "edgemasks.Sobel");
    edgemasks_sobel_grays => Case::video("GrayS", "edgemasks.Sobel");
    edgemasks_kirsch => Case::video("YUV420P16", "edgemasks.Kirsch");
    edgemasks_exprewitt => Case::video("RGB24", "edgemasks.ExPrewitt");
    edgemasks_tritical => Case::video("YUV420P8", "edgemasks.Tritical");
    edgemasks_fdog => Case::video("YUV420P8", "edgemasks.FDoG");
    fillborders_default => Case::video("YUV420P8", "fb.FillBorders:left=4:right=2:top=2:bottom=6");
    fillborders_mirror => Case::video("YUV420P16", "fb.FillBorders:left=4:right=2:top=2:bottom=6:mode='mirror");
    fillborders_gray16 => Case::video("Gray16", "fb.FillBorders:left=3:right=5:top=1:bottom=1:mode='fillmargins");
    sangnom_default => Case::video("YUV420P8", "sangnom.SangNom");
    sangnom_dh => Case::video("YUV420P8", "sangnom.SangNom:order=2:dh=1");
    sangnom_yuv420p16 => Case::video("YUV420P16", "sangnom.SangNom");
    descale_debilinear => Case::video("GrayS", "descale.Debilinear:@src:width=160:height=120");
    descale_despline36 => Case::video("YUV444PS", "descale.Despline36:@src:width=288:height=216");
    descale_bicubic_up => Case::video("GrayS", "descale.Bicubic:@src:width=640:height=480");
    descale_delanczos => Case::video("YUV444PS", "descale.Delanczos:@src:width=200:height=150:taps=3");
    eedi3_field1 => Case::video("YUV420P8", "eedi3m.EEDI3:field=1");
    eedi3_dh => Case::video_sized("YUV420P8", 160, 120, 6, "eedi3m.EEDI3:field=0:dh=1");
    eedi3_grays => Case::video_sized("GrayS", 160, 120, 6, "eedi3m.EEDI3:field=1");
    dfttest_yuv420p8 => Case::video("YUV420P8", &dfttest(""));
    dfttest_yuv420p16 => Case::video("YUV420P16", &dfttest(""));
    dfttest_luma => Case::video("YUV420P8", &dfttest(":planes=0"));
    adaptivegrain_yuv420p8 => Case::video("YUV420P8", "std.PlaneStats:@clipa,adg.Mask");
    adaptivegrain_yuv420p16 => Case::video("YUV420P16", "std.PlaneStats:@clipa,adg.Mask:luma_scaling=8.0");
    adaptivegrain_grays => Case::video("GrayS", "std.PlaneStats:@clipa,adg.Mask");
    tivtc_tfm => Case::video("YUV420P8", "tivtc.TFM:order=1");
    tivtc_tfm_slow => Case::video("YUV420P16", "tivtc.TFM:order=1:slow=2");
    tivtc_tdecimate => Case::video("YUV420P8", "tivtc.TDecimate");
    tivtc_both => Case::video_sized("YUV420P8", 320, 240, 20, "tivtc.TFM:order=1,tivtc.TDecimate");
    mvtools_super => Case::video("YUV420P8", "mv.Super");
    mvtools_compensate => Case::video("YUV420P8", "mv.Super,mv.Analyse:@super,mv.Compensate:@:clip=$0:super=$1:vectors=$2");
    mvtools_degrain1 => Case::video("YUV420P8", &mv("mv.Degrain1:@:clip=$0:super=$1:mvbw=$2:mvfw=$3:thsad=2000:thscd1=16320:thscd2=255"));
    mvtools_degrain1_p16 => Case::video("YUV420P16", &mv("mv.Degrain1:@:clip=$0:super=$1:mvbw=$2:mvfw=$3:thsad=2000:thscd1=16320:thscd2=255"));
    mvtools_flowfps => Case::video("YUV420P8", &mv("mv.FlowFPS:@:clip=$0:super=$1:mvbw=$2:mvfw=$3:num=48000:den=1001"));
    mvtools_blockfps => Case::video("YUV420P8", &mv("mv.BlockFPS:@:clip=$0:super=$1:mvbw=$2:mvfw=$3:num=60000:den=1001"));
    mvtools_flowinter => Case::video("YUV420P8", &mv("mv.FlowInter:@:clip=$0:super=$1:mvbw=$2:mvfw=$3"));
    mvtools_mask => Case::video("YUV420P8", "mv.Super,mv.Analyse:@super,mv.Mask:@:clip=$0:vectors=$2");
    mvtools_scdetection => Case::video("YUV420P8", "mv.Super,mv.Analyse:@super,mv.SCDetection:@:clip=$0:vectors=$2");
}

// Errors raised by plugins reach the caller unchanged.
oracle_error! {
    error_cas_half => Case::video("YUV420PH", "cas.CAS");
    error_descale_integer => Case::video("YUV420P8", "descale.Debilinear:@src:width=160:height=120");
    error_tfm_without_order => Case::video("YUV420P8", "tivtc.TFM");
    error_cas_argument => Case::video("YUV420P8", "cas.CAS:sharpness=7.0");
}

// The core's own std filters and frame handling.
oracle! {
    source_gray8 => Case::video("Gray8", "-");
    source_gray16 => Case::video("Gray16", "-");
    source_grayh => Case::video("GrayH", "-");
    source_grays => Case::video("GrayS", "-");
    source_yuv410p8 => Case::video("YUV410P8", "-");
    source_yuv411p8 => Case::video("YUV411P8", "-");
    source_yuv440p8 => Case::video("YUV440P8", "-");
    source_yuv420p8 => Case::video("YUV420P8", "-");
    source_yuv422p8 => Case::video("YUV422P8", "-");
    source_yuv444p8 => Case::video("YUV444P8", "-");
    source_yuv420p9 => Case::video("YUV420P9", "-");
    source_yuv420p10 => Case::video("YUV420P10", "-");
    source_yuv422p12 => Case::video("YUV422P12", "-");
    source_yuv444p14 => Case::video("YUV444P14", "-");
    source_yuv420p16 => Case::video("YUV420P16", "-");
    source_yuv420ph => Case::video("YUV420PH", "-");
    source_yuv444ps => Case::video("YUV444PS", "-");
    source_rgb24 => Case::video("RGB24", "-");
    source_rgb30 => Case::video("RGB30", "-");
    source_rgb48 => Case::video("RGB48", "-");
    source_rgbh => Case::video("RGBH", "-");
    source_rgbs => Case::video("RGBS", "-");
    source_odd_size => Case::video_sized("YUV444P8", 333, 97, 5, "-");
    std_crop => Case::video("YUV420P8", "std.Crop:left=8:right=16:top=4:bottom=2");
    std_addborders => Case::video("YUV420P16", "std.AddBorders:left=8:right=2:top=4:bottom=6");
    std_transpose => Case::video("YUV444P8", "std.Transpose");
    std_flips => Case::video("RGB24", "std.FlipHorizontal,std.FlipVertical");
    std_turn180 => Case::video("YUV420P10", "std.Turn180");
    std_trim_reverse => Case::video("YUV420P8", "std.Trim:first=2:last=7,std.Reverse");
    std_selectevery => Case::video("YUV420P8", "std.SelectEvery:cycle=3:offsets=0:offsets=2");
    std_loop => Case::video("GrayS", "std.Loop:times=3");
    std_separatefields => Case::video("YUV420P8", "std.SeparateFields:tff=1");
    std_doubleweave => Case::video("YUV420P8", "std.SeparateFields:tff=1,std.DoubleWeave:tff=1");
    std_interleave => Case::video("YUV420P8", "std.Invert,std.Interleave:@clips:clips=$0");
    std_splice => Case::video("YUV420P8", "std.Invert,std.Splice:@clips:clips=$0");
    std_stack => Case::video("YUV420P8", "std.FlipVertical,std.StackHorizontal:@clips:clips=$0");
    std_shuffleplanes => Case::video("YUV444P8", "std.ShufflePlanes:@clips:planes=2:planes=0:planes=1:colorfamily=3");
    std_expr => Case::video("YUV420P8", "std.Expr:@clips:expr='x 2 * 30 -:expr='x 255 swap -");
    std_expr_float => Case::video("GrayS", "std.Expr:@clips:expr='x x * 0.5 +");
    std_convolution => Case::video("YUV420P8", "std.Convolution:matrix=1.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=4.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=1.0");
    std_minmax => Case::video("YUV420P16", "std.Minimum,std.Maximum");
    std_median_inflate => Case::video("YUV420P8", "std.Median,std.Inflate,std.Deflate");
    std_boxblur => Case::video("GrayS", "std.BoxBlur:hradius=2:vradius=3");
    std_binarize_invert => Case::video("YUV420P8", "std.Binarize,std.Invert");
    std_limiter_levels => Case::video("YUV420P8", "std.Limiter:min=16.0:max=235.0,std.Levels:min_in=16.0:max_in=235.0:gamma=1.2");
    std_planestats => Case::video("YUV420P8", "std.PlaneStats:@clipa:plane=1");
    std_merge => Case::video("YUV420P8", "std.Invert,std.Merge:@clipa:clipb=$0:weight=0.3");
    std_makediff => Case::video("YUV420P16", "std.BoxBlur,std.MakeDiff:@clipa:clipb=$0");
    std_maskedmerge => Case::video("YUV420P8", "std.Invert,std.Sobel:@:clip=$0,std.MaskedMerge:@mask:clipa=$0:clipb=$1");
    std_props => Case::video("YUV420P8", "std.SetFrameProps:VsvkExtra=5:VsvkName='seven,std.RemoveFrameProps:props='VsvkTag,std.SetFieldBased:value=2");
    std_fps => Case::video("YUV420P8", "std.AssumeFPS:fpsnum=30:fpsden=1");
    std_frames_edit => Case::video("YUV420P8", "std.DuplicateFrames:frames=3,std.DeleteFrames:frames=1,std.FreezeFrames:first=2:last=4:replacement=0");
    audio_int16 => Case::audio(16, 3, "-");
    audio_int24 => Case::audio(24, 3, "-");
    audio_int32 => Case::audio(32, 0x3f, "-");
    audio_float => Case::audio(0, 0x3f, "-");
    audio_gain => Case::audio(0, 3, "std.AudioGain:gain=0.5");
    audio_trim => Case::audio(24, 3, "std.AudioTrim:first=1000:length=20000");
    audio_reverse_loop => Case::audio(16, 3, "std.AudioReverse,std.AudioLoop:times=2");
    audio_splice => Case::audio(32, 0x3f, "std.AudioTrim:first=5,std.AudioSplice:@clips:clips=$0");
}

// std.BlankClip and std.BlankAudio as sources ('@' drops the noise source): every option that
// changes pixels, samples, properties or clip info.
oracle! {
    blankclip_default => Case::video("YUV420P8", "std.BlankClip:@");
    blankclip_yuv_color_odd_ntsc => Case::video("YUV420P8", "std.BlankClip:@:format=805830913:color=16.0:color=128.0:color=128.0:width=322:height=240:length=5:fpsnum=30000:fpsden=1001");
    blankclip_gray16_keep => Case::video("YUV420P8", "std.BlankClip:@:format=269484032:keep=1:length=3:color=1000.0");
    blankclip_rgbs_color => Case::video("YUV420P8", "std.BlankClip:@:format=555745280:color=0.25:color=-0.125:color=0.5:length=2");
    blankclip_variable => Case::video("YUV420P8", "std.BlankClip:@:varsize=1:varformat=1:length=2");
    blankclip_from_clip_fps_reduced => Case::video("YUV420P16", "std.BlankClip:fpsnum=50:fpsden=2:length=3");
    blankaudio_sine => Case::video("YUV420P8", "std.BlankAudio:@:waveform='sine:frequency=1000.0:amplitude=0.5");
    #[ignore = "differs from R81 (24-bit slope; open)"]
    blankaudio_slope_24bit => Case::video("YUV420P8", "std.BlankAudio:@:waveform='slope:bits=24:length=10000");
    #[ignore = "differs from R81 (3-channel float triangle; open)"]
    blankaudio_triangle_float_3ch => Case::video("YUV420P8", "std.BlankAudio:@:waveform='triangle:sampletype=1:bits=32:channels=0:channels=1:channels=5");
    #[ignore = "differs from R81: its keep=1 does not reuse the first audio frame; open"]
    blankaudio_square_keep => Case::video("YUV420P8", "std.BlankAudio:@:waveform='square:keep=1:length=7000");
    blankaudio_slope_boundaries => Case::video("YUV420P8", "std.BlankAudio:@:waveform='slope:frequency=441.0:samplerate=44100");
    blankaudio_square_48k => Case::video("YUV420P8", "std.BlankAudio:@:waveform='square:frequency=300.0:amplitude=0.9:bits=32:samplerate=48000");
    blankaudio_sine_clipped => Case::video("YUV420P8", "std.BlankAudio:@:waveform='sine:amplitude=1.5:bits=16");
}
