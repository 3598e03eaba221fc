//! The GPU half against the reference, on lavapipe (CI has no GPU): std.GPUUpload/GPUDownload over
//! formats, real GPU plugins between them (knlmvk, nnedi3vk, bm3dvk2, vsfeel), mixed CPU/GPU chains
//! with the automatic conversions invoke inserts, and tests/gpu/gpuprobe.c driving getVulkanAPI
//! directly: shaders, a full upload -> dispatch -> readback through two exec pools, exec pool
//! stress, VRAM accounting and eviction, and the fatal misuses (each in a child process).
//!
//! Needs `scripts/setup.sh` (the reference, its plugins, lavapipe, the Vulkan 1.4 loader and
//! headers) and our core built in release mode.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use common::{core_name, our_core, program, reference_core, run, DRIVER, NOISE};
use vsvk_tests::reference;

const LIMIT: Duration = Duration::from_secs(300);

fn lavapipe() -> &'static str {
    const ICD: &str = "/usr/share/vulkan/icd.d/lvp_icd.json";
    assert!(Path::new(ICD).is_file(), "lavapipe is missing ({ICD}): {}", reference::RUN_SETUP);
    ICD
}

/// Builds tests/gpu/gpuprobe.c against our headers and the reference's Vulkan 1.4 headers.
fn probe() -> PathBuf {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let out = reference::target_dir().join("vsvk-gpu");
            std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
            let target = out.join("gpuprobe");
            let tmp = out.join(format!("gpuprobe.tmp{}", std::process::id()));
            let vk = reference::ref_dir().join("src/hdr/usr/include");
            let r = Command::new("gcc")
                .args(["-O1", "-g", "-Wall", "-Wextra", "-Werror"])
                .arg(format!("-I{}", vk.display()))
                .arg(format!("-I{}", reference::include_dir()?.display()))
                .arg("tests/gpu/gpuprobe.c")
                .args(["-ldl", "-lpthread", "-o"])
                .arg(&tmp)
                .current_dir(reference::workspace_root())
                .output()
                .map_err(|e| format!("cannot run gcc: {e}"))?;
            if !r.status.success() {
                return Err(format!("gcc failed:\n{}", String::from_utf8_lossy(&r.stderr)));
            }
            std::fs::rename(&tmp, &target).map_err(|e| e.to_string())?;
            Ok(target)
        })
        .clone()
        .unwrap_or_else(|e| panic!("cannot build gpuprobe: {e}"))
}

/// Builds tests/gpu/vsvkgpu.c, the GPU test plugin.
fn test_plugin() -> String {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let out = reference::target_dir().join("vsvk-gpu");
            std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
            let target = out.join("vsvkgpu.so");
            let tmp = out.join(format!("vsvkgpu.tmp{}.so", std::process::id()));
            let vk = reference::ref_dir().join("src/hdr/usr/include");
            let r = Command::new("gcc")
                .args(["-O1", "-g", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC"])
                .arg(format!("-I{}", vk.display()))
                .arg(format!("-I{}", reference::include_dir()?.display()))
                .arg("tests/gpu/vsvkgpu.c")
                .arg("-o")
                .arg(&tmp)
                .current_dir(reference::workspace_root())
                .output()
                .map_err(|e| format!("cannot run gcc: {e}"))?;
            if !r.status.success() {
                return Err(format!("gcc failed:\n{}", String::from_utf8_lossy(&r.stderr)));
            }
            std::fs::rename(&tmp, &target).map_err(|e| e.to_string())?;
            Ok(target)
        })
        .clone()
        .unwrap_or_else(|e| panic!("cannot build vsvkgpu.so: {e}"))
        .display()
        .to_string()
}

fn gpu_env(cmd: &mut Command) {
    cmd.env("VK_ICD_FILENAMES", lavapipe());
}

/// One driver run: the result line up to the thread count, or the error.
fn chain(core: &Path, format: &str, plugins: &[&str], steps: &str, env: &[(&str, &str)], extra: &[&str]) -> Result<String, String> {
    let mut cmd = Command::new(program(DRIVER));
    gpu_env(&mut cmd);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.arg(core).arg("--plugin").arg(program(NOISE));
    for p in plugins {
        cmd.arg("--plugin").arg(reference::ref_dir().join("plugins").join(p));
    }
    cmd.args(["--width", "64", "--height", "48", "--frames", "4", "--seed", "7", "--format", format]).args(extra).arg(steps);
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

/// The chain on both cores; the fingerprints must agree.
fn same(format: &str, plugins: &[&str], steps: &str) -> String {
    same_with(format, plugins, steps, &[])
}

fn same_with(format: &str, plugins: &[&str], steps: &str, extra: &[&str]) -> String {
    let ours = chain(&our_core(), format, plugins, steps, &[], extra).unwrap_or_else(|e| panic!("{e}"));
    let theirs = chain(&reference_core(), format, plugins, steps, &[], extra).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ours, theirs, "{steps} on {format}: ours vs R81");
    ours
}

const FORMATS: [&str; 10] =
    ["Gray8", "Gray16", "GrayS", "YUV420P8", "YUV420P10", "YUV422P16", "YUV444PH", "YUV444PS", "RGB24", "RGBS"];

