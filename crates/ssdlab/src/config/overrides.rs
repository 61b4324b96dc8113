//! `--set KEY=VALUE` overrides, and TOML errors reported on one line.

use super::*;
use crate::error::{Error, Result};

impl Config {
    /// Apply `key=value` overrides (dotted keys; values in TOML syntax, bare
    /// words taken as strings). Unknown keys are errors.
    pub fn with_overrides(&self, sets: &[String]) -> Result<Config> {
        if sets.is_empty() {
            return Ok(self.clone());
        }
        let mut root = toml::Value::try_from(self).expect("config serialises");
        for set in sets {
            let origin = format!("--set {set}");
            let (key, value) = set
                .split_once('=')
                .ok_or_else(|| Error::config(&origin, set, "expected KEY=VALUE"))?;
            let key = key.trim();
            let value = parse_toml_value(value.trim());
            let mut node = &mut root;
            let parts: Vec<&str> = key.split('.').collect();
            for (i, part) in parts.iter().enumerate() {
                let table = node.as_table_mut().ok_or_else(|| {
                    Error::config(
                        &origin,
                        key,
                        format!("`{}` is not a table", parts[..i].join(".")),
                    )
                })?;
                if !table.contains_key(*part) {
                    let mut known: Vec<_> = table.keys().cloned().collect();
                    known.sort();
                    return Err(Error::config(
                        &origin,
                        key,
                        format!("unknown key `{part}`; known here: {}", known.join(", ")),
                    ));
                }
                if i + 1 == parts.len() {
                    table.insert(part.to_string(), value.clone());
                    break;
                }
                node = table.get_mut(*part).expect("checked");
            }
        }
        let origin = format!("--set {}", sets.join(" --set "));
        // Straight from the value tree (no round trip through TOML text,
        // whose writer overflowed on a string of hundreds of quotes in a
        // fuzzed override); the message has no line or column to point at.
        let cfg: Config = root.try_into().map_err(|e: toml::de::Error| {
            Error::config(&origin, "value", e.message().to_string())
        })?;
        cfg.validate(&origin)?;
        Ok(cfg)
    }
}

pub(crate) fn parse_toml_value(s: &str) -> toml::Value {
    let doc = format!("v = {s}");
    match toml::from_str::<toml::Table>(&doc) {
        Ok(mut t) => t.remove("v").expect("key v"),
        Err(_) => toml::Value::String(s.to_string()),
    }
}

pub(crate) fn toml_error(origin: &str, e: toml::de::Error) -> Error {
    // toml's message already names the line, column and key; keep it whole
    // but on one line.
    let msg = e
        .to_string()
        .replace('\n', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    Error::config(origin, "toml", msg)
}
