//! `ssdlab sweep SPEC.toml --out DIR`: a matrix of drives × workloads ×
//! schemes (× parameter values) run in parallel, one JSON per run, one
//! combined CSV, tables normalised to a baseline scheme, and SVG charts.
//!
//! Everything the sweep needs (configurations, workloads, preconditioning)
//! is built and checked before the first run starts, so a typo in the spec
//! fails at once. The outputs depend only on the spec, never on `--jobs` or
//! on the order in which runs finish.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Deserialize;

use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Report, Simulator};

use crate::input::{ReadArgs, WorkloadArgs};

#[derive(Args)]
pub struct SweepArgs {
    /// The sweep specification (TOML; see README.md, "Sweeps").
    spec: PathBuf,
    /// Output directory (runs/, results.csv, summary.md, charts/).
    #[arg(long)]
    out: PathBuf,
    /// Runs at once (default: the number of available cores).
    #[arg(long)]
    jobs: Option<usize>,
}

/// The spec file as written.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Spec {
    experiment: String,
    #[serde(default)]
    presets: Vec<String>,
    #[serde(default)]
    config: Vec<PathBuf>,
    workloads: Vec<String>,
    #[serde(default = "no_precondition")]
    precondition: String,
    limit: Option<u64>,
    baseline: String,
    seed: Option<u64>,
    #[serde(default)]
    scheme: Vec<SchemeSpec>,
    #[serde(default)]
    param: Vec<ParamSpec>,
}

fn no_precondition() -> String {
    "none".into()
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct SchemeSpec {
    name: String,
    #[serde(default)]
    set: Vec<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct ParamSpec {
    key: String,
    values: Vec<String>,
}

/// A drive: a preset or a configuration file.
struct Drive {
    label: String,
    config: Config,
}

struct Workload {
    label: String,
    source: Source,
}

/// One run of the matrix, by indexes into the drives, workloads, schemes and
/// parameter values.
struct Run {
    drive: usize,
    workload: usize,
    scheme: usize,
    values: Vec<usize>,
    config: Config,
    /// Human-readable name (progress lines, errors).
    label: String,
    /// File name stem under runs/.
    file: String,
}

/// Replace everything but letters, digits and `-_.=+` with `_`.
fn sanitise(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.=+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Relative paths in the spec are relative to the spec file's directory.
fn resolve(spec_dir: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        spec_dir.join(p)
    }
}

fn stem(p: &Path) -> String {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string());
    // Drop compression and format suffixes: hm_0.csv.gz → hm_0.
    let mut s = name.as_str();
    for ext in [".gz", ".zst", ".toml", ".csv", ".txt", ".trace"] {
        s = s.strip_suffix(ext).unwrap_or(s);
    }
    if s.is_empty() {
        name
    } else {
        s.to_string()
    }
}

fn check_unique<'a>(origin: &str, key: &str, names: impl Iterator<Item = &'a str>) -> Result<()> {
    let mut seen = BTreeSet::new();
    for n in names {
        if !seen.insert(n) {
            bail!("{origin}: `{key}`: `{n}` appears more than once");
        }
    }
    Ok(())
}

/// Everything a sweep runs, checked.
struct Plan {
    experiment: String,
    drives: Vec<Drive>,
    workloads: Vec<Workload>,
    schemes: Vec<String>,
    baseline: usize,
    params: Vec<ParamSpec>,
    precondition: Precondition,
    runs: Vec<Run>,
}

