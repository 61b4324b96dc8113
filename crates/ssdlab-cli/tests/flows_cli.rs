//! `ssdlab run` with flows: `--flow` and `[[flows]]`/`[queues]` in a
//! configuration file run, report per flow (summary, JSON, latency log),
//! `--alone` adds slowdowns and fairness, and bad input is a clear error
//! naming the flow and the key.

use serde_json::Value;

mod common;
use common::*;

fn fails_naming(args: &[&str], needles: &[&str]) {
    let out = run(args);
    let stderr = text(&out.stderr);
    assert!(
        !out.status.success(),
        "expected failure:\n{}",
        describe(args, &out)
    );
    assert!(
        out.status.code().is_some(),
        "killed:\n{}",
        describe(args, &out)
    );
    assert!(
        !stderr.contains("panicked"),
        "panicked:\n{}",
        describe(args, &out)
    );
    for n in needles {
        assert!(
            stderr.contains(n),
            "stderr lacks {n:?}:\n{}",
            describe(args, &out)
        );
    }
}

const READER: &str = "name=reader,workload=spd/proj_3,limit=2000";
const WRITER: &str = "name=writer,workload=spd/prxy_0,limit=2000,priority=low,queue_depth=4";

#[test]
fn two_flows_report_per_flow_with_slowdowns_and_fairness() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let log = dir.path().join("log.csv");
    let args = [
        "run",
        "--preset",
        "small",
        "--precondition",
        "fill:0.5:0.5+trace-reads",
        "--set",
        "host.time_scale=0.01",
        "--flow",
        READER,
        "--flow",
        WRITER,
        "--alone",
        "--json",
        json.to_str().unwrap(),
        "--latency-log",
        log.to_str().unwrap(),
    ];
    let (out, _) = ok(&args);
    assert!(
        out.contains("fairness (min slowdown / max slowdown)"),
        "{out}"
    );
    assert!(out.contains("reader") && out.contains("writer"), "{out}");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let flows = r["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 2);
    assert_eq!(flows[0]["name"], "reader");
    assert_eq!(flows[1]["priority"], "low");
    assert_eq!(flows[1]["queue_depth"], 4);
    let mut slowdowns = vec![];
    for f in flows {
        assert_eq!(f["requests"], 2000);
        let s = f["slowdown"].as_f64().unwrap();
        let shared = f["all"]["mean"].as_f64().unwrap();
        let alone = f["alone_mean_latency_us"].as_f64().unwrap();
        assert!((s - shared / alone).abs() < 1e-9);
        for k in ["p50", "p90", "p99", "p999", "p9999"] {
            assert!(f["all"][k].as_f64().is_some(), "{k}");
        }
        slowdowns.push(s);
    }
    let fairness = r["fairness"].as_f64().unwrap();
    let (lo, hi) = (
        slowdowns[0].min(slowdowns[1]),
        slowdowns[0].max(slowdowns[1]),
    );
    assert!((fairness - lo / hi).abs() < 1e-9);
    assert_eq!(r["requests"], 4000);
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "flow,arrival_ns,completion_ns,op,offset_bytes,size_bytes,latency_ns,host_wait_ns,\
         buffer_ns,mapping_ns,held_ns,behind_host_ns,behind_gc_ns,channel_ns,transfer_ns,array_ns,host_ns"
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 4000);
    // Each request's parts sum to its latency; its host wait is in `host`.
    for row in &rows {
        let f: Vec<u64> = row.split(',').skip(6).map(|x| x.parse().unwrap()).collect();
        let (latency, wait, parts) = (f[0], f[1], &f[2..]);
        assert_eq!(parts.iter().sum::<u64>(), latency, "{row}");
        assert!(parts[8] >= wait, "{row}");
    }
    assert!(
        rows.iter().any(|r| r.split(',').nth(7) != Some("0")),
        "no request waited in the host"
    );
    assert_eq!(
        rows.iter().filter(|l| l.starts_with("writer,")).count(),
        2000
    );
    // The same run again: the same JSON figures (the run record aside).
    let json2 = dir.path().join("r2.json");
    let mut again = args.to_vec();
    let n = again.len();
    again[n - 3] = json2.to_str().unwrap();
    again.truncate(n - 2);
    ok(&again);
    let r2: Value = serde_json::from_str(&std::fs::read_to_string(&json2).unwrap()).unwrap();
    assert_eq!(r["flows"], r2["flows"]);
    assert_eq!(r["fairness"], r2["fairness"]);
    // A rerun redoes the alone runs too.
    let (out, _) = ok(&["rerun", json.to_str().unwrap()]);
    assert!(out.starts_with("identical"), "{out}");
}

