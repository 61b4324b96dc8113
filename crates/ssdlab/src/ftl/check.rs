//! The FTL's consistency checker: every invariant of the maps, blocks and
//! free lists, verified on demand.
//!
//! With `check.enabled` (`--check`) the FTL keeps versions (`maps.rs`): per
//! LPN the latest the host wrote (taken when a host page enters the buffer or
//! is queued unbuffered), per physical page the one it holds (set when
//! programmed, carried by relocation); aged data has version 0. `check`
//! verifies: retired blocks (bad blocks, `bad.rs`) hold no valid page, are
//! in no free list, no write point and not in the victim index, and their
//! counts agree; valid pages only where programmed; forward and reverse maps
//! agree both ways; per-block and per-plane valid counts; free blocks have
//! write pointer 0, closed blocks are full and in the victim index; free
//! lists hold exactly the free blocks; active blocks are active; every write
//! stream's cursor is what its active block says; aligned groups, type pools
//! and FAST's units keep their own rules (`groups.rs`, `lanes.rs`,
//! `mapping/fast.rs`); and for every LPN the newest copy in flight (buffer,
//! else a queued program) has the latest version, or else the mapped page
//! does, and a written LPN is never unmapped; under flows' partitions,
//! every valid page of a partitioned flow's LPN lies in its partition. It runs at the end of a run and
//! every `check.interval_requests` completions, O(physical + logical pages);
//! `check_totals`, O(blocks), runs after every run. Cheap local invariants
//! are release assertions where they hold (`Ftl::invalidate`, `erase`,
//! `open_block`, `unpin`, ...).

use super::*;
use crate::addr::{Lpn, INVALID};

impl Ftl {
    /// Has this FTL (a saved drive state, decoded) the shape of `cfg`'s
    /// drive: its geometry, and maps, per-block and per-plane state of the
    /// lengths that geometry gives? Checked before the other invariants,
    /// which index by it.
    pub(crate) fn check_shape(&self, cfg: &Config) -> std::result::Result<(), String> {
        let fresh = Ftl::new(cfg, &self.domains, cfg.check.enabled);
        let blocks = (fresh.planes * fresh.bpp) as usize;
        let lens = [
            ("planes", self.planes as usize, fresh.planes as usize),
            ("pages per block", self.ppb as usize, fresh.ppb as usize),
            ("blocks per plane", self.bpp as usize, fresh.bpp as usize),
            ("planes per die", self.ppd as usize, fresh.ppd as usize),
            (
                "logical pages",
                self.logical_pages as usize,
                fresh.logical_pages as usize,
            ),
            ("forward map", self.maps.l2p.len(), fresh.maps.l2p.len()),
            ("reverse map", self.maps.p2l.len(), fresh.maps.p2l.len()),
            ("block valid counts", self.blocks.valid.len(), blocks),
            ("block write pointers", self.blocks.wp.len(), blocks),
            ("block states", self.blocks.state.len(), blocks),
            ("block pins", self.blocks.pins.len(), blocks),
            ("erase counts", self.blocks.erase_count.len(), blocks),
            (
                "plane valid counts",
                self.blocks.plane_valid.len(),
                fresh.planes as usize,
            ),
            ("free lists", self.alloc.free.len(), fresh.alloc.free.len()),
            (
                "write points",
                self.points.active.len(),
                fresh.points.active.len(),
            ),
            (
                "write cursors",
                self.points.cursor.len(),
                fresh.points.cursor.len(),
            ),
            (
                "versions",
                self.maps
                    .versions
                    .as_ref()
                    .map_or(0, |v| v.latest.len() + v.page.len()),
                fresh
                    .maps
                    .versions
                    .as_ref()
                    .map_or(0, |v| v.latest.len() + v.page.len()),
            ),
            (
                "hybrid map",
                self.fast.is_some() as usize,
                fresh.fast.is_some() as usize,
            ),
        ];
        for (what, have, want) in lens {
            if have != want {
                return Err(format!("{what}: {have}, the drive has {want}"));
            }
        }
        Ok(())
    }

    /// The invariants cheap enough to verify after every run, whatever
    /// `check.enabled` says: O(blocks), not O(pages). Each plane's valid
    /// count is the sum of its blocks', no block holds more valid pages
    /// than it has, or than it has programmed, and every write stream's
    /// cursor is where its active block's next page is; retired blocks
    /// (bad blocks) hold nothing and are nobody's, and their counts agree.
    pub fn check_totals(&self) -> std::result::Result<(), String> {
        self.check_cursors()?;
        if self.bad.is_some() {
            self.check_bad_blocks()?;
        }
        self.check_wear()?;
        self.check_levelling()?;
        let bpp = self.bpp as usize;
        for plane in 0..self.planes as usize {
            let blocks = plane * bpp..(plane + 1) * bpp;
            let mut counted = 0u32;
            for gb in blocks {
                let v = self.blocks.valid[gb] as u32;
                if v > self.ppb || v > self.blocks.wp[gb] as u32 {
                    return Err(format!(
                        "block {gb}: {v} valid pages, {} programmed of {}",
                        self.blocks.wp[gb], self.ppb
                    ));
                }
                counted += v;
            }
            if counted != self.blocks.plane_valid[plane] {
                return Err(format!(
                    "plane {plane}: {counted} valid pages in its blocks but {} counted",
                    self.blocks.plane_valid[plane]
                ));
            }
        }
        Ok(())
    }

