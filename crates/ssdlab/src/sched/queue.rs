//! Queueing transactions and waking the dies that got work.

use crate::flash::{CmdKind, Origin};
use crate::sched::Class;
use crate::sim::*;

impl Simulator {
    pub(crate) fn enqueue(&mut self, plane: u32, class: Class, t: u32) {
        self.seq += 1;
        let d = self.ftl.map.die_of_plane(plane);
        let now = self.engine.now();
        let mark = self.gc.clock(d, now);
        let tx = &mut self.txns[t as usize];
        tx.seq = self.seq;
        if tx.origin == Origin::Host && tx.kind == CmdKind::Program {
            tx.queued_at = now;
            tx.gc_mark = mark;
        }
        self.queues.push(plane, class, t);
        self.kick(d);
    }

    #[inline]
    pub(crate) fn kick(&mut self, die: u32) {
        if !self.kick_flag[die as usize] {
            self.kick_flag[die as usize] = true;
            self.kicked.push(die);
        }
    }

    /// Dispatch on every die that got new work during the current event, so
    /// that work queued together can be joined into multi-plane commands.
    pub(crate) fn flush_kicks(&mut self) {
        while let Some(d) = self.kicked.pop() {
            self.kick_flag[d as usize] = false;
            if !self.dies[d as usize].busy {
                self.dispatch(d);
            }
        }
    }
}
