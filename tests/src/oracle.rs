//! The oracle harness the comparison tests share: it builds the C driver (tests/oracle/driver.c) and
//! the noise source plugin (tests/plugins/vsvknoise.c), runs one chain on a core under a time limit,
//! and holds the result lines of the reference core (VapourSynth R81) and of ours against each other.
//!
//! A run prints one line, `ok hash=... clip=... threads=... fps=...` or `error: ...`; the fingerprint is
//! that line without the parts that may differ between equivalent runs (the thread count and speed).

use std::borrow::Cow;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use crate::{process, reference};

/// How long one driver run may take before it counts as hung.
pub const RUN_LIMIT: Duration = Duration::from_secs(180);

/// Where the programs are built, below the target folder.
fn out_dir() -> Result<PathBuf, String> {
    let out = reference::target_dir().join("vsvk-oracle");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    Ok(out)
}

/// Compiles one C source (a path relative to the workspace root) into `name` in the oracle's build
/// folder, against reference::include_dir() and tests/oracle (so that a wrapper can #include the
/// driver).
pub fn compile(name: &str, source: &str, shared: bool) -> Result<PathBuf, String> {
    compile_into(&out_dir()?, name, source, shared, &[])
}

/// `compile` into the folder `dir` (created if missing), with `extra` compiler flags.
pub fn compile_into(dir: &Path, name: &str, source: &str, shared: bool, extra: &[&str]) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let root = reference::workspace_root();
    let target = dir.join(name);
    let inc = format!("-I{}", reference::include_dir()?.display());
    let oracle = format!("-I{}", root.join("tests/oracle").display());
    let mut args: Vec<&str> = vec!["-O2", "-Wall", "-Wextra", "-Werror", &inc, &oracle];
    args.extend(extra);
    args.push(source);
    if shared {
        args.extend(["-shared", "-fPIC"]);
    } else {
        args.extend(["-ldl", "-lpthread"]);
    }
    // build beside the target and rename, so that other test processes never see half a file
    let tmp = target.with_extension(format!("tmp{}", std::process::id()));
    let result = Command::new("gcc")
        .args(&args)
        .arg("-o")
        .arg(&tmp)
        .current_dir(&root)
        .output()
        .map_err(|e| format!("cannot run gcc: {e}"))?;
    if !result.status.success() {
        return Err(format!("gcc {} failed:\n{}", args.join(" "), String::from_utf8_lossy(&result.stderr)));
    }
    std::fs::rename(&tmp, &target).map_err(|e| format!("cannot rename {}: {e}", tmp.display()))?;
    Ok(target)
}

/// Compiles a driver given as C text (a wrapper that #includes "driver.c" and changes what it
/// needs) into `name`.
pub fn compile_wrapped_driver(name: &str, text: &str) -> Result<PathBuf, String> {
    let source = out_dir()?.join(format!("{name}{}.c", std::process::id()));
    std::fs::write(&source, text).map_err(|e| format!("cannot write {}: {e}", source.display()))?;
    let built = compile(name, &source.display().to_string(), false);
    let _ = std::fs::remove_file(&source);
    built
}

fn once(cell: &'static OnceLock<Result<PathBuf, String>>, build: impl FnOnce() -> Result<PathBuf, String>) -> &'static Path {
    match cell.get_or_init(build) {
        Ok(p) => p,
        Err(e) => panic!("cannot build the oracle's C programs: {e}"),
    }
}

/// The oracle driver, built once per test process.
pub fn driver() -> &'static Path {
    static CELL: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    once(&CELL, || compile("driver", "tests/oracle/driver.c", false))
}

/// The noise source every run loads (vsvknoise.Noise, vsvknoise.NoiseAudio).
pub fn noise_plugin() -> &'static Path {
    static CELL: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    once(&CELL, || compile("vsvknoise.so", "tests/plugins/vsvknoise.c", true))
}

/// tests/plugins/vsvkfunc.c: callbacks made with createFunction (FrameEval, ModifyFrame, Lut).
pub fn func_plugin() -> &'static Path {
    static CELL: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    once(&CELL, || compile("vsvkfunc.so", "tests/plugins/vsvkfunc.c", true))
}

pub fn reference_core() -> PathBuf {
    reference::reference_core().unwrap_or_else(|e| panic!("{e}"))
}

pub fn our_core() -> PathBuf {
    reference::our_core().unwrap_or_else(|e| panic!("{e}"))
}

// ---- cases ------------------------------------------------------------------------------------------

/// One clip to produce: the source options, the chain after it, extra options for both cores, and
/// the plugins to load besides the noise source.
#[derive(Clone)]
pub struct Case {
    /// Raw bytes: Text's argument may hold any byte but NUL, ',' and ':' (the driver's separators).
    pub chain: Vec<u8>,
    pub source: Vec<String>,
    /// Driver options for both cores, e.g. `--maxcpu none`.
    pub mode: Vec<String>,
    pub plugins: Vec<PathBuf>,
    /// A driver other than the plain one (a wrapper, see compile_wrapped_driver).
    pub driver: Option<PathBuf>,
}

