//! The simulator: owns every layer and runs the event loop.
//!
//! A host request is split into page sub-requests (`host`). Reads look in the
//! write buffer, then become flash read transactions; writes enter the
//! buffer (`buffer`, or without one become program transactions). Transactions
//! wait in per-plane queues (`sched`); whenever a die is idle the command
//! builder picks the next command for it, joining aligned heads of other
//! planes' queues into one multi-plane command. Physical pages are allocated
//! when a program is dispatched (`ftl`), so programs of a block always go in
//! page order and two planes can be programmed together exactly when their
//! write points are aligned. Garbage collection (`gc`) feeds its moves into
//! the same queues; the executor (`flash::executor`) times commands on dies
//! and channels.
//!
//! `Simulator::new` is the composition root: it builds the GC units' shape
//! and every policy object (`scheme::compose`) and hands each to its layer.
//!
//! **The in-flight map** (`Simulator::inflight`) maps an LPN to its newest
//! queued or executing host program. Programs of one LPN can race (two
//! evictions of it, two unbuffered writes in different planes' queues); at
//! dispatch a program maps its LPN only if it is still the newest, and an
//! older one that runs later is programmed stale (it costs flash time and
//! counts as a host program). The entry goes when the newest program
//! completes. This keeps the newest data mapped whatever the execution order,
//! and is the checker's view of data not yet on flash.

pub mod flows;
pub mod lifetime;
pub mod state;
mod txn;
mod watch;

pub use watch::{Control, Progress};

use crate::buffer::admit::Buffering;
use crate::flash::executor::Executor;
use crate::ftl::hot::HotCold;
use crate::ftl::mapping::dftl::Dftl;
use crate::host::Host;
use crate::sched::queue::Sched;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashMap;

use crate::addr::{DieId, Lpn, PlaneId};
use crate::attribution::Attribution;
use crate::config::{AddressMode, BufferCapacity, Config, HostMode};
use crate::domain::Domains;
use crate::engine::{Engine, EventKind, Time};
use crate::error::{Error, Result};
use crate::ftl::{Ftl, PreconditionReport};
use crate::gc::Gc;
use crate::host::address::{scan, AddressMap};
use crate::host::precondition::Precondition;
use crate::metrics::{Metrics, Report, ReportContext};
use crate::sched::txn::Txn;
use crate::sched::unit::Unit;
use crate::sched::Class;
use crate::scheme::compose;
use crate::types::{ReqId, TxnId, MAX_PLANES_PER_DIE};
use crate::workload::Source;

pub use crate::host::{Completion, RequestLog};

/// One point of a latency distribution ([`Simulator::latency_cdf`]): of the
/// requests of `op`, `count` took `latency_us` (a bucket of the histogram,
/// 3 significant digits), and `fraction` took at most that.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CdfPoint {
    pub op: String,
    pub latency_us: f64,
    pub count: u64,
    pub fraction: f64,
}

pub struct Simulator {
    pub(crate) cfg: Config,
    pub(crate) engine: Engine,
    /// Requests: arrival, splitting, completion (`host`).
    pub(crate) host: Host,
    /// The write buffer, its eviction policy and the writes waiting for it
    /// (`buffer`).
    pub(crate) buffer: Buffering,
    /// Maps, blocks, allocation (`ftl`).
    pub(crate) ftl: Ftl,
    /// Hot/cold write streams (`ftl::hot`).
    pub(crate) hot: HotCold,
    /// DFTL's timed side (`ftl::mapping::dftl`).
    pub(crate) dftl: Dftl,
    /// Garbage collection: its jobs, clock and reclaimer (`gc`).
    pub(crate) gc: Gc,
    /// The write unit: pages, Die-Writes or super pages (`sched::unit`).
    pub(crate) unit: Unit,
    /// Queues and the dies to dispatch on (`sched`).
    pub(crate) sched: Sched,
    /// Dies and channels, and command timing (`flash::executor`).
    pub(crate) flash: Executor,
    /// Transactions (a slab with a free list, `sim::txn`), and the LPNs
    /// whose newest data is in a queued program (not on flash yet).
    pub(crate) txns: Vec<Txn>,
    pub(crate) free_txns: Vec<TxnId>,
    pub(crate) inflight: FxHashMap<Lpn, TxnId>,
    pub(crate) metrics: Metrics,
    pub(crate) rng: Xoshiro256PlusPlus,
    pub(crate) error: Option<Error>,
    pub(crate) precondition: PreconditionReport,
    /// The observer stopped the run before the end of the workload.
    pub(crate) partial: bool,
    /// Called with every completed host request, if set.
    pub(crate) request_log: Option<RequestLog>,
    /// Where the current GC headway window started, and where the current
    /// run of windows without headway started (and how many).
    pub(crate) headway: Progress,
    pub(crate) stalled_since: Option<(Progress, u32)>,
    pub(crate) ppd: u32,
    /// How the trace is read (reported), and what the warnings need that
    /// is known before the run.
    pub(crate) trace_format: Option<crate::workload::TraceRead>,
    pub(crate) facts: crate::metrics::RunFacts,
    /// Latency attribution's bookkeeping (`metrics.attribution`), or None.
    pub(crate) attr: Option<Box<Attribution>>,
    /// Bad blocks: the drive went read-only (a plane ran out of spare
    /// blocks); the status the report gives. The run ends at the end of
    /// the event.
    pub(crate) read_only: Option<String>,
    /// The host interface (`interface`), or None.
    pub(crate) hostif: Option<Box<crate::hostif::HostIf>>,
}

