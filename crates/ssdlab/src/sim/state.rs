//! Saved drive states: the drive as aging (`--precondition`) leaves it,
//! written to a file and read back instead of aging again.
//!
//! Aging changes only the FTL (maps, blocks, write points, allocation,
//! FAST/DVPFTL's hybrid map, the two-plane allocator), the model's random
//! generator and the aging report; every other part of the simulator is
//! built after it from the configuration alone. A state holds exactly
//! those three, so a run from a loaded state is the run that ages in the
//! same process.
//!
//! The file (docs/reliability.md, "Saved drive states"):
//!
//! ```text
//! magic "SSDLABST" | version u32 | header length u64 | header
//!   | payload length u64 | payload (zstd) | SHA-256 of all before it
//! ```
//!
//! integers little-endian. The header lists what the state depends on as
//! `key = value` pairs (the configuration's aging sections, the seed, the
//! precondition spec and, where aging reads the workload, a digest of what
//! it reads); the payload is the FTL (maps stored as runs of unmapped and
//! mapped entries), the generator and the report, bincode-encoded. The
//! checksum is verified before anything is decoded, and the keys compared
//! before the payload is.

use std::io::{Read, Write};
use std::path::Path;

use rand_xoshiro::Xoshiro256PlusPlus;
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::ftl::{Ftl, PreconditionReport};
use crate::host::precondition::Precondition;

/// The first bytes of every state file.
pub const MAGIC: [u8; 8] = *b"SSDLABST";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// The configuration sections aging reads (with `seed`): a state is
/// refused for a drive that differs in any of their keys.
pub const SECTIONS: &[&str] = &["geometry", "cell", "timing", "flash", "ftl", "gc", "check"];

/// Keys of those sections that aging does not read and that are written
/// only when set (GC pacing, program and erase suspension, cache program and read: they act on
/// timed work only): a state serves runs that differ in them.
const TIMED_ONLY: &[&str] = &[
    "gc.preemptive",
    "gc.hard_threshold",
    "gc.idle",
    "flash.suspension",
    "flash.cache_program",
    "flash.cache_read",
];

/// Bytes the payload is written and read in between two looks for an
/// interrupt.
const POLL_BYTES: u64 = 16 << 20;

/// The buffer between bincode and the compressor, each way.
const STREAM_BUFFER: usize = 1 << 20;

/// What a state depends on, and what it records.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Header {
    /// `key = value` pairs, in a fixed order (the identity of the state).
    keys: Vec<(String, String)>,
    /// The workload aging read, as described when the state was saved
    /// (for messages only; its digest is a key).
    workload: Option<String>,
}

#[derive(serde::Serialize)]
struct PayloadRef<'a> {
    ftl: &'a Ftl,
    rng: &'a Xoshiro256PlusPlus,
    report: Aged,
}

#[derive(serde::Deserialize)]
struct Payload {
    ftl: Ftl,
    rng: Xoshiro256PlusPlus,
    report: Aged,
}

/// The aging report's fields, every one written (the report's own serde
/// leaves some out of JSON, which a binary encoding cannot).
#[derive(serde::Serialize, serde::Deserialize)]
struct Aged {
    mode: String,
    counts: [u64; 8],
    sequence_passes: u32,
    sequence_write_amplification: f64,
    write_passes: u32,
    write_valid_per_victim: f64,
    steady_rounds: u32,
    steady_reached: bool,
}

impl Aged {
    fn of(r: &PreconditionReport) -> Aged {
        Aged {
            mode: r.mode.clone(),
            counts: [
                r.pages_written,
                r.valid_pages,
                r.valid_pages_capped,
                r.trace_read_pages_mapped,
                r.translation_pages_written,
                r.age_pages_written,
                r.sequence_pages_written,
                r.functional_gc,
            ],
            sequence_passes: r.sequence_passes,
            sequence_write_amplification: r.sequence_write_amplification,
            write_passes: r.write_passes,
            write_valid_per_victim: r.write_valid_per_victim,
            steady_rounds: r.steady_rounds,
            steady_reached: r.steady_reached,
        }
    }

    fn report(self) -> PreconditionReport {
        let [pages_written, valid_pages, valid_pages_capped, trace_read_pages_mapped, translation_pages_written, age_pages_written, sequence_pages_written, functional_gc] =
            self.counts;
        PreconditionReport {
            mode: self.mode,
            pages_written,
            valid_pages,
            valid_pages_capped,
            trace_read_pages_mapped,
            translation_pages_written,
            age_pages_written,
            sequence_pages_written,
            functional_gc,
            sequence_passes: self.sequence_passes,
            sequence_write_amplification: self.sequence_write_amplification,
            write_passes: self.write_passes,
            write_valid_per_victim: self.write_valid_per_victim,
            steady_rounds: self.steady_rounds,
            steady_reached: self.steady_reached,
        }
    }
}

