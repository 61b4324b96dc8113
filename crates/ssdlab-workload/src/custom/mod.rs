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
//! # header = "time*"            # header lines wherever they are: lines matching this pattern
//!                               # (or any of a list; `*` any text, `?` one character)
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
//! `skip_until`, `comment`, `header`, the `op` lists other than `read` and `write`,
//! `op.prefix`, `time.clock` (default relative) and `device` is required;
//! unknown keys are errors. The same tables may be written inline
//! (`time = { column = 1, unit = "ms" }`), and the whole spec may be given
//! on the command line as the body of an inline table (see
//! [`FormatSpec::from_inline`]).
//!
//! **Reading a line.** Blank lines, the first `skip_lines` lines, the lines
//! up to `skip_until`, comment lines and header lines are not records. A
//! header line is one that matches a `header` pattern as a whole (surrounding
//! whitespace aside, letters in any case; `*` stands for any text, `?` for
//! one character), wherever it is: a header repeated between records (traces
//! joined from several files) is skipped and counted in `repeated_headers`. A record is split
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

use serde::Deserialize;

use super::reader::TraceReader;
use super::TraceFormat;
use crate::error::{Error, Result};

mod records;
mod spec_toml;

pub use records::{parse_scaled, CustomFormat};
use spec_toml::{toml_error, Located, SpecToml};

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
    /// Patterns of header lines (`*` any text, `?` one character), matched
    /// against a whole line, trimmed, letters in any case.
    pub headers: Vec<String>,
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
        let text = crate::input::read_text_limited(
            path,
            crate::input::MAX_SPEC_BYTES,
            "a trace format spec",
        )?;
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

    /// Whether `line` (trimmed) is a header line: it matches one of the
    /// `header` patterns.
    pub fn is_header(&self, line: &str) -> bool {
        let line = line.trim();
        self.headers.iter().any(|p| glob_match(p, line))
    }

    /// The spec as a TOML document that [`FormatSpec::from_toml`] reads back
    /// as the same spec (a run's record keeps it, so that the run can be
    /// repeated without the original file).
    pub fn to_toml(&self) -> String {
        #[derive(serde::Serialize)]
        struct Doc<'a> {
            name: &'a str,
            separator: &'a str,
            skip_lines: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            skip_until: Option<&'a str>,
            comment: &'a [String],
            header: &'a [String],
            time: Time<'a>,
            op: Ops,
            offset: Addr,
            size: Addr,
            #[serde(skip_serializing_if = "Option::is_none")]
            device: Option<Device>,
        }
        #[derive(serde::Serialize)]
        struct Time<'a> {
            column: usize,
            unit: &'a str,
            clock: &'a str,
        }
        #[derive(serde::Serialize)]
        struct Ops {
            column: usize,
            read: Vec<String>,
            write: Vec<String>,
            discard: Vec<String>,
            flush: Vec<String>,
            ignore: Vec<String>,
            prefix: bool,
        }
        #[derive(serde::Serialize)]
        struct Addr {
            column: usize,
            unit: u64,
        }
        #[derive(serde::Serialize)]
        struct Device {
            column: usize,
            #[serde(skip_serializing_if = "Option::is_none")]
            keep: Option<u32>,
        }
        let codes = |k: OpKind| -> Vec<String> {
            self.op_codes
                .iter()
                .filter(|(_, kind)| *kind == k)
                .map(|(c, _)| c.clone())
                .collect()
        };
        let doc = Doc {
            name: &self.name,
            separator: match &self.separator {
                Separator::Whitespace => "whitespace",
                Separator::Text(t) => t,
            },
            skip_lines: self.skip_lines,
            skip_until: self.skip_until.as_deref(),
            comment: &self.comments,
            header: &self.headers,
            time: Time {
                column: self.time_column + 1,
                unit: &self.time_unit,
                clock: if self.absolute_time {
                    "absolute"
                } else {
                    "relative"
                },
            },
            op: Ops {
                column: self.op_column + 1,
                read: codes(OpKind::Read),
                write: codes(OpKind::Write),
                discard: codes(OpKind::Discard),
                flush: codes(OpKind::Flush),
                ignore: codes(OpKind::Ignore),
                prefix: self.op_prefix,
            },
            offset: Addr {
                column: self.offset_column + 1,
                unit: self.offset_unit,
            },
            size: Addr {
                column: self.size_column + 1,
                unit: self.size_unit,
            },
            device: self.device_column.map(|c| Device {
                column: c + 1,
                keep: self.keep_device,
            }),
        };
        toml::to_string(&doc).expect("a format spec serialises as TOML")
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

/// Whether `text` matches `pattern` as a whole, ASCII letters in any case:
/// `*` matches any run of characters (also none), `?` any one character.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut i, mut j) = (0, 0);
    // The last `*` seen, and the text position it matched up to.
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && (p[i] == '?' || p[i].eq_ignore_ascii_case(&t[j])) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            // let that `*` take one more character
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::MAX_END_BYTES;
    use crate::toml_keys::{key_path, table_at};

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
    fn glob_patterns() {
        assert!(glob_match("Timestamp,*", "timestamp,offset,size"));
        assert!(glob_match("time*size", "TIME offset size"));
        assert!(!glob_match("time*size", "time offset sizes"));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("a?c", "ac"));
        assert!(glob_match("*", ""));
        assert!(glob_match("**x*", "abx"));
        assert!(!glob_match("x", "xy"));
        assert!(glob_match("*a*b", "xaxxab"));
    }

    #[test]
    fn spec_round_trips_through_toml() {
        let text = "name = \"site\"\nseparator = \";\"\nskip_lines = 2\nskip_until = \"start\"\n\
                    comment = [\"#\", \"//\"]\nheader = \"ts;*\"\n\
                    time = { column = 1, unit = \"us\", clock = \"absolute\" }\n\
                    op = { column = 2, read = [\"R\", 1], write = [\"W\"], discard = [\"T\"], flush = [\"F\"], ignore = [\"open\"], prefix = true }\n\
                    offset = { column = 3, unit = \"pages\" }\nsize = { column = 4, unit = 1024 }\n\
                    device = { column = 5, keep = 7 }\n";
        let spec = FormatSpec::from_toml(text, "site.toml").unwrap();
        let again = FormatSpec::from_toml(&spec.to_toml(), "record").unwrap();
        assert_eq!(again, spec, "{}", spec.to_toml());
        let minimal = FormatSpec::from_inline(
            "time = { column = 1, unit = \"ms\" }, op = { column = 5, read = [1], write = [0] }, \
             offset = { column = 3, unit = \"bytes\" }, size = { column = 4, unit = \"bytes\" }",
        )
        .unwrap();
        assert_eq!(
            FormatSpec::from_toml(&minimal.to_toml(), "record").unwrap(),
            minimal
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
