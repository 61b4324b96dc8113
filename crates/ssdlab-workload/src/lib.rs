//! Workloads: where requests come from.
//!
//! Every source — a trace file in some format, or the synthetic generator —
//! is turned into a stream of [`IoRecord`]s by [`Source::open`]. A source can
//! be opened any number of times (the simulator scans a trace once to learn
//! its footprint and read set, then replays it), and every open yields the
//! same records, so a run is deterministic.
//!
//! Readers stream: memory does not grow with trace length. A malformed record
//! is an [`Error::Parse`](crate::Error::Parse) naming file, line and field,
//! unless [`TraceOptions::skip_bad_lines`] asks to skip and count it.
//!
//! ## Trace formats
//!
//! | name | layout | units | clock |
//! |---|---|---|---|
//! | `msr` | `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` | bytes | FILETIME (absolute) |
//! | `spc` | `ASU,LBA,Size,Opcode,Timestamp[,…]` | LBA 512 B, Size bytes | seconds (relative) |
//! | `msprod` | ETW export: `BeginHeader`…`EndHeader`, `DiskRead`/`DiskWrite` rows | hex bytes | µs (relative) |
//! | `systor` | `Timestamp,Response,IOType,LUN,Offset,Size` | bytes | Unix seconds (absolute) |
//! | `alibaba` | `device_id,opcode,offset,length,timestamp` | bytes | Unix µs (absolute) |
//! | `tencent` | `Timestamp,Offset,Size,IOType,VolumeID` | 512 B sectors | Unix seconds (absolute) |
//! | `blkparse` | `maj,min cpu seq time pid action rwbs sector + blocks [process]` | 512 B sectors | seconds (relative) |
//! | `disksim` | `time_ms devno blkno bcount flags` | 512 B blocks | ms (relative) |
//! | `mqsim` | `time_ns device lba size_sectors type` | 512 B sectors | ns (relative) |
//! | `ssdsim` | `time_ns dev lsn size ope` | 512 B sectors | ns (relative) |
//! | `linnos` | `time_ms device offset size type` | bytes | ms (relative) |
//!
//! Any other line-per-request layout is read as [`TraceFormat::Custom`],
//! described by a [`custom::FormatSpec`] (a small TOML file) in
//! [`TraceOptions::format_spec`].
//!
//! Time is normalised to nanoseconds. Absolute clocks (wall-clock time) are
//! rebased to the first record kept, so such traces start at 0; relative
//! clocks (time since the start of the trace) are kept as they are. The
//! host rebases to the first replayed record in either case.
//!
//! Every trace format goes through the same pipeline (filter, order, start,
//! limit): see [`reader`] and [`TraceOptions`].
//!
//! ## Where things are
//!
//! This crate is the simulator's workload layer; `ssdlab` re-exports it as
//! `ssdlab::workload` (and its [`error`] module as `ssdlab::error`).
//!
//! - this module: records, sources, trace formats and options, read counters;
//! - [`reader`] (the pipeline every format shares), [`input`] (compression,
//!   lines, fields), [`detect`] (format detection), [`custom`] (formats the
//!   user describes), and one module per format
//!   ([`msr`], [`spc`], [`msprod`], [`systor`], [`alibaba`], [`tencent`],
//!   [`blkparse`], [`disksim`], [`mqsim`], [`ssdsim`], [`linnos`]);
//! - [`writer`] (writing traces) and [`stats`] (trace statistics);
//! - [`synthetic`], the generator and its profile language: `mod.rs` the
//!   language (module documentation) and `Profile` with its checks, `spec.rs`
//!   the TOML form and its error messages, `size.rs`, `address.rs` and
//!   `arrival.rs` the models and their samplers, `generator.rs` the request
//!   stream, `rng.rs` the uniform draws, `dmath.rs` the platform-independent
//!   `ln`/`exp`/`erfc`;
//! - [`builtin`], the built-in profiles (TOML in `profiles/`, compiled in);
//! - [`error`], the one error type.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

pub use crate::error::{Error, Result};

