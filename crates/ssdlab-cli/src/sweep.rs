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
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};

use ssdlab::workload::{Source, TraceFormat};
use ssdlab::{Config, Precondition, Report};

use crate::batch::Task;
use crate::input::{ReadArgs, WorkloadArgs};
use crate::results::CsvRow;

/// `ssdlab sweep SPEC …` or `ssdlab sweep merge DIR…`.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepCmd {
    #[command(subcommand)]
    sub: Option<SweepSub>,
    #[command(flatten)]
    args: SweepArgs,
}

#[derive(Subcommand)]
enum SweepSub {
    /// Combine the shards of a sweep (`--shard I/N` invocations) into the
    /// results of one unsharded sweep: results.csv, summary.md, charts/
    /// and runs/, byte-identical to a sweep run in one piece.
    Merge {
        /// The shards' output directories (each names the spec it ran).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where the combined results go.
        #[arg(long)]
        out: PathBuf,
        /// Runs at once, for runs no shard saved (default: the cores).
        #[arg(long)]
        jobs: Option<usize>,
    },
}

#[derive(Args)]
pub struct SweepArgs {
    /// The sweep specification (TOML; see README.md, "Sweeps").
    #[arg(required = true)]
    spec: Option<PathBuf>,
    /// Output directory (runs/, results.csv, summary.md, charts/).
    #[arg(long, required_unless_present = "list")]
    out: Option<PathBuf>,
    /// Print the runs of the matrix (index, file under runs/, label) and
    /// stop: what `--shard I/N` divides.
    #[arg(long)]
    list: bool,
    #[command(flatten)]
    batch: crate::batch::BatchArgs,
    /// Refuse a matrix of more runs than this (a typo in a parameter list
    /// should not start a month of runs).
    #[arg(long, default_value_t = DEFAULT_MAX_RUNS)]
    max_runs: u64,
    /// Do not print the summary (it is in summary.md).
    #[arg(long, short)]
    quiet: bool,
    /// Run every cell this many times: replicate i with a generated
    /// workload's seed raised by i and the model's i-th random stream after
    /// aging (replaces the spec's `seeds`).
    #[arg(long, value_name = "N")]
    seeds: Option<u64>,
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
    #[serde(default)]
    workloads: Vec<String>,
    /// Sets of flows run side by side, each an entry of the workload axis
    /// beside `workloads` (labelled by its name).
    #[serde(default)]
    flowset: Vec<FlowSetSpec>,
    #[serde(default = "default_precondition")]
    precondition: String,
    /// Saved drive states (`ssdlab run --save-state`) by drive: runs of the
    /// drive start from the state instead of aging (relative paths against
    /// the spec's directory).
    #[serde(default)]
    states: std::collections::BTreeMap<String, PathBuf>,
    /// Age each drive once for all runs that would age it alike (default),
    /// or, `false`, once per run (the same results, slower).
    #[serde(default = "yes")]
    age_once: bool,
    /// With `seeds`: age a drive of its own for every replicate (the
    /// drive's seed raised by i, so aging's random choices differ too)
    /// instead of one aged drive for all replicates of a cell.
    #[serde(default)]
    age_each_replicate: bool,
    limit: Option<u64>,
    /// How trace workloads are read: a format name, a format spec file
    /// (relative to the spec's directory) or an inline spec (default auto).
    trace_format: Option<String>,
    /// The reorder window of trace workloads (`--sort`).
    sort: Option<usize>,
    baseline: String,
    seed: Option<u64>,
    /// Replicates of every cell (default 1): replicate i runs with the
    /// generated workload's seed raised by i and the model's i-th random
    /// stream after aging ([`crate::stats`]).
    #[serde(default, deserialize_with = "replicate_count")]
    seeds: Option<u64>,
    #[serde(default)]
    scheme: Vec<SchemeSpec>,
    #[serde(default)]
    param: Vec<ParamSpec>,
    /// The directory relative paths of the spec are resolved against
    /// (itself absolute, or relative to the spec's directory); by default
    /// the spec's directory. A spec written by a program (Python's
    /// `ssdlab.sweep` with a dict) names the directory it was given in.
    base_dir: Option<PathBuf>,
}

/// `seeds`: a whole number (its range is checked with the matrix's size),
/// or an error naming the key and what it got.
fn replicate_count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v = toml::Value::deserialize(d)?;
    match v {
        toml::Value::Integer(n) if n >= 0 => Ok(Some(n as u64)),
        other => Err(serde::de::Error::custom(format!(
            "`seeds`: expected a whole number of runs per cell (at least 1), got {other}"
        ))),
    }
}

fn yes() -> bool {
    true
}

fn default_precondition() -> String {
    Precondition::DEFAULT.into()
}

/// A `[[scheme]]` entry. `scheme` names a registered scheme to start from
/// (`ssdlab::scheme`); without `scheme` and `set`, `name` must be a
/// registered scheme and its overrides are used; `set` alone is applied to
/// the drive as configured (`set = []`: the drive unchanged).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct SchemeSpec {
    name: String,
    scheme: Option<String>,
    set: Option<Vec<String>>,
}

/// A `[[scheme]]` entry resolved: the registered scheme it starts from, if
/// any, and the overrides applied on top.
struct SchemeRun {
    name: String,
    registered: Option<&'static ssdlab::scheme::Scheme>,
    set: Vec<String>,
}

