//! PA-SSD (Zhang et al., IEEE TPDS 2020): relaxed program order within TLC
//! blocks (`ftl.program_order = "relaxed"`) and the page-type specifying
//! schemes (`host.page_types`), on a small `pa-tlc` with the consistency
//! checker on (it verifies the relaxed program constraints of every block).

use ssdlab::config::GcThreshold;
use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Report, Simulator};

/// `pa-tlc` with 24 blocks per plane, GC at 30 % free as in the paper,
/// without the wordline buffer (PA-SSD's program penalty), checker on.
fn drive(order: &str, types: &str) -> Config {
    let mut c = Config::preset("pa-tlc").unwrap();
    c = c
        .with_overrides(&[
            "geometry.blocks_per_plane=24".into(),
            format!("ftl.program_order={order}"),
            format!("host.page_types={types}"),
            "flash.wordline_buffer=false".into(),
        ])
        .unwrap();
    c.gc.threshold = GcThreshold::Percent(30.0);
    c.check.enabled = true;
    c.check.interval_requests = 2_000;
    c
}

/// Writes of 1 to 4 pages (8 KiB each) and some reads over 30 % of the
/// drive, enough to run GC on the aged drive.
fn workload(c: &Config) -> Source {
    Source::Synthetic(Profile {
        name: "pa-mix".into(),
        seed: 3,
        requests: 12_000,
        read_share: 0.3,
        footprint_bytes: c.logical_pages() * 8192 * 3 / 10,
        page_bytes: 8192,
        read_size: Some(SizeDist::uniform(8192, 32768)),
        write_size: Some(SizeDist::uniform(8192, 32768)),
        address: Address::HotCold {
            hot_fraction: 0.2,
            hot_share: 0.8,
        },
        arrival: Arrival::Poisson { iops: 200.0 },
        latency_hint: None,
    })
}

