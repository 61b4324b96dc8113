//! The machinery every line-oriented trace reader shares.
//!
//! A format only says what one line means ([`LineFormat::parse`]): a request
//! ([`Parsed::Io`]), something that is not a request (a header, an event of
//! another kind, a discard, a flush, a row with a blank I/O type), or an
//! error. [`TraceReader`] does the rest, the same way for every format:
//!
//! 1. read a line (plain, gzip or zstd; blank lines are not records);
//! 2. parse it; with [`TraceOptions::skip_bad_lines`] a malformed line is
//!    skipped and counted instead of ending the stream;
//! 3. keep only the selected device ([`TraceOptions::device`]); with
//!    [`TraceOptions::side_by_side`] move device `i` to start at
//!    `i × device_stride` bytes;
//! 4. put records in time order through a bounded reorder window of
//!    [`TraceOptions::sort_window`] records ([`DEFAULT_SORT_WINDOW`] unless
//!    set; 0 asks for strict order, where a timestamp smaller than the
//!    previous one is an error); see below;
//! 5. rebase absolute clocks (Unix time, FILETIME) to the first record kept,
//!    so that such traces start at 0; relative clocks are kept as they are;
//! 6. drop the first [`TraceOptions::skip_records`] records and those before
//!    [`TraceOptions::start_ns`];
//! 7. stop after [`TraceOptions::limit`] records.
//!
//! Everything dropped on the way is counted in the shared
//! [`ReadCounters`](super::ReadCounters) handle of the options.
//!
//! ## Why a bounded reorder window, not a full sort
//!
//! Sorting a whole trace needs all of it in memory (40 bytes per record: a
//! 100-million-record trace would take 4 GB) and delays the first record
//! until the last line is read. Real traces are out of order only locally —
//! per-CPU buffers merged by blkparse or ETW, requests logged at completion
//! rather than at arrival, clocks of one-second resolution — so a buffer of
//! the last `w` records (about 48 bytes each) puts them in order with
//! constant memory: records that arrive in order queue up as they are (no
//! cost beyond the copy), late ones go to a min-heap, and the earliest of
//! the two is delivered once `w` records wait. A record that is later than
//! the window can repair (its time is below a record already delivered) is
//! an error naming its line, the window and a larger one to try (`--sort
//! N`), so the user can enlarge it; nothing is silently misplaced. Records
//! with equal times keep their file order, so a trace in order is delivered
//! exactly as it is written, whatever the window. Records put back in order
//! are counted in [`ReadCounters::reordered`](super::ReadCounters).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use super::input::{is_blank, split_trimmed, At, LineReader, MAX_END_BYTES, MAX_TIME_NS};
use super::{IoRecord, Op, ReadCounters, TraceFormat, TraceOptions, DEFAULT_SORT_WINDOW};
use crate::error::{Error, Result};

/// One request as a format reads it, before the shared pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Raw {
    /// Arrival time in nanoseconds on the trace's own clock.
    pub time_ns: u64,
    /// Device, disk, ASU, LUN or volume number.
    pub device: u32,
    pub op: Op,
    /// Byte offset on the device.
    pub offset: u64,
    /// Length in bytes (> 0; `offset + size <= 2^63`).
    pub size: u64,
    /// The request also asked for a cache flush before it (blkparse `F`
    /// prefix); counted in `flushes`, the data part is replayed.
    pub preflush: bool,
}

/// What one non-blank line of a trace is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// Not a record: a header, a comment, summary text.
    Nothing,
    /// A request to replay. A discard is one with [`Op::Trim`]: counted in
    /// `discards` unless [`TraceOptions::replay_trims`] asks to deliver it.
    Io(Raw),
    /// A row that is not a block request (another kind of event, a
    /// blkparse action other than the one replayed); counted in `non_io`.
    NotIo,
    /// A row whose I/O type is blank (SYSTOR '17: no response was seen);
    /// dropped and counted in `blank_type`.
    BlankType,
    /// A cache flush of this device without data: counted in `flushes`, not
    /// replayed.
    Flush(u32),
    /// A header line between records (a header repeated where traces were
    /// joined, or a line a described format's `header` pattern matches
    /// after the first record); counted in `repeated_headers`.
    RepeatedHeader,
}

