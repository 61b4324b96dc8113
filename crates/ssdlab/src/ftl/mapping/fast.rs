//! FAST hybrid mapping (Lee et al., "A log buffer-based flash translation
//! layer using fully-associative sector translation", ACM TECS 2007): the
//! address arithmetic and bookkeeping of block-mapped data units and log
//! units. The FTL (`ftl/mod.rs`) owns the pages; this module says where a
//! logical page belongs and which units are logs.
//!
//! A *domain* is what a GC unit is for the page-mapped FTL: a plane, or with
//! aligned block groups a die. A *unit* is a block (plane domain) or an
//! aligned block group (die domain), identified like GC victims
//! (`domain * blocks_per_plane + index`). The domain's logical pages are
//! those static allocation gives it, numbered in order; `unit_pages` of them
//! in a row form a logical block (LBN). A logical block's data unit holds
//! offset `o` at page `o` (a block), or at page `o / N` of plane `o % N` of
//! the die (a group of N planes: each LPN lands on its static plane, and
//! `N` consecutive offsets form one aligned multi-plane page).
//!
//! Host writes go to log units: the domain's active blocks, page-mapped and
//! fully associative (any logical page of the domain may go to any log).
//! Log units are kept in the order they were opened; when a domain holds
//! `limit` of them, the oldest closed one is reclaimed by merging every
//! logical block with a valid page in it.
//!
//! DVPFTL's two-layer map (`ftl.mapping = "vfc"`, `vfc.rs`) runs on the
//! same machinery with a virtual flash chip as the domain: its data units
//! are virtual blocks (one block per chip), its log units single blocks.

use super::vfc::{vfc_requirements, Vfc};
use crate::config::Requirement;
use crate::config::{Mapping, PlaneAllocation};
use crate::error::{Error, Result};
use crate::ftl::BlockState;
use std::collections::VecDeque;

use crate::addr::{BlockId, Lpn, PlaneId, Ppn, INVALID};
use crate::config::{BlockGroups, Config};
use crate::domain::Domains;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Fast {
    planes: u32,
    ppd: u32,
    ppb: u32,
    bpp: u32,
    logical: u64,
    /// The domains: planes, dies (aligned block groups) or virtual flash
    /// chips.
    domains: Domains,
    /// Pages of a unit (and of a logical block).
    pub unit_pages: u32,
    /// Logical blocks per domain.
    lbns_per_domain: u32,
    /// Static allocation: plane of residue `lpn % planes`, and its inverse.
    plane_of_residue: Vec<u32>,
    residue_of_plane: Vec<u32>,
    /// Data unit of each logical block, or INVALID.
    pub data: Vec<u32>,
    /// Log units per domain, oldest first (the last may still be open).
    pub logs: Vec<VecDeque<u32>>,
    /// Log units a domain may hold.
    pub limit: usize,
    /// DVPFTL's virtual-block layout (`mapping = "vfc"`): domains are
    /// virtual flash chips.
    pub vfc: Option<Vfc>,
}

impl Fast {
    /// FAST state for `cfg` over `domains` (planes, dies or virtual flash
    /// chips), given static allocation's plane of each LPN residue.
    pub fn new(cfg: &Config, domains: &Domains, plane_of_residue: Vec<u32>) -> Fast {
        let g = &cfg.geometry;
        let (planes, ppd, ppb, bpp) = (
            cfg.total_planes(),
            g.planes_per_die,
            g.pages_per_block,
            g.blocks_per_plane,
        );
        let logical = cfg.logical_pages();
        let groups = domains.is_die();
        let limit = cfg.ftl.fast_log_units as usize;
        let mut residue_of_plane = vec![0; planes as usize];
        for (r, &p) in plane_of_residue.iter().enumerate() {
            residue_of_plane[p as usize] = r as u32;
        }
        if let (true, Some(layout)) = (domains.is_vfc(), domains.vfc()) {
            let v = Vfc::new(cfg, layout.clone());
            let unit_pages = v.unit_pages();
            let lbns = logical.div_ceil(unit_pages as u64) as usize;
            return Fast {
                planes,
                ppd,
                ppb,
                bpp,
                logical,
                domains: domains.clone(),
                unit_pages,
                lbns_per_domain: 0,
                plane_of_residue,
                residue_of_plane,
                data: vec![INVALID; lbns],
                logs: (0..v.vfcs).map(|_| VecDeque::new()).collect(),
                limit: limit * v.planes_per_vfc() as usize,
                vfc: Some(v),
            };
        }
        let lbns_per_domain = lbns_per_domain(logical, planes, ppb);
        let count = if groups { planes / ppd } else { planes };
        Fast {
            planes,
            ppd,
            ppb,
            bpp,
            logical,
            domains: domains.clone(),
            unit_pages: ppb * domains.planes_per_victim(),
            lbns_per_domain,
            plane_of_residue,
            residue_of_plane,
            data: vec![INVALID; (count * lbns_per_domain) as usize],
            logs: (0..count).map(|_| VecDeque::new()).collect(),
            limit,
            vfc: None,
        }
    }

