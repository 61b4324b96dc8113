//! Allocation: the free blocks and the GC's reserve, which plane a write
//! goes to (static, round-robin, least-busy, die round-robin) and, under
//! `ftl.align_block_index`, which block a write opens.
//!
//! **Dynamic allocation keeps room for GC.** Under dynamic allocation a
//! rewritten LPN's data may move to another plane, so one plane could gather
//! more valid data than it can hold and leave GC nothing to reclaim. The
//! FTL counts valid pages per plane and host pages assigned to a plane but
//! not yet programmed (`assign` when a page is given its plane, at buffer
//! insertion or when an unbuffered write is queued; `assigned_written` when
//! its program is dispatched); the dynamic policies pick only planes whose
//! valid plus pending pages stay below the plane's size minus the GC
//! threshold and two blocks (`has_room`); if none does (a full drive), the
//! policy chooses among the planes not yet crowded, those below one block
//! more (`tier`). If every plane is crowded (an overloaded drive whose
//! backlog of pending pages exceeds the room), a page goes where its data
//! already is, so that a rewrite moves no data between planes, and new data
//! to the plane whose valid pages plus the new data already sent to it this
//! way and not yet programmed are the fewest (`crowded_plane`; pending
//! rewrites, which move no data, do not count there): new data is then
//! spread by what the planes will hold. Static allocation fixes each LPN's
//! plane and needs no rule.
//!
//! **Flows' partitions** (`[[flows]]`'s `channels`, `chips`, `dies`,
//! `planes`; `config/partition.rs`): each logical page has a home domain,
//! the planes of the partition of the flow whose namespace holds it, or
//! the planes in no partition (or every plane, if each is in one) for a
//! page in no partitioned namespace (`Homes`). Static allocation stripes a
//! domain's pages over its planes in the static order (page `first_page +
//! r` of a namespace to the partition's plane `r mod k`, the planes
//! ordered as `ftl.static_order` orders the drive's; the other pages by
//! their rank among them over the rest's planes). Dynamic allocation takes only
//! planes of the page's home domain, and the room rule's fallback
//! (`crowded_plane`) stays in it. GC moves data within its plane (or die),
//! so data never leaves its domain.
//!
//! **Aligned block indices** (`ftl.align_block_index`, ParaGC's alignment):
//! a per-plane opening takes the index a sibling plane (of those that may
//! pair) is writing in its stream, if that block is free here, else the
//! first index of the span's first plane's free list that is free in every
//! plane of the span (`aligned_open_pos`, used by both `peek_write` and
//! `open_block`, so what the builder judges is what is written). Because one
//! plane's opening decides the next one's, the builder then joins programs
//! and copybacks of one write stream only.

use std::collections::VecDeque;

use super::*;
use crate::addr::{DieId, Lpn, PlaneId, INVALID};
use crate::config::Requirement;
use crate::config::{Config, PlaneAllocation, WriteUnit};

/// Plane of each residue `lpn % planes` under the configured static order.
pub(crate) fn static_table(cfg: &Config) -> Vec<u32> {
    let g = &cfg.geometry;
    let planes = cfg.total_planes();
    let order = cfg.ftl.static_order.to_ascii_uppercase();
    (0..planes)
        .map(|r| {
            let (mut c, mut w, mut d, mut p) = (0, 0, 0, 0);
            let mut rem = r;
            for letter in order.chars() {
                let (radix, digit) = match letter {
                    'C' => (g.channels, &mut c),
                    'W' => (g.chips_per_channel, &mut w),
                    'D' => (g.dies_per_chip, &mut d),
                    _ => (g.planes_per_die, &mut p),
                };
                *digit = rem % radix;
                rem /= radix;
            }
            ((c * g.chips_per_channel + w) * g.dies_per_chip + d) * g.planes_per_die + p
        })
        .collect()
}