impl SchemeRun {
    fn resolve(origin: &str, spec: SchemeSpec) -> Result<SchemeRun> {
        let registered = match (&spec.scheme, &spec.set) {
            (Some(base), _) => Some(
                ssdlab::scheme::by_name(base)
                    .with_context(|| format!("{origin}: scheme `{}`: `scheme`", spec.name))?,
            ),
            (None, None) => Some(ssdlab::scheme::by_name(&spec.name).with_context(|| {
                format!(
                    "{origin}: scheme `{}` has no `set` and is not a registered scheme \
                     (give `set = [...]`, `set = []` for the drive as configured, or `scheme = NAME`)",
                    spec.name
                )
            })?),
            (None, Some(_)) => None,
        };
        Ok(SchemeRun {
            name: spec.name,
            registered,
            set: spec.set.unwrap_or_default(),
        })
    }

    /// `drive` with this scheme's policies and overrides.
    fn config(&self, drive: &Config, extra: &[String]) -> ssdlab::Result<Config> {
        let mut sets = self.set.clone();
        sets.extend_from_slice(extra);
        // The scheme's policies, then the overrides, validated as a whole.
        match self.registered {
            Some(s) => s.apply_with(drive, &sets),
            None => drive.with_overrides(&sets),
        }
    }
}

/// A `[[flowset]]`: several flows (tenants) in each run, as `[[flows]]`
/// of a configuration; with `alone`, each flow also runs alone (its
/// slowdown, the run's fairness).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct FlowSetSpec {
    name: String,
    flows: Vec<ssdlab::config::FlowConfig>,
    #[serde(default)]
    alone: bool,
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
    /// The workload of each replicate: replicate i's generated workload
    /// has its seed raised by i (a trace is the same in every replicate).
    /// Empty for a flow set.
    sources: Vec<Source>,
    /// A flow set's flows, and each replicate's workloads of them.
    flows: Option<FlowSet>,
}

impl Workload {
    /// Replicate `i`'s generated workload seed (a flow set: its first
    /// flow's), None for a trace.
    fn seed(&self, i: usize) -> Option<u64> {
        match &self.flows {
            Some(f) => f.replicas[i].sources.first().and_then(workload_seed),
            None => workload_seed(&self.sources[i]),
        }
    }
}

struct FlowSet {
    configs: Vec<ssdlab::config::FlowConfig>,
    replicas: Vec<crate::batch::FlowWork>,
}

/// One run of the matrix, by indexes into the drives, workloads, schemes and
/// parameter values.
struct Run {
    drive: usize,
    workload: usize,
    scheme: usize,
    values: Vec<usize>,
    /// The runs of this cell, one per replicate (without `seeds`, the cell
    /// itself).
    replicas: Vec<Replica>,
}

/// One run of a cell: its configuration (with replicates, `replicate` set
/// to the replicate's index, or with `age_each_replicate` the seed raised
/// by it), label and file.
struct Replica {
    config: Config,
    /// Human-readable name (progress lines, errors).
    label: String,
    /// File name stem under runs/.
    file: String,
}

/// Replace everything but letters, digits and `-_.=+` with `_`.
pub(crate) fn sanitise(s: &str) -> String {
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

/// The text of a small input file (a spec, a configuration), refused if
/// larger than [`ssdlab::workload::input::MAX_SPEC_BYTES`]; `what` names
/// its kind in the error.
fn read_spec(path: &Path, what: &str) -> Result<String> {
    Ok(ssdlab::workload::input::read_text_limited(
        path,
        ssdlab::workload::input::MAX_SPEC_BYTES,
        what,
    )?)
}

/// A TOML error on one line: the message, line and column, and the key
/// where there is one, never the text of the line (the file may be a large
/// or a private one given by mistake).
fn toml_error(origin: &str, text: &str, e: &toml::de::Error) -> anyhow::Error {
    let msg = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let mut start = span.start.min(text.len());
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let before = &text[..start];
            let line = before.matches('\n').count() + 1;
            let col = before[before.rfind('\n').map_or(0, |i| i + 1)..]
                .chars()
                .count()
                + 1;
            anyhow::anyhow!("{origin}:{line}:{col}: {msg}")
        }
        None => anyhow::anyhow!("{origin}: {msg}"),
    }
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
pub(crate) struct Plan {
    experiment: String,
    drives: Vec<Drive>,
    workloads: Vec<Workload>,
    schemes: Vec<String>,
    baseline: usize,
    params: Vec<ParamSpec>,
    precondition: Precondition,
    /// Per drive, the saved state its runs start from (`states`).
    states: Vec<Option<ssdlab::sim::SavedState>>,
    age_once: bool,
    /// Replicates age drives of their own (`age_each_replicate`).
    age_each_replicate: bool,
    runs: Vec<Run>,
    /// Replicates per cell (`seeds`, default 1).
    seeds: usize,
}

/// Runs a sweep may have unless `--max-runs` says more.
pub(crate) const DEFAULT_MAX_RUNS: u64 = 10_000;

