//! The built-in drives (`ssdlab presets`): the papers' drives and a small
//! one for tests and quick experiments.

use super::*;
use crate::error::{Error, Result};

impl Config {
    pub(crate) fn base(name: &str, geometry: Geometry, kind: CellType, timing: Timing) -> Config {
        Config {
            name: name.to_string(),
            seed: 1,
            replicate: 0,
            geometry,
            cell: Cell {
                kind,
                page_pattern: Vec::new(),
                page_layout: PageLayout::Pattern,
                endurance: None,
            },
            timing,
            flash: FlashRules {
                multiplane: true,
                multiplane_alignment: Alignment::BlockAndPage,
                plane_pairs_only: false,
                copyback_odd_even: false,
                plane_registers: 1,
                wordline_buffer: true,
                suspension: Suspension::default(),
                cache_program: false,
                cache_read: false,
                bad_blocks: None,
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
                mapping_cache_sharing: Sharing::Shared,
                mapping_entry_bytes: default_mapping_entry_bytes(),
                fast_log_units: default_fast_log_units(),
                sequential_log: false,
                program_order: ProgramOrder::Strict,
                type_pools: false,
                apm: Apm::default(),
                wear_levelling: Default::default(),
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
                twin_victim: false,
                hold_die: false,
                parity_destinations: false,
                blocks_per_gc: 1,
                preemptive: false,
                hard_threshold: None,
                idle: None,
            },
            buffer: Buffer {
                capacity: BufferCapacity::None,
                eviction: Eviction::DieRoundRobin,
                evict_pages: 1,
                free_watermark: 0.0,
                free_watermark_high: 0.0,
                die_order: DieOrder::ChannelFirst,
                slot_frees: SlotFrees::Program,
                sharing: Sharing::Shared,
            },
            sched: Sched {
                policy: SchedPolicy::ReadPriority,
                pas: false,
                pas_preemptions: default_pas_preemptions(),
                flin_epoch_us: None,
                flin_alpha_read_mib_s: None,
                flin_alpha_write_kib_s: None,
                flin_fairness_threshold: None,
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
                page_types: default_page_types(),
                queue_threshold: default_queue_threshold(),
            },
            check: Check {
                enabled: false,
                interval_requests: 0,
            },
            metrics: MetricsConfig {
                interval_ms: 0.0,
                attribution: false,
            },
            queues: None,
            flows: Vec::new(),
            interface: None,
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
            (
                "dvp-proto",
                "DVPFTL paper (IEEE Access 2018) prototype: 8 ch x 2 ways of MT29F64G08AFAAAWP (2 dies x 2 planes, SLC, 8 KB pages), 60 MB/s buses; array times assumed",
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
                // 16 MiB. The paper sizes its buffer at 1 % of each
                // workload's footprint (§5.1; `ssdlab reproduce spd` does
                // so), which gives a drive with a buffer of a few pages on a
                // small trace. As a drive for any workload the preset has a
                // fixed size: the largest of the paper's buffer-size study
                // (Fig. 21, 256 KB to 16 MB), about 1 % of the mean
                // footprint of its Table 2 workloads (1.37 GB).
                c.buffer.capacity = BufferCapacity::Pages(4096);
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
                // The paper's Fig. 5: pages in the strict program order of
                // the wordlines.
                c.cell.page_layout = PageLayout::Wordlines;
                c
            }
            "dvp-proto" => {
                // DVPFTL §IV-B1: 8 channels x 2 ways of MT29F64G08AFAAAWP,
                // each 2 dies x 2 planes of SLC (the paper's Fig. 1); the
                // part's organisation (8 KiB pages, 128 pages per block,
                // 4096 blocks per die = 2048 per plane) is Micron's. Buses
                // at 60 MHz: 60 MB/s, 1000/60 ns per byte. ASSUMED (the
                // paper gives no array times): tR 35 us, tPROG 560 us,
                // tBERS 7 ms, the maxima of the part's datasheet as a
                // third-party driver quotes them; two-plane programs at the
                // same page index (ONFI); over-provisioning as the other
                // presets (15 %). docs/fidelity.md, "DVPFTL".
                let mut c = Config::base(
                    name,
                    Geometry {
                        channels: 8,
                        chips_per_channel: 2,
                        dies_per_chip: 2,
                        planes_per_die: 2,
                        blocks_per_plane: 2048,
                        pages_per_block: 128,
                        page_size_bytes: 8192,
                    },
                    CellType::Slc,
                    slc(35.0, 560.0, 7000.0, 1000.0 / 60.0),
                );
                c.flash.multiplane_alignment = Alignment::Page;
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
                    "unknown preset `{name}`{}; known presets: {}",
                    crate::error::did_you_mean(name, names.iter().copied()),
                    names.join(", ")
                )));
            }
        };
        Ok(cfg)
    }
}
