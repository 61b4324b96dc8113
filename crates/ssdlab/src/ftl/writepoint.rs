//! Write points: where the next write of each plane's write stream goes
//! (its active block and page, kept as a cursor for the command builder,
//! which asks per queue head), page choice within a block (index order,
//! relaxed program order's lanes, parity destinations), and opening the
//! next block (per plane or as an aligned group).
//!
//! **Parity destinations** (`gc.parity_destinations`, the parallel-GC
//! paper's Alg. 3, with `flash.copyback_odd_even`): a block keeps the lowest
//! free page of each parity; a copyback takes the lowest free page of its
//! source's parity (`Place::Parity`, decided in `dest.rs`), any other write
//! the lowest free page, so blocks are programmed out of index order (the
//! write pointer then counts programmed pages). A copyback whose parity has
//! no free page left in the active block goes through the controller
//! (`clean_gc_head`, `gc.copyback_fallbacks`).

use super::*;
use crate::addr::{BlockId, DieId, PlaneId, INVALID};

/// The write points of every plane (module documentation).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct WritePoints {
    /// Active block per plane and write stream (global id) or INVALID:
    /// `active[plane * streams + stream]`.
    pub(crate) active: Vec<u32>,
    /// Write streams (active blocks) per plane: 1, or 2 with hot/cold
    /// separation (stream 0 hot, stream 1 cold and GC).
    pub(crate) streams: u32,
    /// Per entry of `active`: the in-plane (block, page) its next write
    /// takes (`Place::Next`) while the active block has a free page, else
    /// `(INVALID, INVALID)` (and always that with type pools). The command
    /// builder asks where each queue head would be written several times
    /// per dispatch; this is the answer kept, refreshed wherever `active`,
    /// a write pointer, a lane or a parity pointer of an active block
    /// changes ([`refresh_cursor`](Ftl::refresh_cursor)).
    pub(crate) cursor: Vec<(u32, u32)>,
    /// Group mode, per plane and stream: groups a sibling plane opened
    /// first, which this plane opens next, in order.
    pub(crate) reserved: Vec<VecDeque<u32>>,
    /// Group mode, per plane and stream: blocks opened so far.
    pub(crate) opened: Vec<u64>,
    /// `ftl.type_pools`: PA-SSD's pools and three active blocks per plane.
    pub(crate) pools: Option<TypePools>,
}

impl WritePoints {
    /// Index into `active` of a plane's stream for this writer.
    #[inline(always)]
    pub(crate) fn stream(&self, plane: PlaneId, w: Writer) -> usize {
        if self.streams == 1 {
            return plane.index();
        }
        let s = match w {
            Writer::Host { hot: true } | Writer::Gc { hot: true } => 0,
            Writer::Host { hot: false } | Writer::Gc { hot: false } => self.streams - 1,
        };
        (plane.0 * self.streams + s) as usize
    }

    pub(crate) fn new(cfg: &Config, domains: &Domains) -> WritePoints {
        let planes = cfg.total_planes();
        let streams = cfg.write_streams();
        let groups = domains.is_die();
        WritePoints {
            active: vec![INVALID; (planes * streams) as usize],
            streams,
            cursor: vec![(INVALID, INVALID); (planes * streams) as usize],
            reserved: if groups {
                (0..planes * streams).map(|_| VecDeque::new()).collect()
            } else {
                Vec::new()
            },
            opened: vec![
                0;
                if groups {
                    (planes * streams) as usize
                } else {
                    0
                }
            ],
            pools: cfg.ftl.type_pools.then(|| TypePools::new(planes as usize)),
        }
    }
}

impl Ftl {
    /// In-plane (block, page) the next write of `w` to `plane` would take,
    /// if it may take one (host writes may not use the GC reserve).
    #[inline(always)]
    pub fn peek_write(&self, plane: PlaneId, w: Writer) -> Option<(u32, u32)> {
        let c = self.points.cursor[self.points.stream(plane, w)];
        if c.0 != INVALID {
            debug_assert_eq!(Some(c), self.peek_write_uncached(plane, w));
            return Some(c);
        }
        self.peek_write_uncached(plane, w)
    }

    /// [`peek_write`](Self::peek_write) without the stream's cursor: type
    /// pools, and a stream whose active block is full or missing (the next
    /// write opens a block).
    #[inline(never)]
    pub(super) fn peek_write_uncached(&self, plane: PlaneId, w: Writer) -> Option<(u32, u32)> {
        self.peek_write_with(plane, w, true)
    }

    /// Where a dispatched write goes (as [`peek_write`](Self::peek_write),
    /// but the log limit of a hybrid map is not asked again: the command
    /// was built within it, and under `mapping = "vfc"` a member committed
    /// before may have opened a log of the same VFC).
    #[inline]
    pub(super) fn peek_write_committed(&self, plane: PlaneId, w: Writer) -> Option<(u32, u32)> {
        let c = self.points.cursor[self.points.stream(plane, w)];
        if c.0 != INVALID {
            return Some(c);
        }
        self.peek_write_with(plane, w, false)
    }

