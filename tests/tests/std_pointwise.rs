//! The pointwise functions of `std` against the reference: Invert, InvertMask, Limiter, Levels,
//! Binarize, BinarizeMask, Lut, Lut2, Merge, MaskedMerge, MakeDiff, MergeDiff, MakeFullDiff,
//! MergeFullDiff, PreMultiply and Expr. Every chain runs on R81 and on our core through the oracle
//! driver (tests/oracle/driver.c) over the vsvknoise source; the fingerprints (every pixel and frame
//! property, the clip's length, rate and format) or the error lines must be identical.
//!
//! The driver is built here inside a small wrapper (the same driver.c, unchanged) that adds two
//! things the chain syntax cannot say: string arguments may carry `\xHH` escapes (Expr needs ':' and
//! ','), and a string passed as `function` becomes a VSFunction from a small built-in table (Lut and
//! Lut2 take functions).
//!
//! Float results: R81 runs Expr through its JIT by default, whose exp/log/pow/sin/cos are
//! approximations; its plain C path (`--maxcpu none`) uses the C library, as we do, and we match
//! it bit for bit. Cases with transcendental operations therefore pin R81 to its C path.
//!
//! Needs `scripts/setup.sh` (the reference) and our core built in release mode. Environment as for
//! tests/tests/oracle.rs (VSVK_REF, VSVK_CORE, VSVK_INCLUDE).

use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;

use vsvk_tests::oracle::{check_all, check_errors, compile_wrapped_driver, format_id, our_core, reference_core, run, Case};

// ---- building the C programs ------------------------------------------------------------------------

/// The wrapper around the oracle driver: it hooks dlsym so that the driver's API table is a copy
/// whose mapSetData unescapes `\xHH` and turns `function` strings into functions.
const WRAPPER: &str = r#"
#define VS_USE_API_43
#include "VapourSynth4.h"
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const VSAPI *pw_real;
static VSAPI pw_api;
static VSCore *pw_core;
static VSGetVapourSynthAPI pw_entry;

static int pw_hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static char *pw_unescape(const char *s) {
    size_t n = strlen(s);
    char *out = malloc(n + 1), *o = out;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 3 < n + 1 && s[i + 1] == 'x' && pw_hex(s[i + 2]) >= 0 && pw_hex(s[i + 3]) >= 0) {
            *o++ = (char)(pw_hex(s[i + 2]) * 16 + pw_hex(s[i + 3]));
            i += 3;
        } else {
            *o++ = s[i];
        }
    }
    *o = 0;
    return out;
}

/* Functions by name: "i A B M" gives (A*x + B*y) mod M as an integer, "f A B" gives A*x + B*y as
   a float, "int_as_float" an integer where a float is wanted, "float_as_int" the reverse, "none"
   nothing, "fail" an error. */
static void VS_CC pw_function(const VSMap *in, VSMap *out, void *data, VSCore *core, const VSAPI *vsapi) {
    (void)core;
    const char *name = data;
    int err = 0;
    int64_t x = vsapi->mapGetInt(in, "x", 0, &err);
    int64_t y = vsapi->mapGetInt(in, "y", 0, &err);
    if (err) y = 0;
    long long a = 0, b = 0, m = 1;
    double fa = 0, fb = 0;
    if (sscanf(name, "i %lld %lld %lld", &a, &b, &m) == 3) {
        vsapi->mapSetInt(out, "val", (a * x + b * y) % m, maReplace);
    } else if (sscanf(name, "f %lf %lf", &fa, &fb) == 2) {
        vsapi->mapSetFloat(out, "val", fa * (double)x + fb * (double)y, maReplace);
    } else if (!strcmp(name, "int_as_float")) {
        vsapi->mapSetInt(out, "val", x, maReplace);
    } else if (!strcmp(name, "float_as_int")) {
        vsapi->mapSetFloat(out, "val", (double)x, maReplace);
    } else if (!strcmp(name, "fail")) {
        vsapi->mapSetError(out, "the test function fails on purpose");
    }
}

static VSCore *VS_CC pw_createCore(int flags) {
    pw_core = pw_real->createCore(flags);
    return pw_core;
}

static int VS_CC pw_mapSetData(VSMap *map, const char *key, const char *data, int size, int type, int append) {
    char *text = pw_unescape(data);
    int r;
    if (!strcmp(key, "function")) {
        VSFunction *f = pw_real->createFunction(pw_function, text, free, pw_core);
        r = pw_real->mapSetFunction(map, key, f, append);
        pw_real->freeFunction(f);
        return r;
    }
    r = pw_real->mapSetData(map, key, text, size < 0 ? -1 : (int)strlen(text), type, append);
    free(text);
    return r;
}

static const VSAPI *VS_CC pw_getapi(int version) {
    pw_real = pw_entry(version);
    if (!pw_real) return NULL;
    pw_api = *pw_real;
    pw_api.createCore = pw_createCore;
    pw_api.mapSetData = pw_mapSetData;
    return &pw_api;
}

static void *pw_dlsym(void *handle, const char *name) {
    void *p = dlsym(handle, name);
    if (p && !strcmp(name, "getVapourSynthAPI")) {
        pw_entry = (VSGetVapourSynthAPI)p;
        return (void *)pw_getapi;
    }
    return p;
}

#define dlsym pw_dlsym
#include "driver.c"
"#;

/// The wrapped driver, built once.
fn driver() -> &'static Path {
    static DRIVER: OnceLock<Result<std::path::PathBuf, String>> = OnceLock::new();
    match DRIVER.get_or_init(|| compile_wrapped_driver("pwdriver", WRAPPER)) {
        Ok(d) => d,
        Err(e) => panic!("cannot build the C programs: {e}"),
    }
}

/// The wrapped driver with an environment variable set before it starts (read by our core, not
/// by R81), built once per name.
fn driver_with_env(name: &'static str, var: &str, value: &str, cell: &'static OnceLock<Result<std::path::PathBuf, String>>) -> &'static Path {
    let text = WRAPPER.replace(
        "#define dlsym pw_dlsym",
        &format!("__attribute__((constructor)) static void vsvk_env(void) {{ setenv(\"{var}\", \"{value}\", 1); }}\n#define dlsym pw_dlsym"),
    );
    match cell.get_or_init(|| compile_wrapped_driver(name, &text)) {
        Ok(d) => d,
        Err(e) => panic!("cannot build the C programs: {e}"),
    }
}

/// VSVK_EXPR_JIT=0: our std.Expr runs every plane on its block interpreter instead of compiling it.
fn interpreter_driver() -> &'static Path {
    static DRIVER: OnceLock<Result<std::path::PathBuf, String>> = OnceLock::new();
    driver_with_env("pwdriver_nojit", "VSVK_EXPR_JIT", "0", &DRIVER)
}

/// VSVK_NO_AVX512=1: compiled programs are AVX2 code only, as on a CPU without AVX-512.
fn avx2_driver() -> &'static Path {
    static DRIVER: OnceLock<Result<std::path::PathBuf, String>> = OnceLock::new();
    driver_with_env("pwdriver_avx2", "VSVK_NO_AVX512", "1", &DRIVER)
}

