//! Bad input gives a clear error and the process goes on. tests/badinput/probe.c feeds a core one
//! mistake after another (libraries that are not plugins, paths that do not exist, a plugin with broken
//! registerFunction calls (tests/plugins/vsvkbad.c), invoke with unknown, missing and mistyped
//! arguments, frames outside the clip, filters that fail frames and their consumers) and prints what
//! came back. Each test checks our core's message text and that R81 fails the same calls; R81's
//! messages are the model, and the few places where ours differ are listed in KNOWN_DIFFERENCES.
//!
//! Needs `scripts/setup.sh` (the reference) and our core built in release mode.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use common::{our_core, program, reference_core, run, BAD, MODES, NOISE, PROBE};

/// Cases whose message text differs from R81's (both cores fail them). Everything else must match.
const KNOWN_DIFFERENCES: [(&str, &str); 0] = [];

/// What the probe printed for one core.
struct Probe {
    /// case name -> (ok, message)
    cases: BTreeMap<String, (bool, String)>,
    /// case name -> log lines ("LEVEL: MESSAGE") logged while it ran
    logs: BTreeMap<String, Vec<String>>,
    order: Vec<String>,
    core: &'static str,
}

impl Probe {
    fn case(&self, name: &str) -> (bool, &str) {
        match self.cases.get(name) {
            Some((ok, msg)) => (*ok, msg.as_str()),
            None => panic!("{}: the probe printed no case {name}", self.core),
        }
    }
    /// The case failed; its message.
    fn error(&self, name: &str) -> &str {
        let (ok, msg) = self.case(name);
        assert!(!ok, "{}: {name} should fail but succeeded: {msg}", self.core);
        msg
    }
    fn ok(&self, name: &str) -> &str {
        let (ok, msg) = self.case(name);
        assert!(ok, "{}: {name} should succeed but failed: {msg}", self.core);
        msg
    }
    fn logs(&self, name: &str) -> &[String] {
        self.logs.get(name).map_or(&[], Vec::as_slice)
    }
}

/// A shared library that is certainly not a plugin.
fn not_a_plugin() -> PathBuf {
    let candidates = ["/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib64/libz.so.1", "/usr/lib/libz.so.1"];
    candidates.iter().map(PathBuf::from).find(|p| p.is_file()).unwrap_or_else(|| panic!("no libz.so.1 in {candidates:?}"))
}

fn probe(core: &Path, name: &'static str) -> Probe {
    let mut cmd = Command::new(program(PROBE));
    cmd.arg(core).arg(program(NOISE)).arg(program(MODES)).arg(program(BAD)).arg(not_a_plugin());
    let out = run(cmd, Duration::from_secs(120));
    assert!(out.success(), "the probe did not finish cleanly on {name}: {}", out.describe());
    assert!(out.stdout.lines().last() == Some("done"), "the probe did not get to the end on {name}: {}", out.describe());
    let mut p = Probe { cases: BTreeMap::new(), logs: BTreeMap::new(), order: Vec::new(), core: name };
    for line in out.stdout.lines() {
        if let Some(rest) = line.strip_prefix("case ") {
            let (case, rest) = rest.split_once(": ").unwrap_or((rest, ""));
            let (status, msg) = rest.split_once(": ").unwrap_or((rest, ""));
            p.order.push(case.to_string());
            p.cases.insert(case.to_string(), (status == "ok", msg.to_string()));
        } else if let Some(rest) = line.strip_prefix("log ") {
            let (case, msg) = rest.split_once(": ").unwrap_or((rest, ""));
            p.logs.entry(case.to_string()).or_default().push(msg.to_string());
        }
    }
    p
}

fn reference() -> &'static Probe {
    static P: OnceLock<Probe> = OnceLock::new();
    P.get_or_init(|| probe(&reference_core(), "R81"))
}

fn ours() -> &'static Probe {
    static P: OnceLock<Probe> = OnceLock::new();
    P.get_or_init(|| probe(&our_core(), "ours"))
}

/// Both cores fail the case; ours with exactly `want`.
fn fails_with(case: &str, want: &str) {
    reference().error(case);
    let got = ours().error(case);
    assert_eq!(got, want, "our message for {case}");
}

/// Both cores fail the case; ours with a message that contains every piece of `want`.
fn fails_mentioning(case: &str, want: &[&str]) {
    reference().error(case);
    let got = ours().error(case);
    for w in want {
        assert!(got.contains(w), "our message for {case} does not mention '{w}': {got}");
    }
}

// ---- the whole run ----------------------------------------------------------------------------------

/// Both cores get through every case, the same cases fail on both, and the messages are R81's except
/// for the known differences.
#[test]
fn both_cores_fail_the_same_calls() {
    let (r, o) = (reference(), ours());
    assert_eq!(o.order, r.order, "the cases ran differ");
    let mut mismatches = Vec::new();
    for case in &r.order {
        let (rok, rmsg) = r.case(case);
        let (ook, omsg) = o.case(case);
        assert_eq!(ook, rok, "{case}: R81 {} ({rmsg}), ours {} ({omsg})", if rok { "succeeds" } else { "fails" }, if ook { "succeeds" } else { "fails" });
        if !rok && omsg != rmsg && !KNOWN_DIFFERENCES.iter().any(|(k, _)| k == case) {
            mismatches.push(format!("{case}:\n  R81:  {rmsg}\n  ours: {omsg}"));
        }
    }
    for (case, note) in KNOWN_DIFFERENCES {
        eprintln!("known difference in {case}: {note}\n  R81:  {}\n  ours: {}", r.error(case), o.error(case));
    }
    assert!(mismatches.is_empty(), "messages that differ from R81's:\n{}", mismatches.join("\n"));
}

