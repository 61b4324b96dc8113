//! The result of a run: `Report` (the JSON, field names stable, units in
//! the names) and its text summary, computed from the `Metrics` at the end.

use super::*;

impl Metrics {
    pub fn report(&mut self, ctx: ReportContext) -> Report {
        let end = self.last_completion.max(self.busy_since).max(self.qd_since);
        self.planes_busy(end, 0);
        self.queue_depth(end, 0);
        let start = self.first_arrival.unwrap_or(0);
        let span = end.saturating_sub(start).max(1) as f64;
        let sim_s = span / 1e9;
        let c = &self.cmds;
        let host_programs = self.host_program_pages[0];
        // Per page, not per command: a Die-Write may mix origins.
        let gc_programs = self.gc.pages_migrated;
        let all = |kind: CmdKind| -> u64 { Origin::ALL.iter().map(|&o| c.pages(kind, o)).sum() };
        let all_mp = |kind: CmdKind| -> u64 {
            Origin::ALL
                .iter()
                .map(|&o| c.multiplane_pages(kind, o))
                .sum()
        };
        let all_programs = all(CmdKind::Program);
        let mp_programs = all_mp(CmdKind::Program);
        let mapping_programs = c.pages(CmdKind::Program, Origin::Mapping);
        let host_mp = self.host_program_pages[1];
        let requests = self.read_lat.len() + self.write_lat.len();
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let mut commands = Vec::new();
        for kind in CmdKind::ALL {
            for origin in Origin::ALL {
                for planes in 1..=c.max_planes() {
                    let n = c.get(kind, origin, planes);
                    if n > 0 {
                        commands.push(CommandCount {
                            kind: kind.name().to_string(),
                            origin: origin.name().to_string(),
                            planes: planes as u32,
                            commands: n,
                        });
                    }
                }
            }
        }
        let gc = &self.gc;
        let us = |ns: u128| ns as f64 / 1e3;
        let gcn = gc.count.max(1) as f64;
        let erase = ctx.erase_counts;
        let (emin, emax, emean) = if erase.is_empty() {
            (0, 0, 0.0)
        } else {
            let sum: u64 = erase.iter().map(|&e| e as u64).sum();
            (
                *erase.iter().min().expect("non-empty"),
                *erase.iter().max().expect("non-empty"),
                sum as f64 / erase.len() as f64,
            )
        };
        let estddev = if erase.is_empty() {
            0.0
        } else {
            let var = erase
                .iter()
                .map(|&e| (e as f64 - emean).powi(2))
                .sum::<f64>()
                / erase.len() as f64;
            var.sqrt()
        };
        let planes = ctx.plane_erases;
        let (pmin, pmax) = (
            planes.iter().copied().min().unwrap_or(0),
            planes.iter().copied().max().unwrap_or(0),
        );
        let evs = self.evict_samples.max(1) as f64;
        let mut report = Report {
            ssdlab_version: env!("CARGO_PKG_VERSION").to_string(),
            config: ctx.config_name,
            workload: ctx.workload,
            trace_format: ctx.trace_format,
            seed: ctx.seed,
            replicate: ctx.replicate,
            partial: ctx.partial,
            flows: self.flows.iter().map(|f| f.report()).collect(),
            fairness: None,
            requests,
            simulated_ns: span as u64,
            iops: requests as f64 / sim_s,
            bandwidth_mb_s: (self.read_bytes + self.write_bytes) as f64 / 1e6 / sim_s,
            mean_latency_us: if requests == 0 {
                0.0
            } else {
                (self.lat_sum[0] + self.lat_sum[1]) as f64 / requests as f64 / 1e3
            },
            read: op_report(
                &self.read_lat,
                self.lat_sq[0],
                self.lat_sum[0],
                self.lat_max[0],
                self.read_bytes,
                self.read_pages,
            ),
            write: op_report(
                &self.write_lat,
                self.lat_sq[1],
                self.lat_sum[1],
                self.lat_max[1],
                self.write_bytes,
                self.write_pages,
            ),
            page_type_allocation: {
                let [h, g, _] = self.placement;
                let wanted: u64 = h.0.iter().sum();
                (wanted + g.0.iter().sum::<u64>() > 0).then(|| PageTypeAllocation {
                    host_wanted: h.0,
                    host_got: h.1,
                    gc_wanted: g.0,
                    gc_got: g.1,
                    host_success_rate: ratio(h.1.iter().sum(), wanted),
                })
            },
            write_speed: WriteSpeed {
                fast: self.write_speed[0],
                medium: self.write_speed[1],
                slow: self.write_speed[2],
            },
            two_plane: ctx.two_plane,
            wear_levelling: ctx.wear_levelling,
            interface: ctx.interface.map(|mut i| {
                i.set_span(span);
                i
            }),
            flash: FlashReport {
                reads: all(CmdKind::Read),
                programs: all_programs,
                erases: all(CmdKind::Erase),
                copybacks: c.pages(CmdKind::Copyback, Origin::Gc),
                host_programs,
                gc_programs,
                multiplane_program_share: ratio(mp_programs, all_programs),
                host_multiplane_program_share: ratio(host_mp, host_programs),
                host_hot_share: ratio(self.hot_pages, host_programs),
                multiplane_read_share: ratio(all_mp(CmdKind::Read), all(CmdKind::Read)),
                wasted_pages: self.wasted_pages,
                copied_pages: self.copied_pages,
                superpage_reads: self.superpage_reads,
                page_types: PageTypeReport {
                    host: PageTypes::from(self.programmed_types[0]),
                    gc: PageTypes::from(self.programmed_types[1]),
                    host_share: {
                        let [l, c, m] = self.programmed_types[0];
                        let n = l + c + m;
                        PageTypeShare {
                            lsb: ratio(l, n),
                            csb: ratio(c, n),
                            msb: ratio(m, n),
                        }
                    },
                },
                commands,
            },
            gc: GcReport {
                blocked_share: if gc.host_write_ns == 0 {
                    0.0
                } else {
                    gc.blocked_ns as f64 / gc.host_write_ns as f64
                },
                blocked_writes: gc.blocked_writes,
                mean_blocked_us: us(gc.blocked_ns) / gc.blocked_writes.max(1) as f64,
                count: gc.count,
                pages_migrated: gc.pages_migrated,
                hot_moves: gc.hot_moves,
                moves_dropped: gc.moves_dropped,
                copyback_fallbacks: gc.copyback_fallbacks,
                joined: gc.joined,
                aligning_moves: gc.aligning_moves,
                host_pages_combined: gc.host_pages_combined,
                full_merges: gc.full_merges,
                switch_merges: gc.switch_merges,
                in_place_copybacks: gc.in_place_copybacks,
                logs_closed_early: gc.logs_closed_early,
                erases: gc.erases,
                pacing: self.pacing.clone(),
                victim_valid_pages: VictimValid {
                    victims: gc.victims,
                    mean: ratio(gc.victim_valid, gc.victims),
                    share: ratio(gc.victim_valid, gc.victim_pages),
                },
                pairs_per_worker: gc.pairs_per_worker[..ctx.plane_registers].to_vec(),
                time_us: GcTime {
                    total: us(gc.duration_ns),
                    mean: us(gc.duration_ns) / gcn,
                    read: us(gc.read_ns),
                    write: us(gc.write_ns),
                    transfer: us(gc.transfer_ns),
                    erase: us(gc.erase_ns),
                    mean_read: us(gc.read_ns) / gcn,
                    mean_write: us(gc.write_ns) / gcn,
                    mean_transfer: us(gc.transfer_ns) / gcn,
                    mean_erase: us(gc.erase_ns) / gcn,
                    migration_phase: us(gc.migration_ns),
                    erase_phase: us(gc.duration_ns - gc.migration_ns.min(gc.duration_ns)),
                    mean_migration_phase: us(gc.migration_ns) / gcn,
                    mean_erase_phase: us(gc.duration_ns - gc.migration_ns.min(gc.duration_ns))
                        / gcn,
                },
            },
            write_amplification: if host_programs == 0 {
                0.0
            } else {
                (host_programs
                    + gc_programs
                    + self.wasted_pages
                    + self.copied_pages
                    + mapping_programs) as f64
                    / host_programs as f64
            },
            mapping: MappingReport {
                cache_hit_ratio: ratio(
                    self.mapping.cache_hits,
                    self.mapping.cache_hits + self.mapping.cache_misses,
                ),
                totals: self.mapping.clone(),
            },
            buffer: BufferReport {
                capacity_pages: ctx.buffer_pages,
                capacity_bytes: ctx.buffer_pages * ctx.facts.page_bytes,
                sizing: ctx.buffer_sizing,
                read_hit_ratio: ratio(self.read_hits, self.read_pages),
                write_hit_ratio: ratio(self.write_hits, self.write_pages),
                read_hits: self.read_hits,
                write_hits: self.write_hits,
            },
            plane_utilization: PlaneUtil {
                mean: self.busy_integral as f64 / span / self.planes_total as f64,
                max: self.busy_max as f64 / self.planes_total as f64,
                at_eviction: Sampled {
                    samples: self.evict_samples,
                    mean: self.evict_busy_sum as f64 / evs / self.planes_total as f64,
                    max: self.evict_busy_max as f64 / self.planes_total as f64,
                },
            },
            queue_depth: QueueDepth {
                mean: self.qd_integral as f64 / span,
                max: self.qd_max,
            },
            unmapped_read_pages: self.unmapped_read_pages,
            unwritten_read_share: ratio(self.unmapped_read_pages, self.read_pages),
            trim: self.trim.clone(),
            erase_count: EraseSpread {
                min: emin,
                max: emax,
                mean: emean,
                stddev: estddev,
                plane_min: pmin,
                plane_max: pmax,
                plane_delta: pmax - pmin,
            },
            precondition: ctx.precondition,
            events: ctx.events,
            timeseries: self.series.as_ref().map(|s| {
                let secs = s.interval as f64 / 1e9;
                let mean = |sum: u128, n: u64| {
                    if n == 0 {
                        0.0
                    } else {
                        sum as f64 / n as f64 / 1e3
                    }
                };
                // Δe carries over intervals without an erase.
                let mut delta = 0;
                s.buckets
                    .iter()
                    .enumerate()
                    .map(|(i, b)| Interval {
                        t_s: (s.start + i as Time * s.interval) as f64 / 1e9,
                        requests: b.requests[0] + b.requests[1],
                        iops: (b.requests[0] + b.requests[1]) as f64 / secs,
                        read_latency_us_mean: mean(b.latency_ns[0], b.requests[0]),
                        write_latency_us_mean: mean(b.latency_ns[1], b.requests[1]),
                        gc_count: b.gc,
                        host_pages_programmed: b.pages[0],
                        gc_pages_moved: b.pages[1],
                        free_lsb_pages: b.free_lsb,
                        erases: b.erases as u64,
                        erase_delta: {
                            delta = b.erase_delta().unwrap_or(delta);
                            delta
                        },
                    })
                    .collect()
            }),
            steady_state: self.rounds.judge(),
            attribution: self
                .attribution
                .as_ref()
                .map(|a| a.report(&self.read_lat, &self.write_lat)),
            suspension: self.suspension.map(|t| {
                let n = t.programs + t.erases;
                SuspensionReport {
                    program_suspensions: t.programs,
                    erase_suspensions: t.erases,
                    suspended_us: t.suspended_ns as f64 / 1e3,
                    mean_suspended_us: if n == 0 {
                        0.0
                    } else {
                        t.suspended_ns as f64 / 1e3 / n as f64
                    },
                    pages_read_suspended: t.read_pages,
                }
            }),
            cache: self.cache.map(|t| CacheReport {
                cached_program_pages: t.program_pages,
                cached_read_pages: t.read_pages,
            }),
            bad_blocks: ctx.bad_blocks,
            warnings: Vec::new(),
        };
        report.warnings = super::warnings::find(&report, self, &ctx.facts);
        report
    }
}

