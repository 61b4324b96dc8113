//! FLIN, the flash-level interference-aware scheduler of several flows
//! (Tavakkol, Sadrosadati, Ghose, Kim, Luo, Wang, Mansouri Ghiasi, Orosa,
//! Gómez-Luna, Mutlu, "FLIN: Enabling Fairness and Enhancing Performance in
//! Modern NVMe Solid State Drives", ISCA 2018), `sched.policy = "flin"`.
//!
//! FLIN orders the flash transactions of a die in three stages; here:
//!
//! 1. **Fairness-aware queue insertion** (the paper's Algorithm 1), in each
//!    plane's host read queue and host write queue. Each die counts every
//!    flow's reads and writes queued in the current epoch
//!    (`sched.flin_epoch_us`); at an epoch's end a flow whose count of the
//!    epoch exceeds α (`sched.flin_alpha_read_mib_s`,
//!    `sched.flin_alpha_write_kib_s`: a rate over the drive, as
//!    transactions per die and epoch) is high-intensity in that direction
//!    for the next epoch, else low-intensity (every flow starts low). A
//!    queue keeps its low-intensity flows' transactions at its front: a
//!    low-intensity flow's transaction goes after the last of them, then
//!    may move ahead among them (*ReorderForFairness*). A high-intensity
//!    flow's transaction goes to the tail; if the fairness of the queue's
//!    high-intensity part (the smallest over the largest of its flows'
//!    average estimated slowdowns) is below F_thr
//!    (`sched.flin_fairness_threshold`) and the new transaction's flow is
//!    the most slowed, it moves forward (*MoveForward*) past other flows'
//!    transactions up to the low-intensity part, the first transaction of
//!    its own flow or a transaction moved forward before it, and is tagged
//!    so that none moves ahead of it later; else it may move ahead within
//!    the high-intensity part (*ReorderForFairness*).
//!
//!    *ReorderForFairness* puts the new transaction where the fairness of
//!    the transactions from the part's start to the tail (smallest over
//!    largest estimated slowdown) is largest, the tail on a tie; it never
//!    passes a transaction of its own flow or a tagged one, so a flow's
//!    transactions keep their order. A transaction's estimated slowdown is
//!    its estimated time in the drive shared — the time it has queued plus
//!    the service times of the transactions ahead of it and its own — over
//!    its estimated time alone: its service time after the estimated
//!    alone completion of its flow's last transaction ahead of it in the
//!    queue (*EstimateAloneWaitingTime*). A service time is the mean array
//!    time of the direction (over the block's page types) plus a page's
//!    transfer and the command cycles.
//! 2. **Priority-aware queue arbitration.** Under weighted round robin
//!    (`queues.arbitration = "wrr"`) each plane has a host read queue and
//!    a host write queue per priority class (urgent, high, medium, low; a
//!    flow's transactions go to its class's, stage 1 orders each), and each
//!    die a read slot and a write slot: when the die is free, each slot is
//!    filled from the class that weighted round robin picks among the
//!    classes with a head that may run — urgent first, then high, medium
//!    and low, each taking as many transactions per round as its weight
//!    (`queues.weights`), a class without a ready head giving up its turns
//!    and a new round starting when no class with a ready head has turns
//!    left (the host interface's arbitration, `hostif/queues.rs`, applied
//!    to transactions). A turn is taken by each transaction dispatched. The
//!    state is per die (the unit that runs one command here, as stage 3's),
//!    the read slot's and the write slot's apart. Transactions of no flow
//!    (DFTL's translation pages, a write unit's own reads) go to the urgent
//!    class's queues: the drive's own work, which the authors' simulator
//!    serves before every flow's. Under round robin (`"rr"`, or no
//!    `[queues]`) there are no classes: one read and one write queue per
//!    plane, as without stage 2.
//! 3. **Wait-balancing transaction selection.** When a die is free, its
//!    read slot is its oldest host read head (of the class stage 2 chose)
//!    and its write slot its oldest host write head; the one with the
//!    larger proportional wait goes first, the read on a tie. A slot's
//!    proportional wait is the time it has queued plus the other slot's
//!    service time plus the die's pending GC time (the service times of the
//!    GC transactions queued on the die: a read's, a program's, a
//!    copyback's as a read's plus a program's, an erase's), over its own
//!    service time. A read slot chosen goes before GC and host writes. A
//!    write slot chosen goes after its flow's share of the die's GC: of
//!    the GC transactions queued on the die and those dispatched since its
//!    last host write (gone ahead of the write slot), ⌈their number × the
//!    flow's host writes / all host writes⌉, counting the die's host
//!    writes dispatched since its GC queues last emptied (all of them for
//!    a write of no flow or when no host write was counted); while fewer
//!    have gone ahead the order is GC, host writes, host reads, else host
//!    writes, GC, host reads. The choice is made for each command. GC
//!    still holds host writes back in its plane (as in every policy here),
//!    so a write slot whose plane has GC queued waits for that GC, which
//!    the die runs meanwhile.
//!
//! With fewer than two flows FLIN has no flows to be fair among: no
//! classes, the queues are first come, first served and the order is
//! `fcfs`'s. GC,
//! DFTL's translation pages and transactions of no flow (a write unit's own
//! reads) go to the tail of their queues and are never moved; transactions
//! of a flow may move ahead of them.
//!
//! The state (each transaction's flow, queueing time and estimates, each
//! queue's low-intensity part, each die's counts, round-robin turns and
//! GC bookkeeping) is the policy's own (the slots' classes are kept beside
//! the queues); `check_flin` is the consistency checker's part.

