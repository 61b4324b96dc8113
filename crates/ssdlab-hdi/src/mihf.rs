//! The multi-hash-function framework (MIHF) of Hsieh, Kuo and Chang.

use serde::{Deserialize, Serialize};

use crate::hash::HashFamily;
use crate::{crossings, DecisionCounts, HotDataIdentifier};

/// How the `H` most significant bits of a counter make it "hot".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MihfHotRule {
    /// Hsieh et al.'s rule: a counter is hot when its `H` most significant
    /// bits contain a non-zero bit, i.e. `counter >= 2^(B-H)` (4 for B = 4,
    /// H = 2, matching the hot threshold 4 of the other schemes).
    AnyTopBitSet,
    /// Stricter reading: all `H` most significant bits are set, i.e.
    /// `counter >= (2^H - 1) * 2^(B-H)` (12 for B = 4, H = 2).
    AllTopBitsSet,
}

/// Parameters of [`Mihf`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MihfParams {
    /// Number of counters `M` (Table 1: 2^12). Clamped to `1..=2^32 - 1`.
    pub counters: usize,
    /// Bits per counter `B` (Table 1: 4). Clamped to `1..=8`.
    pub counter_bits: u8,
    /// Number of hash functions `K` (Table 1: 2). Clamped to `1..=32`.
    pub hashes: u32,
    /// Number of most significant bits `H` examined (2). Clamped to `1..=B`.
    pub hot_bits: u8,
    /// Writes between two halvings of all counters `N` (Table 1: 2^12);
    /// 0 disables decay.
    pub decay_window: u64,
    /// Which reading of the `H`-bit test to use.
    pub hot_rule: MihfHotRule,
    /// Seed of the hash family.
    pub seed: u64,
}

impl Default for MihfParams {
    fn default() -> Self {
        Self {
            counters: 1 << 12,
            counter_bits: 4,
            hashes: 2,
            hot_bits: 2,
            decay_window: 1 << 12,
            hot_rule: MihfHotRule::AnyTopBitSet,
            seed: 0x4D49_4846_0000_0001,
        }
    }
}

/// MIHF: `M` saturating `B`-bit counters indexed by `K` hash functions.
///
/// A write increments (saturating at `2^B - 1`) each distinct counter of its
/// LBA once; the LBA is hot when every one of its `K` counters passes the
/// `H`-most-significant-bit test of [`MihfHotRule`]; every `N` writes all
/// counters are halved (shifted right by one bit).
#[derive(Debug, Clone)]
pub struct Mihf {
    name: String,
    params: MihfParams,
    family: HashFamily,
    counters: Vec<u8>,
    writes: u64,
    decays: u64,
    /// Counter bits aged (halved or cleared) by decays.
    decay_bits: u64,
    counts: DecisionCounts,
}

impl Mihf {
    /// A MIHF identifier named `"MIHF"`.
    pub fn new(params: MihfParams) -> Self {
        Self::with_name("MIHF", params)
    }

    /// A MIHF identifier with a custom name (parameters are clamped as
    /// documented on [`MihfParams`]).
    pub fn with_name(name: impl Into<String>, params: MihfParams) -> Self {
        let mut params = params;
        params.counters = params.counters.clamp(1, u32::MAX as usize);
        params.counter_bits = params.counter_bits.clamp(1, 8);
        params.hashes = params.hashes.clamp(1, 32);
        params.hot_bits = params.hot_bits.clamp(1, params.counter_bits);
        Self {
            name: name.into(),
            params,
            family: HashFamily::new(params.seed),
            counters: vec![0; params.counters],
            writes: 0,
            decays: 0,
            decay_bits: 0,
            counts: DecisionCounts::default(),
        }
    }

    /// The (clamped) parameters in use.
    pub fn params(&self) -> &MihfParams {
        &self.params
    }

    /// The counter positions of `lba` (one per hash function, may repeat).
    pub fn positions(&self, lba: u64) -> Vec<usize> {
        self.family
            .positions(lba, self.params.hashes, self.params.counters)
            .collect()
    }

