//! Bad blocks (`flash.bad_blocks`): factory and grown bad blocks, spares,
//! the read-only end, saved states, and the configurations refused.

mod common;

use std::sync::Arc;

use ssdlab::config::{BadBlocks, BlockGroups, PlaneAllocation, VictimPolicy};
use ssdlab::sim::SavedState;
use ssdlab::workload::{IoRecord, Op, Source};
use ssdlab::{Config, Precondition, Simulator};

fn writes(name: &str, pages: u64, n: u64, gap_ns: u64) -> Source {
    Source::Records {
        name: name.into(),
        records: Arc::new(
            (0..n)
                .map(|i| IoRecord::new(i * gap_ns, Op::Write, (i % pages) * 4096, 4096))
                .collect(),
        ),
    }
}

/// `common::tiny()` with bad blocks: `factory` fraction, endurance `e`,
/// `spares` per plane (None: the default), erase failures `p`.
fn drive(factory: f64, e: u32, spares: Option<u32>, p: f64) -> Config {
    let mut c = common::tiny();
    c.cell.endurance = Some(e);
    c.flash.bad_blocks = Some(BadBlocks {
        factory_fraction: factory,
        retire_at_endurance: true,
        erase_failure_probability: p,
        spare_blocks: spares,
    });
    c
}

fn pre(s: &str) -> Precondition {
    Precondition::parse(s).unwrap()
}

fn json(r: &ssdlab::Report) -> String {
    serde_json::to_string(r).unwrap()
}

#[test]
fn absent_means_off_and_unwritten() {
    let c = common::tiny();
    assert!(c.flash.bad_blocks.is_none());
    assert!(!c.to_toml().contains("bad_blocks"));
    let src = writes("w", 1000, 3000, 1_000_000);
    let (r, sim) = common::run_checked(&c, &src, "fill:0.8:0.7");
    assert!(r.bad_blocks.is_none());
    assert!(!json(&r).contains("bad_blocks"));
    assert!(!r.summary().contains("spares left"));
    assert!(!sim.ftl().bad_blocks_on());
}

#[test]
fn an_inert_table_moves_no_figure() {
    // No factory bad blocks, no spares set aside, no failures, an
    // endurance never reached: the same run as without the table, figure
    // for figure.
    let mut c = drive(0.0, 1_000_000, Some(0), 0.0);
    c.ftl.plane_allocation = PlaneAllocation::Static;
    let mut off = c.clone();
    off.flash.bad_blocks = None;
    let src = writes("w", 1500, 4000, 700_000);
    let (mut on, _) = common::run_checked(&c, &src, "fill:0.85:0.7");
    let (plain, _) = common::run_checked(&off, &src, "fill:0.85:0.7");
    let b = on.bad_blocks.take().expect("reported when on");
    assert_eq!(
        (b.factory, b.grown_endurance, b.grown_erase_failure),
        (0, 0, 0)
    );
    assert_eq!(b.spare_blocks_per_plane, 0);
    assert!(plain.gc.count > 0);
    assert_eq!(json(&on), json(&plain));
}

#[test]
fn factory_bad_blocks_are_seeded_exact_and_never_used() {
    let c = drive(0.05, 1_000_000, Some(5), 0.0);
    let k = (0.05f64 * 64.0).round() as u32;
    assert_eq!(c.factory_bad_blocks(), k);
    let src = writes("w", 1500, 4000, 700_000);
    let (r, sim) = common::run_checked(&c, &src, "fill:0.85:0.7");
    let b = r.bad_blocks.as_ref().unwrap();
    assert_eq!(b.factory, k as u64 * c.total_planes() as u64);
    assert_eq!(b.spares_left_min, 5 - k);
    let ftl = sim.ftl();
    let bad = |ftl: &ssdlab::ftl::Ftl| -> Vec<u32> {
        (0..ftl.planes() * ftl.blocks_per_plane())
            .filter(|&gb| {
                ftl.block_state(ssdlab::addr::BlockId(gb)) == ssdlab::ftl::BlockState::Retired
            })
            .collect()
    };
    let retired = bad(ftl);
    assert_eq!(retired.len() as u64, b.factory);
    for &gb in &retired {
        let id = ssdlab::addr::BlockId(gb);
        assert_eq!(ftl.erase_counts()[gb as usize], 0, "block {gb} was erased");
        assert_eq!(ftl.valid_count(id), 0);
    }
    // The same seed, the same blocks; another seed, others.
    let again = Simulator::new(&c, &src, &pre("none")).unwrap();
    assert_eq!(bad(again.ftl()), retired);
    let mut other = c.clone();
    other.seed += 1;
    let other = Simulator::new(&other, &src, &pre("none")).unwrap();
    assert_ne!(bad(other.ftl()), retired);
}

