//! When requests arrive: [`Arrival`] as written and its compiled sampler.

use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::dmath;
use super::rng::{unit, Strata};
use super::spec::ModelSpec;

/// Arrival process.
///
/// In TOML a table with a `kind` (`poisson` or `on-off`) and its parameters;
/// see [arrivals](super#arrivals).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ModelSpec", into = "ModelSpec")]
pub enum Arrival {
    /// Exponential inter-arrival times with mean `1 / iops` seconds.
    Poisson {
        /// Mean arrival rate, requests per second, > 0.
        iops: f64,
    },
    /// Alternating on and off periods of exponential lengths, Poisson
    /// arrivals at a rate per period kind (a two-state Markov-modulated
    /// Poisson process).
    OnOff {
        /// Arrival rate during on periods, requests per second, > 0.
        on_iops: f64,
        /// Arrival rate during off periods, ≥ 0.
        off_iops: f64,
        /// Mean length of an on period in milliseconds, ≥ 0.01.
        on_ms: f64,
        /// Mean length of an off period in milliseconds, ≥ 0.01.
        off_ms: f64,
    },
    /// `process`, with the stream ending at `duration_s` seconds (TOML: a
    /// top-level `duration_s`, with `requests` left out). Only as a
    /// profile's `arrival`, with `requests` 0.
    Until {
        /// Length of the stream in seconds, > 0.
        duration_s: f64,
        /// The arrival process (not `Until`).
        process: Box<Arrival>,
    },
    /// The profile's draws are balanced (TOML: a top-level `balanced =
    /// true`; see [balanced draws](super#balanced-draws)): `process` (a
    /// plain one or an `Until`) with the request kinds, sizes and arrival
    /// draws spread over strata. Only as a profile's `arrival`, outside any
    /// `Until`.
    Balanced {
        /// The arrival process (not `Balanced`).
        process: Box<Arrival>,
    },
}

impl Arrival {
    /// The long-run mean arrival rate in requests per second: `iops`, or
    /// `(on_iops·on_ms + off_iops·off_ms) / (on_ms + off_ms)`.
    pub fn mean_iops(&self) -> f64 {
        match self {
            Arrival::Poisson { iops } => *iops,
            Arrival::OnOff {
                on_iops,
                off_iops,
                on_ms,
                off_ms,
            } => (on_iops * on_ms + off_iops * off_ms) / (on_ms + off_ms),
            Arrival::Until { process, .. } | Arrival::Balanced { process } => process.mean_iops(),
        }
    }

    /// This process, with the profile's draws balanced.
    pub fn balanced(self) -> Arrival {
        match self {
            a @ Arrival::Balanced { .. } => a,
            a => Arrival::Balanced {
                process: Box::new(a),
            },
        }
    }

    /// Whether the draws are balanced (an `Arrival::Balanced`).
    pub fn is_balanced(&self) -> bool {
        matches!(self, Arrival::Balanced { .. })
    }

    /// This process, ending the stream at `duration_s` seconds.
    pub fn until(self, duration_s: f64) -> Arrival {
        Arrival::Until {
            duration_s,
            process: Box::new(self),
        }
    }

    /// The duration of an `Until` (also under `Balanced`).
    pub fn duration_s(&self) -> Option<f64> {
        match self {
            Arrival::Until { duration_s, .. } => Some(*duration_s),
            Arrival::Balanced { process } => process.duration_s(),
            _ => None,
        }
    }

    /// The duration of an `Until` (also under `Balanced`), to change it.
    pub fn duration_s_mut(&mut self) -> Option<&mut f64> {
        match self {
            Arrival::Until { duration_s, .. } => Some(duration_s),
            Arrival::Balanced { process } => process.duration_s_mut(),
            _ => None,
        }
    }

    /// The process itself, without any `Until` or `Balanced`.
    pub fn process(&self) -> &Arrival {
        match self {
            Arrival::Until { process, .. } | Arrival::Balanced { process } => process.process(),
            a => a,
        }
    }
}

/// A compiled arrival process.
#[derive(Clone, Debug)]
pub(super) enum ArrivalSampler {
    Poisson {
        mean_gap_ns: f64,
        /// `balanced`: the gaps' draws.
        strata: Option<Strata>,
    },
    OnOff {
        /// Mean gap in ns during on (0) and off (1) periods; None: no arrivals.
        gap_ns: [Option<f64>; 2],
        /// Mean period lengths in ns.
        len_ns: [f64; 2],
        /// Probability of starting in an on period.
        p_on: f64,
        /// The current period (0 on, 1 off) and when it ends; None before
        /// the first request.
        phase: Option<(usize, f64)>,
        /// `balanced`: the draws of gaps in on and off periods, then of on
        /// and off period lengths.
        strata: Option<Box<[Strata; 4]>>,
    },
}

