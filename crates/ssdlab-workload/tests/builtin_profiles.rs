//! The built-in workload profiles (`ssdlab_workload::builtin`): every one
//! parses, validates and generates deterministically, and what it generates
//! matches its paper's table row within 5 % on every column the row gives.
//!
//! The rows below are the papers' own numbers, written as printed (SPD,
//! PA-SSD, parallel GC and DVPFTL Table 2; DVPFTL §IV-B2 for PCMark05), not
//! read back from the profiles: GB is read as GiB (2^30 bytes), KB as KiB
//! and MB as MiB (docs/workloads.md, "Units"). Each check is marked:
//!
//! - `Table`: a cell of the row as printed;
//! - `TableScaled`: a count or volume of the row times the target's scale
//!   (generated requests / the row's requests), for a profile that is a
//!   scaled-down version of a long trace;
//! - `Derived`: a number the row implies (the SPD request count R_V/R_S +
//!   W_V/W_S; prn_1's mean write size, see below);
//! - `Other`: not in the row — another paper's or source's number, or an
//!   assumption, as the profile's header says; checked so that the profile
//!   keeps what its header promises;
//! - `Contradicted`: a printed cell the row itself contradicts, which no
//!   profile can meet together with the rest (SPD prn_1's W_S, DVPFTL
//!   Financial1's "22 %" reads): reported, not asserted.
//!
//! Everything is measured on the generated stream: `TraceStats` with 4 KiB
//! pages, plus the PA-SSD columns (mean write size in 8 KiB pages, share
//! of writes touching more than one 8 KiB page) counted here. Each profile
//! is generated whole once (36.7 M requests in all); a second generation of
//! its first 20 000 requests checks determinism.
//!
//! Scaled down (`Profile::scaled`, `trace generate --scale`), every
//! built-in keeps its row within 5 % too, down to its smallest scale
//! (`Profile::min_scale`), below which scaling is refused: counts, volumes
//! and the footprint are then checked against the row's times the scale.

use ssdlab_workload::builtin;
use ssdlab_workload::stats::{StatsAccumulator, TraceStats};
use ssdlab_workload::synthetic::{Generator, Profile};
use ssdlab_workload::{IoRecord, Op};

/// Largest relative deviation allowed between a generated statistic and its
/// target.
const TOLERANCE: f64 = 0.05;

/// Largest request count of a built-in: rows up to 2.5 M requests are
/// generated whole, longer ones scaled to 1 M.
const MAX_REQUESTS: u64 = 2_500_000;

/// Requests generated twice for the determinism check.
const PREFIX: usize = 20_000;

fn gib(x: f64) -> f64 {
    x * (1u64 << 30) as f64
}

fn mib(x: f64) -> f64 {
    x * (1u64 << 20) as f64
}

fn kib(x: f64) -> f64 {
    x * 1024.0
}

#[derive(Clone, Copy, Debug)]
enum Col {
    Requests,
    Reads,
    Writes,
    /// Write requests / requests.
    WriteShare,
    /// Read requests / requests.
    ReadShare,
    ReadBytes,
    WriteBytes,
    MeanReadSize,
    MeanWriteSize,
    /// Mean size of all requests, bytes.
    MeanSize,
    /// Distinct 4 KiB pages touched, times 4096.
    FootprintBytes,
    /// Mean write size in bytes / 8192 (PA-SSD's "Avg. W. Size (page)").
    MeanWritePages8k,
    /// Writes touching more than one 8 KiB page / writes (PA-SSD's "Large
    /// Write Ratio").
    LargeWriteShare8k,
    /// Writes that start where the previous write ended / writes; its target
    /// is 0 ("100 % random writes"), checked as at most 0.1 %.
    SequentialWriteShare,
    /// Mean gap between arrivals, milliseconds.
    MeanInterarrivalMs,
}

/// Where a target value comes from (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Src {
    Table,
    TableScaled,
    Derived,
    Other,
    Contradicted,
}

use Col::*;
use Src::*;

struct Target {
    name: &'static str,
    /// (generated requests, the row's requests) of a scaled profile.
    scale: Option<(u64, u64)>,
    checks: Vec<(Col, f64, Src)>,
}

