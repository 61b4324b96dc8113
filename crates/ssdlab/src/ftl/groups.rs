//! Aligned block groups (`ftl.block_groups = "die"`): the planes of a die
//! open, collect and erase blocks of one index together.
//!
//! The free list is per die and holds group indices: group `g` is block `g`
//! of every plane of the die. When a plane's write stream needs a block it
//! takes the group a sibling plane opened first (each plane and stream has a
//! FIFO of such reserved groups), or else pops a free group and reserves it
//! for every sibling's same stream; so the planes of a die open the same
//! indices in the same order, whatever order they fill them in. A group
//! enters the victim index (keyed `die * blocks_per_plane + g`, its valid
//! count the sum over its blocks) when all its blocks are closed, and is
//! free again when its last block is erased. The GC unit is the die
//! (`gc/group.rs`), which reads the victim group page index by page index
//! across the planes and programs the moves over the die's planes; while a
//! die collects, its host writes wait. A plane's stream's *position* (blocks
//! opened × pages per block, plus the active block's write pointer) makes
//! aligned write points checkable (`die_alignment`, run after every
//! Die-Write with the checker on).

use super::*;
use crate::addr::{BlockId, DieId, INVALID};
use crate::config::Migration;
use crate::config::Requirement;
use crate::engine::Time;

impl Ftl {
    /// Group id (`die * blocks_per_plane + index`) of a block.
    #[inline]
    pub fn group_of(&self, gb: BlockId) -> u32 {
        let gb = gb.0;
        (gb / self.bpp / self.ppd) * self.bpp + gb % self.bpp
    }

    /// The blocks of a group, plane by plane.
    pub fn group_blocks(&self, group: u32) -> impl Iterator<Item = BlockId> {
        let (die, g, bpp) = (DieId(group / self.bpp), group % self.bpp, self.bpp);
        (die.planes(self.ppd)).map(move |p| BlockId(p.0 * bpp + g))
    }

    /// Valid pages in a group.
    pub fn group_valid(&self, group: u32) -> u32 {
        self.group_blocks(group)
            .map(|b| self.blocks.valid[b.index()] as u32)
            .sum()
    }

    /// Valid pages of a GC victim: a block, or a group of one block per
    /// plane of a die (aligned block groups).
    #[inline]
    pub fn unit_valid(&self, unit: u32) -> u32 {
        if self.domains.is_die() {
            self.group_valid(unit)
        } else {
            self.blocks.valid[unit as usize] as u32
        }
    }

    /// The unit (GC victim or hybrid map unit id) holding block `gb`: the
    /// block, its group (aligned block groups), or its virtual block.
    #[inline]
    pub fn unit_of_block(&self, gb: BlockId) -> u32 {
        match &self.fast {
            Some(f) => f.unit_of_block(gb.0),
            None if self.domains.is_die() => self.group_of(gb),
            None => gb.0,
        }
    }

    /// Position of a plane's write point in stream `s` (pages written since
    /// the drive was fresh, counted in whole blocks opened): the planes of a
    /// die are aligned when their positions and active blocks agree.
    pub(crate) fn position(&self, s: usize) -> u64 {
        let a = self.points.active[s];
        if a == INVALID {
            self.points.opened[s] * self.ppb as u64
        } else {
            (self.points.opened[s] - 1) * self.ppb as u64 + self.blocks.wp[a as usize] as u64
        }
    }

    /// Does the write unit keep each die's write points aligned (Die-Writes,
    /// super pages)?
    #[inline]
    pub(crate) fn aligned(&self) -> bool {
        self.aligned
    }

    /// Are the write points of every stream aligned on all planes of `die`?
    /// (Group mode only.) Returns a description of the first misalignment.
    pub fn die_alignment(&self, die: DieId) -> std::result::Result<(), String> {
        for si in 0..self.points.streams {
            let s0 = (die.first_plane(self.ppd).0 * self.points.streams + si) as usize;
            let (pos0, a0) = (self.position(s0), self.points.active[s0]);
            for q in die.planes(self.ppd).skip(1) {
                let s = (q.0 * self.points.streams + si) as usize;
                let a = self.points.active[s];
                let same_block = (a == INVALID && a0 == INVALID)
                    || (a != INVALID && a0 != INVALID && a % self.bpp == a0 % self.bpp);
                // Under relaxed program order the blocks' lanes too: each
                // Die-Write takes one page type on every plane.
                let same_lanes = match (&self.blocks.lanes, a != INVALID && a0 != INVALID) {
                    (Some(l), true) => l.next[a as usize] == l.next[a0 as usize],
                    _ => true,
                };
                if self.position(s) != pos0 || !same_block || !same_lanes {
                    return Err(format!(
                        "die {die} stream {si}: plane {q} writes at position {} (block {}), plane {} at {pos0} (block {})",
                        self.position(s),
                        if a == INVALID { -1 } else { (a % self.bpp) as i64 },
                        die.first_plane(self.ppd),
                        if a0 == INVALID { -1 } else { (a0 % self.bpp) as i64 },
                    ));
                }
            }
        }
        Ok(())
    }