pub mod alibaba;
pub mod blkparse;
pub mod builtin;
pub mod custom;
pub mod detect;
pub mod disksim;
pub mod error;
pub mod input;
pub mod interrupt;
pub mod linnos;
pub mod mqsim;
pub mod msprod;
pub mod msr;
pub mod output;
pub mod prefetch;
pub mod reader;
pub mod spc;
pub mod ssdsim;
pub mod stats;
pub mod synthetic;
pub mod systor;
pub mod tencent;
pub mod toml_keys;
pub use toml_keys::line_of_key;
pub mod writer;

/// Direction of an I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
    /// A discard (TRIM, UNMAP): the range's data is no longer wanted.
    /// Readers deliver these only with [`TraceOptions::replay_trims`];
    /// otherwise they count them in [`ReadCounters::discards`].
    Trim,
}

/// One block I/O request as the host issues it, in a format-neutral form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRecord {
    /// Arrival time, nanoseconds from the start of the trace (first record
    /// may be non-zero; the host rebases).
    pub time_ns: u64,
    pub op: Op,
    /// Byte offset on the device.
    pub offset: u64,
    /// Length in bytes (> 0).
    pub size: u64,
    /// A write's page-type hint from the host (PA-SSD's sHG: the NVMe
    /// access-latency field, 0 fastest — LSB — to 2 slowest): synthetic
    /// profiles with `latency_hint` give one; traces carry none.
    pub hint: Option<u8>,
}

impl IoRecord {
    /// A request of `size` bytes at byte `offset`, arriving at `time_ns`,
    /// without a page-type hint. Every record is built through here (or
    /// [`with_hint`](Self::with_hint)), so that a field added later changes
    /// one place.
    #[inline]
    pub const fn new(time_ns: u64, op: Op, offset: u64, size: u64) -> IoRecord {
        IoRecord {
            time_ns,
            op,
            offset,
            size,
            hint: None,
        }
    }

    /// This request with the host's page-type hint (PA-SSD's sHG: 0
    /// fastest).
    #[inline]
    pub const fn with_hint(self, hint: Option<u8>) -> IoRecord {
        IoRecord { hint, ..self }
    }
}

/// A stream of records; `Err` items stop the run (no silent skipping).
pub type RecordStream = Box<dyn Iterator<Item = Result<IoRecord>> + Send>;

/// Trace file formats understood by [`Source::open`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceFormat {
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    Msr,
    /// UMass / SPC: `ASU,LBA,Size,Opcode,Timestamp[,…]`.
    Spc,
    /// Microsoft Production Server ETW exports (`DiskRead` / `DiskWrite` rows).
    Msprod,
    /// SYSTOR '17: `Timestamp,Response,IOType,LUN,Offset,Size`.
    Systor,
    /// Alibaba block traces: `device_id,opcode,offset,length,timestamp`.
    Alibaba,
    /// Tencent CBS: `Timestamp,Offset,Size,IOType,VolumeID`.
    Tencent,
    /// blkparse default text output.
    Blkparse,
    /// DiskSim ASCII: `time_ms devno blkno bcount flags`.
    Disksim,
    /// MQSim / DiskSim-style ASCII: `time_ns device lba_sectors size_sectors type(0=write,1=read)`.
    Mqsim,
    /// SSDSim: `time_ns dev lsn size ope(1=read,0=write)`.
    Ssdsim,
    /// LinnOS / FlashNet replayer: `time_ms device offset_bytes size_bytes
    /// type(1=read,0=write)`.
    Linnos,
    /// A format the user describes ([`custom::FormatSpec`], given in
    /// [`TraceOptions::format_spec`]).
    Custom,
    /// Detect from the first lines.
    Auto,
}

