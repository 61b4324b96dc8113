//! Reading trace files: transparent gzip and zstd decompression, a line
//! reader that does not allocate per line, and helpers that turn a bad field
//! into an [`Error::Parse`] naming file, line and field.
//!
//! Compression is detected by content, not by name: a file that starts with
//! the gzip magic bytes `1f 8b` is decompressed as gzip (all members, as
//! `gzip` itself does for concatenated files), one that starts with the
//! Zstandard frame magic `28 b5 2f fd` (or a Zstandard skippable frame,
//! `5?  2a 4d 18`) as zstd (all frames, as `zstd -d` does); anything else is
//! read as is.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::num::IntErrorKind;
use std::path::{Path, PathBuf};

use flate2::bufread::MultiGzDecoder;

use crate::error::{Error, Result};

/// The two bytes every gzip member starts with (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The four bytes every Zstandard frame starts with (RFC 8878, magic number
/// `0xFD2FB528` little-endian).
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Longest line accepted, in bytes, line terminator excluded. A trace line is
/// tens of bytes; a longer "line" means the file is not a text trace, and the
/// cap keeps memory bounded whatever the input.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Largest byte address a request may reach: `offset + size <= 2^63`.
pub const MAX_END_BYTES: u64 = 1 << 63;

/// Latest time a request may arrive, in ns (2^62 ns, 146 years): simulated
/// time is kept in u64 nanoseconds, and this leaves room for replays and
/// for every latency to be added without overflow.
pub const MAX_TIME_NS: u64 = 1 << 62;

/// Capacity of the buffers between file, decompressor and line reader.
const BUF_BYTES: usize = 64 * 1024;

/// How a trace file is compressed, as told by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain text (or anything that is neither gzip nor zstd).
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// The compression whose magic bytes `head` (the first bytes of a file,
    /// possibly fewer than four) starts with.
    pub fn from_magic(head: &[u8]) -> Compression {
        if head.starts_with(&GZIP_MAGIC) {
            Compression::Gzip
        } else if head.starts_with(&ZSTD_MAGIC)
            || (head.len() >= 4 && head[0] & 0xf0 == 0x50 && head[1..4] == [0x2a, 0x4d, 0x18])
        {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}

/// Open `path` for buffered reading, decompressing it if it is gzip or zstd.
///
/// Errors: [`Error::Io`] naming the path if it cannot be opened or read, or
/// if the zstd decoder cannot be set up; [`Error::Interrupted`] if an
/// interrupt came ([`crate::interrupt`]) while waiting for data.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let mut file = Watched::open(path)?;
    let (magic, got) = read_magic(&mut file, path)?;
    // Put the bytes read back in front of the rest of the file.
    let head = io::Cursor::new(magic).take(got as u64);
    let raw = BufReader::with_capacity(BUF_BYTES, head.chain(file));
    Ok(match Compression::from_magic(&magic[..got]) {
        Compression::Gzip => Box::new(BufReader::with_capacity(
            BUF_BYTES,
            MultiGzDecoder::new(raw),
        )),
        Compression::Zstd => {
            let decoder =
                zstd::stream::read::Decoder::with_buffer(raw).map_err(|e| Error::io(path, e))?;
            Box::new(BufReader::with_capacity(BUF_BYTES, decoder))
        }
        Compression::None => Box::new(raw),
    })
}

/// How the file at `path` is compressed (by its first bytes).
pub fn compression(path: &Path) -> Result<Compression> {
    let mut file = Watched::open(path)?;
    let (magic, got) = read_magic(&mut file, path)?;
    Ok(Compression::from_magic(&magic[..got]))
}

/// Whether the file at `path` starts with the gzip magic bytes.
pub fn is_gzip(path: &Path) -> Result<bool> {
    Ok(compression(path)? == Compression::Gzip)
}

/// Whether the file at `path` starts with a Zstandard frame.
pub fn is_zstd(path: &Path) -> Result<bool> {
    Ok(compression(path)? == Compression::Zstd)
}

