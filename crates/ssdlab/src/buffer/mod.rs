//! The controller's DRAM write buffer: dirty pages kept in one LRU list per
//! die (the organisation the SPD paper calls EPO), and a pluggable eviction
//! policy that decides which pages leave, how many at once and from which die.
//!
//! A slot is Dirty (newest data of its LPN, in an LRU list), Flushing (being
//! programmed; still serves reads) or Free. A slot frees when its page's
//! program completes. A write to a Dirty LPN updates it in place; a write to a
//! Flushing LPN needs a new slot, which becomes the LPN's newest copy.
//!
//! Each dirty page belongs to the die (and, except under die round-robin
//! allocation, the plane) it will be flushed to, chosen when it enters the
//! buffer (`admit.rs`); an in-place update keeps its slot. Waiting writes
//! are admitted strictly in arrival order. `wants_eviction(waiting)` holds
//! while there are dirty pages and free-plus-flushing slots are fewer than
//! `max(ceil(capacity × free_watermark), min(waiting, capacity))`: with the
//! default watermark 0, eviction starts only when writes wait for a slot.
//!
//! With several flows the buffer may be partitioned (`buffer.sharing =
//! "partitioned"`, MQSim's `Data_Cache_Sharing_Mode`): each flow has an
//! equal share of the slots, its own LRU lists and watermarks, its writes
//! wait (in arrival order among themselves) only for a slot of its share,
//! and an eviction for it takes only its pages. A shared buffer is the one
//! partition every writer uses.
//!
//! An [`EvictionPolicy`] reads the buffer through its public accessors and
//! returns the slots to evict: `DieRoundRobin` (Baseline-D, EPO),
//! `DieMultiPlane` (Baseline-P: a die's LRU page and, per other plane, its
//! LRU page bound there), `DieWrite` (SPD: multiples of the planes of a
//! die), `SuperPageEviction` (a logical super page) and `FromDie` (a
//! Die-GC completing its last Die-Write). The composition root
//! (`scheme/compose.rs`) chooses one.

pub mod admit;

use rustc_hash::FxHashMap;

use crate::addr::{DieId, Lpn, PlaneId, INVALID};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotState {
    Free,
    Dirty,
    Flushing,
}

/// What happened to a host page written to the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteOutcome {
    /// The LPN was dirty in the buffer and was updated in place.
    Hit,
    /// A free slot took the page.
    Inserted,
    /// No free slot: the write must wait for an eviction to complete.
    Full,
}

pub use crate::domain::die_turns;

/// Chooses pages to evict. Implementations read the buffer through its
/// public accessors and push slot ids to `out` (all of one die, or not).
pub trait EvictionPolicy: Send {
    fn select(&mut self, buf: &WriteBuffer, out: &mut Vec<u32>);
}

/// Baseline-P: the least recently used page of the next die with dirty
/// pages, plus, for each other plane of the die, its least recently used
/// page bound for that plane. The die's LRU list is walked from the LRU end
/// for at most `SCAN` entries, so an eviction costs O(1). Pages whose plane
/// is not fixed yet (dynamic allocation) count as bound for distinct planes.
pub struct DieMultiPlane {
    next: u32,
    planes_per_die: u32,
}

impl DieMultiPlane {
    pub fn new(planes_per_die: u32) -> Self {
        DieMultiPlane {
            next: 0,
            planes_per_die,
        }
    }
}

const SCAN: usize = 64;

impl EvictionPolicy for DieMultiPlane {
    fn select(&mut self, buf: &WriteBuffer, out: &mut Vec<u32>) {
        let dies = buf.dies();
        for i in 0..dies {
            let die = buf.die_in_turn(self.next + i);
            if buf.dirty_in_die(die) == 0 {
                continue;
            }
            let mut taken: u64 = 0; // bit per plane index within the die
            for slot in buf.lru_of_die(die).take(SCAN) {
                let plane = buf.slot_plane(slot);
                let bit = if plane == PlaneId::NONE {
                    1u64 << (out.len() as u32 % 64)
                } else {
                    1u64 << plane.in_die(self.planes_per_die)
                };
                if taken & bit == 0 {
                    taken |= bit;
                    out.push(slot);
                    if out.len() as u32 == self.planes_per_die {
                        break;
                    }
                }
            }
            self.next = (self.next + i + 1) % dies;
            return;
        }
    }
}

/// Baseline-D / EPO: `pages` least recently used pages of one die, dies in
/// round-robin, skipping dies with nothing dirty.
pub struct DieRoundRobin {
    next: u32,
    pages: u32,
}

