//! `ssdlab hdi`: evaluate hot-data identification schemes on a workload
//! (the DVPFTL paper's §IV-A): hot ratio over time, false identification
//! rate against the exact WDAC reference, memory and decays.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Serialize;

use ssdlab::workload::{Op, Source};
use ssdlab_hdi::{presets, HotDataIdentifier};

use crate::svg;

#[derive(Args)]
pub struct HdiArgs {
    #[command(flatten)]
    workload: crate::input::WorkloadArgs,
    /// Schemes, comma-separated: wdac, mihf, mbf, dl-mbf, dl-mbf-s, dl-mbf-c,
    /// dl-mbf-a, dl-mihf. WDAC, the exact reference, is always evaluated first.
    #[arg(long, default_value = "wdac,mihf,mbf,dl-mbf-s,dl-mbf-c,dl-mbf-a")]
    schemes: String,
    /// Writes per interval of the hot-ratio and false-identification curves.
    #[arg(long, default_value_t = 8192)]
    interval: u64,
    /// Size of the logical block the schemes identify (each written block of
    /// a request is one write to the identifiers).
    #[arg(long, default_value_t = 4096)]
    block_bytes: u64,
    /// Write the results as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write the per-interval curves as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write hot_ratio.svg and false_identification.svg (Figs. 9 and 10) here.
    #[arg(long)]
    svg_dir: Option<PathBuf>,
    /// Also measure each scheme's wall time per check and per decay (a
    /// benchmark: the figures vary from run to run, so they are added to the
    /// JSON only with this flag).
    #[arg(long)]
    timing: bool,
}

/// Measured cost of one scheme (see [`time_scheme`]).
#[derive(Serialize, Clone, Copy)]
pub struct Timing {
    pub ns_per_check: f64,
    pub ns_per_decay: f64,
}

/// Time `make()`'s scheme over `lbas`: the whole replay with one clock pair,
/// then the writes that trigger a decay one by one (each clock read's own
/// cost, measured on empty pairs, subtracted). Per check = the replay's time
/// without those writes over the other writes; per decay = the extra time of
/// a decay-triggering write (may come out slightly negative when a decay
/// costs less than the clock's resolution).
pub fn time_scheme(make: &dyn Fn() -> Box<dyn HotDataIdentifier>, lbas: &[u64]) -> Timing {
    use std::hint::black_box;
    use std::time::Instant;
    let mut s = make();
    let t = Instant::now();
    let mut decay_at = vec![];
    for (i, &l) in lbas.iter().enumerate() {
        let before = s.decays();
        black_box(s.record_write(l));
        if s.decays() != before {
            decay_at.push(i);
        }
    }
    let total = t.elapsed().as_nanos() as f64;
    // Clock overhead of one Instant pair.
    let probe = Instant::now();
    for _ in 0..1000 {
        black_box(Instant::now().elapsed());
    }
    let overhead = probe.elapsed().as_nanos() as f64 / 1000.0;
    let mut s = make();
    let mut decay_ns = 0.0;
    let mut next = decay_at.iter().peekable();
    for (i, &l) in lbas.iter().enumerate() {
        if next.peek() == Some(&&i) {
            next.next();
            let t = Instant::now();
            black_box(s.record_write(l));
            decay_ns += (t.elapsed().as_nanos() as f64 - overhead).max(0.0);
        } else {
            black_box(s.record_write(l));
        }
    }
    let plain = (lbas.len() - decay_at.len()).max(1) as f64;
    let per_check = ((total - decay_ns).max(0.0)) / plain;
    let per_decay = if decay_at.is_empty() {
        0.0
    } else {
        decay_ns / decay_at.len() as f64 - per_check
    };
    Timing {
        ns_per_check: per_check,
        ns_per_decay: per_decay,
    }
}

fn scheme(name: &str) -> Result<Box<dyn HotDataIdentifier>> {
    if presets::TIMED_NAMES.contains(&name) {
        bail!(
            "HDI scheme `{name}` counts updates within a window of time and needs the simulator's clock, while `ssdlab hdi` replays write addresses only; use it in a simulation (ftl.hot_data = \"{name}\")"
        );
    }
    match presets::by_name(name) {
        Some(s) => Ok(s),
        None => bail!(
            "unknown HDI scheme `{name}`{}; known schemes: {}",
            ssdlab::error::did_you_mean(name, presets::NAMES.iter().copied()),
            presets::NAMES.join(", ")
        ),
    }
}

