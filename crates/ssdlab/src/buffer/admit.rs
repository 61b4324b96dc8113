//! The write buffer in the simulator: admission of host writes, and
//! eviction of buffered pages to flash.

use std::collections::VecDeque;

use crate::addr::INVALID;
use crate::addr::{DieId, Lpn, PlaneId};
use crate::buffer::WriteOutcome;
use crate::buffer::{EvictionPolicy, WriteBuffer};
use crate::config::PlaneAllocation;
use crate::config::{BufferCapacity, Config, SlotFrees};
use crate::error::{Error, Result};
use crate::flash::{CmdKind, Origin};
use crate::sim::Simulator;
use crate::types::ReqId;
use crate::types::TxnId;
use crate::types::Writer;

/// Host page writes waiting for a slot of the buffer: one queue per
/// partition (one for a shared buffer), each in arrival order.
#[derive(Default)]
pub(crate) struct Waiting {
    queues: Vec<VecDeque<(ReqId, Lpn)>>,
    len: usize,
}

impl Waiting {
    fn new(parts: u32) -> Waiting {
        Waiting {
            queues: (0..parts.max(1)).map(|_| VecDeque::new()).collect(),
            len: 0,
        }
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Writes waiting, over every partition.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
    pub(crate) fn push(&mut self, part: u32, w: (ReqId, Lpn)) {
        self.queues[part as usize].push_back(w);
        self.len += 1;
    }
    /// Keeps the writes `keep` holds to, in order.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&(ReqId, Lpn)) -> bool) {
        for q in &mut self.queues {
            q.retain(&mut keep);
        }
        self.len = self.queues.iter().map(VecDeque::len).sum();
    }
}

/// The write buffer as the simulator runs it: the cache (None without a
/// buffer), its eviction policy, the host writes waiting for a free slot
/// (per partition, in arrival order), and the capacity in pages.
pub(crate) struct Buffering {
    pub(crate) cache: Option<WriteBuffer>,
    pub(crate) policy: Option<Box<dyn EvictionPolicy>>,
    pub(crate) waiting: Waiting,
    /// A partition per flow (`buffer.sharing = "partitioned"`).
    pub(crate) partitioned: bool,
    pub(crate) evict_out: Vec<u32>,
    /// `buffer.slot_frees = "eviction"` (SSDSim's buffer): an evicted
    /// page's slot frees at once.
    pub(crate) frees_at_eviction: bool,
    /// Under it, while a write's eviction runs: the write (request, page)
    /// that completes with the pages evicted, and how many are bound to it.
    pub(crate) binding: Option<(ReqId, Lpn, u32)>,
    /// Pages evicted so far (the controller's DRAM reads them out).
    pub(crate) evicted: u64,
    pub(crate) pages: u64,
    /// How `pages` was sized, in words (reported).
    pub(crate) sizing: String,
}

impl Buffering {
    /// The buffer `cfg` asks for, evicting by `policy`; `footprint` (pages
    /// the workload touches) sizes a buffer given as a share of it, which is
    /// at least one page per plane (the SPD paper's smallest buffer for its
    /// die-level writes: one page per plane of every die), so that a small
    /// workload does not make a drive with a buffer too small to keep its
    /// planes busy.
    pub(crate) fn new(
        cfg: &Config,
        footprint: u64,
        policy: Box<dyn EvictionPolicy>,
    ) -> Result<Buffering> {
        let (pages, sizing) = match cfg.buffer.capacity {
            BufferCapacity::None => (0, "no buffer".to_string()),
            BufferCapacity::Pages(n) => (n, format!("set: {n} pages")),
            BufferCapacity::FootprintPercent(pct) => {
                let share = ((footprint as f64 * pct / 100.0).ceil() as u64).max(1);
                let floor = cfg.total_planes() as u64;
                if share >= floor {
                    (
                        share,
                        format!("{pct} % of the workload's footprint of {footprint} pages"),
                    )
                } else {
                    (
                        floor,
                        format!(
                            "{pct} % of the workload's footprint of {footprint} pages would be \
                             {share}, raised to the floor of one page per plane"
                        ),
                    )
                }
            }
        };
        if pages > u32::MAX as u64 / 2 {
            return Err(Error::config(
                &cfg.name,
                "buffer.capacity",
                format!("{pages} pages is too large"),
            ));
        }
        let partitioned = !cfg.buffer.sharing.is_shared() && pages > 0;
        let parts = if partitioned {
            cfg.flows.len() as u32
        } else {
            1
        };
        if partitioned && pages < parts as u64 {
            return Err(Error::config(
                &cfg.name,
                "buffer.capacity",
                format!(
                    "a buffer of {pages} pages ({sizing}) cannot be split among {parts} flows \
                     (buffer.sharing = \"partitioned\"): at least one page each"
                ),
            ));
        }
        let (cache, policy) = if pages > 0 {
            (
                Some(WriteBuffer::partitioned(
                    pages as u32,
                    parts,
                    crate::domain::die_turns(
                        cfg.geometry.channels,
                        cfg.geometry.chips_per_channel,
                        cfg.geometry.dies_per_chip,
                        cfg.buffer.die_order,
                    ),
                    (
                        cfg.buffer.free_watermark,
                        cfg.buffer
                            .free_watermark_high
                            .max(cfg.buffer.free_watermark),
                    ),
                )),
                Some(policy),
            )
        } else {
            (None, None)
        };
        Ok(Buffering {
            cache,
            policy,
            waiting: Waiting::new(parts),
            partitioned,
            evict_out: Vec::new(),
            frees_at_eviction: cfg.buffer.slot_frees == SlotFrees::Eviction,
            binding: None,
            evicted: 0,
            pages,
            sizing,
        })
    }
}

