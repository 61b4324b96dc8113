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
pub mod check;
pub mod commit;
pub(crate) mod dest;
pub mod groups;
pub mod hot;
pub(crate) mod lanes;
pub mod mapping;
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
use crate::config::{BlockGroups, Config, PlaneAllocation, ProgramOrder, WriteUnit};
use crate::domain::Domains;
use crate::engine::Time;
use crate::ftl::mapping::fast::Fast;
use crate::gc::victim::VictimIndex;
use alloc::static_table;
use lanes::{Lanes, TypePools};

pub use crate::types::{Place, Writer};

/// Lifecycle of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockState {
    Free = 0,
    Active = 1,
    Closed = 2,
    /// Chosen by GC; being emptied, then erased.
    Victim = 3,
    /// FAST: a data unit's block (block-mapped: a logical page at its fixed
    /// offset), or one a merge is writing. Its write pointer is the highest
    /// offset written; the pages skipped stay unwritten until it is erased.
    Data = 4,
}

/// Data versions for the consistency checker: every host write of an LPN
/// gets the next version number, and the page that holds it carries it.
pub struct Versions {
    /// Latest version the host wrote per LPN (0 = only preconditioned data).
    pub latest: Vec<u32>,
    /// Version stored in each physical page.
    pub page: Vec<u32>,
}

