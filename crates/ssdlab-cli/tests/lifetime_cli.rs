//! `ssdlab lifetime`: its errors name the option or key, its result is
//! deterministic for a seed, and it writes JSON only where it may.

mod common;
use common::*;

/// A TLC preset cut to one die of 32 blocks per plane, rated 10 cycles:
/// it wears out in well under a second.
const DRIVE: &[&str] = &[
    "--preset",
    "pa-tlc",
    "--set",
    "geometry.channels=1",
    "--set",
    "geometry.chips_per_channel=1",
    "--set",
    "geometry.dies_per_chip=1",
    "--set",
    "geometry.blocks_per_plane=32",
    "--set",
    "cell.endurance=10",
];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a: Vec<&str> = vec!["lifetime"];
    a.extend_from_slice(DRIVE);
    a.extend_from_slice(&["--workload", "spd/hm_0", "--limit", "20000"]);
    a.extend_from_slice(extra);
    a
}

fn fails_naming(args: &[&str], needles: &[&str]) {
    let out = run(args);
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{}", describe(args, &out));
    assert!(out.status.code().is_some(), "{}", describe(args, &out));
    assert!(!stderr.contains("panicked"), "{}", describe(args, &out));
    for n in needles {
        assert!(
            stderr.contains(n),
            "{n:?} not in:\n{}",
            describe(args, &out)
        );
    }
}

#[test]
fn bad_options_are_named() {
    fails_naming(&args(&["--worn-share", "0"]), &["--worn-share"]);
    fails_naming(&args(&["--worn-share", "1.5"]), &["--worn-share"]);
    fails_naming(&args(&["--worn-share", "x"]), &["--worn-share"]);
    fails_naming(&args(&["--years", "0"]), &["--years"]);
    fails_naming(
        &args(&["--precondition", "trace-reads"]),
        &["--precondition"],
    );
    fails_naming(&args(&["--precondition", "fill:2:1"]), &["fill"]);
    fails_naming(&args(&["--years=-1"]), &["--years"]);
    fails_naming(
        &args(&["--set", "ftl.wear_levelling.static_threshold=0"]),
        &["ftl.wear_levelling.static_threshold"],
    );
    fails_naming(&args(&["--set", "ftl.wear_levelling.bogus=1"]), &["bogus"]);
    fails_naming(&args(&["--set", "ftl.mapping=\"dftl\""]), &["ftl.mapping"]);
    fails_naming(&args(&["--set", "ftl.hot_data=\"mbf\""]), &["ftl.hot_data"]);
    fails_naming(
        &args(&[
            "--set",
            "ftl.wear_levelling.dynamic=true",
            "--set",
            "ftl.block_groups=\"die\"",
        ]),
        &["ftl.wear_levelling"],
    );
    fails_naming(
        &["lifetime", "--preset", "small", "--workload", "no/such"],
        &["no/such"],
    );
    // A directory is not a file to write the result to.
    let dir = std::env::temp_dir();
    fails_naming(&args(&["--json", dir.to_str().unwrap()]), &["--json"]);
}

#[test]
fn deterministic_and_levelling_shows() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    let wl = [
        "--set",
        "ftl.wear_levelling={dynamic=true, static_threshold=4}",
        "--seed",
        "3",
    ];
    let mut x = args(&wl);
    x.extend_from_slice(&["--json", a.to_str().unwrap()]);
    let (out, _) = ok(&x);
    assert!(out.contains("levelling dynamic on"), "{out}");
    let mut y = args(&wl);
    y.extend_from_slice(&["--json", b.to_str().unwrap()]);
    ok(&y);
    let (ja, jb) = (
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap(),
    );
    assert_eq!(ja, jb);
    let v: serde_json::Value = serde_json::from_str(&ja).unwrap();
    assert_eq!(v["endurance"], 10);
    assert!(v["erase_count"]["max"].as_u64().unwrap() >= 10);
    assert!(v["host_bytes"].as_u64().unwrap() > 0);
    assert!(v["wear_levelling"]["dynamic"].as_bool().unwrap());
    // Off: no levelling section.
    let (plain, _) = ok(&args(&[]));
    assert!(!plain.contains("levelling"), "{plain}");
}
