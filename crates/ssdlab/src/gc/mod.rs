//! Garbage collection: one job per GC unit (a plane, a die with aligned
//! block groups, or a virtual flash chip: `domain::Domains`), the GC-active
//! clock, and the reclaimer that runs the jobs.
//!
//! A reclaimer decides when a unit collects (trigger), which pages move and
//! where their moves go (migration plan), and when the victim is erased. The
//! victim itself comes from the FTL's victim index (`victim.rs`). The
//! reclaimers are the variants of [`Reclaimer`], each in its own file:
//!
//! | reclaimer | file | unit | migration |
//! |---|---|---|---|
//! | per-plane | `plane.rs` | a plane | copyback, or read + program through the controller, on the plane |
//! | die group | `group.rs` | a die (aligned block group) | read, then program on the die's planes in turn (or staged into Die-Writes); by copyback, rows of copybacks within their planes, then padding |
//! | ParaGC | `paragc.rs` | a plane; siblings below the early threshold join | as per-plane; joined GCs place moves through the die's cache, aligning write points |
//! | FAST merge | `fast_merge.rs` | a hybrid map's domain (plane, die, or virtual flash chip) | merges of the oldest log unit into data units (DVPFTL's: in-place copybacks where a page stays on its plane; started once an event's commands are committed) |
//!
//! The entry points below (`gc_trigger`, `gc_refill`, `gc_txn_done`,
//! `read_unpin`, `gc_holds_host_writes`, `clean_gc_head`) are all the
//! rest of the simulator calls; each dispatches on the reclaimer.
//!
//! ## A GC, step by step (the per-plane reclaimer; the others differ as the
//! table says)
//!
//! - **Trigger.** `gc_trigger(plane)` starts a job when the unit has none and
//!   `Ftl::needs_gc` holds (free pages below `gc.threshold`, given as a
//!   percentage of the plane or as blocks, converted to pages). It runs for
//!   every plane after aging, after every program or copyback that wrote to
//!   the plane, and after each GC erase, so GC repeats until the plane is
//!   above the threshold. Under DVPFTL's map it is deferred to the end of the
//!   event (`Gc::deferred`, started by the event loop).
//! - **Victim.** `begin_gc` takes the unit's victim from the FTL's victim
//!   index (`victim.rs`: no policy scans the blocks of a plane) and resets
//!   the job; IPPBE (`gc.blocks_per_gc = 2`) takes a second victim of the
//!   plane, walked after the first and erased with it.
//! - **Moves, a window at a time.** The job walks its victim's pages with a
//!   cursor and keeps at most `gc.moves_in_flight` moves queued or executing
//!   (`gc_refill`): each valid page becomes one `Class::Gc` transaction, a
//!   copyback (`gc.migration = "copyback"`) or a read whose completion queues
//!   a GC program (`"controller"`). Moves are scheduled, joined into
//!   multi-plane commands and timed like host traffic; where a move writes is
//!   `Simulator::dest`'s (`ftl/dest.rs`), in the plane's GC write stream.
//! - **Dropped moves.** `clean_gc_head` drops a move at the head of a GC queue
//!   whose source no longer holds its page (the host rewrote it), counting it
//!   in `gc.moves_dropped`, and turns a copyback the odd/even rule forbids at
//!   its destination into a move through the controller
//!   (`gc.copyback_fallbacks`).
//! - **Erase.** `try_erase` queues the erase (GC class) once the cursor has
//!   passed the last page, no move is pending, and no host read pins a block
//!   of the victim (the last unpin, `read_unpin`, tries again). Its completion
//!   frees the block, ends the job and calls `gc_trigger` again.
//! - **Host writes wait.** A plane's host writes are not eligible while its GC
//!   queue holds work (`gc_holds_host_writes`); with aligned block groups not
//!   while the die collects; a joined ParaGC holds its plane. With
//!   `gc.hold_die` every host command of the die waits for its GCs
//!   (`Gc::holds_die`), except while they only wait for host reads to drain.
//!   Host writes may never take the last free blocks GC keeps (one per stream
//!   GC writes to, `Ftl::peek_write`).
//! - **Time blocked by GC.** Each die keeps a clock of the time at least one
//!   of its units collects (`Gc::clock`); a host program stores it when queued
//!   and replaces it, at dispatch, by the GC time it waited through
//!   (`gc.blocked_share`).
//! - **Pacing** (`pace.rs`, optional). Semi-preemptive GC: at the start of
//!   each GC step host work of the die goes first while the plane has at
//!   least `gc.hard_threshold` free (`gc_preemptible`, used by the command
//!   builder; `gc_holds_host_writes` lets the plane's host writes go).
//!   Idle-time GC: after `gc.idle.after_us` with no host request
//!   outstanding, planes below the high watermark collect; host work pauses
//!   them (`GcJob::paused`).
//! - **Livelock guard.** A victim whose pages are all valid frees nothing;
//!   after more than `blocks_per_plane` such victims in a row in one unit the
//!   run stops with an error saying GC cannot free space.

