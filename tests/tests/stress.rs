//! Teardown with frames in flight: tests/stress/stress.c builds a graph of the vsvkmodes test filters,
//! issues many getFrameAsync requests (some for frames outside the clip, some for frames that fail),
//! and frees the core; every callback must come exactly once, with a frame or an error message, every
//! filter instance must be freed and every thread of the core gone by the time freeCore returns (as on
//! R81), and the process must exit cleanly.
//!
//! On our core the output node is freed right after the requests are made and freeCore follows at
//! once, with the requests still running: freeCore waits for them. R81 crashes when a node is freed
//! with requests for it in flight, so there (`--wait`) the program waits for the callbacks, then frees
//! the node, then the core; our core must pass that way too and agree on what failed.
//!
//! `VSVK_VALGRIND=1` also runs the program on our core under
//! `valgrind --leak-check=full --error-exitcode=1` (slow, so opt-in).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{core_name, our_core, program, reference_core, run, Output, MODES, NOISE, STRESS};

const LIMIT: Duration = Duration::from_secs(120);

fn stress(core: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(program(STRESS));
    cmd.arg(core).arg(program(NOISE)).arg(program(MODES)).args(args);
    run(cmd, LIMIT)
}

/// The "ok ..." line of a run that must succeed.
fn ok_line(core: &Path, args: &[&str]) -> String {
    let out = stress(core, args);
    let line = out.stdout.lines().find(|l| l.starts_with("ok ") || l.starts_with("error:")).unwrap_or("").to_string();
    assert!(
        out.success() && line.starts_with("ok "),
        "stress on {} [{}] failed: {}",
        core_name(core),
        args.join(" "),
        out.describe()
    );
    line
}

/// Requests still running when the nodes and the core are freed, with 1 to 32 threads.
#[test]
fn free_core_with_requests_in_flight() {
    let ours = our_core();
    let mut lines = Vec::new();
    for threads in ["1", "2", "4", "32"] {
        for _ in 0..3 {
            lines.push(ok_line(&ours, &["--threads", threads, "--requests", "300", "--rounds", "3"]));
        }
    }
    // the same frames fail whatever the threads
    assert!(lines.iter().all(|l| *l == lines[0]), "results differ between runs:\n{}", lines.join("\n"));
}

/// The order R81 needs (callbacks, then the node, then the core): both cores pass and agree on how
/// many requests gave frames and how many failed.
#[test]
fn free_core_after_callbacks_agrees_with_reference() {
    for threads in ["1", "4", "32"] {
        let args = ["--threads", threads, "--requests", "200", "--rounds", "2", "--wait"];
        let want = ok_line(&reference_core(), &args);
        let got = ok_line(&our_core(), &args);
        assert_eq!(got, want, "[{}]", args.join(" "));
        // and our core's own order gives the same
        let ours_early = ok_line(&our_core(), &args[..6]);
        assert_eq!(ours_early, want, "[{}] without --wait", args[..6].join(" "));
    }
}

/// Opt-in (VSVK_VALGRIND=1): no invalid accesses and no leaks on our core under valgrind.
#[test]
fn valgrind_clean() {
    if std::env::var_os("VSVK_VALGRIND").is_none_or(|v| v != "1") {
        eprintln!("valgrind_clean: skipped (set VSVK_VALGRIND=1 to run it)");
        return;
    }
    let mut cmd = Command::new("valgrind");
    cmd.args(["--leak-check=full", "--error-exitcode=1"])
        .arg(program(STRESS))
        .arg(our_core())
        .arg(program(NOISE))
        .arg(program(MODES))
        .args(["--threads", "4", "--requests", "150", "--rounds", "3"]);
    let out = run(cmd, Duration::from_secs(600));
    let summary: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| ["definitely lost", "indirectly lost", "possibly lost", "still reachable", "ERROR SUMMARY"].iter().any(|k| l.contains(k)))
        .collect();
    eprintln!("valgrind on our core:\n  {}\n  {}", out.stdout.trim(), summary.join("\n  "));
    assert!(out.success(), "valgrind reports errors or leaks: {}", out.describe());
    assert!(out.stdout.contains("ok rounds="), "the stress program failed under valgrind: {}", out.describe());
    // with --leak-check=full, --error-exitcode also covers definite and possible leaks; say so plainly
    assert!(
        summary.iter().any(|l| l.contains("definitely lost: 0 bytes")) || out.stderr.contains("All heap blocks were freed"),
        "leaks: {}",
        summary.join("\n")
    );
}
