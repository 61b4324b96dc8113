//! MSR Cambridge block traces (SNIA IOTTA, Narayanan et al., FAST 2008).
//!
//! CSV, one request per line, seven fields:
//!
//! ```text
//! Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//! 128166372003061629,web,0,Read,3154152960,4096,1884
//! ```
//!
//! `Timestamp` is a Windows FILETIME (100 ns ticks since 1601), `Offset` and
//! `Size` are bytes, `Type` is `Read` or `Write` (any case), `ResponseTime`
//! is in ticks (checked to be a number, otherwise unused). Fields may be
//! padded with spaces. A header line is optional: the first non-blank line is
//! taken as one if its first field starts with a letter rather than a digit.
//!
//! Times are rebased to the first record kept:
//! `time_ns = (ticks - first_ticks) * 100`. Timestamps must not decrease.
//! Lines holding only whitespace are not records; any other deviation is an
//! [`Error::Parse`](crate::Error::Parse) naming the file, line and field
//! (`record`, `timestamp`, `disk_number`, `type`, `offset`, `size` or
//! `response_time`).

use std::path::{Path, PathBuf};

use super::input::{is_blank, quote, At, LineReader, TimeOrder};
use super::{IoRecord, Op, TraceOptions};
use crate::error::Result;

/// Nanoseconds per FILETIME tick.
pub const NS_PER_TICK: u64 = 100;

/// Number of fields of a record.
const FIELDS: usize = 7;

/// Streaming reader of an MSR Cambridge CSV trace (plain or gzip); yields
/// the records of the selected disk in file order and stops at the first
/// error.
#[derive(Debug)]
pub struct MsrReader {
    lines: LineReader,
    path: PathBuf,
    device: Option<u32>,
    remaining: Option<u64>,
    order: TimeOrder,
    /// Ticks of the first record kept (the time origin).
    first_ticks: Option<u64>,
    /// Whether a non-blank line has been seen (only the first may be a header).
    seen_line: bool,
    done: bool,
}

/// One parsed CSV record before filtering and rebasing.
struct Raw {
    ticks: u64,
    disk: u32,
    op: Op,
    offset: u64,
    size: u64,
}

impl MsrReader {
    /// Open `path` (plain or gzip-compressed) with the given options
    /// (`device` filters on DiskNumber, record `limit`).
    pub fn open(path: &Path, options: &TraceOptions) -> Result<MsrReader> {
        Ok(MsrReader::from_lines(LineReader::open(path)?, options))
    }

    /// Read records from an already open line reader.
    pub fn from_lines(lines: LineReader, options: &TraceOptions) -> MsrReader {
        MsrReader {
            path: lines.path().to_path_buf(),
            lines,
            device: options.device,
            remaining: options.limit,
            order: TimeOrder::default(),
            first_ticks: None,
            seen_line: false,
            done: false,
        }
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Raw FILETIME ticks of the first record kept (known after it is read).
    pub fn first_ticks(&self) -> Option<u64> {
        self.first_ticks
    }

    fn next_record(&mut self) -> Result<Option<IoRecord>> {
        loop {
            let Some((line, text)) = self.lines.next_line()? else {
                return Ok(None);
            };
            if is_blank(text) {
                continue;
            }
            let at = At::new(&self.path, line);
            let first_line = !self.seen_line;
            self.seen_line = true;
            if first_line && is_header(text) {
                check_field_count(at, text)?;
                continue;
            }
            let raw = parse_line(at, text)?;
            self.order.check(at, "timestamp", raw.ticks)?;
            if self.device.is_some() && self.device != Some(raw.disk) {
                continue;
            }
            let first = *self.first_ticks.get_or_insert(raw.ticks);
            let time_ns = raw
                .ticks
                .checked_sub(first)
                .and_then(|d| d.checked_mul(NS_PER_TICK))
                .ok_or_else(|| {
                    at.error(
                        "timestamp",
                        format!(
                            "{} ticks after the first record is too far to count in nanoseconds",
                            raw.ticks.saturating_sub(first)
                        ),
                    )
                })?;
            return Ok(Some(IoRecord {
                time_ns,
                op: raw.op,
                offset: raw.offset,
                size: raw.size,
            }));
        }
    }
}

/// Whether a line looks like the CSV header (its first field starts with a
/// letter).
pub fn is_header(text: &str) -> bool {
    let first = text.split(',').next().unwrap_or("").trim();
    first.starts_with(|c: char| c.is_ascii_alphabetic())
}

/// Split a line into its fields (trimmed); an error unless there are 7.
fn split<'t>(at: At<'_>, text: &'t str) -> Result<[&'t str; FIELDS]> {
    let mut fields = [""; FIELDS];
    let mut count = 0;
    for f in text.split(',') {
        if count < FIELDS {
            fields[count] = f.trim();
        }
        count += 1;
    }
    if count != FIELDS {
        return Err(at.error(
            "record",
            format!(
                "expected {FIELDS} comma-separated fields \
                 (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found {count} in {}",
                quote(text.trim(), 80)
            ),
        ));
    }
    Ok(fields)
}

