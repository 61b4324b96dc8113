//! Linux block-layer traces in blkparse's default text output (blktrace
//! package, `blkparse -i DEV`; format from `process_default` in
//! `blkparse_fmt.c` and blkparse(1)).
//!
//! One event per line:
//!
//! ```text
//!   8,0    3       11     0.009507758   697  D   W 223490 + 8 [kjournald]
//! ```
//!
//! i.e. `maj,min cpu sequence seconds.nanoseconds pid action rwbs` followed,
//! for actions that carry a range, by `sector + blocks` (512-byte sectors)
//! and the process name in brackets (an elapsed time in parentheses may
//! come between them with `-t`). Time is seconds since the start of the
//! trace (kept as it is).
//!
//! Only one action is replayed: `D` (issued to the driver, what the device
//! sees) by default, `Q` (queued by the file system) with
//! [`TraceOptions::blkparse_action`](super::TraceOptions::blkparse_action).
//! Every other event (`G`, `I`, `M`, `C`, plugs, messages `m`, …) is not a
//! request to replay and is counted in
//! [`ReadCounters::non_io`](super::ReadCounters::non_io).
//!
//! The RWBS field is an optional `F` (a cache flush before the request),
//! then `R` (read), `W` (write), `D` (discard) or `N` (no data), then
//! modifiers `F` (FUA), `A` (read-ahead), `S` (sync), `M` (metadata), `E`
//! (secure erase), `B` (barrier, old kernels). Reads and writes are
//! replayed (FUA writes as writes); discards are counted in `discards`, or
//! delivered as [`Op::Trim`] with `replay_trims`; a leading `F` is counted in `flushes` (the data of a write that
//! carries one is still replayed, a flush without data is not); events
//! without data or range (`N`, SCSI packet commands) count as `non_io`.
//!
//! The device of an event is `major << 20 | minor` (the kernel's dev_t
//! encoding; see [`device_id`]). The per-CPU summary blkparse prints at the
//! end (from the first line starting with `CPU` or `Total`) is not read, and
//! `Input file … added` lines are skipped.
//!
//! Errors name the field: `record`, `device`, `cpu`, `sequence`, `time`,
//! `pid`, `rwbs`, `sector` or `blocks`.

use super::input::{quote, split_whitespace, At};
use super::reader::{sectors_to_bytes, LineFormat, Parsed, Raw, TraceReader};
use super::{Op, TraceFormat, TraceOptions};
use crate::error::Result;

/// Streaming reader of blkparse text output.
pub type BlkparseReader = TraceReader<BlkparseFormat>;

/// Bits of the minor number in a device id.
pub const MINOR_BITS: u32 = 20;

/// The device id of `major,minor` (`major << 20 | minor`), as used by the
/// device filter; None if major ≥ 4096 or minor ≥ 2^20.
pub fn device_id(major: u32, minor: u32) -> Option<u32> {
    (major < 1 << (32 - MINOR_BITS) && minor < 1 << MINOR_BITS)
        .then_some(major << MINOR_BITS | minor)
}

/// What the RWBS field says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rwbs {
    /// A cache flush before the request (leading `F`).
    flush: bool,
    kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    Discard,
    NoData,
}

fn parse_rwbs(at: At<'_>, text: &str) -> Result<Rwbs> {
    let bad = || {
        at.error(
            "rwbs",
            format!(
                "expected an RWBS field such as `R`, `WS`, `FWFS`, `D` or `FN`, found {}",
                quote(text, 40)
            ),
        )
    };
    let b = text.as_bytes();
    let (flush, rest) = match b {
        [b'F'] => (true, &b"N"[..]),
        [b'F', k, ..] if b"RWDN".contains(k) => (true, &b[1..]),
        _ => (false, b),
    };
    let kind = match rest.first() {
        Some(b'R') => Kind::Read,
        Some(b'W') => Kind::Write,
        Some(b'D') => Kind::Discard,
        Some(b'N') => Kind::NoData,
        _ => return Err(bad()),
    };
    if !rest[1..].iter().all(|c| b"FASMEB".contains(c)) {
        return Err(bad());
    }
    Ok(Rwbs { flush, kind })
}

fn parse_device(at: At<'_>, text: &str) -> Result<u32> {
    let bad = || {
        at.error(
            "device",
            format!(
                "expected `major,minor` (major < 4096, minor < 2^20), found {}",
                quote(text, 40)
            ),
        )
    };
    let (major, minor) = text.split_once(',').ok_or_else(bad)?;
    let major = major.parse::<u32>().map_err(|_| bad())?;
    let minor = minor.parse::<u32>().map_err(|_| bad())?;
    if !text.bytes().all(|c| c.is_ascii_digit() || c == b',') {
        return Err(bad());
    }
    device_id(major, minor).ok_or_else(bad)
}

/// Whether `text` is the start of an event line: `digits,digits`.
fn is_device_token(text: &str) -> bool {
    text.split_once(',').is_some_and(|(a, b)| {
        !a.is_empty()
            && !b.is_empty()
            && a.bytes().all(|c| c.is_ascii_digit())
            && b.bytes().all(|c| c.is_ascii_digit())
    })
}

/// The blkparse line format.
#[derive(Debug)]
pub struct BlkparseFormat {
    action: char,
    summary: bool,
}

