//! Validation of one configuration's values: geometry, timing, thresholds,
//! buffer, host. Whether its policies compose is each policy's own
//! statement, which `Config::validate` (`scheme/mod.rs`) passes in.

use super::*;
use crate::error::{Error, Result};

/// The longest a single flash operation (an array read, program or erase,
/// a page's transfer, a command) may take: 10 s, a thousand times the
/// slowest NAND operation on record. Longer values are typos (ms for µs),
/// and simulated time, kept in u64 nanoseconds, must stay far from overflow.
pub const MAX_OPERATION_US: f64 = 1e7;

/// Largest page: 16 MiB (flash pages are a few KiB; page sizes are bytes).
pub const MAX_PAGE_BYTES: u32 = 16 << 20;

/// Most passes of `host.replays`.
pub const MAX_REPLAYS: u32 = 1_000_000;

/// Latest simulated time, ns (2^62, as for trace timestamps).
const MAX_TIME_NS: u64 = crate::workload::input::MAX_TIME_NS;

fn too_slow(v: f64, unit: &str) -> String {
    let v = if v >= 1e9 {
        format!("{v:e}")
    } else {
        v.to_string()
    };
    format!(
        "{v} {unit} makes one flash operation last over {} s; timings are in the units their names say",
        MAX_OPERATION_US / 1e6
    )
}

