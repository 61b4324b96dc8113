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
    FlowConfig {
        name: name.into(),
        workload: Some(name.into()),
        trace: None,
        synthetic: None,
        limit: None,
        start_us: 0.0,
        queue_depth: 32,
        priority: Priority::Medium,
        namespace: None,
        channels: None,
        chips: None,
        dies: None,
        planes: None,
    }
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
