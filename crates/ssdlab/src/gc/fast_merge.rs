//! FAST merges: reclaiming a log unit by merging its logical blocks.
//!
//! Under a hybrid map (`ftl.mapping = "fast"` or `"vfc"`) the forward map
//! still says where every page is (FAST's block map plus its log page map,
//! flattened), so reads, the buffer and the checker need nothing new; what
//! changes is where pages may be and how space comes back. Host writes keep
//! the ordinary path (the domain's active block is the log), a GC unit is
//! the map's domain (`Domains`), `Ftl::needs_gc` and `pick_victim` ask FAST
//! (the oldest closed log), and this reclaimer merges the victim. A merge is
//! ordinary transactions (`Owner::Gc`, kept even when stale: `Txn::keep`)
//! with fixed destinations (`Txn::dst`, a `Dest::Fixed`): reads queued like
//! GC reads, programs released page index by page index so a group's pages
//! reach their planes' GC queues together (one Die-Write under SPD), erases
//! waiting on pins as GC erases do. Under DVPFTL's map a page that stays on
//! its plane moves by copyback to its fixed place, and a VFC's merge keeps
//! all its dies busy and kicks them.

use crate::addr::{BlockId, PlaneId, INVALID};
use crate::config::Config;
use crate::error::Error;
use crate::flash::CmdKind;
use crate::gc::paragc::ParaGc;
use crate::gc::Reclaimer;
use crate::sched::txn::Txn;
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::TxnId;

/// FAST: the merges reclaiming one log unit (the GC unit's victim). Logical
/// blocks with a valid page in it are merged one at a time: their pages
/// are read wherever they are, then programmed at their offsets in a new
/// data unit, page index by page index (a group's N planes as one
/// Die-Write, padded where an offset has no data); emptied units are
/// erased once no read holds them.
#[derive(Default)]
pub(crate) struct MergeJob {
    pub(crate) lbns: Vec<u32>,
    pub(crate) next: usize,
    /// Logical block being merged (INVALID: none), and its new data unit.
    pub(crate) lbn: u32,
    pub(crate) dst: u32,
    /// Next offset to look at; reads and programs under way.
    pub(crate) cursor: u32,
    pub(crate) reading: u32,
    pub(crate) programs: u32,
    /// Per offset: nothing to copy (INVALID), read pending, or its program.
    pub(crate) ready: Vec<TxnId>,
    /// Next page index whose programs are to be queued.
    pub(crate) release: u32,
    /// Units to erase once unpinned, and erases under way.
    pub(crate) erase_wait: Vec<u32>,
    pub(crate) erasing: u32,
    /// The victim is dealt with (queued for erase, or switched to data).
    pub(crate) victim_done: bool,
    /// The next merge waits for an erase to free a unit.
    pub(crate) wait_unit: bool,
}

pub(crate) const READ_PENDING: TxnId = TxnId(INVALID - 1);

/// The FAST-merge reclaimer's state: a merge job per GC unit.
pub(crate) struct Merges {
    jobs: Vec<MergeJob>,
    /// Merges of sibling domains below this many free pages start together
    /// (ParaGC's joining; 0: off).
    join_pages: u64,
}

impl Merges {
    pub(crate) fn new(cfg: &Config) -> Merges {
        Merges {
            jobs: (0..cfg.total_planes())
                .map(|_| MergeJob::default())
                .collect(),
            join_pages: ParaGc::join_pages(cfg),
        }
    }
}

impl Simulator {
    fn merges(&mut self) -> &mut Vec<MergeJob> {
        match &mut self.gc.reclaimer {
            Reclaimer::Merge(m) => &mut m.jobs,
            _ => unreachable!("FAST's reclaimer"),
        }
    }

    fn merges_ref(&self) -> &Merges {
        match &self.gc.reclaimer {
            Reclaimer::Merge(m) => m,
            _ => unreachable!("FAST's reclaimer"),
        }
    }

