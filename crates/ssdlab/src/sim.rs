//! The simulator: owns every layer and runs the event loop.
//!
//! A host request is split into page sub-requests. Reads look in the write
//! buffer, then become flash read transactions; writes enter the buffer (or,
//! without one, become program transactions). Transactions wait in per-plane
//! queues (see `sched`); whenever a die is idle the scheduler picks the next
//! command for it, joining aligned heads of other planes' queues into one
//! multi-plane command. Physical pages are allocated when a program is
//! dispatched, so programs of a block always go in page order and two planes
//! can be programmed together exactly when their write points are aligned.
//!
//! Timing (DESIGN §3): a read keeps its die busy for tR, then its data leaves
//! over the channel; a program moves data in over the channel, then keeps the
//! die busy for tPROG; erase and copyback use only the die. The channel is a
//! first-come-first-served resource reserved when a transfer is ready.

use std::collections::VecDeque;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashMap;

use crate::addr::{Lpn, Ppn, INVALID};
use crate::buffer::{EvictionPolicy, WriteBuffer, WriteOutcome};
use crate::config::{
    AddressMode, BufferCapacity, Config, HostMode, HotSeparation, Mapping, Migration,
    PlaneAllocation, SchedPolicy, WriteCompletion, WriteUnit,
};
use crate::engine::{Engine, EventKind, Time};
use crate::error::{Error, Result};
use crate::flash::{CmdKind, FlashTiming, Origin, PlaneRules};
use crate::ftl::{Ftl, PreconditionReport, Writer};
use crate::mapping::MappingCache;
use crate::metrics::{Metrics, Report, ReportContext};
use crate::sched::{Class, Queues};
use crate::workload::{IoRecord, Op, RecordStream, Source};

/// How the drive is aged before the run (no timed writes). Parts combine
/// with `+` and apply in the order fill, age, trace-sequence, trace-reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Precondition {
    /// `fill:USED:VALID`: every plane filled to `used` with `valid` of the
    /// filled pages valid (the SPD paper's aging: fill:0.94:0.8).
    pub fill: Option<(f64, f64)>,
    /// `age:X`: the first X of the logical space written once, sequentially
    /// (PA-SSD: 0.7).
    pub age: Option<f64>,
    /// `trace-sequence`: the parallel-GC paper's warm-up: the workload's read
    /// addresses, then its write addresses, then its addresses shifted by its
    /// span until the sequence covers the logical capacity, written
    /// repeatedly (with untimed GC) until write amplification is steady.
    pub trace_sequence: bool,
    /// `trace-reads`: every LPN the workload reads is mapped.
    pub trace_reads: bool,
}

impl Precondition {
    /// Parse `none` or `+`-joined parts: `fill:USED:VALID`, `age:X`,
    /// `trace-sequence`, `trace-reads`.
    pub fn parse(s: &str) -> Result<Precondition> {
        let bad = |m: &str| {
            Error::Invalid(format!(
                "--precondition `{s}`: {m} (expected none, or parts joined by +: fill:USED:VALID, age:X, trace-sequence, trace-reads)"
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
            } else if let Some(rest) = part.strip_prefix("fill:") {
                let (u, v) = rest
                    .split_once(':')
                    .ok_or_else(|| bad("fill needs USED:VALID"))?;
                let (u, v) = (number(u, "USED")?, number(v, "VALID")?);
                if !(0.0..1.0).contains(&u) || !(0.0..=1.0).contains(&v) {
                    return Err(bad("USED must be in [0, 1) and VALID in [0, 1]"));
                }
                p.fill = Some((u, v));
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
    pub fn describe(&self) -> String {
        let mut parts = vec![];
        if let Some((u, v)) = self.fill {
            parts.push(format!("fill:{u}:{v}"));
        }
        if let Some(x) = self.age {
            parts.push(format!("age:{x}"));
        }
        if self.trace_sequence {
            parts.push("trace-sequence".to_string());
        }
        if self.trace_reads {
            parts.push("trace-reads".to_string());
        }
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join("+")
        }
    }
}

#[derive(Clone, Copy)]
struct Txn {
    kind: CmdKind,
    origin: Origin,
    plane: u32,
    lpn: Lpn,
    /// Read / copyback / GC-program source; program destination once dispatched.
    src: Ppn,
    /// FAST merge read or program: the data unit page it goes to (fixed
    /// by its offset), else INVALID.
    dst: Ppn,
    /// A joined GC's move (`gc.join_align`) once in the cache: a copyback,
    /// or the program of a move through the controller. The plane whose GC
    /// it belongs to (the latter may be programmed on a sibling plane), else
    /// INVALID.
    home: u32,
    /// Host request, or INVALID.
    req: u32,
    /// Buffer slot being flushed, or INVALID.
    slot: u32,
    version: u32,
    /// A read-modify-write's read: the page write follows it.
    rmw: bool,
    /// Host program: judged hot (goes to the hot write stream).
    hot: bool,
    /// SuperPage: a program copying page `src` of the same LPN unchanged
    /// (read-before-update), or a read for one; the super page being
    /// assembled (index into `assemblies`), or INVALID.
    copy: bool,
    assembly: u32,
    /// Host program: when it was queued, and the die's GC-active clock then
    /// (replaced, once dispatched, by the GC time it waited through).
    queued_at: Time,
    gc_mark: Time,
    seq: u64,
}

struct Req {
    arrival: Time,
    pages_left: u32,
    write: bool,
}

const MAX_PLANES_PER_DIE: usize = 16;

/// DFTL: what waits for a translation page to arrive from flash.
#[derive(Clone, Copy)]
enum MapWaiter {
    /// A host read (or a read-modify-write's read) of a page whose entry missed.
    Read { req: u32, lpn: Lpn, rmw: bool },
    /// A programmed host page whose entry missed: load it, dirty.
    Update(Lpn),
    /// The page is written back (read, modified, programmed).
    WriteBack,
}

#[derive(Clone, Copy)]
struct Die {
    busy: bool,
    n: u8,
    /// Transactions of the command already finished (reads finish one by
    /// one as their data leaves).
    finished: u8,
    txns: [u32; MAX_PLANES_PER_DIE],
}

/// A garbage collection under way in one GC unit: a plane, or with aligned
/// block groups a die (victim = group id; the cursor walks the group's pages
/// page index by page index, so that aligned valid pages are read together).
#[derive(Clone, Copy)]
struct GcJob {
    victim: u32,
    /// Next page of the victim to look at.
    cursor: u32,
    /// Migrations queued or executing (group mode: read, staged or being
    /// programmed).
    pending: u32,
    /// Group mode: migrations whose read has not completed.
    reading: u32,
    /// Group mode: erases of the group's blocks not yet completed.
    erases_left: u32,
    start: Time,
    erase_queued: bool,
    /// Consecutive GCs that reclaimed nothing (livelock guard).
    fruitless: u32,
    /// ParaGC alignment: collecting at the same time as sibling planes
    /// (started with them, or while they collected); its moves wait in the
    /// die's cache (`para_pool`) to be placed.
    joined: bool,
}

/// FAST: the merges reclaiming one log unit (the GC unit's victim). Logical
/// blocks with a valid page in it are merged one at a time: their pages
/// are read wherever they are, then programmed at their offsets in a new
/// data unit, page index by page index (a group's N planes as one
/// Die-Write, padded where an offset has no data); emptied units are
/// erased once no read holds them.
#[derive(Default)]
struct MergeJob {
    lbns: Vec<u32>,
    next: usize,
    /// Logical block being merged (INVALID: none), and its new data unit.
    lbn: u32,
    dst: u32,
    /// Next offset to look at; reads and programs under way.
    cursor: u32,
    reading: u32,
    programs: u32,
    /// Per offset: nothing to copy (INVALID), read pending, or its program.
    ready: Vec<u32>,
    /// Next page index whose programs are to be queued.
    release: u32,
    /// Units to erase once unpinned, and erases under way.
    erase_wait: Vec<u32>,
    erasing: u32,
    /// The victim is dealt with (queued for erase, or switched to data).
    victim_done: bool,
    /// The next merge waits for an erase to free a unit.
    wait_unit: bool,
}

const READ_PENDING: u32 = INVALID - 1;

/// SuperPage: a super page being assembled for a Die-Write: one program per
/// plane (member k holds LPN `base + k`), reads of its clean pages under way.
#[derive(Clone, Copy)]
struct Assembly {
    die: u32,
    members: [u32; MAX_PLANES_PER_DIE],
    reads_left: u32,
}

pub struct Simulator {
    cfg: Config,
    workload: String,
    engine: Engine,
    timing: FlashTiming,
    rules: PlaneRules,
    ftl: Ftl,
    buf: Option<WriteBuffer>,
    policy: Option<Box<dyn EvictionPolicy>>,
    queues: Queues,
    txns: Vec<Txn>,
    free_txns: Vec<u32>,
    reqs: Vec<Req>,
    free_reqs: Vec<u32>,
    dies: Vec<Die>,
    kicked: Vec<u32>,
    kick_flag: Vec<bool>,
    channel_free: Vec<Time>,
    gc: Vec<GcJob>,
    /// FAST: merge jobs per GC unit (empty without FAST).
    fast: bool,
    merges: Vec<MergeJob>,
    inflight: FxHashMap<Lpn, u32>,
    /// Per die: planes collecting garbage now, when the die last became
    /// busy with GC, and the GC-active time accumulated before that.
    die_gc: Vec<(u32, Time, Time)>,
    /// Hot-data identification for hot/cold write streams (ftl.hot_data).
    hdi: Option<Box<dyn ssdlab_hdi::HotDataIdentifier>>,
    /// Hot/cold separation sorts GC moves (host pages are all hot) rather
    /// than host pages (`ftl.hot_separation`).
    sort_moves: bool,
    /// Aligned block groups (GC units are dies) and Die-Writes (every program
    /// is a full multi-plane command over the die), SPD+ combining.
    groups: bool,
    die_write: bool,
    combine: bool,
    /// ParaGC: free pages below which a plane joins a sibling's GC (0 = off).
    join_pages: u64,
    /// ParaGC alignment (`gc.join_align`): per die, the joined GCs' moves
    /// waiting in the cache (copybacks in their plane's register, moves
    /// through the controller once read), oldest first, and how many placed
    /// moves have not completed (the next round waits for them).
    join_align: bool,
    para_pool: Vec<Vec<u32>>,
    para_queued: Vec<u32>,
    /// Die-Writes: program transactions per die (GC moves, and under SPD+
    /// host pages) waiting to fill a Die-Write, `[cold, hot]`: a Die-Write
    /// goes to one write stream, so with hot/cold separation each stream
    /// fills its own.
    staging: Vec<[Vec<u32>; 2]>,
    /// Die-Writes: host pages given to the die's GC Die-Writes and not yet
    /// programmed (they spend the GC's free space).
    combined_pending: Vec<u32>,
    /// SuperPage: super pages waiting for reads of their clean pages.
    superpage: bool,
    assemblies: Vec<Assembly>,
    free_assemblies: Vec<u32>,
    /// DFTL: the cached mapping table (None: the map is all in DRAM), the
    /// translation-page reads under way with what waits for each, and the
    /// translation pages GC moves changed for entries not cached (written
    /// back when a GC finishes).
    cmt: Option<MappingCache>,
    map_waiters: FxHashMap<Lpn, Vec<MapWaiter>>,
    gc_translation: Vec<Lpn>,
    waiting: VecDeque<(u32, Lpn)>,
    evict_out: Vec<u32>,
    source: Source,
    stream: RecordStream,
    address_map: AddressMap,
    /// Replay state: passes started, offset added to this pass's times, and
    /// the first pass's first and last times and record count.
    pass: u32,
    replay_offset: u64,
    pass0: (Option<u64>, u64, u64),
    next_record: Option<IoRecord>,
    base_time: Option<u64>,
    stream_done: bool,
    metrics: Metrics,
    rng: Xoshiro256PlusPlus,
    seq: u64,
    completed: u64,
    submitted: u64,
    /// Closed loop: requests to submit at the pending arrival event.
    closed_due: u32,
    outstanding: u64,
    error: Option<Error>,
    precondition: PreconditionReport,
    buffer_pages: u64,
    page_size: u64,
    ppd: u32,
}

/// How the host turns a byte-address page into a logical page.
enum AddressMap {
    /// Modulo the logical capacity.
    Fold,
    /// Dense numbering in order of first touch (then modulo).
    Compact(FxHashMap<u64, Lpn>),
}

impl AddressMap {
    #[inline]
    fn lpn(&self, page: u64, logical: u64) -> Lpn {
        match self {
            AddressMap::Fold => (page % logical) as Lpn,
            AddressMap::Compact(m) => m.get(&page).copied().unwrap_or((page % logical) as Lpn),
        }
    }
}

/// What a pre-scan of the workload learned: bitmaps over logical pages.
struct Scan {
    footprint_pages: u64,
    touched: Vec<u64>,
    read: Vec<u64>,
    written: Vec<u64>,
}

/// Set bits of a bitmap, in increasing order.
fn bits(map: &[u64]) -> impl Iterator<Item = Lpn> + '_ {
    map.iter().enumerate().flat_map(|(w, &word)| {
        let mut word = word;
        std::iter::from_fn(move || {
            if word == 0 {
                return None;
            }
            let b = word.trailing_zeros();
            word &= word - 1;
            Some((w * 64) as Lpn + b)
        })
    })
}

/// One pass over the workload; builds the compact address map if asked.
fn scan(source: &Source, logical: u64, page: u64, compact: bool) -> Result<(Scan, AddressMap)> {
    let words = logical.div_ceil(64) as usize;
    let (mut touched, mut read, mut written) =
        (vec![0u64; words], vec![0u64; words], vec![0u64; words]);
    let mut footprint = 0;
    let mut dense: FxHashMap<u64, Lpn> = FxHashMap::default();
    for rec in source.open()? {
        let rec = rec?;
        let first = rec.offset / page;
        let last = (rec.offset + rec.size - 1) / page;
        for p in first..=last {
            let l = if compact {
                let next = dense.len() as u64;
                *dense.entry(p).or_insert((next % logical) as Lpn) as usize
            } else {
                (p % logical) as usize
            };
            let (w, b) = (l / 64, 1u64 << (l % 64));
            if touched[w] & b == 0 {
                touched[w] |= b;
                footprint += 1;
            }
            match rec.op {
                Op::Read => read[w] |= b,
                Op::Write => written[w] |= b,
            }
        }
    }
    let map = if compact {
        AddressMap::Compact(dense)
    } else {
        AddressMap::Fold
    };
    Ok((
        Scan {
            footprint_pages: footprint,
            touched,
            read,
            written,
        },
        map,
    ))
}

/// The parallel-GC paper's fill sequence: read addresses, write addresses,
/// then all touched addresses shifted by the workload's span, repeatedly,
/// until the sequence is as long as the logical capacity.
fn fill_sequence(scan: &Scan, logical: u64) -> impl Iterator<Item = Lpn> + '_ {
    let span = bits(&scan.touched).last().map_or(0, |l| l as u64 + 1);
    let head = bits(&scan.read).chain(bits(&scan.written));
    let len = logical.max(bits(&scan.read).count() as u64 + bits(&scan.written).count() as u64);
    let shifted = (1..).take_while(move |_| span > 0).flat_map(move |k: u64| {
        bits(&scan.touched).map(move |l| ((l as u64 + k * span) % logical) as Lpn)
    });
    head.chain(shifted).take(len as usize)
}

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
                Some(WriteBuffer::policy(
                    &cfg.buffer,
                    cfg.geometry.planes_per_die,
                )),
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
            gc: vec![
                GcJob {
                    victim: INVALID,
                    cursor: 0,
                    pending: 0,
                    reading: 0,
                    erases_left: 0,
                    start: 0,
                    erase_queued: false,
                    fruitless: 0,
                    joined: false,
                };
                planes as usize
            ],
            fast: cfg.ftl.mapping == Mapping::Fast,
            merges: if cfg.ftl.mapping == Mapping::Fast {
                (0..planes).map(|_| MergeJob::default()).collect()
            } else {
                Vec::new()
            },
            inflight: FxHashMap::default(),
            hdi: cfg.hot_data_identifier(),
            sort_moves: cfg.ftl.hot_separation == HotSeparation::GcMoves,
            groups: cfg.ftl.block_groups == crate::config::BlockGroups::Die,
            die_write: cfg.ftl.write_unit != WriteUnit::Page,
            combine: cfg.gc.combine_host_writes,
            join_pages: cfg.gc_join_pages(),
            join_align: cfg.gc.join_align && cfg.ftl.mapping != Mapping::Fast,
            para_pool: vec![Vec::new(); dies as usize],
            para_queued: vec![0; dies as usize],
            staging: vec![[Vec::new(), Vec::new()]; dies as usize],
            combined_pending: vec![0; dies as usize],
            superpage: cfg.ftl.write_unit == WriteUnit::SuperPage,
            assemblies: Vec::new(),
            free_assemblies: Vec::new(),
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
            die_gc: vec![(0, 0, 0); dies as usize],
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
            sim.maybe_start_gc(p);
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

