//! MBF and MIHF decay behaviour on hand-computed sequences with small
//! parameters. The chosen LBAs are first checked to occupy disjoint hash
//! positions, so no false positive can disturb the hand computation.

use ssdlab_hdi::{HashFamily, HotDataIdentifier, Mbf, MbfParams, Mihf, MihfHotRule, MihfParams};

const X: u64 = 1;
const Y: u64 = 2;
const Z: u64 = 3;

fn assert_disjoint(family: HashFamily, k: u32, m: usize, lbas: &[u64]) {
    let mut seen = Vec::new();
    for &l in lbas {
        let mut p: Vec<usize> = family.positions(l, k, m).collect();
        p.sort_unstable();
        p.dedup();
        assert_eq!(p.len(), k as usize, "LBA {l} hits one slot twice");
        for q in p {
            assert!(!seen.contains(&q), "LBA {l} shares slot {q}");
            seen.push(q);
        }
    }
}

fn small_mbf() -> Mbf {
    let params = MbfParams {
        filters: 4,
        bits_per_filter: 4096,
        hashes: 2,
        decay_window: 3,
        newest_weight: 2.0,
        hot_threshold: 4.0,
        ..MbfParams::default()
    };
    assert_disjoint(HashFamily::new(params.seed), 2, 4096, &[X, Y, Z]);
    Mbf::new(params)
}

#[test]
fn mbf_hand_computed() {
    // V = 4 filters, weights by age 2, 1.5, 1, 0.5; threshold 4; decay every
    // N = 3 writes (after the 3rd, 6th, ... write the oldest filter is
    // cleared and becomes the newest). A write goes to the newest filter not
    // yet holding the LBA. Ages of the filters holding X/Y after each write:
    //
    //  # lba  hotness before -> hot?  recorded at age   after decay?
    //  1  X   0                 no    0                  X{0}
    //  2  X   2                 no    1                  X{0,1}
    //  3  X   2+1.5 = 3.5       no    2                  decay: X{1,2,3}
    //  4  X   1.5+1+.5 = 3      no    0                  X{0,1,2,3}
    //  5  Y   0                 no    0                  Y{0}
    //  6  Y   2                 no    1                  decay: X{1,2,3} Y{1,2}
    //  7  X   3                 no    0                  X{0,1,2,3}
    //  8  X   5                 YES   (all hold X)
    //  9  X   5                 YES   -                  decay: X{1,2,3} Y{2,3}
    // 10  Y   1+.5 = 1.5        no    0                  Y{0,2,3}
    // 11  X   3                 no    0                  X{0,1,2,3}
    // 12  X   5                 YES   -                  decay: X{1,2,3} Y{1,3}
    // 13  Z   0                 no    0
    // 14  Z   2                 no    1
    // 15  Z   3.5               no    2                  decay: X{2,3} Y{2} Z{1,2,3}
    let mut m = small_mbf();
    let seq = [X, X, X, X, Y, Y, X, X, X, Y, X, X, Z, Z, Z];
    let hotness = [
        0.0, 2.0, 3.5, 3.0, 0.0, 2.0, 3.0, 5.0, 5.0, 1.5, 3.0, 5.0, 0.0, 2.0, 3.5,
    ];
    for (i, &lba) in seq.iter().enumerate() {
        assert_eq!(m.hotness(lba), hotness[i], "hotness before write {}", i + 1);
        assert_eq!(m.record_write(lba), hotness[i] >= 4.0, "write {}", i + 1);
    }
    assert_eq!(m.decays(), 5);
    assert_eq!(m.membership(X), vec![false, false, true, true]);
    assert_eq!(m.membership(Y), vec![false, false, true, false]);
    assert_eq!(m.membership(Z), vec![false, true, true, true]);
    assert_eq!(m.hotness(X), 1.5);
    assert_eq!(m.hotness(Y), 1.0);
    assert_eq!(m.hotness(Z), 3.0);
    let c = m.counts();
    assert_eq!((c.hot, c.cold), (3, 12));

    // Three more decays without writes of X (clock advanced by 9 writes
    // not seen): every filter that held X has been cleared.
    m.advance_clock(9);
    assert_eq!(m.decays(), 8);
    assert_eq!(m.hotness(X), 0.0);
    assert_eq!(m.hotness(Z), 0.0);
}

