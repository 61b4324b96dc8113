//! GC pacing: semi-preemptive GC (`gc.preemptive`, `gc.hard_threshold`)
//! and idle-time GC (`gc.idle`). Their exact latencies are in the
//! validation suite (`validate::pacing_checks`); here, what they do on a
//! loaded drive, with the consistency checker on.

mod common;

use ssdlab::config::{GcThreshold, IdleGc};
use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Report, Simulator};

/// The tests' tiny drive (two dies of two planes, no write buffer, the
/// checker every 500 requests) cut to 48 blocks of 16 pages, GC below 4
/// free blocks.
fn drive() -> Config {
    let mut c = common::tiny();
    c.geometry.dies_per_chip = 1;
    c.geometry.planes_per_die = 2;
    c.geometry.blocks_per_plane = 48;
    c.geometry.pages_per_block = 16;
    c.ftl.overprovisioning = 0.25;
    c.gc.threshold = GcThreshold::Blocks(4);
    c
}

/// Host writes waited less than in `off`.
fn writes_wait_less(r: &Report, off: &Report) {
    assert!(
        r.write.latency_us.mean < off.write.latency_us.mean,
        "{} vs {}",
        r.write.latency_us.mean,
        off.write.latency_us.mean
    );
}

/// Random 4–16 KiB requests over the whole logical space, Poisson at `iops`.
fn workload(c: &Config, iops: f64, read_share: f64) -> Source {
    Source::Synthetic(Profile {
        name: "random".into(),
        seed: 7,
        requests: 4_000,
        read_share,
        footprint_bytes: c.logical_pages() * 4096,
        page_bytes: 4096,
        read_size: Some(SizeDist::uniform(4096, 16384)),
        write_size: Some(SizeDist::uniform(4096, 16384)),
        address: Address::HotCold {
            hot_fraction: 0.2,
            hot_share: 0.8,
        },
        arrival: Arrival::Poisson { iops },
        latency_hint: None,
    })
}

fn run(c: &Config, src: &Source) -> Report {
    Simulator::new(
        c,
        src,
        &Precondition::parse("fill:0.9:0.7+trace-reads").unwrap(),
    )
    .unwrap()
    .run(&mut |_| {})
    .unwrap_or_else(|e| panic!("{e}"))
}

fn json(r: &Report) -> String {
    serde_json::to_string(r).unwrap()
}

fn preemptive(c: &Config, hard: GcThreshold) -> Config {
    let mut c = c.clone();
    c.gc.preemptive = true;
    c.gc.hard_threshold = Some(hard);
    c
}

fn idle(c: &Config, after_us: f64, blocks: u32) -> Config {
    let mut c = c.clone();
    c.gc.idle = Some(IdleGc {
        after_us,
        high_watermark: GcThreshold::Blocks(blocks),
    });
    c
}

#[test]
fn off_by_default_nothing_is_reported() {
    let c = drive();
    let r = run(&c, &workload(&c, 800.0, 0.5));
    assert!(r.gc.count > 0);
    assert!(r.gc.pacing.is_none());
    assert!(!json(&r).contains("pacing"));
}

#[test]
fn preemptive_gc_lets_host_work_through_and_counts_it() {
    let c = drive();
    let src = workload(&c, 100.0, 0.5);
    let off = run(&c, &src);
    let on = preemptive(&c, GcThreshold::Blocks(1));
    let r = run(&on, &src);
    assert_eq!(r.requests, 4_000);
    let n = r.gc.pacing.as_ref().unwrap().preemptions.unwrap();
    assert!(n > 0, "no preemption");
    assert!(r.gc.pacing.as_ref().unwrap().idle.is_none());
    // Host writes no longer wait for whole GCs of their plane (simulated
    // latencies: 2 842 µs against 8 941 µs when written).
    writes_wait_less(&r, &off);
    // Deterministic.
    assert_eq!(json(&r), json(&run(&on, &src)));
}

#[test]
fn a_hard_threshold_at_the_gc_threshold_never_preempts() {
    // GC starts below gc.threshold and its free space only falls until its
    // erase: at that hard threshold it is never preemptible, and the run
    // is the run without the option.
    let c = drive();
    let src = workload(&c, 800.0, 0.5);
    let off = run(&c, &src);
    let mut r = run(&preemptive(&c, GcThreshold::Blocks(4)), &src);
    assert_eq!(r.gc.pacing.as_ref().unwrap().preemptions, Some(0));
    r.gc.pacing = None;
    assert_eq!(json(&r), json(&off));
}

#[test]
fn idle_gc_collects_in_the_gaps_and_pauses_for_host_work() {
    let c = drive();
    // About 10 ms between requests: gaps of well over 200 µs are common.
    let src = workload(&c, 100.0, 0.5);
    let off = run(&c, &src);
    let on = idle(&c, 200.0, 8);
    let r = run(&on, &src);
    assert_eq!(r.requests, 4_000);
    let i = r.gc.pacing.as_ref().unwrap().idle.clone().unwrap();
    assert!(
        i.periods > 0 && i.gcs > 0 && i.moves > 0 && i.erases > 0,
        "{i:?}"
    );
    assert!(i.erases <= r.gc.erases);
    assert!(i.resumed > 0, "{i:?}");
    // Idle GC keeps planes above the threshold: host writes wait less
    // (3 176 µs against 8 941 µs when written).
    writes_wait_less(&r, &off);
    assert_eq!(json(&r), json(&run(&on, &src)));
}

#[test]
fn idle_gc_that_never_finds_the_drive_idle_changes_nothing() {
    // Timers set a second after each quiet moment: a request always comes
    // first, so every timer is stale.
    let c = drive();
    let src = workload(&c, 800.0, 0.5);
    let off = run(&c, &src);
    let mut r = run(&idle(&c, 1e6, 8), &src);
    let i = r.gc.pacing.take().unwrap().idle.unwrap();
    assert_eq!((i.periods, i.gcs), (0, 0));
    // The stale timers are events of their own.
    assert!(r.events > off.events);
    r.events = off.events;
    assert_eq!(json(&r), json(&off));
}

#[test]
fn both_together_stay_consistent() {
    let c = drive();
    let src = workload(&c, 600.0, 0.4);
    let both = idle(&preemptive(&c, GcThreshold::Blocks(2)), 300.0, 10);
    let r = run(&both, &src);
    assert_eq!(r.requests, 4_000);
    let p = r.gc.pacing.as_ref().unwrap();
    assert!(p.preemptions.is_some() && p.idle.is_some());
}

#[test]
fn a_saved_drive_serves_runs_with_and_without_pacing() {
    // Aging does not read the pacing keys: a state saved without them
    // starts a run with them, and that run is the one that ages itself.
    let c = drive();
    let src = workload(&c, 800.0, 0.5);
    let pre = Precondition::parse("fill:0.9:0.7+trace-reads").unwrap();
    let (_, saved) = Simulator::new_saving(&c, &src, &pre).unwrap();
    let state = ssdlab::sim::SavedState::from_bytes(saved.bytes().to_vec(), None).unwrap();
    let on = idle(&preemptive(&c, GcThreshold::Blocks(2)), 300.0, 10);
    let loaded = Simulator::new_loaded(&on, &src, &state)
        .unwrap()
        .run(&mut |_| {})
        .unwrap();
    assert_eq!(json(&loaded), json(&run(&on, &src)));
}
