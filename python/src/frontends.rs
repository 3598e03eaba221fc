//! Which frontend runs on which core, when R81's `vapoursynth` package is installed beside vsvk
//! (it always is: every plugin wheel requires it):
//!
//! * `vsvk frontend vsvk|r81|status`: whether `import vapoursynth` gives vsvk's module in this
//!   Python environment (the wheel's `.pth` file runs `vsvk_frontend`, python/pysrc, at start-up,
//!   which reads the choice this writes), without touching R81's files;
//! * `vsvk with-core PROGRAM [ARGS]`: runs a program, R81's own `vspipe` or a Python with R81's
//!   module, on vsvk's core: libvsvk.so is preloaded, so its `getVapourSynthAPI` is the one R81's
//!   module binds, and the plugin folders R81 would autoload (every `vapoursynth/plugins` on this
//!   Python's path) are handed to the core through `VAPOURSYNTH_EXTRA_PLUGIN_PATH`.
#[cfg(unix)]
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pyo3::prelude::*;

/// The file `vsvk frontend vsvk` writes beside vsvk_frontend.py (read by it at start-up).
const CHOICE_FILE: &str = "vsvk-frontend.choice";

pub const USAGE: &str = "\
  frontend [vsvk|r81|status]
                        choose what `import vapoursynth` gives in this Python environment: vsvk's
                        module or R81's (the default); VSVK_FRONTEND=vsvk|r81 chooses for one run
  with-core PROGRAM [ARGS]
                        run PROGRAM (R81's vspipe, or python with R81's module) on vsvk's core:
                        libvsvk.so preloaded, R81's plugin folders handed to it
";

/// The folder of the vsvk module's library, symlinks resolved (a wheel's package folder, or the
/// development build's target/release).
fn module_dir(py: Python<'_>) -> PyResult<PathBuf> {
    let file: String = py.import("vsvk")?.getattr("__file__")?.extract()?;
    let file = std::fs::canonicalize(&file).unwrap_or_else(|_| PathBuf::from(&file));
    Ok(file.parent().unwrap_or(Path::new("/")).to_path_buf())
}

/// The core library to preload: `$VSVK_CORE_LIBRARY`, else libvsvk.so beside the module's library.
pub fn core_library(py: Python<'_>) -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("VSVK_CORE_LIBRARY").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let dir = module_dir(py).map_err(|e| format!("cannot tell where the vsvk module is: {e}"))?;
    let lib = dir.join(CORE_LIBRARY);
    if lib.is_file() {
        Ok(lib)
    } else {
        Err(format!("the core library {} is missing (set VSVK_CORE_LIBRARY to libvsvk.so)", lib.display()))
    }
}

#[cfg(unix)]
const CORE_LIBRARY: &str = "libvsvk.so";
#[cfg(windows)]
const CORE_LIBRARY: &str = "vsvk.dll";

/// Windows has no LD_PRELOAD: a program there gets vsvk's core by finding vsvk.dll under R81's name.
#[cfg(windows)]
pub fn with_core(py: Python<'_>, _args: &[String]) -> i32 {
    let _ = py;
    eprintln!("vsvk with-core: Windows has no library preloading; copy vsvk.dll over the libvapoursynth.dll beside the program instead");
    2
}

/// `vsvk with-core PROGRAM [ARGS]`: replaces this process; returns only on failure.
#[cfg(unix)]
pub fn with_core(py: Python<'_>, args: &[String]) -> i32 {
    let Some((program, rest)) = args.split_first() else {
        eprintln!("vsvk with-core: name the program to run, e.g. `vsvk with-core vspipe script.vpy -`");
        return 2;
    };
    let lib = match core_library(py) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("vsvk with-core: {e}");
            return 1;
        }
    };
    let mut preload = lib.into_os_string();
    if let Some(old) = std::env::var_os("LD_PRELOAD").filter(|p| !p.is_empty()) {
        preload.push(":");
        preload.push(old);
    }
    // R81's core reads the folder beside its library; ours is elsewhere, so it gets the same folders
    // the vsvk module reads (once each: the variable is a colon list only to our core).
    let mut folders: Vec<OsString> = Vec::new();
    for dir in crate::site_plugins::folders() {
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir).into_os_string();
        if !folders.contains(&dir) {
            folders.push(dir);
        }
    }
    if let Some(old) = std::env::var_os("VAPOURSYNTH_EXTRA_PLUGIN_PATH").filter(|p| !p.is_empty()) {
        folders.push(old);
    }
    let mut cmd = std::process::Command::new(program);
    cmd.args(rest).env("LD_PRELOAD", preload).env("VSVK_FRONTEND", "r81");
    if !folders.is_empty() {
        cmd.env("VAPOURSYNTH_EXTRA_PLUGIN_PATH", folders.join(std::ffi::OsStr::new(":")));
    }
    flush(py);
    use std::os::unix::process::CommandExt;
    let err = cmd.exec();
    eprintln!("vsvk with-core: cannot run {program}: {err}");
    127
}

#[cfg(unix)]
fn flush(py: Python<'_>) {
    if let Ok(sys) = py.import("sys") {
        for s in ["stdout", "stderr"] {
            let _ = sys.getattr(s).and_then(|s| s.call_method0("flush"));
        }
    }
}

/// The folder holding `vsvk_frontend.py`, which pip put beside vsvk (site-packages).
fn frontend_dir(py: Python<'_>) -> PyResult<PathBuf> {
    let file: String = py.import("vsvk_frontend")?.getattr("__file__")?.extract()?;
    Ok(Path::new(&file).parent().unwrap_or(Path::new("/")).to_path_buf())
}

/// `vsvk frontend [vsvk|r81|status]`.
pub fn frontend(py: Python<'_>, args: &[String]) -> i32 {
    let choice = args.first().map(String::as_str).unwrap_or("status");
    if args.len() > 1 || !matches!(choice, "vsvk" | "r81" | "status") {
        eprintln!("vsvk frontend: expected one of vsvk, r81, status");
        return 2;
    }
    let site = match frontend_dir(py) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("vsvk frontend: vsvk_frontend is not importable ({e}): `vsvk frontend` needs vsvk installed by pip");
            return 1;
        }
    };
    let marker = site.join(CHOICE_FILE);
    match choice {
        "vsvk" => {
            if let Err(e) = std::fs::write(&marker, "vsvk\n") {
                eprintln!("vsvk frontend: cannot write {}: {e}", marker.display());
                return 1;
            }
            println!("import vapoursynth now gives vsvk in {} (VSVK_FRONTEND=r81 gives R81's for one run)", site.display());
            0
        }
        "r81" => {
            match std::fs::remove_file(&marker) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    eprintln!("vsvk frontend: cannot remove {}: {e}", marker.display());
                    return 1;
                }
            }
            println!("import vapoursynth now gives R81's module in {} (VSVK_FRONTEND=vsvk gives vsvk for one run)", site.display());
            0
        }
        _ => {
            let chosen = if marker.is_file() { "vsvk" } else { "r81" };
            let run = std::env::var("VSVK_FRONTEND").ok().filter(|v| !v.is_empty());
            println!("{chosen}{}", run.map(|v| format!(" (VSVK_FRONTEND={v} in this run)")).unwrap_or_default());
            0
        }
    }
}
