//! Die-GC over aligned block groups (TwinBlk, SPD, SuperPage).

use crate::flash::{CmdKind, Origin};
use crate::sched::Class;
use crate::sim::*;

impl Simulator {
    /// Group GC: read the group's valid pages, page index by page index over
    /// the die's planes (aligned ones go as one multi-plane read), up to
    /// `gc.moves_in_flight` per plane at once. Read pages are programmed to
    /// the die's planes in turn (Die-Writes: staged until a Die-Write is full).
    pub(crate) fn gc_refill_group(&mut self, u: usize) {
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
    pub(crate) fn gc_read_done(&mut self, t: u32) {
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
}
