//! One line of documentation per configuration key: the comments
//! `ssdlab presets show` writes above each key of the TOML it prints. The
//! README's configuration reference says more; a test checks that every key
//! of every preset and scheme is here.

/// (dotted key, what it is). Keys of a table that chooses between forms
/// (`gc.threshold`, `buffer.capacity`) are listed per form.
pub const KEY_DOCS: &[(&str, &str)] = &[
    ("name", "label echoed in results"),
    ("seed", "seed of the model's random choices (the workload's own seed is separate)"),
    ("replicate", "the seed's random stream after aging (0: the one aging continues; i: i × 2^128 draws ahead, the same aged drive)"),
    ("geometry", "the flash array"),
    ("geometry.channels", "channels (each one shared bus)"),
    ("geometry.chips_per_channel", "chips (ways) per channel"),
    ("geometry.dies_per_chip", "dies per chip (each runs one command at a time)"),
    ("geometry.planes_per_die", "planes per die (multi-plane commands join them)"),
    ("geometry.blocks_per_plane", "blocks per plane"),
    ("geometry.pages_per_block", "pages per block"),
    ("geometry.page_size_bytes", "bytes per page"),
    ("cell", "the cell type and its page types"),
    ("cell.type", "slc, mlc or tlc"),
    ("cell.page_pattern", "page type of page index i is pattern[i % len]; empty: the cell's types in turn"),
    ("cell.page_layout", "pattern (page_pattern) or wordlines (pages in the strict program order of wordlines)"),
    ("cell.endurance", "program/erase cycles a block is rated for (absent: slc 100000, mlc 3000, tlc 1000)"),
    ("timing", "array and channel times"),
    ("timing.read_us", "array read time tR per page type (LSB[, CSB], MSB), or one value for all, µs"),
    ("timing.program_us", "array program time tPROG per page type, or one value for all, µs"),
    ("timing.erase_us", "block erase time tBERS, µs"),
    ("timing.bus_ns_per_byte", "channel time per byte, ns (a page's transfer is page_size_bytes times this)"),
    ("timing.command_ns", "command and address cycles per command, ns (they hold the channel)"),
    ("flash", "multi-plane rules and the die's registers"),
    ("flash.multiplane", "build multi-plane commands at all"),
    ("flash.multiplane_alignment", "block-and-page (ONFI, SSDSim: same block and page index) or page (MQSim: same page index)"),
    ("flash.plane_pairs_only", "on dies of more than two planes only planes 2k and 2k+1 pair"),
    ("flash.copyback_odd_even", "a copyback's source and destination pages must have equal parity"),
    ("flash.plane_registers", "register sets per plane: copybacks a plane runs at once (parallel GC's k)"),
    ("flash.wordline_buffer", "false: a CSB/MSB program first reads the wordline's lower pages (PA-SSD §5.1)"),
    ("flash.suspension", "program and erase suspension: a read queued on a die busy with a program or an erase suspends it (absent: off)"),
    ("flash.suspension.program", "a read may suspend a program (host, GC or mapping; a copyback's program phase)"),
    ("flash.suspension.erase", "a read may suspend an erase"),
    ("flash.suspension.program_suspend_us", "from a program's suspension to the read's start, µs"),
    ("flash.suspension.erase_suspend_us", "from an erase's suspension to the read's start, µs"),
    ("flash.suspension.resume_us", "from the last read of a suspension to the operation running again, µs"),
    ("flash.suspension.max_per_op", "most suspensions of one operation (0: no limit)"),
    ("flash.cache_program", "ONFI cache program: the next program's data goes into the plane's cache register while the array programs (absent: off)"),
    ("flash.cache_read", "ONFI cache read: the die's next read starts its array phase while the last page's data leaves the cache register (absent: off)"),
    ("flash.bad_blocks", "bad blocks: factory and grown, spare blocks, a read-only end when a plane runs out (absent: every block good for ever)"),
    ("flash.bad_blocks.factory_fraction", "share of each plane's blocks bad from the factory: round(f × blocks_per_plane) per plane (default 0)"),
    ("flash.bad_blocks.retire_at_endurance", "a block retires at the erase that brings its erase count to cell.endurance"),
    ("flash.bad_blocks.erase_failure_probability", "probability that an erase fails and retires its block (default 0)"),
    ("flash.bad_blocks.spare_blocks", "spare blocks per plane, from the over-provisioned space (absent: ceil(blocks_per_plane × 80/4096), a datasheet's allowance)"),
    ("ftl", "mapping, allocation and write streams"),
    ("ftl.overprovisioning", "share of physical pages hidden from the host, in [0, 1)"),
    ("ftl.plane_allocation", "static, round-robin, least-busy, die-round-robin, or the request-level apm, parp, dvp"),
    ("ftl.static_order", "static allocation's order: a permutation of C W D P, the first varying fastest"),
    ("ftl.hot_data", "none or a hot-data identifier (wdac, mihf, mbf, dl-mbf, dl-mbf-s, dl-mbf-c, dl-mbf-a, dl-mihf, update-window)"),
    ("ftl.hot_separation", "host-writes (hot host pages apart) or gc-moves (GC moves sorted by the identifier, SPD's)"),
    ("ftl.hot_window_s", "update-window: the window of simulated time, seconds"),
    ("ftl.hot_updates", "update-window: writes within the window that make a page hot"),
    ("ftl.block_groups", "plane (each plane its own blocks) or die (aligned block groups: TwinBlk, SPD's Die-GC)"),
    ("ftl.align_block_index", "per-plane blocks open the block index a sibling plane writes, so write points align (ParaGC)"),
    ("ftl.write_unit", "page, die (SPD's Die-Write) or super-page (SuperPage)"),
    ("ftl.mapping", "page (whole map in DRAM), dftl (translation pages on flash), fast (hybrid) or vfc (DVPFTL's two-layer map)"),
    ("ftl.mapping_cache_entries", "dftl: entries of the cached mapping table"),
    ("ftl.mapping_cache_sharing", "DFTL with flows: the cached mapping table shared by every flow, or partitioned (an equal part per flow; MQSim's CMT_Sharing_Mode)"),
    ("ftl.mapping_entry_bytes", "dftl: bytes per entry of a translation page"),
    ("ftl.fast_log_units", "fast: log units per GC unit before a merge; vfc: log blocks per plane of a VFC"),
    ("ftl.sequential_log", "vfc: FAST's sequential log over virtual blocks"),
    ("ftl.wear_levelling", "wear levelling (absent: none; free blocks are taken oldest first)"),
    ("ftl.wear_levelling.dynamic", "free blocks by erase count: the hot stream (or the only one) opens the least-worn, the cold stream the most-worn"),
    ("ftl.wear_levelling.static_threshold", "static levelling: a plane whose blocks' erase counts spread by more collects its least-worn closed block next (absent: off)"),
    ("ftl.program_order", "strict (page index order) or relaxed (PA-SSD's per-type lanes)"),
    ("ftl.type_pools", "PA-SSD's block management: an active block per page type, candidate pools"),
    ("ftl.apm", "DVPFTL's adaptive parallelism management"),
    ("ftl.apm.th_dn", "APM: erase spread from which the plane is chosen by erases within the channel"),
    ("ftl.apm.th_up", "APM: erase spread from which the plane is chosen by erases drive-wide"),
    ("ftl.apm.alpha", "APM: α of Eq. (8), the bound on dummy pages"),
    ("gc", "garbage collection"),
    ("gc.threshold", "when a plane collects: a share of its pages free, or a number of free blocks"),
    ("gc.threshold.percent", "collect when fewer than this percent of the plane's pages are free"),
    ("gc.threshold.blocks", "collect when fewer than this many of the plane's blocks are free"),
    ("gc.victim", "greedy, fifo, random, d-choices or cost-benefit"),
    ("gc.d", "d-choices: blocks sampled per victim choice"),
    ("gc.migration", "copyback (in the plane, no channel; a die's GC of aligned groups in rows, then padding) or controller (read out and programmed back)"),
    ("gc.moves_in_flight", "migrations per plane queued or running at once (1: serial GC)"),
    ("gc.join_percent", "ParaGC: sibling planes below this percent free join a GC (0: off)"),
    ("gc.join_align", "ParaGC: joined planes align their write points and move pages in multi-plane commands"),
    ("gc.twin_victim", "aligned block groups: the victim is greedy in the plane that needs GC, its twins go with it (TwinBlk as the SPD paper evaluates it)"),
    ("gc.combine_host_writes", "SPD+: a Die-Write of host pages may take GC moves of the die (write_unit = die)"),
    ("gc.hold_die", "the die is busy for the whole of a GC of one of its planes (parallel-GC paper's Alg. 2)"),
    ("gc.parity_destinations", "parallel-GC paper's Alg. 3: a copyback goes to a free page of its own parity"),
    ("gc.blocks_per_gc", "victim blocks per GC: 1, or 2 (IPPBE: both erased by one multi-block erase)"),
    ("gc.preemptive", "semi-preemptive GC: host reads and writes of the die go between a plane's GC moves while it has gc.hard_threshold free (default off)"),
    ("gc.hard_threshold", "semi-preemptive GC: below this free space a plane's GC is not preempted"),
    ("gc.hard_threshold.percent", "not preempted when fewer than this percent of the plane's pages are free"),
    ("gc.hard_threshold.blocks", "not preempted when fewer than this many of the plane's blocks are free"),
    ("gc.idle", "idle-time GC: { after_us, high_watermark } (default absent: off)"),
    ("gc.idle.after_us", "idle-time GC starts once no host request has been outstanding this long, µs"),
    ("gc.idle.high_watermark", "idle-time GC collects planes with less free space than this, up to it"),
    ("gc.idle.high_watermark.percent", "idle-time GC's watermark: percent of the plane's pages free"),
    ("gc.idle.high_watermark.blocks", "idle-time GC's watermark: free blocks of the plane"),
    ("buffer", "the DRAM write buffer"),
    ("buffer.capacity", "none, { pages = N } or { footprint-percent = P } of the workload's footprint"),
    ("buffer.capacity.pages", "buffer slots, pages"),
    ("buffer.capacity.footprint-percent", "buffer slots as a percent of the workload's footprint"),
    ("buffer.eviction", "die-round-robin (Baseline-D), die-multi-plane (Baseline-P), die-write (SPD) or super-page"),
    ("buffer.evict_pages", "pages per eviction"),
    ("buffer.free_watermark", "evict ahead when the share of free slots falls below this (0: only when full)"),
    ("buffer.free_watermark_high", "then evict until the share of free slots reaches this (0: no second watermark)"),
    ("buffer.die_order", "the order round-robin evictions visit dies: channel-first or index"),
    ("buffer.sharing", "with flows: the buffer shared by every flow, or partitioned (an equal share of the slots per flow; MQSim's Data_Cache_Sharing_Mode)"),
    ("buffer.slot_frees", "when an evicted page's slot frees: program (when programmed) or eviction (at once, the write waiting with the evicted pages: SSDSim's buffer)"),
    ("sched", "the transaction scheduler"),
    ("sched.policy", "read-priority (reads, GC, writes), fcfs (oldest first), gc-first or flin (fairness among flows)"),
    ("sched.pas", "PA-SSD's page-type aware scheduling of writes (LSB first)"),
    ("sched.pas_preemptions", "PAS: how often a CSB and an MSB write may be overtaken"),
    ("sched.flin_epoch_us", "FLIN: epoch of flow classification, µs (absent: 10000)"),
    ("sched.flin_alpha_read_mib_s", "FLIN: read intensity above which a flow is high-intensity, MiB/s (absent: 32)"),
    ("sched.flin_alpha_write_kib_s", "FLIN: write intensity above which a flow is high-intensity, KiB/s (absent: 256)"),
    ("sched.flin_fairness_threshold", "FLIN: fairness threshold F_thr below which the most slowed flow moves forward (absent: 0.6)"),
    ("host", "how requests arrive and complete"),
    ("host.mode", "open-loop (trace times) or closed-loop (queue_depth requests outstanding)"),
    ("host.queue_depth", "closed-loop: requests outstanding at once"),
    ("host.time_scale", "open-loop: arrival times are multiplied by this (below 1: faster)"),
    ("host.write_completion", "program (a write ends when programmed) or transfer (when its data reaches the plane)"),
    ("host.partial_write_rmw", "a partial-page write first reads the old page"),
    ("host.warmup_requests", "statistics restart after this many completed requests"),
    ("host.replays", "replay the workload this many times back to back"),
    ("host.address_mode", "fold (page number modulo the logical capacity) or compact (distinct pages numbered densely)"),
    ("host.page_types", "PA-SSD's page-type specifying scheme: none, su, slf, sub, ssb+X, sqd+X, swb+X, shg+X"),
    ("host.queue_threshold", "sQD: LSB pages while more than this many requests are outstanding"),
    ("check", "the consistency checker"),
    ("check.enabled", "run the consistency checker (slow)"),
    ("check.interval_requests", "also check every this many requests (0: at the end only)"),
    ("metrics", "extra measurements"),
    ("metrics.interval_ms", "a time series, one entry per this many simulated ms (0: none)"),
    ("metrics.attribution", "split each request's latency into parts and report their shares (false: off)"),
    ("queues", "the host interface's queues and their arbitration among the flows (absent: nvme, rr)"),
    ("queues.protocol", "nvme (one submission queue per flow) or sata (one 32-entry queue for all, in order of arrival)"),
    ("queues.arbitration", "nvme: rr (round robin) or wrr (urgent first, then high, medium, low by weight)"),
    ("queues.weights", "wrr: turns per round of the high, medium and low classes"),
    ("queues.weights.high", "wrr: turns per round of the high class"),
    ("queues.weights.medium", "wrr: turns per round of the medium class"),
    ("queues.weights.low", "wrr: turns per round of the low class"),
    ("queues.burst", "arbitration burst: most commands fetched from one queue per turn"),
    ("queues.device_slots", "commands the device holds at once (absent: nvme the sum of the queue depths, sata 32)"),
    ("queues.max_queues", "nvme: I/O submission queues the controller offers (at most 65535)"),
    ("flows", "several flows (tenants) in one run, each with its own workload and queue"),
    ("flows.name", "the flow's name in results"),
    ("flows.workload", "its workload: a built-in profile (or trace, or synthetic)"),
    ("flows.trace", "its workload: a trace file"),
    ("flows.synthetic", "its workload: a synthetic profile file"),
    ("flows.limit", "at most this many of its requests"),
    ("flows.start_us", "its first request arrives this long after the run starts, µs"),
    ("flows.queue_depth", "entries of its submission queue: its requests in flight (more wait in the host)"),
    ("flows.priority", "its queue's class under wrr: urgent, high, medium or low"),
    ("flows.namespace", "its own logical pages (absent: the drive's whole space, shared)"),
    ("flows.namespace.first_page", "its namespace's first logical page"),
    ("flows.namespace.pages", "its namespace's logical pages"),
    ("interface.link", "the host link: { kind = \"pcie\", generation, lanes, max_payload } or { kind = \"sata\" } (absent: none)"),
    ("interface.link.kind", "pcie (NVMe over PCI Express, full duplex) or sata (6 Gb/s, half duplex)"),
    ("interface.link.generation", "pcie: generation 1 to 5 (2.5, 5, 8, 16, 32 GT/s a lane; 8b/10b up to 2, 128b/130b from 3)"),
    ("interface.link.lanes", "pcie: lanes, 1, 2, 4, 8 or 16"),
    ("interface.link.max_payload", "pcie: most data bytes in one transaction layer packet, 128 to 4096 (default 256)"),
    ("interface.controller", "the controller's DRAM and firmware time (absent: none)"),
    ("interface.controller.dram", "the controller's DRAM, one channel (absent: no DRAM time; defaults: DDR3L-1600 x16)"),
    ("interface.controller.dram.transfer_rate_mts", "DRAM data-bus transfers per second, millions (DDR: twice the clock; default 1600)"),
    ("interface.controller.dram.bus_bytes", "DRAM data-bus width, bytes (default 2)"),
    ("interface.controller.dram.burst_length", "DRAM transfers per burst, BL (default 8)"),
    ("interface.controller.dram.row_bytes", "DRAM row (page) size, bytes (default 2048)"),
    ("interface.controller.dram.trcd_ns", "DRAM row-to-column delay tRCD, ns (default 13.75)"),
    ("interface.controller.dram.tcl_ns", "DRAM CAS latency tCL, ns (default 13.75)"),
    ("interface.controller.dram.trp_ns", "DRAM precharge time tRP, ns (default 13.75)"),
    ("interface.controller.dram.timing", "datasheet (rows opened, bursts moved, rows precharged) or mqsim (MQSim's estimate)"),
    ("interface.controller.firmware_ns_per_command", "firmware time per command, ns (default 0)"),
    ("interface.controller.firmware_ns_per_page", "firmware time per page of a command, ns (default 0)"),
    ("interface.controller.map_entry_bytes", "bytes of the mapping-table entry each page reads or updates in DRAM (0: none; default 4)"),
    ("interface.controller.eviction_reads", "an evicted page is read out of DRAM before its program (default true)"),
];

