//! DVPFTL's two-layer map (`ftl.mapping = "vfc"`; Luo et al., IEEE Access
//! 2018, §III-A, Figs. 4–6): the address arithmetic of virtual blocks, on
//! which FAST's log-based hybrid machinery (`fast.rs`, `gc/fast_merge.rs`)
//! runs with a virtual flash chip (VFC) as its domain.
//!
//! - **VFC** j: ways 2j and 2j + 1 of every channel (one way per channel:
//!   all channels' chips), its chips in stripe order, channel first
//!   (`twoplane::vfc_chips`).
//! - **Bottom layer** (block mapping PFC ↔ VFC): a virtual block is one
//!   physical block on each chip of the VFC. Which block (and so which
//!   plane of the chip) is chosen when the virtual block opens: the plane
//!   of the chip with the most free blocks. A virtual page `m` is page `m`
//!   of each of those blocks (the paper's VP(j, n, m) = PP(i, 2j|2j+1, n,
//!   m) with the bottom map in place of a fixed block index `n`).
//! - **Top layer** (LBA → VBA, log-based hybrid): a logical block is
//!   `chips × pages_per_block` consecutive logical pages; offset `o` lives
//!   on chip `o % chips`, page `o / chips` of its data virtual block
//!   (consecutive pages on consecutive channels, Fig. 5). Logical blocks
//!   are dealt to the VFCs in turn (`lbn % vfcs`) and never leave theirs:
//!   its log pages, its data block and its merges stay in the VFC, so a
//!   page's moves between data blocks stay on one chip (the condition for
//!   in-place copyback).
//! - **Logs**: host pages go, page-mapped, to the active blocks of the
//!   logical block's VFC, placed by `plane_allocation = "dvp"` (APM within
//!   each chip). A log unit is one physical block; a VFC holds at most
//!   `fast_log_units` of them per plane.
//!
//! - **Sequential log** (`ftl.sequential_log`, off by default; FAST's
//!   sequential log block, over virtual blocks):
//!   a host page at offset 0 of a logical block opens a virtual block as
//!   the VFC's sequential log, and pages that continue it in offset order
//!   go to their data positions in it (channel first, one page per chip);
//!   a full one becomes the logical block's data block by a switch merge
//!   when it is reclaimed. A sequential log another stream interrupts is
//!   closed where it stands and merged like any log. Other host pages go
//!   to the page-mapped logs.
//!
//! A unit id is a global block id: a log block's own, or a virtual block's
//! first member's (its block on the VFC's first chip).

use crate::addr::{Lpn, PlaneId, Ppn, INVALID};
use crate::config::Config;
use crate::ftl::twoplane::vfc_chips;
use rustc_hash::{FxHashMap, FxHashSet};

pub struct Vfc {
    /// Chips per VFC, and VFCs.
    pub chips: u32,
    pub vfcs: u32,
    planes_per_chip: u32,
    bpp: u32,
    ppb: u32,
    /// Per chip (`channel * ways + way`): its VFC and its index in the
    /// VFC's stripe order.
    slot_of_chip: Vec<(u32, u32)>,
    /// Per VFC: its chips in stripe order.
    order: Vec<Vec<u32>>,
    /// Per global block: the virtual block it is a member of, or INVALID.
    vb_of_block: Vec<u32>,
    /// Members of each virtual block (by id), one block per chip in stripe
    /// order: the bottom layer's block map.
    members: FxHashMap<u32, Vec<u32>>,
    /// `ftl.sequential_log`; per VFC: its sequential log, if one is being
    /// written.
    pub(crate) seq_enabled: bool,
    pub(crate) seq: Vec<Option<SeqLog>>,
    /// Sequential logs' pages planned but not yet programmed, and the logs
    /// no longer appended to (closed once those pages are programmed).
    pub(crate) seq_pending: FxHashMap<u32, u32>,
    pub(crate) seq_done: FxHashSet<u32>,
    /// Closed sequential logs at the front of their VFC's logs, to be
    /// reclaimed at once.
    pub(crate) seq_due: FxHashSet<u32>,
    /// Page-mapped logs closed before they were full: a plane ran out of
    /// blocks while every log of its VFC was open.
    pub(crate) logs_closed_early: u64,
    /// Planes a sequential log took blocks from (for a merge check).
    pub(crate) took: Vec<PlaneId>,
}