use std::collections::VecDeque;

use crate::config::{Config, Requirement, SchedPolicy};
use crate::engine::Time;
use crate::flash::FlashTiming;
use crate::sched::{Class, ClassOrder};
use crate::sim::Simulator;
use crate::types::TxnId;

/// The flow of a transaction of no flow.
pub(crate) const NONE: u32 = u32::MAX;

/// The epoch of flow classification (µs), the intensities above which a
/// flow is high-intensity (reads MiB/s, writes KiB/s over the drive) and
/// the fairness threshold F_thr: the values the authors' simulator (MQSim)
/// constructs FLIN with.
pub const EPOCH_US: f64 = 10_000.0;
pub const ALPHA_READ_MIB_S: f64 = 32.0;
pub const ALPHA_WRITE_KIB_S: f64 = 256.0;
pub const FAIRNESS_THRESHOLD: f64 = 0.6;

/// What FLIN knows of a transaction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) flow: u32,
    /// When it was queued.
    pub(crate) at: Time,
    /// Its service time.
    pub(crate) cost: Time,
    /// Its estimated time alone, from `at` to its completion.
    pub(crate) alone: Time,
    /// Queued as a low-intensity flow's (in its queue's low part).
    pub(crate) low: bool,
    /// Moved forward: nothing moves ahead of it.
    pub(crate) barrier: bool,
}

const BLANK: Entry = Entry {
    flow: NONE,
    at: 0,
    cost: 0,
    alone: 0,
    low: false,
    barrier: false,
};

/// A die's counts of each flow's queued transactions in the current epoch
/// (reads, writes) and each flow's class from the last.
struct DieFlows {
    epoch: u64,
    count: [Vec<u32>; 2],
    high: [Vec<bool>; 2],
}

pub(crate) struct Flin {
    /// Two flows or more: the stages act.
    pub(crate) active: bool,
    flows: usize,
    epoch: Time,
    /// α as transactions per die and epoch: reads, writes.
    alpha: [f64; 2],
    f_thr: f64,
    /// Service time of a read, of a program.
    pub(crate) cost: [Time; 2],
    pub(crate) entry: Vec<Entry>,
    /// Per queue (`plane * 3 + class`): its low-intensity transactions, at
    /// its front.
    pub(crate) low: Vec<u32>,
    dies: Vec<DieFlows>,
    /// Stage 2: each flow's priority class (0 urgent, 1 high, 2 medium, 3
    /// low) under weighted round robin; empty without classes.
    prio: Vec<u8>,
    /// The weights of the high, medium and low classes.
    weights: [u32; 3],
    /// Per die, per slot (read, write): the high, medium and low classes'
    /// turns left in the current round.
    pub(crate) turns: Vec<[[u32; 3]; 2]>,
    /// Stage 3's GC term, per die.
    pub(crate) gc: Vec<DieGc>,
    /// Service time of a GC erase.
    erase_cost: Time,
    /// Transactions moved forward, and moved by ReorderForFairness.
    pub(crate) moved_forward: u64,
    pub(crate) reordered: u64,
}

/// A die's GC bookkeeping for stage 3: each flow's host writes since the
/// die's GC queues last emptied, and the GC transactions dispatched since
/// its last host write.
#[derive(Clone, Debug, Default)]
pub(crate) struct DieGc {
    /// Host writes dispatched per flow, and in all (of a flow).
    pub(crate) writes: Vec<u64>,
    pub(crate) total: u64,
    /// GC transactions dispatched since the die's last host write: those
    /// gone ahead of its write slot.
    pub(crate) ahead: u32,
}

/// The parameters' values (the configuration's, else the defaults).
pub(crate) fn params(c: &Config) -> (f64, f64, f64, f64) {
    (
        c.sched.flin_epoch_us.unwrap_or(EPOCH_US),
        c.sched.flin_alpha_read_mib_s.unwrap_or(ALPHA_READ_MIB_S),
        c.sched.flin_alpha_write_kib_s.unwrap_or(ALPHA_WRITE_KIB_S),
        c.sched
            .flin_fairness_threshold
            .unwrap_or(FAIRNESS_THRESHOLD),
    )
}

