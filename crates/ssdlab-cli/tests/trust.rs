//! Results a user can trust without reading the source: one test per way a
//! result could mislead, each on a small synthetic file in the layout of
//! the real trace that showed it (written here, not copied from a trace).
//!
//! 1. a LinnOS / FlashNet trace (ms, bytes) is detected as such, not read as
//!    DiskSim's (ms, sectors: sizes 512 times too large), and a sample that
//!    cannot tell is refused;
//! 2. reads of never-written pages cost a flash read by default, and when
//!    they do not (no preconditioning) their share is reported and warned;
//! 3. a preset's buffer has a fixed size, a footprint-relative one a floor,
//!    and the summary says which;
//! 4. a drive that cannot keep up with the arrivals is said to be saturated
//!    (in the JSON, the summary and a sweep's HTML report);
//! 5. `rerun` repeats a run given a relative path from elsewhere, and a run
//!    read through a described format;
//! 6. `reproduce pgc`'s real trace takes `--trace-format`, is named by its
//!    file and cut like the look-alikes with `--quick`;
//! 7. a header repeated between records is skipped and counted;
//! 8. a built-in profile scaled down keeps its paper's row.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use common::*;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Run, expect failure (not a crash); returns stderr.
fn fails(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(out.status.code(), Some(1), "{}", describe(args, &out));
    text(&out.stderr)
}

fn warning_kinds(v: &Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap().to_string())
        .collect()
}

/// `n` requests in the LinnOS / FlashNet layout `time_ms device offset_bytes
/// size_bytes type(1 read, 0 write)`: 2 ms apart, 4 to 64 KiB at 4 KiB
/// boundaries within 1 GiB, a third of them reads.
fn linnos(n: u64) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{}.{:03} 0 {} {} {}\n",
                i * 2,
                (i * 389) % 1000,
                ((i * 7919) % 262_144) * 4096,
                4096 << (i % 5),
                u8::from(i % 3 == 0)
            )
        })
        .collect()
}

/// Case 1: the LinnOS layout was read as DiskSim's.
#[test]
fn case1_linnos_layout_is_detected_not_read_as_disksim() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "flashnet.trace", &linnos(2000));
    let run_as = |format: &str, json: &str| {
        let json = dir.path().join(json);
        ok(&[
            "run",
            "--trace",
            s(&trace),
            "--trace-format",
            format,
            "--json",
            s(&json),
            "-q",
        ]);
        read_json(&json)
    };
    let auto = run_as("auto", "auto.json");
    let t = &auto["trace_format"];
    assert_eq!(t["format"], "linnos", "{t}");
    assert_eq!(t["how"], "detected");
    let reasons: Vec<&str> = t["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("not disksim") && r.contains("256 KiB")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.starts_with("not mqsim")),
        "{reasons:?}"
    );
    // bytes stay bytes: 2000 requests of 4 to 64 KiB
    let bytes = auto["read"]["bytes"].as_u64().unwrap() + auto["write"]["bytes"].as_u64().unwrap();
    let want: u64 = (0..2000u64).map(|i| 4096 << (i % 5)).sum();
    assert_eq!(bytes, want);
    let named = run_as("linnos", "named.json");
    assert_eq!(named["write"]["latency_us"], auto["write"]["latency_us"]);
    // read as DiskSim's, the same lines move 512 times the data
    let disksim = run_as("disksim", "disksim.json");
    let dbytes =
        disksim["read"]["bytes"].as_u64().unwrap() + disksim["write"]["bytes"].as_u64().unwrap();
    assert_eq!(dbytes, want * 512);
    let (lin, dsk) = (
        auto["write"]["latency_us"]["mean"].as_f64().unwrap(),
        disksim["write"]["latency_us"]["mean"].as_f64().unwrap(),
    );
    eprintln!("write latency mean: {lin:.1} us as LinnOS, {dsk:.1} us read as DiskSim");
    assert!(dsk > 20.0 * lin, "{lin} {dsk}");
    // the summary says what was detected and why
    let (out, _) = ok(&["run", "--trace", s(&trace)]);
    assert!(out.contains("trace    format linnos (detected)"), "{out}");
    assert!(out.contains("not disksim:"), "{out}");
    // three lines cannot tell bytes from sectors: refused, with how to choose
    let tiny = write(dir.path(), "tiny.trace", &linnos(3));
    let e = fails(&["run", "--trace", s(&tiny)]);
    assert!(e.contains("fits disksim and linnos equally well"), "{e}");
    assert!(e.contains("--trace-format mqsim, disksim or linnos"), "{e}");
}

