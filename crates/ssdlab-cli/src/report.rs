//! `ssdlab report DIR`: a sweep's or reproduction's directory as one
//! self-contained HTML page (styles and SVG inline, nothing fetched): the
//! summary's tables (a reproduction's: the papers' numbers beside ours),
//! the runs' warnings, every chart, the latency CDFs and GC timelines of
//! the runs, the results table, and what produced them (versions, revisions, seeds, drives,
//! workloads with their traces' SHA-256).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::Value;

use crate::scoreboard::{Scoreboard, Verdict};
use crate::svg::{line_chart_on, paper_chart, PaperBar, Series, XAxis};

#[derive(Args)]
pub struct ReportArgs {
    /// A sweep's or reproduction's output directory (summary.md,
    /// results.csv, runs/, charts/).
    dir: PathBuf,
    /// The page to write (default DIR/report.html).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Charts of one kind drawn at most (the rest are counted in a note).
const MAX_GROUPS: usize = 24;
/// Series per chart at most (each with its own colour and dash pattern);
/// more runs of one workload are drawn as several charts side by side.
const MAX_SERIES: usize = crate::svg::DISTINCT_STYLES;
/// Points per curve at most.
const MAX_POINTS: usize = 160;

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Inline markdown: `code`, **bold**; the rest escaped.
fn inline(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('`') {
            if let Some(end) = r.find('`') {
                let _ = write!(out, "<code>{}</code>", esc(&r[..end]));
                rest = &r[end + 1..];
                continue;
            }
        }
        if let Some(r) = rest.strip_prefix("**") {
            if let Some(end) = r.find("**") {
                let _ = write!(out, "<strong>{}</strong>", inline(&r[..end]));
                rest = &r[end + 2..];
                continue;
            }
        }
        // past the first character (which may be a lone mark, or several
        // bytes long) to the next mark
        let first = rest.chars().next().map_or(1, char::len_utf8);
        let next = rest[first..]
            .find(['`', '*'])
            .map_or(rest.len(), |i| i + first);
        out.push_str(&esc(&rest[..next]));
        rest = &rest[next..];
    }
    out
}

fn table_cells(line: &str) -> Vec<&str> {
    let t = line.trim().trim_start_matches('|').trim_end_matches('|');
    t.split('|').map(str::trim).collect()
}

fn is_number(s: &str) -> bool {
    let s = s.trim_start_matches(['+', '-']);
    s.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// The markdown the summaries use (headings, paragraphs, lists, pipe
/// tables, fenced blocks) as HTML.
pub(crate) fn markdown(text: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    let mut para: Vec<&str> = Vec::new();
    let flush = |para: &mut Vec<&str>, out: &mut String| {
        if !para.is_empty() {
            let _ = writeln!(out, "<p>{}</p>", inline(&para.join(" ")));
            para.clear();
        }
    };
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim_end();
        if t.starts_with("```") {
            flush(&mut para, &mut out);
            let mut block = String::new();
            i += 1;
            while i < lines.len() && !lines[i].starts_with("```") {
                block.push_str(lines[i]);
                block.push('\n');
                i += 1;
            }
            let _ = writeln!(out, "<pre>{}</pre>", esc(&block));
        } else if let Some(h) = t.strip_prefix('#') {
            flush(&mut para, &mut out);
            let level = 1 + h.chars().take_while(|&c| c == '#').count();
            let title = h.trim_start_matches('#').trim();
            let _ = writeln!(
                out,
                "<h{l}>{}</h{l}>",
                inline(title),
                l = (level + 1).min(6)
            );
        } else if t.starts_with('|')
            && i + 1 < lines.len()
            && lines[i + 1].trim_start().starts_with("|-")
            || t.starts_with('|') && i + 1 < lines.len() && lines[i + 1].starts_with("|:")
        {
            flush(&mut para, &mut out);
            let head = table_cells(t);
            out.push_str("<div class=\"wide\"><table><thead><tr>");
            for h in &head {
                let _ = write!(out, "<th>{}</th>", inline(h));
            }
            out.push_str("</tr></thead><tbody>\n");
            i += 2;
            while i < lines.len() && lines[i].trim_start().starts_with('|') {
                out.push_str("<tr>");
                for c in table_cells(lines[i]) {
                    let class = if is_number(c) { " class=\"n\"" } else { "" };
                    let _ = write!(out, "<td{class}>{}</td>", inline(c));
                }
                out.push_str("</tr>\n");
                i += 1;
            }
            out.push_str("</tbody></table></div>\n");
            continue;
        } else if let Some(item) = t.strip_prefix("* ").or_else(|| t.strip_prefix("- ")) {
            flush(&mut para, &mut out);
            out.push_str("<ul>");
            let _ = write!(out, "<li>{}</li>", inline(item));
            i += 1;
            while i < lines.len() {
                let l = lines[i].trim_end();
                if let Some(item) = l.strip_prefix("* ").or_else(|| l.strip_prefix("- ")) {
                    let _ = write!(out, "<li>{}</li>", inline(item));
                } else {
                    break;
                }
                i += 1;
            }
            out.push_str("</ul>\n");
            continue;
        } else if t.is_empty() {
            flush(&mut para, &mut out);
        } else {
            para.push(t);
        }
        i += 1;
    }
    flush(&mut para, &mut out);
    out
}