#[test]
fn upload_download_is_identity_on_every_format() {
    for f in FORMATS {
        let plain = chain(&our_core(), f, &[], "-", &[], &[]).unwrap_or_else(|e| panic!("{e}"));
        let both = same(f, &[], "std.GPUUpload,std.GPUDownload");
        assert_eq!(plain, both, "{f}: a GPU round trip changed the clip");
        // the staged path (what a discrete card takes) gives the same
        let staged = chain(&our_core(), f, &[], "std.GPUUpload,std.GPUDownload", &[("VS_VULKAN_FORCE_STAGING", "1")], &[]);
        assert_eq!(staged.as_deref(), Ok(plain.as_str()), "{f}: staged round trip");
    }
    // uploading a GPU clip and downloading a CPU clip pass it through
    same("YUV420P8", &[], "std.GPUUpload,std.GPUUpload,std.GPUDownload,std.GPUDownload");
    // A staged download's planes are the transfer's own memory: filters read it, and text.Text
    // writes into a copy of the frame (copy on write of those planes).
    for after in ["std.Invert,std.FlipVertical", "text.Text:text='GPU", "std.Crop:left=2:right=2,text.FrameNum"] {
        let want = chain(&our_core(), "YUV420P10", &[], after, &[], &[]).unwrap_or_else(|e| panic!("{e}"));
        let staged = chain(&our_core(), "YUV420P10", &[], &format!("std.GPUUpload,std.GPUDownload,{after}"), &[("VS_VULKAN_FORCE_STAGING", "1")], &[]);
        assert_eq!(staged.as_deref(), Ok(want.as_str()), "{after} after a staged download");
    }
    // A downloaded frame goes back up with the copy engine (its planes are transfer memory).
    let plain = chain(&our_core(), "YUV444P16", &[], "std.Invert", &[], &[]).unwrap_or_else(|e| panic!("{e}"));
    let again = chain(&our_core(), "YUV444P16", &[], "std.GPUUpload,std.GPUDownload,std.GPUUpload,std.Invert,std.GPUDownload", &[("VS_VULKAN_FORCE_STAGING", "1")], &[]);
    assert_eq!(again.as_deref(), Ok(plain.as_str()), "a staged download uploaded again");
    // ... also when its planes are views into it (a field: an offset and twice the stride)
    let fields = chain(&our_core(), "YUV420P10", &[], "std.SeparateFields:tff=1", &[], &[]).unwrap_or_else(|e| panic!("{e}"));
    let up = chain(&our_core(), "YUV420P10", &[], "std.GPUUpload,std.GPUDownload,std.SeparateFields:tff=1,std.GPUUpload,std.GPUDownload", &[("VS_VULKAN_FORCE_STAGING", "1")], &[]);
    assert_eq!(up.as_deref(), Ok(fields.as_str()), "fields of a staged download uploaded again");
}

/// VSVK_PINNED_FRAMES=1: planes of 256 KiB and more live in host transfer memory and go up by
/// the copy engine (all planes pinned), or by the usual path (YUV420P16 960x540: the chroma planes
/// are smaller); CPU filters write into such frames and copy them on write. Every result equals
/// the plain chain's.
#[test]
fn pinned_frames_give_the_same_clips() {
    for (f, size, steps) in [
        ("Gray8", (1280, 832), "std.GPUUpload,std.GPUDownload"),
        ("YUV444P16", (1280, 832), "std.Invert,std.GPUUpload,std.GPUDownload,text.Text:text='pinned"),
        ("YUV420P16", (960, 540), "std.GPUUpload,std.GPUDownload,std.FlipVertical"),
        ("RGBS", (1280, 832), "std.GPUUpload,std.GPUDownload,std.GPUUpload,std.GPUDownload,std.Invert"),
    ] {
        // by default only frames of 8 MB and more go up by the copy engine (RGBS here); with no
        // threshold every pinned frame does, and with staging forced too
        // (uploads on the transfer queue, or with VSVK_UPLOAD_QUEUES=shared on the download queues)
        let every = [("VSVK_PINNED_FRAMES", "1"), ("VSVK_UPLOAD_DMA_MIN_KB", "0")];
        let shared = [("VSVK_PINNED_FRAMES", "1"), ("VSVK_UPLOAD_DMA_MIN_KB", "0"), ("VSVK_UPLOAD_QUEUES", "shared")];
        let staged = [("VSVK_PINNED_FRAMES", "1"), ("VS_VULKAN_FORCE_STAGING", "1")];
        // every other upload written by the CPU, the rest by the copy engine
        let halves = [("VSVK_PINNED_FRAMES", "1"), ("VSVK_UPLOAD_DMA_MIN_KB", "0"), ("VSVK_UPLOAD_CPU_EVERY", "2")];
        same_as_without_gpu(f, size, steps, &[&[("VSVK_PINNED_FRAMES", "1")], &every, &shared, &staged, &halves]);
    }
}

/// The chain `steps` on a `size` clip of `f` gives, under each of `envs`, what it gives with its
/// GPUUpload and GPUDownload steps left out.
fn same_as_without_gpu(f: &str, size: (u32, u32), steps: &str, envs: &[&[(&str, &str)]]) {
    let (w, h) = (size.0.to_string(), size.1.to_string());
    let dims = ["--width", w.as_str(), "--height", h.as_str()];
    let cpu_only: Vec<&str> = steps.split(',').filter(|s| !s.starts_with("std.GPU")).collect();
    let cpu_only = if cpu_only.is_empty() { "-".to_string() } else { cpu_only.join(",") };
    let want = chain(&our_core(), f, &[], &cpu_only, &[], &dims).unwrap_or_else(|e| panic!("{e}"));
    for env in envs {
        let got = chain(&our_core(), f, &[], steps, env, &dims);
        assert_eq!(got.as_deref(), Ok(want.as_str()), "{f} {steps} {env:?}");
    }
}

/// Round trips through the copy kernel: the three formats' chains (planes it cannot take included:
/// YUV420P16 960x540's chroma planes are too small to be pinned) give the plain chain's clips under
/// `forced`.
fn kernel_chains_give_the_same_clips(forced: &[(&str, &str)]) {
    for (f, size, steps) in [
        ("Gray16", (1280, 832), "std.GPUUpload,std.GPUDownload"),
        ("YUV420P16", (960, 540), "std.GPUUpload,std.GPUDownload,std.FlipVertical"),
        ("RGBS", (1280, 832), "std.GPUUpload,std.GPUDownload,std.GPUUpload,std.GPUDownload,std.Invert"),
    ] {
        same_as_without_gpu(f, size, steps, &[forced]);
    }
}

/// How many times the host step `stat` (a VSVK_STATS line) ran in a round trip of `frames`
/// 1280x832 Gray16 frames (2 MB each) under `env`; None where it never did.
fn stat_count(stat: &str, env: &[(&str, &str)], frames: u32) -> Option<u64> {
    stat_in(&stat_run(env, frames), stat)
}

/// The driver's run of stat_count's round trip, with VSVK_STATS on.
fn stat_run(env: &[(&str, &str)], frames: u32) -> common::Output {
    stat_run_chain(env, frames, &[], "std.GPUUpload,std.GPUDownload")
}

