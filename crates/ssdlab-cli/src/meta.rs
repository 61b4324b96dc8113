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
    /// With flows (`[[flows]]`): each flow's workload, in the flows' order
    /// (`workload` is then the first's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<WorkloadMeta>,
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
    /// The path as the run was given it (relative paths are relative to
    /// the directory the run was started in).
    pub path: PathBuf,
    /// The same path made absolute, which a rerun opens wherever it is
    /// started (absent in records written before it was kept: `path` is
    /// then absolute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absolute_path: Option<PathBuf>,
    pub format: String,
    /// The format was detected (`--trace-format auto`): a rerun detects it
    /// again, which must give the same.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub detected: bool,
    /// A described format's spec, as TOML (`format` is then `custom`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_spec: Option<String>,
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

/// The SHA-256 recorded for a trace that is not a regular file (a pipe, a
/// device): its content cannot be read again, so it is not hashed, and such
/// a run cannot be rerun.
pub const NOT_HASHED: &str = "";

impl Hashes {
    /// The size and SHA-256 of `path` (a regular file; for anything else
    /// 0 and [`NOT_HASHED`]). Stops at an interrupt.
    pub fn get(&self, path: &Path) -> Result<(u64, String)> {
        if let Some(h) = self.0.lock().expect("no poisoned lock").get(path) {
            return Ok(h.clone());
        }
        let meta =
            std::fs::metadata(path).with_context(|| format!("hashing {}", path.display()))?;
        let v = if meta.is_file() {
            sha256_file(path)?
        } else {
            (0, NOT_HASHED.to_string())
        };
        self.0
            .lock()
            .expect("no poisoned lock")
            .insert(path.to_path_buf(), v.clone());
        Ok(v)
    }

    /// Hash every trace `source` reads now (before a run, so that an
    /// interrupted run's record needs no further reading).
    pub fn prepare(&self, source: &Source) -> Result<()> {
        match source {
            Source::Trace { path, .. } => self.get(path).map(|_| ()),
            Source::Limited { inner, .. } => self.prepare(inner),
            Source::Synthetic(_) | Source::Records { .. } => Ok(()),
        }
    }
}

/// Size and SHA-256 of the file at `path`, read in 1 MiB pieces; stops
/// (an [`ssdlab::Error::Interrupted`]) at an interrupt.
fn sha256_file(path: &Path) -> Result<(u64, String)> {
    let mut f = std::fs::File::open(path).with_context(|| format!("hashing {}", path.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        if ssdlab::workload::interrupt::poll() {
            return Err(ssdlab::Error::Interrupted(format!(
                "while hashing {} (after {bytes} bytes)",
                path.display()
            ))
            .into());
        }
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
    Ok((bytes, hex))
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
                    path: o.name.as_ref().map_or_else(|| path.clone(), PathBuf::from),
                    absolute_path: Some(std::path::absolute(path).unwrap_or_else(|_| path.clone())),
                    format: format.name().to_string(),
                    detected: o.detection.is_some(),
                    format_spec: o.format_spec.as_ref().map(|s| s.to_toml()),
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
        flows: Vec::new(),
        config: serde_json::to_value(config)?,
    })
}

/// [`describe`] of a run with flows: each flow's workload (`sources`, in
/// the flows' order) recorded in full.
pub fn describe_flows(
    config: &Config,
    sources: &[Source],
    precondition: &Precondition,
    hashes: &Hashes,
) -> Result<RunMeta> {
    let mut run = describe(config, &sources[0], precondition, hashes)?;
    run.flows = sources
        .iter()
        .map(|s| workload(s, hashes))
        .collect::<Result<_>>()?;
    Ok(run)
}

/// The workload a record describes, to run it again: a profile from its
/// fields; a trace from its path (its absolute form, so that a rerun from
/// another directory reads the same file; named in results as the run named
/// it), format (a described one from its recorded spec; a detected one
/// detected again) and options, refused if the file's bytes changed (its
/// SHA-256).
pub fn source_of(w: &WorkloadMeta) -> Result<Source> {
    source_of_hashed(w, &Hashes::default())
}

