//! Runs with flows (`[[flows]]`, `host/flows.rs`): each flow run alone,
//! for FLIN's slowdowns.

use crate::config::Config;
use crate::error::{Error, Result};
use crate::host::precondition::Precondition;
use crate::sim::{Control, Progress, Simulator};
use crate::workload::Source;

/// Each flow's mean latency (reads and writes, µs) when it runs alone:
/// `cfg` with that flow only (its queue, start, namespace and priority
/// kept; without `queues.device_slots` the device then holds that flow's
/// queue depth), on the same drive aged by `precondition` alike. The
/// denominators of FLIN's slowdowns ([`crate::metrics::set_slowdowns`],
/// [`crate::metrics::Report::set_alone`]).
/// `observe` is called now and then during each run, as
/// [`Simulator::run_observed`]'s; a run it stops is an
/// [`Error::Interrupted`].
pub fn alone_mean_latencies(
    cfg: &Config,
    sources: &[Source],
    precondition: &Precondition,
    observe: &mut dyn FnMut(&Progress) -> Control,
) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(cfg.flows.len());
    for (i, f) in cfg.flows.iter().enumerate() {
        let mut alone = cfg.clone();
        alone.flows = vec![f.clone()];
        let sim = Simulator::with_flows(&alone, &sources[i..=i], precondition)?;
        let r = sim.run_observed(observe)?;
        if r.partial {
            return Err(Error::Interrupted(format!(
                "while running flow `{}` alone",
                f.name
            )));
        }
        out.push(r.flows[0].all.mean);
    }
    Ok(out)
}
