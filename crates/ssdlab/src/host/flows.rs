//! Several flows (tenants) in one run (`[[flows]]`): each with its own
//! workload, start time, queue depth, priority class and address space.
//!
//! - **Arrival.** Each flow's records arrive at their rebased times
//!   (relative to the flow's first record, scaled by `host.time_scale`)
//!   plus the flow's `start_us`. The flows' arrivals merge in time order,
//!   ties by flow index; one `Arrival` event carries every arrival of an
//!   instant.
//! - **Host queue and submission queue.** A flow has at most `queue_depth`
//!   requests in its submission queue or in the device (its requests in
//!   flight); one that arrives when its queue is full waits in the host, in
//!   order, and enters the queue when one of the flow's requests completes.
//!   That wait, and the wait in the submission queue until the device
//!   fetches the command, count in the request's latency and are reported
//!   apart (`host_wait_us`).
//! - **Fetch.** The device holds at most `queues.device_slots` commands
//!   (fetched, not completed). At the end of every event in which a queue
//!   gained a command or a slot freed, the device fetches while it has
//!   free slots: the arbiter (`hostif/queues.rs`) picks a queue, and up to
//!   the arbitration burst of its commands are submitted to the drive
//!   (`Simulator::submit`) in order. From there a request is any request:
//!   split into pages, buffered, scheduled, completed.
//! - **Address space.** A flow with its own namespace has its byte
//!   addresses from 0 within it: page p of the flow is logical page
//!   `first_page + p` of the drive; an address beyond the namespace is an
//!   error naming the flow. A flow without one shares the drive's logical
//!   space (addresses fold modulo the logical capacity).

use std::collections::VecDeque;

use crate::config::{Config, Namespace};
use crate::engine::{EventKind, Time};
use crate::error::{Error, Result};
use crate::hostif::queues::Arbiter;
use crate::metrics::FlowMetrics;
use crate::sim::Simulator;
use crate::workload::input::MAX_TIME_NS;
use crate::workload::{IoRecord, RecordStream, Source};

/// `Req::flow` of a request of no flow (a run without `[[flows]]`).
pub(crate) const NO_FLOW: u32 = u32::MAX;

/// The flows' state.
pub(crate) struct Flows {
    pub(crate) flows: Vec<Flow>,
    arbiter: Arbiter,
    /// Commands the device holds at once, and holds now.
    slots: u32,
    in_device: u32,
    /// A queue gained a command or a slot freed: fetch at the end of the event.
    pub(crate) due: bool,
    /// Order of entry into the submission queues (SATA's FIFO).
    seq: u64,
    /// Per transaction (by id): the flow of a buffered page's program (the
    /// flow whose request last wrote the page), else `NO_FLOW`.
    txn_flow: Vec<u32>,
}

pub(crate) struct Flow {
    name: String,
    stream: RecordStream,
    /// The next record and its arrival time, not yet arrived.
    next: Option<(Time, IoRecord)>,
    /// The flow's first record's time (arrivals are relative to it).
    base: Option<u64>,
    start: Time,
    namespace: Option<Namespace>,
    depth: u32,
    /// Arrived while the queue was full: (arrival, record).
    waiting: VecDeque<(Time, IoRecord)>,
    /// In the submission queue: (arrival, entry order, record).
    sq: VecDeque<(Time, u64, IoRecord)>,
    /// Fetched by the device, not completed.
    fetched: u32,
    arrived: u64,
    completed: u64,
    /// Most requests in flight (queued or fetched) at once.
    pub(crate) most_in_flight: u32,
}

impl Flow {
    fn in_flight(&self) -> u32 {
        self.sq.len() as u32 + self.fetched
    }
}

impl Flows {
    pub(crate) fn new(cfg: &Config, sources: &[Source]) -> Result<Flows> {
        let q = cfg.queues_or_default();
        let mut flows = Vec::with_capacity(sources.len());
        for (f, source) in cfg.flows.iter().zip(sources) {
            flows.push(Flow {
                name: f.name.clone(),
                stream: source.open_ahead()?,
                next: None,
                base: None,
                start: (f.start_us * 1e3).round() as Time,
                namespace: f.namespace,
                depth: f.queue_depth,
                waiting: VecDeque::new(),
                sq: VecDeque::new(),
                fetched: 0,
                arrived: 0,
                completed: 0,
                most_in_flight: 0,
            });
        }
        Ok(Flows {
            arbiter: Arbiter::new(&q, cfg.flows.iter().map(|f| f.priority).collect()),
            flows,
            slots: cfg.device_slots(),
            in_device: 0,
            due: false,
            seq: 0,
            txn_flow: Vec::new(),
        })
    }