/// Every SVG under `dir`, sorted by path.
fn svgs(dir: &Path) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "svg") {
                let rel = p.strip_prefix(dir).unwrap_or(&p).display().to_string();
                let text = ssdlab::workload::input::read_text_limited(
                    &p,
                    ssdlab::workload::input::MAX_SPEC_BYTES,
                    "a chart",
                )?;
                // the XML declaration is not allowed inside HTML
                let text = match text.find("<svg") {
                    Some(k) => text[k..].to_string(),
                    None => continue,
                };
                out.push((rel, text));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// What the report reads of a saved run; the rest (the report's other
/// figures) is skipped as it streams by.
#[derive(serde::Deserialize)]
struct RunView {
    #[serde(default, alias = "workload")]
    workload_name: Value,
    #[serde(default, alias = "config")]
    config_name: Value,
    #[serde(default)]
    latency_cdf: Value,
    #[serde(default, deserialize_with = "timeline")]
    timeseries: Value,
    #[serde(default)]
    run: Value,
    #[serde(default)]
    warnings: Value,
    #[serde(default)]
    attribution: Value,
    #[serde(default)]
    flows: Value,
    #[serde(default)]
    fairness: Value,
}

/// Points of a GC timeline kept per run: more than a chart draws
/// ([`MAX_POINTS`]), fewer than a long time series holds.
const MAX_TIMELINE: usize = 10_000;

/// A run's time series, as the points the GC timeline draws (`t_s`,
/// `gc_count`), evenly thinned to at most [`MAX_TIMELINE`].
fn timeline<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Value, D::Error> {
    #[derive(serde::Deserialize)]
    struct Point {
        t_s: Option<f64>,
        gc_count: Option<f64>,
    }
    use serde::Deserialize;
    let Some(points) = Option::<Vec<Point>>::deserialize(d)? else {
        return Ok(Value::Null);
    };
    let step = points.len().div_ceil(MAX_TIMELINE).max(1);
    Ok(Value::Array(
        points
            .iter()
            .step_by(step)
            .map(|p| serde_json::json!({"t_s": p.t_s, "gc_count": p.gc_count}))
            .collect(),
    ))
}

/// The saved runs: file stem and what the report draws of them (each read
/// as a stream, refused if larger than [`crate::meta::MAX_RESULT_BYTES`]).
fn runs(dir: &Path) -> Result<Vec<(String, Value)>> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir.join("runs")) else {
        return Ok(out);
    };
    for e in entries {
        let p = e?.path();
        if p.extension().is_some_and(|x| x == "json") {
            let r: RunView = serde_json::from_reader(crate::meta::open_result(&p)?)
                .with_context(|| format!("{}: not a run's JSON", p.display()))?;
            let v = serde_json::json!({
                "workload_name": r.workload_name,
                "config_name": r.config_name,
                "latency_cdf": r.latency_cdf,
                "timeseries": r.timeseries,
                "run": r.run,
                "warnings": r.warnings,
                "attribution": r.attribution,
                "flows": r.flows,
                "fairness": r.fairness,
            });
            let stem = p
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            out.push((stem, v));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Legend names of runs drawn together: the parts of their file names
/// (`experiment__drive__workload__scheme[__key=value…]`) that differ
/// between them, joined by " · "; a lone run is named by its drive.
fn legend_names(runs: &[&(String, Value)]) -> Vec<String> {
    let parts: Vec<Vec<&str>> = runs.iter().map(|r| r.0.split("__").collect()).collect();
    let longest = parts.iter().map(Vec::len).max().unwrap_or(0);
    let varies: Vec<bool> = (0..longest)
        .map(|k| parts.iter().any(|p| p.get(k) != parts[0].get(k)))
        .collect();
    runs.iter()
        .zip(&parts)
        .map(|(r, p)| {
            let name: Vec<&str> = p
                .iter()
                .enumerate()
                .filter(|(k, _)| varies[*k])
                .map(|(_, s)| *s)
                .collect();
            if name.is_empty() {
                r.1["config_name"].as_str().unwrap_or(&r.0).to_string()
            } else {
                name.join(" · ")
            }
        })
        .collect()
}

/// Runs grouped by workload (the CDFs and timelines of one workload share
/// a chart).
fn by_workload(runs: &[(String, Value)]) -> BTreeMap<String, Vec<&(String, Value)>> {
    let mut g: BTreeMap<String, Vec<&(String, Value)>> = BTreeMap::new();
    for r in runs {
        let w = r.1["workload_name"].as_str().unwrap_or("?").to_string();
        g.entry(w).or_default().push(r);
    }
    g
}

/// One kind of chart drawn per workload: `field` is the runs' JSON array
/// it is drawn from, `charts` the charts of a workload (title suffix, axis
/// labels, and the (x, y) points of one run's array).
struct ChartKind<'a> {
    heading: &'a str,
    intro: &'a str,
    field: &'a str,
    /// Curves with fewer points are not drawn (a count per interval over
    /// two or three intervals is no timeline).
    min_points: usize,
    x_axis: XAxis,
    /// Draw the points as a step function (a CDF: the share holds until the
    /// next value).
    steps: bool,
    charts: Vec<(String, &'a str, &'a str, Points<'a>)>,
}

/// `pts` as a step function's corners.
fn steps(pts: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(pts.len() * 2);
    for (k, &(x, y)) in pts.iter().enumerate() {
        if k > 0 {
            out.push((x, pts[k - 1].1));
        }
        out.push((x, y));
    }
    out
}

type Points<'a> = Box<dyn Fn(&[Value]) -> Vec<(f64, f64)> + 'a>;

fn grouped_charts(runs: &[(String, Value)], kind: &ChartKind, out: &mut String) {
    let groups = by_workload(runs);
    let drawn: Vec<_> = groups
        .iter()
        .filter(|(_, rs)| rs.iter().any(|r| r.1[kind.field].is_array()))
        .collect();
    if drawn.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h2>{}</h2>\n<p>{}</p>\n<div class=\"grid\">",
        kind.heading, kind.intro
    );
    let mut coarse = 0;
    let mut flat = Vec::new();
    for (w, rs) in drawn.iter().take(MAX_GROUPS) {
        let names = legend_names(rs);
        for (title, x_label, y_label, points) in &kind.charts {
            let series: Vec<Series> = rs
                .iter()
                .zip(&names)
                .filter_map(|(r, name)| {
                    let pts = points(r.1[kind.field].as_array()?);
                    if pts.len() < kind.min_points {
                        coarse += 1;
                        return None;
                    }
                    let pts = thin(pts);
                    Some(Series {
                        name,
                        points: if kind.steps { steps(pts) } else { pts },
                    })
                })
                .collect();
            if series.iter().all(|s| s.points.iter().all(|p| p.1 == 0.0)) {
                if !series.is_empty() {
                    flat.push(format!("{w}: {title}"));
                }
                continue;
            }
            // small multiples when the runs outnumber the distinct styles
            let parts = series.len().div_ceil(MAX_SERIES);
            for (k, chunk) in series.chunks(MAX_SERIES).enumerate() {
                let part = if parts > 1 {
                    format!(" ({} of {parts})", k + 1)
                } else {
                    String::new()
                };
                let svg = line_chart_on(
                    &format!("{w}: {title}{part}"),
                    x_label,
                    y_label,
                    chunk,
                    kind.x_axis,
                );
                let _ = writeln!(out, "<figure>{}</figure>", svg_body(&svg));
            }
        }
    }
    out.push_str("</div>\n");
    if !flat.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"note\">0 throughout in every run, not drawn: {}.</p>",
            esc(&flat.join("; "))
        );
    }
    if coarse > 0 {
        let _ = writeln!(
            out,
            "<p class=\"note\">{coarse} curves with fewer than {} points not drawn (a coarser time series than the run's length; set <code>metrics.interval_ms</code> smaller).</p>",
            kind.min_points
        );
    }
    if drawn.len() > MAX_GROUPS {
        let _ = writeln!(
            out,
            "<p class=\"note\">{} more workloads not drawn.</p>",
            drawn.len() - MAX_GROUPS
        );
    }
}