/// Flows' partitions: each logical page's home domain (module
/// documentation).
#[derive(Clone, Debug)]
pub(crate) struct Homes {
    /// The partitioned namespaces, by first page: (first page, pages, the
    /// domain's planes in static order).
    spans: Vec<(u64, u64, Vec<u32>)>,
    /// Pages of the spans before span `j` (a rest page's rank is its LPN
    /// less those below it).
    before: Vec<u64>,
    /// The rest's planes (those in no partition, or all) in static order.
    rest: Vec<u32>,
    /// Per plane, the domains (spans, then the rest as the last) that hold
    /// it, a bit set of `words` words per plane.
    member: Vec<u64>,
    words: usize,
    logical: u64,
}

impl Homes {
    /// The partitions of `cfg`'s flows, or None without.
    pub(crate) fn new(cfg: &Config) -> Option<Box<Homes>> {
        if !cfg.has_partitions() {
            return None;
        }
        let order = static_table(cfg);
        let ordered = |planes: &[u32]| -> Vec<u32> {
            order
                .iter()
                .copied()
                .filter(|p| planes.binary_search(p).is_ok())
                .collect()
        };
        let mut spans: Vec<(u64, u64, Vec<u32>)> = (0..cfg.flows.len())
            .filter_map(|i| {
                let ns = cfg.flows[i].namespace?;
                let planes = cfg.partition_planes(i)?;
                Some((ns.first_page, ns.pages, ordered(&planes)))
            })
            .collect();
        spans.sort_by_key(|s| s.0);
        let before = spans
            .iter()
            .scan(0u64, |sum, s| {
                let b = *sum;
                *sum += s.1;
                Some(b)
            })
            .collect();
        let rest = ordered(&cfg.rest_planes());
        let planes = cfg.total_planes() as usize;
        let words = (spans.len() + 1).div_ceil(64);
        let mut member = vec![0u64; planes * words];
        for (j, d) in spans.iter().map(|s| &s.2).chain([&rest]).enumerate() {
            for &p in d {
                member[p as usize * words + j / 64] |= 1 << (j % 64);
            }
        }
        Some(Box::new(Homes {
            spans,
            before,
            rest,
            member,
            words,
            logical: cfg.logical_pages(),
        }))
    }

    /// The domain of `lpn` (< the logical pages): the span whose namespace
    /// holds it, or the rest (`spans.len()`), and its rank in the domain.
    #[inline]
    fn domain_of(&self, lpn: Lpn) -> (usize, u64) {
        let lpn = lpn as u64;
        let below = self.spans.partition_point(|s| s.0 <= lpn);
        if let Some(j) = below.checked_sub(1) {
            let (first, pages, _) = &self.spans[j];
            if lpn < first + pages {
                return (j, lpn - first);
            }
            return (self.spans.len(), lpn - self.before[j] - pages);
        }
        (self.spans.len(), lpn)
    }

    /// The planes of domain `d`.
    #[inline]
    fn planes(&self, d: usize) -> &[u32] {
        self.spans.get(d).map_or(&self.rest, |s| &s.2)
    }

    /// Static allocation's plane for `lpn`: its domain's planes in turn.
    #[inline]
    fn static_plane(&self, lpn: Lpn) -> Option<PlaneId> {
        if lpn as u64 >= self.logical {
            return None;
        }
        let (d, r) = self.domain_of(lpn);
        let planes = self.planes(d);
        Some(PlaneId(planes[(r % planes.len() as u64) as usize]))
    }

    /// May `lpn` go to `plane`? (A page beyond the logical space, DFTL's
    /// translation page, anywhere.)
    #[inline]
    fn admits(&self, lpn: Lpn, plane: PlaneId) -> bool {
        if lpn as u64 >= self.logical {
            return true;
        }
        let d = self.domain_of(lpn).0;
        self.member[plane.index() * self.words + d / 64] & (1 << (d % 64)) != 0
    }