/// The plan of the sweep `path`; `seeds_override` (`--seeds`) replaces the
/// spec's `seeds`.
pub(crate) fn plan(path: &Path, max_runs: u64, seeds_override: Option<u64>) -> Result<Plan> {
    let origin = path.display().to_string();
    let text = read_spec(path, "a sweep spec")?;
    let spec: Spec = toml::from_str(&text).map_err(|e| toml_error(&origin, &text, &e))?;
    let spec_dir = path.parent().unwrap_or(Path::new("."));
    let base = spec.base_dir.as_deref().map(|b| resolve(spec_dir, b));
    if let Some(b) = &base {
        if !b.is_dir() {
            bail!("{origin}: `base_dir`: {} is not a directory", b.display());
        }
    }
    let dir = base.as_deref().unwrap_or(spec_dir);

    if spec.experiment.trim().is_empty() {
        bail!("{origin}: `experiment` must not be empty");
    }
    if spec.workloads.is_empty() && spec.flowset.is_empty() {
        bail!("{origin}: `workloads` is empty: name at least one workload (or a [[flowset]])");
    }
    if spec.scheme.is_empty() {
        bail!("{origin}: no [[scheme]]: define at least the baseline scheme");
    }
    if spec.limit == Some(0) {
        bail!("{origin}: `limit` must be at least 1");
    }
    if seeds_override == Some(0) {
        bail!("--seeds must be at least 1 (1: each cell runs once)");
    }
    let seeds = seeds_override.or(spec.seeds).unwrap_or(1);
    if seeds == 0 {
        bail!("{origin}: `seeds` must be at least 1 (1: each cell runs once)");
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
        let text = read_spec(&full, "a drive configuration")
            .with_context(|| format!("{origin}: `config`"))?;
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

    // Saved states named per drive: read and verified now, each checked
    // against every run of its drive below.
    if spec.age_each_replicate && !spec.states.is_empty() && seeds > 1 {
        bail!(
            "{origin}: `age_each_replicate` ages a drive of its own for every replicate, but `states` \
             names one aged drive for all of them; use one or the other"
        );
    }
    let mut states: Vec<Option<ssdlab::sim::SavedState>> = vec![None; drives.len()];
    for (label, file) in &spec.states {
        let Some(d) = drives.iter().position(|d| &d.label == label) else {
            bail!(
                "{origin}: `states`: `{label}` is not a drive of the sweep ({})",
                drives
                    .iter()
                    .map(|d| d.label.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        };
        let state = ssdlab::sim::SavedState::read_for(&resolve(dir, file), &drives[d].config)
            .with_context(|| format!("{origin}: `states`: `{label}`"))?;
        states[d] = Some(state);
    }

    let scheme_runs = spec
        .scheme
        .into_iter()
        .map(|s| SchemeRun::resolve(&origin, s))
        .collect::<Result<Vec<_>>>()?;

    // The size of the matrix, before anything per run is built.
    let runs_wanted = spec.param.iter().fold(
        (drives.len() as u128)
            * ((spec.workloads.len() + spec.flowset.len()) as u128)
            * (scheme_runs.len() as u128),
        |n, p| n.saturating_mul(p.values.len() as u128),
    );
    let runs_wanted = runs_wanted.saturating_mul(seeds as u128);
    if runs_wanted > max_runs as u128 {
        bail!(
            "{origin}: the matrix has {runs_wanted} runs ({} drives × {} workloads × {} schemes{}{}), more \
             than --max-runs {max_runs}; raise --max-runs if you mean it",
            drives.len(),
            spec.workloads.len() + spec.flowset.len(),
            scheme_runs.len(),
            spec.param
                .iter()
                .map(|p| format!(" × {} values of {}", p.values.len(), p.key))
                .collect::<String>(),
            if seeds > 1 {
                format!(" × {seeds} `seeds`")
            } else {
                String::new()
            }
        );
    }
    let seeds = seeds as usize;
    if seeds > 1 {
        for p in &spec.param {
            if ["replicate", "seed", "workload_seed"].contains(&p.key.as_str()) {
                bail!(
                    "{origin}: `param.key` `{}`: with `seeds` of 2 or more results.csv has a `{}` column of \
                     its own; vary the seeds with `seeds` (or `seed`) instead",
                    p.key,
                    p.key
                );
            }
        }
    }

    // Workloads: a .toml profile, an existing trace file, or a built-in name.
    let mut workloads = Vec::new();
    let args_for = |limit: Option<u64>| {
        let mut args = workload_args(limit);
        if let Some(f) = &spec.trace_format {
            let file = resolve(dir, Path::new(f));
            args.read.trace_format = if TraceFormat::parse(f).is_err() && file.is_file() {
                file.display().to_string()
            } else {
                f.clone()
            };
        }
        args.read.sort = spec.sort;
        args
    };
    for w in &spec.workloads {
        let full = resolve(dir, Path::new(w));
        let mut args = args_for(spec.limit);
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
            sources: (0..seeds as u64)
                .map(|i| reseeded(&loaded.source, i))
                .collect(),
            flows: None,
        });
    }
    // Flow sets: each flow's workload as a `[[flows]]` table names it
    // (paths relative to the spec's directory; `limit` per flow, else the
    // spec's).
    for set in &spec.flowset {
        let what = format!("{origin}: [[flowset]] `{}`", set.name);
        if set.name.trim().is_empty() {
            bail!("{origin}: `flowset.name` must not be empty");
        }
        if set.flows.is_empty() {
            bail!("{what}: `flows` is empty: give at least one flow");
        }
        let mut configs = set.flows.clone();
        for f in &mut configs {
            for p in [&mut f.trace, &mut f.synthetic].into_iter().flatten() {
                *p = resolve(dir, Path::new(p.as_str())).display().to_string();
            }
            f.limit = f.limit.or(spec.limit);
        }
        let mut probe = drives[0].config.clone();
        probe.flows = configs.clone();
        let sources = crate::input::flow_sources(&probe, &args_for(None).read, spec.seed)
            .with_context(|| what.clone())?;
        workloads.push(Workload {
            label: set.name.clone(),
            sources: Vec::new(),
            flows: Some(FlowSet {
                configs,
                replicas: (0..seeds as u64)
                    .map(|i| crate::batch::FlowWork {
                        sources: sources.iter().map(|s| reseeded(s, i)).collect(),
                        alone: set.alone,
                    })
                    .collect(),
            }),
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
            for (s, scheme) in scheme_runs.iter().enumerate() {
                for values in &combos {
                    let mut sets = Vec::new();
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
                    let mut base = std::borrow::Cow::Borrowed(&drive.config);
                    if let Some(f) = &workload.flows {
                        base.to_mut().flows = f.configs.clone();
                    }
                    let config = scheme.config(&base, &sets).with_context(|| {
                        format!(
                            "{origin}: scheme `{}` ({}set = {:?}){} on drive `{}`",
                            scheme.name,
                            scheme
                                .registered
                                .map_or(String::new(), |r| format!("registered `{}`, ", r.name)),
                            scheme.set,
                            if spec.param.is_empty() {
                                String::new()
                            } else {
                                format!(" with params {sets:?}")
                            },
                            drive.label
                        )
                    })?;
                    if workload.flows.is_some() && states[d].is_some() {
                        bail!(
                            "{origin}: `states`: drive `{}` starts from a saved state, which runs with flows \
                             (the [[flowset]] `{}`) do not support",
                            drive.label,
                            workload.label
                        );
                    }
                    let replicas: Vec<Replica> = if seeds == 1 {
                        vec![Replica {
                            config,
                            label,
                            file,
                        }]
                    } else {
                        (0..seeds)
                            .map(|i| {
                                let mut config = config.clone();
                                if spec.age_each_replicate {
                                    config.seed = config.seed.wrapping_add(i as u64);
                                } else {
                                    config.replicate = i as u64;
                                }
                                Replica {
                                    config,
                                    label: format!("{label} replicate={i}"),
                                    file: format!("{file}__replicate={i}"),
                                }
                            })
                            .collect()
                    };
                    for r in &replicas {
                        if let Some(state) = &states[d] {
                            state
                                .check_drive(&r.config, &precondition)
                                .with_context(|| {
                                    format!(
                                        "{origin}: `states`: `{}`, run {}",
                                        drive.label, r.label
                                    )
                                })?;
                        }
                        if !files.insert(r.file.clone()) {
                            bail!(
                                "{origin}: two runs would both be written to runs/{}.json; make the names differ",
                                r.file
                            );
                        }
                    }
                    runs.push(Run {
                        drive: d,
                        workload: w,
                        scheme: s,
                        values: values.clone(),
                        replicas,
                    });
                }
            }
        }
    }
    Ok(Plan {
        experiment: spec.experiment,
        drives,
        workloads,
        schemes: scheme_runs.into_iter().map(|s| s.name).collect(),
        baseline,
        params: spec.param,
        precondition,
        states,
        age_once: spec.age_once,
        age_each_replicate: spec.age_each_replicate,
        runs,
        seeds,
    })
}

/// `source` for replicate `i`: a generated workload's seed raised by `i`
/// (wrapping); a trace as it is.
fn reseeded(source: &Source, i: u64) -> Source {
    match source {
        Source::Synthetic(p) => {
            let mut p = p.clone();
            p.seed = p.seed.wrapping_add(i);
            Source::Synthetic(p)
        }
        Source::Limited { inner, limit } => Source::Limited {
            inner: Box::new(reseeded(inner, i)),
            limit: *limit,
        },
        other => other.clone(),
    }
}

/// The seed of a generated workload (None for a trace).
fn workload_seed(source: &Source) -> Option<u64> {
    match source {
        Source::Synthetic(p) => Some(p.seed),
        Source::Limited { inner, .. } => workload_seed(inner),
        _ => None,
    }
}

/// The saved state each run starts from: the drive's named one (`states`),
/// else, where several runs would age the drive alike (the same drive
/// configuration for aging and, where aging reads the workload, the same
/// workload), the drive aged once in memory for all of them. Aging once
/// gives the same results as aging per run (a saved state is the drive as
/// aging leaves it).
fn shared_states(
    plan: &Plan,
    shard: Option<crate::batch::Shard>,
) -> Result<(Vec<ssdlab::sim::SavedState>, Vec<Option<usize>>)> {
    let pre = &plan.precondition;
    let mut pool = Vec::new();
    let mut named = vec![None; plan.states.len()];
    // Runs by what their aging depends on: the drive's keys, and the
    // workload (cell's workload, its seed in the replicate) where aging
    // reads it.
    type AgedAlike = (Vec<(String, String)>, Option<(usize, Option<u64>)>);
    let mut groups: std::collections::BTreeMap<AgedAlike, Vec<usize>> = Default::default();
    // every run of every cell, in task order: (cell, replicate)
    let tasks: Vec<(&Run, usize)> = plan
        .runs
        .iter()
        .flat_map(|run| (0..run.replicas.len()).map(move |i| (run, i)))
        .collect();
    let mut of_run: Vec<Option<usize>> = vec![None; tasks.len()];
    // With `--shard I/N`, the runs this shard runs (`batch::run_all`).
    let mine = tasks
        .iter()
        .enumerate()
        .filter(|(t, _)| shard.is_none_or(|s| t % s.count == s.index));
    for (t, &(run, i)) in mine {
        if let Some(s) = &plan.states[run.drive] {
            let k = *named[run.drive].get_or_insert_with(|| {
                s.keep_decoded();
                pool.push(s.clone());
                pool.len() - 1
            });
            of_run[t] = Some(k);
            continue;
        }
        if plan.workloads[run.workload].flows.is_some() {
            // Runs with flows age their own drive.
            continue;
        }
        let keys = ssdlab::sim::state::drive_keys(&run.replicas[i].config, pre)?;
        // a replicate's generated workload has its own seed; a trace is
        // the same in every replicate
        let workload = pre.reads_workload().then(|| {
            (
                run.workload,
                workload_seed(&plan.workloads[run.workload].sources[i]),
            )
        });
        groups.entry((keys, workload)).or_default().push(t);
    }
    for group in groups.values().filter(|r| plan.age_once && r.len() > 1) {
        crate::interrupt::stop_gracefully();
        let (run, i) = tasks[group[0]];
        let first = &run.replicas[i];
        let (_, state) = ssdlab::Simulator::new_saving(
            &first.config,
            &plan.workloads[run.workload].sources[i],
            pre,
        )
        .with_context(|| format!("aging the drive of run {}", first.label))?;
        state.keep_decoded();
        pool.push(state);
        for &t in group {
            of_run[t] = Some(pool.len() - 1);
        }
    }
    Ok((pool, of_run))
}

/// The workload options of a sweep entry: every trace-reading option at its
/// default (format detected), at most `limit` requests.
pub(crate) fn workload_args(limit: Option<u64>) -> WorkloadArgs {
    WorkloadArgs {
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
            replay_trims: false,
        },
        synthetic: None,
        workload: None,
        limit,
    }
}

/// Comma-separated selections (`--workloads a,b`), checked against the
/// known names, in the known order; empty = all.
pub(crate) fn select<'a>(what: &str, given: &[String], known: &[&'a str]) -> Result<Vec<&'a str>> {
    for g in given {
        if !known.contains(&g.as_str()) {
            bail!(
                "unknown {what} `{g}`{}; known {what}s: {}",
                ssdlab::error::did_you_mean(g, known.iter().copied()),
                known.join(", ")
            );
        }
    }
    Ok(known
        .iter()
        .copied()
        .filter(|k| given.is_empty() || given.iter().any(|g| g == k))
        .collect())
}