/// Latencies below this are drawn at it (a log axis has no 0).
const CDF_FLOOR_US: f64 = 0.1;

/// The latency CDFs (from the runs' `latency_cdf`), reads and writes apart.
fn cdf_charts(runs: &[(String, Value)], out: &mut String) {
    let cdf = |op: &'static str| -> Points<'static> {
        Box::new(move |a: &[Value]| {
            let pts: Vec<(f64, f64)> = a
                .iter()
                .filter(|p| p["op"] == op)
                .filter_map(|p| {
                    Some((
                        p["latency_us"].as_f64()?.max(CDF_FLOOR_US).log10(),
                        p["fraction"].as_f64()?,
                    ))
                })
                .collect();
            pts
        })
    };
    let kind = ChartKind {
        heading: "Latency distributions",
        intro: "Cumulative share of requests by latency (log scale, µs), one line per run of the workload; requests that completed in under 0.1 µs (without flash work: buffer hits, reads of never-written pages) are drawn at 0.1 µs.",
        field: "latency_cdf",
        min_points: 1,
        x_axis: XAxis::Log10,
        steps: true,
        charts: ["read", "write"]
            .into_iter()
            .map(|op| {
                (
                    format!("{op} latency CDF"),
                    "latency (us, log scale)",
                    "share of requests",
                    cdf(op),
                )
            })
            .collect(),
    };
    grouped_charts(runs, &kind, out);
}

