//! The Windows build, checked on Linux: the workspace cross-built for x86_64-pc-windows-gnu with
//! mingw-w64 (vsvk.dll, the vk plugin, the vsvk command, the C SDK examples), then the oracle
//! driver, built for Windows too, run under Wine on vsvk.dll and on R81's own Windows build
//! (libvapoursynth.dll from its win_amd64 wheel): CPU chains of std, resize, text and Expr, and
//! plugin DLLs from Windows plugin wheels, must give the same fingerprints on both, as the Linux
//! oracle tests require of the Linux builds. Expr runs with the JIT and without it (VSVK_EXPR_JIT=0),
//! and the JIT's own Win64 test (a call by hand that checks the callee-saved registers) runs
//! under Wine as a cross-built unit test of the core.
//!
//! What Wine cannot run here (Vulkan on Windows, the NT handle export to CUDA and D3D12) is only
//! compiled: the README lists it as untested on real Windows, with the command that tests it there.
//!
//! Needs what `scripts/setup.sh` installs (scripts/setup-windows.sh: mingw-w64, Wine, the Rust
//! target, shaderc built for mingw, R81's Windows wheel and plugin wheels, a Wine prefix); a
//! missing piece fails the test, saying which.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use common::{run, Output};
use vsvk_tests::reference;

const TARGET: &str = "x86_64-pc-windows-gnu";
const CC: &str = "x86_64-w64-mingw32-gcc-posix";
const LIMIT: Duration = Duration::from_secs(180);
/// The cross build compiles the core from scratch on a fresh machine.
const BUILD_LIMIT: Duration = Duration::from_secs(40 * 60);

fn win_ref() -> PathBuf {
    reference::ref_dir().join("win")
}

fn fail_setup(what: &str) -> ! {
    panic!("{what}: run scripts/setup.sh (scripts/setup-windows.sh installs the Windows cross build and Wine)")
}

/// Everything setup should have put in place, or a failure naming what is missing.
fn prerequisites() {
    for tool in [CC, "x86_64-w64-mingw32-g++-posix", "wine", "rustup"] {
        let found = Command::new("sh").arg("-c").arg(format!("command -v {tool}")).output().is_ok_and(|o| o.status.success());
        if !found {
            fail_setup(&format!("{tool} is missing"));
        }
    }
    let targets = Command::new("rustup").args(["target", "list", "--installed"]).output().map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    if !targets.lines().any(|l| l.trim() == TARGET) {
        fail_setup(&format!("the Rust target {TARGET} is not installed"));
    }
    for f in ["shaderc/lib/libshaderc_combined.a", "x/vapoursynth/libvapoursynth.dll", "prefix/system.reg"] {
        if !win_ref().join(f).is_file() {
            fail_setup(&format!("{} is missing", win_ref().join(f).display()));
        }
    }
}

/// The cross build's own target folder: a cargo inside `cargo test` must not wait for the lock
/// the outer one holds on the workspace's.
fn cross_target() -> PathBuf {
    reference::target_dir().join("vsvk-windows")
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(reference::workspace_root())
        .env("CARGO_TARGET_DIR", cross_target())
        .env("SHADERC_LIB_DIR", win_ref().join("shaderc/lib"))
        .env("VSVK_REF", reference::ref_dir());
    cmd
}

/// `cargo build --release --target x86_64-pc-windows-gnu` of the Windows crates (vkdecode is left
/// out: it links a static FFmpeg that setup builds for Linux only, and its decoder is Linux's
/// Vulkan Video path), once per test process; the folder with the results.
fn cross_build() -> &'static Path {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            prerequisites();
            let mut cmd = cargo();
            cmd.args(["build", "--release", "--target", TARGET, "-p", "vsvk-core", "-p", "vsvk-vk", "-p", "vsvk-cli", "-p", "vsvk-python"]);
            let out = run(cmd, BUILD_LIMIT);
            if !out.status.is_some_and(|s| s.success()) {
                return Err(format!("the cross build failed\n{}", out.describe()));
            }
            let dir = cross_target().join(TARGET).join("release");
            for f in ["vsvk.dll", "vsvk_vk.dll", "vsvk.exe", "vsvk_python.dll"] {
                if !dir.join(f).is_file() {
                    return Err(format!("the cross build left no {}", dir.join(f).display()));
                }
            }
            Ok(dir)
        })
        .as_ref()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The C programs for Windows: the oracle driver and the noise source plugin.
