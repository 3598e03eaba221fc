//! The `vsvk` command. Everything it does (pipe, devices, plugins, version) is written in Rust in
//! the vsvk Python module (python/, built as libvsvk_python.so); scripts are Python, so this program
//! only puts that module on Python's path and hands over to a Python interpreter:
//!
//! * the module folder holds `vsvk.abi3.so` (a link to libvsvk_python.so; on Windows `vsvk.pyd`) and `vapoursynth.py`, an
//!   alias, so that scripts written for VapourSynth (`import vapoursynth as vs`) run unchanged;
//! * `vsvk python ARGS...` runs the interpreter with ARGS, with both modules importable;
//! * every other command runs `vsvk._main(ARGS)` in it.
//!
//! The interpreter replaces this process (exec), so signals such as Ctrl-C reach Python directly.
//! Windows has no exec: there the interpreter runs as a child, in the same console (which gives it
//! Ctrl-C too), and its exit status becomes this program's; the module is `vsvk.pyd`, a copy of
//! vsvk_python.dll (links need a privilege there), and the default interpreter is `python`.
//!
//! Environment: `VSVK_PYTHON` (the interpreter, default `python3`; Python 3.11 or newer),
//! `VSVK_PYTHON_MODULE` (the module library, default libvsvk_python.so beside this program or in
//! ../lib/vsvk/).
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

#[cfg(unix)]
const LIBRARY: &str = "libvsvk_python.so";
#[cfg(windows)]
const LIBRARY: &str = "vsvk_python.dll";
/// The module's file name in the module folder: what Python imports as `vsvk`.
#[cfg(unix)]
const MODULE: &str = "vsvk.abi3.so";
#[cfg(windows)]
const MODULE: &str = "vsvk.pyd";
#[cfg(unix)]
const DEFAULT_PYTHON: &str = "python3";
#[cfg(windows)]
const DEFAULT_PYTHON: &str = "python";

/// The alias module: `import vapoursynth` gives the vsvk module itself.
const ALIAS: &str = "# Written by the vsvk command: scripts that import vapoursynth get vsvk.\n\
import sys\n\
import vsvk\n\
sys.modules[__name__] = vsvk\n";

/// What the interpreter runs for every command but `python`: the module's entry point, which
/// flushes and ends the process itself with the command's exit status.
const BOOTSTRAP: &str = "import sys, vsvk; vsvk._main(sys.argv[1:])";

fn die(msg: &str) -> ! {
    eprintln!("vsvk: {msg}");
    std::process::exit(127);
}

fn module_library() -> PathBuf {
    if let Some(p) = std::env::var_os("VSVK_PYTHON_MODULE").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap_or_else(|e| die(&format!("cannot tell where this program is: {e}")));
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    let dir = exe.parent().unwrap_or(Path::new("/"));
    let candidates = [dir.join(LIBRARY), dir.join("../lib/vsvk").join(LIBRARY)];
    for c in &candidates {
        if c.is_file() {
            return std::fs::canonicalize(c).unwrap_or_else(|_| c.clone());
        }
    }
    die(&format!(
        "the vsvk Python module is missing: looked for {} (build it with `cargo build --release`, or set VSVK_PYTHON_MODULE)",
        candidates.iter().map(|c| c.display().to_string()).collect::<Vec<_>>().join(" and ")
    ))
}

/// Whether `dir` already holds the links and files for `lib`.
fn module_dir_ready(dir: &Path, lib: &Path) -> bool {
    module_ready(&dir.join(MODULE), lib) && std::fs::read_to_string(dir.join("vapoursynth.py")).is_ok_and(|s| s == ALIAS)
}

/// Fills `dir` (created if needed); each entry is written beside its place and renamed over it, so
/// that concurrent runs never see half of one.
fn make_module_dir(dir: &Path, lib: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let pid = std::process::id();
    let link_tmp = dir.join(format!(".{MODULE}.{pid}"));
    let _ = std::fs::remove_file(&link_tmp);
    put_module(lib, &link_tmp)?;
    std::fs::rename(&link_tmp, dir.join(MODULE))?;
    let alias_tmp = dir.join(format!(".vapoursynth.py.{pid}"));
    std::fs::write(&alias_tmp, ALIAS)?;
    std::fs::rename(&alias_tmp, dir.join("vapoursynth.py"))?;
    Ok(())
}

#[cfg(unix)]
fn module_ready(module: &Path, lib: &Path) -> bool {
    std::fs::read_link(module).is_ok_and(|t| t == lib)
}

#[cfg(unix)]
fn put_module(lib: &Path, at: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(lib, at)
}

/// A copy is current when it has the library's size and is not older than it.
#[cfg(windows)]
fn module_ready(module: &Path, lib: &Path) -> bool {
    match (std::fs::metadata(module), std::fs::metadata(lib)) {
        (Ok(m), Ok(l)) => m.len() == l.len() && m.modified().ok() >= l.modified().ok(),
        _ => false,
    }
}

#[cfg(windows)]
fn put_module(lib: &Path, at: &Path) -> std::io::Result<()> {
    std::fs::copy(lib, at).map(|_| ())
}

/// The folder to put on Python's path: `vsvk-python/` beside the library, or a cache folder when
/// that one cannot be written.
fn module_dir(lib: &Path) -> PathBuf {
    let beside = lib.parent().unwrap_or(Path::new("/")).join("vsvk-python");
    if module_dir_ready(&beside, lib) || make_module_dir(&beside, lib).is_ok() {
        return beside;
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    // FNV-1a of the library's path: one folder per build
    let hash = lib.as_os_str().as_encoded_bytes().iter().fold(0xcbf29ce484222325u64, |h, b| (h ^ *b as u64).wrapping_mul(0x100000001b3));
    let dir = cache.join("vsvk").join(format!("python-{hash:016x}"));
    if module_dir_ready(&dir, lib) {
        return dir;
    }
    if let Err(e) = make_module_dir(&dir, lib) {
        die(&format!("cannot set up the module folder {} (nor {}): {e}", beside.display(), dir.display()));
    }
    dir
}

fn main() {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let lib = module_library();
    let dir = module_dir(&lib);
    let python = std::env::var_os("VSVK_PYTHON").filter(|p| !p.is_empty()).unwrap_or_else(|| DEFAULT_PYTHON.into());
    let mut entries = vec![dir];
    if let Some(old) = std::env::var_os("PYTHONPATH").filter(|p| !p.is_empty()) {
        entries.extend(std::env::split_paths(&old));
    }
    let path = std::env::join_paths(entries).unwrap_or_else(|e| die(&format!("cannot put the module folder on PYTHONPATH: {e}")));
    let mut cmd = Command::new(&python);
    cmd.env("PYTHONPATH", path);
    if args.first().is_some_and(|a| a == "python") {
        cmd.args(&args[1..]);
    } else {
        cmd.arg("-c").arg(BOOTSTRAP).args(&args);
    }
    let err = run(cmd);
    die(&format!("cannot run the Python interpreter {}: {err} (set VSVK_PYTHON to one, Python 3.11 or newer)", Path::new(&python).display()))
}

/// Replaces this process with the interpreter; returns only when that fails.
#[cfg(unix)]
fn run(mut cmd: Command) -> std::io::Error {
    use std::os::unix::process::CommandExt;
    cmd.exec()
}

/// Runs the interpreter and ends with its exit status; returns only when it cannot start.
#[cfg(windows)]
fn run(mut cmd: Command) -> std::io::Error {
    match cmd.status() {
        Ok(st) => std::process::exit(st.code().unwrap_or(1)),
        Err(e) => e,
    }
}
