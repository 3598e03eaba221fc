//! Test helpers shared by the integration tests: locating the reference and our core.

pub mod reference;
