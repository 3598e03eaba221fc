//! The promises the API documentation makes about the callbacks a core calls, checked by
//! tests/stress/callbacks.c on R81 and on our core.
//!
//! getFrameAsync: "the completion callback will only be called from a single thread at a time", and
//! getFrameAsync may be called from the callback. Hosts rely on it (R81's vspipe takes no lock of its
//! own and lost frames on a core that broke it). The program keeps 16 requests in flight on 8 threads,
//! each callback sleeping 0.3 ms and asking for the next frame itself, over a clip read twice (the
//! second time from the cache, so an answer can come on the very thread whose callback asked).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{core_name, our_core, program, reference_core, run, CALLBACKS, NOISE};

const LIMIT: Duration = Duration::from_secs(90);

/// Runs one check of the program; returns its "ok ..." line, or panics with what went wrong.
fn check(core: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new(program(CALLBACKS));
    cmd.arg(core).arg(program(NOISE)).args(args);
    let out = run(cmd, LIMIT);
    let line = out.stdout.lines().find(|l| l.starts_with("ok ") || l.starts_with("error:")).unwrap_or("").to_string();
    assert!(out.success() && line.starts_with("ok "), "callbacks {} on {} failed: {}", args.join(" "), core_name(core), out.describe());
    line
}

/// The value of `key=` in an "ok ..." line.
fn field(line: &str, key: &str) -> i64 {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key}= in '{line}'"))
}

#[test]
fn frame_done_callbacks_never_overlap() {
    for core in [reference_core(), our_core()] {
        for threads in ["8", "2"] {
            let line = check(&core, &["overlap", "--threads", threads, "--inflight", "16", "--frames", "300", "--sleep-us", "300"]);
            eprintln!("{} threads={threads}: {line}", core_name(&core));
            assert_eq!(field(&line, "frames"), 600, "{line}");
            assert_eq!(field(&line, "overlaps"), 0, "{}: callbacks overlapped with {threads} threads: {line}", core_name(&core));
            assert_eq!(field(&line, "nested"), 0, "{}: a callback ran inside another: {line}", core_name(&core));
        }
    }
}

/// getFrameAsync never calls back before it returns, even when the answer is at hand (a cached
/// frame, a frame number outside the clip): R81 starts every request on a worker, and a host may
/// hold a lock around the call that its callback takes.
#[test]
fn frame_done_callbacks_never_run_inside_get_frame_async() {
    for core in [reference_core(), our_core()] {
        let line = check(&core, &["inline"]);
        assert_eq!(field(&line, "requests"), 6, "{line}");
        assert_eq!(field(&line, "inline"), 0, "{}: callbacks ran inside getFrameAsync: {line}", core_name(&core));
    }
}

/// addLogHandler: "If no log handler is installed up to a few hundred messages are cached and will
/// be delivered as soon as a log handler is attached." They go, in order, to the first handler added
/// and to no later one; what does not fit is counted in a last warning. With no handler, nothing is
/// printed. Each handler's free runs once, after its last call, on removal or in freeCore.
#[test]
fn log_messages_wait_for_a_handler() {
    for core in [reference_core(), our_core()] {
        let mut cmd = Command::new(program(CALLBACKS));
        cmd.arg(&core).arg(program(NOISE)).arg("log");
        let out = run(cmd, LIMIT);
        assert!(out.success() && out.stdout.starts_with("ok "), "log on {}: {}", core_name(&core), out.describe());
        let line = out.stdout.trim();
        assert_eq!(field(line, "replayed"), 4, "{line}");
        assert_eq!(field(line, "second"), 0, "{line}");
        // "a few hundred" short messages
        assert!((200..2000).contains(&field(line, "kept")), "{}: {line}", core_name(&core));
        assert!(out.stderr.trim().is_empty(), "{}: messages went to stderr with no handler installed:\n{}", core_name(&core), out.stderr);
    }
}

/// The free callbacks of createFunction and createVideoFilter2 run once, after the last call of
/// what they free, with frame requests in flight when the node is freed (on R81 only after the
/// callbacks: it crashes otherwise).
#[test]
fn free_callbacks_run_once_after_the_last_call() {
    for (core, args) in [(reference_core(), &["free", "--wait"][..]), (our_core(), &["free", "--wait"][..]), (our_core(), &["free"][..])] {
        let line = check(&core, args);
        assert_eq!(field(&line, "function_frees"), 1, "{line}");
        assert_eq!(field(&line, "filter_frees"), 1, "{line}");
        assert_eq!(field(&line, "calls_after_free"), 0, "{}: {line}", core_name(&core));
    }
}
