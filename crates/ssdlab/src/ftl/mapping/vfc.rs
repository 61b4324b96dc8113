//! DVPFTL's two-layer map (`ftl.mapping = "vfc"`; Luo et al., IEEE Access
//! 2018, §III-A, Figs. 4–6): the address arithmetic of virtual blocks, on
//! which FAST's log-based hybrid machinery (`fast.rs`, `gc/fast_merge.rs`)
//! runs with a virtual flash chip (VFC) as its domain.
//!
//! - **VFC** j: ways 2j and 2j + 1 of every channel (one way per channel:
//!   all channels' chips), its chips in stripe order, channel first
//!   (`domain::VfcLayout`, which GC and the allocator read too).
//! - **Bottom layer** (block mapping PFC ↔ VFC): a virtual block is one
//!   physical block on each chip of the VFC. Which block (and so which
//!   plane of the chip) is chosen when the virtual block opens: the plane
//!   of the chip with the most free blocks, or, for a merge, the old data
//!   block's plane there while it is nearly as free (`VFC_BALANCE`), so
//!   that pages move by copyback. A virtual page `m` is page `m`
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
//!   `fast_log_units` times its planes of them in all (wherever they are).
//!   A merge is due when a VFC holds
//!   that many, or one of its planes has no block left for host writes
//!   (then, if every log is open, the oldest is closed early).
//! - **Sequential log** (`ftl.sequential_log`, off by default; FAST's
//!   sequential log block, over virtual blocks):
//!   a host page at offset 0 of a logical block opens a virtual block as
//!   the VFC's sequential log, and pages that continue it in offset order
//!   go to their data positions in it (channel first, one page per chip);
//!   a full one becomes the logical block's data block by a switch merge,
//!   at once. A sequential log another stream interrupts is closed where
//!   it stands and reclaimed at once too; one more opens only when no
//!   ended one still waits for its pages. Other host pages go to the
//!   page-mapped logs.
//!
//! This file holds the layout's arithmetic (`Vfc`), the FTL's side of it
//! (opening virtual blocks and sequential logs, their host pages) and its
//! requirements; logs, merges and the checker are FAST's.
//!
//! A unit id is a global block id: a log block's own, or a virtual block's
//! first member's (its block on the VFC's first chip).

use crate::addr::{BlockId, Lpn, PlaneId, Ppn, INVALID};
use crate::config::Requirement;
use crate::config::{Config, HotSeparation, PlaneAllocation};
use crate::domain::VfcLayout;
use crate::ftl::BlockState;
use rustc_hash::{FxHashMap, FxHashSet};

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Vfc {
    /// Chips per VFC, and VFCs (the layout's).
    pub chips: u32,
    pub vfcs: u32,
    /// The virtual flash chips.
    layout: VfcLayout,
    bpp: u32,
    ppb: u32,
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
    /// Page-mapped logs closed before they were full: a plane ran out of
    /// blocks while every log of its VFC was open.
    pub(crate) logs_closed_early: u64,
    /// Planes a sequential log took blocks from (for a merge check).
    pub(crate) took: Vec<PlaneId>,
}

/// A VFC's sequential log: the virtual block `unit` holds logical block
/// `lbn`'s offsets below `next` at their data positions; `end` is one past
/// the block's last offset within the capacity.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct SeqLog {
    pub(crate) lbn: u32,
    pub(crate) unit: u32,
    pub(crate) next: u32,
    pub(crate) end: u32,
}

impl Vfc {
    pub fn new(cfg: &Config, layout: VfcLayout) -> Vfc {
        let g = &cfg.geometry;
        Vfc {
            seq: vec![None; layout.vfcs as usize],
            chips: layout.chips,
            vfcs: layout.vfcs,
            bpp: g.blocks_per_plane,
            ppb: g.pages_per_block,
            layout,
            vb_of_block: vec![INVALID; (cfg.total_planes() * g.blocks_per_plane) as usize],
            members: FxHashMap::default(),
            seq_enabled: cfg.ftl.sequential_log,
            seq_pending: FxHashMap::default(),
            seq_done: FxHashSet::default(),
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
        gb / self.bpp / self.layout.planes_per_chip
    }

    /// VFC of a plane.
    #[inline]
    pub fn vfc_of_plane(&self, plane: u32) -> u32 {
        self.layout.vfc_of_plane(plane)
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
        self.layout.slot_of_chip(self.chip_of_block(unit)).0
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
        let slot = self
            .layout
            .slot_of_chip(self.chip_of_block(ppn / self.ppb))
            .1;
        (ppn % self.ppb) * self.chips + slot
    }

    /// Planes of the chip at `slot` of VFC `vfc`.
    pub fn chip_planes(&self, vfc: u32, slot: u32) -> std::ops::Range<u32> {
        self.layout.chip_planes(vfc, slot)
    }

    /// Planes of a VFC.
    pub fn planes(&self, vfc: u32) -> impl Iterator<Item = u32> + '_ {
        self.layout.planes(vfc)
    }