/// The first four bytes of `file` and how many there were (a file may be
/// shorter, and a read may return fewer bytes than asked for).
fn read_magic(file: &mut impl Read, path: &Path) -> Result<([u8; 4], usize)> {
    let mut magic = [0u8; 4];
    let mut got = 0;
    while got < magic.len() {
        match file.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    Ok((magic, got))
}

/// A file opened for reading that stops at an interrupt
/// ([`crate::interrupt`]): every read first looks at the request, and a
/// file that is not a regular file (a pipe, a FIFO, a terminal, a device)
/// is read without blocking, waiting for data at most
/// [`POLL_MS`](crate::interrupt::POLL_MS) at a time, so that a pipe that
/// sends nothing (or a FIFO no writer has opened yet) does not hold an
/// interrupt back. A stopped read fails with
/// [`interrupt::io_error`](crate::interrupt::io_error), which
/// [`Error::io`] turns into [`Error::Interrupted`].
pub struct Watched {
    file: File,
    /// Not a regular file: opened non-blocking, read after `poll(2)`.
    special: bool,
}

impl Watched {
    /// Open `path` for reading (a FIFO without a writer yet is opened at
    /// once; reads then wait for one).
    pub fn open(path: &Path) -> Result<Watched> {
        let special = std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir());
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        if special {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NONBLOCK);
        }
        let file = options.open(path).map_err(|e| Error::io(path, e))?;
        Ok(Watched { file, special })
    }

    /// Wait until the file has data (or its end) to read, or an interrupt
    /// came: then false.
    #[cfg(unix)]
    fn wait_readable(&self) -> io::Result<bool> {
        use std::os::unix::io::AsRawFd;
        loop {
            let mut p = libc::pollfd {
                fd: self.file.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd, its count, a timeout.
            let rc = unsafe { libc::poll(&mut p, 1, crate::interrupt::POLL_MS as libc::c_int) };
            if rc < 0 {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            } else if rc > 0 {
                return Ok(true);
            }
            if crate::interrupt::poll() {
                return Ok(false);
            }
        }
    }
}

impl Read for Watched {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if crate::interrupt::poll() {
            return Err(crate::interrupt::io_error());
        }
        if !self.special {
            return self.file.read(buf);
        }
        #[cfg(unix)]
        loop {
            if !self.wait_readable()? {
                return Err(crate::interrupt::io_error());
            }
            match self.file.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                r => return r,
            }
        }
        #[cfg(not(unix))]
        self.file.read(buf)
    }
}

/// Read the whole of a small text file (a configuration, a profile, a
/// sweep spec, a format spec), refusing one larger than `max` bytes before
/// reading it all: `what` names the kind of file in the error ("a drive
/// configuration").
pub fn read_text_limited(path: &Path, max: u64, what: &str) -> Result<String> {
    let mut file = Watched::open(path)?;
    let mut bytes = Vec::new();
    (&mut file)
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > max {
        return Err(Error::Invalid(format!(
            "{}: larger than {}, the most {what} may be; is it the right file?",
            path.display(),
            human_bytes(max)
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        Error::Invalid(format!(
            "{}: not valid UTF-8 text (byte 0x{:02x} at offset {at})",
            path.display(),
            e.as_bytes()[at]
        ))
    })
}

/// A byte count with a binary unit (`4 MiB`).
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b;
    let mut u = 0;
    while v >= 1024 && v.is_multiple_of(1024) && u + 1 < UNITS.len() {
        v /= 1024;
        u += 1;
    }
    format!("{v} {}", UNITS[u])
}

/// Largest text file [`read_text_limited`] takes for a configuration, a
/// profile, a sweep spec or a trace format spec: 4 MiB (such files are a
/// few kB; a larger one is the wrong file).
pub const MAX_SPEC_BYTES: u64 = 4 << 20;

/// Reads a text file line by line into one reused buffer.
///
/// Lines are numbered from 1 (blank lines count). The terminator (`\n` or
/// `\r\n`) is stripped, a last line without a terminator is returned like
/// any other, and a UTF-8 byte-order mark at the very start is dropped. A
/// line that is not UTF-8, or longer than [`MAX_LINE_BYTES`], is an
/// [`Error::Parse`] with field `text`; a read or decompression failure is an
/// [`Error::Io`]. After an error the reader is exhausted, unless
/// [`resume_after_bad_text`](LineReader::resume_after_bad_text) is on: then
/// a bad line (not UTF-8, or too long: the rest of it is read and dropped,
/// so memory stays bounded) is reported and reading goes on with the next
/// line. Read errors always end the reader.
pub struct LineReader {
    path: PathBuf,
    inner: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    line: u64,
    done: bool,
    resume: bool,
}

/// What [`LineReader::fill`] found.
enum Fill {
    Line,
    Eof,
    /// A line longer than [`MAX_LINE_BYTES`] (consumed whole if resuming).
    TooLong,
}

impl std::fmt::Debug for LineReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineReader")
            .field("path", &self.path)
            .field("line", &self.line)
            .field("done", &self.done)
            .field("resume", &self.resume)
            .finish()
    }
}

