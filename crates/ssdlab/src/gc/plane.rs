//! Per-plane GC (Baseline-D, Baseline-P, and every drive without aligned
//! block groups): a plane below its threshold takes a victim block of its
//! own and moves its valid pages, by copyback or through the controller,
//! within the plane, up to `gc.moves_in_flight` at once.

use crate::addr::PlaneId;
use crate::flash::CmdKind;
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::TxnId;

impl Simulator {
    /// Queue the next moves of plane `u`'s victim, walking its pages in
    /// order, then erase it once all are done.
    pub(crate) fn plane_refill(&mut self, u: usize) {
        // An idle GC paused by host work starts no move (`pace.rs`).
        if !self.gc.jobs[u].paused {
            self.plane_moves(u, None);
        }
        self.try_erase(u);
    }

    /// Create the next moves of plane `u`'s victim while fewer than
    /// `gc.moves_in_flight` are under way. A move is a copyback, or a read
    /// whose data comes back as a program (`plane_read_done`). With `cache`,
    /// new copybacks are handed to it instead of the plane's queue, and only
    /// reads count against the window (a page waiting in the controller's
    /// cache holds no plane). Returns whether anything went to the cache.
    pub(crate) fn plane_moves(
        &mut self,
        u: usize,
        cache: Option<fn(&mut Simulator, TxnId)>,
    ) -> bool {
        let plane = PlaneId(u as u32);
        let kind = self.gc.move_kind;
        let by_reads = cache.is_some() && kind == CmdKind::Read;
        let window = self.gc.window;
        let mut cached = false;
        let pages = self.job_pages(u);
        loop {
            let g = &self.gc.jobs[u];
            let busy = if by_reads { g.reading } else { g.pending };
            if busy >= window || g.cursor >= pages {
                break;
            }
            let ppn = self.victim_page(u, g.cursor);
            self.gc.jobs[u].cursor += 1;
            let Some(lpn) = self.ftl.owner(ppn) else {
                continue;
            };
            self.ftl.prefetch(lpn);
            let t = self.gc_txn(u, kind, plane, lpn, ppn);
            self.gc.jobs[u].pending += 1;
            if self.gc.jobs[u].idle {
                self.idle_move();
            }
            if kind == CmdKind::Read {
                self.gc.jobs[u].reading += 1;
                self.enqueue(plane, Class::Gc, t);
            } else if let Some(to_cache) = cache {
                to_cache(self, t);
                cached = true;
            } else {
                self.enqueue(plane, Class::Gc, t);
            }
        }
        cached
    }

    /// A move's read through the controller completed: its data comes back
    /// as a GC program on the same plane.
    pub(crate) fn plane_read_done(&mut self, t: TxnId) {
        let p = self.move_program(t);
        let plane = self.txns[p].plane;
        self.enqueue(plane, Class::Gc, p);
    }

    /// The program of a move whose read `t` completed (same plane, LPN,
    /// source and unit); the read no longer counts as reading.
    pub(crate) fn move_program(&mut self, t: TxnId) -> TxnId {
        let tx = self.txns[t];
        let u = tx.unit as usize;
        let p = self.gc_txn(u, CmdKind::Program, tx.plane, tx.lpn, tx.src);
        self.gc.jobs[u].read_done();
        p
    }
}

/// What IPPBE (`gc.blocks_per_gc = 2`) requires: per-plane GC of single
/// blocks (not aligned groups, ParaGC's joined GCs or FAST's merges).
pub(crate) fn requirements(c: &crate::config::Config) -> crate::config::Requirement {
    use crate::config::BlockGroups;
    let n = c.gc.blocks_per_gc;
    if n == 1 {
        return Ok(());
    }
    if n != 2 {
        return Err((
            "gc.blocks_per_gc",
            format!("{n}: 1 (one victim per GC) or 2 (IPPBE's two-block erase)"),
        ));
    }
    let why = if c.ftl.block_groups == BlockGroups::Die {
        "per-plane GC (block_groups = \"plane\")"
    } else if c.gc.join_percent != 0.0 {
        "gc.join_percent = 0 (ParaGC's joined GCs take one victim per plane)"
    } else if c.ftl.mapping.hybrid() {
        "page or DFTL mapping (a hybrid map reclaims by merges)"
    } else {
        return Ok(());
    };
    Err((
        "gc.blocks_per_gc",
        format!("2 (IPPBE) collects two blocks of a plane at once: needs {why}"),
    ))
}
