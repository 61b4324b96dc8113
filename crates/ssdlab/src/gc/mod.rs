//! Garbage collection: one job per GC unit (a plane, or with aligned block
//! groups a die), its trigger, migrations, erase, and the GC-active clock.

pub mod fast_merge;
pub mod group;
pub mod paragc;
pub mod victim;

use crate::addr::{Ppn, INVALID};
use crate::config::Migration;
use crate::engine::Time;
use crate::error::Error;
use crate::flash::{CmdKind, Origin};
use crate::sched::Class;
use crate::sim::*;

/// A garbage collection under way in one GC unit: a plane, or with aligned
/// block groups a die (victim = group id; the cursor walks the group's pages
/// page index by page index, so that aligned valid pages are read together).
#[derive(Clone, Copy)]
pub(crate) struct GcJob {
    pub(crate) victim: u32,
    /// Next page of the victim to look at.
    pub(crate) cursor: u32,
    /// Migrations queued or executing (group mode: read, staged or being
    /// programmed).
    pub(crate) pending: u32,
    /// Group mode: migrations whose read has not completed.
    pub(crate) reading: u32,
    /// Group mode: erases of the group's blocks not yet completed.
    pub(crate) erases_left: u32,
    pub(crate) start: Time,
    pub(crate) erase_queued: bool,
    /// Consecutive GCs that reclaimed nothing (livelock guard).
    pub(crate) fruitless: u32,
    /// ParaGC alignment: collecting at the same time as sibling planes
    /// (started with them, or while they collected); its moves wait in the
    /// die's cache (`para_pool`) to be placed.
    pub(crate) joined: bool,
}

impl Simulator {
    /// GC-active time of a die up to `now`: the time during which at least
    /// one of its planes was collecting garbage.
    #[inline]
    pub(crate) fn gc_clock(&self, die: u32, now: Time) -> Time {
        let (active, since, acc) = self.die_gc[die as usize];
        acc + if active > 0 { now - since } else { 0 }
    }

    /// A plane of `die` started (`+1`) or finished (`-1`) a GC.
    pub(crate) fn die_gc_change(&mut self, die: u32, delta: i32) {
        let now = self.engine.now();
        let acc = self.gc_clock(die, now);
        let g = &mut self.die_gc[die as usize];
        g.0 = (g.0 as i32 + delta) as u32;
        g.1 = now;
        g.2 = acc;
    }

    /// GC unit of a plane: the plane, or with aligned block groups its die.
    #[inline]
    pub(crate) fn gc_unit(&self, plane: u32) -> usize {
        if self.groups {
            (plane / self.ppd) as usize
        } else {
            plane as usize
        }
    }

    /// Die of GC unit `u`.
    #[inline]
    pub(crate) fn die_of_unit(&self, u: usize) -> u32 {
        if self.groups {
            u as u32
        } else {
            self.ftl.map.die_of_plane(u as u32)
        }
    }

    /// Pages of a GC victim: a block, or a group of one block per plane.
    #[inline]
    pub(crate) fn victim_pages(&self) -> u32 {
        self.ftl.pages_per_block() * if self.groups { self.ppd } else { 1 }
    }

    pub(crate) fn maybe_start_gc(&mut self, plane: u32) {
        let u = self.gc_unit(plane);
        if self.gc[u].victim != INVALID {
            return;
        }
        let needs = if self.groups {
            let first = u as u32 * self.ppd;
            (first..first + self.ppd).any(|p| self.ftl.needs_gc(p))
        } else {
            self.ftl.needs_gc(plane)
        };
        if !needs {
            return;
        }
        if self.join_pages == 0 {
            self.start_gc(plane, false);
            return;
        }
        // ParaGC: sibling planes already low on space collect with it.
        let die = self.ftl.map.die_of_plane(plane);
        let planes = die * self.ppd..(die + 1) * self.ppd;
        let mut joiners = [INVALID; MAX_PLANES_PER_DIE];
        let mut n = 0;
        let mut collecting = false;
        for q in planes.clone().filter(|&q| q != plane) {
            if self.gc[q as usize].victim != INVALID {
                collecting = true;
            } else if self.ftl.free_pages(q) < self.join_pages {
                joiners[n] = q;
                n += 1;
            }
        }
        // Alignment: planes of a die collecting at the same time (started
        // together, or this one while siblings were collecting) move their
        // pages together through the cache.
        let joined = self.join_align && (n > 0 || collecting);
        if !self.start_gc(plane, joined) {
            return;
        }
        for &q in &joiners[..n] {
            if self.start_gc(q, joined) {
                self.metrics.gc.joined += 1;
            }
        }
        if joined {
            for q in planes {
                let g = &mut self.gc[q as usize];
                if g.victim != INVALID && !g.joined {
                    g.joined = true;
                    self.gc_refill(q as usize);
                }
            }
        }
    }