    /// Planes of a VFC: its chips times their planes.
    pub fn planes_per_vfc(&self) -> u32 {
        self.layout.planes_per_vfc()
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
    let (chips, vfcs) = crate::domain::vfc_shape(cfg);
    let lbns = cfg
        .logical_pages()
        .div_ceil(chips as u64 * cfg.geometry.pages_per_block as u64);
    lbns.div_ceil(vfcs as u64)
}

/// DVPFTL's map in the FTL: new virtual blocks (the bottom layer's choice
/// of a block per chip) and the sequential logs; the rest of the hybrid
/// machinery is FAST's (`fast.rs`).
impl crate::ftl::Ftl {
    /// DVPFTL's bottom layer: a new virtual block of VFC `vfc`, one free
    /// block on each of its chips: on the chip's plane with the most free
    /// blocks (the first such plane on a tie), or on the plane of the old
    /// data block `old` there (so that its pages move by in-place copyback)
    /// if that plane has no more than `VFC_BALANCE` free blocks fewer (the
    /// planes of a chip stay near balance: a plane's host writes need its
    /// own blocks). None if a chip has none.
    pub(super) fn vfc_open_data(&mut self, vfc: u32, old: u32) -> Option<u32> {
        let v = self.fast.as_ref()?.vfc.as_ref()?;
        let old = v.members(old);
        let mut planes = Vec::with_capacity(v.chips as usize);
        for k in 0..v.chips {
            let most = v
                .chip_planes(vfc, k)
                .filter(|&p| !self.alloc.free[p as usize].is_empty())
                .max_by_key(|&p| (self.alloc.free[p as usize].len(), std::cmp::Reverse(p)))?;
            let top = self.alloc.free[most as usize].len();
            let same = old.map(|m| m[k as usize] / self.bpp).filter(|&p| {
                let n = self.alloc.free[p as usize].len();
                n > 0 && n + VFC_BALANCE >= top
            });
            planes.push(same.unwrap_or(most));
        }
        // From the back of each free list, so that the fronts host writes
        // open next stay as they were (VFC merges start only once an
        // event's commands are committed: `Gc::deferred`).
        let blocks: Vec<u32> = planes
            .into_iter()
            .map(|p| {
                self.alloc.free[p as usize]
                    .pop_back()
                    .expect("a free block")
            })
            .collect();
        for &b in &blocks {
            self.blocks.state[b as usize] = BlockState::Data;
        }
        let v = self.fast.as_mut()?.vfc.as_mut()?;
        Some(v.join(blocks))
    }

    /// DVPFTL's sequential logs (`vfc.rs`): where each page of a host
    /// write request goes if it continues its VFC's sequential log, or at
    /// offset 0 starts a new one: a fixed page; else INVALID (a page-mapped
    /// log takes it). None unless the map is DVPFTL's.
    pub(crate) fn vfc_seq_plan(&mut self, lpns: &[Lpn]) -> Option<Vec<Ppn>> {
        if !self.fast.as_ref()?.vfc.as_ref()?.seq_enabled {
            return None;
        }
        Some(lpns.iter().map(|&lpn| self.vfc_seq_page(lpn)).collect())
    }

    fn vfc_seq_page(&mut self, lpn: Lpn) -> Ppn {
        let f = self.fast.as_ref().expect("FAST");
        let (lbn, o) = f.lbn_of(lpn);
        let v = f.vfc.as_ref().expect("VFC layout");
        let vfc = v.vfc_of_lbn(lbn) as usize;
        let cur = v.seq[vfc];
        let s = match cur {
            Some(s) if s.lbn == lbn && s.next == o => s,
            _ if o == 0 => {
                // A new sequential stream: the VFC's log (if any) ends
                // where it stands.
                if let Some(old) = cur {
                    self.fast
                        .as_mut()
                        .and_then(|f| f.vfc.as_mut())
                        .expect("VFC")
                        .seq[vfc] = None;
                    self.vfc_seq_end(old.unit);
                }
                let Some(s) = self.vfc_open_seq(vfc as u32, lbn) else {
                    return INVALID;
                };
                s
            }
            _ => return INVALID,
        };
        let v = self
            .fast
            .as_mut()
            .and_then(|f| f.vfc.as_mut())
            .expect("VFC");
        let dst = v.page_at(s.unit, o);
        *v.seq_pending.entry(s.unit).or_default() += 1;
        if o + 1 == s.end {
            v.seq[vfc] = None;
            self.vfc_seq_end(s.unit);
        } else {
            v.seq[vfc] = Some(SeqLog { next: o + 1, ..s });
        }
        dst
    }

