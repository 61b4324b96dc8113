//! The TOML form of a profile: the serde shapes of [`Profile`], [`Address`]
//! and [`Arrival`] and their conversions, parsing and writing, and the
//! translation of TOML errors into [`Error::Config`] naming the field.

use crate::toml_keys::{section_name, toml_error};
use std::path::Path;

use serde::{Deserialize, Deserializer, Serialize};

use super::{Address, Arrival, Profile, SizeDist, DEFAULT_PAGE_BYTES};
use crate::error::{Error, Result};

fn default_page_bytes() -> u64 {
    DEFAULT_PAGE_BYTES
}

/// The TOML form of [`Profile`]: the keys the language has, which the Rust
/// type folds into its enums (see [In Rust](super#in-rust)).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProfileSpec {
    name: String,
    seed: u64,
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "positive_requests"
    )]
    requests: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    duration_s: Option<f64>,
    read_share: f64,
    footprint_bytes: u64,
    #[serde(default = "default_page_bytes")]
    page_bytes: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    read_size: Option<SizeDist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    write_size: Option<SizeDist>,
    address: Address,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    read_address: Option<Address>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    write_address: Option<Address>,
    arrival: Arrival,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    latency_hint: Option<LatencyHintSpec>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    balanced: bool,
}

/// `latency_hint = { lsb = .., csb = .., msb = .. }`: shares of writes.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(super) struct LatencyHintSpec {
    #[serde(default)]
    lsb: f64,
    #[serde(default)]
    csb: f64,
    #[serde(default)]
    msb: f64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `requests` as written in TOML: 0 is refused there (leave the key out to
/// bound the stream by `duration_s`).
fn positive_requests<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<u64, D::Error> {
    let n = u64::deserialize(d)?;
    if n == 0 {
        return Err(serde::de::Error::custom(
            "must be at least 1 (to bound the stream by time, leave `requests` out and give `duration_s`)",
        ));
    }
    Ok(n)
}

impl From<ProfileSpec> for Profile {
    fn from(s: ProfileSpec) -> Profile {
        let address = if s.read_address.is_some() || s.write_address.is_some() {
            Address::PerOp {
                address: Box::new(s.address),
                read: s.read_address.map(Box::new),
                write: s.write_address.map(Box::new),
            }
        } else {
            s.address
        };
        let arrival = match s.duration_s {
            Some(duration_s) => s.arrival.until(duration_s),
            None => s.arrival,
        };
        let arrival = if s.balanced {
            arrival.balanced()
        } else {
            arrival
        };
        Profile {
            name: s.name,
            seed: s.seed,
            requests: s.requests,
            read_share: s.read_share,
            footprint_bytes: s.footprint_bytes,
            page_bytes: s.page_bytes,
            read_size: s.read_size,
            write_size: s.write_size,
            address,
            arrival,
            latency_hint: s.latency_hint.map(|h| [h.lsb, h.csb, h.msb]),
        }
    }
}

impl From<Profile> for ProfileSpec {
    fn from(p: Profile) -> ProfileSpec {
        let (address, read_address, write_address) = match p.address {
            Address::PerOp {
                address,
                read,
                write,
            } => (*address, read.map(|a| *a), write.map(|a| *a)),
            a => (a, None, None),
        };
        let (arrival, balanced) = match p.arrival {
            Arrival::Balanced { process } => (*process, true),
            a => (a, false),
        };
        let (arrival, duration_s) = match arrival {
            Arrival::Until {
                duration_s,
                process,
            } => (*process, Some(duration_s)),
            a => (a, None),
        };
        ProfileSpec {
            name: p.name,
            seed: p.seed,
            requests: p.requests,
            duration_s,
            read_share: p.read_share,
            footprint_bytes: p.footprint_bytes,
            page_bytes: p.page_bytes,
            read_size: p.read_size,
            write_size: p.write_size,
            address,
            read_address,
            write_address,
            arrival,
            latency_hint: p
                .latency_hint
                .map(|[lsb, csb, msb]| LatencyHintSpec { lsb, csb, msb }),
            balanced,
        }
    }
}

/// The TOML form of [`Address`] and [`Arrival`]: a flat table, so that a
/// badly typed parameter is reported at its own key (serde's tagged enums
/// report errors at the table only).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ModelSpec {
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    theta: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hot_fraction: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hot_share: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    iops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    on_iops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    off_iops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    on_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    off_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sequential: Option<SequentialSpec>,
}

/// The TOML form of the sequential part of [`Address::Sequential`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SequentialSpec {
    share: f64,
    #[serde(default = "one_stream")]
    streams: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    run_requests: Option<f64>,
}