impl Simulator {
    /// The buffer partition of request `req`'s pages (0: shared).
    #[inline]
    pub(crate) fn buffer_part(&self, req: ReqId) -> u32 {
        if self.buffer.partitioned {
            self.host.reqs[req].flow
        } else {
            0
        }
    }

    /// Move waiting writes into the buffer while their partitions have
    /// room (each partition's in arrival order), then start evictions where
    /// space is needed.
    pub(crate) fn admit_waiting(&mut self) {
        if self.buffer.partitioned {
            for part in 0..self.buffer.waiting.queues.len() as u32 {
                self.admit_waiting_in(part);
            }
        } else {
            self.admit_waiting_in(0);
        }
        self.maybe_evict();
    }

    #[inline(always)]
    fn admit_waiting_in(&mut self, part: u32) {
        while let Some(&(req, lpn)) = self.buffer.waiting.queues[part as usize].front() {
            let version = self.ftl.version_after(lpn);
            let buf = self.buffer.cache.as_ref().expect("buffered mode");
            let dirty = buf.is_dirty(lpn);
            // (`buffer.slot_frees = "eviction"`: a write that finds no free
            // slot evicts at once and completes with the pages it evicted.)
            let bound = !dirty && !buf.has_room(part);
            if bound && !(self.buffer.frees_at_eviction && self.evict_for(req, lpn, part)) {
                break;
            }
            // The plane of a new buffered page is chosen when it enters the
            // buffer (static: by LPN; dynamic: by the policy, as things are
            // now); an in-place update keeps its slot.
            let (die, plane) = if dirty {
                (DieId(0), PlaneId::NONE)
            } else if self.cfg.ftl.plane_allocation == PlaneAllocation::DieRoundRobin {
                // The plane within the die is chosen when the page leaves.
                (self.unit_die(lpn), PlaneId::NONE)
            } else {
                let queues = &self.sched.queues;
                // (Dynamic policies ignore the write stream.)
                let w = Writer::Host { hot: false };
                let plane = self.ftl.choose_plane(lpn, w, |d| queues.die_load(d));
                (self.ftl.map.die_of_plane(plane), plane)
            };
            let buf = self.buffer.cache.as_mut().expect("buffered mode");
            match buf.write(lpn, die, plane, version, part) {
                WriteOutcome::Full => break,
                outcome => {
                    if outcome == WriteOutcome::Hit {
                        self.metrics.write_hits += 1;
                    } else if plane != PlaneId::NONE {
                        self.ftl.assign(plane);
                    }
                    self.next_version(lpn);
                    self.buffer.waiting.queues[part as usize].pop_front();
                    self.buffer.waiting.len -= 1;
                    if self.host.flows.is_some() {
                        // (The page's flow, for its program: FLIN's order
                        // and the flow's time blocked by GC.)
                        let flow = self.host.reqs[req].flow;
                        let buf = self.buffer.cache.as_mut().expect("buffered mode");
                        if let Some(slot) = buf.slot_of(lpn) {
                            buf.set_writer(slot, flow);
                        }
                    }
                    if bound {
                        continue;
                    }
                    if let Some(a) = &mut self.attr {
                        let now = self.engine.now();
                        a.buffer_page(req, lpn, self.host.reqs[req].started, now);
                    }
                    self.sub_done(req);
                }
            }
        }
    }

