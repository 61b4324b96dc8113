//! Bad blocks (`flash.bad_blocks`): factory bad blocks, grown bad blocks,
//! spare blocks and the read-only end.
//!
//! - **Spares**: each plane sets aside `spare_blocks` blocks
//!   (`Config::spare_blocks`), taken from its over-provisioned space; the
//!   logical capacity is unchanged. A plane works with its other blocks
//!   only: `blocks_per_plane − spare_blocks`, whatever goes bad, until its
//!   spares run out. Factory bad blocks use the first spares; the rest
//!   wait in the plane's spare pool (state `Spare`, erased, out of every
//!   list): the plane's good blocks of the highest indices.
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
//!   lost. A retired block leaves its plane for good (never in a free
//!   list, opened, closed or a victim again) and the plane's next spare
//!   takes its place in the free list, so GC's room never shrinks. Program
//!   failures are not modelled.
//! - **Read-only end**: a block that retires in a plane whose spare pool
//!   is empty (its retired blocks then exceed `spare_blocks`) cannot be
//!   replaced: the drive goes read-only. The FTL records the first such
//!   plane; the simulator ends the run at the end of that event and
//!   reports why (`Simulator::read_only_end`), and aging stops with an
//!   error.
//!
//! With the table absent nothing here exists (`Ftl::bad` is None) and no
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
    /// Per plane: the spare blocks not used yet (global ids), taken from
    /// the front.
    pub(crate) pool: Vec<VecDeque<u32>>,
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
            pool: vec![VecDeque::new(); planes],
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
        crate::metrics::BadBlockReport {
            factory: sum(&self.factory),
            grown_endurance: sum(&self.endurance),
            grown_erase_failure: sum(&self.erase_failed),
            spare_blocks_per_plane: self.spares,
            spares_left_min: self.pool.iter().map(|p| p.len() as u32).min().unwrap_or(0),
            read_only: status,
        }
    }
}

impl Ftl {
    /// Install `cfg`'s bad blocks (if any) in a new FTL: retire each
    /// plane's factory bad blocks and set its spares aside.
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
            let free = &mut self.alloc.free[plane];
            free.retain(|&b| state[b as usize] != BlockState::Retired);
            // The spares left: the good blocks of the highest indices.
            let left = bad.spares.saturating_sub(k) as usize;
            let pool = free.split_off(free.len().saturating_sub(left));
            for &b in &pool {
                self.blocks.state[b as usize] = BlockState::Spare;
            }
            bad.pool[plane] = pool;
        }
        self.bad = Some(Box::new(bad));
    }

    /// An erase brought block `gb` to `erases`: does it retire (bad blocks
    /// on)? Then it is marked retired and counted, and the plane's next
    /// spare (if any) joins its free list; the caller keeps the retired
    /// block out of it.
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
        if let Some(s) = bad.pool[plane].pop_front() {
            self.blocks.state[s as usize] = BlockState::Free;
            // (At its place by erase count under dynamic wear levelling.)
            self.free_block(s);
        }
        if self.levelling_on() {
            self.levelling_retired(gb);
        }
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

    /// Blocks of `plane` outside its working set: retired, or spares not
    /// used yet (0 without bad blocks).
    pub fn unusable_blocks(&self, plane: PlaneId) -> u32 {
        self.bad.as_ref().map_or(0, |b| {
            b.retired(plane.index()) + b.pool[plane.index()].len() as u32
        })
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

    /// The checker's part: retired blocks and spares hold no valid or
    /// mapped page, are no write point's active block, in no free list
    /// (`check` verifies free lists hold free blocks only) and not in the
    /// victim index; spares are unwritten and in their plane's pool; the
    /// counts agree with the states, and a plane with more retired blocks
    /// than spares has made the drive read-only.
    pub(crate) fn check_bad_blocks(&self) -> std::result::Result<(), String> {
        let Some(b) = &self.bad else {
            return Ok(());
        };
        let bpp = self.bpp as usize;
        for plane in 0..self.planes as usize {
            let (mut retired, mut spare) = (0u32, 0u32);
            for gb in plane * bpp..(plane + 1) * bpp {
                match self.blocks.state[gb] {
                    BlockState::Retired => retired += 1,
                    BlockState::Spare => {
                        spare += 1;
                        if self.blocks.wp[gb] != 0 {
                            return Err(format!(
                                "spare block {gb} has write pointer {}",
                                self.blocks.wp[gb]
                            ));
                        }
                        if !b.pool[plane].contains(&(gb as u32)) {
                            return Err(format!("spare block {gb} is not in its plane's pool"));
                        }
                    }
                    _ => continue,
                }
                if self.blocks.valid[gb] != 0 {
                    return Err(format!(
                        "{:?} block {gb} holds {} valid pages",
                        self.blocks.state[gb], self.blocks.valid[gb]
                    ));
                }
                let first = gb * self.ppb as usize;
                if let Some(p) =
                    (first..first + self.ppb as usize).find(|&p| self.maps.p2l.get(p) != INVALID)
                {
                    return Err(format!(
                        "{:?} block {gb}: page {p} is mapped",
                        self.blocks.state[gb]
                    ));
                }
                if self.points.active.contains(&(gb as u32)) {
                    return Err(format!(
                        "{:?} block {gb} is a write point's active block",
                        self.blocks.state[gb]
                    ));
                }
                if self.blocks.victims.contains(gb as u32) {
                    return Err(format!(
                        "{:?} block {gb} is in the victim index",
                        self.blocks.state[gb]
                    ));
                }
            }
            if retired != b.retired(plane) {
                return Err(format!(
                    "plane {plane}: {retired} retired blocks but {} counted",
                    b.retired(plane)
                ));
            }
            if spare as usize != b.pool[plane].len() {
                return Err(format!(
                    "plane {plane}: {spare} spare blocks but {} in its pool",
                    b.pool[plane].len()
                ));
            }
            let out = retired > b.spares;
            if (out && b.out_of_spares.is_none()) || (!out && retired + spare != b.spares) {
                return Err(format!(
                    "plane {plane}: {retired} retired and {spare} spare blocks of {} spares{}",
                    b.spares,
                    if out {
                        ", and the drive is not read-only"
                    } else {
                        ""
                    }
                ));
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
