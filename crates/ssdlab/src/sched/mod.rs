//! Transaction scheduling unit: the queues of every die and the policy that
//! orders them. Each plane has three FIFO queues — host reads, host writes and
//! GC traffic (kept apart) — so that multi-plane commands can be built from
//! the heads of the queues of the planes of one die.

pub mod builder;
pub mod diewrite;
pub(crate) mod flin;
pub mod queue;
pub mod superpage;
pub(crate) mod txn;
pub mod unit;

use std::collections::VecDeque;

use crate::addr::{DieId, PlaneId};
use crate::config::SchedPolicy;
use crate::types::TxnId;

/// Queue class of a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Read = 0,
    Gc = 1,
    Write = 2,
}

/// PAS's view of a queued write: the page type it wants (lane) and how
/// often it was overtaken.
type PasEntry = (u8, u32);

pub struct Queues {
    /// queues[plane.0 * 3 + class] -> transaction ids in arrival order
    /// (the write queues in PAS order under `sched.pas`); under FLIN with
    /// priority classes, queues[(plane.0 * 3 + class) * 4 + priority] (GC
    /// in priority 0's)
    q: Vec<VecDeque<TxnId>>,
    /// Priority classes per host queue: 4 under FLIN with weighted round
    /// robin (`queues.arbitration = "wrr"`: urgent, high, medium, low),
    /// else 1.
    prios: u32,
    /// Per die, the priority class of its read slot and of its write slot
    /// (FLIN's stage 2): the queues `head` and `pop` serve.
    sel: Vec<[u8; 2]>,
    /// Per plane and class (`plane × 3 + class`), the index in `q` of the
    /// queue `head` and `pop` serve: the queue itself without classes,
    /// else the one of the die's slot's class (kept by `set_slot`), so
    /// that the hot path looks it up without asking whether there are
    /// classes.
    cur: Vec<u32>,
    /// `sched.pas`: per plane, beside its write queue, each write's wanted
    /// page type and how often it was overtaken; the preemption limits per
    /// type (LSB writes are never overtaken).
    pas: Option<(Vec<VecDeque<PasEntry>>, [u32; 3])>,
    /// Transactions queued per die (for least-busy allocation and stats).
    per_die: Vec<u32>,
    planes_per_die: u32,
    /// How the command builder picks a die's leading transaction.
    pub order: ClassOrder,
    /// FLIN's state (`sched.policy = "flin"`).
    pub(crate) flin: Option<Box<flin::Flin>>,
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
            // FLIN's base order (one flow; with more, its stage 3 orders
            // each command: `Simulator::flin_order`).
            SchedPolicy::Flin => ClassOrder {
                classes,
                strict: false,
            },
        }
    }
}

/// What PAS requires: writes that want page types (`host.page_types`),
/// queued page by page (not as Die-Writes).
pub(crate) fn pas_requirements(c: &crate::config::Config) -> crate::config::Requirement {
    if c.sched.pas && c.host.page_types.trim().eq_ignore_ascii_case("none") {
        return Err((
            "sched.pas",
            "orders writes by the page type they want: needs a host.page_types scheme".into(),
        ));
    }
    if c.sched.pas && c.ftl.write_unit != crate::config::WriteUnit::Page {
        return Err((
            "sched.pas",
            "reorders each plane's write queue on its own, while a Die-Write's pages leave every plane's queue together: needs ftl.write_unit = \"page\"".into(),
        ));
    }
    Ok(())
}

impl Queues {
    pub fn new(planes: u32, planes_per_die: u32, policy: SchedPolicy) -> Self {
        Queues {
            q: (0..planes * 3).map(|_| VecDeque::new()).collect(),
            prios: 1,
            sel: vec![[0; 2]; (planes / planes_per_die) as usize],
            cur: (0..planes * 3).collect(),
            pas: None,
            per_die: vec![0; (planes / planes_per_die) as usize],
            planes_per_die,
            order: ClassOrder::of(policy),
            flin: None,
        }
    }

    /// FLIN's queues with priority classes (`prios` of them per host
    /// queue: 4 under weighted round robin).
    pub(crate) fn with_flin(mut self, mut f: flin::Flin) -> Self {
        let prios = f.prios();
        if prios > 1 {
            let n = self.q.len() * prios as usize;
            self.q = (0..n).map(|_| VecDeque::new()).collect();
        }
        f.low = vec![0; self.q.len()];
        self.prios = prios;
        // Every slot starts at class 0 (GC's queues are class 0's).
        for (b, c) in self.cur.iter_mut().enumerate() {
            *c = b as u32 * prios;
        }
        self.flin = Some(Box::new(f));
        self
    }

    /// Priority classes per host queue (1 without FLIN's stage 2).
    #[inline]
    pub(crate) fn prios(&self) -> u32 {
        self.prios
    }