/// The papers' rows, one per built-in, in the order of the papers' tables.
fn targets() -> Vec<Target> {
    vec![
        // ---- SPD (Gao et al., TPDS 2020) Table 2: every row generated whole
        // hm_0: W/R 67.9 %, FP 1.35, R_V/W_V 6.9/15.2 GB, R_S/W_S 11.2/11.6 KB
        Target {
            name: "spd/hm_0",
            scale: None,
            checks: vec![
                (WriteShare, 0.679, Table),
                (FootprintBytes, gib(1.35), Table),
                (ReadBytes, gib(6.9), Table),
                (WriteBytes, gib(15.2), Table),
                (MeanReadSize, kib(11.2), Table),
                (MeanWriteSize, kib(11.6), Table),
                (
                    Requests,
                    gib(6.9) / kib(11.2) + gib(15.2) / kib(11.6),
                    Derived,
                ),
                (MeanInterarrivalMs, 143.9, Other),
            ],
        },
        // prn_0: W/R 93.7 %, FP 2.93, R_V/W_V 3.0/20.5 GB, R_S/W_S 24.8/11.6 KB
        Target {
            name: "spd/prn_0",
            scale: None,
            checks: vec![
                (WriteShare, 0.937, Table),
                (FootprintBytes, gib(2.93), Table),
                (ReadBytes, gib(3.0), Table),
                (WriteBytes, gib(20.5), Table),
                (MeanReadSize, kib(24.8), Table),
                (MeanWriteSize, kib(11.6), Table),
                (
                    Requests,
                    gib(3.0) / kib(24.8) + gib(20.5) / kib(11.6),
                    Derived,
                ),
                (MeanInterarrivalMs, 118.2, Other),
            ],
        },
        // prn_1: W/R 32.1 %, FP 5.16, R_V/W_V 31.4/10.9 GB, R_S/W_S 24.2/11.4 KB
        Target {
            name: "spd/prn_1",
            scale: None,
            checks: vec![
                (WriteShare, 0.321, Table),
                (FootprintBytes, gib(5.16), Table),
                (ReadBytes, gib(31.4), Table),
                (WriteBytes, gib(10.9), Table),
                (MeanReadSize, kib(24.2), Table),
                (MeanWriteSize, kib(11.4), Contradicted),
                (MeanWriteSize, gib(10.9) / (2_003_754.0 * 0.321), Derived),
                (
                    Requests,
                    kib(24.2).recip() * gib(31.4) / (1.0 - 0.321),
                    Derived,
                ),
                (MeanInterarrivalMs, 54.98, Other),
            ],
        },
        // rsrch_0: W/R 90.7 %, FP 0.31, R_V/W_V 1.8/14.6 GB, R_S/W_S 15.0/12.6 KB
        Target {
            name: "spd/rsrch_0",
            scale: None,
            checks: vec![
                (WriteShare, 0.907, Table),
                (FootprintBytes, gib(0.31), Table),
                (ReadBytes, gib(1.8), Table),
                (WriteBytes, gib(14.6), Table),
                (MeanReadSize, kib(15.0), Table),
                (MeanWriteSize, kib(12.6), Table),
                (
                    Requests,
                    gib(1.8) / kib(15.0) + gib(14.6) / kib(12.6),
                    Derived,
                ),
                (MeanInterarrivalMs, 421.9, Other),
            ],
        },
        // stg_0: W/R 76.9 %, FP 0.28, R_V/W_V 7.4/9.3 GB, R_S/W_S 33.6/12.6 KB
        Target {
            name: "spd/stg_0",
            scale: None,
            checks: vec![
                (WriteShare, 0.769, Table),
                (FootprintBytes, gib(0.28), Table),
                (ReadBytes, gib(7.4), Table),
                (WriteBytes, gib(9.3), Table),
                (MeanReadSize, kib(33.6), Table),
                (MeanWriteSize, kib(12.6), Table),
                (
                    Requests,
                    gib(7.4) / kib(33.6) + gib(9.3) / kib(12.6),
                    Derived,
                ),
                (MeanInterarrivalMs, 297.8, Other),
            ],
        },
        // proj_0: W/R 82.9 %, FP 1.58, R_V/W_V 7.2/56.5 GB, R_S/W_S 21.9/35.7 KB
        Target {
            name: "spd/proj_0",
            scale: None,
            checks: vec![
                (WriteShare, 0.8290000000000001, Table),
                (FootprintBytes, gib(1.58), Table),
                (ReadBytes, gib(7.2), Table),
                (WriteBytes, gib(56.5), Table),
                (MeanReadSize, kib(21.9), Table),
                (MeanWriteSize, kib(35.7), Table),
                (
                    Requests,
                    gib(7.2) / kib(21.9) + gib(56.5) / kib(35.7),
                    Derived,
                ),
                (MeanInterarrivalMs, 159.9, Other),
            ],
        },
        // proj_3: W/R 4.89 %, FP 1.86, R_V/W_V 21.6/2.8 GB, R_S/W_S 11.9/29.9 KB
        Target {
            name: "spd/proj_3",
            scale: None,
            checks: vec![
                (WriteShare, 0.0489, Table),
                (FootprintBytes, gib(1.86), Table),
                (ReadBytes, gib(21.6), Table),
                (WriteBytes, gib(2.8), Table),
                (MeanReadSize, kib(11.9), Table),
                (MeanWriteSize, kib(29.9), Table),
                (
                    Requests,
                    gib(21.6) / kib(11.9) + gib(2.8) / kib(29.9),
                    Derived,
                ),
                (MeanInterarrivalMs, 268.8, Other),
            ],
        },
        // src2_0: W/R 88.6 %, FP 0.52, R_V/W_V 1.9/13.6 GB, R_S/W_S 12.2/11.0 KB
        Target {
            name: "spd/src2_0",
            scale: None,
            checks: vec![
                (WriteShare, 0.8859999999999999, Table),
                (FootprintBytes, gib(0.52), Table),
                (ReadBytes, gib(1.9), Table),
                (WriteBytes, gib(13.6), Table),
                (MeanReadSize, kib(12.2), Table),
                (MeanWriteSize, kib(11.0), Table),
                (
                    Requests,
                    gib(1.9) / kib(12.2) + gib(13.6) / kib(11.0),
                    Derived,
                ),
                (MeanInterarrivalMs, 448.6, Other),
            ],
        },
        // ts_0: W/R 82.6 %, FP 0.57, R_V/W_V 4.9/15.9 GB, R_S/W_S 17.5/11.8 KB
        Target {
            name: "spd/ts_0",
            scale: None,
            checks: vec![
                (WriteShare, 0.826, Table),
                (FootprintBytes, gib(0.57), Table),
                (ReadBytes, gib(4.9), Table),
                (WriteBytes, gib(15.9), Table),
                (MeanReadSize, kib(17.5), Table),
                (MeanWriteSize, kib(11.8), Table),
                (
                    Requests,
                    gib(4.9) / kib(17.5) + gib(15.9) / kib(11.8),
                    Derived,
                ),
                (MeanInterarrivalMs, 388.0, Other),
            ],
        },
        // prxy_0: W/R 97.06 %, FP 0.17, R_V/W_V 0.27/5.8 GB, R_S/W_S 9.6/6.2 KB
        Target {
            name: "spd/prxy_0",
            scale: None,
            checks: vec![
                (WriteShare, 0.9706, Table),
                (FootprintBytes, gib(0.17), Table),
                (ReadBytes, gib(0.27), Table),
                (WriteBytes, gib(5.8), Table),
                (MeanReadSize, kib(9.6), Table),
                (MeanWriteSize, kib(6.2), Table),
                (
                    Requests,
                    gib(0.27) / kib(9.6) + gib(5.8) / kib(6.2),
                    Derived,
                ),
                (MeanInterarrivalMs, 47.95, Other),
            ],
        },
        // wdev_0: W/R 79.9 %, FP 0.34, R_V/W_V 3.2/9.2 GB, R_S/W_S 16.5/12.1 KB
        Target {
            name: "spd/wdev_0",
            scale: None,
            checks: vec![
                (WriteShare, 0.799, Table),
                (FootprintBytes, gib(0.34), Table),
                (ReadBytes, gib(3.2), Table),
                (WriteBytes, gib(9.2), Table),
                (MeanReadSize, kib(16.5), Table),
                (MeanWriteSize, kib(12.1), Table),
                (
                    Requests,
                    gib(3.2) / kib(16.5) + gib(9.2) / kib(12.1),
                    Derived,
                ),
                (MeanInterarrivalMs, 529.0, Other),
            ],
        },
        // ---- PA-SSD (Zhang et al., TPDS 2020) Table 2; rows above 2.5 M requests scaled to 1 M
        // tFin: 5,334,987 requests, 77 % writes, R/W 2.7/14.6 GB, 0.5 pages, 6 % large
        Target {
            name: "pa/tFin",
            scale: Some((1_000_000, 5_334_987)),
            checks: vec![
                (Requests, 5_334_987.0, TableScaled),
                (WriteShare, 0.77, Table),
                (ReadBytes, gib(2.7), TableScaled),
                (WriteBytes, gib(14.6), TableScaled),
                (MeanWritePages8k, 0.5, Table),
                (LargeWriteShare8k, 0.06, Table),
                (FootprintBytes, 288_500.0 * 4096.0, Other),
                (MeanInterarrivalMs, 8.19, Other),
            ],
        },
        // tRA: 2,214,073 requests, 90 % writes, R/W 2.3/15.6 GB, 1.0 pages, 12 % large
        Target {
            name: "pa/tRA",
            scale: None,
            checks: vec![
                (Requests, 2_214_073.0, Table),
                (WriteShare, 0.9, Table),
                (ReadBytes, gib(2.3), Table),
                (WriteBytes, gib(15.6), Table),
                (MeanWritePages8k, 1.0, Table),
                (LargeWriteShare8k, 0.12, Table),
                (FootprintBytes, 110_704.0 * 4096.0, Other),
                (MeanInterarrivalMs, 20.0, Other),
            ],
        },
        // tDAP: 1,086,729 requests, 44 % writes, R/W 36.2/44.1 GB, 12.1 pages, 32 % large
        Target {
            name: "pa/tDAP",
            scale: None,
            checks: vec![
                (Requests, 1_086_729.0, Table),
                (WriteShare, 0.44, Table),
                (ReadBytes, gib(36.2), Table),
                (WriteBytes, gib(44.1), Table),
                (MeanWritePages8k, 12.1, Table),
                (LargeWriteShare8k, 0.32, Table),
                (FootprintBytes, 543_364.0 * 4096.0, Other),
                (MeanInterarrivalMs, 10.0, Other),
            ],
        },
        // tRBESS: 5,250,996 requests, 82 % writes, R/W 97.0/47.9 GB, 1.5 pages, 30 % large
        Target {
            name: "pa/tRBESS",
            scale: Some((1_000_000, 5_250_996)),
            checks: vec![
                (Requests, 5_250_996.0, TableScaled),
                (WriteShare, 0.82, Table),
                (ReadBytes, gib(97.0), TableScaled),
                (WriteBytes, gib(47.9), TableScaled),
                (MeanWritePages8k, 1.5, Table),
                (LargeWriteShare8k, 0.3, Table),
                (FootprintBytes, 200_000.0 * 4096.0, Other),
                (MeanInterarrivalMs, 10.0, Other),
            ],
        },
        // tDTR: 18,195,701 requests, 32 % writes, R/W 252.1/176.1 GB, 3.9 pages, 53 % large
        Target {
            name: "pa/tDTR",
            scale: Some((1_000_000, 18_195_701)),
            checks: vec![
                (Requests, 18_195_701.0, TableScaled),
                (WriteShare, 0.32, Table),
                (ReadBytes, gib(252.1), TableScaled),
                (WriteBytes, gib(176.1), TableScaled),
                (MeanWritePages8k, 3.9, Table),
                (LargeWriteShare8k, 0.53, Table),
                (FootprintBytes, 500_000.0 * 4096.0, Other),
                (MeanInterarrivalMs, 20.0, Other),
            ],
        },
        // tExch: 7,450,837 requests, 46 % writes, R/W 37.4/41.3 GB, 1.6 pages, 17 % large
        Target {
            name: "pa/tExch",
            scale: Some((1_000_000, 7_450_837)),
            checks: vec![
                (Requests, 7_450_837.0, TableScaled),
                (WriteShare, 0.46, Table),
                (ReadBytes, gib(37.4), TableScaled),
                (WriteBytes, gib(41.3), TableScaled),
                (MeanWritePages8k, 1.6, Table),
                (LargeWriteShare8k, 0.17, Table),
                (FootprintBytes, 300_000.0 * 4096.0, Other),
                (MeanInterarrivalMs, 10.0, Other),
            ],
        },
        // tMSFS: 29,345,085 requests, 33 % writes, R/W 200.9/102.3 GB, 1.4 pages, 10 % large
        Target {
            name: "pa/tMSFS",
            scale: Some((1_000_000, 29_345_085)),
            checks: vec![
                (Requests, 29_345_085.0, TableScaled),
                (WriteShare, 0.33, Table),
                (ReadBytes, gib(200.9), TableScaled),
                (WriteBytes, gib(102.3), TableScaled),
                (MeanWritePages8k, 1.4, Table),
                (LargeWriteShare8k, 0.1, Table),
                (FootprintBytes, 300_000.0 * 4096.0, Other),
                (MeanInterarrivalMs, 5.0, Other),
            ],
        },
        // tBS: 11,873,555 requests, 49 % writes, R/W 149.8/166.2 GB, 3.7 pages, 67 % large
        Target {
            name: "pa/tBS",
            scale: Some((1_000_000, 11_873_555)),
            checks: vec![
                (Requests, 11_873_555.0, TableScaled),
                (WriteShare, 0.49, Table),
                (ReadBytes, gib(149.8), TableScaled),
                (WriteBytes, gib(166.2), TableScaled),
                (MeanWritePages8k, 3.7, Table),
                (LargeWriteShare8k, 0.67, Table),
                (FootprintBytes, 400_000.0 * 4096.0, Other),
                (MeanInterarrivalMs, 10.0, Other),
            ],
        },
        // ---- parallel GC (Zhu et al., IEEE Access 2020) Table 2 (and "100 % random writes")
        // SYN: 100 % writes, 6 KB, 100 % random writes
        Target {
            name: "pgc/SYN",
            scale: None,
            checks: vec![
                (WriteShare, 1.0, Table),
                (MeanSize, kib(6.0), Table),
                (SequentialWriteShare, 0.0, Table),
                (Requests, 1_000_000.0, Other),
                (FootprintBytes, 624_122.0 * 4096.0, Other),
                (MeanInterarrivalMs, 5.0, Other),
            ],
        },
        // IOzone: 100 % writes, 360 KB, 100 % random writes
        Target {
            name: "pgc/IOzone",
            scale: None,
            checks: vec![
                (WriteShare, 1.0, Table),
                (MeanSize, kib(360.0), Table),
                (SequentialWriteShare, 0.0, Table),
                (Requests, 100_000.0, Other),
                (FootprintBytes, 649_656.0 * 4096.0, Other),
                (MeanInterarrivalMs, 5.0, Other),
            ],
        },
        // Postmark: 16.8 % writes, 222 KB
        Target {
            name: "pgc/Postmark",
            scale: None,
            checks: vec![
                (WriteShare, 0.168, Table),
                (MeanSize, kib(222.0), Table),
                (Requests, 100_000.0, Other),
                (FootprintBytes, 544_392.0 * 4096.0, Other),
                (MeanInterarrivalMs, 5.0, Other),
            ],
        },
        // Financial1: 78.3 % writes, 5.2 KB
        Target {
            name: "pgc/Financial1",
            scale: None,
            checks: vec![
                (WriteShare, 0.7829999999999999, Table),
                (MeanSize, kib(5.2), Table),
                (Requests, 1_000_000.0, Other),
                (FootprintBytes, 305_202.0 * 4096.0, Other),
                (MeanInterarrivalMs, 8.19, Other),
            ],
        },
        // Financial2: 18.6 % writes, 4.8 KB
        Target {
            name: "pgc/Financial2",
            scale: None,
            checks: vec![
                (WriteShare, 0.18600000000000003, Table),
                (MeanSize, kib(4.8), Table),
                (Requests, 1_000_000.0, Other),
                (FootprintBytes, 250_495.0 * 4096.0, Other),
                (MeanInterarrivalMs, 5.0, Other),
            ],
        },
        // MSNFS: 23.6 % writes, 8.7 KB
        Target {
            name: "pgc/MSNFS",
            scale: None,
            checks: vec![
                (WriteShare, 0.23600000000000002, Table),
                (MeanSize, kib(8.7), Table),
                (Requests, 1_000_000.0, Other),
                (FootprintBytes, 557_618.0 * 4096.0, Other),
                (MeanInterarrivalMs, 5.0, Other),
            ],
        },
        // Systor17: 19.1 % writes, 40 KB
        Target {
            name: "pgc/Systor17",
            scale: None,
            checks: vec![
                (WriteShare, 0.191, Table),
                (MeanSize, kib(40.0), Table),
                (Requests, 1_000_000.0, Other),
                (FootprintBytes, 884_648.0 * 4096.0, Other),
                (MeanInterarrivalMs, 5.0, Other),
            ],
        },
        // ---- DVPFTL (Luo et al., IEEE Access 2018) Table 2 and §IV-B2 (PCMark05)
        // Financial1: 5,334,987 requests, R 1,235,633 (22 %) W 4,099,354 (78 %), 8.19 ms
        Target {
            name: "dvp/Financial1",
            scale: Some((1_000_000, 5_334_987)),
            checks: vec![
                (Requests, 5_334_987.0, TableScaled),
                (Reads, 1_235_633.0, TableScaled),
                (Writes, 4_099_354.0, TableScaled),
                (WriteShare, 0.78, Table),
                (ReadShare, 0.22, Contradicted),
                (MeanInterarrivalMs, 8.19, Table),
                (FootprintBytes, 288_500.0 * 4096.0, Other),
            ],
        },
        // MSR: 1,048,577 requests, R 47,380 (4.5 %) W 1,005,197 (95.5 %), N/A
        Target {
            name: "dvp/MSR",
            scale: None,
            checks: vec![
                (Requests, 1_048_577.0, Table),
                (Reads, 47_380.0, Table),
                (Writes, 1_005_197.0, Table),
                (WriteShare, 0.955, Table),
                (ReadShare, 0.045, Table),
                (MeanInterarrivalMs, 100.0, Other),
                (FootprintBytes, 314_573.0 * 4096.0, Other),
            ],
        },
        // Distilled: 3,142,935 requests, R 1,633,429 (52 %) W 1,509,506 (48 %), 32 ms
        Target {
            name: "dvp/Distilled",
            scale: Some((1_000_000, 3_142_935)),
            checks: vec![
                (Requests, 3_142_935.0, TableScaled),
                (Reads, 1_633_429.0, TableScaled),
                (Writes, 1_509_506.0, TableScaled),
                (WriteShare, 0.48, Table),
                (ReadShare, 0.52, Table),
                (MeanInterarrivalMs, 32.0, Table),
                (FootprintBytes, 300_000.0 * 4096.0, Other),
            ],
        },
        // MillSSD: 3,581,731 requests, R 53,726 (1.5 %) W 3,528,005 (98.5 %), 809.27 ms
        Target {
            name: "dvp/MillSSD",
            scale: Some((1_000_000, 3_581_731)),
            checks: vec![
                (Requests, 3_581_731.0, TableScaled),
                (Reads, 53_726.0, TableScaled),
                (Writes, 3_528_005.0, TableScaled),
                (WriteShare, 0.985, Table),
                (ReadShare, 0.015, Table),
                (MeanInterarrivalMs, 809.27, Table),
                (FootprintBytes, 300_000.0 * 4096.0, Other),
            ],
        },
        // PCMark05 xp_startup: 90 % reads
        Target {
            name: "dvp/pcmark05_xp_startup",
            scale: None,
            checks: vec![
                (ReadShare, 0.9, Table),
                (WriteShare, 0.09999999999999998, Table),
                (Requests, 200_000.0, Other),
                (FootprintBytes, 100_000.0 * 4096.0, Other),
                (MeanInterarrivalMs, 1.0, Other),
            ],
        },
        // PCMark05 app_loading: 83 % reads
        Target {
            name: "dvp/pcmark05_app_loading",
            scale: None,
            checks: vec![
                (ReadShare, 0.83, Table),
                (WriteShare, 0.17000000000000004, Table),
                (Requests, 200_000.0, Other),
                (FootprintBytes, 100_000.0 * 4096.0, Other),
                (MeanInterarrivalMs, 1.0, Other),
            ],
        },
        // PCMark05 general_usage: 60 % reads
        Target {
            name: "dvp/pcmark05_general_usage",
            scale: None,
            checks: vec![
                (ReadShare, 0.6, Table),
                (WriteShare, 0.4, Table),
                (Requests, 200_000.0, Other),
                (FootprintBytes, 80_000.0 * 4096.0, Other),
                (MeanInterarrivalMs, 1.0, Other),
            ],
        },
        // PCMark05 virus_scan: 99.5 % reads, 600 MB scanned
        Target {
            name: "dvp/pcmark05_virus_scan",
            scale: None,
            checks: vec![
                (ReadShare, 0.995, Table),
                (ReadBytes, mib(600.0), Table),
                (Requests, 9_648.0, Other),
                (FootprintBytes, 145_920.0 * 4096.0, Other),
                (MeanInterarrivalMs, 1.0, Other),
            ],
        },
        // PCMark05 file_write: 0 % reads, 680 MB written
        Target {
            name: "dvp/pcmark05_file_write",
            scale: None,
            checks: vec![
                (WriteShare, 1.0, Table),
                (WriteBytes, mib(680.0), Table),
                (Requests, 10_880.0, Other),
                (FootprintBytes, 165_376.0 * 4096.0, Other),
                (MeanInterarrivalMs, 1.0, Other),
            ],
        },
    ]
}