/// A line-oriented trace format.
pub trait LineFormat: Send + 'static {
    /// Which format this is.
    const FORMAT: TraceFormat;
    /// Whether timestamps are absolute clock times (rebased to the first
    /// record kept) rather than times since the start of the trace.
    const ABSOLUTE_TIME: bool;
    /// Field names used in errors found by the shared pipeline.
    const TIME_FIELD: &'static str;
    const OFFSET_FIELD: &'static str;
    const SIZE_FIELD: &'static str;

    /// A parser in its initial state.
    fn new(options: &TraceOptions) -> Self;

    /// Whether this reader's timestamps are absolute ([`Self::ABSOLUTE_TIME`]
    /// unless the format decides at run time, as a described format does).
    fn absolute_time(&self) -> bool {
        Self::ABSOLUTE_TIME
    }

    /// Parse one non-blank line. Errors are [`Error::Parse`] at `at`.
    fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed>;
}

/// A record between the stages of the pipeline; ordered by time, then file
/// order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamped {
    time_ns: u64,
    /// File order, so that equal times keep it.
    seq: u64,
    line: u64,
    op: Op,
    offset: u64,
    size: u64,
}

impl PartialOrd for Stamped {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Stamped {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.time_ns, self.seq).cmp(&(other.time_ns, other.seq))
    }
}

/// Streaming reader of a trace in format `F` (plain, gzip or zstd), with the
/// options of [`TraceOptions`]. Yields records in time order and stops at the
/// first error (after delivering the records read before it).
pub struct TraceReader<F: LineFormat> {
    lines: LineReader,
    path: PathBuf,
    format: F,
    options: TraceOptions,
    counters: Arc<ReadCounters>,
    /// The record between stages (passed in place: moving it inside
    /// `Result`s, which are as large as an error, costs more than reading).
    cur: Stamped,
    /// Records handed on so far by the filter stage (file order).
    seq: u64,
    /// Largest time delivered by the order stage.
    last_ns: Option<u64>,
    /// Line of the record that set `last_ns`.
    last_line: u64,
    /// Largest time read so far (records below it arrive late).
    max_read_ns: u64,
    /// Smallest time read so far and how many records were read (for the
    /// window a too-late record would need).
    min_read_ns: u64,
    read: u64,
    /// The reorder window in records (0: strict order).
    window: usize,
    /// The records read but not delivered, in two parts whose union is the
    /// reorder buffer: those that arrived in order (each at or after every
    /// record before it), which are therefore sorted, and those that
    /// arrived late, in a min-heap. An in-order trace never touches the
    /// heap, so the window costs it next to nothing.
    in_order: VecDeque<Stamped>,
    late: BinaryHeap<Reverse<Stamped>>,
    /// Whether the filter stage has reached the end of the input.
    input_done: bool,
    /// An error met while records were still in the window.
    pending: Option<Error>,
    /// Time origin of absolute clocks: the first record kept.
    origin: Option<u64>,
    /// Records dropped so far by `skip_records`.
    skipped: u64,
    /// Records delivered but not yet added to `counters.records` (added in
    /// batches: an atomic add per record costs as much as parsing a field).
    unpublished: u64,
    remaining: Option<u64>,
    done: bool,
}

impl<F: LineFormat> std::fmt::Debug for TraceReader<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceReader")
            .field("format", &F::FORMAT.name())
            .field("path", &self.path)
            .field("line", &self.lines.line_number())
            .field("done", &self.done)
            .finish()
    }
}

impl<F: LineFormat> TraceReader<F> {
    /// Open `path` (plain, gzip or zstd). Resets the counters of `options`.
    ///
    /// Errors: [`Error::Invalid`] for inconsistent options, [`Error::Io`]
    /// if the file cannot be opened.
    pub fn open(path: &Path, options: &TraceOptions) -> Result<TraceReader<F>> {
        options.validate()?;
        TraceReader::from_lines(LineReader::open(path)?, options)
    }

