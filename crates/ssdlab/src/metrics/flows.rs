//! Per-flow figures (`[[flows]]`): each flow's latency distribution (reads,
//! writes, all), throughput, time waiting in the host for a queue entry,
//! time its writes waited behind GC; and, with alone runs, its slowdown and
//! the run's fairness as FLIN defines them (Tavakkol et al., "FLIN:
//! Enabling Fairness and Enhancing Performance in Modern NVMe Solid State
//! Drives", ISCA 2018): a flow's slowdown is its mean latency shared over
//! its mean latency alone, and fairness is the smallest slowdown over the
//! largest (1: every flow slowed alike).

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::engine::Time;

/// A flow's counters while the run goes.
pub struct FlowMetrics {
    pub name: String,
    pub priority: String,
    pub queue_depth: u32,
    /// Latency (from arrival in the host to completion), ns: read, write, all.
    lat: [Histogram<u64>; 3],
    lat_sum: [u128; 3],
    lat_max: [u64; 3],
    bytes: [u64; 2],
    /// Time from arrival in the host to the device fetching the command.
    wait: Histogram<u64>,
    wait_sum: u128,
    wait_max: u64,
    /// Time this flow's unbuffered host writes waited behind GC.
    gc_blocked_ns: u128,
    first_arrival: Option<Time>,
    last_completion: Time,
    /// Trims completed (not in the latency figures).
    trims: u64,
}

fn hist() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 1 << 50, 3).expect("valid histogram bounds")
}

impl FlowMetrics {
    pub fn new(name: &str, priority: &str, queue_depth: u32) -> FlowMetrics {
        FlowMetrics {
            name: name.to_string(),
            priority: priority.to_string(),
            queue_depth,
            lat: [hist(), hist(), hist()],
            lat_sum: [0; 3],
            lat_max: [0; 3],
            bytes: [0; 2],
            wait: hist(),
            wait_sum: 0,
            wait_max: 0,
            gc_blocked_ns: 0,
            first_arrival: None,
            last_completion: 0,
            trims: 0,
        }
    }

    /// The same flow, its figures restarted (the end of a warm-up).
    pub fn fresh(&self, now: Time) -> FlowMetrics {
        let mut f = FlowMetrics::new(&self.name, &self.priority, self.queue_depth);
        f.first_arrival = Some(now);
        f.last_completion = now;
        f
    }

    /// A request of this flow arrived in the host at `now`.
    pub fn arrived(&mut self, now: Time) {
        self.first_arrival.get_or_insert(now);
    }

    /// A request completed: `write` or a read (None: a trim), `lat` from its
    /// arrival in the host, `wait` of it in the host's queue.
    pub fn completed(&mut self, write: Option<bool>, bytes: u64, lat: u64, wait: u64, now: Time) {
        self.last_completion = self.last_completion.max(now);
        let Some(write) = write else {
            self.trims += 1;
            return;
        };
        for i in [write as usize, 2] {
            self.lat[i].saturating_record(lat.max(1));
            self.lat_sum[i] += lat as u128;
            self.lat_max[i] = self.lat_max[i].max(lat);
        }
        self.bytes[write as usize] += bytes;
        self.wait.saturating_record(wait.max(1));
        self.wait_sum += wait as u128;
        self.wait_max = self.wait_max.max(wait);
    }

    pub fn gc_blocked(&mut self, ns: u64) {
        self.gc_blocked_ns += ns as u128;
    }

    pub fn report(&self) -> FlowReport {
        let start = self.first_arrival.unwrap_or(0);
        let span = self.last_completion.saturating_sub(start).max(1) as f64 / 1e9;
        let lat = |i: usize| {
            let h = &self.lat[i];
            let q = |p: f64| {
                if h.is_empty() {
                    0.0
                } else {
                    h.value_at_quantile(p).min(self.lat_max[i]) as f64 / 1e3
                }
            };
            FlowLatency {
                count: h.len(),
                mean: if h.is_empty() {
                    0.0
                } else {
                    self.lat_sum[i] as f64 / h.len() as f64 / 1e3
                },
                p50: q(0.5),
                p90: q(0.9),
                p99: q(0.99),
                p999: q(0.999),
                p9999: q(0.9999),
                max: self.lat_max[i] as f64 / 1e3,
            }
        };
        let n = self.lat[2].len();
        FlowReport {
            name: self.name.clone(),
            priority: self.priority.clone(),
            queue_depth: self.queue_depth,
            requests: n,
            iops: n as f64 / span,
            bandwidth_mb_s: (self.bytes[0] + self.bytes[1]) as f64 / 1e6 / span,
            read: lat(0),
            write: lat(1),
            all: lat(2),
            host_wait_us: HostWait {
                mean: if n == 0 {
                    0.0
                } else {
                    self.wait_sum as f64 / n as f64 / 1e3
                },
                p99: if self.wait.is_empty() {
                    0.0
                } else {
                    self.wait.value_at_quantile(0.99).min(self.wait_max) as f64 / 1e3
                },
                max: self.wait_max as f64 / 1e3,
            },
            gc_blocked_us: self.gc_blocked_ns as f64 / 1e3,
            trims: self.trims,
            alone_mean_latency_us: None,
            slowdown: None,
        }
    }
}

