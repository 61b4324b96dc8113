//! The combined results of a sweep or a reproduction, one row per run:
//! `results.csv`, and the same columns typed in `results.parquet` (strings,
//! 64-bit integers, doubles; a parameter a run does not have and a figure a
//! run does not report are null) for pandas, Arrow, DuckDB or Spark; and
//! `results.csv` read back, checked (`read_results`: the report page and
//! `ssdlab compare`).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;

use ssdlab::Report;

/// One line of results.csv: what identifies the run, and its result.
pub(crate) struct CsvRow<'a> {
    pub experiment: &'a str,
    pub preset: &'a str,
    pub workload: &'a str,
    pub scheme: &'a str,
    /// One value per parameter column (empty where a run has none).
    pub params: Vec<&'a str>,
    pub report: &'a Report,
}

/// A column's values.
enum Values {
    /// Empty strings are nulls in Parquet (parameters a run lacks).
    Text(Vec<String>),
    Int(Vec<u64>),
    /// None: null in Parquet, an empty CSV field.
    OptInt(Vec<Option<u64>>),
    /// None: the run does not report it (an empty CSV field).
    Float(Vec<Option<f64>>),
}

struct Column {
    name: String,
    values: Values,
}

/// The metric columns after the identifying and parameter ones, and
/// whether each holds integers (else decimals); every one is a
/// non-negative number, or empty where a run does not report it.
pub(crate) const METRICS: [(&str, bool); 13] = [
    ("requests", true),
    ("write_latency_us_mean", false),
    ("write_latency_us_p99", false),
    ("read_latency_us_mean", false),
    ("read_latency_us_p99", false),
    ("gc_count", true),
    ("gc_time_us_total", false),
    ("erases", true),
    ("write_amplification", false),
    ("multiplane_program_share", false),
    ("plane_utilization_mean", false),
    ("buffer_hit_ratio", false),
    ("blocked_by_gc_share", false),
];

/// The metric columns after the identifying and parameter ones.
fn metric_columns(rows: &[&Report]) -> Result<Vec<Column>> {
    let int = |name: &str, f: fn(&Report) -> u64| Column {
        name: name.into(),
        values: Values::Int(rows.iter().map(|r| f(r)).collect()),
    };
    let float = |name: &str, f: fn(&Report) -> f64| Column {
        name: name.into(),
        values: Values::Float(rows.iter().map(|r| Some(f(r))).collect()),
    };
    // Read by path, so that this works whether or not the report has it.
    let mut blocked = Vec::with_capacity(rows.len());
    for r in rows {
        let v = serde_json::to_value(r)?;
        blocked.push(v.pointer("/gc/blocked_share").and_then(|v| v.as_f64()));
    }
    Ok(vec![
        int("requests", |r| r.requests),
        float("write_latency_us_mean", |r| r.write.latency_us.mean),
        float("write_latency_us_p99", |r| r.write.latency_us.p99),
        float("read_latency_us_mean", |r| r.read.latency_us.mean),
        float("read_latency_us_p99", |r| r.read.latency_us.p99),
        int("gc_count", |r| r.gc.count),
        float("gc_time_us_total", |r| r.gc.time_us.total),
        int("erases", |r| r.flash.erases),
        float("write_amplification", |r| r.write_amplification),
        float("multiplane_program_share", |r| {
            r.flash.host_multiplane_program_share
        }),
        float("plane_utilization_mean", |r| {
            r.plane_utilization.at_eviction.mean
        }),
        float("buffer_hit_ratio", crate::sweep::buffer_hit_ratio),
        Column {
            name: "blocked_by_gc_share".into(),
            values: Values::Float(blocked),
        },
    ])
}

/// The metric columns of `reports` as numbers (None where a run does not
/// report one): (column name, one value per report).
pub(crate) fn metric_values(reports: &[&Report]) -> Result<Vec<(String, Vec<Option<f64>>)>> {
    Ok(metric_columns(reports)?
        .into_iter()
        .map(|c| {
            let v = match c.values {
                Values::Int(v) => v.into_iter().map(|x| Some(x as f64)).collect(),
                Values::Float(v) => v,
                Values::Text(_) | Values::OptInt(_) => unreachable!("metrics are numbers"),
            };
            (c.name, v)
        })
        .collect())
}

