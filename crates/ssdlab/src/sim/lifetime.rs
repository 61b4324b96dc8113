//! Lifetime mode (`ssdlab lifetime`): how many host bytes a drive takes
//! before its first block (or a chosen share of its blocks) reaches its
//! rated program/erase cycles (`cell.endurance`).
//!
//! Untimed, as preconditioning's `trace-writes` aging is: a fresh drive
//! (or one aged by `fill` and `age`, whose data the workload may never
//! rewrite) takes the workload's page writes in request order, pass after pass (the
//! trace or profile looped), each written with the untimed path (the
//! configured plane allocation, untimed GC with the configured victim
//! policy when a plane falls to its GC threshold, and wear levelling when
//! configured). Reads, trims and timing play no part. It stops before the
//! host write whose room-making erase brought the worn blocks (erase count
//! at least the endurance) to the target: `ceil(worn_share × blocks)`, at
//! least one. Deterministic for a seed (the model's generator draws the
//! victim policy's random choices, as in aging).
//!
//! The figures: host bytes written; drive writes (host bytes / logical
//! capacity); write amplification ((host pages + GC moves) / host pages);
//! the erase counts of the blocks (fewest, mean, most, and the largest
//! spread within a plane); and drive writes per day over `years`
//! (drive writes / (years × 365)).

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use crate::config::{AddressMode, Config, Mapping};
use crate::domain::Domains;
use crate::error::{Error, Result};
use crate::ftl::{Ftl, PreconditionReport, Writer};
use crate::host::address::{scan, write_pages, AddressMap};
use crate::host::precondition::Precondition;
use crate::metrics::WearLevellingReport;
use crate::scheme::compose;
use crate::workload::Source;

/// Host pages written between two progress calls and looks for an
/// interrupt.
const POLL_PAGES: u64 = 1 << 16;

/// What lifetime mode is asked for.
#[derive(Clone, Debug)]
pub struct LifetimeOptions {
    /// Share of blocks that must reach the endurance, in (0, 1]; any
    /// share stops at no fewer than one block. None: the first block.
    pub worn_share: Option<f64>,
    /// The period drive writes per day are given for, in years (> 0).
    pub years: f64,
    /// Aging before the replay (`fill` and `age` only: data the workload
    /// may never rewrite, which wear levelling has to move); its writes are
    /// not counted.
    pub precondition: Option<Precondition>,
}

/// Where a lifetime replay is (the progress callback's argument).
#[derive(Clone, Copy, Debug)]
pub struct LifetimeProgress {
    pub host_pages: u64,
    pub passes: u64,
    pub worn_blocks: u64,
    pub target_blocks: u64,
    pub max_erases: u32,
    pub endurance: u32,
}

/// Erase counts of the blocks at the end.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LifetimeErases {
    pub min: u32,
    pub mean: f64,
    pub max: u32,
    /// The largest spread (most − fewest) among one plane's blocks.
    pub plane_block_spread: u32,
    /// Erases in all.
    pub total: u64,
}

/// The result of lifetime mode (module documentation).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LifetimeReport {
    pub config: String,
    pub workload: String,
    pub seed: u64,
    /// The aging before the replay (`none`, or its `fill` and `age`).
    pub precondition: String,
    /// `cell.endurance` (configured or the cell type's rating).
    pub endurance: u32,
    /// `--worn-share` (absent: the first worn block ends it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worn_share: Option<f64>,
    /// Blocks that had to reach the endurance, and the drive's blocks.
    pub target_blocks: u64,
    pub blocks: u64,
    pub host_pages: u64,
    pub host_bytes: u64,
    pub logical_bytes: u64,
    pub drive_writes: f64,
    pub gc_pages_moved: u64,
    pub write_amplification: f64,
    /// Whole passes over the workload's writes, and the pages written of
    /// the pass under way when it stopped.
    pub passes: u64,
    pub pages_into_pass: u64,
    pub erase_count: LifetimeErases,
    pub years: f64,
    pub drive_writes_per_day: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wear_levelling: Option<WearLevellingReport>,
}

