//! The command-line options that choose a workload and how a trace is read,
//! shared by `run`, `hdi` and the `trace` tools, so every command accepts the
//! same flags with the same meaning.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Result};
use clap::Args;

use ssdlab::workload::synthetic::Profile;
use ssdlab::workload::{
    builtin, custom, detect, BlkparseAction, ReadCounters, Source, TraceFormat, TraceOptions,
};

/// How a trace file is read.
#[derive(Args, Clone, Debug)]
pub struct ReadArgs {
    /// Trace format: msr, spc, msprod, systor, alibaba, tencent, blkparse,
    /// disksim, mqsim, ssdsim, linnos, auto (detect from a sample of the
    /// lines; refused when the sample cannot tell), or a
    /// format spec describing any other line-per-request layout: a TOML
    /// file, or its keys inline (`separator = ",", time = { column = 1,
    /// unit = "s" }, ...`; see README.md, "Describing a trace format").
    #[arg(long, default_value = "auto", value_name = "FORMAT|SPEC.toml|SPEC")]
    pub trace_format: String,
    /// Keep only this device: disk (msr, msprod), ASU (spc), LUN (systor),
    /// device id (alibaba), volume (tencent), device number (disksim, mqsim,
    /// ssdsim, linnos), or major<<20|minor (blkparse).
    #[arg(long)]
    pub device: Option<u32>,
    /// Lay devices side by side: device i starts at i × BYTES (e.g. the
    /// ASUs of an SPC trace on one drive).
    #[arg(long, value_name = "BYTES")]
    pub device_stride: Option<u64>,
    /// Skip malformed records (they are counted and reported) instead of
    /// stopping at the first.
    #[arg(long)]
    pub skip_bad_lines: bool,
    /// Reorder window: records whose timestamps go backwards are put in time
    /// order through a window of this many records (default 65536, also
    /// when given without a value); 0 asks for strict order, where a
    /// timestamp going backwards is an error.
    #[arg(long, value_name = "RECORDS", num_args = 0..=1, default_missing_value = "65536")]
    pub sort: Option<usize>,
    /// Drop the first N records (after the device filter).
    #[arg(long, default_value_t = 0)]
    pub skip_records: u64,
    /// Drop records before this time, seconds from the trace's start.
    #[arg(long, default_value_t = 0.0)]
    pub start_s: f64,
    /// blkparse: replay the D (issue, default) or Q (queue) actions.
    #[arg(long, default_value = "D")]
    pub blkparse_action: String,
    /// Replay discard (TRIM/UNMAP) records as trims: their whole pages
    /// become invalid (GC sees them). Without it they are counted, not
    /// replayed, so that results do not depend on them.
    #[arg(long)]
    pub replay_trims: bool,
}

impl ReadArgs {
    /// The trace at `path` as a source, its format resolved (and said when
    /// detected), with the counters the reader fills in.
    pub fn trace(
        &self,
        path: &Path,
        limit: Option<u64>,
    ) -> Result<(Source, TraceFormat, Arc<ReadCounters>)> {
        let (mut format, format_spec) = custom::format_arg(&self.trace_format)?;
        let mut detection = None;
        if format == TraceFormat::Auto {
            let d = detect::explain(path)?;
            format = d.format;
            eprintln!(
                "trace format: detected {} for {}: {}",
                format.name(),
                path.display(),
                d.reasons[1..].join("; ")
            );
            detection = Some(Arc::new(d));
        }
        if !(self.start_s.is_finite() && self.start_s >= 0.0) {
            bail!("--start-s must be a non-negative number of seconds");
        }
        let blkparse_action = match self.blkparse_action.as_str() {
            "D" | "d" => BlkparseAction::Issue,
            "Q" | "q" => BlkparseAction::Queue,
            other => bail!("--blkparse-action `{other}`: expected D (issue) or Q (queue)"),
        };
        let counters = Arc::new(ReadCounters::default());
        let options = TraceOptions {
            device: self.device,
            limit,
            skip_records: self.skip_records,
            start_ns: (self.start_s * 1e9).round() as u64,
            skip_bad_lines: self.skip_bad_lines,
            sort_window: self.sort,
            side_by_side: self.device_stride.is_some(),
            device_stride: self.device_stride,
            blkparse_action,
            replay_trims: self.replay_trims,
            format_spec,
            detection,
            name: None,
            counters: counters.clone(),
        };
        options.validate()?;
        Ok((
            Source::Trace {
                path: path.to_path_buf(),
                format,
                options,
            },
            format,
            counters,
        ))
    }
}

