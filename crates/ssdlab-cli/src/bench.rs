//! `ssdlab bench`: simulated requests per wall second and peak memory per
//! physical page on the 512 GB preset. Each case runs in a child process so
//! that its peak resident memory is its own.

use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use serde::{Deserialize, Serialize};

use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Simulator};

#[derive(Args)]
pub struct BenchArgs {
    /// Run only this case (a, b or c); by default all, each in its own process.
    /// Case s (streaming trace statistics) runs only when named here.
    #[arg(long)]
    case: Option<String>,
    /// Requests per case.
    #[arg(long, default_value_t = 1_000_000)]
    requests: u64,
    /// Write the figures as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Lines of the generated trace of case s (streaming trace statistics;
    /// run only when asked for with `--case s`).
    #[arg(long, default_value_t = 20_000_000)]
    lines: u64,
    /// Run the cases with latency attribution on (`metrics.attribution`),
    /// to measure what it costs.
    #[arg(long)]
    attribution: bool,
}

#[derive(Serialize, Deserialize, Debug)]
pub struct CaseResult {
    pub case: String,
    pub description: String,
    pub requests: u64,
    pub setup_s: f64,
    pub run_s: f64,
    pub requests_per_s: f64,
    pub events: u64,
    pub gc_count: u64,
    /// Mean device queue depth: a saturated drive (huge queues) would make
    /// the speed figure unrepresentative.
    pub mean_queue_depth: f64,
    pub peak_rss_bytes: u64,
    pub physical_pages: u64,
    pub bytes_per_physical_page: f64,
}

const KIB: u64 = 1024;

fn case(name: &str, requests: u64) -> Result<(String, Config, Profile, &'static str)> {
    let mut cfg = Config::preset("spd-512g")?;
    // The SPD paper's buffer, 1 % of the footprint (the preset has a fixed
    // 16 MiB): the buffer docs/benchmarks.md's figures were measured with.
    cfg.buffer.capacity = ssdlab::config::BufferCapacity::FootprintPercent(1.0);
    let logical_bytes = cfg.logical_pages() * cfg.geometry.page_size_bytes as u64;
    let base = |read_share: f64, footprint: u64, ws: SizeDist, rs: SizeDist, iops: f64| Profile {
        name: format!("bench-{name}"),
        seed: 1,
        requests,
        read_share,
        footprint_bytes: footprint,
        page_bytes: 4096,
        read_size: Some(rs),
        write_size: Some(ws),
        address: Address::Uniform,
        arrival: Arrival::Poisson { iops },
        latency_hint: None,
    };
    Ok(match name {
        "a" => (
            "read-heavy (90% reads, 4-16 KiB, uniform over 64 GiB, 35k IOPS), no GC".into(),
            cfg,
            base(
                0.9,
                64 << 30,
                SizeDist::uniform(4 * KIB, 32 * KIB),
                SizeDist::uniform(4 * KIB, 16 * KIB),
                35_000.0,
            ),
            "trace-reads",
        ),
        "b" => (
            "random 4 KiB writes over the whole drive at 2k IOPS after fill:0.94:0.8, GC running"
                .into(),
            cfg,
            base(
                0.0,
                logical_bytes,
                SizeDist::constant(4 * KIB),
                SizeDist::constant(4 * KIB),
                2_000.0,
            ),
            "fill:0.94:0.8",
        ),
        "c" => (
            "MQSim comparison: 70% writes of 4-32 KiB, uniform over 64 GiB, 15k IOPS, no GC".into(),
            cfg,
            base(
                0.3,
                64 << 30,
                SizeDist::uniform(4 * KIB, 32 * KIB),
                SizeDist::uniform(4 * KIB, 32 * KIB),
                15_000.0,
            ),
            "trace-reads",
        ),
        _ => bail!("unknown bench case `{name}` (a, b or c)"),
    })
}

fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn run_case(name: &str, requests: u64, attribution: bool) -> Result<CaseResult> {
    let (mut description, mut cfg, profile, pre) = case(name, requests)?;
    if attribution {
        cfg.metrics.attribution = true;
        description += "; latency attribution on";
    }
    let t0 = Instant::now();
    let sim = Simulator::new(
        &cfg,
        &Source::Synthetic(profile),
        &Precondition::parse(pre)?,
    )?;
    let setup = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let report = sim.run(&mut |_| {})?;
    let run = t1.elapsed().as_secs_f64();
    let rss = peak_rss();
    let phys = cfg.physical_pages();
    Ok(CaseResult {
        case: name.into(),
        description,
        requests: report.requests,
        setup_s: setup,
        run_s: run,
        requests_per_s: report.requests as f64 / run,
        events: report.events,
        gc_count: report.gc.count,
        mean_queue_depth: report.queue_depth.mean,
        peak_rss_bytes: rss,
        physical_pages: phys,
        bytes_per_physical_page: rss as f64 / phys as f64,
    })
}

