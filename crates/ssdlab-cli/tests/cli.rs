//! Integration tests of the `ssdlab` binary: bad input of every kind is a
//! clear error (non-zero exit, no panic, naming the file, line and field),
//! runs are deterministic, the real trace excerpts replay, presets round
//! trip and the demo runs.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::*;

// ----- helpers -----

/// Run, expect a clean failure (non-zero exit code, no panic, no signal);
/// returns stderr.
fn fails(args: &[&str]) -> String {
    let out = run(args);
    let stderr = text(&out.stderr);
    assert!(
        !out.status.success(),
        "expected failure:\n{}",
        describe(args, &out)
    );
    assert!(
        out.status.code().is_some(),
        "killed by a signal:\n{}",
        describe(args, &out)
    );
    assert!(
        !stderr.contains("panicked"),
        "panicked:\n{}",
        describe(args, &out)
    );
    assert!(
        !stderr.trim().is_empty(),
        "failed without a message:\n{}",
        describe(args, &out)
    );
    stderr
}

/// Expect a clean failure whose stderr contains every one of `needles`.
fn fails_naming(args: &[&str], needles: &[&str]) -> String {
    let stderr = fails(args);
    for n in needles {
        assert!(
            stderr.contains(n),
            "stderr does not contain {n:?}:\nssdlab {}\n{stderr}",
            args.join(" ")
        );
    }
    stderr
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
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

/// The value at a dotted path (`read.latency_us.p99`).
fn at<'v>(v: &'v Value, key: &str) -> &'v Value {
    let pointer = format!("/{}", key.replace('.', "/"));
    v.pointer(&pointer)
        .unwrap_or_else(|| panic!("JSON has no `{key}`"))
}

fn num(v: &Value, key: &str) -> f64 {
    at(v, key)
        .as_f64()
        .unwrap_or_else(|| panic!("`{key}` is not a number: {}", at(v, key)))
}

fn int(v: &Value, key: &str) -> u64 {
    at(v, key)
        .as_u64()
        .unwrap_or_else(|| panic!("`{key}` is not an unsigned integer: {}", at(v, key)))
}

/// A small profile that makes GC run on `small` after
/// `fill:0.9:0.8+trace-reads` (about 44k pages written) in well under a
/// second.
const PROFILE: &str = r#"
name = "cli-hotcold"
seed = 1
requests = 5000
read_share = 0.3
footprint_bytes = 1073741824
page_bytes = 4096
read_size = { fixed = [4096] }
write_size = { uniform = [32768, 98304] }
address = { kind = "hot-cold", hot_fraction = 0.2, hot_share = 0.8 }
arrival = { kind = "poisson", iops = 300.0 }
"#;

/// A tiny profile for runs that only need to succeed.
const TINY: &str = r#"
name = "cli-tiny"
seed = 1
requests = 200
read_share = 0.5
footprint_bytes = 16777216
read_size = { fixed = [4096] }
write_size = { fixed = [4096, 16384] }
address = { kind = "uniform" }
arrival = { kind = "poisson", iops = 1000.0 }
"#;

const PRECONDITION_GC: &str = "fill:0.9:0.8+trace-reads";

// ----- 1. bad input -----

#[test]
fn mqsim_bad_size_names_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(
        dir.path(),
        "bad-size.trace",
        "1000 0 100 8 0\n2000 0 200 8 1\n3000 0 300 x 0\n4000 0 400 8 0\n",
    );
    let needle = format!("{}:3:", trace.display());
    for format in ["mqsim", "auto"] {
        fails_naming(
            &["run", "--trace", s(&trace), "--trace-format", format],
            &[&needle, "size_sectors", "`x`"],
        );
    }
    // The trace is also read by the trace-reads preconditioning pass.
    fails_naming(
        &["run", "--trace", s(&trace), "--precondition", "trace-reads"],
        &[&needle, "size_sectors"],
    );
}

#[test]
fn msr_bad_type_names_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(
        dir.path(),
        "bad-type.csv",
        "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\
         128166372003061629,web,0,Read,4096,4096,100\n\
         128166372003061700,web,0,Write,8192,4096,100\n\
         128166372003061800,web,0,Frob,8192,4096,100\n",
    );
    let needle = format!("{}:4:", trace.display());
    for format in ["msr", "auto"] {
        fails_naming(
            &["run", "--trace", s(&trace), "--trace-format", format],
            &[&needle, "type", "Frob"],
        );
    }
}

#[test]
fn request_beyond_2_pow_63_bytes_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    // u64::MAX sectors overflows the byte offset; 2^54 sectors is exactly 2^63 bytes.
    for (name, lba) in [
        ("huge.trace", "18446744073709551615"),
        ("edge.trace", "18014398509481984"),
    ] {
        let trace = write(
            dir.path(),
            name,
            &format!("1000 0 100 8 0\n2000 0 {lba} 8 1\n3000 0 100 8 0\n"),
        );
        let needle = format!("{}:2:", trace.display());
        fails_naming(
            &["run", "--trace", s(&trace), "--trace-format", "mqsim"],
            &[&needle, "lba", "2^63"],
        );
    }
}

#[test]
fn unknown_trace_format_lists_the_known_ones() {
    let trace = fixture("tpcc-head200.mqsim.trace");
    fails_naming(
        &["run", "--trace", s(&trace), "--trace-format", "blktrace"],
        &["blktrace", "mqsim", "msr", "auto"],
    );
}

#[test]
fn config_file_with_an_unknown_key_names_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let (small, _) = ok(&["presets", "show", "small"]);
    let mut lines: Vec<&str> = small.lines().collect();
    let gc = lines
        .iter()
        .position(|l| l.trim() == "[gc]")
        .expect("`presets show small` has a [gc] table");
    lines.insert(gc + 1, "bogus = 1");
    let bogus_line = gc + 2; // 1-based line number of `bogus = 1`
    let cfg = write(dir.path(), "bogus.toml", &(lines.join("\n") + "\n"));
    let profile = write(dir.path(), "tiny.toml", TINY);
    let stderr = fails_naming(
        &["run", "--config", s(&cfg), "--synthetic", s(&profile)],
        &[s(&cfg), "bogus"],
    );
    assert!(
        stderr.contains(&format!("line {bogus_line}")),
        "error does not give line {bogus_line}:\n{stderr}"
    );
}

#[test]
fn set_with_an_unknown_key_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "tiny.toml", TINY);
    fails_naming(
        &[
            "run",
            "--preset",
            "small",
            "--set",
            "gc.victm=greedy",
            "--synthetic",
            s(&profile),
        ],
        &["victm"],
    );
    fails_naming(
        &[
            "run",
            "--set",
            "nosuchtable.x=1",
            "--synthetic",
            s(&profile),
        ],
        &["nosuchtable"],
    );
}

