//! The host interface: what lies between the host's requests and the
//! write buffer — the link a request, its data and its completion cross,
//! and the controller's own time (its DRAM and its firmware). Every part is
//! optional (`[interface]`); without it a request's pages start when it
//! arrives and it completes when its last page does.
//!
//! A host read or write (trims are not commands here: they take effect at
//! arrival) goes through two stages around its pages:
//!
//! 1. **Command** (at arrival): the command crosses the link, and a
//!    write's data with it, in the protocol's order (`link.rs`); the
//!    firmware takes its time per command and per page; each page reads
//!    or updates its mapping-table entry in DRAM. Then its pages start
//!    (the host's `EventKind::HostIf` event, stage [`STAGE_PAGES`]).
//! 2. **Completion** (when its last page is done): a write's data is
//!    written into the buffer's DRAM (when there is a buffer), a read's
//!    buffer hits are read out of it; then a read's data, the completion
//!    entry and the interrupt cross the link. The request completes when
//!    the host has them (stage [`STAGE_DONE`]); its latency includes both
//!    stages.
//!
//! An evicted page is read out of DRAM (`eviction_reads`), booked at the
//! end of the event that evicted it; it takes the DRAM's time (later
//! accesses wait for it) but does not delay its program.
//!
//! A stage books each of its steps when it begins, at the time the step
//! will be ready; the link's directions and the DRAM channel each give a
//! step the first idle interval long enough for it from then
//! (`server.rs`). The model, its sources and defaults are in
//! docs/fidelity.md ("Host interface and controller").
//!
//! Several flows (`[[flows]]`) reach the device through their own
//! submission queues (`queues.rs`): the arbitration there decides which
//! queue the device fetches its next commands from.

pub(crate) mod controller;
pub(crate) mod link;
pub(crate) mod queues;
pub(crate) mod server;

use crate::config::{Interface, Link};
use crate::metrics::{DramReport, InterfaceReport, LinkReport};
use crate::sim::Simulator;
use crate::types::ReqId;
use crate::workload::IoRecord;
use controller::DramChannel;
use link::LinkModel;

/// `EventKind::HostIf`'s tag: the request's pages start.
pub const STAGE_PAGES: u32 = 0;
/// `EventKind::HostIf`'s tag: the request completes at the host.
pub const STAGE_DONE: u32 = 1;

/// The interface's state.
pub(crate) struct HostIf {
    pub(crate) link: Option<LinkModel>,
    pub(crate) dram: Option<DramChannel>,
    fw_command: u64,
    fw_page: u64,
    map_entry_bytes: u64,
    eviction_reads: bool,
    /// Buffer evictions already booked.
    evictions_seen: u64,
    /// Per request (by id): the record waiting for its command stage, and
    /// its pages served by the buffer (reads).
    pending: Vec<Option<IoRecord>>,
    hits: Vec<u32>,
    // Measured since the last reset.
    commands: u64,
    command_ns: u64,
    completions: u64,
    completion_ns: u64,
    firmware_ns: u64,
}

impl HostIf {
    /// The interface `cfg` describes (None when no part is on).
    pub(crate) fn new(cfg: &Interface) -> Option<Box<HostIf>> {
        if !cfg.is_on() {
            return None;
        }
        let c = cfg.controller.clone().unwrap_or_default();
        let dram = c.dram.clone().map(DramChannel::new);
        Some(Box::new(HostIf {
            link: cfg.link.clone().map(LinkModel::new),
            fw_command: c.firmware_ns_per_command,
            fw_page: c.firmware_ns_per_page,
            map_entry_bytes: if dram.is_some() {
                c.map_entry_bytes as u64
            } else {
                0
            },
            eviction_reads: c.eviction_reads,
            dram,
            evictions_seen: 0,
            pending: Vec::new(),
            hits: Vec::new(),
            commands: 0,
            command_ns: 0,
            completions: 0,
            completion_ns: 0,
            firmware_ns: 0,
        }))
    }

    /// Measurement starts afresh (the end of a warm-up).
    pub(crate) fn reset(&mut self) {
        if let Some(l) = &mut self.link {
            l.reset();
        }
        if let Some(d) = &mut self.dram {
            d.reset();
        }
        self.commands = 0;
        self.command_ns = 0;
        self.completions = 0;
        self.completion_ns = 0;
        self.firmware_ns = 0;
    }

    /// The clock, for the servers' bookings.
    fn set_clock(&mut self, now: crate::engine::Time) {
        if let Some(l) = &mut self.link {
            l.now = now;
        }
        if let Some(d) = &mut self.dram {
            d.now = now;
        }
    }

    fn slot(&mut self, req: ReqId) -> usize {
        let i = req.0 as usize;
        if self.pending.len() <= i {
            self.pending.resize(i + 1, None);
            self.hits.resize(i + 1, 0);
        }
        i
    }