    /// Start a GC in the unit of `plane` (`joined`: with sibling planes'
    /// GCs, their moves aligned through the cache); false if it has no victim.
    pub(crate) fn start_gc(&mut self, plane: u32, joined: bool) -> bool {
        let u = self.gc_unit(plane);
        let now = self.engine.now();
        let Some(victim) = self.ftl.pick_victim(plane, now, &mut self.rng) else {
            return false;
        };
        if self.fast {
            return self.merge_start(u, victim);
        }
        let valid = if self.groups {
            self.ftl.group_valid(victim)
        } else {
            self.ftl.valid_count(victim)
        };
        if valid == self.victim_pages() {
            self.gc[u].fruitless += 1;
            if self.gc[u].fruitless > self.ftl.blocks_per_plane() {
                self.error.get_or_insert(Error::Invalid(format!(
                    "plane {plane} holds only valid data ({} valid pages of {}, {} free): garbage collection \
                     cannot free space (is the logical capacity larger than the plane?)",
                    self.ftl.plane_valid(plane),
                    self.ftl.pages_per_block() * self.ftl.blocks_per_plane(),
                    self.ftl.free_pages(plane)
                )));
            }
        } else {
            self.gc[u].fruitless = 0;
        }
        let g = &mut self.gc[u];
        g.victim = victim;
        g.cursor = 0;
        g.pending = 0;
        g.reading = 0;
        g.erases_left = 0;
        g.start = now;
        g.erase_queued = false;
        g.joined = joined;
        self.die_gc_change(self.ftl.map.die_of_plane(plane), 1);
        self.gc_refill(u);
        true
    }

    /// Keep up to `gc.moves_in_flight` migrations of the unit's victim
    /// queued or executing, walking the victim's pages in order; when all are
    /// done, erase it.
    pub(crate) fn gc_refill(&mut self, u: usize) {
        if self.groups {
            return self.gc_refill_group(u);
        }
        let plane = u as u32;
        let ppb = self.ftl.pages_per_block();
        let kind = match self.cfg.gc.migration {
            Migration::Copyback => CmdKind::Copyback,
            Migration::Controller => CmdKind::Read,
        };
        // A joined GC's moves wait in the cache to be placed (`para_flush`):
        // copybacks in the plane's registers, moves through the controller
        // once read. Only the reads of the latter are limited: pages waiting
        // in the controller's cache hold no plane.
        let joined = self.gc[u].joined;
        let by_reads = joined && kind == CmdKind::Read;
        let window = self.cfg.gc.moves_in_flight;
        let mut cached = false;
        while (if by_reads {
            self.gc[u].reading
        } else {
            self.gc[u].pending
        }) < window
            && self.gc[u].cursor < ppb
        {
            let ppn = self.gc[u].victim * ppb + self.gc[u].cursor;
            self.gc[u].cursor += 1;
            if let Some(lpn) = self.ftl.owner(ppn) {
                self.ftl.prefetch(lpn);
                let t = self.new_txn(kind, Origin::Gc, plane, lpn, ppn);
                self.gc[u].pending += 1;
                if kind == CmdKind::Read {
                    self.gc[u].reading += 1;
                    self.enqueue(plane, Class::Gc, t);
                } else if joined {
                    self.txns[t as usize].home = plane;
                    self.para_pool[self.ftl.map.die_of_plane(plane) as usize].push(t);
                    cached = true;
                } else {
                    self.enqueue(plane, Class::Gc, t);
                }
            }
        }
        if cached {
            self.para_flush(self.ftl.map.die_of_plane(plane));
        }
        self.try_erase(u);
    }

