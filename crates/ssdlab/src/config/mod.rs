//! Drive and simulation configuration: the TOML schema, the built-in presets,
//! `--set key=value` overrides and validation.
//!
//! Every struct denies unknown fields, so a misspelt key is an error that
//! names the key, never a silent default.

mod bad_blocks;
pub mod docs;
mod flows;
mod interface;
mod overrides;
mod partition;
mod presets;
#[cfg(test)]
mod tests;
mod validate;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

pub use bad_blocks::{BadBlocks, DATASHEET_INVALID_FRACTION};
pub use flows::{
    set_after_flows, Arbitration, FlowConfig, Namespace, Priority, Protocol, Queues, Weights,
    NVME_MAX_QUEUES, NVME_MAX_QUEUE_DEPTH, SATA_NCQ_DEPTH,
};
pub use interface::{Controller, Dram, DramTiming, Interface, Link};
pub use partition::Sharing;

/// A policy's verdict on a configuration: the first requirement it finds
/// violated, as (the key to change, why). Each policy states its own, in
/// its file; `scheme::check_requirements` runs them all.
pub(crate) type Requirement = std::result::Result<(), (&'static str, String)>;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Free-form name, echoed in results.
    pub name: String,
    /// Seed of every random choice of the model (victim policies, fill, ...).
    pub seed: u64,
    /// Which of the seed's random streams the run draws from after aging:
    /// replicate i continues from the generator aging left, jumped
    /// i × 2^128 draws ahead (disjoint streams), so every replicate runs on
    /// the same aged drive. 0 (the default) is the stream aging continues.
    #[serde(default)]
    pub replicate: u64,
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
    /// The host interface's queues and their arbitration among the flows
    /// (absent: NVMe, round robin; only with `flows`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queues: Option<Queues>,
    /// Several flows (tenants) in one run, each with its own workload and
    /// queue (absent: one host replaying the run's workload).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowConfig>,
    /// The host interface: link and controller (absent: neither is
    /// modelled; `config/interface.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface: Option<Interface>,
}

/// The most replicate streams (`replicate`): each is 2^128 draws apart,
/// and reaching stream i costs i jumps of the generator.
pub const MAX_REPLICATE: u64 = 1_000_000;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Also report a time series with one entry per this many simulated
    /// milliseconds (0 = none).
    pub interval_ms: f64,
    /// Split every request's latency into parts (buffer wait, mapping
    /// reads, waiting behind host work or GC, held, channel, transfer,
    /// array) and report each part's share per operation and latency band
    /// (`attribution` in the result; `--latency-log` writes the parts of
    /// every request).
    #[serde(default)]
    pub attribution: bool,
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

    /// Typical rated endurance in program/erase cycles per block: SLC
    /// 100 000, MLC 3 000, TLC 1 000 (HP, "Solid State Drive Technology:
    /// Differences between SLC, MLC and TLC NAND", technical white paper,
    /// Table 1; datasheets of individual parts differ).
    pub fn rated_endurance(self) -> u32 {
        match self {
            CellType::Slc => 100_000,
            CellType::Mlc => 3_000,
            CellType::Tlc => 1_000,
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
    /// cell type's own types in turn (lsb / lsb,msb / lsb,csb,msb). Only
    /// with `page_layout = "pattern"`.
    pub page_pattern: Vec<PageType>,
    /// How page indices map to page types and wordlines.
    #[serde(default)]
    pub page_layout: PageLayout,
    /// Program/erase cycles a block is rated for. Absent: the cell type's
    /// typical rating (`CellType::rated_endurance`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endurance: Option<u32>,
}

impl Cell {
    /// Program/erase cycles a block is rated for: `cell.endurance`, or the
    /// cell type's typical rating.
    pub fn endurance(&self) -> u32 {
        self.endurance
            .unwrap_or_else(|| self.kind.rated_endurance())
    }
}

/// In which order a multi-bit block's pages may be programmed.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ProgramOrder {
    /// Page index order (with `cell.page_layout = "wordlines"`: the strict
    /// program order of the wordlines).
    #[default]
    Strict,
    /// PA-SSD's relaxed constraints (§4.3.1): each page type in wordline
    /// order; a CSB page after the LSB page of the next wordline, an MSB
    /// page after the CSB page of the next wordline. A block offers up to
    /// one candidate page per type; writes that want a type take it.
    Relaxed,
}