impl TraceFormat {
    pub const NAMES: &'static [&'static str] = &[
        "msr", "spc", "msprod", "systor", "alibaba", "tencent", "blkparse", "disksim", "mqsim",
        "ssdsim", "linnos", "auto",
    ];

    /// Every concrete format (all but `Auto`), in the order of [`Self::NAMES`].
    pub const ALL: &'static [TraceFormat] = &[
        TraceFormat::Msr,
        TraceFormat::Spc,
        TraceFormat::Msprod,
        TraceFormat::Systor,
        TraceFormat::Alibaba,
        TraceFormat::Tencent,
        TraceFormat::Blkparse,
        TraceFormat::Disksim,
        TraceFormat::Mqsim,
        TraceFormat::Ssdsim,
        TraceFormat::Linnos,
    ];

    pub fn parse(s: &str) -> Result<TraceFormat> {
        let lower = s.to_ascii_lowercase();
        if lower == "auto" {
            return Ok(TraceFormat::Auto);
        }
        Self::ALL
            .iter()
            .copied()
            .find(|f| f.name() == lower)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "unknown trace format `{s}`; known formats: {}",
                    Self::NAMES.join(", ")
                ))
            })
    }

    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Msr => "msr",
            TraceFormat::Spc => "spc",
            TraceFormat::Msprod => "msprod",
            TraceFormat::Systor => "systor",
            TraceFormat::Alibaba => "alibaba",
            TraceFormat::Tencent => "tencent",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::Disksim => "disksim",
            TraceFormat::Mqsim => "mqsim",
            TraceFormat::Ssdsim => "ssdsim",
            TraceFormat::Linnos => "linnos",
            TraceFormat::Custom => "custom",
            TraceFormat::Auto => "auto",
        }
    }

    /// The shape of a record, for messages.
    pub fn layout(self) -> &'static str {
        match self {
            TraceFormat::Msr => "`Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`",
            TraceFormat::Spc => "`ASU,LBA,Size,Opcode,Timestamp[,...]`",
            TraceFormat::Msprod => "ETW export, `BeginHeader`...`EndHeader` then `DiskRead, TimeStamp, ...` rows",
            TraceFormat::Systor => "`Timestamp,Response,IOType,LUN,Offset,Size`",
            TraceFormat::Alibaba => "`device_id,opcode,offset,length,timestamp`",
            TraceFormat::Tencent => "`Timestamp,Offset,Size,IOType,VolumeID`",
            TraceFormat::Blkparse => "`maj,min cpu seq sec.nsec pid action rwbs sector + blocks [process]`",
            TraceFormat::Disksim => "`time_ms devno blkno bcount flags`, whitespace-separated, time in ms",
            TraceFormat::Mqsim => "`time_ns device lba size_sectors type`, whitespace-separated integers, type 0=write 1=read",
            TraceFormat::Ssdsim => "`time_ns dev lsn size ope`, whitespace-separated integers, ope 1=read 0=write",
            TraceFormat::Linnos => "`time_ms device offset_bytes size_bytes type`, whitespace-separated, time in ms, offset and size in bytes, type 1=read 0=write",
            TraceFormat::Custom => "described by a format spec (--trace-format FILE.toml)",
            TraceFormat::Auto => "detected from the first lines",
        }
    }
}

/// Which blkparse action is replayed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BlkparseAction {
    /// `D`: the request is issued to the device driver (what the device sees).
    #[default]
    Issue,
    /// `Q`: the request is queued (what the file system asked for, before
    /// merging and splitting).
    Queue,
}

impl BlkparseAction {
    /// The action letter in blkparse output.
    pub fn letter(self) -> char {
        match self {
            BlkparseAction::Issue => 'D',
            BlkparseAction::Queue => 'Q',
        }
    }
}

/// The largest reorder window: 4,194,304 records (about 200 MiB held).
pub const MAX_SORT_WINDOW: usize = 1 << 22;

/// The reorder window every trace reader uses unless
/// [`TraceOptions::sort_window`] says otherwise: 65,536 records (about
/// 3 MiB).
///
/// Why this size: of the real excerpts in the project's shared traces, the
/// Tencent CBS sample (1-second timestamps, about 25,000 records a second)
/// needs a window of 25,640 records — its latest record arrives one second,
/// i.e. about a second's worth of records, late — and the SYSTOR '17 sample
/// needs 16. 65,536 covers the Tencent rate with a margin of 2.5, holds
/// about a second of a trace at 65,000 requests/s, and keeps memory small.
/// A trace already in order is delivered unchanged and at the same speed
/// (records in order bypass the heap).
pub const DEFAULT_SORT_WINDOW: usize = 1 << 16;

