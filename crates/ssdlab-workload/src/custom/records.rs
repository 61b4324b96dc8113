//! Reading records of a described format.

use std::sync::Arc;

use super::{FormatSpec, OpKind, Separator};
use crate::error::{Error, Result};
use crate::input::{quote, At, MAX_END_BYTES};
use crate::reader::{LineFormat, Parsed, Raw};
use crate::{Op, TraceFormat, TraceOptions};

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
    /// Whether a line was a record (header lines after it are repeats).
    past_first_record: bool,
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
            past_first_record: false,
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
        if !spec.headers.is_empty() && spec.is_header(text) {
            return Ok(if self.past_first_record {
                Parsed::RepeatedHeader
            } else {
                Parsed::Nothing
            });
        }
        self.past_first_record = true;
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