#[test]
fn flows_from_a_configuration_file() {
    let dir = tempfile::tempdir().unwrap();
    let (toml, _) = ok(&["presets", "show", "small"]);
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        format!(
            "{toml}\n[queues]\narbitration = \"wrr\"\nweights = {{ high = 3, medium = 2, low = 1 }}\nburst = 2\ndevice_slots = 4\n\n\
             [[flows]]\nname = \"a\"\nworkload = \"spd/hm_0\"\nlimit = 500\npriority = \"high\"\nnamespace = {{ first_page = 0, pages = 400000 }}\n\n\
             [[flows]]\nname = \"b\"\nworkload = \"spd/hm_0\"\nlimit = 500\nstart_us = 1000\nnamespace = {{ first_page = 400000, pages = 400000 }}\n"
        ),
    )
    .unwrap();
    let json = dir.path().join("r.json");
    ok(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--precondition",
        "none",
        "--json",
        json.to_str().unwrap(),
        "-q",
    ]);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["flows"].as_array().unwrap().len(), 2);
    assert!(r.get("fairness").is_none());
    assert_eq!(r["run"]["config"]["queues"]["burst"], 2);
    // A flow from the file and one more from the command line.
    ok(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--precondition",
        "none",
        "--flow",
        "name=c,workload=spd/hm_0,limit=100",
        "-q",
    ]);
    // The record holds every flow's workload: a rerun reproduces it.
    assert_eq!(r["run"]["flows"].as_array().unwrap().len(), 2);
    let (out, _) = ok(&["rerun", json.to_str().unwrap()]);
    assert!(out.starts_with("identical"), "{out}");
}

#[test]
fn bad_flows_name_the_flow_and_the_key() {
    let base = ["run", "--preset", "small", "--precondition", "none"];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let cases: &[(&[&str], &[&str])] = &[
        (&["--flow", "name=a"], &["flows[0].workload", "flow `a`"]),
        (&["--flow", "workload=spd/hm_0"], &["give the flow a name"]),
        (
            &["--flow", "name=a,workload=spd/hm_0,queue_depth=0"],
            &["flows[0].queue_depth", "flow `a`"],
        ),
        (
            &["--flow", "name=a,workload=spd/hm_0,depth=3"],
            &["unknown key `depth`"],
        ),
        (
            &["--flow", "name=a,workload=no/such"],
            &["flow `a` (flows[0])", "unknown workload"],
        ),
        (
            &["--flow", "name=a,workload=spd/hm_0,priority=top"],
            &["priority: `top`"],
        ),
        (
            &[
                "--flow",
                "name=a,workload=spd/hm_0,namespace=0:1000",
                "--flow",
                "name=b,workload=spd/hm_0,namespace=500:1000",
            ],
            &["flows[1].namespace", "flow `b`", "overlap flow `a`"],
        ),
        (
            &["--flow", "name=a,workload=spd/hm_0,limit=50,namespace=0:5"],
            &["flows[0].namespace.pages", "flow `a`"],
        ),
        (
            &[
                "--flow",
                "name=a,workload=spd/hm_0",
                "--set",
                "queues.weights.low=0",
            ],
            &["queues.weights.low"],
        ),
        (
            &[
                "--flow",
                "name=a,workload=spd/hm_0",
                "--flow",
                "name=b,workload=spd/hm_0",
                "--set",
                "queues.max_queues=1",
            ],
            &["2 flows need 2 I/O submission queues", "queues.max_queues"],
        ),
        (
            &[
                "--flow",
                "name=a,workload=spd/hm_0,queue_depth=64",
                "--set",
                "queues.protocol=\"sata\"",
            ],
            &["flows[0].queue_depth", "32"],
        ),
        (
            &[
                "--flow",
                "name=a,workload=spd/hm_0",
                "--workload",
                "spd/hm_0",
            ],
            &["each flow names its own workload"],
        ),
        (&["--workload", "spd/hm_0", "--alone"], &["--alone"]),
        (
            &[
                "--flow",
                "name=a,workload=spd/hm_0,namespace=0:100000",
                "--flow",
                "name=b,workload=spd/hm_0",
                "--set",
                "buffer.sharing=\"partitioned\"",
            ],
            &["flows[1].namespace", "flow `b`", "buffer.sharing"],
        ),
        (
            &[
                "--flow",
                "name=a,workload=spd/hm_0",
                "--set",
                "host.mode=\"closed-loop\"",
            ],
            &["host.mode", "not supported with [[flows]]"],
        ),
    ];
    for (extra, needles) in cases {
        let args = with(extra);
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        fails_naming(&args, needles);
    }
}

const FLOW_SWEEP: &str = r#"experiment = "tenants"
presets = ["small"]
limit = 1500
precondition = "fill:0.5:0.5"
baseline = "rr"
[[flowset]]
name = "reader+writer"
alone = true
flows = [
  { name = "reader", workload = "spd/proj_3", queue_depth = 8 },
  { name = "writer", workload = "spd/prxy_0", priority = "high", limit = 1000 },
]
[[scheme]]
name = "rr"
set = []
[[scheme]]
name = "wrr"
set = ['queues.arbitration="wrr"', "queues.weights.high=8"]
"#;