    /// Transaction `t` programs a buffered page of flow `flow`.
    pub(crate) fn set_txn_flow(&mut self, t: crate::types::TxnId, flow: u32) {
        let i = t.0 as usize;
        if i >= self.txn_flow.len() {
            self.txn_flow.resize(i + 1, NO_FLOW);
        }
        self.txn_flow[i] = flow;
    }

    /// The flow whose buffered page transaction `t` programs (`NO_FLOW`
    /// if none); the record is cleared.
    pub(crate) fn take_txn_flow(&mut self, t: crate::types::TxnId) -> u32 {
        self.txn_flow
            .get_mut(t.0 as usize)
            .map_or(NO_FLOW, |f| std::mem::replace(f, NO_FLOW))
    }

    /// Requests still to arrive, waiting in the host or queued.
    pub(crate) fn pending(&self) -> bool {
        self.flows
            .iter()
            .any(|f| f.next.is_some() || !f.waiting.is_empty() || !f.sq.is_empty())
    }
}

/// The per-flow metrics of `cfg`'s flows.
pub(crate) fn flow_metrics(cfg: &Config) -> Vec<FlowMetrics> {
    cfg.flows
        .iter()
        .map(|f| FlowMetrics::new(&f.name, f.priority.name(), f.queue_depth))
        .collect()
}

impl Simulator {
    fn flows(&mut self) -> &mut Flows {
        self.host.flows.as_mut().expect("a run with flows")
    }

    /// Flow `i`'s next record and its arrival time (None at its end, or on
    /// an error, which is kept for the event loop).
    fn flow_pull(&mut self, i: usize) -> Option<(Time, IoRecord)> {
        let scale = self.cfg.host.time_scale;
        let page = self.host.page_size;
        let f = &mut self.host.flows.as_mut().expect("flows").flows[i];
        let mut rec = match f.stream.next()? {
            Ok(r) => r,
            Err(e) if e.is_interrupted() => {
                self.host.interrupted = true;
                return None;
            }
            Err(e) => {
                self.error = Some(e);
                return None;
            }
        };
        let key = |k: &str| format!("flows[{i}].{k}");
        if let Some(ns) = f.namespace {
            let last = (rec.offset + rec.size.max(1) - 1) / page;
            if last >= ns.pages {
                self.error = Some(Error::config(
                    &self.cfg.name,
                    key("namespace.pages"),
                    format!(
                        "flow `{}`: a request at byte {} of {} bytes reaches page {last} of its \
                         namespace of {} pages",
                        f.name, rec.offset, rec.size, ns.pages
                    ),
                ));
                return None;
            }
            rec.offset += ns.first_page * page;
        }
        let base = *f.base.get_or_insert(rec.time_ns);
        let rel = rec.time_ns.saturating_sub(base);
        let at = (rel as f64 * scale).round() + f.start as f64;
        if at > MAX_TIME_NS as f64 {
            self.error = Some(Error::config(
                &self.cfg.name,
                key("start_us"),
                format!(
                    "flow `{}`: its request {rel} ns after its first arrives at {at:e} ns, beyond \
                     2^62 ns (146 years), the longest a simulation runs",
                    f.name
                ),
            ));
            return None;
        }
        Some(((at as Time).max(self.engine.now()), rec))
    }

    /// The run starts: each flow's first record, and the first arrival.
    pub(crate) fn flows_start(&mut self) {
        for i in 0..self.flows().flows.len() {
            let next = self.flow_pull(i);
            self.flows().flows[i].next = next;
        }
        self.flows_schedule();
    }

    fn flows_schedule(&mut self) {
        let first = self
            .flows()
            .flows
            .iter()
            .filter_map(|f| f.next.as_ref().map(|n| n.0))
            .min();
        if let Some(t) = first {
            self.engine.schedule(t, EventKind::Arrival, 0);
        }
    }

    /// Every flow's requests arriving now (in flow order) enter their
    /// queue, or wait in the host when it is full.
    pub(crate) fn flows_arrival(&mut self) {
        let now = self.engine.now();
        for i in 0..self.flows().flows.len() {
            loop {
                let f = &mut self.flows().flows[i];
                match f.next {
                    Some((t, rec)) if t <= now => {
                        f.next = None;
                        self.flow_arrived(i, rec, now);
                        let next = self.flow_pull(i);
                        self.flows().flows[i].next = next;
                    }
                    _ => break,
                }
            }
        }
        self.flows_schedule();
    }

