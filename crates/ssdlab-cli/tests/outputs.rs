//! Outputs that are not regular files: every output option of every
//! command writes a character device, a FIFO (to its reader) or a link to
//! a descriptor in place, refuses a block device and a directory, and
//! never replaces any of them; a link to a regular file stays a link.
//!
//! Device nodes are made with mknod(2), which needs root: without it those
//! cases are skipped, saying so (FIFOs and links are tried by everyone).

mod common;

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{bin, text};

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A device node at `path` (`kind` S_IFCHR or S_IFBLK), or false without
/// the right to make one.
fn mknod(path: &Path, kind: libc::mode_t, major: u32, minor: u32) -> bool {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid path and a device number.
    let rc = unsafe { libc::mknod(c.as_ptr(), kind | 0o666, libc::makedev(major, minor)) };
    rc == 0
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

fn kind(path: &Path) -> String {
    let t = std::fs::symlink_metadata(path).unwrap().file_type();
    if t.is_symlink() {
        "link".into()
    } else if t.is_char_device() {
        "character device".into()
    } else if t.is_block_device() {
        "block device".into()
    } else if t.is_fifo() {
        "fifo".into()
    } else if t.is_file() {
        "regular file".into()
    } else {
        "other".into()
    }
}

/// Every command's output options, as (name, arguments with `OUT` where
/// the output goes). `dir` holds the inputs they need.
fn commands(dir: &Path) -> Vec<(String, Vec<String>)> {
    let trace = common::real_trace("hm_0-sample.msr.csv");
    let trace = trace.to_str().unwrap();
    let run = "run --preset small --workload spd/hm_0 --limit 300 -q";
    let sweep_dir = dir.join("sweep");
    let record = dir.join("record.json");
    let d = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    let mut v = vec![
        ("run --json".into(), d(&format!("{run} --json OUT"))),
        (
            "run --histogram".into(),
            d(&format!("{run} --histogram OUT")),
        ),
        (
            "run --latency-log".into(),
            d(&format!("{run} --latency-log OUT")),
        ),
        (
            "rerun --json".into(),
            d(&format!("rerun {} --json OUT", record.display())),
        ),
        (
            "trace stats --json".into(),
            d(&format!(
                "trace stats {trace} --trace-format msr --json OUT"
            )),
        ),
        (
            "trace convert".into(),
            d(&format!(
                "trace convert {trace} OUT --trace-format msr --to mqsim"
            )),
        ),
        (
            "trace generate".into(),
            d("trace generate --workload spd/hm_0 --scale 0.005 --to mqsim --out OUT"),
        ),
        (
            "report --out".into(),
            d(&format!("report {} --out OUT", sweep_dir.display())),
        ),
    ];
    v.push((
        "hdi --json".into(),
        d(&format!(
            "hdi --trace {trace} --trace-format msr --schemes mbf --json OUT"
        )),
    ));
    v
}

/// The inputs of [`commands`]: a run's record and a sweep's directory.
fn prepare(dir: &Path) {
    let record = dir.join("record.json");
    let out = bin()
        .args(["run", "--preset", "small", "--workload", "spd/hm_0"])
        .args(["--limit", "300", "-q", "--json"])
        .arg(&record)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let spec = dir.join("spec.toml");
    std::fs::write(
        &spec,
        "experiment = \"o\"\nworkloads = [\"spd/hm_0\"]\nlimit = 300\nbaseline = \"a\"\n\
         [[scheme]]\nname = \"a\"\nset = []\n",
    )
    .unwrap();
    let out = bin()
        .arg("sweep")
        .arg(&spec)
        .arg("--out")
        .arg(dir.join("sweep"))
        .args(["-q", "--jobs", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

fn with_out(args: &[String], out: &Path) -> Command {
    let mut c = bin();
    for a in args {
        if a == "OUT" {
            c.arg(out);
        } else {
            c.arg(a);
        }
    }
    c
}

/// Run with a deadline (a command that waits forever fails the test).
fn finish(mut child: std::process::Child, what: &str) -> (Option<i32>, String) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return (status.code(), err);
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("{what}: still running after 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn fifos_and_links_to_descriptors_are_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    prepare(dir.path());
    for (name, args) in commands(dir.path()) {
        // A FIFO with a reader: the reader gets the output, the FIFO stays.
        let fifo = dir.path().join("fifo");
        let _ = std::fs::remove_file(&fifo);
        mkfifo(&fifo);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(&fifo).unwrap())
        };
        let child = with_out(&args, &fifo)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (code, err) = finish(child, &name);
        assert_eq!(code, Some(0), "{name} into a FIFO: {err}");
        let got = reader.join().unwrap();
        assert!(!got.is_empty(), "{name}: the FIFO's reader got nothing");
        assert_eq!(kind(&fifo), "fifo", "{name}");

        // A link to this process's standard output: written there.
        let link = dir.path().join("stdout-link");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
        let out = with_out(&args, &link).output().unwrap();
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        assert!(!out.stdout.is_empty(), "{name}: nothing on the descriptor");
        assert_eq!(kind(&link), "link", "{name}");
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            PathBuf::from("/proc/self/fd/1")
        );

        // A directory is refused before anything is done.
        let out = with_out(&args, dir.path()).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{name} into a directory");
        assert!(
            text(&out.stderr).contains("is a directory"),
            "{name}: {}",
            text(&out.stderr)
        );
    }
    // Nothing else was left in the directory (temporary files).
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".ssdlab-"))
        .collect();
    left.sort();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn device_nodes_are_written_in_place_or_refused_never_replaced() {
    if !is_root() {
        println!(
            "skipped: making device nodes (mknod) needs root, and this test does not run as root"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    prepare(dir.path());
    for (name, args) in commands(dir.path()) {
        // /dev/null's twin takes everything; /dev/full's fails every write.
        for (node, minor, ok) in [("null", 3, true), ("full", 7, false)] {
            let p = dir.path().join(node);
            let _ = std::fs::remove_file(&p);
            assert!(mknod(&p, libc::S_IFCHR, 1, minor), "mknod as root");
            let out = with_out(&args, &p).output().unwrap();
            let err = text(&out.stderr);
            assert!(!err.contains("panicked"), "{name} into {node}: {err}");
            if ok {
                assert!(out.status.success(), "{name} into {node}: {err}");
            } else {
                assert_eq!(out.status.code(), Some(1), "{name} into {node}: {err}");
                assert!(err.contains("No space left on device"), "{name}: {err}");
            }
            assert_eq!(kind(&p), "character device", "{name} replaced {node}");
        }
        // A block device is refused before the work.
        let b = dir.path().join("block");
        let _ = std::fs::remove_file(&b);
        assert!(mknod(&b, libc::S_IFBLK, 7, 200), "mknod as root");
        let out = with_out(&args, &b).output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{name} into a block device: {err}"
        );
        assert!(err.contains("is a block device"), "{name}: {err}");
        assert!(
            !err.contains("wall time"),
            "{name} ran before refusing: {err}"
        );
        assert_eq!(kind(&b), "block device", "{name} replaced a block device");
    }
}

#[test]
fn a_link_to_a_regular_file_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    std::fs::write(&real, "old").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = bin()
        .args([
            "run",
            "--preset",
            "small",
            "--workload",
            "spd/hm_0",
            "--limit",
            "300",
            "-q",
        ])
        .arg("--json")
        .arg(&link)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(kind(&link), "link");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    assert_eq!(v["requests"], 300);
}
