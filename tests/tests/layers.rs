//! The crate graph is the architecture (docs/ARCHITECTURE.md): each workspace crate may depend only
//! on the crates of the layers below it. `cargo tree` of the workspace is read and every edge between
//! workspace crates checked against that table, so a lower crate that gains a dependency on a
//! higher one, or a new crate nobody placed, fails here.
use std::collections::BTreeMap;
use std::process::Command;

/// Each workspace crate and the workspace crates it may use (normal, build and dev dependencies).
const ALLOWED: &[(&str, &[&str])] = &[
    // the bottom: the ABI types and safe plugin layer, the Expr compiler, zimg; no workspace crate
    ("vsvk-plugin-api", &[]),
    ("vsvk-expr", &[]),
    ("vsvk-zimg", &[]),
    // the core: runtime, C ABI, GPU half, std/resize/text
    ("vsvk-core", &["vsvk-plugin-api", "vsvk-expr", "vsvk-zimg"]),
    // plugins load on R81 as on vsvk: the plugin API only, never the core
    ("vsvk-vk", &["vsvk-plugin-api", "vsvk-expr"]),
    ("vsvk-vkdecode", &["vsvk-plugin-api"]),
    // what users touch: the Python module links the core; the launcher starts Python
    ("vsvk-python", &["vsvk-core", "vsvk-plugin-api"]),
    ("vsvk-cli", &[]),
    // the oracle tests reach both cores through the C ABI they load at run time
    ("vsvk-tests", &["vsvk-plugin-api"]),
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