/// What a profile generated: `TraceStats` (4 KiB pages) and the PA-SSD
/// columns.
struct Measured {
    stats: TraceStats,
    large_writes_8k: u64,
}

fn value(m: &Measured, col: Col) -> f64 {
    let s = &m.stats;
    let opt = |v: Option<f64>| v.unwrap_or(f64::NAN);
    match col {
        Requests => s.requests as f64,
        Reads => s.read_requests as f64,
        Writes => s.write_requests as f64,
        WriteShare => opt(s.write_share),
        ReadShare => opt(s.read_share),
        ReadBytes => s.read_bytes as f64,
        WriteBytes => s.write_bytes as f64,
        MeanReadSize => opt(s.mean_read_size_bytes),
        MeanWriteSize => opt(s.mean_write_size_bytes),
        MeanSize => (s.read_bytes + s.write_bytes) as f64 / s.requests as f64,
        FootprintBytes => s.footprint_bytes as f64,
        MeanWritePages8k => opt(s.mean_write_size_bytes) / 8192.0,
        LargeWriteShare8k => m.large_writes_8k as f64 / s.write_requests as f64,
        SequentialWriteShare => opt(s.sequential_write_share),
        MeanInterarrivalMs => opt(s.mean_interarrival_us) / 1000.0,
    }
}

