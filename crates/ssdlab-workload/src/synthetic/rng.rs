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

/// Uniform draws in (0, 1) spread evenly over `n` equal strata (a profile's
/// `balanced` draws): in every run of `n` draws each stratum is drawn once,
/// in an order given by a keyed permutation (a new one for every run), at a
/// uniform position within it. Any statistic of the draws (a mean size, a
/// mean gap) is then close to its expectation after a fraction of the draws
/// independent ones would need.
#[derive(Clone, Debug)]
pub(super) struct Strata {
    n: u64,
    seed: u64,
    drawn: u64,
    order: super::address::Scatter,
}

impl Strata {
    /// `n` strata (at least 1), the orders keyed by `seed`.
    pub(super) fn new(n: u64, seed: u64) -> Strata {
        let n = n.max(1);
        Strata {
            n,
            seed,
            drawn: 0,
            order: super::address::Scatter::new(n, seed),
        }
    }

    /// The next draw, in (0, 1).
    pub(super) fn next(&mut self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        let i = self.drawn % self.n;
        if i == 0 && self.drawn > 0 {
            let run = self.drawn / self.n;
            self.order = super::address::Scatter::new(
                self.n,
                self.seed ^ run.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            );
        }
        self.drawn += 1;
        let stratum = self.order.forward(i).unwrap_or(i);
        let u = (stratum as f64 + unit(rng)) / self.n as f64;
        // never exactly 0: the quantile functions want (0, 1)
        u.max(f64::MIN_POSITIVE)
    }
}

#[cfg(test)]
mod tests {
    use rand_xoshiro::rand_core::SeedableRng;

    use super::*;

    #[test]
    fn strata_cover_every_stratum_once_per_run() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut s = Strata::new(10, 7);
        for _ in 0..3 {
            let mut seen = [0; 10];
            for _ in 0..10 {
                let u = s.next(&mut rng);
                assert!(u > 0.0 && u < 1.0);
                seen[(u * 10.0) as usize] += 1;
            }
            assert_eq!(seen, [1; 10]);
        }
    }

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
