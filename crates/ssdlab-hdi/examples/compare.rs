//! Compare the Table 1 schemes and the readings of the pre-classifier's
//! decay rhythm on seeded synthetic 80/20 workloads.
//!
//! `cargo run -p ssdlab-hdi --release --example compare [writes]`

#[path = "../tests/common/mod.rs"]
mod common;

use ssdlab_hdi::presets::{self, dl_mbf_with};
use ssdlab_hdi::{
    evaluate, HotDataIdentifier, Mihf, MihfHotRule, MihfParams, PostClock, PreClassifierParams,
    Wdac, WdacParams,
};

fn pre(window: u64, clock: PostClock) -> PreClassifierParams {
    PreClassifierParams {
        decay_window: window,
        post_clock: clock,
        ..PreClassifierParams::default()
    }
}

fn print_eval(title: &str, lbas: &[u64], schemes: Vec<Box<dyn HotDataIdentifier>>) {
    let mut schemes = schemes;
    let e = evaluate(lbas.iter().copied(), &mut schemes, 50_000);
    println!("\n== {title} ({} writes)", e.writes);
    println!(
        "{:<34} {:>8} {:>8} {:>8} {:>9} {:>7}",
        "scheme", "hot%", "FIR%", "coldI%", "bits", "decays"
    );
    for r in &e.schemes {
        println!(
            "{:<34} {:>8.2} {:>8.2} {:>8.2} {:>9} {:>7}",
            r.name,
            100.0 * r.hot_ratio,
            100.0 * r.false_identification_rate,
            100.0 * r.cold_i_ratio,
            r.memory_bits,
            r.decays
        );
    }
}

fn readings() -> Vec<Box<dyn HotDataIdentifier>> {
    let mut v: Vec<Box<dyn HotDataIdentifier>> = Vec::new();
    for (label, window) in [
        ("pre=2^5 (8x faster)", 1u64 << 5),
        ("pre=2^8 (=post)", 1 << 8),
        ("pre=2^9 (Table 1)", 1 << 9),
        ("pre=2^10", 1 << 10),
        ("pre=2^11 (1/8 rhythm)", 1 << 11),
        ("pre=2^12", 1 << 12),
    ] {
        for (clock_label, clock) in [
            ("all", PostClock::AllWrites),
            ("fwd", PostClock::ForwardedWrites),
        ] {
            v.push(Box::new(dl_mbf_with(
                &format!("DL-MBF_s {label} {clock_label}"),
                pre(window, clock),
                4,
                1 << 11,
            )));
        }
    }
    v
}

fn table_schemes(newest_weight: f64) -> Vec<Box<dyn HotDataIdentifier>> {
    let mut v: Vec<Box<dyn HotDataIdentifier>> = vec![
        Box::new(Wdac::new(WdacParams {
            newest_weight,
            ..WdacParams::default()
        })),
        Box::new(presets::mihf()),
        Box::new(Mihf::with_name(
            "MIHF all-top-bits rule",
            MihfParams {
                hot_rule: MihfHotRule::AllTopBitsSet,
                ..MihfParams::default()
            },
        )),
        Box::new(presets::mbf()),
    ];
    for (name, filters, bits) in [
        ("DL-MBF_s", 4, 1usize << 11),
        ("DL-MBF_c", 4, 1 << 10),
        ("DL-MBF_a", 8, 1 << 10),
    ] {
        for (label, window) in [("Table1 2^9", 1u64 << 9), ("1/8 2^11", 1 << 11)] {
            v.push(Box::new(dl_mbf_with(
                &format!("{name} pre {label}"),
                pre(window, PostClock::AllWrites),
                filters,
                bits,
            )));
        }
    }
    v.push(Box::new(presets::dl_mihf()));
    v
}

fn main() {
    let writes: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(400_000);
    let workloads: Vec<(String, Vec<u64>)> = vec![
        (
            "self-similar 80/20, 2^16 LBAs".into(),
            common::self_similar(16, 0.2, writes, 1),
        ),
        (
            "self-similar 80/20, 2^20 LBAs".into(),
            common::self_similar(20, 0.2, writes, 2),
        ),
        (
            "classes 80/20, 2^16 LBAs".into(),
            common::hot_cold_classes(16, 0.2, 0.8, writes, 3),
        ),
        (
            "classes 80/20, 2^11 LBAs".into(),
            common::hot_cold_classes(11, 0.2, 0.8, writes, 4),
        ),
    ];
    seed_sweep(writes);
    for (name, lbas) in &workloads {
        for nw in [1.0, 2.0] {
            print_eval(
                &format!("{name}; WDAC newest weight {nw}"),
                lbas,
                table_schemes(nw),
            );
        }
        let mut v: Vec<Box<dyn HotDataIdentifier>> =
            vec![Box::new(presets::wdac()), Box::new(presets::mbf())];
        v.extend(readings());
        print_eval(&format!("{name}; decay-rhythm readings"), lbas, v);
    }
}

/// FIR (in %) of MBF and the DL-MBF variants under both decay readings over
/// several seeds of the self-similar 2^16-LBA workload.
fn seed_sweep(writes: usize) {
    println!("\n== seed sweep: self-similar 80/20, 2^16 LBAs, FIR % vs WDAC (newest weight 1)");
    println!(
        "{:>4} {:>6} {:>6} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>7}",
        "seed", "MIHF", "MBF", "s 2^9", "c 2^9", "a 2^9", "s 2^11", "c 2^11", "a 2^11", "coldI%"
    );
    for seed in 10..20u64 {
        let lbas = common::self_similar(16, 0.2, writes, seed);
        let mut v: Vec<Box<dyn HotDataIdentifier>> = vec![
            Box::new(presets::wdac()),
            Box::new(presets::mihf()),
            Box::new(presets::mbf()),
        ];
        for window in [1u64 << 9, 1 << 11] {
            for (filters, bits) in [(4, 1usize << 11), (4, 1 << 10), (8, 1 << 10)] {
                v.push(Box::new(dl_mbf_with(
                    "x",
                    pre(window, PostClock::AllWrites),
                    filters,
                    bits,
                )));
            }
        }
        let e = evaluate(lbas.iter().copied(), &mut v, 0);
        let f: Vec<f64> = e
            .schemes
            .iter()
            .map(|r| 100.0 * r.false_identification_rate)
            .collect();
        println!(
            "{:>4} {:>6.2} {:>6.2} | {:>9.2} {:>9.2} {:>9.2} | {:>9.2} {:>9.2} {:>9.2} | {:>7.2}",
            seed,
            f[1],
            f[2],
            f[3],
            f[4],
            f[5],
            f[6],
            f[7],
            f[8],
            100.0 * e.schemes[6].cold_i_ratio
        );
    }
}