/// VSVK_STREAM_STORES=1: the filters that fill rows through map_rows write them with streaming
/// stores whatever the frame size and thread count.
fn stream_driver() -> &'static Path {
    static DRIVER: OnceLock<Result<std::path::PathBuf, String>> = OnceLock::new();
    driver_with_env("pwdriver_stream", "VSVK_STREAM_STORES", "1", &DRIVER)
}

/// `cases` against R81 as they are (Expr programs compiled, AVX-512 code where the CPU has it),
/// again with AVX2 code only, and again on our interpreter: all three of our paths are held to
/// R81's output.
fn check_expr_paths(cases: &[Case]) {
    check_all(cases);
    for driver in [avx2_driver(), interpreter_driver()] {
        let other: Vec<Case> = cases.iter().map(|c| c.clone().with_driver(driver)).collect();
        check_all(&other);
    }
}

/// The default picture: wider than one 64-sample block with a partial one at the end.
const W: u32 = 96;
const H: u32 = 64;

/// The noise source in one format and size through the wrapped driver.
fn sized(format: &str, width: u32, height: u32, frames: u32, chain: &str) -> Case {
    Case::sized(format, width, height, frames, chain).with_driver(driver())
}

fn video(format: &str, chain: &str) -> Case {
    sized(format, W, H, 4, chain)
}

/// The formats every function is tried on.
const FORMATS: [&str; 8] = ["Gray8", "YUV420P8", "YUV422P10", "YUV444P16", "RGB24", "GrayS", "YUV444PS", "YUV420PH"];

fn is_float(format: &str) -> bool {
    format.ends_with('S') || format.ends_with('H')
}

/// The largest sample value of a format (1.0 for float).
fn peak(format: &str) -> f64 {
    match format {
        f if is_float(f) => 1.0,
        "YUV422P10" => 1023.0,
        "YUV444P16" | "Gray16" | "YUV420P16" => 65535.0,
        _ => 255.0,
    }
}

/// A fraction of a format's range, written as the chain wants a float.
fn frac(format: &str, f: f64) -> String {
    format!("{:.4}", peak(format) * f)
}

/// The gray format with the sample type and depth of `format`.
fn gray_of(format: &str) -> u32 {
    match format {
        "GrayS" | "YUV444PS" => format_id(1, true, 32, 0, 0),
        "YUV420PH" | "GrayH" => format_id(1, true, 16, 0, 0),
        "YUV422P10" | "YUV444P10" => format_id(1, false, 10, 0, 0),
        "YUV444P16" | "YUV420P16" | "RGB48" | "Gray16" => format_id(1, false, 16, 0, 0),
        _ => format_id(1, false, 8, 0, 0),
    }
}

/// A second source with another seed, as a chain step that takes no input.
fn noise(format: u32, width: u32, height: u32, seed: u32) -> String {
    format!("vsvknoise.Noise:@:width={width}:height={height}:length=4:format={format}:seed={seed}")
}

/// Escapes an Expr string for the chain syntax (':' and ',' separate arguments and steps).
fn esc(expr: &str) -> String {
    expr.replace(':', "\\x3a").replace(',', "\\x2c")
}

/// Formats with three planes (more than one per-plane value may be given).
fn three_planes(format: &str) -> bool {
    !format.starts_with("Gray")
}

fn over_formats(chains: impl Fn(&str) -> Vec<String>) -> Vec<Case> {
    FORMATS.iter().flat_map(|f| chains(f).into_iter().map(move |c| video(f, &c))).collect()
}

// ---- Invert, InvertMask ---------------------------------------------------------------------------------

fn invert_cases() -> Vec<Case> {
    let mut cases = over_formats(|_| {
        ["std.Invert", "std.InvertMask", "std.Invert:planes=0:planes=2", "std.InvertMask:planes=1", "std.Invert:planes=1"].map(String::from).to_vec()
    });
    cases.push(sized("YUV444P8", 322, 241, 3, "std.Invert"));
    cases.push(sized("GrayS", 322, 241, 3, "std.InvertMask"));
    cases.push(sized("YUV420P16", 322, 242, 3, "std.Invert:planes=2"));
    cases.push(video("RGBH", "std.Invert"));
    cases.push(video("YUV444PH", "std.InvertMask"));
    cases
}

#[test]
fn invert() {
    check_all(&invert_cases());
}

// ---- Limiter ----------------------------------------------------------------------------------------------

fn limiter_cases() -> Vec<Case> {
    let mut cases = over_formats(|f| {
        let mut v = vec!["std.Limiter".into(), format!("std.Limiter:min={}:max={}", frac(f, 0.2), frac(f, 0.8))];
        if three_planes(f) {
            v.push(format!("std.Limiter:min={}:min={}:max={}:planes=0:planes=2", frac(f, 0.1), frac(f, 0.3), frac(f, 0.6)));
            v.push(format!("std.Limiter:max={}:max={}:max={}", frac(f, 0.9), frac(f, 0.5), frac(f, 0.7)));
        }
        v
    });
    // arguments are rounded half up to sample values
    cases.push(video("Gray8", "std.Limiter:min=16.5:max=234.5"));
    cases.push(video("Gray8", "std.Limiter:min=-1.4:max=255.4"));
    cases.push(video("YUV444PS", "std.Limiter:min=-0.3:max=0.3"));
    cases.push(sized("YUV444P8", 322, 241, 3, "std.Limiter:min=30.0:max=200.0"));
    cases
}

#[test]
fn limiter() {
    check_all(&limiter_cases());
}

#[test]
fn limiter_errors() {
    check_errors(&[
        video("Gray8", "std.Limiter:min=255.5"),
        video("Gray8", "std.Limiter:max=-1.5"),
        video("Gray8", "std.Limiter:min=200.0:max=100.0"),
        video("GrayS", "std.Limiter:min=0.8:max=0.2"),
        video("Gray8", "std.Limiter:min=1.0:min=2.0"),
        video("YUV420P8", "std.Limiter:planes=3"),
        video("YUV420P8", "std.Limiter:planes=0:planes=0"),
        video("Gray32", "std.Limiter"),
    ]);
}

// ---- Binarize, BinarizeMask ---------------------------------------------------------------------------------

fn binarize_cases() -> Vec<Case> {
    let mut cases = over_formats(|f| {
        let mut v = vec![
            "std.Binarize".into(),
            "std.BinarizeMask".into(),
            format!("std.Binarize:threshold={}:v0={}:v1={}", frac(f, 0.3), frac(f, 0.1), frac(f, 0.9)),
        ];
        if three_planes(f) {
            v.push(format!("std.BinarizeMask:threshold={}:threshold={}:planes=1:planes=2", frac(f, 0.6), frac(f, 0.4)));
            v.push(format!("std.Binarize:v0={}:v0={}:v0={}:planes=0", frac(f, 0.2), frac(f, 0.4), frac(f, 0.6)));
        }
        v
    });
    cases.push(video("Gray8", "std.Binarize:threshold=127.5:v0=7.5:v1=8.4"));
    cases.push(video("Gray8", "std.Binarize:threshold=-1.4"));
    cases.push(sized("YUV444P16", 322, 241, 3, "std.BinarizeMask:threshold=40000.0"));
    cases
}