pub mod fast_merge;
pub mod group;
pub mod pace;
pub mod paragc;
pub mod plane;
pub mod victim;

use crate::addr::{BlockId, DieId, PlaneId, Ppn, INVALID};
use crate::config::{Config, Migration};
use crate::domain::Domains;
use crate::engine::Time;
use crate::error::Error;
use crate::flash::CmdKind;
use crate::sched::txn::{Owner, Txn};
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::{Dest, Place, TxnId};

use fast_merge::Merges;
use paragc::ParaGc;

/// A garbage collection under way in one GC unit: a plane, or with aligned
/// block groups a die (victim = group id; the cursor walks the group's pages
/// page index by page index, so that aligned valid pages are read together).
#[derive(Clone, Copy)]
pub(crate) struct GcJob {
    pub(crate) victim: u32,
    /// IPPBE (`gc.blocks_per_gc = 2`): a second victim block of the plane,
    /// collected with the first and erased with it in one multi-block
    /// erase; INVALID otherwise.
    pub(crate) second: u32,
    /// Next page of the victim to look at.
    pub(crate) cursor: u32,
    /// Migrations queued or executing (group mode: read, staged or being
    /// programmed).
    pub(crate) pending: u32,
    /// Migrations whose read has not completed.
    pub(crate) reading: u32,
    /// Group mode: erases of the group's blocks not yet completed.
    pub(crate) erases_left: u32,
    pub(crate) start: Time,
    pub(crate) erase_queued: bool,
    /// Its pages are all moved and its erase waits only for host reads of
    /// the victim queued before they moved (pins): counted in
    /// [`Gc::draining`].
    pub(crate) draining: bool,
    /// Free pages of each page type in the drive when the GC began: the
    /// proportions its moves draw their types from under a page-type
    /// scheme (sUB).
    pub(crate) mix: [u64; 3],
    /// Consecutive GCs that reclaimed nothing (livelock guard).
    pub(crate) fruitless: u32,
    /// Started by idle-time GC (`pace.rs`).
    pub(crate) idle: bool,
    /// An idle GC paused by host work: starts no move until the next idle
    /// period (or until its plane needs GC).
    pub(crate) paused: bool,
    /// A Die-GC by copyback has queued the padding that realigns its die's
    /// write points (`group.rs`).
    pub(crate) padded: bool,
}

impl GcJob {
    /// One of the job's moves is done (programmed, or dropped).
    #[inline]
    pub(crate) fn move_done(&mut self) {
        assert!(self.pending > 0, "a GC move done with none pending");
        self.pending -= 1;
    }

    /// One of the job's moves has its page read.
    #[inline]
    pub(crate) fn read_done(&mut self) {
        assert!(self.reading > 0, "a GC read done with none under way");
        self.reading -= 1;
    }
}

