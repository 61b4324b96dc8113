//! How the host turns byte addresses into logical pages, and the workload
//! pre-scan (footprint, pages read and written).
//!
//! The pre-scan (`scan`) reads the whole workload once before the run when
//! something needs it — a buffer sized by footprint, compact addressing, or
//! aging from the trace (`trace-reads`, `trace-sequence`) — and fills three
//! bitmaps over LPNs (touched, read, written). A source yields the same
//! records at every open, so the scan sees exactly what is replayed.
//!
//! Address modes (`host.address_mode`, [`AddressMap`]): `fold` maps a byte
//! page to `page % logical_pages`, as other simulators do; `compact` numbers
//! the distinct pages the pre-scan met densely, in order of first touch
//! (modulo the logical capacity), so a trace spread over a large device runs
//! on a small drive without unrelated pages colliding.

use rustc_hash::FxHashMap;

use crate::addr::Lpn;
use crate::error::Result;
use crate::workload::{Op, Source};

/// How the host turns a byte-address page into a logical page.
pub(crate) enum AddressMap {
    /// Modulo the logical capacity.
    Fold,
    /// Dense numbering in order of first touch (then modulo).
    Compact(FxHashMap<u64, Lpn>),
}

impl AddressMap {
    #[inline]
    pub(crate) fn lpn(&self, page: u64, logical: u64) -> Lpn {
        match self {
            AddressMap::Fold => (page % logical) as Lpn,
            AddressMap::Compact(m) => m.get(&page).copied().unwrap_or((page % logical) as Lpn),
        }
    }
    /// The logical page of `page` if the workload reads or writes it (with
    /// compact addresses, a page it never touches has none).
    #[inline]
    pub(crate) fn lpn_if_known(&self, page: u64, logical: u64) -> Option<Lpn> {
        match self {
            AddressMap::Fold => Some((page % logical) as Lpn),
            AddressMap::Compact(m) => m.get(&page).copied(),
        }
    }
}

/// What a pre-scan of the workload learned: bitmaps over logical pages.
pub(crate) struct Scan {
    /// The records' first and last times, ns, and their count.
    pub(crate) times: Option<(u64, u64)>,
    pub(crate) records: u64,
    pub(crate) footprint_pages: u64,
    pub(crate) touched: Vec<u64>,
    pub(crate) read: Vec<u64>,
    pub(crate) written: Vec<u64>,
}

impl Scan {
    /// Nothing seen yet, over `logical` pages.
    fn empty(logical: u64) -> Scan {
        let words = logical.div_ceil(64) as usize;
        Scan {
            times: None,
            records: 0,
            footprint_pages: 0,
            touched: vec![0; words],
            read: vec![0; words],
            written: vec![0; words],
        }
    }

    /// Logical page `l` was read or written (`op`).
    #[inline]
    fn mark(&mut self, l: usize, op: Op) {
        let (w, b) = (l / 64, 1u64 << (l % 64));
        if self.touched[w] & b == 0 {
            self.touched[w] |= b;
            self.footprint_pages += 1;
        }
        match op {
            Op::Read => self.read[w] |= b,
            Op::Write => self.written[w] |= b,
            Op::Trim => {}
        }
    }
}

/// Set bits of a bitmap, in increasing order.
pub(crate) fn bits(map: &[u64]) -> impl Iterator<Item = Lpn> + '_ {
    map.iter().enumerate().flat_map(|(w, &word)| {
        let mut word = word;
        std::iter::from_fn(move || {
            if word == 0 {
                return None;
            }
            let b = word.trailing_zeros();
            word &= word - 1;
            Some((w * 64) as Lpn + b)
        })
    })
}

/// One pass over the workload; builds the compact address map if asked.
pub(crate) fn scan(
    source: &Source,
    logical: u64,
    page: u64,
    compact: bool,
) -> Result<(Scan, AddressMap)> {
    let mut seen = Scan::empty(logical);
    let mut dense: FxHashMap<u64, Lpn> = FxHashMap::default();
    for rec in source.open_ahead()? {
        let rec = rec?;
        seen.records += 1;
        seen.times = Some((seen.times.map_or(rec.time_ns, |t| t.0), rec.time_ns));
        if seen.records.is_multiple_of(1 << 16) && crate::workload::interrupt::poll() {
            return Err(crate::error::Error::Interrupted(format!(
                "while reading {} before the run",
                source.describe()
            )));
        }
        // A trim leaves no data: not part of the footprint.
        if rec.op == Op::Trim {
            continue;
        }
        let first = rec.offset / page;
        let last = (rec.offset + rec.size - 1) / page;
        for p in first..=last {
            let l = if compact {
                let next = dense.len() as u64;
                *dense.entry(p).or_insert((next % logical) as Lpn) as usize
            } else {
                (p % logical) as usize
            };
            seen.mark(l, rec.op);
        }
    }
    let map = if compact {
        AddressMap::Compact(dense)
    } else {
        AddressMap::Fold
    };
    Ok((seen, map))
}

/// The workload's page writes in request order, as logical pages (the
/// trace-writes preconditioning replays them).
pub(crate) fn write_pages(
    source: &Source,
    map: &AddressMap,
    logical: u64,
    page: u64,
) -> Result<Vec<Lpn>> {
    let mut out = Vec::new();
    for (i, rec) in source.open_ahead()?.enumerate() {
        let rec = rec?;
        if i.is_multiple_of(1 << 16) && crate::workload::interrupt::poll() {
            return Err(crate::error::Error::Interrupted(format!(
                "while reading {} before the run",
                source.describe()
            )));
        }
        if rec.op != Op::Write {
            continue;
        }
        let (first, last) = (rec.offset / page, (rec.offset + rec.size - 1) / page);
        out.extend((first..=last).map(|p| map.lpn(p, logical)));
    }
    Ok(out)
}

/// The pre-scan of several flows' workloads (`[[flows]]`), each with its
/// own namespace (its pages from `first_page`; pages beyond it are left
/// for the run to refuse) or the drive's shared space (folded).
pub(crate) fn scan_flows(
    sources: &[(&Source, Option<crate::config::Namespace>)],
    logical: u64,
    page: u64,
) -> Result<Scan> {
    let mut seen = Scan::empty(logical);
    for (source, ns) in sources {
        for rec in source.open_ahead()? {
            let rec = rec?;
            seen.records += 1;
            if seen.records.is_multiple_of(1 << 16) && crate::workload::interrupt::poll() {
                return Err(crate::error::Error::Interrupted(format!(
                    "while reading {} before the run",
                    source.describe()
                )));
            }
            if rec.op == Op::Trim {
                continue;
            }
            let first = rec.offset / page;
            let last = (rec.offset + rec.size - 1) / page;
            for p in first..=last {
                let l = match ns {
                    Some(ns) if p < ns.pages => (ns.first_page + p) as usize,
                    Some(_) => break,
                    None => (p % logical) as usize,
                };
                seen.mark(l, rec.op);
            }
        }
    }
    Ok(seen)
}