/// `n` requests in the MSR Cambridge layout, 1 ms apart: reads of 16 KiB at
/// pages spread over 2 GiB that the trace never writes, and a write of 4
/// KiB every fourth request.
fn reads_of_unwritten(n: u64) -> String {
    let t0 = 128_166_372_000_000_000u64;
    (0..n)
        .map(|i| {
            let (kind, offset, size) = if i % 4 == 3 {
                ("Write", (1 << 31) + i * 4096, 4096)
            } else {
                ("Read", ((i * 7919) % 131_072) * 16_384, 16_384)
            };
            format!("{},fs,0,{kind},{offset},{size},100\n", t0 + i * 10_000)
        })
        .collect()
}

/// Case 2: reads of never-written pages cost nothing, silently.
#[test]
fn case2_reads_of_unwritten_pages_cost_a_flash_read_or_are_warned() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "fileserver.csv", &reads_of_unwritten(4000));
    // by default the pages the trace reads are mapped first (trace-reads)
    let json = dir.path().join("default.json");
    let (out, _) = ok(&["run", "--trace", s(&trace), "--json", s(&json)]);
    let v = read_json(&json);
    assert_eq!(v["run"]["precondition"], "trace-reads");
    assert_eq!(v["unmapped_read_pages"], 0);
    assert_eq!(v["unwritten_read_share"], 0.0);
    let read_mean = v["read"]["latency_us"]["mean"].as_f64().unwrap();
    let read_p99 = v["read"]["latency_us"]["p99"].as_f64().unwrap();
    // a 16 KiB read: at least one array read (75 us) and four page transfers
    assert!(
        read_mean > 100.0 && read_p99 > 100.0,
        "{read_mean} {read_p99}"
    );
    assert!(!warning_kinds(&v).contains(&"unwritten-reads".to_string()));
    assert!(!out.contains("unwritten-reads"), "{out}");
    // without preconditioning they are free, and the result says so
    let json = dir.path().join("none.json");
    let (out, _) = ok(&[
        "run",
        "--trace",
        s(&trace),
        "--precondition",
        "none",
        "--json",
        s(&json),
    ]);
    let v = read_json(&json);
    let share = v["unwritten_read_share"].as_f64().unwrap();
    let none_mean = v["read"]["latency_us"]["mean"].as_f64().unwrap();
    eprintln!(
        "read mean {read_mean:.1} us (p99 {read_p99:.1}) by default; {none_mean:.1} us with \
         {:.1} % of page reads unwritten without preconditioning",
        share * 100.0
    );
    assert_eq!(share, 1.0);
    assert!(none_mean < 1.0, "{none_mean}");
    assert!(warning_kinds(&v).contains(&"unwritten-reads".to_string()));
    assert!(
        out.contains("WARNING  [unwritten-reads] 100.0 % of the page reads"),
        "{out}"
    );
    assert!(
        out.contains("(100.00% of page reads) found pages never written"),
        "{out}"
    );
}

/// A small database's commits, in the MQSim layout: 8 bursts, one a second,
/// of 500 writes of 4 KiB at once, over 2200 pages (8.6 MiB) of its file.
fn small_database() -> String {
    (0..4000u64)
        .map(|i| {
            format!(
                "{} 0 {} 8 0\n",
                (i / 500) * 1_000_000_000,
                ((i * 37) % 2200) * 8
            )
        })
        .collect()
}

