//! What vsvk-plugin-api offers plugins beyond what std's filters exercise, through the test plugin
//! tests/apiplugin (namespace vsvkapi) loaded on R81 and on our core by the oracle driver:
//!
//! * `Node::set_linear_filter`: what `setLinearFilter` returns (carried on every frame as
//!   `LinearHint`; R81 answers the thread count plus ten) is the same on both cores, whatever the
//!   thread count, and a linear node's frames are the clip's.
//! * `FrameMut::field_of` where no core shares rows (a plugin library has no views table, so R81
//!   and our core alike take the copying path): each field is std.SeparateFields' on R81.
//!
//! Needs `scripts/setup.sh`, our core and the plugin built in release mode (`cargo build
//! --release`; the plugin is target/release/libvsvk_apitest.so, or $VSVK_APITEST_PLUGIN).

use std::path::PathBuf;

use vsvk_tests::oracle::{check_in, reference_core, run, Case};
use vsvk_tests::reference;

fn plugin() -> PathBuf {
    let p = std::env::var_os("VSVK_APITEST_PLUGIN").map(PathBuf::from).unwrap_or_else(|| reference::target_dir().join("release/libvsvk_apitest.so"));
    assert!(p.is_file(), "the test plugin {} is missing: build it with `cargo build --release -p vsvk-apitest`", p.display());
    p
}

fn video(format: &str, chain: &str) -> Case {
    Case::sized(format, 64, 48, 10, chain).with_plugin(&plugin())
}

#[test]
fn set_linear_filter_returns_what_r81_returns() {
    let modes: [&[&str]; 3] = [&["--threads", "1"], &["--threads", "3"], &["--threads", "8", "--requests", "16"]];
    check_in(&video("YUV420P8", "vsvkapi.Linear"), &modes);
    check_in(&video("YUV420P8", "vsvkapi.Linear,std.Reverse,vsvkapi.Linear"), &modes);
    // R81's answer, which ours must be: the thread count plus ten
    for core in [reference_core(), reference::our_core().unwrap_or_else(|e| panic!("{e}"))] {
        let r = run(&core, &video("Gray8", "vsvkapi.Linear"), &["--threads", "3", "--props"]);
        assert!(r.ok() && r.stderr.lines().any(|l| l.trim() == "prop LinearHint type=1: 13"), "{}: {}\n{}", core.display(), r.line, r.stderr);
    }
}

#[test]
fn copied_fields_are_separate_fields() {
    for format in ["Gray8", "YUV420P8", "YUV422P10", "YUV444P16", "YUV440P8", "RGBS", "YUV420PH"] {
        for bottom in [0, 1] {
            let want = run(&reference_core(), &video(format, &format!("std.SeparateFields:tff=1:modify_duration=0,std.SelectEvery:cycle=2:offsets={bottom}:modify_duration=0,std.RemoveFrameProps")), &[]);
            assert!(want.ok(), "{format}: {}", want.line);
            for core in [reference_core(), reference::our_core().unwrap_or_else(|e| panic!("{e}"))] {
                let got = run(&core, &video(format, &format!("vsvkapi.Field:bottom={bottom},std.RemoveFrameProps")), &[]);
                assert_eq!(got.fingerprint(), want.fingerprint(), "{} {format} bottom={bottom}\n{}", core.display(), got.stderr_tail());
            }
        }
    }
}