/// How GC units are reclaimed (module documentation). Each variant holds
/// the state only it needs.
pub(crate) enum Reclaimer {
    Plane,
    Group,
    Para(Box<ParaGc>),
    Merge(Box<Merges>),
}

/// The GC layer's state.
pub(crate) struct Gc {
    pub(crate) jobs: Vec<GcJob>,
    /// What a GC unit is: a plane, a die (aligned block groups) or a
    /// virtual flash chip.
    pub(crate) domains: Domains,
    /// How a per-plane GC moves a page: copyback, or a read whose data
    /// comes back as a program.
    pub(crate) move_kind: CmdKind,
    /// `gc.moves_in_flight`.
    pub(crate) window: u32,
    /// `flash.copyback_odd_even`: a copyback whose destination page has
    /// the other parity falls back to the controller.
    pub(crate) odd_even: bool,
    /// Per die: planes collecting garbage now, when the die last became
    /// busy with GC, and the GC-active time accumulated before that.
    pub(crate) clock: Vec<(u32, Time, Time)>,
    /// `gc.hold_die`: host commands of a die wait while it collects.
    pub(crate) hold_die: bool,
    /// Per die: GCs that wait only for host reads of their victim to
    /// drain before erasing. A held die lets host commands through while
    /// all its GCs are draining: the reads must go (they may sit behind
    /// other host reads in their queue) for the GC to end.
    pub(crate) draining: Vec<u32>,
    /// `gc.blocks_per_gc`: victims per per-plane GC (2: IPPBE).
    pub(crate) blocks_per_gc: u32,
    pub(crate) reclaimer: Reclaimer,
    /// `"vfc"`: planes whose VFC may need a merge, asked once the current
    /// event's commands are committed (a merge takes blocks on every chip
    /// of the VFC, which must not happen between the members of a
    /// multi-plane command).
    pub(crate) deferred: Vec<PlaneId>,
    /// GC pacing: semi-preemptive and idle-time GC (`pace.rs`).
    pub(crate) pace: pace::Pace,
    /// Die-GC by copyback (aligned block groups under `gc.migration =
    /// "copyback"`, `group.rs`): per plane, where its die's GC stands with
    /// the plane's block of the victim group; empty otherwise.
    pub(crate) rows: Vec<group::Rows>,
}

impl Gc {
    /// GC over the drive's GC units (`domains`), run by `reclaimer`.
    pub(crate) fn new(cfg: &Config, domains: &Domains, reclaimer: Reclaimer) -> Gc {
        let planes = cfg.total_planes();
        Gc {
            jobs: vec![
                GcJob {
                    victim: INVALID,
                    second: INVALID,
                    cursor: 0,
                    pending: 0,
                    reading: 0,
                    erases_left: 0,
                    start: 0,
                    erase_queued: false,
                    draining: false,
                    mix: [0; 3],
                    fruitless: 0,
                    idle: false,
                    paused: false,
                    padded: false,
                };
                planes as usize
            ],
            rows: if matches!(reclaimer, Reclaimer::Group)
                && cfg.gc.migration == Migration::Copyback
            {
                vec![group::Rows::default(); planes as usize]
            } else {
                Vec::new()
            },
            domains: domains.clone(),
            move_kind: match cfg.gc.migration {
                Migration::Copyback => CmdKind::Copyback,
                Migration::Controller => CmdKind::Read,
            },
            // A plane with k register sets needs k moves queued to run them
            // at once.
            window: cfg.gc.moves_in_flight.max(cfg.flash.plane_registers),
            odd_even: cfg.flash.copyback_odd_even,
            clock: vec![(0, 0, 0); cfg.total_dies() as usize],
            hold_die: cfg.gc.hold_die,
            draining: vec![0; cfg.total_dies() as usize],
            blocks_per_gc: cfg.gc.blocks_per_gc,
            reclaimer,
            deferred: Vec::new(),
            pace: pace::Pace::new(cfg),
        }
    }