    /// Verify the FTL's invariants. `in_flight(lpn)` gives the version of an
    /// LPN's newest data if it is not on flash yet (write buffer or a queued
    /// program). Returns a description of the first violation.
    pub fn check(&self, in_flight: impl Fn(Lpn) -> Option<u32>) -> std::result::Result<(), String> {
        if self.bad.is_some() {
            self.check_bad_blocks()?;
        }
        let ppb = self.ppb as usize;
        for gb in 0..self.blocks.valid.len() {
            let st = self.blocks.state[gb];
            let wp = self.blocks.wp[gb] as usize;
            let mut valid = 0;
            for page in 0..ppb {
                let ppn = gb * ppb + page;
                let lpn = self.maps.p2l.get(ppn);
                if lpn == INVALID {
                    continue;
                }
                let programmed = match (&self.blocks.lanes, &self.blocks.parity) {
                    (Some(l), _) => l.programmed(gb as u32, page as u32),
                    (None, None) => page < wp,
                    (None, Some(n)) => page < n[gb][page % 2] as usize,
                };
                if !programmed {
                    return Err(format!(
                        "block {gb} page {page}: valid data on a page not programmed yet (write pointer {wp})"
                    ));
                }
                if self.maps.l2p.get(lpn as usize) != ppn as u32 {
                    return Err(format!(
                        "ppn {ppn} claims lpn {lpn}, which maps to {}",
                        self.maps.l2p.get(lpn as usize)
                    ));
                }
                if self.homes.is_some() && !self.in_home_domain(lpn, self.map.plane_of(ppn as Ppn))
                {
                    return Err(format!(
                        "lpn {lpn} (of a flow's partition) is valid on plane {}, outside its \
                         partition's planes {:?}",
                        self.map.plane_of(ppn as Ppn).0,
                        self.home_planes(lpn).unwrap_or_default()
                    ));
                }
                valid += 1;
            }
            if let Some(l) = &self.blocks.lanes {
                // Relaxed program order: the gates hold, and the lanes
                // account for every programmed page.
                l.check(gb as u32)?;
                if l.count(gb as u32) as usize != wp {
                    return Err(format!(
                        "block {gb}: {} pages programmed in its lanes, write count {wp}",
                        l.count(gb as u32)
                    ));
                }
            }
            if valid != self.blocks.valid[gb] as usize {
                return Err(format!(
                    "block {gb}: valid count {} but {valid} valid pages",
                    self.blocks.valid[gb]
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
                    if !self.domains.is_die()
                        && self.fast.is_none()
                        && !self.blocks.victims.contains(gb as u32) =>
                {
                    return Err(format!("closed block {gb} missing from the victim index"))
                }
                _ => {}
            }
        }
        if self.domains.is_die() {
            self.check_groups()?;
        }
        if self.fast.is_some() {
            self.check_fast()?;
        }
        for plane in 0..self.planes as usize {
            let blocks = plane * self.bpp as usize..(plane + 1) * self.bpp as usize;
            // Group mode keeps free lists per die (check_groups).
            if !self.domains.is_die() {
                let free = &self.alloc.free[plane];
                for &gb in free {
                    if gb / self.bpp != plane as u32
                        || self.blocks.state[gb as usize] != BlockState::Free
                    {
                        return Err(format!(
                            "free list of plane {plane} holds block {gb} in state {:?}",
                            self.blocks.state[gb as usize]
                        ));
                    }
                }
                let nfree = self.blocks.state[blocks.clone()]
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
            let counted: u32 = self.blocks.valid[blocks].iter().map(|&c| c as u32).sum();
            if counted != self.blocks.plane_valid[plane] {
                return Err(format!(
                    "plane {plane}: {counted} valid pages in its blocks but {} counted",
                    self.blocks.plane_valid[plane]
                ));
            }
            let first = plane * self.points.streams as usize;
            for &a in &self.points.active[first..first + self.points.streams as usize] {
                if a != INVALID && self.blocks.state[a as usize] != BlockState::Active {
                    return Err(format!(
                        "plane {plane}: active block {a} is {:?}",
                        self.blocks.state[a as usize]
                    ));
                }
            }
        }
        if self.points.pools.is_some() {
            self.pools_check()?;
        }
        for (lpn, ppn) in self.maps.l2p.iter().enumerate() {
            if ppn != INVALID && self.maps.p2l.get(ppn as usize) != lpn as u32 {
                return Err(format!(
                    "lpn {lpn} maps to ppn {ppn}, which holds {}",
                    self.maps.p2l.get(ppn as usize)
                ));
            }
            if let Some(v) = &self.maps.versions {
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