/// GCs per interval of the runs' time series.
fn gc_timelines(runs: &[(String, Value)], out: &mut String) {
    let kind = ChartKind {
        heading: "GC timelines",
        intro: "GCs finished per interval of the time series (<code>metrics.interval_ms</code>), one line per run.",
        field: "timeseries",
        min_points: 8,
        x_axis: XAxis::Linear,
        steps: false,
        charts: vec![(
            "GCs per interval".to_string(),
            "time (s)",
            "GCs",
            Box::new(|a: &[Value]| {
                a.iter()
                    .filter_map(|p| Some((p["t_s"].as_f64()?, p["gc_count"].as_f64()?)))
                    .collect()
            }),
        )],
    };
    grouped_charts(runs, &kind, out);
}

/// At most [`MAX_POINTS`] points of a curve (evenly spaced, the last one
/// kept): a chart does not need every histogram bucket.
fn thin(pts: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    if pts.len() <= MAX_POINTS {
        return pts;
    }
    let step = pts.len().div_ceil(MAX_POINTS);
    let last = *pts.last().expect("not empty");
    let mut out: Vec<(f64, f64)> = pts.into_iter().step_by(step).collect();
    if out.last() != Some(&last) {
        out.push(last);
    }
    out
}

fn svg_body(svg: &str) -> &str {
    svg.find("<svg").map_or(svg, |k| &svg[k..])
}

/// Each paper's figures as charts, the paper's value as a ghost bar beside
/// ours (coloured by the verdict), then the table with the causes, and the
/// paper's conclusions.
fn paper_section(boards: &[Scoreboard], out: &mut String) {
    if boards.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h2>The papers' figures beside ours</h2>\n{}",
        markdown(&crate::scoreboard::summary_table(boards))
    );
    for b in boards {
        // one chart per figure of the paper and unit, in the paper's order
        let mut groups: Vec<(String, String, Vec<&crate::scoreboard::Figure>)> = Vec::new();
        for f in &b.figures {
            match groups.iter_mut().find(|g| g.0 == f.figure && g.1 == f.unit) {
                Some(g) => g.2.push(f),
                None => groups.push((f.figure.clone(), f.unit.clone(), vec![f])),
            }
        }
        let _ = writeln!(out, "<h3>{}</h3>\n<div class=\"grid\">", esc(&b.paper));
        for (figure, unit, figs) in &groups {
            let bars: Vec<PaperBar> = figs
                .iter()
                .map(|f| PaperBar {
                    label: &f.quantity,
                    paper: Some(f.paper.value()),
                    ours: f.ours,
                    within: match f.verdict {
                        Verdict::Within => Some(true),
                        Verdict::Miss | Verdict::Flagged => Some(false),
                        Verdict::Calibrated | Verdict::ByConstruction => None,
                    },
                })
                .collect();
            let svg = paper_chart(&format!("{}: {figure}", b.paper), unit, &bars);
            let _ = writeln!(out, "<figure>{}</figure>", svg_body(&svg));
        }
        out.push_str("</div>\n");
        out.push_str(&markdown(&b.detail()));
    }
}