    /// Value of counter `index` (0 when out of range).
    pub fn counter(&self, index: usize) -> u8 {
        self.counters.get(index).copied().unwrap_or(0)
    }

    fn max_value(&self) -> u8 {
        (((1u16) << self.params.counter_bits) - 1) as u8
    }

    fn counter_is_hot(&self, c: u8) -> bool {
        let shift = self.params.counter_bits - self.params.hot_bits;
        let top = c >> shift;
        match self.params.hot_rule {
            MihfHotRule::AnyTopBitSet => top != 0,
            MihfHotRule::AllTopBitsSet => u16::from(top) == (1u16 << self.params.hot_bits) - 1,
        }
    }

    fn halve(&mut self) {
        self.counters.iter_mut().for_each(|c| *c >>= 1);
    }

    fn tick(&mut self, writes: u64) {
        let before = self.writes;
        self.writes = self.writes.saturating_add(writes);
        let n = crossings(before, self.writes, self.params.decay_window);
        self.decays = self.decays.saturating_add(n);
        // Every halving touches every counter; from `counter_bits` halvings
        // on, one clearing does.
        let passes = n.min(u64::from(self.params.counter_bits));
        self.decay_bits = self
            .decay_bits
            .saturating_add(passes.saturating_mul(self.memory_bits()));
        if n >= u64::from(self.params.counter_bits) {
            self.counters.iter_mut().for_each(|c| *c = 0);
        } else {
            for _ in 0..n {
                self.halve();
            }
        }
    }
}

impl HotDataIdentifier for Mihf {
    fn name(&self) -> &str {
        &self.name
    }

    fn record_write(&mut self, lba: u64) -> bool {
        let hot = self.is_hot(lba);
        self.counts.add(hot);
        let max = self.max_value();
        let mut seen = [usize::MAX; 32];
        for (i, p) in self
            .family
            .positions(lba, self.params.hashes, self.params.counters)
            .enumerate()
        {
            if seen[..i].contains(&p) {
                continue;
            }
            seen[i] = p;
            let c = &mut self.counters[p];
            if *c < max {
                *c += 1;
            }
        }
        self.tick(1);
        hot
    }

    fn is_hot(&self, lba: u64) -> bool {
        self.family
            .positions(lba, self.params.hashes, self.params.counters)
            .all(|p| self.counter_is_hot(self.counters[p]))
    }

    fn memory_bits(&self) -> u64 {
        self.params.counters as u64 * u64::from(self.params.counter_bits)
    }

    fn decays(&self) -> u64 {
        self.decays
    }

    fn decay_bits(&self) -> Option<u64> {
        Some(self.decay_bits)
    }

    fn counts(&self) -> DecisionCounts {
        self.counts
    }

    fn advance_clock(&mut self, writes: u64) {
        self.tick(writes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturates_and_clamps() {
        let mut m = Mihf::new(MihfParams {
            counters: 0,
            counter_bits: 0,
            hashes: 0,
            hot_bits: 9,
            decay_window: 0,
            ..MihfParams::default()
        });
        assert_eq!(m.params().counters, 1);
        assert_eq!(m.params().counter_bits, 1);
        assert_eq!(m.params().hot_bits, 1);
        assert!(!m.record_write(1));
        assert!(m.record_write(2));
        assert_eq!(m.counter(0), 1);
        assert_eq!(m.decays(), 0);
    }

    #[test]
    fn rules() {
        let any = Mihf::new(MihfParams::default());
        let all = Mihf::new(MihfParams {
            hot_rule: MihfHotRule::AllTopBitsSet,
            ..MihfParams::default()
        });
        for c in 0u8..16 {
            assert_eq!(any.counter_is_hot(c), c >= 4, "{c}");
            assert_eq!(all.counter_is_hot(c), c >= 12, "{c}");
        }
    }
}
