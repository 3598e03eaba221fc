//! Running a test program under a time limit, with the reference's library path, and collecting
//! what it printed.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::reference;

/// What a program run gave: None for the status when it was killed at the time limit.
pub struct Output {
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub secs: f64,
}

impl Output {
    pub fn timed_out(&self) -> bool {
        self.status.is_none()
    }
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }
    /// A line for failure messages: how it ended and the tails of both outputs.
    pub fn describe(&self) -> String {
        let tail = |s: &str| {
            let lines: Vec<&str> = s.lines().collect();
            lines[lines.len().saturating_sub(12)..].join("\n    ")
        };
        let end = match self.status {
            None => format!("killed after {:.0} s (hung?)", self.secs),
            Some(s) => format!("{s}"),
        };
        format!("{end}\n  stdout:\n    {}\n  stderr:\n    {}", tail(&self.stdout), tail(&self.stderr))
    }
}

/// Runs `cmd` with the reference's library path, killing it after `limit`.
pub fn run(mut cmd: Command, limit: Duration) -> Output {
    cmd.env("LD_LIBRARY_PATH", reference::library_path()).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    // drain both pipes on their own threads so that a chatty child never blocks
    let mut out_pipe = child.stdout.take().expect("piped stdout");
    let mut err_pipe = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out_pipe.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err_pipe.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for a child") {
            break Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
        secs: start.elapsed().as_secs_f64(),
    }
}
