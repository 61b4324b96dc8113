//! Steady state: the SNIA PTS rule judged over every run's measured window
//! (`steady_state`), and `--precondition until-steady`, the timed warm-up
//! that serves the workload in rounds until the rule holds.

use ssdlab::config::{GcThreshold, HostMode};
use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Simulator};

fn drive() -> Config {
    let mut c = Config::preset("small").unwrap();
    c.geometry.blocks_per_plane = 64;
    c.geometry.pages_per_block = 32;
    c.gc.threshold = GcThreshold::Blocks(2);
    c.host.mode = HostMode::ClosedLoop;
    c.host.queue_depth = 4;
    c
}

fn writes(c: &Config, requests: u64, read_share: f64) -> Source {
    Source::Synthetic(Profile {
        name: "uniform".into(),
        seed: 9,
        requests,
        read_share,
        footprint_bytes: c.logical_pages() * 4096,
        page_bytes: 4096,
        read_size: Some(SizeDist::constant(4096)),
        write_size: Some(SizeDist::constant(4096)),
        address: Address::Uniform,
        arrival: Arrival::Poisson { iops: 1.0 },
        latency_hint: None,
    })
}

fn run(c: &Config, src: &Source, pre: &str) -> ssdlab::Report {
    Simulator::new(c, src, &Precondition::parse(pre).unwrap())
        .unwrap()
        .run(&mut |_| {})
        .unwrap()
}

#[test]
fn until_steady_warms_up_in_rounds_then_measures_five() {
    let c = drive();
    let round = 2_000;
    // the workload is shorter than the warm-up: it is replayed as needed
    let src = writes(&c, 3_000, 0.0);
    let pre = format!("fill:0.9:0.8+until-steady:wa:{round}");
    let r = run(&c, &src, &pre);
    let p = &r.precondition;
    assert!(p.steady_reached, "{p:?}");
    assert!((5..=25).contains(&p.steady_rounds), "{p:?}");
    assert_eq!(p.mode, pre);
    // five rounds measured, and the requests outstanding when it started
    assert!(
        (5 * round..=5 * round + 4).contains(&r.requests),
        "{}",
        r.requests
    );
    assert!(r.gc.count > 0);
    let st = r.steady_state.as_ref().unwrap();
    let wa = st
        .variables
        .iter()
        .find(|v| v.name == "write_amplification")
        .unwrap();
    assert!(wa.steady, "{wa:?}");
    assert!(r.warnings.iter().all(|w| w.kind != "not-steady"));
    // the same again
    let again = run(&c, &src, &pre);
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
}

#[test]
fn until_steady_gives_up_after_25_rounds_saying_so() {
    // reads only: write amplification has no value, the rule never holds
    let c = drive();
    let r = run(&c, &writes(&c, 500, 1.0), "trace-reads+until-steady:wa:100");
    assert_eq!(r.precondition.steady_rounds, 25);
    assert!(!r.precondition.steady_reached);
    assert!(
        r.warnings.iter().any(|w| w.kind == "not-steady"),
        "{:?}",
        r.warnings
    );
    assert!((500..=504).contains(&r.requests), "{}", r.requests);
}

#[test]
fn until_steady_is_spelled_back_as_it_parses() {
    for (given, spelled) in [
        ("until-steady", "until-steady:wa:10000"),
        ("until-steady:latency", "until-steady:latency:10000"),
        (
            "fill:0.9:0.8+until-steady:rate:500",
            "fill:0.9:0.8+until-steady:rate:500",
        ),
    ] {
        let p = Precondition::parse(given).unwrap();
        assert_eq!(p.to_string(), spelled);
        assert_eq!(Precondition::parse(spelled).unwrap(), p);
    }
    for bad in [
        "until-steady:iops",
        "until-steady:wa:0",
        "until-steady:wa:x",
        "until-steady:wa:10:3",
    ] {
        let e = Precondition::parse(bad).unwrap_err().to_string();
        assert!(e.contains("until-steady"), "{bad}: {e}");
    }
    // it decides when measurement starts: host.warmup_requests must be 0
    let mut c = drive();
    c.host.warmup_requests = 10;
    let e = Simulator::new(
        &c,
        &writes(&c, 100, 0.0),
        &Precondition::parse("until-steady").unwrap(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("host.warmup_requests"), "{e}");
}

#[test]
fn a_short_run_has_no_steady_state_check() {
    let c = drive();
    let r = run(&c, &writes(&c, 99, 0.0), "none");
    assert!(r.steady_state.is_none());
    let r = run(&c, &writes(&c, 100, 0.0), "none");
    assert_eq!(
        r.steady_state.unwrap().round_requests.iter().sum::<u64>(),
        100
    );
}