impl DieRoundRobin {
    pub fn new(pages: u32) -> Self {
        DieRoundRobin { next: 0, pages }
    }
}

impl EvictionPolicy for DieRoundRobin {
    fn select(&mut self, buf: &WriteBuffer, out: &mut Vec<u32>) {
        let dies = buf.dies();
        for i in 0..dies {
            let die = buf.die_in_turn(self.next + i);
            if buf.dirty_in_die(die) > 0 {
                out.extend(buf.lru_of_die(die).take(self.pages as usize));
                self.next = (self.next + i + 1) % dies;
                return;
            }
        }
    }
}

/// SPD's Die-Write: a multiple of `planes_per_die` least recently used pages
/// of one die (up to `pages`), dies in round-robin, skipping dies with fewer
/// dirty pages than planes. When no die has that many and no page is being
/// flushed (so no slot would ever free), the die with the most dirty pages
/// gives all it has (the simulator pads the Die-Write).
pub struct DieWrite {
    next: u32,
    pages: u32,
    planes_per_die: u32,
}

impl DieWrite {
    /// Up to `pages` per eviction, rounded down to a multiple of the planes
    /// (at least one page per plane).
    pub fn new(pages: u32, planes_per_die: u32) -> Self {
        DieWrite {
            next: 0,
            pages: pages.max(planes_per_die) / planes_per_die * planes_per_die,
            planes_per_die,
        }
    }
}

impl EvictionPolicy for DieWrite {
    fn select(&mut self, buf: &WriteBuffer, out: &mut Vec<u32>) {
        let dies = buf.dies();
        let n = self.planes_per_die;
        for i in 0..dies {
            let die = buf.die_in_turn(self.next + i);
            let dirty = buf.dirty_in_die(die);
            if dirty >= n {
                let take = (dirty.min(self.pages) / n) * n;
                out.extend(buf.lru_of_die(die).take(take as usize));
                self.next = (self.next + i + 1) % dies;
                return;
            }
        }
        if buf.flushing() > 0 {
            return;
        }
        // The die with the most dirty pages, the first in turn among equals.
        let best = (0..dies).max_by_key(|&i| {
            (
                buf.dirty_in_die(buf.die_in_turn(self.next + i)),
                std::cmp::Reverse(i),
            )
        });
        if let Some(i) = best.filter(|&i| buf.dirty_in_die(buf.die_in_turn(self.next + i)) > 0) {
            out.extend(buf.lru_of_die(buf.die_in_turn(self.next + i)));
            self.next = (self.next + i + 1) % dies;
        }
    }
}

/// SuperPage: the least recently used page of the next die in turn with a
/// dirty page, and the dirty pages of its logical super page (LPN / N); the
/// rest of SuperPage is in `sched/superpage.rs`.
pub struct SuperPageEviction {
    next: u32,
    planes_per_die: u32,
}

impl SuperPageEviction {
    pub fn new(planes_per_die: u32) -> Self {
        SuperPageEviction {
            next: 0,
            planes_per_die,
        }
    }
}

impl EvictionPolicy for SuperPageEviction {
    fn select(&mut self, buf: &WriteBuffer, out: &mut Vec<u32>) {
        let dies = buf.dies();
        let n = self.planes_per_die;
        for i in 0..dies {
            let die = buf.die_in_turn(self.next + i);
            let Some(first) = buf.lru_of_die(die).next() else {
                continue;
            };
            let lpn = buf.slot_lpn(first);
            out.push(first);
            let base = lpn - lpn % n;
            for l in base..base.saturating_add(n) {
                if l != lpn {
                    out.extend(buf.dirty_slot(l));
                }
            }
            self.next = (self.next + i + 1) % dies;
            return;
        }
    }
}

/// Up to `pages` least recently used dirty pages of one die (a Die-GC
/// completing its last Die-Write with buffered pages).
pub struct FromDie {
    pub die: DieId,
    pub pages: u32,
}

impl EvictionPolicy for FromDie {
    fn select(&mut self, buf: &WriteBuffer, out: &mut Vec<u32>) {
        out.extend(buf.lru_of_die(self.die).take(self.pages as usize));
    }
}

/// A partition's share of the slots, its slots dirty and being flushed,
/// and the free-plus-flushing slots of its share below which eviction
/// starts (`low`) and up to which it then goes on (`high`; `to_high` while
/// it does).
#[derive(Clone, Copy)]
struct Share {
    quota: u32,
    dirty: u32,
    flushing: u32,
    low: u32,
    high: u32,
    to_high: bool,
}

