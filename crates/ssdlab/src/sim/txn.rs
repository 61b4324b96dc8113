//! Transactions: one page operation (read, program, erase, copyback) from
//! its creation to its completion, kept in a slab reused through a free list.

use crate::addr::{Lpn, Ppn, INVALID};
use crate::engine::Time;
use crate::flash::{CmdKind, Origin};
use crate::ftl::mapping::dftl::*;
use crate::ftl::Writer;
use crate::sched::Class;
use crate::sim::*;

#[derive(Clone, Copy)]
pub(crate) struct Txn {
    pub(crate) kind: CmdKind,
    pub(crate) origin: Origin,
    pub(crate) plane: u32,
    pub(crate) lpn: Lpn,
    /// Read / copyback / GC-program source; program destination once dispatched.
    pub(crate) src: Ppn,
    /// FAST merge read or program: the data unit page it goes to (fixed
    /// by its offset), else INVALID.
    pub(crate) dst: Ppn,
    /// A joined GC's move (`gc.join_align`) once in the cache: a copyback,
    /// or the program of a move through the controller. The plane whose GC
    /// it belongs to (the latter may be programmed on a sibling plane), else
    /// INVALID.
    pub(crate) home: u32,
    /// Host request, or INVALID.
    pub(crate) req: u32,
    /// Buffer slot being flushed, or INVALID.
    pub(crate) slot: u32,
    pub(crate) version: u32,
    /// A read-modify-write's read: the page write follows it.
    pub(crate) rmw: bool,
    /// Host program: judged hot (goes to the hot write stream).
    pub(crate) hot: bool,
    /// SuperPage: a program copying page `src` of the same LPN unchanged
    /// (read-before-update), or a read for one; the super page being
    /// assembled (index into `assemblies`), or INVALID.
    pub(crate) copy: bool,
    pub(crate) assembly: u32,
    /// Host program: when it was queued, and the die's GC-active clock then
    /// (replaced, once dispatched, by the GC time it waited through).
    pub(crate) queued_at: Time,
    pub(crate) gc_mark: Time,
    pub(crate) seq: u64,
}

pub(crate) fn new_txn_in(
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

impl Simulator {
    pub(crate) fn new_txn(
        &mut self,
        kind: CmdKind,
        origin: Origin,
        plane: u32,
        lpn: Lpn,
        src: Ppn,
    ) -> u32 {
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

    pub(crate) fn free_txn(&mut self, t: u32) {
        self.free_txns.push(t);
    }

    pub(crate) fn finish_txn(&mut self, t: u32) {
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

    /// Who writes the page of transaction `t` (stream and reserve rights).
    #[inline]
    pub(crate) fn writer(&self, t: u32) -> Writer {
        let tx = &self.txns[t as usize];
        match tx.origin {
            Origin::Gc => Writer::Gc { hot: tx.hot },
            Origin::Host | Origin::Mapping => Writer::Host { hot: tx.hot },
        }
    }
}
