//! The SDK examples (sdk-examples/) on lavapipe: built by their one make command against include/,
//! warning-free (the Makefile builds with -Wall -Wextra -Werror), both C filter plugins loaded into
//! our core and into R81 through the oracle driver, where GPUUpload -> Invert -> GPUDownload must
//! give exactly std.Invert on every format std.Invert takes (8 to 16 bit integer, half and single
//! float, Gray, YUV and RGB, odd sizes), and the C++ driver example run against both cores.
//! The CUDA example needs nvcc, which CI lacks: scripts/device/parts/sdk.sh builds and runs it on
//! the H200.
//!
//! Needs `scripts/setup.sh` (the reference, lavapipe, the Vulkan 1.4 loader and headers) and our
//! core built in release mode.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use common::{core_name, our_core, program, reference_core, run, DRIVER, NOISE};
use vsvk_tests::reference;

const LIMIT: Duration = Duration::from_secs(300);
const LAVAPIPE: &str = "/usr/share/vulkan/icd.d/lvp_icd.json";

/// Runs `make -C sdk-examples` into the target folder; the folder with the results.
fn examples() -> &'static Path {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let out = reference::target_dir().join("vsvk-sdk");
            let vk = reference::ref_dir().join("src/hdr/usr/include");
            let r = Command::new("make")
                .arg("-C")
                .arg(reference::workspace_root().join("sdk-examples"))
                .arg(format!("BUILD={}", out.display()))
                .arg(format!("VULKAN_INCLUDE={}", vk.display()))
                .arg(format!("VS_INCLUDE={}", reference::include_dir()?.display()))
                // rebuilt every time: a stale result must not hide a warning in changed sources
                .arg("-B")
                .output()
                .map_err(|e| format!("cannot run make: {e}"))?;
            let text = format!("{}{}", String::from_utf8_lossy(&r.stdout), String::from_utf8_lossy(&r.stderr));
            if !r.status.success() {
                return Err(format!("make failed:\n{text}"));
            }
            if text.contains("warning:") {
                return Err(format!("the examples build with warnings:\n{text}"));
            }
            Ok(out)
        })
        .as_ref()
        .unwrap_or_else(|e| panic!("cannot build the SDK examples: {e}"))
}

fn lavapipe() -> &'static str {
    assert!(Path::new(LAVAPIPE).is_file(), "lavapipe is missing ({LAVAPIPE}): {}", reference::RUN_SETUP);
    LAVAPIPE
}

/// One oracle driver run: the result line up to the thread count, or the error.
fn chain(core: &Path, plugin: Option<&Path>, format: &str, size: (u32, u32), steps: &str, extra: &[&str]) -> Result<String, String> {
    let mut cmd = Command::new(program(DRIVER));
    cmd.env("VK_ICD_FILENAMES", lavapipe());
    cmd.arg(core).arg("--plugin").arg(program(NOISE));
    if let Some(p) = plugin {
        cmd.arg("--plugin").arg(p);
    }
    cmd.args(["--width", &size.0.to_string(), "--height", &size.1.to_string(), "--frames", "5", "--seed", "11", "--format", format]);
    cmd.args(extra).arg(steps);
    let out = run(cmd, LIMIT);
    let what = format!("{} {steps} ({format})", core_name(core));
    if out.timed_out() {
        return Err(format!("{what}: hung\n{}", out.describe()));
    }
    match out.stdout.lines().rev().find(|l| l.starts_with("ok ") || l.starts_with("error:")) {
        Some(l) if l.starts_with("ok ") => Ok(l.split(" threads=").next().unwrap_or(l).to_string()),
        Some(l) => Err(format!("{what}: {l}")),
        None => Err(format!("{what}: no result\n{}", out.describe())),
    }
}

