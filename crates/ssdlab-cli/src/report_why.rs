//! The report's "Why requests were slow" section: each run's latency
//! attribution (`metrics.attribution`), one stacked bar per operation and
//! band (all requests, and the tails beyond p50, p99 and p99.9), each part
//! a share of the band's latency, with the numbers in a table beside it.

use std::fmt::Write;

use serde_json::Value;

use crate::report::esc;

/// Parts in the result's order, with their colours (distinct, print-safe).
const PARTS: [(&str, &str, &str); 10] = [
    ("buffer", "waiting for a buffer slot", "#8c6bb1"),
    ("mapping", "waiting for mapping reads", "#e7298a"),
    ("held", "held by the scheduler", "#a6761d"),
    ("behind_host", "behind other host work", "#1f78b4"),
    ("behind_gc", "behind GC", "#e31a1c"),
    ("channel", "waiting for the channel", "#ff7f00"),
    ("transfer", "transfer", "#b2df8a"),
    ("array", "array time", "#33a02c"),
    ("suspended", "suspension", "#6a3d9a"),
    ("host", "in the host and its interface", "#999999"),
];

/// Runs listed at most (the rest are counted).
const MAX_RUNS: usize = 40;

/// The section, if any run has an attribution (`names`: the runs' legend
/// names).
pub(crate) fn section(runs: &[(String, Value)], names: &[String], out: &mut String) {
    let with: Vec<(&str, &Value)> = runs
        .iter()
        .zip(names)
        .filter(|((_, v), _)| v["attribution"].is_object())
        .map(|((_, v), n)| (n.as_str(), &v["attribution"]))
        .collect();
    if with.is_empty() {
        return;
    }
    out.push_str("<h2>Why requests were slow</h2>\n");
    let _ = writeln!(
        out,
        "<p>Each request's latency split into parts that sum to it (runs with <code>metrics.attribution</code> on): \
         the share of each part in the latency of all requests, and of the tails from the 50th, 99th and 99.9th \
         percentile on. A buffer slot's wait is split again, in brackets, by how the flushes the writes waited \
         for spent their time.</p>"
    );
    // (`suspended` is a part of runs with program and erase suspension.)
    // (`suspended` and `host` only where some run reports them.)
    let reported = |part: &str| {
        with.iter().any(|(_, a)| {
            a["parts"]
                .as_array()
                .is_some_and(|p| p.iter().any(|k| k == part))
        })
    };
    let (suspension, host) = (reported("suspended"), reported("host"));
    out.push_str("<p class=\"legend\">");
    for (key, words, colour) in PARTS {
        if (key == "suspended" && !suspension) || (key == "host" && !host) {
            continue;
        }
        let _ = write!(
            out,
            "<span><i style=\"background:{colour}\"></i>{}</span> ",
            esc(words)
        );
    }
    out.push_str("</p>\n");
    for (name, a) in with.iter().take(MAX_RUNS) {
        let _ = writeln!(out, "<h3><code>{}</code></h3>", esc(name));
        out.push_str(
            "<table class=\"why\"><thead><tr><th>operation</th><th>band</th><th>from (µs)</th><th>requests</th><th>mean (µs)</th><th>shares</th><th>largest parts</th></tr></thead><tbody>\n",
        );
        for op in ["read", "write"] {
            for b in a[op].as_array().map(Vec::as_slice).unwrap_or(&[]) {
                let share = |k: &str| b["share_pct"][k].as_f64().unwrap_or(0.0);
                let mut bar = String::new();
                for (k, words, colour) in PARTS {
                    let x = share(k);
                    if x > 0.0 {
                        let _ = write!(
                            bar,
                            "<i style=\"width:{x:.2}%;background:{colour}\" title=\"{} {x:.1} %\"></i>",
                            esc(words)
                        );
                    }
                }
                let mut ranked: Vec<(&str, f64)> =
                    PARTS.iter().map(|(k, w, _)| (*w, share(k))).collect();
                ranked.sort_by(|x, y| y.1.total_cmp(&x.1));
                let top: Vec<String> = ranked
                    .iter()
                    .filter(|(_, x)| *x >= 1.0)
                    .take(3)
                    .map(|(w, x)| {
                        let mut s = format!("{x:.0} % {}", esc(w));
                        if *w == PARTS[0].1 {
                            let causes: Vec<String> = {
                                let mut c: Vec<(&str, f64)> = PARTS
                                    .iter()
                                    .map(|(k, w, _)| {
                                        (*w, b["buffer_causes_pct"][k].as_f64().unwrap_or(0.0))
                                    })
                                    .filter(|(_, y)| *y >= 1.0)
                                    .collect();
                                c.sort_by(|x, y| y.1.total_cmp(&x.1));
                                c.iter()
                                    .take(3)
                                    .map(|(w, y)| format!("{y:.0} % {}", esc(w)))
                                    .collect()
                            };
                            if !causes.is_empty() {
                                s += &format!(" ({})", causes.join(", "));
                            }
                        }
                        s
                    })
                    .collect();
                let _ = writeln!(
                    out,
                    "<tr><td>{op}</td><td>{}</td><td class=\"n\">{:.1}</td><td class=\"n\">{}</td><td class=\"n\">{:.1}</td><td><div class=\"bar\">{bar}</div></td><td>{}</td></tr>",
                    esc(b["band"].as_str().unwrap_or("?")),
                    b["from_us"].as_f64().unwrap_or(0.0),
                    b["requests"].as_u64().unwrap_or(0),
                    b["mean_us"].as_f64().unwrap_or(0.0),
                    top.join("; ")
                );
            }
        }
        out.push_str("</tbody></table>\n");
    }
    if with.len() > MAX_RUNS {
        let _ = writeln!(
            out,
            "<p class=\"note\">and {} more runs with an attribution (in their JSON under <code>attribution</code>).</p>",
            with.len() - MAX_RUNS
        );
    }
}

/// The section's styles.
pub(crate) const STYLE: &str = r#"
.bar { display: flex; width: 260px; height: 14px; background: #eef2f6; border: 1px solid #d8dee6; }
.bar i { display: block; height: 100%; }
.legend span { margin-right: 12px; font-size: 12.5px; white-space: nowrap; }
.legend i { display: inline-block; width: 11px; height: 11px; margin-right: 4px; vertical-align: -1px; }
"#;
