//! Plugin discovery as R81 does it. A scratch `vapoursynth` package (the core library named
//! libvapoursynth.so.4 beside a `plugins` folder, as R81's wheel installs it) holds a plain plugin,
//! a plugin two folders down without manifest, a manifest folder with CPU variants and a library
//! its manifest does not name, and the bad input: a broken .so, a duplicate plugin, a manifest
//! naming a missing file and a .so that is no plugin. Our core and R81 autoload it side by side:
//! the same plugins from the same files, one message for each bad file, nothing aborts. Then
//! `VAPOURSYNTH_EXTRA_PLUGIN_PATH` and vsvk's own folders, and the Python module's `sys.path` scan
//! through the `vsvk` command.
//!
//! Needs `cargo build --release` (libvsvk.so and the vsvk command), the reference core and plugins
//! (scripts/setup.sh), and gcc. CPU only.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use vsvk_tests::{oracle, reference};

const LIMIT: Duration = Duration::from_secs(60);
/// Namespaces a core provides itself (R81's std lies in a library of its own).
const BUILTIN: [&str; 3] = ["std", "resize", "text"];
const MANIFEST_HEADER: &str = "[VapourSynth Manifest V1]\n";

fn scratch(name: &str) -> PathBuf {
    let d = reference::target_dir().join("vsvk-discovery").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("creating a scratch folder");
    d
}

/// The C program or library `name`, built once per test process (the tests run in parallel).
fn built(name: &str, source: &str, shared: bool) -> PathBuf {
    static BUILT: Mutex<BTreeMap<String, PathBuf>> = Mutex::new(BTreeMap::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    built
        .entry(name.to_string())
        .or_insert_with(|| oracle::compile_into(&reference::target_dir().join("vsvk-discovery/bin"), name, source, shared, &[]).unwrap_or_else(|e| panic!("{e}")))
        .clone()
}

fn probe() -> PathBuf {
    built("probe", "tests/discovery/probe.c", false)
}

fn ref_plugin(rel: &str) -> PathBuf {
    let p = reference::ref_dir().join("plugins").join(rel);
    assert!(p.is_file(), "{} is missing: {}", p.display(), reference::RUN_SETUP);
    p
}

/// Copies `from` to `to`, creating `to`'s folder (copies, not links: a plugin's path is its file's).
fn put(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from, to).unwrap_or_else(|e| panic!("copying {} to {}: {e}", from.display(), to.display()));
}

fn write(path: &Path, text: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The bad files of the plugins folder, by what each is.
struct Bad {
    broken: PathBuf,
    duplicate: PathBuf,
    missing: PathBuf,
    not_a_plugin: PathBuf,
}

/// Fills `plugins` with the layout this file's header describes.
fn plugin_tree(plugins: &Path) -> Bad {
    put(&common::program(common::NOISE), &plugins.join("vsvknoise.so"));
    put(&ref_plugin("cas.so"), &plugins.join("akarin/deeper/cas.so"));
    write(&plugins.join("fb/manifest.vs"), format!("{MANIFEST_HEADER}libfb\n").as_bytes());
    put(&ref_plugin("fillborders.so"), &plugins.join("fb/libfb.so"));
    put(&ref_plugin("fillborders.so"), &plugins.join("fb/libfb.avx2.so"));
    // in a manifest folder, what the manifest does not name is not loaded, subfolders included
    put(&ref_plugin("bwdif.so"), &plugins.join("fb/unnamed.so"));
    put(&ref_plugin("sangnom.so"), &plugins.join("fb/sub/sangnom.so"));
    let bad = Bad {
        broken: plugins.join("broken.so"),
        duplicate: plugins.join("copy/vsvknoise.so"),
        missing: plugins.join("missing/libnothere.so"),
        not_a_plugin: plugins.join("notaplugin.so"),
    };
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    write(&bad.broken, &garbage);
    put(&common::program(common::NOISE), &bad.duplicate);
    write(&plugins.join("missing/manifest.vs"), format!("{MANIFEST_HEADER}libnothere\n").as_bytes());
    put(&built("notaplugin.so", "tests/discovery/notaplugin.c", true), &bad.not_a_plugin);
    bad
}

/// A scratch package `<root>/vapoursynth/` with `core` as its libvapoursynth.so.4 (R81's filter
/// libraries beside it when it is R81) and the plugin tree; returns (library, plugins, bad files).
fn package(root: &Path, core: &Path) -> (PathBuf, PathBuf, Bad) {
    let pkg = root.join("vapoursynth");
    std::fs::create_dir_all(&pkg).unwrap();
    let lib = pkg.join("libvapoursynth.so.4");
    if std::fs::hard_link(core, &lib).is_err() {
        std::fs::copy(core, &lib).unwrap();
    }
    for e in std::fs::read_dir(core.parent().unwrap()).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with("libvapoursynthfilters") {
            std::os::unix::fs::symlink(e.path(), pkg.join(e.file_name())).unwrap();
        }
    }
    let plugins = pkg.join("plugins");
    let bad = plugin_tree(&plugins);
    (lib, plugins, bad)
}