    /// The planes `lpn` may go to, or None (any plane).
    pub(crate) fn planes_of(&self, lpn: Lpn) -> Option<&[u32]> {
        ((lpn as u64) < self.logical).then(|| self.planes(self.domain_of(lpn).0))
    }

    /// Every domain's planes.
    fn domains(&self) -> impl Iterator<Item = &[u32]> {
        (0..=self.spans.len()).map(|d| self.planes(d))
    }
}

/// Allocation's state (module documentation).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Allocation {
    /// Free blocks: per plane (global block ids), or with aligned block
    /// groups per die (group indices: block `g` of every plane of the die).
    pub(crate) free: Vec<VecDeque<u32>>,
    /// Free blocks a plane keeps for GC, one per write stream GC writes to
    /// (`Config::gc_write_streams`): host writes may not take them.
    pub(crate) reserve_blocks: usize,
    /// `gc.threshold` in pages.
    pub(crate) threshold_pages: u64,
    /// Static allocation: plane of `lpn % planes`.
    pub(crate) plane_of_residue: Vec<u32>,
    pub(crate) allocation: PlaneAllocation,
    pub(crate) rr_next: u32,
    /// Die-round-robin allocation: the next plane (within the die) per die
    /// and write stream.
    pub(crate) die_rr: Vec<u32>,
    /// Host pages assigned to a plane but not yet programmed, and the most
    /// valid pages dynamic allocation lets a plane hold.
    pub(crate) plane_pending: Vec<u32>,
    pub(crate) room_limit: u64,
    /// A block above `room_limit`: a plane holding (or about to hold) this
    /// much is crowded (`tier`).
    crowded_limit: u64,
    /// Of a plane's pending pages, at most this many are new data placed
    /// while no plane had room (`crowded_plane`): an upper bound, cut to
    /// the plane's pending pages as they are programmed.
    crowded_new: Vec<u32>,
    /// Per-plane blocks: open blocks at indices sibling planes use
    /// (`ftl.align_block_index`), within spans of this many planes (the
    /// planes that may pair: the die, or plane pairs).
    pub(crate) align_open: bool,
    pub(crate) align_span: u32,
    /// APM, PaRP or DVP (`ftl.plane_allocation`): the request-level
    /// allocator, installed by the composition root.
    pub(crate) two_plane: Option<super::twoplane::TwoPlane>,
}

impl Allocation {
    pub(crate) fn new(cfg: &Config, domains: &Domains) -> Allocation {
        let g = &cfg.geometry;
        let planes = cfg.total_planes();
        let (ppb, bpp, ppd) = (g.pages_per_block, g.blocks_per_plane, g.planes_per_die);
        let dies = planes / ppd;
        Allocation {
            free: if domains.is_die() {
                (0..dies)
                    .map(|_| (0..bpp).collect::<VecDeque<u32>>())
                    .collect()
            } else {
                (0..planes)
                    .map(|p| (p * bpp..(p + 1) * bpp).collect::<VecDeque<u32>>())
                    .collect()
            },
            reserve_blocks: cfg.gc_write_streams() as usize,
            threshold_pages: cfg.gc_threshold_pages(),
            plane_of_residue: static_table(cfg),
            allocation: cfg.ftl.plane_allocation,
            rr_next: 0,
            die_rr: vec![0; (dies * cfg.write_streams()) as usize],
            plane_pending: vec![0; planes as usize],
            crowded_new: vec![0; planes as usize],
            // With bad blocks a plane keeps at least its blocks less its
            // spares (`bad.rs`): the room is counted on those.
            room_limit: (ppb as u64 * bpp.saturating_sub(cfg.spare_blocks()) as u64)
                .saturating_sub(cfg.gc_threshold_pages() + 2 * ppb as u64),
            crowded_limit: (ppb as u64 * bpp.saturating_sub(cfg.spare_blocks()) as u64)
                .saturating_sub(cfg.gc_threshold_pages() + ppb as u64),
            align_open: cfg.ftl.align_block_index && !cfg.ftl.mapping.hybrid(),
            align_span: if cfg.flash.plane_pairs_only && ppd > 2 {
                2
            } else {
                ppd
            },
            two_plane: None,
        }
    }
}

