//! Window-based direct address counting (WDAC), the exact reference.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::{DecisionCounts, HotDataIdentifier};

/// Parameters of [`Wdac`].
///
/// The weight of a past write of an LBA falls linearly with its age in the
/// window. When the write with global index `t` is judged, the window holds
/// the writes `t-W ..= t-1`; the write at index `i` has age `a = t - i`
/// (`1..=W`) and weight
///
/// ```text
/// w(a) = newest_weight * (W + 1 - a) / W
/// ```
///
/// i.e. `newest_weight` for the immediately preceding write, falling in equal
/// steps of `newest_weight / W` to `newest_weight / W` for the oldest write
/// still in the window (and 0 once it leaves). An LBA is hot when the sum of
/// its weights is at least `hot_threshold`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WdacParams {
    /// Window length `W` in writes (Table 1: 2^12).
    pub window: u64,
    /// Weight of the newest write in the window (default 1.0: weights run
    /// from 1 for the newest write down to `1/W` for the oldest; see the
    /// crate README for why 1.0 rather than MBF's newest-filter weight 2).
    pub newest_weight: f64,
    /// Hot threshold on the weighted sum (Table 1: 4).
    pub hot_threshold: f64,
    /// Bits counted per window slot for [`HotDataIdentifier::memory_bits`]
    /// (default 32: one 32-bit LBA per slot).
    pub lba_bits: u32,
}

impl Default for WdacParams {
    fn default() -> Self {
        Self {
            window: 1 << 12,
            newest_weight: 1.0,
            hot_threshold: 4.0,
            lba_bits: 32,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    count: u64,
    index_sum: u128,
}

/// The WDAC reference identifier: exact weighted counting over a sliding
/// window of the last `W` writes, O(1) per write.
///
/// For every LBA in the window it keeps the number of occurrences `c` and
/// the sum `S` of their global write indices, so the weighted sum at time `t`
/// is `newest_weight * (c (W + 1 - t) + S) / W`, evaluated exactly in integer
/// arithmetic up to the final scaling. A ring buffer of `(index, lba)` pairs
/// holds the window so the oldest occurrence can be retired in O(1).
#[derive(Debug, Clone)]
pub struct Wdac {
    name: String,
    params: WdacParams,
    ring: VecDeque<(u64, u64)>,
    table: FxHashMap<u64, Entry>,
    /// Global index of the next write.
    now: u64,
    counts: DecisionCounts,
}

impl Wdac {
    /// A WDAC identifier named `"WDAC"`.
    pub fn new(params: WdacParams) -> Self {
        Self::with_name("WDAC", params)
    }

    /// A WDAC identifier with a custom name.
    pub fn with_name(name: impl Into<String>, params: WdacParams) -> Self {
        Self {
            name: name.into(),
            params,
            ring: VecDeque::new(),
            table: FxHashMap::default(),
            now: 0,
            counts: DecisionCounts::default(),
        }
    }

    /// The parameters in use.
    pub fn params(&self) -> &WdacParams {
        &self.params
    }

    /// Exact weighted sum of `lba`'s writes in the current window, as it
    /// would be seen by the next write.
    pub fn weight(&self, lba: u64) -> f64 {
        let w = self.params.window;
        if w == 0 {
            return 0.0;
        }
        self.params.newest_weight * self.age_sum(lba) as f64 / w as f64
    }

    /// `sum over the window occurrences of (W + 1 - age)`, an exact integer:
    /// `c (W + 1) + S - c t`.
    fn age_sum(&self, lba: u64) -> i128 {
        let Some(e) = self.table.get(&lba) else {
            return 0;
        };
        let c = i128::from(e.count);
        c * (i128::from(self.params.window) + 1) + e.index_sum as i128 - c * i128::from(self.now)
    }

    /// Number of occurrences of `lba` in the current window.
    pub fn occurrences(&self, lba: u64) -> u64 {
        self.table.get(&lba).map_or(0, |e| e.count)
    }

    /// Retire window entries older than `W` writes.
    fn evict(&mut self) {
        let oldest_kept = self.now.saturating_sub(self.params.window);
        while let Some(&(idx, lba)) = self.ring.front() {
            if idx >= oldest_kept {
                break;
            }
            self.ring.pop_front();
            if let Some(e) = self.table.get_mut(&lba) {
                e.count -= 1;
                e.index_sum -= u128::from(idx);
                if e.count == 0 {
                    self.table.remove(&lba);
                }
            }
        }
    }
}

impl HotDataIdentifier for Wdac {
    fn name(&self) -> &str {
        &self.name
    }

    fn record_write(&mut self, lba: u64) -> bool {
        let hot = self.is_hot(lba);
        self.counts.add(hot);
        if self.params.window > 0 {
            let idx = self.now;
            self.ring.push_back((idx, lba));
            let e = self.table.entry(lba).or_default();
            e.count += 1;
            e.index_sum += u128::from(idx);
        }
        self.now = self.now.saturating_add(1);
        self.evict();
        hot
    }

    fn is_hot(&self, lba: u64) -> bool {
        // weight >= T  <=>  newest_weight * age_sum >= T * W, compared
        // without dividing so that sums landing exactly on the threshold
        // are not lost to rounding.
        let w = self.params.window;
        if w == 0 {
            return 0.0 >= self.params.hot_threshold;
        }
        self.params.newest_weight * self.age_sum(lba) as f64 >= self.params.hot_threshold * w as f64
    }

    fn memory_bits(&self) -> u64 {
        self.params
            .window
            .saturating_mul(u64::from(self.params.lba_bits))
    }

    fn decays(&self) -> u64 {
        0
    }

    fn counts(&self) -> DecisionCounts {
        self.counts
    }

    fn advance_clock(&mut self, writes: u64) {
        self.now = self.now.saturating_add(writes);
        self.evict();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(window: u64, newest: f64, thr: f64) -> Wdac {
        Wdac::new(WdacParams {
            window,
            newest_weight: newest,
            hot_threshold: thr,
            lba_bits: 32,
        })
    }

    #[test]
    fn weights_fall_linearly() {
        // W = 4, newest weight 1: ages 1..4 weigh 4/4, 3/4, 2/4, 1/4.
        let mut w = small(4, 1.0, 100.0);
        w.record_write(9);
        assert_eq!(w.weight(9), 1.0);
        w.record_write(1);
        assert_eq!(w.weight(9), 0.75);
        w.record_write(1);
        assert_eq!(w.weight(9), 0.5);
        w.record_write(1);
        assert_eq!(w.weight(9), 0.25);
        w.record_write(1);
        assert_eq!(w.weight(9), 0.0);
        assert_eq!(w.occurrences(9), 0);
        // LBA 1 at ages 1, 2, 3, 4: 1 + .75 + .5 + .25
        assert_eq!(w.weight(1), 2.5);
    }

    #[test]
    fn zero_window_is_always_cold() {
        let mut w = small(0, 1.0, 0.5);
        for _ in 0..10 {
            assert!(!w.record_write(3));
        }
        assert_eq!(w.memory_bits(), 0);
    }

    #[test]
    fn advance_clock_ages_entries() {
        let mut w = small(4, 1.0, 100.0);
        w.record_write(5);
        w.advance_clock(2);
        assert_eq!(w.weight(5), 0.5);
        w.advance_clock(u64::MAX);
        assert_eq!(w.weight(5), 0.0);
        assert!(!w.record_write(5));
    }
}
