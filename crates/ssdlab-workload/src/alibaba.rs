//! Alibaba Cloud block traces (alibaba/block-traces, 2020; Li et al.,
//! "An In-Depth Analysis of Cloud Block Storage Workloads in Large-Scale
//! Production", IISWC 2020).
//!
//! CSV, one request per line, five fields:
//!
//! ```text
//! device_id,opcode,offset,length,timestamp
//! 0,R,126703644672,4096,1577808000000626
//! ```
//!
//! `device_id` is the virtual disk, `opcode` `R` or `W` (any case), `offset`
//! and `length` bytes, `timestamp` Unix time in microseconds (absolute, so
//! rebased to the first record kept). A header line is optional.
//!
//! Errors name the field: `record`, `device_id`, `opcode`, `offset`,
//! `length` or `timestamp`.

use super::input::{quote, At};
use super::reader::{FirstLine, LineFormat, Parsed, Raw, TraceReader};
use super::{Op, TraceFormat, TraceOptions};
use crate::error::Result;

/// Streaming reader of an Alibaba block trace.
pub type AlibabaReader = TraceReader<AlibabaFormat>;

const LAYOUT: &str = "device_id,opcode,offset,length,timestamp";

/// The Alibaba line format.
#[derive(Debug, Default)]
pub struct AlibabaFormat {
    first: FirstLine,
}

impl LineFormat for AlibabaFormat {
    const FORMAT: TraceFormat = TraceFormat::Alibaba;
    const ABSOLUTE_TIME: bool = true;
    const TIME_FIELD: &'static str = "timestamp";
    const OFFSET_FIELD: &'static str = "offset";
    const SIZE_FIELD: &'static str = "length";

    fn new(_: &TraceOptions) -> Self {
        AlibabaFormat::default()
    }

    #[inline]
    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
        let Some(f) = self.first.csv::<5>(at, text, LAYOUT, false)? else {
            return Ok(self.first.skipped());
        };
        let device = at.u32("device_id", f[0])?;
        let op = match f[1] {
            t if t.eq_ignore_ascii_case("r") => Op::Read,
            t if t.eq_ignore_ascii_case("w") => Op::Write,
            other => {
                return Err(at.error(
                    "opcode",
                    format!(
                        "expected `R` (read) or `W` (write), found {}",
                        quote(other, 40)
                    ),
                ))
            }
        };
        let offset = at.u64("offset", f[2])?;
        let size = at.u64("length", f[3])?;
        let time_ns = at.decimal("timestamp", f[4], 3)?;
        at.extent(offset, size, "offset", "length")?;
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
