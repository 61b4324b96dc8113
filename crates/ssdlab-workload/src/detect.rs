//! Deciding a trace's format from a sample of its lines.
//!
//! The file is decompressed first if it is gzip or zstd. Detection has two
//! steps.
//!
//! **Shape.** The first non-blank line (blkparse's `Input file … added` lines
//! aside) names the candidates:
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
//! | mqsim, disksim, linnos | 5 whitespace-separated numbers (see below) |
//!
//! A CSV header line also decides, by its first field and field count:
//! `Timestamp` with 7 fields is msr, with 6 systor, with 5 tencent;
//! `device_id` (5 fields) is alibaba; `ASU` (5 or more) is spc. Any other
//! header-like line (first field starting with a letter) is skipped and the
//! next line decides. A line that fits no format is an [`Error::Invalid`]
//! quoting it and listing the known formats; one that fits several
//! comma-separated formats is an [`Error::Invalid`] naming them.
//!
//! **Sample.** Up to [`SAMPLE_LINES`] non-blank lines are then read by each
//! candidate's own parser, and what the records would be is scored. Five
//! whitespace-separated numbers fit three formats that differ only in units
//! (MQSim and SSDSim are one layout with one meaning, reported as `mqsim`):
//!
//! | format | time | offset and size | type |
//! |---|---|---|---|
//! | mqsim (ssdsim) | integer ns | 512 B sectors | 0 write, 1 read |
//! | disksim | ms, written with a decimal point | 512 B sectors | flags, bit 0 read |
//! | linnos | ms, written with a decimal point | bytes | 1 read, 0 write |
//!
//! Evidence against a candidate is *hard* (it rules the candidate out) or
//! *soft* (it only says the candidate is unusual):
//!
//! - times with a decimal point rule out mqsim (hard); integer times are
//!   unusual for the millisecond formats (soft);
//! - a mean gap between requests of less than 100 ns (more than ten million
//!   requests a second) or more than 60 s rules that reading of the times out
//!   (hard);
//! - an offset or size that is not a multiple of 512 rules out byte units
//!   (hard): block traces in bytes address whole sectors; when every offset
//!   and size is a multiple of 512, sector units would make every request a
//!   multiple of 256 KiB at 256 KiB boundaries, which rules them out from
//!   [`ALIGNED_RECORDS`] records on (hard); below that, both units are
//!   unusual (soft), and detection refuses to choose;
//! - a median request larger than 16 MiB rules that reading out (hard);
//! - lines the candidate's parser rejects rule it out unless every other
//!   candidate is ruled out too (the reader then reports the line).
//!
//! The candidate left without evidence against it is chosen; if several are
//! left, or none, detection is refused with each candidate's evidence and how
//! to name the format. The choice and its reasons ([`Detection`]) go in the
//! run's result. Detection does not check every record: the reader does.

use std::path::Path;

use super::input::{is_decimal, is_u64, quote, split_trimmed, split_whitespace, At, LineReader};
use super::reader::{LineFormat, Parsed, Raw};
use super::{TraceFormat, TraceOptions};
use crate::error::{Error, Result};

/// How many characters of an unrecognised line an error quotes.
const QUOTE_CHARS: usize = 80;

/// Most non-blank lines a detection reads.
pub const SAMPLE_LINES: usize = 1000;

/// From this many records on, offsets and sizes that are all multiples of
/// 512 rule out sector units.
pub const ALIGNED_RECORDS: usize = 16;

/// Plausible mean gaps between requests, ns: 100 ns (ten million requests a
/// second) to 60 s.
const GAP_NS: (f64, f64) = (100.0, 60e9);

/// Largest plausible median request, bytes.
const MEDIAN_BYTES: u64 = 16 << 20;

/// A detected format and why it was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detection {
    pub format: TraceFormat,
    /// Non-blank lines read.
    pub sample_lines: usize,
    /// Of those, records the chosen format read.
    pub sample_records: usize,
    /// Why: the shape, the evidence for it and against the other candidates,
    /// what the sample looks like.
    pub reasons: Vec<String>,
}

