//! What dispatching a program or copyback does to the FTL: the page is
//! allocated now (so pages of a block are programmed in order and a
//! multi-plane command writes exactly the aligned pages it was built from),
//! the maps change, the page is counted, and the plane may need GC.

use crate::addr::{DieId, Ppn, INVALID};
use crate::engine::Time;
use crate::flash::Origin;
use crate::sched::txn::Data;
use crate::sim::Simulator;
use crate::types::TxnId;
use crate::types::Writer;

impl Simulator {
    /// Program member `t` of a command of `n` planes on `die` is dispatched:
    /// write its page (a Die-Write's pages all go to the stream
    /// `gang_writer`, so that the die's write points stay aligned). Returns
    /// the page written and whether it was a GC move.
    pub(crate) fn commit_program(
        &mut self,
        die: DieId,
        t: TxnId,
        n: usize,
        gang_writer: Option<Writer>,
        now: Time,
    ) -> (Ppn, bool) {
        let tx = self.txns[t];
        let w = gang_writer.unwrap_or_else(|| self.writer(t));
        let mut moved = false;
        let ppn = if tx.dst != INVALID && tx.origin == Origin::Host {
            // A host page of a sequential log (DVPFTL), at its offset.
            self.ftl.assigned_written(tx.plane);
            self.metrics.host_program_pages[0] += 1;
            self.metrics.host_program_pages[1] += (n > 1) as u64;
            self.txns[t].gc_mark = self.gc.clock(die, now) - tx.gc_mark;
            let current = self.inflight.get(&tx.lpn) == Some(&t);
            let lpn = if current { tx.lpn } else { INVALID };
            Some(self.ftl.fast_write_at(tx.dst, lpn, tx.version))
        } else if tx.dst != INVALID {
            // A fixed destination (a FAST merge's page at its offset).
            if self.ftl.fast_program(tx.src, tx.lpn, tx.dst) {
                self.metrics.gc.pages_migrated += 1;
                moved = true;
            } else {
                self.metrics.wasted_pages += 1;
            }
            Some(tx.dst)
        } else if matches!(tx.data, Data::Move | Data::Pad) {
            if tx.src != INVALID && self.ftl.owner(tx.src) == Some(tx.lpn) {
                self.metrics.gc.pages_migrated += 1;
                self.metrics.gc.hot_moves += (w == Writer::Gc { hot: true }) as u64;
                moved = true;
                self.map_moved(tx.lpn);
                let place = self.place(t);
                self.ftl.relocate_placed(tx.src, tx.plane, w, now, place)
            } else {
                // Padding, or a move in a Die-Write whose page the host
                // rewrote after it was read.
                self.metrics.wasted_pages += 1;
                if tx.origin == Origin::Host {
                    // A two-plane allocator's dummy page (assigned).
                    self.ftl.assigned_written(tx.plane);
                }
                self.ftl.write(tx.plane, INVALID, 0, w, now)
            }
        } else if tx.data == Data::Copy {
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
                self.txns[t].gc_mark = self.gc.clock(die, now) - tx.gc_mark;
                self.metrics.host_program_pages[0] += 1;
                if matches!(gang_writer, Some(Writer::Gc { .. })) {
                    self.combined_programmed(die);
                }
                self.metrics.host_program_pages[1] += (n > 1) as u64;
                if matches!(w, Writer::Host { hot: true } | Writer::Gc { hot: true }) {
                    self.metrics.hot_pages += 1;
                }
            }
            let place = self.place(t);
            self.ftl
                .write_placed(tx.plane, lpn, tx.version, w, now, place)
        }
        .expect("ready() checked that the plane has a free page");
        self.txns[t].src = ppn;
        let page = self.ftl.map.page_of(ppn);
        self.metrics.programmed_types[tx.origin as usize]
            [self.flash.timing.page_type[page as usize] as usize] += 1;
        self.count_placement(t, page);
        self.gc_trigger(tx.plane);
        (ppn, moved)
    }

    /// Copyback member `t` is dispatched: its page moves within the plane.
    /// Returns the destination.
    pub(crate) fn commit_copyback(&mut self, t: TxnId, now: Time) -> Ppn {
        let tx = self.txns[t];
        if tx.dst != INVALID {
            return self.commit_fixed_copyback(t);
        }
        let w = self.writer(t);
        let place = self.place(t);
        let dst = if place == crate::ftl::Place::Next {
            self.ftl.relocate_copyback(tx.src, tx.plane, w, now)
        } else {
            self.ftl.relocate_placed(tx.src, tx.plane, w, now, place)
        }
        .expect("ready() checked that the plane has a free page");
        self.metrics.gc.pages_migrated += 1;
        self.metrics.gc.hot_moves += (w == Writer::Gc { hot: true }) as u64;
        self.map_moved(tx.lpn);
        let page = self.ftl.map.page_of(dst);
        self.metrics.programmed_types[Origin::Gc as usize]
            [self.flash.timing.page_type[page as usize] as usize] += 1;
        self.count_placement(t, page);
        self.gc_trigger(tx.plane);
        dst
    }

    /// A copyback to a fixed destination (a DVPFTL merge's in-place
    /// copyback to the page of its offset): moved if its source still
    /// holds the page, else programmed stale.
    fn commit_fixed_copyback(&mut self, t: TxnId) -> Ppn {
        let tx = self.txns[t];
        if self.ftl.fast_program(tx.src, tx.lpn, tx.dst) {
            self.metrics.gc.pages_migrated += 1;
        } else {
            self.metrics.wasted_pages += 1;
        }
        let page = self.ftl.map.page_of(tx.dst);
        self.metrics.programmed_types[Origin::Gc as usize]
            [self.flash.timing.page_type[page as usize] as usize] += 1;
        self.count_placement(t, page);
        self.gc_trigger(tx.plane);
        tx.dst
    }

    /// Under a page-type scheme: did `t` get a page of the type it wanted
    /// (PA-SSD's allocation success, Fig. 15)? Counted per wanted type,
    /// host and GC writes apart.
    #[inline]
    fn count_placement(&mut self, t: TxnId, page: u32) {
        if self.ftl.free_lane_pages().is_some() || self.typed_places() {
            self.count_typed_placement(t, page);
        }
    }

    /// [`count_placement`](Self::count_placement) under relaxed program
    /// order or a page-type scheme.
    #[inline(never)]
    fn count_typed_placement(&mut self, t: TxnId, page: u32) {
        if let Some(free) = self.ftl.free_lane_pages() {
            self.metrics.sample_free_lsb(self.engine.now(), free[0]);
        }
        if let crate::ftl::Place::Lane(want) = self.place(t) {
            let got = self.ftl.lane_of(page) == Some(want);
            let a = &mut self.metrics.placement[self.txns[t].origin as usize];
            a.0[want] += 1;
            a.1[want] += got as u64;
        }
    }
}
