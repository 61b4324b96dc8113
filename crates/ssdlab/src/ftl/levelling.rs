//! Wear levelling (`ftl.wear_levelling`), both optional and off by default.
//!
//! **Dynamic levelling** (`dynamic = true`): each plane's free list is kept
//! in ascending order of (erase count, block id). With hot/cold separation
//! (`ftl.hot_data`: a hot and a cold write stream per plane) the hot stream
//! opens the least-worn free block (the front) and the cold stream, which
//! takes cold host pages and GC moves (or the moves judged cold under
//! `hot_separation = "gc-moves"`), the most-worn (the back): hot data is
//! soon invalid again, so its block soon returns to be erased, while cold
//! data holds its block a long time and spares it. Without separation a
//! plane has one stream, whose block takes host pages and GC moves alike:
//! every opening takes the least-worn free block (MQSim's rule), and the
//! most-worn wait at the back while younger ones are free. Choosing is O(1)
//! (either end of the deque); an erased block is inserted at its place,
//! found by binary search (O(log n) comparisons, plus the shift of the
//! shorter side of the deque). The free lists are never reordered
//! otherwise, so the checker can verify the order.
//!
//! **Static levelling** (`static_threshold = T`): per plane the fewest and
//! the most erases of a block are kept as blocks are erased (O(1) per
//! erase, and one pass over the plane's blocks when the last block at the
//! fewest leaves it: at most once per erase of every block of the plane).
//! When GC picks a victim in a plane whose spread (most − fewest) exceeds
//! T, the victim is the plane's least-worn closed block (the lowest index
//! on a tie) if its erases are more than T below the plane's most, instead
//! of the victim policy's choice: its valid (cold) data moves as any GC
//! move does, to GC's write stream (under dynamic levelling with hot/cold
//! streams, a most-worn free block), timed in a timed run and untimed when aging or in lifetime
//! mode, and the block is erased and returns to the free list. Such a
//! victim frees no space (it is usually full); it counts neither as a
//! fruitless GC nor resets that count. Finding it is one pass over the
//! plane's blocks, only while the spread exceeds T. Erasing a levelling
//! victim never raises the plane's most (its count stays at or below
//! most − T), so a spread above T only falls through levelling; GC's own
//! erases raise it.
//!
//! Counted (`Report::wear_levelling`): levelling victims and the pages
//! moved out of them (a move dropped because the host rewrote its page is
//! not a move) since the timed run began.

use super::*;
use crate::addr::{PlaneId, Ppn, INVALID};
use crate::config::{Config, Requirement};
use crate::metrics::WearLevellingReport;

/// Wear levelling's state (module documentation). Rebuilt from the
/// configuration and the erase counts ([`Ftl::levelling_restart`]), so a
/// saved drive state does not carry it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Levelling {
    dynamic: bool,
    /// Static levelling's threshold.
    threshold: Option<u32>,
    /// Hot/cold separation: two write streams per plane.
    split: bool,
    /// Static: per plane, the fewest and most erases of a block and the
    /// blocks at the fewest.
    min: Vec<u32>,
    max: Vec<u32>,
    at_min: Vec<u32>,
    /// Static: per plane, the levelling victim being emptied, or INVALID.
    victim: Vec<u32>,
    /// Was the last victim picked a levelling one?
    last_levelled: bool,
    /// Levelling victims picked, and pages moved out of them.
    blocks: u64,
    pages: u64,
}

impl Ftl {
    /// Build wear levelling's state for `cfg` (none if off): counts start
    /// at zero, the per-plane erase extremes from the blocks' counts.
    /// Called by the constructor and again when the timed run begins (so
    /// the report counts what the run did, after aging or a loaded state;
    /// no levelling victim is being emptied then: aging's GC is instant).
    pub(crate) fn levelling_restart(&mut self, cfg: &Config) {
        let w = &cfg.ftl.wear_levelling;
        if w.is_off() {
            self.levelling = None;
            return;
        }
        let planes = self.planes as usize;
        let mut l = Levelling {
            dynamic: w.dynamic,
            threshold: w.static_threshold,
            split: self.points.streams > 1,
            min: vec![0; planes],
            max: vec![0; planes],
            at_min: vec![0; planes],
            victim: vec![INVALID; planes],
            ..Levelling::default()
        };
        for p in 0..planes {
            (l.min[p], l.max[p], l.at_min[p]) = self.erase_extremes(p);
        }
        self.levelling = Some(l);
    }

