//! The end of the process for a misuse the API defines as fatal. It sits at the bottom so that the
//! runtime's own modules (frames, nodes, the scheduler, the GPU half) can be fatal without reaching
//! up into the C ABI layer, which re-exports it for its entry points.

/// A misuse the API defines as fatal: the message names the call, then the process ends.
pub(crate) fn fatal(msg: &str) -> ! {
    eprintln!("vsvk: fatal: {msg}");
    std::process::abort();
}
