//! ONFI cache program and cache read (`flash.cache_program`,
//! `flash.cache_read`): on an aged drive under GC (host and GC programs
//! through the cache registers, reads chained), the checker passes
//! throughout and latency parts still sum; the queued wait of a cached
//! program is spent behind the program before it; a transfer-mode write is
//! acknowledged when its data is in the cache register; multi-plane
//! programs use the cache too; and with both off every figure is what it
//! was. The exact timings of sequential streams are in the validation
//! suite (`validate::cache_checks`).

mod common;

use ssdlab::attribution::Part;
use ssdlab::config::{Migration, WriteCompletion};
use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use ssdlab::workload::{IoRecord, Op, Source};
use ssdlab::{Completion, Config, Precondition, Report, Simulator};

/// A mixed workload over the whole logical space of `c`, at a rate that
/// queues work on the dies.
fn mix(c: &Config, requests: u64) -> Source {
    Source::Synthetic(Profile {
        name: "mix".into(),
        seed: 9,
        requests,
        read_share: 0.5,
        footprint_bytes: c.logical_pages() * 4096,
        page_bytes: 4096,
        read_size: Some(SizeDist::uniform(4096, 32768)),
        write_size: Some(SizeDist::uniform(4096, 32768)),
        address: Address::HotCold {
            hot_fraction: 0.2,
            hot_share: 0.8,
        },
        arrival: Arrival::Poisson { iops: 2000.0 },
        latency_hint: None,
    })
}

fn with(c: &Config, program: bool, read: bool) -> Config {
    let mut c = c.clone();
    c.flash.cache_program = program;
    c.flash.cache_read = read;
    c
}

/// Run with every request logged; the consistency checker every 500
/// requests and at the end.
fn run(c: &Config, src: &Source, pre: &str) -> (Report, Vec<Completion>) {
    let mut c = c.clone();
    c.check.enabled = true;
    c.check.interval_requests = 500;
    common::run_logged(Simulator::new(&c, src, &Precondition::parse(pre).unwrap()).unwrap())
}

fn drive() -> Config {
    let mut c = common::tiny();
    c.metrics.attribution = true;
    c
}

fn records(recs: Vec<IoRecord>) -> Source {
    Source::Records {
        name: "records".into(),
        records: std::sync::Arc::new(recs),
    }
}

#[test]
fn host_and_gc_programs_and_reads_go_through_the_cache() {
    for migration in [Migration::Copyback, Migration::Controller] {
        let mut c = drive();
        c.gc.migration = migration;
        let src = mix(&c, 6_000);
        let pre = "fill:0.9:0.8+trace-reads";
        let (plain, _) = run(&c, &src, pre);
        assert!(plain.gc.count > 0 && plain.cache.is_none());
        let (r, done) = run(&with(&c, true, true), &src, pre);
        let k = r.cache.as_ref().expect("the cache is reported");
        assert!(k.cached_program_pages > 0, "{k:?}");
        assert!(k.cached_read_pages > 0, "{k:?}");
        assert!(k.cached_program_pages <= r.flash.programs);
        assert_eq!(r.requests, plain.requests);
        assert!(r.gc.count > 0);
        for d in &done {
            let parts = d.parts.expect("attribution is on");
            assert_eq!(parts.iter().sum::<u64>(), d.completion_ns - d.arrival_ns);
        }
        // No new part: the outputs' parts are the usual ones.
        let a = r.attribution.as_ref().unwrap();
        assert_eq!(a.parts, plain.attribution.as_ref().unwrap().parts);
        assert!(r.summary().contains("cache "));
        // Each alone.
        let (p, _) = run(&with(&c, true, false), &src, pre);
        let k = p.cache.unwrap();
        assert!(k.cached_program_pages > 0 && k.cached_read_pages == 0);
        let (q, _) = run(&with(&c, false, true), &src, pre);
        let k = q.cache.unwrap();
        assert!(k.cached_program_pages == 0 && k.cached_read_pages > 0);
    }
}

/// Two writes at once on one plane: the second's data goes into the cache
/// register while the first programs; it waits for the array behind that
/// host program, then programs.
#[test]
fn a_cached_program_waits_behind_the_program_before_it() {
    let mut c = ssdlab::validate::one_die(1);
    c.timing.command_ns = 300.0;
    c.flash.cache_program = true;
    c.metrics.attribution = true;
    let t = ssdlab::flash::FlashTiming::new(&c);
    let (cmd, x, tp) = (300, t.xfer_ns, t.program_ns[0]);
    assert!(tp > cmd + x);
    let src = records(vec![
        IoRecord::new(0, Op::Write, 0, 4096),
        IoRecord::new(0, Op::Write, 4096, 4096),
    ]);
    let (r, done) = run(&c, &src, "none");
    assert_eq!(r.cache.unwrap().cached_program_pages, 1);
    let second = done.iter().max_by_key(|d| d.completion_ns).unwrap();
    assert_eq!(second.completion_ns, cmd + x + 2 * tp);
    let parts = second.parts.unwrap();
    // Queued behind the first's transfer, then in the cache register
    // behind its array phase: tPROG in all.
    assert_eq!(parts[Part::BehindHost as usize], tp);
    assert_eq!(parts[Part::Transfer as usize], cmd + x);
    assert_eq!(parts[Part::Array as usize], tp);
}

