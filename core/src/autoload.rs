//! Plugin discovery: which libraries a plugin folder holds, and which folders a new core reads.
//!
//! The rules are R81's, learned by running it:
//! - a folder is walked recursively, to any depth, following folder links; every `*.so` (exact
//!   case, hidden files included) is a candidate;
//! - a folder holding a `manifest.vs` loads only the libraries its manifest names (each the best
//!   variant this CPU runs: `name.zn4.so`, `name.avx2.so`, `name.so`) and nothing else of it, its
//!   subfolders included; a bad header or an unreadable manifest loads nothing of the folder;
//! - a plain library that fails to load is a warning; a manifest's is critical; a plain library
//!   without `VapourSynthPluginInit2` is no plugin and is skipped (R81 says nothing; we log it at
//!   debug level, so that a handler can see why a file was left out);
//! - a plugin whose identifier is already loaded is refused with a warning, the first found wins;
//! - the core reads the `plugins` folder beside its own library, then the one folder named by
//!   `VAPOURSYNTH_EXTRA_PLUGIN_PATH` (no list separator).
//!
//! Where we differ: entries are read in name order (R81 takes the file system's order); each
//! folder is read once (R81 follows a link loop until the path is too long), so the same folder
//! reached twice is silent; a `VAPOURSYNTH_EXTRA_PLUGIN_PATH` that names no folder is also read as
//! a colon separated list. After R81's folders come vsvk's own (`$VSVK_PLUGIN_PATH`, then
//! `$XDG_DATA_HOME/vsvk/plugins`).
use std::collections::HashSet;
#[cfg(unix)]
use std::ffi::{c_char, c_int, c_void, CStr, OsStr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use crate::core::Core;
use crate::plugin::{self, PluginError};

const MANIFEST: &str = "manifest.vs";
const MANIFEST_HEADER: &str = "[VapourSynth Manifest V1]";
use plugin::LIB_SUFFIX;

/// What walking a folder found, in loading order.
#[derive(Debug, PartialEq)]
pub enum Found {
    /// A library met while walking.
    Plain(PathBuf),
    /// A library a manifest names (the best variant there is, else the plain name even if missing).
    Declared(PathBuf),
    /// A manifest that gives nothing to load: (level, message).
    Problem(i32, String),
}

/// Folders already walked, by canonical path, across one autoload.
#[derive(Default)]
pub struct Visited(HashSet<PathBuf>);

/// Everything `dir` holds for loading, by the rules above; folders in `visited` are skipped.
pub fn walk(dir: &Path, visited: &mut Visited, out: &mut Vec<Found>) {
    let Ok(canonical) = std::fs::canonicalize(dir) else { return };
    if !canonical.is_dir() || !visited.0.insert(canonical) {
        return;
    }
    let manifest = dir.join(MANIFEST);
    if manifest.exists() {
        read_manifest_folder(dir, &manifest, out);
        return;
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).map(|rd| rd.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, visited, out);
        } else if p.is_file() && p.file_name().is_some_and(|n| is_library_name(n.as_encoded_bytes())) {
            out.push(Found::Plain(p));
        }
    }
}

/// A library's file name: `*.so` in exact case; on Windows, whose file names ignore case, `*.dll`
/// in any case.
fn is_library_name(name: &[u8]) -> bool {
    let suffix = LIB_SUFFIX.as_bytes();
    if cfg!(windows) {
        name.len() >= suffix.len() && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    } else {
        name.ends_with(suffix)
    }
}

fn read_manifest_folder(dir: &Path, manifest: &Path, out: &mut Vec<Found>) {
    let Ok(text) = std::fs::read_to_string(manifest) else {
        out.push(Found::Problem(mtCritical, format!("Couldn't read contents of manifest file: {}", manifest.display())));
        return;
    };
    match manifest_entries(&text) {
        Some(names) => out.extend(names.into_iter().map(|n| Found::Declared(plugin::pick_variant(dir, n).unwrap_or_else(|| dir.join(format!("{n}{LIB_SUFFIX}")))))),
        None => out.push(Found::Problem(mtCritical, format!("Invalid header in manifest: {}", manifest.display()))),
    }
}

