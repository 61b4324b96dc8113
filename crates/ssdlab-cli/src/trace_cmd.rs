//! `ssdlab trace`: statistics, format conversion and generation of trace
//! files.
//!
//! * `ssdlab trace stats FILE` prints a table of [`TraceStats`] (and writes
//!   them as JSON with `--json OUT`).
//! * `ssdlab trace convert IN OUT --to FORMAT` rewrites a trace in another
//!   format (see `ssdlab::workload::writer` for units and lossy cases).
//! * `ssdlab trace generate --synthetic PROFILE.toml --out FILE --to FORMAT`
//!   writes the requests of a synthetic profile as a trace, optionally scaled.
//!
//! Output files ending in `.gz` are gzip-compressed; input files are
//! decompressed when they are gzip, whatever their name.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};

use ssdlab::workload::stats::{TraceStats, DEFAULT_PAGE_BYTES};
use ssdlab::workload::synthetic::{Generator, Profile};
use ssdlab::workload::writer::{self, Format, TimeRounding, WriteOptions, WriteSummary};
use std::sync::Arc;

use ssdlab::workload::{ReadCounters, ReadCounts, Source, TraceFormat};

use crate::input::ReadArgs;

#[derive(Subcommand)]
pub enum TraceCmd {
    /// Print statistics of a trace: counts, volumes, footprint, sizes, arrivals, locality.
    Stats(StatsArgs),
    /// Convert a trace to another format (mqsim, msr, disksim or ssdsim).
    Convert(ConvertArgs),
    /// Write the requests of a synthetic workload profile as a trace file.
    Generate(GenerateArgs),
}

/// Which input trace and which of its records.
#[derive(Args)]
pub struct InputArgs {
    #[command(flatten)]
    read: ReadArgs,
    /// Read at most this many records (after the device filter).
    #[arg(long)]
    limit: Option<u64>,
}

#[derive(Args)]
pub struct StatsArgs {
    /// Trace file (plain, gzip or zstd).
    file: PathBuf,
    #[command(flatten)]
    input: InputArgs,
    /// Page size for the footprint and locality figures, bytes.
    #[arg(long, default_value_t = DEFAULT_PAGE_BYTES)]
    page_bytes: u64,
    /// Also write the statistics as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

/// Options of the written trace.
#[derive(Args)]
pub struct OutputArgs {
    /// Output format: mqsim, msr, disksim or ssdsim.
    #[arg(long)]
    to: String,
    /// Device / disk number written on every output line.
    #[arg(long, default_value_t = 0)]
    out_device: u32,
    /// Refuse (instead of rounding down) times the output format cannot hold
    /// exactly (MSR: times that are not multiples of 100 ns).
    #[arg(long)]
    exact_times: bool,
}

#[derive(Args)]
pub struct ConvertArgs {
    /// Input trace file (plain, gzip or zstd).
    input_file: PathBuf,
    /// Output trace file (gzip if it ends in .gz).
    output_file: PathBuf,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    input: InputArgs,
}

#[derive(Args)]
pub struct GenerateArgs {
    /// Synthetic workload profile (TOML).
    #[arg(long, conflicts_with = "workload")]
    synthetic: Option<PathBuf>,
    /// A built-in workload profile (see `ssdlab workloads`).
    #[arg(long)]
    workload: Option<String>,
    /// Multiply the request count and the footprint by this factor, keeping
    /// the read share, request sizes, address model and arrival rate.
    /// Scaled down, the profile draws balanced (its shares, mean sizes and
    /// rate hold on the shorter stream); a scale below the profile's
    /// smallest (enough requests for its row to hold within 5 %) is refused.
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// Seed of the generator (overrides the profile's).
    #[arg(long)]
    seed: Option<u64>,
    /// Output trace file (gzip if it ends in .gz).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    output: OutputArgs,
}

pub fn cmd_trace(cmd: TraceCmd) -> Result<ExitCode> {
    // Reads and writes stop at an interrupt; an unfinished output is
    // removed.
    crate::interrupt::stop_gracefully();
    match cmd {
        TraceCmd::Stats(a) => cmd_stats(a),
        TraceCmd::Convert(a) => cmd_convert(a),
        TraceCmd::Generate(a) => cmd_generate(a),
    }
}

/// The input trace as a source, its format resolved.
fn trace_source(
    path: &Path,
    input: &InputArgs,
) -> Result<(Source, TraceFormat, Arc<ReadCounters>)> {
    input.read.trace(path, input.limit)
}

/// Say what the reader dropped or repaired, if anything.
fn report_counts(counters: &ReadCounters) {
    let counts = counters.snapshot();
    if counts.records > 0 {
        eprintln!("trace: {counts}");
    }
}

fn write_options(o: &OutputArgs) -> Result<(Format, WriteOptions)> {
    let format = Format::parse(&o.to)?;
    let options = WriteOptions {
        device: o.out_device,
        time_rounding: if o.exact_times {
            TimeRounding::Exact
        } else {
            TimeRounding::Floor
        },
        ..WriteOptions::default()
    };
    Ok((format, options))
}

fn report_written(out: &Path, format: Format, s: &WriteSummary) {
    eprintln!(
        "wrote {} records to {} ({})",
        s.records,
        out.display(),
        format.name()
    );
    if s.rounded_times > 0 {
        eprintln!(
            "note: {} times were rounded down to the {} format's resolution (by at most {} ns); \
             --exact-times makes this an error",
            s.rounded_times,
            format.name(),
            s.max_rounding_ns
        );
    }
}

// ----- stats -----

/// The JSON document of `trace stats`: where the figures come from, then
/// the figures.
#[derive(serde::Serialize)]
struct StatsJson<'a> {
    trace: String,
    format: &'static str,
    device: Option<u32>,
    limit: Option<u64>,
    /// What the reader dropped or repaired (records put back in time
    /// order, discards, rows of other devices, ...).
    reader: ReadCounts,
    #[serde(flatten)]
    stats: &'a TraceStats,
}

