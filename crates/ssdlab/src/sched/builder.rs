//! The command builder: which queued transaction a die runs next, and which
//! heads of its other planes join it in one multi-plane command.

use crate::addr::{DieId, PlaneId, INVALID};
use crate::flash::CmdKind;
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::{Dest, Place, TxnId, MAX_PLANES_PER_DIE};

/// The command builder's modes (`dispatch_from`).
const NORMAL: u8 = 0;
const READS_ONLY: u8 = 1;
const CACHE_PROGRAM: u8 = 2;
const CACHE_READ: u8 = 3;

impl Simulator {
    /// Die-Writes: the heads of `class` on every plane of `die` if they form
    /// a Die-Write that may run now. Host Die-Writes wait for the die's GC
    /// to finish (under SPD+ too: there host pages get through only by
    /// joining the GC's Die-Writes, within the space the GC can spare).
    pub(crate) fn gang(&self, die: DieId, class: Class) -> Option<[TxnId; MAX_PLANES_PER_DIE]> {
        let mut members = [TxnId::NONE; MAX_PLANES_PER_DIE];
        if class == Class::Write && self.gc.active(die.index()) {
            return None;
        }
        for i in 0..self.ppd {
            let p = die.plane(i, self.ppd);
            if class == Class::Write && self.sched.queues.head(p, Class::Gc).is_some() {
                return None;
            }
            let t = self.sched.queues.head(p, class)?;
            if self.txns[t].kind != CmdKind::Program {
                return None;
            }
            members[i as usize] = t;
        }
        // Every member goes where the Die-Write's writer's write point is (a
        // FAST merge queues a data unit's page index, fixed pages, on all
        // planes at once).
        let n = self.ppd as usize;
        let g = self.gang_of(class, &members[..n]);
        die.planes(self.ppd)
            .zip(&members[..n])
            .all(|(p, &t)| self.peek_dest(p, t, Some(g)).is_some())
            .then_some(members)
    }

    /// Does a head of `class` of this kind go as a whole Die-Write? Every
    /// program under Die-Writes or super pages, except a Die-GC by
    /// copyback's (its padding and its moves through the controller go on
    /// their own planes, `gc/group.rs`).
    #[inline]
    fn ganged(&self, class: Class, kind: CmdKind) -> bool {
        self.unit.gangs()
            && kind == CmdKind::Program
            && class != Class::Read
            && !(class == Class::Gc && self.gc.group_copy())
    }

    /// May the head `t` of a queue of `plane` run now? If so, the in-plane
    /// address (block, page) its write would go to — `(0, 0)` for a read or
    /// an erase — looked up once here for both the check and the command's
    /// address ([`cmd_addr`](Self::cmd_addr)).
    pub(crate) fn ready(&self, plane: PlaneId, class: Class, t: TxnId) -> Option<(u32, u32)> {
        if self.gc.hold_die
            && class != Class::Gc
            && self.gc.holds_die(self.ftl.map.die_of_plane(plane))
        {
            return None;
        }
        let tx = &self.txns[t];
        if self.ganged(class, tx.kind) {
            self.gang(self.ftl.map.die_of_plane(plane), class)?;
            return Some(self.dst(plane, t));
        }
        match class {
            Class::Read => Some(self.dst(plane, t)),
            Class::Write => {
                // GC has priority over host writes in its plane; with
                // aligned block groups GC holds the die (it moves pages over
                // all its planes, into groups reserved for them all); a
                // joined GC holds its plane while its moves wait in the
                // cache for placement.
                if self.gc_holds_host_writes(plane) {
                    return None;
                }
                let p = self.peek_dest(plane, t, None)?;
                Some(match tx.kind {
                    CmdKind::Program | CmdKind::Copyback => p,
                    CmdKind::Read | CmdKind::Erase => (0, 0),
                })
            }
            // An idle GC paused by host work starts no move.
            Class::Gc if self.gc.pace.idle.is_some() && self.gc_move_paused(t) => None,
            Class::Gc => match tx.kind {
                CmdKind::Program | CmdKind::Copyback => self.peek_dest(plane, t, None),
                CmdKind::Read | CmdKind::Erase => Some((0, 0)),
            },
        }
    }

