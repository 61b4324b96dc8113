//! `ssdlab compare DIR A B`: do schemes A and B of a sweep run with
//! `seeds = N` (N ≥ 2) differ, or is the difference seed noise?
//!
//! DIR is the sweep's output directory; its results.csv has one row per
//! run with the run's `replicate`, `seed` and `workload_seed`. In every row
//! of the sweep's tables (drive, workload, parameter values) where both
//! schemes ran, each metric of results.csv is compared: mean of A, mean of
//! B, the difference B − A with its 95 % confidence interval, the two-sided
//! p-value and the verdict at the 5 % level. When replicate i of A and of B
//! ran with the same seeds (as a sweep runs them: common random numbers),
//! the test is the paired t-test on the per-replicate differences;
//! otherwise (a scheme that sets its own `seed`) Welch's t-test on the two
//! samples, and the output says why.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;
use serde::Serialize;

use crate::stats::{Comparison, Test, Verdict};

#[derive(Args)]
pub struct CompareArgs {
    /// A sweep's output directory (its results.csv), from a sweep with
    /// `seeds` of at least 2.
    dir: PathBuf,
    /// Scheme A (a `[[scheme]]` name of the sweep).
    a: String,
    /// Scheme B, compared against A (differences are B − A).
    b: String,
    /// Also write the comparison as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
}

/// One metric compared.
#[derive(Serialize)]
pub(crate) struct MetricComparison {
    pub metric: String,
    #[serde(flatten)]
    pub comparison: Comparison,
    pub verdict_text: &'static str,
}

/// One row of the sweep (drive, workload, parameter values) compared.
#[derive(Serialize)]
pub(crate) struct RowComparison {
    pub preset: String,
    pub workload: String,
    /// The parameter values of the row (key → value).
    pub params: BTreeMap<String, String>,
    pub test: Test,
    pub test_text: &'static str,
    pub n_a: usize,
    pub n_b: usize,
    /// Why Welch's test was used instead of the paired one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub metrics: Vec<MetricComparison>,
    /// Metrics left out: a run does not report them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_reported: Vec<String>,
}

/// The whole comparison (`--json`).
#[derive(Serialize)]
pub(crate) struct ComparisonDoc {
    pub dir: String,
    pub a: String,
    pub b: String,
    pub confidence: f64,
    pub rows: Vec<RowComparison>,
}

/// One run of results.csv: its replicate, seeds and metric fields.
struct RunRow {
    replicate: u64,
    seeds: (String, String),
    fields: Vec<String>,
}