    fn run_events(&mut self, progress: &mut dyn FnMut(u64)) -> Result<()> {
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
    fn stall_detail(&self) -> String {
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
                let g = &self.gc[self.gc_unit(first)];
                return format!(
                    "; die {die} queue heads: {}; its GC victim {} (cursor {}, pending {}, reading {}, staged {})",
                    heads.join(", "),
                    g.victim as i64,
                    g.cursor,
                    g.pending,
                    g.reading,
                    self.staging
                        .get(die as usize)
                        .map_or(0, |s| s[0].len() + s[1].len())
                );
            }
        }
        String::new()
    }

    fn finish(&mut self) -> Report {
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

    // ----- host -----

    fn pull(&mut self) -> Option<IoRecord> {
        loop {
            if self.stream_done {
                return None;
            }
            match self.stream.next() {
                Some(Ok(mut r)) => {
                    if self.pass == 0 {
                        let (first, last, n) = &mut self.pass0;
                        first.get_or_insert(r.time_ns);
                        *last = r.time_ns;
                        *n += 1;
                    }
                    r.time_ns += self.replay_offset;
                    return Some(r);
                }
                Some(Err(e)) => {
                    self.error = Some(e);
                    self.stream_done = true;
                    return None;
                }
                None if self.pass + 1 < self.cfg.host.replays && self.pass0.2 > 0 => {
                    // The next pass starts one mean gap after this one ends.
                    let (first, last, n) = self.pass0;
                    let span = last - first.unwrap_or(last);
                    let gap = if n > 1 { span / (n - 1) } else { 0 };
                    self.replay_offset += span + gap;
                    self.pass += 1;
                    match self.source.open() {
                        Ok(st) => self.stream = st,
                        Err(e) => {
                            self.error = Some(e);
                            self.stream_done = true;
                            return None;
                        }
                    }
                }
                None => {
                    self.stream_done = true;
                    return None;
                }
            }
        }
    }

    /// Read the next record and schedule its arrival; returns true when it
    /// arrives now (the caller submits it in the same event).
    fn schedule_next_arrival(&mut self) -> bool {
        let Some(rec) = self.pull() else { return false };
        self.prefetch_record(&rec);
        let base = *self.base_time.get_or_insert(rec.time_ns);
        let rel = rec.time_ns.saturating_sub(base);
        let t = ((rel as f64 * self.cfg.host.time_scale).round() as Time).max(self.engine.now());
        self.next_record = Some(rec);
        if t == self.engine.now() && self.engine.fired() > 0 {
            return true;
        }
        self.engine.schedule(t, EventKind::Arrival, 0);
        false
    }

    /// Warm the map entries a record will look up when it arrives.
    fn prefetch_record(&self, rec: &IoRecord) {
        let first = rec.offset / self.page_size;
        let pages = ((rec.offset + rec.size - 1) / self.page_size - first + 1).min(8);
        for page in first..first + pages {
            self.ftl
                .prefetch(self.address_map.lpn(page, self.ftl.logical_pages));
        }
    }

    fn on_arrival(&mut self) {
        match self.cfg.host.mode {
            // Requests with the same arrival time are submitted in one event,
            // so that their pages can share multi-plane commands.
            HostMode::OpenLoop => {
                while let Some(rec) = self.next_record.take() {
                    self.submit(rec);
                    if !self.schedule_next_arrival() {
                        break;
                    }
                }
            }
            // Every request owed by completions at this instant, together.
            HostMode::ClosedLoop => {
                for _ in 0..std::mem::take(&mut self.closed_due) {
                    match self.pull() {
                        Some(rec) => self.submit(rec),
                        None => break,
                    }
                }
            }
        }
    }

    fn submit(&mut self, rec: IoRecord) {
        let now = self.engine.now();
        let ps = self.page_size;
        let first = rec.offset / ps;
        let last = (rec.offset + rec.size - 1) / ps;
        let n = last - first + 1;
        if n > u32::MAX as u64 {
            self.error = Some(Error::Invalid(format!(
                "a request of {} bytes spans more than 2^32 pages",
                rec.size
            )));
            return;
        }
        let write = rec.op == Op::Write;
        let id = match self.free_reqs.pop() {
            Some(i) => i,
            None => {
                self.reqs.push(Req {
                    arrival: 0,
                    pages_left: 0,
                    write: false,
                });
                (self.reqs.len() - 1) as u32
            }
        };
        self.reqs[id as usize] = Req {
            arrival: now,
            pages_left: n as u32,
            write,
        };
        self.metrics.first_arrival.get_or_insert(now);
        self.metrics.queue_depth(now, 1);
        self.outstanding += 1;
        self.submitted += 1;
        if write {
            self.metrics.write_bytes += rec.size;
        } else {
            self.metrics.read_bytes += rec.size;
        }
        let logical = self.ftl.logical_pages;
        let end = rec.offset + rec.size;
        for page in first..=last {
            let lpn = self.address_map.lpn(page, logical);
            if !write {
                self.host_read_page(id, lpn, false);
                continue;
            }
            let partial = (page == first && !rec.offset.is_multiple_of(ps))
                || (page == last && !end.is_multiple_of(ps));
            let in_buf = self.buf.as_ref().is_some_and(|b| b.contains(lpn));
            if partial
                && self.cfg.host.partial_write_rmw
                && !in_buf
                && self.ftl.lookup(lpn).is_some()
            {
                self.host_read_page(id, lpn, true);
            } else {
                self.host_write_page(id, lpn);
            }
        }
    }

    /// A page of host request `req` is done (now).
    fn sub_done(&mut self, req: u32) {
        let now = self.engine.now();
        let r = &mut self.reqs[req as usize];
        r.pages_left -= 1;
        if r.pages_left > 0 {
            return;
        }
        let (lat, write) = (now - r.arrival, r.write);
        self.metrics.record_latency(write, lat, now);
        self.metrics.last_completion = now;
        self.metrics.queue_depth(now, -1);
        self.free_reqs.push(req);
        self.outstanding -= 1;
        self.completed += 1;
        if self.cfg.host.mode == HostMode::ClosedLoop {
            // One arrival event per instant carries all requests owed then.
            if self.closed_due == 0 {
                self.engine.schedule(now, EventKind::Arrival, 0);
            }
            self.closed_due += 1;
        }
        if self.completed == self.cfg.host.warmup_requests {
            self.metrics.reset(now);
            // A GC under way is measured from the end of the warm-up.
            for g in &mut self.gc {
                g.start = g.start.max(now);
            }
        }
        let every = self.cfg.check.interval_requests;
        if self.cfg.check.enabled && every > 0 && self.completed.is_multiple_of(every) {
            if let Err(e) = self.check() {
                self.error.get_or_insert(Error::Consistency(format!(
                    "after {} requests: {e}",
                    self.completed
                )));
            }
        }
    }

    fn host_read_page(&mut self, req: u32, lpn: Lpn, rmw: bool) {
        if !rmw {
            self.metrics.read_pages += 1;
            if self.buf.as_ref().is_some_and(|b| b.contains(lpn)) {
                self.metrics.read_hits += 1;
                self.sub_done(req);
                return;
            }
        }
        // (An unmapped page is never read from flash: no entry needed.)
        if self.ftl.lookup(lpn).is_some()
            && !self.map_access(lpn, false, MapWaiter::Read { req, lpn, rmw })
        {
            return;
        }
        self.host_read_flash(req, lpn, rmw);
    }

    /// Read `lpn` from flash for host request `req` (its map entry is known).
    fn host_read_flash(&mut self, req: u32, lpn: Lpn, rmw: bool) {
        match self.ftl.lookup(lpn) {
            Some(ppn) => {
                self.ftl.pin(ppn);
                let plane = self.ftl.map.plane_of(ppn);
                let t = self.new_txn(CmdKind::Read, Origin::Host, plane, lpn, ppn);
                self.txns[t as usize].req = req;
                self.txns[t as usize].rmw = rmw;
                self.enqueue(plane, Class::Read, t);
            }
            None => {
                self.metrics.unmapped_read_pages += 1;
                self.sub_done(req);
            }
        }
    }

    fn next_version(&mut self, lpn: Lpn) -> u32 {
        match &mut self.ftl.versions {
            Some(v) => {
                v.latest[lpn as usize] += 1;
                v.latest[lpn as usize]
            }
            None => 0,
        }
    }

    fn host_write_page(&mut self, req: u32, lpn: Lpn) {
        self.metrics.write_pages += 1;
        if let Some(h) = &mut self.hdi {
            h.set_time_ns(self.engine.now());
            h.record_write(lpn as u64);
        }
        if self.buf.is_some() {
            self.waiting.push_back((req, lpn));
            self.admit_waiting();
        } else {
            let hot = self.host_hot(lpn);
            let queues = &self.queues;
            let plane = self
                .ftl
                .choose_plane(lpn, Writer::Host { hot }, |d| queues.die_load(d));
            self.ftl.assign(plane);
            let version = self.next_version(lpn);
            let t = self.new_txn(CmdKind::Program, Origin::Host, plane, lpn, INVALID);
            let tx = &mut self.txns[t as usize];
            tx.hot = hot;
            tx.req = req;
            tx.version = version;
            self.inflight.insert(lpn, t);
            self.enqueue(plane, Class::Write, t);
        }
    }

    /// Move waiting writes into the buffer while it has room (in arrival
    /// order), then start evictions if it needs space.
    fn admit_waiting(&mut self) {
        while let Some(&(req, lpn)) = self.waiting.front() {
            let version = match &self.ftl.versions {
                Some(v) => v.latest[lpn as usize] + 1,
                None => 0,
            };
            let buf = self.buf.as_ref().expect("buffered mode");
            let dirty = buf.is_dirty(lpn);
            if !dirty && !buf.has_free_slot() {
                break;
            }
            // The plane of a new buffered page is chosen when it enters the
            // buffer (static: by LPN; dynamic: by the policy, as things are
            // now); an in-place update keeps its slot.
            let (die, plane) = if dirty {
                (0, INVALID)
            } else if self.cfg.ftl.plane_allocation == PlaneAllocation::DieRoundRobin {
                // The plane within the die is chosen when the page leaves;
                // SuperPage: the die of its logical super page.
                let key = if self.superpage { lpn / self.ppd } else { lpn };
                (self.ftl.static_die(key), INVALID)
            } else {
                let queues = &self.queues;
                // (Dynamic policies ignore the write stream.)
                let w = Writer::Host { hot: false };
                let plane = self.ftl.choose_plane(lpn, w, |d| queues.die_load(d));
                (self.ftl.map.die_of_plane(plane), plane)
            };
            let buf = self.buf.as_mut().expect("buffered mode");
            match buf.write(lpn, die, plane, version) {
                WriteOutcome::Full => break,
                outcome => {
                    if outcome == WriteOutcome::Hit {
                        self.metrics.write_hits += 1;
                    } else if plane != INVALID {
                        self.ftl.assign(plane);
                    }
                    self.next_version(lpn);
                    self.waiting.pop_front();
                    self.sub_done(req);
                }
            }
        }
        self.maybe_evict();
    }

    fn maybe_evict(&mut self) {
        let mut out = std::mem::take(&mut self.evict_out);
        while let (Some(buf), Some(policy)) = (self.buf.as_mut(), self.policy.as_mut()) {
            if !buf.wants_eviction(self.waiting.len()) {
                break;
            }
            buf.evict(policy.as_mut(), &mut out);
            if out.is_empty() {
                break;
            }
            if self.die_write {
                let die = self.buf.as_ref().expect("buffered mode").slot_die(out[0]);
                let txns: Vec<u32> = out.iter().map(|&slot| self.evicted_txn(slot)).collect();
                self.die_write_host(die, txns);
                continue;
            }
            for &slot in &out {
                let t = self.evicted_txn(slot);
                let mut plane = self.txns[t as usize].plane;
                if plane == INVALID {
                    let die = self.buf.as_ref().expect("buffered mode").slot_die(slot);
                    let hot = self.txns[t as usize].hot;
                    plane = self.ftl.next_plane_in_die(die, Writer::Host { hot });
                    self.ftl.assign(plane);
                    self.txns[t as usize].plane = plane;
                }
                self.enqueue(plane, Class::Write, t);
            }
        }
        self.evict_out = out;
    }

    /// The program transaction of a page leaving the buffer (its plane, if
    /// already bound, else INVALID).
    fn evicted_txn(&mut self, slot: u32) -> u32 {
        let buf = self.buf.as_ref().expect("buffered mode");
        let (lpn, version, plane) = (
            buf.slot_lpn(slot),
            buf.slot_version(slot),
            buf.slot_plane(slot),
        );
        self.ftl.prefetch(lpn);
        let t = self.new_txn(CmdKind::Program, Origin::Host, plane, lpn, INVALID);
        self.txns[t as usize].hot = self.host_hot(lpn);
        self.txns[t as usize].slot = slot;
        self.txns[t as usize].version = version;
        self.inflight.insert(lpn, t);
        t
    }

    /// A Die-Write of host pages to `die`: under SPD+, while the die's GC is
    /// still moving pages, they join its Die-Writes; otherwise they are
    /// queued as whole Die-Writes, padded to a multiple of the planes.
    fn die_write_host(&mut self, die: u32, mut txns: Vec<u32>) {
        if self.superpage {
            return self.superpage_write(die, &txns);
        }
        if self.combine && self.gc_staging_open(die) && self.gc_has_room_for(die, txns.len()) {
            self.combined_pending[die as usize] += txns.len() as u32;
            // GC writes to the hot stream only when it sorts its moves
            // (then host pages are hot); otherwise all to the cold one.
            for t in txns {
                let hot = self.sort_moves && self.txns[t as usize].hot;
                self.stage(die, t, hot);
            }
            self.flush_staging(die);
            return;
        }
        while !txns.len().is_multiple_of(self.ppd as usize) {
            txns.push(self.pad_txn());
        }
        self.enqueue_die_writes(die, &txns, Class::Write);
    }

    /// SuperPage: write the logical super page of the evicted pages `txns`
    /// (dirty pages of one super page): its other pages are read from flash
    /// and copied (or padded if never written), then all go as one Die-Write.
    fn superpage_write(&mut self, die: u32, txns: &[u32]) {
        let n = self.ppd;
        let base = self.txns[txns[0] as usize].lpn / n * n;
        let mut a = Assembly {
            die,
            members: [INVALID; MAX_PLANES_PER_DIE],
            reads_left: 0,
        };
        for &t in txns {
            a.members[(self.txns[t as usize].lpn - base) as usize] = t;
        }
        let id = match self.free_assemblies.pop() {
            Some(i) => i,
            None => {
                self.assemblies.push(a);
                (self.assemblies.len() - 1) as u32
            }
        };
        for k in 0..n {
            if a.members[k as usize] != INVALID {
                continue;
            }
            let lpn = base + k;
            let mapped = if (lpn as u64) < self.ftl.logical_pages {
                self.ftl.lookup(lpn)
            } else {
                None
            };
            let Some(ppn) = mapped else {
                // Never written: its page of the super page is padding.
                a.members[k as usize] = self.pad_txn();
                continue;
            };
            self.ftl.pin(ppn);
            let plane = self.ftl.map.plane_of(ppn);
            let t = self.new_txn(CmdKind::Read, Origin::Host, plane, lpn, ppn);
            self.txns[t as usize].copy = true;
            self.txns[t as usize].hot = self.host_hot(lpn);
            self.txns[t as usize].assembly = id;
            self.metrics.superpage_reads += 1;
            a.reads_left += 1;
            self.enqueue(plane, Class::Read, t);
        }
        self.assemblies[id as usize] = a;
        self.assembly_progress(id);
    }

    /// A super page got a member: queue its Die-Write once it is complete.
    fn assembly_progress(&mut self, id: u32) {
        let a = self.assemblies[id as usize];
        if a.reads_left > 0 {
            return;
        }
        self.free_assemblies.push(id);
        self.enqueue_die_writes(a.die, &a.members[..self.ppd as usize], Class::Write);
    }

    /// A padding page: programmed without data to complete a Die-Write.
    fn pad_txn(&mut self) -> u32 {
        self.new_txn(CmdKind::Program, Origin::Gc, INVALID, INVALID, INVALID)
    }

    /// Queue whole Die-Writes of `die` in `class`: program `i` of `txns` (a
    /// multiple of the planes per die) goes to plane `i mod N`, so every
    /// plane's queue gets one page of each Die-Write, in the same order.
    fn enqueue_die_writes(&mut self, die: u32, txns: &[u32], class: Class) {
        debug_assert!(txns.len().is_multiple_of(self.ppd as usize));
        for (i, &t) in txns.iter().enumerate() {
            let plane = die * self.ppd + i as u32 % self.ppd;
            self.txns[t as usize].plane = plane;
            if self.txns[t as usize].origin != Origin::Gc {
                self.ftl.assign(plane);
            }
            self.enqueue(plane, class, t);
        }
    }

    /// Stage program `t` for a Die-Write of the die's GC in the hot or the
    /// cold stream (marking it so, which decides the Die-Write's stream).
    fn stage(&mut self, die: u32, t: u32, hot: bool) {
        self.txns[t as usize].hot = hot;
        self.staging[die as usize][hot as usize].push(t);
    }

    /// Queue every full Die-Write of the die's staged programs (GC class:
    /// they belong to a GC).
    fn flush_staging(&mut self, die: u32) {
        let n = self.ppd as usize;
        for s in 0..2 {
            while self.staging[die as usize][s].len() >= n {
                let gang: Vec<u32> = self.staging[die as usize][s].drain(..n).collect();
                self.enqueue_die_writes(die, &gang, Class::Gc);
            }
        }
    }

    /// The die's GC has read all its pages: complete the last, short
    /// Die-Write of each stream with the die's least recently used dirty
    /// pages from the buffer, then with padding.
    fn complete_staging(&mut self, die: u32) {
        let n = self.ppd as usize;
        for hot in [false, true] {
            let short = (n - self.staging[die as usize][hot as usize].len() % n) % n;
            if short == 0 {
                continue;
            }
            for t in self.evict_from_die(die, short) {
                self.stage(die, t, hot);
                self.combined_pending[die as usize] += 1;
            }
            while !self.staging[die as usize][hot as usize]
                .len()
                .is_multiple_of(n)
            {
                let t = self.pad_txn();
                self.stage(die, t, hot);
            }
        }
        self.flush_staging(die);
    }

    /// Program transactions of up to `pages` of the die's least recently used
    /// dirty buffer pages, evicted to complete a Die-Write.
    fn evict_from_die(&mut self, die: u32, pages: usize) -> Vec<u32> {
        let mut out = Vec::new();
        if let Some(buf) = self.buf.as_mut() {
            buf.evict(
                &mut crate::buffer::FromDie {
                    die,
                    pages: pages as u32,
                },
                &mut out,
            );
        }
        out.into_iter().map(|slot| self.evicted_txn(slot)).collect()
    }

    /// SPD+: can the die's GC take `extra` host pages into its Die-Writes and
    /// still move all its victim's valid pages before running out of space
    /// (the GC reserve is sized for the victim, not for host data)?
    fn gc_has_room_for(&self, die: u32, extra: usize) -> bool {
        let victim = self.gc[die as usize].victim;
        // Pages still to program: the victim's valid ones (read or not) and
        // the host pages already combined, spread evenly over the planes.
        let pages = self.ftl.group_valid(victim) as u64
            + self.combined_pending[die as usize] as u64
            + extra as u64;
        let per_plane = pages.div_ceil(self.ppd as u64) + 1;
        let first = die * self.ppd;
        (first..first + self.ppd).all(|p| self.ftl.gc_free_pages(p) >= per_plane)
    }

    /// Is the die's GC still producing page moves for Die-Writes?
    fn gc_staging_open(&self, die: u32) -> bool {
        let g = &self.gc[die as usize];
        g.victim != INVALID && !(g.cursor == self.victim_pages() && g.reading == 0)
    }

    // ----- transactions and queues -----

    fn new_txn(&mut self, kind: CmdKind, origin: Origin, plane: u32, lpn: Lpn, src: Ppn) -> u32 {
        let t = new_txn_in(
            &mut self.txns,
            &mut self.free_txns,
            kind,
            origin,
            plane,
            lpn,
            src,
        );
        // A GC write's stream: judged when the write is created (a move's
        // read needs no stream; its program is created when the read is done).
        if self.sort_moves
            && origin == Origin::Gc
            && lpn != INVALID
            && matches!(kind, CmdKind::Program | CmdKind::Copyback)
        {
            self.txns[t as usize].hot = self.move_hot(lpn);
        }
        t
    }

    /// Is a host page hot (its write stream)? By the identifier, or always
    /// when hot/cold separation sorts GC moves instead (the SPD paper treats
    /// host evictions as hot).
    fn host_hot(&self, lpn: Lpn) -> bool {
        self.hdi
            .as_ref()
            .is_some_and(|h| self.sort_moves || h.is_hot(lpn as u64))
    }

    /// Is a page GC moves hot, judged now (`ftl.hot_separation = "gc-moves"`)?
    fn move_hot(&mut self, lpn: Lpn) -> bool {
        let now = self.engine.now();
        self.hdi.as_mut().is_some_and(|h| {
            h.set_time_ns(now);
            h.is_hot(lpn as u64)
        })
    }

    fn enqueue(&mut self, plane: u32, class: Class, t: u32) {
        self.seq += 1;
        let d = self.ftl.map.die_of_plane(plane);
        let now = self.engine.now();
        let mark = self.gc_clock(d, now);
        let tx = &mut self.txns[t as usize];
        tx.seq = self.seq;
        if tx.origin == Origin::Host && tx.kind == CmdKind::Program {
            tx.queued_at = now;
            tx.gc_mark = mark;
        }
        self.queues.push(plane, class, t);
        self.kick(d);
    }

    /// GC-active time of a die up to `now`: the time during which at least
    /// one of its planes was collecting garbage.
    #[inline]
    fn gc_clock(&self, die: u32, now: Time) -> Time {
        let (active, since, acc) = self.die_gc[die as usize];
        acc + if active > 0 { now - since } else { 0 }
    }

    /// A plane of `die` started (`+1`) or finished (`-1`) a GC.
    fn die_gc_change(&mut self, die: u32, delta: i32) {
        let now = self.engine.now();
        let acc = self.gc_clock(die, now);
        let g = &mut self.die_gc[die as usize];
        g.0 = (g.0 as i32 + delta) as u32;
        g.1 = now;
        g.2 = acc;
    }

    #[inline]
    fn kick(&mut self, die: u32) {
        if !self.kick_flag[die as usize] {
            self.kick_flag[die as usize] = true;
            self.kicked.push(die);
        }
    }

    /// Dispatch on every die that got new work during the current event, so
    /// that work queued together can be joined into multi-plane commands.
    fn flush_kicks(&mut self) {
        while let Some(d) = self.kicked.pop() {
            self.kick_flag[d as usize] = false;
            if !self.dies[d as usize].busy {
                self.dispatch(d);
            }
        }
    }

    // ----- GC -----

    /// GC unit of a plane: the plane, or with aligned block groups its die.
    #[inline]
    fn gc_unit(&self, plane: u32) -> usize {
        if self.groups {
            (plane / self.ppd) as usize
        } else {
            plane as usize
        }
    }

    /// Die of GC unit `u`.
    #[inline]
    fn die_of_unit(&self, u: usize) -> u32 {
        if self.groups {
            u as u32
        } else {
            self.ftl.map.die_of_plane(u as u32)
        }
    }

    /// Pages of a GC victim: a block, or a group of one block per plane.
    #[inline]
    fn victim_pages(&self) -> u32 {
        self.ftl.pages_per_block() * if self.groups { self.ppd } else { 1 }
    }

    fn maybe_start_gc(&mut self, plane: u32) {
        let u = self.gc_unit(plane);
        if self.gc[u].victim != INVALID {
            return;
        }
        let needs = if self.groups {
            let first = u as u32 * self.ppd;
            (first..first + self.ppd).any(|p| self.ftl.needs_gc(p))
        } else {
            self.ftl.needs_gc(plane)
        };
        if !needs {
            return;
        }
        if self.join_pages == 0 {
            self.start_gc(plane, false);
            return;
        }
        // ParaGC: sibling planes already low on space collect with it.
        let die = self.ftl.map.die_of_plane(plane);
        let planes = die * self.ppd..(die + 1) * self.ppd;
        let mut joiners = [INVALID; MAX_PLANES_PER_DIE];
        let mut n = 0;
        let mut collecting = false;
        for q in planes.clone().filter(|&q| q != plane) {
            if self.gc[q as usize].victim != INVALID {
                collecting = true;
            } else if self.ftl.free_pages(q) < self.join_pages {
                joiners[n] = q;
                n += 1;
            }
        }
        // Alignment: planes of a die collecting at the same time (started
        // together, or this one while siblings were collecting) move their
        // pages together through the cache.
        let joined = self.join_align && (n > 0 || collecting);
        if !self.start_gc(plane, joined) {
            return;
        }
        for &q in &joiners[..n] {
            if self.start_gc(q, joined) {
                self.metrics.gc.joined += 1;
            }
        }
        if joined {
            for q in planes {
                let g = &mut self.gc[q as usize];
                if g.victim != INVALID && !g.joined {
                    g.joined = true;
                    self.gc_refill(q as usize);
                }
            }
        }
    }

    /// Start a GC in the unit of `plane` (`joined`: with sibling planes'
    /// GCs, their moves aligned through the cache); false if it has no victim.
    fn start_gc(&mut self, plane: u32, joined: bool) -> bool {
        let u = self.gc_unit(plane);
        let now = self.engine.now();
        let Some(victim) = self.ftl.pick_victim(plane, now, &mut self.rng) else {
            return false;
        };
        if self.fast {
            return self.merge_start(u, victim);
        }
        let valid = if self.groups {
            self.ftl.group_valid(victim)
        } else {
            self.ftl.valid_count(victim)
        };
        if valid == self.victim_pages() {
            self.gc[u].fruitless += 1;
            if self.gc[u].fruitless > self.ftl.blocks_per_plane() {
                self.error.get_or_insert(Error::Invalid(format!(
                    "plane {plane} holds only valid data ({} valid pages of {}, {} free): garbage collection \
                     cannot free space (is the logical capacity larger than the plane?)",
                    self.ftl.plane_valid(plane),
                    self.ftl.pages_per_block() * self.ftl.blocks_per_plane(),
                    self.ftl.free_pages(plane)
                )));
            }
        } else {
            self.gc[u].fruitless = 0;
        }
        let g = &mut self.gc[u];
        g.victim = victim;
        g.cursor = 0;
        g.pending = 0;
        g.reading = 0;
        g.erases_left = 0;
        g.start = now;
        g.erase_queued = false;
        g.joined = joined;
        self.die_gc_change(self.ftl.map.die_of_plane(plane), 1);
        self.gc_refill(u);
        true
    }

    /// Keep up to `gc.moves_in_flight` migrations of the unit's victim
    /// queued or executing, walking the victim's pages in order; when all are
    /// done, erase it.
    fn gc_refill(&mut self, u: usize) {
        if self.groups {
            return self.gc_refill_group(u);
        }
        let plane = u as u32;
        let ppb = self.ftl.pages_per_block();
        let kind = match self.cfg.gc.migration {
            Migration::Copyback => CmdKind::Copyback,
            Migration::Controller => CmdKind::Read,
        };
        // A joined GC's moves wait in the cache to be placed (`para_flush`):
        // copybacks in the plane's registers, moves through the controller
        // once read. Only the reads of the latter are limited: pages waiting
        // in the controller's cache hold no plane.
        let joined = self.gc[u].joined;
        let by_reads = joined && kind == CmdKind::Read;
        let window = self.cfg.gc.moves_in_flight;
        let mut cached = false;
        while (if by_reads {
            self.gc[u].reading
        } else {
            self.gc[u].pending
        }) < window
            && self.gc[u].cursor < ppb
        {
            let ppn = self.gc[u].victim * ppb + self.gc[u].cursor;
            self.gc[u].cursor += 1;
            if let Some(lpn) = self.ftl.owner(ppn) {
                self.ftl.prefetch(lpn);
                let t = self.new_txn(kind, Origin::Gc, plane, lpn, ppn);
                self.gc[u].pending += 1;
                if kind == CmdKind::Read {
                    self.gc[u].reading += 1;
                    self.enqueue(plane, Class::Gc, t);
                } else if joined {
                    self.txns[t as usize].home = plane;
                    self.para_pool[self.ftl.map.die_of_plane(plane) as usize].push(t);
                    cached = true;
                } else {
                    self.enqueue(plane, Class::Gc, t);
                }
            }
        }
        if cached {
            self.para_flush(self.ftl.map.die_of_plane(plane));
        }
        self.try_erase(u);
    }

    /// Group GC: read the group's valid pages, page index by page index over
    /// the die's planes (aligned ones go as one multi-plane read), up to
    /// `gc.moves_in_flight` per plane at once. Read pages are programmed to
    /// the die's planes in turn (Die-Writes: staged until a Die-Write is full).
    fn gc_refill_group(&mut self, u: usize) {
        let die = u as u32;
        let n = self.ppd;
        let (ppb, bpp) = (self.ftl.pages_per_block(), self.ftl.blocks_per_plane());
        let total = self.victim_pages();
        let window = self.cfg.gc.moves_in_flight * n;
        let g = self.gc[u].victim % bpp;
        while self.gc[u].reading < window && self.gc[u].cursor < total {
            let c = self.gc[u].cursor;
            self.gc[u].cursor += 1;
            let plane = die * n + c % n;
            let ppn = (plane * bpp + g) * ppb + c / n;
            if let Some(lpn) = self.ftl.owner(ppn) {
                self.ftl.prefetch(lpn);
                let t = self.new_txn(CmdKind::Read, Origin::Gc, plane, lpn, ppn);
                self.gc[u].pending += 1;
                self.gc[u].reading += 1;
                self.enqueue(plane, Class::Gc, t);
            }
        }
        if self.die_write && self.gc[u].cursor == total && self.gc[u].reading == 0 {
            self.complete_staging(die);
        }
        self.try_erase(u);
    }

    /// A group GC's page read completed: program it on the die's next plane
    /// (Die-Writes: stage it).
    fn gc_read_done(&mut self, t: u32) {
        let tx = self.txns[t as usize];
        let p = self.new_txn(CmdKind::Program, Origin::Gc, tx.plane, tx.lpn, tx.src);
        let u = self.gc_unit(tx.plane);
        self.gc[u].reading -= 1;
        let die = u as u32;
        if self.die_write {
            let hot = self.txns[p as usize].hot;
            self.stage(die, p, hot);
            self.flush_staging(die);
        } else {
            let dst = self.ftl.next_plane_in_die(die, self.writer(p));
            self.txns[p as usize].plane = dst;
            self.enqueue(dst, Class::Gc, p);
        }
        self.gc_refill(u);
    }

    fn gc_progress(&mut self, u: usize) {
        self.gc[u].pending -= 1;
        self.gc_refill(u);
    }

    fn try_erase(&mut self, u: usize) {
        let g = self.gc[u];
        if g.victim == INVALID || g.cursor < self.victim_pages() || g.pending > 0 || g.erase_queued
        {
            return;
        }
        let ppb = self.ftl.pages_per_block();
        if self.groups {
            let blocks: Vec<u32> = self.ftl.group_blocks(g.victim).collect();
            if blocks.iter().any(|&b| self.ftl.pins(b) > 0) {
                return;
            }
            self.gc[u].erase_queued = true;
            self.gc[u].erases_left = blocks.len() as u32;
            // One erase per plane, same block index: one multi-plane erase.
            for b in blocks {
                let plane = b / self.ftl.blocks_per_plane();
                let t = self.new_txn(CmdKind::Erase, Origin::Gc, plane, INVALID, b * ppb);
                self.enqueue(plane, Class::Gc, t);
            }
            return;
        }
        if self.ftl.pins(g.victim) > 0 {
            return;
        }
        self.gc[u].erase_queued = true;
        let plane = u as u32;
        let t = self.new_txn(CmdKind::Erase, Origin::Gc, plane, INVALID, g.victim * ppb);
        self.enqueue(plane, Class::Gc, t);
    }

    /// Drop GC migrations at the head of a plane's GC queue whose page the
    /// host has rewritten meanwhile; convert copybacks the odd/even rule
    /// forbids into migrations through the controller.
    fn clean_gc_head(&mut self, plane: u32) {
        // FAST merges program what they read (stale pages too).
        if self.fast {
            return;
        }
        while let Some(t) = self.queues.head(plane, Class::Gc) {
            let tx = self.txns[t as usize];
            // Erases, padding and host pages of a Die-Write stay; so do
            // moves that are part of a Die-Write (programmed stale).
            if tx.kind == CmdKind::Erase
                || tx.src == INVALID
                || tx.origin == Origin::Host
                || (self.die_write && tx.kind == CmdKind::Program)
            {
                return;
            }
            if self.ftl.owner(tx.src) != Some(tx.lpn) {
                self.queues.pop(plane, Class::Gc);
                self.metrics.gc.moves_dropped += 1;
                self.free_txn(t);
                let u = self.move_unit(&tx);
                if tx.kind == CmdKind::Read {
                    self.gc[u].reading -= 1;
                }
                if tx.home != INVALID {
                    self.para_placed_done(tx.home, plane);
                } else {
                    self.gc_progress(u);
                }
                continue;
            }
            if tx.kind == CmdKind::Copyback && self.cfg.flash.copyback_odd_even {
                if let Some((_, dst_page)) = self.ftl.peek_write(plane, self.writer(t)) {
                    if dst_page % 2 != self.ftl.map.page_of(tx.src) % 2 {
                        self.txns[t as usize].kind = CmdKind::Read;
                        let u = self.move_unit(&tx);
                        self.gc[u].reading += 1;
                        self.metrics.gc.copyback_fallbacks += 1;
                    }
                }
            }
            return;
        }
    }

    /// GC unit a page move belongs to (a joined move may be placed on a
    /// sibling plane of its own).
    #[inline]
    fn move_unit(&self, tx: &Txn) -> usize {
        if tx.home != INVALID {
            tx.home as usize
        } else {
            self.gc_unit(tx.plane)
        }
    }

    /// A joined move placed on `plane` was programmed, or dropped (the
    /// host rewrote its page): its GC (of plane `home`) progresses, and
    /// the die's next moves may be placed.
    fn para_placed_done(&mut self, home: u32, plane: u32) {
        let die = self.ftl.map.die_of_plane(plane);
        self.para_queued[die as usize] -= 1;
        self.gc_progress(home as usize);
        self.para_flush(die);
    }

    /// ParaGC alignment: place cached moves of `die`'s joined GCs on its
    /// joined planes, once the moves placed before are written. The pages
    /// go to one write stream at a time (the oldest cached page's). If the
    /// joined planes' write points differ, the planes behind get a page each
    /// (the target is the offset the fewest pages reach, counting a block's
    /// end as reaching the next block's start); once aligned, every joined
    /// plane gets one, and the command builder joins them into one
    /// multi-plane program. An aligned round waits for as many cached pages
    /// as planes while reads are still under way. A plane takes a page of
    /// its own victim where the cache holds one, else (through the
    /// controller only) the oldest.
    fn para_flush(&mut self, die: u32) {
        let d = die as usize;
        if self.para_queued[d] > 0 {
            return;
        }
        // Pages the host rewrote while cached need no move.
        let mut i = 0;
        while i < self.para_pool[d].len() {
            let t = self.para_pool[d][i];
            let tx = self.txns[t as usize];
            if self.ftl.owner(tx.src) == Some(tx.lpn) {
                i += 1;
                continue;
            }
            self.para_pool[d].remove(i);
            self.metrics.gc.moves_dropped += 1;
            self.free_txn(t);
            self.gc_progress(tx.home as usize);
        }
        // The GC's next move may have been cached and a round placed.
        if self.para_queued[d] > 0 {
            return;
        }
        let Some(&oldest) = self.para_pool[d].first() else {
            return;
        };
        let w = self.writer(oldest);
        let ppb = self.ftl.pages_per_block();
        // The joined planes that can take a page of the stream now: there
        // is one of their own victim, or one through the controller.
        let shared = self.para_pool[d]
            .iter()
            .any(|&t| self.txns[t as usize].kind == CmdKind::Program && self.writer(t) == w);
        let mut planes = [(INVALID, 0u32); MAX_PLANES_PER_DIE];
        let mut n = 0;
        let mut coming = false;
        for q in die * self.ppd..(die + 1) * self.ppd {
            let g = self.gc[q as usize];
            if g.victim == INVALID || !g.joined {
                continue;
            }
            coming |= g.reading > 0;
            let own = || {
                self.para_pool[d]
                    .iter()
                    .any(|&t| self.txns[t as usize].home == q && self.writer(t) == w)
            };
            if !(shared || own()) {
                continue;
            }
            if let Some((_, page)) = self.ftl.peek_write(q, w) {
                planes[n] = (q, page);
                n += 1;
            }
        }
        let planes = &planes[..n];
        let cost = |t: u32| -> u32 { planes.iter().map(|&(_, p)| (t + ppb - p) % ppb).sum() };
        let Some(target) = planes.iter().map(|&(_, p)| p).min_by_key(|&t| (cost(t), t)) else {
            return;
        };
        let lagging = planes.iter().any(|&(_, p)| p != target);
        // A page for each plane of the round: one of its own victim, else
        // (through the controller only) any other.
        let mut picks = [(INVALID, INVALID); MAX_PLANES_PER_DIE];
        let mut k = 0;
        for &(q, p) in planes {
            if lagging && p == target {
                continue;
            }
            let free = |t: u32| self.writer(t) == w && !picks[..k].iter().any(|&(_, x)| x == t);
            let pool = &self.para_pool[d];
            let own = pool
                .iter()
                .copied()
                .find(|&t| self.txns[t as usize].home == q && free(t));
            let any = || {
                pool.iter()
                    .copied()
                    .find(|&t| self.txns[t as usize].kind == CmdKind::Program && free(t))
            };
            if let Some(t) = own.or_else(any) {
                picks[k] = (q, t);
                k += 1;
            }
        }
        if !lagging && k < n && coming {
            return;
        }
        for &(q, t) in &picks[..k] {
            let i = self.para_pool[d]
                .iter()
                .position(|&x| x == t)
                .expect("picked from the pool");
            self.para_pool[d].remove(i);
            self.txns[t as usize].plane = q;
            self.para_queued[d] += 1;
            self.metrics.gc.aligning_moves += lagging as u64;
            self.enqueue(q, Class::Gc, t);
        }
    }

    // ----- dispatch -----

    /// Who writes the page of transaction `t` (stream and reserve rights).
    #[inline]
    fn writer(&self, t: u32) -> Writer {
        let tx = &self.txns[t as usize];
        match tx.origin {
            Origin::Gc => Writer::Gc { hot: tx.hot },
            Origin::Host | Origin::Mapping => Writer::Host { hot: tx.hot },
        }
    }

    /// Who writes a Die-Write of `class`: a GC's Die-Writes (GC class, even
    /// when they carry host pages) may use the GC reserve and go to the
    /// stream they were staged for (`stage` marks every member alike); a
    /// host Die-Write goes where its first host page would.
    fn gang_writer(&self, class: Class, members: &[u32]) -> Writer {
        if class == Class::Gc {
            return Writer::Gc {
                hot: self.txns[members[0] as usize].hot,
            };
        }
        members
            .iter()
            .find(|&&t| self.txns[t as usize].origin != Origin::Gc)
            .map_or(Writer::GC, |&t| self.writer(t))
    }

    /// Die-Writes: the heads of `class` on every plane of `die` if they form
    /// a Die-Write that may run now. Host Die-Writes wait for the die's GC
    /// to finish (under SPD+ too: there host pages get through only by
    /// joining the GC's Die-Writes, within the space the GC can spare).
    fn gang(&self, die: u32, class: Class) -> Option<[u32; MAX_PLANES_PER_DIE]> {
        let first = die * self.ppd;
        let mut members = [INVALID; MAX_PLANES_PER_DIE];
        if class == Class::Write && self.gc[die as usize].victim != INVALID {
            return None;
        }
        for i in 0..self.ppd {
            let p = first + i;
            if class == Class::Write && self.queues.head(p, Class::Gc).is_some() {
                return None;
            }
            let t = self.queues.head(p, class)?;
            if self.txns[t as usize].kind != CmdKind::Program {
                return None;
            }
            members[i as usize] = t;
        }
        // A FAST merge queues a data unit's page index on all planes at once.
        if self.txns[members[0] as usize].dst != INVALID {
            return Some(members);
        }
        let w = self.gang_writer(class, &members[..self.ppd as usize]);
        (first..first + self.ppd)
            .all(|p| self.ftl.peek_write(p, w).is_some())
            .then_some(members)
    }

    /// May the head `t` of a queue of `plane` run now?
    fn eligible(&self, plane: u32, class: Class, t: u32) -> bool {
        if self.die_write && class != Class::Read && self.txns[t as usize].kind == CmdKind::Program
        {
            return self.gang(self.ftl.map.die_of_plane(plane), class).is_some();
        }
        match class {
            Class::Read => true,
            Class::Write => {
                // GC has priority over host writes in its plane; with
                // aligned block groups GC holds the die (it moves pages over
                // all its planes, into groups reserved for them all); a
                // joined GC holds its plane while its moves wait in the
                // cache for placement.
                let g = &self.gc[self.gc_unit(plane)];
                self.queues.head(plane, Class::Gc).is_none()
                    && (!(self.groups || g.joined) || g.victim == INVALID)
                    && self.ftl.peek_write(plane, self.writer(t)).is_some()
            }
            Class::Gc => match self.txns[t as usize].kind {
                CmdKind::Program | CmdKind::Copyback => {
                    self.txns[t as usize].dst != INVALID
                        || self.ftl.peek_write(plane, self.writer(t)).is_some()
                }
                CmdKind::Read | CmdKind::Erase => true,
            },
        }
    }

    fn dispatch(&mut self, die: u32) {
        let first = die * self.ppd;
        let planes = first..first + self.ppd;
        for p in planes.clone() {
            self.clean_gc_head(p);
        }
        // Choose the leading transaction.
        let mut lead: Option<(Class, u32, u64)> = None;
        for class in [Class::Read, Class::Gc, Class::Write] {
            for p in planes.clone() {
                if let Some(t) = self.queues.head(p, class) {
                    let seq = self.txns[t as usize].seq;
                    if lead.is_none_or(|(_, _, s)| seq < s) && self.eligible(p, class, t) {
                        lead = Some((class, p, seq));
                    }
                }
            }
            if lead.is_some() && self.queues.policy == SchedPolicy::ReadPriority {
                break;
            }
        }
        let Some((class, lead_plane, _)) = lead else {
            return;
        };
        let lt = self.queues.head(lead_plane, class).expect("lead exists");
        let kind = self.txns[lt as usize].kind;
        if self.die_write && kind == CmdKind::Program {
            let members = self.gang(die, class).expect("eligible() saw the Die-Write");
            for p in planes.clone() {
                self.queues.pop(p, class);
            }
            let w = self.gang_writer(class, &members[..self.ppd as usize]);
            return self.execute(die, kind, &members[..self.ppd as usize], Some(w));
        }
        let mut members = [INVALID; MAX_PLANES_PER_DIE];
        let mut n = 0;
        members[n] = self.queues.pop(lead_plane, class).expect("lead exists");
        n += 1;
        if self.rules.enabled {
            let lead_addr = self.cmd_addr(lt, kind, lead_plane);
            for p in planes.clone() {
                if !self.rules.may_pair(lead_plane - first, p - first) {
                    continue;
                }
                let Some(t) = self.queues.head(p, class) else {
                    continue;
                };
                if self.txns[t as usize].kind != kind || !self.eligible(p, class, t) {
                    continue;
                }
                // Aligned block groups: sibling planes open the die's free
                // groups in one order per write stream, so only programs of
                // one stream can share the group their addresses show; so
                // with per-plane blocks opened at indices siblings use
                // (`ftl.align_block_index`: one plane's opening decides the
                // next's).
                if (self.groups || self.ftl.aligned_open())
                    && matches!(kind, CmdKind::Program | CmdKind::Copyback)
                    && self.writer(t) != self.writer(lt)
                {
                    continue;
                }
                let addr = self.cmd_addr(t, kind, p);
                // Joined GCs' copybacks (ParaGC): each page is read into its
                // plane's register on its own, so only the destinations
                // need to be aligned.
                let registers = kind == CmdKind::Copyback
                    && self.txns[lt as usize].home != INVALID
                    && self.txns[t as usize].home != INVALID;
                if self.addr_aligned(kind, lead_addr, addr, registers) {
                    members[n] = self.queues.pop(p, class).expect("head exists");
                    n += 1;
                }
            }
        }
        self.execute(die, kind, &members[..n], None);
    }

    /// Source and destination in-plane addresses that alignment is judged on.
    fn cmd_addr(&self, t: u32, kind: CmdKind, plane: u32) -> [(u32, u32); 2] {
        let m = &self.ftl.map;
        let src = self.txns[t as usize].src;
        let s = if src == INVALID {
            (0, 0)
        } else {
            (m.block_of(src), m.page_of(src))
        };
        let dst = self.txns[t as usize].dst;
        let d = match kind {
            CmdKind::Program if dst != INVALID => (m.block_of(dst), m.page_of(dst)),
            CmdKind::Program | CmdKind::Copyback => self
                .ftl
                .peek_write(plane, self.writer(t))
                .unwrap_or((INVALID, INVALID)),
            _ => (0, 0),
        };
        [s, d]
    }

    /// May commands at in-plane addresses `a` and `b` (source, destination)
    /// join? `registers`: copybacks whose sources are read one by one into
    /// their planes' registers (only the destinations must be aligned).
    fn addr_aligned(
        &self,
        kind: CmdKind,
        a: [(u32, u32); 2],
        b: [(u32, u32); 2],
        registers: bool,
    ) -> bool {
        let r = &self.rules;
        match kind {
            CmdKind::Read => r.aligned(a[0].0, a[0].1, b[0].0, b[0].1),
            CmdKind::Program => r.aligned(a[1].0, a[1].1, b[1].0, b[1].1),
            CmdKind::Erase => r.erase_aligned(a[0].0, b[0].0),
            CmdKind::Copyback => {
                (registers || r.aligned(a[0].0, a[0].1, b[0].0, b[0].1))
                    && r.aligned(a[1].0, a[1].1, b[1].0, b[1].1)
                    && (!self.cfg.flash.copyback_odd_even || b[0].1 % 2 == b[1].1 % 2)
            }
        }
    }

    /// Consistency checker: the pages a multi-plane program (or copyback)
    /// wrote must be aligned as the multi-plane rule says (the command was
    /// built from where the pages would go; this checks they went there).
    fn check_multiplane(&mut self, kind: CmdKind, dsts: &[Ppn], now: Time) {
        if !self.cfg.check.enabled || dsts.len() < 2 {
            return;
        }
        let m = &self.ftl.map;
        let (b0, p0) = (m.block_of(dsts[0]), m.page_of(dsts[0]));
        if let Some(&bad) = dsts[1..]
            .iter()
            .find(|&&d| !self.rules.aligned(b0, p0, m.block_of(d), m.page_of(d)))
        {
            self.error.get_or_insert(Error::Consistency(format!(
                "a {}-plane {kind:?} at {now} ns wrote unaligned pages: block {b0} page {p0} and block {} page {}",
                dsts.len(),
                m.block_of(bad),
                m.page_of(bad)
            )));
        }
    }

    fn channel_of_die(&self, die: u32) -> usize {
        let m = &self.ftl.map;
        m.channel_of_chip(m.chip_of_die(die)) as usize
    }

    /// Run a command of `members` on `die`; a Die-Write gives the writer
    /// (write stream) of all its pages.
    fn execute(&mut self, die: u32, kind: CmdKind, members: &[u32], gang_writer: Option<Writer>) {
        let now = self.engine.now();
        let n = members.len();
        let origin = self.txns[members[0] as usize].origin;
        let d = &mut self.dies[die as usize];
        d.busy = true;
        d.finished = 0;
        d.n = n as u8;
        d.txns[..n].copy_from_slice(members);
        self.metrics.planes_busy(now, n as i32);
        self.metrics.cmds.add(kind, origin, n);
        if self.cmt.is_some() {
            for &t in members {
                if self.txns[t as usize].origin == Origin::Mapping {
                    match kind {
                        CmdKind::Read => self.metrics.mapping.translation_reads += 1,
                        _ => self.metrics.mapping.translation_writes += 1,
                    }
                }
            }
        }
        if matches!(kind, CmdKind::Program | CmdKind::Copyback) {
            self.metrics
                .series_pages(now, origin == Origin::Gc, n as u64);
        }
        // Command and address cycles go over the channel before the array
        // or data phase starts.
        let t0 = if self.timing.cmd_ns > 0 {
            let ch = self.channel_of_die(die);
            let start = now.max(self.channel_free[ch]);
            self.channel_free[ch] = start + self.timing.cmd_ns;
            start + self.timing.cmd_ns
        } else {
            now
        };
        let gc = origin == Origin::Gc;
        match kind {
            CmdKind::Read => {
                let array = members
                    .iter()
                    .map(|&t| {
                        self.timing
                            .read_time(self.ftl.map.page_of(self.txns[t as usize].src))
                    })
                    .max()
                    .unwrap_or(0);
                if gc {
                    self.metrics.gc.read_ns += array as u128 * n as u128;
                }
                self.engine
                    .schedule(t0 + array, EventKind::ReadArrayDone, die);
            }
            CmdKind::Program => {
                let mut array = 0;
                let mut moves = 0u64;
                let mut dsts = [INVALID; MAX_PLANES_PER_DIE];
                // A Die-Write goes to one write stream on every plane, so
                // that the die's write points stay aligned.
                for (i, &t) in members.iter().enumerate() {
                    let tx = self.txns[t as usize];
                    let w = gang_writer.unwrap_or_else(|| self.writer(t));
                    let ppn = if tx.dst != INVALID {
                        // A FAST merge: the page goes to its offset.
                        if self.ftl.fast_program(tx.src, tx.lpn, tx.dst) {
                            self.metrics.gc.pages_migrated += 1;
                            moves += 1;
                        } else {
                            self.metrics.wasted_pages += 1;
                        }
                        Some(tx.dst)
                    } else if tx.origin == Origin::Gc {
                        if tx.src != INVALID && self.ftl.owner(tx.src) == Some(tx.lpn) {
                            self.metrics.gc.pages_migrated += 1;
                            self.metrics.gc.hot_moves += (w == Writer::Gc { hot: true }) as u64;
                            moves += 1;
                            self.map_moved(tx.lpn);
                            self.ftl.relocate_as(tx.src, tx.plane, w, now)
                        } else {
                            // Padding, or a move in a Die-Write whose page
                            // the host rewrote after it was read.
                            self.metrics.wasted_pages += 1;
                            self.ftl.write(tx.plane, INVALID, 0, w, now)
                        }
                    } else if tx.copy {
                        self.ftl.assigned_written(tx.plane);
                        if self.ftl.owner(tx.src) == Some(tx.lpn) {
                            self.metrics.copied_pages += 1;
                            self.ftl.relocate_as(tx.src, tx.plane, w, now)
                        } else {
                            // Rewritten or moved since it was read.
                            self.metrics.wasted_pages += 1;
                            self.ftl.write(tx.plane, INVALID, 0, w, now)
                        }
                    } else {
                        // A host page, or a DFTL translation page.
                        self.ftl.assigned_written(tx.plane);
                        let current = self.inflight.get(&tx.lpn) == Some(&t);
                        let lpn = if current { tx.lpn } else { INVALID };
                        if tx.origin == Origin::Host {
                            // GC time of this die the write waited through.
                            self.txns[t as usize].gc_mark = self.gc_clock(die, now) - tx.gc_mark;
                            self.metrics.host_program_pages[0] += 1;
                            if matches!(gang_writer, Some(Writer::Gc { .. })) {
                                self.metrics.gc.host_pages_combined += 1;
                                self.combined_pending[die as usize] -= 1;
                            }
                            self.metrics.host_program_pages[1] += (n > 1) as u64;
                            if matches!(w, Writer::Host { hot: true } | Writer::Gc { hot: true }) {
                                self.metrics.hot_pages += 1;
                            }
                        }
                        self.ftl.write(tx.plane, lpn, tx.version, w, now)
                    }
                    .expect("eligible() checked that the plane has a free page");
                    self.txns[t as usize].src = ppn;
                    dsts[i] = ppn;
                    let page = self.ftl.map.page_of(ppn);
                    self.metrics.programmed_types[tx.origin as usize]
                        [self.timing.page_type[page as usize] as usize] += 1;
                    array = array.max(self.timing.program_time(page));
                    self.maybe_start_gc(tx.plane);
                }
                self.check_multiplane(kind, &dsts[..n], now);
                if self.die_write && self.cfg.check.enabled {
                    if let Err(e) = self.ftl.die_alignment(die) {
                        self.error.get_or_insert(Error::Consistency(format!(
                            "after a Die-Write at {now} ns: {e}"
                        )));
                    }
                }
                let ch = self.channel_of_die(die);
                let start = t0.max(self.channel_free[ch]);
                let xfer = self.timing.xfer_ns;
                let xfer_end = start + n as Time * xfer;
                self.channel_free[ch] = xfer_end;
                self.metrics.gc.transfer_ns += xfer as u128 * moves as u128;
                self.metrics.gc.write_ns += array as u128 * moves as u128;
                if self.cfg.host.write_completion == WriteCompletion::Transfer {
                    for (i, &t) in members.iter().enumerate() {
                        if self.txns[t as usize].req != INVALID {
                            let at = start + (i as Time + 1) * xfer;
                            self.engine.schedule(
                                at,
                                EventKind::TransferDone,
                                die * MAX_PLANES_PER_DIE as u32 + i as u32,
                            );
                        }
                    }
                }
                self.engine
                    .schedule(xfer_end + array, EventKind::DieDone, die);
            }
            CmdKind::Erase => {
                if gc {
                    self.metrics.gc.erase_ns += self.timing.erase_ns as u128 * n as u128;
                }
                self.engine
                    .schedule(t0 + self.timing.erase_ns, EventKind::DieDone, die);
            }
            CmdKind::Copyback => {
                // Aligned sources are read in one multi-plane read; joined
                // GCs' unaligned ones one after another (into each plane's
                // register), then one multi-plane program.
                let m = &self.ftl.map;
                let s0 = self.txns[members[0] as usize].src;
                let one_read = members.iter().all(|&t| {
                    let s = self.txns[t as usize].src;
                    self.rules
                        .aligned(m.block_of(s0), m.page_of(s0), m.block_of(s), m.page_of(s))
                });
                let (mut tr, mut tr_sum, mut tp) = (0, 0, 0);
                let mut dsts = [INVALID; MAX_PLANES_PER_DIE];
                for (i, &t) in members.iter().enumerate() {
                    let tx = self.txns[t as usize];
                    let r = self.timing.read_time(self.ftl.map.page_of(tx.src));
                    tr = tr.max(r);
                    tr_sum += r;
                    let w = self.writer(t);
                    let dst = self
                        .ftl
                        .relocate_as(tx.src, tx.plane, w, now)
                        .expect("eligible() checked that the plane has a free page");
                    dsts[i] = dst;
                    self.metrics.gc.pages_migrated += 1;
                    self.metrics.gc.hot_moves += (w == Writer::Gc { hot: true }) as u64;
                    self.map_moved(tx.lpn);
                    let page = self.ftl.map.page_of(dst);
                    self.metrics.programmed_types[Origin::Gc as usize]
                        [self.timing.page_type[page as usize] as usize] += 1;
                    tp = tp.max(self.timing.program_time(page));
                    self.maybe_start_gc(tx.plane);
                }
                self.check_multiplane(kind, &dsts[..n], now);
                let read = if one_read { tr } else { tr_sum };
                self.metrics.gc.read_ns += if one_read {
                    tr as u128 * n as u128
                } else {
                    tr_sum as u128
                };
                self.metrics.gc.write_ns += tp as u128 * n as u128;
                self.engine
                    .schedule(t0 + read + tp, EventKind::DieDone, die);
            }
        }
    }

    fn on_read_array_done(&mut self, die: u32) {
        let now = self.engine.now();
        let d = self.dies[die as usize];
        let n = d.n as usize;
        let ch = self.channel_of_die(die);
        let xfer = self.timing.xfer_ns;
        // The pages leave one after another; each read finishes when its
        // own data is out, the die when the last is.
        let start = now.max(self.channel_free[ch]);
        for i in 0..n - 1 {
            let at = start + (i as Time + 1) * xfer;
            self.engine.schedule(
                at,
                EventKind::TransferDone,
                die * MAX_PLANES_PER_DIE as u32 + i as u32,
            );
        }
        let end = start + n as Time * xfer;
        self.channel_free[ch] = end;
        if self.txns[d.txns[0] as usize].origin == Origin::Gc {
            self.metrics.gc.transfer_ns += xfer as u128 * n as u128;
        }
        self.engine.schedule(end, EventKind::DieDone, die);
    }

    fn on_transfer_done(&mut self, arg: u32) {
        let (die, i) = (
            arg / MAX_PLANES_PER_DIE as u32,
            (arg % MAX_PLANES_PER_DIE as u32) as usize,
        );
        let d = self.dies[die as usize];
        let t = d.txns[i];
        match self.txns[t as usize].kind {
            CmdKind::Read => {
                debug_assert_eq!(d.finished as usize, i, "reads finish in transfer order");
                self.dies[die as usize].finished += 1;
                self.finish_txn(t);
            }
            _ => {
                // Transfer-mode write completion: the host sees the write done.
                let req = std::mem::replace(&mut self.txns[t as usize].req, INVALID);
                self.sub_done(req);
            }
        }
    }

    fn on_die_done(&mut self, die: u32) {
        let now = self.engine.now();
        let d = self.dies[die as usize];
        let members = &d.txns[d.finished as usize..d.n as usize];
        // SPD's plane utilisation: sampled when a buffer eviction completes,
        // while its planes still count as busy.
        if members
            .iter()
            .any(|&t| self.txns[t as usize].slot != INVALID)
        {
            self.metrics.sample_at_eviction();
        }
        self.metrics.planes_busy(now, -(d.n as i32));
        self.dies[die as usize].busy = false;
        for &t in members {
            self.finish_txn(t);
        }
        self.kick(die);
    }

    fn finish_txn(&mut self, t: u32) {
        let now = self.engine.now();
        let tx = self.txns[t as usize];
        match (tx.kind, tx.origin) {
            (CmdKind::Read, Origin::Mapping) => {
                self.read_unpin(tx.src);
                let waiters = self.map_waiters.remove(&tx.lpn).unwrap_or_default();
                self.map_loaded(tx.lpn, &waiters);
            }
            (CmdKind::Program, Origin::Mapping) => {
                if self.inflight.get(&tx.lpn) == Some(&t) {
                    self.inflight.remove(&tx.lpn);
                }
            }
            (CmdKind::Read, Origin::Host) => {
                self.read_unpin(tx.src);
                if tx.assembly != INVALID {
                    // SuperPage: the page read goes back unchanged.
                    let p = self.new_txn(CmdKind::Program, Origin::Host, INVALID, tx.lpn, tx.src);
                    self.txns[p as usize].copy = true;
                    let a = &mut self.assemblies[tx.assembly as usize];
                    a.members[(tx.lpn % self.ppd) as usize] = p;
                    a.reads_left -= 1;
                    self.assembly_progress(tx.assembly);
                } else if tx.rmw {
                    self.host_write_page(tx.req, tx.lpn);
                } else {
                    self.sub_done(tx.req);
                }
            }
            (CmdKind::Program, Origin::Host) if tx.copy => {}
            (CmdKind::Program, Origin::Host) => {
                let g = &mut self.metrics.gc;
                g.host_write_ns += (now - tx.queued_at) as u128;
                g.blocked_ns += tx.gc_mark as u128;
                g.blocked_writes += (tx.gc_mark > 0) as u64;
                if self.inflight.get(&tx.lpn) == Some(&t) {
                    self.inflight.remove(&tx.lpn);
                    // Its entry changes (a miss loads it first, then changes it).
                    self.map_access(tx.lpn, true, MapWaiter::Update(tx.lpn));
                }
                if tx.slot != INVALID {
                    self.buf.as_mut().expect("buffered").flush_done(tx.slot);
                    self.admit_waiting();
                }
                if tx.req != INVALID {
                    self.sub_done(tx.req);
                }
            }
            (CmdKind::Read, Origin::Gc) if self.fast => self.merge_read_done(t),
            (CmdKind::Program, Origin::Gc) if tx.dst != INVALID => {
                let u = self.gc_unit(tx.plane);
                self.merges[u].programs -= 1;
                self.merge_check(u);
            }
            (CmdKind::Read, Origin::Gc) if self.groups => self.gc_read_done(t),
            (CmdKind::Read, Origin::Gc) => {
                // Through the controller: the data comes back as a GC program.
                let p = self.new_txn(CmdKind::Program, Origin::Gc, tx.plane, tx.lpn, tx.src);
                let u = self.move_unit(&tx);
                self.gc[u].reading -= 1;
                if tx.home != INVALID {
                    // A placed joined copyback the odd/even rule turned into
                    // a move through the controller: it stays placed.
                    self.txns[p as usize].home = tx.home;
                    self.enqueue(tx.plane, Class::Gc, p);
                } else if self.gc[u].joined {
                    // ParaGC alignment: it waits in the cache to be placed.
                    self.txns[p as usize].home = tx.plane;
                    let die = self.ftl.map.die_of_plane(tx.plane);
                    self.para_pool[die as usize].push(p);
                    self.para_flush(die);
                    self.gc_refill(u);
                } else {
                    self.enqueue(tx.plane, Class::Gc, p);
                }
            }
            // Padding belongs to no GC.
            (CmdKind::Program, Origin::Gc) if tx.lpn == INVALID => {}
            (CmdKind::Program | CmdKind::Copyback, Origin::Gc) if tx.home != INVALID => {
                self.para_placed_done(tx.home, tx.plane)
            }
            (CmdKind::Program, Origin::Gc) | (CmdKind::Copyback, Origin::Gc) => {
                self.gc_progress(self.gc_unit(tx.plane))
            }
            (CmdKind::Erase, _) => {
                let u = self.gc_unit(tx.plane);
                self.ftl.erase(self.ftl.map.gblock_of(tx.src));
                self.metrics.gc.erases += 1;
                if self.fast {
                    self.merges[u].erasing -= 1;
                    if std::mem::take(&mut self.merges[u].wait_unit) {
                        self.merge_next(u);
                    }
                    self.merge_erase(u);
                    self.free_txn(t);
                    return;
                }
                self.gc[u].erases_left = self.gc[u].erases_left.saturating_sub(1);
                if self.gc[u].erases_left == 0 {
                    self.metrics.gc.count += 1;
                    self.metrics.series_gc(now);
                    self.metrics.gc.duration_ns += (now - self.gc[u].start) as u128;
                    self.gc[u].victim = INVALID;
                    let die = self.ftl.map.die_of_plane(tx.plane);
                    self.die_gc_change(die, -1);
                    self.flush_gc_translation();
                    self.maybe_start_gc(tx.plane);
                    if self.join_align {
                        // Fewer joined planes: cached moves may place now.
                        self.para_flush(die);
                    }
                }
            }
            (CmdKind::Copyback, Origin::Host | Origin::Mapping) => {
                unreachable!("only GC copies back")
            }
        }
        self.free_txn(t);
    }

    fn free_txn(&mut self, t: u32) {
        self.free_txns.push(t);
    }

    /// A read of `src` finished: unpin it; if a GC waits to erase its block,
    /// the erase may go now.
    fn read_unpin(&mut self, src: Ppn) {
        if self.ftl.unpin(src) == 0 {
            let gb = self.ftl.map.gblock_of(src);
            let u = self.gc_unit(self.ftl.map.plane_of(src));
            if self.fast {
                if self.gc[u].victim != INVALID {
                    self.merge_erase(u);
                }
                return;
            }
            let v = if self.groups {
                self.ftl.group_of(gb)
            } else {
                gb
            };
            if self.gc[u].victim == v {
                self.try_erase(u);
            }
        }
    }

    // ----- FAST merges -----

    /// Start reclaiming log unit `victim` of GC unit `u`.
    fn merge_start(&mut self, u: usize, victim: u32) -> bool {
        let now = self.engine.now();
        let g = &mut self.gc[u];
        g.victim = victim;
        g.start = now;
        let lbns = self.ftl.fast_lbns(victim);
        let m = &mut self.merges[u];
        *m = MergeJob {
            lbns,
            lbn: INVALID,
            erase_wait: std::mem::take(&mut m.erase_wait),
            ready: std::mem::take(&mut m.ready),
            ..Default::default()
        };
        self.die_gc_change(self.die_of_unit(u), 1);
        self.merge_next(u);
        true
    }

    /// Merge the next logical block with a page in the victim (a switch if
    /// the victim is that block, in order); when none is left, erase.
    fn merge_next(&mut self, u: usize) {
        let victim = self.gc[u].victim;
        loop {
            let m = &mut self.merges[u];
            if m.next == m.lbns.len() {
                if !m.victim_done {
                    m.victim_done = true;
                    m.erase_wait.push(victim);
                }
                return self.merge_erase(u);
            }
            let lbn = m.lbns[m.next];
            m.next += 1;
            if !self.ftl.fast_holds(lbn, victim) {
                continue;
            }
            if self.ftl.fast_switchable(lbn, victim) {
                self.metrics.gc.switch_merges += 1;
                self.merges[u].victim_done = true;
                if let Some(old) = self.ftl.fast_seal(lbn, victim) {
                    self.merges[u].erase_wait.push(old);
                }
                continue;
            }
            let Some(dst) = self.ftl.fast_open_data(u as u32) else {
                let m = &mut self.merges[u];
                if m.erasing > 0 || !m.erase_wait.is_empty() {
                    // The unit an erase under way frees.
                    m.next -= 1;
                    m.wait_unit = true;
                    return;
                }
                self.error.get_or_insert(Error::Invalid(format!(
                    "FAST: GC unit {u} has no free unit to merge logical block {lbn} into (the data, log and free units do not fit)"
                )));
                return;
            };
            self.metrics.gc.full_merges += 1;
            let pages = self.victim_pages() as usize;
            let m = &mut self.merges[u];
            m.lbn = lbn;
            m.dst = dst;
            m.cursor = 0;
            m.release = 0;
            m.ready.clear();
            m.ready.resize(pages, INVALID);
            return self.merge_refill(u);
        }
    }

    /// Read the merging block's pages, offset by offset, up to
    /// `gc.moves_in_flight` per plane at once.
    fn merge_refill(&mut self, u: usize) {
        let n = if self.groups { self.ppd } else { 1 };
        let window = self.cfg.gc.moves_in_flight * n;
        let pages = self.victim_pages();
        while self.merges[u].reading < window && self.merges[u].cursor < pages {
            let (lbn, dst, o) = {
                let m = &mut self.merges[u];
                m.cursor += 1;
                (m.lbn, m.dst, m.cursor - 1)
            };
            let f = self.ftl.fast().expect("FAST");
            let Some(lpn) = f.lpn_of(lbn, o) else {
                continue;
            };
            let Some(src) = self.ftl.lookup(lpn) else {
                continue;
            };
            let to = f.page_at(dst, o);
            let plane = self.ftl.map.plane_of(src);
            let t = self.new_txn(CmdKind::Read, Origin::Gc, plane, lpn, src);
            self.txns[t as usize].dst = to;
            let m = &mut self.merges[u];
            m.ready[o as usize] = READ_PENDING;
            m.reading += 1;
            self.enqueue(plane, Class::Gc, t);
        }
        self.merge_release(u);
    }

    /// A merge read completed: its program waits for its page index.
    fn merge_read_done(&mut self, t: u32) {
        let tx = self.txns[t as usize];
        let plane = self.ftl.map.plane_of(tx.dst);
        let p = self.new_txn(CmdKind::Program, Origin::Gc, plane, tx.lpn, tx.src);
        self.txns[p as usize].dst = tx.dst;
        let u = self.gc_unit(plane);
        let o = self.ftl.fast().expect("FAST").offset_of_page(tx.dst);
        let m = &mut self.merges[u];
        m.ready[o as usize] = p;
        m.reading -= 1;
        self.merge_refill(u);
    }

    /// Queue programs page index by page index, once every read of an index
    /// is done (with Die-Writes, offsets without data are padded so the
    /// die's N pages go as one multi-plane program).
    fn merge_release(&mut self, u: usize) {
        let n = if self.groups { self.ppd } else { 1 };
        let rows = self.ftl.pages_per_block();
        loop {
            let m = &self.merges[u];
            if m.lbn == INVALID || m.release == rows {
                break;
            }
            let (lo, hi) = ((m.release * n) as usize, ((m.release + 1) * n) as usize);
            if (m.cursor as usize) < hi || m.ready[lo..hi].contains(&READ_PENDING) {
                break;
            }
            let any = m.ready[lo..hi].iter().any(|&p| p != INVALID);
            let dst = m.dst;
            self.merges[u].release += 1;
            if !any {
                continue;
            }
            for o in lo..hi {
                let mut p = self.merges[u].ready[o];
                let to = self.ftl.fast().expect("FAST").page_at(dst, o as u32);
                let plane = self.ftl.map.plane_of(to);
                if p == INVALID {
                    if !self.die_write {
                        continue;
                    }
                    p = self.new_txn(CmdKind::Program, Origin::Gc, plane, INVALID, INVALID);
                    self.txns[p as usize].dst = to;
                }
                self.merges[u].programs += 1;
                self.enqueue(plane, Class::Gc, p);
            }
        }
        self.merge_check(u);
    }

    /// The merging block is done once every page index is programmed: its
    /// new data unit replaces the old, which is erased.
    fn merge_check(&mut self, u: usize) {
        let rows = self.ftl.pages_per_block();
        let m = &self.merges[u];
        if m.lbn == INVALID || m.release < rows || m.reading > 0 || m.programs > 0 {
            return;
        }
        let (lbn, dst) = (m.lbn, m.dst);
        self.merges[u].lbn = INVALID;
        if let Some(old) = self.ftl.fast_seal(lbn, dst) {
            self.merges[u].erase_wait.push(old);
            self.merge_erase(u);
        }
        self.merge_next(u);
    }

    /// Erase emptied units no read holds; when the victim is dealt with and
    /// every erase is done, the GC is over.
    fn merge_erase(&mut self, u: usize) {
        let ppb = self.ftl.pages_per_block();
        let mut i = 0;
        while i < self.merges[u].erase_wait.len() {
            let unit = self.merges[u].erase_wait[i];
            let blocks: Vec<u32> = self.ftl.unit_blocks(unit).collect();
            if blocks.iter().any(|&b| self.ftl.pins(b) > 0) {
                i += 1;
                continue;
            }
            self.merges[u].erase_wait.swap_remove(i);
            self.merges[u].erasing += blocks.len() as u32;
            for b in blocks {
                let plane = b / self.ftl.blocks_per_plane();
                let t = self.new_txn(CmdKind::Erase, Origin::Gc, plane, INVALID, b * ppb);
                self.enqueue(plane, Class::Gc, t);
            }
        }
        let m = &self.merges[u];
        if !m.victim_done
            || m.lbn != INVALID
            || m.next < m.lbns.len()
            || !m.erase_wait.is_empty()
            || m.erasing > 0
        {
            return;
        }
        let now = self.engine.now();
        self.metrics.gc.count += 1;
        self.metrics.series_gc(now);
        self.metrics.gc.duration_ns += (now - self.gc[u].start) as u128;
        self.gc[u].victim = INVALID;
        self.merges[u].victim_done = false;
        self.die_gc_change(self.die_of_unit(u), -1);
        self.maybe_start_gc(u as u32 * if self.groups { self.ppd } else { 1 });
    }

    // ----- DFTL -----

    /// Get translation page `tp` for `w`: join a read of it under way, else
    /// read it (a mapping read, queued with host reads); a page never
    /// written holds no entries, and one being programmed is still in the
    /// controller: no read.
    fn map_fetch(&mut self, tp: Lpn, w: MapWaiter) {
        if let Some(list) = self.map_waiters.get_mut(&tp) {
            list.push(w);
            return;
        }
        let ppn = match self.ftl.lookup(tp) {
            Some(p) if !self.inflight.contains_key(&tp) => p,
            _ => return self.map_loaded(tp, &[w]),
        };
        self.ftl.pin(ppn);
        let plane = self.ftl.map.plane_of(ppn);
        let t = self.new_txn(CmdKind::Read, Origin::Mapping, plane, tp, ppn);
        self.map_waiters.insert(tp, vec![w]);
        self.enqueue(plane, Class::Read, t);
    }

    /// Translation page `tp` is in the controller: serve what waited for it.
    fn map_loaded(&mut self, tp: Lpn, waiters: &[MapWaiter]) {
        for &w in waiters {
            match w {
                MapWaiter::Read { req, lpn, rmw } => {
                    self.cmt_insert(lpn, false);
                    self.host_read_flash(req, lpn, rmw);
                }
                MapWaiter::Update(lpn) => self.cmt_insert(lpn, true),
                MapWaiter::WriteBack => self.map_program(tp),
            }
        }
    }

    /// Load an entry into the cached mapping table; a dirty entry it pushes
    /// out has its translation page written back.
    fn cmt_insert(&mut self, lpn: Lpn, dirty: bool) {
        let c = self.cmt.as_mut().expect("DFTL");
        if let Some(tp) = c.insert(lpn, dirty) {
            self.map_fetch(tp, MapWaiter::WriteBack);
        }
    }

    /// The host reads (`dirty` false) or changes the entry of `lpn`: true if
    /// it may go on now (no DFTL, or the entry is cached); on a miss `w`
    /// waits for the entry's translation page.
    fn map_access(&mut self, lpn: Lpn, dirty: bool, w: MapWaiter) -> bool {
        let Some(c) = self.cmt.as_mut() else {
            return true;
        };
        if c.access(lpn, dirty) {
            self.metrics.mapping.cache_hits += 1;
            return true;
        }
        self.metrics.mapping.cache_misses += 1;
        let tp = c.translation_page(lpn);
        self.map_fetch(tp, w);
        false
    }

    /// GC moved `lpn`: a cached entry changes in DRAM; otherwise its
    /// translation page is written back when the GC finishes (one write per
    /// translation page however many of its pages the GC moved). Moving a
    /// translation page changes only the directory, which is in DRAM.
    fn map_moved(&mut self, lpn: Lpn) {
        if let Some(c) = self.cmt.as_mut() {
            if !c.is_translation(lpn) && !c.mark_dirty(lpn) {
                self.gc_translation.push(c.translation_page(lpn));
            }
        }
    }

    fn flush_gc_translation(&mut self) {
        if self.gc_translation.is_empty() {
            return;
        }
        let mut pages = std::mem::take(&mut self.gc_translation);
        pages.sort_unstable();
        pages.dedup();
        for &tp in &pages {
            self.metrics.mapping.gc_translation_updates += 1;
            self.map_fetch(tp, MapWaiter::WriteBack);
        }
        pages.clear();
        self.gc_translation = pages;
    }

    /// Program translation page `tp` (its new version): like a host page,
    /// to the hot stream if there is one; with Die-Writes, completed with
    /// the die's least recently used dirty buffer pages, then padding. A
    /// write-back of a page whose previous write-back is still queued joins
    /// it (the queued program takes the newest content when it goes).
    fn map_program(&mut self, tp: Lpn) {
        if let Some(&t) = self.inflight.get(&tp) {
            if self.txns[t as usize].src == INVALID {
                self.metrics.mapping.writes_coalesced += 1;
                return;
            }
        }
        let version = self.next_version(tp);
        let t = self.new_txn(CmdKind::Program, Origin::Mapping, INVALID, tp, INVALID);
        self.txns[t as usize].version = version;
        self.txns[t as usize].hot = true;
        self.inflight.insert(tp, t);
        if self.die_write {
            let die = self.ftl.static_die(tp);
            let mut txns = vec![t];
            txns.extend(self.evict_from_die(die, self.ppd as usize - 1));
            while !txns.len().is_multiple_of(self.ppd as usize) {
                txns.push(self.pad_txn());
            }
            self.enqueue_die_writes(die, &txns, Class::Write);
        } else {
            let queues = &self.queues;
            let plane = self
                .ftl
                .choose_plane(tp, Writer::Host { hot: true }, |d| queues.die_load(d));
            self.ftl.assign(plane);
            self.txns[t as usize].plane = plane;
            self.enqueue(plane, Class::Write, t);
        }
    }
}

fn new_txn_in(
    txns: &mut Vec<Txn>,
    free: &mut Vec<u32>,
    kind: CmdKind,
    origin: Origin,
    plane: u32,
    lpn: Lpn,
    src: Ppn,
) -> u32 {
    let tx = Txn {
        kind,
        origin,
        plane,
        lpn,
        src,
        dst: INVALID,
        home: INVALID,
        req: INVALID,
        slot: INVALID,
        version: 0,
        rmw: false,
        hot: false,
        copy: false,
        assembly: INVALID,
        queued_at: 0,
        gc_mark: 0,
        seq: 0,
    };
    match free.pop() {
        Some(i) => {
            txns[i as usize] = tx;
            i
        }
        None => {
            txns.push(tx);
            (txns.len() - 1) as u32
        }
    }
}