/// A percent change as "+1.2%" ("+0.0%" for a change that rounds to
/// zero), "n/a" if undefined.
pub(crate) fn pct(x: Option<f64>) -> String {
    match x {
        Some(x) => format!("{:+.1}%", if x.abs() < 0.05 { 0.0 } else { x }),
        None => "n/a".into(),
    }
}

/// Mean of the defined values, None if there are none.
pub(crate) fn mean_defined(xs: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let v: Vec<f64> = xs.into_iter().flatten().collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Built-in profile `name` sized for `drive`: its footprint and request
/// count scaled by the drive's logical capacity over that of `reference`
/// (the drive the profile was built for), at most `limit` requests. Also a
/// line saying so. The reproductions use it for `--quick`'s smaller drive
/// and for drives larger than the profile's.
pub(crate) fn scaled_profile(
    name: &str,
    reference: &str,
    drive: &Config,
    limit: Option<u64>,
) -> Result<(Source, String)> {
    let mut p = crate::input::builtin_profile(name)?;
    let r = Config::preset(reference)?;
    let bytes = |c: &Config| c.logical_pages() as f64 * c.geometry.page_size_bytes as f64;
    let scale = bytes(drive) / bytes(&r);
    let page = p.page_bytes;
    p.footprint_bytes =
        (((p.footprint_bytes as f64 * scale) / page as f64).round() as u64).max(1) * page;
    p.requests = ((p.requests as f64 * scale).round() as u64).max(1);
    if let Some(l) = limit {
        p.requests = p.requests.min(l);
    }
    let from = format!(
        "built-in {name} x{scale:.3}: {} requests, footprint {:.2} GiB",
        p.requests,
        p.footprint_bytes as f64 / (1u64 << 30) as f64
    );
    Ok((Source::Synthetic(p), from))
}

/// The metrics of the summary tables and charts: file name, title, value.
pub(crate) type MetricFn = fn(&Report) -> f64;
pub(crate) const METRICS: [(&str, &str, MetricFn); 8] = [
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
    (
        "multiplane_share",
        "Multi-plane share of host programs",
        |r| r.flash.host_multiplane_program_share,
    ),
    (
        "plane_utilization",
        "Plane utilisation at evictions, mean",
        |r| r.plane_utilization.at_eviction.mean,
    ),
    ("write_amplification", "Write amplification", |r| {
        r.write_amplification
    }),
];

/// (read + write buffer hits) / (read + write pages).
pub(crate) fn buffer_hit_ratio(r: &Report) -> f64 {
    let pages = r.read.pages + r.write.pages;
    if pages == 0 {
        0.0
    } else {
        (r.buffer.read_hits + r.buffer.write_hits) as f64 / pages as f64
    }
}

/// The results.csv row of `run` (a cell) with `report`.
fn csv_row<'a>(plan: &'a Plan, run: &'a Run, report: &'a Report) -> CsvRow<'a> {
    CsvRow {
        experiment: &plan.experiment,
        preset: &plan.drives[run.drive].label,
        workload: &plan.workloads[run.workload].label,
        scheme: &plan.schemes[run.scheme],
        params: plan
            .params
            .iter()
            .zip(&run.values)
            .map(|(p, &v)| p.values[v].as_str())
            .collect(),
        report,
    }
}