/// Mean and max are exact; percentiles come from the histogram (3
/// significant digits: the value reported is the highest value equivalent to
/// the true quantile at that precision).
fn op_report(
    h: &Histogram<u64>,
    sq: u128,
    sum: u128,
    max: u64,
    bytes: u64,
    pages: u64,
) -> OpReport {
    let us = |ns: u64| ns as f64 / 1e3;
    let empty = h.is_empty();
    let q = |p: f64| {
        if empty {
            0.0
        } else {
            us(h.value_at_quantile(p).min(max))
        }
    };
    OpReport {
        count: h.len(),
        bytes,
        pages,
        latency_us: Latency {
            mean: if empty {
                0.0
            } else {
                sum as f64 / h.len() as f64 / 1e3
            },
            p50: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            p999: q(0.999),
            max: us(max),
            stddev: if empty {
                0.0
            } else {
                // Population standard deviation from exact sums.
                let n = h.len() as f64;
                let m = sum as f64 / n;
                ((sq as f64 / n - m * m).max(0.0)).sqrt() / 1e3
            },
        },
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MappingReport {
    pub cache_hit_ratio: f64,
    #[serde(flatten)]
    pub totals: MappingTotals,
}

/// Inputs to the report that the metrics do not own.
pub struct ReportContext<'a> {
    pub config_name: String,
    pub workload: String,
    /// How the trace was read (traces only).
    pub trace_format: Option<crate::workload::TraceRead>,
    pub seed: u64,
    /// The random stream after aging (`replicate`).
    pub replicate: u64,
    pub buffer_pages: u64,
    /// How the buffer was sized, in words.
    pub buffer_sizing: String,
    /// What the warnings need besides the metrics.
    pub facts: super::RunFacts,
    pub erase_counts: &'a [u32],
    /// Erases summed per plane (`ftl::wear`).
    pub plane_erases: &'a [u64],
    pub precondition: PreconditionReport,
    pub events: u64,
    /// `flash.plane_registers` (the workers of `gc.pairs_per_worker`).
    pub plane_registers: usize,
    /// The run was stopped before the end of its workload.
    pub partial: bool,
    /// APM or PaRP: what the two-plane allocator did.
    pub two_plane: Option<TwoPlaneReport>,
    /// Bad blocks (`flash.bad_blocks`), or None.
    pub bad_blocks: Option<BadBlockReport>,
    /// Wear levelling (`ftl.wear_levelling`), when on.
    pub wear_levelling: Option<WearLevellingReport>,
    /// The host interface (`interface`), when on.
    pub interface: Option<InterfaceReport>,
}

/// One interval of the time series.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Interval {
    /// Start of the interval, seconds of simulated time.
    pub t_s: f64,
    /// Requests completed in the interval, and their rate.
    pub requests: u64,
    pub iops: f64,
    pub read_latency_us_mean: f64,
    pub write_latency_us_mean: f64,
    /// GCs finished in the interval.
    pub gc_count: u64,
    pub host_pages_programmed: u64,
    /// GC moves (programs and copybacks) in the interval.
    pub gc_pages_moved: u64,
    /// Relaxed program order: the drive's free LSB pages after the
    /// interval's last program (PA-SSD's Fig. 16); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub free_lsb_pages: Option<u64>,
    /// Blocks erased in the interval.
    #[serde(default)]
    pub erases: u64,
    /// The wear spread Δe after the interval (DVPFTL Eq. 6: the most erases
    /// summed over a plane's blocks minus the fewest).
    #[serde(default)]
    pub erase_delta: u64,
}