    pub(crate) fn gc_progress(&mut self, u: usize) {
        self.gc[u].pending -= 1;
        self.gc_refill(u);
    }

    pub(crate) fn try_erase(&mut self, u: usize) {
        let g = self.gc[u];
        if g.victim == INVALID || g.cursor < self.victim_pages() || g.pending > 0 || g.erase_queued
        {
            return;
        }
        let ppb = self.ftl.pages_per_block();
        if self.groups {
            let blocks: Vec<u32> = self.ftl.group_blocks(g.victim).collect();
            if blocks.iter().any(|&b| self.ftl.pins(b) > 0) {
                return;
            }
            self.gc[u].erase_queued = true;
            self.gc[u].erases_left = blocks.len() as u32;
            // One erase per plane, same block index: one multi-plane erase.
            for b in blocks {
                let plane = b / self.ftl.blocks_per_plane();
                let t = self.new_txn(CmdKind::Erase, Origin::Gc, plane, INVALID, b * ppb);
                self.enqueue(plane, Class::Gc, t);
            }
            return;
        }
        if self.ftl.pins(g.victim) > 0 {
            return;
        }
        self.gc[u].erase_queued = true;
        let plane = u as u32;
        let t = self.new_txn(CmdKind::Erase, Origin::Gc, plane, INVALID, g.victim * ppb);
        self.enqueue(plane, Class::Gc, t);
    }

    /// Drop GC migrations at the head of a plane's GC queue whose page the
    /// host has rewritten meanwhile; convert copybacks the odd/even rule
    /// forbids into migrations through the controller.
    pub(crate) fn clean_gc_head(&mut self, plane: u32) {
        // FAST merges program what they read (stale pages too).
        if self.fast {
            return;
        }
        while let Some(t) = self.queues.head(plane, Class::Gc) {
            let tx = self.txns[t as usize];
            // Erases, padding and host pages of a Die-Write stay; so do
            // moves that are part of a Die-Write (programmed stale).
            if tx.kind == CmdKind::Erase
                || tx.src == INVALID
                || tx.origin == Origin::Host
                || (self.die_write && tx.kind == CmdKind::Program)
            {
                return;
            }
            if self.ftl.owner(tx.src) != Some(tx.lpn) {
                self.queues.pop(plane, Class::Gc);
                self.metrics.gc.moves_dropped += 1;
                self.free_txn(t);
                let u = self.move_unit(&tx);
                if tx.kind == CmdKind::Read {
                    self.gc[u].reading -= 1;
                }
                if tx.home != INVALID {
                    self.para_placed_done(tx.home, plane);
                } else {
                    self.gc_progress(u);
                }
                continue;
            }
            if tx.kind == CmdKind::Copyback && self.cfg.flash.copyback_odd_even {
                if let Some((_, dst_page)) = self.ftl.peek_write(plane, self.writer(t)) {
                    if dst_page % 2 != self.ftl.map.page_of(tx.src) % 2 {
                        self.txns[t as usize].kind = CmdKind::Read;
                        let u = self.move_unit(&tx);
                        self.gc[u].reading += 1;
                        self.metrics.gc.copyback_fallbacks += 1;
                    }
                }
            }
            return;
        }
    }

    /// GC unit a page move belongs to (a joined move may be placed on a
    /// sibling plane of its own).
    #[inline]
    pub(crate) fn move_unit(&self, tx: &Txn) -> usize {
        if tx.home != INVALID {
            tx.home as usize
        } else {
            self.gc_unit(tx.plane)
        }
    }

    /// A read of `src` finished: unpin it; if a GC waits to erase its block,
    /// the erase may go now.
    pub(crate) fn read_unpin(&mut self, src: Ppn) {
        if self.ftl.unpin(src) == 0 {
            let gb = self.ftl.map.gblock_of(src);
            let u = self.gc_unit(self.ftl.map.plane_of(src));
            if self.fast {
                if self.gc[u].victim != INVALID {
                    self.merge_erase(u);
                }
                return;
            }
            let v = if self.groups {
                self.ftl.group_of(gb)
            } else {
                gb
            };
            if self.gc[u].victim == v {
                self.try_erase(u);
            }
        }
    }
}