pub fn cmd_bench(a: BenchArgs) -> Result<ExitCode> {
    if a.case.as_deref() == Some("s") {
        return stats_case(&a);
    }
    if let Some(name) = &a.case {
        let r = run_case(name, a.requests, a.attribution)?;
        println!("{}", serde_json::to_string(&r)?);
        return Ok(ExitCode::SUCCESS);
    }
    let exe = std::env::current_exe().context("locating the ssdlab binary")?;
    let mut results = vec![];
    for name in ["a", "b", "c"] {
        eprintln!("bench case {name} ...");
        let out = Command::new(&exe)
            .args([
                "bench",
                "--case",
                name,
                "--requests",
                &a.requests.to_string(),
            ])
            .args(a.attribution.then_some("--attribution"))
            .output()
            .context("running a bench case")?;
        if !out.status.success() {
            bail!(
                "bench case {name} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let line = String::from_utf8_lossy(&out.stdout);
        let r: CaseResult =
            serde_json::from_str(line.trim()).context("reading a bench case's result")?;
        results.push(r);
    }
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("machine: {cpu}, {cores} cores");
    println!(
        "{:<5} {:>10} {:>9} {:>9} {:>14} {:>9} {:>8} {:>12} {:>11}  description",
        "case",
        "requests",
        "setup s",
        "run s",
        "requests/s",
        "GCs",
        "mean QD",
        "peak RSS MB",
        "B/phys page"
    );
    for r in &results {
        println!(
            "{:<5} {:>10} {:>9.2} {:>9.2} {:>14.0} {:>9} {:>8.1} {:>12.0} {:>11.2}  {}",
            r.case,
            r.requests,
            r.setup_s,
            r.run_s,
            r.requests_per_s,
            r.gc_count,
            r.mean_queue_depth,
            r.peak_rss_bytes as f64 / 1e6,
            r.bytes_per_physical_page,
            r.description
        );
    }
    if let Some(path) = a.json {
        crate::output::write_atomic(
            &path,
            (serde_json::to_string_pretty(&results)? + "\n").as_bytes(),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

// ----- case s: streaming trace statistics -----

/// Figures of case s.
#[derive(Serialize, Deserialize, Debug)]
pub struct StatsCaseResult {
    pub case: String,
    pub description: String,
    pub lines: u64,
    pub trace_bytes: u64,
    pub generate_s: f64,
    pub generate_lines_per_s: f64,
    /// Statistics over the first `prefix_lines` lines (`--limit`).
    pub prefix_lines: u64,
    pub prefix_s: f64,
    pub prefix_lines_per_s: f64,
    /// Peak RSS of the prefix pass (the peak is reset before each pass
    /// where the kernel allows it).
    pub prefix_peak_rss_bytes: u64,
    /// Statistics over the whole trace.
    pub full_s: f64,
    pub full_lines_per_s: f64,
    pub full_peak_rss_bytes: u64,
    /// (lines read, current RSS bytes) sampled during the full pass.
    pub rss_samples: Vec<(u64, u64)>,
    pub footprint_pages: u64,
    /// Whether the peak RSS could be reset between the passes.
    pub peak_reset: bool,
}

fn current_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Reset the peak RSS to the current RSS (Linux: `5` to clear_refs).
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Case s: write a generated MQSim trace of `a.lines` lines (1 GiB
/// footprint, so the statistics' page map stays small), then compute its
/// statistics over a 1 M-line prefix and over the whole file, reporting
/// lines per second and peak RSS of each pass.
fn stats_case(a: &BenchArgs) -> Result<ExitCode> {
    use ssdlab::workload::stats::{StatsAccumulator, DEFAULT_PAGE_BYTES};
    use ssdlab::workload::synthetic::Generator;
    use ssdlab::workload::writer::{self, Format, WriteOptions};
    use ssdlab::workload::{TraceFormat, TraceOptions};

    let lines = a.lines.max(1);
    let profile = Profile {
        name: "bench-s".into(),
        seed: 1,
        requests: lines,
        read_share: 0.3,
        footprint_bytes: 1 << 30,
        page_bytes: 4096,
        read_size: Some(SizeDist::uniform(4 * KIB, 16 * KIB)),
        write_size: Some(SizeDist::uniform(4 * KIB, 32 * KIB)),
        address: Address::HotCold {
            hot_fraction: 0.2,
            hot_share: 0.8,
        },
        arrival: Arrival::Poisson { iops: 20_000.0 },
        latency_hint: None,
    };
    let description = format!(
        "trace stats over a generated MQSim trace: {lines} lines, 30% reads of 4-16 KiB, \
         writes of 4-32 KiB, 80% of requests to 20% of a 1 GiB footprint"
    );
    let path = std::env::temp_dir().join(format!("ssdlab-bench-s-{}.trace", std::process::id()));
    let result = (|| -> Result<StatsCaseResult> {
        eprintln!("case s: writing {} ...", path.display());
        let t = Instant::now();
        let written = writer::write_file(
            Generator::try_new(&profile)?,
            Format::Mqsim,
            &WriteOptions::default(),
            &path,
        )?;
        let generate_s = t.elapsed().as_secs_f64();
        let trace_bytes = std::fs::metadata(&path)?.len();
        let source = |limit: Option<u64>| Source::Trace {
            path: path.clone(),
            format: TraceFormat::Mqsim,
            options: TraceOptions {
                limit,
                ..Default::default()
            },
        };
        let prefix_lines = lines.min(1_000_000);
        let mut peak_reset = reset_peak_rss();
        eprintln!("case s: statistics over the first {prefix_lines} lines ...");
        let t = Instant::now();
        let mut acc = StatsAccumulator::new(DEFAULT_PAGE_BYTES)?;
        for r in source(Some(prefix_lines)).open()? {
            acc.add(&r?)?;
        }
        let prefix = acc.finish();
        let prefix_s = t.elapsed().as_secs_f64();
        let prefix_peak = peak_rss();
        peak_reset &= reset_peak_rss();
        eprintln!("case s: statistics over all {lines} lines ...");
        let t = Instant::now();
        let mut acc = StatsAccumulator::new(DEFAULT_PAGE_BYTES)?;
        let mut samples = Vec::new();
        for r in source(None).open()? {
            acc.add(&r?)?;
            let n = acc.records();
            if n % 1_000_000 == 0 {
                samples.push((n, current_rss()));
            }
        }
        let full = acc.finish();
        let full_s = t.elapsed().as_secs_f64();
        let full_peak = peak_rss();
        if full.requests != lines || prefix.requests != prefix_lines {
            bail!(
                "case s read {} and {} records, expected {prefix_lines} and {lines}",
                prefix.requests,
                full.requests
            );
        }
        Ok(StatsCaseResult {
            case: "s".into(),
            description,
            lines: written.records,
            trace_bytes,
            generate_s,
            generate_lines_per_s: lines as f64 / generate_s,
            prefix_lines,
            prefix_s,
            prefix_lines_per_s: prefix_lines as f64 / prefix_s,
            prefix_peak_rss_bytes: prefix_peak,
            full_s,
            full_lines_per_s: lines as f64 / full_s,
            full_peak_rss_bytes: full_peak,
            rss_samples: samples,
            footprint_pages: full.footprint_pages,
            peak_reset,
        })
    })();
    let _ = std::fs::remove_file(&path);
    let r = result?;
    let mb = |b: u64| b as f64 / 1e6;
    println!("case s: {}", r.description);
    println!(
        "generate: {} lines, {:.0} MB, {:.2} s, {:.0} lines/s",
        r.lines,
        mb(r.trace_bytes),
        r.generate_s,
        r.generate_lines_per_s
    );
    println!(
        "stats over {:>9} lines: {:>7.2} s, {:>10.0} lines/s, peak RSS {:.1} MB",
        r.prefix_lines,
        r.prefix_s,
        r.prefix_lines_per_s,
        mb(r.prefix_peak_rss_bytes)
    );
    println!(
        "stats over {:>9} lines: {:>7.2} s, {:>10.0} lines/s, peak RSS {:.1} MB",
        r.lines,
        r.full_s,
        r.full_lines_per_s,
        mb(r.full_peak_rss_bytes)
    );
    let samples: Vec<String> = r
        .rss_samples
        .iter()
        .map(|(n, b)| format!("{}M {:.1}", n / 1_000_000, mb(*b)))
        .collect();
    println!("RSS (MB) while streaming: {}", samples.join(", "));
    println!(
        "distinct pages: {}{}",
        r.footprint_pages,
        if r.peak_reset {
            ""
        } else {
            " (peak RSS could not be reset between passes: the second figure includes the first)"
        }
    );
    if let Some(path) = &a.json {
        crate::output::write_atomic(path, (serde_json::to_string_pretty(&r)? + "\n").as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
