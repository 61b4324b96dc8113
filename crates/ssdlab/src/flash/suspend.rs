//! Program and erase suspension (`flash.suspension`; Wu and He, "Reducing
//! SSD Read Latency via NAND Flash Program and Erase Suspension", FAST
//! 2012): a read queued on a die busy with a program or an erase suspends
//! it, the die serves the read, and the operation resumes with the array
//! time it had left.
//!
//! - **When.** A read queued in a die's read queues (a host page read, or
//!   DFTL's translation read on its way) while the die runs an operation
//!   the configuration lets be suspended (`program`: a program of any
//!   origin, or a copyback in its program phase; `erase`) asks for a
//!   suspension (`request_suspend`). The operation stops at the later of
//!   now and the start of its array phase (a program's data is in, an
//!   erase's command cycles are done, a copyback's source is read): then a
//!   `Suspend` event fires (`on_suspend`). It is not suspended if it has
//!   no more array time left than the suspend latency (waiting is then as
//!   fast), or it was suspended `max_per_op` times already (the read waits
//!   for it to end), or no read is ready when it would stop (held by
//!   `gc.hold_die`).
//! - **The reads.** The whole die command stops (every plane of a
//!   multi-plane program or erase, every copyback of a multi-register
//!   command): the die's record takes a read command built from its read
//!   queues by the command builder, reads only (multi-plane reads as
//!   usual), which starts after the suspend latency and takes no plane
//!   register (the operation keeps its own). When it ends, the next ready
//!   reads run in the same suspension (Wu and He serve the pending reads
//!   before resuming), without another suspend latency, until none is ready.
//! - **Resume.** Then the operation runs again after the resume latency and
//!   ends when the array time it had left at the suspension has passed.
//!   Its first completion event is stale: the die's epoch moved on at the
//!   suspension, and the `DieDone` scheduled now carries the new one.
//!
//! The counters (suspensions of programs and erases, time suspended, pages
//! read suspended) are `Metrics::suspension`; the consistency checker
//! verifies every die's state (`check_suspensions`).

use crate::addr::DieId;
use crate::config::Config;
use crate::engine::{EventKind, Time, TAG_MASK};
use crate::flash::executor::Die;
use crate::flash::{CmdKind, Origin};
use crate::sim::Simulator;

/// Where a die's operation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// No operation that may be suspended runs.
    Idle,
    /// One runs.
    Running,
    /// One runs, and will stop for reads (a `Suspend` event is due).
    Pending,
    /// One is suspended: the die serves reads.
    Suspended,
}

/// A die's operation, for suspension.
#[derive(Clone, Copy)]
struct DieSusp {
    state: State,
    /// An erase (else a program or a copyback).
    erase: bool,
    /// GC's (for the die's clock of latency attribution when it resumes).
    gc: bool,
    /// It may be suspended from `from` (its array phase runs) to `end`.
    from: Time,
    end: Time,
    /// Its array time in all.
    full: Time,
    /// Suspensions of it so far, and the time it spent suspended.
    count: u32,
    total: Time,
    /// While suspended: its command, when it stopped, the array time it had
    /// left, and the delay before the next read starts (the suspend
    /// latency, for the first read of the suspension).
    saved: Option<Die>,
    at: Time,
    remaining: Time,
    delay: Time,
}

impl DieSusp {
    const IDLE: DieSusp = DieSusp {
        state: State::Idle,
        erase: false,
        gc: false,
        from: 0,
        end: 0,
        full: 0,
        count: 0,
        total: 0,
        saved: None,
        at: 0,
        remaining: 0,
        delay: 0,
    };
}

/// The state of suspension: the configuration's times, and per die its
/// operation and the epoch its `DieDone` events carry.
pub(crate) struct Suspensions {
    program: bool,
    erase: bool,
    program_ns: Time,
    erase_ns: Time,
    resume_ns: Time,
    /// Most suspensions of one operation (0: no limit).
    max: u32,
    dies: Vec<DieSusp>,
    /// Per die: advanced at each suspension, so that the suspended
    /// operation's first `DieDone` is recognised as stale.
    pub(crate) epoch: Vec<u32>,
}

