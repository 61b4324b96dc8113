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
//!
//! SSDSim traces have the same layout and meaning ([`super::ssdsim`] reuses
//! this parser with SSDSim's field names). Reading goes through the shared
//! pipeline of [`super::reader`] (device filter, time order, options).

use super::input::{quote, split_whitespace, At};
use super::reader::{sectors_to_bytes, LineFormat, Parsed, Raw, TraceReader};
use super::{Op, TraceFormat, TraceOptions};
use crate::error::Result;

/// Bytes per sector in MQSim traces.
pub const SECTOR_BYTES: u64 = 512;

/// Streaming reader of an MQSim trace (plain, gzip or zstd).
pub type MqsimReader = TraceReader<MqsimFormat>;

/// Field names of the five columns, and the layout for messages.
pub(super) struct Columns {
    pub(super) names: [&'static str; 5],
    pub(super) layout: &'static str,
    pub(super) type_msg: &'static str,
}

pub(super) const SSDSIM: Columns = Columns {
    names: ["time_ns", "dev", "lsn", "size", "ope"],
    layout: "time_ns dev lsn size ope",
    type_msg: "expected 1 (read) or 0 (write)",
};

pub(super) const MQSIM: Columns = Columns {
    names: ["time", "device", "lba", "size_sectors", "type"],
    layout: "arrival_time_ns device start_lba size_sectors type",
    type_msg: "expected 0 (write) or 1 (read)",
};

/// Parse one line of the five-column layout MQSim and SSDSim share.
#[inline]
pub(super) fn parse(c: &Columns, at: At<'_>, text: &str) -> Result<Parsed> {
    let (f, n) = split_whitespace::<5>(text);
    at.field_count(n, 5, "whitespace-separated", c.layout, text)?;
    let [time, dev, lba, size, ope] = c.names;
    let time_ns = at.u64(time, f[0])?;
    let device = at.u32(dev, f[1])?;
    let sector = at.u64(lba, f[2])?;
    let sectors = at.u64(size, f[3])?;
    let op = match f[4] {
        "0" => Op::Write,
        "1" => Op::Read,
        other => return Err(at.error(ope, format!("{}, found {}", c.type_msg, quote(other, 40)))),
    };
    let offset = sectors_to_bytes(at, lba, sector)?;
    let bytes = sectors_to_bytes(at, size, sectors)?;
    at.extent(offset, bytes, lba, size)?;
    Ok(Parsed::Io(Raw {
        time_ns,
        device,
        op,
        offset,
        size: bytes,
        preflush: false,
    }))
}

/// The MQSim line format.
#[derive(Debug, Default)]
pub struct MqsimFormat;

impl LineFormat for MqsimFormat {
    const FORMAT: TraceFormat = TraceFormat::Mqsim;
    const ABSOLUTE_TIME: bool = false;
    const TIME_FIELD: &'static str = "time";
    const OFFSET_FIELD: &'static str = "lba";
    const SIZE_FIELD: &'static str = "size_sectors";

    fn new(_: &TraceOptions) -> Self {
        MqsimFormat
    }

    #[inline]
    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
        parse(&MQSIM, at, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::input::LineReader;
    use crate::IoRecord;

    fn read(text: &'static str, options: &TraceOptions) -> Vec<Result<IoRecord>> {
        let lines = LineReader::from_reader("t.trace", Box::new(text.as_bytes()));
        match MqsimReader::from_lines(lines, options) {
            Ok(r) => r.collect(),
            Err(e) => vec![Err(e)],
        }
    }

    #[test]
    fn parses_records() {
        let got = read("10 0 8 16 1\n  \n20 1 0 1 0", &TraceOptions::default());
        let got: Vec<_> = got.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(
            got,
            vec![
                IoRecord::new(10, Op::Read, 4096, 8192),
                IoRecord::new(20, Op::Write, 0, 512),
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
        // strict order, so that a timestamp going back is an error here
        let strict = TraceOptions {
            sort_window: Some(0),
            ..TraceOptions::default()
        };
        for (text, want) in cases {
            let got = read(text, &strict);
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
            ..Default::default()
        };
        let got: Vec<_> = read(text, &opts)
            .into_iter()
            .map(|r| r.unwrap().time_ns)
            .collect();
        assert_eq!(got, vec![1, 3]);
    }
}
