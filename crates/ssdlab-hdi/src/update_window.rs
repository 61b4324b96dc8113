//! Update counting over a window of time: the hotness the SPD paper (Gao et
//! al., TPDS 2020) uses for its hot/cold separation, "the update count
//! of a page within a 120-minute window".
//!
//! Unlike the other identifiers of this crate, whose windows and decays are
//! counted in writes, this one needs the time of every write: the simulator
//! sets it with [`HotDataIdentifier::set_time_ns`] before each write and
//! before each question. Without a clock (e.g. `ssdlab hdi`, which replays
//! LBAs only) every write would fall in one instant, so the command line
//! evaluation refuses it.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::{DecisionCounts, HotDataIdentifier};

/// Parameters of [`UpdateWindow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateWindowParams {
    /// Length of the window in nanoseconds of simulated time (the paper:
    /// 120 minutes).
    pub window_ns: u64,
    /// An LBA is hot when it was written at least this many times within
    /// the window (not stated by the paper; ssdlab's default is 2).
    pub hot_updates: u32,
}

impl Default for UpdateWindowParams {
    fn default() -> Self {
        Self {
            window_ns: 120 * 60 * 1_000_000_000,
            hot_updates: 2,
        }
    }
}

/// Exact per-LBA write counts over a sliding window of time.
///
/// A FIFO of `(time, lba)` holds the writes still in the window and a table
/// holds each LBA's count; a write made at `t` leaves the window once the
/// clock reaches `t + window_ns`. Memory grows with the writes of one window,
/// not with the logical space.
#[derive(Debug, Clone)]
pub struct UpdateWindow {
    params: UpdateWindowParams,
    ring: VecDeque<(u64, u64)>,
    table: FxHashMap<u64, u32>,
    now: u64,
    expired: u64,
    counts: DecisionCounts,
}

impl UpdateWindow {
    /// An identifier with these parameters, its clock at 0.
    pub fn new(params: UpdateWindowParams) -> Self {
        Self {
            params,
            ring: VecDeque::new(),
            table: FxHashMap::default(),
            now: 0,
            expired: 0,
            counts: DecisionCounts::default(),
        }
    }

    /// The parameters in use.
    pub fn params(&self) -> &UpdateWindowParams {
        &self.params
    }

    /// Writes of `lba` within the window ending at the current clock.
    pub fn updates(&self, lba: u64) -> u32 {
        self.table.get(&lba).copied().unwrap_or(0)
    }

    /// Writes of every LBA held in the window right now.
    pub fn window_len(&self) -> usize {
        self.ring.len()
    }

    /// Drop the writes made at or before `now - window_ns`.
    fn expire(&mut self) {
        while let Some(&(t, lba)) = self.ring.front() {
            if t.saturating_add(self.params.window_ns) > self.now {
                break;
            }
            self.ring.pop_front();
            self.expired += 1;
            if let Some(c) = self.table.get_mut(&lba) {
                *c -= 1;
                if *c == 0 {
                    self.table.remove(&lba);
                }
            }
        }
    }
}

impl HotDataIdentifier for UpdateWindow {
    fn name(&self) -> &str {
        "update-window"
    }

    fn record_write(&mut self, lba: u64) -> bool {
        let hot = self.is_hot(lba);
        self.counts.add(hot);
        if self.params.window_ns > 0 {
            self.ring.push_back((self.now, lba));
            *self.table.entry(lba).or_default() += 1;
        }
        hot
    }

    fn is_hot(&self, lba: u64) -> bool {
        self.params.hot_updates > 0 && self.updates(lba) >= self.params.hot_updates
    }

    /// The window's writes, each as a 32-bit LBA and a 32-bit time stamp
    /// (the counts can be derived from them).
    fn memory_bits(&self) -> u64 {
        self.ring.len() as u64 * 64
    }

    /// Writes that have left the window so far (each is one decrement).
    fn decays(&self) -> u64 {
        self.expired
    }

    fn counts(&self) -> DecisionCounts {
        self.counts
    }

    /// The window is in time, not in writes: writes this identifier does
    /// not see change nothing.
    fn advance_clock(&mut self, _writes: u64) {}

    fn set_time_ns(&mut self, now_ns: u64) {
        if now_ns > self.now {
            self.now = now_ns;
            self.expire();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: u64 = 60 * 1_000_000_000;

    fn at(u: &mut UpdateWindow, t: u64, lba: u64) -> bool {
        u.set_time_ns(t);
        u.record_write(lba)
    }

    #[test]
    fn hot_after_enough_writes_within_the_window() {
        let mut u = UpdateWindow::new(UpdateWindowParams::default());
        // Decide first, record second: the second write is judged on one.
        assert!(!at(&mut u, 0, 7));
        assert!(!at(&mut u, 30 * MIN, 7));
        assert!(u.is_hot(7));
        assert!(at(&mut u, 60 * MIN, 7));
        assert_eq!(u.updates(7), 3);
        assert!(!u.is_hot(8));
    }

    #[test]
    fn writes_leave_the_window_after_120_minutes() {
        let mut u = UpdateWindow::new(UpdateWindowParams::default());
        at(&mut u, 0, 7);
        at(&mut u, 10 * MIN, 7);
        u.set_time_ns(120 * MIN - 1);
        assert_eq!(u.updates(7), 2);
        // The write at 0 leaves exactly 120 minutes later.
        u.set_time_ns(120 * MIN);
        assert_eq!(u.updates(7), 1);
        assert!(!u.is_hot(7));
        u.set_time_ns(130 * MIN);
        assert_eq!(u.updates(7), 0);
        assert_eq!(u.window_len(), 0);
        assert_eq!(u.decays(), 2);
    }

    #[test]
    fn the_clock_never_goes_back_and_write_counts_do_not_age() {
        let mut u = UpdateWindow::new(UpdateWindowParams {
            window_ns: 10,
            hot_updates: 1,
        });
        at(&mut u, 100, 1);
        u.set_time_ns(5);
        u.advance_clock(1_000_000);
        assert!(u.is_hot(1));
        u.set_time_ns(110);
        assert!(!u.is_hot(1));
    }

    #[test]
    fn counts_and_memory() {
        let mut u = UpdateWindow::new(UpdateWindowParams {
            window_ns: 1000,
            hot_updates: 2,
        });
        for (t, lba) in [(0, 1), (1, 1), (2, 1), (3, 2)] {
            at(&mut u, t, lba);
        }
        let c = u.counts();
        assert_eq!((c.hot, c.cold, c.cold_i), (1, 3, 0));
        assert_eq!(u.memory_bits(), 4 * 64);
        assert_eq!(u.name(), "update-window");
    }
}
