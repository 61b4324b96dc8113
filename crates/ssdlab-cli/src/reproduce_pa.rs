//! `ssdlab reproduce pa`: the evaluation of Zhang, Cao, Jiang, Yao,
//! "Improving Overall Performance of TLC SSD by Exploiting Dissimilarity of
//! Flash Pages" (PA-SSD), IEEE TPDS 31(1), 2020 (§6), on its eight
//! workloads: the conventional SSD against PA-SSD with six page-type
//! specifying schemes, then five of them with PAS; Figs. 13–17 and Table 3,
//! our figures beside the paper's, written as the sweep writes its results.
//!
//! The drive is `pa-tlc` aged as the paper ages it (SSDSim's `make_aged`:
//! 70 % of every plane written and invalid; `fill:0.7:0`, then the reads'
//! pages mapped) with GC at 30 % free. The workloads are the built-in
//! `pa/*` profiles; on `--quick`'s smaller drive their footprints and
//! request counts scale with the logical capacity, and each is replayed
//! twice, the second pass measured: allocation by page type starts with
//! empty type pools, a warm-up of about the same number of requests on any
//! drive size, which would weigh 8 times as much in a run 1/8 as long.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;

use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Report};

use crate::results::CsvRow;
use crate::scoreboard::{explained, Figure, Paper, Scale, Scoreboard};
use crate::sweep::{mean_defined, pct, ratio, sanitise, select, write, Grid, MetricFn, Row};

#[derive(Args)]
pub struct PaArgs {
    /// Output directory (runs/, results.csv, timeseries.csv, summary.md, charts/).
    #[arg(long, default_value = "reproduce-pa")]
    out: PathBuf,
    /// A run 1/8 the size of the full one: `pa-tlc` with 1/8 of its blocks
    /// per plane, each workload's footprint and request count scaled alike,
    /// each workload replayed twice and its second pass measured.
    #[arg(long)]
    quick: bool,
    #[command(flatten)]
    batch: crate::batch::BatchArgs,
    /// Workloads, comma-separated (default: all eight): tFin, tRA, tDAP,
    /// tRBESS, tDTR, tExch, tMSFS, tBS.
    #[arg(long, value_delimiter = ',')]
    workloads: Vec<String>,
    /// At most this many requests per workload (after scaling).
    #[arg(long)]
    limit: Option<u64>,
    /// Override one configuration key of every run (after the scheme's
    /// settings), e.g. `--set host.time_scale=0.25` for arrivals four times
    /// as fast (sensitivity studies). Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
}

impl PaArgs {
    /// Every experiment of the paper into `out` (`ssdlab reproduce all`).
    pub(crate) fn all(out: PathBuf, quick: bool, batch: crate::batch::BatchArgs) -> Self {
        PaArgs {
            out,
            quick,
            batch,
            workloads: Vec::new(),
            limit: None,
            sets: Vec::new(),
        }
    }
}

const QUICK_SCALE: u64 = 8;
const PRECONDITION: &str = "fill:0.7:0+trace-reads";
const THRESHOLD: &str = "gc.threshold={percent=30.0}";
/// Fig. 16's intervals: 15 minutes of simulated time.
const QUARTER_MS: &str = "metrics.interval_ms=900000.0";

/// Light to heavy, the paper's order; Table 3 per workload (PAS's write
/// response time reduction for sU, sSB+sU, sSB+sUB, sQD+sU, sQD+sUB).
const WORKLOADS: [(&str, [f64; 5]); 8] = [
    ("tFin", [0.0, 0.0, 0.0, 0.0, 0.0]),
    ("tRA", [2.0, 7.0, 7.0, 2.0, 2.0]),
    ("tDAP", [21.0, 25.0, 25.0, 13.0, 13.0]),
    ("tRBESS", [60.0, 76.0, 71.0, 7.0, 7.0]),
    ("tDTR", [40.0, 47.0, 33.0, 9.0, 30.0]),
    ("tExch", [44.0, 67.0, 70.0, 22.0, 25.0]),
    ("tMSFS", [42.0, 51.0, 78.0, 1.0, 11.0]),
    ("tBS", [33.0, 50.0, 47.0, 38.0, 45.0]),
];
/// Table 3's averages.
const TABLE3_AVG: [f64; 5] = [30.0, 40.0, 41.0, 11.0, 17.0];

/// The registered schemes compared, baseline first; with the paper's
/// average write / read response time change against the baseline where
/// it gives one (Fig. 13, §6.1), in percent.
const SCHEMES: [(&str, &str, Option<f64>, Option<f64>); 12] = [
    ("baseline", "pa-baseline", None, None),
    ("sU", "pa-su", Some(-10.0), Some(-18.0)),
    ("sLF", "pa-slf", Some(-85.0), Some(-42.0)),
    ("sSB+sU", "pa-ssb-su", Some(-54.0), Some(-36.0)),
    ("sSB+sUB", "pa-ssb-sub", None, None),
    ("sQD+sU", "pa-sqd-su", Some(-60.0), Some(-45.0)),
    ("sQD+sUB", "pa-sqd-sub", None, None),
    ("sU+PAS", "pa-su-pas", None, None),
    ("sSB+sU+PAS", "pa-ssb-su-pas", None, None),
    ("sSB+sUB+PAS", "pa-ssb-sub-pas", None, None),
    ("sQD+sU+PAS", "pa-sqd-su-pas", None, None),
    ("sQD+sUB+PAS", "pa-sqd-sub-pas", Some(-61.5), Some(-33.3)),
];
/// The five schemes with PAS, and the index of each one's scheme without.
const PAS_PAIRS: [(usize, usize); 5] = [(7, 1), (8, 3), (9, 4), (10, 5), (11, 6)];

