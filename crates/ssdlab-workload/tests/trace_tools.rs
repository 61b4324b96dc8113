//! Trace tools: statistics (`workload::stats`) checked by hand and against a
//! straightforward recomputation, and the writers (`workload::writer`)
//! checked by reading their output back.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use proptest::prelude::*;

use ssdlab_workload::stats::{StatsAccumulator, TraceStats, DEFAULT_PAGE_BYTES};
use ssdlab_workload::synthetic::{Address, Arrival, Generator, Profile, SizeDist};
use ssdlab_workload::writer::{
    self, Format, TimeRounding, WriteOptions, WriteSummary, MSR_EPOCH_TICKS, MSR_MAX_TIME_NS,
};
use ssdlab_workload::Error;
use ssdlab_workload::{IoRecord, Op, Source, TraceFormat, TraceOptions};

// ---------------------------------------------------------------------------
// helpers

mod common;

fn fixture(name: &str) -> PathBuf {
    common::ssdlab_fixture(name)
}

fn scratch(test: &str) -> PathBuf {
    common::scratch("trace-tools-tests", test)
}

fn rec(time_ns: u64, op: Op, offset: u64, size: u64) -> IoRecord {
    IoRecord::new(time_ns, op, offset, size)
}

fn read_all(path: &Path, format: TraceFormat) -> Vec<IoRecord> {
    let src = Source::Trace {
        path: path.to_path_buf(),
        format,
        options: TraceOptions::default(),
    };
    src.open().unwrap().map(|r| r.unwrap()).collect()
}

fn stats(records: &[IoRecord]) -> TraceStats {
    TraceStats::compute(records, DEFAULT_PAGE_BYTES).unwrap()
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() <= 1e-12 * b.abs().max(1.0))
}

macro_rules! assert_close {
    ($a:expr, $b:expr) => {
        assert!(
            close($a, $b),
            "{} = {:?}, expected {}",
            stringify!($a),
            $a,
            $b
        )
    };
}

// ---------------------------------------------------------------------------
// stats by hand

/// Six records whose statistics are worked out by hand below.
fn hand_records() -> Vec<IoRecord> {
    vec![
        // pages {0}
        rec(1000, Op::Write, 0, 4096),
        // pages {1, 2}; continues the previous write (which ended at 4096); large
        rec(3000, Op::Write, 4096, 8192),
        // page {0}, read
        rec(3000, Op::Read, 0, 512),
        // bytes 512..4608: pages {0, 1}; continues the previous read
        rec(7000, Op::Read, 512, 4096),
        // page {0} again: its write count becomes 2; not sequential
        rec(8000, Op::Write, 0, 4096),
        // bytes 40960..41960: page {10}; not page-sized but one page
        rec(12000, Op::Write, 40960, 1000),
    ]
}

#[test]
fn stats_by_hand() {
    let s = stats(&hand_records());
    assert_eq!(s.page_bytes, 4096);
    assert_eq!(s.requests, 6);
    assert_eq!(s.read_requests, 2);
    assert_eq!(s.write_requests, 4);
    assert_close!(s.read_share, 2.0 / 6.0);
    assert_close!(s.write_share, 4.0 / 6.0);
    // reads 512 + 4096, writes 4096 + 8192 + 4096 + 1000
    assert_eq!(s.read_bytes, 4608);
    assert_eq!(s.write_bytes, 17384);
    assert_close!(s.read_byte_share, 4608.0 / 21992.0);
    assert_close!(s.write_byte_share, 17384.0 / 21992.0);
    assert_close!(s.mean_read_size_bytes, 2304.0);
    assert_close!(s.mean_write_size_bytes, 4346.0);
    // pages touched by the writes: 1 + 2 + 1 + 1
    assert_eq!(s.page_writes, 5);
    assert_close!(s.mean_write_size_pages, 1.25);
    assert_eq!(s.large_writes, 1);
    assert_close!(s.large_write_share, 0.25);
    // pages {0, 1, 2, 10}; read {0, 1}; written {0, 1, 2, 10}
    assert_eq!(s.footprint_pages, 4);
    assert_eq!(s.footprint_bytes, 4 * 4096);
    assert_eq!(s.read_footprint_pages, 2);
    assert_eq!(s.read_footprint_bytes, 2 * 4096);
    assert_eq!(s.write_footprint_pages, 4);
    assert_eq!(s.write_footprint_bytes, 4 * 4096);
    assert_eq!(s.address_span_bytes, 41960);
    // times 1000, 3000, 3000, 7000, 8000, 12000
    assert_eq!(s.first_time_ns, Some(1000));
    assert_eq!(s.last_time_ns, Some(12000));
    assert_eq!(s.duration_s, 11e-6);
    // gaps 2000, 0, 4000, 1000, 4000: mean 2200 ns; deviations -200, -2200,
    // 1800, -1200, 1800; variance 12.8e6 / 5 = 2.56e6; sd 1600
    assert_close!(s.mean_interarrival_us, 2.2);
    assert_close!(s.burstiness_cv, 1600.0 / 2200.0);
    assert_close!(s.mean_iops, 5.0 / 11e-6);
    // write counts: page 0: 2, pages 1, 2, 10: 1 (W = 4 written pages, 5 page
    // writes); the hottest ceil(0.4) = 1 and ceil(0.8) = 1 page hold 2 of 5
    assert_close!(s.hot10_page_write_share, 0.4);
    assert_close!(s.hot20_page_write_share, 0.4);
    // the second write and the second read continue their direction
    assert_eq!(s.sequential_requests, 2);
    assert_close!(s.sequential_share, 2.0 / 6.0);
    assert_close!(s.sequential_read_share, 0.5);
    assert_close!(s.sequential_write_share, 0.25);
}