/// Which workload to use: a trace, a profile file, or a built-in profile.
#[derive(Args, Clone, Debug)]
pub struct WorkloadArgs {
    /// Trace file to replay (plain, gzip or zstd).
    #[arg(long, conflicts_with_all = ["synthetic", "workload"])]
    pub trace: Option<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
    /// Synthetic workload profile (TOML).
    #[arg(long, conflicts_with = "workload")]
    pub synthetic: Option<PathBuf>,
    /// A built-in workload profile (see `ssdlab workloads`).
    #[arg(long)]
    pub workload: Option<String>,
    /// At most this many requests.
    #[arg(long)]
    pub limit: Option<u64>,
}

/// A chosen workload.
pub struct Loaded {
    pub source: Source,
    /// The trace reader's counters (traces only).
    pub counters: Option<Arc<ReadCounters>>,
    /// Requests expected, when known in advance (for progress bars).
    pub total: Option<u64>,
}

impl Loaded {
    /// Say what the trace reader dropped or repaired, if anything.
    pub fn report_counts(&self) {
        if let Some(c) = &self.counters {
            let counts = c.snapshot();
            if counts.records > 0 {
                eprintln!("trace: {counts}");
            }
        }
    }
}

/// A built-in profile by name, with the list of names in the error.
pub fn builtin_profile(name: &str) -> Result<Profile> {
    match builtin::get(name) {
        Some(p) => Ok(p),
        None => bail!(
            "unknown workload `{name}`{}; built-in workloads (see `ssdlab workloads`): {}",
            ssdlab::error::did_you_mean(name, builtin::names().iter().copied()),
            builtin::names().join(", ")
        ),
    }
}

impl WorkloadArgs {
    /// The workload as a source. `seed` overrides a profile's seed.
    pub fn load(&self, seed: Option<u64>) -> Result<Loaded> {
        let profile = |mut p: Profile| {
            if let Some(s) = seed {
                p.seed = s;
            }
            let total = match (p.request_limit(), self.limit) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            Loaded {
                source: Source::Synthetic(p).limited(self.limit),
                counters: None,
                total,
            }
        };
        match (&self.trace, &self.synthetic, &self.workload) {
            (Some(path), None, None) => {
                let (source, _, counters) = self.read.trace(path, self.limit)?;
                Ok(Loaded {
                    source,
                    counters: Some(counters),
                    total: self.limit,
                })
            }
            (None, Some(path), None) => Ok(profile(Profile::load(path)?)),
            (None, None, Some(name)) => Ok(profile(builtin_profile(name)?)),
            (None, None, None) => {
                bail!("nothing to replay: give --trace FILE, --synthetic PROFILE.toml or --workload NAME (see `ssdlab workloads`)")
            }
            _ => unreachable!("clap rejects more than one workload"),
        }
    }
}