/// [`source_of`], the trace's hash kept in `hashes` (for the new record).
pub fn source_of_hashed(w: &WorkloadMeta, hashes: &Hashes) -> Result<Source> {
    use ssdlab::workload::{custom::FormatSpec, detect, BlkparseAction, TraceFormat, TraceOptions};
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
            let path = t.absolute_path.as_ref().unwrap_or(&t.path);
            let (format, format_spec) = match (t.format.as_str(), &t.format_spec) {
                ("custom", Some(spec)) => (
                    TraceFormat::Custom,
                    Some(std::sync::Arc::new(
                        FormatSpec::from_toml(spec, "run.workload.trace.format_spec")
                            .context("the recorded format spec")?,
                    )),
                ),
                ("custom", None) => anyhow::bail!(
                    "{}: read in a described format whose spec the record does not hold; rerun \
                     it with `ssdlab run --trace-format SPEC.toml`",
                    t.path.display()
                ),
                (name, _) => (TraceFormat::parse(name)?, None),
            };
            let meta = std::fs::metadata(path)
                .with_context(|| format!("{}: the run's trace", path.display()))?;
            if !meta.is_file() || t.sha256 == NOT_HASHED {
                anyhow::bail!(
                    "{}: not a regular file (a pipe or a device), so what the run read cannot be read \
                     again and checked; rerun it with `ssdlab run` on a copy of that input",
                    path.display()
                );
            }
            if meta.len() != t.bytes {
                anyhow::bail!(
                    "{}: the file changed since the run ({} bytes; the run read {}, {} bytes)",
                    path.display(),
                    meta.len(),
                    t.sha256,
                    t.bytes
                );
            }
            let (bytes, sha256) = hashes.get(path)?;
            if sha256 != t.sha256 {
                anyhow::bail!(
                    "{}: the file changed since the run (SHA-256 {sha256}, {bytes} bytes; the run read {}, {} bytes)",
                    path.display(),
                    t.sha256,
                    t.bytes
                );
            }
            let detection = if t.detected {
                let d = detect::explain(path)?;
                if d.format != format {
                    anyhow::bail!(
                        "{}: detected as {} now, but the run detected {}",
                        path.display(),
                        d.format.name(),
                        format.name()
                    );
                }
                Some(std::sync::Arc::new(d))
            } else {
                None
            };
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
                format_spec,
                detection,
                name: (path != &t.path).then(|| t.path.display().to_string()),
                ..TraceOptions::default()
            };
            Source::Trace {
                path: path.clone(),
                format,
                options,
            }
        }
        other => anyhow::bail!("a `{other}` workload cannot be rerun from its record"),
    };
    Ok(source)
}

/// Largest saved result (`run --json`, a sweep's runs/*.json) read back by
/// `rerun`, `--resume`, `sweep merge` and `report`: 2 GiB. A result at the
/// time series' cap ([`ssdlab::metrics::MAX_INTERVALS`] intervals) is
/// about 1.2 GB.
pub const MAX_RESULT_BYTES: u64 = 2 << 30;

/// Open a saved result for reading, refusing what is not a regular file or
/// is larger than [`MAX_RESULT_BYTES`].
pub fn open_result(path: &Path) -> Result<std::io::BufReader<std::fs::File>> {
    let meta = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    if !meta.is_file() {
        anyhow::bail!("{}: not a regular file", path.display());
    }
    if meta.len() > MAX_RESULT_BYTES {
        anyhow::bail!(
            "{}: {} bytes, larger than {}, the most a saved result may be",
            path.display(),
            meta.len(),
            ssdlab::workload::input::human_bytes(MAX_RESULT_BYTES)
        );
    }
    let f = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(std::io::BufReader::with_capacity(1 << 20, f))
}

/// A result read as a stream: a digest of each top-level field's value, and
/// its `run` record if it has one. Two values have the same digest when
/// they are equal as JSON (objects whatever the order of their keys;
/// numbers of the same kind and value). Fields that are not figures of the
/// run (`run`, `latency_cdf`, `task_sha256`, `content_sha256`) have no
/// digest. Memory does not grow with the result's size.
pub struct Digests {
    pub fields: std::collections::BTreeMap<String, [u8; 32]>,
    pub run: Option<RunMeta>,
}

/// Fields of a saved result that are not the run's figures.
const NOT_FIGURES: [&str; 4] = ["run", "latency_cdf", "task_sha256", "content_sha256"];

