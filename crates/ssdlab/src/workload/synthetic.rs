//! The synthetic workload generator and its profiles.
//!
//! A [`Profile`] describes an open-loop stream of requests: how many, the
//! read share, the request sizes of reads and of writes, where the requests
//! land in a footprint of `footprint_bytes` starting at offset 0, and how
//! they arrive in time. Profiles are TOML:
//!
//! ```toml
//! name = "demo"
//! seed = 1
//! requests = 200000
//! read_share = 0.3
//! footprint_bytes = 2147483648
//! page_bytes = 4096                              # default 4096
//! read_size = { uniform = [4096, 16384] }        # or { fixed = [4096, 8192], weights = [3, 1] }
//! write_size = { uniform = [4096, 32768] }
//! address = { kind = "hot-cold", hot_fraction = 0.2, hot_share = 0.8 }
//! arrival = { kind = "poisson", iops = 300.0 }
//! ```
//!
//! # How a request is drawn
//!
//! All randomness comes from one `Xoshiro256PlusPlus` seeded with
//! `seed_from_u64(seed)`. For each request, in this order:
//!
//! 1. the direction: a read if a uniform draw in \[0, 1) is below `read_share`;
//! 2. the size, from that direction's distribution: `fixed` picks one of the
//!    listed sizes with probability proportional to its weight (equal weights
//!    if none are given; no draw if there is one size); `uniform = [min, max]`
//!    picks uniformly among the multiples of `page_bytes` in \[min, max\];
//! 3. the start page, from the address model over the `pages =
//!    footprint_bytes / page_bytes` page slots: `uniform` picks any page;
//!    `zipf` picks popularity rank k (1 = most popular) with probability
//!    proportional to 1/k^theta; `hot-cold` picks a rank among the first
//!    `hot = round(hot_fraction * pages)` ranks with probability `hot_share`
//!    and among the others otherwise, uniformly within each group. A rank is
//!    turned into a page by the [`Scatter`] permutation, so popular pages are
//!    spread over the whole footprint rather than packed at its start;
//! 4. the offset is `page * page_bytes`; a request that would run past the end
//!    of the footprint is moved down to the last page-aligned offset where it
//!    fits (so requests never cross the footprint's end);
//! 5. the arrival time: Poisson arrivals, i.e. exponential gaps of mean
//!    `1e9 / iops` ns, accumulated from time 0 (the first request arrives
//!    after one gap) and rounded down to whole nanoseconds.
//!
//! The stream is the same on every platform: random numbers come from the
//! integer generator only, integer ranges use Lemire's multiply-and-reject
//! method, and the few transcendental functions needed (`ln`, `exp`) are
//! computed here with basic IEEE arithmetic rather than the platform's libm,
//! whose last-bit results differ between systems. Zipf ranks are drawn by
//! rejection-inversion (Hörmann & Derflinger, 1996) in O(1) time and memory
//! whatever the footprint.

use std::path::Path;

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::{IoRecord, Op};
use crate::error::{Error, Result};

/// Default alignment unit of request offsets.
pub const DEFAULT_PAGE_BYTES: u64 = 4096;

/// Largest footprint accepted (the trace readers' address limit).
pub const MAX_FOOTPRINT_BYTES: u64 = 1 << 63;

fn default_page_bytes() -> u64 {
    DEFAULT_PAGE_BYTES
}

/// A synthetic workload: see the [module documentation](self) for the
/// meaning of every field and the TOML form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Name shown in summaries.
    pub name: String,
    /// Seed of the random stream; same seed, same requests.
    pub seed: u64,
    /// Number of requests generated (at least 1).
    pub requests: u64,
    /// Probability that a request is a read, in \[0, 1\].
    pub read_share: f64,
    /// Size of the address range used, starting at offset 0.
    pub footprint_bytes: u64,
    /// Alignment unit of offsets (and of `uniform` sizes); default 4096.
    #[serde(default = "default_page_bytes")]
    pub page_bytes: u64,
    /// Size distribution of reads; required unless `read_share` is 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_size: Option<SizeDist>,
    /// Size distribution of writes; required unless `read_share` is 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_size: Option<SizeDist>,
    /// Where requests land.
    pub address: Address,
    /// When requests arrive.
    pub arrival: Arrival,
}

/// A request-size distribution: exactly one of `fixed` (with optional
/// `weights`) or `uniform`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeDist {
    /// Sizes in bytes, each > 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed: Option<Vec<u64>>,
    /// Relative weights of the `fixed` sizes (same length; default equal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<Vec<f64>>,
    /// `[min, max]` bytes: uniform over the multiples of `page_bytes` in the
    /// range (which must contain at least one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uniform: Option<[u64; 2]>,
}

impl SizeDist {
    /// Always `bytes`.
    pub fn constant(bytes: u64) -> SizeDist {
        SizeDist {
            fixed: Some(vec![bytes]),
            ..SizeDist::default()
        }
    }

    /// One of `sizes`, equally likely.
    pub fn fixed(sizes: Vec<u64>) -> SizeDist {
        SizeDist {
            fixed: Some(sizes),
            ..SizeDist::default()
        }
    }

    /// One of `sizes`, with probabilities proportional to `weights`.
    pub fn weighted(sizes: Vec<u64>, weights: Vec<f64>) -> SizeDist {
        SizeDist {
            fixed: Some(sizes),
            weights: Some(weights),
            uniform: None,
        }
    }

    /// Uniform over the multiples of the page size in `[min, max]`.
    pub fn uniform(min: u64, max: u64) -> SizeDist {
        SizeDist {
            uniform: Some([min, max]),
            ..SizeDist::default()
        }
    }

    /// Check the distribution; `field` names it in errors (e.g. `read_size`).
    pub fn validate(&self, origin: &str, field: &str, page_bytes: u64) -> Result<()> {
        self.compile(page_bytes).map(|_| ()).map_err(|(sub, msg)| {
            let f = if sub.is_empty() {
                field.to_string()
            } else {
                format!("{field}.{sub}")
            };
            Error::config(origin, f, msg)
        })
    }