#[test]
fn binarize() {
    check_all(&binarize_cases());
}

#[test]
fn binarize_errors() {
    check_errors(&[
        video("Gray8", "std.Binarize:threshold=255.5"),
        video("Gray8", "std.Binarize:threshold=-1.5"),
        video("Gray8", "std.Binarize:v0=256.0"),
        video("YUV422P10", "std.BinarizeMask:v1=1024.0"),
        video("Gray8", "std.Binarize:v1=1.0:v1=2.0"),
        video("YUV420P8", "std.BinarizeMask:planes=-1"),
        video("Gray32", "std.BinarizeMask"),
    ]);
}

// ---- Levels ---------------------------------------------------------------------------------------------------

fn levels_cases() -> Vec<Case> {
    let mut cases = over_formats(|f| {
        let mut v = vec![
            "std.Levels:gamma=1.7".into(),
            format!("std.Levels:min_in={}:max_in={}:min_out={}:max_out={}", frac(f, 0.0627), frac(f, 0.922), frac(f, 0.1), frac(f, 0.8)),
            format!("std.Levels:min_out={}:max_out={}:gamma=2.2", frac(f, 0.9), frac(f, 0.2)),
        ];
        if three_planes(f) {
            v.push(format!("std.Levels:min_in={}:max_in={}:gamma=0.6:gamma=1.3:planes=0:planes=1", frac(f, 0.2), frac(f, 0.7)));
        }
        v
    });
    cases.push(video("Gray8", "std.Levels:min_in=16.3:max_in=235.7:gamma=1.3:min_out=3.3:max_out=250.2"));
    cases.push(video("Gray16", "std.Levels:min_out=-257.0:max_out=65792.0:gamma=0.45"));
    cases.push(sized("YUV444PS", 322, 241, 3, "std.Levels:min_in=0.1:max_in=0.9:gamma=0.8"));
    cases
}

#[test]
fn levels() {
    check_all(&levels_cases());
}

#[test]
fn levels_errors() {
    check_errors(&[
        video("Gray8", "std.Levels:min_in=200.0:max_in=100.0"),
        video("Gray8", "std.Levels:min_in=100.5:max_in=100.6"),
        video("GrayS", "std.Levels:gamma=0.0"),
        video("Gray8", "std.Levels:gamma=-1.0"),
        video("YUV420P8", "std.Levels:gamma=1.0:gamma=1.0:gamma=1.0:gamma=1.0"),
        video("Gray32", "std.Levels"),
    ]);
}

// ---- Lut, Lut2 ------------------------------------------------------------------------------------------------

fn lut_args(key: &str, n: usize, f: impl Fn(usize) -> String) -> String {
    (0..n).map(|i| format!(":{key}={}", f(i))).collect()
}

#[test]
fn lut() {
    let mut cases = Vec::new();
    for f in ["Gray8", "YUV420P8", "RGB24"] {
        cases.push(video(f, &format!("std.Lut{}", lut_args("lut", 256, |i| ((i * 7 + 3) % 256).to_string()))));
        cases.push(video(f, &format!("std.Lut{}:planes=0:planes=2", lut_args("lut", 256, |i| (255 - i).to_string()))));
        cases.push(video(f, &format!("std.Lut{}:floatout=1", lut_args("lutf", 256, |i| format!("{:.3}", i as f64 * 0.37 - 10.0)))));
        cases.push(video(f, &format!("std.Lut{}:bits=10", lut_args("lut", 256, |i| (i * 4 + 1).to_string()))));
        cases.push(video(f, "std.Lut:function='i 3 0 256"));
        cases.push(video(f, "std.Lut:function='f 0.5 0.0:floatout=1"));
    }
    cases.push(video("YUV422P10", &format!("std.Lut{}", lut_args("lut", 1024, |i| ((i * 13) % 1024).to_string()))));
    cases.push(video("YUV422P10", "std.Lut:function='i 1 0 256:bits=8"));
    cases.push(video("YUV444P16", "std.Lut:function='i 7 0 65536:planes=1"));
    cases.push(video("YUV444P16", "std.Lut:function='f 0.001 0.0:floatout=1"));
    cases.push(sized("Gray8", 322, 241, 3, "std.Lut:function='i 5 0 256"));
    check_all(&cases);
}

#[test]
fn lut2() {
    let g8 = format_id(1, false, 8, 0, 0);
    let g10 = format_id(1, false, 10, 0, 0);
    let y420p8 = format_id(3, false, 8, 1, 1);
    let mut cases = vec![
        video("Gray8", &format!("{},std.Lut2:@clipa:clipb=$0:function='i 3 5 256", noise(g8, W, H, 3))),
        video("Gray8", &format!("{},std.Lut2:@clipa:clipb=$0:function='f 0.5 1.0:floatout=1", noise(g8, W, H, 3))),
        video("Gray8", &format!("{},std.Lut2:@clipa:clipb=$0:function='i 1 1 1024:bits=10", noise(g10, W, H, 3))),
        video("YUV420P8", &format!("{},std.Lut2:@clipa:clipb=$0:function='i 1 255 256:planes=0:planes=1", noise(y420p8, W, H, 3))),
        video("YUV422P10", &format!("std.Invert,std.Lut2:@clipa:clipb=$0:function='i 2 3 1024")),
    ];
    cases.push(sized("Gray8", 322, 241, 3, &format!("{},std.Lut2:@clipb:clipa=$0:function='i 7 1 256", noise(g8, 322, 241, 5))));
    check_all(&cases);
}

#[test]
fn lut_errors() {
    check_errors(&[
        video("GrayS", "std.Lut:function='i 1 0 256"),
        video("Gray8", "std.Lut"),
        video("Gray8", &format!("std.Lut:function='i 1 0 256{}", lut_args("lut", 256, |i| i.to_string()))),
        video("Gray8", &format!("std.Lut{}", lut_args("lut", 10, |i| i.to_string()))),
        video("Gray8", &format!("std.Lut{}", lut_args("lut", 256, |_| "256".into()))),
        video("Gray8", &format!("std.Lut{}:floatout=1", lut_args("lut", 256, |i| i.to_string()))),
        video("Gray8", &format!("std.Lut{}", lut_args("lutf", 256, |i| format!("{i}.5")))),
        video("Gray8", "std.Lut:function='i 1 0 256:bits=7"),
        video("Gray8", "std.Lut:function='f 1.0 0.0:floatout=1:bits=16"),
        video("YUV420P8", "std.Lut:function='i 1 0 256:planes=3"),
        video("YUV420P8", "std.Lut:function='i 1 0 256:planes=1:planes=1"),
        video("YUV420P8", "std.Lut:function='i 1 0 256:planes=0:bits=9"),
        video("Gray8", "std.Lut:function='i 300 0 1000"),
        video("Gray8", "std.Lut:function='float_as_int"),
        video("Gray8", "std.Lut:function='int_as_float:floatout=1"),
        video("Gray8", "std.Lut:function='fail"),
        video("Gray8", "std.Lut2:@clipa:clipb=$0:function='i 1 1 1000"),
        video("Gray8", "std.Lut2:@clipa:clipb=$0:function='float_as_int"),
        video("Gray8", "std.Lut2:@clipa:clipb=$0:function='int_as_float:floatout=1"),
        video("Gray8", "std.Lut2:@clipa:clipb=$0:function='fail"),
        video("Gray16", "std.Lut2:@clipa:clipb=$0:function='i 1 1 1000"),
        video("Gray8", &format!("{},std.Lut2:@clipa:clipb=$0:function='i 1 1 256", noise(format_id(1, false, 8, 0, 0), 48, 64, 3))),
        video("Gray8", "std.Lut2:@clipa:clipb=$0:planes=2:planes=2:function='i 1 0 256"),
    ]);
}