#[test]
fn stats_hot_shares_by_hand() {
    // page 0 written 5 times, page 1 three times, pages 2..=9 once: W = 10
    // pages, 16 page writes. Hottest ceil(1.0) = 1 page: 5/16; hottest
    // ceil(2.0) = 2 pages: 8/16.
    let mut recs = Vec::new();
    let mut t = 0;
    let mut w = |page: u64| {
        t += 10;
        recs.push(rec(t, Op::Write, page * 4096, 4096));
    };
    for p in [0, 1, 0, 2, 3, 0, 1, 4, 5, 0, 6, 7, 1, 8, 9, 0] {
        w(p);
    }
    let s = stats(&recs);
    assert_eq!(s.write_footprint_pages, 10);
    assert_eq!(s.page_writes, 16);
    assert_close!(s.hot10_page_write_share, 5.0 / 16.0);
    assert_close!(s.hot20_page_write_share, 8.0 / 16.0);
    // perfectly regular arrivals
    assert_close!(s.burstiness_cv, 0.0);
    assert_close!(s.mean_interarrival_us, 0.01);
    assert_eq!(s.read_share, Some(0.0));
    assert_eq!(s.mean_read_size_bytes, None);
    assert_eq!(s.sequential_read_share, None);
}

#[test]
fn stats_page_size_changes_pages_only() {
    // with 512-byte pages the second read (512..4608) touches 8 pages
    let s = TraceStats::compute(hand_records(), 512).unwrap();
    assert_eq!(s.page_bytes, 512);
    assert_eq!(s.read_requests, 2);
    assert_eq!(s.write_bytes, 17384);
    // reads: sectors {0} and {1..=8}; writes: {0..=7}, {8..=23}, {80, 81}
    assert_eq!(s.read_footprint_pages, 9);
    assert_eq!(s.write_footprint_pages, 8 + 16 + 2);
    assert_eq!(s.footprint_pages, 26);
    assert_eq!(s.footprint_bytes, 26 * 512);
    assert_eq!(s.page_writes, 8 + 16 + 8 + 2);
    assert_eq!(s.large_writes, 4);
}

#[test]
fn stats_of_empty_and_single() {
    let s = stats(&[]);
    assert_eq!(s.requests, 0);
    assert_eq!(s.footprint_bytes, 0);
    assert_eq!(s.duration_s, 0.0);
    assert_eq!(s.first_time_ns, None);
    for v in [
        s.read_share,
        s.write_share,
        s.read_byte_share,
        s.mean_read_size_bytes,
        s.mean_write_size_bytes,
        s.large_write_share,
        s.mean_interarrival_us,
        s.burstiness_cv,
        s.mean_iops,
        s.hot10_page_write_share,
        s.sequential_share,
    ] {
        assert_eq!(v, None);
    }
    // JSON: undefined ratios are null, not NaN
    let json = serde_json::to_value(&s).unwrap();
    assert!(json["read_share"].is_null());

    let s = stats(&[rec(5, Op::Read, 8192, 4096)]);
    assert_eq!(s.requests, 1);
    assert_eq!(s.read_share, Some(1.0));
    assert_eq!(s.duration_s, 0.0);
    assert_eq!(s.mean_interarrival_us, None);
    assert_eq!(s.burstiness_cv, None);
    assert_eq!(s.hot10_page_write_share, None);
    assert_eq!(s.footprint_pages, 1);
    assert_eq!(s.write_footprint_pages, 0);

    // all at the same instant: gaps of 0, burstiness undefined
    let s = stats(&[rec(5, Op::Read, 0, 512), rec(5, Op::Read, 0, 512)]);
    assert_close!(s.mean_interarrival_us, 0.0);
    assert_eq!(s.burstiness_cv, None);
    assert_eq!(s.mean_iops, None);
}

