//! Relaxed program order within multi-bit blocks (PA-SSD §4.3.1, Fig. 8):
//! a block's pages form one lane per page type (LSB, CSB, MSB), each
//! programmed in wordline order, with two gates instead of the strict
//! program order of the layout:
//!
//! - a CSB page of wordline w only once the LSB page of wordline w + 1 is
//!   programmed (the LSB pages of its adjacent wordlines; the last
//!   wordline needs its own);
//! - an MSB page of wordline w only once the CSB page of wordline w + 1 is
//!   programmed.
//!
//! So a block offers up to one candidate page per type. The strict order
//! (`cell.page_layout = "wordlines"`) satisfies the gates, and the lowest
//! page index among the candidates is always the next page in strict
//! order: type-blind allocation under relaxed order is the strict order.
//!
//! With aligned block groups (SPD's Die-Writes) the blocks of a group are
//! programmed in step: a Die-Write takes one page type for all its pages
//! (`Simulator::gang_of`), so every plane's block offers the same
//! candidates and the Die-Write programs one page index on every plane.

use crate::config::{BlockGroups, Config, PageLayout, ProgramOrder, WriteUnit};

/// What relaxed program order and the type pools require of the other
/// policies.
pub(crate) fn requirements(c: &Config) -> crate::config::Requirement {
    if c.ftl.type_pools {
        if c.ftl.program_order != ProgramOrder::Relaxed {
            return Err((
                "ftl.type_pools",
                "keeps an active block per page type: needs ftl.program_order = \"relaxed\"".into(),
            ));
        }
        if c.ftl.hot_data != "none" {
            return Err((
                "ftl.type_pools",
                "keeps its own active blocks: needs ftl.hot_data = \"none\" (one write stream)"
                    .into(),
            ));
        }
        if c.ftl.block_groups != BlockGroups::Plane {
            return Err((
                "ftl.type_pools",
                "moves each plane's blocks between its pools on their own (a block joins the CSB pool when its LSB pages run out): needs per-plane blocks (block_groups = \"plane\"); aligned groups take relaxed program order without pools, one page type per Die-Write".into(),
            ));
        }
        if c.host.page_types.trim().eq_ignore_ascii_case("none") {
            return Err((
                "ftl.type_pools",
                "serves each page type from its own active block: needs a host.page_types scheme (writes without a type would all take LSB first)".into(),
            ));
        }
    }
    if c.ftl.program_order != ProgramOrder::Relaxed {
        return Ok(());
    }
    let why = if c.cell.page_layout != PageLayout::Wordlines {
        "cell.page_layout = \"wordlines\" (the lanes are the wordlines' page types)"
    } else if c.cell.kind.bits() < 2 {
        "a multi-bit cell (MLC or TLC)"
    } else if !matches!(
        (c.ftl.block_groups, c.ftl.write_unit),
        (BlockGroups::Plane, WriteUnit::Page) | (BlockGroups::Die, WriteUnit::Die)
    ) {
        "per-plane blocks written page by page, or aligned groups written by Die-Writes (one page type per Die-Write keeps the planes' blocks in step; TwinBlk's page-by-page writes to groups and super pages do not)"
    } else if c.ftl.mapping.hybrid() {
        "page or DFTL mapping (a hybrid map programs its blocks at their offsets)"
    } else {
        return Ok(());
    };
    Err(("ftl.program_order", format!("\"relaxed\" needs {why}")))
}

/// The lanes of every block.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Lanes {
    /// Lanes per block (bits per cell: 2 or 3).
    pub(super) bits: usize,
    /// Wordlines per block.
    pub(super) wordlines: u16,
    /// Page index of (lane, wordline): `page[lane * wordlines + w]`.
    page: Vec<u32>,
    /// Lane and wordline of every page index.
    of_page: Vec<(u8, u16)>,
    /// Per block: pages programmed in each lane (the next wordline).
    pub(super) next: Vec<[u16; 3]>,
    /// Free pages of each lane over all blocks.
    free: [u64; 3],
}

