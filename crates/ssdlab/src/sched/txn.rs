//! Transactions: one page operation (read, program, erase, copyback) from
//! its creation to its completion, kept in a slab reused through a free
//! list; the unit the queues hold, the command builder joins and the
//! executor runs. Who created one is told when it completes
//! (`Simulator::finish_txn`).

use crate::addr::{Lpn, PlaneId, Ppn, INVALID};
use crate::engine::Time;
use crate::flash::{CmdKind, Origin};
use crate::sim::Simulator;
use crate::types::{ReqId, TxnId};

/// Who is told when a transaction completes: the layer that created it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// The host: a request's page read (or a read-modify-write's read), a
    /// host page's program (from the buffer, or straight from the request).
    Host,
    /// DFTL's translation-page reads and write-backs.
    Mapping,
    /// Garbage collection (or a FAST merge) of GC unit `Txn::unit`.
    Gc,
    /// The write unit's own (SuperPage: a read for super page `Txn::unit`).
    Unit,
    /// Nobody: padding, SuperPage's copies.
    None,
}

/// What a program writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Data {
    /// New data of `lpn`: a host page or a translation page (its version,
    /// slot and request are on the transaction).
    New,
    /// GC moves page `src` (programmed stale, as wasted, if the host
    /// rewrote it meanwhile).
    Move,
    /// The page at `src` is rewritten unchanged as host data (SuperPage's
    /// read-before-update; wasted if stale).
    Copy,
    /// Nothing: a page programmed only to complete a multi-plane command.
    Pad,
}

#[derive(Clone, Copy)]
pub(crate) struct Txn {
    pub(crate) kind: CmdKind,
    /// Whose traffic it is, for the counters (host, GC, mapping).
    pub(crate) origin: Origin,
    pub(crate) owner: Owner,
    pub(crate) data: Data,
    pub(crate) plane: PlaneId,
    pub(crate) lpn: Lpn,
    /// Read / copyback / GC-program source; program destination once dispatched.
    pub(crate) src: Ppn,
    /// A fixed destination page (a FAST merge's data unit page, by offset),
    /// else INVALID: the FTL's write point decides.
    pub(crate) dst: Ppn,
    /// Owner's datum: the GC unit (`Owner::Gc`), the super page
    /// (`Owner::Unit`), the page type a host program wants under a
    /// page-type scheme (`Owner::Host`, see `place`), else INVALID.
    pub(crate) unit: u32,
    /// Host request, or `ReqId::NONE`.
    pub(crate) req: ReqId,
    /// Buffer slot being flushed, or INVALID.
    pub(crate) slot: u32,
    pub(crate) version: u32,
    /// A read-modify-write's read: the page write follows it.
    pub(crate) rmw: bool,
    /// Judged hot (goes to the hot write stream).
    pub(crate) hot: bool,
    /// Programmed even if its page went stale in the queue (a member of a
    /// Die-Write, a FAST merge's page): never dropped from a GC queue.
    pub(crate) keep: bool,
    /// A copyback whose source is read into its own plane's register on
    /// its own: in a multi-plane copyback only the destinations need to be
    /// aligned, and the sources are read one after another.
    pub(crate) separate_read: bool,
    /// Host program: when it was queued, and the die's GC-active clock then
    /// (replaced, once dispatched, by the GC time it waited through).
    pub(crate) queued_at: Time,
    pub(crate) gc_mark: Time,
    pub(crate) seq: u64,
}

pub(crate) fn new_txn_in(
    txns: &mut Vec<Txn>,
    free: &mut Vec<TxnId>,
    kind: CmdKind,
    origin: Origin,
    plane: PlaneId,
    lpn: Lpn,
    src: Ppn,
) -> TxnId {
    let (owner, data) = match origin {
        Origin::Host => (Owner::Host, Data::New),
        Origin::Mapping => (Owner::Mapping, Data::New),
        Origin::Gc => (Owner::Gc, Data::Move),
    };
    let tx = Txn {
        kind,
        origin,
        owner,
        data,
        plane,
        lpn,
        src,
        dst: INVALID,
        unit: INVALID,
        req: ReqId::NONE,
        slot: INVALID,
        version: 0,
        rmw: false,
        hot: false,
        keep: false,
        separate_read: false,
        queued_at: 0,
        gc_mark: 0,
        seq: 0,
    };
    match free.pop() {
        Some(i) => {
            txns[i] = tx;
            i
        }
        None => {
            txns.push(tx);
            TxnId((txns.len() - 1) as u32)
        }
    }
}

impl Simulator {
    pub(crate) fn new_txn(
        &mut self,
        kind: CmdKind,
        origin: Origin,
        plane: PlaneId,
        lpn: Lpn,
        src: Ppn,
    ) -> TxnId {
        let t = new_txn_in(
            &mut self.txns,
            &mut self.free_txns,
            kind,
            origin,
            plane,
            lpn,
            src,
        );
        if let Some(f) = self.sched.queues.flin.as_deref_mut() {
            f.created(t);
        }
        // (Attribution follows host transactions: a request's pages.)
        if let (Some(a), Origin::Host) = (&mut self.attr, origin) {
            a.created(t, self.engine.now());
        }
        // A GC write's stream: judged when the write is created (a move's
        // read needs no stream; its program is created when the read is done).
        if self.hot.sort_moves
            && origin == Origin::Gc
            && lpn != INVALID
            && matches!(kind, CmdKind::Program | CmdKind::Copyback)
        {
            self.txns[t].hot = self.move_hot(lpn);
        }
        t
    }

    pub(crate) fn free_txn(&mut self, t: TxnId) {
        self.free_txns.push(t);
    }
}

#[cfg(test)]
mod tests {
    /// A transaction fits one cache line (memory per queued page, and the
    /// slab's locality); a field added to it should not push it over.
    #[test]
    fn a_transaction_fits_a_cache_line() {
        assert_eq!(std::mem::size_of::<super::Txn>(), 64);
    }
}