fn check_field_count(at: At<'_>, text: &str) -> Result<()> {
    split(at, text).map(|_| ())
}

fn parse_line(at: At<'_>, text: &str) -> Result<Raw> {
    let f = split(at, text)?;
    let ticks = at.u64("timestamp", f[0])?;
    let disk = at.u32("disk_number", f[2])?;
    let op = if f[3].eq_ignore_ascii_case("read") {
        Op::Read
    } else if f[3].eq_ignore_ascii_case("write") {
        Op::Write
    } else {
        return Err(at.error(
            "type",
            format!("expected `Read` or `Write`, found {}", quote(f[3], 40)),
        ));
    };
    let offset = at.u64("offset", f[4])?;
    let size = at.u64("size", f[5])?;
    at.u64("response_time", f[6])?;
    at.extent(offset, size, "offset", "size")?;
    Ok(Raw {
        ticks,
        disk,
        op,
        offset,
        size,
    })
}

impl Iterator for MsrReader {
    type Item = Result<IoRecord>;

    fn next(&mut self) -> Option<Result<IoRecord>> {
        if self.done || self.remaining == Some(0) {
            return None;
        }
        match self.next_record() {
            Ok(Some(r)) => {
                if let Some(n) = self.remaining.as_mut() {
                    *n -= 1;
                }
                Some(Ok(r))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &'static str, options: &TraceOptions) -> Vec<Result<IoRecord>> {
        let lines = LineReader::from_reader("t.csv", Box::new(text.as_bytes()));
        MsrReader::from_lines(lines, options).collect()
    }

    #[test]
    fn header_is_optional_and_time_is_rebased() {
        let body = "1000,h,0,Read,4096,512,7\n1010,h,1,write,0,4096,7\n";
        let with = format!("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n{body}");
        let with: &'static str = Box::leak(with.into_boxed_str());
        for text in [body, with] {
            let got: Vec<_> = read(text, &TraceOptions::default())
                .into_iter()
                .map(|r| r.unwrap())
                .collect();
            assert_eq!(
                got,
                vec![
                    IoRecord {
                        time_ns: 0,
                        op: Op::Read,
                        offset: 4096,
                        size: 512
                    },
                    IoRecord {
                        time_ns: 1000,
                        op: Op::Write,
                        offset: 0,
                        size: 4096
                    },
                ]
            );
        }
    }

    #[test]
    fn rebases_to_first_kept_record() {
        let text = "1000,h,0,Read,0,512,7\n1010,h,1,Read,0,512,7\n1030,h,1,Read,0,512,7\n";
        let opts = TraceOptions {
            device: Some(1),
            limit: None,
        };
        let got: Vec<_> = read(text, &opts)
            .into_iter()
            .map(|r| r.unwrap().time_ns)
            .collect();
        assert_eq!(got, vec![0, 2000]);
    }

    #[test]
    fn errors_name_line_and_field() {
        let cases: &[(&'static str, &str)] = &[
            ("1,h,0,Read,0,512\n", ":1: field `record`"),
            (
                "1,h,0,Read,0,512,1\n1,h,0,Trim,0,512,1\n",
                ":2: field `type`",
            ),
            ("1,h,0,Read,0,0,1\n", ":1: field `size`"),
            ("1,h,0,Read,9223372036854775807,2,1\n", ":1: field `size`"),
            ("1,h,0,Read,-5,2,1\n", ":1: field `offset`"),
            ("1,h,0,Read,9223372036854775808,2,1\n", ":1: field `offset`"),
            ("1,h,x,Read,0,2,1\n", ":1: field `disk_number`"),
            ("1,h,0,Read,0,2,1.5\n", ":1: field `response_time`"),
            (
                "5,h,0,Read,0,2,1\n4,h,0,Read,0,2,1\n",
                ":2: field `timestamp`",
            ),
            (
                "1,h,0,Read,0,2,1\nTimestamp,h,0,Read,0,2,1\n",
                ":2: field `timestamp`",
            ),
            ("Timestamp,Hostname\n", ":1: field `record`"),
            ("12a,h,0,Read,0,2,1\n", ":1: field `timestamp`"),
            (
                "0,h,0,Read,0,2,1\n18446744073709551615,h,0,Read,0,2,1\n",
                ":2: field `timestamp`",
            ),
        ];
        for (text, want) in cases {
            let e = read(text, &TraceOptions::default())
                .into_iter()
                .find_map(|r| r.err())
                .expect(text)
                .to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }
}
