//! Integration tests of `ssdlab trace` (stats, convert, generate) and of
//! `ssdlab bench --case s`: tables and JSON, round trips between formats,
//! generated traces matching their profile, and bad input failing cleanly
//! (non-zero exit, no panic, naming the file and line).

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::*;

// ----- helpers -----

/// Run, expect a clean failure whose stderr is one `error: ` message
/// containing every one of `needles`.
fn fails_naming(args: &[&str], needles: &[&str]) -> String {
    let out = run(args);
    let stderr = text(&out.stderr);
    assert!(
        !out.status.success() && out.status.code().is_some(),
        "expected a clean failure:\n{}",
        describe(args, &out)
    );
    assert!(
        !stderr.contains("panicked"),
        "panicked:\n{}",
        describe(args, &out)
    );
    assert!(
        stderr.starts_with("error: ") || stderr.contains("\nerror: "),
        "no `error: ` message:\n{}",
        describe(args, &out)
    );
    for n in needles {
        assert!(
            stderr.contains(n),
            "stderr does not contain {n:?}:\n{}",
            describe(args, &out)
        );
    }
    stderr
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// A fresh, empty scratch directory.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("trace-cli-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

fn read_json(p: &Path) -> Value {
    let t = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
    serde_json::from_str(&t).unwrap_or_else(|e| panic!("parsing {}: {e}", p.display()))
}

fn int(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("`{key}` is not an unsigned integer: {}", v[key]))
}

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("`{key}` is not a number: {}", v[key]))
}

/// `trace stats FILE --json` as JSON (extra arguments appended).
fn stats_json(dir: &Path, file: &Path, extra: &[&str]) -> Value {
    let json = dir.join("stats.json");
    let mut args = vec!["trace", "stats", s(file), "--json", s(&json)];
    args.extend_from_slice(extra);
    ok(&args);
    read_json(&json)
}

/// Records of an MQSim file as (time, lba, sectors, type), device dropped.
fn mqsim_fields(path: &Path) -> Vec<[u64; 4]> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<u64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            [f[0], f[2], f[3], f[4]]
        })
        .collect()
}

const PROFILE: &str = r#"
name = "cli-gen"
seed = 5
requests = 20000
read_share = 0.25
footprint_bytes = 16777216
read_size = { uniform = [4096, 16384] }
write_size = { fixed = [4096, 32768], weights = [3, 1] }
address = { kind = "hot-cold", hot_fraction = 0.2, hot_share = 0.8 }
arrival = { kind = "poisson", iops = 10000.0 }
"#;

// ----- stats -----

#[test]
fn stats_table_and_json() {
    let dir = scratch("stats");
    let trace = fixture("tpcc-head200.mqsim.trace");
    let json = dir.join("s.json");
    let (out, _) = ok(&["trace", "stats", s(&trace), "--json", s(&json)]);
    for row in [
        "trace ",
        "(mqsim)",
        "requests ",
        "reads ",
        "writes ",
        "bytes read",
        "bytes written",
        "mean read size",
        "mean write size",
        "large writes",
        "footprint",
        "duration",
        "mean inter-arrival",
        "burstiness",
        "hottest 10% of pages",
        "hottest 20% of pages",
        "sequential",
    ] {
        assert!(out.contains(row), "no {row:?} in\n{out}");
    }
    assert!(
        out.lines()
            .any(|l| l.starts_with("requests") && l.ends_with(" 200")),
        "{out}"
    );
    assert!(out.contains("76 (38.00 % of requests)"), "{out}");
    let v = read_json(&json);
    for key in [
        "requests",
        "read_requests",
        "write_requests",
        "read_bytes",
        "write_bytes",
        "footprint_bytes",
        "mean_read_size_bytes",
        "mean_write_size_bytes",
        "large_write_share",
        "duration_s",
        "read_share",
        "write_share",
        "read_byte_share",
        "write_byte_share",
        "footprint_pages",
        "mean_write_size_pages",
        "mean_interarrival_us",
        "burstiness_cv",
        "hot10_page_write_share",
        "hot20_page_write_share",
        "sequential_share",
        "page_bytes",
        "trace",
        "format",
    ] {
        assert!(v.get(key).is_some(), "JSON has no `{key}`: {v}");
    }
    assert_eq!(int(&v, "requests"), 200);
    assert_eq!(int(&v, "read_requests"), 76);
    assert_eq!(int(&v, "write_requests"), 124);
    assert_eq!(v["format"], "mqsim");
    // independent: 76 reads of 16 sectors
    let fields = mqsim_fields(&trace);
    let read_bytes: u64 = fields
        .iter()
        .filter(|f| f[3] == 1)
        .map(|f| f[2] * 512)
        .sum();
    assert_eq!(int(&v, "read_bytes"), read_bytes);
    let dur = (fields[199][0] - fields[0][0]) as f64 / 1e9;
    assert!((num(&v, "duration_s") - dur).abs() < 1e-12);
    assert_eq!(
        int(&v, "footprint_bytes"),
        int(&v, "footprint_pages") * 4096
    );
}