fn plan(path: &Path) -> Result<Plan> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {origin}"))?;
    let spec: Spec = toml::from_str(&text).map_err(|e| anyhow::anyhow!("{origin}: {e}"))?;
    let dir = path.parent().unwrap_or(Path::new("."));

    if spec.experiment.trim().is_empty() {
        bail!("{origin}: `experiment` must not be empty");
    }
    if spec.workloads.is_empty() {
        bail!("{origin}: `workloads` is empty: name at least one workload");
    }
    if spec.scheme.is_empty() {
        bail!("{origin}: no [[scheme]]: define at least the baseline scheme");
    }
    if spec.limit == Some(0) {
        bail!("{origin}: `limit` must be at least 1");
    }
    check_unique(
        &origin,
        "scheme.name",
        spec.scheme.iter().map(|s| s.name.as_str()),
    )?;
    check_unique(&origin, "presets", spec.presets.iter().map(|s| s.as_str()))?;
    check_unique(
        &origin,
        "param.key",
        spec.param.iter().map(|p| p.key.as_str()),
    )?;
    for s in &spec.scheme {
        if s.name.trim().is_empty() {
            bail!("{origin}: `scheme.name` must not be empty");
        }
    }
    for p in &spec.param {
        if p.values.is_empty() {
            bail!("{origin}: `param.values` of `{}` is empty", p.key);
        }
        check_unique(
            &origin,
            &format!("param.values` of `{}", p.key),
            p.values.iter().map(|s| s.as_str()),
        )?;
    }
    let Some(baseline) = spec.scheme.iter().position(|s| s.name == spec.baseline) else {
        bail!(
            "{origin}: `baseline`: `{}` is not among the schemes ({})",
            spec.baseline,
            spec.scheme
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    let precondition = Precondition::parse(&spec.precondition)
        .with_context(|| format!("{origin}: `precondition`"))?;

    // Drives: presets, then configuration files; the `small` preset if neither.
    let mut drives = Vec::new();
    let presets = if spec.presets.is_empty() && spec.config.is_empty() {
        vec!["small".to_string()]
    } else {
        spec.presets.clone()
    };
    for name in &presets {
        let mut config = Config::preset(name).with_context(|| format!("{origin}: `presets`"))?;
        if let Some(s) = spec.seed {
            config.seed = s;
        }
        drives.push(Drive {
            label: name.clone(),
            config,
        });
    }
    for p in &spec.config {
        let full = resolve(dir, p);
        let text = std::fs::read_to_string(&full)
            .with_context(|| format!("{origin}: `config`: reading {}", full.display()))?;
        let mut config = Config::from_toml(&text, &full.display().to_string())
            .with_context(|| format!("{origin}: `config`"))?;
        if let Some(s) = spec.seed {
            config.seed = s;
        }
        drives.push(Drive {
            label: stem(p),
            config,
        });
    }
    check_unique(
        &origin,
        "presets/config",
        drives.iter().map(|d| d.label.as_str()),
    )?;

    // Workloads: a .toml profile, an existing trace file, or a built-in name.
    let mut workloads = Vec::new();
    for w in &spec.workloads {
        let full = resolve(dir, Path::new(w));
        let mut args = WorkloadArgs {
            trace: None,
            read: ReadArgs {
                trace_format: "auto".into(),
                device: None,
                device_stride: None,
                skip_bad_lines: false,
                sort: None,
                skip_records: 0,
                start_s: 0.0,
                blkparse_action: "D".into(),
            },
            synthetic: None,
            workload: None,
            limit: spec.limit,
        };
        let label = if w.ends_with(".toml") {
            args.synthetic = Some(full.clone());
            stem(&full)
        } else if full.is_file() {
            args.trace = Some(full.clone());
            stem(&full)
        } else {
            args.workload = Some(w.clone());
            w.clone()
        };
        let loaded = args
            .load(spec.seed)
            .with_context(|| format!("{origin}: `workloads`: `{w}`"))?;
        workloads.push(Workload {
            label,
            source: loaded.source,
        });
    }
    check_unique(
        &origin,
        "workloads",
        workloads.iter().map(|w| w.label.as_str()),
    )?;

    // The matrix: drives × workloads × schemes × param values (first param outermost).
    let mut combos: Vec<Vec<usize>> = vec![Vec::new()];
    for p in &spec.param {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                (0..p.values.len()).map(move |i| {
                    let mut c = c.clone();
                    c.push(i);
                    c
                })
            })
            .collect();
    }
    let mut runs = Vec::new();
    let mut files = BTreeSet::new();
    for (d, drive) in drives.iter().enumerate() {
        for (w, workload) in workloads.iter().enumerate() {
            for (s, scheme) in spec.scheme.iter().enumerate() {
                for values in &combos {
                    let mut sets = scheme.set.clone();
                    let mut label = format!("{} {} {}", drive.label, workload.label, scheme.name);
                    let mut file = format!(
                        "{}__{}__{}__{}",
                        sanitise(&spec.experiment),
                        sanitise(&drive.label),
                        sanitise(&workload.label),
                        sanitise(&scheme.name)
                    );
                    for (p, &v) in spec.param.iter().zip(values) {
                        let value = &p.values[v];
                        sets.push(format!("{}={}", p.key, value));
                        let _ = write!(label, " {}={}", p.key, value);
                        let _ = write!(file, "__{}={}", sanitise(&p.key), sanitise(value));
                    }
                    let config = drive.config.with_overrides(&sets).with_context(|| {
                        format!(
                            "{origin}: scheme `{}` (set = {:?}){} on drive `{}`",
                            scheme.name,
                            scheme.set,
                            if spec.param.is_empty() {
                                String::new()
                            } else {
                                format!(" with params {:?}", &sets[scheme.set.len()..])
                            },
                            drive.label
                        )
                    })?;
                    if !files.insert(file.clone()) {
                        bail!("{origin}: two runs would both be written to runs/{file}.json; make the names differ");
                    }
                    runs.push(Run {
                        drive: d,
                        workload: w,
                        scheme: s,
                        values: values.clone(),
                        config,
                        label,
                        file,
                    });
                }
            }
        }
    }
    Ok(Plan {
        experiment: spec.experiment,
        drives,
        workloads,
        schemes: spec.scheme.into_iter().map(|s| s.name).collect(),
        baseline,
        params: spec.param,
        precondition,
        runs,
    })
}