    /// GC unit of a plane: the plane, its die (aligned block groups), or
    /// its virtual flash chip.
    #[inline]
    pub(crate) fn unit(&self, plane: PlaneId) -> usize {
        self.domains.of_plane(plane)
    }

    /// Does a die's GC move each page within its plane by copyback
    /// (aligned block groups under `gc.migration = "copyback"`)?
    #[inline]
    pub(crate) fn group_copy(&self) -> bool {
        !self.rows.is_empty()
    }

    /// Is GC unit `u` collecting?
    #[inline]
    pub(crate) fn active(&self, u: usize) -> bool {
        self.jobs[u].victim != INVALID
    }

    /// Must host commands of `die` wait for its GC (`gc.hold_die`, the
    /// parallel-GC paper's Alg. 2 line 7: the die is busy for the whole GC)?
    #[inline]
    pub(crate) fn holds_die(&self, die: DieId) -> bool {
        self.hold_die && self.clock[die.index()].0 > self.draining[die.index()]
    }

    /// Unit `u`'s GC starts (`true`) or stops (`false`) waiting for host
    /// reads of its victim before erasing.
    /// Every die the unit keeps busy counts it (a virtual flash chip's
    /// merge holds all the chip's dies).
    pub(crate) fn set_draining(&mut self, u: usize, draining: bool) {
        if self.jobs[u].draining != draining {
            self.jobs[u].draining = draining;
            for d in self.domains.dies(u) {
                let d = d.index();
                if draining {
                    self.draining[d] += 1;
                } else {
                    self.draining[d] -= 1;
                }
            }
        }
    }

    /// GC-active time of a die up to `now`: the time during which at least
    /// one of its planes was collecting garbage.
    #[inline]
    pub(crate) fn clock(&self, die: DieId, now: Time) -> Time {
        let (active, since, acc) = self.clock[die.index()];
        acc + if active > 0 { now - since } else { 0 }
    }

    /// A unit of `die` started (`+1`) or finished (`-1`) a GC at `now`.
    pub(crate) fn clock_change(&mut self, die: DieId, delta: i32, now: Time) {
        let acc = self.clock(die, now);
        let g = &mut self.clock[die.index()];
        let active = g.0 as i64 + delta as i64;
        assert!(active >= 0, "die {die}: more GCs ended than started");
        g.0 = active as u32;
        g.1 = now;
        g.2 = acc;
    }
}

impl Simulator {
    /// A unit of `die` started (`+1`) or finished (`-1`) a GC at `now`: the
    /// die's GC clock, and latency attribution's view of the die.
    pub(crate) fn gc_clock_change(&mut self, die: DieId, delta: i32, now: Time) {
        self.gc.clock_change(die, delta, now);
        if let Some(a) = &mut self.attr {
            a.die_gc(die.index(), self.gc.clock[die.index()].0 > 0, now);
        }
    }

    /// Pages of a GC victim: a block, or a group of one block per plane.
    #[inline]
    pub(crate) fn victim_pages(&self) -> u32 {
        self.ftl.pages_per_block() * self.gc.domains.planes_per_victim()
    }

    /// Pages unit `u`'s GC walks: its victim's, and its second victim's
    /// (IPPBE).
    #[inline]
    pub(crate) fn job_pages(&self, u: usize) -> u32 {
        self.victim_pages()
            * if self.gc.jobs[u].second == INVALID {
                1
            } else {
                2
            }
    }

    /// Physical page `cursor` of unit `u`'s victims (per-plane GC): the
    /// victim's pages, then the second victim's.
    #[inline]
    pub(crate) fn victim_page(&self, u: usize, cursor: u32) -> Ppn {
        let g = &self.gc.jobs[u];
        let ppb = self.ftl.pages_per_block();
        if cursor < ppb {
            g.victim * ppb + cursor
        } else {
            g.second * ppb + cursor - ppb
        }
    }

