//! Completion routing: a finished transaction goes back to the layer that
//! created it.

use crate::sched::txn::Owner;
use crate::sim::Simulator;
use crate::types::TxnId;

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
}
