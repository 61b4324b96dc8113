//! FLIN (`sched.policy = "flin"`): with a read-heavy and a write-heavy
//! flow it is fairer than first come, first served, both runs completing
//! every request, deterministically; with one flow it orders exactly as
//! `fcfs`; the consistency checker's invariants hold; bad configurations
//! are errors naming the key.

mod common;

use ssdlab::config::{FlowConfig, Priority, SchedPolicy};
use ssdlab::workload::{builtin, IoRecord, Op, Source};
use ssdlab::{Completion, Config, Precondition, Report, Simulator};

fn flow(name: &str) -> FlowConfig {
    FlowConfig::of_workload(name)
}

fn profile(name: &str, limit: u64) -> Source {
    Source::Limited {
        inner: Box::new(Source::Synthetic(builtin::get(name).expect("built in"))),
        limit,
    }
}

/// The README's two tenants, shorter: spd/proj_3 (read-heavy) beside
/// spd/prxy_0 (write-heavy), arrivals 100 times faster, on the small
/// drive aged as there.
fn tenants(policy: SchedPolicy) -> (Config, [Source; 2]) {
    let mut c = Config::preset("small").unwrap();
    c.sched.policy = policy;
    c.host.time_scale = 0.01;
    c.check.enabled = true;
    c.check.interval_requests = 2_000;
    c.flows = vec![flow("spd/proj_3"), flow("spd/prxy_0")];
    (
        c,
        [profile("spd/proj_3", 6_000), profile("spd/prxy_0", 6_000)],
    )
}

const AGED: &str = "fill:0.9:0.8+trace-reads";

fn run_with_alone(c: &Config, src: &[Source]) -> (Report, Vec<Completion>) {
    let pre = Precondition::parse(AGED).unwrap();
    let sim = Simulator::with_flows(c, src, &pre).unwrap_or_else(|e| panic!("{e}"));
    let (mut r, log) = common::run_logged(sim);
    let alone =
        ssdlab::sim::flows::alone_mean_latencies(c, src, &pre, &mut |_| ssdlab::Control::Continue)
            .unwrap();
    r.set_alone(&alone);
    (r, log)
}

#[test]
fn flin_is_fairer_than_fifo_to_a_reader_beside_a_writer() {
    let (fifo, src) = tenants(SchedPolicy::Fcfs);
    let (flin, _) = tenants(SchedPolicy::Flin);
    let (a, log_a) = run_with_alone(&fifo, &src);
    let (b, log_b) = run_with_alone(&flin, &src);
    for (r, log) in [(&a, &log_a), (&b, &log_b)] {
        assert_eq!(log.len(), 12_000, "every request completes");
        for f in 0..2 {
            assert_eq!(log.iter().filter(|x| x.flow == Some(f)).count(), 6_000);
        }
        assert!(!r.partial);
    }
    let (fa, fb) = (a.fairness.unwrap(), b.fairness.unwrap());
    assert!(fb > fa, "FLIN's fairness {fb} is not above FIFO's {fa}");
    // The reader is the flow FIFO slows most; FLIN slows it less.
    let reader = |r: &Report| r.flows[0].slowdown.unwrap();
    assert!(reader(&b) < reader(&a), "{} vs {}", reader(&b), reader(&a));
    // Deterministic.
    let (b2, _) = run_with_alone(&flin, &src);
    assert_eq!(
        serde_json::to_string(&b).unwrap(),
        serde_json::to_string(&b2).unwrap()
    );
}