    fn flow_arrived(&mut self, i: usize, rec: IoRecord, now: Time) {
        self.metrics.flows[i].arrived(now);
        let fl = self.flows();
        let seq = fl.seq;
        let f = &mut fl.flows[i];
        f.arrived += 1;
        if f.in_flight() < f.depth {
            f.sq.push_back((now, seq, rec));
            f.most_in_flight = f.most_in_flight.max(f.in_flight());
            fl.seq += 1;
            fl.due = true;
        } else {
            f.waiting.push_back((now, rec));
        }
    }

    /// The device fetches commands while it has free slots, the arbiter
    /// choosing the queue of each turn.
    pub(crate) fn flows_fetch(&mut self) {
        loop {
            let fl = self.flows();
            fl.due = false;
            if fl.in_device >= fl.slots {
                return;
            }
            let Flows { flows, arbiter, .. } = fl;
            let Some(q) = arbiter.pick(|q| flows[q].sq.front().map(|e| e.1)) else {
                return;
            };
            let burst = arbiter.burst;
            for _ in 0..burst {
                let fl = self.flows();
                if fl.in_device >= fl.slots {
                    break;
                }
                let Some((arrival, _, rec)) = fl.flows[q].sq.pop_front() else {
                    break;
                };
                fl.flows[q].fetched += 1;
                fl.in_device += 1;
                self.submit_as(rec, q as u32, arrival);
                if self.error.is_some() {
                    return;
                }
            }
        }
    }

    /// A request of flow `i` completed: its queue entry frees (a request
    /// waiting in the host takes it) and so does its device slot.
    pub(crate) fn flow_done(&mut self, i: u32) {
        let fl = self.flows();
        let f = &mut fl.flows[i as usize];
        assert!(
            f.fetched > 0,
            "a flow's request completed that was never fetched"
        );
        f.fetched -= 1;
        f.completed += 1;
        fl.in_device -= 1;
        if let Some((t, rec)) = f.waiting.pop_front() {
            f.sq.push_back((t, fl.seq, rec));
            f.most_in_flight = f.most_in_flight.max(f.in_flight());
            fl.seq += 1;
        }
        fl.due = true;
    }

    /// The flows' invariants: a flow's requests in flight never exceed its
    /// queue depth, the device holds at most its slots, every request that
    /// arrived is waiting, queued, in the device or completed (once), and
    /// the live requests of each flow are those it says it has fetched.
    pub(crate) fn check_flows(&self) -> std::result::Result<(), String> {
        let Some(fl) = &self.host.flows else {
            return Ok(());
        };
        let mut live = vec![0u32; fl.flows.len()];
        let mut free = vec![false; self.host.reqs.len()];
        for r in &self.host.free_reqs {
            free[r.0 as usize] = true;
        }
        for (k, r) in self.host.reqs.iter().enumerate() {
            if !free[k] && r.flow != NO_FLOW {
                live[r.flow as usize] += 1;
            }
        }
        let mut in_device = 0;
        for (i, f) in fl.flows.iter().enumerate() {
            if f.most_in_flight > f.depth || f.in_flight() > f.depth {
                return Err(format!(
                    "flow `{}` had {} requests in flight, more than its queue depth {}",
                    f.name,
                    f.most_in_flight.max(f.in_flight()),
                    f.depth
                ));
            }
            if live[i] != f.fetched {
                return Err(format!(
                    "flow `{}` has {} requests in the device but {} fetched",
                    f.name, live[i], f.fetched
                ));
            }
            let accounted =
                f.completed + f.fetched as u64 + f.sq.len() as u64 + f.waiting.len() as u64;
            if accounted != f.arrived {
                return Err(format!(
                    "flow `{}`: {} requests arrived but {} are completed, in the device, queued or waiting",
                    f.name, f.arrived, accounted
                ));
            }
            in_device += f.fetched;
        }
        if in_device != fl.in_device || in_device > fl.slots {
            return Err(format!(
                "the device holds {} commands by the flows' count, {} by its own, {} slots",
                in_device, fl.in_device, fl.slots
            ));
        }
        Ok(())
    }

    /// The most requests each flow had in flight at once (tests and
    /// validation).
    pub fn flows_most_in_flight(&self) -> Vec<u32> {
        self.host
            .flows
            .as_ref()
            .map(|f| f.flows.iter().map(|f| f.most_in_flight).collect())
            .unwrap_or_default()
    }
}