const METRICS: [(&str, &str, MetricFn); 6] = [
    (
        "write_latency_mean",
        "Write response time, mean (us)",
        |r| r.write.latency_us.mean,
    ),
    ("read_latency_mean", "Read response time, mean (us)", |r| {
        r.read.latency_us.mean
    }),
    (
        "write_latency_stddev",
        "Write response time, standard deviation (us)",
        |r| r.write.latency_us.stddev,
    ),
    (
        "slow_write_share",
        "Slow writes (some MSB page), share",
        |r| slow_share(r),
    ),
    (
        "allocation_success",
        "Host pages that got their page type, share",
        |r| {
            r.page_type_allocation
                .as_ref()
                .map_or(0.0, |a| a.host_success_rate)
        },
    ),
    ("gc_count", "GC count", |r| r.gc.count as f64),
];

fn slow_share(r: &Report) -> f64 {
    let w = &r.write_speed;
    let n = (w.fast + w.medium + w.slow) as f64;
    if n == 0.0 {
        0.0
    } else {
        w.slow as f64 / n
    }
}

fn speed_shares(r: &Report) -> [f64; 3] {
    let w = &r.write_speed;
    let n = ((w.fast + w.medium + w.slow) as f64).max(1.0);
    [w.fast as f64 / n, w.medium as f64 / n, w.slow as f64 / n]
}

/// Workload `name` (a `pa/` profile) sized for `drive`: footprint and
/// request count scaled by its logical capacity over the reference drive's;
/// at most `limit` requests.
fn workload_for(name: &str, drive: &Config, limit: Option<u64>) -> Result<(Source, String)> {
    crate::sweep::scaled_profile(&format!("pa/{name}"), "pa-tlc", drive, limit)
}

/// The request count of a workload (a profile).
fn requests_of(source: &Source) -> u64 {
    match source {
        Source::Synthetic(p) => p.requests,
        _ => unreachable!("a profile"),
    }
}

struct Sim {
    /// "main" (Figs. 13–16, Table 3) or "replay3" (Fig. 17).
    exp: &'static str,
    workload: usize,
    scheme: usize,
    job: crate::batch::Job,
}

/// The command line of a run, as its scoreboard names it.
fn command_line(a: &PaArgs) -> String {
    let mut c = String::from("ssdlab reproduce pa");
    if a.quick {
        c.push_str(" --quick");
    }
    if !a.workloads.is_empty() {
        let _ = write!(c, " --workloads {}", a.workloads.join(","));
    }
    if let Some(l) = a.limit {
        let _ = write!(c, " --limit {l}");
    }
    for o in &a.sets {
        let _ = write!(c, " --set {o}");
    }
    c
}

/// Where the evidence for each kind of difference is.
const CAUSE_LOAD: &str = "sQD and PAS act only where requests queue; Table 2 gives no arrival \
rates and the paper's SSDSim runs one page program per chip at a time: a sweep of both \
(host.time_scale; one page per chip) moves these figures towards the paper's: \
docs/fidelity.md, PA-SSD, \"Load: sQD and PAS\"";
const CAUSE_READS: &str = "reads wait for the programs ahead of them; the look-alikes' \
read/write mix and timing are assumptions: docs/fidelity.md, PA-SSD, \"Reads\"";
const CAUSE_LSB: &str = "the look-alikes write a few GiB to the 288 GiB drive, so LSB pages \
never run out: docs/fidelity.md, PA-SSD, \"LSB pages never run out\"";
const CAUSE_FEW: &str = "within tolerance in the full and the quick run; a run of a few \
requests (--limit) has too few writes for it: docs/fidelity.md, PA-SSD, \"Our figures beside \
the paper's\"";
const CAUSE_ALLOC: &str = "the quick run's two passes write twice the full run's share of its \
drive, and on tMSFS the free pages of the wanted types run short (the full run: above 99 %): \
docs/fidelity.md, PA-SSD, \"Allocation success (Fig. 15)\"";

/// PAS's reduction of the mean write response time (percent) of scheme
/// `with` against `without` on workload `k`.
fn pas_cut(r_with: &Report, r_without: &Report) -> Option<f64> {
    ratio(
        r_with.write.latency_us.mean,
        r_without.write.latency_us.mean,
    )
    .map(|r| (1.0 - r) * 100.0)
}