/// Run every plan entry on `jobs` threads; reports in plan order. The first
/// failure (lowest index among those that failed) stops the sweep.
fn execute(plan: &Plan, jobs: usize) -> Result<Vec<Report>> {
    let n = plan.runs.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<Report>>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(n).max(1) {
            scope.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let run = &plan.runs[i];
                let started = Instant::now();
                let result = Simulator::new(
                    &run.config,
                    &plan.workloads[run.workload].source,
                    &plan.precondition,
                )
                .and_then(|sim| sim.run(&mut |_| {}))
                .map_err(anyhow::Error::from);
                if result.is_err() {
                    stop.store(true, Ordering::Relaxed);
                } else {
                    let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                    eprintln!(
                        "[{k}/{n}] {}: {:.2} s",
                        run.label,
                        started.elapsed().as_secs_f64()
                    );
                }
                results.lock().expect("no poisoned lock")[i] = Some(result);
            });
        }
    });
    let results = results.into_inner().expect("no poisoned lock");
    let mut reports = Vec::with_capacity(n);
    for (i, r) in results.into_iter().enumerate() {
        match r {
            Some(Ok(report)) => reports.push(report),
            Some(Err(e)) => {
                return Err(e.context(format!(
                    "run {} of {n} ({}) failed; sweep stopped",
                    i + 1,
                    plan.runs[i].label
                )))
            }
            None => {}
        }
    }
    if reports.len() != n {
        bail!("sweep stopped before all runs finished");
    }
    Ok(reports)
}

/// The metrics of the summary tables and charts: file name, title, value.
type MetricFn = fn(&Report) -> f64;
const METRICS: [(&str, &str, MetricFn); 8] = [
    ("write_latency_mean", "Write latency, mean (us)", |r| {
        r.write.latency_us.mean
    }),
    ("read_latency_mean", "Read latency, mean (us)", |r| {
        r.read.latency_us.mean
    }),
    ("gc_count", "GC count", |r| r.gc.count as f64),
    ("gc_time_total", "Total GC time (us)", |r| {
        r.gc.time_us.total
    }),
    ("erases", "Erases", |r| r.flash.erases as f64),
    ("multiplane_share", "Multi-plane program share", |r| {
        r.flash.multiplane_program_share
    }),
    ("plane_utilization", "Plane utilisation, mean", |r| {
        r.plane_utilization.mean
    }),
    ("write_amplification", "Write amplification", |r| {
        r.write_amplification
    }),
];