/// Options of every trace reader.
///
/// The stages apply in this order (see [`reader`]): parse (`skip_bad_lines`),
/// device filter (`device`, then `side_by_side`), time order
/// (`sort_window`), rebasing of absolute clocks, start (`skip_records`,
/// `start_ns`), `limit`.
#[derive(Clone, Debug, Default)]
pub struct TraceOptions {
    /// Keep only records of this device: the disk number (msr, msprod), ASU
    /// (spc), LUN (systor), device id (alibaba), volume id (tencent), device
    /// number (disksim, mqsim, ssdsim) or, for blkparse, `major << 20 |
    /// minor` (so 8,16 is 8388624; see [`blkparse::device_id`]). None = all.
    pub device: Option<u32>,
    /// Stop after delivering this many records (None = all).
    pub limit: Option<u64>,
    /// Drop the first this many records (after the device filter, in time
    /// order).
    pub skip_records: u64,
    /// Drop records whose time (after rebasing) is before this, in ns. Both
    /// start options apply: a record is delivered only if it is past the
    /// first `skip_records` and at or after `start_ns`.
    pub start_ns: u64,
    /// Skip malformed lines instead of stopping at the first, counting them
    /// in [`ReadCounters::bad_lines`] (and keeping the first error's text).
    /// Read errors (I/O, decompression) still stop the stream; so do
    /// timestamps out of order beyond the reorder window (`sort_window`).
    pub skip_bad_lines: bool,
    /// The reorder window, in records: None (default) means
    /// [`DEFAULT_SORT_WINDOW`]; Some(0) strict order (a timestamp smaller
    /// than the previous record's is an error); Some(w) a window of `w`
    /// records (memory about 48 bytes × w). A record later than the window
    /// can repair is an error naming the window and a larger one to try.
    pub sort_window: Option<usize>,
    /// Lay devices side by side on one simulated drive: device `i` starts at
    /// byte `i × device_stride`. Needs `device_stride`; a request that
    /// crosses the stride is an error.
    pub side_by_side: bool,
    /// Bytes between the starts of consecutive devices with `side_by_side`
    /// (at least the size of the largest device).
    pub device_stride: Option<u64>,
    /// Deliver discards (TRIM/UNMAP records) as [`Op::Trim`] requests, so
    /// that a simulation invalidates their pages, instead of counting them
    /// in [`ReadCounters::discards`] (default: count, so that results do
    /// not change with a trace's discards).
    pub replay_trims: bool,
    /// blkparse: which action to replay (default `D`, issue).
    pub blkparse_action: BlkparseAction,
    /// The described format [`TraceFormat::Custom`] reads (see [`custom`]).
    pub format_spec: Option<Arc<custom::FormatSpec>>,
    /// How the format was chosen when it was detected
    /// ([`detect::explain`]): the run's result says so.
    pub detection: Option<Arc<detect::Detection>>,
    /// The trace's name in results: the path as the user gave it (None:
    /// the path the reader opens).
    pub name: Option<String>,
    /// What the reader dropped and why. Shared: clone the `Arc` before
    /// handing the options over, read it after the run. Each open of a
    /// trace resets it, so after a run it describes the last pass.
    pub counters: Arc<ReadCounters>,
}

impl TraceOptions {
    /// An error if the options contradict each other.
    pub fn validate(&self) -> Result<()> {
        if self.side_by_side {
            match self.device_stride {
                None => {
                    return Err(Error::Invalid(
                        "laying devices side by side needs a device stride: the number of bytes \
                         between the start of device i and device i+1 (device i starts at \
                         i × stride), at least the size of the largest device"
                            .to_string(),
                    ))
                }
                Some(0) => {
                    return Err(Error::Invalid(
                        "the device stride must be positive".to_string(),
                    ))
                }
                Some(_) => {}
            }
        }
        if self.window() > MAX_SORT_WINDOW {
            return Err(Error::Invalid(format!(
                "a reorder window (--sort) of {} records is more than the {MAX_SORT_WINDOW} \
                 (about 200 MiB) a reader holds",
                self.window()
            )));
        }
        Ok(())
    }

    /// The reorder window in records (0: strict order): `sort_window`, or
    /// [`DEFAULT_SORT_WINDOW`].
    pub fn window(&self) -> usize {
        self.sort_window.unwrap_or(DEFAULT_SORT_WINDOW)
    }
}

