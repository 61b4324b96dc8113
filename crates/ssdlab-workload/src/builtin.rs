//! Built-in workload profiles: look-alikes of the workloads that the seed
//! papers evaluate on.
//!
//! Each built-in is a synthetic [`Profile`] (see [`synthetic`](super::synthetic)
//! for the language) whose TOML lives in `crates/ssdlab-workload/profiles/` and is
//! compiled into the library. Names are `<paper>/<workload>`, the prefix
//! naming the paper whose evaluation table lists the workload, so that a
//! workload two papers both use (Financial1) has one profile per paper:
//!
//! | prefix | paper | workloads |
//! |--------|-------|-----------|
//! | `spd/` | Gao et al., "Boosting the Performance of SSDs via Fully Exploiting the Plane Level Parallelism", IEEE TPDS 2020, Table 2 | 11 MSR Cambridge volumes |
//! | `pa/`  | Zhang et al., "Improving Overall Performance of TLC SSD by Exploiting Dissimilarity of Flash Pages", IEEE TPDS 2020, Table 2 | tFin, tRA, tDAP, tRBESS, tDTR, tExch, tMSFS, tBS |
//! | `pgc/` | Zhu et al., "Towards Parallel Garbage Collection for NAND Flash-Based SSDs", IEEE Access 2020, Table 2 | SYN, IOzone, Postmark, Financial1, Financial2, MSNFS, Systor17 |
//! | `dvp/` | Luo et al., "Dynamic Virtual Page-Based FTL With Novel Hot Data Identification and Adaptive Parallelism Management", IEEE Access 2018 | Financial1, MSR, Distilled, MillSSD and the five PCMark05 storage tests |
//!
//! Workload names keep the paper's spelling (`pa/tFin`, `pgc/Systor17`);
//! [`get`] and friends also accept any other capitalisation.
//!
//! **Where the numbers come from.** Each profile is built from its paper's
//! own table row (SPD, PA-SSD and parallel-GC Table 2; DVPFTL Table 2 and,
//! for PCMark05, its §IV-B2), with GB read as GiB, KB as KiB and MB as MiB.
//! Each profile file starts with a comment giving the row as printed, what
//! the profile generates, whether it is scaled, the source of every number
//! the row does not give (another paper's table, a published
//! characterisation, or "assumed"), and the row's internal contradictions
//! where it has any and what was chosen. [`describe`] gives the row in one
//! line. Rows of at most 2 500 000 requests are generated whole (all SPD
//! rows, pa/tRA, pa/tDAP, dvp/MSR); longer traces are scaled to 1 000 000
//! requests, keeping shares, sizes and inter-arrival time and scaling
//! counts, volumes and footprint. `docs/workloads.md` has the tables, the
//! measured rows beside them and the reasoning;
//! `tests/builtin_profiles.rs` checks every generated profile against its
//! paper's row, written there as printed.
//!
//! ```
//! use ssdlab_workload::builtin;
//!
//! let p = builtin::get("spd/rsrch_0").unwrap();
//! assert_eq!(p.name, "spd/rsrch_0");
//! assert!(builtin::names().contains(&"pa/tFin"));
//! println!("{}", builtin::describe("pgc/Financial1").unwrap());
//! ```

use super::synthetic::Profile;

/// One built-in profile: its name, one-line description and TOML text.
struct Entry {
    name: &'static str,
    about: &'static str,
    toml: &'static str,
}

macro_rules! entry {
    ($name:literal, $file:literal, $about:literal) => {
        Entry {
            name: $name,
            about: $about,
            toml: include_str!(concat!("../profiles/", $file)),
        }
    };
}