/// A run of the probe with a clean environment for plugin folders, plus `env`.
fn run_probe(args: &[&Path], home: &Path, env: &[(&str, &Path)]) -> common::Output {
    let mut cmd = Command::new(probe());
    cmd.args(args).env_remove("VAPOURSYNTH_EXTRA_PLUGIN_PATH").env_remove("VSVK_PLUGIN_PATH").env("XDG_DATA_HOME", home);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = common::run(cmd, LIMIT);
    assert!(out.success() && out.stdout.ends_with("done\n"), "the probe did not finish: {}", out.describe());
    out
}

/// Namespace -> plugin file, relative to `base` where it lies below it.
fn plugins_of(out: &common::Output, base: &Path) -> BTreeMap<String, String> {
    out.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("plugin "))
        .filter_map(|l| l.split_once(' '))
        .filter(|(ns, _)| !BUILTIN.contains(ns))
        .map(|(ns, path)| (ns.to_string(), Path::new(path).strip_prefix(base).map(|p| p.display().to_string()).unwrap_or_else(|_| path.to_string())))
        .collect()
}

/// What a core logged: the messages its handler received (R81 hands what it logged while it had
/// none to the first handler added) and what it wrote to stderr (vsvk, while it had none).
fn messages(out: &common::Output) -> String {
    let handled = out.stdout.lines().filter_map(|l| l.strip_prefix("log ")).map(|l| format!("{l}\n"));
    handled.chain(out.stderr.lines().map(|l| format!("{l}\n"))).collect()
}

/// The lines of `text` that mention `path`.
fn mentions<'a>(text: &'a str, path: &Path) -> Vec<&'a str> {
    let p = path.display().to_string();
    text.lines().filter(|l| l.contains(&p)).collect()
}

/// Which of fb's libraries loaded: the plain one or its .avx2 variant, as this CPU allows.
fn fb_variant(plugins: &BTreeMap<String, String>) -> String {
    plugins.get("fb").cloned().unwrap_or_default()
}