    /// Mean request size in bytes (for a valid distribution).
    pub fn mean(&self, page_bytes: u64) -> f64 {
        match self.compile(page_bytes) {
            Ok(s) => s.mean(),
            Err(_) => f64::NAN,
        }
    }

    /// Largest size the distribution can produce (0 if invalid).
    pub fn max_bytes(&self, page_bytes: u64) -> u64 {
        match self.compile(page_bytes) {
            Ok(s) => s.max(),
            Err(_) => 0,
        }
    }

    /// The sampler, or (sub-field, message) explaining why not.
    fn compile(&self, page_bytes: u64) -> std::result::Result<SizeSampler, (&'static str, String)> {
        match (&self.fixed, &self.uniform) {
            (Some(_), Some(_)) => Err(("", "give either `fixed` or `uniform`, not both".into())),
            (None, None) => Err((
                "",
                "give `fixed = [bytes, ...]` (optionally with `weights`) or `uniform = [min, max]`"
                    .into(),
            )),
            (None, Some(_)) if self.weights.is_some() => Err((
                "weights",
                "`weights` go with `fixed` sizes, not `uniform`".into(),
            )),
            (Some(sizes), None) => {
                if sizes.is_empty() {
                    return Err(("fixed", "the list of sizes is empty".into()));
                }
                if let Some(i) = sizes.iter().position(|&s| s == 0) {
                    return Err((
                        "fixed",
                        format!("size #{} is 0; sizes must be positive", i + 1),
                    ));
                }
                if let Some(&s) = sizes.iter().find(|&&s| s > MAX_FOOTPRINT_BYTES) {
                    return Err(("fixed", format!("size {s} is larger than 2^63 bytes")));
                }
                let weights = match &self.weights {
                    None => vec![1.0; sizes.len()],
                    Some(w) => {
                        if w.len() != sizes.len() {
                            return Err((
                                "weights",
                                format!(
                                    "{} weights for {} sizes; give one weight per size",
                                    w.len(),
                                    sizes.len()
                                ),
                            ));
                        }
                        if let Some(x) = w.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
                            return Err((
                                "weights",
                                format!("weight {x} is not a finite number >= 0"),
                            ));
                        }
                        w.clone()
                    }
                };
                let mut cumulative = Vec::with_capacity(weights.len());
                let mut total = 0.0;
                for w in &weights {
                    total += w;
                    cumulative.push(total);
                }
                if !(total > 0.0 && total.is_finite()) {
                    return Err((
                        "weights",
                        "the weights must have a positive, finite sum".into(),
                    ));
                }
                Ok(SizeSampler::Fixed {
                    sizes: sizes.clone(),
                    cumulative,
                    total,
                })
            }
            (None, Some([min, max])) => {
                if *min == 0 {
                    return Err((
                        "uniform",
                        "the minimum size is 0; sizes must be positive".into(),
                    ));
                }
                if min > max {
                    return Err(("uniform", format!("min {min} is larger than max {max}")));
                }
                if page_bytes == 0 {
                    return Err(("uniform", "page_bytes is 0".into()));
                }
                let lo = min.div_ceil(page_bytes);
                let hi = max / page_bytes;
                if lo > hi {
                    return Err((
                        "uniform",
                        format!("[{min}, {max}] contains no multiple of page_bytes ({page_bytes})"),
                    ));
                }
                match hi.checked_mul(page_bytes) {
                    Some(v) if v <= MAX_FOOTPRINT_BYTES => {}
                    _ => return Err(("uniform", format!("max {max} is larger than 2^63 bytes"))),
                }
                Ok(SizeSampler::Pages {
                    lo,
                    span: hi - lo + 1,
                    page_bytes,
                })
            }
        }
    }
}

/// Address model: which page of the footprint a request starts at.
///
/// In TOML a table with a `kind` (`uniform`, `zipf` or `hot-cold`) and the
/// parameters of that kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ModelSpec", into = "ModelSpec")]
pub enum Address {
    /// Every page equally likely.
    Uniform,
    /// Page of popularity rank k with probability proportional to 1/k^theta.
    Zipf {
        /// Skew, > 0 (0.99 is the YCSB default).
        theta: f64,
    },
    /// `hot_share` of the requests go to `hot_fraction` of the pages.
    HotCold {
        /// Share of the pages that are hot, in (0, 1).
        hot_fraction: f64,
        /// Share of the requests that go to hot pages, in (0, 1).
        hot_share: f64,
    },
}

/// Arrival process.
///
/// In TOML a table with a `kind` (`poisson`) and its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ModelSpec", into = "ModelSpec")]
pub enum Arrival {
    /// Exponential inter-arrival times with mean `1 / iops` seconds.
    Poisson {
        /// Mean arrival rate, requests per second, > 0.
        iops: f64,
    },
}

/// The TOML form of [`Address`] and [`Arrival`]: a flat table, so that a
/// badly typed parameter is reported at its own key (serde's tagged enums
/// report errors at the table only).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelSpec {
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    theta: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hot_fraction: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hot_share: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    iops: Option<f64>,
}

impl ModelSpec {
    /// The values of the parameters `wanted` for this kind (one of
    /// `known`): an error names a missing parameter or one set that does not
    /// apply.
    fn take<const N: usize>(
        &self,
        table: &str,
        known: &[&str],
        wanted: [&str; N],
    ) -> std::result::Result<[f64; N], String> {
        let all = [
            ("theta", self.theta),
            ("hot_fraction", self.hot_fraction),
            ("hot_share", self.hot_share),
            ("iops", self.iops),
        ];
        if !known.contains(&self.kind.as_str()) {
            return Err(format!(
                "{table}.kind: unknown kind `{}`; known kinds: {}",
                self.kind,
                known.join(", ")
            ));
        }
        let mut out = [0.0; N];
        for (name, value) in all {
            match (wanted.iter().position(|w| *w == name), value) {
                (Some(i), Some(v)) => out[i] = v,
                (Some(_), None) => {
                    return Err(format!(
                        "{table}.{name}: kind `{}` needs `{name}`",
                        self.kind
                    ))
                }
                (None, Some(_)) => {
                    return Err(format!(
                        "{table}.{name}: `{name}` does not apply to kind `{}`",
                        self.kind
                    ))
                }
                (None, None) => {}
            }
        }
        Ok(out)
    }
}