    /// A merge's transaction: it goes to (or comes from a read for) the
    /// data unit page `dst`, and is programmed even if its page went stale.
    fn merge_txn(
        &mut self,
        u: usize,
        kind: CmdKind,
        plane: PlaneId,
        lpn: u32,
        src: u32,
        dst: u32,
    ) -> TxnId {
        let t = self.gc_txn(u, kind, plane, lpn, src);
        self.txns[t].dst = dst;
        self.txns[t].keep = true;
        t
    }

    /// The unit of `plane` needs space: merge its oldest log unit (with
    /// ParaGC's joining, sibling domains low on space merge too).
    pub(crate) fn merge_trigger(&mut self, plane: PlaneId) {
        let join_pages = self.merges_ref().join_pages;
        if join_pages == 0 {
            self.merge_begin(plane);
            return;
        }
        let (joiners, _) = self.joiners(plane, join_pages);
        if !self.merge_begin(plane) {
            return;
        }
        for q in joiners {
            if self.merge_begin(q) {
                self.metrics.gc.joined += 1;
            }
        }
    }

    /// Start merging the oldest log unit of `plane`'s domain, if one is due.
    fn merge_begin(&mut self, plane: PlaneId) -> bool {
        let u = self.gc.unit(plane);
        let now = self.engine.now();
        let Some(victim) = self.ftl.pick_victim(plane, now, &mut self.rng) else {
            return false;
        };
        self.merge_start(u, victim);
        true
    }

    /// A merge program completed.
    pub(crate) fn merge_program_done(&mut self, tx: Txn) {
        let u = tx.unit as usize;
        self.merges()[u].programs -= 1;
        self.merge_check(u);
    }

    /// An erase of an emptied unit's block completed.
    pub(crate) fn merge_erase_done(&mut self, tx: Txn) {
        let u = tx.unit as usize;
        self.erase_block(self.ftl.map.gblock_of(tx.src), self.engine.now());
        self.merges()[u].erasing -= 1;
        if std::mem::take(&mut self.merges()[u].wait_unit) {
            self.merge_next(u);
        }
        self.merge_erase(u);
    }

    /// Start reclaiming log unit `victim` of GC unit `u`.
    fn merge_start(&mut self, u: usize, victim: u32) {
        let now = self.engine.now();
        let g = &mut self.gc.jobs[u];
        g.victim = victim;
        g.start = now;
        let lbns = self.ftl.fast_lbns(victim);
        let m = &mut self.merges()[u];
        *m = MergeJob {
            lbns,
            lbn: INVALID,
            erase_wait: std::mem::take(&mut m.erase_wait),
            ready: std::mem::take(&mut m.ready),
            ..Default::default()
        };
        // The victim left the log list: host writes any die of the domain
        // held back for want of a log may go (a VFC's merge may not touch
        // their die).
        for d in self.gc.domains.dies(u) {
            self.gc_clock_change(d, 1, now);
            self.kick(d);
        }
        self.merge_next(u);
    }