#[test]
fn stats_device_limit_and_gzip() {
    let dir = scratch("stats-filter");
    let trace = fixture("tpcc-head200.mqsim.trace");
    let text = std::fs::read_to_string(&trace).unwrap();
    let dev4 = text
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("4"))
        .count() as u64;
    let v = stats_json(&dir, &trace, &["--device", "4"]);
    assert_eq!(int(&v, "requests"), dev4);
    assert_eq!(int(&v, "device"), 4);
    let v = stats_json(&dir, &trace, &["--limit", "17", "--trace-format", "mqsim"]);
    assert_eq!(int(&v, "requests"), 17);
    // gzip output of convert is read back by stats
    let gz = dir.join("t.trace.gz");
    ok(&["trace", "convert", s(&trace), s(&gz), "--to", "mqsim"]);
    let a = stats_json(&dir, &trace, &[]);
    let b = stats_json(&dir, &gz, &[]);
    for key in [
        "requests",
        "read_bytes",
        "write_bytes",
        "footprint_pages",
        "first_time_ns",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
    // page size
    let v = stats_json(&dir, &trace, &["--page-bytes", "512"]);
    assert_eq!(int(&v, "page_bytes"), 512);
    assert_eq!(int(&v, "footprint_bytes"), int(&v, "footprint_pages") * 512);
}

// ----- convert -----

