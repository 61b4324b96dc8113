//! Interrupted work is kept: SIGINT/SIGTERM during `run` writes the partial
//! result (marked `"partial": true`) and exits non-zero, also while the
//! run waits on a trace pipe that sends nothing or while it preconditions;
//! during a sweep the finished runs stay, and `--resume` finishes the sweep
//! with results byte-identical to an uninterrupted one, running again (and
//! saying so) any saved run that was cut short or edited; an interrupted
//! trace conversion leaves nothing behind. Every wait here has a deadline,
//! so an interrupt that is not seen fails the test instead of hanging it.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{bin, text};

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on our own child's pid.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, sig) };
    assert_eq!(rc, 0, "kill failed");
}

/// Wait until `ready` holds (polling), at most a minute.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn spawn(cmd: &mut Command) -> Child {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("failed to start the ssdlab binary")
}

#[test]
fn an_interrupted_run_writes_its_partial_result_and_fails() {
    for (sig, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("r.json");
        // Long enough that it is still running when the signal comes.
        let child = spawn(bin().args([
            "run",
            "--workload",
            "spd/hm_0",
            "--set",
            "host.replays=1000",
            // no pre-scan of the workload: the signal comes during the run
            "--precondition",
            "none",
            "--json",
            json.to_str().unwrap(),
            "-q",
        ]));
        std::thread::sleep(Duration::from_millis(700));
        signal(&child, sig);
        let out = child.wait_with_output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{name}: {err}");
        assert!(
            err.contains("interrupted at simulated time"),
            "{name}: {err}"
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(v["partial"], true, "{name}");
        assert!(v["requests"].as_u64().unwrap() > 0, "{name}");
        assert!(v["simulated_ns"].as_u64().unwrap() > 0, "{name}");
    }
}

const SPEC: &str = r#"experiment = "resume"
presets = ["small"]
workloads = ["spd/hm_0", "spd/prn_0"]
precondition = "fill:0.9:0.8"
limit = 150000
seed = 3
baseline = "greedy"
[[scheme]]
name = "greedy"
set = []
[[scheme]]
name = "fifo"
set = ["gc.victim=\"fifo\""]
[[param]]
key = "buffer.capacity"
values = ["{pages=256}", "{pages=1024}"]
"#;

fn sweep(spec: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = bin();
    c.arg("sweep")
        .arg(spec)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "1"])
        .args(extra);
    c
}

fn saved_runs(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir.join("runs"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".json"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn an_interrupted_sweep_resumes_to_identical_results() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.toml");
    std::fs::write(&spec, SPEC).unwrap();
    let whole = dir.path().join("whole");
    let out = sweep(&spec, &whole, &[]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let runs = saved_runs(&whole);
    assert_eq!(runs.len(), 8);

    let cut = dir.path().join("cut");
    let child = spawn(&mut sweep(&spec, &cut, &[]));
    wait_for("two finished runs", || saved_runs(&cut).len() >= 2);
    signal(&child, libc::SIGINT);
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted after") && err.contains("--resume"),
        "{err}"
    );
    let kept = saved_runs(&cut);
    assert!(kept.len() >= 2 && kept.len() < 8, "{kept:?}\n{err}");
    assert!(
        !cut.join("results.csv").exists(),
        "no results from half a sweep"
    );

    let out = sweep(&spec, &cut, &["--resume"]).output().unwrap();
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!("{} of 8 runs reused", kept.len())),
        "{err}"
    );
    for f in ["results.csv", "summary.md"] {
        assert_eq!(
            std::fs::read(whole.join(f)).unwrap(),
            std::fs::read(cut.join(f)).unwrap(),
            "{f} differs after --resume"
        );
    }
    assert_eq!(saved_runs(&cut), runs);
    for r in &runs {
        assert_eq!(
            std::fs::read(whole.join("runs").join(r)).unwrap(),
            std::fs::read(cut.join("runs").join(r)).unwrap(),
            "runs/{r} differs after --resume"
        );
    }

    // A changed spec does not reuse runs it no longer describes.
    std::fs::write(&spec, SPEC.replace("seed = 3", "seed = 4")).unwrap();
    let out = sweep(&spec, &cut, &["--resume"]).output().unwrap();
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("runs reused"), "{err}");
    assert!(
        err.contains("not reused, it was made for another drive"),
        "{err}"
    );
}

/// Wait for `child` at most `secs` seconds (then kill it and fail).
fn wait_at_most(mut child: Child, secs: u64, what: &str) -> std::process::Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            panic!("{what}: still running {secs} s after the interrupt");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// A FIFO this process holds open for writing (never closed while the
/// returned file lives): a trace pipe that never ends.
fn open_pipe(dir: &Path, lines: &str) -> (std::path::PathBuf, std::fs::File) {
    use std::io::Write;
    let fifo = dir.join("trace.pipe");
    mkfifo(&fifo);
    // Opening for reading and writing does not wait for a reader.
    let mut w = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .unwrap();
    w.write_all(lines.as_bytes()).unwrap();
    (fifo, w)
}

const MSR: &str =
    "128166372003061629,hm,0,Write,4096,4096,100\n128166372003071629,hm,0,Read,4096,4096,100\n";

