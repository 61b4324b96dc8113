//! The host: arrival of requests (open and closed loop, replays), their
//! splitting into page sub-requests, and request completion.
//!
//! - **Arrival.** Open loop: a record's arrival is its timestamp, rebased to
//!   the first record and scaled by `host.time_scale`; records arriving at one
//!   instant are submitted in one event. Closed loop: timestamps are ignored;
//!   `host.queue_depth` requests are owed at time 0 and one more per
//!   completion, all those owed at an instant submitted in one event.
//! - **Replays** (`host.replays`, PA-SSD's multi-run mode). `pull` records
//!   the first pass's first and last times and its record count; when the
//!   stream ends and another pass is due it reopens the source and adds the
//!   first pass's span plus one mean gap to every later time. Nothing else
//!   tells passes apart: metrics, warm-up and the checker see one workload.
//!   A `--limit` applies to each pass.
//! - **Pages.** `submit` covers pages `offset / page_size` to
//!   `(offset + size − 1) / page_size`; a partial page with
//!   `host.partial_write_rmw` whose LPN is mapped and not in the buffer is
//!   read first (a read-modify-write). A request-level allocator places a
//!   write request whole (`ftl/request.rs`).
//! - **Trims** (`Op::Trim`, replayed with `--replay-trims`) take effect at
//!   arrival, on the whole pages they cover: writes still waiting for buffer
//!   space complete unstored, a buffered copy leaves the buffer (its plane's
//!   assigned page is given back), the in-flight map forgets the page (its
//!   program writes a stale page), and the FTL invalidates and unmaps it
//!   (under DFTL the entry changes like a write's). The checker's version
//!   goes back to 0. A trim completes at arrival and is counted in the
//!   report's `trim` section. A read-modify-write whose read is under way
//!   when a trim of its page arrives still writes its page afterwards (the
//!   one order the model does not keep).

pub mod address;
pub mod flows;
pub(crate) mod pagetype;
pub mod precondition;
pub(crate) mod steady;

use crate::addr::{Lpn, PlaneId, Ppn, INVALID};
use crate::attribution::{self, Part, Parts};
use crate::config::HostMode;
use crate::engine::{EventKind, Time};
use crate::error::Error;
use crate::flash::{CmdKind, Origin};
use crate::ftl::mapping::dftl::MapWaiter;
use crate::host::address::AddressMap;
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::Writer;
use crate::types::{ReqId, TxnId};
use crate::workload::input::MAX_TIME_NS;
use crate::workload::{IoRecord, Op, RecordStream, Source};
use rustc_hash::FxHashSet;

/// The host's state: where requests come from, how far the replays got,
/// and the requests in flight.
pub(crate) struct Host {
    /// The workload's description (reported).
    pub(crate) workload: String,
    pub(crate) source: Source,
    pub(crate) stream: RecordStream,
    pub(crate) address_map: AddressMap,
    /// Replay state: passes started, offset added to this pass's times, and
    /// the first pass's first and last times and record count.
    pub(crate) pass: u32,
    pub(crate) replay_offset: u64,
    pub(crate) pass0: (Option<u64>, u64, u64),
    /// Open loop: the record whose arrival is scheduled, and the first
    /// record's time (arrivals are relative to it).
    pub(crate) next_record: Option<IoRecord>,
    pub(crate) base_time: Option<u64>,
    pub(crate) stream_done: bool,
    /// Reading the workload stopped for an interrupt: the run ends here,
    /// its report marked partial.
    pub(crate) interrupted: bool,
    /// Requests in flight (a slab with a free list).
    pub(crate) reqs: Vec<Req>,
    pub(crate) free_reqs: Vec<ReqId>,
    /// `host.page_types`: PA-SSD's page-type specifying scheme, if any.
    pub(crate) page_types: Option<pagetype::TypeScheme>,
    pub(crate) completed: u64,
    pub(crate) submitted: u64,
    /// Closed loop: requests to submit at the pending arrival event.
    pub(crate) closed_due: u32,
    pub(crate) outstanding: u64,
    pub(crate) page_size: u64,
    /// One past the highest page (byte address / page size) a read or write
    /// touched: beyond the logical capacity, addresses fold.
    pub(crate) page_span: u64,
    /// `until-steady`'s warm-up, when asked for.
    pub(crate) steady: Option<steady::SteadyWarmup>,
    /// Several flows (`[[flows]]`), each with its own workload and queue;
    /// None: one host replaying `source`.
    pub(crate) flows: Option<Box<flows::Flows>>,
}

