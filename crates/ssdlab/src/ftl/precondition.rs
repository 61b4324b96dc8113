//! Preconditioning: untimed aging of the drive (fill, map, trace-sequence)
//! with untimed GC.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::*;
use crate::addr::{BlockId, DieId, Lpn, PlaneId, Ppn, INVALID};
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Pages written between two looks for an interrupt while preconditioning.
const POLL_PAGES: u64 = 1 << 14;

/// After `written` pages of `step`: stop if an interrupt came
/// ([`crate::workload::interrupt`]), looked at every [`POLL_PAGES`].
#[inline]
fn check_interrupt(written: u64, step: &str) -> Result<()> {
    if written.is_multiple_of(POLL_PAGES) && crate::workload::interrupt::poll() {
        return Err(Error::Interrupted(format!(
            "while preconditioning the drive ({step}, after {written} pages)"
        )));
    }
    Ok(())
}

pub use crate::metrics::PreconditionReport;

/// Planes (LPN residues) filled together: their forward-map entries of one
/// LPN row share a cache line.
pub(crate) const FILL_GROUP: usize = 16;

/// A raw pointer that may be shared by fill threads writing disjoint elements.
struct SharedMut<T>(*mut T);
unsafe impl<T> Sync for SharedMut<T> {}
unsafe impl<T> Send for SharedMut<T> {}

/// What the fill threads share: the maps (written at disjoint elements) and
/// the fill's parameters.
pub(crate) struct FillJob<'a> {
    l2p: SharedMut<u32>,
    p2l: SharedMut<u32>,
    valid: SharedMut<u16>,
    plane_of_residue: &'a [u32],
    planes: u64,
    logical: u64,
    pages_per_plane: u32,
    ppb: u32,
    /// Pages written, and of them valid, per plane.
    used: &'a [u64],
    want: &'a [u64],
    /// With bad blocks: per plane, the in-plane indices of its good blocks
    /// in order (the fill's pages are theirs); None: every block.
    good: Option<&'a [Vec<u32>]>,
}

impl FillJob<'_> {
    /// Fill the planes of residues `g*FILL_GROUP ..`: a random subset of each
    /// plane's used pages, in random order, receives a random subset of the
    /// plane's LPNs, walked row by row for all planes of the group at once.
    ///
    /// # Safety
    /// No other thread may touch the forward-map entries of these residues or
    /// the pages and blocks of their planes while this runs.
    unsafe fn fill_group(&self, g: u64, seed: u64, stop: &AtomicBool) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let residues = g * FILL_GROUP as u64..((g + 1) * FILL_GROUP as u64).min(self.planes);
        let n = residues.clone().count();
        let mut slots: Vec<Vec<u32>> = Vec::with_capacity(n);
        let mut pool = [0u64; FILL_GROUP];
        let mut need = [0u64; FILL_GROUP];
        let mut next = [0usize; FILL_GROUP];
        for (i, r) in residues.clone().enumerate() {
            let plane = self.plane_of_residue[r as usize] as usize;
            pool[i] = if r < self.logical {
                (self.logical - r).div_ceil(self.planes)
            } else {
                0
            };
            need[i] = self.want[plane].min(pool[i]);
            let mut sl = Vec::with_capacity(need[i] as usize);
            select(&mut rng, self.used[plane], need[i], |p| sl.push(p as u32));
            for a in 0..sl.len() {
                let b = a + rng.gen_range(0..(sl.len() - a) as u64) as usize;
                sl.swap(a, b);
            }
            slots.push(sl);
        }
        let rows = pool[..n].iter().copied().max().unwrap_or(0);
        for j in 0..rows {
            if j % 4096 == 0 && stop.load(Ordering::Relaxed) {
                return;
            }
            for (i, r) in residues.clone().enumerate() {
                let left = pool[i].saturating_sub(j);
                if need[i] == 0
                    || left == 0
                    || (need[i] < left && rng.gen_range(0..left) >= need[i])
                {
                    continue;
                }
                need[i] -= 1;
                let plane = self.plane_of_residue[r as usize];
                let slot = slots[i][next[i]];
                let ppn = match self.good {
                    None => plane * self.pages_per_plane + slot,
                    Some(g) => {
                        plane * self.pages_per_plane
                            + g[plane as usize][(slot / self.ppb) as usize] * self.ppb
                            + slot % self.ppb
                    }
                };
                next[i] += 1;
                let lpn = j * self.planes + r;
                // SAFETY: see the function's contract; indices are in range
                // (lpn < logical, ppn < physical pages).
                unsafe {
                    *self.l2p.0.add(lpn as usize) = encode(ppn);
                    *self.p2l.0.add(ppn as usize) = encode(lpn as u32);
                    *self.valid.0.add((ppn / self.ppb) as usize) += 1;
                }
            }
        }
    }
}