/// Which replicate of its cell a run is, and the seeds it ran with (a
/// sweep with `seeds` > 1).
pub(crate) struct Replicate {
    pub index: u64,
    /// The drive's seed (`seed` of the configuration).
    pub seed: u64,
    /// The workload's seed (a synthetic or generated workload; None for a
    /// trace).
    pub workload_seed: Option<u64>,
}

fn table(
    param_keys: &[&str],
    rows: &[CsvRow],
    replicates: Option<&[Replicate]>,
) -> Result<Vec<Column>> {
    let all: Vec<usize> = (0..rows.len()).collect();
    let mut cols = id_columns(param_keys, rows, replicates, &all);
    let reports: Vec<&Report> = rows.iter().map(|r| r.report).collect();
    cols.extend(metric_columns(&reports)?);
    Ok(cols)
}

/// The identifying columns (experiment, preset, workload, scheme, the
/// parameters, and with replicates their index and seeds) of the runs
/// `at` (indexes into `rows`, a run repeated as often as it appears).
fn id_columns(
    param_keys: &[&str],
    rows: &[CsvRow],
    replicates: Option<&[Replicate]>,
    at: &[usize],
) -> Vec<Column> {
    let text = |name: &str, f: &dyn Fn(&CsvRow) -> String| Column {
        name: name.into(),
        values: Values::Text(at.iter().map(|&i| f(&rows[i])).collect()),
    };
    let mut cols = vec![
        text("experiment", &|r| r.experiment.to_string()),
        text("preset", &|r| r.preset.to_string()),
        text("workload", &|r| r.workload.to_string()),
        text("scheme", &|r| r.scheme.to_string()),
    ];
    for (k, key) in param_keys.iter().enumerate() {
        cols.push(text(key, &|r| r.params[k].to_string()));
    }
    if let Some(reps) = replicates {
        let int = |name: &str, f: &dyn Fn(&Replicate) -> u64| Column {
            name: name.into(),
            values: Values::Int(at.iter().map(|&i| f(&reps[i])).collect()),
        };
        cols.push(int("replicate", &|r| r.index));
        cols.push(int("seed", &|r| r.seed));
        cols.push(Column {
            name: "workload_seed".into(),
            values: Values::OptInt(at.iter().map(|&i| reps[i].workload_seed).collect()),
        });
    }
    cols
}

pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(cols: &[Column], n: usize) -> String {
    let mut out = String::new();
    let header: Vec<String> = cols.iter().map(|c| csv_field(&c.name)).collect();
    out.push_str(&header.join(","));
    out.push('\n');
    for i in 0..n {
        let fields: Vec<String> = cols
            .iter()
            .map(|c| match &c.values {
                Values::Text(v) => csv_field(&v[i]),
                Values::Int(v) => v[i].to_string(),
                Values::OptInt(v) => v[i].map_or_else(String::new, |x| x.to_string()),
                Values::Float(v) => v[i].map_or_else(String::new, |x| x.to_string()),
            })
            .collect();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

fn parquet(cols: &[Column]) -> Result<Vec<u8>> {
    use parquet::basic::{ConvertedType, LogicalType, Repetition, Type as Physical};
    let fields = cols
        .iter()
        .map(|c| {
            let (physical, repetition) = match &c.values {
                Values::Text(v) if v.iter().any(|s| s.is_empty()) => {
                    (Physical::BYTE_ARRAY, Repetition::OPTIONAL)
                }
                Values::Text(_) => (Physical::BYTE_ARRAY, Repetition::REQUIRED),
                Values::Int(_) => (Physical::INT64, Repetition::REQUIRED),
                Values::OptInt(v) if v.iter().any(|x| x.is_none()) => {
                    (Physical::INT64, Repetition::OPTIONAL)
                }
                Values::OptInt(_) => (Physical::INT64, Repetition::REQUIRED),
                Values::Float(v) if v.iter().any(|x| x.is_none()) => {
                    (Physical::DOUBLE, Repetition::OPTIONAL)
                }
                Values::Float(_) => (Physical::DOUBLE, Repetition::REQUIRED),
            };
            let mut b = Type::primitive_type_builder(&c.name, physical).with_repetition(repetition);
            if physical == Physical::BYTE_ARRAY {
                b = b
                    .with_logical_type(Some(LogicalType::String))
                    .with_converted_type(ConvertedType::UTF8);
            }
            Ok(Arc::new(b.build()?))
        })
        .collect::<Result<Vec<_>>>()?;
    let schema = Arc::new(
        Type::group_type_builder("results")
            .with_fields(fields)
            .build()?,
    );
    let mut buf = Vec::new();
    let props = Arc::new(
        WriterProperties::builder()
            .set_created_by(format!("ssdlab {}", env!("CARGO_PKG_VERSION")))
            .build(),
    );
    let mut w = SerializedFileWriter::new(&mut buf, schema, props)?;
    let mut group = w.next_row_group()?;
    for c in cols {
        let mut col = group.next_column()?.context("a column per field")?;
        match &c.values {
            Values::Text(v) => {
                let present: Vec<ByteArray> = v
                    .iter()
                    .filter(|s| !s.is_empty())
                    .map(|s| ByteArray::from(s.as_str()))
                    .collect();
                let optional = present.len() != v.len();
                let levels: Vec<i16> = v.iter().map(|s| i16::from(!s.is_empty())).collect();
                col.typed::<ByteArrayType>().write_batch(
                    &present,
                    optional.then_some(&levels[..]),
                    None,
                )?;
            }
            Values::Int(v) => {
                let v: Vec<i64> = v.iter().map(|&x| x as i64).collect();
                col.typed::<Int64Type>().write_batch(&v, None, None)?;
            }
            Values::OptInt(v) => {
                let present: Vec<i64> = v.iter().flatten().map(|&x| x as i64).collect();
                let optional = present.len() != v.len();
                let levels: Vec<i16> = v.iter().map(|x| i16::from(x.is_some())).collect();
                col.typed::<Int64Type>().write_batch(
                    &present,
                    optional.then_some(&levels[..]),
                    None,
                )?;
            }
            Values::Float(v) => {
                let present: Vec<f64> = v.iter().flatten().copied().collect();
                let optional = present.len() != v.len();
                let levels: Vec<i16> = v.iter().map(|x| i16::from(x.is_some())).collect();
                col.typed::<DoubleType>().write_batch(
                    &present,
                    optional.then_some(&levels[..]),
                    None,
                )?;
            }
        }
        col.close()?;
    }
    group.close()?;
    w.close()?;
    Ok(buf)
}

/// Write `dir/results.csv` and `dir/results.parquet`.
pub(crate) fn write_results(dir: &Path, param_keys: &[&str], rows: &[CsvRow]) -> Result<()> {
    write_results_replicated(dir, param_keys, rows, None)
}

/// [`write_results`] with, after the parameter columns, each run's
/// `replicate`, `seed` and `workload_seed` (a sweep with `seeds` > 1).
pub(crate) fn write_results_replicated(
    dir: &Path,
    param_keys: &[&str],
    rows: &[CsvRow],
    replicates: Option<&[Replicate]>,
) -> Result<()> {
    let cols = table(param_keys, rows, replicates)?;
    crate::sweep::write(&dir.join("results.csv"), &csv(&cols, rows.len()))?;
    let bytes = parquet(&cols).context("writing results.parquet")?;
    crate::output::write_atomic(&dir.join("results.parquet"), &bytes)
}

/// Write `dir/flows.csv` and `dir/flows.parquet` if any run has flows: one
/// row per flow of each such run (the run's identifying columns as in
/// results.csv, then the flow's figures); nothing otherwise.
pub(crate) fn write_flow_results(
    dir: &Path,
    param_keys: &[&str],
    rows: &[CsvRow],
    replicates: Option<&[Replicate]>,
) -> Result<()> {
    // (run, flow) in run order, then flow order
    let at: Vec<(usize, usize)> = rows
        .iter()
        .enumerate()
        .flat_map(|(i, r)| (0..r.report.flows.len()).map(move |f| (i, f)))
        .collect();
    if at.is_empty() {
        return Ok(());
    }
    let runs: Vec<usize> = at.iter().map(|&(i, _)| i).collect();
    let mut cols = id_columns(param_keys, rows, replicates, &runs);
    let flow = |i: usize, f: usize| &rows[i].report.flows[f];
    cols.push(Column {
        name: "flow".into(),
        values: Values::Text(at.iter().map(|&(i, f)| flow(i, f).name.clone()).collect()),
    });
    cols.push(Column {
        name: "priority".into(),
        values: Values::Text(
            at.iter()
                .map(|&(i, f)| flow(i, f).priority.clone())
                .collect(),
        ),
    });
    let int = |name: &str, g: &dyn Fn(&ssdlab::metrics::FlowReport) -> u64| Column {
        name: name.into(),
        values: Values::Int(at.iter().map(|&(i, f)| g(flow(i, f))).collect()),
    };
    let float = |name: String, g: &dyn Fn(&ssdlab::metrics::FlowReport) -> Option<f64>| Column {
        name,
        values: Values::Float(at.iter().map(|&(i, f)| g(flow(i, f))).collect()),
    };
    cols.push(int("queue_depth", &|f| u64::from(f.queue_depth)));
    cols.push(int("requests", &|f| f.requests));
    cols.push(float("iops".into(), &|f| Some(f.iops)));
    cols.push(float("bandwidth_mb_s".into(), &|f| Some(f.bandwidth_mb_s)));
    type Lat = fn(&ssdlab::metrics::FlowReport) -> &ssdlab::metrics::FlowLatency;
    let ops: [(&str, Lat); 3] = [
        ("read", |f| &f.read),
        ("write", |f| &f.write),
        ("all", |f| &f.all),
    ];
    for (op, of) in ops {
        cols.push(int(&format!("{op}_count"), &|f| of(f).count));
        type Stat = fn(&ssdlab::metrics::FlowLatency) -> f64;
        let stats: [(&str, Stat); 6] = [
            ("mean", |l| l.mean),
            ("p50", |l| l.p50),
            ("p99", |l| l.p99),
            ("p999", |l| l.p999),
            ("p9999", |l| l.p9999),
            ("max", |l| l.max),
        ];
        for (stat, g) in stats {
            // no latency where the flow completed none of the op
            cols.push(float(format!("{op}_latency_us_{stat}"), &|f| {
                (of(f).count > 0).then(|| g(of(f)))
            }));
        }
    }
    cols.push(float("host_wait_us_mean".into(), &|f| {
        Some(f.host_wait_us.mean)
    }));
    cols.push(float("host_wait_us_p99".into(), &|f| {
        Some(f.host_wait_us.p99)
    }));
    cols.push(float("gc_blocked_us".into(), &|f| Some(f.gc_blocked_us)));
    cols.push(float("alone_mean_latency_us".into(), &|f| {
        f.alone_mean_latency_us
    }));
    cols.push(float("slowdown".into(), &|f| f.slowdown));
    cols.push(Column {
        name: "fairness".into(),
        values: Values::Float(at.iter().map(|&(i, _)| rows[i].report.fairness).collect()),
    });
    crate::sweep::write(&dir.join("flows.csv"), &csv(&cols, at.len()))?;
    let bytes = parquet(&cols).context("writing flows.parquet")?;
    crate::output::write_atomic(&dir.join("flows.parquet"), &bytes)
}

/// Largest `results.csv` the report reads: 256 MiB (a row is a few
/// hundred bytes; a sweep has at most `--max-runs` rows).
const MAX_CSV_BYTES: u64 = 256 << 20;

/// `results.csv` read and checked: a header of distinct names, every row
/// with as many fields, quotes closed, and the columns a sweep or a
/// reproduction writes ([`METRICS`]) holding non-negative
/// numbers (integers where they count), or nothing. The first thing wrong
/// is an error naming the line and the column.
pub(crate) fn read_results(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>)> {
    let text = ssdlab::workload::input::read_text_limited(path, MAX_CSV_BYTES, "a results.csv")?;
    let mut records = csv_records(&text)
        .map_err(|(line, msg)| anyhow::anyhow!("{}:{line}: {msg}", path.display()))?;
    if records.is_empty() {
        bail!("{}: empty: no header", path.display());
    }
    let (_, header) = records.remove(0);
    let mut seen = BTreeSet::new();
    for (i, h) in header.iter().enumerate() {
        if h.is_empty() || !seen.insert(h.as_str()) {
            bail!(
                "{}:1: column {}: the header's names must be distinct and not empty",
                path.display(),
                i + 1
            );
        }
    }
    let kinds: Vec<Option<bool>> = header
        .iter()
        .map(|h| METRICS.iter().find(|(m, _)| m == h).map(|&(_, int)| int))
        .collect();
    let mut rows = Vec::with_capacity(records.len());
    for (line, fields) in records {
        if fields.len() != header.len() {
            bail!(
                "{}:{line}: {} fields, but the header has {}",
                path.display(),
                fields.len(),
                header.len()
            );
        }
        for ((f, h), kind) in fields.iter().zip(&header).zip(&kinds) {
            let Some(int) = kind else { continue };
            if f.is_empty() {
                continue;
            }
            let ok = if *int {
                f.parse::<u64>().is_ok()
            } else {
                f.parse::<f64>().is_ok_and(|x| x.is_finite() && x >= 0.0)
            };
            if !ok {
                bail!(
                    "{}:{line}: field `{h}`: {} is not a non-negative {}",
                    path.display(),
                    ssdlab::workload::input::quote(f, 40),
                    if *int { "integer" } else { "number" }
                );
            }
        }
        rows.push(fields);
    }
    Ok((header, rows))
}

/// A CSV record: the line it starts on, and its fields.
type CsvRecord = (usize, Vec<String>);

/// The records of CSV `text` (RFC 4180: fields in double quotes may hold
/// commas, quotes doubled, line breaks), each with the line it starts on;
/// or the line and what is wrong (a quote left open, text after a closing
/// quote).
fn csv_records(text: &str) -> std::result::Result<Vec<CsvRecord>, (usize, String)> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while chars.peek().is_some() {
        let start = line;
        let mut fields = Vec::new();
        let mut cur = String::new();
        loop {
            match chars.next() {
                None => {
                    fields.push(std::mem::take(&mut cur));
                    break;
                }
                Some('\n') => {
                    line += 1;
                    fields.push(std::mem::take(&mut cur));
                    break;
                }
                Some('\r') if chars.peek() == Some(&'\n') => {}
                Some(',') => fields.push(std::mem::take(&mut cur)),
                Some('"') if cur.is_empty() => {
                    // a quoted field, to its closing quote
                    loop {
                        match chars.next() {
                            None => return Err((start, "a quoted field is not closed".into())),
                            Some('"') if chars.peek() == Some(&'"') => {
                                chars.next();
                                cur.push('"');
                            }
                            Some('"') => break,
                            Some(c) => {
                                if c == '\n' {
                                    line += 1;
                                }
                                cur.push(c);
                            }
                        }
                    }
                    match chars.peek() {
                        None | Some(',') | Some('\n') | Some('\r') => {}
                        Some(_) => {
                            return Err((line, "text after a closing quote".into()));
                        }
                    }
                }
                Some('"') => return Err((line, "a quote inside an unquoted field".into())),
                Some(c) => cur.push(c),
            }
        }
        out.push((start, fields));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metric_list_is_the_columns_written() {
        let cols = metric_columns(&[]).unwrap();
        let names: Vec<(&str, bool)> = cols
            .iter()
            .map(|c| (c.name.as_str(), matches!(c.values, Values::Int(_))))
            .collect();
        assert_eq!(names, METRICS);
    }

    #[test]
    fn csv_records_keep_quoted_commas_quotes_and_lines() {
        let recs = csv_records("h1,h2,h3\r\na,\"b,c\",\"d\"\"e\"\nx,\"two\nlines\",z\n").unwrap();
        assert_eq!(recs[1], (2, vec!["a".into(), "b,c".into(), "d\"e".into()]));
        assert_eq!(
            recs[2],
            (3, vec!["x".into(), "two\nlines".into(), "z".into()])
        );
        assert_eq!(csv_records("a,\"b\n").unwrap_err().0, 1);
        assert_eq!(csv_records("a\nb,c\"d\n").unwrap_err().0, 2);
    }

    #[test]
    fn csv_quoting() {
        assert_eq!(csv_field("{a=1, b=2}"), "\"{a=1, b=2}\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
    }
}