/// A scheme is validated with the overrides given after it, as a whole: an
/// override may make the scheme fit the drive (the page-type schemes need a
/// multi-bit cell), one the scheme cannot take is refused naming its key.
#[test]
fn a_scheme_is_validated_after_its_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "tiny.toml", TINY);
    fails_naming(
        &[
            "run",
            "--preset",
            "small",
            "--scheme",
            "pa-su",
            "--synthetic",
            s(&profile),
        ],
        &["cell.type", "pa-su"],
    );
    let out = run(&[
        "run",
        "--preset",
        "small",
        "--scheme",
        "pa-su",
        "--set",
        "cell.type=tlc",
        "--set",
        "geometry.pages_per_block=129",
        "--synthetic",
        s(&profile),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    fails_naming(
        &[
            "run",
            "--preset",
            "small",
            "--scheme",
            "parp",
            "--set",
            "buffer.capacity={pages=64}",
            "--synthetic",
            s(&profile),
        ],
        &["buffer.capacity", "parp"],
    );
}

/// A hybrid map with the die held for GC runs to the end (it stalled when a
/// merge waited for host reads the held die kept back).
#[test]
fn a_hybrid_map_with_a_held_die_runs_to_the_end() {
    let out = run(&[
        "run",
        "--preset",
        "small",
        "--scheme",
        "baseline-d",
        "--set",
        "ftl.mapping=fast",
        "--set",
        "gc.hold_die=true",
        "--workload",
        "spd/rsrch_0",
        "--limit",
        "20000",
        "--precondition",
        "trace-reads",
        "--check",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn impossible_geometry_names_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "tiny.toml", TINY);
    for (set, key) in [
        ("geometry.planes_per_die=0", "geometry.planes_per_die"),
        ("geometry.channels=0", "geometry.channels"),
        ("ftl.overprovisioning=1.0", "ftl.overprovisioning"),
        ("ftl.overprovisioning=-0.1", "ftl.overprovisioning"),
        ("gc.threshold={percent=99.9}", "gc.threshold"),
        ("geometry.channels=abc", "geometry.channels"),
    ] {
        fails_naming(
            &[
                "run",
                "--preset",
                "small",
                "--set",
                set,
                "--synthetic",
                s(&profile),
            ],
            &[key],
        );
    }
    // Beyond the spare space, a threshold is refused when the run starts if
    // the aged data leaves no room for it.
    fails_naming(
        &[
            "run",
            "--preset",
            "small",
            "--set",
            "gc.threshold={percent=50.0}",
            "--precondition",
            "fill:0.6:1",
            "--synthetic",
            s(&profile),
        ],
        &["gc.threshold", "can never be kept"],
    );
}

#[test]
fn bad_preconditions_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "tiny.toml", TINY);
    for (pre, needles) in [
        ("fill:2:0.5", &["fill:2:0.5", "USED"][..]),
        ("fill:0.5:1.5", &["fill:0.5:1.5", "VALID"][..]),
        ("bogus", &["bogus", "fill:USED:VALID", "trace-reads"][..]),
        ("fill:0.5", &["fill:0.5"][..]),
    ] {
        fails_naming(
            &["run", "--synthetic", s(&profile), "--precondition", pre],
            needles,
        );
    }
}

#[test]
fn missing_trace_file_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such.trace");
    for format in ["auto", "mqsim", "msr"] {
        fails_naming(
            &["run", "--trace", s(&missing), "--trace-format", format],
            &[s(&missing)],
        );
    }
}

#[test]
fn profile_with_an_unknown_key_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let bad = TINY.replace("seed = 1\n", "seed = 1\nfrobnicate = 3\n");
    let profile = write(dir.path(), "bad-profile.toml", &bad);
    fails_naming(
        &["run", "--synthetic", s(&profile)],
        &[s(&profile), "frobnicate"],
    );
    // Unknown key inside a nested table.
    let bad = TINY.replace(
        "address = { kind = \"uniform\" }",
        "address = { kind = \"uniform\", thetaa = 1.0 }",
    );
    let profile = write(dir.path(), "bad-address.toml", &bad);
    fails_naming(
        &["run", "--synthetic", s(&profile)],
        &[s(&profile), "thetaa"],
    );
}

#[test]
fn run_without_a_workload_explains_what_is_missing() {
    fails_naming(&["run"], &["--trace", "--synthetic"]);
    fails_naming(&["run", "--preset", "small"], &["--trace", "--synthetic"]);
}

/// The defective fixtures whose defect is in their first record.
const FIRST_RECORD_BAD: &[&str] = &["msr-extent.csv", "msr-number.csv", "msr-type.csv"];

/// Every defective fixture of the library's tests, through the binary.
#[test]
fn every_bad_fixture_is_rejected_with_file_line_and_field() {
    let cases: &[(&str, Option<(u64, &str)>)] = &[
        ("mqsim-extent.trace", Some((2, "size_sectors"))),
        ("mqsim-fields.trace", Some((3, "record"))),
        ("mqsim-number.trace", Some((2, "lba"))),
        ("mqsim-offset.trace", Some((2, "lba"))),
        ("mqsim-size0.trace", Some((4, "size_sectors"))),
        ("mqsim-time.trace", Some((5, "time"))),
        ("mqsim-type.trace", Some((2, "type"))),
        ("mqsim-utf8.trace", Some((3, "text"))),
        ("msr-disk.csv", Some((2, "disk_number"))),
        ("msr-extent.csv", Some((1, "size"))),
        ("msr-fields.csv", Some((3, "record"))),
        ("msr-number.csv", Some((1, "offset"))),
        ("msr-size0.csv", Some((2, "size"))),
        ("msr-time.csv", Some((3, "timestamp"))),
        ("msr-type.csv", Some((2, "type"))),
        // Undetectable: the error names the file only.
        ("garbage.txt", None),
        ("empty.trace", None),
        ("blank.trace", None),
    ];
    for (name, want) in cases {
        let path = fixture(&format!("bad/{name}"));
        let explicit = if name.starts_with("mqsim") {
            "mqsim"
        } else {
            "msr"
        };
        for format in ["auto", explicit] {
            for pre in ["trace-reads", "none"] {
                if want.is_none() && format != "auto" {
                    continue;
                }
                // An error on the first record is swallowed unless the
                // trace-reads pass reads the trace first: see the ignored
                // test bad_first_record_is_an_error.
                if pre == "none" && FIRST_RECORD_BAD.contains(name) {
                    continue;
                }
                let mut args = vec![
                    "run",
                    "--trace",
                    s(&path),
                    "--trace-format",
                    format,
                    "--precondition",
                    pre,
                    "--quiet",
                ];
                // a timestamp going backwards is an error in strict order
                // only (the default window repairs it: see
                // time_going_backwards_is_reordered_by_default)
                if name.ends_with("-time.trace") || name.ends_with("-time.csv") {
                    args.extend(["--sort", "0"]);
                }
                let stderr = fails(&args);
                match want {
                    Some((line, field)) => {
                        let loc = format!("{}:{line}:", path.display());
                        let fld = format!("field `{field}`");
                        assert!(
                            stderr.contains(&loc) && stderr.contains(&fld),
                            "{name} ({format}, {pre}): expected {loc} and {fld}:\n{stderr}"
                        );
                    }
                    None => assert!(
                        stderr.contains(s(&path)),
                        "{name}: error does not name the file:\n{stderr}"
                    ),
                }
            }
        }
    }
    let theta = fixture("bad/profile-theta.toml");
    fails_naming(
        &["run", "--synthetic", s(&theta)],
        &[s(&theta), "address.theta"],
    );
}

