//! Page-level FTL state: logical-to-physical map and its reverse, block and
//! plane bookkeeping, page allocation, victim selection and preconditioning.
//!
//! The FTL never computes time. It is told to write a page (host, GC or
//! preconditioning: the same path), to invalidate one, to pick a victim and
//! to erase a block, and it keeps its state consistent; the simulator decides
//! when each of these happens.
//!
//! Memory: per physical page only the reverse map (4 bytes); per logical page
//! the forward map (4 bytes); per block a few counters. Version numbers for
//! the consistency checker are kept only when checking is on.

pub mod alloc;
pub mod bad;
mod blocks;
pub mod check;
pub mod commit;
pub(crate) mod dest;
pub mod groups;
pub mod hot;
pub(crate) mod lanes;
pub(crate) mod levelling;
pub mod mapping;
mod maps;
mod pagemap;
pub(crate) mod pagetype;
pub mod precondition;
mod request;
pub mod twoplane;
pub mod wear;
mod writepoint;
pub(crate) use pagemap::{encode, PageMap};
#[cfg(test)]
mod tests;

pub use precondition::PreconditionReport;

use std::collections::VecDeque;

use rand_xoshiro::Xoshiro256PlusPlus;

use crate::addr::{AddrMap, BlockId, DieId, Lpn, PlaneId, Ppn, INVALID};
use crate::config::{BlockGroups, Config, PlaneAllocation, WriteUnit};
use crate::domain::Domains;
use crate::engine::Time;
use crate::ftl::mapping::fast::Fast;
use alloc::static_table;
use lanes::TypePools;

pub use crate::types::{Place, Writer};
use alloc::Allocation;
pub use blocks::BlockState;
use blocks::Blocks;
use maps::Maps;
pub use maps::Versions;
use writepoint::WritePoints;

/// The FTL: its state is four components — the maps, the blocks, the
/// write points and allocation — beside the geometry, the GC units'
/// domains and FAST's hybrid map; its methods (this file and the others of
/// `ftl/`) are the one interface the rest of the simulator uses.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Ftl {
    pub map: AddrMap,
    planes: u32,
    ppb: u32,
    bpp: u32,
    ppd: u32,
    pub logical_pages: u64,
    /// The GC units' domains: planes, or with aligned block groups
    /// (`ftl.block_groups = "die"`) dies, whose planes open blocks of the
    /// same index in the same order (victims and erases are whole groups,
    /// ids `die * blocks_per_plane + g`), or DVPFTL's virtual flash chips.
    domains: Domains,
    /// Die-Writes keep the write points of a die's planes aligned
    /// (`ftl.write_unit = "die"`); preconditioning pads to keep it so.
    aligned: bool,
    /// A die's GC moves pages by copyback within their planes (aligned
    /// block groups under `gc.migration = "copyback"`): its write points
    /// are apart while it collects.
    group_copy: bool,
    /// Forward and reverse maps, and the checker's versions.
    maps: Maps,
    /// Per-block state, per-plane valid pages and wear, the victim index.
    blocks: Blocks,
    /// Active blocks per plane and write stream, and their cursors.
    points: WritePoints,
    /// Free blocks, the GC reserve and threshold, plane choice.
    alloc: Allocation,
    /// FAST hybrid mapping (`ftl.mapping = "fast"` or `"vfc"`): data and
    /// log units.
    fast: Option<Fast>,
    /// `gc.twin_victim`: a group victim is chosen by the valid pages of its
    /// block in the plane that needs GC only.
    twin_victim: bool,
    /// Bad blocks (`flash.bad_blocks`, `bad.rs`), or None. A saved drive
    /// state carries it after the FTL, and only when on (`sim/state.rs`),
    /// so states of drives without bad blocks keep their format.
    #[serde(skip)]
    bad: Option<Box<bad::BadBlocks>>,
    /// Wear levelling (`levelling.rs`), when on. Rebuilt from the
    /// configuration, not part of a saved drive state.
    #[serde(skip)]
    levelling: Option<levelling::Levelling>,
    /// Flows' partitions (`alloc.rs`'s `Homes`): each logical page's
    /// planes. Rebuilt from the configuration, not part of a saved drive
    /// state (whose keys name the partitions).
    #[serde(skip)]
    homes: Option<Box<alloc::Homes>>,
}