/// FNV-1a over the fields of each record.
fn fold(h: &mut u64, r: &IoRecord) {
    for v in [r.time_ns, (r.op == Op::Read) as u64, r.offset, r.size] {
        for b in v.to_le_bytes() {
            *h = (*h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// Everything `p` generates, measured, and the digest of its first
/// [`PREFIX`] requests.
fn measure(p: &Profile) -> (Measured, u64) {
    let mut acc = StatsAccumulator::new(4096).unwrap();
    let mut h = FNV_OFFSET;
    let mut large = 0;
    for (i, r) in Generator::try_new(p).unwrap().enumerate() {
        let r = r.unwrap();
        if i < PREFIX {
            fold(&mut h, &r);
        }
        if r.op == Op::Write && (r.offset + r.size - 1) / 8192 > r.offset / 8192 {
            large += 1;
        }
        acc.add(&r).unwrap();
    }
    let m = Measured {
        stats: acc.finish(),
        large_writes_8k: large,
    };
    (m, h)
}

fn prefix_digest(p: &Profile) -> u64 {
    let mut h = FNV_OFFSET;
    for r in Generator::try_new(p).unwrap().take(PREFIX) {
        fold(&mut h, &r.unwrap());
    }
    h
}

/// Generate every built-in named in `names`, check determinism and its
/// row; report every deviation at once (and the contradicted cells).
fn check(names: &[&str]) {
    let all = targets();
    let mut failures = Vec::new();
    for &name in names {
        let t = all
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no row for built-in `{name}`"));
        let p = builtin::get(name).unwrap();
        let (m, first) = measure(&p);
        if first != prefix_digest(&builtin::get(name).unwrap()) {
            failures.push(format!("{name}: two generations differ"));
        }
        assert_eq!(m.stats.requests, p.requests, "{name}: request count");
        if let Some((generated, whole)) = t.scale {
            assert_eq!(generated, p.requests, "{name}: the scale's request count");
            assert!(generated < whole, "{name}: a scale shrinks");
        }
        let factor = t.scale.map_or(1.0, |(g, w)| g as f64 / w as f64);
        for &(col, table, src) in &t.checks {
            let want = if src == TableScaled {
                table * factor
            } else {
                table
            };
            let got = value(&m, col);
            if let SequentialWriteShare = col {
                if got.is_nan() || got > 0.001 {
                    failures.push(format!("{name}: {col:?} is {got:.6}; random writes want 0"));
                }
                continue;
            }
            let dev = (got / want - 1.0).abs();
            if src == Contradicted {
                eprintln!(
                    "{name}: {col:?} is {got:.6} against the contradicted cell {want:.6} ({:+.1} %)",
                    (got / want - 1.0) * 100.0
                );
                continue;
            }
            if dev.is_nan() || dev > TOLERANCE {
                failures.push(format!(
                    "{name}: {col:?} is {got:.6} against {want:.6} ({src:?}), off by {:.1} %",
                    dev * 100.0
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn named(prefix: &str) -> Vec<&'static str> {
    builtin::names()
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .collect()
}

#[test]
fn names_are_unique_prefixed_and_described() {
    let names = builtin::names();
    let all = targets();
    assert_eq!(names.len(), all.len(), "one row per built-in");
    let mut seen = std::collections::HashSet::new();
    for name in &names {
        assert!(
            seen.insert(name.to_ascii_lowercase()),
            "duplicate name {name}"
        );
        let prefix = name.split('/').next().unwrap();
        assert!(
            builtin::PAPERS.iter().any(|(p, _)| *p == prefix) && name.len() > prefix.len() + 1,
            "{name}: expected <paper>/<workload> with a known paper prefix"
        );
        let about = builtin::describe(name).unwrap();
        assert!(
            !about.is_empty() && !about.contains('\n'),
            "{name}: describe"
        );
        // the listing names the paper's table (or section) as the source
        let paper = [
            "SPD Table 2",
            "PA-SSD Table 2",
            "Parallel GC Table 2",
            "DVPFTL",
        ];
        assert!(
            paper.iter().any(|p| about.starts_with(p)),
            "{name}: {about}"
        );
        let toml = builtin::toml(name).unwrap();
        assert!(toml.contains("# Paper row"), "{name}: TOML header");
        assert!(!toml.contains("could not be"), "{name}: stale header");
        assert!(all.iter().any(|t| t.name == *name), "{name}: no row");
    }
    let count = |p: &str| names.iter().filter(|n| n.starts_with(p)).count();
    assert_eq!(count("spd/"), 11);
    assert_eq!(count("pa/"), 8);
    assert_eq!(count("pgc/"), 7);
    assert_eq!(count("dvp/"), 9);
    for n in ["pa/tFin", "pgc/Financial1", "dvp/Financial1"] {
        assert!(names.contains(&n), "{n}");
    }
    assert!(builtin::get("nope/none").is_none());
    assert!(builtin::describe("spd/hm_9").is_none());
    assert_eq!(builtin::get("PA/TFIN").unwrap().name, "pa/tFin");
}

#[test]
fn every_builtin_parses_validates_and_round_trips() {
    for name in builtin::names() {
        let p = builtin::get(name).unwrap();
        assert_eq!(p.name, name, "the profile's name is its built-in name");
        p.validate(name).unwrap();
        let requests = p
            .request_limit()
            .expect("built-ins are bounded by a request count");
        assert!(
            (1..=MAX_REQUESTS).contains(&requests),
            "{name}: {requests} requests"
        );
        let text = p.to_toml().unwrap();
        assert_eq!(
            Profile::from_toml(&text, name).unwrap(),
            p,
            "{name}: TOML round trip"
        );
    }
}

// The SPD rows are generated whole (17.5 M requests): two tests, so that
// the two cores share them.
#[test]
fn spd_rows_hm_to_proj_0() {
    let names = named("spd/");
    check(&names[..6]);
}

#[test]
fn spd_rows_proj_3_to_wdev_0() {
    let names = named("spd/");
    check(&names[6..]);
}

#[test]
fn pa_ssd_rows() {
    check(&named("pa/"));
}

#[test]
fn parallel_gc_rows() {
    check(&named("pgc/"));
}

#[test]
fn dvpftl_rows() {
    check(&named("dvp/"));
}

/// Columns that grow with a profile's length (counts, volumes, footprint):
/// a profile scaled by `s` is checked against `s` times the row's.
fn extensive(col: Col) -> bool {
    matches!(
        col,
        Requests | Reads | Writes | ReadBytes | WriteBytes | FootprintBytes
    )
}

/// Every built-in scaled down (`Profile::scaled`, as `trace generate
/// --scale` does) keeps its row within 5 % on every column, at its smallest
/// scale and at 0.01, 0.02 and 0.05 where those are above it; a scale below
/// the smallest is refused naming it.
#[test]
fn scaled_rows_hold_down_to_their_limits() {
    use ssdlab_workload::synthetic::round_up;
    let mut failures = Vec::new();
    for t in targets() {
        let whole = builtin::get(t.name).unwrap();
        let limit = round_up(whole.min_scale());
        if limit >= 1.0 {
            let e = whole.scaled(0.5).unwrap_err().to_string();
            assert!(e.contains("cannot be scaled down"), "{}: {e}", t.name);
            continue;
        }
        let e = whole.scaled(limit / 2.0).unwrap_err().to_string();
        assert!(
            e.contains("too small") && e.contains(&format!("smallest scale is {limit}")),
            "{}: {e}",
            t.name
        );
        let mut scales = vec![limit];
        scales.extend([0.01, 0.02, 0.05].into_iter().filter(|&s| s > limit));
        for scale in scales {
            let p = whole.scaled(scale).unwrap();
            assert!(
                p.balanced(),
                "{}: scaled down, the draws are balanced",
                t.name
            );
            let (m, _) = measure(&p);
            let own = t.scale.map_or(1.0, |(g, w)| g as f64 / w as f64);
            for &(col, table, src) in &t.checks {
                if src == Contradicted {
                    continue;
                }
                let got = value(&m, col);
                if let SequentialWriteShare = col {
                    if got.is_nan() || got > 0.001 {
                        failures.push(format!("{} x{scale}: {col:?} is {got:.6}", t.name));
                    }
                    continue;
                }
                let mut want = table;
                if src == TableScaled {
                    want *= own;
                }
                if extensive(col) {
                    want *= scale;
                }
                let dev = (got / want - 1.0).abs();
                if dev.is_nan() || dev > TOLERANCE {
                    failures.push(format!(
                        "{} x{scale} ({} requests): {col:?} is {got:.6} against {want:.6} ({src:?}), off by {:.1} %",
                        t.name,
                        p.requests,
                        dev * 100.0
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// docs/workloads.md ("Scaled profiles") lists every built-in's smallest
/// scale as `Profile::min_scale` gives it.
#[test]
fn documented_scale_limits_are_the_computed_ones() {
    use ssdlab_workload::synthetic::round_up;
    let doc = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/workloads.md");
    let text = std::fs::read_to_string(&doc).unwrap();
    let section = text
        .split("### Scaled profiles")
        .nth(1)
        .expect("docs/workloads.md has a section `Scaled profiles`");
    for name in builtin::names() {
        let want = round_up(builtin::get(name).unwrap().min_scale());
        let cell = if want >= 1.0 {
            "cannot be scaled down".to_string()
        } else {
            want.to_string()
        };
        let row = format!("| `{name}` | {cell} |");
        assert!(section.contains(&row), "docs/workloads.md lacks `{row}`");
    }
}
