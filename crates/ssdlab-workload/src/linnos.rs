//! LinnOS / FlashNet replayer traces (Hao et al., "LinnOS: Predictability on
//! Unpredictable Flash Storage with a Light Neural Network", OSDI 2020; the
//! FlashNet replayer's `io_replayer.c` reads the same lines).
//!
//! One request per line, five whitespace-separated fields:
//!
//! ```text
//! time_ms  device  offset_bytes  size_bytes  type
//! 12.345   0       1295781888    65536       1
//! ```
//!
//! `time_ms` is the arrival time in milliseconds since the start of the trace
//! (a decimal, converted to ns with the digits beyond the nanosecond
//! dropped), `offset_bytes` and `size_bytes` count **bytes** (not sectors),
//! and `type` is 1 for a read and 0 for a write. The layout looks like
//! DiskSim's and MQSim's (five numbers): only the units differ, which is why
//! detection scores a sample of lines before it chooses ([`super::detect`]).
//!
//! Errors name the field: `record`, `time_ms`, `device`, `offset`, `size` or
//! `type`.

use super::input::{quote, split_whitespace, At};
use super::reader::{LineFormat, Parsed, Raw, TraceReader};
use super::{Op, TraceFormat, TraceOptions};
use crate::error::Result;

/// Streaming reader of a LinnOS / FlashNet trace.
pub type LinnosReader = TraceReader<LinnosFormat>;

/// The LinnOS / FlashNet line format.
#[derive(Debug, Default)]
pub struct LinnosFormat;

const LAYOUT: &str = "time_ms device offset_bytes size_bytes type";

impl LineFormat for LinnosFormat {
    const FORMAT: TraceFormat = TraceFormat::Linnos;
    const ABSOLUTE_TIME: bool = false;
    const TIME_FIELD: &'static str = "time_ms";
    const OFFSET_FIELD: &'static str = "offset";
    const SIZE_FIELD: &'static str = "size";

    fn new(_: &TraceOptions) -> Self {
        LinnosFormat
    }

    #[inline]
    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
        let (f, n) = split_whitespace::<5>(text);
        at.field_count(n, 5, "whitespace-separated", LAYOUT, text)?;
        let time_ns = at.decimal("time_ms", f[0], 6)?;
        let device = at.u32("device", f[1])?;
        let offset = at.u64("offset", f[2])?;
        let size = at.u64("size", f[3])?;
        let op = match f[4] {
            "1" => Op::Read,
            "0" => Op::Write,
            other => {
                return Err(at.error(
                    "type",
                    format!("expected 1 (read) or 0 (write), found {}", quote(other, 40)),
                ))
            }
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::input::LineReader;
    use crate::IoRecord;

    fn read(text: &'static str) -> Vec<Result<IoRecord>> {
        let lines = LineReader::from_reader("t.trace", Box::new(text.as_bytes()));
        match LinnosReader::from_lines(lines, &TraceOptions::default()) {
            Ok(r) => r.collect(),
            Err(e) => vec![Err(e)],
        }
    }

    #[test]
    fn bytes_and_milliseconds() {
        let got: Vec<_> = read("0.131 0 1295781888 65536 1\n1.5 1 4096 4096 0\n")
            .into_iter()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(
            got,
            vec![
                IoRecord {
                    time_ns: 131_000,
                    op: Op::Read,
                    offset: 1_295_781_888,
                    size: 65_536,
                    hint: None,
                },
                IoRecord {
                    time_ns: 1_500_000,
                    op: Op::Write,
                    offset: 4096,
                    size: 4096,
                    hint: None,
                },
            ]
        );
    }

    #[test]
    fn errors_name_the_field() {
        let first_error = |text: &'static str| {
            read(text)
                .into_iter()
                .find_map(|r| r.err())
                .unwrap()
                .to_string()
        };
        let e = first_error("1.0 0 0 4096 2\n");
        assert!(e.contains("t.trace:1: field `type`"), "{e}");
        let e = first_error("1.0 0 0 0 1\n");
        assert!(e.contains("field `size`"), "{e}");
        let e = first_error("1.0 0 0 4096\n");
        assert!(e.contains("field `record`"), "{e}");
    }
}
