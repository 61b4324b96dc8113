//! SSDSim traces (Hu et al., "Performance Impact and Interplay of SSD
//! Parallelism through Advanced Commands, Allocation Strategy and Data
//! Granularity", ICS 2011), and MQSim traces read through the shared
//! pipeline.
//!
//! One request per line, five whitespace-separated integers, as SSDSim's
//! `get_requests` scans them (`"%lld %d %d %d %d"`):
//!
//! ```text
//! time_ns  dev  lsn       size  ope
//! 1000     0    2048      8     1
//! ```
//!
//! `time_ns` is nanoseconds since the start of the trace (kept as it is),
//! `dev` the device, `lsn` the first 512-byte sector, `size` a count of
//! sectors, `ope` 1 for a read and 0 for a write.
//!
//! That is exactly MQSim's layout and meaning (`time_ns device lba
//! size_sectors type`, type 0 = write, 1 = read), so SSDSim uses
//! [`super::mqsim`]'s parser and differs only in field names: errors name
//! `record`, `time_ns`, `dev`, `lsn`, `size` or `ope`.

use super::input::At;
use super::mqsim::{parse, SSDSIM};
use super::reader::{LineFormat, Parsed, TraceReader};
use super::{TraceFormat, TraceOptions};
use crate::error::Result;

/// Streaming reader of an SSDSim trace.
pub type SsdsimReader = TraceReader<SsdsimFormat>;

/// The SSDSim line format.
#[derive(Debug, Default)]
pub struct SsdsimFormat;

impl LineFormat for SsdsimFormat {
    const FORMAT: TraceFormat = TraceFormat::Ssdsim;
    const ABSOLUTE_TIME: bool = false;
    const TIME_FIELD: &'static str = "time_ns";
    const OFFSET_FIELD: &'static str = "lsn";
    const SIZE_FIELD: &'static str = "size";

    fn new(_: &TraceOptions) -> Self {
        SsdsimFormat
    }

    #[inline]
    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
        parse(&SSDSIM, at, text)
    }
}