    /// Logical block and offset of `lpn`.
    #[inline]
    pub fn lbn_of(&self, lpn: Lpn) -> (u32, u32) {
        if let Some(v) = &self.vfc {
            return v.lbn_of(lpn);
        }
        let plane = self.plane_of_residue[(lpn % self.planes) as usize];
        let row = (lpn / self.planes) as u64;
        let (domain, local) = if self.domains.is_die() {
            (
                plane / self.ppd,
                row * self.ppd as u64 + (plane % self.ppd) as u64,
            )
        } else {
            (plane, row)
        };
        let u = self.unit_pages as u64;
        (
            domain * self.lbns_per_domain + (local / u) as u32,
            (local % u) as u32,
        )
    }

    /// The LPN at `offset` of logical block `lbn`, if within the capacity.
    #[inline]
    pub fn lpn_of(&self, lbn: u32, offset: u32) -> Option<Lpn> {
        if self.vfc.is_some() {
            let lpn = lbn as u64 * self.unit_pages as u64 + offset as u64;
            return (lpn < self.logical).then_some(lpn as Lpn);
        }
        let domain = lbn / self.lbns_per_domain;
        let local = (lbn % self.lbns_per_domain) as u64 * self.unit_pages as u64 + offset as u64;
        let (row, plane) = if self.domains.is_die() {
            (
                local / self.ppd as u64,
                domain * self.ppd + (local % self.ppd as u64) as u32,
            )
        } else {
            (local, domain)
        };
        let lpn = row * self.planes as u64 + self.residue_of_plane[plane as usize] as u64;
        (lpn < self.logical).then_some(lpn as Lpn)
    }

    /// Domain of a logical block.
    #[inline]
    pub fn domain_of_lbn(&self, lbn: u32) -> u32 {
        match &self.vfc {
            Some(v) => v.vfc_of_lbn(lbn),
            None => lbn / self.lbns_per_domain,
        }
    }

    /// Domain of a plane: its VFC, die (aligned groups) or itself.
    #[inline]
    pub fn domain_of_plane(&self, plane: u32) -> u32 {
        self.domains.of_plane(PlaneId(plane)) as u32
    }

    /// Offsets of a unit's page index (`offset / this` is the page index):
    /// a group's planes, a virtual block's chips, else 1.
    pub fn offsets_per_row(&self) -> u32 {
        match &self.vfc {
            Some(v) => v.chips,
            None => self.domains.planes_per_victim(),
        }
    }

    /// Domain of a unit.
    #[inline]
    pub fn domain_of_unit(&self, unit: u32) -> u32 {
        match &self.vfc {
            Some(v) => v.vfc_of_unit(unit),
            None => unit / self.bpp,
        }
    }

    /// Unit (block or group id) holding global block `gb`.
    #[inline]
    pub fn unit_of_block(&self, gb: u32) -> u32 {
        if let Some(v) = &self.vfc {
            v.unit_of_block(gb)
        } else if self.domains.is_die() {
            (gb / self.bpp / self.ppd) * self.bpp + gb % self.bpp
        } else {
            gb
        }
    }