/// A VFC's sequential log: the virtual block `unit` holds logical block
/// `lbn`'s offsets below `next` at their data positions; `end` is one past
/// the block's last offset within the capacity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SeqLog {
    pub(crate) lbn: u32,
    pub(crate) unit: u32,
    pub(crate) next: u32,
    pub(crate) end: u32,
}

impl Vfc {
    pub fn new(cfg: &Config) -> Vfc {
        let g = &cfg.geometry;
        let chips_all = g.channels * g.chips_per_channel;
        let flat = vfc_chips(g.channels, g.chips_per_channel);
        let vfcs = g.chips_per_channel.div_ceil(2);
        let chips = chips_all / vfcs;
        let order: Vec<Vec<u32>> = flat.chunks(chips as usize).map(|c| c.to_vec()).collect();
        let mut slot_of_chip = vec![(0, 0); chips_all as usize];
        for (v, c) in order.iter().enumerate() {
            for (k, &chip) in c.iter().enumerate() {
                slot_of_chip[chip as usize] = (v as u32, k as u32);
            }
        }
        let planes_per_chip = g.dies_per_chip * g.planes_per_die;
        Vfc {
            chips,
            vfcs,
            planes_per_chip,
            bpp: g.blocks_per_plane,
            ppb: g.pages_per_block,
            slot_of_chip,
            order,
            vb_of_block: vec![INVALID; (cfg.total_planes() * g.blocks_per_plane) as usize],
            members: FxHashMap::default(),
            seq_enabled: cfg.ftl.sequential_log,
            seq: vec![None; vfcs as usize],
            seq_pending: FxHashMap::default(),
            seq_done: FxHashSet::default(),
            seq_due: FxHashSet::default(),
            logs_closed_early: 0,
            took: Vec::new(),
        }
    }

    /// Is `unit` a sequential log still being written (appended to, or
    /// with planned pages not yet programmed)?
    pub(crate) fn is_open_seq(&self, unit: u32) -> bool {
        self.seq.iter().flatten().any(|s| s.unit == unit) || self.seq_pending.contains_key(&unit)
    }

    /// Pages of a logical (and a virtual) block.
    pub fn unit_pages(&self) -> u32 {
        self.chips * self.ppb
    }

    /// Chip of global block `gb`.
    #[inline]
    fn chip_of_block(&self, gb: u32) -> u32 {
        gb / self.bpp / self.planes_per_chip
    }

    /// VFC of a plane.
    #[inline]
    pub fn vfc_of_plane(&self, plane: u32) -> u32 {
        self.slot_of_chip[(plane / self.planes_per_chip) as usize].0
    }

    /// Logical block and offset of `lpn`.
    #[inline]
    pub fn lbn_of(&self, lpn: Lpn) -> (u32, u32) {
        let u = self.unit_pages();
        (lpn / u, lpn % u)
    }

    /// VFC of a logical block.
    #[inline]
    pub fn vfc_of_lbn(&self, lbn: u32) -> u32 {
        lbn % self.vfcs
    }

    /// VFC of a unit (a block id).
    #[inline]
    pub fn vfc_of_unit(&self, unit: u32) -> u32 {
        self.slot_of_chip[self.chip_of_block(unit) as usize].0
    }

    /// Unit of global block `gb`: its virtual block, else itself (a log).
    #[inline]
    pub fn unit_of_block(&self, gb: u32) -> u32 {
        let v = self.vb_of_block[gb as usize];
        if v == INVALID {
            gb
        } else {
            v
        }
    }

    /// Members of virtual block `unit` (None: the unit is a log block).
    pub fn members(&self, unit: u32) -> Option<&[u32]> {
        self.members.get(&unit).map(|m| m.as_slice())
    }

    /// Physical page of `offset` in virtual block `unit` (a log block
    /// holds no offsets: INVALID).
    #[inline]
    pub fn page_at(&self, unit: u32, offset: u32) -> Ppn {
        match self.members.get(&unit) {
            Some(m) => m[(offset % self.chips) as usize] * self.ppb + offset / self.chips,
            None => INVALID,
        }
    }

    /// Offset a page of a virtual block stands for.
    #[inline]
    pub fn offset_of_page(&self, ppn: Ppn) -> u32 {
        let slot = self.slot_of_chip[self.chip_of_block(ppn / self.ppb) as usize].1;
        (ppn % self.ppb) * self.chips + slot
    }

    /// Planes of the chip at `slot` of VFC `vfc`.
    pub fn chip_planes(&self, vfc: u32, slot: u32) -> std::ops::Range<u32> {
        let chip = self.order[vfc as usize][slot as usize];
        chip * self.planes_per_chip..(chip + 1) * self.planes_per_chip
    }