    /// `plane` was written (or the drive is new): start a GC in its unit if
    /// it needs one and is not collecting.
    #[inline]
    pub(crate) fn gc_trigger(&mut self, plane: PlaneId) {
        let u = self.gc.unit(plane);
        if self.gc.active(u) {
            if self.gc.jobs[u].paused {
                self.idle_urgent(plane);
            }
            return;
        }
        self.gc_trigger_idle(plane);
    }

    /// [`gc_trigger`](Self::gc_trigger) for a unit not collecting.
    #[inline(never)]
    fn gc_trigger_idle(&mut self, plane: PlaneId) {
        if self.gc.domains.is_vfc() {
            // A VFC's merge: asked once the event's commands are committed
            // (`run_deferred_gc` checks then whether it is due).
            if !self.gc.deferred.contains(&plane) {
                self.gc.deferred.push(plane);
            }
            return;
        }
        let u = self.gc.unit(plane);
        let needs = if self.gc.domains.is_die() {
            DieId(u as u32)
                .planes(self.ppd)
                .any(|p| self.ftl.needs_gc(p))
        } else {
            self.ftl.needs_gc(plane)
        };
        if !needs {
            return;
        }
        match self.gc.reclaimer {
            Reclaimer::Merge(_) => self.merge_trigger(plane),
            Reclaimer::Para(_) => self.para_trigger(plane),
            Reclaimer::Plane | Reclaimer::Group => {
                if let Some(u) = self.begin_gc(plane) {
                    self.gc_refill(u);
                }
            }
        }
    }

    /// Are VFC merges asked for during the event waiting to start?
    #[inline]
    pub(crate) fn gc_deferred(&self) -> bool {
        !self.gc.deferred.is_empty()
    }

    /// Start the VFC merges asked for during the event (`Gc::deferred`),
    /// where still due. The event loop runs them at the end of each event,
    /// before each die's dispatch.
    pub(crate) fn run_deferred_gc(&mut self) {
        while let Some(plane) = self.gc.deferred.pop() {
            if !self.gc.active(self.gc.unit(plane)) && self.ftl.needs_gc(plane) {
                self.merge_trigger(plane);
            }
        }
    }

    /// Start a GC in the unit of `plane`: take a victim and reset the
    /// unit's job (its moves are queued by the caller's refill). None if
    /// there is no victim.
    pub(crate) fn begin_gc(&mut self, plane: PlaneId) -> Option<usize> {
        let u = self.gc.unit(plane);
        let now = self.engine.now();
        let victim = self.ftl.pick_victim(plane, now, &mut self.rng)?;
        let valid = self.ftl.unit_valid(victim);
        // IPPBE: a second victim of the plane, erased with the first.
        let second = if self.gc.blocks_per_gc > 1 && !self.gc.domains.is_die() {
            self.ftl
                .pick_victim(plane, now, &mut self.rng)
                .unwrap_or(INVALID)
        } else {
            INVALID
        };
        // Fruitless: nothing to reclaim in the victim (or, under IPPBE,
        // in either victim).
        let second_full =
            second == INVALID || self.ftl.valid_count(BlockId(second)) == self.victim_pages();
        if self.ftl.levelled_last() {
            // Static wear levelling's victim: moved to level wear, not to
            // free space (neither fruitless nor a gain).
        } else if valid == self.victim_pages() && second_full {
            self.gc.jobs[u].fruitless += 1;
            // More full victims in a row than the plane has blocks: stuck,
            // unless some closed block still holds an invalid page. A
            // policy that does not take the emptiest block (random,
            // d-choices, FIFO, cost-benefit) can pick full blocks that often
            // while others hold invalid pages, which is slow, not stuck; 32
            // times as many in a row end the run whatever the count says.
            let (fruitless, bpp) = (self.gc.jobs[u].fruitless, self.ftl.blocks_per_plane());
            if (fruitless > bpp && !self.ftl.reclaimable(plane)) || fruitless > 32 * bpp {
                self.error.get_or_insert(Error::Invalid(format!(
                    "plane {plane} holds only valid data ({} valid pages of {}, {} free): garbage collection \
                     cannot free space (is the logical capacity larger than the plane?)",
                    self.ftl.plane_valid(plane),
                    self.ftl.pages_per_block() * self.ftl.blocks_per_plane(),
                    self.ftl.free_pages(plane)
                )));
            }
        } else {
            self.gc.jobs[u].fruitless = 0;
        }
        let pages = self.victim_pages() as u64;
        let second_valid = if second == INVALID {
            None
        } else {
            Some(self.ftl.valid_count(BlockId(second)) as u64)
        };
        let m = &mut self.metrics.gc;
        for v in std::iter::once(valid as u64).chain(second_valid) {
            m.victims += 1;
            m.victim_valid += v;
            m.victim_pages += pages;
        }
        let g = &mut self.gc.jobs[u];
        g.victim = victim;
        g.second = second;
        g.cursor = 0;
        g.pending = 0;
        g.reading = 0;
        g.erases_left = 0;
        g.start = now;
        g.erase_queued = false;
        g.idle = false;
        g.paused = false;
        g.padded = false;
        if let Some(free) = self.ftl.free_lane_pages() {
            g.mix = free;
        }
        if self.gc.group_copy() {
            self.group_copy_begin(u);
        }
        let die = self.ftl.map.die_of_plane(plane);
        self.gc_clock_change(die, 1, now);
        Some(u)
    }

