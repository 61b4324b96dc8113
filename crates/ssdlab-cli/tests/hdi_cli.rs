//! `ssdlab hdi`: the hot-data identification evaluation through the binary.

use std::process::Command;

fn ssdlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .output()
        .expect("runs")
}

const PROFILE: &str = r#"
name = "skew"
seed = 3
requests = 60000
read_share = 0.2
footprint_bytes = 268435456
read_size = { fixed = [4096] }
write_size = { fixed = [4096] }
address = { kind = "zipf", theta = 0.99 }
arrival = { kind = "poisson", iops = 1000.0 }
"#;

#[test]
fn evaluates_schemes_and_writes_json_csv_and_figures() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("p.toml");
    std::fs::write(&profile, PROFILE).unwrap();
    let (json, csv, svg) = (
        dir.path().join("h.json"),
        dir.path().join("h.csv"),
        dir.path().join("fig"),
    );
    let out = ssdlab(&[
        "hdi",
        "--synthetic",
        profile.to_str().unwrap(),
        "--schemes",
        "mbf,dl-mbf-s,dl-mbf-c,dl-mbf-a,mihf",
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--svg-dir",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let writes = v["writes"].as_u64().unwrap();
    assert!(
        writes > 40_000 && writes < 56_000,
        "about 80% of 60k requests write: {writes}"
    );
    for name in ["wdac", "mihf", "mbf", "dl-mbf-s", "dl-mbf-c", "dl-mbf-a"] {
        let s = &v["schemes"][name];
        for key in ["hot_ratio", "false_identification_rate", "memory_bytes"] {
            assert!(s[key].is_number(), "schemes.{name}.{key} missing: {s}");
        }
        let hot = s["hot_ratio"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&hot));
    }
    assert_eq!(
        v["schemes"]["wdac"]["false_identification_rate"].as_f64(),
        Some(0.0)
    );
    let dl = v["schemes"]["dl-mbf-s"]["false_identification_rate"]
        .as_f64()
        .unwrap();
    let mbf = v["schemes"]["mbf"]["false_identification_rate"]
        .as_f64()
        .unwrap();
    assert!(
        dl < mbf,
        "DL-MBF_s identifies better than MBF on a skewed workload: {dl} vs {mbf}"
    );
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(csv.starts_with("interval,first_write,scheme,hot_ratio,false_identification_rate\n"));
    assert!(csv.lines().count() > 6 * 5, "several intervals per scheme");
    for f in ["hot_ratio.svg", "false_identification.svg"] {
        let body = std::fs::read_to_string(svg.join(f)).unwrap();
        assert!(body.starts_with("<svg") && body.trim_end().ends_with("</svg>"));
        assert!(body.contains("dl-mbf-s"));
    }
    // Deterministic.
    let again = ssdlab(&[
        "hdi",
        "--synthetic",
        profile.to_str().unwrap(),
        "--schemes",
        "mbf,dl-mbf-s,dl-mbf-c,dl-mbf-a,mihf",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(again.status.success());
    let w: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["schemes"], w["schemes"]);
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("p.toml");
    std::fs::write(&profile, PROFILE).unwrap();
    let out = ssdlab(&[
        "hdi",
        "--synthetic",
        profile.to_str().unwrap(),
        "--schemes",
        "mbf,bogus",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bogus") && err.contains("dl-mbf-s"), "{err}");
    // The time-window identifier needs the simulator's clock.
    let out = ssdlab(&[
        "hdi",
        "--synthetic",
        profile.to_str().unwrap(),
        "--schemes",
        "update-window",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("update-window") && err.contains("clock"),
        "{err}"
    );
    let reads = PROFILE.replace("read_share = 0.2", "read_share = 1.0");
    std::fs::write(&profile, reads).unwrap();
    let out = ssdlab(&["hdi", "--synthetic", profile.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no write requests"));
    let out = ssdlab(&["hdi"]);
    assert!(!out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}