#[test]
fn stats_reject_bad_records_and_pass_errors_on() {
    let e = TraceStats::compute([rec(5, Op::Read, 0, 512), rec(4, Op::Read, 0, 512)], 4096)
        .unwrap_err()
        .to_string();
    assert!(e.contains("record 2") && e.contains("time order"), "{e}");
    let e = TraceStats::compute([rec(5, Op::Read, 0, 0)], 4096)
        .unwrap_err()
        .to_string();
    assert!(e.contains("record 1") && e.contains("size 0"), "{e}");
    let e = TraceStats::compute([rec(5, Op::Read, u64::MAX, 2)], 4096)
        .unwrap_err()
        .to_string();
    assert!(e.contains("beyond"), "{e}");
    assert!(TraceStats::compute(hand_records(), 0).is_err());
    // pages are counted one by one: a bogus huge request is refused, not
    // counted for hours
    let huge = rec(5, Op::Write, 0, 1 << 62);
    let e = TraceStats::compute([huge], 4096).unwrap_err().to_string();
    assert!(e.contains("record 1") && e.contains("pages"), "{e}");
    // the same request is 2^19 pages of 8 TiB: fine
    let s = TraceStats::compute([huge], 1 << 43).unwrap();
    assert_eq!(s.footprint_pages, 1 << 19);
    assert_eq!(s.footprint_bytes, 1 << 62);
    let items: Vec<ssdlab_workload::Result<IoRecord>> = vec![
        Ok(rec(1, Op::Read, 0, 512)),
        Err(Error::Invalid("boom".into())),
        Ok(rec(2, Op::Read, 0, 512)),
    ];
    let e = TraceStats::compute(items, 4096).unwrap_err().to_string();
    assert_eq!(e, "boom");
    // a refused record leaves the accumulator as it was
    let mut acc = StatsAccumulator::new(4096).unwrap();
    acc.add(&rec(10, Op::Write, 0, 4096)).unwrap();
    assert!(acc.add(&rec(9, Op::Write, 4096, 4096)).is_err());
    acc.add(&rec(11, Op::Write, 4096, 4096)).unwrap();
    let s = acc.finish();
    assert_eq!(s.requests, 2);
    assert_eq!(s.sequential_requests, 1);
    assert_eq!(s.mean_interarrival_us, Some(0.001));
}

#[test]
fn stats_page_writes_saturate_nowhere_near_small_traces() {
    // one page written many times: the counts are exact
    let recs: Vec<_> = (0..100_000).map(|i| rec(i, Op::Write, 0, 4096)).collect();
    let s = stats(&recs);
    assert_eq!(s.page_writes, 100_000);
    assert_eq!(s.hot10_page_write_share, Some(1.0));
    assert_eq!(s.sequential_requests, 0);
}

// ---------------------------------------------------------------------------
// stats against a straightforward recomputation

