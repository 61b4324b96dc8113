//! Every real excerpt in the repository's `fixtures/traces/` (origins and
//! licences in its README.md) replays with default options: its
//! format is detected, every record is read, and the counts are the ones the
//! README states. Traces out of order are put in order by the default
//! reorder window; strict order (`--sort 0`) and a window too small fail
//! naming the flag that fixes them, and the flag they name works.

use std::path::Path;

use ssdlab_workload::{
    detect, open_trace, BlkparseAction, IoRecord, Op, ReadCounts, TraceFormat, TraceOptions,
    DEFAULT_SORT_WINDOW,
};

mod common;

use common::{real_dir, real_trace as real};

/// All records of `path` read with `options` (format detected), and the
/// reader's counts.
fn replay(path: &Path, options: &TraceOptions) -> (Vec<IoRecord>, ReadCounts) {
    let recs: Vec<IoRecord> = open_trace(path, TraceFormat::Auto, options)
        .unwrap()
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    (recs, options.counters.snapshot())
}

fn writes(recs: &[IoRecord]) -> usize {
    recs.iter().filter(|r| r.op == Op::Write).count()
}

fn sorted(recs: &[IoRecord]) -> bool {
    recs.windows(2).all(|w| w[0].time_ns <= w[1].time_ns)
}

fn first_error(path: &Path, options: &TraceOptions) -> String {
    open_trace(path, TraceFormat::Auto, options)
        .unwrap()
        .find_map(|r| r.err())
        .expect("an error")
        .to_string()
}

/// Every file of the directory is covered here, so a new excerpt needs a
/// line of this test.
#[test]
fn every_excerpt_is_covered() {
    let mut names: Vec<String> = std::fs::read_dir(real_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "README.md")
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "financial1-first10k.ssdsim.trace",
            "hadoop-blkparse-sample.txt",
            "hm_0-sample.msr.csv",
            "systor17-sample.csv",
            "tencent-cbs-sample.csv",
            "tpcc-small.mqsim.trace",
            "wsrch-small.mqsim.trace",
        ]
    );
}

#[test]
fn in_order_excerpts_read_fully_with_defaults() {
    // (file, detected format, records, writes)
    let cases = [
        // SSDSim and MQSim share the layout; detection answers mqsim
        (
            "financial1-first10k.ssdsim.trace",
            TraceFormat::Mqsim,
            10_000,
            5_922,
        ),
        ("hm_0-sample.msr.csv", TraceFormat::Msr, 1_000, 492),
        ("tpcc-small.mqsim.trace", TraceFormat::Mqsim, 6_999, 2_618),
        ("wsrch-small.mqsim.trace", TraceFormat::Mqsim, 24_783, 4),
        // the D (issue) events
        ("hadoop-blkparse-sample.txt", TraceFormat::Blkparse, 170, 92),
    ];
    for (name, format, records, write_count) in cases {
        let path = real(name);
        assert_eq!(detect::detect(&path).unwrap(), format, "{name}");
        let o = TraceOptions::default();
        let (recs, c) = replay(&path, &o);
        assert_eq!(recs.len(), records, "{name}");
        assert_eq!(writes(&recs), write_count, "{name}");
        assert_eq!(
            (c.records, c.reordered, c.bad_lines),
            (records as u64, 0, 0),
            "{name}"
        );
        assert!(sorted(&recs), "{name}");
        // in order already: strict order reads the same records
        let strict = TraceOptions {
            sort_window: Some(0),
            ..TraceOptions::default()
        };
        assert_eq!(replay(&path, &strict).0, recs, "{name}");
    }
    // financial1 read as SSDSim (its own format) is the same trace
    let path = real("financial1-first10k.ssdsim.trace");
    let ssdsim: Vec<IoRecord> = open_trace(&path, TraceFormat::Ssdsim, &TraceOptions::default())
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(ssdsim, replay(&path, &TraceOptions::default()).0);
    // the Hadoop excerpt's 15,524 Q (queue) events
    let q = TraceOptions {
        blkparse_action: BlkparseAction::Queue,
        ..TraceOptions::default()
    };
    let (recs, _) = replay(&real("hadoop-blkparse-sample.txt"), &q);
    assert_eq!(recs.len(), 15_524);
}

#[test]
fn out_of_order_excerpts_are_put_in_order_by_default() {
    // (file, records, writes, records put back in order, smallest window that works)
    let cases = [
        ("systor17-sample.csv", 999, 173, 287, 16),
        ("tencent-cbs-sample.csv", 50_000, 25_479, 1_297, 25_640),
    ];
    for (name, records, write_count, reordered, needed) in cases {
        let path = real(name);
        let o = TraceOptions::default();
        let (recs, c) = replay(&path, &o);
        assert_eq!(recs.len(), records, "{name}");
        assert_eq!(writes(&recs), write_count, "{name}");
        assert_eq!(c.reordered, reordered, "{name}");
        assert!(sorted(&recs), "{name}");
        assert!(c
            .to_string()
            .contains(&format!("{reordered} records put back in time order")));
        assert!(needed <= DEFAULT_SORT_WINDOW);
        // the smallest window that works gives the same records; one less fails
        let exact = TraceOptions {
            sort_window: Some(needed),
            ..TraceOptions::default()
        };
        assert_eq!(replay(&path, &exact).0, recs, "{name}");
        let short = TraceOptions {
            sort_window: Some(needed - 1),
            ..TraceOptions::default()
        };
        let e = first_error(&path, &short);
        assert!(
            e.contains(&format!("reorder window of {} records", needed - 1))
                && e.contains("field `timestamp`")
                && e.contains("use a larger window, e.g. --sort 65536"),
            "{name}: {e}"
        );
        // strict order fails at the first step back, naming the flag
        let strict = TraceOptions {
            sort_window: Some(0),
            ..TraceOptions::default()
        };
        let e = first_error(&path, &strict);
        assert!(
            e.contains("timestamps go backwards")
                && e.contains("leave out --sort 0 to use the default reorder window of 65536"),
            "{name}: {e}"
        );
        assert!(e.contains(&format!("{name}:")), "{e}");
    }
}