    /// `buffer.slot_frees = "eviction"`: write `lpn` of `req` found no free
    /// slot in its partition `part`; evict once from it, the pages evicted
    /// bound to the write (its page completes when they all have). False if
    /// nothing could be evicted.
    #[cold]
    fn evict_for(&mut self, req: ReqId, lpn: Lpn, part: u32) -> bool {
        let mut out = std::mem::take(&mut self.buffer.evict_out);
        if let (Some(buf), Some(policy)) = (self.buffer.cache.as_mut(), self.buffer.policy.as_mut())
        {
            buf.evict(part, policy.as_mut(), &mut out);
        }
        let evicted = !out.is_empty();
        if evicted {
            self.buffer.binding = Some((req, lpn, 0));
            self.unit_evicted(&out);
            self.buffer.binding = None;
        }
        self.buffer.evict_out = out;
        evicted
    }

    /// A page left the buffer as program `t`: under
    /// `buffer.slot_frees = "eviction"` its slot frees now, and the write
    /// being bound (if any) completes with `t` too.
    #[cold]
    fn evicted_now(&mut self, t: TxnId, slot: u32) {
        self.buffer
            .cache
            .as_mut()
            .expect("buffered mode")
            .flush_done(slot);
        let Some((req, lpn, n)) = self.buffer.binding else {
            return;
        };
        if n > 0 {
            self.host.reqs[req].pages_left += 1;
        }
        self.buffer.binding = Some((req, lpn, n + 1));
        self.txns[t].req = req;
        if let Some(a) = &mut self.attr {
            // Until now the page waited for buffer room (after whatever
            // it carried, for its first program).
            let now = self.engine.now();
            let carried = a.carried(req, lpn);
            let before: u64 = carried.iter().sum();
            a.start_from(t, carried);
            let waited = (now - self.host.reqs[req].started).saturating_sub(before);
            a.add(t, crate::attribution::Part::Buffer, waited);
        }
    }

    /// Evict from each partition while it wants to (its waiting writes
    /// need slots, or its free slots are below the watermark).
    pub(crate) fn maybe_evict(&mut self) {
        let mut out = std::mem::take(&mut self.buffer.evict_out);
        let parts = if self.buffer.partitioned {
            self.buffer.waiting.queues.len() as u32
        } else {
            1
        };
        for part in 0..parts {
            while let (Some(buf), Some(policy)) =
                (self.buffer.cache.as_mut(), self.buffer.policy.as_mut())
            {
                let waiting = self.buffer.waiting.queues[part as usize].len();
                if !buf.wants_eviction(part, waiting) {
                    break;
                }
                buf.evict(part, policy.as_mut(), &mut out);
                if out.is_empty() {
                    break;
                }
                self.unit_evicted(&out);
            }
        }
        self.buffer.evict_out = out;
    }

    /// The program transaction of a page leaving the buffer (its plane, if
    /// already bound, else INVALID).
    pub(crate) fn evicted_txn(&mut self, slot: u32) -> TxnId {
        let buf = self.buffer.cache.as_ref().expect("buffered mode");
        let (lpn, version, plane, flow) = (
            buf.slot_lpn(slot),
            buf.slot_version(slot),
            buf.slot_plane(slot),
            buf.slot_writer(slot),
        );
        self.ftl.prefetch(lpn);
        self.buffer.evicted += 1;
        let t = self.new_txn(CmdKind::Program, Origin::Host, plane, lpn, INVALID);
        self.txns[t].hot = self.host_hot(lpn);
        self.txns[t].slot = slot;
        self.txns[t].version = version;
        if let Some(f) = self.host.flows.as_deref_mut() {
            f.set_txn_flow(t, flow);
        }
        self.flin_tag(t, flow);
        if let Some(scheme) = self.host.page_types {
            // A page without a request of its own: the complement's type.
            use rand::Rng;
            let u: f64 = self.rng.gen();
            let free = self.ftl.free_lane_pages().unwrap_or([0; 3]);
            let bits = self.cfg.cell.kind.bits();
            self.txns[t].unit =
                crate::ftl::pagetype::complement_type(scheme.complement, free, bits, u) as u32;
        }
        self.inflight.insert(lpn, t);
        if self.buffer.frees_at_eviction {
            self.evicted_now(t, slot);
        }
        t
    }

    /// Program transactions of up to `pages` of the die's least recently used
    /// dirty buffer pages (a partition's after another's), evicted to
    /// complete a Die-Write.
    pub(crate) fn evict_from_die(&mut self, die: DieId, pages: usize) -> Vec<TxnId> {
        let mut slots = Vec::new();
        if let Some(buf) = self.buffer.cache.as_mut() {
            let mut out = Vec::new();
            for part in 0..buf.partitions() {
                let left = pages - slots.len();
                if left == 0 {
                    break;
                }
                buf.evict(
                    part,
                    &mut crate::buffer::FromDie {
                        die,
                        pages: left as u32,
                    },
                    &mut out,
                );
                slots.append(&mut out);
            }
        }
        slots
            .into_iter()
            .map(|slot| self.evicted_txn(slot))
            .collect()
    }
}