#[test]
fn convert_round_trips_between_formats() {
    let dir = scratch("convert");
    let trace = fixture("tpcc-head200.mqsim.trace");
    let msr = dir.join("t.csv");
    let dsk = dir.join("t.disksim");
    let back = dir.join("back.trace");
    let (_, err) = ok(&["trace", "convert", s(&trace), s(&msr), "--to", "msr"]);
    assert!(err.contains("wrote 200 records"), "{err}");
    // MSR -> MQSim: same records, times rebased to the first (MSR reader)
    ok(&["trace", "convert", s(&msr), s(&back), "--to", "mqsim"]);
    let orig = mqsim_fields(&trace);
    let got = mqsim_fields(&back);
    let t0 = orig[0][0];
    let want: Vec<[u64; 4]> = orig.iter().map(|f| [f[0] - t0, f[1], f[2], f[3]]).collect();
    assert_eq!(got, want);
    // MQSim -> DiskSim: ms with six decimals, sectors, flags 1 = read
    ok(&["trace", "convert", s(&trace), s(&dsk), "--to", "disksim"]);
    let d = std::fs::read_to_string(&dsk).unwrap();
    assert_eq!(d.lines().next(), Some("938.513000 0 264719034 16 0"));
    assert_eq!(d.lines().count(), 200);
    // MQSim -> SSDSim: the same line
    let ssd = dir.join("t.ssdsim");
    ok(&[
        "trace",
        "convert",
        s(&trace),
        s(&ssd),
        "--to",
        "ssdsim",
        "--out-device",
        "4",
    ]);
    let text = std::fs::read_to_string(&ssd).unwrap();
    assert_eq!(text.lines().next(), Some("938513000 4 264719034 16 0"));
    // and both read back with the same statistics as the original
    let a = stats_json(&dir, &trace, &[]);
    for (file, format) in [(&dsk, "disksim"), (&ssd, "ssdsim")] {
        let b = stats_json(&dir, file, &["--trace-format", format]);
        for key in [
            "requests",
            "read_bytes",
            "write_bytes",
            "footprint_pages",
            "first_time_ns",
            "burstiness_cv",
        ] {
            assert_eq!(a[key], b[key], "{format}: {key}");
        }
    }
    // MQSim -> MQSim keeps everything but the device number
    let same = dir.join("same.trace");
    ok(&[
        "trace",
        "convert",
        s(&trace),
        s(&same),
        "--to",
        "MQSim",
        "--out-device",
        "9",
    ]);
    assert_eq!(mqsim_fields(&same), orig);
    let first = std::fs::read_to_string(&same).unwrap();
    assert!(first.starts_with("938513000 9 264719034 16 0\n"), "{first}");
    // statistics survive the trip (except absolute times)
    let a = stats_json(&dir, &trace, &[]);
    let b = stats_json(&dir, &msr, &[]);
    for key in [
        "requests",
        "read_requests",
        "read_bytes",
        "write_bytes",
        "footprint_pages",
        "large_write_share",
        "hot10_page_write_share",
        "burstiness_cv",
        "sequential_share",
        "duration_s",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
    assert_eq!(b["format"], "msr");
    // device filter and limit apply to the input
    let part = dir.join("part.trace");
    ok(&[
        "trace",
        "convert",
        s(&trace),
        s(&part),
        "--to",
        "mqsim",
        "--device",
        "4",
        "--limit",
        "3",
    ]);
    assert_eq!(mqsim_fields(&part).len(), 3);
}

#[test]
fn convert_refuses_what_the_output_format_cannot_hold() {
    let dir = scratch("convert-bad");
    let msr = write(
        &dir,
        "odd.csv",
        "1000,h,0,Read,0,4096,1\n1010,h,0,Write,1000,4096,1\n",
    );
    let out = dir.join("odd.trace");
    fails_naming(
        &["trace", "convert", s(&msr), s(&out), "--to", "mqsim"],
        &["odd.csv", "odd.trace", "record 2", "offset 1000", "512"],
    );
    assert!(!out.exists(), "a failed conversion must leave no output");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "temporary left behind"
    );
    // into MSR the same records are fine (bytes)
    let csv = dir.join("odd2.csv");
    ok(&["trace", "convert", s(&msr), s(&csv), "--to", "msr"]);
    fails_naming(
        &["trace", "convert", s(&msr), s(&out), "--to", "blktrace"],
        &[
            "unknown output trace format `blktrace`",
            "mqsim, msr, disksim",
        ],
    );
    fails_naming(&["trace", "convert", s(&msr), s(&out)], &["--to"]);
}

// ----- generate -----

#[test]
fn generate_then_stats_matches_the_profile() {
    let dir = scratch("generate");
    let profile = write(&dir, "p.toml", PROFILE);
    for (format, name) in [
        ("mqsim", "g.trace"),
        ("msr", "g.csv.gz"),
        ("disksim", "g.disksim"),
        ("ssdsim", "g.ssdsim"),
    ] {
        let out = dir.join(name);
        let (_, err) = ok(&[
            "trace",
            "generate",
            "--synthetic",
            s(&profile),
            "--out",
            s(&out),
            "--to",
            format,
        ]);
        assert!(err.contains("wrote 20000 records"), "{err}");
        if format == "msr" {
            // Poisson times in whole ns: most are rounded to the 100 ns tick
            assert!(err.contains("rounded down"), "{err}");
        }
        let v = stats_json(&dir, &out, &["--trace-format", format]);
        assert_eq!(int(&v, "requests"), 20000, "{format}");
        // binomial sd of the read share: sqrt(0.25 * 0.75 / 20000) = 0.003
        let rs = num(&v, "read_share");
        assert!((rs - 0.25).abs() < 0.015, "{format}: read share {rs}");
        // sizes as in the profile: writes 4 KiB (3/4) or 32 KiB (1/4)
        let mw = num(&v, "mean_write_size_bytes");
        assert!(
            (mw / 11264.0 - 1.0).abs() < 0.05,
            "{format}: mean write {mw}"
        );
        assert!(int(&v, "footprint_bytes") <= 16777216);
        // hot-cold 80/20 picks the *start* page: 4 KiB writes put 80 % of
        // their page writes on the hot 20 %, 32 KiB writes only their first
        // of 8 pages, so about 0.42 of page writes are hot (uniform: ~0.3)
        let hot20 = num(&v, "hot20_page_write_share");
        assert!(hot20 > 0.38 && hot20 < 0.5, "{v}");
    }
    // the same seed gives the same file; --seed changes it
    let a = dir.join("a.trace");
    let b = dir.join("b.trace");
    ok(&[
        "trace",
        "generate",
        "--synthetic",
        s(&profile),
        "--out",
        s(&a),
        "--to",
        "mqsim",
    ]);
    assert_eq!(
        std::fs::read(&a).unwrap(),
        std::fs::read(dir.join("g.trace")).unwrap()
    );
    ok(&[
        "trace",
        "generate",
        "--synthetic",
        s(&profile),
        "--out",
        s(&b),
        "--to",
        "mqsim",
        "--seed",
        "6",
    ]);
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // --exact-times refuses the MSR rounding
    fails_naming(
        &[
            "trace",
            "generate",
            "--synthetic",
            s(&profile),
            "--out",
            s(&b),
            "--to",
            "msr",
            "--exact-times",
        ],
        &["record 1", "100 ns"],
    );
}

