//! DVPFTL's two-layer map (`ftl.mapping = "vfc"`, `ftl/mapping/vfc.rs` on
//! FAST's machinery): virtual blocks of one block per chip of a virtual
//! flash chip, offsets striped channel first, logical blocks that never
//! leave their VFC, merges that reclaim log blocks, and what the map
//! requires of the other policies.

use std::sync::Arc;

use ssdlab::addr::{PlaneId, INVALID};
use ssdlab::config::{Config, Mapping};
use ssdlab::workload::{IoRecord, Op, Source};
use ssdlab::{scheme, Report, Simulator};

mod common;

const PAGE: u64 = 4096;

/// `common::tiny` reshaped to 2 channels x `ways` chips (1 die x 2 planes
/// each) under scheme `dvpftl`: with 4 ways, two VFCs of 4 chips.
fn drive(ways: u32) -> Config {
    let mut c = common::tiny();
    c.geometry.chips_per_channel = ways;
    c.check.interval_requests = 200;
    let c = scheme::by_name("dvpftl").unwrap().apply(&c).unwrap();
    assert_eq!(c.ftl.mapping, Mapping::Vfc);
    c
}

/// `n` writes named `name`; write `i` is `at(i)` = (time ns, offset
/// bytes, size bytes).
fn writes(name: &str, n: u64, mut at: impl FnMut(u64) -> (u64, u64, u64)) -> Source {
    let records = (0..n)
        .map(|i| {
            let (time_ns, offset, size) = at(i);
            IoRecord::new(time_ns, Op::Write, offset, size)
        })
        .collect();
    Source::Records {
        name: name.into(),
        records: Arc::new(records),
    }
}

/// `n` writes of 1 to 4 pages at pseudo-random page addresses within the
/// first `span` pages, 200 us apart (a fixed LCG: the test's own data).
fn random_writes(n: u64, span: u64) -> Source {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    writes("random-writes", n, |i| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let pages = 1 + (x >> 60) % 4;
        let page = (x >> 20) % (span - pages);
        (i * 200_000, page * PAGE, pages * PAGE)
    })
}

fn run(c: &Config, src: &Source, pre: &str) -> (Report, Simulator) {
    common::run_checked(c, src, pre)
}

/// Chip of a plane (1 die x 2 planes per chip).
fn chip(plane: PlaneId) -> u32 {
    plane.0 / 2
}

#[test]
fn logical_blocks_stay_in_their_virtual_flash_chip_through_merges() {
    let c = drive(4);
    let logical = c.logical_pages();
    let (r, sim) = run(&c, &random_writes(12_000, logical), "none");
    // Logs filled and were merged (every merge here is a full one: random
    // writes leave no log holding one logical block in order).
    assert!(r.gc.full_merges > 20, "{} full merges", r.gc.full_merges);
    assert_eq!(r.gc.switch_merges, 0);
    // A page moving from the old data block to the new one stays on its
    // chip, and the new block takes the old one's plane: moves from data
    // blocks are in-place copybacks (those from logs on other planes go
    // through the controller).
    let cb = r.gc.in_place_copybacks;
    assert!(
        cb > 0 && cb < r.gc.pages_migrated,
        "{cb} of {}",
        r.gc.pages_migrated
    );
    assert_eq!(r.flash.copybacks, cb);
    let ftl = sim.ftl();
    let f = ftl.fast().expect("a hybrid map");
    let v = f.vfc.as_ref().expect("VFC layout");
    assert_eq!((v.chips, v.vfcs), (4, 2));
    let (ppb, bpp) = (ftl.pages_per_block(), ftl.blocks_per_plane());
    let mut in_data = 0;
    for lpn in 0..logical as u32 {
        let Some(ppn) = ftl.lookup(lpn) else { continue };
        let (lbn, o) = f.lbn_of(lpn);
        let plane = PlaneId(ppn / ppb / bpp);
        // Chip index = channel * ways + way; VFC j = ways 2j, 2j + 1.
        assert_eq!(chip(plane) % 4 / 2, lbn % 2, "lpn {lpn} left its VFC");
        let unit = f.data[lbn as usize];
        if unit != INVALID && f.page_at(unit, o) == ppn {
            in_data += 1;
            // Offset o of a data block is on the VFC's chip o % 4, channel
            // first: channel o % 2, way 2j + (o / 2) % 2.
            let k = o % 4;
            assert_eq!(chip(plane) / 4, k % 2, "lpn {lpn}: channel");
            assert_eq!(chip(plane) % 4, 2 * (lbn % 2) + k / 2, "lpn {lpn}: way");
            assert_eq!(ppn % ppb, o / 4, "lpn {lpn}: page");
        }
    }
    assert!(in_data > 1000, "{in_data} pages in data blocks");
    // A virtual block: one block on each of its VFC's chips.
    for &unit in f.data.iter().filter(|&&u| u != INVALID) {
        let members = v.members(unit).expect("a data unit is a virtual block");
        let mut chips: Vec<u32> = members.iter().map(|&b| chip(PlaneId(b / bpp))).collect();
        chips.sort_unstable();
        chips.dedup();
        assert_eq!(chips.len(), 4, "virtual block {unit}: {members:?}");
    }
}

