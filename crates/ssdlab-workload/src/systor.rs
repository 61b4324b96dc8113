//! SYSTOR '17 traces (Lee et al., "Understanding Storage Traffic
//! Characteristics on Enterprise Virtual Desktop Infrastructure", SYSTOR
//! 2017; SNIA IOTTA).
//!
//! CSV, one request per line, six fields:
//!
//! ```text
//! Timestamp,Response,IOType,LUN,Offset,Size
//! 1456135200.013118000,0.000308000,R,4,5463146496,4096
//! ```
//!
//! `Timestamp` is Unix time in seconds (a decimal; absolute, so rebased to
//! the first record kept), `Response` the response time in seconds (a
//! decimal or blank; otherwise unused), `IOType` `R` or `W` (any case), `LUN`
//! the device, `Offset` and `Size` bytes. A blank `IOType` means no response
//! was seen: such rows are dropped and counted
//! ([`ReadCounters::blank_type`](super::ReadCounters::blank_type), over all
//! LUNs) without looking at their other fields. A header line is optional.
//!
//! Errors name the field: `record`, `timestamp`, `response`, `io_type`,
//! `lun`, `offset` or `size`.

use super::input::{quote, At};
use super::reader::{FirstLine, LineFormat, Parsed, Raw, TraceReader};
use super::{Op, TraceFormat, TraceOptions};
use crate::error::Result;

/// Streaming reader of a SYSTOR '17 trace.
pub type SystorReader = TraceReader<SystorFormat>;

const LAYOUT: &str = "Timestamp,Response,IOType,LUN,Offset,Size";

/// The SYSTOR '17 line format.
#[derive(Debug, Default)]
pub struct SystorFormat {
    first: FirstLine,
}

impl LineFormat for SystorFormat {
    const FORMAT: TraceFormat = TraceFormat::Systor;
    const ABSOLUTE_TIME: bool = true;
    const TIME_FIELD: &'static str = "timestamp";
    const OFFSET_FIELD: &'static str = "offset";
    const SIZE_FIELD: &'static str = "size";

    fn new(_: &TraceOptions) -> Self {
        SystorFormat::default()
    }

    #[inline]
    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
        let Some(f) = self.first.csv::<6>(at, text, LAYOUT, false)? else {
            return Ok(self.first.skipped());
        };
        let op = match f[2] {
            "" => return Ok(Parsed::BlankType),
            t if t.eq_ignore_ascii_case("r") => Op::Read,
            t if t.eq_ignore_ascii_case("w") => Op::Write,
            other => {
                return Err(at.error(
                    "io_type",
                    format!(
                        "expected `R` (read), `W` (write) or blank, found {}",
                        quote(other, 40)
                    ),
                ))
            }
        };
        let time_ns = at.decimal("timestamp", f[0], 9)?;
        if !f[1].is_empty() {
            at.decimal("response", f[1], 9)?;
        }
        let device = at.u32("lun", f[3])?;
        let offset = at.u64("offset", f[4])?;
        let size = at.u64("size", f[5])?;
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
