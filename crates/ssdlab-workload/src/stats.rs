//! Statistics of a trace, computed in one streaming pass.
//!
//! [`TraceStats::compute`] reads a stream of [`IoRecord`]s once and
//! summarises it: request counts and shares, volumes, footprint, request
//! sizes, arrival process and locality. Every statistic is defined on its
//! field below; the short version:
//!
//! * **Pages.** Addresses are cut into pages of `page_bytes` (4096 by
//!   default). A request of `size` bytes at `offset` *touches* the pages
//!   `offset / page_bytes ..= (offset + size - 1) / page_bytes`, so a 4 KiB
//!   request that is not page-aligned touches two pages.
//! * **Shares** are fractions in \[0, 1\]. A ratio whose denominator is zero
//!   (the read share of an empty trace, the mean read size of a trace without
//!   reads, …) is `None` (`null` in JSON), never NaN.
//! * **Times** are the records' arrival times. The duration is the last
//!   arrival minus the first; the inter-arrival gaps are the differences of
//!   consecutive arrivals (n records, n − 1 gaps). Times must not decrease
//!   (the trace readers already enforce this; an in-memory stream that goes
//!   backwards is an [`Error::Invalid`]).
//! * **Burstiness** is the coefficient of variation of the inter-arrival
//!   gaps: population standard deviation divided by mean. It is 0 for
//!   perfectly regular arrivals, 1 for a Poisson process, and above 1 for
//!   bursty traffic.
//! * **Hotness.** The *write count* of a page is the number of write
//!   requests that touch it; a *page write* is one (write request, page)
//!   pair, so the page writes of a trace are the sum of all write counts.
//!   `hot10_page_write_share` is the share of all page writes that land on
//!   the ⌈10 % × W⌉ pages with the highest write counts, W being the number
//!   of distinct pages written (ties at the boundary do not matter: the sum
//!   of the top k counts is the same whichever tied page is picked). Likewise
//!   for 20 %. A trace that writes all its written pages equally often has
//!   shares of 0.1 and 0.2 (uniformly random writes come out higher, by the
//!   random spread of the counts: about 0.16 and 0.30 at ten writes per
//!   page); "80 % of the writes go to 20 % of the data" is a 20 % share of
//!   0.8.
//! * **Sequentiality.** A request *continues* its direction when its offset
//!   equals the end (offset + size) of the previous request of the same
//!   direction (a read continues the previous read, whatever writes came in
//!   between). The first read and the first write continue nothing.
//!
//! # Memory
//!
//! Counters are O(1). Footprint and hotness need one entry per distinct page
//! touched, kept in a hash map from page number (`u64`) to a `u32` whose low
//! 31 bits count the page's writes (saturating at 2^31 − 1) and whose top bit
//! marks that it was read. Each bucket takes 12 bytes padded to 16 plus one
//! control byte, and the table keeps between 8/7 and 16/7 buckets per entry
//! (it doubles when 7/8 full), so a distinct page costs 19.4 to 38.9 bytes,
//! about 30 on average — 2^19 buckets, 8.5 MiB, for a 1 GiB footprint of
//! 4 KiB pages. At the end, [`StatsAccumulator::finish`] copies the write
//! counts into a vector (4 bytes per written page) to select the hottest
//! pages. Nothing else grows with the trace: a trace of any length over a
//! fixed footprint runs in constant memory. Pages are visited one by one,
//! so time grows with the pages a request touches; a request of more than
//! [`MAX_REQUEST_PAGES`] pages is refused as bogus.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::writer::IntoRecord;
use super::{IoRecord, Op};
use crate::error::{Error, Result};

/// Page size of the footprint and locality statistics unless told otherwise.
pub const DEFAULT_PAGE_BYTES: u64 = 4096;

/// Largest number of pages one request may touch (4 GiB of 4 KiB pages; real
/// block requests are at most megabytes). Pages are counted one by one, so
/// a bogus multi-terabyte request would otherwise take hours.
pub const MAX_REQUEST_PAGES: u64 = 1 << 20;

/// Top bit of a page's entry: the page was read.
const READ_BIT: u32 = 1 << 31;
/// Low bits of a page's entry: its write count (saturating).
const COUNT_MASK: u32 = READ_BIT - 1;

