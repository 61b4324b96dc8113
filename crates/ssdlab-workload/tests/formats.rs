//! The trace readers of every format, through the shared pipeline: records,
//! units, filters, errors, skipped lines, order, compression, detection.
//! Fixtures and their origin: ../ssdlab/tests/fixtures/README.md (formats/).

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;

use ssdlab_workload::detect::detect;
use ssdlab_workload::Error;
use ssdlab_workload::{
    blkparse, open_trace, BlkparseAction, IoRecord, Op, ReadCounters, Source, TraceFormat,
    TraceOptions,
};

// ---------------------------------------------------------------------------
// helpers

mod common;

fn fixture(name: &str) -> PathBuf {
    common::ssdlab_fixture(&format!("formats/{name}"))
}

fn scratch(test: &str) -> PathBuf {
    common::scratch("formats-tests", test)
}

fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::encode_all(bytes, 3).unwrap()
}

fn rec(time_ns: u64, op: Op, offset: u64, size: u64) -> IoRecord {
    IoRecord::new(time_ns, op, offset, size)
}

fn read(path: &Path, format: TraceFormat, options: &TraceOptions) -> Vec<IoRecord> {
    open_trace(path, format, options)
        .unwrap()
        .map(|r| r.unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

fn plain(path: &Path, format: TraceFormat) -> Vec<IoRecord> {
    read(path, format, &TraceOptions::default())
}

/// The first error of a stream, as text; the stream must end after it.
fn first_error(path: &Path, format: TraceFormat, options: &TraceOptions) -> String {
    let mut iter = open_trace(path, format, options).unwrap();
    let e = iter.find_map(|r| r.err()).expect("an error");
    assert!(iter.next().is_none(), "the stream must end after an error");
    e.to_string()
}

fn device(d: u32) -> TraceOptions {
    TraceOptions {
        device: Some(d),
        ..TraceOptions::default()
    }
}

const SECTOR: u64 = 512;

/// Every fixture with its format and record count.
const FIXTURES: &[(&str, TraceFormat, usize)] = &[
    ("spc.csv", TraceFormat::Spc, 8),
    ("msprod.csv", TraceFormat::Msprod, 4),
    ("msprod-cpu.csv", TraceFormat::Msprod, 2),
    ("systor.csv", TraceFormat::Systor, 5),
    ("alibaba.csv", TraceFormat::Alibaba, 5),
    ("tencent.csv", TraceFormat::Tencent, 5),
    ("blkparse.txt", TraceFormat::Blkparse, 5),
    ("disksim.trace", TraceFormat::Disksim, 5),
    ("ssdsim.trace", TraceFormat::Ssdsim, 4),
];

// ---------------------------------------------------------------------------
// format names

#[test]
fn format_names_round_trip() {
    let names = [
        "msr", "spc", "msprod", "systor", "alibaba", "tencent", "blkparse", "disksim", "mqsim",
        "ssdsim", "linnos", "auto",
    ];
    assert_eq!(TraceFormat::NAMES, names);
    for name in names {
        let f = TraceFormat::parse(name).unwrap();
        assert_eq!(f.name(), name);
        assert_eq!(TraceFormat::parse(&name.to_uppercase()).unwrap(), f);
    }
    assert_eq!(TraceFormat::ALL.len(), 11);
    let e = TraceFormat::parse("umass").unwrap_err().to_string();
    assert!(
        e.contains("unknown trace format `umass`") && e.contains("blkparse"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------
// SPC

#[test]
fn spc_records_units_and_filter() {
    let path = fixture("spc.csv");
    let recs = plain(&path, TraceFormat::Spc);
    assert_eq!(
        recs,
        vec![
            rec(551_706_000, Op::Write, 20_941_264 * SECTOR, 8192),
            rec(554_041_000, Op::Write, 20_939_840 * SECTOR, 8192),
            rec(556_286_000, Op::Read, 3_436_288 * SECTOR, 15872),
            rec(557_316_000, Op::Write, 20_945_920 * SECTOR, 3072),
            rec(1_000_000_000, Op::Read, 7236 * SECTOR, 512),
            rec(1_500_000_000, Op::Write, 3_436_320 * SECTOR, 4096),
            rec(2_000_000_001, Op::Read, 0, 512),
            rec(12_250_000_000, Op::Write, 20_941_264 * SECTOR, 8192),
        ]
    );
    // ASU filter; relative times are not rebased
    let asu1 = read(&path, TraceFormat::Spc, &device(1));
    assert_eq!(
        asu1,
        vec![
            rec(556_286_000, Op::Read, 3_436_288 * SECTOR, 15872),
            rec(1_500_000_000, Op::Write, 3_436_320 * SECTOR, 4096),
        ]
    );
    let o = device(0);
    assert_eq!(read(&path, TraceFormat::Spc, &o).len(), 5);
    let c = o.counters.snapshot();
    assert_eq!((c.records, c.filtered), (5, 3));
    // a header line is accepted
    let dir = scratch("spc-header");
    let text = format!(
        "ASU,LBA,Size,Opcode,Timestamp\n{}",
        std::fs::read_to_string(&path).unwrap()
    );
    assert_eq!(plain(&write(&dir, "h.csv", text), TraceFormat::Spc), recs);
}

#[test]
fn spc_asus_side_by_side() {
    let path = fixture("spc.csv");
    let stride = 16u64 << 30;
    let o = TraceOptions {
        side_by_side: true,
        device_stride: Some(stride),
        ..TraceOptions::default()
    };
    let recs = read(&path, TraceFormat::Spc, &o);
    let plain = plain(&path, TraceFormat::Spc);
    let asus = [0u64, 0, 1, 0, 2, 1, 0, 0];
    for ((r, p), asu) in recs.iter().zip(&plain).zip(asus) {
        assert_eq!(r.offset, asu * stride + p.offset);
        assert_eq!((r.time_ns, r.op, r.size), (p.time_ns, p.op, p.size));
    }
    // without a stride: an error that says what is missing
    let missing = TraceOptions {
        side_by_side: true,
        ..TraceOptions::default()
    };
    let e = open_trace(&path, TraceFormat::Spc, &missing).err().unwrap();
    assert!(matches!(e, Error::Invalid(_)), "{e}");
    assert!(e.to_string().contains("stride"), "{e}");
    // a stride smaller than a device's extent is an error naming the line
    let small = TraceOptions {
        side_by_side: true,
        device_stride: Some(1 << 30),
        ..TraceOptions::default()
    };
    let e = first_error(&path, TraceFormat::Spc, &small);
    assert!(
        e.contains("spc.csv:1: field `size`") && e.contains("stride"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------
// Microsoft Production Server

#[test]
fn msprod_reads_disk_rows_and_counts_the_rest() {
    let path = fixture("msprod.csv");
    let o = TraceOptions::default();
    let recs = read(&path, TraceFormat::Msprod, &o);
    assert_eq!(
        recs,
        vec![
            rec(8_640_000, Op::Read, 0x0000_275e_1000, 4096),
            rec(9_050_000, Op::Write, 0x2000, 0x10000),
            rec(10_500_000, Op::Read, 0xa0000, 0x2000),
            rec(1_250_000_000, Op::Write, 0x100000, 512),
        ]
    );
    let c = o.counters.snapshot();
    assert_eq!(
        (c.records, c.non_io, c.flushes, c.bad_lines),
        (4, 4, 1, 0),
        "DiskReadInit, FileIoRead, DiskWriteInit, DiskFlushInit; one DiskFlush"
    );
    let disk1 = device(1);
    assert_eq!(
        read(&path, TraceFormat::Msprod, &disk1),
        vec![
            rec(9_050_000, Op::Write, 0x2000, 0x10000),
            rec(10_500_000, Op::Read, 0xa0000, 0x2000),
        ]
    );
    let c = disk1.counters.snapshot();
    assert_eq!((c.filtered, c.flushes), (2, 1));
    // without the flush: device 0 has none and the flush is filtered
    let disk0 = device(0);
    assert_eq!(read(&path, TraceFormat::Msprod, &disk0).len(), 2);
    assert_eq!(disk0.counters.snapshot().flushes, 0);
}

#[test]
fn msprod_columns_come_from_the_header() {
    // newer xperf exports have a CPU column after ThreadID
    let recs = plain(&fixture("msprod-cpu.csv"), TraceFormat::Msprod);
    assert_eq!(
        recs,
        vec![
            rec(7_415_000, Op::Read, 0x0000_31a4_c000, 0x4000),
            rec(9_100_000, Op::Write, 0x4000, 0x8000),
        ]
    );
    let o = device(2);
    assert_eq!(
        read(&fixture("msprod-cpu.csv"), TraceFormat::Msprod, &o).len(),
        1
    );
    // without a header the classic layout is assumed
    let dir = scratch("msprod-noheader");
    let text = std::fs::read_to_string(fixture("msprod.csv")).unwrap();
    let body = text.split("EndHeader").nth(1).unwrap();
    let path = write(&dir, "body.csv", body);
    assert_eq!(
        plain(&path, TraceFormat::Msprod),
        plain(&fixture("msprod.csv"), TraceFormat::Msprod)
    );
}

// ---------------------------------------------------------------------------
// SYSTOR '17

#[test]
fn systor_rebases_and_counts_blank_types() {
    let path = fixture("systor.csv");
    let o = TraceOptions::default();
    let recs = read(&path, TraceFormat::Systor, &o);
    assert_eq!(
        recs,
        vec![
            rec(0, Op::Read, 5_463_146_496, 4096),
            rec(82_000, Op::Write, 1_073_741_824, 65536),
            rec(486_882_000, Op::Read, 0, 512),
            rec(1_000_000_000, Op::Write, 5_463_150_592, 8192),
            rec(2_000_000_001, Op::Read, 4096, 4096),
        ]
    );
    let c = o.counters.snapshot();
    assert_eq!((c.records, c.blank_type), (5, 2));
    // LUN 3 is rebased to its own first record
    assert_eq!(
        read(&path, TraceFormat::Systor, &device(3)),
        vec![rec(0, Op::Read, 0, 512)]
    );
}

// ---------------------------------------------------------------------------
// Alibaba, Tencent

#[test]
fn alibaba_microseconds_rebased() {
    let path = fixture("alibaba.csv");
    assert_eq!(
        plain(&path, TraceFormat::Alibaba),
        vec![
            rec(0, Op::Read, 126_703_640_576, 4096),
            rec(74_000, Op::Write, 126_703_648_768, 8192),
            rec(374_000, Op::Write, 0, 512),
            rec(1_000_000_000, Op::Read, 4096, 4096),
            rec(1_999_374_000, Op::Write, 1_048_576, 65536),
        ]
    );
    assert_eq!(
        read(&path, TraceFormat::Alibaba, &device(7)),
        vec![
            rec(0, Op::Write, 0, 512),
            rec(1_999_000_000, Op::Write, 1_048_576, 65536),
        ]
    );
}

#[test]
fn tencent_sectors_and_volume_filter() {
    let path = fixture("tencent.csv");
    assert_eq!(
        plain(&path, TraceFormat::Tencent),
        vec![
            rec(0, Op::Write, 1_124_616 * SECTOR, 16 * SECTOR),
            rec(0, Op::Read, 1_124_632 * SECTOR, 8 * SECTOR),
            rec(1_000_000_000, Op::Write, 0, SECTOR),
            rec(3_000_000_000, Op::Read, 2048 * SECTOR, 256 * SECTOR),
            rec(3_000_000_000, Op::Read, 99 * SECTOR, SECTOR),
        ]
    );
    let vol = read(&path, TraceFormat::Tencent, &device(1283));
    assert_eq!(vol.len(), 3);
    assert_eq!(
        vol[2],
        rec(3_000_000_000, Op::Read, 2048 * SECTOR, 256 * SECTOR)
    );
}

// ---------------------------------------------------------------------------
// blkparse

#[test]
fn blkparse_issue_actions() {
    let path = fixture("blkparse.txt");
    let o = TraceOptions::default();
    let recs = read(&path, TraceFormat::Blkparse, &o);
    assert_eq!(
        recs,
        vec![
            rec(6_512, Op::Write, 3_417_048 * SECTOR, 8 * SECTOR),
            rec(1_001_000, Op::Read, 1024 * SECTOR, 32 * SECTOR),
            rec(2_100_200, Op::Write, 2048 * SECTOR, 16 * SECTOR),
            rec(3_500_300, Op::Read, 4096 * SECTOR, 8 * SECTOR),
            rec(1_500_001_000, Op::Read, 5000 * SECTOR, 256 * SECTOR),
        ]
    );
    let c = o.counters.snapshot();
    assert_eq!(
        (c.records, c.discards, c.flushes, c.non_io, c.bad_lines),
        (5, 1, 2, 19, 0),
        "D DS is a discard; D FN and D FWFS carry flushes; 19 events are not D; \
         the summary is not read"
    );
    // device 8,0 only
    let sda = device(blkparse::device_id(8, 0).unwrap());
    let recs = read(&path, TraceFormat::Blkparse, &sda);
    assert_eq!(recs.len(), 4);
    assert_eq!(sda.counters.snapshot().filtered, 1);
    let sdb = device(blkparse::device_id(8, 16).unwrap());
    assert_eq!(
        read(&path, TraceFormat::Blkparse, &sdb),
        vec![rec(3_500_300, Op::Read, 4096 * SECTOR, 8 * SECTOR)]
    );
}

#[test]
fn blkparse_discards_replay_as_trims_when_asked() {
    let o = TraceOptions {
        replay_trims: true,
        ..TraceOptions::default()
    };
    let recs = read(&fixture("blkparse.txt"), TraceFormat::Blkparse, &o);
    assert_eq!(recs.len(), 6);
    assert_eq!(
        recs[3],
        rec(3_000_400, Op::Trim, 8192 * SECTOR, 2048 * SECTOR),
        "D DS 8192 + 2048 [fstrim]"
    );
    let c = o.counters.snapshot();
    assert_eq!((c.records, c.trims, c.discards), (6, 1, 0));
}

#[test]
fn blkparse_queue_actions() {
    let o = TraceOptions {
        blkparse_action: BlkparseAction::Queue,
        ..TraceOptions::default()
    };
    let recs = read(&fixture("blkparse.txt"), TraceFormat::Blkparse, &o);
    assert_eq!(
        recs,
        vec![
            rec(0, Op::Write, 3_417_048 * SECTOR, 8 * SECTOR),
            rec(1_000_000, Op::Read, 1024 * SECTOR, 32 * SECTOR),
            rec(2_100_000, Op::Write, 2048 * SECTOR, 16 * SECTOR),
            rec(3_500_000, Op::Read, 4096 * SECTOR, 8 * SECTOR),
            rec(4_000_100, Op::Write, 3_417_100 * SECTOR, 8 * SECTOR),
            rec(1_500_000_000, Op::Read, 5000 * SECTOR, 256 * SECTOR),
        ]
    );
    let c = o.counters.snapshot();
    assert_eq!((c.discards, c.flushes), (1, 2));
}

// ---------------------------------------------------------------------------
// DiskSim, SSDSim, MQSim

#[test]
fn disksim_milliseconds_and_flag_bit() {
    assert_eq!(
        plain(&fixture("disksim.trace"), TraceFormat::Disksim),
        vec![
            rec(0, Op::Read, 2048 * SECTOR, 16 * SECTOR),
            rec(1_250_000, Op::Write, 4096 * SECTOR, 8 * SECTOR),
            rec(1_250_000, Op::Read, 0, SECTOR),
            rec(12_625_000, Op::Write, 100 * SECTOR, 64 * SECTOR),
            rec(1_000_000_001, Op::Read, 8 * SECTOR, 8 * SECTOR),
        ]
    );
    assert_eq!(
        read(&fixture("disksim.trace"), TraceFormat::Disksim, &device(1)).len(),
        2
    );
}

#[test]
fn ssdsim_and_mqsim_read_alike() {
    let path = fixture("ssdsim.trace");
    let want = vec![
        rec(0, Op::Read, 2048 * SECTOR, 8 * SECTOR),
        rec(1500, Op::Write, 4096 * SECTOR, 16 * SECTOR),
        rec(1500, Op::Read, 0, SECTOR),
        rec(20_000_000, Op::Write, 123 * SECTOR, 8 * SECTOR),
    ];
    assert_eq!(plain(&path, TraceFormat::Ssdsim), want);
    assert_eq!(plain(&path, TraceFormat::Mqsim), want);
    assert_eq!(read(&path, TraceFormat::Ssdsim, &device(1)), want[2..3]);
}

// ---------------------------------------------------------------------------
// malformed records

/// `(format, text, line, field, part of the message)`
const BAD: &[(TraceFormat, &str, u64, &str, &str)] = &[
    (TraceFormat::Spc, "0,1,512,W\n", 1, "record", "found 4"),
    (
        TraceFormat::Spc,
        "0,1,512,X,0.1\n",
        1,
        "opcode",
        "found `X`",
    ),
    (
        TraceFormat::Spc,
        "0,1,512,W,0\n0,1,0,W,0.1\n",
        2,
        "size",
        "size is 0",
    ),
    (
        TraceFormat::Spc,
        "0,1,512,W,-1\n",
        1,
        "timestamp",
        "found `-1`",
    ),
    (
        TraceFormat::Spc,
        "0,1,512,W,0\nx,1,512,W,1\n",
        2,
        "asu",
        "found `x`",
    ),
    (
        TraceFormat::Spc,
        "0,18014398509481984,512,W,0\n",
        1,
        "lba",
        "2^63",
    ),
    (
        TraceFormat::Spc,
        "0,1,9223372036854775808,W,0\n",
        1,
        "size",
        "2^63",
    ),
    (
        TraceFormat::Msprod,
        "BeginHeader\nDiskRead, TimeStamp, ByteOffset, IOSize\nEndHeader\n",
        2,
        "header",
        "no `DiskNum` column",
    ),
    (
        TraceFormat::Msprod,
        "DiskRead, 1, p (1), 1, 0x1, 0x10, 0x1000\n",
        1,
        "record",
        "at least 9",
    ),
    (
        TraceFormat::Msprod,
        "DiskRead, 1, p (1), 1, 0x1, 4096, 0x1000, 1, 0\n",
        1,
        "byte_offset",
        "hexadecimal",
    ),
    (
        TraceFormat::Msprod,
        "DiskWrite, 1x, p (1), 1, 0x1, 0x0, 0x1000, 1, 0\n",
        1,
        "timestamp",
        "found `1x`",
    ),
    (
        TraceFormat::Msprod,
        "DiskRead, 1, p (1), 1, 0x1, 0x0, 0x0, 1, 0\n",
        1,
        "io_size",
        "size is 0",
    ),
    (
        TraceFormat::Msprod,
        "DiskRead, 1, p (1), 1, 0x1, 0x7fffffffffffffff, 0x2, 1, 0\n",
        1,
        "io_size",
        "2^63",
    ),
    (
        TraceFormat::Msprod,
        "DiskRead, 1, p (1), 1, 0x1, 0x0, 0x10, 1, disk0\n",
        1,
        "disk_num",
        "found `disk0`",
    ),
    (
        TraceFormat::Msprod,
        "12, DiskRead\n",
        1,
        "record",
        "event row",
    ),
    (TraceFormat::Systor, "1,0.1,R,0,0\n", 1, "record", "found 5"),
    (
        TraceFormat::Systor,
        "1,0.1,X,0,0,1\n",
        1,
        "io_type",
        "found `X`",
    ),
    (
        TraceFormat::Systor,
        "1,0.1,R,-1,0,1\n",
        1,
        "lun",
        "found `-1`",
    ),
    (
        TraceFormat::Systor,
        "1,0.1,R,0,0,0\n",
        1,
        "size",
        "size is 0",
    ),
    (
        TraceFormat::Systor,
        "1,abc,R,0,0,1\n",
        1,
        "response",
        "found `abc`",
    ),
    (
        TraceFormat::Systor,
        "1e9,0.1,R,0,0,1\n",
        1,
        "timestamp",
        "found `1e9`",
    ),
    (
        TraceFormat::Systor,
        "1,0.1,R,0,9223372036854775807,2\n",
        1,
        "size",
        "2^63",
    ),
    (TraceFormat::Alibaba, "0,R,0,4096\n", 1, "record", "found 4"),
    (
        TraceFormat::Alibaba,
        "0,T,0,4096,1\n",
        1,
        "opcode",
        "found `T`",
    ),
    (
        TraceFormat::Alibaba,
        "0,R,0,0,1\n",
        1,
        "length",
        "size is 0",
    ),
    (
        TraceFormat::Alibaba,
        "0,R,0,512,x\n",
        1,
        "timestamp",
        "found `x`",
    ),
    (
        TraceFormat::Alibaba,
        "4294967296,R,0,512,1\n",
        1,
        "device_id",
        "too large",
    ),
    (
        TraceFormat::Alibaba,
        "0,W,9223372036854775000,4096,1\n",
        1,
        "length",
        "2^63",
    ),
    (
        TraceFormat::Tencent,
        "1,0,8,2,7\n",
        1,
        "io_type",
        "found `2`",
    ),
    (
        TraceFormat::Tencent,
        "1,0,8,1,v1\n",
        1,
        "volume_id",
        "found `v1`",
    ),
    (
        TraceFormat::Tencent,
        "1,18014398509481984,8,1,7\n",
        1,
        "offset",
        "2^63",
    ),
    (
        TraceFormat::Tencent,
        "1,0,18014398509481985,1,7\n",
        1,
        "size",
        "2^63",
    ),
    (
        TraceFormat::Tencent,
        "1,18014398509481983,2,1,7\n",
        1,
        "size",
        "2^63",
    ),
    (
        TraceFormat::Blkparse,
        "8,0 0 1 0.5 1 D W 100 + x [p]\n",
        1,
        "blocks",
        "found `x`",
    ),
    (
        TraceFormat::Blkparse,
        "8,0 0 1 0.5 1 D X 100 + 8 [p]\n",
        1,
        "rwbs",
        "found `X`",
    ),
    (
        TraceFormat::Blkparse,
        "8,0 0 1 0.5x 1 D W 100 + 8 [p]\n",
        1,
        "time",
        "found `0.5x`",
    ),
    (
        TraceFormat::Blkparse,
        "8,0 0 1 0.5 1 D W 100 - 8 [p]\n",
        1,
        "record",
        "sector + blocks",
    ),
    (
        TraceFormat::Blkparse,
        "8,0 0 1 0.5\n",
        1,
        "record",
        "found 4",
    ),
    (
        TraceFormat::Blkparse,
        "8,x 0 1 0.5 1 D W 1 + 8 [p]\n",
        1,
        "device",
        "major,minor",
    ),
    (
        TraceFormat::Blkparse,
        "hello world\n",
        1,
        "record",
        "blkparse event",
    ),
    (
        TraceFormat::Blkparse,
        "8,0 0 1 0.5 1 D W 18014398509481983 + 2 [p]\n",
        1,
        "blocks",
        "2^63",
    ),
    (TraceFormat::Disksim, "1.5 0 0 8\n", 1, "record", "found 4"),
    (
        TraceFormat::Disksim,
        "1.5 0 0 0 1\n",
        1,
        "bcount",
        "size is 0",
    ),
    (
        TraceFormat::Disksim,
        "1,5 0 0 8 1\n",
        1,
        "time_ms",
        "found `1,5`",
    ),
    (TraceFormat::Disksim, "1 0 0 8 x\n", 1, "flags", "found `x`"),
    (
        TraceFormat::Disksim,
        "1 -1 0 8 1\n",
        1,
        "devno",
        "found `-1`",
    ),
    (
        TraceFormat::Disksim,
        "1 0 18014398509481983 2 1\n",
        1,
        "bcount",
        "2^63",
    ),
    (TraceFormat::Ssdsim, "1 0 0 8 2\n", 1, "ope", "found `2`"),
    (TraceFormat::Ssdsim, "1 0 0 0 1\n", 1, "size", "size is 0"),
    (
        TraceFormat::Ssdsim,
        "1.5 0 0 8 1\n",
        1,
        "time_ns",
        "found `1.5`",
    ),
    (
        TraceFormat::Ssdsim,
        "1 0 0 36028797018963968 1\n",
        1,
        "size",
        "2^63",
    ),
    (TraceFormat::Mqsim, "1 0 0 8 2\n", 1, "type", "found `2`"),
    (
        TraceFormat::Msr,
        "1,h,0,Trim,0,512,1\n",
        1,
        "type",
        "found `Trim`",
    ),
];

#[test]
fn malformed_records_name_file_line_and_field() {
    let dir = scratch("malformed");
    for (i, (format, text, line, field, msg)) in BAD.iter().enumerate() {
        let name = format!("bad-{i}-{}.trace", format.name());
        let path = write(&dir, &name, text);
        let e = first_error(&path, *format, &TraceOptions::default());
        let case = format!("{} {text:?}: {e}", format.name());
        assert!(
            e.starts_with(&format!("{}:{line}: ", path.display())),
            "{case}"
        );
        assert!(e.contains(&format!("field `{field}`")), "{case}");
        assert!(e.contains(msg), "{case}");
    }
}

#[test]
fn skip_bad_lines_skips_and_counts() {
    let dir = scratch("skip-bad");
    // a malformed line put after the first record of every fixture
    let bad_lines = [
        ("spc.csv", "0,1,512,X,0.1"),
        (
            "msprod.csv",
            "DiskRead, 1, p (1), 1, 0x1, 4096, 0x1000, 1, 0",
        ),
        ("systor.csv", "1456135200.013118000,0.1,R,4,0,0"),
        ("alibaba.csv", "0,T,0,4096,1577808000000626"),
        ("tencent.csv", "1538323200,0,8,2,7"),
        ("blkparse.txt", "8,0 0 1 0.0000065 1 D W 100 + x [p]"),
        ("disksim.trace", "0.5 0 0 8 x"),
        ("ssdsim.trace", "0 0 0 8 2"),
    ];
    for (name, bad) in bad_lines {
        let format = FIXTURES.iter().find(|f| f.0 == name).unwrap().1;
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // after the first line that yields a record
        let first_record_line = (1..=lines.len())
            .find(|&n| {
                let p = write(&dir, &format!("probe-{name}"), lines[..n].join("\n"));
                !plain(&p, format).is_empty()
            })
            .unwrap();
        let mut edited: Vec<&str> = lines.clone();
        edited.insert(first_record_line, bad);
        edited.insert(first_record_line + 1, "\u{1}\u{2} junk \u{7f}");
        let path = write(&dir, name, edited.join("\n").into_bytes());
        let e = first_error(&path, format, &TraceOptions::default());
        assert!(
            e.contains(&format!(":{}: field", first_record_line + 1)),
            "{name}: {e}"
        );
        let o = TraceOptions {
            skip_bad_lines: true,
            ..TraceOptions::default()
        };
        assert_eq!(
            read(&path, format, &o),
            plain(&fixture(name), format),
            "{name}"
        );
        let c = o.counters.snapshot();
        assert_eq!(c.bad_lines, 2, "{name}");
        let first = c.first_bad_line.unwrap();
        assert!(
            first.contains(&format!(":{}: field", first_record_line + 1)),
            "{name}: {first}"
        );
    }
}

#[test]
fn skip_bad_lines_goes_past_bytes_that_are_not_text() {
    let dir = scratch("skip-binary");
    let mut bytes = b"0,1,512,W,0.1\n".to_vec();
    bytes.extend([0xff, 0xfe, b'\n']);
    bytes.extend(b"0,2,512,R,0.2\n");
    let path = write(&dir, "binary.csv", bytes);
    let e = first_error(&path, TraceFormat::Spc, &TraceOptions::default());
    assert!(e.contains(":2: field `text`") && e.contains("UTF-8"), "{e}");
    let o = TraceOptions {
        skip_bad_lines: true,
        ..TraceOptions::default()
    };
    assert_eq!(read(&path, TraceFormat::Spc, &o).len(), 2);
    assert_eq!(o.counters.snapshot().bad_lines, 1);
}

#[test]
fn empty_and_blank_files_have_no_records() {
    let dir = scratch("empty");
    for format in TraceFormat::ALL {
        for (name, text) in [("empty", ""), ("blank", "\n  \n\t\n")] {
            let path = write(&dir, &format!("{name}.{}", format.name()), text);
            assert_eq!(plain(&path, *format), vec![], "{name} {}", format.name());
        }
    }
}

// ---------------------------------------------------------------------------
// time order

/// Three records per format, the third earlier than the second.
const BACKWARDS: &[(TraceFormat, &str, &str)] = &[
    (
        TraceFormat::Spc,
        "0,0,512,W,1\n0,8,512,W,3\n0,16,512,W,2\n",
        "timestamp",
    ),
    (
        TraceFormat::Msprod,
        "DiskRead, 1000, p (1), 1, 0x1, 0x0, 0x200, 1, 0\n\
         DiskRead, 3000, p (1), 1, 0x1, 0x1000, 0x200, 1, 0\n\
         DiskRead, 2000, p (1), 1, 0x1, 0x2000, 0x200, 1, 0\n",
        "timestamp",
    ),
    (
        TraceFormat::Systor,
        "1,0,R,0,0,512\n3,0,R,0,4096,512\n2,0,R,0,8192,512\n",
        "timestamp",
    ),
    (
        TraceFormat::Alibaba,
        "0,R,0,512,1000\n0,R,4096,512,3000\n0,R,8192,512,2000\n",
        "timestamp",
    ),
    (
        TraceFormat::Tencent,
        "1,0,1,0,0\n3,8,1,0,0\n2,16,1,0,0\n",
        "timestamp",
    ),
    (
        TraceFormat::Blkparse,
        "8,0 0 1 1.0 1 D R 0 + 1 [p]\n8,0 0 2 3.0 1 D R 8 + 1 [p]\n8,0 1 1 2.0 1 D R 16 + 1 [p]\n",
        "time",
    ),
    (
        TraceFormat::Disksim,
        "1.0 0 0 1 1\n3.0 0 8 1 1\n2.0 0 16 1 1\n",
        "time_ms",
    ),
    (
        TraceFormat::Ssdsim,
        "1000 0 0 1 1\n3000 0 8 1 1\n2000 0 16 1 1\n",
        "time_ns",
    ),
    (
        TraceFormat::Mqsim,
        "1000 0 0 1 1\n3000 0 8 1 1\n2000 0 16 1 1\n",
        "time",
    ),
    (
        TraceFormat::Msr,
        "10,h,0,Read,0,512,1\n30,h,0,Read,4096,512,1\n20,h,0,Read,8192,512,1\n",
        "timestamp",
    ),
];

#[test]
fn timestamps_going_backwards_are_reordered_unless_strict() {
    let dir = scratch("order");
    for (format, text, field) in BACKWARDS {
        let path = write(&dir, &format!("back.{}", format.name()), text);
        let strict = TraceOptions {
            sort_window: Some(0),
            ..TraceOptions::default()
        };
        let e = first_error(&path, *format, &strict);
        assert!(
            e.contains(":3: field `") && e.contains(&format!("field `{field}`")),
            "{}: {e}",
            format.name()
        );
        assert!(
            e.contains("timestamps go backwards") && e.contains("--sort"),
            "{e}"
        );
        for window in [Some(16), None] {
            let o = TraceOptions {
                sort_window: window,
                ..TraceOptions::default()
            };
            let recs = read(&path, *format, &o);
            assert_eq!(recs.len(), 3, "{}", format.name());
            assert!(recs.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
            let offsets: Vec<u64> = recs.iter().map(|r| r.offset).collect();
            let (a, b, c) = (recs[0].offset, recs[1].offset, recs[2].offset);
            assert!(a < b && b > c && a < c, "{}: {offsets:?}", format.name());
            assert_eq!(o.counters.snapshot().reordered, 1);
        }
    }
}

#[test]
fn a_window_too_small_is_an_error_naming_it() {
    let dir = scratch("order-window");
    let mut text = String::new();
    for t in [5, 1, 2, 3, 4, 0] {
        text.push_str(&format!("0,{t},512,W,{t}\n"));
    }
    let path = write(&dir, "late.csv", &text);
    let o = |w| TraceOptions {
        sort_window: Some(w),
        ..TraceOptions::default()
    };
    let times: Vec<u64> = read(&path, TraceFormat::Spc, &o(8))
        .iter()
        .map(|r| r.time_ns / 1_000_000_000)
        .collect();
    assert_eq!(times, vec![0, 1, 2, 3, 4, 5]);
    let e = first_error(&path, TraceFormat::Spc, &o(2));
    assert!(e.contains("late.csv:6: field `timestamp`"), "{e}");
    assert!(e.contains("reorder window of 2 records"), "{e}");
    assert!(e.contains("use a larger window, e.g. --sort 65536"), "{e}");
    // a window of 0 is strict order: the first step back is the error
    let e = first_error(&path, TraceFormat::Spc, &o(0));
    assert!(e.contains("late.csv:2: field `timestamp`"), "{e}");
    assert!(e.contains("(--sort 0)"), "{e}");
}

// ---------------------------------------------------------------------------
// start and limit

#[test]
fn start_options_and_limit() {
    let path = fixture("spc.csv");
    let all = plain(&path, TraceFormat::Spc);
    let o = |skip, start, limit| TraceOptions {
        skip_records: skip,
        start_ns: start,
        limit,
        ..TraceOptions::default()
    };
    assert_eq!(read(&path, TraceFormat::Spc, &o(3, 0, None)), all[3..]);
    assert_eq!(
        read(&path, TraceFormat::Spc, &o(0, 1_000_000_000, None)),
        all[4..]
    );
    assert_eq!(
        read(&path, TraceFormat::Spc, &o(5, 1_000_000_000, None)),
        all[5..]
    );
    assert_eq!(
        read(&path, TraceFormat::Spc, &o(0, 1_000_000_000, Some(2))),
        all[4..6]
    );
    assert_eq!(read(&path, TraceFormat::Spc, &o(0, 0, Some(0))), vec![]);
    let opts = o(1, 1_500_000_000, Some(1));
    assert_eq!(read(&path, TraceFormat::Spc, &opts), all[5..6]);
    let c = opts.counters.snapshot();
    assert_eq!((c.records, c.before_start), (1, 5));
    // absolute clocks: start is measured from the first record kept
    let sys = fixture("systor.csv");
    let recs = read(&sys, TraceFormat::Systor, &o(0, 1_000_000_000, None));
    assert_eq!(
        recs.iter().map(|r| r.time_ns).collect::<Vec<_>>(),
        vec![1_000_000_000, 2_000_000_001]
    );
}

// ---------------------------------------------------------------------------
// compression

#[test]
fn gzip_and_zstd_read_identically_to_plain() {
    let dir = scratch("compressed");
    for (name, format, n) in FIXTURES {
        let bytes = std::fs::read(fixture(name)).unwrap();
        let want = plain(&fixture(name), *format);
        assert_eq!(want.len(), *n, "{name}");
        let detected = detect(&fixture(name)).unwrap();
        for (suffix, packed) in [
            ("gz", gzip(&bytes)),
            ("zst", zstd(&bytes)),
            ("bin", zstd(&bytes)),
        ] {
            let path = write(&dir, &format!("{name}.{suffix}"), packed);
            assert_eq!(plain(&path, *format), want, "{}", path.display());
            assert_eq!(detect(&path).unwrap(), detected, "{}", path.display());
        }
    }
}

#[test]
fn zstd_frames_errors_and_truncation() {
    let dir = scratch("zstd");
    let bytes = std::fs::read(fixture("spc.csv")).unwrap();
    let cut = bytes.len() / 2;
    let cut = cut + bytes[cut..].iter().position(|&b| b == b'\n').unwrap() + 1;
    // two frames, as `zstd` writes for concatenated input
    let mut two = zstd(&bytes[..cut]);
    two.extend(zstd(&bytes[cut..]));
    let path = write(&dir, "two.zst", two);
    assert_eq!(
        plain(&path, TraceFormat::Spc),
        plain(&fixture("spc.csv"), TraceFormat::Spc)
    );
    // errors keep their line numbers
    let bad = write(
        &dir,
        "bad.zst",
        zstd(b"0,1,512,W,1\n0,1,512,W,2\n0,1,512,Q,3\n"),
    );
    let e = first_error(&bad, TraceFormat::Spc, &TraceOptions::default());
    assert!(e.contains("bad.zst:3: field `opcode`"), "{e}");
    // a truncated file is an error, not a short trace
    let mut big = String::new();
    for i in 0..20_000u64 {
        big.push_str(&format!("0,{i},4096,W,{i}.5\n"));
    }
    let packed = zstd(big.as_bytes());
    let path = write(&dir, "cut.zst", &packed[..packed.len() / 2]);
    let items: Vec<_> = open_trace(&path, TraceFormat::Spc, &TraceOptions::default())
        .unwrap()
        .collect();
    let last = items.last().unwrap();
    assert!(matches!(last, Err(Error::Io { .. })), "{last:?}");
    assert!(items.len() < 20_000);
    // even with skip_bad_lines
    let o = TraceOptions {
        skip_bad_lines: true,
        ..TraceOptions::default()
    };
    let items: Vec<_> = open_trace(&path, TraceFormat::Spc, &o).unwrap().collect();
    assert!(matches!(items.last().unwrap(), Err(Error::Io { .. })));
}

// ---------------------------------------------------------------------------
// detection

#[test]
fn detects_every_format() {
    for (name, format, _) in FIXTURES {
        // SSDSim and MQSim are one layout with one meaning: reported as mqsim
        let want = match format {
            TraceFormat::Ssdsim => TraceFormat::Mqsim,
            f => *f,
        };
        assert_eq!(detect(&fixture(name)).unwrap(), want, "{name}");
    }
    let dir = scratch("detect");
    let cases: &[(&str, &str, TraceFormat)] = &[
        (
            "systor-noheader.csv",
            "1456135200.013118000,0.000308000,R,4,5463146496,4096\n",
            TraceFormat::Systor,
        ),
        (
            "systor-blank-first.csv",
            "1456135200.014000000,,,4,12288,4096\n",
            TraceFormat::Systor,
        ),
        (
            "tencent-header.csv",
            "Timestamp,Offset,Size,IOType,VolumeID\n1,0,8,1,7\n",
            TraceFormat::Tencent,
        ),
        (
            "alibaba-header.csv",
            "device_id,opcode,offset,length,timestamp\n0,R,0,512,1\n",
            TraceFormat::Alibaba,
        ),
        (
            "spc-header.csv",
            "ASU,LBA,Size,Opcode,Timestamp\n",
            TraceFormat::Spc,
        ),
        (
            "other-header.csv",
            "when,disk,what,where,bytes\n0,R,0,512,1\n",
            TraceFormat::Alibaba,
        ),
        (
            "msr-header.csv",
            "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n",
            TraceFormat::Msr,
        ),
        (
            "msprod-body.csv",
            "\n   DiskReadInit, 8601, System (   4), 60, 0xfffffadf3d3a6010\n",
            TraceFormat::Msprod,
        ),
        (
            "blkparse-input.txt",
            "Input file sda.blktrace.0 added\n  8,0 0 1 0.000000000 1 Q R 0 + 8 [p]\n",
            TraceFormat::Blkparse,
        ),
        (
            "disksim-int.trace",
            "0 0 0 8 1\n2.5 0 8 8 0\n",
            TraceFormat::Disksim,
        ),
        (
            "mqsim-from-zero.trace",
            "0 0 0 8 1\n\n5000000 0 8 8 0\n20000000 0 8 8 0\n",
            TraceFormat::Mqsim,
        ),
    ];
    for (name, text, want) in cases {
        let path = write(&dir, name, text);
        assert_eq!(detect(&path).unwrap(), *want, "{name}");
    }
}

#[test]
fn detection_refuses_ambiguous_and_unknown_input() {
    let dir = scratch("detect-refuse");
    // Small integer times could be nanoseconds (mqsim, ssdsim) or integer
    // milliseconds (disksim): by the formats' conventions (DiskSim writes
    // fractional milliseconds) they are read as MQSim.
    let path = write(
        &dir,
        "small-integers.trace",
        "0 0 2048 8 1\n1 0 4096 8 0\n250 1 0 8 1\n",
    );
    assert_eq!(detect(&path).unwrap(), TraceFormat::Mqsim);
    let path = write(&dir, "unknown.csv", "Time,Where\nsoon,here\n");
    let e = detect(&path).unwrap_err().to_string();
    assert!(
        e.contains("line 1 `Time,Where` matches no known format"),
        "{e}"
    );
    // It says how to read any other layout.
    assert!(
        e.contains("--trace-format SPEC") && e.contains("Describing a trace format"),
        "{e}"
    );
    for f in TraceFormat::ALL {
        assert!(e.contains(f.name()), "{}: {e}", f.name());
    }
    for text in ["", "\n\n   \n"] {
        let path = write(&dir, "empty.trace", text);
        let e = detect(&path).unwrap_err().to_string();
        assert!(e.contains("no records"), "{e}");
    }
}

/// `n` lines in the LinnOS / FlashNet layout (ms with decimals, byte
/// offsets and sizes in 4 KiB multiples, 1 = read): a small synthetic trace
/// in the layout of case 1 of the detection tests.
fn linnos_lines(n: u64) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{}.{:03} {} {} {} {}\n",
                i * 3,
                (i * 137) % 1000,
                i % 2,
                ((i * 7919) % 100_000) * 4096,
                4096 << (i % 5),
                (i % 3 == 0) as u8
            )
        })
        .collect()
}

#[test]
fn detects_linnos_by_its_byte_units() {
    let dir = scratch("detect-linnos");
    let path = write(&dir, "flashnet.trace", linnos_lines(200));
    let d = ssdlab_workload::detect::explain(&path).unwrap();
    assert_eq!(d.format, TraceFormat::Linnos, "{:#?}", d.reasons);
    let all = d.reasons.join("\n");
    assert!(
        all.contains("not disksim") && all.contains("256 KiB"),
        "{all}"
    );
    assert!(
        all.contains("not mqsim") && all.contains("decimal point"),
        "{all}"
    );
    assert_eq!((d.sample_lines, d.sample_records), (200, 200));
    // read as LinnOS: bytes stay bytes, milliseconds become ns
    let recs = plain(&path, TraceFormat::Linnos);
    assert_eq!(recs[1].offset, 7919 * 4096);
    assert_eq!(recs[1].size, 8192);
    assert_eq!(recs[1].time_ns, 3_137_000);
    // the hand-written LinnOS fixture of the described formats too
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/linnos.trace");
    assert_eq!(detect(&fixture).unwrap(), TraceFormat::Linnos);
    // the same lines in sectors (small sizes, offsets of any sector) are DiskSim's
    let sectors: String = (0..50)
        .map(|i| format!("{}.5 0 {} {} {}\n", i, i * 13 + 1, 8 + i % 3, i % 2))
        .collect();
    let path = write(&dir, "disksim.trace", sectors);
    let d = ssdlab_workload::detect::explain(&path).unwrap();
    assert_eq!(d.format, TraceFormat::Disksim, "{:#?}", d.reasons);
    assert!(
        d.reasons.join(" ").contains("not linnos"),
        "{:?}",
        d.reasons
    );
}

#[test]
fn detection_refuses_what_it_cannot_tell() {
    let dir = scratch("detect-cannot-tell");
    // three aligned records: bytes or sectors cannot be told apart
    let path = write(&dir, "three.trace", linnos_lines(3));
    let e = detect(&path).unwrap_err().to_string();
    assert!(e.contains("fits disksim and linnos equally well"), "{e}");
    assert!(e.contains("--trace-format mqsim, disksim or linnos"), "{e}");
    assert!(e.contains("too few"), "{e}");
    // byte-aligned addresses with integer times an hour apart: no format
    // of the shape reads that
    let text: String = (0..40)
        .map(|i| format!("{} 0 {} 4096 1\n", i * 3_600_000, i * 4096))
        .collect();
    let path = write(&dir, "hours.trace", text);
    let e = detect(&path).unwrap_err().to_string();
    assert!(e.contains("fits none of the formats of its shape"), "{e}");
    assert!(e.contains("rules it out"), "{e}");
}

// ---------------------------------------------------------------------------
// Source and the counters handle

#[test]
fn source_reads_every_format_repeatably_and_reports_counts() {
    for (name, format, n) in FIXTURES {
        let counters = ReadCounters::new();
        let src = Source::Trace {
            path: fixture(name),
            format: TraceFormat::Auto,
            options: TraceOptions {
                counters: counters.clone(),
                ..TraceOptions::default()
            },
        };
        let a: Vec<_> = src.open().unwrap().map(|r| r.unwrap()).collect();
        assert_eq!(a.len(), *n, "{name}");
        let b: Vec<_> = src.open().unwrap().map(|r| r.unwrap()).collect();
        assert_eq!(a, b, "{name}: every open yields the same records");
        assert_eq!(
            counters.snapshot().records,
            *n as u64,
            "{name}: counts describe the last open"
        );
        assert_eq!(
            src.describe(),
            format!("{} (auto)", fixture(name).display())
        );
        let explicit = Source::Trace {
            path: fixture(name),
            format: *format,
            options: TraceOptions::default(),
        };
        assert_eq!(explicit.open().unwrap().count(), *n, "{name}");
        // a record limit works for every format
        let limited = Source::Trace {
            path: fixture(name),
            format: *format,
            options: TraceOptions {
                limit: Some(2),
                ..Default::default()
            },
        };
        assert_eq!(limited.open().unwrap().count(), 2, "{name}");
    }
}

#[test]
fn counts_print_as_one_line() {
    let o = TraceOptions {
        skip_bad_lines: true,
        ..TraceOptions::default()
    };
    let dir = scratch("summary");
    let mut text = std::fs::read_to_string(fixture("blkparse.txt")).unwrap();
    text.insert_str(0, "8,0 0 1 0.0 1 D W 100 + x [p]\n");
    let path = write(&dir, "b.txt", text);
    assert_eq!(read(&path, TraceFormat::Blkparse, &o).len(), 5);
    let line = o.counters.snapshot().to_string();
    assert!(
        line.starts_with("5 records; 1 malformed lines skipped (first: "),
        "{line}"
    );
    assert!(line.contains("b.txt:1: field `blocks`"), "{line}");
    assert!(line.contains("1 discards not replayed"), "{line}");
    assert!(line.contains("2 cache flushes not replayed"), "{line}");
    assert!(
        line.contains("19 rows that are not block requests skipped"),
        "{line}"
    );
    assert!(!line.contains("other devices"), "{line}");
    assert_eq!(
        ReadCounters::new().snapshot().to_string(),
        "0 records",
        "zero counts are left out"
    );
}

// ---------------------------------------------------------------------------
// robustness

mod never_panic {
    use super::*;
    use proptest::prelude::*;
    use ssdlab_workload::input::LineReader;
    use ssdlab_workload::mqsim::MqsimFormat;
    use ssdlab_workload::msr::MsrFormat;
    use ssdlab_workload::reader::{LineFormat, TraceReader};
    use ssdlab_workload::{
        alibaba::AlibabaFormat, blkparse::BlkparseFormat, disksim::DisksimFormat,
        msprod::MsprodFormat, spc::SpcFormat, ssdsim::SsdsimFormat, systor::SystorFormat,
        tencent::TencentFormat,
    };

    fn items<F: LineFormat>(
        bytes: &[u8],
        options: &TraceOptions,
    ) -> Vec<ssdlab_workload::Result<IoRecord>> {
        let lines =
            LineReader::from_reader("prop.trace", Box::new(std::io::Cursor::new(bytes.to_vec())));
        TraceReader::<F>::from_lines(lines, options)
            .unwrap()
            .collect()
    }

    fn check(
        items: &[ssdlab_workload::Result<IoRecord>],
        n_lines: usize,
        skip: bool,
    ) -> Result<(), TestCaseError> {
        prop_assert!(items.len() <= n_lines);
        let errors = items.iter().filter(|r| r.is_err()).count();
        prop_assert!(errors <= 1);
        if errors == 1 {
            prop_assert!(
                !skip,
                "skip_bad_lines skips every malformed line of text input"
            );
            // the error comes last, names a line of the input
            match items.last().unwrap() {
                Err(Error::Parse { line, .. }) => {
                    prop_assert!(*line >= 1 && *line as usize <= n_lines)
                }
                other => prop_assert!(false, "unexpected {:?}", other),
            }
        }
        for r in items.iter().flatten() {
            prop_assert!(r.size > 0 && r.offset.checked_add(r.size).is_some_and(|e| e <= 1 << 63));
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Any input gives records or an error, never a panic; the stream
        /// ends; with skip_bad_lines and a sort window wide enough, no error.
        #[test]
        fn readers_never_panic(
            lines in proptest::collection::vec(
                prop_oneof![
                    "[0-9 ,.\t]{0,40}",
                    "[0-9]{1,20},[a-z]{0,3},[0-9]{1,10},(Read|Write|rEaD|x),[0-9]{1,20},[0-9]{1,20},[0-9]{1,5}",
                    "[0-9]{1,12},[0-9]{1,20},[0-9]{1,20},[rRwWx],[0-9]{1,3}\\.[0-9]{0,12}",
                    "[0-9]{1,3}\\.[0-9]{1,9},[0-9.]{0,5},[RW]?,[0-9]{1,3},[0-9]{1,20},[0-9]{1,20}",
                    "[0-9]{1,4},[RWx],[0-9]{1,20},[0-9]{1,20},[0-9]{1,16}",
                    "[0-9]{1,10},[0-9]{1,20},[0-9]{1,20},[0-2],[0-9]{1,6}",
                    "  8,[0-9]{1,2} +[0-9] +[0-9]{1,3} +[0-9]{1,2}\\.[0-9]{9} +[0-9]{1,4} +[DQCm] +F?[RWDNX][FASM]{0,2}( [0-9]{1,20} \\+ [0-9]{1,20})? \\[p\\]",
                    "DiskRead, [0-9]{1,6}, p \\( 1\\), 1, 0x1, 0x[0-9a-f]{1,17}, 0x[0-9a-f]{1,17}, 1, [0-9]{1,2}",
                    "[0-9]{1,20}(\\.[0-9]{1,3})? [0-9]{1,10} [0-9]{1,20} [0-9]{1,20} [0-3]",
                    "(BeginHeader|EndHeader|CPU0 \\(8,0\\):)",
                    proptest::collection::vec(any::<u8>(), 0..20)
                        .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
                ],
                0..12,
            ),
            raw in proptest::collection::vec(any::<u8>(), 0..8),
        ) {
            let mut bytes = lines.join("\n").into_bytes();
            bytes.extend(raw);
            let n_lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
            for skip in [false, true] {
                let o = TraceOptions {
                    skip_bad_lines: skip,
                    sort_window: skip.then_some(64),
                    ..TraceOptions::default()
                };
                check(&items::<SpcFormat>(&bytes, &o), n_lines, skip)?;
                check(&items::<MsprodFormat>(&bytes, &o), n_lines, skip)?;
                check(&items::<SystorFormat>(&bytes, &o), n_lines, skip)?;
                check(&items::<AlibabaFormat>(&bytes, &o), n_lines, skip)?;
                check(&items::<TencentFormat>(&bytes, &o), n_lines, skip)?;
                check(&items::<BlkparseFormat>(&bytes, &o), n_lines, skip)?;
                check(&items::<DisksimFormat>(&bytes, &o), n_lines, skip)?;
                check(&items::<SsdsimFormat>(&bytes, &o), n_lines, skip)?;
                check(&items::<MqsimFormat>(&bytes, &o), n_lines, skip)?;
                check(&items::<MsrFormat>(&bytes, &o), n_lines, skip)?;
            }
        }
    }
}