/// A bad record after thousands of good ones stops the run: no partial
/// result, no JSON file.
#[test]
fn bad_record_deep_in_a_trace_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = String::new();
    for i in 0..3000u64 {
        t += &format!(
            "{} {} {} 8 {}\n",
            1000 * (i + 1),
            i % 2,
            (i * 97) % 100_000 * 8,
            i % 2
        );
    }
    t += "999999999 1 8 zz 0\n";
    let trace = write(dir.path(), "late.trace", &t);
    let json = dir.path().join("late.json");
    let needle = format!("{}:3001:", trace.display());
    for extra in [
        &[][..],
        &["--device", "0"][..],
        &["--precondition", "trace-reads"][..],
    ] {
        let mut args = vec!["run", "--trace", s(&trace), "--json", s(&json)];
        args.extend_from_slice(extra);
        fails_naming(&args, &[&needle, "size_sectors"]);
        assert!(!json.exists(), "a failed run wrote {}", json.display());
    }
    // The same trace limited to its good part replays.
    ok(&["run", "--trace", s(&trace), "--limit", "3000", "--quiet"]);

    // Gzip: the line number survives decompression.
    let gz = dir.path().join("late.trace.gz");
    {
        use std::io::Write;
        let f = std::fs::File::create(&gz).unwrap();
        let mut e = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
        e.write_all(t.as_bytes()).unwrap();
        e.finish().unwrap();
    }
    let needle = format!("{}:3001:", gz.display());
    fails_naming(&["run", "--trace", s(&gz)], &[&needle, "size_sectors"]);

    // A truncated gzip stream is an error naming the file, not a short run.
    let bytes = std::fs::read(&gz).unwrap();
    let cut = dir.path().join("cut.trace.gz");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    for format in ["auto", "mqsim"] {
        fails_naming(
            &["run", "--trace", s(&cut), "--trace-format", format],
            &[s(&cut)],
        );
    }
}

/// BUG: unless the `trace-reads` preconditioning pass has read the trace
/// first, an error in the *first* record is dropped silently: the run
/// replays 0 requests and exits 0. Auto-detection catches a first line in
/// no known format, but not one that has the right shape and a bad value,
/// nor anything when the format is given explicitly.
#[test]
fn bad_first_record_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(
        dir.path(),
        "first.trace",
        "1000 0 abc 8 0\n2000 0 200 8 1\n",
    );
    let needle = format!("{}:1:", trace.display());
    fails_naming(
        &["run", "--trace", s(&trace), "--trace-format", "mqsim"],
        &[&needle, "field `lba`"],
    );
    // Library fixtures whose first record is bad, auto-detected as MSR.
    for (name, line, field) in [
        ("msr-extent.csv", 1, "size"),
        ("msr-number.csv", 1, "offset"),
        ("msr-type.csv", 2, "type"), // after the header line
    ] {
        let path = fixture(&format!("bad/{name}"));
        let needle = format!("{}:{line}:", path.display());
        fails_naming(
            &["run", "--trace", s(&path)],
            &[&needle, &format!("field `{field}`")],
        );
    }
    // Text in no format, and an MQSim trace forced through the MSR reader.
    let garbage = fixture("bad/garbage.txt");
    let needle = format!("{}:1:", garbage.display());
    fails_naming(
        &["run", "--trace", s(&garbage), "--trace-format", "mqsim"],
        &[&needle, "field `record`"],
    );
    let tpcc = fixture("tpcc-head200.mqsim.trace");
    let needle = format!("{}:1:", tpcc.display());
    fails_naming(
        &["run", "--trace", s(&tpcc), "--trace-format", "msr"],
        &[&needle, "field `record`"],
    );
}

/// BUG (same cause): with `--device`, a malformed record met while looking
/// for the first record of that device is dropped silently.
#[test]
fn bad_record_before_the_first_selected_device_record_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(
        dir.path(),
        "dev.trace",
        "1000 0 100 8 0\n2000 0 200 8 1\n3000 0 300 8 1\n4000 1 x 8 1\n5000 1 500 8 1\n",
    );
    let needle = format!("{}:4:", trace.display());
    fails_naming(
        &["run", "--trace", s(&trace), "--device", "1"],
        &[&needle, "lba"],
    );
}

/// A trace run that selects no record at all replays nothing; that should
/// not pass silently (never a silent skip). Auto-detection
/// already rejects an empty trace; an explicit format and a `--device`
/// matching nothing do not.
#[test]
fn trace_run_selecting_no_record_is_reported() {
    let msr = fixture("msr-header.csv");
    let empty = fixture("bad/empty.trace");
    let blank = fixture("bad/blank.trace");
    let cases: [&[&str]; 4] = [
        &["run", "--trace", s(&msr), "--device", "99", "--quiet"],
        &[
            "run",
            "--trace",
            s(&empty),
            "--trace-format",
            "mqsim",
            "--quiet",
        ],
        &[
            "run",
            "--trace",
            s(&empty),
            "--trace-format",
            "msr",
            "--quiet",
        ],
        &[
            "run",
            "--trace",
            s(&blank),
            "--trace-format",
            "mqsim",
            "--quiet",
        ],
    ];
    for args in cases {
        let out = run(args);
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            !out.status.success() || stderr.contains("no record"),
            "a run with no records passed silently:\n{}",
            describe(args, &out)
        );
    }
}