pub struct WriteBuffer {
    capacity: u32,
    lpn: Vec<Lpn>,
    die: Vec<u32>,
    /// Plane the page is bound for, or INVALID if chosen at eviction.
    plane: Vec<u32>,
    state: Vec<SlotState>,
    version: Vec<u32>,
    /// The partition holding the slot (0 in a shared buffer), and the
    /// index of the LRU list it is in (`partition × dies + die`).
    part: Vec<u32>,
    list_of: Vec<u32>,
    /// The flow whose request last wrote the slot's page (`u32::MAX`:
    /// none), when the run has flows.
    writer: Vec<u32>,
    /// LRU links: `prev` towards the MRU end, `next` towards the LRU end.
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Per partition and die (index `partition × dies + die`): the MRU and
    /// LRU ends of the dirty list, and its length.
    mru: Vec<u32>,
    lru: Vec<u32>,
    dirty_per_die: Vec<u32>,
    dies: u32,
    /// The dies in the order the round-robin policies visit them.
    turns: Vec<DieId>,
    free_slots: Vec<u32>,
    index: FxHashMap<Lpn, u32>,
    /// Per partition, its share and counts.
    shares: Vec<Share>,
    /// The partition the accessors an eviction policy reads (`dirty`,
    /// `flushing`, `dirty_in_die`, `lru_of_die`, `dirty_slot`) show, and
    /// the index of its first list (`view × dies`).
    view: u32,
    view_base: u32,
}

impl WriteBuffer {
    /// A buffer of `capacity` pages for the dies of `turns`, which the
    /// round-robin eviction policies visit in that order
    /// ([`die_turns`]), shared by every writer.
    pub fn new(capacity: u32, turns: Vec<DieId>, watermarks: (f64, f64)) -> Self {
        Self::partitioned(capacity, 1, turns, watermarks)
    }

    /// A buffer of `capacity` pages split into `parts` equal partitions
    /// (the first `capacity % parts` one page larger): a page takes a slot
    /// of its writer's partition, evictions for a partition take only its
    /// pages, and the watermarks apply to each partition's share.
    pub fn partitioned(
        capacity: u32,
        parts: u32,
        turns: Vec<DieId>,
        watermarks: (f64, f64),
    ) -> Self {
        assert!(
            parts >= 1 && parts <= capacity.max(1),
            "a partition needs a slot"
        );
        let n = capacity as usize;
        let dies = turns.len() as u32;
        let lists = (dies * parts) as usize;
        let shares = (0..parts)
            .map(|p| {
                let quota = capacity / parts + u32::from(p < capacity % parts);
                Share {
                    quota,
                    dirty: 0,
                    flushing: 0,
                    low: (quota as f64 * watermarks.0).ceil() as u32,
                    high: (quota as f64 * watermarks.1).ceil() as u32,
                    to_high: false,
                }
            })
            .collect();
        WriteBuffer {
            capacity,
            lpn: vec![INVALID; n],
            die: vec![0; n],
            plane: vec![INVALID; n],
            state: vec![SlotState::Free; n],
            version: vec![0; n],
            part: vec![0; n],
            list_of: vec![0; n],
            writer: vec![u32::MAX; n],
            prev: vec![INVALID; n],
            next: vec![INVALID; n],
            mru: vec![INVALID; lists],
            lru: vec![INVALID; lists],
            dirty_per_die: vec![0; lists],
            dies,
            turns,
            free_slots: (0..capacity).rev().collect(),
            index: FxHashMap::default(),
            shares,
            view: 0,
            view_base: 0,
        }
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }
    /// Partitions (1: shared).
    pub fn partitions(&self) -> u32 {
        self.shares.len() as u32
    }
    /// A partition's share of the slots.
    pub fn quota(&self, part: u32) -> u32 {
        self.shares[part as usize].quota
    }
    /// A partition's slots in use (dirty or being flushed).
    pub fn used(&self, part: u32) -> u32 {
        let sh = &self.shares[part as usize];
        sh.dirty + sh.flushing
    }
    pub fn dies(&self) -> u32 {
        self.dies
    }
    /// The die whose turn is `k` (modulo the number of dies) in the round
    /// robin the eviction policies follow.
    #[inline]
    pub fn die_in_turn(&self, k: u32) -> DieId {
        self.turns[(k % self.dies) as usize]
    }
    /// Dirty pages (of the partition in view).
    pub fn dirty(&self) -> u32 {
        self.shares[self.view as usize].dirty
    }
    /// Pages being flushed (of the partition in view).
    pub fn flushing(&self) -> u32 {
        self.shares[self.view as usize].flushing
    }
    /// Pages being flushed, over every partition.
    pub fn flushing_total(&self) -> u32 {
        self.shares.iter().map(|sh| sh.flushing).sum()
    }
    /// Is every slot taken (dirty or being flushed)?
    pub fn is_full(&self) -> bool {
        self.free_slots.is_empty()
    }
    #[inline]
    fn list(&self, part: u32, die: u32) -> usize {
        (part * self.dies + die) as usize
    }
    /// Dirty pages of a die (in the partition in view).
    pub fn dirty_in_die(&self, die: DieId) -> u32 {
        self.dirty_per_die[(self.view_base + die.0) as usize]
    }
    pub fn slot_lpn(&self, slot: u32) -> Lpn {
        self.lpn[slot as usize]
    }
    pub fn slot_die(&self, slot: u32) -> DieId {
        DieId(self.die[slot as usize])
    }
    /// Plane the slot's page is bound for (INVALID: chosen at eviction).
    pub fn slot_plane(&self, slot: u32) -> PlaneId {
        PlaneId(self.plane[slot as usize])
    }
    pub fn slot_version(&self, slot: u32) -> u32 {
        self.version[slot as usize]
    }
    /// The partition holding a slot.
    pub fn slot_partition(&self, slot: u32) -> u32 {
        self.part[slot as usize]
    }

