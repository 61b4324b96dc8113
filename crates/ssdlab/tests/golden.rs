//! Golden results: a fixed matrix of small runs whose JSON results are
//! checked in as digests (`tests/golden/expected.tsv`). Any change of any
//! number in any run's result fails this test.
//!
//! The matrix covers every registered scheme on the `small` and `spd-512g`
//! drives, aged (GC running) and fresh (no GC); page, DFTL and FAST mapping;
//! buffer on and off; open and closed loop; replays and warm-up; hot/cold
//! separation of host writes and of GC moves; every victim, scheduling,
//! migration, allocation, alignment and completion policy; TLC timing; trace
//! replays of checked-in fixtures; and the `demo` run.
//!
//! A refactoring never moves a golden result. A change to the model that
//! does updates the file in the same commit and says why in its message:
//!
//! ```sh
//! SSDLAB_BLESS=1 cargo test -p ssdlab --test golden
//! ```
//!
//! Every run's JSON is written to `$CARGO_TARGET_TMPDIR/golden/` (under
//! `target/tmp/`), so a failure can be inspected with `diff` against the
//! JSON of the commit before.

use std::collections::BTreeMap;
use std::path::PathBuf;

use sha2::{Digest, Sha256};
use ssdlab::scheme;
use ssdlab::sim::SavedState;
use ssdlab::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use ssdlab::workload::{Source, TraceFormat, TraceOptions};
use ssdlab::{Config, Precondition, Report, Simulator};

/// One run of the matrix.
struct Case {
    name: String,
    preset: &'static str,
    scheme: Option<&'static str>,
    sets: Vec<String>,
    precondition: &'static str,
    source: Source,
    /// Run the consistency checker at the end (small drives only: it does
    /// not change results, and catches a broken refactoring early).
    check: bool,
}

fn profile(
    name: &str,
    requests: u64,
    read_share: f64,
    footprint: u64,
    iops: f64,
    page: u64,
) -> Profile {
    Profile {
        name: name.into(),
        seed: 11,
        requests,
        read_share,
        footprint_bytes: footprint,
        page_bytes: page,
        read_size: Some(SizeDist::uniform(page, 16 * 1024)),
        write_size: Some(SizeDist::uniform(page, 32 * 1024)),
        address: Address::HotCold {
            hot_fraction: 0.2,
            hot_share: 0.8,
        },
        arrival: Arrival::Poisson { iops },
        latency_hint: None,
    }
}

/// The `small` drive's workload: 30 % reads over 2 GiB (half the drive).
fn small_mix() -> Source {
    Source::Synthetic(profile("golden-small", 6_000, 0.3, 2 << 30, 800.0, 4096))
}

/// The `spd-512g` drive's workload: 30 % reads over 16 GiB.
fn big_mix() -> Source {
    Source::Synthetic(profile("golden-512g", 6_000, 0.3, 16 << 30, 20_000.0, 4096))
}

const AGED: &str = "fill:0.94:0.8+trace-reads";
const AGED_512G: &str = "fill:0.94:0.8+trace-reads";
const FRESH: &str = "trace-reads";

fn case(name: &str, preset: &'static str, pre: &'static str, source: Source) -> Case {
    Case {
        name: name.into(),
        preset,
        scheme: None,
        sets: vec![],
        precondition: pre,
        source,
        check: preset == "small",
    }
}