/// Case 3: a footprint-relative buffer made an absurd drive on a small trace.
#[test]
fn case3_buffers_have_a_fixed_size_or_a_floor_and_the_summary_says() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "sqlite.trace", &small_database());
    let (toml, _) = ok(&["presets", "show", "spd-512g"]);
    assert!(toml.contains("pages = 4096"), "{toml}");
    let go = |preset: &str, sets: &[&str], json: &str| {
        let json = dir.path().join(json);
        let mut args = vec![
            "run",
            "--preset",
            preset,
            "--trace",
            s(&trace),
            "--json",
            s(&json),
        ];
        for set in sets {
            args.extend(["--set", set]);
        }
        let (out, _) = ok(&args);
        (out, read_json(&json))
    };
    let (out, big) = go("spd-512g", &[], "big.json");
    assert_eq!(big["buffer"]["capacity_pages"], 4096);
    assert_eq!(big["buffer"]["capacity_bytes"], 16 << 20);
    assert!(
        out.contains("buffer   4096 pages (16.0 MiB; set: 4096 pages)"),
        "{out}"
    );
    // sized by the footprint, 1 % would be 22 pages: the floor of a page per
    // plane (256) holds, and the summary says so
    let (out, rel) = go(
        "spd-512g",
        &["buffer.capacity={ footprint-percent = 1.0 }"],
        "rel.json",
    );
    assert_eq!(rel["buffer"]["capacity_pages"], 256);
    assert!(
        out.contains(
            "footprint of 2200 pages would be 22, raised to the floor of one page per plane"
        ),
        "{out}"
    );
    let (_, tiny) = go("spd-512g", &["buffer.capacity.pages=22"], "tiny.json");
    let (_, small) = go("small", &[], "small.json");
    let w = |v: &Value| v["write"]["latency_us"]["mean"].as_f64().unwrap();
    eprintln!(
        "write latency mean: spd-512g {:.1} us (16 MiB), {:.1} us (footprint-relative, 256 \
         pages), {:.1} us (the 22 pages 1 % of the footprint gives); small {:.1} us (4 MiB)",
        w(&big),
        w(&rel),
        w(&tiny),
        w(&small)
    );
    assert!(w(&big) <= w(&small), "{} {}", w(&big), w(&small));
    assert!(w(&rel) < w(&tiny), "{} {}", w(&rel), w(&tiny));
}

/// `n` writes of 16 KiB, 200 us apart (80 MB/s), in the MQSim layout.
fn database_load(n: u64) -> String {
    (0..n)
        .map(|i| format!("{} 0 {} 32 0\n", i * 200_000, ((i * 7919) % 200_000) * 32))
        .collect()
}

/// Case 4: a drive that could not keep up was not said to be overloaded.
#[test]
fn case4_saturation_is_warned() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "db.trace", &database_load(20_000));
    let json = dir.path().join("r.json");
    let (out, _) = ok(&["run", "--trace", s(&trace), "--json", s(&json)]);
    let v = read_json(&json);
    assert!(
        warning_kinds(&v).contains(&"saturation".to_string()),
        "{out}"
    );
    let msg = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "saturation")
        .unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(msg.contains("requests arrived at 5000 per second"), "{msg}");
    assert!(
        out.contains("WARNING  [saturation] the drive did not keep up"),
        "{out}"
    );
    eprintln!(
        "mean write latency {:.0} us: {msg}",
        v["write"]["latency_us"]["mean"].as_f64().unwrap()
    );
    // four times slower arrivals (20 MB/s) it serves: no warning
    let (out, _) = ok(&[
        "run",
        "--trace",
        s(&trace),
        "--set",
        "host.time_scale=4",
        "--json",
        s(&json),
    ]);
    let v = read_json(&json);
    assert!(
        !warning_kinds(&v).contains(&"saturation".to_string()),
        "{out}"
    );
    // a sweep's HTML report lists its runs' warnings
    let spec = write(
        dir.path(),
        "sweep.toml",
        "experiment = \"load\"\npresets = [\"small\"]\nworkloads = [\"db.trace\"]\n\
         limit = 4000\nbaseline = \"greedy\"\n[[scheme]]\nname = \"greedy\"\nset = []\n",
    );
    let out_dir = dir.path().join("sweep");
    ok(&["sweep", s(&spec), "--out", s(&out_dir)]);
    ok(&["report", s(&out_dir)]);
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    assert!(html.contains("<h2>Warnings</h2>"), "no warnings section");
    assert!(
        html.contains("<code>saturation</code>: 1 of 1 runs")
            && html.contains("the drive did not keep up"),
        "the saturation warning is not in the report"
    );
}