/// Before a run, where the workload's span is known (a pre-scan, records in
/// memory): refuse an arrival time scaled beyond 2^62 ns
/// (`host.time_scale`) and a time series that would need more than
/// [`crate::metrics::MAX_INTERVALS`] intervals by the last arrival.
fn check_span(
    cfg: &Config,
    source: &Source,
    scan: Option<&crate::host::address::Scan>,
) -> Result<()> {
    if cfg.host.mode != HostMode::OpenLoop {
        return Ok(());
    }
    let known = match (scan, source) {
        (Some(s), _) => s.times.map(|(a, b)| (b.saturating_sub(a), s.records)),
        (None, Source::Records { records, .. }) => {
            let first = records.first().map(|r| r.time_ns);
            let last = records.last().map(|r| r.time_ns);
            first
                .zip(last)
                .map(|(a, b)| (b.saturating_sub(a), records.len() as u64))
        }
        _ => None,
    };
    let Some((span, n)) = known else {
        return Ok(());
    };
    // The last arrival of the last pass (each pass starts one mean gap
    // after the previous one's last request), scaled.
    let gap = if n > 1 { span / (n - 1) } else { 0 };
    let passes = f64::from(cfg.host.replays);
    let last = ((passes - 1.0) * (span as f64 + gap as f64) + span as f64) * cfg.host.time_scale;
    if last > crate::workload::input::MAX_TIME_NS as f64 {
        return Err(Error::config(
            &cfg.name,
            if cfg.host.time_scale > 1.0 {
                "host.time_scale"
            } else {
                "host.replays"
            },
            format!(
                "{} ({} ns from its first to its last request) with host.time_scale {} and \
                 host.replays {} ends at {last:e} ns, beyond 2^62 ns (146 years), the longest a \
                 simulation runs",
                source.describe(),
                span,
                cfg.host.time_scale,
                cfg.host.replays
            ),
        ));
    }
    let interval = (cfg.metrics.interval_ms * 1e6).round();
    if interval > 0.0 && last / interval >= crate::metrics::MAX_INTERVALS as f64 {
        return Err(watch::series_error(
            &cfg.name,
            interval as Time,
            &format!(
                "by the workload's last arrival (simulated time {:.3} s)",
                last / 1e9
            ),
        ));
    }
    Ok(())
}