/// The scoreboard: every figure the run compares (Figs. 13–17, Table 3,
/// §6's figures) and the paper's conclusions it can decide.
fn scoreboard<'r>(
    command: &str,
    quick: bool,
    chosen: &[usize],
    main: &dyn Fn(usize, usize) -> &'r Report,
    replay3: &dyn Fn(usize) -> Option<&'r Report>,
) -> Scoreboard {
    let mut b = Scoreboard::new("PA-SSD", command, quick);
    let write: MetricFn = |r| r.write.latency_us.mean;
    let read: MetricFn = |r| r.read.latency_us.mean;
    let change = |k: usize, s: usize, f: MetricFn| {
        ratio(f(main(k, s)), f(main(k, 0))).map(|r| (r - 1.0) * 100.0)
    };
    let mean_over =
        |ks: &[usize], s: usize, f: MetricFn| mean_defined(ks.iter().map(|&k| change(k, s, f)));
    let find = |n: &str| chosen.iter().copied().find(|&k| WORKLOADS[k].0 == n);
    let all = chosen.len() == WORKLOADS.len();
    // Fig. 13: the averages over the eight workloads.
    for (s, (label, _, pw, pr)) in SCHEMES.iter().enumerate() {
        for (paper, f, what, fig) in [
            (pw, write, "write", "Fig. 13a"),
            (pr, read, "read", "Fig. 13b"),
        ] {
            let (Some(p), Some(o)) = (paper, mean_over(chosen, s, f)) else {
                continue;
            };
            let cause = if label.starts_with("sQD") {
                CAUSE_LOAD
            } else if what == "read" {
                CAUSE_READS
            } else {
                CAUSE_LSB
            };
            b.figure(explained(
                Figure::new(
                    fig,
                    format!("{what} response time, {label} against the baseline, mean over the workloads"),
                    "%",
                    Scale::Percent,
                    Paper::Value(*p),
                    o,
                ),
                cause,
            ));
        }
    }
    // §6.1: sQD+sUB against sQD+sU on the light and the heavy workloads,
    // and against the baseline on tMSFS.
    let (sqd_su, sqd_sub) = (5usize, 6usize);
    let light: Vec<usize> = ["tFin", "tRA", "tDAP", "tRBESS", "tDTR", "tExch"]
        .iter()
        .filter_map(|n| find(n))
        .collect();
    let heavy: Vec<usize> = ["tMSFS", "tBS"].iter().filter_map(|n| find(n)).collect();
    let sub_vs_su = |ks: &[usize]| {
        mean_defined(ks.iter().map(|&k| {
            ratio(write(main(k, sqd_sub)), write(main(k, sqd_su))).map(|r| (r - 1.0) * 100.0)
        }))
    };
    for (ks, p, which) in [
        (&light, 6.0, "the light workloads (tFin to tExch)"),
        (&heavy, -56.0, "the heavy workloads (tMSFS, tBS)"),
    ] {
        if ks.is_empty() {
            continue;
        }
        if let Some(o) = sub_vs_su(ks) {
            b.figure(explained(
                Figure::new(
                    "§6.1, Fig. 13a",
                    format!("write response time, sQD+sUB against sQD+sU, mean over {which}"),
                    "%",
                    Scale::Percent,
                    Paper::Value(p),
                    o,
                ),
                CAUSE_LOAD,
            ));
        }
    }
    if let Some(k) = find("tMSFS") {
        if let Some(o) = change(k, sqd_sub, write) {
            b.figure(explained(
                Figure::new(
                    "§6.1, Fig. 13a",
                    "write response time, sQD+sUB against the baseline, tMSFS",
                    "%",
                    Scale::Percent,
                    Paper::Value(-99.0),
                    o,
                ),
                CAUSE_LOAD,
            ));
        }
    }
    // Fig. 14: tDAP's write speeds under sU.
    if let Some(k) = find("tDAP") {
        let [fast, _, slow] = speed_shares(main(k, 1));
        for (what, p, o) in [("fast", 34.0, fast), ("slow", 33.0, slow)] {
            b.figure(explained(
                Figure::new(
                    "Fig. 14",
                    format!(
                        "{what} writes (all LSB / some MSB), share of sU's write requests, tDAP"
                    ),
                    "%",
                    Scale::Percent,
                    Paper::Value(p),
                    o * 100.0,
                ),
                CAUSE_FEW,
            ));
        }
    }
    // Fig. 15: above 98 % for the five schemes other than sLF.
    for (s, (label, ..)) in SCHEMES.iter().enumerate().skip(1).take(6) {
        if *label == "sLF" {
            continue;
        }
        let rates: Vec<Option<f64>> = chosen
            .iter()
            .map(|&k| {
                main(k, s)
                    .page_type_allocation
                    .as_ref()
                    .map(|a| a.host_success_rate * 100.0)
            })
            .collect();
        if let Some(o) = mean_defined(rates) {
            b.figure(explained(
                Figure::new(
                    "Fig. 15",
                    format!(
                        "host pages that got their page type, {label}, mean over the workloads"
                    ),
                    "%",
                    Scale::Percent,
                    Paper::AtLeast(98.0),
                    o,
                ),
                CAUSE_ALLOC,
            ));
        }
    }
    // Table 3, per workload and on average.
    for (i, &(with, without)) in PAS_PAIRS.iter().enumerate() {
        let label = SCHEMES[with].0;
        let mut cuts = vec![];
        for &k in chosen {
            let cut = pas_cut(main(k, with), main(k, without));
            cuts.push(cut);
            if let Some(o) = cut {
                b.figure(explained(
                    Figure::new(
                        "Table 3",
                        format!(
                            "write response time reduction by PAS, {label}, {}",
                            WORKLOADS[k].0
                        ),
                        "%",
                        Scale::Percent,
                        Paper::Value(WORKLOADS[k].1[i]),
                        o,
                    ),
                    CAUSE_LOAD,
                ));
            }
        }
        if all {
            if let Some(o) = mean_defined(cuts) {
                b.figure(explained(
                    Figure::new(
                        "Table 3",
                        format!("write response time reduction by PAS, {label}, average"),
                        "%",
                        Scale::Percent,
                        Paper::Value(TABLE3_AVG[i]),
                        o,
                    ),
                    CAUSE_LOAD,
                ));
            }
        }
    }
    // §6.2: PAS and the spread of write response times.
    let sd: MetricFn = |r| r.write.latency_us.stddev;
    let sd_cut = mean_defined(
        chosen
            .iter()
            .map(|&k| ratio(sd(main(k, 11)), sd(main(k, 6))).map(|r| (r - 1.0) * 100.0)),
    );
    if let Some(o) = sd_cut {
        b.figure(explained(
            Figure::new(
                "§6.2",
                "standard deviation of write response time, sQD+sUB+PAS against sQD+sUB, mean over the workloads",
                "%",
                Scale::Percent,
                Paper::Value(-55.0),
                o,
            ),
            CAUSE_LOAD,
        ));
    }
    // Fig. 16a: tFin.
    if let Some(k) = find("tFin") {
        if let Some(o) = change(k, 1, write) {
            b.figure(explained(
                Figure::new(
                    "Fig. 16a",
                    "write response time, sU against the baseline, tFin",
                    "%",
                    Scale::Percent,
                    Paper::Value(-13.0),
                    o,
                ),
                CAUSE_FEW,
            ));
        }
        b.figure(explained(
            Figure::new(
                "Fig. 16a",
                "the baseline's write response time above the mean program latency (2.6 ms), tFin",
                "%",
                Scale::Percent,
                Paper::Value(21.0),
                (write(main(k, 0)) / 2600.0 - 1.0) * 100.0,
            ),
            CAUSE_LOAD,
        ));
    }
    // Fig. 17: the third replay of tMSFS.
    if replay3(0).is_some() {
        let r3 = |s: usize| replay3(s).expect("every replay of Fig. 17 ran");
        for (s, p) in [(2usize, -66.0), (5, -79.0), (6, -93.0)] {
            if let Some(o) = ratio(write(r3(s)), write(r3(0))).map(|r| (r - 1.0) * 100.0) {
                b.figure(explained(
                    Figure::new(
                        "Fig. 17",
                        format!(
                            "write response time, {} against the baseline, third replay of tMSFS",
                            SCHEMES[s].0
                        ),
                        "%",
                        Scale::Percent,
                        Paper::Value(p),
                        o,
                    ),
                    if s == 2 { CAUSE_LSB } else { CAUSE_LOAD },
                ));
            }
        }
    }
    pa_conclusions(&mut b, chosen, main, replay3, &light, &heavy);
    b
}