pub struct Ftl {
    pub map: AddrMap,
    planes: u32,
    ppb: u32,
    bpp: u32,
    pub logical_pages: u64,
    l2p: PageMap,
    p2l: PageMap,
    valid: Vec<u16>,
    /// Pages programmed per block; in index order (`parity` off) also the
    /// next page to program.
    wp: Vec<u16>,
    /// `gc.parity_destinations`: per block, the lowest free page of each
    /// parity (even, odd). A copyback of an odd (even) page takes the
    /// lowest free odd (even) page, any other write the lowest free page,
    /// so a block may be programmed out of index order; the free pages of
    /// each parity stay a suffix of that parity's pages.
    parity: Option<Vec<[u16; 2]>>,
    /// `ftl.program_order = "relaxed"`: per block, one lane per page type,
    /// each in wordline order, gated by the lane below (`lanes.rs`).
    lanes: Option<Lanes>,
    /// `ftl.type_pools`: PA-SSD's pools and three active blocks per plane.
    pools: Option<TypePools>,
    state: Vec<BlockState>,
    pins: Vec<u16>,
    erase_count: Vec<u32>,
    /// Erases summed per plane, and their spread.
    wear: wear::Wear,
    /// Active block per plane and write stream (global id) or INVALID:
    /// `active[plane * streams + stream]`.
    active: Vec<u32>,
    /// Write streams (active blocks) per plane: 1, or 2 with hot/cold
    /// separation (stream 0 hot, stream 1 cold and GC).
    streams: u32,
    /// Per entry of `active`: the in-plane (block, page) its next write
    /// takes (`Place::Next`) while the active block has a free page, else
    /// `(INVALID, INVALID)` (and always that with type pools). The command
    /// builder asks where each queue head would be written several times
    /// per dispatch; this is the answer kept, refreshed wherever `active`,
    /// a write pointer, a lane or a parity pointer of an active block
    /// changes ([`refresh_cursor`](Self::refresh_cursor)).
    cursor: Vec<(u32, u32)>,
    /// Free blocks: per plane (global block ids), or with aligned block
    /// groups per die (group indices: block `g` of every plane of the die).
    free: Vec<VecDeque<u32>>,
    /// The GC units' domains: planes, or with aligned block groups
    /// (`ftl.block_groups = "die"`) dies, whose planes open blocks of the
    /// same index in the same order (victims and erases are whole groups,
    /// ids `die * blocks_per_plane + g`), or DVPFTL's virtual flash chips.
    domains: Domains,
    /// Die-Writes keep the write points of a die's planes aligned
    /// (`ftl.write_unit = "die"`); preconditioning pads to keep it so.
    aligned: bool,
    ppd: u32,
    /// Per-plane blocks: open blocks at indices sibling planes use
    /// (`ftl.align_block_index`), within spans of this many planes (the
    /// planes that may pair: the die, or plane pairs).
    align_open: bool,
    align_span: u32,
    /// Group mode, per plane and stream: groups a sibling plane opened first,
    /// which this plane opens next, in order.
    reserved: Vec<VecDeque<u32>>,
    /// Group mode, per plane and stream: blocks opened so far.
    opened: Vec<u64>,
    /// Group mode, per group: blocks of it that are closed.
    group_closed: Vec<u8>,
    /// Die-round-robin allocation: the next plane (within the die) per die
    /// and write stream.
    die_rr: Vec<u32>,
    victims: VictimIndex,
    /// Static allocation: plane of `lpn % planes`.
    plane_of_residue: Vec<u32>,
    allocation: PlaneAllocation,
    rr_next: u32,
    threshold_pages: u64,
    /// Valid pages per plane, host pages assigned to a plane but not yet
    /// programmed, and the most dynamic allocation lets a plane hold.
    plane_valid: Vec<u32>,
    plane_pending: Vec<u32>,
    room_limit: u64,
    /// Free blocks a plane keeps for GC, one per write stream GC writes to
    /// (`Config::gc_write_streams`): host writes may not take them.
    reserve_blocks: usize,
    /// FAST hybrid mapping (`ftl.mapping = "fast"`): data and log units.
    fast: Option<Fast>,
    pub versions: Option<Versions>,
    /// APM or PaRP (`ftl.plane_allocation = "apm"` / `"parp"`).
    two_plane: Option<twoplane::TwoPlane>,
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
        let nblocks = (planes * bpp) as usize;
        let phys = cfg.physical_pages() as usize;
        let logical = cfg.logical_pages();
        // DFTL's translation pages are logical pages after the host's.
        let mapped = logical + cfg.translation_pages();
        let groups = domains.is_die();
        let ppd = g.planes_per_die;
        let dies = planes / ppd;
        let free = if groups {
            (0..dies)
                .map(|_| (0..bpp).collect::<VecDeque<u32>>())
                .collect()
        } else {
            (0..planes)
                .map(|p| (p * bpp..(p + 1) * bpp).collect::<VecDeque<u32>>())
                .collect()
        };
        let streams = cfg.write_streams();
        let victims = if groups {
            VictimIndex::new(cfg.gc.victim, cfg.gc.d, dies, bpp, ppb * ppd)
        } else {
            VictimIndex::new(cfg.gc.victim, cfg.gc.d, planes, bpp, ppb)
        };
        Ftl {
            map,
            planes,
            ppb,
            bpp,
            logical_pages: logical,
            l2p: PageMap::new_random_access(mapped as usize),
            p2l: PageMap::new(phys),
            valid: vec![0; nblocks],
            wp: vec![0; nblocks],
            parity: cfg.gc.parity_destinations.then(|| vec![[0, 1]; nblocks]),
            lanes: (cfg.ftl.program_order == ProgramOrder::Relaxed)
                .then(|| Lanes::new(cfg, nblocks)),
            pools: cfg.ftl.type_pools.then(|| TypePools::new(planes as usize)),
            state: vec![BlockState::Free; nblocks],
            pins: vec![0; nblocks],
            erase_count: vec![0; nblocks],
            wear: wear::Wear::new(planes as usize),
            active: vec![INVALID; (planes * cfg.write_streams()) as usize],
            streams,
            cursor: vec![(INVALID, INVALID); (planes * cfg.write_streams()) as usize],
            free,
            domains: domains.clone(),
            aligned: cfg.ftl.write_unit != WriteUnit::Page,
            ppd,
            align_open: cfg.ftl.align_block_index && !cfg.ftl.mapping.hybrid(),
            align_span: if cfg.flash.plane_pairs_only && ppd > 2 {
                2
            } else {
                ppd
            },
            reserved: if groups {
                (0..planes * streams).map(|_| VecDeque::new()).collect()
            } else {
                Vec::new()
            },
            opened: vec![
                0;
                if groups {
                    (planes * streams) as usize
                } else {
                    0
                }
            ],
            group_closed: vec![0; if groups { nblocks } else { 0 }],
            die_rr: vec![0; (dies * streams) as usize],
            victims,
            plane_of_residue: static_table(cfg),
            allocation: cfg.ftl.plane_allocation,
            rr_next: 0,
            threshold_pages: cfg.gc_threshold_pages(),
            plane_valid: vec![0; planes as usize],
            plane_pending: vec![0; planes as usize],
            room_limit: (ppb as u64 * bpp as u64)
                .saturating_sub(cfg.gc_threshold_pages() + 2 * ppb as u64),
            reserve_blocks: cfg.gc_write_streams() as usize,
            fast: cfg
                .ftl
                .mapping
                .hybrid()
                .then(|| Fast::new(cfg, domains, static_table(cfg))),
            versions: check.then(|| Versions {
                latest: vec![0; mapped as usize],
                page: vec![0; phys],
            }),
            two_plane: None,
        }
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
        if let Some(entry) = self.l2p.slot(lpn as usize) {
            prefetch(entry);
        }
    }

    #[inline]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        let p = self.l2p.get(lpn as usize);
        (p != INVALID).then_some(p)
    }

    /// LPN stored in a physical page, if the page is valid.
    #[inline]
    pub fn owner(&self, ppn: Ppn) -> Option<Lpn> {
        let l = self.p2l.get(ppn as usize);
        (l != INVALID).then_some(l)
    }

    #[inline]
    pub fn valid_count(&self, gb: BlockId) -> u32 {
        let gb = gb.0;
        self.valid[gb as usize] as u32
    }

    pub fn block_state(&self, gb: BlockId) -> BlockState {
        let gb = gb.0;
        self.state[gb as usize]
    }

    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_count
    }

    /// Erases summed per plane and their spread (Δe).
    pub fn wear(&self) -> &wear::Wear {
        &self.wear
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
        self.domains.is_die() || self.align_open
    }

    /// Valid pages held by a plane.
    pub fn plane_valid(&self, plane: PlaneId) -> u32 {
        self.plane_valid[plane.index()]
    }

    /// Index into `active` of a plane's stream for this writer.
    #[inline]
    fn stream(&self, plane: PlaneId, w: Writer) -> usize {
        if self.streams == 1 {
            return plane.index();
        }
        let s = match w {
            Writer::Host { hot: true } | Writer::Gc { hot: true } => 0,
            Writer::Host { hot: false } | Writer::Gc { hot: false } => self.streams - 1,
        };
        (plane.0 * self.streams + s) as usize
    }

    /// Free pages of a plane: free blocks plus the rest of its active blocks.
    #[inline]
    pub fn free_pages(&self, plane: PlaneId) -> u64 {
        if self.pools.is_some() {
            return self.pools_free_pages(plane);
        }
        let free = if self.domains.is_die() {
            let first = (plane.0 * self.streams) as usize;
            let reserved: usize = self.reserved[first..first + self.streams as usize]
                .iter()
                .map(|r| r.len())
                .sum();
            (self.free[(plane.0 / self.ppd) as usize].len() + reserved) as u64 * self.ppb as u64
        } else {
            self.free[plane.index()].len() as u64 * self.ppb as u64
        };
        if self.streams == 1 {
            let a = self.active[plane.index()];
            return free
                + if a == INVALID {
                    0
                } else {
                    (self.ppb - self.wp[a as usize] as u32) as u64
                };
        }
        let first = (plane.0 * self.streams) as usize;
        let rest: u64 = self.active[first..first + self.streams as usize]
            .iter()
            .filter(|&&a| a != INVALID)
            .map(|&a| (self.ppb - self.wp[a as usize] as u32) as u64)
            .sum();
        free + rest
    }

    /// Free pages of a plane that writer `w` may take (group mode): free
    /// groups, groups its stream has reserved and the rest of its active block.
    pub fn free_pages_for(&self, plane: PlaneId, w: Writer) -> u64 {
        if self.pools.is_some() {
            return self.pools_free_pages(plane);
        }
        let s = self.stream(plane, w);
        let mut blocks = self.free[self.free_list(plane)].len();
        if self.domains.is_die() {
            blocks += self.reserved[s].len();
        }
        let a = self.active[s];
        let rest = if a == INVALID {
            0
        } else {
            (self.ppb - self.wp[a as usize] as u32) as u64
        };
        blocks as u64 * self.ppb as u64 + rest
    }

    /// Free pages a GC in `plane` can count on: free blocks (groups), and
    /// what the streams GC writes to have reserved or left in their active
    /// blocks. With two GC streams one block is discounted: the moves may
    /// split so that one stream opens a block it leaves partly unused.
    pub fn gc_free_pages(&self, plane: PlaneId) -> u64 {
        let cold = self.free_pages_for(plane, Writer::GC);
        if self.reserve_blocks < 2 {
            return cold;
        }
        let shared = self.free[self.free_list(plane)].len() as u64 * self.ppb as u64;
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
        self.free_pages(plane) < self.threshold_pages
            || (self.domains.is_die()
                && self.free[self.free_list(plane)].len() <= self.reserve_blocks)
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
            self.l2p.get(lpn as usize)
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
        if self.pools.is_some() {
            let gc = matches!(w, Writer::Gc { .. });
            return self.pools_write(plane, lpn, old, version, gc, now, place);
        }
        self.peek_write_committed(plane, w)?;
        let p = plane.index();
        let s = self.stream(plane, w);
        let mut a = self.active[s];
        if a == INVALID || self.wp[a as usize] as u32 >= self.ppb {
            a = self.open_block(plane, s);
        }
        let page = if let Some(l) = &mut self.lanes {
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
            match (&mut self.parity, place) {
                (None, _) => self.wp[a as usize] as u32,
                (Some(n), Place::Parity(p)) => take_page(&mut n[a as usize], Some(p)),
                (Some(n), _) => take_page(&mut n[a as usize], None),
            }
        };
        self.wp[a as usize] += 1;
        let ppn = a * self.ppb + page;
        if lpn != INVALID {
            if old != INVALID {
                self.invalidate(old);
            }
            // A page is programmed once between erases. In index order the
            // write point makes that so (it only grows, and only an erase
            // resets it), and checking would read the reverse map's entry
            // just before writing it: a cache miss the store alone does not
            // wait for (+3 to 5 % of case b's run). Out of index order
            // (relaxed order, parity destinations) it stays a release check.
            if self.lanes.is_some() || self.parity.is_some() {
                assert_eq!(
                    self.p2l.get(ppn as usize),
                    INVALID,
                    "programming ppn {ppn}, which holds data"
                );
            } else {
                debug_assert_eq!(
                    self.p2l.get(ppn as usize),
                    INVALID,
                    "programming ppn {ppn}, which holds data"
                );
            }
            self.l2p.set(lpn as usize, ppn);
            self.p2l.set(ppn as usize, lpn);
            self.valid[a as usize] += 1;
            self.plane_valid[p] += 1;
            if let Some(v) = &mut self.versions {
                v.page[ppn as usize] = version;
            }
        }
        if self.wp[a as usize] as u32 == self.ppb {
            self.state[a as usize] = BlockState::Closed;
            self.set_active(s, INVALID);
            self.close(a, now);
        } else if self.lanes.is_none() && self.parity.is_none() {
            // In index order the block's next page is its write pointer
            // (`cursor_of`, known here).
            self.cursor[s] = (self.map.block_index(BlockId(a)), page + 1);
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
            self.group_closed[g as usize] += 1;
            if self.group_closed[g as usize] as u32 == self.ppd && self.fast.is_none() {
                self.victims.insert(g, self.group_valid(g), now);
            }
        } else if self.fast.is_none() {
            self.victims.insert(gb, self.valid[gb as usize] as u32, now);
        }
    }

    /// Mark a physical page invalid (its LPN was rewritten or trimmed).
    #[inline]
    pub fn invalidate(&mut self, ppn: Ppn) {
        let gb = self.map.gblock_of(ppn).0;
        self.p2l.set(ppn as usize, INVALID);
        self.valid[gb as usize] -= 1;
        self.plane_valid[self.map.plane_of_block(BlockId(gb)).index()] -= 1;
        if self.state[gb as usize] == BlockState::Closed && self.fast.is_none() {
            if self.domains.is_die() {
                let g = self.group_of(BlockId(gb));
                if self.group_closed[g as usize] as u32 == self.ppd {
                    self.victims.update(g, self.group_valid(g));
                }
            } else {
                self.victims.update(gb, self.valid[gb as usize] as u32);
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
        let lpn = self.p2l.get(src as usize);
        assert_ne!(lpn, INVALID);
        let version = self.versions.as_ref().map_or(0, |v| v.page[src as usize]);
        self.write_replacing(plane, lpn, src, version, w, now, Place::Next)
    }

    /// [`relocate_as`](Self::relocate_as) placed by `place`: a page of a
    /// wanted type (relaxed program order), or with
    /// `gc.parity_destinations` a page of the source's parity (None if the
    /// active block has no free page of that parity).
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
        let lpn = self.p2l.get(src as usize);
        assert_ne!(lpn, INVALID);
        let version = self.versions.as_ref().map_or(0, |v| v.page[src as usize]);
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
        let lpn = self.p2l.get(src as usize);
        assert_ne!(lpn, INVALID);
        let version = self.versions.as_ref().map_or(0, |v| v.page[src as usize]);
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
            let (valid, bpp, ppd) = (&self.valid, self.bpp, self.ppd);
            let g = self.victims.pick(die.0, now, rng, |id| {
                let (d, i) = (id / bpp, id % bpp);
                (d * ppd..(d + 1) * ppd)
                    .map(|p| valid[(p * bpp + i) as usize] as u32)
                    .sum()
            })?;
            self.group_closed[g as usize] = 0;
            for b in self.group_blocks(g).collect::<Vec<_>>() {
                self.state[b.index()] = BlockState::Victim;
            }
            return Some(g);
        }
        let valid = &self.valid;
        let gb = self
            .victims
            .pick(plane.0, now, rng, |b| valid[b as usize] as u32)?;
        self.state[gb as usize] = BlockState::Victim;
        Some(gb)
    }

    /// Valid pages of a block, as (ppn, lpn).
    pub fn valid_pages(&self, gb: BlockId) -> impl Iterator<Item = (Ppn, Lpn)> + '_ {
        let gb = gb.0;
        let first = gb * self.ppb;
        (first..first + self.ppb).filter_map(|p| self.owner(p).map(|l| (p, l)))
    }

    /// Erase a victim block (no valid pages left) and return it to the free list.
    pub fn erase(&mut self, gb: BlockId) {
        let gb = gb.0;
        assert_eq!(
            self.valid[gb as usize], 0,
            "erasing a block with valid data"
        );
        assert_eq!(self.state[gb as usize], BlockState::Victim);
        assert_eq!(self.pins[gb as usize], 0, "erasing a block a read is using");
        self.wp[gb as usize] = 0;
        if let Some(n) = &mut self.parity {
            n[gb as usize] = [0, 1];
        }
        if let Some(l) = &mut self.lanes {
            l.reset(gb);
        }
        self.erase_count[gb as usize] += 1;
        self.wear.erased(self.map.plane_of_block(BlockId(gb)));
        self.state[gb as usize] = BlockState::Free;
        if self.domains.is_die() {
            // The group is free once all its blocks are.
            let g = self.group_of(BlockId(gb));
            if self
                .group_blocks(g)
                .all(|b| self.state[b.index()] == BlockState::Free)
            {
                self.free[(g / self.bpp) as usize].push_back(g % self.bpp);
            }
        } else {
            self.free[(gb / self.bpp) as usize].push_back(gb);
        }
    }

    /// Trim `lpn`: its page, if it has one, becomes invalid and the LPN
    /// unmapped (as never written, also for the consistency checker's
    /// versions). Returns whether it had a page.
    pub fn trim(&mut self, lpn: Lpn) -> bool {
        if let Some(v) = &mut self.versions {
            v.latest[lpn as usize] = 0;
        }
        let Some(ppn) = self.lookup(lpn) else {
            return false;
        };
        self.invalidate(ppn);
        self.l2p.set(lpn as usize, INVALID);
        true
    }

    /// Pin a block against erasure while a read of it is outstanding.
    #[inline]
    pub fn pin(&mut self, ppn: Ppn) {
        self.pins[self.map.gblock_of(ppn).index()] += 1;
    }

    /// Unpin; returns the block's remaining pins.
    #[inline]
    pub fn unpin(&mut self, ppn: Ppn) -> u32 {
        let gb = self.map.gblock_of(ppn).index();
        self.pins[gb] -= 1;
        self.pins[gb] as u32
    }

    pub fn pins(&self, gb: BlockId) -> u32 {
        let gb = gb.0;
        self.pins[gb as usize] as u32
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
