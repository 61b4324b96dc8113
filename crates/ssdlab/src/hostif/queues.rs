//! Arbitration among the flows' submission queues: which queue the device
//! fetches its next commands from (`Arbiter::pick`), and how many at most
//! (the arbitration burst).
//!
//! - **NVMe, round robin** (`queues.arbitration = "rr"`): the queues in
//!   turn, whatever their priority class, skipping empty ones.
//! - **NVMe, weighted round robin with urgent priority class** (`"wrr"`),
//!   as the NVMe base specification describes it: a non-empty urgent queue
//!   is always served first (round robin among the urgent queues); then the
//!   high, medium and low classes are served by weighted round robin, a
//!   class taking as many turns per round as its weight
//!   (`queues.weights`), round robin among the queues of the class. A
//!   class with nothing queued gives up its turns; a round ends, and every
//!   class's turns are given again, when no class with queued commands has
//!   turns left. Under saturation the classes' shares of fetched commands
//!   are in the ratio of their weights.
//! - **SATA** (`queues.protocol = "sata"`): one native command queue
//!   shared by every flow; commands are fetched in the order they entered
//!   their flow's queue (ties by flow index), one at a time.
//!
//! A turn fetches up to `queues.burst` commands from the queue picked (the
//! arbitration burst), fewer if the queue holds fewer or the device has
//! fewer free slots.

use crate::config::{Arbitration, Priority, Protocol, Queues};

/// The arbiter's state: each class's round-robin position and the weighted
/// classes' turns left in the current round.
pub(crate) struct Arbiter {
    protocol: Protocol,
    kind: Arbitration,
    pub(crate) burst: u32,
    weights: [u32; 3],
    /// Each queue's class.
    classes: Vec<Priority>,
    /// Next queue to look at first, per class (round robin uses slot 0).
    next: [usize; 4],
    /// Turns left this round: high, medium, low.
    turns: [u32; 3],
}

impl Arbiter {
    pub(crate) fn new(q: &Queues, classes: Vec<Priority>) -> Arbiter {
        let weights = [q.weights.high, q.weights.medium, q.weights.low];
        Arbiter {
            protocol: q.protocol,
            kind: q.arbitration,
            burst: match q.protocol {
                Protocol::Nvme => q.burst,
                Protocol::Sata => 1,
            },
            weights,
            classes,
            next: [0; 4],
            turns: weights,
        }
    }

    /// The queue to fetch from now, given each queue's head's entry order
    /// (`head(q)`: None when the queue is empty); None when every queue
    /// is empty.
    pub(crate) fn pick(&mut self, head: impl Fn(usize) -> Option<u64>) -> Option<usize> {
        let n = self.classes.len();
        if self.protocol == Protocol::Sata {
            return (0..n)
                .filter_map(|q| head(q).map(|s| (s, q)))
                .min()
                .map(|(_, q)| q);
        }
        match self.kind {
            Arbitration::Rr => self.round_robin(0, None, &head),
            Arbitration::Wrr => {
                if let Some(q) = self.round_robin(0, Some(Priority::Urgent), &head) {
                    return Some(q);
                }
                for _ in 0..2 {
                    for (c, class) in [Priority::High, Priority::Medium, Priority::Low]
                        .into_iter()
                        .enumerate()
                    {
                        if self.turns[c] == 0 {
                            continue;
                        }
                        if let Some(q) = self.round_robin(c + 1, Some(class), &head) {
                            self.turns[c] -= 1;
                            return Some(q);
                        }
                    }
                    // No class with queued commands has turns left: a new round.
                    self.turns = self.weights;
                }
                None
            }
        }
    }

    /// The next non-empty queue of `class` (any class: None) from slot
    /// `slot`'s position, which moves past it.
    fn round_robin(
        &mut self,
        slot: usize,
        class: Option<Priority>,
        head: &impl Fn(usize) -> Option<u64>,
    ) -> Option<usize> {
        let n = self.classes.len();
        let start = self.next[slot];
        for k in 0..n {
            let q = (start + k) % n;
            if class.is_none_or(|c| self.classes[q] == c) && head(q).is_some() {
                self.next[slot] = (q + 1) % n;
                return Some(q);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picks(q: Queues, classes: Vec<Priority>, n: usize) -> Vec<usize> {
        let mut a = Arbiter::new(&q, classes.clone());
        (0..n)
            .map(|_| a.pick(|_| Some(0)).expect("saturated"))
            .collect()
    }

    #[test]
    fn round_robin_takes_turns_whatever_the_class() {
        let q = Queues::default();
        let got = picks(q, vec![Priority::Low, Priority::Urgent, Priority::High], 6);
        assert_eq!(got, vec![0, 1, 2, 0, 1, 2]);
    }

    #[test]
    fn weighted_round_robin_gives_turns_by_weight_and_urgent_first() {
        let q = Queues {
            arbitration: Arbitration::Wrr,
            ..Queues::default()
        };
        // weights 4 / 2 / 1
        let got = picks(q, vec![Priority::High, Priority::Medium, Priority::Low], 14);
        assert_eq!(got, vec![0, 0, 0, 0, 1, 1, 2, 0, 0, 0, 0, 1, 1, 2]);
        let mut a = Arbiter::new(&q, vec![Priority::Low, Priority::Urgent]);
        // the urgent queue whenever it has commands
        assert_eq!(a.pick(|_| Some(0)), Some(1));
        assert_eq!(a.pick(|_| Some(0)), Some(1));
        assert_eq!(a.pick(|q| (q == 0).then_some(0)), Some(0));
        assert_eq!(a.pick(|_| None), None);
    }

    #[test]
    fn an_empty_class_gives_up_its_turns() {
        let q = Queues {
            arbitration: Arbitration::Wrr,
            ..Queues::default()
        };
        let mut a = Arbiter::new(&q, vec![Priority::High, Priority::Low]);
        let got: Vec<usize> = (0..6)
            .map(|_| a.pick(|q| (q == 1).then_some(0)).unwrap())
            .collect();
        assert_eq!(got, vec![1; 6]);
    }

    #[test]
    fn sata_serves_in_order_of_entry() {
        let q = Queues {
            protocol: Protocol::Sata,
            ..Queues::default()
        };
        let mut a = Arbiter::new(&q, vec![Priority::Medium; 3]);
        let heads = [Some(5), Some(2), None];
        assert_eq!(a.pick(|q| heads[q]), Some(1));
        assert_eq!(a.burst, 1);
    }
}