/// A flow's latency distribution, µs (from its arrival in the host).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FlowLatency {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub p9999: f64,
    pub max: f64,
}

/// Time from a request's arrival in the host to its fetch by the device, µs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HostWait {
    pub mean: f64,
    pub p99: f64,
    pub max: f64,
}

/// One flow's results (the report's `flows`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FlowReport {
    pub name: String,
    pub priority: String,
    pub queue_depth: u32,
    /// Requests completed (reads and writes; trims apart).
    pub requests: u64,
    /// Over the flow's own span: its first arrival to its last completion.
    pub iops: f64,
    pub bandwidth_mb_s: f64,
    pub read: FlowLatency,
    pub write: FlowLatency,
    pub all: FlowLatency,
    pub host_wait_us: HostWait,
    /// Time its host page programs waited behind GC in their plane, µs
    /// (summed over pages; a buffered page's program counts for the flow
    /// whose request last wrote the page). Over the flows it sums to the
    /// drive's time blocked by GC (`gc`).
    pub gc_blocked_us: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub trims: u64,
    /// Its mean latency when it runs alone on the same drive (`--alone`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alone_mean_latency_us: Option<f64>,
    /// Mean latency shared over alone (FLIN's slowdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Each flow's slowdown from its mean latency alone (one per flow, in
/// order), and fairness: the smallest slowdown over the largest. A flow
/// that completed no request alone or shared has no slowdown; fairness is
/// then over the others (None with fewer than one slowdown).
pub fn set_slowdowns(flows: &mut [FlowReport], alone_mean_us: &[f64]) -> Option<f64> {
    for (f, &alone) in flows.iter_mut().zip(alone_mean_us) {
        f.alone_mean_latency_us = Some(alone);
        f.slowdown = (alone > 0.0 && f.all.count > 0).then(|| f.all.mean / alone);
    }
    let s: Vec<f64> = flows.iter().filter_map(|f| f.slowdown).collect();
    if s.is_empty() {
        return None;
    }
    let min = s.iter().copied().fold(f64::INFINITY, f64::min);
    let max = s.iter().copied().fold(0.0, f64::max);
    Some(if max > 0.0 { min / max } else { 1.0 })
}

impl super::Report {
    /// Add each flow's mean latency alone (in flow order): its slowdown,
    /// and the run's fairness.
    pub fn set_alone(&mut self, alone_mean_us: &[f64]) {
        self.fairness = set_slowdowns(&mut self.flows, alone_mean_us);
    }
}

/// The summary's per-flow table (empty without flows).
pub(crate) fn summary_table(flows: &[FlowReport], fairness: Option<f64>) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    if flows.is_empty() {
        return s;
    }
    let w = flows.iter().map(|f| f.name.len()).max().unwrap_or(4).max(4);
    let alone = flows.iter().any(|f| f.slowdown.is_some());
    let _ = writeln!(
        s,
        "  flows (latency from arrival in the host, us){}",
        if alone {
            "; slowdown = mean shared / mean alone"
        } else {
            ""
        }
    );
    let _ = writeln!(
        s,
        "    {:<w$} {:>6} {:>3} {:>9} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9} {:>10} {:>9} {:>9}{}",
        "flow",
        "class",
        "qd",
        "requests",
        "IOPS",
        "MB/s",
        "mean",
        "p50",
        "p99",
        "p99.99",
        "host wait",
        "read mean",
        "write mean",
        if alone { "    alone  slowdown" } else { "" }
    );
    for f in flows {
        let _ = writeln!(
            s,
            "    {:<w$} {:>6} {:>3} {:>9} {:>9.0} {:>8.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>10.1} {:>9.1} {:>9.1}{}",
            f.name,
            f.priority,
            f.queue_depth,
            f.requests,
            f.iops,
            f.bandwidth_mb_s,
            f.all.mean,
            f.all.p50,
            f.all.p99,
            f.all.p9999,
            f.host_wait_us.mean,
            f.read.mean,
            f.write.mean,
            match (f.alone_mean_latency_us, f.slowdown) {
                (Some(a), Some(sd)) => format!(" {a:>8.1} {sd:>9.3}"),
                (Some(a), None) => format!(" {a:>8.1} {:>9}", "-"),
                _ => String::new(),
            }
        );
    }
    if let Some(fair) = fairness {
        let _ = writeln!(s, "    fairness (min slowdown / max slowdown) {fair:.3}");
    }
    s
}
