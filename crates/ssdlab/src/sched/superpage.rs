//! SuperPage: the logical super page as the unit of writing.
//!
//! A logical super page (LPN / N, N the planes per die) lives on the die its
//! number gets from the static order; its pages go to the same in-plane
//! address of every plane of the die, in one Die-Write. Evicting any of its
//! pages (`buffer::SuperPageEviction`, the eviction policy, takes the die's
//! LRU page and the super page's other dirty pages) writes the whole super
//! page: its clean pages are read first (transactions of their own,
//! `Owner::Unit`) and programmed as copies; never-written ones are
//! padding. GC uses the Die-Write machinery (`diewrite.rs`) unchanged.
//! Everything else of SuperPage is in this file.

use crate::addr::{DieId, PlaneId};
use crate::config::Requirement;
use crate::config::{Config, Eviction, Mapping, WriteUnit};
use crate::flash::{CmdKind, Origin};
use crate::sched::txn::{Data, Owner};
use crate::sched::unit::Unit;
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::{TxnId, MAX_PLANES_PER_DIE};

/// A super page being assembled for a Die-Write: one program per plane
/// (member k holds LPN `base + k`), reads of its clean pages under way.
#[derive(Clone, Copy)]
pub(crate) struct Assembly {
    pub(crate) die: DieId,
    pub(crate) members: [TxnId; MAX_PLANES_PER_DIE],
    pub(crate) reads_left: u32,
}

/// SuperPage's state: the super pages waiting for reads of their clean
/// pages.
#[derive(Default)]
pub(crate) struct SuperPages {
    assemblies: Vec<Assembly>,
    free: Vec<u32>,
}

impl Simulator {
    fn superpages(&mut self) -> &mut SuperPages {
        match &mut self.unit {
            Unit::SuperPage(_, s) => s,
            _ => unreachable!("SuperPage's write unit"),
        }
    }

    /// SuperPage: write the logical super page of the evicted pages `txns`
    /// (dirty pages of one super page): its other pages are read from flash
    /// and copied (or padded if never written), then all go as one Die-Write.
    pub(crate) fn superpage_write(&mut self, die: DieId, txns: &[TxnId]) {
        let n = self.ppd;
        let base = self.txns[txns[0]].lpn / n * n;
        let mut a = Assembly {
            die,
            members: [TxnId::NONE; MAX_PLANES_PER_DIE],
            reads_left: 0,
        };
        for &t in txns {
            a.members[(self.txns[t].lpn - base) as usize] = t;
        }
        let sp = self.superpages();
        let id = match sp.free.pop() {
            Some(i) => i,
            None => {
                sp.assemblies.push(a);
                (sp.assemblies.len() - 1) as u32
            }
        };
        for k in 0..n {
            if a.members[k as usize] != TxnId::NONE {
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
            self.txns[t].hot = self.host_hot(lpn);
            self.txns[t].owner = Owner::Unit;
            self.txns[t].unit = id;
            self.metrics.superpage_reads += 1;
            a.reads_left += 1;
            self.enqueue(plane, Class::Read, t);
        }
        self.superpages().assemblies[id as usize] = a;
        self.assembly_progress(id);
    }

    /// A read for a super page completed (`Owner::Unit`): the page goes
    /// back unchanged, as a copy in the super page's Die-Write.
    pub(crate) fn superpage_read_done(&mut self, t: TxnId) {
        let tx = self.txns[t];
        self.read_unpin(tx.src);
        let p = self.new_txn(
            CmdKind::Program,
            Origin::Host,
            PlaneId::NONE,
            tx.lpn,
            tx.src,
        );
        self.txns[p].data = Data::Copy;
        self.txns[p].owner = Owner::None;
        let k = (tx.lpn % self.ppd) as usize;
        let a = &mut self.superpages().assemblies[tx.unit as usize];
        a.members[k] = p;
        a.reads_left -= 1;
        self.assembly_progress(tx.unit);
    }

    /// A super page got a member: queue its Die-Write once it is complete.
    fn assembly_progress(&mut self, id: u32) {
        let a = self.superpages().assemblies[id as usize];
        if a.reads_left > 0 {
            return;
        }
        self.superpages().free.push(id);
        self.enqueue_die_writes(a.die, &a.members[..self.ppd as usize], Class::Write);
    }
}

/// What SuperPage (`ftl.write_unit = "super-page"`, `buffer.eviction =
/// "super-page"`) requires of the other policies, and what it excludes (it
/// also needs what every Die-Write needs, `diewrite::requirements`).
pub(crate) fn requirements(c: &Config) -> Requirement {
    if c.ftl.write_unit != WriteUnit::SuperPage {
        if c.buffer.eviction == Eviction::SuperPage {
            return Err((
                "buffer.eviction",
                "eviction = \"super-page\" needs ftl.write_unit = \"super-page\"".into(),
            ));
        }
        return Ok(());
    }
    if c.buffer.eviction != Eviction::SuperPage {
        return Err((
            "buffer.eviction",
            "write_unit = \"super-page\" needs eviction = \"super-page\"".into(),
        ));
    }
    match c.ftl.mapping {
        Mapping::Dftl => Err((
            "ftl.mapping",
            "mapping = \"dftl\" is not supported with write_unit = \"super-page\" (a translation page has no logical super page to rewrite)".into(),
        )),
        Mapping::Fast | Mapping::Vfc => Err((
            "ftl.mapping",
            "a hybrid mapping (\"fast\", \"vfc\") is not supported with write_unit = \"super-page\" (a super page rewrite has no log-block counterpart)".into(),
        )),
        Mapping::Page => Ok(()),
    }
}
