//! `--set KEY=VALUE` overrides, and TOML errors reported on one line.

use super::*;
use crate::error::{did_you_mean, Error, Result};

impl Config {
    /// Apply `key=value` overrides (dotted keys; values in TOML syntax, bare
    /// words taken as strings), then validate the result. Unknown keys are
    /// errors.
    pub fn with_overrides(&self, sets: &[String]) -> Result<Config> {
        if sets.is_empty() {
            return Ok(self.clone());
        }
        let cfg = self.with_overrides_unvalidated(sets)?;
        let origin = format!(
            "--set {}",
            crate::workload::input::escape_controls(&sets.join(" --set "))
        );
        cfg.validate(&origin)?;
        Ok(cfg)
    }

    /// [`with_overrides`](Self::with_overrides) without the validation of
    /// the result: each value is read and type-checked, but whether the
    /// whole is valid is left to the caller, who applies more overrides
    /// first (a scheme's, then the user's) and validates the final
    /// configuration once.
    pub fn with_overrides_unvalidated(&self, sets: &[String]) -> Result<Config> {
        if sets.is_empty() {
            return Ok(self.clone());
        }
        let mut root = toml::Value::try_from(self).expect("config serialises");
        with_optional_tables(&mut root);
        // `[queues]`, written only when given: its keys may be set one by one.
        if sets.iter().any(|s| s.trim_start().starts_with("queues.")) {
            if let Some(t) = root.as_table_mut() {
                if !t.contains_key("queues") {
                    t.insert(
                        "queues".into(),
                        toml::Value::try_from(super::Queues::default()).expect("queues serialise"),
                    );
                }
            }
        }
        for set in sets {
            let origin = format!("--set {}", crate::workload::input::escape_controls(set));
            let (key, value) = set
                .split_once('=')
                .ok_or_else(|| Error::config(&origin, set.trim(), "expected KEY=VALUE"))?;
            let key = key.trim();
            if set.contains(['\n', '\r']) {
                // The rest would be read as more TOML keys, or dropped.
                return Err(Error::config(
                    &origin,
                    key,
                    "the value holds a line break; give each key its own --set",
                ));
            }
            let value = parse_toml_value(value.trim());
            let parts: Vec<&str> = key.split('.').collect();
            let (last, parent_path) = parts.split_last().expect("split yields one part");
            let parent = table_at(&mut root, parent_path, &origin, key)?;
            if !parent.contains_key(*last) {
                // A table of one key may be a choice between variants
                // (`buffer.capacity = { pages = N }` or `{ footprint-percent
                // = P }`): setting another variant's key replaces it, if the
                // result is a valid choice. (The host interface's table
                // holds independent parts, never a choice between them.)
                if parent.len() == 1 && parent_path.first() != Some(&"interface") {
                    let old = std::mem::take(parent);
                    parent.insert(last.to_string(), value.clone());
                    if Config::deserialize(root.clone()).is_ok() {
                        continue;
                    }
                    *table_at(&mut root, parent_path, &origin, key)? = old;
                }
                // An optional key written only when set (`gc.preemptive`,
                // `gc.idle`): a documented key is added.
                if super::docs::key_doc(key).is_some() {
                    let parent = table_at(&mut root, parent_path, &origin, key)?;
                    parent.insert(last.to_string(), value.clone());
                    if let Err(e) = Config::deserialize(root.clone()) {
                        return Err(Error::config(&origin, key, value_error(key, &e)));
                    }
                    continue;
                }
                let parent = table_at(&mut root, parent_path, &origin, key)?;
                let mut known: Vec<_> = parent.keys().cloned().collect();
                known.sort();
                return Err(Error::config(
                    &origin,
                    key,
                    format!(
                        "unknown key `{last}`{}; known here: {}",
                        did_you_mean(last, known.iter().map(String::as_str)),
                        known.join(", ")
                    ),
                ));
            }
            let current = &parent[*last];
            if current.is_table() && !value.is_table() && !value.is_str() {
                return Err(Error::config(
                    &origin,
                    key,
                    format!(
                        "`{key}` is a table here ({current}); give one, e.g. --set '{key}={current}', or set one of its keys"
                    ),
                ));
            }
            let was_name = current.as_str().map(str::to_string);
            let named = value.is_str() || value.is_table();
            parent.insert(last.to_string(), value.clone());
            // Each override is read at once, so that a value of the wrong
            // type is reported with its own key. Straight from the value
            // tree (no round trip through TOML text, whose writer overflowed
            // on a string of hundreds of quotes in a fuzzed override).
            if let Err(e) = Config::deserialize(root.clone()) {
                if let (Some(now), false) = (was_name, named) {
                    // A name given a number or a boolean: serde's message
                    // speaks of enum variants.
                    return Err(Error::config(
                        &origin,
                        key,
                        format!(
                            "`{key}` takes a name (it is \"{now}\" now), not {value}; \
                             `ssdlab presets show` prints every key with its choices"
                        ),
                    ));
                }
                return Err(Error::config(&origin, key, value_error(key, &e)));
            }
        }
        let origin = format!(
            "--set {}",
            crate::workload::input::escape_controls(&sets.join(" --set "))
        );
        let mut cfg: Config = root.try_into().map_err(|e: toml::de::Error| {
            Error::config(&origin, "value", e.message().to_string())
        })?;
        // The host interface's table, put back empty to be reachable, is
        // left out again while no part of it is on.
        if cfg.interface.as_ref().is_some_and(|i| !i.is_on()) {
            cfg.interface = None;
        }
        Ok(cfg)
    }
}

