//! Multiple Bloom filters (MBF) of Park and Du.

use serde::{Deserialize, Serialize};

use crate::bloom::BloomFilter;
use crate::hash::HashFamily;
use crate::{crossings, DecisionCounts, HotDataIdentifier};

/// Largest accepted number of filters; larger requests are clamped.
pub const MAX_FILTERS: usize = 256;

/// Parameters of [`Mbf`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MbfParams {
    /// Number of Bloom filters `V` (Table 1: 4). Clamped to `1..=256`.
    pub filters: usize,
    /// Bits per filter `M` (Table 1: 2^11).
    pub bits_per_filter: usize,
    /// Hash functions per filter `K` (Table 1: 2).
    pub hashes: u32,
    /// Writes between two decays `N` (Table 1: 2^9); 0 disables decay.
    pub decay_window: u64,
    /// Recency weight of the newest filter (2). The filter of age `a`
    /// (`0` = newest) weighs `newest_weight * (V - a) / V`: 2, 1.5, 1, 0.5
    /// for `V = 4`.
    pub newest_weight: f64,
    /// Hot threshold on the summed weights (Table 1: 4).
    pub hot_threshold: f64,
    /// Seed of the hash family (shared by all filters of this MBF).
    pub seed: u64,
}

impl Default for MbfParams {
    fn default() -> Self {
        Self {
            filters: 4,
            bits_per_filter: 1 << 11,
            hashes: 2,
            decay_window: 1 << 9,
            newest_weight: 2.0,
            hot_threshold: 4.0,
            seed: 0x4D42_4600_0000_0001,
        }
    }
}

/// MBF: `V` Bloom filters used round-robin.
///
/// * **Frequency.** A write is recorded in the first filter, visiting them
///   from the current (newest) one towards the oldest, that does not yet
///   contain the LBA; if all contain it nothing changes. The number of
///   filters containing an LBA thus approximates its write count.
/// * **Recency.** Every `N` writes the oldest filter is cleared and becomes
///   the current one, so each filter's age grows by one.
/// * **Decision.** Hotness is the sum of the recency weights of the filters
///   that contain the LBA; hot when it reaches `hot_threshold`.
#[derive(Debug, Clone)]
pub struct Mbf {
    name: String,
    params: MbfParams,
    filters: Vec<BloomFilter>,
    weights: Vec<f64>,
    current: usize,
    writes: u64,
    decays: u64,
    /// Bits cleared by decays.
    decay_bits: u64,
    counts: DecisionCounts,
}

impl Mbf {
    /// An MBF identifier named `"MBF"`.
    pub fn new(params: MbfParams) -> Self {
        Self::with_name("MBF", params)
    }

    /// An MBF identifier with a custom name.
    pub fn with_name(name: impl Into<String>, params: MbfParams) -> Self {
        let mut params = params;
        params.filters = params.filters.clamp(1, MAX_FILTERS);
        let family = HashFamily::new(params.seed);
        let filters: Vec<_> = (0..params.filters)
            .map(|_| BloomFilter::new(params.bits_per_filter, params.hashes, family))
            .collect();
        params.bits_per_filter = filters[0].bits();
        params.hashes = filters[0].hashes();
        let v = params.filters as f64;
        let weights = (0..params.filters)
            .map(|age| params.newest_weight * (v - age as f64) / v)
            .collect();
        Self {
            name: name.into(),
            params,
            filters,
            weights,
            current: 0,
            writes: 0,
            decays: 0,
            decay_bits: 0,
            counts: DecisionCounts::default(),
        }
    }

    /// The (clamped) parameters in use.
    pub fn params(&self) -> &MbfParams {
        &self.params
    }

    /// Recency weight of the filter of age `age` (0 = newest).
    pub fn weight_of_age(&self, age: usize) -> f64 {
        self.weights.get(age).copied().unwrap_or(0.0)
    }

    /// The filter of age `age` (0 = newest), if any.
    pub fn filter_of_age(&self, age: usize) -> Option<&BloomFilter> {
        let v = self.filters.len();
        (age < v).then(|| &self.filters[(self.current + v - age) % v])
    }

    /// Summed recency weights of the filters containing `lba`.
    pub fn hotness(&self, lba: u64) -> f64 {
        (0..self.filters.len())
            .filter(|&age| self.filter_of_age(age).is_some_and(|f| f.contains(lba)))
            .map(|age| self.weights[age])
            .sum()
    }

    /// For each age (0 = newest), whether that filter contains `lba`.
    pub fn membership(&self, lba: u64) -> Vec<bool> {
        (0..self.filters.len())
            .map(|age| self.filter_of_age(age).is_some_and(|f| f.contains(lba)))
            .collect()
    }

    fn decay_once(&mut self) {
        let v = self.filters.len();
        self.current = (self.current + 1) % v;
        self.filters[self.current].clear();
    }

    fn tick(&mut self, writes: u64) {
        let before = self.writes;
        self.writes = self.writes.saturating_add(writes);
        let n = crossings(before, self.writes, self.params.decay_window);
        self.decays = self.decays.saturating_add(n);
        let v = self.filters.len();
        let m = self.filters[0].bits() as u64;
        self.decay_bits = self
            .decay_bits
            .saturating_add(n.min(v as u64).saturating_mul(m));
        if n >= v as u64 {
            self.filters.iter_mut().for_each(BloomFilter::clear);
            self.current = (self.current + (n % v as u64) as usize) % v;
        } else {
            for _ in 0..n {
                self.decay_once();
            }
        }
    }
}

impl HotDataIdentifier for Mbf {
    fn name(&self) -> &str {
        &self.name
    }

    fn record_write(&mut self, lba: u64) -> bool {
        let hot = self.is_hot(lba);
        self.counts.add(hot);
        let v = self.filters.len();
        for age in 0..v {
            let f = &mut self.filters[(self.current + v - age) % v];
            if !f.contains(lba) {
                f.insert(lba);
                break;
            }
        }
        self.tick(1);
        hot
    }

    fn is_hot(&self, lba: u64) -> bool {
        self.hotness(lba) >= self.params.hot_threshold
    }

    fn memory_bits(&self) -> u64 {
        self.filters.iter().map(|f| f.bits() as u64).sum()
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
    fn weights_for_four_and_eight_filters() {
        let m = Mbf::new(MbfParams::default());
        let w: Vec<_> = (0..5).map(|a| m.weight_of_age(a)).collect();
        assert_eq!(w, vec![2.0, 1.5, 1.0, 0.5, 0.0]);
        let m8 = Mbf::new(MbfParams {
            filters: 8,
            ..MbfParams::default()
        });
        assert_eq!(m8.weight_of_age(0), 2.0);
        assert_eq!(m8.weight_of_age(7), 0.25);
    }

    #[test]
    fn big_clock_jump_clears_everything() {
        let mut m = Mbf::new(MbfParams {
            decay_window: 2,
            ..MbfParams::default()
        });
        for _ in 0..4 {
            m.record_write(7);
        }
        assert!(m.hotness(7) > 0.0);
        m.advance_clock(u64::MAX);
        assert_eq!(m.hotness(7), 0.0);
        assert!(m.decays() > 4);
        assert!(!m.record_write(7));
    }

    #[test]
    fn zero_filters_clamped() {
        let mut m = Mbf::new(MbfParams {
            filters: 0,
            bits_per_filter: 0,
            hashes: 0,
            ..MbfParams::default()
        });
        assert_eq!(m.params().filters, 1);
        assert_eq!(m.memory_bits(), 1);
        m.record_write(1);
        assert_eq!(m.hotness(1), 2.0);
    }
}
