//! FAST hybrid mapping (Lee et al., "A log buffer-based flash translation
//! layer using fully-associative sector translation", ACM TECS 2007): the
//! address arithmetic and bookkeeping of block-mapped data units and log
//! units. The FTL (`ftl.rs`) owns the pages; this module says where a
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

use std::collections::VecDeque;

use crate::addr::{Lpn, Ppn, INVALID};
use crate::config::{BlockGroups, Config};

pub struct Fast {
    planes: u32,
    ppd: u32,
    ppb: u32,
    bpp: u32,
    logical: u64,
    /// Die domains (aligned block groups) or plane domains.
    groups: bool,
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
}

impl Fast {
    /// FAST state for `cfg` (whose `ftl.block_groups` chooses plane or die
    /// domains), given static allocation's plane of each LPN residue.
    pub fn new(cfg: &Config, plane_of_residue: Vec<u32>) -> Fast {
        let g = &cfg.geometry;
        let (planes, ppd, ppb, bpp) = (
            cfg.total_planes(),
            g.planes_per_die,
            g.pages_per_block,
            g.blocks_per_plane,
        );
        let logical = cfg.logical_pages();
        let groups = cfg.ftl.block_groups == BlockGroups::Die;
        let limit = cfg.ftl.fast_log_units as usize;
        let mut residue_of_plane = vec![0; planes as usize];
        for (r, &p) in plane_of_residue.iter().enumerate() {
            residue_of_plane[p as usize] = r as u32;
        }
        let lbns_per_domain = lbns_per_domain(logical, planes, ppb);
        let domains = if groups { planes / ppd } else { planes };
        Fast {
            planes,
            ppd,
            ppb,
            bpp,
            logical,
            groups,
            unit_pages: ppb * if groups { ppd } else { 1 },
            lbns_per_domain,
            plane_of_residue,
            residue_of_plane,
            data: vec![INVALID; (domains * lbns_per_domain) as usize],
            logs: (0..domains).map(|_| VecDeque::new()).collect(),
            limit,
        }
    }

    /// Logical block and offset of `lpn`.
    #[inline]
    pub fn lbn_of(&self, lpn: Lpn) -> (u32, u32) {
        let plane = self.plane_of_residue[(lpn % self.planes) as usize];
        let row = (lpn / self.planes) as u64;
        let (domain, local) = if self.groups {
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
        let domain = lbn / self.lbns_per_domain;
        let local = (lbn % self.lbns_per_domain) as u64 * self.unit_pages as u64 + offset as u64;
        let (row, plane) = if self.groups {
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
        lbn / self.lbns_per_domain
    }

    /// Domain of a unit.
    #[inline]
    pub fn domain_of_unit(&self, unit: u32) -> u32 {
        unit / self.bpp
    }

    /// Unit (block or group id) holding global block `gb`.
    #[inline]
    pub fn unit_of_block(&self, gb: u32) -> u32 {
        if self.groups {
            (gb / self.bpp / self.ppd) * self.bpp + gb % self.bpp
        } else {
            gb
        }
    }

    /// Physical page of `offset` in data unit `unit`.
    #[inline]
    pub fn page_at(&self, unit: u32, offset: u32) -> Ppn {
        if self.groups {
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
        let page = ppn % self.ppb;
        if self.groups {
            let plane = ppn / self.ppb / self.bpp;
            page * self.ppd + plane % self.ppd
        } else {
            page
        }
    }

    /// Is `unit` one of its domain's log units?
    pub fn is_log(&self, unit: u32) -> bool {
        self.logs[self.domain_of_unit(unit) as usize].contains(&unit)
    }
}

/// Logical blocks per domain for a capacity of `logical` pages.
pub fn lbns_per_domain(logical: u64, planes: u32, ppb: u32) -> u32 {
    logical.div_ceil(planes as u64).div_ceil(ppb as u64) as u32
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
            let f = Fast::new(&cfg, table);
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
