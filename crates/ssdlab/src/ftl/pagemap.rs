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

/// Saved drive states (`sim::state`) store a map sparsely: its length,
/// then runs, each the number of unmapped entries, the number of mapped
/// entries after them, and those entries' stored words.
impl serde::Serialize for PageMap {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut runs = Vec::new();
        let mut i = 0;
        let n = self.raw.len();
        while i < n {
            let gap = self.raw[i..].iter().take_while(|&&x| x == 0).count();
            let start = i + gap;
            let len = self.raw[start..].iter().take_while(|&&x| x != 0).count();
            runs.push(gap as u64);
            runs.push(len as u64);
            i = start + len;
        }
        let words: Vec<u32> = self.raw.iter().copied().filter(|&x| x != 0).collect();
        serde::Serialize::serialize(&(n as u64, runs, words), s)
    }
}

impl<'de> serde::Deserialize<'de> for PageMap {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let (n, runs, words): (u64, Vec<u64>, Vec<u32>) = serde::Deserialize::deserialize(d)?;
        if runs.len() % 2 != 0 {
            return Err(D::Error::custom("a page map's runs are not pairs"));
        }
        let mut m = PageMap::new(usize::try_from(n).map_err(D::Error::custom)?);
        let (mut at, mut next) = (0u64, 0usize);
        for pair in runs.chunks(2) {
            let (gap, len) = (pair[0], pair[1]);
            at = at
                .checked_add(gap)
                .filter(|&a| a.checked_add(len).is_some_and(|e| e <= n))
                .ok_or_else(|| D::Error::custom("a page map's runs go beyond its length"))?;
            let len = len as usize;
            let src = words.get(next..next + len).ok_or_else(|| {
                D::Error::custom("a page map's runs need more entries than it has")
            })?;
            if src.contains(&0) {
                return Err(D::Error::custom(
                    "a page map's mapped run holds an unmapped entry",
                ));
            }
            m.raw[at as usize..at as usize + len].copy_from_slice(src);
            at += len as u64;
            next += len;
        }
        if next != words.len() {
            return Err(D::Error::custom("a page map has entries beyond its runs"));
        }
        Ok(m)
    }
}

const _: () = assert!(INVALID.wrapping_add(1) == 0);
