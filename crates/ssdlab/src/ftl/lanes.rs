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

use crate::config::{BlockGroups, Config, Mapping, PageLayout, ProgramOrder, WriteUnit};

/// What relaxed program order requires of the other policies.
pub(crate) fn requirements(c: &Config) -> crate::scheme::Requirement {
    if c.ftl.program_order != ProgramOrder::Relaxed {
        return Ok(());
    }
    let why = if c.cell.page_layout != PageLayout::Wordlines {
        "cell.page_layout = \"wordlines\" (the lanes are the wordlines' page types)"
    } else if c.cell.kind.bits() < 2 {
        "a multi-bit cell (MLC or TLC)"
    } else if c.ftl.block_groups != BlockGroups::Plane || c.ftl.write_unit != WriteUnit::Page {
        "per-plane blocks written page by page (block groups align write points by page index)"
    } else if c.ftl.mapping == Mapping::Fast {
        "page or DFTL mapping (FAST programs its blocks at their offsets)"
    } else if c.gc.parity_destinations {
        "gc.parity_destinations off (a page cannot be chosen by parity and by type at once)"
    } else {
        return Ok(());
    };
    Err(("ftl.program_order", format!("\"relaxed\" needs {why}")))
}

/// The lanes of every block.
#[derive(Clone, Debug)]
pub(crate) struct Lanes {
    /// Lanes per block (bits per cell: 2 or 3).
    bits: usize,
    /// Wordlines per block.
    wordlines: u16,
    /// Page index of (lane, wordline): `page[lane * wordlines + w]`.
    page: Vec<u32>,
    /// Lane and wordline of every page index.
    of_page: Vec<(u8, u16)>,
    /// Per block: pages programmed in each lane (the next wordline).
    next: Vec<[u16; 3]>,
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
