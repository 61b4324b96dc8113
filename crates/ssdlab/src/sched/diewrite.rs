//! Die-Writes (SPD): every program is one page on each plane of the die;
//! host gangs from the buffer, GC gangs from staging, SPD+ combining.
//!
//! Programs are queued as *gangs*: one transaction per plane, in the same
//! queue class, at once. Because gangs enter and leave whole, the k-th
//! program of every plane's queue belongs to the same gang, and the command
//! builder (`gang`) only checks that every plane's head of the class is a
//! program that may run, then pops them together; every member goes to the
//! gang's one write stream (`gang_writer`). Host gangs come from the buffer
//! (`DieWrite` eviction: a multiple of N pages of one die on planes 0..N−1 in
//! turn; padded when the buffer has no full gang and nothing is flushing).
//! GC gangs come from *staging*: pages a Die-GC read wait per die and stream
//! (`[cold, hot]`) until N are ready (`flush_staging`); when the victim has
//! been read, the last short gang is completed with the die's least recently
//! used dirty buffer pages, then padding (`complete_staging`). A GC gang's
//! pages may use the GC reserve, and a move whose page the host rewrote after
//! it was read is still programmed (stale) so the gang stays whole.
//!
//! SPD+ (`gc.combine_host_writes`): pages the buffer evicts to a die whose
//! Die-GC is still reading are staged with its moves, provided the GC keeps
//! room for the victim's valid pages plus every combined page not yet
//! programmed (`gc_has_room_for`); otherwise they wait as SPD's do.

use crate::addr::{DieId, PlaneId, INVALID};
use crate::config::Config;
use crate::config::Requirement;
use crate::config::{Alignment, BlockGroups, BufferCapacity, Eviction, WriteUnit};
use crate::flash::{CmdKind, Origin};
use crate::sched::txn::{Data, Owner};
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::TxnId;

/// Die-Writes' state.
pub(crate) struct DieWrites {
    /// SPD+: host pages evicted to a die under Die-GC join its Die-Writes.
    pub(crate) combine: bool,
    /// Per die, program transactions (GC moves, and under SPD+ host pages)
    /// waiting to fill a Die-Write, `[cold, hot]`: a Die-Write goes to one
    /// write stream, so with hot/cold separation each stream fills its own.
    pub(crate) staging: Vec<[Vec<TxnId>; 2]>,
    /// Per die, host pages given to the die's GC Die-Writes and not yet
    /// programmed (they spend the GC's free space).
    pub(crate) combined_pending: Vec<u32>,
}

impl DieWrites {
    pub(crate) fn new(cfg: &Config, combine: bool) -> DieWrites {
        let dies = cfg.total_dies() as usize;
        DieWrites {
            combine,
            staging: vec![[Vec::new(), Vec::new()]; dies],
            combined_pending: vec![0; dies],
        }
    }
}

impl Simulator {
    /// A host page was programmed in one of the die's GC Die-Writes.
    pub(crate) fn combined_programmed(&mut self, die: DieId) {
        self.metrics.gc.host_pages_combined += 1;
        self.unit.die_writes().combined_pending[die.index()] -= 1;
    }

    /// A Die-Write of host pages to `die`: under SPD+, while the die's GC is
    /// still moving pages, they join its Die-Writes; otherwise they are
    /// queued as whole Die-Writes, padded to a multiple of the planes.
    pub(crate) fn die_write_host(&mut self, die: DieId, mut txns: Vec<TxnId>) {
        if self.unit.die_writes_ref().combine
            && self.gc_staging_open(die)
            && self.gc_has_room_for(die, txns.len())
        {
            self.unit.die_writes().combined_pending[die.index()] += txns.len() as u32;
            // GC writes to the hot stream only when it sorts its moves
            // (then host pages are hot); otherwise all to the cold one.
            for t in txns {
                let hot = self.hot.sort_moves && self.txns[t].hot;
                self.stage(die, t, hot);
            }
            self.flush_staging(die);
            return;
        }
        while !txns.len().is_multiple_of(self.ppd as usize) {
            txns.push(self.pad_txn());
        }
        self.enqueue_die_writes(die, &txns, Class::Write);
    }

    /// A padding page: programmed without data to complete a Die-Write.
    pub(crate) fn pad_txn(&mut self) -> TxnId {
        let t = self.new_txn(
            CmdKind::Program,
            Origin::Gc,
            PlaneId::NONE,
            INVALID,
            INVALID,
        );
        let tx = &mut self.txns[t];
        tx.owner = Owner::None;
        tx.data = Data::Pad;
        t
    }

    /// Queue whole Die-Writes of `die` in `class`: program `i` of `txns` (a
    /// multiple of the planes per die) goes to plane `i mod N`, so every
    /// plane's queue gets one page of each Die-Write, in the same order.
    pub(crate) fn enqueue_die_writes(&mut self, die: DieId, txns: &[TxnId], class: Class) {
        assert!(txns.len().is_multiple_of(self.ppd as usize));
        for (i, &t) in txns.iter().enumerate() {
            let plane = die.plane(i as u32 % self.ppd, self.ppd);
            self.txns[t].plane = plane;
            // A Die-Write goes whole, stale members too.
            self.txns[t].keep = true;
            if self.txns[t].origin != Origin::Gc {
                self.ftl.assign(plane);
            }
            self.enqueue(plane, class, t);
        }
    }