impl Ftl {
    /// The plane static allocation gives this LPN.
    #[inline]
    pub fn static_plane(&self, lpn: Lpn) -> PlaneId {
        if let Some(p) = self.homes.as_ref().and_then(|h| h.static_plane(lpn)) {
            return p;
        }
        PlaneId(self.alloc.plane_of_residue[(lpn % self.planes) as usize])
    }

    /// Build the flows' partitions from `cfg` (at construction, and for a
    /// loaded drive state, which does not carry them).
    pub(crate) fn homes_restart(&mut self, cfg: &Config) {
        self.homes = Homes::new(cfg);
    }

    /// Does any flow have a partition of the flash?
    pub fn partitioned(&self) -> bool {
        self.homes.is_some()
    }

    /// The planes `lpn` may be written to when a flow's partition confines
    /// it, or None (any plane).
    pub fn home_planes(&self, lpn: Lpn) -> Option<&[u32]> {
        self.homes.as_ref().and_then(|h| h.planes_of(lpn))
    }

    /// The die static allocation gives this LPN.
    #[inline]
    pub fn static_die(&self, lpn: Lpn) -> DieId {
        self.map.die_of_plane(self.static_plane(lpn))
    }

    /// Die-round-robin allocation: the next plane of `die` in turn for
    /// `w`'s write stream (each stream keeps its planes level).
    #[inline]
    pub fn next_plane_in_die(&mut self, die: DieId, w: Writer) -> PlaneId {
        let k = self.points.stream(PlaneId(die.0), w);
        let i = self.alloc.die_rr[k];
        self.alloc.die_rr[k] = (i + 1) % self.ppd;
        die.plane(i, self.ppd)
    }

    /// The most valid pages a plane can come to hold: its valid pages now
    /// plus the pages of `writes` not holding data yet that go to it. Static
    /// allocation fixes each LPN's plane, die round-robin its die (the die's
    /// planes share its pages); other policies may send a page anywhere, so
    /// the drive's mean per plane is the bound (and each flow partition's
    /// mean, for the pages it confines).
    pub fn max_plane_valid(&self, writes: &[Lpn]) -> u64 {
        let planes = self.planes as usize;
        let mut new = vec![0u64; planes];
        let mut seen = vec![0u64; (self.logical_pages as usize).div_ceil(64)];
        for &lpn in writes {
            let (w, b) = (lpn as usize / 64, lpn % 64);
            if seen[w] & (1 << b) != 0 || self.maps.l2p.get(lpn as usize) != INVALID {
                continue;
            }
            seen[w] |= 1 << b;
            new[self.static_plane(lpn).index()] += 1;
        }
        let valid = |p: usize| self.plane_valid(PlaneId(p as u32)) as u64;
        match self.alloc.allocation {
            PlaneAllocation::Static => (0..planes).map(|p| valid(p) + new[p]).max().unwrap_or(0),
            PlaneAllocation::DieRoundRobin => {
                let ppd = self.ppd as usize;
                (0..planes / ppd)
                    .map(|d| {
                        let die = d * ppd..(d + 1) * ppd;
                        die.clone().map(valid).max().unwrap_or(0)
                            + die.map(|p| new[p]).sum::<u64>().div_ceil(ppd as u64)
                    })
                    .max()
                    .unwrap_or(0)
            }
            _ => {
                let mean = |d: &[u32]| {
                    d.iter()
                        .map(|&p| valid(p as usize) + new[p as usize])
                        .sum::<u64>()
                        .div_ceil(d.len().max(1) as u64)
                };
                let all: Vec<u32> = (0..planes as u32).collect();
                // Under flows' partitions, each partition's mean too.
                let parts = self.homes.iter().flat_map(|h| h.domains());
                parts.map(mean).fold(mean(&all), u64::max)
            }
        }
    }

