//! Builds zimg and graphengine from `upstream/` into one static library.
//!
//! The file list and the per-file instruction-set flags follow zimg's own Makefile.am: the
//! portable code is built for the baseline target, and each `*_avx2`, `*_avx512` and
//! `*_avx512_vnni` file with its instruction set, chosen at run time by zimg's CPU detection.
//! -std=c++17 (not gnu++17) keeps GCC from contracting multiplies and adds into FMAs, so the
//! float paths round as zimg's do in R81.

use std::path::{Path, PathBuf};

fn cpp_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    files.sort();
    files
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("upstream");
    let zimg = root.join("src/zimg");
    let ge = root.join("graphengine");
    println!("cargo:rerun-if-changed=upstream");
    println!("cargo:rerun-if-changed=build.rs");

    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap();
    let x86 = arch == "x86_64";
    let arm = arch == "aarch64";

    let base = || {
        let mut b = cc::Build::new();
        b.cpp(true)
            .std("c++17")
            .opt_level(2)
            .warnings(false)
            .include(&zimg)
            .include(ge.join("include"))
            .define("GRAPHENGINE_IMPL_NAMESPACE", "zimg")
            .define("ZIMG_GRAPHENGINE_API", None)
            // zimg's internal assertions abort the process; a release build leaves them out
            .define("NDEBUG", None)
            .flag_if_supported("-Wno-unused-parameter")
            .flag_if_supported("-Wno-missing-field-initializers");
        if x86 {
            b.define("ZIMG_X86", None);
        }
        if arm {
            b.define("ZIMG_ARM", None);
        }
        b
    };

    let modules = ["api", "colorspace", "common", "depth", "graph", "resize", "unresize"];
    let simd_dir = if x86 { "x86" } else if arm { "arm" } else { "" };
    let mut portable: Vec<PathBuf> = Vec::new();
    let (mut avx2, mut avx512, mut vnni, mut neon) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for m in modules {
        portable.extend(cpp_files(&zimg.join(m)));
        if simd_dir.is_empty() || !zimg.join(m).join(simd_dir).is_dir() {
            continue;
        }
        for f in cpp_files(&zimg.join(m).join(simd_dir)) {
            let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
            if stem.ends_with("_avx512_vnni") {
                vnni.push(f);
            } else if stem.ends_with("_avx512") {
                avx512.push(f);
            } else if stem.ends_with("_avx2") {
                avx2.push(f);
            } else if stem.ends_with("_neon") {
                neon.push(f);
            } else {
                portable.push(f);
            }
        }
    }
    for f in ["cpuinfo.cpp", "graph.cpp", "node.cpp"] {
        portable.push(ge.join("graphengine").join(f));
    }
    if x86 {
        portable.push(ge.join("graphengine/x86/cpuinfo_x86.cpp"));
    }

    const AVX512: &[&str] = &["-mavx512f", "-mavx512cd", "-mavx512vl", "-mavx512bw", "-mavx512dq"];
    let mut parts: Vec<(&str, Vec<PathBuf>, Vec<&str>)> = vec![("zimg", portable, vec![])];
    if x86 {
        parts.push(("zimg_avx2", avx2, vec!["-mavx2", "-mf16c", "-mfma", "-mtune=haswell"]));
        let mut f = AVX512.to_vec();
        f.push("-mtune=skylake-avx512");
        parts.push(("zimg_avx512", avx512, f));
        let mut f = AVX512.to_vec();
        f.extend(["-mavx512vnni", "-mtune=cascadelake"]);
        parts.push(("zimg_avx512_vnni", vnni, f));
    }
    if arm {
        parts.push(("zimg_neon", neon, vec![]));
    }
    // One archive: the portable dispatchers and the instruction-set files call each other, and
    // the linker scans a single archive for both directions.
    let mut objects = Vec::new();
    let mut portable_files = Vec::new();
    for (name, files, flags) in parts {
        if name == "zimg" {
            portable_files = files;
            continue;
        }
        if files.is_empty() {
            continue;
        }
        let mut b = base();
        for fl in flags {
            b.flag(fl);
        }
        objects.extend(b.files(&files).compile_intermediates());
    }
    base().files(&portable_files).objects(&objects).compile("zimg");
}
