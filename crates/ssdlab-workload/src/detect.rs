//! Guessing a trace's format from its first lines.
//!
//! The file is decompressed first if it is gzip or zstd. The first non-blank
//! line (blkparse's `Input file … added` lines aside) decides, by shape:
//!
//! | format | first line |
//! |---|---|
//! | msprod | `BeginHeader`, or a comma-separated row whose first field is a `Disk…` ETW event (`DiskRead`, `DiskWrite`, `DiskFlush`, `DiskReadInit`, …) |
//! | blkparse | at least 7 whitespace-separated fields: `maj,min`, cpu, sequence, `sec.nsec`, pid, … |
//! | msr | 7 comma-separated fields: an integer, any, an integer, a word (`Read`, `Write`) |
//! | spc | 5 or more comma-separated fields: integer, integer, integer, `r`/`R`/`w`/`W`, decimal |
//! | systor | 6 comma-separated fields: decimal, decimal or blank, `R`/`W`/blank, then integers |
//! | alibaba | 5 comma-separated fields: integer, `R`/`W`, then integers |
//! | tencent | 5 comma-separated fields: integer or decimal, integer, integer, `0`/`1`, integer |
//! | mqsim, ssdsim, disksim | 5 whitespace-separated numbers (see below) |
//!
//! A CSV header line also decides, by its first field and field count:
//! `Timestamp` with 7 fields is msr, with 6 systor, with 5 tencent;
//! `device_id` (5 fields) is alibaba; `ASU` (5 or more) is spc. Any other
//! header-like line (first field starting with a letter) is skipped and the
//! next line decides.
//!
//! **MQSim, SSDSim and DiskSim look alike**: five whitespace-separated
//! numbers. MQSim and SSDSim are the same layout with the same meaning
//! (integer ns, 512-byte sectors, 0 = write, 1 = read), so the choice between
//! them does not matter and detection answers `mqsim`. DiskSim differs in
//! its time unit (milliseconds, usually written with a decimal point) and in
//! its flags (bit 0). Detection reads up to [`SAMPLE_LINES`] lines of that
//! shape:
//! - a time with a decimal point means DiskSim (MQSim/SSDSim times are
//!   integers);
//! - otherwise (all times integers) it is MQSim/SSDSim. Large integer times
//!   settle it (10^7 is 10 ms in ns but 2.8 hours in ms); small ones cannot
//!   be told apart by value, and detection follows the formats' conventions
//!   (DiskSim writes milliseconds with a decimal point, MQSim and SSDSim
//!   integer nanoseconds). The command line says what it chose and how, so
//!   an integer-millisecond DiskSim trace is named explicitly.
//!
//! Detection looks at shape only: the reader still checks every record.
//! Anything else is an [`Error::Invalid`] that quotes the line and lists the
//! known formats; a line that fits more than one format is an
//! [`Error::Invalid`] naming the candidates.

use std::path::Path;

use super::input::{is_decimal, is_u64, quote, split_trimmed, split_whitespace, LineReader};
use super::TraceFormat;
use crate::error::{Error, Result};

/// How many characters of an unrecognised line an error quotes.
const QUOTE_CHARS: usize = 80;

/// Most lines read to tell MQSim/SSDSim from DiskSim.
pub const SAMPLE_LINES: usize = 1000;

