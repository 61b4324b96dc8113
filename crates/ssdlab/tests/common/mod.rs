//! Helpers shared by integration tests (`mod common;`).

use ssdlab::config::{BufferCapacity, GcThreshold};
use ssdlab::Config;

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