impl Config {
    /// Reject impossible or inconsistent values with the offending key;
    /// `compose` checks that the policies compose, at its place in the
    /// order of the checks (so the first error found is always the same).
    pub(crate) fn validate_with(
        &self,
        origin: &str,
        compose: impl FnOnce(&Config, &str) -> Result<()>,
    ) -> Result<()> {
        let err = |f: &str, m: String| Err(Error::config(origin, f, m));
        if self.replicate > MAX_REPLICATE {
            return err(
                "replicate",
                format!(
                    "{} is more than the {MAX_REPLICATE} random streams supported",
                    self.replicate
                ),
            );
        }
        let g = &self.geometry;
        for (f, v) in [
            ("geometry.channels", g.channels),
            ("geometry.chips_per_channel", g.chips_per_channel),
            ("geometry.dies_per_chip", g.dies_per_chip),
            ("geometry.planes_per_die", g.planes_per_die),
            ("geometry.blocks_per_plane", g.blocks_per_plane),
            ("geometry.pages_per_block", g.pages_per_block),
            ("geometry.page_size_bytes", g.page_size_bytes),
        ] {
            if v == 0 {
                return err(f, "must be at least 1".into());
            }
        }
        if g.planes_per_die as usize > crate::types::MAX_PLANES_PER_DIE {
            return err(
                "geometry.planes_per_die",
                format!(
                    "{} is more than the {} planes per die supported",
                    g.planes_per_die,
                    crate::types::MAX_PLANES_PER_DIE
                ),
            );
        }
        if g.pages_per_block > u32::from(u16::MAX) {
            return err(
                "geometry.pages_per_block",
                format!(
                    "{} is more than the {} pages per block supported",
                    g.pages_per_block,
                    u16::MAX
                ),
            );
        }
        if g.page_size_bytes > MAX_PAGE_BYTES {
            return err(
                "geometry.page_size_bytes",
                format!(
                    "{} is more than {MAX_PAGE_BYTES} bytes (16 MiB); page sizes are in bytes",
                    g.page_size_bytes
                ),
            );
        }
        if !g.page_size_bytes.is_multiple_of(512) {
            return err(
                "geometry.page_size_bytes",
                "must be a multiple of 512".into(),
            );
        }
        if g.blocks_per_plane < 4 {
            return err(
                "geometry.blocks_per_plane",
                "must be at least 4 (GC needs spare blocks)".into(),
            );
        }
        let phys = (g.channels as u128)
            * g.chips_per_channel as u128
            * g.dies_per_chip as u128
            * g.planes_per_die as u128
            * g.blocks_per_plane as u128
            * g.pages_per_block as u128;
        if phys >= u32::MAX as u128 {
            return err(
                "geometry",
                format!(
                    "channels × chips_per_channel × dies_per_chip × planes_per_die × blocks_per_plane × \
                     pages_per_block = {phys} physical pages; at most {} are supported (32-bit page numbers)",
                    u32::MAX - 1
                ),
            );
        }
        if !(0.0..1.0).contains(&self.ftl.overprovisioning) {
            return err(
                "ftl.overprovisioning",
                format!("{} is outside [0, 1)", self.ftl.overprovisioning),
            );
        }
        if self.logical_pages() == 0 {
            return err("ftl.overprovisioning", "leaves no logical pages".into());
        }
        let mut order: Vec<char> = self.ftl.static_order.to_ascii_uppercase().chars().collect();
        order.sort_unstable();
        if order != ['C', 'D', 'P', 'W'] {
            return err(
                "ftl.static_order",
                format!(
                    "`{}` is not a permutation of C, W, D, P",
                    self.ftl.static_order
                ),
            );
        }
        if self.ftl.hot_data != "none" && self.hot_data_identifier().is_none() {
            return err(
                "ftl.hot_data",
                format!(
                    "unknown scheme `{}`; expected none or one of {}, {}",
                    self.ftl.hot_data,
                    ssdlab_hdi::presets::NAMES.join(", "),
                    ssdlab_hdi::presets::TIMED_NAMES.join(", ")
                ),
            );
        }
        if self.ftl.hot_separation == HotSeparation::GcMoves && self.ftl.hot_data == "none" {
            return err(
                "ftl.hot_separation",
                "\"gc-moves\" needs a hot-data identifier to judge the moved pages: set ftl.hot_data".into(),
            );
        }
        if self.ftl.hot_window_s == 0 {
            return err("ftl.hot_window_s", "must be at least 1 second".into());
        }
        if self.ftl.hot_window_s > MAX_TIME_NS / 1_000_000_000 {
            return err(
                "ftl.hot_window_s",
                format!(
                    "{} s is longer than 2^62 ns (146 years), the longest a simulation runs",
                    self.ftl.hot_window_s
                ),
            );
        }
        if self.ftl.hot_updates == 0 {
            return err(
                "ftl.hot_updates",
                "must be at least 1 (0 would make every page hot)".into(),
            );
        }
        if self.cell.endurance == Some(0) {
            return err(
                "cell.endurance",
                "must be at least 1 program/erase cycle".into(),
            );
        }
        if self.ftl.wear_levelling.static_threshold == Some(0) {
            return err(
                "ftl.wear_levelling.static_threshold",
                "must be at least 1 erase (0 would collect a block at every erase)".into(),
            );
        }
        let bits = self.cell.kind.bits();
        for (f, v) in [
            ("timing.read_us", &self.timing.read_us),
            ("timing.program_us", &self.timing.program_us),
        ] {
            if v.len() != bits && v.len() != 1 {
                return err(
                    f,
                    format!(
                        "has {} values; a {:?} cell needs {bits} (LSB..MSB) or 1",
                        v.len(),
                        self.cell.kind
                    ),
                );
            }
            if v.iter().any(|x| !x.is_finite() || *x < 0.0) {
                return err(f, "values must be finite and non-negative".into());
            }
            if let Some(x) = v.iter().find(|x| **x > MAX_OPERATION_US) {
                return err(f, too_slow(*x, "µs"));
            }
        }
        let page = g.page_size_bytes as f64;
        for (f, v, per_op, unit) in [
            ("timing.erase_us", self.timing.erase_us, 1.0, "µs"),
            // a page's transfer, in µs
            (
                "timing.bus_ns_per_byte",
                self.timing.bus_ns_per_byte,
                page / 1000.0,
                "ns per byte",
            ),
            ("timing.command_ns", self.timing.command_ns, 1e-3, "ns"),
        ] {
            if !v.is_finite() || v < 0.0 {
                return err(f, format!("{v} must be finite and non-negative"));
            }
            if v * per_op > MAX_OPERATION_US {
                return err(f, too_slow(v, unit));
            }
        }
        if self.cell.page_layout == PageLayout::Wordlines {
            let bits = self.cell.kind.bits();
            if !self.cell.page_pattern.is_empty() {
                return err(
                    "cell.page_pattern",
                    "must be empty with cell.page_layout = \"wordlines\" (the layout gives every page its type)".into(),
                );
            }
            if !(g.pages_per_block as usize).is_multiple_of(bits) {
                return err(
                    "cell.page_layout",
                    format!(
                        "\"wordlines\" needs pages_per_block ({}) to be a multiple of the {bits} pages of a {:?} wordline",
                        g.pages_per_block, self.cell.kind
                    ),
                );
            }
        }
        for (i, t) in self.page_pattern().iter().enumerate() {
            if !self.cell.kind.page_types().contains(t) {
                return err(
                    "cell.page_pattern",
                    format!(
                        "entry {i} is {t:?}, which a {:?} cell does not have",
                        self.cell.kind
                    ),
                );
            }
        }
        if self.flash.plane_pairs_only && !g.planes_per_die.is_multiple_of(2) {
            return err(
                "flash.plane_pairs_only",
                "needs an even number of planes per die".into(),
            );
        }
        match self.gc.threshold {
            GcThreshold::Percent(p) if !(p > 0.0 && p < 100.0) => {
                return err("gc.threshold.percent", format!("{p} is outside (0, 100)"));
            }
            GcThreshold::Blocks(0) => {
                return err("gc.threshold.blocks", "must be at least 1".into())
            }
            _ => {}
        }
        // GC needs at least one block per plane to migrate a victim into.
        let thr = self.gc_threshold_pages();
        let thr_key = match self.gc.threshold {
            GcThreshold::Percent(_) => "gc.threshold.percent",
            GcThreshold::Blocks(_) => "gc.threshold.blocks",
        };
        if thr < g.pages_per_block as u64 {
            return err(
                thr_key,
                format!(
                    "{thr} pages per plane is less than one block ({} pages); GC could not proceed",
                    g.pages_per_block
                ),
            );
        }
        // A threshold at or above the spare space is met only if the data
        // stays below the logical capacity: `Simulator::new` checks it
        // against the preconditioned data and the workload's writes
        // (`gc_threshold_beyond_spare`). Here: room for the GC's
        // destination blocks at least.
        let most = self.pages_per_plane() - 2 * g.pages_per_block as u64;
        if thr > most {
            return err(
                thr_key,
                format!(
                    "{thr} free pages per plane leaves less than two blocks of a plane's {} pages for data and GC",
                    self.pages_per_plane()
                ),
            );
        }

        if self.gc.d == 0 || self.gc.d > g.blocks_per_plane {
            return err(
                "gc.d",
                format!(
                    "{} is outside 1..={} (the candidates d-choices samples, at most the blocks of a plane)",
                    self.gc.d, g.blocks_per_plane
                ),
            );
        }
        if !(0.0..100.0).contains(&self.gc.join_percent) {
            return err(
                "gc.join_percent",
                format!("{} is outside [0, 100)", self.gc.join_percent),
            );
        }
        if self.gc.moves_in_flight == 0 {
            return err("gc.moves_in_flight", "must be at least 1".into());
        }
        if let Err((key, why)) = self.pacing_values() {
            return err(key, why);
        }
        let k = self.flash.plane_registers;
        let most = (crate::types::MAX_PLANES_PER_DIE as u32 / g.planes_per_die.max(1)).min(8);
        if k == 0 || k > most {
            return err(
                "flash.plane_registers",
                format!(
                    "{k} is outside 1..={most} (at most 8 per plane, and a command holds at most {} pages: planes per die × registers)",
                    crate::types::MAX_PLANES_PER_DIE
                ),
            );
        }
        if let Err((f, m)) = check_suspension(&self.flash.suspension) {
            return err(f, m);
        }
        if let Err((f, m)) = self.bad_block_values() {
            return err(f, m);
        }
        match self.buffer.capacity {
            BufferCapacity::FootprintPercent(p) if !(p > 0.0 && p <= 100.0) => {
                return err(
                    "buffer.capacity.footprint-percent",
                    format!("{p} is outside (0, 100]"),
                );
            }
            BufferCapacity::Pages(0) => {
                return err(
                    "buffer.capacity.pages",
                    "must be at least 1 (use capacity = \"none\" for no buffer)".into(),
                )
            }
            _ => {}
        }
        if self.buffer.evict_pages == 0 {
            return err("buffer.evict_pages", "must be at least 1".into());
        }
        let low = self.buffer.free_watermark;
        if !(0.0..=1.0).contains(&low) {
            return err("buffer.free_watermark", "must be in [0, 1]".into());
        }
        if !(0.0..=1.0).contains(&self.buffer.free_watermark_high) {
            return err("buffer.free_watermark_high", "must be in [0, 1]".into());
        }
        if self.buffer.slot_frees == SlotFrees::Eviction
            && self.buffer.capacity == BufferCapacity::None
        {
            return err(
                "buffer.slot_frees",
                "\"eviction\" needs a write buffer (buffer.capacity is \"none\")".into(),
            );
        }
        if let Some(i) = &self.interface {
            i.validate(origin)?;
        }
        compose(self, origin)?;
        if !(self.metrics.interval_ms.is_finite() && self.metrics.interval_ms >= 0.0) {
            return err(
                "metrics.interval_ms",
                "must be a non-negative number".into(),
            );
        }
        if self.metrics.interval_ms * 1e6 > MAX_TIME_NS as f64 {
            return err(
                "metrics.interval_ms",
                format!(
                    "{} ms is longer than 2^62 ns (146 years), the longest a simulation runs",
                    self.metrics.interval_ms
                ),
            );
        }
        if self.metrics.interval_ms > 0.0 && self.metrics.interval_ms < 1e-3 {
            return err(
                "metrics.interval_ms",
                format!(
                    "{} is below 1 µs (0.001); use 0 for no time series",
                    self.metrics.interval_ms
                ),
            );
        }
        if self.host.replays == 0 || self.host.replays > MAX_REPLAYS {
            return err(
                "host.replays",
                format!("{} is outside 1..={MAX_REPLAYS}", self.host.replays),
            );
        }
        if self.host.queue_depth == 0 {
            return err("host.queue_depth", "must be at least 1".into());
        }
        if !(self.host.time_scale.is_finite() && self.host.time_scale > 0.0) {
            return err("host.time_scale", "must be a positive number".into());
        }
        if self.host.time_scale > MAX_TIME_NS as f64 {
            return err(
                "host.time_scale",
                format!(
                    "{:e} would put a request 1 ns after the first beyond 2^62 ns (146 years), the longest a simulation runs",
                    self.host.time_scale
                ),
            );
        }
        self.validate_flows(origin)
    }
}