    /// Physical page of `offset` in data unit `unit`.
    #[inline]
    pub fn page_at(&self, unit: u32, offset: u32) -> Ppn {
        if let Some(v) = &self.vfc {
            v.page_at(unit, offset)
        } else if self.domains.is_die() {
            let (die, g) = (unit / self.bpp, unit % self.bpp);
            let plane = die * self.ppd + offset % self.ppd;
            (plane * self.bpp + g) * self.ppb + offset / self.ppd
        } else {
            unit * self.ppb + offset
        }
    }

    /// Offset a physical page of a unit stands for.
    #[inline]
    pub fn offset_of_page(&self, ppn: Ppn) -> u32 {
        if let Some(v) = &self.vfc {
            return v.offset_of_page(ppn);
        }
        let page = ppn % self.ppb;
        if self.domains.is_die() {
            let plane = ppn / self.ppb / self.bpp;
            page * self.ppd + plane % self.ppd
        } else {
            page
        }
    }

    /// Do merges move a logical block's pages by copyback where they can?
    /// DVPFTL's layout (a page's offset keeps it on its chip, and a new
    /// virtual block takes the old one's plane where it can).
    pub fn in_place_copyback(&self) -> bool {
        self.vfc.is_some()
    }

    /// Is `unit` one of its domain's log units (or a sequential log being
    /// written)?
    pub fn is_log(&self, unit: u32) -> bool {
        self.logs[self.domain_of_unit(unit) as usize].contains(&unit)
            || self.vfc.as_ref().is_some_and(|v| v.is_open_seq(unit))
    }
}

/// Logical blocks per domain for a capacity of `logical` pages.
pub fn lbns_per_domain(logical: u64, planes: u32, ppb: u32) -> u32 {
    logical.div_ceil(planes as u64).div_ceil(ppb as u64) as u32
}

/// FAST in the FTL: units are blocks (plane domains) or aligned groups (die
/// domains); the GC unit of a plane is its domain.
impl crate::ftl::Ftl {
    pub fn fast(&self) -> Option<&Fast> {
        self.fast.as_ref()
    }

