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
//! request counts scale with the logical capacity.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;

use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Report};

use crate::results::CsvRow;
use crate::sweep::{mean_defined, pct, ratio, sanitise, select, write, Grid, MetricFn, Row};

#[derive(Args)]
pub struct PaArgs {
    /// Output directory (runs/, results.csv, timeseries.csv, summary.md, charts/).
    #[arg(long, default_value = "reproduce-pa")]
    out: PathBuf,
    /// A run 1/8 the size of the full one: `pa-tlc` with 1/8 of its blocks
    /// per plane, each workload's footprint and request count scaled alike.
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

struct Sim {
    /// "main" (Figs. 13–16, Table 3) or "replay3" (Fig. 17).
    exp: &'static str,
    workload: usize,
    scheme: usize,
    job: crate::batch::Job,
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
            format!(" with 1/{QUICK_SCALE} of its blocks per plane (--quick)")
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
    let mut sims = Vec::new();
    for &k in &chosen {
        let (source, from) = workload_for(WORKLOADS[k].0, &drive, a.limit)?;
        let _ = writeln!(head, "  {:<7} {from}", WORKLOADS[k].0);
        for (s, (label, scheme, _, _)) in SCHEMES.iter().enumerate() {
            let config = ssdlab::scheme::by_name(scheme)?
                .apply(&drive)
                .with_context(|| format!("scheme `{scheme}`"))?;
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
        let n = match &source {
            Source::Synthetic(p) => p.requests,
            _ => unreachable!("a profile"),
        };
        for s in [0usize, 2, 5, 6] {
            let (label, scheme, _, _) = SCHEMES[s];
            let config = ssdlab::scheme::by_name(scheme)?
                .apply(&drive)?
                .with_overrides(&[
                    "host.replays=3".to_string(),
                    format!("host.warmup_requests={}", 2 * n),
                ])?;
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
    write(&a.out.join("summary.md"), &summary)?;
    println!(
        "wall time {:.1} s; results in {} (results.csv, timeseries.csv, summary.md, runs/, charts/)",
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
