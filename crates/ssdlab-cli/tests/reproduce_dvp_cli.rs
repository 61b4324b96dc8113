//! Integration test of `ssdlab reproduce dvp --quick`: APM against PaRP
//! on Distilled (Fig. 12) with its outputs, Eq. (7)-(8) for the prototype's
//! drive, and the hot-data identification part.

mod common;

use common::{ok, Csv};

#[test]
fn reproduce_dvp_quick_compares_apm_with_parp_and_writes_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dvp");
    let (stdout, _) = ok(&[
        "reproduce",
        "dvp",
        "--quick",
        "--out",
        out.to_str().unwrap(),
    ]);
    let csv = Csv::read(&out.join("results.csv"));
    let (col, rows) = (|n: &str| csv.col(n), &csv.rows);
    // PaRP and APM at four arrival rates.
    assert_eq!(rows.len(), 8, "{rows:?}");
    let num = |r: &Vec<String>, n: &str| csv.num(r, n);
    for pair in rows.chunks(2) {
        let (parp, apm) = (&pair[0], &pair[1]);
        assert_eq!(
            (&*parp[col("scheme")], &*apm[col("scheme")]),
            ("parp", "apm")
        );
        assert_eq!(num(parp, "write_requests"), num(apm, "write_requests"));
        // APM splits every request over two planes where it may: more
        // two-plane programs, and a lower program latency (§IV-A3).
        assert!(
            num(apm, "two_plane_programs") > num(parp, "two_plane_programs"),
            "{pair:?}"
        );
        assert!(
            num(apm, "mean_program_latency_us") < num(parp, "mean_program_latency_us"),
            "{pair:?}"
        );
        // Dummy pages are programmed and counted as wasted pages.
        for r in pair {
            assert_eq!(num(r, "dummy_pages"), num(r, "wasted_pages"), "{r:?}");
        }
        // APM's dummy pages stay within Eq. (8)'s bound (0.0869 here).
        let pages_bound = 0.0870 * num(apm, "write_requests") * 2.0;
        assert!(num(apm, "dummy_pages") <= pages_bound, "{apm:?}");
    }
    // PaRP pairs more requests as arrivals come closer together.
    let parp_pairs: Vec<f64> = rows
        .iter()
        .filter(|r| r[col("scheme")] == "parp")
        .map(|r| num(r, "two_plane_requests"))
        .collect();
    assert!(
        parp_pairs.windows(2).all(|w| w[0] <= w[1]),
        "{parp_pairs:?}"
    );
    let fig12b = std::fs::read_to_string(out.join("fig12b.csv")).unwrap();
    assert!(fig12b.starts_with("arrivals_x,scheme,interval,t_s,requests,write_latency_us_mean"));
    assert!(fig12b.lines().count() > 8 * 5, "{fig12b}");
    // Wear: PaRP and APM at three threshold pairs on an aged drive; the
    // lowest thresholds place some requests by erase counts and narrow
    // the spread against the paper's.
    let wear = Csv::read(&out.join("wear.csv"));
    let wrows = &wear.rows;
    assert_eq!(wrows.len(), 4, "{wrows:?}");
    let w = |r: usize, n: &str| wear.num(&wrows[r], n);
    assert!(
        w(0, "gc_count") > 0.0 && w(1, "gc_count") > 0.0,
        "{wrows:?}"
    );
    assert!(w(3, "rule_channel_erases") > 0.0, "{wrows:?}");
    assert!(w(3, "erase_spread") <= w(1, "erase_spread"), "{wrows:?}");
    // Fig. 15(a): five tests on eight interleavings; more channels and
    // ways, more speed; Virus Scan (nearly all reads) fastest everywhere.
    let f15 = Csv::read(&out.join("fig15a.csv"));
    let rows15 = &f15.rows;
    assert_eq!(rows15.len(), 40, "{rows15:?}");
    let avg = |ways: &str, ch: &str| {
        let v: Vec<f64> = rows15
            .iter()
            .filter(|r| r[0] == ways && r[1] == ch)
            .map(|r| f15.num(r, "bandwidth_mb_s"))
            .collect();
        assert_eq!(v.len(), 5);
        v.iter().sum::<f64>() / 5.0
    };
    assert!(avg("2", "8") > 2.0 * avg("1", "1"), "{rows15:?}");
    // DVPFTL's two-layer map reclaims its logs by merges: the writing
    // tests merge, the read-only Virus Scan does not on a fresh drive.
    let merges: f64 = rows15.iter().map(|r| f15.num(r, "full_merges")).sum();
    assert!(merges > 0.0, "{rows15:?}");
    for r in rows15.iter().filter(|r| r[2] == "dvp/pcmark05_file_write") {
        assert!(f15.num(r, "wa") >= 1.0, "{r:?}");
    }
    assert!(
        avg("1", "8") > avg("1", "4") && avg("1", "4") > avg("1", "2"),
        "{rows15:?}"
    );
    for chunk in rows15.chunks(5) {
        let fastest = chunk
            .iter()
            .max_by(|x, y| {
                x[4].parse::<f64>()
                    .unwrap()
                    .total_cmp(&y[4].parse().unwrap())
            })
            .unwrap();
        assert_eq!(fastest[2], "dvp/pcmark05_virus_scan", "{chunk:?}");
    }
    assert!(out.join("summary.md").is_file());
    assert!(out.join("runs/apm_x1.json").is_file());
    // The scoreboard: every figure the reproduction compares and the
    // paper's conclusions, each miss with its cause (not the values).
    let board: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scoreboard.json")).unwrap())
            .unwrap();
    assert_eq!(board["paper"], "DVPFTL (FTL)");
    let figures = board["figures"].as_array().unwrap();
    assert_eq!(figures.len(), 6, "{figures:?}");
    for f in figures {
        if f["verdict"] == "miss" || f["verdict"] == "flagged" {
            assert!(f["cause"].as_str().is_some_and(|c| !c.is_empty()), "{f}");
        }
    }
    assert_eq!(board["conclusions"].as_array().unwrap().len(), 6);
    // Every run is saved (the batch machinery): a second invocation with
    // --resume reuses them all and writes the same results.
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let (_, stderr) = ok(&[
        "reproduce",
        "dvp",
        "--quick",
        "--no-hdi",
        "--resume",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(stderr.contains("65 of 65 runs reused"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(out.join("summary.md")).unwrap(),
        summary
    );
    assert!(out.join("hdi/dvp_Distilled.csv").is_file());
    for needle in [
        "Fig. 12(a, b)",
        "-13.49 %",
        "T_nom 696.5 us",
        "T_2plane 833.1 us",
        "bound on Y_dum / Y_req is 0.0869",
        "## Fig. 15(a)",
        "(paper 19.08)",
        "(paper 99.80)",
        "## The prototype's rates",
        "(paper 120 MB/s; write amplification",
        "(paper 150 MB/s)",
        "full merges), read",
        "## Sensitivity: a sequential log (`ftl.sequential_log = true`)",
        "## Wear: APM's erase-aware rules on an aged drive",
        "false identification rate against WDAC",
    ] {
        assert!(stdout.contains(needle), "missing `{needle}`:\n{stdout}");
    }
}