/// An exponential draw of mean 1 from `strata` if given, else from `rng`.
#[inline]
fn exponential_in(strata: Option<&mut Strata>, rng: &mut Xoshiro256PlusPlus) -> f64 {
    match strata {
        Some(s) => -dmath::ln(1.0 - s.next(rng)),
        None => exponential(rng),
    }
}

/// An exponential draw of mean 1: −ln(1 − U) with 1 − U in (0, 1].
#[inline]
fn exponential(rng: &mut Xoshiro256PlusPlus) -> f64 {
    -dmath::ln(1.0 - unit(rng))
}

impl ArrivalSampler {
    /// The sampler of `a`; with `balanced` (the requests expected, a seed)
    /// its exponential draws are spread over strata sized for that many
    /// requests.
    pub(super) fn new(a: &Arrival, balanced: Option<(f64, u64)>) -> ArrivalSampler {
        let strata = |n: f64, key: u64| {
            let (_, seed) = balanced.unwrap_or_default();
            Strata::new(n.round().max(1.0) as u64, seed ^ key)
        };
        match a.process() {
            Arrival::OnOff {
                on_iops,
                off_iops,
                on_ms,
                off_ms,
            } => ArrivalSampler::OnOff {
                gap_ns: [1e9 / on_iops, 1e9 / off_iops].map(|g| g.is_finite().then_some(g)),
                len_ns: [on_ms * 1e6, off_ms * 1e6],
                p_on: on_ms / (on_ms + off_ms),
                phase: None,
                strata: balanced.map(|(requests, _)| {
                    let (on, off) = (on_iops * on_ms, off_iops * off_ms);
                    let cycles = requests * 1e3 / (on + off);
                    Box::new([
                        strata(requests * on / (on + off), 0x6f6e_5f67),
                        strata(requests * off / (on + off), 0x6f66_5f67),
                        strata(cycles, 0x6f6e_5f6c),
                        strata(cycles, 0x6f66_5f6c),
                    ])
                }),
            },
            Arrival::Poisson { iops } => ArrivalSampler::Poisson {
                mean_gap_ns: 1e9 / iops,
                strata: balanced.map(|(requests, _)| strata(requests, 0x706f_6973)),
            },
            Arrival::Until { .. } | Arrival::Balanced { .. } => {
                unreachable!("process() unwraps Until and Balanced")
            }
        }
    }

    /// Move `clock` (ns) to the next arrival.
    pub(super) fn advance(&mut self, clock: &mut f64, rng: &mut Xoshiro256PlusPlus) {
        match self {
            ArrivalSampler::Poisson {
                mean_gap_ns,
                strata: None,
            } => {
                *clock += -dmath::ln(1.0 - unit(rng)) * *mean_gap_ns;
            }
            ArrivalSampler::Poisson {
                mean_gap_ns,
                strata: Some(s),
            } => {
                *clock += exponential_in(Some(s), rng) * *mean_gap_ns;
            }
            ArrivalSampler::OnOff {
                gap_ns,
                len_ns,
                p_on,
                phase,
                strata,
            } => {
                let (mut now, mut end) = match *phase {
                    Some(p) => p,
                    None => {
                        let now = if unit(rng) < *p_on { 0 } else { 1 };
                        let length = exponential_in(strata.as_mut().map(|s| &mut s[2 + now]), rng);
                        (now, *clock + length * len_ns[now])
                    }
                };
                loop {
                    if let Some(g) = gap_ns[now] {
                        let gap = exponential_in(strata.as_mut().map(|s| &mut s[now]), rng);
                        let t = *clock + gap * g;
                        if t < end {
                            *clock = t;
                            break;
                        }
                    }
                    // no arrival in the rest of this period: the next one
                    *clock = end;
                    if *clock >= u64::MAX as f64 || clock.is_nan() {
                        break; // the caller reports the overflow
                    }
                    now ^= 1;
                    let length = exponential_in(strata.as_mut().map(|s| &mut s[2 + now]), rng);
                    end = *clock + length * len_ns[now];
                }
                *phase = Some((now, end));
            }
        }
    }
}