/// Runs listed per kind of warning at most (the rest are counted).
const MAX_WARNED_RUNS: usize = 20;

/// The runs' warnings, by kind: how many runs have each, and what each
/// says (the first [`MAX_WARNED_RUNS`] runs, named as legends name them).
fn warnings(runs: &[(String, Value)], out: &mut String) {
    // runs named as the charts' legends name them: by the parts of their
    // file names that differ
    let all: Vec<&(String, Value)> = runs.iter().collect();
    let names = legend_names(&all);
    let mut by_kind: BTreeMap<String, Vec<(&str, String)>> = BTreeMap::new();
    for ((_, v), name) in runs.iter().zip(&names) {
        let name = name.as_str();
        for w in v["warnings"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
            let kind = w["kind"].as_str().unwrap_or("?").to_string();
            let msg = w["message"].as_str().unwrap_or("").to_string();
            by_kind.entry(kind).or_default().push((name, msg));
        }
    }
    out.push_str("<h2>Warnings</h2>\n");
    if by_kind.is_empty() {
        let _ = writeln!(out, "<p>None of the {} runs has a warning.</p>", runs.len());
        return;
    }
    let _ = writeln!(
        out,
        "<p>What may make a run's figures mean less than they seem (each run's JSON has them under <code>warnings</code>).</p>"
    );
    for (kind, list) in &by_kind {
        let _ = writeln!(
            out,
            "<h3><code>{}</code>: {} of {} runs</h3>\n<ul class=\"warnings\">",
            esc(kind),
            list.len(),
            runs.len()
        );
        for (name, msg) in list.iter().take(MAX_WARNED_RUNS) {
            let _ = writeln!(out, "<li><code>{}</code>: {}</li>", esc(name), esc(msg));
        }
        if list.len() > MAX_WARNED_RUNS {
            let _ = writeln!(
                out,
                "<li>and {} more runs</li>",
                list.len() - MAX_WARNED_RUNS
            );
        }
        out.push_str("</ul>\n");
    }
}

fn metadata(runs: &[(String, Value)], out: &mut String) {
    let mut sets: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut traces: BTreeMap<String, String> = BTreeMap::new();
    for (_, v) in runs {
        let run = &v["run"];
        let mut add = |k: &'static str, x: &Value| {
            if let Some(s) = x
                .as_str()
                .map(str::to_string)
                .or_else(|| (!x.is_null()).then(|| x.to_string()))
            {
                sets.entry(k).or_default().insert(s);
            }
        };
        add("ssdlab version", &run["ssdlab_version"]);
        add("git revision", &run["git_revision"]);
        add("seed", &run["seed"]);
        add("preconditioning", &run["precondition"]);
        add("drive", &v["config_name"]);
        add("workload", &v["workload_name"]);
        if let Some(t) = run["workload"]["trace"].as_object() {
            if let (Some(p), Some(h)) = (t["path"].as_str(), t["sha256"].as_str()) {
                traces.insert(p.to_string(), h.to_string());
            }
        }
    }
    let _ = writeln!(
        out,
        "<h2>What produced these results</h2>\n<p>{} runs. Each run's JSON under <code>runs/</code> carries its full configuration (<code>run.config</code>) and can be rerun exactly.</p>\n<table class=\"meta\"><tbody>",
        runs.len()
    );
    for (k, vals) in &sets {
        let list: Vec<String> = vals
            .iter()
            .map(|s| format!("<code>{}</code>", esc(s)))
            .collect();
        let _ = writeln!(out, "<tr><th>{k}</th><td>{}</td></tr>", list.join(" "));
    }
    for (p, h) in &traces {
        let _ = writeln!(
            out,
            "<tr><th>trace</th><td><code>{}</code> SHA-256 <code>{}</code></td></tr>",
            esc(p),
            esc(h)
        );
    }
    out.push_str("</tbody></table>\n");
}