fn c_programs() -> &'static (PathBuf, PathBuf) {
    static BUILT: OnceLock<Result<(PathBuf, PathBuf), String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            prerequisites();
            let dir = cross_target().join("oracle");
            std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            let root = reference::workspace_root();
            let inc = format!("-I{}", root.join("include").display());
            let build = |src: &str, out: &Path, shared: bool| -> Result<(), String> {
                let mut cmd = Command::new(CC);
                cmd.args(["-O2", "-Wall", "-Wextra", "-Werror", &inc]).arg(root.join(src)).arg("-o").arg(out).arg("-static");
                if shared {
                    cmd.arg("-shared");
                } else {
                    cmd.arg("-lpthread");
                }
                let r = cmd.output().map_err(|e| format!("cannot run {CC}: {e}"))?;
                if !r.status.success() || !r.stderr.is_empty() {
                    return Err(format!("{CC} {src} failed or warned:\n{}", String::from_utf8_lossy(&r.stderr)));
                }
                Ok(())
            };
            let (driver, noise) = (dir.join("driver.exe"), dir.join("vsvknoise.dll"));
            build("tests/oracle/driver.c", &driver, false)?;
            build("tests/plugins/vsvknoise.c", &noise, true)?;
            Ok((driver, noise))
        })
        .as_ref()
        .unwrap_or_else(|e| panic!("cannot build the oracle's C programs for Windows: {e}"))
}

/// A Linux path as Wine's Windows programs see it (drive Z: is the root).
fn wine_path(p: &Path) -> String {
    format!("Z:{}", p.display()).replace('/', "\\")
}

fn wine() -> Command {
    let mut cmd = Command::new(reference::workspace_root().join("scripts/wine-run.sh"));
    cmd.env("VSVK_REF", reference::ref_dir()).env_remove("VSVK_EXPR_JIT");
    cmd
}

fn r81() -> PathBuf {
    win_ref().join("x/vapoursynth/libvapoursynth.dll")
}

fn vsvk() -> PathBuf {
    cross_build().join("vsvk.dll")
}

/// The clip size of the std, resize, text and Expr runs: odd row ends (not a multiple of any
/// vector width) and even, for 4:2:0.
const ODD: (u32, u32) = (98, 62);
/// The size of the plugin runs. R81's Windows build with cas.dll gives different pixels from one run
/// to the next under Wine when rows end inside a vector (98 wide; vsvk.dll gives R81's Linux
/// result every time); at whole vectors both are stable and agree.
const WHOLE: (u32, u32) = (128, 64);

/// Runs under Wine the command `with` makes of `wine()` (the Windows program, its arguments and
/// environment). A run that lost its connection to the wineserver ("wine client error", seen once
/// in a fresh clone's test run, on R81's DLL) says nothing about the program, so it runs again,
/// twice at most.
fn run_wine(with: impl Fn(&mut Command)) -> Output {
    let attempt = || {
        let mut cmd = wine();
        with(&mut cmd);
        run(cmd, LIMIT)
    };
    let mut out = attempt();
    for _ in 0..2 {
        if !out.stderr.contains("wine client error") {
            break;
        }
        out = attempt();
    }
    out
}

/// One driver run under Wine: the result line up to the thread count, or the error.
fn chain(core: &Path, plugins: &[&str], format: &str, size: (u32, u32), steps: &str, env: &[(&str, &str)], extra: &[&str]) -> Result<String, String> {
    let (driver, noise) = c_programs();
    let out = run_wine(|cmd| {
        cmd.envs(env.iter().copied());
        cmd.arg(driver).arg(wine_path(core)).arg("--plugin").arg(wine_path(noise));
        for p in plugins {
            cmd.arg("--plugin").arg(wine_path(&win_ref().join("x/plugins").join(p)));
        }
        cmd.args(["--width", &size.0.to_string(), "--height", &size.1.to_string(), "--frames", "4", "--seed", "7", "--format", format]);
        cmd.args(extra).arg(steps);
    });
    let what = format!("{} {steps} ({format})", core.file_name().unwrap_or_default().to_string_lossy());
    if out.timed_out() {
        return Err(format!("{what}: hung\n{}", out.describe()));
    }
    match out.stdout.lines().rev().find(|l| l.starts_with("ok ") || l.starts_with("error:")) {
        Some(l) if l.starts_with("ok ") => Ok(l.split(" threads=").next().unwrap_or(l).to_string()),
        Some(l) => Err(format!("{what}: {l}\n{}", out.stderr)),
        None => Err(format!("{what}: no result\n{}", out.describe())),
    }
}