#[test]
fn generate_scale_multiplies_requests_and_footprint() {
    let dir = scratch("scale");
    let profile = write(&dir, "p.toml", PROFILE);
    let out = dir.join("half.trace");
    ok(&[
        "trace",
        "generate",
        "--synthetic",
        s(&profile),
        "--scale",
        "0.5",
        "--out",
        s(&out),
        "--to",
        "mqsim",
    ]);
    let v = stats_json(&dir, &out, &["--trace-format", "mqsim"]);
    assert_eq!(int(&v, "requests"), 10000);
    assert!(int(&v, "address_span_bytes") <= 8388608, "{v}");
    assert!((num(&v, "read_share") - 0.25).abs() < 0.02, "{v}");
    let out = dir.join("double.trace");
    ok(&[
        "trace",
        "generate",
        "--synthetic",
        s(&profile),
        "--scale",
        "2",
        "--out",
        s(&out),
        "--to",
        "mqsim",
    ]);
    let v = stats_json(&dir, &out, &["--trace-format", "mqsim"]);
    assert_eq!(int(&v, "requests"), 40000);
    // the footprint doubled: addresses now reach past the original 16 MiB
    assert!(int(&v, "address_span_bytes") > 16777216, "{v}");
    assert!(int(&v, "address_span_bytes") <= 33554432, "{v}");
    for bad in ["0", "-1", "nan", "inf"] {
        let scale = format!("--scale={bad}");
        fails_naming(
            &[
                "trace",
                "generate",
                "--synthetic",
                s(&profile),
                &scale,
                "--out",
                s(&out),
                "--to",
                "mqsim",
            ],
            &["--scale"],
        );
    }
    // a profile bounded by time: the duration scales
    let timed = write(
        &dir,
        "timed.toml",
        &PROFILE.replace("requests = 20000", "duration_s = 0.5"),
    );
    let out2 = dir.join("timed.trace");
    ok(&[
        "trace",
        "generate",
        "--synthetic",
        s(&timed),
        "--scale",
        "2",
        "--out",
        s(&out2),
        "--to",
        "mqsim",
    ]);
    let v = stats_json(&dir, &out2, &["--trace-format", "mqsim"]);
    let last = int(&v, "last_time_ns");
    assert!(last > 990_000_000 && last < 1_000_000_000, "{v}");
    // Poisson at 10k IOPS for 1 s: 10000 ± 100 (sd)
    let n = int(&v, "requests");
    assert!((9_500..=10_500).contains(&n), "{v}");
    // below the profile's smallest scale: refused, naming it
    fails_naming(
        &[
            "trace",
            "generate",
            "--synthetic",
            s(&profile),
            "--scale",
            "0.1",
            "--out",
            s(&out),
            "--to",
            "mqsim",
        ],
        &["--scale 0.1", "too small", "smallest scale is 0.5"],
    );
    // scaled below the largest request
    let long = write(
        &dir,
        "long.toml",
        &PROFILE.replace("requests = 20000", "requests = 100000000"),
    );
    fails_naming(
        &[
            "trace",
            "generate",
            "--synthetic",
            s(&long),
            "--scale",
            "0.001",
            "--out",
            s(&out),
            "--to",
            "mqsim",
        ],
        &["footprint_bytes", "scaled by"],
    );
}