/// Selection sampling (Knuth's Algorithm S): call `f` with `k` of `0..n`,
/// chosen uniformly at random, in increasing order.
pub(crate) fn select(rng: &mut Xoshiro256PlusPlus, n: u64, k: u64, mut f: impl FnMut(u64)) {
    let mut r = rng.clone(); // a local copy stays in registers
    let mut need = k;
    for i in 0..n {
        let left = n - i;
        if need == 0 {
            break;
        }
        // When every remaining item is needed, no draw is needed either.
        if need == left || r.gen_range(0..left) < need {
            f(i);
            need -= 1;
        }
    }
    *rng = r;
}

impl Ftl {
    /// Fill every plane of a fresh drive to a level drawn uniformly from
    /// `used` (a share of the plane's pages; `(u, u)`: exactly `u`
    /// everywhere; the SPD paper draws each plane's level from 93 to 95 %),
    /// `valid` of the written pages holding data, without timed writes. With
    /// aligned block groups the level is drawn per die, so that its planes
    /// stay aligned. Each plane's pages are written from its first free
    /// block on, as sequential writes would; a uniformly random subset of
    /// them is valid, holding a uniformly random subset of the LPNs static
    /// allocation gives the plane, in random order. Valid pages beyond the
    /// logical capacity are capped (and counted).
    ///
    /// Bulk rather than page by page, and planes in groups of consecutive LPN
    /// residues walked in lock-step over LPN rows, so that the forward map is
    /// written a cache line at a time: 512 GiB fills in about a second.
    pub fn precondition_fill(
        &mut self,
        used: (f64, f64),
        valid: f64,
        rng: &mut Xoshiro256PlusPlus,
        report: &mut PreconditionReport,
    ) -> Result<()> {
        self.fast_refuses("fill")?;
        if self.partitioned() {
            return Err(Error::Invalid(
                "--precondition fill places pages by the drive's static stripe, not by flows' \
                 partitions: age with age:X or the trace-based steps instead"
                    .into(),
            ));
        }
        let (lo, hi) = used;
        if !(0.0..1.0).contains(&lo) || !(lo..1.0).contains(&hi) || !(0.0..=1.0).contains(&valid) {
            return Err(Error::Invalid(format!(
                "--precondition fill:{lo}-{hi}:{valid}: USED must be in [0, 1) (a range LO-HI with LO <= HI) and VALID in [0, 1]"
            )));
        }
        // (With bad blocks, per-plane free lists less the factory bad blocks.)
        let fresh = if self.bad_blocks_on() {
            PlaneId::all(self.planes).all(|p| {
                self.alloc.free[p.index()].len() == (self.bpp - self.unusable_blocks(p)) as usize
            })
        } else {
            self.alloc.free.iter().all(|f| f.len() == self.bpp as usize)
        };
        if !fresh {
            return Err(Error::Invalid(
                "--precondition fill applies to a fresh drive only".into(),
            ));
        }
        let ppb = self.ppb as u64;
        // With bad blocks, a plane works with its blocks less its spares
        // (as many in every plane): the fill's levels are shares of those.
        let ppp = (self.bpp - self.unusable_blocks(PlaneId(0))) as u64 * ppb;
        let good: Option<Vec<Vec<u32>>> = self.bad_blocks_on().then(|| {
            self.alloc
                .free
                .iter()
                .map(|f| f.iter().map(|&b| b % self.bpp).collect())
                .collect()
        });
        let max_used = ppp - self.alloc.reserve_blocks as u64 * ppb - 1;
        let level = |u: f64| ((ppp as f64 * u).round() as u64).min(max_used);
        let planes = self.planes as u64;
        let used: Vec<u64> = if lo == hi {
            vec![level(lo); planes as usize]
        } else {
            let unit = self.domains.planes_per_victim();
            (0..planes / unit as u64)
                .flat_map(|_| {
                    let n = level(lo + (hi - lo) * rng.gen::<f64>());
                    std::iter::repeat_n(n, unit as usize)
                })
                .collect()
        };
        let want: Vec<u64> = used
            .iter()
            .map(|&u| (u as f64 * valid).round() as u64)
            .collect();
        let groups = planes.div_ceil(FILL_GROUP as u64);
        // One random stream per group, drawn in order: the result does not
        // depend on how groups are spread over threads.
        let seeds: Vec<u64> = (0..groups).map(|_| rng.gen()).collect();
        for r in 0..planes {
            let pool = if r < self.logical_pages {
                (self.logical_pages - r).div_ceil(planes)
            } else {
                0
            };
            let plane = self.alloc.plane_of_residue[r as usize] as usize;
            let n_valid = want[plane].min(pool);
            report.valid_pages_capped += want[plane] - n_valid;
            report.pages_written += used[plane];
            report.valid_pages += n_valid;
        }
        // The fill writes the maps nearly whole: huge pages, before touching.
        self.maps.l2p.advise_whole();
        self.maps.p2l.advise_whole();
        let job = FillJob {
            l2p: SharedMut(self.maps.l2p.as_mut_ptr()),
            p2l: SharedMut(self.maps.p2l.as_mut_ptr()),
            valid: SharedMut(self.blocks.valid.as_mut_ptr()),
            plane_of_residue: &self.alloc.plane_of_residue,
            planes,
            logical: self.logical_pages,
            pages_per_plane: self.map.pages_per_plane,
            ppb: self.ppb,
            used: &used,
            want: &want,
            good: good.as_deref(),
        };
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(groups as usize)
            .max(1);
        // The workers stop between rows when asked; the calling thread
        // watches for an interrupt (a poll hook may have to run on it).
        let (stop, finished) = (AtomicBool::new(false), AtomicUsize::new(0));
        std::thread::scope(|scope| {
            for t in 0..threads {
                let (job, seeds, stop, finished) = (&job, &seeds, &stop, &finished);
                scope.spawn(move || {
                    for g in (t as u64..groups).step_by(threads) {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        // SAFETY: groups partition the residues, so each
                        // writes forward-map entries of its own residues,
                        // reverse-map pages and block counters of its own
                        // planes only: no two threads touch the same element.
                        unsafe { job.fill_group(g, seeds[g as usize], stop) };
                    }
                    finished.fetch_add(1, Ordering::Release);
                });
            }
            while finished.load(Ordering::Acquire) < threads {
                if crate::workload::interrupt::poll() {
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        });
        if stop.load(Ordering::Relaxed) {
            return Err(Error::Interrupted(
                "while preconditioning the drive (fill)".into(),
            ));
        }
        // The fill wrote block valid counts directly: total them per plane.
        for (plane, v) in self.blocks.plane_valid.iter_mut().enumerate() {
            let blocks =
                &self.blocks.valid[plane * self.bpp as usize..(plane + 1) * self.bpp as usize];
            *v = blocks.iter().map(|&c| c as u32).sum();
        }
        // The written blocks of every plane: full ones closed, a partial one active.
        if self.domains.is_die() {
            // Every plane of a die wrote the same block indices: aligned groups.
            for die in DieId::all(self.planes / self.ppd) {
                let n = used[die.first_plane(self.ppd).index()];
                let (full, rest) = ((n / ppb) as u32, (n % ppb) as u16);
                for _ in 0..full + (rest > 0) as u32 {
                    let g = self.alloc.free[die.index()].pop_front().expect("fresh die");
                    for plane in die.planes(self.ppd) {
                        let gb = plane.0 * self.bpp + g;
                        let s = self.points.stream(plane, Writer::GC);
                        self.points.opened[s] += 1;
                        if g < full {
                            self.set_written(gb, self.ppb as u16);
                            self.blocks.state[gb as usize] = BlockState::Closed;
                            self.close(gb, 0);
                        } else {
                            self.set_written(gb, rest);
                            self.blocks.state[gb as usize] = BlockState::Active;
                            self.set_active(s, gb);
                        }
                    }
                }
            }
            return Ok(());
        }
        for plane in PlaneId::all(self.planes) {
            let n = used[plane.index()];
            let (full, rest) = ((n / ppb) as u32, (n % ppb) as u16);
            for i in 0..full + (rest > 0) as u32 {
                // (A fresh plane's free list is in index order.)
                let gb = self.alloc.free[plane.index()]
                    .pop_front()
                    .expect("fresh plane");
                if i < full {
                    self.set_written(gb, self.ppb as u16);
                    self.blocks.state[gb as usize] = BlockState::Closed;
                    self.blocks
                        .victims
                        .insert(gb, self.blocks.valid[gb as usize] as u32, 0);
                } else {
                    self.set_written(gb, rest);
                    self.blocks.state[gb as usize] = BlockState::Active;
                    let s = self.points.stream(plane, Writer::GC);
                    self.set_active(s, gb);
                }
            }
        }
        Ok(())
    }

    /// Map every LPN in `lpns` that has no data yet, as if written once before
    /// the run (no timed writes), cleaning planes with untimed GC as needed.
    /// Returns the pages written (also added to `report.pages_written`).
    pub fn precondition_map(
        &mut self,
        lpns: impl Iterator<Item = Lpn>,
        rng: &mut Xoshiro256PlusPlus,
        report: &mut PreconditionReport,
    ) -> Result<u64> {
        if self.fast.is_some() {
            let written = self.fast_precondition(lpns)?;
            report.pages_written += written;
            report.valid_pages += written;
            return Ok(written);
        }
        let mut written = 0;
        for lpn in lpns {
            if self.maps.l2p.get(lpn as usize) != INVALID {
                continue;
            }
            check_interrupt(written, "mapping pages")?;
            let plane = self.choose_plane(lpn, Writer::Host { hot: false }, |_| 0);
            self.make_room(plane, rng, report)?;
            self.write(plane, lpn, 0, Writer::Host { hot: false }, 0)
                .expect("make_room left free pages");
            written += 1;
        }
        self.pad_all();
        report.pages_written += written;
        report.valid_pages += written;
        Ok(written)
    }

    /// DFTL: write (untimed) every translation page that holds the entry of
    /// a mapped host page: translation page `i` is LPN `logical + i` and
    /// covers host pages `i * per_page ..`. Returns the pages written.
    pub fn precondition_translation(
        &mut self,
        per_page: u64,
        rng: &mut Xoshiro256PlusPlus,
        report: &mut PreconditionReport,
    ) -> Result<u64> {
        let logical = self.logical_pages;
        let pages = (self.maps.l2p.len() as u64).saturating_sub(logical);
        let needed: Vec<Lpn> = (0..pages)
            .filter(|&i| {
                let lo = (i * per_page) as usize;
                let hi = ((i + 1) * per_page).min(logical) as usize;
                self.maps.l2p.any_mapped(lo..hi)
            })
            .map(|i| (logical + i) as Lpn)
            .collect();
        self.precondition_map(needed.into_iter(), rng, report)
    }

    /// Write `sequence()` over and over (untimed, with untimed GC) until a
    /// pass in which GC ran has a write amplification within 1% of the
    /// previous pass's, or 20 passes. The parallel-GC paper's warm-up.
    pub fn precondition_sequence<I: Iterator<Item = Lpn>>(
        &mut self,
        sequence: impl Fn() -> I,
        rng: &mut Xoshiro256PlusPlus,
        report: &mut PreconditionReport,
    ) -> Result<()> {
        self.fast_refuses("trace-sequence")?;
        const MAX_PASSES: u32 = 20;
        let mut previous: Option<f64> = None;
        for pass in 1..=MAX_PASSES {
            let (mut writes, mut moves) = (0u64, 0u64);
            let gcs_before = report.functional_gc;
            for lpn in sequence() {
                check_interrupt(writes, "trace-sequence")?;
                let plane = self.choose_plane(lpn, Writer::Host { hot: false }, |_| 0);
                moves += self.make_room(plane, rng, report)?;
                self.write(plane, lpn, 0, Writer::Host { hot: false }, 0)
                    .expect("make_room left free pages");
                writes += 1;
            }
            self.pad_all();
            report.pages_written += writes;
            report.sequence_pages_written += writes;
            if writes == 0 {
                break;
            }
            let wa = (writes + moves) as f64 / writes as f64;
            report.sequence_passes = pass;
            report.sequence_write_amplification = wa;
            // Steady: the drive has wrapped (GC ran in this pass) and write
            // amplification stopped changing.
            let wrapped = report.functional_gc > gcs_before;
            if wrapped && previous.is_some_and(|p| (wa - p).abs() <= 0.01 * p) {
                break;
            }
            // Only passes that wrapped are compared: the filling pass is not
            // a steady state.
            previous = wrapped.then_some(wa);
        }
        report.valid_pages = self.maps.l2p.count_mapped() as u64;
        Ok(())
    }

    /// The parallel-GC paper's steady state (§V-A3: the drive preconditioned
    /// "into steady-state"): replay the workload's page writes `writes`
    /// untimed, with untimed greedy GC, pass after pass. The first pass keeps
    /// request order; later passes shuffle it (a replay in the same order
    /// invalidates whole blocks, FIFO-like, which no workload does).
    ///
    /// Steady means: the passes have written at least twice the pages the
    /// workload cycles through (its distinct written pages plus the drive's
    /// room for invalid data, physical minus valid pages), so every hot page
    /// and every block of the room has turned over; at least three passes
    /// ran GC; and the mean valid pages per victim of a pass is within 2 %
    /// (or 0.1 page) of the previous pass's; victims with less than 0.1 valid
    /// page on average need no turnover (they cannot get emptier). Comparing
    /// passes alone is not
    /// enough: with a write set much smaller than the room, a pass changes
    /// the victims by less than 2 % while they are still the fill's blocks,
    /// far from the steady state. At most ten turnovers (and 20 passes past
    /// the first two turnovers) are written.
    pub fn precondition_steady(
        &mut self,
        writes: &[Lpn],
        rng: &mut Xoshiro256PlusPlus,
        report: &mut PreconditionReport,
    ) -> Result<()> {
        self.fast_refuses("trace-writes")?;
        const MIN_GC_PASSES: u32 = 3;
        const MIN_TURNOVERS: u64 = 2;
        const MAX_TURNOVERS: u64 = 10;
        const MAX_EXTRA_PASSES: u32 = 20;
        let mut order: Vec<Lpn> = writes.to_vec();
        let hot = {
            let mut d = order.clone();
            d.sort_unstable();
            d.dedup();
            d.len() as u64
        };
        let physical = self.planes as u64 * self.bpp as u64 * self.ppb as u64;
        let valid = self.maps.l2p.count_mapped() as u64;
        let turnover = hot + physical.saturating_sub(valid);
        let per_pass = (order.len() as u64).max(1);
        let min_passes = (MIN_TURNOVERS * turnover).div_ceil(per_pass) as u32;
        let max_passes = ((MAX_TURNOVERS * turnover).div_ceil(per_pass) as u32)
            .max(min_passes + MAX_EXTRA_PASSES);
        let (mut previous, mut gc_passes): (Option<f64>, u32) = (None, 0);
        for pass in 1..=max_passes {
            if pass > 1 {
                for i in (1..order.len()).rev() {
                    let j = rng.gen_range(0..=i);
                    order.swap(i, j);
                }
            }
            let (gcs_before, mut moves) = (report.functional_gc, 0u64);
            for (i, &lpn) in order.iter().enumerate() {
                check_interrupt(i as u64, "trace-writes")?;
                let plane = self.choose_plane(lpn, Writer::Host { hot: false }, |_| 0);
                moves += self.make_room(plane, rng, report)?;
                self.write(plane, lpn, 0, Writer::Host { hot: false }, 0)
                    .expect("make_room left free pages");
            }
            self.pad_all();
            report.pages_written += writes.len() as u64;
            report.write_passes = pass;
            let gcs = report.functional_gc - gcs_before;
            if writes.is_empty() {
                break;
            }
            if gcs == 0 {
                continue;
            }
            gc_passes += 1;
            let per_victim = moves as f64 / gcs as f64;
            report.write_valid_per_victim = per_victim;
            let steady = previous.is_some_and(|p| (per_victim - p).abs() <= (0.02 * p).max(0.1));
            // Empty victims stay empty: the write set has all the room it
            // can use, however long the replay goes on.
            let turned_over = pass >= min_passes || per_victim < 0.1;
            if steady && gc_passes >= MIN_GC_PASSES && turned_over {
                break;
            }
            previous = Some(per_victim);
        }
        report.valid_pages = self.maps.l2p.count_mapped() as u64;
        Ok(())
    }

    /// Clean `plane` with untimed GC until a write leaves it at or above its
    /// GC threshold, so the timed run does not start with GC owed. A victim
    /// may be all valid (FIFO, random): give up only after a whole plane's
    /// worth of victims reclaimed nothing. Returns the pages moved.
    pub(crate) fn make_room(
        &mut self,
        plane: PlaneId,
        rng: &mut Xoshiro256PlusPlus,
        report: &mut PreconditionReport,
    ) -> Result<u64> {
        let (mut fruitless, mut moved) = (0, 0u64);
        while self.free_pages(plane) <= self.alloc.threshold_pages {
            match self.functional_gc(plane, rng) {
                Some(m) => {
                    moved += m as u64;
                    let unit = self.ppb * self.domains.planes_per_victim();
                    // A static wear-levelling victim is moved to level
                    // wear, not to free space: neither fruitless nor a gain.
                    if !self.levelled_last() {
                        fruitless = if m < unit { 0 } else { fruitless + 1 };
                    }
                }
                None => fruitless += 1,
            }
            report.functional_gc += 1;
            if let Some(p) = self.out_of_spares() {
                return Err(self.aging_read_only(p, report));
            }
            if fruitless > self.bpp {
                return Err(Error::Invalid(format!(
                    "preconditioning: plane {plane} is full of valid data; the workload needs more than the drive holds"
                )));
            }
        }
        Ok(moved)
    }

    /// Aging made the drive read-only: plane `p` ran out of spare blocks
    /// (bad blocks, `bad.rs`).
    #[cold]
    fn aging_read_only(&self, p: PlaneId, report: &PreconditionReport) -> Error {
        let spares = self.bad.as_ref().map_or(0, |b| b.spares);
        Error::Invalid(format!(
            "preconditioning made the drive read-only: plane {p} ran out of spare blocks ({} \
             retired, {spares} spare blocks per plane: flash.bad_blocks) after {} untimed garbage \
             collections; age less, or give the drive more spares or endurance",
            self.retired_blocks(p),
            report.functional_gc
        ))
    }

    /// Die-Writes: pad every die's streams back to aligned write points after
    /// page-by-page preconditioning writes.
    pub(crate) fn pad_all(&mut self) {
        if !self.aligned {
            return;
        }
        for die in DieId::all(self.planes / self.ppd) {
            self.pad_die(die, Writer::Host { hot: true }, 0);
            self.pad_die(die, Writer::GC, 0);
        }
    }

    /// Garbage-collect one victim of `plane` instantly (preconditioning only).
    /// Returns the pages moved, or None if there was no victim.
    pub fn functional_gc(&mut self, plane: PlaneId, rng: &mut Xoshiro256PlusPlus) -> Option<u32> {
        if self.domains.is_die() {
            // Group mode: the group's valid pages go round-robin over the
            // die's planes; Die-Writes pad the last short one.
            let group = self.pick_victim(plane, 0, rng)?;
            let die = DieId(plane.0 / self.ppd);
            let blocks: Vec<BlockId> = self.group_blocks(group).collect();
            let mut moved = 0;
            for &b in &blocks {
                let pages: Vec<Ppn> = self.valid_pages(b).map(|(p, _)| p).collect();
                for src in pages {
                    let dst = self.next_plane_in_die(die, Writer::GC);
                    self.relocate(src, dst, 0)
                        .expect("a victim group always fits in the GC reserve");
                    moved += 1;
                }
            }
            if self.aligned {
                self.pad_die(die, Writer::GC, 0);
            }
            for b in blocks {
                self.erase(b);
            }
            return Some(moved);
        }
        let victim = self.pick_victim(plane, 0, rng)?;
        let moved: Vec<Ppn> = self.valid_pages(BlockId(victim)).map(|(p, _)| p).collect();
        for &src in &moved {
            self.relocate(src, plane, 0)
                .expect("a victim always fits in the GC reserve");
        }
        self.erase(BlockId(victim));
        Some(moved.len() as u32)
    }
}
