//! ssdlab: a fast, deterministic, trace-driven NAND-flash SSD simulator.
//!
//! Layers (see docs/architecture.md): `workload` → host (in `sim`) →
//! `buffer` → `ftl` → `sched` → `flash`, driven by the discrete-event
//! `engine`, measured by `metrics`, configured by `config` presets.

pub mod addr;
pub mod buffer;
pub mod config;
pub mod engine;
pub mod error;
pub mod flash;
pub mod ftl;
pub mod hybrid;
pub mod mapping;
pub mod mem;
pub mod metrics;
pub mod sched;
pub mod scheme;
pub mod sim;
pub mod validate;
pub mod victim;
pub mod workload;

pub use config::Config;
pub use error::{Error, Result};
pub use metrics::Report;
pub use sim::{Precondition, Simulator};