/// The result of one run. Field names are stable; units are in the names.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub ssdlab_version: String,
    /// The configuration's `name` (the whole configuration is in the CLI's
    /// `run.config`).
    #[serde(rename = "config_name", alias = "config")]
    pub config: String,
    /// The workload's description (its full record is in the CLI's
    /// `run.workload`).
    #[serde(rename = "workload_name", alias = "workload")]
    pub workload: String,
    /// How the trace was read (absent for other workloads): its format,
    /// whether it was `named`, `detected` or `described`, and why detection
    /// chose it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_format: Option<crate::workload::TraceRead>,
    pub seed: u64,
    /// The random stream the run drew from after aging (`replicate`;
    /// absent for 0).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub replicate: u64,
    /// The run was interrupted: the figures cover the requests completed
    /// up to `simulated_ns` (absent when the run finished).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// Per-flow results (`[[flows]]`; absent without).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<super::FlowReport>,
    /// With alone runs (`--alone`): the smallest flow slowdown over the
    /// largest (FLIN's fairness; 1 when every flow is slowed alike).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fairness: Option<f64>,
    pub requests: u64,
    pub simulated_ns: u64,
    pub iops: f64,
    pub bandwidth_mb_s: f64,
    pub read: OpReport,
    pub write: OpReport,
    /// Reads and writes together: the parallel-GC paper's "average
    /// latency".
    pub mean_latency_us: f64,
    /// Write requests by the slowest page type their host programs used
    /// (PA-SSD's Figs. 1 and 14). A request completed without a program of
    /// its own (in the write buffer) is not counted.
    pub write_speed: WriteSpeed,
    /// Under a page-type scheme (`host.page_types`): pages that wanted each
    /// type and the share that got it (PA-SSD's Fig. 15); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_type_allocation: Option<PageTypeAllocation>,
    pub flash: FlashReport,
    /// Under `ftl.plane_allocation = "apm"`, `"parp"` or `"dvp"`: requests placed,
    /// dummy pages, Eq. (7)'s times and Eq. (8)'s bound; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub two_plane: Option<TwoPlaneReport>,
    pub gc: GcReport,
    pub write_amplification: f64,
    /// DFTL mapping-cache figures (all zero with a page map in DRAM).
    pub mapping: MappingReport,
    pub buffer: BufferReport,
    pub plane_utilization: PlaneUtil,
    pub queue_depth: QueueDepth,
    /// Page reads of pages never written (served at once, without flash
    /// access), and their share of all page reads.
    pub unmapped_read_pages: u64,
    #[serde(default)]
    pub unwritten_read_share: f64,
    /// Discards replayed as trims (absent when none were).
    #[serde(default, skip_serializing_if = "TrimReport::is_empty")]
    pub trim: TrimReport,
    pub erase_count: EraseSpread,
    pub precondition: PreconditionReport,
    pub events: u64,
    /// One entry per `metrics.interval_ms` of simulated time (absent when 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeseries: Option<Vec<Interval>>,
    /// Was the measured window in steady state (the SNIA PTS rule over five
    /// rounds of its requests; absent below 20 requests a round)?
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<super::SteadyState>,
    /// Latency attribution (`metrics.attribution`; absent when off): per
    /// operation, each part's share of the latency of all requests and of
    /// the tails beyond p50, p99 and p99.9.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<super::AttributionReport>,
    /// Program and erase suspension (`flash.suspension`; absent when off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspension: Option<SuspensionReport>,
    /// Cache program and cache read (`flash.cache_program`,
    /// `flash.cache_read`; absent when both are off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheReport>,
    /// Bad blocks (`flash.bad_blocks`; absent when off): retired blocks by
    /// cause, spares, and why the run ended if the drive went read-only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bad_blocks: Option<BadBlockReport>,
    /// Wear levelling (`ftl.wear_levelling`; absent when off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wear_levelling: Option<WearLevellingReport>,
    /// The host interface (`interface`; absent when off): link and
    /// controller time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface: Option<InterfaceReport>,
    /// What makes these figures mean less than they seem (empty when
    /// nothing was found): saturation, reads of never-written data, GC not
    /// running or not yet steady, a warm-up longer than the run, addresses
    /// beyond the drive.
    #[serde(default)]
    pub warnings: Vec<super::Warning>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OpReport {
    pub count: u64,
    pub bytes: u64,
    pub pages: u64,
    pub latency_us: Latency,
}