    /// Stage program `t` for a Die-Write of the die's GC in the hot or the
    /// cold stream (marking it so, which decides the Die-Write's stream).
    pub(crate) fn stage(&mut self, die: DieId, t: TxnId, hot: bool) {
        self.txns[t].hot = hot;
        self.unit.die_writes().staging[die.index()][hot as usize].push(t);
    }

    /// Queue every full Die-Write of the die's staged programs (GC class:
    /// they belong to a GC).
    pub(crate) fn flush_staging(&mut self, die: DieId) {
        let n = self.ppd as usize;
        for s in 0..2 {
            while self.unit.die_writes().staging[die.index()][s].len() >= n {
                let gang: Vec<TxnId> = self.unit.die_writes().staging[die.index()][s]
                    .drain(..n)
                    .collect();
                self.enqueue_die_writes(die, &gang, Class::Gc);
            }
        }
    }

    /// The die's GC has read all its pages: complete the last, short
    /// Die-Write of each stream with the die's least recently used dirty
    /// pages from the buffer, then with padding.
    pub(crate) fn complete_staging(&mut self, die: DieId) {
        let n = self.ppd as usize;
        for hot in [false, true] {
            let short =
                (n - self.unit.die_writes().staging[die.index()][hot as usize].len() % n) % n;
            if short == 0 {
                continue;
            }
            for t in self.evict_from_die(die, short) {
                self.stage(die, t, hot);
                self.unit.die_writes().combined_pending[die.index()] += 1;
            }
            while !self.unit.die_writes().staging[die.index()][hot as usize]
                .len()
                .is_multiple_of(n)
            {
                let t = self.pad_txn();
                self.stage(die, t, hot);
            }
        }
        self.flush_staging(die);
    }

    /// SPD+: can the die's GC take `extra` host pages into its Die-Writes and
    /// still move all its victim's valid pages before running out of space
    /// (the GC reserve is sized for the victim, not for host data)?
    pub(crate) fn gc_has_room_for(&self, die: DieId, extra: usize) -> bool {
        let victim = self.gc.jobs[die.index()].victim;
        // Pages still to program: the victim's valid ones (read or not) and
        // the host pages already combined, spread evenly over the planes.
        let pages = self.ftl.group_valid(victim) as u64
            + self.unit.die_writes_ref().combined_pending[die.index()] as u64
            + extra as u64;
        let per_plane = pages.div_ceil(self.ppd as u64) + 1;
        die.planes(self.ppd)
            .all(|p| self.ftl.gc_free_pages(p) >= per_plane)
    }

    /// Is the die's GC still producing page moves for Die-Writes?
    pub(crate) fn gc_staging_open(&self, die: DieId) -> bool {
        let g = &self.gc.jobs[die.index()];
        g.victim != INVALID && !(g.cursor == self.victim_pages() && g.reading == 0)
    }
}

/// What Die-Writes (`ftl.write_unit` other than `"page"`) requires of the other policies, and what it excludes: the
/// first violated requirement as (the key to change, why).
pub(crate) fn requirements(c: &Config) -> Requirement {
    if c.ftl.write_unit == WriteUnit::Page {
        if c.buffer.eviction == Eviction::DieWrite {
            return Err((
                "buffer.eviction",
                "eviction = \"die-write\" needs ftl.write_unit = \"die\"".into(),
            ));
        }
        return Ok(());
    }
    if c.ftl.block_groups != BlockGroups::Die {
        return Err((
            "ftl.write_unit",
            "write_unit = \"die\" needs block_groups = \"die\" (aligned write points)".into(),
        ));
    }
    if c.buffer.capacity == BufferCapacity::None {
        return Err((
            "buffer.capacity",
            "write_unit = \"die\" needs a write buffer (Die-Writes are built from buffered pages)"
                .into(),
        ));
    }
    if c.ftl.write_unit == WriteUnit::Die && c.buffer.eviction != Eviction::DieWrite {
        return Err((
            "buffer.eviction",
            "write_unit = \"die\" needs eviction = \"die-write\"".into(),
        ));
    }
    if !c.flash.multiplane || c.flash.plane_pairs_only {
        return Err((
            "flash.multiplane",
            "write_unit = \"die\" needs multi-plane commands over all planes of a die (multiplane = true, plane_pairs_only = false)".into(),
        ));
    }
    if c.flash.multiplane_alignment != Alignment::BlockAndPage {
        return Err((
            "flash.multiplane_alignment",
            "write_unit = \"die\" keeps block and page aligned: use \"block-and-page\"".into(),
        ));
    }
    Ok(())
}

/// What SPD+ combining (`gc.combine_host_writes`) requires of the other policies, and what it excludes: the
/// first violated requirement as (the key to change, why).
pub(crate) fn combine_requirements(c: &Config) -> Requirement {
    if c.gc.combine_host_writes && c.ftl.write_unit != WriteUnit::Die {
        return Err((
            "gc.combine_host_writes",
            "SPD+ combines host pages into Die-Writes: needs ftl.write_unit = \"die\"".into(),
        ));
    }
    Ok(())
}