/// The library names of a manifest's text, or None when its first line is not the header. Lines
/// are taken as written (R81 trims nothing but a CR line end, and knows no comments).
pub fn manifest_entries(text: &str) -> Option<Vec<&str>> {
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    if lines.next()? != MANIFEST_HEADER {
        return None;
    }
    Some(lines.filter(|l| !l.is_empty()).collect())
}

/// Loads what `walk` found, logging each failure at R81's level; nothing stops the walk.
pub fn load_found(core: &Arc<Core>, found: Vec<Found>) {
    for f in found {
        match f {
            Found::Problem(level, msg) => core.log_message(level, &msg),
            Found::Plain(p) => match plugin::load_exact(core, &p) {
                Ok(_) => {}
                Err(PluginError::NoEntryPoint(_)) => core.log_message(mtDebug, &format!("Not a plugin (no VapourSynthPluginInit2), skipped: {}", p.display())),
                Err(e) => core.log_message(mtWarning, &e.to_string()),
            },
            Found::Declared(p) => match plugin::load_exact(core, &p) {
                Ok(_) => {}
                Err(PluginError::NoEntryPoint(_)) => core.log_message(mtCritical, &format!("Manifest declared plugin has no entry point: {}", p.display())),
                Err(e) => core.log_message(mtCritical, &e.to_string()),
            },
        }
    }
}

/// Loads every plugin in `dir` (std.LoadAllPlugins, `vsvk plugins --load`).
pub fn load_folder(core: &Arc<Core>, dir: &Path) {
    let mut found = Vec::new();
    walk(dir, &mut Visited::default(), &mut found);
    load_found(core, found);
}

/// The folders a new core reads, in order: the `plugins` folder beside the library holding this
/// code, `frontend` (folders a frontend found, e.g. the Python module's `sys.path` ones), the
/// folder `$VAPOURSYNTH_EXTRA_PLUGIN_PATH`, then vsvk's own: `$VSVK_PLUGIN_PATH` (colon separated)
/// and `$XDG_DATA_HOME/vsvk/plugins` (default `~/.local/share/vsvk/plugins`). On Windows lists are
/// `;` separated and vsvk's own data folder is `%APPDATA%\vsvk\plugins`; R81's Windows build (its
/// wheel, run under Wine) reads no per-user folder, `%APPDATA%\VapourSynth\plugins64` included,
/// so neither does this.
pub fn folders(frontend: &[PathBuf]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = own_library().and_then(|l| l.parent().map(|d| d.join("plugins"))).into_iter().collect();
    v.extend(frontend.iter().cloned());
    if let Some(extra) = std::env::var_os("VAPOURSYNTH_EXTRA_PLUGIN_PATH").filter(|s| !s.is_empty()) {
        v.extend(extra_folders(&extra));
    }
    if let Some(s) = std::env::var_os("VSVK_PLUGIN_PATH") {
        v.extend(std::env::split_paths(&s).filter(|p| !p.as_os_str().is_empty()));
    }
    if cfg!(windows) {
        v.extend(std::env::var_os("APPDATA").filter(|s| !s.is_empty()).map(|d| PathBuf::from(d).join("vsvk").join("plugins")));
        return v;
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")));
    v.extend(data.map(|d| d.join("vsvk/plugins")));
    v
}

/// `VAPOURSYNTH_EXTRA_PLUGIN_PATH`'s folders: R81 reads the value as one folder; where no such
/// folder exists, we also take it as a colon separated list (what `vsvk with-core` hands over).
fn extra_folders(value: &std::ffi::OsStr) -> Vec<PathBuf> {
    if Path::new(value).is_dir() {
        return vec![PathBuf::from(value)];
    }
    std::env::split_paths(value).filter(|p| !p.as_os_str().is_empty()).collect()
}

/// Autoloading of a new core: every folder of `folders(frontend)`, each read once.
pub fn autoload(core: &Arc<Core>, frontend: &[PathBuf]) {
    let mut visited = Visited::default();
    let mut found = Vec::new();
    for dir in folders(frontend) {
        walk(&dir, &mut visited, &mut found);
    }
    load_found(core, found);
}

#[cfg(unix)]
#[repr(C)]
struct DlInfo {
    fname: *const c_char,
    fbase: *mut c_void,
    sname: *const c_char,
    saddr: *mut c_void,
}

#[cfg(unix)]
extern "C" {
    fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
}

/// The file of the shared object holding this code, as the loader opened it (a link is not
/// resolved: a link named libvapoursynth.so.4 in a package stands for that package). For a program
/// linking the core statically it is the program, which has no `plugins` folder of its own.
#[cfg(unix)]
pub fn own_library() -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut info = DlInfo { fname: std::ptr::null(), fbase: std::ptr::null_mut(), sname: std::ptr::null(), saddr: std::ptr::null_mut() };
    // SAFETY: dladdr reads nothing at the address, it only looks it up; `info` is ours to fill.
    let rc = unsafe { dladdr(own_library as *const c_void, &mut info) };
    if rc == 0 || info.fname.is_null() {
        return None;
    }
    // SAFETY: the loader's NUL-terminated name of a loaded object, this one, which stays loaded.
    let name = unsafe { CStr::from_ptr(info.fname) };
    let path = Path::new(OsStr::from_bytes(name.to_bytes()));
    if path.as_os_str().is_empty() {
        return None;
    }
    std::path::absolute(path).ok()
}