/// Transfer-mode completion: a cached write is acknowledged when its data
/// is in the cache register, one page per max(tPROG, c + transfer) after
/// the second.
#[test]
fn transfer_mode_acknowledges_a_cached_write_when_its_data_is_in() {
    let mut c = ssdlab::validate::one_die(1);
    c.timing.command_ns = 300.0;
    c.host.write_completion = WriteCompletion::Transfer;
    let t = ssdlab::flash::FlashTiming::new(&c);
    let (cmd, x, tp) = (300, t.xfer_ns, t.program_ns[0]);
    let n = 6;
    let src = records(
        (0..n)
            .map(|p| IoRecord::new(0, Op::Write, p * 4096, 4096))
            .collect(),
    );
    let acks = |c: &Config| -> Vec<u64> {
        let (_, done) = run(c, &src, "none");
        let mut v: Vec<u64> = done.iter().map(|d| d.completion_ns).collect();
        v.sort();
        v
    };
    // Without cache: each after the one before has programmed.
    let plain: Vec<u64> = (0..n).map(|k| k * (cmd + x + tp) + cmd + x).collect();
    assert_eq!(acks(&c), plain);
    // With it: the first at c + transfer, the k-th when the (k-1)-th's
    // array phase started, plus c + transfer.
    let mut expected = vec![cmd + x];
    let mut start = cmd + x;
    for _ in 1..n {
        expected.push(start + cmd + x);
        start += tp.max(cmd + x);
    }
    assert_eq!(acks(&with(&c, true, false)), expected);
}

/// Two-plane programs through the cache: one two-plane command per
/// max(tPROG, c + 2 transfers).
#[test]
fn multi_plane_programs_use_the_cache() {
    let mut c = ssdlab::validate::one_die(2);
    c.timing.command_ns = 300.0;
    c.flash.cache_program = true;
    let t = ssdlab::flash::FlashTiming::new(&c);
    let (cmd, x, tp) = (300, t.xfer_ns, t.program_ns[0]);
    let n = 8;
    let src = records(
        (0..n)
            .map(|k| IoRecord::new(0, Op::Write, k * 8192, 8192))
            .collect(),
    );
    let (r, done) = run(&c, &src, "none");
    assert_eq!(r.flash.multiplane_program_share, 1.0);
    assert_eq!(r.cache.unwrap().cached_program_pages, 2 * (n - 1));
    let last = done.iter().map(|d| d.completion_ns).max().unwrap();
    assert_eq!(last, cmd + 2 * x + tp + (n - 1) * tp.max(cmd + 2 * x));
}

/// A read queued while the die programs is not held back by the cache: a
/// host program is taken into the cache registers only when the policy
/// would run it next (read priority: the read goes first).
#[test]
fn a_waiting_read_goes_before_a_cached_program() {
    let mut c = ssdlab::validate::one_die(1);
    c.flash.cache_program = true;
    let t = ssdlab::flash::FlashTiming::new(&c);
    let (x, tp, tr) = (t.xfer_ns, t.program_ns[0], t.read_ns[0]);
    let src = records(vec![
        IoRecord::new(0, Op::Write, 0, 4096),
        IoRecord::new(0, Op::Write, 4096, 4096),
        IoRecord::new(1_000, Op::Read, 100 * 4096, 4096),
    ]);
    let (r, done) = run(&c, &src, "trace-reads");
    assert_eq!(r.cache.unwrap().cached_program_pages, 0);
    let read = done.iter().find(|d| d.op == Op::Read).unwrap();
    assert_eq!(read.completion_ns, x + tp + tr + x);
}

#[test]
fn off_changes_nothing() {
    let c = drive();
    let src = mix(&c, 2_000);
    let pre = "fill:0.9:0.8+trace-reads";
    let (plain, _) = run(&c, &src, pre);
    let off = with(&c, false, false);
    let (r, _) = run(&off, &src, pre);
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        serde_json::to_string(&plain).unwrap()
    );
    let json = serde_json::to_string(&plain).unwrap();
    assert!(!json.contains("cached_") && !json.contains("cache_program"));
    assert_eq!(off.to_toml(), c.to_toml());
}