impl LineReader {
    /// Open `path` (plain, gzip or zstd) for reading lines.
    pub fn open(path: &Path) -> Result<LineReader> {
        Ok(LineReader::from_reader(path, open(path)?))
    }

    /// Read lines from an already open reader; `path` names it in errors.
    pub fn from_reader(path: impl Into<PathBuf>, inner: Box<dyn BufRead + Send>) -> LineReader {
        LineReader {
            path: path.into(),
            inner,
            buf: Vec::with_capacity(256),
            line: 0,
            done: false,
            resume: false,
        }
    }

    /// Whether to go on after a line that is not UTF-8 or too long (off by
    /// default: such a line ends the reader).
    pub fn resume_after_bad_text(&mut self, resume: bool) {
        self.resume = resume;
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of the line returned last (0 before the first).
    pub fn line_number(&self) -> u64 {
        self.line
    }

    /// The next line as `(line_number, text)`, or `None` at end of input.
    pub fn next_line(&mut self) -> Result<Option<(u64, &str)>> {
        if self.done {
            return Ok(None);
        }
        match self.fill() {
            Ok(Fill::Line) => {}
            Ok(Fill::Eof) => {
                self.done = true;
                return Ok(None);
            }
            Ok(Fill::TooLong) => {
                self.line += 1;
                self.done = !self.resume;
                return Err(parse_error(
                    &self.path,
                    self.line,
                    "text",
                    format!("line longer than {MAX_LINE_BYTES} bytes; is this a text trace?"),
                ));
            }
            Err(e) => {
                self.done = true;
                return Err(e);
            }
        }
        self.line += 1;
        let mut bytes: &[u8] = &self.buf;
        if let Some(b) = bytes.strip_suffix(b"\n") {
            bytes = b;
            if let Some(b) = bytes.strip_suffix(b"\r") {
                bytes = b;
            }
        }
        if self.line == 1 {
            if let Some(b) = bytes.strip_prefix(b"\xef\xbb\xbf") {
                bytes = b;
            }
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => match text.find('\0') {
                // No format has a NUL in any column: the file is not text.
                Some(at) => {
                    self.done = !self.resume;
                    Err(parse_error(
                        &self.path,
                        self.line,
                        "text",
                        format!(
                            "a NUL byte at column {}; is this a text trace?",
                            text[..at].chars().count() + 1
                        ),
                    ))
                }
                None => Ok(Some((self.line, text))),
            },
            Err(e) => {
                self.done = !self.resume;
                let at = e.valid_up_to();
                Err(parse_error(
                    &self.path,
                    self.line,
                    "text",
                    format!(
                        "not valid UTF-8 text (byte 0x{:02x} at column {}); is this a text trace?",
                        bytes[at],
                        at + 1
                    ),
                ))
            }
        }
    }

    /// Load the next raw line (terminator included) into `buf`.
    fn fill(&mut self) -> Result<Fill> {
        self.buf.clear();
        let mut too_long = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if crate::interrupt::is_io_stop(&e) => {
                    return Err(Error::Interrupted(format!(
                        "while reading {}{}",
                        self.path.display(),
                        match self.line {
                            0 => String::new(),
                            n => format!(" after line {n}"),
                        }
                    )));
                }
                Err(e) => {
                    let e = io::Error::new(
                        e.kind(),
                        match self.line {
                            0 => format!("read failed before the first line: {e}"),
                            n => format!("read failed after line {n}: {e}"),
                        },
                    );
                    return Err(Error::io(&self.path, e));
                }
            };
            if available.is_empty() {
                return Ok(if too_long {
                    Fill::TooLong
                } else if self.buf.is_empty() {
                    Fill::Eof
                } else {
                    Fill::Line
                });
            }
            let (take, found) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            if !too_long && self.buf.len() + take > MAX_LINE_BYTES + 2 {
                if !self.resume {
                    return Ok(Fill::TooLong);
                }
                // Drop the line: read on to its end without keeping it.
                too_long = true;
                self.buf.clear();
            }
            if !too_long {
                self.buf.extend_from_slice(&available[..take]);
            }
            self.inner.consume(take);
            if found {
                return Ok(if too_long { Fill::TooLong } else { Fill::Line });
            }
        }
    }
}

