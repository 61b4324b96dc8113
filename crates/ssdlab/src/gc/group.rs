//! Die-GC over aligned block groups (TwinBlk, SPD, SuperPage): the GC unit
//! is a die, its victim a group (block `g` of every plane), its valid pages
//! are read page index by page index across the planes (aligned ones go as
//! one multi-plane read) and programmed over the die's planes; the group's
//! blocks are erased at one block index (one multi-plane erase). Where the
//! programs go is the write unit's business (`sched::diewrite`): the die's
//! planes in turn, or staged into Die-Writes.
//!
//! **Die-GC by copyback** (`gc.migration = "copyback"`): a page moves within
//! its plane by copyback, or, to keep the planes balanced, across them
//! through the controller. With V valid pages in the group and N planes,
//! every plane writes s = ceil(V / N) pages, as SPD's repacking would: each
//! plane copies back its first min(v, s) valid pages, and a plane holding
//! more than s reads the rest out to the controller, which programs them on
//! the planes holding fewer (the one with the most pages still to receive
//! first). The moves go in *rows*: the next valid page of every plane at
//! once, each copyback read into its own plane's register (the sources need
//! not be aligned) and programmed at one page index, so a row is one
//! multi-plane copyback while the planes' write points agree, and a plane's
//! further registers take its next rows (`flash.plane_registers`). Once
//! every move is done, the planes short of the furthest one (the N s − V
//! pages of an uneven division, or moves dropped because the host rewrote
//! their page) are padded (programs without data, GC class) in every
//! stream GC writes to, under Die-Writes, so that the die's write points
//! are aligned again before the group is erased and host Die-Writes resume.
//! Without the cross-plane moves a plane holding more valid data than its
//! siblings could never shed it, and GC would starve it. Pages that must
//! keep one page index (super pages) or join host pages from the controller
//! (SPD+'s combining) need moves through the controller.

use crate::addr::{BlockId, DieId, PlaneId, INVALID};
use crate::flash::CmdKind;
use crate::sched::txn::Data;
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::TxnId;

/// Where a die's GC by copyback stands with one plane's block of its victim
/// group.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Rows {
    /// The next page of the block to look at.
    pub(crate) cursor: u32,
    /// Its valid pages still to copy back within the plane.
    pub(crate) stay: u32,
    /// Pages other planes still send it through the controller.
    pub(crate) holes: u32,
    /// Pages this GC has written to the plane so far, in the cold and the
    /// hot stream.
    pub(crate) written: [u32; 2],
}

impl Simulator {
    /// Read the group's valid pages, up to `gc.moves_in_flight` per plane
    /// at once; when every page is read, the write unit completes its last
    /// programs; then erase. (By copyback: rows of copybacks, then padding.)
    pub(crate) fn group_refill(&mut self, u: usize) {
        if self.gc.group_copy() {
            return self.group_copy_refill(u);
        }
        let die = DieId(u as u32);
        let n = self.ppd;
        let (ppb, bpp) = (self.ftl.pages_per_block(), self.ftl.blocks_per_plane());
        let total = self.victim_pages();
        let window = self.gc.window * n;
        let g = self.gc.jobs[u].victim % bpp;
        while self.gc.jobs[u].reading < window && self.gc.jobs[u].cursor < total {
            let c = self.gc.jobs[u].cursor;
            self.gc.jobs[u].cursor += 1;
            let plane = die.plane(c % n, n);
            let ppn = (plane.0 * bpp + g) * ppb + c / n;
            if let Some(lpn) = self.ftl.owner(ppn) {
                self.ftl.prefetch(lpn);
                let t = self.gc_txn(u, CmdKind::Read, plane, lpn, ppn);
                self.gc.jobs[u].pending += 1;
                self.gc.jobs[u].reading += 1;
                self.enqueue(plane, Class::Gc, t);
            }
        }
        if self.gc.jobs[u].cursor == total && self.gc.jobs[u].reading == 0 {
            self.gc_reads_done(die);
        }
        self.try_erase(u);
    }

    /// Die-GC by copyback begins on unit `u`'s victim group: each plane's
    /// share s = ceil(V / N) of the group's V valid pages; a plane copies
    /// back up to s of its own and receives what it lacks.
    pub(crate) fn group_copy_begin(&mut self, u: usize) {
        let die = DieId(u as u32);
        let n = self.ppd;
        let g = self.gc.jobs[u].victim % self.ftl.blocks_per_plane();
        let bpp = self.ftl.blocks_per_plane();
        let valid: Vec<u32> = die
            .planes(n)
            .map(|p| self.ftl.valid_count(BlockId(p.0 * bpp + g)))
            .collect();
        let share = valid.iter().sum::<u32>().div_ceil(n);
        for (p, v) in die.planes(n).zip(valid) {
            self.gc.rows[p.index()] = Rows {
                cursor: 0,
                stay: v.min(share),
                holes: share.saturating_sub(v),
                written: [0; 2],
            };
        }
    }

