//! Every numeric configuration key at extreme values (0, -1, 2^32, 2^64 - 1,
//! 1e300, NaN, infinities, ...): each value is either refused with an error
//! that names the key, or simulated (a few hundred requests on a small
//! drive) without a panic. The keys are found by walking the configuration
//! itself, so a key added later is covered without editing this test.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ssdlab::workload::{IoRecord, Op, Source};
use ssdlab::{Config, Control, Error, Precondition, Simulator};

const INTEGERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "65536",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "1e300",
    "nan",
    "inf",
    "-inf",
    "1.5",
];

const FLOATS: &[&str] = &[
    "0.0",
    "-0.0",
    "1e-300",
    "1e-9",
    "0.5",
    "1e16",
    "1.8e19",
    "1e300",
    "-1.0",
    "nan",
    "inf",
    "-inf",
    "9223372036854775807",
];

/// Numeric leaves under `v`: (dotted key, is it a float, array length if an
/// array of numbers).
fn numeric_keys(v: &toml::Value, key: &str, out: &mut Vec<(String, bool, Option<usize>)>) {
    match v {
        toml::Value::Integer(_) => out.push((key.to_string(), false, None)),
        toml::Value::Float(_) => out.push((key.to_string(), true, None)),
        toml::Value::Array(a) => match a.first() {
            Some(toml::Value::Integer(_)) => out.push((key.to_string(), false, Some(a.len()))),
            Some(toml::Value::Float(_)) => out.push((key.to_string(), true, Some(a.len()))),
            _ => {}
        },
        toml::Value::Table(t) => {
            for (k, v) in t {
                let full = if key.is_empty() {
                    k.clone()
                } else {
                    format!("{key}.{k}")
                };
                numeric_keys(v, &full, out);
            }
        }
        _ => {}
    }
}

/// Writes, then reads of them, 10 µs apart.
fn workload(cfg: &Config) -> Source {
    let page = u64::from(cfg.geometry.page_size_bytes);
    let span = (cfg.logical_pages() * page).max(page);
    let records: Vec<IoRecord> = (0..300u64)
        .map(|i| IoRecord {
            time_ns: i * 10_000,
            op: if i < 150 { Op::Write } else { Op::Read },
            offset: ((i % 150) * 7919 * page) % span.saturating_sub(page).max(1) / page * page,
            size: page,
            hint: None,
        })
        .collect();
    Source::Records {
        name: "ranges".into(),
        records: records.into(),
    }
}

/// Does the error name `key`: its field is the key, or its message names
/// the key's own part (a rule between two keys, `th_dn` below `th_up`, or
/// a product of several, is reported on one of them or on their table)?
fn names(e: &Error, key: &str) -> bool {
    let last = key.rsplit('.').next().unwrap_or(key);
    match e {
        Error::Config { field, msg, .. } => field == key || msg.contains(last),
        _ => false,
    }
}

#[test]
fn every_numeric_key_refuses_extremes_by_name_or_runs() {
    // The bases: the small preset, the other variant of each choice
    // between variants (a buffer by footprint, a GC threshold in blocks),
    // and the policies that read the keys the preset does not use (DFTL's
    // cache, FAST's logs, APM's thresholds, a timed hot-data window, PAS,
    // the closed loop, program and erase suspension, bad blocks). Every key is tried on
    // every base.
    let mut small = Config::preset("small").unwrap();
    small.geometry.blocks_per_plane = 128;
    small.ftl.overprovisioning = 0.25;
    let with = |cfg: &Config, sets: &[&str]| {
        cfg.with_overrides(&sets.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap()
    };
    let scheme =
        |name: &str, cfg: &Config| ssdlab::scheme::by_name(name).unwrap().apply(cfg).unwrap();
    let mut tlc = Config::preset("pa-tlc").unwrap();
    tlc.geometry.channels = 2;
    tlc.geometry.blocks_per_plane = 32;
    let bases = [
        small.clone(),
        with(
            &small,
            &[
                "buffer.capacity={footprint-percent=10}",
                "gc.threshold={blocks=4}",
            ],
        ),
        with(
            &small,
            &["ftl.mapping=dftl", "ftl.mapping_cache_entries=64"],
        ),
        with(&small, &["ftl.mapping=fast"]),
        with(
            &small,
            &["ftl.hot_data=update-window", "host.mode=closed-loop"],
        ),
        scheme("apm", &small),
        scheme("pa-sqd-su-pas", &tlc),
        with(
            &small,
            &[
                "flash.suspension.program=true",
                "flash.suspension.erase=true",
            ],
        ),
        with(
            &small,
            &[
                "flash.bad_blocks={factory_fraction=0.02, erase_failure_probability=0.001, spare_blocks=8}",
                "cell.endurance=1000",
            ],
        ),
    ];
    let mut tried = 0;
    let mut refused = 0;
    let mut failures = Vec::new();
    for base in &bases {
        let mut k = Vec::new();
        numeric_keys(&toml::Value::try_from(base).unwrap(), "", &mut k);
        for (key, float, array) in k {
            for v in if float { FLOATS } else { INTEGERS } {
                let value = match array {
                    Some(n) => format!("[{}]", vec![*v; n].join(", ")),
                    None => v.to_string(),
                };
                let set = format!("{key}={value}");
                tried += 1;
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    let cfg = match base.with_overrides(std::slice::from_ref(&set)) {
                        Ok(c) => c,
                        Err(e) => return Err(e),
                    };
                    if cfg.memory_estimate() > 64 << 20 {
                        return Ok(None);
                    }
                    let source = workload(&cfg);
                    // At most a few thousand requests (65536 replays of
                    // the workload are accepted, and need not all run).
                    let run =
                        Simulator::new(&cfg, &source, &Precondition::default()).and_then(|sim| {
                            sim.run_observed(&mut |p| {
                                if p.completed > 3000 {
                                    Control::Stop
                                } else {
                                    Control::Continue
                                }
                            })
                        });
                    Ok(Some(run.map(|_| ())))
                }));
                match outcome {
                    Err(_) => failures.push(format!("--set {set}: panicked")),
                    Ok(Err(e)) => {
                        refused += 1;
                        if !names(&e, &key) {
                            failures.push(format!("--set {set}: refused without naming it: {e}"));
                        }
                    }
                    Ok(Ok(Some(Err(e)))) => {
                        println!("--set {set}: accepted, the run failed: {e}");
                        // The drive was built but the run failed: the error
                        // must say which key, if it is about one.
                        if let Error::Config { .. } = e {
                            if !names(&e, &key) {
                                failures.push(format!("--set {set}: run failed: {e}"));
                            }
                        }
                    }
                    Ok(Ok(None)) => {
                        println!("--set {set}: accepted (not simulated: a large drive)")
                    }
                    Ok(Ok(Some(Ok(())))) => println!("--set {set}: accepted, ran"),
                }
            }
        }
    }
    println!("{tried} values tried, {refused} refused");
    assert!(tried > 300, "{tried}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
