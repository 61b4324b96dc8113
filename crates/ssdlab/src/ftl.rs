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

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::addr::{AddrMap, Lpn, Ppn, INVALID};
use crate::config::{BlockGroups, Config, Mapping, PlaneAllocation, WriteUnit};
use crate::engine::Time;
use crate::error::{Error, Result};
use crate::hybrid::Fast;
use crate::victim::VictimIndex;

/// Who writes a page: decides the active block (write stream) it goes to and
/// whether it may use the free block kept for GC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// Host data. With hot/cold separation, hot pages go to the hot stream,
    /// cold ones to the cold stream; without, there is one stream.
    Host { hot: bool },
    /// Garbage collection (timed or untimed): the reserve blocks, and the
    /// cold stream, or the hot one for a move judged hot when hot/cold
    /// separation sorts GC moves (`ftl.hot_separation = "gc-moves"`).
    Gc { hot: bool },
}

impl Writer {
    /// GC writing to the cold stream (preconditioning, padding, and every
    /// move unless hot/cold separation sorts GC moves).
    pub const GC: Writer = Writer::Gc { hot: false };
}

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
    l2p: Vec<Ppn>,
    p2l: Vec<Lpn>,
    valid: Vec<u16>,
    wp: Vec<u16>,
    state: Vec<BlockState>,
    pins: Vec<u16>,
    erase_count: Vec<u32>,
    /// Active block per plane and write stream (global id) or INVALID:
    /// `active[plane * streams + stream]`.
    active: Vec<u32>,
    /// Write streams (active blocks) per plane: 1, or 2 with hot/cold
    /// separation (stream 0 hot, stream 1 cold and GC).
    streams: u32,
    /// Free blocks: per plane (global block ids), or with aligned block
    /// groups per die (group indices: block `g` of every plane of the die).
    free: Vec<VecDeque<u32>>,
    /// Aligned block groups (`ftl.block_groups = "die"`): the planes of a
    /// die open blocks of the same index in the same order; victims and
    /// erases are whole groups (ids `die * blocks_per_plane + g`).
    groups: bool,
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
}

/// Result of preconditioning, reported in the run's JSON.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PreconditionReport {
    pub mode: String,
    /// Untimed page writes of every preconditioning step.
    pub pages_written: u64,
    pub valid_pages: u64,
    /// Valid pages the fill asked for but the logical capacity could not hold.
    pub valid_pages_capped: u64,
    pub trace_read_pages_mapped: u64,
    /// DFTL: translation pages written for the preconditioned data.
    pub translation_pages_written: u64,
    /// age:X: pages written.
    pub age_pages_written: u64,
    /// trace-sequence: pages written over all passes.
    pub sequence_pages_written: u64,
    /// Untimed GC runs preconditioning needed to make room.
    pub functional_gc: u64,
    /// trace-sequence: passes applied, and the last pass's write amplification.
    pub sequence_passes: u32,
    pub sequence_write_amplification: f64,
}

impl Ftl {
    pub fn new(cfg: &Config, check: bool) -> Self {
        let g = &cfg.geometry;
        let planes = cfg.total_planes();
        let ppb = g.pages_per_block;
        let bpp = g.blocks_per_plane;
        let map = AddrMap {
            pages_per_block: ppb,
            blocks_per_plane: bpp,
            pages_per_plane: ppb * bpp,
            planes_per_die: g.planes_per_die,
            dies_per_chip: g.dies_per_chip,
            chips_per_channel: g.chips_per_channel,
        };
        let nblocks = (planes * bpp) as usize;
        let phys = cfg.physical_pages() as usize;
        let logical = cfg.logical_pages();
        // DFTL's translation pages are logical pages after the host's.
        let mapped = logical + cfg.translation_pages();
        let groups = cfg.ftl.block_groups == BlockGroups::Die;
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
            l2p: crate::mem::page_map(mapped as usize, INVALID),
            p2l: crate::mem::page_map(phys, INVALID),
            valid: vec![0; nblocks],
            wp: vec![0; nblocks],
            state: vec![BlockState::Free; nblocks],
            pins: vec![0; nblocks],
            erase_count: vec![0; nblocks],
            active: vec![INVALID; (planes * cfg.write_streams()) as usize],
            streams,
            free,
            groups,
            aligned: cfg.ftl.write_unit != WriteUnit::Page,
            ppd,
            align_open: cfg.ftl.align_block_index && cfg.ftl.mapping != Mapping::Fast,
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
            fast: (cfg.ftl.mapping == Mapping::Fast).then(|| Fast::new(cfg, static_table(cfg))),
            versions: check.then(|| Versions {
                latest: vec![0; mapped as usize],
                page: vec![0; phys],
            }),
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
        if let Some(entry) = self.l2p.get(lpn as usize) {
            prefetch(entry);
        }
    }

