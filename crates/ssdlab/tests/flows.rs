//! Several flows in one run (`[[flows]]`, `[queues]`): per-flow queue
//! depths bound requests in flight, round robin and weighted round robin
//! share the device as their turns say, SATA serves in order of arrival,
//! namespaces keep flows apart, every request completes once, runs are
//! deterministic, and bad input is an error naming the flow and its key.

mod common;

use ssdlab::config::{Arbitration, FlowConfig, Namespace, Priority, Protocol, Queues};
use ssdlab::workload::{IoRecord, Op, Source};
use ssdlab::{Completion, Config, Precondition, Report, Simulator};

fn records(name: &str, recs: Vec<IoRecord>) -> Source {
    Source::Records {
        name: name.into(),
        records: std::sync::Arc::new(recs),
    }
}

/// `n` 4 KiB requests of `op` at pages 0, 1, 2, … all arriving every
/// `gap_ns`.
fn stream(name: &str, op: Op, n: u64, gap_ns: u64) -> Source {
    records(
        name,
        (0..n)
            .map(|i| IoRecord::new(i * gap_ns, op, (i % 512) * 4096, 4096))
            .collect(),
    )
}

fn flow(name: &str, depth: u32, priority: Priority) -> FlowConfig {
    FlowConfig {
        name: name.into(),
        workload: Some("(records)".into()),
        trace: None,
        synthetic: None,
        limit: None,
        start_us: 0.0,
        queue_depth: depth,
        priority,
        namespace: None,
        channels: None,
        chips: None,
        dies: None,
        planes: None,
    }
}

fn drive() -> Config {
    common::tiny()
}

fn run(c: &Config, sources: &[Source], pre: &str) -> (Report, Vec<Completion>) {
    let sim = Simulator::with_flows(c, sources, &Precondition::parse(pre).unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    common::run_logged(sim)
}

fn error_of(c: &Config, sources: &[Source]) -> String {
    match Simulator::with_flows(c, sources, &Precondition::parse("none").unwrap()) {
        Err(e) => e.to_string(),
        Ok(sim) => match sim.run(&mut |_| {}) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted"),
        },
    }
}

#[test]
fn a_flow_of_queue_depth_one_never_has_two_requests_in_flight() {
    let mut c = drive();
    c.flows = vec![
        flow("one", 1, Priority::Medium),
        flow("many", 8, Priority::Medium),
    ];
    let src = [
        stream("one", Op::Read, 300, 1_000),
        stream("many", Op::Write, 300, 1_000),
    ];
    let (r, log) = run(&c, &src, "fill:0.5:0.5+trace-reads");
    let mut mine: Vec<&Completion> = log.iter().filter(|x| x.flow == Some(0)).collect();
    assert_eq!(mine.len(), 300);
    mine.sort_by_key(|x| x.arrival_ns + x.host_wait_ns);
    for w in mine.windows(2) {
        assert!(
            w[1].arrival_ns + w[1].host_wait_ns >= w[0].completion_ns,
            "fetched at {} before the previous completed at {}",
            w[1].arrival_ns + w[1].host_wait_ns,
            w[0].completion_ns
        );
    }
    // Arrivals every 1 µs against reads of tens of µs: the queue waits.
    assert!(r.flows[0].host_wait_us.mean > 0.0);
    assert_eq!(r.flows.len(), 2);
    assert_eq!(r.flows[0].requests, 300);
    assert_eq!(r.flows[1].requests, 300);
    assert_eq!(r.requests, 600);
    // Latency counts from arrival in the host.
    for x in &log {
        assert!(x.completion_ns - x.arrival_ns >= x.host_wait_ns);
    }
}

/// The first `k` fetches of a saturated run: how many each flow got.
fn fetch_counts(log: &[Completion], flows: usize, k: usize) -> Vec<usize> {
    let mut by_fetch: Vec<&Completion> = log.iter().collect();
    by_fetch.sort_by_key(|x| (x.arrival_ns + x.host_wait_ns, x.completion_ns));
    let mut n = vec![0; flows];
    for x in by_fetch.iter().take(k) {
        n[x.flow.unwrap() as usize] += 1;
    }
    n
}

#[test]
fn round_robin_shares_the_device_equally_between_identical_flows() {
    let mut c = drive();
    c.flows = vec![
        flow("a", 16, Priority::Medium),
        flow("b", 16, Priority::Medium),
    ];
    c.queues = Some(Queues {
        device_slots: Some(2),
        ..Queues::default()
    });
    // Everything arrives at once: both queues stay full.
    let src = [stream("a", Op::Read, 400, 0), stream("b", Op::Read, 400, 0)];
    let (r, log) = run(&c, &src, "fill:0.5:0.5+trace-reads");
    let n = fetch_counts(&log, 2, 600);
    assert!((n[0] as i64 - n[1] as i64).abs() <= 1, "{n:?}");
    assert_eq!(r.flows[0].requests, 400);
    let ratio = r.flows[0].all.mean / r.flows[1].all.mean;
    assert!((ratio - 1.0).abs() < 0.05, "mean latencies {ratio}");
}

