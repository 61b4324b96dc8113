//! The host interface (`[interface]`): the link between host and drive and
//! the controller's own time. Absent (the default), or with both parts
//! absent, requests cross no link and the controller takes no time (the
//! model without a host interface). The model, its defaults and their
//! sources are in docs/fidelity.md ("Host interface and controller").

use super::*;
use crate::error::{Error, Result};

/// `[interface]` (module documentation).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Interface {
    /// The link requests, their data and their completions cross.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<Link>,
    /// The controller: its DRAM and its firmware's time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<Controller>,
}

/// `interface.link`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Link {
    /// NVMe over PCI Express: full duplex, `lanes` lanes of generation
    /// `generation` (1–5), transaction layer packets of at most
    /// `max_payload` bytes of data.
    Pcie {
        generation: u32,
        lanes: u32,
        #[serde(default = "default_max_payload")]
        max_payload: u32,
    },
    /// Serial ATA 6 Gb/s (revision 3): half duplex, one direction at a time.
    Sata,
}

fn default_max_payload() -> u32 {
    256
}

/// `interface.controller`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Controller {
    /// The controller's DRAM (one channel): write-buffer admissions, buffer
    /// hits, evictions and mapping-table accesses take its time. Absent: no
    /// DRAM time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dram: Option<Dram>,
    /// Firmware time per command (ns), before its pages start.
    pub firmware_ns_per_command: u64,
    /// Firmware time per page of a command (ns).
    pub firmware_ns_per_page: u64,
    /// Bytes of one mapping-table entry: each page of a command reads (a
    /// read) or updates (a write) one entry in DRAM. 0: the mapping table
    /// is not in the DRAM's time.
    pub map_entry_bytes: u32,
    /// An evicted page is read out of DRAM before its program (false: the
    /// flush takes the data from where the host transfer put it, no DRAM
    /// read).
    pub eviction_reads: bool,
}

impl Default for Controller {
    fn default() -> Controller {
        Controller {
            dram: None,
            firmware_ns_per_command: 0,
            firmware_ns_per_page: 0,
            map_entry_bytes: 4,
            eviction_reads: true,
        }
    }
}

/// How a DRAM access's time is computed.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DramTiming {
    /// The datasheet model: each row of an access is opened (tRCD), its
    /// first column read after the CAS latency (tCL) and its bursts
    /// transferred; a next row waits for the precharge (tRP).
    #[default]
    Datasheet,
    /// MQSim's estimate (`--conventions mqsim`), as MQSim computes it,
    /// beyond one row included (docs/fidelity.md).
    Mqsim,
}

/// `interface.controller.dram`: one DRAM channel. Defaults: DDR3L-1600,
/// one x16 device (Micron's 4 Gb DDR3L datasheet, speed grade -125).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Dram {
    /// Transfers per second on the data bus, in millions (DDR: twice the
    /// clock).
    pub transfer_rate_mts: u32,
    /// Data bus width in bytes.
    pub bus_bytes: u32,
    /// Transfers per burst (BL).
    pub burst_length: u32,
    /// Bytes of one row (the page size of the datasheet).
    pub row_bytes: u32,
    pub trcd_ns: f64,
    pub tcl_ns: f64,
    pub trp_ns: f64,
    pub timing: DramTiming,
}

impl Default for Dram {
    fn default() -> Dram {
        Dram {
            transfer_rate_mts: 1600,
            bus_bytes: 2,
            burst_length: 8,
            row_bytes: 2048,
            trcd_ns: 13.75,
            tcl_ns: 13.75,
            trp_ns: 13.75,
            timing: DramTiming::Datasheet,
        }
    }
}

/// The longest one DRAM timing or firmware time may be (1 ms): longer
/// values are unit typos.
const MAX_STEP_NS: f64 = 1e6;

impl Interface {
    /// Whether any part is on.
    pub fn is_on(&self) -> bool {
        self.link.is_some() || self.controller.is_some()
    }