    /// Keep the unit's victim's migrations going (up to `gc.moves_in_flight`
    /// at once); when all are done, erase it.
    pub(crate) fn gc_refill(&mut self, u: usize) {
        match self.gc.reclaimer {
            Reclaimer::Group => self.group_refill(u),
            Reclaimer::Para(_) => self.para_refill(u),
            Reclaimer::Plane => self.plane_refill(u),
            Reclaimer::Merge(_) => self.merge_refill(u),
        }
    }

    /// A move of unit `u` is done (programmed, or dropped).
    pub(crate) fn gc_progress(&mut self, u: usize) {
        self.gc.jobs[u].move_done();
        self.gc_refill(u);
    }

    /// A GC transaction (`Owner::Gc`) completed.
    pub(crate) fn gc_txn_done(&mut self, t: TxnId) {
        let tx = self.txns[t];
        match (tx.kind, &self.gc.reclaimer) {
            (CmdKind::Erase, Reclaimer::Merge(_)) => self.merge_erase_done(tx),
            (CmdKind::Erase, _) => self.gc_erase_done(tx),
            (CmdKind::Read, Reclaimer::Merge(_)) => self.merge_read_done(t),
            (CmdKind::Read, Reclaimer::Group) => self.group_read_done(t),
            (CmdKind::Read, Reclaimer::Para(_)) => self.para_read_done(t),
            (CmdKind::Read, Reclaimer::Plane) => self.plane_read_done(t),
            (_, Reclaimer::Merge(_)) => self.merge_program_done(tx),
            (_, Reclaimer::Para(_)) => self.para_move_done(t),
            (_, Reclaimer::Group) if self.gc.group_copy() => {
                self.group_copy_written(t);
                self.gc_progress(tx.unit as usize)
            }
            (_, Reclaimer::Plane | Reclaimer::Group) => self.gc_progress(tx.unit as usize),
        }
    }

    /// A GC move was dropped from the head of a queue (the host rewrote its
    /// page).
    fn gc_move_dropped(&mut self, t: TxnId) {
        match self.gc.reclaimer {
            Reclaimer::Para(_) => self.para_move_done(t),
            _ => self.gc_progress(self.txns[t].unit as usize),
        }
    }

    /// Queue the erase of the unit's victim once every move is done and no
    /// read holds it: one erase per block (a group's, at one block index,
    /// go as one multi-plane erase).
    #[inline]
    pub(crate) fn try_erase(&mut self, u: usize) {
        let g = &self.gc.jobs[u];
        if g.victim == INVALID || g.cursor < self.job_pages(u) || g.pending > 0 || g.erase_queued {
            return;
        }
        self.queue_erase(u);
    }