impl Lanes {
    /// Lanes for `nblocks` blocks of `cfg`'s layout, which must be
    /// `wordlines` with at least two bits per cell (the caller's
    /// requirement).
    pub(crate) fn new(cfg: &Config, nblocks: usize) -> Lanes {
        debug_assert_eq!(cfg.cell.page_layout, PageLayout::Wordlines);
        let types = cfg.cell.kind.page_types();
        let bits = types.len();
        let layout = cfg.page_layout();
        let wordlines = (layout.len() / bits) as u16;
        let mut page = vec![0u32; layout.len()];
        let mut of_page = Vec::with_capacity(layout.len());
        for (i, &(t, w)) in layout.iter().enumerate() {
            let lane = types
                .iter()
                .position(|&x| x == t)
                .expect("a type of the cell");
            page[lane * wordlines as usize + w as usize] = i as u32;
            of_page.push((lane as u8, w as u16));
        }
        let mut free = [0u64; 3];
        for f in free.iter_mut().take(bits) {
            *f = wordlines as u64 * nblocks as u64;
        }
        Lanes {
            bits,
            wordlines,
            page,
            of_page,
            next: vec![[0; 3]; nblocks],
            free,
        }
    }

    /// Free pages of each lane over all blocks.
    pub(crate) fn free(&self) -> [u64; 3] {
        self.free
    }

    /// Lane (type index among the cell's types, fast to slow) of a page.
    #[inline]
    pub(crate) fn lane_of(&self, page: u32) -> usize {
        self.of_page[page as usize].0 as usize
    }

    /// The page lane `lane` of block `gb` may program next, if any.
    #[inline]
    pub(crate) fn candidate(&self, gb: u32, lane: usize) -> Option<u32> {
        let n = &self.next[gb as usize];
        let w = n[lane];
        if w >= self.wordlines {
            return None;
        }
        if lane > 0 && n[lane - 1] < (w + 2).min(self.wordlines) {
            return None;
        }
        Some(self.page[lane * self.wordlines as usize + w as usize])
    }

    /// The lanes to try for a write that wants `lane`, in order: that lane,
    /// then the others nearest first, the faster of two equally near (so
    /// the slowest type is always the last alternate, PA-SSD Fig. 10).
    pub(crate) fn preference(&self, lane: usize) -> impl Iterator<Item = usize> {
        let mut order = [0usize, 1, 2];
        let order = &mut order[..self.bits];
        order.sort_by_key(|&l| (l.abs_diff(lane), l));
        let [a, b, c] = [order[0], order[1], *order.get(2).unwrap_or(&usize::MAX)];
        [a, b, c].into_iter().filter(|&l| l != usize::MAX)
    }

    /// The page a write of block `gb` takes: with `want`, the candidate of
    /// that lane or of the first alternate that has one; without, the
    /// lowest page index among the candidates (the strict order). None if
    /// the block has no candidate.
    pub(crate) fn choose(&self, gb: u32, want: Option<usize>) -> Option<u32> {
        match want {
            Some(lane) => self.preference(lane).find_map(|l| self.candidate(gb, l)),
            None => (0..self.bits).filter_map(|l| self.candidate(gb, l)).min(),
        }
    }

    /// Block `gb` programs `page`, a candidate.
    #[inline]
    pub(crate) fn take(&mut self, gb: u32, page: u32) {
        let (lane, w) = self.of_page[page as usize];
        let n = &mut self.next[gb as usize][lane as usize];
        debug_assert_eq!(*n, w, "lanes program in wordline order");
        *n += 1;
        self.free[lane as usize] -= 1;
    }

    /// Block `gb` was erased.
    pub(crate) fn reset(&mut self, gb: u32) {
        for (f, n) in self.free.iter_mut().zip(self.next[gb as usize]) {
            *f += n as u64;
        }
        self.next[gb as usize] = [0; 3];
    }

    /// Block `gb`'s first `n` pages (strict order) are programmed.
    pub(crate) fn set_written(&mut self, gb: u32, n: u16) {
        let mut next = [0u16; 3];
        for p in 0..n as usize {
            next[self.of_page[p].0 as usize] += 1;
        }
        let old = std::mem::replace(&mut self.next[gb as usize], next);
        for ((f, o), n) in self.free.iter_mut().zip(old).zip(next) {
            *f = *f + o as u64 - n as u64;
        }
    }

    /// Is `page` of block `gb` programmed?
    #[inline]
    pub(crate) fn programmed(&self, gb: u32, page: u32) -> bool {
        let (lane, w) = self.of_page[page as usize];
        w < self.next[gb as usize][lane as usize]
    }

    /// Pages programmed in block `gb`.
    pub(crate) fn count(&self, gb: u32) -> u32 {
        self.next[gb as usize].iter().map(|&n| n as u32).sum()
    }

