//! Where a program or copyback writes: the one decision the command
//! builder's look-ahead ([`peek_dest`](Simulator::peek_dest), in
//! `sched/builder.rs`) and the commit (`commit.rs`) both take from
//! [`dest`](Simulator::dest), so what the builder judges is what is
//! written. Its cases:
//!
//! - a **fixed page** (`Txn::dst`): a FAST merge's data page at its
//!   offset, DVPFTL's in-place copyback to it, a host page planned into
//!   DVPFTL's sequential log;
//! - otherwise the **write point** of the writer's stream in the
//!   transaction's plane (host or GC, hot or cold; a Die-Write's pages all
//!   go to one stream), at the free page its [`Place`] picks: the next; a
//!   page of the source's parity for a copyback under
//!   `gc.parity_destinations`; a page of a wanted type under a page-type
//!   scheme (PA-SSD: the request's type, the buffer's draw, a GC move's
//!   sUB draw); under both, a copyback's page by type then parity (the
//!   wanted type's page if it has the source's parity, else the nearest
//!   type's that has).
//!
//! A new way of choosing a write's page is a case here (and its page
//! choice in `writepoint.rs`), not a branch in the builder and the commit.

use crate::addr::INVALID;
use crate::flash::{CmdKind, Origin};
use crate::sched::txn::Owner;
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::{Dest, Gang, Place, TxnId, Writer};

impl Simulator {
    /// Where program or copyback `t` writes; `gang`: the stream and place
    /// of the Die-Write it is a member of (every page of a Die-Write goes
    /// to one stream at one place, so that the die's write points stay
    /// aligned).
    #[inline(always)]
    pub(crate) fn dest(&self, t: TxnId, gang: Option<Gang>) -> Dest {
        let tx = &self.txns[t];
        if tx.dst != INVALID {
            return Dest::Fixed(tx.dst);
        }
        if let Some(g) = gang {
            return Dest::Stream(g.writer, g.place);
        }
        let w = self.writer(t);
        if tx.kind == CmdKind::Copyback && self.ftl.parity_destinations() {
            let parity = self.ftl.map.page_of(tx.src) % 2;
            if self.cfg.ftl.program_order == crate::config::ProgramOrder::Relaxed {
                return Dest::Stream(w, self.typed_parity_place(t, w, parity));
            }
            return Dest::Stream(w, Place::Parity(parity));
        }
        Dest::Stream(w, self.place(t))
    }

    /// A copyback's page under relaxed program order and parity
    /// destinations: by page type, then parity. Each page type offers one
    /// page (its lane's next), so the wanted type's page is taken if it has
    /// the source's parity, else the page of the nearest type that has it
    /// (the faster first at equal distance); if none has, the wanted type's
    /// (the odd/even rule then sends the move through the controller,
    /// `clean_gc_head`).
    #[inline(never)]
    fn typed_parity_place(&self, t: TxnId, w: Writer, parity: u32) -> Place {
        let want = match self.place(t) {
            Place::Lane(l) => l,
            Place::Next | Place::Parity(_) => 0,
        };
        let lanes = self.cfg.cell.kind.bits();
        let plane = self.txns[t].plane;
        let ppb = self.ftl.pages_per_block();
        let mut order: Vec<usize> = (0..lanes).collect();
        order.sort_by_key(|&l| (l.abs_diff(want), l));
        order
            .into_iter()
            .map(Place::Lane)
            .find(|&place| {
                self.ftl
                    .peek_placed(plane, w, place)
                    .is_some_and(|(_, page)| page < ppb && page % 2 == parity)
            })
            .unwrap_or(Place::Lane(want))
    }

    /// The look-ahead: the in-plane (block, page) `t` would be written to
    /// in `plane` now, if it may be written (a host write may not take the
    /// GC reserve; a hybrid map's domain may hold no more logs).
    #[inline(always)]
    pub(crate) fn peek_dest(
        &self,
        plane: crate::addr::PlaneId,
        t: TxnId,
        gang: Option<Gang>,
    ) -> Option<(u32, u32)> {
        match self.dest(t, gang) {
            Dest::Fixed(p) => Some((self.ftl.map.block_of(p), self.ftl.map.page_of(p))),
            Dest::Stream(w, place) => self.ftl.peek_placed(plane, w, place),
        }
    }