    /// [`try_erase`](Self::try_erase) once every move of the unit's GC is
    /// done.
    #[inline(never)]
    fn queue_erase(&mut self, u: usize) {
        let g = self.gc.jobs[u];
        let blocks: Vec<BlockId> = self.ftl.unit_blocks(g.victim).collect();
        let mut pinned = blocks.iter().any(|&b| self.ftl.pins(b) > 0);
        if g.second != INVALID {
            pinned |= self.ftl.pins(BlockId(g.second)) > 0;
        }
        self.gc.set_draining(u, pinned);
        if pinned {
            return;
        }
        self.gc.jobs[u].erase_queued = true;
        self.metrics.gc.migration_ns += (self.engine.now() - g.start) as u128;
        // IPPBE's second victim is erased by the first one's erase command
        // (one multi-block erase, one tBERS): no command of its own.
        self.gc.jobs[u].erases_left = blocks.len() as u32;
        let ppb = self.ftl.pages_per_block();
        for b in blocks {
            let plane = b.plane(self.ftl.blocks_per_plane());
            let t = self.gc_txn(u, CmdKind::Erase, plane, INVALID, b.first_page(ppb));
            self.enqueue(plane, Class::Gc, t);
        }
    }

    /// A block's erase completed at `now`: the FTL frees it, and it is
    /// counted (erases, and the wear spread in the time series).
    pub(crate) fn erase_block(&mut self, block: BlockId, now: Time) {
        self.ftl.erase(block);
        if self.ftl.bad_blocks_on() {
            self.note_read_only();
        }
        self.metrics.gc.erases += 1;
        self.metrics.series_erase(now, self.ftl.wear().delta());
    }

    /// An erase of a victim's block completed; the last one ends the GC.
    fn gc_erase_done(&mut self, tx: Txn) {
        let now = self.engine.now();
        let u = tx.unit as usize;
        self.erase_block(self.ftl.map.gblock_of(tx.src), now);
        let second = std::mem::replace(&mut self.gc.jobs[u].second, INVALID);
        if second != INVALID {
            self.erase_block(BlockId(second), now);
        }
        let idle = self.gc.jobs[u].idle;
        self.gc.jobs[u].erases_left = self.gc.jobs[u].erases_left.saturating_sub(1);
        if self.gc.jobs[u].erases_left > 0 {
            return;
        }
        self.metrics.gc.count += 1;
        self.metrics.series_gc(now);
        self.metrics.gc.duration_ns += (now - self.gc.jobs[u].start) as u128;
        self.gc.jobs[u].victim = INVALID;
        self.gc.jobs[u].idle = false;
        self.gc.jobs[u].paused = false;
        let die = self.ftl.map.die_of_plane(tx.plane);
        self.gc_clock_change(die, -1, now);
        self.flush_gc_translation();
        self.gc_trigger(tx.plane);
        if idle {
            self.idle_erased(tx.plane, 1 + (second != INVALID) as u64);
        }
        if let Reclaimer::Para(_) = self.gc.reclaimer {
            self.para_gc_ended(die);
        }
    }

    /// A GC transaction of unit `u`.
    pub(crate) fn gc_txn(
        &mut self,
        u: usize,
        kind: CmdKind,
        plane: PlaneId,
        lpn: u32,
        src: Ppn,
    ) -> TxnId {
        let t = self.new_txn(kind, crate::flash::Origin::Gc, plane, lpn, src);
        self.txns[t].owner = Owner::Gc;
        self.txns[t].unit = u as u32;
        t
    }

