//! Statistics across seeds: a sweep whose spec sets `seeds = N` runs each
//! cell of its matrix N times (replicate i with a generated workload's seed
//! raised by i and the model's i-th random stream after aging), and this
//! module summarises the replicates: mean, sample
//! standard deviation and the 95 % confidence interval of the mean
//! (Student t with n − 1 degrees of freedom) per cell and metric
//! (`stats.csv`, the summary's `mean ± half-width`, the charts' error
//! bars), and the tests `ssdlab compare` states: the paired t-test on
//! per-replicate differences when both cells ran with the same seeds
//! (common random numbers), Welch's t-test otherwise.
//!
//! Quantiles and tail probabilities of the t distribution come from
//! `statrs`.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::results::CsvRow;
use crate::sweep::MetricFn;
use ssdlab::Report;

/// The confidence level of every interval, and 1 − the significance level
/// of every test.
pub(crate) const CONFIDENCE: f64 = 0.95;

/// The `q` quantile of Student's t distribution with `df` degrees of
/// freedom (`df` > 0).
pub(crate) fn t_quantile(q: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df)
        .expect("positive degrees of freedom")
        .inverse_cdf(q)
}

/// The two-sided p-value of a t statistic with `df` degrees of freedom.
pub(crate) fn two_sided_p(t: f64, df: f64) -> f64 {
    let d = StudentsT::new(0.0, 1.0, df).expect("positive degrees of freedom");
    (2.0 * d.sf(t.abs())).min(1.0)
}

/// Mean, sample standard deviation and 95 % confidence interval of a
/// sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Summary {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (divisor n − 1); None below 2 values.
    pub sd: Option<f64>,
    /// Half-width of the 95 % confidence interval of the mean:
    /// t_{0.975, n−1} · sd / √n; None below 2 values.
    pub half_width: Option<f64>,
}

impl Summary {
    /// The summary of `xs` (None when empty).
    pub fn of(xs: &[f64]) -> Option<Summary> {
        let n = xs.len();
        if n == 0 {
            return None;
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        if n < 2 {
            return Some(Summary {
                n,
                mean,
                sd: None,
                half_width: None,
            });
        }
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let sd = var.sqrt();
        let t = t_quantile(0.5 + CONFIDENCE / 2.0, (n - 1) as f64);
        Some(Summary {
            n,
            mean,
            sd: Some(sd),
            half_width: Some(t * sd / (n as f64).sqrt()),
        })
    }
}

/// Which test compared two cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Test {
    /// Paired t-test on the per-replicate differences (the cells share
    /// their seeds replicate by replicate).
    PairedT,
    /// Welch's unequal-variance t-test on the two samples.
    WelchT,
}

impl Test {
    pub fn describe(self) -> &'static str {
        match self {
            Test::PairedT => "paired t-test on the per-replicate differences B − A",
            Test::WelchT => {
                "Welch's t-test (unequal variances) on the difference of the means B − A"
            }
        }
    }
}

/// The outcome of comparing one metric of two cells.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub(crate) struct Comparison {
    pub mean_a: f64,
    pub mean_b: f64,
    /// mean B − mean A.
    pub difference: f64,
    /// The 95 % confidence interval of the difference (None when the
    /// samples do not vary: then it is exact).
    pub ci95_low: f64,
    pub ci95_high: f64,
    /// Two-sided p-value; None where no test applies (the replicates do not
    /// vary).
    pub p_value: Option<f64>,
    pub degrees_of_freedom: Option<f64>,
    pub verdict: Verdict,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Verdict {
    /// p < 0.05.
    Differ,
    /// p ≥ 0.05.
    NoSignificantDifference,
    /// Equal in every replicate (no variation to test).
    Identical,
    /// The same non-zero difference in every replicate (the replicates do
    /// not vary, so no test applies; the difference is exact).
    ConstantDifference,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Differ => "differ significantly at 5 %",
            Verdict::NoSignificantDifference => "no significant difference",
            Verdict::Identical => "identical in every replicate",
            Verdict::ConstantDifference => "same difference in every replicate (no variation)",
        }
    }
}

fn verdict(p: f64) -> Verdict {
    if p < 1.0 - CONFIDENCE {
        Verdict::Differ
    } else {
        Verdict::NoSignificantDifference
    }
}

