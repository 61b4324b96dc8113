//! The CLI's jobs as library calls, for other front ends (the Python
//! package in `python/`): one run, a sweep (or one shard of it), the
//! catalogues. Inputs are plain values; results are the JSON the CLI
//! writes, so every front end reads the same documents.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde::Serialize;

use ssdlab::Config;

use crate::batch::BatchArgs;
use crate::input::WorkloadArgs;

/// A sweep spec given as JSON (an object with the keys of the TOML spec) as
/// the TOML text `ssdlab sweep` reads; a value TOML cannot hold (null) is an
/// error naming it.
pub fn spec_toml(json: &str) -> Result<String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| anyhow::anyhow!("sweep spec: {e}"))?;
    if !value.is_object() {
        bail!("sweep spec: expected a mapping of the spec's keys, got {value}");
    }
    fn check(v: &serde_json::Value, at: &str) -> Result<()> {
        match v {
            serde_json::Value::Null => {
                bail!("sweep spec: `{at}` is None; leave the key out instead")
            }
            serde_json::Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    check(x, &format!("{at}[{i}]"))?;
                }
                Ok(())
            }
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    let key = if at.is_empty() {
                        k.clone()
                    } else {
                        format!("{at}.{k}")
                    };
                    check(x, &key)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
    check(&value, "")?;
    let toml_value: toml::Value =
        serde_json::from_value(value).map_err(|e| anyhow::anyhow!("sweep spec: {e}"))?;
    toml::to_string(&toml_value).map_err(|e| anyhow::anyhow!("sweep spec: {e}"))
}

/// What `ssdlab run` takes, as values.
#[derive(Clone, Debug, Default)]
pub struct RunRequest {
    /// A built-in drive (default `small`), or a configuration file.
    pub preset: Option<String>,
    pub config: Option<PathBuf>,
    pub scheme: Option<String>,
    /// `--conventions` (`mqsim`, `ssdlab`).
    pub conventions: Option<String>,
    /// `KEY=VALUE` overrides, in order.
    pub sets: Vec<String>,
    /// Exactly one of: a built-in workload, a trace file, a profile file.
    pub workload: Option<String>,
    pub trace: Option<PathBuf>,
    /// The trace's format (default `auto`).
    pub trace_format: Option<String>,
    pub profile: Option<PathBuf>,
    /// `--precondition` (default `trace-reads`: the pages the workload reads
    /// mapped first).
    pub precondition: Option<String>,
    /// `--save-state`: save the drive as aging left it to this file.
    pub save_state: Option<PathBuf>,
    /// `--load-state`: start from this saved state instead of aging.
    pub load_state: Option<PathBuf>,
    pub seed: Option<u64>,
    pub limit: Option<u64>,
    /// Several flows (tenants) instead of one workload: each a `--flow`
    /// spec (`name=reader,workload=NAME,queue_depth=8,...`) or a JSON object
    /// with the keys of a `[[flows]]` table; added after any `[[flows]]` of
    /// the configuration.
    pub flows: Vec<String>,
    /// With flows: also run each flow alone and report its slowdown and
    /// the run's fairness (`--alone`).
    pub alone: bool,
}

/// One flow given to [`run`]: a JSON object with the keys of a `[[flows]]`
/// table, or a `--flow` spec.
pub fn parse_flow(spec: &str, index: usize) -> Result<ssdlab::config::FlowConfig> {
    if spec.trim_start().starts_with('{') {
        serde_json::from_str(spec).map_err(|e| anyhow::anyhow!("flows[{index}]: {e}"))
    } else {
        crate::input::parse_flow(spec).map_err(|e| e.context(format!("flows[{index}]")))
    }
}

/// The result of a run: the report with what produced it (as `--json`
/// writes it), and the latency distribution (as `--histogram` writes it).
#[derive(Serialize)]
struct RunResponse<'a> {
    result: crate::meta::Described<'a>,
    latency_cdf: Vec<ssdlab::CdfPoint>,
}

