//! DFTL (`ftl.mapping = "dftl"`): the cached mapping table against the LRU
//! closed form, translation-page traffic accounted command by command, and
//! consistency under the page-level schemes and SPD's Die-Writes.

use ssdlab::config::Mapping;
use ssdlab::scheme;
use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Report, Simulator};

mod common;

/// The shared small test drive (2 dies x `planes` planes, a write buffer,
/// checked) with DFTL.
fn drive(planes: u32) -> Config {
    let mut c = common::two_dies(planes);
    c.ftl.mapping = Mapping::Dftl;
    c
}

fn profile(footprint_pages: u64, requests: u64, read_share: f64, address: Address) -> Source {
    Source::Synthetic(Profile {
        name: "dftl".into(),
        seed: 11,
        requests,
        read_share,
        footprint_bytes: footprint_pages * 4096,
        page_bytes: 4096,
        read_size: Some(SizeDist::constant(4096)),
        write_size: Some(SizeDist::constant(8192)),
        address,
        arrival: Arrival::Poisson { iops: 400.0 },
        latency_hint: None,
    })
}

fn run(c: &Config, src: &Source, pre: &str) -> Report {
    Simulator::new(c, src, &Precondition::parse(pre).unwrap())
        .unwrap()
        .run(&mut |_| {})
        .unwrap_or_else(|e| panic!("{}: {e}", c.name))
}

/// Pages of commands of `kind` whose first page is of `origin` (a
/// multi-plane command may join pages of several origins; the command
/// counts under its first).
fn pages(r: &Report, kind: &str, origin: &str) -> u64 {
    r.flash
        .commands
        .iter()
        .filter(|c| c.kind == kind && c.origin == origin)
        .map(|c| c.planes as u64 * c.commands)
        .sum()
}

/// Under the independent reference model with uniform popularity over F
/// pages, an LRU cache of C entries hits with probability C / F (every set
/// of C pages is equally likely to be the cached one).
#[test]
fn lru_table_hits_at_the_uniform_closed_form() {
    let (f, cap, n) = (2000u64, 500u64, 30_000u64);
    let mut c = drive(2);
    c.ftl.mapping_cache_entries = cap;
    c.host.warmup_requests = 5000;
    let r = run(&c, &profile(f, n, 1.0, Address::Uniform), "trace-reads");
    let m = &r.mapping;
    assert_eq!(m.totals.cache_hits + m.totals.cache_misses, n - 5000);
    let expect = cap as f64 / f as f64;
    assert!(
        (m.cache_hit_ratio - expect).abs() < 0.02,
        "hit ratio {} vs closed form {expect}",
        m.cache_hit_ratio
    );
    // Only clean entries: nothing to write back; misses of one page in
    // flight share a read.
    assert_eq!(m.totals.translation_writes, 0);
    assert!(pages(&r, "read", "mapping") > 0);
    assert!(m.totals.translation_reads <= m.totals.cache_misses);
    assert!(m.totals.translation_reads > 0);
}

#[test]
fn a_table_that_holds_every_entry_only_writes_back_for_gc() {
    let mut c = drive(2);
    c.ftl.mapping_cache_entries = c.logical_pages();
    let src = profile(c.logical_pages(), 6000, 0.5, Address::Uniform);
    let r = run(&c, &src, "trace-reads");
    // No entry ever leaves the table; only GC moves of entries not (yet)
    // loaded write translation pages.
    assert_eq!(
        r.mapping.totals.translation_writes,
        r.mapping.totals.gc_translation_updates
    );
    assert!(r.mapping.totals.cache_hits > 0 && r.mapping.totals.cache_misses > 0);
}

