//! Tencent Cloud Block Storage traces (SNIA IOTTA; Zhang et al., "OSCA: An
//! Online-Model Based Cache Allocation Scheme in Cloud Block Storage
//! Systems", USENIX ATC 2020).
//!
//! CSV, one request per line, five fields:
//!
//! ```text
//! Timestamp,Offset,Size,IOType,VolumeID
//! 1538323200,1124616,16,1,1283
//! ```
//!
//! `Timestamp` is Unix time in seconds (a decimal is accepted; absolute, so
//! rebased to the first record kept), `Offset` and `Size` count 512-byte
//! sectors, `IOType` is 0 (read) or 1 (write), `VolumeID` the volume (the
//! device). A header line is optional.
//!
//! Errors name the field: `record`, `timestamp`, `offset`, `size`,
//! `io_type` or `volume_id`.

use super::input::{quote, At};
use super::reader::{sectors_to_bytes, FirstLine, LineFormat, Parsed, Raw, TraceReader};
use super::{Op, TraceFormat, TraceOptions};
use crate::error::Result;

/// Streaming reader of a Tencent CBS trace.
pub type TencentReader = TraceReader<TencentFormat>;

const LAYOUT: &str = "Timestamp,Offset,Size,IOType,VolumeID";

/// The Tencent CBS line format.
#[derive(Debug, Default)]
pub struct TencentFormat {
    first: FirstLine,
}

impl LineFormat for TencentFormat {
    const FORMAT: TraceFormat = TraceFormat::Tencent;
    const ABSOLUTE_TIME: bool = true;
    const TIME_FIELD: &'static str = "timestamp";
    const OFFSET_FIELD: &'static str = "offset";
    const SIZE_FIELD: &'static str = "size";

    fn new(_: &TraceOptions) -> Self {
        TencentFormat::default()
    }

    #[inline]
    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
        let Some(f) = self.first.csv::<5>(at, text, LAYOUT, false)? else {
            return Ok(self.first.skipped());
        };
        let time_ns = at.decimal("timestamp", f[0], 9)?;
        let sector = at.u64("offset", f[1])?;
        let sectors = at.u64("size", f[2])?;
        let op = match f[3] {
            "0" => Op::Read,
            "1" => Op::Write,
            other => {
                return Err(at.error(
                    "io_type",
                    format!("expected 0 (read) or 1 (write), found {}", quote(other, 40)),
                ))
            }
        };
        let device = at.u32("volume_id", f[4])?;
        let offset = sectors_to_bytes(at, "offset", sector)?;
        let size = sectors_to_bytes(at, "size", sectors)?;
        at.extent(offset, size, "offset", "size")?;
        Ok(Parsed::Io(Raw {
            time_ns,
            device,
            op,
            offset,
            size,
            preflush: false,
        }))
    }
}