    /// Choose the plane for a new write of `lpn` by the configured policy.
    /// `die_load` gives the queued work of a die (for least-busy).
    /// `w` is who writes it (die-round-robin keeps a turn per write stream).
    pub fn choose_plane(
        &mut self,
        lpn: Lpn,
        w: Writer,
        die_load: impl Fn(DieId) -> u32,
    ) -> PlaneId {
        match self.alloc.allocation {
            PlaneAllocation::Static => self.static_plane(lpn),
            PlaneAllocation::DieRoundRobin => {
                let die = self.static_die(lpn);
                self.next_plane_in_die(die, w)
            }
            // APM, PaRP and DVP place host requests whole (`plan_request`);
            // pages written outside one (preconditioning, translation
            // pages, a read-modify-write's page) go round robin (under
            // DVPFTL's map, over the planes of the page's VFC).
            PlaneAllocation::RoundRobin
            | PlaneAllocation::Apm
            | PlaneAllocation::Parp
            | PlaneAllocation::Dvp => {
                // The next plane in turn that has room for more data.
                let start = self.alloc.rr_next;
                let nth = |i: u32| {
                    PlaneId(self.alloc.plane_of_residue[((start + i) % self.planes) as usize])
                };
                let home = |p: PlaneId| self.in_home_domain(lpn, p);
                let found = (0..self.planes).find(|&i| home(nth(i)) && self.has_room(nth(i)));
                let pick = match found {
                    Some(i) => {
                        self.alloc.rr_next = (start + i) % self.planes;
                        nth(i)
                    }
                    None => match (0..self.planes).find(|&i| home(nth(i)) && self.tier(nth(i)) < 2)
                    {
                        Some(i) => nth(i),
                        None => self.crowded_plane(lpn),
                    },
                };
                self.alloc.rr_next = (self.alloc.rr_next + 1) % self.planes;
                pick
            }
            PlaneAllocation::LeastBusy => {
                // Scan from the round-robin pointer so ties rotate; planes
                // without room for more data only if all are so; only the
                // page's home domain under flows' partitions.
                let start = self.alloc.rr_next;
                let mut best = PlaneId(self.alloc.plane_of_residue[start as usize]);
                let mut best_key = (u8::MAX, u32::MAX);
                for i in 0..self.planes {
                    let p =
                        PlaneId(self.alloc.plane_of_residue[((start + i) % self.planes) as usize]);
                    if self.homes.is_some() && !self.in_home_domain(lpn, p) {
                        continue;
                    }
                    let key = (self.tier(p), die_load(self.map.die_of_plane(p)));
                    if key < best_key {
                        best = p;
                        best_key = key;
                        if key == (0, 0) {
                            break;
                        }
                    }
                }
                self.alloc.rr_next = (self.alloc.rr_next + 1) % self.planes;
                if best_key.0 == 2 {
                    self.crowded_plane(lpn)
                } else {
                    best
                }
            }
        }
    }

    /// The plane for `lpn` when no plane of its domain may take more valid
    /// data (module documentation): the plane holding its current data, or
    /// (new data) the one that will hold the fewest valid pages.
    pub(crate) fn crowded_plane(&mut self, lpn: Lpn) -> PlaneId {
        let mapped = self.maps.l2p.slot(lpn as usize).is_some();
        if let Some(ppn) = mapped.then(|| self.lookup(lpn)).flatten() {
            let plane = self.map.plane_of(ppn);
            if self.in_home_domain(lpn, plane) {
                return plane;
            }
        }
        let plane = (0..self.planes)
            .map(PlaneId)
            .filter(|&p| self.in_home_domain(lpn, p))
            .min_by_key(|&p| self.blocks.plane_valid[p.index()] + self.alloc.crowded_new[p.index()])
            .expect("a domain has planes");
        self.alloc.crowded_new[plane.index()] += 1;
        plane
    }