impl Host {
    pub(crate) fn new(
        source: &Source,
        stream: RecordStream,
        address_map: AddressMap,
        page_size: u64,
    ) -> Host {
        Host {
            workload: source.describe(),
            source: source.clone(),
            stream,
            address_map,
            pass: 0,
            replay_offset: 0,
            pass0: (None, 0, 0),
            next_record: None,
            base_time: None,
            stream_done: false,
            interrupted: false,
            reqs: Vec::new(),
            free_reqs: Vec::new(),
            page_types: None,
            completed: 0,
            submitted: 0,
            closed_due: 0,
            outstanding: 0,
            page_size,
            page_span: 0,
            steady: None,
            flows: None,
        }
    }
}

/// A host request as it completed (the request log,
/// [`Simulator::log_requests`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub arrival_ns: Time,
    pub completion_ns: Time,
    pub op: Op,
    pub offset: u64,
    pub size: u64,
    /// Its latency's parts ([`crate::attribution`]), when attribution is on.
    pub parts: Option<Parts>,
    /// Its flow's index (`[[flows]]`), or None in a run without flows.
    pub flow: Option<u32>,
    /// Time it waited in the host for its queue and the device's fetch
    /// (flows; 0 without): it was fetched at `arrival_ns + host_wait_ns`.
    pub host_wait_ns: Time,
}

/// The sink of [`Simulator::log_requests`].
pub type RequestLog = Box<dyn FnMut(&Completion) + Send>;

pub(crate) struct Req {
    /// Arrival in the host (with flows, before any wait for the queue).
    pub(crate) arrival: Time,
    /// The flow it belongs to (`flows::NO_FLOW`: none), and when the
    /// device fetched it (its arrival without flows).
    pub(crate) flow: u32,
    pub(crate) fetched_at: Time,
    /// When its pages started: its fetch, or with the host interface the
    /// end of its command stage (latency attribution's pages count from
    /// here; the time before is the `host` part).
    pub(crate) started: Time,
    /// The request as the host issued it (for the request log).
    pub(crate) offset: u64,
    pub(crate) size: u64,
    pub(crate) pages_left: u32,
    pub(crate) op: Op,
    /// A write: the slowest page type (index) its host programs used so
    /// far; NO_PROGRAM before the first.
    pub(crate) slowest: u8,
    /// A write under a page-type scheme: the lane (page type, fast to slow)
    /// its pages want; NO_LANE otherwise.
    pub(crate) lane: u8,
}

/// `Req::lane` of a request without a wanted page type.
pub(crate) const NO_LANE: u8 = u8::MAX;

/// `Req::slowest` of a request none of whose pages has been programmed.
const NO_PROGRAM: u8 = u8::MAX;

