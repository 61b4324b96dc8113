//! Integration tests of `ssdlab reproduce pgc`: one experiment and one
//! workload on the `--quick` drive with a few hundred requests, and the
//! errors of bad selections.

mod common;

use common::{assert_results_digest, describe, ok, real_trace, run, text};

#[test]
fn reproduce_pgc_runs_the_four_schemes_and_writes_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pgc");
    let o = out.to_str().unwrap();
    let args = [
        "reproduce",
        "pgc",
        "--quick",
        "--experiments",
        "slc-10",
        "--workloads",
        "IOzone",
        "--limit",
        "400",
        "--out",
        o,
    ];
    let (stdout, stderr) = ok(&args);

    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |n: &str| {
        header
            .iter()
            .position(|h| *h == n)
            .unwrap_or_else(|| panic!("no column {n}: {header:?}"))
    };
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let schemes: Vec<&str> = rows.iter().map(|r| r[col("scheme")]).collect();
    assert_eq!(
        schemes,
        ["serial", "ippbe", "2-workers", "4-workers"],
        "{csv}"
    );
    for r in &rows {
        assert_eq!(r[col("experiment")], "slc-10");
        assert_eq!(r[col("workload")], "IOzone");
        assert_eq!(r[col("requests")], "400");
        assert_eq!(r[col("gc.threshold")], "{percent=10.0}");
    }
    // Same workload and drive state: the schemes differ in how GC runs, so
    // the workers finish GC sooner than serial GC.
    let gc = |i: usize| rows[i][col("gc_time_us_total")].parse::<f64>().unwrap();
    assert!(gc(0) > 0.0, "GC ran: {csv}");
    assert!(gc(3) < gc(2) && gc(2) < gc(0), "{csv}");

    let runs: Vec<String> = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(runs.len(), 4, "{runs:?}");
    assert!(runs.contains(&"slc-10__IOzone__4-workers.json".to_string()));
    for chart in [
        "gc_time_total.svg",
        "mean_latency.svg",
        "victim_valid_pages.svg",
    ] {
        assert!(out.join("charts/slc-10").join(chart).is_file(), "{chart}");
    }
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("## slc-10"), "{summary}");

    // Our figures beside the paper's: GC time, latency, speed-ups,
    // Tables 3 and 4.
    for needle in [
        "Total GC time vs serial GC (Fig. 5b)",
        "Average I/O latency (reads and writes) vs serial GC (Fig. 5e)",
        "-43.0% on average",
        "speed-up, 4 workers",
        "(paper 2.50x",
        "Table 3",
        "(paper 21.6,",
        "Table 4",
        "(paper 30.3%",
    ] {
        assert!(stdout.contains(needle), "missing `{needle}`:\n{stdout}");
    }
    assert!(stderr.contains("[4/4]"), "progress lines: {stderr}");
    // Table 3's 10 % column is the calibration target, and says so.
    assert!(
        stdout.contains("calibrated: the pgc/ profiles' footprints were fitted"),
        "{stdout}"
    );

    // The scoreboard holds every figure this selection compares, and the
    // conclusions one experiment can decide.
    let board: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scoreboard.json")).unwrap())
            .unwrap();
    assert_eq!(board["paper"], "Parallel GC");
    assert!(board["command"]
        .as_str()
        .unwrap()
        .starts_with("ssdlab reproduce pgc --quick --experiments slc-10"));
    let figures = board["figures"].as_array().unwrap();
    let has = |fig: &str, quantity: &str| {
        figures
            .iter()
            .find(|f| f["figure"] == fig && f["quantity"].as_str().unwrap().starts_with(quantity))
    };
    let at = "SLC, GC threshold 10 %";
    for (fig, quantity) in [
        (
            "Fig. 5b",
            format!("total GC time, IPPBE against serial GC, mean over the workloads, {at}"),
        ),
        (
            "Fig. 5b",
            format!("total GC time, 2 workers against serial GC, mean over the workloads, {at}"),
        ),
        (
            "Fig. 5b",
            format!("total GC time, 4 workers against serial GC, mean over the workloads, {at}"),
        ),
        (
            "Fig. 5b",
            format!("4 workers' total GC time below IPPBE's, {at}"),
        ),
        (
            "§V-D",
            format!("GC speed-up of 2 workers (serial GC's time / theirs), {at}"),
        ),
        (
            "§V-D",
            format!("GC speed-up of 4 workers (serial GC's time / theirs), {at}"),
        ),
        (
            "Fig. 5e",
            "average I/O latency, 2 workers against serial GC, largest reduction".to_string(),
        ),
        (
            "Fig. 5e",
            "average I/O latency, 4 workers against serial GC, largest reduction".to_string(),
        ),
        (
            "Table 3",
            format!("valid pages per victim, serial GC, IOzone, {at}"),
        ),
        (
            "Table 4",
            format!("IPPBE's page migrations, share of serial GC's, IOzone, {at}"),
        ),
    ] {
        assert!(
            has(fig, &quantity).is_some(),
            "no {fig}: {quantity}\n{board:#}"
        );
    }
    assert_eq!(figures.len(), 10, "{board:#}");
    assert_eq!(
        has("Table 3", "valid pages per victim")
            .map(|f| f["verdict"].clone())
            .unwrap(),
        "calibrated"
    );
    for f in figures {
        if f["verdict"] == "miss" || f["verdict"] == "flagged" {
            assert!(f["cause"].is_string(), "a miss without its cause: {f:#}");
        }
    }
    assert_eq!(
        board["conclusions"].as_array().unwrap().len(),
        4,
        "{board:#}"
    );
    assert!(stdout.contains("## Scoreboard: Parallel GC"), "{stdout}");
}

