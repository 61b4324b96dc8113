//! Statistics across seeds: a sweep with `seeds = N` runs each cell N
//! times with the same seeds in every cell, writes one row per run and
//! stats.csv (mean, sd, 95 % Student-t interval, checked here against a
//! computation from the rows), is deterministic, resumes and merges with
//! replicates; without `seeds` (or with `seeds = 1`) it writes what it
//! always did; `ssdlab compare` tells identical configurations from
//! different ones; bad inputs are clear errors.

use std::path::Path;
use std::process::{Command, Output};

fn ssdlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
}

fn describe(out: &Output) -> String {
    format!(
        "exit: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn ok(out: Output) -> Output {
    assert!(out.status.success(), "{}", describe(&out));
    out
}

fn sweep(spec: &Path, out: &Path, extra: &[&str]) -> Output {
    ssdlab()
        .arg("sweep")
        .arg(spec)
        .arg("--out")
        .arg(out)
        .arg("-q")
        .args(extra)
        .output()
        .unwrap()
}

/// Three schemes on a cut `small` drive with a short built-in workload:
/// `greedy` and `same` are the same configuration under two names,
/// `tight` has far less over-provisioning.
fn spec_text(top: &str) -> String {
    format!(
        r#"experiment = "reps"
presets = ["small"]
workloads = ["spd/hm_0"]
precondition = "fill:0.95:0.8+trace-reads"
limit = 3000
baseline = "greedy"
{top}

[[scheme]]
name = "greedy"
set = ["geometry.blocks_per_plane=64", "geometry.pages_per_block=32"]
[[scheme]]
name = "same"
set = ["geometry.blocks_per_plane=64", "geometry.pages_per_block=32"]
[[scheme]]
name = "tight"
set = ["geometry.blocks_per_plane=64", "geometry.pages_per_block=32", "ftl.overprovisioning=0.03"]
"#
    )
}

fn setup(spec: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("spec.toml"), spec).unwrap();
    dir
}

/// Every file under `dir`, relative, with its bytes.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn assert_same_tree(a: &Path, b: &Path, but: &[&str]) {
    let (ta, tb) = (tree(a), tree(b));
    let names = |t: &[(String, Vec<u8>)]| -> Vec<String> {
        t.iter()
            .map(|f| f.0.clone())
            .filter(|n| !but.contains(&n.as_str()))
            .collect()
    };
    assert_eq!(names(&ta), names(&tb));
    for ((n, x), (_, y)) in ta.iter().zip(&tb) {
        if !but.contains(&n.as_str()) {
            assert!(
                x == y,
                "{n} differs between {} and {}",
                a.display(),
                b.display()
            );
        }
    }
}

/// A CSV without quoted fields, as header and rows.
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

/// t_{0.975, 2}, from a t table.
const T_975_2: f64 = 4.302_652_729_911_275;