impl Case {
    fn scheme(mut self, s: &'static str) -> Case {
        self.scheme = Some(s);
        self
    }
    fn set(mut self, sets: &[&str]) -> Case {
        self.sets.extend(sets.iter().map(|s| s.to_string()));
        self
    }
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn trace(name: &str, format: TraceFormat) -> Source {
    Source::Trace {
        path: fixture(name),
        format,
        options: TraceOptions::default(),
    }
}

/// A hybrid map (FAST, DVPFTL's) has no form of the random page-level
/// fill: a scheme that brings one ages by `age:` instead.
const AGED_HYBRID: &str = "age:0.6+trace-reads";

fn aged_as(scheme: &str, preset: &str, aged: &'static str) -> &'static str {
    let cfg = scheme::by_name(scheme)
        .unwrap()
        .apply(&Config::preset(preset).unwrap())
        .unwrap();
    if cfg.ftl.mapping.hybrid() {
        AGED_HYBRID
    } else {
        aged
    }
}

/// Every scheme on both drives, aged and fresh.
fn scheme_cases() -> Vec<Case> {
    let mut v = vec![];
    for s in scheme::SCHEMES.iter().filter(|s| !s.multi_bit) {
        v.push(
            case(
                &format!("small/{}/aged", s.name),
                "small",
                aged_as(s.name, "small", AGED),
                small_mix(),
            )
            .scheme(s.name),
        );
        v.push(
            case(
                &format!("small/{}/fresh", s.name),
                "small",
                FRESH,
                small_mix(),
            )
            .scheme(s.name),
        );
    }
    v
}

/// These cases were made when the `spd-512g` preset sized its buffer at
/// 1 % of the workload's footprint: 237 pages for `big_mix` (23,646 pages).
/// The preset now has a fixed 16 MiB; the cases keep their buffer.
const BIG_MIX_BUFFER: &str = "buffer.capacity.pages=237";

/// `BIG_MIX_BUFFER` where `scheme` on `spd-512g` has a buffer.
fn big_buffer(scheme: &str) -> Vec<&'static str> {
    let cfg = scheme::by_name(scheme)
        .unwrap()
        .apply(&Config::preset("spd-512g").unwrap())
        .unwrap();
    if cfg.buffer.capacity == ssdlab::config::BufferCapacity::None {
        vec![]
    } else {
        vec![BIG_MIX_BUFFER]
    }
}

fn big_cases() -> Vec<Case> {
    let mut v = vec![];
    for s in scheme::SCHEMES.iter().filter(|s| !s.multi_bit) {
        v.push(
            case(
                &format!("spd-512g/{}/aged", s.name),
                "spd-512g",
                aged_as(s.name, "spd-512g", AGED_512G),
                big_mix(),
            )
            .scheme(s.name)
            .set(&big_buffer(s.name)),
        );
        v.push(
            case(
                &format!("spd-512g/{}/fresh", s.name),
                "spd-512g",
                FRESH,
                big_mix(),
            )
            .scheme(s.name)
            .set(&big_buffer(s.name)),
        );
    }
    v
}

/// The `pa-tlc` drive cut to one channel of two chips (32 planes) of 24
/// blocks: its workload, 8 KiB pages.
fn pa_mix() -> Source {
    Source::Synthetic(profile("golden-pa", 6_000, 0.3, 1 << 30, 400.0, 8192))
}

/// The schemes that choose page types (on SLC drives they are config
/// errors) on the cut `pa-tlc`: aged as the PA-SSD paper ages (70 % of
/// every plane written and invalid, GC at 30 % free) and fresh.
fn pa_cases() -> Vec<Case> {
    let cut = [
        "geometry.channels=1",
        "geometry.chips_per_channel=2",
        "geometry.blocks_per_plane=24",
        "gc.threshold={percent=30.0}",
    ];
    let mut v = vec![];
    for s in scheme::SCHEMES.iter().filter(|s| s.multi_bit) {
        for (kind, pre) in [("aged", "fill:0.7:0+trace-reads"), (FRESH_PA, FRESH)] {
            let mut c = case(
                &format!("pa-tlc-cut/{}/{kind}", s.name),
                "pa-tlc",
                pre,
                pa_mix(),
            )
            .scheme(s.name)
            .set(&cut);
            c.check = true;
            v.push(c);
        }
    }
    v
}

const FRESH_PA: &str = "fresh";

/// Mapping, buffer, host, hot/cold and policy variations on the small drive.
fn policy_cases() -> Vec<Case> {
    let aged = |name: &str| case(name, "small", AGED, small_mix());
    let mut v = vec![];
    // DFTL on a drive aged as far as the others spends minutes in GC
    // (translation-page write-backs feed it); these agings keep it short
    // (SPD's below its GC threshold).
    for (s, pre) in [
        ("baseline-d", "fill:0.93:0.6+trace-reads"),
        ("paragc", "fill:0.93:0.6+trace-reads"),
        ("spd", "fill:0.9:0.8+trace-reads"),
    ] {
        v.push(
            case(&format!("small/{s}/dftl"), "small", pre, small_mix())
                .scheme(s)
                .set(&["ftl.mapping=dftl", "ftl.mapping_cache_entries=4096"]),
        );
    }
    for s in ["baseline-d", "spd", "twinblk"] {
        // FAST has no form of the random page-level fill.
        v.push(
            case(
                &format!("small/{s}/fast"),
                "small",
                AGED_HYBRID,
                small_mix(),
            )
            .scheme(s)
            .set(&["ftl.mapping=fast"]),
        );
    }
    // DVPFTL's two-layer map with FAST's sequential log.
    v.push(
        case(
            "small/dvpftl/sequential-log",
            "small",
            AGED_HYBRID,
            small_mix(),
        )
        .scheme("dvpftl")
        .set(&["ftl.sequential_log=true"]),
    );
    v.push(aged("small/default/no-buffer").set(&["buffer.capacity=\"none\""]));
    v.push(
        aged("small/paragc/no-buffer")
            .scheme("paragc")
            .set(&["buffer.capacity=\"none\""]),
    );
    for s in ["baseline-d", "spd"] {
        v.push(
            aged(&format!("small/{s}/closed-loop"))
                .scheme(s)
                .set(&["host.mode=closed-loop", "host.queue_depth=16"]),
        );
    }
    v.push(
        case("small/default/replays", "small", FRESH, {
            Source::Synthetic(profile("golden-replay", 1_500, 0.3, 1 << 30, 2_000.0, 4096))
        })
        .set(&["host.replays=3", "host.warmup_requests=500"]),
    );
    v.push(
        aged("small/baseline-d/hot-host-mbf")
            .scheme("baseline-d")
            .set(&["ftl.hot_data=mbf"]),
    );
    for s in ["baseline-d", "spd-plus", "paragc"] {
        v.push(aged(&format!("small/{s}/hot-gc-moves")).scheme(s).set(&[
            "ftl.hot_data=update-window",
            "ftl.hot_separation=gc-moves",
            "ftl.hot_window_s=1",
        ]));
    }
    let one = |name: &str, sets: &[&str]| aged(&format!("small/default/{name}")).set(sets);
    v.push(one("victim-fifo", &["gc.victim=fifo"]));
    v.push(one("victim-random", &["gc.victim=random"]));
    v.push(one("victim-d-choices", &["gc.victim=d-choices"]));
    v.push(one("victim-cost-benefit", &["gc.victim=cost-benefit"]));
    v.push(one("sched-fcfs", &["sched.policy=fcfs"]));
    v.push(one("sched-gc-first", &["sched.policy=gc-first"]));
    v.push(one("gc-hold-die", &["gc.hold_die=true"]));
    v.push(one("plane-registers-2", &["flash.plane_registers=2"]));
    v.push(one("plane-registers-4", &["flash.plane_registers=4"]));
    v.push(one(
        "parity-destinations",
        &[
            "flash.copyback_odd_even=true",
            "gc.parity_destinations=true",
            "flash.plane_registers=2",
        ],
    ));
    v.push(one("ippbe", &["gc.blocks_per_gc=2"]));
    v.push(one("migration-controller", &["gc.migration=controller"]));
    v.push(one("moves-in-flight-4", &["gc.moves_in_flight=4"]));
    v.push(one(
        "write-completion-transfer",
        &["host.write_completion=transfer", "buffer.capacity=\"none\""],
    ));
    v.push(one(
        "alloc-round-robin",
        &["ftl.plane_allocation=round-robin"],
    ));
    v.push(one(
        "alloc-least-busy",
        &["ftl.plane_allocation=least-busy"],
    ));
    v.push(one(
        "alloc-die-round-robin",
        &["ftl.plane_allocation=die-round-robin"],
    ));
    v.push(one("static-order-pdwc", &["ftl.static_order=PDWC"]));
    v.push(one("align-page", &["flash.multiplane_alignment=page"]));
    v.push(one("align-block-index", &["ftl.align_block_index=true"]));
    v.push(one("copyback-odd-even", &["flash.copyback_odd_even=true"]));
    v.push(one("no-multiplane", &["flash.multiplane=false"]));
    v.push(one("command-ns", &["timing.command_ns=200.0"]));
    v.push(one(
        "free-watermark",
        &["buffer.free_watermark=0.1", "buffer.evict_pages=4"],
    ));
    v.push(one("timeseries", &["metrics.interval_ms=100.0"]));
    v.push(one("threshold-blocks", &["gc.threshold={blocks=30}"]));
    v.push(one(
        "four-plane-pairs",
        &[
            "geometry.planes_per_die=4",
            "geometry.channels=2",
            "flash.plane_pairs_only=true",
        ],
    ));
    for s in ["spd", "paragc", "twinblk"] {
        v.push(
            aged(&format!("small/{s}/four-plane"))
                .scheme(s)
                .set(&["geometry.planes_per_die=4", "geometry.channels=2"]),
        );
    }
    v.push(
        case("small/default/rmw-compact", "small", AGED, {
            let mut p = profile("golden-512b", 3_000, 0.3, 1 << 30, 2_000.0, 512);
            p.read_size = Some(SizeDist::uniform(512, 8192));
            p.write_size = Some(SizeDist::uniform(512, 12288));
            Source::Synthetic(p)
        })
        .set(&["host.partial_write_rmw=true", "host.address_mode=compact"]),
    );
    v.push(
        case("small/default/trace-sequence", "small", "trace-sequence", {
            Source::Synthetic(profile("golden-seq", 3_000, 0.0, 1 << 30, 2_000.0, 4096))
        })
        .set(&[
            "geometry.blocks_per_plane=64",
            "gc.threshold={blocks=3}",
            "buffer.capacity=\"none\"",
        ]),
    );
    v.push(case("small/tlc/aged", "small", AGED, small_mix()).set(&[
        "cell.type=tlc",
        "timing.read_us=[50.0, 75.0, 100.0]",
        "timing.program_us=[500.0, 2000.0, 5500.0]",
    ]));
    v.push(case(
        "pa-tlc/default/fresh",
        "pa-tlc",
        FRESH,
        Source::Synthetic(profile("golden-tlc", 3_000, 0.3, 4 << 30, 5_000.0, 8192)),
    ));
    v.push(case(
        "pgc-slc/default/fresh",
        "pgc-slc",
        FRESH,
        Source::Synthetic(profile("golden-pgc", 3_000, 0.2, 4 << 30, 5_000.0, 4096)),
    ));
    v.push(case(
        "small/trace/mqsim-tpcc",
        "small",
        AGED,
        trace("tpcc-head200.mqsim.trace", TraceFormat::Mqsim),
    ));
    v.push(
        case(
            "small/trace/msr",
            "small",
            AGED,
            trace("msr-noheader.csv", TraceFormat::Msr),
        )
        .scheme("spd"),
    );
    v.push(case(
        "small/demo",
        "small",
        "fill:0.9:0.8+trace-reads",
        Source::Synthetic(Profile::demo()),
    ));
    v
}

fn run(c: &Case) -> Report {
    let mut cfg = Config::preset(c.preset).unwrap();
    if let Some(s) = c.scheme {
        cfg = scheme::by_name(s).unwrap().apply(&cfg).unwrap();
    }
    cfg = cfg
        .with_overrides(&c.sets)
        .unwrap_or_else(|e| panic!("{}: {e}", c.name));
    cfg.check.enabled = c.check;
    let pre = Precondition::parse(c.precondition).unwrap();
    Simulator::new(&cfg, &c.source, &pre)
        .and_then(|s| s.run(&mut |_| {}))
        .unwrap_or_else(|e| panic!("{}: {e}", c.name))
}

/// [`run`], but from a saved state: age, save the drive to bytes, read them
/// back and start the run from them (the path `--save-state` and
/// `--load-state` take, and a sweep that ages a drive once).
fn run_from_state(c: &Case) -> Report {
    let mut cfg = Config::preset(c.preset).unwrap();
    if let Some(s) = c.scheme {
        cfg = scheme::by_name(s).unwrap().apply(&cfg).unwrap();
    }
    cfg = cfg
        .with_overrides(&c.sets)
        .unwrap_or_else(|e| panic!("{}: {e}", c.name));
    cfg.check.enabled = c.check;
    let pre = Precondition::parse(c.precondition).unwrap();
    let (_, saved) =
        Simulator::new_saving(&cfg, &c.source, &pre).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    let back = SavedState::from_bytes(saved.bytes().to_vec(), None)
        .unwrap_or_else(|e| panic!("{}: {e}", c.name));
    Simulator::new_loaded(&cfg, &c.source, &back)
        .and_then(|s| s.run(&mut |_| {}))
        .unwrap_or_else(|e| panic!("{}: {e}", c.name))
}

/// The digest of a result, and the headline figures shown beside it (so a
/// failing diff says what moved).
fn digest(r: &Report) -> (String, String) {
    // A saved result reads back as the same result (`--resume` relies on
    // it): every field, every float to the bit.
    let json = serde_json::to_string(r).unwrap();
    let back: Report = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("{}: the report does not read back: {e}", r.workload));
    assert_eq!(
        serde_json::to_string(&back).unwrap(),
        json,
        "{}: the report changes through JSON",
        r.workload
    );
    let mut v = serde_json::to_value(r).unwrap();
    // The version string is not a result, and a trace's path depends on
    // where the repository is checked out.
    v.as_object_mut().unwrap().remove("ssdlab_version");
    let text = serde_json::to_string(&v)
        .unwrap()
        .replace(env!("CARGO_MANIFEST_DIR"), "$CRATE");
    let hash = Sha256::digest(text.as_bytes());
    let hex: String = hash.iter().take(12).map(|b| format!("{b:02x}")).collect();
    let figures = format!(
        "requests={} read_us={:.3} write_us={:.3} gc={} moved={} erases={} wa={:.4} events={}",
        r.requests,
        r.read.latency_us.mean,
        r.write.latency_us.mean,
        r.gc.count,
        r.gc.pages_migrated,
        r.gc.erases,
        r.write_amplification,
        r.events
    );
    (hex, figures)
}

