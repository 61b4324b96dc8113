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
//! **Where the numbers come from.** Each profile file starts with a comment
//! giving its target row — request count, read/write split, sizes, volumes,
//! footprint, inter-arrival time — with the source of every number, and
//! `docs/workloads.md` gives the full citations and the reasoning. The seed
//! papers' own tables could not be consulted when the profiles were built,
//! so the rows are rebuilt from other published characterisations of the
//! same traces where such exist, and are otherwise assumed (and say so).
//! Large traces are scaled down to at most 1 000 000 requests, keeping
//! shares, sizes and inter-arrival time and scaling counts, volumes and
//! footprint. `tests/builtin_profiles.rs` checks every generated profile
//! against its target row.
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
        "SPD (Gao et al., TPDS 2020) Table 2: MSR Cambridge hm_0 (hardware monitoring server); 64 % writes, mean 7.3/8.5 KiB reads/writes; numbers from GCaR/SmartGC and assumptions, not from the paper"
    ),
    entry!(
        "spd/prn_0",
        "spd_prn_0.toml",
        "SPD (Gao et al., TPDS 2020) Table 2: MSR Cambridge prn_0 (print server, volume 0); 89 % writes, mean 22.9/9.7 KiB reads/writes; numbers from SmartGC/TICA and assumptions, not from the paper"
    ),
    entry!(
        "spd/prn_1",
        "spd_prn_1.toml",
        "SPD (Gao et al., TPDS 2020) Table 2: MSR Cambridge prn_1 (print server, volume 1); 25 % writes, mean 12.0/10.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "spd/rsrch_0",
        "spd_rsrch_0.toml",
        "SPD (Gao et al., TPDS 2020) Table 2: MSR Cambridge rsrch_0 (research projects server); 91 % writes, mean 10.7/8.7 KiB reads/writes; numbers from SmartGC/TICA and assumptions, not from the paper"
    ),
    entry!(
        "spd/stg_0",
        "spd_stg_0.toml",
        "SPD (Gao et al., TPDS 2020) Table 2: MSR Cambridge stg_0 (web staging server); 85 % writes, mean 24.2/9.3 KiB reads/writes; numbers from SmartGC and assumptions, not from the paper"
    ),
    entry!(
        "spd/proj_0",
        "spd_proj_0.toml",
        "SPD (Gao et al., TPDS 2020) Table 2: MSR Cambridge proj_0 (project directories, volume 0); 86 % writes, mean 18.3/38.5 KiB reads/writes; numbers from SmartGC and assumptions, not from the paper"
    ),
    entry!(
        "spd/proj_3",
        "spd_proj_3.toml",
        "SPD (Gao et al., TPDS 2020) Table 2: MSR Cambridge proj_3 (project directories, volume 3); 5 % writes, mean 9.0/14.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "spd/src2_0",
        "spd_src2_0.toml",
        "SPD (Gao et al., TPDS 2020) Table 2: MSR Cambridge src2_0 (source control server); 89 % writes, mean 7.9/7.1 KiB reads/writes; numbers from SmartGC and assumptions, not from the paper"
    ),
    entry!(
        "spd/ts_0",
        "spd_ts_0.toml",
        "SPD (Gao et al., TPDS 2020) Table 2: MSR Cambridge ts_0 (terminal server); 82 % writes, mean 13.3/8.1 KiB reads/writes; numbers from SmartGC/TICA and assumptions, not from the paper"
    ),
    entry!(
        "spd/prxy_0",
        "spd_prxy_0.toml",
        "SPD (Gao et al., TPDS 2020) Table 2: MSR Cambridge prxy_0 (firewall/web proxy); 97 % writes, mean 5.5/4.7 KiB reads/writes; numbers from SmartGC/TICA and assumptions, not from the paper"
    ),
    entry!(
        "spd/wdev_0",
        "spd_wdev_0.toml",
        "SPD (Gao et al., TPDS 2020) Table 2: MSR Cambridge wdev_0 (test web server); 80 % writes, mean 12.3/8.3 KiB reads/writes; numbers from SmartGC/TICA and assumptions, not from the paper"
    ),
    entry!(
        "pa/tFin",
        "pa_tFin.toml",
        "PA-SSD (Zhang et al., TPDS 2020) Table 2: tFin = Financial1 (UMass/SPC OLTP trace); 77 % writes, mean 8.5/8.5 KiB reads/writes; numbers from GCaR/SmartGC and assumptions, not from the paper"
    ),
    entry!(
        "pa/tRA",
        "pa_tRA.toml",
        "PA-SSD (Zhang et al., TPDS 2020) Table 2: tRA = RadiusAuthentication (Microsoft production server trace, RADIUS authentication server); 90 % writes, mean 8.0/6.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "pa/tDAP",
        "pa_tDAP.toml",
        "PA-SSD (Zhang et al., TPDS 2020) Table 2: tDAP = DisplayAdsPayload (Microsoft production server trace, display-ads payload server); 25 % writes, mean 32.0/16.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "pa/tRBESS",
        "pa_tRBESS.toml",
        "PA-SSD (Zhang et al., TPDS 2020) Table 2: tRBESS = RadiusBackEndSQLServer (Microsoft production server trace, RADIUS back-end SQL server); 60 % writes, mean 8.0/8.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "pa/tDTR",
        "pa_tDTR.toml",
        "PA-SSD (Zhang et al., TPDS 2020) Table 2: tDTR = DevelopmentToolsRelease (Microsoft production server trace); 32 % writes, mean 19.1/19.1 KiB reads/writes; numbers from TICA and assumptions, not from the paper"
    ),
    entry!(
        "pa/tExch",
        "pa_tExch.toml",
        "PA-SSD (Zhang et al., TPDS 2020) Table 2: tExch = Exchange (Microsoft production server trace, mail server); 76 % writes, mean 14.5/14.5 KiB reads/writes; numbers from TICA and assumptions, not from the paper"
    ),
    entry!(
        "pa/tMSFS",
        "pa_tMSFS.toml",
        "PA-SSD (Zhang et al., TPDS 2020) Table 2: tMSFS = MSNFS (Microsoft production server trace, MSN storage file server); 35 % writes, mean 10.1/10.1 KiB reads/writes; numbers from TICA and assumptions, not from the paper"
    ),
    entry!(
        "pa/tBS",
        "pa_tBS.toml",
        "PA-SSD (Zhang et al., TPDS 2020) Table 2: tBS = BuildServer (Microsoft production server trace, build server); 60 % writes, mean 16.0/12.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "pgc/SYN",
        "pgc_SYN.toml",
        "Parallel GC (Zhu et al., IEEE Access 2020) Table 2: the paper's synthetic workload; 80 % writes, mean 16.0/16.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "pgc/IOzone",
        "pgc_IOzone.toml",
        "Parallel GC (Zhu et al., IEEE Access 2020) Table 2: IOzone file-system benchmark; 50 % writes, mean 64.0/64.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "pgc/Postmark",
        "pgc_Postmark.toml",
        "Parallel GC (Zhu et al., IEEE Access 2020) Table 2: Postmark (small-file mail/news server benchmark); 71 % writes, mean 4.3/4.3 KiB reads/writes; numbers from TICA and assumptions, not from the paper"
    ),
    entry!(
        "pgc/Financial1",
        "pgc_Financial1.toml",
        "Parallel GC (Zhu et al., IEEE Access 2020) Table 2: Financial1 (UMass/SPC OLTP trace); 77 % writes, mean 8.5/8.5 KiB reads/writes; numbers from GCaR/SmartGC and assumptions, not from the paper"
    ),
    entry!(
        "pgc/Financial2",
        "pgc_Financial2.toml",
        "Parallel GC (Zhu et al., IEEE Access 2020) Table 2: Financial2 (UMass/SPC OLTP trace); 18 % writes, mean 3.3/3.3 KiB reads/writes; numbers from SmartGC and assumptions, not from the paper"
    ),
    entry!(
        "pgc/MSNFS",
        "pgc_MSNFS.toml",
        "Parallel GC (Zhu et al., IEEE Access 2020) Table 2: MSNFS (Microsoft production server trace, MSN storage file server); 35 % writes, mean 10.1/10.1 KiB reads/writes; numbers from TICA and assumptions, not from the paper"
    ),
    entry!(
        "pgc/Systor17",
        "pgc_Systor17.toml",
        "Parallel GC (Zhu et al., IEEE Access 2020) Table 2: SYSTOR '17 enterprise virtual-desktop (VDI) traces; 28 % writes, mean 19.2/19.2 KiB reads/writes; numbers from SmartGC and assumptions, not from the paper"
    ),
    entry!(
        "dvp/Financial1",
        "dvp_Financial1.toml",
        "DVPFTL (Luo et al., IEEE Access 2018) Table 2: Financial1 (UMass/SPC OLTP trace); 77 % writes, mean 8.5/8.5 KiB reads/writes; numbers from GCaR/SmartGC and assumptions, not from the paper"
    ),
    entry!(
        "dvp/MSR",
        "dvp_MSR.toml",
        "DVPFTL (Luo et al., IEEE Access 2018) Table 2: an MSR Cambridge server volume (which one the paper does not say); 70 % writes, mean 12.0/12.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "dvp/Distilled",
        "dvp_Distilled.toml",
        "DVPFTL (Luo et al., IEEE Access 2018) Table 2: the paper's 'Distilled' trace; 50 % writes, mean 8.0/8.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "dvp/MillSSD",
        "dvp_MillSSD.toml",
        "DVPFTL (Luo et al., IEEE Access 2018) Table 2: the paper's 'MillSSD' trace; 60 % writes, mean 16.0/16.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "dvp/pcmark05_xp_startup",
        "dvp_pcmark05_xp_startup.toml",
        "DVPFTL (Luo et al., IEEE Access 2018), PCMark05 component: PCMark05 HDD test 'Windows XP Startup'; 10 % writes, mean 24.0/8.0 KiB reads/writes; numbers from PCPer and assumptions, not from the paper"
    ),
    entry!(
        "dvp/pcmark05_app_loading",
        "dvp_pcmark05_app_loading.toml",
        "DVPFTL (Luo et al., IEEE Access 2018), PCMark05 component: PCMark05 HDD test 'Application Loading'; 17 % writes, mean 32.0/8.0 KiB reads/writes; numbers from PCPer and assumptions, not from the paper"
    ),
    entry!(
        "dvp/pcmark05_general_usage",
        "dvp_pcmark05_general_usage.toml",
        "DVPFTL (Luo et al., IEEE Access 2018), PCMark05 component: PCMark05 HDD test 'General Hard Disk Drive Usage'; 40 % writes, mean 16.0/16.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "dvp/pcmark05_virus_scan",
        "dvp_pcmark05_virus_scan.toml",
        "DVPFTL (Luo et al., IEEE Access 2018), PCMark05 component: PCMark05 HDD test 'Virus Scan'; 5 % writes, mean 64.0/8.0 KiB reads/writes; all numbers assumed (no published source found)"
    ),
    entry!(
        "dvp/pcmark05_file_write",
        "dvp_pcmark05_file_write.toml",
        "DVPFTL (Luo et al., IEEE Access 2018), PCMark05 component: PCMark05 HDD test 'File Write'; 95 % writes, mean 8.0/64.0 KiB reads/writes; all numbers assumed (no published source found)"
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
        "Zhang, Cao, Jiang, Yao, \"Improving Overall Performance of TLC SSD by Exploiting Dissimilarity of Flash Pages\", IEEE TPDS, 2020",
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

/// One line on the built-in `name`: the paper and table it comes from, the
/// trace it mimics, its read/write mix and sizes, and where its numbers come
/// from.
pub fn describe(name: &str) -> Option<&'static str> {
    find(name).map(|e| e.about)
}

/// The TOML text of the built-in `name`, with its commented target row and
/// sources: a starting point for a profile of one's own.
pub fn toml(name: &str) -> Option<&'static str> {
    find(name).map(|e| e.toml)
}