#[test]
fn the_two_layer_map_is_deterministic_and_ages() {
    let c = drive(2);
    let src = random_writes(4_000, c.logical_pages());
    let (a, _) = run(&c, &src, "age:0.6+trace-reads");
    let (b, _) = run(&c, &src, "age:0.6+trace-reads");
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    assert!(a.gc.full_merges > 0 && a.gc.in_place_copybacks > 0);
    // Moves through the controller when GC is told to: no copyback.
    let mut d = c.clone();
    d.gc.migration = ssdlab::config::Migration::Controller;
    let (r, _) = run(&d, &src, "age:0.6+trace-reads");
    assert!(r.gc.full_merges > 0);
    assert_eq!((r.gc.in_place_copybacks, r.flash.copybacks), (0, 0));
    // The page-level fill has no hybrid form: a clear error, not a panic.
    let e = Simulator::new(
        &c,
        &src,
        &ssdlab::Precondition::parse("fill:0.5:0.5").unwrap(),
    )
    .err()
    .expect("fill is refused")
    .to_string();
    assert!(e.contains("fill") && e.contains("age:"), "{e}");
}

#[test]
fn the_two_layer_map_names_what_it_needs() {
    let base = drive(2);
    // Another placement could put a page outside its VFC.
    let mut c = base.clone();
    c.ftl.plane_allocation = ssdlab::config::PlaneAllocation::Apm;
    let e = c.validate("t").unwrap_err().to_string();
    assert!(e.contains("plane_allocation") && e.contains("vfc"), "{e}");
    // Two write streams (hot/cold) need more than two logs per plane.
    let mut c = base.clone();
    c.ftl.fast_log_units = 2;
    let e = c.validate("t").unwrap_err().to_string();
    assert!(e.contains("ftl.fast_log_units"), "{e}");
    // ParaGC's joining has no siblings to join in a VFC-wide merge.
    let mut c = base.clone();
    c.gc.join_percent = 6.0;
    let e = c.validate("t").unwrap_err().to_string();
    assert!(e.contains("gc.join_percent"), "{e}");
    // More logs than a chip has room for.
    let mut c = base;
    c.ftl.fast_log_units = 40;
    let e = c.validate("t").unwrap_err().to_string();
    assert!(
        e.contains("ftl.fast_log_units") && e.contains("do not fit"),
        "{e}"
    );
}

/// `n` sequential writes of `pages` pages from page 0, wrapping at `span`
/// pages, 4 ms apart (the drive keeps up).
fn sequential_writes(n: u64, pages: u64, span: u64) -> Source {
    writes("sequential-writes", n, |i| {
        let page = i * pages % (span - span % pages);
        (i * 4_000_000, page * PAGE, pages * PAGE)
    })
}

#[test]
fn a_sequential_log_becomes_the_data_block_by_a_switch() {
    let mut c = drive(2);
    c.ftl.sequential_log = true;
    let unit = 4 * c.geometry.pages_per_block as u64;
    let logical = c.logical_pages();
    // Twice over the whole capacity, in order: every logical block is
    // written whole from offset 0 into a sequential log.
    let n = 2 * logical / 8;
    let (r, sim) = run(&c, &sequential_writes(n, 8, logical), "none");
    let t = r.two_plane.as_ref().unwrap();
    // All but the partial last logical block's pages (and the wrap) went to
    // sequential logs, and logs were reclaimed by switches, not copies.
    assert!(
        t.sequential_pages > 8 * n * 9 / 10,
        "{} of {}",
        t.sequential_pages,
        8 * n
    );
    assert!(r.gc.switch_merges > 20, "{} switches", r.gc.switch_merges);
    assert!(
        r.gc.pages_migrated < r.gc.switch_merges * unit / 10,
        "{} pages moved",
        r.gc.pages_migrated
    );
    assert!(r.write_amplification < 1.1, "WA {}", r.write_amplification);
    // A switched log is the data block: offset o at chip o % 4, page o / 4.
    let ftl = sim.ftl();
    let f = ftl.fast().unwrap();
    let lpn = 5 * unit as u32 + 6;
    let (lbn, o) = f.lbn_of(lpn);
    assert_eq!(ftl.lookup(lpn), Some(f.page_at(f.data[lbn as usize], o)));
    // Without the sequential log the same writes are merged page by page.
    c.ftl.sequential_log = false;
    let (r, _) = run(&c, &sequential_writes(n, 8, logical), "none");
    assert_eq!(r.gc.switch_merges, 0);
    assert!(r.gc.full_merges > 0 && r.write_amplification > 1.1);
}

