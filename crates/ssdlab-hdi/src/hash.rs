//! Deterministic LBA hash functions shared by every hashed structure.
//!
//! Each structure owns a [`HashFamily`] built from a 64-bit seed. For an LBA
//! `x` the family derives two 64-bit values
//!
//! ```text
//! h1 = mix64(x XOR seed)
//! h2 = mix64(h1 XOR 0x9E37_79B9_7F4A_7C15) | 1
//! ```
//!
//! where `mix64` is the SplitMix64 finaliser (two xor-shift/multiply rounds,
//! a bijection on `u64`). The `i`-th of `K` probe positions in a table of `m`
//! slots is the double-hashing value `g_i = h1 + i * h2 (mod 2^64)` reduced to
//! `0..m` with the multiply-high range reduction `(g_i * m) >> 64`, which
//! uses the high bits of `g_i` and needs no division. Only wrapping integer
//! arithmetic is used, so the positions are identical on every platform and
//! every run.

use serde::{Deserialize, Serialize};

/// SplitMix64 finaliser: a fast bijective 64-bit mixer.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Reduce a 64-bit hash to `0..m` (`m >= 1`) using its high bits.
#[inline]
pub fn reduce(h: u64, m: usize) -> usize {
    ((u128::from(h) * m as u128) >> 64) as usize
}

/// A seeded family of `K` hash functions over LBAs (double hashing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HashFamily {
    seed: u64,
}

impl HashFamily {
    /// Create the family for `seed`.
    pub fn new(seed: u64) -> Self {
        Self { seed }
    }

    /// The seed the family was built from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The two base hashes `(h1, h2)` of `lba`; `h2` is always odd.
    #[inline]
    pub fn base(&self, lba: u64) -> (u64, u64) {
        let h1 = mix64(lba ^ self.seed);
        let h2 = mix64(h1 ^ 0x9E37_79B9_7F4A_7C15) | 1;
        (h1, h2)
    }

    /// Position of probe `i` of `lba` in a table of `m` slots (`m == 0` is
    /// treated as `1`).
    #[inline]
    pub fn position(&self, lba: u64, i: u32, m: usize) -> usize {
        let (h1, h2) = self.base(lba);
        reduce(h1.wrapping_add(u64::from(i).wrapping_mul(h2)), m.max(1))
    }

    /// Iterator over the `k` probe positions of `lba` in a table of `m`
    /// slots. Positions may repeat (as in the textbook Bloom-filter model).
    pub fn positions(&self, lba: u64, k: u32, m: usize) -> impl Iterator<Item = usize> {
        let (h1, h2) = self.base(lba);
        let m = m.max(1);
        (0..k).map(move |i| reduce(h1.wrapping_add(u64::from(i).wrapping_mul(h2)), m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix64_matches_splitmix64_reference_outputs() {
        // The reference SplitMix64 generator seeded with 0 outputs
        // mix64(i * 0x9E3779B97F4A7C15) for i = 1, 2, 3, ...
        const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
        assert_eq!(mix64(GAMMA), 0xE220_A839_7B1D_CDAF);
        assert_eq!(mix64(GAMMA.wrapping_mul(2)), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(mix64(GAMMA.wrapping_mul(3)), 0x06C4_5D18_8009_454F);
        assert_eq!(mix64(0), 0);
    }

    #[test]
    fn positions_in_range_and_stable() {
        let f = HashFamily::new(7);
        for lba in [0, 1, u64::MAX, 12345] {
            let a: Vec<_> = f.positions(lba, 4, 100).collect();
            let b: Vec<_> = f.positions(lba, 4, 100).collect();
            assert_eq!(a, b);
            assert!(a.iter().all(|&p| p < 100));
            for (i, &p) in a.iter().enumerate() {
                assert_eq!(p, f.position(lba, i as u32, 100));
            }
        }
        assert_eq!(f.positions(3, 2, 0).collect::<Vec<_>>(), vec![0, 0]);
    }

    #[test]
    fn reduce_is_roughly_uniform() {
        let f = HashFamily::new(1);
        let mut counts = [0u32; 16];
        for lba in 0..16_000u64 {
            counts[f.position(lba, 0, 16)] += 1;
        }
        assert!(
            counts.iter().all(|&c| (850..1150).contains(&c)),
            "{counts:?}"
        );
    }
}