    /// [`peek_write_uncached`](Self::peek_write_uncached); `log_limit`:
    /// a hybrid map's domain holding as many logs as it may opens none.
    fn peek_write_with(&self, plane: PlaneId, w: Writer, log_limit: bool) -> Option<(u32, u32)> {
        let gc = matches!(w, Writer::Gc { .. });
        if self.points.pools.is_some() {
            return self.pools_peek(plane, Place::Next, gc);
        }
        let a = self.points.active[self.points.stream(plane, w)];
        if a != INVALID && (self.blocks.wp[a as usize] as u32) < self.ppb {
            return Some((
                self.map.block_index(BlockId(a)),
                self.blocks.next_page(a, Place::Next, self.ppb),
            ));
        }
        if self.domains.is_die() {
            if let Some(&g) = self.points.reserved[self.points.stream(plane, w)].front() {
                return Some((g, 0));
            }
        }
        if let Some(f) = self.fast.as_ref().filter(|_| log_limit) {
            // A new log unit only while the domain holds fewer than its limit.
            if f.logs[f.domain_of_plane(plane.0) as usize].len() >= f.limit {
                return None;
            }
        }
        let free = &self.alloc.free[self.free_list(plane)];
        let reserve = if gc { 0 } else { self.alloc.reserve_blocks };
        if free.len() > reserve {
            let pos = if self.alloc.align_open {
                self.aligned_open_pos(plane, self.points.stream(plane, w))
            } else {
                self.levelled_open_pos(free.len(), w)
            };
            Some((self.map.block_index(BlockId(free[pos])), 0))
        } else {
            None
        }
    }

    /// What `cursor[s]` should hold (see the field).
    #[inline]
    pub(super) fn cursor_of(&self, s: usize) -> (u32, u32) {
        let a = self.points.active[s];
        if self.points.pools.is_some()
            || a == INVALID
            || self.blocks.wp[a as usize] as u32 >= self.ppb
        {
            return (INVALID, INVALID);
        }
        (
            self.map.block_index(BlockId(a)),
            self.blocks.next_page(a, Place::Next, self.ppb),
        )
    }

    /// Recompute stream `s`'s cursor after its active block, or that
    /// block's write pointer, lanes or parity pointers, changed.
    #[inline]
    pub(super) fn refresh_cursor(&mut self, s: usize) {
        self.points.cursor[s] = self.cursor_of(s);
    }

    /// Stream `s` (an index into `active`) writes to block `a` (INVALID:
    /// none) from now on. Every change of a stream's active block goes
    /// through here (type pools keep theirs in `lanes.rs`, without cursors).
    pub(super) fn set_active(&mut self, s: usize, a: u32) {
        self.points.active[s] = a;
        self.refresh_cursor(s);
    }

    /// Every stream's cursor is what its active block says (the checker).
    pub(crate) fn check_cursors(&self) -> std::result::Result<(), String> {
        for s in 0..self.points.cursor.len() {
            if self.points.cursor[s] != self.cursor_of(s) {
                return Err(format!(
                    "write stream {s}: cursor {:?} but its active block {} takes {:?} next",
                    self.points.cursor[s],
                    self.points.active[s],
                    self.cursor_of(s)
                ));
            }
        }
        Ok(())
    }

    /// Relaxed program order: the lane (page type, fast to slow) of an
    /// in-block page index; None in strict order.
    #[inline]
    pub fn lane_of(&self, page: u32) -> Option<usize> {
        self.blocks.lanes.as_ref().map(|l| l.lane_of(page))
    }

    /// Relaxed program order: free pages of each lane in the whole drive
    /// (PA-SSD's sUB draws page types in their proportion).
    pub fn free_lane_pages(&self) -> Option<[u64; 3]> {
        self.blocks.lanes.as_ref().map(|l| l.free())
    }

    /// Free pages of the active block of `plane`'s stream for `w` (0 if it
    /// has none open).
    pub(crate) fn active_room(&self, plane: PlaneId, w: Writer) -> u32 {
        let a = self.points.active[self.points.stream(plane, w)];
        if a == INVALID {
            0
        } else {
            self.ppb.saturating_sub(self.blocks.wp[a as usize] as u32)
        }
    }

    /// With `gc.parity_destinations`, where a copyback of a page of parity
    /// `parity` in `plane` would go: the lowest free page of that parity of
    /// the active block, or the first of a new block; None when the active
    /// block still has free pages but none of that parity (the move then
    /// goes through the controller), or no block is free.
    pub fn peek_write_parity(&self, plane: PlaneId, w: Writer, parity: u32) -> Option<(u32, u32)> {
        let a = self.points.active[self.points.stream(plane, w)];
        if a != INVALID && (self.blocks.wp[a as usize] as u32) < self.ppb {
            let page = self.blocks.next_page(a, Place::Parity(parity), self.ppb);
            return (page < self.ppb).then_some((self.map.block_index(BlockId(a)), page));
        }
        self.peek_write(plane, w).map(|(b, _)| (b, parity))
    }