/// The built-ins, grouped by paper in the order of the papers' tables.
const ENTRIES: &[Entry] = &[
    entry!(
        "spd/hm_0",
        "spd_hm_0.toml",
        "SPD Table 2: 67.9 % writes, FP 1.35 GB, R/W 6.9/15.2 GB, 11.2/11.6 KB; MSR Cambridge hm_0; 2,019,994 requests (whole row)"
    ),
    entry!(
        "spd/prn_0",
        "spd_prn_0.toml",
        "SPD Table 2: 93.7 % writes, FP 2.93 GB, R/W 3.0/20.5 GB, 24.8/11.6 KB; MSR Cambridge prn_0; 1,979,931 requests (whole row)"
    ),
    entry!(
        "spd/prn_1",
        "spd_prn_1.toml",
        "SPD Table 2: 32.1 % writes, FP 5.16 GB, R/W 31.4/10.9 GB, 24.2/11.4 KB; MSR Cambridge prn_1; 2,003,754 requests (whole row) (row inconsistent: W_S follows as 17.8 KB)"
    ),
    entry!(
        "spd/rsrch_0",
        "spd_rsrch_0.toml",
        "SPD Table 2: 90.7 % writes, FP 0.31 GB, R/W 1.8/14.6 GB, 15.0/12.6 KB; MSR Cambridge rsrch_0; 1,340,846 requests (whole row)"
    ),
    entry!(
        "spd/stg_0",
        "spd_stg_0.toml",
        "SPD Table 2: 76.9 % writes, FP 0.28 GB, R/W 7.4/9.3 GB, 33.6/12.6 KB; MSR Cambridge stg_0; 1,004,885 requests (whole row)"
    ),
    entry!(
        "spd/proj_0",
        "spd_proj_0.toml",
        "SPD Table 2: 82.9 % writes, FP 1.58 GB, R/W 7.2/56.5 GB, 21.9/35.7 KB; MSR Cambridge proj_0; 2,004,248 requests (whole row)"
    ),
    entry!(
        "spd/proj_3",
        "spd_proj_3.toml",
        "SPD Table 2: 4.89 % writes, FP 1.86 GB, R/W 21.6/2.8 GB, 11.9/29.9 KB; MSR Cambridge proj_3; 2,001,492 requests (whole row)"
    ),
    entry!(
        "spd/src2_0",
        "spd_src2_0.toml",
        "SPD Table 2: 88.6 % writes, FP 0.52 GB, R/W 1.9/13.6 GB, 12.2/11.0 KB; MSR Cambridge src2_0; 1,459,724 requests (whole row)"
    ),
    entry!(
        "spd/ts_0",
        "spd_ts_0.toml",
        "SPD Table 2: 82.6 % writes, FP 0.57 GB, R/W 4.9/15.9 GB, 17.5/11.8 KB; MSR Cambridge ts_0; 1,706,513 requests (whole row)"
    ),
    entry!(
        "spd/prxy_0",
        "spd_prxy_0.toml",
        "SPD Table 2: 97.06 % writes, FP 0.17 GB, R/W 0.27/5.8 GB, 9.6/6.2 KB; MSR Cambridge prxy_0; 1,010,417 requests (whole row)"
    ),
    entry!(
        "spd/wdev_0",
        "spd_wdev_0.toml",
        "SPD Table 2: 79.9 % writes, FP 0.34 GB, R/W 3.2/9.2 GB, 16.5/12.1 KB; MSR Cambridge wdev_0; 1,000,625 requests (whole row)"
    ),
    entry!(
        "pa/tFin",
        "pa_tFin.toml",
        "PA-SSD Table 2: 5,334,987 requests, 77 % writes, R/W 2.7/14.6 GB, avg write 0.5 x 8 KB pages, 6 % large writes; Financial1; scaled to 1,000,000 requests"
    ),
    entry!(
        "pa/tRA",
        "pa_tRA.toml",
        "PA-SSD Table 2: 2,214,073 requests, 90 % writes, R/W 2.3/15.6 GB, avg write 1.0 x 8 KB pages, 12 % large writes; RadiusAuthentication"
    ),
    entry!(
        "pa/tDAP",
        "pa_tDAP.toml",
        "PA-SSD Table 2: 1,086,729 requests, 44 % writes, R/W 36.2/44.1 GB, avg write 12.1 x 8 KB pages, 32 % large writes; DisplayAdsPayload"
    ),
    entry!(
        "pa/tRBESS",
        "pa_tRBESS.toml",
        "PA-SSD Table 2: 5,250,996 requests, 82 % writes, R/W 97.0/47.9 GB, avg write 1.5 x 8 KB pages, 30 % large writes; RadiusBackEndSQLServer; scaled to 1,000,000 requests"
    ),
    entry!(
        "pa/tDTR",
        "pa_tDTR.toml",
        "PA-SSD Table 2: 18,195,701 requests, 32 % writes, R/W 252.1/176.1 GB, avg write 3.9 x 8 KB pages, 53 % large writes; DevelopmentToolsRelease; scaled to 1,000,000 requests"
    ),
    entry!(
        "pa/tExch",
        "pa_tExch.toml",
        "PA-SSD Table 2: 7,450,837 requests, 46 % writes, R/W 37.4/41.3 GB, avg write 1.6 x 8 KB pages, 17 % large writes; Exchange; scaled to 1,000,000 requests"
    ),
    entry!(
        "pa/tMSFS",
        "pa_tMSFS.toml",
        "PA-SSD Table 2: 29,345,085 requests, 33 % writes, R/W 200.9/102.3 GB, avg write 1.4 x 8 KB pages, 10 % large writes; MSNFS; scaled to 1,000,000 requests"
    ),
    entry!(
        "pa/tBS",
        "pa_tBS.toml",
        "PA-SSD Table 2: 11,873,555 requests, 49 % writes, R/W 149.8/166.2 GB, avg write 3.7 x 8 KB pages, 67 % large writes; BuildServer; scaled to 1,000,000 requests"
    ),
    entry!(
        "pgc/SYN",
        "pgc_SYN.toml",
        "Parallel GC Table 2: synthetic, 100 % writes, avg request 6 KB, 100 % random writes; 1,000,000 requests (assumed)"
    ),
    entry!(
        "pgc/IOzone",
        "pgc_IOzone.toml",
        "Parallel GC Table 2: synthetic, 100 % writes, avg request 360 KB, 100 % random writes; 100,000 requests (assumed)"
    ),
    entry!(
        "pgc/Postmark",
        "pgc_Postmark.toml",
        "Parallel GC Table 2: synthetic, 16.8 % writes, avg request 222 KB; 100,000 requests (assumed)"
    ),
    entry!(
        "pgc/Financial1",
        "pgc_Financial1.toml",
        "Parallel GC Table 2: real-world, 78.3 % writes, avg request 5.2 KB; 1,000,000 requests (x0.187 of the trace)"
    ),
    entry!(
        "pgc/Financial2",
        "pgc_Financial2.toml",
        "Parallel GC Table 2: real-world, 18.6 % writes, avg request 4.8 KB; 1,000,000 requests (assumed)"
    ),
    entry!(
        "pgc/MSNFS",
        "pgc_MSNFS.toml",
        "Parallel GC Table 2: real-world, 23.6 % writes, avg request 8.7 KB; 1,000,000 requests (x0.0341 of the trace)"
    ),
    entry!(
        "pgc/Systor17",
        "pgc_Systor17.toml",
        "Parallel GC Table 2: real-world, 19.1 % writes, avg request 40 KB; 1,000,000 requests (assumed)"
    ),
    entry!(
        "dvp/Financial1",
        "dvp_Financial1.toml",
        "DVPFTL Table 2: 5,334,987 requests, R 1,235,633 (22 %) / W 4,099,354 (78 %), inter-arrival 8.19 ms; scaled to 1,000,000 requests"
    ),
    entry!(
        "dvp/MSR",
        "dvp_MSR.toml",
        "DVPFTL Table 2: 1,048,577 requests, R 47,380 (4.5 %) / W 1,005,197 (95.5 %), inter-arrival N/A"
    ),
    entry!(
        "dvp/Distilled",
        "dvp_Distilled.toml",
        "DVPFTL Table 2: 3,142,935 requests, R 1,633,429 (52 %) / W 1,509,506 (48 %), inter-arrival 32 ms; scaled to 1,000,000 requests"
    ),
    entry!(
        "dvp/MillSSD",
        "dvp_MillSSD.toml",
        "DVPFTL Table 2: 3,581,731 requests, R 53,726 (1.5 %) / W 3,528,005 (98.5 %), inter-arrival 809.27 ms; scaled to 1,000,000 requests"
    ),
    entry!(
        "dvp/pcmark05_xp_startup",
        "dvp_pcmark05_xp_startup.toml",
        "DVPFTL §IV-B2 PCMark05 OS Startup: 90 % reads / 10 % writes; 200,000 requests"
    ),
    entry!(
        "dvp/pcmark05_app_loading",
        "dvp_pcmark05_app_loading.toml",
        "DVPFTL §IV-B2 PCMark05 Application Loading: 83 % reads / 17 % writes; 200,000 requests"
    ),
    entry!(
        "dvp/pcmark05_general_usage",
        "dvp_pcmark05_general_usage.toml",
        "DVPFTL §IV-B2 PCMark05 General Usage: 60 % reads / 40 % writes; 200,000 requests"
    ),
    entry!(
        "dvp/pcmark05_virus_scan",
        "dvp_pcmark05_virus_scan.toml",
        "DVPFTL §IV-B2 PCMark05 Virus Scan: 99.5 % reads / 0.5 % writes, scans 600 MB; 9,648 requests"
    ),
    entry!(
        "dvp/pcmark05_file_write",
        "dvp_pcmark05_file_write.toml",
        "DVPFTL §IV-B2 PCMark05 File Write: 0 % reads / 100 % writes, writes 680 MB; 10,880 requests"
    ),
];