// ---- Merge ---------------------------------------------------------------------------------------------------

fn merge_cases() -> Vec<Case> {
    let mut cases = over_formats(|f| {
        let mut v: Vec<String> = ["std.Invert,std.Merge:@clipa:clipb=$0", "std.Invert,std.Merge:@clipa:clipb=$0:weight=0.3", "std.Invert,std.Merge:@clipa:clipb=$0:weight=1.0"]
            .map(String::from)
            .to_vec();
        if three_planes(f) {
            v.extend(
                [
                    "std.Invert,std.Merge:@clipb:clipa=$0:weight=0.77:weight=0.001",
                    "std.Invert,std.Merge:@clipa:clipb=$0:weight=0.0:weight=1.0",
                    "std.Invert,std.Merge:@clipa:clipb=$0:weight=0.99999:weight=0.4999:weight=0.6",
                ]
                .map(String::from),
            );
        }
        v
    });
    cases.push(sized("YUV444P16", 322, 241, 3, "std.Invert,std.Merge:@clipa:clipb=$0:weight=0.2"));
    cases.push(sized("YUV444PS", 322, 241, 3, "std.Invert,std.Merge:@clipa:clipb=$0:weight=0.9"));
    cases
}

#[test]
fn merge() {
    check_all(&merge_cases());
}

#[test]
fn merge_errors() {
    check_errors(&[
        video("Gray8", "std.Invert,std.Merge:@clipa:clipb=$0:weight=1.1"),
        video("Gray8", "std.Invert,std.Merge:@clipa:clipb=$0:weight=-0.1"),
        video("Gray8", "std.Invert,std.Merge:@clipa:clipb=$0:weight=0.1:weight=0.2"),
        video("YUV420P8", &format!("{},std.Merge:@clipa:clipb=$0", noise(format_id(3, false, 16, 1, 1), W, H, 2))),
        video("YUV420P8", &format!("{},std.Merge:@clipa:clipb=$0", noise(format_id(3, false, 8, 1, 1), W + 2, H, 2))),
        video("Gray32", "std.Invert,std.Merge:@clipa:clipb=$0"),
    ]);
}

// ---- rows written with streaming stores -----------------------------------------------------------------------

/// Large frames on many threads are written past the caches; the rows must be the same. Every
/// pointwise filter that fills rows that way, at sizes whose rows end off the 16-byte grid.
#[test]
fn streamed_rows() {
    let cases: Vec<Case> = [invert_cases(), limiter_cases(), binarize_cases(), levels_cases(), merge_cases(), diffs_cases()]
        .concat()
        .into_iter()
        .map(|c| c.with_driver(stream_driver()))
        .collect();
    check_all(&cases);
}

// ---- MakeDiff, MergeDiff, MakeFullDiff, MergeFullDiff ---------------------------------------------------------------

fn diffs_cases() -> Vec<Case> {
    let mut cases = over_formats(|_| {
        [
            "std.Invert,std.MakeDiff:@clipa:clipb=$0",
            "std.Invert,std.MakeDiff:@clipb:clipa=$0:planes=0:planes=2",
            "std.Invert,std.MergeDiff:@clipa:clipb=$0",
            "std.Invert,std.MergeDiff:@clipa:clipb=$0:planes=1",
            "std.Invert,std.MakeFullDiff:@clipa:clipb=$0",
            "std.Invert,std.MakeFullDiff:@clipa:clipb=$0,std.MergeFullDiff:@clipb:clipa=$1",
            "std.Invert,std.MakeDiff:@clipa:clipb=$0,std.MergeDiff:@clipb:clipa=$1",
        ]
        .map(String::from)
        .to_vec()
    });
    cases.push(sized("YUV444P8", 322, 241, 3, "std.Invert,std.MakeFullDiff:@clipa:clipb=$0,std.MergeFullDiff:@clipb:clipa=$0"));
    cases
}

#[test]
fn diffs() {
    check_all(&diffs_cases());
}

#[test]
fn diff_errors() {
    check_errors(&[
        video("Gray8", &format!("{},std.MakeDiff:@clipa:clipb=$0", noise(format_id(1, false, 10, 0, 0), W, H, 2))),
        video("Gray8", &format!("{},std.MergeDiff:@clipa:clipb=$0", noise(format_id(1, false, 8, 0, 0), W, H + 2, 2))),
        video("Gray8", &format!("{},std.MakeFullDiff:@clipa:clipb=$0", noise(format_id(3, false, 8, 0, 0), W, H, 2))),
        video("Gray8", "std.Invert,std.MergeFullDiff:@clipa:clipb=$0"),
        video("Gray8", &format!("{},std.MergeFullDiff:@clipb:clipa=$0", noise(format_id(1, false, 10, 0, 0), W, H, 2))),
        video("GrayH", &format!("{},std.MergeFullDiff:@clipb:clipa=$0", noise(format_id(1, true, 32, 0, 0), W, H, 2))),
        video("Gray8", "std.MakeDiff:@clipa:clipb=$0:planes=5"),
        video("Gray32", "std.MakeFullDiff:@clipa:clipb=$0"),
    ]);
}

/// Half planes in and out go through map_rows_f32 in chunks of 256 samples a row: rows of one
/// chunk and a tail, several chunks, and several with a tail of one to seven samples.
#[test]
fn half_rows_in_chunks() {
    let mut cases = Vec::new();
    for w in [13, 256, 512, 600, 777] {
        cases.push(sized("GrayH", w, 9, 2, "std.Invert,std.MakeDiff:@:clipa=$0:clipb=$1"));
        cases.push(sized("GrayH", w, 9, 2, "std.Invert,std.MergeDiff:@:clipa=$0:clipb=$1"));
        cases.push(sized("GrayH", w, 9, 2, "std.Invert,std.Merge:@:clipa=$0:clipb=$1:weight=0.3"));
        cases.push(sized("GrayH", w, 9, 2, "std.Limiter:min=0.2:max=0.7"));
        cases.push(sized("GrayH", w, 9, 2, "std.Levels:min_in=0.1:max_in=0.9:gamma=1.3"));
    }
    check_all(&cases);
}

