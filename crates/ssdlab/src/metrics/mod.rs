//! Everything measured in a run, and the machine-readable result derived from
//! it. Counters are plain integers updated on the hot path; latencies go to
//! HDR histograms (3 significant digits); the report is built once at the end.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::engine::Time;
use crate::flash::{CmdCounters, CmdKind, Origin};

mod attribution;
mod flows;
mod report;
mod steady;
mod warnings;

pub use attribution::{AttributionBand, AttributionReport, AttributionSums, PartShares};
pub use flows::{set_slowdowns, FlowLatency, FlowMetrics, FlowReport, HostWait};
pub use report::*;
pub use steady::{steady_rule_holds, Cumulative, SteadyState, Variable as SteadyVariable};
pub use warnings::{RunFacts, Warning, SERVED_SHARE, UNWRITTEN_READ_SHARE};

pub struct Metrics {
    /// Per-flow figures (`[[flows]]`; empty without).
    pub flows: Vec<FlowMetrics>,
    pub read_lat: Histogram<u64>,
    pub write_lat: Histogram<u64>,
    /// Exact latency sums and maxima (the histograms quantise to 3 digits).
    lat_sum: [u128; 2],
    /// Sum of squared latencies (ns²), for the standard deviation.
    lat_sq: [u128; 2],
    lat_max: [u64; 2],
    /// Write requests by the slowest page type among their host programs:
    /// fast (all LSB), medium (some CSB, no MSB), slow (some MSB).
    pub(crate) write_speed: [u64; 3],
    /// Under a page-type scheme, per origin (host, GC, mapping): pages that
    /// wanted each type, and those that got it.
    pub(crate) placement: [([u64; 3], [u64; 3]); 3],
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Bytes of host write requests completed before the last reset (the
    /// warm-up): with `write_bytes`, the run's whole (the read-only end's
    /// status).
    pub warmup_write_bytes: u64,
    pub read_pages: u64,
    pub write_pages: u64,
    pub read_hits: u64,
    pub write_hits: u64,
    pub unmapped_read_pages: u64,
    /// Trims replayed (`--replay-trims`).
    pub trim: TrimReport,
    pub cmds: CmdCounters,
    /// Pages programmed (programs and copyback destinations) by origin
    /// (host, GC, mapping) and page type (LSB, CSB, MSB).
    pub programmed_types: [[u64; 3]; 3],
    /// Host pages programmed to the hot write stream.
    pub hot_pages: u64,
    pub wasted_pages: u64,
    /// SuperPage: pages an update rewrote unchanged, and the reads of them.
    pub copied_pages: u64,
    pub superpage_reads: u64,
    /// Host pages programmed, and of them those in multi-plane programs
    /// (counted per page: a Die-Write may mix host pages and GC moves).
    pub host_program_pages: [u64; 2],
    pub gc: GcTotals,
    pub mapping: MappingTotals,
    planes_total: u32,
    busy_planes: u32,
    busy_max: u32,
    busy_integral: u128,
    busy_since: Time,
    evict_samples: u64,
    evict_busy_sum: u64,
    evict_busy_max: u32,
    qd: u32,
    qd_max: u32,
    qd_integral: u128,
    qd_since: Time,
    pub first_arrival: Option<Time>,
    pub last_completion: Time,
    /// The last request's arrival, and the requests outstanding right after
    /// it (saturation: the backlog the drive still had to serve).
    pub last_arrival: Time,
    pub backlog_at_last_arrival: u32,
    /// Per-interval figures (metrics.interval_ms), or None.
    series: Option<Series>,
    /// Latency attribution's sums (`metrics.attribution`), or None.
    pub attribution: Option<Box<AttributionSums>>,
    /// Program and erase suspension's counters (`flash.suspension`), or None.
    pub suspension: Option<SuspensionTotals>,
    /// Cache program's and cache read's counters (`flash.cache_program`,
    /// `flash.cache_read`), or None.
    pub cache: Option<CacheTotals>,
    /// GC pacing's counts (`gc.preemptive`, `gc.idle`), or None.
    pub pacing: Option<PacingTotals>,
    /// Cumulative figures by completions, for the steady-state check.
    rounds: steady::Rounds,
}

/// Cache program's and cache read's counters (`flash.cache_program`,
/// `flash.cache_read`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CacheTotals {
    /// Pages whose data went into a cache register while the die's array
    /// programmed the pages before them.
    pub program_pages: u64,
    /// Pages read from the array while the pages before them left the
    /// cache register.
    pub read_pages: u64,
}

/// Program and erase suspension's counters (`flash.suspension`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SuspensionTotals {
    /// Suspensions of programs (copybacks' program phases included) and of
    /// erases.
    pub programs: u64,
    pub erases: u64,
    /// Time operations spent suspended (suspend latency, the reads served,
    /// resume latency), ns.
    pub suspended_ns: u128,
    /// Pages read while an operation was suspended.
    pub read_pages: u64,
}