/// What a trace reader dropped, and why: a handle shared between the reader
/// and its caller (through [`TraceOptions::counters`]), updated as the trace
/// is read (`records` in batches of a few thousand, complete once the
/// stream has ended or been dropped). Read it with
/// [`snapshot`](ReadCounters::snapshot).
#[derive(Debug, Default)]
pub struct ReadCounters {
    /// Records delivered.
    pub records: AtomicU64,
    /// Malformed lines skipped (`skip_bad_lines`).
    pub bad_lines: AtomicU64,
    /// Rows dropped because their I/O type is blank (SYSTOR).
    pub blank_type: AtomicU64,
    /// Rows that are not block requests (other events, other blkparse
    /// actions, requests without data).
    pub non_io: AtomicU64,
    /// Discards (trims): counted, not replayed (without `replay_trims`).
    pub discards: AtomicU64,
    /// Discards delivered as [`Op::Trim`] records (`replay_trims`; also
    /// counted in `records`).
    pub trims: AtomicU64,
    /// Cache flushes: counted, not replayed (a write that carries a flush is
    /// replayed as a write and counted here too).
    pub flushes: AtomicU64,
    /// Rows of other devices (device filter).
    pub filtered: AtomicU64,
    /// Records dropped by `skip_records` / `start_ns`.
    pub before_start: AtomicU64,
    /// Records that arrived earlier than one before them and were put in
    /// order by the reorder window.
    pub reordered: AtomicU64,
    /// Header lines between records, skipped: a CSV header repeated where
    /// traces were joined, or lines a described format's `header` pattern
    /// matches after its first record.
    pub repeated_headers: AtomicU64,
    first_bad_line: Mutex<Option<String>>,
}

impl ReadCounters {
    /// A fresh handle.
    pub fn new() -> Arc<ReadCounters> {
        Arc::new(ReadCounters::default())
    }

    /// Zero everything.
    pub fn reset(&self) {
        for c in self.all() {
            c.store(0, Relaxed);
        }
        *self
            .first_bad_line
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Count a skipped malformed line; the first one's error is kept.
    pub fn bad_line(&self, error: &Error) {
        self.bad_lines.fetch_add(1, Relaxed);
        let mut first = self
            .first_bad_line
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if first.is_none() {
            *first = Some(error.to_string());
        }
    }

    /// The counts now.
    pub fn snapshot(&self) -> ReadCounts {
        ReadCounts {
            records: self.records.load(Relaxed),
            bad_lines: self.bad_lines.load(Relaxed),
            blank_type: self.blank_type.load(Relaxed),
            non_io: self.non_io.load(Relaxed),
            discards: self.discards.load(Relaxed),
            trims: self.trims.load(Relaxed),
            flushes: self.flushes.load(Relaxed),
            filtered: self.filtered.load(Relaxed),
            before_start: self.before_start.load(Relaxed),
            reordered: self.reordered.load(Relaxed),
            repeated_headers: self.repeated_headers.load(Relaxed),
            first_bad_line: self
                .first_bad_line
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
        }
    }

    fn all(&self) -> [&AtomicU64; 11] {
        [
            &self.records,
            &self.bad_lines,
            &self.blank_type,
            &self.non_io,
            &self.discards,
            &self.trims,
            &self.flushes,
            &self.filtered,
            &self.before_start,
            &self.reordered,
            &self.repeated_headers,
        ]
    }
}

/// A snapshot of [`ReadCounters`]; `Display` gives a one-line summary.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReadCounts {
    pub records: u64,
    pub bad_lines: u64,
    pub blank_type: u64,
    pub non_io: u64,
    pub discards: u64,
    pub trims: u64,
    pub flushes: u64,
    pub filtered: u64,
    pub before_start: u64,
    pub reordered: u64,
    /// Header lines between records, skipped (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub repeated_headers: u64,
    /// The error of the first malformed line skipped.
    pub first_bad_line: Option<String>,
}

