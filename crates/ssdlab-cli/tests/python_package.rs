//! The Python package (`python/`): built and installed into a fresh virtual
//! environment (`pip install "./python[test]"`, maturin building the native
//! module), then its own tests run (pytest: runs, errors, catalogues, a
//! local sweep against the CLI's files, a sweep on a two-worker Dask
//! LocalCluster compared cell by cell and byte by byte, shards merged).
//! Needs `python3` with `venv` and the package registries (PyPI); without
//! them the test fails saying so.

use std::path::{Path, PathBuf};
use std::process::Command;

fn python() -> String {
    std::env::var("SSDLAB_PYTHON").unwrap_or_else(|_| "python3".into())
}

fn check(what: &str, cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({:?}):\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn python_package_builds_and_passes_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let venv: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pyvenv");
    if !venv.join("bin/python").exists() {
        check(
            "creating a virtual environment (python3 -m venv; set SSDLAB_PYTHON for another interpreter)",
            Command::new(python()).args(["-m", "venv"]).arg(&venv),
        );
    }
    let py = venv.join("bin/python");
    check(
        "pip install ./python[test] (builds the native module with maturin)",
        Command::new(&py)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .arg(format!("{}[test]", root.join("python").display())),
    );
    check(
        "pytest python/tests",
        Command::new(&py)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(root.join("python/tests"))
            // import the installed package, not the source directory
            .current_dir(std::env::temp_dir()),
    );
}
