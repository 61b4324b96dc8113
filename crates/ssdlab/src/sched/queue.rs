//! Queueing transactions and waking the dies that got work.

use crate::addr::{DieId, PlaneId};
use crate::config::Config;
use crate::flash::{CmdKind, Origin};
use crate::sched::Class;
use crate::sched::Queues;
use crate::sim::Simulator;
use crate::types::TxnId;

/// The scheduler's state: the queues, the dies that got work during the
/// current event (dispatched together after it), and the sequence number
/// that orders transactions.
pub(crate) struct Sched {
    pub(crate) queues: Queues,
    pub(crate) kicked: Vec<DieId>,
    pub(crate) kick_flag: Vec<bool>,
    pub(crate) seq: u64,
}

impl Sched {
    pub(crate) fn new(cfg: &Config) -> Sched {
        Sched {
            queues: {
                let q = Queues::new(
                    cfg.total_planes(),
                    cfg.geometry.planes_per_die,
                    cfg.sched.policy,
                );
                let q = if cfg.sched.pas {
                    q.with_pas(cfg.sched.pas_preemptions)
                } else {
                    q
                };
                if cfg.sched.policy == crate::config::SchedPolicy::Flin {
                    q.with_flin(crate::sched::flin::Flin::new(cfg))
                } else {
                    q
                }
            },
            kicked: Vec::new(),
            kick_flag: vec![false; cfg.total_dies() as usize],
            seq: 0,
        }
    }
}

impl Simulator {
    pub(crate) fn enqueue(&mut self, plane: PlaneId, class: Class, t: TxnId) {
        self.sched.seq += 1;
        let d = self.ftl.map.die_of_plane(plane);
        let now = self.engine.now();
        let mark = self.gc.clock(d, now);
        let tx = &mut self.txns[t];
        if let (Some(a), Origin::Host) = (&mut self.attr, tx.origin) {
            a.queued(t, d.index(), now);
        }
        tx.seq = self.sched.seq;
        if tx.origin == Origin::Host && tx.kind == CmdKind::Program {
            tx.queued_at = now;
            tx.gc_mark = mark;
        }
        if class == Class::Write && self.cfg.sched.pas {
            // PAS orders by the type the write wants (known at enqueue; the
            // page, and so its actual type, is chosen at dispatch).
            let ty = self.wanted_lane(t);
            self.sched.queues.push_write(plane, t, ty);
        } else if class != Class::Gc && self.sched.queues.flin.is_some() {
            self.sched.queues.push_flin(plane, class, t, now);
        } else {
            self.sched.queues.push(plane, class, t);
        }
        self.kick(d);
        // A read queued on a busy die may suspend its program or erase.
        if class == Class::Read && self.flash.susp.is_some() && self.flash.dies[d.index()].busy {
            self.request_suspend(d);
        }
    }

    #[inline]
    pub(crate) fn kick(&mut self, die: DieId) {
        if !self.sched.kick_flag[die.index()] {
            self.sched.kick_flag[die.index()] = true;
            self.sched.kicked.push(die);
        }
    }

    /// Dispatch on the next die that got new work during the current event
    /// (if it is idle); false if none is left. The event loop calls it at
    /// the end of each event, so that work queued together can be joined
    /// into multi-plane commands.
    #[inline]
    pub(crate) fn dispatch_kicked(&mut self) -> bool {
        let Some(d) = self.sched.kicked.pop() else {
            return false;
        };
        self.sched.kick_flag[d] = false;
        if !self.flash.dies[d].busy {
            self.dispatch(d);
        } else if let Some(c) = &self.flash.cache {
            // Cache program: a busy die may take a program into its cache
            // registers.
            if c.program && c.open(d, self.engine.now()) {
                self.dispatch_cached_program(d);
            }
        }
        true
    }
}
