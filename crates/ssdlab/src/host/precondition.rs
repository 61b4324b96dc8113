//! The `--precondition` language: how the drive is aged before a run.
//!
//! `none`, or parts joined by `+`, applied by `Simulator::new` in this fixed
//! order whatever the order written, without simulated time and with the
//! model's random generator, before `gc_trigger` on every plane:
//!
//! 1. `fill:USED:VALID` — `Ftl::precondition_fill`: every plane to `USED` of
//!    its pages (or a level drawn per plane, per die with aligned groups,
//!    from a range `LO-HI`), `VALID` of them valid; multi-threaded, one seed
//!    per group of planes, so the result does not depend on the threads.
//! 2. `age:X` — `Ftl::precondition_map` over LPNs `0 .. round(X ×
//!    logical_pages)`: each LPN without data written once, in LPN order, to
//!    the plane `choose_plane` gives, with untimed GC (`make_room`) at the
//!    threshold.
//! 3. `trace-sequence` — `Ftl::precondition_sequence` writes
//!    `fill_sequence` again and again, with untimed GC, until a pass in
//!    which GC ran has a write amplification within 1 % of the previous such
//!    pass, or 20 passes.
//! 4. `trace-writes` — `Ftl::precondition_steady` replays the workload's
//!    page writes (in request order, then shuffled) with untimed GC until the
//!    mean valid pages per victim of a pass is within 2 % (or 0.1 page) of the
//!    previous one's, after at least three passes with GC (or 20 passes).
//! 5. `trace-reads` — `Ftl::precondition_map` over the pre-scan's read
//!    bitmap.
//!
//! `until-steady[:VARIABLE[:ROUND]]` is the one timed part: after the
//! untimed ones, the run itself serves the workload (replayed as often as
//! needed) as a warm-up, in rounds of ROUND requests, until the last five
//! rounds meet the SNIA PTS steady-state rule for VARIABLE (`wa`, the
//! default; `latency`; `rate`), or 25 rounds; then it measures five more
//! rounds (`host/steady.rs`).
//!
//! What happened is reported in `PreconditionReport` (the result's
//! `precondition` object).

use rand_xoshiro::Xoshiro256PlusPlus;

use crate::addr::Lpn;
use crate::config::{Config, Mapping};
use crate::error::{Error, Result};
use crate::ftl::{Ftl, PreconditionReport};
use crate::host::address::{bits, Scan};

/// How the drive is aged before the run (no timed writes). Parts combine
/// with `+` and apply in the order fill, age, trace-sequence, trace-writes,
/// trace-reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Precondition {
    /// `fill:USED:VALID` or `fill:LO-HI:VALID`: every plane filled to
    /// `used` (or to a level drawn uniformly from LO to HI per plane; per die
    /// with aligned block groups), with `valid` of the filled pages valid
    /// (the SPD paper's aging: fill:0.93-0.95:0.8). `(lo, hi, valid)`.
    pub fill: Option<(f64, f64, f64)>,
    /// `age:X`: the first X of the logical space written once, sequentially
    /// (PA-SSD: 0.7).
    pub age: Option<f64>,
    /// `trace-sequence`: the parallel-GC paper's warm-up: the workload's read
    /// addresses, then its write addresses, then its addresses shifted by its
    /// span until the sequence covers the logical capacity, written
    /// repeatedly (with untimed GC) until write amplification is steady.
    pub trace_sequence: bool,
    /// `trace-writes`: the parallel-GC paper's steady state: the workload's
    /// page writes replayed untimed, with untimed GC, until the valid pages
    /// per victim stop changing (after fill, age and trace-sequence).
    pub trace_writes: bool,
    /// `trace-reads`: every LPN the workload reads is mapped.
    pub trace_reads: bool,
    /// `until-steady[:VARIABLE[:ROUND]]`: a timed warm-up until steady
    /// state (module documentation).
    pub until_steady: Option<UntilSteady>,
}

/// What `until-steady` tracks and how long its rounds are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UntilSteady {
    pub variable: SteadyVariable,
    /// Requests per round.
    pub round: u64,
}

/// The variable `until-steady` tracks over its rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SteadyVariable {
    /// Write amplification (host and GC pages programmed over host pages).
    Wa,
    /// Mean latency.
    Latency,
    /// Completion rate (requests per second).
    Rate,
}

impl SteadyVariable {
    pub fn name(self) -> &'static str {
        match self {
            SteadyVariable::Wa => "wa",
            SteadyVariable::Latency => "latency",
            SteadyVariable::Rate => "rate",
        }
    }
}

