//! The SPD paper's schemes (scheme.rs): every scheme runs consistently on
//! a small aged drive, and each one's defining behaviour holds.

use ssdlab::config::{BufferCapacity, GcThreshold};
use ssdlab::scheme;
use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Report, Simulator};

/// A small drive of 2 dies x `planes` planes, with GC pressure.
fn drive(planes: u32) -> Config {
    let mut c = Config::preset("small").unwrap();
    c.geometry.channels = 1;
    c.geometry.chips_per_channel = 2;
    c.geometry.planes_per_die = planes;
    c.geometry.blocks_per_plane = 64;
    c.geometry.pages_per_block = 32;
    c.ftl.overprovisioning = 0.2;
    c.gc.threshold = GcThreshold::Percent(7.0);
    c.buffer.capacity = BufferCapacity::Pages(64);
    c.check.enabled = true;
    c.check.interval_requests = 500;
    c
}

fn workload(c: &Config, requests: u64, seed: u64) -> Source {
    Source::Synthetic(Profile {
        name: "mixed".into(),
        seed,
        requests,
        read_share: 0.3,
        footprint_bytes: c.logical_pages() * 4096,
        page_bytes: 4096,
        read_size: Some(SizeDist::constant(8192)),
        write_size: Some(SizeDist::constant(12288)),
        address: Address::HotCold {
            hot_fraction: 0.1,
            hot_share: 0.8,
        },
        arrival: Arrival::Poisson { iops: 400.0 },
    })
}

fn run(c: &Config, pre: &str, requests: u64) -> Report {
    Simulator::new(
        c,
        &workload(c, requests, 5),
        &Precondition::parse(pre).unwrap(),
    )
    .unwrap()
    .run(&mut |_| {})
    .unwrap_or_else(|e| panic!("{}: {e}", c.name))
}

#[test]
fn every_scheme_is_consistent_aged_and_fresh() {
    for planes in [2, 4] {
        for s in scheme::SCHEMES {
            let c = s.apply(&drive(planes)).unwrap();
            for pre in ["trace-reads", "fill:0.9:0.8+trace-reads"] {
                eprintln!("RUN {} {pre}", c.name);
                let r = run(&c, pre, 6000);
                assert!(r.requests > 0, "{} {pre}", c.name);
                if pre.starts_with("fill") {
                    assert!(r.gc.count > 0, "{} {pre}: GC ran", c.name);
                }
            }
        }
    }
}

#[test]
#[ignore]
fn print_comparison() {
    for pre in ["trace-reads", "fill:0.9:0.8+trace-reads"] {
        for s in scheme::SCHEMES {
            let mut c = s.apply(&drive(2)).unwrap();
            c.check.enabled = false;
            let r = run(&c, pre, 20000);
            eprintln!(
                "{pre:28} {:12} wlat {:8.1} rlat {:7.1} gc {:5} gcms {:8.1} erases {:5} hostmp {:.3} util {:.3} hit {:.3} blocked {:.3} wasted {} wa {:.2}",
                s.name,
                r.write.latency_us.mean,
                r.read.latency_us.mean,
                r.gc.count,
                r.gc.time_us.total / 1000.0,
                r.flash.erases,
                r.flash.host_multiplane_program_share,
                r.plane_utilization.at_eviction.mean,
                (r.buffer.read_hits + r.buffer.write_hits) as f64 / (r.read.pages + r.write.pages).max(1) as f64,
                r.gc.blocked_share,
                r.flash.wasted_pages,
                r.write_amplification
            );
        }
    }
}