/// An I/O error states its cause once (the library's `Error::Io` puts the
/// source both in its message and in its `source()`, and `{:#}` prints both).
#[test]
fn io_error_states_its_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such.trace");
    let stderr = fails(&["run", "--trace", s(&missing)]);
    let cause = "No such file or directory";
    assert_eq!(stderr.matches(cause).count(), 1, "{stderr}");
}

#[test]
fn other_bad_command_lines_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "tiny.toml", TINY);
    let p = s(&profile);
    let missing = dir.path().join("missing.toml");
    let m = s(&missing);
    fails_naming(
        &["run", "--preset", "nosuch", "--synthetic", p],
        &["nosuch", "small", "spd-512g"],
    );
    fails_naming(&["presets", "show", "nosuch"], &["nosuch", "small"]);
    fails_naming(&["run", "--config", m, "--synthetic", p], &[m]);
    fails_naming(&["run", "--synthetic", m], &[m]);
    fails_naming(
        &["run", "--set", "foo", "--synthetic", p],
        &["foo", "KEY=VALUE"],
    );
    // clap usage errors
    fails(&["run", "--preset", "small", "--config", p, "--synthetic", p]);
    fails(&["run", "--trace", p, "--synthetic", p]);
    fails(&["run", "--synthetic", p, "--seed", "-1"]);
    fails(&["nosuchcommand"]);
    // An unwritable --json path is named.
    let nodir = dir.path().join("nodir").join("out.json");
    fails_naming(
        &["run", "--synthetic", p, "--quiet", "--json", s(&nodir)],
        &[s(&nodir)],
    );
}

// ----- 2. determinism and the JSON report -----

const JSON_KEYS: &[&str] = &[
    "requests",
    "simulated_ns",
    "read.count",
    "read.latency_us.mean",
    "read.latency_us.p50",
    "read.latency_us.p99",
    "read.latency_us.p999",
    "read.latency_us.max",
    "write.count",
    "write.latency_us.mean",
    "write.latency_us.p50",
    "write.latency_us.p99",
    "write.latency_us.p999",
    "write.latency_us.max",
    "flash.reads",
    "flash.programs",
    "flash.erases",
    "flash.multiplane_program_share",
    "flash.wasted_pages",
    "gc.count",
    "gc.pages_migrated",
    "gc.time_us.total",
    "write_amplification",
    "buffer.read_hit_ratio",
    "buffer.write_hit_ratio",
    "plane_utilization.mean",
    "plane_utilization.max",
];

fn run_profile(profile: &Path, seed: &str, json: &Path) {
    ok(&[
        "run",
        "--preset",
        "small",
        "--synthetic",
        s(profile),
        "--json",
        s(json),
        "--seed",
        seed,
        "--precondition",
        PRECONDITION_GC,
        "--quiet",
    ]);
}

#[test]
fn same_seed_gives_byte_identical_json_and_another_seed_differs() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "p.toml", PROFILE);
    let (a, b, c) = (
        dir.path().join("a.json"),
        dir.path().join("b.json"),
        dir.path().join("c.json"),
    );
    run_profile(&profile, "7", &a);
    run_profile(&profile, "7", &b);
    run_profile(&profile, "8", &c);
    let (ta, tb, tc) = (
        std::fs::read(&a).unwrap(),
        std::fs::read(&b).unwrap(),
        std::fs::read(&c).unwrap(),
    );
    assert!(ta == tb, "same seed, different JSON");
    assert!(ta != tc, "seed 7 and seed 8 gave the same JSON");

    let va = read_json(&a);
    let vc = read_json(&c);
    // Not just the echoed seed: the simulated outcome differs.
    assert_ne!(at(&va, "simulated_ns"), at(&vc, "simulated_ns"));

    for key in JSON_KEYS {
        assert!(at(&va, key).is_number(), "`{key}` is not a number");
    }
    assert_eq!(int(&va, "requests"), 5000);
    assert_eq!(int(&va, "read.count") + int(&va, "write.count"), 5000);
    assert!(int(&va, "read.count") > 1000 && int(&va, "read.count") < 2000);
    assert!(int(&va, "gc.count") > 0, "GC did not run");
    assert!(int(&va, "gc.pages_migrated") > 0);
    assert!(int(&va, "flash.erases") > 0);
    assert!(num(&va, "gc.time_us.total") > 0.0);
    assert!(num(&va, "write_amplification") > 1.0);
    assert!(int(&va, "simulated_ns") > 0);
    for dir in ["read", "write"] {
        let q: Vec<f64> = ["p50", "p99", "p999", "max"]
            .iter()
            .map(|p| num(&va, &format!("{dir}.latency_us.{p}")))
            .collect();
        assert!(q[0] > 0.0, "{dir} p50 is 0");
        assert!(
            q.windows(2).all(|w| w[0] <= w[1]),
            "{dir} percentiles not ordered: {q:?}"
        );
        assert!(num(&va, &format!("{dir}.latency_us.mean")) <= q[3]);
    }
    for key in [
        "flash.multiplane_program_share",
        "buffer.read_hit_ratio",
        "buffer.write_hit_ratio",
        "plane_utilization.mean",
        "plane_utilization.max",
    ] {
        let x = num(&va, key);
        assert!((0.0..=1.0).contains(&x), "`{key}` = {x} is not a share");
    }
    assert!(num(&va, "plane_utilization.mean") <= num(&va, "plane_utilization.max"));
}

#[test]
fn profile_seed_is_used_without_seed_flag() {
    let dir = tempfile::tempdir().unwrap();
    let p1 = write(dir.path(), "p1.toml", TINY);
    let p2 = write(
        dir.path(),
        "p2.toml",
        &TINY.replace("seed = 1\n", "seed = 2\n"),
    );
    let (a, b, c) = (
        dir.path().join("a.json"),
        dir.path().join("b.json"),
        dir.path().join("c.json"),
    );
    for (p, j) in [(&p1, &a), (&p1, &b), (&p2, &c)] {
        ok(&["run", "--synthetic", s(p), "--json", s(j), "--quiet"]);
    }
    assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap());
    assert_ne!(
        at(&read_json(&a), "simulated_ns"),
        at(&read_json(&c), "simulated_ns"),
        "the profile's seed had no effect"
    );
}

// ----- 3. trace replay on the real excerpts -----

/// (reads, writes) of an MQSim trace, counted here independently.
fn mqsim_counts(path: &Path) -> (u64, u64) {
    let t = std::fs::read_to_string(path).unwrap();
    let (mut r, mut w) = (0, 0);
    for line in t.lines().filter(|l| !l.trim().is_empty()) {
        match line.split_whitespace().nth(4) {
            Some("1") => r += 1,
            Some("0") => w += 1,
            other => panic!("unexpected type {other:?}"),
        }
    }
    (r, w)
}

