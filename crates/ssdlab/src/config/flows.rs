//! Several flows (tenants) in one run: the `[[flows]]` table, each flow's
//! workload, start, queue, priority class and address space, and the
//! `[queues]` table (the host interface's protocol, its arbitration among
//! the flows' submission queues, and the commands the device takes at
//! once). Both are absent by default and then not written, so a
//! configuration without them is the one-host run it always was.

use serde::{Deserialize, Serialize};

use super::{AddressMode, Config, HostMode};
use crate::error::{Error, Result};

/// Most I/O submission queues an NVMe controller can have (the NVMe base
/// specification's limit, 65 535 I/O queue pairs).
pub const NVME_MAX_QUEUES: u32 = 65_535;
/// Most entries of an NVMe I/O submission queue (64 Ki).
pub const NVME_MAX_QUEUE_DEPTH: u32 = 65_536;
/// Entries of SATA's native command queue (NCQ).
pub const SATA_NCQ_DEPTH: u32 = 32;

/// Does an override (`key=value`, as `--set` takes it) name a key that only
/// makes sense once a run's flows are known, so that it is applied after
/// them: the queues', the scheduler's (FLIN needs flows), and the sharing
/// of the write buffer and of DFTL's map cache among flows?
pub fn set_after_flows(set: &str) -> bool {
    let s = set.trim_start();
    s.starts_with("queues.")
        || s.starts_with("sched.")
        || s.starts_with("buffer.sharing")
        || s.starts_with("ftl.mapping_cache_sharing")
}

/// One flow: a workload with its own queue in the host.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Its name in results.
    pub name: String,
    /// Its workload: exactly one of a built-in profile's name (`workload`),
    /// a trace file (`trace`) or a synthetic profile file (`synthetic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synthetic: Option<String>,
    /// At most this many of its requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// Its first request arrives this long after the run starts, µs (its
    /// later ones keep their gaps).
    #[serde(default)]
    pub start_us: f64,
    /// Entries of its submission queue: requests of the flow in the device
    /// or waiting in its queue; more wait in the host (counted in their
    /// latency, and reported apart as the host queue wait).
    #[serde(default = "default_flow_queue_depth")]
    pub queue_depth: u32,
    /// Its queue's priority class under weighted round robin.
    #[serde(default)]
    pub priority: Priority,
    /// Its own namespace: logical pages `first_page .. first_page + pages`
    /// of the drive, its byte addresses from 0 (absent: the drive's whole
    /// logical space, shared with the other flows that have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<Namespace>,
    /// Its partition of the flash (MQSim's resource partitioning): the
    /// channels, the chips of each channel, the dies of each chip and the
    /// planes of each die its pages may go to, each an index within its
    /// parent; an absent list is every one. The partition is the planes
    /// of every combination. Needs the flow's own namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chips: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dies: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planes: Option<Vec<u32>>,
}

impl FlowConfig {
    /// A flow named `name` running the built-in workload of that name,
    /// every other key at its default (start at once, queue depth 32,
    /// medium priority, the shared address space, the whole drive).
    pub fn of_workload(name: &str) -> FlowConfig {
        FlowConfig {
            name: name.into(),
            workload: Some(name.into()),
            trace: None,
            synthetic: None,
            limit: None,
            start_us: 0.0,
            queue_depth: default_flow_queue_depth(),
            priority: Priority::default(),
            namespace: None,
            channels: None,
            chips: None,
            dies: None,
            planes: None,
        }
    }

    /// Does the flow confine its pages to a partition of the flash?
    pub fn partitioned(&self) -> bool {
        self.channels.is_some()
            || self.chips.is_some()
            || self.dies.is_some()
            || self.planes.is_some()
    }

    /// The first partition key given (for errors about the partition as a whole).
    pub(crate) fn partition_key(&self) -> &'static str {
        if self.channels.is_some() {
            "channels"
        } else if self.chips.is_some() {
            "chips"
        } else if self.dies.is_some() {
            "dies"
        } else {
            "planes"
        }
    }
}

fn default_flow_queue_depth() -> u32 {
    32
}

/// A flow's exclusive range of logical pages.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Namespace {
    pub first_page: u64,
    pub pages: u64,
}

/// NVMe's arbitration classes: urgent is served strictly first, the other
/// three by weighted round robin.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    Urgent,
    High,
    #[default]
    Medium,
    Low,
}

impl Priority {
    pub fn name(self) -> &'static str {
        match self {
            Priority::Urgent => "urgent",
            Priority::High => "high",
            Priority::Medium => "medium",
            Priority::Low => "low",
        }
    }
}