impl Simulator {
    pub(crate) fn pull(&mut self) -> Option<IoRecord> {
        loop {
            if self.host.stream_done {
                return None;
            }
            if let Some(cap) = self.host.steady.as_ref().and_then(|w| w.submit_cap) {
                // until-steady: the measured rounds are all submitted
                if self.host.submitted >= cap {
                    self.host.stream_done = true;
                    return None;
                }
            }
            match self.host.stream.next() {
                Some(Ok(mut r)) => {
                    if self.host.pass == 0 {
                        let (first, last, n) = &mut self.host.pass0;
                        first.get_or_insert(r.time_ns);
                        *last = r.time_ns;
                        *n += 1;
                    }
                    match r.time_ns.checked_add(self.host.replay_offset) {
                        Some(t) if t <= MAX_TIME_NS => r.time_ns = t,
                        _ => {
                            self.error = Some(Error::Invalid(format!(
                                "{}: a request at {} ns{} is beyond 2^62 ns (146 years) of simulated time",
                                self.host.workload,
                                r.time_ns,
                                if self.host.pass > 0 {
                                    format!(
                                        " in pass {} of {} (host.replays), which starts {} ns later,",
                                        self.host.pass + 1,
                                        self.cfg.host.replays,
                                        self.host.replay_offset
                                    )
                                } else {
                                    String::new()
                                }
                            )));
                            self.host.stream_done = true;
                            return None;
                        }
                    }
                    return Some(r);
                }
                Some(Err(e)) if e.is_interrupted() => {
                    self.host.interrupted = true;
                    self.host.stream_done = true;
                    return None;
                }
                Some(Err(e)) => {
                    self.error = Some(e);
                    self.host.stream_done = true;
                    return None;
                }
                None if (self.host.pass + 1 < self.cfg.host.replays
                    || self
                        .host
                        .steady
                        .as_ref()
                        .is_some_and(|w| w.wants_more(self.host.submitted)))
                    && self.host.pass0.2 > 0 =>
                {
                    // The next pass starts one mean gap after this one ends.
                    let (first, last, n) = self.host.pass0;
                    let span = last - first.unwrap_or(last);
                    let gap = if n > 1 { span / (n - 1) } else { 0 };
                    self.host.replay_offset = self.host.replay_offset.saturating_add(span + gap);
                    self.host.pass += 1;
                    match self.host.source.open_ahead() {
                        Ok(st) => self.host.stream = st,
                        Err(e) => {
                            self.error = Some(e);
                            self.host.stream_done = true;
                            return None;
                        }
                    }
                }
                None => {
                    self.host.stream_done = true;
                    return None;
                }
            }
        }
    }

    /// Read the next record and schedule its arrival; returns true when it
    /// arrives now (the caller submits it in the same event).
    pub(crate) fn schedule_next_arrival(&mut self) -> bool {
        let Some(rec) = self.pull() else { return false };
        self.prefetch_record(&rec);
        let base = *self.host.base_time.get_or_insert(rec.time_ns);
        let rel = rec.time_ns.saturating_sub(base);
        let scaled = (rel as f64 * self.cfg.host.time_scale).round();
        if scaled > MAX_TIME_NS as f64 {
            self.error = Some(Error::config(
                &self.cfg.name,
                "host.time_scale",
                format!(
                    "{} makes the request {rel} ns into {} arrive at {scaled:e} ns, beyond 2^62 ns \
                     (146 years), the longest a simulation runs",
                    self.cfg.host.time_scale, self.host.workload
                ),
            ));
            self.host.stream_done = true;
            return false;
        }
        let t = (scaled as Time).max(self.engine.now());
        self.host.next_record = Some(rec);
        if t == self.engine.now() && self.engine.fired() > 0 {
            return true;
        }
        self.engine.schedule(t, EventKind::Arrival, 0);
        false
    }

    /// Warm the map entries a record will look up when it arrives.
    pub(crate) fn prefetch_record(&self, rec: &IoRecord) {
        let first = rec.offset / self.host.page_size;
        let pages = ((rec.offset + rec.size - 1) / self.host.page_size - first + 1).min(8);
        for page in first..first + pages {
            self.ftl
                .prefetch(self.host.address_map.lpn(page, self.ftl.logical_pages));
        }
    }

    pub(crate) fn on_arrival(&mut self) {
        if self.host.flows.is_some() {
            return self.flows_arrival();
        }
        match self.cfg.host.mode {
            // Requests with the same arrival time are submitted in one event,
            // so that their pages can share multi-plane commands.
            HostMode::OpenLoop => {
                while let Some(rec) = self.host.next_record.take() {
                    self.submit(rec);
                    if !self.schedule_next_arrival() {
                        break;
                    }
                }
            }
            // Every request owed by completions at this instant, together.
            HostMode::ClosedLoop => {
                for _ in 0..std::mem::take(&mut self.host.closed_due) {
                    match self.pull() {
                        Some(rec) => self.submit(rec),
                        None => break,
                    }
                }
            }
        }
    }