    #[inline]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        let p = self.l2p[lpn as usize];
        (p != INVALID).then_some(p)
    }
    /// LPN stored in a physical page, if the page is valid.
    #[inline]
    pub fn owner(&self, ppn: Ppn) -> Option<Lpn> {
        let l = self.p2l[ppn as usize];
        (l != INVALID).then_some(l)
    }
    #[inline]
    pub fn valid_count(&self, gb: u32) -> u32 {
        self.valid[gb as usize] as u32
    }
    pub fn block_state(&self, gb: u32) -> BlockState {
        self.state[gb as usize]
    }
    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_count
    }

    /// The plane static allocation gives this LPN.
    #[inline]
    pub fn static_plane(&self, lpn: Lpn) -> u32 {
        self.plane_of_residue[(lpn % self.planes) as usize]
    }

    /// The die static allocation gives this LPN.
    #[inline]
    pub fn static_die(&self, lpn: Lpn) -> u32 {
        self.map.die_of_plane(self.static_plane(lpn))
    }

    /// Die-round-robin allocation: the next plane of `die` in turn for
    /// `w`'s write stream (each stream keeps its planes level).
    #[inline]
    pub fn next_plane_in_die(&mut self, die: u32, w: Writer) -> u32 {
        let k = self.stream(die, w);
        let i = self.die_rr[k];
        self.die_rr[k] = (i + 1) % self.ppd;
        die * self.ppd + i
    }

    /// Are blocks allocated, collected and erased in aligned groups per die?
    pub fn groups(&self) -> bool {
        self.groups
    }

    /// Do per-plane openings take block indices sibling planes use
    /// (`ftl.align_block_index`, where it applies)?
    pub fn aligned_open(&self) -> bool {
        self.align_open
    }

    /// Choose the plane for a new write of `lpn` by the configured policy.
    /// `die_load` gives the queued work of a die (for least-busy).
    /// `w` is who writes it (die-round-robin keeps a turn per write stream).
    pub fn choose_plane(&mut self, lpn: Lpn, w: Writer, die_load: impl Fn(u32) -> u32) -> u32 {
        match self.allocation {
            PlaneAllocation::Static => self.static_plane(lpn),
            PlaneAllocation::DieRoundRobin => {
                let die = self.static_die(lpn);
                self.next_plane_in_die(die, w)
            }
            PlaneAllocation::RoundRobin => {
                // The next plane in turn that has room for more data.
                let start = self.rr_next;
                let mut pick = self.plane_of_residue[start as usize];
                for i in 0..self.planes {
                    let p = self.plane_of_residue[((start + i) % self.planes) as usize];
                    if self.has_room(p) {
                        pick = p;
                        self.rr_next = (start + i) % self.planes;
                        break;
                    }
                }
                self.rr_next = (self.rr_next + 1) % self.planes;
                pick
            }
            PlaneAllocation::LeastBusy => {
                // Scan from the round-robin pointer so ties rotate; planes
                // without room for more data only if all are so.
                let start = self.rr_next;
                let mut best = self.plane_of_residue[start as usize];
                let mut best_key = (true, u32::MAX);
                for i in 0..self.planes {
                    let p = self.plane_of_residue[((start + i) % self.planes) as usize];
                    let key = (!self.has_room(p), die_load(self.map.die_of_plane(p)));
                    if key < best_key {
                        best = p;
                        best_key = key;
                        if key == (false, 0) {
                            break;
                        }
                    }
                }
                self.rr_next = (self.rr_next + 1) % self.planes;
                best
            }
        }
    }

    /// Valid pages held by a plane.
    pub fn plane_valid(&self, plane: u32) -> u32 {
        self.plane_valid[plane as usize]
    }

    /// Can `plane` take more valid data? Dynamic allocation moves data
    /// between planes as LPNs are rewritten; a plane whose valid data came
    /// within the GC threshold plus two blocks of its size would leave GC
    /// nothing to reclaim.
    #[inline]
    fn has_room(&self, plane: u32) -> bool {
        ((self.plane_valid[plane as usize] + self.plane_pending[plane as usize]) as u64)
            < self.room_limit
    }

    /// A host page was assigned to `plane` (its program comes later).
    #[inline]
    pub fn assign(&mut self, plane: u32) {
        self.plane_pending[plane as usize] += 1;
    }
    /// The program of a page assigned to `plane` was dispatched.
    #[inline]
    pub fn assigned_written(&mut self, plane: u32) {
        self.plane_pending[plane as usize] -= 1;
    }

    /// Index into `active` of a plane's stream for this writer.
    #[inline]
    fn stream(&self, plane: u32, w: Writer) -> usize {
        if self.streams == 1 {
            return plane as usize;
        }
        let s = match w {
            Writer::Host { hot: true } | Writer::Gc { hot: true } => 0,
            Writer::Host { hot: false } | Writer::Gc { hot: false } => self.streams - 1,
        };
        (plane * self.streams + s) as usize
    }

    /// Free pages of a plane: free blocks plus the rest of its active blocks.
    #[inline]
    pub fn free_pages(&self, plane: u32) -> u64 {
        let free = if self.groups {
            let first = (plane * self.streams) as usize;
            let reserved: usize = self.reserved[first..first + self.streams as usize]
                .iter()
                .map(|r| r.len())
                .sum();
            (self.free[(plane / self.ppd) as usize].len() + reserved) as u64 * self.ppb as u64
        } else {
            self.free[plane as usize].len() as u64 * self.ppb as u64
        };
        if self.streams == 1 {
            let a = self.active[plane as usize];
            return free
                + if a == INVALID {
                    0
                } else {
                    (self.ppb - self.wp[a as usize] as u32) as u64
                };
        }
        let first = (plane * self.streams) as usize;
        let rest: u64 = self.active[first..first + self.streams as usize]
            .iter()
            .filter(|&&a| a != INVALID)
            .map(|&a| (self.ppb - self.wp[a as usize] as u32) as u64)
            .sum();
        free + rest
    }
    /// Free pages of a plane that writer `w` may take (group mode): free
    /// groups, groups its stream has reserved and the rest of its active block.
    pub fn free_pages_for(&self, plane: u32, w: Writer) -> u64 {
        let s = self.stream(plane, w);
        let mut blocks = self.free[self.free_list(plane)].len();
        if self.groups {
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
    pub fn gc_free_pages(&self, plane: u32) -> u64 {
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
    pub fn needs_gc(&self, plane: u32) -> bool {
        if self.fast.is_some() {
            return self.fast_merge_due(self.free_list(plane) as u32);
        }
        self.free_pages(plane) < self.threshold_pages
            || (self.groups && self.free[self.free_list(plane)].len() <= self.reserve_blocks)
    }

    /// In-plane (block, page) the next write of `w` to `plane` would take,
    /// if it may take one (host writes may not use the GC reserve).
    #[inline]
    pub fn peek_write(&self, plane: u32, w: Writer) -> Option<(u32, u32)> {
        let gc = matches!(w, Writer::Gc { .. });
        let a = self.active[self.stream(plane, w)];
        if a != INVALID && (self.wp[a as usize] as u32) < self.ppb {
            return Some((a % self.bpp, self.wp[a as usize] as u32));
        }
        if self.groups {
            if let Some(&g) = self.reserved[self.stream(plane, w)].front() {
                return Some((g, 0));
            }
        }
        if let Some(f) = &self.fast {
            // A new log unit only while the domain holds fewer than its limit.
            if f.logs[self.free_list(plane)].len() >= f.limit {
                return None;
            }
        }
        let free = &self.free[self.free_list(plane)];
        let reserve = if gc { 0 } else { self.reserve_blocks };
        if free.len() > reserve {
            let pos = if self.align_open {
                self.aligned_open_pos(plane, self.stream(plane, w))
            } else {
                0
            };
            Some((free[pos] % self.bpp, 0))
        } else {
            None
        }
    }

    /// `ftl.align_block_index`: where in its free list plane `plane` finds
    /// the block its stream `s` opens next: the index of a block a sibling
    /// plane's same stream is writing, if that index is free here; else
    /// the first index of the span's first plane's free list that is free
    /// in every plane of the span (each plane of the span computes the
    /// same); else its oldest free block. Every plane of a span that opens
    /// a block in turn so takes one index while one is free in all.
    fn aligned_open_pos(&self, plane: u32, s: usize) -> usize {
        let free = &self.free[plane as usize];
        let bpp = self.bpp;
        let is_free = |q: u32, idx: u32| self.state[(q * bpp + idx) as usize] == BlockState::Free;
        let pos_of = |idx: u32| free.iter().position(|&b| b % bpp == idx);
        let si = s as u32 % self.streams;
        let lo = plane / self.align_span * self.align_span;
        let span = lo..lo + self.align_span;
        for q in span.clone().filter(|&q| q != plane) {
            let a = self.active[(q * self.streams + si) as usize];
            if a != INVALID && is_free(plane, a % bpp) {
                if let Some(p) = pos_of(a % bpp) {
                    return p;
                }
            }
        }
        // Bounded: free lists of a full drive are long, and an index free in
        // every plane is, if anywhere, usually near the front (blocks freed
        // in step, or never used).
        const SCAN: usize = 256;
        for &b in self.free[lo as usize].iter().take(SCAN) {
            let idx = b % bpp;
            if span.clone().all(|q| is_free(q, idx)) {
                if let Some(p) = pos_of(idx) {
                    return p;
                }
            }
        }
        0
    }

    /// Index of the free list a plane allocates from.
    #[inline]
    fn free_list(&self, plane: u32) -> usize {
        if self.groups {
            (plane / self.ppd) as usize
        } else {
            plane as usize
        }
    }

    /// Open the next block of a plane's stream `s`. Group mode: the group a
    /// sibling plane opened first, else a free group, which every sibling
    /// plane then opens next.
    fn open_block(&mut self, plane: u32, s: usize) -> u32 {
        let a = if self.groups {
            let g = match self.reserved[s].pop_front() {
                Some(g) => g,
                None => {
                    let die = plane / self.ppd;
                    let g = self.free[die as usize]
                        .pop_front()
                        .expect("peek_write saw a free group");
                    if let Some(f) = &mut self.fast {
                        f.logs[die as usize].push_back(die * self.bpp + g);
                    }
                    let si = s as u32 % self.streams;
                    for q in die * self.ppd..(die + 1) * self.ppd {
                        if q != plane {
                            self.reserved[(q * self.streams + si) as usize].push_back(g);
                        }
                    }
                    g
                }
            };
            self.opened[s] += 1;
            plane * self.bpp + g
        } else {
            let pos = if self.align_open {
                self.aligned_open_pos(plane, s)
            } else {
                0
            };
            let b = self.free[plane as usize]
                .remove(pos)
                .expect("peek_write saw a free block");
            if let Some(f) = &mut self.fast {
                f.logs[plane as usize].push_back(b);
            }
            b
        };
        self.state[a as usize] = BlockState::Active;
        self.active[s] = a;
        a
    }

    /// Group id (`die * blocks_per_plane + index`) of a block.
    #[inline]
    pub fn group_of(&self, gb: u32) -> u32 {
        (gb / self.bpp / self.ppd) * self.bpp + gb % self.bpp
    }

    /// The blocks of a group, plane by plane.
    pub fn group_blocks(&self, group: u32) -> impl Iterator<Item = u32> {
        let (die, g, bpp) = (group / self.bpp, group % self.bpp, self.bpp);
        (die * self.ppd..(die + 1) * self.ppd).map(move |p| p * bpp + g)
    }

    /// Valid pages in a group.
    pub fn group_valid(&self, group: u32) -> u32 {
        self.group_blocks(group)
            .map(|b| self.valid[b as usize] as u32)
            .sum()
    }

    /// Position of a plane's write point in stream `s` (pages written since
    /// the drive was fresh, counted in whole blocks opened): the planes of a
    /// die are aligned when their positions and active blocks agree.
    fn position(&self, s: usize) -> u64 {
        let a = self.active[s];
        if a == INVALID {
            self.opened[s] * self.ppb as u64
        } else {
            (self.opened[s] - 1) * self.ppb as u64 + self.wp[a as usize] as u64
        }
    }

    /// Are the write points of every stream aligned on all planes of `die`?
    /// (Group mode only.) Returns a description of the first misalignment.
    pub fn die_alignment(&self, die: u32) -> std::result::Result<(), String> {
        for si in 0..self.streams {
            let s0 = ((die * self.ppd) * self.streams + si) as usize;
            let (pos0, a0) = (self.position(s0), self.active[s0]);
            for q in die * self.ppd + 1..(die + 1) * self.ppd {
                let s = (q * self.streams + si) as usize;
                let a = self.active[s];
                let same_block = (a == INVALID && a0 == INVALID)
                    || (a != INVALID && a0 != INVALID && a % self.bpp == a0 % self.bpp);
                if self.position(s) != pos0 || !same_block {
                    return Err(format!(
                        "die {die} stream {si}: plane {q} writes at position {} (block {}), plane {} at {pos0} (block {})",
                        self.position(s),
                        if a == INVALID { -1 } else { (a % self.bpp) as i64 },
                        die * self.ppd,
                        if a0 == INVALID { -1 } else { (a0 % self.bpp) as i64 },
                    ));
                }
            }
        }
        Ok(())
    }

    /// Program stale pages (INVALID) on the planes of `die` that lag behind
    /// the furthest one in `w`'s stream, so that its write points are aligned
    /// again. Returns the pages wasted.
    pub fn pad_die(&mut self, die: u32, w: Writer, now: Time) -> u64 {
        let planes = die * self.ppd..(die + 1) * self.ppd;
        let target = planes
            .clone()
            .map(|q| self.position(self.stream(q, w)))
            .max()
            .unwrap_or(0);
        let mut wasted = 0;
        for q in planes {
            while self.position(self.stream(q, w)) < target {
                self.write_replacing(q, INVALID, INVALID, 0, w, now)
                    .expect("a lagging plane writes into groups its siblings opened");
                wasted += 1;
            }
        }
        wasted
    }

    /// Program the next page of `plane` with `lpn` (INVALID: a page whose data
    /// is already stale, programmed but not mapped). Updates both maps,
    /// invalidates the LPN's previous page, closes the block when full.
    /// Returns None when the plane has no page this writer may use.
    pub fn write(
        &mut self,
        plane: u32,
        lpn: Lpn,
        version: u32,
        w: Writer,
        now: Time,
    ) -> Option<Ppn> {
        let old = if lpn == INVALID {
            INVALID
        } else {
            self.l2p[lpn as usize]
        };
        self.write_replacing(plane, lpn, old, version, w, now)
    }

    /// [`write`](Self::write) when the LPN's current page `old` is known
    /// (INVALID: none), sparing a random read of the forward map.
    fn write_replacing(
        &mut self,
        plane: u32,
        lpn: Lpn,
        old: Ppn,
        version: u32,
        w: Writer,
        now: Time,
    ) -> Option<Ppn> {
        self.peek_write(plane, w)?;
        let p = plane as usize;
        let s = self.stream(plane, w);
        let mut a = self.active[s];
        if a == INVALID || self.wp[a as usize] as u32 >= self.ppb {
            a = self.open_block(plane, s);
        }
        let page = self.wp[a as usize] as u32;
        self.wp[a as usize] += 1;
        let ppn = a * self.ppb + page;
        if lpn != INVALID {
            if old != INVALID {
                self.invalidate(old);
            }
            self.l2p[lpn as usize] = ppn;
            self.p2l[ppn as usize] = lpn;
            self.valid[a as usize] += 1;
            self.plane_valid[p] += 1;
            if let Some(v) = &mut self.versions {
                v.page[ppn as usize] = version;
            }
        }
        if page + 1 == self.ppb {
            self.state[a as usize] = BlockState::Closed;
            self.active[s] = INVALID;
            self.close(a, now);
        }
        Some(ppn)
    }

    /// A block was closed: it (or, in group mode, its group once all of its
    /// blocks are closed) becomes a victim candidate.
    fn close(&mut self, gb: u32, now: Time) {
        if self.groups {
            let g = self.group_of(gb);
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
        let gb = ppn / self.ppb;
        self.p2l[ppn as usize] = INVALID;
        self.valid[gb as usize] -= 1;
        self.plane_valid[(gb / self.bpp) as usize] -= 1;
        if self.state[gb as usize] == BlockState::Closed && self.fast.is_none() {
            if self.groups {
                let g = self.group_of(gb);
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
    pub fn relocate(&mut self, src: Ppn, plane: u32, now: Time) -> Option<Ppn> {
        self.relocate_as(src, plane, Writer::GC, now)
    }

    /// [`relocate`](Self::relocate) into `w`'s write stream (a Die-Write
    /// mixing GC moves and host pages writes all of them to one stream).
    pub fn relocate_as(&mut self, src: Ppn, plane: u32, w: Writer, now: Time) -> Option<Ppn> {
        let lpn = self.p2l[src as usize];
        debug_assert_ne!(lpn, INVALID);
        let version = self.versions.as_ref().map_or(0, |v| v.page[src as usize]);
        self.write_replacing(plane, lpn, src, version, w, now)
    }

    /// Choose a GC victim in `plane`; it leaves the victim index. Group
    /// mode: a group of the plane's die (its id; all its blocks become
    /// victims).
    pub fn pick_victim(
        &mut self,
        plane: u32,
        now: Time,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Option<u32> {
        if self.fast.is_some() {
            return self.fast_pick(self.free_list(plane) as u32);
        }
        if self.groups {
            let die = plane / self.ppd;
            let (valid, bpp, ppd) = (&self.valid, self.bpp, self.ppd);
            let g = self.victims.pick(die, now, rng, |id| {
                let (d, i) = (id / bpp, id % bpp);
                (d * ppd..(d + 1) * ppd)
                    .map(|p| valid[(p * bpp + i) as usize] as u32)
                    .sum()
            })?;
            self.group_closed[g as usize] = 0;
            for b in self.group_blocks(g).collect::<Vec<_>>() {
                self.state[b as usize] = BlockState::Victim;
            }
            return Some(g);
        }
        let valid = &self.valid;
        let gb = self
            .victims
            .pick(plane, now, rng, |b| valid[b as usize] as u32)?;
        self.state[gb as usize] = BlockState::Victim;
        Some(gb)
    }

    /// Valid pages of a block, as (ppn, lpn).
    pub fn valid_pages(&self, gb: u32) -> impl Iterator<Item = (Ppn, Lpn)> + '_ {
        let first = gb * self.ppb;
        (first..first + self.ppb).filter_map(|p| self.owner(p).map(|l| (p, l)))
    }

    /// Erase a victim block (no valid pages left) and return it to the free list.
    pub fn erase(&mut self, gb: u32) {
        debug_assert_eq!(
            self.valid[gb as usize], 0,
            "erasing a block with valid data"
        );
        debug_assert_eq!(self.state[gb as usize], BlockState::Victim);
        self.wp[gb as usize] = 0;
        self.erase_count[gb as usize] += 1;
        self.state[gb as usize] = BlockState::Free;
        if self.groups {
            // The group is free once all its blocks are.
            let g = self.group_of(gb);
            if self
                .group_blocks(g)
                .all(|b| self.state[b as usize] == BlockState::Free)
            {
                self.free[(g / self.bpp) as usize].push_back(g % self.bpp);
            }
        } else {
            self.free[(gb / self.bpp) as usize].push_back(gb);
        }
    }

    /// Pin a block against erasure while a read of it is outstanding.
    #[inline]
    pub fn pin(&mut self, ppn: Ppn) {
        self.pins[(ppn / self.ppb) as usize] += 1;
    }
    /// Unpin; returns the block's remaining pins.
    #[inline]
    pub fn unpin(&mut self, ppn: Ppn) -> u32 {
        let gb = (ppn / self.ppb) as usize;
        self.pins[gb] -= 1;
        self.pins[gb] as u32
    }
    pub fn pins(&self, gb: u32) -> u32 {
        self.pins[gb as usize] as u32
    }

    /// Fill every plane of a fresh drive to `used` of its pages, `valid` of
    /// them holding data, without timed writes. Each plane's pages are
    /// written from its first free block on, as sequential writes would; a
    /// uniformly random subset of them is valid, holding a uniformly random
    /// subset of the LPNs static allocation gives the plane, in random order.
    /// Valid pages beyond the logical capacity are capped (and counted).
    ///
    /// Bulk rather than page by page, and planes in groups of consecutive LPN
    /// residues walked in lock-step over LPN rows, so that the forward map is
    /// written a cache line at a time: 512 GiB fills in about a second.
    pub fn precondition_fill(
        &mut self,
        used: f64,
        valid: f64,
        rng: &mut Xoshiro256PlusPlus,
        report: &mut PreconditionReport,
    ) -> Result<()> {
        self.fast_refuses("fill")?;
        if !(0.0..1.0).contains(&used) || !(0.0..=1.0).contains(&valid) {
            return Err(Error::Invalid(format!(
                "--precondition fill:{used}:{valid}: USED must be in [0, 1) and VALID in [0, 1]"
            )));
        }
        if self.free.iter().any(|f| f.len() != self.bpp as usize) {
            return Err(Error::Invalid(
                "--precondition fill applies to a fresh drive only".into(),
            ));
        }
        let ppb = self.ppb as u64;
        let ppp = self.map.pages_per_plane as u64;
        let max_used = ppp - self.reserve_blocks as u64 * ppb - 1;
        let used_pages = ((ppp as f64 * used).round() as u64).min(max_used);
        let want = (used_pages as f64 * valid).round() as u64;
        let planes = self.planes as u64;
        let groups = planes.div_ceil(FILL_GROUP as u64);
        // One random stream per group, drawn in order: the result does not
        // depend on how groups are spread over threads.
        let seeds: Vec<u64> = (0..groups).map(|_| rng.gen()).collect();
        for r in 0..planes {
            let pool = if r < self.logical_pages {
                (self.logical_pages - r).div_ceil(planes)
            } else {
                0
            };
            let n_valid = want.min(pool);
            report.valid_pages_capped += want - n_valid;
            report.pages_written += used_pages;
            report.valid_pages += n_valid;
        }
        let job = FillJob {
            l2p: SharedMut(self.l2p.as_mut_ptr()),
            p2l: SharedMut(self.p2l.as_mut_ptr()),
            valid: SharedMut(self.valid.as_mut_ptr()),
            plane_of_residue: &self.plane_of_residue,
            planes,
            logical: self.logical_pages,
            pages_per_plane: self.map.pages_per_plane,
            ppb: self.ppb,
            used_pages,
            want,
        };
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(groups as usize)
            .max(1);
        std::thread::scope(|scope| {
            for t in 0..threads {
                let (job, seeds) = (&job, &seeds);
                scope.spawn(move || {
                    for g in (t as u64..groups).step_by(threads) {
                        // SAFETY: groups partition the residues, so each
                        // writes forward-map entries of its own residues,
                        // reverse-map pages and block counters of its own
                        // planes only: no two threads touch the same element.
                        unsafe { job.fill_group(g, seeds[g as usize]) };
                    }
                });
            }
        });
        // The fill wrote block valid counts directly: total them per plane.
        for (plane, v) in self.plane_valid.iter_mut().enumerate() {
            let blocks = &self.valid[plane * self.bpp as usize..(plane + 1) * self.bpp as usize];
            *v = blocks.iter().map(|&c| c as u32).sum();
        }
        // The written blocks of every plane: full ones closed, a partial one active.
        let full = (used_pages / ppb) as u32;
        let rest = (used_pages % ppb) as u16;
        if self.groups {
            // Every plane wrote the same block indices: aligned groups.
            for die in 0..self.planes / self.ppd {
                for _ in 0..full + (rest > 0) as u32 {
                    let g = self.free[die as usize].pop_front().expect("fresh die");
                    for plane in die * self.ppd..(die + 1) * self.ppd {
                        let gb = plane * self.bpp + g;
                        let s = self.stream(plane, Writer::GC);
                        self.opened[s] += 1;
                        if g < full {
                            self.wp[gb as usize] = self.ppb as u16;
                            self.state[gb as usize] = BlockState::Closed;
                            self.close(gb, 0);
                        } else {
                            self.wp[gb as usize] = rest;
                            self.state[gb as usize] = BlockState::Active;
                            self.active[s] = gb;
                        }
                    }
                }
            }
            return Ok(());
        }
        for plane in 0..self.planes {
            for _ in 0..full + (rest > 0) as u32 {
                let gb = self.free[plane as usize].pop_front().expect("fresh plane");
                if (gb % self.bpp) < full {
                    self.wp[gb as usize] = self.ppb as u16;
                    self.state[gb as usize] = BlockState::Closed;
                    self.victims.insert(gb, self.valid[gb as usize] as u32, 0);
                } else {
                    self.wp[gb as usize] = rest;
                    self.state[gb as usize] = BlockState::Active;
                    let s = self.stream(plane, Writer::GC);
                    self.active[s] = gb;
                }
            }
        }
        Ok(())
    }

    /// Map every LPN in `lpns` that has no data yet, as if written once before
    /// the run (no timed writes), cleaning planes with untimed GC as needed.
    /// Returns the pages written (also added to `report.pages_written`).
    pub fn precondition_map(
        &mut self,
        lpns: impl Iterator<Item = Lpn>,
        rng: &mut Xoshiro256PlusPlus,
        report: &mut PreconditionReport,
    ) -> Result<u64> {
        if self.fast.is_some() {
            let written = self.fast_precondition(lpns)?;
            report.pages_written += written;
            report.valid_pages += written;
            return Ok(written);
        }
        let mut written = 0;
        for lpn in lpns {
            if self.l2p[lpn as usize] != INVALID {
                continue;
            }
            let plane = self.choose_plane(lpn, Writer::Host { hot: false }, |_| 0);
            self.make_room(plane, rng, report)?;
            self.write(plane, lpn, 0, Writer::Host { hot: false }, 0)
                .expect("make_room left free pages");
            written += 1;
        }
        self.pad_all();
        report.pages_written += written;
        report.valid_pages += written;
        Ok(written)
    }

    /// DFTL: write (untimed) every translation page that holds the entry of
    /// a mapped host page: translation page `i` is LPN `logical + i` and
    /// covers host pages `i * per_page ..`. Returns the pages written.
    pub fn precondition_translation(
        &mut self,
        per_page: u64,
        rng: &mut Xoshiro256PlusPlus,
        report: &mut PreconditionReport,
    ) -> Result<u64> {
        let logical = self.logical_pages;
        let pages = (self.l2p.len() as u64).saturating_sub(logical);
        let needed: Vec<Lpn> = (0..pages)
            .filter(|&i| {
                let lo = (i * per_page) as usize;
                let hi = ((i + 1) * per_page).min(logical) as usize;
                self.l2p[lo..hi].iter().any(|&p| p != INVALID)
            })
            .map(|i| (logical + i) as Lpn)
            .collect();
        self.precondition_map(needed.into_iter(), rng, report)
    }

    /// Write `sequence()` over and over (untimed, with untimed GC) until a
    /// pass in which GC ran has a write amplification within 1% of the
    /// previous pass's, or 20 passes. The parallel-GC paper's warm-up.
    pub fn precondition_sequence<I: Iterator<Item = Lpn>>(
        &mut self,
        sequence: impl Fn() -> I,
        rng: &mut Xoshiro256PlusPlus,
        report: &mut PreconditionReport,
    ) -> Result<()> {
        self.fast_refuses("trace-sequence")?;
        const MAX_PASSES: u32 = 20;
        let mut previous: Option<f64> = None;
        for pass in 1..=MAX_PASSES {
            let (mut writes, mut moves) = (0u64, 0u64);
            let gcs_before = report.functional_gc;
            for lpn in sequence() {
                let plane = self.choose_plane(lpn, Writer::Host { hot: false }, |_| 0);
                moves += self.make_room(plane, rng, report)?;
                self.write(plane, lpn, 0, Writer::Host { hot: false }, 0)
                    .expect("make_room left free pages");
                writes += 1;
            }
            self.pad_all();
            report.pages_written += writes;
            report.sequence_pages_written += writes;
            if writes == 0 {
                break;
            }
            let wa = (writes + moves) as f64 / writes as f64;
            report.sequence_passes = pass;
            report.sequence_write_amplification = wa;
            // Steady: the drive has wrapped (GC ran in this pass) and write
            // amplification stopped changing.
            let wrapped = report.functional_gc > gcs_before;
            if wrapped && previous.is_some_and(|p| (wa - p).abs() <= 0.01 * p) {
                break;
            }
            // Only passes that wrapped are compared: the filling pass is not
            // a steady state.
            previous = wrapped.then_some(wa);
        }
        report.valid_pages = self.l2p.iter().filter(|&&p| p != INVALID).count() as u64;
        Ok(())
    }

    /// Clean `plane` with untimed GC until a write leaves it at or above its
    /// GC threshold, so the timed run does not start with GC owed. A victim
    /// may be all valid (FIFO, random): give up only after a whole plane's
    /// worth of victims reclaimed nothing. Returns the pages moved.
    fn make_room(
        &mut self,
        plane: u32,
        rng: &mut Xoshiro256PlusPlus,
        report: &mut PreconditionReport,
    ) -> Result<u64> {
        let (mut fruitless, mut moved) = (0, 0u64);
        while self.free_pages(plane) <= self.threshold_pages {
            match self.functional_gc(plane, rng) {
                Some(m) => {
                    moved += m as u64;
                    let unit = self.ppb * if self.groups { self.ppd } else { 1 };
                    fruitless = if m < unit { 0 } else { fruitless + 1 };
                }
                None => fruitless += 1,
            }
            report.functional_gc += 1;
            if fruitless > self.bpp {
                return Err(Error::Invalid(format!(
                    "preconditioning: plane {plane} is full of valid data; the workload needs more than the drive holds"
                )));
            }
        }
        Ok(moved)
    }

    /// Die-Writes: pad every die's streams back to aligned write points after
    /// page-by-page preconditioning writes.
    fn pad_all(&mut self) {
        if !self.aligned {
            return;
        }
        for die in 0..self.planes / self.ppd {
            self.pad_die(die, Writer::Host { hot: true }, 0);
            self.pad_die(die, Writer::GC, 0);
        }
    }

    /// Garbage-collect one victim of `plane` instantly (preconditioning only).
    /// Returns the pages moved, or None if there was no victim.
    pub fn functional_gc(&mut self, plane: u32, rng: &mut Xoshiro256PlusPlus) -> Option<u32> {
        if self.groups {
            // Group mode: the group's valid pages go round-robin over the
            // die's planes; Die-Writes pad the last short one.
            let group = self.pick_victim(plane, 0, rng)?;
            let die = plane / self.ppd;
            let blocks: Vec<u32> = self.group_blocks(group).collect();
            let mut moved = 0;
            for &b in &blocks {
                let pages: Vec<Ppn> = self.valid_pages(b).map(|(p, _)| p).collect();
                for src in pages {
                    let dst = self.next_plane_in_die(die, Writer::GC);
                    self.relocate(src, dst, 0)
                        .expect("a victim group always fits in the GC reserve");
                    moved += 1;
                }
            }
            if self.aligned {
                self.pad_die(die, Writer::GC, 0);
            }
            for b in blocks {
                self.erase(b);
            }
            return Some(moved);
        }
        let victim = self.pick_victim(plane, 0, rng)?;
        let moved: Vec<Ppn> = self.valid_pages(victim).map(|(p, _)| p).collect();
        for &src in &moved {
            self.relocate(src, plane, 0)
                .expect("a victim always fits in the GC reserve");
        }
        self.erase(victim);
        Some(moved.len() as u32)
    }

    /// Verify the FTL's invariants. `in_flight(lpn)` gives the version of an
    /// LPN's newest data if it is not on flash yet (write buffer or a queued
    /// program). Returns a description of the first violation.
    pub fn check(&self, in_flight: impl Fn(Lpn) -> Option<u32>) -> std::result::Result<(), String> {
        let ppb = self.ppb as usize;
        for gb in 0..self.valid.len() {
            let st = self.state[gb];
            let wp = self.wp[gb] as usize;
            let mut valid = 0;
            for page in 0..ppb {
                let ppn = gb * ppb + page;
                let lpn = self.p2l[ppn];
                if lpn == INVALID {
                    continue;
                }
                if page >= wp {
                    return Err(format!(
                        "block {gb} page {page}: valid data above the write pointer {wp}"
                    ));
                }
                if self.l2p[lpn as usize] != ppn as u32 {
                    return Err(format!(
                        "ppn {ppn} claims lpn {lpn}, which maps to {}",
                        self.l2p[lpn as usize]
                    ));
                }
                valid += 1;
            }
            if valid != self.valid[gb] as usize {
                return Err(format!(
                    "block {gb}: valid count {} but {valid} valid pages",
                    self.valid[gb]
                ));
            }
            match st {
                BlockState::Free if wp != 0 => {
                    return Err(format!("free block {gb} has write pointer {wp}"))
                }
                BlockState::Closed if wp != ppb => {
                    return Err(format!("closed block {gb} has write pointer {wp}"))
                }
                BlockState::Closed
                    if !self.groups && self.fast.is_none() && !self.victims.contains(gb as u32) =>
                {
                    return Err(format!("closed block {gb} missing from the victim index"))
                }
                _ => {}
            }
        }
        if self.groups {
            self.check_groups()?;
        }
        if self.fast.is_some() {
            self.check_fast()?;
        }
        for plane in 0..self.planes as usize {
            let blocks = plane * self.bpp as usize..(plane + 1) * self.bpp as usize;
            // Group mode keeps free lists per die (check_groups).
            if !self.groups {
                let free = &self.free[plane];
                for &gb in free {
                    if gb / self.bpp != plane as u32 || self.state[gb as usize] != BlockState::Free
                    {
                        return Err(format!(
                            "free list of plane {plane} holds block {gb} in state {:?}",
                            self.state[gb as usize]
                        ));
                    }
                }
                let nfree = self.state[blocks.clone()]
                    .iter()
                    .filter(|&&s| s == BlockState::Free)
                    .count();
                if nfree != free.len() {
                    return Err(format!(
                        "plane {plane}: {nfree} free blocks but {} on the free list",
                        free.len()
                    ));
                }
            }
            let counted: u32 = self.valid[blocks].iter().map(|&c| c as u32).sum();
            if counted != self.plane_valid[plane] {
                return Err(format!(
                    "plane {plane}: {counted} valid pages in its blocks but {} counted",
                    self.plane_valid[plane]
                ));
            }
            let first = plane * self.streams as usize;
            for &a in &self.active[first..first + self.streams as usize] {
                if a != INVALID && self.state[a as usize] != BlockState::Active {
                    return Err(format!(
                        "plane {plane}: active block {a} is {:?}",
                        self.state[a as usize]
                    ));
                }
            }
        }
        for (lpn, &ppn) in self.l2p.iter().enumerate() {
            if ppn != INVALID && self.p2l[ppn as usize] != lpn as u32 {
                return Err(format!(
                    "lpn {lpn} maps to ppn {ppn}, which holds {}",
                    self.p2l[ppn as usize]
                ));
            }
            if let Some(v) = &self.versions {
                let latest = v.latest[lpn];
                match in_flight(lpn as u32) {
                    Some(fv) if fv != latest => {
                        return Err(format!(
                            "lpn {lpn}: newest in-flight data is version {fv}, host wrote {latest}"
                        ));
                    }
                    Some(_) => {}
                    None if ppn == INVALID && latest > 0 => {
                        return Err(format!(
                            "lpn {lpn}: version {latest} was written and is lost"
                        ));
                    }
                    None if ppn != INVALID && v.page[ppn as usize] != latest => {
                        return Err(format!(
                            "lpn {lpn}: flash holds version {} but the host last wrote version {latest} (stale data)",
                            v.page[ppn as usize]
                        ));
                    }
                    None => {}
                }
            }
        }
        Ok(())
    }
}

impl Ftl {
    /// Group mode invariants: free groups are free in every plane, each free
    /// block is on its die's free list or reserved by its plane, closed groups
    /// are in the victim index, and Die-Writes keep write points aligned.
    fn check_groups(&self) -> std::result::Result<(), String> {
        let bpp = self.bpp as usize;
        for die in 0..(self.planes / self.ppd) {
            let mut listed = vec![0u32; bpp];
            for &g in &self.free[die as usize] {
                listed[g as usize] += self.ppd;
            }
            for plane in die * self.ppd..(die + 1) * self.ppd {
                let first = (plane * self.streams) as usize;
                for r in &self.reserved[first..first + self.streams as usize] {
                    for &g in r {
                        listed[g as usize] += 1;
                    }
                }
                for b in 0..self.bpp {
                    let gb = (plane * self.bpp + b) as usize;
                    // A group whose erases are under way has free and
                    // victim blocks; it is listed once all are erased.
                    let erasing = self
                        .group_blocks(die * self.bpp + b)
                        .any(|x| self.state[x as usize] == BlockState::Victim);
                    if self.state[gb] == BlockState::Free && !erasing {
                        listed[b as usize] = listed[b as usize].wrapping_sub(1);
                    }
                }
            }
            if let Some(g) = listed.iter().position(|&c| c != 0) {
                let id = die * self.bpp + g as u32;
                let states: Vec<BlockState> = self
                    .group_blocks(id)
                    .map(|b| self.state[b as usize])
                    .collect();
                let reserved: Vec<usize> = (die * self.ppd..(die + 1) * self.ppd)
                    .map(|p| {
                        let first = (p * self.streams) as usize;
                        self.reserved[first..first + self.streams as usize]
                            .iter()
                            .map(|r| r.iter().filter(|&&x| x == g as u32).count())
                            .sum()
                    })
                    .collect();
                return Err(format!(
                    "die {die} group {g}: its free blocks and the free list / reservations disagree (blocks {states:?}, on the free list: {}, reserved per plane {reserved:?})",
                    self.free[die as usize].contains(&(g as u32))
                ));
            }
            for g in 0..self.bpp {
                let id = die * self.bpp + g;
                let closed = self
                    .group_blocks(id)
                    .filter(|&b| self.state[b as usize] == BlockState::Closed)
                    .count() as u32;
                if closed == self.ppd && self.fast.is_none() && !self.victims.contains(id) {
                    return Err(format!("closed group {id} missing from the victim index"));
                }
                if closed != self.group_closed[id as usize] as u32
                    && self.group_closed[id as usize] != 0
                {
                    return Err(format!(
                        "group {id}: {closed} closed blocks but {} counted",
                        self.group_closed[id as usize]
                    ));
                }
            }
            if self.aligned {
                self.die_alignment(die)?;
            }
        }
        Ok(())
    }
}

/// FAST hybrid mapping (`ftl.mapping = "fast"`, see `hybrid.rs`): units are
/// blocks (plane domains) or aligned groups (die domains); the GC unit of a
/// plane is its domain.
impl Ftl {
    pub fn fast(&self) -> Option<&Fast> {
        self.fast.as_ref()
    }

    /// Blocks of a unit.
    pub fn unit_blocks(&self, unit: u32) -> impl Iterator<Item = u32> {
        let (groups, bpp, ppd) = (self.groups, self.bpp, self.ppd);
        let (first, n, step) = if groups {
            let (die, g) = (unit / bpp, unit % bpp);
            (die * ppd * bpp + g, ppd, bpp)
        } else {
            (unit, 1, 1)
        };
        (0..n).map(move |i| first + i * step)
    }

    fn unit_closed(&self, unit: u32) -> bool {
        self.unit_blocks(unit)
            .all(|b| self.state[b as usize] == BlockState::Closed)
    }

    /// Preconditioning steps that age a page-mapped drive have no FAST form.
    fn fast_refuses(&self, step: &str) -> Result<()> {
        if self.fast.is_some() {
            return Err(Error::Invalid(format!(
                "--precondition {step}: not supported with ftl.mapping = \"fast\" (it ages a page-mapped drive); use trace-reads or age:X, which map pages into their logical blocks' data units"
            )));
        }
        Ok(())
    }

    /// Does a domain hold as many log units as it may, the oldest closed?
    fn fast_merge_due(&self, domain: u32) -> bool {
        let f = self.fast.as_ref().expect("FAST");
        let logs = &f.logs[domain as usize];
        logs.len() >= f.limit && logs.front().is_some_and(|&u| self.unit_closed(u))
    }

    /// The domain's oldest log unit, when a merge is due: it leaves the log
    /// list and its blocks become victims.
    fn fast_pick(&mut self, domain: u32) -> Option<u32> {
        if !self.fast_merge_due(domain) {
            return None;
        }
        let f = self.fast.as_mut().expect("FAST");
        let unit = f.logs[domain as usize].pop_front()?;
        for b in self.unit_blocks(unit).collect::<Vec<_>>() {
            self.state[b as usize] = BlockState::Victim;
        }
        if self.groups {
            self.group_closed[unit as usize] = 0;
        }
        Some(unit)
    }

    /// Logical blocks with a valid page in `unit`, in page order.
    pub fn fast_lbns(&self, unit: u32) -> Vec<u32> {
        let f = self.fast.as_ref().expect("FAST");
        let mut seen = rustc_hash::FxHashSet::default();
        let mut out = Vec::new();
        for b in self.unit_blocks(unit) {
            for p in b * self.ppb..(b + 1) * self.ppb {
                let lpn = self.p2l[p as usize];
                if lpn != INVALID && seen.insert(f.lbn_of(lpn).0) {
                    out.push(f.lbn_of(lpn).0);
                }
            }
        }
        out
    }

    /// Does `unit` still hold a valid page of logical block `lbn`?
    pub fn fast_holds(&self, lbn: u32, unit: u32) -> bool {
        let f = self.fast.as_ref().expect("FAST");
        (0..f.unit_pages).any(|o| {
            f.lpn_of(lbn, o).is_some_and(|lpn| {
                let p = self.l2p[lpn as usize];
                p != INVALID && f.unit_of_block(p / self.ppb) == unit
            })
        })
    }

    /// Switch merge: does `unit` hold every page of `lbn` with data, each
    /// at its offset, and nothing else?
    pub fn fast_switchable(&self, lbn: u32, unit: u32) -> bool {
        let f = self.fast.as_ref().expect("FAST");
        let mut mapped = 0u32;
        for o in 0..f.unit_pages {
            let Some(lpn) = f.lpn_of(lbn, o) else { break };
            let p = self.l2p[lpn as usize];
            if p != INVALID {
                if p != f.page_at(unit, o) {
                    return false;
                }
                mapped += 1;
            }
        }
        let valid: u32 = self
            .unit_blocks(unit)
            .map(|b| self.valid[b as usize] as u32)
            .sum();
        mapped > 0 && valid == mapped
    }

    /// Take a free unit of `domain` for a merge to write (it may take the
    /// free unit host writes leave).
    pub fn fast_open_data(&mut self, domain: u32) -> Option<u32> {
        let x = self.free[domain as usize].pop_front()?;
        let unit = if self.groups {
            domain * self.bpp + x
        } else {
            x
        };
        for b in self.unit_blocks(unit).collect::<Vec<_>>() {
            self.state[b as usize] = BlockState::Data;
        }
        Some(unit)
    }

    /// A merge programs page `dst` of a data unit with the data it read
    /// from `src` for `lpn`: moved if `src` still holds it, else the page is
    /// programmed with stale data (the host rewrote the LPN meanwhile; its
    /// newer copy is in a log). Returns whether the page moved.
    pub fn fast_program(&mut self, src: Ppn, lpn: Lpn, dst: Ppn) -> bool {
        let b = (dst / self.ppb) as usize;
        let page = (dst % self.ppb) as u16;
        debug_assert_eq!(self.state[b], BlockState::Data);
        debug_assert!(self.wp[b] <= page, "merge programs in offset order");
        self.wp[b] = page + 1;
        if src == INVALID || lpn == INVALID || self.p2l[src as usize] != lpn {
            return false;
        }
        let version = self.versions.as_ref().map_or(0, |v| v.page[src as usize]);
        self.invalidate(src);
        self.fast_place(lpn, dst, version);
        true
    }

    /// Map `lpn` (version `version`) to page `dst` of a data unit, which is
    /// programmed (its write pointer is past it).
    fn fast_place(&mut self, lpn: Lpn, dst: Ppn, version: u32) {
        let b = (dst / self.ppb) as usize;
        self.l2p[lpn as usize] = dst;
        self.p2l[dst as usize] = lpn;
        self.valid[b] += 1;
        self.plane_valid[b / self.bpp as usize] += 1;
        if let Some(v) = &mut self.versions {
            v.page[dst as usize] = version;
        }
    }

    /// `unit` (a finished merge's, or a switched log) becomes the data unit
    /// of `lbn`. Returns the old data unit, now a victim to erase (it holds
    /// no valid page).
    pub fn fast_seal(&mut self, lbn: u32, unit: u32) -> Option<u32> {
        for b in self.unit_blocks(unit).collect::<Vec<_>>() {
            self.state[b as usize] = BlockState::Data;
        }
        let f = self.fast.as_mut().expect("FAST");
        let old = std::mem::replace(&mut f.data[lbn as usize], unit);
        if old == INVALID {
            return None;
        }
        for b in self.unit_blocks(old).collect::<Vec<_>>() {
            debug_assert_eq!(self.valid[b as usize], 0, "an old data unit keeps data");
            self.state[b as usize] = BlockState::Victim;
        }
        Some(old)
    }

    /// Preconditioning: map `lpns` (those not mapped yet) into the data
    /// units of their logical blocks, untimed, as merges would leave them.
    fn fast_precondition(&mut self, lpns: impl Iterator<Item = Lpn>) -> Result<u64> {
        let f = self.fast.as_ref().expect("FAST");
        let mut by_lbn: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for lpn in lpns {
            if self.l2p[lpn as usize] == INVALID {
                let (lbn, o) = f.lbn_of(lpn);
                by_lbn.entry(lbn).or_default().push(o);
            }
        }
        let mut written = 0;
        for (lbn, mut offsets) in by_lbn {
            let f = self.fast.as_ref().expect("FAST");
            let domain = f.domain_of_lbn(lbn);
            // Offsets already in the old data unit move along.
            offsets.extend((0..f.unit_pages).filter(|&o| {
                f.lpn_of(lbn, o)
                    .is_some_and(|l| self.l2p[l as usize] != INVALID)
            }));
            offsets.sort_unstable();
            offsets.dedup();
            let unit = self.fast_open_data(domain).ok_or_else(|| {
                Error::Invalid(format!(
                    "preconditioning (FAST): {} {domain} has no free unit for logical block {lbn}",
                    if self.groups { "die" } else { "plane" }
                ))
            })?;
            for o in offsets {
                let f = self.fast.as_ref().expect("FAST");
                let lpn = f.lpn_of(lbn, o).expect("offset within the capacity");
                let dst = f.page_at(unit, o);
                let src = self.l2p[lpn as usize];
                if src == INVALID {
                    self.wp[(dst / self.ppb) as usize] = (dst % self.ppb) as u16 + 1;
                    self.fast_place(lpn, dst, 0);
                    written += 1;
                } else {
                    self.fast_program(src, lpn, dst);
                }
            }
            if let Some(old) = self.fast_seal(lbn, unit) {
                for b in self.unit_blocks(old).collect::<Vec<_>>() {
                    self.erase(b);
                }
            }
        }
        Ok(written)
    }

    /// FAST invariants: data units hold their logical block's pages at their
    /// offsets, valid pages elsewhere are in log units or a merge's victim.
    fn check_fast(&self) -> std::result::Result<(), String> {
        let f = self.fast.as_ref().expect("FAST");
        for (domain, logs) in f.logs.iter().enumerate() {
            if logs.len() > f.limit {
                return Err(format!(
                    "domain {domain} holds {} log units, more than {}",
                    logs.len(),
                    f.limit
                ));
            }
            for &u in logs {
                if let Some(b) = self.unit_blocks(u).find(|&b| {
                    !matches!(
                        self.state[b as usize],
                        BlockState::Active | BlockState::Closed | BlockState::Free
                    )
                }) {
                    return Err(format!(
                        "log unit {u}: block {b} is {:?}",
                        self.state[b as usize]
                    ));
                }
            }
        }
        for (lbn, &unit) in f.data.iter().enumerate() {
            if unit != INVALID {
                if let Some(b) = self
                    .unit_blocks(unit)
                    .find(|&b| self.state[b as usize] != BlockState::Data)
                {
                    return Err(format!(
                        "data unit {unit} of logical block {lbn}: block {b} is {:?}",
                        self.state[b as usize]
                    ));
                }
            }
        }
        for (ppn, &lpn) in self.p2l.iter().enumerate() {
            if lpn == INVALID {
                continue;
            }
            let gb = ppn as u32 / self.ppb;
            let unit = f.unit_of_block(gb);
            match self.state[gb as usize] {
                BlockState::Data => {
                    let (lbn, o) = f.lbn_of(lpn);
                    if f.page_at(unit, o) != ppn as u32 {
                        return Err(format!(
                            "data unit {unit}: page {ppn} holds lpn {lpn} (logical block {lbn} offset {o}) off its place"
                        ));
                    }
                    if f.domain_of_lbn(lbn) != f.domain_of_unit(unit) {
                        return Err(format!(
                            "lpn {lpn} is in data unit {unit} outside its domain"
                        ));
                    }
                }
                BlockState::Victim => {}
                _ if f.is_log(unit) => {}
                s => {
                    return Err(format!(
                        "page {ppn} holds lpn {lpn} in block {gb} ({s:?}), neither a data nor a log unit"
                    ))
                }
            }
        }
        Ok(())
    }
}

/// Planes (LPN residues) filled together: their forward-map entries of one
/// LPN row share a cache line.
const FILL_GROUP: usize = 16;

/// A raw pointer that may be shared by fill threads writing disjoint elements.
struct SharedMut<T>(*mut T);
unsafe impl<T> Sync for SharedMut<T> {}
unsafe impl<T> Send for SharedMut<T> {}

/// What the fill threads share: the maps (written at disjoint elements) and
/// the fill's parameters.
struct FillJob<'a> {
    l2p: SharedMut<u32>,
    p2l: SharedMut<u32>,
    valid: SharedMut<u16>,
    plane_of_residue: &'a [u32],
    planes: u64,
    logical: u64,
    pages_per_plane: u32,
    ppb: u32,
    used_pages: u64,
    want: u64,
}

impl FillJob<'_> {
    /// Fill the planes of residues `g*FILL_GROUP ..`: a random subset of each
    /// plane's used pages, in random order, receives a random subset of the
    /// plane's LPNs, walked row by row for all planes of the group at once.
    ///
    /// # Safety
    /// No other thread may touch the forward-map entries of these residues or
    /// the pages and blocks of their planes while this runs.
    unsafe fn fill_group(&self, g: u64, seed: u64) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let residues = g * FILL_GROUP as u64..((g + 1) * FILL_GROUP as u64).min(self.planes);
        let n = residues.clone().count();
        let mut slots: Vec<Vec<u32>> = Vec::with_capacity(n);
        let mut pool = [0u64; FILL_GROUP];
        let mut need = [0u64; FILL_GROUP];
        let mut next = [0usize; FILL_GROUP];
        for (i, r) in residues.clone().enumerate() {
            pool[i] = if r < self.logical {
                (self.logical - r).div_ceil(self.planes)
            } else {
                0
            };
            need[i] = self.want.min(pool[i]);
            let mut sl = Vec::with_capacity(need[i] as usize);
            select(&mut rng, self.used_pages, need[i], |p| sl.push(p as u32));
            for a in 0..sl.len() {
                let b = a + rng.gen_range(0..(sl.len() - a) as u64) as usize;
                sl.swap(a, b);
            }
            slots.push(sl);
        }
        let rows = pool[..n].iter().copied().max().unwrap_or(0);
        for j in 0..rows {
            for (i, r) in residues.clone().enumerate() {
                let left = pool[i].saturating_sub(j);
                if need[i] == 0
                    || left == 0
                    || (need[i] < left && rng.gen_range(0..left) >= need[i])
                {
                    continue;
                }
                need[i] -= 1;
                let plane = self.plane_of_residue[r as usize];
                let ppn = plane * self.pages_per_plane + slots[i][next[i]];
                next[i] += 1;
                let lpn = j * self.planes + r;
                // SAFETY: see the function's contract; indices are in range
                // (lpn < logical, ppn < physical pages).
                unsafe {
                    *self.l2p.0.add(lpn as usize) = ppn;
                    *self.p2l.0.add(ppn as usize) = lpn as u32;
                    *self.valid.0.add((ppn / self.ppb) as usize) += 1;
                }
            }
        }
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

/// Selection sampling (Knuth's Algorithm S): call `f` with `k` of `0..n`,
/// chosen uniformly at random, in increasing order.
fn select(rng: &mut Xoshiro256PlusPlus, n: u64, k: u64, mut f: impl FnMut(u64)) {
    let mut r = rng.clone(); // a local copy stays in registers
    let mut need = k;
    for i in 0..n {
        let left = n - i;
        if need == 0 {
            break;
        }
        // When every remaining item is needed, no draw is needed either.
        if need == left || r.gen_range(0..left) < need {
            f(i);
            need -= 1;
        }
    }
    *rng = r;
}

/// Plane of each residue `lpn % planes` under the configured static order.
fn static_table(cfg: &Config) -> Vec<u32> {
    let g = &cfg.geometry;
    let planes = cfg.total_planes();
    let order = cfg.ftl.static_order.to_ascii_uppercase();
    (0..planes)
        .map(|r| {
            let (mut c, mut w, mut d, mut p) = (0, 0, 0, 0);
            let mut rem = r;
            for letter in order.chars() {
                let (radix, digit) = match letter {
                    'C' => (g.channels, &mut c),
                    'W' => (g.chips_per_channel, &mut w),
                    'D' => (g.dies_per_chip, &mut d),
                    _ => (g.planes_per_die, &mut p),
                };
                *digit = rem % radix;
                rem /= radix;
            }
            ((c * g.chips_per_channel + w) * g.dies_per_chip + d) * g.planes_per_die + p
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn small() -> Config {
        Config::preset("small").unwrap()
    }

    #[test]
    fn static_order_cwdp_spreads_channels_first() {
        let c = small();
        let t = static_table(&c);
        // small: 4 ch x 2 chips x 1 die x 2 planes; plane = ((c*2+w)*1+d)*2+p
        assert_eq!(&t[..5], &[0, 4, 8, 12, 2]);
        let mut sorted = t.clone();
        sorted.sort();
        assert_eq!(sorted, (0..16).collect::<Vec<_>>());
        let mut c2 = small();
        c2.ftl.static_order = "PDWC".into();
        assert_eq!(&static_table(&c2)[..3], &[0, 1, 2]);
    }

    #[test]
    fn write_rewrite_and_close() {
        let c = small();
        let mut f = Ftl::new(&c, true);
        let ppb = f.pages_per_block();
        let a = f.write(0, 7, 1, Writer::Host { hot: false }, 0).unwrap();
        assert_eq!(f.lookup(7), Some(a));
        let b = f.write(0, 7, 2, Writer::Host { hot: false }, 0).unwrap();
        assert_eq!(f.owner(a), None);
        assert_eq!(f.valid_count(a / ppb), 1);
        assert_eq!(b, a + 1);
        for i in 2..ppb {
            f.write(0, 1000 + i, 0, Writer::Host { hot: false }, 0)
                .unwrap();
        }
        assert_eq!(f.block_state(0), BlockState::Closed);
        f.versions.as_mut().unwrap().latest[7] = 2;
        f.check(|_| None).unwrap();
    }

    #[test]
    fn fill_hits_its_targets_and_checks() {
        let c = small();
        let mut f = Ftl::new(&c, true);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut rep = PreconditionReport::default();
        f.precondition_fill(0.5, 0.8, &mut rng, &mut rep).unwrap();
        let ppp = 512 * 128u64;
        assert_eq!(rep.pages_written, 16 * ppp / 2);
        assert_eq!(
            rep.valid_pages,
            16 * (ppp as f64 * 0.5 * 0.8).round() as u64
        );
        assert_eq!(rep.valid_pages_capped, 0);
        assert_eq!(f.free_pages(3), ppp / 2);
        f.check(|_| None).unwrap();
    }

    #[test]
    fn aligned_open_takes_the_index_a_sibling_plane_writes() {
        let mut c = small();
        c.geometry.blocks_per_plane = 8;
        c.geometry.pages_per_block = 4;
        c.ftl.overprovisioning = 0.3;
        let host = Writer::Host { hot: false };
        let open_next = |align: bool| {
            let mut c = c.clone();
            c.ftl.align_block_index = align;
            let mut f = Ftl::new(&c, false);
            // Plane 1 (plane 0's sibling) fills block 0 and opens the next.
            for lpn in 0..5 {
                f.write(1, lpn, 0, host, 0).unwrap();
            }
            // Where plane 0 opens its first block: what peek_write says is
            // where the write goes.
            let peek = f.peek_write(0, host).unwrap();
            let ppn = f.write(0, 100, 0, host, 0).unwrap();
            assert_eq!(peek, (f.map.block_of(ppn), f.map.page_of(ppn)));
            (f.map.block_of(f.lookup(4).unwrap()), peek.0)
        };
        // Plane 1's second block: the first index free on both planes (0 is
        // taken on plane 1), and plane 0 then opens the same index rather
        // than its oldest free block.
        assert_eq!(open_next(true), (1, 1));
        assert_eq!(open_next(false), (1, 0));
    }

    #[test]
    fn host_writes_leave_the_gc_reserve() {
        let mut c = small();
        c.geometry.blocks_per_plane = 8;
        c.geometry.pages_per_block = 4;
        c.gc.threshold = crate::config::GcThreshold::Blocks(1);
        c.ftl.overprovisioning = 0.3;
        let mut f = Ftl::new(&c, false);
        let mut n = 0;
        while f.write(0, n, 0, Writer::Host { hot: false }, 0).is_some() {
            n += 1;
        }
        assert_eq!(n, 7 * 4, "host may not take the last free block");
        assert!(f.write(0, 300, 0, Writer::GC, 0).is_some(), "GC may");
    }

    #[test]
    fn trace_read_mapping_cleans_with_any_victim_policy() {
        // A plane almost full of valid data: mapping more LPNs needs
        // functional GC, which must not give up on a full-valid victim.
        for victim in [
            crate::config::VictimPolicy::Greedy,
            crate::config::VictimPolicy::Fifo,
            crate::config::VictimPolicy::Random,
        ] {
            let mut c = small();
            c.geometry.pages_per_block = 16;
            c.geometry.blocks_per_plane = 256;
            c.ftl.overprovisioning = 0.07;
            c.gc.threshold = crate::config::GcThreshold::Percent(6.0);
            c.gc.victim = victim;
            c.validate("t").unwrap();
            let mut f = Ftl::new(&c, true);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
            let mut rep = PreconditionReport::default();
            f.precondition_fill(0.92, 0.97, &mut rng, &mut rep).unwrap();
            let all = 0..f.logical_pages as u32;
            f.precondition_map(all, &mut rng, &mut rep)
                .unwrap_or_else(|e| panic!("{victim:?}: {e}"));
            assert!(rep.functional_gc > 0, "{victim:?}");
            for plane in 0..f.planes() {
                assert!(!f.needs_gc(plane));
            }
            f.check(|_| None).unwrap();
        }
    }
}
