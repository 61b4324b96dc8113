//! Was the measured window in steady state? The rule of the SNIA Solid
//! State Storage Performance Test Specification (PTS): over a measurement
//! window of five rounds, a tracked variable stays within a data excursion
//! of 20 % of its mean (max − min ≤ 0.2 × mean), and the least-squares line
//! fitted to it moves by at most 10 % of its mean across the window
//! (|slope| × 4 rounds ≤ 0.1 × mean).
//!
//! A run's measured requests are cut, in completion order, into five
//! rounds of equal size; three variables are judged: the rate at which
//! requests completed, their mean latency, and write amplification (when
//! every round programmed host pages). To know the rounds' boundaries
//! without knowing the number of requests beforehand, the metrics keep
//! cumulative figures every `width` completions, at most [`KEEP`] of them:
//! when full, every other one goes and `width` doubles, so a round's
//! boundary is off by less than 1/256 of the run.

use serde::{Deserialize, Serialize};

use crate::engine::Time;

/// Cumulatives kept at most.
const KEEP: usize = 1024;

/// Fewest requests per round for the check to be made.
pub const MIN_ROUND_REQUESTS: u64 = 20;

/// Rounds in the measurement window.
pub const ROUNDS: usize = 5;

/// The rule's bounds, as shares of the mean.
pub const DATA_EXCURSION: f64 = 0.20;
pub const SLOPE_EXCURSION: f64 = 0.10;

/// Cumulative figures of the measurement after some completions.
#[derive(Clone, Copy, Default, Debug)]
pub struct Cumulative {
    pub completed: u64,
    /// The last completion's time.
    pub time: Time,
    /// The latencies' sum (ns).
    pub latency: u128,
    /// Host pages programmed, GC pages moved.
    pub host_pages: u64,
    pub gc_pages: u64,
}

/// Whether `y` (five rounds of a variable) meets the steady-state rule.
pub fn steady_rule_holds(y: &[f64]) -> bool {
    Variable::judge("", y.to_vec()).steady
}

/// The snapshots, every `width` completions.
#[derive(Clone)]
pub(crate) struct Rounds {
    start: Cumulative,
    snaps: Vec<Cumulative>,
    width: u64,
    now: Cumulative,
}

impl Rounds {
    /// Measurement starts at `now` (a run's start, or the end of its
    /// warm-up).
    pub(crate) fn new(now: Time) -> Rounds {
        let start = Cumulative {
            time: now,
            ..Cumulative::default()
        };
        Rounds {
            start,
            snaps: Vec::new(),
            width: 1,
            now: start,
        }
    }

    /// A request of latency `lat` completed at `now`, with the run's host
    /// pages programmed and GC pages moved so far.
    #[inline]
    pub(crate) fn completed(&mut self, now: Time, lat: Time, host_pages: u64, gc_pages: u64) {
        let s = &mut self.now;
        s.completed += 1;
        s.time = now;
        s.latency += lat as u128;
        s.host_pages = host_pages;
        s.gc_pages = gc_pages;
        if s.completed.is_multiple_of(self.width) {
            if self.snaps.len() == KEEP {
                // keep the snapshots at multiples of the doubled width
                let mut i = 0;
                self.snaps.retain(|_| {
                    i += 1;
                    i % 2 == 0
                });
                self.width *= 2;
                if !s.completed.is_multiple_of(self.width) {
                    return;
                }
            }
            self.snaps.push(*s);
        }
    }

    /// The figures so far.
    pub(crate) fn cumulative(&self) -> Cumulative {
        self.now
    }

    /// The check over the window measured so far (None: too few requests).
    pub(crate) fn judge(&self) -> Option<SteadyState> {
        let n = self.now.completed;
        if n < MIN_ROUND_REQUESTS * ROUNDS as u64 {
            return None;
        }
        // each boundary: the snapshot at or just before i·n/5 completions
        let at = |k: u64| -> Cumulative {
            if k >= n {
                return self.now;
            }
            let mut best = self.start;
            for s in &self.snaps {
                if s.completed <= k {
                    best = *s;
                } else {
                    break;
                }
            }
            best
        };
        let bounds: Vec<Cumulative> = (0..=ROUNDS as u64)
            .map(|i| at(i * n / ROUNDS as u64))
            .collect();
        let mut rate = Vec::new();
        let mut latency = Vec::new();
        let mut wa = Vec::new();
        let mut requests = Vec::new();
        for w in bounds.windows(2) {
            let (a, b) = (w[0], w[1]);
            let done = b.completed - a.completed;
            requests.push(done);
            let span = (b.time - a.time).max(1) as f64 / 1e9;
            rate.push(done as f64 / span);
            latency.push(if done == 0 {
                0.0
            } else {
                (b.latency - a.latency) as f64 / done as f64 / 1e3
            });
            let host = b.host_pages - a.host_pages;
            if host > 0 {
                wa.push((host + b.gc_pages - a.gc_pages) as f64 / host as f64);
            }
        }
        let mut variables = vec![
            Variable::judge("completion_rate_per_s", rate),
            Variable::judge("mean_latency_us", latency),
        ];
        if wa.len() == ROUNDS {
            variables.push(Variable::judge("write_amplification", wa));
        }
        Some(SteadyState {
            steady: variables.iter().all(|v| v.steady),
            round_requests: requests,
            variables,
        })
    }
}