    /// The page type a new write request of `pages` sub-requests wants
    /// under `host.page_types` (NO_LANE without a scheme).
    fn request_lane(&mut self, pages: u64, hint: Option<u8>) -> u8 {
        let Some(scheme) = self.host.page_types else {
            return NO_LANE;
        };
        let situation = pagetype::Situation {
            pages,
            outstanding: self.host.outstanding,
            hint,
            buffer_full: self.buffer.cache.as_ref().is_some_and(|c| c.is_full()),
            free: self.ftl.free_lane_pages().unwrap_or([0; 3]),
            bits: self.cfg.cell.kind.bits(),
        };
        use rand::Rng;
        let u: f64 = self.rng.gen();
        scheme.request_type(&situation, u)
    }

    pub(crate) fn submit(&mut self, rec: IoRecord) {
        self.submit_as(rec, flows::NO_FLOW, self.engine.now());
    }

    /// Submit `rec` now, a request of flow `flow` (`flows::NO_FLOW`: none)
    /// that arrived in the host at `arrival`.
    pub(crate) fn submit_as(&mut self, rec: IoRecord, flow: u32, arrival: Time) {
        let now = self.engine.now();
        let ps = self.host.page_size;
        let end = rec.offset + rec.size;
        // A trim covers the pages it covers whole; the others keep their data.
        let (first, last) = if rec.op == Op::Trim {
            (rec.offset.div_ceil(ps), (end / ps).wrapping_sub(1))
        } else {
            (rec.offset / ps, (end - 1) / ps)
        };
        let n = (last.wrapping_add(1)).saturating_sub(first);
        if n > u32::MAX as u64 {
            self.error = Some(Error::Invalid(format!(
                "a request of {} bytes spans more than 2^32 pages",
                rec.size
            )));
            return;
        }
        let write = rec.op == Op::Write;
        let id = match self.host.free_reqs.pop() {
            Some(i) => i,
            None => {
                self.host.reqs.push(Req {
                    arrival: 0,
                    flow: flows::NO_FLOW,
                    fetched_at: 0,
                    started: 0,
                    offset: 0,
                    size: 0,
                    pages_left: 0,
                    op: Op::Read,
                    slowest: NO_PROGRAM,
                    lane: NO_LANE,
                });
                ReqId((self.host.reqs.len() - 1) as u32)
            }
        };
        self.host.reqs[id] = Req {
            arrival,
            flow,
            fetched_at: now,
            started: now,
            offset: rec.offset,
            size: rec.size,
            // A trim of no whole page still completes (once).
            pages_left: n.max(1) as u32,
            op: rec.op,
            slowest: NO_PROGRAM,
            lane: if write {
                self.request_lane(n, rec.hint)
            } else {
                NO_LANE
            },
        };
        self.metrics.first_arrival.get_or_insert(now);
        self.metrics.queue_depth(now, 1);
        self.metrics.arrived(now);
        if rec.op != Op::Trim {
            self.host.page_span = self.host.page_span.max(last + 1);
        }
        self.host.outstanding += 1;
        self.host.submitted += 1;
        if self.gc.pace.idle.is_some() {
            self.idle_host_arrived();
        }
        match rec.op {
            Op::Read => self.metrics.read_bytes += rec.size,
            Op::Write => self.metrics.write_bytes += rec.size,
            Op::Trim => return self.host_trim(id, first, n, rec.size),
        }
        if self.hostif.is_some() {
            // The interface's command stage first (`hostif`).
            return self.hostif_command(id, rec, n);
        }
        self.submit_pages(id, rec);
    }

    /// A host interface stage of request `req` ended (`hostif`): its
    /// pages start, or it completes.
    pub(crate) fn on_hostif(&mut self, req: ReqId, stage: u32) {
        if stage == crate::hostif::STAGE_PAGES {
            let rec = self.hostif_take(req);
            self.host.reqs[req].started = self.engine.now();
            self.submit_pages(req, rec);
        } else {
            self.req_done(req);
        }
    }