/// The real start of Financial1 runs beside the look-alikes as its own row,
/// compared with Financial 1's figures and left out of the averages.
#[test]
fn reproduce_pgc_puts_the_real_financial1_excerpt_beside_the_look_alike() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pgc");
    let trace = real_trace("financial1-first10k.ssdsim.trace");
    let args = [
        "reproduce",
        "pgc",
        "--quick",
        "--experiments",
        "slc-10",
        "--workloads",
        "IOzone",
        "--limit",
        "300",
        "--financial1-trace",
        trace.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let (stdout, _) = ok(&args);
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let workloads: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap())
        .collect();
    assert_eq!(
        workloads,
        [
            "IOzone",
            "IOzone",
            "IOzone",
            "IOzone",
            "financial1-first10k.ssdsim.trace",
            "financial1-first10k.ssdsim.trace",
            "financial1-first10k.ssdsim.trace",
            "financial1-first10k.ssdsim.trace"
        ],
        "{csv}"
    );
    assert!(stdout.contains("not in the averages"), "{stdout}");
    // Its victims are compared with Financial 1's 33.4 pages (Table 3, 10 %).
    let row = stdout
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with("financial1-first10k.ssdsim.trace")
                && l.contains("of a block")
        })
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(row.contains("(paper 33.4,"), "{row}");
    // The average is IOzone's alone.
    let mean = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("mean"))
        .unwrap();
    assert!(mean.contains("(paper 21.6,"), "{mean}");
}

#[test]
fn reproduce_pgc_rejects_unknown_selections() {
    for (args, needle) in [
        (
            vec!["reproduce", "pgc", "--workloads", "Fin1"],
            "unknown workload `Fin1`",
        ),
        (
            vec!["reproduce", "pgc", "--experiments", "slc-12"],
            "slc-5, slc-10, slc-14, mlc-10",
        ),
        (
            vec!["reproduce", "pgc", "--limit", "0"],
            "--limit must be at least 1",
        ),
    ] {
        let out = run(&args);
        assert!(!out.status.success(), "{}", describe(&args, &out));
        let err = text(&out.stderr);
        assert!(err.contains(needle), "{}", describe(&args, &out));
        assert!(!err.contains("panicked"), "{}", describe(&args, &out));
    }
}

/// Golden result: `reproduce pgc --quick`'s results.csv is byte-identical to
/// the checked-in digest. About 70 s on 2 cores in release, so it is not part
/// of the default test run:
///
/// ```sh
/// cargo test --release -p ssdlab-cli --test reproduce_pgc_cli -- --ignored golden
/// ```
///
/// A model change that moves it updates the digest in the same commit.
#[test]
#[ignore = "about 70 s in release: run with --ignored (see the comment)"]
fn golden_reproduce_pgc_quick_results_csv() {
    assert_results_digest(
        &["reproduce", "pgc", "--quick"],
        "reproduce-pgc-quick.sha256",
    );
}
