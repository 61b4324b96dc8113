//! Saved drive states from the command line: `ssdlab run --save-state` /
//! `--load-state` give the result of aging in the same process, byte for
//! byte; every kind of bad state file is refused naming the file and what
//! is wrong; a sweep that ages each drive once (or starts from a named
//! state) gives the results of aging per run.

use std::path::Path;
use std::process::{Command, Output};

fn ssdlab(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("failed to start the ssdlab binary")
}

fn describe(out: &Output) -> String {
    format!(
        "exit: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn ok(out: Output) -> Output {
    assert!(out.status.success(), "{}", describe(&out));
    out
}

/// Fails (exit 1 or 2, no panic) with every needle in stderr.
fn refused(out: Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(1) | Some(2)),
        "{}",
        describe(&out)
    );
    assert!(!err.contains("panicked"), "{}", describe(&out));
    for n in needles {
        assert!(err.contains(n), "missing `{n}`\n{}", describe(&out));
    }
}

const DRIVE: &[&str] = &[
    "--preset",
    "small",
    "--set",
    "geometry.blocks_per_plane=64",
    "--set",
    "geometry.pages_per_block=32",
    "--seed",
    "3",
];

fn run_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut v: Vec<&str> = vec!["run", "-q", "--workload", "spd/hm_0", "--limit", "4000"];
    v.extend_from_slice(DRIVE);
    v.extend_from_slice(extra);
    v
}

/// Save and load on several drives and agings, with and without the
/// checker: the loaded run's JSON is the aging run's, byte for byte.
#[test]
fn a_loaded_state_gives_the_aging_runs_result() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (i, (pre, sets)) in [
        ("fill:0.95:0.8+trace-reads", vec![]),
        ("fill:0.95:0.8+trace-reads", vec!["--check"]),
        ("trace-writes", vec!["--scheme", "spd"]),
        (
            "age:0.6+trace-reads",
            vec![
                "--set",
                "ftl.mapping=\"fast\"",
                "--set",
                "ftl.fast_log_units=4",
            ],
        ),
        (
            "age:0.6+trace-reads",
            vec!["--scheme", "dvpftl", "--set", "ftl.fast_log_units=4"],
        ),
        ("trace-sequence", vec!["--set", "ftl.mapping=\"dftl\""]),
    ]
    .into_iter()
    .enumerate()
    {
        let (a, b, s) = (
            format!("a{i}.json"),
            format!("b{i}.json"),
            format!("s{i}.state"),
        );
        let mut args = run_args(&sets);
        args.extend(["--precondition", pre, "--json", &a, "--save-state", &s]);
        ok(ssdlab(d, &args));
        let mut args = run_args(&sets);
        args.extend(["--load-state", &s, "--json", &b]);
        ok(ssdlab(d, &args));
        let (ja, jb) = (
            std::fs::read(d.join(&a)).unwrap(),
            std::fs::read(d.join(&b)).unwrap(),
        );
        assert!(ja == jb, "{pre} {sets:?}: the loaded run's JSON differs");
    }
    // --save-only saves the same state and runs nothing.
    let mut args = run_args(&[]);
    args.extend([
        "--precondition",
        "fill:0.95:0.8+trace-reads",
        "--save-state",
        "only.state",
        "--save-only",
    ]);
    ok(ssdlab(d, &args));
    // A result it would not write is refused, not skipped.
    args.extend(["--json", "none.json"]);
    refused(ssdlab(d, &args), &["--save-only", "--json"]);
    assert!(!d.join("none.json").exists());
    assert_eq!(
        std::fs::read(d.join("only.state")).unwrap(),
        std::fs::read(d.join("s0.state")).unwrap()
    );
}