    /// Block `gb`'s first `n` pages are programmed (preconditioning).
    pub(crate) fn set_written(&mut self, gb: u32, n: u16) {
        self.blocks.wp[gb as usize] = n;
        if let Some(l) = &mut self.blocks.lanes {
            l.set_written(gb, n);
        }
        if let Some(p) = &mut self.blocks.parity {
            p[gb as usize] = [n + n % 2, n + 1 - n % 2];
        }
    }

    /// Is `gc.parity_destinations` on?
    pub fn parity_destinations(&self) -> bool {
        self.blocks.parity.is_some()
    }

    /// Index of the free list a plane allocates from.
    #[inline]
    pub(super) fn free_list(&self, plane: PlaneId) -> usize {
        if self.domains.is_die() {
            (plane.0 / self.ppd) as usize
        } else {
            plane.index()
        }
    }

    /// Open the next block of a plane's stream `s` for writer `w`. Group
    /// mode: the group a sibling plane opened first, else a free group,
    /// which every sibling plane then opens next.
    pub(super) fn open_block(&mut self, plane: PlaneId, s: usize, w: Writer) -> u32 {
        let a = if self.domains.is_die() {
            let g = match self.points.reserved[s].pop_front() {
                Some(g) => g,
                None => {
                    let die = DieId(plane.0 / self.ppd);
                    let g = self.alloc.free[die.index()]
                        .pop_front()
                        .expect("peek_write saw a free group");
                    if let Some(f) = &mut self.fast {
                        f.logs[die.index()].push_back(die.0 * self.bpp + g);
                    }
                    let si = s as u32 % self.points.streams;
                    for q in die.planes(self.ppd) {
                        if q != plane {
                            self.points.reserved[(q.0 * self.points.streams + si) as usize]
                                .push_back(g);
                        }
                    }
                    g
                }
            };
            self.points.opened[s] += 1;
            plane.0 * self.bpp + g
        } else {
            let pos = if self.alloc.align_open {
                self.aligned_open_pos(plane, s)
            } else {
                self.levelled_open_pos(self.alloc.free[plane.index()].len(), w)
            };
            let b = self.alloc.free[plane.index()]
                .remove(pos)
                .expect("peek_write saw a free block");
            if let Some(f) = &mut self.fast {
                let d = f.domain_of_plane(plane.0) as usize;
                f.logs[d].push_back(b);
            }
            b
        };
        assert_eq!(
            self.blocks.state[a as usize],
            BlockState::Free,
            "opening block {a}, which is not free"
        );
        self.blocks.state[a as usize] = BlockState::Active;
        self.set_active(s, a);
        a
    }

    /// In-plane (block, page) a write of `w` placed by `place` would take
    /// in `plane`, if it may take one: the next page, a page of a parity
    /// ([`peek_write_parity`](Self::peek_write_parity)), or one of a page
    /// type ([`peek_write_placed`](Self::peek_write_placed)).
    #[inline(always)]
    pub fn peek_placed(&self, plane: PlaneId, w: Writer, place: Place) -> Option<(u32, u32)> {
        if place == Place::Next {
            return self.peek_write(plane, w);
        }
        self.peek_placed_out_of_order(plane, w, place)
    }

    /// [`peek_placed`](Self::peek_placed) for a page of a parity or a type.
    #[inline(never)]
    fn peek_placed_out_of_order(
        &self,
        plane: PlaneId,
        w: Writer,
        place: Place,
    ) -> Option<(u32, u32)> {
        match place {
            Place::Parity(p) => self.peek_write_parity(plane, w, p),
            Place::Next | Place::Lane(_) => self.peek_write_placed(plane, w, place),
        }
    }

    /// In-plane (block, page) a write placed by `place` would take, if any
    /// (as [`peek_write`](Self::peek_write)).
    #[inline]
    pub fn peek_write_placed(&self, plane: PlaneId, w: Writer, place: Place) -> Option<(u32, u32)> {
        if place == Place::Next || self.blocks.lanes.is_none() {
            return self.peek_write(plane, w);
        }
        self.peek_write_lane(plane, w, place)
    }

    /// [`peek_write_placed`](Self::peek_write_placed) under relaxed program
    /// order for a page of a wanted type (or with type pools).
    #[inline(never)]
    pub(super) fn peek_write_lane(
        &self,
        plane: PlaneId,
        w: Writer,
        place: Place,
    ) -> Option<(u32, u32)> {
        if self.points.pools.is_some() {
            return self.pools_peek(plane, place, matches!(w, Writer::Gc { .. }));
        }
        let (b, page) = self.peek_write(plane, w)?;
        let a = self.points.active[self.points.stream(plane, w)];
        let gb = if a != INVALID && (self.blocks.wp[a as usize] as u32) < self.ppb {
            a
        } else {
            // A fresh block: its only candidate is the first page.
            return Some((b, page));
        };
        Some((b, self.blocks.next_page(gb, place, self.ppb)))
    }
}