    /// The pages of read or write `rec` (request `id`) start.
    fn submit_pages(&mut self, id: ReqId, rec: IoRecord) {
        let ps = self.host.page_size;
        let end = rec.offset + rec.size;
        let (first, last) = (rec.offset / ps, (end - 1) / ps);
        let write = rec.op == Op::Write;
        let logical = self.ftl.logical_pages;
        // A request-level allocator (APM, PaRP, DVP) places it whole.
        let plan = if write && self.places_requests() {
            let lpns: Vec<Lpn> = (first..=last)
                .map(|page| self.host.address_map.lpn(page, logical))
                .collect();
            self.place_request(&lpns)
        } else {
            None
        };
        for page in first..=last {
            let lpn = self.host.address_map.lpn(page, logical);
            if !write {
                self.host_read_page(id, lpn, false);
                continue;
            }
            let partial = (page == first && !rec.offset.is_multiple_of(ps))
                || (page == last && !end.is_multiple_of(ps));
            let in_buf = self.buffer.cache.as_ref().is_some_and(|b| b.contains(lpn));
            let i = (page - first) as u32;
            if partial
                && self.cfg.host.partial_write_rmw
                && !in_buf
                && self.ftl.lookup(lpn).is_some()
            {
                if let Some(plan) = &plan {
                    self.unplace(plan, i);
                }
                self.host_read_page(id, lpn, true);
            } else if let Some(plan) = &plan {
                let placed = (plan.plane_of(i), plan.hot, plan.dst_of(i));
                self.host_write_page_at(id, lpn, Some(placed));
            } else {
                self.host_write_page(id, lpn);
            }
        }
        if let Some(plan) = &plan {
            self.place_request_end(plan);
        }
    }

    /// A page of host request `req` is done (now).
    pub(crate) fn sub_done(&mut self, req: ReqId) {
        let now = self.engine.now();
        let r = &mut self.host.reqs[req];
        assert!(
            r.pages_left > 0,
            "a request done for a page more than it has"
        );
        if let Some(a) = &self.attr {
            if attribution::total(&a.page) != now - r.started {
                self.error.get_or_insert(Error::Consistency(format!(
                    "latency attribution: a page of a request whose pages started at {} ns completed at \
                     {now} ns with parts {:?} summing to {} ns",
                    r.started,
                    a.page,
                    attribution::total(&a.page)
                )));
            }
        }
        r.pages_left -= 1;
        if r.pages_left > 0 {
            return;
        }
        if self.hostif.is_some() && r.op != Op::Trim {
            // The interface's completion stage (`hostif`).
            let (write, bytes) = (r.op == Op::Write, r.size);
            if let Some(a) = &mut self.attr {
                a.finishing(req, now);
            }
            return self.hostif_completion(req, write, bytes);
        }
        self.req_done(req);
    }

