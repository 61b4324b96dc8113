//! The dual-layer HDI framework (DL-HDI): cold-data pre-classifier plus any
//! hot-data post-identifier.

use serde::{Deserialize, Serialize};

use crate::bloom::BloomFilter;
use crate::hash::HashFamily;
use crate::{crossings, DecisionCounts, HotDataIdentifier};

/// Which writes drive the post-identifier's decay clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PostClock {
    /// Every write, including those the pre-classifier filters out ("cold
    /// I"): the post-identifier's decay window is measured in global writes,
    /// the same unit as the pre-classifier's.
    AllWrites,
    /// Only the writes forwarded to the post-identifier.
    ForwardedWrites,
}

/// Parameters of the pre-classifier of a [`DualLayer`] scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreClassifierParams {
    /// Bits of the single Bloom filter (Table 1: 2^11).
    pub bits: usize,
    /// Hash functions (Table 1: 2).
    pub hashes: u32,
    /// Global writes between two resets of the filter (default 2^11, eight
    /// times the DL-MBF post-identifier's 2^8; see the crate README for the
    /// measurements behind this choice). 0 disables decay.
    pub decay_window: u64,
    /// Clock of the post-identifier's decay (default [`PostClock::AllWrites`]).
    pub post_clock: PostClock,
    /// Seed of the pre-classifier's hash family (differs from the post
    /// identifiers' default seeds so the two layers hash independently).
    pub seed: u64,
}

/// Pre-classifier decay window of the default ("1/8 rhythm") reading.
pub const DEFAULT_PRE_DECAY_WINDOW: u64 = 1 << 11;

impl Default for PreClassifierParams {
    fn default() -> Self {
        Self {
            bits: 1 << 11,
            hashes: 2,
            decay_window: DEFAULT_PRE_DECAY_WINDOW,
            post_clock: PostClock::AllWrites,
            seed: 0x5052_4543_0000_0001,
        }
    }
}

/// A dual-layer identifier: pre-classifier Bloom filter + post-identifier.
///
/// For each write of `lba`:
/// 1. if not all of `lba`'s bits are set in the pre-classifier's filter, the
///    write is judged cold without consulting the post-identifier ("cold
///    I"); with [`PostClock::AllWrites`] the post-identifier's clock still
///    advances by one write;
/// 2. otherwise the write is forwarded: the post-identifier records it and
///    its decision is the scheme's decision;
/// 3. in both cases `lba` is then inserted in the pre-classifier's filter,
///    and the filter is cleared every `decay_window` writes.
#[derive(Debug, Clone)]
pub struct DualLayer<P> {
    name: String,
    params: PreClassifierParams,
    pre: BloomFilter,
    post: P,
    writes: u64,
    pre_decays: u64,
    /// Times the pre-classifier's filter was cleared.
    pre_clears: u64,
    counts: DecisionCounts,
}

impl<P: HotDataIdentifier> DualLayer<P> {
    /// Combine a pre-classifier built from `params` with `post`.
    pub fn new(name: impl Into<String>, params: PreClassifierParams, post: P) -> Self {
        let pre = BloomFilter::new(params.bits, params.hashes, HashFamily::new(params.seed));
        let mut params = params;
        params.bits = pre.bits();
        params.hashes = pre.hashes();
        Self {
            name: name.into(),
            params,
            pre,
            post,
            writes: 0,
            pre_decays: 0,
            pre_clears: 0,
            counts: DecisionCounts::default(),
        }
    }

    /// The (clamped) pre-classifier parameters.
    pub fn params(&self) -> &PreClassifierParams {
        &self.params
    }

    /// The post-identifier.
    pub fn post(&self) -> &P {
        &self.post
    }

    /// The pre-classifier's filter.
    pub fn pre_filter(&self) -> &BloomFilter {
        &self.pre
    }

    /// Number of pre-classifier resets so far.
    pub fn pre_decays(&self) -> u64 {
        self.pre_decays
    }

    fn tick(&mut self, writes: u64) {
        let before = self.writes;
        self.writes = self.writes.saturating_add(writes);
        let n = crossings(before, self.writes, self.params.decay_window);
        if n > 0 {
            self.pre.clear();
            self.pre_clears += 1;
            self.pre_decays = self.pre_decays.saturating_add(n);
        }
    }
}

impl<P: HotDataIdentifier> HotDataIdentifier for DualLayer<P> {
    fn name(&self) -> &str {
        &self.name
    }

    fn record_write(&mut self, lba: u64) -> bool {
        let hot = if self.pre.contains(lba) {
            let hot = self.post.record_write(lba);
            self.counts.add(hot);
            hot
        } else {
            if self.params.post_clock == PostClock::AllWrites {
                self.post.advance_clock(1);
            }
            self.counts.cold_i += 1;
            false
        };
        self.pre.insert(lba);
        self.tick(1);
        hot
    }

    fn is_hot(&self, lba: u64) -> bool {
        self.pre.contains(lba) && self.post.is_hot(lba)
    }

    fn memory_bits(&self) -> u64 {
        (self.pre.bits() as u64).saturating_add(self.post.memory_bits())
    }

    fn decays(&self) -> u64 {
        self.pre_decays.saturating_add(self.post.decays())
    }

    /// The pre-classifier's resets (its whole filter each; several due at
    /// once clear it once) plus the post-identifier's decays.
    fn decay_bits(&self) -> Option<u64> {
        let pre = self.pre_clears.saturating_mul(self.pre.bits() as u64);
        self.post.decay_bits().map(|p| p.saturating_add(pre))
    }

    fn counts(&self) -> DecisionCounts {
        self.counts
    }

    fn advance_clock(&mut self, writes: u64) {
        self.tick(writes);
        if self.params.post_clock == PostClock::AllWrites {
            self.post.advance_clock(writes);
        }
    }

    fn set_time_ns(&mut self, now_ns: u64) {
        self.post.set_time_ns(now_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mbf, MbfParams};

    #[test]
    fn first_write_is_cold_i_and_post_untouched() {
        let mut d = DualLayer::new(
            "DL",
            PreClassifierParams::default(),
            Mbf::new(MbfParams::default()),
        );
        assert!(!d.record_write(42));
        assert_eq!(d.counts().cold_i, 1);
        assert_eq!(d.post().counts().total(), 0);
        // Second write passes the pre-classifier.
        d.record_write(42);
        assert_eq!(d.post().counts().total(), 1);
        assert_eq!(d.counts().total(), 2);
    }
}