    /// The address [`ready`](Self::ready) gives `t` when nothing was
    /// looked up for it on the way: where its write would go
    /// (`(INVALID, INVALID)` if nowhere), or `(0, 0)` for a read or an
    /// erase.
    #[inline]
    fn dst(&self, plane: PlaneId, t: TxnId) -> (u32, u32) {
        match self.txns[t].kind {
            CmdKind::Program | CmdKind::Copyback => self.write_dst(plane, t),
            CmdKind::Read | CmdKind::Erase => (0, 0),
        }
    }

    /// [`dst`](Self::dst) of a program or copyback.
    #[inline(never)]
    fn write_dst(&self, plane: PlaneId, t: TxnId) -> (u32, u32) {
        self.peek_dest(plane, t, None).unwrap_or((INVALID, INVALID))
    }

    /// Dispatch on `die`: the next command by the scheduling policy.
    #[inline]
    pub(crate) fn dispatch(&mut self, die: DieId) {
        self.dispatch_from::<NORMAL>(die)
    }

    /// Dispatch on `die` a command from its read queues only: the reads a
    /// suspended program or erase lets run (`flash/suspend.rs`).
    pub(crate) fn dispatch_reads(&mut self, die: DieId) {
        self.dispatch_from::<READS_ONLY>(die)
    }

    /// Cache program (`flash/cache.rs`): on `die`, busy with a program
    /// whose cache registers are free, take the command the policy would
    /// run next into the cache registers if it is a program.
    pub(crate) fn dispatch_cached_program(&mut self, die: DieId) {
        self.dispatch_from::<CACHE_PROGRAM>(die)
    }

    /// Cache read (`flash/cache.rs`): on `die`, whose read's array phase
    /// just ended, start the command the policy would run next if it is a
    /// read.
    pub(crate) fn dispatch_cached_read(&mut self, die: DieId) {
        self.dispatch_from::<CACHE_READ>(die)
    }