    /// The erase counts of `plane`'s blocks in service (bad blocks: not
    /// retired, not a spare waiting in the pool).
    fn in_service(&self, plane: usize) -> impl Iterator<Item = u32> + '_ {
        let bpp = self.bpp as usize;
        let range = plane * bpp..(plane + 1) * bpp;
        self.blocks.erase_count[range.clone()]
            .iter()
            .zip(&self.blocks.state[range])
            .filter(|(_, &s)| s != BlockState::Retired && s != BlockState::Spare)
            .map(|(&e, _)| e)
    }

    /// `plane`'s fewest and most erases of a block in service, and the
    /// blocks at the fewest (0, 0, 0 if none is).
    fn erase_extremes(&self, plane: usize) -> (u32, u32, u32) {
        let lo = self.in_service(plane).min().unwrap_or(0);
        let hi = self.in_service(plane).max().unwrap_or(0);
        let at = self.in_service(plane).filter(|&e| e == lo).count() as u32;
        (lo, hi, at)
    }

    /// Bad blocks: block `gb` retired at an erase (and a spare may have
    /// joined its plane): the plane's extremes afresh, and a levelling
    /// victim that retired is done with.
    #[cold]
    pub(super) fn levelling_retired(&mut self, gb: u32) {
        let p = (gb / self.bpp) as usize;
        let extremes = self.erase_extremes(p);
        let Some(l) = self.levelling.as_mut() else {
            return;
        };
        if l.victim[p] == gb {
            l.victim[p] = INVALID;
        }
        (l.min[p], l.max[p], l.at_min[p]) = extremes;
    }

    /// Dynamic levelling: where in `plane`'s free list a block opened by
    /// `w` is taken (0: the least-worn; the last: the most-worn). 0 when
    /// dynamic levelling is off (the oldest free block).
    #[inline]
    pub(super) fn levelled_open_pos(&self, free_len: usize, w: Writer) -> usize {
        match &self.levelling {
            // One stream per plane: its block takes host writes and GC
            // moves alike, so every opening takes the least-worn block.
            Some(l) if l.dynamic && l.split && free_len > 0 => match w {
                Writer::Host { hot: true } | Writer::Gc { hot: true } => 0,
                Writer::Host { hot: false } | Writer::Gc { hot: false } => free_len - 1,
            },
            _ => 0,
        }
    }

    /// Return erased block `gb` to its plane's free list: at the back, or
    /// under dynamic levelling at its place by (erase count, id).
    #[inline]
    pub(super) fn free_block(&mut self, gb: u32) {
        let list = (gb / self.bpp) as usize;
        if !self.levelling.as_ref().is_some_and(|l| l.dynamic) {
            self.alloc.free[list].push_back(gb);
            return;
        }
        let ec = &self.blocks.erase_count;
        let key = (ec[gb as usize], gb);
        let free = &mut self.alloc.free[list];
        let pos = free.partition_point(|&b| (ec[b as usize], b) < key);
        free.insert(pos, gb);
    }

    /// Block `gb` was erased: static levelling's per-plane extremes, and
    /// the end of a levelling victim.
    #[inline(never)]
    pub(super) fn levelling_erased(&mut self, gb: u32) {
        let (bpp, e) = (self.bpp, self.blocks.erase_count[gb as usize]);
        let Some(l) = self.levelling.as_mut() else {
            return;
        };
        let p = (gb / bpp) as usize;
        if l.victim[p] == gb {
            l.victim[p] = INVALID;
        }
        l.max[p] = l.max[p].max(e);
        if e - 1 == l.min[p] {
            l.at_min[p] -= 1;
            if l.at_min[p] == 0 {
                l.min[p] += 1;
                let lo = l.min[p];
                let at = self.in_service(p).filter(|&c| c == lo).count() as u32;
                self.levelling.as_mut().expect("levelling is on").at_min[p] = at;
            }
        }
    }

    /// Static levelling: the victim of `plane` if its spread exceeds the
    /// threshold and a closed block lies more than the threshold below its
    /// most-worn (it leaves the victim index and becomes the victim).
    /// Also records whether this pick is a levelling one.
    pub(super) fn levelling_victim(&mut self, plane: PlaneId) -> Option<u32> {
        let l = self.levelling.as_mut()?;
        l.last_levelled = false;
        let t = l.threshold?;
        let p = plane.index();
        if l.max[p] - l.min[p] <= t {
            return None;
        }
        let limit = l.max[p] - t;
        let first = plane.0 * self.bpp;
        let mut best: Option<(u32, u32)> = None;
        for gb in first..first + self.bpp {
            let e = self.blocks.erase_count[gb as usize];
            if e < limit
                && self.blocks.state[gb as usize] == BlockState::Closed
                && best.is_none_or(|(be, _)| e < be)
            {
                best = Some((e, gb));
            }
        }
        let (_, gb) = best?;
        let l = self.levelling.as_mut().expect("levelling is on");
        l.last_levelled = true;
        l.victim[p] = gb;
        l.blocks += 1;
        self.blocks.victims.remove(gb);
        self.blocks.state[gb as usize] = BlockState::Victim;
        Some(gb)
    }

    /// Dynamic levelling: the free block of `plane` a block opened by `w`
    /// would take (the validation suite's check of the choice).
    pub(crate) fn levelled_next_block(&self, plane: PlaneId, w: Writer) -> Option<u32> {
        let free = &self.alloc.free[plane.index()];
        free.get(self.levelled_open_pos(free.len(), w)).copied()
    }

    /// Was the victim last picked a static levelling one (which frees no
    /// space by design: not a fruitless GC)?
    pub fn levelled_last(&self) -> bool {
        self.levelling.as_ref().is_some_and(|l| l.last_levelled)
    }

    /// A GC move wrote the data of `src` elsewhere: count it if `src` is in
    /// a levelling victim.
    #[inline(never)]
    pub(super) fn levelling_moved(&mut self, src: Ppn) {
        let gb = self.map.gblock_of(src).0;
        let p = (gb / self.bpp) as usize;
        if let Some(l) = self.levelling.as_mut() {
            if l.victim[p] == gb {
                l.pages += 1;
            }
        }
    }

    /// Is wear levelling on?
    #[inline(always)]
    pub(super) fn levelling_on(&self) -> bool {
        self.levelling.is_some()
    }

    /// The report's section: None when levelling is off.
    pub fn levelling_report(&self) -> Option<WearLevellingReport> {
        let l = self.levelling.as_ref()?;
        let spread = (0..self.planes as usize)
            .map(|p| {
                let (lo, hi, _) = self.erase_extremes(p);
                hi - lo
            })
            .max()
            .unwrap_or(0);
        Some(WearLevellingReport {
            dynamic: l.dynamic,
            static_threshold: l.threshold,
            static_blocks: l.blocks,
            static_pages: l.pages,
            plane_block_spread: spread,
        })
    }

    /// Every plane's erase sum (`wear.rs`) is its blocks' erase counts
    /// summed (the checker's O(blocks) part).
    pub(crate) fn check_wear(&self) -> std::result::Result<(), String> {
        let bpp = self.bpp as usize;
        for (p, &sum) in self.blocks.wear.per_plane().iter().enumerate() {
            let blocks: u64 = self.blocks.erase_count[p * bpp..(p + 1) * bpp]
                .iter()
                .map(|&e| e as u64)
                .sum();
            if blocks != sum {
                return Err(format!(
                    "plane {p}: {sum} erases counted for the plane but its blocks' counts sum to {blocks}"
                ));
            }
        }
        Ok(())
    }

    /// The checker's part: static levelling's extremes agree with the
    /// erase counts, a levelling victim is a victim, the pages moved fit in
    /// the blocks picked, and under dynamic levelling every free list is in
    /// (erase count, id) order.
    pub(crate) fn check_levelling(&self) -> std::result::Result<(), String> {
        let Some(l) = self.levelling.as_ref() else {
            return Ok(());
        };
        let bpp = self.bpp as usize;
        for p in 0..self.planes as usize {
            let (lo, hi, at) = self.erase_extremes(p);
            if (l.min[p], l.max[p], l.at_min[p]) != (lo, hi, at) {
                return Err(format!(
                    "wear levelling: plane {p} keeps erases {} to {} ({} blocks at the fewest) but its blocks have {lo} to {hi} ({at})",
                    l.min[p], l.max[p], l.at_min[p]
                ));
            }
            let v = l.victim[p];
            if v != INVALID
                && (self.blocks.state[v as usize] != BlockState::Victim || v as usize / bpp != p)
            {
                return Err(format!(
                    "wear levelling: plane {p}'s levelling victim {v} is not a victim of the plane"
                ));
            }
            if l.dynamic {
                let free = &self.alloc.free[p];
                let key = |b: u32| (self.blocks.erase_count[b as usize], b);
                if let Some(i) = (1..free.len()).find(|&i| key(free[i - 1]) >= key(free[i])) {
                    return Err(format!(
                        "wear levelling: plane {p}'s free list is out of (erase count, block) order at position {i}: {:?} before {:?}",
                        key(free[i - 1]),
                        key(free[i])
                    ));
                }
            }
        }
        if l.pages > l.blocks * self.ppb as u64 {
            return Err(format!(
                "wear levelling: {} pages moved out of {} levelling victims of {} pages",
                l.pages, l.blocks, self.ppb
            ));
        }
        if l.threshold.is_none() && (l.blocks > 0 || l.pages > 0) {
            return Err("wear levelling: levelling moves counted with static levelling off".into());
        }
        Ok(())
    }
}