/// A `--flow` option: `key=value` pairs joined by commas. Keys: `name`
/// (required), one of `workload` (a built-in profile), `trace` (a file)
/// or `synthetic` (a profile file), and optionally `limit`, `start_us`,
/// `queue_depth`, `priority` (urgent, high, medium, low) and `namespace`
/// (`FIRST:PAGES`, the flow's own logical pages; absent or `shared`: the
/// drive's whole space), and its partition of the flash: `channels`,
/// `chips`, `dies`, `planes`, each a list of indices joined by `+`, an
/// index or a range `A-B` (`channels=0-3`, `planes=0+2`).
pub fn parse_flow(spec: &str) -> Result<ssdlab::config::FlowConfig> {
    use ssdlab::config::{FlowConfig, Namespace, Priority};
    let mut f = FlowConfig {
        name: String::new(),
        workload: None,
        trace: None,
        synthetic: None,
        limit: None,
        start_us: 0.0,
        queue_depth: 32,
        priority: Priority::Medium,
        namespace: None,
        channels: None,
        chips: None,
        dies: None,
        planes: None,
    };
    let mut seen = std::collections::HashSet::new();
    for part in spec.split(',') {
        let Some((key, value)) = part.split_once('=') else {
            bail!("--flow {spec}: `{part}` is not key=value (keys: name, workload, trace, synthetic, limit, start_us, queue_depth, priority, namespace, channels, chips, dies, planes)");
        };
        let (key, value) = (key.trim(), value.trim());
        if !seen.insert(key.to_string()) {
            bail!("--flow {spec}: `{key}` given twice");
        }
        let number = |what: &str| -> Result<u64> {
            value
                .parse::<u64>()
                .map_err(|_| anyhow::anyhow!("--flow {spec}: {key}: `{value}` is not {what}"))
        };
        match key {
            "name" => f.name = value.to_string(),
            "workload" => f.workload = Some(value.to_string()),
            "trace" => f.trace = Some(value.to_string()),
            "synthetic" => f.synthetic = Some(value.to_string()),
            "limit" => f.limit = Some(number("a whole number of requests")?),
            "queue_depth" => {
                f.queue_depth = u32::try_from(number("a whole number of entries")?)
                    .map_err(|_| anyhow::anyhow!("--flow {spec}: queue_depth: `{value}` is too large"))?
            }
            "start_us" => {
                f.start_us = value.parse::<f64>().map_err(|_| {
                    anyhow::anyhow!("--flow {spec}: start_us: `{value}` is not a number of µs")
                })?
            }
            "priority" => {
                f.priority = match value {
                    "urgent" => Priority::Urgent,
                    "high" => Priority::High,
                    "medium" => Priority::Medium,
                    "low" => Priority::Low,
                    _ => bail!("--flow {spec}: priority: `{value}` is not urgent, high, medium or low"),
                }
            }
            "namespace" => {
                f.namespace = match value {
                    "shared" => None,
                    _ => {
                        let (first, pages) = value.split_once(':').ok_or_else(|| {
                            anyhow::anyhow!(
                                "--flow {spec}: namespace: `{value}` is not FIRST_PAGE:PAGES or shared"
                            )
                        })?;
                        let parse = |v: &str| {
                            v.trim().parse::<u64>().map_err(|_| {
                                anyhow::anyhow!("--flow {spec}: namespace: `{v}` is not a whole number of pages")
                            })
                        };
                        Some(Namespace {
                            first_page: parse(first)?,
                            pages: parse(pages)?,
                        })
                    }
                }
            }
            "channels" => f.channels = Some(parse_indices(spec, key, value)?),
            "chips" => f.chips = Some(parse_indices(spec, key, value)?),
            "dies" => f.dies = Some(parse_indices(spec, key, value)?),
            "planes" => f.planes = Some(parse_indices(spec, key, value)?),
            _ => bail!(
                "--flow {spec}: unknown key `{key}`{} (keys: name, workload, trace, synthetic, limit, start_us, queue_depth, priority, namespace, channels, chips, dies, planes)",
                ssdlab::error::did_you_mean(
                    key,
                    [
                        "name", "workload", "trace", "synthetic", "limit", "start_us",
                        "queue_depth", "priority", "namespace", "channels", "chips", "dies",
                        "planes"
                    ]
                    .into_iter()
                )
            ),
        }
    }
    if f.name.is_empty() {
        bail!("--flow {spec}: give the flow a name (name=...)");
    }
    Ok(f)
}

/// A `--flow` partition list: indices and ranges `A-B` joined by `+`, in
/// the order given (the configuration's validation refuses duplicates and
/// indices the drive lacks).
fn parse_indices(spec: &str, key: &str, value: &str) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    if value.trim().is_empty() {
        return Ok(out);
    }
    for item in value.split('+') {
        let item = item.trim();
        let num = |v: &str| {
            v.trim().parse::<u32>().map_err(|_| {
                anyhow::anyhow!(
                    "--flow {spec}: {key}: `{v}` is not an index (give indices or ranges A-B joined by +)"
                )
            })
        };
        match item.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    bail!("--flow {spec}: {key}: the range `{item}` is empty (A-B with A <= B)");
                }
                if (b - a) as usize > 1 << 16 {
                    bail!("--flow {spec}: {key}: the range `{item}` is longer than any drive's");
                }
                out.extend(a..=b);
            }
            None => out.push(num(item)?),
        }
    }
    Ok(out)
}

/// The workload of each of `cfg`'s flows, in order: a built-in profile, a
/// profile file or a trace read as `read` says; `seed` overrides every
/// profile's seed.
pub fn flow_sources(
    cfg: &ssdlab::Config,
    read: &ReadArgs,
    seed: Option<u64>,
) -> Result<Vec<Source>> {
    let mut out = Vec::new();
    for (i, f) in cfg.flows.iter().enumerate() {
        let profile = |mut p: Profile| {
            if let Some(s) = seed {
                p.seed = s;
            }
            Source::Synthetic(p).limited(f.limit)
        };
        let what = || format!("flow `{}` (flows[{i}])", f.name);
        let source = match (&f.workload, &f.trace, &f.synthetic) {
            (Some(name), None, None) => {
                profile(builtin_profile(name).map_err(|e| e.context(what()))?)
            }
            (None, None, Some(path)) => profile(
                Profile::load(Path::new(path))
                    .map_err(|e| anyhow::Error::from(e).context(what()))?,
            ),
            (None, Some(path), None) => {
                read.trace(Path::new(path), f.limit)
                    .map_err(|e| e.context(what()))?
                    .0
            }
            _ => bail!(
                "{}: give exactly one of workload, trace or synthetic",
                what()
            ),
        };
        out.push(source);
    }
    Ok(out)
}