/// Formats std.Invert takes, each with a size: odd where the subsampling allows it.
const FORMATS: [(&str, (u32, u32)); 14] = [
    ("Gray8", (67, 41)),
    ("Gray16", (67, 41)),
    ("GrayH", (33, 17)),
    ("GrayS", (67, 41)),
    ("YUV420P8", (66, 42)),
    ("YUV420P10", (38, 26)),
    ("YUV422P16", (66, 41)),
    ("YUV444P12", (45, 23)),
    ("YUV444PH", (67, 41)),
    ("YUV420PS", (66, 42)),
    ("YUV444PS", (31, 37)),
    ("RGB24", (67, 41)),
    ("RGB48", (21, 13)),
    ("RGBS", (67, 41)),
];

/// A plugin's Invert against std.Invert on one core, every format; the fingerprints, for comparing
/// the two cores.
fn inverts_like_std(core: &Path, plugin: &Path, ns: &str) -> Vec<String> {
    let mut all = Vec::new();
    for (format, size) in FORMATS {
        let expected = chain(core, None, format, size, "std.Invert", &[]).unwrap_or_else(|e| panic!("{e}"));
        let steps = format!("std.GPUUpload,{ns}.Invert,std.GPUDownload");
        let got = chain(core, Some(plugin), format, size, &steps, &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got, expected, "{} {ns}.Invert on {format}: not std.Invert", core_name(core));
        all.push(got);
    }
    // many frames in flight on several threads: the exec pool's ring, the raw example's slots
    let (format, size) = ("YUV420P8", (64, 48));
    let extra = ["--threads", "4", "--requests", "24", "--frames", "40"];
    let expected = chain(core, None, format, size, "std.Invert", &extra).unwrap_or_else(|e| panic!("{e}"));
    let steps = format!("std.GPUUpload,{ns}.Invert,{ns}.Invert,{ns}.Invert,std.GPUDownload");
    let got = chain(core, Some(plugin), format, size, &steps, &extra).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got, expected, "{} three {ns}.Inverts, 4 threads", core_name(core));
    all
}

fn c_example(file: &str, ns: &str) {
    let plugin = examples().join(file);
    let ours = inverts_like_std(&our_core(), &plugin, ns);
    let theirs = inverts_like_std(&reference_core(), &plugin, ns);
    assert_eq!(ours, theirs, "{ns}: our core and R81 differ");
    // a format it cannot take gets a clear error, not a crash
    for core in [our_core(), reference_core()] {
        let e = chain(&core, Some(&plugin), "Gray32", (16, 16), &format!("std.GPUUpload,{ns}.Invert,std.GPUDownload"), &[])
            .expect_err("32-bit integer samples must be refused");
        assert!(e.contains("Invert: the clip must have a constant format of 8-16 bit integer or 16/32 bit float samples, not Gray32"), "{}: {e}", core_name(&core));
    }
}

#[test]
fn exec_pool_example_equals_std_invert_on_both_cores() {
    c_example("gpu_invert_example.so", "gpuinvert");
}

#[test]
fn raw_timeline_example_equals_std_invert_on_both_cores() {
    c_example("gpu_invert_raw_example.so", "gpuinvertraw");
}

/// The driver example on one core; its whole output.
fn driver_example(core: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new(examples().join("gpu_invert_driver_example"));
    cmd.env("VK_ICD_FILENAMES", lavapipe());
    cmd.arg(core).args(args);
    let out = run(cmd, LIMIT);
    assert!(out.success(), "{} driver example {args:?}: {}", core_name(core), out.describe());
    out.stdout
}

