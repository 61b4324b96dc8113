//! `ssdlab reproduce spd`: the evaluation of Gao, Shi, Liu, Xue, Yang,
//! Zhang, "Boosting the Performance of SSDs via Fully Exploiting the Plane
//! Level Parallelism", IEEE TPDS 31(9), 2020 (SPD), on the paper's eleven MSR
//! Cambridge workloads, with our figures printed beside the paper's.
//!
//! The experiments are data: which schemes (registry names from
//! `ssdlab::scheme`, plus overrides), whether the drive is aged, which
//! workloads and drive variants. A scheme the registry does not have yet is
//! skipped with a note, so it appears once it is registered. The paper's
//! numbers are in one table, `CLAIMS`. Runs execute in parallel through the
//! sweep's machinery and write the sweep's outputs (per-run JSON, one CSV,
//! markdown tables, SVG charts); identical runs (same drive, workload and
//! preconditioning in two experiments) are simulated once.

mod board;
mod claims;

use claims::{paper_text, Claim, CLAIMS};

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;

use ssdlab::config::BufferCapacity;
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Report};

use crate::batch::Task;
use crate::results::CsvRow;
use crate::sweep::{
    buffer_hit_ratio, fmt_value, ratio, sanitise, select, workload_args, write, Grid, Row,
};

#[derive(Args)]
pub struct SpdArgs {
    /// Output directory (runs/, results.csv, summary.md, charts/).
    #[arg(long, default_value = "reproduce-spd")]
    out: PathBuf,
    /// Directory of the real MSR Cambridge traces (hm_0.csv, prn_0.csv, …;
    /// .csv.gz and .csv.zst too). A workload whose trace is missing uses its
    /// built-in look-alike profile (spd/hm_0, …).
    #[arg(long)]
    trace_dir: Option<PathBuf>,
    /// The format of the traces in --trace-dir: a format name, auto, or a
    /// format spec (as `run --trace-format`); default msr.
    #[arg(long, default_value = "msr", value_name = "FORMAT|SPEC.toml|SPEC")]
    trace_format: String,
    /// A run 1/8 the size of the full one: the first 1/8 of each workload's
    /// requests on a drive with 1/8 of the blocks per plane (same channels,
    /// dies, planes and timing), so that the drive goes through the same GC
    /// states as in the full run.
    #[arg(long)]
    quick: bool,
    #[command(flatten)]
    batch: crate::batch::BatchArgs,
    /// Experiments to run, comma-separated (default: all): no-gc, gc,
    /// spd-plus, buffer-size, four-plane, mapping, hot-cold.
    #[arg(long, value_delimiter = ',')]
    experiments: Vec<String>,
    /// Workloads, comma-separated (default: all eleven).
    #[arg(long, value_delimiter = ',')]
    workloads: Vec<String>,
    /// The drive (default: the paper's 512 GB drive).
    #[arg(long, default_value = "spd-512g")]
    preset: String,
    /// At most this many requests per workload (with --quick: on the
    /// scaled drive, instead of 1/8 of each workload).
    #[arg(long)]
    limit: Option<u64>,
    /// A configuration override (KEY=VALUE, as `run --set`) applied to every
    /// run before the experiment's own, for sensitivity studies; the
    /// scoreboard then compares a changed drive.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

impl SpdArgs {
    /// Every experiment of the paper into `out` (`ssdlab reproduce all`).
    pub(crate) fn all(out: PathBuf, quick: bool, batch: crate::batch::BatchArgs) -> Self {
        SpdArgs {
            out,
            quick,
            batch,
            trace_dir: None,
            trace_format: "msr".into(),
            experiments: Vec::new(),
            workloads: Vec::new(),
            preset: "spd-512g".into(),
            limit: None,
            set: Vec::new(),
        }
    }
}

/// The paper's workloads, in its order.
const WORKLOADS: [&str; 11] = [
    "hm_0", "prn_0", "prn_1", "proj_0", "proj_3", "prxy_0", "rsrch_0", "src2_0", "stg_0", "ts_0",
    "wdev_0",
];

/// `--quick` divides the drive's blocks per plane and each workload's
/// request count by this. A prefix on the full drive would spend all its
/// requests in the initial GC storm of the aged drive (every victim 80 %
/// valid); scaling capacity and length together keeps the ratio of data
/// written to capacity, and so the GC states, of the full run.
const QUICK_SCALE: u64 = 8;

/// "Without GC": reads find data, the drive is otherwise empty, GC never runs.
const NOT_AGED: &str = "trace-reads";
/// "With GC": the paper's aged drive (§6): each plane filled to a random level
/// from 93 to 95 %, 80 % of it valid, then the workload's reads mapped.
const AGED: &str = "fill:0.93-0.95:0.8+trace-reads";

/// Buffer sizes of the buffer-size experiment (Fig. 21), KiB.
const BUFFER_KIB: [u64; 7] = [256, 512, 1024, 2048, 4096, 8192, 16384];

/// A column of an experiment: a registered scheme plus overrides.
struct Variant {
    /// Name in the results (the CSV's `scheme` column).
    label: &'static str,
    /// The registered scheme (`ssdlab::scheme::SCHEMES`) it starts from.
    scheme: &'static str,
    /// `--set` overrides applied on top.
    set: &'static [&'static str],
}

