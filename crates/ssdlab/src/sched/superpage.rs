//! SuperPage: the logical super page as the unit of writing, with
//! read-before-update of its clean pages.

use crate::addr::INVALID;
use crate::flash::{CmdKind, Origin};
use crate::sched::Class;
use crate::sim::*;

/// SuperPage: a super page being assembled for a Die-Write: one program per
/// plane (member k holds LPN `base + k`), reads of its clean pages under way.
#[derive(Clone, Copy)]
pub(crate) struct Assembly {
    pub(crate) die: u32,
    pub(crate) members: [u32; MAX_PLANES_PER_DIE],
    pub(crate) reads_left: u32,
}

impl Simulator {
    /// SuperPage: write the logical super page of the evicted pages `txns`
    /// (dirty pages of one super page): its other pages are read from flash
    /// and copied (or padded if never written), then all go as one Die-Write.
    pub(crate) fn superpage_write(&mut self, die: u32, txns: &[u32]) {
        let n = self.ppd;
        let base = self.txns[txns[0] as usize].lpn / n * n;
        let mut a = Assembly {
            die,
            members: [INVALID; MAX_PLANES_PER_DIE],
            reads_left: 0,
        };
        for &t in txns {
            a.members[(self.txns[t as usize].lpn - base) as usize] = t;
        }
        let id = match self.free_assemblies.pop() {
            Some(i) => i,
            None => {
                self.assemblies.push(a);
                (self.assemblies.len() - 1) as u32
            }
        };
        for k in 0..n {
            if a.members[k as usize] != INVALID {
                continue;
            }
            let lpn = base + k;
            let mapped = if (lpn as u64) < self.ftl.logical_pages {
                self.ftl.lookup(lpn)
            } else {
                None
            };
            let Some(ppn) = mapped else {
                // Never written: its page of the super page is padding.
                a.members[k as usize] = self.pad_txn();
                continue;
            };
            self.ftl.pin(ppn);
            let plane = self.ftl.map.plane_of(ppn);
            let t = self.new_txn(CmdKind::Read, Origin::Host, plane, lpn, ppn);
            self.txns[t as usize].hot = self.host_hot(lpn);
            self.txns[t as usize].owner = Owner::Unit;
            self.txns[t as usize].unit = id;
            self.metrics.superpage_reads += 1;
            a.reads_left += 1;
            self.enqueue(plane, Class::Read, t);
        }
        self.assemblies[id as usize] = a;
        self.assembly_progress(id);
    }

    /// A read for a super page completed (`Owner::Unit`): the page goes
    /// back unchanged, as a copy in the super page's Die-Write.
    pub(crate) fn unit_txn_done(&mut self, t: u32) {
        let tx = self.txns[t as usize];
        self.read_unpin(tx.src);
        let p = self.new_txn(CmdKind::Program, Origin::Host, INVALID, tx.lpn, tx.src);
        self.txns[p as usize].data = Data::Copy;
        self.txns[p as usize].owner = Owner::None;
        let a = &mut self.assemblies[tx.unit as usize];
        a.members[(tx.lpn % self.ppd) as usize] = p;
        a.reads_left -= 1;
        self.assembly_progress(tx.unit);
    }

    /// A super page got a member: queue its Die-Write once it is complete.
    pub(crate) fn assembly_progress(&mut self, id: u32) {
        let a = self.assemblies[id as usize];
        if a.reads_left > 0 {
            return;
        }
        self.free_assemblies.push(id);
        self.enqueue_die_writes(a.die, &a.members[..self.ppd as usize], Class::Write);
    }
}
