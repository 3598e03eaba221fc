//! Shared by the scheduler, stress, callbacks and bad-input tests: building their C programs and test plugins
//! (against reference::include_dir(): our own include/ unless $VSVK_INCLUDE says otherwise) and
//! running them under a time limit.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use vsvk_tests::reference;

/// The C programs and plugins these tests use, by the name they are built under.
pub const DRIVER: &str = "driver";
pub const NOISE: &str = "vsvknoise.so";
pub const MODES: &str = "vsvkmodes.so";
pub const BAD: &str = "vsvkbad.so";
pub const STRESS: &str = "stress";
pub const PROBE: &str = "probe";
pub const CALLBACKS: &str = "callbacks";

/// (output name, source relative to the workspace root, shared library?)
const PROGRAMS: [(&str, &str, bool); 7] = [
    (DRIVER, "tests/oracle/driver.c", false),
    (NOISE, "tests/plugins/vsvknoise.c", true),
    (MODES, "tests/plugins/vsvkmodes.c", true),
    (BAD, "tests/plugins/vsvkbad.c", true),
    (STRESS, "tests/stress/stress.c", false),
    (PROBE, "tests/badinput/probe.c", false),
    (CALLBACKS, "tests/stress/callbacks.c", false),
];

fn build(name: &str) -> Result<PathBuf, String> {
    let (_, source, shared) = PROGRAMS.iter().find(|(n, _, _)| *n == name).ok_or_else(|| format!("no program {name}"))?;
    vsvk_tests::oracle::compile_into(&reference::target_dir().join("vsvk-sched"), name, source, *shared, &["-g"])
}

/// The built program or plugin `name` (one of the constants above), built once per test process.
pub fn program(name: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<String, Result<PathBuf, String>>>> = OnceLock::new();
    let mut built = BUILT.get_or_init(|| Mutex::new(HashMap::new())).lock().unwrap_or_else(|e| e.into_inner());
    let r = built.entry(name.to_string()).or_insert_with(|| build(name));
    match r {
        Ok(p) => p.clone(),
        Err(e) => panic!("cannot build {name}: {e}"),
    }
}

pub fn reference_core() -> PathBuf {
    reference::reference_core().unwrap_or_else(|e| panic!("{e}"))
}

pub fn our_core() -> PathBuf {
    reference::our_core().unwrap_or_else(|e| panic!("{e}"))
}

/// Which core a run used, for messages.
pub fn core_name(core: &Path) -> &'static str {
    if reference::reference_core().is_ok_and(|r| r == core) {
        "R81"
    } else {
        "ours"
    }
}

#[allow(unused_imports)] // not every test runs programs itself
pub use vsvk_tests::process::{run, Output};