/// results.csv and results.parquet of a sweep (`reports`: every run, cell
/// by cell, replicates of a cell together); with replicates also
/// stats.csv.
fn write_results(dir: &Path, plan: &Plan, reports: &[Report]) -> Result<()> {
    let keys: Vec<&str> = plan.params.iter().map(|p| p.key.as_str()).collect();
    let n = plan.seeds;
    let rows: Vec<CsvRow> = plan
        .runs
        .iter()
        .enumerate()
        .flat_map(|(c, run)| (0..n).map(move |i| (c, run, i)))
        .map(|(c, run, i)| csv_row(plan, run, &reports[c * n + i]))
        .collect();
    if n == 1 {
        crate::results::write_flow_results(dir, &keys, &rows, None)?;
        return crate::results::write_results(dir, &keys, &rows);
    }
    let replicates: Vec<crate::results::Replicate> = plan
        .runs
        .iter()
        .flat_map(|run| {
            run.replicas
                .iter()
                .enumerate()
                .map(|(i, r)| crate::results::Replicate {
                    index: i as u64,
                    seed: r.config.seed,
                    workload_seed: plan.workloads[run.workload].seed(i),
                })
        })
        .collect();
    crate::results::write_flow_results(dir, &keys, &rows, Some(&replicates))?;
    crate::results::write_results_replicated(dir, &keys, &rows, Some(&replicates))?;
    let cells: Vec<CsvRow> = plan
        .runs
        .iter()
        .enumerate()
        .map(|(c, run)| csv_row(plan, run, &reports[c * n]))
        .collect();
    let per_cell: Vec<Vec<&Report>> = reports.chunks(n).map(|c| c.iter().collect()).collect();
    crate::stats::write_stats(dir, &keys, &cells, &per_cell)
}