#[test]
fn erase_failures_retire_blocks_without_losing_data() {
    let c = drive(0.02, 1_000_000, None, 0.02);
    let src = writes("w", 1500, 6000, 500_000);
    let (r, sim) = common::run_checked(&c, &src, "fill:0.85:0.7");
    let b = r.bad_blocks.clone().unwrap();
    assert!(b.grown_erase_failure > 0, "{b:?}");
    assert_eq!(b.grown_endurance, 0);
    // Every LPN written is still mapped (the checker verified versions).
    for lpn in 0..1500u32 {
        assert!(sim.holds(lpn), "lpn {lpn} lost");
    }
    // Deterministic.
    let (again, _) = common::run_checked(&c, &src, "fill:0.85:0.7");
    assert_eq!(json(&r), json(&again));
}

#[test]
fn wear_levelling_runs_with_bad_blocks() {
    // Erase failures retire blocks and spares join the free lists while
    // dynamic and static levelling choose blocks: the checker verifies the
    // free lists' order and the levelling extremes over the blocks in
    // service every 500 requests and at the end.
    for (dynamic, static_threshold) in [(true, None), (false, Some(2)), (true, Some(2))] {
        let mut c = drive(0.02, 1_000_000, None, 0.02);
        c.ftl.wear_levelling = ssdlab::config::WearLevelling {
            dynamic,
            static_threshold,
        };
        c.validate("case")
            .expect("levelling and bad blocks compose");
        let src = writes("w", 1500, 6000, 500_000);
        let (r, sim) = common::run_checked(&c, &src, "fill:0.85:0.7");
        let b = r.bad_blocks.clone().unwrap();
        assert!(b.grown_erase_failure > 0, "{b:?}");
        assert!(b.spares_left_min < b.spare_blocks_per_plane, "{b:?}");
        let w = r.wear_levelling.clone().unwrap();
        if static_threshold.is_some() {
            assert!(w.static_blocks > 0, "{w:?}");
        }
        for lpn in 0..1500u32 {
            assert!(sim.holds(lpn), "lpn {lpn} lost");
        }
        let (again, _) = common::run_checked(&c, &src, "fill:0.85:0.7");
        assert_eq!(json(&r), json(&again));
    }
}

#[test]
fn running_out_of_spares_ends_the_run_read_only() {
    let mut c = drive(0.0, 3, Some(2), 0.0);
    c.gc.victim = VictimPolicy::Fifo;
    let logical = c.logical_pages();
    let src = writes("w", logical, 200_000, 200_000);
    let (r, sim) = common::run_checked(&c, &src, "none");
    let b = r.bad_blocks.clone().unwrap();
    let why = b.read_only.as_deref().expect("read-only");
    assert!(
        why.starts_with("read-only: plane ") && why.contains("ran out of spare blocks after"),
        "{why}"
    );
    assert!(
        why.ends_with(&format!("/ {} requests", r.requests)),
        "{why}"
    );
    assert!(r.requests < 200_000 && r.requests > 0);
    assert!(!r.partial);
    assert_eq!(b.spares_left_min, 0);
    assert!(r.summary().contains("status   read-only: plane"));
    // The plane that ran out retired one block more than its spares.
    let p = sim.ftl().out_of_spares().unwrap();
    assert_eq!(sim.ftl().retired_blocks(p), 3);
    // Deterministic.
    let (again, _) = common::run_checked(&c, &src, "none");
    assert_eq!(json(&r), json(&again));
}

#[test]
fn aging_into_read_only_is_an_error() {
    let c = drive(0.0, 2, Some(1), 0.0);
    let logical = c.logical_pages();
    let src = writes("w", logical, 40_000, 1_000);
    let e = Simulator::new(&c, &src, &pre("trace-writes"))
        .err()
        .expect("refused");
    let msg = e.to_string();
    assert!(
        msg.contains("preconditioning made the drive read-only")
            && msg.contains("flash.bad_blocks"),
        "{msg}"
    );
}