/// The digest of one JSON value, read as it streams by: SHA-256 over a
/// tag and the value for a scalar, over the elements' digests for an
/// array, over the keys (sorted) and their values' digests for an object.
struct Canon;

fn leaf(tag: u8, bytes: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([tag]);
    h.update(bytes);
    h.finalize().into()
}

impl<'de> serde::de::DeserializeSeed<'de> for Canon {
    type Value = [u8; 32];
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<[u8; 32], D::Error> {
        d.deserialize_any(Canon)
    }
}

impl<'de> serde::de::Visitor<'de> for Canon {
    type Value = [u8; 32];
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<[u8; 32], E> {
        Ok(leaf(b'b', &[u8::from(v)]))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<[u8; 32], E> {
        Ok(leaf(b'u', &v.to_le_bytes()))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<[u8; 32], E> {
        if v >= 0 {
            return self.visit_u64(v as u64);
        }
        Ok(leaf(b'i', &v.to_le_bytes()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<[u8; 32], E> {
        // -0.0 equals 0.0
        let v = if v == 0.0 { 0.0 } else { v };
        Ok(leaf(b'f', &v.to_bits().to_le_bytes()))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<[u8; 32], E> {
        Ok(leaf(b's', v.as_bytes()))
    }
    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<[u8; 32], E> {
        Ok(leaf(b'n', &[]))
    }
    fn visit_none<E: serde::de::Error>(self) -> std::result::Result<[u8; 32], E> {
        self.visit_unit()
    }
    fn visit_some<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<[u8; 32], D::Error> {
        d.deserialize_any(Canon)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<[u8; 32], A::Error> {
        let mut h = Sha256::new();
        h.update(b"[");
        while let Some(d) = seq.next_element_seed(Canon)? {
            h.update(d);
        }
        Ok(h.finalize().into())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<[u8; 32], A::Error> {
        let mut entries = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            let d = map.next_value_seed(Canon)?;
            entries.push((k, d));
        }
        entries.sort();
        let mut h = Sha256::new();
        h.update(b"{");
        for (k, d) in entries {
            h.update((k.len() as u64).to_le_bytes());
            h.update(k.as_bytes());
            h.update(d);
        }
        Ok(h.finalize().into())
    }
}

/// Read the result JSON in `reader` as [`Digests`]. A `run` record that
/// does not read names its bad field (`run.seed: invalid value ...`).
pub fn digests(reader: impl Read) -> std::result::Result<Digests, serde_json::Error> {
    use serde::de::{DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};

    struct Run;
    impl<'de> DeserializeSeed<'de> for Run {
        type Value = RunMeta;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<RunMeta, D::Error> {
            serde_path_to_error::deserialize(d)
                .map_err(|e| D::Error::custom(format!("run.{}: {}", e.path(), e.inner())))
        }
    }

    struct Top;
    impl<'de> Visitor<'de> for Top {
        type Value = Digests;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a result: a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(
            self,
            mut map: A,
        ) -> std::result::Result<Digests, A::Error> {
            let mut out = Digests {
                fields: Default::default(),
                run: None,
            };
            while let Some(key) = map.next_key::<String>()? {
                if key == "run" {
                    out.run = Some(map.next_value_seed(Run)?);
                } else if NOT_FIGURES.contains(&key.as_str()) {
                    map.next_value::<IgnoredAny>()?;
                } else {
                    let d = map.next_value_seed(Canon)?;
                    out.fields.insert(key, d);
                }
            }
            Ok(out)
        }
    }

    let mut de = serde_json::Deserializer::from_reader(reader);
    let d = de.deserialize_map(Top)?;
    de.end()?;
    Ok(d)
}

/// The [`Digests`] of `report` as it would be written (streamed through a
/// pipe: the report is never held as text or as a JSON tree).
pub fn report_digests(report: &Report) -> Result<Digests> {
    let (reader, writer) = std::io::pipe().context("a pipe for the report")?;
    std::thread::scope(|scope| {
        let written = scope.spawn(move || {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, writer);
            serde_json::to_writer(&mut w, report)?;
            std::io::Write::flush(&mut w).map_err(serde_json::Error::io)
        });
        let read = digests(std::io::BufReader::with_capacity(1 << 20, reader));
        let written = written.join().expect("the report's writer does not panic");
        written.context("writing the report")?;
        read.context("reading the report back")
    })
}
