//! FAST hybrid mapping (`ftl.mapping = "fast"`): switch merges of logs
//! written in order, the exact page and erase counts of full merges, and
//! consistency (checker on) under every scheme FAST composes with.

use std::sync::Arc;

use ssdlab::config::{BufferCapacity, GcThreshold, Mapping};
use ssdlab::scheme;
use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use ssdlab::workload::{IoRecord, Op, Source};
use ssdlab::{Config, Precondition, Report, Simulator};

/// 2 dies x 2 planes, 64 blocks of 32 pages per plane; 25% over-provisioning
/// makes the capacity exactly 48 logical blocks per plane (and per die).
fn drive(scheme_name: &str) -> Config {
    let mut c = Config::preset("small").unwrap();
    c.geometry.channels = 1;
    c.geometry.chips_per_channel = 2;
    c.geometry.dies_per_chip = 1;
    c.geometry.planes_per_die = 2;
    c.geometry.blocks_per_plane = 64;
    c.geometry.pages_per_block = 32;
    c.ftl.overprovisioning = 0.25;
    c.gc.threshold = GcThreshold::Percent(7.0);
    c.buffer.capacity = BufferCapacity::Pages(32);
    c.check.enabled = true;
    c.check.interval_requests = 400;
    let mut c = scheme::by_name(scheme_name).unwrap().apply(&c).unwrap();
    c.ftl.mapping = Mapping::Fast;
    c.ftl.fast_log_units = 4;
    c
}

fn run(c: &Config, src: &Source, pre: &str) -> Report {
    Simulator::new(c, src, &Precondition::parse(pre).unwrap())
        .unwrap()
        .run(&mut |_| {})
        .unwrap_or_else(|e| panic!("{}: {e}", c.name))
}

/// Single-page writes of every logical page in address order, spaced out.
fn sequential(pages: u64) -> Source {
    let records = (0..pages)
        .map(|i| IoRecord::new(i * 200_000, Op::Write, i * 4096, 4096))
        .collect();
    Source::Records {
        name: "sequential".into(),
        records: Arc::new(records),
    }
}

fn random(pages: u64, requests: u64, read_share: f64, address: Address) -> Source {
    Source::Synthetic(Profile {
        name: "fast".into(),
        seed: 5,
        requests,
        read_share,
        footprint_bytes: pages * 4096,
        page_bytes: 4096,
        read_size: Some(SizeDist::constant(4096)),
        write_size: Some(SizeDist::constant(4096)),
        address,
        arrival: Arrival::Poisson { iops: 2000.0 },
        latency_hint: None,
    })
}

/// Writing the drive in address order fills each log unit with one logical
/// block at its offsets (a plane's block under Baseline-D; under SPD the
/// die's paired blocks, whose Die-Writes put each page on its static
/// plane): every reclaimed log becomes a data unit as it is (a switch
/// merge), nothing is copied, and each switch erases only the old data unit.
#[test]
fn logs_written_in_order_switch_without_copying() {
    for (name, blocks_per_unit) in [("baseline-d", 1), ("spd", 2)] {
        let c = drive(name);
        let logical = c.logical_pages();
        assert_eq!(logical, 4 * 48 * 32);
        let r = run(&c, &sequential(logical), "age:1");
        let g = &r.gc;
        assert!(g.switch_merges > 80, "{name}: {g:?}");
        assert_eq!(g.full_merges, 0, "{name}");
        assert_eq!(g.count, g.switch_merges, "{name}");
        assert_eq!(g.pages_migrated, 0, "{name}");
        assert_eq!(g.erases, g.switch_merges * blocks_per_unit, "{name}");
        assert_eq!(r.flash.wasted_pages, 0, "{name}");
    }
}

/// Random single-page writes on a fully mapped drive: each full merge
/// copies every offset of its logical block (moved, or programmed stale if
/// the host rewrote the page meanwhile) and erases the old data unit; each
/// reclaimed log is erased unless it was switched, so erases = (GCs + full
/// merges) x blocks per unit. Under SPD a merge writes the die's pages
/// as Die-Writes: every program is multi-plane.
#[test]
fn full_merges_copy_whole_logical_blocks() {
    for (name, unit_pages, blocks_per_unit) in [("baseline-d", 32, 1), ("spd", 64, 2)] {
        let c = drive(name);
        let logical = c.logical_pages();
        let r = run(&c, &random(logical, 6000, 0.0, Address::Uniform), "age:1");
        let g = &r.gc;
        assert!(g.full_merges > 30, "{name}: {g:?}");
        assert_eq!(
            g.pages_migrated + r.flash.wasted_pages,
            g.full_merges * unit_pages,
            "{name}: {g:?}"
        );
        assert_eq!(
            g.erases,
            (g.count + g.full_merges) * blocks_per_unit,
            "{name}"
        );
        // Random writes touch many logical blocks per log: merging costs
        // far more than it reclaims.
        assert!(
            r.write_amplification > 5.0,
            "{name}: {}",
            r.write_amplification
        );
        if name == "spd" {
            assert_eq!(r.flash.multiplane_program_share, 1.0);
        }
    }
}

