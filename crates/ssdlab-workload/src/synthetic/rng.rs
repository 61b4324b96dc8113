//! The uniform draws every sampler is built on.

use rand_xoshiro::rand_core::RngCore;
use rand_xoshiro::Xoshiro256PlusPlus;

/// A uniform draw in \[0, 1) with 53 random bits.
#[inline]
pub(super) fn unit(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform integer in \[0, n) (n > 0), without bias (Lemire 2019).
#[inline]
pub(super) fn below(rng: &mut Xoshiro256PlusPlus, n: u64) -> u64 {
    debug_assert!(n > 0);
    let mut m = rng.next_u64() as u128 * n as u128;
    if (m as u64) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u64) < threshold {
            m = rng.next_u64() as u128 * n as u128;
        }
    }
    (m >> 64) as u64
}

#[cfg(test)]
mod tests {
    use rand_xoshiro::rand_core::SeedableRng;

    use super::*;

    #[test]
    fn lemire_is_in_range() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        for n in [1u64, 2, 3, 7, u64::MAX] {
            for _ in 0..1000 {
                assert!(below(&mut rng, n) < n);
            }
        }
    }
}