impl Flin {
    pub(crate) fn new(cfg: &Config) -> Flin {
        let t = FlashTiming::new(cfg);
        let (epoch_us, a_read, a_write, f_thr) = params(cfg);
        let dies = cfg.total_dies() as usize;
        let flows = cfg.flows.len();
        let mean = |v: &[Time; 3]| -> Time {
            let n = t.page_type.len().max(1) as u128;
            let s: u128 = t.page_type.iter().map(|&k| v[k as usize] as u128).sum();
            (s / n) as Time
        };
        let fixed = t.xfer_ns + t.cmd_ns;
        let epoch_s = epoch_us * 1e-6;
        let page = cfg.geometry.page_size_bytes as f64;
        let per_die = |bytes_per_s: f64| bytes_per_s * epoch_s / dies as f64 / page;
        let wrr = cfg
            .queues
            .is_some_and(|q| q.arbitration == crate::config::Arbitration::Wrr);
        let weights = cfg.queues.unwrap_or_default().weights;
        let weights = [weights.high, weights.medium, weights.low];
        Flin {
            active: flows >= 2,
            flows,
            epoch: ((epoch_us * 1e3).round() as Time).max(1),
            alpha: [per_die(a_read * 1024.0 * 1024.0), per_die(a_write * 1024.0)],
            f_thr,
            cost: [
                (mean(&t.read_ns) + fixed).max(1),
                (mean(&t.program_ns) + fixed).max(1),
            ],
            entry: Vec::new(),
            low: vec![0; cfg.total_planes() as usize * 3],
            dies: (0..dies)
                .map(|_| DieFlows {
                    epoch: 0,
                    count: [vec![0; flows], vec![0; flows]],
                    high: [vec![false; flows], vec![false; flows]],
                })
                .collect(),
            prio: if wrr && flows >= 2 {
                cfg.flows.iter().map(|f| prio_index(f.priority)).collect()
            } else {
                Vec::new()
            },
            weights,
            turns: vec![[weights; 2]; dies],
            gc: vec![
                DieGc {
                    writes: vec![0; flows],
                    ..DieGc::default()
                };
                dies
            ],
            erase_cost: (t.erase_ns + t.cmd_ns).max(1),
            moved_forward: 0,
            reordered: 0,
        }
    }

    /// Priority classes per host queue: 4 with weighted round robin among
    /// the flows' classes, else 1.
    pub(crate) fn prios(&self) -> u32 {
        if self.prio.is_empty() {
            1
        } else {
            4
        }
    }

    /// The priority class of transaction `t`'s queue: its flow's (0 without
    /// classes); a transaction of no flow (DFTL's translation pages, a
    /// write unit's own reads) the urgent class's, as the drive's own work.
    pub(crate) fn prio_of(&self, t: TxnId) -> u32 {
        if self.prio.is_empty() {
            return 0;
        }
        match self.entry.get(t.0 as usize).map_or(NONE, |e| e.flow) {
            NONE => 0,
            f => self.prio[f as usize] as u32,
        }
    }

    /// Stage 2: the priority class that fills `die`'s slot `dir` (0 read,
    /// 1 write), given which classes have a head that may run (`ready`)
    /// and which have one at all (`queued`): urgent first; then the high,
    /// medium and low classes by weighted round robin — the first class in
    /// that order with turns left and a ready head; when no class with a
    /// ready head has turns left, a new round gives every class its weight
    /// again. A turn is taken when a transaction of the class is
    /// dispatched (`served`). With no ready head, the class the same rule
    /// picks among those with a head (the slot then waits).
    pub(crate) fn arbitrate(
        &mut self,
        die: usize,
        dir: usize,
        ready: [bool; 4],
        queued: [bool; 4],
    ) -> u32 {
        let pick = |turns: &[u32; 3], has: &[bool; 4]| -> Option<u32> {
            if has[0] {
                return Some(0);
            }
            (0..3)
                .find(|&c| turns[c] > 0 && has[c + 1])
                .map(|c| c as u32 + 1)
        };
        let turns = &mut self.turns[die][dir];
        for has in [&ready, &queued] {
            if let Some(c) = pick(turns, has) {
                return c;
            }
            if has[1..].iter().any(|&h| h) {
                // No class with a head has turns left: a new round.
                *turns = self.weights;
                return pick(turns, has).expect("a class with a head and turns");
            }
        }
        0
    }

    /// Transaction `t` of `class` (of priority class `prio`) was taken
    /// from a queue of die `die`; `gc_left`: GC transactions still queued
    /// on the die. A host transaction takes a turn of its class (stage 2);
    /// a host write counts for its flow's share of the writes since the
    /// die's GC queues last emptied, a GC transaction as one gone ahead of
    /// the die's write slot (stage 3).
    pub(crate) fn served(&mut self, die: usize, class: Class, prio: u32, t: TxnId, gc_left: usize) {
        match class {
            Class::Read | Class::Write => {
                if !self.prio.is_empty() && prio > 0 {
                    let dir = (class == Class::Write) as usize;
                    let n = &mut self.turns[die][dir][prio as usize - 1];
                    *n = n.saturating_sub(1);
                }
                if class == Class::Write {
                    let flow = self.entry.get(t.0 as usize).map_or(NONE, |e| e.flow);
                    let g = &mut self.gc[die];
                    g.ahead = 0;
                    if flow != NONE {
                        g.writes[flow as usize] += 1;
                        g.total += 1;
                    }
                }
            }
            Class::Gc => {
                let g = &mut self.gc[die];
                g.ahead = g.ahead.saturating_add(1);
                if gc_left == 0 {
                    g.writes.iter_mut().for_each(|w| *w = 0);
                    g.total = 0;
                }
            }
        }
    }

