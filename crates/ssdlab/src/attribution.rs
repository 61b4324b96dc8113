//! Latency attribution (`metrics.attribution`): every host request's latency
//! split into parts that sum to it exactly.
//!
//! A request completes when its last page does, so its parts are that
//! page's. A page's time from the request's arrival is followed stage by
//! stage, each stage adding the time since the last one to the part that
//! describes it, so the parts telescope to the latency by construction:
//!
//! - **buffer**: waiting for a write-buffer slot (a buffered write completes
//!   when it is admitted);
//! - **mapping**: waiting for DFTL's translation reads before a page can be
//!   read;
//! - while a transaction is queued for its die, what the die was doing:
//!   **behind_host** (running other host or mapping commands),
//!   **behind_gc** (running a GC command, or idle while one of its planes is
//!   collecting: GC holds the host's writes in that plane), **held** (idle
//!   with no GC under way: the scheduler held the transaction — a Die-Write
//!   or super page still filling, no page it may take yet, no free plane
//!   register, a request waiting for its partner); time a program spends
//!   before it is queued (a write unit gathering its pages) is held too;
//! - once dispatched: **channel** (waiting for the channel while other dies
//!   use it), **transfer** (its command's command cycles and data transfer,
//!   the pages of its multi-plane command before its own included), and
//!   **array** (the array's read or program time, the longest of a
//!   multi-plane command's);
//! - **suspended** (`flash.suspension`): a read's suspend latency (the
//!   program or erase it suspends stopping; the time until that operation
//!   reached the point where it stops is its wait behind it), and the time a
//!   program spent suspended (suspend latency, the reads served, resume
//!   latency). A transaction queued while a die serves reads in a
//!   suspension waits behind host work; once the operation resumes, behind
//!   it. The part is reported only when suspension is on.
//!
//! - **host** (several flows, or the host interface on): the time a flow's
//!   request waited in the host for its queue and the device's fetch, the
//!   interface's command stage before its pages started (the command and a
//!   write's data over the link, firmware, map-entry DRAM accesses) and its
//!   completion stage after its last page (DRAM, a read's data, the
//!   completion and the interrupt over the link). The pages' own parts run
//!   from when its pages started. The part is reported only with flows or
//!   the interface.
//!
//! A command counts as GC work when its first transaction is GC's. A buffer
//! slot's wait has a second reading, its **causes**: the wait of a write
//! admitted when a flush completed is split in the proportions of that
//! flush's own parts (how the program it waited for spent its time).
//!
//! This module holds the vocabulary and the per-die and per-transaction
//! bookkeeping; the layers feed it (`sched` at enqueue, the executor at
//! dispatch and as a command's phases end, the host and the buffer as a page
//! completes), and `metrics` sums it per latency band.

use crate::addr::Lpn;
use crate::engine::Time;
use crate::types::{ReqId, TxnId};
use rustc_hash::FxHashMap;

/// The number of parts.
pub const PARTS: usize = 10;

/// A part of a request's latency (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Buffer,
    Mapping,
    Held,
    BehindHost,
    BehindGc,
    Channel,
    Transfer,
    Array,
    Suspended,
    Host,
}

impl Part {
    /// Every part, in the order of outputs.
    pub const ALL: [Part; PARTS] = [
        Part::Buffer,
        Part::Mapping,
        Part::Held,
        Part::BehindHost,
        Part::BehindGc,
        Part::Channel,
        Part::Transfer,
        Part::Array,
        Part::Suspended,
        Part::Host,
    ];

    /// The parts outputs show: `suspended` only with program or erase
    /// suspension on, `host` only with flows or the host interface (each
    /// always zero otherwise); the others always.
    pub fn shown(suspension: bool, host: bool) -> Vec<Part> {
        Part::ALL
            .into_iter()
            .filter(|&p| match p {
                Part::Suspended => suspension,
                Part::Host => host,
                _ => true,
            })
            .collect()
    }

    /// Its name in JSON keys and CSV columns.
    pub fn name(self) -> &'static str {
        match self {
            Part::Buffer => "buffer",
            Part::Mapping => "mapping",
            Part::Held => "held",
            Part::BehindHost => "behind_host",
            Part::BehindGc => "behind_gc",
            Part::Channel => "channel",
            Part::Transfer => "transfer",
            Part::Array => "array",
            Part::Suspended => "suspended",
            Part::Host => "host",
        }
    }

    /// Its name in sentences ("71 % waiting behind GC").
    pub fn words(self) -> &'static str {
        match self {
            Part::Buffer => "waiting for a buffer slot",
            Part::Mapping => "waiting for mapping reads",
            Part::Held => "held by the scheduler",
            Part::BehindHost => "waiting behind other host work",
            Part::BehindGc => "waiting behind GC",
            Part::Channel => "waiting for the channel",
            Part::Transfer => "transfer",
            Part::Array => "array time",
            Part::Suspended => "suspension (suspend latency, time suspended)",
            Part::Host => "in the host and its interface (queue wait, command and completion)",
        }
    }
}