/// How a block's page indices map to page types (and wordlines).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PageLayout {
    /// `cell.page_pattern` repeated; no wordline structure (each page is
    /// its own wordline).
    #[default]
    Pattern,
    /// Pages numbered in the strict program order of the block's wordlines
    /// (PA-SSD's Fig. 5, after Park et al.): at step s the LSB page of
    /// wordline s, then the CSB page of wordline s − 1, then the MSB page
    /// of wordline s − 2 (each if it exists). TLC: L L C (L C M)* C M M;
    /// MLC: L L M (L M)* M; SLC: every page LSB.
    Wordlines,
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
    /// Register sets per plane (the parallel-GC paper's multi-register chip,
    /// Fig. 3): a plane runs up to this many copybacks at once, each taking
    /// tR + tPROG of its array; their command and address cycles interleave
    /// on the die. 1 (default): one page operation per plane at a time.
    #[serde(default = "one")]
    pub plane_registers: u32,
    /// The controller buffers the lower pages of wordlines not fully
    /// programmed (default), so a CSB or MSB program needs no read. False
    /// (PA-SSD's relaxed program order, §5.1): a CSB program first reads the
    /// wordline's LSB page, an MSB program its LSB and CSB pages, and takes
    /// those array reads longer.
    #[serde(default = "yes")]
    pub wordline_buffer: bool,
    /// Program and erase suspension: a read queued on a die busy with a
    /// program or an erase suspends it (off unless the table says which).
    #[serde(default, skip_serializing_if = "Suspension::is_off")]
    pub suspension: Suspension,
    /// ONFI cache program (PROGRAM PAGE CACHE, 80h–15h): while a die's
    /// array programs a page from a plane's data register, the next
    /// program's data goes over the channel into the plane's cache
    /// register, and its array phase starts when the first ends. Off
    /// (absent) by default.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cache_program: bool,
    /// ONFI cache read (READ CACHE RANDOM, 00h–31h): when a read's array
    /// phase ends, the die's next ready read starts its array phase while
    /// the first page's data leaves from the cache register. Off (absent)
    /// by default.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cache_read: bool,
    /// Bad blocks: factory and grown, spares, the read-only end (absent:
    /// every block is good for ever).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bad_blocks: Option<BadBlocks>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Program and erase suspension (`flash.suspension`; Wu and He, "Reducing
/// SSD Read Latency via NAND Flash Program and Erase Suspension", FAST
/// 2012): a read queued on a die whose program or erase is in its array
/// phase suspends it (after the suspend latency the die serves the die's
/// queued reads), and the operation then resumes (after the resume
/// latency) with the array time it had left. The default latencies are
/// MQSim's (Tavakkol et al., FAST 2018) default configuration's: 100 µs to
/// suspend a program, 700 µs an erase, none to resume, no limit on
/// suspensions per operation. Absent, or with neither `program` nor
/// `erase`, nothing is suspended.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Suspension {
    /// A read may suspend a program: a host, GC or mapping program, or the
    /// program phase of a copyback (the whole multi-plane command).
    pub program: bool,
    /// A read may suspend an erase (the whole multi-plane erase).
    pub erase: bool,
    /// From the suspension of a program to the start of the read, µs.
    pub program_suspend_us: f64,
    /// From the suspension of an erase to the start of the read, µs.
    pub erase_suspend_us: f64,
    /// From the end of the last read of a suspension to the operation
    /// running again, µs.
    pub resume_us: f64,
    /// The most suspensions of one operation (0: no limit); a read that
    /// finds the limit reached waits for the operation to end.
    pub max_per_op: u32,
}

impl Default for Suspension {
    fn default() -> Suspension {
        Suspension {
            program: false,
            erase: false,
            program_suspend_us: 100.0,
            erase_suspend_us: 700.0,
            resume_us: 0.0,
            max_per_op: 0,
        }
    }
}

impl Suspension {
    /// Nothing is suspended.
    pub fn is_off(&self) -> bool {
        !self.program && !self.erase
    }
}

fn one() -> u32 {
    1
}