impl std::fmt::Display for ReadCounts {
    /// `8 records; 2 malformed lines skipped (first: …); 1 discard not replayed`:
    /// the record count, then every non-zero count.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} records", self.records)?;
        if self.bad_lines > 0 {
            write!(f, "; {} malformed lines skipped", self.bad_lines)?;
            if let Some(first) = &self.first_bad_line {
                write!(f, " (first: {first})")?;
            }
        }
        let rest = [
            (self.blank_type, "rows with a blank I/O type dropped"),
            (self.non_io, "rows that are not block requests skipped"),
            (self.discards, "discards not replayed"),
            (self.trims, "discards replayed as trims"),
            (self.flushes, "cache flushes not replayed"),
            (self.filtered, "rows of other devices skipped"),
            (self.before_start, "records before the start skipped"),
            (self.reordered, "records put back in time order"),
            (self.repeated_headers, "repeated header lines skipped"),
        ];
        for (n, what) in rest {
            if n > 0 {
                write!(f, "; {n} {what}")?;
            }
        }
        Ok(())
    }
}

/// Serde: a count left out where it is zero.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A fresh stream of the trace at `path` in `format` (`Auto`: detected).
/// Resets `options.counters`.
pub fn open_trace(
    path: &Path,
    format: TraceFormat,
    options: &TraceOptions,
) -> Result<RecordStream> {
    fn open<F: reader::LineFormat>(path: &Path, o: &TraceOptions) -> Result<RecordStream> {
        Ok(Box::new(reader::TraceReader::<F>::open(path, o)?))
    }
    options.validate()?;
    let format = match format {
        TraceFormat::Auto => detect::detect(path)?,
        f => f,
    };
    match format {
        TraceFormat::Msr => open::<msr::MsrFormat>(path, options),
        TraceFormat::Spc => open::<spc::SpcFormat>(path, options),
        TraceFormat::Msprod => open::<msprod::MsprodFormat>(path, options),
        TraceFormat::Systor => open::<systor::SystorFormat>(path, options),
        TraceFormat::Alibaba => open::<alibaba::AlibabaFormat>(path, options),
        TraceFormat::Tencent => open::<tencent::TencentFormat>(path, options),
        TraceFormat::Blkparse => open::<blkparse::BlkparseFormat>(path, options),
        TraceFormat::Disksim => open::<disksim::DisksimFormat>(path, options),
        TraceFormat::Mqsim => open::<mqsim::MqsimFormat>(path, options),
        TraceFormat::Ssdsim => open::<ssdsim::SsdsimFormat>(path, options),
        TraceFormat::Linnos => open::<linnos::LinnosFormat>(path, options),
        TraceFormat::Custom => {
            let Some(spec) = &options.format_spec else {
                return Err(Error::Invalid(
                    "a described trace format needs its format spec \
                     (TraceOptions::format_spec; --trace-format FILE.toml)"
                        .to_string(),
                ));
            };
            if options.device.is_some() && spec.device_column.is_none() {
                return Err(Error::Invalid(format!(
                    "a device filter needs a device column, and format `{}` has no [device]",
                    spec.name
                )));
            }
            match (options.device, spec.keep_device) {
                (None, Some(keep)) => {
                    let mut o = options.clone();
                    o.device = Some(keep);
                    open::<custom::CustomFormat>(path, &o)
                }
                _ => open::<custom::CustomFormat>(path, options),
            }
        }
        TraceFormat::Auto => unreachable!("resolved above"),
    }
}

/// How a run's trace was read, for its result.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TraceRead {
    /// The format: a built-in format's name, or a described format's.
    pub format: String,
    /// `named` (given), `detected` (from a sample of its lines) or
    /// `described` (a format spec).
    pub how: String,
    /// Why detection chose the format (detected formats only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

/// Where a run's requests come from.
// A source is built a few times per run, never in a hot loop: its size
// does not matter, and boxing a variant would change how it is written.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Source {
    /// A trace file read with the given options.
    Trace {
        path: PathBuf,
        format: TraceFormat,
        options: TraceOptions,
    },
    Synthetic(synthetic::Profile),
    /// Records held in memory (tests, validation, library users).
    Records {
        name: String,
        records: std::sync::Arc<Vec<IoRecord>>,
    },
    /// At most `limit` requests of another source (any kind: a trace, a
    /// profile bounded by count or by duration, records).
    Limited {
        inner: Box<Source>,
        limit: u64,
    },
}

