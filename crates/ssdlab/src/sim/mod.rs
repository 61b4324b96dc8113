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

pub mod txn;

pub(crate) use txn::*;

use std::collections::VecDeque;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashMap;

use crate::addr::{Lpn, INVALID};
use crate::buffer::{EvictionPolicy, WriteBuffer};
use crate::config::{AddressMode, BufferCapacity, Config, HostMode, HotSeparation, Mapping};
use crate::engine::{Engine, EventKind, Time};
use crate::error::{Error, Result};
use crate::flash::executor::*;
use crate::flash::{FlashTiming, PlaneRules};
use crate::ftl::mapping::cache::MappingCache;
use crate::ftl::mapping::dftl::*;
use crate::ftl::{Ftl, PreconditionReport};
use crate::gc::Gc;
use crate::host::address::*;
use crate::host::precondition::*;
use crate::host::*;
use crate::metrics::{Metrics, Report, ReportContext};
use crate::sched::unit::Unit;
use crate::sched::{Class, Queues};
use crate::workload::{IoRecord, RecordStream, Source};

pub struct Simulator {
    pub(crate) cfg: Config,
    pub(crate) workload: String,
    pub(crate) engine: Engine,
    pub(crate) timing: FlashTiming,
    pub(crate) rules: PlaneRules,
    pub(crate) ftl: Ftl,
    pub(crate) buf: Option<WriteBuffer>,
    pub(crate) policy: Option<Box<dyn EvictionPolicy>>,
    pub(crate) queues: Queues,
    pub(crate) txns: Vec<Txn>,
    pub(crate) free_txns: Vec<u32>,
    pub(crate) reqs: Vec<Req>,
    pub(crate) free_reqs: Vec<u32>,
    pub(crate) dies: Vec<Die>,
    pub(crate) kicked: Vec<u32>,
    pub(crate) kick_flag: Vec<bool>,
    pub(crate) channel_free: Vec<Time>,
    /// Garbage collection: its jobs, clock and reclaimer (`gc`).
    pub(crate) gc: Gc,
    /// LPNs whose newest data is in a queued program (not on flash yet).
    pub(crate) inflight: FxHashMap<Lpn, u32>,
    /// Hot-data identification for hot/cold write streams (ftl.hot_data).
    pub(crate) hdi: Option<Box<dyn ssdlab_hdi::HotDataIdentifier>>,
    /// Hot/cold separation sorts GC moves (host pages are all hot) rather
    /// than host pages (`ftl.hot_separation`).
    pub(crate) sort_moves: bool,
    /// The write unit: pages, Die-Writes or super pages (`sched::unit`).
    pub(crate) unit: Unit,
    /// DFTL: the cached mapping table (None: the map is all in DRAM), the
    /// translation-page reads under way with what waits for each, and the
    /// translation pages GC moves changed for entries not cached (written
    /// back when a GC finishes).
    pub(crate) cmt: Option<MappingCache>,
    pub(crate) map_waiters: FxHashMap<Lpn, Vec<MapWaiter>>,
    pub(crate) gc_translation: Vec<Lpn>,
    pub(crate) waiting: VecDeque<(u32, Lpn)>,
    pub(crate) evict_out: Vec<u32>,
    pub(crate) source: Source,
    pub(crate) stream: RecordStream,
    pub(crate) address_map: AddressMap,
    /// Replay state: passes started, offset added to this pass's times, and
    /// the first pass's first and last times and record count.
    pub(crate) pass: u32,
    pub(crate) replay_offset: u64,
    pub(crate) pass0: (Option<u64>, u64, u64),
    pub(crate) next_record: Option<IoRecord>,
    pub(crate) base_time: Option<u64>,
    pub(crate) stream_done: bool,
    pub(crate) metrics: Metrics,
    pub(crate) rng: Xoshiro256PlusPlus,
    pub(crate) seq: u64,
    pub(crate) completed: u64,
    pub(crate) submitted: u64,
    /// Closed loop: requests to submit at the pending arrival event.
    pub(crate) closed_due: u32,
    pub(crate) outstanding: u64,
    pub(crate) error: Option<Error>,
    pub(crate) precondition: PreconditionReport,
    pub(crate) buffer_pages: u64,
    pub(crate) page_size: u64,
    pub(crate) ppd: u32,
}

pub(crate) const MAX_PLANES_PER_DIE: usize = 16;