#[test]
fn driver_example_runs_on_both_cores() {
    let plugin = examples().join("gpu_invert_example.so");
    let plugin = plugin.to_str().expect("a UTF-8 path");
    for core in [our_core(), reference_core()] {
        for (format, size) in [("YUV420P10", ["--width", "320", "--height", "180"]), ("RGBS", ["--width", "67", "--height", "41"]), ("YUV444PH", ["--width", "31", "--height", "17"])] {
            let mut args = vec!["--plugin", plugin, "--format", format, "--frames", "4"];
            args.extend(size);
            let out = driver_example(&core, &args);
            let planes = 4 * 3;
            assert!(out.contains("device 0: llvmpipe"), "{}: the device list: {out}", core_name(&core));
            assert!(out.contains("picked device 0"), "{}: {out}", core_name(&core));
            assert!(out.lines().any(|l| l.starts_with("vram: device memory ") && l.contains(" allocated ")), "{}: {out}", core_name(&core));
            assert!(out.lines().last().is_some_and(|l| l.starts_with(&format!("ok frames=4 planes={planes} device=llvmpipe"))), "{}: {out}", core_name(&core));
        }
        // without the plugin: the uploaded frames read back are the source itself
        let out = driver_example(&core, &["--format", "Gray16", "--frames", "3", "--width", "50", "--height", "30"]);
        assert!(out.lines().last().is_some_and(|l| l.starts_with("ok frames=3 planes=3 device=llvmpipe")), "{}: {out}", core_name(&core));
    }
    // bad input: a clear error and exit status 1
    let mut cmd = Command::new(examples().join("gpu_invert_driver_example"));
    cmd.env("VK_ICD_FILENAMES", lavapipe());
    cmd.arg(our_core()).args(["--format", "YUV420P8", "--width", "33", "--height", "20"]);
    let out = run(cmd, LIMIT);
    assert!(!out.success() && out.stdout.contains("error: the size does not fit the subsampling of YUV420P8"), "{}", out.describe());
    let mut cmd = Command::new(examples().join("gpu_invert_driver_example"));
    cmd.env("VK_ICD_FILENAMES", lavapipe());
    cmd.arg(our_core()).args(["--device", "7"]);
    let out = run(cmd, LIMIT);
    assert!(!out.success() && out.stdout.contains("error: setVulkanDevice: "), "{}", out.describe());
}

/// The DLPack hand-off's CPU-side half (CI has no CUDA): examples/dlpack_torch.py reports each
/// exported plane (shape, byte strides, dtype, a memoryId, a producer pair to wait) and the missing
/// CUDA driver by name; CPU frames are refused. The H200 part checks the tensors themselves.
#[test]
fn dlpack_planes_without_cuda() {
    let vsvk = reference::target_dir().join("release/vsvk");
    assert!(vsvk.is_file(), "{} is missing: cargo build --release", vsvk.display());
    let plugin = examples().join("gpu_invert_example.so");
    let mut cmd = Command::new(&vsvk);
    cmd.env("VK_ICD_FILENAMES", lavapipe()).current_dir(reference::workspace_root());
    cmd.args(["python", "examples/dlpack_torch.py", "--plugin"]).arg(&plugin).args(["--format", "YUV420P10", "--size", "66x42", "--frames", "2"]);
    let out = run(cmd, LIMIT);
    assert!(out.success(), "dlpack_torch.py: {}", out.describe());
    if out.stdout.lines().last().is_some_and(|l| l.starts_with("ok planes=")) {
        return; // a machine with CUDA: the real check ran
    }
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", out.stdout);
    for (p, (w, h)) in [(66, 42), (33, 21), (33, 21)].into_iter().enumerate() {
        let l = lines[p];
        assert!(l.starts_with(&format!("YUV420P10 plane {p}: shape=({h}, {w}) strides=(")), "{l}");
        assert!(l.contains(", 2) dtype=uint16 memory_id=") && l.ends_with(" ready=pair"), "{l}");
    }
    assert!(lines[3].starts_with("no CUDA: DLPack hand-off needs the CUDA driver (libcuda.so.1)"), "{}", lines[3]);
    let mut cmd = Command::new(&vsvk);
    cmd.env("VK_ICD_FILENAMES", lavapipe());
    cmd.args(["python", "-c", "import vsvk as vs\ntry:\n    vs.gpu_planes(vs.core.std.BlankClip().get_frame(0))\nexcept vs.Error as e:\n    print(e)"]);
    let out = run(cmd, LIMIT);
    assert!(out.success() && out.stdout.trim() == "the frame is not GPU resident (std.GPUUpload the clip first)", "{}", out.describe());
}
