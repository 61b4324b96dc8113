//! Hostile inputs, each refused with a clear error (file, line, field where
//! there is one), a non-zero exit, no panic, bounded memory, and no output
//! file left behind: sizes and offsets near 2^64, negative, NaN, infinite
//! and overflowing timestamps, a 10 GB line, binary junk, truncated gzip
//! and zstd streams, a compression bomb, absurd timings, a workload that
//! filters to nothing, a sweep of 10^6 runs, a time series that would not
//! fit in memory. (Drives too big for memory and unwritable outputs:
//! `cli.rs`.)
//!
//! Memory: every child's peak resident set is read from `getrusage`
//! (`RUSAGE_CHILDREN`, the largest over the children this test binary has
//! waited for), and must stay far below what the hostile input would cost
//! if it were held.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{bin, text};

/// Peak resident set of any child waited for so far, in bytes.
fn children_peak_rss() -> u64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    assert_eq!(rc, 0);
    u.ru_maxrss as u64 * 1024
}

/// Children of this binary stay below this (the inputs would need GBs).
const RSS_BOUND: u64 = 400 << 20;

/// Run, expect a failure (exit 1) whose stderr holds every needle and no
/// panic.
fn refused(cmd: &mut Command, needles: &[&str]) -> String {
    let out: Output = cmd.output().expect("failed to start the ssdlab binary");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "expected a refusal:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "missing `{n}` in:\n{err}");
    }
    assert!(
        children_peak_rss() < RSS_BOUND,
        "peak RSS {}",
        children_peak_rss()
    );
    err
}

/// `ssdlab run` on a trace file, with a --json output that must not be
/// written.
fn run_trace(dir: &Path, trace: &Path, format: &str, extra: &[&str]) -> Command {
    let mut c = bin();
    c.args(["run", "--trace"])
        .arg(trace)
        .args(["--trace-format", format, "--json"])
        .arg(dir.join("out.json"))
        .args(extra);
    c
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn sizes_and_offsets_near_2_pow_64() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let msr = "128166372003061629,hm,0,Write";
    for (name, line, field) in [
        (
            "offset.csv",
            format!("{msr},18446744073709551615,4096,100\n"),
            "field `offset`",
        ),
        (
            "size.csv",
            format!("{msr},4096,18446744073709551615,100\n"),
            "field `size`",
        ),
        (
            "end.csv",
            format!("{msr},9223372036854771712,8192,100\n"),
            "field `size`",
        ),
        (
            "digits.csv",
            format!("{msr},184467440737095516150,4096,100\n"),
            "field `offset`",
        ),
    ] {
        let t = write(d, name, line.as_bytes());
        refused(
            &mut run_trace(d, &t, "msr", &[]),
            &[&format!("{name}:1: {field}")],
        );
    }
    // sectors to bytes overflows
    let t = write(d, "lba.trace", b"0 0 18446744073709551615 8 0\n");
    refused(
        &mut run_trace(d, &t, "mqsim", &[]),
        &["lba.trace:1:", "2^63"],
    );
    assert!(!d.join("out.json").exists());
}

#[test]
fn negative_nan_infinite_and_overflowing_timestamps() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (i, time) in [
        "-1.5",
        "nan",
        "NaN",
        "inf",
        "-inf",
        "1e300",
        "99999999999999999.5",
    ]
    .iter()
    .enumerate()
    {
        let t = write(
            d,
            &format!("t{i}.disksim"),
            format!("{time} 0 1024 8 0\n").as_bytes(),
        );
        refused(
            &mut run_trace(d, &t, "disksim", &[]),
            &[&format!("t{i}.disksim:1: field `time_ms`")],
        );
    }
    // Integer nanoseconds beyond what the simulator's clock can hold, also
    // after reordering.
    let t = write(
        d,
        "late.trace",
        b"0 0 1024 8 0\n18446744073709551615 0 8 8 1\n",
    );
    refused(
        &mut run_trace(d, &t, "mqsim", &[]),
        &["late.trace:2: field `time`", "2^62"],
    );
    let t = write(
        d,
        "early.trace",
        b"18446744073709551615 0 1024 8 0\n0 0 8 8 1\n",
    );
    refused(
        &mut run_trace(d, &t, "mqsim", &[]),
        &["early.trace:1: field `time`"],
    );
    // Within range, but replays push it over.
    let t = write(
        d,
        "replayed.trace",
        b"0 0 1024 8 0\n3000000000000000000 0 8 8 1\n",
    );
    // Known before the run from the pre-scan (the default preconditioning
    // reads the trace first) ...
    refused(
        &mut run_trace(d, &t, "mqsim", &["--set", "host.replays=3"]),
        &["host.replays", "ends at 1.5e19 ns, beyond 2^62 ns"],
    );
    // ... or, without one, when the second pass would start.
    refused(
        &mut run_trace(
            d,
            &t,
            "mqsim",
            &["--set", "host.replays=3", "--precondition", "none"],
        ),
        &["pass 2 of 3 (host.replays)", "2^62"],
    );
    assert!(!d.join("out.json").exists());
}