/// The steady-state check of a run's measured window (SNIA PTS's rule over
/// five rounds; absent below 20 requests a round).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SteadyState {
    /// Every variable met the rule.
    pub steady: bool,
    /// Requests in each round (equal but for rounding and the snapshots'
    /// spacing).
    pub round_requests: Vec<u64>,
    pub variables: Vec<Variable>,
}

impl SteadyState {
    /// "yes: …" or "no: …" with what broke the rule.
    pub fn in_words(&self) -> String {
        let per = self.round_requests.iter().sum::<u64>() / ROUNDS as u64;
        let names: Vec<&str> = self.variables.iter().map(|v| v.words()).collect();
        if self.steady {
            return format!(
                "yes: over five rounds of about {per} requests, {} each stayed within 20 % of its mean \
                 and its fitted line within 10 % (SNIA PTS rule)",
                names.join(", ")
            );
        }
        let broken: Vec<String> = self
            .variables
            .iter()
            .filter(|v| !v.steady)
            .map(|v| {
                format!(
                    "{} varied {:.0} % of its mean (rule: at most 20 %) and its fitted line moved {:.0} % (at most 10 %)",
                    v.words(),
                    v.data_excursion_pct,
                    v.slope_excursion_pct
                )
            })
            .collect();
        format!(
            "no: over five rounds of about {per} requests, {} (SNIA PTS rule)",
            broken.join("; ")
        )
    }
}

/// One tracked variable over the five rounds.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Variable {
    /// `completion_rate_per_s`, `mean_latency_us` or `write_amplification`.
    pub name: String,
    pub rounds: Vec<f64>,
    pub mean: f64,
    /// (max − min) / mean, percent (the rule: at most 20).
    pub data_excursion_pct: f64,
    /// |least-squares slope| × 4 rounds / mean, percent (the rule: at most
    /// 10).
    pub slope_excursion_pct: f64,
    pub steady: bool,
}

impl Variable {
    fn words(&self) -> &'static str {
        match self.name.as_str() {
            "completion_rate_per_s" => "the completion rate",
            "mean_latency_us" => "the mean latency",
            "write_amplification" => "write amplification",
            _ => "a variable",
        }
    }

    fn judge(name: &str, y: Vec<f64>) -> Variable {
        let n = y.len() as f64;
        let mean = y.iter().sum::<f64>() / n;
        let (lo, hi) = y
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
                (l.min(v), h.max(v))
            });
        // least squares over x = 0..n−1
        let xm = (n - 1.0) / 2.0;
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (i, &v) in y.iter().enumerate() {
            let dx = i as f64 - xm;
            sxy += dx * (v - mean);
            sxx += dx * dx;
        }
        let slope = sxy / sxx;
        let pct = |x: f64| {
            if mean == 0.0 {
                if x == 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else {
                100.0 * x / mean.abs()
            }
        };
        let data = pct(hi - lo);
        let slope_exc = pct(slope.abs() * (n - 1.0));
        Variable {
            name: name.to_string(),
            rounds: y,
            mean,
            data_excursion_pct: data,
            slope_excursion_pct: slope_exc,
            steady: data <= DATA_EXCURSION * 100.0 && slope_exc <= SLOPE_EXCURSION * 100.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_by_hand() {
        // mean 100, max - min 20 (20 %: steady), slope 0
        let v = Variable::judge("x", vec![90.0, 110.0, 100.0, 100.0, 100.0]);
        assert!(
            (v.data_excursion_pct - 20.0).abs() < 1e-9 && v.steady,
            "{v:?}"
        );
        // a rising line: slope 3 per round, 12 over the window, mean 106
        let v = Variable::judge("x", vec![100.0, 103.0, 106.0, 109.0, 112.0]);
        assert!(
            (v.slope_excursion_pct - 1200.0 / 106.0).abs() < 1e-9,
            "{v:?}"
        );
        assert!(!v.steady);
        let v = Variable::judge("x", vec![100.0, 100.0, 130.0, 100.0, 100.0]);
        assert!(!v.steady);
    }

    #[test]
    fn rounds_are_fifths_of_the_completions() {
        for n in [100u64, 1_000, 5_000, 123_457] {
            let mut r = Rounds::new(0);
            for i in 1..=n {
                // one request every µs, latency = its index, one host page each
                r.completed(i * 1_000, i, i, 0);
            }
            let s = r.judge().unwrap();
            assert_eq!(s.round_requests.iter().sum::<u64>(), n);
            for &k in &s.round_requests {
                let want = n / 5;
                assert!(
                    k.abs_diff(want) <= n / 256 + 1,
                    "{n}: {:?}",
                    s.round_requests
                );
            }
            let rate = &s.variables[0];
            assert!(rate.steady, "{rate:?}");
            assert!(
                rate.rounds.iter().all(|&x| (x - 1e6).abs() < 1e6 * 0.01),
                "{rate:?}"
            );
            // the latency grows with the index: not steady
            assert!(!s.variables[1].steady);
            let wa = &s.variables[2];
            assert!(wa.rounds.iter().all(|&x| x == 1.0) && wa.steady);
        }
    }
}
