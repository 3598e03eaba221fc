//! Compiles the C shim (src/shim) against the FFmpeg that scripts/setup.sh builds and links that
//! FFmpeg statically, so the plugin needs no FFmpeg on the machine that loads it.
//!
//! Where: $VSVK_FFMPEG (a prefix with include/ and lib/), else setup.sh's $VSVK_REF/ffmpeg
//! ($VSVK_REF defaults to ~/.cache/vsvk-ref); dav1d beside it ($VSVK_DAV1D or $VSVK_REF/dav1d).
use std::path::PathBuf;

fn main() {
    let refdir = std::env::var_os("VSVK_REF").map(PathBuf::from).unwrap_or_else(|| {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
        home.join(".cache/vsvk-ref")
    });
    let ffmpeg = std::env::var_os("VSVK_FFMPEG").map(PathBuf::from).unwrap_or_else(|| refdir.join("ffmpeg"));
    let dav1d = std::env::var_os("VSVK_DAV1D").map(PathBuf::from).unwrap_or_else(|| refdir.join("dav1d"));
    let vulkan_headers = refdir.join("src/hdr/usr/include");
    for v in ["VSVK_REF", "VSVK_FFMPEG", "VSVK_DAV1D", "HOME"] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    println!("cargo:rerun-if-changed=src/shim");
    if !ffmpeg.join("lib/libavcodec.a").is_file() {
        panic!("no FFmpeg at {} (libavcodec.a): run scripts/setup.sh, which builds it once per machine", ffmpeg.display());
    }
    println!("cargo:rerun-if-changed={}", ffmpeg.join("lib/libavcodec.a").display());
    cc::Build::new()
        .file("src/shim/vkdec.c")
        .file("src/shim/hwdec.c")
        .include(ffmpeg.join("include"))
        .include(&vulkan_headers)
        .flag_if_supported("-std=c11")
        .warnings(true)
        .compile("vsvk_vkdec_shim");
    println!("cargo:rustc-link-search=native={}", ffmpeg.join("lib").display());
    println!("cargo:rustc-link-search=native={}", dav1d.join("lib").display());
    for lib in ["avformat", "avcodec", "avutil", "dav1d"] {
        println!("cargo:rustc-link-lib=static={lib}");
    }
    for lib in ["m", "pthread", "dl", "atomic"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
}