/// Nanoseconds per part.
pub type Parts = [Time; PARTS];

/// A part's share of a buffer wait, per part (f64: proportions of a flush's
/// time).
pub type Causes = [f64; PARTS];

/// What a die did over time, integrated: how long it ran host work, ran
/// GC work or sat idle while GC was under way on it, and sat idle otherwise
/// (the three parts a queued transaction's wait is split into).
#[derive(Clone, Copy)]
pub(crate) struct DieClock {
    /// 0 idle, 1 running host work, 2 running GC work.
    busy: u8,
    gc_active: bool,
    /// Where time goes now (`QUEUE_PARTS`' index), from the two above.
    slot: u8,
    since: Time,
    acc: [Time; 3],
}

/// The parts a queued transaction's wait goes to, in `DieClock`'s order.
const QUEUE_PARTS: [Part; 3] = [Part::BehindHost, Part::BehindGc, Part::Held];

impl DieClock {
    /// A die idle from time 0, no GC under way.
    const IDLE: DieClock = DieClock {
        busy: 0,
        gc_active: false,
        slot: 2,
        since: 0,
        acc: [0; 3],
    };

    fn slot(busy: u8, gc_active: bool) -> u8 {
        match (busy, gc_active) {
            (1, _) => 0,
            (2, _) | (0, true) => 1,
            _ => 2,
        }
    }

    /// The accumulated times up to `now`.
    fn at(&self, now: Time) -> [Time; 3] {
        let mut a = self.acc;
        a[self.slot as usize] += now - self.since;
        a
    }

    /// Account the time up to `now`, then change state.
    fn settle(&mut self, now: Time, busy: u8, gc_active: bool) {
        self.acc[self.slot as usize] += now - self.since;
        self.since = now;
        self.busy = busy;
        self.gc_active = gc_active;
        self.slot = DieClock::slot(busy, gc_active);
    }
}

/// One transaction's parts so far, accounted up to `mark` (which may lie
/// ahead of the clock: a command's phases are known when it starts), and
/// its die's clock when it was queued.
#[derive(Clone, Copy, Default)]
pub(crate) struct TxnParts {
    pub(crate) parts: Parts,
    pub(crate) mark: Time,
    queued: Option<[Time; 3]>,
}

/// The bookkeeping of attribution, present when it is on.
pub(crate) struct Attribution {
    dies: Vec<DieClock>,
    txns: Vec<TxnParts>,
    /// The parts of the page about to complete: set by whoever completes a
    /// page, taken by the request's completion.
    pub(crate) page: Parts,
    /// The page's wait for a buffer slot (0: none). Its causes are worked
    /// out from it and `blame` only for a request's last page, the one
    /// whose parts are the request's, as the page completes.
    page_wait: Time,
    /// While a flush's completion admits waiting writes: that flush's parts.
    pub(crate) blame: Option<Parts>,
    /// Parts a page carries from an earlier stage into a later one (a
    /// read-modify-write's read, into its write).
    carry: FxHashMap<(ReqId, Lpn), Parts>,
    /// Requests in the interface's completion stage: their last page's
    /// parts and buffer causes, and when that page completed.
    finishing: FxHashMap<ReqId, (Parts, Option<Causes>, Time)>,
}

impl Attribution {
    pub(crate) fn new(dies: usize) -> Attribution {
        Attribution {
            dies: vec![DieClock::IDLE; dies],
            txns: Vec::new(),
            page: [0; PARTS],
            page_wait: 0,
            blame: None,
            carry: FxHashMap::default(),
            finishing: FxHashMap::default(),
        }
    }

    /// Transaction `t` was created at `now` (its slot starts afresh).
    pub(crate) fn created(&mut self, t: TxnId, now: Time) {
        let i = t.index();
        if i >= self.txns.len() {
            self.txns.resize(i + 1, TxnParts::default());
        }
        self.txns[i] = TxnParts {
            mark: now,
            ..TxnParts::default()
        };
    }

    /// Add `ns` to part `p` of transaction `t`, without moving its mark:
    /// time the page spent before the transaction existed.
    pub(crate) fn add(&mut self, t: TxnId, p: Part, ns: Time) {
        self.txns[t.index()].parts[p as usize] += ns;
    }