/// The host interface's command queueing.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// One submission queue per flow, served by `queues.arbitration`.
    #[default]
    Nvme,
    /// One native command queue of 32 entries shared by every flow, served
    /// in order of arrival.
    Sata,
}

/// How the device picks the submission queue it fetches from next.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Arbitration {
    /// Round robin over the queues, whatever their class.
    #[default]
    Rr,
    /// Weighted round robin with an urgent class.
    Wrr,
}

/// Weighted round robin's weights of the high, medium and low classes.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    pub high: u32,
    pub medium: u32,
    pub low: u32,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights {
            high: 4,
            medium: 2,
            low: 1,
        }
    }
}

/// `[queues]`: the flows' queues and their arbitration.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Queues {
    #[serde(default)]
    pub protocol: Protocol,
    #[serde(default)]
    pub arbitration: Arbitration,
    #[serde(default)]
    pub weights: Weights,
    /// Arbitration burst: most commands fetched from one queue per turn.
    #[serde(default = "one")]
    pub burst: u32,
    /// Commands the device holds at once (fetched, not completed). Absent:
    /// NVMe the sum of the flows' queue depths (every queued command is
    /// fetched at once), SATA 32.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_slots: Option<u32>,
    /// I/O submission queues the controller offers (NVMe; at most 65 535).
    #[serde(default = "nvme_queues")]
    pub max_queues: u32,
}

fn one() -> u32 {
    1
}

fn nvme_queues() -> u32 {
    NVME_MAX_QUEUES
}

impl Default for Queues {
    fn default() -> Queues {
        Queues {
            protocol: Protocol::Nvme,
            arbitration: Arbitration::Rr,
            weights: Weights::default(),
            burst: 1,
            device_slots: None,
            max_queues: NVME_MAX_QUEUES,
        }
    }
}

impl Config {
    /// Does latency attribution report the `host` part (time in the host's
    /// queue and the interface's stages)? With flows or the interface on.
    pub fn attribution_host_part(&self) -> bool {
        !self.flows.is_empty() || self.interface.as_ref().is_some_and(|i| i.is_on())
    }

    /// The queues' configuration in force (the defaults without `[queues]`).
    pub fn queues_or_default(&self) -> Queues {
        self.queues.unwrap_or_default()
    }

    /// Commands the device holds at once with these flows.
    pub fn device_slots(&self) -> u32 {
        let q = self.queues_or_default();
        match (q.device_slots, q.protocol) {
            (Some(n), _) => n,
            (None, Protocol::Sata) => SATA_NCQ_DEPTH,
            (None, Protocol::Nvme) => self
                .flows
                .iter()
                .map(|f| f.queue_depth)
                .fold(0u32, u32::saturating_add),
        }
    }

