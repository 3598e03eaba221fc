//! The crate graph is the architecture (docs/ARCHITECTURE.md): each workspace crate may depend only
//! on the crates of the layers below it. `cargo tree` of the workspace is read and every edge between
//! workspace crates checked against that table, so a lower crate that gains a dependency on a
//! higher one, or a new crate nobody placed, fails here.
use std::collections::BTreeMap;
use std::process::Command;

/// Each workspace crate and the workspace crates it may use (normal, build and dev dependencies).
const ALLOWED: &[(&str, &[&str])] = &[
    // the bottom: the ABI types and safe plugin layer, zimg; no workspace crate
    ("vsvk-plugin-api", &[]),
    ("vsvk-zimg", &[]),
    // the Expr language, with the checks of Expr's clips on the API's types
    ("vsvk-expr", &["vsvk-plugin-api"]),
    // the GPU half, below the runtime: it knows no frame, node, core or C ABI
    ("vsvk-gpu", &["vsvk-plugin-api"]),
    // built-in namespaces written on the plugin API alone, linked into the core, which registers
    // them at start-up: text, resize (on zimg), and std's filters; std's MaskedMerge and
    // PreMultiply use resize's chroma_mask, its Expr the Expr language
    ("vsvk-text", &["vsvk-plugin-api"]),
    ("vsvk-resize", &["vsvk-plugin-api", "vsvk-zimg"]),
    ("vsvk-std", &["vsvk-plugin-api", "vsvk-resize", "vsvk-expr"]),
    // the core: runtime, C ABI, the layer over the GPU half, std's functions that need the
    // runtime, the built-ins' wiring
    ("vsvk-core", &["vsvk-plugin-api", "vsvk-gpu", "vsvk-text", "vsvk-std", "vsvk-resize"]),
    // plugins load on R81 as on vsvk: the plugin API only, never the core
    ("vsvk-vk", &["vsvk-plugin-api", "vsvk-expr"]),
    ("vsvk-vkdecode", &["vsvk-plugin-api"]),
    // what users touch: the Python module links the core; the launcher starts Python
    ("vsvk-python", &["vsvk-core", "vsvk-plugin-api"]),
    ("vsvk-cli", &[]),
    // the oracle tests reach both cores through the C ABI they load at run time
    ("vsvk-tests", &["vsvk-plugin-api"]),
    // a test plugin those tests load on both cores: a plugin like any other
    ("vsvk-apitest", &["vsvk-plugin-api"]),
];

/// The workspace's crates and the workspace crates each depends on, from `cargo tree` lines of
/// the form `0name v1.0 (path)` (a crate) and `1name v1.0 (path)` (one of its dependencies).
fn workspace_edges(tree: &str) -> BTreeMap<String, Vec<String>> {
    let mut edges: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current = None;
    for line in tree.lines() {
        let (depth, rest) = line.split_at(line.find(|c: char| !c.is_ascii_digit()).unwrap_or(0));
        let name = rest.split_whitespace().next().unwrap_or("").to_string();
        match depth {
            "0" => {
                edges.entry(name.clone()).or_default();
                current = Some(name);
            }
            "1" if name.starts_with("vsvk-") => {
                let c = current.clone().expect("a dependency line comes after its crate's line");
                edges.get_mut(&c).unwrap().push(name);
            }
            _ => {}
        }
    }
    edges
}

/// Every edge the table does not allow, and every crate it does not name.
fn violations(edges: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut out = Vec::new();
    for (krate, deps) in edges {
        let Some((_, allowed)) = ALLOWED.iter().find(|(k, _)| k == krate) else {
            out.push(format!("{krate} is a workspace crate no layer names (add it to ALLOWED and docs/ARCHITECTURE.md)"));
            continue;
        };
        for d in deps {
            if !allowed.contains(&d.as_str()) {
                out.push(format!("{krate} depends on {d}, which is not below it"));
            }
        }
    }
    out
}

#[test]
fn no_crate_depends_on_one_above_it() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml");
    let out = Command::new(cargo)
        .args(["tree", "--offline", "--workspace", "--no-dedupe", "-e", "normal,build,dev", "--depth", "1", "--prefix", "depth", "--format", "{p}", "--manifest-path", manifest])
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&out.stderr));
    let edges = workspace_edges(&String::from_utf8_lossy(&out.stdout));
    // the whole workspace was read, not an empty or partial tree
    for (k, _) in ALLOWED {
        assert!(edges.contains_key(*k), "cargo tree did not list {k}:\n{edges:?}");
    }
    let bad = violations(&edges);
    assert!(bad.is_empty(), "the crate graph breaks the layers:\n{}", bad.join("\n"));
}

#[test]
fn the_check_sees_an_upward_edge_and_an_unplaced_crate() {
    let tree = "0vsvk-plugin-api v0.1.0 (x)\n1vsvk-core v0.1.0 (x)\n1libc v0.2.0\n0vsvk-vk v0.1.0 (x)\n1vsvk-plugin-api v0.1.0 (x)\n0vsvk-new v0.1.0 (x)\n";
    let bad = violations(&workspace_edges(tree));
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(bad[0].contains("vsvk-new is a workspace crate no layer names"), "{bad:?}");
    assert!(bad[1].contains("vsvk-plugin-api depends on vsvk-core"), "{bad:?}");
}

