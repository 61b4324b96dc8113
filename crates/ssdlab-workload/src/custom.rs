//! Trace formats the user describes: a small TOML file (a *format spec*)
//! says how to read a line-per-request trace, so that any such trace replays
//! without code.
//!
//! ```toml
//! # LinnOS / FlashNet replayer traces: `12.345 0 4096 8192 1`
//! name = "linnos"
//! separator = "whitespace"      # or ",", ";", "\t", "|", "comma", "semicolon", "tab", ...
//! skip_lines = 0                # lines at the top that are not records (a header)
//! # skip_until = "start"        # also skip up to and including the first line starting so
//! comment = "#"                 # lines starting with this (or any of a list) are skipped
//!
//! [time]
//! column = 1                    # columns count from 1, as in awk and cut
//! unit = "ms"                   # ns, us, ms, s, or filetime (100 ns ticks)
//! clock = "relative"            # or "absolute": rebased to the first record kept
//!
//! [op]
//! column = 5
//! read = [1]                    # strings or integers, compared case-insensitively
//! write = [0]
//! discard = []                  # counted as discards (trims), not replayed
//! flush = []                    # counted as cache flushes, not replayed
//! ignore = []                   # counted as rows that are not block requests
//! prefix = false                # true: a code matches every value it begins ("W" ~ "WS")
//!
//! [offset]
//! column = 3
//! unit = "bytes"                # bytes, sectors (512 B), pages (4 KiB), kib, mib, or a number of bytes
//!
//! [size]
//! column = 4
//! unit = "bytes"
//!
//! [device]                      # optional
//! column = 2
//! keep = 0                      # optional: the default for --device
//! ```
//!
//! Every key but `name`, `separator` (default whitespace), `skip_lines`,
//! `skip_until`, `comment`, the `op` lists other than `read` and `write`,
//! `op.prefix`, `time.clock` (default relative) and `device` is required;
//! unknown keys are errors. The same tables may be written inline
//! (`time = { column = 1, unit = "ms" }`), and the whole spec may be given
//! on the command line as the body of an inline table (see
//! [`FormatSpec::from_inline`]).
//!
//! **Reading a line.** Blank lines, the first `skip_lines` lines, the lines
//! up to `skip_until` and comment lines are not records. A record is split
//! at the separator — `whitespace` (also `space`) splits at runs of spaces
//! and tabs, any other separator at each occurrence — and each field is
//! trimmed and loses one pair of surrounding double quotes (a separator
//! inside quotes is not supported). The line needs at least as many fields
//! as the largest column named; more are fine.
//!
//! **Values.** Times are non-negative decimals with an optional exponent
//! (`12`, `0.5`, `1.5e-3`), exact down to the nanosecond (finer digits are
//! dropped). Offsets, sizes and devices are non-negative integers (or `0x`
//! hexadecimal); offsets and sizes may be decimals if they come to a whole
//! number of bytes (`1.5` KiB). An operation is matched case-insensitively
//! against the codes of `op`: exactly, or with `prefix = true` by the longest
//! code it begins with. A code may appear in one list only.
//!
//! **Errors.** A malformed spec is an [`Error::Config`] naming the file (or
//! `--trace-format` for an inline spec), the key and the line. A bad trace
//! line is an [`Error::Parse`] naming file, line and field (`record`,
//! `time`, `op`, `offset`, `size` or `device`, with the column in the
//! message). Discards go where the built-in readers' discards go (records
//! with [`Op::Trim`]): counted in `discards`, or replayed as trims with
//! `replay_trims`.

use std::path::Path;
use std::sync::Arc;

use serde::de::{self, Deserializer, Visitor};

use crate::toml_keys::{backticked_after, join_key, key_path, table_at};
use serde::Deserialize;
use toml::Spanned;

use super::input::{quote, At, MAX_END_BYTES};
use super::reader::{LineFormat, Parsed, Raw, TraceReader};
use super::{Op, TraceFormat, TraceOptions};
use crate::error::{Error, Result};

/// Streaming reader of a trace in a described format.
pub type CustomReader = TraceReader<CustomFormat>;

/// How fields are separated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Separator {
    /// Runs of spaces and tabs (leading and trailing ones ignored).
    Whitespace,
    /// Each occurrence of this text.
    Text(String),
}