/// A saved drive state: the bytes of a state file, verified (magic,
/// version, length, checksum) when read.
#[derive(Clone)]
pub struct SavedState {
    bytes: Vec<u8>,
    /// Where it came from (a path), for messages; None: made in memory.
    origin: Option<String>,
    header: Header,
    payload: std::ops::Range<usize>,
    /// The decoded drive, kept for later runs when asked
    /// ([`keep_decoded`](Self::keep_decoded)), shared by the clones.
    kept: std::sync::Arc<Kept>,
}

/// A decoded drive: the FTL, the generator and the aging report.
type Decoded = (Ftl, Xoshiro256PlusPlus, PreconditionReport);

#[derive(Default)]
struct Kept {
    /// Keep the drive once decoded (and checked).
    keep: std::sync::atomic::AtomicBool,
    drive: std::sync::Mutex<Option<std::sync::Arc<Decoded>>>,
}

/// What aging read of the workload, for the state's `workload` key.
pub(crate) struct AgingInput<'a> {
    pub read: Option<&'a [u64]>,
    pub sequence: Option<(&'a [u64], &'a [u64], &'a [u64])>,
    pub writes: Option<&'a [u32]>,
}

impl AgingInput<'_> {
    /// SHA-256 (hex) of the logical pages aging reads of the workload, or
    /// None when aging reads none.
    fn digest(&self) -> Option<String> {
        if self.read.is_none() && self.sequence.is_none() && self.writes.is_none() {
            return None;
        }
        let mut h = Sha256::new();
        let words = |h: &mut Sha256, tag: &[u8], w: &[u64]| {
            h.update(tag);
            h.update((w.len() as u64).to_le_bytes());
            for x in w {
                h.update(x.to_le_bytes());
            }
        };
        if let Some(r) = self.read {
            words(&mut h, b"trace-reads", r);
        }
        if let Some((r, w, t)) = self.sequence {
            words(&mut h, b"sequence-read", r);
            words(&mut h, b"sequence-written", w);
            words(&mut h, b"sequence-touched", t);
        }
        if let Some(ws) = self.writes {
            h.update(b"trace-writes");
            h.update((ws.len() as u64).to_le_bytes());
            for x in ws {
                h.update(x.to_le_bytes());
            }
        }
        Some(hex(&h.finalize()))
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The configuration and aging a state of `cfg`'s drive aged by `pre`
/// depends on (the workload aside): runs with equal keys (and, where `pre`
/// reads the workload, the same workload) can start from one state.
pub fn drive_keys(cfg: &Config, pre: &Precondition) -> Result<Vec<(String, String)>> {
    keys(cfg, pre, None)
}

/// The keys a state of `cfg`'s drive aged by `pre` depends on.
fn keys(
    cfg: &Config,
    pre: &Precondition,
    workload: Option<String>,
) -> Result<Vec<(String, String)>> {
    let value = toml::Value::try_from(cfg).map_err(|e| {
        Error::Invalid(format!(
            "{}: cannot describe the configuration: {e}",
            cfg.name
        ))
    })?;
    let mut out = vec![("seed".to_string(), cfg.seed.to_string())];
    fn flatten(prefix: &str, v: &toml::Value, out: &mut Vec<(String, String)>) {
        match v {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    flatten(&format!("{prefix}.{k}"), v, out);
                }
            }
            v => out.push((prefix.to_string(), v.to_string())),
        }
    }
    for s in SECTIONS {
        if let Some(v) = value.get(s) {
            flatten(s, v, &mut out);
        }
    }
    out.retain(|(k, _)| {
        !TIMED_ONLY
            .iter()
            .any(|t| k == t || k.strip_prefix(t).is_some_and(|r| r.starts_with('.')))
    });
    // Aging places flows' partitioned pages in their partitions.
    if let Some(p) = cfg.partitions_key() {
        out.push(("flows.partitions".into(), p));
    }
    out.push(("precondition".into(), pre.to_string()));
    if let Some(w) = workload {
        out.push(("workload".into(), w));
    }
    Ok(out)
}

/// Reads stop for an interrupt, looked for every [`POLL_BYTES`].
struct Watched<T> {
    inner: T,
    since: u64,
}