fn yes() -> bool {
    true
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
    /// DVPFTL's adaptive parallelism management (§III-C): each host write
    /// request goes to one die, split over two of its planes for two-plane
    /// programs (an odd page out padded with a dummy page while the α rule
    /// allows), the planes chosen by valid pages or erase counts (`ftl.apm`).
    Apm,
    /// PaRP (Park et al., IEEE CAL 2010, as DVPFTL describes it): a host
    /// write request goes to the next die in turn; the next request, if it
    /// arrives before the first is programmed, pairs with it on the die's
    /// other plane for two-plane programs, the shorter padded with dummy
    /// pages.
    Parp,
    /// DVPFTL's virtual pages (§III-A) with APM inside each chip: a
    /// virtual flash chip is two adjacent ways over all channels; a
    /// request's pages are striped over its chips, channel first (a
    /// virtual page is one page on each), each chip's share placed by
    /// APM's stages 2 and 3 among the chip's planes.
    Dvp,
}

/// DVPFTL's APM thresholds (`ftl.plane_allocation = "apm"`, §III-C).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Apm {
    /// Below this spread of per-plane erase sums (Δe, Eq. 6) a request goes
    /// to the plane of its channel with the fewest valid pages.
    #[serde(default = "default_apm_th_dn")]
    pub th_dn: u64,
    /// From `th_dn` up to this spread, to the plane of its channel with the
    /// fewest erases; from it on, to the plane of the drive with the fewest.
    #[serde(default = "default_apm_th_up")]
    pub th_up: u64,
    /// Eq. (7)'s α: two-plane programs with dummy pages only while their
    /// estimated time stays within α of normal programs (Eq. 8).
    #[serde(default = "default_apm_alpha")]
    pub alpha: f64,
}

impl Default for Apm {
    fn default() -> Apm {
        Apm {
            th_dn: default_apm_th_dn(),
            th_up: default_apm_th_up(),
            alpha: default_apm_alpha(),
        }
    }
}

fn default_apm_th_dn() -> u64 {
    100
}

fn default_apm_th_up() -> u64 {
    200
}

fn default_apm_alpha() -> f64 {
    0.65
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
    /// DFTL with flows: the cached mapping table `shared` by every flow
    /// (default), or `partitioned`: an equal part per flow
    /// (`mapping_cache_entries / flows` entries), each flow's entries
    /// leaving only its own part (MQSim's `CMT_Sharing_Mode`). Needs every
    /// flow's own namespace.
    #[serde(default, skip_serializing_if = "Sharing::is_shared")]
    pub mapping_cache_sharing: Sharing,
    /// DFTL: bytes per entry in a translation page (entries per translation
    /// page = page size / this).
    #[serde(default = "default_mapping_entry_bytes")]
    pub mapping_entry_bytes: u32,
    /// FAST: log units (blocks, or aligned block groups with
    /// `block_groups = "die"`) a GC unit may hold before the oldest is
    /// merged; `mapping = "vfc"`: log blocks per plane of a virtual flash
    /// chip (the VFC holds this many times its planes).
    #[serde(default = "default_fast_log_units")]
    pub fast_log_units: u32,
    /// `mapping = "vfc"`: FAST's sequential log block over virtual blocks
    /// (a host page at offset 0 of a logical block opens one per VFC, pages
    /// continuing it go to their data positions, a full one becomes the
    /// data block by a switch merge). Off: every host page goes to a
    /// page-mapped log.
    #[serde(default)]
    pub sequential_log: bool,
    /// Program order within multi-bit blocks (`relaxed`: PA-SSD's).
    #[serde(default)]
    pub program_order: ProgramOrder,
    /// PA-SSD's block management (Fig. 9): per plane an active block per
    /// page type and pools of blocks by the slowest type they have free
    /// pages of. Needs relaxed program order.
    #[serde(default)]
    pub type_pools: bool,
    /// APM's thresholds (used by `plane_allocation = "apm"`).
    #[serde(default)]
    pub apm: Apm,
    /// Wear levelling (`ftl/levelling.rs`): dynamic (which free block a
    /// write opens) and static (cold data leaves the least-worn blocks).
    /// Absent (or neither on): none, free blocks are taken oldest first.
    #[serde(default, skip_serializing_if = "WearLevelling::is_off")]
    pub wear_levelling: WearLevelling,
}

/// Wear levelling (`ftl.wear_levelling`). Dynamic: a plane's free blocks
/// are kept ordered by erase count; with hot/cold separation the hot
/// stream opens the least-worn, the cold stream (cold host pages and GC
/// moves) the most-worn; without it, a plane's one stream opens the
/// least-worn. Static (`static_threshold`): when the
/// erase counts of a plane's blocks spread by more than the threshold, GC's
/// next victim in that plane is its least-worn closed block, whose (cold)
/// data moves to a block of GC's write stream. Both off when absent.
/// Sources and what is not modelled: docs/fidelity.md.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WearLevelling {
    /// Dynamic levelling: free blocks taken by erase count.
    #[serde(default)]
    pub dynamic: bool,
    /// Static levelling: the most a plane's erase counts (most − fewest)
    /// may spread before its least-worn closed block is collected. Absent:
    /// no static levelling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_threshold: Option<u32>,
}