    /// Open a virtual block as VFC `vfc`'s sequential log for `lbn` (as in
    /// FAST, beside the page-mapped logs and not counted among them): one
    /// block per chip on the chip's plane with the most free blocks, if
    /// that leaves the plane more than host writes keep back (merges need a
    /// block on every chip), and if no ended sequential log of the VFC
    /// still waits for its pages (at most two are being written at once:
    /// pages queued behind a write that waits for a merge would otherwise
    /// pin the blocks of ever more of them).
    fn vfc_open_seq(&mut self, vfc: u32, lbn: u32) -> Option<SeqLog> {
        let f = self.fast.as_ref()?;
        let v = f.vfc.as_ref()?;
        if v.seq_done.iter().any(|&u| v.vfc_of_unit(u) == vfc) {
            return None;
        }
        let keep = self.alloc.reserve_blocks + 2;
        let mut planes = Vec::with_capacity(v.chips as usize);
        for k in 0..v.chips {
            let best = v
                .chip_planes(vfc, k)
                .filter(|&p| self.alloc.free[p as usize].len() >= keep)
                .max_by_key(|&p| (self.alloc.free[p as usize].len(), std::cmp::Reverse(p)));
            let best = best?;
            planes.push(best);
        }
        let blocks: Vec<u32> = planes
            .iter()
            .map(|&p| {
                self.alloc.free[p as usize]
                    .pop_back()
                    .expect("a free block")
            })
            .collect();
        for &b in &blocks {
            self.blocks.state[b as usize] = BlockState::Active;
        }
        if let Some(v) = self.fast.as_mut().and_then(|f| f.vfc.as_mut()) {
            v.took.extend(planes.iter().map(|&p| PlaneId(p)));
        }
        let logical = self.logical_pages;
        let f = self.fast.as_mut()?;
        let u = f.unit_pages as u64;
        let end = (logical - lbn as u64 * u).min(u) as u32;
        let v = f.vfc.as_mut()?;
        let unit = v.join(blocks);
        Some(SeqLog {
            lbn,
            unit,
            next: 0,
            end,
        })
    }

    /// A sequential log is appended to no more: closed now, or once its
    /// planned pages are programmed.
    fn vfc_seq_end(&mut self, unit: u32) {
        let v = self
            .fast
            .as_mut()
            .and_then(|f| f.vfc.as_mut())
            .expect("VFC");
        if v.seq_pending.get(&unit).copied().unwrap_or(0) == 0 {
            self.vfc_seq_close(unit);
        } else {
            v.seq_done.insert(unit);
        }
    }

    /// Close a sequential log where it stands: its blocks take no more
    /// pages, and it joins its VFC's logs at the front, to be reclaimed
    /// next (a switch if it holds its logical block whole, else a merge),
    /// whether or not the VFC holds its limit of logs.
    fn vfc_seq_close(&mut self, unit: u32) {
        let blocks: Vec<BlockId> = self.unit_blocks(unit).collect();
        for b in blocks {
            self.blocks.wp[b.index()] = self.ppb as u16;
            self.blocks.state[b.index()] = BlockState::Closed;
        }
        let f = self.fast.as_mut().expect("FAST");
        let d = f.domain_of_unit(unit) as usize;
        f.logs[d].push_front(unit);
        let v = f.vfc.as_mut().expect("VFC");
        // Closed outside a write (at planning), it may be all that lets a
        // merge start: a plane of its VFC is asked.
        let first = v.planes(d as u32).next().expect("a VFC has planes");
        v.took.push(PlaneId(first));
    }

    /// A host page planned into a sequential log is dispatched: program
    /// page `dst` with `lpn` (INVALID: the host rewrote it since; the page
    /// is programmed stale).
    pub(crate) fn fast_write_at(&mut self, dst: Ppn, lpn: Lpn, version: u32) -> Ppn {
        let b = (dst / self.ppb) as usize;
        let page = (dst % self.ppb) as u16;
        assert_eq!(
            self.blocks.state[b],
            BlockState::Active,
            "a sequential log's block"
        );
        assert!(
            self.blocks.wp[b] <= page,
            "a sequential log programs in offset order"
        );
        self.blocks.wp[b] = page + 1;
        if lpn != INVALID {
            let old = self.maps.l2p.get(lpn as usize);
            if old != INVALID {
                self.invalidate(old);
            }
            self.fast_place(lpn, dst, version);
        }
        if self.blocks.wp[b] as u32 == self.ppb {
            self.blocks.state[b] = BlockState::Closed;
        }
        self.seq_page_settled(dst);
        dst
    }

    /// A host page planned into a sequential log at `dst` will not be
    /// written there (the host reads it first to merge a partial write, and
    /// writes it as any page outside a plan): the log keeps a hole there.
    pub(crate) fn seq_unplanned(&mut self, dst: Ppn) {
        self.seq_page_settled(dst);
    }