    /// Check the values, naming the key of a bad one.
    pub(crate) fn validate(&self, origin: &str) -> Result<()> {
        let err = |f: &str, m: String| Err(Error::config(origin, f, m));
        if let Some(Link::Pcie {
            generation,
            lanes,
            max_payload,
        }) = &self.link
        {
            if !(1..=5).contains(generation) {
                return err(
                    "interface.link.generation",
                    format!("{generation} is not a PCI Express generation (1 to 5)"),
                );
            }
            if ![1, 2, 4, 8, 16].contains(lanes) {
                return err(
                    "interface.link.lanes",
                    format!("{lanes} lanes: a PCI Express link has 1, 2, 4, 8 or 16"),
                );
            }
            if !max_payload.is_power_of_two() || !(128..=4096).contains(max_payload) {
                return err(
                    "interface.link.max_payload",
                    format!(
                        "{max_payload} bytes: the maximum payload size is 128, 256, 512, 1024, 2048 or 4096"
                    ),
                );
            }
        }
        let Some(c) = &self.controller else {
            return Ok(());
        };
        for (f, v) in [
            (
                "interface.controller.firmware_ns_per_command",
                c.firmware_ns_per_command,
            ),
            (
                "interface.controller.firmware_ns_per_page",
                c.firmware_ns_per_page,
            ),
        ] {
            if v as f64 > MAX_STEP_NS {
                return err(
                    f,
                    format!("{v} ns is over 1 ms of firmware time; times are in ns"),
                );
            }
        }
        if c.map_entry_bytes > 64 {
            return err(
                "interface.controller.map_entry_bytes",
                format!(
                    "{} bytes is larger than any mapping entry (at most 64)",
                    c.map_entry_bytes
                ),
            );
        }
        let Some(d) = &c.dram else { return Ok(()) };
        let k = |s: &str| format!("interface.controller.dram.{s}");
        for (f, v, lo, hi) in [
            ("transfer_rate_mts", d.transfer_rate_mts, 1, 100_000),
            ("bus_bytes", d.bus_bytes, 1, 64),
            ("burst_length", d.burst_length, 1, 64),
            ("row_bytes", d.row_bytes, 1, 1 << 20),
        ] {
            if !(lo..=hi).contains(&v) {
                return err(&k(f), format!("{v} is outside {lo} to {hi}"));
            }
        }
        if d.row_bytes % (d.bus_bytes * d.burst_length) != 0 {
            return err(
                &k("row_bytes"),
                format!(
                    "{} is not a whole number of bursts ({} bytes: bus_bytes × burst_length)",
                    d.row_bytes,
                    d.bus_bytes * d.burst_length
                ),
            );
        }
        for (f, v) in [
            ("trcd_ns", d.trcd_ns),
            ("tcl_ns", d.tcl_ns),
            ("trp_ns", d.trp_ns),
        ] {
            if !v.is_finite() || !(0.0..=MAX_STEP_NS).contains(&v) {
                return err(
                    &k(f),
                    format!("{v} ns: a DRAM timing is between 0 and 1 ms, in ns"),
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Config {
        Config::preset("small").unwrap()
    }

    fn error_of(set: &str) -> String {
        let e = small().with_overrides(&[set.to_string()]).unwrap_err();
        e.to_string()
    }

    #[test]
    fn absent_by_default_and_not_written() {
        for (p, _) in Config::preset_names() {
            let c = Config::preset(p).unwrap();
            assert!(c.interface.is_none());
            assert!(!toml::to_string(&c).unwrap().contains("interface"));
        }
    }

    #[test]
    fn bad_values_name_their_key() {
        for (set, key) in [
            (
                r#"interface.link={ kind = "pcie", generation = 3, lanes = 0 }"#,
                "interface.link.lanes",
            ),
            (
                r#"interface.link={ kind = "pcie", generation = 6, lanes = 4 }"#,
                "interface.link.generation",
            ),
            (
                r#"interface.link={ kind = "pcie", generation = 3, lanes = 4, max_payload = 100 }"#,
                "interface.link.max_payload",
            ),
            (
                "interface.controller={ dram = { bus_bytes = 0 } }",
                "interface.controller.dram.bus_bytes",
            ),
            (
                "interface.controller={ dram = { trcd_ns = -1.0 } }",
                "interface.controller.dram.trcd_ns",
            ),
            (
                "interface.controller={ dram = { row_bytes = 1000 } }",
                "interface.controller.dram.row_bytes",
            ),
            (
                "interface.controller={ firmware_ns_per_command = 2000000 }",
                "interface.controller.firmware_ns_per_command",
            ),
        ] {
            let e = error_of(set);
            assert!(e.contains(key), "{set}: {e}");
        }
        // An unknown link kind or key is refused by name.
        let e = error_of(r#"interface.link={ kind = "usb" }"#);
        assert!(e.contains("usb"), "{e}");
        let e = error_of("interface.controller={ dram_speed = 3 }");
        assert!(e.contains("dram_speed"), "{e}");
    }

    #[test]
    fn parts_set_one_by_one_add_up() {
        let c = small()
            .with_overrides(&[
                r#"interface.link={ kind = "sata" }"#.into(),
                "interface.controller={ firmware_ns_per_page = 10 }".into(),
                "interface.controller.dram={}".into(),
            ])
            .unwrap();
        let i = c.interface.unwrap();
        assert_eq!(i.link, Some(Link::Sata));
        let ctl = i.controller.unwrap();
        assert_eq!(ctl.firmware_ns_per_page, 10);
        assert_eq!(ctl.dram, Some(Dram::default()));
        // Other overrides leave it out.
        let c = small().with_overrides(&["seed=3".into()]).unwrap();
        assert!(c.interface.is_none());
    }

    #[test]
    fn attribution_composes_with_it() {
        let c = small()
            .with_overrides(&[
                "metrics.attribution=true".into(),
                r#"interface.link={ kind = "sata" }"#.into(),
            ])
            .unwrap();
        assert!(c.attribution_host_part());
        assert!(!small().attribution_host_part());
    }
}
