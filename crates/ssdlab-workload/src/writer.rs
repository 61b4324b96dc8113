//! Writing [`IoRecord`]s as trace files, the inverse of the readers.
//!
//! Four formats, each in the exact units of its definition:
//!
//! | format | line | time | address and size |
//! |---|---|---|---|
//! | [`Format::Mqsim`] | `time_ns device start_sector size_sectors type` (type 0 = write, 1 = read) | integer ns | 512-byte sectors |
//! | [`Format::Ssdsim`] | `time_ns dev lsn size ope` (ope 1 = read, 0 = write): the MQSim line | integer ns | 512-byte sectors |
//! | [`Format::Disksim`] | `time_ms device start_sector size_sectors flags` (flags hex, 1 = read, 0 = write) | ms with exactly 6 decimals | 512-byte sectors |
//! | [`Format::Msr`] | `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` (no header line, as in the SNIA files) | Windows FILETIME, 100 ns ticks | bytes |
//!
//! # What is exact and what is not
//!
//! * **MQSim** and **SSDSim** store every field exactly: times are written
//!   as they are. (SSDSim itself scans `lsn` and `size` with `%d`, so it
//!   cannot replay sectors at or beyond 2^31; ssdlab's reader can.)
//! * **DiskSim** ASCII (the `ascii` trace format of DiskSim 4, read there
//!   with `"%lf %d %d %d %x"`) gives the time in milliseconds as a decimal;
//!   it is written as the integer milliseconds, a point and exactly six
//!   digits (`938513000` ns is `938.513000`), which is the nanosecond value
//!   in decimal, so a reader that parses the decimal exactly loses nothing.
//!   DiskSim itself reads it into a `double`, which keeps the nanosecond
//!   (an error below 0.5 ns) up to 2^33 ms, about 99 days. DiskSim also
//!   reads the block number and size into a C `int`, so DiskSim itself
//!   cannot replay requests at or beyond sector 2^31 (1 TiB) or of 2^31
//!   sectors or more; the writer does not refuse them (ssdlab's readers
//!   take 64-bit values).
//!   The device number is written in decimal, the flags in hex (`0` or `1`).
//! * **MSR** timestamps are FILETIME ticks of 100 ns. A record's `time_ns`
//!   is taken as nanoseconds since the Unix epoch, i.e. the timestamp is
//!   [`MSR_EPOCH_TICKS`] (1970-01-01T00:00:00Z as FILETIME) plus
//!   `time_ns / 100`. Readers turn ticks into nanoseconds in 64 bits, so
//!   times after [`MSR_MAX_TIME_NS`] (about 6.8 × 10^18 ns, the year 2185)
//!   are refused. Times that are not multiples of 100 ns cannot be
//!   written exactly: with [`TimeRounding::Exact`] (the default) that is an
//!   error; with [`TimeRounding::Floor`] they are rounded down to the tick
//!   and [`WriteSummary`] counts them (rounding down keeps times in order).
//!   `ResponseTime` is written as 0 (a record has none). The MSR reader
//!   rebases times to the first record, so reading back gives
//!   `time_ns - first.time_ns`: the round trip is exact up to that shift.
//! * **Sector formats** (MQSim, SSDSim, DiskSim) cannot hold an offset or
//!   size that is not a multiple of 512 bytes: such a record is an error,
//!   never silently truncated.
//! * **Devices.** A record has no device; every line gets
//!   [`WriteOptions::device`] (0 by default), and MSR lines
//!   [`WriteOptions::hostname`].
//!
//! Every format refuses, as an [`Error::Invalid`] naming the record's
//! 1-based position in the stream, what its reader would refuse: size 0, an
//! end beyond 2^63 bytes, a time before the previous record's. So whatever
//! the writer writes, the reader reads back.
//!
//! [`write_file`] writes gzip when the path ends in `.gz`, and writes to a
//! temporary file in the same directory that is renamed over the path only
//! when everything has been written: a failed or interrupted conversion
//! leaves no partial file (and converting a file onto itself works); a pipe
//! or a device is written in place ([`crate::output`]).