impl TryFrom<ModelSpec> for Address {
    type Error = String;
    fn try_from(s: ModelSpec) -> std::result::Result<Address, String> {
        const KINDS: &[&str] = &["uniform", "zipf", "hot-cold"];
        Ok(match s.kind.as_str() {
            "zipf" => {
                let [theta] = s.take("address", KINDS, ["theta"])?;
                Address::Zipf { theta }
            }
            "hot-cold" => {
                let [hot_fraction, hot_share] =
                    s.take("address", KINDS, ["hot_fraction", "hot_share"])?;
                Address::HotCold {
                    hot_fraction,
                    hot_share,
                }
            }
            _ => {
                s.take("address", KINDS, [])?;
                Address::Uniform
            }
        })
    }
}

impl From<Address> for ModelSpec {
    fn from(a: Address) -> ModelSpec {
        match a {
            Address::Uniform => ModelSpec {
                kind: "uniform".into(),
                ..ModelSpec::default()
            },
            Address::Zipf { theta } => ModelSpec {
                kind: "zipf".into(),
                theta: Some(theta),
                ..ModelSpec::default()
            },
            Address::HotCold {
                hot_fraction,
                hot_share,
            } => ModelSpec {
                kind: "hot-cold".into(),
                hot_fraction: Some(hot_fraction),
                hot_share: Some(hot_share),
                ..ModelSpec::default()
            },
        }
    }
}

impl TryFrom<ModelSpec> for Arrival {
    type Error = String;
    fn try_from(s: ModelSpec) -> std::result::Result<Arrival, String> {
        let [iops] = s.take("arrival", &["poisson"], ["iops"])?;
        Ok(Arrival::Poisson { iops })
    }
}

impl From<Arrival> for ModelSpec {
    fn from(a: Arrival) -> ModelSpec {
        let Arrival::Poisson { iops } = a;
        ModelSpec {
            kind: "poisson".into(),
            iops: Some(iops),
            ..ModelSpec::default()
        }
    }
}

impl Profile {
    /// The built-in profile of the README demo: 200 000 requests, 30 %
    /// reads of 4–16 KiB, writes of 4–32 KiB, 80 % of the requests to 20 %
    /// of a 2 GiB footprint, Poisson arrivals at 300 IOPS (about half of what the `small`
    /// preset sustains with GC running, so queues stay short), seed 1.
    pub fn demo() -> Profile {
        Profile {
            name: "demo".to_string(),
            seed: 1,
            requests: 200_000,
            read_share: 0.3,
            footprint_bytes: 2 << 30,
            page_bytes: DEFAULT_PAGE_BYTES,
            read_size: Some(SizeDist::uniform(4 << 10, 16 << 10)),
            write_size: Some(SizeDist::uniform(4 << 10, 32 << 10)),
            address: Address::HotCold {
                hot_fraction: 0.2,
                hot_share: 0.8,
            },
            arrival: Arrival::Poisson { iops: 300.0 },
        }
    }

    /// Parse and validate a profile; `origin` (usually the file name) names
    /// it in errors, which are [`Error::Config`] naming the field.
    pub fn from_toml(text: &str, origin: &str) -> Result<Profile> {
        let profile: Profile = toml::from_str(text).map_err(|e| toml_error(text, origin, &e))?;
        profile.validate(origin)?;
        Ok(profile)
    }

    /// Read, parse and validate a profile file.
    pub fn load(path: &Path) -> Result<Profile> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Profile::from_toml(&text, &path.display().to_string())
    }

    /// The profile as TOML (as accepted by [`Profile::from_toml`]).
    pub fn to_toml(&self) -> Result<String> {
        toml::to_string(self).map_err(|e| {
            Error::Invalid(format!(
                "profile `{}` cannot be written as TOML: {e}",
                self.name
            ))
        })
    }

    /// Number of page slots the address model draws from.
    pub fn pages(&self) -> u64 {
        self.footprint_bytes
            .checked_div(self.page_bytes)
            .unwrap_or(0)
    }

    /// Check every field; errors are [`Error::Config`] naming `origin` and
    /// the field.
    pub fn validate(&self, origin: &str) -> Result<()> {
        let err = |field: &str, msg: String| Err(Error::config(origin, field, msg));
        if self.requests == 0 {
            return err("requests", "must be at least 1".into());
        }
        if !(0.0..=1.0).contains(&self.read_share) {
            return err(
                "read_share",
                format!("{} is not in [0, 1]", self.read_share),
            );
        }
        if self.page_bytes == 0 {
            return err("page_bytes", "must be positive".into());
        }
        if self.footprint_bytes > MAX_FOOTPRINT_BYTES {
            return err("footprint_bytes", "is larger than 2^63 bytes".into());
        }
        if self.footprint_bytes < self.page_bytes {
            return err(
                "footprint_bytes",
                format!(
                    "{} is smaller than one page ({} bytes)",
                    self.footprint_bytes, self.page_bytes
                ),
            );
        }
        let dists = [
            (
                "read_size",
                &self.read_size,
                self.read_share > 0.0,
                "read_share > 0",
            ),
            (
                "write_size",
                &self.write_size,
                self.read_share < 1.0,
                "read_share < 1",
            ),
        ];
        for (field, dist, needed, why) in dists {
            match dist {
                None if needed => return err(field, format!("is required when {why}")),
                None => {}
                Some(d) => {
                    d.validate(origin, field, self.page_bytes)?;
                    let largest = d.max_bytes(self.page_bytes);
                    if needed && largest > self.footprint_bytes {
                        return err(
                            "footprint_bytes",
                            format!(
                                "{} is smaller than the largest request of {field} ({largest} bytes)",
                                self.footprint_bytes
                            ),
                        );
                    }
                }
            }
        }
        match self.address {
            Address::Uniform => {}
            Address::Zipf { theta } => {
                if !(theta > 0.0 && theta.is_finite()) {
                    return err(
                        "address.theta",
                        format!("{theta} is not a finite number > 0"),
                    );
                }
            }
            Address::HotCold {
                hot_fraction,
                hot_share,
            } => {
                if !(hot_fraction > 0.0 && hot_fraction < 1.0) {
                    return err(
                        "address.hot_fraction",
                        format!("{hot_fraction} is not in (0, 1)"),
                    );
                }
                if !(hot_share > 0.0 && hot_share < 1.0) {
                    return err("address.hot_share", format!("{hot_share} is not in (0, 1)"));
                }
                if self.pages() < 2 {
                    return err(
                        "footprint_bytes",
                        "a hot-cold address model needs a footprint of at least 2 pages".into(),
                    );
                }
            }
        }
        match self.arrival {
            Arrival::Poisson { iops } => {
                if !(iops > 0.0 && iops.is_finite() && (1e9 / iops).is_finite()) {
                    return err("arrival.iops", format!("{iops} is not a finite number > 0"));
                }
            }
        }
        Ok(())
    }
}

