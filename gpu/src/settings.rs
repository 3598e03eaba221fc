//! Environment settings shared by this crate and the runtime above it.

/// A size setting in KiB (`VSVK_..._KB`), in bytes; None where unset or not a number.
pub fn kb_setting(var: &str) -> Option<usize> {
    std::env::var(var).ok().and_then(|v| v.trim().parse::<usize>().ok()).map(|kb| kb << 10)
}

/// A measurement switch (`VSVK_...=1`): on only where set to 1.
pub fn switch_on(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v.trim() == "1")
}

/// A default a setting can turn off (`VSVK_...=0`): off only where set to 0.
pub fn switch_off(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v.trim() == "0")
}