pub(crate) fn compare(dir: &Path, a: &str, b: &str) -> Result<ComparisonDoc> {
    let csv = dir.join("results.csv");
    if !csv.is_file() {
        bail!(
            "{}: no results.csv there (give a sweep's --out directory)",
            dir.display()
        );
    }
    let (header, rows) = crate::results::read_results(&csv)?;
    let col = |name: &str| header.iter().position(|h| h == name);
    let (Some(preset), Some(workload), Some(scheme)) =
        (col("preset"), col("workload"), col("scheme"))
    else {
        bail!(
            "{}: not a sweep's results (no `preset`, `workload` and `scheme` columns)",
            csv.display()
        );
    };
    let Some(replicate) = col("replicate") else {
        bail!(
            "{}: no `replicate` column: the sweep ran each cell once; run it with `seeds = N` \
             (N of at least 2) in its spec, or `--seeds N`, to compare schemes",
            csv.display()
        );
    };
    let (Some(seed), Some(wseed)) = (col("seed"), col("workload_seed")) else {
        bail!(
            "{}: a `replicate` column without `seed` and `workload_seed`: not a sweep's results",
            csv.display()
        );
    };
    let params: Vec<usize> = (scheme + 1..replicate).collect();
    let metrics: Vec<(usize, &str)> = crate::results::METRICS
        .iter()
        .filter(|(m, _)| *m != "requests")
        .filter_map(|(m, _)| col(m).map(|i| (i, *m)))
        .collect();

    // Rows of the sweep's tables, in order, each with its schemes' runs.
    let mut order: Vec<Vec<String>> = Vec::new();
    let mut cells: BTreeMap<(Vec<String>, String), Vec<RunRow>> = BTreeMap::new();
    let mut schemes: Vec<String> = Vec::new();
    for (k, r) in rows.iter().enumerate() {
        let mut key = vec![r[preset].clone(), r[workload].clone()];
        key.extend(params.iter().map(|&i| r[i].clone()));
        if !order.contains(&key) {
            order.push(key.clone());
        }
        if !schemes.contains(&r[scheme]) {
            schemes.push(r[scheme].clone());
        }
        let Ok(rep) = r[replicate].parse::<u64>() else {
            bail!(
                "{}:{}: field `replicate`: {} is not an integer",
                csv.display(),
                k + 2,
                ssdlab::workload::input::quote(&r[replicate], 40)
            );
        };
        cells
            .entry((key, r[scheme].clone()))
            .or_default()
            .push(RunRow {
                replicate: rep,
                seeds: (r[seed].clone(), r[wseed].clone()),
                fields: r.clone(),
            });
    }
    for name in [a, b] {
        if !schemes.iter().any(|s| s == name) {
            bail!(
                "no scheme `{name}` in {}; its schemes: {}{}",
                csv.display(),
                schemes.join(", "),
                ssdlab::error::did_you_mean(name, schemes.iter().map(String::as_str))
            );
        }
    }
    let mut out = Vec::new();
    for key in &order {
        let (Some(ra), Some(rb)) = (
            cells.get(&(key.clone(), a.to_string())),
            cells.get(&(key.clone(), b.to_string())),
        ) else {
            continue;
        };
        let mut ra: Vec<&RunRow> = ra.iter().collect();
        let mut rb: Vec<&RunRow> = rb.iter().collect();
        ra.sort_by_key(|r| r.replicate);
        rb.sort_by_key(|r| r.replicate);
        let label = key.join(" ");
        for (name, runs) in [(a, &ra), (b, &rb)] {
            if runs.len() < 2 {
                bail!(
                    "{label}: scheme `{name}` has {} replicate{} in {}; a comparison needs at least 2 \
                     (run the sweep with `seeds = N`, N of at least 2)",
                    runs.len(),
                    if runs.len() == 1 { "" } else { "s" },
                    csv.display()
                );
            }
        }
        let same_seeds = ra.len() == rb.len()
            && ra
                .iter()
                .zip(&rb)
                .all(|(x, y)| x.replicate == y.replicate && x.seeds == y.seeds);
        let (test, note) = if same_seeds {
            (Test::PairedT, None)
        } else {
            let why = match ra.iter().zip(&rb).find(|(x, y)| x.seeds != y.seeds) {
                Some((x, y)) => format!(
                    "replicate {} of `{a}` ran with seed {} (workload seed {}), of `{b}` with seed {} \
                     (workload seed {})",
                    x.replicate,
                    x.seeds.0,
                    none_dash(&x.seeds.1),
                    y.seeds.0,
                    none_dash(&y.seeds.1)
                ),
                None => format!(
                    "`{a}` has {} replicates, `{b}` {}",
                    ra.len(),
                    rb.len()
                ),
            };
            (
                Test::WelchT,
                Some(format!(
                    "the two schemes did not run with the same seeds ({why}), so their replicates \
                     do not pair: Welch's t-test instead of the paired one"
                )),
            )
        };
        let mut compared = Vec::new();
        let mut not_reported = Vec::new();
        for &(i, m) in &metrics {
            let xs = |runs: &[&RunRow]| -> Option<Vec<f64>> {
                runs.iter()
                    .map(|r| r.fields[i].parse::<f64>().ok())
                    .collect()
            };
            let (Some(va), Some(vb)) = (xs(&ra), xs(&rb)) else {
                not_reported.push(m.to_string());
                continue;
            };
            let c = match test {
                Test::PairedT => crate::stats::paired(&va, &vb),
                Test::WelchT => crate::stats::welch(&va, &vb),
            };
            compared.push(MetricComparison {
                metric: m.to_string(),
                verdict_text: c.verdict.text(),
                comparison: c,
            });
        }
        out.push(RowComparison {
            preset: key[0].clone(),
            workload: key[1].clone(),
            params: params
                .iter()
                .zip(&key[2..])
                .map(|(&i, v)| (header[i].clone(), v.clone()))
                .collect(),
            test,
            test_text: test.describe(),
            n_a: ra.len(),
            n_b: rb.len(),
            note,
            metrics: compared,
            not_reported,
        });
    }
    if out.is_empty() {
        bail!(
            "schemes `{a}` and `{b}` never ran on the same drive, workload and parameter values in {}",
            csv.display()
        );
    }
    Ok(ComparisonDoc {
        dir: dir.display().to_string(),
        a: a.to_string(),
        b: b.to_string(),
        confidence: crate::stats::CONFIDENCE,
        rows: out,
    })
}