    /// Stage 3's GC share: of `pending` GC transactions on `die` (those
    /// queued and those gone ahead of its write slot), how many go before
    /// the write slot of flow `flow`: the flow's share of the die's host
    /// writes since its GC queues last emptied, rounded up (every one with
    /// no such writes, or for a write of no flow).
    pub(crate) fn gc_share(&self, die: usize, flow: u32, pending: u32) -> u32 {
        let g = &self.gc[die];
        if flow == NONE || g.total == 0 {
            return pending;
        }
        let w = g.writes[flow as usize];
        ((pending as u64 * w).div_ceil(g.total)) as u32
    }

    /// Stage 3 on die `d` with `pending` GC transactions queued (their
    /// service times summing to `gc_time`), its read slot and write slot
    /// (when queued, service time; the write's flow): the class order of
    /// its next command, None when FLIN does not act (no host slot). The
    /// slot with the larger proportional wait goes: the read slot before
    /// GC and host writes; the write slot after its flow's share
    /// (`gc_share`) of the die's GC — the GC transactions queued and those
    /// gone ahead of it since the die's last host write — before the rest.
    pub(crate) fn decide(
        &self,
        d: usize,
        pending: u32,
        gc_time: Time,
        read: Option<(Time, Time)>,
        write: Option<(Time, Time, u32)>,
        now: Time,
    ) -> Option<[Class; 3]> {
        const GC_FIRST: [Class; 3] = [Class::Gc, Class::Write, Class::Read];
        const WRITE_FIRST: [Class; 3] = [Class::Write, Class::Gc, Class::Read];
        const READ_FIRST: [Class; 3] = [Class::Read, Class::Gc, Class::Write];
        let read_first = match (read, write) {
            (None, None) => return None,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(r), Some((at, c, _))) => Flin::read_first(r, (at, c), gc_time, now),
        };
        if read_first {
            return Some(READ_FIRST);
        }
        if pending == 0 {
            return Some(GC_FIRST);
        }
        let ahead = self.gc[d].ahead;
        let flow = write.expect("a write slot").2;
        if ahead < self.gc_share(d, flow, pending.saturating_add(ahead)) {
            Some(GC_FIRST)
        } else {
            Some(WRITE_FIRST)
        }
    }

    /// Service time of a queued GC transaction of kind `kind`.
    pub(crate) fn gc_cost(&self, kind: crate::flash::CmdKind) -> Time {
        use crate::flash::CmdKind;
        match kind {
            CmdKind::Read => self.cost[0],
            CmdKind::Program => self.cost[1],
            CmdKind::Copyback => self.cost[0] + self.cost[1],
            CmdKind::Erase => self.erase_cost,
        }
    }

    /// Transaction `t` was created: of no flow yet.
    #[inline]
    pub(crate) fn created(&mut self, t: TxnId) {
        let i = t.0 as usize;
        if i >= self.entry.len() {
            self.entry.resize(i + 1, BLANK);
        }
        self.entry[i] = BLANK;
    }

    /// Transaction `t` is flow `flow`'s.
    #[inline]
    pub(crate) fn tag(&mut self, t: TxnId, flow: u32) {
        self.created_if_new(t);
        self.entry[t.0 as usize].flow = flow;
    }

    fn created_if_new(&mut self, t: TxnId) {
        if t.0 as usize >= self.entry.len() {
            self.created(t);
        }
    }

    #[inline]
    fn e(&self, t: TxnId) -> &Entry {
        &self.entry[t.0 as usize]
    }

    /// Is `flow` high-intensity in direction `dir` (0 reads, 1 writes) on
    /// `die` now? Counts its transaction queued now.
    fn classify(&mut self, die: usize, dir: usize, flow: usize, now: Time) -> bool {
        let e = now / self.epoch;
        let d = &mut self.dies[die];
        if d.epoch != e {
            // The last epoch's counts classify the flows of this one (an
            // epoch further back: nothing was queued in the last).
            let last = e == d.epoch + 1;
            for k in 0..2 {
                for g in 0..self.flows {
                    d.high[k][g] = last && d.count[k][g] as f64 > self.alpha[k];
                    d.count[k][g] = 0;
                }
            }
            d.epoch = e;
        }
        d.count[dir][flow] += 1;
        d.high[dir][flow]
    }

    /// Insert host transaction `t` of direction `dir` into queue `q` (index
    /// `qi`) of die `die`, now (stage 1).
    pub(crate) fn insert(
        &mut self,
        q: &mut VecDeque<TxnId>,
        qi: usize,
        die: usize,
        dir: usize,
        t: TxnId,
        now: Time,
    ) {
        self.created_if_new(t);
        let cost = self.cost[dir];
        let flow = {
            let e = &mut self.entry[t.0 as usize];
            e.at = now;
            e.cost = cost;
            e.alone = cost;
            e.low = false;
            e.barrier = false;
            e.flow
        };
        if !self.active || flow == NONE {
            q.push_back(t);
            return;
        }
        let high = self.classify(die, dir, flow as usize, now);
        let lo = self.low[qi] as usize;
        if !high {
            q.insert(lo, t);
            self.low[qi] += 1;
            self.entry[t.0 as usize].low = true;
            self.estimate_alone(q, lo, now);
            self.reorder(q, 0, lo, now);
        } else {
            q.push_back(t);
            let idx = q.len() - 1;
            self.estimate_alone(q, idx, now);
            let (f, worst) = self.fairness(q, lo, now);
            if f < self.f_thr && worst == flow {
                self.move_forward(q, lo, idx);
            } else {
                self.reorder(q, lo, idx, now);
            }
        }
    }

    /// EstimateAloneWaitingTime: the time alone of the transaction at
    /// `idx`: its service time after the estimated alone completion of its
    /// flow's last transaction ahead of it.
    fn estimate_alone(&mut self, q: &VecDeque<TxnId>, idx: usize, now: Time) {
        let t = q[idx];
        let (flow, c) = (self.e(t).flow, self.e(t).cost);
        let prev = (0..idx)
            .rev()
            .map(|j| q[j])
            .find(|&u| self.e(u).flow == flow);
        let alone = match prev {
            Some(u) => {
                let end = self.e(u).at + self.e(u).alone;
                (end + c).saturating_sub(now).max(c)
            }
            None => c,
        };
        self.entry[t.0 as usize].alone = alone;
    }

    /// Estimated slowdown of a transaction: (queued so far + `ahead`, the
    /// service times up to and including its own) over its time alone.
    #[inline]
    fn slowdown(e: &Entry, ahead: Time, now: Time) -> f64 {
        (now.saturating_sub(e.at) + ahead) as f64 / e.alone as f64
    }

    /// FairnessBasedOnAverageSlowdown over `q[lo..]`: the smallest over the
    /// largest of its flows' average estimated slowdowns, and the flow of
    /// the largest (fairness 1 with fewer than two flows there).
    fn fairness(&self, q: &VecDeque<TxnId>, lo: usize, now: Time) -> (f64, u32) {
        let mut sum = vec![(0.0f64, 0u32); self.flows];
        let mut ahead: Time = 0;
        for (j, &u) in q.iter().enumerate() {
            let e = self.e(u);
            ahead += e.cost;
            if j >= lo && e.flow != NONE {
                let s = &mut sum[e.flow as usize];
                s.0 += Self::slowdown(e, ahead, now);
                s.1 += 1;
            }
        }
        let (mut min, mut max, mut worst, mut n) = (f64::INFINITY, 0.0f64, NONE, 0);
        for (g, &(s, k)) in sum.iter().enumerate() {
            if k == 0 {
                continue;
            }
            n += 1;
            let avg = s / k as f64;
            min = min.min(avg);
            if avg > max {
                max = avg;
                worst = g as u32;
            }
        }
        if n < 2 {
            return (1.0, worst);
        }
        (min / max, worst)
    }

    /// How far back the transaction at `idx` may move within `q[lo..]`: not
    /// past a transaction of its own flow or one moved forward.
    fn reach(&self, q: &VecDeque<TxnId>, lo: usize, idx: usize) -> usize {
        let flow = self.e(q[idx]).flow;
        let mut p = idx;
        while p > lo {
            let e = self.e(q[p - 1]);
            if e.flow == flow || e.barrier {
                break;
            }
            p -= 1;
        }
        p
    }

    /// MoveForward: the transaction at `idx` as far forward as it may go
    /// within `q[lo..]`, tagged if it moved.
    fn move_forward(&mut self, q: &mut VecDeque<TxnId>, lo: usize, idx: usize) {
        let p = self.reach(q, lo, idx);
        if p < idx {
            let t = q.remove(idx).expect("in the queue");
            q.insert(p, t);
            self.entry[t.0 as usize].barrier = true;
            self.moved_forward += 1;
        }
    }

    /// ReorderForFairness: the transaction at `idx` to the place within
    /// `q[lo..=idx]` where the fairness of `q[lo..=idx]` is largest (the
    /// latest such place).
    fn reorder(&mut self, q: &mut VecDeque<TxnId>, lo: usize, idx: usize, now: Time) {
        let p_min = self.reach(q, lo, idx);
        if p_min == idx {
            return;
        }
        let p = best_place(
            &q.range(..idx).map(|&u| *self.e(u)).collect::<Vec<_>>(),
            self.e(q[idx]),
            lo,
            p_min,
            now,
        );
        if p < idx {
            let t = q.remove(idx).expect("in the queue");
            q.insert(p, t);
            self.reordered += 1;
        }
    }

    /// Stage 3: does the read slot go before the write slot? Each slot is
    /// (when queued, service time); `gc` the die's pending GC time; the
    /// read on a tie.
    pub(crate) fn read_first(read: (Time, Time), write: (Time, Time), gc: Time, now: Time) -> bool {
        let pw = |(at, c): (Time, Time), other: Time| {
            (now.saturating_sub(at) + other + gc) as f64 / c.max(1) as f64
        };
        pw(read, write.1) >= pw(write, read.1)
    }
}