/// Rows of the normalised tables: one per (drive, workload, param values),
/// with the run index of each scheme.
pub(crate) struct Row {
    pub label: String,
    pub runs: Vec<usize>,
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
pub(crate) fn ratio(value: f64, base: f64) -> Option<f64> {
    if base == 0.0 {
        (value == 0.0).then_some(1.0)
    } else {
        Some(value / base)
    }
}

pub(crate) fn fmt_value(v: f64) -> String {
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

/// Results laid out for comparison: rows (workloads, parameter values) ×
/// schemes, each cell the index of its report, normalised to one scheme.
pub(crate) struct Grid<'a> {
    /// The metrics of the tables and charts (`METRICS` for a sweep).
    pub metrics: &'a [(&'a str, &'a str, MetricFn)],
    pub schemes: &'a [String],
    pub baseline: usize,
    pub rows: Vec<Row>,
    pub reports: &'a [Report],
}

/// How a metric is laid out in the tables and charts.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Layout {
    /// Ratios to the baseline scheme (its value is non-zero in every row).
    Relative,
    /// Absolute values: the baseline's value is 0 in some row, where a
    /// ratio means nothing.
    Absolute,
    /// The metric is 0 in every run: no table or chart, one line says so.
    AllZero,
}

impl Grid<'_> {
    fn layout(&self, metric: MetricFn) -> Layout {
        let value = |i: usize| metric(&self.reports[i]);
        if self
            .rows
            .iter()
            .all(|r| r.runs.iter().all(|&i| value(i) == 0.0))
        {
            Layout::AllZero
        } else if self
            .rows
            .iter()
            .all(|r| value(r.runs[self.baseline]) != 0.0)
        {
            Layout::Relative
        } else {
            Layout::Absolute
        }
    }

    /// One markdown table per metric of `self.metrics`, under a heading of
    /// `level` (`"##"`): the baseline's absolute value, every scheme's ratio
    /// to it (percent change), and the mean ratio. Where the baseline's
    /// value is 0 in some row the table gives every scheme's absolute
    /// value instead; a metric that is 0 in every run gets one line.
    pub fn tables(&self, s: &mut String, level: &str) {
        let bname = &self.schemes[self.baseline];
        for &(_, title, metric) in self.metrics {
            let _ = writeln!(s, "\n{level} {title}\n");
            match self.layout(metric) {
                Layout::AllZero => {
                    let _ = writeln!(s, "0 in every run.");
                    continue;
                }
                Layout::Absolute => {
                    let _ = writeln!(
                        s,
                        "Absolute values ({bname} is 0 in some rows, where a ratio to it means nothing).\n"
                    );
                    let mut head = String::from("| workload |");
                    let mut rule = String::from("|---|");
                    for name in self.schemes {
                        let _ = write!(head, " {name} |");
                        rule.push_str("---:|");
                    }
                    let _ = writeln!(s, "{head}\n{rule}");
                    for row in &self.rows {
                        let _ = write!(s, "| {} |", row.label);
                        for &i in &row.runs {
                            let _ = write!(s, " {} |", fmt_value(metric(&self.reports[i])));
                        }
                        s.push('\n');
                    }
                    continue;
                }
                Layout::Relative => {}
            }
            let mut head = format!("| workload | {bname} (absolute) |");
            let mut rule = String::from("|---|---:|");
            for name in self.schemes {
                let _ = write!(head, " {name} |");
                rule.push_str("---:|");
            }
            let _ = writeln!(s, "{head}\n{rule}");
            let mut sums = vec![(0.0, 0usize); self.schemes.len()];
            for row in &self.rows {
                let b = metric(&self.reports[row.runs[self.baseline]]);
                let _ = write!(s, "| {} | {} |", row.label, fmt_value(b));
                for (k, &i) in row.runs.iter().enumerate() {
                    let r = ratio(metric(&self.reports[i]), b);
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
    }

    /// A metric's bar chart: ratios to the baseline, or absolute values
    /// where the baseline is 0 in some row; None when it is 0 everywhere.
    fn chart(&self, title: &str, metric: MetricFn) -> Option<String> {
        let layout = self.layout(metric);
        if layout == Layout::AllZero {
            return None;
        }
        let categories: Vec<&str> = self.rows.iter().map(|r| r.label.as_str()).collect();
        let base = &self.schemes[self.baseline];
        let series: Vec<(&str, Vec<f64>)> = self
            .schemes
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let values = self
                    .rows
                    .iter()
                    .map(|row| {
                        let v = metric(&self.reports[row.runs[k]]);
                        match layout {
                            Layout::Relative => {
                                let b = metric(&self.reports[row.runs[self.baseline]]);
                                ratio(v, b).unwrap_or(0.0)
                            }
                            _ => v,
                        }
                    })
                    .collect();
                (name.as_str(), values)
            })
            .collect();
        Some(match layout {
            Layout::Relative => crate::svg::bar_chart(
                &format!("{title}, relative to {base}"),
                &format!("ratio to {base}"),
                &categories,
                &series,
            ),
            _ => crate::svg::bar_chart(title, title, &categories, &series),
        })
    }

    /// One bar chart per metric of `self.metrics` that is not 0 in every
    /// run: `dir/<metric>.svg`.
    pub fn write_charts(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for &(file, title, metric) in self.metrics {
            if let Some(svg) = self.chart(title, metric) {
                write(&dir.join(format!("{file}.svg")), &svg)?;
            }
        }
        Ok(())
    }
}

