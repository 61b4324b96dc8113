//! Hot/cold separation (ftl.hot_data): two write streams per plane chosen by
//! a hot-data identification scheme, sorting host pages (DVPFTL's use) or
//! GC moves (the SPD paper's, with its time-window update count).

use ssdlab::config::{GcThreshold, HostMode, HotSeparation};
use ssdlab::scheme;
use ssdlab::validate::one_die;
use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Report, Simulator};

mod common;

fn drive(hot_data: &str) -> Config {
    let mut c = one_die(1);
    c.geometry.blocks_per_plane = 256;
    c.geometry.pages_per_block = 64;
    c.ftl.overprovisioning = 0.2;
    c.gc.threshold = GcThreshold::Blocks(3);
    c.host.mode = HostMode::ClosedLoop;
    c.host.queue_depth = 1;
    c.ftl.hot_data = hot_data.into();
    c
}

/// Single-page writes, 90% of them to 2% of the logical space (a hot set
/// small enough for the identifiers' Table 1 windows and thresholds), measured
/// after two drive writes of warm-up.
fn run(c: &Config, check: bool) -> Report {
    let mut c = c.clone();
    let phys = c.physical_pages();
    c.host.warmup_requests = 2 * phys;
    c.check.enabled = check;
    let p = Profile {
        name: "90/2 writes".into(),
        seed: 8,
        requests: 6 * phys,
        read_share: 0.0,
        footprint_bytes: c.logical_pages() * 4096,
        page_bytes: 4096,
        read_size: Some(SizeDist::constant(4096)),
        write_size: Some(SizeDist::constant(4096)),
        address: Address::HotCold {
            hot_fraction: 0.02,
            hot_share: 0.9,
        },
        arrival: Arrival::Poisson { iops: 1000.0 },
        latency_hint: None,
    };
    Simulator::new(
        &c,
        &Source::Synthetic(p),
        &Precondition::parse("age:1").unwrap(),
    )
    .unwrap()
    .run(&mut |_| {})
    .unwrap()
}

#[test]
fn separating_hot_data_lowers_write_amplification() {
    let mixed = run(&drive("none"), false);
    assert_eq!(mixed.flash.host_hot_share, 0.0);
    for scheme in ["wdac", "mbf", "dl-mbf-s"] {
        let sep = run(&drive(scheme), false);
        println!(
            "{scheme}: WA {:.3} vs {:.3} unseparated, {:.1}% of host pages hot",
            sep.write_amplification,
            mixed.write_amplification,
            sep.flash.host_hot_share * 100.0
        );
        assert!(
            sep.flash.host_hot_share > 0.3,
            "{scheme}: the hot stream must be used"
        );
        assert!(
            sep.write_amplification < 0.9 * mixed.write_amplification,
            "{scheme}: WA {} not clearly below {} without separation",
            sep.write_amplification,
            mixed.write_amplification
        );
    }
}

#[test]
fn two_streams_keep_data_consistent() {
    let mut c = drive("dl-mbf-s");
    c.geometry.blocks_per_plane = 64;
    c.check.interval_requests = 2_000;
    let r = run(&c, true);
    assert!(r.gc.count > 0);
}

#[test]
fn unknown_scheme_is_a_config_error() {
    let e = drive("hottest").validate("t").unwrap_err().to_string();
    assert!(
        e.contains("ftl.hot_data") && e.contains("dl-mbf-s") && e.contains("update-window"),
        "{e}"
    );
}

/// The SPD paper's separation: host pages hot, GC moves sorted by their
/// writes within a window of `window_s` seconds (at least 2 make a page hot).
fn gc_moves(window_s: u64) -> Config {
    let mut c = drive("update-window");
    c.ftl.hot_separation = HotSeparation::GcMoves;
    c.ftl.hot_window_s = window_s;
    c
}

