//! What a run was, recorded beside its results so that any row can be rerun
//! exactly: the ssdlab version and git revision, the seed, the resolved
//! configuration, the workload (a trace by path, format, options and
//! SHA-256 of its bytes; a profile in full) and the preconditioning.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Report};

/// The git revision this binary was built from (`-dirty` with uncommitted
/// changes; `unknown` outside a checkout).
pub const GIT_REVISION: &str = env!("SSDLAB_GIT_REVISION");

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunMeta {
    pub ssdlab_version: String,
    pub git_revision: String,
    pub seed: u64,
    /// The preconditioning, as `--precondition` takes it.
    pub precondition: String,
    pub workload: WorkloadMeta,
    /// The resolved configuration (`ssdlab presets show` prints the same
    /// as TOML; `--config` reads it back).
    pub config: serde_json::Value,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct WorkloadMeta {
    /// `trace`, `profile` or `records`.
    pub kind: String,
    pub description: String,
    /// At most this many requests (`--limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceMeta>,
    /// A synthetic profile, in full (the profile TOML's fields).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TraceMeta {
    pub path: PathBuf,
    pub format: String,
    pub bytes: u64,
    /// SHA-256 of the file as stored (compressed, if it is).
    pub sha256: String,
    pub device: Option<u32>,
    pub skip_records: u64,
    pub start_ns: u64,
    pub skip_bad_lines: bool,
    pub sort_window: Option<usize>,
    pub device_stride: Option<u64>,
    pub replay_trims: bool,
    /// blkparse: the action replayed (`D` or `Q`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blkparse_action: Option<char>,
}

/// A result as written: the report, then what produced it.
#[derive(Serialize, Deserialize)]
pub struct Described<'a> {
    #[serde(flatten)]
    pub report: std::borrow::Cow<'a, Report>,
    pub run: RunMeta,
}

/// SHA-256 of files, each read once per process.
#[derive(Default)]
pub struct Hashes(Mutex<HashMap<PathBuf, (u64, String)>>);

impl Hashes {
    fn get(&self, path: &Path) -> Result<(u64, String)> {
        if let Some(h) = self.0.lock().expect("no poisoned lock").get(path) {
            return Ok(h.clone());
        }
        let mut f =
            std::fs::File::open(path).with_context(|| format!("hashing {}", path.display()))?;
        let mut h = Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut bytes = 0u64;
        loop {
            let n = f
                .read(&mut buf)
                .with_context(|| format!("hashing {}", path.display()))?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
            bytes += n as u64;
        }
        let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        let v = (bytes, hex);
        self.0
            .lock()
            .expect("no poisoned lock")
            .insert(path.to_path_buf(), v.clone());
        Ok(v)
    }
}

fn workload(source: &Source, hashes: &Hashes) -> Result<WorkloadMeta> {
    let description = source.describe();
    Ok(match source {
        Source::Limited { inner, limit } => WorkloadMeta {
            limit: Some(*limit),
            description,
            ..workload(inner, hashes)?
        },
        Source::Trace {
            path,
            format,
            options: o,
        } => {
            let (bytes, sha256) = hashes.get(path)?;
            WorkloadMeta {
                kind: "trace".into(),
                description,
                limit: o.limit,
                trace: Some(TraceMeta {
                    path: std::path::absolute(path).unwrap_or_else(|_| path.clone()),
                    format: format.name().to_string(),
                    bytes,
                    sha256,
                    device: o.device,
                    skip_records: o.skip_records,
                    start_ns: o.start_ns,
                    skip_bad_lines: o.skip_bad_lines,
                    sort_window: o.sort_window,
                    device_stride: o.side_by_side.then_some(o.device_stride).flatten(),
                    replay_trims: o.replay_trims,
                    blkparse_action: (*format == ssdlab::workload::TraceFormat::Blkparse)
                        .then(|| o.blkparse_action.letter()),
                }),
                profile: None,
            }
        }
        Source::Synthetic(p) => WorkloadMeta {
            kind: "profile".into(),
            description,
            limit: None,
            trace: None,
            profile: Some(serde_json::to_value(p)?),
        },
        Source::Records { .. } => WorkloadMeta {
            kind: "records".into(),
            description,
            limit: None,
            trace: None,
            profile: None,
        },
    })
}

/// The record of a run of `config` on `source` after `precondition`.
pub fn describe(
    config: &Config,
    source: &Source,
    precondition: &Precondition,
    hashes: &Hashes,
) -> Result<RunMeta> {
    Ok(RunMeta {
        ssdlab_version: env!("CARGO_PKG_VERSION").to_string(),
        git_revision: GIT_REVISION.to_string(),
        seed: config.seed,
        precondition: precondition.to_string(),
        workload: workload(source, hashes)?,
        config: serde_json::to_value(config)?,
    })
}

/// The workload a record describes, to run it again: a profile from its
/// fields; a trace from its path and options, refused if the file's bytes
/// changed (its SHA-256) or its format was described by a spec file (not
/// recorded).
pub fn source_of(w: &WorkloadMeta) -> Result<Source> {
    use ssdlab::workload::{BlkparseAction, TraceFormat, TraceOptions};
    let source = match w.kind.as_str() {
        "profile" => {
            let p = w
                .profile
                .clone()
                .context("a profile workload without its profile")?;
            Source::Synthetic(serde_json::from_value(p).context("the recorded profile")?)
                .limited(w.limit)
        }
        "trace" => {
            let t = w
                .trace
                .as_ref()
                .context("a trace workload without its trace")?;
            let format = TraceFormat::parse(&t.format)?;
            if format == TraceFormat::Custom {
                anyhow::bail!(
                    "{}: read in a described format, which the record does not hold; rerun it with \
                     `ssdlab run --trace-format SPEC.toml`",
                    t.path.display()
                );
            }
            let (bytes, sha256) = Hashes::default().get(&t.path)?;
            if sha256 != t.sha256 {
                anyhow::bail!(
                    "{}: the file changed since the run (SHA-256 {sha256}, {bytes} bytes; the run read {}, {} bytes)",
                    t.path.display(),
                    t.sha256,
                    t.bytes
                );
            }
            let options = TraceOptions {
                device: t.device,
                skip_records: t.skip_records,
                start_ns: t.start_ns,
                skip_bad_lines: t.skip_bad_lines,
                sort_window: t.sort_window,
                side_by_side: t.device_stride.is_some(),
                device_stride: t.device_stride,
                replay_trims: t.replay_trims,
                limit: w.limit,
                blkparse_action: match t.blkparse_action {
                    Some('Q') => BlkparseAction::Queue,
                    _ => BlkparseAction::Issue,
                },
                ..TraceOptions::default()
            };
            Source::Trace {
                path: t.path.clone(),
                format,
                options,
            }
        }
        other => anyhow::bail!("a `{other}` workload cannot be rerun from its record"),
    };
    Ok(source)
}
