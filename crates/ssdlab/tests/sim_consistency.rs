//! End-to-end runs with the consistency checker on: every policy combination
//! must finish every request and never lose or serve stale data, through GC.

use ssdlab::config::{
    Alignment, BufferCapacity, Migration, PlaneAllocation, SchedPolicy, VictimPolicy,
};
use ssdlab::workload::synthetic::{Address as Addr, Arrival, Profile, SizeDist};
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Simulator};

mod common;

/// `common::tiny`'s drive with the `small` preset's 1 024-page buffer, the
/// checker every 5 000 requests.
fn tiny() -> Config {
    let mut c = common::tiny();
    c.buffer.capacity = BufferCapacity::Pages(1024);
    c.check.interval_requests = 5_000;
    c
}

fn churn(c: &Config, requests: u64, seed: u64) -> Profile {
    let logical_bytes = c.logical_pages() * c.geometry.page_size_bytes as u64;
    Profile {
        name: "churn".into(),
        seed,
        requests,
        read_share: 0.3,
        footprint_bytes: logical_bytes,
        page_bytes: 4096,
        read_size: Some(SizeDist::uniform(4096, 16384)),
        write_size: Some(SizeDist::uniform(4096, 32768)),
        address: Addr::HotCold {
            hot_fraction: 0.2,
            hot_share: 0.8,
        },
        arrival: Arrival::Poisson { iops: 2000.0 },
        latency_hint: None,
    }
}

fn run(c: &Config, p: &Profile, pre: &str) -> ssdlab::Report {
    let sim = Simulator::new(
        c,
        &Source::Synthetic(p.clone()),
        &Precondition::parse(pre).unwrap(),
    )
    .unwrap();
    sim.run(&mut |_| {}).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_policy_keeps_data_consistent_through_gc() {
    let _ = Alignment::BlockAndPage;
    for victim in [
        VictimPolicy::Greedy,
        VictimPolicy::Fifo,
        VictimPolicy::Random,
        VictimPolicy::DChoices,
        VictimPolicy::CostBenefit,
    ] {
        for migration in [Migration::Copyback, Migration::Controller] {
            let mut c = tiny();
            c.gc.victim = victim;
            c.gc.migration = migration;
            let p = churn(&c, 30_000, 3);
            let r = run(&c, &p, "fill:0.9:0.8");
            assert_eq!(r.requests, 30_000, "{victim:?} {migration:?}");
            assert!(
                r.gc.count > 10,
                "{victim:?} {migration:?}: GC must run, ran {}",
                r.gc.count
            );
            assert!(r.write_amplification > 1.0);
        }
    }
}

#[test]
fn buffer_allocation_and_scheduling_variants_stay_consistent() {
    for (alloc, buffer, sched) in [
        (
            PlaneAllocation::Static,
            BufferCapacity::None,
            SchedPolicy::ReadPriority,
        ),
        (
            PlaneAllocation::RoundRobin,
            BufferCapacity::Pages(64),
            SchedPolicy::Fcfs,
        ),
        (
            PlaneAllocation::LeastBusy,
            BufferCapacity::None,
            SchedPolicy::Fcfs,
        ),
        (
            PlaneAllocation::RoundRobin,
            BufferCapacity::None,
            SchedPolicy::ReadPriority,
        ),
        (
            PlaneAllocation::Static,
            BufferCapacity::FootprintPercent(1.0),
            SchedPolicy::ReadPriority,
        ),
    ] {
        let mut c = tiny();
        c.ftl.plane_allocation = alloc;
        c.buffer.capacity = buffer;
        c.sched.policy = sched;
        c.host.partial_write_rmw = true;
        let p = churn(&c, 20_000, 5);
        let r = run(&c, &p, "fill:0.85:0.7+trace-reads");
        assert_eq!(r.requests, 20_000, "{alloc:?} {buffer:?} {sched:?}");
    }
}
