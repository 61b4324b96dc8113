//! Request placement in the timed flow: a host write request that a
//! request-level allocator (APM, PaRP, DVP: `twoplane.rs`) places whole —
//! the plane of each page, the fixed pages of a sequential log (DVPFTL),
//! the dummy pages that align its two-plane programs. The host asks when
//! the request arrives (`Simulator::submit`), writes each page where the
//! plan says, and says when it is done.

use crate::addr::{Lpn, PlaneId, INVALID};
use crate::flash::{CmdKind, Origin};
use crate::ftl::twoplane::Plan;
use crate::sched::txn::{Data, Owner};
use crate::sched::Class;
use crate::sim::Simulator;

impl Simulator {
    /// Does a request-level allocator place host write requests whole
    /// (they reach the FTL as they arrive: no write buffer takes them)?
    #[inline]
    pub(crate) fn places_requests(&self) -> bool {
        self.buffer.cache.is_none() && self.ftl.plans_requests()
    }

    /// Place a host write request of pages `lpns` whole, in one write
    /// stream: the one its first page is judged to go to now (with hot/cold
    /// separation the request is the clustered chunk). The dummy pages that
    /// go before its pages are queued now, those after them by
    /// [`place_request_end`](Self::place_request_end).
    pub(crate) fn place_request(&mut self, lpns: &[Lpn]) -> Option<Plan> {
        let hot = self.host_hot(lpns[0]);
        let plan = self.ftl.plan_request(lpns, hot);
        // A sequential log opened for the request took free blocks: their
        // planes may need a merge before they can take a write.
        for p in self.ftl.take_planes_drawn() {
            self.gc_trigger(p);
        }
        if let Some(plan) = &plan {
            plan.before
                .iter()
                .for_each(|&d| self.dummy_pages(d, plan.hot));
        }
        plan
    }

    /// Page `i` of `plan`'s request will be written outside the plan (the
    /// host reads it first to merge a partial write): a sequential log
    /// keeps a hole where it was planned.
    pub(crate) fn unplace(&mut self, plan: &Plan, i: u32) {
        let d = plan.dst_of(i);
        if d != INVALID {
            self.ftl.seq_unplanned(d);
        }
    }

    /// `plan`'s request has queued its pages: the dummy pages that complete
    /// its last two-plane programs follow them.
    pub(crate) fn place_request_end(&mut self, plan: &Plan) {
        plan.after
            .iter()
            .for_each(|&d| self.dummy_pages(d, plan.hot));
    }

    /// Dummy pages a request-level allocator planned on `plane`: programmed
    /// without data in the host's (hot or cold) write stream, so that a
    /// request's pages go as two-plane programs (counted in
    /// `flash.wasted_pages`). They count as pages assigned to the plane
    /// until programmed.
    fn dummy_pages(&mut self, (plane, count): (PlaneId, u32), hot: bool) {
        for _ in 0..count {
            let t = self.new_txn(CmdKind::Program, Origin::Host, plane, INVALID, INVALID);
            let tx = &mut self.txns[t];
            tx.owner = Owner::None;
            tx.data = Data::Pad;
            tx.hot = hot;
            self.ftl.assign(plane);
            self.enqueue(plane, Class::Write, t);
        }
    }
}