/// Accumulators of the time series: one bucket per interval from `start`.
struct Series {
    interval: Time,
    start: Time,
    buckets: Vec<Bucket>,
    /// Set when an event fell beyond [`MAX_INTERVALS`]: the run stops with
    /// an error ([`Metrics::series_overflow`]) instead of growing without
    /// bound; `spare` takes the events meanwhile.
    overflow: bool,
    spare: Bucket,
}

/// Most intervals a time series keeps (about 100 bytes each): a run whose
/// simulated time needs more stops with an error naming `metrics.interval_ms`.
pub const MAX_INTERVALS: usize = 1 << 22;

#[derive(Clone, Copy)]
struct Bucket {
    requests: [u64; 2],
    latency_ns: [u128; 2],
    gc: u64,
    pages: [u64; 2],
    /// Relaxed program order: the drive's free LSB pages after the
    /// interval's last program.
    free_lsb: Option<u64>,
    /// Blocks erased, and the wear spread Δe after the last of them
    /// (`NO_ERASE` if none). 32 bits each keep a bucket at 96 bytes: the
    /// series may hold [`MAX_INTERVALS`] of them.
    erases: u32,
    erase_delta: u32,
}

const NO_ERASE: u32 = u32::MAX;

impl Default for Bucket {
    fn default() -> Bucket {
        Bucket {
            requests: [0; 2],
            latency_ns: [0; 2],
            gc: 0,
            pages: [0; 2],
            free_lsb: None,
            erases: 0,
            erase_delta: NO_ERASE,
        }
    }
}

impl Bucket {
    /// The wear spread after the interval's last erase, if it had one.
    fn erase_delta(&self) -> Option<u64> {
        (self.erase_delta != NO_ERASE).then_some(self.erase_delta as u64)
    }
}

impl Series {
    #[inline]
    fn at(&mut self, now: Time) -> &mut Bucket {
        let i = (now.saturating_sub(self.start) / self.interval) as usize;
        if i >= MAX_INTERVALS {
            self.overflow = true;
            return &mut self.spare;
        }
        if i >= self.buckets.len() {
            self.buckets.resize(i + 1, Bucket::default());
        }
        &mut self.buckets[i]
    }
}

/// GC pacing's counts (the report's `gc.pacing`; `gc/pace.rs`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PacingTotals {
    /// Semi-preemptive GC: host transactions dispatched ahead of a GC step
    /// (a move's start, or an erase) of their die that the scheduling
    /// policy would have run first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemptions: Option<u64>,
    /// Idle-time GC's counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle: Option<IdleTotals>,
}

impl PacingTotals {
    /// The counts of what is on, all zero.
    pub fn new(preemptive: bool, idle: bool) -> PacingTotals {
        PacingTotals {
            preemptions: preemptive.then_some(0),
            idle: idle.then(IdleTotals::default),
        }
    }

    fn fresh(&self) -> PacingTotals {
        PacingTotals::new(self.preemptions.is_some(), self.idle.is_some())
    }
}

/// Idle-time GC's counts.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IdleTotals {
    /// Idle periods: timers that found the drive still idle.
    pub periods: u64,
    /// GCs idle GC started.
    pub gcs: u64,
    /// Page moves idle GCs queued.
    pub moves: u64,
    /// Blocks erased by GCs that ended as idle GCs (one that its plane's
    /// threshold turned into an ordinary GC counts as ordinary).
    pub erases: u64,
    /// Paused idle GCs that a later idle period resumed.
    pub resumed: u64,
}