fn cmd_stats(a: StatsArgs) -> Result<ExitCode> {
    let (source, format, counters) = trace_source(&a.file, &a.input)?;
    let stream = source.open()?;
    let stats = TraceStats::compute(stream, a.page_bytes);
    report_counts(&counters);
    let stats = stats?;
    print!("{}", stats_table(&source.describe(), &stats));
    if let Some(path) = &a.json {
        let doc = StatsJson {
            trace: a.file.display().to_string(),
            format: format.name(),
            device: a.input.read.device,
            limit: a.input.limit,
            reader: counters.snapshot(),
            stats: &stats,
        };
        let text = serde_json::to_string_pretty(&doc)?;
        crate::output::write_atomic(path, (text + "\n").as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.2} %", v * 100.0))
}

fn num(x: Option<f64>, digits: usize) -> String {
    x.map_or("-".into(), |v| format!("{v:.digits$}"))
}

/// Bytes with a binary unit, and the exact count.
fn bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.2} {} = {b} B", UNITS[u])
    }
}

/// The human-readable table of `trace stats`.
/// `trace` is the file and its format (`Source::describe`).
pub fn stats_table(trace: &str, s: &TraceStats) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |k: &str, v: String| rows.push((k.to_string(), v));
    row("trace", trace.to_string());
    row("requests", s.requests.to_string());
    row(
        "  reads",
        format!("{} ({} of requests)", s.read_requests, pct(s.read_share)),
    );
    row(
        "  writes",
        format!("{} ({} of requests)", s.write_requests, pct(s.write_share)),
    );
    if s.trim_requests > 0 {
        row(
            "  trims",
            format!("{} ({} trimmed)", s.trim_requests, bytes(s.trim_bytes)),
        );
    }
    row(
        "bytes read",
        format!(
            "{}, {} of bytes",
            bytes(s.read_bytes),
            pct(s.read_byte_share)
        ),
    );
    row(
        "bytes written",
        format!(
            "{}, {} of bytes",
            bytes(s.write_bytes),
            pct(s.write_byte_share)
        ),
    );
    row(
        "mean read size",
        format!("{} bytes", num(s.mean_read_size_bytes, 0)),
    );
    row(
        "mean write size",
        format!(
            "{} bytes, {} pages",
            num(s.mean_write_size_bytes, 0),
            num(s.mean_write_size_pages, 2)
        ),
    );
    row(
        "large writes",
        format!(
            "{} ({} of writes touch more than one page)",
            s.large_writes,
            pct(s.large_write_share)
        ),
    );
    let pages = |p: u64, b: u64| format!("{p} pages ({})", bytes(b));
    row(
        "footprint",
        format!(
            "{} pages of {} bytes ({})",
            s.footprint_pages,
            s.page_bytes,
            bytes(s.footprint_bytes)
        ),
    );
    row(
        "  read",
        pages(s.read_footprint_pages, s.read_footprint_bytes),
    );
    row(
        "  written",
        pages(s.write_footprint_pages, s.write_footprint_bytes),
    );
    row("address span", bytes(s.address_span_bytes));
    row(
        "duration",
        format!(
            "{:.6} s (first arrival {} ns)",
            s.duration_s,
            s.first_time_ns.map_or("-".into(), |t| t.to_string())
        ),
    );
    row(
        "mean inter-arrival",
        format!(
            "{} us ({} requests/s)",
            num(s.mean_interarrival_us, 3),
            num(s.mean_iops, 1)
        ),
    );
    row(
        "burstiness",
        format!(
            "{} (coefficient of variation of inter-arrival gaps; Poisson = 1)",
            num(s.burstiness_cv, 3)
        ),
    );
    row(
        "hottest 10% of pages",
        format!(
            "{} of page writes ({} page writes in all)",
            pct(s.hot10_page_write_share),
            s.page_writes
        ),
    );
    row(
        "hottest 20% of pages",
        format!("{} of page writes", pct(s.hot20_page_write_share)),
    );
    row(
        "sequential",
        format!(
            "{} of requests (reads {}, writes {}) continue the previous one of their direction",
            pct(s.sequential_share),
            pct(s.sequential_read_share),
            pct(s.sequential_write_share)
        ),
    );
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<width$}  {v}\n"))
        .collect()
}