/// A video format id as the API makes it (colour family 1 Gray, 2 RGB, 3 YUV; sample type 1 float).
fn format_id(family: u32, float: u32, bits: u32, ssw: u32, ssh: u32) -> u32 {
    (family << 28) | (float << 24) | (bits << 16) | (ssw << 8) | ssh
}

/// Runs every case on both cores and fails with the list of those that differ.
fn same_on_both<S: AsRef<str>>(size: (u32, u32), cases: &[(&[&str], &str, S)]) {
    let mut bad = Vec::new();
    for (plugins, format, steps) in cases {
        let (plugins, format, steps) = (*plugins, *format, steps.as_ref());
        let theirs = chain(&r81(), plugins, format, size, steps, &[], &[]);
        let ours = chain(&vsvk(), plugins, format, size, steps, &[], &[]);
        match (&theirs, &ours) {
            (Ok(a), Ok(b)) if a == b => {}
            _ => bad.push(format!("{steps} ({format}):\n  R81:  {theirs:?}\n  vsvk: {ours:?}")),
        }
    }
    assert!(bad.is_empty(), "{} of {} chains differ under Wine:\n{}", bad.len(), cases.len(), bad.join("\n"));
}

/// The DLL names a PE file imports from, and whether it exports `symbol`.
fn pe_imports_and_export(file: &Path, symbol: &str) -> (Vec<String>, bool) {
    let dump = Command::new("x86_64-w64-mingw32-objdump").arg("-p").arg(file).output().expect("objdump runs");
    let text = String::from_utf8_lossy(&dump.stdout);
    let imports = text.lines().filter_map(|l| l.trim().strip_prefix("DLL Name: ")).map(String::from).collect();
    (imports, text.lines().any(|l| l.trim_end().ends_with(&format!(" {symbol}"))))
}

#[test]
fn the_workspace_cross_builds_and_vsvk_dll_exports_the_entry_point() {
    let dir = cross_build();
    for (file, symbol) in [("vsvk.dll", "getVapourSynthAPI"), ("vsvk_vk.dll", "VapourSynthPluginInit2"), ("vsvk_python.dll", "PyInit_vsvk")] {
        let (imports, exported) = pe_imports_and_export(&dir.join(file), symbol);
        assert!(exported, "{file} does not export {symbol}");
        // self-contained: the C++ runtime of zimg and shaderc is linked in, not a mingw DLL beside it
        for dll in &imports {
            let lower = dll.to_ascii_lowercase();
            assert!(!lower.starts_with("libstdc++") && !lower.starts_with("libgcc") && !lower.starts_with("libwinpthread"), "{file} needs {dll}: {imports:?}");
        }
    }
}

#[test]
fn std_resize_and_text_chains_match_r81_under_wine() {
    let (yuv444p16, yuv420p8, grays) = (format_id(3, 0, 16, 0, 0), format_id(3, 0, 8, 1, 1), format_id(1, 1, 32, 0, 0));
    same_on_both(ODD, &[
        (&[], "YUV420P8", "-".to_string()),
        (&[], "YUV420P8", "std.Invert".into()),
        (&[], "YUV420P16", "std.Levels:min_in=4096.0:max_in=60160.0:min_out=0.0:max_out=65535.0".into()),
        (&[], "RGB24", "std.BoxBlur:hradius=2:vradius=1,std.FlipHorizontal".into()),
        (&[], "YUV444PS", "std.Convolution:matrix=1.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=4.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=1.0".into()),
        (&[], "GrayS", "std.Maximum,std.Minimum,std.Median".into()),
        (&[], "YUV420P8", "std.Crop:left=2:right=4:top=2,std.AddBorders:left=6:top=4,std.Transpose".into()),
        (&[], "YUV420P10", "std.Invert,std.MakeDiff:@:clipa=$0:clipb=$1,std.PlaneStats:@clipa".into()),
        (&[], "YUV420P8", "resize.Bicubic:width=64:height=40".into()),
        (&[], "YUV420P8", format!("resize.Spline36:width=160:height=90:format={yuv444p16}")),
        (&[], "RGB24", format!("resize.Bilinear:format={yuv420p8}:matrix_s='709")),
        (&[], "YUV420P16", format!("resize.Lanczos:width=50:height=30:format={grays}")),
        (&[], "YUV420P8", "text.Text:text='vsvk on Windows".into()),
        (&[], "YUV444P8", "text.FrameNum,text.Text:text='centre:alignment=5".into()),
        (&[], "YUV420P16", "text.ClipInfo".into()),
    ]);
}