/// Pages that wanted each page type (LSB, CSB, MSB; MLC: LSB, MSB) and
/// those that got it, host and GC writes apart.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PageTypeAllocation {
    pub host_wanted: [u64; 3],
    pub host_got: [u64; 3],
    pub gc_wanted: [u64; 3],
    pub gc_got: [u64; 3],
    /// Host pages that got the type they wanted, over all host pages that
    /// wanted one.
    pub host_success_rate: f64,
}

/// Write requests by page speed: fast (all their pages LSB), medium (some
/// CSB, no MSB), slow (some MSB).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WriteSpeed {
    pub fast: u64,
    pub medium: u64,
    pub slow: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Latency {
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
    /// Standard deviation (population), from exact sums.
    pub stddev: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FlashReport {
    /// Page reads (host and GC; a two-plane read counts two).
    pub reads: u64,
    /// Page programs through the channel (host and GC).
    pub programs: u64,
    /// Block erases.
    pub erases: u64,
    /// Page copybacks (GC).
    pub copybacks: u64,
    pub host_programs: u64,
    /// GC page moves (programs plus copybacks).
    pub gc_programs: u64,
    /// Share of programmed pages that were part of a multi-plane program.
    pub multiplane_program_share: f64,
    pub host_multiplane_program_share: f64,
    /// Share of host pages programmed to the hot stream (ftl.hot_data).
    pub host_hot_share: f64,
    pub multiplane_read_share: f64,
    pub wasted_pages: u64,
    /// SuperPage: pages an update rewrote unchanged (read from flash first),
    /// and the flash reads that took.
    pub copied_pages: u64,
    pub superpage_reads: u64,
    /// Programmed pages by page type: the fast (LSB), medium (CSB) and slow
    /// (MSB) write shares of MLC/TLC drives.
    pub page_types: PageTypeReport,
    pub commands: Vec<CommandCount>,
}

/// Wear levelling (`ftl.wear_levelling`) over the timed run (warm-up
/// included; aging not).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct WearLevellingReport {
    /// Dynamic levelling on.
    pub dynamic: bool,
    /// Static levelling's threshold (absent: static levelling off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_threshold: Option<u32>,
    /// Blocks static levelling collected (its victims), and the pages moved
    /// out of them.
    pub static_blocks: u64,
    pub static_pages: u64,
    /// The largest spread of erase counts among one plane's blocks (most −
    /// fewest) at the end.
    pub plane_block_spread: u32,
}