/// A flow's priority class as stage 2's index: 0 urgent, 1 high, 2
/// medium, 3 low.
pub(crate) fn prio_index(p: crate::config::Priority) -> u8 {
    use crate::config::Priority;
    match p {
        Priority::Urgent => 0,
        Priority::High => 1,
        Priority::Medium => 2,
        Priority::Low => 3,
    }
}

/// Where a new transaction `new` queued behind `ahead` (the queue up to
/// it) goes within `lo..=ahead.len()`, no earlier than `p_min`: the place
/// where the fairness (smallest over largest estimated slowdown) of the
/// transactions of a flow from `lo` on, the new one included, is largest;
/// the latest such place.
pub(crate) fn best_place(
    ahead: &[Entry],
    new: &Entry,
    lo: usize,
    p_min: usize,
    now: Time,
) -> usize {
    let idx = ahead.len();
    let base: Time = ahead[..lo].iter().map(|e| e.cost).sum();
    let n = idx - lo;
    // Slowdowns of ahead[lo..] where they are, and one place later.
    let mut stay = Vec::with_capacity(n);
    let mut later = Vec::with_capacity(n);
    let mut before = Vec::with_capacity(n + 1); // service times ahead of place lo + k
    let mut cum = base;
    for e in &ahead[lo..] {
        before.push(cum);
        cum += e.cost;
        if e.flow == NONE {
            stay.push(None);
            later.push(None);
        } else {
            stay.push(Some(Flin::slowdown(e, cum, now)));
            later.push(Some(Flin::slowdown(e, cum + new.cost, now)));
        }
    }
    before.push(cum);
    // Suffix extremes of `later`.
    let mut suf = vec![(f64::INFINITY, 0.0f64); n + 1];
    for k in (0..n).rev() {
        suf[k] = match later[k] {
            Some(s) => (suf[k + 1].0.min(s), suf[k + 1].1.max(s)),
            None => suf[k + 1],
        };
    }
    // Prefix extremes of `stay`.
    let mut pre = vec![(f64::INFINITY, 0.0f64); n + 1];
    for k in 0..n {
        pre[k + 1] = match stay[k] {
            Some(s) => (pre[k].0.min(s), pre[k].1.max(s)),
            None => pre[k],
        };
    }
    let mut best = (f64::NEG_INFINITY, idx);
    for p in (p_min..=idx).rev() {
        let k = p - lo;
        let s_new = Flin::slowdown(new, before[k] + new.cost, now);
        let min = pre[k].0.min(suf[k].0).min(s_new);
        let max = pre[k].1.max(suf[k].1).max(s_new);
        let f = min / max;
        if f > best.0 {
            best = (f, p);
        }
    }
    best.1
}