impl Case {
    /// The noise source in one video format and size, seed 7, then `chain`.
    pub fn sized(format: &str, width: u32, height: u32, frames: u32, chain: &str) -> Case {
        Case::bytes(format, width, height, frames, chain.as_bytes())
    }

    pub fn bytes(format: &str, width: u32, height: u32, frames: u32, chain: &[u8]) -> Case {
        let source = ["--format", format, "--width", &width.to_string(), "--height", &height.to_string(), "--frames", &frames.to_string(), "--seed", "7"];
        Case::new(source.iter().map(|s| s.to_string()).collect(), chain)
    }

    /// The audio noise source: `bits` 16, 24 or 32 for integer samples, 0 for 32-bit float;
    /// `channels` a channel layout mask; 44100 Hz, seed 7.
    pub fn audio(bits: u32, channels: u64, samples: i64, chain: &str) -> Case {
        let mut source: Vec<String> = ["--audio", "--samples", &samples.to_string(), "--samplerate", "44100", "--seed", "7", "--channels", &channels.to_string()]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if bits == 0 {
            source.push("--float".into());
        } else {
            source.extend(["--bits".to_string(), bits.to_string()]);
        }
        Case::new(source, chain.as_bytes())
    }

    pub fn new(source: Vec<String>, chain: &[u8]) -> Case {
        Case { chain: chain.to_vec(), source, mode: Vec::new(), plugins: Vec::new(), driver: None }
    }

    /// Adds driver options for both cores.
    pub fn with_mode(mut self, mode: &[&str]) -> Case {
        self.mode.extend(mode.iter().map(|s| s.to_string()));
        self
    }

    /// R81 (and us) pinned to the plain C paths: `std.SetMaxCPU("none")`.
    pub fn c_path(self) -> Case {
        self.with_mode(&["--maxcpu", "none"])
    }

    pub fn with_plugin(mut self, plugin: &Path) -> Case {
        if !self.plugins.iter().any(|p| p == plugin) {
            self.plugins.push(plugin.to_path_buf());
        }
        self
    }

    pub fn with_driver(mut self, driver: &Path) -> Case {
        self.driver = Some(driver.to_path_buf());
        self
    }

    /// The chain as text (lossy for raw bytes).
    pub fn chain_text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.chain)
    }

    pub fn describe(&self) -> String {
        let mode = if self.mode.is_empty() { String::new() } else { format!(" {}", self.mode.join(" ")) };
        format!("{}{mode} | {}", self.source.join(" "), self.chain_text().escape_debug())
    }
}

// ---- runs -------------------------------------------------------------------------------------------

/// What one run printed: its result line, and stderr for the failure messages and logs.
pub struct Run {
    pub line: String,
    pub stderr: String,
}

impl Run {
    pub fn ok(&self) -> bool {
        self.line.starts_with("ok ")
    }

    /// The result line without what may differ between equivalent runs (threads, speed).
    pub fn fingerprint(&self) -> &str {
        match self.line.find(" threads=") {
            Some(i) if self.ok() => &self.line[..i],
            _ => &self.line,
        }
    }

    pub fn stderr_tail(&self) -> String {
        let lines: Vec<&str> = self.stderr.lines().collect();
        lines[lines.len().saturating_sub(15)..].join("\n")
    }
}

/// Runs `driver core --plugin <noise> [--plugin p]... args...` under RUN_LIMIT.
pub fn run_args(driver: &Path, core: &Path, plugins: &[PathBuf], args: &[OsString]) -> Run {
    let mut cmd = Command::new(driver);
    cmd.arg(core).arg("--plugin").arg(noise_plugin());
    for p in plugins {
        cmd.arg("--plugin").arg(p);
    }
    cmd.args(args);
    let out = process::run(cmd, RUN_LIMIT);
    let (stdout, stderr) = (out.stdout, out.stderr);
    let last = stdout.lines().rev().find(|l| l.starts_with("ok ") || l.starts_with("error:"));
    let line = match (out.status, last) {
        (None, _) => format!("hung: killed after {} s", RUN_LIMIT.as_secs()),
        (Some(_), Some(l)) => l.to_string(),
        (Some(s), None) => format!("crashed: {s}, no result line (stdout: {:?})", stdout.trim()),
    };
    Run { line, stderr }
}

