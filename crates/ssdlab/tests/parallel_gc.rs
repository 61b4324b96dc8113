//! The parallel-GC paper's mechanisms (Zhu, Han, Son, IEEE Access 2020):
//! multi-register planes (`flash.plane_registers`), the die held for a whole
//! GC (`gc.hold_die`) and the GC-first scheduler (`sched.policy =
//! "gc-first"`). The exact GC-time formula is in the validation suite
//! (`validate::parallel_gc_checks`).

use std::sync::Arc;

use ssdlab::config::SchedPolicy;
use ssdlab::validate::{one_die, victim_with};
use ssdlab::workload::{IoRecord, Op, Source};
use ssdlab::{Config, Precondition, Report, Simulator};

/// One plane of 8 blocks of 32 pages: the validation suite's drive for a GC
/// of a victim with a known number of valid pages.
fn drive(k: u32) -> Config {
    let mut c = one_die(1);
    c.geometry.blocks_per_plane = 8;
    c.geometry.pages_per_block = 32;
    c.ftl.overprovisioning = 0.5;
    c.flash.plane_registers = k;
    c.check.enabled = true;
    c
}

/// `victim_with(n)` and a read of LPN 40 (mapped) 1 µs after the write
/// that starts the GC.
fn with_read(n: u64) -> Source {
    with_read_of(n, 40)
}

/// `victim_with(n)` and a read of `lpn` 1 µs after the write that starts
/// the GC.
fn with_read_of(n: u64, lpn: u64) -> Source {
    let Source::Records { records, .. } = victim_with(n) else {
        unreachable!("victim_with gives records")
    };
    let mut recs = records.as_ref().clone();
    let t = recs.last().unwrap().time_ns + 1_000;
    recs.push(IoRecord::new(t, Op::Read, lpn * 4096, 4096));
    Source::Records {
        name: "gc-and-a-read".into(),
        records: Arc::new(recs),
    }
}

