//! The Python package (`python/`): its native module built with cargo (the
//! debug profile, in a target directory of its own), laid beside the
//! package's Python sources, and its own tests run against it in a fresh
//! virtual environment (pytest: runs, errors, catalogues, a local sweep
//! against the CLI's files, a sweep on a two-worker Dask LocalCluster
//! compared cell by cell and byte by byte, shards merged).
//!
//! This does not build the release wheel (`pip install ./python`, maturin,
//! several minutes on two cores); the code under test is the same. Needs
//! `python3` with `venv` and the package registries (PyPI) for the
//! package's dependencies, which are read from `python/pyproject.toml`;
//! without them the test fails saying so.

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

/// The requirements `pip install "./python[test]"` would install: the
/// project's dependencies and its `test` extra, from pyproject.toml.
fn requirements(pyproject: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(pyproject).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let project = doc["project"].as_table().unwrap();
    let strings = |v: &toml::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    };
    let mut reqs = strings(&project["dependencies"]);
    reqs.extend(strings(&project["optional-dependencies"]["test"]));
    reqs
}

/// Copies the package's Python files (`*.py`, `*.pyi`, `py.typed`) from
/// `src` into `dst`.
fn copy_python_sources(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".py") || name.ends_with(".pyi") || name == "py.typed" {
            std::fs::copy(&path, dst.join(&name)).unwrap();
        }
    }
}

#[test]
fn python_package_builds_and_passes_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let venv: PathBuf = tmp.join("pyvenv");
    if !venv.join("bin/python").exists() {
        check(
            "creating a virtual environment (python3 -m venv; set SSDLAB_PYTHON for another interpreter)",
            Command::new(python()).args(["-m", "venv"]).arg(&venv),
        );
    }
    let py = venv.join("bin/python");
    check(
        "pip install of the package's dependencies (pyproject.toml: dependencies and the test extra)",
        Command::new(&py)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(requirements(&root.join("python/pyproject.toml"))),
    );

    // The native module, built as maturin would but in the debug profile. A
    // target directory of its own: the outer `cargo test` holds the lock of
    // the workspace's.
    let target = tmp.join("python-native");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    check(
        "cargo build of the native module (python/Cargo.toml)",
        Command::new(cargo)
            .args(["build", "--lib", "--manifest-path"])
            .arg(root.join("python/Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .env("PYO3_PYTHON", &py),
    );
    let stage = tmp.join("python-stage");
    let _ = std::fs::remove_dir_all(&stage);
    let package = stage.join("ssdlab");
    copy_python_sources(&root.join("python/ssdlab"), &package);
    std::fs::copy(
        target.join("debug/lib_native.so"),
        package.join("_native.abi3.so"),
    )
    .unwrap();

    check(
        "pytest python/tests",
        Command::new(&py)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(root.join("python/tests"))
            .env("PYTHONPATH", &stage)
            // import the staged package, not the source directory
            .current_dir(std::env::temp_dir()),
    );
}