    /// Give transaction `t` the parts a page carried to it.
    pub(crate) fn start_from(&mut self, t: TxnId, parts: Parts) {
        self.txns[t.index()].parts = parts;
    }

    /// Transaction `t` was queued at `now` on `die`: the time since its
    /// creation was held; its wait is measured from here.
    pub(crate) fn queued(&mut self, t: TxnId, die: usize, now: Time) {
        let clock = self.dies[die].at(now);
        let e = &mut self.txns[t.index()];
        e.parts[Part::Held as usize] += now.saturating_sub(e.mark);
        e.mark = e.mark.max(now);
        e.queued = Some(clock);
    }

    /// Die `die`'s clock at `now` (what `dispatched` takes: one reading
    /// for all of a command's transactions).
    pub(crate) fn clock(&self, die: usize, now: Time) -> [Time; 3] {
        self.dies[die].at(now)
    }

    /// Transaction `t` was dispatched at `now` on a die whose clock then
    /// read `clock`: its wait split by what the die did meanwhile. Then it
    /// spends `suspend_ns` in `suspended` (a read's suspend latency; 0
    /// otherwise).
    pub(crate) fn dispatched(&mut self, t: TxnId, clock: [Time; 3], now: Time, suspend_ns: Time) {
        let e = &mut self.txns[t.index()];
        match e.queued.take() {
            Some(q) => {
                for k in 0..3 {
                    e.parts[QUEUE_PARTS[k] as usize] += clock[k] - q[k];
                }
            }
            // (Never queued: held until now.)
            None => e.parts[Part::Held as usize] += now.saturating_sub(e.mark),
        }
        e.parts[Part::Suspended as usize] += suspend_ns;
        e.mark = e.mark.max(now) + suspend_ns;
    }

    /// Transaction `t` spends `ns` in part `p` from its mark on.
    pub(crate) fn phase(&mut self, t: TxnId, p: Part, ns: Time) {
        let e = &mut self.txns[t.index()];
        e.parts[p as usize] += ns;
        e.mark += ns;
    }

    /// Transaction `t` waits `wait` for the channel, then spends `ns` in
    /// transfer (a command's cycles): both phases at once.
    pub(crate) fn channel_then_transfer(&mut self, t: TxnId, wait: Time, ns: Time) {
        let e = &mut self.txns[t.index()];
        e.parts[Part::Channel as usize] += wait;
        e.parts[Part::Transfer as usize] += ns;
        e.mark += wait + ns;
    }

    /// A read's data register was read by `now`: the time since its mark
    /// was array time; then it waits `wait` for the channel and its data
    /// (after the pages of its command before it) takes `out` to leave.
    pub(crate) fn read_out(&mut self, t: TxnId, now: Time, wait: Time, out: Time) {
        let e = &mut self.txns[t.index()];
        e.parts[Part::Array as usize] += now - e.mark;
        e.parts[Part::Channel as usize] += wait;
        e.parts[Part::Transfer as usize] += out;
        e.mark = now + wait + out;
    }

    /// A program's command ended at `now`: since its mark, its data took
    /// `xfer` over the channel (or all the time there was), then the array
    /// programmed it, `suspended` of that time suspended.
    pub(crate) fn program_done(&mut self, t: TxnId, now: Time, xfer: Time, suspended: Time) {
        let e = &mut self.txns[t.index()];
        let rest = now - e.mark;
        let array = rest.saturating_sub(xfer);
        let held = suspended.min(array);
        e.parts[Part::Transfer as usize] += xfer.min(rest);
        e.parts[Part::Suspended as usize] += held;
        e.parts[Part::Array as usize] += array - held;
        e.mark = now;
    }

    /// A program's command ended at `now` under cache program: as
    /// [`program_done`](Self::program_done), but its array phase started
    /// at `from`, and from its transfer's end to then it waited in the
    /// cache register, in part `behind` (the program before it).
    pub(crate) fn program_waited(
        &mut self,
        t: TxnId,
        now: Time,
        xfer: Time,
        from: Time,
        behind: Part,
        suspended: Time,
    ) {
        let e = &mut self.txns[t.index()];
        let rest = now - e.mark;
        let array = rest.saturating_sub(xfer);
        let wait = from.saturating_sub(e.mark + xfer.min(rest)).min(array);
        let held = suspended.min(array - wait);
        e.parts[Part::Transfer as usize] += xfer.min(rest);
        e.parts[behind as usize] += wait;
        e.parts[Part::Suspended as usize] += held;
        e.parts[Part::Array as usize] += array - wait - held;
        e.mark = now;
    }

