//! The decoder under the filter, without a core: how often it seeks. Reading a file frame after
//! frame must not seek after the first frame, whatever the decoder's frame threads hold back (at
//! the end of the file too), and a read that goes back must seek once. Streams are made with
//! Debian's ffmpeg (scripts/setup.sh installs it).
use std::path::PathBuf;
use std::process::Command;

use vsvk_vkdecode::source::{Options, Source};

fn stream(name: &str, args: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(name);
    let src = "nullsrc=s=64x48:r=25,geq=lum=random(1)*255:cb=random(2)*255:cr=random(3)*255";
    let ok = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", src, "-frames:v", "90"])
        .args(args.split(' '))
        .arg(&file)
        .status()
        .expect("ffmpeg (scripts/setup.sh installs it)");
    assert!(ok.success(), "ffmpeg {args}");
    file
}

#[test]
fn linear_reads_never_seek_after_the_first_frame() {
    let file = stream("linear.mkv", "-c:v libx264 -preset veryfast -bf 3 -g 30 -sc_threshold 0");
    for threads in [1, 4, 16] {
        let mut s = Source::open(&file, &Options { threads, cache: 4, hw: None }).expect("open");
        assert_eq!(s.info().frames, 90);
        for n in 0..90 {
            s.frame(n).unwrap_or_else(|e| panic!("frame {n} at {threads} threads: {e}"));
        }
        assert_eq!(s.seeks(), 1, "{threads} threads: seeks over a linear read (the one at open counts)");
        // back into the first GOP: one seek, then reading on again without any
        s.frame(5).expect("frame 5");
        for n in 6..40 {
            s.frame(n).expect("frame");
        }
        assert_eq!(s.seeks(), 2, "{threads} threads: seeks after going back once");
    }
}