/// The paired t-test of `b` against `a` (equal lengths ≥ 2): on d_i = b_i
/// − a_i, t = mean(d) / (sd(d) / √n) with n − 1 degrees of freedom.
pub(crate) fn paired(a: &[f64], b: &[f64]) -> Comparison {
    assert!(a.len() == b.len() && a.len() >= 2, "paired samples");
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    let s = Summary::of(&d).expect("not empty");
    let (mean_a, mean_b) = (mean(a), mean(b));
    let sd = s.sd.expect("n >= 2");
    if sd == 0.0 {
        return exact(mean_a, mean_b, s.mean);
    }
    let n = d.len() as f64;
    let df = n - 1.0;
    let t = s.mean / (sd / n.sqrt());
    let p = two_sided_p(t, df);
    let hw = s.half_width.expect("n >= 2");
    Comparison {
        mean_a,
        mean_b,
        difference: s.mean,
        ci95_low: s.mean - hw,
        ci95_high: s.mean + hw,
        p_value: Some(p),
        degrees_of_freedom: Some(df),
        verdict: verdict(p),
    }
}

/// Welch's t-test of `b` against `a` (each ≥ 2 values): t = (mean b −
/// mean a) / √(s_a²/n_a + s_b²/n_b), degrees of freedom by
/// Welch–Satterthwaite.
pub(crate) fn welch(a: &[f64], b: &[f64]) -> Comparison {
    let (sa, sb) = (
        Summary::of(a).expect("not empty"),
        Summary::of(b).expect("not empty"),
    );
    let diff = sb.mean - sa.mean;
    let (va, vb) = (
        sa.sd.expect("n >= 2").powi(2) / a.len() as f64,
        sb.sd.expect("n >= 2").powi(2) / b.len() as f64,
    );
    let se2 = va + vb;
    if se2 == 0.0 {
        return exact(sa.mean, sb.mean, diff);
    }
    let df = se2 * se2 / (va * va / (a.len() - 1) as f64 + vb * vb / (b.len() - 1) as f64);
    let se = se2.sqrt();
    let t = diff / se;
    let p = two_sided_p(t, df);
    let hw = t_quantile(0.5 + CONFIDENCE / 2.0, df) * se;
    Comparison {
        mean_a: sa.mean,
        mean_b: sb.mean,
        difference: diff,
        ci95_low: diff - hw,
        ci95_high: diff + hw,
        p_value: Some(p),
        degrees_of_freedom: Some(df),
        verdict: verdict(p),
    }
}

