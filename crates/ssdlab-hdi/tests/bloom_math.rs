//! Bloom-filter arithmetic against the standard model (the paper's
//! equations (3)-(4)): after inserting `n` distinct keys into `m` bits with
//! `k` hash functions a bit is still zero with probability
//! `(1 - 1/m)^(k n) ≈ e^(-k n / m)`, and a non-member passes the filter with
//! probability `(1 - e^(-k n / m))^k`.

use ssdlab_hdi::bloom::{expected_false_positive, expected_zero_share};
use ssdlab_hdi::hash::mix64;
use ssdlab_hdi::presets;
use ssdlab_hdi::{BloomFilter, HashFamily, HotDataIdentifier};

const M: usize = 1 << 11;
const K: u32 = 2;
const N: u64 = 1 << 9;
/// e^{-K N / M} = e^{-1/2}.
const E_MINUS_HALF: f64 = 0.606_530_659_712_633_4;

#[test]
fn zero_bit_share_matches_e_to_minus_kn_over_m() {
    assert!((E_MINUS_HALF - (-0.5f64).exp()).abs() < 1e-15);
    // Exact-model expectation (1 - 1/m)^(kn) is within 0.02 points of e^{-1/2}.
    assert!((expected_zero_share(M, K, N) - E_MINUS_HALF).abs() < 2e-4);

    // One filter: its share of zero bits is within one point of 60.65 %.
    let mut f = BloomFilter::new(M, K, HashFamily::new(0x1234));
    for key in 0..N {
        f.insert(key);
    }
    let single = f.zero_share();
    println!(
        "single filter: zero-bit share {:.4} (e^-1/2 = {E_MINUS_HALF:.4})",
        single
    );
    assert!((single - E_MINUS_HALF).abs() < 0.01, "{single}");

    // Many independent filters (different seeds and key sets): the mean is
    // within one point and every filter within four points (≈ 8 sd).
    let trials = 256u64;
    let mut sum = 0.0;
    for t in 0..trials {
        let mut f = BloomFilter::new(M, K, HashFamily::new(mix64(t + 1)));
        for i in 0..N {
            f.insert(t * 1_000_000 + i);
        }
        let z = f.zero_share();
        assert!((z - E_MINUS_HALF).abs() < 0.04, "trial {t}: {z}");
        sum += z;
    }
    let mean = sum / trials as f64;
    println!("mean over {trials} filters: zero-bit share {mean:.4}");
    assert!((mean - E_MINUS_HALF).abs() < 0.01, "{mean}");
}

#[test]
fn false_positive_rate_matches_model() {
    let mut f = BloomFilter::new(M, K, HashFamily::new(99));
    for key in 0..N {
        f.insert(key);
    }
    let probes = 200_000u64;
    let fp = (0..probes).filter(|i| f.contains(1 << 40 | i)).count() as f64 / probes as f64;
    // (1 - e^{-1/2})^2 = 0.1548
    let model = (1.0 - E_MINUS_HALF).powi(2);
    assert!((expected_false_positive(M, K, N) - model).abs() < 1e-3);
    // The realised filter has its own zero share; given it, the FP rate is
    // (1 - zero_share)^2 up to sampling noise (sd ≈ 0.08 points).
    let given = (1.0 - f.zero_share()).powi(2);
    println!("false positives {fp:.4}, model {model:.4}, given fill {given:.4}");
    assert!((fp - given).abs() < 0.005, "{fp} vs {given}");
    assert!((fp - model).abs() < 0.02, "{fp} vs {model}");
}

#[test]
fn pre_classifier_filter_follows_the_model() {
    // The DL-MBF pre-classifier is a plain 2^11-bit, K = 2 filter: after 2^9
    // distinct writes (less than its decay window) its zero share is e^{-1/2}.
    let mut d = presets::dl_mbf_s();
    assert_eq!(d.pre_filter().bits(), M);
    assert_eq!(d.pre_filter().hashes(), K);
    for lba in 0..N {
        assert!(!d.record_write(lba * 7919));
    }
    assert_eq!(d.pre_decays(), 0);
    let z = d.pre_filter().zero_share();
    println!("pre-classifier zero share after 512 distinct writes: {z:.4}");
    assert!((z - E_MINUS_HALF).abs() < 0.01, "{z}");
    // No distinct LBA had all its bits set before its own write except
    // false positives, and those went to the post-identifier.
    let c = d.counts();
    assert_eq!(c.cold_i + c.cold + c.hot, N);
    assert!(c.cold_i > N * 9 / 10);
}

#[test]
fn splitmix64_reference_vector() {
    // The first output of the reference SplitMix64 generator seeded with 0
    // is mix64(0 + golden gamma) = 0xE220A8397B1DCDAF (Vigna's splitmix64.c).
    assert_eq!(mix64(0x9E37_79B9_7F4A_7C15), 0xE220_A839_7B1D_CDAF);
}
