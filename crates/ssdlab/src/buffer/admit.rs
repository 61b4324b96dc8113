//! The write buffer in the simulator: admission of host writes, and
//! eviction of buffered pages to flash.

use crate::addr::INVALID;
use crate::buffer::WriteOutcome;
use crate::config::PlaneAllocation;
use crate::flash::{CmdKind, Origin};
use crate::ftl::Writer;
use crate::sim::*;

impl Simulator {
    /// Move waiting writes into the buffer while it has room (in arrival
    /// order), then start evictions if it needs space.
    pub(crate) fn admit_waiting(&mut self) {
        while let Some(&(req, lpn)) = self.waiting.front() {
            let version = match &self.ftl.versions {
                Some(v) => v.latest[lpn as usize] + 1,
                None => 0,
            };
            let buf = self.buf.as_ref().expect("buffered mode");
            let dirty = buf.is_dirty(lpn);
            if !dirty && !buf.has_free_slot() {
                break;
            }
            // The plane of a new buffered page is chosen when it enters the
            // buffer (static: by LPN; dynamic: by the policy, as things are
            // now); an in-place update keeps its slot.
            let (die, plane) = if dirty {
                (0, INVALID)
            } else if self.cfg.ftl.plane_allocation == PlaneAllocation::DieRoundRobin {
                // The plane within the die is chosen when the page leaves.
                (self.unit_die(lpn), INVALID)
            } else {
                let queues = &self.queues;
                // (Dynamic policies ignore the write stream.)
                let w = Writer::Host { hot: false };
                let plane = self.ftl.choose_plane(lpn, w, |d| queues.die_load(d));
                (self.ftl.map.die_of_plane(plane), plane)
            };
            let buf = self.buf.as_mut().expect("buffered mode");
            match buf.write(lpn, die, plane, version) {
                WriteOutcome::Full => break,
                outcome => {
                    if outcome == WriteOutcome::Hit {
                        self.metrics.write_hits += 1;
                    } else if plane != INVALID {
                        self.ftl.assign(plane);
                    }
                    self.next_version(lpn);
                    self.waiting.pop_front();
                    self.sub_done(req);
                }
            }
        }
        self.maybe_evict();
    }

    pub(crate) fn maybe_evict(&mut self) {
        let mut out = std::mem::take(&mut self.evict_out);
        while let (Some(buf), Some(policy)) = (self.buf.as_mut(), self.policy.as_mut()) {
            if !buf.wants_eviction(self.waiting.len()) {
                break;
            }
            buf.evict(policy.as_mut(), &mut out);
            if out.is_empty() {
                break;
            }
            self.unit_evicted(&out);
        }
        self.evict_out = out;
    }

    /// The program transaction of a page leaving the buffer (its plane, if
    /// already bound, else INVALID).
    pub(crate) fn evicted_txn(&mut self, slot: u32) -> u32 {
        let buf = self.buf.as_ref().expect("buffered mode");
        let (lpn, version, plane) = (
            buf.slot_lpn(slot),
            buf.slot_version(slot),
            buf.slot_plane(slot),
        );
        self.ftl.prefetch(lpn);
        let t = self.new_txn(CmdKind::Program, Origin::Host, plane, lpn, INVALID);
        self.txns[t as usize].hot = self.host_hot(lpn);
        self.txns[t as usize].slot = slot;
        self.txns[t as usize].version = version;
        self.inflight.insert(lpn, t);
        t
    }

    /// Program transactions of up to `pages` of the die's least recently used
    /// dirty buffer pages, evicted to complete a Die-Write.
    pub(crate) fn evict_from_die(&mut self, die: u32, pages: usize) -> Vec<u32> {
        let mut out = Vec::new();
        if let Some(buf) = self.buf.as_mut() {
            buf.evict(
                &mut crate::buffer::FromDie {
                    die,
                    pages: pages as u32,
                },
                &mut out,
            );
        }
        out.into_iter().map(|slot| self.evicted_txn(slot)).collect()
    }
}
