//! Hot/cold separation (ftl.hot_data): two write streams per plane chosen by
//! a hot-data identification scheme.

use ssdlab::config::{GcThreshold, HostMode};
use ssdlab::validate::one_die;
use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Report, Simulator};

fn drive(hot_data: &str) -> Config {
    let mut c = one_die(1);
    c.geometry.blocks_per_plane = 256;
    c.geometry.pages_per_block = 64;
    c.ftl.overprovisioning = 0.2;
    c.gc.threshold = GcThreshold::Blocks(3);
    c.host.mode = HostMode::ClosedLoop;
    c.host.queue_depth = 1;
    c.ftl.hot_data = hot_data.into();
    c
}

/// Single-page writes, 90% of them to 2% of the logical space (a hot set
/// small enough for the identifiers' Table 1 windows and thresholds), measured
/// after two drive writes of warm-up.
fn run(c: &Config, check: bool) -> Report {
    let mut c = c.clone();
    let phys = c.physical_pages();
    c.host.warmup_requests = 2 * phys;
    c.check.enabled = check;
    let p = Profile {
        name: "90/2 writes".into(),
        seed: 8,
        requests: 6 * phys,
        read_share: 0.0,
        footprint_bytes: c.logical_pages() * 4096,
        page_bytes: 4096,
        read_size: Some(SizeDist::constant(4096)),
        write_size: Some(SizeDist::constant(4096)),
        address: Address::HotCold {
            hot_fraction: 0.02,
            hot_share: 0.9,
        },
        arrival: Arrival::Poisson { iops: 1000.0 },
    };
    Simulator::new(
        &c,
        &Source::Synthetic(p),
        &Precondition::parse("age:1").unwrap(),
    )
    .unwrap()
    .run(&mut |_| {})
    .unwrap()
}

#[test]
fn separating_hot_data_lowers_write_amplification() {
    let mixed = run(&drive("none"), false);
    assert_eq!(mixed.flash.host_hot_share, 0.0);
    for scheme in ["wdac", "mbf", "dl-mbf-s"] {
        let sep = run(&drive(scheme), false);
        println!(
            "{scheme}: WA {:.3} vs {:.3} unseparated, {:.1}% of host pages hot",
            sep.write_amplification,
            mixed.write_amplification,
            sep.flash.host_hot_share * 100.0
        );
        assert!(
            sep.flash.host_hot_share > 0.3,
            "{scheme}: the hot stream must be used"
        );
        assert!(
            sep.write_amplification < 0.9 * mixed.write_amplification,
            "{scheme}: WA {} not clearly below {} without separation",
            sep.write_amplification,
            mixed.write_amplification
        );
    }
}

#[test]
fn two_streams_keep_data_consistent() {
    let mut c = drive("dl-mbf-s");
    c.geometry.blocks_per_plane = 64;
    c.check.interval_requests = 2_000;
    let r = run(&c, true);
    assert!(r.gc.count > 0);
}

#[test]
fn unknown_scheme_is_a_config_error() {
    let e = drive("hottest").validate("t").unwrap_err().to_string();
    assert!(e.contains("ftl.hot_data") && e.contains("dl-mbf-s"), "{e}");
}