const fn v(label: &'static str) -> Variant {
    Variant {
        label,
        scheme: label,
        set: &[],
    }
}

/// How an experiment changes the drive before any scheme applies.
#[derive(Clone, Copy, PartialEq)]
enum DriveVariant {
    AsIs,
    /// Four planes per die, blocks per plane scaled so that capacity stays.
    FourPlanes,
}

struct Experiment {
    /// The CSV's `experiment` column and the `--experiments` name.
    name: &'static str,
    title: &'static str,
    aged: bool,
    drive: DriveVariant,
    variants: &'static [Variant],
    /// The variant relative figures in the tables and charts are taken to.
    baseline: &'static str,
    /// Only these workloads (if selected); None: every selected workload.
    only: Option<&'static [&'static str]>,
    /// Sweep the buffer size over `BUFFER_KIB`.
    buffer_sizes: bool,
    /// What the experiment leaves out of the paper's, printed with its
    /// results.
    note: Option<&'static str>,
}

/// An experiment on the aged drive, every selected workload, the drive as
/// it is; the others change what differs with struct update syntax.
const fn aged(
    name: &'static str,
    title: &'static str,
    variants: &'static [Variant],
    baseline: &'static str,
) -> Experiment {
    Experiment {
        name,
        title,
        aged: true,
        drive: DriveVariant::AsIs,
        variants,
        baseline,
        only: None,
        buffer_sizes: false,
        note: None,
    }
}

const EXPERIMENTS: [Experiment; 7] = [
    Experiment {
        aged: false,
        ..aged(
            "no-gc",
            "without GC (Figs. 9-12, Table 3)",
            &[
                v("baseline-d"),
                v("baseline-p"),
                v("twinblk"),
                v("superpage"),
                v("spd"),
            ],
            "baseline-d",
        )
    },
    aged(
        "gc",
        "with GC (Figs. 13-17, Table 4)",
        &[
            v("baseline-d"),
            v("baseline-p"),
            v("twinblk"),
            v("superpage"),
            v("paragc"),
            v("spd"),
        ],
        "baseline-d",
    ),
    aged(
        "spd-plus",
        "SPD+ against SPD (Figs. 18-20)",
        &[v("spd"), v("spd-plus")],
        "spd",
    ),
    Experiment {
        aged: false,
        note: Some("as in the paper (§6.5, \"GC is not triggered\"), the drive is not aged"),
        only: Some(&["rsrch_0"]),
        buffer_sizes: true,
        ..aged(
            "buffer-size",
            "buffer size, rsrch_0, without GC (Fig. 21)",
            &[v("baseline-d"), v("spd")],
            "baseline-d",
        )
    },
    Experiment {
        aged: false,
        note: Some("as in the paper (§6.5, \"GC is not triggered\"), the drive is not aged"),
        drive: DriveVariant::FourPlanes,
        ..aged(
            "four-plane",
            "four planes per die, without GC (Fig. 22)",
            &[
                v("baseline-d"),
                Variant {
                    label: "baseline-p",
                    scheme: "baseline-p",
                    set: &["flash.plane_pairs_only=true"],
                },
                v("spd"),
            ],
            "baseline-d",
        )
    },
    Experiment {
        aged: false,
        note: Some(
            "as in the paper (§6.5, \"GC is not triggered in this evaluation\"), the drive is not aged; the paper gives DFTL's figure for rsrch_0 (\"Take RSR_0 as an example\"), so DFTL-SPD is compared on rsrch_0",
        ),
        ..aged(
            "mapping",
            "DFTL and FAST mapping (Fig. 23)",
            &[
                v("spd"),
                Variant {
                    label: "dftl-spd",
                    scheme: "spd",
                    set: &["ftl.mapping=dftl"],
                },
                Variant {
                    label: "dftl-baseline-d",
                    scheme: "baseline-d",
                    set: &["ftl.mapping=dftl"],
                },
                Variant {
                    label: "fast-spd",
                    scheme: "spd",
                    set: &["ftl.mapping=fast"],
                },
                Variant {
                    label: "fast-baseline-d",
                    scheme: "baseline-d",
                    set: &["ftl.mapping=fast"],
                },
            ],
            "spd",
        )
    },
    aged(
        "hot-cold",
        "hot/cold separation (Fig. 24)",
        &[
            v("baseline-d"),
            Variant {
                label: "baseline-d+hot-cold",
                scheme: "baseline-d",
                set: &["ftl.hot_data=update-window", "ftl.hot_separation=gc-moves"],
            },
            v("spd-plus"),
            Variant {
                label: "spd-plus+hot-cold",
                scheme: "spd-plus",
                set: &["ftl.hot_data=update-window", "ftl.hot_separation=gc-moves"],
            },
        ],
        "baseline-d",
    ),
];