#[test]
fn a_sweep_runs_flow_sets_with_per_flow_results_and_a_report_section() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.toml");
    std::fs::write(&spec, FLOW_SWEEP).unwrap();
    let out = dir.path().join("out");
    ok(&[
        "sweep",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "1",
        "-q",
    ]);
    // results.csv: one row per run, the flow set as the workload
    let results = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let rows: Vec<&str> = results.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{results}");
    assert!(
        rows.iter().all(|r| r.contains(",reader+writer,")),
        "{results}"
    );
    // flows.csv: one row per flow of each run, the flow's own limit
    let flows = std::fs::read_to_string(out.join("flows.csv")).unwrap();
    let mut lines = flows.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4, "{flows}");
    let names: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r[col("scheme")], r[col("flow")]))
        .collect();
    assert_eq!(
        names,
        [
            ("rr", "reader"),
            ("rr", "writer"),
            ("wrr", "reader"),
            ("wrr", "writer")
        ]
    );
    for r in &rows {
        let requests: u64 = r[col("requests")].parse().unwrap();
        assert_eq!(
            requests,
            if r[col("flow")] == "reader" {
                1500
            } else {
                1000
            }
        );
    }
    // each run's fairness is its smallest slowdown over its largest
    for run in rows.chunks(2) {
        let s: Vec<f64> = run
            .iter()
            .map(|r| r[col("slowdown")].parse().unwrap())
            .collect();
        let fairness: f64 = run[0][col("fairness")].parse().unwrap();
        assert!(s.iter().all(|&x| x > 0.0), "{flows}");
        let expect = s[0].min(s[1]) / s[0].max(s[1]);
        assert!((fairness - expect).abs() < 1e-12, "{fairness} vs {expect}");
    }
    assert!(out.join("flows.parquet").is_file());
    // the saved run's JSON has the flows and their workloads
    let run: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("runs/tenants__small__reader+writer__rr.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(run["flows"].as_array().unwrap().len(), 2);
    assert_eq!(run["run"]["flows"].as_array().unwrap().len(), 2);
    // the report page has a section of the flows
    ok(&["report", out.to_str().unwrap()]);
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.contains("<h2>Flows</h2>"));
    assert!(page.contains("fairness 0."), "no fairness in the page");
    // --resume reuses both runs: the same files
    let before = std::fs::read(out.join("flows.csv")).unwrap();
    ok(&[
        "sweep",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--resume",
        "-q",
    ]);
    assert_eq!(std::fs::read(out.join("flows.csv")).unwrap(), before);
}

#[test]
fn bad_flow_sets_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.toml");
    let out = dir.path().join("out");
    let try_spec = |text: &str, needles: &[&str]| {
        std::fs::write(&spec, text).unwrap();
        fails_naming(
            &[
                "sweep",
                spec.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            needles,
        );
    };
    try_spec(
        &FLOW_SWEEP.replace("queue_depth = 8", "depth = 8"),
        &["unknown field `depth`"],
    );
    try_spec(
        &FLOW_SWEEP.replace("workload = \"spd/proj_3\"", "workload = \"spd/nope\""),
        &["[[flowset]] `reader+writer`", "flow `reader`"],
    );
    try_spec(
        r#"experiment = "x"
baseline = "a"
[[flowset]]
name = "empty"
flows = []
[[scheme]]
name = "a"
set = []
"#,
        &["[[flowset]] `empty`", "`flows` is empty"],
    );
    try_spec(
        &FLOW_SWEEP.replace("queue_depth = 8", "queue_depth = 0"),
        &["reader", "queue_depth"],
    );
}

/// `--set buffer.sharing` and `--set ftl.mapping_cache_sharing` apply once
/// `--flow`'s flows are added (they need flows), and the run says so.
#[test]
fn sharing_among_flows_is_set_after_the_flows() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let args = [
        "run",
        "--preset",
        "small",
        "--precondition",
        "none",
        "--set",
        "buffer.sharing=\"partitioned\"",
        "--set",
        "ftl.mapping=\"dftl\"",
        "--set",
        "ftl.mapping_cache_sharing=\"partitioned\"",
        "--flow",
        "name=reader,workload=spd/proj_3,limit=2000,namespace=0:490000",
        "--flow",
        "name=writer,workload=spd/prxy_0,limit=2000,namespace=490000:401289",
        "--json",
        json.to_str().unwrap(),
    ];
    let out = run(&args);
    assert!(out.status.success(), "{}", describe(&args, &out));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cfg = &v["run"]["config"];
    assert_eq!(cfg["buffer"]["sharing"], "partitioned", "{cfg}");
    assert_eq!(cfg["ftl"]["mapping_cache_sharing"], "partitioned");
    assert_eq!(v["flows"].as_array().map(Vec::len), Some(2));
}
