//! Helpers shared by integration tests (`mod common;`).

#![allow(dead_code)] // each test file uses its own subset

use ssdlab::config::{BufferCapacity, GcThreshold};
use ssdlab::workload::Source;
use ssdlab::{Completion, Config, Precondition, Report, Simulator};

/// A small drive of 2 dies x `planes` planes with GC pressure, a 64-page
/// buffer and the consistency checker on: the drive the SPD schemes are
/// tested on.
pub fn two_dies(planes: u32) -> Config {
    let mut c = Config::preset("small").unwrap();
    c.geometry.channels = 1;
    c.geometry.chips_per_channel = 2;
    c.geometry.planes_per_die = planes;
    c.geometry.blocks_per_plane = 64;
    c.geometry.pages_per_block = 32;
    c.ftl.overprovisioning = 0.2;
    c.gc.threshold = GcThreshold::Percent(7.0);
    c.buffer.capacity = BufferCapacity::Pages(64);
    c.check.enabled = true;
    c.check.interval_requests = 500;
    c
}

/// 2 channels x 1 chip x 1 die x 2 planes, 64 blocks of 32 pages per plane,
/// 20 % over-provisioning, GC below 3 free blocks, no buffer, the checker
/// on every 500 requests.
pub fn tiny() -> Config {
    let mut c = Config::preset("small").unwrap();
    c.geometry.channels = 2;
    c.geometry.chips_per_channel = 1;
    c.geometry.blocks_per_plane = 64;
    c.geometry.pages_per_block = 32;
    c.ftl.overprovisioning = 0.2;
    c.gc.threshold = GcThreshold::Blocks(3);
    c.buffer.capacity = BufferCapacity::None;
    c.check.enabled = true;
    c.check.interval_requests = 500;
    c
}

/// Run `src` on `c` after `pre`, then run the consistency checker; a
/// failure names the drive.
pub fn run_checked(c: &Config, src: &Source, pre: &str) -> (Report, Simulator) {
    let sim = Simulator::new(c, src, &Precondition::parse(pre).unwrap()).unwrap();
    let (r, sim) = sim
        .run_inspect(&mut |_| {})
        .unwrap_or_else(|e| panic!("{}: {e}", c.name));
    sim.check().unwrap_or_else(|e| panic!("{}: {e}", c.name));
    (r, sim)
}

/// Run `sim` with every request logged, then the consistency checker
/// (panics naming what it found): the report and the requests in
/// completion order.
pub fn run_logged(mut sim: Simulator) -> (Report, Vec<Completion>) {
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = log.clone();
    sim.log_requests(Box::new(move |d: &Completion| {
        sink.lock().unwrap().push(*d)
    }));
    let (r, sim) = sim
        .run_inspect(&mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    sim.check().unwrap_or_else(|e| panic!("{e}"));
    let done = std::mem::take(&mut *log.lock().unwrap());
    (r, done)
}
