//! The write unit: what one program command writes, and so how pages
//! leaving the buffer and pages GC moves become programs.
//!
//! | unit | file | programs |
//! |---|---|---|
//! | page | here | one page each, on the plane its allocation gives; multi-plane when queued pages happen to be aligned |
//! | Die-Write | `diewrite.rs` | one page on every plane of a die at once (gangs), GC moves staged into them, SPD+ combining |
//! | super page | `superpage.rs` | Die-Writes of whole logical super pages, clean pages read and copied first |
//!
//! The entry points (`unit_die`, `unit_evicted`, `gc_program`,
//! `gc_reads_done`, `unit_txn_done`) dispatch on [`Unit`]; the command
//! builder asks `Unit::gangs` whether programs go as whole Die-Writes.

use crate::addr::{DieId, PlaneId};
use crate::sched::diewrite::DieWrites;
use crate::sched::superpage::SuperPages;
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::TxnId;
use crate::types::Writer;

/// The write unit of a drive (module documentation); each variant holds the
/// state only it needs.
pub(crate) enum Unit {
    Page,
    Die(Box<DieWrites>),
    SuperPage(Box<DieWrites>, Box<SuperPages>),
}

impl Unit {
    /// Is every program a Die-Write (queued and dispatched as a gang)?
    #[inline]
    pub(crate) fn gangs(&self) -> bool {
        !matches!(self, Unit::Page)
    }

    pub(crate) fn die_writes(&mut self) -> &mut DieWrites {
        match self {
            Unit::Die(d) | Unit::SuperPage(d, _) => d,
            Unit::Page => unreachable!("Die-Writes only"),
        }
    }

    pub(crate) fn die_writes_ref(&self) -> &DieWrites {
        match self {
            Unit::Die(d) | Unit::SuperPage(d, _) => d,
            Unit::Page => unreachable!("Die-Writes only"),
        }
    }
}

impl Simulator {
    /// The die a page entering the buffer is bound for when its plane is
    /// chosen only when it leaves (die round-robin allocation): the static
    /// order's die of its LPN, or of its logical super page.
    pub(crate) fn unit_die(&self, lpn: u32) -> DieId {
        match self.unit {
            Unit::SuperPage(..) => self.ftl.static_die(lpn / self.ppd),
            _ => self.ftl.static_die(lpn),
        }
    }

    /// The buffer evicted slots `out`: their pages become programs.
    #[inline(always)]
    pub(crate) fn unit_evicted(&mut self, out: &[u32]) {
        if !self.unit.gangs() {
            for &slot in out {
                // (Read before the page leaves: its slot may free then.)
                let die = self
                    .buffer
                    .cache
                    .as_ref()
                    .expect("buffered mode")
                    .slot_die(slot);
                let t = self.evicted_txn(slot);
                let mut plane = self.txns[t].plane;
                if plane == PlaneId::NONE {
                    let hot = self.txns[t].hot;
                    plane = self.ftl.next_plane_in_die(die, Writer::Host { hot });
                    self.ftl.assign(plane);
                    self.txns[t].plane = plane;
                }
                self.enqueue(plane, Class::Write, t);
            }
            return;
        }
        let die = self
            .buffer
            .cache
            .as_ref()
            .expect("buffered mode")
            .slot_die(out[0]);
        let txns: Vec<TxnId> = out.iter().map(|&slot| self.evicted_txn(slot)).collect();
        match self.unit {
            Unit::SuperPage(..) => self.superpage_write(die, &txns),
            _ => self.die_write_host(die, txns),
        }
    }

    /// A GC program of die `die`'s group GC: staged for a Die-Write, or
    /// queued on the die's next plane in turn.
    pub(crate) fn gc_program(&mut self, die: DieId, p: TxnId) {
        if self.unit.gangs() {
            let hot = self.txns[p].hot;
            self.stage(die, p, hot);
            self.flush_staging(die);
        } else {
            let dst = self.ftl.next_plane_in_die(die, self.writer(p));
            self.txns[p].plane = dst;
            self.enqueue(dst, Class::Gc, p);
        }
    }

    /// Die `die`'s group GC has read every page of its victim: with
    /// Die-Writes, complete the last short ones.
    pub(crate) fn gc_reads_done(&mut self, die: DieId) {
        if self.unit.gangs() {
            self.complete_staging(die);
        }
    }

    /// A write unit's own transaction (`Owner::Unit`) completed.
    pub(crate) fn unit_txn_done(&mut self, t: TxnId) {
        match self.unit {
            Unit::SuperPage(..) => self.superpage_read_done(t),
            _ => unreachable!("only SuperPage has transactions of its own"),
        }
    }
}