/// Turn a TOML error into a [`Error::Config`] naming the field as closely as
/// the error allows.
fn toml_error(text: &str, origin: &str, e: &toml::de::Error) -> Error {
    let msg = e.message().trim().replace('\n', " ");
    let span = e.span().map(|s| {
        let mut start = s.start.min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        start..s.end
    });
    // serde names a missing or unknown field in the message; the span then
    // points at the table that lacks it or at the unknown key
    let named = ["missing field `", "unknown field `"]
        .iter()
        .find_map(|p| backticked_after(&msg, p));
    let field = match (named, &span) {
        (Some(f), Some(s)) => join_key(&table_path(text, s.start), f),
        (Some(f), None) => f.to_string(),
        (None, Some(s)) => key_path(text, s.start),
        (None, None) => String::new(),
    };
    let field = if field.is_empty() {
        "toml".to_string()
    } else {
        field
    };
    // our own conversion errors start with the dotted field they are about
    let (field, msg) = match msg.split_once(": ") {
        Some((f, m)) if f.starts_with(&format!("{field}.")) && f.chars().all(is_key_char) => {
            (f.to_string(), m.to_string())
        }
        _ => (field, msg),
    };
    let at = match span {
        Some(s) => {
            let before = &text[..s.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!(" (line {line}, column {col})")
        }
        None => String::new(),
    };
    Error::config(origin, field, format!("{msg}{at}"))
}

fn backticked_after<'a>(msg: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = &msg[msg.find(prefix)? + prefix.len()..];
    Some(&rest[..rest.find('`')?])
}

fn join_key(table: &str, key: &str) -> String {
    if table.is_empty() {
        key.to_string()
    } else {
        format!("{table}.{key}")
    }
}

/// The `[section]` in force at byte `pos` and the inline tables open there,
/// as a dotted path (no key of its own).
fn table_path(text: &str, pos: usize) -> String {
    let (section, keys, _) = scan_keys(text, pos);
    let mut parts: Vec<&str> = section.into_iter().collect();
    parts.extend(keys);
    parts.join(".")
}

/// The dotted key whose key or value contains byte `pos`.
fn key_path(text: &str, pos: usize) -> String {
    let (section, mut keys, current) = scan_keys(text, pos);
    let pos = pos.min(text.len());
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let on_header = text[line_start..]
        .lines()
        .next()
        .and_then(section_name)
        .is_some();
    match current {
        Some(k) => keys.push(k),
        None if on_header => {}
        None => {
            // `pos` is on a key itself
            let rest = &text[pos.min(text.len())..];
            let end = rest.find(|c: char| !is_key_char(c)).unwrap_or(rest.len());
            if end > 0 {
                keys.push(&rest[..end]);
            }
        }
    }
    let mut parts: Vec<&str> = section.into_iter().collect();
    parts.extend(keys);
    parts.join(".")
}

/// `x.y` for a `[x.y]` or `[[x.y]]` header line.
fn section_name(line: &str) -> Option<&str> {
    let l = line.trim();
    if !l.starts_with('[') {
        return None;
    }
    let l = l.split('#').next().unwrap_or("").trim();
    Some(l.trim_start_matches('[').trim_end_matches(']').trim())
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'
}

/// Scan the line holding `pos` up to `pos`: the section header in force, the
/// keys of the inline tables open at `pos`, and the key whose value `pos` is
/// in, if any.
fn scan_keys(text: &str, pos: usize) -> (Option<&str>, Vec<&str>, Option<&str>) {
    let pos = pos.min(text.len());
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    // the section in force: the header at or above this line (an error in
    // a table that serde buffers, such as a tagged enum, points at its header)
    let section = text[..end].lines().rev().find_map(section_name);
    if section_name(&text[start..end]).is_some() {
        return (section, Vec::new(), None);
    }
    let line = &text[start..pos];
    let mut open: Vec<&str> = Vec::new();
    let mut current: Option<&str> = None;
    let mut token_start: Option<usize> = None;
    let mut last_token: Option<&str> = None;
    let mut in_string: Option<char> = None;
    for (i, c) in line.char_indices() {
        if let Some(q) = in_string {
            if c == q {
                in_string = None;
            }
            continue;
        }
        if is_key_char(c) {
            token_start.get_or_insert(i);
            continue;
        }
        if let Some(s) = token_start.take() {
            last_token = Some(&line[s..i]);
        }
        match c {
            '"' | '\'' => in_string = Some(c),
            '=' => current = last_token,
            '{' => {
                if let Some(k) = current.take() {
                    open.push(k);
                }
            }
            '}' => {
                open.pop();
                current = None;
            }
            ',' if !open.is_empty() => current = None,
            '#' => break,
            _ => {}
        }
    }
    (section, open, current)
}

// ---------------------------------------------------------------------------
// Samplers

/// A compiled size distribution.
#[derive(Clone, Debug)]
enum SizeSampler {
    Fixed {
        sizes: Vec<u64>,
        cumulative: Vec<f64>,
        total: f64,
    },
    /// `(lo + uniform(span)) * page_bytes`.
    Pages { lo: u64, span: u64, page_bytes: u64 },
}