/// What a `DieDone` that fired means.
pub(crate) enum Done {
    /// Nothing: the operation it ended was suspended since.
    Stale,
    /// A read command a suspension served ended.
    Read,
    /// The die's command ended; an operation that was suspended spent this
    /// long suspended.
    Command(Time),
}

fn ns(us: f64) -> Time {
    (us * 1000.0).round() as Time
}

impl Suspensions {
    /// The state for `cfg`, or None when it suspends nothing.
    pub(crate) fn new(cfg: &Config) -> Option<Box<Suspensions>> {
        let c = &cfg.flash.suspension;
        if c.is_off() {
            return None;
        }
        let dies = cfg.total_dies() as usize;
        Some(Box::new(Suspensions {
            program: c.program,
            erase: c.erase,
            program_ns: ns(c.program_suspend_us),
            erase_ns: ns(c.erase_suspend_us),
            resume_ns: ns(c.resume_us),
            max: c.max_per_op,
            dies: vec![DieSusp::IDLE; dies],
            epoch: vec![0; dies],
        }))
    }

    /// A command starts on `die` at `now`: when its work starts (after the
    /// suspend latency for the first read of a suspension), and whether it
    /// is a read a suspension serves.
    #[inline]
    pub(crate) fn reading(&mut self, die: DieId, now: Time) -> (Time, bool) {
        let d = &mut self.dies[die.index()];
        if d.state == State::Suspended {
            (now + std::mem::take(&mut d.delay), true)
        } else {
            (now, false)
        }
    }

    /// A `DieDone` of `die` carrying `epoch` fired: what it means. The end
    /// of a command leaves the die with no operation.
    #[inline]
    pub(crate) fn done(&mut self, die: DieId, epoch: u32) -> Done {
        let i = die.index();
        if epoch != self.epoch[i] {
            return Done::Stale;
        }
        let d = &mut self.dies[i];
        if d.state == State::Suspended {
            return Done::Read;
        }
        let total = d.total;
        *d = DieSusp::IDLE;
        Done::Command(total)
    }
}

impl Simulator {
    /// A command of `origin` started on `die`: a program or copyback
    /// (`erase` false) or an erase whose array phase runs from `from` to
    /// `end`. It may be suspended if the configuration says so.
    #[inline]
    pub(crate) fn suspendable(
        &mut self,
        die: DieId,
        origin: Origin,
        erase: bool,
        from: Time,
        end: Time,
    ) {
        if let Some(s) = &mut self.flash.susp {
            if (erase && s.erase) || (!erase && s.program) {
                s.dies[die.index()] = DieSusp {
                    state: State::Running,
                    erase,
                    gc: origin == Origin::Gc,
                    from,
                    end,
                    full: end - from,
                    ..DieSusp::IDLE
                };
            }
        }
    }

    /// A read was queued on `die`, which is busy: if its operation may be
    /// suspended for it, the suspension is due where the operation can
    /// stop (module documentation).
    pub(crate) fn request_suspend(&mut self, die: DieId) {
        let now = self.engine.now();
        let Some(s) = &mut self.flash.susp else {
            return;
        };
        let d = &mut s.dies[die.index()];
        if d.state != State::Running || (s.max > 0 && d.count >= s.max) {
            return;
        }
        let at = now.max(d.from);
        let latency = if d.erase { s.erase_ns } else { s.program_ns };
        if d.end.saturating_sub(at) <= latency {
            return;
        }
        d.state = State::Pending;
        self.engine.schedule(at, EventKind::Suspend, die.0);
    }

    /// `die`'s operation reached the point where it stops for the reads
    /// queued: it is suspended and the die serves them, or, if none is
    /// ready now, it runs on.
    pub(crate) fn on_suspend(&mut self, die: DieId) {
        let now = self.engine.now();
        let i = die.index();
        let ready = self.reads_ready(die);
        let s = self
            .flash
            .susp
            .as_mut()
            .expect("a suspension has its state");
        let d = &mut s.dies[i];
        assert_eq!(d.state, State::Pending, "die {die} suspended unasked");
        if !ready {
            d.state = State::Running;
            return;
        }
        let op = self.flash.dies[i];
        assert!(
            op.busy && now < d.end,
            "die {die} suspended an ended command"
        );
        d.state = State::Suspended;
        d.saved = Some(op);
        d.at = now;
        d.remaining = d.end - now;
        d.count += 1;
        d.delay = if d.erase { s.erase_ns } else { s.program_ns };
        let erase = d.erase;
        s.epoch[i] = (s.epoch[i] + 1) & TAG_MASK;
        if let Some(m) = &mut self.metrics.suspension {
            if erase {
                m.erases += 1;
            } else {
                m.programs += 1;
            }
        }
        self.flash.dies[i].busy = false;
        self.metrics.planes_busy(now, -(op.n as i32));
        self.dispatch_reads(die);
        assert!(
            self.flash.dies[i].busy,
            "a suspension on die {die} served no read"
        );
    }