impl Ftl {
    /// The FTL of `cfg`'s drive over its GC units' `domains`; `check`:
    /// keep the versions the consistency checker compares.
    pub fn new(cfg: &Config, domains: &Domains, check: bool) -> Self {
        let g = &cfg.geometry;
        let planes = cfg.total_planes();
        let ppb = g.pages_per_block;
        let bpp = g.blocks_per_plane;
        let map = AddrMap::new(
            ppb,
            bpp,
            g.planes_per_die,
            g.dies_per_chip,
            g.chips_per_channel,
        );
        let phys = cfg.physical_pages() as usize;
        let logical = cfg.logical_pages();
        // DFTL's translation pages are logical pages after the host's.
        let mapped = logical + cfg.translation_pages();
        let ppd = g.planes_per_die;
        let mut ftl = Ftl {
            map,
            planes,
            ppb,
            bpp,
            ppd,
            logical_pages: logical,
            domains: domains.clone(),
            aligned: cfg.ftl.write_unit != WriteUnit::Page,
            group_copy: domains.is_die()
                && !cfg.ftl.mapping.hybrid()
                && cfg.gc.migration == crate::config::Migration::Copyback,
            twin_victim: cfg.gc.twin_victim,
            maps: Maps::new(mapped as usize, phys, check),
            blocks: Blocks::new(cfg, domains),
            points: WritePoints::new(cfg, domains),
            alloc: Allocation::new(cfg, domains),
            fast: cfg
                .ftl
                .mapping
                .hybrid()
                .then(|| Fast::new(cfg, domains, static_table(cfg))),
            bad: None,
            levelling: None,
            homes: None,
        };
        ftl.homes_restart(cfg);
        ftl.install_bad_blocks(cfg);
        ftl.levelling_restart(cfg);
        ftl
    }

    pub fn planes(&self) -> u32 {
        self.planes
    }

    pub fn pages_per_block(&self) -> u32 {
        self.ppb
    }

    pub fn blocks_per_plane(&self) -> u32 {
        self.bpp
    }

    /// Start fetching the forward-map entry of `lpn` into the cache: the
    /// map is large and read at random, so callers that know an LPN ahead of
    /// its lookup (the next trace record, an evicted page, a GC move) hide
    /// the memory latency. Has no effect on results.
    #[inline]
    pub fn prefetch(&self, lpn: Lpn) {
        if let Some(entry) = self.maps.l2p.slot(lpn as usize) {
            prefetch(entry);
        }
    }