impl Separator {
    fn describe(&self) -> String {
        match self {
            Separator::Whitespace => "whitespace-separated".to_string(),
            Separator::Text(t) if t == "," => "comma-separated".to_string(),
            Separator::Text(t) if t == ";" => "semicolon-separated".to_string(),
            Separator::Text(t) if t == "\t" => "tab-separated".to_string(),
            Separator::Text(t) => format!("`{t}`-separated"),
        }
    }
}

/// What an operation code means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    /// A discard (trim): counted in `discards`, not replayed.
    Discard,
    /// A cache flush: counted in `flushes`, not replayed.
    Flush,
    /// Not a block request: counted in `non_io`.
    Ignore,
}

impl OpKind {
    fn key(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Discard => "discard",
            OpKind::Flush => "flush",
            OpKind::Ignore => "ignore",
        }
    }
}

/// A described trace format, checked. Columns are 0-based here (1-based in
/// the TOML).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatSpec {
    /// For messages (the file's stem if the spec has no `name`).
    pub name: String,
    pub separator: Separator,
    pub skip_lines: u64,
    pub skip_until: Option<String>,
    pub comments: Vec<String>,
    pub time_column: usize,
    /// Nanoseconds per unit, as `mult × 10^exp10` (FILETIME: 100 × 10^0).
    pub time_mult: u64,
    pub time_exp10: u32,
    pub time_unit: String,
    pub absolute_time: bool,
    pub op_column: usize,
    /// Operation codes, lower-case, longest first.
    pub op_codes: Vec<(String, OpKind)>,
    pub op_prefix: bool,
    pub offset_column: usize,
    pub offset_unit: u64,
    pub size_column: usize,
    pub size_unit: u64,
    pub device_column: Option<usize>,
    /// The default device filter.
    pub keep_device: Option<u32>,
}

impl FormatSpec {
    /// Parse and check a spec; `origin` (usually the file name) names it in
    /// errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<FormatSpec> {
        let spec: SpecToml =
            toml::from_str(text).map_err(|e| toml_error(text, 0, origin, "", &e))?;
        spec.check(&Located {
            text,
            skip: 0,
            origin,
        })
    }

    /// Read, parse and check a spec file.
    pub fn load(path: &Path) -> Result<FormatSpec> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let mut spec = FormatSpec::from_toml(&text, &path.display().to_string())?;
        if spec.name.is_empty() {
            spec.name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
        }
        Ok(spec)
    }

    /// A spec written on one line as the body of a TOML inline table, e.g.
    /// `separator = ",", time = { column = 1, unit = "s" }, op = { column = 2,
    /// read = ["R"], write = ["W"] }, offset = { column = 3, unit = "bytes" },
    /// size = { column = 4, unit = "bytes" }`. Errors name `--trace-format`.
    pub fn from_inline(body: &str) -> Result<FormatSpec> {
        const HEAD: &str = "spec = { ";
        let text = format!("{HEAD}{body} }}\n");
        let origin = "--trace-format";
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Wrapper {
            spec: SpecToml,
        }
        let w: Wrapper = toml::from_str(&text)
            .map_err(|e| toml_error(&text, HEAD.len(), origin, "spec.", &e))?;
        let mut spec = w.spec.check(&Located {
            text: &text,
            skip: HEAD.len(),
            origin,
        })?;
        if spec.name.is_empty() {
            spec.name = "inline".to_string();
        }
        Ok(spec)
    }

    /// The number of fields a record needs.
    pub fn fields_needed(&self) -> usize {
        [
            Some(self.time_column),
            Some(self.op_column),
            Some(self.offset_column),
            Some(self.size_column),
            self.device_column,
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0)
            + 1
    }
}

/// `--trace-format VALUE`: a built-in format name (or `auto`), a format
/// spec file, or an inline spec (text with `=` that is not a file). The
/// spec, if any, goes in [`TraceOptions::format_spec`].
pub fn format_arg(value: &str) -> Result<(TraceFormat, Option<Arc<FormatSpec>>)> {
    let name_error = match TraceFormat::parse(value) {
        Ok(f) => return Ok((f, None)),
        Err(e) => e,
    };
    let path = Path::new(value);
    if path.is_file() {
        return Ok((TraceFormat::Custom, Some(Arc::new(FormatSpec::load(path)?))));
    }
    if value.contains('=') {
        return Ok((
            TraceFormat::Custom,
            Some(Arc::new(FormatSpec::from_inline(value)?)),
        ));
    }
    Err(Error::Invalid(format!(
        "{name_error}; or a format spec: a TOML file (no file `{value}` exists) or an inline \
         spec such as `separator = \",\", time = {{ column = 1, unit = \"s\" }}, ...` \
         (see README.md, \"Describing a trace format\")"
    )))
}