#[test]
fn mbf_frequency_without_decay() {
    // With decay disabled (N = 0) the number of filters holding an LBA is
    // min(writes, V): hotness 0, 2, 3.5, 4.5, 5, 5, ...
    let mut m = Mbf::new(MbfParams {
        decay_window: 0,
        bits_per_filter: 4096,
        ..MbfParams::default()
    });
    let got: Vec<f64> = (0..6)
        .map(|_| {
            let h = m.hotness(X);
            m.record_write(X);
            h
        })
        .collect();
    assert_eq!(got, vec![0.0, 2.0, 3.5, 4.5, 5.0, 5.0]);
    assert_eq!(m.decays(), 0);
}

fn small_mihf(decay_window: u64, rule: MihfHotRule) -> Mihf {
    let params = MihfParams {
        counters: 4096,
        counter_bits: 4,
        hashes: 2,
        hot_bits: 2,
        decay_window,
        hot_rule: rule,
        ..MihfParams::default()
    };
    assert_disjoint(HashFamily::new(params.seed), 2, 4096, &[X, Y]);
    Mihf::new(params)
}

#[test]
fn mihf_hand_computed_halving() {
    // 4-bit counters, H = 2: hot when both counters are >= 4 (a non-zero
    // bit among the top two). Halving every N = 5 writes.
    //
    //  # lba counter before  hot?  after write   after decay
    //  1  X   0              no    1
    //  2  X   1              no    2
    //  3  X   2              no    3
    //  4  X   3              no    4
    //  5  X   4              YES   5             5 >> 1 = 2
    //  6  X   2              no    3
    //  7  X   3              no    4
    //  8  X   4              YES   5
    //  9  X   5              YES   6
    // 10  X   6              YES   7             7 >> 1 = 3
    // 11  Y   0              no    Y: 1  (X still 3)
    let mut m = small_mihf(5, MihfHotRule::AnyTopBitSet);
    let before = [0u8, 1, 2, 3, 4, 2, 3, 4, 5, 6];
    for (i, &b) in before.iter().enumerate() {
        for p in m.positions(X) {
            assert_eq!(m.counter(p), b, "write {}", i + 1);
        }
        assert_eq!(m.record_write(X), b >= 4, "write {}", i + 1);
    }
    assert!(!m.record_write(Y));
    for p in m.positions(X) {
        assert_eq!(m.counter(p), 3);
    }
    for p in m.positions(Y) {
        assert_eq!(m.counter(p), 1);
    }
    assert_eq!(m.decays(), 2);
    assert!(!m.is_hot(X));
    // Four more halvings empty every 4-bit counter.
    m.advance_clock(4 + 5 * 3);
    assert_eq!(m.decays(), 6);
    assert!(m.positions(X).iter().all(|&p| m.counter(p) == 0));
    assert_eq!(m.memory_bits(), 4096 * 4);
}

#[test]
fn mihf_saturation_and_strict_rule() {
    // No decay: the counter saturates at 15. With the all-top-bits rule the
    // LBA becomes hot once its counters reach 12, i.e. from the 13th write.
    let mut m = small_mihf(0, MihfHotRule::AllTopBitsSet);
    let d: Vec<bool> = (0..20).map(|_| m.record_write(X)).collect();
    let first_hot = d.iter().position(|&h| h);
    assert_eq!(first_hot, Some(12));
    assert!(d[12..].iter().all(|&h| h));
    assert!(m.positions(X).iter().all(|&p| m.counter(p) == 15));
}

#[test]
fn mihf_needs_all_counters() {
    // An LBA B sharing exactly one counter with A pumps that counter up,
    // but A stays cold because its other counter is still 0.
    let params = MihfParams {
        counters: 64,
        decay_window: 0,
        ..MihfParams::default()
    };
    let m0 = Mihf::new(params);
    let a = 7u64;
    let pa = m0.positions(a);
    assert_ne!(pa[0], pa[1]);
    let b = (0..10_000u64)
        .find(|&b| {
            let pb = m0.positions(b);
            b != a && pb[0] != pb[1] && pb.contains(&pa[0]) && !pb.contains(&pa[1])
        })
        .expect("some LBA shares exactly one counter");
    let mut m = m0;
    for _ in 0..10 {
        m.record_write(b);
    }
    assert_eq!(m.counter(pa[0]), 10);
    assert_eq!(m.counter(pa[1]), 0);
    assert!(!m.is_hot(a));
    assert!(m.is_hot(b));
}
