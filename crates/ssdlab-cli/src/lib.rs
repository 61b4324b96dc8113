//! `ssdlab`: the command-line front end of the simulator.
//!
//! The binary (`src/main.rs`) only calls [`main`]. The commands live in this
//! library so that what parses a user's files (the sweep spec among them) can
//! also be driven by the fuzz targets ([`fuzz`]) and other front ends.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use ssdlab::workload::synthetic::Profile;
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Progress, Report, Simulator};

pub mod api;
mod batch;
mod bench;
mod compare;
pub mod fuzz;
mod hdi_cmd;
mod input;
mod interrupt;
mod lifetime_cmd;
pub mod meta;
mod output;
mod report;
mod report_flows;
mod report_why;
mod reproduce;
mod reproduce_dvp;
mod reproduce_pa;
mod reproduce_pgc;
mod reproduce_spd;
mod results;
mod run_flows;
pub mod scoreboard;
mod scoreboard_cmd;
mod stats;
mod svg;
mod sweep;
mod trace_cmd;

#[derive(Parser)]
#[command(
    name = "ssdlab",
    version,
    about = "A fast, faithful, trace-driven NAND-flash SSD simulator"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Replay a trace or a synthetic workload on a drive and report what happened.
    Run(RunArgs),
    /// List the built-in drive presets and schemes, or print one drive as editable TOML.
    Presets {
        #[command(subcommand)]
        what: Option<PresetCmd>,
    },
    /// Run the model-validation suite and print measured against expected.
    Validate {
        /// Also write the checks as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// A built-in workload on a built-in drive, with GC running: the quick tour.
    Demo {
        /// Also write the result as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Measure simulation speed and memory (see docs/benchmarks.md).
    Bench(bench::BenchArgs),
    /// Reproduce a seed paper's experiments and print our figures beside the paper's.
    Reproduce {
        #[command(subcommand)]
        what: reproduce::ReproduceCmd,
    },
    /// List the built-in workload profiles (look-alikes of the seed papers' traces).
    Workloads {
        #[command(subcommand)]
        what: Option<WorkloadCmd>,
    },
    /// Evaluate hot-data identification schemes (WDAC, MIHF, MBF, DL-MBF) on a workload.
    Hdi(hdi_cmd::HdiArgs),
    /// Trace tools: statistics, format conversion, generation from a profile.
    Trace {
        #[command(subcommand)]
        cmd: trace_cmd::TraceCmd,
    },
    /// Run again what produced a result (a `run --json` file or a sweep's
    /// runs/*.json): the same configuration, workload (a trace must be
    /// unchanged), preconditioning and seed; fails if the result differs.
    Rerun {
        /// The result JSON.
        file: PathBuf,
        /// Also write the new result here.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// A sweep's or reproduction's directory as one self-contained HTML page:
    /// tables, charts, latency CDFs, GC timelines, provenance.
    Report(report::ReportArgs),
    /// Run a matrix of drives × workloads × schemes (× parameter values) from a
    /// TOML spec in parallel: per-run JSON, a combined CSV, normalised tables, SVG charts.
    Sweep(sweep::SweepCmd),
    /// Do two schemes of a sweep run with `seeds = N` differ, or is it seed
    /// noise? Per metric: means, the difference with its 95 % confidence
    /// interval, the p-value (paired t-test on the per-replicate
    /// differences; Welch's when the seeds differ) and the verdict.
    Compare(compare::CompareArgs),
    /// The scoreboards reproductions wrote, as one table: per paper, figures
    /// within tolerance and conclusions held; a quick run against a full
    /// one; the table written into a document.
    Scoreboard(scoreboard_cmd::ScoreboardArgs),
    /// Host bytes written until the first block (or `--worn-share` of the
    /// blocks) reaches `cell.endurance` erases, from an untimed replay of the
    /// workload looped until worn; drive writes, WAF and drive writes per day.
    Lifetime(lifetime_cmd::LifetimeArgs),
}

#[derive(Subcommand)]
enum WorkloadCmd {
    /// Print a built-in workload profile as editable TOML.
    Show { name: String },
}

#[derive(Subcommand)]
enum PresetCmd {
    /// Print a preset as a complete TOML configuration.
    Show {
        name: String,
        /// Apply this scheme's policies (see `ssdlab presets`) before printing.
        #[arg(long)]
        scheme: Option<String>,
        /// Then these conventions (`mqsim`, `ssdlab`; see `ssdlab run --help`).
        #[arg(long)]
        conventions: Option<String>,
    },
}

#[derive(Args)]
struct RunArgs {
    /// Built-in drive preset (see `ssdlab presets`).
    #[arg(long, conflicts_with = "config")]
    preset: Option<String>,
    /// Drive configuration file (TOML; `ssdlab presets show NAME` prints a complete one).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Apply a named scheme's policies (see `ssdlab presets`) to the drive,
    /// before any `--set`.
    #[arg(long)]
    scheme: Option<String>,
    /// Account as another simulator does, to compare with it on the same
    /// trace: `mqsim` (see docs/fidelity.md, "Agreement with MQSim and
    /// SSDSim"), or `ssdlab` (the defaults). Applied after `--scheme`,
    /// before any `--set`.
    #[arg(long, value_name = "NAME")]
    conventions: Option<String>,
    /// Override one configuration key, e.g. `--set gc.victim=fifo`. Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    #[command(flatten)]
    workload: input::WorkloadArgs,
    /// Write the full result as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write every request as it completes to this CSV file:
    /// arrival_ns, completion_ns, op, offset_bytes, size_bytes, latency_ns,
    /// then the latency's parts in ns (buffer_ns … array_ns, summing to
    /// latency_ns; turns `--attribution` on). With flows, each request's
    /// flow first and its host wait after the latency.
    #[arg(long, value_name = "FILE")]
    latency_log: Option<PathBuf>,
    /// Split every request's latency into parts (waiting for a buffer slot,
    /// for mapping reads, behind other host work, behind GC, held; channel,
    /// transfer, array) and report each part's share per operation, for all
    /// requests and the tails beyond p50, p99 and p99.9 (the same as
    /// `--set metrics.attribution=true`).
    #[arg(long)]
    attribution: bool,
    /// Write the latency distribution to this CSV file (op, latency_us,
    /// count, cumulative fraction: one row per histogram bucket, for CDFs).
    #[arg(long, value_name = "FILE")]
    histogram: Option<PathBuf>,
    /// Seed of every random choice (model and synthetic workload).
    #[arg(long)]
    seed: Option<u64>,
    /// Drive aging before the run: none, or parts joined by +: fill:USED:VALID, age:X,
    /// trace-sequence, trace-writes, trace-reads (applied in that order), then
    /// until-steady[:wa|latency|rate[:ROUND]] (a timed warm-up until the SNIA
    /// steady-state rule holds). Default: trace-reads (every page the workload
    /// reads is mapped first, so reads cost a flash read); `none` leaves
    /// never-written pages unmapped.
    #[arg(long)]
    precondition: Option<String>,
    /// Save the drive as aging left it to FILE (a saved drive state), then
    /// run. `--load-state FILE` starts a later run from it instead of aging.
    #[arg(long, value_name = "FILE", conflicts_with = "load_state")]
    save_state: Option<PathBuf>,
    /// With --save-state: stop after saving the state (no run, so no
    /// --json, --latency-log or --histogram).
    #[arg(long, requires = "save_state", conflicts_with_all = ["json", "latency_log", "histogram"])]
    save_only: bool,
    /// Start from the drive state saved in FILE (--save-state) instead of
    /// aging: its aging is used; refused unless it was saved for this drive
    /// (geometry, mapping and every configuration value aging reads) and,
    /// where its aging read the workload, for the same pages of it.
    #[arg(long, value_name = "FILE", conflicts_with = "precondition")]
    load_state: Option<PathBuf>,
    /// Run the consistency checker (slow; for debugging FTL policies).
    #[arg(long)]
    check: bool,
    /// Do not print the summary.
    #[arg(long, short)]
    quiet: bool,
    /// A flow (tenant) of the run, with its own workload and queue; repeat
    /// for several, after any `[[flows]]` of the configuration: `key=value`
    /// pairs joined by commas: name (required), one of workload (a built-in
    /// profile), trace (a file, read per the trace options) or synthetic (a
    /// profile file), then optionally limit, start_us, queue_depth (default
    /// 32), priority (urgent, high, medium, low; weighted round robin's
    /// classes), namespace (FIRST_PAGE:PAGES, the flow's own logical
    /// pages; default shared) and its partition of the flash: channels,
    /// chips, dies, planes (indices within their parent, or ranges A-B,
    /// joined by +; default all; needs a namespace). E.g. `--flow
    /// name=reader,workload=NAME,queue_depth=16,priority=high`. The queues'
    /// arbitration is `--set queues.arbitration=wrr` and its siblings.
    #[arg(long = "flow", value_name = "SPEC")]
    flows: Vec<String>,
    /// With flows: also run each flow alone on the same drive, aged alike,
    /// and report each flow's slowdown (its mean latency shared over alone)
    /// and the fairness (the smallest slowdown over the largest).
    #[arg(long)]
    alone: bool,
}

/// How a run's drive is aged.
#[derive(Clone, Copy)]
enum Start<'a> {
    /// Aged per a precondition.
    Age(&'a Precondition),
    /// Aged, and the state saved to a file.
    Save(&'a Precondition, &'a Path),
    /// Loaded from a saved state.
    Load(&'a ssdlab::sim::SavedState),
}

impl Start<'_> {
    /// The simulator: aged, aged and saved, or loaded.
    fn simulator(self, cfg: &Config, source: &Source) -> Result<Simulator> {
        Ok(match self {
            Start::Age(pre) => Simulator::new(cfg, source, pre)?,
            Start::Save(pre, path) => {
                let (sim, state) = Simulator::new_saving(cfg, source, pre)?;
                state.write(path)?;
                eprintln!(
                    "saved the drive state ({} bytes) to {}",
                    state.bytes().len(),
                    path.display()
                );
                sim
            }
            Start::Load(state) => Simulator::new_loaded(cfg, source, state)?,
        })
    }
}

/// The `ssdlab` command: parse the arguments, run the command, print an
/// error and return a failure code if it fails.
pub fn main() -> ExitCode {
    interrupt::install();
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Run(a) => cmd_run(a),
        Cmd::Presets { what } => cmd_presets(what),
        Cmd::Validate { json } => cmd_validate(json),
        Cmd::Demo { json } => cmd_demo(json),
        Cmd::Bench(a) => bench::cmd_bench(a),
        Cmd::Trace { cmd } => trace_cmd::cmd_trace(cmd),
        Cmd::Hdi(a) => hdi_cmd::cmd_hdi(a),
        Cmd::Workloads { what } => cmd_workloads(what),
        Cmd::Reproduce { what } => reproduce::cmd_reproduce(what),
        Cmd::Sweep(a) => sweep::cmd_sweep(a),
        Cmd::Compare(a) => compare::cmd_compare(a),
        Cmd::Report(a) => report::cmd_report(a),
        Cmd::Scoreboard(a) => scoreboard_cmd::cmd_scoreboard(a),
        Cmd::Lifetime(a) => lifetime_cmd::cmd_lifetime(a),
        Cmd::Rerun { file, json } => cmd_rerun(&file, json.as_deref()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", printable(&format!("{e:#}")));
            if stopped_by_interrupt(&e) {
                ExitCode::from(INTERRUPTED)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// Did the command fail because an interrupt stopped it?
pub(crate) fn stopped_by_interrupt(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<ssdlab::Error>()
            .is_some_and(|e| e.is_interrupted())
    })
}

/// `text` with control characters other than line breaks and tabs written
/// as Rust escapes: whatever a message quotes from an input (a NUL, an
/// escape sequence) prints as plain text.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                c.escape_debug().collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The drive of a run: a configuration file or a preset (default `small`),
/// then a scheme's policies, then conventions, then `--set` overrides, then
/// the seed.
fn load_config(
    preset: Option<&str>,
    config: Option<&Path>,
    scheme: Option<&str>,
    conventions: Option<&str>,
    sets: &[String],
    seed: Option<u64>,
) -> Result<Config> {
    let base = match (preset, config) {
        (_, Some(path)) => {
            let text = ssdlab::workload::input::read_text_limited(
                path,
                ssdlab::workload::input::MAX_SPEC_BYTES,
                "a drive configuration",
            )?;
            Config::from_toml(&text, &path.display().to_string())?
        }
        (Some(name), None) => Config::preset(name)?,
        (None, None) => Config::preset("small")?,
    };
    // The conventions' overrides, then the user's: applied after the
    // scheme's, and the whole validated once, so an override may make a
    // scheme fit a drive and nothing an override breaks goes unchecked.
    let mut all: Vec<String> = match conventions {
        Some(name) => ssdlab::scheme::conventions::by_name(name)?
            .overrides
            .iter()
            .map(|s| s.to_string())
            .collect(),
        None => Vec::new(),
    };
    all.extend_from_slice(sets);
    let mut cfg = with_scheme(base, scheme, &all)?;
    if let Some(s) = seed {
        cfg.seed = s;
    }
    Ok(cfg)
}

/// A run's preconditioning: the one `given`, else the one the conventions
/// named `conventions` ask for, else [`Precondition::DEFAULT`] (the pages
/// the workload reads mapped first).
fn run_precondition(given: Option<&str>, conventions: Option<&str>) -> Result<Precondition> {
    let default = match conventions {
        Some(name) => ssdlab::scheme::conventions::by_name(name)?.precondition,
        None => None,
    };
    Ok(Precondition::parse(
        given.or(default).unwrap_or(Precondition::DEFAULT),
    )?)
}

/// `cfg` with the policies of the scheme named `scheme`, if any, then the
/// overrides `sets`, validated as a whole.
fn with_scheme(cfg: Config, scheme: Option<&str>, sets: &[String]) -> Result<Config> {
    match scheme {
        None => Ok(cfg.with_overrides(sets)?),
        Some(name) => {
            let s = ssdlab::scheme::by_name(name)?;
            s.apply_with(&cfg, sets)
                .with_context(|| format!("applying scheme `{name}` to drive `{}`", cfg.name))
        }
    }
}

/// Run with a progress bar on stderr when it is a terminal and the run
/// lasts more than a second: requests done, simulated time, GC state. An
/// interrupt (SIGINT, SIGTERM) stops the run where it is; the report is
/// then marked partial.
fn simulate(
    cfg: &Config,
    source: &Source,
    pre: &Precondition,
    total: Option<u64>,
) -> Result<Report> {
    simulate_with(cfg, source, Start::Age(pre), total, None).map(|(r, _)| r)
}

/// [`simulate`], with every completed request written to `log` if given;
/// also returns the latency distribution.
fn simulate_with(
    cfg: &Config,
    source: &Source,
    start: Start<'_>,
    total: Option<u64>,
    log: Option<output::AtomicFile>,
) -> Result<(Report, Vec<ssdlab::CdfPoint>)> {
    interrupt::stop_gracefully();
    let started = Instant::now();
    let mut sim = start.simulator(cfg, source)?;
    let log = log.map(|mut f| {
        use std::io::Write;
        let mut header =
            "arrival_ns,completion_ns,op,offset_bytes,size_bytes,latency_ns".to_string();
        let shown = log_parts(cfg);
        for p in &shown {
            header += &format!(",{}_ns", p.name());
        }
        let e = writeln!(f, "{header}");
        let f = std::sync::Arc::new(std::sync::Mutex::new((f, e.err())));
        let sink = f.clone();
        sim.log_requests(Box::new(move |c: &ssdlab::Completion| {
            let mut g = sink.lock().expect("no poisoned lock");
            if g.1.is_none() {
                let op = log_op(c.op);
                let mut line = format!(
                    "{},{},{op},{},{},{}",
                    c.arrival_ns,
                    c.completion_ns,
                    c.offset,
                    c.size,
                    c.completion_ns - c.arrival_ns
                );
                log_part_values(&mut line, c, &shown);
                g.1 = writeln!(g.0, "{line}").err();
            }
        }));
        f
    });

    let prepared = started.elapsed();
    let terminal = std::io::stderr().is_terminal();
    let bar = match total {
        Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::hidden()).with_style(
            ProgressStyle::with_template(
                "{spinner} {bar:25} {human_pos}/{human_len} requests, {msg}, eta {eta}",
            )
            .expect("valid template"),
        ),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden()).with_style(
            ProgressStyle::with_template("{spinner} {human_pos} requests, {msg}, {elapsed}")
                .expect("valid template"),
        ),
    };
    let mut shown = false;
    let report = sim.run_observed_inspect(&mut |p: &Progress| {
        if terminal {
            if !shown && started.elapsed().as_secs_f64() > 1.0 {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                shown = true;
            }
            bar.set_position(p.completed);
            bar.set_message(format!(
                "{:.3} s simulated, GC on {}/{} {}, {} erases",
                p.now_ns as f64 / 1e9,
                p.gc_active,
                p.gc_units,
                if cfg.ftl.block_groups == ssdlab::config::BlockGroups::Die {
                    "dies"
                } else {
                    "planes"
                },
                p.gc_erases
            ));
        }
        interrupt::control()
    });
    bar.finish_and_clear();
    let (report, sim) = report?;
    let cdf = sim.latency_cdf();
    drop(sim); // releases the log's sink
    if let Some(f) = log {
        let (file, err) = std::sync::Arc::try_unwrap(f)
            .map_err(|_| anyhow::anyhow!("the request log is still in use"))?
            .into_inner()
            .expect("no poisoned lock");
        if let Some(e) = err {
            return Err(e).context("writing the request log");
        }
        file.finish()?;
    }
    eprintln!(
        "wall time {:.2} s (setup and preconditioning {:.2} s), {:.0} simulated requests per second",
        started.elapsed().as_secs_f64(),
        prepared.as_secs_f64(),
        report.requests as f64 / (started.elapsed() - prepared).as_secs_f64().max(1e-9)
    );
    Ok((report, cdf))
}

/// The latency distribution as CSV (`--histogram`).
/// A request's operation as the latency log writes it.
fn log_op(op: ssdlab::workload::Op) -> &'static str {
    match op {
        ssdlab::workload::Op::Read => "R",
        ssdlab::workload::Op::Write => "W",
        ssdlab::workload::Op::Trim => "T",
    }
}

fn cdf_csv(points: &[ssdlab::CdfPoint]) -> String {
    let mut s = String::from("op,latency_us,count,fraction\n");
    for p in points {
        s.push_str(&format!(
            "{},{},{},{}\n",
            p.op, p.latency_us, p.count, p.fraction
        ));
    }
    s
}

/// Exit code of a run stopped by an interrupt (128 + SIGINT, as shells do).
const INTERRUPTED: u8 = 130;

/// After an interrupted run: say what was kept.
fn partial_notice(report: &Report, json: Option<&Path>) -> ExitCode {
    eprintln!(
        "interrupted at simulated time {:.3} s after {} requests; the figures above cover them only{}",
        report.simulated_ns as f64 / 1e9,
        report.requests,
        match json {
            Some(p) => format!(" (written to {}, marked \"partial\": true)", p.display()),
            None => String::new(),
        }
    );
    ExitCode::from(INTERRUPTED)
}

/// Exit code of a run that ended because the drive went read-only (bad
/// blocks: a plane ran out of spare blocks).
pub const READ_ONLY: u8 = 3;

/// After a run that ended read-only: say why, and what the figures cover.
fn read_only_notice(report: &Report, json: Option<&Path>) -> Option<ExitCode> {
    let why = report.bad_blocks.as_ref()?.read_only.as_ref()?;
    eprintln!(
        "{why}: the drive accepts no more writes and the run ended at simulated time {:.3} s; \
         the figures cover the {} requests completed{}",
        report.simulated_ns as f64 / 1e9,
        report.requests,
        match json {
            Some(p) => format!(
                " (written to {}, with \"bad_blocks\": {{\"read_only\": ...}})",
                p.display()
            ),
            None => String::new(),
        }
    );
    Some(ExitCode::from(READ_ONLY))
}

/// A run's result as `--json` writes it: the report, then what produced it.
fn write_described(
    path: &Path,
    report: &Report,
    cfg: &Config,
    source: &Source,
    pre: &Precondition,
    hashes: &meta::Hashes,
) -> Result<()> {
    let run = meta::describe(cfg, source, pre, hashes)?;
    write_json(
        path,
        &meta::Described {
            report: std::borrow::Cow::Borrowed(report),
            run,
        },
    )
}

/// `value` as pretty JSON and a line break, streamed to the output `path`.
fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<()> {
    use std::io::Write;
    let mut f = output::create(path)?;
    serde_json::to_writer_pretty(&mut f, value)
        .map_err(anyhow::Error::from)
        .and_then(|()| f.write_all(b"\n").map_err(anyhow::Error::from))
        .with_context(|| format!("writing {}", path.display()))?;
    f.finish()?;
    Ok(())
}

fn cmd_run(a: RunArgs) -> Result<ExitCode> {
    // With flows, the keys that need them (queues, scheduler, sharing
    // among flows) apply once the flows are added.
    let (queue_sets, sets): (Vec<String>, Vec<String>) = a
        .sets
        .iter()
        .cloned()
        .partition(|s| !a.flows.is_empty() && ssdlab::config::set_after_flows(s));
    let mut cfg = load_config(
        a.preset.as_deref(),
        a.config.as_deref(),
        a.scheme.as_deref(),
        a.conventions.as_deref(),
        &sets,
        a.seed,
    )?;
    if a.check {
        cfg.check.enabled = true;
    }
    for spec in &a.flows {
        cfg.flows.push(input::parse_flow(spec)?);
    }
    if !a.flows.is_empty() {
        cfg = cfg.with_overrides(&queue_sets)?;
        cfg.validate(&cfg.name.clone())?;
    }
    if a.attribution || a.latency_log.is_some() {
        cfg.metrics.attribution = true;
    }
    if !cfg.flows.is_empty() {
        return run_flows::run_flows(a, cfg);
    }
    if a.alone {
        anyhow::bail!(
            "--alone runs each flow alone: give flows (--flow, or [[flows]] in the configuration)"
        );
    }
    let state = match &a.load_state {
        Some(path) => Some(ssdlab::sim::SavedState::read_for(path, &cfg)?),
        None => None,
    };
    let pre = match &state {
        Some(s) => s.precondition()?,
        None => run_precondition(a.precondition.as_deref(), a.conventions.as_deref())?,
    };
    for (path, what) in [
        (&a.json, "--json"),
        (&a.latency_log, "--latency-log"),
        (&a.histogram, "--histogram"),
        (&a.save_state, "--save-state"),
    ] {
        if let Some(path) = path {
            output::check_writable(path, what)?;
        }
    }
    let loaded = a.workload.load(a.seed)?;
    let start = match (&state, &a.save_state) {
        (Some(s), _) => Start::Load(s),
        (None, Some(path)) => Start::Save(&pre, path),
        (None, None) => Start::Age(&pre),
    };
    if a.save_only {
        interrupt::stop_gracefully();
        start.simulator(&cfg, &loaded.source)?;
        return Ok(ExitCode::SUCCESS);
    }
    // The record's trace hashes, before the run (a run stopped by an
    // interrupt then needs no more reading to describe itself).
    let hashes = meta::Hashes::default();
    if a.json.is_some() {
        interrupt::stop_gracefully();
        hashes.prepare(&loaded.source)?;
    }
    let total = loaded
        .total
        .map(|n| n.saturating_mul(u64::from(cfg.host.replays)));
    let log = a.latency_log.as_deref().map(output::create).transpose()?;
    let result = simulate_with(&cfg, &loaded.source, start, total, log);
    loaded.report_counts();
    let (report, cdf) = result?;
    if let Some(path) = &a.json {
        write_described(path, &report, &cfg, &loaded.source, &pre, &hashes)?;
    }
    finish_run(&a, &report, &cdf)
}

/// The latency log's part columns: the parts latency attribution reports
/// (none when it is off).
fn log_parts(cfg: &Config) -> Vec<ssdlab::attribution::Part> {
    if !cfg.metrics.attribution {
        return Vec::new();
    }
    ssdlab::attribution::Part::shown(!cfg.flash.suspension.is_off(), cfg.attribution_host_part())
}

/// Append a completed request's `shown` parts to its latency-log line.
fn log_part_values(line: &mut String, c: &ssdlab::Completion, shown: &[ssdlab::attribution::Part]) {
    if let Some(parts) = &c.parts {
        for &p in shown {
            *line += &format!(",{}", parts[p as usize]);
        }
    }
}

/// The end of a run, with or without flows (its JSON written): the
/// histogram, the summary, and the exit code (a partial or read-only run's
/// notice).
fn finish_run(a: &RunArgs, report: &Report, cdf: &[ssdlab::CdfPoint]) -> Result<ExitCode> {
    if let Some(path) = &a.histogram {
        output::write_atomic(path, cdf_csv(cdf).as_bytes())?;
    }
    if !a.quiet {
        print!("{}", report.summary());
    }
    if report.partial {
        return Ok(partial_notice(report, a.json.as_deref()));
    }
    if let Some(code) = read_only_notice(report, a.json.as_deref()) {
        return Ok(code);
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_rerun(file: &Path, json: Option<&Path>) -> Result<ExitCode> {
    interrupt::stop_gracefully();
    if let Some(path) = json {
        output::check_writable(path, "--json")?;
    }
    // Read as a stream: a digest per figure, and the record of the run.
    let old = meta::digests(meta::open_result(file)?)
        .with_context(|| format!("{}: not a result JSON", file.display()))?;
    let run = old.run.with_context(|| {
        format!(
            "{}: no `run` record (results written before ssdlab recorded what produced them cannot be rerun)",
            file.display()
        )
    })?;
    let cfg: Config = serde_path_to_error::deserialize(run.config.clone()).map_err(|e| {
        anyhow::anyhow!("{}: run.config.{}: {}", file.display(), e.path(), e.inner())
    })?;
    if cfg.seed != run.seed {
        anyhow::bail!(
            "{}: run.seed {} differs from run.config.seed {}: the record was edited",
            file.display(),
            run.seed,
            cfg.seed
        );
    }
    cfg.validate(&format!("{}: run.config", file.display()))?;
    if cfg.flows.len() != run.flows.len() {
        anyhow::bail!(
            "{}: run.config has {} flows but run.flows records {} workloads: the record was edited",
            file.display(),
            cfg.flows.len(),
            run.flows.len()
        );
    }
    let hashes = meta::Hashes::default();
    let source = meta::source_of_hashed(&run.workload, &hashes)
        .with_context(|| format!("{}: run.workload", file.display()))?;
    let pre = Precondition::parse(&run.precondition)
        .with_context(|| format!("{}: run.precondition", file.display()))?;
    if run.ssdlab_version != env!("CARGO_PKG_VERSION") || run.git_revision != meta::GIT_REVISION {
        eprintln!(
            "note: the result came from ssdlab {} ({}), this is {} ({}): figures may differ",
            run.ssdlab_version,
            run.git_revision,
            env!("CARGO_PKG_VERSION"),
            meta::GIT_REVISION
        );
    }
    let report = if cfg.flows.is_empty() {
        let report = simulate(&cfg, &source, &pre, None)?;
        if let Some(path) = json {
            write_described(path, &report, &cfg, &source, &pre, &hashes)?;
        }
        report
    } else {
        let sources = run
            .flows
            .iter()
            .enumerate()
            .map(|(i, w)| {
                meta::source_of_hashed(w, &hashes)
                    .with_context(|| format!("{}: run.flows[{i}]", file.display()))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut report = Simulator::with_flows(&cfg, &sources, &pre)?
            .run_observed(&mut |_| interrupt::control())?;
        // The alone runs, if the result had them.
        if old.fields.contains_key("fairness") && !report.partial {
            let alone =
                ssdlab::sim::flows::alone_mean_latencies(&cfg, &sources, &pre, &mut |_| {
                    interrupt::control()
                })?;
            report.set_alone(&alone);
        }
        if let Some(path) = json {
            run_flows::write_flows_json(path, &report, &cfg, &sources, &pre, &hashes)?;
        }
        report
    };
    if report.partial {
        return Ok(partial_notice(&report, json));
    }
    let new = meta::report_digests(&report)?;
    let mut differing: Vec<&String> = new
        .fields
        .iter()
        .filter(|(k, v)| old.fields.get(*k) != Some(v))
        .map(|(k, _)| k)
        .collect();
    differing.extend(old.fields.keys().filter(|k| !new.fields.contains_key(*k)));
    if differing.is_empty() {
        println!("identical: the rerun reproduces {} exactly", file.display());
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "different: the rerun of {} differs in {}",
            file.display(),
            differing
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        Ok(ExitCode::FAILURE)
    }
}

fn cmd_presets(what: Option<PresetCmd>) -> Result<ExitCode> {
    match what {
        None => {
            for (name, about) in Config::preset_names() {
                let c = Config::preset(name)?;
                let gib = c.physical_pages() as f64 * c.geometry.page_size_bytes as f64
                    / (1u64 << 30) as f64;
                println!("{name:<10} {gib:>7.1} GiB  {about}");
            }
            println!("\nSchemes (--scheme NAME on `run` and `presets show`; `name` in a sweep's [[scheme]]):");
            let w = ssdlab::scheme::SCHEMES
                .iter()
                .map(|s| s.name.len())
                .max()
                .unwrap_or(10);
            for s in ssdlab::scheme::SCHEMES {
                let only = if s.multi_bit {
                    " (MLC or TLC drives)"
                } else {
                    ""
                };
                println!("{:<w$} {}{only}", s.name, s.description);
            }
        }
        Some(PresetCmd::Show {
            name,
            scheme,
            conventions,
        }) => {
            let cfg = load_config(
                Some(&name),
                None,
                scheme.as_deref(),
                conventions.as_deref(),
                &[],
                None,
            )?;
            print!("{}", cfg.to_toml_commented());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_workloads(what: Option<WorkloadCmd>) -> Result<ExitCode> {
    use ssdlab::workload::builtin;
    match what {
        None => {
            // grouped by paper; each line is the paper's table row the
            // profile is built from (docs/workloads.md)
            for (prefix, paper) in builtin::PAPERS {
                println!("{prefix}/  {paper}");
                for name in builtin::names() {
                    if name.split('/').next() == Some(prefix) {
                        println!("  {name:<30} {}", builtin::describe(name).unwrap_or(""));
                    }
                }
                println!();
            }
            println!("Each profile is built from its paper's row shown (GB read as GiB, KB as KiB); `ssdlab workloads show NAME`");
            println!("prints its TOML with the row, the source of every other number and what is scaled. Use one with");
            println!("--workload NAME (run, hdi, trace generate).");
        }
        Some(WorkloadCmd::Show { name }) => match builtin::toml(&name) {
            Some(t) => print!("{t}"),
            None => {
                input::builtin_profile(&name)?;
            }
        },
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_validate(json: Option<PathBuf>) -> Result<ExitCode> {
    if let Some(path) = &json {
        output::check_writable(path, "--json")?;
    }
    let started = Instant::now();
    let checks = ssdlab::validate::all()?;
    let mut failed = 0;
    for c in &checks {
        if !c.pass {
            failed += 1;
        }
        println!(
            "{}  {:<78} measured {:>12.4} expected {:>12.4} {:<6} {}",
            if c.pass { "pass" } else { "FAIL" },
            c.name,
            c.measured,
            c.expected,
            c.unit,
            c.tolerance
        );
    }
    println!(
        "{} passed, {} failed ({:.1} s)",
        checks.len() - failed,
        failed,
        started.elapsed().as_secs_f64()
    );
    if let Some(path) = json {
        write_json(&path, &checks)?;
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn cmd_demo(json: Option<PathBuf>) -> Result<ExitCode> {
    if let Some(path) = &json {
        output::check_writable(path, "--json")?;
    }
    let cfg = Config::preset("small")?;
    let profile = Profile::demo();
    println!(
        "Demo: the built-in `{}` workload ({} requests) on the `small` preset (4 GiB, 4 channels, 2-plane dies),\n\
         aged to 90% full with 80% of it valid so that garbage collection runs.\n",
        profile.name, profile.requests
    );
    let total = Some(profile.requests);
    let pre = Precondition::parse("fill:0.9:0.8+trace-reads")?;
    let source = Source::Synthetic(profile);
    let report = simulate(&cfg, &source, &pre, total)?;
    print!("{}", report.summary());
    if let Some(path) = &json {
        write_described(path, &report, &cfg, &source, &pre, &meta::Hashes::default())?;
    }
    if report.partial {
        return Ok(partial_notice(&report, json.as_deref()));
    }
    println!("\nNext: `ssdlab presets`, `ssdlab run --help`, `ssdlab validate`.");
    Ok(ExitCode::SUCCESS)
}
