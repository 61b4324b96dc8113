//! Bad blocks (`flash.bad_blocks`): factory bad blocks, grown bad blocks,
//! spare blocks and the read-only end.
//!
//! - **Factory bad blocks**: when the FTL is built, exactly
//!   round(`factory_fraction` × blocks per plane) blocks of each plane are
//!   bad, drawn uniformly (a partial Fisher–Yates shuffle of the plane's
//!   block indices) from a random stream of their own: the seed's
//!   generator jumped 2^192 draws ahead, so no other draw of the model
//!   moves. They are retired before anything is written: never in a free
//!   list, never allocated.
//! - **Grown bad blocks** retire at an erase ([`Ftl::erase`]): the erase
//!   that brings a block's erase count to `cell.endurance` (with
//!   `retire_at_endurance`), or else an erase that fails, with probability
//!   `erase_failure_probability` (a draw of the same stream per erase, only
//!   when the probability is above 0). GC erases only a victim whose valid
//!   pages it has moved, so a retiring block holds no data: nothing is
//!   lost. A retired block leaves its plane for good: it is in no free
//!   list, never opened, never closed, never a victim. Program failures
//!   are not modelled.
//! - **Spares**: every plane sets aside `spare_blocks` of its
//!   over-provisioned blocks (`Config::spare_blocks`); the logical capacity
//!   is unchanged. Each retired block (factory ones first) uses one. The
//!   configuration is refused when the factory bad blocks exceed the
//!   spares, and when the spares do not fit in the over-provisioned space.
//! - **Read-only end**: a block that retires in a plane with no spare left
//!   (its retired blocks then exceed `spare_blocks`) leaves the plane unable
//!   to replace it: the drive goes read-only. The FTL records the first
//!   such plane; the simulator ends the run at the end of that event and
//!   reports why (`Simulator::read_only_end`), and aging stops with an
//!   error.
//!
//! With the table absent nothing here exists ([`Ftl::bad`] is None) and no
//! result moves.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::*;
use crate::config::Requirement;

/// Why a block retired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    Factory,
    Endurance,
    EraseFailure,
}

/// The bad-block state of the drive (module documentation).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct BadBlocks {
    /// `cell.endurance` if blocks retire at it.
    retire_at: Option<u32>,
    erase_failure: f64,
    /// Spare blocks per plane.
    pub(crate) spares: u32,
    /// Per plane: blocks retired from the factory, at the endurance limit,
    /// after a failed erase.
    pub(crate) factory: Vec<u32>,
    pub(crate) endurance: Vec<u32>,
    pub(crate) erase_failed: Vec<u32>,
    /// The stream of factory and erase-failure draws.
    rng: Xoshiro256PlusPlus,
    /// The first plane whose retired blocks exceeded its spares.
    pub(crate) out_of_spares: Option<u32>,
}

impl BadBlocks {
    fn new(cfg: &Config) -> Option<BadBlocks> {
        let b = cfg.flash.bad_blocks.as_ref()?;
        let planes = cfg.total_planes() as usize;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed);
        rng.long_jump();
        Some(BadBlocks {
            retire_at: b.retire_at_endurance.then(|| cfg.cell.endurance()),
            erase_failure: b.erase_failure_probability,
            spares: cfg.spare_blocks(),
            factory: vec![0; planes],
            endurance: vec![0; planes],
            erase_failed: vec![0; planes],
            rng,
            out_of_spares: None,
        })
    }

    /// Blocks of `plane` retired, all causes.
    pub(crate) fn retired(&self, plane: usize) -> u32 {
        self.factory[plane] + self.endurance[plane] + self.erase_failed[plane]
    }

    /// Does a block of `plane` that its erase just brought to `erases`
    /// retire? Counts it if so.
    fn erased(&mut self, plane: usize, erases: u32) -> bool {
        let cause = if self.retire_at.is_some_and(|e| erases >= e) {
            Cause::Endurance
        } else if self.erase_failure > 0.0 && self.rng.gen::<f64>() < self.erase_failure {
            Cause::EraseFailure
        } else {
            return false;
        };
        self.count(plane, cause);
        true
    }

    fn count(&mut self, plane: usize, cause: Cause) {
        match cause {
            Cause::Factory => self.factory[plane] += 1,
            Cause::Endurance => self.endurance[plane] += 1,
            Cause::EraseFailure => self.erase_failed[plane] += 1,
        }
        if self.retired(plane) > self.spares && self.out_of_spares.is_none() {
            self.out_of_spares = Some(plane as u32);
        }
    }

    /// The report's figures (`status`: the read-only end's, if any).
    pub(crate) fn report(&self, status: Option<String>) -> crate::metrics::BadBlockReport {
        let sum = |v: &[u32]| v.iter().map(|&n| n as u64).sum::<u64>();
        let planes = self.factory.len();
        crate::metrics::BadBlockReport {
            factory: sum(&self.factory),
            grown_endurance: sum(&self.endurance),
            grown_erase_failure: sum(&self.erase_failed),
            spare_blocks_per_plane: self.spares,
            spares_left_min: (0..planes)
                .map(|p| self.spares.saturating_sub(self.retired(p)))
                .min()
                .unwrap_or(0),
            read_only: status,
        }
    }
}

impl Ftl {
    /// Install `cfg`'s bad blocks (if any) in a new FTL: retire each
    /// plane's factory bad blocks.
    pub(super) fn install_bad_blocks(&mut self, cfg: &Config) {
        let Some(mut bad) = BadBlocks::new(cfg) else {
            return;
        };
        let k = cfg.factory_bad_blocks();
        let bpp = self.bpp;
        let mut order: Vec<u32> = Vec::with_capacity(bpp as usize);
        for plane in 0..self.planes as usize {
            order.clear();
            order.extend(0..bpp);
            for i in 0..k as usize {
                let j = i + bad.rng.gen_range(0..(bpp as usize - i));
                order.swap(i, j);
                let gb = plane * bpp as usize + order[i] as usize;
                self.blocks.state[gb] = BlockState::Retired;
                bad.count(plane, Cause::Factory);
            }
            let state = &self.blocks.state;
            self.alloc.free[plane].retain(|&b| state[b as usize] != BlockState::Retired);
        }
        self.bad = Some(Box::new(bad));
    }