/// What wear levelling requires of the other policies: the first violated
/// requirement as (the key to change, why).
pub(crate) fn requirements(c: &Config) -> Requirement {
    let w = &c.ftl.wear_levelling;
    if w.is_off() {
        return Ok(());
    }
    if c.ftl.block_groups == BlockGroups::Die {
        return Err((
            "ftl.wear_levelling",
            "applies to per-plane blocks (block_groups = \"plane\"), not aligned block groups"
                .into(),
        ));
    }
    if c.ftl.mapping.hybrid() {
        return Err((
            "ftl.wear_levelling",
            "applies to page-level maps (mapping = \"page\" or \"dftl\"), not hybrid ones, which place data and log blocks themselves".into(),
        ));
    }
    if c.ftl.type_pools {
        return Err((
            "ftl.wear_levelling",
            "does not apply with type_pools (PA-SSD's pools choose blocks by page type)".into(),
        ));
    }
    if w.dynamic && c.ftl.align_block_index {
        return Err((
            "ftl.wear_levelling.dynamic",
            "conflicts with align_block_index (both choose which free block opens)".into(),
        ));
    }
    if c.ftl.write_unit != WriteUnit::Page {
        return Err((
            "ftl.wear_levelling",
            "applies to the page write unit (Die-Writes and super pages open sibling planes' blocks in step and mix GC moves into host streams)".into(),
        ));
    }
    if w.static_threshold.is_some() && c.gc.blocks_per_gc > 1 {
        return Err((
            "ftl.wear_levelling.static_threshold",
            "applies with one victim per GC (gc.blocks_per_gc = 1)".into(),
        ));
    }
    Ok(())
}
