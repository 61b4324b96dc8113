//! DFTL's cached mapping table (Gupta, Kim, Urgaonkar, "DFTL: a flash
//! translation layer employing demand-based selective caching of page-level
//! address mappings", ASPLOS 2009).
//!
//! The page map itself stays whole in the FTL (it is the ground truth the
//! simulator needs); what DFTL adds is cost: which lookups and updates need a
//! translation page from flash, and when dirty entries must be written back.
//! Translation pages are logical pages numbered after the host's
//! (`base + lpn / entries_per_page`), so they are placed, moved by GC and
//! checked like any other page; the global translation directory (where each
//! translation page is) is the FTL's map of those LPNs, kept in DRAM.
//!
//! The table is a least-recently-used list of entries with a dirty mark.
//! Partitioned among flows (`ftl.mapping_cache_sharing = "partitioned"`,
//! MQSim's equal-size CMT partitioning), it is one such list per flow of
//! `capacity / flows` entries, an entry belonging to the flow whose
//! namespace holds its page; a flow's load pushes out only its own.
//! Writing a translation page back cleans every cached entry of it at once
//! (DFTL's batch update): each translation page has a generation number, and
//! an entry is dirty while its mark equals its page's current generation.

use rustc_hash::FxHashMap;

use crate::addr::{Lpn, INVALID};

/// No dirty mark: the entry matches its translation page on flash.
const CLEAN: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Node {
    lpn: Lpn,
    prev: u32,
    next: u32,
    /// Generation of its translation page when it became dirty, or CLEAN.
    mark: u32,
}

pub struct MappingCache {
    /// First translation LPN; entries per translation page.
    pub base: Lpn,
    per_page: u32,
    /// Entries of a part.
    capacity: usize,
    index: FxHashMap<Lpn, u32>,
    nodes: Vec<Node>,
    /// The parts' first pages, ascending (partitioned), or empty (one
    /// part, shared); a page below the first part's goes to the last part.
    parts: Vec<Lpn>,
    /// Per part: most and least recently used nodes (INVALID when empty),
    /// and its entries.
    head: Vec<u32>,
    tail: Vec<u32>,
    len: Vec<usize>,
    /// Per translation page: write-back generation.
    generation: Vec<u32>,
}

impl MappingCache {
    /// A table of `capacity` entries over `logical` host pages, translation
    /// pages numbered from `base`, `per_page` entries each.
    pub fn new(base: Lpn, logical: u64, per_page: u64, capacity: u64) -> Self {
        let pages = logical.div_ceil(per_page.max(1)) as usize;
        MappingCache {
            base,
            per_page: per_page.max(1) as u32,
            capacity: capacity.max(1) as usize,
            index: FxHashMap::default(),
            nodes: Vec::new(),
            parts: Vec::new(),
            head: vec![INVALID],
            tail: vec![INVALID],
            len: vec![0],
            generation: vec![0; pages],
        }
    }

    /// Split the table into equal parts, one per namespace starting at
    /// each of `firsts` (the flows' namespaces, which cover every page the
    /// host accesses): `capacity / parts` entries each.
    pub fn partition(&mut self, firsts: &[Lpn], capacity: u64) {
        let mut parts = firsts.to_vec();
        parts.sort_unstable();
        let n = parts.len().max(1);
        self.capacity = (capacity as usize / n).max(1);
        self.head = vec![INVALID; n];
        self.tail = vec![INVALID; n];
        self.len = vec![0; n];
        self.parts = parts;
    }

    /// The part of `lpn`'s entry.
    #[inline]
    fn part_of(&self, lpn: Lpn) -> usize {
        if self.parts.is_empty() {
            return 0;
        }
        self.parts
            .partition_point(|&f| f <= lpn)
            .checked_sub(1)
            .unwrap_or(self.parts.len() - 1)
    }

    /// Entries of the part of `lpn` (of the whole table when shared).
    pub fn part_len(&self, lpn: Lpn) -> usize {
        self.len[self.part_of(lpn)]
    }

    /// Entries a part holds at most (the whole table when shared).
    pub fn part_capacity(&self) -> usize {
        self.capacity
    }

    /// The translation page (its LPN) that holds the entry of `lpn`.
    #[inline]
    pub fn translation_page(&self, lpn: Lpn) -> Lpn {
        self.base + lpn / self.per_page
    }

    /// Is `lpn` a translation page?
    #[inline]
    pub fn is_translation(&self, lpn: Lpn) -> bool {
        lpn >= self.base
    }