    /// An erase brought block `gb` to `erases`: does it retire (bad blocks
    /// on)? Then it is marked retired and counted; the caller keeps it out
    /// of the free list.
    #[inline]
    pub(super) fn retires(&mut self, gb: u32, erases: u32) -> bool {
        let Some(bad) = &mut self.bad else {
            return false;
        };
        let plane = (gb / self.bpp) as usize;
        if !bad.erased(plane, erases) {
            return false;
        }
        self.blocks.state[gb as usize] = BlockState::Retired;
        true
    }

    /// Are bad blocks modelled (`flash.bad_blocks`)?
    pub fn bad_blocks_on(&self) -> bool {
        self.bad.is_some()
    }

    /// The first plane that ran out of spare blocks (the drive is
    /// read-only), if any.
    pub fn out_of_spares(&self) -> Option<PlaneId> {
        self.bad.as_ref()?.out_of_spares.map(PlaneId)
    }

    /// Blocks of `plane` retired (0 without bad blocks).
    pub fn retired_blocks(&self, plane: PlaneId) -> u32 {
        self.bad.as_ref().map_or(0, |b| b.retired(plane.index()))
    }

    /// Spare blocks per plane left in the plane with fewest, and per plane
    /// set aside (None without bad blocks).
    pub fn spares(&self) -> Option<(u32, u32)> {
        let b = self.bad.as_ref()?;
        let left = (0..self.planes as usize)
            .map(|p| b.spares.saturating_sub(b.retired(p)))
            .min()
            .unwrap_or(0);
        Some((left, b.spares))
    }

    /// The report's bad-block figures (None without bad blocks).
    pub fn bad_block_report(
        &self,
        status: Option<String>,
    ) -> Option<crate::metrics::BadBlockReport> {
        self.bad.as_ref().map(|b| b.report(status))
    }

    /// A replicate's stream of erase failures: jumped `replicate` × 2^128
    /// draws ahead (as the model's generator is).
    pub(crate) fn bad_blocks_replicate(&mut self, replicate: u64) {
        if let Some(b) = &mut self.bad {
            for _ in 0..replicate {
                b.rng.jump();
            }
        }
    }

    /// The bad-block state a saved drive state carries after the rest.
    pub(crate) fn bad_state(&self) -> Option<&BadBlocks> {
        self.bad.as_deref()
    }

    /// Install a saved drive state's bad-block state.
    pub(crate) fn set_bad_state(&mut self, bad: BadBlocks) {
        self.bad = Some(Box::new(bad));
    }

    /// The checker's part: retired blocks hold no valid page, are no write
    /// point's active block and in no free list (`check` verifies free
    /// lists hold free blocks only), and the counts agree with the states.
    pub(crate) fn check_bad_blocks(&self) -> std::result::Result<(), String> {
        let bpp = self.bpp as usize;
        for plane in 0..self.planes as usize {
            let blocks = plane * bpp..(plane + 1) * bpp;
            let mut retired = 0u32;
            for gb in blocks {
                if self.blocks.state[gb] != BlockState::Retired {
                    continue;
                }
                retired += 1;
                if self.blocks.valid[gb] != 0 {
                    return Err(format!(
                        "retired block {gb} holds {} valid pages",
                        self.blocks.valid[gb]
                    ));
                }
                let first = gb * self.ppb as usize;
                if let Some(p) =
                    (first..first + self.ppb as usize).find(|&p| self.maps.p2l.get(p) != INVALID)
                {
                    return Err(format!("retired block {gb}: page {p} is mapped"));
                }
                if self.points.active.contains(&(gb as u32)) {
                    return Err(format!(
                        "retired block {gb} is a write point's active block"
                    ));
                }
                if self.blocks.victims.contains(gb as u32) {
                    return Err(format!("retired block {gb} is in the victim index"));
                }
            }
            let counted = self.retired_blocks(PlaneId(plane as u32));
            if retired != counted {
                return Err(format!(
                    "plane {plane}: {retired} retired blocks but {counted} counted"
                ));
            }
            if let Some(b) = &self.bad {
                let out = b.retired(plane) > b.spares;
                if out && b.out_of_spares.is_none() {
                    return Err(format!(
                        "plane {plane} retired more blocks than its {} spares without going read-only",
                        b.spares
                    ));
                }
            }
        }
        Ok(())
    }
}

/// What bad blocks require of the other policies: blocks retired one at a
/// time from a plane's own free list (per-plane blocks, page or DFTL
/// mapping, no page-type pools).
pub(crate) fn requirements(c: &Config) -> Requirement {
    if c.flash.bad_blocks.is_none() {
        return Ok(());
    }
    let why = if c.ftl.block_groups == crate::config::BlockGroups::Die {
        "per-plane blocks (ftl.block_groups = \"plane\"; an aligned group would lose a block in every plane)"
    } else if c.ftl.mapping.hybrid() {
        "page or DFTL mapping (ftl.mapping; a hybrid map's units take blocks of their own)"
    } else if c.ftl.type_pools {
        "ftl.type_pools off (PA-SSD's pools keep blocks of their own)"
    } else {
        return Ok(());
    };
    Err((
        "flash.bad_blocks",
        format!("retires blocks of a plane's free list: needs {why}"),
    ))
}