impl Simulator {
    /// Build a drive from `cfg`, age it per `precondition`, and open `source`.
    pub fn new(cfg: &Config, source: &Source, precondition: &Precondition) -> Result<Simulator> {
        cfg.validate(&cfg.name)?;
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
        let page = cfg.geometry.page_size_bytes as u64;
        let logical = cfg.logical_pages();
        let need_footprint = matches!(cfg.buffer.capacity, BufferCapacity::FootprintPercent(_));
        let compact = cfg.host.address_mode == AddressMode::Compact;
        let (scan, address_map) =
            if need_footprint || compact || precondition.trace_reads || precondition.trace_sequence
            {
                let (s, m) = scan(source, logical, page, compact)?;
                (Some(s), m)
            } else {
                (None, AddressMap::Fold)
            };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed);
        let mut ftl = Ftl::new(cfg, cfg.check.enabled);
        let mut pre = PreconditionReport {
            mode: precondition.describe(),
            ..Default::default()
        };
        if let Some((u, v)) = precondition.fill {
            ftl.precondition_fill(u, v, &mut rng, &mut pre)?;
        }
        if let Some(x) = precondition.age {
            let n = (logical as f64 * x).round() as u64;
            pre.age_pages_written = ftl.precondition_map(0..n as Lpn, &mut rng, &mut pre)?;
        }
        if let (true, Some(s)) = (precondition.trace_sequence, &scan) {
            ftl.precondition_sequence(|| fill_sequence(s, logical), &mut rng, &mut pre)?;
        }
        if let (true, Some(s)) = (precondition.trace_reads, &scan) {
            pre.trace_read_pages_mapped =
                ftl.precondition_map(bits(&s.read), &mut rng, &mut pre)?;
        }
        if cfg.ftl.mapping == Mapping::Dftl {
            pre.translation_pages_written =
                ftl.precondition_translation(cfg.mapping_entries_per_page(), &mut rng, &mut pre)?;
        }
        let dies = cfg.total_dies();
        let buffer_pages = match cfg.buffer.capacity {
            BufferCapacity::None => 0,
            BufferCapacity::Pages(n) => n,
            BufferCapacity::FootprintPercent(pct) => {
                let fp = scan.as_ref().map_or(0, |s| s.footprint_pages);
                ((fp as f64 * pct / 100.0).ceil() as u64).max(1)
            }
        };
        if buffer_pages > u32::MAX as u64 / 2 {
            return Err(Error::config(
                &cfg.name,
                "buffer.capacity",
                format!("{buffer_pages} pages is too large"),
            ));
        }
        let (buf, policy) = if buffer_pages > 0 {
            (
                Some(WriteBuffer::new(
                    buffer_pages as u32,
                    dies,
                    cfg.buffer.free_watermark,
                )),
                Some(crate::scheme::compose::eviction(cfg)),
            )
        } else {
            (None, None)
        };
        let planes = cfg.total_planes();
        let ppd = cfg.geometry.planes_per_die;
        let stream = source.open()?;
        let mut sim = Simulator {
            cfg: cfg.clone(),
            workload: source.describe(),
            engine: Engine::new(),
            timing: FlashTiming::new(cfg),
            rules: PlaneRules::new(cfg),
            ftl,
            buf,
            policy,
            queues: Queues::new(planes, ppd, cfg.sched.policy),
            txns: Vec::new(),
            free_txns: Vec::new(),
            reqs: Vec::new(),
            free_reqs: Vec::new(),
            dies: vec![
                Die {
                    busy: false,
                    n: 0,
                    finished: 0,
                    txns: [INVALID; MAX_PLANES_PER_DIE],
                };
                dies as usize
            ],
            kicked: Vec::new(),
            kick_flag: vec![false; dies as usize],
            channel_free: vec![0; cfg.geometry.channels as usize],
            gc: Gc::new(cfg),
            inflight: FxHashMap::default(),
            hdi: cfg.hot_data_identifier(),
            sort_moves: cfg.ftl.hot_separation == HotSeparation::GcMoves,
            unit: crate::scheme::compose::write_unit(cfg),
            cmt: (cfg.ftl.mapping == Mapping::Dftl).then(|| {
                MappingCache::new(
                    logical as Lpn,
                    logical,
                    cfg.mapping_entries_per_page(),
                    cfg.ftl.mapping_cache_entries,
                )
            }),
            map_waiters: FxHashMap::default(),
            gc_translation: Vec::new(),
            waiting: VecDeque::new(),
            evict_out: Vec::new(),
            source: source.clone(),
            stream,
            address_map,
            pass: 0,
            replay_offset: 0,
            pass0: (None, 0, 0),
            next_record: None,
            base_time: None,
            stream_done: false,
            metrics: Metrics::new(ppd, planes, (cfg.metrics.interval_ms * 1e6).round() as Time),
            rng,
            seq: 0,
            completed: 0,
            submitted: 0,
            closed_due: 0,
            outstanding: 0,
            error: None,
            precondition: pre,
            buffer_pages,
            page_size: page,
            ppd,
        };
        for p in 0..planes {
            sim.gc_trigger(p);
        }
        Ok(sim)
    }

    /// Buffer capacity in pages actually used (0 = no buffer).
    pub fn buffer_pages(&self) -> u64 {
        self.buffer_pages
    }

    /// Requests completed so far.
    pub fn completed(&self) -> u64 {
        self.completed
    }

    /// Run to the end of the workload. `progress` is called now and then with
    /// the number of completed requests.
    pub fn run(mut self, progress: &mut dyn FnMut(u64)) -> Result<Report> {
        self.run_events(progress)?;
        Ok(self.finish())
    }

    /// Like [`run`](Self::run) but also returns the simulator for inspection.
    pub fn run_inspect(mut self, progress: &mut dyn FnMut(u64)) -> Result<(Report, Simulator)> {
        self.run_events(progress)?;
        let r = self.finish();
        Ok((r, self))
    }

    pub(crate) fn run_events(&mut self, progress: &mut dyn FnMut(u64)) -> Result<()> {
        match self.cfg.host.mode {
            HostMode::OpenLoop => {
                self.schedule_next_arrival();
            }
            HostMode::ClosedLoop => {
                self.closed_due = self.cfg.host.queue_depth;
                self.engine.schedule(0, EventKind::Arrival, 0);
            }
        }
        self.flush_kicks();
        let mut next_progress = 0u64;
        while let Some(ev) = self.engine.pop() {
            match ev.kind {
                EventKind::Arrival => self.on_arrival(),
                EventKind::ReadArrayDone => self.on_read_array_done(ev.arg),
                EventKind::TransferDone => self.on_transfer_done(ev.arg),
                EventKind::DieDone => self.on_die_done(ev.arg),
            }
            self.flush_kicks();
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            if self.completed >= next_progress {
                progress(self.completed);
                next_progress = self.completed + 4096;
            }
        }
        progress(self.completed);
        // A bad record met before any event fired (the very first one) ends
        // the run here.
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.submitted == 0 {
            return Err(Error::Invalid(format!(
                "{} yielded no request (is the device filter or --limit right?)",
                self.workload
            )));
        }
        if self.outstanding > 0 || !self.waiting.is_empty() {
            return Err(Error::Consistency(format!(
                "simulation stalled at {} ns with {} requests outstanding and {} writes waiting for buffer space{}",
                self.engine.now(),
                self.outstanding,
                self.waiting.len(),
                self.stall_detail()
            )));
        }
        if self.cfg.check.enabled {
            self.check().map_err(Error::Consistency)?;
        }
        Ok(())
    }

    /// What the first die with queued work is waiting for (stall reports).
    pub(crate) fn stall_detail(&self) -> String {
        for die in 0..self.dies.len() as u32 {
            let first = die * self.ppd;
            let mut heads = vec![];
            for p in first..first + self.ppd {
                for class in [Class::Read, Class::Gc, Class::Write] {
                    if let Some(t) = self.queues.head(p, class) {
                        let tx = &self.txns[t as usize];
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
                let g = &self.gc.jobs[self.gc.unit(first)];
                return format!(
                    "; die {die} queue heads: {}; its GC victim {} (cursor {}, pending {}, reading {}, staged {})",
                    heads.join(", "),
                    g.victim as i64,
                    g.cursor,
                    g.pending,
                    g.reading,
                    match &self.unit {
                        Unit::Page => 0,
                        u => {
                            let s = &u.die_writes_ref().staging[die as usize];
                            s[0].len() + s[1].len()
                        }
                    }
                );
            }
        }
        String::new()
    }

    pub(crate) fn finish(&mut self) -> Report {
        let ctx = ReportContext {
            config_name: self.cfg.name.clone(),
            workload: self.workload.clone(),
            seed: self.cfg.seed,
            buffer_pages: self.buffer_pages,
            erase_counts: self.ftl.erase_counts(),
            precondition: self.precondition.clone(),
            events: self.engine.fired(),
        };
        self.metrics.report(ctx)
    }

    /// Run the consistency checker now.
    pub fn check(&self) -> std::result::Result<(), String> {
        let buf = self.buf.as_ref();
        self.ftl.check(|lpn| {
            buf.and_then(|b| b.newest_version(lpn)).or_else(|| {
                self.inflight
                    .get(&lpn)
                    .map(|&t| self.txns[t as usize].version)
            })
        })
    }

    /// The FTL, for tests and tools.
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }
}