impl WearLevelling {
    /// Neither dynamic nor static levelling (the table is then not
    /// written).
    pub fn is_off(&self) -> bool {
        !self.dynamic && self.static_threshold.is_none()
    }
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
    /// DVPFTL's two-layer map (Luo et al., IEEE Access 2018, §III-A): FAST's
    /// log-based hybrid mapping over virtual blocks. A virtual flash chip
    /// (VFC) is two adjacent ways of every channel; a virtual block is one
    /// physical block on each of its chips (the bottom layer's block map,
    /// chosen when the block opens); offset `o` of a logical block is on
    /// the VFC's chip `o % chips`, page `o / chips`. Host writes go to
    /// page-mapped log blocks of the logical block's VFC (placed by
    /// `plane_allocation = "dvp"`), at most `fast_log_units` times the
    /// VFC's planes in all; the oldest is reclaimed by merging its logical blocks into
    /// new virtual blocks. A logical block never leaves its VFC.
    Vfc,
}

impl Mapping {
    /// A log-based hybrid map (FAST, or DVPFTL's over virtual blocks),
    /// reclaimed by merges.
    #[inline]
    pub fn hybrid(self) -> bool {
        matches!(self, Mapping::Fast | Mapping::Vfc)
    }
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
    /// work. At least `flash.plane_registers` are kept (a multi-register
    /// plane runs that many copybacks at once).
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
    /// With aligned block groups: the victim group is the one whose block in
    /// the plane that needs GC has the fewest valid pages, its twin blocks
    /// taken with it whatever they hold (TwinBlk as the SPD paper evaluates
    /// it, §6.2: "it activates paired GCs without considering the number of
    /// valid pages in the paired planes"). Off (default): the group with the
    /// fewest valid pages in all its blocks (SPD's Die-GC). No effect
    /// without aligned block groups.
    #[serde(default)]
    pub twin_victim: bool,
    /// The die is busy for the whole of a GC of one of its planes (the
    /// parallel-GC paper's Alg. 2 line 7): host reads and programs of the die
    /// wait until the GC has erased its victim. Off (default): host commands
    /// are scheduled between the GC's commands by `sched.policy`.
    #[serde(default)]
    pub hold_die: bool,
    /// The parallel-GC paper's destination mapping (Alg. 3), for the
    /// copyback odd/even rule: a copyback of an odd (even) page goes to the
    /// lowest free odd (even) page of the destination block, so blocks are
    /// programmed out of index order and no copyback breaks the rule. A move
    /// whose parity has no free page left in the active block goes through
    /// the controller (`gc.copyback_fallbacks`). Needs
    /// `flash.copyback_odd_even`.
    #[serde(default)]
    pub parity_destinations: bool,
    /// Victim blocks a per-plane GC takes at once (1, default; 2: IPPBE,
    /// Garrett et al., ISLPED'18, as the parallel-GC paper compares it: the
    /// two blocks of the plane with the fewest valid pages, their valid
    /// pages moved one block after the other, then both erased by one
    /// multi-block erase command in one tBERS).
    #[serde(default = "one_block")]
    pub blocks_per_gc: u32,
    /// Semi-preemptive GC (Lee et al., TCAD 2013; MQSim's preemptible GC):
    /// between the page moves of a plane's GC, pending host reads and
    /// writes of its die go first while the plane has at least
    /// `hard_threshold` free; below it GC is not preempted. Off (default):
    /// GC's moves hold the host writes of their plane and rank by
    /// `sched.policy`. Written only when on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub preemptive: bool,
    /// Semi-preemptive GC's hard threshold, in the form of `threshold`
    /// (percent of the plane, or free blocks): below it a plane's GC is
    /// not preempted. At most `threshold`. Needed with `preemptive`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hard_threshold: Option<GcThreshold>,
    /// Idle-time GC: once no host request has been outstanding for
    /// `after_us`, planes below `high_watermark` collect until they reach
    /// it or a request arrives. Off (absent, the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle: Option<IdleGc>,
}