/// Runs a case on `core` with extra driver options `extra`.
pub fn run(core: &Path, case: &Case, extra: &[&str]) -> Run {
    let mut args: Vec<OsString> = case.source.iter().map(OsString::from).collect();
    args.extend(case.mode.iter().map(OsString::from));
    args.extend(extra.iter().map(OsString::from));
    args.push(OsString::from_vec(case.chain.clone()));
    match &case.driver {
        Some(d) => run_args(d, core, &case.plugins, &args),
        None => run_args(driver(), core, &case.plugins, &args),
    }
}

/// The driver's `--list NS` on a core: one line per function, `ns.Name(arguments) -> returns`.
pub fn list(core: &Path, namespace: &str) -> String {
    let out = Command::new(driver())
        .arg(core)
        .args(["--list", namespace])
        .env("LD_LIBRARY_PATH", reference::library_path())
        .output()
        .expect("running the driver");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn mismatch(case: &Case, mode: &[&str], want: &Run, got: &Run) -> String {
    format!(
        "our core differs from the reference on {} [{}]\n  reference: {}\n  ours:      {}\n{}\n",
        case.describe(),
        mode.join(" "),
        want.fingerprint(),
        got.fingerprint(),
        got.stderr_tail()
    )
}

/// The reference's run of a case, which must be a success (or the case is wrong).
fn reference_ok(case: &Case, mode: &[&str], failures: &mut String) -> Option<Run> {
    let want = run(&reference_core(), case, mode);
    if want.ok() {
        return Some(want);
    }
    let _ = writeln!(failures, "the reference fails, so the case is wrong: {} [{}]\n  {}\n{}", case.describe(), mode.join(" "), want.line, want.stderr_tail());
    None
}

// ---- checks -----------------------------------------------------------------------------------------

/// Runs every case on both cores; the fingerprints must match (and R81 must succeed).
pub fn check_all(cases: &[Case]) {
    let mut failures = String::new();
    for case in cases {
        if let Some(want) = reference_ok(case, &[], &mut failures) {
            let got = run(&our_core(), case, &[]);
            if got.fingerprint() != want.fingerprint() {
                failures.push_str(&mismatch(case, &[], &want, &got));
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

/// One case on both cores.
pub fn check(case: Case) {
    check_all(&[case])
}

/// The case in each of `modes`, run so on both cores (the reference's result may depend on the mode,
/// e.g. `--maxcpu none`).
pub fn check_in(case: &Case, modes: &[&[&str]]) {
    let mut failures = String::new();
    for mode in modes {
        if let Some(want) = reference_ok(case, mode, &mut failures) {
            let got = run(&our_core(), case, mode);
            if got.fingerprint() != want.fingerprint() {
                failures.push_str(&mismatch(case, mode, &want, &got));
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

/// Thread counts, requests in flight and fetching modes that must not change a result.
pub const MODES: [&[&str]; 4] =
    [&["--threads", "1"], &["--threads", "7", "--requests", "1"], &["--threads", "32", "--requests", "64"], &["--threads", "4", "--sync", "--requests", "3"]];

/// The reference's result (in its default mode) on our core in each of `modes`.
pub fn check_modes_in(case: &Case, modes: &[&[&str]]) {
    let mut failures = String::new();
    if let Some(want) = reference_ok(case, &[], &mut failures) {
        for mode in modes {
            let got = run(&our_core(), case, mode);
            if got.fingerprint() != want.fingerprint() {
                failures.push_str(&mismatch(case, mode, &want, &got));
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

/// The same output whatever the threads, the requests in flight and the fetching mode.
pub fn check_modes(case: Case) {
    check_modes_in(&case, &MODES)
}

/// Every case must fail on both cores with the same line. One request at a time, so that an error
/// raised while making frames names the same frame on both.
pub fn check_errors(cases: &[Case]) {
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

/// One case that must fail alike on both cores.
pub fn check_error(case: Case) {
    check_errors(&[case])
}

/// A video format id as VS_MAKE_VIDEO_ID builds it (the driver takes formats as numbers too).
pub fn format_id(family: u32, float: bool, bits: u32, ssw: u32, ssh: u32) -> u32 {
    (family << 28) | ((float as u32) << 24) | (bits << 16) | (ssw << 8) | ssh
}

/// Fewer modes, for the many small cases: the default, one at a time, and many threads.
pub const FEW_MODES: [&[&str]; 3] = [&[], &["--threads", "1", "--requests", "1"], &["--threads", "7", "--requests", "16"]];

/// The reference's result on our core in FEW_MODES.
pub fn check_few_modes(case: Case) {
    check_modes_in(&case, &FEW_MODES)
}

/// One #[test] per case: `each_case! { check_fn; name => case; ... }` (attributes such as #[ignore]
/// may precede a name).
#[macro_export]
macro_rules! each_case {
    ($check:expr; $($(#[$attr:meta])* $name:ident => $case:expr;)*) => { $( #[test] $(#[$attr])* fn $name() { $check($case) } )* };
}
