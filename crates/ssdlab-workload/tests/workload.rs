//! Trace readers, format detection and the synthetic generator, end to end.
//! Fixtures and their origin: ../ssdlab/tests/fixtures/README.md.

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;

use ssdlab_workload::detect::detect;
use ssdlab_workload::input::LineReader;
use ssdlab_workload::mqsim::MqsimReader;
use ssdlab_workload::msr::MsrReader;
use ssdlab_workload::synthetic::{Address, Arrival, Generator, Profile, SizeDist};
use ssdlab_workload::Error;
use ssdlab_workload::{IoRecord, Op, Source, TraceFormat, TraceOptions};

// ---------------------------------------------------------------------------
// helpers

mod common;

fn fixture(name: &str) -> PathBuf {
    common::ssdlab_fixture(name)
}

fn scratch(test: &str) -> PathBuf {
    common::scratch("workload-tests", test)
}

/// Gzip `bytes` into `path` (as one member per chunk given).
fn write_gz(path: &Path, members: &[&[u8]]) {
    let mut out = Vec::new();
    for m in members {
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(m).unwrap();
        out.extend(enc.finish().unwrap());
    }
    std::fs::write(path, out).unwrap();
}

fn all(iter: impl Iterator<Item = ssdlab_workload::Result<IoRecord>>) -> Vec<IoRecord> {
    iter.map(|r| r.unwrap()).collect()
}

fn mqsim(path: &Path, options: &TraceOptions) -> Vec<IoRecord> {
    all(MqsimReader::open(path, options).unwrap())
}

fn msr(path: &Path, options: &TraceOptions) -> Vec<IoRecord> {
    all(MsrReader::open(path, options).unwrap())
}

/// `x` is a multiple of `a`.
fn aligned(x: u64, a: u64) -> bool {
    x / a * a == x
}

fn rec(time_ns: u64, op: Op, offset: u64, size: u64) -> IoRecord {
    IoRecord::new(time_ns, op, offset, size)
}

/// Strict time order: a timestamp going backwards is an error (the default
/// reorder window would repair the `*-time` fixtures).
fn strict() -> TraceOptions {
    TraceOptions {
        sort_window: Some(0),
        ..TraceOptions::default()
    }
}

fn device(d: u32) -> TraceOptions {
    TraceOptions {
        device: Some(d),
        ..Default::default()
    }
}

fn limit(n: u64) -> TraceOptions {
    TraceOptions {
        limit: Some(n),
        ..Default::default()
    }
}

/// The first error of a stream, as text.
fn first_error(iter: impl Iterator<Item = ssdlab_workload::Result<IoRecord>>) -> String {
    let mut iter = iter;
    let e = iter.find_map(|r| r.err()).expect("an error");
    assert!(iter.next().is_none(), "the stream must end after an error");
    e.to_string()
}

// ---------------------------------------------------------------------------
// MQSim

