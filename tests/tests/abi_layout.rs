//! ABI conformance of vsvk's C headers (include/) and Rust bindings (plugin-api) with the
//! VapourSynth R81 reference headers.
//!
//! * tests/abi/layout_dump.c is compiled against our headers and against the reference, in C
//!   and in C++, for every API version setting; the outputs (sizes, offsets, enum values, macro
//!   values, helper results, and in C++ mangled member types and signatures) must be identical.
//! * Our headers must compile warning-free (-Wall -Wextra -Wpedantic -Werror and more) in
//!   several C and C++ standards, each header on its own too.
//! * The declarations (enum constants, struct members, typedefs, functions) and the macro names
//!   the headers define must be the same sets as the reference's, and the dump must cover them.
//! * The Rust types in vsvk_plugin_api::{abi, vulkan} must produce the same size, alignment,
//!   offset and signature lines as the C dump.
//!
//! The reference comes from $VSVK_REF (default ~/.cache/vsvk-ref), set up by scripts/setup.sh.
#![allow(non_snake_case)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::mem::{align_of, offset_of, size_of, MaybeUninit};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr::addr_of;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use vsvk_plugin_api::abi::{self, *};
use vsvk_plugin_api::vulkan::{self, *};
use vsvk_tests::reference;

/// The four public headers.
const HEADERS: [&str; 4] = ["VapourSynth4.h", "VSHelper4.h", "VSConstants4.h", "VSVulkan4.h"];

/// API version settings the dump is checked under: (label, -D flags).
const CONFIGS: &[(&str, &[&str])] = &[
    ("latest+graph", &["-DVS_USE_LATEST_API", "-DVS_GRAPH_API"]),
    ("latest", &["-DVS_USE_LATEST_API"]),
    ("default", &[]),
    ("api41", &["-DVS_USE_API_41"]),
    ("api41+graph", &["-DVS_USE_API_41", "-DVS_GRAPH_API"]),
    ("api42", &["-DVS_USE_API_42"]),
    ("api42+graph", &["-DVS_USE_API_42", "-DVS_GRAPH_API"]),
    ("api43", &["-DVS_USE_API_43"]),
    ("api43+graph", &["-DVS_USE_API_43", "-DVS_GRAPH_API"]),
];

// ---------------------------------------------------------------------------------------------
// Locations

struct Reference {
    /// R81's VapourSynth headers.
    vs_include: PathBuf,
    /// Vulkan 1.4 headers (vulkan/vulkan_core.h).
    vk_include: PathBuf,
}

fn reference() -> &'static Reference {
    static REF: OnceLock<Reference> = OnceLock::new();
    REF.get_or_init(|| {
        let root = reference::ref_dir();
        let r = Reference {
            vs_include: root.join("x/vapoursynth/include"),
            vk_include: root.join("src/hdr/usr/include"),
        };
        let mut missing: Vec<PathBuf> = HEADERS
            .iter()
            .map(|h| r.vs_include.join(h))
            .filter(|p| !p.is_file())
            .collect();
        if !r.vk_include.join("vulkan/vulkan_core.h").is_file() {
            missing.push(r.vk_include.join("vulkan/vulkan_core.h"));
        }
        if !missing.is_empty() {
            panic!(
                "the VapourSynth R81 / Vulkan 1.4 reference headers are missing ({}): {}",
                missing
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                reference::RUN_SETUP
            );
        }
        r
    })
}

fn repo_root() -> PathBuf {
    reference::workspace_root()
}

fn our_include() -> PathBuf {
    repo_root().join("include")
}

fn dump_source() -> PathBuf {
    repo_root().join("tests/abi/layout_dump.c")
}

fn work_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("abi_layout");
    std::fs::create_dir_all(&d).unwrap();
    d
}

// ---------------------------------------------------------------------------------------------
// Compiling and running

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Ours,
    Reference,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lang {
    C,
    Cxx,
}

/// Warnings our headers must not trigger (the reference is compiled without these).
const STRICT_COMMON: &[&str] = &[
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Werror",
    "-Wshadow",
    "-Wundef",
    "-Wcast-qual",
    "-Wconversion",
    "-Wsign-conversion",
    "-Wredundant-decls",
];
const STRICT_C: &[&str] = &["-Wstrict-prototypes", "-Wmissing-prototypes", "-Wold-style-definition"];

fn include_args(side: Side) -> Vec<String> {
    let r = reference();
    let vs = match side {
        Side::Ours => our_include(),
        Side::Reference => r.vs_include.clone(),
    };
    vec![format!("-I{}", vs.display()), format!("-I{}", r.vk_include.display())]
}