impl SizeSampler {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> u64 {
        match self {
            SizeSampler::Fixed {
                sizes,
                cumulative,
                total,
            } => {
                if sizes.len() == 1 {
                    return sizes[0];
                }
                let x = unit(rng) * total;
                let i = cumulative.partition_point(|&c| c <= x);
                // x < total, so i < len; guard against rounding anyway
                sizes[i.min(sizes.len() - 1)]
            }
            SizeSampler::Pages {
                lo,
                span,
                page_bytes,
            } => (lo + below(rng, *span)) * page_bytes,
        }
    }

    fn mean(&self) -> f64 {
        match self {
            SizeSampler::Fixed {
                sizes,
                cumulative,
                total,
            } => {
                let mut prev = 0.0;
                let mut sum = 0.0;
                for (s, c) in sizes.iter().zip(cumulative) {
                    sum += (*s as f64) * (c - prev);
                    prev = *c;
                }
                sum / total
            }
            SizeSampler::Pages {
                lo,
                span,
                page_bytes,
            } => (*lo as f64 + (*span - 1) as f64 / 2.0) * *page_bytes as f64,
        }
    }

    fn max(&self) -> u64 {
        match self {
            SizeSampler::Fixed { sizes, .. } => sizes.iter().copied().max().unwrap_or(0),
            SizeSampler::Pages {
                lo,
                span,
                page_bytes,
            } => (lo + span - 1).saturating_mul(*page_bytes),
        }
    }
}

/// A uniform draw in \[0, 1) with 53 random bits.
#[inline]
fn unit(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform integer in \[0, n) (n > 0), without bias (Lemire 2019).
#[inline]
fn below(rng: &mut Xoshiro256PlusPlus, n: u64) -> u64 {
    debug_assert!(n > 0);
    let mut m = rng.next_u64() as u128 * n as u128;
    if (m as u64) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u64) < threshold {
            m = rng.next_u64() as u128 * n as u128;
        }
    }
    (m >> 64) as u64
}

/// Zipf ranks 1..=n with P(k) ∝ k^-theta, by rejection-inversion.
///
/// With h(x) = x^-theta and H its integral from 1, a uniform u over
/// \[H(1.5) − 1, H(n + 0.5)\] is inverted to x = H⁻¹(u) and rounded to the rank
/// k; k is accepted when u lies in the top h(k) of the strip
/// \[H(k − 0.5), H(k + 0.5)\] (which is at least that long, h being convex),
/// so every rank is accepted with probability ∝ h(k). Rank 1's strip is
/// exactly h(1) long and always accepted.
#[derive(Clone, Debug)]
struct Zipf {
    n: u64,
    theta: f64,
    /// 1 - theta.
    q: f64,
    u_lo: f64,
    u_hi: f64,
}

impl Zipf {
    fn new(n: u64, theta: f64) -> Zipf {
        let mut z = Zipf {
            n,
            theta,
            q: 1.0 - theta,
            u_lo: 0.0,
            u_hi: 0.0,
        };
        z.u_lo = z.big_h(1.5) - 1.0;
        z.u_hi = z.big_h(n as f64 + 0.5);
        z
    }

    /// ∫₁ˣ t^-theta dt = (x^q − 1)/q, or ln x when q = 0.
    fn big_h(&self, x: f64) -> f64 {
        let l = dmath::ln(x);
        l * dmath::expm1_over_x(self.q * l)
    }

    /// Inverse of `big_h`.
    fn big_h_inv(&self, y: f64) -> f64 {
        dmath::exp(y * dmath::ln1p_over_x(self.q * y))
    }

    /// x^-theta.
    fn h(&self, x: f64) -> f64 {
        dmath::exp(-self.theta * dmath::ln(x))
    }

    /// A rank in 1..=n, or None if rounding trouble kept rejecting (not seen
    /// in practice; bounded so that it cannot hang).
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> Option<u64> {
        for _ in 0..10_000 {
            let u = self.u_hi + unit(rng) * (self.u_lo - self.u_hi);
            let x = self.big_h_inv(u);
            // the saturating float-to-int cast maps NaN to 0
            let k = ((x + 0.5) as u64).clamp(1, self.n);
            if k == 1 || u >= self.big_h(k as f64 + 0.5) - self.h(k as f64) {
                return Some(k);
            }
        }
        None
    }
}

/// A fixed pseudo-random bijection of \[0, n), used to scatter popularity
/// ranks over the pages of the footprint.
///
/// It is a balanced Feistel network of 6 rounds over the smallest domain of
/// 2^(2h) values that holds n (h ≥ 1), with cycle walking: values of the
/// domain at or above n are encrypted again until they fall below n. Each
/// round maps (L, R) to (R, L xor F(R xor key_i)) with F the SplitMix64
/// finaliser truncated to h bits; the round keys come from the profile seed
/// through SplitMix64. A Feistel network is a bijection of its domain
/// whatever F is, and cycle walking restricts a bijection to a bijection of
/// \[0, n); since the domain is less than 4n, a value takes fewer than 4
/// rounds of walking on average.
#[derive(Clone, Debug)]
pub struct Scatter {
    n: u64,
    half_bits: u32,
    mask: u64,
    keys: [u64; SCATTER_ROUNDS],
}

const SCATTER_ROUNDS: usize = 6;