impl UntilSteady {
    /// Requests per round unless given.
    pub const ROUND: u64 = 10_000;
    /// Rounds at most before measuring anyway (the PTS's limit).
    pub const MAX_ROUNDS: u32 = 25;
}

/// The spec [`Precondition::parse`] reads back as the same value: parts in
/// the order they apply, `none` for no aging.
impl std::fmt::Display for Precondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if let Some((lo, hi, v)) = self.fill {
            parts.push(if lo == hi {
                format!("fill:{lo}:{v}")
            } else {
                format!("fill:{lo}-{hi}:{v}")
            });
        }
        if let Some(x) = self.age {
            parts.push(format!("age:{x}"));
        }
        for (on, name) in [
            (self.trace_sequence, "trace-sequence"),
            (self.trace_writes, "trace-writes"),
            (self.trace_reads, "trace-reads"),
        ] {
            if on {
                parts.push(name.to_string());
            }
        }
        if let Some(u) = self.until_steady {
            parts.push(format!("until-steady:{}:{}", u.variable.name(), u.round));
        }
        if parts.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&parts.join("+"))
        }
    }
}

impl Precondition {
    /// The preconditioning of a run that asks for none in particular: the
    /// pages the workload reads are mapped first, so that every read is a
    /// flash read (the SPD paper "pre-processes" its workloads "to validate
    /// read data" this way; MQSim maps a page on its first read). Without
    /// it a read of a never-written page completes at once.
    pub const DEFAULT: &'static str = "trace-reads";