/// One value of a swept parameter (the buffer size).
struct Point {
    /// Shown in tables ("256 KiB").
    label: String,
    /// The CSV column's value (`{pages=64}`), empty if the experiment has none.
    value: String,
}

/// An experiment as it will run.
struct ExpPlan {
    def: &'static Experiment,
    drive_label: String,
    /// Variants that run (their scheme is registered).
    variants: Vec<&'static Variant>,
    /// Variants whose scheme is not registered yet.
    skipped: Vec<&'static Variant>,
    /// Indexes into the workloads.
    workloads: Vec<usize>,
    points: Vec<Point>,
    /// Indexes into `Plan::runs`, in (workload, point, variant) order.
    runs: Vec<usize>,
    precondition: Precondition,
}

impl ExpPlan {
    fn baseline(&self) -> Option<usize> {
        self.variants
            .iter()
            .position(|v| v.label == self.def.baseline)
    }

    fn rows(&self, workloads: &[Workload]) -> Vec<Row> {
        let nv = self.variants.len();
        let mut rows = Vec::new();
        for (k, chunk) in self.runs.chunks(nv.max(1)).enumerate() {
            let w = &workloads[self.workloads[k / self.points.len()]].name;
            let p = &self.points[k % self.points.len()];
            let label = match (self.workloads.len(), p.label.is_empty()) {
                (_, true) => w.to_string(),
                (1, false) => p.label.clone(),
                _ => format!("{w} {}", p.label),
            };
            rows.push(Row {
                label,
                runs: chunk.to_vec(),
            });
        }
        rows
    }
}

struct Workload {
    name: &'static str,
    /// "trace DIR/hm_0.csv" or "built-in spd/hm_0".
    from: String,
    source: Source,
    /// `--quick`: pages the whole workload touches, which sizes a buffer
    /// given as a share of the footprint as in the full run (the prefix
    /// touches fewer).
    whole_footprint_pages: Option<u64>,
}

impl Workload {
    /// The first 1/`scale` of the workload's requests (counted, with the
    /// whole workload's footprint in `page_bytes` pages, by reading it once).
    fn scaled(self, scale: u64, page_bytes: u64) -> Result<Workload> {
        let context = || format!("workload {} ({})", self.name, self.from);
        let mut n = 0u64;
        let mut pages = Vec::new();
        for r in self.source.open().with_context(context)? {
            let r = r.with_context(context)?;
            n += 1;
            if r.op != ssdlab::workload::Op::Trim {
                pages.extend(r.offset / page_bytes..=(r.offset + r.size - 1) / page_bytes);
            }
        }
        pages.sort_unstable();
        pages.dedup();
        let limit = n.div_ceil(scale).max(1);
        Ok(Workload {
            name: self.name,
            from: format!("{}, first {limit} of its {n} requests", self.from),
            source: Source::Limited {
                inner: Box::new(self.source),
                limit,
            },
            whole_footprint_pages: Some(pages.len() as u64),
        })
    }
}

