//! Seeded synthetic write workloads shared by the integration tests and the
//! `compare` example.

#![allow(dead_code)]

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Odd multiplier used to scatter ranks over the LBA space (a bijection
/// modulo any power of two).
const SCATTER: u64 = 0x9E37_79B9_7F4A_7C15;

/// Map a rank in `0..2^bits` to an LBA in `0..2^bits` (bijective).
fn scatter(rank: u64, bits: u32) -> u64 {
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    rank.wrapping_mul(SCATTER) & mask
}

/// "80/20 by classes": `writes` writes over `2^bits` LBAs; with probability
/// `hot_write_share` a write goes to a uniformly chosen LBA of the hot class
/// (the first `hot_lba_share` of the ranks), otherwise to a uniformly chosen
/// LBA of the rest.
pub fn hot_cold_classes(
    bits: u32,
    hot_lba_share: f64,
    hot_write_share: f64,
    writes: usize,
    seed: u64,
) -> Vec<u64> {
    let n = 1u64 << bits;
    let hot = ((n as f64 * hot_lba_share) as u64).clamp(1, n - 1);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..writes)
        .map(|_| {
            let rank = if rng.gen::<f64>() < hot_write_share {
                rng.gen_range(0..hot)
            } else {
                rng.gen_range(hot..n)
            };
            scatter(rank, bits)
        })
        .collect()
}

/// Self-similar "80/20" distribution (Gray et al., SIGMOD 1994): rank
/// `floor(N * u^(ln h / ln(1-h)))` with `h = 0.2`, so 80% of the writes go to
/// 20% of the LBAs, and recursively 80% of those to 20% of that 20%, etc.
pub fn self_similar(bits: u32, h: f64, writes: usize, seed: u64) -> Vec<u64> {
    let n = 1u64 << bits;
    let exponent = h.ln() / (1.0 - h).ln();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..writes)
        .map(|_| {
            let u: f64 = rng.gen();
            let rank = ((n as f64) * u.powf(exponent)) as u64;
            scatter(rank.min(n - 1), bits)
        })
        .collect()
}

/// Share of writes that go to the most written `lba_share` of the LBAs that
/// occur in `lbas` relative to an LBA space of `space` addresses.
pub fn top_share(lbas: &[u64], space: u64, lba_share: f64) -> f64 {
    let mut counts = std::collections::HashMap::<u64, u64>::new();
    for &l in lbas {
        *counts.entry(l).or_default() += 1;
    }
    let mut v: Vec<u64> = counts.into_values().collect();
    v.sort_unstable_by(|a, b| b.cmp(a));
    let k = (space as f64 * lba_share) as usize;
    v.iter().take(k).sum::<u64>() as f64 / lbas.len() as f64
}
