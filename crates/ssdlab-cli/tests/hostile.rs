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
    refused(
        &mut run_trace(d, &t, "mqsim", &["--set", "host.replays=3"]),
        &["pass 2 of 3 (host.replays)", "2^62"],
    );
    assert!(!d.join("out.json").exists());
}

#[test]
fn a_ten_gigabyte_line_is_refused_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = run_trace(dir.path(), Path::new("/dev/stdin"), "msr", &[])
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