    /// Planes of a VFC.
    pub fn planes(&self, vfc: u32) -> impl Iterator<Item = u32> + '_ {
        (0..self.chips).flat_map(move |k| self.chip_planes(vfc, k))
    }

    /// Planes of a VFC: its chips times their planes.
    pub fn planes_per_vfc(&self) -> u32 {
        self.chips * self.planes_per_chip
    }

    /// Record virtual block `blocks` (one per chip, stripe order); its id.
    pub fn join(&mut self, blocks: Vec<u32>) -> u32 {
        let id = blocks[0];
        for &b in &blocks {
            debug_assert_eq!(self.vb_of_block[b as usize], INVALID);
            self.vb_of_block[b as usize] = id;
        }
        self.members.insert(id, blocks);
        id
    }

    /// Forget virtual block `unit` (its blocks are about to be erased).
    pub fn dissolve(&mut self, unit: u32) {
        if let Some(m) = self.members.remove(&unit) {
            for b in m {
                self.vb_of_block[b as usize] = INVALID;
            }
        }
    }

    /// Virtual blocks now in use (data blocks of logical blocks, or being
    /// merged into).
    pub fn virtual_blocks(&self) -> usize {
        self.members.len()
    }
}

/// Logical blocks a VFC holds at most for `cfg`'s capacity.
pub fn lbns_per_vfc(cfg: &Config) -> u64 {
    let g = &cfg.geometry;
    let vfcs = g.chips_per_channel.div_ceil(2) as u64;
    let chips = (g.channels * g.chips_per_channel) as u64 / vfcs;
    let lbns = cfg
        .logical_pages()
        .div_ceil(chips * g.pages_per_block as u64);
    lbns.div_ceil(vfcs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(channels: u32, ways: u32) -> Config {
        Config::preset("small")
            .unwrap()
            .with_overrides(&[
                format!("geometry.channels={channels}"),
                format!("geometry.chips_per_channel={ways}"),
                "geometry.blocks_per_plane=16".into(),
                "geometry.pages_per_block=4".into(),
            ])
            .unwrap()
    }

    /// Offsets go channel first over a VFC's chips, and page and offset
    /// are inverse in every virtual block whatever its members' planes.
    #[test]
    fn offsets_stripe_channel_first_and_invert() {
        let c = cfg(4, 2);
        let mut v = Vfc::new(&c);
        assert_eq!((v.chips, v.vfcs), (8, 1));
        let ppc = c.geometry.dies_per_chip * c.geometry.planes_per_die;
        // One block per chip, each on a different plane of its chip.
        let blocks: Vec<u32> = (0..v.chips)
            .map(|k| {
                let plane = v.chip_planes(0, k).start + k % ppc;
                plane * 16 + 3 + k % 2
            })
            .collect();
        let id = v.join(blocks.clone());
        for o in 0..v.unit_pages() {
            let p = v.page_at(id, o);
            assert_eq!(v.offset_of_page(p), o);
            assert_eq!(v.unit_of_block(p / 4), id);
            // Consecutive offsets are on consecutive channels.
            let chip = p / 4 / 16 / ppc;
            assert_eq!(chip / 2, o % 4, "offset {o}: channel");
            assert_eq!(chip % 2, (o / 4) % 2, "offset {o}: way");
        }
        assert_eq!(v.page_at(blocks[1], 0), INVALID, "a member is not a unit");
        v.dissolve(id);
        assert_eq!(v.unit_of_block(blocks[1]), blocks[1]);
        assert_eq!(v.virtual_blocks(), 0);
    }

    /// Four ways make two VFCs; logical blocks alternate between them.
    #[test]
    fn logical_blocks_are_dealt_to_the_vfcs() {
        let c = cfg(2, 4);
        let v = Vfc::new(&c);
        assert_eq!((v.chips, v.vfcs), (4, 2));
        let ppc = c.geometry.dies_per_chip * c.geometry.planes_per_die;
        for plane in 0..c.total_planes() {
            let chip = plane / ppc;
            let way = chip % 4;
            assert_eq!(v.vfc_of_plane(plane), way / 2);
        }
        let u = v.unit_pages();
        assert_eq!(v.lbn_of(3 * u + 5), (3, 5));
        assert_eq!(v.vfc_of_lbn(3), 1);
        assert_eq!(v.planes(1).count() as u32, v.planes_per_vfc());
        assert!(v.planes(1).all(|p| v.vfc_of_plane(p) == 1));
    }
}