    /// Read records from an already open line reader. Resets the counters
    /// of `options`.
    pub fn from_lines(mut lines: LineReader, options: &TraceOptions) -> Result<TraceReader<F>> {
        options.validate()?;
        lines.resume_after_bad_text(options.skip_bad_lines);
        options.counters.reset();
        Ok(TraceReader {
            path: lines.path().to_path_buf(),
            lines,
            format: F::new(options),
            options: options.clone(),
            counters: options.counters.clone(),
            cur: Stamped {
                time_ns: 0,
                seq: 0,
                line: 0,
                op: Op::Read,
                offset: 0,
                size: 0,
            },
            seq: 0,
            last_ns: None,
            last_line: 0,
            max_read_ns: 0,
            min_read_ns: u64::MAX,
            read: 0,
            window: options.window(),
            in_order: VecDeque::new(),
            late: BinaryHeap::new(),
            input_done: false,
            pending: None,
            origin: None,
            skipped: 0,
            unpublished: 0,
            remaining: options.limit,
            done: false,
        })
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The counters this reader updates (those of its options).
    pub fn counters(&self) -> &Arc<ReadCounters> {
        &self.counters
    }

    /// Add the records delivered since the last call to the counters.
    fn publish(&mut self) {
        if self.unpublished > 0 {
            self.counters.records.fetch_add(self.unpublished, Relaxed);
            self.unpublished = 0;
        }
    }

    /// Stage 1-3: the next request of the selected device, in file order,
    /// into `cur`; false at the end of the input.
    #[inline]
    fn next_filtered(&mut self) -> Result<bool> {
        loop {
            let (line, text) = match self.lines.next_line() {
                Ok(Some(l)) => l,
                Ok(None) => return Ok(false),
                Err(e @ Error::Parse { .. }) if self.options.skip_bad_lines => {
                    self.counters.bad_line(&e);
                    continue;
                }
                Err(e) => return Err(e),
            };
            if blank(text) {
                continue;
            }
            let at = At::new(&self.path, line);
            let parsed = match self.format.parse(at, text) {
                Ok(p) => p,
                Err(e @ Error::Parse { .. }) if self.options.skip_bad_lines => {
                    self.counters.bad_line(&e);
                    continue;
                }
                Err(e) => return Err(e),
            };
            let c = &self.counters;
            let wanted = |d: u32| self.options.device.is_none_or(|w| w == d);
            match parsed {
                Parsed::Nothing => {}
                Parsed::RepeatedHeader => {
                    c.repeated_headers.fetch_add(1, Relaxed);
                }
                Parsed::NotIo => {
                    c.non_io.fetch_add(1, Relaxed);
                }
                Parsed::BlankType => {
                    c.blank_type.fetch_add(1, Relaxed);
                }
                Parsed::Flush(d) if !wanted(d) => {
                    c.filtered.fetch_add(1, Relaxed);
                }
                Parsed::Flush(_) => {
                    c.flushes.fetch_add(1, Relaxed);
                }
                Parsed::Io(raw) if !wanted(raw.device) => {
                    c.filtered.fetch_add(1, Relaxed);
                }
                Parsed::Io(raw) if raw.op == Op::Trim && !self.options.replay_trims => {
                    c.discards.fetch_add(1, Relaxed);
                }
                Parsed::Io(raw) => {
                    let offset = match self.place(at, &raw) {
                        Ok(o) => o,
                        Err(e) if self.options.skip_bad_lines => {
                            self.counters.bad_line(&e);
                            continue;
                        }
                        Err(e) => return Err(e),
                    };
                    if raw.preflush {
                        c.flushes.fetch_add(1, Relaxed);
                    }
                    if raw.op == Op::Trim {
                        c.trims.fetch_add(1, Relaxed);
                    }
                    self.seq += 1;
                    let s = Stamped {
                        time_ns: raw.time_ns,
                        seq: self.seq,
                        line,
                        op: raw.op,
                        offset,
                        size: raw.size,
                    };
                    self.cur = s;
                    return Ok(true);
                }
            }
        }
    }

    /// The byte offset of `raw` on the simulated drive: its own, or with
    /// side-by-side devices `device × stride` further.
    fn place(&self, at: At<'_>, raw: &Raw) -> Result<u64> {
        if !self.options.side_by_side {
            return Ok(raw.offset);
        }
        let stride = self.options.device_stride.unwrap_or(u64::MAX);
        let end = raw.offset + raw.size; // checked by the format
        if end > stride {
            return Err(at.error(
                F::SIZE_FIELD,
                format!(
                    "request end {end} bytes is beyond the device stride of {stride} bytes, \
                     so device {} would overlap device {}; use a larger stride",
                    raw.device,
                    u64::from(raw.device) + 1
                ),
            ));
        }
        u64::from(raw.device)
            .checked_mul(stride)
            .and_then(|base| base.checked_add(raw.offset))
            .filter(|start| {
                start
                    .checked_add(raw.size)
                    .is_some_and(|e| e <= MAX_END_BYTES)
            })
            .ok_or_else(|| {
                at.error(
                    F::OFFSET_FIELD,
                    format!(
                        "device {} × stride {stride} bytes + offset {} is beyond 2^63 bytes",
                        raw.device, raw.offset
                    ),
                )
            })
    }

    /// Stage 4: the next request in time order, into `cur`; false at the
    /// end.
    #[inline]
    fn next_ordered(&mut self) -> Result<bool> {
        let window = self.window;
        if window == 0 {
            if !self.next_filtered()? {
                return Ok(false);
            }
            let (time_ns, line) = (self.cur.time_ns, self.cur.line);
            self.note_read(time_ns);
            if let Some(prev) = self.last_ns.filter(|&p| time_ns < p) {
                let (n, mib) = self.suggest_window(time_ns);
                let fix = if n <= DEFAULT_SORT_WINDOW as u64 {
                    format!(
                        "leave out --sort 0 to use the default reorder window of \
                         {DEFAULT_SORT_WINDOW} records"
                    )
                } else {
                    format!("use a reorder window, e.g. --sort {n} (about {mib} MiB)")
                };
                return Err(At::new(&self.path, line).error(
                    F::TIME_FIELD,
                    format!(
                        "timestamps go backwards ({time_ns} ns after {prev} ns at line {}) and \
                         strict time order was asked for (--sort 0); {fix}",
                        self.last_line
                    ),
                ));
            }
            self.last_ns = Some(time_ns);
            self.last_line = line;
            return Ok(true);
        }
        while !self.input_done && self.in_order.len() + self.late.len() <= window {
            match self.next_filtered() {
                Ok(true) => {
                    let s = self.cur;
                    self.note_read(s.time_ns);
                    if let Some(prev) = self.last_ns.filter(|&p| s.time_ns < p) {
                        let (n, mib) = self.suggest_window(s.time_ns);
                        let e = At::new(&self.path, s.line).error(
                            F::TIME_FIELD,
                            format!(
                                "timestamp {} ns is earlier than {prev} ns (line {}), which was \
                                 already delivered: the record is out of order by more than the \
                                 reorder window of {window} records; use a larger window, \
                                 e.g. --sort {n} (about {mib} MiB)",
                                s.time_ns, self.last_line
                            ),
                        );
                        self.input_done = true;
                        self.pending = Some(e);
                        break;
                    }
                    if s.time_ns < self.max_read_ns {
                        self.counters.reordered.fetch_add(1, Relaxed);
                        self.late.push(Reverse(s));
                    } else {
                        self.max_read_ns = s.time_ns;
                        self.in_order.push_back(s);
                    }
                }
                Ok(false) => self.input_done = true,
                Err(e) => {
                    self.input_done = true;
                    self.pending = Some(e);
                }
            }
        }
        let from_late = match (self.in_order.front(), self.late.peek()) {
            (Some(first), Some(Reverse(late))) => late < first,
            (None, Some(_)) => true,
            _ => false,
        };
        let next = if from_late {
            self.late.pop().map(|Reverse(s)| s)
        } else {
            self.in_order.pop_front()
        };
        match next {
            Some(s) => {
                self.last_ns = Some(s.time_ns);
                self.last_line = s.line;
                self.cur = s;
                Ok(true)
            }
            None => match self.pending.take() {
                Some(e) => Err(e),
                None => Ok(false),
            },
        }
    }

    /// Count a record read at `time_ns` (for [`Self::suggest_window`]).
    #[inline]
    fn note_read(&mut self, time_ns: u64) {
        self.read += 1;
        self.min_read_ns = self.min_read_ns.min(time_ns);
    }

    /// A reorder window (records, and its memory in MiB) likely to repair a
    /// record at `time_ns` that came too late: twice the number of records
    /// the trace holds, at its mean rate so far, between `time_ns` and the
    /// latest time read, rounded up to a power of two, and at least twice
    /// the current window. An estimate: the message says "e.g.".
    fn suggest_window(&self, time_ns: u64) -> (u64, u64) {
        let latest = self.max_read_ns.max(self.last_ns.unwrap_or(0));
        let span = latest.saturating_sub(self.min_read_ns);
        let back = latest.saturating_sub(time_ns);
        let within = if span == 0 {
            self.read
        } else {
            (u128::from(back) * u128::from(self.read)).div_ceil(u128::from(span)) as u64
        };
        let floor = (self.window as u64).max(DEFAULT_SORT_WINDOW as u64 / 2);
        let n = within
            .max(floor)
            .saturating_mul(2)
            .checked_next_power_of_two()
            .unwrap_or(u64::MAX);
        let bytes = n.saturating_mul(std::mem::size_of::<Stamped>() as u64);
        (n, bytes.div_ceil(1 << 20))
    }

    /// Stages 5-6: the next record to deliver, into `cur` (time rebased);
    /// false at the end.
    #[inline]
    fn next_record(&mut self) -> Result<bool> {
        loop {
            if !self.next_ordered()? {
                return Ok(false);
            }
            let t = self.cur.time_ns;
            let time_ns = if self.format.absolute_time() {
                // in time order, so never below the origin
                t - *self.origin.get_or_insert(t)
            } else {
                t
            };
            if time_ns > MAX_TIME_NS {
                let e = At::new(&self.path, self.cur.line).error(
                    F::TIME_FIELD,
                    format!(
                        "time {time_ns} ns{} is beyond 2^62 ns (146 years), the longest a simulation runs",
                        if self.format.absolute_time() {
                            " after the first record kept"
                        } else {
                            ""
                        }
                    ),
                );
                if self.options.skip_bad_lines {
                    self.counters.bad_line(&e);
                    continue;
                }
                return Err(e);
            }
            if self.skipped < self.options.skip_records || time_ns < self.options.start_ns {
                self.skipped = self.skipped.saturating_add(1);
                self.counters.before_start.fetch_add(1, Relaxed);
                continue;
            }
            self.unpublished += 1;
            if self.unpublished == PUBLISH_EVERY {
                self.publish();
            }
            self.cur.time_ns = time_ns;
            return Ok(true);
        }
    }
}

/// How many delivered records [`TraceReader`] counts before adding them to
/// `counters.records` (all are added at the end of the stream, at an error
/// and when the reader is dropped).
const PUBLISH_EVERY: u64 = 4096;

impl<F: LineFormat> Drop for TraceReader<F> {
    fn drop(&mut self) {
        self.publish();
    }
}

impl<F: LineFormat> Iterator for TraceReader<F> {
    type Item = Result<IoRecord>;

