//! Integration tests of `ssdlab sweep`: a small matrix runs, writes one JSON
//! per run, a CSV in matrix order, the summary and the charts; results do
//! not depend on `--jobs`; bad specs fail naming the problem.

use std::path::Path;
use std::process::{Command, Output};

fn sweep(spec: &Path, out: &Path, jobs: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ssdlab"));
    c.arg("sweep").arg(spec).arg("--out").arg(out);
    if let Some(j) = jobs {
        c.args(["--jobs", j]);
    }
    c.output().expect("failed to start the ssdlab binary")
}

fn describe(out: &Output) -> String {
    format!(
        "exit: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

const PROFILE: &str = r#"
name = "tiny"
seed = 1
requests = 3000
read_share = 0.3
footprint_bytes = 134217728
read_size = { uniform = [4096, 16384] }
write_size = { uniform = [4096, 16384] }
address = { kind = "zipf", theta = 0.9 }
arrival = { kind = "poisson", iops = 2000.0 }
"#;

/// A spec with `extra` appended at the top level (before the tables) and
/// `schemes` as the scheme tables.
fn spec_text(top: &str, schemes: &str) -> String {
    format!(
        r#"experiment = "gc-policies"
presets = ["small"]
workloads = ["tiny.toml", "spd/hm_0"]
precondition = "fill:0.95:0.8+trace-reads"
limit = 3000
seed = 1
{top}
{schemes}
[[param]]
key = "buffer.capacity"
values = ["{{pages=256}}", "{{pages=1024}}"]
"#
    )
}

const SCHEMES: &str = r#"
[[scheme]]
name = "greedy"
set = ["geometry.blocks_per_plane=64", "geometry.pages_per_block=32"]
[[scheme]]
name = "fifo"
set = ["geometry.blocks_per_plane=64", "geometry.pages_per_block=32", "gc.victim=fifo"]
"#;

fn setup(spec: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("tiny.toml"), PROFILE).unwrap();
    std::fs::write(dir.path().join("spec.toml"), spec).unwrap();
    dir
}

#[test]
fn sweep_writes_every_output_deterministically() {
    let dir = setup(&spec_text("baseline = \"greedy\"", SCHEMES));
    let spec = dir.path().join("spec.toml");
    let out1 = dir.path().join("out1");
    let o = sweep(&spec, &out1, None);
    assert!(o.status.success(), "{}", describe(&o));

    let mut runs: Vec<String> = std::fs::read_dir(out1.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    runs.sort();
    assert_eq!(runs.len(), 8, "{runs:?}");
    assert!(runs.iter().all(|r| r.starts_with("gc-policies__small__")
        && r.ends_with(".json")
        && !r.contains('/')));
    assert!(
        runs.contains(
            &"gc-policies__small__spd_hm_0__fifo__buffer.capacity=_pages=1024_.json".to_string()
        ),
        "{runs:?}"
    );
    for r in &runs {
        let text = std::fs::read_to_string(out1.join("runs").join(r)).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["requests"], 3000, "{r}");
    }

    let csv = std::fs::read_to_string(out1.join("results.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 9, "{csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    for col in [
        "experiment",
        "preset",
        "workload",
        "scheme",
        "buffer.capacity",
        "requests",
        "write_latency_us_mean",
        "write_latency_us_p99",
        "read_latency_us_mean",
        "read_latency_us_p99",
        "gc_count",
        "gc_time_us_total",
        "erases",
        "write_amplification",
        "multiplane_program_share",
        "plane_utilization_mean",
        "buffer_hit_ratio",
        "blocked_by_gc_share",
    ] {
        assert!(header.contains(&col), "missing column {col}: {header:?}");
    }
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let expected = [
        ("tiny", "greedy", "{pages=256}"),
        ("tiny", "greedy", "{pages=1024}"),
        ("tiny", "fifo", "{pages=256}"),
        ("tiny", "fifo", "{pages=1024}"),
        ("spd/hm_0", "greedy", "{pages=256}"),
        ("spd/hm_0", "greedy", "{pages=1024}"),
        ("spd/hm_0", "fifo", "{pages=256}"),
        ("spd/hm_0", "fifo", "{pages=1024}"),
    ];
    for (line, (w, s, p)) in lines[1..].iter().zip(expected) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), header.len(), "{line}");
        assert_eq!(f[col("experiment")], "gc-policies");
        assert_eq!(f[col("preset")], "small");
        assert_eq!(
            (
                f[col("workload")],
                f[col("scheme")],
                f[col("buffer.capacity")]
            ),
            (w, s, p),
            "{csv}"
        );
        assert_eq!(f[col("requests")], "3000");
        assert!(f[col("gc_count")].parse::<u64>().unwrap() > 0, "{line}");
    }

    let summary = std::fs::read_to_string(out1.join("summary.md")).unwrap();
    assert!(summary.contains("Write amplification") && summary.contains("| **average** |"));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("Write latency, mean"), "{stdout}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("[8/8] "), "{stderr}");
    for chart in [
        "write_latency_mean",
        "read_latency_mean",
        "gc_count",
        "gc_time_total",
        "erases",
        "multiplane_share",
        "plane_utilization",
        "write_amplification",
    ] {
        let svg = std::fs::read_to_string(out1.join("charts").join(format!("{chart}.svg")))
            .unwrap_or_else(|e| panic!("chart {chart}: {e}"));
        assert!(
            svg.starts_with("<svg") && svg.ends_with("</svg>\n"),
            "{chart}"
        );
    }

    // The same spec on one thread: byte-identical results.
    let out2 = dir.path().join("out2");
    let o = sweep(&spec, &out2, Some("1"));
    assert!(o.status.success(), "{}", describe(&o));
    assert_eq!(
        csv,
        std::fs::read_to_string(out2.join("results.csv")).unwrap()
    );
    for r in &runs {
        assert_eq!(
            std::fs::read(out1.join("runs").join(r)).unwrap(),
            std::fs::read(out2.join("runs").join(r)).unwrap(),
            "{r}"
        );
    }
}

fn fails_with(spec: &str, needles: &[&str]) {
    let dir = setup(spec);
    let o = sweep(&dir.path().join("spec.toml"), &dir.path().join("out"), None);
    assert!(!o.status.success(), "{}", describe(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    for n in needles {
        assert!(stderr.contains(n), "expected `{n}` in:\n{}", describe(&o));
    }
    assert!(!stderr.contains("panicked"), "{}", describe(&o));
}

#[test]
fn bad_specs_are_clear_errors() {
    // An unknown key in the spec.
    fails_with(
        &spec_text("baseline = \"greedy\"\nthreads = 4", SCHEMES),
        &["spec.toml", "threads"],
    );
    // An unknown workload.
    fails_with(
        &spec_text("baseline = \"greedy\"", SCHEMES).replace("spd/hm_0", "spd/nope"),
        &["spec.toml", "spd/nope", "unknown workload"],
    );
    // A baseline that is not a scheme.
    fails_with(
        &spec_text("baseline = \"lru\"", SCHEMES),
        &["spec.toml", "baseline", "lru"],
    );
    // A scheme override with an unknown configuration key.
    fails_with(
        &spec_text(
            "baseline = \"greedy\"",
            &SCHEMES.replace("gc.victim=fifo", "gc.victimm=fifo"),
        ),
        &["spec.toml", "fifo", "victimm"],
    );
}

/// A sweep replays traces in a described format (`trace_format`, a spec
/// file relative to the sweep spec) with the reorder window of `sort`.
#[test]
fn sweep_reads_traces_in_a_described_format() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ssdlab-workload/tests/fixtures");
    let dir = tempfile::tempdir().expect("tempdir");
    for f in ["site.csv", "site.toml"] {
        std::fs::copy(fixtures.join(f), dir.path().join(f)).unwrap();
    }
    let spec = r#"experiment = "described"
presets = ["small"]
workloads = ["site.csv"]
trace_format = "site.toml"
sort = 4
baseline = "greedy"
[[scheme]]
name = "greedy"
set = ["geometry.blocks_per_plane=64", "geometry.pages_per_block=32"]
"#;
    std::fs::write(dir.path().join("spec.toml"), spec).unwrap();
    let o = sweep(
        &dir.path().join("spec.toml"),
        &dir.path().join("out"),
        Some("1"),
    );
    assert!(o.status.success(), "{}", describe(&o));
    let csv = std::fs::read_to_string(dir.path().join("out/results.csv")).unwrap();
    assert!(csv.contains("site"), "{csv}");
    // without the format the trace is not recognised; strict order fails
    std::fs::write(
        dir.path().join("spec.toml"),
        spec.replace("trace_format = \"site.toml\"\n", ""),
    )
    .unwrap();
    let o = sweep(
        &dir.path().join("spec.toml"),
        &dir.path().join("out2"),
        Some("1"),
    );
    assert!(!o.status.success(), "{}", describe(&o));
    std::fs::write(
        dir.path().join("spec.toml"),
        spec.replace("sort = 4", "sort = 0"),
    )
    .unwrap();
    let o = sweep(
        &dir.path().join("spec.toml"),
        &dir.path().join("out3"),
        Some("1"),
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success()
            && stderr.contains("site.csv:7: field `time`")
            && stderr.contains("(--sort 0)"),
        "{}",
        describe(&o)
    );
    assert!(!stderr.contains("panicked"), "{}", describe(&o));
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

/// `--list` shows the runs; `--shard I/N` runs every N-th; `sweep merge`
/// combines the shards into exactly what one unsharded sweep writes.
#[test]
fn sharded_sweeps_merge_to_the_unsharded_results() {
    let dir = setup(&spec_text("baseline = \"greedy\"", SCHEMES));
    let spec = dir.path().join("spec.toml");
    let bin = || std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"));

    let o = bin()
        .arg("sweep")
        .arg(&spec)
        .arg("--list")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", describe(&o));
    let listed = String::from_utf8(o.stdout).unwrap();
    assert_eq!(listed.lines().count(), 8, "{listed}");
    assert!(
        listed.starts_with("0\tgc-policies__small__tiny__greedy__"),
        "{listed}"
    );

    let whole = dir.path().join("whole");
    assert!(sweep(&spec, &whole, None).status.success());
    let mut shards = Vec::new();
    for i in 0..3 {
        let out = dir.path().join(format!("shard{i}"));
        let o = bin()
            .arg("sweep")
            .arg(&spec)
            .arg("--out")
            .arg(&out)
            .args(["--shard", &format!("{i}/3")])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", describe(&o));
        assert!(!out.join("results.csv").exists());
        let saved = std::fs::read_dir(out.join("runs")).unwrap().count();
        assert_eq!(saved, if i < 2 { 3 } else { 2 });
        shards.push(out);
    }
    let merged = dir.path().join("merged");
    let o = bin()
        .args(["sweep", "merge"])
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", describe(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("8 of 8 runs reused"));
    assert!(
        tree(&whole) == tree(&merged),
        "merged shards differ from one sweep"
    );

    // A missing shard: its runs are simply run, the results the same.
    let partial = dir.path().join("partial");
    let o = bin()
        .args(["sweep", "merge"])
        .args(&shards[..2])
        .arg("--out")
        .arg(&partial)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", describe(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("6 of 8 runs reused"));
    assert!(tree(&whole) == tree(&partial));

    for (bad, needle) in [
        ("3/3", "0 <= I < N"),
        ("1/0", "0 <= I < N"),
        ("x", "is not I/N"),
    ] {
        let o = bin()
            .arg("sweep")
            .arg(&spec)
            .arg("--out")
            .arg(dir.path().join("bad"))
            .args(["--shard", bad])
            .output()
            .unwrap();
        assert!(!o.status.success());
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(needle),
            "{}",
            describe(&o)
        );
    }
    let o = bin()
        .args(["sweep", "merge"])
        .arg(&whole)
        .arg("--out")
        .arg(dir.path().join("bad"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("shard.json"),
        "{}",
        describe(&o)
    );
}

/// results.parquet holds results.csv's columns, typed: strings, integers,
/// doubles, and the same values.
#[test]
fn results_parquet_matches_the_csv() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    let dir = setup(&spec_text("baseline = \"greedy\"", SCHEMES));
    let out = dir.path().join("out");
    let o = sweep(&dir.path().join("spec.toml"), &out, None);
    assert!(o.status.success(), "{}", describe(&o));
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();

    let reader =
        SerializedFileReader::new(std::fs::File::open(out.join("results.parquet")).unwrap())
            .unwrap();
    let meta = reader.metadata().file_metadata();
    assert_eq!(meta.num_rows() as usize, rows.len());
    let names: Vec<&str> = meta
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.name())
        .collect();
    let path_names: Vec<String> = meta
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.path().string())
        .collect();
    assert_eq!(path_names, header, "{names:?}");
    for (row, want) in reader.get_row_iter(None).unwrap().zip(&rows) {
        let row = row.unwrap();
        for ((name, field), text) in row.get_column_iter().zip(want) {
            match field {
                Field::Str(s) => assert_eq!(s, text, "{name}"),
                Field::Long(n) => assert_eq!(n.to_string(), *text, "{name}"),
                Field::Double(x) => assert_eq!(x.to_string(), *text, "{name}"),
                Field::Null => assert_eq!(*text, "", "{name}"),
                other => panic!("{name}: unexpected {other:?}"),
            }
            if ["requests", "gc_count", "erases"].contains(&name.as_str()) {
                assert!(matches!(field, Field::Long(_)), "{name}: {field:?}");
            }
        }
    }
}