/// The statistics recomputed naively: sets and sorted vectors, no streaming.
fn naive(records: &[IoRecord], page: u64) -> TraceStats {
    let reads: Vec<&IoRecord> = records.iter().filter(|r| r.op == Op::Read).collect();
    let writes: Vec<&IoRecord> = records.iter().filter(|r| r.op == Op::Write).collect();
    let pages_of = |r: &IoRecord| (r.offset / page)..=((r.offset + r.size - 1) / page);
    let mut all = BTreeSet::new();
    let mut read_set = BTreeSet::new();
    let mut write_counts: BTreeMap<u64, u64> = BTreeMap::new();
    for r in records {
        for p in pages_of(r) {
            all.insert(p);
            match r.op {
                Op::Read => {
                    read_set.insert(p);
                }
                Op::Write => *write_counts.entry(p).or_default() += 1,
                Op::Trim => panic!("the reference statistics expect no trims: {r:?}"),
            }
        }
    }
    let ratio = |a: f64, b: f64| if b > 0.0 { Some(a / b) } else { None };
    let n = records.len() as f64;
    let rb: u64 = reads.iter().map(|r| r.size).sum();
    let wb: u64 = writes.iter().map(|r| r.size).sum();
    let page_writes: u64 = write_counts.values().sum();
    let large = writes.iter().filter(|r| pages_of(r).count() > 1).count() as u64;
    let mut counts: Vec<u64> = write_counts.values().copied().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let hot = |pct: usize| {
        if counts.is_empty() {
            return None;
        }
        let k = (counts.len() * pct).div_ceil(100);
        Some(counts[..k].iter().sum::<u64>() as f64 / page_writes as f64)
    };
    let gaps: Vec<f64> = records
        .windows(2)
        .map(|w| (w[1].time_ns - w[0].time_ns) as f64)
        .collect();
    let mean_gap = ratio(gaps.iter().sum(), gaps.len() as f64);
    let cv = mean_gap.filter(|&m| m > 0.0).map(|m| {
        let var = gaps.iter().map(|g| (g - m) * (g - m)).sum::<f64>() / gaps.len() as f64;
        var.sqrt() / m
    });
    let seq = |rs: &[&IoRecord]| {
        rs.windows(2)
            .filter(|w| w[1].offset == w[0].offset + w[0].size)
            .count() as u64
    };
    let (sr, sw) = (seq(&reads), seq(&writes));
    let duration_ns = match (records.first(), records.last()) {
        (Some(a), Some(b)) => b.time_ns - a.time_ns,
        _ => 0,
    };
    TraceStats {
        page_bytes: page,
        requests: records.len() as u64,
        read_requests: reads.len() as u64,
        write_requests: writes.len() as u64,
        trim_requests: 0,
        trim_bytes: 0,
        read_share: ratio(reads.len() as f64, n),
        write_share: ratio(writes.len() as f64, n),
        read_bytes: rb,
        write_bytes: wb,
        read_byte_share: ratio(rb as f64, (rb + wb) as f64),
        write_byte_share: ratio(wb as f64, (rb + wb) as f64),
        mean_read_size_bytes: ratio(rb as f64, reads.len() as f64),
        mean_write_size_bytes: ratio(wb as f64, writes.len() as f64),
        mean_write_size_pages: ratio(page_writes as f64, writes.len() as f64),
        large_writes: large,
        large_write_share: ratio(large as f64, writes.len() as f64),
        footprint_pages: all.len() as u64,
        footprint_bytes: all.len() as u64 * page,
        read_footprint_pages: read_set.len() as u64,
        read_footprint_bytes: read_set.len() as u64 * page,
        write_footprint_pages: write_counts.len() as u64,
        write_footprint_bytes: write_counts.len() as u64 * page,
        address_span_bytes: records.iter().map(|r| r.offset + r.size).max().unwrap_or(0),
        first_time_ns: records.first().map(|r| r.time_ns),
        last_time_ns: records.last().map(|r| r.time_ns),
        duration_s: duration_ns as f64 / 1e9,
        mean_interarrival_us: mean_gap.map(|g| g / 1e3),
        burstiness_cv: cv,
        mean_iops: ratio(gaps.len() as f64, duration_ns as f64 / 1e9),
        page_writes,
        hot10_page_write_share: hot(10),
        hot20_page_write_share: hot(20),
        sequential_requests: sr + sw,
        sequential_share: ratio((sr + sw) as f64, n),
        sequential_read_share: ratio(sr as f64, reads.len() as f64),
        sequential_write_share: ratio(sw as f64, writes.len() as f64),
    }
}

/// Equal up to floating-point rounding in the derived ratios.
fn assert_same(got: &TraceStats, want: &TraceStats) {
    let g = serde_json::to_value(got).unwrap();
    let w = serde_json::to_value(want).unwrap();
    let (g, w) = (g.as_object().unwrap(), w.as_object().unwrap());
    assert_eq!(g.keys().collect::<Vec<_>>(), w.keys().collect::<Vec<_>>());
    for (k, gv) in g {
        let wv = &w[k];
        match (gv.as_u64(), wv.as_u64()) {
            (Some(a), Some(b)) => assert_eq!(a, b, "{k}"),
            _ => match (gv.as_f64(), wv.as_f64()) {
                (Some(a), Some(b)) => {
                    assert!((a - b).abs() <= 1e-9 * b.abs().max(1e-9), "{k}: {a} vs {b}")
                }
                _ => assert_eq!(gv, wv, "{k}"),
            },
        }
    }
}

/// Counts of an MQSim file computed from its text alone.
fn mqsim_text_counts(path: &Path) -> (u64, u64, u64, u64, BTreeSet<u64>) {
    let text = std::fs::read_to_string(path).unwrap();
    let (mut reads, mut writes, mut rb, mut wb) = (0, 0, 0, 0);
    let mut pages = BTreeSet::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<u64> = line
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        let (lba, sectors, ty) = (f[2], f[3], f[4]);
        if ty == 1 {
            reads += 1;
            rb += sectors * 512;
        } else {
            writes += 1;
            wb += sectors * 512;
        }
        for p in (lba * 512 / 4096)..=((lba + sectors) * 512 - 1) / 4096 {
            pages.insert(p);
        }
    }
    (reads, writes, rb, wb, pages)
}