#[test]
fn weighted_round_robin_shares_in_the_weights_ratio_and_urgent_goes_first() {
    let mut c = drive();
    c.flows = vec![
        flow("low", 16, Priority::Low),
        flow("high", 16, Priority::High),
        flow("urgent", 4, Priority::Urgent),
    ];
    let mut q = Queues {
        arbitration: Arbitration::Wrr,
        device_slots: Some(2),
        ..Queues::default()
    };
    q.weights.high = 3;
    q.weights.low = 1;
    c.queues = Some(q);
    let src = [
        stream("low", Op::Read, 400, 0),
        stream("high", Op::Read, 400, 0),
        stream("urgent", Op::Read, 20, 0),
    ];
    let (_, log) = run(&c, &src, "fill:0.5:0.5+trace-reads");
    // The urgent flow's 20 are fetched first, then high and low 3 : 1.
    let fetched = |x: &Completion| x.arrival_ns + x.host_wait_ns;
    let last_urgent = log.iter().filter(|x| x.flow == Some(2)).map(fetched).max();
    let first_other = log.iter().filter(|x| x.flow != Some(2)).map(fetched).min();
    assert!(last_urgent <= first_other);
    let n = fetch_counts(&log, 3, 420);
    assert_eq!(n[2], 20);
    assert!((n[1] as i64 - 3 * n[0] as i64).abs() <= 3, "{n:?}");
}

#[test]
fn sata_serves_every_flow_in_order_of_arrival_through_32_entries() {
    let mut c = drive();
    c.flows = vec![
        flow("a", 32, Priority::Medium),
        flow("b", 32, Priority::Medium),
    ];
    c.queues = Some(Queues {
        protocol: Protocol::Sata,
        ..Queues::default()
    });
    // 50 requests at once against 32 entries; no flow reaches its own 32.
    let src = [
        stream("a", Op::Read, 25, 100),
        stream("b", Op::Read, 25, 150),
    ];
    let (_, log) = run(&c, &src, "fill:0.5:0.5+trace-reads");
    assert!(log.iter().any(|x| x.host_wait_ns > 0));
    let mut by_fetch: Vec<&Completion> = log.iter().collect();
    by_fetch.sort_by_key(|x| (x.arrival_ns + x.host_wait_ns, x.arrival_ns));
    for w in by_fetch.windows(2) {
        assert!(
            w[0].arrival_ns <= w[1].arrival_ns,
            "fetched out of arrival order"
        );
    }
    // Never more than 32 in the device.
    let mut ev: Vec<(u64, i32)> = log
        .iter()
        .flat_map(|x| [(x.arrival_ns + x.host_wait_ns, 1), (x.completion_ns, -1)])
        .collect();
    ev.sort_by_key(|&(t, d)| (t, d));
    let mut now = 0;
    for (_, d) in ev {
        now += d;
        assert!(now <= 32);
    }
}

#[test]
fn namespaces_keep_flows_apart_and_start_times_shift_arrivals() {
    let mut c = drive();
    let mut a = flow("a", 4, Priority::Medium);
    a.namespace = Some(Namespace {
        first_page: 0,
        pages: 1000,
    });
    let mut b = flow("b", 4, Priority::Medium);
    b.namespace = Some(Namespace {
        first_page: 1000,
        pages: 1000,
    });
    b.start_us = 5_000.0;
    c.flows = vec![a, b];
    let src = [
        stream("a", Op::Write, 100, 10_000),
        records(
            "b",
            (0..50)
                .map(|i| IoRecord::new(i * 10_000, Op::Write, (500 + i) * 4096, 4096))
                .collect(),
        ),
    ];
    let sim = Simulator::with_flows(&c, &src, &Precondition::parse("none").unwrap()).unwrap();
    let (r, sim) = sim.run_inspect(&mut |_| {}).unwrap();
    sim.check().unwrap();
    for p in 0..100 {
        assert!(sim.holds(p));
    }
    for p in 100..1000 {
        assert!(!sim.holds(p), "page {p}");
    }
    for p in 1500..1550 {
        assert!(sim.holds(p), "page {p}");
    }
    assert!(!sim.holds(1000));
    assert_eq!(r.flows[1].requests, 50);
    assert_eq!(sim.flows_most_in_flight().len(), 2);
}

#[test]
fn a_run_with_flows_is_deterministic_and_a_run_without_writes_no_flows() {
    let mut c = drive();
    c.flows = vec![flow("r", 8, Priority::High), flow("w", 8, Priority::Low)];
    c.queues = Some(Queues {
        arbitration: Arbitration::Wrr,
        device_slots: Some(4),
        ..Queues::default()
    });
    let src = [
        stream("r", Op::Read, 300, 2_000),
        stream("w", Op::Write, 300, 2_000),
    ];
    let a = serde_json::to_string(&run(&c, &src, "fill:0.5:0.5+trace-reads").0).unwrap();
    let b = serde_json::to_string(&run(&c, &src, "fill:0.5:0.5+trace-reads").0).unwrap();
    assert_eq!(a, b);
    assert!(a.contains("\"flows\""));
    let plain = drive();
    let toml = toml::to_string(&plain).unwrap();
    assert!(!toml.contains("flows") && !toml.contains("queues"));
    let src = stream("x", Op::Read, 10, 1000);
    let r = Simulator::new(&plain, &src, &Precondition::parse("none").unwrap())
        .unwrap()
        .run(&mut |_| {})
        .unwrap();
    let json = serde_json::to_string(&r).unwrap();
    assert!(!json.contains("\"flows\"") && !json.contains("fairness"));
}