#[derive(Clone, Debug, Default)]
pub struct GcTotals {
    pub count: u64,
    pub pages_migrated: u64,
    /// Migrations written to the hot stream (`ftl.hot_separation =
    /// "gc-moves"`: the page was judged hot when its move was created).
    pub hot_moves: u64,
    /// Migrations dropped because the host rewrote the page first.
    pub moves_dropped: u64,
    /// Migrations that could not use copyback (odd/even rule) and went
    /// through the controller.
    pub copyback_fallbacks: u64,
    /// GCs started early because a sibling plane of the die started one
    /// (ParaGC's early threshold).
    pub joined: u64,
    /// ParaGC alignment: moves programmed on a joined
    /// plane whose write point lagged its siblings', to align them.
    pub aligning_moves: u64,
    /// Host pages programmed within a GC's Die-Writes (SPD+ combining, and
    /// the last short Die-Write of a Die-GC completed from the buffer).
    pub host_pages_combined: u64,
    /// FAST: logical blocks merged by copying (full merges) and logs that
    /// became data blocks as they were (switch merges).
    pub full_merges: u64,
    pub switch_merges: u64,
    /// Merge moves that stayed in their plane as copybacks (DVPFTL).
    pub in_place_copybacks: u64,
    /// DVPFTL: page-mapped logs closed before they were full.
    pub logs_closed_early: u64,
    pub erases: u64,
    /// Victims chosen (blocks, or groups), the valid pages they held when
    /// chosen, and their pages (the parallel-GC paper's Tables 3 and 5).
    pub victims: u64,
    pub victim_valid: u64,
    pub victim_pages: u64,
    /// Copybacks each register of a plane ran (worker i: the i-th copyback
    /// of its plane in a command; one worker with one register per plane).
    pub pairs_per_worker: [u64; crate::types::MAX_PLANES_PER_DIE],
    /// Sum over GC invocations of (erase completion − trigger).
    pub duration_ns: u128,
    /// Of that, the migration phase: from the trigger to the last move's
    /// end (the victim's erase queued). Per-plane and die-group GCs.
    pub migration_ns: u128,
    pub read_ns: u128,
    pub write_ns: u128,
    pub transfer_ns: u128,
    pub erase_ns: u128,
    /// Host programs: time from queueing to completion, summed.
    pub host_write_ns: u128,
    /// Of that, time waited while the target die was collecting garbage.
    pub blocked_ns: u128,
    /// Host programs that waited through some GC time.
    pub blocked_writes: u64,
}

/// DFTL's cached mapping table and translation-page traffic.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MappingTotals {
    /// Map lookups (host reads from flash, host and mapping-page updates)
    /// the cached mapping table served, and those that missed.
    pub cache_hits: u64,
    pub cache_misses: u64,
    /// Translation pages read from flash (misses of one page in flight share
    /// one read) and written back.
    pub translation_reads: u64,
    pub translation_writes: u64,
    /// Translation-page write-backs caused by GC moving pages whose map
    /// entries were not cached (batched per finished GC).
    pub gc_translation_updates: u64,
    /// Write-backs that joined a write-back of the same translation page
    /// still queued.
    pub writes_coalesced: u64,
}

/// Latency histogram: 1 ns to 2^50 ns (13 days), 3 significant digits;
/// longer latencies are clamped to the top (a request that slow is a bug or a
/// stalled drive, and the max still shows it).
fn hist() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 1 << 50, 3).expect("valid histogram bounds")
}

impl Metrics {
    /// `interval` > 0 keeps a time series with one entry per `interval` ns.
    /// `max_pages`: the most pages one command holds (planes per die ×
    /// registers per plane).
    pub fn new(max_pages: u32, planes_total: u32, interval: Time) -> Self {
        Metrics {
            series: (interval > 0).then(|| Series {
                interval,
                start: 0,
                buckets: Vec::new(),
                overflow: false,
                spare: Bucket::default(),
            }),
            rounds: steady::Rounds::new(0),
            attribution: None,
            suspension: None,
            cache: None,
            pacing: None,
            flows: Vec::new(),
            read_lat: hist(),
            write_lat: hist(),
            lat_sum: [0; 2],
            lat_sq: [0; 2],
            lat_max: [0; 2],
            write_speed: [0; 3],
            placement: [([0; 3], [0; 3]); 3],
            read_bytes: 0,
            write_bytes: 0,
            warmup_write_bytes: 0,
            read_pages: 0,
            write_pages: 0,
            read_hits: 0,
            write_hits: 0,
            unmapped_read_pages: 0,
            trim: TrimReport::default(),
            cmds: CmdCounters::new(max_pages),
            programmed_types: [[0; 3]; 3],
            hot_pages: 0,
            wasted_pages: 0,
            host_program_pages: [0; 2],
            copied_pages: 0,
            superpage_reads: 0,
            gc: GcTotals::default(),
            mapping: MappingTotals::default(),
            planes_total,
            busy_planes: 0,
            busy_max: 0,
            busy_integral: 0,
            busy_since: 0,
            evict_samples: 0,
            evict_busy_sum: 0,
            evict_busy_max: 0,
            qd: 0,
            qd_max: 0,
            qd_integral: 0,
            qd_since: 0,
            first_arrival: None,
            last_completion: 0,
            last_arrival: 0,
            backlog_at_last_arrival: 0,
        }
    }

