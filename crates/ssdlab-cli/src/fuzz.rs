//! Fuzz targets: every parser of a user's file, driven by arbitrary bytes.
//!
//! Each target takes the raw input of one fuzzer execution and panics only
//! if the property every input must satisfy is broken: the code under test
//! may return an error or a value, but it must not panic, abort or hang,
//! and an error about a file's content must say where (the file, and for
//! line-based files the line). The same functions run
//!
//! - under `cargo test` (`tests/fuzz.rs`: bolero's random inputs, bounded,
//!   plus every seed and every regression case under `fuzz/`), and
//! - for hours under libFuzzer with `cargo fuzz run TARGET` in `fuzz/`
//!   (docs/reliability.md says how, and what the long runs found).
//!
//! The first bytes of an input choose among the variants a target covers
//! (a trace format, a compression wrapper, reader options), so that one
//! corpus explores all of them.

use std::io::Write;
use std::path::{Path, PathBuf};

use ssdlab::workload::custom::FormatSpec;
use ssdlab::workload::synthetic::{Generator, Profile};
use ssdlab::workload::{open_trace, Error, IoRecord, Op, Source, TraceFormat, TraceOptions};
use ssdlab::{Config, Precondition, Simulator};

/// The names of the targets, as `cargo fuzz run` and `tests/fuzz.rs` know
/// them.
pub const TARGETS: &[&str] = &["trace", "config", "profile", "sweep"];

/// Run target `name` on `data`.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "trace" => trace(data),
        "config" => config(data),
        "profile" => profile(data),
        "sweep" => sweep(data),
        other => panic!("no fuzz target `{other}` (known: {TARGETS:?})"),
    }
}

/// Records read from one input at most (the input's size bounds them
/// anyway; this keeps a run of generated records short).
const MAX_RECORDS: usize = 100_000;
/// Synthetic requests drawn from a profile that parses.
const PROFILE_REQUESTS: usize = 2_000;

/// A scratch file of this thread, rewritten for every input: the readers
/// under test open paths, as they do for a user's files.
fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    thread_local! {
        static DIR: tempfile::TempDir = tempfile::Builder::new()
            .prefix("ssdlab-fuzz-")
            .tempdir()
            .expect("a temporary directory for fuzz inputs");
    }
    let path = DIR.with(|d| d.path().join(name));
    let mut f = std::fs::File::create(&path).expect("scratch file");
    f.write_all(bytes).expect("scratch file written");
    path
}

/// An error about `path`'s content must name it.
fn assert_located(e: &impl std::fmt::Display, path: &Path) {
    let msg = e.to_string();
    let name = path.file_name().unwrap().to_string_lossy();
    assert!(
        msg.contains(&*name),
        "error does not name the file `{name}`: {msg}"
    );
}

/// Trace files: every format's line parser, format detection, the custom
/// format spec, and the compressed-input layer.
///
/// Byte 0 picks the format (every concrete format, `auto`, or a described
/// format whose spec TOML is the text before the first NUL byte), byte 1
/// the wrapper (plain; the gzip or zstd magic in front of the rest, so that
/// the decoders meet arbitrary streams; the rest gzip-compressed and cut
/// short by byte 2) and byte 2 the reader options.
pub fn trace(data: &[u8]) {
    let [format, wrap, opts, rest @ ..] = data else {
        return;
    };
    let kinds = TraceFormat::ALL.len() + 2;
    let mut options = TraceOptions {
        skip_bad_lines: opts & 1 != 0,
        replay_trims: opts & 2 != 0,
        sort_window: match (opts >> 2) & 3 {
            0 => None,
            1 => Some(0),
            w => Some(w as usize * 3),
        },
        device: (opts & 16 != 0).then_some(0),
        skip_records: u64::from(opts >> 6),
        ..TraceOptions::default()
    };
    let (format, body) = match *format as usize % kinds {
        i if i < TraceFormat::ALL.len() => (TraceFormat::ALL[i], rest),
        i if i == TraceFormat::ALL.len() => (TraceFormat::Auto, rest),
        _ => {
            let cut = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
            let spec_path = scratch("format.toml", &rest[..cut]);
            let text = String::from_utf8_lossy(&rest[..cut]);
            match FormatSpec::from_toml(&text, &spec_path.display().to_string()) {
                Ok(spec) => options.format_spec = Some(spec.into()),
                Err(e) => {
                    assert_located(&e, &spec_path);
                    return;
                }
            }
            if options.device.is_some() {
                options.device = None;
            }
            (TraceFormat::Custom, rest.get(cut + 1..).unwrap_or(&[]))
        }
    };
    let bytes = match wrap % 4 {
        0 => body.to_vec(),
        1 => [&[0x1f, 0x8b][..], body].concat(),
        2 => [&[0x28, 0xb5, 0x2f, 0xfd][..], body].concat(),
        _ => {
            let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            z.write_all(body).expect("in memory");
            let mut gz = z.finish().expect("in memory");
            // Cut a share of the stream: a truncated file.
            let keep = gz.len() - gz.len() * usize::from(opts % 4) / 8;
            gz.truncate(keep);
            gz
        }
    };
    let path = scratch("trace", &bytes);
    let stream = match open_trace(&path, format, &options) {
        Ok(s) => s,
        Err(e) => {
            assert_located(&e, &path);
            return;
        }
    };
    for record in stream.take(MAX_RECORDS) {
        match record {
            Ok(r) => assert!(
                r.offset.checked_add(r.size).is_some(),
                "record past 2^64 bytes: {r:?}"
            ),
            Err(e) => {
                assert!(
                    matches!(
                        e,
                        Error::Parse { .. } | Error::Io { .. } | Error::Invalid(_)
                    ),
                    "unexpected error kind: {e:?}"
                );
                assert_located(&e, &path);
                break;
            }
        }
    }
}