/// Summary statistics of a trace; see the [module documentation](self) for
/// the definitions. Serialises (JSON) with the field names as keys; byte
/// quantities are in bytes, times in the unit their name says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceStats {
    /// Page size the footprint and locality figures are computed with.
    pub page_bytes: u64,

    /// Number of requests.
    pub requests: u64,
    /// Number of read requests.
    pub read_requests: u64,
    /// Number of write requests.
    pub write_requests: u64,
    /// Number of discards replayed as trims (`replay_trims`; not in the
    /// read or write figures below, nor in the footprint).
    #[serde(default)]
    pub trim_requests: u64,
    /// Bytes the trims cover.
    #[serde(default)]
    pub trim_bytes: u64,
    /// `read_requests / requests`.
    pub read_share: Option<f64>,
    /// `write_requests / requests`.
    pub write_share: Option<f64>,

    /// Bytes read: the sum of the read requests' sizes (read volume).
    pub read_bytes: u64,
    /// Bytes written: the sum of the write requests' sizes (write volume).
    pub write_bytes: u64,
    /// `read_bytes / (read_bytes + write_bytes)`.
    pub read_byte_share: Option<f64>,
    /// `write_bytes / (read_bytes + write_bytes)`.
    pub write_byte_share: Option<f64>,
    /// Mean size of a read request, bytes.
    pub mean_read_size_bytes: Option<f64>,
    /// Mean size of a write request, bytes.
    pub mean_write_size_bytes: Option<f64>,
    /// Mean number of pages a write request touches.
    pub mean_write_size_pages: Option<f64>,
    /// Write requests touching more than one page.
    pub large_writes: u64,
    /// `large_writes / write_requests`.
    pub large_write_share: Option<f64>,

    /// Distinct pages touched by any request.
    pub footprint_pages: u64,
    /// `footprint_pages * page_bytes`.
    pub footprint_bytes: u64,
    /// Distinct pages touched by a read.
    pub read_footprint_pages: u64,
    /// `read_footprint_pages * page_bytes`.
    pub read_footprint_bytes: u64,
    /// Distinct pages touched by a write.
    pub write_footprint_pages: u64,
    /// `write_footprint_pages * page_bytes`.
    pub write_footprint_bytes: u64,
    /// Highest byte address reached: the largest `offset + size` (0 if empty).
    pub address_span_bytes: u64,

    /// Arrival time of the first request, ns as in the trace.
    pub first_time_ns: Option<u64>,
    /// Arrival time of the last request, ns as in the trace.
    pub last_time_ns: Option<u64>,
    /// Last arrival minus first arrival, seconds (0 for fewer than 2 requests).
    pub duration_s: f64,
    /// Mean inter-arrival gap, microseconds: `duration / (requests - 1)`.
    pub mean_interarrival_us: Option<f64>,
    /// Burstiness: coefficient of variation (population standard deviation /
    /// mean) of the inter-arrival gaps; `None` if there are no gaps or their
    /// mean is 0.
    pub burstiness_cv: Option<f64>,
    /// Mean arrival rate, requests per second: `(requests - 1) / duration`.
    pub mean_iops: Option<f64>,

    /// Page writes: the sum over write requests of the pages each touches.
    pub page_writes: u64,
    /// Share of page writes that land on the hottest 10 % of written pages
    /// (⌈W/10⌉ pages of the W distinct written pages).
    pub hot10_page_write_share: Option<f64>,
    /// Share of page writes that land on the hottest 20 % of written pages
    /// (⌈W/5⌉ pages).
    pub hot20_page_write_share: Option<f64>,

    /// Requests that continue the previous request of their direction.
    pub sequential_requests: u64,
    /// `sequential_requests / requests`.
    pub sequential_share: Option<f64>,
    /// Reads that continue the previous read, over `read_requests`.
    pub sequential_read_share: Option<f64>,
    /// Writes that continue the previous write, over `write_requests`.
    pub sequential_write_share: Option<f64>,
}

impl TraceStats {
    /// Statistics of `records`, with pages of `page_bytes` for footprint and
    /// locality (use [`DEFAULT_PAGE_BYTES`] for 4 KiB pages).
    ///
    /// Streams: memory grows with the number of distinct pages touched, not
    /// with the number of records (see the [module documentation](self)).
    /// Stops at the first `Err` item of the stream and returns it.
    pub fn compute<I>(records: I, page_bytes: u64) -> Result<TraceStats>
    where
        I: IntoIterator,
        I::Item: IntoRecord,
    {
        let mut acc = StatsAccumulator::new(page_bytes)?;
        for r in records {
            acc.add(&r.into_record()?)?;
        }
        Ok(acc.finish())
    }
}