/// Schemes by their command-line names, each with its identifier.
pub type Schemes = (Vec<String>, Vec<Box<dyn HotDataIdentifier>>);

/// The schemes to evaluate, WDAC first, each once, by their CLI names.
pub fn schemes_from(list: &str) -> Result<Schemes> {
    let mut names = vec!["wdac".to_string()];
    for n in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        scheme(n)?;
        if !names.iter().any(|m| m == n) {
            names.push(n.to_string());
        }
    }
    let boxes = names
        .iter()
        .map(|n| scheme(n))
        .collect::<Result<Vec<_>>>()?;
    Ok((names, boxes))
}

/// One scheme's results as written to JSON (`schemes.<name>`).
#[derive(Serialize)]
pub struct SchemeOut {
    pub scheme: String,
    pub hot_ratio: f64,
    pub false_identification_rate: f64,
    pub cold_i_ratio: f64,
    pub memory_bytes: usize,
    pub decays: u64,
    /// Bits the decays reset or aged (an operation count of their cost),
    /// where the scheme's decay is a bulk operation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decay_bits: Option<u64>,
    pub hot_ratio_per_interval: Vec<f64>,
    pub false_identification_rate_per_interval: Vec<f64>,
    /// Only with `--timing`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
}

#[derive(Serialize)]
pub struct HdiOut {
    pub workload: String,
    pub writes: u64,
    pub interval: u64,
    pub reference: String,
    pub schemes: BTreeMap<String, SchemeOut>,
}

/// Evaluate `names`/`boxes` on the writes of `source` (one write per written
/// block of `block_bytes`).
pub fn evaluate_source(
    source: &Source,
    names: &[String],
    boxes: &mut [Box<dyn HotDataIdentifier>],
    interval: u64,
    block_bytes: u64,
) -> Result<HdiOut> {
    let error = RefCell::new(None);
    let stream = source.open()?;
    let lbas = stream
        .map_while(|r| match r {
            Ok(r) => Some(r),
            Err(e) => {
                *error.borrow_mut() = Some(e);
                None
            }
        })
        .filter(|r| r.op == Op::Write)
        .flat_map(|r| r.offset / block_bytes..=(r.offset + r.size - 1) / block_bytes);
    let ev = ssdlab_hdi::evaluate(lbas, boxes, interval);
    if let Some(e) = error.into_inner() {
        return Err(e.into());
    }
    if ev.writes == 0 {
        bail!(
            "{} has no write requests: nothing to identify",
            source.describe()
        );
    }
    let schemes = names
        .iter()
        .zip(ev.schemes)
        .map(|(n, s)| {
            (
                n.clone(),
                SchemeOut {
                    scheme: s.name,
                    hot_ratio: s.hot_ratio,
                    false_identification_rate: s.false_identification_rate,
                    cold_i_ratio: s.cold_i_ratio,
                    memory_bytes: s.memory_bytes,
                    decays: s.decays,
                    decay_bits: s.decay_bits,
                    hot_ratio_per_interval: s.hot_ratio_per_interval,
                    false_identification_rate_per_interval: s
                        .false_identification_rate_per_interval,
                    timing: None,
                },
            )
        })
        .collect();
    Ok(HdiOut {
        workload: source.describe(),
        writes: ev.writes,
        interval,
        reference: "wdac".into(),
        schemes,
    })
}

pub fn print_table(out: &HdiOut, names: &[String]) {
    println!("{} writes of {}; reference WDAC", out.writes, out.workload);
    println!(
        "{:<10} {:>10} {:>22} {:>10} {:>13} {:>8}",
        "scheme", "hot ratio", "false ident. vs WDAC", "cold I", "memory bytes", "decays"
    );
    for n in names {
        let s = &out.schemes[n];
        println!(
            "{:<10} {:>9.2}% {:>21.2}% {:>9.2}% {:>13} {:>8}",
            n,
            s.hot_ratio * 100.0,
            s.false_identification_rate * 100.0,
            s.cold_i_ratio * 100.0,
            s.memory_bytes,
            s.decays
        );
    }
}