    #[inline]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        let p = self.maps.l2p.get(lpn as usize);
        (p != INVALID).then_some(p)
    }

    /// LPN stored in a physical page, if the page is valid.
    #[inline]
    pub fn owner(&self, ppn: Ppn) -> Option<Lpn> {
        let l = self.maps.p2l.get(ppn as usize);
        (l != INVALID).then_some(l)
    }

    #[inline]
    pub fn valid_count(&self, gb: BlockId) -> u32 {
        let gb = gb.0;
        self.blocks.valid[gb as usize] as u32
    }

    pub fn block_state(&self, gb: BlockId) -> BlockState {
        let gb = gb.0;
        self.blocks.state[gb as usize]
    }

    pub fn erase_counts(&self) -> &[u32] {
        &self.blocks.erase_count
    }

    /// Erases summed per plane and their spread (Δe).
    pub fn wear(&self) -> &wear::Wear {
        &self.blocks.wear
    }

    /// Are blocks allocated, collected and erased in aligned groups per die?
    pub fn groups(&self) -> bool {
        self.domains.is_die()
    }

    /// The GC units' domains.
    pub fn domains(&self) -> &Domains {
        &self.domains
    }

    /// May only programs of one write stream share a multi-plane command?
    /// So when sibling planes open blocks in one order per stream (aligned
    /// block groups, or `ftl.align_block_index`): one plane's opening
    /// decides where the next one's goes, and only programs of one stream
    /// can share the block index their addresses show.
    pub fn one_stream_per_command(&self) -> bool {
        self.domains.is_die() || self.alloc.align_open
    }

    /// Valid pages held by a plane.
    pub fn plane_valid(&self, plane: PlaneId) -> u32 {
        self.blocks.plane_valid[plane.index()]
    }

    /// Free pages of a plane: free blocks plus the rest of its active blocks.
    #[inline]
    pub fn free_pages(&self, plane: PlaneId) -> u64 {
        if self.points.pools.is_some() {
            return self.pools_free_pages(plane);
        }
        let free = if self.domains.is_die() {
            let first = (plane.0 * self.points.streams) as usize;
            let reserved: usize = self.points.reserved[first..first + self.points.streams as usize]
                .iter()
                .map(|r| r.len())
                .sum();
            (self.alloc.free[(plane.0 / self.ppd) as usize].len() + reserved) as u64
                * self.ppb as u64
        } else {
            self.alloc.free[plane.index()].len() as u64 * self.ppb as u64
        };
        if self.points.streams == 1 {
            let a = self.points.active[plane.index()];
            return free
                + if a == INVALID {
                    0
                } else {
                    (self.ppb - self.blocks.wp[a as usize] as u32) as u64
                };
        }
        let first = (plane.0 * self.points.streams) as usize;
        let rest: u64 = self.points.active[first..first + self.points.streams as usize]
            .iter()
            .filter(|&&a| a != INVALID)
            .map(|&a| (self.ppb - self.blocks.wp[a as usize] as u32) as u64)
            .sum();
        free + rest
    }

    /// Free pages of a plane that writer `w` may take (group mode): free
    /// groups, groups its stream has reserved and the rest of its active block.
    pub fn free_pages_for(&self, plane: PlaneId, w: Writer) -> u64 {
        if self.points.pools.is_some() {
            return self.pools_free_pages(plane);
        }
        let s = self.points.stream(plane, w);
        let mut blocks = self.alloc.free[self.free_list(plane)].len();
        if self.domains.is_die() {
            blocks += self.points.reserved[s].len();
        }
        let a = self.points.active[s];
        let rest = if a == INVALID {
            0
        } else {
            (self.ppb - self.blocks.wp[a as usize] as u32) as u64
        };
        blocks as u64 * self.ppb as u64 + rest
    }

    /// Free pages a GC in `plane` can count on: free blocks (groups), and
    /// what the streams GC writes to have reserved or left in their active
    /// blocks. With two GC streams one block is discounted: the moves may
    /// split so that one stream opens a block it leaves partly unused.
    pub fn gc_free_pages(&self, plane: PlaneId) -> u64 {
        let cold = self.free_pages_for(plane, Writer::GC);
        if self.alloc.reserve_blocks < 2 {
            return cold;
        }
        let shared = self.alloc.free[self.free_list(plane)].len() as u64 * self.ppb as u64;
        let hot = self.free_pages_for(plane, Writer::Gc { hot: true });
        (cold + hot - shared).saturating_sub(self.ppb as u64)
    }

    /// Should `plane` collect garbage? Below the threshold; in group mode
    /// also when only the GC's reserve group is left (free pages reserved
    /// for another write stream may keep a plane above the threshold while
    /// this one cannot open a block).
    #[inline]
    pub fn needs_gc(&self, plane: PlaneId) -> bool {
        if self.fast.is_some() {
            return self.fast_merge_due(plane);
        }
        self.free_pages(plane) < self.alloc.threshold_pages
            || (self.domains.is_die()
                && self.alloc.free[self.free_list(plane)].len() <= self.alloc.reserve_blocks)
    }

    /// Does some closed block of `plane` hold an invalid page, so that a
    /// GC there may gain space? Judged from the plane's totals: more
    /// invalid pages than its active blocks could hold.
    pub fn reclaimable(&self, plane: PlaneId) -> bool {
        let pages = self.ppb as u64 * (self.bpp - self.unusable_blocks(plane)) as u64;
        let written = pages.saturating_sub(self.free_pages(plane));
        let invalid = written.saturating_sub(self.plane_valid(plane) as u64);
        invalid > self.points.streams as u64 * self.ppb as u64
    }

    /// Program the next page of `plane` with `lpn` (INVALID: a page whose data
    /// is already stale, programmed but not mapped). Updates both maps,
    /// invalidates the LPN's previous page, closes the block when full.
    /// Returns None when the plane has no page this writer may use.
    pub fn write(
        &mut self,
        plane: PlaneId,
        lpn: Lpn,
        version: u32,
        w: Writer,
        now: Time,
    ) -> Option<Ppn> {
        self.write_placed(plane, lpn, version, w, now, Place::Next)
    }

    /// [`write`](Self::write) placed by `place` within the active block
    /// (relaxed program order: a page of a wanted type).
    pub fn write_placed(
        &mut self,
        plane: PlaneId,
        lpn: Lpn,
        version: u32,
        w: Writer,
        now: Time,
        place: Place,
    ) -> Option<Ppn> {
        let old = if lpn == INVALID {
            INVALID
        } else {
            self.maps.l2p.get(lpn as usize)
        };
        self.write_replacing(plane, lpn, old, version, w, now, place)
    }

    /// [`write`](Self::write) when the LPN's current page `old` is known
    /// (INVALID: none), sparing a random read of the forward map.
    /// `place`: which free page of the active block (`Place::Parity`: the
    /// caller checked there is one of that parity).
    #[allow(clippy::too_many_arguments)]
    fn write_replacing(
        &mut self,
        plane: PlaneId,
        lpn: Lpn,
        old: Ppn,
        version: u32,
        w: Writer,
        now: Time,
        place: Place,
    ) -> Option<Ppn> {
        if self.points.pools.is_some() {
            let gc = matches!(w, Writer::Gc { .. });
            return self.pools_write(plane, lpn, old, version, gc, now, place);
        }
        self.peek_write_committed(plane, w)?;
        let p = plane.index();
        let s = self.points.stream(plane, w);
        let mut a = self.points.active[s];
        if a == INVALID || self.blocks.wp[a as usize] as u32 >= self.ppb {
            a = self.open_block(plane, s, w);
        }
        let page = if let Some(l) = &mut self.blocks.lanes {
            let want = match place {
                Place::Lane(t) => Some(t),
                Place::Next | Place::Parity(_) => None,
            };
            let page = l
                .choose(a, want)
                .expect("a block with free pages has a candidate");
            l.take(a, page);
            page
        } else {
            match (&mut self.blocks.parity, place) {
                (None, _) => self.blocks.wp[a as usize] as u32,
                (Some(n), Place::Parity(p)) => take_page(&mut n[a as usize], Some(p)),
                (Some(n), _) => take_page(&mut n[a as usize], None),
            }
        };
        self.blocks.wp[a as usize] += 1;
        let ppn = a * self.ppb + page;
        if lpn != INVALID {
            if old != INVALID {
                if self.levelling_on() && matches!(w, Writer::Gc { .. }) {
                    self.levelling_moved(old);
                }
                self.invalidate(old);
            }
            // A page is programmed once between erases. In index order the
            // write point makes that so (it only grows, and only an erase
            // resets it), and checking would read the reverse map's entry
            // just before writing it: a cache miss the store alone does not
            // wait for (+3 to 5 % of case b's run). Out of index order
            // (relaxed order, parity destinations) it stays a release check.
            if self.blocks.lanes.is_some() || self.blocks.parity.is_some() {
                assert_eq!(
                    self.maps.p2l.get(ppn as usize),
                    INVALID,
                    "programming ppn {ppn}, which holds data"
                );
            } else {
                debug_assert_eq!(
                    self.maps.p2l.get(ppn as usize),
                    INVALID,
                    "programming ppn {ppn}, which holds data"
                );
            }
            self.maps.l2p.set(lpn as usize, ppn);
            self.maps.p2l.set(ppn as usize, lpn);
            self.blocks.valid[a as usize] += 1;
            self.blocks.plane_valid[p] += 1;
            if let Some(v) = &mut self.maps.versions {
                v.page[ppn as usize] = version;
            }
        }
        if self.blocks.wp[a as usize] as u32 == self.ppb {
            self.blocks.state[a as usize] = BlockState::Closed;
            self.set_active(s, INVALID);
            self.close(a, now);
        } else if self.blocks.lanes.is_none() && self.blocks.parity.is_none() {
            // In index order the block's next page is its write pointer
            // (`cursor_of`, known here).
            self.points.cursor[s] = (self.map.block_index(BlockId(a)), page + 1);
        } else {
            self.refresh_cursor(s);
        }
        Some(ppn)
    }

    /// A block was closed: it (or, in group mode, its group once all of its
    /// blocks are closed) becomes a victim candidate.
    fn close(&mut self, gb: u32, now: Time) {
        if self.domains.is_die() {
            let g = self.group_of(BlockId(gb));
            self.blocks.group_closed[g as usize] += 1;
            if self.blocks.group_closed[g as usize] as u32 == self.ppd && self.fast.is_none() {
                self.blocks.victims.insert(g, self.group_valid(g), now);
            }
        } else if self.fast.is_none() {
            self.blocks
                .victims
                .insert(gb, self.blocks.valid[gb as usize] as u32, now);
        }
    }

    /// Mark a physical page invalid (its LPN was rewritten or trimmed).
    #[inline]
    pub fn invalidate(&mut self, ppn: Ppn) {
        let gb = self.map.gblock_of(ppn).0;
        self.maps.p2l.set(ppn as usize, INVALID);
        // Release assertions (as the rest of this kind): a count that went
        // below zero would wrap and corrupt every figure after it.
        let valid = &mut self.blocks.valid[gb as usize];
        assert!(
            *valid > 0,
            "invalidating a page of a block without valid pages"
        );
        *valid -= 1;
        let plane_valid =
            &mut self.blocks.plane_valid[self.map.plane_of_block(BlockId(gb)).index()];
        assert!(
            *plane_valid > 0,
            "invalidating a page of a plane without valid pages"
        );
        *plane_valid -= 1;
        if self.blocks.state[gb as usize] == BlockState::Closed && self.fast.is_none() {
            if self.domains.is_die() {
                let g = self.group_of(BlockId(gb));
                if self.blocks.group_closed[g as usize] as u32 == self.ppd {
                    self.blocks.victims.update(g, self.group_valid(g));
                }
            } else {
                self.blocks
                    .victims
                    .update(gb, self.blocks.valid[gb as usize] as u32);
            }
        }
    }

    /// Move the data of `src` (which must still be valid) to a new page of
    /// `plane`. Returns the destination, or None if the plane is full.
    pub fn relocate(&mut self, src: Ppn, plane: PlaneId, now: Time) -> Option<Ppn> {
        self.relocate_as(src, plane, Writer::GC, now)
    }

    /// [`relocate`](Self::relocate) into `w`'s write stream (a Die-Write
    /// mixing GC moves and host pages writes all of them to one stream).
    #[inline]
    pub fn relocate_as(&mut self, src: Ppn, plane: PlaneId, w: Writer, now: Time) -> Option<Ppn> {
        let lpn = self.maps.p2l.get(src as usize);
        assert_ne!(lpn, INVALID);
        let version = self
            .maps
            .versions
            .as_ref()
            .map_or(0, |v| v.page[src as usize]);
        self.write_replacing(plane, lpn, src, version, w, now, Place::Next)
    }

    /// [`relocate_as`](Self::relocate_as) placed by `place`: a page of a
    /// wanted type (relaxed program order), or with
    /// `gc.parity_destinations` a page of the source's parity (None if the
    /// active block has no free page of that parity).
    #[inline(always)]
    pub fn relocate_placed(
        &mut self,
        src: Ppn,
        plane: PlaneId,
        w: Writer,
        now: Time,
        place: Place,
    ) -> Option<Ppn> {
        if let Place::Parity(parity) = place {
            return self.relocate_parity(src, plane, w, now, parity);
        }
        let lpn = self.maps.p2l.get(src as usize);
        assert_ne!(lpn, INVALID);
        let version = self
            .maps
            .versions
            .as_ref()
            .map_or(0, |v| v.page[src as usize]);
        self.write_replacing(plane, lpn, src, version, w, now, place)
    }

    #[inline(never)]
    fn relocate_parity(
        &mut self,
        src: Ppn,
        plane: PlaneId,
        w: Writer,
        now: Time,
        parity: u32,
    ) -> Option<Ppn> {
        self.peek_write_parity(plane, w, parity)?;
        let lpn = self.maps.p2l.get(src as usize);
        assert_ne!(lpn, INVALID);
        let version = self
            .maps
            .versions
            .as_ref()
            .map_or(0, |v| v.page[src as usize]);
        self.write_replacing(plane, lpn, src, version, w, now, Place::Parity(parity))
    }

    /// Choose a GC victim in `plane`; it leaves the victim index. Group
    /// mode: a group of the plane's die (its id; all its blocks become
    /// victims).
    pub fn pick_victim(
        &mut self,
        plane: PlaneId,
        now: Time,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Option<u32> {
        if self.fast.is_some() {
            return self.fast_pick(plane);
        }
        if self.domains.is_die() {
            let die = DieId(plane.0 / self.ppd);
            let (valid, bpp, ppd) = (&self.blocks.valid, self.bpp, self.ppd);
            let g = if self.twin_victim {
                // Greedy in this plane: the closed group whose block here
                // has the fewest valid pages (the lowest index on a tie).
                let mut best: Option<(u16, u32)> = None;
                for i in 0..bpp {
                    let g = die.0 * bpp + i;
                    if self.blocks.group_closed[g as usize] as u32 != ppd {
                        continue;
                    }
                    let v = valid[(plane.0 * bpp + i) as usize];
                    if best.is_none_or(|(bv, _)| v < bv) {
                        best = Some((v, g));
                    }
                }
                let g = best?.1;
                self.blocks.victims.remove(g);
                g
            } else {
                self.blocks.victims.pick(die.0, now, rng, |id| {
                    let (d, i) = (id / bpp, id % bpp);
                    (d * ppd..(d + 1) * ppd)
                        .map(|p| valid[(p * bpp + i) as usize] as u32)
                        .sum()
                })?
            };
            self.blocks.group_closed[g as usize] = 0;
            for b in self.group_blocks(g).collect::<Vec<_>>() {
                assert_eq!(self.blocks.state[b.index()], BlockState::Closed);
                self.blocks.state[b.index()] = BlockState::Victim;
            }
            return Some(g);
        }
        if self.levelling_on() {
            if let Some(gb) = self.levelling_victim(plane) {
                return Some(gb);
            }
        }
        let valid = &self.blocks.valid;
        let gb = self
            .blocks
            .victims
            .pick(plane.0, now, rng, |b| valid[b as usize] as u32)?;
        assert_eq!(
            self.blocks.state[gb as usize],
            BlockState::Closed,
            "victim block {gb} is not closed"
        );
        self.blocks.state[gb as usize] = BlockState::Victim;
        Some(gb)
    }

    /// Valid pages of a block, as (ppn, lpn).
    pub fn valid_pages(&self, gb: BlockId) -> impl Iterator<Item = (Ppn, Lpn)> + '_ {
        let gb = gb.0;
        let first = gb * self.ppb;
        (first..first + self.ppb).filter_map(|p| self.owner(p).map(|l| (p, l)))
    }

    /// Erase a victim block (no valid pages left) and return it to the free
    /// list, unless it retires (bad blocks: `bad.rs`).
    pub fn erase(&mut self, gb: BlockId) {
        let gb = gb.0;
        assert_eq!(
            self.blocks.valid[gb as usize], 0,
            "erasing a block with valid data"
        );
        assert_eq!(self.blocks.state[gb as usize], BlockState::Victim);
        assert_eq!(
            self.blocks.pins[gb as usize], 0,
            "erasing a block a read is using"
        );
        self.blocks.wp[gb as usize] = 0;
        if let Some(n) = &mut self.blocks.parity {
            n[gb as usize] = [0, 1];
        }
        if let Some(l) = &mut self.blocks.lanes {
            l.reset(gb);
        }
        self.blocks.erase_count[gb as usize] += 1;
        self.blocks
            .wear
            .erased(self.map.plane_of_block(BlockId(gb)));
        // A grown bad block (`bad.rs`) leaves its plane here.
        if self.bad.is_some() && self.retires(gb, self.blocks.erase_count[gb as usize]) {
            return;
        }
        if self.levelling_on() {
            self.levelling_erased(gb);
        }
        self.blocks.state[gb as usize] = BlockState::Free;
        if self.domains.is_die() {
            // The group is free once all its blocks are.
            let g = self.group_of(BlockId(gb));
            if self
                .group_blocks(g)
                .all(|b| self.blocks.state[b.index()] == BlockState::Free)
            {
                self.alloc.free[(g / self.bpp) as usize].push_back(g % self.bpp);
            }
        } else {
            self.free_block(gb);
        }
    }

    /// Trim `lpn`: its page, if it has one, becomes invalid and the LPN
    /// unmapped (as never written, also for the consistency checker's
    /// versions). Returns whether it had a page.
    pub fn trim(&mut self, lpn: Lpn) -> bool {
        if let Some(v) = &mut self.maps.versions {
            v.latest[lpn as usize] = 0;
        }
        let Some(ppn) = self.lookup(lpn) else {
            return false;
        };
        self.invalidate(ppn);
        self.maps.l2p.set(lpn as usize, INVALID);
        true
    }

    /// The version the next host write of `lpn` gets (the consistency
    /// checker's; 0 with the checker off).
    #[inline]
    pub fn version_after(&self, lpn: Lpn) -> u32 {
        self.maps
            .versions
            .as_ref()
            .map_or(0, |v| v.latest[lpn as usize] + 1)
    }

    /// A host write of `lpn` takes its next version (0 with the checker
    /// off).
    #[inline]
    pub fn next_version(&mut self, lpn: Lpn) -> u32 {
        match &mut self.maps.versions {
            Some(v) => {
                v.latest[lpn as usize] += 1;
                v.latest[lpn as usize]
            }
            None => 0,
        }
    }

    /// Pin a block against erasure while a read of it is outstanding.
    #[inline]
    pub fn pin(&mut self, ppn: Ppn) {
        self.blocks.pins[self.map.gblock_of(ppn).index()] += 1;
    }

    /// Unpin; returns the block's remaining pins.
    #[inline]
    pub fn unpin(&mut self, ppn: Ppn) -> u32 {
        let gb = self.map.gblock_of(ppn).index();
        assert!(self.blocks.pins[gb] > 0, "unpinning a block not pinned");
        self.blocks.pins[gb] -= 1;
        self.blocks.pins[gb] as u32
    }

    pub fn pins(&self, gb: BlockId) -> u32 {
        let gb = gb.0;
        self.blocks.pins[gb as usize] as u32
    }
}

