//! The functions of the namespaces our core implements itself (std, resize, text) against R81's:
//! the same names with the same argument strings and return types, in the same order, so that a
//! script's calls resolve and its arguments are parsed alike on both cores.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{core_name, our_core, program, reference_core, run, DRIVER};

/// `ns.Name(args) -> returns`, one line a function, as the driver's --list prints them.
fn functions(core: &Path, ns: &str) -> Vec<String> {
    let mut cmd = Command::new(program(DRIVER));
    cmd.arg(core).arg("--list").arg(ns);
    let out = run(cmd, Duration::from_secs(60));
    assert!(out.success(), "{} --list {ns}: {}", core_name(core), out.describe());
    out.stdout.lines().map(str::to_string).collect()
}

fn same_namespace(ns: &str, at_least: usize) {
    let (ours, theirs) = (functions(&our_core(), ns), functions(&reference_core(), ns));
    assert!(theirs.len() >= at_least, "R81 lists only {} functions in {ns}: {theirs:#?}", theirs.len());
    let missing: Vec<_> = theirs.iter().filter(|l| !ours.contains(l)).collect();
    let extra: Vec<_> = ours.iter().filter(|l| !theirs.contains(l)).collect();
    assert!(missing.is_empty() && extra.is_empty(), "{ns}: R81's lines we lack or spell differently: {missing:#?}\nours that R81 lacks: {extra:#?}");
    assert_eq!(ours, theirs, "{ns}: the same functions in another order");
}

#[test]
fn std_functions_and_argument_strings() {
    same_namespace("std", 80);
}

#[test]
fn resize_functions_and_argument_strings() {
    same_namespace("resize", 8);
}

#[test]
fn text_functions_and_argument_strings() {
    same_namespace("text", 5);
}
