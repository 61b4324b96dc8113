//! WDAC against hand-computed sequences and against a brute-force evaluation
//! of its definition.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab_hdi::{HotDataIdentifier, Wdac, WdacParams};

const A: u64 = 10;
const B: u64 = 20;
const C: u64 = 30;

fn wdac(window: u64, newest_weight: f64, hot_threshold: f64) -> Wdac {
    Wdac::new(WdacParams {
        window,
        newest_weight,
        hot_threshold,
        lba_bits: 32,
    })
}

#[test]
fn hand_computed_window_4() {
    // W = 4, newest weight 1, threshold 1.5. A previous write of age a
    // (1 = the write just before) weighs (W + 1 - a) / W:
    //   age 1 -> 1, age 2 -> 0.75, age 3 -> 0.5, age 4 -> 0.25, age 5 -> gone.
    //
    // idx lba  window before the write (idx:lba)   weight of lba        hot?
    //  0   A   -                                     0                   no
    //  1   B   0:A                                   0                   no
    //  2   A   0:A 1:B                               A@0 age2 .75        no
    //  3   A   0:A 1:B 2:A                           .5 + 1 = 1.5        yes (>=)
    //  4   C   0:A 1:B 2:A 3:A                       0                   no
    //  5   A   1:B 2:A 3:A 4:C                       .5 + .75 = 1.25     no
    //  6   A   2:A 3:A 4:C 5:A                       .25 + .5 + 1 = 1.75 yes
    //  7   B   3:A 4:C 5:A 6:A                       0                   no
    //  8   A   4:C 5:A 6:A 7:B                       .5 + .75 = 1.25     no
    let seq = [A, B, A, A, C, A, A, B, A];
    let expected_weight = [0.0, 0.0, 0.75, 1.5, 0.0, 1.25, 1.75, 0.0, 1.25];
    let expected_hot = [false, false, false, true, false, false, true, false, false];
    let mut w = wdac(4, 1.0, 1.5);
    for (i, &lba) in seq.iter().enumerate() {
        assert_eq!(w.weight(lba), expected_weight[i], "weight before write {i}");
        assert_eq!(w.is_hot(lba), expected_hot[i], "is_hot before write {i}");
        assert_eq!(
            w.record_write(lba),
            expected_hot[i],
            "decision of write {i}"
        );
    }
    // After idx 8 the window is 5:A 6:A 7:B 8:A; A: ages 4,3,1 -> .25+.5+1.
    assert_eq!(w.weight(A), 1.75);
    assert_eq!(w.occurrences(A), 3);
    // B: idx 7 has age 2 -> 0.75.
    assert_eq!(w.weight(B), 0.75);
    assert_eq!(w.occurrences(C), 0);
    let c = w.counts();
    assert_eq!((c.hot, c.cold, c.cold_i), (2, 7, 0));
    assert_eq!(w.decays(), 0);
    assert_eq!(w.memory_bits(), 4 * 32);
}

#[test]
fn hand_computed_newest_weight_two() {
    // W = 8, newest weight 2 (step 2/8 = 0.25), threshold 3.
    // Writes: A A x y A (x, y other LBAs). Before the 5th write A has ages 4
    // and 3 (idx 0 and 1 seen from idx 4): 2*(9-4)/8 + 2*(9-3)/8 = 1.25 + 1.5
    // = 2.75 -> cold. Before a 6th write of A: ages 5, 4, 1 -> 1 + 1.25 + 2 =
    // 4.25 -> hot.
    let mut w = wdac(8, 2.0, 3.0);
    let d: Vec<bool> = [A, A, B, C, A, A]
        .iter()
        .map(|&l| w.record_write(l))
        .collect();
    assert_eq!(d, vec![false, false, false, false, false, true]);
    // Now ages of A: 6, 5, 2, 1 -> 0.75 + 1 + 1.75 + 2 = 5.5
    assert_eq!(w.weight(A), 5.5);
}

/// Direct evaluation of the definition over an explicit window.
fn brute_force(seq: &[u64], window: usize, newest: f64, thr: f64) -> Vec<bool> {
    (0..seq.len())
        .map(|t| {
            let lo = t.saturating_sub(window);
            // sum of w(a) = newest * (W + 1 - a) / W >= thr, compared
            // exactly as newest * sum(W + 1 - a) >= thr * W.
            let steps: usize = (lo..t)
                .filter(|&i| seq[i] == seq[t])
                .map(|i| window + 1 - (t - i))
                .sum();
            newest * steps as f64 >= thr * window as f64
        })
        .collect()
}

#[test]
fn incremental_equals_brute_force() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for (window, newest, thr, lbas) in [
        (64usize, 1.0, 1.0, 40u64),
        (50, 2.0, 4.0, 14),
        (7, 1.0, 1.0, 6),
    ] {
        let seq: Vec<u64> = (0..5000).map(|_| rng.gen_range(0..lbas)).collect();
        let mut w = wdac(window as u64, newest, thr);
        let got: Vec<bool> = seq.iter().map(|&l| w.record_write(l)).collect();
        let want = brute_force(&seq, window, newest, thr);
        let hot = want.iter().filter(|&&h| h).count();
        assert!(hot > 500 && hot < 4500, "degenerate test: {hot}");
        let first_diff = got.iter().zip(&want).position(|(a, b)| a != b);
        assert_eq!(first_diff, None, "window {window}");
    }
}