    /// Who writes the page of transaction `t` (stream and reserve rights).
    #[inline]
    pub(crate) fn writer(&self, t: TxnId) -> Writer {
        let tx = &self.txns[t];
        match tx.origin {
            Origin::Gc => Writer::Gc { hot: tx.hot },
            Origin::Host | Origin::Mapping => Writer::Host { hot: tx.hot },
        }
    }

    /// Where a Die-Write of `class` goes: its writer's stream
    /// ([`gang_writer`](Self::gang_writer)) at the next page, or under a
    /// page-type scheme at a page of the type most of its pages want (the
    /// faster of two wanted as often; the next page if none wants a type):
    /// every plane of an aligned group programs the same page index.
    pub(crate) fn gang_of(&self, class: Class, members: &[TxnId]) -> Gang {
        let writer = self.gang_writer(class, members);
        if !self.typed_places() {
            return Gang {
                writer,
                place: Place::Next,
            };
        }
        let mut votes = [0u32; 3];
        for &t in members {
            if let Place::Lane(l) = self.place(t) {
                votes[l] += 1;
            }
        }
        // (The first of the most voted: the faster on a tie.)
        let (lane, most) =
            votes.iter().enumerate().fold(
                (0, 0),
                |best, (l, &v)| if v > best.1 { (l, v) } else { best },
            );
        Gang {
            writer,
            place: if most == 0 {
                Place::Next
            } else {
                Place::Lane(lane)
            },
        }
    }

    /// Who writes a Die-Write of `class`: a GC's Die-Writes (GC class, even
    /// when they carry host pages) may use the GC reserve and go to the
    /// stream they were staged for (`stage` marks every member alike); a
    /// host Die-Write goes where its first host page would.
    pub(crate) fn gang_writer(&self, class: Class, members: &[TxnId]) -> Writer {
        if class == Class::Gc {
            return Writer::Gc {
                hot: self.txns[members[0]].hot,
            };
        }
        members
            .iter()
            .find(|&&t| self.txns[t].origin != Origin::Gc)
            .map_or(Writer::GC, |&t| self.writer(t))
    }

    /// Which page of the active block a program or copyback `t` takes:
    /// under a page-type scheme (`host.page_types`) a page of its wanted
    /// type — a host page's from its request or the buffer's draw (kept in
    /// `unit`), a GC move's drawn in proportion to the drive's free pages
    /// of each type when its GC began (PA-SSD: "GC writes use sUB"), from
    /// its sequence number so that every look at it agrees — else the next.
    #[inline]
    pub(crate) fn place(&self, t: TxnId) -> Place {
        if !self.typed_places() {
            return Place::Next;
        }
        self.typed_place(t)
    }

    /// The page type (lane, fast to slow) write `t` wants: its
    /// [`place`](Self::place)'s, or 0 (the fastest) if it wants none.
    #[inline]
    pub(crate) fn wanted_lane(&self, t: TxnId) -> u8 {
        match self.place(t) {
            Place::Lane(l) => l as u8,
            _ => 0,
        }
    }

    /// May [`place`](Self::place) give anything but the next page (is a
    /// page-type scheme on)?
    #[inline]
    pub(crate) fn typed_places(&self) -> bool {
        self.host.page_types.is_some()
    }

    /// [`place`](Self::place) under a page-type scheme.
    #[inline(never)]
    fn typed_place(&self, t: TxnId) -> Place {
        let tx = &self.txns[t];
        match tx.owner {
            Owner::Host if tx.kind == CmdKind::Program && tx.unit != INVALID => {
                Place::Lane(tx.unit as usize)
            }
            // A die's GC by copyback keeps its planes' blocks in step: its
            // copybacks and padding take the next page (`gc/group.rs`).
            Owner::Gc if self.gc.group_copy() => Place::Next,
            Owner::Gc => {
                let mix = self.gc.jobs[tx.unit as usize].mix;
                let bits = self.cfg.cell.kind.bits();
                let u = crate::ftl::pagetype::unit_from(tx.seq);
                Place::Lane(crate::ftl::pagetype::proportional(mix, bits, u) as usize)
            }
            _ => Place::Next,
        }
    }
}