/// The checker (run every 400 requests and at the end) holds data blocks to
/// their offsets and every other valid page to a log, for every scheme FAST
/// composes with; under SPD every program, host or merge, is a full
/// multi-plane Die-Write, and a merge's Die-Writes keep the die's write
/// points aligned (checked after each).
#[test]
fn every_composable_scheme_stays_consistent() {
    for name in ["baseline-d", "baseline-p", "paragc", "twinblk", "spd"] {
        let c = drive(name);
        let src = random(
            c.logical_pages() * 3 / 4,
            5000,
            0.3,
            Address::Zipf { theta: 0.8 },
        );
        let r = run(&c, &src, "trace-reads");
        assert!(r.gc.full_merges > 0, "{name}: {:?}", r.gc);
        assert!(r.gc.erases > 0, "{name}");
        if name == "spd" {
            assert_eq!(r.flash.host_multiplane_program_share, 1.0, "{name}");
            assert_eq!(r.flash.multiplane_program_share, 1.0, "{name}");
        }
    }
}

#[test]
fn fast_refuses_what_it_cannot_compose_with() {
    let err = |c: &Config| c.validate("test").unwrap_err().to_string();
    let mut c = drive("superpage");
    c.ftl.mapping = Mapping::Fast;
    assert!(err(&c).contains("super-page"), "{}", err(&c));
    let c = drive("spd-plus");
    assert!(err(&c).contains("gc.combine_host_writes"), "{}", err(&c));
    let mut c = drive("baseline-d");
    c.ftl.hot_data = "wdac".into();
    assert!(err(&c).contains("ftl.hot_data"), "{}", err(&c));
    let mut c = drive("baseline-d");
    c.ftl.fast_log_units = 1;
    assert!(err(&c).contains("at least 2"), "{}", err(&c));
    let mut c = drive("baseline-d");
    c.ftl.fast_log_units = 15; // 48 data + 15 logs + 2 > 64
    assert!(err(&c).contains("do not fit"), "{}", err(&c));
    c.ftl.fast_log_units = 14;
    c.validate("test").unwrap();
    let c = drive("baseline-d");
    let e = Simulator::new(
        &c,
        &sequential(10),
        &Precondition::parse("fill:0.5:0.8").unwrap(),
    )
    .err()
    .expect("fill is refused")
    .to_string();
    assert!(e.contains("fill") && e.contains("fast"), "{e}");
}

/// A die held for its GC (`gc.hold_die`) still lets host commands through
/// while a merge waits only for host reads of the units it would erase (the
/// reads pin them): otherwise the reads wait for the merge and the merge
/// for the reads, and the run stalls. Under FAST and under DVPFTL's map
/// (whose merges hold every die of a virtual flash chip), with reads.
#[test]
fn a_held_die_lets_the_reads_a_merge_waits_for_through() {
    for name in ["baseline-d", "spd", "dvpftl"] {
        let mut c = if name == "dvpftl" {
            let mut c = Config::preset("small").unwrap();
            c.geometry.channels = 2;
            c.geometry.chips_per_channel = 2;
            c.geometry.dies_per_chip = 1;
            c.geometry.planes_per_die = 2;
            c.geometry.blocks_per_plane = 64;
            c.geometry.pages_per_block = 32;
            c.ftl.overprovisioning = 0.25;
            c.check.enabled = true;
            c.check.interval_requests = 400;
            scheme::by_name(name).unwrap().apply(&c).unwrap()
        } else {
            drive(name)
        };
        c.gc.hold_die = true;
        c.validate("test").unwrap();
        let src = random(
            c.logical_pages() * 3 / 4,
            6000,
            0.5,
            Address::Zipf { theta: 0.8 },
        );
        let r = run(&c, &src, "trace-reads");
        assert_eq!(r.requests, 6000, "{name}");
        assert!(r.gc.full_merges > 0, "{name}: {:?}", r.gc);
    }
}