/// A pipe can be read once: a run that would read its trace before the run
/// (the default preconditioning) or again (replays) says so instead of
/// finding the pipe empty.
#[test]
fn a_trace_from_a_pipe_is_not_read_twice() {
    let dir = tempfile::tempdir().unwrap();
    let trace = std::fs::read(common::real_trace("hm_0-sample.msr.csv")).unwrap();
    for extra in [
        &[][..],
        &["--precondition", "none", "--set", "host.replays=2"],
    ] {
        let mut child = run_trace(dir.path(), Path::new("/dev/stdin"), "msr", extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let bytes = trace.clone();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        assert!(
            err.contains("/dev/stdin is not a regular file")
                && err.contains("can be read only once"),
            "{extra:?}: {err}"
        );
        let what = if extra.is_empty() {
            "--precondition trace-reads"
        } else {
            "host.replays above 1"
        };
        assert!(err.contains(what), "{extra:?}: {err}");
    }
    // Without either, it replays.
    let mut child = run_trace(
        dir.path(),
        Path::new("/dev/stdin"),
        "msr",
        &["--precondition", "none", "-q"],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&trace);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_ten_gigabyte_line_is_refused_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = run_trace(
        dir.path(),
        Path::new("/dev/stdin"),
        "msr",
        &["--precondition", "none"],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'7'; 1 << 20];
        let mut sent = 0u64;
        for _ in 0..10 * 1024 {
            if stdin.write_all(&chunk).is_err() {
                break; // the reader gave up: that is the point
            }
            sent += chunk.len() as u64;
        }
        sent
    });
    let out = child.wait_with_output().unwrap();
    let sent = writer.join().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("/dev/stdin:1: field `text`: line longer than"),
        "{err}"
    );
    assert!(sent < 1 << 30, "the reader read {sent} bytes of one line");
    assert!(children_peak_rss() < RSS_BOUND);
    assert!(!dir.path().join("out.json").exists());
}

#[test]
fn binary_junk_is_not_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // a fixed pseudo-random byte soup (xorshift), with NULs and invalid UTF-8
    let mut x = 0x9e3779b97f4a7c15u64;
    let junk: Vec<u8> = (0..64 * 1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let t = write(d, "junk.bin", &junk);
    refused(
        &mut run_trace(d, &t, "auto", &[]),
        &["junk.bin", "is this a text trace?"],
    );
    for f in ["msr", "mqsim", "blkparse", "systor"] {
        refused(&mut run_trace(d, &t, f, &[]), &["junk.bin:"]);
    }
    refused(
        bin().args(["trace", "stats"]).arg(&t),
        &["cannot detect the trace format of", "junk.bin"],
    );
    assert!(!d.join("out.json").exists());
}

/// The real MQSim excerpt (fixtures/traces).
fn trace_bytes() -> Vec<u8> {
    std::fs::read(common::real_trace("tpcc-small.mqsim.trace")).unwrap()
}