/// Run one simulation; the response as JSON: `{"result": …, "latency_cdf": […]}`.
pub fn run(req: &RunRequest) -> Result<String> {
    // With flows, the keys that need them (queues, scheduler, sharing
    // among flows) apply once the flows are added.
    let (queue_sets, sets): (Vec<String>, Vec<String>) = req
        .sets
        .iter()
        .cloned()
        .partition(|s| !req.flows.is_empty() && ssdlab::config::set_after_flows(s));
    let mut cfg = crate::load_config(
        req.preset.as_deref(),
        req.config.as_deref(),
        req.scheme.as_deref(),
        req.conventions.as_deref(),
        &sets,
        req.seed,
    )?;
    for (i, spec) in req.flows.iter().enumerate() {
        cfg.flows.push(parse_flow(spec, i)?);
    }
    if !req.flows.is_empty() {
        cfg = cfg.with_overrides(&queue_sets)?;
        cfg.validate(&cfg.name.clone())?;
    }
    if !cfg.flows.is_empty() {
        return run_flows(req, &cfg);
    }
    if req.alone {
        bail!("alone= runs each flow alone: give flows= (or [[flows]] in the configuration)");
    }
    let state = match (&req.load_state, &req.precondition, &req.save_state) {
        (Some(_), Some(_), _) => {
            bail!("give load_state= or precondition=, not both (a saved state records its aging)")
        }
        (Some(_), _, Some(_)) => bail!("give load_state= or save_state=, not both"),
        (Some(path), _, _) => Some(ssdlab::sim::SavedState::read_for(path, &cfg)?),
        _ => None,
    };
    let pre = match &state {
        Some(s) => s.precondition()?,
        None => crate::run_precondition(req.precondition.as_deref(), req.conventions.as_deref())?,
    };
    if let Some(path) = &req.save_state {
        crate::output::check_writable(path, "save_state=")?;
    }
    let given = [
        req.workload.is_some(),
        req.trace.is_some(),
        req.profile.is_some(),
    ];
    if given.iter().filter(|&&g| g).count() != 1 {
        bail!("give exactly one of workload=, trace= and profile=");
    }
    let mut args: WorkloadArgs = crate::sweep::workload_args(req.limit);
    args.workload = req.workload.clone();
    args.trace = req.trace.clone();
    args.synthetic = req.profile.clone();
    if let Some(f) = &req.trace_format {
        args.read.trace_format = f.clone();
    }
    let loaded = args.load(req.seed)?;
    let start = match (&state, &req.save_state) {
        (Some(s), _) => crate::Start::Load(s),
        (None, Some(path)) => crate::Start::Save(&pre, path),
        (None, None) => crate::Start::Age(&pre),
    };
    let sim = start.simulator(&cfg, &loaded.source)?;
    let (report, sim) = sim.run_observed_inspect(&mut |_| ssdlab::Control::Continue)?;
    let latency_cdf = sim.latency_cdf();
    drop(sim);
    let run = crate::meta::describe(&cfg, &loaded.source, &pre, &crate::meta::Hashes::default())?;
    respond(report, run, latency_cdf)
}

/// The JSON of a run's result: `{"result": …, "latency_cdf": […]}`.
fn respond(
    report: ssdlab::Report,
    run: crate::meta::RunMeta,
    latency_cdf: Vec<ssdlab::CdfPoint>,
) -> Result<String> {
    Ok(serde_json::to_string(&RunResponse {
        result: crate::meta::Described {
            report: std::borrow::Cow::Owned(report),
            run,
        },
        latency_cdf,
    })?)
}

/// [`run`] with flows: each flow's workload from its own keys, then the
/// run and, with `alone`, the alone runs (slowdowns and fairness).
fn run_flows(req: &RunRequest, cfg: &Config) -> Result<String> {
    if req.workload.is_some() || req.trace.is_some() || req.profile.is_some() {
        bail!("with flows, each flow names its own workload (workload, trace or synthetic): drop workload=, trace= and profile=");
    }
    if req.limit.is_some() {
        bail!("with flows, each flow has its own limit: drop limit=");
    }
    if req.save_state.is_some() || req.load_state.is_some() {
        bail!("save_state= and load_state= are not supported with flows");
    }
    let pre = crate::run_precondition(req.precondition.as_deref(), req.conventions.as_deref())?;
    let mut read = crate::sweep::workload_args(None).read;
    if let Some(f) = &req.trace_format {
        read.trace_format = f.clone();
    }
    let sources = crate::input::flow_sources(cfg, &read, req.seed)?;
    let sim = ssdlab::Simulator::with_flows(cfg, &sources, &pre)?;
    let (mut report, sim) = sim.run_observed_inspect(&mut |_| ssdlab::Control::Continue)?;
    let latency_cdf = sim.latency_cdf();
    drop(sim);
    if req.alone && !report.partial {
        let alone = ssdlab::sim::flows::alone_mean_latencies(cfg, &sources, &pre, &mut |_| {
            ssdlab::Control::Continue
        })?;
        report.set_alone(&alone);
    }
    let run = crate::meta::describe_flows(cfg, &sources, &pre, &crate::meta::Hashes::default())?;
    respond(report, run, latency_cdf)
}