fn replay(trace: &Path, json: &Path, extra: &[&str]) -> (String, Value) {
    let mut args = vec![
        "run",
        "--preset",
        "small",
        "--trace",
        s(trace),
        "--trace-format",
        "auto",
        "--precondition",
        "trace-reads",
        "--json",
        s(json),
    ];
    args.extend_from_slice(extra);
    let (_, stderr) = ok(&args);
    (stderr, read_json(json))
}

#[test]
fn replays_the_mqsim_excerpts() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["tpcc-head200.mqsim.trace", "wsrch-tail200.mqsim.trace"] {
        let trace = fixture(name);
        let json = dir.path().join(format!("{name}.json"));
        let (stderr, v) = replay(&trace, &json, &[]);
        assert!(
            stderr.contains("detected mqsim"),
            "{name}: stderr does not report the detected format:\n{stderr}"
        );
        let (reads, writes) = mqsim_counts(&trace);
        assert_eq!(reads + writes, 200);
        assert_eq!(int(&v, "requests"), 200, "{name}");
        assert_eq!(int(&v, "read.count"), reads, "{name}");
        assert_eq!(int(&v, "write.count"), writes, "{name}");
        // trace-reads maps every page the trace reads.
        assert_eq!(int(&v, "unmapped_read_pages"), 0, "{name}");
        assert!(int(&v, "simulated_ns") > 0, "{name}");
    }
    // --limit and --device select records.
    let trace = fixture("tpcc-head200.mqsim.trace");
    let json = dir.path().join("limit.json");
    let (_, v) = replay(&trace, &json, &["--limit", "50"]);
    assert_eq!(int(&v, "requests"), 50);
    let t = std::fs::read_to_string(&trace).unwrap();
    let dev4 = t
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("4"))
        .count() as u64;
    assert!(dev4 > 0);
    let json = dir.path().join("dev4.json");
    let (_, v) = replay(&trace, &json, &["--device", "4"]);
    assert_eq!(int(&v, "requests"), dev4);
}

#[test]
fn replays_the_msr_excerpts() {
    let dir = tempfile::tempdir().unwrap();
    let mut reports = Vec::new();
    for name in ["msr-header.csv", "msr-noheader.csv"] {
        let trace = fixture(name);
        let json = dir.path().join(format!("{name}.json"));
        let (stderr, v) = replay(&trace, &json, &[]);
        assert!(
            stderr.contains("detected msr"),
            "{name}: stderr does not report the detected format:\n{stderr}"
        );
        // 8 records, mixed-case types: Read, Write, Read, Write, write, READ, Read, Write.
        assert_eq!(int(&v, "requests"), 8, "{name}");
        assert_eq!(int(&v, "read.count"), 4, "{name}");
        assert_eq!(int(&v, "write.count"), 4, "{name}");
        assert_eq!(int(&v, "unmapped_read_pages"), 0, "{name}");
        assert_eq!(v["trace_format"]["format"], "msr", "{name}");
        assert_eq!(v["trace_format"]["how"], "detected", "{name}");
        reports.push(v);
    }
    // Header, CRLF and the blank line change nothing but the workload name
    // (and the file recorded under `run`, and how detection saw the first
    // line).
    for r in &mut reports {
        r.as_object_mut().unwrap().remove("workload_name");
        r.as_object_mut().unwrap().remove("run");
        r.as_object_mut().unwrap().remove("trace_format");
    }
    assert_eq!(reports[0], reports[1]);

    // Disk 1: Read, Write, Read.
    let json = dir.path().join("disk1.json");
    let (_, v) = replay(&fixture("msr-header.csv"), &json, &["--device", "1"]);
    assert_eq!(int(&v, "requests"), 3);
    assert_eq!(int(&v, "read.count"), 2);
    assert_eq!(int(&v, "write.count"), 1);

    // An explicit format gives the same result as detection.
    let json2 = dir.path().join("explicit.json");
    ok(&[
        "run",
        "--preset",
        "small",
        "--trace",
        s(&fixture("msr-header.csv")),
        "--trace-format",
        "msr",
        "--precondition",
        "trace-reads",
        "--json",
        s(&json2),
        "--device",
        "1",
        "--quiet",
    ]);
    // ... but for how the format was chosen
    let (mut a, mut b) = (read_json(&json), read_json(&json2));
    assert_eq!(b["trace_format"]["how"], "named");
    assert_eq!(a["trace_format"]["how"], "detected");
    for v in [&mut a, &mut b] {
        v.as_object_mut().unwrap().remove("trace_format");
        let t = v["run"]["workload"]["trace"].as_object_mut().unwrap();
        t.remove("detected");
    }
    assert_eq!(a, b);
}

// ----- 4. presets -----

const PRESETS: &[&str] = &[
    "spd-512g",
    "pgc-slc",
    "pgc-mlc",
    "pa-tlc",
    "dvp-proto",
    "small",
];

#[test]
fn presets_lists_all_builtin_drives() {
    let (out, _) = ok(&["presets"]);
    let names: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for p in PRESETS {
        assert!(
            names.contains(p),
            "`ssdlab presets` does not list {p}:\n{out}"
        );
    }
}

#[test]
fn presets_show_prints_valid_toml() {
    for p in PRESETS {
        let (out, _) = ok(&["presets", "show", p]);
        let v: toml::Value = toml::from_str(&out)
            .unwrap_or_else(|e| panic!("`presets show {p}` is not TOML: {e}\n{out}"));
        assert_eq!(v["name"].as_str(), Some(*p), "{p}");
        for table in [
            "geometry", "cell", "timing", "flash", "ftl", "gc", "buffer", "sched", "host",
        ] {
            assert!(
                v.get(table).is_some(),
                "`presets show {p}` has no [{table}]"
            );
        }
    }
    let (out, _) = ok(&["presets", "show", "spd-512g"]);
    assert!(
        out.lines().any(|l| l.trim() == "channels = 16"),
        "spd-512g does not have 16 channels:\n{out}"
    );
    let v: toml::Value = toml::from_str(&out).unwrap();
    assert_eq!(v["geometry"]["channels"].as_integer(), Some(16));
}

