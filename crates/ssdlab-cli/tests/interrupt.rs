//! Interrupted work is kept: SIGINT/SIGTERM during `run` writes the partial
//! result (marked `"partial": true`) and exits non-zero; during a sweep the
//! finished runs stay, and `--resume` finishes the sweep with results
//! byte-identical to an uninterrupted one.

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
    assert!(
        err.contains("interrupted:") && err.contains("--resume"),
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
    assert!(!err.contains("reused"), "{err}");
}