/// One run: an experiment's variant on a workload (at a parameter point).
struct Run {
    exp: usize,
    workload: usize,
    variant: usize,
    point: usize,
    /// Index of the simulation that produces its report (shared by
    /// identical runs).
    task: usize,
    file: String,
}

struct Plan {
    exps: Vec<ExpPlan>,
    workloads: Vec<Workload>,
    runs: Vec<Run>,
    /// Unique simulations.
    sims: Vec<Sim>,
}

/// A simulation: a configuration on a workload, preconditioned as the
/// experiment (the first that needs it) says.
struct Sim {
    config: Config,
    workload: usize,
    exp: usize,
    label: String,
}

/// The workload `name`: its trace in `trace_dir` if there, else the
/// built-in look-alike; at most `limit` requests.
fn load_workload(
    name: &'static str,
    trace_dir: Option<&Path>,
    trace_format: &str,
    limit: Option<u64>,
) -> Result<Workload> {
    let trace = trace_dir.and_then(|d| {
        ["csv", "csv.gz", "csv.zst"]
            .iter()
            .map(|ext| d.join(format!("{name}.{ext}")))
            .find(|p| p.is_file())
    });
    let mut args = workload_args(limit);
    let from = match trace {
        Some(path) => {
            args.read.trace_format = trace_format.into();
            let from = format!("trace {}", path.display());
            args.trace = Some(path);
            from
        }
        None => {
            let builtin = format!("spd/{name}");
            let from = format!("built-in {builtin}");
            args.workload = Some(builtin);
            from
        }
    };
    let loaded = args
        .load(None)
        .with_context(|| format!("workload {name} ({from})"))?;
    Ok(Workload {
        name,
        from,
        source: loaded.source,
        whole_footprint_pages: None,
    })
}

/// `--quick`'s drive: `cfg` with 1/QUICK_SCALE of its blocks per plane.
fn quick_drive(cfg: &Config) -> Result<Config> {
    let blocks = cfg.geometry.blocks_per_plane as u64 / QUICK_SCALE;
    if blocks < 16 {
        bail!(
            "drive `{}` is too small for --quick ({} blocks per plane / {QUICK_SCALE}); use --limit",
            cfg.name,
            cfg.geometry.blocks_per_plane
        );
    }
    Ok(cfg.with_overrides(&[format!("geometry.blocks_per_plane={blocks}")])?)
}

/// `cfg` with four planes per die and the same capacity.
fn four_planes(cfg: &Config) -> Result<Config> {
    let g = &cfg.geometry;
    let blocks = g.blocks_per_plane as u64 * g.planes_per_die as u64 / 4;
    if blocks == 0 {
        bail!("drive `{}` is too small for four planes per die", cfg.name);
    }
    Ok(cfg.with_overrides(&[
        "geometry.planes_per_die=4".to_string(),
        format!("geometry.blocks_per_plane={blocks}"),
    ])?)
}