// ----- the TOML form -----

/// A column number as written: 1-based.
#[derive(Clone, Copy, Debug)]
struct Column(usize);

impl<'de> Deserialize<'de> for Column {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Column, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = i64;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a column number (the first field is column 1)")
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> std::result::Result<i64, E> {
                Ok(n)
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> std::result::Result<i64, E> {
                Ok(i64::try_from(n).unwrap_or(i64::MAX))
            }
        }
        let n = d.deserialize_i64(V)?;
        if n < 1 {
            return Err(de::Error::custom(format!(
                "column {n}: columns count from 1 (the first field is column 1, as in awk and cut)"
            )));
        }
        usize::try_from(n - 1)
            .ok()
            .filter(|&c| c < 10_000)
            .map(Column)
            .ok_or_else(|| de::Error::custom(format!("column {n} is too large")))
    }
}

/// A time unit: nanoseconds per unit as `mult × 10^exp10`.
#[derive(Clone, Debug)]
struct TimeUnit {
    mult: u64,
    exp10: u32,
    name: String,
}

impl<'de> Deserialize<'de> for TimeUnit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<TimeUnit, D::Error> {
        let s = String::deserialize(d)?;
        let (mult, exp10) = match s.to_ascii_lowercase().as_str() {
            "ns" => (1, 0),
            "us" | "µs" => (1, 3),
            "ms" => (1, 6),
            "s" => (1, 9),
            "filetime" => (100, 0),
            _ => {
                return Err(de::Error::custom(format!(
                    "unknown time unit `{s}`; expected ns, us, ms, s or filetime \
                     (Windows FILETIME, 100 ns ticks)"
                )))
            }
        };
        Ok(TimeUnit {
            mult,
            exp10,
            name: s,
        })
    }
}

/// An address unit in bytes: a name or a positive number of bytes.
#[derive(Clone, Copy, Debug)]
struct ByteUnit(u64);

impl<'de> Deserialize<'de> for ByteUnit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<ByteUnit, D::Error> {
        struct V;
        const EXPECTED: &str = "bytes, sectors (512 B), pages (4 KiB), kib, mib, or a \
                                positive number of bytes per unit";
        impl Visitor<'_> for V {
            type Value = ByteUnit;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<ByteUnit, E> {
                Ok(ByteUnit(match s.to_ascii_lowercase().as_str() {
                    "b" | "byte" | "bytes" => 1,
                    "sector" | "sectors" | "512" => 512,
                    "page" | "pages" | "4k" | "4kib" => 4096,
                    "kib" | "kb" | "k" => 1024,
                    "mib" | "mb" | "m" => 1 << 20,
                    _ => {
                        return Err(E::custom(format!(
                            "unknown unit `{s}`; expected {EXPECTED}"
                        )))
                    }
                }))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> std::result::Result<ByteUnit, E> {
                if n < 1 {
                    return Err(E::custom(format!(
                        "unit {n}: a unit is a positive number of bytes"
                    )));
                }
                Ok(ByteUnit(n as u64))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> std::result::Result<ByteUnit, E> {
                self.visit_i64(i64::try_from(n).unwrap_or(i64::MAX))
            }
        }
        d.deserialize_any(V)
    }
}