// ---- MaskedMerge ---------------------------------------------------------------------------------------------------

#[test]
fn masked_merge() {
    let mut cases = Vec::new();
    for f in FORMATS {
        let gray = noise(gray_of(f), W, H, 3);
        // $1 the inverted source, $2 a gray mask
        let with_mask = |tail: &str| format!("std.Invert,{gray},std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$2{tail}");
        cases.push(video(f, "std.Invert,std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$0"));
        cases.push(video(f, "std.Invert,std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$1:planes=0:planes=2"));
        if !f.ends_with('H') {
            cases.push(video(f, "std.Invert,std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$0:first_plane=1"));
            cases.push(video(f, &with_mask("")));
            cases.push(video(f, &with_mask(":premultiplied=1")));
            cases.push(video(f, &with_mask(":first_plane=1:planes=1:planes=2")));
        }
    }
    // subsampled planes take the mask's first plane brought down to their size
    for f in ["YUV411P8", "YUV440P8", "YUV420P16", "YUV422P10"] {
        cases.push(video(f, &format!("std.Invert,{},std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$2", noise(gray_of(f), W, H, 3))));
    }
    cases.push(sized("YUV444P16", 322, 241, 3, "std.Invert,std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$0:premultiplied=1"));
    // half rows eight samples at a time, the last one to seven from padded copies
    for w in [8, 13, 333] {
        cases.push(sized("YUV444PH", w, 37, 3, "std.Invert,std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$0"));
        cases.push(sized("YUV444PH", w, 37, 3, "std.Invert,std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$0:premultiplied=1"));
    }
    check_all(&cases);
}

/// Float masks on subsampled planes: resampled by zimg as R81 does, bit for bit.
#[test]
fn float_masks_on_subsampled_planes() {
    let mut cases = Vec::new();
    for f in ["YUV420PH", "YUV420PS"] {
        let gray = noise(gray_of(if f.ends_with('H') { "GrayH" } else { "GrayS" }), W, H, 3);
        cases.push(video(f, &format!("std.Invert,{gray},std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$2")));
        cases.push(video(f, &format!("std.Invert,{gray},std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$2:premultiplied=1")));
        cases.push(video(f, &format!("{gray},std.PreMultiply:@:clip=$0:alpha=$1")));
        cases.push(video(f, "std.Invert,std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$0:first_plane=1"));
    }
    check_all(&cases);
}

/// A mask of one plane (first_plane, or a gray mask) on subsampled planes: R81 resamples it as
/// zimg's bilinear resize sites chroma, by clipa's `_ChromaLocation` (none or out of range: left)
/// and, where the mask's `_FieldBased` is 1 or 2, field by field (not beyond 2x vertical
/// subsampling); PreMultiply likewise, by the clip's location and the alpha's field order.
#[test]
fn masks_sited_by_chroma_location() {
    let mut cases = Vec::new();
    for (f, w, h) in [
        ("YUV420P8", W, H),
        ("YUV420P8", 98, 60),
        ("YUV422P10", W, H),
        ("YUV411P8", W, H),
        ("YUV440P8", W, H),
        ("YUV420P16", W, H),
        ("YUV420PS", W, H),
        ("YUV420PH", W, H),
    ] {
        let gray = noise(gray_of(if f.ends_with('H') { "GrayH" } else if f.ends_with('S') { "GrayS" } else { f }), w, h, 3);
        for loc in [0, 1, 2, 3, 4, 5, 7] {
            for fb in [0, 1, 2] {
                let (sl, sf) = (format!("std.SetFrameProps:_ChromaLocation={loc}"), format!("std.SetFrameProps:_FieldBased={fb}"));
                // $1 the source at `loc`, $2 its inverse, $3 a gray mask, $4 the mask with `fb`
                let head = format!("{sl},std.Invert,{gray},{sf}");
                cases.push(sized(f, w, h, 2, &format!("{head},std.MaskedMerge:@:clipa=$1:clipb=$2:mask=$4")));
                // (a location out of range on the mask itself is an error, below)
                if loc == 2 || (fb == 1 && loc != 7) {
                    cases.push(sized(f, w, h, 2, &format!("{head},std.MaskedMerge:@:clipa=$1:clipb=$2:mask=$4:planes=2")));
                    cases.push(sized(f, w, h, 2, &format!("{sl},std.Invert,{sf},std.MaskedMerge:@:clipa=$1:clipb=$2:mask=$3:first_plane=1")));
                    if !f.ends_with('S') && !f.ends_with('H') {
                        cases.push(sized(f, w, h, 2, &format!("{head},std.MaskedMerge:@:clipa=$1:clipb=$2:mask=$4:premultiplied=1")));
                    }
                }
                if f.ends_with('H') {
                    continue;
                }
                cases.push(sized(f, w, h, 2, &format!("{sl},{gray},{sf},std.PreMultiply:@:clip=$1:alpha=$3")));
            }
        }
    }
    // 4:1:0: the mask resampled whole (interlaced masks are not compared: R81 does neither
    // that nor zimg's field by field resampling, which stops at 2x vertical subsampling)
    for loc in [0, 3] {
        let gray = noise(gray_of("YUV410P8"), W, H, 3);
        cases.push(video("YUV410P8", &format!("std.SetFrameProps:_ChromaLocation={loc},std.Invert,{gray},std.MaskedMerge:@:clipa=$1:clipb=$2:mask=$3")));
    }
    // a 4:4:4 clip has no chroma to site: differing locations are no error
    cases.push(video("YUV444P8", "std.SetFrameProps:_ChromaLocation=2,std.Invert,std.SetFrameProps:_ChromaLocation=0,std.MaskedMerge:@:clipa=$1:clipb=$3:mask=$0:first_plane=1"));
    check_all(&cases);
    // subsampled clips at different locations are refused, missing counting as left
    check_errors(&[
        video("YUV420P8", "std.SetFrameProps:_ChromaLocation=2,std.Invert,std.SetFrameProps:_ChromaLocation=0,std.MaskedMerge:@:clipa=$1:clipb=$3:mask=$0:first_plane=1"),
        video("YUV420P8", "std.SetFrameProps:_ChromaLocation=1,std.Invert,std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$0"),
    ]);
}

