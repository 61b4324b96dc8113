//! Hot-data identification (HDI) schemes for ssdlab.
//!
//! This crate implements the hot-data identifiers compared in Luo, Cheung and
//! Sun, "Dynamic Virtual Page-Based FTL With Novel Hot Data Identification and
//! Adaptive Parallelism Management" (IEEE Access 2018, §III-B and §IV-A):
//!
//! * [`Wdac`] — window-based direct address counting, the exact reference;
//! * [`Mihf`] — the multi-hash-function framework of Hsieh, Kuo and Chang
//!   (ACM TOS 2006): counting Bloom filter with periodic halving;
//! * [`Mbf`] — multiple Bloom filters of Park and Du (MSST 2011);
//! * [`DualLayer`] — the paper's dual-layer framework (DL-HDI): a one-filter
//!   cold-data pre-classifier in front of any post-identifier, e.g. DL-MBF
//!   (with the `_s`, `_c` and `_a` variants in [`presets`]) or DL-MIHF;
//! * [`UpdateWindow`] — exact update counts within a window of *time*, the
//!   hotness of the SPD paper's hot/cold separation (Gao et al., TPDS 2020).
//!
//! Every scheme implements [`HotDataIdentifier`]. [`evaluate`] replays an LBA
//! stream through a set of schemes and compares them with the first one (the
//! WDAC reference): hot ratio and false-identification rate, overall and per
//! interval.
//!
//! # Order of operations
//!
//! [`HotDataIdentifier::record_write`] **decides first and records second**:
//! the returned decision is the one [`HotDataIdentifier::is_hot`] would have
//! given just before the write, then the write is recorded, and finally any
//! decay that falls due on this write (every `N`-th write) is applied. All
//! schemes, including the WDAC reference, use the same order, so their
//! decisions are comparable write by write.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod bloom;
pub mod dual;
pub mod eval;
pub mod hash;
pub mod mbf;
pub mod mihf;
pub mod presets;
pub mod update_window;
pub mod wdac;

pub use bloom::BloomFilter;
pub use dual::{DualLayer, PostClock, PreClassifierParams};
pub use eval::{evaluate, Evaluation, SchemeResult};
pub use hash::HashFamily;
pub use mbf::{Mbf, MbfParams};
pub use mihf::{Mihf, MihfHotRule, MihfParams};
pub use update_window::{UpdateWindow, UpdateWindowParams};
pub use wdac::{Wdac, WdacParams};

use serde::{Deserialize, Serialize};

/// Cumulative decision counts of one identifier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionCounts {
    /// Writes judged hot.
    pub hot: u64,
    /// Writes judged cold (for a dual-layer scheme: by the post-identifier).
    pub cold: u64,
    /// Writes judged cold by a dual-layer pre-classifier without consulting
    /// the post-identifier ("cold I"); always 0 for single-layer schemes.
    /// Not included in `cold`.
    pub cold_i: u64,
}

impl DecisionCounts {
    /// Total number of decisions (`hot + cold + cold_i`).
    pub fn total(&self) -> u64 {
        self.hot + self.cold + self.cold_i
    }

    /// Record one decision.
    pub(crate) fn add(&mut self, hot: bool) {
        if hot {
            self.hot += 1;
        } else {
            self.cold += 1;
        }
    }
}

/// A hot-data identifier fed with the LBAs of write requests.
pub trait HotDataIdentifier {
    /// Short scheme name, e.g. `"MBF"` or `"DL-MBF_s"`.
    fn name(&self) -> &str;

    /// Handle one write of `lba`: decide whether it is hot using the state
    /// *before* this write, then record the write, then apply any decay that
    /// falls due. Returns the decision.
    fn record_write(&mut self, lba: u64) -> bool;

    /// Whether `lba` is judged hot right now (no state change).
    fn is_hot(&self, lba: u64) -> bool;

    /// Size of the identification structures in bits, counted as the paper
    /// counts them (bit vectors, counters, window slots), not Rust overhead.
    fn memory_bits(&self) -> u64;

    /// [`Self::memory_bits`] rounded up to whole bytes.
    fn memory_bytes(&self) -> usize {
        usize::try_from(self.memory_bits().div_ceil(8)).unwrap_or(usize::MAX)
    }

    /// Number of decay operations performed so far (filter resets, counter
    /// halvings; for a dual-layer scheme pre-classifier plus post-identifier).
    fn decays(&self) -> u64;

    /// Bits the decays so far have reset or aged: an operation count of the
    /// decay cost (DVPFTL's Fig. 11 measures it in CPU cycles). None where
    /// decay is not a bulk operation on the structures (WDAC, the update
    /// window).
    fn decay_bits(&self) -> Option<u64> {
        None
    }

    /// Cumulative decision counts.
    fn counts(&self) -> DecisionCounts;

    /// Let `writes` writes pass that this identifier does not see (they
    /// advance its decay clock only). A dual-layer scheme calls this on its
    /// post-identifier for writes filtered out by the pre-classifier when it
    /// runs the post-identifier on the global write clock
    /// ([`PostClock::AllWrites`]).
    fn advance_clock(&mut self, writes: u64);

    /// Set the identifier's clock to `now_ns` (simulated nanoseconds).
    /// Identifiers whose window is measured in time ([`UpdateWindow`]) use
    /// it; those that count writes ignore it. A time earlier than the
    /// clock changes nothing.
    fn set_time_ns(&mut self, _now_ns: u64) {}
}

impl<T: HotDataIdentifier + ?Sized> HotDataIdentifier for Box<T> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn record_write(&mut self, lba: u64) -> bool {
        (**self).record_write(lba)
    }
    fn is_hot(&self, lba: u64) -> bool {
        (**self).is_hot(lba)
    }
    fn memory_bits(&self) -> u64 {
        (**self).memory_bits()
    }
    fn memory_bytes(&self) -> usize {
        (**self).memory_bytes()
    }
    fn decay_bits(&self) -> Option<u64> {
        (**self).decay_bits()
    }
    fn decays(&self) -> u64 {
        (**self).decays()
    }
    fn counts(&self) -> DecisionCounts {
        (**self).counts()
    }
    fn advance_clock(&mut self, writes: u64) {
        (**self).advance_clock(writes)
    }
    fn set_time_ns(&mut self, now_ns: u64) {
        (**self).set_time_ns(now_ns)
    }
}

/// Number of multiples of `period` crossed when a counter moves from
/// `before` to `after` (`period == 0` means "never").
pub(crate) fn crossings(before: u64, after: u64, period: u64) -> u64 {
    match (after.checked_div(period), before.checked_div(period)) {
        (Some(a), Some(b)) => a - b,
        _ => 0,
    }
}