/// An operation code: a string or an integer, kept as lower-case text.
#[derive(Clone, Debug)]
struct Code(String);

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Code, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Code;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an operation code: a string (\"W\") or an integer (0)")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Code, E> {
                let t = s.trim();
                if t.is_empty() {
                    return Err(E::custom("an operation code must not be empty"));
                }
                Ok(Code(t.to_lowercase()))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> std::result::Result<Code, E> {
                Ok(Code(n.to_string()))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> std::result::Result<Code, E> {
                Ok(Code(n.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// `comment`: one prefix or a list.
#[derive(Debug, Default)]
struct Prefixes(Vec<String>);

impl<'de> Deserialize<'de> for Prefixes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Prefixes, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Prefixes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a comment prefix (\"#\") or a list of them")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Prefixes, E> {
                if s.is_empty() {
                    return Err(E::custom("a comment prefix must not be empty"));
                }
                Ok(Prefixes(vec![s.to_string()]))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Prefixes, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    if s.is_empty() {
                        return Err(de::Error::custom("a comment prefix must not be empty"));
                    }
                    v.push(s);
                }
                Ok(Prefixes(v))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Debug, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Clock {
    #[default]
    Relative,
    Absolute,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct SpecToml {
    name: Option<String>,
    separator: Option<Spanned<String>>,
    #[serde(default)]
    skip_lines: u64,
    skip_until: Option<Spanned<String>>,
    #[serde(default)]
    comment: Prefixes,
    time: TimeToml,
    op: OpToml,
    offset: AddrToml,
    size: AddrToml,
    device: Option<DeviceToml>,
}

#[derive(Deserialize, Debug)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with column, unit and optionally clock"
)]
struct TimeToml {
    column: Spanned<Column>,
    unit: TimeUnit,
    #[serde(default)]
    clock: Clock,
}

#[derive(Deserialize, Debug)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with column, read, write and optionally discard, flush, ignore, prefix"
)]
struct OpToml {
    column: Spanned<Column>,
    read: Spanned<Vec<Code>>,
    write: Spanned<Vec<Code>>,
    discard: Option<Spanned<Vec<Code>>>,
    flush: Option<Spanned<Vec<Code>>>,
    ignore: Option<Spanned<Vec<Code>>>,
    #[serde(default)]
    prefix: bool,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, expecting = "a table with column and unit")]
struct AddrToml {
    column: Spanned<Column>,
    unit: ByteUnit,
}

#[derive(Deserialize, Debug)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with column and optionally keep"
)]
struct DeviceToml {
    column: Spanned<Column>,
    keep: Option<u32>,
}

/// The text a spec was parsed from, for errors found after parsing.
struct Located<'a> {
    text: &'a str,
    /// Bytes before the user's text (inline specs are wrapped).
    skip: usize,
    origin: &'a str,
}

impl Located<'_> {
    fn error(&self, key: &str, at: std::ops::Range<usize>, msg: String) -> Error {
        Error::config(
            self.origin,
            key,
            format!("{msg}{}", position(self.text, self.skip, at.start)),
        )
    }
}

