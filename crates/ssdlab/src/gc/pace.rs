//! GC pacing: when a per-plane GC yields to host work, and when GC runs
//! while the drive is idle. Both are optional and off by default.
//!
//! **Semi-preemptive GC** (`gc.preemptive`, `gc.hard_threshold`; Lee et
//! al., "Preemptible I/O scheduling of garbage collection for solid state
//! drives", IEEE TCAD 2013, and MQSim's preemptible GC). A GC's preemption
//! points are the starts of its steps: a move (a copyback, or the read
//! that begins a move through the controller; its program, whose data is
//! already in the controller, is not a point) and the erase. At each, while
//! the plane has at least the hard threshold free (and its GC can still
//! count on more pages than its victim holds, plus a block), the die's
//! pending host reads and writes go first: the command builder leaves such
//! a plane's GC head aside while any host head of the die may run, and the
//! plane's GC no longer holds its host writes (`gc_holds_host_writes`).
//! Below the hard threshold the plane's GC is not preemptible: the
//! scheduling policy and the hold apply as without the option. A running
//! command is never interrupted (that is program/erase suspension).
//!
//! **Idle-time GC** (`gc.idle = { after_us, high_watermark }`). The drive is
//! idle when no host request is outstanding. Each time the last outstanding
//! request completes while more requests are to come, a timer is set
//! `after_us` later; any arrival in between makes it stale (a generation
//! counter). When it fires, every plane below the high watermark that is
//! not collecting starts a GC of a victim chosen as usual; each idle GC
//! that erases its victim starts the next while the drive stays idle and
//! the plane is below the watermark. A host arrival pauses the idle GCs: no
//! new move starts (moves under way, and a queued erase, complete), host
//! writes of the plane are not held; the next idle period resumes them, and
//! a plane that falls below `gc.threshold` meanwhile turns its paused idle
//! GC into an ordinary one. Idle GC stops at a plane whose last GC freed
//! nothing or whose closed blocks hold no invalid page (no victim would
//! gain space), so an idle drive's collection always ends.

use crate::addr::{PlaneId, INVALID};
use crate::config::Config;
use crate::engine::{EventKind, Time};
use crate::flash::CmdKind;
use crate::metrics::IdleTotals;
use crate::sim::Simulator;
use crate::types::TxnId;

/// Pacing's state: the hard threshold and the idle detector.
pub(crate) struct Pace {
    /// Semi-preemptive GC's hard threshold, free pages per plane (None:
    /// GC is not preemptive).
    pub(crate) hard: Option<u64>,
    pub(crate) idle: Option<Idle>,
}

/// Idle-time GC's detector.
pub(crate) struct Idle {
    /// `gc.idle.after_us`, ns.
    after: Time,
    /// `gc.idle.high_watermark`, free pages per plane.
    pub(crate) high: u64,
    /// Bumped by every host arrival: a timer set before it is stale.
    generation: u32,
    /// The drive is idle (a timer fired and no request arrived since):
    /// idle GC may start.
    pub(crate) on: bool,
}

impl Pace {
    pub(crate) fn new(cfg: &Config) -> Pace {
        Pace {
            hard: cfg
                .gc
                .hard_threshold
                .filter(|_| cfg.gc.preemptive)
                .map(|t| cfg.threshold_pages(t)),
            idle: cfg.gc.idle.map(|i| Idle {
                after: (i.after_us * 1e3).round() as Time,
                high: cfg.threshold_pages(i.high_watermark),
                generation: 0,
                on: false,
            }),
        }
    }

    /// Is any pacing on?
    #[inline]
    pub(crate) fn on(&self) -> bool {
        self.hard.is_some() || self.idle.is_some()
    }
}

/// What GC pacing requires: per-plane GC (each plane its own victims and
/// GC queue) of a page map, programs page by page, and a die not held for
/// whole GCs;
/// idle-time GC also an open loop (a closed loop is never idle).
pub(crate) fn requirements(c: &Config) -> crate::config::Requirement {
    use crate::config::{BlockGroups, HostMode, WriteUnit};
    let key = if c.gc.preemptive {
        "gc.preemptive"
    } else if c.gc.idle.is_some() {
        "gc.idle"
    } else {
        return Ok(());
    };
    let why = if c.ftl.block_groups != BlockGroups::Plane {
        "per-plane GC (ftl.block_groups = \"plane\")"
    } else if c.gc.join_percent != 0.0 {
        "gc.join_percent = 0 (ParaGC's joined GCs share a die's cache)"
    } else if c.ftl.mapping != crate::config::Mapping::Page {
        "ftl.mapping = \"page\" (a hybrid map reclaims by merges; under DFTL the translation \
         pages GC rewrites are not paced)"
    } else if c.ftl.write_unit != WriteUnit::Page {
        "ftl.write_unit = \"page\" (Die-Writes and super pages go whole)"
    } else if c.ftl.plane_allocation == crate::config::PlaneAllocation::Dvp {
        "a plane allocation other than \"dvp\" (DVPFTL's virtual pages are not paced)"
    } else if c.ftl.type_pools {
        "ftl.type_pools = false (host writes let through during a GC strand pages in PA-SSD's \
         type pools where GC cannot reclaim them)"
    } else if c.gc.hold_die {
        "gc.hold_die = false (a held die runs no host command during a GC)"
    } else if c.gc.idle.is_some() && c.host.mode != HostMode::OpenLoop {
        return Err((
            "gc.idle",
            "needs host.mode = \"open-loop\" (a closed loop keeps the drive busy until the end)"
                .into(),
        ));
    } else {
        return Ok(());
    };
    Err((key, format!("GC pacing needs {why}")))
}