    /// Blocks of a unit.
    pub fn unit_blocks(&self, unit: u32) -> impl Iterator<Item = BlockId> + '_ {
        let (groups, bpp, ppd) = (self.domains.is_die(), self.bpp, self.ppd);
        let members = self
            .fast
            .as_ref()
            .and_then(|f| f.vfc.as_ref())
            .map(|v| v.members(unit));
        let (first, n, step) = if let Some(m) = members {
            // A virtual block's members, or a log block.
            (unit, m.is_none() as u32, 1)
        } else if groups {
            let (die, g) = (unit / bpp, unit % bpp);
            (die * ppd * bpp + g, ppd, bpp)
        } else {
            (unit, 1, 1)
        };
        members
            .flatten()
            .into_iter()
            .flatten()
            .map(|&b| BlockId(b))
            .chain((0..n).map(move |i| BlockId(first + i * step)))
    }

    pub(crate) fn unit_closed(&self, unit: u32) -> bool {
        self.unit_blocks(unit)
            .all(|b| self.blocks.state[b.index()] == BlockState::Closed)
    }

    /// Preconditioning steps that age a page-mapped drive have no FAST form.
    pub(crate) fn fast_refuses(&self, step: &str) -> Result<()> {
        if self.fast.is_some() {
            return Err(Error::Invalid(format!(
                "--precondition {step}: not supported with a hybrid map (ftl.mapping = \"fast\" or \"vfc\"; it ages a page-mapped drive); use trace-reads or age:X, which map pages into their logical blocks' data units"
            )));
        }
        Ok(())
    }

    /// Stall reports: the log units of `plane`'s domain (hybrid maps).
    pub(crate) fn fast_logs_detail(&self, plane: PlaneId) -> String {
        let Some(f) = &self.fast else {
            return String::new();
        };
        let d = f.domain_of_plane(plane.0);
        let logs = &f.logs[d as usize];
        let closed = logs.iter().filter(|&&u| self.unit_closed(u)).count();
        format!(
            "; its domain {d} holds {} log units of {} ({closed} closed)",
            logs.len(),
            f.limit
        )
    }

    /// Is a merge due in `plane`'s domain: does it hold as many log units
    /// as it may, one of them closed? (With one write stream per plane or
    /// die only the newest log is open; a VFC keeps an open log on each
    /// plane and stream.) A VFC also merges when `plane` has no block left
    /// for host writes: its domain spans planes whose logs and data blocks
    /// need not be spread evenly.
    pub(crate) fn fast_merge_due(&self, plane: PlaneId) -> bool {
        self.fast_oldest_closed(plane).is_some()
    }

    /// Position of the oldest closed log unit of `plane`'s domain, if a
    /// merge is due there.
    fn fast_oldest_closed(&self, plane: PlaneId) -> Option<usize> {
        let f = self.fast.as_ref().expect("FAST");
        let logs = &f.logs[f.domain_of_plane(plane.0) as usize];
        // A VFC also merges when one of its planes has no block left for
        // host writes (whichever plane asks: a log closing elsewhere makes
        // the merge possible).
        let pressed = || {
            f.vfc.as_ref().is_some_and(|v| {
                v.planes(f.domain_of_plane(plane.0))
                    .any(|p| self.alloc.free[p as usize].len() <= self.alloc.reserve_blocks)
            })
        };
        // A closed sequential log is reclaimed at once: it is put at the
        // front of the logs, the only virtual block among them.
        let seq_due = f
            .vfc
            .as_ref()
            .is_some_and(|v| logs.front().is_some_and(|&u| v.members(u).is_some()));
        if logs.len() < f.limit && !seq_due && !pressed() {
            return None;
        }
        let Some(v) = &f.vfc else {
            // One log open at a time (the newest): the oldest, once closed.
            return logs.front().filter(|&&u| self.unit_closed(u)).map(|_| 0);
        };
        logs.iter().position(|&u| self.unit_closed(u)).or_else(|| {
            // A plane out of blocks while every log of its VFC is still
            // open (their planes' writes lag): the oldest page-mapped log
            // is closed where it stands and reclaimed.
            pressed().then_some(())?;
            logs.iter().position(|&u| v.members(u).is_none())
        })
    }

    /// The log unit of `plane`'s domain a due merge reclaims (the oldest
    /// closed one; in a VFC out of blocks with every log open, the oldest
    /// page-mapped one, closed early): it leaves the log list and its
    /// blocks become victims.
    pub(crate) fn fast_pick(&mut self, plane: PlaneId) -> Option<u32> {
        let at = self.fast_oldest_closed(plane)?;
        let domain = self.fast.as_ref().expect("FAST").domain_of_plane(plane.0);
        let f = self.fast.as_mut().expect("FAST");
        let unit = f.logs[domain as usize].remove(at)?;
        let vfc = f.vfc.is_some();
        if vfc && self.blocks.state[unit as usize] == BlockState::Active {
            // A VFC's page-mapped log (a block) closed early (above): its
            // stream opens another block.
            let plane = unit / self.bpp;
            for s in plane * self.points.streams..(plane + 1) * self.points.streams {
                if self.points.active[s as usize] == unit {
                    self.set_active(s as usize, INVALID);
                }
            }
            if let Some(v) = self.fast.as_mut().and_then(|f| f.vfc.as_mut()) {
                v.logs_closed_early += 1;
            }
        }
        for b in self.unit_blocks(unit).collect::<Vec<_>>() {
            self.blocks.state[b.index()] = BlockState::Victim;
        }
        if self.domains.is_die() {
            self.blocks.group_closed[unit as usize] = 0;
        }
        Some(unit)
    }

    /// Logical blocks with a valid page in `unit`, in page order.
    pub fn fast_lbns(&self, unit: u32) -> Vec<u32> {
        let f = self.fast.as_ref().expect("FAST");
        let mut seen = rustc_hash::FxHashSet::default();
        let mut out = Vec::new();
        for b in self.unit_blocks(unit) {
            for p in b.0 * self.ppb..(b.0 + 1) * self.ppb {
                let lpn = self.maps.p2l.get(p as usize);
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
                let p = self.maps.l2p.get(lpn as usize);
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
            let p = self.maps.l2p.get(lpn as usize);
            if p != INVALID {
                if p != f.page_at(unit, o) {
                    return false;
                }
                mapped += 1;
            }
        }
        let valid: u32 = self
            .unit_blocks(unit)
            .map(|b| self.blocks.valid[b.index()] as u32)
            .sum();
        mapped > 0 && valid == mapped
    }

    /// Take a free unit of `domain` for a merge of logical block `lbn` to
    /// write (it may take the free unit host writes leave).
    pub fn fast_open_data(&mut self, domain: u32, lbn: u32) -> Option<u32> {
        if let Some(f) = self.fast.as_ref().filter(|f| f.vfc.is_some()) {
            let old = f.data[lbn as usize];
            return self.vfc_open_data(domain, old);
        }
        let x = self.alloc.free[domain as usize].pop_front()?;
        let unit = if self.domains.is_die() {
            domain * self.bpp + x
        } else {
            x
        };
        for b in self.unit_blocks(unit).collect::<Vec<_>>() {
            self.blocks.state[b.index()] = BlockState::Data;
        }
        Some(unit)
    }

    /// Forget a virtual block whose blocks are about to be erased (other
    /// layouts: nothing to do).
    pub(crate) fn fast_dissolve(&mut self, unit: u32) {
        if let Some(v) = self.fast.as_mut().and_then(|f| f.vfc.as_mut()) {
            v.dissolve(unit);
        }
    }

    /// A merge programs page `dst` of a data unit with the data it read
    /// from `src` for `lpn`: moved if `src` still holds it, else the page is
    /// programmed with stale data (the host rewrote the LPN meanwhile; its
    /// newer copy is in a log). Returns whether the page moved.
    pub fn fast_program(&mut self, src: Ppn, lpn: Lpn, dst: Ppn) -> bool {
        let b = (dst / self.ppb) as usize;
        let page = (dst % self.ppb) as u16;
        assert_eq!(self.blocks.state[b], BlockState::Data);
        assert!(self.blocks.wp[b] <= page, "merge programs in offset order");
        self.blocks.wp[b] = page + 1;
        if src == INVALID || lpn == INVALID || self.maps.p2l.get(src as usize) != lpn {
            return false;
        }
        let version = self
            .maps
            .versions
            .as_ref()
            .map_or(0, |v| v.page[src as usize]);
        self.invalidate(src);
        self.fast_place(lpn, dst, version);
        true
    }

    /// Map `lpn` (version `version`) to page `dst` of a data unit, which is
    /// programmed (its write pointer is past it).
    pub(crate) fn fast_place(&mut self, lpn: Lpn, dst: Ppn, version: u32) {
        let b = (dst / self.ppb) as usize;
        self.maps.l2p.set(lpn as usize, dst);
        self.maps.p2l.set(dst as usize, lpn);
        self.blocks.valid[b] += 1;
        self.blocks.plane_valid[b / self.bpp as usize] += 1;
        if let Some(v) = &mut self.maps.versions {
            v.page[dst as usize] = version;
        }
    }

    /// `unit` (a finished merge's, or a switched log) becomes the data unit
    /// of `lbn`. Returns the old data unit, now a victim to erase (it holds
    /// no valid page).
    pub fn fast_seal(&mut self, lbn: u32, unit: u32) -> Option<u32> {
        for b in self.unit_blocks(unit).collect::<Vec<_>>() {
            self.blocks.state[b.index()] = BlockState::Data;
        }
        let f = self.fast.as_mut().expect("FAST");
        let old = std::mem::replace(&mut f.data[lbn as usize], unit);
        if old == INVALID {
            return None;
        }
        for b in self.unit_blocks(old).collect::<Vec<_>>() {
            assert_eq!(
                self.blocks.valid[b.index()],
                0,
                "an old data unit keeps data"
            );
            self.blocks.state[b.index()] = BlockState::Victim;
        }
        Some(old)
    }

    /// Preconditioning: map `lpns` (those not mapped yet) into the data
    /// units of their logical blocks, untimed, as merges would leave them.
    pub(crate) fn fast_precondition(&mut self, lpns: impl Iterator<Item = Lpn>) -> Result<u64> {
        let f = self.fast.as_ref().expect("FAST");
        let mut by_lbn: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for (i, lpn) in lpns.enumerate() {
            if i.is_multiple_of(1 << 16) && crate::workload::interrupt::poll() {
                return Err(crate::error::Error::Interrupted(
                    "while preconditioning the drive (hybrid map)".into(),
                ));
            }
            if self.maps.l2p.get(lpn as usize) == INVALID {
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
                    .is_some_and(|l| self.maps.l2p.get(l as usize) != INVALID)
            }));
            offsets.sort_unstable();
            offsets.dedup();
            let unit = self.fast_open_data(domain, lbn).ok_or_else(|| {
                Error::Invalid(format!(
                    "preconditioning (hybrid map): {} {domain} has no free unit for logical block {lbn}",
                    self.domains.name()
                ))
            })?;
            for o in offsets {
                let f = self.fast.as_ref().expect("FAST");
                let lpn = f.lpn_of(lbn, o).expect("offset within the capacity");
                let dst = f.page_at(unit, o);
                let src = self.maps.l2p.get(lpn as usize);
                if src == INVALID {
                    self.blocks.wp[(dst / self.ppb) as usize] = (dst % self.ppb) as u16 + 1;
                    self.fast_place(lpn, dst, 0);
                    written += 1;
                } else {
                    self.fast_program(src, lpn, dst);
                }
            }
            if let Some(old) = self.fast_seal(lbn, unit) {
                let blocks: Vec<_> = self.unit_blocks(old).collect();
                self.fast_dissolve(old);
                for b in blocks {
                    self.erase(b);
                }
            }
        }
        Ok(written)
    }

    /// FAST invariants: data units hold their logical block's pages at their
    /// offsets, valid pages elsewhere are in log units or a merge's victim.
    pub(crate) fn check_fast(&self) -> std::result::Result<(), String> {
        let f = self.fast.as_ref().expect("FAST");
        // A VFC's multi-plane command may open a log on each plane of a die
        // after its build saw room for one; its closed sequential logs
        // (virtual blocks) are not counted.
        let slack = if f.vfc.is_some() {
            self.ppd as usize - 1
        } else {
            0
        };
        for (domain, logs) in f.logs.iter().enumerate() {
            let counted = match &f.vfc {
                Some(v) => logs.iter().filter(|&&u| v.members(u).is_none()).count(),
                None => logs.len(),
            };
            if counted > f.limit + slack {
                return Err(format!(
                    "domain {domain} holds {counted} log units, more than {}",
                    f.limit + slack
                ));
            }
            for &u in logs {
                if let Some(b) = self.unit_blocks(u).find(|&b| {
                    !matches!(
                        self.blocks.state[b.index()],
                        BlockState::Active | BlockState::Closed | BlockState::Free
                    )
                }) {
                    return Err(format!(
                        "log unit {u}: block {b} is {:?}",
                        self.blocks.state[b.index()]
                    ));
                }
            }
        }
        for (lbn, &unit) in f.data.iter().enumerate() {
            if unit != INVALID {
                if let Some(b) = self
                    .unit_blocks(unit)
                    .find(|&b| self.blocks.state[b.index()] != BlockState::Data)
                {
                    return Err(format!(
                        "data unit {unit} of logical block {lbn}: block {b} is {:?}",
                        self.blocks.state[b.index()]
                    ));
                }
            }
        }
        for (ppn, lpn) in self.maps.p2l.iter().enumerate() {
            if lpn == INVALID {
                continue;
            }
            let gb = ppn as u32 / self.ppb;
            let unit = f.unit_of_block(gb);
            match self.blocks.state[gb as usize] {
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
                _ if f.is_log(unit) => {
                    // A logical block's log pages stay in its domain.
                    let (lbn, _) = f.lbn_of(lpn);
                    if f.domain_of_lbn(lbn) != f.domain_of_unit(unit) {
                        return Err(format!(
                            "lpn {lpn} (logical block {lbn}, domain {}) is in log unit {unit} of domain {}",
                            f.domain_of_lbn(lbn),
                            f.domain_of_unit(unit)
                        ));
                    }
                }
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

/// What FAST (`ftl.mapping = "fast"`) — which policies it composes with, and whether a GC unit holds a data unit for every logical block, its log units and one to merge into requires of the other policies, and what it excludes: the
/// first violated requirement as (the key to change, why).
pub(crate) fn requirements(c: &Config) -> Requirement {
    if c.ftl.sequential_log && c.ftl.mapping != Mapping::Vfc {
        return Err((
            "ftl.sequential_log",
            "the sequential log is built for mapping = \"vfc\" (DVPFTL's virtual blocks) only"
                .into(),
        ));
    }
    match c.ftl.mapping {
        Mapping::Fast => {}
        Mapping::Vfc => return vfc_requirements(c),
        _ => return Ok(()),
    }
    let groups = c.ftl.block_groups == BlockGroups::Die;
    if c.write_streams() != 1 {
        return Err(("ftl.hot_data", "mapping = \"fast\" has one log stream: hot/cold separation (hot_data) must be \"none\"".into()));
    }
    if c.gc.combine_host_writes {
        return Err(("gc.combine_host_writes", "mapping = \"fast\" reclaims space by merges, which host pages cannot join (SPD+ combines them with GC moves)".into()));
    }
    if !groups && c.ftl.plane_allocation != PlaneAllocation::Static {
        return Err(("ftl.plane_allocation", "mapping = \"fast\" with block_groups = \"plane\" needs plane_allocation = \"static\" (a logical block's pages live in one plane)".into()));
    }
    let units = c.ftl.fast_log_units;
    if units < 2 {
        return Err((
            "ftl.fast_log_units",
            "must be at least 2 (one log being written while the oldest is merged)".into(),
        ));
    }
    let g = &c.geometry;
    let lbns = lbns_per_domain(c.logical_pages(), c.total_planes(), g.pages_per_block) as u64;
    // Data units, log units, one being merged into, and the free one the
    // host may not take.
    if lbns + units as u64 + 2 > g.blocks_per_plane as u64 {
        return Err((
            "ftl.fast_log_units",
            format!(
                "{units} log units do not fit: a {} holds {} units, {lbns} of them data units of its logical blocks, and needs 2 more free (lower fast_log_units or raise ftl.overprovisioning)",
                if groups { "die" } else { "plane" },
                g.blocks_per_plane
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lbn_and_lpn_are_inverse_and_stay_in_their_domain() {
        for (scheme, groups) in [("baseline-d", false), ("spd", true)] {
            // small: 16 planes, 2 per die; a capacity not a whole number of blocks.
            let base = Config::preset("small")
                .unwrap()
                .with_overrides(&[
                    "geometry.blocks_per_plane=16".into(),
                    "geometry.pages_per_block=4".into(),
                    "ftl.overprovisioning=0.31".into(),
                ])
                .unwrap();
            let cfg = crate::scheme::by_name(scheme)
                .unwrap()
                .apply(&base)
                .unwrap();
            assert_eq!(cfg.ftl.block_groups == BlockGroups::Die, groups);
            let (planes, ppb, bpp) = (cfg.total_planes(), 4, 16);
            let logical = cfg.logical_pages();
            assert_ne!(logical % (planes as u64 * ppb as u64), 0);
            let table: Vec<u32> = (0..planes).rev().collect();
            let f = Fast::new(&cfg, &Domains::new(&cfg), table);
            let mut seen = std::collections::HashSet::new();
            for lpn in 0..logical as Lpn {
                let (lbn, off) = f.lbn_of(lpn);
                assert!(off < f.unit_pages);
                assert_eq!(f.lpn_of(lbn, off), Some(lpn), "groups {groups} lpn {lpn}");
                assert!(seen.insert((lbn, off)));
                // The data page of an LPN is on its static plane.
                let domain = f.domain_of_lbn(lbn);
                let unit = domain * bpp + 3;
                let ppn = f.page_at(unit, off);
                assert_eq!(ppn / ppb / bpp, f.plane_of_residue[(lpn % planes) as usize]);
                assert_eq!(f.offset_of_page(ppn), off);
                assert_eq!(f.domain_of_unit(f.unit_of_block(ppn / ppb)), domain);
            }
        }
    }
}