impl SpecToml {
    fn check(self, at: &Located<'_>) -> Result<FormatSpec> {
        let separator = match &self.separator {
            None => Separator::Whitespace,
            Some(s) => match s.get_ref().to_ascii_lowercase().as_str() {
                "whitespace" | "space" | "spaces" | " " => Separator::Whitespace,
                "comma" => Separator::Text(",".into()),
                "semicolon" => Separator::Text(";".into()),
                "tab" => Separator::Text("\t".into()),
                "pipe" => Separator::Text("|".into()),
                "colon" => Separator::Text(":".into()),
                "" => {
                    return Err(at.error(
                        "separator",
                        s.span(),
                        "the separator must not be empty; use \"whitespace\" for runs of \
                         spaces and tabs"
                            .into(),
                    ))
                }
                _ => Separator::Text(s.get_ref().clone()),
            },
        };
        if let Some(u) = &self.skip_until {
            if u.get_ref().trim().is_empty() {
                return Err(at.error(
                    "skip_until",
                    u.span(),
                    "must not be empty: it is the start of the last line skipped".into(),
                ));
            }
        }
        // columns: each used once
        let mut columns: Vec<(&str, &Spanned<Column>)> = vec![
            ("time.column", &self.time.column),
            ("op.column", &self.op.column),
            ("offset.column", &self.offset.column),
            ("size.column", &self.size.column),
        ];
        if let Some(d) = &self.device {
            columns.push(("device.column", &d.column));
        }
        for (i, (key, c)) in columns.iter().enumerate() {
            if let Some((other, _)) = columns[..i]
                .iter()
                .find(|(_, o)| o.get_ref().0 == c.get_ref().0)
            {
                return Err(at.error(
                    key,
                    c.span(),
                    format!(
                        "column {} is already `{other}`; each field needs its own column",
                        c.get_ref().0 + 1
                    ),
                ));
            }
        }
        // operation codes: each in one list, read or write not both empty
        let lists = [
            (OpKind::Read, Some(&self.op.read)),
            (OpKind::Write, Some(&self.op.write)),
            (OpKind::Discard, self.op.discard.as_ref()),
            (OpKind::Flush, self.op.flush.as_ref()),
            (OpKind::Ignore, self.op.ignore.as_ref()),
        ];
        let mut codes: Vec<(String, OpKind)> = Vec::new();
        for (kind, list) in lists {
            let Some(list) = list else { continue };
            for code in list.get_ref() {
                if let Some((_, k)) = codes.iter().find(|(c, _)| *c == code.0) {
                    return Err(at.error(
                        &format!("op.{}", kind.key()),
                        list.span(),
                        format!(
                            "code `{}` is already in `op.{}`; a code may mean one thing only",
                            code.0,
                            k.key()
                        ),
                    ));
                }
                codes.push((code.0.clone(), kind));
            }
        }
        if self.op.read.get_ref().is_empty() && self.op.write.get_ref().is_empty() {
            return Err(at.error(
                "op.read",
                self.op.read.span(),
                "`op.read` and `op.write` are both empty: name the codes of reads and writes"
                    .into(),
            ));
        }
        // longest first, so that prefix matching prefers the most specific
        codes.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        Ok(FormatSpec {
            name: self.name.unwrap_or_default(),
            separator,
            skip_lines: self.skip_lines,
            skip_until: self.skip_until.map(|s| s.into_inner()),
            comments: self.comment.0,
            time_column: self.time.column.get_ref().0,
            time_mult: self.time.unit.mult,
            time_exp10: self.time.unit.exp10,
            time_unit: self.time.unit.name,
            absolute_time: self.time.clock == Clock::Absolute,
            op_column: self.op.column.get_ref().0,
            op_codes: codes,
            op_prefix: self.op.prefix,
            offset_column: self.offset.column.get_ref().0,
            offset_unit: self.offset.unit.0,
            size_column: self.size.column.get_ref().0,
            size_unit: self.size.unit.0,
            device_column: self.device.as_ref().map(|d| d.column.get_ref().0),
            keep_device: self.device.and_then(|d| d.keep),
        })
    }
}

/// ` (line L, column C)` of byte `pos` of `text`, whose first `skip` bytes
/// are not the user's.
fn position(text: &str, skip: usize, pos: usize) -> String {
    let pos = pos.min(text.len());
    let before = &text[..pos];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    if skip > 0 {
        format!(" (column {})", col.saturating_sub(skip).max(1))
    } else {
        format!(" (line {line}, column {col})")
    }
}

/// Turn a TOML error into an [`Error::Config`] naming the key and line.
fn toml_error(text: &str, skip: usize, origin: &str, strip: &str, e: &toml::de::Error) -> Error {
    let msg = e.message().trim().replace('\n', " ");
    let span = e.span();
    let named = ["missing field `", "unknown field `"]
        .iter()
        .find_map(|p| backticked_after(&msg, p));
    let key = match (&span, named) {
        (Some(s), Some(field)) if msg.starts_with("missing field") => {
            join_key(&table_at(text, s.start), field)
        }
        (Some(s), Some(_)) => key_path(text, s.start),
        (Some(s), None) => key_path(text, s.start),
        (None, Some(field)) => field.to_string(),
        (None, None) => String::new(),
    };
    let key = key.strip_prefix(strip).unwrap_or(&key).to_string();
    let key = if key.is_empty() || key == strip.trim_end_matches('.') {
        named.map_or_else(|| "toml".to_string(), str::to_string)
    } else {
        key
    };
    let at = span.map_or(String::new(), |s| position(text, skip, s.start));
    Error::config(origin, key, format!("{msg}{at}"))
}

// ----- reading records -----

/// A trace line format described by a [`FormatSpec`] (taken from
/// [`TraceOptions::format_spec`]).
#[derive(Debug)]
pub struct CustomFormat {
    spec: Option<Arc<FormatSpec>>,
    /// Whether `skip_until` has been met.
    started: bool,
    /// Columns wanted: time, op, offset, size, device (usize::MAX: none).
    columns: [usize; 5],
    needed: usize,
}