impl LifetimeReport {
    /// The human-readable summary.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "lifetime of {} under {} (seed {}, aged {})\n  worn     {} of {} blocks at {} erases\n  written  {} host pages, {:.3} TB, {:.1} drive writes ({} passes + {} pages)\n  WAF      {:.3} ({} GC moves)\n  erases   per block {} / {:.1} / {} (min / mean / max), largest spread of a plane's blocks {}\n  DWPD     {:.3} over {} years\n",
            self.config,
            self.workload,
            self.seed,
            self.precondition,
            self.target_blocks,
            self.blocks,
            self.endurance,
            self.host_pages,
            self.host_bytes as f64 / 1e12,
            self.drive_writes,
            self.passes,
            self.pages_into_pass,
            self.write_amplification,
            self.gc_pages_moved,
            self.erase_count.min,
            self.erase_count.mean,
            self.erase_count.max,
            self.erase_count.plane_block_spread,
            self.drive_writes_per_day,
            self.years,
        );
        if let Some(w) = &self.wear_levelling {
            s.push_str(&format!("  levelling {}\n", w.modes()));
        }
        s
    }
}

/// Run lifetime mode (module documentation). `progress` is called every
/// few host pages written; an interrupt
/// ([`crate::workload::interrupt`]) stops it with `Error::Interrupted`.
pub fn lifetime(
    cfg: &Config,
    source: &Source,
    opts: &LifetimeOptions,
    progress: &mut dyn FnMut(&LifetimeProgress),
) -> Result<LifetimeReport> {
    cfg.validate(&cfg.name)?;
    if let Some(s) = opts.worn_share.filter(|&s| !(s > 0.0 && s <= 1.0)) {
        return Err(Error::Invalid(format!(
            "--worn-share {s}: must be in (0, 1] (a share of the drive's blocks)"
        )));
    }
    if !(opts.years > 0.0 && opts.years.is_finite()) {
        return Err(Error::Invalid(format!(
            "--years {}: must be a positive number",
            opts.years
        )));
    }
    if let Some(p) = &opts.precondition {
        if p.trace_sequence || p.trace_writes || p.trace_reads || p.until_steady.is_some() {
            return Err(Error::Invalid(format!(
                "--precondition {}: lifetime mode ages the drive with fill and age only (it replays the workload's writes itself)",
                p.describe()
            )));
        }
    }
    if cfg.ftl.hot_data != "none" {
        return Err(Error::config(
            &cfg.name,
            "ftl.hot_data",
            "lifetime mode runs no hot-data identifier (its writes are untimed): set it to \"none\"",
        ));
    }
    if cfg.ftl.mapping != Mapping::Page {
        return Err(Error::config(
            &cfg.name,
            "ftl.mapping",
            "lifetime mode replays writes with a page-level map held in DRAM (\"page\"): hybrid maps and DFTL's translation pages are not replayed untimed",
        ));
    }
    if cfg.ftl.type_pools {
        return Err(Error::config(
            &cfg.name,
            "ftl.type_pools",
            "lifetime mode's untimed writes do not use PA-SSD's type pools",
        ));
    }
    if let Some(available) = crate::mem::available_bytes() {
        if cfg.memory_estimate() > available {
            return Err(Error::config(
                &cfg.name,
                "geometry",
                format!(
                    "this drive ({} physical pages) needs more memory for its page maps than is available",
                    cfg.physical_pages()
                ),
            ));
        }
    }
    let page = cfg.geometry.page_size_bytes as u64;
    let logical = cfg.logical_pages();
    if let (Some(path), AddressMode::Compact) = (source.read_once(), cfg.host.address_mode) {
        return Err(Error::Invalid(format!(
            "{} is not a regular file, so it can be read only once, but host.address_mode = \"compact\" reads it twice; save the trace to a file",
            path.display()
        )));
    }
    let map = if cfg.host.address_mode == AddressMode::Compact {
        scan(source, logical, page, true)?.1
    } else {
        AddressMap::Fold
    };
    let writes = write_pages(source, &map, logical, page)?;
    if writes.is_empty() {
        return Err(Error::Invalid(format!(
            "{}: the workload writes nothing, so it cannot wear the drive",
            source.describe()
        )));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed);
    let domains = Domains::new(cfg);
    let mut ftl = Ftl::new(cfg, &domains, false);
    ftl.set_request_allocator(compose::request_allocator(cfg, &domains));
    let mut report = PreconditionReport::default();
    if let Some(p) = &opts.precondition {
        if let Some((lo, hi, v)) = p.fill {
            ftl.precondition_fill((lo, hi), v, &mut rng, &mut report)?;
        }
        if let Some(x) = p.age {
            let n = (x * logical as f64).round() as u64;
            ftl.precondition_map(0..n as crate::addr::Lpn, &mut rng, &mut report)?;
        }
    }
    // The aging's erases count as wear; its moves and writes are not the
    // workload's.
    let mut report = PreconditionReport {
        functional_gc: report.functional_gc,
        ..PreconditionReport::default()
    };
    let endurance = cfg.cell.endurance();
    let planes = ftl.planes();
    let bpp = ftl.blocks_per_plane() as usize;
    let blocks = planes as u64 * bpp as u64;
    let target = opts
        .worn_share
        .map_or(1, |s| ((s * blocks as f64).ceil() as u64).clamp(1, blocks));
    let mut worn_in: Vec<u64> = ftl
        .erase_counts()
        .chunks(bpp)
        .map(|c| c.iter().filter(|&&e| e >= endurance).count() as u64)
        .collect();
    let (mut worn, mut max_erases) = (
        worn_in.iter().sum::<u64>(),
        ftl.erase_counts().iter().copied().max().unwrap_or(0),
    );
    let (mut host, mut moved, mut passes) = (0u64, 0u64, 0u64);
    let w = Writer::Host { hot: false };
    let into = 'replay: loop {
        for (i, &lpn) in writes.iter().enumerate() {
            if host.is_multiple_of(POLL_PAGES) {
                if crate::workload::interrupt::poll() {
                    return Err(Error::Interrupted(format!(
                        "lifetime mode, after {host} host pages ({worn} of {target} blocks worn)"
                    )));
                }
                progress(&LifetimeProgress {
                    host_pages: host,
                    passes,
                    worn_blocks: worn,
                    target_blocks: target,
                    max_erases,
                    endurance,
                });
            }
            let plane = ftl.choose_plane(lpn, w, |_| 0);
            let gcs = report.functional_gc;
            moved += ftl.make_room(plane, &mut rng, &mut report)?;
            if report.functional_gc != gcs {
                // Only this plane erased: recount its worn blocks.
                let p = plane.index();
                let ec = &ftl.erase_counts()[p * bpp..(p + 1) * bpp];
                let now = ec.iter().filter(|&&e| e >= endurance).count() as u64;
                worn = worn + now - worn_in[p];
                worn_in[p] = now;
                max_erases = max_erases.max(ec.iter().copied().max().unwrap_or(0));
                if worn >= target {
                    break 'replay i as u64;
                }
            }
            ftl.write(plane, lpn, 0, w, 0)
                .expect("make_room left free pages");
            host += 1;
        }
        ftl.pad_all();
        passes += 1;
    };
    let ec = ftl.erase_counts();
    let total: u64 = ec.iter().map(|&e| e as u64).sum();
    let spread = ec
        .chunks(bpp)
        .map(|c| c.iter().max().unwrap_or(&0) - c.iter().min().unwrap_or(&0))
        .max()
        .unwrap_or(0);
    let logical_bytes = logical * page;
    let drive_writes = (host * page) as f64 / logical_bytes as f64;
    Ok(LifetimeReport {
        config: cfg.name.clone(),
        workload: source.describe(),
        seed: cfg.seed,
        precondition: opts
            .precondition
            .as_ref()
            .map_or_else(|| "none".into(), |p| p.describe()),
        endurance,
        worn_share: opts.worn_share,
        target_blocks: target,
        blocks,
        host_pages: host,
        host_bytes: host * page,
        logical_bytes,
        drive_writes,
        gc_pages_moved: moved,
        write_amplification: if host == 0 {
            0.0
        } else {
            (host + moved) as f64 / host as f64
        },
        passes,
        pages_into_pass: into,
        erase_count: LifetimeErases {
            min: ec.iter().copied().min().unwrap_or(0),
            mean: total as f64 / blocks as f64,
            max: ec.iter().copied().max().unwrap_or(0),
            plane_block_spread: spread,
            total,
        },
        years: opts.years,
        drive_writes_per_day: drive_writes / (opts.years * 365.0),
        wear_levelling: ftl.levelling_report(),
    })
}