    /// May host writes to `plane` go now, as far as GC is concerned? Not
    /// while GC work is queued on the plane; with aligned block groups not
    /// while the die collects (GC moves pages over all its planes, into
    /// groups reserved for them all); ParaGC: not while the plane's joined
    /// GC runs (its moves wait in the cache).
    pub(crate) fn gc_holds_host_writes(&self, plane: PlaneId) -> bool {
        // GC pacing: a preemptible GC, or an idle GC paused by host work,
        // lets them go (per-plane GC only).
        if self.gc.pace.on() && self.gc_yields(plane) {
            return false;
        }
        let u = self.gc.unit(plane);
        if self.sched.queues.head(plane, Class::Gc).is_some() {
            return true;
        }
        if !self.gc.active(u) {
            return false;
        }
        match &self.gc.reclaimer {
            Reclaimer::Para(p) => p.joined(u),
            _ => self.gc.domains.is_die(),
        }
    }

    /// Drop GC migrations at the head of a plane's GC queue whose page the
    /// host has rewritten meanwhile; convert copybacks the odd/even rule
    /// forbids into migrations through the controller.
    #[inline(always)]
    pub(crate) fn clean_gc_head(&mut self, plane: PlaneId) {
        self.drop_stale_gc_heads(plane);
        if let Some(t) = self.sched.queues.head(plane, Class::Gc) {
            let tx = self.txns[t];
            if tx.kind == CmdKind::Erase || tx.src == INVALID || tx.keep {
                return;
            }
            let u = tx.unit as usize;
            if tx.kind == CmdKind::Copyback && self.gc.odd_even {
                let parity = self.ftl.map.page_of(tx.src) % 2;
                // In index order the next page must have the source's
                // parity; with parity destinations the active block must
                // still have a free page of that parity.
                let fall_back = match self.dest(t, None) {
                    Dest::Stream(w, place) => match self.ftl.peek_write(plane, w) {
                        None => false,
                        Some(_) if matches!(place, Place::Parity(_)) => {
                            self.ftl.peek_placed(plane, w, place).is_none()
                        }
                        // The page its place picks (a page type's, under
                        // relaxed program order).
                        Some(_) => self
                            .ftl
                            .peek_placed(plane, w, place)
                            .is_some_and(|(_, dst_page)| dst_page % 2 != parity),
                    },
                    Dest::Fixed(_) => false,
                };
                if fall_back {
                    self.txns[t].kind = CmdKind::Read;
                    self.gc.jobs[u].reading += 1;
                    self.metrics.gc.copyback_fallbacks += 1;
                }
            }
        }
    }

    /// Drop GC migrations at the head of a plane's GC queue whose page the
    /// host has rewritten meanwhile (also as a command takes further heads
    /// of a plane: multi-register planes' copybacks).
    pub(crate) fn drop_stale_gc_heads(&mut self, plane: PlaneId) {
        while let Some(t) = self.sched.queues.head(plane, Class::Gc) {
            let tx = self.txns[t];
            // Erases and padding stay, and so do transactions that must be
            // programmed even if stale (members of a Die-Write, a FAST
            // merge's pages).
            if tx.kind == CmdKind::Erase || tx.src == INVALID || tx.keep {
                return;
            }
            if self.ftl.owner(tx.src) == Some(tx.lpn) {
                return;
            }
            self.sched.queues.pop(plane, Class::Gc);
            self.metrics.gc.moves_dropped += 1;
            self.free_txn(t);
            if tx.kind == CmdKind::Read {
                self.gc.jobs[tx.unit as usize].read_done();
            }
            self.gc_move_dropped(t);
        }
    }

    /// A read of `src` finished: unpin it; if a GC waits to erase its block,
    /// the erase may go now.
    pub(crate) fn read_unpin(&mut self, src: Ppn) {
        if self.ftl.unpin(src) > 0 {
            return;
        }
        let gb = self.ftl.map.gblock_of(src);
        let u = self.gc.unit(self.ftl.map.plane_of(src));
        if let Reclaimer::Merge(_) = self.gc.reclaimer {
            if self.gc.active(u) {
                self.merge_erase(u);
            }
            return;
        }
        let v = self.ftl.unit_of_block(gb);
        let g = &self.gc.jobs[u];
        if g.victim == v || (g.second == v && g.victim != INVALID) {
            self.try_erase(u);
        }
    }
}