    /// Request `req` completes now: its latency is recorded and its slot
    /// freed.
    fn req_done(&mut self, req: ReqId) {
        let now = self.engine.now();
        let r = &mut self.host.reqs[req];
        let (lat, op) = (now - r.arrival, r.op);
        let (flow, wait, bytes) = (r.flow, r.fetched_at - r.arrival, r.size);
        if op == Op::Write && r.slowest != NO_PROGRAM {
            // Page type indices are LSB 0, CSB 1, MSB 2: the class.
            self.metrics.write_speed[r.slowest as usize] += 1;
        }
        if op == Op::Trim {
            self.metrics.trim.requests += 1;
        } else {
            self.metrics.record_latency(op == Op::Write, lat, now);
        }
        let parts = match &mut self.attr {
            Some(a) => {
                let (parts, causes) = a.request(req, r.arrival, r.started, now);
                if attribution::total(&parts) != lat {
                    self.error.get_or_insert(Error::Consistency(format!(
                        "latency attribution: a request of latency {lat} ns has parts {parts:?} \
                         summing to {} ns",
                        attribution::total(&parts)
                    )));
                }
                if let (Some(sums), true) = (&mut self.metrics.attribution, op != Op::Trim) {
                    sums.record(op == Op::Write, lat, &parts, causes);
                }
                Some(parts)
            }
            None => None,
        };
        if let Some(log) = &mut self.request_log {
            log(&Completion {
                arrival_ns: r.arrival,
                completion_ns: now,
                op,
                offset: r.offset,
                size: r.size,
                parts,
                flow: (flow != flows::NO_FLOW).then_some(flow),
                host_wait_ns: wait,
            });
        }
        if flow != flows::NO_FLOW {
            let write = match op {
                Op::Read => Some(false),
                Op::Write => Some(true),
                Op::Trim => None,
            };
            self.metrics.flows[flow as usize].completed(write, bytes, lat, wait, now);
            self.flow_done(flow);
        }
        self.metrics.last_completion = now;
        self.metrics.queue_depth(now, -1);
        self.host.free_reqs.push(req);
        assert!(
            self.host.outstanding > 0,
            "a request done with none outstanding"
        );
        self.host.outstanding -= 1;
        self.host.completed += 1;
        // Idle-time GC: the drive has no request outstanding; its timer is
        // set if more requests are to come.
        if self.host.outstanding == 0
            && self.gc.pace.idle.is_some()
            && (self.host.next_record.is_some()
                || self.host.flows.as_ref().is_some_and(|f| f.pending()))
        {
            self.idle_arm();
        }
        if self.cfg.host.mode == HostMode::ClosedLoop {
            // One arrival event per instant carries all requests owed then.
            if self.host.closed_due == 0 {
                self.engine.schedule(now, EventKind::Arrival, 0);
            }
            self.host.closed_due += 1;
        }
        if self.host.completed == self.cfg.host.warmup_requests {
            self.start_measurement(now);
        }
        if self.host.steady.is_some() {
            self.steady_round(now);
        }
        let every = self.cfg.check.interval_requests;
        if self.cfg.check.enabled && every > 0 && self.host.completed.is_multiple_of(every) {
            if let Err(e) = self.check() {
                self.error.get_or_insert(Error::Consistency(format!(
                    "after {} requests: {e}",
                    self.host.completed
                )));
            }
        }
    }

    /// A trim of the `n` pages from `first` (request `req`, `bytes` long):
    /// it takes effect when it arrives. Each page's data on flash becomes
    /// invalid (GC sees it) and its entry unmapped (a DFTL entry changes
    /// like a write's); newer data still on its way there is dropped: a
    /// copy in the write buffer, a program in flight (it completes as a
    /// stale page), and writes still waiting for buffer space (they
    /// complete without being stored: the trim would discard them).
    fn host_trim(&mut self, req: ReqId, first: u64, n: u64, bytes: u64) {
        self.metrics.trim.bytes += bytes;
        self.metrics.trim.pages += n;
        if n == 0 {
            self.page_since_arrival(req, Part::Buffer);
            return self.sub_done(req);
        }
        let logical = self.ftl.logical_pages;
        let pages = first..first + n;
        if !self.buffer.waiting.is_empty() {
            let lpns: FxHashSet<Lpn> = pages
                .clone()
                .filter_map(|page| self.host.address_map.lpn_if_known(page, logical))
                .collect();
            let mut done = Vec::new();
            self.buffer.waiting.retain(|&(r, lpn)| {
                let hit = lpns.contains(&lpn);
                if hit {
                    done.push((r, lpn));
                }
                !hit
            });
            self.metrics.trim.pending_pages += done.len() as u64;
            let now = self.engine.now();
            for (r, lpn) in done {
                if let Some(a) = &mut self.attr {
                    a.buffer_page(r, lpn, self.host.reqs[r].started, now);
                }
                self.sub_done(r);
            }
        }
        for page in pages {
            // (With compact addresses a page the workload never reads or
            // writes has no data to trim.)
            let Some(lpn) = self.host.address_map.lpn_if_known(page, logical) else {
                self.page_since_arrival(req, Part::Buffer);
                self.sub_done(req);
                continue;
            };
            let mut pending = self.inflight.remove(&lpn).is_some();
            if let Some(buf) = self.buffer.cache.as_mut() {
                pending |= buf.contains(lpn);
                if let Some(plane) = buf.discard(lpn) {
                    self.ftl.unassign(plane);
                }
            }
            self.metrics.trim.pending_pages += pending as u64;
            if self.ftl.trim(lpn) {
                self.metrics.trim.mapped_pages += 1;
                self.map_access(lpn, true, MapWaiter::Update(lpn));
            }
            self.page_since_arrival(req, Part::Buffer);
            self.sub_done(req);
        }
        // Freed buffer slots take waiting writes.
        if self.buffer.cache.is_some() {
            self.admit_waiting();
        }
    }

