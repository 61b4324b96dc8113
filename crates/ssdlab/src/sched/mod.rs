//! Transaction scheduling unit: the queues of every die and the policy that
//! orders them. Each plane has three FIFO queues — host reads, host writes and
//! GC traffic (kept apart) — so that multi-plane commands can be built from
//! the heads of the queues of the planes of one die.

pub mod builder;
pub mod diewrite;
pub mod queue;
pub mod superpage;
pub mod unit;

use std::collections::VecDeque;

use crate::addr::{DieId, PlaneId};
use crate::config::SchedPolicy;
use crate::sim::TxnId;

/// Queue class of a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Read = 0,
    Gc = 1,
    Write = 2,
}

pub struct Queues {
    /// queues[plane.0 * 3 + class] -> transaction ids in arrival order
    q: Vec<VecDeque<TxnId>>,
    /// Transactions queued per die (for least-busy allocation and stats).
    per_die: Vec<u32>,
    planes_per_die: u32,
    /// How the command builder picks a die's leading transaction.
    pub order: ClassOrder,
}

/// The scheduling policy (`sched.policy`) as the command builder applies
/// it: the queue classes in priority order, and whether the first class
/// with an eligible head wins outright (`strict`) or the oldest eligible
/// head of any class does.
#[derive(Clone, Copy, Debug)]
pub struct ClassOrder {
    pub classes: [Class; 3],
    pub strict: bool,
}

impl ClassOrder {
    pub fn of(policy: SchedPolicy) -> ClassOrder {
        let classes = [Class::Read, Class::Gc, Class::Write];
        match policy {
            // Host reads, then GC, then host writes.
            SchedPolicy::ReadPriority => ClassOrder {
                classes,
                strict: true,
            },
            // The oldest head of any class (GC traffic still holds host
            // writes back in its plane: that is eligibility, not order).
            SchedPolicy::Fcfs => ClassOrder {
                classes,
                strict: false,
            },
            // GC, then host reads, then host writes.
            SchedPolicy::GcFirst => ClassOrder {
                classes: [Class::Gc, Class::Read, Class::Write],
                strict: true,
            },
        }
    }
}

impl Queues {
    pub fn new(planes: u32, planes_per_die: u32, policy: SchedPolicy) -> Self {
        Queues {
            q: (0..planes * 3).map(|_| VecDeque::new()).collect(),
            per_die: vec![0; (planes / planes_per_die) as usize],
            planes_per_die,
            order: ClassOrder::of(policy),
        }
    }
    #[inline]
    pub(crate) fn push(&mut self, plane: PlaneId, class: Class, txn: TxnId) {
        self.q[(plane.0 * 3 + class as u32) as usize].push_back(txn);
        self.per_die[(plane.0 / self.planes_per_die) as usize] += 1;
    }
    #[inline]
    pub(crate) fn head(&self, plane: PlaneId, class: Class) -> Option<TxnId> {
        self.q[(plane.0 * 3 + class as u32) as usize]
            .front()
            .copied()
    }
    #[inline]
    pub(crate) fn pop(&mut self, plane: PlaneId, class: Class) -> Option<TxnId> {
        let t = self.q[(plane.0 * 3 + class as u32) as usize].pop_front()?;
        self.per_die[(plane.0 / self.planes_per_die) as usize] -= 1;
        Some(t)
    }
    #[inline]
    pub fn die_load(&self, die: DieId) -> u32 {
        self.per_die[die.index()]
    }
}