#[test]
fn stats_of_fixtures_match_a_recomputation() {
    for name in ["tpcc-head200.mqsim.trace", "wsrch-tail200.mqsim.trace"] {
        let path = fixture(name);
        let recs = read_all(&path, TraceFormat::Mqsim);
        let s = TraceStats::compute(
            Source::Trace {
                path: path.clone(),
                format: TraceFormat::Mqsim,
                options: TraceOptions::default(),
            }
            .open()
            .unwrap(),
            4096,
        )
        .unwrap();
        let (reads, writes, rb, wb, pages) = mqsim_text_counts(&path);
        assert_eq!(s.requests, 200, "{name}");
        assert_eq!(
            (
                s.read_requests,
                s.write_requests,
                s.read_bytes,
                s.write_bytes
            ),
            (reads, writes, rb, wb),
            "{name}"
        );
        assert_eq!(s.footprint_pages, pages.len() as u64, "{name}");
        assert_same(&s, &naive(&recs, 4096));
        assert_same(
            &TraceStats::compute(&recs, 512).unwrap(),
            &naive(&recs, 512),
        );
    }
    // the tpcc excerpt, pinned: 76 reads and 124 writes of 8 KiB or more
    let s = stats(&read_all(
        &fixture("tpcc-head200.mqsim.trace"),
        TraceFormat::Mqsim,
    ));
    assert_eq!((s.read_requests, s.write_requests), (76, 124));
    for name in ["msr-header.csv", "msr-noheader.csv"] {
        let recs = read_all(&fixture(name), TraceFormat::Msr);
        assert_same(&stats(&recs), &naive(&recs, 4096));
    }
}

#[test]
fn stats_of_generated_workload_follow_the_profile() {
    let p = Profile::from_toml(
        &std::fs::read_to_string(fixture("profile-zipf.toml")).unwrap(),
        "profile-zipf.toml",
    )
    .unwrap();
    let recs: Vec<IoRecord> = Generator::try_new(&p)
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    let s = stats(&recs);
    assert_same(&s, &naive(&recs, 4096));
    assert_eq!(s.requests, p.requests);
    // binomial: sd of the read share is sqrt(0.1 * 0.9 / 50000) = 0.0013
    assert!(
        (s.read_share.unwrap() - p.read_share).abs() < 0.007,
        "{s:?}"
    );
    // Poisson arrivals: burstiness near 1, rate near the profile's
    assert!((s.burstiness_cv.unwrap() - 1.0).abs() < 0.05, "{s:?}");
    assert!(
        (s.mean_iops.unwrap() / 50_000.0 - 1.0).abs() < 0.03,
        "{s:?}"
    );
    // zipf 0.99: heavily skewed writes
    assert!(s.hot10_page_write_share.unwrap() > 0.5, "{s:?}");
    assert!(s.footprint_bytes <= p.footprint_bytes);
}

// ---------------------------------------------------------------------------
// writers

/// DiskSim ASCII read back exactly (the decimal milliseconds parsed as
/// integers, not through a float), independently of the writer.
fn parse_disksim(text: &str) -> Vec<(u64, u32, IoRecord)> {
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!(f.len(), 5, "{l}");
            let (ms, frac) = f[0].split_once('.').unwrap();
            assert_eq!(frac.len(), 6, "{l}");
            let time_ns = ms.parse::<u64>().unwrap() * 1_000_000 + frac.parse::<u64>().unwrap();
            let op = match u32::from_str_radix(f[4], 16).unwrap() & 1 {
                1 => Op::Read,
                _ => Op::Write,
            };
            let r = rec(
                time_ns,
                op,
                f[2].parse::<u64>().unwrap() * 512,
                f[3].parse::<u64>().unwrap() * 512,
            );
            (time_ns, f[1].parse().unwrap(), r)
        })
        .collect()
}

fn to_bytes(records: &[IoRecord], format: Format, options: &WriteOptions) -> Vec<u8> {
    let mut out = Vec::new();
    writer::write_with(records, format, options, &mut out).unwrap();
    out
}

/// Read `bytes` back with the reader of `format` (through a file, as a user
/// would).
fn read_back(bytes: Vec<u8>, format: TraceFormat) -> Vec<IoRecord> {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trace-tools-tests/read-back");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!(
        "{}-{}.{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        format.name()
    ));
    std::fs::write(&path, bytes).unwrap();
    let got = read_all(&path, format);
    std::fs::remove_file(&path).unwrap();
    got
}

fn rebased(records: &[IoRecord]) -> Vec<IoRecord> {
    let t0 = records.first().map_or(0, |r| r.time_ns);
    records
        .iter()
        .map(|r| IoRecord {
            time_ns: r.time_ns - t0,
            ..*r
        })
        .collect()
}