/// What FLIN requires: flows, no other order of the write queues, and
/// writes queued page by page; its parameters' values.
pub(crate) fn requirements(c: &Config) -> Requirement {
    let set = [
        ("sched.flin_epoch_us", c.sched.flin_epoch_us),
        ("sched.flin_alpha_read_mib_s", c.sched.flin_alpha_read_mib_s),
        (
            "sched.flin_alpha_write_kib_s",
            c.sched.flin_alpha_write_kib_s,
        ),
        (
            "sched.flin_fairness_threshold",
            c.sched.flin_fairness_threshold,
        ),
    ];
    if c.sched.policy != SchedPolicy::Flin {
        if let Some((k, _)) = set.iter().find(|(_, v)| v.is_some()) {
            return Err((
                k,
                "is a parameter of FLIN: set sched.policy = \"flin\" too".into(),
            ));
        }
        return Ok(());
    }
    if c.flows.is_empty() {
        return Err((
            "sched.policy",
            "\"flin\" schedules fairly among flows: give [[flows]] (or --flow) too".into(),
        ));
    }
    if c.sched.pas {
        return Err((
            "sched.pas",
            "PAS orders the write queues by page type, FLIN by flow: not both".into(),
        ));
    }
    if c.ftl.write_unit != crate::config::WriteUnit::Page {
        return Err((
            "sched.policy",
            "\"flin\" reorders each plane's queues on its own (its stage 1 places a flow's transactions by fairness, its stage 2 keeps a queue per priority class), while a Die-Write's pages leave every plane's queue together: needs ftl.write_unit = \"page\"".into(),
        ));
    }
    for (k, v) in set {
        if let Some(v) = v {
            let ok = v.is_finite()
                && v > 0.0
                && (k != "sched.flin_fairness_threshold" || v <= 1.0)
                && (k != "sched.flin_epoch_us" || v <= 1e12);
            if !ok {
                return Err((
                    k,
                    if k == "sched.flin_fairness_threshold" {
                        format!("{v} is outside (0, 1]")
                    } else {
                        format!("{v} must be a positive number")
                    },
                ));
            }
        }
    }
    Ok(())
}

impl Simulator {
    /// Transaction `t` is flow `flow`'s (`NONE`: of no flow), under FLIN.
    #[inline]
    pub(crate) fn flin_tag(&mut self, t: TxnId, flow: u32) {
        if let Some(f) = self.sched.queues.flin.as_deref_mut() {
            f.tag(t, flow);
        }
    }