    pub(crate) fn host_read_page(&mut self, req: ReqId, lpn: Lpn, rmw: bool) {
        if !rmw {
            self.metrics.read_pages += 1;
            if self.buffer.cache.as_ref().is_some_and(|b| b.contains(lpn))
                || (self.buffer.frees_at_eviction
                    && self
                        .inflight
                        .get(&lpn)
                        .is_some_and(|&t| self.txns[t].slot != INVALID))
            {
                self.metrics.read_hits += 1;
                self.hostif_hit(req);
                self.page_since_arrival(req, Part::Buffer);
                self.sub_done(req);
                return;
            }
        }
        // (An unmapped page is never read from flash: no entry needed.)
        if self.ftl.lookup(lpn).is_some()
            && !self.map_access(lpn, false, MapWaiter::Read { req, lpn, rmw })
        {
            return;
        }
        self.host_read_flash(req, lpn, rmw);
    }

    /// A host transaction (`Owner::Host`) completed: a page read (or a
    /// read-modify-write's read, whose write follows), or a host page's
    /// program (its buffer slot frees, its request may complete).
    pub(crate) fn host_txn_done(&mut self, t: TxnId) {
        let now = self.engine.now();
        let tx = self.txns[t];
        if tx.kind == CmdKind::Read {
            self.read_unpin(tx.src);
            if tx.rmw {
                if let Some(a) = &mut self.attr {
                    let parts = a.parts(t);
                    a.carry(tx.req, tx.lpn, parts);
                }
                self.host_write_page(tx.req, tx.lpn);
            } else {
                if let Some(a) = &mut self.attr {
                    let parts = a.parts(t);
                    a.set_page(parts);
                }
                self.sub_done(tx.req);
            }
            return;
        }
        let g = &mut self.metrics.gc;
        g.host_write_ns += (now - tx.queued_at) as u128;
        g.blocked_ns += tx.gc_mark as u128;
        g.blocked_writes += (tx.gc_mark > 0) as u64;
        if self.inflight.get(&tx.lpn) == Some(&t) {
            self.inflight.remove(&tx.lpn);
            // Its entry changes (a miss loads it first, then changes it).
            self.map_access(tx.lpn, true, MapWaiter::Update(tx.lpn));
        }
        if tx.slot != INVALID && !self.buffer.frees_at_eviction {
            self.buffer
                .cache
                .as_mut()
                .expect("buffered")
                .flush_done(tx.slot);
            // Writes admitted now waited for this flush.
            if let Some(a) = &mut self.attr {
                a.blame = Some(a.parts(t));
            }
            self.admit_waiting();
            if let Some(a) = &mut self.attr {
                a.blame = None;
            }
        }
        if tx.slot != INVALID {
            // A buffered page's program: its time blocked by GC is its
            // writer's.
            if let Some(f) = self.host.flows.as_deref_mut() {
                let flow = f.take_txn_flow(t);
                if tx.req == ReqId::NONE && flow != flows::NO_FLOW && tx.gc_mark > 0 {
                    self.metrics.flows[flow as usize].gc_blocked(tx.gc_mark);
                }
            }
        }
        if tx.req != ReqId::NONE {
            let flow = self.host.reqs[tx.req].flow;
            if flow != flows::NO_FLOW && tx.gc_mark > 0 {
                self.metrics.flows[flow as usize].gc_blocked(tx.gc_mark);
            }
            let page = self.ftl.map.page_of(tx.src);
            let ty = self.flash.timing.page_type[page as usize];
            let r = &mut self.host.reqs[tx.req];
            r.slowest = if r.slowest == NO_PROGRAM {
                ty
            } else {
                r.slowest.max(ty)
            };
            if let Some(a) = &mut self.attr {
                let parts = a.parts(t);
                a.set_page(parts);
            }
            self.sub_done(tx.req);
        }
    }