    /// Die-GC by copyback: queue rows of moves (a copyback, or for a plane
    /// past its share a read to the controller) while fewer than
    /// `gc.moves_in_flight` per plane are under way; once every move is
    /// done, pad the planes short of the furthest; then erase.
    fn group_copy_refill(&mut self, u: usize) {
        let die = DieId(u as u32);
        let n = self.ppd;
        let (ppb, bpp) = (self.ftl.pages_per_block(), self.ftl.blocks_per_plane());
        let total = self.victim_pages();
        let window = self.gc.window * n;
        let g = self.gc.jobs[u].victim % bpp;
        while self.gc.jobs[u].pending < window && self.gc.jobs[u].cursor < total {
            for plane in die.planes(n) {
                let p = plane.index();
                while self.gc.rows[p].cursor < ppb {
                    let ppn = (plane.0 * bpp + g) * ppb + self.gc.rows[p].cursor;
                    self.gc.rows[p].cursor += 1;
                    self.gc.jobs[u].cursor += 1;
                    let Some(lpn) = self.ftl.owner(ppn) else {
                        continue;
                    };
                    self.ftl.prefetch(lpn);
                    let t = if self.gc.rows[p].stay > 0 {
                        self.gc.rows[p].stay -= 1;
                        let t = self.gc_txn(u, CmdKind::Copyback, plane, lpn, ppn);
                        self.txns[t].separate_read = true;
                        t
                    } else {
                        // Past its share: out to the controller, for a
                        // plane that lacks pages (`group_read_done`).
                        self.gc.jobs[u].reading += 1;
                        self.gc_txn(u, CmdKind::Read, plane, lpn, ppn)
                    };
                    self.gc.jobs[u].pending += 1;
                    self.enqueue(plane, Class::Gc, t);
                    break;
                }
            }
        }
        let job = &self.gc.jobs[u];
        if job.cursor == total && job.pending == 0 && !job.padded {
            self.gc.jobs[u].padded = true;
            self.group_pad(u);
        }
        self.try_erase(u);
    }

    /// Die-GC by copyback: the plane of `die` a page read out to the
    /// controller is programmed on: the one with the most pages still to
    /// receive (the first on a tie); its own plane if none lacks any.
    fn group_copy_target(&mut self, die: DieId, own: PlaneId) -> PlaneId {
        let best = die
            .planes(self.ppd)
            .max_by_key(|q| (self.gc.rows[q.index()].holes, std::cmp::Reverse(q.0)))
            .filter(|q| self.gc.rows[q.index()].holes > 0);
        match best {
            Some(q) => {
                self.gc.rows[q.index()].holes -= 1;
                q
            }
            None => own,
        }
    }

    /// Die-GC by copyback, every move done: queue on each plane of the die
    /// the padding that brings it to the plane the GC wrote most to, in each
    /// stream (only where the write unit keeps the die's write points
    /// aligned: Die-Writes). The GC's own writes are counted, not the write
    /// points: it may start while a Die-Write is half committed (its first
    /// plane's program starts it), which leaves the points aligned once the
    /// rest is.
    fn group_pad(&mut self, u: usize) {
        if !self.ftl.aligned() {
            return;
        }
        let die = DieId(u as u32);
        for hot in [false, true] {
            let written = |s: &Simulator, q: PlaneId| s.gc.rows[q.index()].written[hot as usize];
            let target = die
                .planes(self.ppd)
                .map(|q| written(self, q))
                .max()
                .unwrap_or(0);
            for q in die.planes(self.ppd) {
                for _ in written(self, q)..target {
                    let t = self.gc_txn(u, CmdKind::Program, q, INVALID, INVALID);
                    self.txns[t].data = Data::Pad;
                    self.txns[t].hot = hot;
                    self.gc.jobs[u].pending += 1;
                    self.enqueue(q, Class::Gc, t);
                }
            }
        }
    }

    /// A program or copyback of a die's GC by copyback completed: counted
    /// for its plane and stream (`group_pad`).
    pub(crate) fn group_copy_written(&mut self, t: TxnId) {
        let tx = &self.txns[t];
        self.gc.rows[tx.plane.index()].written[tx.hot as usize] += 1;
    }

    /// A group GC's page read completed: the write unit places its program
    /// (by copyback: see the body).
    pub(crate) fn group_read_done(&mut self, t: TxnId) {
        if self.gc.group_copy() {
            // A copyback the odd/even rule sent through the controller
            // (`separate_read`, set on the copybacks) stays on its plane; a
            // page past its plane's share goes where pages are lacking.
            if self.txns[t].separate_read {
                return self.plane_read_done(t);
            }
            let p = self.move_program(t);
            let die = self.ftl.map.die_of_plane(self.txns[p].plane);
            let q = self.group_copy_target(die, self.txns[p].plane);
            self.txns[p].plane = q;
            self.enqueue(q, Class::Gc, p);
            return;
        }
        let p = self.move_program(t);
        let u = self.txns[t].unit as usize;
        self.gc_program(DieId(u as u32), p);
        self.gc_refill(u);
    }

    /// Die-GC by copyback: a die's write points are apart only while it
    /// collects (its padding realigns them before the erase), and its rows
    /// never run past the victim's blocks.
    pub(crate) fn check_group_copy(&self) -> std::result::Result<(), String> {
        if !self.gc.group_copy() {
            return Ok(());
        }
        let ppb = self.ftl.pages_per_block();
        for die in DieId::all(self.cfg.total_dies()) {
            let job = &self.gc.jobs[die.index()];
            if job.victim == INVALID {
                if self.ftl.aligned() {
                    self.ftl
                        .die_alignment(die)
                        .map_err(|e| format!("no GC under way: {e}"))?;
                }
                continue;
            }
            let looked: u32 = die
                .planes(self.ppd)
                .map(|p| self.gc.rows[p.index()].cursor)
                .sum();
            if looked != job.cursor
                || die
                    .planes(self.ppd)
                    .any(|p| self.gc.rows[p.index()].cursor > ppb)
            {
                return Err(format!(
                    "die {die}: its Die-GC by copyback looked at {} pages, its rows at {looked} (at most {ppb} per plane)",
                    job.cursor
                ));
            }
        }
        Ok(())
    }
}