// ----- convert -----

fn cmd_convert(a: ConvertArgs) -> Result<ExitCode> {
    let (source, in_format, counters) = trace_source(&a.input_file, &a.input)?;
    let (format, options) = write_options(&a.output)?;
    let stream = source.open()?;
    let summary = writer::write_file(stream, format, &options, &a.output_file);
    report_counts(&counters);
    let summary = summary.with_context(|| {
        format!(
            "converting {} ({}) to {}",
            a.input_file.display(),
            in_format.name(),
            a.output_file.display()
        )
    })?;
    report_written(&a.output_file, format, &summary);
    Ok(ExitCode::SUCCESS)
}

// ----- generate -----

fn cmd_generate(a: GenerateArgs) -> Result<ExitCode> {
    let mut profile = match (&a.synthetic, &a.workload) {
        (Some(path), None) => Profile::load(path)?,
        (None, Some(name)) => crate::input::builtin_profile(name)?,
        _ => bail!("give --synthetic PROFILE.toml or --workload NAME (see `ssdlab workloads`)"),
    };
    if let Some(s) = a.seed {
        profile.seed = s;
    }
    if a.scale != 1.0 {
        profile = profile
            .scaled(a.scale)
            .with_context(|| format!("--scale {}", a.scale))?;
    }
    generate(&profile, &a.out, &a.output)
}

/// Write the requests of `profile` to `out`.
fn generate(profile: &Profile, out: &Path, o: &OutputArgs) -> Result<ExitCode> {
    let (format, options) = write_options(o)?;
    let records = Generator::try_new(profile)?;
    let summary = writer::write_file(records, format, &options, out)
        .with_context(|| format!("writing profile `{}` to {}", profile.name, out.display()))?;
    report_written(out, format, &summary);
    Ok(ExitCode::SUCCESS)
}