    /// The flows' values, each error naming the flow and its key.
    pub(crate) fn validate_flows(&self, origin: &str) -> Result<()> {
        if self.flows.is_empty() {
            if self.queues.is_some() {
                return Err(Error::config(
                    origin,
                    "queues",
                    "arbitrates among flows: give [[flows]] (or --flow) too",
                ));
            }
            return self.validate_partitions(origin);
        }
        let q = self.queues_or_default();
        let qerr = |f: &str, m: String| Err(Error::config(origin, f, m));
        if q.burst == 0 {
            return qerr("queues.burst", "must be at least 1".into());
        }
        for (k, w) in [
            ("queues.weights.high", q.weights.high),
            ("queues.weights.medium", q.weights.medium),
            ("queues.weights.low", q.weights.low),
        ] {
            if w == 0 {
                return qerr(
                    k,
                    "a weight of 0 would never serve its class: at least 1".into(),
                );
            }
        }
        if q.max_queues == 0 || q.max_queues > NVME_MAX_QUEUES {
            return qerr(
                "queues.max_queues",
                format!("{} is outside 1..={NVME_MAX_QUEUES}", q.max_queues),
            );
        }
        if q.device_slots == Some(0) {
            return qerr("queues.device_slots", "must be at least 1".into());
        }
        match q.protocol {
            Protocol::Nvme => {
                if self.flows.len() as u64 > q.max_queues as u64 {
                    return qerr(
                        "flows",
                        format!(
                            "{} flows need {} I/O submission queues, more than the {} the \
                             controller offers (queues.max_queues)",
                            self.flows.len(),
                            self.flows.len(),
                            q.max_queues
                        ),
                    );
                }
            }
            Protocol::Sata => {
                if q.arbitration != Arbitration::Rr {
                    return qerr(
                        "queues.arbitration",
                        "SATA has one command queue, served in order of arrival: no arbitration \
                         (use protocol = \"nvme\")"
                            .into(),
                    );
                }
                if let Some(n) = q.device_slots.filter(|&n| n > SATA_NCQ_DEPTH) {
                    return qerr(
                        "queues.device_slots",
                        format!("{n} is more than SATA's {SATA_NCQ_DEPTH} command queue entries"),
                    );
                }
            }
        }
        // What flows do not combine with (each reads one workload).
        let refuse = |key: &str, why: &str| {
            Err(Error::config(
                origin,
                key,
                format!("{why} is not supported with [[flows]]"),
            ))
        };
        if self.host.mode != HostMode::OpenLoop {
            return refuse(
                "host.mode",
                "closed loop (each flow's queue depth bounds its requests in flight)",
            );
        }
        if self.host.address_mode == AddressMode::Compact {
            return refuse("host.address_mode", "compact addressing");
        }
        if self.host.replays > 1 {
            return refuse("host.replays", "replaying the workload");
        }
        if self.host.page_types != "none" {
            return refuse("host.page_types", "a page-type specifying scheme");
        }
        let logical = self.logical_pages();
        let mut names = std::collections::HashSet::new();
        for (i, f) in self.flows.iter().enumerate() {
            let key = |k: &str| format!("flows[{i}].{k}");
            let ferr = |k: &str, m: String| {
                Err(Error::config(
                    origin,
                    key(k),
                    format!("flow `{}`: {m}", f.name),
                ))
            };
            if f.name.is_empty() {
                return Err(Error::config(origin, key("name"), "a flow needs a name"));
            }
            if !names.insert(f.name.as_str()) {
                return ferr("name", "two flows have this name".into());
            }
            let given = [&f.workload, &f.trace, &f.synthetic]
                .iter()
                .filter(|w| w.is_some())
                .count();
            if given != 1 {
                return ferr(
                    "workload",
                    format!(
                        "give exactly one of workload (a built-in profile), trace or synthetic, not {given}"
                    ),
                );
            }
            if f.limit == Some(0) {
                return ferr("limit", "must be at least 1".into());
            }
            if !(f.start_us.is_finite() && f.start_us >= 0.0 && f.start_us * 1e3 <= MAX_START_NS) {
                return ferr(
                    "start_us",
                    format!("{} is outside [0, 2^62 ns] (146 years)", f.start_us),
                );
            }
            if f.queue_depth == 0 {
                return ferr(
                    "queue_depth",
                    "must be at least 1 (a queue of 0 entries takes no request)".into(),
                );
            }
            let most = match q.protocol {
                Protocol::Nvme => NVME_MAX_QUEUE_DEPTH,
                Protocol::Sata => SATA_NCQ_DEPTH,
            };
            if f.queue_depth > most {
                return ferr(
                    "queue_depth",
                    format!(
                        "{} is more than the {most} entries a {} queue has",
                        f.queue_depth,
                        match q.protocol {
                            Protocol::Nvme => "NVMe submission",
                            Protocol::Sata => "SATA native command",
                        }
                    ),
                );
            }
            if q.protocol == Protocol::Sata && f.priority != Priority::Medium {
                return ferr(
                    "priority",
                    "SATA's one queue has no priority classes (use protocol = \"nvme\")".into(),
                );
            }
            if let Some(ns) = f.namespace {
                if ns.pages == 0 {
                    return ferr("namespace.pages", "must be at least 1".into());
                }
                match ns.first_page.checked_add(ns.pages) {
                    Some(end) if end <= logical => {}
                    _ => {
                        return ferr(
                            "namespace",
                            format!(
                                "pages {}..{} go beyond the drive's {logical} logical pages",
                                ns.first_page,
                                ns.first_page as u128 + ns.pages as u128
                            ),
                        )
                    }
                }
                for (j, g) in self.flows[..i].iter().enumerate() {
                    if let Some(other) = g.namespace {
                        if ns.first_page < other.first_page + other.pages
                            && other.first_page < ns.first_page + ns.pages
                        {
                            return ferr(
                                "namespace",
                                format!(
                                    "pages {}..{} overlap flow `{}`'s namespace (flows[{j}], pages {}..{})",
                                    ns.first_page,
                                    ns.first_page + ns.pages,
                                    g.name,
                                    other.first_page,
                                    other.first_page + other.pages
                                ),
                            );
                        }
                    }
                }
            }
        }
        self.validate_partitions(origin)
    }
}

/// Latest start of a flow, ns.
const MAX_START_NS: f64 = crate::workload::input::MAX_TIME_NS as f64;
