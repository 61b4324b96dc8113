//! Discards replayed as trims (`TraceOptions::replay_trims`, `--replay-trims`):
//! the whole pages a trim covers become invalid and unmapped, newer data
//! still on its way to flash is dropped, GC sees the invalid pages, and the
//! FTL stays consistent (checker on) under page, DFTL and FAST mapping, with
//! and without the write buffer.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::config::{BufferCapacity, GcThreshold, Mapping};
use ssdlab::workload::{IoRecord, Op, Source};
use ssdlab::{Config, Report, Simulator};

mod common;

const PAGE: u64 = 4096;

fn rec(time_ns: u64, op: Op, page: u64, pages: u64) -> IoRecord {
    IoRecord::new(time_ns, op, page * PAGE, pages * PAGE)
}

fn records(name: &str, r: Vec<IoRecord>) -> Source {
    Source::Records {
        name: name.into(),
        records: Arc::new(r),
    }
}

/// `common::tiny`'s drive, with a 64-page buffer or none.
fn tiny(buffer: bool) -> Config {
    let mut c = common::tiny();
    if buffer {
        c.buffer.capacity = BufferCapacity::Pages(64);
    }
    c
}

fn run(c: &Config, src: &Source, pre: &str) -> (Report, Simulator) {
    common::run_checked(c, src, pre)
}

#[test]
fn a_trim_unmaps_the_whole_pages_it_covers() {
    for buffer in [false, true] {
        let c = tiny(buffer);
        let mut r: Vec<IoRecord> = (0..8)
            .map(|i| rec(i * 1_000_000, Op::Write, i, 1))
            .collect();
        // Pages 2 and 3 whole; page 4 only half (it keeps its data); and
        // a trim of less than a page (trims nothing).
        r.push(IoRecord::new(
            100_000_000,
            Op::Trim,
            2 * PAGE,
            2 * PAGE + PAGE / 2,
        ));
        r.push(IoRecord::new(101_000_000, Op::Trim, 6 * PAGE + 1, PAGE));
        let (rep, sim) = run(&c, &records("trim", r), "none");
        let mapped: Vec<bool> = (0..8).map(|l| sim.holds(l)).collect();
        assert_eq!(
            mapped,
            [true, true, false, false, true, true, true, true],
            "buffer {buffer}"
        );
        assert_eq!(rep.requests, 8, "trims are not host reads or writes");
        let t = &rep.trim;
        assert_eq!(
            (t.requests, t.pages, t.bytes),
            (2, 2, 2 * PAGE + PAGE / 2 + PAGE)
        );
        // Buffered, the pages are still in the buffer when the trim comes.
        let (on_flash, pending) = if buffer { (0, 2) } else { (2, 0) };
        assert_eq!((t.mapped_pages, t.pending_pages), (on_flash, pending));
        let json = serde_json::to_value(&rep).unwrap();
        assert_eq!(json["trim"]["pages"], 2);
    }
}

#[test]
fn a_trim_drops_data_still_on_its_way_to_flash() {
    // Unbuffered: the program of page 5 is under way when the trim comes
    // (1 µs later; its page was mapped when the program started), and
    // completes as a stale page. Buffered: page 5 is still in the buffer,
    // and leaves it.
    for buffer in [false, true] {
        let c = tiny(buffer);
        let r = vec![
            rec(0, Op::Write, 5, 1),
            rec(1_000, Op::Trim, 5, 1),
            rec(2_000, Op::Write, 6, 1),
        ];
        let (rep, sim) = run(&c, &records("pending", r), "none");
        assert!(!sim.holds(5), "buffer {buffer}");
        assert!(sim.holds(6));
        assert_eq!(rep.trim.pending_pages, 1, "buffer {buffer}");
        assert_eq!(rep.trim.mapped_pages, !buffer as u64);
        assert_eq!(rep.requests, 2);
    }
}

