//! What dispatching a program or copyback does to the FTL: the page is
//! allocated now (so pages of a block are programmed in order and a
//! multi-plane command writes exactly the aligned pages it was built from),
//! at the destination the builder judged (`dest.rs`), the maps change, the
//! page is counted, and the plane may need GC.

use crate::addr::{DieId, Ppn, INVALID};
use crate::engine::Time;
use crate::flash::Origin;
use crate::sched::txn::Data;
use crate::sim::Simulator;
use crate::types::{Dest, Gang, Place, TxnId, Writer};

impl Simulator {
    /// Program member `t` of a command of `n` planes on `die` is dispatched:
    /// write its page where [`dest`](Self::dest) says (a Die-Write's pages
    /// all go to `gang`'s stream and place, so that the die's write points
    /// stay aligned). Returns the page written and whether it was a GC move.
    #[inline(always)]
    pub(crate) fn commit_program(
        &mut self,
        die: DieId,
        t: TxnId,
        n: usize,
        gang: Option<Gang>,
        now: Time,
    ) -> (Ppn, bool) {
        let tx = self.txns[t];
        let dest = self.dest(t, gang);
        let mut moved = false;
        let ppn = match dest {
            Dest::Fixed(dst) if tx.origin == Origin::Host => {
                // A host page of a sequential log (DVPFTL), at its offset.
                self.ftl.assigned_written(tx.plane);
                self.metrics.host_program_pages[0] += 1;
                self.metrics.host_program_pages[1] += (n > 1) as u64;
                self.txns[t].gc_mark = self.gc.clock(die, now) - tx.gc_mark;
                let current = self.inflight.get(&tx.lpn) == Some(&t);
                let lpn = if current { tx.lpn } else { INVALID };
                Some(self.ftl.fast_write_at(dst, lpn, tx.version))
            }
            Dest::Fixed(dst) => {
                // A FAST merge's page at its offset.
                if self.ftl.fast_program(tx.src, tx.lpn, dst) {
                    self.metrics.gc.pages_migrated += 1;
                    moved = true;
                } else {
                    self.metrics.wasted_pages += 1;
                }
                Some(dst)
            }
            Dest::Stream(w, place) => match tx.data {
                Data::Move | Data::Pad => {
                    if tx.src != INVALID && self.ftl.owner(tx.src) == Some(tx.lpn) {
                        self.metrics.gc.pages_migrated += 1;
                        self.metrics.gc.hot_moves += (w == Writer::Gc { hot: true }) as u64;
                        moved = true;
                        self.map_moved(tx.lpn);
                        self.ftl.relocate_placed(tx.src, tx.plane, w, now, place)
                    } else {
                        // Padding, or a move in a Die-Write whose page the
                        // host rewrote after it was read.
                        self.metrics.wasted_pages += 1;
                        if tx.origin == Origin::Host {
                            // A two-plane allocator's dummy page (assigned).
                            self.ftl.assigned_written(tx.plane);
                        }
                        // (At its place: a Die-Write's page type.)
                        self.ftl.write_placed(tx.plane, INVALID, 0, w, now, place)
                    }
                }
                Data::Copy => {
                    self.ftl.assigned_written(tx.plane);
                    if self.ftl.owner(tx.src) == Some(tx.lpn) {
                        self.metrics.copied_pages += 1;
                        self.ftl.relocate_as(tx.src, tx.plane, w, now)
                    } else {
                        // Rewritten or moved since it was read.
                        self.metrics.wasted_pages += 1;
                        self.ftl.write(tx.plane, INVALID, 0, w, now)
                    }
                }
                Data::New => {
                    // A host page, or a DFTL translation page.
                    self.ftl.assigned_written(tx.plane);
                    let current = self.inflight.get(&tx.lpn) == Some(&t);
                    let lpn = if current { tx.lpn } else { INVALID };
                    if tx.origin == Origin::Host {
                        // GC time of this die the write waited through.
                        self.txns[t].gc_mark = self.gc.clock(die, now) - tx.gc_mark;
                        self.metrics.host_program_pages[0] += 1;
                        if matches!(
                            gang,
                            Some(Gang {
                                writer: Writer::Gc { .. },
                                ..
                            })
                        ) {
                            self.combined_programmed(die);
                        }
                        self.metrics.host_program_pages[1] += (n > 1) as u64;
                        if matches!(w, Writer::Host { hot: true } | Writer::Gc { hot: true }) {
                            self.metrics.hot_pages += 1;
                        }
                    }
                    self.ftl
                        .write_placed(tx.plane, lpn, tx.version, w, now, place)
                }
            },
        }
        .expect("ready() checked that the plane has a free page");
        self.txns[t].src = ppn;
        let page = self.ftl.map.page_of(ppn);
        self.metrics.programmed_types[tx.origin as usize]
            [self.flash.timing.page_type[page as usize] as usize] += 1;
        self.count_placement(t, dest, page);
        self.gc_trigger(tx.plane);
        (ppn, moved)
    }

    /// Copyback member `t` is dispatched: its page moves within the plane,
    /// to where [`dest`](Self::dest) says. Returns the destination.
    pub(crate) fn commit_copyback(&mut self, t: TxnId, now: Time) -> Ppn {
        let tx = self.txns[t];
        let dest = self.dest(t, None);
        let dst = match dest {
            Dest::Fixed(dst) => {
                // A DVPFTL merge's in-place copyback to the page of its
                // offset: moved if its source still holds the page, else
                // programmed stale.
                if self.ftl.fast_program(tx.src, tx.lpn, dst) {
                    self.metrics.gc.pages_migrated += 1;
                } else {
                    self.metrics.wasted_pages += 1;
                }
                dst
            }
            Dest::Stream(w, place) => {
                let dst = self
                    .ftl
                    .relocate_placed(tx.src, tx.plane, w, now, place)
                    .expect("ready() checked that the plane has a free page");
                self.metrics.gc.pages_migrated += 1;
                self.metrics.gc.hot_moves += (w == Writer::Gc { hot: true }) as u64;
                self.map_moved(tx.lpn);
                dst
            }
        };
        let page = self.ftl.map.page_of(dst);
        self.metrics.programmed_types[Origin::Gc as usize]
            [self.flash.timing.page_type[page as usize] as usize] += 1;
        self.count_placement(t, dest, page);
        self.gc_trigger(tx.plane);
        dst
    }

    /// Under a page-type scheme: did `t`, written to `dest`, get a page of
    /// the type it wanted (PA-SSD's allocation success, Fig. 15)? Counted
    /// per wanted type, host and GC writes apart.
    #[inline]
    fn count_placement(&mut self, t: TxnId, dest: Dest, page: u32) {
        if self.ftl.free_lane_pages().is_some() || self.typed_places() {
            self.count_typed_placement(t, dest, page);
        }
    }

    /// [`count_placement`](Self::count_placement) under relaxed program
    /// order or a page-type scheme.
    #[inline(never)]
    fn count_typed_placement(&mut self, t: TxnId, dest: Dest, page: u32) {
        if let Some(free) = self.ftl.free_lane_pages() {
            self.metrics.sample_free_lsb(self.engine.now(), free[0]);
        }
        if let Dest::Stream(_, Place::Lane(want)) = dest {
            let got = self.ftl.lane_of(page) == Some(want);
            let a = &mut self.metrics.placement[self.txns[t].origin as usize];
            a.0[want] += 1;
            a.1[want] += got as u64;
        }
    }
}
