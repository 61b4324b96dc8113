//! The FTL's blocks: each block's valid pages, write pointer (and, where
//! blocks are programmed out of index order, its free pages of each parity
//! or page type), state, pins and erases; each plane's valid pages and
//! wear; and the victim index of closed blocks (or groups).
//!
//! Memory: about 11 bytes per block, plus the victim index's entry.

use super::lanes::Lanes;
use super::wear::Wear;
use crate::config::{Config, ProgramOrder};
use crate::domain::Domains;
use crate::gc::victim::VictimIndex;
use crate::types::Place;

/// Lifecycle of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
#[derive(serde::Serialize, serde::Deserialize)]
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
    /// A bad block (`flash.bad_blocks`): from the factory, or grown at an
    /// erase. Never allocated again.
    Retired = 5,
    /// A spare block (`flash.bad_blocks`): set aside, erased and unused,
    /// until it replaces a block that retires.
    Spare = 6,
}

/// Per-block and per-plane state (module documentation).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Blocks {
    pub(crate) valid: Vec<u16>,
    /// Pages programmed per block; in index order (`parity` off) also the
    /// next page to program.
    pub(crate) wp: Vec<u16>,
    /// `gc.parity_destinations`: per block, the lowest free page of each
    /// parity (even, odd). A copyback of an odd (even) page takes the
    /// lowest free odd (even) page, any other write the lowest free page,
    /// so a block may be programmed out of index order; the free pages of
    /// each parity stay a suffix of that parity's pages.
    pub(crate) parity: Option<Vec<[u16; 2]>>,
    /// `ftl.program_order = "relaxed"`: per block, one lane per page type,
    /// each in wordline order, gated by the lane below (`lanes.rs`).
    pub(crate) lanes: Option<Lanes>,
    pub(crate) state: Vec<BlockState>,
    pub(crate) pins: Vec<u16>,
    pub(crate) erase_count: Vec<u32>,
    /// Erases summed per plane, and their spread.
    pub(crate) wear: Wear,
    /// Valid pages per plane.
    pub(crate) plane_valid: Vec<u32>,
    /// Group mode, per group: blocks of it that are closed.
    pub(crate) group_closed: Vec<u8>,
    /// Closed blocks (with aligned block groups: closed groups) by the GC
    /// victim policy's order.
    pub(crate) victims: VictimIndex,
}

impl Blocks {
    /// The page of block `a` (which has a free page) a write placed by
    /// `place` takes (`ppb` or more if the block has none for it).
    #[inline]
    pub(crate) fn next_page(&self, a: u32, place: Place, ppb: u32) -> u32 {
        if self.lanes.is_none() && self.parity.is_none() {
            return self.wp[a as usize] as u32;
        }
        self.next_page_out_of_order(a, place, ppb)
    }

    /// [`next_page`](Self::next_page) where blocks may be programmed out of
    /// index order (relaxed program order, parity destinations).
    #[inline(never)]
    fn next_page_out_of_order(&self, a: u32, place: Place, ppb: u32) -> u32 {
        if let Some(l) = &self.lanes {
            let want = match place {
                Place::Lane(t) => Some(t),
                Place::Next | Place::Parity(_) => None,
            };
            return l.choose(a, want).unwrap_or(ppb);
        }
        match (&self.parity, place) {
            (None, _) => self.wp[a as usize] as u32,
            (Some(n), Place::Parity(p)) => n[a as usize][p as usize] as u32,
            (Some(n), _) => {
                let [e, o] = n[a as usize];
                e.min(o) as u32
            }
        }
    }

    pub(crate) fn new(cfg: &Config, domains: &Domains) -> Blocks {
        let g = &cfg.geometry;
        let planes = cfg.total_planes();
        let (ppb, bpp, ppd) = (g.pages_per_block, g.blocks_per_plane, g.planes_per_die);
        let nblocks = (planes * bpp) as usize;
        let groups = domains.is_die();
        let victims = if groups {
            VictimIndex::new(cfg.gc.victim, cfg.gc.d, planes / ppd, bpp, ppb * ppd)
        } else {
            VictimIndex::new(cfg.gc.victim, cfg.gc.d, planes, bpp, ppb)
        };
        Blocks {
            valid: vec![0; nblocks],
            wp: vec![0; nblocks],
            parity: cfg.gc.parity_destinations.then(|| vec![[0, 1]; nblocks]),
            lanes: (cfg.ftl.program_order == ProgramOrder::Relaxed)
                .then(|| Lanes::new(cfg, nblocks)),
            state: vec![BlockState::Free; nblocks],
            pins: vec![0; nblocks],
            erase_count: vec![0; nblocks],
            wear: Wear::new(planes as usize),
            plane_valid: vec![0; planes as usize],
            group_closed: vec![0; if groups { nblocks } else { 0 }],
            victims,
        }
    }
}