/// Every bad state is refused, naming the file and what is wrong; nothing
/// runs from it.
#[test]
fn bad_states_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut args = run_args(&[]);
    args.extend([
        "--precondition",
        "fill:0.95:0.8+trace-reads",
        "--save-state",
        "good.state",
        "--save-only",
    ]);
    ok(ssdlab(d, &args));
    let good = std::fs::read(d.join("good.state")).unwrap();
    let load = |file: &str, extra: &[&str]| {
        let mut args = run_args(extra);
        args.extend(["--load-state", file]);
        ssdlab(d, &args)
    };
    let write = |name: &str, bytes: &[u8]| std::fs::write(d.join(name), bytes).unwrap();

    write("text.state", b"name = \"not a state\"\n");
    refused(
        load("text.state", &[]),
        &["text.state", "not an ssdlab drive state"],
    );
    write("empty.state", b"");
    refused(
        load("empty.state", &[]),
        &["empty.state", "not an ssdlab drive state"],
    );

    let mut newer = good.clone();
    newer[8..12].copy_from_slice(&2u32.to_le_bytes());
    write("newer.state", &newer);
    refused(
        load("newer.state", &[]),
        &[
            "newer.state",
            "format version 2",
            "reads version 1",
            "newer",
        ],
    );
    let mut older = good.clone();
    older[8..12].copy_from_slice(&0u32.to_le_bytes());
    write("older.state", &older);
    refused(
        load("older.state", &[]),
        &["older.state", "version 0", "older"],
    );

    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x40;
    write("flipped.state", &flipped);
    refused(
        load("flipped.state", &[]),
        &["flipped.state", "corrupted", "checksum"],
    );
    write("truncated.state", &good[..good.len() * 2 / 3]);
    refused(
        load("truncated.state", &[]),
        &["truncated.state", "truncated"],
    );
    write("short.state", &good[..10]);
    refused(load("short.state", &[]), &["short.state", "truncated"]);
    let mut longer = good.clone();
    longer.extend_from_slice(b"more");
    write("longer.state", &longer);
    refused(
        load("longer.state", &[]),
        &["longer.state", "corrupted", "4 bytes follow its checksum"],
    );

    refused(
        load("good.state", &["--set", "ftl.mapping=\"dftl\""]),
        &[
            "good.state",
            "`ftl.mapping`",
            "\"page\" in the state",
            "\"dftl\" here",
        ],
    );
    refused(
        load("good.state", &["--set", "geometry.blocks_per_plane=128"]),
        &[
            "good.state",
            "`geometry.blocks_per_plane` is 64 in the state but 128 here",
        ],
    );
    refused(
        load("good.state", &["--check"]),
        &["good.state", "`check.enabled`"],
    );
    // The workload aging read (trace-reads) differs.
    let mut args: Vec<&str> = vec!["run", "-q", "--workload", "spd/prn_0", "--limit", "4000"];
    args.extend_from_slice(DRIVE);
    args.extend(["--load-state", "good.state"]);
    refused(
        ssdlab(d, &args),
        &["good.state", "another workload", "spd/hm_0"],
    );
    // Not both ways of aging.
    refused(
        load("good.state", &["--precondition", "none"]),
        &["--load-state", "--precondition"],
    );
    refused(load("missing.state", &[]), &["missing.state"]);
    // Larger than its drive's state can be: refused before it is read whole.
    let big = std::fs::File::create(d.join("big.state")).unwrap();
    big.set_len(64 << 20).unwrap();
    refused(
        load("big.state", &[]),
        &["big.state", "larger than", "the most a drive state may be"],
    );
    // A run not aged by the timing settings it does not read is accepted.
    ok(load("good.state", &["--set", "sched.policy=\"fcfs\""]));
}

const SPEC: &str = r#"experiment = "state"
presets = ["small"]
workloads = ["spd/hm_0", "spd/prn_0"]
limit = 3000
seed = 3
baseline = "greedy"
[[scheme]]
name = "greedy"
set = ["geometry.blocks_per_plane=64", "geometry.pages_per_block=32"]
[[scheme]]
name = "fcfs"
set = ["geometry.blocks_per_plane=64", "geometry.pages_per_block=32", "sched.policy=\"fcfs\""]
[[param]]
key = "buffer.capacity"
values = ["{pages=256}", "{pages=1024}"]
"#;

fn sweep(d: &Path, spec: &str, out: &str) -> Vec<u8> {
    std::fs::write(d.join(format!("{out}.toml")), spec).unwrap();
    ok(ssdlab(
        d,
        &[
            "sweep",
            &format!("{out}.toml"),
            "--out",
            out,
            "-q",
            "--jobs",
            "2",
        ],
    ));
    std::fs::read(d.join(out).join("results.csv")).unwrap()
}

/// A sweep ages each drive once for the runs that age it alike, or starts
/// from a named state: the same results.csv as aging per run.
#[test]
fn sweeps_from_one_state_give_the_results_of_aging_per_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for pre in ["fill:0.95:0.8+trace-reads", "fill:0.9:0.7"] {
        let spec = format!("precondition = \"{pre}\"\n{SPEC}");
        let once = sweep(d, &spec, "once");
        let each = sweep(d, &format!("age_once = false\n{spec}"), "each");
        assert!(once == each, "{pre}: aging once changed results.csv");
        assert_eq!(
            String::from_utf8_lossy(&once).lines().count(),
            9,
            "8 runs and a header"
        );
    }
    // A named state (its aging reads no workload: one state for both).
    let mut args: Vec<&str> = vec!["run", "-q", "--workload", "spd/hm_0", "--limit", "3000"];
    args.extend_from_slice(DRIVE);
    args.extend([
        "--precondition",
        "fill:0.9:0.7",
        "--save-state",
        "d.state",
        "--save-only",
    ]);
    ok(ssdlab(d, &args));
    let spec = format!("precondition = \"fill:0.9:0.7\"\n{SPEC}");
    let each = sweep(d, &format!("age_once = false\n{spec}"), "each2");
    let named = sweep(
        d,
        &format!("states = {{ small = \"d.state\" }}\n{spec}"),
        "named",
    );
    assert!(named == each, "the named state changed results.csv");
    // A named state of another aging or drive is refused before any run.
    std::fs::write(
        d.join("bad.toml"),
        format!("precondition = \"fill:0.95:0.8\"\nstates = {{ small = \"d.state\" }}\n{SPEC}"),
    )
    .unwrap();
    refused(
        ssdlab(d, &["sweep", "bad.toml", "--out", "bad", "-q"]),
        &["bad.toml", "`states`", "d.state", "`precondition`"],
    );
    std::fs::write(
        d.join("bad2.toml"),
        format!("states = {{ large = \"d.state\" }}\n{SPEC}"),
    )
    .unwrap();
    refused(
        ssdlab(d, &["sweep", "bad2.toml", "--out", "bad2", "-q"]),
        &["`states`", "`large` is not a drive"],
    );
}