/// How a new simulator's drive gets its age.
enum Aging<'a> {
    /// Aged per this precondition; the state kept if `save`.
    Age(&'a Precondition, bool),
    /// Loaded from a saved state.
    Load(&'a SavedState),
}

pub use state::SavedState;

impl Simulator {
    /// Build a drive from `cfg`, age it per `precondition`, and open `source`.
    pub fn new(cfg: &Config, source: &Source, precondition: &Precondition) -> Result<Simulator> {
        Ok(Simulator::build(cfg, source, &[], Aging::Age(precondition, false))?.0)
    }

    /// Build a drive from `cfg`, whose `flows` name one workload each, age
    /// it per `precondition`, and open `sources`, one per flow in order
    /// (`host/flows.rs`).
    pub fn with_flows(
        cfg: &Config,
        sources: &[Source],
        precondition: &Precondition,
    ) -> Result<Simulator> {
        if sources.is_empty() || sources.len() != cfg.flows.len() {
            return Err(Error::Invalid(format!(
                "{} workloads for {} flows: give one per flow",
                sources.len(),
                cfg.flows.len()
            )));
        }
        Ok(Simulator::build(cfg, &sources[0], sources, Aging::Age(precondition, false))?.0)
    }

    /// [`new`](Self::new), also returning the drive as aging left it
    /// ([`SavedState`], to write with [`SavedState::write`] or to start
    /// other simulators from).
    pub fn new_saving(
        cfg: &Config,
        source: &Source,
        precondition: &Precondition,
    ) -> Result<(Simulator, SavedState)> {
        let (sim, state) = Simulator::build(cfg, source, &[], Aging::Age(precondition, true))?;
        Ok((sim, state.expect("asked to save")))
    }

    /// Build a drive from `cfg` in the saved `state` instead of aging it
    /// (refused, naming the key, unless the state was saved for this
    /// drive, its aging and, where aging reads the workload, `source`'s
    /// pages), and open `source`. The run and its report are those of the
    /// run that ages in the same process, byte for byte.
    pub fn new_loaded(cfg: &Config, source: &Source, state: &SavedState) -> Result<Simulator> {
        Ok(Simulator::build(cfg, source, &[], Aging::Load(state))?.0)
    }

    fn build(
        cfg: &Config,
        source: &Source,
        flow_sources: &[Source],
        aging: Aging<'_>,
    ) -> Result<(Simulator, Option<SavedState>)> {
        let loaded;
        let precondition = match aging {
            Aging::Age(p, _) => p,
            Aging::Load(s) => {
                loaded = s.precondition()?;
                &loaded
            }
        };
        cfg.validate(&cfg.name)?;
        if flow_sources.is_empty() != cfg.flows.is_empty() {
            return Err(Error::config(
                &cfg.name,
                "flows",
                if cfg.flows.is_empty() {
                    "workloads of flows given to a configuration without [[flows]]"
                } else {
                    "the configuration has [[flows]]: each flow's workload is given with them \
                     (Simulator::with_flows, `ssdlab run --flow`), not as one workload"
                },
            ));
        }
        if !cfg.flows.is_empty() {
            for (on, what) in [
                (precondition.trace_writes, "--precondition trace-writes"),
                (
                    precondition.until_steady.is_some(),
                    "--precondition until-steady",
                ),
            ] {
                if on {
                    return Err(Error::config(
                        &cfg.name,
                        "flows",
                        format!("{what} is not supported with [[flows]] (use none, fill, age, trace-reads or trace-sequence)"),
                    ));
                }
            }
            if let Some(path) = flow_sources.iter().find_map(|s| s.read_once()) {
                return Err(Error::Invalid(format!(
                    "{} is not a regular file (a pipe or a device): a flow's trace is read twice (once to merge the flows); save it to a file",
                    path.display()
                )));
            }
        }
        if cfg.geometry.planes_per_die as usize > MAX_PLANES_PER_DIE {
            return Err(Error::config(
                &cfg.name,
                "geometry.planes_per_die",
                format!("at most {MAX_PLANES_PER_DIE} planes per die are supported"),
            ));
        }
        if cfg.geometry.pages_per_block > u16::MAX as u32 {
            return Err(Error::config(
                &cfg.name,
                "geometry.pages_per_block",
                format!("at most {} pages per block", u16::MAX),
            ));
        }
        // Refuse a drive whose maps would not fit in memory before
        // allocating them (the kernel would kill the process part-way).
        if let Some(available) = crate::mem::available_bytes() {
            let need = cfg.memory_estimate();
            if need > available {
                let size = |b: u64| {
                    if b >= 1 << 30 {
                        format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
                    } else {
                        format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
                    }
                };
                return Err(Error::config(
                    &cfg.name,
                    "geometry",
                    format!(
                        "this drive ({} physical pages) needs about {} of memory for its page maps and block state, more than the {} available (MemAvailable, the cgroup limit, or SSDLAB_MEMORY_BYTES)",
                        cfg.physical_pages(),
                        size(need),
                        size(available)
                    ),
                ));
            }
        }
        if precondition.until_steady.is_some() && cfg.host.warmup_requests > 0 {
            return Err(Error::config(
                &cfg.name,
                "host.warmup_requests",
                "--precondition until-steady decides when measurement starts: set host.warmup_requests to 0",
            ));
        }
        let page = cfg.geometry.page_size_bytes as u64;
        let logical = cfg.logical_pages();
        let need_footprint = matches!(cfg.buffer.capacity, BufferCapacity::FootprintPercent(_));
        let compact = cfg.host.address_mode == AddressMode::Compact;
        if let Some(path) = source.read_once() {
            let twice: Vec<&str> = [
                (
                    precondition.trace_reads,
                    "--precondition trace-reads (the default for traces)",
                ),
                (precondition.trace_sequence, "--precondition trace-sequence"),
                (precondition.trace_writes, "--precondition trace-writes"),
                (
                    need_footprint,
                    "a buffer sized by the footprint (buffer.capacity)",
                ),
                (compact, "host.address_mode = \"compact\""),
                (cfg.host.replays > 1, "host.replays above 1"),
                (
                    precondition.until_steady.is_some(),
                    "--precondition until-steady (it replays the workload)",
                ),
            ]
            .into_iter()
            .filter_map(|(on, what)| on.then_some(what))
            .collect();
            if !twice.is_empty() {
                return Err(Error::Invalid(format!(
                    "{} is not a regular file (a pipe or a device), so it can be read only once, \
                     but {} read{} the trace before or after the run; save the trace to a file, \
                     or do without (for instance --precondition none, --set buffer.capacity.pages=N)",
                    path.display(),
                    twice.join(" and "),
                    if twice.len() == 1 { "s" } else { "" }
                )));
            }
        }
        let (scan, address_map) = if !cfg.flows.is_empty() {
            let scan = if need_footprint || precondition.trace_reads || precondition.trace_sequence
            {
                let each: Vec<_> = flow_sources
                    .iter()
                    .zip(&cfg.flows)
                    .map(|(s, f)| (s, f.namespace))
                    .collect();
                Some(crate::host::address::scan_flows(&each, logical, page)?)
            } else {
                None
            };
            (scan, AddressMap::Fold)
        } else if need_footprint
            || compact
            || precondition.trace_reads
            || precondition.trace_sequence
        {
            let (s, m) = scan(source, logical, page, compact)?;
            (Some(s), m)
        } else {
            (None, AddressMap::Fold)
        };
        if cfg.flows.is_empty() {
            check_span(cfg, source, scan.as_ref())?;
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed);
        // The composition root: the GC units' shape and every policy object
        // are built here (`scheme::compose`) and handed to their layers.
        let domains = Domains::new(cfg);
        let writes = if precondition.trace_writes {
            Some(crate::host::address::write_pages(
                source,
                &address_map,
                logical,
                page,
            )?)
        } else {
            None
        };
        // What aging reads of the workload (a saved state's `workload` key).
        let input = state::AgingInput {
            read: scan
                .as_ref()
                .filter(|_| precondition.trace_reads)
                .map(|s| &s.read[..]),
            sequence: scan
                .as_ref()
                .filter(|_| precondition.trace_sequence)
                .map(|s| (&s.read[..], &s.written[..], &s.touched[..])),
            writes: writes.as_deref(),
        };
        let (mut ftl, pre, saved) = match aging {
            Aging::Age(_, save) => {
                let mut ftl = Ftl::new(cfg, &domains, cfg.check.enabled);
                ftl.set_request_allocator(compose::request_allocator(cfg, &domains));
                let pre = precondition.apply(
                    &mut ftl,
                    scan.as_ref(),
                    writes.as_deref(),
                    cfg,
                    &mut rng,
                )?;
                let saved = if save {
                    Some(SavedState::encode(
                        cfg,
                        precondition,
                        &input,
                        &source.describe(),
                        &ftl,
                        &rng,
                        &pre,
                    )?)
                } else {
                    None
                };
                (ftl, pre, saved)
            }
            Aging::Load(s) => {
                s.check(cfg, precondition, &input, &source.describe())?;
                let (ftl, r, pre) = s.decode(cfg)?;
                rng = r;
                (ftl, pre, None)
            }
        };
        // Wear levelling counts the timed run's moves (and a loaded state
        // does not carry its state).
        ftl.levelling_restart(cfg);
        ftl.homes_restart(cfg);
        // A replicate's own stream: the generator as aging left it, jumped
        // `replicate` × 2^128 draws ahead (the aged drive is the same).
        for _ in 0..cfg.replicate {
            rng.jump();
        }
        ftl.bad_blocks_replicate(cfg.replicate);
        if let Some(p) = ftl.out_of_spares() {
            return Err(Error::config(
                &cfg.name,
                "flash.bad_blocks",
                format!(
                    "the drive is read-only before the run: plane {p} has {} retired blocks, more than its {} spares",
                    ftl.retired_blocks(p),
                    cfg.spare_blocks()
                ),
            ));
        }
        if cfg.gc_threshold_beyond_spare() {
            let writes = match writes {
                Some(w) => w,
                None => crate::host::address::write_pages(source, &address_map, logical, page)?,
            };
            let most = ftl.max_plane_valid(&writes);
            let (ppp, thr) = (cfg.pages_per_plane(), cfg.gc_threshold_pages());
            let ppb = cfg.geometry.pages_per_block as u64;
            if most + thr + ppb > ppp {
                return Err(Error::config(
                    &cfg.name,
                    "gc.threshold",
                    format!(
                        "{thr} free pages per plane can never be kept: it is not below the spare space, and the \
                         preconditioned data and the workload's writes fill up to {most} of a plane's {ppp} pages \
                         (GC needs one more block); lower the threshold, or age less"
                    ),
                ));
            }
        }
        let buffer = Buffering::new(
            cfg,
            scan.as_ref().map_or(0, |s| s.footprint_pages),
            compose::eviction(cfg),
        )?;
        let planes = cfg.total_planes();
        let threshold = cfg.gc_threshold_pages();
        let facts = crate::metrics::RunFacts {
            closed_loop: cfg.host.mode == HostMode::ClosedLoop,
            page_bytes: page,
            logical_pages: logical,
            footprint_pages: scan.as_ref().map(|s| s.footprint_pages),
            gc_units: match cfg.ftl.block_groups {
                crate::config::BlockGroups::Die => cfg.total_dies() as u64,
                _ => planes as u64,
            },
            room_before_gc: (0..planes)
                .map(|p| ftl.free_pages(PlaneId(p)).saturating_sub(threshold))
                .sum(),
            warmup_requests: cfg.host.warmup_requests,
            ..Default::default()
        };
        let ppd = cfg.geometry.planes_per_die;
        let stream: crate::workload::RecordStream = if cfg.flows.is_empty() {
            source.open_ahead()?
        } else {
            Box::new(std::iter::empty())
        };
        let mut host = Host::new(source, stream, address_map, page);
        if !cfg.flows.is_empty() {
            host.workload = cfg
                .flows
                .iter()
                .zip(flow_sources)
                .map(|(f, s)| format!("{} ({})", f.name, s.describe()))
                .collect::<Vec<_>>()
                .join(" + ");
            host.flows = Some(Box::new(crate::host::flows::Flows::new(cfg, flow_sources)?));
        }
        let mut sim = Simulator {
            cfg: cfg.clone(),
            engine: Engine::new(),
            host,
            buffer,
            ftl,
            hot: HotCold::new(cfg, compose::hot_data(cfg)),
            dftl: Dftl::new(cfg),
            gc: Gc::new(cfg, &domains, compose::reclaimer(cfg)),
            unit: compose::write_unit(cfg),
            sched: Sched::new(cfg),
            flash: Executor::new(cfg),
            txns: Vec::new(),
            free_txns: Vec::new(),
            inflight: FxHashMap::default(),
            metrics: Metrics::new(
                ppd * cfg.flash.plane_registers,
                planes,
                (cfg.metrics.interval_ms * 1e6).round() as Time,
            ),
            rng,
            error: None,
            precondition: pre,
            partial: false,
            request_log: None,
            headway: Progress::default(),
            stalled_since: None,
            ppd,
            trace_format: source.trace_read(),
            facts,
            attr: cfg
                .metrics
                .attribution
                .then(|| Box::new(Attribution::new(cfg.total_dies() as usize))),
            read_only: None,
            hostif: cfg.interface.as_ref().and_then(crate::hostif::HostIf::new),
        };
        sim.metrics.flows = crate::host::flows::flow_metrics(cfg);
        if cfg.metrics.attribution {
            sim.metrics.attribution = Some(Box::new(crate::metrics::AttributionSums::new(
                !cfg.flash.suspension.is_off(),
                cfg.attribution_host_part(),
            )));
        }
        if !cfg.flash.suspension.is_off() {
            sim.metrics.suspension = Some(crate::metrics::SuspensionTotals::default());
        }
        if cfg.flash.cache_program || cfg.flash.cache_read {
            sim.metrics.cache = Some(crate::metrics::CacheTotals::default());
        }
        if sim.gc.pace.on() {
            sim.metrics.pacing = Some(crate::metrics::PacingTotals::new(
                cfg.gc.preemptive,
                cfg.gc.idle.is_some(),
            ));
        }
        sim.host.page_types = compose::page_types(cfg)?;
        sim.host.steady = precondition
            .until_steady
            .map(crate::host::steady::SteadyWarmup::new);
        for p in 0..planes {
            sim.gc_trigger(PlaneId(p));
        }
        Ok((sim, saved))
    }

    /// Buffer capacity in pages actually used (0 = no buffer).
    pub fn buffer_pages(&self) -> u64 {
        self.buffer.pages
    }

    /// Requests completed so far.
    pub fn completed(&self) -> u64 {
        self.host.completed
    }

    /// Run to the end of the workload. `progress` is called now and then with
    /// the number of completed requests.
    pub fn run(self, progress: &mut dyn FnMut(u64)) -> Result<Report> {
        self.run_observed(&mut |p| {
            progress(p.completed);
            Control::Continue
        })
    }

    /// Run to the end of the workload, or until `observe` (called now and
    /// then, and at the end) says [`Control::Stop`]: then the report
    /// covers the run so far and is marked partial ([`Report::partial`]).
    pub fn run_observed(mut self, observe: &mut dyn FnMut(&Progress) -> Control) -> Result<Report> {
        self.run_events(observe)?;
        Ok(self.finish())
    }

    /// Like [`run`](Self::run) but also returns the simulator for inspection.
    pub fn run_inspect(self, progress: &mut dyn FnMut(u64)) -> Result<(Report, Simulator)> {
        self.run_observed_inspect(&mut |p| {
            progress(p.completed);
            Control::Continue
        })
    }

    /// Like [`run_observed`](Self::run_observed) but also returns the
    /// simulator for inspection ([`latency_cdf`](Self::latency_cdf), the FTL).
    pub fn run_observed_inspect(
        mut self,
        observe: &mut dyn FnMut(&Progress) -> Control,
    ) -> Result<(Report, Simulator)> {
        self.run_events(observe)?;
        let r = self.finish();
        Ok((r, self))
    }

    /// Call `log` with every host request as it completes (after a
    /// warm-up too), in completion order.
    pub fn log_requests(&mut self, log: RequestLog) {
        self.request_log = Some(log);
    }

    /// The latency distribution of reads and of writes so far (after the
    /// warm-up): one point per histogram bucket that holds requests, in
    /// increasing latency.
    pub fn latency_cdf(&self) -> Vec<CdfPoint> {
        let mut out = Vec::new();
        for (op, h) in [
            ("read", &self.metrics.read_lat),
            ("write", &self.metrics.write_lat),
        ] {
            let total = h.len();
            let mut below = 0u64;
            for v in h.iter_recorded() {
                let n = v.count_at_value();
                below += n;
                out.push(CdfPoint {
                    op: op.to_string(),
                    latency_us: h.highest_equivalent(v.value_iterated_to()) as f64 / 1e3,
                    count: n,
                    fraction: below as f64 / total as f64,
                });
            }
        }
        out
    }

    pub(crate) fn run_events(
        &mut self,
        observe: &mut dyn FnMut(&Progress) -> Control,
    ) -> Result<()> {
        match self.cfg.host.mode {
            _ if self.host.flows.is_some() => self.flows_start(),
            HostMode::OpenLoop => {
                self.schedule_next_arrival();
            }
            HostMode::ClosedLoop => {
                self.host.closed_due = self.cfg.host.queue_depth;
                self.engine.schedule(0, EventKind::Arrival, 0);
            }
        }
        self.end_event();
        let mut next_progress = 0u64;
        let mut tick = 0u32;
        while let Some(ev) = self.engine.pop() {
            match ev.kind() {
                EventKind::Arrival => self.on_arrival(),
                EventKind::ReadArrayDone => self.on_read_array_done(DieId(ev.arg())),
                EventKind::TransferDone => self.on_transfer_done(ev.arg(), ev.tag()),
                EventKind::DieDone => self.on_die_done(DieId(ev.arg()), ev.tag()),
                EventKind::Suspend => self.on_suspend(DieId(ev.arg())),
                EventKind::GcIdle => self.on_gc_idle(ev.arg()),
                EventKind::CacheFree => self.kick(DieId(ev.arg())),
                EventKind::HostIf => self.on_hostif(ReqId(ev.arg()), ev.tag()),
            }
            self.end_event();
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            // Every 4096 completions, and every 2^16 events whatever
            // completes (a run that stops completing is still watched).
            tick = tick.wrapping_add(1);
            if self.host.completed >= next_progress
                || tick & 0xffff == 0
                || self.host.interrupted
                || self.read_only.is_some()
            {
                if self.read_only.is_some() {
                    return self.read_only_end(observe);
                }
                next_progress = self.host.completed + 4096;
                if self.checkpoint(observe)? == Control::Stop {
                    self.partial = true;
                    return Ok(());
                }
            }
        }
        // The time series' cap holds for the whole run, its last events too.
        self.check_series()?;
        observe(&self.progress());
        // A bad record met before any event fired (the very first one) ends
        // the run here.
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.host.interrupted {
            self.partial = true;
            return Ok(());
        }
        if self.host.submitted == 0 {
            return Err(Error::Invalid(format!(
                "{} yielded no request (is the device filter or --limit right?)",
                self.host.workload
            )));
        }
        if self.host.outstanding > 0
            || !self.buffer.waiting.is_empty()
            || self.host.flows.as_ref().is_some_and(|f| f.pending())
        {
            return Err(Error::Consistency(format!(
                "simulation stalled at {} ns with {} requests outstanding and {} writes waiting for buffer space{}",
                self.engine.now(),
                self.host.outstanding,
                self.buffer.waiting.len(),
                self.stall_detail()
            )));
        }
        self.ftl.check_totals().map_err(Error::Consistency)?;
        if self.cfg.check.enabled {
            self.check().map_err(Error::Consistency)?;
        }
        Ok(())
    }

    /// The end of an event: dispatch on every die that got work during it
    /// (`Simulator::dispatch_kicked`), so that work queued together can be
    /// joined into multi-plane commands; the VFC merges GC deferred during
    /// the event (`Gc::deferred`) start first, and again whenever a
    /// dispatch asks for more (a merge takes blocks on every chip of its
    /// VFC, which must not happen between the members of a command).
    #[inline]
    fn end_event(&mut self) {
        if self.hostif.is_some() {
            self.hostif_sync();
        }
        loop {
            if self.host.flows.as_ref().is_some_and(|f| f.due) {
                self.flows_fetch();
            }
            if self.gc_deferred() {
                self.run_deferred_gc();
            }
            if !self.dispatch_kicked()
                && !self.gc_deferred()
                && !self.host.flows.as_ref().is_some_and(|f| f.due)
            {
                break;
            }
        }
    }

    /// A plane ran out of spare blocks (bad blocks): the drive accepts no
    /// more writes, and the run ends here, after the event that made it
    /// read-only. Requests outstanding are not completed (reads too: the
    /// run just ends); the report covers those completed, and says why
    /// (`bad_blocks.read_only`). The FTL's invariants still hold.
    #[cold]
    fn read_only_end(&mut self, observe: &mut dyn FnMut(&Progress) -> Control) -> Result<()> {
        self.check_series()?;
        observe(&self.progress());
        self.ftl.check_totals().map_err(Error::Consistency)?;
        if self.cfg.check.enabled {
            self.check().map_err(Error::Consistency)?;
        }
        Ok(())
    }

    /// After an erase (bad blocks on): did a plane run out of spare blocks?
    /// Then the drive is read-only from now on (`read_only`).
    pub(crate) fn note_read_only(&mut self) {
        if self.read_only.is_some() {
            return;
        }
        if let Some(p) = self.ftl.out_of_spares() {
            self.read_only = Some(format!(
                "read-only: plane {p} ran out of spare blocks after {} host bytes / {} requests",
                self.metrics.warmup_write_bytes + self.metrics.write_bytes,
                self.host.completed
            ));
        }
    }

    /// What the first die with queued work is waiting for (stall reports).
    pub(crate) fn stall_detail(&self) -> String {
        for die in DieId::all(self.flash.dies.len() as u32) {
            let first = die.first_plane(self.ppd);
            let mut heads = vec![];
            for p in die.planes(self.ppd) {
                for class in [Class::Read, Class::Gc, Class::Write] {
                    if let Some(t) = self.sched.queues.head(p, class) {
                        let tx = &self.txns[t];
                        heads.push(format!(
                            "plane {p} {class:?}: {:?} from {:?} (lpn {}, free pages {})",
                            tx.kind,
                            tx.origin,
                            tx.lpn as i64,
                            self.ftl.free_pages(p)
                        ));
                    }
                }
            }
            if !heads.is_empty() {
                let u = self.gc.unit(first);
                let g = &self.gc.jobs[u];
                return format!(
                    "; die {die} queue heads: {}; its GC victim {} (cursor {}, pending {}, reading {}, staged {}){}{}{}",
                    heads.join(", "),
                    g.victim as i64,
                    g.cursor,
                    g.pending,
                    g.reading,
                    match &self.unit {
                        Unit::Page => 0,
                        u => {
                            let s = &u.die_writes_ref().staging[die.index()];
                            s[0].len() + s[1].len()
                        }
                    },
                    self.ftl.fast_logs_detail(first),
                    self.merge_detail(u),
                    if self.gc.holds_die(die) {
                        "; the die is held for its GC (gc.hold_die)"
                    } else {
                        ""
                    }
                );
            }
        }
        String::new()
    }

    pub(crate) fn finish(&mut self) -> Report {
        self.metrics.gc.logs_closed_early = self.ftl.fast_logs_closed_early();
        let mut facts = self.facts.clone();
        facts.page_span = self.host.page_span;
        facts.completed = self.host.completed;
        facts.compact_pages = match &self.host.address_map {
            crate::host::address::AddressMap::Compact(m) => Some(m.len() as u64),
            crate::host::address::AddressMap::Fold => None,
        };
        let ctx = ReportContext {
            config_name: self.cfg.name.clone(),
            workload: self.host.workload.clone(),
            trace_format: self.trace_format.clone(),
            seed: self.cfg.seed,
            replicate: self.cfg.replicate,
            buffer_pages: self.buffer.pages,
            buffer_sizing: self.buffer.sizing.clone(),
            facts,
            erase_counts: self.ftl.erase_counts(),
            plane_erases: self.ftl.wear().per_plane(),
            precondition: self.precondition.clone(),
            events: self.engine.fired(),
            plane_registers: self.cfg.flash.plane_registers as usize,
            partial: self.partial,
            two_plane: self.ftl.two_plane_report(),
            bad_blocks: self.ftl.bad_block_report(self.read_only.clone()),
            wear_levelling: self.ftl.levelling_report(),
            interface: self.hostif_report(),
        };
        self.metrics.report(ctx)
    }

    /// Run the consistency checker now.
    pub fn check(&self) -> std::result::Result<(), String> {
        self.check_suspensions()?;
        if let Some(h) = &self.hostif {
            h.check(self.host.outstanding)?;
        }
        if let Some(a) = &self.attr {
            // Latency attribution keeps a request's parts through the
            // interface's completion stage only.
            let finishing = a.finishing_count() as u64;
            if finishing > self.host.outstanding || (self.hostif.is_none() && finishing > 0) {
                return Err(format!(
                    "latency attribution keeps {finishing} requests in the interface's completion \
                     stage; {} are outstanding{}",
                    self.host.outstanding,
                    if self.hostif.is_none() {
                        ", and the interface is off"
                    } else {
                        ""
                    }
                ));
            }
        }
        self.check_caches()?;
        self.check_flows()?;
        self.check_flin()?;
        let buf = self.buffer.cache.as_ref();
        if let Some(b) = buf {
            b.check()?;
        }
        if let Some(b) = buf.filter(|_| self.buffer.frees_at_eviction) {
            if b.flushing_total() > 0 {
                return Err(format!(
                    "buffer.slot_frees = \"eviction\", yet {} slots wait for their programs",
                    b.flushing_total()
                ));
            }
        }
        self.ftl.check(|lpn| {
            buf.and_then(|b| b.newest_version(lpn))
                .or_else(|| self.inflight.get(&lpn).map(|&t| self.txns[t].version))
        })?;
        self.check_pace(self.host.outstanding)?;
        self.check_group_copy()
    }

    /// The FTL, for tests and tools.
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    /// Does the drive hold data of `lpn`: on flash, or in the write buffer?
    pub fn holds(&self, lpn: Lpn) -> bool {
        self.ftl.lookup(lpn).is_some()
            || self.buffer.cache.as_ref().is_some_and(|b| b.contains(lpn))
    }
}
