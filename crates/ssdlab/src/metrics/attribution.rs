//! Latency attribution's sums and its report: per operation, the share of
//! each part ([`crate::attribution`]) in all requests' latency and in the
//! tail beyond the median, the 99th and the 99.9th percentile.
//!
//! Requests are summed in latency bins 1/16 of an octave wide (about 4.4 %);
//! a band "beyond p99" holds every request in the bin of the 99th
//! percentile's latency and above, so it may hold a few requests more than
//! 1 % (its `requests` says how many).

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::attribution::{Causes, Part, Parts, PARTS};
use crate::engine::Time;

/// Bins: 16 below 16 ns, then 16 per octave up to 2^64 ns.
const BINS: usize = 16 + 60 * 16;

fn bin(ns: Time) -> usize {
    if ns < 16 {
        return ns as usize;
    }
    let e = ns.ilog2() as usize;
    16 + (e - 4) * 16 + ((ns >> (e - 4)) & 15) as usize
}

#[derive(Clone, Copy, Default)]
struct Bin {
    requests: u64,
    latency: u128,
    parts: [u128; PARTS],
    causes: [f64; PARTS],
}

/// The sums, per operation (read, write) and latency bin.
#[derive(Clone)]
pub struct AttributionSums {
    bins: [Vec<Bin>; 2],
    /// Program and erase suspension is on: the report shows `suspended`.
    pub suspension: bool,
    /// Flows or the host interface are on: the report shows `host`.
    pub host: bool,
}

impl Default for AttributionSums {
    fn default() -> Self {
        AttributionSums {
            bins: [vec![Bin::default(); BINS], vec![Bin::default(); BINS]],
            suspension: false,
            host: false,
        }
    }
}

impl AttributionSums {
    /// Empty sums; `suspension`: the report shows `suspended`; `host`: it
    /// shows `host`.
    pub fn new(suspension: bool, host: bool) -> AttributionSums {
        AttributionSums {
            suspension,
            host,
            ..AttributionSums::default()
        }
    }

    /// A request of latency `lat` completed with these parts and buffer
    /// causes (None when it waited for no buffer slot).
    pub fn record(&mut self, write: bool, lat: Time, parts: &Parts, causes: Option<Causes>) {
        let b = &mut self.bins[write as usize][bin(lat)];
        b.requests += 1;
        b.latency += lat as u128;
        for (sum, &p) in b.parts.iter_mut().zip(parts) {
            *sum += p as u128;
        }
        if let Some(causes) = causes {
            for (sum, c) in b.causes.iter_mut().zip(causes) {
                *sum += c;
            }
        }
    }

    /// The report: per operation, the bands of `hist`'s quantiles.
    pub fn report(&self, read: &Histogram<u64>, write: &Histogram<u64>) -> AttributionReport {
        AttributionReport {
            parts: Part::shown(self.suspension, self.host)
                .iter()
                .map(|p| p.name().to_string())
                .collect(),
            read: self.bands(0, read),
            write: self.bands(1, write),
        }
    }

    fn bands(&self, op: usize, hist: &Histogram<u64>) -> Vec<AttributionBand> {
        let bins = &self.bins[op];
        if bins.iter().all(|b| b.requests == 0) {
            return Vec::new();
        }
        [
            ("all", None),
            ("p50", Some(0.5)),
            ("p99", Some(0.99)),
            ("p99.9", Some(0.999)),
        ]
        .into_iter()
        .map(|(name, q)| {
            let from = q.map_or(0, |q| bin(hist.value_at_quantile(q)));
            let mut sum = Bin::default();
            for b in &bins[from..] {
                sum.requests += b.requests;
                sum.latency += b.latency;
                for i in 0..PARTS {
                    sum.parts[i] += b.parts[i];
                    sum.causes[i] += b.causes[i];
                }
            }
            let pct = |x: f64| {
                if sum.latency == 0 {
                    0.0
                } else {
                    100.0 * x / sum.latency as f64
                }
            };
            let buffer = sum.parts[Part::Buffer as usize] as f64;
            AttributionBand {
                band: name.to_string(),
                from_us: bin_floor(from) as f64 / 1000.0,
                requests: sum.requests,
                mean_us: if sum.requests == 0 {
                    0.0
                } else {
                    sum.latency as f64 / sum.requests as f64 / 1000.0
                },
                share_pct: PartShares::from(self.suspension, self.host, |p| {
                    pct(sum.parts[p as usize] as f64)
                }),
                buffer_causes_pct: PartShares::from(self.suspension, self.host, |p| {
                    if buffer == 0.0 {
                        0.0
                    } else {
                        100.0 * sum.causes[p as usize] / buffer
                    }
                }),
            }
        })
        .collect()
    }
}

