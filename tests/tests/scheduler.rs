//! The scheduler against the reference: chains of the vsvkmodes test filters (tests/plugins/vsvkmodes.c)
//! over the vsvknoise source run through the oracle driver (tests/oracle/driver.c) on R81 and on our
//! core, with 1 to 32 threads and up to 64 getFrameAsync requests in flight (and the synchronous
//! getFrame from several threads). Every run must finish within its time limit (no deadlock) and give
//! the same fingerprint (every pixel and property of every frame) on both cores whatever the threads.
//!
//! The filters cover every filter mode, frameData carried from arInitial to arAllFramesReady, requests
//! made in two stages, setFilterError, cacheFrame with setLinearFilter, releaseFrameEarly, long chains
//! and diamond graphs; vsvkmodes.Exclusive fails a frame when the core breaks the exclusivity its filter
//! mode promises, so a run that succeeds proves the core serialised what it must.
//!
//! Needs `scripts/setup.sh` (the reference) and our core built in release mode.

mod common;

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{core_name, our_core, program, reference_core, run, DRIVER, MODES, NOISE};

/// How long one driver run may take before it counts as a deadlock.
const LIMIT: Duration = Duration::from_secs(60);

/// The source every chain starts from: small frames, enough of them for windows and many requests.
const SOURCE: [&str; 10] = ["--width", "64", "--height", "48", "--frames", "30", "--format", "YUV420P8", "--seed", "3"];

/// The thread counts and request depths every chain runs with on both cores.
const SPREAD: [&[&str]; 6] = [
    &["--threads", "1", "--requests", "1"],
    &["--threads", "1", "--requests", "64"],
    &["--threads", "2", "--requests", "64"],
    &["--threads", "4", "--requests", "64"],
    &["--threads", "8", "--requests", "64"],
    &["--threads", "32", "--requests", "64"],
];

/// More ways of fetching, on our core only: fewer requests, and the synchronous getFrame.
const OURS_TOO: [&[&str]; 3] = [
    &["--threads", "4", "--requests", "3"],
    &["--threads", "2", "--sync", "--requests", "4"],
    &["--threads", "8", "--sync", "--requests", "16"],
];

/// One driver run: the result line without the parts that may differ between equal runs (the thread
/// count and the speed), or why there is none.
fn fingerprint(core: &Path, format: &str, chain: &str, mode: &[&str]) -> Result<String, String> {
    let mut cmd = Command::new(program(DRIVER));
    cmd.arg(core).arg("--plugin").arg(program(NOISE)).arg("--plugin").arg(program(MODES));
    // the driver takes the last of repeated options: the format (and a length in `mode`) win
    cmd.args(SOURCE).args(["--format", format]).args(mode).arg(chain);
    let out = run(cmd, LIMIT);
    let what = || format!("{} [{}] {chain} ({format})", core_name(core), mode.join(" "));
    if out.timed_out() {
        return Err(format!("{}: no answer within {} s (deadlock?)\n{}", what(), LIMIT.as_secs(), out.describe()));
    }
    match out.stdout.lines().rev().find(|l| l.starts_with("ok ") || l.starts_with("error:")) {
        Some(l) if l.starts_with("ok ") => Ok(l.split(" threads=").next().unwrap_or(l).to_string()),
        Some(l) => Err(format!("{}: {l}", what())),
        None => Err(format!("{}: no result line\n{}", what(), out.describe())),
    }
}

