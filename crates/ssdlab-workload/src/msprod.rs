//! Microsoft Production Server traces (Kavalanekar, Worthington, Zhang,
//! Sharda, "Characterization of Storage Workload Traces from Production
//! Windows Servers", IISWC 2008; SNIA IOTTA): CSV exports of Event Tracing
//! for Windows (ETW) kernel traces.
//!
//! A file starts with a header block that names the columns of every event
//! type, then holds one event per line:
//!
//! ```text
//! BeginHeader
//!     DiskRead,  TimeStamp,     Process Name ( PID),   ThreadID,             IrpPtr,   ByteOffset,     IOSize, ElapsedTime,  DiskNum, IrpFlags, DiskSvcTime, I/O Pri,  VolSnap,         FileObject, FileName
//!    DiskWrite,  TimeStamp,     Process Name ( PID),   ThreadID,             IrpPtr,   ByteOffset,     IOSize, ElapsedTime,  DiskNum, IrpFlags, DiskSvcTime, I/O Pri,  VolSnap,         FileObject, FileName
//!    DiskFlush,  TimeStamp,     Process Name ( PID),   ThreadID,             IrpPtr,                           ElapsedTime,  DiskNum, IrpFlags, DiskSvcTime, I/O Pri
//! EndHeader
//!     DiskRead,       8640,      System (   4),        60, 0xfffffadf3d3a6010, 0x00275e1000, 0x00001000,    283,        0, 0x060043,   283,  0, Original, 0xfffffadf3c5b1f20, "C:\$Mft"
//! ```
//!
//! The columns of `DiskRead`, `DiskWrite` and `DiskFlush` rows are taken
//! from their header lines (by name: `TimeStamp`, `ByteOffset`, `IOSize`,
//! `DiskNum`), so exports with extra columns (newer xperf adds `CPU` after
//! `ThreadID`) read correctly; without a header the layout above is assumed.
//! `TimeStamp` is microseconds since the start of the trace (kept as it
//! is), `ByteOffset` and `IOSize` are hexadecimal bytes (`0x…`), `DiskNum`
//! is the device. Columns after the last one needed are not read (the
//! quoted `FileName` may hold commas).
//!
//! `DiskRead` and `DiskWrite` rows are requests. `DiskFlush` rows are counted
//! as flushes (not replayed). Every other event (`DiskReadInit`,
//! `FileIoRead`, `Process`, `CSwitch`, …) is not a block request: counted in
//! [`ReadCounters::non_io`](super::ReadCounters::non_io), not an error. A
//! line that is not an event row (its first field does not start with a
//! letter) is an error.
//!
//! Errors name the field: `header`, `record`, `timestamp`, `byte_offset`,
//! `io_size` or `disk_num`.

use super::input::{quote, split_trimmed, At};
use super::reader::{LineFormat, Parsed, Raw, TraceReader};
use super::{Op, TraceFormat, TraceOptions};
use crate::error::Result;

/// Streaming reader of a Microsoft Production Server ETW export.
pub type MsprodReader = TraceReader<MsprodFormat>;

/// Most columns of an event row looked at.
const MAX_COLUMNS: usize = 64;

/// Where the fields of an event are (column indices; `offset` and `size`
/// unused for `DiskFlush`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Columns {
    time: usize,
    offset: usize,
    size: usize,
    disk: usize,
}

impl Columns {
    fn last(&self, with_extent: bool) -> usize {
        if with_extent {
            self.time.max(self.offset).max(self.size).max(self.disk)
        } else {
            self.time.max(self.disk)
        }
    }
}

/// `DiskRead, TimeStamp, Process Name ( PID), ThreadID, IrpPtr, ByteOffset,
/// IOSize, ElapsedTime, DiskNum, …`
const DEFAULT_IO: Columns = Columns {
    time: 1,
    offset: 5,
    size: 6,
    disk: 8,
};

/// `DiskFlush, TimeStamp, Process Name ( PID), ThreadID, IrpPtr,
/// ElapsedTime, DiskNum, …`
const DEFAULT_FLUSH: Columns = Columns {
    time: 1,
    offset: 0,
    size: 0,
    disk: 6,
};

