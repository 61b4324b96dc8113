//! Helpers shared by the binary's integration tests: run `ssdlab`, find the
//! library's fixtures, and describe a run when an assertion fails.

#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ssdlab/tests/fixtures")
}

pub fn fixture(name: &str) -> PathBuf {
    let p = fixtures().join(name);
    assert!(p.exists(), "missing fixture {}", p.display());
    p
}

/// A real trace excerpt in the repository's `fixtures/traces/` (origins and
/// licences in its README); it must exist.
pub fn real_trace(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/traces")
        .join(name);
    assert!(p.is_file(), "missing real trace excerpt {}", p.display());
    p
}

pub fn run(args: &[&str]) -> Output {
    bin()
        .args(args)
        .output()
        .expect("failed to start the ssdlab binary")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn describe(args: &[&str], out: &Output) -> String {
    format!(
        "ssdlab {}\nexit: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        args.join(" "),
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    )
}

/// Run, expect success; returns (stdout, stderr).
pub fn ok(args: &[&str]) -> (String, String) {
    let out = run(args);
    assert!(
        out.status.success(),
        "expected success:\n{}",
        describe(args, &out)
    );
    (text(&out.stdout), text(&out.stderr))
}

/// Golden result of a reproduction: run `ssdlab <args> --out DIR` and
/// compare the SHA-256 of DIR/results.csv with the first word of
/// `tests/golden/<digest_file>`.
pub fn assert_results_digest(args: &[&str], digest_file: &str) {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--out", out.to_str().unwrap()]);
    ok(&all);
    let csv = std::fs::read(out.join("results.csv")).unwrap();
    let got: String = Sha256::digest(&csv)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let want = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(digest_file),
    )
    .unwrap();
    let want = want.split_whitespace().next().unwrap();
    assert_eq!(got, want, "{} results.csv changed", args.join(" "));
}

/// A results CSV read whole (no quoted commas): its header and rows.
pub struct Csv {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Csv {
    pub fn read(path: &Path) -> Csv {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let mut lines = text
            .lines()
            .map(|l| l.split(',').map(str::to_string).collect());
        Csv {
            header: lines.next().unwrap_or_default(),
            rows: lines.collect(),
        }
    }

    /// The index of column `name`.
    pub fn col(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column `{name}` in {:?}", self.header))
    }

    /// Column `name` of `row` as a number.
    pub fn num(&self, row: &[String], name: &str) -> f64 {
        let v = &row[self.col(name)];
        v.parse()
            .unwrap_or_else(|e| panic!("column `{name}`: `{v}`: {e}"))
    }
}