    /// Program stale pages (INVALID) on the planes of `die` that lag behind
    /// the furthest one in `w`'s stream, so that its write points are aligned
    /// again. Returns the pages wasted.
    pub fn pad_die(&mut self, die: DieId, w: Writer, now: Time) -> u64 {
        let planes = die.planes(self.ppd);
        let target = planes
            .clone()
            .map(|q| self.position(self.points.stream(q, w)))
            .max()
            .unwrap_or(0);
        let mut wasted = 0;
        for q in planes {
            while self.position(self.points.stream(q, w)) < target {
                self.write_replacing(q, INVALID, INVALID, 0, w, now, Place::Next)
                    .expect("a lagging plane writes into groups its siblings opened");
                wasted += 1;
            }
        }
        wasted
    }

    /// Group mode invariants: free groups are free in every plane, each free
    /// block is on its die's free list or reserved by its plane, closed groups
    /// are in the victim index, and Die-Writes keep write points aligned.
    pub(crate) fn check_groups(&self) -> std::result::Result<(), String> {
        let bpp = self.bpp as usize;
        for die in DieId::all(self.planes / self.ppd) {
            let mut listed = vec![0u32; bpp];
            for &g in &self.alloc.free[die.index()] {
                listed[g as usize] += self.ppd;
            }
            for plane in die.planes(self.ppd) {
                let first = (plane.0 * self.points.streams) as usize;
                for r in &self.points.reserved[first..first + self.points.streams as usize] {
                    for &g in r {
                        listed[g as usize] += 1;
                    }
                }
                for b in 0..self.bpp {
                    let gb = (plane.0 * self.bpp + b) as usize;
                    // A group whose erases are under way has free and
                    // victim blocks; it is listed once all are erased.
                    let erasing = self
                        .group_blocks(die.0 * self.bpp + b)
                        .any(|x| self.blocks.state[x.index()] == BlockState::Victim);
                    if self.blocks.state[gb] == BlockState::Free && !erasing {
                        listed[b as usize] = listed[b as usize].wrapping_sub(1);
                    }
                }
            }
            if let Some(g) = listed.iter().position(|&c| c != 0) {
                let id = die.0 * self.bpp + g as u32;
                let states: Vec<BlockState> = self
                    .group_blocks(id)
                    .map(|b| self.blocks.state[b.index()])
                    .collect();
                let reserved: Vec<usize> = (die.planes(self.ppd))
                    .map(|p| {
                        let first = (p.0 * self.points.streams) as usize;
                        self.points.reserved[first..first + self.points.streams as usize]
                            .iter()
                            .map(|r| r.iter().filter(|&&x| x == g as u32).count())
                            .sum()
                    })
                    .collect();
                return Err(format!(
                    "die {die} group {g}: its free blocks and the free list / reservations disagree (blocks {states:?}, on the free list: {}, reserved per plane {reserved:?})",
                    self.alloc.free[die.index()].contains(&(g as u32))
                ));
            }
            for g in 0..self.bpp {
                let id = die.0 * self.bpp + g;
                let closed = self
                    .group_blocks(id)
                    .filter(|&b| self.blocks.state[b.index()] == BlockState::Closed)
                    .count() as u32;
                if closed == self.ppd && self.fast.is_none() && !self.blocks.victims.contains(id) {
                    return Err(format!("closed group {id} missing from the victim index"));
                }
                if closed != self.blocks.group_closed[id as usize] as u32
                    && self.blocks.group_closed[id as usize] != 0
                {
                    return Err(format!(
                        "group {id}: {closed} closed blocks but {} counted",
                        self.blocks.group_closed[id as usize]
                    ));
                }
            }
            // (A Die-GC by copyback leaves its die's write points apart
            // until its padding: the simulator checks the dies not
            // collecting.)
            if self.aligned && !self.group_copy {
                self.die_alignment(die)?;
            }
        }
        Ok(())
    }
}

/// What aligned block groups (`ftl.block_groups = "die"`) requires of the other policies, and what it excludes: the
/// first violated requirement as (the key to change, why).
pub(crate) fn requirements(c: &Config) -> Requirement {
    if c.ftl.block_groups != BlockGroups::Die {
        return Ok(());
    }
    if c.ftl.plane_allocation != PlaneAllocation::DieRoundRobin {
        return Err((
            "ftl.plane_allocation",
            "block_groups = \"die\" needs plane_allocation = \"die-round-robin\" (a page's die is fixed, its plane is chosen within the die)".into(),
        ));
    }
    if c.gc.migration == Migration::Copyback {
        if c.ftl.write_unit == WriteUnit::SuperPage {
            return Err((
                "gc.migration",
                "copyback keeps a page in its plane but not at its page index, while write_unit = \"super-page\" keeps a logical super page's pages at one page index of the die: use migration = \"controller\"".into(),
            ));
        }
        if c.gc.combine_host_writes {
            return Err((
                "gc.migration",
                "gc.combine_host_writes (SPD+) joins host pages from the controller to Die-Writes of moved pages read out to it; by copyback no moved page leaves its plane: use migration = \"controller\"".into(),
            ));
        }
    }
    Ok(())
}