fn cores() -> [(&'static str, PathBuf); 2] {
    [("ours", common::our_core()), ("R81", common::reference_core())]
}

#[test]
fn an_installed_package_autoloads_its_plugins_folder_as_r81_does() {
    let mut seen = BTreeMap::new();
    for (name, core) in cores() {
        let root = scratch(&format!("package-{name}"));
        let (lib, plugins, bad) = package(&root, &core);
        let out = run_probe(&[&lib], &root, &[]);
        let loaded = plugins_of(&out, &plugins);
        let log = messages(&out);
        // the duplicate's two copies lie in one folder tree: which is first is the walk's order
        let noise = loaded.get("vsvknoise").cloned().unwrap_or_default();
        assert!(noise == "vsvknoise.so" || noise == "copy/vsvknoise.so", "{name}: vsvknoise from {noise:?}\n{}", out.describe());
        assert_eq!(loaded.get("cas").map(String::as_str), Some("akarin/deeper/cas.so"), "{name}\n{}", out.describe());
        assert!(["fb/libfb.so", "fb/libfb.avx2.so"].contains(&fb_variant(&loaded).as_str()), "{name}\n{}", out.describe());
        assert_eq!(loaded.len(), 3, "{name}: only the three plugins load: {loaded:?}\n{}", out.describe());
        // one message each for the broken file, the duplicate and the missing manifest entry
        // (none for the library that is no plugin)
        assert_eq!(mentions(&log, &bad.broken).len(), 1, "{name}\n{}", out.describe());
        assert!(mentions(&log, &bad.broken)[0].contains("Failed to load"), "{name}\n{}", out.describe());
        let dup: Vec<&str> = log.lines().filter(|l| l.contains("already loaded (org.vsvk.noise)")).collect();
        assert_eq!(dup.len(), 1, "{name}\n{}", out.describe());
        assert_eq!(mentions(&log, &bad.missing).len(), 1, "{name}\n{}", out.describe());
        // a library that is no plugin: nothing on R81, one debug line on ours (replayed to the
        // first handler with the other kept messages)
        let quiet = mentions(&log, &bad.not_a_plugin);
        assert!(quiet.len() <= 1 && quiet.iter().all(|l| l.starts_with("0 ")), "{name}: a non-plugin is no warning\n{}", out.describe());
        seen.insert(name, (loaded, log.lines().filter(|l| !l.starts_with("0 ")).count()));
    }
    let (ours, r81) = (&seen["ours"], &seen["R81"]);
    // the same variant for this CPU, the same number of messages above debug
    assert_eq!(fb_variant(&ours.0), fb_variant(&r81.0));
    assert_eq!(ours.1, r81.1, "messages");
}

#[test]
fn each_bad_file_gives_one_message_at_r81s_level() {
    let mut levels = BTreeMap::new();
    for (name, core) in cores() {
        let root = scratch(&format!("levels-{name}"));
        let (lib, plugins, bad) = package(&root, &core);
        // LoadAllPlugins with a handler: the same walk, and the levels can be seen
        let out = run_probe(&[&lib, &plugins], &root, &[]);
        let logs: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("log ")).collect();
        let level_of = |path: &Path| -> Vec<String> {
            let p = path.display().to_string();
            logs.iter().filter(|l| l.contains(&p)).map(|l| l.split(' ').nth(1).unwrap().to_string()).collect()
        };
        let dup: Vec<String> = logs.iter().filter(|l| l.contains("already loaded (org.vsvk.noise)")).map(|l| l.split(' ').nth(1).unwrap().to_string()).collect();
        let got = (level_of(&bad.broken), dup, level_of(&bad.missing), level_of(&bad.not_a_plugin));
        assert_eq!(plugins_of(&out, &plugins).len(), 3, "{name}\n{}", out.describe());
        levels.insert(name, got);
    }
    let one = |l: &str| vec![l.to_string()];
    // warning for a broken plain file and a duplicate, critical for a manifest's missing file
    assert_eq!(levels["R81"], (one("2"), one("2"), one("3"), vec![]));
    // we also say why a non-plugin library was left out, at debug level (R81 says nothing)
    assert_eq!(levels["ours"], (one("2"), one("2"), one("3"), one("0")));
}

