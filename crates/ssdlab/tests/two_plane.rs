//! DVPFTL's APM and the PaRP comparator (`ftl/twoplane.rs`): where a
//! request's pages go, when dummy pages pad them, that the pages then go
//! as two-plane programs, Eq. (8)'s bound, the erase-aware rules, and what
//! the two allocators require of the other policies.

use std::sync::Arc;

use ssdlab::addr::PlaneId;
use ssdlab::config::BufferCapacity;
use ssdlab::ftl::twoplane::{dummy_ratio_bound, eq7_times_ns};
use ssdlab::workload::{IoRecord, Op, Source};
use ssdlab::{scheme, Config, Report, Simulator};

mod common;

const PAGE: u64 = 4096;

fn write(time_ns: u64, page: u64, pages: u64) -> IoRecord {
    IoRecord::new(time_ns, Op::Write, page * PAGE, pages * PAGE)
}

fn records(r: Vec<IoRecord>) -> Source {
    Source::Records {
        name: "writes".into(),
        records: Arc::new(r),
    }
}

/// `common::tiny`'s drive (2 channels x 1 chip x 1 die x 2 planes) under
/// scheme `name`, the checker every 100 requests.
fn drive(name: &str) -> Config {
    let mut c = common::tiny();
    c.check.interval_requests = 100;
    scheme::by_name(name).unwrap().apply(&c).unwrap()
}

fn run(c: &Config, src: &Source, pre: &str) -> Report {
    run_sim(c, src, pre).0
}

fn run_sim(c: &Config, src: &Source, pre: &str) -> (Report, Simulator) {
    common::run_checked(c, src, pre)
}

/// Program commands of `planes` planes.
fn programs(r: &Report, planes: u32) -> u64 {
    r.flash
        .commands
        .iter()
        .filter(|c| c.kind == "program" && c.planes == planes)
        .map(|c| c.commands)
        .sum()
}

#[test]
fn apm_splits_a_request_over_two_planes_of_a_die() {
    let c = drive("apm");
    // One 4-page request on an idle drive: two two-plane programs.
    let r = run(&c, &records(vec![write(0, 0, 4)]), "none");
    let t = r.two_plane.as_ref().unwrap();
    assert_eq!((t.requests, t.pages, t.two_plane_requests), (1, 4, 1));
    assert_eq!(t.dummy_pages, 0);
    assert_eq!(programs(&r, 2), 2);
    assert_eq!(programs(&r, 1), 0);
    // Its latency: two two-plane programs on one die, back to back.
    let (_, t2) = eq7_times_ns(&c);
    let lat = r.write.latency_us.mean;
    assert!(
        (lat - 2.0 * t2 / 1e3).abs() < 1.0,
        "{lat} us against 2 x {} us",
        t2 / 1e3
    );
}

#[test]
fn apm_pads_odd_requests_only_within_eq_8() {
    let mut c = drive("apm");
    c.ftl.apm.alpha = 0.99;
    let (t_nom, t_2) = eq7_times_ns(&c);
    let bound = dummy_ratio_bound(0.99, t_nom, t_2);
    assert!(bound > 0.5 && bound < 1.0, "{bound}");
    // One-page requests far apart: each needs one dummy page for a
    // two-plane program; Eq. (8) allows one while Y_dum + 1 <= bound * Y_req.
    let n = 200u64;
    let recs = (0..n).map(|i| write(i * 10_000_000, i * 3, 1)).collect();
    let r = run(&c, &records(recs), "none");
    let t = r.two_plane.as_ref().unwrap();
    assert_eq!(t.pages, n);
    assert!(t.dummy_pages as f64 <= bound * n as f64);
    // Greedy: never more than one dummy behind the bound.
    assert!(t.dummy_pages as f64 >= bound * n as f64 - 1.0, "{t:?}");
    assert_eq!(r.flash.wasted_pages, t.dummy_pages);
    assert_eq!(t.two_plane_requests + t.single_programs, n);
    // Every dummy completes a two-plane program with its request's page.
    assert_eq!(programs(&r, 2), t.dummy_pages);
    // At alpha = T_2plane / (2 T_nom) two-plane programs save nothing
    // (Eq. 7 with no dummy at all): below it, no dummy page is allowed.
    let mut d = drive("apm");
    d.ftl.apm.alpha = 0.5;
    assert!(0.5 < t_2 / (2.0 * t_nom));
    assert_eq!(dummy_ratio_bound(0.5, t_nom, t_2), 0.0);
    let recs = (0..n).map(|i| write(i * 10_000_000, i * 3, 1)).collect();
    let r = run(&d, &records(recs), "none");
    assert_eq!(r.two_plane.unwrap().dummy_pages, 0);
    assert_eq!(r.flash.wasted_pages, 0);
}

#[test]
fn parp_pairs_two_requests_that_arrive_together() {
    let c = drive("parp");
    // Two requests at once: the second pairs with the first on the die's
    // other plane (page i beside page i); the shorter is padded.
    let r = run(&c, &records(vec![write(0, 0, 3), write(0, 100, 1)]), "none");
    let t = r.two_plane.as_ref().unwrap();
    assert_eq!(
        (t.requests, t.two_plane_requests, t.single_programs),
        (2, 1, 0)
    );
    assert_eq!(t.dummy_pages, 2);
    assert_eq!(r.flash.wasted_pages, 2);
    assert_eq!(programs(&r, 2), 3);
    // Far apart, the first is programmed before the second arrives: no
    // pair, no dummy, normal programs.
    let r = run(
        &c,
        &records(vec![write(0, 0, 3), write(50_000_000, 100, 1)]),
        "none",
    );
    let t = r.two_plane.as_ref().unwrap();
    assert_eq!(
        (t.two_plane_requests, t.single_programs, t.dummy_pages),
        (0, 2, 0)
    );
    assert_eq!(programs(&r, 2), 0);
    assert_eq!(programs(&r, 1), 4);
}

