//! The TOML form of a format spec, and its errors (file, key, line).

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use toml::Spanned;

use super::{FormatSpec, OpKind, Separator};
use crate::error::{Error, Result};
use crate::toml_keys::{backticked_after, join_key, key_path, table_at};

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

/// `header`: one line pattern or a list (`*` any text, `?` one character).
#[derive(Debug, Default)]
struct Patterns(Vec<String>);

impl<'de> Deserialize<'de> for Patterns {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Patterns, D::Error> {
        struct V;
        const EMPTY: &str = "a header pattern must not be empty (it would match blank lines only, \
                             which are never records anyway)";
        impl<'de> Visitor<'de> for V {
            type Value = Patterns;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a header line pattern (\"Timestamp,*\") or a list of them")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Patterns, E> {
                if s.trim().is_empty() {
                    return Err(E::custom(EMPTY));
                }
                Ok(Patterns(vec![s.trim().to_string()]))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Patterns, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    if s.trim().is_empty() {
                        return Err(de::Error::custom(EMPTY));
                    }
                    v.push(s.trim().to_string());
                }
                Ok(Patterns(v))
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
pub(super) struct SpecToml {
    name: Option<String>,
    separator: Option<Spanned<String>>,
    #[serde(default)]
    skip_lines: u64,
    skip_until: Option<Spanned<String>>,
    #[serde(default)]
    comment: Prefixes,
    #[serde(default)]
    header: Patterns,
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
pub(super) struct Located<'a> {
    pub(super) text: &'a str,
    /// Bytes before the user's text (inline specs are wrapped).
    pub(super) skip: usize,
    pub(super) origin: &'a str,
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
    pub(super) fn check(self, at: &Located<'_>) -> Result<FormatSpec> {
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
            headers: self.header.0,
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
    let pos = crate::toml_keys::char_floor(text, pos);
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
pub(super) fn toml_error(
    text: &str,
    skip: usize,
    origin: &str,
    strip: &str,
    e: &toml::de::Error,
) -> Error {
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