#[test]
fn mqsim_tpcc_excerpt() {
    let recs = mqsim(
        &fixture("tpcc-head200.mqsim.trace"),
        &TraceOptions::default(),
    );
    assert_eq!(recs.len(), 200);
    // 938513000 4 264719034 16 0
    assert_eq!(
        recs[0],
        rec(938_513_000, Op::Write, 264_719_034 * 512, 16 * 512)
    );
    // 945999000 0 233720672 16 1
    assert_eq!(
        recs[199],
        rec(945_999_000, Op::Read, 233_720_672 * 512, 16 * 512)
    );
    assert_eq!(recs.iter().filter(|r| r.op == Op::Read).count(), 76);
    assert!(recs.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
}

#[test]
fn mqsim_wsrch_excerpt_without_final_newline() {
    let path = fixture("wsrch-tail200.mqsim.trace");
    let bytes = std::fs::read(&path).unwrap();
    assert_ne!(
        bytes.last(),
        Some(&b'\n'),
        "fixture must keep the missing final newline"
    );
    let recs = mqsim(&path, &TraceOptions::default());
    assert_eq!(recs.len(), 200);
    // 59620094000 4 21969808 16 1
    assert_eq!(
        recs[0],
        rec(59_620_094_000, Op::Read, 21_969_808 * 512, 16 * 512)
    );
    // 60066625000 1 34371424 64 1   (the unterminated last line)
    assert_eq!(
        recs[199],
        rec(60_066_625_000, Op::Read, 34_371_424 * 512, 64 * 512)
    );
}

#[test]
fn mqsim_device_filter_and_limit() {
    let path = fixture("tpcc-head200.mqsim.trace");
    let dev4 = mqsim(&path, &device(4));
    assert_eq!(dev4.len(), 16);
    assert_eq!(
        dev4[0],
        rec(938_513_000, Op::Write, 264_719_034 * 512, 16 * 512)
    );
    let everything = mqsim(&path, &TraceOptions::default());
    assert_eq!(mqsim(&path, &device(99)), vec![]);
    let first10 = mqsim(&path, &limit(10));
    assert_eq!(first10, everything[..10]);
    let dev4_first3 = mqsim(
        &path,
        &TraceOptions {
            device: Some(4),
            limit: Some(3),
            ..Default::default()
        },
    );
    assert_eq!(dev4_first3, dev4[..3]);
    assert_eq!(mqsim(&path, &limit(0)), vec![]);
    assert_eq!(mqsim(&path, &limit(1000)).len(), 200);
}

#[test]
fn mqsim_malformed_files_name_line_and_field() {
    let cases = [
        ("mqsim-fields.trace", 3, "record", "found 4"),
        (
            "mqsim-type.trace",
            2,
            "type",
            "expected 0 (write) or 1 (read), found `2`",
        ),
        ("mqsim-size0.trace", 4, "size_sectors", "size is 0"),
        ("mqsim-number.trace", 2, "lba", "found `12a4`"),
        ("mqsim-time.trace", 5, "time", "timestamps go backwards ("),
        ("mqsim-offset.trace", 2, "lba", "2^63"),
        ("mqsim-extent.trace", 2, "size_sectors", "2^63"),
        ("mqsim-utf8.trace", 3, "text", "UTF-8"),
    ];
    for (name, line, field, msg) in cases {
        let path = fixture(&format!("bad/{name}"));
        let e = first_error(MqsimReader::open(&path, &strict()).unwrap());
        assert!(e.contains(&format!("{name}:{line}:")), "{name}: {e}");
        assert!(e.contains(&format!("field `{field}`")), "{name}: {e}");
        assert!(e.contains(msg), "{name}: {e}");
        assert!(e.contains(&path.display().to_string()), "{name}: {e}");
    }
}

#[test]
fn mqsim_records_before_an_error_are_delivered() {
    let path = fixture("bad/mqsim-time.trace");
    let items: Vec<_> = MqsimReader::open(&path, &strict()).unwrap().collect();
    assert_eq!(items.len(), 4);
    assert!(items[..3].iter().all(|r| r.is_ok()));
    assert!(matches!(items[3], Err(Error::Parse { line: 5, .. })));
}

#[test]
fn malformed_records_of_other_devices_are_still_errors() {
    // no silent skipping: the filter applies to valid records only
    let path = fixture("bad/mqsim-type.trace");
    let e = first_error(MqsimReader::open(&path, &device(4)).unwrap());
    assert!(e.contains(":2:") && e.contains("field `type`"), "{e}");
}

#[test]
fn missing_file_is_an_io_error_naming_it() {
    let path = fixture("no-such-file.trace");
    let e = MqsimReader::open(&path, &TraceOptions::default()).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e}");
    assert!(e.to_string().contains("no-such-file.trace"), "{e}");
    assert!(matches!(detect(&path), Err(Error::Io { .. })));
}

// ---------------------------------------------------------------------------
// MSR

fn msr_expected() -> Vec<IoRecord> {
    vec![
        rec(0, Op::Read, 3_154_152_960, 4096),
        rec(1_332_052_600, Op::Write, 3_154_152_960, 4096),
        rec(2_332_061_600, Op::Read, 1_045_504, 32768),
        rec(3_332_061_600, Op::Write, 5120, 512),
        rec(3_332_061_600, Op::Write, 8192, 8192),
        rec(9_693_837_000, Op::Read, 0, 65536),
        rec(9_693_837_100, Op::Read, 4096, 4096),
        rec(19_693_837_100, Op::Write, 1_073_741_824, 131_072),
    ]
}

#[test]
fn msr_with_and_without_header() {
    let want = msr_expected();
    assert_eq!(
        msr(&fixture("msr-header.csv"), &TraceOptions::default()),
        want
    );
    // CRLF line ends and a blank line
    assert_eq!(
        msr(&fixture("msr-noheader.csv"), &TraceOptions::default()),
        want
    );
}

#[test]
fn msr_device_filter_rebases_to_first_kept_record_and_limit() {
    let disk1 = msr(&fixture("msr-header.csv"), &device(1));
    assert_eq!(
        disk1,
        vec![
            rec(0, Op::Read, 1_045_504, 32768),
            rec(1_000_000_000, Op::Write, 5120, 512),
            rec(7_361_775_500, Op::Read, 4096, 4096),
        ]
    );
    assert_eq!(
        msr(&fixture("msr-noheader.csv"), &limit(3)),
        msr_expected()[..3]
    );
}