/// As stat_run, for `steps` with R81's GPU plugins `plugins`; a chain ending on the GPU is not
/// hashed (the driver hashes planes through their host pointers, which GPU frames do not have).
fn stat_run_chain(env: &[(&str, &str)], frames: u32, plugins: &[&str], steps: &str) -> common::Output {
    let mut cmd = Command::new(program(DRIVER));
    gpu_env(&mut cmd);
    cmd.env("VSVK_STATS", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.arg(our_core()).arg("--plugin").arg(program(NOISE));
    for p in plugins {
        cmd.arg("--plugin").arg(reference::ref_dir().join("plugins").join(p));
    }
    cmd.args(["--width", "1280", "--height", "832", "--format", "Gray16", "--frames"]).arg(frames.to_string());
    if steps.ends_with("std.GPUUpload") {
        cmd.arg("--no-hash");
    }
    cmd.arg(steps);
    let out = run(cmd, LIMIT);
    assert!(out.success(), "{}", out.describe());
    out
}

/// The count of the host step `stat` in a run's VSVK_STATS lines; None where it never ran.
fn stat_in(out: &common::Output, stat: &str) -> Option<u64> {
    let prefix = format!("vsvk stats: {stat}");
    out.stderr.lines().find_map(|l| l.strip_prefix(prefix.as_str())?.split_whitespace().next()?.parse().ok())
}

/// Every queue of the device runs its warm-up (a fill, a copy into host memory, the copy kernel
/// on the compute family) once as the device comes up, and its copy arrives, or the device fails
/// to come up; VSVK_QUEUE_WARMUP=0 leaves it out. Lavapipe has one queue.
#[test]
fn each_queue_is_warmed_up_once_as_the_device_comes_up() {
    assert_eq!(stat_count("queue warmup", &[], 3), Some(1));
    assert_eq!(stat_count("queue warmup", &[("VSVK_QUEUE_WARMUP", "0")], 3), None);
}

/// Copies by CUDA (VSVK_CUDA_COPIES=1, gpu::cuda_copy): with the route asked for, the copy
/// kernels' three chains give the plain chain's clips. Where CUDA drives the Vulkan device, CUDA
/// makes every upload and download of a 2 MB round trip (uploads from the copy engine's size,
/// lowered to take them); elsewhere (lavapipe, no CUDA driver) it makes none, and a warning says
/// why the copies stay on Vulkan's queues. Not asked, none.
#[test]
fn copies_by_cuda_give_the_same_clips() {
    let asked = [("VSVK_PINNED_FRAMES", "1"), ("VSVK_CUDA_COPIES", "1"), ("VSVK_UPLOAD_DMA_MIN_KB", "0")];
    kernel_chains_give_the_same_clips(&asked);
    let out = stat_run(&asked, 6);
    let by_cuda = (stat_in(&out, "upload cuda"), stat_in(&out, "download cuda"));
    if out.stderr.contains("VSVK_CUDA_COPIES=1: copies stay on Vulkan's queues: ") {
        assert_eq!(by_cuda, (None, None), "{}", out.describe());
        assert!(out.stderr.contains("CUDA"), "{}", out.describe());
    } else {
        assert_eq!(by_cuda, (Some(6), Some(6)), "{}", out.describe());
    }
    let out = stat_run(&asked[..1], 6);
    assert_eq!((stat_in(&out, "upload cuda"), stat_in(&out, "download cuda")), (None, None));
    assert!(!out.stderr.contains("VSVK_CUDA_COPIES"), "{}", out.describe());
}

/// The upload kernel (pinned frames read by the shader cores while the compute queue is idle, the
/// default on discrete devices), forced onto lavapipe's one queue for every pinned frame: the plain
/// chain's clips, and each upload it takes is counted as the kernel's. VSVK_UPLOAD_SM=0 takes none,
/// and frames under the kernel's threshold (VSVK_UPLOAD_KERNEL_MIN_KB, default 1 MB) are written
/// by the CPU.
#[test]
fn uploads_by_the_kernel_give_the_same_clips() {
    let forced = [("VSVK_PINNED_FRAMES", "1"), ("VSVK_UPLOAD_SM", "1"), ("VSVK_UPLOAD_DMA_MIN_KB", "0"), ("VSVK_KERNEL_COPY_IDLE_PERCENT", "101")];
    // (a threshold of 4 MB leaves the 2 MB frames to the CPU's writes into mapped memory)
    kernel_path_checks("upload kernel", forced, &[("VSVK_UPLOAD_KERNEL_MIN_KB", "4096")]);
    // and at the default 1 MB the kernel takes them where no download runs (uploads alone), where
    // the copy engine (8 MB) would not; the threshold counts whole frames (2,129,920 bytes: 2080 KiB)
    let unforced = [forced[0], forced[1], forced[3]];
    let alone = |extra: &[(&str, &str)]| stat_in(&stat_run_chain(&[&unforced[..], extra].concat(), 6, &[], "std.GPUUpload"), "upload kernel");
    assert_eq!(alone(&[]), Some(6));
    assert_eq!(alone(&[("VSVK_UPLOAD_KERNEL_MIN_KB", "2080")]), Some(6));
    assert_eq!(alone(&[("VSVK_UPLOAD_KERNEL_MIN_KB", "2081")]), None);
    // beside a round trip's downloads the CPU writes them, from the first download on
    let beside = stat_count("upload kernel", &unforced, 30).unwrap_or(0);
    assert!(beside < 30, "{beside} of 30 uploads by the kernel beside downloads");
}

/// What both copy kernels' tests check, `forced` being [what the path needs, the kernel's switch
/// at 1, its size threshold lowered to take 2 MB frames, the idle gate open] and `above` the
/// settings that put its threshold above 2 MB: the plain chain's clips; the kernel (its VSVK_STATS
/// line `stat`) takes all six copies of a 2 MB round trip, none with its switch at 0, none under
/// `above`. And with the kernel forced onto
/// lavapipe's compute queue its own copies make that queue busy: under the default idle threshold
/// (VSVK_KERNEL_COPY_IDLE_PERCENT) the kernel takes the first copies of a 60-frame round trip,
/// before the queue's first window of GPU time closes, and the copy engine's path the rest.
fn kernel_path_checks(stat: &str, forced: [(&str, &str); 4], above: &[(&str, &str)]) {
    kernel_chains_give_the_same_clips(&forced);
    assert_eq!(stat_count(stat, &forced, 6), Some(6));
    assert_eq!(stat_count(stat, &[forced[0], (forced[1].0, "0"), forced[2], forced[3]], 6), None);
    assert_eq!(stat_count(stat, &[&[forced[0], forced[1], forced[3]], above].concat(), 6), None);
    let n = stat_count(stat, &forced[..3], 60).unwrap_or(0);
    assert!((1..60).contains(&n), "{stat}: {n} of 60 copies");
}

/// The copy kernels keep off the shader cores while a filter has an exec pool on a kernel queue,
/// from its first frame, before the compute queue's busy share knows anything: with KNLMeans
/// between the copies the upload kernel takes no upload under the default idle gate, where
/// without the filter it takes the first ones (kernel_path_checks) and with
/// VSVK_KERNEL_COPY_BESIDE_FILTERS=1 it takes those beside the filter too.
#[test]
fn copy_kernels_keep_off_while_a_filter_has_kernels() {
    let forced = [("VSVK_PINNED_FRAMES", "1"), ("VSVK_UPLOAD_SM", "1"), ("VSVK_UPLOAD_DMA_MIN_KB", "0")];
    let steps = "std.GPUUpload,knlmvk.KNLMeans:d=0:a=1:h=1.2,std.GPUDownload";
    let count = |env: &[(&str, &str)]| stat_in(&stat_run_chain(env, 8, &["libknlmvulkan.so"], steps), "upload kernel");
    assert_eq!(count(&forced), None);
    let beside = count(&[&forced[..], &[("VSVK_KERNEL_COPY_BESIDE_FILTERS", "1")]].concat()).unwrap_or(0);
    assert!((1..=8).contains(&beside), "{beside} of 8 uploads by the kernel beside the filter");
    // and without the filter, under the same settings, it takes the first ones (on lavapipe its
    // own copies then make the one queue busy)
    let alone = stat_in(&stat_run(&forced, 8), "upload kernel").unwrap_or(0);
    assert!((1..=8).contains(&alone), "{alone} of 8 uploads by the kernel without a filter");
}

/// Downloads by the copy kernel (large frames on discrete devices while the compute queue is
/// idle), forced onto lavapipe's compute queue for every frame (staged, since lavapipe's memory
/// would otherwise be read in place): the plain chain's clips, each download counted as the
/// kernel's; VSVK_DOWNLOAD_SM=0 takes none, nor does the kernel take frames under its threshold
/// (default 8 MB).
#[test]
fn downloads_by_the_kernel_give_the_same_clips() {
    kernel_path_checks("download kernel", [("VS_VULKAN_FORCE_STAGING", "1"), ("VSVK_DOWNLOAD_SM", "1"), ("VSVK_DOWNLOAD_KERNEL_MIN_KB", "0"), ("VSVK_KERNEL_COPY_IDLE_PERCENT", "101")], &[]);
}

#[test]
fn knlmeans() {
    same("YUV420P8", &["libknlmvulkan.so"], "std.GPUUpload,knlmvk.KNLMeans:h=8.0,std.GPUDownload");
    same("GrayS", &["libknlmvulkan.so"], "std.GPUUpload,knlmvk.KNLMeans:d=1:a=2:h=3.0,std.GPUDownload");
}

#[test]
fn nnedi3vk() {
    same("YUV420P8", &["nnedi3vk/nnedi3vk.so"], "std.GPUUpload,nnedi3vk.NNEDI3:field=1,std.GPUDownload");
}

#[test]
fn eedi3vk2() {
    same("YUV420P8", &["eedi3vk2.so"], "std.GPUUpload,eedi3vk2.EEDI3:field=1,std.GPUDownload");
}

/// For plugins whose output is not deterministic on lavapipe, even on R81 with one thread (BM3D
/// implementations aggregate in whatever order the device runs them, so a few hundred samples move
/// by an ulp from run to run and fingerprints rarely repeat): GrayS samples of one run on each core
/// must agree within a few ulps of the unit range, and the filter must have changed the clip.
fn same_within_ulps(plugins: &[&str], steps: &str) {
    const TOLERANCE: f32 = 4.0 * f32::EPSILON;
    let dir = reference::target_dir().join("vsvk-gpu");
    std::fs::create_dir_all(&dir).expect("cannot create the dump folder");
    let samples = |core: &Path, steps: &str, tag: &str| -> Vec<f32> {
        let file = dir.join(format!("dump-{tag}-{}", std::process::id()));
        let dump = ["--threads", "1", "--dump", file.to_str().expect("utf-8 path")];
        chain(core, "GrayS", plugins, steps, &[], &dump).unwrap_or_else(|e| panic!("{e}"));
        let samples = vsvk_tests::vk::float_samples(&file, false);
        let _ = std::fs::remove_file(&file);
        samples
    };
    let ours = samples(&our_core(), steps, "ours");
    let theirs = samples(&reference_core(), steps, "r81");
    let input = samples(&reference_core(), "-", "input");
    assert_eq!(ours.len(), 64 * 48 * 4, "{steps}: samples dumped");
    assert_eq!(ours.len(), theirs.len(), "{steps}: ours and R81 dumped different sizes");
    let worst = ours.iter().zip(&theirs).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
    assert!(worst <= TOLERANCE, "{steps}: ours and R81 differ by up to {worst} (allowed {TOLERANCE})");
    let changed = ours.iter().zip(&input).filter(|(a, b)| (*a - *b).abs() > 1e-3).count();
    assert!(changed > ours.len() / 2, "{steps}: only {changed} samples differ from the input; did the filter run?");
}

#[test]
fn bm3dvk2() {
    same_within_ulps(&["bm3dvk2.so"], "std.GPUUpload,bm3dvk2.BM3D,std.GPUDownload");
}

#[test]
fn vsfeel_gaussblur() {
    same("GrayS", &["vsfeel/libvsfeel.so"], "std.GPUUpload,vsfeel.GaussBlur,std.GPUDownload");
}

#[test]
fn more_vsfeel_and_knlm() {
    let feel = ["vsfeel/libvsfeel.so"];
    same("YUV444PS", &feel, "std.GPUUpload,vsfeel.GaussBlur,std.GPUDownload");
    same("GrayS", &feel, "std.GPUUpload,vsfeel.Box,std.GPUDownload");
    same("YUV420P16", &feel, "std.GPUUpload,vsfeel.Box,std.GPUDownload");
    same("GrayS", &feel, "std.GPUUpload,vsfeel.Bilateral,std.GPUDownload");
    same("GrayS", &feel, "std.GPUUpload,vsfeel.NLMeans,std.GPUDownload");
    same_within_ulps(&feel, "std.GPUUpload,vsfeel.BM3D,std.GPUDownload");
    same("RGBS", &["libknlmvulkan.so"], "std.GPUUpload,knlmvk.KNLMeans:channels='RGB,std.GPUDownload");
    same("YUV444PS", &["libknlmvulkan.so"], "std.GPUUpload,knlmvk.KNLMeans:channels='YUV,std.GPUDownload");
}

#[test]
fn mixed_cpu_gpu_chains() {
    // a GPU filter on a CPU clip: GPUUpload is inserted; a CPU filter on a GPU clip: GPUDownload
    same("YUV420P8", &["libknlmvulkan.so"], "knlmvk.KNLMeans:h=4.0,std.GPUDownload");
    same("YUV420P8", &["cas.so"], "std.GPUUpload,cas.CAS");
    same("GrayS", &["libknlmvulkan.so", "vsfeel/libvsfeel.so", "cas.so"], "std.GPUUpload,knlmvk.KNLMeans,cas.CAS,vsfeel.GaussBlur,std.GPUDownload");
    same("YUV420P8", &["libknlmvulkan.so", "nnedi3vk/nnedi3vk.so", "cas.so"], "knlmvk.KNLMeans,nnedi3vk.NNEDI3:field=1,cas.CAS");
}

/// std, resize and text take GPU clips (`vnode:all`) as R81's do: pixel filters work on the
/// frames in host memory and hand GPU frames on, property filters keep them where they are.
/// (This crashed our core before: pixel filters read GPU planes as host memory.)
#[test]
fn std_resize_and_text_take_gpu_clips() {
    let chains = [
        "std.SetFrameProps:Foo=1",
        "std.CopyFrameProps:@:clip=$1:prop_src=$0",
        "std.ClipToProp:@:clip=$1:mclip=$0",
        "std.Invert",
        "std.Expr:@:clips=$1:expr='x 2 /",
        "std.Merge:@:clipa=$1:clipb=$1:weight=0.3",
        "std.MaskedMerge:@:clipa=$1:clipb=$1:mask=$1",
        "std.Levels:min_in=16.0",
        "std.Limiter:min=20.0",
        "std.Minimum",
        "std.Median",
        "std.Convolution:matrix=1.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=4.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=1.0",
        "std.BoxBlur",
        "std.Sobel",
        "std.AverageFrames:@:clips=$1:weights=1.0:weights=2.0:weights=1.0",
        "std.PlaneStats:@clipa",
        "text.Text:text='GPU",
        "text.FrameNum",
    ];
    for c in chains {
        same("YUV420P8", &[], &format!("std.GPUUpload,{c},std.GPUDownload"));
    }
    // clips of both residencies in one call are refused, with R81's words
    let mixed = "std.GPUUpload,std.Merge:@:clipa=$1:clipb=$0,std.GPUDownload";
    let want = chain(&reference_core(), "YUV420P8", &[], mixed, &[], &[]).expect_err("R81 refuses mixed residency");
    let got = chain(&our_core(), "YUV420P8", &[], mixed, &[], &[]).expect_err("ours must refuse mixed residency");
    assert_eq!(got.split_once(": ").map(|x| x.1), want.split_once(": ").map(|x| x.1), "mixed residency");
    // resize on a GPU clip gives what it gives on the CPU clip (zimg); R81 resamples GPU clips
    // with its own GPU code instead, whose integer results differ by a code value or two
    let cpu = same("YUV420P16", &[], "resize.Bicubic:width=40:height=30");
    let ours = chain(&our_core(), "YUV420P16", &[], "std.GPUUpload,resize.Bicubic:width=40:height=30,std.GPUDownload", &[], &[]);
    assert_eq!(ours.as_deref(), Ok(cpu.as_str()), "resize.Bicubic on a GPU clip");
}

fn probe_run(core: &Path, scenario: &str) -> common::Output {
    let mut cmd = Command::new(probe());
    gpu_env(&mut cmd);
    cmd.arg(core).arg(scenario);
    run(cmd, LIMIT)
}

fn ok_line(core: &Path, scenario: &str) -> String {
    let out = probe_run(core, scenario);
    match out.stdout.lines().find(|l| l.starts_with("ok ")) {
        Some(l) if out.success() => l.to_string(),
        _ => panic!("{} gpuprobe {scenario}: {}", core_name(core), out.describe()),
    }
}

#[test]
fn probe_scenarios_match_the_reference() {
    for s in ["info", "shader", "invert", "stress", "vram", "memory", "timeline", "blank", "select", "export"] {
        assert_eq!(ok_line(&our_core(), s), ok_line(&reference_core(), s), "gpuprobe {s}");
    }
    // the failure messages, word for word
    let all = |core: &Path| {
        let out = probe_run(core, "errors");
        assert!(out.success(), "{} gpuprobe errors: {}", core_name(core), out.describe());
        out.stdout
    };
    assert_eq!(all(&our_core()), all(&reference_core()), "gpuprobe errors");
}

/// A host wait past VSVK_GPU_STALL_SECONDS is reported as a warning naming the submission waited
/// on and the foreign timeline value it waits for; the wait then completes when that is signalled.
#[test]
fn a_stalled_wait_is_reported_and_then_completes() {
    let mut cmd = Command::new(probe());
    gpu_env(&mut cmd);
    cmd.env("VSVK_GPU_STALL_SECONDS", "0.5").arg(our_core()).arg("stall");
    let out = run(cmd, LIMIT);
    assert!(out.success() && out.stdout.contains("ok stall value=1"), "gpuprobe stall: {}", out.describe());
    let report = out.stderr.lines().find(|l| l.contains("GPU stall: thread")).unwrap_or_else(|| panic!("no stall report: {}", out.describe()));
    assert!(report.contains("for value 1 of pool ") && report.contains("(at 0)"), "{report}");
    // the full report: the one unfinished submission, waiting on the timeline no exec pool owns
    assert!(out.stderr.contains(": 1 unfinished") && out.stderr.contains("(no exec pool's) >= 1 (at 0)"), "{}", out.stderr);
    // every half second again, and only while the wait lasts (the signal comes after 2 s)
    let n = out.stderr.matches("GPU stall: thread").count();
    assert!((2..=5).contains(&n), "{n} reports: {}", out.stderr);
    // with the reports off, nothing is said
    let mut cmd = Command::new(probe());
    gpu_env(&mut cmd);
    cmd.env("VSVK_GPU_STALL_SECONDS", "0").arg(our_core()).arg("stall");
    let out = run(cmd, LIMIT);
    assert!(out.success() && !out.stderr.contains("GPU stall"), "{}", out.describe());
}

#[test]
fn vram_pressure_evicts_cached_gpu_frames() {
    // R81 lets a reservation leave the pool over its limit here; we evict down under it, as the
    // API describes, and keep the cache under the limit while frames are produced.
    assert!(ok_line(&reference_core(), "evict").starts_with("ok evict limit=268435456"));
    assert_eq!(ok_line(&our_core(), "evict"), "ok evict limit=268435456 over_before=0 under_after=1");
}

#[test]
fn exec_pool_stress_repeated() {
    // three processes at once, twice: 8 threads each hammering one pool, on 2 cores
    for _ in 0..2 {
        let runs: Vec<_> = (0..3).map(|_| std::thread::spawn(|| ok_line(&our_core(), "stress"))).collect();
        for r in runs {
            assert_eq!(r.join().expect("a stress run"), "ok stress released=1600");
        }
    }
}

#[test]
fn gpu_frames_have_null_pointers_and_outlive_the_core() {
    for s in ["fatal-read-ptr", "fatal-write-ptr"] {
        for core in [our_core(), reference_core()] {
            let out = probe_run(&core, s);
            assert!(out.success() && out.stdout.contains("ptr (nil)"), "{} {s}: {}", core_name(&core), out.describe());
            // the frame outlives the core: freeCore warns, and the frame stays valid
            assert!(out.stderr.contains("log 2: Core freed but 4096 bytes still allocated in GPU framebuffers"), "{} {s}: {}", core_name(&core), out.describe());
        }
    }
}

#[test]
fn fatal_misuses_end_the_process_naming_the_call() {
    let cases = [
        ("fatal-shared-write", "gpuExecWritesPlane called on plane 0 of a frame that shares it with another frame"),
        ("fatal-after-submit", "gpuExecReadsFrame called with a context handle whose recording was already ended"),
        ("fatal-wait-past", "gpuExecWaitValue called with a value past everything the pool has submitted"),
        ("fatal-producer-past", "setGPUPlaneProducer published a value on an exec pool's timeline that the pool has not submitted"),
        ("fatal-release-acquire", "gpuExecAcquire called from"),
        ("fatal-wrong-thread", "gpuExecCommandBuffer called"),
    ];
    for (s, msg) in cases {
        for core in [our_core(), reference_core()] {
            let out = probe_run(&core, s);
            assert!(!out.timed_out() && !out.success() && !out.stdout.contains("survived"), "{} {s} survived: {}", core_name(&core), out.describe());
            assert!(out.stderr.contains(msg), "{} {s}: the message should contain {msg:?}: {}", core_name(&core), out.describe());
        }
    }
}

/// R81 refuses a Vulkan 1.3 loader; we run a 1.4 device behind one (docs/GPU.md says why the
/// specification allows it): Debian 12's own loader is 1.3.239, and the results must not change.
#[test]
fn a_1_3_loader_in_front_of_a_1_4_driver() {
    let system = Path::new("/usr/lib/x86_64-linux-gnu");
    let has_13 = std::fs::read_dir(system)
        .map(|d| d.flatten().any(|e| e.file_name().to_string_lossy().starts_with("libvulkan.so.1.3.")))
        .unwrap_or(false);
    if !has_13 {
        eprintln!("no system Vulkan 1.3 loader: nothing to check");
        return;
    }
    let steps = "std.GPUUpload,knlmvk.KNLMeans:h=8.0,std.GPUDownload";
    let reference = chain(&reference_core(), "YUV420P8", &["libknlmvulkan.so"], steps, &[], &[]).unwrap_or_else(|e| panic!("{e}"));
    // `env` runs the driver with an empty LD_LIBRARY_PATH, so the system loader is the one found
    let mut cmd = Command::new("env");
    gpu_env(&mut cmd);
    cmd.arg("LD_LIBRARY_PATH=").arg(program(DRIVER)).arg(our_core()).arg("--plugin").arg(program(NOISE));
    cmd.arg("--plugin").arg(reference::ref_dir().join("plugins/libknlmvulkan.so"));
    cmd.args(["--width", "64", "--height", "48", "--frames", "4", "--seed", "7", "--format", "YUV420P8", steps]);
    let out = run(cmd, LIMIT);
    let line = out.stdout.lines().find(|l| l.starts_with("ok ")).map(|l| l.split(" threads=").next().unwrap_or(l).to_string());
    assert_eq!(line.as_deref(), Some(reference.as_str()), "ours behind the 1.3 loader: {}", out.describe());
    let mut cmd = Command::new("env");
    gpu_env(&mut cmd);
    cmd.arg("LD_LIBRARY_PATH=").arg(probe()).arg(our_core()).arg("invert");
    let out = run(cmd, LIMIT);
    assert!(out.success() && out.stdout.contains("ok invert"), "{}", out.describe());
}

#[test]
fn a_plugin_on_exec_pools_in_a_graph() {
    let p = test_plugin();
    let plugins = [p.as_str()];
    for f in ["Gray8", "YUV420P8", "RGB24"] {
        for threads in [&["--threads", "1"][..], &["--threads", "4", "--requests", "16"][..]] {
            same_with(f, &plugins, "std.GPUUpload,vsvkgpu.Invert,std.GPUDownload", threads);
        }
        // two inverts are the identity
        let plain = chain(&our_core(), f, &[], "-", &[], &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(same(f, &plugins, "std.GPUUpload,vsvkgpu.Invert,vsvkgpu.Invert,std.GPUDownload"), plain);
        // the staged download of frames a plugin made
        let staged = chain(&our_core(), f, &plugins, "std.GPUUpload,vsvkgpu.Invert,vsvkgpu.Invert,std.GPUDownload", &[("VS_VULKAN_FORCE_STAGING", "1")], &[]);
        assert_eq!(staged.as_deref(), Ok(plain.as_str()));
    }
}

#[test]
fn exportable_frames_exported_planes_and_wait_gpu_frame() {
    let p = test_plugin();
    let plugins = [p.as_str()];
    same("YUV420P8", &plugins, "std.GPUUpload,vsvkgpu.Invert,vsvkgpu.Export:src=$1,std.GPUDownload");
    same("YUV420P8", &plugins, "std.GPUUpload,vsvkgpu.Invert,vsvkgpu.Export:src=$2,vsvkgpu.Invert,std.GPUDownload");
    // an input taken with getExportableFrameFilter never goes back to the core
    for core in [our_core(), reference_core()] {
        let r = chain(&core, "YUV420P8", &plugins, "std.GPUUpload,vsvkgpu.GiveBack,std.GPUDownload", &[], &[]);
        let e = r.expect_err("GiveBack must fail");
        assert!(e.contains("Filter GiveBack returned a frame whose planes could not be taken back from a foreign API"), "{}: {e}", core_name(&core));
    }
}

#[test]
fn residency_lies_are_fatal() {
    let p = test_plugin();
    let cases = [
        ("std.GPUUpload,vsvkgpu.Lie:mode=0,std.GPUDownload", "Filter Lie is declared to return GPU resident frames but returned a CPU frame"),
        ("std.GPUUpload,vsvkgpu.Lie:mode=1,std.GPUDownload", "Filter Lie returned a GPU resident frame without being created with ffGPUOutput"),
        ("std.GPUUpload,vsvkgpu.BadReturn,std.GPUDownload", "BadReturn: node returned under 'clip' was created with ffGPUOutput but is declared plain vnode"),
    ];
    for (steps, msg) in cases {
        for core in [our_core(), reference_core()] {
            let mut cmd = Command::new(program(DRIVER));
            gpu_env(&mut cmd);
            cmd.arg(&core).arg("--plugin").arg(program(NOISE)).arg("--plugin").arg(&p);
            cmd.args(["--width", "64", "--height", "48", "--frames", "4", "--format", "YUV420P8", steps]);
            let out = run(cmd, LIMIT);
            assert!(!out.timed_out() && !out.success() && !out.stdout.contains("ok "), "{} {steps}: {}", core_name(&core), out.describe());
            assert!(out.stderr.contains(msg), "{} {steps}: {}", core_name(&core), out.describe());
        }
    }
}

#[test]
fn blank_clip_on_the_gpu() {
    same("YUV420P8", &[], "std.BlankClip:@:gpu=1:color=10.0:color=20.0:color=30.0:length=7,std.GPUDownload");
    same("YUV420P8", &[], "std.GPUUpload,std.BlankClip:keep=1,std.GPUDownload");
    same("YUV420P8", &[], "std.GPUUpload,std.BlankClip:gpu=0");
}

/// A GPU BlankClip's planes are filled on the GPU with the sample repeated in 32-bit words; each
/// sample type (8 and 16-bit integers, half, float) and YUV's default mid chroma must download to
/// exactly the host clip's bytes, odd widths (row padding) and keep=1 included.
#[test]
fn blank_clip_filled_on_the_gpu_matches_the_host_clip() {
    let id = |cf: u32, st: u32, bits: u32, ss: u32| (cf << 28) | (st << 24) | (bits << 16) | (ss << 8) | ss;
    let (gray, rgb, yuv, int, float) = (1, 2, 3, 0, 1);
    let cases = [
        (id(gray, int, 8, 0), "width=33:height=7:color=201.0"),
        (id(gray, int, 16, 0), "width=33:height=7:color=40000.0"),
        (id(gray, int, 10, 0), "color=700.0"),
        (id(gray, float, 16, 0), "width=33:height=7:color=-1.5"),
        (id(gray, float, 32, 0), "width=33:height=7:color=0.1"),
        (id(rgb, float, 32, 0), "color=0.25:color=-3.0:color=1000000.5"),
        (id(yuv, int, 8, 1), "width=34:height=6"),
        (id(yuv, int, 10, 1), "width=34:height=6"),
        (id(yuv, int, 16, 0), "width=34:height=6:color=1.0:color=65535.0:color=3.0"),
        (id(yuv, float, 16, 0), "color=0.5:color=-0.25:color=0.125"),
        (id(yuv, int, 8, 1), "keep=1:color=16.0:color=17.0:color=18.0"),
    ];
    for (format, args) in cases {
        let host = format!("std.BlankClip:@:format={format}:length=3:{args}");
        let gpu = format!("std.BlankClip:@:format={format}:length=3:{args}:gpu=1,std.GPUDownload");
        let want = chain(&our_core(), "Gray8", &[], &host, &[], &[]).unwrap_or_else(|e| panic!("{e}"));
        for threads in ["1", "4"] {
            let got = chain(&our_core(), "Gray8", &[], &gpu, &[], &["--threads", threads]).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(got, want, "{gpu} with {threads} threads against the host clip");
        }
    }
}

/// Device loss cannot be caused on demand, so the core injects it (VSVK_INJECT_DEVICE_LOST=after:N:
/// submission N+1 finds the device lost). Staged copies make every upload and download submit, so
/// frames are in flight when it happens.
#[test]
fn an_injected_device_loss_is_reported_and_releases_everything() {
    for after in ["after:3", "after:12", "after:40"] {
        let mut cmd = Command::new(probe());
        gpu_env(&mut cmd);
        cmd.env("VSVK_INJECT_DEVICE_LOST", after).env("VS_VULKAN_FORCE_STAGING", "1");
        cmd.arg(our_core()).arg("lost");
        let out = run(cmd, LIMIT);
        assert!(out.success(), "gpuprobe lost ({after}): {}", out.describe());
        let line = out.stdout.lines().find(|l| l.starts_with("ok lost ")).unwrap_or_else(|| panic!("no result ({after}): {}", out.describe()));
        let field = |k: &str| -> i64 {
            let v = line.split_whitespace().find_map(|w| w.strip_prefix(&format!("{k}="))).unwrap_or_else(|| panic!("{k} missing in {line}"));
            v.split('/').next().unwrap().parse().unwrap_or_else(|_| panic!("{k} in {line}"))
        };
        let pair = |k: &str| line.split_whitespace().find_map(|w| w.strip_prefix(&format!("{k}="))).map(str::to_string).unwrap();
        // every frame answered: either produced before the loss or failed naming it, nothing else
        assert_eq!(field("frames") + field("named"), 40, "{after}: {line}");
        assert_eq!(field("other"), 0, "{after}: {line}");
        assert!(field("named") > 0, "{after}: no frame saw the loss: {line}");
        // gdDeviceLost (2) from both pool waits, with the loss named in the error
        assert_eq!(pair("wait"), "2/1", "{after}: {line}");
        assert_eq!(pair("idle"), "2/1", "{after}: {line}");
        assert_eq!(field("timeline"), 2, "{after}: a timeline wait: {line}");
        for k in ["acquire", "pool", "getframe"] {
            assert_eq!(field(k), 1, "{after}: {k} after the loss must fail naming it: {line}");
        }
        // the three retained objects of the submissions before the loss were released by the
        // time the pool's waits returned, and the VRAM held for frames went back
        assert_eq!(field("released"), 3, "{after}: {line}");
        assert!(field("allocated_after") <= field("allocated_before"), "{after}: VRAM leaked: {line}");
    }
}

#[test]
fn a_bad_injection_value_is_named() {
    let mut cmd = Command::new(probe());
    gpu_env(&mut cmd);
    cmd.env("VSVK_INJECT_DEVICE_LOST", "soon").arg(our_core()).arg("info");
    let out = run(cmd, LIMIT);
    assert!(out.stdout.contains("VSVK_INJECT_DEVICE_LOST=\"soon\"") || out.stderr.contains("VSVK_INJECT_DEVICE_LOST=\"soon\""), "{}", out.describe());
}

/// VSVK_STATS and the driver's --timing are what the H200 profile reads: each staged step is
/// counted once per frame, nothing is printed without the variable, and R81 reports node times too.
#[test]
fn stats_and_node_timing_report_every_frame() {
    let run_with = |core: &Path, env: &[(&str, &str)]| {
        let mut cmd = Command::new(program(DRIVER));
        gpu_env(&mut cmd);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.arg(core).arg("--plugin").arg(program(NOISE)).args(["--width", "64", "--height", "48", "--frames", "6", "--format", "YUV420P8", "--timing"]);
        cmd.arg("std.GPUUpload,std.GPUDownload");
        let out = run(cmd, LIMIT);
        assert!(out.success(), "{}", out.describe());
        out.stderr
    };
    let count = |err: &str, step: &str| -> Option<u64> {
        err.lines().find_map(|l| l.strip_prefix("vsvk stats: ")?.strip_prefix(step)?.split_whitespace().next()?.parse().ok())
    };
    let err = run_with(&our_core(), &[("VSVK_STATS", "1"), ("VS_VULKAN_FORCE_STAGING", "1")]);
    for step in ["upload staged", "download wait"] {
        assert_eq!(count(&err, step), Some(6), "{step} in:\n{err}");
    }
    assert_eq!(count(&err, "upload copy"), None, "a staged upload is not a direct copy:\n{err}");
    // The transfer queue writes a download into the CPU frame's own memory: no host copy after.
    assert_eq!(count(&err, "download copy"), None, "{err}");
    // Without staging (lavapipe's memory is the host's) both directions are host copies.
    let direct = run_with(&our_core(), &[("VSVK_STATS", "1")]);
    for step in ["upload copy", "download copy"] {
        assert_eq!(count(&direct, step), Some(6), "{step} in:\n{direct}");
    }
    assert_eq!(count(&direct, "download wait"), None, "{direct}");
    // Idle host transfer buffers are kept up to VSVK_FRAME_POOL_MB: with none kept, every staged
    // frame allocates its staging and download planes anew.
    let staged = [("VSVK_STATS", "1"), ("VS_VULKAN_FORCE_STAGING", "1")];
    let kept = count(&err, "vram new").expect("allocations counted");
    let none_kept = count(&run_with(&our_core(), &[staged[0], staged[1], ("VSVK_FRAME_POOL_MB", "0")]), "vram new").expect("allocations counted");
    assert!(none_kept > kept, "{none_kept} new buffers with no idle host memory kept, {kept} with the default");
    // GPU times: each staged upload and each download is one timed submission on lavapipe's one
    // queue (compute capable), and the pools are told apart.
    let times = run_with(&our_core(), &[("VSVK_GPU_TIMES", "1"), ("VS_VULKAN_FORCE_STAGING", "1")]);
    assert!(times.contains("vsvk gpu times: 12 submissions over "), "{times}");
    let pools: Vec<&str> = times.lines().filter(|l| l.starts_with("vsvk gpu times: pool ")).collect();
    assert_eq!(pools.len(), 2, "{times}");
    assert!(pools.iter().all(|l| l.contains(": 6 submissions, mean ")), "{times}");
    assert!(times.contains("vsvk gpu times: queue 0.0 busy "), "{times}");
    let quiet = run_with(&our_core(), &[]);
    assert!(!quiet.contains("vsvk stats") && !quiet.contains("vsvk gpu times"), "{quiet}");
    for (core, err) in [(our_core(), quiet), (reference_core(), run_with(&reference_core(), &[]))] {
        let nodes: Vec<&str> = err.lines().filter_map(|l| l.strip_prefix("timing ")).map(|l| l.split_whitespace().nth(1).unwrap_or("")).collect();
        assert_eq!(nodes, ["Noise", "GPUUpload", "GPUDownload"], "{}:\n{err}", core_name(&core));
    }
}
