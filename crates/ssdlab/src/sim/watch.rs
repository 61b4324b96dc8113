//! Watching a run: where it stands ([`Progress`], what an observer of
//! [`Simulator::run_observed`] sees, and its answer, [`Control`]), and the
//! checks made now and then while it runs: the time series' size, and
//! whether garbage collection still makes headway.

use crate::addr::PlaneId;
use crate::engine::Time;
use crate::error::{Error, Result};

use super::Simulator;

/// Where a run stands: what [`Simulator::run_observed`]'s observer sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Host requests completed and submitted so far.
    pub completed: u64,
    pub submitted: u64,
    /// Simulated time reached, ns.
    pub now_ns: Time,
    /// GC units (planes, or dies with aligned block groups) collecting now,
    /// of all.
    pub gc_active: u32,
    pub gc_units: u32,
    /// GCs finished, blocks erased and pages moved by GC so far.
    pub gc_count: u64,
    pub gc_erases: u64,
    pub gc_pages_moved: u64,
    /// Pages programmed for the host and for the mapping (DFTL's
    /// translation pages).
    pub host_pages_programmed: u64,
    pub mapping_pages_programmed: u64,
    /// Free pages on the drive.
    pub free_pages: u64,
    /// Events fired.
    pub events: u64,
}

/// GC headway check ([`Simulator::check_headway`]): the least share of the
/// pages erased that must be left free for the host (1/1000), and the
/// consecutive windows (each as many erases as half the drive's blocks)
/// without it before the run stops: two turnovers of the drive, so that a
/// GC that recovers after a bad stretch (random victims under DFTL do) is
/// not stopped.
const HEADWAY_MIN_SHARE: u64 = 1000;
const HEADWAY_WINDOWS: u32 = 4;

/// The error of a time series that would need more than
/// [`crate::metrics::MAX_INTERVALS`] intervals of `interval` ns; `when` says
/// what showed it.
pub(crate) fn series_error(origin: &str, interval: Time, when: &str) -> Error {
    Error::config(
        origin,
        "metrics.interval_ms",
        format!(
            "the time series would need more than {} intervals of {} ms {when}; \
             use a longer interval (or 0 for none)",
            crate::metrics::MAX_INTERVALS,
            interval as f64 / 1e6,
        ),
    )
}

/// An observer's answer: go on, or stop the run here (an interrupt).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Continue,
    Stop,
}

impl Simulator {
    /// Where the run stands (for [`run_observed`](Self::run_observed)).
    pub fn progress(&self) -> Progress {
        Progress {
            completed: self.host.completed,
            submitted: self.host.submitted,
            now_ns: self.engine.now(),
            gc_active: (0..self.gc.jobs.len())
                .filter(|&u| self.gc.active(u))
                .count() as u32,
            gc_units: self.gc.jobs.len() as u32,
            gc_count: self.metrics.gc.count,
            gc_erases: self.metrics.gc.erases,
            gc_pages_moved: self.metrics.gc.pages_migrated,
            mapping_pages_programmed: self.metrics.programmed_types[2].iter().sum(),
            host_pages_programmed: self.metrics.host_program_pages[0],
            free_pages: (0..self.cfg.total_planes())
                .map(|p| self.ftl.free_pages(PlaneId(p)))
                .sum(),
            events: self.engine.fired(),
        }
    }

    /// The checks made now and then during a run (time series size, GC
    /// headway), then the observer.
    /// An interrupt ([`crate::workload::interrupt`]: the user's, or the
    /// workload's reader stopped by one) stops the run like an observer's
    /// [`Control::Stop`].
    pub(super) fn checkpoint(
        &mut self,
        observe: &mut dyn FnMut(&Progress) -> Control,
    ) -> Result<Control> {
        self.check_series()?;
        let p = self.progress();
        self.check_headway(&p)?;
        let answer = observe(&p);
        if self.host.interrupted || crate::workload::interrupt::poll() {
            return Ok(Control::Stop);
        }
        Ok(answer)
    }