#[test]
fn plugin_dlls_from_windows_wheels_match_r81_under_wine() {
    same_on_both(WHOLE, &[
        (&["cas.dll"], "YUV420P8", "cas.CAS:sharpness=0.7"),
        (&["cas.dll"], "YUV420P16", "cas.CAS"),
        (&["fillborders.dll"], "YUV420P8", "fb.FillBorders:left=3:right=2:top=1:bottom=4:mode='mirror"),
        (&["bwdif.dll"], "YUV420P8", "bwdif.Bwdif:field=1"),
        (&["cas.dll", "fillborders.dll"], "YUV444P8", "fb.FillBorders:left=2:mode='repeat,cas.CAS"),
    ]);
}

/// Expr under Wine: R81, vsvk's JIT and vsvk's interpreter (VSVK_EXPR_JIT=0) give one result. The
/// programs cover the JIT's paths: 8 and 16 bit and float samples in and out, comparisons and
/// selection, and more live values than vector registers (spilled through the stack argument).
#[test]
fn expr_with_and_without_the_jit_matches_r81_under_wine() {
    // 14 terms alive before the first addition
    let terms: Vec<String> = (1..=14).map(|i| format!("{} {} max", ["x", "y", "z"][i % 3], i * 300)).collect();
    let wide = format!("{}{}", terms.join(" "), " +".repeat(13));
    let cases: [(&str, &str); 6] = [
        ("YUV420P8", "std.Expr:@clips:expr='x 2 * 10 -"),
        ("YUV420P16", "std.Expr:@clips:expr='x 1000 > x 2 / x 0.5 * 300 + ?"),
        ("YUV444PS", "std.Expr:@clips:expr='x x * 0.25 - abs sqrt"),
        ("YUV420P8", "std.Expr:@:clips=$0:clips=$0:clips=$0:expr='x y max z min 3 +"),
        ("YUV444P16", &format!("std.Expr:@:clips=$0:clips=$0:clips=$0:expr='{wide}")),
        ("YUV420P10", "std.Expr:@clips:expr='x 512 < 0 x ? 1.5 *"),
    ];
    let mut bad = Vec::new();
    for (format, steps) in cases {
        let theirs = chain(&r81(), &[], format, ODD, steps, &[], &[]);
        let jit = chain(&vsvk(), &[], format, ODD, steps, &[], &[]);
        let interp = chain(&vsvk(), &[], format, ODD, steps, &[("VSVK_EXPR_JIT", "0")], &[]);
        if !(theirs.is_ok() && theirs == jit && jit == interp) {
            bad.push(format!("{steps} ({format}):\n  R81:         {theirs:?}\n  JIT:         {jit:?}\n  interpreter: {interp:?}"));
        }
    }
    assert!(bad.is_empty(), "Expr differs under Wine:\n{}", bad.join("\n"));
}

/// Expr's transcendental operations and Levels' gamma come from the C library, whose last bits
/// differ between C libraries: on Windows both cores must take them from the Universal CRT
/// (vsvk's cmath.rs). Expr runs on R81's plain C path (`--maxcpu none`), as the Linux tests do:
/// R81's compiled path has its own approximations.
#[test]
fn c_library_math_matches_r81_under_wine() {
    let cases: [(&str, &str, &[&str]); 5] = [
        ("GrayS", "std.Expr:@clips:expr='x exp x log + x sin x cos * +", &["--maxcpu", "none"]),
        ("YUV444PS", "std.Expr:@clips:expr='x abs 0.7 pow x 3.3 pow -", &["--maxcpu", "none"]),
        ("YUV420P16", "std.Expr:@clips:expr='x 65535 / 2.2 pow 65535 *", &["--maxcpu", "none"]),
        ("YUV420P16", "std.Levels:min_in=4096.0:max_in=60160.0:min_out=0.0:max_out=65535.0:gamma=1.4", &[]),
        ("YUV444PS", "std.Levels:min_in=0.1:max_in=0.9:gamma=0.6", &[]),
    ];
    let mut bad = Vec::new();
    for (format, steps, extra) in cases {
        let theirs = chain(&r81(), &[], format, ODD, steps, &[], extra);
        let ours = chain(&vsvk(), &[], format, ODD, steps, &[], extra);
        if !(theirs.is_ok() && theirs == ours) {
            bad.push(format!("{steps} ({format}):\n  R81:  {theirs:?}\n  vsvk: {ours:?}"));
        }
    }
    assert!(bad.is_empty(), "C library math differs under Wine:\n{}", bad.join("\n"));
}

