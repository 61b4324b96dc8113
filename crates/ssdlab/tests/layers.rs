//! The model's modules form layers: a module imports only from its own
//! layer and the layers below it (docs/architecture.md, "Layers"). This
//! test reads every `crate::` path in `src/` (imports and paths written in
//! code, tests excepted) and fails on one that reaches a higher layer,
//! naming the file, the line and the path.
//!
//! The one name every layer may take from above is the type it extends:
//! each layer's timed behaviour is written as methods of
//! `sim::Simulator` in the layer's own files.

use std::path::{Path, PathBuf};

/// The layers, bottom to top, each with its top-level modules. Keep in
/// step with docs/architecture.md (checked below).
const LAYERS: &[(&str, &[&str])] = &[
    (
        "base",
        &[
            "addr",
            "attribution",
            "engine",
            "mem",
            "types",
            "error",
            "workload",
        ],
    ),
    ("config", &["config"]),
    ("domain", &["domain"]),
    ("flash", &["flash"]),
    ("metrics", &["metrics"]),
    ("sched", &["sched"]),
    ("gc", &["gc"]),
    ("ftl", &["ftl"]),
    ("buffer", &["buffer"]),
    ("hostif", &["hostif"]),
    ("host", &["host"]),
    ("scheme", &["scheme"]),
    ("sim", &["sim", "validate"]),
];

/// Items the crate root re-exports, by the module that defines them.
const ROOT_ITEMS: &[(&str, &str)] = &[
    ("Config", "config"),
    ("Error", "error"),
    ("Result", "error"),
    ("Precondition", "host"),
    ("Report", "metrics"),
    ("Simulator", "sim"),
    ("CdfPoint", "sim"),
    ("Completion", "sim"),
    ("Control", "sim"),
    ("Progress", "sim"),
];

/// The type the layers extend (module documentation).
const EXTENDED: &str = "sim::Simulator";

fn layer_of_module(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, mods)| mods.contains(&module))
}

/// The layer a `crate::` path reaches (its first segment, or the module
/// behind a re-exported root item).
fn layer_of_path(path: &str) -> Option<usize> {
    let first = path.split("::").next().unwrap_or(path);
    let module = ROOT_ITEMS
        .iter()
        .find(|(item, _)| *item == first)
        .map_or(first, |(_, m)| m);
    layer_of_module(module)
}

/// The source without comments, string literals and test modules (a
/// `#[cfg(test)]` item: the module or line that follows it).
fn code_of(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    let mut skip_depth: Option<i64> = None;
    let mut pending_test = false;
    while let Some((n, raw)) = lines.next() {
        let line = strip(raw);
        if let Some(depth) = skip_depth.as_mut() {
            *depth += braces(&line);
            if *depth <= 0 {
                skip_depth = None;
            }
            continue;
        }
        let t = line.trim();
        if t.starts_with("#[cfg(test)]") {
            pending_test = true;
            continue;
        }
        if pending_test && !t.is_empty() && !t.starts_with("#[") {
            pending_test = false;
            let depth = braces(&line);
            if depth > 0 {
                skip_depth = Some(depth);
            } else if !t.ends_with(';') && !t.ends_with('}') {
                // An item whose body opens on a later line.
                skip_depth = Some(0);
                for (_, more) in lines.by_ref() {
                    let m = strip(more);
                    let d = braces(&m);
                    if d > 0 {
                        skip_depth = Some(d);
                        break;
                    }
                }
            }
            continue;
        }
        out.push((n + 1, line));
    }
    out
}

/// A line without its `//` comment and with its string and character
/// literals emptied (block comments are not used in the model).
fn strip(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if in_str {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => {
                    in_str = false;
                    out.push('"');
                }
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push('"');
            }
            '/' if chars.peek() == Some(&'/') => break,
            '\'' => {
                // A character literal ('x', '\n', '{'), or a lifetime.
                let rest: String = chars.clone().take(3).collect();
                let mut r = rest.chars();
                match (r.next(), r.next(), r.next()) {
                    (Some('\\'), _, Some('\'')) => {
                        chars.nth(2);
                    }
                    (Some(_), Some('\''), _) => {
                        chars.nth(1);
                    }
                    _ => out.push(c),
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn braces(line: &str) -> i64 {
    line.chars()
        .map(|c| match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        })
        .sum()
}

/// Every path a line reaches through `crate::`: `crate::a::b`, and each
/// path of a group, `crate::{a::b, c}` or `crate::a::{b, c::d}`.
fn crate_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `ssdlab_crate::` and the like
        }
        let (paths, used) = parse_path(rest, "");
        out.extend(paths);
        rest = &rest[used..];
    }
    out
}