    /// Parse `none` or `+`-joined parts: `fill:USED:VALID` (USED a share or a
    /// range `LO-HI`), `age:X`,
    /// `trace-sequence`, `trace-writes`, `trace-reads`.
    pub fn parse(s: &str) -> Result<Precondition> {
        let bad = |m: &str| {
            Error::Invalid(format!(
                "--precondition `{s}`: {m} (expected none, or parts joined by +: fill:USED:VALID (USED a share or a range LO-HI), age:X, trace-sequence, trace-writes, trace-reads, until-steady[:wa|latency|rate[:ROUND]])"
            ))
        };
        let mut p = Precondition::default();
        if s == "none" {
            return Ok(p);
        }
        let number = |t: &str, what: &str| {
            t.parse::<f64>()
                .map_err(|_| bad(&format!("{what} is not a number")))
        };
        for part in s.split('+') {
            if part == "trace-reads" {
                p.trace_reads = true;
            } else if part == "trace-sequence" {
                p.trace_sequence = true;
            } else if part == "trace-writes" {
                p.trace_writes = true;
            } else if let Some(rest) = part.strip_prefix("fill:") {
                let (u, v) = rest
                    .split_once(':')
                    .ok_or_else(|| bad("fill needs USED:VALID"))?;
                let (lo, hi) = match u.split_once('-') {
                    Some((lo, hi)) => (number(lo, "USED's LO")?, number(hi, "USED's HI")?),
                    None => {
                        let u = number(u, "USED")?;
                        (u, u)
                    }
                };
                let v = number(v, "VALID")?;
                if !(0.0..1.0).contains(&lo)
                    || !(0.0..1.0).contains(&hi)
                    || !(0.0..=1.0).contains(&v)
                {
                    return Err(bad("USED must be in [0, 1) and VALID in [0, 1]"));
                }
                if lo > hi {
                    return Err(bad("USED's range LO-HI needs LO <= HI"));
                }
                p.fill = Some((lo, hi, v));
            } else if part == "until-steady" || part.starts_with("until-steady:") {
                let mut it = part.split(':').skip(1);
                let variable = match it.next() {
                    None | Some("wa") => SteadyVariable::Wa,
                    Some("latency") => SteadyVariable::Latency,
                    Some("rate") => SteadyVariable::Rate,
                    Some(v) => {
                        return Err(bad(&format!(
                            "until-steady tracks wa, latency or rate, not `{v}`"
                        )))
                    }
                };
                let round = match it.next() {
                    None => UntilSteady::ROUND,
                    Some(r) => match r.parse::<u64>() {
                        Ok(n) if (1..=1 << 32).contains(&n) => n,
                        _ => {
                            return Err(bad(&format!(
                                "until-steady's ROUND is a number of requests from 1 to 2^32, not `{r}`"
                            )))
                        }
                    },
                };
                if it.next().is_some() {
                    return Err(bad("until-steady takes at most VARIABLE:ROUND"));
                }
                p.until_steady = Some(UntilSteady { variable, round });
            } else if let Some(rest) = part.strip_prefix("age:") {
                let x = number(rest, "X")?;
                if !(0.0..=1.0).contains(&x) {
                    return Err(bad(
                        "age:X needs X in [0, 1] (a share of the logical capacity)",
                    ));
                }
                p.age = Some(x);
            } else {
                return Err(bad(&format!("unknown part `{part}`")));
            }
        }
        Ok(p)
    }
    /// Age `ftl` (a fresh drive) as this says, untimed: fill, age, the
    /// trace sequence, the trace's writes, the trace's reads, in that order,
    /// then DFTL's translation pages for whatever is mapped. `scan` is the
    /// workload's pre-scan (needed by trace-sequence and trace-reads),
    /// `writes` its page writes in order (trace-writes).
    pub(crate) fn apply(
        &self,
        ftl: &mut Ftl,
        scan: Option<&Scan>,
        writes: Option<&[Lpn]>,
        cfg: &Config,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Result<PreconditionReport> {
        let logical = cfg.logical_pages();
        let mut pre = PreconditionReport {
            mode: self.describe(),
            ..Default::default()
        };
        if let Some((lo, hi, v)) = self.fill {
            ftl.precondition_fill((lo, hi), v, rng, &mut pre)?;
            ftl.pools_settle_all(0);
        }
        if let Some(x) = self.age {
            let n = (logical as f64 * x).round() as u64;
            pre.age_pages_written = ftl.precondition_map(0..n as Lpn, rng, &mut pre)?;
        }
        if let (true, Some(s)) = (self.trace_sequence, scan) {
            ftl.precondition_sequence(|| fill_sequence(s, logical), rng, &mut pre)?;
        }
        if let (true, Some(w)) = (self.trace_writes, writes) {
            ftl.precondition_steady(w, rng, &mut pre)?;
        }
        if let (true, Some(s)) = (self.trace_reads, scan) {
            pre.trace_read_pages_mapped = ftl.precondition_map(bits(&s.read), rng, &mut pre)?;
        }
        if cfg.ftl.mapping == Mapping::Dftl {
            pre.translation_pages_written =
                ftl.precondition_translation(cfg.mapping_entries_per_page(), rng, &mut pre)?;
        }
        Ok(pre)
    }

    /// Does this aging read the workload (trace-reads, trace-sequence,
    /// trace-writes)?
    pub fn reads_workload(&self) -> bool {
        self.trace_reads || self.trace_sequence || self.trace_writes
    }

    pub fn describe(&self) -> String {
        self.to_string()
    }
}

/// The parallel-GC paper's fill sequence ("we shift the LBAs of workloads to
/// generate new write requests to fill the remaining space"): read
/// addresses, write addresses, then all touched addresses shifted by the
/// workload's span, repeatedly, until the sequence is as long as the logical
/// capacity; then every logical page the sequence has not written yet, in
/// order, so that the drive is full (a sparse workload's shifted copies
/// alone leave gaps, and wrap onto pages already written).
pub(crate) fn fill_sequence(scan: &Scan, logical: u64) -> impl Iterator<Item = Lpn> + '_ {
    let span = bits(&scan.touched).last().map_or(0, |l| l as u64 + 1);
    let head = bits(&scan.read).chain(bits(&scan.written));
    let len = logical.max(bits(&scan.read).count() as u64 + bits(&scan.written).count() as u64);
    let shifted = (1..).take_while(move |_| span > 0).flat_map(move |k: u64| {
        bits(&scan.touched).map(move |l| ((l as u64 + k * span) % logical) as Lpn)
    });
    FillRest {
        inner: head.chain(shifted).take(len as usize),
        written: vec![0u64; logical.div_ceil(64) as usize],
        next: 0,
        logical,
    }
}

/// A fill sequence, then the logical pages it did not write.
struct FillRest<I> {
    inner: I,
    /// Logical pages written so far (a bitmap).
    written: Vec<u64>,
    /// Where the search for an unwritten page resumes.
    next: u64,
    logical: u64,
}

impl<I: Iterator<Item = Lpn>> Iterator for FillRest<I> {
    type Item = Lpn;
    fn next(&mut self) -> Option<Lpn> {
        if let Some(l) = self.inner.next() {
            self.written[l as usize / 64] |= 1 << (l % 64);
            return Some(l);
        }
        while self.next < self.logical {
            let l = self.next;
            self.next += 1;
            let (w, b) = ((l / 64) as usize, 1u64 << (l % 64));
            if self.written[w] & b == 0 {
                self.written[w] |= b;
                return Some(l as Lpn);
            }
        }
        None
    }
}