#[test]
fn interleaved_sequential_streams_close_each_other_s_logs() {
    // Two streams, each starting logical blocks in turn: each new start
    // closes the other's sequential log where it stands, and that log is
    // merged like any other. The checker runs throughout.
    let mut c = drive(2);
    c.ftl.sequential_log = true;
    let logical = c.logical_pages();
    let half = logical / 2;
    let src = writes("two-streams", 4_000, |i| {
        let base = if i % 2 == 0 { 0 } else { half };
        let page = (base + (i / 2) * 8) % logical;
        (i * 300_000, page * PAGE, 8 * PAGE)
    });
    let (r, _) = run(&c, &src, "none");
    assert!(r.two_plane.as_ref().unwrap().sequential_pages > 0);
    assert!(r.gc.full_merges > 0);
    // The option belongs to the two-layer map.
    let mut d = common::tiny();
    d.ftl.sequential_log = true;
    let e = d.validate("t").unwrap_err().to_string();
    assert!(e.contains("ftl.sequential_log"), "{e}");
}

#[test]
fn partial_pages_read_and_merged_stay_in_their_vfc() {
    // Two VFCs; writes that start and end inside pages of data already
    // written: their partial pages are read, merged and written outside
    // the request's plan, and must still land in their VFC (the checker
    // runs throughout); with the sequential log, planned pages given up to
    // that path leave no log waiting for them.
    for sequential_log in [false, true] {
        let mut c = drive(4);
        c.ftl.sequential_log = sequential_log;
        c.host.partial_write_rmw = true;
        let logical = c.logical_pages();
        let mut x: u64 = 7;
        let src = writes("partial-writes", 6_000, |i| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            if i < 1_500 {
                // First whole pages, then writes inside them.
                (i * 400_000, i * 8 % (logical - 8) * PAGE, 8 * PAGE)
            } else {
                let page = (x >> 20) % (logical - 8);
                (i * 400_000, page * PAGE + 512, 8 * PAGE - 1024)
            }
        });
        let (r, _) = run(&c, &src, "none");
        assert!(r.gc.full_merges > 0, "sequential_log {sequential_log}");
    }
}

/// DVPFTL's map on multi-register planes (`flash.plane_registers` = k):
/// a merge's in-place copybacks to later pages of the same data block run
/// through a plane's k registers at once, in program order (the checker
/// verifies the maps and write points throughout), so the same merges take
/// fewer copyback commands; FAST, whose merges program through the
/// controller, is still refused.
#[test]
fn merges_run_in_place_copybacks_through_a_plane_s_registers() {
    let src = random_writes(8_000, drive(4).logical_pages());
    let (one, _) = run(&drive(4), &src, "none");
    let mut c = drive(4);
    c.flash.plane_registers = 4;
    c.gc.moves_in_flight = 4;
    c.validate("t").unwrap();
    let (four, _) = run(&c, &src, "none");
    assert_eq!(four.requests, 8_000);
    assert!(four.gc.in_place_copybacks > 0, "{:?}", four.gc);
    assert_eq!(four.gc.pairs_per_worker.len(), 4);
    // Copybacks ran through a plane's second register and beyond.
    assert!(
        four.gc.pairs_per_worker[1] > 0,
        "{:?}",
        four.gc.pairs_per_worker
    );
    assert_eq!(one.gc.pairs_per_worker.len(), 1);
    let commands = |r: &Report| -> u64 {
        r.flash
            .commands
            .iter()
            .filter(|c| c.kind.to_lowercase().contains("copyback"))
            .map(|c| c.commands)
            .sum()
    };
    assert!(
        commands(&four) < commands(&one),
        "{} vs {}",
        commands(&four),
        commands(&one)
    );
    let mut fast = common::tiny();
    fast.ftl.mapping = Mapping::Fast;
    fast.ftl.plane_allocation = ssdlab::config::PlaneAllocation::Static;
    fast.ftl.hot_data = "none".into();
    fast.ftl.fast_log_units = 2;
    fast.gc.migration = ssdlab::config::Migration::Copyback;
    fast.validate("t").unwrap();
    fast.flash.plane_registers = 4;
    let e = fast.validate("t").unwrap_err().to_string();
    assert!(e.contains("flash.plane_registers"), "{e}");
}