#[test]
fn the_extra_plugin_path_comes_after_the_package_and_vsvk_folders_after_it() {
    for (name, core) in cores() {
        let root = scratch(&format!("extra-{name}"));
        let (lib, _, _) = package(&root, &core);
        let extra = root.join("extra");
        put(&ref_plugin("sangnom.so"), &extra.join("sub/sangnom.so"));
        put(&ref_plugin("cas.so"), &extra.join("cas.so"));
        let own = root.join("own");
        put(&ref_plugin("bwdif.so"), &own.join("bwdif.so"));
        let out = run_probe(&[&lib], &root, &[("VAPOURSYNTH_EXTRA_PLUGIN_PATH", &extra), ("VSVK_PLUGIN_PATH", &own)]);
        let loaded = plugins_of(&out, &root);
        assert_eq!(loaded.get("sangnom").map(String::as_str), Some("extra/sub/sangnom.so"), "{name}\n{}", out.describe());
        // the package's copy came first
        assert!(loaded["cas"].starts_with("vapoursynth/plugins/"), "{name}: {loaded:?}");
        assert_eq!(mentions(&messages(&out), &extra.join("cas.so")).len(), 1, "{name}\n{}", out.describe());
        if name == "ours" {
            assert_eq!(loaded.get("bwdif").map(String::as_str), Some("own/bwdif.so"), "{loaded:?}");
        }
        // R81 reads one folder, no list; we also read a colon separated list (`vsvk with-core`
        // hands one over), and a folder that exists under the whole name is still that folder
        let both = std::ffi::OsString::from(format!("{}:{}", extra.display(), root.join("more").display()));
        put(&ref_plugin("tivtc.so"), &root.join("more/tivtc.so"));
        let out = run_probe(&[&lib], &root, &[("VAPOURSYNTH_EXTRA_PLUGIN_PATH", Path::new(&both))]);
        let loaded = plugins_of(&out, &root);
        assert_eq!(loaded.contains_key("sangnom") && loaded.contains_key("tivtc"), name == "ours", "{name}\n{}", out.describe());
        let colon = root.join("odd:name");
        put(&ref_plugin("tivtc.so"), &colon.join("tivtc.so"));
        let out = run_probe(&[&lib], &root, &[("VAPOURSYNTH_EXTRA_PLUGIN_PATH", &colon)]);
        assert_eq!(plugins_of(&out, &root).get("tivtc").map(String::as_str), Some("odd:name/tivtc.so"), "{name}\n{}", out.describe());
    }
}

#[test]
fn the_python_module_loads_the_plugin_folders_on_sys_path() {
    let vsvk = reference::target_dir().join("release/vsvk");
    assert!(vsvk.is_file(), "{} is missing: build it with `cargo build --release`", vsvk.display());
    let root = scratch("sys-path");
    let first = root.join("site1");
    let bad = plugin_tree(&first.join("vapoursynth/plugins"));
    // the same folder again through a link: read once
    std::os::unix::fs::symlink(&first, root.join("site1-again")).unwrap();
    let second = root.join("site2/vapoursynth/plugins");
    put(&ref_plugin("cas.so"), &second.join("cas.so"));
    put(&ref_plugin("sangnom.so"), &second.join("sub/sangnom.so"));
    let pythonpath = format!("{}:{}:{}", first.display(), root.join("site1-again").display(), root.join("site2").display());
    let mut cmd = Command::new(&vsvk);
    cmd.arg("plugins")
        .current_dir(&root)
        .env("PYTHONPATH", pythonpath)
        .env_remove("VAPOURSYNTH_EXTRA_PLUGIN_PATH")
        .env_remove("VSVK_PLUGIN_PATH")
        .env("XDG_DATA_HOME", &root);
    let out = common::run(cmd, LIMIT);
    assert!(out.success(), "{}", out.describe());
    // `vsvk plugins` names each plugin's file on the line after it
    let lines: Vec<&str> = out.stdout.lines().collect();
    let file_of = |ns: &str| -> Option<String> {
        let i = lines.iter().position(|l| l.split_whitespace().next() == Some(ns))?;
        lines.get(i + 1).map(|l| l.trim().to_string())
    };
    let site1 = first.join("vapoursynth/plugins");
    assert_eq!(file_of("cas"), Some(site1.join("akarin/deeper/cas.so").display().to_string()), "{}", out.describe());
    assert_eq!(file_of("sangnom"), Some(second.join("sub/sangnom.so").display().to_string()), "{}", out.describe());
    assert!(file_of("fb").is_some_and(|f| f.starts_with(&site1.join("fb/libfb").display().to_string())), "{}", out.describe());
    assert!(file_of("vsvknoise").is_some(), "{}", out.describe());
    // bad files: one line each on stderr, site1 read once, site2's cas refused as a duplicate
    assert_eq!(mentions(&out.stderr, &bad.broken).len(), 1, "{}", out.describe());
    assert_eq!(mentions(&out.stderr, &bad.missing).len(), 1, "{}", out.describe());
    assert_eq!(out.stderr.lines().filter(|l| l.contains("already loaded (org.vsvk.noise)")).count(), 1, "{}", out.describe());
    assert_eq!(mentions(&out.stderr, &second.join("cas.so")).len(), 1, "{}", out.describe());
    assert_eq!(out.stderr.lines().count(), 4, "{}", out.describe());
}