fn one_stream() -> u32 {
    1
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
            ("on_iops", self.on_iops),
            ("off_iops", self.off_iops),
            ("on_ms", self.on_ms),
            ("off_ms", self.off_ms),
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
        let base = match s.kind.as_str() {
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
        };
        Ok(match s.sequential {
            None => base,
            Some(q) => base.with_sequential(q.share, q.streams, q.run_requests),
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
            Address::Sequential {
                base,
                share,
                streams,
                run_requests,
            } => ModelSpec {
                sequential: Some(SequentialSpec {
                    share,
                    streams,
                    run_requests,
                }),
                ..ModelSpec::from(*base)
            },
            // not representable in a model table: only valid at the top
            // level, which ProfileSpec unpacks (to_toml refuses the rest)
            Address::PerOp { address, .. } => ModelSpec::from(*address),
        }
    }
}

impl TryFrom<ModelSpec> for Arrival {
    type Error = String;
    fn try_from(s: ModelSpec) -> std::result::Result<Arrival, String> {
        const KINDS: &[&str] = &["poisson", "on-off"];
        let arrival = if s.kind == "on-off" {
            let [on_iops, off_iops, on_ms, off_ms] =
                s.take("arrival", KINDS, ["on_iops", "off_iops", "on_ms", "off_ms"])?;
            Arrival::OnOff {
                on_iops,
                off_iops,
                on_ms,
                off_ms,
            }
        } else {
            let [iops] = s.take("arrival", KINDS, ["iops"])?;
            Arrival::Poisson { iops }
        };
        if s.sequential.is_some() {
            return Err(
                "arrival.sequential: `sequential` belongs in an address model, not in `arrival`"
                    .into(),
            );
        }
        Ok(arrival)
    }
}

impl From<Arrival> for ModelSpec {
    fn from(a: Arrival) -> ModelSpec {
        match a {
            Arrival::Poisson { iops } => ModelSpec {
                kind: "poisson".into(),
                iops: Some(iops),
                ..ModelSpec::default()
            },
            Arrival::OnOff {
                on_iops,
                off_iops,
                on_ms,
                off_ms,
            } => ModelSpec {
                kind: "on-off".into(),
                on_iops: Some(on_iops),
                off_iops: Some(off_iops),
                on_ms: Some(on_ms),
                off_ms: Some(off_ms),
                ..ModelSpec::default()
            },
            // only valid at the top level, which ProfileSpec unpacks
            Arrival::Until { process, .. } | Arrival::Balanced { process } => {
                ModelSpec::from(*process)
            }
        }
    }
}

impl Profile {
    /// Parse and validate a profile; `origin` (usually the file name) names
    /// it in errors, which are [`Error::Config`] naming the field.
    pub fn from_toml(text: &str, origin: &str) -> Result<Profile> {
        let profile: Profile = toml::from_str(text).map_err(|e| toml_error(text, origin, &e))?;
        profile
            .validate(origin)
            .map_err(|e| with_key_line(text, e))?;
        Ok(profile)
    }

    /// Read, parse and validate a profile file.
    pub fn load(path: &Path) -> Result<Profile> {
        let text = crate::input::read_text_limited(
            path,
            crate::input::MAX_SPEC_BYTES,
            "a workload profile",
        )?;
        Profile::from_toml(&text, &path.display().to_string())
    }

    /// The profile as TOML (as accepted by [`Profile::from_toml`]). Fails
    /// for a profile whose [`Address::PerOp`], [`Arrival::Balanced`] or
    /// [`Arrival::Until`] is not at the top level, which TOML cannot
    /// express.
    pub fn to_toml(&self) -> Result<String> {
        let fail = |e: String| {
            Error::Invalid(format!(
                "profile `{}` cannot be written as TOML: {e}",
                self.name
            ))
        };
        if let Err((field, msg)) = self.check_shape() {
            return Err(fail(format!("{field}: {msg}")));
        }
        toml::to_string(self).map_err(|e| fail(e.to_string()))
    }
}

/// A validation error about `field` with the line of `field`'s top-level key
/// in `text` (where `key = ...` or `[key]` is written) added to its message.
fn with_key_line(text: &str, e: Error) -> Error {
    let Error::Config { origin, field, msg } = e else {
        return e;
    };
    let key = field
        .split(['.', '['])
        .next()
        .unwrap_or_default()
        .to_string();
    let mut section: Option<&str> = None;
    let found = text.lines().enumerate().find_map(|(i, line)| {
        if let Some(name) = section_name(line) {
            section = Some(name);
            return (name == key).then_some(i + 1);
        }
        let l = line.trim_start();
        let rest = l.strip_prefix(key.as_str())?;
        (section.is_none() && !key.is_empty() && rest.trim_start().starts_with('='))
            .then_some(i + 1)
    });
    let msg = match found {
        Some(line) => format!("{msg} (line {line})"),
        None => msg,
    };
    Error::Config { origin, field, msg }
}

#[cfg(test)]
mod tests {
    use super::*;

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