/// The incremental form of [`TraceStats::compute`]: feed records with
/// [`add`](Self::add), then [`finish`](Self::finish).
#[derive(Clone, Debug)]
pub struct StatsAccumulator {
    page_bytes: u64,
    requests: u64,
    reads: u64,
    writes: u64,
    trims: u64,
    trim_bytes: u64,
    read_bytes: u64,
    write_bytes: u64,
    large_writes: u64,
    page_writes: u64,
    span: u64,
    first_time: Option<u64>,
    last_time: u64,
    /// Welford's running mean and sum of squared deviations of the gaps (ns).
    gap_mean: f64,
    gap_m2: f64,
    gaps: u64,
    /// End of the previous read / write.
    prev_read_end: Option<u64>,
    prev_write_end: Option<u64>,
    seq_reads: u64,
    seq_writes: u64,
    /// Page → write count (low 31 bits, saturating) | READ_BIT if read.
    pages: FxHashMap<u64, u32>,
}

impl StatsAccumulator {
    /// An empty accumulator; `page_bytes` must be positive.
    pub fn new(page_bytes: u64) -> Result<StatsAccumulator> {
        if page_bytes == 0 {
            return Err(Error::Invalid(
                "trace statistics: the page size must be positive".into(),
            ));
        }
        Ok(StatsAccumulator {
            page_bytes,
            requests: 0,
            reads: 0,
            writes: 0,
            trims: 0,
            trim_bytes: 0,
            read_bytes: 0,
            write_bytes: 0,
            large_writes: 0,
            page_writes: 0,
            span: 0,
            first_time: None,
            last_time: 0,
            gap_mean: 0.0,
            gap_m2: 0.0,
            gaps: 0,
            prev_read_end: None,
            prev_write_end: None,
            seq_reads: 0,
            seq_writes: 0,
            pages: FxHashMap::default(),
        })
    }

    /// Number of records added so far.
    pub fn records(&self) -> u64 {
        self.requests
    }

    /// Distinct pages seen so far.
    pub fn distinct_pages(&self) -> u64 {
        self.pages.len() as u64
    }

    /// Approximate heap bytes held by the page map (buckets and control
    /// bytes).
    pub fn memory_bytes(&self) -> u64 {
        let buckets = self.pages.capacity() as u64 * 8 / 7;
        buckets * (std::mem::size_of::<(u64, u32)>() as u64 + 1)
    }