    /// A read command a suspension served on `die` ended: its reads
    /// complete; then the next ready reads run, or the operation resumes.
    pub(crate) fn suspended_read_done(&mut self, die: DieId) {
        let now = self.engine.now();
        let i = die.index();
        let d = self.flash.dies[i];
        assert!(d.busy, "die {die} finished a read it was not running");
        self.metrics.planes_busy(now, -(d.n as i32));
        self.flash.dies[i].busy = false;
        for &t in &d.txns[d.finished as usize..d.n as usize] {
            self.finish_txn(t);
        }
        if self.reads_ready(die) {
            self.dispatch_reads(die);
            return;
        }
        let s = self
            .flash
            .susp
            .as_mut()
            .expect("a suspension has its state");
        let back = now + s.resume_ns;
        let sd = &mut s.dies[i];
        let op = sd.saved.take().expect("a suspended operation");
        let window = back - sd.at;
        sd.total += window;
        sd.from = back;
        sd.end = back + sd.remaining;
        sd.state = State::Running;
        let (end, gc) = (sd.end, sd.gc);
        self.flash.dies[i] = op;
        self.metrics.planes_busy(now, op.n as i32);
        if let Some(m) = &mut self.metrics.suspension {
            m.suspended_ns += window as u128;
        }
        if let Some(a) = &mut self.attr {
            a.die_busy(i, gc, now);
        }
        self.die_done_at(end, die);
    }

    /// Consistency checker: every die's suspension state. A suspended
    /// operation is a running command (one per die: its slot), with array
    /// time left (positive, at most its whole array time), suspended at
    /// least once and at most `max_per_op` times; while it is suspended
    /// the die runs reads only; a running operation's die is busy.
    pub(crate) fn check_suspensions(&self) -> std::result::Result<(), String> {
        let Some(s) = &self.flash.susp else {
            return Ok(());
        };
        let within = |c: u32| s.max == 0 || c <= s.max;
        for (i, d) in s.dies.iter().enumerate() {
            let die = &self.flash.dies[i];
            match d.state {
                State::Suspended => {
                    let Some(op) = d.saved else {
                        return Err(format!("die {i} is suspended without an operation"));
                    };
                    if !op.busy || op.n == 0 {
                        return Err(format!(
                            "die {i}: its suspended operation is not a running command"
                        ));
                    }
                    if d.remaining == 0 || d.remaining > d.full {
                        return Err(format!(
                            "die {i}: the suspended operation has {} ns of its {} ns of array time left",
                            d.remaining, d.full
                        ));
                    }
                    if d.count == 0 || !within(d.count) {
                        return Err(format!(
                            "die {i}: suspension {} of one operation (at most {})",
                            d.count, s.max
                        ));
                    }
                    // (Only its reads not yet finished: a finished one's
                    // slot may already hold another transaction.)
                    if die.busy
                        && die.txns[die.finished as usize..die.n as usize]
                            .iter()
                            .any(|&t| self.txns[t].kind != CmdKind::Read)
                    {
                        return Err(format!(
                            "die {i} runs a command other than reads while an operation is suspended"
                        ));
                    }
                }
                State::Running | State::Pending => {
                    if d.saved.is_some() || !die.busy || d.from > d.end || !within(d.count) {
                        return Err(format!(
                            "die {i}: a running operation's state is broken (busy {}, from {} to {} ns, {} suspensions)",
                            die.busy, d.from, d.end, d.count
                        ));
                    }
                }
                State::Idle => {
                    if d.saved.is_some() || d.count > 0 {
                        return Err(format!(
                            "die {i} keeps a suspended operation it does not run"
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