// ----- bad input -----

#[test]
fn bad_input_fails_naming_file_and_line() {
    let dir = scratch("bad");
    let out = dir.join("o.trace");
    let bad = fixture("bad/mqsim-type.trace");
    fails_naming(
        &["trace", "stats", s(&bad)],
        &["mqsim-type.trace:", "field `type`"],
    );
    fails_naming(
        &["trace", "convert", s(&bad), s(&out), "--to", "msr"],
        &["mqsim-type.trace:", "field `type`"],
    );
    assert!(!out.exists());
    let bad = fixture("bad/msr-time.csv");
    fails_naming(
        &[
            "trace",
            "stats",
            s(&bad),
            "--trace-format",
            "msr",
            "--sort",
            "0",
        ],
        &["msr-time.csv:", "field `timestamp`", "--sort 0"],
    );
    // the line number is the file's
    let t = write(&dir, "l3.trace", "1 0 0 8 1\n2 0 0 8 0\n3 0 0 x 1\n");
    fails_naming(
        &["trace", "stats", s(&t), "--trace-format", "mqsim"],
        &["l3.trace:3: field `size_sectors`"],
    );
    fails_naming(
        &["trace", "stats", s(&fixture("bad/garbage.txt"))],
        &["garbage.txt", "known formats"],
    );
    fails_naming(
        &["trace", "stats", s(&dir.join("missing.trace"))],
        &["missing.trace"],
    );
    fails_naming(
        &[
            "trace",
            "stats",
            s(&fixture("tpcc-head200.mqsim.trace")),
            "--trace-format",
            "blk",
        ],
        &["unknown trace format `blk`"],
    );
    fails_naming(
        &[
            "trace",
            "stats",
            s(&fixture("tpcc-head200.mqsim.trace")),
            "--page-bytes",
            "0",
        ],
        &["page size"],
    );
    fails_naming(
        &[
            "trace",
            "generate",
            "--synthetic",
            s(&fixture("bad/profile-theta.toml")),
            "--out",
            s(&out),
            "--to",
            "mqsim",
        ],
        &["profile-theta.toml", "theta"],
    );
    fails_naming(
        &[
            "trace",
            "generate",
            "--synthetic",
            s(&dir.join("nope.toml")),
            "--out",
            s(&out),
            "--to",
            "mqsim",
        ],
        &["nope.toml"],
    );
    // JSON into a directory that does not exist
    fails_naming(
        &[
            "trace",
            "stats",
            s(&fixture("tpcc-head200.mqsim.trace")),
            "--json",
            s(&dir.join("no/dir/s.json")),
        ],
        &["no/dir/s.json"],
    );
}

// ----- bench case s -----

#[test]
fn bench_case_s_runs_small() {
    let dir = scratch("bench");
    let json = dir.join("s.json");
    let (out, _) = ok(&[
        "bench",
        "--case",
        "s",
        "--lines",
        "30000",
        "--json",
        s(&json),
    ]);
    assert!(out.contains("lines/s") && out.contains("peak RSS"), "{out}");
    let v = read_json(&json);
    assert_eq!(int(&v, "lines"), 30000);
    assert_eq!(int(&v, "prefix_lines"), 30000);
    assert!(num(&v, "full_lines_per_s") > 0.0);
}

// ----- real excerpts and described formats -----

/// A real excerpt in the repository's `fixtures/traces/`.
fn real(name: &str) -> PathBuf {
    common::real_trace(name)
}

/// The fixtures of the workload crate (described formats).
fn workload_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ssdlab-workload/tests/fixtures")
        .join(name)
}