    /// Is every plane crowded (`tier` 2)?
    pub(crate) fn all_crowded(&self) -> bool {
        (0..self.planes).all(|p| self.tier(PlaneId(p)) == 2)
    }

    /// How full `plane` is, for dynamic allocation (module documentation):
    /// 0 it has room; 1 it has none, but is not crowded; 2 crowded.
    #[inline]
    pub(crate) fn tier(&self, plane: PlaneId) -> u8 {
        let planned = self.planned_pages(plane);
        if planned < self.alloc.room_limit {
            0
        } else if planned < self.alloc.crowded_limit {
            1
        } else {
            2
        }
    }

    /// May `lpn` be written to `plane`? Always, except in a flow's
    /// partition (only its planes) and under DVPFTL's map (only in its
    /// logical block's VFC).
    #[inline]
    pub(crate) fn in_home_domain(&self, lpn: Lpn, plane: PlaneId) -> bool {
        if let Some(h) = &self.homes {
            if !h.admits(lpn, plane) {
                return false;
            }
        }
        match self.fast.as_ref() {
            Some(f) if f.vfc.is_some() => {
                f.domain_of_plane(plane.0) == f.domain_of_lbn(f.lbn_of(lpn).0)
            }
            _ => true,
        }
    }

    /// Can `plane` take more valid data? Dynamic allocation moves data
    /// between planes as LPNs are rewritten; a plane whose valid data came
    /// within the GC threshold plus two blocks of its size would leave GC
    /// nothing to reclaim.
    #[inline]
    pub(crate) fn has_room(&self, plane: PlaneId) -> bool {
        self.planned_pages(plane) < self.alloc.room_limit
    }

    /// The valid pages of `plane` plus the host pages assigned to it and not
    /// yet programmed: the data it holds or will.
    #[inline]
    fn planned_pages(&self, plane: PlaneId) -> u64 {
        (self.blocks.plane_valid[plane.index()] + self.alloc.plane_pending[plane.index()]) as u64
    }

    /// A host page was assigned to `plane` (its program comes later).
    #[inline]
    pub fn assign(&mut self, plane: PlaneId) {
        self.alloc.plane_pending[plane.index()] += 1;
    }

    /// A page assigned to `plane` will not be written after all (its
    /// buffered data was trimmed).
    #[inline]
    pub fn unassign(&mut self, plane: PlaneId) {
        self.written_assigned(plane);
    }

    /// The program of a page assigned to `plane` was dispatched.
    #[inline]
    pub fn assigned_written(&mut self, plane: PlaneId) {
        self.written_assigned(plane);
        if let Some(tp) = &mut self.alloc.two_plane {
            tp.programmed(plane);
        }
    }

    /// A page assigned to `plane` is no longer pending.
    #[inline]
    fn written_assigned(&mut self, plane: PlaneId) {
        let n = &mut self.alloc.plane_pending[plane.index()];
        assert!(*n > 0, "a plane's pending pages below zero");
        *n -= 1;
        let new = &mut self.alloc.crowded_new[plane.index()];
        *new = (*new).min(*n);
    }

    /// Host pages assigned to `plane` and not yet programmed.
    #[inline]
    pub fn plane_pending(&self, plane: PlaneId) -> u32 {
        self.alloc.plane_pending[plane.index()]
    }

