//! The report's "Flows" section: for each run with several flows
//! (tenants), one row per flow with its requests, throughput, latency
//! (mean and tail), host queue wait, time blocked by GC and, where the
//! flows also ran alone, its slowdown drawn as a bar, with the run's
//! fairness (the smallest slowdown over the largest).

use std::fmt::Write;

use serde_json::Value;

use crate::report::esc;

/// Runs listed at most (the rest are counted).
const MAX_RUNS: usize = 40;

pub(crate) const STYLE: &str = "
table.flows td.bar { min-width: 140px; }
table.flows .slow { display: inline-block; height: 10px; background: #1f78b4; vertical-align: middle; margin-right: 6px; }
";

fn num(v: &Value, digits: usize) -> String {
    v.as_f64()
        .map_or_else(|| "–".to_string(), |x| format!("{x:.digits$}"))
}

/// The section, if any run has flows (`names`: the runs' legend names).
pub(crate) fn section(runs: &[(String, Value)], names: &[String], out: &mut String) {
    let with: Vec<(&str, &Value)> = runs
        .iter()
        .zip(names)
        .filter(|((_, v), _)| v["flows"].as_array().is_some_and(|f| !f.is_empty()))
        .map(|((_, v), n)| (n.as_str(), v))
        .collect();
    if with.is_empty() {
        return;
    }
    out.push_str("<h2>Flows</h2>\n");
    let _ = writeln!(
        out,
        "<p>Each flow's results in its run (latency from arrival in the host, µs; the host wait is the time a request \
         waited for a free entry of its flow's queue). Slowdown is a flow's mean latency shared over its mean latency \
         alone on the same drive; fairness is the smallest slowdown over the largest (1: every flow slowed alike). \
         Also in each run's JSON under <code>flows</code>, and in <code>flows.csv</code>.</p>"
    );
    for (name, v) in with.iter().take(MAX_RUNS) {
        let flows = v["flows"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let worst = flows
            .iter()
            .filter_map(|f| f["slowdown"].as_f64())
            .fold(0.0f64, f64::max);
        let fairness = match v["fairness"].as_f64() {
            Some(x) => format!("fairness {x:.3}"),
            None => "no slowdowns (the flows did not also run alone)".to_string(),
        };
        let _ = writeln!(
            out,
            "<h3><code>{}</code>: {} flows, {}</h3>\n<div class=\"wide\"><table class=\"results flows\"><thead><tr>\
             <th>flow</th><th>priority</th><th>queue depth</th><th>requests</th><th>IOPS</th><th>MB/s</th>\
             <th>mean</th><th>p99</th><th>p99.9</th><th>read mean</th><th>write mean</th><th>host wait mean</th>\
             <th>blocked by GC</th><th>alone mean</th><th>slowdown</th></tr></thead><tbody>",
            esc(name),
            flows.len(),
            esc(&fairness)
        );
        for f in flows {
            let bar = match f["slowdown"].as_f64() {
                Some(s) if worst > 0.0 => format!(
                    "<span class=\"slow\" style=\"width:{:.0}px\"></span>{s:.3}",
                    (s / worst * 100.0).max(1.0)
                ),
                _ => "–".to_string(),
            };
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
                 <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"bar\">{bar}</td></tr>",
                esc(f["name"].as_str().unwrap_or("?")),
                esc(f["priority"].as_str().unwrap_or("")),
                f["queue_depth"],
                f["requests"],
                num(&f["iops"], 1),
                num(&f["bandwidth_mb_s"], 2),
                num(&f["all"]["mean"], 1),
                num(&f["all"]["p99"], 1),
                num(&f["all"]["p999"], 1),
                if f["read"]["count"].as_u64() == Some(0) { "–".into() } else { num(&f["read"]["mean"], 1) },
                if f["write"]["count"].as_u64() == Some(0) { "–".into() } else { num(&f["write"]["mean"], 1) },
                num(&f["host_wait_us"]["mean"], 1),
                num(&f["gc_blocked_us"], 0),
                num(&f["alone_mean_latency_us"], 1),
            );
        }
        out.push_str("</tbody></table></div>\n");
    }
    if with.len() > MAX_RUNS {
        let _ = writeln!(
            out,
            "<p>and {} more runs with flows (their JSON under <code>runs/</code>, and <code>flows.csv</code>).</p>",
            with.len() - MAX_RUNS
        );
    }
}