#[test]
fn replicates_rows_stats_and_determinism() {
    let dir = setup(&spec_text("seed = 1\nseeds = 3"));
    let spec = dir.path().join("spec.toml");
    let out = dir.path().join("out");
    ok(sweep(&spec, &out, &["--jobs", "2"]));

    // One row per run, replicates of a cell together, with their seeds.
    let (h, rows) = csv(&out.join("results.csv"));
    assert_eq!(
        &h[..7],
        [
            "experiment",
            "preset",
            "workload",
            "scheme",
            "replicate",
            "seed",
            "workload_seed"
        ]
    );
    assert_eq!(rows.len(), 9);
    for (k, r) in rows.iter().enumerate() {
        let i = k % 3;
        assert_eq!(r[3], ["greedy", "same", "tight"][k / 3]);
        assert_eq!(r[4], i.to_string());
        // the drive's seed is the spec's (replicates share the aged
        // drive), the workload's the spec's seed + i
        assert_eq!(r[5], "1");
        assert_eq!(r[6], (1 + i).to_string());
    }
    let runs = std::fs::read_dir(out.join("runs")).unwrap().count();
    assert_eq!(runs, 9);
    assert!(out
        .join("runs/reps__small__spd_hm_0__tight__replicate=2.json")
        .is_file());
    // The replicates differ (the workload's seed changes its requests).
    let wl = col(&h, "write_latency_us_mean");
    assert_ne!(rows[0][wl], rows[1][wl]);

    // stats.csv: n, mean, sd and the 95 % interval from the rows.
    let (sh, stats) = csv(&out.join("stats.csv"));
    assert_eq!(
        sh,
        [
            "experiment",
            "preset",
            "workload",
            "scheme",
            "metric",
            "n",
            "mean",
            "sd",
            "ci95_low",
            "ci95_high"
        ]
    );
    assert_eq!(stats.len(), 3 * 13, "three cells × the 13 metric columns");
    let mut checked = 0;
    for s in &stats {
        let scheme = &s[3];
        let metric = &s[4];
        let c = col(&h, metric);
        let xs: Vec<f64> = rows
            .iter()
            .filter(|r| &r[3] == scheme)
            .map(|r| r[c].parse().unwrap())
            .collect();
        assert_eq!(s[5], "3");
        let mean = xs.iter().sum::<f64>() / 3.0;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
        let hw = T_975_2 * sd / 3f64.sqrt();
        let num = |k: usize| -> f64 { s[k].parse().unwrap() };
        let tol = 1e-9 * (1.0 + mean.abs());
        assert!((num(6) - mean).abs() <= tol, "{s:?}: mean {mean}");
        assert!((num(7) - sd).abs() <= tol, "{s:?}: sd {sd}");
        assert!(
            (num(8) - (mean - hw)).abs() <= tol,
            "{s:?}: low {}",
            mean - hw
        );
        assert!(
            (num(9) - (mean + hw)).abs() <= tol,
            "{s:?}: high {}",
            mean + hw
        );
        checked += 1;
    }
    assert_eq!(checked, 39);

    // summary.md: mean ± half-width; charts: error bars.
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("9 runs (3 cells × 3 seeds)"), "{summary}");
    assert!(summary.contains(" ± "), "{summary}");
    let chart = std::fs::read_to_string(out.join("charts/write_amplification.svg")).unwrap();
    assert!(chart.contains("mean of 3 seeds, 95 % CI"));
    assert_eq!(
        chart.matches(": 95 % CI ").count(),
        3,
        "an error bar per bar"
    );

    // The same spec again, on one thread: the same bytes.
    let again = dir.path().join("again");
    ok(sweep(&spec, &again, &["--jobs", "1"]));
    assert_same_tree(&out, &again, &[]);

    // The report draws the charts with their error bars.
    ok(ssdlab().arg("report").arg(&out).output().unwrap());
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains(": 95 % CI "), "error bars in the report");
    assert!(html.contains("<th>replicate</th>"));
}