    /// `ftl.align_block_index`: where in its free list plane `plane` finds
    /// the block its stream `s` opens next: the index of a block a sibling
    /// plane's same stream is writing, if that index is free here; else
    /// the first index of the span's first plane's free list that is free
    /// in every plane of the span (each plane of the span computes the
    /// same); else its oldest free block. Every plane of a span that opens
    /// a block in turn so takes one index while one is free in all.
    pub(crate) fn aligned_open_pos(&self, plane: PlaneId, s: usize) -> usize {
        let free = &self.alloc.free[plane.index()];
        let bpp = self.bpp;
        let is_free =
            |q: u32, idx: u32| self.blocks.state[(q * bpp + idx) as usize] == BlockState::Free;
        let pos_of = |idx: u32| free.iter().position(|&b| b % bpp == idx);
        let si = s as u32 % self.points.streams;
        let lo = plane.0 / self.alloc.align_span * self.alloc.align_span;
        let span = lo..lo + self.alloc.align_span;
        for q in span.clone().filter(|&q| q != plane.0) {
            let a = self.points.active[(q * self.points.streams + si) as usize];
            if a != INVALID && is_free(plane.0, a % bpp) {
                if let Some(p) = pos_of(a % bpp) {
                    return p;
                }
            }
        }
        // Bounded: free lists of a full drive are long, and an index free in
        // every plane is, if anywhere, usually near the front (blocks freed
        // in step, or never used).
        const SCAN: usize = 256;
        for &b in self.alloc.free[lo as usize].iter().take(SCAN) {
            let idx = b % bpp;
            if span.clone().all(|q| is_free(q, idx)) {
                if let Some(p) = pos_of(idx) {
                    return p;
                }
            }
        }
        0
    }
}

/// What opening blocks at indices sibling planes use (`ftl.align_block_index`) requires of the other policies, and what it excludes: the
/// first violated requirement as (the key to change, why).
pub(crate) fn requirements(c: &Config) -> Requirement {
    if c.ftl.align_block_index && c.ftl.block_groups == BlockGroups::Die {
        return Err((
            "ftl.align_block_index",
            "applies to per-plane blocks (block_groups = \"die\" opens aligned groups already)"
                .into(),
        ));
    }
    Ok(())
}

/// What flows' partitions (`[[flows]]`'s `channels`, `chips`, `dies`,
/// `planes`) require of the other policies: the first violated
/// requirement as (the key to change, why).
pub(crate) fn partition_requirements(c: &Config) -> Requirement {
    if !c.has_partitions() {
        return Ok(());
    }
    if c.ftl.mapping.hybrid() {
        return Err((
            "ftl.mapping",
            "flows' partitions need a page map (page or dftl): a hybrid map places data by its own units"
                .into(),
        ));
    }
    if matches!(
        c.ftl.plane_allocation,
        PlaneAllocation::Apm | PlaneAllocation::Parp | PlaneAllocation::Dvp
    ) {
        return Err((
            "ftl.plane_allocation",
            "flows' partitions need static, round-robin, least-busy or die-round-robin \
             allocation (a request-level allocator places a request's pages over any plane)"
                .into(),
        ));
    }
    if c.ftl.write_unit == WriteUnit::SuperPage {
        return Err((
            "ftl.write_unit",
            "flows' partitions do not combine with super pages (a logical super page is placed \
             by its own index, not its pages')"
                .into(),
        ));
    }
    // Policies that move a page among its die's planes need whole dies.
    let ppd = c.geometry.planes_per_die;
    let part_die = c.flows.iter().position(|f| {
        f.planes
            .as_ref()
            .is_some_and(|p| (0..ppd).any(|x| !p.contains(&x)))
    });
    {
        let die_level = [
            (
                c.ftl.plane_allocation == PlaneAllocation::DieRoundRobin,
                "ftl.plane_allocation",
            ),
            (c.ftl.block_groups == BlockGroups::Die, "ftl.block_groups"),
            (c.ftl.write_unit == WriteUnit::Die, "ftl.write_unit"),
            (c.gc.join_percent != 0.0, "gc.join_percent"),
        ];
        if let (Some((_, key)), Some(i)) = (die_level.iter().find(|(on, _)| *on), part_die) {
            return Err((
                key,
                format!(
                    "places a page on any plane of its die, so every flow's partition must hold \
                     whole dies (flows[{i}].planes of flow `{}` leaves some out)",
                    c.flows[i].name
                ),
            ));
        }
    }
    Ok(())
}
