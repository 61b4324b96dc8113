//! ssdlab: a fast, deterministic, trace-driven NAND-flash SSD simulator.
//!
//! The modules form layers (docs/architecture.md, "Layers"; checked by
//! `tests/layers.rs`), bottom to top: `addr`, `engine`, `mem`, `types`
//! (and the workload crate), `config`, `domain`, `flash`, `metrics`,
//! `sched`, `gc`, `ftl`, `buffer`, `host`, `scheme`, and `sim` (with
//! `validate`), which builds every layer and drives the event loop. A
//! request meets them top down: host, buffer, FTL, GC, scheduler, flash.

pub mod addr;
pub mod attribution;
pub mod buffer;
pub mod config;
pub mod domain;
pub mod engine;
pub mod flash;
pub mod ftl;
pub mod gc;
pub mod host;
pub mod hostif;
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