/// Idle-time GC (`gc.idle`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct IdleGc {
    /// How long the drive must have had no host request outstanding
    /// before idle GC starts, µs.
    pub after_us: f64,
    /// Idle GC collects a plane while its free pages are below this (in
    /// the form of `gc.threshold`; above the threshold), and starts no
    /// further victim once they reach it.
    pub high_watermark: GcThreshold,
}

fn one_block() -> u32 {
    1
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
    /// the capacity. 0 = evict only when a write finds no free slot; 1 = flush
    /// every page as soon as it is admitted (writes still complete on
    /// admission).
    pub free_watermark: f64,
    /// Once eviction has started at `free_watermark`, it goes on until free
    /// slots reach this share (a background flush between two watermarks);
    /// at most `free_watermark` (the default, 0): no second watermark.
    #[serde(default)]
    pub free_watermark_high: f64,
    /// The order in which the round-robin eviction policies visit dies.
    #[serde(default)]
    pub die_order: DieOrder,
    /// When an evicted page's slot frees: when its program completes
    /// (default), or at once, the write that needed it completing with the
    /// evicted pages (SSDSim's buffer).
    #[serde(default, skip_serializing_if = "SlotFrees::is_default")]
    pub slot_frees: SlotFrees,
    /// With flows: the buffer `shared` by every flow (default), or
    /// `partitioned`: an equal share of the slots per flow, each flow's
    /// writes waiting only for a slot of its share and its evictions taking
    /// only its pages (MQSim's `Data_Cache_Sharing_Mode`). Needs every
    /// flow's own namespace.
    #[serde(default, skip_serializing_if = "Sharing::is_shared")]
    pub sharing: Sharing,
}

/// When a buffer slot whose page is evicted frees (`buffer.slot_frees`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SlotFrees {
    /// When the page's program completes; a write that finds no free slot
    /// waits for one, writes admitted in arrival order.
    #[default]
    Program,
    /// When the page is evicted (SSDSim 2.x's buffer): a write that finds no
    /// free slot evicts at once and completes when the pages it evicted do
    /// (at their transfer under `host.write_completion = "transfer"`, else
    /// at their program); an evicted page not yet programmed is still read
    /// from the controller's memory.
    Eviction,
}

impl SlotFrees {
    fn is_default(&self) -> bool {
        *self == SlotFrees::Program
    }
}