/// Run a sweep (`ssdlab sweep SPEC --out OUT`), or with `shard` one shard of
/// it, reusing the runs saved in `merge`'s directories; `seeds` replaces
/// the spec's `seeds` (`--seeds`).
pub fn sweep(
    spec: &Path,
    out: &Path,
    jobs: Option<usize>,
    shard: Option<&str>,
    merge: Vec<PathBuf>,
    seeds: Option<u64>,
) -> Result<()> {
    let shard = match shard {
        Some(s) => Some(crate::batch::parse_shard(s).map_err(anyhow::Error::msg)?),
        None => None,
    };
    crate::sweep::run_sweep(
        spec,
        out,
        BatchArgs {
            jobs,
            resume: false,
            shard,
            merge,
        },
        seeds,
    )
}

/// The runs of a sweep (with `seeds` replacing the spec's): (index, file
/// under runs/ without `.json`, label).
pub fn sweep_runs(spec: &Path, seeds: Option<u64>) -> Result<Vec<(usize, String, String)>> {
    crate::sweep::list_runs(spec, seeds)
}

/// `ssdlab compare DIR A B`: the comparison of schemes `a` and `b` in the
/// sweep results `dir`, as the JSON `--json` writes.
pub fn compare(dir: &Path, a: &str, b: &str) -> Result<String> {
    let c = crate::compare::compare(dir, a, b)?;
    Ok(serde_json::to_string(&c)?)
}

#[derive(Serialize)]
struct Named {
    name: String,
    description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity_gib: Option<f64>,
}

/// The built-in drives, as JSON `[{"name", "description", "capacity_gib"}]`.
pub fn presets() -> Result<String> {
    let mut v = Vec::new();
    for (name, about) in Config::preset_names() {
        let c = Config::preset(name)?;
        v.push(Named {
            name: name.to_string(),
            description: about.to_string(),
            capacity_gib: Some(
                c.physical_pages() as f64 * c.geometry.page_size_bytes as f64 / (1u64 << 30) as f64,
            ),
        });
    }
    Ok(serde_json::to_string(&v)?)
}

/// The registered schemes, as JSON `[{"name", "description"}]`.
pub fn schemes() -> Result<String> {
    let v: Vec<Named> = ssdlab::scheme::SCHEMES
        .iter()
        .map(|s| Named {
            name: s.name.to_string(),
            description: s.description.to_string(),
            capacity_gib: None,
        })
        .collect();
    Ok(serde_json::to_string(&v)?)
}

/// The built-in workloads, as JSON `[{"name", "description"}]`.
pub fn workloads() -> Result<String> {
    use ssdlab::workload::builtin;
    let v: Vec<Named> = builtin::names()
        .into_iter()
        .map(|n| Named {
            name: n.to_string(),
            description: builtin::describe(n).unwrap_or("").to_string(),
            capacity_gib: None,
        })
        .collect();
    Ok(serde_json::to_string(&v)?)
}

/// Do not install the SIGINT/SIGTERM handler (an embedding interpreter
/// keeps its own: Python's KeyboardInterrupt).
pub fn leave_signals_alone() {
    crate::interrupt::disable();
}

/// Let the embedding program say whether it was interrupted: `hook` is
/// called now and then (at most every 50 ms) from the thread that made the
/// call (a run; a sweep's waiting thread), and from readers waiting on a
/// pipe; once it answers true, the work stops as at an interrupt (a run
/// returns its result so far, marked partial).
pub fn set_interrupt_hook(hook: fn() -> bool) {
    ssdlab::workload::interrupt::set_poll_hook(hook);
}

/// Forget an interrupt of an earlier call (before the next one).
pub fn clear_interrupt() {
    ssdlab::workload::interrupt::clear();
}

/// Did an interrupt stop the work (an error that says so)?
pub fn is_interrupted(e: &anyhow::Error) -> bool {
    crate::stopped_by_interrupt(e)
}
