//! Test helpers shared by the integration tests: locating the reference and our core, and the oracle
//! harness that runs chains on both.

pub mod oracle;
pub mod process;
pub mod reference;
pub mod vk;