/// Whether a line holds only whitespace (such lines are not records).
pub fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Build an [`Error::Parse`].
pub fn parse_error(path: &Path, line: u64, field: &str, msg: impl Into<String>) -> Error {
    Error::Parse {
        path: path.to_path_buf(),
        line,
        field: field.to_string(),
        msg: msg.into(),
    }
}

/// Quote user text in a message: at most `max` characters, with `…` if cut.
/// Control characters (a NUL, a newline, an escape) are written as Rust
/// escapes (`\0`, `\n`, `\u{1b}`), so that a message stays one line of
/// plain text whatever the input held.
pub fn quote(text: &str, max: usize) -> String {
    let (shown, cut) = match text.char_indices().nth(max) {
        Some((i, _)) => (&text[..i], "…"),
        None => (text, ""),
    };
    format!("`{}{cut}`", escape_controls(shown))
}

/// `text` with its control characters written as Rust escapes.
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().collect::<String>()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Where a field comes from: file and line, for error messages.
#[derive(Clone, Copy, Debug)]
pub struct At<'a> {
    pub path: &'a Path,
    pub line: u64,
}

impl<'a> At<'a> {
    /// Position `line` of `path`.
    pub fn new(path: &'a Path, line: u64) -> At<'a> {
        At { path, line }
    }

    /// An [`Error::Parse`] at this position.
    pub fn error(&self, field: &str, msg: impl Into<String>) -> Error {
        parse_error(self.path, self.line, field, msg)
    }

    /// Parse a non-negative decimal integer field.
    #[inline]
    pub fn u64(&self, field: &str, text: &str) -> Result<u64> {
        parse_u64(text).map_err(|msg| self.error(field, msg))
    }

    /// Parse a non-negative decimal integer field that must fit in `u32`.
    #[inline]
    pub fn u32(&self, field: &str, text: &str) -> Result<u32> {
        let v = self.u64(field, text)?;
        u32::try_from(v).map_err(|_| {
            self.error(
                field,
                format!("{} is too large (at most {})", quote(text, 40), u32::MAX),
            )
        })
    }

    /// Parse a non-negative decimal number (`12`, `12.5`, `.25`) as an
    /// integer count of `10^-scale` units: with `scale` 9, seconds become
    /// nanoseconds. Digits beyond `scale` decimals are dropped (truncated).
    pub fn decimal(&self, field: &str, text: &str, scale: u32) -> Result<u64> {
        parse_decimal(text, scale).map_err(|msg| self.error(field, msg))
    }

    /// Parse a hexadecimal field written with a `0x` prefix (`0x1f000`).
    pub fn hex(&self, field: &str, text: &str) -> Result<u64> {
        parse_hex(text).map_err(|msg| self.error(field, msg))
    }

    /// An error in field `record` unless a line of `layout` (the field
    /// names, for the message) has `want` fields; `count` is how many it has
    /// and `what` how they are separated ("comma-separated", ...).
    pub fn field_count(
        &self,
        count: usize,
        want: usize,
        what: &str,
        layout: &str,
        text: &str,
    ) -> Result<()> {
        if count == want {
            return Ok(());
        }
        Err(self.error(
            "record",
            format!(
                "expected {want} {what} fields ({layout}), found {count} in {}",
                quote(text.trim(), 80)
            ),
        ))
    }

    /// Check that a request of `size` bytes at byte `offset` is non-empty and
    /// ends at or below [`MAX_END_BYTES`]. A zero size or an end too far is
    /// blamed on `size_field`, an offset that is itself too far on
    /// `offset_field`.
    #[inline]
    pub fn extent(
        &self,
        offset: u64,
        size: u64,
        offset_field: &str,
        size_field: &str,
    ) -> Result<()> {
        if size == 0 {
            return Err(self.error(size_field, "request size is 0; sizes must be positive"));
        }
        if offset >= MAX_END_BYTES {
            return Err(self.error(
                offset_field,
                format!("request offset {offset} bytes is at or beyond 2^63 bytes"),
            ));
        }
        match offset.checked_add(size) {
            Some(end) if end <= MAX_END_BYTES => Ok(()),
            _ => Err(self.error(
                size_field,
                format!("request end (offset {offset} + size {size} bytes) is beyond 2^63 bytes"),
            )),
        }
    }
}

/// Parse a non-negative decimal integer; the error is a message quoting the
/// text. Surrounding whitespace is not accepted (callers split fields).
#[inline]
pub fn parse_u64(text: &str) -> std::result::Result<u64, String> {
    match text.parse::<u64>() {
        Ok(v) => Ok(v),
        Err(e) => Err(match e.kind() {
            IntErrorKind::Empty => "empty field; expected a non-negative integer".to_string(),
            IntErrorKind::PosOverflow => {
                format!("{} is too large (at most {})", quote(text, 40), u64::MAX)
            }
            _ => format!("expected a non-negative integer, found {}", quote(text, 40)),
        }),
    }
}

/// Whether `text` is a non-negative decimal integer that fits in `u64`.
pub fn is_u64(text: &str) -> bool {
    parse_u64(text).is_ok()
}

/// Parse a non-negative decimal number into an integer count of
/// `10^-scale` units (see [`At::decimal`]); the error is a message quoting
/// the text. Signs, exponents and surrounding whitespace are not accepted.
pub fn parse_decimal(text: &str, scale: u32) -> std::result::Result<u64, String> {
    if text.is_empty() {
        return Err("empty field; expected a non-negative number".to_string());
    }
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i, f),
        None => (text, ""),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return Err(format!(
            "expected a non-negative decimal number, found {}",
            quote(text, 40)
        ));
    }
    let too_large = || format!("{} is too large", quote(text, 40));
    let unit = 10u64.checked_pow(scale).ok_or_else(too_large)?;
    let mut value: u64 = 0;
    for b in int.bytes() {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(b - b'0')))
            .ok_or_else(too_large)?;
    }
    value = value.checked_mul(unit).ok_or_else(too_large)?;
    let mut place = unit;
    for b in frac.bytes() {
        place /= 10;
        if place == 0 {
            break;
        }
        value = value
            .checked_add(u64::from(b - b'0') * place)
            .ok_or_else(too_large)?;
    }
    Ok(value)
}