    fn unlink(&mut self, i: u32, part: usize) {
        let Node { prev, next, .. } = self.nodes[i as usize];
        if prev == INVALID {
            self.head[part] = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == INVALID {
            self.tail[part] = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
    }

    fn push_front(&mut self, i: u32, part: usize) {
        let head = self.head[part];
        self.nodes[i as usize].prev = INVALID;
        self.nodes[i as usize].next = head;
        if head != INVALID {
            self.nodes[head as usize].prev = i;
        }
        self.head[part] = i;
        if self.tail[part] == INVALID {
            self.tail[part] = i;
        }
    }

    fn dirty_mark(&self, lpn: Lpn) -> u32 {
        self.generation[(lpn / self.per_page) as usize]
    }

    fn is_dirty(&self, n: &Node) -> bool {
        n.mark != CLEAN && n.mark == self.dirty_mark(n.lpn)
    }

    /// A host access to the entry of `lpn` (`dirty`: it changes): true, and
    /// the entry is now most recently used, if it is cached.
    pub fn access(&mut self, lpn: Lpn, dirty: bool) -> bool {
        let Some(&i) = self.index.get(&lpn) else {
            return false;
        };
        if dirty {
            self.nodes[i as usize].mark = self.dirty_mark(lpn);
        }
        let part = self.part_of(lpn);
        self.unlink(i, part);
        self.push_front(i, part);
        true
    }

    /// GC changed the entry of `lpn`: mark it dirty if cached, without
    /// making it more recently used. False if it is not cached.
    pub fn mark_dirty(&mut self, lpn: Lpn) -> bool {
        let Some(&i) = self.index.get(&lpn) else {
            return false;
        };
        self.nodes[i as usize].mark = self.dirty_mark(lpn);
        true
    }

    /// Load the entry of `lpn` (its translation page has been read), dirty
    /// or clean, as most recently used. If the table was full, the least
    /// recently used entry leaves; if it was dirty, its translation page must
    /// be written back: that page is returned and all its cached entries
    /// count as clean from now on.
    pub fn insert(&mut self, lpn: Lpn, dirty: bool) -> Option<Lpn> {
        if self.access(lpn, dirty) {
            return None;
        }
        let mark = if dirty { self.dirty_mark(lpn) } else { CLEAN };
        let mut write_back = None;
        let part = self.part_of(lpn);
        let slot = if self.len[part] >= self.capacity {
            let victim = self.tail[part];
            let old = self.nodes[victim as usize];
            self.unlink(victim, part);
            self.index.remove(&old.lpn);
            if self.is_dirty(&old) {
                let page = (old.lpn / self.per_page) as usize;
                self.generation[page] = self.generation[page].wrapping_add(1);
                if self.generation[page] == CLEAN {
                    self.generation[page] = 0;
                }
                write_back = Some(self.base + page as Lpn);
            }
            victim
        } else {
            self.len[part] += 1;
            self.nodes.len() as u32
        };
        let node = Node {
            lpn,
            prev: INVALID,
            next: INVALID,
            mark,
        };
        match self.nodes.get_mut(slot as usize) {
            Some(n) => *n = node,
            None => self.nodes.push(node),
        }
        self.push_front(slot, part);
        self.index.insert(lpn, slot);
        write_back
    }

    /// Cached entries that are dirty.
    #[cfg(test)]
    fn dirty_entries(&self) -> usize {
        // Every node is in use: a slot is reused as soon as its entry leaves.
        self.nodes.iter().filter(|n| self.is_dirty(n)).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_order_and_capacity() {
        let mut c = MappingCache::new(100, 100, 10, 3);
        for l in [1, 2, 3] {
            assert_eq!(c.insert(l, false), None);
        }
        assert!(c.access(1, false));
        // 2 is now least recently used.
        assert_eq!(c.insert(4, false), None);
        assert!(!c.access(2, false));
        assert!(c.access(1, false) && c.access(3, false) && c.access(4, false));
        assert_eq!(c.index.len(), 3);
    }

    #[test]
    fn evicting_a_dirty_entry_writes_its_page_back_and_cleans_its_siblings() {
        let mut c = MappingCache::new(1000, 100, 10, 3);
        assert_eq!(c.insert(11, true), None);
        assert_eq!(c.insert(12, true), None);
        assert_eq!(c.insert(25, true), None);
        assert_eq!(c.dirty_entries(), 3);
        // 11 leaves dirty: translation page 1 goes back, 12 is clean too.
        assert_eq!(c.insert(30, false), Some(1001));
        assert_eq!(c.dirty_entries(), 1);
        // 12 leaves clean: nothing to write.
        assert_eq!(c.insert(31, false), None);
        // 25 leaves dirty: page 2.
        assert_eq!(c.insert(32, false), Some(1002));
        assert_eq!(c.dirty_entries(), 0);
    }

    #[test]
    fn updates_dirty_only_cached_entries() {
        let mut c = MappingCache::new(1000, 100, 10, 2);
        assert!(!c.access(5, true) && !c.mark_dirty(5));
        c.insert(5, false);
        assert_eq!(c.dirty_entries(), 0);
        assert!(c.mark_dirty(5));
        assert_eq!(c.dirty_entries(), 1);
        assert_eq!(c.translation_page(5), 1000);
        assert_eq!(c.translation_page(99), 1009);
        assert!(c.is_translation(1000) && !c.is_translation(999));
    }

    #[test]
    fn a_partitioned_table_evicts_within_the_part() {
        // Two parts (pages 0.. and 50..) of 2 entries each.
        let mut c = MappingCache::new(1000, 100, 10, 4);
        c.partition(&[0, 50], 4);
        assert_eq!(c.part_capacity(), 2);
        for l in [1, 2, 51, 52] {
            assert_eq!(c.insert(l, false), None);
        }
        // A third entry of the first part pushes out its LRU (1), not 51.
        c.insert(3, false);
        assert!(!c.access(1, false));
        assert!(c.access(51, false) && c.access(52, false) && c.access(2, false));
        assert_eq!((c.part_len(0), c.part_len(60)), (2, 2));
    }
}