/// The drive configuration: a TOML file, `--set` overrides on a preset,
/// and the `--precondition` language. Byte 0 picks which; for overrides,
/// each line of the rest is one `--set`.
pub fn config(data: &[u8]) {
    let [which, rest @ ..] = data else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    match which % 3 {
        0 => {
            let path = scratch("drive.toml", rest);
            match Config::from_toml(&text, &path.display().to_string()) {
                Ok(cfg) => simulate(&cfg),
                Err(e) => assert_located(&e, &path),
            }
        }
        1 => {
            let sets: Vec<String> = text.lines().map(str::to_string).collect();
            let base = Config::preset("small").expect("built-in preset");
            match base.with_overrides(&sets) {
                Ok(cfg) => simulate(&cfg),
                // The message names what was wrong: a key or the override.
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
        _ => {
            if let Ok(p) = Precondition::parse(&text) {
                // Its spec (as run JSON records it) reads back the same.
                let spec = p.to_string();
                assert_eq!(Precondition::parse(&spec).ok(), Some(p.clone()), "{spec}");
                if let Some((lo, hi, valid)) = p.fill {
                    assert!((0.0..=1.0).contains(&lo) && lo <= hi && hi <= 1.0, "{p:?}");
                    assert!((0.0..=1.0).contains(&valid), "{p:?}");
                }
            }
        }
    }
}

/// Drives whose state fits in this are also simulated by the config target.
const SIMULATED_DRIVE_BYTES: u64 = 64 << 20;

/// A configuration that parsed: printed back, and if small enough run for
/// a few hundred requests (writes, then reads of them) from an empty drive.
/// The run may fail with an error (a scheme that does not fit the drive);
/// it must not panic or hang.
fn simulate(cfg: &Config) {
    let text = cfg.to_toml();
    let again = Config::from_toml(&text, "printed");
    assert!(
        again.is_ok(),
        "a configuration does not read back: {again:?}\n{text}"
    );
    if cfg.memory_estimate() > SIMULATED_DRIVE_BYTES {
        return;
    }
    let page = u64::from(cfg.geometry.page_size_bytes);
    let span = (cfg.logical_pages() * page).max(page);
    let records: Vec<IoRecord> = (0..400u64)
        .map(|i| {
            let size = page * (1 + i % 4);
            IoRecord::new(
                i * 20_000,
                if i < 200 { Op::Write } else { Op::Read },
                ((i % 200) * 7919 * page) % span.saturating_sub(size).max(1) / page * page,
                size,
            )
        })
        .collect();
    let source = Source::Records {
        name: "fuzz".into(),
        records: records.into(),
    };
    if let Ok(sim) = Simulator::new(cfg, &source, &Precondition::default()) {
        let _ = sim.run(&mut |_| {});
    }
}

/// A synthetic workload profile; one that parses is also run for a few
/// thousand requests (every distribution sampled).
pub fn profile(data: &[u8]) {
    let path = scratch("profile.toml", data);
    let text = String::from_utf8_lossy(data);
    match Profile::from_toml(&text, &path.display().to_string()) {
        Ok(p) => {
            for record in Generator::new(&p).take(PROFILE_REQUESTS) {
                match record {
                    Ok(r) => assert!(r.offset.checked_add(r.size).is_some(), "{r:?}"),
                    Err(e) => {
                        assert_located(&e, &path);
                        break;
                    }
                }
            }
        }
        Err(e) => assert_located(&e, &path),
    }
}

/// A sweep specification: parsed and planned (drives built, workloads
/// resolved, every run's configuration made), not run.
pub fn sweep(data: &[u8]) {
    let path = scratch("sweep.toml", data);
    if let Err(e) = crate::sweep::plan(&path, crate::sweep::DEFAULT_MAX_RUNS, None) {
        assert_located(&format!("{e:#}"), &path);
    }
}