/// The order of a round robin over dies (`buffer.die_order`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DieOrder {
    /// Channel first, then chip, then die within the chip (the `CWDP`
    /// striping order): consecutive evictions go to different channels.
    #[default]
    ChannelFirst,
    /// Die index order: all dies of channel 0, then of channel 1, ...
    /// Consecutive evictions share a channel (kept to rerun results of
    /// ssdlab before 2026-11-24).
    Index,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SchedPolicy {
    /// Host reads first, then GC traffic, then host writes.
    ReadPriority,
    /// Oldest operation first; GC traffic still precedes host writes.
    Fcfs,
    /// GC traffic first, then host reads, then host writes (the parallel-GC
    /// paper's scheduler, §V-A1).
    GcFirst,
    /// FLIN, the fairness-aware scheduler of several flows (Tavakkol et
    /// al., ISCA 2018; `sched/flin.rs`): fairness-aware insertion into the
    /// read and write queues (per priority class under weighted round
    /// robin, which fills the die's read and write slots), then
    /// wait-balancing between the die's read and write slots with GC's
    /// share. Needs `[[flows]]`; with one flow it orders as `fcfs`.
    Flin,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sched {
    pub policy: SchedPolicy,
    /// PA-SSD's page-type aware scheduling (PAS, §4.4): in each plane's
    /// write queue, writes that want LSB pages move ahead of those that
    /// want CSB pages, which move ahead of MSB ones; a queued CSB (MSB) write
    /// is overtaken at most `pas_preemptions[0]` (`[1]`) times. Reads, GC
    /// and the class order are `policy`'s. Needs `host.page_types`.
    #[serde(default)]
    pub pas: bool,
    #[serde(default = "default_pas_preemptions")]
    pub pas_preemptions: [u32; 2],
    /// FLIN (`policy = "flin"`): its epoch of flow classification (µs;
    /// absent: 10 000), the read and write intensities above which a flow
    /// is high-intensity (MiB/s and KiB/s over the drive; absent: 32 and
    /// 256) and its fairness threshold F_thr (absent: 0.6), the values of
    /// the authors' simulator (`sched/flin.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flin_epoch_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flin_alpha_read_mib_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flin_alpha_write_kib_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flin_fairness_threshold: Option<f64>,
}

fn default_pas_preemptions() -> [u32; 2] {
    [10, 20]
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
    /// PA-SSD's page-type specifying scheme (`host/pagetype.rs`): `none`,
    /// `su`, `slf`, `sub`, or `ssb+X`, `sqd+X`, `swb+X` with X one of the
    /// first three. Needs `ftl.program_order = "relaxed"`.
    #[serde(default = "default_page_types")]
    pub page_types: String,
    /// sQD's threshold: LSB while more requests than this are outstanding.
    #[serde(default = "default_queue_threshold")]
    pub queue_threshold: u32,
}

fn default_page_types() -> String {
    "none".to_string()
}

fn default_queue_threshold() -> u32 {
    10
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
    /// The complete configuration as editable TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("config serialises")
    }

    /// The same, each section and key with its documentation line as a
    /// comment above it (`ssdlab presets show`).
    pub fn to_toml_commented(&self) -> String {
        docs::annotate(&self.to_toml())
    }

    /// Parse a complete configuration file. `origin` names it in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Config> {
        let cfg: Config = toml::from_str(text)
            .map_err(|e| crate::workload::toml_keys::toml_error(text, origin, &e))?;
        cfg.validate(origin).map_err(|e| match e {
            // Say where the key is written.
            Error::Config { origin, field, msg } => {
                let msg = match crate::workload::line_of_key(text, &field) {
                    Some(line) => format!("{msg} (line {line})"),
                    None => msg,
                };
                Error::Config { origin, field, msg }
            }
            other => other,
        })?;
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
    /// About how many bytes of memory the drive's state takes: the forward
    /// and reverse page maps (4 bytes per logical and per physical page;
    /// twice that with the consistency checker, which keeps versions) and
    /// about 32 bytes of block state per block.
    pub fn memory_estimate(&self) -> u64 {
        let logical = self.logical_pages() + self.translation_pages();
        let physical = self.physical_pages();
        let per_page = if self.check.enabled { 8 } else { 4 };
        let blocks = physical / self.geometry.pages_per_block.max(1) as u64;
        per_page * (logical + physical) + 32 * blocks
    }

    /// Is the GC threshold at or above the spare space (physical minus
    /// logical pages of a plane)? Then it can be met only while the data
    /// stays below the logical capacity, which `Simulator::new` checks
    /// against the preconditioned data and the workload's writes (PA-SSD
    /// runs 30 % with 15 % over-provisioning on a drive aged to 70 %).
    pub fn gc_threshold_beyond_spare(&self) -> bool {
        self.gc_threshold_pages() as f64
            >= self.pages_per_plane() as f64 * self.ftl.overprovisioning
    }

    pub fn gc_threshold_pages(&self) -> u64 {
        self.threshold_pages(self.gc.threshold)
    }

    /// A threshold in the form of `gc.threshold` as free pages of a plane.
    pub fn threshold_pages(&self, t: GcThreshold) -> u64 {
        match t {
            GcThreshold::Percent(p) => (self.pages_per_plane() as f64 * p / 100.0).ceil() as u64,
            GcThreshold::Blocks(b) => b as u64 * self.geometry.pages_per_block as u64,
        }
    }

    /// Translation pages holding the page map on flash (DFTL), else 0.
    pub fn translation_pages(&self) -> u64 {
        match self.ftl.mapping {
            Mapping::Page | Mapping::Fast | Mapping::Vfc => 0,
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

    /// Type and wordline of every page index of a block (`cell.page_layout`).
    pub fn page_layout(&self) -> Vec<(PageType, u32)> {
        let ppb = self.geometry.pages_per_block as usize;
        match self.cell.page_layout {
            PageLayout::Pattern => {
                let pattern = self.page_pattern();
                (0..ppb)
                    .map(|i| (pattern[i % pattern.len()], i as u32))
                    .collect()
            }
            PageLayout::Wordlines => {
                let types = self.cell.kind.page_types();
                let bits = types.len();
                let wordlines = ppb / bits;
                let mut out = Vec::with_capacity(ppb);
                for step in 0..wordlines + bits - 1 {
                    for (b, &t) in types.iter().enumerate() {
                        if let Some(w) = step.checked_sub(b).filter(|&w| w < wordlines) {
                            out.push((t, w as u32));
                        }
                    }
                }
                out
            }
        }
    }
}