/// Tables a configuration leaves out while they are off (so that its
/// TOML and JSON stay as they were before the table existed), put back
/// with their defaults, so that `--set` can reach their keys.
fn with_optional_tables(root: &mut toml::Value) {
    if let Some(ftl) = root.get_mut("ftl").and_then(toml::Value::as_table_mut) {
        if !ftl.contains_key("wear_levelling") {
            ftl.insert(
                "wear_levelling".into(),
                toml::Value::try_from(super::WearLevelling::default())
                    .expect("wear levelling serialises"),
            );
        }
    }
    if let Some(top) = root.as_table_mut() {
        if !top.contains_key("interface") {
            top.insert("interface".into(), toml::Value::Table(toml::Table::new()));
        }
    }
    if let Some(flash) = root.get_mut("flash").and_then(toml::Value::as_table_mut) {
        if !flash.contains_key("suspension") {
            flash.insert(
                "suspension".into(),
                toml::Value::try_from(Suspension::default()).expect("suspension serialises"),
            );
        }
    }
}

/// The table at `path` in `root` (every part a key that exists and holds a
/// table), or an error naming the first part that does not.
fn table_at<'a>(
    root: &'a mut toml::Value,
    path: &[&str],
    origin: &str,
    key: &str,
) -> Result<&'a mut toml::Table> {
    let mut node = root;
    for (i, part) in path.iter().enumerate() {
        let table = node.as_table_mut().ok_or_else(|| {
            Error::config(
                origin,
                key,
                format!("`{}` is not a table", path[..i].join(".")),
            )
        })?;
        if !table.contains_key(*part) {
            let mut known: Vec<_> = table.keys().cloned().collect();
            known.sort();
            return Err(Error::config(
                origin,
                key,
                format!(
                    "unknown key `{part}`{}; known here: {}",
                    did_you_mean(part, known.iter().map(String::as_str)),
                    known.join(", ")
                ),
            ));
        }
        node = table.get_mut(*part).expect("checked");
    }
    node.as_table_mut()
        .ok_or_else(|| Error::config(origin, key, format!("`{}` is not a table", path.join("."))))
}

/// The message of a value `key` was set to that does not read: serde's,
/// which names the type expected, without a repeat of the key.
fn value_error(key: &str, e: &toml::de::Error) -> String {
    let msg = e.message().trim().replace('\n', " ");
    let last = key.rsplit('.').next().unwrap_or(key);
    msg.strip_suffix(&format!(" for key `{key}`"))
        .or_else(|| msg.strip_suffix(&format!(" for key `{last}`")))
        .unwrap_or(&msg)
        .to_string()
}

pub(crate) fn parse_toml_value(s: &str) -> toml::Value {
    let doc = format!("v = {s}");
    match toml::from_str::<toml::Table>(&doc) {
        Ok(mut t) => t.remove("v").expect("key v"),
        Err(_) => toml::Value::String(s.to_string()),
    }
}