/// Whether `text` is a non-negative decimal number (`12`, `12.5`).
pub fn is_decimal(text: &str) -> bool {
    parse_decimal(text, 0).is_ok()
}

/// Parse a hexadecimal number written with a `0x` (or `0X`) prefix.
pub fn parse_hex(text: &str) -> std::result::Result<u64, String> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .ok_or_else(|| {
            if text.is_empty() {
                "empty field; expected a hexadecimal number like 0x1000".to_string()
            } else {
                format!(
                    "expected a hexadecimal number like 0x1000, found {}",
                    quote(text, 40)
                )
            }
        })?;
    match u64::from_str_radix(digits, 16) {
        Ok(v) if !digits.starts_with('+') => Ok(v),
        Err(e) if *e.kind() == IntErrorKind::PosOverflow => Err(format!(
            "{} is too large (at most 0x{:x})",
            quote(text, 40),
            u64::MAX
        )),
        _ => Err(format!(
            "expected a hexadecimal number like 0x1000, found {}",
            quote(text, 40)
        )),
    }
}

/// Split `text` at `sep` into its first `N` fields, trimmed, and the total
/// number of fields (which may be more or fewer than `N`; missing fields
/// are empty).
#[inline]
pub fn split_trimmed<const N: usize>(text: &str, sep: char) -> ([&str; N], usize) {
    let mut fields = [""; N];
    let mut count = 0;
    for f in text.split(sep) {
        if count < N {
            fields[count] = f.trim();
        }
        count += 1;
    }
    (fields, count)
}

/// Split `text` at runs of ASCII whitespace into its first `N` fields and
/// the total number of fields.
#[inline]
pub fn split_whitespace<const N: usize>(text: &str) -> ([&str; N], usize) {
    let mut fields = [""; N];
    let mut count = 0;
    for f in text.split_ascii_whitespace() {
        if count < N {
            fields[count] = f;
        }
        count += 1;
    }
    (fields, count)
}

/// Enforces non-decreasing timestamps across the records of one trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeOrder {
    last: Option<u64>,
}

