//! Paths the workload tests share: fixtures, the shared real excerpts and
//! scratch directories.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};

/// `crates/ssdlab/tests/fixtures/<rel>` (the fixtures from before the
/// workload crate was split off).
pub fn ssdlab_fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ssdlab/tests/fixtures")
        .join(rel)
}

/// This crate's `tests/fixtures/<name>`.
pub fn own_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The repository's real trace excerpts, `fixtures/traces/` (origins and
/// licences in its README).
pub fn real_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces")
}

/// A real excerpt in `fixtures/traces/`; it must exist.
pub fn real_trace(name: &str) -> PathBuf {
    let p = real_dir().join(name);
    assert!(p.is_file(), "missing real trace excerpt {}", p.display());
    p
}

/// A fresh, empty scratch directory `<group>/<test>` for files written at
/// run time.
pub fn scratch(group: &str, test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