#[test]
fn sorting_gc_moves_by_recent_updates_lowers_write_amplification() {
    // At 1000 writes/s a 10 s window holds 10 000 writes: about 17 of each
    // page of the hot set, rarely two of a cold page.
    let mixed = run(&drive("none"), false);
    let sep = run(&gc_moves(10), true);
    println!(
        "gc-moves: WA {:.3} vs {:.3} unseparated; {} of {} moves hot",
        sep.write_amplification, mixed.write_amplification, sep.gc.hot_moves, sep.gc.pages_migrated
    );
    assert_eq!(sep.flash.host_hot_share, 1.0, "host pages are all hot");
    assert_eq!(mixed.gc.hot_moves, 0);
    assert!(sep.gc.hot_moves > 0, "some moved pages are hot");
    // Once separated, victims are mostly hot-stream blocks whose valid
    // pages are hot ones; cold pages still move to the cold stream.
    assert!(
        sep.gc.hot_moves < sep.gc.pages_migrated,
        "some moves are cold"
    );
    assert!(
        sep.write_amplification < mixed.write_amplification,
        "WA {} not below {} without separation",
        sep.write_amplification,
        mixed.write_amplification
    );
    // A window too short to see two writes of any page: no move is hot.
    let mut c = gc_moves(1);
    c.ftl.hot_updates = 1_000;
    assert_eq!(run(&c, false).gc.hot_moves, 0);
}

#[test]
fn every_scheme_sorts_gc_moves_consistently() {
    for planes in [2, 4] {
        // Page-type schemes need multi-bit cells; they keep one write stream.
        for s in scheme::SCHEMES.iter().filter(|s| !s.multi_bit) {
            let mut c = s.apply(&common::two_dies(planes)).unwrap();
            c.ftl.hot_data = "update-window".into();
            c.ftl.hot_separation = HotSeparation::GcMoves;
            c.ftl.hot_window_s = 5;
            if let Err(e) = c.validate("t") {
                // A scheme that cannot keep two streams says so.
                println!("{} x{planes}: {e}", c.name);
                continue;
            }
            let p = Profile {
                name: "hot set".into(),
                seed: 3,
                requests: 6000,
                read_share: 0.3,
                footprint_bytes: c.logical_pages() * 4096,
                page_bytes: 4096,
                read_size: Some(SizeDist::constant(8192)),
                write_size: Some(SizeDist::constant(12288)),
                address: Address::HotCold {
                    hot_fraction: 0.05,
                    hot_share: 0.9,
                },
                arrival: Arrival::Poisson { iops: 400.0 },
                latency_hint: None,
            };
            let r = Simulator::new(
                &c,
                &Source::Synthetic(p),
                &Precondition::parse("fill:0.9:0.8+trace-reads").unwrap(),
            )
            .unwrap()
            .run(&mut |_| {})
            .unwrap_or_else(|e| panic!("{} x{planes}: {e}", c.name));
            println!(
                "{} x{planes}: {} GCs, {} of {} moves hot",
                c.name, r.gc.count, r.gc.hot_moves, r.gc.pages_migrated
            );
            assert!(r.gc.count > 0, "{} x{planes}", c.name);
            assert!(r.gc.hot_moves > 0, "{} x{planes}: hot moves", c.name);
        }
    }
}

#[test]
fn gc_move_separation_needs_an_identifier() {
    let mut c = drive("none");
    c.ftl.hot_separation = HotSeparation::GcMoves;
    let e = c.validate("t").unwrap_err().to_string();
    assert!(e.contains("ftl.hot_separation"), "{e}");
    let mut c = gc_moves(7200);
    c.ftl.hot_window_s = 0;
    let e = c.validate("t").unwrap_err().to_string();
    assert!(e.contains("ftl.hot_window_s"), "{e}");
    let mut c = gc_moves(7200);
    c.ftl.hot_updates = 0;
    let e = c.validate("t").unwrap_err().to_string();
    assert!(e.contains("ftl.hot_updates"), "{e}");
}