/// The SplitMix64 output function.
#[inline]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Scatter {
    /// The permutation of \[0, n) keyed by `seed`.
    pub fn new(n: u64, seed: u64) -> Scatter {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let mut state = seed ^ 0x5ca7_7e25_ca77_e250;
        let mut keys = [0u64; SCATTER_ROUNDS];
        for k in &mut keys {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            *k = mix64(state);
        }
        Scatter {
            n,
            half_bits,
            mask: (1u64 << half_bits) - 1,
            keys,
        }
    }

    /// Size of the permuted range.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The image of `x`, or None if `x >= n`.
    pub fn forward(&self, x: u64) -> Option<u64> {
        (x < self.n).then(|| self.permute(x))
    }

    /// The preimage of `y`, or None if `y >= n`.
    pub fn inverse(&self, y: u64) -> Option<u64> {
        if y >= self.n {
            return None;
        }
        let mut v = self.decrypt(y);
        while v >= self.n {
            v = self.decrypt(v);
        }
        Some(v)
    }

    /// `forward` for `x < n`.
    #[inline]
    fn permute(&self, x: u64) -> u64 {
        let mut v = self.encrypt(x);
        while v >= self.n {
            v = self.encrypt(v);
        }
        v
    }

    #[inline]
    fn round(&self, r: u64, i: usize) -> u64 {
        mix64(r ^ self.keys[i]) & self.mask
    }

    #[inline]
    fn encrypt(&self, v: u64) -> u64 {
        let (mut l, mut r) = (v >> self.half_bits, v & self.mask);
        for i in 0..SCATTER_ROUNDS {
            (l, r) = (r, l ^ self.round(r, i));
        }
        (l << self.half_bits) | r
    }

    #[inline]
    fn decrypt(&self, v: u64) -> u64 {
        let (mut l, mut r) = (v >> self.half_bits, v & self.mask);
        for i in (0..SCATTER_ROUNDS).rev() {
            (l, r) = (r ^ self.round(l, i), l);
        }
        (l << self.half_bits) | r
    }
}

/// A compiled address model.
#[derive(Clone, Debug)]
enum AddrSampler {
    Uniform,
    Zipf(Zipf),
    HotCold { hot: u64, hot_share: f64 },
}

/// Everything a valid profile compiles to.
#[derive(Clone, Debug)]
struct Compiled {
    read_share: f64,
    read_size: Option<SizeSampler>,
    write_size: Option<SizeSampler>,
    addr: AddrSampler,
    scatter: Scatter,
    pages: u64,
    page_bytes: u64,
    footprint: u64,
    mean_gap_ns: f64,
    requests: u64,
}

impl Compiled {
    fn new(p: &Profile, origin: &str) -> Result<Compiled> {
        p.validate(origin)?;
        let compile = |d: &Option<SizeDist>, field: &str| -> Result<Option<SizeSampler>> {
            d.as_ref()
                .map(|d| {
                    d.compile(p.page_bytes)
                        .map_err(|(sub, msg)| Error::config(origin, format!("{field}.{sub}"), msg))
                })
                .transpose()
        };
        let pages = p.pages();
        let addr = match p.address {
            Address::Uniform => AddrSampler::Uniform,
            Address::Zipf { theta } => AddrSampler::Zipf(Zipf::new(pages, theta)),
            Address::HotCold {
                hot_fraction,
                hot_share,
            } => {
                // validate() guarantees pages >= 2, so the clamp range is sound
                let hot = ((hot_fraction * pages as f64).round() as u64).clamp(1, pages - 1);
                AddrSampler::HotCold { hot, hot_share }
            }
        };
        let Arrival::Poisson { iops } = p.arrival;
        Ok(Compiled {
            read_share: p.read_share,
            read_size: compile(&p.read_size, "read_size")?,
            write_size: compile(&p.write_size, "write_size")?,
            addr,
            scatter: Scatter::new(pages, p.seed),
            pages,
            page_bytes: p.page_bytes,
            footprint: p.footprint_bytes,
            mean_gap_ns: 1e9 / iops,
            requests: p.requests,
        })
    }
}

/// Generates the requests of a [`Profile`]; see the [module documentation](self).
///
/// An invalid profile makes the first item an error (and the stream ends
/// there); use [`Generator::try_new`] to find out at construction.
#[derive(Debug)]
pub struct Generator {
    rng: Xoshiro256PlusPlus,
    state: std::result::Result<Compiled, Option<Error>>,
    emitted: u64,
    clock_ns: f64,
    done: bool,
}

impl Generator {
    /// A generator for `profile`; never fails (see [`Generator::try_new`]).
    pub fn new(profile: &Profile) -> Generator {
        let origin = format!("profile `{}`", profile.name);
        Generator {
            rng: Xoshiro256PlusPlus::seed_from_u64(profile.seed),
            state: Compiled::new(profile, &origin).map_err(Some),
            emitted: 0,
            clock_ns: 0.0,
            done: false,
        }
    }

    /// A generator for `profile`, or the validation error.
    pub fn try_new(profile: &Profile) -> Result<Generator> {
        let mut g = Generator::new(profile);
        match &mut g.state {
            Ok(_) => Ok(g),
            Err(e) => Err(e
                .take()
                .unwrap_or_else(|| Error::Invalid("invalid profile".into()))),
        }
    }

    /// Number of page slots addresses are drawn from (0 if the profile is
    /// invalid).
    pub fn pages(&self) -> u64 {
        self.state.as_ref().map_or(0, |c| c.pages)
    }

    /// For `hot-cold`: the number of hot ranks (ranks below it are hot).
    pub fn hot_pages(&self) -> Option<u64> {
        match self.state.as_ref().ok()?.addr {
            AddrSampler::HotCold { hot, .. } => Some(hot),
            _ => None,
        }
    }

    /// The popularity rank (0 = most popular for `zipf`; below
    /// [`hot_pages`](Self::hot_pages) = hot for `hot-cold`) of page `page`
    /// (offset / page_bytes). For `uniform` the rank is the page itself.
    pub fn rank_of_page(&self, page: u64) -> Option<u64> {
        let c = self.state.as_ref().ok()?;
        match c.addr {
            AddrSampler::Uniform => (page < c.pages).then_some(page),
            _ => c.scatter.inverse(page),
        }
    }

    /// The page holding popularity rank `rank` (inverse of
    /// [`rank_of_page`](Self::rank_of_page)).
    pub fn page_of_rank(&self, rank: u64) -> Option<u64> {
        let c = self.state.as_ref().ok()?;
        match c.addr {
            AddrSampler::Uniform => (rank < c.pages).then_some(rank),
            _ => c.scatter.forward(rank),
        }
    }

