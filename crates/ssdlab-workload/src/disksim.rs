//! DiskSim ASCII traces (Bucy, Schindler, Schlosser, Ganger, "The DiskSim
//! Simulation Environment Version 4.0 Reference Manual", CMU-PDL-08-101,
//! 2008, "ascii" input format).
//!
//! One request per line, five whitespace-separated fields:
//!
//! ```text
//! time_ms   devno  blkno     bcount  flags
//! 12.625    0      2048      16      1
//! ```
//!
//! `time_ms` is the arrival time in milliseconds since the start of the
//! trace (a decimal; kept as it is, converted to ns with the digits beyond
//! the nanosecond dropped), `devno` the device, `blkno` the first 512-byte
//! block, `bcount` a count of blocks, `flags` a hexadecimal integer (as DiskSim
//! scans it, `%x`, with or without `0x`) whose bit 0 is 1 for
//! a read and 0 for a write (other bits are ignored).
//!
//! Errors name the field: `record`, `time_ms`, `devno`, `blkno`, `bcount` or
//! `flags`.

use super::input::{split_whitespace, At};
use super::reader::{sectors_to_bytes, LineFormat, Parsed, Raw, TraceReader};
use super::{Op, TraceFormat, TraceOptions};
use crate::error::Result;

/// Streaming reader of a DiskSim ASCII trace.
pub type DisksimReader = TraceReader<DisksimFormat>;

/// The DiskSim ASCII line format.
#[derive(Debug, Default)]
pub struct DisksimFormat;

impl LineFormat for DisksimFormat {
    const FORMAT: TraceFormat = TraceFormat::Disksim;
    const ABSOLUTE_TIME: bool = false;
    const TIME_FIELD: &'static str = "time_ms";
    const OFFSET_FIELD: &'static str = "blkno";
    const SIZE_FIELD: &'static str = "bcount";

    fn new(_: &TraceOptions) -> Self {
        DisksimFormat
    }

    #[inline]
    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
        let (f, n) = split_whitespace::<5>(text);
        at.field_count(
            n,
            5,
            "whitespace-separated",
            "time_ms devno blkno bcount flags",
            text,
        )?;
        let time_ns = at.decimal("time_ms", f[0], 6)?;
        let device = at.u32("devno", f[1])?;
        let block = at.u64("blkno", f[2])?;
        let blocks = at.u64("bcount", f[3])?;
        // DiskSim scans flags with `%x`: hexadecimal, with or without 0x.
        let digits = f[4]
            .strip_prefix("0x")
            .or_else(|| f[4].strip_prefix("0X"))
            .unwrap_or(f[4]);
        let flags = u64::from_str_radix(digits, 16).map_err(|_| {
            at.error(
                "flags",
                format!(
                    "expected a hexadecimal number, found {}",
                    super::input::quote(f[4], 40)
                ),
            )
        })?;
        let op = if flags & 1 == 1 { Op::Read } else { Op::Write };
        let offset = sectors_to_bytes(at, "blkno", block)?;
        let size = sectors_to_bytes(at, "bcount", blocks)?;
        at.extent(offset, size, "blkno", "bcount")?;
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