impl Source {
    /// A fresh stream from the start of the source.
    pub fn open(&self) -> Result<RecordStream> {
        match self {
            Source::Trace {
                path,
                format,
                options,
            } => open_trace(path, *format, options),
            Source::Synthetic(p) => Ok(Box::new(synthetic::Generator::new(p))),
            Source::Records { records, .. } => {
                let records = records.clone();
                Ok(Box::new((0..records.len()).map(move |i| Ok(records[i]))))
            }
            Source::Limited { inner, limit } => Ok(Box::new(inner.open()?.take(*limit as usize))),
        }
    }

    /// Like [`open`](Self::open), with the records read (parsed,
    /// decompressed, generated) ahead on a thread of their own
    /// ([`prefetch`]): the same records in the same order, while the
    /// consumer works.
    pub fn open_ahead(&self) -> Result<RecordStream> {
        match self {
            // Records in memory cost nothing to read.
            Source::Records { .. } => self.open(),
            _ => Ok(prefetch::prefetch(self.open()?)),
        }
    }

    /// This source cut to at most `limit` requests.
    pub fn limited(self, limit: Option<u64>) -> Source {
        match limit {
            Some(limit) => Source::Limited {
                inner: Box::new(self),
                limit,
            },
            None => self,
        }
    }

    /// How the trace is read, for a trace (None otherwise). A format left
    /// to detection (`Auto`) is detected here (None if it cannot be).
    pub fn trace_read(&self) -> Option<TraceRead> {
        match self {
            Source::Trace {
                path,
                format,
                options,
            } => {
                let detection = match (format, &options.detection) {
                    (TraceFormat::Auto, _) => Some(Arc::new(detect::explain(path).ok()?)),
                    (_, d) => d.clone(),
                };
                Some(match (format, detection) {
                    (TraceFormat::Custom, _) => TraceRead {
                        format: options
                            .format_spec
                            .as_ref()
                            .map_or("?", |s| s.name.as_str())
                            .to_string(),
                        how: "described".into(),
                        reasons: Vec::new(),
                    },
                    (_, Some(d)) => TraceRead {
                        format: d.format.name().to_string(),
                        how: "detected".into(),
                        reasons: d.reasons.clone(),
                    },
                    (f, None) => TraceRead {
                        format: f.name().to_string(),
                        how: "named".into(),
                        reasons: Vec::new(),
                    },
                })
            }
            Source::Limited { inner, .. } => inner.trace_read(),
            Source::Synthetic(_) | Source::Records { .. } => None,
        }
    }

    /// The path of a trace that can be read only once (a pipe, a character
    /// device: not a regular file), which a run that reads its workload
    /// twice (a pre-scan, replays) cannot take; `None` for anything else.
    pub fn read_once(&self) -> Option<&Path> {
        match self {
            Source::Trace { path, .. } => std::fs::metadata(path)
                .ok()
                .filter(|m| !m.is_file())
                .map(|_| path.as_path()),
            Source::Limited { inner, .. } => inner.read_once(),
            Source::Synthetic(_) | Source::Records { .. } => None,
        }
    }

    /// Short human-readable description for summaries.
    pub fn describe(&self) -> String {
        match self {
            Source::Trace {
                path,
                format: TraceFormat::Custom,
                options,
            } => format!(
                "{} (format `{}`)",
                options
                    .name
                    .clone()
                    .unwrap_or_else(|| path.display().to_string()),
                options
                    .format_spec
                    .as_ref()
                    .map_or("?", |s| s.name.as_str())
            ),
            Source::Trace {
                path,
                format,
                options,
            } => format!(
                "{} ({})",
                options
                    .name
                    .clone()
                    .unwrap_or_else(|| path.display().to_string()),
                format.name()
            ),
            Source::Synthetic(p) => format!("synthetic `{}`", p.name),
            Source::Records { name, records } => {
                format!("{name} ({} records in memory)", records.len())
            }
            Source::Limited { inner, limit } => {
                format!("{} (first {limit} requests)", inner.describe())
            }
        }
    }
}