/// `seeds = 1`, and no `seeds`, write exactly what a sweep always wrote:
/// no replicate columns, no stats.csv, the same runs, charts and summary.
#[test]
fn one_seed_is_the_sweep_without_seeds() {
    let dir = setup(&spec_text(""));
    let spec = dir.path().join("spec.toml");
    let plain = dir.path().join("plain");
    ok(sweep(&spec, &plain, &[]));
    let one = dir.path().join("one.toml");
    std::fs::write(&one, spec_text("seeds = 1")).unwrap();
    let single = dir.path().join("single");
    ok(sweep(&one, &single, &[]));
    assert_same_tree(&plain, &single, &[]);
    assert!(!plain.join("stats.csv").exists());
    let (h, rows) = csv(&plain.join("results.csv"));
    assert!(!h.iter().any(|c| c == "replicate"));
    assert_eq!(rows.len(), 3);

    // Replicate 0 of a sweep with seeds is that run (same seeds).
    let three = dir.path().join("three");
    ok(sweep(&spec, &three, &["--seeds", "3"]));
    let (h3, rows3) = csv(&three.join("results.csv"));
    let wa = |h: &[String], r: &[String]| r[col(h, "write_amplification")].clone();
    assert_eq!(wa(&h, &rows[0]), wa(&h3, &rows3[0]));
    assert_eq!(rows3[0][col(&h3, "seed")], "1", "the preset's seed");
    assert_eq!(
        rows3[1][col(&h3, "workload_seed")],
        "1002",
        "the built-in profile's own seed + 1"
    );
    // compare needs replicates
    let o = ssdlab()
        .args(["compare"])
        .arg(&plain)
        .args(["greedy", "tight"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no `replicate` column") && err.contains("seeds = N"),
        "{err}"
    );
}

/// A sweep with replicates cut short (a run missing, one cut in half)
/// finishes with --resume to the same bytes; shards of it merge to the
/// same bytes too.
#[test]
fn resume_and_shards_with_replicates() {
    let dir = setup(&spec_text("seed = 5\nseeds = 2"));
    let spec = dir.path().join("spec.toml");
    let whole = dir.path().join("whole");
    ok(sweep(&spec, &whole, &[]));

    let cut = dir.path().join("cut");
    ok(sweep(&spec, &cut, &[]));
    let runs = cut.join("runs");
    std::fs::remove_file(runs.join("reps__small__spd_hm_0__same__replicate=1.json")).unwrap();
    let half = runs.join("reps__small__spd_hm_0__tight__replicate=0.json");
    let bytes = std::fs::read(&half).unwrap();
    std::fs::write(&half, &bytes[..bytes.len() / 2]).unwrap();
    for f in ["results.csv", "stats.csv", "summary.md"] {
        std::fs::remove_file(cut.join(f)).unwrap();
    }
    let o = ok(sweep(&spec, &cut, &["--resume"]));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("4 of 6 runs reused"), "{err}");
    assert!(err.contains("tight__replicate=0.json: not reused"), "{err}");
    assert_same_tree(&whole, &cut, &[]);

    // --list shows every replicate; two shards merge to the whole.
    let o = ok(ssdlab()
        .arg("sweep")
        .arg(&spec)
        .arg("--list")
        .output()
        .unwrap());
    let list = String::from_utf8_lossy(&o.stdout);
    assert_eq!(list.lines().count(), 6, "{list}");
    assert!(list.contains(
        "5\treps__small__spd_hm_0__tight__replicate=1\tsmall spd/hm_0 tight replicate=1"
    ));
    let mut shards = Vec::new();
    for i in 0..2 {
        let d = dir.path().join(format!("shard{i}"));
        ok(sweep(&spec, &d, &["--shard", &format!("{i}/2")]));
        shards.push(d);
    }
    let merged = dir.path().join("merged");
    ok(ssdlab()
        .args(["sweep", "merge"])
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .output()
        .unwrap());
    assert_same_tree(&whole, &merged, &[]);
}

fn compare(dir: &Path, a: &str, b: &str, json: &Path) -> (String, serde_json::Value) {
    let o = ok(ssdlab()
        .arg("compare")
        .arg(dir)
        .args([a, b])
        .arg("--json")
        .arg(json)
        .output()
        .unwrap());
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let doc = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    (text, doc)
}