pub(crate) fn write(path: &Path, text: &str) -> Result<()> {
    crate::output::write_atomic(path, text.as_bytes())
}

/// What a shard's output directory says about it (`shard.json`), so that
/// `sweep merge` finds the spec.
#[derive(Serialize, Deserialize)]
struct ShardInfo {
    spec: PathBuf,
    spec_sha256: String,
    shard: String,
    /// `--seeds`, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seeds: Option<u64>,
}

const SHARD_INFO: &str = "shard.json";

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn cmd_sweep(c: SweepCmd) -> Result<ExitCode> {
    match c.sub {
        None => sweep(c.args),
        Some(SweepSub::Merge { dirs, out, jobs }) => {
            let mut spec: Option<(PathBuf, String, Option<u64>)> = None;
            for d in &dirs {
                let p = d.join(SHARD_INFO);
                let text = read_spec(&p, "a shard description").with_context(|| {
                    format!("is {} the --out of a `sweep --shard` run?", d.display())
                })?;
                let info: ShardInfo = serde_json::from_str(&text)
                    .with_context(|| format!("{}: not a shard description", p.display()))?;
                match &spec {
                    None => spec = Some((info.spec, info.spec_sha256, info.seeds)),
                    Some((path, sha, seeds))
                        if *path != info.spec
                            || *sha != info.spec_sha256
                            || *seeds != info.seeds =>
                    {
                        bail!(
                        "{} ran {} (or another version of it), not {}: merge the shards of one sweep",
                        d.display(),
                        info.spec.display(),
                        path.display()
                    )
                    }
                    Some(_) => {}
                }
            }
            let (path, sha, seeds) = spec.expect("at least one directory");
            let now = read_spec(&path, "a sweep spec")
                .with_context(|| format!("the shards' spec {}", path.display()))?;
            if sha256_hex(now.as_bytes()) != sha {
                bail!(
                    "{} changed since the shards ran; rerun them, or merge by hand with the old spec",
                    path.display()
                );
            }
            sweep(SweepArgs {
                spec: Some(path),
                out: Some(out),
                list: false,
                batch: crate::batch::BatchArgs {
                    jobs,
                    merge: dirs,
                    ..Default::default()
                },
                max_runs: u64::MAX,
                quiet: false,
                seeds,
            })
        }
    }
}

/// A sweep as a library call ([`crate::api::sweep`]); `seeds` replaces the
/// spec's.
pub(crate) fn run_sweep(
    spec: &Path,
    out: &Path,
    batch: crate::batch::BatchArgs,
    seeds: Option<u64>,
) -> Result<()> {
    sweep(SweepArgs {
        spec: Some(spec.to_path_buf()),
        out: Some(out.to_path_buf()),
        list: false,
        batch,
        max_runs: DEFAULT_MAX_RUNS,
        quiet: true,
        seeds,
    })
    .map(|_| ())
}

