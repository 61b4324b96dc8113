//! MQSim ASCII traces (the DiskSim-style format MQSim replays).
//!
//! One request per line, five whitespace-separated integers:
//!
//! ```text
//! arrival_time_ns  device_number  start_lba  size_sectors  type
//! 938513000        4              264719034  16            0
//! ```
//!
//! `start_lba` and `size_sectors` count 512-byte sectors; `type` is 0 for a
//! write and 1 for a read. Times are kept as they are in the trace (not
//! rebased) and must not decrease from one record to the next. Lines holding
//! only whitespace are not records. Every other deviation is an
//! [`Error::Parse`](crate::Error::Parse) naming the file, line and field
//! (`record`, `time`, `device`, `lba`, `size_sectors` or `type`).

use std::path::{Path, PathBuf};

use super::input::{quote, At, LineReader, TimeOrder};
use super::{IoRecord, Op, TraceOptions};
use crate::error::Result;

/// Bytes per sector in MQSim traces.
pub const SECTOR_BYTES: u64 = 512;

/// Number of fields of a record.
const FIELDS: usize = 5;

/// Streaming reader of an MQSim trace (plain or gzip); yields the records of
/// the selected device in file order and stops at the first error.
#[derive(Debug)]
pub struct MqsimReader {
    lines: LineReader,
    path: PathBuf,
    device: Option<u32>,
    remaining: Option<u64>,
    order: TimeOrder,
    done: bool,
}

impl MqsimReader {
    /// Open `path` (plain or gzip-compressed) with the given options
    /// (`device` filter, record `limit`).
    pub fn open(path: &Path, options: &TraceOptions) -> Result<MqsimReader> {
        Ok(MqsimReader::from_lines(LineReader::open(path)?, options))
    }

    /// Read records from an already open line reader.
    pub fn from_lines(lines: LineReader, options: &TraceOptions) -> MqsimReader {
        MqsimReader {
            path: lines.path().to_path_buf(),
            lines,
            device: options.device,
            remaining: options.limit,
            order: TimeOrder::default(),
            done: false,
        }
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next record of the selected device, if any.
    fn next_record(&mut self) -> Result<Option<IoRecord>> {
        loop {
            let Some((line, text)) = self.lines.next_line()? else {
                return Ok(None);
            };
            let at = At::new(&self.path, line);
            if let Some((device, record)) = parse_line(at, text, &mut self.order)? {
                if self.device.is_none() || self.device == Some(device) {
                    return Ok(Some(record));
                }
            }
        }
    }
}

/// Parse one line: `None` for a blank line, else the device and the record.
/// Checks the time order against `order`.
fn parse_line(at: At<'_>, text: &str, order: &mut TimeOrder) -> Result<Option<(u32, IoRecord)>> {
    let mut fields = [""; FIELDS];
    let mut count = 0;
    for f in text.split_ascii_whitespace() {
        if count < FIELDS {
            fields[count] = f;
        }
        count += 1;
    }
    if count == 0 {
        return Ok(None);
    }
    if count != FIELDS {
        return Err(at.error(
            "record",
            format!(
                "expected {FIELDS} whitespace-separated fields \
                 (arrival_time_ns device start_lba size_sectors type), found {count} in {}",
                quote(text.trim(), 80)
            ),
        ));
    }
    let time = at.u64("time", fields[0])?;
    let device = at.u32("device", fields[1])?;
    let lba = at.u64("lba", fields[2])?;
    let sectors = at.u64("size_sectors", fields[3])?;
    let op = match fields[4] {
        "0" => Op::Write,
        "1" => Op::Read,
        other => {
            return Err(at.error(
                "type",
                format!("expected 0 (write) or 1 (read), found {}", quote(other, 40)),
            ))
        }
    };
    let offset = lba
        .checked_mul(SECTOR_BYTES)
        .ok_or_else(|| at.error("lba", format!("start sector {lba} is beyond 2^63 bytes")))?;
    let size = sectors.checked_mul(SECTOR_BYTES).ok_or_else(|| {
        at.error(
            "size_sectors",
            format!("size {sectors} sectors is beyond 2^63 bytes"),
        )
    })?;
    at.extent(offset, size, "lba", "size_sectors")?;
    order.check(at, "time", time)?;
    Ok(Some((
        device,
        IoRecord {
            time_ns: time,
            op,
            offset,
            size,
        },
    )))
}

impl Iterator for MqsimReader {
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
        let lines = LineReader::from_reader("t.trace", Box::new(text.as_bytes()));
        MqsimReader::from_lines(lines, options).collect()
    }

    #[test]
    fn parses_records() {
        let got = read("10 0 8 16 1\n  \n20 1 0 1 0", &TraceOptions::default());
        let got: Vec<_> = got.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(
            got,
            vec![
                IoRecord {
                    time_ns: 10,
                    op: Op::Read,
                    offset: 4096,
                    size: 8192
                },
                IoRecord {
                    time_ns: 20,
                    op: Op::Write,
                    offset: 0,
                    size: 512
                },
            ]
        );
    }

    #[test]
    fn errors_name_line_and_field() {
        let cases: &[(&'static str, &str)] = &[
            ("1 0 0 8 1\n1 0 0 8\n", ":2: field `record`"),
            ("1 0 0 8 2\n", ":1: field `type`"),
            ("1 0 0 0 1\n", ":1: field `size_sectors`"),
            ("1 0 x 8 1\n", ":1: field `lba`"),
            ("1 0 18014398509481984 8 1\n", ":1: field `lba`"),
            ("1 0 36028797018963968 8 1\n", ":1: field `lba`"),
            ("1 0 0 36028797018963968 1\n", ":1: field `size_sectors`"),
            ("1 0 18014398509481983 2 1\n", ":1: field `size_sectors`"),
            ("5 0 0 8 1\n\n4 0 0 8 1\n", ":3: field `time`"),
            ("1 -1 0 8 1\n", ":1: field `device`"),
        ];
        for (text, want) in cases {
            let got = read(text, &TraceOptions::default());
            let e = got.into_iter().find_map(|r| r.err()).expect(text);
            let e = e.to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
        // the largest extent that fits is accepted
        let ok = read("1 0 18014398509481982 2 1\n", &TraceOptions::default());
        assert!(ok[0].is_ok());
    }

    #[test]
    fn filter_and_limit() {
        let text = "1 0 0 8 1\n2 1 0 8 1\n3 0 0 8 1\n4 0 0 8 1\n";
        let opts = TraceOptions {
            device: Some(0),
            limit: Some(2),
        };
        let got: Vec<_> = read(text, &opts)
            .into_iter()
            .map(|r| r.unwrap().time_ns)
            .collect();
        assert_eq!(got, vec![1, 3]);
    }
}
