//! Small types every layer names: the typed ids of host requests and
//! transactions, who writes a page and where, and the most planes a die
//! may have.
//! They sit at the bottom of the layers so that a lower layer never has to
//! reach up for them.

crate::addr::id_type! {
    /// A host request: its index in the host's slab (`Host::reqs`).
    ReqId
}

impl ReqId {
    /// No request (a transaction no request waits for).
    pub const NONE: ReqId = ReqId(u32::MAX);
}

crate::addr::id_type! {
    /// A transaction: its index in the simulator's slab (`Simulator::txns`).
    TxnId
}

impl TxnId {
    /// No transaction (an empty place in a command, a gang or a cache).
    pub const NONE: TxnId = TxnId(u32::MAX);
}

/// Who writes a page: decides the active block (write stream) it goes to and
/// whether it may use the free block kept for GC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// Host data. With hot/cold separation, hot pages go to the hot stream,
    /// cold ones to the cold stream; without, there is one stream.
    Host { hot: bool },
    /// Garbage collection (timed or untimed): the reserve blocks, and the
    /// cold stream, or the hot one for a move judged hot when hot/cold
    /// separation sorts GC moves (`ftl.hot_separation = "gc-moves"`).
    Gc { hot: bool },
}

impl Writer {
    /// GC writing to the cold stream (preconditioning, padding, and every
    /// move unless hot/cold separation sorts GC moves).
    pub const GC: Writer = Writer::Gc { hot: false };
}

/// Which free page of the active block a write takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The next page: the lowest free page (under relaxed program order the
    /// lowest-index candidate, which is the strict order).
    Next,
    /// `gc.parity_destinations`: the lowest free page of this parity.
    Parity(u32),
    /// Relaxed program order: a candidate page of this lane (page type,
    /// fast to slow), or of the first alternate that has one (PA-SSD's
    /// pa-BLAlloc and its exception handling).
    Lane(usize),
}

/// Where a program or copyback writes: the FTL's one decision
/// (`Simulator::dest`, `ftl/dest.rs`), which the command builder's
/// look-ahead and the commit both take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    /// This physical page.
    Fixed(crate::addr::Ppn),
    /// The write point of this writer's stream in the transaction's plane,
    /// at the free page this place picks.
    Stream(Writer, Place),
}

/// Where every page of a Die-Write goes: one write stream, and one place
/// in it, so that the die's write points stay aligned (under a page-type
/// scheme one page type for the whole Die-Write, `Simulator::gang_of`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gang {
    pub writer: Writer,
    pub place: Place,
}

/// The most planes a die may have: a command's members and a die's
/// per-plane state are fixed-size arrays of this length (`Simulator::new`
/// refuses more).
pub const MAX_PLANES_PER_DIE: usize = 16;