#[test]
fn presets_show_small_round_trips_through_config() {
    let dir = tempfile::tempdir().unwrap();
    let (small, _) = ok(&["presets", "show", "small"]);
    let cfg = write(dir.path(), "small.toml", &small);
    let profile = write(dir.path(), "tiny.toml", TINY);
    let (from_preset, from_file) = (dir.path().join("preset.json"), dir.path().join("file.json"));
    for (how, json) in [
        (["--preset", "small"], &from_preset),
        (["--config", s(&cfg)], &from_file),
    ] {
        ok(&[
            "run",
            how[0],
            how[1],
            "--synthetic",
            s(&profile),
            "--json",
            s(json),
            "--seed",
            "3",
            "--quiet",
        ]);
    }
    assert!(
        std::fs::read(&from_preset).unwrap() == std::fs::read(&from_file).unwrap(),
        "`--config` of `presets show small` differs from `--preset small`"
    );
    assert_eq!(int(&read_json(&from_file), "requests"), 200);

    // --set applies on top of --config.
    let json = dir.path().join("set.json");
    ok(&[
        "run",
        "--config",
        s(&cfg),
        "--set",
        "buffer.capacity={pages=64}",
        "--synthetic",
        s(&profile),
        "--json",
        s(&json),
        "--quiet",
    ]);
    assert_eq!(int(&read_json(&json), "buffer.capacity_pages"), 64);
}

// ----- 5. demo -----

#[test]
fn demo_runs_and_summarises() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("demo.json");
    let (out, _) = ok(&["demo", "--json", s(&json)]);
    assert!(out.contains("GC"), "demo summary lacks GC:\n{out}");
    assert!(
        out.contains("latency"),
        "demo summary lacks latency:\n{out}"
    );
    let v = read_json(&json);
    assert!(int(&v, "requests") > 0);
    assert!(int(&v, "gc.count") > 0, "demo promises GC");
}

/// Inputs refused before any simulation: an output file in a missing
/// directory, an output directory that is a file, a drive whose maps would
/// not fit in the memory available (here a limit set by
/// SSDLAB_MEMORY_BYTES).
#[test]
fn impossible_outputs_and_drives_are_refused_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/out.json");
    let out = run(&["demo", "--json", missing.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("--json") && err.contains("does not exist"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = run(&[
        "reproduce",
        "pa",
        "--quick",
        "--workloads",
        "tFin",
        "--limit",
        "10",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("--out") && err.contains("a-file"), "{err}");

    let out = bin()
        .args(["demo"])
        .env("SSDLAB_MEMORY_BYTES", "1000000")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("geometry") && err.contains("of memory") && err.contains("MiB"),
        "{err}"
    );
}

/// A run whose GC consumes as much space as it frees stops with the figures
/// instead of running forever (DFTL on a drive aged nearly full of valid
/// data: each erase only makes room for the pages GC moves and the
/// translation pages it rewrites).
#[test]
fn gc_without_headway_stops_with_the_figures() {
    let args = [
        "run",
        "--preset",
        "small",
        "--workload",
        "spd/hm_0",
        "--limit",
        "3000",
        "--precondition",
        "fill:0.95:0.75",
        "--set",
        "ftl.mapping=\"dftl\"",
        "-q",
    ];
    let out = run(&args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&args, &out));
    for needle in [
        "garbage collection makes no headway",
        "block erases",
        "GC rewrote",
        "the mapping wrote",
        "all 3000 requests completed",
        "never end",
    ] {
        assert!(err.contains(needle), "missing `{needle}`: {err}");
    }
}

/// Bad blocks: a drive whose blocks wear out with two spares per plane
/// goes read-only; the run ends with the figures so far, the JSON says why
/// in `bad_blocks.read_only`, the summary has a status line, exit code 3.
/// Aging that wears it out is an error (exit 1), and factory bad blocks
/// beyond the spares are refused before anything runs.
#[test]
fn a_drive_out_of_spare_blocks_ends_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(
        dir.path(),
        "ro.toml",
        r#"
name = "ro"
seed = 1
requests = 100000
read_share = 0.0
footprint_bytes = 8388608
read_size = { fixed = [4096] }
write_size = { fixed = [4096] }
address = { kind = "uniform" }
arrival = { kind = "poisson", iops = 1000.0 }
"#,
    );
    let json = dir.path().join("r.json");
    let drive = [
        "--preset",
        "small",
        "--set",
        "geometry.channels=1",
        "--set",
        "geometry.chips_per_channel=1",
        "--set",
        "geometry.blocks_per_plane=64",
        "--set",
        "geometry.pages_per_block=32",
        "--set",
        "ftl.overprovisioning=0.2",
        "--set",
        "gc.threshold={blocks=3}",
        "--set",
        "cell.endurance=3",
    ];
    let mut args = vec!["run"];
    args.extend(drive);
    args.extend([
        "--set",
        "flash.bad_blocks={factory_fraction=0.0, spare_blocks=2}",
        "--synthetic",
        s(&profile),
        "--precondition",
        "none",
        "--check",
        "--json",
        s(&json),
    ]);
    let out = run(&args);
    assert_eq!(out.status.code(), Some(3), "{}", describe(&args, &out));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    let v = read_json(&json);
    let why = v["bad_blocks"]["read_only"].as_str().expect("read_only");
    let requests = v["requests"].as_u64().unwrap();
    assert!(requests > 0 && requests < 100_000, "{requests}");
    assert!(
        why.starts_with("read-only: plane ")
            && why.ends_with(&format!("host bytes / {requests} requests")),
        "{why}"
    );
    assert_eq!(v["bad_blocks"]["spares_left_min"], 0);
    assert_eq!(v["bad_blocks"]["spare_blocks_per_plane"], 2);
    assert!(v.get("partial").is_none());
    assert!(stdout.contains(&format!("status   {why}")), "{stdout}");
    assert!(
        stderr.contains(why) && stderr.contains("accepts no more writes"),
        "{stderr}"
    );

    // Aging that wears the drive out: an error, no result.
    let mut args = vec!["run"];
    args.extend(drive);
    args.extend([
        "--set",
        "cell.endurance=2",
        "--set",
        "flash.bad_blocks={factory_fraction=0.0, spare_blocks=1}",
        "--synthetic",
        s(&profile),
        "--precondition",
        "trace-writes",
    ]);
    let out = run(&args);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&args, &out));
    let err = text(&out.stderr);
    assert!(
        err.contains("preconditioning made the drive read-only")
            && err.contains("flash.bad_blocks"),
        "{err}"
    );

    // Factory bad blocks beyond the spares: refused, naming the key.
    let mut args = vec!["run"];
    args.extend(drive);
    args.extend([
        "--set",
        "flash.bad_blocks={factory_fraction=0.1, spare_blocks=2}",
        "--synthetic",
        s(&profile),
    ]);
    fails_naming(
        &args,
        &[
            "flash.bad_blocks.factory_fraction",
            "6 factory bad blocks",
            "2 spare",
        ],
    );
}

