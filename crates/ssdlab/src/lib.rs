//! ssdlab: a fast, deterministic, trace-driven NAND-flash SSD simulator.
//!
//! Layers (see docs/architecture.md): `workload` → `host` → `buffer` →
//! `ftl` → `gc` → `sched` → `flash`, wired and driven by `sim` over the
//! discrete-event `engine`, measured by `metrics`, configured by `config`
//! and composed into named schemes by `scheme`.

pub mod addr;
pub mod buffer;
pub mod config;
pub mod domain;
pub mod engine;
pub mod flash;
pub mod ftl;
pub mod gc;
pub mod host;
pub mod mem;
pub mod metrics;
pub mod sched;
pub mod scheme;
pub mod sim;
pub mod types;
pub mod validate;

pub use ssdlab_workload as workload;
pub use ssdlab_workload::error;

pub use config::Config;
pub use error::{Error, Result};
pub use host::precondition::Precondition;
pub use metrics::Report;
pub use sim::{CdfPoint, Completion, Control, Progress, Simulator};