fn run(c: &Config, src: &Source) -> Report {
    Simulator::new(c, src, &Precondition::parse("none").unwrap())
        .unwrap()
        .run(&mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_held_die_serves_host_reads_only_after_its_gc() {
    let c = drive(1);
    let t = ssdlab::flash::FlashTiming::new(&c);
    let (tr, tp, te, x) = (t.read_ns[0], t.program_ns[0], t.erase_ns, t.xfer_ns);
    let free = run(&c, &with_read(9));
    let mut held = c.clone();
    held.gc.hold_die = true;
    let held = run(&held, &with_read(9));
    assert_eq!((free.gc.count, held.gc.count), (1, 1));
    // The read arrives 1 µs into the program that triggered GC. Free: it
    // waits for that program and one copyback at most, then goes first
    // (read-priority). Held: it waits for all 9 copybacks and the erase.
    let read_free = free.read.latency_us.mean * 1e3;
    let read_held = held.read.latency_us.mean * 1e3;
    assert!(
        read_free <= (x + tp - 1_000 + tr + tp + tr + x) as f64 + 1.0,
        "free: {read_free} ns"
    );
    let wait = (x + tp - 1_000 + 9 * (tr + tp) + te) as f64;
    assert!(
        (read_held - (wait + (tr + x) as f64)).abs() < 1.0,
        "held: {read_held} ns, expected {} ns",
        wait + (tr + x) as f64
    );
    // Held, nothing comes between the GC's commands; free, the read did.
    assert_eq!(
        held.gc.time_us.mean * 1e3,
        (x + tp + 9 * (tr + tp) + te) as f64
    );
    assert!(free.gc.time_us.mean > held.gc.time_us.mean);
}

/// A host read of the victim queued before its page moves pins the block:
/// the erase waits for it, so a held die lets it through once the moves are
/// done (it used to wait for the erase, which waited for it: a stall).
#[test]
fn a_held_die_lets_reads_of_its_victim_drain_before_the_erase() {
    let mut c = drive(1);
    c.gc.hold_die = true;
    let t = ssdlab::flash::FlashTiming::new(&c);
    let (tr, tp, te, x) = (t.read_ns[0], t.program_ns[0], t.erase_ns, t.xfer_ns);
    // LPN 0 stays valid in the victim (block 0 keeps LPNs 0..9).
    let r = run(&c, &with_read_of(9, 0));
    assert_eq!(r.gc.count, 1);
    assert_eq!(r.read.count, 1);
    // The read waits for the program under way and the 9 copybacks, then
    // runs; the erase follows it.
    let moves_done = (x + tp - 1_000 + 9 * (tr + tp)) as f64;
    let read = r.read.latency_us.mean * 1e3;
    assert!(
        (read - (moves_done + (tr + x) as f64)).abs() < 1.0,
        "read {read} ns, expected {} ns",
        moves_done + (tr + x) as f64
    );
    assert!(r.gc.time_us.mean * 1e3 >= (x + tp + 9 * (tr + tp) + tr + te) as f64);
}

#[test]
fn gc_first_puts_gc_ahead_of_host_reads() {
    let mut rp = drive(1);
    rp.sched.policy = SchedPolicy::ReadPriority;
    let mut gf = rp.clone();
    gf.sched.policy = SchedPolicy::GcFirst;
    let rp = run(&rp, &with_read(9));
    let gf = run(&gf, &with_read(9));
    // Under gc-first the read waits behind the GC's queued moves; under
    // read-priority it overtakes them.
    assert!(
        gf.read.latency_us.mean > 3.0 * rp.read.latency_us.mean,
        "gc-first {} us, read-priority {} us",
        gf.read.latency_us.mean,
        rp.read.latency_us.mean
    );
    assert!(gf.gc.time_us.mean < rp.gc.time_us.mean);
}

#[test]
fn more_registers_shorten_gc_and_host_waits() {
    // The same victim with 9 valid pages: k = 1, 2, 4 workers.
    let times: Vec<f64> = [1, 2, 4]
        .iter()
        .map(|&k| run(&drive(k), &with_read(9)).gc.time_us.mean)
        .collect();
    assert!(times[0] > times[1] && times[1] > times[2], "{times:?}");
}

#[test]
fn parity_destinations_keep_every_copyback_under_the_odd_even_rule() {
    // The victim's 9 valid pages are pages 0..9 of block 0 (5 even, 4 odd).
    // In index order, the odd/even rule sends every page whose parity
    // differs from the next free page's through the controller; with the
    // paper's destination mapping (Alg. 3) all 9 go by copyback.
    for k in [1, 2, 4] {
        let mut c = drive(k);
        c.flash.copyback_odd_even = true;
        let in_order = run(&c, &victim_with(9));
        c.gc.parity_destinations = true;
        let mapped = run(&c, &victim_with(9));
        assert_eq!(
            (mapped.flash.copybacks, mapped.gc.copyback_fallbacks),
            (9, 0),
            "k = {k}"
        );
        assert!(in_order.gc.copyback_fallbacks > 0, "k = {k}");
        assert!(mapped.gc.time_us.mean < in_order.gc.time_us.mean);
    }
}

#[test]
fn parity_destinations_and_ippbe_stay_consistent_through_gc() {
    // A random-write churn through many GCs, checker on (it verifies every
    // copyback's parity and the out-of-order blocks' maps), with and without
    // IPPBE's two-block GCs.
    use ssdlab::config::{BufferCapacity, GcThreshold};
    use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
    for (k, blocks) in [(1, 1), (4, 1), (1, 2), (4, 2)] {
        let mut c = one_die(2);
        c.geometry.blocks_per_plane = 64;
        c.geometry.pages_per_block = 32;
        c.gc.threshold = GcThreshold::Blocks(3);
        c.buffer.capacity = BufferCapacity::Pages(64);
        c.flash.copyback_odd_even = true;
        c.flash.plane_registers = k;
        c.gc.parity_destinations = true;
        c.gc.blocks_per_gc = blocks;
        c.check.enabled = true;
        c.check.interval_requests = 2_000;
        let logical = c.logical_pages() * 4096;
        let p = Profile {
            name: "churn".into(),
            seed: 4,
            requests: 20_000,
            read_share: 0.2,
            footprint_bytes: logical,
            page_bytes: 4096,
            read_size: Some(SizeDist::uniform(4096, 8192)),
            write_size: Some(SizeDist::uniform(4096, 16384)),
            address: Address::HotCold {
                hot_fraction: 0.2,
                hot_share: 0.8,
            },
            arrival: Arrival::Poisson { iops: 500.0 },
            latency_hint: None,
        };
        let r = Simulator::new(
            &c,
            &Source::Synthetic(p),
            &Precondition::parse("fill:0.9:0.8").unwrap(),
        )
        .unwrap()
        .run(&mut |_| {})
        .unwrap_or_else(|e| panic!("k = {k}, blocks {blocks}: {e}"));
        assert!(r.gc.count > 50, "k = {k}: {} GCs", r.gc.count);
        if blocks == 2 {
            assert!(
                r.gc.erases > r.gc.count * 3 / 2,
                "IPPBE erases two blocks per GC"
            );
        }
        // Fallbacks only when an active block has run out of one parity.
        assert!(
            (r.gc.copyback_fallbacks as f64) < 0.05 * r.gc.pages_migrated as f64,
            "k = {k}: {} fallbacks of {} moves",
            r.gc.copyback_fallbacks,
            r.gc.pages_migrated
        );
    }
}

#[test]
fn registers_compose_with_per_plane_schemes_and_with_die_gc_by_copyback() {
    use ssdlab::scheme;
    let base = drive(2);
    for name in ["baseline-d", "baseline-p", "paragc"] {
        let c = scheme::by_name(name).unwrap().apply(&base).unwrap();
        let r = run(&c, &with_read(9));
        assert_eq!(r.gc.pages_migrated, 9, "{name}");
    }
    // SPD's Die-GC through the controller has no copyback for the extra
    // registers to run: a config error that names the key to change.
    let small = Config::preset("small").unwrap();
    let spd = scheme::by_name("spd").unwrap().apply(&small).unwrap();
    let e = spd
        .with_overrides(&["flash.plane_registers=2".to_string()])
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("flash.plane_registers") && e.contains("gc.migration"),
        "{e}"
    );
    // By copyback it composes: a plane's valid pages up to its share stay
    // in it, rows of them go at once, k per plane (the exact times are in
    // the validation suite, `validate::die_copy_checks`).
    let ok = |c: &Config, overrides: &[&str]| {
        c.with_overrides(&overrides.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    };
    ok(
        &spd,
        &[
            "gc.migration=copyback",
            "flash.plane_registers=2",
            "gc.moves_in_flight=2",
        ],
    )
    .unwrap();
    // Super pages stay at one page index, and SPD+ joins host pages to
    // moves read out to the controller: copyback is refused, saying why.
    for name in ["superpage", "spd-plus"] {
        let c = scheme::by_name(name).unwrap().apply(&small).unwrap();
        let e = ok(&c, &["gc.migration=copyback"])
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("gc.migration") && e.contains("controller"),
            "{name}: {e}"
        );
    }
}

/// Die-GC by copyback on the validation suite's die (`die_copy_groups`:
/// group 0 keeps 5 valid pages on plane 0, 16 on plane 1, a share of 11 per
/// plane): 16 pages stay in their planes by copyback, plane 1's 5 past its
/// share move to plane 0 through the controller, plane 0 is padded by one,
/// the checker (on) finds the die's write points aligned whenever it is
/// not collecting, and more registers shorten the GC.
#[test]
fn die_gc_by_copyback_keeps_pages_in_their_planes_and_pads() {
    use ssdlab::config::{BufferCapacity, Migration};
    let mut times = vec![];
    for k in [1, 2, 4] {
        let mut c = ssdlab::validate::small_die(2, 32);
        c.buffer.capacity = BufferCapacity::Pages(2);
        let mut c = ssdlab::scheme::by_name("spd").unwrap().apply(&c).unwrap();
        c.gc.migration = Migration::Copyback;
        c.flash.plane_registers = k;
        c.gc.moves_in_flight = k;
        c.check.enabled = true;
        let r = run(&c, &ssdlab::validate::die_copy_groups());
        assert_eq!(r.gc.count, 1);
        assert_eq!(r.flash.copybacks, 16, "k={k}");
        assert_eq!(r.gc.pages_migrated, 21, "k={k}");
        assert_eq!(r.flash.wasted_pages, 1, "k={k}");
        times.push(r.gc.time_us.mean);
    }
    assert!(times[0] > times[1] && times[1] > times[2], "{times:?}");
}