fn plan(a: &SpdArgs) -> Result<Plan> {
    let names: Vec<&str> = EXPERIMENTS.iter().map(|e| e.name).collect();
    let chosen = select("experiment", &a.experiments, &names)?;
    let chosen_workloads = select("workload", &a.workloads, &WORKLOADS)?;
    if a.limit == Some(0) {
        bail!("--limit must be at least 1");
    }
    if let Some(d) = &a.trace_dir {
        if !d.is_dir() {
            bail!("--trace-dir {}: not a directory", d.display());
        }
    }
    let mut base = Config::preset(&a.preset)?;
    // The paper's buffer: 1 % of each workload's footprint (§5.1), whatever
    // the preset's own size.
    base.buffer.capacity = BufferCapacity::FootprintPercent(1.0);
    if a.quick {
        base = quick_drive(&base)?;
    }
    let mut workloads = Vec::new();
    for name in &chosen_workloads {
        let mut w = load_workload(name, a.trace_dir.as_deref(), &a.trace_format, a.limit)?;
        if a.quick && a.limit.is_none() {
            w = w.scaled(QUICK_SCALE, base.geometry.page_size_bytes as u64)?;
        }
        workloads.push(w);
    }

    let mut plan = Plan {
        exps: Vec::new(),
        workloads,
        runs: Vec::new(),
        sims: Vec::new(),
    };
    let mut sim_of: HashMap<(String, usize, &str), usize> = HashMap::new();
    for def in EXPERIMENTS.iter().filter(|e| chosen.contains(&e.name)) {
        let (drive, drive_label) = match def.drive {
            DriveVariant::AsIs => (base.clone(), a.preset.clone()),
            DriveVariant::FourPlanes => (four_planes(&base)?, format!("{}-4plane", a.preset)),
        };
        let (variants, skipped): (Vec<&Variant>, Vec<&Variant>) = def
            .variants
            .iter()
            .partition(|v| ssdlab::scheme::by_name(v.scheme).is_ok());
        let points = if def.buffer_sizes {
            let page = drive.geometry.page_size_bytes as u64;
            BUFFER_KIB
                .iter()
                .map(|kib| Point {
                    label: if *kib >= 1024 {
                        format!("{} MiB", kib / 1024)
                    } else {
                        format!("{kib} KiB")
                    },
                    value: format!("{{pages={}}}", (kib * 1024 / page).max(1)),
                })
                .collect()
        } else {
            vec![Point {
                label: String::new(),
                value: String::new(),
            }]
        };
        let wl: Vec<usize> = (0..plan.workloads.len())
            .filter(|&w| def.only.is_none_or(|o| o.contains(&plan.workloads[w].name)))
            .collect();
        let pre_text = if def.aged { AGED } else { NOT_AGED };
        let mut exp = ExpPlan {
            def,
            drive_label,
            variants,
            skipped,
            workloads: wl,
            points,
            runs: Vec::new(),
            precondition: Precondition::parse(pre_text)?,
        };
        let e = plan.exps.len();
        for &w in &exp.workloads {
            for (p, point) in exp.points.iter().enumerate() {
                for (k, var) in exp.variants.iter().enumerate() {
                    let scheme = ssdlab::scheme::by_name(var.scheme)?;
                    let mut sets: Vec<String> = a.set.clone();
                    sets.extend(var.set.iter().map(|s| s.to_string()));
                    if !point.value.is_empty() {
                        sets.push(format!("buffer.capacity={}", point.value));
                    }
                    let mut config = scheme
                        .apply(&drive)
                        .and_then(|c| c.with_overrides(&sets))
                        .with_context(|| {
                            format!(
                                "experiment {}: scheme `{}` on drive `{}`",
                                def.name, var.label, exp.drive_label
                            )
                        })?;
                    // --quick: a buffer sized by the footprint is sized by
                    // the whole workload's, as in the full run.
                    if let (Some(fp), BufferCapacity::FootprintPercent(pct)) = (
                        plan.workloads[w].whole_footprint_pages,
                        config.buffer.capacity,
                    ) {
                        config.buffer.capacity =
                            BufferCapacity::Pages(((fp as f64 * pct / 100.0).ceil() as u64).max(1));
                    }
                    let wname = plan.workloads[w].name;
                    let mut label = format!("{} {} {}", def.name, wname, var.label);
                    let mut file = format!(
                        "{}__{}__{}__{}",
                        def.name,
                        sanitise(&exp.drive_label),
                        wname,
                        sanitise(var.label)
                    );
                    if !point.value.is_empty() {
                        let _ = write!(label, " {}", point.label);
                        let _ = write!(file, "__buffer.capacity={}", sanitise(&point.value));
                    }
                    let key = (config.to_toml(), w, pre_text);
                    let task = *sim_of.entry(key).or_insert_with(|| {
                        plan.sims.push(Sim {
                            config,
                            workload: w,
                            exp: e,
                            label,
                        });
                        plan.sims.len() - 1
                    });
                    exp.runs.push(plan.runs.len());
                    plan.runs.push(Run {
                        exp: e,
                        workload: w,
                        variant: k,
                        point: p,
                        task,
                        file,
                    });
                }
            }
        }
        plan.exps.push(exp);
    }
    Ok(plan)
}

