//! std.SetMaxCPU: caps the instruction sets the built-in filters may use. Our filters have one
//! code path whose results do not depend on the level, so the level is recorded and reported
//! (the call returns the previous level, as the reference does) without changing output.
use std::sync::Arc;

use crate::core::Core;
use crate::map::Map;

pub const LEVELS: [&str; 4] = ["none", "sse2", "avx2", "avx512"];

pub fn register(r: &super::Registrar) {
    r.add("SetMaxCPU", "cpu:data;", "cpu:data;", set_max_cpu);
}

fn set_max_cpu(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let level = super::util::Args(input).string("cpu").unwrap_or_default();
    // an empty level is taken and changes nothing, as in the reference
    if level.is_empty() {
        out.set_str("cpu", &core.max_cpu.lock());
        return Ok(());
    }
    if !LEVELS.contains(&level.as_str()) {
        return Err(format!("unknown cpu level: {level}"));
    }
    let previous = std::mem::replace(&mut *core.max_cpu.lock(), level);
    out.set_str("cpu", &previous);
    Ok(())
}