/// Formats that detection can return, with their shape, for messages.
fn known() -> String {
    TraceFormat::ALL
        .iter()
        .map(|f| format!("{} ({})", f.name(), f.layout()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Decide the format of the trace at `path` (plain, gzip or zstd).
///
/// Errors: [`Error::Io`] if the file cannot be read; [`Error::Invalid`] if it
/// is empty, not text, of no known format, or ambiguous.
pub fn detect(path: &Path) -> Result<TraceFormat> {
    let mut lines = LineReader::open(path)?;
    let not_text = |e: Error| match e {
        Error::Parse { line, msg, .. } => Error::Invalid(format!(
            "cannot detect the trace format of {}: line {line}: {msg}; known formats: {}",
            path.display(),
            known()
        )),
        other => other,
    };
    let mut skipped_header: Option<(u64, String)> = None;
    loop {
        let Some((n, text)) = lines.next_line().map_err(not_text)? else {
            return Err(match skipped_header {
                Some((line, text)) => unknown(path, line, &text),
                None => Error::Invalid(format!(
                    "cannot detect the trace format of {}: the file has no records \
                     (it is empty or holds only blank lines)",
                    path.display()
                )),
            });
        };
        if text.trim().is_empty() || text.trim_start().starts_with("Input file ") {
            continue;
        }
        if skipped_header.is_none() {
            if let Some(f) = header_format(text) {
                return Ok(f);
            }
        }
        let candidates = line_formats(text);
        match candidates.as_slice() {
            [] if skipped_header.is_none() && is_header_like(text) => {
                skipped_header = Some((n, text.to_string()));
            }
            [] => {
                return Err(match skipped_header {
                    Some((line, header)) => unknown(path, line, &header),
                    None => unknown(path, n, text),
                })
            }
            [TraceFormat::Mqsim] => {
                let first = text.to_string();
                return Ok(ascii_units(&first, &mut lines));
            }
            [f] => return Ok(*f),
            many => {
                let names: Vec<_> = many.iter().map(|f| f.name()).collect();
                return Err(Error::Invalid(format!(
                    "cannot detect the trace format of {}: line {n} {} fits several formats \
                     ({}); name the format explicitly",
                    path.display(),
                    quote(text.trim(), QUOTE_CHARS),
                    names.join(", ")
                )));
            }
        }
    }
}

fn unknown(path: &Path, line: u64, text: &str) -> Error {
    Error::Invalid(format!(
        "cannot detect the trace format of {}: line {line} {} matches no known format; \
         known formats: {}",
        path.display(),
        quote(text.trim(), QUOTE_CHARS),
        known()
    ))
}

/// MQSim/SSDSim (integer ns) or DiskSim (ms)? `first` is a line of that
/// shape; up to [`SAMPLE_LINES`] lines are read from `lines`. A fractional
/// time means DiskSim; integer times are MQSim/SSDSim by convention.
fn ascii_units(first: &str, lines: &mut LineReader) -> TraceFormat {
    let mut sampled = 0usize;
    let mut next = Some(first.to_string());
    while let Some(text) = next {
        let (f, _) = split_whitespace::<1>(&text);
        if f[0].contains('.') {
            return TraceFormat::Disksim;
        }
        sampled += 1;
        if sampled >= SAMPLE_LINES {
            break;
        }
        next = next_shaped(lines);
    }
    TraceFormat::Mqsim
}

/// The next non-blank line if it has the five-number shape.
fn next_shaped(lines: &mut LineReader) -> Option<String> {
    loop {
        match lines.next_line() {
            Ok(Some((_, t))) if t.trim().is_empty() => continue,
            Ok(Some((_, t))) if looks_columns5(t) => return Some(t.to_string()),
            _ => return None,
        }
    }
}

/// The formats whose records `text` looks like (`Mqsim` stands for the
/// MQSim/SSDSim/DiskSim family).
pub fn line_formats(text: &str) -> Vec<TraceFormat> {
    type Looks = fn(&str) -> bool;
    let checks: [(TraceFormat, Looks); 8] = [
        (TraceFormat::Msprod, looks_msprod),
        (TraceFormat::Blkparse, looks_blkparse),
        (TraceFormat::Msr, looks_msr_row),
        (TraceFormat::Spc, looks_spc),
        (TraceFormat::Systor, looks_systor),
        (TraceFormat::Alibaba, looks_alibaba),
        (TraceFormat::Tencent, looks_tencent),
        (TraceFormat::Mqsim, looks_columns5),
    ];
    checks
        .iter()
        .filter(|(_, looks)| looks(text))
        .map(|(f, _)| *f)
        .collect()
}

/// The format a CSV header line names, if it is one.
pub fn header_format(text: &str) -> Option<TraceFormat> {
    let (f, n) = split_trimmed::<1>(text, ',');
    let first = f[0].to_ascii_lowercase();
    match (first.as_str(), n) {
        ("timestamp", 7) => Some(TraceFormat::Msr),
        ("timestamp", 6) => Some(TraceFormat::Systor),
        ("timestamp", 5) => Some(TraceFormat::Tencent),
        ("device_id", 5) => Some(TraceFormat::Alibaba),
        ("asu", n) if n >= 5 => Some(TraceFormat::Spc),
        _ => None,
    }
}

/// A line whose first field (comma- or space-separated) starts with a
/// letter and that has several fields: possibly a header.
fn is_header_like(text: &str) -> bool {
    let (f, n) = split_trimmed::<1>(text, ',');
    n >= 2 && f[0].starts_with(|c: char| c.is_ascii_alphabetic())
}

/// Five whitespace-separated integers, the last 0 or 1.
pub fn looks_mqsim(text: &str) -> bool {
    let mut count = 0;
    let mut last = "";
    for f in text.split_ascii_whitespace() {
        if !is_u64(f) {
            return false;
        }
        count += 1;
        last = f;
    }
    count == 5 && (last == "0" || last == "1")
}

/// Five whitespace-separated numbers: a decimal time, then integers (the
/// MQSim / SSDSim / DiskSim shape).
pub fn looks_columns5(text: &str) -> bool {
    let (f, n) = split_whitespace::<5>(text);
    n == 5 && is_decimal(f[0]) && f[1..].iter().all(|x| is_u64(x))
}

/// Seven comma-separated fields, the first an integer.
pub fn looks_msr(text: &str) -> bool {
    let first = text.split(',').next().unwrap_or("").trim();
    is_u64(first) && text.split(',').count() == 7
}

/// An MSR row: seven comma-separated fields, integer timestamp and disk
/// number, a word for the type.
fn looks_msr_row(text: &str) -> bool {
    let (f, n) = split_trimmed::<7>(text, ',');
    n == 7
        && is_u64(f[0])
        && is_u64(f[2])
        && f[3].len() >= 2
        && f[3].bytes().all(|c| c.is_ascii_alphabetic())
}

/// Seven comma-separated fields, the first `Timestamp`.
pub fn looks_msr_header(text: &str) -> bool {
    let first = text.split(',').next().unwrap_or("").trim();
    first.eq_ignore_ascii_case("timestamp") && text.split(',').count() == 7
}

/// `BeginHeader`, or a row of a `Disk…` ETW event.
fn looks_msprod(text: &str) -> bool {
    let trimmed = text.trim();
    if trimmed == "BeginHeader" {
        return true;
    }
    let (f, n) = split_trimmed::<2>(text, ',');
    n >= 3
        && matches!(
            f[0],
            "DiskRead"
                | "DiskWrite"
                | "DiskFlush"
                | "DiskReadInit"
                | "DiskWriteInit"
                | "DiskFlushInit"
        )
}

/// `maj,min cpu seq sec.nsec pid ...`
fn looks_blkparse(text: &str) -> bool {
    let (f, n) = split_whitespace::<5>(text);
    let dev = f[0]
        .split_once(',')
        .is_some_and(|(a, b)| is_u64(a) && is_u64(b));
    let time = f[3]
        .split_once('.')
        .is_some_and(|(s, ns)| is_u64(s) && is_u64(ns));
    n >= 7 && dev && is_u64(f[1]) && is_u64(f[2]) && time && is_u64(f[4])
}

/// `ASU,LBA,Size,Opcode,Timestamp[,...]`
fn looks_spc(text: &str) -> bool {
    let (f, n) = split_trimmed::<5>(text, ',');
    n >= 5
        && is_u64(f[0])
        && is_u64(f[1])
        && is_u64(f[2])
        && matches!(f[3], "r" | "R" | "w" | "W")
        && is_decimal(f[4])
}

/// `Timestamp,Response,IOType,LUN,Offset,Size`
fn looks_systor(text: &str) -> bool {
    let (f, n) = split_trimmed::<6>(text, ',');
    n == 6
        && is_decimal(f[0])
        && (f[1].is_empty() || is_decimal(f[1]))
        && matches!(f[2], "" | "R" | "W" | "r" | "w")
        && f[3..].iter().all(|x| is_u64(x))
}

/// `device_id,opcode,offset,length,timestamp`
fn looks_alibaba(text: &str) -> bool {
    let (f, n) = split_trimmed::<5>(text, ',');
    n == 5
        && is_u64(f[0])
        && matches!(f[1], "R" | "W" | "r" | "w")
        && f[2..].iter().all(|x| is_u64(x))
}

/// `Timestamp,Offset,Size,IOType,VolumeID`
fn looks_tencent(text: &str) -> bool {
    let (f, n) = split_trimmed::<5>(text, ',');
    n == 5
        && is_decimal(f[0])
        && is_u64(f[1])
        && is_u64(f[2])
        && matches!(f[3], "0" | "1")
        && is_u64(f[4])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert!(looks_mqsim("938513000 4 264719034 16 0"));
        assert!(looks_mqsim("1\t2 3  4 1"));
        assert!(!looks_mqsim("1 2 3 4 2"));
        assert!(!looks_mqsim("1 2 3 4"));
        assert!(!looks_mqsim("1 2 3 4 1 6"));
        assert!(!looks_mqsim("1.5 2 3 4 1"));
        assert!(looks_msr(
            "128166372003061629,web,0,Read,3154152960,4096,1884"
        ));
        assert!(looks_msr("1, h ,0, write ,0,1,1"));
        assert!(!looks_msr("x,web,0,Read,3154152960,4096,1884"));
        assert!(!looks_msr("1,web,0,Read,3154152960,4096"));
        assert!(looks_msr_header(
            "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
        ));
        assert!(!looks_msr_header(
            "Time,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
        ));
    }

    #[test]
    fn every_row_shape_names_one_format() {
        let cases = [
            (
                "128166372003061629,web,0,Read,3154152960,4096,1884",
                TraceFormat::Msr,
            ),
            ("0,20941264,8192,W,0.551706", TraceFormat::Spc),
            ("0,20941264,8192,w,0.551706,x,y", TraceFormat::Spc),
            ("BeginHeader", TraceFormat::Msprod),
            (
                "  DiskRead, 8612, System (4), 60, 0xff, 0x10, 0x1000, 283, 0",
                TraceFormat::Msprod,
            ),
            (
                "1456135200.013118000,0.000308000,R,4,5463146496,4096",
                TraceFormat::Systor,
            ),
            (
                "1456135200.013118000,,,4,5463146496,4096",
                TraceFormat::Systor,
            ),
            (
                "0,R,126703644672,4096,1577808000000626",
                TraceFormat::Alibaba,
            ),
            ("1538323200,1124616,16,1,1283", TraceFormat::Tencent),
            (
                "  8,0    3       11     0.009507758   697  D   W 223490 + 8 [kjournald]",
                TraceFormat::Blkparse,
            ),
            (
                "  8,16 0 1 0.000000000 0 m N cfq schedule",
                TraceFormat::Blkparse,
            ),
            ("938513000 4 264719034 16 0", TraceFormat::Mqsim),
            ("12.5 0 2048 16 3", TraceFormat::Mqsim),
        ];
        for (line, want) in cases {
            assert_eq!(line_formats(line), vec![want], "{line}");
        }
        for line in ["hello, world", "1,2,3", "1 2 3 4 x", "0,1,2,3,4"] {
            assert_eq!(line_formats(line), vec![], "{line}");
        }
    }

    #[test]
    fn headers() {
        let cases = [
            (
                "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
                Some(TraceFormat::Msr),
            ),
            (
                "Timestamp,Response,IOType,LUN,Offset,Size",
                Some(TraceFormat::Systor),
            ),
            (
                "Timestamp,Offset,Size,IOType,VolumeID",
                Some(TraceFormat::Tencent),
            ),
            (
                "device_id,opcode,offset,length,timestamp",
                Some(TraceFormat::Alibaba),
            ),
            ("ASU,LBA,Size,Opcode,Timestamp", Some(TraceFormat::Spc)),
            ("Time,Offset,Size,Type", None),
        ];
        for (line, want) in cases {
            assert_eq!(header_format(line), want, "{line}");
        }
    }
}