/// A conclusion, with where the evidence for the difference is when our
/// figures do not hold it.
fn conclude(
    b: &mut Scoreboard,
    statement: impl Into<String>,
    held: bool,
    evidence: impl Into<String>,
    why: &str,
) {
    let evidence = evidence.into();
    let evidence = if held {
        evidence
    } else {
        format!("{evidence}; why: {why}")
    };
    b.conclusion(statement, held, evidence);
}

/// The paper's conclusions that the chosen workloads can decide.
fn pa_conclusions<'r>(
    b: &mut Scoreboard,
    chosen: &[usize],
    main: &dyn Fn(usize, usize) -> &'r Report,
    replay3: &dyn Fn(usize) -> Option<&'r Report>,
    light: &[usize],
    heavy: &[usize],
) {
    let write: MetricFn = |r| r.write.latency_us.mean;
    let name = |k: usize| WORKLOADS[k].0;
    let find = |n: &str| chosen.iter().copied().find(|&k| WORKLOADS[k].0 == n);
    if chosen.is_empty() {
        return;
    }
    // sLF lowest among the six schemes without PAS, except on the two heaviest.
    let not_lowest: Vec<&str> = chosen
        .iter()
        .copied()
        .filter(|&k| !heavy.contains(&k))
        .filter(|&k| (1..7).any(|s| s != 2 && write(main(k, s)) < write(main(k, 2))))
        .map(name)
        .collect();
    conclude(
            b,
        "sLF has the lowest write response time of the schemes under most workloads, except the two heaviest, tMSFS and tBS (§6.1)",
        not_lowest.is_empty(),
        if not_lowest.is_empty() {
            "sLF lowest of the six schemes without PAS on every workload but tMSFS and tBS".to_string()
        } else {
            format!("sLF not lowest on {}", not_lowest.join(", "))
        },
            CAUSE_LOAD,
        );
    let longer: Vec<&str> = chosen
        .iter()
        .copied()
        .filter(|&k| write(main(k, 4)) > write(main(k, 0)))
        .map(name)
        .collect();
    conclude(
        b,
        "sSB+sUB's write response time is longer than the baseline's in some cases (§6.1)",
        !longer.is_empty(),
        if longer.is_empty() {
            "sSB+sUB below the baseline on every workload".to_string()
        } else {
            format!("longer on {}", longer.join(", "))
        },
        CAUSE_LSB,
    );
    let lights: Vec<usize> = ["tFin", "tRA"].iter().filter_map(|n| find(n)).collect();
    if !lights.is_empty() {
        let gaps: Vec<String> = lights
            .iter()
            .map(|&k| {
                format!(
                    "{} {}",
                    name(k),
                    pct(ratio(write(main(k, 5)), write(main(k, 1))).map(|r| (r - 1.0) * 100.0))
                )
            })
            .collect();
        let held = lights.iter().all(|&k| {
            ratio(write(main(k, 5)), write(main(k, 1))).is_some_and(|r| (r - 1.0).abs() <= 0.05)
        });
        conclude(
            b,
            "on the light workloads (tFin, tRA) sQD+sU's write response time is like sU's: the queue seldom passes the threshold (§6.1)",
            held,
            format!("sQD+sU against sU: {}", gaps.join(", ")),
            CAUSE_LOAD,
        );
    }
    if !heavy.is_empty() && !light.is_empty() {
        let change = |k: usize, s: usize| {
            ratio(write(main(k, s)), write(main(k, 0))).map(|r| (r - 1.0) * 100.0)
        };
        let h = mean_defined(heavy.iter().map(|&k| change(k, 5)));
        let l = mean_defined(light.iter().map(|&k| change(k, 5)));
        conclude(
            b,
            "sQD+sU gains most on the heaviest workloads, tMSFS and tBS (§6.1: \"extremely low write and read response times\")",
            matches!((h, l), (Some(h), Some(l)) if h < l - 15.0),
            format!(
                "sQD+sU against the baseline, write: heavy {}, light {}",
                pct(h),
                pct(l)
            ),
            CAUSE_LOAD,
        );
    }
    if let Some(k) = find("tDAP") {
        let [_, _, base_slow] = speed_shares(main(k, 0));
        let [bf, bm, _] = speed_shares(main(k, 0));
        let worst = (1..7)
            .map(|s| speed_shares(main(k, s))[2])
            .fold(0.0, f64::max);
        conclude(
            b,
            "PA-SSD keeps slow writes the smallest group, at most a third, where the baseline's slow writes are its largest group (Fig. 14, tDAP)",
            worst <= 1.0 / 3.0 + 0.005 && base_slow > bf.max(bm),
            format!(
                "the baseline's fast / medium / slow: {:.1} / {:.1} / {:.1} %; the most slow writes of a PA-SSD scheme: {:.1} %",
                bf * 100.0,
                bm * 100.0,
                base_slow * 100.0,
                worst * 100.0
            ),
            CAUSE_LSB,
        );
    }
    let success = |s: usize| {
        mean_defined(chosen.iter().map(|&k| {
            main(k, s)
                .page_type_allocation
                .as_ref()
                .map(|a| a.host_success_rate * 100.0)
        }))
        .unwrap_or(0.0)
    };
    let slf = success(2);
    let others = (1..7)
        .filter(|&s| s != 2)
        .map(success)
        .fold(100.0, f64::min);
    conclude(
        b,
        "sLF has the lowest allocation success, from its greed for LSB pages (Fig. 15, §6.3)",
        slf < others,
        format!("sLF {slf:.1} %, the lowest of the other five {others:.1} %"),
        CAUSE_LSB,
    );
    let gcs = |k: usize, s: usize| main(k, s).gc.count as f64;
    let spread = chosen
        .iter()
        .flat_map(|&k| (1..7).map(move |s| (k, s)))
        .filter_map(|(k, s)| ratio(gcs(k, s), gcs(k, 0)).map(|r| (r - 1.0).abs() * 100.0))
        .fold(0.0, f64::max);
    conclude(
            b,
        "every page-type specifying scheme runs nearly as many GCs as the baseline, within 1 % (§6.1)",
        spread <= 1.0,
        format!("largest difference from the baseline's GC count: {spread:.1} %"),
            CAUSE_ALLOC,
        );
    let cuts: Vec<(usize, Option<f64>)> = PAS_PAIRS
        .iter()
        .map(|&(with, without)| {
            (
                with,
                mean_defined(
                    chosen
                        .iter()
                        .map(|&k| pas_cut(main(k, with), main(k, without))),
                ),
            )
        })
        .collect();
    let show = cuts
        .iter()
        .map(|(s, c)| {
            format!(
                "{} {}",
                SCHEMES[*s].0,
                c.map_or("n/a".into(), |c| format!("{c:.1} %"))
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let cut = |i: usize| cuts[i].1.unwrap_or(f64::NAN);
    conclude(
            b,
        "PAS helps with sSB (40, 41 %) more than with sU (30 %), and with sU more than with sQD (11, 17 %) (Table 3)",
        cut(1).min(cut(2)) > cut(0) && cut(0) > cut(3).max(cut(4)),
        format!("mean reduction by PAS: {show}"),
            CAUSE_LOAD,
        );
    if !lights.is_empty() && !heavy.is_empty() {
        let at = |ks: &[usize]| mean_defined(ks.iter().map(|&k| pas_cut(main(k, 7), main(k, 1))));
        let heavies: Vec<usize> = ["tDTR", "tExch", "tMSFS"]
            .iter()
            .filter_map(|n| find(n))
            .collect();
        let (l, h) = (at(&lights), at(&heavies));
        conclude(
            b,
            "PAS brings little on the light workloads (tFin, tRA: one or two sub-requests queued) and over 40 % with sU on the heavy ones (tDTR, tExch, tMSFS) (§6.2)",
            matches!((l, h), (Some(l), Some(h)) if l < 5.0 && h > 40.0),
            format!(
                "sU+PAS against sU: light {}, heavy {}",
                l.map_or("n/a".into(), |x| format!("{x:.1} %")),
                h.map_or("n/a".into(), |x| format!("{x:.1} %"))
            ),
            CAUSE_LOAD,
        );
    }
    for n in ["tFin", "tMSFS"] {
        let Some(k) = find(n) else { continue };
        let least = main(k, 2)
            .timeseries
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .filter_map(|iv| iv.free_lsb_pages)
            .min();
        conclude(
            b,
            format!("under sLF the free LSB pages run out during {n} and its write response time rises (§6.3, Fig. 16)"),
            least == Some(0),
            format!(
                "fewest free LSB pages at the end of a quarter under sLF, {n}: {}",
                least.map_or("n/a".into(), |l| l.to_string())
            ),
            CAUSE_LSB,
        );
    }
    if replay3(0).is_some() {
        let r3 = |s: usize| replay3(s).expect("every replay of Fig. 17 ran");
        let c = |s: usize| ratio(write(r3(s)), write(r3(0))).map(|r| (r - 1.0) * 100.0);
        let (slf, su, sub) = (c(2), c(5), c(6));
        conclude(
            b,
            "with the LSB pages used up (third replay of tMSFS), sLF, sQD+sU and sQD+sUB still beat the baseline, sQD+sUB most (Fig. 17)",
            matches!((slf, su, sub), (Some(a), Some(b2), Some(c2)) if a < 0.0 && b2 < 0.0 && c2 < a.min(b2)),
            format!("write against the baseline: sLF {}, sQD+sU {}, sQD+sUB {}", pct(slf), pct(su), pct(sub)),
            CAUSE_LOAD,
        );
    }
}

pub fn reproduce_pa(a: PaArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let names: Vec<&str> = WORKLOADS.iter().map(|w| w.0).collect();
    let selected = select("workload", &a.workloads, &names)?;
    if a.limit == Some(0) {
        bail!("--limit must be at least 1");
    }
    let chosen: Vec<usize> = (0..WORKLOADS.len())
        .filter(|&k| selected.contains(&WORKLOADS[k].0))
        .collect();
    let mut drive = Config::preset("pa-tlc")?;
    if a.quick {
        let blocks = drive.geometry.blocks_per_plane as u64 / QUICK_SCALE;
        drive = drive.with_overrides(&[format!("geometry.blocks_per_plane={blocks}")])?;
    }
    drive = drive.with_overrides(&[THRESHOLD.to_string(), QUARTER_MS.to_string()])?;
    let precondition = Precondition::parse(PRECONDITION)?;

    let mut head = String::new();
    let _ = writeln!(
        head,
        "Reproducing Zhang, Cao, Jiang, Yao, \"Improving Overall Performance of TLC SSD by Exploiting Dissimilarity of Flash Pages\", IEEE TPDS 2020"
    );
    let _ = writeln!(
        head,
        "drive pa-tlc{}, gc.threshold 30 %, precondition {PRECONDITION} (70 % of every plane written and invalid, then the reads' pages mapped)",
        if a.quick {
            format!(
                " with 1/{QUICK_SCALE} of its blocks per plane, each workload replayed twice and its second pass measured (--quick)"
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        head,
        "schemes: {}",
        SCHEMES
            .iter()
            .map(|s| format!("{} = {}", s.0, s.1))
            .collect::<Vec<_>>()
            .join("; ")
    );
    for o in &a.sets {
        let _ = writeln!(head, "every run: --set {o}");
    }
    let mut sims = Vec::new();
    for &k in &chosen {
        let (source, from) = workload_for(WORKLOADS[k].0, &drive, a.limit)?;
        let _ = writeln!(head, "  {:<7} {from}", WORKLOADS[k].0);
        let warm = if a.quick {
            let n = requests_of(&source);
            vec![
                "host.replays=2".to_string(),
                format!("host.warmup_requests={n}"),
            ]
        } else {
            Vec::new()
        };
        for (s, (label, scheme, _, _)) in SCHEMES.iter().enumerate() {
            let config = ssdlab::scheme::by_name(scheme)?
                .apply(&drive)
                .with_context(|| format!("scheme `{scheme}`"))?
                .with_overrides(&warm)?
                .with_overrides(&a.sets)
                .with_context(|| format!("--set, scheme `{scheme}`"))?;
            sims.push(Sim {
                exp: "main",
                workload: k,
                scheme: s,
                job: crate::batch::Job {
                    config,
                    source: source.clone(),
                    label: format!("{} {label}", WORKLOADS[k].0),
                    file: format!("main__{}__{}", WORKLOADS[k].0, sanitise(label)),
                },
            });
        }
    }
    // Fig. 17: tMSFS replayed three times, the third pass measured.
    let tmsfs = WORKLOADS
        .iter()
        .position(|w| w.0 == "tMSFS")
        .expect("tMSFS");
    if chosen.contains(&tmsfs) {
        let (source, _) = workload_for("tMSFS", &drive, a.limit)?;
        let n = requests_of(&source);
        for s in [0usize, 2, 5, 6] {
            let (label, scheme, _, _) = SCHEMES[s];
            let config = ssdlab::scheme::by_name(scheme)?
                .apply(&drive)?
                .with_overrides(&[
                    "host.replays=3".to_string(),
                    format!("host.warmup_requests={}", 2 * n),
                ])?
                .with_overrides(&a.sets)
                .with_context(|| format!("--set, scheme `{scheme}`"))?;
            sims.push(Sim {
                exp: "replay3",
                workload: tmsfs,
                scheme: s,
                job: crate::batch::Job {
                    config,
                    source: source.clone(),
                    label: format!("tMSFS third replay {label}"),
                    file: format!("replay3__tMSFS__{}", sanitise(label)),
                },
            });
        }
    }
    let jobs = sims.iter().map(|s| &s.job);
    // Checked before the runs, and locked while this writes it.
    let _lock = crate::output::check_out_dir(&a.out, "--out")?;
    let Some(reports) = crate::batch::reproduce(&head, jobs, &precondition, &a.batch, &a.out)?
    else {
        return Ok(ExitCode::SUCCESS);
    };
    let rows: Vec<CsvRow> = sims
        .iter()
        .zip(&reports)
        .map(|(sim, report)| CsvRow {
            experiment: sim.exp,
            preset: "pa-tlc",
            workload: WORKLOADS[sim.workload].0,
            scheme: SCHEMES[sim.scheme].0,
            params: vec![],
            report,
        })
        .collect();
    crate::results::write_results(&a.out, &[], &rows)?;

    let find = |exp: &str, k: usize, s: usize| {
        sims.iter()
            .position(|x| x.exp == exp && x.workload == k && x.scheme == s)
    };
    let main = |k: usize, s: usize| &reports[find("main", k, s).expect("every main run ran")];
    let change = |k: usize, s: usize, f: MetricFn| {
        ratio(f(main(k, s)), f(main(k, 0))).map(|r| (r - 1.0) * 100.0)
    };
    let w = 8;
    let mut text = String::new();
    let mut header = format!("  {:<12}", "");
    for &k in &chosen {
        let _ = write!(header, " {:>w$}", WORKLOADS[k].0);
    }
    let _ = write!(header, " {:>w$}", "average");
    for (title, f, col) in [
        (
            "Write response time vs baseline (Fig. 13a)",
            METRICS[0].2,
            2usize,
        ),
        ("Read response time vs baseline (Fig. 13b)", METRICS[1].2, 3),
    ] {
        let _ = writeln!(text, "\n{title}");
        let _ = writeln!(text, "{header}  paper");
        for (s, sch) in SCHEMES.iter().enumerate().skip(1) {
            let cells: Vec<Option<f64>> = chosen.iter().map(|&k| change(k, s, f)).collect();
            let _ = write!(text, "  {:<12}", sch.0);
            for c in &cells {
                let _ = write!(text, " {:>w$}", pct(*c));
            }
            let paper = if col == 2 { sch.2 } else { sch.3 };
            let avg = mean_defined(cells.iter().copied());
            let _ = writeln!(
                text,
                " {:>w$}  {}",
                pct(avg),
                match (paper, avg) {
                    (Some(p), Some(o)) => format!("{} ({:+.1} points)", pct(Some(p)), o - p),
                    (Some(p), None) => pct(Some(p)),
                    (None, _) => "-".into(),
                }
            );
        }
    }
    let _ = writeln!(
        text,
        "(paper: sQD+sUB(+PAS) improves write and read performance 2.6x and 1.5x, shown as -61.5 % and -33.3 %; sSB+sUB is longer than the baseline on some workloads)"
    );

    // Fig. 14: tDAP's fast / medium / slow writes.
    if let Some(&k) = chosen.iter().find(|&&k| WORKLOADS[k].0 == "tDAP") {
        let _ = writeln!(text, "\nWrite requests of tDAP by their slowest page (Fig. 14): fast (all LSB) / medium / slow (some MSB)");
        for (s, sch) in SCHEMES.iter().enumerate().take(7) {
            let [f, m, sl] = speed_shares(main(k, s));
            let _ = writeln!(
                text,
                "  {:<12} {:>5.1}% / {:>5.1}% / {:>5.1}%",
                sch.0,
                f * 100.0,
                m * 100.0,
                sl * 100.0
            );
        }
        let _ = writeln!(text, "  (paper: the baseline's writes are mostly slow; PA-SSD keeps slow writes at or below a third; sU 34 % fast, 33 % slow)");
    }

    // Fig. 15: allocation success.
    let _ = writeln!(
        text,
        "\nHost pages that got the page type they wanted (Fig. 15)"
    );
    let _ = writeln!(text, "{header}");
    for (s, sch) in SCHEMES.iter().enumerate().skip(1).take(6) {
        let cells: Vec<Option<f64>> = chosen
            .iter()
            .map(|&k| {
                main(k, s)
                    .page_type_allocation
                    .as_ref()
                    .map(|a| a.host_success_rate * 100.0)
            })
            .collect();
        let _ = write!(text, "  {:<12}", sch.0);
        for c in &cells {
            let _ = write!(
                text,
                " {:>w$}",
                c.map_or("n/a".into(), |x| format!("{x:.1}%"))
            );
        }
        let _ = writeln!(
            text,
            " {:>w$}",
            mean_defined(cells.iter().copied()).map_or("n/a".into(), |x| format!("{x:.1}%"))
        );
    }
    let _ = writeln!(
        text,
        "  (paper: above 98 % for five of the six schemes; sLF low)"
    );

    // Table 3: PAS's write response time reduction.
    let _ = writeln!(
        text,
        "\nWrite response time reduction by PAS (Table 3): ours (paper)"
    );
    let _ = writeln!(text, "{header}");
    for (i, &(with, without)) in PAS_PAIRS.iter().enumerate() {
        let mut cells = vec![];
        let _ = write!(text, "  {:<12}", SCHEMES[with].0);
        for &k in &chosen {
            let f = METRICS[0].2;
            let red = ratio(f(main(k, with)), f(main(k, without))).map(|r| (1.0 - r) * 100.0);
            cells.push(red);
            let _ = write!(
                text,
                " {:>w$}",
                red.map_or("n/a".into(), |x| format!(
                    "{x:.0}({:.0})",
                    WORKLOADS[k].1[i]
                ))
            );
        }
        let _ = writeln!(
            text,
            " {:>w$}",
            mean_defined(cells).map_or("n/a".into(), |x| format!("{x:.0}({:.0})", TABLE3_AVG[i]))
        );
    }
    if let Some(k) = chosen.iter().position(|&k| WORKLOADS[k].0 == "tMSFS") {
        let k = chosen[k];
        let sd = |s: usize| main(k, s).write.latency_us.stddev;
        let _ = writeln!(
            text,
            "  PAS on sQD+sUB, tMSFS: standard deviation of write response time {:.0} -> {:.0} us ({}; paper: -55 %)",
            sd(6),
            sd(11),
            pct(ratio(sd(11), sd(6)).map(|r| (r - 1.0) * 100.0))
        );
    }

    // Fig. 16: tFin and tMSFS over time.
    let mut ts = String::from("workload,scheme,t_s,write_latency_us_mean,free_lsb_pages\n");
    for name in ["tFin", "tMSFS"] {
        let Some(&k) = chosen.iter().find(|&&k| WORKLOADS[k].0 == name) else {
            continue;
        };
        let _ = writeln!(
            text,
            "\n{name} over time (Fig. 16): write response time (us) per 15 minutes, and free LSB pages at the end of each (timeseries.csv)"
        );
        for s in [0usize, 1, 2, 5, 6] {
            let r = main(k, s);
            let series = r.timeseries.as_deref().unwrap_or(&[]);
            let _ = write!(text, "  {:<8}", SCHEMES[s].0);
            for iv in series.iter().take(12) {
                let _ = write!(text, " {:>7.0}", iv.write_latency_us_mean);
            }
            if series.len() > 12 {
                let _ = write!(text, " ... ({} quarters)", series.len());
            }
            let _ = writeln!(text);
            for iv in series {
                let _ = writeln!(
                    ts,
                    "{name},{},{},{},{}",
                    SCHEMES[s].0,
                    iv.t_s,
                    iv.write_latency_us_mean,
                    iv.free_lsb_pages.map_or(String::new(), |v| v.to_string())
                );
            }
            if let Some(last) = series.iter().rev().find_map(|iv| iv.free_lsb_pages) {
                let _ = writeln!(text, "           free LSB pages at the end: {last}");
            }
        }
    }
    let _ = writeln!(text, "  (paper: tFin, sU 13 % below the baseline, sLF lowest but out of LSB pages in the last hour; tMSFS, sLF lowest for 7 quarters, sQD+sUB low for 22)");
    write(&a.out.join("timeseries.csv"), &ts)?;

    // Fig. 17: the third replay of tMSFS.
    if find("replay3", tmsfs, 0).is_some() {
        let r3 = |s: usize| &reports[find("replay3", tmsfs, s).expect("replay run")];
        let _ = writeln!(
            text,
            "\nThird replay of tMSFS (Fig. 17): write response time vs the baseline's"
        );
        for (s, paper) in [(2usize, -66.0), (5, -79.0), (6, -93.0)] {
            let c = ratio(r3(s).write.latency_us.mean, r3(0).write.latency_us.mean)
                .map(|r| (r - 1.0) * 100.0);
            let _ = writeln!(
                text,
                "  {:<8} {} (paper {}, {})",
                SCHEMES[s].0,
                pct(c),
                pct(Some(paper)),
                c.map_or("n/a".into(), |c| format!("{:+.1} points", c - paper))
            );
        }
    }
    let replay3 = |s: usize| find("replay3", tmsfs, s).map(|i| &reports[i]);
    let board = scoreboard(&command_line(&a), a.quick, &chosen, &main, &replay3);
    board.write(&a.out)?;
    let detail = board.detail();
    println!("{text}");

    let mut summary = format!("# PA-SSD reproduction\n\n```text\n{head}{text}```\n");
    let names: Vec<String> = SCHEMES.iter().map(|s| s.0.to_string()).collect();
    let grid = Grid {
        metrics: &METRICS,
        schemes: &names,
        baseline: 0,
        rows: chosen
            .iter()
            .map(|&k| Row {
                label: WORKLOADS[k].0.to_string(),
                runs: (0..SCHEMES.len())
                    .map(|s| find("main", k, s).expect("main run"))
                    .collect(),
            })
            .collect(),
        reports: &reports,
    };
    let _ = writeln!(
        summary,
        "\nAll metrics, normalised to the baseline: ratio (percent change); \"average\" is the mean ratio."
    );
    grid.tables(&mut summary, "##");
    grid.write_charts(&a.out.join("charts"))?;
    let _ = write!(summary, "\n{detail}");
    write(&a.out.join("summary.md"), &summary)?;
    println!("{detail}");
    println!(
        "wall time {:.1} s; results in {} (results.csv, timeseries.csv, summary.md, scoreboard.json, runs/, charts/)",
        started.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_3_averages_are_the_rows_means() {
        for (i, avg) in TABLE3_AVG.iter().enumerate() {
            let m = WORKLOADS.iter().map(|w| w.1[i]).sum::<f64>() / 8.0;
            assert!((m - avg).abs() < 1.0, "column {i}: {m}");
        }
    }

    #[test]
    fn every_scheme_applies_to_the_papers_drive() {
        let d = Config::preset("pa-tlc").unwrap();
        for s in SCHEMES {
            ssdlab::scheme::by_name(s.1).unwrap().apply(&d).unwrap();
        }
        for (with, without) in PAS_PAIRS {
            assert_eq!(format!("{}-pas", SCHEMES[without].1), SCHEMES[with].1);
        }
    }
}