fn none_dash(s: &str) -> &str {
    if s.is_empty() {
        "none"
    } else {
        s
    }
}

/// `x` to four significant digits (integers in full).
fn num(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 8) as usize;
    format!("{x:.digits$}")
}

fn p_text(p: Option<f64>) -> String {
    match p {
        None => "-".into(),
        Some(p) if p < 1e-4 => "<0.0001".into(),
        Some(p) => format!("{p:.4}"),
    }
}

/// The comparison as text: per row, the test and n, then one line per
/// metric.
pub(crate) fn text(doc: &ComparisonDoc) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "`{}` (B) against `{}` (A): differences are B − A; 95 % confidence intervals; significant when p < 0.05",
        doc.b, doc.a
    );
    for row in &doc.rows {
        let mut label = format!("{} {}", row.preset, row.workload);
        for (k, v) in &row.params {
            let _ = write!(label, " {k}={v}");
        }
        let _ = writeln!(
            s,
            "\n{label}: {}, n = {}{}",
            row.test_text,
            row.n_a,
            if row.n_a == row.n_b {
                String::from(" replicates each")
            } else {
                format!(" and {} replicates", row.n_b)
            }
        );
        if row.test == Test::PairedT {
            let _ = writeln!(s, "  (replicate i of both schemes ran with the same seeds)");
        }
        if let Some(n) = &row.note {
            let _ = writeln!(s, "  note: {n}");
        }
        let w = row
            .metrics
            .iter()
            .map(|m| m.metric.len())
            .max()
            .unwrap_or(6)
            .max(6);
        let _ = writeln!(
            s,
            "  {:<w$}  {:>12}  {:>12}  {:>12}  {:>27}  {:>8}  verdict",
            "metric", "mean A", "mean B", "B − A", "95 % CI of B − A", "p"
        );
        for m in &row.metrics {
            let c = &m.comparison;
            let ci = format!("[{}, {}]", num(c.ci95_low), num(c.ci95_high));
            let _ = writeln!(
                s,
                "  {:<w$}  {:>12}  {:>12}  {:>12}  {:>27}  {:>8}  {}",
                m.metric,
                num(c.mean_a),
                num(c.mean_b),
                num(c.difference),
                ci,
                p_text(c.p_value),
                m.verdict_text
            );
        }
        if !row.not_reported.is_empty() {
            let _ = writeln!(
                s,
                "  not compared (not reported by every run): {}",
                row.not_reported.join(", ")
            );
        }
    }
    let differ = doc
        .rows
        .iter()
        .flat_map(|r| &r.metrics)
        .filter(|m| {
            matches!(
                m.comparison.verdict,
                Verdict::Differ | Verdict::ConstantDifference
            )
        })
        .count();
    let total: usize = doc.rows.iter().map(|r| r.metrics.len()).sum();
    let _ = writeln!(
        s,
        "\n{differ} of {total} comparisons differ (significantly at 5 %, or by the same amount in every replicate)."
    );
    s
}

pub fn cmd_compare(a: CompareArgs) -> Result<ExitCode> {
    if let Some(j) = &a.json {
        crate::output::check_writable(j, "--json")?;
    }
    let doc = compare(&a.dir, &a.a, &a.b)?;
    print!("{}", text(&doc));
    if let Some(j) = &a.json {
        crate::write_json(j, &doc)?;
    }
    Ok(ExitCode::SUCCESS)
}