    /// The checker's part: a request waits for its command stage at most
    /// once, and only while outstanding (`outstanding` requests are).
    pub(crate) fn check(&self, outstanding: u64) -> Result<(), String> {
        let waiting = self.pending.iter().filter(|p| p.is_some()).count() as u64;
        if waiting > outstanding {
            return Err(format!(
                "host interface: {waiting} requests wait for their command stage, \
                 {outstanding} are outstanding"
            ));
        }
        if let Some(l) = &self.link {
            l.check()?;
        }
        if let Some(d) = &self.dram {
            d.check()?;
        }
        Ok(())
    }

    /// The report's section.
    pub(crate) fn report(&self) -> InterfaceReport {
        let us = |ns: u64| ns as f64 / 1e3;
        let mean = |ns: u64, n: u64| {
            if n == 0 {
                0.0
            } else {
                ns as f64 / n as f64 / 1e3
            }
        };
        InterfaceReport {
            commands: self.commands,
            command_us_mean: mean(self.command_ns, self.commands),
            completion_us_mean: mean(self.completion_ns, self.completions),
            firmware_us: us(self.firmware_ns),
            link: self.link.as_ref().map(|l| LinkReport {
                kind: match l.link {
                    Link::Pcie { .. } => "pcie".into(),
                    Link::Sata => "sata".into(),
                },
                wire_bytes: l.wire_bytes,
                busy_us: [us(l.busy_ns[0]), us(l.busy_ns[1])],
                utilisation: [0.0; 2],
                wait_us: us(l.wait_ns),
            }),
            dram: self.dram.as_ref().map(|d| DramReport {
                accesses: d.accesses,
                bytes: d.bytes,
                busy_us: us(d.busy_ns),
                utilisation: 0.0,
                wait_us: us(d.wait_ns),
            }),
        }
    }
}

impl Simulator {
    /// A host read or write `rec` of `pages` pages arrived now as request
    /// `req`: its command stage is booked, and its pages start at the
    /// `HostIf` event this schedules.
    pub(crate) fn hostif_command(&mut self, req: ReqId, rec: IoRecord, pages: u64) {
        let now = self.engine.now();
        let h = self.hostif.as_mut().expect("interface on");
        h.set_clock(now);
        let write = rec.op == crate::workload::Op::Write;
        let mut t = now;
        if let Some(l) = &mut h.link {
            t = l.command(t, write, rec.size);
        }
        let fw = h.fw_command + h.fw_page * pages;
        h.firmware_ns += fw;
        t += fw;
        if let (Some(d), true) = (&mut h.dram, h.map_entry_bytes > 0) {
            for _ in 0..pages {
                t = d.book(t, h.map_entry_bytes);
            }
        }
        h.commands += 1;
        h.command_ns += t - now;
        let i = h.slot(req);
        h.pending[i] = Some(rec);
        h.hits[i] = 0;
        self.engine
            .schedule_tagged(t, crate::engine::EventKind::HostIf, req.0, STAGE_PAGES);
    }

    /// The record of `req` whose command stage ended.
    pub(crate) fn hostif_take(&mut self, req: ReqId) -> IoRecord {
        let h = self.hostif.as_mut().expect("interface on");
        h.pending[req.0 as usize]
            .take()
            .expect("a request's command stage ends once")
    }

    /// A page of read request `req` was served by the write buffer.
    pub(crate) fn hostif_hit(&mut self, req: ReqId) {
        if let Some(h) = &mut self.hostif {
            let i = h.slot(req);
            h.hits[i] += 1;
        }
    }

    /// The last page of request `req` (`write`, `bytes` long) is done now:
    /// its completion stage is booked, and it completes at the `HostIf`
    /// event this schedules.
    pub(crate) fn hostif_completion(&mut self, req: ReqId, write: bool, bytes: u64) {
        let now = self.engine.now();
        let buffered = self.buffer.cache.is_some();
        let page = self.host.page_size;
        let h = self.hostif.as_mut().expect("interface on");
        h.set_clock(now);
        let mut t = now;
        let hits = h.hits[req.0 as usize] as u64;
        if let Some(d) = &mut h.dram {
            if write && buffered {
                t = d.book(t, bytes);
            } else if !write && hits > 0 {
                t = d.book(t, (hits * page).min(bytes));
            }
        }
        if let Some(l) = &mut h.link {
            t = l.completion(t, write, bytes);
        }
        h.completions += 1;
        h.completion_ns += t - now;
        self.engine
            .schedule_tagged(t, crate::engine::EventKind::HostIf, req.0, STAGE_DONE);
    }

    /// Book the DRAM reads of the pages evicted since the last call (the
    /// end of every event).
    pub(crate) fn hostif_sync(&mut self) {
        let now = self.engine.now();
        let evicted = self.buffer.evicted;
        let page = self.host.page_size;
        let Some(h) = &mut self.hostif else { return };
        h.set_clock(now);
        let new = evicted - h.evictions_seen;
        h.evictions_seen = evicted;
        if let (Some(d), true) = (&mut h.dram, h.eviction_reads) {
            for _ in 0..new {
                d.book(now, page);
            }
        }
    }

    /// The interface's report section (None when off).
    pub(crate) fn hostif_report(&self) -> Option<InterfaceReport> {
        self.hostif.as_ref().map(|h| h.report())
    }
}
