//! The forward and reverse page maps, stored so that an unmapped entry
//! ([`INVALID`]) is the zero word: a new map is one zeroed allocation,
//! which the kernel backs with pages only as they are first written.
//! Memory a run never touches costs neither time nor resident memory (a
//! trace touching 2.6 M of a 512 GB drive's 100 M logical pages touches
//! a few tens of MB of its maps, not 0.9 GB).
//!
//! An entry `v` is stored as `v + 1` (wrapping), so `INVALID` (`u32::MAX`)
//! is stored as 0 and every valid page or LPN number as itself plus one.

use crate::addr::INVALID;

#[derive(Clone)]
pub(crate) struct PageMap {
    raw: Vec<u32>,
}

impl PageMap {
    /// `n` unmapped entries (zeroed memory, not touched).
    pub(crate) fn new(n: usize) -> PageMap {
        PageMap { raw: vec![0; n] }
    }

    /// [`new`](Self::new), for a map read at random (the forward map):
    /// huge pages where the kernel gives them on request, so that lookups
    /// miss the TLB less. The kernel still backs only what is touched, two
    /// MiB at a time.
    pub(crate) fn new_random_access(n: usize) -> PageMap {
        let mut m = PageMap::new(n);
        m.advise_whole();
        m
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.raw.len()
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> u32 {
        self.raw[i].wrapping_sub(1)
    }

    #[inline]
    pub(crate) fn set(&mut self, i: usize, v: u32) {
        self.raw[i] = v.wrapping_add(1);
    }

    /// The entry's memory, for prefetching (None out of range).
    #[inline]
    pub(crate) fn slot(&self, i: usize) -> Option<&u32> {
        self.raw.get(i)
    }

    /// Every entry, decoded.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.raw.iter().map(|&x| x.wrapping_sub(1))
    }

    /// Is any entry of `range` mapped?
    pub(crate) fn any_mapped(&self, range: std::ops::Range<usize>) -> bool {
        self.raw[range].iter().any(|&x| x != 0)
    }

    /// Entries that are mapped.
    pub(crate) fn count_mapped(&self) -> usize {
        self.raw.iter().filter(|&&x| x != 0).count()
    }

    /// The stored words, for the bulk fill (which writes them through raw
    /// pointers on several threads): store [`encode`]d values.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u32 {
        self.raw.as_mut_ptr()
    }

    /// A map about to be written whole (a fill): ask for huge pages (fewer
    /// TLB misses on a map read at random), before its memory is touched.
    pub(crate) fn advise_whole(&mut self) {
        crate::mem::advise_huge_slice(&mut self.raw);
    }
}

/// How a value is stored (for writes through [`PageMap::as_mut_ptr`]).
#[inline]
pub(crate) fn encode(v: u32) -> u32 {
    v.wrapping_add(1)
}

const _: () = assert!(INVALID.wrapping_add(1) == 0);