/// The single-plane path that brings a full-size mask down to 4:2:0, 4:2:2 and 4:4:0 chroma
/// (resize/src/chroma_down.rs) against R81 on every sample family it takes, each chroma
/// location, progressive and field-based masks, chroma planes of odd width and fields of odd
/// chroma height, on noise and on extremes: masks of only black and white (every integer depth),
/// float masks far outside 0..1 (negative, above one). Gray masks, `first_plane`, premultiplied
/// merges and PreMultiply all take the path.
#[test]
fn masks_brought_down_by_the_fast_path() {
    let id = |ssh: u32, float: bool, bits: u32| format_id(3, float, bits, 0, ssh).to_string();
    let formats: Vec<(String, &str)> = vec![
        ("YUV420P8".into(), "Gray8"),
        ("YUV420P10".into(), "Gray10"),
        ("YUV420P16".into(), "Gray16"),
        ("YUV420PS".into(), "GrayS"),
        ("YUV420PH".into(), "GrayH"),
        ("YUV422P8".into(), "Gray8"),
        ("YUV422P16".into(), "Gray16"),
        ("YUV422PS".into(), "GrayS"),
        ("YUV440P8".into(), "Gray8"),
        (id(1, false, 16), "Gray16"),
        (id(1, true, 32), "GrayS"),
    ];
    let gray_id = |g: &str| match g {
        "Gray8" => format_id(1, false, 8, 0, 0),
        "Gray10" => format_id(1, false, 10, 0, 0),
        "Gray16" => format_id(1, false, 16, 0, 0),
        "GrayS" => format_id(1, true, 32, 0, 0),
        _ => format_id(1, true, 16, 0, 0),
    };
    let mut cases = Vec::new();
    for (f, g) in &formats {
        let float = g.ends_with('S') || g.ends_with('H');
        // black and white only, or floats from -1.5 to 2.5
        let extreme = if float { "std.Expr:@clips:expr='x 4 * 1.5 -" } else { "std.Binarize" };
        for loc in 0..=5 {
            // 98 wide: chroma 49 wide; 60 high: fields of 30 rows, 15 of chroma
            let (w, h) = if loc % 2 == 0 { (98, 60) } else { (102, 44) };
            for fb in [0, 2] {
                for ext in [false, true] {
                    let (sl, sf) = (format!("std.SetFrameProps:_ChromaLocation={loc}"), format!("std.SetFrameProps:_FieldBased={fb}"));
                    let gray = noise(gray_id(g), w, h, 3 + loc);
                    let (mask, m) = if ext { (format!("{gray},{extreme},{sf}"), 5) } else { (format!("{gray},{sf}"), 4) };
                    // $1 the source at `loc`, $2 its inverse, $m the gray mask with `fb`
                    let head = format!("{sl},std.Invert,{mask}");
                    cases.push(sized(f, w, h, 2, &format!("{head},std.MaskedMerge:@:clipa=$1:clipb=$2:mask=${m}")));
                    let own = if ext { format!("{extreme},{sf}") } else { sf.clone() };
                    let p = if ext { 4 } else { 3 };
                    cases.push(sized(f, w, h, 2, &format!("{sl},std.Invert,{own},std.MaskedMerge:@:clipa=$1:clipb=$2:mask=${p}:first_plane=1:planes=1:planes=2")));
                    if !float {
                        cases.push(sized(f, w, h, 2, &format!("{head},std.MaskedMerge:@:clipa=$1:clipb=$2:mask=${m}:premultiplied=1")));
                    }
                    if !g.ends_with('H') {
                        cases.push(sized(f, w, h, 2, &format!("{head},std.PreMultiply:@:clip=$1:alpha=${m}")));
                    }
                }
            }
        }
    }
    check_all(&cases);
}

#[test]
fn masked_merge_errors() {
    check_errors(&[
        video("YUV420P8", &format!("std.Invert,{},std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$2", noise(format_id(3, false, 8, 0, 0), W, H, 3))),
        video("Gray8", &format!("std.Invert,{},std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$2", noise(format_id(1, false, 16, 0, 0), W, H, 3))),
        video("Gray8", &format!("std.Invert,{},std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$2", noise(format_id(1, false, 8, 0, 0), W, H + 2, 3))),
        video("Gray8", &format!("{},std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$0", noise(format_id(1, false, 16, 0, 0), W, H, 3))),
        video("YUV420P8", "std.Invert,std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$0:planes=3"),
        video("Gray32", "std.Invert,std.MaskedMerge:@:clipa=$0:clipb=$1:mask=$0"),
    ]);
}

// ---- PreMultiply ---------------------------------------------------------------------------------------------------

#[test]
fn premultiply() {
    let mut cases = Vec::new();
    for f in FORMATS.iter().chain(&["YUV444P10", "RGB48", "Gray16"]) {
        if f.ends_with('H') {
            continue;
        }
        let alpha = noise(gray_of(f), W, H, 3);
        cases.push(video(f, &format!("{alpha},std.PreMultiply:@:clip=$0:alpha=$1")));
    }
    cases.push(sized("RGB24", 322, 241, 3, &format!("{},std.PreMultiply:@:clip=$0:alpha=$1", noise(gray_of("RGB24"), 322, 241, 5))));
    check_all(&cases);
}

/// The black level: limited (_Range=0) or full (_Range=1); RGB is full unless told otherwise.
#[test]
fn premultiply_range() {
    let mut cases = Vec::new();
    for (f, props) in [("Gray8", "_Range=1"), ("RGB24", "_Range=0"), ("YUV444P8", "_Range=1"), ("YUV444P8", "_Range=0")] {
        let alpha = noise(gray_of(f), W, H, 3);
        cases.push(video(f, &format!("std.SetFrameProps:{props},{alpha},std.PreMultiply:@:clip=$1:alpha=$2")));
        cases.push(video(f, &format!("std.SetFrameProps:{props},std.Invert,{alpha},std.MaskedMerge:@:clipa=$1:clipb=$2:mask=$3:premultiplied=1")));
    }
    check_all(&cases);
}

#[test]
fn premultiply_errors() {
    check_errors(&[
        video("YUV420P8", "std.PreMultiply:@:clip=$0:alpha=$0"),
        video("Gray8", &format!("{},std.PreMultiply:@:clip=$0:alpha=$1", noise(format_id(1, false, 16, 0, 0), W, H, 3))),
        video("Gray8", &format!("{},std.PreMultiply:@:clip=$0:alpha=$1", noise(format_id(1, false, 8, 0, 0), W + 2, H, 3))),
        video("Gray32", "std.PreMultiply:@:clip=$0:alpha=$0"),
    ]);
}

// ---- Expr ---------------------------------------------------------------------------------------------------------

/// `std.Expr` over the source and, as y and z, the inverted source and a second noise clip.
fn expr3(format: &str, exprs: &[&str], tail: &str) -> String {
    let e: String = exprs.iter().map(|e| format!(":expr='{}", esc(e))).collect();
    let second = noise(source_id(format), W, H, 11);
    format!("std.Invert,{second},std.Expr:@:clips=$0:clips=$1:clips=$2{e}{tail}")
}

/// The numeric id of a preset the driver knows by name.
fn source_id(format: &str) -> u32 {
    match format {
        "Gray8" => format_id(1, false, 8, 0, 0),
        "YUV420P8" => format_id(3, false, 8, 1, 1),
        "YUV422P10" => format_id(3, false, 10, 1, 0),
        "YUV444P16" => format_id(3, false, 16, 0, 0),
        "RGB24" => format_id(2, false, 8, 0, 0),
        "GrayS" => format_id(1, true, 32, 0, 0),
        "YUV444PS" => format_id(3, true, 32, 0, 0),
        "YUV420PH" => format_id(3, true, 16, 1, 1),
        other => panic!("no id for {other}"),
    }
}

