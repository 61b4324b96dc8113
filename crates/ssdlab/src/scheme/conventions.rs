//! Named conventions: how another simulator accounts for what ssdlab can
//! model more than one way (when a buffered write is acknowledged, when the
//! buffer flushes, how reads of never-written pages are served), as a set
//! of configuration overrides — so that ssdlab's figures can be put beside
//! that simulator's on the same trace. Unlike a scheme, a set of conventions
//! is not an FTL design: it applies on top of any scheme.
//!
//! docs/fidelity.md ("Agreement with MQSim and SSDSim") gives the evidence
//! for each convention and the figures with and without them.

use crate::config::Config;
use crate::error::Result;

/// A named set of conventions.
#[derive(Debug)]
pub struct Conventions {
    pub name: &'static str,
    pub description: &'static str,
    /// Overrides (`key=value`, as for `--set`).
    pub overrides: &'static [&'static str],
    /// The preconditioning a run gets when it asks for none.
    pub precondition: Option<&'static str>,
}

impl Conventions {
    /// `cfg` under these conventions.
    pub fn apply(&self, cfg: &Config) -> Result<Config> {
        let overrides: Vec<String> = self.overrides.iter().map(|s| s.to_string()).collect();
        cfg.with_overrides(&overrides)
    }
}

/// Every set of conventions `--conventions` accepts.
pub const CONVENTIONS: &[Conventions] = &[
    Conventions {
        name: "ssdlab",
        description: "ssdlab's own defaults: a buffered write waits for a free slot, the buffer flushes only when a write finds none, a slot frees when its page is programmed",
        overrides: &[],
        precondition: None,
    },
    Conventions {
        name: "mqsim",
        description: "MQSim's (ADVANCED write cache): every admitted page goes to flash at once and the write is acknowledged once its data is in DRAM; host reads ahead of queued writes; a page read before it was ever written is mapped (--precondition trace-reads unless another is given); NVMe over PCIe 3.0 x4 with 128-byte packets and MQSim's DRAM and its estimate of DRAM time (shipped ssdconfig.xml), no firmware time",
        overrides: &[
            "buffer.free_watermark=1",
            "buffer.free_watermark_high=1",
            "sched.policy=read-priority",
            "interface.link={ kind = \"pcie\", generation = 3, lanes = 4, max_payload = 128 }",
            "interface.controller={ map_entry_bytes = 0, eviction_reads = false, dram = { transfer_rate_mts = 200, bus_bytes = 1, burst_length = 2, row_bytes = 8192, trcd_ns = 13.0, tcl_ns = 13.0, trp_ns = 13.0, timing = \"mqsim\" } }",
        ],
        precondition: Some("trace-reads"),
    },
];

/// The conventions named `name`.
pub fn by_name(name: &str) -> Result<&'static Conventions> {
    super::named(CONVENTIONS, name, "conventions", "known", |c| c.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_set_applies_to_every_preset() {
        for c in CONVENTIONS {
            for (p, _) in Config::preset_names() {
                let cfg = Config::preset(p).unwrap();
                let out = c.apply(&cfg).unwrap();
                out.validate(p).unwrap();
            }
        }
        assert!(by_name("nope").is_err());
    }
}