    /// The command builder; `MODE`: `NORMAL`, `READS_ONLY` (from the read
    /// queues only: a suspension's reads), or a cached command's
    /// (`CACHE_PROGRAM`, `CACHE_READ`: the command is built only if it is
    /// of that kind). Separate instances, so that the common one is as it
    /// was.
    #[inline(always)]
    fn dispatch_from<const MODE: u8>(&mut self, die: DieId) {
        let reads_only = MODE == READS_ONLY;
        let first = die.first_plane(self.ppd);
        let planes = die.planes(self.ppd);
        if !reads_only {
            for p in planes.clone() {
                self.clean_gc_head(p);
            }
        }
        // Choose the leading transaction: the oldest eligible head (under
        // PAS, among host writes, the fastest wanted page type first, then
        // the oldest; a head overtaken as often as its type allows ranks
        // first).
        // (class, plane, (PAS rank, sequence number), write address)
        type Lead = (Class, PlaneId, (u8, u64), (u32, u32));
        let mut lead: Option<Lead> = None;
        // What ready() said of the heads of one class (`seen_class`), per
        // plane of the die (bit i of `seen`: plane i was asked; of `ok`: it
        // may run, to `said[i]`): joining sibling planes would ask again of
        // heads that have not changed since.
        let mut seen_class = Class::Read;
        let (mut seen, mut ok) = (0u32, 0u32);
        let mut said = [(0u32, 0u32); MAX_PLANES_PER_DIE];
        // (FLIN's stage 3 chooses each command's order.)
        // (Its stage 2 first fills the die's read and write slots.)
        let order = if self.sched.queues.flin.is_some() {
            self.flin_arbitrate(die);
            self.flin_order(die).unwrap_or(self.sched.queues.order)
        } else {
            self.sched.queues.order
        };
        // Semi-preemptive GC (`gc/pace.rs`): a first pass leaves aside the
        // GC heads of planes that may be preempted; only if no host head
        // of the die may run does a second pass take them.
        let preemptive = self.gc.pace.hard.is_some();
        let mut aside = false;
        let mut aside_seq = u64::MAX;
        for pass in 0..1 + preemptive as u32 {
            if pass == 1 {
                if lead.is_some() || !aside {
                    break;
                }
                (seen_class, seen, ok) = (Class::Read, 0, 0);
            }
            for class in order.classes {
                if reads_only && class != Class::Read {
                    continue;
                }
                for p in planes.clone() {
                    if let Some(t) = self.sched.queues.head(p, class) {
                        // (A move's program, its data in the controller, is
                        // not a preemption point.)
                        if pass == 0
                            && preemptive
                            && class == Class::Gc
                            && self.txns[t].kind != CmdKind::Program
                            && self.gc_preemptible(p)
                        {
                            aside = true;
                            aside_seq = aside_seq.min(self.txns[t].seq);
                            continue;
                        }
                        let rank = match class {
                            Class::Write => self.sched.queues.pas_rank(p).unwrap_or(0),
                            _ => 0,
                        };
                        let key = (rank, self.txns[t].seq);
                        if lead.is_none_or(|(c, _, k, _)| {
                            c != class && key.1 < k.1 || c == class && key < k
                        }) {
                            if seen_class != class {
                                (seen_class, seen, ok) = (class, 0, 0);
                            }
                            let i = p.0 - first.0;
                            seen |= 1 << i;
                            if let Some(dst) = self.ready(p, class, t) {
                                ok |= 1 << i;
                                said[i as usize] = dst;
                                lead = Some((class, p, key, dst));
                            }
                        }
                    }
                }
                if lead.is_some() && order.strict {
                    break;
                }
            }
        }
        let Some((class, lead_plane, lead_key, lead_dst)) = lead else {
            return;
        };
        let lt = self
            .sched
            .queues
            .head(lead_plane, class)
            .expect("lead exists");
        let kind = self.txns[lt].kind;
        match MODE {
            CACHE_PROGRAM if kind != CmdKind::Program => return,
            // GC keeps its priority over host writes: while a GC is under
            // way on the die, its next step is known only when the
            // running command ends, so no host program goes ahead of it
            // into the cache registers.
            CACHE_PROGRAM
                if class == Class::Write
                    && planes.clone().any(|p| self.gc.active(self.gc.unit(p))) =>
            {
                return
            }
            CACHE_READ if kind != CmdKind::Read => return,
            _ => {}
        }
        let cached = MODE == CACHE_PROGRAM || MODE == CACHE_READ;
        // A host command that went ahead of a GC step set aside, which the
        // policy would have run first: a preemption.
        let preempted = aside
            && class != Class::Gc
            && if order.strict {
                let pos = |c: Class| order.classes.iter().position(|&x| x == c);
                pos(Class::Gc) < pos(class)
            } else {
                aside_seq < lead_key.1
            };
        if class == Class::Write && self.cfg.sched.pas {
            // Older write heads of the die that this one overtook.
            for p in planes.clone() {
                if p == lead_plane {
                    continue;
                }
                if let Some(t) = self.sched.queues.head(p, Class::Write) {
                    if self.txns[t].seq < lead_key.1 {
                        self.sched.queues.pas_overtaken(p);
                    }
                }
            }
        }
        if self.ganged(class, kind) {
            let members = self.gang(die, class).expect("ready() saw the Die-Write");
            for p in planes.clone() {
                self.sched.queues.pop(p, class);
            }
            let members = &members[..self.ppd as usize];
            let g = self.gang_of(class, members);
            return if cached {
                self.execute_as::<true>(die, kind, members, Some(g))
            } else {
                self.execute_as::<false>(die, kind, members, Some(g))
            };
        }
        let mut members = [TxnId::NONE; MAX_PLANES_PER_DIE];
        let mut n = 0;
        members[n] = self
            .sched
            .queues
            .pop(lead_plane, class)
            .expect("lead exists");
        n += 1;
        if self.flash.rules.enabled {
            let lead_addr = self.cmd_addr(lt, lead_dst);
            for p in planes.clone() {
                if !self
                    .flash
                    .rules
                    .may_pair(lead_plane.0 - first.0, p.0 - first.0)
                {
                    continue;
                }
                let Some(t) = self.sched.queues.head(p, class) else {
                    continue;
                };
                if self.txns[t].kind != kind {
                    continue;
                }
                // The lead's pop left the other planes' heads, and all that
                // ready() reads, as they were.
                let i = p.0 - first.0;
                let ready = if seen_class == class && seen & (1 << i) != 0 {
                    (ok & (1 << i) != 0).then_some(said[i as usize])
                } else {
                    self.ready(p, class, t)
                };
                let Some(dst) = ready else {
                    continue;
                };
                // Where sibling planes open blocks in one order per write
                // stream, only programs of one stream can share the block
                // index their addresses show.
                if self.ftl.one_stream_per_command()
                    && matches!(kind, CmdKind::Program | CmdKind::Copyback)
                    && self.writer(t) != self.writer(lt)
                {
                    continue;
                }
                let addr = self.cmd_addr(t, dst);
                // Copybacks whose pages are read into their planes'
                // registers one by one: only the destinations need to be
                // aligned.
                let registers = kind == CmdKind::Copyback
                    && self.txns[lt].separate_read
                    && self.txns[t].separate_read;
                if self.addr_aligned(kind, lead_addr, addr, registers) {
                    members[n] = self.sched.queues.pop(p, class).expect("head exists");
                    n += 1;
                }
            }
        }
        if kind == CmdKind::Copyback && self.flash.registers_per_plane > 1 {
            n = self.fill_registers(class, &mut members, n);
        }
        if preempted {
            self.count_preemptions(n);
        }
        if cached {
            self.execute_as::<true>(die, kind, &members[..n], None);
        } else {
            self.execute_as::<false>(die, kind, &members[..n], None);
        }
    }

