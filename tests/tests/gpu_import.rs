//! Foreign memory in (include/VSVulkanImport4.h) on lavapipe: tests/gpu/gpuimport.c makes a second
//! Vulkan device in the process, exports memory holding known samples as an opaque fd, and the
//! core imports it as GPU frames that vk.Invert and std.GPUDownload read; the samples, the
//! producer pair's ordering, the release callback and every refusal are checked. R81 has no such
//! extension, and vsvkFindImportAPI must say so there.
//!
//! Needs `scripts/setup.sh` (the reference, lavapipe, the Vulkan 1.4 loader and headers) and our
//! core and the vk plugin built in release mode.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use common::{core_name, our_core, reference_core, run};
use vsvk_tests::{oracle, reference, vk};

const LIMIT: Duration = Duration::from_secs(120);

fn program() -> PathBuf {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let headers = format!("-I{}", reference::ref_dir().join("src/hdr/usr/include").display());
            oracle::compile_into(&reference::target_dir().join("vsvk-gpu"), "gpuimport", "tests/gpu/gpuimport.c", false, &["-g", &headers])
        })
        .clone()
        .unwrap_or_else(|e| panic!("cannot build gpuimport: {e}"))
}

fn scenario(core: &Path, name: &str) -> common::Output {
    let mut cmd = Command::new(program());
    cmd.env("VK_ICD_FILENAMES", vk::lavapipe()).arg(core).arg(name).arg(vk::plugin());
    let out = run(cmd, LIMIT);
    assert!(out.success() && !out.timed_out(), "{} gpuimport {name}: {}", core_name(core), out.describe());
    out
}

fn ok_line(out: &common::Output) -> &str {
    out.stdout.lines().find(|l| l.starts_with("ok ")).unwrap_or_else(|| panic!("no result: {}", out.describe()))
}

#[test]
fn the_extension_is_found_on_ours_only() {
    assert_eq!(ok_line(&scenario(&our_core(), "absent")), "ok absent found=1");
    assert_eq!(ok_line(&scenario(&reference_core(), "absent")), "ok absent found=0");
}

#[test]
fn frames_over_another_devices_memory_go_through_a_chain() {
    // Twice, since the ordering it checks is a race the core must win every time.
    for _ in 0..2 {
        let out = scenario(&our_core(), "frames");
        assert_eq!(
            ok_line(&out),
            "ok frames mismatches=0 invert_before_signal=1 download_after_signal=1 released_while_held=0 released=1,1 early=0",
            "{}",
            out.describe()
        );
    }
}

#[test]
fn bad_imports_are_refused_with_their_reason() {
    let out = scenario(&our_core(), "errors");
    let said = |name: &str| -> String {
        let prefix = format!("{name}: ");
        out.stdout.lines().find_map(|l| l.strip_prefix(prefix.as_str())).unwrap_or_else(|| panic!("no {name} line: {}", out.describe())).to_string()
    };
    let expect = [
        ("dmabuf", "dma-buf import needs VK_EXT_external_memory_dma_buf"),
        ("handletype", "handle type 99 cannot be imported: only opaque fds"),
        ("negativefd", "handle -1 is not an open file descriptor"),
        ("closedfd", "is not an open file descriptor"),
        ("zerosize", "size is 0"),
        ("memorytype", "memory type 99 does not exist"),
        ("timelinetype", "semaphore handle type 16 cannot be imported"),
        ("planecount", "plane 2: memory is NULL"),
        ("toosmall", "plane 0: 4416 bytes from offset 16128 pass the end of the 16384-byte allocation"),
        ("toolarge", "plane 0: 38400 bytes from offset 0 pass the end of the 16384-byte allocation"),
        ("stride", "plane 1: stride 16 is below the row's 35 bytes"),
        ("offset", "plane 1: offset 4609 is not a multiple of the buffer alignment"),
        ("oddwidth", "dimensions 69x46 are not whole multiples of the format's subsampling"),
        ("zeroheight", "dimensions 70x0: both must be positive"),
    ];
    for (name, text) in expect {
        let got = said(name);
        assert!(got.contains(text), "{name}: {got:?} should contain {text:?}");
    }
    // lavapipe exports no semaphores, so the core cannot import one: said as such
    assert!(said("timelinenoexport").contains("cannot import semaphores"), "{}", out.describe());
    assert!(said("notvulkan").contains("vkAllocateMemory (import) failed"), "{}", out.describe());
    // the caller's fd stays open through every refusal, the driver's included, and is consumed by
    // a successful import
    assert!(out.stdout.contains("fds still open after refusals: 1 1"), "{}", out.describe());
    assert!(out.stdout.contains("fd closed after the import: 1"), "{}", out.describe());
    // a refused frame never calls its release callback; a made one calls it once
    assert_eq!(ok_line(&out), "ok errors release_calls_on_refusal=0 release_calls_after_free=1");
}