/// Random valid records: non-decreasing times (multiples of `tick`, at most
/// `max_time`), offsets and sizes multiples of `unit`, ending at or below
/// 2^63. Values cluster both near 0 and across the whole range.
fn records_upto(tick: u64, unit: u64, max_time: u64) -> impl Strategy<Value = Vec<IoRecord>> {
    let max_units = (1u64 << 63) / unit;
    let max_ticks = max_time / tick;
    let one = (
        prop_oneof![0u64..1000, 0u64..=(max_ticks / 32)],
        any::<bool>(),
        prop_oneof![0u64..4096, 0u64..max_units],
        prop_oneof![1u64..=256, 1u64..=max_units],
    );
    (
        prop_oneof![Just(0u64), 0u64..=(max_ticks / 2), Just(max_ticks)],
        proptest::collection::vec(one, 0..40),
    )
        .prop_map(move |(start, items)| {
            let mut t = start;
            items
                .into_iter()
                .map(|(gap, read, off, len)| {
                    t = t.saturating_add(gap).min(max_ticks);
                    let offset = off.min(max_units - 1) * unit;
                    let size = len.min(max_units - offset / unit) * unit;
                    rec(
                        t * tick,
                        if read { Op::Read } else { Op::Write },
                        offset,
                        size,
                    )
                })
                .collect()
        })
}

/// Records up to the latest time a reader accepts (2^62 ns).
fn records(tick: u64, unit: u64) -> impl Strategy<Value = Vec<IoRecord>> {
    records_upto(tick, unit, ssdlab_workload::input::MAX_TIME_NS)
}