/// The documentation line of `key` (dotted), if any.
pub fn key_doc(key: &str) -> Option<&'static str> {
    KEY_DOCS.iter().find(|(k, _)| *k == key).map(|(_, d)| *d)
}

/// `toml` (a configuration as `Config::to_toml` writes it) with each
/// section and key preceded by its documentation line as a comment.
pub fn annotate(toml: &str) -> String {
    let mut out = String::with_capacity(toml.len() * 2);
    let mut section = String::new();
    for line in toml.lines() {
        let path = if let Some(name) = line
            .strip_prefix("[[")
            .and_then(|l| l.strip_suffix("]]"))
            .or_else(|| line.strip_prefix('[').and_then(|l| l.strip_suffix(']')))
        {
            section = name.to_string();
            Some(section.clone())
        } else {
            let key = line.split_once(" = ").map(|(k, _)| k).filter(|k| {
                !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            });
            key.map(|k| {
                if section.is_empty() {
                    k.to_string()
                } else {
                    format!("{section}.{k}")
                }
            })
        };
        if let Some(doc) = path.as_deref().and_then(key_doc) {
            if line.starts_with('[') && !out.is_empty() && !out.ends_with("\n\n") {
                out.push('\n');
            }
            out.push_str("# ");
            out.push_str(doc);
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}