/// The ETW export line format.
#[derive(Debug)]
pub struct MsprodFormat {
    in_header: bool,
    read: Columns,
    write: Columns,
    flush: Columns,
}

impl Default for MsprodFormat {
    fn default() -> Self {
        MsprodFormat {
            in_header: false,
            read: DEFAULT_IO,
            write: DEFAULT_IO,
            flush: DEFAULT_FLUSH,
        }
    }
}

/// The index of the column called `name` (case-insensitive) in a header.
fn column(at: At<'_>, names: &[&str], event: &str, name: &str) -> Result<usize> {
    names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            at.error(
                "header",
                format!("the {event} header line has no `{name}` column"),
            )
        })
}

impl MsprodFormat {
    /// Learn the columns of an event from its header line.
    fn header_line(&mut self, at: At<'_>, text: &str) -> Result<()> {
        let (names, n) = split_trimmed::<MAX_COLUMNS>(text, ',');
        let names = &names[..n.min(MAX_COLUMNS)];
        let event = names[0];
        let (slot, with_extent) = match event {
            "DiskRead" => (&mut self.read, true),
            "DiskWrite" => (&mut self.write, true),
            "DiskFlush" => (&mut self.flush, false),
            _ => return Ok(()),
        };
        let time = column(at, names, event, "TimeStamp")?;
        let disk = column(at, names, event, "DiskNum")?;
        let (offset, size) = if with_extent {
            (
                column(at, names, event, "ByteOffset")?,
                column(at, names, event, "IOSize")?,
            )
        } else {
            (0, 0)
        };
        *slot = Columns {
            time,
            offset,
            size,
            disk,
        };
        Ok(())
    }
}

impl LineFormat for MsprodFormat {
    const FORMAT: TraceFormat = TraceFormat::Msprod;
    const ABSOLUTE_TIME: bool = false;
    const TIME_FIELD: &'static str = "timestamp";
    const OFFSET_FIELD: &'static str = "byte_offset";
    const SIZE_FIELD: &'static str = "io_size";

    fn new(_: &TraceOptions) -> Self {
        MsprodFormat::default()
    }

    #[inline]
    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
        let trimmed = text.trim();
        if trimmed == "BeginHeader" {
            self.in_header = true;
            return Ok(Parsed::Nothing);
        }
        if trimmed == "EndHeader" {
            self.in_header = false;
            return Ok(Parsed::Nothing);
        }
        if self.in_header {
            self.header_line(at, text)?;
            return Ok(Parsed::Nothing);
        }
        let (f, n) = split_trimmed::<MAX_COLUMNS>(text, ',');
        let (columns, op) = match f[0] {
            "DiskRead" => (self.read, Some(Op::Read)),
            "DiskWrite" => (self.write, Some(Op::Write)),
            "DiskFlush" => (self.flush, None),
            e if e.starts_with(|c: char| c.is_ascii_alphabetic()) => return Ok(Parsed::NotIo),
            _ => {
                return Err(at.error(
                    "record",
                    format!(
                        "expected an event row such as `DiskRead, TimeStamp, ...`, found {}",
                        quote(trimmed, 80)
                    ),
                ))
            }
        };
        let last = columns.last(op.is_some());
        if n <= last {
            return Err(at.error(
                "record",
                format!(
                    "a {} row needs at least {} comma-separated fields, found {n} in {}",
                    f[0],
                    last + 1,
                    quote(trimmed, 80)
                ),
            ));
        }
        let time_ns = at.decimal("timestamp", f[columns.time], 3)?;
        let device = at.u32("disk_num", f[columns.disk])?;
        let Some(op) = op else {
            return Ok(Parsed::Flush(device));
        };
        let offset = at.hex("byte_offset", f[columns.offset])?;
        let size = at.hex("io_size", f[columns.size])?;
        at.extent(offset, size, "byte_offset", "io_size")?;
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
