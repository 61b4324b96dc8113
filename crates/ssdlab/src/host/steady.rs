//! `until-steady` (the `--precondition` part): the run serves its workload
//! as a warm-up, in rounds of ROUND completed requests, replaying the
//! workload as often as needed, until the tracked variable of the last five
//! rounds meets the SNIA PTS steady-state rule (`metrics/steady.rs`), or
//! [`UntilSteady::MAX_ROUNDS`] rounds have passed. Then measurement starts
//! (the metrics restart, as at the end of `host.warmup_requests`) and the
//! run serves five more rounds' worth of requests; the result's
//! `steady_state` judges that window again, and its `precondition` says how
//! many rounds the warm-up took and whether it reached steady state.

use std::collections::VecDeque;

use crate::engine::Time;
use crate::host::precondition::{SteadyVariable, UntilSteady};
use crate::metrics::{steady_rule_holds, Cumulative};
use crate::sim::Simulator;

/// The warm-up's state.
pub(crate) struct SteadyWarmup {
    spec: UntilSteady,
    /// The tracked variable of the last five rounds.
    values: VecDeque<f64>,
    /// The figures at the end of the last round.
    last: Cumulative,
    rounds: u32,
    /// Measurement started: submissions stop at `submit_cap`.
    pub(crate) submit_cap: Option<u64>,
}

impl SteadyWarmup {
    pub(crate) fn new(spec: UntilSteady) -> SteadyWarmup {
        SteadyWarmup {
            spec,
            values: VecDeque::new(),
            last: Cumulative::default(),
            rounds: 0,
            submit_cap: None,
        }
    }

    /// Whether the workload is to be replayed again (the warm-up or the
    /// measured rounds need more requests than `submitted`).
    pub(crate) fn wants_more(&self, submitted: u64) -> bool {
        self.submit_cap.is_none_or(|cap| submitted < cap)
    }
}

impl Simulator {
    /// After a completion: end a round if it is complete, and start
    /// measuring once the rule holds or the rounds run out.
    pub(crate) fn steady_round(&mut self, now: Time) {
        let Some(w) = self.host.steady.as_mut() else {
            return;
        };
        if w.submit_cap.is_some() {
            return;
        }
        let c = self.metrics.cumulative();
        let done = c.completed - w.last.completed;
        if done < w.spec.round {
            return;
        }
        let value = match w.spec.variable {
            SteadyVariable::Wa => {
                let host = c.host_pages - w.last.host_pages;
                if host == 0 {
                    f64::NAN
                } else {
                    (host + c.gc_pages - w.last.gc_pages) as f64 / host as f64
                }
            }
            SteadyVariable::Latency => (c.latency - w.last.latency) as f64 / done as f64 / 1e3,
            SteadyVariable::Rate => done as f64 / ((c.time - w.last.time).max(1) as f64 / 1e9),
        };
        w.last = c;
        w.rounds += 1;
        w.values.push_back(value);
        if w.values.len() > 5 {
            w.values.pop_front();
        }
        let steady = w.values.len() == 5 && steady_rule_holds(w.values.make_contiguous());
        if steady || w.rounds >= UntilSteady::MAX_ROUNDS {
            w.submit_cap = Some(self.host.submitted + 5 * w.spec.round);
            self.precondition.steady_rounds = w.rounds;
            self.precondition.steady_reached = steady;
            self.start_measurement(now);
        }
    }
}