/// `ssdlab report DIR`: one self-contained page (nothing fetched) with the
/// summary's tables, every chart inline, latency CDFs, all runs and what
/// produced them.
#[test]
fn report_is_one_self_contained_page() {
    let dir = setup(&spec_text("baseline = \"greedy\"", SCHEMES));
    let out = dir.path().join("out");
    let o = sweep(&dir.path().join("spec.toml"), &out, None);
    assert!(o.status.success(), "{}", describe(&o));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .arg("report")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", describe(&o));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    for needle in [
        "<h1>Sweep <code>gc-policies</code>: 8 runs</h1>",
        "<th>greedy (absolute)</th>",
        "Write latency, mean (us)",
        "write latency CDF",
        "<h2>All runs</h2>",
        "What produced these results",
        "git revision",
    ] {
        assert!(html.contains(needle), "no `{needle}` in the report");
    }
    let charts = std::fs::read_dir(out.join("charts")).unwrap().count();
    assert!(html.matches("<svg").count() >= charts + 2);
    // Nothing outside the page: no scripts, links, images or fonts fetched.
    for external in ["<script", "<link", "<img", "url(", "@import", "src="] {
        assert!(!html.contains(external), "`{external}` in the report");
    }
    // Not an output directory: a clear error.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .arg("report")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no summary.md and no results.csv"));
}