/// Samples that do not vary: the difference is exact, no test applies.
fn exact(mean_a: f64, mean_b: f64, difference: f64) -> Comparison {
    Comparison {
        mean_a,
        mean_b,
        difference,
        ci95_low: difference,
        ci95_high: difference,
        p_value: None,
        degrees_of_freedom: None,
        verdict: if difference == 0.0 {
            Verdict::Identical
        } else {
            Verdict::ConstantDifference
        },
    }
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// A metric's value in each replicate of a cell (the values a run reports;
/// a run that does not report the metric is left out).
pub(crate) fn values(cell: &[&Report], metric: impl Fn(&Report) -> Option<f64>) -> Vec<f64> {
    cell.iter().filter_map(|r| metric(r)).collect()
}

fn csv_num(x: Option<f64>) -> String {
    x.map_or_else(String::new, |x| x.to_string())
}

/// `stats.csv`: per cell (the identifying and parameter columns of
/// results.csv) and metric of results.csv, `n, mean, sd, ci95_low,
/// ci95_high`. `cells[c]` is cell c's row (of its first replicate) and
/// `reports[c]` its replicates' reports.
pub(crate) fn write_stats(
    dir: &Path,
    param_keys: &[&str],
    cells: &[CsvRow],
    reports: &[Vec<&Report>],
) -> Result<()> {
    let mut out = String::new();
    let mut head: Vec<String> = ["experiment", "preset", "workload", "scheme"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    head.extend(param_keys.iter().map(|k| crate::results::csv_field(k)));
    head.extend(
        ["metric", "n", "mean", "sd", "ci95_low", "ci95_high"]
            .iter()
            .map(|s| s.to_string()),
    );
    out.push_str(&head.join(","));
    out.push('\n');
    let columns =
        crate::results::metric_values(&reports.iter().flatten().copied().collect::<Vec<_>>())?;
    let per_cell = reports.first().map_or(0, Vec::len);
    for (c, cell) in cells.iter().enumerate() {
        let mut ids: Vec<String> = [cell.experiment, cell.preset, cell.workload, cell.scheme]
            .iter()
            .map(|s| crate::results::csv_field(s))
            .collect();
        ids.extend(cell.params.iter().map(|p| crate::results::csv_field(p)));
        for (name, all) in &columns {
            let xs: Vec<f64> = all[c * per_cell..(c + 1) * per_cell]
                .iter()
                .flatten()
                .copied()
                .collect();
            let _ = write!(out, "{},{name},{}", ids.join(","), xs.len());
            match Summary::of(&xs) {
                None => out.push_str(",,,,\n"),
                Some(s) => {
                    let _ = writeln!(
                        out,
                        ",{},{},{},{}",
                        s.mean,
                        csv_num(s.sd),
                        csv_num(s.half_width.map(|h| s.mean - h)),
                        csv_num(s.half_width.map(|h| s.mean + h)),
                    );
                }
            }
        }
    }
    crate::sweep::write(&dir.join("stats.csv"), &out)
}

/// `value` ± `half_width` as the summary writes it.
fn fmt_ci(s: &Summary) -> String {
    match s.half_width {
        Some(h) => format!(
            "{} ± {}",
            crate::sweep::fmt_value(s.mean),
            crate::sweep::fmt_value(h)
        ),
        None => crate::sweep::fmt_value(s.mean),
    }
}

/// The tables and charts of a sweep with replicates: per metric, each
/// cell's mean ± the half-width of its 95 % confidence interval, and the
/// ratio of its mean to the baseline's mean; charts of the means with
/// 95 % error bars.
pub(crate) struct ReplicatedGrid<'a> {
    pub metrics: &'a [(&'a str, &'a str, MetricFn)],
    pub schemes: &'a [String],
    pub baseline: usize,
    /// Rows (workloads, parameter values): label and the cell index of
    /// each scheme.
    pub rows: Vec<crate::sweep::Row>,
    /// Each cell's replicates.
    pub cells: Vec<Vec<&'a Report>>,
}

impl ReplicatedGrid<'_> {
    fn summary(&self, cell: usize, metric: MetricFn) -> Summary {
        let xs = values(&self.cells[cell], |r| Some(metric(r)));
        Summary::of(&xs).expect("a cell has replicates")
    }

    fn all_zero(&self, metric: MetricFn) -> bool {
        self.cells.iter().flatten().all(|r| metric(r) == 0.0)
    }

    /// One markdown table per metric, under a heading of `level`.
    pub fn tables(&self, s: &mut String, level: &str) {
        for &(_, title, metric) in self.metrics {
            let _ = writeln!(s, "\n{level} {title}\n");
            if self.all_zero(metric) {
                let _ = writeln!(s, "0 in every run.");
                continue;
            }
            let mut head = String::from("| workload |");
            let mut rule = String::from("|---|");
            for name in self.schemes {
                let _ = write!(head, " {name} |");
                rule.push_str("---:|");
            }
            let _ = writeln!(s, "{head}\n{rule}");
            for row in &self.rows {
                let base = self.summary(row.runs[self.baseline], metric).mean;
                let _ = write!(s, "| {} |", row.label);
                for (k, &c) in row.runs.iter().enumerate() {
                    let sm = self.summary(c, metric);
                    if k == self.baseline {
                        let _ = write!(s, " {} |", fmt_ci(&sm));
                    } else {
                        match crate::sweep::ratio(sm.mean, base) {
                            Some(r) => {
                                let _ = write!(
                                    s,
                                    " {} ({r:.3}, {:+.1}%) |",
                                    fmt_ci(&sm),
                                    (r - 1.0) * 100.0
                                );
                            }
                            None => {
                                let _ = write!(s, " {} |", fmt_ci(&sm));
                            }
                        }
                    }
                }
                s.push('\n');
            }
        }
    }

    /// One bar chart per metric not 0 in every run: the means, with their
    /// 95 % confidence intervals as error bars; `dir/<metric>.svg`.
    pub fn write_charts(&self, dir: &Path, replicates: usize) -> Result<()> {
        std::fs::create_dir_all(dir)?;
        let categories: Vec<&str> = self.rows.iter().map(|r| r.label.as_str()).collect();
        for &(file, title, metric) in self.metrics {
            if self.all_zero(metric) {
                continue;
            }
            let mut series = Vec::new();
            let mut errors = Vec::new();
            for (k, name) in self.schemes.iter().enumerate() {
                let sums: Vec<Summary> = self
                    .rows
                    .iter()
                    .map(|row| self.summary(row.runs[k], metric))
                    .collect();
                series.push((name.as_str(), sums.iter().map(|s| s.mean).collect()));
                errors.push(
                    sums.iter()
                        .map(|s| {
                            let h = s.half_width.unwrap_or(0.0);
                            (s.mean - h, s.mean + h)
                        })
                        .collect(),
                );
            }
            let svg = crate::svg::bar_chart_with_errors(
                &format!("{title}: mean of {replicates} seeds, 95 % CI"),
                title,
                &categories,
                &series,
                Some(&errors),
            );
            crate::sweep::write(&dir.join(format!("{file}.svg")), &svg)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95 % critical values, as printed in t tables
        // (e.g. Montgomery & Runger, Applied Statistics, Table V).
        for (df, t) in [
            (1.0, 12.706),
            (2.0, 4.303),
            (3.0, 3.182),
            (4.0, 2.776),
            (9.0, 2.262),
            (29.0, 2.045),
        ] {
            let q = t_quantile(0.975, df);
            assert!(close(q, t, 5e-4), "t_0.975,{df} = {q}, table {t}");
        }
        assert!(close(t_quantile(0.95, 10.0), 1.812, 5e-4));
        assert!(close(two_sided_p(2.776, 4.0), 0.05, 1e-4));
        assert!(close(two_sided_p(0.0, 4.0), 1.0, 1e-12));
    }

    #[test]
    fn a_confidence_interval_by_hand() {
        // 10, 12, 14, 16, 18: mean 14, sd = sqrt(40 / 4) = 3.1623,
        // half-width = 2.7764 × 3.1623 / sqrt(5) = 3.9264.
        let s = Summary::of(&[10.0, 12.0, 14.0, 16.0, 18.0]).unwrap();
        assert_eq!(s.n, 5);
        assert_eq!(s.mean, 14.0);
        assert!(close(s.sd.unwrap(), 10f64.sqrt(), 1e-12));
        assert!(close(s.half_width.unwrap(), 3.9264, 1e-4), "{s:?}");
        let one = Summary::of(&[3.0]).unwrap();
        assert_eq!((one.sd, one.half_width), (None, None));
        assert!(Summary::of(&[]).is_none());
    }

    #[test]
    fn paired_and_welch_tests_by_hand() {
        // d = 1, 2, 3, 2: mean 2, sd = sqrt(2/3) = 0.8165, t = 2 / (0.8165 / 2)
        // = 4.899 on 3 df: p = 0.0163; half-width = 3.1824 × 0.40825 = 1.2992.
        let a = [10.0, 11.0, 9.0, 12.0];
        let b = [11.0, 13.0, 12.0, 14.0];
        let c = paired(&a, &b);
        assert_eq!(c.difference, 2.0);
        assert!(close(c.p_value.unwrap(), 0.0163, 1e-4), "{c:?}");
        assert!(close(c.ci95_high - 2.0, 1.2992, 1e-4), "{c:?}");
        assert_eq!(c.verdict, Verdict::Differ);
        // Welch: means 10.5 and 12.5, both variances 5/3: se = sqrt(2 × (5/3) / 4)
        // = 0.9129, t = 2 / 0.9129 = 2.1909 on 6 df: p = 0.0710 (by the
        // regularised incomplete beta function, computed apart).
        let w = welch(&a, &b);
        assert!(close(w.difference, 2.0, 1e-12));
        assert!(close(w.degrees_of_freedom.unwrap(), 6.0, 1e-9), "{w:?}");
        assert!(close(w.p_value.unwrap(), 0.0710, 1e-4), "{w:?}");
        assert_eq!(w.verdict, Verdict::NoSignificantDifference);
        // no variation: exact
        assert_eq!(paired(&a, &a).verdict, Verdict::Identical);
        let shifted: Vec<f64> = a.iter().map(|x| x + 1.0).collect();
        let e = paired(&a, &shifted);
        assert_eq!((e.verdict, e.p_value), (Verdict::ConstantDifference, None));
        // large noise: no significant difference
        let n = paired(&[1.0, 5.0, 2.0], &[4.0, 2.0, 3.0]);
        assert_eq!(n.verdict, Verdict::NoSignificantDifference, "{n:?}");
    }
}