    fn next(&mut self) -> Option<Result<IoRecord>> {
        if self.done || self.remaining == Some(0) {
            self.publish();
            return None;
        }
        match self.next_record() {
            Ok(true) => {
                if let Some(n) = self.remaining.as_mut() {
                    *n -= 1;
                }
                let s = &self.cur;
                Some(Ok(IoRecord::new(s.time_ns, s.op, s.offset, s.size)))
            }
            Ok(false) => {
                self.done = true;
                self.publish();
                None
            }
            Err(e) => {
                self.done = true;
                self.publish();
                Some(Err(e))
            }
        }
    }
}

/// Whether a line holds only whitespace ([`is_blank`], with a fast answer
/// for the usual line that starts with a visible ASCII character).
#[inline]
fn blank(text: &str) -> bool {
    match text.as_bytes().first() {
        None => true,
        Some(b) if b.is_ascii_graphic() => false,
        _ => is_blank(text),
    }
}

/// Tracks whether the next non-blank line is the first of the file, which
/// CSV formats accept as an optional header, and recognises that header
/// when it comes again between records (traces joined from several files
/// repeat it).
#[derive(Clone, Debug, Default)]
pub struct FirstLine {
    seen: bool,
    /// The header line (trimmed), once one was read.
    header: Option<String>,
    /// Whether the last line given was a repeat of the header.
    repeated: bool,
}

impl FirstLine {
    /// Whether `text` is a header: the first non-blank line, with a first
    /// field (up to `sep`) that starts with a letter, or a line equal to
    /// that first header (surrounding whitespace aside). Call once per
    /// line.
    pub fn is_header(&mut self, text: &str, sep: char) -> bool {
        let first = !self.seen;
        self.seen = true;
        self.repeated = false;
        if !first {
            self.repeated = self.header.as_deref() == Some(text.trim());
            return self.repeated;
        }
        let header = text
            .split(sep)
            .next()
            .unwrap_or("")
            .trim()
            .starts_with(|c: char| c.is_ascii_alphabetic());
        if header {
            self.header = Some(text.trim().to_string());
        }
        header
    }