    fn generate(&mut self) -> Result<Option<IoRecord>> {
        let c = match &mut self.state {
            Ok(c) => c,
            Err(e) => {
                let e = e.take();
                return match e {
                    Some(e) => Err(e),
                    None => Ok(None),
                };
            }
        };
        if self.emitted >= c.requests {
            return Ok(None);
        }
        let rng = &mut self.rng;
        let op = if unit(rng) < c.read_share {
            Op::Read
        } else {
            Op::Write
        };
        let sizes = match op {
            Op::Read => &c.read_size,
            Op::Write => &c.write_size,
        };
        // validate() requires the distribution of every op that can occur
        let size = match sizes {
            Some(s) => s.sample(rng),
            None => {
                return Err(Error::Invalid(format!(
                    "internal: no size distribution for {op:?} requests"
                )))
            }
        };
        let page = match &c.addr {
            AddrSampler::Uniform => below(rng, c.pages),
            AddrSampler::Zipf(z) => {
                let k = z.sample(rng).ok_or_else(|| {
                    Error::Invalid("the zipf sampler did not converge (numerical trouble)".into())
                })?;
                c.scatter.permute(k - 1)
            }
            AddrSampler::HotCold { hot, hot_share } => {
                let rank = if unit(rng) < *hot_share {
                    below(rng, *hot)
                } else {
                    hot + below(rng, c.pages - hot)
                };
                c.scatter.permute(rank)
            }
        };
        let mut offset = page * c.page_bytes;
        if offset + size > c.footprint {
            // size <= footprint (validated): the last aligned offset that fits
            offset = (c.footprint - size) / c.page_bytes * c.page_bytes;
        }
        // Exponential gap: -ln(1 - U) with 1 - U in (0, 1].
        self.clock_ns += -dmath::ln(1.0 - unit(rng)) * c.mean_gap_ns;
        if !self.clock_ns.is_finite() || self.clock_ns >= u64::MAX as f64 {
            return Err(Error::Invalid(format!(
                "arrival times of the synthetic profile overflow u64 nanoseconds after {} requests",
                self.emitted
            )));
        }
        self.emitted += 1;
        Ok(Some(IoRecord {
            time_ns: self.clock_ns as u64,
            op,
            offset,
            size,
        }))
    }
}

impl Iterator for Generator {
    type Item = Result<IoRecord>;

    fn next(&mut self) -> Option<Result<IoRecord>> {
        if self.done {
            return None;
        }
        match self.generate() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.state {
            Ok(c) if !self.done => {
                let left = usize::try_from(c.requests - self.emitted).unwrap_or(usize::MAX);
                (left, Some(left))
            }
            Err(Some(_)) => (1, Some(1)),
            _ => (0, Some(0)),
        }
    }
}

/// Platform-independent `ln` and `exp` from IEEE basic operations only
/// (which are exactly rounded everywhere), accurate to a few ulp.
mod dmath {
    /// ln 2 split so that `k * LN2_HI` is exact for |k| < 2^20.
    const LN2_HI: f64 = 6.931_471_803_691_238e-1;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    const SQRT2: f64 = std::f64::consts::SQRT_2;

    /// Σ z^k / (2k + 1), k = 0..: atanh(s) = s · series(s²). Enough terms for
    /// z ≤ 1/9 (|s| ≤ 1/3).
    #[inline]
    fn atanh_series(z: f64) -> f64 {
        let mut acc = 0.0;
        let mut k = 24;
        while k > 0 {
            k -= 1;
            acc = acc * z + 1.0 / (2 * k + 1) as f64;
        }
        acc
    }

    /// Natural logarithm (NaN for x < 0 or NaN, −∞ for 0, ∞ for ∞).
    pub fn ln(x: f64) -> f64 {
        if x.is_nan() || x < 0.0 {
            return f64::NAN;
        }
        if x == 0.0 {
            return f64::NEG_INFINITY;
        }
        if x.is_infinite() {
            return x;
        }
        let (mut x, mut e) = (x, 0i64);
        if x < f64::MIN_POSITIVE {
            x *= (1u64 << 54) as f64;
            e = -54;
        }
        let bits = x.to_bits();
        e += ((bits >> 52) & 0x7ff) as i64 - 1023;
        let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
        if m > SQRT2 {
            m *= 0.5;
            e += 1;
        }
        // m in (√2/2, √2]; f = m − 1 is exact.
        let f = m - 1.0;
        let s = f / (2.0 + f);
        let ln_m = 2.0 * s * atanh_series(s * s);
        let e = e as f64;
        e * LN2_HI + (ln_m + e * LN2_LO)
    }

    /// ln(1 + y) / y, continuous at y = 0 (value 1); y > −1.
    pub fn ln1p_over_x(y: f64) -> f64 {
        if y.abs() <= 0.5 {
            // ln(1+y) = 2 atanh(s), s = y/(2+y): no cancellation near 0
            let d = 2.0 + y;
            let s = y / d;
            2.0 * atanh_series(s * s) / d
        } else {
            ln(1.0 + y) / y
        }
    }

    /// Σ r^k / (k + 1)!, k = 0..: (e^r − 1)/r for |r| ≤ 0.5.
    #[inline]
    fn expm1_series(r: f64) -> f64 {
        let mut acc = 1.0;
        let mut k = 20;
        while k > 1 {
            acc = 1.0 + acc * r / k as f64;
            k -= 1;
        }
        acc
    }

    /// (e^y − 1) / y, continuous at y = 0 (value 1).
    pub fn expm1_over_x(y: f64) -> f64 {
        if y.abs() <= 0.5 {
            expm1_series(y)
        } else {
            (exp(y) - 1.0) / y
        }
    }

