//! Die-GC over aligned block groups (TwinBlk, SPD, SuperPage): the GC unit
//! is a die, its victim a group (block `g` of every plane), its valid pages
//! are read page index by page index across the planes (aligned ones go as
//! one multi-plane read) and programmed over the die's planes; the group's
//! blocks are erased at one block index (one multi-plane erase). Where the
//! programs go is the write unit's business (`sched::diewrite`): the die's
//! planes in turn, or staged into Die-Writes.
//!
//! **Die-GC by copyback** (`gc.migration = "copyback"`): a page cannot change
//! plane by copyback, so every valid page stays in its plane, copied to the
//! plane's GC write point. The moves go in *rows*: the next valid page of
//! every plane of the die at once, each read into its own plane's register
//! (the sources need not be aligned) and programmed at one page index, so a
//! row is one multi-plane copyback while the planes' write points agree, and
//! a plane's further registers take its next rows (`flash.plane_registers`).
//! A plane whose block held fewer valid pages runs out of rows first; once
//! every move is done, the die's lagging planes are padded (programs
//! without data, GC class) to the furthest one's position in each stream,
//! so that the write points are aligned again before the group is erased
//! and host Die-Writes resume. Pages that must change plane (SPD+'s
//! combined host pages, super pages kept at one page index) need moves
//! through the controller.

use crate::addr::{DieId, INVALID};
use crate::flash::CmdKind;
use crate::sched::txn::Data;
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::{TxnId, Writer};

impl Simulator {
    /// Read the group's valid pages, up to `gc.moves_in_flight` per plane
    /// at once; when every page is read, the write unit completes its last
    /// programs; then erase. (By copyback: rows of copybacks, then padding.)
    pub(crate) fn group_refill(&mut self, u: usize) {
        if self.gc.group_copy() {
            return self.group_copy_refill(u);
        }
        let die = DieId(u as u32);
        let n = self.ppd;
        let (ppb, bpp) = (self.ftl.pages_per_block(), self.ftl.blocks_per_plane());
        let total = self.victim_pages();
        let window = self.gc.window * n;
        let g = self.gc.jobs[u].victim % bpp;
        while self.gc.jobs[u].reading < window && self.gc.jobs[u].cursor < total {
            let c = self.gc.jobs[u].cursor;
            self.gc.jobs[u].cursor += 1;
            let plane = die.plane(c % n, n);
            let ppn = (plane.0 * bpp + g) * ppb + c / n;
            if let Some(lpn) = self.ftl.owner(ppn) {
                self.ftl.prefetch(lpn);
                let t = self.gc_txn(u, CmdKind::Read, plane, lpn, ppn);
                self.gc.jobs[u].pending += 1;
                self.gc.jobs[u].reading += 1;
                self.enqueue(plane, Class::Gc, t);
            }
        }
        if self.gc.jobs[u].cursor == total && self.gc.jobs[u].reading == 0 {
            self.gc_reads_done(die);
        }
        self.try_erase(u);
    }

    /// Die-GC by copyback: queue rows of copybacks while fewer than
    /// `gc.moves_in_flight` per plane are under way; once every move is
    /// done, pad the lagging planes; then erase.
    fn group_copy_refill(&mut self, u: usize) {
        let die = DieId(u as u32);
        let n = self.ppd;
        let (ppb, bpp) = (self.ftl.pages_per_block(), self.ftl.blocks_per_plane());
        let total = self.victim_pages();
        let window = self.gc.window * n;
        let g = self.gc.jobs[u].victim % bpp;
        while self.gc.jobs[u].pending < window && self.gc.jobs[u].cursor < total {
            for plane in die.planes(n) {
                let p = plane.index();
                while self.gc.rows[p] < ppb {
                    let ppn = (plane.0 * bpp + g) * ppb + self.gc.rows[p];
                    self.gc.rows[p] += 1;
                    self.gc.jobs[u].cursor += 1;
                    if let Some(lpn) = self.ftl.owner(ppn) {
                        self.ftl.prefetch(lpn);
                        let t = self.gc_txn(u, CmdKind::Copyback, plane, lpn, ppn);
                        self.txns[t].separate_read = true;
                        self.gc.jobs[u].pending += 1;
                        self.enqueue(plane, Class::Gc, t);
                        break;
                    }
                }
            }
        }
        let job = &self.gc.jobs[u];
        if job.cursor == total && job.pending == 0 && !job.padded {
            self.gc.jobs[u].padded = true;
            self.group_pad(u);
        }
        self.try_erase(u);
    }

    /// Die-GC by copyback, every move done: queue on each plane of the die
    /// the padding that brings it to the furthest plane's position in every
    /// stream GC writes to (only where the write unit keeps the die's write
    /// points aligned: Die-Writes).
    fn group_pad(&mut self, u: usize) {
        if !self.ftl.aligned() {
            return;
        }
        let die = DieId(u as u32);
        let writers: &[Writer] = if self.cfg.write_streams() == 2 {
            &[Writer::Gc { hot: false }, Writer::Gc { hot: true }]
        } else {
            &[Writer::GC]
        };
        for &w in writers {
            let target = die
                .planes(self.ppd)
                .map(|q| self.ftl.write_position(q, w))
                .max()
                .unwrap_or(0);
            for q in die.planes(self.ppd) {
                for _ in self.ftl.write_position(q, w)..target {
                    let t = self.gc_txn(u, CmdKind::Program, q, INVALID, INVALID);
                    self.txns[t].data = Data::Pad;
                    self.txns[t].hot = w == Writer::Gc { hot: true };
                    self.gc.jobs[u].pending += 1;
                    self.enqueue(q, Class::Gc, t);
                }
            }
        }
    }

    /// A group GC's page read completed: the write unit places its program
    /// (by copyback, a copyback the odd/even rule turned into a move through
    /// the controller: programmed back on its own plane).
    pub(crate) fn group_read_done(&mut self, t: TxnId) {
        if self.gc.group_copy() {
            return self.plane_read_done(t);
        }
        let p = self.move_program(t);
        let u = self.txns[t].unit as usize;
        self.gc_program(DieId(u as u32), p);
        self.gc_refill(u);
    }
}