/// Dirty entries pushed out of a small table write their translation pages
/// back; the translation pages are checked like host data (the checker is
/// on), and every write-back is one programmed page.
#[test]
fn small_tables_write_translation_pages_back_consistently() {
    for name in ["baseline-d", "baseline-p", "twinblk", "paragc"] {
        let mut c = scheme::by_name(name).unwrap().apply(&drive(2)).unwrap();
        c.ftl.mapping_cache_entries = 64;
        // 64 entries per translation page: ~100 translation pages.
        c.ftl.mapping_entry_bytes = 64;
        let src = profile(c.logical_pages(), 8000, 0.4, Address::Zipf { theta: 0.9 });
        let r = run(&c, &src, "trace-reads");
        let m = &r.mapping.totals;
        assert!(m.translation_writes > 0, "{name}: write-backs");
        assert!(pages(&r, "program", "mapping") > 0, "{name}");
        assert!(m.translation_reads > 0, "{name}");
        assert_eq!(
            r.flash.programs + r.flash.copybacks,
            r.flash.host_programs + r.flash.gc_programs + r.flash.wasted_pages + m.translation_writes,
            "{name}: every programmed page is host, GC (program or copyback), padding or translation"
        );
        assert!(r.write_amplification > 1.0, "{name}: mapping pages count");
    }
}

/// Page map vs DFTL on the same drive and workload: DFTL only adds
/// translation reads before host reads, so reads cannot get faster.
#[test]
fn dftl_reads_wait_for_translation_pages() {
    let mut dftl = drive(2);
    dftl.ftl.mapping_cache_entries = 128;
    let mut page = dftl.clone();
    page.ftl.mapping = Mapping::Page;
    let src = profile(dftl.logical_pages(), 6000, 0.7, Address::Uniform);
    let d = run(&dftl, &src, "trace-reads");
    let p = run(&page, &src, "trace-reads");
    assert_eq!(p.mapping.totals.translation_reads, 0);
    assert!(d.mapping.totals.translation_reads > 1000);
    assert!(
        d.read.latency_us.mean > p.read.latency_us.mean,
        "DFTL {} page map {}",
        d.read.latency_us.mean,
        p.read.latency_us.mean
    );
}

/// SPD with DFTL: translation pages are written with Die-Writes too (every
/// program, whatever its origin, is multi-plane over the whole die), and
/// GC moves of pages whose entries are not cached update their
/// translation pages. (Aged with 2 planes; fresh with 4, where a
/// write-back's Die-Write is mostly other pages and the aged drive spends
/// nearly all its time in GC, see docs/fidelity.md.)
#[test]
fn spd_writes_translation_pages_with_die_writes() {
    for name in ["spd", "spd-plus"] {
        for (planes, pre) in [(2, "fill:0.9:0.5+trace-reads"), (4, "trace-reads")] {
            let mut c = scheme::by_name(name)
                .unwrap()
                .apply(&drive(planes))
                .unwrap();
            c.ftl.mapping_cache_entries = 64;
            let src = profile(
                c.logical_pages(),
                6000,
                0.3,
                Address::HotCold {
                    hot_fraction: 0.1,
                    hot_share: 0.8,
                },
            );
            let (r, sim) = Simulator::new(&c, &src, &Precondition::parse(pre).unwrap())
                .unwrap()
                .run_inspect(&mut |_| {})
                .unwrap_or_else(|e| panic!("{name} x{planes}: {e}"));
            assert_eq!(r.flash.host_multiplane_program_share, 1.0);
            assert!(pages(&r, "program", "mapping") > 0, "{name} x{planes}");
            for cmd in r.flash.commands.iter().filter(|c| c.kind == "program") {
                assert_eq!(cmd.planes, planes, "{name}: {cmd:?}");
            }
            if planes == 2 {
                assert!(r.gc.count > 0, "{name} x{planes}: GC ran");
                assert!(r.mapping.totals.gc_translation_updates > 0);
            }
            for die in 0..c.total_dies() {
                sim.ftl().die_alignment(ssdlab::addr::DieId(die)).unwrap();
            }
            sim.check().unwrap();
        }
    }
}

#[test]
fn impossible_dftl_settings_are_refused_by_key() {
    let e = scheme::by_name("superpage")
        .unwrap()
        .apply(&drive(2))
        .unwrap_err()
        .to_string();
    assert!(e.contains("ftl.mapping"), "{e}");
    let mut c = drive(2);
    c.ftl.mapping_cache_entries = 0;
    let e = c.validate("t").unwrap_err().to_string();
    assert!(e.contains("ftl.mapping_cache_entries"), "{e}");
    let mut c = drive(2);
    c.ftl.mapping_entry_bytes = 0;
    let e = c.validate("t").unwrap_err().to_string();
    assert!(e.contains("ftl.mapping_entry_bytes"), "{e}");
}