impl LineFormat for BlkparseFormat {
    const FORMAT: TraceFormat = TraceFormat::Blkparse;
    const ABSOLUTE_TIME: bool = false;
    const TIME_FIELD: &'static str = "time";
    const OFFSET_FIELD: &'static str = "sector";
    const SIZE_FIELD: &'static str = "blocks";

    fn new(options: &TraceOptions) -> Self {
        BlkparseFormat {
            action: options.blkparse_action.letter(),
            summary: false,
        }
    }

    #[inline]
    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
        if self.summary {
            return Ok(Parsed::Nothing);
        }
        let (f, n) = split_whitespace::<10>(text);
        if !is_device_token(f[0]) {
            let trimmed = text.trim_start();
            if trimmed.starts_with("CPU") || trimmed.starts_with("Total (") {
                self.summary = true;
                return Ok(Parsed::Nothing);
            }
            if trimmed.starts_with("Input file ") {
                return Ok(Parsed::Nothing);
            }
            if f[0].contains(',') {
                parse_device(at, f[0])?;
            }
            return Err(at.error(
                "record",
                format!(
                    "expected a blkparse event line \
                     (`maj,min cpu seq sec.nsec pid action rwbs ...`), found {}",
                    quote(text.trim(), 80)
                ),
            ));
        }
        if n < 7 {
            return Err(at.error(
                "record",
                format!(
                    "expected at least 7 whitespace-separated fields \
                     (maj,min cpu seq sec.nsec pid action rwbs), found {n} in {}",
                    quote(text.trim(), 80)
                ),
            ));
        }
        let device = parse_device(at, f[0])?;
        at.u64("cpu", f[1])?;
        at.u64("sequence", f[2])?;
        let time_ns = at.decimal("time", f[3], 9)?;
        at.u64("pid", f[4])?;
        if !f[5].starts_with(self.action) {
            return Ok(Parsed::NotIo);
        }
        let rwbs = parse_rwbs(at, f[6])?;
        let no_data = || {
            Ok(if rwbs.flush {
                Parsed::Flush(device)
            } else {
                Parsed::NotIo
            })
        };
        // `[process]` or `(elapsed) [process]` right after RWBS: no range.
        if n == 7 || f[7].starts_with(['[', '(']) {
            return no_data();
        }
        if n < 10 || f[8] != "+" {
            if n >= 9 && f[8].starts_with(['[', '(']) && at.u64("sector", f[7]).is_ok() {
                // a SCSI packet command: `bytes (cdb) [process]`
                return Ok(Parsed::NotIo);
            }
            return Err(at.error(
                "record",
                format!(
                    "expected `sector + blocks [process]` after the RWBS field, found {}",
                    quote(text.trim(), 80)
                ),
            ));
        }
        let sector = at.u64("sector", f[7])?;
        let blocks = at.u64("blocks", f[9])?;
        let op = match rwbs.kind {
            Kind::Read => Op::Read,
            Kind::Write => Op::Write,
            Kind::Discard => Op::Trim,
            Kind::NoData => return no_data(),
        };
        let offset = sectors_to_bytes(at, "sector", sector)?;
        let size = sectors_to_bytes(at, "blocks", blocks)?;
        at.extent(offset, size, "sector", "blocks")?;
        Ok(Parsed::Io(Raw {
            time_ns,
            device,
            op,
            offset,
            size,
            preflush: rwbs.flush,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn rwbs() {
        let at = At::new(Path::new("f"), 1);
        let p = |t| parse_rwbs(at, t).map(|r| (r.flush, r.kind));
        assert_eq!(p("R").unwrap(), (false, Kind::Read));
        assert_eq!(p("RA").unwrap(), (false, Kind::Read));
        assert_eq!(p("WS").unwrap(), (false, Kind::Write));
        assert_eq!(p("WFS").unwrap(), (false, Kind::Write));
        assert_eq!(p("FWFSM").unwrap(), (true, Kind::Write));
        assert_eq!(p("FWS").unwrap(), (true, Kind::Write));
        assert_eq!(p("FN").unwrap(), (true, Kind::NoData));
        assert_eq!(p("F").unwrap(), (true, Kind::NoData));
        assert_eq!(p("N").unwrap(), (false, Kind::NoData));
        assert_eq!(p("D").unwrap(), (false, Kind::Discard));
        assert_eq!(p("DE").unwrap(), (false, Kind::Discard));
        for bad in ["", "X", "RX", "w", "FF", "RR"] {
            let e = p(bad).unwrap_err().to_string();
            assert!(e.contains("field `rwbs`"), "{bad}: {e}");
        }
    }

    #[test]
    fn devices() {
        assert_eq!(device_id(8, 16), Some(8_388_624));
        assert_eq!(device_id(259, 0), Some(259 << 20));
        assert_eq!(device_id(4096, 0), None);
        assert_eq!(device_id(0, 1 << 20), None);
        let at = At::new(Path::new("f"), 1);
        assert_eq!(parse_device(at, "8,0").unwrap(), 8 << 20);
        for bad in ["8", "8,", ",0", "8,x", "4096,0", "8,+1", "-8,0"] {
            assert!(parse_device(at, bad).is_err(), "{bad}");
        }
    }
}
