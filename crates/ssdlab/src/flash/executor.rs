//! The executor: dies and channels as resources, a command's timing, and its
//! events.
//!
//! Events refer to dies, not to transactions: `ReadArrayDone` and `DieDone`
//! carry a die, `TransferDone` a die and a member's position in its command
//! (`die × 16 + i`); the die's record lists its command's transactions.
//!
//! **Multi-register planes** (`flash.plane_registers` = k, the parallel-GC
//! paper's chip): each plane's free registers are counted (`registers`); a
//! command takes one per page on that page's plane and gives them back when
//! it ends (asserted). The command builder (`fill_registers`) lets up to k
//! copybacks of each member plane's GC queue join a copyback command (only
//! the planes' first pages are paired under the multi-plane rule). A plane
//! reads for as long as its longest read and programs for as long as its
//! longest program, so a command of k copybacks on one plane takes tR +
//! tPROG (`validate::parallel_gc_checks` checks it exactly).
//!
//! **Suspension** (`flash.suspension`, `suspend.rs`): while a program or an
//! erase is suspended, the die's record holds the read commands it serves
//! and the operation's record waits in the suspension state; a `DieDone`
//! carries the die's epoch, which a suspension advances, so the operation's
//! first completion, made stale, is dropped.

use crate::addr::{DieId, PlaneId, Ppn, INVALID};
use crate::attribution::Part;
use crate::config::Config;
use crate::config::WriteCompletion;
use crate::engine::{EventKind, Time};
use crate::error::Error;
use crate::flash::{CmdKind, Origin};
use crate::flash::{FlashTiming, PlaneRules};
use crate::sim::Simulator;
use crate::types::Gang;
use crate::types::ReqId;
use crate::types::{TxnId, MAX_PLANES_PER_DIE};

/// The executor's state: timing and plane rules of the drive, each die's
/// command, and when each channel is free next.
pub(crate) struct Executor {
    pub(crate) timing: FlashTiming,
    pub(crate) rules: PlaneRules,
    pub(crate) dies: Vec<Die>,
    pub(crate) channel_free: Vec<Time>,
    /// Free page registers per plane (`flash.plane_registers` of them). A
    /// command takes one for each of its pages on that page's plane and
    /// gives them back when it ends: with one per plane, a plane runs one
    /// page operation at a time; with k, up to k copybacks at once.
    pub(crate) registers: Vec<u8>,
    /// `flash.plane_registers`.
    pub(crate) registers_per_plane: u32,
    /// Per die: registers its command holds until it ends, per plane of the
    /// die, 4 bits per plane (at most 8 registers per plane; its transactions
    /// may finish, and their slots be reused, before it ends). Apart from
    /// `Die`, which every event copies.
    held: Vec<u64>,
    pub(crate) ppd: u32,
    /// Program and erase suspension's state (`flash.suspension`), or None.
    pub(crate) susp: Option<Box<super::suspend::Suspensions>>,
    /// Cache program's and cache read's state (`flash.cache_program`,
    /// `flash.cache_read`), or None.
    pub(crate) cache: Option<Box<super::cache::Caches>>,
}