#[test]
fn msr_malformed_files_name_line_and_field() {
    let cases = [
        ("msr-fields.csv", 3, "record", "found 6"),
        ("msr-type.csv", 2, "type", "found `Trim`"),
        ("msr-size0.csv", 2, "size", "size is 0"),
        ("msr-number.csv", 1, "offset", "found `0x1000`"),
        ("msr-time.csv", 3, "timestamp", "timestamps go backwards ("),
        ("msr-extent.csv", 1, "size", "2^63"),
        ("msr-disk.csv", 2, "disk_number", "found `one`"),
    ];
    for (name, line, field, msg) in cases {
        let path = fixture(&format!("bad/{name}"));
        let e = first_error(MsrReader::open(&path, &strict()).unwrap());
        assert!(e.contains(&format!("{name}:{line}:")), "{name}: {e}");
        assert!(e.contains(&format!("field `{field}`")), "{name}: {e}");
        assert!(e.contains(msg), "{name}: {e}");
    }
}

// ---------------------------------------------------------------------------
// gzip

#[test]
fn gzip_reads_identically_to_plain() {
    let dir = scratch("gzip");
    for (name, format) in [
        ("tpcc-head200.mqsim.trace", TraceFormat::Mqsim),
        ("wsrch-tail200.mqsim.trace", TraceFormat::Mqsim),
        ("msr-header.csv", TraceFormat::Msr),
        ("msr-noheader.csv", TraceFormat::Msr),
    ] {
        let plain = fixture(name);
        // detection is by content: a gzip file without .gz and one with it
        for gz_name in [format!("{name}.gz"), format!("{name}.compressed")] {
            let gz = dir.join(gz_name);
            write_gz(&gz, &[&std::fs::read(&plain).unwrap()]);
            assert_eq!(detect(&gz).unwrap(), format, "{}", gz.display());
            let read = |p: &Path| match format {
                TraceFormat::Mqsim => mqsim(p, &TraceOptions::default()),
                _ => msr(p, &TraceOptions::default()),
            };
            let want = read(&plain);
            assert!(!want.is_empty());
            assert_eq!(read(&gz), want, "{}", gz.display());
        }
    }
    // a plain file named .gz is read as plain
    let fake = dir.join("plain-named.gz");
    std::fs::copy(fixture("tpcc-head200.mqsim.trace"), &fake).unwrap();
    assert_eq!(mqsim(&fake, &TraceOptions::default()).len(), 200);
}

