//! ParaGC (Shahidi et al., SC'16): per-plane GC whose sibling planes join.
//!
//! When a plane starts GC, the other planes of its die with fewer free pages
//! than the early threshold (`gc.join_percent`) start with it
//! (`gc.joined` counts them). With `gc.join_align`, the GCs of a die that
//! run at the same time (started together, or one started while siblings
//! were collecting) are *joined*: their moves do not go to the queues but
//! wait in the die's cache — a copyback in its plane's register as soon as
//! it is created, a move through the controller once its read completes —
//! and `para_flush` places them one round at a time so that the joined
//! planes' write points line up and the moves go as multi-plane commands.
//! A joined GC holds its plane against host writes while it runs.
//!
//! Everything of ParaGC is in this file; the per-plane reclaimer
//! (`plane.rs`) does the rest.

use crate::config::BlockGroups;
use crate::config::Requirement;
use rustc_hash::FxHashSet;

use crate::addr::{DieId, PlaneId, INVALID};
use crate::config::{Config, GcThreshold};
use crate::flash::CmdKind;
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::{TxnId, MAX_PLANES_PER_DIE};

/// ParaGC's state.
pub(crate) struct ParaGc {
    /// Free pages below which a plane joins a sibling's GC.
    join_pages: u64,
    /// Joined GCs align their moves through the cache.
    align: bool,
    /// Per plane: its GC is joined.
    joined: Vec<bool>,
    /// Per die: the joined GCs' moves waiting in the cache, oldest first.
    pool: Vec<Vec<TxnId>>,
    /// Per die: placed moves not yet completed (the next round waits).
    queued: Vec<u32>,
    /// Moves placed from the cache and not yet completed.
    placed: FxHashSet<TxnId>,
}

impl ParaGc {
    /// Free pages below which a plane joins a sibling's GC (ParaGC's early
    /// threshold, `gc.join_percent`), or 0: off. Under FAST, merges of
    /// sibling domains join alike (`fast_merge.rs`); alignment has no
    /// meaning there.
    pub(crate) fn join_pages(cfg: &Config) -> u64 {
        (cfg.pages_per_plane() as f64 * cfg.gc.join_percent / 100.0).ceil() as u64
    }

    /// ParaGC's state, if `gc.join_percent` turns it on.
    pub(crate) fn from_config(cfg: &Config) -> Option<ParaGc> {
        let join_pages = Self::join_pages(cfg);
        (join_pages > 0).then(|| ParaGc {
            join_pages,
            align: cfg.gc.join_align,
            joined: vec![false; cfg.total_planes() as usize],
            pool: vec![Vec::new(); cfg.total_dies() as usize],
            queued: vec![0; cfg.total_dies() as usize],
            placed: FxHashSet::default(),
        })
    }

    /// Is plane `u`'s GC joined?
    pub(crate) fn joined(&self, u: usize) -> bool {
        self.joined[u]
    }

    /// The urgent threshold a ParaGC drive's own GC threshold is, and the
    /// early one a point above it (the scheme's overrides).
    pub(crate) fn thresholds(cfg: &Config) -> (f64, f64) {
        let urgent = match cfg.gc.threshold {
            GcThreshold::Percent(p) => p,
            GcThreshold::Blocks(b) => 100.0 * b as f64 / cfg.geometry.blocks_per_plane as f64,
        };
        (urgent, urgent + 1.0)
    }
}

impl Simulator {
    fn para(&self) -> &ParaGc {
        match &self.gc.reclaimer {
            crate::gc::Reclaimer::Para(p) => p,
            _ => unreachable!("ParaGC's reclaimer"),
        }
    }

    fn para_mut(&mut self) -> &mut ParaGc {
        match &mut self.gc.reclaimer {
            crate::gc::Reclaimer::Para(p) => p,
            _ => unreachable!("ParaGC's reclaimer"),
        }
    }

    /// The other planes of `plane`'s die with fewer free pages than
    /// `join_pages` and no GC (they join its GC), and whether a sibling is
    /// collecting already.
    pub(crate) fn joiners(&self, plane: PlaneId, join_pages: u64) -> (Vec<PlaneId>, bool) {
        let die = self.ftl.map.die_of_plane(plane);
        let mut joiners = Vec::new();
        let mut collecting = false;
        for q in (die.planes(self.ppd)).filter(|&q| q != plane) {
            if self.gc.active(q.index()) {
                collecting = true;
            } else if self.ftl.free_pages(q) < join_pages {
                joiners.push(q);
            }
        }
        (joiners, collecting)
    }

