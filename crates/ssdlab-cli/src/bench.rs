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
    #[arg(long)]
    case: Option<String>,
    /// Requests per case.
    #[arg(long, default_value_t = 1_000_000)]
    requests: u64,
    /// Write the figures as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
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
    let cfg = Config::preset("spd-512g")?;
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

fn run_case(name: &str, requests: u64) -> Result<CaseResult> {
    let (description, cfg, profile, pre) = case(name, requests)?;
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
    if let Some(name) = &a.case {
        let r = run_case(name, a.requests)?;
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
        std::fs::write(&path, serde_json::to_string_pretty(&results)? + "\n")?;
    }
    Ok(ExitCode::SUCCESS)
}