#[test]
fn with_one_flow_flin_orders_as_fcfs() {
    let records: Vec<IoRecord> = (0..6_000u64)
        .map(|i| {
            let op = if i % 2 == 0 { Op::Write } else { Op::Read };
            IoRecord::new(i * 3_000, op, (i * 7919 % 4096) * 4096, 4096 * (1 + i % 4))
        })
        .collect();
    let src = [Source::Records {
        name: "mixed".into(),
        records: std::sync::Arc::new(records),
    }];
    let mut logs = vec![];
    for policy in [SchedPolicy::Fcfs, SchedPolicy::Flin] {
        let mut c = common::tiny();
        c.buffer.capacity = ssdlab::config::BufferCapacity::Pages(64);
        c.sched.policy = policy;
        c.flows = vec![flow("mixed")];
        let sim = Simulator::with_flows(&c, &src, &Precondition::parse("fill:0.95:0.95").unwrap())
            .unwrap();
        let (r, log) = common::run_logged(sim);
        assert!(r.gc.count > 0, "GC ran");
        logs.push(
            log.iter()
                .map(|x| (x.arrival_ns, x.completion_ns))
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(logs[0], logs[1]);
}

#[test]
fn bad_flin_configurations_name_the_key() {
    let err = |c: &Config| {
        let src: Vec<Source> = c.flows.iter().map(|_| profile("spd/proj_3", 10)).collect();
        let e = if c.flows.is_empty() {
            Simulator::new(
                c,
                &profile("spd/proj_3", 10),
                &Precondition::parse("none").unwrap(),
            )
            .err()
        } else {
            Simulator::with_flows(c, &src, &Precondition::parse("none").unwrap()).err()
        };
        e.expect("refused").to_string()
    };
    let (mut c, _) = tenants(SchedPolicy::Flin);
    c.flows.clear();
    let e = err(&c);
    assert!(e.contains("sched.policy") && e.contains("flows"), "{e}");
    let (mut c, _) = tenants(SchedPolicy::Flin);
    c.sched.flin_fairness_threshold = Some(1.5);
    let e = err(&c);
    assert!(e.contains("sched.flin_fairness_threshold"), "{e}");
    let (mut c, _) = tenants(SchedPolicy::Fcfs);
    c.sched.flin_epoch_us = Some(1000.0);
    let e = err(&c);
    assert!(
        e.contains("sched.flin_epoch_us") && e.contains("flin"),
        "{e}"
    );
    let (mut c, _) = tenants(SchedPolicy::Flin);
    c.sched.flin_alpha_read_mib_s = Some(0.0);
    let e = err(&c);
    assert!(e.contains("sched.flin_alpha_read_mib_s"), "{e}");
}

/// One die of one plane (so reads complete in the order they are served),
/// FLIN, the consistency checker on.
fn one_die() -> Config {
    let mut c = common::tiny();
    c.geometry.channels = 1;
    c.geometry.dies_per_chip = 1;
    c.geometry.planes_per_die = 1;
    c.sched.policy = SchedPolicy::Flin;
    c.check.enabled = true;
    c.check.interval_requests = 50;
    c
}

fn reads(name: &str, first: u64, n: u64) -> Source {
    Source::Records {
        name: name.into(),
        records: std::sync::Arc::new(
            (0..n)
                .map(|i| IoRecord::new(0, Op::Read, (first + i) * 4096, 4096))
                .collect(),
        ),
    }
}

/// The flows of the requests in the order they completed.
fn served(c: &Config, src: &[Source]) -> Vec<u32> {
    let pre = Precondition::parse("fill:0.5:0.5+trace-reads").unwrap();
    let sim = Simulator::with_flows(c, src, &pre).unwrap_or_else(|e| panic!("{e}"));
    let (r, mut log) = common::run_logged(sim);
    assert!(!r.partial);
    log.sort_by_key(|x| x.completion_ns);
    log.iter().map(|x| x.flow.unwrap()).collect()
}

/// Stage 2: under weighted round robin (high 3, low 1) a low-class flow's
/// reads queued first and a high-class flow's queued after them are
/// served three high, one low while both are queued; an urgent flow's all
/// go first.
#[test]
fn stage_2_serves_the_classes_by_weight_and_urgent_first() {
    use ssdlab::config::{Arbitration, Queues};
    let mut c = one_die();
    let mut q = Queues {
        arbitration: Arbitration::Wrr,
        ..Queues::default()
    };
    q.weights.high = 3;
    q.weights.low = 1;
    c.queues = Some(q);
    let class = |name: &str, priority: Priority, start_us: f64| FlowConfig {
        priority,
        start_us,
        queue_depth: 200,
        ..flow(name)
    };
    c.flows = vec![
        class("low", Priority::Low, 0.0),
        class("high", Priority::High, 1.0),
    ];
    let order = served(&c, &[reads("low", 0, 200), reads("high", 200, 200)]);
    assert_eq!(order.len(), 400);
    // Past the high flow's first round: every 4 in a row hold 3 of its.
    let start = order
        .iter()
        .enumerate()
        .filter(|(_, &f)| f == 1)
        .nth(8)
        .unwrap()
        .0;
    let window = &order[start..start + 200];
    assert_eq!(window.iter().filter(|&&f| f == 1).count(), 150);
    for w in window.chunks(4) {
        assert_eq!(w.iter().filter(|&&f| f == 1).count(), 3, "{w:?}");
    }
    // Under round robin the same flows, whatever their classes, are
    // served as FLIN serves them without classes (stage 1 alone: one of
    // each in turn).
    let mut rr = c.clone();
    rr.queues = None;
    let plain = served(&rr, &[reads("low", 0, 200), reads("high", 200, 200)]);
    rr.queues = Some(Queues::default());
    assert_eq!(
        served(&rr, &[reads("low", 0, 200), reads("high", 200, 200)]),
        plain
    );
    assert_eq!(plain[100..300].iter().filter(|&&f| f == 1).count(), 100);
    // Urgent first.
    c.flows = vec![
        class("low", Priority::Low, 0.0),
        class("urgent", Priority::Urgent, 1.0),
    ];
    let order = served(&c, &[reads("low", 0, 200), reads("urgent", 200, 50)]);
    let first = order.iter().position(|&f| f == 1).unwrap();
    assert!(
        order[first..first + 50].iter().all(|&f| f == 1),
        "{order:?}"
    );
}

/// Stage 3's GC term on a small drive kept collecting: a write-heavy flow
/// beside a mixed one, under weighted round robin, complete every request
/// with the consistency checker on, deterministically; with GC's share
/// apportioned their writes are served otherwise than under FIFO.
#[test]
fn stage_3_with_gc_completes_consistently() {
    use ssdlab::config::{Arbitration, Queues};
    let writes = |name: &str, seed: u64, every: u64| Source::Records {
        name: name.into(),
        records: std::sync::Arc::new(
            (0..3_000u64)
                .map(|i| {
                    let op = if i % every == 0 { Op::Read } else { Op::Write };
                    IoRecord::new(i * 400, op, ((i * 7919 + seed) % 3_000) * 4096, 4096)
                })
                .collect(),
        ),
    };
    let src = [writes("w", 1, 50), writes("m", 17, 2)];
    let mut c = common::tiny();
    c.check.enabled = true;
    c.check.interval_requests = 200;
    c.sched.policy = SchedPolicy::Flin;
    c.flows = vec![
        FlowConfig {
            priority: Priority::High,
            ..flow("w")
        },
        flow("m"),
    ];
    let run = |c: &Config| {
        let pre = Precondition::parse("fill:0.95:0.95").unwrap();
        let sim = Simulator::with_flows(c, &src, &pre).unwrap_or_else(|e| panic!("{e}"));
        common::run_logged(sim)
    };
    for arbitration in [Arbitration::Rr, Arbitration::Wrr] {
        c.queues = Some(Queues {
            arbitration,
            ..Queues::default()
        });
        let (r, log) = run(&c);
        assert!(r.gc.count > 0, "GC ran");
        assert_eq!(log.len(), 6_000, "every request completes");
        assert!(!r.partial);
        let (r2, _) = run(&c);
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            serde_json::to_string(&r2).unwrap()
        );
    }
}

/// FLIN reorders each plane's queues on its own, while a Die-Write's pages
/// leave every plane's queue together: with SPD's (or SuperPage's)
/// Die-Writes it is a config error naming the key and why.
#[test]
fn flin_is_refused_with_die_writes() {
    let (c, _) = tenants(SchedPolicy::Flin);
    for scheme in ["spd", "superpage"] {
        let e = ssdlab::scheme::by_name(scheme)
            .unwrap()
            .apply(&c)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("sched.policy") && e.contains("ftl.write_unit"),
            "{scheme}: {e}"
        );
    }
}
