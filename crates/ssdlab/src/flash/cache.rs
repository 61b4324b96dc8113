//! ONFI cache program and cache read (`flash.cache_program`,
//! `flash.cache_read`): each plane has a cache register beside its data
//! register, so a die's channel transfer of one page overlaps its array
//! operation on another.
//!
//! - **Cache program** (PROGRAM PAGE CACHE, 80h–15h). When a program
//!   command's array phase starts, its data has moved from the planes'
//!   cache registers into their data registers: the cache registers are
//!   free (a `CacheFree` event kicks the die). While that array phase runs
//!   the command builder may take one more command for the die, if the
//!   command it would run next on an idle die is a program (of any origin,
//!   one or several planes, a Die-Write): its command cycles and data go
//!   over the channel now, its pages are allocated now (after the running
//!   program's, so a block's pages stay in program order), and its array
//!   phase starts at the later of the running program's end and its own
//!   transfer's end. It becomes the die's command when the running one
//!   ends; its cache registers are free again when its own array phase
//!   starts. A die holds at most one command in its cache registers. The
//!   copy from the cache to the data register is taken as part of tPROG
//!   (tCBSY is the wait for the array, not an extra time). Copybacks,
//!   erases and reads neither take nor follow a cached program.
//! - **Cache read** (READ CACHE RANDOM, 00h–31h). When a read command's
//!   array phase ends, if the command the builder would run next on an
//!   idle die is a read (of any origin), its command cycles go over the
//!   channel first (the 31h command that moves the first page's data into
//!   the cache register) and its array phase starts at once, while the
//!   first command's data leaves from the cache registers after those
//!   cycles. Its data moves into the cache registers, and leaves, when
//!   its array phase has ended and the first command's data is all out
//!   (then the next read may follow it the same way). A read that comes
//!   while a page's data is leaving waits for the die as before: ONFI
//!   issues the next read's command before the data output.
//!
//! Latency attribution: a cached program's wait for the array, and a
//! cached read's wait for the cache register, are spent behind the
//! command before it (`behind_host` or `behind_gc`), as a queued
//! transaction's wait is. Plane utilisation counts a command from when it
//! is the die's command. The counters are `Metrics::cache`; the checker
//! verifies every die's state (`check_caches`).

use crate::addr::DieId;
use crate::attribution::Part;
use crate::config::Config;
use crate::engine::Time;
use crate::flash::executor::Die;
use crate::flash::CmdKind;
use crate::sim::Simulator;
use crate::types::{TxnId, MAX_PLANES_PER_DIE};

/// No time: a cache register that is not free.
pub(crate) const NEVER: Time = Time::MAX;

/// A die's cache state.
#[derive(Clone, Copy)]
pub(crate) struct DieCache {
    /// Cache program: from when the running program's cache registers are
    /// free for the next program's data (`NEVER`: the running command is no
    /// program, or its cache registers are taken).
    pub(crate) open: Time,
    /// The running program's array phase: start and end.
    pub(crate) from: Time,
    pub(crate) end: Time,
    /// The part a wait behind the running command goes to.
    pub(crate) behind: Part,
    /// The command in the cache (`n` 0: none): a program waiting for the
    /// array, or a read in (or past) its array phase waiting for the cache
    /// registers.
    pub(crate) next: Die,
    /// A cached program's array phase; a cached read's array end
    /// (`NEVER` until its `ReadArrayDone` fires).
    pub(crate) next_from: Time,
    pub(crate) next_end: Time,
    /// The part the cached command's wait behind the running one goes to.
    pub(crate) next_behind: Part,
    /// The cached command is a program (else a read).
    pub(crate) next_program: bool,
}

impl DieCache {
    const IDLE: DieCache = DieCache {
        open: NEVER,
        from: 0,
        end: 0,
        behind: Part::BehindHost,
        next: Die {
            busy: false,
            n: 0,
            finished: 0,
            txns: [TxnId::NONE; MAX_PLANES_PER_DIE],
        },
        next_from: NEVER,
        next_end: NEVER,
        next_behind: Part::BehindHost,
        next_program: false,
    };
}

