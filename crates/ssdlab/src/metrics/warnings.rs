//! What makes a result mean less than it seems: the `warnings` of a report,
//! found from the figures and the facts of the run.

use serde::{Deserialize, Serialize};

use super::{Metrics, Report};
use crate::engine::Time;

/// One warning: a stable `kind` and a sentence saying what, with the
/// figures, and what to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// `saturation`, `unwritten-reads`, `gc-not-running`, `gc-warm-up`,
    /// `warm-up`, `not-steady` or `footprint`.
    pub kind: String,
    pub message: String,
}

/// Reads of never-written pages above this share of page reads are warned
/// about.
pub const UNWRITTEN_READ_SHARE: f64 = 0.01;

/// The drive is said to be saturated when it served requests at less than
/// this share of the rate at which they arrived (and its backlog grew).
pub const SERVED_SHARE: f64 = 1.0 / 1.1;

/// Facts of the run the warnings need that the metrics do not hold.
#[derive(Clone, Debug, Default)]
pub struct RunFacts {
    /// Closed loop: arrivals follow completions, saturation is by design.
    pub closed_loop: bool,
    pub page_bytes: u64,
    pub logical_pages: u64,
    /// One past the highest page a read or write touched.
    pub page_span: u64,
    /// Compact addresses: the distinct pages the workload touches.
    pub compact_pages: Option<u64>,
    /// Distinct logical pages the workload touches, when it was scanned.
    pub footprint_pages: Option<u64>,
    /// Planes, or dies with die-level block groups: what GC runs on.
    pub gc_units: u64,
    /// Pages the drive could take, summed over planes, before GC starts
    /// (free pages above the threshold after preconditioning).
    pub room_before_gc: u64,
    pub warmup_requests: u64,
    /// Requests completed, warm-up included.
    pub completed: u64,
}

fn gib(pages: u64, page_bytes: u64) -> String {
    let b = pages as f64 * page_bytes as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.2} GiB", b / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", b / (1u64 << 20) as f64)
    }
}

fn secs(ns: Time) -> String {
    format!("{:.3} s", ns as f64 / 1e9)
}