/// Paths starting at `s` (after `crate::` or a group's `{`), prefixed
/// with `prefix`; how many bytes they took.
fn parse_path(s: &str, prefix: &str) -> (Vec<String>, usize) {
    let ident_end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    if ident_end == 0 {
        if let Some(inner) = s.strip_prefix('{') {
            let mut out = Vec::new();
            let mut used = 1;
            let mut body = inner;
            loop {
                let t = body.trim_start();
                used += body.len() - t.len();
                body = t;
                if body.is_empty() {
                    return (out, used);
                }
                if let Some(b) = body.strip_prefix('}') {
                    let _ = b;
                    return (out, used + 1);
                }
                if let Some(b) = body.strip_prefix(',') {
                    used += 1;
                    body = b;
                    continue;
                }
                let (p, n) = parse_path(body, prefix);
                if n == 0 {
                    return (out, used);
                }
                out.extend(p);
                used += n;
                body = &body[n..];
            }
        }
        return (Vec::new(), 0);
    }
    let ident = &s[..ident_end];
    let path = if prefix.is_empty() {
        ident.to_string()
    } else {
        format!("{prefix}::{ident}")
    };
    let after = &s[ident_end..];
    if let Some(next) = after.strip_prefix("::") {
        let (p, n) = parse_path(next, &path);
        if n > 0 {
            return (p, ident_end + 2 + n);
        }
    }
    (vec![path], ident_end)
}

/// The module path of a source file (`ftl/mapping/fast.rs` is
/// `ftl::mapping::fast`), or None for the crate root.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    match last.as_str() {
        "lib.rs" if parts.is_empty() => return None,
        "mod.rs" => {}
        name => parts.push(name.trim_end_matches(".rs").to_string()),
    }
    Some(parts.join("::"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every `crate::` path of the model that reaches a layer above its
/// file's: (file, line, path, from layer, to layer).
fn upward_paths(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut bad = Vec::new();
    for file in files {
        let Some(module) = module_of(src, &file) else {
            continue;
        };
        // A file of tests only (`#[cfg(test)] mod tests;`).
        if module.ends_with("::tests") {
            continue;
        }
        let top = module.split("::").next().expect("a module");
        let from = layer_of_module(top)
            .unwrap_or_else(|| panic!("{}: module `{top}` is in no layer", file.display()));
        let text = std::fs::read_to_string(&file).expect("a source file");
        for (line, code) in code_of(&text) {
            for path in crate_paths(&code) {
                if path == EXTENDED {
                    continue;
                }
                let Some(to) = layer_of_path(&path) else {
                    bad.push(format!(
                        "{}:{line}: crate::{path} is in no layer",
                        file.display()
                    ));
                    continue;
                };
                if to > from {
                    bad.push(format!(
                        "{}:{line}: crate::{path} reaches up from layer `{}` to `{}`",
                        file.display(),
                        LAYERS[from].0,
                        LAYERS[to].0
                    ));
                }
            }
        }
    }
    bad
}

#[test]
fn no_module_imports_from_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let bad = upward_paths(&src);
    assert!(
        bad.is_empty(),
        "imports from a higher layer (the order is in this test and docs/architecture.md):\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_module_is_in_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    for line in lib.lines() {
        let Some(m) = line.trim().strip_prefix("pub mod ") else {
            continue;
        };
        let m = m.trim_end_matches(';');
        assert!(layer_of_module(m).is_some(), "module `{m}` is in no layer");
    }
}

/// architecture.md states the same order.
#[test]
fn the_architecture_states_this_order() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).expect("architecture.md");
    let mut at = 0;
    for (name, mods) in LAYERS {
        let row = doc[at..]
            .lines()
            .find(|l| l.starts_with('|') && l.contains(&format!("| {name} |")))
            .unwrap_or_else(|| {
                panic!("architecture.md: no row for layer `{name}` after the one before")
            });
        for m in *mods {
            assert!(
                row.contains(&format!("`{m}")),
                "architecture.md: layer `{name}`'s row does not name `{m}`: {row}"
            );
        }
        at += doc[at..].find(row).expect("the row") + row.len();
    }
}

/// The checker itself: it finds an upward path in a group, skips
/// comments, strings and test modules, and allows the extended type.
#[test]
fn the_checker_reads_paths_as_written() {
    assert_eq!(
        crate_paths("use crate::{addr::{PlaneId, DieId}, sim::Simulator};"),
        ["addr::PlaneId", "addr::DieId", "sim::Simulator"]
    );
    assert_eq!(
        crate_paths(&strip(
            "let x = crate::ftl::Place::Next; // crate::host::Host"
        )),
        ["ftl::Place::Next"]
    );
    assert_eq!(
        crate_paths(&strip(
            r#"let s = "crate::host::X"; let y = crate::gc::Gc::new();"#
        )),
        ["gc::Gc::new"]
    );
    let code = code_of(
        "use crate::addr::Lpn;\n#[cfg(test)]\nmod tests {\n    use crate::sim::Txn;\n}\nuse crate::config::Config;\n",
    );
    let paths: Vec<String> = code.iter().flat_map(|(_, l)| crate_paths(l)).collect();
    assert_eq!(paths, ["addr::Lpn", "config::Config"]);
    assert_eq!(layer_of_path("Simulator"), layer_of_module("sim"));
    assert!(layer_of_path("ftl::Writer") > layer_of_path("sched::Class"));
}