use std::io::{BufWriter, Write};
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;

use super::input::MAX_END_BYTES;
use super::{IoRecord, Op, TraceFormat};
use crate::error::{Error, Result};

/// Bytes per sector in the sector-addressed formats (MQSim, SSDSim, DiskSim).
pub const SECTOR_BYTES: u64 = 512;

/// 1970-01-01T00:00:00Z as a Windows FILETIME (100 ns ticks since
/// 1601-01-01): the MSR timestamp written for `time_ns == 0`.
pub const MSR_EPOCH_TICKS: u64 = 116_444_736_000_000_000;

/// Nanoseconds per MSR (FILETIME) tick.
pub const MSR_NS_PER_TICK: u64 = 100;

/// Latest `time_ns` an MSR trace can hold: its timestamp, in ticks, times
/// 100 must fit in a `u64` for the reader to convert it to nanoseconds.
pub const MSR_MAX_TIME_NS: u64 =
    (u64::MAX / MSR_NS_PER_TICK - MSR_EPOCH_TICKS) * MSR_NS_PER_TICK + (MSR_NS_PER_TICK - 1);

/// Capacity of the output buffer.
const BUF_BYTES: usize = 256 * 1024;

/// Anything that can stand for a record in a stream: a record, a reference
/// to one, or a reader's `Result` (whose error stops the consumer).
pub trait IntoRecord {
    fn into_record(self) -> Result<IoRecord>;
}

impl IntoRecord for IoRecord {
    fn into_record(self) -> Result<IoRecord> {
        Ok(self)
    }
}

impl IntoRecord for &IoRecord {
    fn into_record(self) -> Result<IoRecord> {
        Ok(*self)
    }
}

impl IntoRecord for Result<IoRecord> {
    fn into_record(self) -> Result<IoRecord> {
        self
    }
}

/// Output trace formats; see the [module documentation](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// MQSim ASCII: integer ns, 512-byte sectors, type 0 = write, 1 = read.
    Mqsim,
    /// MSR Cambridge CSV: FILETIME ticks, bytes.
    Msr,
    /// DiskSim 4 ASCII: ms with six decimals, 512-byte sectors, flags 1 = read.
    Disksim,
    /// SSDSim: integer ns, 512-byte sectors, ope 1 = read, 0 = write.
    Ssdsim,
}

impl Format {
    pub const NAMES: &'static [&'static str] = &["mqsim", "msr", "disksim", "ssdsim"];
    pub const ALL: &'static [Format] =
        &[Format::Mqsim, Format::Msr, Format::Disksim, Format::Ssdsim];

    /// Parse a format name (any case).
    pub fn parse(s: &str) -> Result<Format> {
        match s.to_ascii_lowercase().as_str() {
            "mqsim" => Ok(Format::Mqsim),
            "msr" => Ok(Format::Msr),
            "disksim" => Ok(Format::Disksim),
            "ssdsim" => Ok(Format::Ssdsim),
            _ => Err(Error::Invalid(format!(
                "unknown output trace format `{s}`; formats that can be written: {}",
                Self::NAMES.join(", ")
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Mqsim => "mqsim",
            Format::Msr => "msr",
            Format::Disksim => "disksim",
            Format::Ssdsim => "ssdsim",
        }
    }

    /// The reader format that reads this output back.
    pub fn reader(self) -> TraceFormat {
        match self {
            Format::Mqsim => TraceFormat::Mqsim,
            Format::Msr => TraceFormat::Msr,
            Format::Disksim => TraceFormat::Disksim,
            Format::Ssdsim => TraceFormat::Ssdsim,
        }
    }

    /// The writer of a reader format, if there is one.
    pub fn of(format: TraceFormat) -> Result<Format> {
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.reader() == format)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "traces cannot be written in the {} format; formats that can be written: {}",
                    format.name(),
                    Format::NAMES.join(", ")
                ))
            })
    }
}