/// Expressions whose float results do not depend on R81's code path.
const EXPR_PLAIN: [&str; 24] = [
    "x",
    "x y + 2 /",
    "x 2 * 30 -",
    "x y - abs 3 *",
    "x y max z min",
    "x 0.3 * y 0.7 * +",
    "x y * z +",
    "z x y * -",
    "x 16 - 219 / 255 *",
    "x y < x z ?",
    "x y > y z >= and x z = or",
    "x y xor not",
    "x y <= x z > xor",
    "x dup * y dup * + sqrt",
    "x y z swap2 - swap -",
    "x 0.5 + 1.7 * 0.2 -",
    "x 3 pow y 2 pow +",
    "x y / 2 pow",
    "x y + x -",
    "x y * y x * - z +",
    "x 1 + y 1 + /",
    "0 x - y -1 * +",
    "x 0 * y +",
    "1e-3 x * .5 + 1E2 -",
];

/// Expressions with transcendental operations: R81 on its C path.
const EXPR_LIBM: [&str; 10] = ["x y / 0.25 pow", "x y - sqrt", "x exp", "x 1 + log", "x sin y cos +", "x y 0.1 + pow", "x 0.2 * exp log", "x 1.3 pow", "2 x 0.01 * pow", "x abs sqrt y 2 pow log max"];

#[test]
fn expr() {
    let mut cases = Vec::new();
    for f in FORMATS {
        for e in EXPR_PLAIN {
            cases.push(video(f, &expr3(f, &[e], "")));
        }
    }
    // one expression per plane, empty ones copying the first clip's plane
    for f in ["YUV420P8", "YUV444PS", "RGB24", "YUV420PH"] {
        cases.push(video(f, &expr3(f, &["x y + 2 /", "", "z 2 *"], "")));
        cases.push(video(f, &expr3(f, &["x", "y x -"], "")));
    }
    // output formats
    for (f, out) in [
        ("Gray8", format_id(1, false, 16, 0, 0)),
        ("Gray8", format_id(1, true, 32, 0, 0)),
        ("Gray8", format_id(1, true, 16, 0, 0)),
        ("GrayS", format_id(1, false, 8, 0, 0)),
        ("YUV420P8", format_id(3, false, 10, 1, 1)),
        ("YUV444PS", format_id(3, false, 16, 0, 0)),
        ("YUV420PH", format_id(3, false, 8, 1, 1)),
    ] {
        cases.push(video(f, &expr3(f, &["x 300 * y -"], &format!(":format={out}"))));
        cases.push(video(f, &expr3(f, &["x 0.5 * 0.25 +"], &format!(":format={out}"))));
    }
    // 8-bit output read from one 8-bit clip goes through a table of the 256 results: the table
    // must come from the clip the expression reads (here the second, beside a 16-bit first) and
    // a constant over a 16-bit clip must not index a table with 16-bit samples
    let p8 = noise(format_id(3, false, 8, 0, 0), W, H, 5);
    let to8 = format_id(3, false, 8, 0, 0);
    for e in ["y 3 * 2 /", "y 2 pow 100 /", "77", "y x 256 / +", "x 256 /"] {
        cases.push(video("YUV444P16", &format!("{p8},std.Expr:@:clips=$0:clips=$1:expr='{}:format={to8}", esc(e))));
    }
    cases.push(video("YUV444P16", &format!("{p8},std.Expr:@:clips=$1:clips=$0:expr='{}:expr='{}", esc("x 5 /"), esc("y 256 /"))));
    // clamping, rounding half to even, infinity into integers
    for e in ["x 0.5 +", "x 2 / 0.25 +", "1 0 /", "-1 0 /", "x 255 - 0.5 *", "x 1000 *"] {
        cases.push(video("Gray8", &expr3("Gray8", &[e], "")));
        cases.push(video("YUV422P10", &expr3("YUV422P10", &[e], "")));
    }
    // a NaN into integers is 0 on R81's C path, the maximum on its compiled default code
    for e in ["0 0 /", "x x - x y - /", "x y - 0 * 0 /", "x y - -4 sqrt *"] {
        cases.push(video("Gray8", &expr3("Gray8", &[e], "")).c_path());
        cases.push(video("YUV422P10", &expr3("YUV422P10", &[e], "")).c_path());
        cases.push(video("Gray8", &expr3("Gray8", &[e], "")));
        cases.push(video("YUV422P10", &expr3("YUV422P10", &[e], "")));
        cases.push(video("YUV444P16", &expr3("YUV444P16", &[e], "")));
    }
    cases.push(video("Gray8", &format!("std.Expr:@:clips=$0:expr='{}", esc("x 0 * 0 /"))));
    cases.push(sized("YUV444P8", 322, 241, 3, &format!("std.Expr:@:clips=$0:expr='{}", esc("x 3 * 100 - x max"))));
    // as deep as allowed
    cases.push(video("GrayS", &format!("std.Expr:@:clips=$0:expr='x{}", " 0.5 * 0.25 +".repeat(2499))));
    cases.push(video("Gray8", &format!("std.Expr:@:clips=$0:expr='x{}", " abs".repeat(4999))));
    cases.push(sized("GrayS", 322, 241, 3, &format!("std.Expr:@:clips=$0:expr='{}", esc("x x * 0.5 +"))));
    check_expr_paths(&cases);
}

/// A square root of a negative number, of -0, of -inf or of a NaN is 0 on R81's default code (its
/// compiled expressions clamp the operand), NaN on its plain C path; square roots that R81 makes of
/// powers (x^0.5, x^1.5, x^-0.5, x^0.25) likewise. Constants are folded before, unclamped.
#[test]
fn expr_sqrt_of_negatives() {
    let float = [
        "x y - sqrt",
        "x y - sqrt -1 *",
        "x 0.5 - 1e30 * 1e30 * sqrt",
        "x 0.5 - 1e30 * 1e30 * y 0.5 - 1e30 * 1e30 * + sqrt",
        "x y - 0.5 pow",
        "x y - 1.5 pow",
        "x y - -0.5 pow",
        "x y - 0.25 pow",
        "x y - dup * sqrt",
        "-4 sqrt x +",
        "x y - sqrt z +",
    ];
    let int = ["x y - sqrt", "x y - sqrt 10 * 7 +", "x 100 - 1e30 * 1e30 * y 100 - 1e30 * 1e30 * + sqrt 3 +", "x y - 0.5 pow 5 +", "x 128 - sqrt 9 +"];
    let mut cases = Vec::new();
    for f in ["GrayS", "YUV444PS", "YUV420PH"] {
        for e in float {
            cases.push(video(f, &expr3(f, &[e], "")));
        }
    }
    for f in ["Gray8", "YUV422P10", "YUV444P16"] {
        for e in int {
            cases.push(video(f, &expr3(f, &[e], "")));
        }
    }
    // one 8-bit clip in, 8-bit out: the table of 256 results
    cases.push(video("Gray8", &format!("std.Expr:@:clips=$0:expr='{}", esc("x 128 - sqrt 9 +"))));
    check_expr_paths(&cases);
    // on R81's plain C path the NaN stays
    let c: Vec<Case> = ["x y - sqrt", "x 0.5 - 1e30 * 1e30 * sqrt", "x y - 0.5 pow"].iter().map(|e| video("GrayS", &expr3("GrayS", &[e], "")).c_path()).collect();
    check_all(&c);
}