    /// Account for one record. Errors (and leaves the accumulator as it
    /// was) if the record has size 0, ends beyond 2^64 bytes, touches more
    /// than [`MAX_REQUEST_PAGES`] pages, or arrives before the previous one.
    /// Byte and page-write totals saturate at 2^64 − 1 (16 EiB).
    pub fn add(&mut self, r: &IoRecord) -> Result<()> {
        let n = self.requests + 1;
        if r.size == 0 {
            return Err(Error::Invalid(format!(
                "trace statistics: record {n} has size 0"
            )));
        }
        let end = r.offset.checked_add(r.size).ok_or_else(|| {
            Error::Invalid(format!(
                "trace statistics: record {n} (offset {} + size {} bytes) ends beyond 2^64 bytes",
                r.offset, r.size
            ))
        })?;
        let first_page = r.offset / self.page_bytes;
        let last_page = (end - 1) / self.page_bytes;
        if last_page - first_page >= MAX_REQUEST_PAGES {
            return Err(Error::Invalid(format!(
                "trace statistics: record {n} ({} bytes at offset {}) touches {} pages of {} \
                 bytes; pages are counted one by one, and requests over {MAX_REQUEST_PAGES} \
                 pages are refused",
                r.size,
                r.offset,
                last_page - first_page + 1,
                self.page_bytes
            )));
        }
        if self.first_time.is_some() && r.time_ns < self.last_time {
            return Err(Error::Invalid(format!(
                "trace statistics: record {n} arrives at {} ns, before the previous \
                 record ({} ns); records must be in time order",
                r.time_ns, self.last_time
            )));
        }
        // Checked: from here on nothing fails.
        if self.first_time.is_none() {
            self.first_time = Some(r.time_ns);
        } else {
            let gap = (r.time_ns - self.last_time) as f64;
            self.gaps += 1;
            let delta = gap - self.gap_mean;
            self.gap_mean += delta / self.gaps as f64;
            self.gap_m2 += delta * (gap - self.gap_mean);
        }
        self.last_time = r.time_ns;
        self.requests = n;
        self.span = self.span.max(end);
        match r.op {
            Op::Trim => {
                self.trims += 1;
                self.trim_bytes = self.trim_bytes.saturating_add(r.size);
            }
            Op::Read => {
                self.reads += 1;
                self.read_bytes = self.read_bytes.saturating_add(r.size);
                if self.prev_read_end == Some(r.offset) {
                    self.seq_reads += 1;
                }
                self.prev_read_end = Some(end);
                for p in first_page..=last_page {
                    *self.pages.entry(p).or_insert(0) |= READ_BIT;
                }
            }
            Op::Write => {
                self.writes += 1;
                self.write_bytes = self.write_bytes.saturating_add(r.size);
                if self.prev_write_end == Some(r.offset) {
                    self.seq_writes += 1;
                }
                self.prev_write_end = Some(end);
                let touched = last_page - first_page + 1;
                self.page_writes = self.page_writes.saturating_add(touched);
                if touched > 1 {
                    self.large_writes += 1;
                }
                for p in first_page..=last_page {
                    let e = self.pages.entry(p).or_insert(0);
                    if *e & COUNT_MASK != COUNT_MASK {
                        *e += 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// The statistics of the records added.
    pub fn finish(self) -> TraceStats {
        let ratio = |num: f64, den: f64| (den > 0.0).then(|| num / den);
        let requests = self.requests as f64;
        let total_bytes = self.read_bytes as f64 + self.write_bytes as f64;

        let footprint_pages = self.pages.len() as u64;
        let mut read_pages = 0u64;
        let mut counts: Vec<u32> = Vec::new();
        for &e in self.pages.values() {
            if e & READ_BIT != 0 {
                read_pages += 1;
            }
            let c = e & COUNT_MASK;
            if c > 0 {
                counts.push(c);
            }
        }
        drop(self.pages);
        let written_pages = counts.len() as u64;
        // The counts may saturate, so the hot shares are taken over the
        // counted page writes (equal to `page_writes` unless a page was
        // written more than 2^31 - 1 times).
        let counted: u64 = counts.iter().map(|&c| c as u64).sum();
        let hot10 = hot_share(&mut counts, 10, counted);
        let hot20 = hot_share(&mut counts, 20, counted);

        let duration_ns = self.first_time.map_or(0, |f| self.last_time - f);
        let duration_s = duration_ns as f64 / 1e9;
        let gaps = self.gaps as f64;
        let mean_gap = ratio(duration_ns as f64, gaps);
        let burstiness_cv = match mean_gap {
            Some(m) if m > 0.0 => Some((self.gap_m2 / gaps).max(0.0).sqrt() / m),
            _ => None,
        };
        let pb = self.page_bytes;
        TraceStats {
            page_bytes: pb,
            requests: self.requests,
            read_requests: self.reads,
            write_requests: self.writes,
            trim_requests: self.trims,
            trim_bytes: self.trim_bytes,
            read_share: ratio(self.reads as f64, requests),
            write_share: ratio(self.writes as f64, requests),
            read_bytes: self.read_bytes,
            write_bytes: self.write_bytes,
            read_byte_share: ratio(self.read_bytes as f64, total_bytes),
            write_byte_share: ratio(self.write_bytes as f64, total_bytes),
            mean_read_size_bytes: ratio(self.read_bytes as f64, self.reads as f64),
            mean_write_size_bytes: ratio(self.write_bytes as f64, self.writes as f64),
            mean_write_size_pages: ratio(self.page_writes as f64, self.writes as f64),
            large_writes: self.large_writes,
            large_write_share: ratio(self.large_writes as f64, self.writes as f64),
            footprint_pages,
            footprint_bytes: footprint_pages.saturating_mul(pb),
            read_footprint_pages: read_pages,
            read_footprint_bytes: read_pages.saturating_mul(pb),
            write_footprint_pages: written_pages,
            write_footprint_bytes: written_pages.saturating_mul(pb),
            address_span_bytes: self.span,
            first_time_ns: self.first_time,
            last_time_ns: self.first_time.map(|_| self.last_time),
            duration_s,
            mean_interarrival_us: mean_gap.map(|g| g / 1e3),
            burstiness_cv,
            mean_iops: ratio(gaps, duration_s),
            page_writes: self.page_writes,
            hot10_page_write_share: hot10,
            hot20_page_write_share: hot20,
            sequential_requests: self.seq_reads + self.seq_writes,
            sequential_share: ratio((self.seq_reads + self.seq_writes) as f64, requests),
            sequential_read_share: ratio(self.seq_reads as f64, self.reads as f64),
            sequential_write_share: ratio(self.seq_writes as f64, self.writes as f64),
        }
    }
}

/// Share of the `total` page writes that land on the hottest ⌈`percent` %⌉
/// of the pages whose write counts are `counts` (reordered in place).
fn hot_share(counts: &mut [u32], percent: u64, total: u64) -> Option<f64> {
    let w = counts.len() as u64;
    if w == 0 || total == 0 {
        return None;
    }
    let k = (w * percent).div_ceil(100) as usize;
    let top = if k >= counts.len() {
        &counts[..]
    } else {
        // after this, counts[..k] are the k largest (in some order)
        counts.select_nth_unstable_by(k - 1, |a, b| b.cmp(a));
        &counts[..k]
    };
    let hot: u64 = top.iter().map(|&c| c as u64).sum();
    Some(hot as f64 / total as f64)
}