/// `--latency-log` writes every request (latency = completion − arrival)
/// with its latency's parts (they sum to it), `--histogram` the
/// distribution: counts add up to the JSON's, the cumulative fraction rises
/// to 1; the JSON has the attribution's bands.
#[test]
fn request_log_and_latency_histogram() {
    let dir = tempfile::tempdir().unwrap();
    let (log, hist, json) = (
        dir.path().join("lat.csv"),
        dir.path().join("hist.csv"),
        dir.path().join("r.json"),
    );
    let args = [
        "run",
        "--workload",
        "spd/hm_0",
        "--limit",
        "3000",
        "--precondition",
        "fill:0.9:0.8",
        "--latency-log",
        log.to_str().unwrap(),
        "--histogram",
        hist.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "-q",
    ];
    ok(&args);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            "arrival_ns,completion_ns,op,offset_bytes,size_bytes,latency_ns,buffer_ns,mapping_ns,\
             held_ns,behind_host_ns,behind_gc_ns,channel_ns,transfer_ns,array_ns"
        )
    );
    let mut counts = [0u64; 2];
    let mut latency_sum = [0u128; 2];
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), 14, "{l}");
        let n = |i: usize| f[i].parse::<u64>().unwrap();
        assert_eq!(n(1) - n(0), n(5), "{l}");
        assert_eq!((6..14).map(n).sum::<u64>(), n(5), "{l}");
        assert!(n(4) > 0, "{l}");
        let k = match f[2] {
            "R" => 0,
            "W" => 1,
            other => panic!("op {other}"),
        };
        counts[k] += 1;
        latency_sum[k] += n(5) as u128;
    }
    assert_eq!(counts[0], r["read"]["count"].as_u64().unwrap());
    assert_eq!(counts[1], r["write"]["count"].as_u64().unwrap());
    let bands = r["attribution"]["write"].as_array().unwrap();
    assert_eq!(bands[0]["band"], "all");
    assert_eq!(bands[0]["requests"].as_u64().unwrap(), counts[1]);
    let mean_us = latency_sum[1] as f64 / counts[1] as f64 / 1e3;
    let want = r["write"]["latency_us"]["mean"].as_f64().unwrap();
    assert!(
        (mean_us - want).abs() <= 1e-6 * want.max(1.0),
        "{mean_us} vs {want}"
    );

    let text = std::fs::read_to_string(&hist).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("op,latency_us,count,fraction"));
    let mut per_op: std::collections::BTreeMap<String, (u64, f64, f64)> = Default::default();
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        let e = per_op.entry(f[0].to_string()).or_insert((0, 0.0, 0.0));
        let (lat, frac): (f64, f64) = (f[1].parse().unwrap(), f[3].parse().unwrap());
        assert!(lat >= e.1 && frac >= e.2, "not increasing: {l}");
        *e = (e.0 + f[2].parse::<u64>().unwrap(), lat, frac);
    }
    assert_eq!(per_op["read"].0, counts[0]);
    assert_eq!(per_op["write"].0, counts[1]);
    assert!((per_op["write"].2 - 1.0).abs() < 1e-12);
}

/// A run's JSON says what produced it: version, git revision, seed, the
/// preconditioning, the resolved configuration, and the trace by path,
/// format and SHA-256 (a profile in full).
#[test]
fn run_json_records_what_produced_it() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let trace = real_trace("hm_0-sample.msr.csv");
    ok(&[
        "run",
        "--trace",
        trace.to_str().unwrap(),
        "--precondition",
        "fill:0.5-0.6:0.8+trace-reads",
        "--set",
        "gc.victim=fifo",
        "--seed",
        "9",
        "--limit",
        "500",
        "--json",
        json.to_str().unwrap(),
        "-q",
    ]);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let run = &v["run"];
    assert_eq!(run["ssdlab_version"], env!("CARGO_PKG_VERSION"));
    assert!(!run["git_revision"].as_str().unwrap().is_empty());
    assert_eq!(run["seed"], 9);
    assert_eq!(run["precondition"], "fill:0.5-0.6:0.8+trace-reads");
    assert_eq!(run["config"]["gc"]["victim"], "fifo");
    assert_eq!(run["config"]["seed"], 9);
    let w = &run["workload"];
    assert_eq!(w["kind"], "trace");
    assert_eq!(w["limit"], 500);
    assert_eq!(w["trace"]["format"], "msr");
    let bytes = std::fs::read(&trace).unwrap();
    let sha: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(w["trace"]["sha256"], sha);
    assert_eq!(w["trace"]["bytes"], bytes.len() as u64);
    // The report's own fields are where they were.
    assert_eq!(v["requests"], 500);

    ok(&[
        "run",
        "--workload",
        "spd/hm_0",
        "--limit",
        "100",
        "--json",
        json.to_str().unwrap(),
        "-q",
    ]);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["run"]["workload"]["kind"], "profile");
    assert_eq!(v["run"]["workload"]["profile"]["name"], "spd/hm_0");
    // no --precondition: the pages the workload reads are mapped first
    assert_eq!(v["run"]["precondition"], "trace-reads");
}

/// `ssdlab rerun` runs a result's record again: identical results, a
/// changed trace refused, a result that differs reported (exit 1).
#[test]
fn rerun_reproduces_a_result_from_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.csv");
    std::fs::copy(real_trace("hm_0-sample.msr.csv"), &trace).unwrap();
    let json = dir.path().join("a.json");
    ok(&[
        "run",
        "--trace",
        trace.to_str().unwrap(),
        "--limit",
        "400",
        "--precondition",
        "fill:0.6:0.5",
        "--set",
        "gc.victim=fifo",
        "--json",
        json.to_str().unwrap(),
        "-q",
    ]);
    let (out, _) = ok(&["rerun", json.to_str().unwrap()]);
    assert!(out.contains("identical"), "{out}");

    let profile_json = dir.path().join("p.json");
    ok(&[
        "run",
        "--workload",
        "spd/prn_0",
        "--limit",
        "2000",
        "--json",
        profile_json.to_str().unwrap(),
        "-q",
    ]);
    let (out, _) = ok(&["rerun", profile_json.to_str().unwrap()]);
    assert!(out.contains("identical"), "{out}");

    // A result edited by hand differs from its rerun.
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    v["requests"] = Value::from(1);
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, v.to_string()).unwrap();
    let args = ["rerun", edited.to_str().unwrap()];
    let o = run(&args);
    assert_eq!(o.status.code(), Some(1), "{}", describe(&args, &o));
    assert!(
        text(&o.stdout).contains("differs in `requests`"),
        "{}",
        describe(&args, &o)
    );

    // The trace changed: refused, naming the file.
    let mut bytes = std::fs::read(&trace).unwrap();
    bytes.extend_from_slice(b"\n");
    std::fs::write(&trace, bytes).unwrap();
    let args = ["rerun", json.to_str().unwrap()];
    let o = run(&args);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("the file changed since the run"),
        "{}",
        describe(&args, &o)
    );
}