    /// e^x (0 below about −745, ∞ above about 709.8, NaN for NaN).
    pub fn exp(x: f64) -> f64 {
        if x.is_nan() {
            return x;
        }
        if x > 709.79 {
            return f64::INFINITY;
        }
        if x < -745.2 {
            return 0.0;
        }
        let k = (x * std::f64::consts::LOG2_E).round();
        let r = (x - k * LN2_HI) - k * LN2_LO;
        // e^r = 1 + r · (e^r − 1)/r, |r| ≤ 0.35
        let er = 1.0 + r * expm1_series(r);
        let k = k as i64;
        let pow2 = |e: i64| f64::from_bits(((e + 1023) as u64) << 52);
        if k > 1023 {
            er * pow2(1023) * pow2(k - 1023)
        } else if k < -1022 {
            er * pow2(-1022) * pow2(k + 1022)
        } else {
            er * pow2(k)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn close(a: f64, b: f64, rel: f64) -> bool {
            a == b || ((a - b) / b).abs() <= rel
        }

        #[test]
        fn matches_std_closely() {
            let mut x = 1e-310;
            while x < 1e300 {
                assert!(
                    close(ln(x), x.ln(), 4e-16) || (ln(x) - x.ln()).abs() < 1e-15,
                    "ln {x}"
                );
                x *= 1.37;
            }
            for i in -7000..7000 {
                let x = i as f64 * 0.1013;
                assert!(
                    close(exp(x), x.exp(), 1e-15),
                    "exp {x}: {} vs {}",
                    exp(x),
                    x.exp()
                );
            }
            for i in -999..2000 {
                let y = i as f64 * 1e-3;
                assert!(
                    close(ln1p_over_x(y), y.ln_1p() / y, 1e-15) || i == 0,
                    "ln1p {y}"
                );
                assert!(
                    close(expm1_over_x(y), y.exp_m1() / y, 1e-15) || i == 0,
                    "expm1 {y}"
                );
            }
            assert_eq!(ln1p_over_x(0.0), 1.0);
            assert_eq!(expm1_over_x(0.0), 1.0);
            assert_eq!(ln(1.0), 0.0);
            assert_eq!(exp(0.0), 1.0);
            assert!(ln(-1.0).is_nan() && ln(0.0) == f64::NEG_INFINITY);
            assert!(exp(1000.0).is_infinite() && exp(-1000.0) == 0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatter_is_a_bijection() {
        for n in [1u64, 2, 3, 5, 16, 17, 1000, 4097] {
            let s = Scatter::new(n, 7);
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = s.forward(x).unwrap();
                assert!(!seen[y as usize], "n={n}: {y} twice");
                seen[y as usize] = true;
                assert_eq!(s.inverse(y), Some(x));
            }
            assert_eq!(s.forward(n), None);
            assert_eq!(s.inverse(n), None);
        }
        let big = Scatter::new(u64::MAX, 1);
        let y = big.forward(12345).unwrap();
        assert_eq!(big.inverse(y), Some(12345));
        assert_eq!(Scatter::new(0, 1).forward(0), None);
    }

    #[test]
    fn scatter_spreads_hot_ranks() {
        // the first 1% of ranks of 100k pages land all over the range
        let s = Scatter::new(100_000, 1);
        let mut buckets = [0u32; 10];
        for r in 0..1000 {
            buckets[(s.forward(r).unwrap() / 10_000) as usize] += 1;
        }
        assert!(
            buckets.iter().all(|&b| (50..=150).contains(&b)),
            "{buckets:?}"
        );
    }

    #[test]
    fn zipf_matches_its_distribution() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        for theta in [0.5, 0.99, 1.0, 1.5] {
            let n = 50u64;
            let z = Zipf::new(n, theta);
            let norm: f64 = (1..=n).map(|k| (k as f64).powf(-theta)).sum();
            let mut counts = vec![0u64; n as usize + 1];
            let draws = 400_000;
            for _ in 0..draws {
                counts[z.sample(&mut rng).unwrap() as usize] += 1;
            }
            for k in [1u64, 2, 5, 50] {
                let want = (k as f64).powf(-theta) / norm;
                let got = counts[k as usize] as f64 / draws as f64;
                let sd = (want * (1.0 - want) / draws as f64).sqrt();
                assert!(
                    (got - want).abs() < 5.0 * sd,
                    "theta {theta} k {k}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn zipf_handles_huge_ranges() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let n = 1u64 << 40;
        let z = Zipf::new(n, 0.99);
        let mut ones = 0;
        for _ in 0..10_000 {
            let k = z.sample(&mut rng).unwrap();
            assert!((1..=n).contains(&k));
            ones += (k == 1) as u32;
        }
        assert!(ones > 0);
    }

    #[test]
    fn lemire_is_in_range() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        for n in [1u64, 2, 3, 7, u64::MAX] {
            for _ in 0..1000 {
                assert!(below(&mut rng, n) < n);
            }
        }
    }

    #[test]
    fn demo_is_valid_and_round_trips() {
        let demo = Profile::demo();
        demo.validate("demo").unwrap();
        let text = demo.to_toml().unwrap();
        assert_eq!(Profile::from_toml(&text, "demo.toml").unwrap(), demo);
    }

    #[test]
    fn toml_errors_name_fields() {
        let base = Profile::demo().to_toml().unwrap();
        let cases = [
            (base.replace("seed = 1", "seed = \"x\""), "seed"),
            (base.replace("seed = 1", "sead = 1"), "sead"),
            (base.replace("seed = 1\n", ""), "seed"),
            (
                base.replace("hot_share = 0.8", "hot_share = \"a\""),
                "address.hot_share",
            ),
            (
                base.replace("hot_share = 0.8", "hot_shar = 0.8"),
                "address.hot_shar",
            ),
            (
                base.replace("kind = \"hot-cold\"", "kind = \"hot\""),
                "address.kind",
            ),
            (
                base.replace("kind = \"hot-cold\"", "kind = \"zipf\""),
                "address.theta",
            ),
            (
                base.replace("iops = 300.0", "iops = 300.0\ntheta = 1"),
                "arrival.theta",
            ),
            (base.replace("iops = 300.0", "iops = []"), "arrival.iops"),
            (
                base.replace("read_share = 0.3", "read_share = 1.3"),
                "read_share",
            ),
            (
                base.replace("[write_size]", "[write_size]\nfixed = [0]"),
                "write_size",
            ),
        ];
        for (text, field) in cases {
            let e = Profile::from_toml(&text, "p.toml").unwrap_err();
            match &e {
                Error::Config {
                    origin, field: f, ..
                } => {
                    assert_eq!(origin, "p.toml");
                    assert_eq!(f, field, "{e}\n{text}");
                }
                other => panic!("{other}"),
            }
        }
    }
}