/// The chain gives one fingerprint on R81 and on our core, for every thread count and request depth;
/// `extra` goes to every run (e.g. another clip length).
fn check_with(format: &str, extra: &[&str], chain: &str) {
    let reference = reference_core();
    let with = |m: &[&str]| -> Vec<String> { m.iter().chain(extra).map(|s| s.to_string()).collect() };
    let want = match fingerprint(&reference, format, chain, &strs(&with(SPREAD[0]))) {
        Ok(f) => f,
        Err(e) => panic!("the reference fails, so the case is wrong: {e}"),
    };
    let ours = our_core();
    let mut failures = String::new();
    let runs = SPREAD.iter().map(|m| (&reference, *m)).chain(SPREAD.iter().chain(OURS_TOO.iter()).map(|m| (&ours, *m)));
    for (core, mode) in runs.skip(1) {
        let mode = with(mode);
        let mode = strs(&mode);
        match fingerprint(core, format, chain, &mode) {
            Ok(got) if got == want => {}
            Ok(got) => {
                let _ = writeln!(failures, "{} [{}]: {got}\n  want (R81, 1 thread): {want}", core_name(core), mode.join(" "));
            }
            Err(e) => {
                let _ = writeln!(failures, "{e}");
            }
        }
    }
    assert!(failures.is_empty(), "{chain} ({format}):\n{failures}");
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn check_format(format: &str, chain: &str) {
    check_with(format, &[], chain)
}

fn check(chain: &str) {
    check_format("YUV420P8", chain)
}

// ---- one filter per mode -------------------------------------------------------------------------------

#[test]
fn mode_parallel() {
    check("vsvkmodes.Parallel");
}

#[test]
fn mode_parallel_requests() {
    check("vsvkmodes.ParallelRequests");
}

#[test]
fn mode_unordered() {
    check("vsvkmodes.Unordered");
}

#[test]
fn mode_frame_state() {
    check("vsvkmodes.FrameState");
}

/// All four in a row, wide windows, over other sample types.
#[test]
fn modes_chained_over_formats() {
    let chain = "vsvkmodes.Parallel:radius=3,vsvkmodes.FrameState:radius=1,vsvkmodes.Unordered:radius=4,vsvkmodes.ParallelRequests";
    for format in ["YUV420P16", "GrayS", "RGB24", "YUV444P10"] {
        check_format(format, chain);
    }
}

// ---- requests in two stages, the cache and early release ------------------------------------------------

/// A filter that asks for more frames from arAllFramesReady, returns NULL, and finishes in a later
/// activation (R81 supports it), in every filter mode.
#[test]
fn requests_in_two_stages() {
    check("vsvkmodes.TwoStage,vsvkmodes.TwoStage:mode=1,vsvkmodes.TwoStage:mode=2,vsvkmodes.TwoStage:mode=3");
}

/// setLinearFilter with cacheFrame (frames made ahead must equal frames made on request) and
/// releaseFrameEarly (a released frame is no longer returned by getFrameFilter).
#[test]
fn cache_frame_and_release_early() {
    check("vsvkmodes.Cached,vsvkmodes.Parallel:radius=1,vsvkmodes.Cached,vsvkmodes.TwoStage,vsvkmodes.Cached");
}

// ---- exclusivity --------------------------------------------------------------------------------------

/// fmParallelRequests, fmUnordered and fmFrameState filters that fail any frame during which the core
/// broke the mode's exclusivity; with up to 32 threads and 64 requests in flight nothing fails.
#[test]
fn serial_modes_are_exclusive() {
    check("vsvkmodes.Exclusive:mode=1,vsvkmodes.Exclusive:mode=2,vsvkmodes.Exclusive:mode=3");
    check("vsvkmodes.Exclusive:mode=3:sleep=0,vsvkmodes.TwoStage:mode=3,vsvkmodes.Exclusive:mode=3,vsvkmodes.Exclusive:mode=2:sleep=0");
}

/// The exclusivity check itself works: the same filter in fmParallel (a negative control) sees
/// activations overlap, on both cores, once there is more than one thread.
#[test]
fn exclusivity_check_sees_parallel_overlap() {
    for core in [reference_core(), our_core()] {
        let r = fingerprint(&core, "YUV420P8", "vsvkmodes.Exclusive:mode=0:sleep=3000", &["--threads", "4", "--requests", "16"]);
        match r {
            Err(e) if e.contains("overlap") => {}
            other => panic!("{}: fmParallel activations never overlapped: {other:?}", core_name(&core)),
        }
    }
}

/// Frames made ready together run on several workers: eight Loop frames wait on one slow frame
/// (300 ms), and when it is done the Meet activations behind them must overlap, three at once, on
/// both cores. A core that ran every waiter of a finished frame on the thread that finished it ran
/// them one after another while the other workers idled (a temporal filter such as AverageFrames
/// then lost most of its threads): the first Meet waited for company that never came.
#[test]
fn frames_made_ready_together_run_in_parallel() {
    let chain = "vsvkmodes.Exclusive:mode=0:sleep=300000,std.Loop:times=8,vsvkmodes.Meet:count=3";
    for core in [reference_core(), our_core()] {
        let r = fingerprint(&core, "YUV420P8", chain, &["--frames", "1", "--threads", "4", "--requests", "8"]);
        assert!(r.is_ok(), "{}: {r:?}", core_name(&core));
    }
    // the check can fail: with one thread nothing ever overlaps
    let r = fingerprint(&our_core(), "YUV420P8", &format!("{chain}:timeout=1000"), &["--frames", "1", "--threads", "1", "--requests", "8"]);
    assert!(matches!(&r, Err(e) if e.contains("never met")), "one thread: {r:?}");
}

// ---- graph shapes -------------------------------------------------------------------------------------

/// 50 filters of every kind in a row.
#[test]
fn long_chain() {
    let kinds = [
        "Parallel:radius=1",
        "ParallelRequests:radius=1",
        "Unordered:radius=1",
        "FrameState:radius=1",
        "Cached",
        "TwoStage",
        "Exclusive:mode=3:sleep=0",
        "Exclusive:mode=2:sleep=0",
        "Exclusive:mode=1:sleep=0",
        "TwoStage:mode=3",
    ];
    let chain: Vec<String> = (0..50).map(|i| format!("vsvkmodes.{}", kinds[i % kinds.len()])).collect();
    check(&chain.join(","));
}

/// A node consumed by two branches that meet again: $1 feeds $2 and $3, Merge joins them.
#[test]
fn diamond() {
    check("vsvkmodes.Parallel,vsvkmodes.Unordered,vsvkmodes.FrameState:@:clip=$1,vsvkmodes.Merge:@:clipa=$2:clipb=$3,vsvkmodes.ParallelRequests");
}

/// Diamonds inside diamonds, with serial nodes shared by both branches and a branch that skips a level.
#[test]
fn nested_diamonds() {
    let chain = [
        "vsvkmodes.FrameState:radius=1",                           // $1
        "vsvkmodes.Parallel",                                      // $2 <- $1
        "vsvkmodes.TwoStage:@:clip=$1",                            // $3 <- $1
        "vsvkmodes.Merge:@:clipa=$2:clipb=$3",                     // $4
        "vsvkmodes.Unordered:radius=1",                            // $5 <- $4
        "vsvkmodes.Cached:@:clip=$4",                              // $6 <- $4
        "vsvkmodes.Merge:@:clipa=$5:clipb=$6",                     // $7
        "vsvkmodes.Merge:@:clipa=$7:clipb=$1",                     // $8: joins the top again
        "vsvkmodes.Exclusive:mode=3:sleep=0",                      // $9
    ];
    check(&chain.join(","));
}

/// A clip much longer than the requests in flight, so that the window of requests slides along it.
#[test]
fn long_clip_sliding_window() {
    let chain = "vsvkmodes.Parallel,vsvkmodes.TwoStage:mode=3,vsvkmodes.Cached,vsvkmodes.Unordered:radius=3,vsvkmodes.Exclusive:mode=1:sleep=0";
    check_with("YUV420P8", &["--frames", "300"], chain);
}

// ---- errors under load --------------------------------------------------------------------------------

/// A frame that fails in a filter far up a chain fails every frame that needs it, with the filter's
/// own message, on both cores and whatever the threads; nothing hangs.
#[test]
fn errors_under_load() {
    let chain = "vsvkmodes.Fail:fail=7,vsvkmodes.Parallel,vsvkmodes.FrameState:radius=1,vsvkmodes.TwoStage:mode=2,vsvkmodes.Cached";
    let mut failures = String::new();
    for core in [reference_core(), our_core()] {
        for mode in SPREAD {
            match fingerprint(&core, "YUV420P8", chain, mode) {
                // which failed frame is reported first depends on timing; the message must not
                Err(e) if e.ends_with("Fail: frame 7 fails on purpose") && e.contains(": error: frame ") => {}
                other => {
                    let _ = writeln!(failures, "{} [{}]: {other:?}", core_name(&core), mode.join(" "));
                }
            }
        }
    }
    assert!(failures.is_empty(), "want every run to fail with 'Fail: frame 7 fails on purpose':\n{failures}");
}