impl Simulator {
    /// Semi-preemptive GC: may host work of the die go ahead of `plane`'s
    /// GC now? The plane has at least the hard threshold free, and the
    /// pages its GC can count on exceed what its victim still holds by more
    /// than a block (one host write takes at most a block from them), so
    /// that host writes let through never leave the GC without room to
    /// finish.
    #[inline]
    pub(crate) fn gc_preemptible(&self, plane: PlaneId) -> bool {
        let Some(h) = self.gc.pace.hard else {
            return false;
        };
        if self.ftl.free_pages(plane) < h {
            return false;
        }
        let g = &self.gc.jobs[self.gc.unit(plane)];
        if g.victim == INVALID {
            return true;
        }
        let mut left = self.ftl.unit_valid(g.victim) as u64;
        if g.second != INVALID {
            left += self.ftl.valid_count(crate::addr::BlockId(g.second)) as u64;
        }
        self.ftl.gc_free_pages(plane) > left + self.ftl.pages_per_block() as u64
    }

    /// Does `plane`'s GC let its host writes go (preemptible, or an idle
    /// GC paused by host work)?
    pub(crate) fn gc_yields(&self, plane: PlaneId) -> bool {
        self.gc.jobs[self.gc.unit(plane)].paused || self.gc_preemptible(plane)
    }

    /// Is `t`, at the head of a GC queue, the start of a move of a paused
    /// idle GC (which waits for the next idle period)?
    #[inline]
    pub(crate) fn gc_move_paused(&self, t: TxnId) -> bool {
        let tx = &self.txns[t];
        matches!(tx.kind, CmdKind::Copyback | CmdKind::Read)
            && self.gc.jobs.get(tx.unit as usize).is_some_and(|g| g.paused)
    }

    /// Semi-preemptive GC: `n` host transactions were dispatched ahead of
    /// a GC step of their die that would otherwise have gone first.
    pub(crate) fn count_preemptions(&mut self, n: usize) {
        if let Some(p) = &mut self.metrics.pacing {
            *p.preemptions.get_or_insert(0) += n as u64;
        }
    }

    fn idle_totals(&mut self) -> Option<&mut IdleTotals> {
        self.metrics.pacing.as_mut().and_then(|p| p.idle.as_mut())
    }

    /// A host request arrived: a pending idle timer is stale, and idle GCs
    /// pause (an idle GC of a plane below `gc.threshold` goes on as an
    /// ordinary GC).
    pub(crate) fn idle_host_arrived(&mut self) {
        let Some(i) = &mut self.gc.pace.idle else {
            return;
        };
        i.generation = i.generation.wrapping_add(1);
        if !std::mem::take(&mut i.on) {
            return;
        }
        for u in 0..self.gc.jobs.len() {
            let g = &self.gc.jobs[u];
            if !g.idle || g.victim == INVALID {
                continue;
            }
            let urgent = self.ftl.needs_gc(PlaneId(u as u32));
            let g = &mut self.gc.jobs[u];
            if urgent {
                g.idle = false;
            } else {
                g.paused = true;
            }
        }
    }

    /// No host request is outstanding now and more are to come: idle GC
    /// may start `gc.idle.after_us` from now.
    pub(crate) fn idle_arm(&mut self) {
        if let Some(i) = &self.gc.pace.idle {
            let at = self.engine.now().saturating_add(i.after);
            self.engine.schedule(at, EventKind::GcIdle, i.generation);
        }
    }

