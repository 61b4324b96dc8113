//! Flows' partitions of the flash (`[[flows]]`'s `channels`, `chips`,
//! `dies`, `planes`): a partitioned flow's pages lie only on its
//! partition's planes (static and dynamic allocation, with GC, with and
//! without a write buffer), static allocation stripes a namespace evenly
//! over its partition, and bad input is an error naming the flow and key.

mod common;

use ssdlab::config::{BufferCapacity, FlowConfig, Namespace, PlaneAllocation, Priority};
use ssdlab::workload::{IoRecord, Op, Source};
use ssdlab::{Config, Precondition, Simulator};

fn flow(name: &str, first: u64, pages: u64) -> FlowConfig {
    FlowConfig {
        queue_depth: 8,
        priority: Priority::Medium,
        namespace: Some(Namespace {
            first_page: first,
            pages,
        }),
        ..FlowConfig::of_workload(name)
    }
}

/// Writes of one page each over the flow's `pages` pages, `passes` times
/// (a pseudo-random order after the first pass), every `gap_ns`.
fn writes(name: &str, pages: u64, passes: u64, gap_ns: u64) -> Source {
    let n = pages * passes;
    Source::Records {
        name: name.into(),
        records: std::sync::Arc::new(
            (0..n)
                .map(|i| {
                    let p = if i < pages {
                        i
                    } else {
                        (i * 2_654_435_761) % pages
                    };
                    IoRecord::new(i * gap_ns, Op::Write, p * 4096, 4096)
                })
                .collect(),
        ),
    }
}

/// The tiny drive (2 channels, 1 chip, 1 die, 2 planes: 4 planes), two
/// flows on one channel each, their namespaces the two halves of the
/// logical space (less one page).
fn halves() -> (Config, u64) {
    let mut c = common::tiny();
    let half = c.logical_pages() / 2;
    let mut a = flow("a", 0, half);
    a.channels = Some(vec![0]);
    let mut b = flow("b", half, half);
    b.channels = Some(vec![1]);
    c.flows = vec![a, b];
    (c, half)
}