/// `flash.suspension`'s values (checked whether it is on or not): the
/// latencies finite, non-negative and no longer than a flash operation may
/// take.
fn check_suspension(s: &Suspension) -> std::result::Result<(), (&'static str, String)> {
    for (f, v) in [
        ("flash.suspension.program_suspend_us", s.program_suspend_us),
        ("flash.suspension.erase_suspend_us", s.erase_suspend_us),
        ("flash.suspension.resume_us", s.resume_us),
    ] {
        if !v.is_finite() || v < 0.0 {
            return Err((f, format!("{v} must be finite and non-negative")));
        }
        if v > MAX_OPERATION_US {
            return Err((f, too_slow(v, "µs")));
        }
    }
    Ok(())
}

impl Config {
    /// The values of GC pacing: semi-preemptive GC's hard threshold and
    /// idle-time GC's interval and high watermark.
    fn pacing_values(&self) -> std::result::Result<(), (&'static str, String)> {
        let thr = self.gc_threshold_pages();
        let form = |t: GcThreshold, percent: &'static str, blocks: &'static str| match t {
            GcThreshold::Percent(p) if !(p > 0.0 && p < 100.0) => {
                Err((percent, format!("{p} is outside (0, 100)")))
            }
            GcThreshold::Blocks(0) => Err((blocks, "must be at least 1".to_string())),
            GcThreshold::Percent(_) => Ok(percent),
            GcThreshold::Blocks(_) => Ok(blocks),
        };
        match (self.gc.preemptive, self.gc.hard_threshold) {
            (true, None) => return Err((
                "gc.preemptive",
                "needs gc.hard_threshold (the free space, as { blocks = N } or { percent = P } \
                     of a plane, below which its GC is not preempted)"
                    .into(),
            )),
            (false, Some(_)) => {
                return Err((
                    "gc.hard_threshold",
                    "is semi-preemptive GC's: it needs gc.preemptive = true".into(),
                ))
            }
            (true, Some(h)) => {
                let key = form(h, "gc.hard_threshold.percent", "gc.hard_threshold.blocks")?;
                let pages = self.threshold_pages(h);
                if pages > thr {
                    return Err((
                        key,
                        format!(
                            "{pages} free pages per plane is above gc.threshold ({thr} pages): \
                             a GC, which starts below gc.threshold, would never be preempted"
                        ),
                    ));
                }
            }
            (false, None) => {}
        }
        if let Some(idle) = self.gc.idle {
            if !(idle.after_us.is_finite() && idle.after_us >= 0.0 && idle.after_us <= 1e12) {
                return Err((
                    "gc.idle.after_us",
                    format!("{} is outside [0, 1e12] µs", idle.after_us),
                ));
            }
            let key = form(
                idle.high_watermark,
                "gc.idle.high_watermark.percent",
                "gc.idle.high_watermark.blocks",
            )?;
            let pages = self.threshold_pages(idle.high_watermark);
            let most = self.pages_per_plane() - 2 * self.geometry.pages_per_block as u64;
            if pages <= thr || pages > most {
                return Err((
                    key,
                    format!(
                        "{pages} free pages per plane is outside ({thr}, {most}]: above gc.threshold, \
                         and leaving two blocks of the plane's {} pages for data and GC",
                        self.pages_per_plane()
                    ),
                ));
            }
        }
        Ok(())
    }
}