#[inline(always)]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it never faults and reads nothing
    // into the program, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// What parity destinations (`gc.parity_destinations`) require: copybacks
/// under the odd/even rule, into per-plane blocks written page by page.
pub(crate) fn parity_requirements(c: &Config) -> crate::config::Requirement {
    use crate::config::Migration;
    if !c.gc.parity_destinations {
        return Ok(());
    }
    let why = if !c.flash.copyback_odd_even {
        "flash.copyback_odd_even (without the odd/even rule any free page will do)"
    } else if c.gc.migration != Migration::Copyback {
        "gc.migration = \"copyback\" (the mapping chooses copyback destinations)"
    } else if c.ftl.block_groups == BlockGroups::Die {
        "per-plane blocks (aligned block groups keep the planes' pages in step)"
    } else if c.ftl.mapping.hybrid() {
        "page or DFTL mapping (a hybrid map's blocks are programmed at their offsets)"
    } else if c.gc.join_align {
        "gc.join_align off (ParaGC aligns write points page by page)"
    } else {
        return Ok(());
    };
    Err((
        "gc.parity_destinations",
        format!("maps copybacks to free pages of their own parity: needs {why}"),
    ))
}

/// Take the next page of a block under `gc.parity_destinations` (`next`: its
/// lowest free page of each parity): of that parity, or the lowest.
#[inline(never)]
fn take_page(next: &mut [u16; 2], parity: Option<u32>) -> u32 {
    let p = match parity {
        Some(p) => p as usize,
        None => (next[1] < next[0]) as usize,
    };
    let page = next[p] as u32;
    next[p] += 2;
    page
}