#[test]
fn truncated_compressed_streams_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plain = trace_bytes();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&plain).unwrap();
    let gz = gz.finish().unwrap();
    let t = write(d, "cut.gz", &gz[..gz.len() / 2]);
    refused(
        &mut run_trace(d, &t, "mqsim", &[]),
        &["cut.gz: read failed after line"],
    );
    refused(&mut run_trace(d, &t, "auto", &[]), &["cut.gz"]);
    let zst = zstd::encode_all(&plain[..], 3).unwrap();
    let t = write(d, "cut.zst", &zst[..zst.len() / 2]);
    refused(
        &mut run_trace(d, &t, "mqsim", &[]),
        &["cut.zst: read failed"],
    );
    refused(&mut run_trace(d, &t, "auto", &[]), &["cut.zst"]);
    let t = write(d, "magic-only.gz", &[0x1f, 0x8b]);
    refused(&mut run_trace(d, &t, "mqsim", &[]), &["magic-only.gz"]);
    assert!(!d.join("out.json").exists());
}

#[test]
fn compression_bombs_stop_or_stream_in_flat_memory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 1 GiB of zeros in about 1 MB: one endless "line"
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mib = vec![0u8; 1 << 20];
    for _ in 0..1024 {
        z.write_all(&mib).unwrap();
    }
    let t = write(d, "zeros.gz", &z.finish().unwrap());
    refused(
        &mut run_trace(d, &t, "mqsim", &[]),
        &["zeros.gz:1: field `text`: line longer than"],
    );
    refused(
        &mut run_trace(d, &t, "auto", &[]),
        &["zeros.gz", "line longer than"],
    );
    // 256 MiB of newlines (about 1000x): streamed, then "no records"
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let nl = vec![b'\n'; 1 << 20];
    for _ in 0..256 {
        z.write_all(&nl).unwrap();
    }
    let t = write(d, "newlines.gz", &z.finish().unwrap());
    refused(
        &mut run_trace(d, &t, "auto", &[]),
        &["newlines.gz", "no records"],
    );
    refused(&mut run_trace(d, &t, "mqsim", &[]), &["yielded no request"]);
    assert!(!d.join("out.json").exists());
}

