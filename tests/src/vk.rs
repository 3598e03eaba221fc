//! Running chains with the vk plugin (plugins/vk) on lavapipe, for the tests that hold vk's
//! filters against std on the reference core (tests/tests/vk*.rs).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::{oracle, process, reference};

/// How long one driver run may take: lavapipe is slow on the larger kernels.
pub const LIMIT: Duration = Duration::from_secs(300);

/// The vk plugin: $VSVK_VK_PLUGIN, else the release build.
pub fn plugin() -> PathBuf {
    let p = std::env::var_os("VSVK_VK_PLUGIN").map(PathBuf::from).unwrap_or_else(|| reference::target_dir().join("release/libvsvk_vk.so"));
    assert!(p.is_file(), "the vk plugin {} is missing: build it with `cargo build --release -p vsvk-vk`", p.display());
    p
}

/// lavapipe's ICD file, which scripts/setup.sh installs.
pub fn lavapipe() -> &'static str {
    const ICD: &str = "/usr/share/vulkan/icd.d/lvp_icd.json";
    assert!(Path::new(ICD).is_file(), "lavapipe is missing ({ICD}): {}", reference::RUN_SETUP);
    ICD
}

/// Odd frame sizes where the subsampling allows, wide enough (45) for R81's SIMD square kernels
/// to take the interior of luma planes while 4:2:0 and 4:2:2 chroma (23 wide) stay narrow.
pub fn size(format: &str) -> (u32, u32) {
    if format.contains("420") {
        (46, 30)
    } else if format.contains("422") {
        (46, 29)
    } else {
        (45, 29)
    }
}

/// One driver run of `steps` over `frames` noise frames of `format` and `size` (noise seed
/// `seed`), the vk plugin loaded, samples dumped to `dump` if given: the result line up to the
/// thread count, or the error line as printed (hangs and missing results are described).
pub fn drive(core: &Path, format: &str, (w, h): (u32, u32), frames: u32, seed: u64, steps: &str, dump: Option<&Path>) -> Result<String, String> {
    let mut cmd = Command::new(oracle::driver());
    cmd.env("VK_ICD_FILENAMES", lavapipe());
    cmd.arg(core).arg("--plugin").arg(oracle::noise_plugin()).arg("--plugin").arg(plugin());
    cmd.args(["--width", &w.to_string(), "--height", &h.to_string(), "--frames", &frames.to_string()]);
    cmd.args(["--seed", &seed.to_string(), "--format", format]);
    if let Some(d) = dump {
        cmd.arg("--dump").arg(d);
    }
    cmd.arg(steps);
    let out = process::run(cmd, LIMIT);
    let what = || format!("{} {} ({format} {w}x{h})", core.display(), &steps[..steps.len().min(300)]);
    if out.timed_out() {
        return Err(format!("{}: hung\n{}", what(), out.describe()));
    }
    match out.stdout.lines().rev().find(|l| l.starts_with("ok ") || l.starts_with("error:")) {
        Some(l) if l.starts_with("ok ") => Ok(l.split(" threads=").next().unwrap_or(l).to_string()),
        Some(l) => Err(l.to_string()),
        None => Err(format!("{}: no result\n{}", what(), out.describe())),
    }
}

/// `steps` with `NS` as std, and as vk followed by a download.
pub fn both(steps: &str) -> (String, String) {
    (steps.replace("NS.", "std."), format!("{},std.GPUDownload", steps.replace("NS.", "vk.")))
}

/// Which core a run used, for messages.
fn core_name(core: &Path) -> &'static str {
    if reference::reference_core().is_ok_and(|r| r == core) {
        "R81"
    } else {
        "ours"
    }
}

/// `drive` over 3 frames at `size(format)`, seed 11, with the run named in errors.
pub fn drive3(core: &Path, format: &str, steps: &str, dump: Option<&Path>) -> Result<String, String> {
    drive(core, format, size(format), 3, 11, steps, dump).map_err(|e| format!("{} {} ({format}): {e}", core_name(core), &steps[..steps.len().min(300)]))
}

/// vk on our core and on R81 (`NS.` as vk, then a download) against std on R81 (`NS.` as std),
/// fingerprint for fingerprint, over `drive3`'s clip.
pub fn exact(format: &str, steps: &str) {
    let (s, v) = both(steps);
    let want = drive3(&oracle::reference_core(), format, &s, None).unwrap_or_else(|e| panic!("{e}"));
    for core in [oracle::our_core(), oracle::reference_core()] {
        let got = drive3(&core, format, &v, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got, want, "{} {v} on {format}: vk against R81's std", core_name(&core));
    }
}

/// The float samples of a dump (`--dump`), half floats widened.
pub fn float_samples(path: &Path, half: bool) -> Vec<f32> {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if half {
        b.chunks_exact(2).map(|c| half_to_f32(u16::from_le_bytes([c[0], c[1]]))).collect()
    } else {
        b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }
}

/// A half float's value (for reading dumps).
pub fn half_to_f32(h: u16) -> f32 {
    let (s, e, m) = ((h >> 15) as u32, ((h >> 10) & 0x1f) as u32, (h & 0x3ff) as u32);
    let v = if e == 0 {
        m as f32 * 2f32.powi(-24)
    } else if e == 31 {
        f32::from_bits(0x7f80_0000 | (m << 13))
    } else {
        f32::from_bits(((e + 112) << 23) | (m << 13))
    };
    if s == 1 {
        -v
    } else {
        v
    }
}