    /// Has `die` a read it may run now: the head of one of its read queues,
    /// ready?
    pub(crate) fn reads_ready(&self, die: DieId) -> bool {
        // (Of any priority class under FLIN's stage 2.)
        (0..self.sched.queues.prios()).any(|c| {
            die.planes(self.ppd).any(|p| {
                self.sched
                    .queues
                    .head_of(p, Class::Read, c)
                    .is_some_and(|t| self.ready(p, Class::Read, t).is_some())
            })
        })
    }

    /// Multi-register planes (`flash.plane_registers` = k): every plane of a
    /// copyback command runs up to k copybacks at once, so the next heads of
    /// each member plane's queue join (the planes' first pages were paired
    /// above; the others go through the planes' other registers and need no
    /// alignment), as long as they are copybacks of the same write stream
    /// that fit in the plane's active block (and, with the odd/even rule,
    /// whose source parity matches the page each would take); a merge's
    /// in-place copybacks (fixed pages) join when they go to later pages of
    /// the first one's block. Returns the new member count.
    fn fill_registers(
        &mut self,
        class: Class,
        members: &mut [TxnId; MAX_PLANES_PER_DIE],
        n: usize,
    ) -> usize {
        let k = self.flash.registers_per_plane as usize;
        let ppb = self.ftl.pages_per_block();
        let mut total = n;
        for i in 0..n {
            let first = members[i];
            let (plane, w) = (self.txns[first].plane, self.writer(first));
            // Pages this command already takes in the plane: in all, and
            // of each parity.
            let mut taken = [0u32; 2];
            taken[(self.ftl.map.page_of(self.txns[first].src) % 2) as usize] += 1;
            // A merge's in-place copybacks (DVPFTL's map) go to fixed pages:
            // the last one this command takes in the plane.
            let mut fixed = match self.dest(first, None) {
                Dest::Fixed(p) => Some(p),
                Dest::Stream(..) => None,
            };
            // Blocks this command's copybacks by page type take in the
            // plane (at most 8 registers per plane).
            let mut typed = [INVALID; 8];
            let mut n_typed = 0;
            if let Dest::Stream(w0, place @ Place::Lane(_)) = self.dest(first, None) {
                if let Some((b, _)) = self.ftl.peek_placed(plane, w0, place) {
                    typed[0] = b;
                    n_typed = 1;
                }
            }
            while ((taken[0] + taken[1]) as usize) < k && total < MAX_PLANES_PER_DIE {
                // A move whose page the host rewrote since it was queued
                // is dropped here too, not copied.
                if class == Class::Gc {
                    self.drop_stale_gc_heads(plane);
                }
                let Some(t) = self.sched.queues.head(plane, class) else {
                    break;
                };
                if self.txns[t].kind != CmdKind::Copyback || self.writer(t) != w {
                    break;
                }
                let parity = self.ftl.map.page_of(self.txns[t].src) % 2;
                // The page it would take: the next of its parity after those
                // taken, or the next page after all taken (only its parity
                // and the block's end are judged here; `ready` asks for it).
                let mut next_fixed = None;
                let mut next_typed = INVALID;
                let dst_page = match (self.dest(t, None), fixed) {
                    (Dest::Stream(_, Place::Parity(p)), None) => self
                        .ftl
                        .peek_write_parity(plane, w, p)
                        .map(|(_, page)| page + 2 * taken[p as usize]),
                    // A page type's page is not the next after those
                    // taken. With type pools each type has its own active
                    // block: a copyback whose page is in a block no earlier
                    // member of this command takes goes to the page peeked
                    // now (the others' programs do not move it), whose
                    // parity is judged below; otherwise, under the odd/even
                    // rule, it waits for the next command (where
                    // `clean_gc_head` judges it).
                    (Dest::Stream(_, place @ Place::Lane(_)), None)
                        if self.cfg.flash.copyback_odd_even =>
                    {
                        match self.ftl.peek_placed(plane, w, place) {
                            Some((b, page))
                                if self.cfg.ftl.type_pools
                                    && n_typed > 0
                                    && n_typed < typed.len()
                                    && !typed[..n_typed].contains(&b) =>
                            {
                                next_typed = b;
                                Some(page)
                            }
                            _ => None,
                        }
                    }
                    // Under a page-type scheme a block's next pages are not
                    // those after the first (its lanes were taken out of
                    // index order): the next page (a die's GC by copyback)
                    // joins while the active block has room, and not under
                    // the odd/even rule (judged in the next command).
                    (Dest::Stream(_, Place::Next), None) if self.typed_places() => {
                        (!self.cfg.flash.copyback_odd_even
                            && self.ftl.active_room(plane, w) > taken[0] + taken[1])
                            .then_some(0)
                    }
                    (Dest::Stream(..), None) => self
                        .ftl
                        .peek_write(plane, w)
                        .map(|(_, page)| page + taken[0] + taken[1]),
                    // A later page of the same block, in program order.
                    (Dest::Fixed(p), Some(prev)) => {
                        let m = &self.ftl.map;
                        (m.plane_of(p) == plane
                            && m.block_of(p) == m.block_of(prev)
                            && m.page_of(p) > m.page_of(prev))
                        .then(|| {
                            next_fixed = Some(p);
                            m.page_of(p)
                        })
                    }
                    (Dest::Fixed(_), None) | (Dest::Stream(..), Some(_)) => None,
                };
                let Some(dst_page) = dst_page.filter(|&p| p < ppb) else {
                    break;
                };
                if (self.cfg.flash.copyback_odd_even && parity != dst_page % 2)
                    || self.ready(plane, class, t).is_none()
                {
                    break;
                }
                members[total] = self.sched.queues.pop(plane, class).expect("head exists");
                total += 1;
                taken[parity as usize] += 1;
                if next_fixed.is_some() {
                    fixed = next_fixed;
                }
                if next_typed != INVALID {
                    typed[n_typed] = next_typed;
                    n_typed += 1;
                }
            }
        }
        total
    }

