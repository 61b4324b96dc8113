//! The repository stands alone: no file of it reads or cites a path outside
//! it (a sibling folder of the checkout, say). `.ci/run` also runs the whole
//! test suite from a copy of the repository in an empty temporary folder;
//! this test is the quick check of the same promise, naming the file and
//! line that breaks it.

use std::path::{Path, PathBuf};

/// Path fragments that climb out of the repository from a crate, or name
/// the folder beside it.
const OUTSIDE: [&str; 2] = [concat!("..", "/shared"), concat!("../", "../../")];

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            if name.starts_with('.') && name != ".ci" || name == "target" || name == "corpus" {
                continue;
            }
            walk(&path, files);
        } else if kind.is_file() {
            files.push(path);
        }
    }
}

#[test]
fn no_file_reaches_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    walk(&root, &mut files);
    assert!(files.len() > 100, "walked only {} files", files.len());
    let mut found = Vec::new();
    for path in files {
        // text files only; binary fixtures cannot name a path
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if OUTSIDE.iter().any(|p| line.contains(p)) && !line.contains("OUTSIDE") {
                let rel = path.strip_prefix(&root).unwrap_or(&path);
                found.push(format!("{}:{}: {}", rel.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "files reaching outside the repository (copy what they need into fixtures/ with its origin; cite papers by title):\n{}",
        found.join("\n")
    );
}