#[test]
fn saved_states_carry_the_bad_blocks() {
    let c = drive(0.05, 100_000, Some(8), 0.003);
    let src = writes("w", 1500, 6000, 700_000);
    let p = pre("fill:0.85:0.7+trace-writes");
    let (sim, state) = Simulator::new_saving(&c, &src, &p).unwrap();
    let direct = sim.run(&mut |_| {}).unwrap();
    let b = direct.bad_blocks.clone().unwrap();
    assert!(b.grown_endurance + b.grown_erase_failure > 0, "{b:?}");
    let state = SavedState::from_bytes(state.bytes().to_vec(), None).unwrap();
    let loaded = Simulator::new_loaded(&c, &src, &state)
        .unwrap()
        .run(&mut |_| {})
        .unwrap();
    assert_eq!(json(&direct), json(&loaded));
    // A drive without bad blocks does not take it.
    let mut off = c.clone();
    off.flash.bad_blocks = None;
    let e = Simulator::new_loaded(&off, &src, &state)
        .err()
        .expect("refused");
    assert!(e.to_string().contains("flash.bad_blocks"), "{e}");
}

#[test]
fn impossible_settings_are_refused_naming_the_key() {
    let refused = |c: &Config, key: &str, words: &[&str]| {
        let e = c.validate("case").expect_err("refused").to_string();
        assert!(e.contains(key), "{key} not named: {e}");
        for w in words {
            assert!(e.contains(w), "{w:?} missing: {e}");
        }
    };
    let most = drive(0.0, 10, None, 0.0).max_spare_blocks();
    refused(
        &drive(0.0, 10, Some(most + 1), 0.0),
        "flash.bad_blocks.spare_blocks",
        &[&format!("at most {most}"), "over-provisioned"],
    );
    refused(
        &drive(0.5, 10, None, 0.0),
        "flash.bad_blocks.factory_fraction",
        &["32 factory bad blocks", "2 spare", "default"],
    );
    refused(
        &drive(0.05, 10, Some(1), 0.0),
        "flash.bad_blocks.factory_fraction",
        &["3 factory bad blocks", "1 spare"],
    );
    refused(
        &drive(1.0, 10, None, 0.0),
        "flash.bad_blocks.factory_fraction",
        &["[0, 1)"],
    );
    refused(
        &drive(-0.1, 10, None, 0.0),
        "flash.bad_blocks.factory_fraction",
        &[],
    );
    refused(
        &drive(0.0, 10, None, 1.5),
        "flash.bad_blocks.erase_failure_probability",
        &["[0, 1]"],
    );
    refused(
        &drive(0.0, 10, None, f64::NAN),
        "flash.bad_blocks.erase_failure_probability",
        &[],
    );
    let mut groups = drive(0.0, 10, None, 0.0);
    groups.ftl.block_groups = BlockGroups::Die;
    groups.ftl.plane_allocation = PlaneAllocation::DieRoundRobin;
    groups.gc.migration = ssdlab::config::Migration::Controller;
    assert!({
        let mut ok = groups.clone();
        ok.flash.bad_blocks = None;
        ok.validate("without").is_ok()
    });
    refused(&groups, "flash.bad_blocks", &["per-plane blocks"]);
    let mut fast = drive(0.0, 10, None, 0.0);
    fast.ftl.mapping = ssdlab::config::Mapping::Fast;
    refused(&fast, "flash.bad_blocks", &["page or DFTL"]);
}

#[test]
fn the_table_round_trips_through_toml() {
    let c = drive(0.03, 10, Some(4), 1e-6);
    let back = Config::from_toml(&c.to_toml(), "round trip").unwrap();
    assert_eq!(back.flash.bad_blocks, c.flash.bad_blocks);
    let d = Config::preset("small")
        .unwrap()
        .with_overrides(&["flash.bad_blocks={}".into()])
        .unwrap();
    assert_eq!(d.flash.bad_blocks, Some(BadBlocks::default()));
    assert_eq!(d.flash.bad_blocks.as_ref().unwrap().factory_fraction, 0.0);
    // The default spares: 80/4096 of the plane's 512 blocks, rounded up.
    let spares = (512.0 * ssdlab::config::DATASHEET_INVALID_FRACTION).ceil() as u32;
    assert_eq!((d.spare_blocks(), spares), (10, 10));
}