impl Executor {
    pub(crate) fn new(cfg: &Config) -> Executor {
        Executor {
            timing: FlashTiming::new(cfg),
            rules: PlaneRules::new(cfg),
            dies: vec![
                Die {
                    busy: false,
                    n: 0,
                    finished: 0,
                    txns: [TxnId::NONE; MAX_PLANES_PER_DIE],
                };
                cfg.total_dies() as usize
            ],
            channel_free: vec![0; cfg.geometry.channels as usize],
            registers: vec![cfg.flash.plane_registers as u8; cfg.total_planes() as usize],
            registers_per_plane: cfg.flash.plane_registers,
            held: vec![0; cfg.total_dies() as usize],
            ppd: cfg.geometry.planes_per_die,
            susp: super::suspend::Suspensions::new(cfg),
            cache: super::cache::Caches::new(cfg),
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) struct Die {
    pub(crate) busy: bool,
    pub(crate) n: u8,
    /// Transactions of the command already finished (reads finish one by
    /// one as their data leaves).
    pub(crate) finished: u8,
    pub(crate) txns: [TxnId; MAX_PLANES_PER_DIE],
}

impl Executor {
    /// A command on `die` takes a register on the plane of each of its pages.
    fn take_registers(&mut self, die: DieId, planes: impl Iterator<Item = PlaneId>) {
        let first = die.first_plane(self.ppd);
        let mut held = 0u64;
        for p in planes {
            let r = &mut self.registers[p.index()];
            assert!(*r > 0, "plane {p} has no free register");
            *r -= 1;
            held += 1 << (4 * (p.0 - first.0));
        }
        self.held[die.index()] = held;
    }

    /// The command on `die` ended: its registers are free again.
    fn release_registers(&mut self, die: DieId) {
        let first = die.first_plane(self.ppd).index();
        let mut held = std::mem::take(&mut self.held[die.index()]);
        while held != 0 {
            let i = held.trailing_zeros() / 4;
            self.registers[first + i as usize] += ((held >> (4 * i)) & 0xf) as u8;
            held &= !(0xf << (4 * i));
        }
    }
}

impl Simulator {
    /// Consistency checker: the pages a multi-plane program (or copyback)
    /// wrote must be aligned as the multi-plane rule says (the command was
    /// built from where the pages would go; this checks they went there).
    /// Only the first page of each plane counts: further pages of a plane
    /// went through its other registers (multi-register planes).
    #[inline]
    pub(crate) fn check_multiplane(&mut self, kind: CmdKind, dsts: &[Ppn], now: Time) {
        if self.cfg.check.enabled && dsts.len() >= 2 {
            self.check_multiplane_now(kind, dsts, now);
        }
    }

    #[cold]
    #[inline(never)]
    fn check_multiplane_now(&mut self, kind: CmdKind, dsts: &[Ppn], now: Time) {
        let m = &self.ftl.map;
        let (b0, p0) = (m.block_of(dsts[0]), m.page_of(dsts[0]));
        let first_of_plane = |i: usize| {
            !dsts[..i]
                .iter()
                .any(|&e| m.plane_of(e) == m.plane_of(dsts[i]))
        };
        if let Some(&bad) = (1..dsts.len())
            .filter(|&i| first_of_plane(i))
            .map(|i| &dsts[i])
            .find(|&&d| {
                !self
                    .flash
                    .rules
                    .aligned(b0, p0, m.block_of(d), m.page_of(d))
            })
        {
            self.error.get_or_insert(Error::Consistency(format!(
                "a {}-plane {kind:?} at {now} ns wrote unaligned pages: block {b0} page {p0} and block {} page {}",
                dsts.len(),
                m.block_of(bad),
                m.page_of(bad)
            )));
        }
    }

    pub(crate) fn channel_of_die(&self, die: DieId) -> usize {
        let m = &self.ftl.map;
        m.channel_of_chip(m.chip_of_die(die)) as usize
    }

    /// Run a command of `members` on `die`; a Die-Write gives the stream
    /// and place of all its pages. `CACHED`: the command goes into the
    /// die's cache registers (`flash/cache.rs`): a program while the die's
    /// array programs, a read while the die's last read leaves.
    pub(crate) fn execute_as<const CACHED: bool>(
        &mut self,
        die: DieId,
        kind: CmdKind,
        members: &[TxnId],
        gang: Option<Gang>,
    ) {
        // (A separate instance for cached commands, so that the common one
        // is as it was.)
        let cached = CACHED;
        let now = self.engine.now();
        let n = members.len();
        let origin = self.txns[members[0]].origin;
        // A read a suspension serves starts after the suspend latency (the
        // first of the suspension) and takes no plane register (the
        // suspended operation keeps its own).
        let (at, suspended) = match &mut self.flash.susp {
            Some(s) => s.reading(die, now),
            None => (now, false),
        };
        // A cached command waits in the cache (it takes the die's record,
        // and its plane registers, when the die's command ends).
        if cached {
            assert!(
                self.flash.dies[die.index()].busy,
                "die {die} given a cached command while idle"
            );
        } else {
            let d = &mut self.flash.dies[die.index()];
            assert!(!d.busy, "die {die} given a command while busy");
            d.busy = true;
            if !suspended {
                self.flash
                    .take_registers(die, members.iter().map(|&t| self.txns[t].plane));
            }
            let d = &mut self.flash.dies[die.index()];
            d.finished = 0;
            d.n = n as u8;
            d.txns[..n].copy_from_slice(members);
        }
        if let Some(a) = &mut self.attr {
            let clock = a.clock(die.index(), now);
            for &t in members {
                if self.txns[t].origin == Origin::Host {
                    a.dispatched(t, clock, now, at - now);
                }
            }
            if !cached {
                a.die_busy(die.index(), origin == Origin::Gc, now);
            }
        }
        if suspended {
            if let Some(m) = &mut self.metrics.suspension {
                m.read_pages += n as u64;
            }
        }
        if !cached {
            self.metrics.planes_busy(now, n as i32);
        }
        self.metrics.cmds.add(kind, origin, n);
        if self.dftl.cmt.is_some() {
            for &t in members {
                if self.txns[t].origin == Origin::Mapping {
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
        let t0 = if self.flash.timing.cmd_ns > 0 {
            let ch = self.channel_of_die(die);
            let start = at.max(self.flash.channel_free[ch]);
            self.flash.channel_free[ch] = start + self.flash.timing.cmd_ns;
            if let Some(a) = &mut self.attr {
                for &t in members {
                    if self.txns[t].origin == Origin::Host {
                        a.channel_then_transfer(t, start - at, self.flash.timing.cmd_ns);
                    }
                }
            }
            start + self.flash.timing.cmd_ns
        } else {
            at
        };
        let gc = origin == Origin::Gc;
        match kind {
            CmdKind::Read => {
                let array = members
                    .iter()
                    .map(|&t| {
                        self.flash
                            .timing
                            .read_time(self.ftl.map.page_of(self.txns[t].src))
                    })
                    .max()
                    .unwrap_or(0);
                if gc {
                    self.metrics.gc.read_ns += array as u128 * n as u128;
                }
                if cached {
                    let behind = self.behind_running(die);
                    let c = self.flash.cache.as_mut().expect("cache read's state");
                    c.read_cached(die, super::cache::record(members), behind);
                    if let Some(m) = &mut self.metrics.cache {
                        m.read_pages += n as u64;
                    }
                }
                self.engine
                    .schedule(t0 + array, EventKind::ReadArrayDone, die.0);
            }
            CmdKind::Program => {
                let mut array = 0;
                let mut moves = 0u64;
                let mut dsts = [INVALID; MAX_PLANES_PER_DIE];
                for (i, &t) in members.iter().enumerate() {
                    let (ppn, moved) = self.commit_program(die, t, n, gang, now);
                    moves += moved as u64;
                    dsts[i] = ppn;
                    let page = self.ftl.map.page_of(ppn);
                    array = array.max(self.flash.timing.program_time(page));
                }
                self.check_multiplane(kind, &dsts[..n], now);
                if gang.is_some() && self.cfg.check.enabled {
                    if let Err(e) = self.ftl.die_alignment(die) {
                        self.error.get_or_insert(Error::Consistency(format!(
                            "after a Die-Write at {now} ns: {e}"
                        )));
                    }
                }
                let ch = self.channel_of_die(die);
                let start = t0.max(self.flash.channel_free[ch]);
                let xfer = self.flash.timing.xfer_ns;
                let xfer_end = start + n as Time * xfer;
                self.flash.channel_free[ch] = xfer_end;
                if let Some(a) = &mut self.attr {
                    // The rest (transfer, then array) when it ends.
                    for &t in members {
                        if self.txns[t].origin == Origin::Host {
                            a.phase(t, Part::Channel, start - t0);
                        }
                    }
                }
                self.metrics.gc.transfer_ns += xfer as u128 * moves as u128;
                self.metrics.gc.write_ns += array as u128 * moves as u128;
                if self.cfg.host.write_completion == WriteCompletion::Transfer {
                    for (i, &t) in members.iter().enumerate() {
                        if self.txns[t].req != ReqId::NONE {
                            let at = start + (i as Time + 1) * xfer;
                            if cached {
                                // (Named by the transaction: the command
                                // is not the die's yet.)
                                self.engine
                                    .schedule_tagged(at, EventKind::TransferDone, t.0, 1);
                            } else {
                                self.engine.schedule(
                                    at,
                                    EventKind::TransferDone,
                                    die.0 * MAX_PLANES_PER_DIE as u32 + i as u32,
                                );
                            }
                        }
                    }
                }
                if cached {
                    let behind = self.behind_running(die);
                    let c = self.flash.cache.as_mut().expect("cache program's state");
                    let from = c.program_cached(
                        die,
                        super::cache::record(members),
                        xfer_end,
                        array,
                        behind,
                    );
                    if let Some(m) = &mut self.metrics.cache {
                        m.program_pages += n as u64;
                    }
                    self.engine.schedule(from, EventKind::CacheFree, die.0);
                    self.die_done_at(from + array, die);
                    return;
                }
                if let Some(c) = &mut self.flash.cache {
                    if c.program_started(die, xfer_end, xfer_end + array) {
                        self.engine.schedule(xfer_end, EventKind::CacheFree, die.0);
                    }
                }
                self.suspendable(die, origin, false, xfer_end, xfer_end + array);
                self.die_done_at(xfer_end + array, die);
            }
            CmdKind::Erase => {
                if gc {
                    self.metrics.gc.erase_ns += self.flash.timing.erase_ns as u128 * n as u128;
                }
                let end = t0 + self.flash.timing.erase_ns;
                self.suspendable(die, origin, true, t0, end);
                self.die_done_at(end, die);
            }
            CmdKind::Copyback => {
                // Aligned sources are read in one multi-plane read; joined
                // GCs' unaligned ones one after another (into each plane's
                // register), then one multi-plane program.
                let (one_read, tr_planes) = if self.flash.registers_per_plane == 1 {
                    self.metrics.gc.pairs_per_worker[0] += n as u64;
                    let m = &self.ftl.map;
                    let s0 = self.txns[members[0]].src;
                    let one_read = members[1..].iter().all(|&t| {
                        let s = self.txns[t].src;
                        self.flash.rules.aligned(
                            m.block_of(s0),
                            m.page_of(s0),
                            m.block_of(s),
                            m.page_of(s),
                        )
                    });
                    (one_read, None)
                } else {
                    let (one_read, tr_planes) = self.register_reads(die, members);
                    (one_read, Some(tr_planes))
                };
                let (mut tr, mut tr_sum, mut tp) = (0, 0, 0);
                let mut dsts = [INVALID; MAX_PLANES_PER_DIE];
                for (i, &t) in members.iter().enumerate() {
                    let r = self
                        .flash
                        .timing
                        .read_time(self.ftl.map.page_of(self.txns[t].src));
                    tr = tr.max(r);
                    tr_sum += r;
                    let src = self.txns[t].src;
                    let dst = self.commit_copyback(t, now);
                    dsts[i] = dst;
                    let m = &self.ftl.map;
                    if self.cfg.check.enabled
                        && self.cfg.flash.copyback_odd_even
                        && m.page_of(src) % 2 != m.page_of(dst) % 2
                    {
                        self.error.get_or_insert(Error::Consistency(format!(
                            "a copyback at {now} ns broke the odd/even rule: page {} to page {}",
                            m.page_of(src),
                            m.page_of(dst)
                        )));
                    }
                    tp = tp.max(self.flash.timing.program_time(self.ftl.map.page_of(dst)));
                }
                self.check_multiplane(kind, &dsts[..n], now);
                let read = if one_read {
                    tr
                } else {
                    tr_planes.unwrap_or(tr_sum)
                };
                self.metrics.gc.read_ns += if one_read {
                    tr as u128 * n as u128
                } else {
                    tr_sum as u128
                };
                self.metrics.gc.write_ns += tp as u128 * n as u128;
                // (A copyback may be suspended in its program phase.)
                self.suspendable(die, origin, false, t0 + read, t0 + read + tp);
                self.die_done_at(t0 + read + tp, die);
            }
        }
    }

    /// A copyback command on multi-register planes: whether its planes'
    /// first pages make one multi-plane read, and the read time when they do
    /// not (the planes one after another, each for as long as its longest
    /// read: a plane's pages go through its registers at once). Counts each
    /// copyback for its worker (the i-th copyback of its plane).
    fn register_reads(&mut self, die: DieId, members: &[TxnId]) -> (bool, Time) {
        let m = &self.ftl.map;
        let first = die.first_plane(self.ppd);
        let s0 = self.txns[members[0]].src;
        let mut plane_read = [0 as Time; MAX_PLANES_PER_DIE];
        let mut taken = [0u8; MAX_PLANES_PER_DIE];
        let (mut one_read, mut seen) = (true, 0u32);
        for &t in members {
            let s = self.txns[t].src;
            let i = (self.txns[t].plane.0 - first.0) as usize;
            if seen & (1 << i) == 0 {
                seen |= 1 << i;
                one_read &= self.flash.rules.aligned(
                    m.block_of(s0),
                    m.page_of(s0),
                    m.block_of(s),
                    m.page_of(s),
                );
            }
            plane_read[i] = plane_read[i].max(self.flash.timing.read_time(m.page_of(s)));
            self.metrics.gc.pairs_per_worker[taken[i] as usize] += 1;
            taken[i] += 1;
        }
        (one_read, plane_read[..self.ppd as usize].iter().sum())
    }

    pub(crate) fn on_read_array_done(&mut self, die: DieId) {
        let now = self.engine.now();
        if let Some(c) = &mut self.flash.cache {
            if c.read {
                // A cached read's array phase ended while the die's last
                // read still leaves: it waits for the cache registers.
                let d = &mut c.dies[die.index()];
                if d.next.n > 0 && !d.next_program {
                    d.next_end = now;
                    return;
                }
                return self.read_out(die, now, None);
            }
        }
        self.read_out(die, now, None)
    }

    /// The die's read command's array phase ended at `array_end` (now,
    /// or, for a cached read whose wait for the cache registers ends now,
    /// earlier: it waited behind the command before it, as `behind` says):
    /// its data leaves over the channel. Under cache read the die's next
    /// read, if the policy runs one next, starts first.
    #[inline(always)]
    fn read_out(&mut self, die: DieId, array_end: Time, behind: Option<Part>) {
        let now = self.engine.now();
        if self.flash.cache.as_ref().is_some_and(|c| c.read) {
            self.dispatch_cached_read(die);
        }
        let d = self.flash.dies[die.index()];
        let n = d.n as usize;
        let ch = self.channel_of_die(die);
        let xfer = self.flash.timing.xfer_ns;
        // The pages leave one after another; each read finishes when its
        // own data is out, the die when the last is.
        let start = now.max(self.flash.channel_free[ch]);
        if let Some(a) = &mut self.attr {
            for (i, &t) in d.txns[..n].iter().enumerate() {
                if self.txns[t].origin != Origin::Host {
                    continue;
                }
                // (A cached read waited for the cache registers behind
                // the read before it, from its array's end to now.)
                if let Some(p) = behind {
                    a.phase(t, Part::Array, array_end - a.mark(t));
                    a.phase(t, p, now - array_end);
                }
                a.read_out(t, now, start - now, (i as Time + 1) * xfer);
            }
        }
        for i in 0..n - 1 {
            let at = start + (i as Time + 1) * xfer;
            self.engine.schedule(
                at,
                EventKind::TransferDone,
                die.0 * MAX_PLANES_PER_DIE as u32 + i as u32,
            );
        }
        let end = start + n as Time * xfer;
        self.flash.channel_free[ch] = end;
        if self.txns[d.txns[0]].origin == Origin::Gc {
            self.metrics.gc.transfer_ns += xfer as u128 * n as u128;
        }
        self.die_done_at(end, die);
    }

    /// The command on `die` ends at `at`: its `DieDone`, with the die's
    /// epoch under suspension.
    #[inline]
    pub(crate) fn die_done_at(&mut self, at: Time, die: DieId) {
        match &self.flash.susp {
            None => self.engine.schedule(at, EventKind::DieDone, die.0),
            Some(s) => {
                self.engine
                    .schedule_tagged(at, EventKind::DieDone, die.0, s.epoch[die.index()])
            }
        }
    }

    pub(crate) fn on_transfer_done(&mut self, arg: u32, tag: u32) {
        // (Tag 1: a cached program's page, named by its transaction.)
        if tag == 1 {
            return self.write_acknowledged(TxnId(arg));
        }
        let (die, i) = (
            DieId(arg / MAX_PLANES_PER_DIE as u32),
            (arg % MAX_PLANES_PER_DIE as u32) as usize,
        );
        let d = self.flash.dies[die.index()];
        let t = d.txns[i];
        match self.txns[t].kind {
            CmdKind::Read => {
                assert_eq!(d.finished as usize, i, "reads finish in transfer order");
                self.flash.dies[die.index()].finished += 1;
                self.finish_txn(t);
            }
            _ => self.write_acknowledged(t),
        }
    }

    /// Transfer-mode write completion: the host sees the write of `t` done.
    fn write_acknowledged(&mut self, t: TxnId) {
        let req = std::mem::replace(&mut self.txns[t].req, ReqId::NONE);
        if let Some(a) = &mut self.attr {
            let mut parts = a.parts(t);
            parts[Part::Transfer as usize] += self.engine.now() - a.mark(t);
            a.set_page(parts);
        }
        self.sub_done(req);
    }

    pub(crate) fn on_die_done(&mut self, die: DieId, epoch: u32) {
        let mut suspended = 0;
        if let Some(s) = &mut self.flash.susp {
            match s.done(die, epoch) {
                super::suspend::Done::Stale => return,
                super::suspend::Done::Read => return self.suspended_read_done(die),
                super::suspend::Done::Command(t) => suspended = t,
            }
        }
        let now = self.engine.now();
        let d = self.flash.dies[die.index()];
        let members = &d.txns[d.finished as usize..d.n as usize];
        // SPD's plane utilisation: sampled when a buffer eviction completes,
        // while its planes still count as busy.
        if members.iter().any(|&t| self.txns[t].slot != INVALID) {
            self.metrics.sample_at_eviction();
        }
        assert!(d.busy, "a die finished a command it was not running");
        self.metrics.planes_busy(now, -(d.n as i32));
        self.flash.dies[die.index()].busy = false;
        self.flash.release_registers(die);
        // Cache program and read: the running program's array phase (a
        // cached one may have waited for it behind the command before
        // it), and the command in the cache, which runs now.
        let (mut waited, mut next) = (None, None);
        if let Some(c) = &mut self.flash.cache {
            let cd = &c.dies[die.index()];
            waited = Some((cd.from, cd.behind));
            next = c.advance(die).map(|r| (r, c.dies[die.index()].end));
        }
        if let Some((r, _)) = next {
            let n = r.n as usize;
            self.flash.dies[die.index()] = r;
            self.flash
                .take_registers(die, r.txns[..n].iter().map(|&t| self.txns[t].plane));
            self.metrics.planes_busy(now, n as i32);
        }
        if let Some(a) = &mut self.attr {
            match next {
                Some((r, _)) => {
                    a.die_busy(die.index(), self.txns[r.txns[0]].origin == Origin::Gc, now)
                }
                None => a.die_idle(die.index(), now),
            }
            // (Its first unfinished transaction: a read's earlier ones
            // finished as their data left, and their slots may be reused.)
            if self.txns[members[0]].kind == CmdKind::Program {
                // A program's data went over the channel, then the array
                // programmed it.
                let xfer = d.n as Time * self.flash.timing.xfer_ns;
                // (Suspended meanwhile: that long.)
                for &t in members
                    .iter()
                    .filter(|&&t| self.txns[t].origin == Origin::Host)
                {
                    match waited {
                        // (Cache program: from its transfer's end to its
                        // array phase, behind the program before it.)
                        Some((from, behind)) => {
                            a.program_waited(t, now, xfer, from, behind, suspended)
                        }
                        None => a.program_done(t, now, xfer, suspended),
                    }
                }
            }
        }
        // A cached read whose array phase has ended: its data leaves now.
        if let Some((r, end)) = next {
            if self.txns[r.txns[0]].kind == CmdKind::Read && end != super::cache::NEVER {
                let behind =
                    self.flash.cache.as_ref().expect("cache state").dies[die.index()].behind;
                self.read_out(die, end, Some(behind));
            }
        }
        for &t in members {
            self.finish_txn(t);
        }
        self.kick(die);
    }
}

/// What multi-register planes (`flash.plane_registers` > 1) require: they
/// run a plane's GC copybacks at once, so the GC must move pages by
/// copyback within their plane (per-plane GC, or a die's GC of aligned
/// block groups in rows of copybacks; page or DFTL mapping, or DVPFTL's,
/// whose merges move the pages that stay on their plane by in-place
/// copyback).
pub(crate) fn requirements(c: &Config) -> crate::config::Requirement {
    use crate::config::Migration;
    if c.flash.plane_registers <= 1 {
        return Ok(());
    }
    let why = if c.gc.migration != Migration::Copyback {
        "gc.migration = \"copyback\" (controller-path moves do not use the planes' extra registers)"
    } else if c.ftl.mapping == crate::config::Mapping::Fast {
        "page, DFTL or DVPFTL's (\"vfc\") mapping (FAST's merges program pages at their offsets through the controller, not by copyback)"
    } else {
        return Ok(());
    };
    Err((
        "flash.plane_registers",
        format!("more than one register set per plane runs concurrent GC copybacks: needs {why}"),
    ))
}
