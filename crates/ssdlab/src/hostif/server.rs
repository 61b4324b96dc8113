//! A resource that serves one thing at a time (a link direction, the DRAM
//! channel), booked ahead: a stage books each of its steps when the stage
//! begins, at the time the step will be ready. A step takes the earliest
//! idle interval long enough for it that starts when it is ready or later,
//! so a step booked for later never holds up one ready earlier, and a step
//! never moves one already booked.

use crate::engine::Time;

/// Busy intervals booked, in time order (those ended before the last
/// booking's `now` are dropped).
#[derive(Default)]
pub(crate) struct Server {
    busy: Vec<(Time, Time)>,
}

impl Server {
    /// Book `d` ns ready at `at` (not before `now`, the clock): its start.
    pub(crate) fn book(&mut self, now: Time, at: Time, d: Time) -> Time {
        let gone = self.busy.iter().take_while(|&&(_, e)| e <= now).count();
        if gone > 0 {
            self.busy.drain(..gone);
        }
        // Idle from `at` on (the usual case): the step goes at the end.
        if self.busy.last().is_none_or(|&(_, e)| e <= at) {
            if d > 0 {
                self.busy.push((at, at + d));
            }
            return at;
        }
        let mut start = at;
        let mut pos = self.busy.len();
        for (i, &(s, e)) in self.busy.iter().enumerate() {
            if e <= start {
                continue;
            }
            if s >= start + d {
                pos = i;
                break;
            }
            start = start.max(e);
        }
        if d > 0 {
            self.busy.insert(pos, (start, start + d));
        }
        start
    }

    /// Intervals booked and not yet over (the checker: in order, apart).
    pub(crate) fn check(&self) -> Result<(), String> {
        for w in self.busy.windows(2) {
            if w[0].1 > w[1].0 {
                return Err(format!(
                    "host interface: bookings {:?} and {:?} overlap",
                    w[0], w[1]
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_earlier_step_fills_the_gap_before_a_later_booking() {
        let mut s = Server::default();
        assert_eq!(s.book(0, 100, 10), 100);
        // Ready at 0, 10 long: fits before 100.
        assert_eq!(s.book(0, 0, 10), 0);
        // Ready at 95: does not fit before 100; after 110.
        assert_eq!(s.book(0, 95, 10), 110);
        // Ready at 10, 90 long: fits exactly in 10..100.
        assert_eq!(s.book(0, 10, 90), 10);
        s.check().unwrap();
        // Past intervals are dropped.
        assert_eq!(s.book(200, 200, 5), 200);
        assert_eq!(s.busy.len(), 1);
    }
}