/// Case 5: `rerun` of a run given a relative path, and of a described format.
#[test]
fn case5_rerun_resolves_relative_paths_and_keeps_described_formats() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&runs).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    write(&runs, "t.trace", &database_load(500));
    let in_dir = |cwd: &Path, args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .current_dir(cwd)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", describe(args, &out));
        text(&out.stdout)
    };
    in_dir(
        &runs,
        &["run", "--trace", "t.trace", "--json", "a.json", "-q"],
    );
    let v = read_json(&runs.join("a.json"));
    let t = &v["run"]["workload"]["trace"];
    assert_eq!(t["path"], "t.trace");
    assert_eq!(
        t["absolute_path"].as_str().unwrap(),
        runs.join("t.trace").to_str().unwrap()
    );
    assert_eq!(t["detected"], true);
    let a = runs.join("a.json");
    let out = in_dir(&elsewhere, &["rerun", s(&a)]);
    assert!(out.contains("identical"), "{out}");
    // a described format: its spec is in the record
    let csv: String = (0..300u64)
        .map(|i| format!("{};W;{};4096\n", i * 1000, i * 4096))
        .collect();
    write(&runs, "site.log", &csv);
    let spec = "separator = \";\", time = { column = 1, unit = \"us\" }, \
                op = { column = 2, read = [\"R\"], write = [\"W\"] }, \
                offset = { column = 3, unit = \"bytes\" }, size = { column = 4, unit = \"bytes\" }";
    in_dir(
        &runs,
        &[
            "run",
            "--trace",
            "site.log",
            "--trace-format",
            spec,
            "--json",
            "b.json",
            "-q",
        ],
    );
    let v = read_json(&runs.join("b.json"));
    let t = &v["run"]["workload"]["trace"];
    assert_eq!(t["format"], "custom");
    assert!(t["format_spec"].as_str().unwrap().contains("[time]"), "{t}");
    assert_eq!(v["trace_format"]["how"], "described");
    let b = runs.join("b.json");
    let out = in_dir(&elsewhere, &["rerun", s(&b)]);
    assert!(out.contains("identical"), "{out}");
}

/// Case 6: `reproduce pgc --financial1-trace` took only detectable formats,
/// called the row "Financial1" and did not scale it with `--quick`.
#[test]
fn case6_reproduce_pgc_real_trace_takes_a_format_keeps_its_name_and_scales() {
    let dir = tempfile::tempdir().unwrap();
    // a layout detection does not know: `op|time_s|offset_kib|size_kib`
    let text: String = (0..2400u64)
        .map(|i| {
            format!(
                "{}|{}.{:03}|{}|{}\n",
                if i % 3 == 0 { "rd" } else { "wr" },
                i / 10,
                (i % 10) * 100,
                (i * 7919) % 500_000,
                4 << (i % 3)
            )
        })
        .collect();
    let trace = write(dir.path(), "bank-volume.log", &text);
    let spec = "separator = \"|\", time = { column = 2, unit = \"s\" }, \
                op = { column = 1, read = [\"rd\"], write = [\"wr\"] }, \
                offset = { column = 3, unit = \"kib\" }, size = { column = 4, unit = \"kib\" }";
    let out_dir = dir.path().join("pgc");
    let base = [
        "reproduce",
        "pgc",
        "--quick",
        "--experiments",
        "slc-10",
        "--workloads",
        "Postmark",
        "--financial1-trace",
        s(&trace),
    ];
    // without a format it is refused, naming the file
    let mut args = base.to_vec();
    args.extend(["--out", s(&out_dir)]);
    let e = fails(&args);
    assert!(
        e.contains("bank-volume.log") && e.contains("matches no known format"),
        "{e}"
    );
    let mut args = base.to_vec();
    args.extend(["--trace-format", spec, "--out", s(&out_dir)]);
    let (stdout, _) = ok(&args);
    let csv = Csv::read(&out_dir.join("results.csv"));
    let names: Vec<&str> = csv
        .rows
        .iter()
        .map(|r| r[csv.col("workload")].as_str())
        .collect();
    assert_eq!(names.iter().filter(|n| **n == "bank-volume.log").count(), 4);
    assert!(!names.contains(&"Fin1-trace"));
    // --quick: its first 1/8, as the look-alikes
    assert!(
        stdout.contains("its first 300 of 2400 requests (--quick)"),
        "{stdout}"
    );
    let requests: Vec<f64> = csv
        .rows
        .iter()
        .filter(|r| r[csv.col("workload")] == "bank-volume.log")
        .map(|r| csv.num(r, "requests"))
        .collect();
    assert_eq!(requests, [300.0; 4]);
}

