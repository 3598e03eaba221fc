//! The end of the process for a misuse the API defines as fatal. It sits at the bottom, in the GPU
//! crate (the lowest that needs it), so that the GPU half and the runtime's own modules (frames,
//! nodes, the scheduler, which reach it as vsvk-core's `fatal`) can be fatal without reaching up
//! into the C ABI layer, which re-exports it for its entry points.

/// A misuse the API defines as fatal: the message names the call, then the process ends.
pub fn fatal(msg: &str) -> ! {
    eprintln!("vsvk: fatal: {msg}");
    std::process::abort();
}
