//! UMass Trace Repository / SPC traces (SPC Trace File Format Specification,
//! Storage Performance Council, revision 1.0.1).
//!
//! CSV, one request per line, five fields and optional extra ones:
//!
//! ```text
//! ASU,LBA,Size,Opcode,Timestamp[,...]
//! 0,20941264,8192,W,0.551706
//! ```
//!
//! `ASU` (application specific unit) is the device, `LBA` counts 512-byte
//! blocks, `Size` is in bytes, `Opcode` is `r`/`R` (read) or `w`/`W`
//! (write), `Timestamp` is seconds (a decimal) since the start of the trace,
//! kept as it is (not rebased). Fields after the fifth are ignored. Fields
//! may be padded with spaces. A header line is optional: the first non-blank
//! line is one if its first field starts with a letter. With
//! [`TraceOptions::side_by_side`](super::TraceOptions::side_by_side), ASU `i`
//! starts at `i × device_stride` bytes.
//!
//! Errors name the field: `record`, `asu`, `lba`, `size`, `opcode` or
//! `timestamp`.

use super::input::At;
use super::reader::{sectors_to_bytes, FirstLine, LineFormat, Parsed, Raw, TraceReader};
use super::{Op, TraceFormat, TraceOptions};
use crate::error::Result;

/// Streaming reader of an SPC trace.
pub type SpcReader = TraceReader<SpcFormat>;

const LAYOUT: &str = "ASU,LBA,Size,Opcode,Timestamp";

/// The SPC line format.
#[derive(Debug, Default)]
pub struct SpcFormat {
    first: FirstLine,
}

impl LineFormat for SpcFormat {
    const FORMAT: TraceFormat = TraceFormat::Spc;
    const ABSOLUTE_TIME: bool = false;
    const TIME_FIELD: &'static str = "timestamp";
    const OFFSET_FIELD: &'static str = "lba";
    const SIZE_FIELD: &'static str = "size";

    fn new(_: &TraceOptions) -> Self {
        SpcFormat::default()
    }

    #[inline]
    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
        let Some(f) = self.first.csv::<5>(at, text, LAYOUT, true)? else {
            return Ok(self.first.skipped());
        };
        let device = at.u32("asu", f[0])?;
        let lba = at.u64("lba", f[1])?;
        let size = at.u64("size", f[2])?;
        let op = match f[3] {
            "r" | "R" => Op::Read,
            "w" | "W" => Op::Write,
            other => {
                return Err(at.error(
                    "opcode",
                    format!(
                        "expected `r` or `R` (read), `w` or `W` (write), found {}",
                        super::input::quote(other, 40)
                    ),
                ))
            }
        };
        let time_ns = at.decimal("timestamp", f[4], 9)?;
        let offset = sectors_to_bytes(at, "lba", lba)?;
        at.extent(offset, size, "lba", "size")?;
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