/// Cache program's and cache read's state.
pub(crate) struct Caches {
    pub(crate) program: bool,
    pub(crate) read: bool,
    pub(crate) dies: Vec<DieCache>,
}

impl Caches {
    /// The state for `cfg`, or None when both are off.
    pub(crate) fn new(cfg: &Config) -> Option<Box<Caches>> {
        let f = &cfg.flash;
        (f.cache_program || f.cache_read).then(|| {
            Box::new(Caches {
                program: f.cache_program,
                read: f.cache_read,
                dies: vec![DieCache::IDLE; cfg.total_dies() as usize],
            })
        })
    }

    /// May `die` take a program into its cache registers at `now`?
    #[inline]
    pub(crate) fn open(&self, die: DieId, now: Time) -> bool {
        let d = &self.dies[die.index()];
        d.next.n == 0 && d.open <= now
    }

    /// A program command (not cached) started on `die`: its array phase
    /// runs from `from` to `end`; under cache program its cache registers
    /// are free from `from` (true: a `CacheFree` is due then).
    #[inline]
    pub(crate) fn program_started(&mut self, die: DieId, from: Time, end: Time) -> bool {
        let d = &mut self.dies[die.index()];
        d.from = from;
        d.end = end;
        if self.program {
            d.open = from;
        }
        self.program
    }

    /// A program taken into `die`'s cache registers (`cmd`), its transfer
    /// ending at `xfer_end`, of `array` ns: when its array phase starts.
    pub(crate) fn program_cached(
        &mut self,
        die: DieId,
        cmd: Die,
        xfer_end: Time,
        array: Time,
        behind: Part,
    ) -> Time {
        let d = &mut self.dies[die.index()];
        assert!(d.next.n == 0, "die {die} took a second cached command");
        let from = d.end.max(xfer_end);
        d.next = cmd;
        d.next_from = from;
        d.next_end = from + array;
        d.next_behind = behind;
        d.next_program = true;
        d.open = NEVER;
        from
    }

    /// A read chained on `die` (`cmd`, in its array phase now).
    pub(crate) fn read_cached(&mut self, die: DieId, cmd: Die, behind: Part) {
        let d = &mut self.dies[die.index()];
        assert!(d.next.n == 0, "die {die} took a second cached command");
        d.next = cmd;
        d.next_from = NEVER;
        d.next_end = NEVER;
        d.next_behind = behind;
        d.next_program = false;
    }

    /// The die's command ended: the cached command, if any, with its
    /// state, becomes the running one (it is returned). The end of a
    /// command with none in the cache leaves the die with no program.
    #[inline]
    pub(crate) fn advance(&mut self, die: DieId) -> Option<Die> {
        let d = &mut self.dies[die.index()];
        if d.next.n == 0 {
            d.open = NEVER;
            return None;
        }
        let next = std::mem::replace(&mut d.next, DieCache::IDLE.next);
        d.from = d.next_from;
        d.end = d.next_end;
        d.behind = d.next_behind;
        // A cached program's registers are free when its array phase
        // starts; a cached read's array end (`NEVER` if it runs on) is
        // left in `end`.
        d.open = if d.next_program { d.from } else { NEVER };
        d.next_from = NEVER;
        d.next_end = NEVER;
        Some(next)
    }
}

/// A command's record, for the cache.
pub(crate) fn record(members: &[TxnId]) -> Die {
    let mut d = Die {
        busy: true,
        n: members.len() as u8,
        finished: 0,
        txns: [TxnId::NONE; MAX_PLANES_PER_DIE],
    };
    d.txns[..members.len()].copy_from_slice(members);
    d
}

impl Simulator {
    /// The part a wait behind `die`'s running command goes to.
    pub(crate) fn behind_running(&self, die: DieId) -> Part {
        let d = &self.flash.dies[die.index()];
        // (Its first unfinished transaction: a read's earlier ones finished
        // as their data left, and their slots may be reused.)
        let first = d.txns[(d.finished as usize).min(d.n as usize - 1)];
        if self.txns[first].origin == crate::flash::Origin::Gc {
            Part::BehindGc
        } else {
            Part::BehindHost
        }
    }