fn buffer_hit_ratio(r: &Report) -> f64 {
    let pages = r.read.pages + r.write.pages;
    if pages == 0 {
        0.0
    } else {
        (r.buffer.read_hits + r.buffer.write_hits) as f64 / pages as f64
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(plan: &Plan, reports: &[Report]) -> Result<String> {
    let mut out = String::new();
    let mut header: Vec<String> = ["experiment", "preset", "workload", "scheme"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    header.extend(plan.params.iter().map(|p| p.key.clone()));
    header.extend(
        [
            "requests",
            "write_latency_us_mean",
            "write_latency_us_p99",
            "read_latency_us_mean",
            "read_latency_us_p99",
            "gc_count",
            "gc_time_us_total",
            "erases",
            "write_amplification",
            "multiplane_program_share",
            "plane_utilization_mean",
            "buffer_hit_ratio",
            "blocked_by_gc_share",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    let line = |fields: Vec<String>| {
        fields
            .iter()
            .map(|f| csv_field(f))
            .collect::<Vec<_>>()
            .join(",")
    };
    out.push_str(&line(header));
    out.push('\n');
    for (run, r) in plan.runs.iter().zip(reports) {
        let value = serde_json::to_value(r)?;
        // Read by path so this works whether or not the report has the field.
        let blocked = match value.pointer("/gc/blocked_share") {
            Some(serde_json::Value::Null) | None => String::new(),
            Some(v) => v.as_f64().map_or_else(|| v.to_string(), |x| x.to_string()),
        };
        let mut f = vec![
            plan.experiment.clone(),
            plan.drives[run.drive].label.clone(),
            plan.workloads[run.workload].label.clone(),
            plan.schemes[run.scheme].clone(),
        ];
        f.extend(
            plan.params
                .iter()
                .zip(&run.values)
                .map(|(p, &v)| p.values[v].clone()),
        );
        f.extend([
            r.requests.to_string(),
            r.write.latency_us.mean.to_string(),
            r.write.latency_us.p99.to_string(),
            r.read.latency_us.mean.to_string(),
            r.read.latency_us.p99.to_string(),
            r.gc.count.to_string(),
            r.gc.time_us.total.to_string(),
            r.flash.erases.to_string(),
            r.write_amplification.to_string(),
            r.flash.multiplane_program_share.to_string(),
            r.plane_utilization.mean.to_string(),
            buffer_hit_ratio(r).to_string(),
            blocked,
        ]);
        out.push_str(&line(f));
        out.push('\n');
    }
    Ok(out)
}

/// Rows of the normalised tables: one per (drive, workload, param values),
/// with the run index of each scheme.
struct Row {
    label: String,
    runs: Vec<usize>,
}

fn rows(plan: &Plan) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    let ns = plan.schemes.len();
    for (i, run) in plan.runs.iter().enumerate() {
        if run.scheme != 0 {
            continue;
        }
        let mut label = plan.workloads[run.workload].label.clone();
        if plan.drives.len() > 1 {
            let _ = write!(label, " [{}]", plan.drives[run.drive].label);
        }
        for (p, &v) in plan.params.iter().zip(&run.values) {
            let _ = write!(label, " {}={}", p.key, p.values[v]);
        }
        // Runs of one row differ only in the scheme, which sits just outside
        // the parameter combinations in matrix order.
        let stride = plan.runs.len() / (plan.drives.len() * plan.workloads.len() * ns);
        rows.push(Row {
            label,
            runs: (0..ns).map(|s| i + s * stride).collect(),
        });
    }
    rows
}

/// `value / base`; 1 when both are 0; undefined (None) when only the base is.
fn ratio(value: f64, base: f64) -> Option<f64> {
    if base == 0.0 {
        (value == 0.0).then_some(1.0)
    } else {
        Some(value / base)
    }
}

fn fmt_value(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1000.0 || (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

fn fmt_ratio(r: Option<f64>) -> String {
    match r {
        Some(r) => format!("{r:.3} ({:+.1}%)", (r - 1.0) * 100.0),
        None => "n/a".into(),
    }
}

fn summary(plan: &Plan, reports: &[Report], rows: &[Row]) -> String {
    let base = plan.baseline;
    let bname = &plan.schemes[base];
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Sweep `{}`: {} runs\n\nValues are normalised to the baseline scheme `{bname}`: ratio (percent change). \
         The `{bname}` column gives its absolute value; \"average\" is the mean ratio over the rows.",
        plan.experiment,
        plan.runs.len()
    );
    for (_, title, metric) in METRICS {
        let _ = writeln!(s, "\n## {title}\n");
        let mut head = format!("| workload | {bname} (absolute) |");
        let mut rule = String::from("|---|---:|");
        for name in &plan.schemes {
            let _ = write!(head, " {name} |");
            rule.push_str("---:|");
        }
        let _ = writeln!(s, "{head}\n{rule}");
        let mut sums = vec![(0.0, 0usize); plan.schemes.len()];
        for row in rows {
            let b = metric(&reports[row.runs[base]]);
            let _ = write!(s, "| {} | {} |", row.label, fmt_value(b));
            for (k, &i) in row.runs.iter().enumerate() {
                let r = ratio(metric(&reports[i]), b);
                if let Some(r) = r {
                    sums[k].0 += r;
                    sums[k].1 += 1;
                }
                let _ = write!(s, " {} |", fmt_ratio(r));
            }
            s.push('\n');
        }
        let _ = write!(s, "| **average** | |");
        for &(sum, n) in &sums {
            let _ = write!(s, " {} |", fmt_ratio((n > 0).then(|| sum / n as f64)));
        }
        s.push('\n');
    }
    s
}

fn chart(plan: &Plan, reports: &[Report], rows: &[Row], title: &str, metric: MetricFn) -> String {
    let categories: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
    let series: Vec<(&str, Vec<f64>)> = plan
        .schemes
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let values = rows
                .iter()
                .map(|row| {
                    let b = metric(&reports[row.runs[plan.baseline]]);
                    ratio(metric(&reports[row.runs[k]]), b).unwrap_or(0.0)
                })
                .collect();
            (name.as_str(), values)
        })
        .collect();
    crate::svg::bar_chart(
        &format!("{title}, relative to {}", plan.schemes[plan.baseline]),
        &format!("ratio to {}", plan.schemes[plan.baseline]),
        &categories,
        &series,
    )
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

pub fn cmd_sweep(a: SweepArgs) -> Result<ExitCode> {
    let jobs = match a.jobs {
        Some(0) => bail!("--jobs must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let plan = plan(&a.spec)?;
    let runs_dir = a.out.join("runs");
    let charts_dir = a.out.join("charts");
    for d in [&runs_dir, &charts_dir] {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    eprintln!(
        "sweep `{}`: {} runs on {} threads",
        plan.experiment,
        plan.runs.len(),
        jobs.min(plan.runs.len())
    );
    let started = Instant::now();
    let reports = execute(&plan, jobs)?;
    for (run, report) in plan.runs.iter().zip(&reports) {
        crate::write_json(&runs_dir.join(format!("{}.json", run.file)), report)?;
    }
    write(&a.out.join("results.csv"), &csv(&plan, &reports)?)?;
    let rows = rows(&plan);
    let text = summary(&plan, &reports, &rows);
    write(&a.out.join("summary.md"), &text)?;
    for (file, title, metric) in METRICS {
        let svg = chart(&plan, &reports, &rows, title, metric);
        write(&charts_dir.join(format!("{file}.svg")), &svg)?;
    }
    print!("{text}");
    eprintln!(
        "{} runs in {:.1} s; results in {}",
        plan.runs.len(),
        started.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_file_system_safe() {
        assert_eq!(sanitise("spd/hm_0"), "spd_hm_0");
        assert_eq!(
            sanitise("buffer.capacity={pages=256}"),
            "buffer.capacity=_pages=256_"
        );
        assert_eq!(stem(Path::new("/x/hm_0.csv.gz")), "hm_0");
    }

    #[test]
    fn ratios_and_csv_quoting() {
        assert_eq!(ratio(2.0, 4.0), Some(0.5));
        assert_eq!(ratio(0.0, 0.0), Some(1.0));
        assert_eq!(ratio(1.0, 0.0), None);
        assert_eq!(csv_field("{a=1, b=2}"), "\"{a=1, b=2}\"");
        assert_eq!(csv_field("plain"), "plain");
    }
}