impl TimeOrder {
    /// Record `t`; an error (in `field`) if it is smaller than the previous one.
    pub fn check(&mut self, at: At<'_>, field: &str, t: u64) -> Result<()> {
        if let Some(prev) = self.last {
            if t < prev {
                return Err(at.error(
                    field,
                    format!("timestamps go backwards; traces must be sorted ({t} after {prev})"),
                ));
            }
        }
        self.last = Some(t);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(bytes: &'static [u8]) -> LineReader {
        LineReader::from_reader("mem.txt", Box::new(bytes))
    }

    fn lines(bytes: &'static [u8]) -> Vec<(u64, String)> {
        let mut r = reader(bytes);
        let mut out = Vec::new();
        while let Some((n, l)) = r.next_line().unwrap() {
            out.push((n, l.to_string()));
        }
        out
    }

    #[test]
    fn strips_terminators_and_keeps_last_line() {
        let got = lines(b"a\r\nb\n\nc");
        let want = vec![(1, "a"), (2, "b"), (3, ""), (4, "c")];
        let want: Vec<_> = want.into_iter().map(|(n, s)| (n, s.to_string())).collect();
        assert_eq!(got, want);
        assert_eq!(lines(b""), vec![]);
        assert_eq!(lines(b"\n"), vec![(1, String::new())]);
        assert_eq!(lines(b"\xef\xbb\xbfx\n"), vec![(1, "x".to_string())]);
    }

    #[test]
    fn non_utf8_names_the_line() {
        let mut r = reader(b"ok\nbad \xff here\nnext\n");
        assert_eq!(r.next_line().unwrap(), Some((1, "ok")));
        let e = r.next_line().unwrap_err().to_string();
        assert!(e.starts_with("mem.txt:2: field `text`"), "{e}");
        assert!(e.contains("0xff") && e.contains("column 5"), "{e}");
        assert_eq!(r.next_line().unwrap(), None);
    }

    #[test]
    fn overlong_line_is_an_error() {
        let big: &'static [u8] = Box::leak(vec![b'x'; MAX_LINE_BYTES + 10].into_boxed_slice());
        let e = reader(big).next_line().unwrap_err().to_string();
        assert!(e.contains(":1:") && e.contains("longer than"), "{e}");
    }

    #[test]
    fn numbers() {
        let at = At::new(Path::new("f"), 7);
        assert_eq!(at.u64("x", "42").unwrap(), 42);
        let e = at.u64("size_sectors", "4x2").unwrap_err().to_string();
        assert_eq!(
            e,
            "f:7: field `size_sectors`: expected a non-negative integer, found `4x2`"
        );
        let e = at.u64("x", "-1").unwrap_err().to_string();
        assert!(e.contains("`-1`"), "{e}");
        let e = at.u64("x", "18446744073709551616").unwrap_err().to_string();
        assert!(e.contains("too large"), "{e}");
        let e = at.u32("device", "4294967296").unwrap_err().to_string();
        assert!(
            e.contains("field `device`") && e.contains("too large"),
            "{e}"
        );
        assert!(at.u64("x", "").unwrap_err().to_string().contains("empty"));
    }

    #[test]
    fn extents() {
        let at = At::new(Path::new("f"), 1);
        let field = |o, s| at.extent(o, s, "off", "len").unwrap_err().to_string();
        assert!(at.extent(0, 1, "off", "len").is_ok());
        assert!(at.extent(MAX_END_BYTES - 1, 1, "off", "len").is_ok());
        assert!(at.extent(0, MAX_END_BYTES, "off", "len").is_ok());
        assert!(field(MAX_END_BYTES, 1).contains("`off`"));
        assert!(field(u64::MAX, 1).contains("`off`"));
        assert!(field(1, MAX_END_BYTES).contains("`len`"));
        assert!(field(5, u64::MAX).contains("`len`"));
        assert!(field(0, 0).contains("`len`"));
    }

    #[test]
    fn quoting_truncates_on_char_boundaries() {
        assert_eq!(quote("abc", 5), "`abc`");
        assert_eq!(quote("ééééé", 2), "`éé…`");
    }

    #[test]
    fn decimals() {
        assert_eq!(parse_decimal("12", 9), Ok(12_000_000_000));
        assert_eq!(parse_decimal("0.551706", 9), Ok(551_706_000));
        assert_eq!(
            parse_decimal("1456135200.013118000", 9),
            Ok(1_456_135_200_013_118_000)
        );
        assert_eq!(parse_decimal(".5", 3), Ok(500));
        assert_eq!(parse_decimal("7.", 3), Ok(7000));
        assert_eq!(parse_decimal("1.23456789", 3), Ok(1234), "truncates");
        assert_eq!(parse_decimal("3", 0), Ok(3));
        assert_eq!(parse_decimal("3.9", 0), Ok(3));
        for bad in ["", ".", "-1", "+1", "1e3", "1.2.3", " 1", "0x10", "nan"] {
            assert!(parse_decimal(bad, 9).is_err(), "{bad:?}");
        }
        assert!(parse_decimal("18446744073.709551615", 9).is_ok());
        let e = parse_decimal("18446744073.709551616", 9).unwrap_err();
        assert!(e.contains("too large"), "{e}");
        assert!(parse_decimal("99999999999999999999", 0)
            .unwrap_err()
            .contains("too large"));
        let at = At::new(Path::new("f"), 3);
        let e = at.decimal("timestamp", "1,5", 9).unwrap_err().to_string();
        assert_eq!(
            e,
            "f:3: field `timestamp`: expected a non-negative decimal number, found `1,5`"
        );
    }

    #[test]
    fn hexadecimals() {
        assert_eq!(parse_hex("0x018f0b8000"), Ok(0x0001_8f0b_8000));
        assert_eq!(parse_hex("0X1F"), Ok(31));
        assert_eq!(parse_hex("0xffffffffffffffff"), Ok(u64::MAX));
        assert!(parse_hex("0x1ffffffffffffffff")
            .unwrap_err()
            .contains("too large"));
        for bad in ["", "1000", "0x", "0x+1", "0xg", "-0x1", " 0x1"] {
            assert!(parse_hex(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn splitting() {
        assert_eq!(split_trimmed::<3>(" a , b,c ,d", ','), (["a", "b", "c"], 4));
        assert_eq!(split_trimmed::<3>("a", ','), (["a", "", ""], 1));
        assert_eq!(split_whitespace::<2>("  x \t y z "), (["x", "y"], 3));
        assert_eq!(split_whitespace::<2>("   "), (["", ""], 0));
    }

    #[test]
    fn compression_magic() {
        assert_eq!(
            Compression::from_magic(&[0x1f, 0x8b, 8, 0]),
            Compression::Gzip
        );
        assert_eq!(Compression::from_magic(&[0x1f, 0x8b]), Compression::Gzip);
        assert_eq!(Compression::from_magic(&ZSTD_MAGIC), Compression::Zstd);
        assert_eq!(
            Compression::from_magic(&[0x5e, 0x2a, 0x4d, 0x18]),
            Compression::Zstd
        );
        assert_eq!(
            Compression::from_magic(&[0x28, 0xb5, 0x2f]),
            Compression::None
        );
        assert_eq!(Compression::from_magic(b"1 2 3"), Compression::None);
        assert_eq!(Compression::from_magic(b""), Compression::None);
    }

    #[test]
    fn resumes_after_bad_text_when_asked() {
        let mut r = reader(b"ok\nbad \xff\nnext\n");
        r.resume_after_bad_text(true);
        assert_eq!(r.next_line().unwrap(), Some((1, "ok")));
        assert!(r.next_line().unwrap_err().to_string().contains(":2:"));
        assert_eq!(r.next_line().unwrap(), Some((3, "next")));
        assert_eq!(r.next_line().unwrap(), None);

        let mut text = b"first\n".to_vec();
        text.extend(vec![b'x'; MAX_LINE_BYTES + 10]);
        text.extend(b"\nafter\n".iter());
        text.extend(vec![b'y'; MAX_LINE_BYTES + 10]);
        let text: &'static [u8] = Box::leak(text.into_boxed_slice());
        let mut r = reader(text);
        r.resume_after_bad_text(true);
        assert_eq!(r.next_line().unwrap(), Some((1, "first")));
        let e = r.next_line().unwrap_err().to_string();
        assert!(e.contains(":2:") && e.contains("longer than"), "{e}");
        assert_eq!(r.next_line().unwrap(), Some((3, "after")));
        let e = r.next_line().unwrap_err().to_string();
        assert!(e.contains(":4:") && e.contains("longer than"), "{e}");
        assert_eq!(r.next_line().unwrap(), None);
    }

    #[test]
    fn time_order() {
        let p = Path::new("f");
        let mut t = TimeOrder::default();
        t.check(At::new(p, 1), "time", 5).unwrap();
        t.check(At::new(p, 2), "time", 5).unwrap();
        let e = t.check(At::new(p, 3), "time", 4).unwrap_err().to_string();
        assert!(e.contains("f:3: field `time`: timestamps go backwards; traces must be sorted"));
    }
}