const NO_COLUMN: usize = usize::MAX;
const NAMES: [&str; 5] = ["time", "op", "offset", "size", "device"];

impl LineFormat for CustomFormat {
    const FORMAT: TraceFormat = TraceFormat::Custom;
    const ABSOLUTE_TIME: bool = false;
    const TIME_FIELD: &'static str = "time";
    const OFFSET_FIELD: &'static str = "offset";
    const SIZE_FIELD: &'static str = "size";

    fn new(options: &TraceOptions) -> Self {
        let spec = options.format_spec.clone();
        let (columns, needed, started) = match &spec {
            Some(s) => (
                [
                    s.time_column,
                    s.op_column,
                    s.offset_column,
                    s.size_column,
                    s.device_column.unwrap_or(NO_COLUMN),
                ],
                s.fields_needed(),
                s.skip_until.is_none(),
            ),
            None => ([NO_COLUMN; 5], 0, true),
        };
        CustomFormat {
            spec,
            started,
            columns,
            needed,
        }
    }

    fn absolute_time(&self) -> bool {
        self.spec.as_ref().is_some_and(|s| s.absolute_time)
    }

    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
        let Some(spec) = self.spec.as_deref() else {
            return Err(Error::Invalid(
                "a described trace format (TraceFormat::Custom) needs \
                 TraceOptions::format_spec"
                    .to_string(),
            ));
        };
        if at.line <= spec.skip_lines {
            return Ok(Parsed::Nothing);
        }
        let trimmed = text.trim_start();
        if !self.started {
            if let Some(until) = &spec.skip_until {
                self.started = trimmed.starts_with(until.as_str());
            }
            return Ok(Parsed::Nothing);
        }
        if spec
            .comments
            .iter()
            .any(|c| trimmed.starts_with(c.as_str()))
        {
            return Ok(Parsed::Nothing);
        }
        let mut f = [""; 5];
        let mut count = 0;
        match &spec.separator {
            Separator::Whitespace => {
                for (i, field) in text.split_ascii_whitespace().enumerate() {
                    place(&mut f, &self.columns, i, field);
                    count += 1;
                }
            }
            Separator::Text(sep) => {
                for (i, field) in text.split(sep.as_str()).enumerate() {
                    place(&mut f, &self.columns, i, field);
                    count += 1;
                }
            }
        }
        if count < self.needed {
            return Err(at.error(
                "record",
                format!(
                    "expected at least {} {} fields (format `{}`: {}), found {count} in {}",
                    self.needed,
                    spec.separator.describe(),
                    spec.name,
                    self.layout(),
                    quote(text.trim(), 80)
                ),
            ));
        }
        let col = |k: usize| self.columns[k] + 1;
        let kind = match_op(spec, f[1]).ok_or_else(|| {
            at.error(
                "op",
                format!(
                    "{} (column {}) is not an operation code of format `{}`; known codes: {}",
                    quote(f[1], 40),
                    col(1),
                    spec.name,
                    codes_list(spec)
                ),
            )
        })?;
        let device = if self.columns[4] == NO_COLUMN {
            0
        } else {
            let d = parse_integer(f[4]).map_err(|m| {
                at.error(
                    "device",
                    format!(
                        "{m} (column {}); devices must be integers (leave out [device] to \
                         read every device as one)",
                        col(4)
                    ),
                )
            })?;
            u32::try_from(d).map_err(|_| {
                at.error(
                    "device",
                    format!(
                        "{d} (column {}) is too large (at most {})",
                        col(4),
                        u32::MAX
                    ),
                )
            })?
        };
        let op = match kind {
            OpKind::Read => Op::Read,
            OpKind::Write => Op::Write,
            OpKind::Discard => Op::Trim,
            OpKind::Flush => return Ok(Parsed::Flush(device)),
            OpKind::Ignore => return Ok(Parsed::NotIo),
        };
        let time_ns = parse_scaled(f[0], spec.time_mult, spec.time_exp10, false, u64::MAX)
            .map_err(|m| {
                at.error(
                    "time",
                    format!("{m} (column {}, unit {})", col(0), spec.time_unit),
                )
            })?;
        let bytes = |k: usize, unit: u64| {
            parse_scaled(f[k], unit, 0, true, MAX_END_BYTES).map_err(|m| {
                at.error(
                    NAMES[k],
                    format!("{m} (column {}, unit {unit} bytes)", self.columns[k] + 1),
                )
            })
        };
        let offset = bytes(2, spec.offset_unit)?;
        let size = bytes(3, spec.size_unit)?;
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

/// Put `field` (field `i` of a line), trimmed and unquoted, in the slots of
/// `f` whose column it is.
#[inline]
fn place<'t>(f: &mut [&'t str; 5], columns: &[usize; 5], i: usize, field: &'t str) {
    if !columns.contains(&i) {
        return;
    }
    let field = field.trim();
    let field = field
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(field);
    for (slot, &c) in f.iter_mut().zip(columns) {
        if c == i {
            *slot = field;
        }
    }
}

