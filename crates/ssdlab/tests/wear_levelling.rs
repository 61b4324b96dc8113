//! Wear levelling (`ftl.wear_levelling`) in timed runs: off it changes
//! nothing and reports nothing; dynamic and static levelling run under the
//! consistency checker (which verifies the free lists' order, the per-plane
//! erase extremes and the moves counted), static levelling moves pages and
//! narrows the erase spread of a plane's blocks, deterministically. Its
//! closed-form checks are in the validation suite (`validate::wear_checks`).

use ssdlab::config::{GcThreshold, HostMode, WearLevelling};
use ssdlab::validate::{one_die, wear_writes};
use ssdlab::{Config, Precondition, Report, Simulator};

fn drive(levelling: Option<WearLevelling>) -> Config {
    let mut c = one_die(2);
    c.geometry.blocks_per_plane = 64;
    c.geometry.pages_per_block = 32;
    c.ftl.overprovisioning = 0.2;
    c.gc.threshold = GcThreshold::Blocks(2);
    c.host.mode = HostMode::ClosedLoop;
    c.host.queue_depth = 4;
    c.check.enabled = true;
    c.check.interval_requests = 5_000;
    c.ftl.wear_levelling = levelling.unwrap_or_default();
    c
}

/// 90 % of single-page writes to 10 % of the pages, 12 drive writes, on a
/// drive filled with valid data first.
fn run(c: &Config) -> Report {
    let src = wear_writes(c, 12 * c.logical_pages(), Some((0.1, 0.9)), 5);
    let pre = Precondition::parse("fill:0.75:1").unwrap();
    Simulator::new(c, &src, &pre)
        .unwrap()
        .run(&mut |_| {})
        .unwrap()
}

fn json(r: &Report) -> String {
    serde_json::to_string(r).unwrap()
}

#[test]
fn absent_or_empty_changes_nothing() {
    let plain = run(&drive(None));
    assert!(plain.wear_levelling.is_none());
    assert!(!json(&plain).contains("wear_levelling"));
    let empty = run(&drive(Some(WearLevelling::default())));
    assert_eq!(json(&plain), json(&empty));
}

#[test]
fn static_levelling_moves_cold_data_and_narrows_the_spread() {
    let plain = run(&drive(None));
    let t = 3;
    let c = drive(Some(WearLevelling {
        dynamic: false,
        static_threshold: Some(t),
    }));
    let r = run(&c);
    let w = r.wear_levelling.clone().expect("reported");
    assert!(w.static_blocks > 0 && w.static_pages > 0, "{w:?}");
    assert!(
        w.static_pages <= w.static_blocks * 32,
        "{} pages from {} blocks",
        w.static_pages,
        w.static_blocks
    );
    let spread = |r: &Report| r.erase_count.max - r.erase_count.min;
    assert!(
        spread(&plain) > t + 4,
        "the workload must spread wear without levelling: {}",
        spread(&plain)
    );
    assert!(
        w.plane_block_spread < spread(&plain),
        "{} vs {}",
        w.plane_block_spread,
        spread(&plain)
    );
    assert!(r.write_amplification > plain.write_amplification);
    assert!(r.summary().contains("levelling"));
    // Deterministic.
    assert_eq!(json(&r), json(&run(&c)));
}

#[test]
fn dynamic_levelling_runs_checked() {
    for static_threshold in [None, Some(4)] {
        let c = drive(Some(WearLevelling {
            dynamic: true,
            static_threshold,
        }));
        let r = run(&c);
        let w = r.wear_levelling.clone().expect("reported");
        assert!(w.dynamic);
        assert_eq!(w.static_threshold, static_threshold);
        assert!(r.gc.count > 0);
        assert_eq!(json(&r), json(&run(&c)));
    }
}