#[test]
fn apm_turns_to_erase_counts_as_wear_spreads() {
    // Thresholds of 1 and 2 erases: once planes differ by an erase, APM
    // places by erase counts, in the channel and then anywhere. (A write
    // of two pages every 2 ms: the drive keeps up, so APM places every
    // request; an overloaded one places a backlog page by page.)
    let mut c = drive("apm");
    c.ftl.apm.th_dn = 1;
    c.ftl.apm.th_up = 2;
    let logical = c.logical_pages();
    let recs = (0..4000u64)
        .map(|i| write(i * 2_000_000, (i * 7919) % (logical / 2), 2))
        .collect();
    let r = run(&c, &records(recs), "fill:0.9:0.9");
    let t = r.two_plane.as_ref().unwrap();
    assert!(r.gc.count > 0, "the drive must collect garbage");
    assert!(t.by_rule[0] > 0 && t.by_rule[1] + t.by_rule[2] > 0, "{t:?}");
    assert_eq!(t.by_rule.iter().sum::<u64>(), t.requests);
    assert_eq!(t.erase_delta, r.erase_count.plane_delta);
    // With the paper's thresholds the same run never leaves the first rule.
    let d = drive("apm");
    let recs = (0..4000u64)
        .map(|i| write(i * 2_000_000, (i * 7919) % (logical / 2), 2))
        .collect();
    let r = run(&d, &records(recs), "fill:0.9:0.9");
    let t = r.two_plane.unwrap();
    assert_eq!(t.by_rule, [t.requests, 0, 0]);
}

/// Valid pages per chip (1 die x 2 planes per chip).
fn chip_pages(sim: &Simulator, chips: u32) -> Vec<u32> {
    (0..chips)
        .map(|c| {
            (0..2)
                .map(|p| sim.ftl().plane_valid(PlaneId(c * 2 + p)))
                .sum()
        })
        .collect()
}

#[test]
fn dvp_stripes_a_request_over_the_virtual_flash_chip() {
    // 2 channels x 2 ways: one virtual flash chip of 4 chips, striped
    // channel first (chips 0, 2, 1, 3: chip index = channel * 2 + way).
    let mut c = drive("dvpftl");
    c.geometry.chips_per_channel = 2;
    // An 8-page request: two pages on each chip, a two-plane program each.
    let (r, sim) = run_sim(&c, &records(vec![write(0, 0, 8)]), "none");
    assert_eq!(chip_pages(&sim, 4), [2, 2, 2, 2]);
    assert_eq!(programs(&r, 2), 4);
    assert_eq!(r.two_plane.as_ref().unwrap().dummy_pages, 0);
    // Each channel moves four pages and its two chips program at once:
    // the request takes four transfers and one tPROG.
    let xfer = c.geometry.page_size_bytes as f64 * c.timing.bus_ns_per_byte / 1e3;
    let want = 4.0 * xfer + c.timing.program_us[0];
    let lat = r.write.latency_us.mean;
    assert!((lat - want).abs() < 1.0, "{lat} us against {want} us");
    // One-page requests continue the stripe: chips 0, 2, 1, 3 in turn.
    let recs = (0..3).map(|i| write(i * 50_000_000, i * 10, 1)).collect();
    let (_, sim) = run_sim(&c, &records(recs), "none");
    assert_eq!(chip_pages(&sim, 4), [1, 1, 1, 0]);
    // With DL-MBF_s (the scheme's hot/cold clustering) a request is one
    // chunk: all its pages go to the hot or all to the cold stream.
    let recs = (0..12).map(|i| write(i * 50_000_000, 0, 8)).collect();
    let r = run(&c, &records(recs), "none");
    let hot = (r.flash.host_hot_share * r.flash.host_programs as f64).round() as u64;
    assert_eq!(r.flash.host_programs, 96);
    assert!(hot > 0 && hot.is_multiple_of(8), "{hot} hot pages");
    // An odd number of ways is no virtual flash chip.
    let mut d = drive("dvpftl");
    d.geometry.chips_per_channel = 3;
    let e = d.validate("t").unwrap_err().to_string();
    assert!(e.contains("geometry.chips_per_channel"), "{e}");
}

#[test]
fn two_plane_allocators_name_what_they_need() {
    let base = drive("apm");
    let mut c = base.clone();
    c.buffer.capacity = BufferCapacity::Pages(64);
    let e = c.validate("t").unwrap_err().to_string();
    assert!(e.contains("buffer.capacity") && e.contains("apm"), "{e}");
    let mut c = base.clone();
    c.ftl.apm.alpha = 1.5;
    let e = c.validate("t").unwrap_err().to_string();
    assert!(e.contains("ftl.apm.alpha"), "{e}");
    let mut c = base.clone();
    c.ftl.apm.th_dn = 300;
    let e = c.validate("t").unwrap_err().to_string();
    assert!(e.contains("ftl.apm.th_dn"), "{e}");
    let mut c = base;
    c.geometry.planes_per_die = 1;
    let e = c.validate("t").unwrap_err().to_string();
    assert!(e.contains("flash.multiplane"), "{e}");
}
