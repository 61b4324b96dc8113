//! A large result (a long time series) is written and read back as a
//! stream: `rerun` of a result of about 120 MB holds little more than its
//! own new result, far below what the old one would take held as a JSON
//! tree (several times its size).

mod common;

use std::io::Read;
use std::process::{Command, Stdio};

use common::{bin, text};

/// Run `cmd` to its end; its exit code, stdout, stderr and peak resident
/// set in bytes (its own, from wait4(2), which reaps it).
#[allow(clippy::zombie_processes)]
fn measured(cmd: &mut Command) -> (Option<i32>, String, String, u64) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("failed to start the ssdlab binary");
    let mut err_pipe = child.stderr.take().unwrap();
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        err_pipe.read_to_string(&mut s).unwrap();
        s
    });
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let err = err_reader.join().unwrap();
    let mut status = 0;
    // SAFETY: wait4 on our own child, with valid out-pointers.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, out, err, usage.ru_maxrss as u64 * 1024)
}

#[test]
fn rerun_reads_a_large_result_as_a_stream() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("big.json");
    // A time series of about 400,000 intervals of 10 µs (about 120 MB).
    let (code, _, err, run_peak) = measured(
        bin()
            .args([
                "run",
                "--preset",
                "small",
                "--workload",
                "spd/hm_0",
                "--limit",
                "30",
                "-q",
            ])
            .args(["--set", "metrics.interval_ms=0.01", "--json"])
            .arg(&json),
    );
    assert_eq!(code, Some(0), "{err}");
    let size = std::fs::metadata(&json).unwrap().len();
    assert!(size > 50 << 20, "{size} bytes");
    let (code, out, err, rerun_peak) = measured(bin().arg("rerun").arg(&json));
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("identical"), "{out}");
    println!("result {size} bytes; peak RSS: run {run_peak}, rerun {rerun_peak}");
    // The rerun holds what the run held (the new result), and little more
    // for reading the old one.
    assert!(
        rerun_peak < run_peak + (64 << 20),
        "rerun peaked at {rerun_peak} bytes for a {size}-byte result (the run at {run_peak})"
    );
    // An edited figure is found without holding the file.
    let edited =
        std::fs::read_to_string(&json)
            .unwrap()
            .replacen("\"requests\": 30", "\"requests\": 31", 1);
    std::fs::write(&json, edited).unwrap();
    let (code, out, err, _) = measured(bin().arg("rerun").arg(&json));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        out.contains("differs in `requests`"),
        "{out}\n{}",
        text(err.as_bytes())
    );
}