    /// The index of the queue of `class` of `plane` with priority class
    /// `prio` (0 for GC and without classes).
    #[inline]
    fn index(&self, plane: PlaneId, class: Class, prio: u32) -> usize {
        let base = (plane.0 * 3 + class as u32) as usize;
        if self.prios == 1 {
            base
        } else {
            base * self.prios as usize + prio as usize
        }
    }

    /// The index of the queue `head` and `pop` serve: under FLIN's stage 2
    /// the die's slot's priority class.
    #[inline]
    fn qi(&self, plane: PlaneId, class: Class) -> usize {
        self.cur[(plane.0 * 3 + class as u32) as usize] as usize
    }

    /// FLIN's stage 2: `die`'s read slot (`dir` 0) or write slot (1) is
    /// filled from priority class `prio`.
    #[inline]
    pub(crate) fn set_slot(&mut self, die: DieId, dir: usize, prio: u32) {
        self.sel[die.index()][dir] = prio as u8;
        let class = if dir == 0 { Class::Read } else { Class::Write };
        let first = die.0 * self.planes_per_die;
        for p in first..first + self.planes_per_die {
            let i = self.index(PlaneId(p), class, prio) as u32;
            self.cur[(p * 3 + class as u32) as usize] = i;
        }
    }

    /// The priority class `die`'s read slot (`dir` 0) or write slot (1) is
    /// filled from.
    #[inline]
    pub(crate) fn slot(&self, die: DieId, dir: usize) -> u32 {
        self.sel[die.index()][dir] as u32
    }

    /// The head of `plane`'s queue of `class` in priority class `prio`.
    #[inline]
    pub(crate) fn head_of(&self, plane: PlaneId, class: Class, prio: u32) -> Option<TxnId> {
        self.q[self.index(plane, class, prio)].front().copied()
    }

    /// Every queue as (index, plane, class, priority class, its
    /// transactions) (the consistency checker).
    pub(crate) fn all(&self) -> impl Iterator<Item = (usize, u32, Class, u32, &VecDeque<TxnId>)> {
        let p = self.prios as usize;
        self.q.iter().enumerate().map(move |(i, q)| {
            let base = i / p;
            let class = match base % 3 {
                0 => Class::Read,
                1 => Class::Gc,
                _ => Class::Write,
            };
            (i, (base / 3) as u32, class, (i % p) as u32, q)
        })
    }

    /// Queue host transaction `txn` of `class` (reads or writes) by FLIN's
    /// fairness-aware insertion into its priority class's queue, now.
    pub(crate) fn push_flin(
        &mut self,
        plane: PlaneId,
        class: Class,
        txn: TxnId,
        now: crate::engine::Time,
    ) {
        let prio = self.flin.as_deref().expect("FLIN").prio_of(txn);
        let qi = self.index(plane, class, prio);
        let die = (plane.0 / self.planes_per_die) as usize;
        self.per_die[die] += 1;
        let f = self.flin.as_deref_mut().expect("FLIN");
        let dir = (class == Class::Write) as usize;
        f.insert(&mut self.q[qi], qi, die, dir, txn, now);
    }
    #[inline]
    pub(crate) fn push(&mut self, plane: PlaneId, class: Class, txn: TxnId) {
        let qi = self.index(plane, class, 0);
        self.q[qi].push_back(txn);
        self.per_die[(plane.0 / self.planes_per_die) as usize] += 1;
    }
    /// Order write queues by page type (PAS) with these preemption limits
    /// for CSB and MSB writes.
    pub fn with_pas(mut self, preemptions: [u32; 2]) -> Self {
        let planes = self.q.len() / 3;
        self.pas = Some((
            (0..planes).map(|_| VecDeque::new()).collect(),
            [0, preemptions[0], preemptions[1]],
        ));
        self
    }

    /// Queue write `txn` wanting page type `ty` (lane, fast to slow). Under
    /// PAS it goes ahead of every queued write of a slower type at the tail
    /// end that may still be overtaken (each overtaken one counts it), and
    /// behind the rest; else at the tail.
    pub(crate) fn push_write(&mut self, plane: PlaneId, txn: TxnId, ty: u8) {
        let Some((meta, limits)) = &mut self.pas else {
            return self.push(plane, Class::Write, txn);
        };
        let m = &mut meta[plane.index()];
        let q = &mut self.q[(plane.0 * 3 + Class::Write as u32) as usize];
        let mut at = q.len();
        while at > 0 {
            let (t, n) = m[at - 1];
            if t <= ty || n >= limits[t as usize] {
                break;
            }
            at -= 1;
        }
        for e in m.range_mut(at..) {
            e.1 += 1;
        }
        q.insert(at, txn);
        m.insert(at, (ty, 0));
        self.per_die[(plane.0 / self.planes_per_die) as usize] += 1;
    }