fn verdict(doc: &serde_json::Value, metric: &str) -> String {
    doc["rows"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == metric)
        .unwrap_or_else(|| panic!("no {metric} in {doc}"))["verdict"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn compare_tells_noise_from_a_difference() {
    let dir = setup(&spec_text("seed = 1\nseeds = 4"));
    let spec = dir.path().join("spec.toml");
    let out = dir.path().join("out");
    ok(sweep(&spec, &out, &[]));

    // The same configuration under two names: no difference anywhere.
    let (text, doc) = compare(&out, "greedy", "same", &dir.path().join("same.json"));
    assert!(
        text.contains("paired t-test on the per-replicate differences B − A, n = 4"),
        "{text}"
    );
    assert!(!text.contains("differ significantly"), "{text}");
    assert!(text.contains("0 of 12 comparisons differ"), "{text}");
    assert_eq!(doc["rows"][0]["test"], "paired-t");
    assert_eq!(doc["rows"][0]["n_a"], 4);
    assert_eq!(verdict(&doc, "write_amplification"), "identical");

    // Far less over-provisioning: write amplification and GCs differ.
    let (text, doc) = compare(&out, "greedy", "tight", &dir.path().join("tight.json"));
    assert_eq!(verdict(&doc, "write_amplification"), "differ", "{text}");
    assert_eq!(verdict(&doc, "gc_count"), "differ", "{text}");
    let wa = doc["rows"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "write_amplification")
        .unwrap();
    let (lo, hi, p) = (
        wa["ci95_low"].as_f64().unwrap(),
        wa["ci95_high"].as_f64().unwrap(),
        wa["p_value"].as_f64().unwrap(),
    );
    assert!(lo > 0.0 && hi > lo && p < 0.05, "{wa}");
    let diff = wa["mean_b"].as_f64().unwrap() - wa["mean_a"].as_f64().unwrap();
    assert!((wa["difference"].as_f64().unwrap() - diff).abs() < 1e-9);
    assert!(text.contains("differ significantly at 5 %"), "{text}");
}

/// A scheme that sets its own seed does not share the others' seeds:
/// compare says so and uses Welch's test.
#[test]
fn compare_falls_back_to_welch_when_seeds_differ() {
    let spec = spec_text("seeds = 3").replace(
        r#""ftl.overprovisioning=0.03"]"#,
        r#""ftl.overprovisioning=0.03", "seed=7"]"#,
    );
    let dir = setup(&spec);
    let out = dir.path().join("out");
    ok(sweep(&dir.path().join("spec.toml"), &out, &[]));
    let (text, doc) = compare(&out, "greedy", "tight", &dir.path().join("c.json"));
    assert_eq!(doc["rows"][0]["test"], "welch-t", "{text}");
    assert!(text.contains("Welch's t-test"), "{text}");
    assert!(
        text.contains(
            "replicate 0 of `greedy` ran with seed 1 (workload seed 1001), of `tight` with seed 7"
        ),
        "{text}"
    );
}

fn fails(args: &[&str], spec: Option<&str>, needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let mut c = ssdlab();
    for a in args {
        c.arg(a.replace("DIR", &dir.path().display().to_string()));
    }
    if let Some(s) = spec {
        std::fs::write(dir.path().join("spec.toml"), s).unwrap();
    }
    let o = c.output().unwrap();
    assert!(!o.status.success(), "{}", describe(&o));
    assert_eq!(o.status.code(), Some(1), "{}", describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    for n in needles {
        assert!(err.contains(n), "`{n}` not in:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_inputs_are_clear_errors() {
    let sweep_args = ["sweep", "DIR/spec.toml", "--out", "DIR/out"];
    fails(
        &sweep_args,
        Some(&spec_text("seeds = 0")),
        &["spec.toml", "`seeds` must be at least 1"],
    );
    fails(
        &sweep_args,
        Some(&spec_text("seeds = -2")),
        &["spec.toml:7", "seeds"],
    );
    fails(
        &sweep_args,
        Some(&spec_text("seeds = \"three\"")),
        &["spec.toml:7", "seeds"],
    );
    fails(
        &sweep_args,
        Some(&spec_text("seeds = 5000")),
        &["15000 runs", "× 5000 `seeds`", "--max-runs 10000"],
    );
    fails(
        &sweep_args,
        Some(&format!(
            "{}\n[[param]]\nkey = \"seed\"\nvalues = [\"1\", \"2\"]\n",
            spec_text("seeds = 2")
        )),
        &["`param.key` `seed`", "a `seed` column of its own"],
    );
    let mut with_flag = sweep_args.to_vec();
    with_flag.extend(["--seeds", "0"]);
    fails(
        &with_flag,
        Some(&spec_text("")),
        &["--seeds must be at least 1"],
    );

    // compare: not a results directory; too few replicates; no such scheme
    fails(
        &["compare", "DIR", "a", "b"],
        None,
        &["no results.csv there"],
    );
    let dir = setup(&spec_text("seeds = 2"));
    let out = dir.path().join("out");
    ok(sweep(&dir.path().join("spec.toml"), &out, &[]));
    let o = ssdlab()
        .arg("compare")
        .arg(&out)
        .args(["greedy", "greedyy"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("no scheme `greedyy`")
            && err.contains("did you mean `greedy`")
            && err.contains("its schemes: greedy, same, tight"),
        "{err}"
    );
    // a results.csv whose cells have one replicate each
    let csv_path = out.join("results.csv");
    let text = std::fs::read_to_string(&csv_path).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| l.split(',').nth(4) != Some("1"))
        .collect();
    std::fs::write(&csv_path, kept.join("\n") + "\n").unwrap();
    let o = ssdlab()
        .arg("compare")
        .arg(&out)
        .args(["greedy", "tight"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("scheme `greedy` has 1 replicate") && err.contains("at least 2"),
        "{err}"
    );
}

/// Schemes that share an aged drive (they differ only in what aging does
/// not read), on a precondition that does not read the workload: every
/// replicate of every cell starts from the same aged drive.
fn shared_spec(top: &str) -> String {
    format!(
        r#"experiment = "shared"
presets = ["small"]
workloads = ["spd/hm_0"]
precondition = "fill:0.9:0.8"
limit = 2000
baseline = "big"
seeds = 3
{top}

[[scheme]]
name = "big"
set = ["geometry.blocks_per_plane=64", "geometry.pages_per_block=32", "buffer.capacity.pages=256"]
[[scheme]]
name = "small"
set = ["geometry.blocks_per_plane=64", "geometry.pages_per_block=32", "buffer.capacity.pages=16"]
"#
    )
}

/// Replicates share the cell's aged drive: a sweep that ages once per
/// drive, one that ages for every run (`age_once = false`) and one that
/// starts every run from a saved state give the same bytes (so the same
/// means), and the replicates still differ (the workload's seed and the
/// model's random stream). `age_each_replicate` ages each replicate's own
/// drive (its seed raised), and cannot be used with a named state.
#[test]
fn replicates_share_the_aged_drive() {
    let dir = setup(&shared_spec(""));
    let spec = dir.path().join("spec.toml");
    let once = dir.path().join("once");
    ok(sweep(&spec, &once, &[]));
    let per_run = dir.path().join("per_run.toml");
    std::fs::write(&per_run, shared_spec("age_once = false")).unwrap();
    let every = dir.path().join("every");
    ok(sweep(&per_run, &every, &[]));
    assert_same_tree(&once, &every, &[]);

    // The drive aged and saved once, then named in the spec.
    let state = dir.path().join("small.state");
    ok(ssdlab()
        .args([
            "run",
            "--preset",
            "small",
            "--workload",
            "spd/hm_0",
            "--limit",
            "2000",
        ])
        .args([
            "--set",
            "geometry.blocks_per_plane=64",
            "--set",
            "geometry.pages_per_block=32",
        ])
        .args(["--precondition", "fill:0.9:0.8", "--save-state"])
        .arg(&state)
        .args(["--save-only", "-q"])
        .output()
        .unwrap());
    let named = dir.path().join("named.toml");
    std::fs::write(
        &named,
        shared_spec(&format!(
            "states = {{ small = {:?} }}",
            state.display().to_string()
        )),
    )
    .unwrap();
    let from_state = dir.path().join("from_state");
    ok(sweep(&named, &from_state, &[]));
    assert_same_tree(&once, &from_state, &[]);

    let (h, rows) = csv(&once.join("results.csv"));
    let wl = col(&h, "write_latency_us_mean");
    assert_ne!(rows[0][wl], rows[1][wl], "replicates differ");
    assert!(rows.iter().all(|r| r[col(&h, "seed")] == "1"));

    // Each replicate its own aged drive: the seed raised by i.
    let own = dir.path().join("own.toml");
    std::fs::write(&own, shared_spec("age_each_replicate = true")).unwrap();
    let each = dir.path().join("each");
    ok(sweep(&own, &each, &[]));
    let (h, rows) = csv(&each.join("results.csv"));
    let seeds: Vec<&str> = rows.iter().map(|r| r[col(&h, "seed")].as_str()).collect();
    assert_eq!(seeds, ["1", "2", "3", "1", "2", "3"]);
    let both = dir.path().join("both.toml");
    std::fs::write(
        &both,
        shared_spec(&format!(
            "age_each_replicate = true\nstates = {{ small = {:?} }}",
            state.display().to_string()
        )),
    )
    .unwrap();
    let o = sweep(&both, &dir.path().join("x"), &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("age_each_replicate") && err.contains("states"),
        "{err}"
    );
}