/// Formats that detection can return, with their shape, for messages.
fn known() -> String {
    TraceFormat::ALL
        .iter()
        .map(|f| format!("{} ({})", f.name(), f.layout()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The format of the trace at `path` (plain, gzip or zstd); see
/// [`explain`].
pub fn detect(path: &Path) -> Result<TraceFormat> {
    explain(path).map(|d| d.format)
}

/// Decide the format of the trace at `path` (plain, gzip or zstd), with the
/// reasons.
///
/// Errors: [`Error::Io`] if the file cannot be read; [`Error::Invalid`] if it
/// is empty, not text, of no known format, or ambiguous.
pub fn explain(path: &Path) -> Result<Detection> {
    let mut lines = LineReader::open(path)?;
    let not_text = |e: Error| match e {
        Error::Parse { line, msg, .. } => Error::Invalid(format!(
            "cannot detect the trace format of {}: line {line}: {msg}; known formats: {}",
            path.display(),
            known()
        )),
        other => other,
    };
    // The sample: non-blank lines from the top.
    let mut sample: Vec<(u64, String)> = Vec::new();
    while sample.len() < SAMPLE_LINES {
        match lines.next_line() {
            Ok(Some((n, text))) => {
                if !text.trim().is_empty() {
                    sample.push((n, text.to_string()));
                }
            }
            Ok(None) => break,
            // text that is not UTF-8 after the first line: the reader
            // reports it where it is
            Err(_) if sample.iter().any(|(_, t)| !is_preamble(t)) => break,
            Err(e) => return Err(not_text(e)),
        }
    }
    let (candidates, shape) = shape(path, &sample)?;
    if candidates.len() == 1 {
        let format = candidates[0];
        let s = sampled(format, path, &sample);
        let mut reasons = vec![shape];
        reasons.push(s.describe(format, sample.len()));
        if s.errors > 0 {
            reasons.push(format!(
                "{} of the {} lines read do not parse as {} (first: {}); the reader stops at the \
                 first such line unless told to skip them",
                s.errors,
                sample.len(),
                format.name(),
                s.first_error.as_deref().unwrap_or("")
            ));
        }
        return Ok(Detection {
            format,
            sample_lines: sample.len(),
            sample_records: s.raws.len(),
            reasons,
        });
    }
    five_numbers(path, &sample, shape)
}

/// A line that comes before a trace's records without being one.
fn is_preamble(text: &str) -> bool {
    text.trim_start().starts_with("Input file ")
}

/// The candidates the shape of the first lines allows, and a sentence
/// saying why.
fn shape(path: &Path, sample: &[(u64, String)]) -> Result<(Vec<TraceFormat>, String)> {
    let mut skipped_header: Option<(u64, &str)> = None;
    for (n, text) in sample {
        if is_preamble(text) {
            continue;
        }
        if skipped_header.is_none() {
            if let Some(f) = header_format(text) {
                let (first, count) = split_trimmed::<1>(text, ',');
                return Ok((
                    vec![f],
                    format!(
                        "line {n} is a {} header (first field `{}`, {count} fields)",
                        f.name(),
                        first[0]
                    ),
                ));
            }
        }
        let candidates = line_formats(text);
        match candidates.as_slice() {
            [] if skipped_header.is_none() && is_header_like(text) => {
                skipped_header = Some((*n, text));
            }
            [] => {
                return Err(match skipped_header {
                    Some((line, header)) => unknown(path, line, header),
                    None => unknown(path, *n, text),
                })
            }
            [TraceFormat::Mqsim] => {
                return Ok((
                    vec![
                        TraceFormat::Mqsim,
                        TraceFormat::Disksim,
                        TraceFormat::Linnos,
                    ],
                    format!(
                        "line {n} is five whitespace-separated numbers, which mqsim (ssdsim), \
                         disksim and linnos all write"
                    ),
                ));
            }
            [f] => {
                return Ok((
                    vec![*f],
                    format!("line {n} has the shape of {}: {}", f.name(), f.layout()),
                ))
            }
            many => {
                let names: Vec<_> = many.iter().map(|f| f.name()).collect();
                return Err(Error::Invalid(format!(
                    "cannot detect the trace format of {}: line {n} {} fits several formats \
                     ({}); name the format explicitly (--trace-format NAME)",
                    path.display(),
                    quote(text.trim(), QUOTE_CHARS),
                    names.join(", ")
                )));
            }
        }
    }
    Err(match skipped_header {
        Some((line, text)) => unknown(path, line, text),
        None => Error::Invalid(format!(
            "cannot detect the trace format of {}: the file has no records \
             (it is empty or holds only blank lines)",
            path.display()
        )),
    })
}

fn unknown(path: &Path, line: u64, text: &str) -> Error {
    Error::Invalid(format!(
        "cannot detect the trace format of {}: line {line} {} matches no known format; \
         known formats: {}; a trace in any other layout with one request per line replays \
         once its columns are described in a format spec (a small TOML file, or its keys \
         inline): --trace-format SPEC (README.md, \"Describing a trace format\")",
        path.display(),
        quote(text.trim(), QUOTE_CHARS),
        known()
    ))
}

/// What a candidate's parser made of the sample.
#[derive(Default)]
struct Sampled {
    raws: Vec<Raw>,
    errors: usize,
    first_error: Option<String>,
}

fn sample_with<F: LineFormat>(path: &Path, lines: &[(u64, String)]) -> Sampled {
    let mut f = F::new(&TraceOptions::default());
    let mut s = Sampled::default();
    for (n, text) in lines {
        match f.parse(At::new(path, *n), text) {
            Ok(Parsed::Io(raw)) => s.raws.push(raw),
            Ok(_) => {}
            Err(e) => {
                s.errors += 1;
                if s.first_error.is_none() {
                    s.first_error = Some(match e {
                        Error::Parse {
                            line, field, msg, ..
                        } => {
                            format!("line {line}, field `{field}`: {msg}")
                        }
                        other => other.to_string(),
                    });
                }
            }
        }
    }
    s
}

/// The sample as `format`'s parser reads it.
fn sampled(format: TraceFormat, path: &Path, lines: &[(u64, String)]) -> Sampled {
    use super::*;
    match format {
        TraceFormat::Msr => sample_with::<msr::MsrFormat>(path, lines),
        TraceFormat::Spc => sample_with::<spc::SpcFormat>(path, lines),
        TraceFormat::Msprod => sample_with::<msprod::MsprodFormat>(path, lines),
        TraceFormat::Systor => sample_with::<systor::SystorFormat>(path, lines),
        TraceFormat::Alibaba => sample_with::<alibaba::AlibabaFormat>(path, lines),
        TraceFormat::Tencent => sample_with::<tencent::TencentFormat>(path, lines),
        TraceFormat::Blkparse => sample_with::<blkparse::BlkparseFormat>(path, lines),
        TraceFormat::Disksim => sample_with::<disksim::DisksimFormat>(path, lines),
        TraceFormat::Mqsim => sample_with::<mqsim::MqsimFormat>(path, lines),
        TraceFormat::Ssdsim => sample_with::<ssdsim::SsdsimFormat>(path, lines),
        TraceFormat::Linnos => sample_with::<linnos::LinnosFormat>(path, lines),
        TraceFormat::Custom | TraceFormat::Auto => Sampled::default(),
    }
}

/// `n` bytes as KiB, MiB or bytes, for reasons.
fn bytes(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

/// `ns` as a duration, for reasons.
fn duration(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.3} us", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}

impl Sampled {
    /// Mean gap between arrivals, ns (None below two records or with one
    /// time only).
    fn mean_gap_ns(&self) -> Option<f64> {
        let n = self.raws.len();
        let lo = self.raws.iter().map(|r| r.time_ns).min()?;
        let hi = self.raws.iter().map(|r| r.time_ns).max()?;
        (n >= 2 && hi > lo).then(|| (hi - lo) as f64 / (n - 1) as f64)
    }

    fn median_size(&self) -> Option<u64> {
        let mut v: Vec<u64> = self.raws.iter().map(|r| r.size).collect();
        v.sort_unstable();
        v.get(v.len() / 2).copied()
    }

    /// Records whose offset or size is not a multiple of 512 bytes.
    fn unaligned(&self) -> usize {
        self.raws
            .iter()
            .filter(|r| r.offset % 512 != 0 || r.size % 512 != 0)
            .count()
    }

    /// Times that go back from one record to the next.
    fn backwards(&self) -> usize {
        self.raws
            .windows(2)
            .filter(|w| w[1].time_ns < w[0].time_ns)
            .count()
    }

    /// One sentence: what the records of the sample are like.
    fn describe(&self, format: TraceFormat, lines: usize) -> String {
        let n = self.raws.len();
        let mut s = format!("{lines} lines read as {}: {n} records", format.name());
        if n == 0 {
            return s;
        }
        if let Some(g) = self.mean_gap_ns() {
            s.push_str(&format!(", a mean gap of {} between arrivals", duration(g)));
        }
        match self.backwards() {
            0 => s.push_str(", times in order"),
            b => s.push_str(&format!(", {b} times going back")),
        }
        if let Some(m) = self.median_size() {
            s.push_str(&format!(", median size {}", bytes(m)));
        }
        s
    }
}

/// Evidence about one candidate of the five-number family.
struct Judged {
    format: TraceFormat,
    sampled: Sampled,
    hard: Vec<String>,
    soft: Vec<String>,
}

/// Choose among mqsim, disksim and linnos on the sample (module
/// documentation).
fn five_numbers(path: &Path, sample: &[(u64, String)], shape: String) -> Result<Detection> {
    let records: Vec<[&str; 5]> = sample
        .iter()
        .filter_map(|(_, t)| {
            let (f, n) = split_whitespace::<5>(t);
            (n == 5).then_some(f)
        })
        .collect();
    let decimal = records
        .iter()
        .filter(|f| f[0].contains(['.', 'e', 'E']))
        .count();
    let mut judged = Vec::new();
    for format in [
        TraceFormat::Mqsim,
        TraceFormat::Disksim,
        TraceFormat::Linnos,
    ] {
        let s = sampled(format, path, sample);
        let mut hard = Vec::new();
        let mut soft = Vec::new();
        let ms = format != TraceFormat::Mqsim;
        let bytes_units = format == TraceFormat::Linnos;
        let n = s.raws.len();
        if !ms && decimal > 0 {
            hard.push(format!(
                "{decimal} of {} times have a decimal point, and MQSim and SSDSim write integer \
                 nanoseconds",
                records.len()
            ));
        } else if ms && decimal == 0 && !records.is_empty() {
            soft.push(
                "every time is an integer, and DiskSim and LinnOS write milliseconds with a \
                 decimal point"
                    .to_string(),
            );
        }
        if let Some(g) = s.mean_gap_ns() {
            let unit = if ms { "milliseconds" } else { "nanoseconds" };
            if g < GAP_NS.0 {
                hard.push(format!(
                    "read as {unit}, requests would arrive {} apart on average (more than ten \
                     million a second)",
                    duration(g)
                ));
            } else if g > GAP_NS.1 {
                hard.push(format!(
                    "read as {unit}, requests would arrive {} apart on average",
                    duration(g)
                ));
            }
        }
        let unaligned = s.unaligned();
        if bytes_units && unaligned > 0 {
            hard.push(format!(
                "{unaligned} of {n} records have an offset or size that is not a multiple of \
                 512, which byte addresses of a block trace would be"
            ));
        }
        if bytes_units && unaligned == 0 && n > 0 && n < ALIGNED_RECORDS {
            soft.push(format!(
                "only {n} records, too few to tell bytes from 512-byte sectors \
                 ({ALIGNED_RECORDS} would)"
            ));
        }
        if !bytes_units && n > 0 {
            // Sector units: the columns themselves are all multiples of 512.
            let all_aligned = s
                .raws
                .iter()
                .all(|r| (r.offset / 512) % 512 == 0 && (r.size / 512) % 512 == 0);
            if all_aligned {
                let msg = format!(
                    "every offset and size of the {n} records is a multiple of 512: in 512-byte \
                     sectors every request would be a multiple of 256 KiB at a 256 KiB boundary"
                );
                if n >= ALIGNED_RECORDS {
                    hard.push(msg);
                } else {
                    soft.push(format!(
                        "{msg} (too few records to rule sectors out: {ALIGNED_RECORDS} would)"
                    ));
                }
            }
        }
        if let Some(m) = s.median_size() {
            if m > MEDIAN_BYTES {
                hard.push(format!("the median request would be {}", bytes(m)));
            }
        }
        judged.push(Judged {
            format,
            sampled: s,
            hard,
            soft,
        });
    }
    // Candidates without hard evidence; failing that, those whose only
    // fault is lines their parser rejects (the reader reports them).
    let clean: Vec<&Judged> = judged
        .iter()
        .filter(|j| j.hard.is_empty() && j.sampled.errors == 0)
        .collect();
    let pool: Vec<&Judged> = if clean.is_empty() {
        judged
            .iter()
            .filter(|j| j.hard.is_empty() && j.sampled.raws.len() + j.sampled.errors > 0)
            .collect()
    } else {
        clean
    };
    let best: Vec<&&Judged> = pool.iter().filter(|j| j.soft.is_empty()).collect();
    let chosen = match (best.as_slice(), pool.as_slice()) {
        ([one], _) => *one,
        ([], [one]) => one,
        _ => return Err(refuse(path, &judged, &pool)),
    };
    let mut reasons = vec![shape];
    reasons.push(chosen.sampled.describe(chosen.format, sample.len()));
    for s in &chosen.soft {
        reasons.push(format!("though {s}"));
    }
    if chosen.sampled.errors > 0 {
        reasons.push(format!(
            "{} lines do not parse as {} (first: {}); the reader stops at the first unless told \
             to skip them",
            chosen.sampled.errors,
            chosen.format.name(),
            chosen.sampled.first_error.as_deref().unwrap_or("")
        ));
    }
    for j in &judged {
        if j.format == chosen.format {
            continue;
        }
        let why: Vec<&String> = j.hard.iter().chain(&j.soft).collect();
        if let Some(first) = why.first() {
            reasons.push(format!("not {}: {first}", j.format.name()));
        } else if j.sampled.errors > 0 {
            reasons.push(format!(
                "not {}: {}",
                j.format.name(),
                j.sampled
                    .first_error
                    .as_deref()
                    .unwrap_or("its parser rejects the sample")
            ));
        }
    }
    Ok(Detection {
        format: chosen.format,
        sample_lines: sample.len(),
        sample_records: chosen.sampled.raws.len(),
        reasons,
    })
}

/// The refusal of an ambiguous (or impossible) sample: each candidate's
/// evidence, and how to choose.
fn refuse(path: &Path, judged: &[Judged], pool: &[&Judged]) -> Error {
    let mut lines = Vec::new();
    for j in judged {
        let mut why: Vec<String> = j
            .hard
            .iter()
            .map(|h| format!("rules it out: {h}"))
            .collect();
        why.extend(j.soft.iter().map(|s| format!("unusual: {s}")));
        if j.sampled.errors > 0 {
            why.push(format!(
                "{} lines do not parse (first: {})",
                j.sampled.errors,
                j.sampled.first_error.as_deref().unwrap_or("")
            ));
        }
        if why.is_empty() {
            why.push("nothing against it".to_string());
        }
        lines.push(format!(
            "{} ({}): {}",
            j.format.name(),
            j.format.layout(),
            why.join("; ")
        ));
    }
    let what = if pool.is_empty() {
        "the sample fits none of the formats of its shape".to_string()
    } else {
        format!(
            "the sample fits {} equally well",
            pool.iter()
                .map(|j| j.format.name())
                .collect::<Vec<_>>()
                .join(" and ")
        )
    };
    Error::Invalid(format!(
        "cannot detect the trace format of {}: {what}. {}. Name the format with \
         --trace-format mqsim, disksim or linnos, or describe the layout with a format spec \
         (--trace-format FILE.toml; README.md, \"Describing a trace format\")",
        path.display(),
        lines.join(". ")
    ))
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