    /// Under PAS, the rank of `plane`'s write head among the die's write
    /// heads: its wanted type (0 fastest), or 0 once it has been overtaken
    /// as often as its type allows. None without PAS or an empty queue.
    #[inline]
    pub(crate) fn pas_rank(&self, plane: PlaneId) -> Option<u8> {
        let (meta, limits) = self.pas.as_ref()?;
        let &(ty, n) = meta[plane.index()].front()?;
        Some(if n >= limits[ty as usize] { 0 } else { ty })
    }

    /// Under PAS, `plane`'s write head was overtaken by a faster write of
    /// another plane of its die.
    #[inline]
    pub(crate) fn pas_overtaken(&mut self, plane: PlaneId) {
        if let Some((meta, _)) = &mut self.pas {
            if let Some(e) = meta[plane.index()].front_mut() {
                e.1 += 1;
            }
        }
    }

    #[inline]
    pub(crate) fn head(&self, plane: PlaneId, class: Class) -> Option<TxnId> {
        self.q[self.qi(plane, class)].front().copied()
    }
    #[inline]
    pub(crate) fn pop(&mut self, plane: PlaneId, class: Class) -> Option<TxnId> {
        let qi = self.qi(plane, class);
        let t = self.q[qi].pop_front()?;
        let die = (plane.0 / self.planes_per_die) as usize;
        self.per_die[die] -= 1;
        if let Some(f) = self.flin.as_deref_mut() {
            // (The low-intensity part is the queue's front.)
            f.low[qi] = f.low[qi].saturating_sub(1);
            let prio = match class {
                Class::Gc => 0,
                _ => self.sel[die][(class == Class::Write) as usize] as u32,
            };
            let gc_left = match class {
                Class::Gc => {
                    let first = die as u32 * self.planes_per_die;
                    (first..first + self.planes_per_die)
                        .map(|p| self.q[self.index(PlaneId(p), Class::Gc, 0)].len())
                        .sum()
                }
                _ => 0,
            };
            let f = self.flin.as_deref_mut().expect("FLIN");
            f.served(die, class, prio, t, gc_left);
        }
        if let (Some((meta, _)), Class::Write) = (&mut self.pas, class) {
            meta[plane.index()].pop_front();
        }
        Some(t)
    }
    /// GC transactions queued on `die`.
    pub(crate) fn gc_queued(&self, die: DieId) -> impl Iterator<Item = TxnId> + '_ {
        let first = die.0 * self.planes_per_die;
        (first..first + self.planes_per_die)
            .flat_map(move |p| self.q[self.index(PlaneId(p), Class::Gc, 0)].iter().copied())
    }
    #[inline]
    pub fn die_load(&self, die: DieId) -> u32 {
        self.per_die[die.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(q: &mut Queues) -> Vec<u32> {
        std::iter::from_fn(|| q.pop(PlaneId(0), Class::Write).map(|t| t.0)).collect()
    }

    /// PA-SSD Fig. 11: writes queued MSB, CSB, LSB run LSB, CSB, MSB.
    #[test]
    fn pas_puts_fast_writes_first() {
        let mut q = Queues::new(1, 1, SchedPolicy::ReadPriority).with_pas([10, 20]);
        for (t, ty) in [(0, 2), (1, 1), (2, 0)] {
            q.push_write(PlaneId(0), TxnId(t), ty);
        }
        assert_eq!(order(&mut q), [2, 1, 0]);
        // Same types keep their order.
        for (t, ty) in [(0, 1), (1, 1), (2, 0), (3, 0)] {
            q.push_write(PlaneId(0), TxnId(t), ty);
        }
        assert_eq!(order(&mut q), [2, 3, 0, 1]);
    }

    /// A queued write is overtaken at most its type's number of times.
    #[test]
    fn pas_starvation_limits_hold() {
        let mut q = Queues::new(1, 1, SchedPolicy::ReadPriority).with_pas([1, 2]);
        q.push_write(PlaneId(0), TxnId(0), 2); // MSB: may be overtaken twice
        for t in 1..=3 {
            q.push_write(PlaneId(0), TxnId(t), 0);
        }
        assert_eq!(order(&mut q), [1, 2, 0, 3]);
        q.push_write(PlaneId(0), TxnId(0), 1); // CSB: once
        for t in 1..=2 {
            q.push_write(PlaneId(0), TxnId(t), 0);
        }
        assert_eq!(order(&mut q), [1, 0, 2]);
    }

    #[test]
    fn without_pas_writes_stay_in_arrival_order() {
        let mut q = Queues::new(1, 1, SchedPolicy::ReadPriority);
        for (t, ty) in [(0, 2), (1, 1), (2, 0)] {
            q.push_write(PlaneId(0), TxnId(t), ty);
        }
        assert_eq!(order(&mut q), [0, 1, 2]);
    }
}