/// Inside the core: the C ABI layer (`api`) and the built-in plugins still there (`stdlib`) sit
/// above the runtime. The runtime's modules reach them only through what a core is wired with
/// (core/src/wiring.rs), so none may name them.
const CORE_ABOVE_RUNTIME: &[&str] = &["api", "stdlib"];

/// The built-in namespaces' own crates: only the C ABI layer registers them (api::wiring), so no
/// runtime module may name them either.
const BUILTIN_CRATES: &[&str] = &["vsvk_text", "vsvk_std", "vsvk_resize"];

/// Each `crate::X` or `super::X` a runtime module names, X being a module above the runtime; test
/// modules (after `#[cfg(test)]`) may use anything.
fn upward_names(file: &str, text: &str) -> Vec<String> {
    let body = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = Vec::new();
    for (i, line) in body.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for krate in BUILTIN_CRATES {
            if code.match_indices(krate).any(|(at, _)| !code[at + krate.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')) {
                out.push(format!("{file}:{}: names {krate}", i + 1));
            }
        }
        for above in CORE_ABOVE_RUNTIME {
            for prefix in ["crate::", "super::"] {
                let name = format!("{prefix}{above}");
                if code.match_indices(&name).any(|(at, _)| !code[at + name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')) {
                    out.push(format!("{file}:{}: names {name}", i + 1));
                }
            }
        }
    }
    out
}

fn runtime_files(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).expect("core/src is readable").flatten() {
        let p = e.path();
        let rel = p.strip_prefix(root).unwrap().to_string_lossy().to_string();
        if CORE_ABOVE_RUNTIME.iter().any(|a| rel == *a || rel == format!("{a}.rs")) {
            continue;
        }
        if p.is_dir() {
            runtime_files(&p, root, out);
        } else if rel.ends_with(".rs") && rel != "lib.rs" {
            out.push((rel, std::fs::read_to_string(&p).expect("readable")));
        }
    }
}

#[test]
fn no_runtime_module_reaches_up_into_the_abi_layer_or_the_builtin_plugins() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../core/src"));
    let mut files = Vec::new();
    runtime_files(root, root, &mut files);
    assert!(files.len() > 15 && files.iter().any(|(f, _)| f == "scheduler.rs"), "the runtime's files were not found: {files:?}");
    let bad: Vec<String> = files.iter().flat_map(|(f, t)| upward_names(f, t)).collect();
    assert!(bad.is_empty(), "runtime modules reach up (wire it through core/src/wiring.rs instead):\n{}", bad.join("\n"));
}

#[test]
fn the_module_check_sees_an_upward_name() {
    let text = "use crate::frame::Frame;\nfn f() { crate::api::vsapi(); }\n// crate::stdlib in a comment\nlet x = crate::textual;\nlet y = vsvk_text::init;\n#[cfg(test)]\nmod tests { use crate::api::wiring; }\n";
    assert_eq!(upward_names("node.rs", text), vec!["node.rs:2: names crate::api".to_string(), "node.rs:5: names vsvk_text".to_string()]);
}

/// The GPU crate sits below the runtime: the crate graph keeps it from depending on vsvk-core, and
/// its sources name neither the core's crate (`vsvk_core`, or `vsvk::` as the core's lib is called)
/// nor a runtime module it might grow a copy of (`crate::frame`, `crate::core`, `crate::node`, ...):
/// what it needs of frames comes through `frame::GpuPlanes`, what it needs of caches through
/// `set_evictor`.
const GPU_NEVER_NAMES: &[&str] =
    &["vsvk_core", "vsvk::", "crate::frame::Frame", "crate::core", "crate::node", "crate::scheduler", "crate::cache", "crate::api", "crate::map", "crate::format"];

fn runtime_names(file: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for name in GPU_NEVER_NAMES {
            // `crate::core` is not `crate::core_types`; a name ending in `::` is a prefix anyway
            let whole = |at: usize| name.ends_with("::") || !code[at + name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
            if code.match_indices(name).any(|(at, _)| whole(at)) {
                out.push(format!("{file}:{}: names {name}", i + 1));
            }
        }
    }
    out
}

#[test]
fn the_gpu_crate_never_names_the_runtime() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../gpu/src"));
    let mut bad = Vec::new();
    let mut n = 0;
    for e in std::fs::read_dir(root).expect("gpu/src is readable").flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "rs") {
            n += 1;
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            bad.extend(runtime_names(&name, &std::fs::read_to_string(&p).expect("readable")));
        }
    }
    assert!(n >= 10, "the GPU crate's files were not found ({n})");
    assert!(bad.is_empty(), "the GPU crate names the runtime above it (invert the dependency, as frame::GpuPlanes does):\n{}", bad.join("\n"));
}

#[test]
fn the_gpu_check_sees_a_runtime_name() {
    let text = "use crate::frame::GpuPlanes;\nuse crate::frame::Frame;\nfn f(c: &vsvk::core::Core) {}\n// crate::node in a comment\nuse crate::core_types;\n";
    assert_eq!(runtime_names("exec.rs", text), vec!["exec.rs:2: names crate::frame::Frame".to_string(), "exec.rs:3: names vsvk::".to_string()]);
}