    /// Read `lpn` from flash for host request `req` (its map entry is known).
    pub(crate) fn host_read_flash(&mut self, req: ReqId, lpn: Lpn, rmw: bool) {
        match self.ftl.lookup(lpn) {
            Some(ppn) => {
                self.ftl.pin(ppn);
                let plane = self.ftl.map.plane_of(ppn);
                let t = self.new_txn(CmdKind::Read, Origin::Host, plane, lpn, ppn);
                self.txns[t].req = req;
                self.txns[t].rmw = rmw;
                self.flin_tag(t, self.host.reqs[req].flow);
                if let Some(a) = &mut self.attr {
                    // Until now it waited for its map entry (DFTL).
                    let waited = self.engine.now() - self.host.reqs[req].started;
                    a.add(t, Part::Mapping, waited);
                }
                self.enqueue(plane, Class::Read, t);
            }
            None => {
                self.metrics.unmapped_read_pages += 1;
                self.page_since_arrival(req, Part::Mapping);
                self.sub_done(req);
            }
        }
    }

    /// Measurement starts now (the end of a warm-up): the metrics restart.
    pub(crate) fn start_measurement(&mut self, now: Time) {
        self.metrics.reset(now);
        self.ftl.reset_map_counters();
        if let Some(h) = &mut self.hostif {
            h.reset();
        }
        // A GC under way is measured from the end of the warm-up.
        for g in &mut self.gc.jobs {
            g.start = g.start.max(now);
        }
    }

    /// Latency attribution: the page of `req` about to complete spent all
    /// its time since the request's pages started in `part` (none, for a
    /// buffer hit or a trim, done when they start; an unmapped read may
    /// have waited for its map entry).
    fn page_since_arrival(&mut self, req: ReqId, part: Part) {
        if let Some(a) = &mut self.attr {
            let mut parts = [0; attribution::PARTS];
            parts[part as usize] = self.engine.now() - self.host.reqs[req].started;
            a.set_page(parts);
        }
    }

    pub(crate) fn next_version(&mut self, lpn: Lpn) -> u32 {
        self.ftl.next_version(lpn)
    }

    pub(crate) fn host_write_page(&mut self, req: ReqId, lpn: Lpn) {
        self.host_write_page_at(req, lpn, None);
    }

    /// Write page `lpn` of request `req`: to the plane, write stream and
    /// fixed page (INVALID: the plane's write point) `placed` gives (an
    /// unbuffered write a request-level allocator placed with its request),
    /// else where the buffer or the allocation policy puts it, in the stream
    /// the hot-data identifier judges it to be.
    pub(crate) fn host_write_page_at(
        &mut self,
        req: ReqId,
        lpn: Lpn,
        placed: Option<(PlaneId, bool, Ppn)>,
    ) {
        self.metrics.write_pages += 1;
        if let Some(h) = &mut self.hot.hdi {
            h.set_time_ns(self.engine.now());
            h.record_write(lpn as u64);
        }
        if self.buffer.cache.is_some() {
            self.buffer.waiting.push(self.buffer_part(req), (req, lpn));
            self.admit_waiting();
        } else {
            let (plane, hot, dst) = match placed {
                Some(p) => p,
                None => {
                    let hot = self.host_hot(lpn);
                    let queues = &self.sched.queues;
                    let plane = self
                        .ftl
                        .choose_plane(lpn, Writer::Host { hot }, |d| queues.die_load(d));
                    (plane, hot, INVALID)
                }
            };
            self.ftl.assign(plane);
            let version = self.next_version(lpn);
            let t = self.new_txn(CmdKind::Program, Origin::Host, plane, lpn, INVALID);
            if let Some(a) = &mut self.attr {
                // A read-modify-write's write carries its read's parts.
                let carried = a.carried(req, lpn);
                a.start_from(t, carried);
            }
            let lane = self.host.reqs[req].lane;
            let tx = &mut self.txns[t];
            tx.hot = hot;
            tx.req = req;
            tx.version = version;
            tx.dst = dst;
            if lane != NO_LANE {
                tx.unit = lane as u32;
            }
            self.inflight.insert(lpn, t);
            self.flin_tag(t, self.host.reqs[req].flow);
            self.enqueue(plane, Class::Write, t);
        }
    }
}
