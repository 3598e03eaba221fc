//! Where the reference core (VapourSynth R81), its plugins and our own core live, as laid out by
//! `scripts/setup.sh`, and the environment that running them needs.

use std::env;
use std::path::{Path, PathBuf};

/// The message every test gives when the reference is not installed.
pub const RUN_SETUP: &str = "run scripts/setup.sh first (it installs the reference core and plugins into $VSVK_REF, default ~/.cache/vsvk-ref)";

/// The workspace root (the folder above this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the tests crate sits inside the workspace").to_path_buf()
}

/// Cargo's target folder: $CARGO_TARGET_DIR or target/ in the workspace root.
pub fn target_dir() -> PathBuf {
    match env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => {
            let d = PathBuf::from(d);
            if d.is_absolute() { d } else { workspace_root().join(d) }
        }
        _ => workspace_root().join("target"),
    }
}

/// The reference folder: $VSVK_REF, default ~/.cache/vsvk-ref.
pub fn ref_dir() -> PathBuf {
    if let Some(d) = env::var_os("VSVK_REF").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let home = env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/root"));
    home.join(".cache/vsvk-ref")
}

/// The reference core library, VapourSynth R81, or why it cannot be used.
pub fn reference_core() -> Result<PathBuf, String> {
    let lib = ref_dir().join("x/vapoursynth/libvapoursynth.so.4");
    if lib.is_file() {
        Ok(lib)
    } else {
        Err(format!("the reference core {} is missing: {RUN_SETUP}", lib.display()))
    }
}

/// Our core library: $VSVK_CORE, or target/release/libvsvk.so (built by the README's test command).
pub fn our_core() -> Result<PathBuf, String> {
    let lib = match env::var_os("VSVK_CORE").filter(|d| !d.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => target_dir().join("release/libvsvk.so"),
    };
    if lib.is_file() {
        Ok(lib)
    } else {
        Err(format!("our core {} is missing: build it with `cargo build --release` (scripts/test.sh does)", lib.display()))
    }
}

/// The folder with the VapourSynth API 4 headers the C test programs are built against:
/// $VSVK_INCLUDE, default the reference's x/vapoursynth/include.
pub fn include_dir() -> Result<PathBuf, String> {
    let dir = match env::var_os("VSVK_INCLUDE").filter(|d| !d.is_empty()) {
        Some(p) => PathBuf::from(p),
        // Our own headers: the C test programs double as a check that they compile and work.
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../include"),
    };
    if dir.join("VapourSynth4.h").is_file() {
        Ok(dir)
    } else {
        Err(format!("no VapourSynth4.h in {}: {RUN_SETUP}", dir.display()))
    }
}

/// LD_LIBRARY_PATH for running a core: the Vulkan 1.4 loader (R81 needs one), the libraries that
/// wheels bundle (x/*.libs, e.g. mvtools' fftw), then whatever was set already.
pub fn library_path() -> String {
    let r = ref_dir();
    let mut parts = vec![r.join("loader/lib").display().to_string()];
    if let Ok(entries) = std::fs::read_dir(r.join("x")) {
        let mut libs: Vec<String> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir() && p.extension().is_some_and(|e| e == "libs"))
            .map(|p| p.display().to_string())
            .collect();
        libs.sort();
        parts.extend(libs);
    }
    if let Some(old) = env::var_os("LD_LIBRARY_PATH").filter(|d| !d.is_empty()) {
        parts.push(old.to_string_lossy().into_owned());
    }
    parts.join(":")
}

/// The plugin library that provides a namespace, for the CPU plugins installed by setup.sh.
/// None for the namespaces a core provides itself (std, resize, text) and unknown ones.
pub fn plugin_for_namespace(ns: &str) -> Option<PathBuf> {
    let rel = match ns {
        "cas" => "cas.so",
        "bwdif" => "bwdif.so",
        "znedi3" => "znedi3.so",
        "zsmooth" => "zsmooth/libzsmooth.so",
        "vszip" => "vszip/libvszip.so",
        "edgemasks" => "edgemasks.so",
        "fb" => "fillborders.so",
        "sangnom" => "sangnom.so",
        "descale" => "libdescale.so",
        "eedi3m" => "eedi3m.so",
        "dfttest2_cpu" => "libdfttest2_cpu.so",
        "adg" => "adaptivegrain/libadaptivegrain_rs.so",
        "tivtc" => "tivtc.so",
        "mv" => "mvtools.so",
        _ => return None,
    };
    Some(ref_dir().join("plugins").join(rel))
}
