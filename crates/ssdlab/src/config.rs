//! Drive and simulation configuration: the TOML schema, the built-in presets,
//! `--set key=value` overrides and validation.
//!
//! Every struct denies unknown fields, so a misspelt key is an error that
//! names the key, never a silent default.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Free-form name, echoed in results.
    pub name: String,
    /// Seed of every random choice of the model (victim policies, fill, ...).
    pub seed: u64,
    pub geometry: Geometry,
    pub cell: Cell,
    pub timing: Timing,
    pub flash: FlashRules,
    pub ftl: Ftl,
    pub gc: Gc,
    pub buffer: Buffer,
    pub sched: Sched,
    pub host: Host,
    pub check: Check,
    pub metrics: MetricsConfig,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Also report a time series with one entry per this many simulated
    /// milliseconds (0 = none).
    pub interval_ms: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size_bytes: u32,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
}

impl CellType {
    pub fn bits(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
        }
    }
}

/// Page type of a page index. LSB pages are the fast ones.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum PageType {
    Lsb,
    Csb,
    Msb,
}

impl PageType {
    pub fn index(self) -> usize {
        match self {
            PageType::Lsb => 0,
            PageType::Csb => 1,
            PageType::Msb => 2,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    #[serde(rename = "type")]
    pub kind: CellType,
    /// Page type of page index i is `page_pattern[i % len]`. Empty = the
    /// cell type's own types in turn (lsb / lsb,msb / lsb,csb,msb).
    pub page_pattern: Vec<PageType>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// Array read time per page type (LSB, CSB, MSB), microseconds. One value
    /// per bit of the cell type.
    pub read_us: Vec<f64>,
    /// Array program time per page type, microseconds.
    pub program_us: Vec<f64>,
    pub erase_us: f64,
    /// Channel transfer time per byte, nanoseconds.
    pub bus_ns_per_byte: f64,
    /// Command and address cycles per command, nanoseconds; they occupy the
    /// channel before the command's array or data phase.
    pub command_ns: f64,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Alignment {
    /// Same block index and same page index in every plane (ONFI, SSDSim).
    BlockAndPage,
    /// Same page index only (MQSim).
    Page,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlashRules {
    /// Build multi-plane commands at all.
    pub multiplane: bool,
    pub multiplane_alignment: Alignment,
    /// On 4-plane dies, only planes (0,1) and (2,3) may pair.
    pub plane_pairs_only: bool,
    /// Copyback: source and destination page index must have the same parity.
    pub copyback_odd_even: bool,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PlaneAllocation {
    /// Plane chosen from the LPN by `static_order`.
    Static,
    /// Next plane in turn at the time the page is written.
    RoundRobin,
    /// The plane whose die has the fewest queued operations.
    LeastBusy,
    /// The die from the LPN by `static_order` (as static allocation), the
    /// plane within the die in turn when the page is sent to flash (SPD,
    /// TwinBlk).
    DieRoundRobin,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum BlockGroups {
    /// Every plane allocates, collects and erases its own blocks.
    #[default]
    Plane,
    /// The planes of a die share block indices: a plane's next active block
    /// has the index its sibling planes take too (an aligned block group),
    /// a GC victim is a whole group (fewest valid pages in total), its valid
    /// pages are spread over the die's planes and its blocks are erased with
    /// one multi-plane erase (TwinBlk, SPD's Die-GC).
    Die,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WriteUnit {
    /// Pages are programmed one by one; multi-plane when queued pages
    /// happen to be aligned.
    #[default]
    Page,
    /// Every program (host or GC) is a Die-Write: one page on each plane of
    /// the die at the die's aligned write point, in one multi-plane command
    /// (SPD). Short Die-Writes are completed with buffered pages of the die,
    /// else padded (wasted pages).
    Die,
    /// SuperPage: the unit of writing is a super page, the page of every
    /// plane of a die at the same in-plane address, holding the N logical
    /// pages of one logical super page (LPN / N, its die from the static
    /// order). An update rewrites the whole super page: its other pages are
    /// taken from the buffer if dirty, else read from flash first.
    SuperPage,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ftl {
    /// Share of physical pages hidden from the host, in [0, 1).
    pub overprovisioning: f64,
    pub plane_allocation: PlaneAllocation,
    /// Static allocation order: a permutation of the letters C (channel),
    /// W (chip, "way"), D (die), P (plane); the first letter varies fastest
    /// with consecutive LPNs (MQSim's CWDP family).
    pub static_order: String,
    /// Hot/cold separation: `none`, or a hot-data identification scheme
    /// (wdac, mihf, mbf, dl-mbf, dl-mbf-s, dl-mbf-c, dl-mbf-a, dl-mihf, or
    /// update-window). With a scheme every plane keeps two active blocks, a
    /// hot and a cold one; `hot_separation` says which pages are classified.
    pub hot_data: String,
    /// What hot/cold separation classifies: host pages (GC moves go to the
    /// cold block), or GC moves (host pages go to the hot block).
    #[serde(default)]
    pub hot_separation: HotSeparation,
    /// `hot_data = "update-window"`: the window, in seconds of simulated
    /// time (the SPD paper: 120 minutes).
    #[serde(default = "default_hot_window_s")]
    pub hot_window_s: u64,
    /// `hot_data = "update-window"`: writes of a page within the window that
    /// make it hot.
    #[serde(default = "default_hot_updates")]
    pub hot_updates: u32,
    #[serde(default)]
    pub block_groups: BlockGroups,
    /// Per-plane blocks (`block_groups = "plane"`): a plane opening a block
    /// takes, when it can, the index of a block a sibling plane is writing
    /// (if that index is free here), else the first index free in every
    /// plane it may pair with, so that write points can line up for
    /// multi-plane commands under the block-and-page rule (ParaGC). Off:
    /// each plane opens its oldest free block. No effect under FAST, which
    /// places its data and log units itself.
    #[serde(default)]
    pub align_block_index: bool,
    #[serde(default)]
    pub write_unit: WriteUnit,
    /// Where the logical-to-physical map lives: all in DRAM (`page`), or in
    /// translation pages on flash with a cached mapping table (`dftl`).
    #[serde(default)]
    pub mapping: Mapping,
    /// DFTL: entries the cached mapping table holds.
    #[serde(default = "default_mapping_cache_entries")]
    pub mapping_cache_entries: u64,
    /// DFTL: bytes per entry in a translation page (entries per translation
    /// page = page size / this).
    #[serde(default = "default_mapping_entry_bytes")]
    pub mapping_entry_bytes: u32,
    /// FAST: log units (blocks, or aligned block groups with
    /// `block_groups = "die"`) a GC unit may hold before the oldest is merged.
    #[serde(default = "default_fast_log_units")]
    pub fast_log_units: u32,
}

fn default_fast_log_units() -> u32 {
    8
}

fn default_hot_window_s() -> u64 {
    7200
}

fn default_hot_updates() -> u32 {
    2
}

/// Which pages hot/cold separation (`ftl.hot_data`) sorts into the hot and
/// the cold active block of a plane.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HotSeparation {
    /// Host pages the identifier judges hot go to the hot block, other host
    /// pages and every GC move to the cold block (DVPFTL's use).
    #[default]
    HostWrites,
    /// Host pages go to the hot block; a page moved by GC goes to the hot
    /// block if the identifier judges it hot when the move is created, else
    /// to the cold block (the SPD paper's separation in GC).
    GcMoves,
}

fn default_mapping_cache_entries() -> u64 {
    262_144
}
fn default_mapping_entry_bytes() -> u32 {
    4
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Mapping {
    /// Page-level map held whole in controller DRAM: lookups cost nothing.
    #[default]
    Page,
    /// DFTL (Gupta et al., ASPLOS'09): the page-level map is stored in
    /// translation pages on flash; an LRU cached mapping table (CMT) holds
    /// `mapping_cache_entries` entries. A miss reads the entry's translation
    /// page (a mapping read) before the host read it serves; evicting a dirty
    /// entry writes its translation page back (read, then program), cleaning
    /// every cached entry of that page; GC moves of pages whose entries are
    /// not cached update their translation pages once per GC.
    Dftl,
    /// FAST (Lee et al., ACM TECS 2007): hybrid log-block mapping. Data
    /// blocks are block-mapped (a logical page at its fixed offset); host
    /// writes go to fully associative, page-mapped log blocks, at most
    /// `fast_log_units` per GC unit; the oldest log is reclaimed by merging
    /// every logical block with a valid page in it into a new data block
    /// (a switch when the log already is that block, in order). With
    /// aligned block groups the units are groups of a die (SPD's paired log
    /// blocks; merges write aligned multi-plane pages).
    Fast,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum GcThreshold {
    /// GC starts when a plane's free pages fall below this percent of it.
    Percent(f64),
    /// GC starts when a plane has fewer free blocks than this.
    Blocks(u32),
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum VictimPolicy {
    Greedy,
    Fifo,
    Random,
    DChoices,
    CostBenefit,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Migration {
    /// In-plane copyback: tR + tPROG, no channel use.
    Copyback,
    /// Read out to the controller and program back: uses the channel twice.
    Controller,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Gc {
    pub threshold: GcThreshold,
    pub victim: VictimPolicy,
    /// Candidates sampled by the d-choices policy.
    pub d: u32,
    pub migration: Migration,
    /// Migrations of a plane's GC kept queued or executing at once: 1 is the
    /// classic serial GC (one page moved after the other). More lets a
    /// plane's controller-path reads and programs overlap with other planes'
    /// work; planes that run several copybacks at once (multi-register
    /// planes) are not modelled yet.
    pub moves_in_flight: u32,
    /// ParaGC's early threshold, percent of a plane (0 = off): when a plane
    /// starts GC, the other planes of its die with fewer free pages than this
    /// start GC with it.
    #[serde(default)]
    pub join_percent: f64,
    /// ParaGC's alignment of joined GCs (needs `join_percent`): the planes
    /// that start GC together move their valid pages through the
    /// controller's cache; pages are programmed on the joined planes whose
    /// write points lag first, until the write points are aligned, then one
    /// page per joined plane at a time, which go as multi-plane programs.
    /// No effect under FAST, whose merges have no page moves to align.
    #[serde(default)]
    pub join_align: bool,
    /// SPD+: while a Die-GC runs on a die, pages the buffer evicts to that die
    /// are combined with the GC's page moves into Die-Writes instead of
    /// waiting for the GC to finish. Needs `ftl.write_unit = "die"`.
    #[serde(default)]
    pub combine_host_writes: bool,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum BufferCapacity {
    /// No write buffer: writes go straight to flash.
    None,
    Pages(u64),
    /// Percent of the workload's footprint (distinct pages it touches).
    FootprintPercent(f64),
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Eviction {
    /// LRU pages of one die at a time, dies in round-robin (Baseline-D, EPO).
    DieRoundRobin,
    /// Dies in round-robin; an eviction takes the least recently used dirty
    /// page of the die and, for each other plane of the die, the least
    /// recently used dirty page bound for that plane, so the pages can go
    /// multi-plane when their write points happen to be aligned (the SPD
    /// paper's Baseline-P). `evict_pages` is not used: one page per plane.
    DieMultiPlane,
    /// SPD's Die-Write: `evict_pages` rounded down to a multiple of the
    /// planes per die (at least one page per plane) least recently used
    /// pages of one die, dies in round-robin, skipping dies with fewer dirty
    /// pages than planes (if every die has fewer, the die with the most).
    DieWrite,
    /// SuperPage: the least recently used page of the next die in turn with
    /// the dirty pages of its logical super page.
    SuperPage,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Buffer {
    pub capacity: BufferCapacity,
    pub eviction: Eviction,
    /// Pages one eviction takes from the chosen die.
    pub evict_pages: u32,
    /// Eviction starts when free (not yet claimed) slots fall below this share of
    /// the capacity. 0 = evict only when a write finds no free slot.
    pub free_watermark: f64,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SchedPolicy {
    /// Host reads first, then GC traffic, then host writes.
    ReadPriority,
    /// Oldest operation first; GC traffic still precedes host writes.
    Fcfs,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sched {
    pub policy: SchedPolicy,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HostMode {
    /// Requests arrive at their trace timestamps (times `time_scale`).
    OpenLoop,
    /// `queue_depth` requests are kept outstanding; timestamps are ignored.
    ClosedLoop,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WriteCompletion {
    /// A write sub-request completes when its page is programmed.
    Program,
    /// ... when its data reaches the plane's register (SSDSim).
    Transfer,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Host {
    pub mode: HostMode,
    pub queue_depth: u32,
    /// Multiplies trace inter-arrival times (0.5 = twice as fast).
    pub time_scale: f64,
    pub write_completion: WriteCompletion,
    /// A write that covers part of a page first reads the old page.
    pub partial_write_rmw: bool,
    /// Requests completed before measurement starts: all statistics are
    /// reset when this many requests have completed (0 = measure all).
    pub warmup_requests: u64,
    /// The workload is replayed this many times back to back; each pass
    /// starts one mean inter-arrival gap after the previous pass's last
    /// request (PA-SSD's multi-run mode).
    pub replays: u32,
    /// How byte addresses become logical pages.
    pub address_mode: AddressMode,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum AddressMode {
    /// Pages beyond the logical capacity fold back (modulo), as other
    /// simulators do.
    Fold,
    /// The distinct pages the workload touches are numbered densely in order
    /// of first touch, so a sparse footprint fits the drive (a footprint
    /// larger than the drive still folds).
    Compact,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// Run the consistency checker (slow; on in tests).
    pub enabled: bool,
    /// Also check every this many completed requests (0 = only at the end).
    pub interval_requests: u64,
}

impl CellType {
    /// The page types a cell of this kind has, fast to slow. Per-type timing
    /// lists (`timing.read_us`, `timing.program_us`) follow this order.
    pub fn page_types(self) -> &'static [PageType] {
        match self {
            CellType::Slc => &[PageType::Lsb],
            CellType::Mlc => &[PageType::Lsb, PageType::Msb],
            CellType::Tlc => &[PageType::Lsb, PageType::Csb, PageType::Msb],
        }
    }
}

fn default_pattern(kind: CellType) -> Vec<PageType> {
    kind.page_types().to_vec()
}

impl Config {
    fn base(name: &str, geometry: Geometry, kind: CellType, timing: Timing) -> Config {
        Config {
            name: name.to_string(),
            seed: 1,
            geometry,
            cell: Cell {
                kind,
                page_pattern: Vec::new(),
            },
            timing,
            flash: FlashRules {
                multiplane: true,
                multiplane_alignment: Alignment::BlockAndPage,
                plane_pairs_only: false,
                copyback_odd_even: false,
            },
            ftl: Ftl {
                overprovisioning: 0.15,
                plane_allocation: PlaneAllocation::Static,
                static_order: "CWDP".to_string(),
                hot_data: "none".to_string(),
                hot_separation: HotSeparation::HostWrites,
                hot_window_s: default_hot_window_s(),
                hot_updates: default_hot_updates(),
                block_groups: BlockGroups::Plane,
                align_block_index: false,
                write_unit: WriteUnit::Page,
                mapping: Mapping::Page,
                mapping_cache_entries: default_mapping_cache_entries(),
                mapping_entry_bytes: default_mapping_entry_bytes(),
                fast_log_units: default_fast_log_units(),
            },
            gc: Gc {
                threshold: GcThreshold::Percent(5.0),
                victim: VictimPolicy::Greedy,
                d: 8,
                migration: Migration::Copyback,
                moves_in_flight: 1,
                join_percent: 0.0,
                join_align: false,
                combine_host_writes: false,
            },
            buffer: Buffer {
                capacity: BufferCapacity::None,
                eviction: Eviction::DieRoundRobin,
                evict_pages: 1,
                free_watermark: 0.0,
            },
            sched: Sched {
                policy: SchedPolicy::ReadPriority,
            },
            host: Host {
                mode: HostMode::OpenLoop,
                queue_depth: 32,
                time_scale: 1.0,
                write_completion: WriteCompletion::Program,
                partial_write_rmw: false,
                warmup_requests: 0,
                replays: 1,
                address_mode: AddressMode::Fold,
            },
            check: Check {
                enabled: false,
                interval_requests: 0,
            },
            metrics: MetricsConfig { interval_ms: 0.0 },
        }
    }

    /// Names of the built-in presets with a one-line description each.
    pub fn preset_names() -> &'static [(&'static str, &'static str)] {
        &[
            (
                "spd-512g",
                "SPD paper (TPDS 2020) 512 GB SLC drive, 16 ch x 8 chips, 2-plane dies",
            ),
            (
                "pgc-slc",
                "Parallel-GC paper (IEEE Access 2020) SLC drive, 64 pages/block",
            ),
            (
                "pgc-mlc",
                "Parallel-GC paper (IEEE Access 2020) MLC drive, 256 pages/block",
            ),
            (
                "pa-tlc",
                "PA-SSD paper (TPDS 2020) TLC drive, 16 planes per chip, 8 KB pages",
            ),
            ("small", "a 4 GiB SLC drive for tests and quick experiments"),
        ]
    }

    /// A built-in preset by name.
    pub fn preset(name: &str) -> Result<Config> {
        let slc = |r: f64, p: f64, e: f64, bus: f64| Timing {
            read_us: vec![r],
            program_us: vec![p],
            erase_us: e,
            bus_ns_per_byte: bus,
            command_ns: 0.0,
        };
        let cfg = match name {
            "spd-512g" => {
                let mut c = Config::base(
                    name,
                    Geometry {
                        channels: 16,
                        chips_per_channel: 8,
                        dies_per_chip: 1,
                        planes_per_die: 2,
                        blocks_per_plane: 2048,
                        pages_per_block: 256,
                        page_size_bytes: 4096,
                    },
                    CellType::Slc,
                    slc(75.0, 1500.0, 3800.0, 25.0),
                );
                c.ftl.overprovisioning = 0.25;
                c.gc.threshold = GcThreshold::Percent(7.0);
                c.buffer.capacity = BufferCapacity::FootprintPercent(1.0);
                c
            }
            "pgc-slc" | "pgc-mlc" => {
                let mlc = name == "pgc-mlc";
                let mut c = Config::base(
                    name,
                    Geometry {
                        channels: 4,
                        chips_per_channel: 4,
                        dies_per_chip: 2,
                        planes_per_die: 2,
                        blocks_per_plane: 2048,
                        pages_per_block: if mlc { 256 } else { 64 },
                        page_size_bytes: 4096,
                    },
                    if mlc { CellType::Mlc } else { CellType::Slc },
                    if mlc {
                        slc(75.0, 1300.0, 3800.0, 25.0)
                    } else {
                        slc(25.0, 200.0, 1500.0, 25.0)
                    },
                );
                c.ftl.overprovisioning = 0.15;
                c
            }
            "pa-tlc" => {
                let mut c = Config::base(
                    name,
                    Geometry {
                        channels: 8,
                        chips_per_channel: 2,
                        dies_per_chip: 2,
                        planes_per_die: 8,
                        blocks_per_plane: 384,
                        pages_per_block: 384,
                        page_size_bytes: 8192,
                    },
                    CellType::Tlc,
                    Timing {
                        read_us: vec![100.0, 100.0, 100.0],
                        program_us: vec![500.0, 2000.0, 5500.0],
                        erase_us: 15000.0,
                        bus_ns_per_byte: 3.0,
                        command_ns: 0.0,
                    },
                );
                c.ftl.overprovisioning = 0.15;
                c
            }
            "small" => {
                let mut c = Config::base(
                    name,
                    Geometry {
                        channels: 4,
                        chips_per_channel: 2,
                        dies_per_chip: 1,
                        planes_per_die: 2,
                        blocks_per_plane: 512,
                        pages_per_block: 128,
                        page_size_bytes: 4096,
                    },
                    CellType::Slc,
                    slc(75.0, 1500.0, 3800.0, 25.0),
                );
                c.buffer.capacity = BufferCapacity::Pages(1024);
                c
            }
            _ => {
                let names: Vec<_> = Self::preset_names().iter().map(|p| p.0).collect();
                return Err(Error::Invalid(format!(
                    "unknown preset `{name}`; known presets: {}",
                    names.join(", ")
                )));
            }
        };
        Ok(cfg)
    }

    /// The complete configuration as editable TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("config serialises")
    }

    /// Parse a complete configuration file. `origin` names it in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Config> {
        let cfg: Config = toml::from_str(text).map_err(|e| toml_error(origin, e))?;
        cfg.validate(origin)?;
        Ok(cfg)
    }

    /// Apply `key=value` overrides (dotted keys; values in TOML syntax, bare
    /// words taken as strings). Unknown keys are errors.
    pub fn with_overrides(&self, sets: &[String]) -> Result<Config> {
        if sets.is_empty() {
            return Ok(self.clone());
        }
        let mut root = toml::Value::try_from(self).expect("config serialises");
        for set in sets {
            let origin = format!("--set {set}");
            let (key, value) = set
                .split_once('=')
                .ok_or_else(|| Error::config(&origin, set, "expected KEY=VALUE"))?;
            let key = key.trim();
            let value = parse_toml_value(value.trim());
            let mut node = &mut root;
            let parts: Vec<&str> = key.split('.').collect();
            for (i, part) in parts.iter().enumerate() {
                let table = node.as_table_mut().ok_or_else(|| {
                    Error::config(
                        &origin,
                        key,
                        format!("`{}` is not a table", parts[..i].join(".")),
                    )
                })?;
                if !table.contains_key(*part) {
                    let mut known: Vec<_> = table.keys().cloned().collect();
                    known.sort();
                    return Err(Error::config(
                        &origin,
                        key,
                        format!("unknown key `{part}`; known here: {}", known.join(", ")),
                    ));
                }
                if i + 1 == parts.len() {
                    table.insert(part.to_string(), value.clone());
                    break;
                }
                node = table.get_mut(*part).expect("checked");
            }
        }
        let text = toml::to_string(&root).expect("value serialises");
        let origin = format!("--set {}", sets.join(" --set "));
        // The document is internal: report toml's message without its line
        // and column, which would point into text the user never saw.
        let cfg: Config = toml::from_str(&text)
            .map_err(|e| Error::config(&origin, "value", e.message().to_string()))?;
        cfg.validate(&origin)?;
        Ok(cfg)
    }

    pub fn total_planes(&self) -> u32 {
        let g = &self.geometry;
        g.channels * g.chips_per_channel * g.dies_per_chip * g.planes_per_die
    }
    pub fn total_dies(&self) -> u32 {
        self.total_planes() / self.geometry.planes_per_die
    }
    pub fn pages_per_plane(&self) -> u64 {
        self.geometry.blocks_per_plane as u64 * self.geometry.pages_per_block as u64
    }
    pub fn physical_pages(&self) -> u64 {
        self.total_planes() as u64 * self.pages_per_plane()
    }
    /// Pages the host can address.
    pub fn logical_pages(&self) -> u64 {
        (self.physical_pages() as f64 * (1.0 - self.ftl.overprovisioning)).floor() as u64
    }
    /// Free-page count below which a plane starts GC.
    pub fn gc_threshold_pages(&self) -> u64 {
        match self.gc.threshold {
            GcThreshold::Percent(p) => (self.pages_per_plane() as f64 * p / 100.0).ceil() as u64,
            GcThreshold::Blocks(b) => b as u64 * self.geometry.pages_per_block as u64,
        }
    }
    /// Translation pages holding the page map on flash (DFTL), else 0.
    pub fn translation_pages(&self) -> u64 {
        match self.ftl.mapping {
            Mapping::Page | Mapping::Fast => 0,
            Mapping::Dftl => self
                .logical_pages()
                .div_ceil(self.mapping_entries_per_page()),
        }
    }
    /// Map entries one translation page holds.
    pub fn mapping_entries_per_page(&self) -> u64 {
        (self.geometry.page_size_bytes / self.ftl.mapping_entry_bytes.max(1)).max(1) as u64
    }
    /// Active blocks per plane: 2 with hot/cold separation, else 1.
    pub fn write_streams(&self) -> u32 {
        if self.ftl.hot_data == "none" {
            1
        } else {
            2
        }
    }
    /// Write streams garbage collection writes to: 2 when hot/cold
    /// separation sorts GC moves (`hot_separation = "gc-moves"`), else 1.
    /// Each needs a free block of the GC reserve.
    pub fn gc_write_streams(&self) -> u32 {
        if self.write_streams() == 2 && self.ftl.hot_separation == HotSeparation::GcMoves {
            2
        } else {
            1
        }
    }
    /// The hot-data identifier `ftl.hot_data` names, with its parameters
    /// (None for `none` or an unknown name).
    pub fn hot_data_identifier(&self) -> Option<Box<dyn ssdlab_hdi::HotDataIdentifier>> {
        let name = self.ftl.hot_data.as_str();
        if ssdlab_hdi::presets::TIMED_NAMES.contains(&name) {
            return Some(Box::new(ssdlab_hdi::presets::update_window(
                self.ftl.hot_window_s.saturating_mul(1_000_000_000),
                self.ftl.hot_updates,
            )));
        }
        ssdlab_hdi::presets::by_name(name)
    }
    pub fn page_pattern(&self) -> Vec<PageType> {
        if self.cell.page_pattern.is_empty() {
            default_pattern(self.cell.kind)
        } else {
            self.cell.page_pattern.clone()
        }
    }

    /// Reject impossible or inconsistent settings with the offending key.
    pub fn validate(&self, origin: &str) -> Result<()> {
        let err = |f: &str, m: String| Err(Error::config(origin, f, m));
        let g = &self.geometry;
        for (f, v) in [
            ("geometry.channels", g.channels),
            ("geometry.chips_per_channel", g.chips_per_channel),
            ("geometry.dies_per_chip", g.dies_per_chip),
            ("geometry.planes_per_die", g.planes_per_die),
            ("geometry.blocks_per_plane", g.blocks_per_plane),
            ("geometry.pages_per_block", g.pages_per_block),
            ("geometry.page_size_bytes", g.page_size_bytes),
        ] {
            if v == 0 {
                return err(f, "must be at least 1".into());
            }
        }
        if !g.page_size_bytes.is_multiple_of(512) {
            return err(
                "geometry.page_size_bytes",
                "must be a multiple of 512".into(),
            );
        }
        if g.blocks_per_plane < 4 {
            return err(
                "geometry.blocks_per_plane",
                "must be at least 4 (GC needs spare blocks)".into(),
            );
        }
        let phys = (g.channels as u128)
            * g.chips_per_channel as u128
            * g.dies_per_chip as u128
            * g.planes_per_die as u128
            * g.blocks_per_plane as u128
            * g.pages_per_block as u128;
        if phys >= u32::MAX as u128 {
            return err(
                "geometry",
                format!(
                    "{phys} physical pages; at most {} are supported (32-bit page numbers)",
                    u32::MAX - 1
                ),
            );
        }
        if !(0.0..1.0).contains(&self.ftl.overprovisioning) {
            return err(
                "ftl.overprovisioning",
                format!("{} is outside [0, 1)", self.ftl.overprovisioning),
            );
        }
        if self.logical_pages() == 0 {
            return err("ftl.overprovisioning", "leaves no logical pages".into());
        }
        let mut order: Vec<char> = self.ftl.static_order.to_ascii_uppercase().chars().collect();
        order.sort_unstable();
        if order != ['C', 'D', 'P', 'W'] {
            return err(
                "ftl.static_order",
                format!(
                    "`{}` is not a permutation of C, W, D, P",
                    self.ftl.static_order
                ),
            );
        }
        if self.ftl.hot_data != "none" && self.hot_data_identifier().is_none() {
            return err(
                "ftl.hot_data",
                format!(
                    "unknown scheme `{}`; expected none or one of {}, {}",
                    self.ftl.hot_data,
                    ssdlab_hdi::presets::NAMES.join(", "),
                    ssdlab_hdi::presets::TIMED_NAMES.join(", ")
                ),
            );
        }
        if self.ftl.hot_separation == HotSeparation::GcMoves && self.ftl.hot_data == "none" {
            return err(
                "ftl.hot_separation",
                "\"gc-moves\" needs a hot-data identifier to judge the moved pages: set ftl.hot_data".into(),
            );
        }
        if self.ftl.hot_window_s == 0 {
            return err("ftl.hot_window_s", "must be at least 1 second".into());
        }
        if self.ftl.hot_updates == 0 {
            return err(
                "ftl.hot_updates",
                "must be at least 1 (0 would make every page hot)".into(),
            );
        }
        let bits = self.cell.kind.bits();
        for (f, v) in [
            ("timing.read_us", &self.timing.read_us),
            ("timing.program_us", &self.timing.program_us),
        ] {
            if v.len() != bits && v.len() != 1 {
                return err(
                    f,
                    format!(
                        "has {} values; a {:?} cell needs {bits} (LSB..MSB) or 1",
                        v.len(),
                        self.cell.kind
                    ),
                );
            }
            if v.iter().any(|x| !x.is_finite() || *x < 0.0) {
                return err(f, "values must be finite and non-negative".into());
            }
        }
        for (f, v) in [
            ("timing.erase_us", self.timing.erase_us),
            ("timing.bus_ns_per_byte", self.timing.bus_ns_per_byte),
            ("timing.command_ns", self.timing.command_ns),
        ] {
            if !v.is_finite() || v < 0.0 {
                return err(f, format!("{v} must be finite and non-negative"));
            }
        }
        for (i, t) in self.page_pattern().iter().enumerate() {
            if !self.cell.kind.page_types().contains(t) {
                return err(
                    "cell.page_pattern",
                    format!(
                        "entry {i} is {t:?}, which a {:?} cell does not have",
                        self.cell.kind
                    ),
                );
            }
        }
        if self.flash.plane_pairs_only && !g.planes_per_die.is_multiple_of(2) {
            return err(
                "flash.plane_pairs_only",
                "needs an even number of planes per die".into(),
            );
        }
        match self.gc.threshold {
            GcThreshold::Percent(p) if !(p > 0.0 && p < 100.0) => {
                return err("gc.threshold.percent", format!("{p} is outside (0, 100)"));
            }
            GcThreshold::Blocks(0) => {
                return err("gc.threshold.blocks", "must be at least 1".into())
            }
            _ => {}
        }
        // GC needs at least one spare block per plane to migrate a victim
        // into, and the threshold must lie within the spare space, or GC would
        // run forever trying to reach it.
        let spare = self.pages_per_plane() as f64 * self.ftl.overprovisioning;
        let thr = self.gc_threshold_pages();
        if thr < g.pages_per_block as u64 {
            return err(
                "gc.threshold",
                format!(
                    "{thr} pages per plane is less than one block ({} pages); GC could not proceed",
                    g.pages_per_block
                ),
            );
        }
        if thr as f64 >= spare {
            return err(
                "gc.threshold",
                format!(
                    "{thr} free pages per plane is not below the spare space ({spare:.0} pages at {}% over-provisioning)",
                    self.ftl.overprovisioning * 100.0
                ),
            );
        }
        if self.gc.d == 0 {
            return err("gc.d", "must be at least 1".into());
        }
        if self.gc.moves_in_flight == 0 {
            return err("gc.moves_in_flight", "must be at least 1".into());
        }
        match self.buffer.capacity {
            BufferCapacity::FootprintPercent(p) if !(p > 0.0 && p <= 100.0) => {
                return err(
                    "buffer.capacity.footprint-percent",
                    format!("{p} is outside (0, 100]"),
                );
            }
            BufferCapacity::Pages(0) => {
                return err(
                    "buffer.capacity.pages",
                    "must be at least 1 (use capacity = \"none\" for no buffer)".into(),
                )
            }
            _ => {}
        }
        if self.buffer.evict_pages == 0 {
            return err("buffer.evict_pages", "must be at least 1".into());
        }
        if !(0.0..1.0).contains(&self.buffer.free_watermark) {
            return err("buffer.free_watermark", "must be in [0, 1)".into());
        }
        crate::scheme::check_requirements(self, origin)?;
        if !(self.metrics.interval_ms.is_finite() && self.metrics.interval_ms >= 0.0) {
            return err(
                "metrics.interval_ms",
                "must be a non-negative number".into(),
            );
        }
        if self.host.replays == 0 {
            return err("host.replays", "must be at least 1".into());
        }
        if self.host.queue_depth == 0 {
            return err("host.queue_depth", "must be at least 1".into());
        }
        if !(self.host.time_scale.is_finite() && self.host.time_scale > 0.0) {
            return err("host.time_scale", "must be a positive number".into());
        }
        Ok(())
    }
}

fn parse_toml_value(s: &str) -> toml::Value {
    let doc = format!("v = {s}");
    match toml::from_str::<toml::Table>(&doc) {
        Ok(mut t) => t.remove("v").expect("key v"),
        Err(_) => toml::Value::String(s.to_string()),
    }
}

fn toml_error(origin: &str, e: toml::de::Error) -> Error {
    // toml's message already names the line, column and key; keep it whole
    // but on one line.
    let msg = e
        .to_string()
        .replace('\n', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    Error::config(origin, "toml", msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_validate_and_round_trip() {
        for (name, _) in Config::preset_names() {
            let c = Config::preset(name).unwrap();
            c.validate(name).unwrap();
            let back = Config::from_toml(&c.to_toml(), name).unwrap();
            assert_eq!(c, back, "{name}");
        }
    }

    #[test]
    fn spd_preset_is_512_gib() {
        let c = Config::preset("spd-512g").unwrap();
        assert_eq!(c.physical_pages() * 4096, 512 << 30);
    }

    #[test]
    fn unknown_key_is_an_error() {
        let c = Config::preset("small").unwrap();
        let e = c
            .with_overrides(&["gc.victm=greedy".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("victm"), "{e}");
        let text = c.to_toml().replace("[gc]", "[gc]\nbogus = 1");
        let e = Config::from_toml(&text, "x.toml").unwrap_err().to_string();
        assert!(e.contains("bogus") && e.contains("x.toml"), "{e}");
    }

    #[test]
    fn overrides_apply() {
        let c = Config::preset("small").unwrap();
        let c = c
            .with_overrides(&[
                "gc.victim=fifo".into(),
                "ftl.overprovisioning=0.3".into(),
                "gc.threshold={blocks=3}".into(),
            ])
            .unwrap();
        assert_eq!(c.gc.victim, VictimPolicy::Fifo);
        assert_eq!(c.ftl.overprovisioning, 0.3);
        assert_eq!(c.gc.threshold, GcThreshold::Blocks(3));
    }

    #[test]
    fn impossible_geometry_is_rejected() {
        let c = Config::preset("small").unwrap();
        for (set, field) in [
            ("geometry.planes_per_die=0", "planes_per_die"),
            ("ftl.overprovisioning=1.0", "overprovisioning"),
            ("gc.threshold={percent=50.0}", "gc.threshold"),
            ("ftl.static_order=CWDX", "static_order"),
        ] {
            let e = c.with_overrides(&[set.into()]).unwrap_err().to_string();
            assert!(e.contains(field), "{set}: {e}");
        }
    }
}
