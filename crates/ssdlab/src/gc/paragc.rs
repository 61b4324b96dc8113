//! ParaGC: joined GCs of a die align their write points through the cache.

use crate::addr::INVALID;
use crate::flash::CmdKind;
use crate::sched::Class;
use crate::sim::*;

impl Simulator {
    /// A joined move placed on `plane` was programmed, or dropped (the
    /// host rewrote its page): its GC (of plane `home`) progresses, and
    /// the die's next moves may be placed.
    pub(crate) fn para_placed_done(&mut self, home: u32, plane: u32) {
        let die = self.ftl.map.die_of_plane(plane);
        self.para_queued[die as usize] -= 1;
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
    pub(crate) fn para_flush(&mut self, die: u32) {
        let d = die as usize;
        if self.para_queued[d] > 0 {
            return;
        }
        // Pages the host rewrote while cached need no move.
        let mut i = 0;
        while i < self.para_pool[d].len() {
            let t = self.para_pool[d][i];
            let tx = self.txns[t as usize];
            if self.ftl.owner(tx.src) == Some(tx.lpn) {
                i += 1;
                continue;
            }
            self.para_pool[d].remove(i);
            self.metrics.gc.moves_dropped += 1;
            self.free_txn(t);
            self.gc_progress(tx.home as usize);
        }
        // The GC's next move may have been cached and a round placed.
        if self.para_queued[d] > 0 {
            return;
        }
        let Some(&oldest) = self.para_pool[d].first() else {
            return;
        };
        let w = self.writer(oldest);
        let ppb = self.ftl.pages_per_block();
        // The joined planes that can take a page of the stream now: there
        // is one of their own victim, or one through the controller.
        let shared = self.para_pool[d]
            .iter()
            .any(|&t| self.txns[t as usize].kind == CmdKind::Program && self.writer(t) == w);
        let mut planes = [(INVALID, 0u32); MAX_PLANES_PER_DIE];
        let mut n = 0;
        let mut coming = false;
        for q in die * self.ppd..(die + 1) * self.ppd {
            let g = self.gc[q as usize];
            if g.victim == INVALID || !g.joined {
                continue;
            }
            coming |= g.reading > 0;
            let own = || {
                self.para_pool[d]
                    .iter()
                    .any(|&t| self.txns[t as usize].home == q && self.writer(t) == w)
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
        let lagging = planes.iter().any(|&(_, p)| p != target);
        // A page for each plane of the round: one of its own victim, else
        // (through the controller only) any other.
        let mut picks = [(INVALID, INVALID); MAX_PLANES_PER_DIE];
        let mut k = 0;
        for &(q, p) in planes {
            if lagging && p == target {
                continue;
            }
            let free = |t: u32| self.writer(t) == w && !picks[..k].iter().any(|&(_, x)| x == t);
            let pool = &self.para_pool[d];
            let own = pool
                .iter()
                .copied()
                .find(|&t| self.txns[t as usize].home == q && free(t));
            let any = || {
                pool.iter()
                    .copied()
                    .find(|&t| self.txns[t as usize].kind == CmdKind::Program && free(t))
            };
            if let Some(t) = own.or_else(any) {
                picks[k] = (q, t);
                k += 1;
            }
        }
        if !lagging && k < n && coming {
            return;
        }
        for &(q, t) in &picks[..k] {
            let i = self.para_pool[d]
                .iter()
                .position(|&x| x == t)
                .expect("picked from the pool");
            self.para_pool[d].remove(i);
            self.txns[t as usize].plane = q;
            self.para_queued[d] += 1;
            self.metrics.gc.aligning_moves += lagging as u64;
            self.enqueue(q, Class::Gc, t);
        }
    }
}