    /// The idle timer of generation `generation` fired: if no request
    /// arrived since it was set, the drive is idle: paused idle GCs resume
    /// and planes below the high watermark start one.
    pub(crate) fn on_gc_idle(&mut self, generation: u32) {
        let Some(i) = &mut self.gc.pace.idle else {
            return;
        };
        if i.generation != generation || i.on {
            return;
        }
        i.on = true;
        if let Some(t) = self.idle_totals() {
            t.periods += 1;
        }
        for u in 0..self.gc.jobs.len() {
            let plane = PlaneId(u as u32);
            if !self.gc.active(u) {
                self.idle_start(plane);
            } else if self.gc.jobs[u].paused {
                self.gc.jobs[u].paused = false;
                if let Some(t) = self.idle_totals() {
                    t.resumed += 1;
                }
                self.gc_resume(u);
            }
        }
    }

    /// A paused GC of unit `u` (a plane) goes on: its next moves are
    /// queued, and its die looks at the moves left waiting.
    fn gc_resume(&mut self, u: usize) {
        self.gc_refill(u);
        let die = self.ftl.map.die_of_plane(PlaneId(u as u32));
        self.kick(die);
    }

    /// While the drive is idle, start an idle GC on `plane` if it is not
    /// collecting, is below the high watermark, its last GC freed space
    /// and some closed block holds an invalid page.
    pub(crate) fn idle_start(&mut self, plane: PlaneId) {
        let Some(i) = &self.gc.pace.idle else {
            return;
        };
        let u = self.gc.unit(plane);
        if !i.on
            || self.gc.active(u)
            || self.ftl.free_pages(plane) >= i.high
            || self.gc.jobs[u].fruitless > 0
            || !self.ftl.reclaimable(plane)
        {
            return;
        }
        if let Some(u) = self.begin_gc(plane) {
            self.gc.jobs[u].idle = true;
            if let Some(t) = self.idle_totals() {
                t.gcs += 1;
            }
            self.gc_refill(u);
        }
    }

    /// `plane`'s GC is under way and the plane was written: a paused idle
    /// GC below `gc.threshold` becomes an ordinary GC and goes on.
    #[inline(never)]
    pub(crate) fn idle_urgent(&mut self, plane: PlaneId) {
        let u = self.gc.unit(plane);
        if self.ftl.needs_gc(plane) {
            let g = &mut self.gc.jobs[u];
            g.paused = false;
            g.idle = false;
            self.gc_resume(u);
        }
    }

    /// An idle GC of `plane` erased its `blocks` victim blocks: counted,
    /// and the plane's next idle GC starts if the drive is still idle.
    pub(crate) fn idle_erased(&mut self, plane: PlaneId, blocks: u64) {
        if let Some(t) = self.idle_totals() {
            t.erases += blocks;
        }
        self.idle_start(plane);
    }

    /// An idle GC queued a move.
    #[inline(never)]
    pub(crate) fn idle_move(&mut self) {
        if let Some(t) = self.idle_totals() {
            t.moves += 1;
        }
    }

    /// The consistency checker's part for pacing: a GC is paused only if
    /// idle; an idle GC runs only below the high watermark (free space
    /// rises only by its erase, which ends it); the drive is idle only
    /// with no request outstanding; and below the hard threshold a plane's
    /// GC holds its host writes (it is not preemptible).
    /// `outstanding`: the host requests outstanding now.
    pub(crate) fn check_pace(&self, outstanding: u64) -> std::result::Result<(), String> {
        if !self.gc.pace.on() {
            return Ok(());
        }
        for (u, g) in self.gc.jobs.iter().enumerate() {
            let plane = PlaneId(u as u32);
            if g.victim == INVALID {
                if g.idle || g.paused {
                    return Err(format!("plane {plane}: an idle GC state without a GC"));
                }
                continue;
            }
            if g.paused && !g.idle {
                return Err(format!("plane {plane}: a paused GC that is not idle GC"));
            }
            if let Some(i) = &self.gc.pace.idle {
                let free = self.ftl.free_pages(plane);
                if g.idle && free >= i.high {
                    return Err(format!(
                        "plane {plane}: idle GC runs with {free} free pages, at or above the high \
                         watermark ({} pages)",
                        i.high
                    ));
                }
            }
            if let Some(h) = self.gc.pace.hard {
                let free = self.ftl.free_pages(plane);
                if free < h
                    && !g.paused
                    && self
                        .sched
                        .queues
                        .head(plane, crate::sched::Class::Gc)
                        .is_some()
                    && !self.gc_holds_host_writes(plane)
                {
                    return Err(format!(
                        "plane {plane}: {free} free pages, below the hard threshold ({h}), yet its \
                         GC lets host writes go"
                    ));
                }
            }
        }
        if let Some(i) = &self.gc.pace.idle {
            if i.on && outstanding > 0 {
                return Err(format!(
                    "the drive counts as idle with {outstanding} requests outstanding"
                ));
            }
        }
        Ok(())
    }
}