/// Case 7: a header repeated between records stopped the run.
#[test]
fn case7_repeated_headers_are_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let header = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n";
    let part = |from: u64| -> String {
        (from..from + 100)
            .map(|i| {
                format!(
                    "{},web,0,{},{},4096,50\n",
                    128_166_372_000_000_000u64 + i * 10_000,
                    if i % 2 == 0 { "Read" } else { "Write" },
                    i * 4096
                )
            })
            .collect()
    };
    let joined = format!(
        "{header}{}{header}{}{header}{}",
        part(0),
        part(100),
        part(200)
    );
    let trace = write(dir.path(), "joined.csv", &joined);
    let json = dir.path().join("r.json");
    let (_, err) = ok(&["run", "--trace", s(&trace), "--json", s(&json), "-q"]);
    assert_eq!(read_json(&json)["requests"], 300);
    assert!(err.contains("2 repeated header lines skipped"), "{err}");
    // a described format names its header lines by a pattern
    let own: String = format!(
        "ts;kind;at;len\n{}ts;kind;at;len\n{}",
        (0..50)
            .map(|i| format!("{i};W;{};4096\n", i * 4096))
            .collect::<String>(),
        (50..100)
            .map(|i| format!("{i};R;{};4096\n", i * 4096))
            .collect::<String>()
    );
    let trace = write(dir.path(), "own.log", &own);
    let spec = "separator = \";\", header = \"ts;*\", time = { column = 1, unit = \"ms\" }, \
                op = { column = 2, read = [\"R\"], write = [\"W\"] }, \
                offset = { column = 3, unit = \"bytes\" }, size = { column = 4, unit = \"bytes\" }";
    let (_, err) = ok(&[
        "run",
        "--trace",
        s(&trace),
        "--trace-format",
        spec,
        "--json",
        s(&json),
        "-q",
    ]);
    assert_eq!(read_json(&json)["requests"], 100);
    assert!(err.contains("1 repeated header lines skipped"), "{err}");
    // without the pattern the second header is a malformed line
    let bare = spec.replace("header = \"ts;*\", ", "skip_lines = 1, ");
    let e = fails(&["run", "--trace", s(&trace), "--trace-format", &bare]);
    assert!(e.contains("own.log:52: field `op`"), "{e}");
}

/// Case 8: built-in profiles generated at a scale drifted from their rows.
#[test]
fn case8_scaled_profiles_keep_their_rows() {
    let dir = tempfile::tempdir().unwrap();
    // SPD Table 2: prn_0 R_S 24.8 KB, hm_0 11.2 KB
    for (name, read_kib) in [("spd/prn_0", 24.8), ("spd/hm_0", 11.2)] {
        let out = dir.path().join("scaled.csv");
        ok(&[
            "trace",
            "generate",
            "--workload",
            name,
            "--scale",
            "0.02",
            "--out",
            s(&out),
            "--to",
            "msr",
        ]);
        let json = dir.path().join("stats.json");
        ok(&["trace", "stats", s(&out), "--json", s(&json)]);
        let v = read_json(&json);
        let got = v["mean_read_size_bytes"].as_f64().unwrap() / 1024.0;
        eprintln!(
            "{name} at scale 0.02: mean read {got:.2} KiB against {read_kib} ({:+.1} %)",
            (got / read_kib - 1.0) * 100.0
        );
        assert!((got / read_kib - 1.0).abs() <= 0.05, "{name}: {got}");
    }
    // below a profile's smallest scale: refused, naming it
    let e = fails(&[
        "trace",
        "generate",
        "--workload",
        "spd/prxy_0",
        "--scale",
        "0.01",
        "--out",
        s(&dir.path().join("x.csv")),
        "--to",
        "msr",
    ]);
    assert!(e.contains("its smallest scale is 0.034"), "{e}");
}
