//! Program and erase suspension (`flash.suspension`): reads suspend
//! programs and erases on an aged drive under GC, the checker passes
//! throughout, latency parts still sum, and with the option off (absent, or
//! naming no operation) every figure is what it was. The exact timings are
//! in the validation suite (`validate::suspension_checks`).

mod common;

use ssdlab::config::Suspension;
use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use ssdlab::workload::Source;
use ssdlab::{Completion, Config, Precondition, Report, Simulator};

/// A mixed workload over the whole logical space of `c`.
fn mix(c: &Config, requests: u64) -> Source {
    Source::Synthetic(Profile {
        name: "mix".into(),
        seed: 5,
        requests,
        read_share: 0.5,
        footprint_bytes: c.logical_pages() * 4096,
        page_bytes: 4096,
        read_size: Some(SizeDist::uniform(4096, 8192)),
        write_size: Some(SizeDist::uniform(4096, 16384)),
        address: Address::HotCold {
            hot_fraction: 0.2,
            hot_share: 0.8,
        },
        arrival: Arrival::Poisson { iops: 400.0 },
        latency_hint: None,
    })
}

fn with(c: &Config, program: bool, erase: bool, max: u32) -> Config {
    let mut c = c.clone();
    c.flash.suspension = Suspension {
        program,
        erase,
        max_per_op: max,
        ..Suspension::default()
    };
    c
}

/// Run with every request logged; the consistency checker at the end.
fn run(c: &Config, src: &Source) -> (Report, Vec<Completion>) {
    common::run_logged(
        Simulator::new(
            c,
            src,
            &Precondition::parse("fill:0.9:0.8+trace-reads").unwrap(),
        )
        .unwrap(),
    )
}

fn drive() -> Config {
    let mut c = common::tiny();
    c.metrics.attribution = true;
    c
}

#[test]
fn reads_suspend_gc_and_host_operations_and_wait_less() {
    let c = drive();
    let src = mix(&c, 6_000);
    let (plain, _) = run(&c, &src);
    assert!(plain.gc.count > 0 && plain.suspension.is_none());
    let (r, done) = run(&with(&c, true, true, 0), &src);
    let u = r.suspension.as_ref().expect("suspension is reported");
    assert!(u.program_suspensions > 0, "{u:?}");
    assert!(u.erase_suspensions > 0, "{u:?}");
    assert!(u.pages_read_suspended >= u.program_suspensions + u.erase_suspensions);
    assert!(u.suspended_us > 0.0 && u.mean_suspended_us > 0.0);
    assert_eq!(r.requests, plain.requests);
    // Reads spend less time waiting behind long operations.
    assert!(
        r.read.latency_us.mean < plain.read.latency_us.mean,
        "{} against {}",
        r.read.latency_us.mean,
        plain.read.latency_us.mean
    );
    // Every request's parts sum to its latency, and some reads and writes
    // have a suspended part.
    for d in &done {
        let parts = d.parts.expect("attribution is on");
        assert_eq!(parts.iter().sum::<u64>(), d.completion_ns - d.arrival_ns);
    }
    let suspended = ssdlab::attribution::Part::Suspended as usize;
    for op in [ssdlab::workload::Op::Read, ssdlab::workload::Op::Write] {
        assert!(done
            .iter()
            .any(|d| d.op == op && d.parts.unwrap()[suspended] > 0));
    }
    let a = r.attribution.as_ref().unwrap();
    assert_eq!(a.parts.last().map(String::as_str), Some("suspended"));
    assert!(a.read[0].share_pct.suspended.is_some());
    assert!(r.summary().contains("suspend "));
}

#[test]
fn each_kind_and_the_limit_apply() {
    let c = drive();
    let src = mix(&c, 3_000);
    let (r, _) = run(&with(&c, false, true, 0), &src);
    let u = r.suspension.unwrap();
    assert!(
        u.program_suspensions == 0 && u.erase_suspensions > 0,
        "{u:?}"
    );
    let (r, _) = run(&with(&c, true, false, 0), &src);
    let u = r.suspension.unwrap();
    assert!(
        u.program_suspensions > 0 && u.erase_suspensions == 0,
        "{u:?}"
    );
    // One suspension per operation at most: no more suspensions than
    // programs and erases.
    let (r, _) = run(&with(&c, true, true, 1), &src);
    let u = r.suspension.unwrap();
    assert!(u.program_suspensions <= r.flash.programs + r.flash.copybacks);
    assert!(u.erase_suspensions <= r.flash.erases);
}

#[test]
fn off_changes_nothing() {
    let c = drive();
    let src = mix(&c, 2_000);
    let (plain, _) = run(&c, &src);
    // Named, but suspending nothing: the same JSON, configuration included.
    let mut off = with(&c, false, false, 3);
    off.flash.suspension.resume_us = 7.0;
    let (r, _) = run(&off, &src);
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        serde_json::to_string(&plain).unwrap()
    );
    assert!(!serde_json::to_string(&plain).unwrap().contains("suspen"));
    assert_eq!(off.to_toml(), c.to_toml());
}

/// Aging does not read `flash.suspension`: a drive saved without it
/// starts a run with it, and that run is the one that ages itself.
#[test]
fn a_saved_drive_serves_runs_with_suspension() {
    let c = drive();
    let src = mix(&c, 2_000);
    let pre = Precondition::parse("fill:0.9:0.8+trace-reads").unwrap();
    let (_, saved) = Simulator::new_saving(&c, &src, &pre).unwrap();
    let on = with(&c, true, true, 0);
    let loaded = Simulator::new_loaded(&on, &src, &saved)
        .unwrap()
        .run(&mut |_| {})
        .unwrap();
    let aged = run(&on, &src).0;
    assert!(aged.suspension.is_some());
    assert_eq!(
        serde_json::to_string(&loaded).unwrap(),
        serde_json::to_string(&aged).unwrap()
    );
}