/// What reading back a written trace gives: the same records, rebased to
/// the first for MSR (whose reader rebases its absolute clock).
fn expected_back(recs: &[IoRecord], format: Format) -> Vec<IoRecord> {
    match format {
        Format::Msr => rebased(recs),
        _ => recs.to_vec(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn sector_formats_round_trip_losslessly(recs in records(1, 512), device in 0u32..5) {
        let opts = WriteOptions { device, ..WriteOptions::default() };
        for format in [Format::Mqsim, Format::Ssdsim, Format::Disksim] {
            let bytes = to_bytes(&recs, format, &opts);
            prop_assert_eq!(&read_back(bytes.clone(), format.reader()), &recs, "{:?}", format);
            // every line carries the device number
            let dev = device.to_string();
            let text = String::from_utf8(bytes).unwrap();
            let all_dev = text.lines().all(|l| l.split(' ').nth(1) == Some(dev.as_str()));
            prop_assert!(all_dev);
            if format == Format::Disksim {
                // and an independent exact parse of the decimal milliseconds agrees
                let got: Vec<IoRecord> = parse_disksim(&text).into_iter().map(|(_, _, r)| r).collect();
                prop_assert_eq!(&got, &recs);
            }
        }
    }

    #[test]
    fn msr_round_trip_is_lossless_up_to_rebasing(
        recs in records_upto(100, 1, MSR_MAX_TIME_NS),
        device in 0u32..5,
    ) {
        let opts = WriteOptions { device, ..WriteOptions::default() };
        let bytes = to_bytes(&recs, Format::Msr, &opts);
        prop_assert_eq!(read_back(bytes, TraceFormat::Msr), expected_back(&recs, Format::Msr));
    }

    #[test]
    fn stats_match_the_recomputation(recs in records(1, 512), page in prop_oneof![Just(4096u64), Just(512), 64u64..10_000]) {
        // keep the page count of each request small for the naive sets
        let recs: Vec<IoRecord> = recs.into_iter().map(|r| IoRecord { offset: r.offset % (1 << 40), size: r.size.min(1 << 16), ..r }).collect();
        let mut recs = recs;
        recs.sort_by_key(|r| r.time_ns);
        assert_same(&TraceStats::compute(&recs, page).unwrap(), &naive(&recs, page));
    }

    #[test]
    fn msr_floor_rounding_keeps_order_and_counts(recs in records_upto(1, 1, MSR_MAX_TIME_NS)) {
        let opts = WriteOptions { time_rounding: TimeRounding::Floor, ..WriteOptions::default() };
        let mut out = Vec::new();
        let s = writer::write_with(&recs, Format::Msr, &opts, &mut out).unwrap();
        let rounded = recs.iter().filter(|r| r.time_ns % 100 != 0).count() as u64;
        prop_assert_eq!(s.records, recs.len() as u64);
        prop_assert_eq!(s.rounded_times, rounded);
        let floored: Vec<IoRecord> = recs.iter().map(|r| IoRecord { time_ns: r.time_ns / 100 * 100, ..*r }).collect();
        prop_assert_eq!(read_back(out, TraceFormat::Msr), rebased(&floored));
    }
}

#[test]
fn fixtures_convert_between_formats_losslessly() {
    let dir = scratch("fixtures");
    let tpcc = read_all(&fixture("tpcc-head200.mqsim.trace"), TraceFormat::Mqsim);
    // MQSim -> MSR -> MQSim: exact but for the MSR rebasing (times are whole µs)
    let msr = dir.join("tpcc.csv");
    writer::write_file(&tpcc, Format::Msr, &WriteOptions::default(), &msr).unwrap();
    let back = read_all(&msr, TraceFormat::Msr);
    assert_eq!(back, rebased(&tpcc));
    let mq = dir.join("tpcc.trace.gz");
    let s = writer::write_file(&back, Format::Mqsim, &WriteOptions::default(), &mq).unwrap();
    assert_eq!(s.records, 200);
    assert_eq!(read_all(&mq, TraceFormat::Mqsim), rebased(&tpcc));
    // the .gz output really is gzip
    let mut magic = [0u8; 2];
    std::fs::File::open(&mq)
        .unwrap()
        .read_exact(&mut magic)
        .unwrap();
    assert_eq!(magic, [0x1f, 0x8b]);
    // written MSR times count 100 ns ticks from the Unix epoch in FILETIME:
    // the first record arrives at 938513000 ns
    let text = std::fs::read_to_string(&msr).unwrap();
    let first = MSR_EPOCH_TICKS + 9_385_130;
    assert!(
        text.starts_with(&format!("{first},ssdlab,0,Write,135536145408,8192,0\n")),
        "{}",
        &text[..60]
    );
    // MSR fixture -> MSR is byte-for-byte stable after one normalisation
    let m = read_all(&fixture("msr-header.csv"), TraceFormat::Msr);
    let a = to_bytes(&m, Format::Msr, &WriteOptions::default());
    let b = to_bytes(
        &read_back(a.clone(), TraceFormat::Msr),
        Format::Msr,
        &WriteOptions::default(),
    );
    assert_eq!(a, b);
    // the wsrch excerpt (absolute times) survives MQSim exactly
    let w = read_all(&fixture("wsrch-tail200.mqsim.trace"), TraceFormat::Mqsim);
    let bytes = to_bytes(&w, Format::Mqsim, &WriteOptions::default());
    assert_eq!(read_back(bytes, TraceFormat::Mqsim), w);
}

#[test]
fn writers_refuse_what_the_formats_cannot_hold() {
    let err = |recs: &[IoRecord], f: Format| {
        let mut out = Vec::new();
        writer::write(recs, f, &mut out).unwrap_err().to_string()
    };
    let ok = rec(0, Op::Read, 0, 512);
    // sector formats: unaligned offsets and sizes are errors naming the record
    for f in [Format::Mqsim, Format::Ssdsim, Format::Disksim] {
        let e = err(&[ok, rec(1, Op::Write, 1000, 512)], f);
        assert!(e.contains("record 2") && e.contains("offset 1000"), "{e}");
        assert!(e.contains(f.name()), "{e}");
        let e = err(&[rec(1, Op::Write, 1024, 4000)], f);
        assert!(e.contains("record 1") && e.contains("size 4000"), "{e}");
    }
    // MSR takes bytes but not times finer than 100 ns (unless asked to round)
    let mut out = Vec::new();
    assert!(writer::write([rec(0, Op::Read, 3, 5)], Format::Msr, &mut out).is_ok());
    let e = err(&[rec(150, Op::Read, 3, 5)], Format::Msr);
    assert!(e.contains("record 1") && e.contains("100 ns"), "{e}");
    let floor = WriteOptions {
        time_rounding: TimeRounding::Floor,
        ..WriteOptions::default()
    };
    let mut out = Vec::new();
    let s = writer::write_with(
        [rec(150, Op::Read, 3, 5), rec(299, Op::Read, 3, 5)],
        Format::Msr,
        &floor,
        &mut out,
    )
    .unwrap();
    assert_eq!(
        s,
        WriteSummary {
            records: 2,
            rounded_times: 2,
            max_rounding_ns: 99
        }
    );
    // MSR timestamps must count in 64-bit nanoseconds
    let mut out = Vec::new();
    writer::write(
        [rec(MSR_MAX_TIME_NS - 99, Op::Read, 0, 1)],
        Format::Msr,
        &mut out,
    )
    .unwrap();
    assert_eq!(
        read_back(out, TraceFormat::Msr),
        vec![rec(0, Op::Read, 0, 1)]
    );
    let e = err(&[rec(MSR_MAX_TIME_NS + 1, Op::Read, 0, 1)], Format::Msr);
    assert!(e.contains("record 1") && e.contains("latest"), "{e}");
    // what no reader accepts: size 0, beyond 2^63, time going backwards
    for &f in Format::ALL {
        assert!(err(&[rec(0, Op::Read, 0, 0)], f).contains("size is 0"));
        assert!(err(&[rec(0, Op::Read, 1 << 63, 512)], f).contains("2^63"));
        assert!(err(&[rec(0, Op::Read, (1 << 63) - 512, 1024)], f).contains("2^63"));
        let e = err(&[rec(500, Op::Read, 0, 512), rec(400, Op::Read, 0, 512)], f);
        assert!(e.contains("record 2") && e.contains("time order"), "{e}");
    }
    // the largest extent is fine
    let mut out = Vec::new();
    writer::write(
        [rec(0, Op::Read, (1 << 63) - 512, 512)],
        Format::Mqsim,
        &mut out,
    )
    .unwrap();
    // bad hostname
    let opts = WriteOptions {
        hostname: "a,b".into(),
        ..WriteOptions::default()
    };
    assert!(writer::write_with([ok], Format::Msr, &opts, Vec::new()).is_err());
    // input errors pass through
    let items: Vec<ssdlab_workload::Result<IoRecord>> =
        vec![Ok(ok), Err(Error::Invalid("boom".into()))];
    let e = writer::write(items, Format::Mqsim, Vec::new()).unwrap_err();
    assert_eq!(e.to_string(), "boom");
}

#[test]
fn write_file_leaves_nothing_behind_on_error_and_replaces_atomically() {
    let dir = scratch("atomic");
    let path = dir.join("out.trace");
    std::fs::write(&path, "old contents\n").unwrap();
    let bad = [rec(0, Op::Read, 0, 512), rec(1, Op::Read, 100, 512)];
    let e = writer::write_file(bad, Format::Mqsim, &WriteOptions::default(), &path)
        .unwrap_err()
        .to_string();
    assert!(e.contains("out.trace") && e.contains("record 2"), "{e}");
    // the old file is untouched and no temporary is left
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old contents\n");
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("out.trace")]);
    // converting a file onto itself works
    let good = dir.join("self.trace");
    std::fs::copy(fixture("tpcc-head200.mqsim.trace"), &good).unwrap();
    let src = Source::Trace {
        path: good.clone(),
        format: TraceFormat::Mqsim,
        options: TraceOptions::default(),
    };
    writer::write_file(
        src.open().unwrap(),
        Format::Mqsim,
        &WriteOptions::default(),
        &good,
    )
    .unwrap();
    assert_eq!(
        read_all(&good, TraceFormat::Mqsim),
        read_all(&fixture("tpcc-head200.mqsim.trace"), TraceFormat::Mqsim)
    );
    // a directory that does not exist: an I/O error naming the path
    let e = writer::write_file(
        &bad[..1],
        Format::Mqsim,
        &WriteOptions::default(),
        &dir.join("no/such/dir.trace"),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("no/such/dir.trace"), "{e}");
}