    /// Start measuring afresh at `now` (end of warm-up): counters and
    /// histograms restart; the current busy-plane count and queue depth carry on.
    pub fn reset(&mut self, now: Time) {
        let (busy, qd) = (self.busy_planes, self.qd);
        let interval = self.series.as_ref().map_or(0, |s| s.interval);
        let mut fresh = Metrics::new(self.cmds.max_planes() as u32, self.planes_total, interval);
        if let Some(s) = &mut fresh.series {
            s.start = now;
        }
        fresh.busy_planes = busy;
        fresh.busy_since = now;
        fresh.qd = qd;
        fresh.qd_since = now;
        fresh.first_arrival = Some(now);
        fresh.last_completion = now;
        fresh.attribution = self
            .attribution
            .as_ref()
            .map(|a| Box::new(AttributionSums::new(a.suspension, a.host)));
        fresh.suspension = self.suspension.map(|_| SuspensionTotals::default());
        fresh.cache = self.cache.map(|_| CacheTotals::default());
        fresh.pacing = self.pacing.as_ref().map(PacingTotals::fresh);
        fresh.rounds = steady::Rounds::new(now);
        fresh.warmup_write_bytes = self.warmup_write_bytes + self.write_bytes;
        fresh.flows = self.flows.iter().map(|f| f.fresh(now)).collect();
        *self = fresh;
    }

    /// The measurement's cumulative figures so far.
    pub fn cumulative(&self) -> Cumulative {
        self.rounds.cumulative()
    }

    /// `n` planes became busy (positive) or idle (negative) at `now`.
    #[inline]
    pub fn planes_busy(&mut self, now: Time, delta: i32) {
        self.busy_integral += self.busy_planes as u128 * (now - self.busy_since) as u128;
        self.busy_since = now;
        self.busy_planes = (self.busy_planes as i32 + delta) as u32;
        self.busy_max = self.busy_max.max(self.busy_planes);
    }

    /// SPD's sampling point: a buffer eviction completed.
    #[inline]
    pub fn sample_at_eviction(&mut self) {
        self.evict_samples += 1;
        self.evict_busy_sum += self.busy_planes as u64;
        self.evict_busy_max = self.evict_busy_max.max(self.busy_planes);
    }

    /// A request arrived now (after it joined the queue).
    #[inline]
    pub fn arrived(&mut self, now: Time) {
        self.last_arrival = now;
        self.backlog_at_last_arrival = self.qd;
    }

    #[inline]
    pub fn queue_depth(&mut self, now: Time, delta: i32) {
        self.qd_integral += self.qd as u128 * (now - self.qd_since) as u128;
        self.qd_since = now;
        self.qd = (self.qd as i32 + delta) as u32;
        self.qd_max = self.qd_max.max(self.qd);
    }

    /// The time series' interval in ns, if it outgrew [`MAX_INTERVALS`].
    pub fn series_overflow(&self) -> Option<Time> {
        self.series
            .as_ref()
            .and_then(|s| s.overflow.then_some(s.interval))
    }

    /// A GC finished at `now` (for the time series).
    #[inline]
    pub fn series_gc(&mut self, now: Time) {
        if let Some(s) = &mut self.series {
            s.at(now).gc += 1;
        }
    }

    /// `n` pages programmed at `now` by the host (`gc` false) or GC.
    #[inline]
    pub fn series_pages(&mut self, now: Time, gc: bool, n: u64) {
        if let Some(s) = &mut self.series {
            s.at(now).pages[gc as usize] += n;
        }
    }

    /// A block was erased at `now`, leaving the planes' erase sums `delta`
    /// apart (for the time series).
    #[inline]
    pub fn series_erase(&mut self, now: Time, delta: u64) {
        if let Some(s) = &mut self.series {
            let b = s.at(now);
            b.erases = b.erases.saturating_add(1);
            b.erase_delta = delta.min(NO_ERASE as u64 - 1) as u32;
        }
    }

    /// Relaxed program order: the drive's free LSB pages now (PA-SSD's
    /// Fig. 16), kept per interval of the time series.
    #[inline]
    pub fn sample_free_lsb(&mut self, now: Time, pages: u64) {
        if let Some(s) = &mut self.series {
            s.at(now).free_lsb = Some(pages);
        }
    }

    /// A request completed at `now` after `ns`.
    #[inline]
    pub fn record_latency(&mut self, write: bool, ns: u64, now: Time) {
        if let Some(s) = &mut self.series {
            let b = s.at(now);
            b.requests[write as usize] += 1;
            b.latency_ns[write as usize] += ns as u128;
        }
        let h = if write {
            &mut self.write_lat
        } else {
            &mut self.read_lat
        };
        h.saturating_record(ns.max(1));
        self.rounds
            .completed(now, ns, self.host_program_pages[0], self.gc.pages_migrated);
        self.lat_sum[write as usize] += ns as u128;
        self.lat_sq[write as usize] += ns as u128 * ns as u128;
        self.lat_max[write as usize] = self.lat_max[write as usize].max(ns);
    }
}

#[cfg(test)]
mod tests {
    /// A time-series bucket stays at 96 bytes: a series may hold
    /// `MAX_INTERVALS` (2^22) of them before the run stops, and the hostile
    /// inputs' test holds such a run under 400 MiB.
    #[test]
    fn a_bucket_stays_small() {
        assert!(std::mem::size_of::<super::Bucket>() <= 96);
    }
}