    /// What a header line is: nothing for the first, a repeated header
    /// (counted) for the others.
    pub fn skipped(&self) -> Parsed {
        if self.repeated {
            Parsed::RepeatedHeader
        } else {
            Parsed::Nothing
        }
    }

    /// The `N` comma-separated, trimmed fields of a CSV line of `layout`, or
    /// None if it is the (optional) header or a repeat of it ([`skipped`]
    /// says which). A header must have the record's field count too;
    /// `extra_ok` accepts lines with more than `N` fields (SPC's optional
    /// trailing columns). Call once per line.
    ///
    /// [`skipped`]: FirstLine::skipped
    pub fn csv<'t, const N: usize>(
        &mut self,
        at: At<'_>,
        text: &'t str,
        layout: &str,
        extra_ok: bool,
    ) -> Result<Option<[&'t str; N]>> {
        let header = self.is_header(text, ',');
        if self.repeated {
            return Ok(None);
        }
        let (fields, n) = split_trimmed::<N>(text, ',');
        if !(extra_ok && n > N) {
            at.field_count(n, N, "comma-separated", layout, text)?;
        }
        Ok((!header).then_some(fields))
    }
}

/// `sectors × 512` bytes, or an error in `field` if that is beyond 2^63.
#[inline]
pub fn sectors_to_bytes(at: At<'_>, field: &str, sectors: u64) -> Result<u64> {
    sectors
        .checked_mul(512)
        .filter(|&b| b <= MAX_END_BYTES)
        .ok_or_else(|| {
            at.error(
                field,
                format!("{sectors} sectors of 512 bytes is beyond 2^63 bytes"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BlkparseAction;

    /// A toy format: `time device offset size` (bytes, relative ns), with
    /// `N` rows not I/O, `B` blank type, `D`/`F` discard/flush of device 0.
    struct Toy;

    impl LineFormat for Toy {
        const FORMAT: TraceFormat = TraceFormat::Mqsim;
        const ABSOLUTE_TIME: bool = false;
        const TIME_FIELD: &'static str = "time";
        const OFFSET_FIELD: &'static str = "offset";
        const SIZE_FIELD: &'static str = "size";
        fn new(_: &TraceOptions) -> Self {
            Toy
        }
        fn parse(&mut self, at: At<'_>, text: &str) -> Result<Parsed> {
            match text.trim() {
                "N" => return Ok(Parsed::NotIo),
                "B" => return Ok(Parsed::BlankType),
                "F" => return Ok(Parsed::Flush(0)),
                "#" => return Ok(Parsed::Nothing),
                _ => {}
            }
            // `time device offset size`, or a discard: the same and `d`.
            let (f, n) = super::super::input::split_whitespace::<5>(text);
            let trim = n == 5 && f[4] == "d";
            at.field_count(
                n - trim as usize,
                4,
                "whitespace-separated",
                "time device offset size",
                text,
            )?;
            let (offset, size) = (at.u64("offset", f[2])?, at.u64("size", f[3])?);
            at.extent(offset, size, "offset", "size")?;
            Ok(Parsed::Io(Raw {
                time_ns: at.u64("time", f[0])?,
                device: at.u32("device", f[1])?,
                op: if trim { Op::Trim } else { Op::Read },
                offset,
                size,
                preflush: false,
            }))
        }
    }

    fn read(text: &str, options: &TraceOptions) -> Vec<Result<IoRecord>> {
        let lines = LineReader::from_reader("t", Box::new(std::io::Cursor::new(text.to_string())));
        TraceReader::<Toy>::from_lines(lines, options)
            .unwrap()
            .collect()
    }

    fn times(text: &str, options: &TraceOptions) -> Vec<u64> {
        read(text, options)
            .into_iter()
            .map(|r| r.unwrap().time_ns)
            .collect()
    }

    #[test]
    fn counts_what_is_not_replayed() {
        let o = TraceOptions {
            device: Some(0),
            ..TraceOptions::default()
        };
        let text = "1 0 0 8\nN\nB\n1 0 8 8 d\nF\n#\n2 1 0 8\n3 0 0 8\n";
        assert_eq!(times(text, &o), vec![1, 3]);
        let c = o.counters.snapshot();
        assert_eq!(
            (
                c.records,
                c.non_io,
                c.blank_type,
                c.discards,
                c.flushes,
                c.filtered
            ),
            (2, 1, 1, 1, 1, 1)
        );
    }

    #[test]
    fn discards_are_delivered_as_trims_when_asked() {
        let text = "1 0 0 8\n2 0 8 16 d\n3 1 0 8 d\n4 0 0 8\n";
        let o = TraceOptions {
            device: Some(0),
            replay_trims: true,
            ..TraceOptions::default()
        };
        let got: Vec<_> = read(text, &o).into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(
            got.iter().map(|r| (r.time_ns, r.op)).collect::<Vec<_>>(),
            vec![(1, Op::Read), (2, Op::Trim), (4, Op::Read)]
        );
        assert_eq!((got[1].offset, got[1].size), (8, 16));
        let c = o.counters.snapshot();
        assert_eq!((c.records, c.trims, c.discards, c.filtered), (3, 1, 0, 1));
        assert!(c.to_string().contains("1 discards replayed as trims"));
    }

    #[test]
    fn window_sorts_and_reports_what_it_cannot() {
        let text = "10 0 0 8\n30 0 0 8\n20 0 0 8\n20 0 8 8\n40 0 0 8\n5 0 0 8\n";
        let strict = TraceOptions {
            sort_window: Some(0),
            ..TraceOptions::default()
        };
        let e = read(text, &strict)
            .into_iter()
            .find_map(|r| r.err())
            .unwrap()
            .to_string();
        assert!(
            e.contains("t:3: field `time`: timestamps go backwards")
                && e.contains("leave out --sort 0 to use the default reorder window of 65536"),
            "{e}"
        );
        // the default window repairs it
        let default = TraceOptions::default();
        let got: Vec<u64> = read(text, &default)
            .into_iter()
            .map(|r| r.unwrap().time_ns)
            .collect();
        assert_eq!(got, vec![5, 10, 20, 20, 30, 40]);
        assert_eq!(default.counters.snapshot().reordered, 3);
        let sorted = TraceOptions {
            sort_window: Some(8),
            ..TraceOptions::default()
        };
        let got: Vec<_> = read(text, &sorted)
            .into_iter()
            .map(|r| r.unwrap())
            .collect();
        let want: Vec<(u64, u64)> = vec![(5, 0), (10, 0), (20, 0), (20, 8), (30, 0), (40, 0)];
        assert_eq!(
            got.iter()
                .map(|r| (r.time_ns, r.offset))
                .collect::<Vec<_>>(),
            want,
            "equal times keep file order"
        );
        assert_eq!(sorted.counters.snapshot().reordered, 3);
        // a window of 1 repairs the swap of neighbours, not the late 5
        let small = TraceOptions {
            sort_window: Some(1),
            ..TraceOptions::default()
        };
        let items = read(text, &small);
        let e = items.last().unwrap().as_ref().unwrap_err().to_string();
        assert!(
            e.contains("t:6: field `time`")
                && e.contains("window of 1 records")
                && e.contains("--sort 65536"),
            "{e}"
        );
        assert_eq!(items.len(), 6, "five records, then the error");
    }

    #[test]
    fn in_order_traces_are_delivered_as_written() {
        // equal times keep file order whatever the window, and nothing is
        // counted as reordered
        let text = "1 0 0 8\n1 0 8 8\n2 0 0 8\n2 0 16 8\n2 0 8 8\n3 0 0 8\n";
        for w in [Some(0), Some(1), Some(2), None] {
            let o = TraceOptions {
                sort_window: w,
                ..TraceOptions::default()
            };
            let got: Vec<(u64, u64)> = read(text, &o)
                .into_iter()
                .map(|r| r.map(|r| (r.time_ns, r.offset)).unwrap())
                .collect();
            assert_eq!(
                got,
                vec![(1, 0), (1, 8), (2, 0), (2, 16), (2, 8), (3, 0)],
                "{w:?}"
            );
            assert_eq!(o.counters.snapshot().reordered, 0);
        }
    }

    #[test]
    fn suggested_window_follows_the_trace_rate() {
        // 1000 records a second for 3 s, then one record 2 s late: about
        // 2000 records would have to wait, so a window of 2 × 2000 rounded
        // up to a power of two is suggested (and at least 65536)
        let mut text = String::new();
        for i in 0..3000u64 {
            text.push_str(&format!("{} 0 0 8\n", i * 1_000_000));
        }
        text.push_str("1000000000 0 0 8\n");
        let o = TraceOptions {
            sort_window: Some(100),
            ..TraceOptions::default()
        };
        let e = read(&text, &o)
            .into_iter()
            .find_map(|r| r.err())
            .unwrap()
            .to_string();
        assert!(
            e.contains("t:3001: field `time`") && e.contains("--sort 65536"),
            "{e}"
        );
        let mut text = String::new();
        for i in 0..100_000u64 {
            text.push_str(&format!("{} 0 0 8\n", i * 10_000));
        }
        text.push_str("1 0 0 8\n");
        let e = read(&text, &TraceOptions::default())
            .into_iter()
            .find_map(|r| r.err())
            .unwrap()
            .to_string();
        // 100,000 records all after the late one: 2 × 100,000 → 262,144
        assert!(e.contains("--sort 262144 (about 12 MiB)"), "{e}");
    }

    #[test]
    fn skip_start_limit() {
        let text = "1 0 0 8\n2 0 0 8\n3 0 0 8\n4 0 0 8\n5 0 0 8\n";
        let o = |skip, start, limit| TraceOptions {
            skip_records: skip,
            start_ns: start,
            limit,
            ..TraceOptions::default()
        };
        assert_eq!(times(text, &o(2, 0, None)), vec![3, 4, 5]);
        assert_eq!(times(text, &o(0, 4, None)), vec![4, 5]);
        assert_eq!(times(text, &o(1, 3, Some(1))), vec![3]);
        let opts = o(3, 2, None);
        assert_eq!(times(text, &opts), vec![4, 5]);
        assert_eq!(opts.counters.snapshot().before_start, 3);
    }

    #[test]
    fn side_by_side() {
        let o = TraceOptions {
            side_by_side: true,
            device_stride: Some(100),
            ..TraceOptions::default()
        };
        let got: Vec<_> = read("1 0 0 8\n2 3 92 8\n", &o)
            .into_iter()
            .map(|r| r.unwrap().offset)
            .collect();
        assert_eq!(got, vec![0, 392]);
        let e = read("1 2 93 8\n", &o)[0].as_ref().unwrap_err().to_string();
        assert!(
            e.contains("t:1: field `size`") && e.contains("stride"),
            "{e}"
        );
        let huge = TraceOptions {
            side_by_side: true,
            device_stride: Some(1 << 62),
            ..TraceOptions::default()
        };
        let e = read("1 2 0 8\n", &huge)[0]
            .as_ref()
            .unwrap_err()
            .to_string();
        assert!(e.contains("field `offset`") && e.contains("2^63"), "{e}");
        let missing = TraceOptions {
            side_by_side: true,
            ..TraceOptions::default()
        };
        let lines = LineReader::from_reader("t", Box::new(&b""[..]));
        let e = TraceReader::<Toy>::from_lines(lines, &missing).unwrap_err();
        assert!(
            matches!(e, Error::Invalid(_)) && e.to_string().contains("stride"),
            "{e}"
        );
    }

    #[test]
    fn skip_bad_lines_counts_and_keeps_the_first() {
        let o = TraceOptions {
            skip_bad_lines: true,
            blkparse_action: BlkparseAction::Issue,
            ..TraceOptions::default()
        };
        let text = "1 0 0 8\n2 0 x 8\n3 0\n4 0 0 8\n";
        assert_eq!(times(text, &o), vec![1, 4]);
        let c = o.counters.snapshot();
        assert_eq!(c.bad_lines, 2);
        let first = c.first_bad_line.unwrap();
        assert!(first.starts_with("t:2: field `offset`"), "{first}");
    }
}
