//! `ssdlab lifetime`: host bytes written until the drive's first block (or
//! a share of its blocks) reaches its rated program/erase cycles, from an
//! untimed replay of the workload (`ssdlab::sim::lifetime`).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use ssdlab::sim::lifetime::{lifetime, LifetimeOptions, LifetimeProgress};

use crate::{input, interrupt, load_config, output};

#[derive(Args)]
pub struct LifetimeArgs {
    /// Built-in drive preset (see `ssdlab presets`).
    #[arg(long, conflicts_with = "config")]
    preset: Option<String>,
    /// Drive configuration file (TOML).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Apply a named scheme's policies to the drive, before any `--set`.
    #[arg(long)]
    scheme: Option<String>,
    /// Override one configuration key, e.g. `--set cell.endurance=300`. Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    #[command(flatten)]
    workload: input::WorkloadArgs,
    /// Stop when this share of the drive's blocks has reached the endurance
    /// (at least one block), in (0, 1]. Default: the first block.
    #[arg(long, value_name = "SHARE")]
    worn_share: Option<f64>,
    /// The period drive writes per day are given for, in years.
    #[arg(long, value_name = "N", default_value_t = 5.0)]
    years: f64,
    /// Age the drive first (not counted): `fill:USED:VALID` and `age:X` as
    /// `run --precondition` takes them (data the workload may never
    /// rewrite, which only static wear levelling moves). Default: none.
    #[arg(long)]
    precondition: Option<String>,
    /// Write the result as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Seed of every random choice (model and synthetic workload).
    #[arg(long)]
    seed: Option<u64>,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

pub fn cmd_lifetime(a: LifetimeArgs) -> Result<ExitCode> {
    let cfg = load_config(
        a.preset.as_deref(),
        a.config.as_deref(),
        a.scheme.as_deref(),
        None,
        &a.sets,
        a.seed,
    )?;
    if let Some(s) = a.worn_share {
        if !(s > 0.0 && s <= 1.0) {
            anyhow::bail!("--worn-share {s}: must be in (0, 1] (a share of the drive's blocks)");
        }
    }
    if !(a.years > 0.0 && a.years.is_finite()) {
        anyhow::bail!("--years {}: must be a positive number of years", a.years);
    }
    if let Some(path) = &a.json {
        output::check_writable(path, "--json")?;
    }
    let loaded = a.workload.load(a.seed)?;
    interrupt::stop_gracefully();
    let opts = LifetimeOptions {
        worn_share: a.worn_share,
        years: a.years,
        precondition: match a.precondition.as_deref() {
            None | Some("none") => None,
            Some(p) => Some(
                ssdlab::Precondition::parse(p)
                    .map_err(|e| anyhow::anyhow!("--precondition {p}: {e}"))?,
            ),
        },
    };
    let started = Instant::now();
    let terminal = std::io::stderr().is_terminal() && !a.quiet;
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden()).with_style(
        ProgressStyle::with_template("{spinner} {msg}, {elapsed}").expect("valid template"),
    );
    let mut shown = false;
    let result = lifetime(&cfg, &loaded.source, &opts, &mut |p: &LifetimeProgress| {
        if terminal {
            if !shown && started.elapsed().as_secs_f64() > 1.0 {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                shown = true;
            }
            bar.set_message(format!(
                "{} host pages, {} passes, most erases of a block {} of {}, worn blocks {} of {}",
                p.host_pages, p.passes, p.max_erases, p.endurance, p.worn_blocks, p.target_blocks
            ));
            bar.tick();
        }
    });
    bar.finish_and_clear();
    loaded.report_counts();
    let report = result?;
    if let Some(path) = &a.json {
        let mut text = serde_json::to_string_pretty(&report)?;
        text.push('\n');
        output::write_atomic(path, text.as_bytes())?;
    }
    if !a.quiet {
        print!("{}", report.summary());
        eprintln!("wall time {:.2} s", started.elapsed().as_secs_f64());
    }
    Ok(ExitCode::SUCCESS)
}
