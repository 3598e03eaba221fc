//! zimg, statically linked. This crate holds no Rust API: `vsvk-core`'s `resize::zimg_sys`
//! declares the C functions it calls, and depending on this crate makes the linker find them.
//!
//! Why vendored rather than the system's libzimg: R81's `resize` is a zimg development snapshot
//! (it reports 3.0.6 and API 2.255) and its output differs from Debian 12's 3.0.4 in transfer
//! functions, white points and negative linear light. Building the same sources is the only way to
//! give R81's pixels. `upstream/VERSION` names the commits.