#[test]
fn gzip_with_several_members_reads_them_all() {
    let dir = scratch("gzip-members");
    let text = std::fs::read(fixture("tpcc-head200.mqsim.trace")).unwrap();
    let cut = text.len() / 2;
    let cut = cut + text[cut..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let gz = dir.join("two-members.trace.gz");
    write_gz(&gz, &[&text[..cut], &text[cut..]]);
    assert_eq!(
        mqsim(&gz, &TraceOptions::default()),
        mqsim(
            &fixture("tpcc-head200.mqsim.trace"),
            &TraceOptions::default()
        )
    );
}

#[test]
fn truncated_gzip_is_an_error_not_a_short_trace() {
    let dir = scratch("gzip-truncated");
    let gz = dir.join("cut.trace.gz");
    write_gz(
        &gz,
        &[&std::fs::read(fixture("tpcc-head200.mqsim.trace")).unwrap()],
    );
    let bytes = std::fs::read(&gz).unwrap();
    std::fs::write(&gz, &bytes[..bytes.len() / 2]).unwrap();
    let items: Vec<_> = MqsimReader::open(&gz, &TraceOptions::default())
        .unwrap()
        .collect();
    let last = items.last().unwrap();
    assert!(matches!(last, Err(Error::Io { .. })), "{last:?}");
    assert!(items.len() < 200);
}

#[test]
fn gzip_errors_keep_line_numbers() {
    let dir = scratch("gzip-bad");
    let gz = dir.join("bad.trace.gz");
    write_gz(
        &gz,
        &[&std::fs::read(fixture("bad/mqsim-time.trace")).unwrap()],
    );
    let e = first_error(MqsimReader::open(&gz, &strict()).unwrap());
    assert!(
        e.contains("bad.trace.gz:5:") && e.contains("field `time`"),
        "{e}"
    );
}

#[test]
fn line_reader_counts_lines_through_gzip() {
    let dir = scratch("gzip-lines");
    let gz = dir.join("lines.gz");
    write_gz(&gz, &[b"a\r\n\n c \nlast"]);
    let mut r = LineReader::open(&gz).unwrap();
    let mut got = Vec::new();
    while let Some((n, text)) = r.next_line().unwrap() {
        got.push((n, text.to_string()));
    }
    let want: Vec<(u64, String)> = vec![
        (1, "a".into()),
        (2, "".into()),
        (3, " c ".into()),
        (4, "last".into()),
    ];
    assert_eq!(got, want);
}

// ---------------------------------------------------------------------------
// detection and Source

#[test]
fn detect_formats() {
    assert_eq!(
        detect(&fixture("tpcc-head200.mqsim.trace")).unwrap(),
        TraceFormat::Mqsim
    );
    assert_eq!(
        detect(&fixture("wsrch-tail200.mqsim.trace")).unwrap(),
        TraceFormat::Mqsim
    );
    assert_eq!(
        detect(&fixture("msr-header.csv")).unwrap(),
        TraceFormat::Msr
    );
    assert_eq!(
        detect(&fixture("msr-noheader.csv")).unwrap(),
        TraceFormat::Msr
    );
    // detection looks at shape; the reader then reports the bad record
    assert_eq!(
        detect(&fixture("bad/mqsim-type.trace")).unwrap(),
        TraceFormat::Mqsim
    );
    assert_eq!(
        detect(&fixture("bad/msr-type.csv")).unwrap(),
        TraceFormat::Msr
    );
}

#[test]
fn detect_rejects_garbage_empty_and_binary() {
    let e = detect(&fixture("bad/garbage.txt")).unwrap_err();
    assert!(matches!(e, Error::Invalid(_)), "{e}");
    let e = e.to_string();
    assert!(e.contains("cannot detect the trace format"), "{e}");
    assert!(e.contains("garbage.txt"), "{e}");
    assert!(e.contains("`hello, this is not a trace`"), "{e}");
    assert!(e.contains("mqsim") && e.contains("msr"), "{e}");

    for name in ["empty.trace", "blank.trace"] {
        let e = detect(&fixture(&format!("bad/{name}")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no records") && e.contains(name), "{e}");
    }

    let dir = scratch("detect");
    let long = dir.join("long.txt");
    std::fs::write(&long, format!("{}\n", "x".repeat(500))).unwrap();
    let e = detect(&long).unwrap_err().to_string();
    assert!(e.contains(&format!("`{}…`", "x".repeat(80))), "{e}");
    assert!(!e.contains(&"x".repeat(81)), "{e}");

    let bin = dir.join("binary.bin");
    std::fs::write(&bin, [0u8, 0xff, 0xfe, 0x80, b'\n']).unwrap();
    let e = detect(&bin).unwrap_err();
    assert!(matches!(e, Error::Invalid(_)), "{e}");
    assert!(e.to_string().contains("UTF-8"), "{e}");

    let header_only = dir.join("header-only.csv");
    std::fs::write(
        &header_only,
        "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n",
    )
    .unwrap();
    assert_eq!(detect(&header_only).unwrap(), TraceFormat::Msr);
    assert_eq!(msr(&header_only, &TraceOptions::default()), vec![]);
}

#[test]
fn source_opens_traces_in_any_format_repeatably() {
    for (name, n) in [("tpcc-head200.mqsim.trace", 200), ("msr-header.csv", 8)] {
        let src = Source::Trace {
            path: fixture(name),
            format: TraceFormat::Auto,
            options: TraceOptions::default(),
        };
        let a = all(src.open().unwrap());
        assert_eq!(a.len(), n);
        assert_eq!(
            all(src.open().unwrap()),
            a,
            "every open yields the same records"
        );
    }
    let limited = Source::Trace {
        path: fixture("tpcc-head200.mqsim.trace"),
        format: TraceFormat::Mqsim,
        options: limit(7),
    };
    assert_eq!(all(limited.open().unwrap()).len(), 7);
    let wrong = Source::Trace {
        path: fixture("msr-header.csv"),
        format: TraceFormat::Mqsim,
        options: TraceOptions::default(),
    };
    let e = first_error(wrong.open().unwrap());
    assert!(
        e.contains("msr-header.csv:1:") && e.contains("field `record`"),
        "{e}"
    );
}

// The real excerpts in fixtures/traces are read whole in tests/real_traces.rs.

// Malformed-input property tests for every reader are in tests/formats.rs.

// ---------------------------------------------------------------------------
// synthetic

fn base_profile() -> Profile {
    Profile {
        name: "test".into(),
        seed: 7,
        requests: 100_000,
        read_share: 0.3,
        footprint_bytes: 1 << 30,
        page_bytes: 4096,
        read_size: Some(SizeDist::uniform(4096, 16384)),
        write_size: Some(SizeDist::uniform(4096, 32768)),
        address: Address::Uniform,
        arrival: Arrival::Poisson { iops: 20_000.0 },
        latency_hint: None,
    }
}

fn generate(p: &Profile) -> Vec<IoRecord> {
    all(Generator::try_new(p).unwrap())
}

#[test]
fn synthetic_is_deterministic() {
    for address in [
        Address::Uniform,
        Address::Zipf { theta: 0.99 },
        Address::HotCold {
            hot_fraction: 0.2,
            hot_share: 0.8,
        },
    ] {
        let p = Profile {
            requests: 20_000,
            address,
            ..base_profile()
        };
        let a = generate(&p);
        assert_eq!(a.len(), 20_000);
        assert_eq!(generate(&p), a);
        let other = generate(&Profile {
            seed: 8,
            ..p.clone()
        });
        assert_ne!(other, a);
        let differing = a.iter().zip(&other).filter(|(x, y)| x != y).count();
        assert!(differing > 19_000, "{differing}");
    }
}

/// A digest of a record stream (FNV-1a over the fields).
fn digest(recs: &[IoRecord]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for r in recs {
        for v in [r.time_ns, (r.op == Op::Read) as u64, r.offset, r.size] {
            for b in v.to_le_bytes() {
                h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
    h
}

#[test]
fn synthetic_stream_is_pinned() {
    // The records of fixed profiles, pinned: the stream must be the same on
    // every platform and build, and a change here changes every synthetic
    // result, so it must be deliberate.
    let p = Profile {
        requests: 3,
        address: Address::Zipf { theta: 0.99 },
        ..base_profile()
    };
    let got = generate(&p);
    assert_eq!(
        got,
        vec![
            rec(27861, Op::Read, 794_120_192, 4096),
            rec(47873, Op::Write, 205_287_424, 16384),
            rec(57308, Op::Write, 10_919_936, 4096),
        ]
    );
    let demo = generate(&Profile::demo());
    let zipf = generate(&Profile::load(&fixture("profile-zipf.toml")).unwrap());
    assert_eq!(digest(&demo), DEMO_DIGEST);
    assert_eq!(digest(&zipf), ZIPF_DIGEST);
}

const DEMO_DIGEST: u64 = 0x16aa_c1d1_326d_9fb7;
const ZIPF_DIGEST: u64 = 0x316e_e71e_bfb8_1194;

#[test]
fn synthetic_read_share() {
    for share in [0.0, 0.3, 0.75, 1.0] {
        let mut p = Profile {
            read_share: share,
            ..base_profile()
        };
        if share == 0.0 {
            p.read_size = None;
        }
        if share == 1.0 {
            p.write_size = None;
        }
        let recs = generate(&p);
        assert_eq!(recs.len(), 100_000);
        let reads = recs.iter().filter(|r| r.op == Op::Read).count() as f64 / 1e5;
        assert!((reads - share).abs() < 0.01, "share {share}: {reads}");
    }
}

#[test]
fn synthetic_mean_sizes() {
    let p = Profile {
        read_size: Some(SizeDist::weighted(
            vec![4096, 8192, 65536],
            vec![6.0, 3.0, 1.0],
        )),
        ..base_profile()
    };
    let read_mean = p.read_size.as_ref().unwrap().mean(4096);
    let write_mean = p.write_size.as_ref().unwrap().mean(4096);
    assert!((read_mean - (0.6 * 4096.0 + 0.3 * 8192.0 + 0.1 * 65536.0)).abs() < 1e-6);
    assert_eq!(write_mean, 18.0 * 1024.0);
    let recs = generate(&p);
    for (op, want, sizes) in [
        (Op::Read, read_mean, &[4096u64, 8192, 65536][..]),
        (
            Op::Write,
            write_mean,
            &[4096, 8192, 12288, 16384, 20480, 24576, 28672, 32768][..],
        ),
    ] {
        let of_op: Vec<u64> = recs.iter().filter(|r| r.op == op).map(|r| r.size).collect();
        let mean = of_op.iter().sum::<u64>() as f64 / of_op.len() as f64;
        assert!(
            (mean / want - 1.0).abs() < 0.02,
            "{op:?}: mean {mean} vs {want}"
        );
        for s in sizes {
            assert!(of_op.contains(s), "{op:?}: size {s} never drawn");
        }
        assert!(
            of_op.iter().all(|s| sizes.contains(s)),
            "{op:?}: unexpected size"
        );
    }
}

#[test]
fn synthetic_uniform_sizes_round_to_pages() {
    let p = Profile {
        read_share: 1.0,
        write_size: None,
        read_size: Some(SizeDist::uniform(5000, 13000)),
        requests: 10_000,
        ..base_profile()
    };
    // multiples of 4096 in [5000, 13000]: 8192 and 12288
    assert_eq!(p.read_size.as_ref().unwrap().mean(4096), 10240.0);
    let recs = generate(&p);
    assert!(recs.iter().all(|r| r.size == 8192 || r.size == 12288));
}

#[test]
fn synthetic_hot_cold_share() {
    let p = Profile {
        read_size: Some(SizeDist::constant(4096)),
        write_size: Some(SizeDist::constant(4096)),
        address: Address::HotCold {
            hot_fraction: 0.2,
            hot_share: 0.8,
        },
        ..base_profile()
    };
    let g = Generator::try_new(&p).unwrap();
    let pages = g.pages();
    assert_eq!(pages, 1 << 18);
    let hot = g.hot_pages().unwrap();
    assert_eq!(hot, (0.2 * pages as f64).round() as u64);
    let recs = generate(&p);
    let in_hot = recs
        .iter()
        .filter(|r| g.rank_of_page(r.offset / 4096).unwrap() < hot)
        .count() as f64
        / recs.len() as f64;
    assert!((in_hot - 0.8).abs() < 0.01, "hot share {in_hot}");
    // hot pages are scattered: the hot ranks cover every eighth of the range
    let mut eighths = [0u32; 8];
    for rank in 0..hot {
        eighths[(g.page_of_rank(rank).unwrap() * 8 / pages) as usize] += 1;
    }
    let even = hot as f64 / 8.0;
    assert!(
        eighths
            .iter()
            .all(|&c| (c as f64 / even - 1.0).abs() < 0.05),
        "{eighths:?}"
    );
}

#[test]
fn synthetic_demo_profile() {
    let demo = Profile::demo();
    assert_eq!(demo.requests, 200_000);
    assert_eq!(demo.seed, 1);
    assert_eq!(demo.footprint_bytes, 2 << 30);
    let g = Generator::try_new(&demo).unwrap();
    let hot = g.hot_pages().unwrap();
    let recs = generate(&demo);
    assert_eq!(recs.len(), 200_000);
    let n = recs.len() as f64;
    let reads = recs.iter().filter(|r| r.op == Op::Read).count() as f64 / n;
    assert!((reads - 0.3).abs() < 0.01, "{reads}");
    let hot_share = recs
        .iter()
        .filter(|r| g.rank_of_page(r.offset / 4096).unwrap() < hot)
        .count() as f64
        / n;
    assert!((hot_share - 0.8).abs() < 0.01, "{hot_share}");
    for r in &recs {
        assert!(
            aligned(r.offset, 4096) && r.offset + r.size <= 2 << 30,
            "{r:?}"
        );
        match r.op {
            Op::Read => assert!((4096..=16384).contains(&r.size)),
            Op::Write => assert!((4096..=32768).contains(&r.size)),
            Op::Trim => panic!("profiles generate no trims: {r:?}"),
        }
    }
    let span_s = recs.last().unwrap().time_ns as f64 / 1e9;
    assert!(
        (span_s / (200_000.0 / 300.0) - 1.0).abs() < 0.02,
        "200k requests at 300 IOPS take {span_s} s"
    );
}

#[test]
fn synthetic_poisson_arrivals() {
    for iops in [1_000.0, 20_000.0, 1e6] {
        let p = Profile {
            arrival: Arrival::Poisson { iops },
            ..base_profile()
        };
        let recs = generate(&p);
        assert!(recs.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
        let gaps: Vec<f64> = std::iter::once(recs[0].time_ns as f64)
            .chain(
                recs.windows(2)
                    .map(|w| (w[1].time_ns - w[0].time_ns) as f64),
            )
            .collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let want = 1e9 / iops;
        assert!(
            (mean / want - 1.0).abs() < 0.02,
            "iops {iops}: mean gap {mean} ns"
        );
        // exponential: the standard deviation equals the mean
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!(
            (var.sqrt() / mean - 1.0).abs() < 0.03,
            "iops {iops}: cv {}",
            var.sqrt() / mean
        );
    }
}

#[test]
fn synthetic_requests_stay_inside_the_footprint() {
    // a footprint barely larger than the largest request forces shifting
    for address in [
        Address::Uniform,
        Address::Zipf { theta: 1.2 },
        Address::HotCold {
            hot_fraction: 0.5,
            hot_share: 0.5,
        },
    ] {
        let p = Profile {
            footprint_bytes: 40 * 1024,
            read_size: Some(SizeDist::fixed(vec![512, 4096, 12288])),
            address,
            requests: 20_000,
            ..base_profile()
        };
        let recs = generate(&p);
        let mut starts = std::collections::BTreeSet::new();
        for r in &recs {
            assert!(aligned(r.offset, 4096), "{r:?}");
            assert!(r.offset + r.size <= 40 * 1024, "{r:?}");
            starts.insert(r.offset);
        }
        assert_eq!(starts.len(), 10, "every page start is used");
    }
}

#[test]
fn synthetic_zipf_skew_and_huge_footprints() {
    let p = Profile::load(&fixture("profile-zipf.toml")).unwrap();
    assert_eq!(p.name, "zipf-small");
    let g = Generator::try_new(&p).unwrap();
    let n = g.pages();
    assert_eq!(n, 16384);
    let recs = generate(&p);
    assert_eq!(recs.len(), 50_000);
    let top = g.page_of_rank(0).unwrap() * 4096;
    // shifting can only move requests that start near the end
    let top_share = recs.iter().filter(|r| r.offset == top).count() as f64 / recs.len() as f64;
    let norm: f64 = (1..=n).map(|k| (k as f64).powf(-0.99)).sum();
    let want = 1.0 / norm;
    assert!(
        (top_share / want - 1.0).abs() < 0.1,
        "rank 1 share {top_share} vs {want}"
    );
    // the ten most popular pages are not neighbours
    let mut top10: Vec<u64> = (0..10).map(|r| g.page_of_rank(r).unwrap()).collect();
    top10.sort();
    assert!(top10.windows(2).all(|w| w[1] - w[0] > 1), "{top10:?}");
    assert!(top10[9] - top10[0] > n / 4, "{top10:?}");

    // 1 PiB of 4 KiB pages (2^38): O(1) memory and time per request
    let huge = Profile {
        footprint_bytes: 1 << 50,
        requests: 20_000,
        address: Address::Zipf { theta: 0.99 },
        ..base_profile()
    };
    let recs = generate(&huge);
    assert!(recs
        .iter()
        .all(|r| aligned(r.offset, 4096) && r.offset + r.size <= 1 << 50));
    let distinct: std::collections::BTreeSet<u64> = recs.iter().map(|r| r.offset).collect();
    assert!(distinct.len() > 1000 && distinct.len() < recs.len());
}

fn config_error(text: &str) -> (String, String) {
    match Profile::from_toml(text, "p.toml") {
        Err(Error::Config { origin, field, msg }) => {
            assert_eq!(origin, "p.toml");
            (field, msg)
        }
        other => panic!("expected a config error for\n{text}\ngot {other:?}"),
    }
}

const GOOD: &str = r#"
name = "t"
seed = 3
requests = 1000
read_share = 0.5
footprint_bytes = 1048576
read_size = { fixed = [4096, 8192], weights = [1, 1] }
write_size = { uniform = [4096, 65536] }
address = { kind = "hot-cold", hot_fraction = 0.2, hot_share = 0.8 }
arrival = { kind = "poisson", iops = 1000 }
"#;

#[test]
fn profile_toml_and_validation_errors_name_the_field() {
    let good = Profile::from_toml(GOOD, "p.toml").unwrap();
    assert_eq!(good.page_bytes, 4096, "page_bytes defaults to 4096");
    assert_eq!(
        Profile::from_toml(&good.to_toml().unwrap(), "again").unwrap(),
        good
    );

    let cases = [
        ("read_share = 0.5", "read_share = 1.5", "read_share"),
        ("read_share = 0.5", "read_share = -0.1", "read_share"),
        ("requests = 1000", "requests = 0", "requests"),
        ("requests = 1000", "requests = -5", "requests"),
        ("seed = 3", "seed = \"three\"", "seed"),
        ("seed = 3", "sede = 3", "sede"),
        ("seed = 3\n", "", "seed"),
        (
            "footprint_bytes = 1048576",
            "footprint_bytes = 32768",
            "footprint_bytes",
        ),
        (
            "footprint_bytes = 1048576",
            "footprint_bytes = 1048576\npage_bytes = 0",
            "page_bytes",
        ),
        (
            "[4096, 8192], weights",
            "[4096, 0], weights",
            "read_size.fixed",
        ),
        ("weights = [1, 1]", "weights = [1]", "read_size.weights"),
        ("weights = [1, 1]", "weights = [1, -1]", "read_size.weights"),
        ("weights = [1, 1]", "weights = [0, 0]", "read_size.weights"),
        (
            "weights = [1, 1]",
            "weights = [\"a\", 1]",
            "read_size.weights",
        ),
        ("[4096, 65536]", "[5000, 6000]", "write_size.uniform"),
        ("[4096, 65536]", "[65536, 4096]", "write_size.uniform"),
        ("[4096, 65536]", "[0, 4096]", "write_size.uniform"),
        (
            "uniform = [4096, 65536]",
            "uniform = [4096, 65536], weights = [1]",
            "write_size.weights",
        ),
        (
            "uniform = [4096, 65536]",
            "uniform = [4096, 65536], fixed = [1]",
            "write_size",
        ),
        (
            "uniform = [4096, 65536]",
            "unform = [4096, 65536]",
            "write_size.unform",
        ),
        (
            "write_size = { uniform = [4096, 65536] }\n",
            "",
            "write_size",
        ),
        (
            "read_size = { fixed = [4096, 8192], weights = [1, 1] }\n",
            "",
            "read_size",
        ),
        (
            "hot_fraction = 0.2",
            "hot_fraction = 1.0",
            "address.hot_fraction",
        ),
        ("hot_share = 0.8", "hot_share = 0", "address.hot_share"),
        (
            "hot_share = 0.8",
            "hot_share = \"most\"",
            "address.hot_share",
        ),
        (
            "hot_share = 0.8",
            "hot_share = 0.8, theta = 1",
            "address.theta",
        ),
        (
            "kind = \"hot-cold\", hot_fraction = 0.2, hot_share = 0.8",
            "kind = \"zipf\"",
            "address.theta",
        ),
        (
            "kind = \"hot-cold\", hot_fraction = 0.2, hot_share = 0.8",
            "kind = \"zipf\", theta = 0",
            "address.theta",
        ),
        ("kind = \"hot-cold\"", "kind = \"warm\"", "address.kind"),
        ("iops = 1000", "iops = 0", "arrival.iops"),
        ("iops = 1000", "iops = -3.5", "arrival.iops"),
        ("iops = 1000", "iops = nan", "arrival.iops"),
        ("iops = 1000", "iops = inf", "arrival.iops"),
        ("iops = 1000", "iops = 1e-320", "arrival.iops"),
        ("iops = 1000", "rate = 1000", "arrival.rate"),
        ("kind = \"poisson\"", "kind = \"bursty\"", "arrival.kind"),
        ("name = \"t\"", "name = \"t\"\nextra = true", "extra"),
    ];
    for (from, to, field) in cases {
        assert!(GOOD.contains(from), "{from}");
        let text = GOOD.replacen(from, to, 1);
        let (f, msg) = config_error(&text);
        assert_eq!(f, field, "{from} -> {to}: {msg}");
    }
    // toml-level errors carry the line
    let (_, msg) = config_error(&GOOD.replace("seed = 3", "seed = \"three\""));
    assert!(msg.contains("line 3"), "{msg}");
}

#[test]
fn profile_load_names_the_file() {
    let path = fixture("bad/profile-theta.toml");
    let e = Profile::load(&path).unwrap_err().to_string();
    assert!(
        e.contains("profile-theta.toml") && e.contains("address.theta"),
        "{e}"
    );
    let e = Profile::load(&fixture("bad/no-such-profile.toml")).unwrap_err();
    assert!(matches!(e, Error::Io { .. }));
}

#[test]
fn invalid_profile_in_code_gives_an_error_item_not_a_panic() {
    let p = Profile {
        address: Address::Zipf { theta: f64::NAN },
        ..base_profile()
    };
    assert!(Generator::try_new(&p).is_err());
    let items: Vec<_> = Generator::new(&p).collect();
    assert_eq!(items.len(), 1);
    let e = items[0].as_ref().unwrap_err().to_string();
    assert!(
        e.contains("profile `test`") && e.contains("address.theta"),
        "{e}"
    );
    let src = Source::Synthetic(p);
    assert_eq!(src.open().unwrap().count(), 1);
}

#[test]
fn synthetic_source() {
    let p = Profile {
        requests: 500,
        ..base_profile()
    };
    let src = Source::Synthetic(p.clone());
    let a = all(src.open().unwrap());
    assert_eq!(a.len(), 500);
    assert_eq!(all(src.open().unwrap()), a);
    assert_eq!(a, generate(&p));
    assert_eq!(src.describe(), "synthetic `test`");
}