/// The lowest latency (ns) of bin `i`.
fn bin_floor(i: usize) -> Time {
    if i < 16 {
        return i as Time;
    }
    let e = (i - 16) / 16 + 4;
    let m = ((i - 16) % 16) as Time;
    (16 + m) << (e - 4)
}

/// Latency attribution (`metrics.attribution`): per operation, bands of
/// requests from a latency on (all requests, and the tails beyond the
/// 50th, 99th and 99.9th percentiles).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AttributionReport {
    /// The parts, in order.
    pub parts: Vec<String>,
    pub read: Vec<AttributionBand>,
    pub write: Vec<AttributionBand>,
}

/// One band of requests: those at or above `from_us`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AttributionBand {
    /// "all", "p50", "p99" or "p99.9".
    pub band: String,
    /// The band's lowest latency: the floor of the percentile's latency
    /// bin (0 for "all").
    pub from_us: f64,
    pub requests: u64,
    pub mean_us: f64,
    /// Each part's share of the band's total latency (they sum to 100).
    pub share_pct: PartShares,
    /// The buffer wait's causes: each part's share of the band's buffer
    /// wait, from the flushes the waiting writes were admitted after (they
    /// sum to 100 when there was a buffer wait; `buffer` is wait no flush
    /// explains).
    pub buffer_causes_pct: PartShares,
}

/// A number per part.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct PartShares {
    pub buffer: f64,
    pub mapping: f64,
    pub held: f64,
    pub behind_host: f64,
    pub behind_gc: f64,
    pub channel: f64,
    pub transfer: f64,
    pub array: f64,
    /// With program and erase suspension on (`flash.suspension`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspended: Option<f64>,
    /// With flows or the host interface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<f64>,
}

impl PartShares {
    fn from(suspension: bool, host: bool, f: impl Fn(Part) -> f64) -> PartShares {
        PartShares {
            buffer: f(Part::Buffer),
            mapping: f(Part::Mapping),
            held: f(Part::Held),
            behind_host: f(Part::BehindHost),
            behind_gc: f(Part::BehindGc),
            channel: f(Part::Channel),
            transfer: f(Part::Transfer),
            array: f(Part::Array),
            suspended: suspension.then(|| f(Part::Suspended)),
            host: host.then(|| f(Part::Host)),
        }
    }

    /// The share of `p`.
    pub fn get(&self, p: Part) -> f64 {
        match p {
            Part::Buffer => self.buffer,
            Part::Mapping => self.mapping,
            Part::Held => self.held,
            Part::BehindHost => self.behind_host,
            Part::BehindGc => self.behind_gc,
            Part::Channel => self.channel,
            Part::Transfer => self.transfer,
            Part::Array => self.array,
            Part::Suspended => self.suspended.unwrap_or(0.0),
            Part::Host => self.host.unwrap_or(0.0),
        }
    }
}

impl AttributionBand {
    /// Its largest parts in words: "71 % waiting behind GC, 20 % array
    /// time" (parts of at least 1 %, largest first; a buffer wait's causes
    /// in brackets).
    pub fn in_words(&self) -> String {
        let ranked = |shares: &PartShares| {
            let mut v: Vec<(Part, f64)> = Part::ALL
                .iter()
                .map(|&p| (p, shares.get(p)))
                .filter(|&(_, x)| x >= 1.0)
                .collect();
            v.sort_by(|a, b| b.1.total_cmp(&a.1));
            v
        };
        let mut out = Vec::new();
        for (p, x) in ranked(&self.share_pct) {
            let mut words = format!("{x:.0} % {}", p.words());
            if p == Part::Buffer {
                let causes: Vec<String> = ranked(&self.buffer_causes_pct)
                    .into_iter()
                    .map(|(c, y)| {
                        if c == Part::Buffer {
                            format!("{y:.0} % unexplained")
                        } else {
                            format!("{y:.0} % {}", c.words())
                        }
                    })
                    .collect();
                if !causes.is_empty() {
                    words += &format!(" (the flushes it waited for: {})", causes.join(", "));
                }
            }
            out.push(words);
        }
        if out.is_empty() {
            "no latency".to_string()
        } else {
            out.join(", ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_cover_every_latency_in_order() {
        let mut last = 0;
        for ns in [0u64, 1, 15, 16, 17, 31, 32, 33, 1000, 1 << 40, u64::MAX] {
            let b = bin(ns);
            assert!(b >= last && b < BINS, "{ns} -> {b}");
            assert!(bin_floor(b) <= ns, "{ns}: floor {}", bin_floor(b));
            if b + 1 < BINS {
                assert!(
                    bin_floor(b + 1) > ns,
                    "{ns}: next floor {}",
                    bin_floor(b + 1)
                );
            }
            last = b;
        }
    }
}
