//! ssdlab: a fast, deterministic, trace-driven NAND-flash SSD simulator.
//!
//! Layers (see docs/architecture.md): `workload` → host (in `sim`) →
//! `buffer` → `ftl` → `sched` → `flash`, driven by the discrete-event
//! `engine`, measured by `metrics`, configured by `config` presets.

pub mod addr;
pub mod buffer;
pub mod config;
pub mod engine;
pub use ssdlab_workload::error;
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
pub use ssdlab_workload as workload;

pub use config::Config;
pub use error::{Error, Result};
pub use metrics::Report;
pub use sim::{Precondition, Simulator};