    /// Plane `plane` needs GC: start it, with the sibling planes already
    /// low on space.
    pub(crate) fn para_trigger(&mut self, plane: PlaneId) {
        let (joiners, collecting) = self.joiners(plane, self.para().join_pages);
        // Alignment: planes of a die collecting at the same time (started
        // together, or this one while siblings were collecting) move their
        // pages together through the cache.
        let joined = self.para().align && (!joiners.is_empty() || collecting);
        if !self.para_start(plane, joined) {
            return;
        }
        for &q in &joiners {
            if self.para_start(q, joined) {
                self.metrics.gc.joined += 1;
            }
        }
        if joined {
            let die = self.ftl.map.die_of_plane(plane);
            for q in die.planes(self.ppd) {
                let u = q.index();
                if self.gc.active(u) && !self.para().joined[u] {
                    self.para_mut().joined[u] = true;
                    self.gc_refill(u);
                }
            }
        }
    }

    /// Start plane `plane`'s GC, joined or not; false if it has no victim.
    fn para_start(&mut self, plane: PlaneId, joined: bool) -> bool {
        let Some(u) = self.begin_gc(plane) else {
            return false;
        };
        self.para_mut().joined[u] = joined;
        self.gc_refill(u);
        true
    }

    /// The next moves of plane `u`'s GC: a joined GC's copybacks go to the
    /// cache, and are placed from there.
    pub(crate) fn para_refill(&mut self, u: usize) {
        let joined = self.para().joined[u];
        let cache: Option<fn(&mut Simulator, TxnId)> =
            joined.then_some(|sim: &mut Simulator, t: TxnId| sim.para_cache(t));
        if self.plane_moves(u, cache) {
            self.para_flush(self.ftl.map.die_of_plane(PlaneId(u as u32)));
        }
        self.try_erase(u);
    }

    /// Put move `t` into its die's cache.
    fn para_cache(&mut self, t: TxnId) {
        let die = self.ftl.map.die_of_plane(self.txns[t].plane);
        self.para_mut().pool[die.index()].push(t);
    }

    /// A move's read through the controller completed: a placed move's
    /// program stays placed (a copyback the odd/even rule turned into a
    /// read); a joined GC's waits in the cache; others go to the plane.
    pub(crate) fn para_read_done(&mut self, t: TxnId) {
        let p = self.move_program(t);
        let tx = self.txns[t];
        let u = tx.unit as usize;
        if self.para_mut().placed.remove(&t) {
            self.para_mut().placed.insert(p);
            self.enqueue(tx.plane, Class::Gc, p);
        } else if self.para().joined[u] {
            let die = self.ftl.map.die_of_plane(tx.plane);
            self.para_mut().pool[die.index()].push(p);
            self.para_flush(die);
            self.gc_refill(u);
        } else {
            self.enqueue(tx.plane, Class::Gc, p);
        }
    }

    /// A move of a ParaGC GC completed or was dropped: a placed one lets
    /// the die's next round go.
    pub(crate) fn para_move_done(&mut self, t: TxnId) {
        let tx = self.txns[t];
        if self.para_mut().placed.remove(&t) {
            self.para_placed_done(tx.unit, tx.plane);
        } else {
            self.gc_progress(tx.unit as usize);
        }
    }

    /// A GC of `die` ended: with fewer joined planes, cached moves may be
    /// placed now.
    pub(crate) fn para_gc_ended(&mut self, die: DieId) {
        if self.para().align {
            self.para_flush(die);
        }
    }

    /// A joined move placed on `plane` was programmed, or dropped (the
    /// host rewrote its page): its GC (of plane `home`) progresses, and
    /// the die's next moves may be placed.
    fn para_placed_done(&mut self, home: u32, plane: PlaneId) {
        let die = self.ftl.map.die_of_plane(plane);
        self.para_mut().queued[die.index()] -= 1;
        self.gc_progress(home as usize);
        self.para_flush(die);
    }