/// Per-row values of `claim` for `variant` (relative change in percent, or
/// absolute), and their mean over the rows where defined.
fn claim_values(
    claim: &Claim,
    exp: &ExpPlan,
    rows: &[Row],
    reports: &[Report],
    variant: usize,
) -> Option<(Vec<Option<f64>>, Option<f64>)> {
    let value = |run: usize| claim.metric.value(&reports[run]);
    let cells: Vec<Option<f64>> = match claim.vs {
        None => rows.iter().map(|r| Some(value(r.runs[variant]))).collect(),
        Some(vs) => {
            let b = exp.variants.iter().position(|v| v.label == vs)?;
            rows.iter()
                .map(|r| ratio(value(r.runs[variant]), value(r.runs[b])).map(|q| (q - 1.0) * 100.0))
                .collect()
        }
    };
    let defined: Vec<f64> = cells.iter().flatten().copied().collect();
    let mean = (!defined.is_empty()).then(|| defined.iter().sum::<f64>() / defined.len() as f64);
    Some((cells, mean))
}

/// The comparison with the paper for one experiment, as text.
fn compare(exp: &ExpPlan, workloads: &[Workload], reports: &[Report]) -> String {
    let mut s = String::new();
    let def = exp.def;
    let _ = writeln!(s, "== {}: {} ==", def.name, def.title);
    if let Some(note) = def.note {
        let _ = writeln!(s, "{}: {note}.", def.name);
    }
    let _ = writeln!(
        s,
        "drive {}, precondition {} ({}); schemes {}",
        exp.drive_label,
        if def.aged { AGED } else { NOT_AGED },
        if def.aged {
            "aged, GC runs"
        } else {
            "not aged"
        },
        exp.variants
            .iter()
            .map(|v| v.label)
            .collect::<Vec<_>>()
            .join(", ")
    );
    for v in &exp.skipped {
        let _ = writeln!(
            s,
            "note: scheme `{}` is not implemented yet (not in the scheme registry); its runs are skipped",
            v.scheme
        );
    }
    if exp.workloads.is_empty() {
        let _ = writeln!(
            s,
            "skipped: needs workload {}, which is not selected",
            def.only.unwrap_or(&[]).join(", ")
        );
        return s;
    }
    let rows = exp.rows(workloads);
    let _ = writeln!(
        s,
        "Relative change = (scheme - reference) / reference x 100 per workload; \"average\" is its mean over the {}.",
        if exp.points.len() > 1 { "rows" } else { "workloads" }
    );
    let cw = rows.iter().map(|r| r.label.len()).max().unwrap_or(0).max(8);
    let vw = def
        .variants
        .iter()
        .map(|v| v.label.len())
        .max()
        .unwrap_or(0)
        .max(8);
    for claim in CLAIMS.iter().filter(|c| c.experiment == def.name) {
        let _ = writeln!(
            s,
            "\n{}{} ({})",
            claim.metric.title(),
            claim
                .vs
                .map_or(String::new(), |b| format!(" vs {b}, relative change")),
            claim.figure
        );
        let mut head = format!("  {:<vw$}", "scheme");
        for r in &rows {
            let _ = write!(head, " {:>cw$}", r.label);
        }
        let _ = write!(head, " {:>cw$}  paper", "average");
        let _ = writeln!(s, "{head}");
        let fmt = |x: Option<f64>| match (x, claim.vs) {
            (None, _) => "n/a".to_string(),
            // No "-0.0%": a change that rounds to zero shows as +0.0%.
            (Some(x), Some(_)) => format!("{:+.1}%", if x.abs() < 0.05 { 0.0 } else { x }),
            (Some(x), None) => claim.metric.show(x),
        };
        for var in def.variants {
            if claim.vs == Some(var.label) {
                continue;
            }
            let Some(paper) = paper_text(claim, var.label) else {
                continue;
            };
            let paper = if paper.is_empty() { "-" } else { paper };
            let _ = write!(s, "  {:<vw$}", var.label);
            let k = exp.variants.iter().position(|v| v.label == var.label);
            match k.and_then(|k| claim_values(claim, exp, &rows, reports, k)) {
                Some((cells, mean)) => {
                    for c in cells {
                        let _ = write!(s, " {:>cw$}", fmt(c));
                    }
                    let _ = writeln!(s, " {:>cw$}  {paper}", fmt(mean));
                }
                None => {
                    let why = match k {
                        None => "not implemented yet".to_string(),
                        Some(_) => format!("{} not implemented yet", claim.vs.unwrap_or("")),
                    };
                    let _ = writeln!(
                        s,
                        " {why:<w$}  {paper}",
                        w = (cw + 1) * (rows.len() + 1) - 1
                    );
                }
            }
        }
    }
    s
}

