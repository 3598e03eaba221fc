//! The pre-API-4.2 property name `_ColorRange`, which R81 treats as a view of `_Range` (0 and 1
//! swapped) in every map: the probe tests/oracle/props_alias.c runs the same list of map API calls
//! (setters, append, arrays, getters, listing, mapDeleteKey, other value types, copyMap) on a frame's
//! property map and on an ordinary map, and std.SetFrameProps / SetFrameProp / RemoveFrameProps /
//! CopyFrameProps on a BlankClip, and prints what it sees; our core must print what R81 prints,
//! scenario by scenario. The oracle driver's SetFrameProps chains are compared by fingerprint too.
//!
//! Needs `scripts/setup.sh` (the reference) and our core built in release mode.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use vsvk_tests::each_case;
use vsvk_tests::oracle::{self, check, compile_into, Case};
use vsvk_tests::{process, reference};

const LIMIT: Duration = Duration::from_secs(120);

fn probe() -> &'static Path {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| compile_into(&reference::target_dir().join("vsvk-props-alias"), "props_alias", "tests/oracle/props_alias.c", false, &[]))
        .as_ref()
        .unwrap_or_else(|e| panic!("cannot build the probe: {e}"))
}

/// The probe's output on one core, cut into (scenario header, lines) in order.
fn scenarios(core: &Path) -> Vec<(String, String)> {
    let mut cmd = Command::new(probe());
    cmd.arg(core);
    let out = process::run(cmd, LIMIT);
    assert!(out.success() && out.stdout.ends_with("end\n"), "the probe failed on {}: {}", core.display(), out.describe());
    let mut all: Vec<(String, String)> = Vec::new();
    for line in out.stdout.lines() {
        if line.starts_with('[') {
            all.push((line.to_string(), String::new()));
        } else if let Some((_, body)) = all.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    all
}

fn both() -> &'static (Vec<(String, String)>, Vec<(String, String)>) {
    static RUNS: OnceLock<(Vec<(String, String)>, Vec<(String, String)>)> = OnceLock::new();
    RUNS.get_or_init(|| (scenarios(&oracle::reference_core()), scenarios(&oracle::our_core())))
}

/// The scenarios `pick` selects must read the same on both cores; R81 must have run at least one.
fn compare(pick: impl Fn(&str) -> bool) {
    let (want, got) = both();
    let headers = |v: &Vec<(String, String)>| v.iter().map(|(h, _)| h.clone()).collect::<Vec<_>>();
    assert_eq!(headers(want), headers(got), "the probe ran different scenarios");
    let mut failures = String::new();
    let mut compared = 0;
    for ((head, w), (_, g)) in want.iter().zip(got) {
        if !pick(head) {
            continue;
        }
        compared += 1;
        if w != g {
            failures.push_str(&format!("{head}\n  reference:\n{w}  ours:\n{g}\n"));
        }
    }
    assert!(compared > 0, "no scenario selected");
    assert!(failures.is_empty(), "our core differs from R81:\n{failures}");
}

/// One scenario's lines on R81, for checking that the probe shows what this test is about.
fn reference_says(head: &str) -> &'static str {
    both().0.iter().find(|(h, _)| h == head).map(|(_, b)| b.as_str()).unwrap_or_else(|| panic!("no scenario {head}"))
}

/// The scenarios RemoveFrameProps and CopyFrameProps-by-name need: in R81 they delete
/// `_ColorRange` as mapDeleteKey does (taking `_Range` along) and copy it as `_Range`; ours do the
/// same through the map ABI (std/src/props.rs: RemoveFrameProps and CopyFrameProps call
/// mapDeleteKey, then CopyFrameProps copies the source's `_Range`).
fn needs_std_props_alias(head: &str) -> bool {
    head.contains("CopyFrameProps props=_ColorRange") || head.contains("a float _ColorRange, RemoveFrameProps")
}

#[test]
fn probe_shows_the_alias_on_r81() {
    // what the finding was: _ColorRange=1 is stored as _Range=0, and deleting _ColorRange deletes _Range
    assert!(reference_says("[frame] setInt _ColorRange=1").contains("    _Range type=1 n=1: 0\n"));
    assert!(reference_says("[frame] _Range=1 then deleteKey _ColorRange").contains("  ret=1\n  after: 1 keys\n    Other "));
    assert!(reference_says("[std] SetFrameProps _ColorRange=1").contains("    _Range type=1 n=1: 0\n"));
    assert!(reference_says("[plain] only _Range=0").contains("get _ColorRange: int=1 err=0"));
}

#[test]
fn frame_property_maps_match_r81() {
    compare(|h| h.starts_with("[frame]"));
}

#[test]
fn ordinary_maps_match_r81() {
    compare(|h| h.starts_with("[plain]"));
}

#[test]
fn std_set_and_copy_all_match_r81() {
    compare(|h| h.starts_with("[std]") && !needs_std_props_alias(h));
}

#[test]
fn std_remove_and_copy_by_name_match_r81() {
    compare(|h| h.starts_with("[std]") && needs_std_props_alias(h));
}

// ---- the oracle driver: every property of the noise source's frames in the fingerprint ------------

fn gray(chain: &str) -> Case {
    Case::sized("Gray8", 46, 30, 1, chain)
}

each_case! { check;
    driver_setframeprops_colorrange_1 => gray("std.SetFrameProps:_ColorRange=1");
    driver_setframeprops_colorrange_0 => gray("std.SetFrameProps:_ColorRange=0");
    driver_setframeprops_colorrange_2 => gray("std.SetFrameProps:_ColorRange=2");
    driver_setframeprops_colorrange_array => gray("std.SetFrameProps:_ColorRange=1:_ColorRange=0:_ColorRange=5");
    driver_setframeprops_colorrange_float => gray("std.SetFrameProps:_ColorRange=0.5");
    driver_setframeprop_colorrange => gray("std.SetFrameProp:prop='_ColorRange:intval=0");
    driver_setframeprops_then_remove_range => gray("std.SetFrameProps:_ColorRange=1,std.RemoveFrameProps:props='_Range");
}