    /// One planned page of the sequential log holding `dst` is settled
    /// (programmed, or given up): the last one of an ended log closes it.
    fn seq_page_settled(&mut self, dst: Ppn) {
        let b = dst / self.ppb;
        let v = self
            .fast
            .as_mut()
            .and_then(|f| f.vfc.as_mut())
            .expect("VFC");
        let unit = v.unit_of_block(b);
        let left = v.seq_pending.get_mut(&unit).expect("a planned page");
        *left -= 1;
        if *left == 0 {
            v.seq_pending.remove(&unit);
            if v.seq_done.remove(&unit) {
                self.vfc_seq_close(unit);
            }
        }
    }

    /// The warm-up ends: the map's own counters start again.
    pub(crate) fn reset_map_counters(&mut self) {
        if let Some(v) = self.fast.as_mut().and_then(|f| f.vfc.as_mut()) {
            v.logs_closed_early = 0;
        }
    }

    /// Planes whose free blocks a sequential log took outside a write since
    /// the last call: the caller asks whether they need a merge now.
    pub fn take_planes_drawn(&mut self) -> Vec<PlaneId> {
        self.fast
            .as_mut()
            .and_then(|f| f.vfc.as_mut())
            .map_or_else(Vec::new, |v| std::mem::take(&mut v.took))
    }

    /// Page-mapped logs DVPFTL's map closed before they were full, for a
    /// plane out of blocks (0 under other maps).
    pub fn fast_logs_closed_early(&self) -> u64 {
        self.fast
            .as_ref()
            .and_then(|f| f.vfc.as_ref())
            .map_or(0, |v| v.logs_closed_early)
    }
}

/// DVPFTL's bottom layer keeps a new virtual block's member on the old
/// one's plane (in-place copyback) while that plane has at most this many
/// free blocks fewer than its chip's freest.
const VFC_BALANCE: usize = 2;

/// What DVPFTL's two-layer map (`mapping = "vfc"`) requires: DVP's
/// placement (it keeps a logical block in its VFC), no combining of host
/// writes with merges, a log per plane and write stream with one more to
/// merge, and room on every chip for a block of each of its VFC's logical
/// blocks, its share of the logs and one block to merge into.
pub(super) fn vfc_requirements(c: &Config) -> Requirement {
    if c.ftl.plane_allocation != PlaneAllocation::Dvp {
        return Err((
            "ftl.plane_allocation",
            "mapping = \"vfc\" places host pages in their logical block's virtual flash chip: it needs plane_allocation = \"dvp\"".into(),
        ));
    }
    if c.gc.combine_host_writes {
        return Err((
            "gc.combine_host_writes",
            "mapping = \"vfc\" reclaims space by merges, which host pages cannot join".into(),
        ));
    }
    if c.gc.join_percent != 0.0 {
        return Err((
            "gc.join_percent",
            "mapping = \"vfc\" merges a whole virtual flash chip at once: ParaGC's joining of sibling planes has nothing to join (set 0)".into(),
        ));
    }
    if c.ftl.hot_separation == HotSeparation::GcMoves {
        return Err(("ftl.hot_separation", "mapping = \"vfc\" merges write data blocks at their offsets: there are no hot and cold GC streams to sort moves into (use \"host-writes\")".into()));
    }
    let units = c.ftl.fast_log_units;
    let streams = c.write_streams();
    if units <= streams {
        return Err((
            "ftl.fast_log_units",
            format!("must exceed the write streams ({streams}): every plane keeps an active log per stream, and a VFC needs a closed one to merge"),
        ));
    }
    let g = &c.geometry;
    let ppc = (g.dies_per_chip * g.planes_per_die) as u64;
    let lbns = lbns_per_vfc(c);
    let blocks = g.blocks_per_plane as u64 * ppc;
    // Sequential logs: the one being written and one ending, a block per
    // chip each.
    let seq = 2 * c.ftl.sequential_log as u64;
    if lbns + (units as u64 + 1) * ppc + 1 + seq > blocks {
        return Err((
            "ftl.fast_log_units",
            format!(
                "{units} log blocks per plane do not fit: a chip holds {blocks} blocks, {lbns} of them its share of its virtual flash chip's logical blocks, and needs {} for logs and one more free per plane (lower fast_log_units or raise ftl.overprovisioning)",
                units as u64 * ppc
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(c: &Config) -> VfcLayout {
        let mut c = c.clone();
        c.ftl.mapping = crate::config::Mapping::Vfc;
        crate::domain::Domains::new(&c)
            .vfc()
            .expect("a VFC layout")
            .clone()
    }

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
        let mut v = Vfc::new(&c, layout(&c));
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
        let v = Vfc::new(&c, layout(&c));
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
