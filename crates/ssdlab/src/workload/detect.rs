//! Guessing a trace's format from its first lines.
//!
//! The first non-blank line decides (decompressed first if the file is
//! gzip): five whitespace-separated integers of which the last is 0 or 1 is
//! MQSim; seven comma-separated fields whose first is an integer is MSR
//! Cambridge CSV, and so is an MSR header line (seven fields, the first
//! `Timestamp` in any case). Anything else is an [`Error::Invalid`] that quotes the line and
//! lists the known formats. Detection looks at shape only: the reader still
//! checks every record.

use std::path::Path;

use super::input::{is_u64, quote, LineReader};
use super::TraceFormat;
use crate::error::{Error, Result};

/// How many characters of an unrecognised line an error quotes.
const QUOTE_CHARS: usize = 80;

/// Formats that detection can return, with their shape, for messages.
const KNOWN: &str = "mqsim (`arrival_ns device lba_sectors size_sectors type`, \
                     whitespace-separated integers, type 0=write 1=read), \
                     msr (`Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`)";

/// Decide the format of the trace at `path` (plain or gzip).
///
/// Errors: [`Error::Io`] if the file cannot be read; [`Error::Invalid`] if it
/// is empty, not text, or of no known format.
pub fn detect(path: &Path) -> Result<TraceFormat> {
    let mut lines = LineReader::open(path)?;
    let not_text = |e: Error| match e {
        Error::Parse { line, msg, .. } => Error::Invalid(format!(
            "cannot detect the trace format of {}: line {line}: {msg}; known formats: {KNOWN}",
            path.display()
        )),
        other => other,
    };
    loop {
        let Some((n, text)) = lines.next_line().map_err(not_text)? else {
            return Err(Error::Invalid(format!(
                "cannot detect the trace format of {}: the file has no records \
                 (it is empty or holds only blank lines)",
                path.display()
            )));
        };
        if text.trim().is_empty() {
            continue;
        }
        if looks_mqsim(text) {
            return Ok(TraceFormat::Mqsim);
        }
        if looks_msr(text) || looks_msr_header(text) {
            return Ok(TraceFormat::Msr);
        }
        return Err(unknown(path, n, text));
    }
}

fn unknown(path: &Path, line: u64, text: &str) -> Error {
    Error::Invalid(format!(
        "cannot detect the trace format of {}: line {line} {} matches no known format; \
         known formats: {KNOWN}",
        path.display(),
        quote(text.trim(), QUOTE_CHARS)
    ))
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

/// Seven comma-separated fields, the first an integer.
pub fn looks_msr(text: &str) -> bool {
    let first = text.split(',').next().unwrap_or("").trim();
    is_u64(first) && text.split(',').count() == 7
}

/// Seven comma-separated fields, the first `Timestamp`.
pub fn looks_msr_header(text: &str) -> bool {
    let first = text.split(',').next().unwrap_or("").trim();
    first.eq_ignore_ascii_case("timestamp") && text.split(',').count() == 7
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
}