/// The DLL holding this code (vsvk.dll, or a program linking the core statically), by its module
/// file name, which Windows gives as UTF-16 and as loaded.
#[cfg(windows)]
pub fn own_library() -> Option<PathBuf> {
    use std::os::windows::ffi::OsStringExt;
    use windows_sys::Win32::Foundation::HMODULE;
    use windows_sys::Win32::System::LibraryLoader::{
        GetModuleFileNameW, GetModuleHandleExW, GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS, GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
    };
    let mut module: HMODULE = std::ptr::null_mut();
    let flags = GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT;
    // SAFETY: with FROM_ADDRESS the name argument is an address inside a module (this function);
    // UNCHANGED_REFCOUNT takes no reference, and this module stays loaded while its code runs.
    if unsafe { GetModuleHandleExW(flags, own_library as *const u16, &mut module) } == 0 {
        return None;
    }
    let mut buf = vec![0u16; 1024];
    loop {
        // SAFETY: `buf` has room for buf.len() UTF-16 units; the call writes at most that many.
        let n = unsafe { GetModuleFileNameW(module, buf.as_mut_ptr(), buf.len() as u32) } as usize;
        if n == 0 {
            return None;
        }
        if n < buf.len() {
            buf.truncate(n);
            return Some(PathBuf::from(std::ffi::OsString::from_wide(&buf)));
        }
        // truncated: try again with more room (long paths reach 32767 units)
        if buf.len() >= 65536 {
            return None;
        }
        buf.resize(buf.len() * 2, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_are_read_as_written() {
        assert_eq!(manifest_entries("[VapourSynth Manifest V1]\nlibfoo\n\nlibbar\n"), Some(vec!["libfoo", "libbar"]));
        assert_eq!(manifest_entries("[VapourSynth Manifest V1]\r\nlibfoo\r\n"), Some(vec!["libfoo"]));
        assert_eq!(manifest_entries("[VapourSynth Manifest V1]\n# note\n lib \n"), Some(vec!["# note", " lib "]));
        assert_eq!(manifest_entries("[VapourSynth Manifest V1] x\nlibfoo\n"), None);
        assert_eq!(manifest_entries(""), None);
    }
}