    /// Transaction `t`'s mark.
    pub(crate) fn mark(&self, t: TxnId) -> Time {
        self.txns[t.index()].mark
    }

    /// Transaction `t`'s parts.
    pub(crate) fn parts(&self, t: TxnId) -> Parts {
        self.txns[t.index()].parts
    }

    /// Die `die` started a command at `now` (GC work or not).
    pub(crate) fn die_busy(&mut self, die: usize, gc: bool, now: Time) {
        let d = &mut self.dies[die];
        d.settle(now, if gc { 2 } else { 1 }, d.gc_active);
    }

    /// Die `die` finished its command at `now`.
    pub(crate) fn die_idle(&mut self, die: usize, now: Time) {
        let d = &mut self.dies[die];
        d.settle(now, 0, d.gc_active);
    }

    /// Whether a GC is under way on die `die` changed at `now`.
    pub(crate) fn die_gc(&mut self, die: usize, active: bool, now: Time) {
        let d = &mut self.dies[die];
        d.settle(now, d.busy, active);
    }

    /// The page about to complete has these parts (no buffer causes).
    pub(crate) fn set_page(&mut self, parts: Parts) {
        self.page = parts;
        self.page_wait = 0;
    }

    /// The buffer causes of the page about to complete (None: it waited
    /// for no buffer slot): its wait split in the proportions of the
    /// admitting flush's parts, or all of it `buffer` when no flush
    /// admitted it.
    pub(crate) fn page_causes(&self) -> Option<Causes> {
        let wait = self.page_wait;
        if wait == 0 {
            return None;
        }
        let mut causes = [0.0; PARTS];
        if let Some(flush) = &self.blame {
            let total: Time = flush.iter().sum();
            if total > 0 {
                for (c, &f) in causes.iter_mut().zip(flush) {
                    *c = wait as f64 * f as f64 / total as f64;
                }
                return Some(causes);
            }
        }
        causes[Part::Buffer as usize] = wait as f64;
        Some(causes)
    }

    /// The last page of `req` completed at `now` (its parts in `page`); the
    /// request completes after the interface's completion stage.
    pub(crate) fn finishing(&mut self, req: ReqId, now: Time) {
        let causes = self.page_causes();
        self.finishing.insert(req, (self.page, causes, now));
    }

    /// Request `req` completes at `now`, having arrived at `arrival` and
    /// started its pages at `started`: its parts (its last page's, with
    /// the time before its pages started and after its last page completed
    /// in `host`) and buffer causes.
    pub(crate) fn request(
        &mut self,
        req: ReqId,
        arrival: Time,
        started: Time,
        now: Time,
    ) -> (Parts, Option<Causes>) {
        let (mut parts, causes, done) = match self.finishing.remove(&req) {
            Some(f) => f,
            None => (self.page, self.page_causes(), now),
        };
        parts[Part::Host as usize] += (started - arrival) + (now - done);
        (parts, causes)
    }

    /// Requests in the interface's completion stage (the checker's).
    pub(crate) fn finishing_count(&self) -> usize {
        self.finishing.len()
    }

    /// A page carries `parts` from a stage that ended into the next.
    pub(crate) fn carry(&mut self, req: ReqId, lpn: Lpn, parts: Parts) {
        self.carry.insert((req, lpn), parts);
    }

    /// What page `lpn` of `req` carries (nothing for most pages).
    #[inline]
    pub(crate) fn carried(&mut self, req: ReqId, lpn: Lpn) -> Parts {
        if self.carry.is_empty() {
            return [0; PARTS];
        }
        self.carry.remove(&(req, lpn)).unwrap_or([0; PARTS])
    }

    /// A buffered write of `req`'s page `lpn` completes at `now`, having
    /// arrived at `arrival`: what it carried, and the rest of its time as a
    /// buffer wait, whose causes are the admitting flush's parts.
    pub(crate) fn buffer_page(&mut self, req: ReqId, lpn: Lpn, arrival: Time, now: Time) {
        let (mut parts, before) = if self.carry.is_empty() {
            ([0; PARTS], 0)
        } else {
            let parts = self.carried(req, lpn);
            (parts, parts.iter().sum())
        };
        let wait = (now - arrival).saturating_sub(before);
        parts[Part::Buffer as usize] += wait;
        self.page = parts;
        self.page_wait = wait;
    }
}

/// Parts' total.
pub fn total(parts: &Parts) -> Time {
    parts.iter().sum()
}