/// The warnings of `r`, a report just built from `m`.
pub(super) fn find(r: &Report, m: &Metrics, f: &RunFacts) -> Vec<Warning> {
    let mut w = Vec::new();
    let mut warn = |kind: &str, message: String| {
        w.push(Warning {
            kind: kind.to_string(),
            message,
        })
    };
    // Saturation: the arrivals outran the drive, and its backlog was still
    // there (and larger than usual) when the last request arrived.
    if !f.closed_loop && r.requests >= 2 {
        let first = m.first_arrival.unwrap_or(0);
        let end = m.last_completion.max(m.last_arrival);
        let arrivals = m.last_arrival.saturating_sub(first);
        let span = end.saturating_sub(first);
        let backlog = m.backlog_at_last_arrival as f64;
        if arrivals > 0
            && (arrivals as f64) < span as f64 * SERVED_SHARE
            && backlog >= 2.0
            && backlog >= 1.5 * r.queue_depth.mean
        {
            let offered = r.requests as f64 / (arrivals as f64 / 1e9);
            let served = r.requests as f64 / (span as f64 / 1e9);
            let latencies: Vec<String> = [("read", &r.read), ("write", &r.write)]
                .iter()
                .filter(|(_, op)| op.count > 0)
                .map(|(name, op)| format!("mean {name} {:.1} us", op.latency_us.mean))
                .collect();
            warn(
                "saturation",
                format!(
                    "the drive did not keep up: requests arrived at {offered:.0} per second (over \
                     {}) but were served at {served:.0} per second; {} requests were still queued \
                     when the last one arrived (mean queue depth {:.1}), and serving them took \
                     another {}, so the latencies ({}) are mostly time in the queue. Slow the \
                     arrivals (host.time_scale), use a faster drive, or replay in closed loop \
                     (host.mode = \"closed-loop\")",
                    secs(arrivals),
                    m.backlog_at_last_arrival,
                    r.queue_depth.mean,
                    secs(end.saturating_sub(m.last_arrival)),
                    latencies.join(", ")
                ),
            );
        }
    }
    // Reads of pages never written: served without flash access.
    if r.unwritten_read_share > UNWRITTEN_READ_SHARE {
        warn(
            "unwritten-reads",
            format!(
                "{:.1} % of the page reads ({} of {}) found pages never written, which are served \
                 at once without flash access: read latencies are understated. Map the pages the \
                 workload reads before the run (--precondition trace-reads, alone or after a \
                 fill; the default when no preconditioning is given)",
                r.unwritten_read_share * 100.0,
                r.unmapped_read_pages,
                m.read_pages
            ),
        );
    }
    // GC: not running, or not yet everywhere.
    let written = r.flash.host_programs;
    if r.gc.count == 0 && written > 0 && f.room_before_gc > 0 {
        // (Advice for a drive the run aged already differs from advice to
        // age one.)
        let mode = &r.precondition.mode;
        let advice = if ages(mode) {
            format!(
                "The aging ({mode}) left more room than the run wrote: age the drive further (a \
                 fill that uses more of it, or age:X) or replay the workload more (host.replays)"
            )
        } else {
            "To measure it under GC, age it first (for instance --precondition \
             fill:0.9:0.8+trace-reads) or replay the workload more (host.replays)"
                .to_string()
        };
        warn(
            "gc-not-running",
            format!(
                "no garbage collection ran: the run programmed {written} host pages ({}) into a \
                 drive with room for {} ({}) before GC starts, so the write figures are those of \
                 a drive not yet full. {advice}",
                gib(written, f.page_bytes),
                f.room_before_gc,
                gib(f.room_before_gc, f.page_bytes)
            ),
        );
    } else if r.gc.count > 0 && r.gc.count < f.gc_units {
        warn(
            "gc-warm-up",
            format!(
                "garbage collection ran {} times on a drive of {} GC units (planes, or dies with \
                 die-level block groups): fewer than one each, so it had not reached its steady \
                 state and the GC figures describe its start. Run longer (host.replays) or age \
                 the drive further",
                r.gc.count, f.gc_units
            ),
        );
    }
    // A warm-up longer than the run.
    if f.warmup_requests > 0 && f.completed < f.warmup_requests {
        warn(
            "warm-up",
            format!(
                "the run ended after {} requests, before its warm-up of {} \
                 (host.warmup_requests): the figures include the warm-up",
                f.completed, f.warmup_requests
            ),
        );
    }
    // until-steady gave up.
    let p = &r.precondition;
    if p.steady_rounds > 0 && !p.steady_reached {
        warn(
            "not-steady",
            format!(
                "the warm-up (until-steady) ran {} rounds without its tracked variable meeting the \
                 steady-state rule over five of them; measurement started anyway. Track another \
                 variable, use longer rounds, or age the drive first",
                p.steady_rounds
            ),
        );
    }
    // Addresses beyond the drive.
    match f.compact_pages {
        Some(distinct) if distinct > f.logical_pages => warn(
            "footprint",
            format!(
                "the workload touches {distinct} distinct pages ({}), more than the drive's \
                 {} logical pages ({}): the pages beyond fold onto others (modulo), so different \
                 data share pages. Use a larger drive",
                gib(distinct, f.page_bytes),
                f.logical_pages,
                gib(f.logical_pages, f.page_bytes)
            ),
        ),
        None if f.page_span > f.logical_pages => warn(
            "footprint",
            format!(
                "the workload addresses {} ({} pages), beyond the drive's logical capacity of {} \
                 ({} pages): addresses beyond it fold back (modulo) onto lower pages, so \
                 different data may share pages{}. Use a larger drive, or host.address_mode = \
                 \"compact\" if the pages the workload touches fit",
                gib(f.page_span, f.page_bytes),
                f.page_span,
                gib(f.logical_pages, f.page_bytes),
                f.logical_pages,
                match f.footprint_pages {
                    Some(fp) => format!(" (after folding it touches {fp} distinct pages)"),
                    None => String::new(),
                }
            ),
        ),
        _ => {}
    }
    w
}

/// Does preconditioning `mode` (its parts joined by `+`) write the drive
/// full of data, rather than only map the pages the workload reads?
fn ages(mode: &str) -> bool {
    mode.split('+').any(|step| {
        ["fill", "age", "trace-writes", "trace-sequence"]
            .iter()
            .any(|aging| step.starts_with(aging))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn which_preconditioning_ages_the_drive() {
        for mode in [
            "fill:0.3:0.8",
            "fill:0.9:0.8+trace-reads",
            "age:2",
            "trace-writes",
        ] {
            assert!(super::ages(mode), "{mode}");
        }
        for mode in ["none", "trace-reads", "until-steady:wa"] {
            assert!(!super::ages(mode), "{mode}");
        }
    }
}
