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
//! Reading goes through the shared pipeline of [`super::reader`].
//! Lines holding only whitespace are not records; any other deviation is an
//! [`Error::Parse`](crate::Error::Parse) naming the file, line and field
//! (`record`, `timestamp`, `disk_number`, `type`, `offset`, `size` or
//! `response_time`).

use super::input::{quote, At};
use super::reader::{FirstLine, LineFormat, Parsed, Raw, TraceReader};
use super::{Op, TraceFormat, TraceOptions};
use crate::error::Result;

/// Nanoseconds per FILETIME tick.
pub const NS_PER_TICK: u64 = 100;

/// Streaming reader of an MSR Cambridge CSV trace (plain, gzip or zstd).
pub type MsrReader = TraceReader<MsrFormat>;

/// The MSR Cambridge line format: FILETIME ticks (100 ns, absolute:
/// rebased), DiskNumber is the device, Offset and Size in bytes.
#[derive(Debug, Default)]
pub struct MsrFormat {
    first: FirstLine,
}

const MSR_LAYOUT: &str = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";

impl LineFormat for MsrFormat {
    const FORMAT: TraceFormat = TraceFormat::Msr;
    const ABSOLUTE_TIME: bool = true;
    const TIME_FIELD: &'static str = "timestamp";
    const OFFSET_FIELD: &'static str = "offset";
    const SIZE_FIELD: &'static str = "size";

    fn new(_: &TraceOptions) -> Self {
        MsrFormat::default()
    }

    #[inline]
    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
        let Some(f) = self.first.csv::<7>(at, text, MSR_LAYOUT, false)? else {
            return Ok(self.first.skipped());
        };
        let ticks = at.u64("timestamp", f[0])?;
        let time_ns = ticks.checked_mul(NS_PER_TICK).ok_or_else(|| {
            at.error(
                "timestamp",
                format!("{ticks} ticks is too far to count in nanoseconds"),
            )
        })?;
        let device = at.u32("disk_number", f[2])?;
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

    fn read(text: &'static str, options: &TraceOptions) -> Vec<Result<IoRecord>> {
        let lines = LineReader::from_reader("t.csv", Box::new(text.as_bytes()));
        match MsrReader::from_lines(lines, options) {
            Ok(r) => r.collect(),
            Err(e) => vec![Err(e)],
        }
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
                    IoRecord::new(0, Op::Read, 4096, 512),
                    IoRecord::new(1000, Op::Write, 0, 4096),
                ]
            );
        }
    }

    #[test]
    fn rebases_to_first_kept_record() {
        let text = "1000,h,0,Read,0,512,7\n1010,h,1,Read,0,512,7\n1030,h,1,Read,0,512,7\n";
        let opts = TraceOptions {
            device: Some(1),
            ..Default::default()
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
        // strict order, so that a timestamp going back is an error here
        let strict = TraceOptions {
            sort_window: Some(0),
            ..TraceOptions::default()
        };
        for (text, want) in cases {
            let e = read(text, &strict)
                .into_iter()
                .find_map(|r| r.err())
                .expect(text)
                .to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }
}