fn run(c: &Config) -> Report {
    // SSDSim's aging: 70 % of every plane written and invalid.
    Simulator::new(c, &workload(c), &Precondition::parse("fill:0.7:0").unwrap())
        .unwrap()
        .run(&mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn type_blind_writes_under_relaxed_order_follow_the_strict_order() {
    let strict = run(&drive("strict", "none"));
    let relaxed = run(&drive("relaxed", "none"));
    assert!(strict.gc.count > 0, "GC must run");
    let json = |r: &Report| {
        let mut v = serde_json::to_value(r).unwrap();
        v["config_name"] = serde_json::Value::Null;
        v
    };
    assert_eq!(json(&strict), json(&relaxed));
    assert!(relaxed.page_type_allocation.is_none());
}

#[test]
fn lsb_first_makes_writes_fast_until_the_lsb_pages_run_out() {
    let blind = run(&drive("relaxed", "none"));
    let lf = run(&drive("relaxed", "slf"));
    let fast = |r: &Report| {
        let w = &r.write_speed;
        w.fast as f64 / (w.fast + w.medium + w.slow) as f64
    };
    assert!(
        fast(&lf) > fast(&blind) + 0.1,
        "{} vs {}",
        fast(&lf),
        fast(&blind)
    );
    assert!(lf.write.latency_us.mean < blind.write.latency_us.mean);
    let a = lf
        .page_type_allocation
        .as_ref()
        .expect("a scheme counts its allocations");
    // Every host page wanted LSB; not all could get it (one active block
    // per plane: its LSB pages run out), and the rest got an alternate.
    assert_eq!(a.host_wanted[1] + a.host_wanted[2], 0);
    assert!(a.host_got[0] < a.host_wanted[0]);
    assert!(
        a.host_success_rate > 0.2 && a.host_success_rate < 1.0,
        "{a:?}"
    );
}

#[test]
fn small_requests_first_and_uniform_types() {
    let r = run(&drive("relaxed", "ssb+su"));
    let a = r.page_type_allocation.as_ref().unwrap();
    // Uniform for large requests, LSB for one-page ones: LSB is wanted most.
    assert!(a.host_wanted[0] > a.host_wanted[1] && a.host_wanted[0] > a.host_wanted[2]);
    assert!(a.host_wanted[1] > 0 && a.host_wanted[2] > 0);
    // GC moves draw their types in proportion to the free pages (sUB).
    assert!(r.gc.pages_migrated == 0 || a.gc_wanted.iter().sum::<u64>() > 0);
    assert!(a.host_success_rate > 0.5, "{a:?}");
}

/// The pools and three active blocks per plane (Fig. 9): LSB writes come
/// from fresh blocks, so LSB-first gets LSB pages while free blocks last,
/// and the checker finds the pools consistent through GC.
#[test]
fn type_pools_serve_each_type_from_its_own_active_block() {
    let one = run(&drive("relaxed", "slf"));
    let mut c = drive("relaxed", "slf");
    c.ftl.type_pools = true;
    let pools = run(&c);
    assert!(pools.gc.count > 0);
    let a = pools.page_type_allocation.as_ref().unwrap();
    let b = one.page_type_allocation.as_ref().unwrap();
    assert!(a.host_success_rate > 0.95, "{a:?}");
    assert!(
        a.host_success_rate > b.host_success_rate + 0.2,
        "{a:?} vs {b:?}"
    );
    assert!(pools.write.latency_us.mean < one.write.latency_us.mean);
    // Uniform types from the pools too.
    let mut c = drive("relaxed", "ssb+sub");
    c.ftl.type_pools = true;
    let r = run(&c);
    let a = r.page_type_allocation.as_ref().unwrap();
    assert!(a.host_got.iter().all(|&n| n > 0), "{a:?}");
}

/// PAS (`sched.pas`): under load, writes that want LSB pages go first, so
/// the mean write response time falls and more writes are fast.
#[test]
fn pas_shortens_writes_under_load() {
    // One chip (16 planes): queues form.
    let mut plain = drive("relaxed", "su")
        .with_overrides(&[
            "geometry.channels=1".into(),
            "geometry.chips_per_channel=1".into(),
        ])
        .unwrap();
    plain.check.interval_requests = 0;
    let mut pas = plain.clone();
    pas.sched.pas = true;
    let busy = |c: &Config| {
        let Source::Synthetic(mut p) = workload(c) else {
            unreachable!()
        };
        p.arrival = Arrival::Poisson { iops: 250.0 };
        p.requests = 6_000;
        p.read_share = 0.1;
        Simulator::new(
            c,
            &Source::Synthetic(p),
            &Precondition::parse("fill:0.7:0").unwrap(),
        )
        .unwrap()
        .run(&mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let (a, b) = (busy(&plain), busy(&pas));
    assert!(
        b.write.latency_us.mean < 0.9 * a.write.latency_us.mean,
        "PAS {} us, without {} us",
        b.write.latency_us.mean,
        a.write.latency_us.mean
    );
    // Needs a page-type scheme.
    let e = Config::preset("pa-tlc")
        .unwrap()
        .with_overrides(&["sched.pas=true".into()])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("sched.pas") && e.contains("host.page_types"),
        "{e}"
    );
}

/// sHG: host hints from a profile's `latency_hint` decide the type; writes
/// without a hint take the complement's (here LSB).
#[test]
fn host_hints_choose_the_page_type() {
    let c = drive("relaxed", "shg+slf");
    let Source::Synthetic(mut p) = workload(&c) else {
        unreachable!()
    };
    p.latency_hint = Some([0.0, 0.0, 0.5]);
    let r = Simulator::new(
        &c,
        &Source::Synthetic(p),
        &Precondition::parse("fill:0.7:0").unwrap(),
    )
    .unwrap()
    .run(&mut |_| {})
    .unwrap_or_else(|e| panic!("{e}"));
    let a = r.page_type_allocation.as_ref().unwrap();
    // About half the writes hinted MSB, the rest LSB; none CSB.
    let (l, m) = (a.host_wanted[0] as f64, a.host_wanted[2] as f64);
    assert_eq!(a.host_wanted[1], 0);
    assert!((m / (l + m) - 0.5).abs() < 0.05, "{a:?}");
}

#[test]
fn schemes_and_orders_refuse_what_cannot_mean_anything() {
    let base = Config::preset("pa-tlc").unwrap();
    let err = |sets: &[&str]| {
        base.with_overrides(&sets.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap_err()
            .to_string()
    };
    let e = err(&["host.page_types=slf"]);
    assert!(
        e.contains("host.page_types") && e.contains("relaxed"),
        "{e}"
    );
    let e = err(&["ftl.program_order=relaxed", "host.page_types=sqd+sxx"]);
    assert!(
        e.contains("host.page_types") && e.contains("complement"),
        "{e}"
    );
    let e = err(&["ftl.type_pools=true"]);
    assert!(e.contains("ftl.type_pools") && e.contains("relaxed"), "{e}");
    let e = err(&["ftl.program_order=relaxed", "ftl.type_pools=true"]);
    assert!(
        e.contains("ftl.type_pools") && e.contains("host.page_types"),
        "{e}"
    );
    let e = err(&["ftl.program_order=relaxed", "cell.page_layout=pattern"]);
    assert!(
        e.contains("ftl.program_order") && e.contains("wordlines"),
        "{e}"
    );
    let e = err(&[
        "cell.type=slc",
        "timing.read_us=[25]",
        "timing.program_us=[200]",
        "ftl.program_order=relaxed",
    ]);
    assert!(
        e.contains("ftl.program_order") && e.contains("multi-bit"),
        "{e}"
    );
}

/// A run on a drive aged with valid data in its blocks (90 % of every
/// plane written, 30 % of that valid), so that GC moves pages.
fn run_aged(c: &Config) -> Report {
    Simulator::new(
        c,
        &workload(c),
        &Precondition::parse("fill:0.9:0.3").unwrap(),
    )
    .unwrap()
    .run(&mut |_| {})
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Page types and parity destinations compose: under the odd/even
/// copyback rule a GC copyback's page is chosen by type, then parity (the
/// wanted type's page if it has the source's parity, else the nearest
/// type's), so fewer copybacks fall back to the controller than with the
/// type alone, and none breaks the rule (the checker judges every
/// copyback), with a single active block and with the type pools (whose
/// copybacks of different types also share a command on multi-register
/// planes).
#[test]
fn copyback_destinations_by_page_type_then_parity() {
    for pools in [false, true] {
        let mut c = drive("relaxed", "ssb+sub");
        c.ftl.type_pools = pools;
        c.gc.migration = ssdlab::config::Migration::Copyback;
        c.flash.copyback_odd_even = true;
        c.validate("t").unwrap();
        let by_type = run_aged(&c);
        c.gc.parity_destinations = true;
        c.validate("t").unwrap();
        let both = run_aged(&c);
        assert!(
            both.gc.count > 0 && both.flash.copybacks > 0,
            "{:?}",
            both.gc
        );
        assert!(
            both.gc.copyback_fallbacks < by_type.gc.copyback_fallbacks,
            "pools {pools}: {} fallbacks by type then parity, {} by type alone",
            both.gc.copyback_fallbacks,
            by_type.gc.copyback_fallbacks
        );
        if pools {
            // Two register sets per plane: copybacks of different types go
            // to their own pools' blocks, so they run at once.
            c.flash.plane_registers = 2;
            c.gc.moves_in_flight = 2;
            let two = run_aged(&c);
            assert!(two.gc.pairs_per_worker[1] > 0, "{:?}", two.gc);
        }
    }
}

/// SPD's Die-Writes on `pa-tlc` under relaxed program order: each
/// Die-Write takes one page type on all 8 planes (the checker, on, verifies
/// the group's lanes after every Die-Write and one page index per
/// multi-plane program, GC's Die-Writes and a Die-GC by copyback's
/// padding included); LSB first gives more LSB pages and faster writes than
/// type-blind Die-Writes. PA-SSD's type pools and PAS are refused, naming
/// the key.
#[test]
fn die_writes_take_one_page_type_on_every_plane() {
    let spd = |types: &str, migration: &str| {
        let c = drive("relaxed", "none");
        let mut c = ssdlab::scheme::by_name("spd")
            .unwrap()
            .apply(
                &c.with_overrides(&["buffer.capacity={pages=256}".into()])
                    .unwrap(),
            )
            .unwrap();
        c = c
            .with_overrides(&[
                "ftl.program_order=relaxed".into(),
                format!("host.page_types={types}"),
                format!("gc.migration={migration}"),
            ])
            .unwrap();
        c.check.enabled = true;
        c
    };
    let blind = run(&spd("none", "controller"));
    let lf = run(&spd("slf", "controller"));
    let by_copyback = run(&spd("ssb+sub", "copyback"));
    assert!(
        blind.gc.count > 0 && by_copyback.gc.count > 0,
        "GC must run"
    );
    let lsb = |r: &Report| r.flash.page_types.host_share.lsb;
    // (Over whole blocks every type is a third: LSB first shows while
    // blocks are partly written.)
    assert!(lsb(&lf) > lsb(&blind), "{} {}", lsb(&lf), lsb(&blind));
    assert!(lf.write.latency_us.mean < blind.write.latency_us.mean);
    for (key, set) in [
        ("ftl.type_pools", "ftl.type_pools=true"),
        ("sched.pas", "sched.pas=true"),
    ] {
        let e = spd("ssb+sub", "controller")
            .with_overrides(&[set.into()])
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(e.contains(key), "{e}");
    }
}