/// `--conventions mqsim` sets MQSim's flushing and, unless told otherwise,
/// maps never-written pages that are read (trace-reads); an explicit
/// `--precondition` wins; an unknown name is an error naming the known ones.
#[test]
fn conventions_mqsim_sets_its_keys_and_default_preconditioning() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let j = json.to_str().unwrap();
    let base = [
        "run",
        "--preset",
        "small",
        "--workload",
        "spd/hm_0",
        "--limit",
        "3000",
        "-q",
    ];
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        a.extend(["--json", j]);
        ok(&a);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        v
    };
    let v = with(&["--conventions", "mqsim"]);
    assert_eq!(v["run"]["precondition"], "trace-reads");
    assert_eq!(v["run"]["config"]["buffer"]["free_watermark"], 1.0);
    assert_eq!(v["run"]["config"]["sched"]["policy"], "read-priority");
    // Every admitted page is flushed at once: writes never wait for a
    // slot, only for the host link and the DRAM (MQSim's).
    assert_eq!(v["run"]["config"]["interface"]["link"]["kind"], "pcie");
    let w = v["write"]["latency_us"]["mean"].as_f64().unwrap();
    assert!(w > 0.0 && w < 1000.0, "{}", v["write"]);
    assert!(v["interface"]["dram"]["accesses"].as_u64().unwrap() > 0);
    // Without the host interface, no time at all.
    let v = with(&["--conventions", "mqsim", "--set", "interface={}"]);
    assert_eq!(v["write"]["latency_us"]["max"], 0.0, "{}", v["write"]);
    assert!(v.get("interface").is_none() && v["run"]["config"].get("interface").is_none());
    let v = with(&["--conventions", "mqsim", "--precondition", "none"]);
    assert_eq!(v["run"]["precondition"], "none");
    let v = with(&["--conventions", "ssdlab"]);
    assert_eq!(v["run"]["config"]["buffer"]["free_watermark"], 0.0);
    let out = run(&[
        "run",
        "--preset",
        "small",
        "--conventions",
        "sim-x",
        "--workload",
        "spd/hm_0",
    ]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("unknown conventions `sim-x`; known: ssdlab, mqsim"),
        "{err}"
    );
    // `presets show` prints the drive under them.
    let (toml, _) = ok(&["presets", "show", "small", "--conventions", "mqsim"]);
    assert!(toml.contains("free_watermark = 1.0"), "{toml}");
}

/// `ssdlab scoreboard`: one table from the scoreboards under a directory,
/// quick against full, written between a document's markers; an empty
/// directory or a document without markers is a clear error.
#[test]
fn scoreboard_tables_and_writes_between_markers() {
    use ssdlab_cli::scoreboard::{Figure, Paper, Scale, Scoreboard};
    let dir = tempfile::tempdir().unwrap();
    let (quick, full) = (dir.path().join("quick"), dir.path().join("full"));
    for (d, q, ours) in [(&quick, true, -40.0), (&full, false, -44.0)] {
        let sub = d.join("spd");
        std::fs::create_dir_all(&sub).unwrap();
        let mut b = Scoreboard::new("SPD", "ssdlab reproduce spd", q);
        b.figure(Figure::new(
            "Fig. 9",
            "write latency",
            "%",
            Scale::Percent,
            Paper::Value(-43.9),
            ours,
        ));
        b.conclusion("SPD is fastest", true, "ours");
        b.write(&sub).unwrap();
    }
    let out = run(&["scoreboard", s(&quick), "--against", s(&full)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.contains("| SPD | 1 / 1 |"), "{table}");
    assert!(table.contains("| SPD | 1 | 1 | 100 % |"), "{table}");

    let doc = dir.path().join("doc.md");
    std::fs::write(
        &doc,
        "# Doc\n<!-- scoreboard:begin -->\nold\n<!-- scoreboard:end -->\nrest\n",
    )
    .unwrap();
    let out = run(&["scoreboard", s(&quick), "--into", s(&doc)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let new = std::fs::read_to_string(&doc).unwrap();
    assert!(
        new.contains("| SPD | 1 / 1 |") && !new.contains("old"),
        "{new}"
    );
    assert!(new.ends_with("<!-- scoreboard:end -->\nrest\n"), "{new}");

    let err = fails(&["scoreboard", s(dir.path().join("nothing").as_path())]);
    assert!(err.contains("not a directory"), "{err}");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = fails(&["scoreboard", s(&empty)]);
    assert!(err.contains("no scoreboard.json"), "{err}");
    std::fs::write(&doc, "no markers\n").unwrap();
    let err = fails(&["scoreboard", s(&quick), "--into", s(&doc)]);
    assert!(err.contains("expected one line"), "{err}");
    // --against takes a full run.
    let err = fails(&["scoreboard", s(&full), "--against", s(&quick)]);
    assert!(err.contains("takes a full run"), "{err}");
}

/// docs/tutorial.md's sweep runs as the page shows it: its spec, on the
/// trace excerpt it names, gives six runs in which GC runs and SPD writes
/// faster than Baseline-D on average (what the page's table says).
#[test]
fn the_tutorial_sweep_runs_as_documented() {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/tutorial.md"),
    )
    .unwrap();
    let start = page.find("```toml\n").expect("the tutorial's spec") + 8;
    let spec = &page[start..start + page[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    let trace = "financial1-first10k.ssdsim.trace";
    assert!(spec.contains(trace), "{spec}");
    std::fs::copy(real_trace(trace), dir.path().join(trace)).unwrap();
    std::fs::write(dir.path().join("compare.toml"), spec).unwrap();
    let out_dir = dir.path().join("results");
    let out = run(&[
        "sweep",
        s(&dir.path().join("compare.toml")),
        "--out",
        s(&out_dir),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let csv = std::fs::read_to_string(out_dir.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 6, "{csv}");
    let mean = |scheme: &str| {
        let v: Vec<f64> = rows
            .iter()
            .filter(|r| r[col("scheme")] == scheme)
            .map(|r| r[col("write_latency_us_mean")].parse().unwrap())
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!(mean("spd") < mean("baseline-d"), "{csv}");
    for r in &rows {
        assert!(r[col("gc_count")].parse::<u64>().unwrap() > 0, "{csv}");
    }
}