#[test]
fn out_of_order_excerpts_replay_with_defaults() {
    let dir = scratch("excerpts");
    let tencent = real("tencent-cbs-sample.csv");
    let json = dir.join("tencent.json");
    let (out, err) = ok(&["trace", "stats", s(&tencent), "--json", s(&json)]);
    assert!(out.contains("requests") && out.contains("50000"), "{out}");
    assert!(
        err.contains("trace: 50000 records; 1297 records put back in time order"),
        "{err}"
    );
    let v = read_json(&json);
    assert_eq!(int(&v, "requests"), 50_000);
    assert_eq!(v["reader"]["reordered"].as_u64(), Some(1297));
    // a run replays SYSTOR '17 and says how many records it put in order
    let systor = real("systor17-sample.csv");
    let (_, err) = ok(&["run", "--trace", s(&systor), "--quiet"]);
    assert!(err.contains("287 records put back in time order"), "{err}");
    // strict order and a window too small fail naming the flag that fixes them
    fails_naming(
        &["run", "--trace", s(&systor), "--sort", "0", "--quiet"],
        &[
            "systor17-sample.csv:3: field `timestamp`",
            "leave out --sort 0",
        ],
    );
    fails_naming(
        &["trace", "stats", s(&tencent), "--sort", "1000"],
        &[
            "tencent-cbs-sample.csv:",
            "reorder window of 1000 records",
            "--sort 65536",
        ],
    );
    let (_, err) = ok(&["trace", "stats", s(&tencent), "--sort", "65536"]);
    assert!(err.contains("1297 records put back"), "{err}");
}

#[test]
fn described_formats_work_wherever_traces_do() {
    let dir = scratch("described");
    let linnos = workload_fixture("linnos.trace");
    let linnos_spec = workload_fixture("linnos.toml");
    let (out, _) = ok(&[
        "trace",
        "stats",
        s(&linnos),
        "--trace-format",
        s(&linnos_spec),
    ]);
    assert!(
        out.contains("(format `linnos`)") && out.contains("requests              40"),
        "{out}"
    );
    // run, with the spec's device column as a filter
    let json = dir.join("run.json");
    ok(&[
        "run",
        "--trace",
        s(&linnos),
        "--trace-format",
        s(&linnos_spec),
        "--device",
        "0",
        "--json",
        s(&json),
        "--quiet",
    ]);
    assert!(read_json(&json)["requests"].as_u64().unwrap() < 40);
    // convert a blkreplay .load file to MQSim and read it back
    let load = workload_fixture("blkreplay.load");
    let out = dir.join("load.mqsim");
    ok(&[
        "trace",
        "convert",
        s(&load),
        s(&out),
        "--to",
        "mqsim",
        "--trace-format",
        s(&workload_fixture("blkreplay.toml")),
    ]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 36);
    assert!(text.starts_with("2100000 0 34789024 8 0\n"), "{text}");
    // the site CSV: trims and flushes counted, volume 3 by default
    let (_, err) = ok(&[
        "trace",
        "stats",
        s(&workload_fixture("site.csv")),
        "--trace-format",
        s(&workload_fixture("site.toml")),
    ]);
    assert!(
        err.contains("14 records")
            && err.contains("1 discards not replayed")
            && err.contains("4 rows of other devices skipped"),
        "{err}"
    );
    // an inline spec
    let inline = "time = { column = 1, unit = \"ms\" }, op = { column = 5, read = [1], write = \
                  [0] }, offset = { column = 3, unit = \"bytes\" }, size = { column = 4, unit = \
                  \"bytes\" }";
    let (out, _) = ok(&["trace", "stats", s(&linnos), "--trace-format", inline]);
    assert!(out.contains("requests              40"), "{out}");
    // a bad spec names its file, key and line; a bad line its file, line and field
    let bad = write(
        &dir,
        "bad.toml",
        &std::fs::read_to_string(&linnos_spec)
            .unwrap()
            .replace("unit = \"ms\"", "unit = \"msec\""),
    );
    fails_naming(
        &["trace", "stats", s(&linnos), "--trace-format", s(&bad)],
        &[
            "bad.toml",
            "time.unit",
            "unknown time unit `msec`",
            "(line 10,",
        ],
    );
    fails_naming(
        &[
            "trace",
            "stats",
            s(&load),
            "--trace-format",
            s(&linnos_spec),
        ],
        &[
            "blkreplay.load:1: field `op`",
            "known codes: read = 1, write = 0",
        ],
    );
    fails_naming(
        &["trace", "stats", s(&linnos), "--trace-format", "linos.toml"],
        &["unknown trace format `linos.toml`", "no file `linos.toml`"],
    );
}