#[test]
fn format_names() {
    for name in Format::NAMES {
        assert_eq!(Format::parse(name).unwrap().name(), *name);
    }
    assert_eq!(Format::parse("MQSim").unwrap(), Format::Mqsim);
    let e = Format::parse("blk").unwrap_err().to_string();
    assert!(e.contains("mqsim, msr, disksim, ssdsim"), "{e}");
    for &f in Format::ALL {
        assert_eq!(Format::of(f.reader()).unwrap(), f);
        assert_eq!(f.reader().name(), f.name());
    }
    let e = Format::of(TraceFormat::Spc).unwrap_err().to_string();
    assert!(e.contains("spc") && e.contains("ssdsim"), "{e}");
}

#[test]
fn generated_profile_round_trips_through_every_format() {
    let p = Profile {
        name: "rt".into(),
        seed: 3,
        requests: 5_000,
        read_share: 0.4,
        footprint_bytes: 64 << 20,
        page_bytes: 4096,
        read_size: Some(SizeDist::uniform(4096, 16384)),
        write_size: Some(SizeDist::fixed(vec![4096, 65536])),
        address: Address::Zipf { theta: 0.8 },
        arrival: Arrival::Poisson { iops: 10_000.0 },
        latency_hint: None,
    };
    let recs: Vec<IoRecord> = Generator::try_new(&p)
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    for format in [Format::Mqsim, Format::Ssdsim, Format::Disksim] {
        let bytes = to_bytes(&recs, format, &WriteOptions::default());
        assert_eq!(read_back(bytes, format.reader()), recs, "{format:?}");
    }
    // statistics are the same whichever format carried the records
    let s = stats(&recs);
    assert_eq!(s.requests, 5_000);
    let floor = WriteOptions {
        time_rounding: TimeRounding::Floor,
        ..WriteOptions::default()
    };
    let msr = read_back(to_bytes(&recs, Format::Msr, &floor), TraceFormat::Msr);
    let sm = stats(&msr);
    assert_eq!(
        (
            sm.read_requests,
            sm.write_bytes,
            sm.footprint_pages,
            sm.hot10_page_write_share
        ),
        (
            s.read_requests,
            s.write_bytes,
            s.footprint_pages,
            s.hot10_page_write_share
        )
    );
}