fn run_checked(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    if !out.status.success() {
        panic!(
            "{what} failed ({}):\n{cmd:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    String::from_utf8(out.stdout).unwrap_or_else(|_| panic!("{what}: output is not UTF-8"))
}

fn compiler(lang: Lang, std: &str) -> Command {
    let mut cmd = match lang {
        Lang::C => Command::new("gcc"),
        Lang::Cxx => {
            let mut c = Command::new("g++");
            c.args(["-x", "c++"]);
            c
        }
    };
    cmd.arg(format!("-std={std}"));
    cmd
}

/// Output of layout_dump.c built against one header set, cached per process.
fn dump(side: Side, lang: Lang, config: &str) -> Arc<String> {
    type Cell = Arc<OnceLock<Arc<String>>>;
    static CACHE: OnceLock<Mutex<HashMap<String, Cell>>> = OnceLock::new();
    let key = format!("{side:?}-{lang:?}-{config}");
    let cell = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry(key.clone())
        .or_default()
        .clone();
    cell.get_or_init(|| {
        let defines = CONFIGS.iter().find(|c| c.0 == config).expect("unknown config").1;
        let exe = work_dir().join(format!("dump-{}", key.replace('+', "_")));
        let mut cmd = compiler(lang, if lang == Lang::C { "c11" } else { "c++17" });
        cmd.args(defines).args(include_args(side));
        if side == Side::Ours {
            cmd.args(["-Wall", "-Wextra", "-Werror"]);
        }
        cmd.arg(dump_source()).arg("-o").arg(&exe);
        run_checked(&mut cmd, &format!("compiling layout_dump.c ({key})"));
        Arc::new(run_checked(
            &mut Command::new(&exe),
            &format!("running layout_dump ({key})"),
        ))
    })
    .clone()
}

/// Fails with the differing lines of two dumps, if any.
fn assert_same_lines(what: &str, ours: &str, theirs: &str, ours_label: &str, theirs_label: &str) {
    if ours == theirs {
        return;
    }
    let a: Vec<&str> = ours.lines().collect();
    let b: Vec<&str> = theirs.lines().collect();
    let sa: BTreeSet<&str> = a.iter().copied().collect();
    let sb: BTreeSet<&str> = b.iter().copied().collect();
    let mut msg = format!("{what}: outputs differ\n");
    let only_a: Vec<&str> = a.iter().copied().filter(|l| !sb.contains(l)).collect();
    let only_b: Vec<&str> = b.iter().copied().filter(|l| !sa.contains(l)).collect();
    for l in only_a.iter().take(60) {
        msg += &format!("  only in {ours_label}: {l}\n");
    }
    for l in only_b.iter().take(60) {
        msg += &format!("  only in {theirs_label}: {l}\n");
    }
    if only_a.is_empty() && only_b.is_empty() {
        msg += "  (same lines, different order)\n";
        for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
            if x != y {
                msg += &format!(
                    "  first difference at line {}: {ours_label} `{x}` vs {theirs_label} `{y}`\n",
                    i + 1
                );
                break;
            }
        }
    }
    panic!("{msg}");
}

// ---------------------------------------------------------------------------------------------
// Dumps against the reference

#[test]
fn c_dump_matches_reference() {
    for (config, _) in CONFIGS {
        let ours = dump(Side::Ours, Lang::C, config);
        let theirs = dump(Side::Reference, Lang::C, config);
        assert!(
            ours.lines().any(|l| l.starts_with("field VSAPI.")),
            "dump looks empty:\n{ours}"
        );
        assert_same_lines(&format!("C dump, {config}"), &ours, &theirs, "ours", "R81");
    }
}

#[test]
fn cxx_dump_matches_reference() {
    for (config, _) in CONFIGS {
        let ours = dump(Side::Ours, Lang::Cxx, config);
        let theirs = dump(Side::Reference, Lang::Cxx, config);
        assert!(
            ours.lines().any(|l| l.starts_with("sig VSAPI.")),
            "C++ dump has no signatures:\n{ours}"
        );
        assert_same_lines(&format!("C++ dump, {config}"), &ours, &theirs, "ours", "R81");
    }
}

/// The API version gating selects the expected VSAPI size and VAPOURSYNTH_API_MINOR.
#[test]
fn api_version_gating() {
    let expect: &[(&str, i64, &str)] = &[
        ("default", 0, "removeLogHandler"),
        ("api41", 1, "getFreedNodeProcessingTime"),
        ("api41+graph", 1, "getFreedNodeProcessingTime"),
        ("api42", 2, "getCoreInfo2"),
        ("api42+graph", 2, "getNodeCreationFunctionArguments"),
        ("api43", 3, "getFrameResidency"),
        ("latest", 3, "getFrameResidency"),
        ("latest+graph", 3, "getNodeCreationFunctionArguments"),
    ];
    for (config, minor, last) in expect {
        let d = dump(Side::Ours, Lang::C, config);
        assert!(
            d.lines().any(|l| l == format!("macro VAPOURSYNTH_API_MINOR {minor}")),
            "{config}: wrong API minor"
        );
        let last_field = d.lines().rfind(|l| l.starts_with("field VSAPI.")).unwrap();
        assert!(
            last_field.starts_with(&format!("field VSAPI.{last} ")),
            "{config}: VSAPI ends with `{last_field}`"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Header hygiene

#[test]
fn headers_compile_cleanly() {
    let dir = work_dir();
    let mut units: Vec<(String, String)> = Vec::new();
    let all: String = HEADERS.iter().map(|h| format!("#include \"{h}\"\n")).collect();
    units.push(("all".into(), all.clone()));
    units.push((
        "all-latest-graph".into(),
        format!("#define VS_USE_LATEST_API\n#define VS_GRAPH_API\n{all}"),
    ));
    units.push(("all-api42".into(), format!("#define VS_USE_API_42\n{all}")));
    // Each header on its own, and VSVulkan4.h after the application included Vulkan itself.
    for h in HEADERS {
        units.push((format!("only-{h}"), format!("#include \"{h}\"\n")));
    }
    units.push((
        "vulkan-first".into(),
        "#include <vulkan/vulkan.h>\n#include \"VSVulkan4.h\"\n".into(),
    ));
    // Twice, for the include guards.
    units.push(("twice".into(), format!("{all}{all}")));

    let mut failures = Vec::new();
    for (name, body) in &units {
        let src = dir.join(format!("hygiene-{name}.c"));
        // Something that uses the helpers, so that their bodies are instantiated in C++.
        std::fs::write(
            &src,
            format!("{body}\nint hygiene_unit(void);\nint hygiene_unit(void) {{ return 0; }}\n"),
        )
        .unwrap();
        let runs: &[(Lang, &str)] = &[
            (Lang::C, "c99"),
            (Lang::C, "c11"),
            (Lang::C, "c17"),
            (Lang::C, "gnu11"),
            (Lang::Cxx, "c++11"),
            (Lang::Cxx, "c++14"),
            (Lang::Cxx, "c++17"),
            (Lang::Cxx, "c++20"),
        ];
        for (lang, std) in runs {
            let mut cmd = compiler(*lang, std);
            cmd.args(STRICT_COMMON);
            if *lang == Lang::C {
                cmd.args(STRICT_C);
            }
            cmd.args(include_args(Side::Ours))
                .arg("-c")
                .arg(&src)
                .arg("-o")
                .arg(dir.join("hygiene.o"));
            let out = cmd.output().expect("cannot run the compiler");
            if !out.status.success() {
                failures.push(format!("{name} as {std}:\n{}", String::from_utf8_lossy(&out.stderr)));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "our headers do not compile cleanly:\n{}",
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Declarations and macro names

/// What a header set declares, per header file.
#[derive(Debug, Default, PartialEq, Eq)]
struct Decls {
    /// (header, enum tag or "<anonymous>") -> constants in order.
    enums: BTreeMap<(String, String), Vec<String>>,
    /// (header, struct tag) -> member names in order.
    structs: BTreeMap<(String, String), Vec<String>>,
    /// (header, "typedef"/"function") -> names.
    names: BTreeSet<(String, String, String)>,
}

/// Preprocesses a unit including all four headers and keeps, per header, the text that came
/// from it.
fn preprocessed_by_header(side: Side, lang: Lang, defines: &[&str]) -> BTreeMap<String, String> {
    let src = scratch("decls.c");
    let body: String = HEADERS.iter().map(|h| format!("#include \"{h}\"\n")).collect();
    std::fs::write(&src, body).unwrap();
    let mut cmd = compiler(lang, if lang == Lang::C { "c11" } else { "c++17" });
    cmd.args(defines).args(include_args(side)).arg("-E").arg(&src);
    let text = run_checked(&mut cmd, "preprocessing the headers");
    let mut per: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# ") {
            // line marker: # <line> "<file>" flags
            if let (Some(a), Some(b)) = (rest.find('"'), rest.rfind('"')) {
                let file = &rest[a + 1..b];
                current = HEADERS
                    .iter()
                    .find(|h| file.ends_with(&format!("/{h}")))
                    .map(|h| h.to_string());
            }
            continue;
        }
        if let Some(h) = &current {
            let e = per.entry(h.clone()).or_default();
            e.push_str(line);
            e.push('\n');
        }
    }
    per
}

fn tokenize(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(s[st..i].to_string());
        } else if c == b'"' || c == b'\'' {
            let st = i;
            i += 1;
            while i < b.len() && b[i] != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push(s[st..i.min(b.len())].to_string());
        } else if c == b':' && b.get(i + 1) == Some(&b':') {
            out.push("::".into());
            i += 2;
        } else {
            out.push((c as char).to_string());
            i += 1;
        }
    }
    out
}

fn is_ident(t: &str) -> bool {
    t.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

/// Index of the token closing the bracket opened at `open`.
fn closing(t: &[String], open: usize) -> usize {
    let (o, c) = match t[open].as_str() {
        "{" => ("{", "}"),
        "(" => ("(", ")"),
        "[" => ("[", "]"),
        "<" => ("<", ">"),
        x => panic!("not a bracket: {x}"),
    };
    let mut depth = 0;
    for (k, tok) in t.iter().enumerate().skip(open) {
        if tok == o {
            depth += 1;
        } else if tok == c {
            depth -= 1;
            if depth == 0 {
                return k;
            }
        }
    }
    panic!("unbalanced {o}");
}

/// Splits at `sep` tokens outside any brackets.
fn split_top<'a>(t: &'a [String], sep: &str) -> Vec<&'a [String]> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (k, tok) in t.iter().enumerate() {
        match tok.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            x if x == sep && depth == 0 => {
                parts.push(&t[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    if start < t.len() {
        parts.push(&t[start..]);
    }
    parts
}

/// The name a declarator declares: `( * name )` for function pointers, otherwise the last
/// identifier outside brackets.
fn declared_name(d: &[String]) -> Option<String> {
    let mut braces = 0;
    for k in 0..d.len().saturating_sub(2) {
        match d[k].as_str() {
            "{" => braces += 1,
            "}" => braces -= 1,
            "(" if braces == 0 && d[k + 1] == "*" && is_ident(&d[k + 2]) => return Some(d[k + 2].clone()),
            _ => {}
        }
    }
    let mut depth = 0;
    let mut last = None;
    for tok in d {
        match tok.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            x if depth == 0 && is_ident(x) => last = Some(x.to_string()),
            _ => {}
        }
    }
    last
}

const KEYWORDS: &[&str] = &[
    "const",
    "volatile",
    "noexcept",
    "static",
    "inline",
    "extern",
    "unsigned",
    "signed",
    "int",
    "char",
    "void",
    "long",
    "short",
    "float",
    "double",
    "bool",
    "restrict",
    "__restrict",
];

fn first_paren_outside_braces(t: &[String]) -> Option<usize> {
    let mut depth = 0;
    for (k, tok) in t.iter().enumerate() {
        match tok.as_str() {
            "{" => depth += 1,
            "}" => depth -= 1,
            "(" if depth == 0 => return Some(k),
            _ => {}
        }
    }
    None
}

/// A fresh file name in the work directory (tests run in parallel threads).
fn scratch(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    work_dir().join(format!("{}-{name}", N.fetch_add(1, Ordering::Relaxed)))
}

fn parse_header(header: &str, text: &str, d: &mut Decls) {
    let t = tokenize(text);
    let mut i = 0;
    while i < t.len() {
        let tok = t[i].as_str();
        // transparent wrappers
        if tok == "namespace" && i + 2 < t.len() && t[i + 2] == "{" {
            i += 3;
            continue;
        }
        if tok == "extern" && t.get(i + 1).is_some_and(|x| x.starts_with('"')) && t.get(i + 2).is_some_and(|x| x == "{")
        {
            i += 3;
            continue;
        }
        if tok == "}" || tok == ";" {
            i += 1;
            continue;
        }
        // one top level declaration: up to `;` at depth 0, or a function body
        let start = i;
        let mut k = i;
        let mut body_end = None;
        while k < t.len() {
            match t[k].as_str() {
                ";" => break,
                "(" | "[" => k = closing(&t, k),
                "{" => {
                    let close = closing(&t, k);
                    let is_function = k > start && t[k - 1] == ")" || t[k - 1] == "noexcept";
                    if is_function {
                        body_end = Some(close);
                        break;
                    }
                    // enum/struct body
                    let tag_kw = (start..k).rev().find(|&j| t[j] == "enum" || t[j] == "struct");
                    if let Some(j) = tag_kw {
                        let tag = if j + 1 < k && is_ident(&t[j + 1]) {
                            t[j + 1].clone()
                        } else {
                            "<anonymous>".into()
                        };
                        let inner = &t[k + 1..close];
                        if t[j] == "enum" {
                            let names = split_top(inner, ",")
                                .iter()
                                .filter(|p| !p.is_empty())
                                .map(|p| p[0].clone())
                                .collect();
                            d.enums.insert((header.into(), tag), names);
                        } else {
                            let names = split_top(inner, ";")
                                .iter()
                                .filter(|p| !p.is_empty())
                                .map(|p| declared_name(p).expect("member without a name"))
                                .collect();
                            d.structs.insert((header.into(), tag), names);
                        }
                    }
                    k = close;
                }
                _ => {}
            }
            k += 1;
        }
        let decl = &t[start..k.min(t.len())];
        // drop __attribute__((...)) and __declspec(...)
        let mut clean: Vec<String> = Vec::new();
        let mut j = 0;
        while j < decl.len() {
            if (decl[j] == "__attribute__" || decl[j] == "__declspec") && decl.get(j + 1).is_some_and(|x| x == "(") {
                j = closing(decl, j + 1) + 1;
                continue;
            }
            clean.push(decl[j].clone());
            j += 1;
        }
        if clean.first().is_some_and(|x| x == "typedef") {
            if let Some(n) = declared_name(&clean) {
                d.names.insert((header.into(), "typedef".into(), n));
            }
        } else if let Some(p) = first_paren_outside_braces(&clean) {
            // a function declaration or definition: the identifier before its parameter list
            let p = if clean.get(p + 1).is_some_and(|x| x == "*") {
                0
            } else {
                p
            };
            if p > 0 {
                let name = clean[..p]
                    .iter()
                    .rev()
                    .find(|x| is_ident(x) && !KEYWORDS.contains(&x.as_str()));
                if let Some(n) = name {
                    d.names.insert((header.into(), "function".into(), n.clone()));
                }
            }
        }
        i = body_end.map_or(k, |e| e) + 1;
    }
}

fn declarations(side: Side, lang: Lang, defines: &[&str]) -> Decls {
    let mut d = Decls::default();
    for (h, text) in preprocessed_by_header(side, lang, defines) {
        parse_header(&h, &text, &mut d);
    }
    d
}

fn describe_set_difference<T: std::fmt::Debug + Ord>(what: &str, ours: &BTreeSet<T>, theirs: &BTreeSet<T>) -> String {
    let mut s = String::new();
    for x in ours.difference(theirs) {
        s += &format!("  {what} only in ours: {x:?}\n");
    }
    for x in theirs.difference(ours) {
        s += &format!("  {what} only in R81: {x:?}\n");
    }
    s
}

#[test]
fn declarations_match_reference() {
    for lang in [Lang::C, Lang::Cxx] {
        for (config, defines) in CONFIGS {
            let ours = declarations(Side::Ours, lang, defines);
            let theirs = declarations(Side::Reference, lang, defines);
            assert!(
                ours.structs.len() > 10 && ours.enums.len() > 10,
                "declaration parser found too little: {ours:?}"
            );
            let mut msg = String::new();
            if ours.enums != theirs.enums {
                msg += &format!(
                    "  enums differ:\n    ours {:?}\n    R81  {:?}\n",
                    ours.enums, theirs.enums
                );
            }
            if ours.structs != theirs.structs {
                for (k, v) in &ours.structs {
                    if theirs.structs.get(k) != Some(v) {
                        msg += &format!("  struct {k:?} ours {v:?}\n    R81 {:?}\n", theirs.structs.get(k));
                    }
                }
                for k in theirs.structs.keys().filter(|k| !ours.structs.contains_key(*k)) {
                    msg += &format!("  struct {k:?} missing from ours\n");
                }
            }
            msg += &describe_set_difference("declaration", &ours.names, &theirs.names);
            assert!(msg.is_empty(), "declarations differ ({lang:?}, {config}):\n{msg}");

            // The dump must cover every member and constant.
            if lang == Lang::C {
                let dump_text = dump(Side::Ours, Lang::C, config);
                let lines: BTreeSet<String> = dump_text
                    .lines()
                    .map(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" "))
                    .collect();
                let mut missing = Vec::new();
                for ((_, tag), members) in &ours.structs {
                    if !lines.contains(&format!("size {tag}")) {
                        missing.push(format!("size {tag}"));
                    }
                    for m in members {
                        let l = format!("field {tag}.{m}");
                        if !lines.contains(&l) {
                            missing.push(l);
                        }
                    }
                }
                for names in ours.enums.values() {
                    for n in names {
                        let l = format!("enum {n}");
                        if !lines.contains(&l) {
                            missing.push(l);
                        }
                    }
                }
                assert!(
                    missing.is_empty(),
                    "layout_dump.c does not cover ({config}): {missing:?}"
                );
            }
        }
    }
}

/// Macro names defined by the headers (beyond those of the system headers they include).
fn macro_names(side: Side, lang: Lang, defines: &[&str]) -> BTreeSet<String> {
    let names_of = |body: &str, file: &str| -> BTreeSet<String> {
        let src = scratch(file);
        std::fs::write(&src, body).unwrap();
        let mut cmd = compiler(lang, if lang == Lang::C { "c11" } else { "c++17" });
        cmd.args(defines).args(include_args(side)).args(["-E", "-dM"]).arg(&src);
        run_checked(&mut cmd, "listing macros")
            .lines()
            .filter_map(|l| l.strip_prefix("#define "))
            .map(|l| l.split([' ', '(']).next().unwrap().to_string())
            .collect()
    };
    let system = "#include <assert.h>\n#include <limits.h>\n#include <stddef.h>\n#include <stdint.h>\n\
                  #include <stdlib.h>\n#include <string.h>\n#define VK_NO_PROTOTYPES\n#include <vulkan/vulkan_core.h>\n";
    let all: String = HEADERS.iter().map(|h| format!("#include \"{h}\"\n")).collect();
    let base = names_of(system, "macros-base.c");
    let with = names_of(&all, "macros-all.c");
    with.difference(&base).cloned().collect()
}

#[test]
fn macro_names_match_reference() {
    for lang in [Lang::C, Lang::Cxx] {
        for (config, defines) in CONFIGS {
            let ours = macro_names(Side::Ours, lang, defines);
            let theirs = macro_names(Side::Reference, lang, defines);
            assert!(ours.contains("VAPOURSYNTH_API_VERSION") && ours.contains("VS_VK_FUNCTION_LIST"));
            let msg = describe_set_difference("macro", &ours, &theirs);
            assert!(msg.is_empty(), "macro names differ ({lang:?}, {config}):\n{msg}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rust bindings against the C dump

/// Size and type name of what a raw pointer points at.
fn pointee<F>(_: *const F) -> (usize, &'static str) {
    (size_of::<F>(), std::any::type_name::<F>())
}

/// The ABI class of one Rust type, in the vocabulary of layout_dump.c's abi_kind.
fn rust_kind(ty: &str) -> String {
    let ty = ty.trim();
    if ty.starts_with("*const ") {
        return "cptr".into();
    }
    if ty.starts_with("*mut ") {
        return "mptr".into();
    }
    if ty.starts_with("core::option::Option<") || ty.contains("fn(") {
        return "fn".into();
    }
    let base = ty.rsplit("::").next().unwrap();
    let base = base.split('<').next().unwrap();
    match base {
        "()" => "void".into(),
        "i8" | "u8" | "i16" | "u16" | "i32" | "u32" | "i64" | "u64" | "f32" | "f64" => base.into(),
        "isize" => format!("i{}", usize::BITS),
        "usize" => format!("u{}", usize::BITS),
        // ash: 64-bit and 32-bit flags, enums (i32 newtypes), and handles (pointers in C)
        b if ty.starts_with("ash::") && b.ends_with("Flags2") => "u64".into(),
        b if ty.starts_with("ash::") && b.ends_with("Flags") => "u32".into(),
        _ if ty.starts_with("ash::vk::enums::") => "i32".into(),
        _ if ty.starts_with("ash::vk::definitions::") => "mptr".into(),
        _ => format!("?{ty}"),
    }
}

/// "ret(arg,arg)" for a function pointer type name, or None for other types.
fn rust_sig(ty: &str) -> Option<String> {
    let mut ty = ty.trim();
    if let Some(inner) = ty.strip_prefix("core::option::Option<") {
        ty = inner.strip_suffix('>')?;
    }
    if ty.starts_with("for<") {
        ty = &ty[ty.find("> ")? + 2..];
    }
    let open = ty.find("fn(")? + 2;
    let b = ty.as_bytes();
    let (mut depth, mut close) = (0i32, None);
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' | b'<' => depth += 1,
            b')' | b'>' if !(c == b'>' && k > 0 && b[k - 1] == b'-') => {
                depth -= 1;
                if depth == 0 {
                    close = Some(k);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close?;
    let params = &ty[open + 1..close];
    let mut args = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    let pb = params.as_bytes();
    for (k, &c) in pb.iter().enumerate() {
        match c {
            b'(' | b'<' => depth += 1,
            b')' => depth -= 1,
            b'>' if !(k > 0 && pb[k - 1] == b'-') => depth -= 1,
            b',' if depth == 0 => {
                args.push(&params[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    if !params[start..].trim().is_empty() {
        args.push(&params[start..]);
    }
    let ret = ty[close + 1..].trim().strip_prefix("->").map_or("()", |r| r.trim());
    Some(format!(
        "{}({})",
        rust_kind(ret),
        args.iter().map(|a| rust_kind(a)).collect::<Vec<_>>().join(",")
    ))
}

/// Pointer constness is not part of the ABI, and abi.rs is free to differ from C there.
fn lax(sig: &str) -> String {
    sig.replace("cptr", "ptr").replace("mptr", "ptr")
}

macro_rules! rust_layout {
    ($out:ident; $($t:ident { $($f:ident),* $(,)? })*) => {$(
        $out.push(format!("size {} {} align {}", stringify!($t), size_of::<$t>(), align_of::<$t>()));
        $({
            let u = MaybeUninit::<$t>::uninit();
            // SAFETY: only the address of the field is taken, nothing is read.
            let (size, ty) = pointee(unsafe { addr_of!((*u.as_ptr()).$f) });
            $out.push(format!("field {}.{} {} {}", stringify!($t), stringify!($f), offset_of!($t, $f), size));
            if let Some(sig) = rust_sig(ty) {
                $out.push(format!("sig {}.{} {}", stringify!($t), stringify!($f), sig));
            }
        })*
    )*};
}

macro_rules! rust_consts {
    ($out:ident; $($m:ident :: $c:ident,)*) => {$(
        $out.push(format!("enum {} {}", stringify!($c), $m::$c as i64));
    )*};
}

/// Lines for the Rust side: the same "size", "field", "sig", "enum", "macro" and "vkfn" lines the
/// C dump prints.
fn rust_lines() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    rust_layout!(out;
        VSVideoFormat {
            colorFamily, sampleType, bitsPerSample, bytesPerSample, subSamplingW, subSamplingH, numPlanes
        }
        VSAudioFormat {
            sampleType, bitsPerSample, bytesPerSample, numChannels, channelLayout
        }
        VSCoreInfo {
            versionString, core, api, numThreads, maxFramebufferSize, usedFramebufferSize
        }
        VSCoreInfo2 {
            versionString, coreVersion, apiVersion, creationFlags, numThreads, maxFramebufferSize,
            usedFramebufferSize
        }
        VSVideoInfo {
            format, fpsNum, fpsDen, width, height, numFrames
        }
        VSAudioInfo {
            format, sampleRate, numSamples, numFrames
        }
        VSPLUGINAPI {
            getAPIVersion, configPlugin, registerFunction
        }
        VSFilterDependency {
            source, requestPattern
        }
        VSAPI {
            createVideoFilter, createVideoFilter2, createAudioFilter, createAudioFilter2, setLinearFilter,
            setCacheMode, setCacheOptions, freeNode, addNodeRef, getNodeType, getVideoInfo, getAudioInfo,
            newVideoFrame, newVideoFrame2, newAudioFrame, newAudioFrame2, freeFrame, addFrameRef, copyFrame,
            getFramePropertiesRO, getFramePropertiesRW, getStride, getReadPtr, getWritePtr, getVideoFrameFormat,
            getAudioFrameFormat, getFrameType, getFrameWidth, getFrameHeight, getFrameLength,
            getVideoFormatName, getAudioFormatName, queryVideoFormat, queryAudioFormat, queryVideoFormatID,
            getVideoFormatByID, getFrame, getFrameAsync, getFrameFilter, requestFrameFilter, releaseFrameEarly,
            cacheFrame, setFilterError, createFunction, freeFunction, addFunctionRef, callFunction, createMap,
            freeMap, clearMap, copyMap, mapSetError, mapGetError, mapNumKeys, mapGetKey, mapDeleteKey,
            mapNumElements, mapGetType, mapSetEmpty, mapGetInt, mapGetIntSaturated, mapGetIntArray, mapSetInt,
            mapSetIntArray, mapGetFloat, mapGetFloatSaturated, mapGetFloatArray, mapSetFloat, mapSetFloatArray,
            mapGetData, mapGetDataSize, mapGetDataTypeHint, mapSetData, mapGetNode, mapSetNode, mapConsumeNode,
            mapGetFrame, mapSetFrame, mapConsumeFrame, mapGetFunction, mapSetFunction, mapConsumeFunction,
            registerFunction, getPluginByID, getPluginByNamespace, getNextPlugin, getPluginName, getPluginID,
            getPluginNamespace, getNextPluginFunction, getPluginFunctionByName, getPluginFunctionName,
            getPluginFunctionArguments, getPluginFunctionReturnType, getPluginPath, getPluginVersion, invoke,
            createCore, freeCore, setMaxCacheSize, setThreadCount, getCoreInfo, getAPIVersion, logMessage,
            addLogHandler, removeLogHandler, clearNodeCache, clearCoreCaches, getNodeName, getNodeFilterMode,
            getNumNodeDependencies, getNodeDependency, getCoreNodeTiming, setCoreNodeTiming,
            getNodeProcessingTime, getFreedNodeProcessingTime, getCoreInfo2, createVideoFilterEx,
            createVideoFilterEx2, getVulkanAPI, getNodeResidency, getFrameResidency,
            getNodeCreationFunctionName, getNodeCreationPluginID, getNodeCreationPluginNS,
            getNodeCreationFunctionArguments
        }
        VSVulkanFunctions {
            vkEnumerateInstanceVersion, vkEnumerateInstanceExtensionProperties,
            vkEnumerateInstanceLayerProperties, vkCreateInstance, vkDestroyInstance, vkEnumeratePhysicalDevices,
            vkGetPhysicalDeviceProperties2, vkGetPhysicalDeviceFeatures2, vkGetPhysicalDeviceMemoryProperties2,
            vkGetPhysicalDeviceQueueFamilyProperties2, vkGetPhysicalDeviceFormatProperties2,
            vkGetPhysicalDeviceImageFormatProperties2, vkEnumerateDeviceExtensionProperties, vkCreateDevice,
            vkGetDeviceProcAddr, vkCreateDebugUtilsMessengerEXT, vkDestroyDebugUtilsMessengerEXT,
            vkDestroyDevice, vkDeviceWaitIdle, vkGetDeviceQueue2, vkQueueSubmit2, vkQueueWaitIdle,
            vkAllocateMemory, vkFreeMemory, vkMapMemory2, vkUnmapMemory2, vkFlushMappedMemoryRanges,
            vkInvalidateMappedMemoryRanges, vkCreateBuffer, vkDestroyBuffer, vkGetBufferMemoryRequirements2,
            vkBindBufferMemory2, vkGetBufferDeviceAddress, vkGetDeviceBufferMemoryRequirements, vkCreateImage,
            vkDestroyImage, vkGetImageMemoryRequirements2, vkBindImageMemory2, vkCreateImageView,
            vkDestroyImageView, vkGetImageSubresourceLayout2, vkGetDeviceImageMemoryRequirements,
            vkCreateSampler, vkDestroySampler, vkCreateSamplerYcbcrConversion, vkDestroySamplerYcbcrConversion,
            vkCreateDescriptorSetLayout, vkDestroyDescriptorSetLayout, vkCreateDescriptorPool,
            vkDestroyDescriptorPool, vkResetDescriptorPool, vkAllocateDescriptorSets, vkFreeDescriptorSets,
            vkUpdateDescriptorSets, vkCreateDescriptorUpdateTemplate, vkDestroyDescriptorUpdateTemplate,
            vkUpdateDescriptorSetWithTemplate, vkGetDescriptorSetLayoutSupport, vkCreatePipelineLayout,
            vkDestroyPipelineLayout, vkCreateComputePipelines, vkDestroyPipeline, vkCreatePipelineCache,
            vkDestroyPipelineCache, vkGetPipelineCacheData, vkMergePipelineCaches, vkCreateShaderModule,
            vkDestroyShaderModule, vkCreateCommandPool, vkDestroyCommandPool, vkResetCommandPool,
            vkTrimCommandPool, vkAllocateCommandBuffers, vkFreeCommandBuffers, vkBeginCommandBuffer,
            vkEndCommandBuffer, vkResetCommandBuffer, vkCmdExecuteCommands, vkCmdBindPipeline,
            vkCmdBindDescriptorSets2, vkCmdPushConstants2, vkCmdPushDescriptorSet,
            vkCmdPushDescriptorSetWithTemplate, vkCmdDispatch, vkCmdDispatchBase, vkCmdDispatchIndirect,
            vkCmdPipelineBarrier2, vkCmdCopyBuffer2, vkCmdCopyImage2, vkCmdCopyBufferToImage2,
            vkCmdCopyImageToBuffer2, vkCmdBlitImage2, vkCmdFillBuffer, vkCmdUpdateBuffer, vkCmdClearColorImage,
            vkCreateSemaphore, vkDestroySemaphore, vkWaitSemaphores, vkSignalSemaphore,
            vkGetSemaphoreCounterValue, vkCreateFence, vkDestroyFence, vkResetFences, vkWaitForFences,
            vkGetFenceStatus, vkCreateEvent, vkDestroyEvent, vkCmdSetEvent2, vkCmdResetEvent2, vkCmdWaitEvents2,
            vkCreateQueryPool, vkDestroyQueryPool, vkGetQueryPoolResults, vkResetQueryPool, vkCmdResetQueryPool,
            vkCmdWriteTimestamp2, vkCmdCopyQueryPoolResults, vkCmdBeginQuery, vkCmdEndQuery,
            vkSetDebugUtilsObjectNameEXT, vkCmdBeginDebugUtilsLabelEXT, vkCmdEndDebugUtilsLabelEXT
        }
        VSVulkanCoreHandles {
            instance, physicalDevice, device, getInstanceProcAddr, computeQueueFamily, computeQueueIndex,
            transferQueueFamily, transferQueueIndex
        }
        VSVulkanPlaneInfo {
            buffer, bufferSize, readySemaphore, readyValue
        }
        VSVulkanBufferInfo {
            buffer, address, mapped, size, memoryFlags
        }
        VSVulkanMemoryInfo {
            memory, offset, size, mapped, memoryFlags
        }
        VSVulkanExportedMemory {
            memoryId, memorySize, memoryTypeIndex, offset, size, handleType, handle
        }
        VSVulkanExportedSemaphore {
            handleType, handle
        }
        VSVulkanCoreInfo {
            deviceName, deviceMemory, budget, allocated, limit, deviceUUID, deviceLUID, deviceNodeMask,
            deviceLUIDValid, exportHandleType, semaphoreExportHandleType, unifiedMemory
        }
        VSVulkanDeviceListEntry {
            deviceName, apiVersion, deviceType, deviceMemory, usable, unusableReason, deviceUUID, deviceLUID,
            deviceNodeMask, deviceLUIDValid
        }
        VSVULKANAPI {
            enumerateVulkanDevices, setVulkanDevice, getVulkanCoreInfo, setMaxVRAMUse, getVulkanHandles,
            getVulkanFunctions, lockVulkanQueue, unlockVulkanQueue, newGPUVideoFrame, getGPUPlane,
            setGPUPlaneProducer, createGPUTimeline, freeGPUTimeline, addGPUTimelineRef, getGPUTimelineSemaphore,
            gpuTimelineWaitValue, createGPUBuffer, destroyGPUBuffer, allocateGPUMemory, freeGPUMemory,
            reserveGPUMemory, updateGPUMemoryReservation, releaseGPUMemoryReservation, compileGPUShader,
            getGPUShaderCode, freeGPUShader, createGPUExecPool, freeGPUExecPool, gpuExecPoolWaitIdle,
            gpuExecWaitValue, gpuExecPoolTimeline, gpuExecAcquire, gpuExecCommandBuffer, gpuExecReadsFrame,
            gpuExecWritesPlane, gpuExecUsesBuffer, gpuExecUsesMemory, gpuExecRetain, gpuExecSubmit,
            gpuExecAbandon, exportGPUPlane, exportGPUSemaphore, waitGPUFrame, getExportableFrameFilter
        }
    );
    rust_consts!(out;
        abi::cfUndefined,
        abi::cfGray,
        abi::cfRGB,
        abi::cfYUV,
        abi::stInteger,
        abi::stFloat,
        abi::fmParallel,
        abi::fmParallelRequests,
        abi::fmUnordered,
        abi::fmFrameState,
        abi::ffGPUOutput,
        abi::nrCPU,
        abi::nrGPU,
        abi::mtVideo,
        abi::mtAudio,
        abi::acFrontLeft,
        abi::acFrontRight,
        abi::ptUnset,
        abi::ptInt,
        abi::ptFloat,
        abi::ptData,
        abi::ptFunction,
        abi::ptVideoNode,
        abi::ptAudioNode,
        abi::ptVideoFrame,
        abi::ptAudioFrame,
        abi::peSuccess,
        abi::peUnset,
        abi::peType,
        abi::peIndex,
        abi::peError,
        abi::maReplace,
        abi::maAppend,
        abi::arInitial,
        abi::arAllFramesReady,
        abi::arError,
        abi::mtDebug,
        abi::mtInformation,
        abi::mtWarning,
        abi::mtCritical,
        abi::mtFatal,
        abi::ccfEnableGraphInspection,
        abi::ccfDisableAutoLoading,
        abi::ccfDisableLibraryUnloading,
        abi::ccfEnableFrameRefDebug,
        abi::pcModifiable,
        abi::dtUnknown,
        abi::dtBinary,
        abi::dtUtf8,
        abi::rpGeneral,
        abi::rpNoFrameReuse,
        abi::rpStrictSpatial,
        abi::rpFrameReuseLastOnly,
        abi::cmAuto,
        abi::cmForceDisable,
        abi::cmForceEnable,
        vulkan::VS_VK_GLOBAL,
        vulkan::VS_VK_INSTANCE,
        vulkan::VS_VK_DEVICE,
        vulkan::VS_VK_REQUIRED,
        vulkan::VS_VK_OPTIONAL,
        vulkan::vqCompute,
        vulkan::vqTransfer,
        vulkan::gdDrained,
        vulkan::gdIncomplete,
        vulkan::gdDeviceLost,
        vulkan::slGLSL,
    );

    for (name, value) in abi::PRESET_VIDEO_FORMATS {
        out.push(format!("enum {name} {value}"));
    }
    for (name, value) in abi::AUDIO_CHANNELS {
        out.push(format!("enum {name} {value}"));
    }
    for (name, value) in [
        ("VAPOURSYNTH_API_MAJOR", abi::VAPOURSYNTH_API_MAJOR as i64),
        ("VAPOURSYNTH_API_MINOR", abi::VAPOURSYNTH_API_MINOR as i64),
        ("VAPOURSYNTH_API_VERSION", abi::VAPOURSYNTH_API_VERSION as i64),
        ("VS_MAKE_VERSION(3, 7)", abi::make_version(3, 7) as i64),
        ("VS_MAKE_VERSION(81, 0)", abi::make_version(81, 0) as i64),
        ("VS_AUDIO_FRAME_SAMPLES", abi::VS_AUDIO_FRAME_SAMPLES as i64),
        ("VS_VULKAN_API_VERSION", vulkan::VS_VULKAN_API_VERSION as i64),
        (
            "VS_GPU_IMPORT_CHARGED_AGAIN",
            vulkan::VS_GPU_IMPORT_CHARGED_AGAIN as i64,
        ),
    ] {
        out.push(format!("macro {name} {value}"));
    }
    for e in vulkan::VS_VK_FUNCTION_LIST {
        let name = e.name.to_str().unwrap();
        out.push(format!(
            "vkfn {} level {} requirement {}",
            name.strip_prefix("vk").unwrap(),
            e.level,
            e.requirement
        ));
        out.push(format!("vktable {name} {}", e.offset));
    }
    let drain: Vec<String> = (-1..=4)
        .map(|r| vulkan::vsGPUDrainSafeToDestroy(r).to_string())
        .collect();
    out.push(format!("vsGPUDrainSafeToDestroy {}", drain.join(" ")));
    out
}

#[test]
fn rust_types_match_c() {
    let c = dump(Side::Ours, Lang::Cxx, "latest+graph");
    let c_lines: Vec<&str> = c.lines().collect();
    let rust = rust_lines();
    let mut c_set: BTreeSet<String> = c_lines.iter().map(|l| l.to_string()).collect();
    // The Rust table's offsets are checked against the C members.
    for l in &c_lines {
        if let Some(rest) = l.strip_prefix("field VSVulkanFunctions.") {
            let mut it = rest.split(' ');
            c_set.insert(format!("vktable {} {}", it.next().unwrap(), it.next().unwrap()));
        }
    }
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    let mut rust_structs = BTreeSet::new();
    for l in &rust {
        if l.starts_with("size ") {
            rust_structs.insert(l.split(' ').nth(1).unwrap().to_string());
        }
        if c_set.contains(l) {
            continue;
        }
        if let Some(rest) = l.strip_prefix("sig ") {
            // Compare signatures without pointer constness; record constness differences.
            let (key, sig) = rest.split_once(' ').unwrap();
            let c_sig = c_lines.iter().find_map(|x| x.strip_prefix(&format!("sig {key} ")));
            match c_sig {
                Some(cs) if lax(cs) == lax(sig) => notes.push(format!("{key}: C {cs} / Rust {sig}")),
                Some(cs) => problems.push(format!("signature of {key}: C {cs} / Rust {sig}")),
                None => problems.push(format!("Rust has a signature for {key}, C does not: {sig}")),
            }
            continue;
        }
        let key: String = l.split(' ').take(2).collect::<Vec<_>>().join(" ");
        let c_line = c_lines
            .iter()
            .find(|x| x.split(' ').take(2).collect::<Vec<_>>().join(" ") == key);
        problems.push(format!("Rust `{l}` vs C `{}`", c_line.unwrap_or(&"(none)")));
    }
    // Every C member and signature of a struct the Rust side has must be matched.
    for l in &c_lines {
        let mut parts = l.split(' ');
        let kind = parts.next().unwrap();
        let key = parts.next().unwrap_or("");
        let strukt = key.split('.').next().unwrap();
        if (kind == "field" || kind == "sig") && key.contains('.') && rust_structs.contains(strukt) {
            let prefix = format!("{kind} {key} ");
            if !rust.iter().any(|r| r.starts_with(&prefix)) {
                problems.push(format!("C `{l}` has no Rust counterpart"));
            }
        }
    }
    // Every constant of the enums the bindings mirror (all of VapourSynth4.h and VSVulkan4.h).
    let decls = declarations(Side::Ours, Lang::C, &["-DVS_USE_LATEST_API", "-DVS_GRAPH_API"]);
    for ((header, tag), names) in &decls.enums {
        if header == "VSConstants4.h" {
            continue;
        }
        for n in names {
            if !rust.iter().any(|r| r.starts_with(&format!("enum {n} "))) {
                problems.push(format!("{header}: {tag}::{n} has no Rust constant"));
            }
        }
    }
    for s in ["VSVulkanFunctions", "VSAPI", "VSVULKANAPI", "VSPLUGINAPI"] {
        assert!(rust_structs.contains(s), "{s} not checked");
    }
    if !notes.is_empty() {
        eprintln!(
            "pointer constness differs from C (not an ABI difference):\n  {}",
            notes.join("\n  ")
        );
    }
    assert!(
        problems.is_empty(),
        "Rust bindings disagree with the C headers:\n  {}",
        problems.join("\n  ")
    );
}

/// The parser of Rust function pointer type names used above.
#[test]
fn rust_sig_parser() {
    type Sample =
        unsafe extern "C" fn(*const abi::VSMap, *mut u8, Option<unsafe extern "C" fn(i32) -> i64>, isize) -> u32;
    let name = std::any::type_name::<Sample>();
    assert_eq!(rust_sig(name).as_deref(), Some("u32(cptr,mptr,fn,i64)"), "{name}");
    assert_eq!(
        rust_sig(std::any::type_name::<unsafe extern "C" fn()>()).as_deref(),
        Some("void()")
    );
    assert_eq!(
        rust_sig(std::any::type_name::<Option<vulkan::PFN_vkMapMemory2>>()).as_deref(),
        Some("i32(mptr,cptr,mptr)")
    );
    assert_eq!(rust_sig("i32"), None);
}