/// What to do with a time the format cannot hold exactly (MSR only: a time
/// that is not a multiple of 100 ns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimeRounding {
    /// Refuse it: an [`Error::Invalid`] naming the record.
    #[default]
    Exact,
    /// Round it down to the format's resolution, and count it in
    /// [`WriteSummary::rounded_times`].
    Floor,
}

/// Options of the writers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Device (MQSim, DiskSim) or disk (MSR) number written on every line.
    pub device: u32,
    /// MSR `Hostname` field (no comma, no line break, not empty).
    pub hostname: String,
    /// Times the format cannot hold exactly.
    pub time_rounding: TimeRounding,
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions {
            device: 0,
            hostname: "ssdlab".to_string(),
            time_rounding: TimeRounding::Exact,
        }
    }
}

/// What a write did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WriteSummary {
    /// Records written.
    pub records: u64,
    /// Records whose time was rounded down ([`TimeRounding::Floor`]).
    pub rounded_times: u64,
    /// Largest amount a time was rounded down by, ns.
    pub max_rounding_ns: u64,
}

/// Write `records` in `format` with the default [`WriteOptions`] to `out`.
pub fn write<I, W>(records: I, format: Format, out: W) -> Result<WriteSummary>
where
    I: IntoIterator,
    I::Item: IntoRecord,
    W: Write,
{
    write_with(records, format, &WriteOptions::default(), out)
}

/// Write `records` in `format` to `out`. Errors name the record's 1-based
/// position; on error, what was written before it stays written.
pub fn write_with<I, W>(
    records: I,
    format: Format,
    options: &WriteOptions,
    out: W,
) -> Result<WriteSummary>
where
    I: IntoIterator,
    I::Item: IntoRecord,
    W: Write,
{
    let mut buf = BufWriter::with_capacity(BUF_BYTES, out);
    let name = Path::new("<output>");
    let summary = write_lines(records, format, options, &mut buf, name)?;
    buf.flush().map_err(|e| Error::io(name, e))?;
    Ok(summary)
}

/// Write `records` in `format` to the file at `path`, gzip-compressed if the
/// path ends in `.gz`, as an [`OutputFile`](crate::output::OutputFile): the
/// file appears only when complete, a pipe or a device is written in place
/// (see the [module documentation](self)); errors name the path.
pub fn write_file<I>(
    records: I,
    format: Format,
    options: &WriteOptions,
    path: &Path,
) -> Result<WriteSummary>
where
    I: IntoIterator,
    I::Item: IntoRecord,
{
    let gzip = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().to_ascii_lowercase().ends_with(".gz"));
    let file = crate::output::OutputFile::create(path)?;
    let named = |e: Error| match e {
        Error::Io { cause, .. } => Error::io(path, cause),
        other => prefix(path, other),
    };
    if gzip {
        let mut enc =
            BufWriter::with_capacity(BUF_BYTES, GzEncoder::new(file, Compression::default()));
        let s = write_lines(records, format, options, &mut enc, path).map_err(named)?;
        let enc = enc
            .into_inner()
            .map_err(|e| Error::io(path, e.into_error()))?;
        let file = enc.finish().map_err(|e| Error::io(path, e))?;
        file.finish()?;
        Ok(s)
    } else {
        let mut out = BufWriter::with_capacity(BUF_BYTES, file);
        let s = write_lines(records, format, options, &mut out, path).map_err(named)?;
        let file = out
            .into_inner()
            .map_err(|e| Error::io(path, e.into_error()))?;
        file.finish()?;
        Ok(s)
    }
}

/// Name the file in an [`Error::Invalid`] about a record.
fn prefix(path: &Path, e: Error) -> Error {
    match e {
        Error::Invalid(msg) => Error::Invalid(format!("{}: {msg}", path.display())),
        other => other,
    }
}