// ---- plugins ---------------------------------------------------------------------------------------

#[test]
fn loading_a_library_that_is_not_a_plugin() {
    fails_with("load_not_plugin", &format!("No entry point found in {}", not_a_plugin().display()));
}

#[test]
fn loading_a_path_that_does_not_exist() {
    fails_with(
        "load_missing",
        "Failed to load /nonexistent/vsvk/libnothing.so. Error given: /nonexistent/vsvk/libnothing.so: cannot open shared object file: No such file or directory",
    );
    fails_mentioning("load_directory", &["Failed to load /tmp", "Is a directory"]);
}

#[test]
fn loading_a_plugin_twice() {
    fails_mentioning("load_twice", &["org.vsvk.modes", "already loaded"]);
}

/// registerFunction with a broken argument or return type string: refused (returns 0) with a logged
/// message that names the function, and the rest of the plugin loads.
#[test]
fn broken_registrations_are_refused_and_logged() {
    for p in [reference(), ours()] {
        p.ok("load_bad_register");
        p.ok("bad_plugin_present");
        assert_eq!(p.ok("bad_functions"), "+Good -BadType -BadSyntax -BadReturn +Late ", "{}: the functions registered", p.core);
        assert_eq!(p.ok("bad_good"), "registered=1,0,0,0,1", "{}: what registerFunction returned", p.core);
        p.ok("bad_late");
        let logs = p.logs("load_bad_register");
        for f in ["BadType", "BadSyntax", "BadReturn"] {
            assert!(
                logs.iter().any(|l| l.starts_with("3: ") && l.contains(f)),
                "{}: no critical message naming {f} was logged: {logs:?}",
                p.core
            );
        }
        assert_eq!(logs.len(), 3, "{}: one message per refused function: {logs:?}", p.core);
    }
    // what each refusal says: R81's words, then possibly more detail
    let logs = ours().logs("load_bad_register");
    for want in ["nosuchtype", "incomplete", "what"] {
        assert!(logs.iter().any(|l| l.contains(want)), "no logged message mentions '{want}': {logs:?}");
    }
    for (r, o) in reference().logs("load_bad_register").iter().zip(logs) {
        assert!(o.starts_with(r.as_str()), "our log message does not start with R81's:\n  R81:  {r}\n  ours: {o}");
    }
    fails_with("invoke_refused_function", "Function 'BadType' not found in org.vsvk.bad");
}

// ---- invoke -----------------------------------------------------------------------------------------

#[test]
fn invoke_with_bad_arguments() {
    fails_with("invoke_unknown_function", "Function 'NoSuchFunction' not found in org.vsvk.noise");
    fails_with("invoke_unknown_argument", "Noise: no argument(s) named bogus");
    fails_with("invoke_missing_argument", "Parallel: argument clip is required");
    fails_with("invoke_mistyped_clip", "Parallel: argument clip is not of the correct type");
    fails_with("invoke_mistyped_int", "Noise: argument width is not of the correct type");
    fails_with("invoke_too_many_values", "Noise: argument width is not of array type but more than one value was supplied");
    fails_with("invoke_audio_for_video", "Parallel: argument clip is not of the correct type");
}

/// Errors a plugin's create function sets come back unchanged.
#[test]
fn invoke_errors_from_the_plugin() {
    fails_with("invoke_plugin_error", "Noise: unknown format");
    fails_with("invoke_filter_refuses", "radius must be between 0 and 8");
}

// ---- frames -----------------------------------------------------------------------------------------

#[test]
fn frames_outside_the_clip() {
    fails_with("getframe_past_end", "Invalid frame number 20 requested, clip only has 20 frames");
    fails_with("getframe_negative", "Invalid frame number -1 requested, clip only has 20 frames");
    fails_with("getframe_int_max", "Invalid frame number 2147483647 requested, clip only has 20 frames");
    fails_with("getframeasync_past_end", "Invalid frame number 20 requested, clip only has 20 frames");
    fails_with("getframeasync_negative", "Invalid frame number -1 requested, clip only has 20 frames");
    for p in [reference(), ours()] {
        assert_eq!(p.ok("getframe_last"), "frame 19", "{}", p.core);
    }
}

/// The text a filter gives setFilterError reaches getFrame's errorMsg and getFrameAsync's callback
/// unchanged, from arInitial or arAllFramesReady, every time the frame is asked for; other frames of
/// the filter still work.
#[test]
fn filter_errors_reach_the_caller() {
    fails_with("filter_error_getframe", "Fail: frame 2 fails on purpose");
    fails_with("filter_error_async", "Fail: frame 15 fails on purpose");
    fails_with("filter_error_again", "Fail: frame 2 fails on purpose");
    fails_with("filter_error_initial", "Fail: frame 2 fails on purpose");
    for p in [reference(), ours()] {
        assert_eq!(p.ok("filter_error_neighbour"), "frame 1", "{}", p.core);
    }
    // getFrame truncates the message to the buffer it is given
    fails_with("error_buffer_small", "Fail: f");
}

/// A frame whose dependency failed fails with the dependency's message, through any number of
/// filters; frames that do not need the failed one, and the core, still work.
#[test]
fn failed_dependencies() {
    fails_with("dependency_failed_getframe", "Fail: frame 2 fails on purpose");
    fails_with("dependency_failed_async", "Fail: frame 2 fails on purpose");
    fails_with("dependency_failed_twice_removed", "Fail: frame 2 fails on purpose");
    for p in [reference(), ours()] {
        assert_eq!(p.ok("dependency_fine_far_away"), "frame 9", "{}", p.core);
        assert_eq!(p.ok("core_still_works"), "frame 12", "{}", p.core);
    }
}
