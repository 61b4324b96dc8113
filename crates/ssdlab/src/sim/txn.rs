//! Completion routing, and where a program or copyback writes.

use crate::addr::INVALID;
use crate::flash::{CmdKind, Origin};
use crate::sched::txn::Owner;
use crate::sim::Simulator;
use crate::types::{TxnId, Writer};

impl Simulator {
    /// Transaction `t` completed: its owner takes it from here.
    pub(crate) fn finish_txn(&mut self, t: TxnId) {
        match self.txns[t].owner {
            Owner::Host => self.host_txn_done(t),
            Owner::Mapping => self.map_txn_done(t),
            Owner::Gc => self.gc_txn_done(t),
            Owner::Unit => self.unit_txn_done(t),
            Owner::None => {}
        }
        self.free_txn(t);
    }

    /// Which page of the active block a program or copyback `t` takes:
    /// under a page-type scheme (`host.page_types`) a page of its wanted
    /// type — a host page's from its request or the buffer's draw (kept in
    /// `unit`), a GC move's drawn in proportion to the drive's free pages
    /// of each type when its GC began (PA-SSD: "GC writes use sUB"), from
    /// its sequence number so that every look at it agrees — else the next.
    #[inline]
    pub(crate) fn place(&self, t: TxnId) -> crate::ftl::Place {
        if !self.typed_places() {
            return crate::ftl::Place::Next;
        }
        self.typed_place(t)
    }

    /// The page type (lane, fast to slow) write `t` wants: its
    /// [`place`](Self::place)'s, or 0 (the fastest) if it wants none.
    #[inline]
    pub(crate) fn wanted_lane(&self, t: TxnId) -> u8 {
        match self.place(t) {
            crate::ftl::Place::Lane(l) => l as u8,
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
    fn typed_place(&self, t: TxnId) -> crate::ftl::Place {
        use crate::ftl::Place;
        let tx = &self.txns[t];
        match tx.owner {
            Owner::Host if tx.kind == CmdKind::Program && tx.unit != INVALID => {
                Place::Lane(tx.unit as usize)
            }
            Owner::Gc => {
                let mix = self.gc.jobs[tx.unit as usize].mix;
                let bits = self.cfg.cell.kind.bits();
                let u = crate::ftl::pagetype::unit_from(tx.seq);
                Place::Lane(crate::ftl::pagetype::proportional(mix, bits, u) as usize)
            }
            _ => Place::Next,
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
}