    /// Stage 2 on `die`: fill its read slot and its write slot, each from
    /// the priority class weighted round robin picks among those with a
    /// head that may run (`Flin::arbitrate`). Nothing to do without
    /// classes.
    pub(crate) fn flin_arbitrate(&mut self, die: crate::addr::DieId) {
        if self.sched.queues.prios() == 1 {
            return;
        }
        for (dir, class) in [(0, Class::Read), (1, Class::Write)] {
            let (mut ready, mut queued) = ([false; 4], [false; 4]);
            for c in 0..4u32 {
                // (`ready` may look at the die's heads of the class.)
                self.sched.queues.set_slot(die, dir, c);
                for p in die.planes(self.ppd) {
                    if let Some(t) = self.sched.queues.head_of(p, class, c) {
                        queued[c as usize] = true;
                        if self.ready(p, class, t).is_some() {
                            ready[c as usize] = true;
                            break;
                        }
                    }
                }
            }
            let f = self.sched.queues.flin.as_deref_mut().expect("FLIN");
            let c = f.arbitrate(die.index(), dir, ready, queued);
            self.sched.queues.set_slot(die, dir, c);
        }
    }

    /// Stage 3 on `die`: the class order of its next command, None when
    /// FLIN does not act (`Flin::decide`).
    pub(crate) fn flin_order(&mut self, die: crate::addr::DieId) -> Option<ClassOrder> {
        let (pending, gc_time) = {
            let f = self.sched.queues.flin.as_deref().filter(|f| f.active)?;
            self.sched
                .queues
                .gc_queued(die)
                .fold((0u32, 0 as Time), |(n, c), t| {
                    (n + 1, c + f.gc_cost(self.txns[t].kind))
                })
        };
        let oldest = |class: Class| {
            die.planes(self.ppd)
                .filter_map(|p| self.sched.queues.head(p, class))
                .min_by_key(|&t| self.txns[t].seq)
        };
        let (read, write) = (oldest(Class::Read), oldest(Class::Write));
        let now = self.engine.now();
        let f = self.sched.queues.flin.as_deref().expect("FLIN");
        let read = read.map(|t| (f.e(t).at, f.e(t).cost));
        let write = write.map(|t| (f.e(t).at, f.e(t).cost, f.e(t).flow));
        f.decide(die.index(), pending, gc_time, read, write, now)
            .map(|classes| ClassOrder {
                classes,
                strict: true,
            })
    }

