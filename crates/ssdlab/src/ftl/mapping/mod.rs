//! Where the logical-to-physical map lives and what keeping it costs.

pub mod cache;
pub mod dftl;
pub mod fast;
pub mod vfc;