/// The JIT's Win64 unit test (expr_jit::win64_tests), cross-built and run under Wine by cargo's
/// runner for the target (.cargo/config.toml: scripts/wine-run.sh).
#[test]
fn the_jits_win64_test_passes_under_wine() {
    prerequisites();
    let mut cmd = cargo();
    cmd.args(["test", "--release", "--target", TARGET, "-p", "vsvk-std", "--lib", "win64_tests", "--", "--test-threads=1"]);
    let out = run(cmd, BUILD_LIMIT);
    assert!(out.status.is_some_and(|s| s.success()), "the JIT's Win64 test failed under Wine\n{}", out.describe());
    assert!(out.stdout.contains("test pointwise::expr_jit::win64_tests::the_caller_keeps_rdi_rsi_and_xmm6_to_xmm15 ... ok"), "the test did not run\n{}", out.describe());
}

/// The SDK's C examples, cross-built warning-free by their Makefile (WINDOWS=1), and loadable:
/// each plugin DLL registers its namespace in vsvk.dll and in R81 under Wine (their GPU filters
/// need Vulkan, which Wine does not give here, so only loading is run).
#[test]
fn the_sdk_examples_cross_build_and_load() {
    prerequisites();
    let out_dir = cross_target().join("sdk");
    let r = Command::new("make")
        .arg("-C")
        .arg(reference::workspace_root().join("sdk-examples"))
        .args(["WINDOWS=1", &format!("CC={CC}"), "CXX=x86_64-w64-mingw32-g++-posix", "-B"])
        .arg(format!("BUILD={}", out_dir.display()))
        .arg(format!("VULKAN_INCLUDE={}", reference::ref_dir().join("src/hdr/usr/include").display()))
        .arg(format!("VS_INCLUDE={}", reference::workspace_root().join("include").display()))
        .output()
        .expect("make runs");
    let text = format!("{}{}", String::from_utf8_lossy(&r.stdout), String::from_utf8_lossy(&r.stderr));
    assert!(r.status.success() && !text.contains("warning:"), "make WINDOWS=1 failed or warned:\n{text}");
    let (driver, noise) = c_programs();
    for (dll, ns) in [("gpu_invert_example.dll", "gpuinvert"), ("gpu_invert_raw_example.dll", "gpuinvertraw")] {
        for core in [r81(), vsvk()] {
            let out = run_wine(|cmd| {
                cmd.arg(driver).arg(wine_path(&core)).arg("--plugin").arg(wine_path(noise)).arg("--plugin").arg(wine_path(&out_dir.join(dll))).args(["--list", ns]);
            });
            assert!(out.status.is_some_and(|s| s.success()) && out.stdout.contains(&format!("{ns}.Invert(")), "{dll} in {}: no {ns}.Invert\n{}", core.display(), out.describe());
        }
    }
    assert!(out_dir.join("gpu_invert_driver_example.exe").is_file());
}

/// tests/gpu/gpuprobe.c for Windows: what a Windows user runs to check the GPU API there
/// (`gpuprobe.exe vsvk.dll export`: NT handles, the LUID, VS_GPU_IMPORT_CHARGED_AGAIN), built
/// warning-free. Not run: Wine 8's Vulkan (winevulkan) offers 1.3, the core needs 1.4.
#[test]
fn the_gpu_probe_cross_builds() {
    prerequisites();
    let out = cross_target().join("oracle").join("gpuprobe.exe");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let root = reference::workspace_root();
    let r = Command::new(CC)
        .args(["-O2", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", root.join("include").display()))
        .arg(format!("-I{}", reference::ref_dir().join("src/hdr/usr/include").display()))
        .arg(root.join("tests/gpu/gpuprobe.c"))
        .arg("-o")
        .arg(&out)
        .args(["-static", "-lpthread"])
        .output()
        .expect("the compiler runs");
    assert!(r.status.success() && r.stderr.is_empty(), "gpuprobe.c for Windows failed or warned:\n{}", String::from_utf8_lossy(&r.stderr));
    let (imports, _) = pe_imports_and_export(&out, "main");
    assert!(!imports.iter().any(|d| d.to_ascii_lowercase().contains("vulkan")), "gpuprobe.exe must take Vulkan from the core, not link it: {imports:?}");
}