impl WearLevellingReport {
    /// "dynamic on   static above T: B blocks collected, P pages moved", as
    /// the text summaries print it.
    pub fn modes(&self) -> String {
        format!(
            "dynamic {}   static {}",
            if self.dynamic { "on" } else { "off" },
            match self.static_threshold {
                Some(t) => format!(
                    "above {t}: {} blocks collected, {} pages moved",
                    self.static_blocks, self.static_pages
                ),
                None => "off".into(),
            }
        )
    }
}

/// Program and erase suspension (`flash.suspension`): how often reads
/// suspended an operation, and for how long.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SuspensionReport {
    /// Suspensions of programs (copybacks' program phases included).
    pub program_suspensions: u64,
    pub erase_suspensions: u64,
    /// Time operations spent suspended: suspend latency, the reads served,
    /// resume latency.
    pub suspended_us: f64,
    /// Per suspension.
    pub mean_suspended_us: f64,
    /// Pages read while an operation was suspended.
    pub pages_read_suspended: u64,
}

/// Cache program and cache read (`flash.cache_program`,
/// `flash.cache_read`): the pages whose transfer overlapped the array
/// operation before them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CacheReport {
    /// Program pages whose data went into a cache register while the die's
    /// array programmed the pages before them.
    pub cached_program_pages: u64,
    /// Read pages read from the array while the pages before them left the
    /// cache register.
    pub cached_read_pages: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PageTypeReport {
    /// Host pages programmed, by page type.
    pub host: PageTypes,
    /// GC pages programmed (programs and copyback destinations), by page type.
    pub gc: PageTypes,
    /// Shares of host pages programmed per page type.
    pub host_share: PageTypeShare,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PageTypes {
    pub lsb: u64,
    pub csb: u64,
    pub msb: u64,
}

impl From<[u64; 3]> for PageTypes {
    fn from([lsb, csb, msb]: [u64; 3]) -> Self {
        PageTypes { lsb, csb, msb }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PageTypeShare {
    pub lsb: f64,
    pub csb: f64,
    pub msb: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CommandCount {
    pub kind: String,
    pub origin: String,
    pub planes: u32,
    pub commands: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GcReport {
    /// Share of host-write time (queueing to program completion) spent
    /// waiting while the target die was collecting garbage (SPD's Fig. 18).
    pub blocked_share: f64,
    /// Host page programs that waited through some GC time, and their mean
    /// waiting time during GC.
    pub blocked_writes: u64,
    pub mean_blocked_us: f64,
    pub count: u64,
    pub pages_migrated: u64,
    /// Migrations written to the hot stream (hot/cold separation of GC
    /// moves).
    pub hot_moves: u64,
    pub moves_dropped: u64,
    pub copyback_fallbacks: u64,
    pub joined: u64,
    pub aligning_moves: u64,
    pub host_pages_combined: u64,
    /// FAST: full and switch merges (a GC there reclaims one log unit).
    pub full_merges: u64,
    pub switch_merges: u64,
    /// DVPFTL's merges: moves that stayed in their plane as copybacks
    /// (reported only where there are any).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub in_place_copybacks: u64,
    /// DVPFTL's map: page-mapped logs closed before they were full, to be
    /// reclaimed because a plane ran out of blocks while every log of its
    /// VFC was open (reported where any).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub logs_closed_early: u64,
    pub erases: u64,
    /// GC pacing's counts (`gc.preemptive`, `gc.idle`; reported only when
    /// one is on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<super::PacingTotals>,
    /// Valid pages of a victim when it was chosen: mean, and as a share of
    /// its pages (the parallel-GC paper's Tables 3 and 5).
    pub victim_valid_pages: VictimValid,
    /// Copybacks each of a plane's registers ran (`flash.plane_registers`
    /// entries; the parallel-GC paper's workers).
    pub pairs_per_worker: Vec<u64>,
    pub time_us: GcTime,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VictimValid {
    pub victims: u64,
    pub mean: f64,
    pub share: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GcTime {
    /// Sum over GC invocations of trigger-to-erase-completion time.
    pub total: f64,
    pub mean: f64,
    /// Busy-time breakdown (array reads, array programs, channel transfers,
    /// erases), totals and means per GC.
    pub read: f64,
    pub write: f64,
    pub transfer: f64,
    pub erase: f64,
    pub mean_read: f64,
    pub mean_write: f64,
    pub mean_transfer: f64,
    pub mean_erase: f64,
    /// GC wall time split: from the trigger to the end of the last page
    /// move (migration), and from there to the end of the erase (erase,
    /// including waits for reads and the queue), totals and means per GC.
    /// Per-plane and die-group GCs (FAST's merges count as erase).
    pub migration_phase: f64,
    pub erase_phase: f64,
    pub mean_migration_phase: f64,
    pub mean_erase_phase: f64,
}

/// Discards replayed as trims. They are not in `requests`, `iops` or the
/// latencies: a trim completes when it arrives.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TrimReport {
    pub requests: u64,
    pub bytes: u64,
    /// Whole pages the trims covered (a partly covered page keeps its data).
    pub pages: u64,
    /// Of those, pages that had data on flash, now invalid.
    pub mapped_pages: u64,
    /// Of those, pages whose newer data was still in the write buffer or on
    /// its way to flash, and was dropped.
    pub pending_pages: u64,
}

impl TrimReport {
    pub fn is_empty(&self) -> bool {
        self.requests == 0
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BufferReport {
    pub capacity_pages: u64,
    #[serde(default)]
    pub capacity_bytes: u64,
    /// How the capacity was sized: set in pages, or as a share of the
    /// workload's footprint (and whether the floor of one page per plane
    /// raised it).
    #[serde(default)]
    pub sizing: String,
    pub read_hit_ratio: f64,
    pub write_hit_ratio: f64,
    pub read_hits: u64,
    pub write_hits: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlaneUtil {
    /// Time-averaged share of planes engaged by an executing command.
    pub mean: f64,
    /// Largest share of planes engaged at once.
    pub max: f64,
    /// Share of planes engaged, sampled when each command carrying evicted
    /// buffer pages completes, before its planes are released (the SPD
    /// paper's definition, one sample per eviction command).
    pub at_eviction: Sampled,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sampled {
    pub samples: u64,
    pub mean: f64,
    pub max: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct QueueDepth {
    pub mean: f64,
    pub max: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EraseSpread {
    /// Erases per block: fewest, most, mean and standard deviation.
    pub min: u32,
    pub max: u32,
    pub mean: f64,
    #[serde(default)]
    pub stddev: f64,
    /// Erases summed per plane (DVPFTL Eq. 5): fewest, most, and the spread
    /// Δe = most − fewest (Eq. 6).
    #[serde(default)]
    pub plane_min: u64,
    #[serde(default)]
    pub plane_max: u64,
    #[serde(default)]
    pub plane_delta: u64,
}

impl Report {
    /// The human-readable summary printed after a run; derived from the
    /// report, so it always agrees with the JSON.
    pub fn summary(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let secs = self.simulated_ns as f64 / 1e9;
        let _ = writeln!(
            s,
            "ssdlab {} — {} on {}{}",
            self.ssdlab_version,
            self.workload,
            self.config,
            if self.partial {
                " — PARTIAL: interrupted before the end of the workload"
            } else {
                ""
            }
        );
        if let Some(t) = &self.trace_format {
            let _ = writeln!(s, "  trace    format {} ({})", t.format, t.how);
            for why in &t.reasons {
                let _ = writeln!(s, "           {why}");
            }
        }
        let _ = writeln!(
            s,
            "  requests {:>12}   simulated {:.3} s   {:.0} IOPS   {:.1} MB/s   mean queue depth {:.1}",
            self.requests, secs, self.iops, self.bandwidth_mb_s, self.queue_depth.mean
        );
        let _ = writeln!(
            s,
            "  latency (us)        count       mean        p50        p99      p99.9        max"
        );
        for (name, op) in [("read", &self.read), ("write", &self.write)] {
            let l = &op.latency_us;
            let _ = writeln!(
                s,
                "  {:<8} {:>15} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>10.1}",
                name, op.count, l.mean, l.p50, l.p99, l.p999, l.max
            );
        }
        s += &super::flows::summary_table(&self.flows, self.fairness);
        let w = &self.write_speed;
        if w.medium + w.slow > 0 {
            let n = (w.fast + w.medium + w.slow) as f64;
            let _ = writeln!(
                s,
                "  writes   fast (all LSB) {:.1}%   medium (CSB, no MSB) {:.1}%   slow (MSB) {:.1}%   write latency std dev {:.1} us",
                w.fast as f64 / n * 100.0,
                w.medium as f64 / n * 100.0,
                w.slow as f64 / n * 100.0,
                self.write.latency_us.stddev
            );
        }
        let f = &self.flash;
        let _ = writeln!(
            s,
            "  flash    page reads {}   page programs {} ({:.1}% multi-plane)   copybacks {}   erases {}",
            f.reads,
            f.programs,
            f.multiplane_program_share * 100.0,
            f.copybacks,
            f.erases
        );
        let g = &self.gc;
        let _ = writeln!(
            s,
            "  GC       {} runs   {} pages migrated   mean {:.1} us (read {:.1} / write {:.1} / transfer {:.1} / erase {:.1})   WA {:.3}",
            g.count,
            g.pages_migrated,
            g.time_us.mean,
            g.time_us.mean_read,
            g.time_us.mean_write,
            g.time_us.mean_transfer,
            g.time_us.mean_erase,
            self.write_amplification
        );
        if let Some(u) = &self.suspension {
            let _ = writeln!(
                s,
                "  suspend  {} program and {} erase suspensions   {} pages read suspended   {:.1} us suspended ({:.1} us each)",
                u.program_suspensions,
                u.erase_suspensions,
                u.pages_read_suspended,
                u.suspended_us,
                u.mean_suspended_us
            );
        }
        if let Some(c) = &self.cache {
            let _ = writeln!(
                s,
                "  cache    {} program pages through the cache register   {} read pages cached",
                c.cached_program_pages, c.cached_read_pages
            );
        }
        if g.full_merges + g.switch_merges > 0 {
            let _ = writeln!(
                s,
                "  merges   {} full, {} switch (hybrid map: a GC reclaims one log unit){}",
                g.full_merges,
                g.switch_merges,
                if g.in_place_copybacks > 0 {
                    format!("; {} moves by in-place copyback", g.in_place_copybacks)
                } else {
                    String::new()
                }
            );
        }
        let e = &self.erase_count;
        if let Some(b) = &self.bad_blocks {
            let _ = writeln!(
                s,
                "  bad      {} factory   grown {} at the endurance limit, {} by failed erases   spares left {} of {} per plane (fewest)",
                b.factory,
                b.grown_endurance,
                b.grown_erase_failure,
                b.spares_left_min,
                b.spare_blocks_per_plane
            );
            if let Some(why) = &b.read_only {
                let _ = writeln!(s, "  status   {why}");
            }
        }
        if e.max > 0 {
            let _ = writeln!(
                s,
                "  wear     erases per block {} / {:.2} / {} (min / mean / max, sd {:.2})   per plane {} to {} (spread {})",
                e.min, e.mean, e.max, e.stddev, e.plane_min, e.plane_max, e.plane_delta
            );
        }
        if let Some(w) = &self.wear_levelling {
            let _ = writeln!(
                s,
                "  levelling {}   largest spread of a plane's blocks {}",
                w.modes(),
                w.plane_block_spread
            );
        }
        let b = &self.buffer;
        if b.capacity_pages > 0 {
            let _ = writeln!(
                s,
                "  buffer   {} pages ({:.1} MiB; {})   read hits {:.1}%   write hits {:.1}%",
                b.capacity_pages,
                b.capacity_bytes as f64 / (1u64 << 20) as f64,
                b.sizing,
                b.read_hit_ratio * 100.0,
                b.write_hit_ratio * 100.0
            );
        } else {
            let _ = writeln!(s, "  buffer   none");
        }
        let p = &self.plane_utilization;
        let _ = writeln!(
            s,
            "  planes   busy {:.1}% on average, {:.1}% at most; at evictions {:.1}% mean",
            p.mean * 100.0,
            p.max * 100.0,
            p.at_eviction.mean * 100.0
        );
        let t = &self.trim;
        if t.requests > 0 {
            let _ = writeln!(
                s,
                "  trims    {} requests, {} pages ({} held data on flash, {} pending data dropped)",
                t.requests, t.pages, t.mapped_pages, t.pending_pages
            );
        }
        if self.unmapped_read_pages > 0 {
            let _ = writeln!(
                s,
                "  unwritten {} page reads ({:.2}% of page reads) found pages never written, served without flash access",
                self.unmapped_read_pages,
                self.unwritten_read_share * 100.0
            );
        }
        if let Some(st) = &self.steady_state {
            let _ = writeln!(s, "  steady   {}", st.in_words());
        }
        if let Some(a) = &self.attribution {
            for (name, bands) in [("reads", &a.read), ("writes", &a.write)] {
                for b in bands.iter().filter(|b| b.band != "all") {
                    let _ = writeln!(
                        s,
                        "  why      {name} {} (from {:.1} us, {} requests, mean {:.1} us): {}",
                        b.band,
                        b.from_us,
                        b.requests,
                        b.mean_us,
                        b.in_words()
                    );
                }
            }
        }
        if self.warnings.is_empty() {
            let _ = writeln!(s, "  warnings none");
        }
        for w in &self.warnings {
            let _ = writeln!(s, "  WARNING  [{}] {}", w.kind, w.message);
        }
        s
    }
}

/// Serde: counters left out of a report where they are zero.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Result of preconditioning, reported in the run's JSON.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct PreconditionReport {
    pub mode: String,
    /// Untimed page writes of every preconditioning step.
    pub pages_written: u64,
    pub valid_pages: u64,
    /// Valid pages the fill asked for but the logical capacity could not hold.
    pub valid_pages_capped: u64,
    pub trace_read_pages_mapped: u64,
    /// DFTL: translation pages written for the preconditioned data.
    pub translation_pages_written: u64,
    /// age:X: pages written.
    pub age_pages_written: u64,
    /// trace-sequence: pages written over all passes.
    pub sequence_pages_written: u64,
    /// Untimed GC runs preconditioning needed to make room.
    pub functional_gc: u64,
    /// trace-sequence: passes applied, and the last pass's write amplification.
    pub sequence_passes: u32,
    pub sequence_write_amplification: f64,
    /// trace-writes: passes of the workload's writes replayed, and the mean
    /// valid pages per victim of the last pass's untimed GCs (absent
    /// without trace-writes).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub write_passes: u32,
    #[serde(default, skip_serializing_if = "is_zero_f")]
    pub write_valid_per_victim: f64,
    /// until-steady: the warm-up's rounds, and whether its last five met the
    /// steady-state rule (absent without until-steady).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub steady_rounds: u32,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub steady_reached: bool,
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

fn is_zero_f(x: &f64) -> bool {
    *x == 0.0
}

/// What the two-plane allocators did over a run (reported as `two_plane`).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct TwoPlaneReport {
    /// `apm`, `parp` or `dvp`.
    pub policy: String,
    /// Host write requests planned, and their pages (Y_req).
    pub requests: u64,
    pub pages: u64,
    /// APM: requests split over two planes of a die (all of more than one
    /// page). PaRP: requests that paired with the one before them.
    pub two_plane_requests: u64,
    /// Dummy pages queued (Y_dum); each is programmed and counted in
    /// `flash.wasted_pages`.
    pub dummy_pages: u64,
    /// APM: odd pages out programmed alone because a dummy page would have
    /// broken Eq. (8). PaRP: requests that found no partner.
    pub single_programs: u64,
    /// Eq. (7)'s times from the drive's timing, microseconds, and Eq. (8)'s
    /// bound on Y_dum / Y_req (APM).
    pub t_nom_us: f64,
    pub t_2plane_us: f64,
    pub t_dum_us: f64,
    pub dummy_ratio_bound: f64,
    /// Δe (Eq. 6) at the end of the run.
    pub erase_delta: u64,
    /// Requests placed by each APM rule (valid pages in the channel, erases
    /// in the channel, erases anywhere).
    pub by_rule: [u64; 3],
    /// DVPFTL (`mapping = "vfc"`): host pages written to sequential logs at
    /// their data positions, outside the allocator (reported where any).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sequential_pages: u64,
    /// Requests placed page by page where each page's data already is (new
    /// data: the plane holding the least), outside the allocator, because
    /// no plane could take more valid data: an overloaded drive's backlog
    /// of pages not yet programmed filled the room GC needs.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub crowded_requests: u64,
}

fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}

/// Bad blocks (`flash.bad_blocks`): blocks retired over the whole drive by
/// cause (aging included), and the spares.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BadBlockReport {
    /// Bad from the factory.
    pub factory: u64,
    /// Retired at the erase that reached `cell.endurance`.
    pub grown_endurance: u64,
    /// Retired after a failed erase.
    pub grown_erase_failure: u64,
    /// Spare blocks each plane set aside.
    pub spare_blocks_per_plane: u32,
    /// Spares left in the plane with fewest.
    pub spares_left_min: u32,
    /// The drive went read-only and the run ended early: "read-only: plane
    /// P ran out of spare blocks after B host bytes / R requests" (absent
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<String>,
}

/// The host interface (`interface`; absent when off): its link and
/// controller's time over the measured requests.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct InterfaceReport {
    /// Host requests (reads and writes) that crossed the interface.
    pub commands: u64,
    /// Mean time from a request's arrival to its pages' start: the command
    /// (and a write's data) over the link, firmware, mapping-table reads.
    pub command_us_mean: f64,
    /// Mean time from a request's last page to its completion at the host:
    /// DRAM (a write's admission, a read's buffer hits), then the link (a
    /// read's data, the completion entry, the interrupt).
    pub completion_us_mean: f64,
    /// Firmware time, summed.
    pub firmware_us: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram: Option<DramReport>,
}

/// The host link's traffic: index 0 host to device, 1 device to host.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LinkReport {
    /// `pcie` or `sata`.
    pub kind: String,
    /// Bytes on the wire (data with packet or FIS overhead), per direction.
    pub wire_bytes: [u64; 2],
    /// Time each direction was busy, µs (SATA: one direction at a time).
    pub busy_us: [f64; 2],
    /// Busy time over the measured span, per direction.
    pub utilisation: [f64; 2],
    /// Time messages waited for a busy link, summed, µs.
    pub wait_us: f64,
}

/// The controller's DRAM channel.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DramReport {
    pub accesses: u64,
    pub bytes: u64,
    pub busy_us: f64,
    /// Busy time over the measured span.
    pub utilisation: f64,
    /// Time accesses waited for the busy channel, summed, µs.
    pub wait_us: f64,
}

impl InterfaceReport {
    /// Utilisations over a measured span of `span_ns`.
    pub fn set_span(&mut self, span_ns: f64) {
        if let Some(l) = &mut self.link {
            l.utilisation = [l.busy_us[0] * 1e3 / span_ns, l.busy_us[1] * 1e3 / span_ns];
        }
        if let Some(d) = &mut self.dram {
            d.utilisation = d.busy_us * 1e3 / span_ns;
        }
    }
}