/// The name prefixes and the papers they stand for.
pub const PAPERS: &[(&str, &str)] = &[
    (
        "spd",
        "Gao, Shi, Liu, Xue, Yang, Zhang, \"Boosting the Performance of SSDs via Fully Exploiting the Plane Level Parallelism\", IEEE TPDS 31(9), 2020",
    ),
    (
        "pa",
        "Zhang, Cao, Jiang, Yao, \"Improving Overall Performance of TLC SSD by Exploiting Dissimilarity of Flash Pages\", IEEE TPDS 31(2), 2020",
    ),
    (
        "pgc",
        "Zhu, Han, Son, \"A Preliminary Study: Towards Parallel Garbage Collection for NAND Flash-Based SSDs\", IEEE Access 8, 2020",
    ),
    (
        "dvp",
        "Luo, Cheung, Sun, \"Dynamic Virtual Page-Based Flash Translation Layer With Novel Hot Data Identification and Adaptive Parallelism Management\", IEEE Access 6, 2018",
    ),
];

fn find(name: &str) -> Option<&'static Entry> {
    ENTRIES
        .iter()
        .find(|e| e.name == name)
        .or_else(|| ENTRIES.iter().find(|e| e.name.eq_ignore_ascii_case(name)))
}

/// The names of all built-in profiles, grouped by paper.
pub fn names() -> Vec<&'static str> {
    ENTRIES.iter().map(|e| e.name).collect()
}

/// The built-in profile `name` (see [`names`]; any capitalisation), parsed
/// and validated; `None` if there is no such built-in.
///
/// # Panics
///
/// If the built-in's TOML does not parse or validate — a bug that
/// `tests/builtin_profiles.rs` rules out.
pub fn get(name: &str) -> Option<Profile> {
    let e = find(name)?;
    let origin = format!("built-in profile `{}`", e.name);
    match Profile::from_toml(e.toml, &origin) {
        Ok(p) => Some(p),
        Err(err) => panic!("{err}"),
    }
}

/// One line on the built-in `name`: its paper's table row (the source of
/// its numbers), the trace it mimics and how many requests it generates.
pub fn describe(name: &str) -> Option<&'static str> {
    find(name).map(|e| e.about)
}

/// The TOML text of the built-in `name`, with its paper's row and the
/// sources of its other numbers in comments: a starting point for a profile
/// of one's own.
pub fn toml(name: &str) -> Option<&'static str> {
    find(name).map(|e| e.toml)
}