impl<T> Watched<T> {
    fn tick(&mut self, n: usize) -> std::io::Result<()> {
        self.since += n as u64;
        if self.since >= POLL_BYTES {
            self.since = 0;
            if crate::workload::interrupt::poll() {
                return Err(crate::workload::interrupt::io_error());
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.tick(n)?;
        Ok(n)
    }
}

impl<W: Write> Write for Watched<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.tick(n)?;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A bincode error (or an I/O error inside one) as the crate's error.
fn bincode_error(what: &str, e: bincode::Error) -> Error {
    if let bincode::ErrorKind::Io(io) = &*e {
        if crate::workload::interrupt::is_io_stop(io) {
            return Error::Interrupted(format!("while {what}"));
        }
    }
    Error::Invalid(format!("{what}: {e}"))
}

/// The largest payload a drive's state may decode to: twice its memory
/// estimate and a MiB (maps, block state, hybrid-map tables).
fn payload_limit(cfg: &Config) -> u64 {
    cfg.memory_estimate()
        .saturating_mul(2)
        .saturating_add(1 << 20)
}

impl SavedState {
    /// Encode the aged drive: `ftl`, `rng` and `report` as aging left them,
    /// for `cfg`'s drive aged by `pre`, which read `input` of the workload
    /// (described as `workload`).
    pub(crate) fn encode(
        cfg: &Config,
        pre: &Precondition,
        input: &AgingInput<'_>,
        workload: &str,
        ftl: &Ftl,
        rng: &Xoshiro256PlusPlus,
        report: &PreconditionReport,
    ) -> Result<SavedState> {
        let digest = input.digest();
        let header = Header {
            workload: digest.as_ref().map(|_| workload.to_string()),
            keys: keys(cfg, pre, digest)?,
        };
        let head =
            bincode::serialize(&header).map_err(|e| bincode_error("encoding a drive state", e))?;
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(head.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&head);
        let at = bytes.len();
        bytes.extend_from_slice(&0u64.to_le_bytes());
        let encoder = zstd::stream::write::Encoder::new(std::mem::take(&mut bytes), 3)
            .map_err(|e| Error::Invalid(format!("compressing a drive state: {e}")))?;
        // (bincode writes a map entry at a time: buffered, the compressor
        // sees large blocks.)
        let mut w = Watched {
            inner: std::io::BufWriter::with_capacity(STREAM_BUFFER, encoder),
            since: 0,
        };
        bincode::serialize_into(
            &mut w,
            &PayloadRef {
                ftl,
                rng,
                report: Aged::of(report),
            },
        )
        .map_err(|e| bincode_error("encoding a drive state", e))?;
        // Bad blocks (only with `flash.bad_blocks`, so states of drives
        // without keep their format): their state after the rest.
        if let Some(bad) = ftl.bad_state() {
            bincode::serialize_into(&mut w, bad)
                .map_err(|e| bincode_error("encoding a drive state", e))?;
        }
        bytes = w
            .inner
            .into_inner()
            .map_err(|e| Error::Invalid(format!("compressing a drive state: {}", e.error())))?
            .finish()
            .map_err(|e| Error::Invalid(format!("compressing a drive state: {e}")))?;
        let len = (bytes.len() - at - 8) as u64;
        bytes[at..at + 8].copy_from_slice(&len.to_le_bytes());
        let sum = Sha256::digest(&bytes);
        bytes.extend_from_slice(&sum);
        SavedState::from_bytes(bytes, None)
    }

    /// Verify `bytes` as a state file read from `origin`: magic, version,
    /// lengths, checksum, header. Nothing is decoded beyond the header.
    pub fn from_bytes(bytes: Vec<u8>, origin: Option<String>) -> Result<SavedState> {
        let name = origin.clone().unwrap_or_else(|| "the drive state".into());
        let bad = |m: String| Error::Invalid(format!("{name}: {m}"));
        if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
            return Err(bad(if MAGIC.starts_with(&bytes) && !bytes.is_empty() {
                "truncated: it ends inside its magic bytes".into()
            } else {
                "not an ssdlab drive state (saved with --save-state): its first bytes are not SSDLABST".into()
            }));
        }
        let u32_at = |i: usize| -> Option<u32> {
            bytes
                .get(i..i + 4)
                .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        };
        let u64_at = |i: usize| -> Option<u64> {
            bytes
                .get(i..i + 8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
        };
        let truncated = |what: &str| {
            bad(format!(
                "truncated ({} bytes): it ends inside its {what}; save the state again",
                bytes.len()
            ))
        };
        let version = u32_at(8).ok_or_else(|| truncated("version"))?;
        if version != VERSION {
            return Err(bad(format!(
                "a drive state of format version {version}, but this ssdlab reads version {VERSION} \
                 only ({}); save the state again with this ssdlab",
                if version > VERSION { "a newer ssdlab wrote it" } else { "an older ssdlab wrote it" }
            )));
        }
        let hlen = u64_at(12).ok_or_else(|| truncated("header length"))?;
        let hstart = 20u64;
        let pat = hstart
            .checked_add(hlen)
            .ok_or_else(|| bad("corrupted: its header length is impossible".into()))?;
        if pat > bytes.len() as u64 {
            return Err(truncated("header"));
        }
        let plen = u64_at(pat as usize).ok_or_else(|| truncated("payload length"))?;
        let pstart = pat + 8;
        let end = pstart
            .checked_add(plen)
            .and_then(|e| e.checked_add(32))
            .ok_or_else(|| bad("corrupted: its payload length is impossible".into()))?;
        if end > bytes.len() as u64 {
            return Err(truncated(if pstart + plen > bytes.len() as u64 {
                "payload"
            } else {
                "checksum"
            }));
        }
        if end < bytes.len() as u64 {
            return Err(bad(format!(
                "corrupted: {} bytes follow its checksum",
                bytes.len() as u64 - end
            )));
        }
        let body = end as usize - 32;
        if Sha256::digest(&bytes[..body])[..] != bytes[body..] {
            return Err(bad(
                "corrupted: its SHA-256 checksum does not match its content; nothing of it was used"
                    .into(),
            ));
        }
        let header: Header = bincode::DefaultOptions::new()
            .with_fixint_encoding()
            .with_limit(hlen)
            .deserialize(&bytes[hstart as usize..pat as usize])
            .map_err(|e| bad(format!("corrupted header: {e}")))?;
        Ok(SavedState {
            header,
            origin,
            payload: pstart as usize..body,
            bytes,
            kept: Default::default(),
        })
    }

    /// Read and verify the state file `path` (at most `max` bytes).
    pub fn read(path: &Path, max: u64) -> Result<SavedState> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let mut bytes = Vec::new();
        Watched {
            inner: file,
            since: 0,
        }
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
        if bytes.len() as u64 > max {
            return Err(Error::Invalid(format!(
                "{}: larger than {} bytes, the most a drive state may be (twice the memory its drive needs); is it the right file?",
                path.display(),
                max
            )));
        }
        SavedState::from_bytes(bytes, Some(path.display().to_string()))
    }

    /// Read and verify the state file `path` for `cfg`'s drive.
    pub fn read_for(path: &Path, cfg: &Config) -> Result<SavedState> {
        SavedState::read(path, payload_limit(cfg))
    }

    /// Write the state to `path` (through the one output function: a
    /// special file is never replaced, an unfinished file never left).
    pub fn write(&self, path: &Path) -> Result<()> {
        let mut out = crate::workload::output::OutputFile::create(path)?;
        for chunk in self.bytes.chunks(POLL_BYTES as usize) {
            if crate::workload::interrupt::poll() {
                return Err(Error::Interrupted(format!(
                    "while writing the drive state {}",
                    path.display()
                )));
            }
            out.write_all(chunk).map_err(|e| Error::io(path, e))?;
        }
        out.finish()
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The aging the state records.
    pub fn precondition(&self) -> Result<Precondition> {
        let spec = self.key("precondition").ok_or_else(|| {
            Error::Invalid(format!(
                "{}: corrupted header: no precondition",
                self.name()
            ))
        })?;
        Precondition::parse(spec)
    }

    /// Its `key = value` pairs (the identity of the state).
    pub fn keys(&self) -> &[(String, String)] {
        &self.header.keys
    }

    fn key(&self, k: &str) -> Option<&str> {
        self.header
            .keys
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    }

    fn name(&self) -> String {
        self.origin
            .clone()
            .unwrap_or_else(|| "the drive state".into())
    }

    /// Where it was read from, if from a file.
    pub fn origin(&self) -> Option<&str> {
        self.origin.as_deref()
    }

    /// Refuse the state unless it was saved for `cfg`'s drive aged by `pre`
    /// (the workload aside, which [`Simulator::new_loaded`](crate::Simulator::new_loaded)
    /// checks): the first key that differs is named.
    pub fn check_drive(&self, cfg: &Config, pre: &Precondition) -> Result<()> {
        let digest = self.key("workload").map(str::to_string);
        self.compare(keys(cfg, pre, digest)?, "")
    }

    /// Refuse the state unless it was saved for `cfg`'s drive aged by `pre`
    /// with `input` of the workload `workload`: the first key that differs
    /// is named.
    pub(crate) fn check(
        &self,
        cfg: &Config,
        pre: &Precondition,
        input: &AgingInput<'_>,
        workload: &str,
    ) -> Result<()> {
        self.compare(keys(cfg, pre, input.digest())?, workload)
    }

    fn compare(&self, want: Vec<(String, String)>, workload: &str) -> Result<()> {
        let have = &self.header.keys;
        let value = |list: &[(String, String)], k: &str| {
            list.iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        };
        for (k, _) in want.iter().chain(have.iter()) {
            let (a, b) = (value(have, k), value(&want, k));
            if a == b {
                continue;
            }
            let show = |v: Option<String>| v.unwrap_or_else(|| "absent".into());
            let msg = if k == "workload" {
                format!(
                    "saved for another workload: aging read different pages of it ({} when saved, {workload} now)",
                    self.header.workload.as_deref().unwrap_or("none")
                )
            } else {
                format!(
                    "saved for a different drive or aging: `{k}` is {} in the state but {} here{}",
                    show(a),
                    show(b),
                    if k == "precondition" {
                        ""
                    } else {
                        " (a state is reused only for the same geometry, mapping and every configuration value aging reads)"
                    }
                )
            };
            return Err(Error::Invalid(format!("{}: {msg}", self.name())));
        }
        Ok(())
    }

    /// Keep the drive in memory once decoded, so that every later run from
    /// this state (or a clone of it) copies it instead of decoding it
    /// again: for a state that several runs start from (a sweep's).
    pub fn keep_decoded(&self) {
        self.kept.keep.store(true, Ordering::Relaxed);
    }

    /// Decode the FTL, the generator and the report (after [`check`]), and
    /// verify the FTL is consistent; a kept drive is copied (it was checked
    /// when decoded, for a drive of the same keys).
    pub(crate) fn decode(&self, cfg: &Config) -> Result<Decoded> {
        if !self.kept.keep.load(Ordering::Relaxed) {
            return self.decode_bytes(cfg);
        }
        // (One run decodes; the others wait for it, then copy.)
        let mut kept = self.kept.drive.lock().unwrap_or_else(|e| e.into_inner());
        let drive = match &*kept {
            Some(d) => d.clone(),
            None => {
                let d = std::sync::Arc::new(self.decode_bytes(cfg)?);
                *kept = Some(d.clone());
                d
            }
        };
        drop(kept);
        let (ftl, rng, report) = &*drive;
        Ok((ftl.clone(), rng.clone(), report.clone()))
    }

    fn decode_bytes(&self, cfg: &Config) -> Result<Decoded> {
        use bincode::Options;
        let name = self.name();
        let decoder = zstd::stream::read::Decoder::with_buffer(&self.bytes[self.payload.clone()])
            .map_err(|e| Error::Invalid(format!("{name}: corrupted payload: {e}")))?;
        let mut reader = Watched {
            // (bincode reads a map entry at a time: from a buffer.)
            inner: std::io::BufReader::with_capacity(STREAM_BUFFER, decoder),
            since: 0,
        };
        let options = bincode::DefaultOptions::new()
            .with_fixint_encoding()
            .with_limit(payload_limit(cfg));
        let p: Payload = options
            .deserialize_from(&mut reader)
            .map_err(|e| bincode_error(&format!("reading the drive state {name}"), e))?;
        let mut ftl = p.ftl;
        // Bad blocks' state follows when the drive has them (its keys say
        // so: `flash.bad_blocks` is among them).
        if cfg.flash.bad_blocks.is_some() {
            let bad = options
                .deserialize_from(&mut reader)
                .map_err(|e| bincode_error(&format!("reading the drive state {name}"), e))?;
            ftl.set_bad_state(bad);
        }
        // A state of this drive is consistent; one that is not (a file made
        // by hand with a matching checksum) is refused, never run.
        let consistent = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ftl.check_shape(cfg)?;
            ftl.check_totals()?;
            ftl.check(|_| None)
        }))
        .unwrap_or_else(|_| Err("its parts do not fit together".into()));
        consistent.map_err(|e| {
            Error::Invalid(format!(
                "{name}: the saved drive is inconsistent ({e}); save the state again"
            ))
        })?;
        Ok((ftl, p.rng, p.report.report()))
    }
}

use bincode::Options as _;
use std::sync::atomic::Ordering;