impl CustomFormat {
    /// `time = column 1, op = column 5, ...` for messages.
    fn layout(&self) -> String {
        NAMES
            .iter()
            .zip(&self.columns)
            .filter(|(_, &c)| c != NO_COLUMN)
            .map(|(n, c)| format!("{n} in column {}", c + 1))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What `value` means under the spec's operation codes (case-insensitive;
/// with `prefix`, the longest code `value` begins with).
fn match_op(spec: &FormatSpec, value: &str) -> Option<OpKind> {
    let lower;
    let v = if value.is_ascii() {
        value.as_bytes()
    } else {
        lower = value.to_lowercase();
        lower.as_bytes()
    };
    spec.op_codes.iter().find_map(|(code, kind)| {
        let c = code.as_bytes();
        let hit = if spec.op_prefix {
            v.len() >= c.len() && v[..c.len()].eq_ignore_ascii_case(c)
        } else {
            v.eq_ignore_ascii_case(c)
        };
        hit.then_some(*kind)
    })
}

fn codes_list(spec: &FormatSpec) -> String {
    let mut kinds: Vec<String> = Vec::new();
    for kind in [
        OpKind::Read,
        OpKind::Write,
        OpKind::Discard,
        OpKind::Flush,
        OpKind::Ignore,
    ] {
        let codes: Vec<&str> = spec
            .op_codes
            .iter()
            .filter(|(_, k)| *k == kind)
            .map(|(c, _)| c.as_str())
            .collect();
        if !codes.is_empty() {
            kinds.push(format!("{} = {}", kind.key(), codes.join("/")));
        }
    }
    format!(
        "{}{}",
        kinds.join(", "),
        if spec.op_prefix { " (as prefixes)" } else { "" }
    )
}

/// A non-negative integer, decimal or `0x` hexadecimal.
fn parse_integer(text: &str) -> std::result::Result<u64, String> {
    if text.is_empty() {
        return Err("empty field; expected a non-negative integer".to_string());
    }
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16)
            .ok()
            .filter(|_| !hex.starts_with('+'))
            .ok_or_else(|| format!("expected a hexadecimal number, found {}", quote(text, 40)));
    }
    text.parse::<u64>()
        .map_err(|_| format!("expected a non-negative integer, found {}", quote(text, 40)))
}