    /// Dirty slots of a die (in the partition in view) from least to most
    /// recently used.
    pub fn lru_of_die(&self, die: DieId) -> impl Iterator<Item = u32> + '_ {
        let mut s = self.lru[(self.view_base + die.0) as usize];
        std::iter::from_fn(move || {
            if s == INVALID {
                return None;
            }
            let cur = s;
            s = self.prev[s as usize];
            Some(cur)
        })
    }

    /// Does the buffer hold data of this LPN (dirty or being flushed)?
    #[inline]
    pub fn contains(&self, lpn: Lpn) -> bool {
        self.index.contains_key(&lpn)
    }
    /// Is the LPN dirty in the buffer (a write to it updates in place)?
    #[inline]
    pub fn is_dirty(&self, lpn: Lpn) -> bool {
        self.index
            .get(&lpn)
            .is_some_and(|&s| self.state[s as usize] == SlotState::Dirty)
    }
    /// The slot of an LPN if it is dirty in the buffer, in the partition in
    /// view.
    pub fn dirty_slot(&self, lpn: Lpn) -> Option<u32> {
        self.index.get(&lpn).copied().filter(|&s| {
            self.state[s as usize] == SlotState::Dirty && self.part[s as usize] == self.view
        })
    }
    /// The slot of an LPN's dirty copy, in whichever partition.
    pub fn slot_of(&self, lpn: Lpn) -> Option<u32> {
        self.index
            .get(&lpn)
            .copied()
            .filter(|&s| self.state[s as usize] == SlotState::Dirty)
    }
    /// Records the flow that wrote a slot's page.
    #[inline]
    pub fn set_writer(&mut self, slot: u32, flow: u32) {
        self.writer[slot as usize] = flow;
    }
    /// The flow that last wrote a slot's page (`u32::MAX`: none recorded).
    #[inline]
    pub fn slot_writer(&self, slot: u32) -> u32 {
        self.writer[slot as usize]
    }
    /// Is a slot of partition `part` free for a new page?
    #[inline]
    pub fn has_room(&self, part: u32) -> bool {
        let sh = &self.shares[part as usize];
        sh.dirty + sh.flushing < sh.quota
    }

    /// Version of the newest buffered copy of an LPN.
    pub fn newest_version(&self, lpn: Lpn) -> Option<u32> {
        self.index.get(&lpn).map(|&s| self.version[s as usize])
    }

    /// A host page write into partition `part`. `die` is where the page
    /// will be flushed to, and `plane` the plane if already known (else
    /// INVALID). A dirty copy of the LPN is updated in place (in its own
    /// partition).
    #[inline]
    pub fn write(
        &mut self,
        lpn: Lpn,
        die: DieId,
        plane: PlaneId,
        version: u32,
        part: u32,
    ) -> WriteOutcome {
        if let Some(&s) = self.index.get(&lpn) {
            if self.state[s as usize] == SlotState::Dirty {
                self.version[s as usize] = version;
                self.unlink(s);
                self.link_mru(s);
                return WriteOutcome::Hit;
            }
        }
        if !self.has_room(part) {
            return WriteOutcome::Full;
        }
        let s = self
            .free_slots
            .pop()
            .expect("the partitions' shares sum to the capacity");
        let i = s as usize;
        self.lpn[i] = lpn;
        self.die[i] = die.0;
        self.plane[i] = plane.0;
        self.version[i] = version;
        self.state[i] = SlotState::Dirty;
        self.part[i] = part;
        self.list_of[i] = part * self.dies + die.0;
        self.link_mru(s);
        self.shares[part as usize].dirty += 1;
        self.dirty_per_die[self.list_of[i] as usize] += 1;
        self.index.insert(lpn, s);
        WriteOutcome::Inserted
    }

    /// Should an eviction from partition `part` start, with `waiting` of its
    /// writes waiting for a slot? Yes while its free plus flushing slots are
    /// fewer than the waiting writes need, or than the low watermark; once
    /// below that, until they reach the high one.
    pub fn wants_eviction(&mut self, part: u32, waiting: usize) -> bool {
        let sh = &mut self.shares[part as usize];
        let claimable = sh.quota - sh.dirty;
        if claimable < sh.low {
            sh.to_high = true;
        } else if claimable >= sh.high {
            sh.to_high = false;
        }
        let mark = if sh.to_high { sh.high } else { sh.low };
        let target = mark.max(waiting.min(sh.quota as usize) as u32);
        sh.dirty > 0 && claimable < target
    }

    /// Let `policy` choose pages of partition `part` and mark them
    /// Flushing. Returns the slots in `out`.
    pub fn evict(&mut self, part: u32, policy: &mut dyn EvictionPolicy, out: &mut Vec<u32>) {
        out.clear();
        self.view = part;
        self.view_base = part * self.dies;
        policy.select(self, out);
        for &s in out.iter() {
            let i = s as usize;
            assert!(
                self.state[i] == SlotState::Dirty && self.part[i] == part,
                "policy chose a slot that is not dirty in the partition"
            );
            self.unlink(s);
            self.state[i] = SlotState::Flushing;
            self.dirty_per_die[self.list_of[i] as usize] -= 1;
        }
        let sh = &mut self.shares[part as usize];
        sh.dirty -= out.len() as u32;
        sh.flushing += out.len() as u32;
    }

    /// A trim of `lpn`: the buffered data is dropped. A dirty copy frees its
    /// slot at once; the plane it was bound for (if any) is returned, so
    /// that the caller can release the page reserved there. A copy being
    /// flushed keeps its slot until the program completes, but no longer
    /// counts as the page's data (reads miss, a new write takes a new slot).
    pub fn discard(&mut self, lpn: Lpn) -> Option<PlaneId> {
        let s = self.index.remove(&lpn)?;
        let i = s as usize;
        if self.state[i] != SlotState::Dirty {
            return None;
        }
        self.unlink(s);
        self.state[i] = SlotState::Free;
        let part = self.part[i];
        self.shares[part as usize].dirty -= 1;
        self.dirty_per_die[self.list_of[i] as usize] -= 1;
        self.free_slots.push(s);
        Some(PlaneId(self.plane[i])).filter(|&p| p != PlaneId::NONE)
    }

    /// The program of a flushing slot completed: the slot is free again.
    #[inline(always)]
    pub fn flush_done(&mut self, slot: u32) {
        let i = slot as usize;
        assert_eq!(self.state[i], SlotState::Flushing);
        self.state[i] = SlotState::Free;
        self.shares[self.part[i] as usize].flushing -= 1;
        if self.index.get(&self.lpn[i]) == Some(&slot) {
            self.index.remove(&self.lpn[i]);
        }
        self.free_slots.push(slot);
    }

    /// The consistency checker's part: every partition's counts match its
    /// slots and lists, and no partition holds more than its share.
    pub fn check(&self) -> Result<(), String> {
        let parts = self.partitions() as usize;
        let (mut dirty, mut flushing) = (vec![0u32; parts], vec![0u32; parts]);
        for (i, st) in self.state.iter().enumerate() {
            match st {
                SlotState::Dirty => dirty[self.part[i] as usize] += 1,
                SlotState::Flushing => flushing[self.part[i] as usize] += 1,
                SlotState::Free => {}
            }
        }
        for p in 0..parts {
            let sh = self.shares[p];
            if dirty[p] != sh.dirty || flushing[p] != sh.flushing {
                return Err(format!(
                    "write buffer partition {p}: {} dirty and {} flushing slots counted, {} and {} held",
                    sh.dirty, sh.flushing, dirty[p], flushing[p]
                ));
            }
            if dirty[p] + flushing[p] > sh.quota {
                return Err(format!(
                    "write buffer partition {p} holds {} slots, more than its share of {}",
                    dirty[p] + flushing[p],
                    sh.quota
                ));
            }
            let mut listed = 0;
            for d in 0..self.dies {
                let mut s = self.lru[self.list(p as u32, d)];
                let mut n = 0;
                while s != INVALID {
                    let i = s as usize;
                    if self.state[i] != SlotState::Dirty
                        || self.part[i] != p as u32
                        || self.die[i] != d
                        || self.list_of[i] as usize != self.list(p as u32, d)
                    {
                        return Err(format!(
                            "write buffer: slot {s} in partition {p}'s list of die {d} is not a dirty page of them"
                        ));
                    }
                    n += 1;
                    s = self.prev[i];
                }
                if n != self.dirty_per_die[self.list(p as u32, d)] {
                    return Err(format!(
                        "write buffer partition {p}, die {d}: {n} dirty pages listed, {} counted",
                        self.dirty_per_die[self.list(p as u32, d)]
                    ));
                }
                listed += n;
            }
            if listed != dirty[p] {
                return Err(format!(
                    "write buffer partition {p}: {listed} dirty pages listed, {} held",
                    dirty[p]
                ));
            }
        }
        let used: u32 = dirty.iter().sum::<u32>() + flushing.iter().sum::<u32>();
        if used + self.free_slots.len() as u32 != self.capacity {
            return Err(format!(
                "write buffer: {used} slots used and {} free of {}",
                self.free_slots.len(),
                self.capacity
            ));
        }
        Ok(())
    }

    #[inline]
    fn link_mru(&mut self, s: u32) {
        let d = self.list_of[s as usize] as usize;
        let old = self.mru[d];
        self.prev[s as usize] = INVALID;
        self.next[s as usize] = old;
        if old != INVALID {
            self.prev[old as usize] = s;
        } else {
            self.lru[d] = s;
        }
        self.mru[d] = s;
    }

    #[inline]
    fn unlink(&mut self, s: u32) {
        let d = self.list_of[s as usize] as usize;
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p != INVALID {
            self.next[p as usize] = n;
        } else {
            self.mru[d] = n;
        }
        if n != INVALID {
            self.prev[n as usize] = p;
        } else {
            self.lru[d] = p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DieOrder;

    #[test]
    fn discard_frees_a_dirty_slot_and_forgets_a_flushing_one() {
        let mut b = WriteBuffer::new(2, DieId::all(1).collect(), (0.0, 0.0));
        b.write(1, DieId(0), PlaneId(3), 1, 0);
        b.write(2, DieId(0), PlaneId::NONE, 1, 0);
        assert_eq!(
            b.write(5, DieId(0), PlaneId::NONE, 1, 0),
            WriteOutcome::Full
        );
        // Dirty, bound for plane 3: freed, the plane reported.
        assert_eq!(b.discard(1), Some(PlaneId(3)));
        assert!(!b.contains(1) && b.has_room(0));
        assert_eq!((b.dirty(), b.dirty_in_die(DieId(0))), (1, 1));
        assert_eq!(b.discard(1), None);
        // Being flushed: forgotten now, its slot freed when the program ends.
        let mut out = Vec::new();
        b.evict(
            0,
            &mut FromDie {
                die: DieId(0),
                pages: 1,
            },
            &mut out,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(b.discard(2), None);
        assert!(!b.contains(2));
        assert_eq!(
            b.write(2, DieId(0), PlaneId::NONE, 2, 0),
            WriteOutcome::Inserted
        );
        b.flush_done(out[0]);
        assert_eq!(b.newest_version(2), Some(2));
        assert_eq!(b.flushing(), 0);
    }

    #[test]
    fn lru_per_die_and_round_robin_eviction() {
        let mut b = WriteBuffer::new(4, DieId::all(2).collect(), (0.0, 0.0));
        let mut pol = DieRoundRobin { next: 0, pages: 2 };
        assert_eq!(
            b.write(10, DieId(0), PlaneId::NONE, 1, 0),
            WriteOutcome::Inserted
        );
        assert_eq!(
            b.write(11, DieId(0), PlaneId::NONE, 1, 0),
            WriteOutcome::Inserted
        );
        assert_eq!(
            b.write(20, DieId(1), PlaneId::NONE, 1, 0),
            WriteOutcome::Inserted
        );
        assert_eq!(
            b.write(10, DieId(0), PlaneId::NONE, 2, 0),
            WriteOutcome::Hit
        ); // 10 becomes MRU of die 0
        assert_eq!(
            b.write(12, DieId(0), PlaneId::NONE, 1, 0),
            WriteOutcome::Inserted
        );
        assert_eq!(
            b.write(13, DieId(0), PlaneId::NONE, 1, 0),
            WriteOutcome::Full
        );
        assert!(b.wants_eviction(0, 1));
        let mut out = vec![];
        b.evict(0, &mut pol, &mut out);
        let lpns: Vec<_> = out.iter().map(|&s| b.slot_lpn(s)).collect();
        assert_eq!(lpns, vec![11, 10], "LRU first, die 0 first");
        assert!(b.contains(10), "flushing pages still serve reads");
        assert_eq!(
            b.write(10, DieId(0), PlaneId::NONE, 3, 0),
            WriteOutcome::Full,
            "a flushing LPN needs a new slot"
        );
        b.evict(0, &mut pol, &mut out);
        assert_eq!(
            out.iter().map(|&s| b.slot_lpn(s)).collect::<Vec<_>>(),
            vec![20],
            "then die 1"
        );
        b.flush_done(out[0]);
        assert!(!b.contains(20));
        assert_eq!(
            b.write(10, DieId(0), PlaneId::NONE, 3, 0),
            WriteOutcome::Inserted
        );
        assert_eq!(b.newest_version(10), Some(3));
    }

    #[test]
    fn a_partition_fills_and_evicts_only_its_share() {
        // 5 slots, 2 partitions: shares of 3 and 2.
        let mut b = WriteBuffer::partitioned(5, 2, DieId::all(1).collect(), (0.0, 0.0));
        assert_eq!((b.quota(0), b.quota(1)), (3, 2));
        for l in 0..2 {
            assert_eq!(
                b.write(l, DieId(0), PlaneId::NONE, 1, 1),
                WriteOutcome::Inserted
            );
        }
        // Partition 1 is full though the buffer has room.
        assert_eq!(
            b.write(9, DieId(0), PlaneId::NONE, 1, 1),
            WriteOutcome::Full
        );
        assert!(b.has_room(0) && !b.has_room(1) && !b.is_full());
        // A hit updates in place whatever the partition.
        assert_eq!(b.write(0, DieId(0), PlaneId::NONE, 2, 0), WriteOutcome::Hit);
        for l in 10..13 {
            assert_eq!(
                b.write(l, DieId(0), PlaneId::NONE, 1, 0),
                WriteOutcome::Inserted
            );
        }
        assert!(b.is_full());
        // Partition 1 wants room for its waiting write; partition 0 none.
        assert!(b.wants_eviction(1, 1) && !b.wants_eviction(0, 0));
        let mut out = vec![];
        b.evict(1, &mut DieRoundRobin::new(8), &mut out);
        let lpns: Vec<_> = out.iter().map(|&s| b.slot_lpn(s)).collect();
        assert_eq!(lpns, vec![1, 0], "only partition 1's pages, LRU first");
        assert_eq!((b.used(0), b.used(1)), (3, 2));
        b.check().unwrap();
        for s in out {
            b.flush_done(s);
        }
        assert_eq!(
            b.write(9, DieId(0), PlaneId::NONE, 1, 1),
            WriteOutcome::Inserted
        );
        b.check().unwrap();
    }

    #[test]
    fn dies_take_turns_channel_first() {
        // 2 channels × 2 chips × 2 dies: die index = (channel·2 + chip)·2 + die.
        let t = die_turns(2, 2, 2, DieOrder::ChannelFirst);
        let ids: Vec<u32> = t.iter().map(|d| d.0).collect();
        assert_eq!(ids, vec![0, 4, 2, 6, 1, 5, 3, 7]);
        let i: Vec<u32> = die_turns(2, 2, 2, DieOrder::Index)
            .iter()
            .map(|d| d.0)
            .collect();
        assert_eq!(i, (0..8).collect::<Vec<_>>());
        // A round robin over a buffer follows the turns.
        let mut b = WriteBuffer::new(8, t, (0.0, 0.0));
        for d in 0..8 {
            b.write(d as Lpn, DieId(d), PlaneId::NONE, 1, 0);
        }
        let mut pol = DieRoundRobin::new(1);
        let mut order = vec![];
        for _ in 0..8 {
            let mut out = vec![];
            b.evict(0, &mut pol, &mut out);
            order.push(b.slot_die(out[0]).0);
        }
        assert_eq!(order, ids);
    }

    #[test]
    fn eviction_runs_between_two_watermarks() {
        // 10 slots; start below 2 free, go on until 5 are free (or flushing).
        let mut b = WriteBuffer::new(10, DieId::all(1).collect(), (0.2, 0.5));
        for l in 0..8 {
            b.write(l, DieId(0), PlaneId::NONE, 1, 0);
        }
        assert!(!b.wants_eviction(0, 0), "2 free: not below the low mark");
        b.write(8, DieId(0), PlaneId::NONE, 1, 0);
        let mut pol = DieRoundRobin::new(1);
        let mut out = vec![];
        let mut evicted = 0;
        while b.wants_eviction(0, 0) {
            b.evict(0, &mut pol, &mut out);
            evicted += out.len();
        }
        assert_eq!(evicted, 4, "from 1 free to 5 free or flushing");
        // Above the low mark again: no eviction until it falls below.
        for s in out.drain(..) {
            b.flush_done(s);
        }
        assert!(!b.wants_eviction(0, 0));
        // Watermark 1: every dirty page goes at once.
        let mut b = WriteBuffer::new(4, DieId::all(1).collect(), (1.0, 1.0));
        b.write(1, DieId(0), PlaneId::NONE, 1, 0);
        assert!(b.wants_eviction(0, 0));
    }

    #[test]
    fn die_write_takes_multiples_of_the_planes_per_die() {
        let mut b = WriteBuffer::new(16, DieId::all(3).collect(), (0.0, 0.0));
        for l in 0..5 {
            b.write(l, DieId(0), PlaneId::NONE, 1, 0); // die 0: 5 dirty
        }
        b.write(10, DieId(1), PlaneId::NONE, 1, 0); // die 1: 1 dirty
        for l in 20..23 {
            b.write(l, DieId(2), PlaneId::NONE, 1, 0); // die 2: 3 dirty
        }
        let mut pol = DieWrite {
            next: 0,
            pages: 4,
            planes_per_die: 2,
        };
        let mut out = vec![];
        let mut lpns = |b: &mut WriteBuffer, pol: &mut DieWrite| {
            b.evict(0, pol, &mut out);
            out.iter().map(|&s| b.slot_lpn(s)).collect::<Vec<_>>()
        };
        assert_eq!(
            lpns(&mut b, &mut pol),
            vec![0, 1, 2, 3],
            "4 LRU pages of die 0"
        );
        assert_eq!(
            lpns(&mut b, &mut pol),
            vec![20, 21],
            "die 1 has fewer than 2: skipped"
        );
        assert_eq!(
            lpns(&mut b, &mut pol),
            vec![],
            "no die has 2, pages are flushing: wait"
        );
        for s in 0..16 {
            if b.state[s] == SlotState::Flushing {
                b.flush_done(s as u32);
            }
        }
        assert_eq!(
            lpns(&mut b, &mut pol),
            vec![4],
            "no die has 2 dirty: the one with most (ties: next in turn) gives all"
        );
    }

    #[test]
    fn die_multiplane_takes_one_lru_page_per_plane() {
        let mut b = WriteBuffer::new(8, DieId::all(2).collect(), (0.0, 0.0));
        // die 0, planes 0 and 1 (global planes 0 and 1); LRU order: 10, 11, 12, 13
        b.write(10, DieId(0), PlaneId(0), 1, 0);
        b.write(11, DieId(0), PlaneId(0), 1, 0);
        b.write(12, DieId(0), PlaneId(1), 1, 0);
        b.write(13, DieId(0), PlaneId(1), 1, 0);
        b.write(20, DieId(1), PlaneId(2), 1, 0);
        let mut pol = DieMultiPlane {
            next: 0,
            planes_per_die: 2,
        };
        let mut out = vec![];
        b.evict(0, &mut pol, &mut out);
        let lpns: Vec<_> = out.iter().map(|&s| b.slot_lpn(s)).collect();
        assert_eq!(
            lpns,
            vec![10, 12],
            "the LRU page, then the LRU page of the other plane"
        );
        b.evict(0, &mut pol, &mut out);
        assert_eq!(
            out.iter().map(|&s| b.slot_lpn(s)).collect::<Vec<_>>(),
            vec![20],
            "die 1 has one plane's page"
        );
        b.evict(0, &mut pol, &mut out);
        assert_eq!(
            out.iter().map(|&s| b.slot_lpn(s)).collect::<Vec<_>>(),
            vec![11, 13]
        );
    }
}