    /// The gates hold for block `gb`: every programmed CSB (MSB) page has
    /// the LSB (CSB) page of the next wordline programmed.
    pub(crate) fn check(&self, gb: u32) -> std::result::Result<(), String> {
        let n = &self.next[gb as usize];
        for lane in 1..self.bits {
            if n[lane] > 0 && n[lane - 1] < (n[lane] + 1).min(self.wordlines) {
                return Err(format!(
                    "block {gb}: lane {lane} has {} wordlines programmed but lane {} only {}: a page was programmed before the lower page of the next wordline",
                    n[lane],
                    lane - 1,
                    n[lane - 1]
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn tlc(pages: u32) -> Lanes {
        let mut c = Config::preset("pa-tlc").unwrap();
        c.geometry.pages_per_block = pages;
        Lanes::new(&c, 1)
    }

    /// Without a wanted type the lanes give the strict order of Fig. 5.
    #[test]
    fn type_blind_allocation_is_the_strict_order() {
        let mut l = tlc(18);
        for expected in 0..18 {
            let p = l.choose(0, None).unwrap();
            assert_eq!(p, expected);
            l.take(0, p);
        }
        assert_eq!(l.choose(0, None), None);
        assert_eq!(l.count(0), 18);
    }

    /// Fig. 8 (b), (c), (e): which candidates a block offers.
    #[test]
    fn candidates_follow_the_gates() {
        let mut l = tlc(18);
        // Fresh: only the LSB page of wordline 0.
        assert_eq!(
            (0..3).map(|t| l.candidate(0, t)).collect::<Vec<_>>(),
            [Some(0), None, None]
        );
        for p in [0, 1] {
            l.take(0, p); // LSB of wordlines 0 and 1
        }
        // The CSB page of wordline 0 (page 2) is now a candidate.
        assert_eq!(l.candidate(0, 1), Some(2));
        assert_eq!(l.candidate(0, 2), None);
        // All LSB pages: CSB candidates only, MSB after CSB of wordline 1.
        for p in [3, 6, 9, 12] {
            l.take(0, p);
        }
        assert_eq!(l.candidate(0, 0), None);
        for p in [2, 4] {
            l.take(0, p);
        }
        assert_eq!(l.candidate(0, 2), Some(5));
        // A write that wants LSB gets the first alternate, CSB.
        assert_eq!(l.choose(0, Some(0)), Some(7));
        // One that wants MSB gets it.
        assert_eq!(l.choose(0, Some(2)), Some(5));
    }

    #[test]
    fn alternates_put_the_slowest_type_last() {
        let l = tlc(18);
        let pref = |t| l.preference(t).collect::<Vec<_>>();
        assert_eq!(pref(0), [0, 1, 2]);
        assert_eq!(pref(1), [1, 0, 2]);
        assert_eq!(pref(2), [2, 1, 0]);
    }

    /// The relaxed constraints (issue's validation): random typed
    /// allocations never program a page whose neighbours' constraints are
    /// unmet, and fill the block completely.
    #[test]
    fn random_typed_allocations_keep_the_gates() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        for pages in [18u32, 96, 384] {
            for _ in 0..200 {
                let mut l = tlc(pages);
                let w = pages / 3;
                let mut programmed = vec![false; pages as usize];
                for _ in 0..pages {
                    let want = rng.gen_range(0..3);
                    let p = l
                        .choose(0, Some(want))
                        .expect("a partly programmed block has a candidate");
                    assert!(!programmed[p as usize], "page {p} programmed twice");
                    let (lane, wl) = l.of_page[p as usize];
                    // Its lane's lower wordlines are programmed, and the gate.
                    for lower in 0..wl {
                        let q = l.page[lane as usize * w as usize + lower as usize];
                        assert!(programmed[q as usize], "lane order broken at page {p}");
                    }
                    if lane > 0 {
                        let gate_wl = (wl + 1).min(w as u16 - 1);
                        let q = l.page[(lane as usize - 1) * w as usize + gate_wl as usize];
                        assert!(programmed[q as usize], "gate broken at page {p}");
                    }
                    l.take(0, p);
                    programmed[p as usize] = true;
                    l.check(0).unwrap();
                }
                assert!(programmed.iter().all(|&x| x));
            }
        }
    }
}

/// PA-SSD's block management (Fig. 9, `ftl.type_pools`): per plane three
/// active blocks, one per page type, and four pools — LSB candidates (the
/// free list), CSB candidates (blocks whose LSB pages are all programmed),
/// MSB candidates (CSB pages all programmed too) and used (full blocks,
/// the GC's victims). A block leaves the active slot of a type when that
/// type's pages run out and joins the pool of its slowest type with free
/// pages; full, it is closed. When the CSB pool is empty the active LSB
/// block serves CSB writes too, and the active CSB block MSB writes when
/// the MSB pool is.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct TypePools {
    /// Per plane: active block of each type (the LSB one is
    /// `Ftl::active[plane]`; slots 1 and 2 here), INVALID if none.
    act: Vec<[u32; 2]>,
    /// Per plane: CSB candidates, MSB candidates.
    pool: Vec<[VecDeque<u32>; 2]>,
    /// Per plane: unprogrammed pages of its blocks outside the free list.
    partial_free: Vec<u64>,
}

use std::collections::VecDeque;

use super::{BlockState, Ftl, Place};
use crate::addr::{PlaneId, Ppn, INVALID};
use crate::engine::Time;

/// Where a typed write's block comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Source {
    /// The active block of this slot (0 LSB, 1 CSB, 2 MSB).
    Active(usize),
    /// The front of the CSB (0) or MSB (1) candidates' pool.
    Pool(usize),
    /// A block from the free list (the new active LSB block).
    Free,
}

impl TypePools {
    pub(crate) fn new(planes: usize) -> TypePools {
        TypePools {
            act: vec![[INVALID; 2]; planes],
            pool: (0..planes)
                .map(|_| [VecDeque::new(), VecDeque::new()])
                .collect(),
            partial_free: vec![0; planes],
        }
    }
}

impl Ftl {
    /// Type pools: the active block of `slot` in `plane`.
    fn slot_block(&self, plane: usize, slot: usize) -> u32 {
        let tp = self.points.pools.as_ref().expect("type pools");
        if slot == 0 {
            self.points.active[plane]
        } else {
            tp.act[plane][slot - 1]
        }
    }

    /// Type pools: free pages of a plane (free blocks and the rest of every
    /// block outside the free list).
    pub(crate) fn pools_free_pages(&self, plane: PlaneId) -> u64 {
        let tp = self.points.pools.as_ref().expect("type pools");
        self.alloc.free[plane.index()].len() as u64 * self.ppb as u64
            + tp.partial_free[plane.index()]
    }

    /// Type pools: the block and page a write placed by `place` would take
    /// in `plane` (GC writes may use the free blocks the host may not).
    fn pools_pick(&self, plane: PlaneId, place: Place, gc: bool) -> Option<(Source, u32, u32)> {
        let lanes = self
            .blocks
            .lanes
            .as_ref()
            .expect("type pools need relaxed order");
        let tp = self.points.pools.as_ref().expect("type pools");
        let p = plane.index();
        let want = match place {
            Place::Lane(t) => t,
            Place::Next | Place::Parity(_) => 0,
        };
        for lane in lanes.preference(want) {
            let own = self.slot_block(p, lane);
            let from = if own != INVALID {
                Some((Source::Active(lane), own))
            } else if lane == 0 {
                let reserve = if gc { 0 } else { self.alloc.reserve_blocks };
                (self.alloc.free[p].len() > reserve).then(|| (Source::Free, self.alloc.free[p][0]))
            } else if let Some(&b) = tp.pool[p][lane - 1].front() {
                Some((Source::Pool(lane - 1), b))
            } else {
                // An empty pool: the active block of the type below doubles.
                let below = self.slot_block(p, lane - 1);
                (below != INVALID).then_some((Source::Active(lane - 1), below))
            };
            if let Some((src, b)) = from {
                if let Some(page) = lanes.candidate(b, lane) {
                    return Some((src, b, page));
                }
            }
        }
        None
    }

    /// Type pools: (block, page) within the plane for `peek_write*`.
    pub(crate) fn pools_peek(&self, plane: PlaneId, place: Place, gc: bool) -> Option<(u32, u32)> {
        self.pools_pick(plane, place, gc)
            .map(|(_, b, page)| (b % self.bpp, page))
    }

    /// Type pools: write `lpn` (INVALID: padding) replacing `old` into the
    /// page `place` picks in `plane`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn pools_write(
        &mut self,
        plane: PlaneId,
        lpn: u32,
        old: Ppn,
        version: u32,
        gc: bool,
        now: Time,
        place: Place,
    ) -> Option<Ppn> {
        let (src, b, page) = self.pools_pick(plane, place, gc)?;
        let p = plane.index();
        match src {
            Source::Free => {
                let got = self.alloc.free[p].pop_front();
                debug_assert_eq!(got, Some(b));
                self.blocks.state[b as usize] = BlockState::Active;
                self.points.active[p] = b;
                self.points.pools.as_mut().expect("type pools").partial_free[p] += self.ppb as u64;
            }
            Source::Pool(k) => {
                let tp = self.points.pools.as_mut().expect("type pools");
                let got = tp.pool[p][k].pop_front();
                debug_assert_eq!(got, Some(b));
                tp.act[p][k] = b;
            }
            Source::Active(_) => {}
        }
        let lanes = self.blocks.lanes.as_mut().expect("relaxed order");
        lanes.take(b, page);
        self.blocks.wp[b as usize] += 1;
        self.points.pools.as_mut().expect("type pools").partial_free[p] -= 1;
        let ppn = b * self.ppb + page;
        if lpn != INVALID {
            if old != INVALID {
                self.invalidate(old);
            }
            self.maps.l2p.set(lpn as usize, ppn);
            self.maps.p2l.set(ppn as usize, lpn);
            self.blocks.valid[b as usize] += 1;
            self.blocks.plane_valid[p] += 1;
            if let Some(v) = &mut self.maps.versions {
                v.page[ppn as usize] = version;
            }
        }
        self.pools_settle_block(p, b, now);
        Some(ppn)
    }

    /// Move block `b` of plane `p` where its state says: out of every
    /// active slot whose type it has no free page of left, into the pool
    /// of its slowest type with free pages, or closed when full.
    fn pools_settle_block(&mut self, p: usize, b: u32, now: Time) {
        let lanes = self.blocks.lanes.as_ref().expect("relaxed order");
        let w = lanes.wordlines;
        let next = lanes.next[b as usize];
        let bits = lanes.bits;
        let mut left_slot = false;
        for (slot, &n) in next.iter().enumerate().take(bits) {
            if self.slot_block(p, slot) == b && n >= w {
                left_slot = true;
                if slot == 0 {
                    self.points.active[p] = INVALID;
                } else {
                    self.points.pools.as_mut().expect("type pools").act[p][slot - 1] = INVALID;
                }
            }
        }
        let still_active = (0..bits).any(|s| self.slot_block(p, s) == b);
        if !left_slot || still_active {
            return;
        }
        if self.blocks.wp[b as usize] as u32 == self.ppb {
            self.blocks.state[b as usize] = BlockState::Closed;
            self.close(b, now);
            return;
        }
        // The first type with free pages, above LSB: its candidates' pool.
        let stage = (1..bits)
            .find(|&l| next[l] < w)
            .expect("a block with free pages");
        self.points.pools.as_mut().expect("type pools").pool[p][stage - 1].push_back(b);
    }

    /// Type pools, after a bulk fill: put each plane's partly written
    /// block where its state says, and count the free pages outside the
    /// free lists.
    pub(crate) fn pools_settle_all(&mut self, now: Time) {
        if self.points.pools.is_none() {
            return;
        }
        for p in 0..self.planes as usize {
            let a = self.points.active[p];
            if a != INVALID {
                let left = (self.ppb - self.blocks.wp[a as usize] as u32) as u64;
                self.points.pools.as_mut().expect("type pools").partial_free[p] = left;
                self.pools_settle_block(p, a, now);
            }
        }
    }

    /// Type pools: the active and pooled blocks are exactly the blocks
    /// in state Active, and their free pages are counted.
    pub(crate) fn pools_check(&self) -> std::result::Result<(), String> {
        let tp = self.points.pools.as_ref().expect("type pools");
        for p in 0..self.planes as usize {
            let mut held: Vec<u32> = (0..3)
                .map(|s| {
                    if s == 0 {
                        self.points.active[p]
                    } else {
                        tp.act[p][s - 1]
                    }
                })
                .filter(|&b| b != INVALID)
                .chain(tp.pool[p].iter().flatten().copied())
                .collect();
            held.sort_unstable();
            held.dedup();
            let blocks = p as u32 * self.bpp..(p as u32 + 1) * self.bpp;
            let active: Vec<u32> = blocks
                .filter(|&b| self.blocks.state[b as usize] == BlockState::Active)
                .collect();
            if held != active {
                return Err(format!(
                    "plane {p}: blocks in active slots and pools {held:?}, blocks in state Active {active:?}"
                ));
            }
            let free: u64 = held
                .iter()
                .map(|&b| (self.ppb - self.blocks.wp[b as usize] as u32) as u64)
                .sum();
            if free != tp.partial_free[p] {
                return Err(format!(
                    "plane {p}: {free} free pages in its active and pooled blocks, {} counted",
                    tp.partial_free[p]
                ));
            }
        }
        Ok(())
    }
}