/// Compiled programs: rows that end in a partial vector (the last vector overlaps the one before),
/// planes narrower than a vector (left to the interpreter), and programs with more live values than
/// the compiler has vector registers (the rest live in memory).
#[test]
fn expr_compiled_shapes() {
    // 13 and 20 values live at once, then combined (by max: R81 reassociates long sums, which
    // changes float results in ways beside the point here) and mixed with a comparison and a select
    let wide = |n: usize| -> String {
        let mut e: String = (1..=n).map(|i| format!("x {i} * y {} / + ", i + 2)).collect();
        e.push_str(&"max ".repeat(n - 1));
        e + "z max x y < 5 z ? -"
    };
    let exprs: Vec<String> = ["x y + 2 /", "x y - abs 3 *", "x y * z +", "x y < x z ?", "x y xor not", "x dup * y dup * + sqrt", "0 x - y -1 * +"]
        .iter()
        .map(|e| e.to_string())
        .chain([wide(13), wide(20)])
        .collect();
    let mut cases = Vec::new();
    for f in FORMATS {
        // subsampled formats twice the size, so that their chroma planes have these widths
        let k = if f.starts_with("YUV42") && !f.starts_with("YUV444") { 2 } else { 1 };
        for (w, h) in [(5 * k, 3 * k), (8 * k, 4 * k), (13 * k, 5 * k), (37 * k, 6 * k)] {
            for e in &exprs {
                let second = noise(source_id(f), w, h, 11);
                cases.push(sized(f, w, h, 2, &format!("std.Invert,{second},std.Expr:@:clips=$0:clips=$1:clips=$2:expr='{}", esc(e))));
            }
        }
    }
    check_expr_paths(&cases);
}

#[test]
fn expr_transcendental_on_the_c_path() {
    let mut cases = Vec::new();
    for f in ["GrayS", "YUV444PS", "Gray8", "YUV420PH", "YUV444P16"] {
        for e in EXPR_LIBM {
            cases.push(video(f, &expr3(f, &[e], "")).c_path());
        }
    }
    check_all(&cases);
}

#[test]
fn expr_numbers_and_stack() {
    let exprs = [
        "x 1e3 -",
        "x 1E-2 *",
        "x +5 +",
        "x 5. +",
        "x .5 +",
        "x 010 +",
        "x 1.17549435e-38 +",
        "x 3.4028235e38 min",
        "x -0 +",
        "x y z dup2 + + +",
        "x y swap -",
        "x y swap1 -",
        "x dup0 *",
        "x y z swap0 - -",
        "x y z swap2 - -",
        "x y dup01 - -",
        "x\ty\n+\r2\x0b/",
        "  x  ",
    ];
    let mut cases = Vec::new();
    for e in exprs {
        cases.push(video("GrayS", &expr3("GrayS", &[e], "")));
        cases.push(video("Gray8", &expr3("Gray8", &[e], "")));
    }
    check_all(&cases);
}

#[test]
fn expr_errors() {
    let bad = [
        "x y",
        "+",
        "x +",
        "x y z ? ?",
        "x 2 %",
        "x tan",
        "x X",
        "x a +",
        "x w +",
        "x 1e40 +",
        "x 1e +",
        "x 1.0.0 +",
        "x 0x10 +",
        "x inf +",
        "x dup1 +",
        "x dup-1 +",
        "x dupx +",
        "x swap",
        "x y swap2 +",
        "x dup99999999999 +",
        "   ",
        "x,y +",
    ];
    let mut cases: Vec<Case> = bad.iter().map(|e| video("Gray8", &expr3("Gray8", &[e], ""))).collect();
    cases.extend([
        video("YUV420P8", &expr3("YUV420P8", &["x", "x", "x", "x"], "")),
        video("YUV420P8", &expr3("YUV420P8", &["x", "y y"], "")),
        video("Gray8", &expr3("Gray8", &["x"], ":format=12345")),
        video("Gray8", &expr3("Gray8", &["x"], &format!(":format={}", format_id(1, false, 32, 0, 0)))),
        video("Gray8", &expr3("Gray8", &["x"], &format!(":format={}", format_id(3, false, 8, 0, 0)))),
        video("YUV420P8", &expr3("YUV420P8", &["x"], &format!(":format={}", format_id(3, false, 8, 0, 0)))),
        video("Gray8", &format!("{},std.Expr:@:clips=$0:clips=$1:expr=x", noise(format_id(1, false, 8, 0, 0), W + 2, H, 3))),
        video("Gray8", &format!("{},std.Expr:@:clips=$0:clips=$1:expr=x", noise(format_id(3, false, 8, 0, 0), W, H, 3))),
        video("Gray32", "std.Expr:@:clips=$0:expr='x"),
        video("Gray8", &format!("std.Expr:@{}:expr='x", ":clips=$0".repeat(27))),
        // nesting deeper than 5000 is refused, whatever comes after it
        video("Gray8", &format!("std.Expr:@:clips=$0:expr='x{} 1 +", " abs".repeat(4999))),
        video("Gray8", &format!("std.Expr:@:clips=$0:expr='x{} y", " 1 +".repeat(5000))),
    ]);
    check_errors(&cases);
}

// ---- other families' errors -------------------------------------------------------------------------------------------

#[test]
fn invert_errors() {
    check_errors(&[
        video("Gray32", "std.Invert"),
        video("Gray32", "std.InvertMask"),
        video("YUV420P8", "std.Invert:planes=3"),
        video("YUV420P8", "std.InvertMask:planes=1:planes=1"),
    ]);
}

/// The same output whatever the threads and the requests in flight.
#[test]
fn pointwise_whatever_the_threads() {
    let case = video("YUV420P8", &expr3("YUV420P8", &["x y + z - 2 /"], ""));
    let want = run(&reference_core(), &case, &[]);
    assert!(want.ok(), "the reference fails on {}: {}", case.describe(), want.line);
    let mut failures = String::new();
    for mode in [&["--threads", "1"][..], &["--threads", "7", "--requests", "1"], &["--threads", "32", "--requests", "64"], &["--threads", "4", "--sync", "--requests", "3"]] {
        let got = run(&our_core(), &case, mode);
        if got.fingerprint() != want.fingerprint() {
            let _ = writeln!(failures, "{} [{}]\n  reference: {}\n  ours:      {}", case.describe(), mode.join(" "), want.fingerprint(), got.fingerprint());
        }
    }
    assert!(failures.is_empty(), "{failures}");
}