    /// Merge the next logical block with a page in the victim (a switch if
    /// the victim is that block, in order); when none is left, erase.
    pub(crate) fn merge_next(&mut self, u: usize) {
        let victim = self.gc.jobs[u].victim;
        loop {
            let m = &mut self.merges()[u];
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
                self.merges()[u].victim_done = true;
                if let Some(old) = self.ftl.fast_seal(lbn, victim) {
                    self.merges()[u].erase_wait.push(old);
                }
                continue;
            }
            let Some(dst) = self.ftl.fast_open_data(u as u32, lbn) else {
                let m = &mut self.merges()[u];
                if m.erasing > 0 || !m.erase_wait.is_empty() {
                    // The unit an erase under way frees.
                    m.next -= 1;
                    m.wait_unit = true;
                    return self.merge_drain(u);
                }
                self.error.get_or_insert(Error::Invalid(format!(
                    "FAST: GC unit {u} has no free unit to merge logical block {lbn} into (the data, log and free units do not fit)"
                )));
                return;
            };
            self.metrics.gc.full_merges += 1;
            let pages = self.ftl.fast().expect("FAST").unit_pages as usize;
            let m = &mut self.merges()[u];
            m.lbn = lbn;
            m.dst = dst;
            m.cursor = 0;
            m.release = 0;
            m.ready.clear();
            m.ready.resize(pages, TxnId::NONE);
            // A merge under way holds its dies again.
            self.gc.set_draining(u, false);
            return self.merge_refill(u);
        }
    }

    /// Read the merging block's pages, offset by offset, up to
    /// `gc.moves_in_flight` per plane (per chip of a VFC) at once; moves by
    /// in-place copyback need no read and wait only for their page index.
    pub(crate) fn merge_refill(&mut self, u: usize) {
        let f = self.ftl.fast().expect("FAST");
        let window = self.gc.window * f.offsets_per_row();
        let pages = f.unit_pages;
        while self.merges()[u].reading < window && self.merges()[u].cursor < pages {
            let (lbn, dst, o) = {
                let m = &mut self.merges()[u];
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
            if self.in_place(f.in_place_copyback(), src, to) {
                // DVPFTL: the page stays in its plane, moved by copyback;
                // it waits only for its page index's turn.
                let t = self.merge_txn(u, CmdKind::Copyback, plane, lpn, src, to);
                self.merges()[u].ready[o as usize] = t;
                self.metrics.gc.in_place_copybacks += 1;
                continue;
            }
            let t = self.merge_txn(u, CmdKind::Read, plane, lpn, src, to);
            let m = &mut self.merges()[u];
            m.ready[o as usize] = READ_PENDING;
            m.reading += 1;
            self.enqueue(plane, Class::Gc, t);
        }
        self.merge_release(u);
    }

    /// May a merge move `src` to `to` by copyback? Where the layout keeps
    /// a logical block's offsets on their chip (`in_place`), both pages are
    /// on one plane, GC moves by copyback, and the odd/even rule (if any)
    /// allows it.
    fn in_place(&self, in_place: bool, src: u32, to: u32) -> bool {
        let m = &self.ftl.map;
        in_place
            && self.gc.move_kind == CmdKind::Copyback
            && m.plane_of(src) == m.plane_of(to)
            && (!self.gc.odd_even || m.page_of(src) % 2 == m.page_of(to) % 2)
    }

    /// A merge read completed: its program waits for its page index.
    pub(crate) fn merge_read_done(&mut self, t: TxnId) {
        let tx = self.txns[t];
        let plane = self.ftl.map.plane_of(tx.dst);
        let u = tx.unit as usize;
        let p = self.merge_txn(u, CmdKind::Program, plane, tx.lpn, tx.src, tx.dst);
        let o = self.ftl.fast().expect("FAST").offset_of_page(tx.dst);
        let m = &mut self.merges()[u];
        m.ready[o as usize] = p;
        assert!(m.reading > 0, "a merge read done with none under way");
        m.reading -= 1;
        self.merge_refill(u);
    }

    /// Queue programs page index by page index, once every read of an index
    /// is done (with Die-Writes, offsets without data are padded so the
    /// die's N pages go as one multi-plane program).
    pub(crate) fn merge_release(&mut self, u: usize) {
        let n = self.ftl.fast().expect("FAST").offsets_per_row();
        let rows = self.ftl.pages_per_block();
        loop {
            let m = &self.merges_ref().jobs[u];
            if m.lbn == INVALID || m.release == rows {
                break;
            }
            let (lo, hi) = ((m.release * n) as usize, ((m.release + 1) * n) as usize);
            if (m.cursor as usize) < hi || m.ready[lo..hi].contains(&READ_PENDING) {
                break;
            }
            let any = m.ready[lo..hi].iter().any(|&p| p != TxnId::NONE);
            let dst = m.dst;
            self.merges()[u].release += 1;
            if !any {
                continue;
            }
            for o in lo..hi {
                let mut p = self.merges()[u].ready[o];
                let to = self.ftl.fast().expect("FAST").page_at(dst, o as u32);
                let plane = self.ftl.map.plane_of(to);
                if p == TxnId::NONE {
                    // Die-Writes: a page index of a group's planes goes as one
                    // command, padded where an offset has no data.
                    if !self.unit.gangs() {
                        continue;
                    }
                    p = self.merge_txn(u, CmdKind::Program, plane, INVALID, INVALID, to);
                }
                self.merges()[u].programs += 1;
                self.enqueue(plane, Class::Gc, p);
            }
        }
        self.merge_check(u);
    }

    /// The merging block is done once every page index is programmed: its
    /// new data unit replaces the old, which is erased.
    pub(crate) fn merge_check(&mut self, u: usize) {
        let rows = self.ftl.pages_per_block();
        let m = &self.merges_ref().jobs[u];
        if m.lbn == INVALID || m.release < rows || m.reading > 0 || m.programs > 0 {
            return;
        }
        let (lbn, dst) = (m.lbn, m.dst);
        self.merges()[u].lbn = INVALID;
        if let Some(old) = self.ftl.fast_seal(lbn, dst) {
            self.merges()[u].erase_wait.push(old);
            self.merge_erase(u);
        }
        self.merge_next(u);
    }

    /// Unit `u`'s merge, for stall reports.
    pub(crate) fn merge_detail(&self, u: usize) -> String {
        let Reclaimer::Merge(m) = &self.gc.reclaimer else {
            return String::new();
        };
        let m = &m.jobs[u];
        format!(
            "; its merge: logical block {} ({} of {} done), reads {}, programs {}, page index {}, units to erase {} ({} erasing){}",
            m.lbn as i64,
            m.next,
            m.lbns.len(),
            m.reading,
            m.programs,
            m.release,
            m.erase_wait.len(),
            m.erasing,
            if m.wait_unit { ", waiting for a free unit" } else { "" }
        )
    }

    /// Nothing of unit `u`'s merge under way but erases of units host reads
    /// still hold: a held die (`gc.hold_die`) lets its host commands
    /// through, or the reads and the merge would wait for each other.
    fn merge_drain(&mut self, u: usize) {
        let m = &self.merges_ref().jobs[u];
        let only_pins = !m.erase_wait.is_empty()
            && m.erasing == 0
            && m.reading == 0
            && m.programs == 0
            && m.lbn == INVALID;
        if self.gc.active(u) && self.gc.jobs[u].draining != only_pins {
            self.gc.set_draining(u, only_pins);
            if only_pins {
                // Their host reads may go now, on every die of the domain.
                for d in self.gc.domains.dies(u) {
                    self.kick(d);
                }
            }
        }
    }

    /// Erase emptied units no read holds; when the victim is dealt with and
    /// every erase is done, the GC is over.
    pub(crate) fn merge_erase(&mut self, u: usize) {
        let ppb = self.ftl.pages_per_block();
        let mut i = 0;
        while i < self.merges()[u].erase_wait.len() {
            let unit = self.merges()[u].erase_wait[i];
            let blocks: Vec<BlockId> = self.ftl.unit_blocks(unit).collect();
            if blocks.iter().any(|&b| self.ftl.pins(b) > 0) {
                i += 1;
                continue;
            }
            self.ftl.fast_dissolve(unit);
            self.merges()[u].erase_wait.swap_remove(i);
            self.merges()[u].erasing += blocks.len() as u32;
            for b in blocks {
                let plane = b.plane(self.ftl.blocks_per_plane());
                let t = self.gc_txn(u, CmdKind::Erase, plane, INVALID, b.first_page(ppb));
                self.enqueue(plane, Class::Gc, t);
            }
        }
        self.merge_drain(u);
        let m = &self.merges_ref().jobs[u];
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
        self.metrics.gc.duration_ns += (now - self.gc.jobs[u].start) as u128;
        self.gc.jobs[u].victim = INVALID;
        self.merges()[u].victim_done = false;
        // Blocks were freed: host writes held back on any die of the domain
        // may go, and the domain may need another merge.
        for d in self.gc.domains.dies(u) {
            self.gc_clock_change(d, -1, now);
            self.kick(d);
        }
        for p in self.gc.domains.trigger_planes(u) {
            self.gc_trigger(p);
        }
    }
}