pub fn reproduce_spd(a: SpdArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let jobs = a.batch.job_count()?;
    let plan = plan(&a)?;
    let _lock = crate::output::check_out_dir(&a.out, "--out")?;
    let runs_dir = a.out.join("runs");

    let mut head = String::new();
    let _ = writeln!(
        head,
        "Reproducing Gao et al., \"Boosting the Performance of SSDs via Fully Exploiting the Plane Level Parallelism\", IEEE TPDS 2020"
    );
    let _ = writeln!(
        head,
        "drive {}{}; {}",
        a.preset,
        if a.quick {
            format!(" with 1/{QUICK_SCALE} of its blocks per plane (--quick)")
        } else {
            String::new()
        },
        match (a.limit, a.quick) {
            (Some(n), _) => format!("first {n} requests of each workload"),
            (None, true) => format!("first 1/{QUICK_SCALE} of each workload"),
            (None, false) => "whole workloads".to_string(),
        }
    );
    for w in &plan.workloads {
        let _ = writeln!(head, "  {:<8} {}", w.name, w.from);
    }
    if !a.set.is_empty() {
        let _ = writeln!(head, "every run with --set {}", a.set.join(" --set "));
    }
    print!("{head}");
    eprintln!(
        "{} runs ({} simulations) on {} threads",
        plan.runs.len(),
        plan.sims.len(),
        jobs.min(plan.sims.len()).max(1)
    );
    // Each simulation is saved under the file of the first run that uses it.
    let mut sim_file: Vec<String> = vec![String::new(); plan.sims.len()];
    for run in plan.runs.iter().rev() {
        sim_file[run.task] = run.file.clone();
    }
    let tasks: Vec<Task> = plan
        .sims
        .iter()
        .enumerate()
        .map(|(i, sim)| Task {
            label: sim.label.clone(),
            file: sim_file[i].clone(),
            config: &sim.config,
            work: crate::batch::Work::One(&plan.workloads[sim.workload].source),
            precondition: &plan.exps[sim.exp].precondition,
            state: None,
        })
        .collect();
    let Some(results) = crate::batch::run_all(&tasks, &a.batch, &a.out, "reproduction")? else {
        return Ok(ExitCode::SUCCESS);
    };
    let reports: Vec<Report> = plan.runs.iter().map(|r| results[r.task].clone()).collect();
    // The batch saved each simulation under its first run's file; the
    // other runs of a simulation get a copy.
    for (run, report) in plan.runs.iter().zip(&reports) {
        if run.file != sim_file[run.task] {
            crate::write_json(&runs_dir.join(format!("{}.json", run.file)), report)?;
        }
    }
    // The buffer-size column is always there (empty for other experiments),
    // so the header does not depend on --experiments.
    let rows: Vec<CsvRow> = plan
        .runs
        .iter()
        .zip(&reports)
        .map(|(run, report)| {
            let exp = &plan.exps[run.exp];
            CsvRow {
                experiment: exp.def.name,
                preset: &exp.drive_label,
                workload: plan.workloads[run.workload].name,
                scheme: exp.variants[run.variant].label,
                params: vec![exp.points[run.point].value.as_str()],
                report,
            }
        })
        .collect();
    crate::results::write_results(&a.out, &["buffer.capacity"], &rows)?;

    let mut summary = format!("# SPD reproduction\n\n```text\n{head}```\n");
    for exp in &plan.exps {
        let text = compare(exp, &plan.workloads, &reports);
        println!("\n{text}");
        let _ = write!(
            summary,
            "\n## {}: {}\n\n```text\n{text}```\n",
            exp.def.name, exp.def.title
        );
        let Some(baseline) = exp.baseline() else {
            continue;
        };
        if exp.runs.is_empty() {
            continue;
        }
        let names: Vec<String> = exp.variants.iter().map(|v| v.label.to_string()).collect();
        let grid = Grid {
            metrics: &crate::sweep::METRICS,
            schemes: &names,
            baseline,
            rows: exp.rows(&plan.workloads),
            reports: &reports,
        };
        let _ = writeln!(
            summary,
            "\nAll metrics of `{}`, normalised to `{}`: ratio (percent change); \"average\" is the mean ratio.",
            exp.def.name, exp.def.baseline
        );
        grid.tables(&mut summary, "###");
        grid.write_charts(&a.out.join("charts").join(exp.def.name))?;
    }
    let command = format!(
        "ssdlab reproduce spd{}{}",
        if a.quick { " --quick" } else { "" },
        a.set
            .iter()
            .map(|s| format!(" --set {s}"))
            .collect::<String>()
    );
    let board = board::scoreboard(
        &board::Results {
            plan: &plan,
            reports: &reports,
        },
        &command,
        a.quick,
    );
    board.write(&a.out)?;
    let detail = board.detail();
    let _ = write!(summary, "\n{detail}");
    write(&a.out.join("summary.md"), &summary)?;
    println!("\n{detail}");
    println!(
        "\nwall time {:.1} s; results in {} (results.csv, summary.md, scoreboard.json, runs/, charts/)",
        started.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every figure of the paper belongs to a known experiment and names
    /// variants that experiment defines (or the other-variants wildcard).
    #[test]
    fn claims_refer_to_defined_experiments_and_variants() {
        for c in CLAIMS {
            let e = EXPERIMENTS
                .iter()
                .find(|e| e.name == c.experiment)
                .unwrap_or_else(|| panic!("{}: unknown experiment", c.figure));
            let known = |l: &str| e.variants.iter().any(|v| v.label == l);
            if let Some(vs) = c.vs {
                assert!(known(vs), "{} {}: vs `{vs}`", c.experiment, c.figure);
            }
            for (v, _) in c.paper {
                assert!(
                    *v == "*" || known(v),
                    "{} {}: `{v}`",
                    c.experiment,
                    c.figure
                );
            }
        }
        for e in &EXPERIMENTS {
            assert!(
                e.variants.iter().any(|v| v.label == e.baseline),
                "{}: baseline",
                e.name
            );
        }
    }

    /// Every scoreboard figure names a defined experiment, its variants and
    /// (for one workload) one of the paper's workloads.
    #[test]
    fn scoreboard_figures_refer_to_defined_experiments() {
        for s in board::SPECS {
            let e = EXPERIMENTS
                .iter()
                .find(|e| e.name == s.experiment)
                .unwrap_or_else(|| panic!("{} {}: unknown experiment", s.figure, s.quantity));
            let known = |l: &str| e.variants.iter().any(|v| v.label == l);
            assert!(known(s.variant), "{} {}", s.figure, s.quantity);
            if let Some(vs) = s.vs {
                assert!(known(vs), "{} {}", s.figure, s.quantity);
            }
            if let board::Agg::On(w) = s.agg {
                assert!(WORKLOADS.contains(&w), "{} {}", s.figure, s.quantity);
            }
        }
    }

    #[test]
    fn paper_text_prefers_the_variant_over_the_wildcard() {
        let c = &CLAIMS[1];
        assert_eq!(paper_text(c, "spd"), Some("100%"));
        assert_eq!(paper_text(c, "twinblk"), Some(""));
        let fig13_vs_p = CLAIMS
            .iter()
            .find(|c| c.vs == Some("baseline-p") && c.experiment == "gc")
            .unwrap();
        assert_eq!(paper_text(fig13_vs_p, "twinblk"), None);
    }

    #[test]
    fn four_planes_keep_the_capacity() {
        let c = Config::preset("spd-512g").unwrap();
        let f = four_planes(&c).unwrap();
        assert_eq!(f.geometry.planes_per_die, 4);
        assert_eq!(f.physical_pages(), c.physical_pages());
    }
}