const EXPECTED: &str = "tests/golden/expected.tsv";

fn expected() -> BTreeMap<String, (String, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(EXPECTED);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.splitn(3, '\t');
            let name = f.next().unwrap().to_string();
            let hash = f.next().unwrap_or("").to_string();
            let figures = f.next().unwrap_or("").to_string();
            (name, (hash, figures))
        })
        .collect()
}

/// Run `cases` from saved states (aged, saved, read back): every result is
/// the golden one of the run that ages in the same process.
fn check_from_state(cases: Vec<Case>) {
    let want = expected();
    let mut diffs = vec![];
    for c in &cases {
        let got = digest(&run_from_state(c));
        match want.get(&c.name) {
            Some((h, _)) if *h == got.0 => {}
            Some((h, f)) => diffs.push(format!("{}: {h} ({f}) -> {} ({})", c.name, got.0, got.1)),
            None => diffs.push(format!("{}: no golden result", c.name)),
        }
    }
    assert!(
        diffs.is_empty(),
        "{} of {} runs from a saved state differ from aging in the same process:\n{}",
        diffs.len(),
        cases.len(),
        diffs.join("\n")
    );
}

/// Run `cases`, compare with the checked-in digests (or, blessing, return
/// them to be written).
fn check(group: &str, cases: Vec<Case>) {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden");
    std::fs::create_dir_all(&out).unwrap();
    let want = expected();
    let mut got = BTreeMap::new();
    for c in &cases {
        let r = run(c);
        let file = out.join(format!("{}.json", c.name.replace('/', "__")));
        std::fs::write(&file, serde_json::to_string_pretty(&r).unwrap()).unwrap();
        got.insert(c.name.clone(), digest(&r));
    }
    if std::env::var_os("SSDLAB_BLESS").is_some() {
        bless(group, &got);
        return;
    }
    let mut diffs = vec![];
    for (name, (hash, figures)) in &got {
        match want.get(name) {
            Some((h, _)) if h == hash => {}
            Some((h, f)) => diffs.push(format!(
                "{name}: digest {h} -> {hash}\n    was {f}\n    now {figures}"
            )),
            None => diffs.push(format!("{name}: no golden result (bless to add it)")),
        }
    }
    assert!(
        diffs.is_empty(),
        "{} of {} golden results of group `{group}` changed (JSON in {}):\n{}\n\
         A refactoring must not move them; a model change updates them with \
         SSDLAB_BLESS=1 cargo test -p ssdlab --test golden, in the same commit, saying why.",
        diffs.len(),
        got.len(),
        out.display(),
        diffs.join("\n")
    );
}