/// The runs of the sweep `spec` (with `seeds` replacing the spec's):
/// (index, file, label).
pub(crate) fn list_runs(spec: &Path, seeds: Option<u64>) -> Result<Vec<(usize, String, String)>> {
    let plan = plan(spec, DEFAULT_MAX_RUNS, seeds)?;
    Ok(plan
        .runs
        .iter()
        .flat_map(|r| r.replicas.iter())
        .enumerate()
        .map(|(i, r)| (i, r.file.clone(), r.label.clone()))
        .collect())
}

fn sweep(a: SweepArgs) -> Result<ExitCode> {
    let spec = a.spec.expect("clap requires the spec");
    let jobs = a.batch.job_count()?;
    let plan = plan(&spec, a.max_runs, a.seeds)?;
    if a.list {
        for (i, run) in plan.runs.iter().flat_map(|r| r.replicas.iter()).enumerate() {
            println!("{i}\t{}\t{}", run.file, run.label);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let out = a.out.expect("clap requires --out without --list");
    let _lock = crate::output::check_out_dir(&out, "--out")?;
    if let Some(shard) = a.batch.shard {
        let text = read_spec(&spec, "a sweep spec")?;
        let info = ShardInfo {
            spec: std::path::absolute(&spec)
                .with_context(|| format!("resolving {}", spec.display()))?,
            spec_sha256: sha256_hex(text.as_bytes()),
            shard: shard.to_string(),
            seeds: a.seeds,
        };
        crate::write_json(&out.join(SHARD_INFO), &info)?;
    }
    let charts_dir = out.join("charts");
    std::fs::create_dir_all(&charts_dir)
        .with_context(|| format!("creating {}", charts_dir.display()))?;
    let total = plan.runs.len() * plan.seeds;
    eprintln!(
        "sweep `{}`: {} runs on {} threads",
        plan.experiment,
        total,
        jobs.min(total)
    );
    let started = Instant::now();
    let (states, state_of_run) = shared_states(&plan, a.batch.shard)?;
    let tasks: Vec<Task> = plan
        .runs
        .iter()
        .flat_map(|run| {
            run.replicas
                .iter()
                .enumerate()
                .map(move |(i, r)| (run, i, r))
        })
        .zip(&state_of_run)
        .map(|((run, i, r), state)| Task {
            label: r.label.clone(),
            file: r.file.clone(),
            config: &r.config,
            work: match &plan.workloads[run.workload].flows {
                Some(f) => crate::batch::Work::Flows(&f.replicas[i]),
                None => crate::batch::Work::One(&plan.workloads[run.workload].sources[i]),
            },
            precondition: &plan.precondition,
            state: state.map(|k| &states[k]),
        })
        .collect();
    let Some(reports) = crate::batch::run_all(&tasks, &a.batch, &out, "sweep")? else {
        return Ok(ExitCode::SUCCESS);
    };
    write_results(&out, &plan, &reports)?;
    let bname = &plan.schemes[plan.baseline];
    let mut text = String::new();
    if plan.seeds == 1 {
        let grid = Grid {
            metrics: &METRICS,
            schemes: &plan.schemes,
            baseline: plan.baseline,
            rows: rows(&plan),
            reports: &reports,
        };
        let _ = writeln!(
            text,
            "# Sweep `{}`: {} runs\n\nValues are normalised to the baseline scheme `{bname}`: ratio (percent change). \
             The `{bname}` column gives its absolute value; \"average\" is the mean ratio over the rows.",
            plan.experiment,
            plan.runs.len()
        );
        grid.tables(&mut text, "##");
        write(&out.join("summary.md"), &text)?;
        grid.write_charts(&charts_dir)?;
    } else {
        let n = plan.seeds;
        let grid = crate::stats::ReplicatedGrid {
            metrics: &METRICS,
            schemes: &plan.schemes,
            baseline: plan.baseline,
            rows: rows(&plan),
            cells: reports.chunks(n).map(|c| c.iter().collect()).collect(),
        };
        let _ = writeln!(
            text,
            "# Sweep `{}`: {} runs ({} cells × {n} seeds)\n\nEach value is the mean over {n} seeds ± the half-width of its 95 % \
             confidence interval (Student t, {} degrees of freedom); in parentheses, the ratio of the mean to the baseline \
             scheme `{bname}`'s (percent change). Every cell's replicates ran with the same seeds ({}). stats.csv has \
             every metric; `ssdlab compare` tests two schemes against each other.",
            plan.experiment,
            total,
            plan.runs.len(),
            n - 1,
            if plan.age_each_replicate {
                "replicate i: each seed raised by i, its own aged drive"
            } else {
                "replicate i: a generated workload's seed raised by i and the model's i-th random stream, \
                 on the cell's one aged drive"
            }
        );
        grid.tables(&mut text, "##");
        write(&out.join("summary.md"), &text)?;
        grid.write_charts(&charts_dir, n)?;
    }
    if !a.quiet {
        print!("{text}");
    }
    eprintln!(
        "{} runs in {:.1} s; results in {}",
        total,
        started.elapsed().as_secs_f64(),
        out.display()
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
    fn ratios() {
        assert_eq!(ratio(2.0, 4.0), Some(0.5));
        assert_eq!(ratio(0.0, 0.0), Some(1.0));
        assert_eq!(ratio(1.0, 0.0), None);
    }
}
