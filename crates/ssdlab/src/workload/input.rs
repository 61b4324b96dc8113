//! Reading trace files: transparent gzip, a line reader that does not
//! allocate per line, and helpers that turn a bad field into an
//! [`Error::Parse`] naming file, line and field.
//!
//! Compression is detected by content, not by name: a file that starts with
//! the gzip magic bytes `1f 8b` is decompressed (all members, as `gzip`
//! itself does for concatenated files); anything else is read as is.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::num::IntErrorKind;
use std::path::{Path, PathBuf};

use flate2::bufread::MultiGzDecoder;

use crate::error::{Error, Result};

/// The two bytes every gzip member starts with (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Longest line accepted, in bytes, line terminator excluded. A trace line is
/// tens of bytes; a longer "line" means the file is not a text trace, and the
/// cap keeps memory bounded whatever the input.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Largest byte address a request may reach: `offset + size <= 2^63`.
pub const MAX_END_BYTES: u64 = 1 << 63;

/// Capacity of the buffers between file, decompressor and line reader.
const BUF_BYTES: usize = 64 * 1024;

/// Open `path` for buffered reading, decompressing it if it is gzip.
///
/// Errors: [`Error::Io`] naming the path if it cannot be opened or read.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let (magic, got) = read_magic(&mut file, path)?;
    // Put the bytes read back in front of the rest of the file.
    let head = io::Cursor::new(magic).take(got as u64);
    let raw = BufReader::with_capacity(BUF_BYTES, head.chain(file));
    if got == 2 && magic == GZIP_MAGIC {
        Ok(Box::new(BufReader::with_capacity(
            BUF_BYTES,
            MultiGzDecoder::new(raw),
        )))
    } else {
        Ok(Box::new(raw))
    }
}

/// Whether the file at `path` starts with the gzip magic bytes.
pub fn is_gzip(path: &Path) -> Result<bool> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let (magic, got) = read_magic(&mut file, path)?;
    Ok(got == 2 && magic == GZIP_MAGIC)
}

/// The first two bytes of `file` and how many there were (a file may be
/// shorter, and a read may return fewer bytes than asked for).
fn read_magic(file: &mut File, path: &Path) -> Result<([u8; 2], usize)> {
    let mut magic = [0u8; 2];
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

/// Reads a text file line by line into one reused buffer.
///
/// Lines are numbered from 1 (blank lines count). The terminator (`\n` or
/// `\r\n`) is stripped, a last line without a terminator is returned like
/// any other, and a UTF-8 byte-order mark at the very start is dropped. A
/// line that is not UTF-8, or longer than [`MAX_LINE_BYTES`], is an
/// [`Error::Parse`] with field `text`; a read or decompression failure is an
/// [`Error::Io`]. After an error the reader is exhausted.
pub struct LineReader {
    path: PathBuf,
    inner: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    line: u64,
    done: bool,
}

impl std::fmt::Debug for LineReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineReader")
            .field("path", &self.path)
            .field("line", &self.line)
            .field("done", &self.done)
            .finish()
    }
}

impl LineReader {
    /// Open `path` (plain or gzip) for reading lines.
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
        }
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
            Ok(true) => {}
            Ok(false) => {
                self.done = true;
                return Ok(None);
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
            Ok(text) => Ok(Some((self.line, text))),
            Err(e) => {
                self.done = true;
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

    /// Load the next raw line (terminator included) into `buf`; false at EOF.
    fn fill(&mut self) -> Result<bool> {
        self.buf.clear();
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let e = io::Error::new(
                        e.kind(),
                        format!("read failed after line {}: {e}", self.line),
                    );
                    return Err(Error::io(&self.path, e));
                }
            };
            if available.is_empty() {
                return Ok(!self.buf.is_empty());
            }
            let (take, found) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            if self.buf.len() + take > MAX_LINE_BYTES + 2 {
                return Err(parse_error(
                    &self.path,
                    self.line + 1,
                    "text",
                    format!("line longer than {MAX_LINE_BYTES} bytes; is this a text trace?"),
                ));
            }
            self.buf.extend_from_slice(&available[..take]);
            self.inner.consume(take);
            if found {
                return Ok(true);
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
pub fn quote(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("`{}…`", &text[..i]),
        None => format!("`{text}`"),
    }
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
    pub fn u64(&self, field: &str, text: &str) -> Result<u64> {
        parse_u64(text).map_err(|msg| self.error(field, msg))
    }

    /// Parse a non-negative decimal integer field that must fit in `u32`.
    pub fn u32(&self, field: &str, text: &str) -> Result<u32> {
        let v = self.u64(field, text)?;
        u32::try_from(v).map_err(|_| {
            self.error(
                field,
                format!("{} is too large (at most {})", quote(text, 40), u32::MAX),
            )
        })
    }

    /// Check that a request of `size` bytes at byte `offset` is non-empty and
    /// ends at or below [`MAX_END_BYTES`]. A zero size or an end too far is
    /// blamed on `size_field`, an offset that is itself too far on
    /// `offset_field`.
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
    fn time_order() {
        let p = Path::new("f");
        let mut t = TimeOrder::default();
        t.check(At::new(p, 1), "time", 5).unwrap();
        t.check(At::new(p, 2), "time", 5).unwrap();
        let e = t.check(At::new(p, 3), "time", 4).unwrap_err().to_string();
        assert!(e.contains("f:3: field `time`: timestamps go backwards; traces must be sorted"));
    }
}