#[test]
fn a_run_waiting_on_a_trace_pipe_stops_at_the_first_interrupt() {
    for (sig, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
        let dir = tempfile::tempdir().unwrap();
        let (fifo, _writer) = open_pipe(dir.path(), MSR);
        let json = dir.path().join("r.json");
        let child = spawn(
            bin()
                .args(["run", "--trace-format", "msr", "-q", "--trace"])
                .arg(&fifo)
                // A pipe is read once: no pre-scan.
                .args(["--precondition", "none", "--json"])
                .arg(&json),
        );
        std::thread::sleep(Duration::from_millis(500));
        signal(&child, sig);
        let out = wait_at_most(child, 10, name);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{name}: {err}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(v["partial"], true, "{name}");
    }
}

#[test]
fn preconditioning_stops_at_the_first_interrupt() {
    // The steady state of a 512 GiB drive takes minutes to reach; its fill,
    // seconds (on several threads).
    for (pre, after_ms) in [
        ("trace-sequence+trace-writes", 2500),
        ("fill:0.95:0.8", 300),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("r.json");
        let child = spawn(
            bin()
                .args([
                    "run",
                    "--preset",
                    "spd-512g",
                    "--workload",
                    "spd/hm_0",
                    "--limit",
                    "3000",
                ])
                .args(["--precondition", pre, "-q", "--json"])
                .arg(&json),
        );
        std::thread::sleep(Duration::from_millis(after_ms));
        signal(&child, libc::SIGTERM);
        let out = wait_at_most(child, 30, pre);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{pre}: {err}");
        assert!(err.contains("interrupted while"), "{pre}: {err}");
        assert!(!json.exists(), "{pre}: no result without a run");
    }
}

#[test]
fn an_interrupted_conversion_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let (fifo, _writer) = open_pipe(dir.path(), MSR);
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let target = out_dir.join("converted.mqsim");
    let child = spawn(
        bin()
            .args(["trace", "convert", "--trace-format", "msr", "--to", "mqsim"])
            .arg(&fifo)
            .arg(&target),
    );
    // Converting: its temporary output exists.
    wait_for("the temporary output", || {
        std::fs::read_dir(&out_dir).unwrap().count() > 0
    });
    signal(&child, libc::SIGINT);
    let out = wait_at_most(child, 10, "trace convert");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let left: Vec<_> = std::fs::read_dir(&out_dir).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}\n{err}");
}

#[test]
fn a_command_that_does_not_stop_where_it_is_ends_at_once_and_cleans_up() {
    // `report` keeps nothing of its work: the first interrupt ends it. A
    // FIFO output with no reader makes it wait where the signal finds it.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("results.csv"),
        "experiment,preset,workload,scheme,requests\ne,small,w,a,1\n",
    )
    .unwrap();
    let fifo = dir.path().join("page.pipe");
    mkfifo(&fifo);
    let child = spawn(bin().arg("report").arg(dir.path()).arg("--out").arg(&fifo));
    std::thread::sleep(Duration::from_millis(500));
    signal(&child, libc::SIGINT);
    let out = wait_at_most(child, 10, "report");
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
}

const SMALL_SPEC: &str = r#"experiment = "two"
presets = ["small"]
workloads = ["spd/hm_0"]
limit = 3000
seed = 3
baseline = "greedy"
[[scheme]]
name = "greedy"
set = []
[[scheme]]
name = "fifo"
set = ["gc.victim=\"fifo\""]
"#;

#[test]
fn resume_runs_again_what_was_cut_short_or_edited() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.toml");
    std::fs::write(&spec, SMALL_SPEC).unwrap();
    let out_dir = dir.path().join("out");
    let out = sweep(&spec, &out_dir, &[]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let csv = std::fs::read(out_dir.join("results.csv")).unwrap();
    let runs = saved_runs(&out_dir);
    assert_eq!(runs.len(), 2);
    let (a, b) = (
        out_dir.join("runs").join(&runs[0]),
        out_dir.join("runs").join(&runs[1]),
    );
    let (a_text, b_text) = (
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap(),
    );
    // One run's write amplification edited, the other cut in half.
    let edited = a_text.replacen(
        "\"write_amplification\": ",
        "\"write_amplification\": -1e308, \"x\": ",
        1,
    );
    assert_ne!(edited, a_text);
    std::fs::write(&a, edited).unwrap();
    std::fs::write(&b, &b_text[..b_text.len() / 2]).unwrap();
    let out = sweep(&spec, &out_dir, &["--resume"]).output().unwrap();
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("its content does not match its checksum"),
        "{err}"
    );
    assert!(err.contains("does not read as a saved run"), "{err}");
    assert!(!err.contains("runs reused"), "{err}");
    assert_eq!(std::fs::read(out_dir.join("results.csv")).unwrap(), csv);
    assert_eq!(std::fs::read_to_string(&a).unwrap(), a_text);
    assert_eq!(std::fs::read_to_string(&b).unwrap(), b_text);
    // Untouched, they are reused.
    let out = sweep(&spec, &out_dir, &["--resume"]).output().unwrap();
    let err = text(&out.stderr);
    assert!(err.contains("2 of 2 runs reused"), "{err}");
}

#[test]
fn a_second_sweep_into_the_same_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.toml");
    std::fs::write(&spec, SPEC).unwrap();
    let out_dir = dir.path().join("out");
    let first = spawn(&mut sweep(&spec, &out_dir, &[]));
    wait_for("the first sweep's lock", || {
        out_dir.join(".ssdlab-lock").exists()
    });
    let out = sweep(&spec, &out_dir, &[]).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("another ssdlab command is writing this directory now"),
        "{err}"
    );
    signal(&first, libc::SIGINT);
    let out = wait_at_most(first, 60, "the first sweep");
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
}