#[test]
fn slowdowns_and_fairness_follow_flins_definitions() {
    let mut c = drive();
    c.flows = vec![
        flow("a", 8, Priority::Medium),
        flow("b", 8, Priority::Medium),
    ];
    let src = [
        stream("a", Op::Read, 300, 2_000),
        stream("b", Op::Read, 300, 2_000),
    ];
    let pre = Precondition::parse("fill:0.5:0.5+trace-reads").unwrap();
    let alone = ssdlab::sim::flows::alone_mean_latencies(&c, &src, &pre, &mut |_| {
        ssdlab::Control::Continue
    })
    .unwrap();
    let (mut r, _) = run(&c, &src, "fill:0.5:0.5+trace-reads");
    r.set_alone(&alone);
    let s: Vec<f64> = r.flows.iter().map(|f| f.slowdown.unwrap()).collect();
    for (f, a) in r.flows.iter().zip(&alone) {
        assert_eq!(f.slowdown.unwrap(), f.all.mean / a);
    }
    let fairness = r.fairness.unwrap();
    assert_eq!(fairness, s[0].min(s[1]) / s[0].max(s[1]));
    // Sharing the drive slows both, alike.
    assert!(s[0] >= 1.0 && s[1] >= 1.0, "{s:?}");
    assert!(fairness > 0.9, "{fairness}");
}

#[test]
fn bad_input_names_the_flow_and_the_key() {
    let two = [
        stream("a", Op::Read, 10, 1000),
        stream("b", Op::Read, 10, 1000),
    ];
    let base = || {
        let mut c = drive();
        c.flows = vec![
            flow("a", 4, Priority::Medium),
            flow("b", 4, Priority::Medium),
        ];
        c
    };
    type Edit = Box<dyn Fn(&mut Config)>;
    let cases: Vec<(Edit, &str)> = vec![
        (
            Box::new(|c| c.flows[1].queue_depth = 0),
            "flows[1].queue_depth",
        ),
        (
            Box::new(|c| {
                c.queues = Some(Queues {
                    arbitration: Arbitration::Wrr,
                    ..Queues::default()
                });
                c.queues.as_mut().unwrap().weights.medium = 0;
            }),
            "queues.weights.medium",
        ),
        (
            Box::new(|c| {
                c.queues = Some(Queues {
                    max_queues: 1,
                    ..Queues::default()
                })
            }),
            "queues.max_queues",
        ),
        (
            Box::new(|c| {
                c.flows[0].namespace = Some(Namespace {
                    first_page: 0,
                    pages: 100,
                });
                c.flows[1].namespace = Some(Namespace {
                    first_page: 50,
                    pages: 100,
                });
            }),
            "flows[1].namespace",
        ),
        (
            Box::new(|c| {
                c.queues = Some(Queues {
                    protocol: Protocol::Sata,
                    ..Queues::default()
                });
                c.flows[0].queue_depth = 33;
            }),
            "flows[0].queue_depth",
        ),
        (Box::new(|c| c.flows[1].name = "a".into()), "flows[1].name"),
        (
            Box::new(|c| c.flows[0].trace = Some("x".into())),
            "flows[0].workload",
        ),
        (
            Box::new(|c| {
                c.queues = Some(Queues {
                    burst: 0,
                    ..Queues::default()
                })
            }),
            "queues.burst",
        ),
        (
            // Pages 0..9 of flow b beyond a namespace of 5 pages.
            Box::new(|c| {
                c.flows[1].namespace = Some(Namespace {
                    first_page: 2000,
                    pages: 5,
                })
            }),
            "flows[1].namespace.pages",
        ),
    ];
    for (edit, key) in cases {
        let mut c = base();
        edit(&mut c);
        let e = error_of(&c, &two);
        assert!(e.contains(key), "{key}: {e}");
        if key.starts_with("flows[") {
            let name = if key.starts_with("flows[0]") {
                "`a`"
            } else {
                "`b`"
            };
            assert!(e.contains(name) || key.ends_with(".name"), "{key}: {e}");
        }
    }
    // Too many queues: the key says so and the count.
    let mut c = base();
    c.queues = Some(Queues {
        max_queues: 1,
        ..Queues::default()
    });
    assert!(error_of(&c, &two).contains("2 flows need 2 I/O submission queues"));
    // A configuration with flows refuses one workload, and the reverse.
    let c = base();
    assert!(Simulator::new(&c, &two[0], &Precondition::parse("none").unwrap()).is_err());
    assert!(Simulator::with_flows(&drive(), &two, &Precondition::parse("none").unwrap()).is_err());
}