    /// Stop a run whose time series outgrew [`crate::metrics::MAX_INTERVALS`]
    /// (checked at every checkpoint and at the end: never a truncated series).
    pub(super) fn check_series(&self) -> Result<()> {
        match self.metrics.series_overflow() {
            Some(interval) => Err(series_error(
                &self.cfg.name,
                interval,
                &format!("by simulated time {:.3} s", self.engine.now() as f64 / 1e9),
            )),
            None => Ok(()),
        }
    }

    /// Stop a run whose GC consumes as much space as it frees: in each of
    /// [`HEADWAY_WINDOWS`] consecutive windows of as many erases as half
    /// the drive's blocks (at least 256; long enough for FAST's bursts of
    /// full merges, which stall the host for hundreds of erases and then
    /// let it go), GC's own moves and the mapping's writes took all but
    /// less than 1/[`HEADWAY_MIN_SHARE`] of the pages erased, leaving the
    /// host almost none of them. Such a run never ends (GC cannot get back
    /// above its threshold) or crawls at a write amplification above a
    /// thousand; ending it with the figures is the useful answer.
    fn check_headway(&mut self, p: &Progress) -> Result<()> {
        let w = self.headway;
        if p.gc_erases < w.gc_erases || p.host_pages_programmed < w.host_pages_programmed {
            // the counters were reset (end of a warm-up)
            self.headway = *p;
            self.stalled_since = None;
            return Ok(());
        }
        let blocks =
            u64::from(self.cfg.total_planes()) * u64::from(self.cfg.geometry.blocks_per_plane);
        if p.gc_erases - w.gc_erases < (blocks / 2).max(256) {
            return Ok(());
        }
        self.headway = *p;
        // What GC left for the host: the free pages gained, and those the
        // host programmed meanwhile (whatever the reclaimer's own counts).
        let gained = |from: &Progress| {
            (p.free_pages + (p.host_pages_programmed - from.host_pages_programmed))
                .saturating_sub(from.free_pages)
        };
        let ppb = u64::from(self.cfg.geometry.pages_per_block);
        if gained(&w) * HEADWAY_MIN_SHARE >= (p.gc_erases - w.gc_erases) * ppb {
            self.stalled_since = None;
            return Ok(());
        }
        let (from, windows) = match self.stalled_since {
            Some((from, n)) => (from, n + 1),
            None => (w, 1),
        };
        self.stalled_since = Some((from, windows));
        if windows < HEADWAY_WINDOWS {
            return Ok(());
        }
        let erases = p.gc_erases - from.gc_erases;
        let reclaimed = erases * ppb;
        let moved = p.gc_pages_moved.saturating_sub(from.gc_pages_moved);
        let mapping = p
            .mapping_pages_programmed
            .saturating_sub(from.mapping_pages_programmed);
        Err(Error::Invalid(format!(
            "garbage collection makes no headway: over the last {erases} block erases ({reclaimed} pages \
             reclaimed, simulated time {:.3} s to {:.3} s) GC rewrote {moved} valid pages and the mapping \
             wrote {mapping} pages, leaving {} free pages for host writes; {}. The drive holds too \
             much valid data for `{}`: age it less (--precondition) or give it more over-provisioning",
            from.now_ns as f64 / 1e9,
            p.now_ns as f64 / 1e9,
            gained(&from),
            if self.host.outstanding == 0 && self.host.stream_done && self.host.next_record.is_none() {
                format!(
                    "all {} requests completed, but GC cannot get the drive back above its threshold, \
                     so the run would never end",
                    p.completed
                )
            } else {
                format!(
                    "{} requests completed so far, and the run would not end (or crawl at a write \
                     amplification above {HEADWAY_MIN_SHARE})",
                    p.completed
                )
            },
            self.cfg.name,
        )))
    }
}