    /// Consistency checker: every die's cache state. A command in the
    /// cache belongs to a busy die and is of the running command's kind (a
    /// program, or a read); its planes are distinct (one page per cache
    /// register); a cached program's pages come after the running
    /// program's pages of the same block (strict program order: pages in
    /// index order), and its array
    /// phase starts no earlier than the running one's ends; the cache
    /// registers are open only while a program runs.
    pub(crate) fn check_caches(&self) -> std::result::Result<(), String> {
        let Some(c) = &self.flash.cache else {
            return Ok(());
        };
        let m = &self.ftl.map;
        for (i, d) in c.dies.iter().enumerate() {
            let die = &self.flash.dies[i];
            // (A read's transactions finish one by one as their data
            // leaves, and their slots may be reused: the rest of it.)
            let running = &die.txns[die.finished as usize..die.n as usize];
            if d.open != NEVER
                && (!die.busy
                    || running
                        .iter()
                        .any(|&t| self.txns[t].kind != CmdKind::Program))
            {
                return Err(format!(
                    "die {i}: its cache registers are open while it runs no program"
                ));
            }
            if d.next.n == 0 {
                continue;
            }
            let next = &d.next.txns[..d.next.n as usize];
            if !die.busy || running.is_empty() {
                return Err(format!("die {i} holds a cached command while idle"));
            }
            let kind = self.txns[next[0]].kind;
            if next.iter().any(|&t| self.txns[t].kind != kind)
                || running.iter().any(|&t| self.txns[t].kind != kind)
                || !matches!(kind, CmdKind::Program | CmdKind::Read)
            {
                return Err(format!(
                    "die {i}: a cached command is not of the running command's kind (a program or a read)"
                ));
            }
            let mut planes = 0u64;
            for &t in next {
                let p = self.txns[t].plane.0 as u64 % 64;
                if planes & (1 << p) != 0 {
                    return Err(format!(
                        "die {i}: two pages of its cached command on plane {}",
                        self.txns[t].plane
                    ));
                }
                planes |= 1 << p;
            }
            if kind == CmdKind::Program {
                let strict = self.cfg.ftl.program_order == crate::config::ProgramOrder::Strict;
                if d.next_from < d.end {
                    return Err(format!(
                        "die {i}: a cached program's array phase starts at {} ns, before the running one ends at {} ns",
                        d.next_from, d.end
                    ));
                }
                // (Under relaxed program order a block's pages go in the
                // order of their types' lanes, which the FTL checks.)
                for &t in next.iter().filter(|_| strict) {
                    let dst = self.txns[t].src;
                    for &r in running {
                        let prev = self.txns[r].src;
                        if m.plane_of(prev) == m.plane_of(dst)
                            && m.block_of(prev) == m.block_of(dst)
                            && m.page_of(prev) >= m.page_of(dst)
                        {
                            return Err(format!(
                                "die {i}: cached program of page {} before the running program of page {} of block {}",
                                m.page_of(dst),
                                m.page_of(prev),
                                m.block_of(dst)
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// What cache program and cache read require: one register set per plane
/// (the multi-register planes' extra registers run copybacks, not a cache),
/// and, for cache read, no suspension (a suspension's reads run while an
/// operation keeps the registers); for cache program, no program
/// suspension.
pub(crate) fn requirements(c: &Config) -> crate::config::Requirement {
    let f = &c.flash;
    for (on, key) in [
        (f.cache_program, "flash.cache_program"),
        (f.cache_read, "flash.cache_read"),
    ] {
        if on && f.plane_registers > 1 {
            return Err((
                key,
                "needs flash.plane_registers = 1 (a multi-register plane's registers run concurrent copybacks; a cache register is not modelled beside them)".into(),
            ));
        }
    }
    if f.cache_program && f.suspension.program {
        return Err((
            "flash.cache_program",
            "cannot be combined with flash.suspension.program (a suspended program would move the array phase of the program waiting in the cache registers; not modelled)".into(),
        ));
    }
    if f.cache_read && !f.suspension.is_off() {
        return Err((
            "flash.cache_read",
            "cannot be combined with flash.suspension (a suspension's reads would chain behind a suspended operation's registers; not modelled)".into(),
        ));
    }
    Ok(())
}