fn results_table(header: &[String], rows: &[Vec<String>], out: &mut String) {
    let _ = writeln!(
        out,
        "<h2>All runs</h2>\n<p>The rows of <code>results.csv</code> (also <code>results.parquet</code>).</p>\n<div class=\"wide\"><table class=\"results\"><thead><tr>"
    );
    for h in header {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr></thead><tbody>\n");
    for l in rows {
        out.push_str("<tr>");
        for c in l {
            match c.parse::<f64>() {
                Ok(x) if x.fract() != 0.0 => {
                    let _ = write!(out, "<td class=\"n\">{}</td>", esc(&format!("{x:.4}")));
                }
                Ok(_) => {
                    let _ = write!(out, "<td class=\"n\">{}</td>", esc(c));
                }
                Err(_) => {
                    let _ = write!(out, "<td>{}</td>", esc(c));
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

const STYLE: &str = r#"
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1d232a; background: #fafbfc; }
main { max-width: 1200px; margin: 0 auto; padding: 24px 32px 64px; }
header { background: #1f3a5f; color: #fff; padding: 18px 32px; }
header h1 { margin: 0; font-size: 22px; font-weight: 600; }
header p { margin: 4px 0 0; opacity: .8; font-size: 13px; }
header code { background: rgba(255, 255, 255, .18); color: inherit; }
h2 { border-bottom: 2px solid #d8dee6; padding-bottom: 4px; margin-top: 40px; font-size: 19px; }
h3 { margin-top: 28px; font-size: 16px; }
table { border-collapse: collapse; margin: 12px 0; font-size: 13px; background: #fff; }
th, td { border: 1px solid #d8dee6; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eef2f6; font-weight: 600; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) td { background: #f7f9fb; }
pre { background: #fff; border: 1px solid #d8dee6; border-left: 4px solid #1f3a5f; padding: 10px 12px; overflow-x: auto; font-size: 12.5px; line-height: 1.35; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; background: #eef2f6; padding: 0 3px; border-radius: 3px; }
pre code { background: none; padding: 0; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 16px; }
figure { margin: 0; background: #fff; border: 1px solid #d8dee6; padding: 8px; }
figure svg { width: 100%; height: auto; }
figcaption { font-size: 12px; color: #5a6673; margin-top: 4px; }
.wide { overflow-x: auto; }
.note { color: #5a6673; font-size: 13px; }
nav { font-size: 13px; margin: 12px 0 0; }
nav a { margin-right: 14px; color: #1f3a5f; }
"#;

pub fn cmd_report(a: ReportArgs) -> Result<ExitCode> {
    let dir = &a.dir;
    if !dir.is_dir() {
        bail!(
            "{}: not a directory (give a sweep's or reproduction's --out)",
            dir.display()
        );
    }
    let summary_path = dir.join("summary.md");
    let summary = if summary_path.exists() {
        Some(ssdlab::workload::input::read_text_limited(
            &summary_path,
            ssdlab::workload::input::MAX_SPEC_BYTES,
            "a summary.md",
        )?)
    } else {
        None
    };
    let csv_path = dir.join("results.csv");
    let results = if csv_path.exists() {
        Some(crate::results::read_results(&csv_path)?)
    } else {
        None
    };
    let boards = crate::scoreboard::collect(dir)?;
    if summary.is_none() && results.is_none() && boards.is_empty() {
        bail!(
            "{}: no summary.md and no results.csv: not a sweep's or reproduction's output directory",
            dir.display()
        );
    }
    let out_path = a.out.clone().unwrap_or_else(|| dir.join("report.html"));
    crate::output::check_writable(&out_path, "--out")?;
    let runs = runs(dir)?;
    let title = summary
        .as_deref()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("# ")))
        .map(str::to_string)
        .or_else(|| match boards.as_slice() {
            [one] => Some(format!("{}: the paper's figures beside ours", one.paper)),
            [] => None,
            _ => Some("The papers' figures beside ours".to_string()),
        })
        .unwrap_or_else(|| "ssdlab results".to_string());

    let mut body = String::new();
    let _ = writeln!(
        body,
        "<nav><a href=\"#papers\">Paper against ours</a><a href=\"#summary\">Summary</a><a href=\"#warnings\">Warnings</a><a href=\"#charts\">Charts</a><a href=\"#latency\">Latency</a><a href=\"#runs\">All runs</a><a href=\"#meta\">Provenance</a></nav>"
    );
    body.push_str("<section id=\"papers\">\n");
    paper_section(&boards, &mut body);
    body.push_str("</section>\n<section id=\"summary\">\n");
    if let Some(s) = &summary {
        // the page's title is the summary's first heading
        let rest: String = s
            .lines()
            .skip_while(|l| !l.starts_with("# "))
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n");
        body.push_str(&markdown(&rest));
    }
    body.push_str("</section>\n<section id=\"warnings\">\n");
    if !runs.is_empty() {
        warnings(&runs, &mut body);
    }
    body.push_str("</section>\n<section id=\"charts\">\n");
    let charts = svgs(&dir.join("charts"))?;
    if !charts.is_empty() {
        body.push_str("<h2>Charts</h2>\n<div class=\"grid\">\n");
        for (name, svg) in &charts {
            let _ = writeln!(
                body,
                "<figure>{svg}<figcaption>{}</figcaption></figure>",
                esc(name)
            );
        }
        body.push_str("</div>\n");
    }
    body.push_str("</section>\n<section id=\"latency\">\n");
    cdf_charts(&runs, &mut body);
    let all: Vec<&(String, Value)> = runs.iter().collect();
    crate::report_why::section(&runs, &legend_names(&all), &mut body);
    crate::report_flows::section(&runs, &legend_names(&all), &mut body);
    gc_timelines(&runs, &mut body);
    body.push_str("</section>\n<section id=\"runs\">\n");
    if let Some((header, rows)) = &results {
        results_table(header, rows, &mut body);
    }
    body.push_str("</section>\n<section id=\"meta\">\n");
    if !runs.is_empty() {
        metadata(&runs, &mut body);
    }
    body.push_str("</section>\n");

    let page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{t}</title>\n<style>{STYLE}{WHY}{FLOWS}</style></head>\n<body><header><h1>{h}</h1><p>ssdlab {v} · {d}</p></header><main>\n{body}</main></body></html>\n",
        t = esc(&crate::svg::plain(&title)),
        h = inline(&title),
        v = env!("CARGO_PKG_VERSION"),
        d = esc(&dir.display().to_string()),
        WHY = crate::report_why::STYLE,
        FLOWS = crate::report_flows::STYLE,
    );
    crate::output::write_atomic(&out_path, page.as_bytes())?;
    eprintln!(
        "report: {} ({} runs, {} charts)",
        out_path.display(),
        runs.len(),
        charts.len()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_subset() {
        let html = markdown(
            "## Title `x`\n\nSome **bold** text\nwrapped.\n\n| a | b |\n|---|---:|\n| x | 1.5 |\n\n* one\n* two\n\n```text\n<raw>\n```\n",
        );
        assert!(html.contains("<h3>Title <code>x</code></h3>"), "{html}");
        assert!(
            html.contains("<p>Some <strong>bold</strong> text wrapped.</p>"),
            "{html}"
        );
        assert!(html.contains("<th>a</th><th>b</th>"), "{html}");
        assert!(
            html.contains("<td>x</td><td class=\"n\">1.5</td>"),
            "{html}"
        );
        assert!(html.contains("<ul><li>one</li><li>two</li></ul>"), "{html}");
        assert!(html.contains("<pre>&lt;raw&gt;\n</pre>"), "{html}");
        // a multi-byte character where a mark could start
        assert_eq!(inline("§III `x` é*"), "§III <code>x</code> é*");
    }

    #[test]
    fn legend_names_keep_what_differs() {
        let runs: Vec<(String, Value)> = ["x__d__w__a", "x__d__w__b__k=1"]
            .iter()
            .map(|n| (n.to_string(), Value::Null))
            .collect();
        let refs: Vec<&(String, Value)> = runs.iter().collect();
        assert_eq!(legend_names(&refs), ["a", "b · k=1"]);
    }
}
