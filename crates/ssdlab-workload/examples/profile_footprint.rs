//! Statistics of a synthetic profile, and the calibration of its
//! `footprint_bytes` (how the built-in profiles were tuned; see
//! docs/workloads.md, "Scaling and calibration").
//!
//! ```text
//! cargo run --example profile_footprint -p ssdlab-workload -- FILE.toml
//!     prints what FILE generates: TraceStats with 4 KiB pages as JSON, and
//!     the share of writes touching more than one 8 KiB page (PA-SSD's
//!     large-write ratio)
//! cargo run --example profile_footprint -p ssdlab-workload -- FILE.toml PAGES
//!     bisects footprint_bytes (whole pages of the profile) until the
//!     distinct 4 KiB pages touched come within 0.1 % of PAGES, and
//!     prints `footprint_bytes = N`
//! ```

use std::process::ExitCode;

use ssdlab_workload::stats::{StatsAccumulator, TraceStats};
use ssdlab_workload::synthetic::{Generator, Profile};

fn stats(p: &Profile) -> Result<TraceStats, Box<dyn std::error::Error>> {
    let mut acc = StatsAccumulator::new(4096)?;
    for r in Generator::try_new(p)? {
        acc.add(&r?)?;
    }
    Ok(acc.finish())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (file, target) = match args.as_slice() {
        [f] => (f, None),
        [f, t] => (f, Some(t.parse::<u64>()?)),
        _ => return Err("usage: profile_footprint FILE.toml [TARGET_4KIB_PAGES]".into()),
    };
    let mut p = Profile::load(std::path::Path::new(file))?;
    let Some(target) = target else {
        println!("{}", serde_json::to_string_pretty(&stats(&p)?)?);
        let mut acc = StatsAccumulator::new(8192)?;
        for r in Generator::try_new(&p)? {
            acc.add(&r?)?;
        }
        let large = acc.finish().large_write_share.unwrap_or(f64::NAN);
        println!("large_write_share_8k = {large}");
        return Ok(());
    };
    let page = p.page_bytes;
    // the largest request must fit: start the bracket there
    let mut lo = p.footprint_bytes.div_ceil(page).min(1 << 40) / 64 + 1;
    let mut hi = p.footprint_bytes.div_ceil(page) * 4 + 16;
    let touched =
        |p: &mut Profile, pages: u64| -> Result<Option<u64>, Box<dyn std::error::Error>> {
            p.footprint_bytes = pages * page;
            if p.validate("calibration").is_err() {
                return Ok(None);
            }
            Ok(Some(stats(p)?.footprint_pages))
        };
    while touched(&mut p, hi)?.is_none_or(|t| t < target) {
        lo = hi;
        hi *= 2;
    }
    while let Some(t) = touched(&mut p, lo)? {
        if t <= target || lo <= 1 {
            break;
        }
        hi = lo;
        lo /= 2;
    }
    let mut best = (hi, u64::MAX);
    for _ in 0..60 {
        if hi <= lo + 1 {
            break;
        }
        let mid = lo + (hi - lo) / 2;
        match touched(&mut p, mid)? {
            None => lo = mid,
            Some(t) => {
                if t.abs_diff(target) < best.1 {
                    best = (mid, t.abs_diff(target));
                }
                if (t as f64 / target as f64 - 1.0).abs() < 0.0005 {
                    break;
                }
                if t < target {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
        }
    }
    eprintln!(
        "{file}: {} pages of {page} bytes, {:.3} % off the target",
        best.0,
        best.1 as f64 / target as f64 * 100.0
    );
    println!("footprint_bytes = {}", best.0 * page);
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
