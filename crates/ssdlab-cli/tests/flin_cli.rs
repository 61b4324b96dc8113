//! FLIN (`sched.policy = "flin"`) from the command line: a sweep of FIFO
//! and FLIN over a read-heavy and a write-heavy flow, its `flows.csv` and
//! the report page's flows (per-flow latency, slowdowns, fairness under
//! both); FLIN without flows is an error naming the key.

mod common;
use common::*;

const SPEC: &str = r#"
experiment = "tenants"
presets = ["small"]
precondition = "fill:0.9:0.8+trace-reads"
limit = 3000
baseline = "fifo"
[[scheme]]
name = "fifo"
set = ["sched.policy=fcfs", "host.time_scale=0.01"]
[[scheme]]
name = "flin"
set = ["sched.policy=flin", "host.time_scale=0.01"]
[[flowset]]
name = "reader+writer"
alone = true
flows = [
  { name = "reader", workload = "spd/proj_3" },
  { name = "writer", workload = "spd/prxy_0" },
]
"#;

#[test]
fn a_sweep_and_its_report_show_flows_under_fifo_and_flin() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("tenants.toml");
    std::fs::write(&spec, SPEC).unwrap();
    let out_dir = dir.path().join("out");
    let args = [
        "sweep",
        spec.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--jobs",
        "1",
    ];
    let out = run(&args);
    assert!(out.status.success(), "{}", describe(&args, &out));
    // flows.csv: the run's fairness is its rows' last column.
    let csv = std::fs::read_to_string(out_dir.join("flows.csv")).unwrap();
    let fairness = |scheme: &str| -> f64 {
        let line = csv
            .lines()
            .find(|l| l.split(',').nth(3) == Some(scheme))
            .unwrap_or_else(|| panic!("no {scheme} row in\n{csv}"));
        line.rsplit(',').next().unwrap().parse().unwrap()
    };
    let (fifo, flin) = (fairness("fifo"), fairness("flin"));
    assert!(
        flin > fifo,
        "FLIN's fairness {flin} is not above FIFO's {fifo}"
    );
    let args = ["report", out_dir.to_str().unwrap()];
    let out = run(&args);
    assert!(out.status.success(), "{}", describe(&args, &out));
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    for needle in [
        "<h2>Flows</h2>",
        "flin</code>: 2 flows, fairness",
        "fifo</code>: 2 flows, fairness",
        &format!("fairness {flin:.3}"),
        &format!("fairness {fifo:.3}"),
    ] {
        assert!(html.contains(needle), "report lacks {needle:?}");
    }
}

#[test]
fn flin_without_flows_names_the_key() {
    let args = [
        "run",
        "--preset",
        "small",
        "--workload",
        "spd/proj_3",
        "--limit",
        "10",
        "--set",
        "sched.policy=flin",
    ];
    let out = run(&args);
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{}", describe(&args, &out));
    assert!(
        stderr.contains("sched.policy") && stderr.contains("flows"),
        "{}",
        describe(&args, &out)
    );
    assert!(!stderr.contains("panicked"));
}

/// The library call behind the Python package: FLIN with flows given as
/// values (the scheduler's keys apply once the flows are added).
#[test]
fn the_library_call_runs_flin_with_flows() {
    let req = ssdlab_cli::api::RunRequest {
        preset: Some("small".into()),
        sets: vec!["sched.policy=flin".into(), "host.time_scale=0.01".into()],
        precondition: Some("fill:0.9:0.8+trace-reads".into()),
        flows: vec![
            "name=reader,workload=spd/proj_3,limit=500".into(),
            "name=writer,workload=spd/prxy_0,limit=500".into(),
        ],
        alone: true,
        ..Default::default()
    };
    let json: serde_json::Value =
        serde_json::from_str(&ssdlab_cli::api::run(&req).unwrap()).unwrap();
    let result = &json["result"];
    assert_eq!(result["run"]["config"]["sched"]["policy"], "flin");
    assert!(
        result["fairness"].as_f64().is_some(),
        "{}",
        result["fairness"]
    );
}