/// Run, check, and count each flow's valid pages per plane.
fn placed(c: &Config, src: &[Source], pre: &str) -> Vec<Vec<u64>> {
    let sim = Simulator::with_flows(c, src, &Precondition::parse(pre).unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    let (_, sim) = sim
        .run_inspect(&mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    sim.check().unwrap_or_else(|e| panic!("{e}"));
    let ftl = sim.ftl();
    let planes = ftl.planes() as usize;
    c.flows
        .iter()
        .map(|f| {
            let ns = f.namespace.unwrap();
            let mut n = vec![0u64; planes];
            for lpn in ns.first_page..ns.first_page + ns.pages {
                if let Some(ppn) = ftl.lookup(lpn as u32) {
                    n[ftl.map.plane_of(ppn).index()] += 1;
                }
            }
            n
        })
        .collect()
}

#[test]
fn static_allocation_stripes_each_namespace_over_its_partition() {
    let (c, half) = halves();
    let src = [writes("a", half, 1, 2_000), writes("b", half, 1, 2_000)];
    let n = placed(&c, &src, "none");
    // Channel 0 is planes 0 and 1, channel 1 planes 2 and 3.
    assert_eq!(n[0], vec![half.div_ceil(2), half / 2, 0, 0]);
    assert_eq!(n[1], vec![0, 0, half.div_ceil(2), half / 2]);
}

#[test]
fn dynamic_allocation_keeps_each_flow_in_its_partition_through_gc() {
    for alloc in [PlaneAllocation::RoundRobin, PlaneAllocation::LeastBusy] {
        for buffered in [false, true] {
            let (mut c, half) = halves();
            c.ftl.plane_allocation = alloc;
            if buffered {
                c.buffer.capacity = BufferCapacity::Pages(64);
            }
            // Three passes over each namespace: GC runs.
            let src = [writes("a", half, 3, 3_000), writes("b", half, 3, 3_000)];
            let n = placed(&c, &src, "none");
            assert_eq!(n[0][2] + n[0][3], 0, "{alloc:?} buffered {buffered}");
            assert_eq!(n[1][0] + n[1][1], 0, "{alloc:?} buffered {buffered}");
            assert_eq!(n[0].iter().sum::<u64>(), half);
            assert_eq!(n[1].iter().sum::<u64>(), half);
        }
    }
}

#[test]
fn partitions_by_plane_and_aging_by_age_steps() {
    // Flow a on plane 0 of every die, b on plane 1, with aging.
    let mut c = common::tiny();
    let half = c.logical_pages() / 2;
    let mut a = flow("a", 0, half);
    a.planes = Some(vec![0]);
    let mut b = flow("b", half, half);
    b.planes = Some(vec![1]);
    c.flows = vec![a, b];
    c.ftl.plane_allocation = PlaneAllocation::RoundRobin;
    let src = [writes("a", half, 2, 3_000), writes("b", half / 2, 2, 3_000)];
    let n = placed(&c, &src, "age:0.9");
    assert_eq!(n[0][1] + n[0][3], 0);
    assert_eq!(n[1][0] + n[1][2], 0);
    assert_eq!(n[0].iter().sum::<u64>(), half);
}

#[test]
fn pages_outside_partitions_go_to_the_planes_in_none() {
    // a has channel 0 and half the logical space; b (no partition) and the
    // rest of the logical space go to channel 1.
    let mut c = common::tiny();
    let half = c.logical_pages() / 2;
    let mut a = flow("a", 0, half);
    a.channels = Some(vec![0]);
    let b = flow("b", half, half / 2);
    c.flows = vec![a, b];
    for alloc in [PlaneAllocation::Static, PlaneAllocation::RoundRobin] {
        c.ftl.plane_allocation = alloc;
        let src = [writes("a", half, 1, 2_000), writes("b", half / 2, 2, 2_000)];
        let n = placed(&c, &src, "none");
        assert_eq!(n[0][2] + n[0][3], 0, "{alloc:?}");
        assert_eq!(n[1][0] + n[1][1], 0, "{alloc:?}");
        assert_eq!(n[1][2] + n[1][3], half / 2, "{alloc:?}");
    }
}

fn error_of(c: &Config) -> String {
    let src: Vec<Source> = c
        .flows
        .iter()
        .map(|f| writes(&f.name, 4, 1, 1_000))
        .collect();
    match Simulator::with_flows(c, &src, &Precondition::parse("none").unwrap()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn bad_partitions_are_errors_naming_the_flow_and_key() {
    let (base, _) = halves();
    type Change = Box<dyn Fn(&mut Config)>;
    let cases: Vec<(&str, Change, &[&str])> = vec![
        (
            "a channel the drive lacks",
            Box::new(|c| c.flows[1].channels = Some(vec![2])),
            &["flows[1].channels", "flow `b`", "channel 2", "2 channels"],
        ),
        (
            "a chip the channel lacks",
            Box::new(|c| c.flows[0].chips = Some(vec![0, 1])),
            &["flows[0].chips", "flow `a`", "chip 1"],
        ),
        (
            "a plane the die lacks",
            Box::new(|c| c.flows[0].planes = Some(vec![7])),
            &["flows[0].planes", "plane 7"],
        ),
        (
            "an empty list",
            Box::new(|c| c.flows[0].dies = Some(vec![])),
            &["flows[0].dies", "empty"],
        ),
        (
            "a duplicate",
            Box::new(|c| c.flows[1].channels = Some(vec![1, 1])),
            &["flows[1].channels", "channel 1 twice"],
        ),
        (
            "no namespace",
            Box::new(|c| c.flows[0].namespace = None),
            &["flows[0].channels", "namespace"],
        ),
        (
            "a partition too small for its namespace",
            Box::new(|c| {
                c.flows[0].planes = Some(vec![0]);
            }),
            &["flows[0].channels", "flow `a`", "partition of 1 planes"],
        ),
        (
            "shared planes too small for both",
            Box::new(|c| {
                c.flows[0].namespace.as_mut().unwrap().pages = 1700;
                c.flows[1].namespace = Some(Namespace {
                    first_page: 1700,
                    pages: 1700,
                });
                c.flows[1].channels = Some(vec![0]);
            }),
            &["flows[0].channels", "plane 0", "`a`, `b`"],
        ),
        (
            "too little of the logical space for the planes in no partition",
            Box::new(|c| {
                c.flows[0].namespace.as_mut().unwrap().pages = 1000;
                c.flows[1] = flow("b", 1000, 1000);
            }),
            &[
                "flows[0].channels",
                "plane 2",
                "no flow's partition",
                "in no partition",
            ],
        ),
        (
            "die round-robin with part of a die",
            Box::new(|c| {
                c.flows[0].channels = None;
                c.flows[1].channels = None;
                c.flows[0].planes = Some(vec![0]);
                c.flows[1].planes = Some(vec![1]);
                c.ftl.plane_allocation = PlaneAllocation::DieRoundRobin;
            }),
            &["ftl.plane_allocation", "whole dies", "flows[0].planes"],
        ),
        (
            "a hybrid map",
            Box::new(|c| c.ftl.mapping = ssdlab::config::Mapping::Fast),
            &["ftl.mapping", "partitions"],
        ),
    ];
    for (what, change, want) in cases {
        let mut c = base.clone();
        change(&mut c);
        let e = error_of(&c);
        for w in want {
            assert!(e.contains(w), "{what}: `{w}` not in: {e}");
        }
    }
}

#[test]
fn bulk_fill_aging_is_refused_with_partitions() {
    let (c, _) = halves();
    let src = [writes("a", 4, 1, 1_000), writes("b", 4, 1, 1_000)];
    let e = match Simulator::with_flows(&c, &src, &Precondition::parse("fill:0.5:0.5").unwrap()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted"),
    };
    assert!(e.contains("fill") && e.contains("partitions"), "{e}");
}

#[test]
fn a_run_with_partitions_is_deterministic() {
    let (mut c, half) = halves();
    c.ftl.plane_allocation = PlaneAllocation::LeastBusy;
    let src = [writes("a", half, 2, 2_500), writes("b", half, 2, 2_500)];
    let run = || {
        let sim = Simulator::with_flows(&c, &src, &Precondition::parse("none").unwrap()).unwrap();
        serde_json::to_string(&sim.run(&mut |_| {}).unwrap()).unwrap()
    };
    assert_eq!(run(), run());
}

#[test]
fn a_partitioned_mapping_cache_needs_flows_dftl_and_namespaces() {
    use ssdlab::config::{Mapping, Sharing};
    let mut alone = common::tiny();
    alone.ftl.mapping = Mapping::Dftl;
    alone.ftl.mapping_cache_sharing = Sharing::Partitioned;
    let e = alone.validate("drive").unwrap_err().to_string();
    assert!(
        e.contains("ftl.mapping_cache_sharing") && e.contains("flows"),
        "{e}"
    );

    let (mut c, _) = halves();
    c.ftl.mapping_cache_sharing = Sharing::Partitioned;
    let e = error_of(&c);
    assert!(
        e.contains("ftl.mapping_cache_sharing") && e.contains("dftl"),
        "{e}"
    );

    c.ftl.mapping = Mapping::Dftl;
    c.flows[1].channels = None;
    c.flows[0].channels = None;
    c.flows[1].namespace = None;
    let e = error_of(&c);
    assert!(
        e.contains("flows[1].namespace") && e.contains("flow `b`"),
        "{e}"
    );

    c.flows[1].namespace = Some(Namespace {
        first_page: 4000,
        pages: 100,
    });
    c.ftl.mapping_cache_entries = 1;
    let e = error_of(&c);
    assert!(e.contains("ftl.mapping_cache_entries"), "{e}");

    // Accepted, and it runs with the checker.
    c.ftl.mapping_cache_entries = 64;
    let src = [writes("a", 200, 2, 3_000), writes("b", 100, 2, 3_000)];
    placed(&c, &src, "none");
}

/// Two flows on the whole drive (no flash partitions), each in its own
/// half of the logical space, a write buffer of `slots` pages.
fn buffered_halves(slots: u64) -> (Config, u64) {
    let (mut c, half) = halves();
    for f in &mut c.flows {
        f.channels = None;
    }
    c.buffer.capacity = BufferCapacity::Pages(slots);
    (c, half)
}

#[test]
fn a_partitioned_write_buffer_needs_flows_a_buffer_and_namespaces() {
    use ssdlab::config::Sharing;
    let mut alone = common::tiny();
    alone.buffer.capacity = BufferCapacity::Pages(64);
    alone.buffer.sharing = Sharing::Partitioned;
    let e = alone.validate("drive").unwrap_err().to_string();
    assert!(e.contains("buffer.sharing") && e.contains("flows"), "{e}");

    let (mut c, _) = buffered_halves(64);
    c.buffer.sharing = Sharing::Partitioned;
    c.buffer.capacity = BufferCapacity::None;
    let e = error_of(&c);
    assert!(
        e.contains("buffer.sharing") && e.contains("buffer.capacity"),
        "{e}"
    );

    c.buffer.capacity = BufferCapacity::Pages(64);
    c.flows[1].namespace = None;
    let e = error_of(&c);
    assert!(
        e.contains("flows[1].namespace") && e.contains("flow `b`") && e.contains("buffer.sharing"),
        "{e}"
    );

    let (mut c, _) = buffered_halves(1);
    c.buffer.sharing = Sharing::Partitioned;
    let e = error_of(&c);
    assert!(
        e.contains("buffer.capacity") && e.contains("2 flows"),
        "{e}"
    );
}

/// Flow a writes new pages as fast as the drive takes them (a backlog);
/// flow b rewrites 16 pages slowly. Shared, b's writes wait for slots a's
/// backlog holds; partitioned, b's 16 pages stay in its share and every
/// rewrite is a hit on admission. Checker on; a run is deterministic.
#[test]
fn a_partitioned_write_buffer_keeps_a_flow_out_of_another_s_backlog() {
    use ssdlab::config::Sharing;
    let (mut c, half) = buffered_halves(64);
    let heavy = writes("a", half, 1, 500);
    let light = Source::Records {
        name: "b".into(),
        records: std::sync::Arc::new(
            (0..400u64)
                .map(|i| IoRecord::new(i * 20_000, Op::Write, (i % 16) * 4096, 4096))
                .collect(),
        ),
    };
    let src = [heavy, light];
    let run = |c: &Config| {
        let sim = Simulator::with_flows(c, &src, &Precondition::parse("none").unwrap()).unwrap();
        let (r, sim) = sim.run_inspect(&mut |_| {}).unwrap();
        sim.check().unwrap();
        r
    };
    let shared = run(&c);
    c.buffer.sharing = Sharing::Partitioned;
    let parted = run(&c);
    assert_eq!(
        serde_json::to_string(&parted).unwrap(),
        serde_json::to_string(&run(&c)).unwrap(),
        "deterministic"
    );
    let b = |r: &ssdlab::Report| r.flows[1].write.mean;
    assert!(
        b(&parted) * 10.0 < b(&shared),
        "b's writes: partitioned {} µs, shared {} µs",
        b(&parted),
        b(&shared)
    );
    // Partitioned: b's first 16 writes insert, the other 384 hit.
    assert!(
        parted.buffer.write_hits >= 384,
        "{}",
        parted.buffer.write_hits
    );

    // SSDSim's slot rule with partitions: still every request completes.
    c.buffer.slot_frees = ssdlab::config::SlotFrees::Eviction;
    let r = run(&c);
    assert_eq!(r.flows[0].requests + r.flows[1].requests, half + 400);
}

/// A flow's time blocked by GC counts its buffered pages' programs too,
/// each for the flow that wrote the page: over the flows it sums to the
/// drive's time blocked by GC.
#[test]
fn flows_time_blocked_by_gc_sums_to_the_drive_s_with_a_buffer() {
    let (c, half) = buffered_halves(64);
    let src = [writes("a", half, 3, 2_000), writes("b", half, 3, 2_000)];
    let sim = Simulator::with_flows(&c, &src, &Precondition::parse("none").unwrap()).unwrap();
    let (r, sim) = sim.run_inspect(&mut |_| {}).unwrap();
    sim.check().unwrap();
    let flows: f64 = r.flows.iter().map(|f| f.gc_blocked_us).sum();
    let drive = r.gc.mean_blocked_us * r.gc.blocked_writes as f64;
    assert!(drive > 0.0, "GC blocked no write");
    assert!(
        (flows - drive).abs() <= 1e-6 * drive,
        "flows {flows} µs, drive {drive} µs"
    );
    assert!(
        r.flows.iter().all(|f| f.gc_blocked_us > 0.0),
        "{:?}",
        r.flows
    );
}