/// Write this group's rows into the expected file (other groups' rows kept).
/// Groups run in parallel: a lock file serialises the rewrite.
fn bless(group: &str, got: &BTreeMap<String, (String, String)>) {
    use std::sync::Mutex;
    static LOCK: Mutex<()> = Mutex::new(());
    let _g = LOCK.lock().unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(EXPECTED);
    let mut all = expected();
    all.retain(|name, _| !got.contains_key(name));
    for (k, v) in got {
        all.insert(k.clone(), v.clone());
    }
    let mut text = String::from(
        "# Golden results (tests/golden.rs): case, SHA-256 prefix of the run's JSON\n\
         # (without ssdlab_version), headline figures. Regenerate only for a model\n\
         # change, and say why in the commit: SSDLAB_BLESS=1 cargo test -p ssdlab --test golden\n",
    );
    for (name, (hash, figures)) in &all {
        text.push_str(&format!("{name}\t{hash}\t{figures}\n"));
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    eprintln!("golden: blessed {} results of group `{group}`", got.len());
}

#[test]
fn golden_schemes_small() {
    check("schemes-small", scheme_cases());
}

#[test]
fn golden_schemes_512g() {
    check("schemes-512g", big_cases());
}

#[test]
fn golden_schemes_pa() {
    check("schemes-pa", pa_cases());
}

#[test]
fn golden_policies() {
    check("policies", policy_cases());
}

/// Every aged case of the small drives (each scheme, each mapping, the
/// policies, the PA-SSD TLC schemes, with and without the checker) run from
/// a saved state gives its golden result.
#[test]
fn golden_from_saved_states() {
    if std::env::var_os("SSDLAB_BLESS").is_some() {
        return;
    }
    let cases: Vec<Case> = scheme_cases()
        .into_iter()
        .chain(pa_cases())
        .chain(policy_cases())
        .filter(|c| c.precondition != FRESH)
        .collect();
    check_from_state(cases);
}

/// The large drive's aged cases of a few schemes (page map, SPD's die-level
/// GC, DVPFTL) from saved states.
#[test]
fn golden_512g_from_saved_states() {
    if std::env::var_os("SSDLAB_BLESS").is_some() {
        return;
    }
    let cases: Vec<Case> = big_cases()
        .into_iter()
        .filter(|c| {
            c.precondition != FRESH
                && [
                    "spd-512g/baseline-d/aged",
                    "spd-512g/spd/aged",
                    "spd-512g/dvpftl/aged",
                ]
                .contains(&c.name.as_str())
        })
        .collect();
    assert_eq!(cases.len(), 3);
    check_from_state(cases);
}

/// Every case name is unique (a duplicate would hide a result).
#[test]
fn golden_case_names_are_unique() {
    let mut names: Vec<String> = scheme_cases()
        .into_iter()
        .chain(big_cases())
        .chain(pa_cases())
        .chain(policy_cases())
        .map(|c| c.name)
        .collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n);
}