pub fn write_outputs(
    out: &HdiOut,
    names: &[String],
    json: Option<&Path>,
    csv: Option<&Path>,
    svg_dir: Option<&Path>,
    suffix: &str,
) -> Result<()> {
    if let Some(p) = json {
        crate::output::write_atomic(p, (serde_json::to_string_pretty(out)? + "\n").as_bytes())?;
    }
    if let Some(p) = csv {
        let mut text =
            String::from("interval,first_write,scheme,hot_ratio,false_identification_rate\n");
        for n in names {
            let s = &out.schemes[n];
            for (i, (h, f)) in s
                .hot_ratio_per_interval
                .iter()
                .zip(&s.false_identification_rate_per_interval)
                .enumerate()
            {
                text.push_str(&format!("{i},{},{n},{h},{f}\n", i as u64 * out.interval));
            }
        }
        crate::output::write_atomic(p, text.as_bytes())?;
    }
    if let Some(dir) = svg_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let curve = |pick: &dyn Fn(&SchemeOut) -> &Vec<f64>, skip_ref: bool| -> Vec<svg::Series> {
            names
                .iter()
                .filter(|n| !(skip_ref && n.as_str() == "wdac"))
                .map(|n| svg::Series {
                    name: n,
                    points: pick(&out.schemes[n])
                        .iter()
                        .enumerate()
                        .map(|(i, v)| ((i as u64 * out.interval) as f64, v * 100.0))
                        .collect(),
                })
                .collect()
        };
        let hot = svg::line_chart(
            &format!("Hot ratio over time — {}", out.workload),
            "writes",
            "hot ratio (%)",
            &curve(&|s| &s.hot_ratio_per_interval, false),
        );
        let fir = svg::line_chart(
            &format!("False identification rate vs WDAC — {}", out.workload),
            "writes",
            "false identification (%)",
            &curve(&|s| &s.false_identification_rate_per_interval, true),
        );
        for (name, body) in [
            (format!("hot_ratio{suffix}.svg"), hot),
            (format!("false_identification{suffix}.svg"), fir),
        ] {
            let p = dir.join(name);
            crate::output::write_atomic(&p, body.as_bytes())?;
        }
    }
    Ok(())
}

pub fn cmd_hdi(a: HdiArgs) -> Result<ExitCode> {
    if a.interval == 0 || a.block_bytes == 0 {
        bail!("--interval and --block-bytes must be at least 1");
    }
    let loaded = a.workload.load(None)?;
    let src = loaded.source.clone();
    let (names, mut boxes) = schemes_from(&a.schemes)?;
    let out = evaluate_source(&src, &names, &mut boxes, a.interval, a.block_bytes);
    loaded.report_counts();
    let mut out = out?;
    print_table(&out, &names);
    if a.timing {
        // The workload's written blocks, at most 20 M of them, in memory so
        // that reading the trace is not timed.
        let mut lbas = Vec::new();
        for r in src.open()? {
            let r = r?;
            if r.op == Op::Write {
                lbas.extend(r.offset / a.block_bytes..=(r.offset + r.size - 1) / a.block_bytes);
            }
            if lbas.len() >= 20_000_000 {
                break;
            }
        }
        println!(
            "\n{:<10} {:>12} {:>12}   (wall time, this machine; {} writes)",
            "scheme",
            "ns/check",
            "ns/decay",
            lbas.len()
        );
        for n in &names {
            let t = time_scheme(&|| scheme(n).expect("validated name"), &lbas);
            let decay = if t.ns_per_decay < 1.0 {
                "<1".to_string()
            } else {
                format!("{:.0}", t.ns_per_decay)
            };
            println!("{:<10} {:>12.1} {:>12}", n, t.ns_per_check, decay);
            if let Some(s) = out.schemes.get_mut(n) {
                s.timing = Some(t);
            }
        }
    }
    write_outputs(
        &out,
        &names,
        a.json.as_deref(),
        a.csv.as_deref(),
        a.svg_dir.as_deref(),
        "",
    )?;
    Ok(ExitCode::SUCCESS)
}