    /// FLIN's invariants: every queued transaction is in one queue once; a
    /// queue's low-intensity part is at its front and holds only
    /// transactions queued as a low-intensity flow's; a queued host
    /// transaction's estimates are in order (queued no later than now, its
    /// time alone at least its service time).
    pub(crate) fn check_flin(&self) -> std::result::Result<(), String> {
        let Some(f) = self.sched.queues.flin.as_deref() else {
            return Ok(());
        };
        let now = self.engine.now();
        let prios = self.sched.queues.prios();
        let mut seen = vec![false; self.txns.len()];
        for (qi, plane, class, prio, q) in self.sched.queues.all() {
            for &t in q {
                if std::mem::replace(&mut seen[t.index()], true) {
                    return Err(format!("transaction {} is queued twice", t.0));
                }
            }
            if class == Class::Gc {
                if prio != 0 && !q.is_empty() {
                    return Err(format!(
                        "FLIN: plane {plane}'s GC queue of priority class {prio} holds {} transactions",
                        q.len()
                    ));
                }
                continue;
            }
            let low = f.low[qi] as usize;
            if low > q.len() {
                return Err(format!(
                    "FLIN: queue {qi} has a low-intensity part of {low} in {} transactions",
                    q.len()
                ));
            }
            for (j, &t) in q.iter().enumerate() {
                let Some(e) = f.entry.get(t.index()) else {
                    return Err(format!("FLIN: queued transaction {} has no entry", t.0));
                };
                if f.prio_of(t) != prio {
                    return Err(format!(
                        "FLIN: transaction {} of priority class {} in plane {plane}'s {class:?} \
                         queue of class {prio}",
                        t.0,
                        f.prio_of(t)
                    ));
                }
                if e.low != (j < low) {
                    return Err(format!(
                        "FLIN: queue {qi}: transaction {} at {j} is {}a low-intensity flow's, \
                         the low-intensity part being {low} long",
                        t.0,
                        if e.low { "" } else { "not " }
                    ));
                }
                if e.at > now || e.alone < e.cost || e.cost == 0 {
                    return Err(format!(
                        "FLIN: transaction {} queued at {} (now {now}), service {} ns, alone {} ns",
                        t.0, e.at, e.cost, e.alone
                    ));
                }
            }
        }
        for die in crate::addr::DieId::all(self.flash.dies.len() as u32) {
            let d = die.index();
            for dir in 0..2 {
                let c = self.sched.queues.slot(die, dir);
                if c >= prios {
                    return Err(format!(
                        "FLIN: die {die}'s slot {dir} on priority class {c} of {prios}"
                    ));
                }
                for (k, (&n, &w)) in f.turns[d][dir].iter().zip(&f.weights).enumerate() {
                    if n > w {
                        return Err(format!(
                            "FLIN: die {die}'s slot {dir}: class {} has {n} turns left, weight {w}",
                            k + 1
                        ));
                    }
                }
            }
            let g = &f.gc[d];
            let sum: u64 = g.writes.iter().sum();
            if sum != g.total {
                return Err(format!(
                    "FLIN: die {die}: host writes since its last GC by flow sum to {sum}, in all {}",
                    g.total
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(flow: u32, at: Time, cost: Time, alone: Time) -> Entry {
        Entry {
            flow,
            at,
            cost,
            alone,
            low: false,
            barrier: false,
        }
    }

    /// A new transaction of a flow whose transactions all wait behind
    /// another flow's moves ahead when that evens the slowdowns.
    #[test]
    fn reorder_moves_a_starved_flow_ahead() {
        // Flow 0: three transactions queued at 0, each alone after the one
        // before (alone 10, 20, 30). Flow 1: a new one (alone 10) at 0.
        let ahead = [
            entry(0, 0, 10, 10),
            entry(0, 0, 10, 20),
            entry(0, 0, 10, 30),
        ];
        let new = entry(1, 0, 10, 10);
        // At the tail: slowdowns 1, 1, 1 and 40/10 = 4: fairness 0.25.
        // At place 2: 1, 1, 40/30 and 30/10 = 3: 1/3. At place 1: 1, 30/20,
        // 40/30 and 20/10 = 2: 0.5. At 0: 20/10, 30/20, 40/30 and 1: 0.5 —
        // the latest of the best places is 1.
        assert_eq!(best_place(&ahead, &new, 0, 0, 0), 1);
        // It never goes past what it may not pass.
        assert_eq!(best_place(&ahead, &new, 0, 3, 0), 3);
    }

    /// A flow's own transactions keep their order: a lone flow's new
    /// transaction stays at the tail.
    #[test]
    fn one_flow_keeps_its_order() {
        let ahead = [entry(0, 0, 10, 10), entry(0, 0, 10, 20)];
        let new = entry(0, 0, 10, 30);
        assert_eq!(best_place(&ahead, &new, 0, 2, 0), 2);
    }

    fn two_flows(wrr: bool) -> Flin {
        let mut c = Config::preset("small").unwrap();
        c.sched.policy = SchedPolicy::Flin;
        c.flows = ["a", "b"]
            .iter()
            .map(|n| crate::config::FlowConfig {
                queue_depth: 8,
                ..crate::config::FlowConfig::of_workload(n)
            })
            .collect();
        if wrr {
            c.queues = Some(crate::config::Queues {
                arbitration: crate::config::Arbitration::Wrr,
                ..Default::default()
            });
        }
        Flin::new(&c)
    }

    /// Stage 2: weights 4 / 2 / 1, every class ready: urgent while it is;
    /// then four high, two medium, one low, round after round; a class
    /// without a ready head gives up its turns.
    #[test]
    fn weighted_round_robin_fills_a_slot() {
        let mut f = two_flows(true);
        assert_eq!(f.prios(), 4);
        let mut picks = |ready: [bool; 4], n: usize| -> Vec<u32> {
            (0..n)
                .map(|_| {
                    let c = f.arbitrate(0, 0, ready, ready);
                    f.served(0, Class::Read, c, TxnId(0), 0);
                    c
                })
                .collect()
        };
        assert_eq!(picks([true; 4], 3), [0, 0, 0]);
        let all = [false, true, true, true];
        assert_eq!(picks(all, 14), [1, 1, 1, 1, 2, 2, 3, 1, 1, 1, 1, 2, 2, 3]);
        assert_eq!(picks([false, false, true, true], 4), [2, 2, 3, 2]);
        // Without classes (round robin) every transaction is in class 0.
        assert_eq!(two_flows(false).prios(), 1);
    }

    /// Stage 3's GC share: flow a wrote 3 of the die's 4 host writes since
    /// its GC queues emptied; of 8 pending GC transactions 6 go before a's
    /// write slot, 2 before b's; with no writes, all of them.
    #[test]
    fn gc_share_follows_the_writes() {
        let mut f = two_flows(false);
        assert_eq!(f.gc_share(0, 0, 8), 8);
        for (i, g) in [0u32, 0, 1, 0].into_iter().enumerate() {
            f.tag(TxnId(i as u32), g);
            f.served(0, Class::Write, 0, TxnId(i as u32), 0);
        }
        assert_eq!(f.gc_share(0, 0, 8), 6);
        assert_eq!(f.gc_share(0, 1, 8), 2);
        assert_eq!(f.gc_share(0, 1, 3), 1);
        assert_eq!(f.gc_share(0, NONE, 3), 3);
        // The die's GC queues empty: the count starts again.
        f.served(0, Class::Gc, 0, TxnId(0), 0);
        assert_eq!(f.gc[0].total, 0);
    }

    /// Stage 3, by hand: read 35 µs, program 1 510 µs. A read queued now
    /// beside a program queued 60 ms ago: PW read = 1 510 / 35 = 43.1, PW
    /// write = 60 035 / 1 510 = 39.8: the read. At 70 ms: 46.4, the write.
    #[test]
    fn wait_balancing_by_hand() {
        let us = 1_000;
        let now = 70_000 * us;
        let read = (now, 35 * us);
        assert!(Flin::read_first(
            read,
            (now - 60_000 * us, 1_510 * us),
            0,
            now
        ));
        assert!(!Flin::read_first(
            read,
            (now - 70_000 * us, 1_510 * us),
            0,
            now
        ));
        // A tie goes to the read.
        assert!(Flin::read_first((0, 10), (0, 10), 0, 0));
    }
}