    /// Source and destination in-plane addresses that alignment is judged
    /// on; `dst` is what [`ready`](Self::ready) found.
    pub(crate) fn cmd_addr(&self, t: TxnId, dst: (u32, u32)) -> [(u32, u32); 2] {
        let m = &self.ftl.map;
        let src = self.txns[t].src;
        let s = if src == INVALID {
            (0, 0)
        } else {
            (m.block_of(src), m.page_of(src))
        };
        [s, dst]
    }

    /// May commands at in-plane addresses `a` and `b` (source, destination)
    /// join? `registers`: copybacks whose sources are read one by one into
    /// their planes' registers (only the destinations must be aligned).
    pub(crate) fn addr_aligned(
        &self,
        kind: CmdKind,
        a: [(u32, u32); 2],
        b: [(u32, u32); 2],
        registers: bool,
    ) -> bool {
        let r = &self.flash.rules;
        match kind {
            CmdKind::Read => r.aligned(a[0].0, a[0].1, b[0].0, b[0].1),
            CmdKind::Program => r.aligned(a[1].0, a[1].1, b[1].0, b[1].1),
            CmdKind::Erase => r.erase_aligned(a[0].0, b[0].0),
            CmdKind::Copyback => {
                (registers || r.aligned(a[0].0, a[0].1, b[0].0, b[0].1))
                    && r.aligned(a[1].0, a[1].1, b[1].0, b[1].1)
                    && (!self.cfg.flash.copyback_odd_even || b[0].1 % 2 == b[1].1 % 2)
            }
        }
    }
}