#[test]
fn writes_waiting_for_buffer_space_are_dropped_by_a_trim_of_their_page() {
    // A 4-page buffer and a burst of 32 single-page writes at one instant:
    // most wait for space; a trim of pages 20..32 at the same instant
    // completes the waiting ones without storing them.
    let mut c = tiny(true);
    c.buffer.capacity = BufferCapacity::Pages(4);
    let mut r: Vec<IoRecord> = (0..32).map(|i| rec(0, Op::Write, i, 1)).collect();
    r.push(rec(0, Op::Trim, 20, 12));
    let (rep, sim) = run(&c, &records("waiting", r), "none");
    for l in 0..32 {
        assert_eq!(sim.holds(l), l < 20, "page {l}");
    }
    assert_eq!(rep.requests, 32, "every write completes");
    assert_eq!(rep.trim.pending_pages, 12);
}

/// Random writes over the logical space, with (`trims`) a trim of a random
/// 16-page range after every 8th write.
fn churn(c: &Config, requests: u64, trims: bool) -> Vec<IoRecord> {
    let logical = c.logical_pages();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut r = Vec::new();
    for i in 0..requests {
        let t = i * 200_000;
        let pages = rng.gen_range(1..=4);
        r.push(rec(t, Op::Write, rng.gen_range(0..logical - 4), pages));
        if i % 8 == 7 && trims {
            r.push(rec(
                t + 100_000,
                Op::Trim,
                rng.gen_range(0..logical - 16),
                16,
            ));
        }
    }
    r
}

#[test]
fn gc_sees_trimmed_pages_as_invalid() {
    let c = tiny(false);
    let plain = run(
        &c,
        &records("plain", churn(&c, 12_000, false)),
        "fill:0.9:0.9",
    )
    .0;
    let trimmed = run(
        &c,
        &records("trimmed", churn(&c, 12_000, true)),
        "fill:0.9:0.9",
    )
    .0;
    assert_eq!(plain.requests, trimmed.requests);
    assert!(plain.gc.count > 50, "GC must run: {}", plain.gc.count);
    assert!(trimmed.trim.mapped_pages > 5_000, "{:?}", trimmed.trim);
    // Victims hold fewer valid pages when the host trims: fewer moves per
    // GC, lower write amplification.
    let per_gc = |r: &Report| r.gc.pages_migrated as f64 / r.gc.count as f64;
    assert!(
        per_gc(&trimmed) < 0.7 * per_gc(&plain),
        "moves per GC: {} trimmed vs {} plain",
        per_gc(&trimmed),
        per_gc(&plain)
    );
    assert!(trimmed.write_amplification < plain.write_amplification);
}

#[test]
fn trims_keep_every_mapping_consistent() {
    for mapping in [Mapping::Page, Mapping::Dftl, Mapping::Fast] {
        for buffer in [false, true] {
            let mut c = tiny(buffer);
            c.ftl.mapping = mapping;
            if mapping == Mapping::Dftl {
                c.ftl.mapping_cache_entries = 256;
            }
            if mapping == Mapping::Fast {
                c.gc.threshold = GcThreshold::Percent(7.0);
                c.ftl.fast_log_units = 4;
            }
            let src = records("churn", churn(&c, 6_000, true));
            // (FAST ages its drive with `age:`; `fill:` is page-mapped.)
            let pre = if mapping == Mapping::Fast {
                "age:0.8"
            } else {
                "fill:0.8:0.9"
            };
            let (rep, _) = run(&c, &src, pre);
            assert_eq!(rep.requests, 6_000, "{mapping:?} buffer {buffer}");
            assert_eq!(rep.trim.requests, 750);
            assert!(rep.trim.mapped_pages > 0);
        }
    }
}

#[test]
fn trims_in_compact_address_mode_touch_only_pages_the_workload_uses() {
    // With compact addresses (`host.address_mode = "compact"`), a trim of pages
    // the workload never reads or writes has nothing to trim; it must not
    // fold onto the pages it does use.
    let mut c = tiny(false);
    c.host.address_mode = ssdlab::config::AddressMode::Compact;
    let logical = c.logical_pages();
    let r = vec![
        rec(0, Op::Write, 3 * logical + 1, 2),
        rec(1_000_000, Op::Trim, 7 * logical, 8),
        rec(2_000_000, Op::Trim, 3 * logical + 2, 1),
    ];
    let (rep, sim) = run(&c, &records("compact", r), "none");
    let mapped = (0..logical).filter(|&l| sim.holds(l as u32)).count();
    assert_eq!(mapped, 1, "one of the two written pages is trimmed");
    assert_eq!((rep.trim.pages, rep.trim.mapped_pages), (9, 1));
}