/// Validate and write every record; `name` names the output in I/O errors.
fn write_lines<I, W>(
    records: I,
    format: Format,
    options: &WriteOptions,
    out: &mut W,
    name: &Path,
) -> Result<WriteSummary>
where
    I: IntoIterator,
    I::Item: IntoRecord,
    W: Write,
{
    if format == Format::Msr {
        let h = &options.hostname;
        if h.is_empty() || h.contains([',', '\n', '\r']) {
            return Err(Error::Invalid(format!(
                "MSR hostname `{h}` must be non-empty and hold no comma or line break"
            )));
        }
    }
    let mut summary = WriteSummary::default();
    let mut prev_time: Option<u64> = None;
    let mut line: Vec<u8> = Vec::with_capacity(128);
    for item in records {
        let r = item.into_record()?;
        let n = summary.records + 1;
        if n.is_multiple_of(1 << 16) && crate::interrupt::poll() {
            return Err(Error::Interrupted(format!(
                "while writing {} (after {} records)",
                name.display(),
                summary.records
            )));
        }
        check(&r, n, format, prev_time)?;
        prev_time = Some(r.time_ns);
        line.clear();
        match format {
            // Five numbers: time, device, first sector, sectors, 0 = write /
            // 1 = read (DiskSim's flags bit 0). Only the time's unit differs.
            Format::Mqsim | Format::Ssdsim | Format::Disksim => {
                if format == Format::Disksim {
                    push_u64(&mut line, r.time_ns / 1_000_000);
                    line.push(b'.');
                    push_padded(&mut line, r.time_ns % 1_000_000, 6);
                } else {
                    push_u64(&mut line, r.time_ns);
                }
                line.push(b' ');
                push_u64(&mut line, options.device as u64);
                line.push(b' ');
                push_u64(&mut line, r.offset / SECTOR_BYTES);
                line.push(b' ');
                push_u64(&mut line, r.size / SECTOR_BYTES);
                line.extend_from_slice(match r.op {
                    Op::Write | Op::Trim => b" 0\n",
                    Op::Read => b" 1\n",
                });
            }
            Format::Msr => {
                let rest = r.time_ns % MSR_NS_PER_TICK;
                if rest != 0 {
                    match options.time_rounding {
                        TimeRounding::Exact => {
                            return Err(record_error(
                                &r,
                                n,
                                format,
                                format!(
                                    "time {} ns is not a multiple of the 100 ns MSR tick \
                                     (round it down with TimeRounding::Floor)",
                                    r.time_ns
                                ),
                            ))
                        }
                        TimeRounding::Floor => {
                            summary.rounded_times += 1;
                            summary.max_rounding_ns = summary.max_rounding_ns.max(rest);
                        }
                    }
                }
                // check() keeps the sum at or below u64::MAX / 100
                push_u64(&mut line, MSR_EPOCH_TICKS + r.time_ns / MSR_NS_PER_TICK);
                line.push(b',');
                line.extend_from_slice(options.hostname.as_bytes());
                line.push(b',');
                push_u64(&mut line, options.device as u64);
                line.extend_from_slice(match r.op {
                    Op::Write | Op::Trim => b",Write,",
                    Op::Read => b",Read,",
                });
                push_u64(&mut line, r.offset);
                line.push(b',');
                push_u64(&mut line, r.size);
                line.extend_from_slice(b",0\n");
            }
        }
        out.write_all(&line).map_err(|e| Error::io(name, e))?;
        summary.records = n;
    }
    Ok(summary)
}

