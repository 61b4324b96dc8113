//! Workloads: where requests come from.
//!
//! Every source — a trace file in some format, or the synthetic generator —
//! is turned into a stream of [`IoRecord`]s by [`Source::open`]. A source can
//! be opened any number of times (the simulator scans a trace once to learn
//! its footprint and read set, then replays it), and every open yields the
//! same records, so a run is deterministic.
//!
//! Readers stream: memory does not grow with trace length. A malformed record
//! is an [`Error::Parse`](crate::Error::Parse) naming file, line and field.

use std::path::PathBuf;

use crate::error::Result;

pub mod detect;
pub mod input;
pub mod mqsim;
pub mod msr;
pub mod synthetic;

/// Direction of an I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
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
}

/// A stream of records; `Err` items stop the run (no silent skipping).
pub type RecordStream = Box<dyn Iterator<Item = Result<IoRecord>> + Send>;

/// Trace file formats understood by [`Source::open`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// MQSim / DiskSim-style ASCII: `time_ns device lba_sectors size_sectors type(0=write,1=read)`.
    Mqsim,
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    Msr,
    /// Detect from the first lines.
    Auto,
}

impl TraceFormat {
    pub const NAMES: &'static [&'static str] = &["mqsim", "msr", "auto"];

    pub fn parse(s: &str) -> Result<TraceFormat> {
        match s.to_ascii_lowercase().as_str() {
            "mqsim" => Ok(TraceFormat::Mqsim),
            "msr" => Ok(TraceFormat::Msr),
            "auto" => Ok(TraceFormat::Auto),
            _ => Err(crate::Error::Invalid(format!(
                "unknown trace format `{s}`; known formats: {}",
                Self::NAMES.join(", ")
            ))),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Mqsim => "mqsim",
            TraceFormat::Msr => "msr",
            TraceFormat::Auto => "auto",
        }
    }
}

/// Reader options common to all formats.
#[derive(Clone, Debug, Default)]
pub struct TraceOptions {
    /// Keep only records of this device / disk number (None = all).
    pub device: Option<u32>,
    /// Stop after this many records (None = all).
    pub limit: Option<u64>,
}

/// Where a run's requests come from.
#[derive(Clone, Debug)]
pub enum Source {
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
}

impl Source {
    /// A fresh stream from the start of the source.
    pub fn open(&self) -> Result<RecordStream> {
        match self {
            Source::Trace {
                path,
                format,
                options,
            } => {
                let format = match format {
                    TraceFormat::Auto => detect::detect(path)?,
                    f => *f,
                };
                let stream: RecordStream = match format {
                    TraceFormat::Mqsim => Box::new(mqsim::MqsimReader::open(path, options)?),
                    TraceFormat::Msr => Box::new(msr::MsrReader::open(path, options)?),
                    TraceFormat::Auto => unreachable!("resolved above"),
                };
                Ok(match options.limit {
                    Some(n) => Box::new(stream.take(n as usize)),
                    None => stream,
                })
            }
            Source::Synthetic(p) => Ok(Box::new(synthetic::Generator::new(p))),
            Source::Records { records, .. } => {
                let records = records.clone();
                Ok(Box::new((0..records.len()).map(move |i| Ok(records[i]))))
            }
        }
    }

    /// Short human-readable description for summaries.
    pub fn describe(&self) -> String {
        match self {
            Source::Trace { path, format, .. } => format!("{} ({})", path.display(), format.name()),
            Source::Synthetic(p) => format!("synthetic `{}`", p.name),
            Source::Records { name, records } => {
                format!("{name} ({} records in memory)", records.len())
            }
        }
    }
}
