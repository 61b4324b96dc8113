//! Die-GC over aligned block groups (TwinBlk, SPD, SuperPage): the GC unit
//! is a die, its victim a group (block `g` of every plane), its valid pages
//! are read page index by page index across the planes (aligned ones go as
//! one multi-plane read) and programmed over the die's planes; the group's
//! blocks are erased at one block index (one multi-plane erase). Where the
//! programs go is the write unit's business (`sched::diewrite`): the die's
//! planes in turn, or staged into Die-Writes.

use crate::addr::DieId;
use crate::flash::CmdKind;
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::TxnId;

impl Simulator {
    /// Read the group's valid pages, up to `gc.moves_in_flight` per plane
    /// at once; when every page is read, the write unit completes its last
    /// programs; then erase.
    pub(crate) fn group_refill(&mut self, u: usize) {
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

    /// A group GC's page read completed: the write unit places its program.
    pub(crate) fn group_read_done(&mut self, t: TxnId) {
        let p = self.move_program(t);
        let u = self.txns[t].unit as usize;
        self.gc_program(DieId(u as u32), p);
        self.gc_refill(u);
    }
}