/// What every reader requires, and the format's own unit constraints.
fn check(r: &IoRecord, n: u64, format: Format, prev_time: Option<u64>) -> Result<()> {
    let bad = |msg: String| Err(record_error(r, n, format, msg));
    if r.op == Op::Trim {
        return bad(format!(
            "{} has no discard records; convert without replaying trims",
            format.name()
        ));
    }
    if r.size == 0 {
        return bad("size is 0; sizes must be positive".into());
    }
    if r.offset >= MAX_END_BYTES
        || r.offset
            .checked_add(r.size)
            .is_none_or(|e| e > MAX_END_BYTES)
    {
        return bad("the request ends beyond 2^63 bytes, which no reader accepts".into());
    }
    if let Some(p) = prev_time {
        if r.time_ns < p {
            return bad(format!(
                "time {} ns is before the previous record's ({p} ns); traces must be in time order",
                r.time_ns
            ));
        }
    }
    if format == Format::Msr && r.time_ns > MSR_MAX_TIME_NS {
        return bad(format!(
            "time {} ns is after {MSR_MAX_TIME_NS} ns, the latest an MSR timestamp can hold \
             (its 100 ns ticks from 1601 must count in 64-bit nanoseconds)",
            r.time_ns
        ));
    }
    if matches!(format, Format::Mqsim | Format::Ssdsim | Format::Disksim) {
        if !r.offset.is_multiple_of(SECTOR_BYTES) {
            return bad(format!(
                "offset {} bytes is not a multiple of the 512-byte sectors {} counts in",
                r.offset,
                format.name()
            ));
        }
        if !r.size.is_multiple_of(SECTOR_BYTES) {
            return bad(format!(
                "size {} bytes is not a multiple of the 512-byte sectors {} counts in",
                r.size,
                format.name()
            ));
        }
    }
    Ok(())
}

fn record_error(r: &IoRecord, n: u64, format: Format, msg: String) -> Error {
    let op = match r.op {
        Op::Read => "read",
        Op::Write => "write",
        Op::Trim => "trim",
    };
    Error::Invalid(format!(
        "record {n} ({op} of {} bytes at offset {}, time {} ns) cannot be written as {}: {msg}",
        r.size,
        r.offset,
        r.time_ns,
        format.name()
    ))
}

/// Append `v` in decimal.
fn push_u64(line: &mut Vec<u8>, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    line.extend_from_slice(&digits[i..]);
}

/// Append `v` (< 10^width) in decimal with leading zeros to `width` digits.
fn push_padded(line: &mut Vec<u8>, mut v: u64, width: usize) {
    let start = line.len();
    line.resize(start + width, b'0');
    for i in (start..start + width).rev() {
        line[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(time_ns: u64, op: Op, offset: u64, size: u64) -> IoRecord {
        IoRecord::new(time_ns, op, offset, size)
    }

    fn text(records: &[IoRecord], format: Format) -> String {
        let mut out = Vec::new();
        write(records, format, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn lines_in_each_format() {
        let recs = [
            rec(938_513_000, Op::Write, 264_719_034 * 512, 16 * 512),
            rec(1_000_000_001, Op::Read, 0, 512),
        ];
        assert_eq!(
            text(&recs, Format::Mqsim),
            "938513000 0 264719034 16 0\n1000000001 0 0 1 1\n"
        );
        assert_eq!(
            text(&recs, Format::Disksim),
            "938.513000 0 264719034 16 0\n1000.000001 0 0 1 1\n"
        );
        let msr = [rec(0, Op::Read, 3, 5), rec(12_345_600, Op::Write, 4096, 1)];
        assert_eq!(
            text(&msr, Format::Msr),
            "116444736000000000,ssdlab,0,Read,3,5,0\n\
             116444736000123456,ssdlab,0,Write,4096,1,0\n"
        );
    }

    #[test]
    fn digits() {
        let mut v = Vec::new();
        for x in [0, 7, 10, 999, u64::MAX] {
            v.clear();
            push_u64(&mut v, x);
            assert_eq!(String::from_utf8(v.clone()).unwrap(), x.to_string());
        }
        v.clear();
        push_padded(&mut v, 42, 6);
        assert_eq!(v, b"000042");
    }
}