/// The non-negative decimal `text` (`12`, `1.5`, `.5`, `2e3`, `1.5E-3`, or
/// `0x` hexadecimal) times `mult × 10^exp10`, as an integer. `exact`: an
/// error if that is not a whole number (byte counts); otherwise the
/// fraction is dropped (times below a nanosecond). Values above `max` are
/// errors.
pub fn parse_scaled(
    text: &str,
    mult: u64,
    exp10: u32,
    exact: bool,
    max: u64,
) -> std::result::Result<u64, String> {
    let too_large = || format!("{} is too large", quote(text, 40));
    if text.starts_with("0x") || text.starts_with("0X") {
        let v = parse_integer(text)?;
        return v
            .checked_mul(mult)
            .and_then(|v| v.checked_mul(10u64.checked_pow(exp10)?))
            .filter(|&v| v <= max)
            .ok_or_else(too_large);
    }
    let bad = || {
        if text.is_empty() {
            "empty field; expected a non-negative number".to_string()
        } else {
            format!("expected a non-negative number, found {}", quote(text, 40))
        }
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => {
            let e = &text[i + 1..];
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return Err(bad());
            }
            let n: i32 = digits.parse().map_err(|_| bad())?;
            (&text[..i], if e.starts_with('-') { -n } else { n })
        }
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let is_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !is_digits(int) || !is_digits(frac) {
        return Err(bad());
    }
    // value = digits × 10^scale
    let mut digits: u128 = 0;
    let mut scale: i64 = i64::from(exponent) + i64::from(exp10);
    let mut kept = 0;
    for (i, b) in int.bytes().chain(frac.bytes()).enumerate() {
        let in_frac = i >= int.len();
        if digits == 0 && b == b'0' {
            if in_frac {
                scale -= 1;
            }
            continue;
        }
        if kept >= 36 {
            // beyond u128's reach: an integer digit makes the value too large,
            // a fraction digit this far down does not matter
            if in_frac {
                break;
            }
            return Err(too_large());
        }
        digits = digits * 10 + u128::from(b - b'0');
        kept += 1;
        if in_frac {
            scale -= 1;
        }
    }
    let mut value = digits.checked_mul(u128::from(mult)).ok_or_else(too_large)?;
    if value != 0 {
        if scale > 0 {
            let p = 10u128.checked_pow(scale as u32).ok_or_else(too_large)?;
            value = value.checked_mul(p).ok_or_else(too_large)?;
        } else if scale < 0 {
            let p = 10u128.checked_pow((-scale) as u32);
            match p {
                Some(p) => {
                    if exact && value % p != 0 {
                        return Err(format!(
                            "{} is not a whole number of bytes",
                            quote(text, 40)
                        ));
                    }
                    value /= p;
                }
                None if exact => {
                    return Err(format!(
                        "{} is not a whole number of bytes",
                        quote(text, 40)
                    ))
                }
                None => value = 0,
            }
        }
    }
    u64::try_from(value)
        .ok()
        .filter(|&v| v <= max)
        .ok_or_else(too_large)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_numbers() {
        const M: u64 = MAX_END_BYTES;
        assert_eq!(parse_scaled("12", 1, 6, false, M), Ok(12_000_000));
        assert_eq!(parse_scaled("0.5", 1, 6, false, M), Ok(500_000));
        assert_eq!(parse_scaled(".25", 1, 9, false, M), Ok(250_000_000));
        assert_eq!(parse_scaled("1.5e-3", 1, 9, false, M), Ok(1_500_000));
        assert_eq!(parse_scaled("2E3", 1, 0, false, M), Ok(2000));
        assert_eq!(
            parse_scaled("1.0000000001", 1, 0, false, M),
            Ok(1),
            "truncates"
        );
        assert_eq!(
            parse_scaled("128166385295514663", 100, 0, false, u64::MAX),
            Ok(12_816_638_529_551_466_300)
        );
        assert_eq!(
            parse_scaled("1456095145.133076000", 1, 9, false, M),
            Ok(1_456_095_145_133_076_000)
        );
        assert_eq!(parse_scaled("0x1000", 512, 0, true, M), Ok(0x1000 * 512));
        assert_eq!(parse_scaled("1.5", 1024, 0, true, M), Ok(1536));
        assert_eq!(parse_scaled("0", 512, 0, true, M), Ok(0));
        assert_eq!(parse_scaled("0.000", 512, 0, true, M), Ok(0));
        assert!(parse_scaled("1.3", 1, 0, true, M)
            .unwrap_err()
            .contains("whole number"));
        for bad in [
            "", ".", "-1", "+1", "1e", "1e+", "1.2.3", "x", " 1", "1,5", "nan",
        ] {
            assert!(parse_scaled(bad, 1, 0, false, M).is_err(), "{bad:?}");
        }
        assert!(parse_scaled("1e30", 1, 0, false, M)
            .unwrap_err()
            .contains("too large"));
        assert!(parse_scaled("9223372036854775809", 1, 0, true, M).is_err());
        assert_eq!(
            parse_scaled("9223372036854775808", 1, 0, true, M),
            Ok(1 << 63)
        );
    }

    #[test]
    fn keys_are_found() {
        let text = "name = \"x\"\n[time]\ncolumn = 1\nunit = \"msec\"\n";
        assert_eq!(key_path(text, text.find("\"msec").unwrap()), "time.unit");
        let text = "op = { column = 2, read = [\"R\"], wirte = [\"W\"] }\n";
        assert_eq!(key_path(text, text.find("wirte").unwrap()), "op.wirte");
        assert_eq!(table_at(text, text.find('{').unwrap()), "op");
    }
}