    /// ParaGC alignment: place cached moves of `die`'s joined GCs on its
    /// joined planes, once the moves placed before are written. The pages
    /// go to one write stream at a time (the oldest cached page's). If the
    /// joined planes' write points differ, the planes behind get a page each
    /// (the target is the offset the fewest pages reach, counting a block's
    /// end as reaching the next block's start); once aligned, every joined
    /// plane gets one, and the command builder joins them into one
    /// multi-plane program. An aligned round waits for as many cached pages
    /// as planes while reads are still under way. A plane takes a page of
    /// its own victim where the cache holds one, else (through the
    /// controller only) the oldest.
    fn para_flush(&mut self, die: DieId) {
        let d = die.index();
        if self.para().queued[d] > 0 {
            return;
        }
        // Pages the host rewrote while cached need no move.
        let mut i = 0;
        while i < self.para().pool[d].len() {
            let t = self.para().pool[d][i];
            let tx = self.txns[t];
            if self.ftl.owner(tx.src) == Some(tx.lpn) {
                i += 1;
                continue;
            }
            self.para_mut().pool[d].remove(i);
            self.metrics.gc.moves_dropped += 1;
            self.free_txn(t);
            self.gc_progress(tx.unit as usize);
        }
        // The GC's next move may have been cached and a round placed.
        if self.para().queued[d] > 0 {
            return;
        }
        let Some(&oldest) = self.para().pool[d].first() else {
            return;
        };
        let w = self.writer(oldest);
        let ppb = self.ftl.pages_per_block();
        // The joined planes that can take a page of the stream now: there
        // is one of their own victim, or one through the controller.
        let shared = self.para().pool[d]
            .iter()
            .any(|&t| self.txns[t].kind == CmdKind::Program && self.writer(t) == w);
        let mut planes = [(PlaneId::NONE, 0u32); MAX_PLANES_PER_DIE];
        let mut n = 0;
        let mut coming = false;
        for q in die.planes(self.ppd) {
            let g = self.gc.jobs[q.index()];
            if g.victim == INVALID || !self.para().joined[q.index()] {
                continue;
            }
            coming |= g.reading > 0;
            let own = || {
                self.para().pool[d]
                    .iter()
                    .any(|&t| self.txns[t].unit == q.0 && self.writer(t) == w)
            };
            if !(shared || own()) {
                continue;
            }
            if let Some((_, page)) = self.ftl.peek_write(q, w) {
                planes[n] = (q, page);
                n += 1;
            }
        }
        let planes = &planes[..n];
        let cost = |t: u32| -> u32 { planes.iter().map(|&(_, p)| (t + ppb - p) % ppb).sum() };
        let Some(target) = planes.iter().map(|&(_, p)| p).min_by_key(|&t| (cost(t), t)) else {
            return;
        };
        let mut lagging = planes.iter().any(|&(_, p)| p != target);
        // A page for each plane of the round: one of its own victim, else
        // (through the controller only) any other, while the plane has room
        // for more valid data (under static allocation the host never moves
        // it back, and a plane filled with valid data leaves its GC nothing
        // to reclaim). Should no plane take a page only for want of room,
        // the round goes unaligned, and then regardless of room, so the GC
        // always makes headway.
        let mut picks = [(PlaneId::NONE, TxnId::NONE); MAX_PLANES_PER_DIE];
        let mut k = 0;
        for (align, mind_room) in [(true, true), (false, true), (false, false)] {
            lagging &= align;
            let mut refused = false;
            for &(q, p) in planes {
                if lagging && p == target {
                    continue;
                }
                let free =
                    |t: TxnId| self.writer(t) == w && !picks[..k].iter().any(|&(_, x)| x == t);
                let pool = &self.para().pool[d];
                let own = pool
                    .iter()
                    .copied()
                    .find(|&t| self.txns[t].unit == q.0 && free(t));
                let any = || {
                    let t = pool
                        .iter()
                        .copied()
                        .find(|&t| self.txns[t].kind == CmdKind::Program && free(t))?;
                    if mind_room && !self.ftl.has_room(q) {
                        refused = true;
                        return None;
                    }
                    Some(t)
                };
                if let Some(t) = own.or_else(any) {
                    picks[k] = (q, t);
                    k += 1;
                }
            }
            if k > 0 || !refused {
                break;
            }
        }
        if !lagging && k < n && coming {
            return;
        }
        for &(q, t) in &picks[..k] {
            let i = self.para().pool[d]
                .iter()
                .position(|&x| x == t)
                .expect("picked from the pool");
            let para = self.para_mut();
            para.pool[d].remove(i);
            para.queued[d] += 1;
            para.placed.insert(t);
            self.txns[t].plane = q;
            // Each page is read into its own plane's register: only the
            // destinations of such copybacks need to be aligned.
            self.txns[t].separate_read = true;
            self.metrics.gc.aligning_moves += lagging as u64;
            self.enqueue(q, Class::Gc, t);
        }
    }
}

/// What ParaGC (`gc.join_percent`, `gc.join_align`) requires of the other policies, and what it excludes: the
/// first violated requirement as (the key to change, why).
pub(crate) fn requirements(c: &Config) -> Requirement {
    let j = c.gc.join_percent;
    if j != 0.0 {
        let GcThreshold::Percent(t) = c.gc.threshold else {
            return Err(("gc.join_percent", "needs a percent GC threshold".into()));
        };
        if !(j.is_finite() && j > t && j < 100.0) {
            return Err((
                "gc.join_percent",
                "must be 0 (off) or above the GC threshold percent and below 100".into(),
            ));
        }
        if c.ftl.block_groups == BlockGroups::Die {
            return Err((
                "gc.join_percent",
                "applies to per-plane GC (block_groups = \"plane\")".into(),
            ));
        }
    }
    if c.gc.join_align && j == 0.0 {
        return Err((
            "gc.join_align",
            "aligns the moves of joined GCs: needs gc.join_percent (ParaGC's early threshold)"
                .into(),
        ));
    }
    Ok(())
}