#[test]
fn absurd_timings_are_refused_and_zero_timings_run() {
    for (set, field) in [
        ("timing.erase_us=1e300", "timing.erase_us"),
        ("timing.program_us=[1e12]", "timing.program_us"),
        ("timing.read_us=[-1]", "timing.read_us"),
        ("timing.bus_ns_per_byte=1e20", "timing.bus_ns_per_byte"),
        ("timing.command_ns=nan", "timing.command_ns"),
        ("metrics.interval_ms=1e-9", "metrics.interval_ms"),
    ] {
        refused(
            bin().args([
                "run",
                "--workload",
                "spd/hm_0",
                "--limit",
                "100",
                "--set",
                set,
            ]),
            &[field],
        );
    }
    // Zero timings are legal (an ideal flash array): the run ends.
    let out = bin()
        .args(["run", "--workload", "spd/hm_0", "--limit", "3000", "-q"])
        .args([
            "--set",
            "timing.read_us=[0]",
            "--set",
            "timing.program_us=[0]",
        ])
        .args([
            "--set",
            "timing.erase_us=0",
            "--set",
            "timing.bus_ns_per_byte=0",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_time_series_that_would_not_fit_is_stopped() {
    // 1 µs intervals over hours of simulated time: millions of intervals.
    refused(
        bin()
            .args(["run", "--workload", "spd/hm_0", "--limit", "20000"])
            .args(["--set", "metrics.interval_ms=0.001"]),
        &["metrics.interval_ms", "intervals"],
    );
}

#[test]
fn a_workload_that_filters_to_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let t = common::real_trace("hm_0-sample.msr.csv");
    refused(
        &mut run_trace(dir.path(), &t, "msr", &["--device", "99"]),
        &["yielded no request", "device filter"],
    );
    assert!(!dir.path().join("out.json").exists());
}

#[test]
fn a_sweep_of_a_million_runs_is_refused_before_anything_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let values = |n: usize| {
        (0..n)
            .map(|i| format!("\"{{pages={}}}\"", 64 + i))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let spec = format!(
        "experiment = \"huge\"\nworkloads = [\"spd/hm_0\"]\nbaseline = \"a\"\n\
         [[scheme]]\nname = \"a\"\nset = []\n\
         [[param]]\nkey = \"buffer.capacity\"\nvalues = [{}]\n\
         [[param]]\nkey = \"buffer.evict_pages\"\nvalues = [{}]\n",
        values(1000),
        (1..=1000)
            .map(|i| i.to_string())
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let path = dir.path().join("huge.toml");
    std::fs::write(&path, spec).unwrap();
    let out = dir.path().join("out");
    let err = refused(
        bin().arg("sweep").arg(&path).arg("--out").arg(&out),
        &["1000000 runs", "--max-runs 10000"],
    );
    assert!(!out.exists(), "{err}");
}

/// `ssdlab run` of the small preset on spd/hm_0's first `limit` requests.
fn hm0(limit: &str) -> Command {
    let mut c = bin();
    c.args([
        "run",
        "--preset",
        "small",
        "--workload",
        "spd/hm_0",
        "--limit",
        limit,
        "-q",
    ]);
    c
}

#[test]
fn a_time_scale_beyond_the_engine_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let json = d.join("out.json");
    // A small trace (its span is known before the run), a built-in
    // workload (found as the requests arrive), and a scale no gap survives.
    let t = common::real_trace("hm_0-sample.msr.csv");
    for scale in ["1e16", "2e12"] {
        refused(
            &mut run_trace(
                d,
                &t,
                "msr",
                &[
                    "--set",
                    &format!("host.time_scale={scale}"),
                    "--precondition",
                    "trace-reads",
                ],
            ),
            &["host.time_scale", "beyond 2^62 ns"],
        );
        refused(
            hm0("3000")
                .args(["--set", &format!("host.time_scale={scale}"), "--json"])
                .arg(&json),
            &["host.time_scale", "beyond 2^62 ns"],
        );
    }
    refused(
        hm0("3000").args(["--set", "host.time_scale=1.8e19"]),
        &["--set host.time_scale=1.8e19: host.time_scale:", "2^62 ns"],
    );
    assert!(!json.exists());
    // Through rerun: a record whose configuration says 1e16.
    let out = hm0("300").arg("--json").arg(&json).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let edited = std::fs::read_to_string(&json)
        .unwrap()
        .replace("\"time_scale\": 1.0", "\"time_scale\": 1e16");
    let rec = d.join("edited.json");
    std::fs::write(&rec, edited).unwrap();
    refused(
        bin().arg("rerun").arg(&rec),
        &["host.time_scale", "beyond 2^62 ns"],
    );
}

#[test]
fn a_time_series_over_its_cap_is_refused_not_cut() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    // Fewer requests than the run's checks are made every (4096): the cap
    // is checked at the end too.
    refused(
        hm0("3000")
            .args(["--set", "metrics.interval_ms=0.001", "--json"])
            .arg(&json),
        &["metrics.interval_ms", "4194304 intervals"],
    );
    assert!(!json.exists());
    // Four requests 10^15 ns apart: refused before the run, from the
    // trace's span (the trace is read before the run for trace-reads).
    let t = write(
        dir.path(),
        "gaps.trace",
        b"0 0 0 8 0\n1000000000000000 0 8 8 0\n2000000000000000 0 16 8 1\n3000000000000000 0 24 8 1\n",
    );
    let err = refused(
        &mut run_trace(
            dir.path(),
            &t,
            "mqsim",
            &[
                "--set",
                "metrics.interval_ms=100",
                "--precondition",
                "trace-reads",
            ],
        ),
        &["metrics.interval_ms", "by the workload's last arrival"],
    );
    assert!(!err.contains("wall time"), "{err}");
    // Without the pre-scan: at the end of the run.
    refused(
        &mut run_trace(
            dir.path(),
            &t,
            "mqsim",
            &["--set", "metrics.interval_ms=100"],
        ),
        &["metrics.interval_ms", "intervals"],
    );
    assert!(!json.exists());
}

#[test]
fn rerun_refuses_a_trace_that_is_not_a_regular_file_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let t = common::real_trace("hm_0-sample.msr.csv");
    let out = bin()
        .args(["run", "--trace"])
        .arg(&t)
        .args(["--trace-format", "msr", "--limit", "200", "-q", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let path = v["run"]["workload"]["trace"]["path"]
        .as_str()
        .unwrap()
        .to_string();
    let absolute = v["run"]["workload"]["trace"]["absolute_path"]
        .as_str()
        .unwrap()
        .to_string();
    // The rerun opens the absolute path the run recorded.
    let zero = std::fs::read_to_string(&json)
        .unwrap()
        .replace(
            &format!("\"path\": {}", serde_json::to_string(&path).unwrap()),
            "\"path\": \"/dev/zero\"",
        )
        .replace(
            &format!(
                "\"absolute_path\": {}",
                serde_json::to_string(&absolute).unwrap()
            ),
            "\"absolute_path\": \"/dev/zero\"",
        );
    assert!(zero.contains("/dev/zero"));
    let rec = dir.path().join("zero.json");
    std::fs::write(&rec, zero).unwrap();
    refused(
        bin().arg("rerun").arg(&rec),
        &["/dev/zero: not a regular file"],
    );
    // A record with a bad seed says which field is bad.
    v["run"]["seed"] = serde_json::json!(-1);
    std::fs::write(&rec, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    refused(
        bin().arg("rerun").arg(&rec),
        &["run.seed: invalid value: integer `-1`, expected u64"],
    );
}

#[test]
fn inputs_larger_than_their_limit_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 5 MB of TOML comments: a configuration, a profile, a sweep spec.
    let big = write(d, "big.toml", &b"# x\n".repeat(5 << 18));
    refused(
        bin()
            .args(["run", "--workload", "spd/hm_0", "--config"])
            .arg(&big),
        &["big.toml: larger than 4 MiB, the most a drive configuration may be"],
    );
    refused(
        bin().args(["run", "--synthetic"]).arg(&big),
        &["big.toml: larger than 4 MiB, the most a workload profile may be"],
    );
    refused(
        bin().arg("sweep").arg(&big).arg("--out").arg(d.join("o")),
        &["big.toml: larger than 4 MiB, the most a sweep spec may be"],
    );
    // A saved result of 3 GiB (sparse: nothing is written) for rerun.
    let huge = d.join("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    refused(
        bin().arg("rerun").arg(&huge),
        &["huge.json: 3221225472 bytes, larger than 2 GiB, the most a saved result may be"],
    );
    // A reorder window beyond what a reader holds.
    let t = common::real_trace("hm_0-sample.msr.csv");
    refused(
        &mut run_trace(d, &t, "msr", &["--sort", "100000000000"]),
        &["reorder window", "4194304"],
    );
}

#[test]
fn a_file_name_too_long_is_refused_before_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("long.toml");
    std::fs::write(
        &spec,
        format!(
            "experiment = \"{}\"\nworkloads = [\"spd/hm_0\"]\nlimit = 300\nbaseline = \"a\"\n\
             [[scheme]]\nname = \"a\"\nset = []\n",
            "e".repeat(300)
        ),
    )
    .unwrap();
    let err = refused(
        bin()
            .arg("sweep")
            .arg(&spec)
            .arg("--out")
            .arg(dir.path().join("out")),
        &["bytes long, more than the 255"],
    );
    assert!(!err.contains("[1/1]"), "a run was made first: {err}");
    // The same for --json.
    let err = refused(
        hm0("300")
            .arg("--json")
            .arg(dir.path().join(format!("{}.json", "j".repeat(300)))),
        &["--json", "more than the 255"],
    );
    assert!(!err.contains("wall time"), "{err}");
}

#[test]
fn overrides_holding_a_line_break_are_refused() {
    refused(
        hm0("10").args(["--set", "name=\"x\"\nseed=99"]),
        &["--set name=\"x\"\\nseed=99: name: the value holds a line break"],
    );
}

#[test]
fn wrong_types_in_overrides_name_the_key() {
    refused(
        hm0("10").args(["--set", "seed=-1"]),
        &["--set seed=-1: seed: invalid value: integer `-1`, expected u64"],
    );
    refused(
        hm0("10").args(["--set", "host.time_scale=abc"]),
        &["host.time_scale: invalid type: string \"abc\", expected f64"],
    );
    refused(
        hm0("10").args(["--set", "gc.victim=fifo", "--set", "geometry.channels=1.5"]),
        &["--set geometry.channels=1.5: geometry.channels: invalid type: floating point"],
    );
    refused(
        hm0("10").args(["--set", "gc.victim=3"]),
        &["--set gc.victim=3: gc.victim: `gc.victim` takes a name (it is \"greedy\" now), not 3"],
    );
}

#[test]
fn report_refuses_a_malformed_results_csv() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = "experiment,preset,workload,scheme,requests,write_amplification\n\
                e,small,w,a,100,1.5\n";
    for (name, csv, needle) in [
        (
            "short row",
            format!("{good}e,small,w\n"),
            "results.csv:3: 3 fields, but the header has 6",
        ),
        (
            "open quote",
            format!("{good}e,\"small,w,a,1,1\n"),
            "results.csv:3: a quoted field is not closed",
        ),
        (
            "negative",
            format!("{good}e,small,w,a,100,-1e308\n"),
            "results.csv:3: field `write_amplification`: `-1e308` is not a non-negative number",
        ),
        (
            "not a count",
            format!("{good}e,small,w,a,1.5,1\n"),
            "results.csv:3: field `requests`: `1.5` is not a non-negative integer",
        ),
        (
            "stray quote",
            format!("{good}e,sm\"all,w,a,1,1\n"),
            "results.csv:3: a quote inside an unquoted field",
        ),
        ("no header", String::new(), "empty: no header"),
    ] {
        std::fs::write(d.join("results.csv"), csv).unwrap();
        let err = refused(bin().arg("report").arg(d), &[needle]);
        assert!(!d.join("report.html").exists(), "{name}: {err}");
    }
    std::fs::write(d.join("results.csv"), good).unwrap();
    let out = bin().arg("report").arg(d).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn nul_bytes_are_refused_and_never_printed_raw() {
    let dir = tempfile::tempdir().unwrap();
    // A NUL in MSR's hostname and response-time columns, which no field
    // parses: not text.
    for line in [
        "128166372003061629,h\0m,0,Write,4096,4096,100\n",
        "128166372003061629,hm,0,Write,4096,4096,1\x0000\n",
    ] {
        let t = write(dir.path(), "nul.csv", line.as_bytes());
        let err = refused(
            &mut run_trace(dir.path(), &t, "msr", &[]),
            &["nul.csv:1: field `text`: a NUL byte"],
        );
        assert!(!err.contains('\0'), "{err:?}");
    }
    // In an override's value, echoed in the error: escaped.
    let out = hm0("10")
        .args(["--set", "gc.victim=fi\u{1}fo\u{1b}[31m"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{1}'), "{err:?}");
}

#[test]
fn toml_errors_quote_no_line_and_name_where() {
    let dir = tempfile::tempdir().unwrap();
    // 10^6 nested arrays on one line: the error is short.
    let deep = write(
        dir.path(),
        "deep.toml",
        format!("x = {}", "[".repeat(1_000_000)).as_bytes(),
    );
    let err = refused(
        bin()
            .args(["run", "--workload", "spd/hm_0", "--config"])
            .arg(&deep),
        &["deep.toml", "line 1"],
    );
    assert!(err.len() < 2000, "{} bytes of error", err.len());
    // A validation error in a file names its line.
    let cfg = text(
        &bin()
            .args(["presets", "show", "small"])
            .output()
            .unwrap()
            .stdout,
    )
    .replace("blocks_per_plane = 512", "blocks_per_plane = 0");
    assert!(cfg.contains("blocks_per_plane = 0"), "{cfg}");
    let line = cfg
        .lines()
        .position(|l| l.starts_with("blocks_per_plane"))
        .unwrap()
        + 1;
    let f = write(dir.path(), "zero.toml", cfg.as_bytes());
    refused(
        bin()
            .args(["run", "--workload", "spd/hm_0", "--config"])
            .arg(&f),
        &[&format!(
            "geometry.blocks_per_plane: must be at least 1 (line {line})"
        )],
    );
    // A sweep spec naming a file that is not a configuration: its text is
    // not quoted.
    let secret = write(dir.path(), "secret.txt", b"root:SECRET-HASH:0:0\n");
    let spec = write(
        dir.path(),
        "spec.toml",
        format!(
            "experiment = \"e\"\nconfig = [{:?}]\nworkloads = [\"spd/hm_0\"]\nbaseline = \"a\"\n[[scheme]]\nname = \"a\"\nset = []\n",
            secret.display().to_string()
        )
        .as_bytes(),
    );
    let err = refused(
        bin()
            .arg("sweep")
            .arg(&spec)
            .arg("--out")
            .arg(dir.path().join("o")),
        &["secret.txt", "line 1"],
    );
    assert!(!err.contains("SECRET-HASH"), "{err}");
}
