//! Where requests land: [`Address`] as written, the [`Scatter`]
//! permutation, the Zipf sampler, and the compiled models with their
//! sequential streams.

use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::dmath;
use super::rng::{below, unit};
use super::spec::ModelSpec;
use crate::error::{Error, Result};
use crate::Op;

/// Address model: which page of the footprint a request starts at.
///
/// In TOML a table with a `kind` (`uniform`, `zipf` or `hot-cold`), the
/// parameters of that kind and optionally a `sequential` table; see
/// [addresses](super#addresses).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ModelSpec", into = "ModelSpec")]
pub enum Address {
    /// Every page equally likely.
    Uniform,
    /// Page of popularity rank k with probability proportional to 1/k^theta.
    Zipf {
        /// Skew, > 0 (0.99 is the YCSB default).
        theta: f64,
    },
    /// `hot_share` of the requests go to `hot_fraction` of the pages.
    HotCold {
        /// Share of the pages that are hot, in (0, 1).
        hot_fraction: f64,
        /// Share of the requests that go to hot pages, in (0, 1).
        hot_share: f64,
    },
    /// `base` mixed with sequential streams (TOML: `sequential = { share,
    /// streams, run_requests }` in the model's table); see
    /// [sequential streams](super#sequential-streams).
    Sequential {
        /// The model of non-stream requests and of stream restarts:
        /// `Uniform`, `Zipf` or `HotCold`.
        base: Box<Address>,
        /// Probability that a request goes to a stream, in (0, 1].
        share: f64,
        /// Number of streams, 1 to [`MAX_STREAMS`](super::MAX_STREAMS).
        streams: u32,
        /// Mean run length in requests (≥ 1); None: runs end only at the
        /// footprint's end.
        run_requests: Option<f64>,
    },
    /// Separate models for reads and writes (TOML: `address` with
    /// `read_address` and/or `write_address`). Only as a profile's
    /// `address`; the three models may not be `PerOp` themselves.
    PerOp {
        /// The model of the directions not overridden.
        address: Box<Address>,
        /// The model of reads, if not `address`.
        read: Option<Box<Address>>,
        /// The model of writes, if not `address`.
        write: Option<Box<Address>>,
    },
}

impl Address {
    /// This model mixed with `streams` sequential streams taking `share` of
    /// the requests, runs of `run_requests` requests on average (None:
    /// unbounded).
    pub fn with_sequential(self, share: f64, streams: u32, run_requests: Option<f64>) -> Address {
        Address::Sequential {
            base: Box::new(self),
            share,
            streams,
            run_requests,
        }
    }

    /// `address` for both directions except where `read` / `write` override it.
    pub fn per_op(address: Address, read: Option<Address>, write: Option<Address>) -> Address {
        Address::PerOp {
            address: Box::new(address),
            read: read.map(Box::new),
            write: write.map(Box::new),
        }
    }

    /// The model requests of direction `op` use (trims, which profiles do
    /// not generate, that of writes).
    pub fn for_op(&self, op: Op) -> &Address {
        match self {
            Address::PerOp {
                address,
                read,
                write,
            } => match op {
                Op::Read => read.as_deref().unwrap_or(address),
                Op::Write | Op::Trim => write.as_deref().unwrap_or(address),
            },
            a => a,
        }
    }

    /// The plain model (`Uniform`, `Zipf` or `HotCold`) under any sequential
    /// mixture, of `address` for a `PerOp`.
    pub fn base(&self) -> &Address {
        match self {
            Address::Sequential { base, .. } => base.base(),
            Address::PerOp { address, .. } => address.base(),
            a => a,
        }
    }
}

/// Zipf ranks 1..=n with P(k) ∝ k^-theta, by rejection-inversion.
///
/// With h(x) = x^-theta and H its integral from 1, a uniform u over
/// \[H(1.5) − 1, H(n + 0.5)\] is inverted to x = H⁻¹(u) and rounded to the rank
/// k; k is accepted when u lies in the top h(k) of the strip
/// \[H(k − 0.5), H(k + 0.5)\] (which is at least that long, h being convex),
/// so every rank is accepted with probability ∝ h(k). Rank 1's strip is
/// exactly h(1) long and always accepted.
#[derive(Clone, Debug)]
pub(super) struct Zipf {
    n: u64,
    theta: f64,
    /// 1 - theta.
    q: f64,
    u_lo: f64,
    u_hi: f64,
}

impl Zipf {
    fn new(n: u64, theta: f64) -> Zipf {
        let mut z = Zipf {
            n,
            theta,
            q: 1.0 - theta,
            u_lo: 0.0,
            u_hi: 0.0,
        };
        z.u_lo = z.big_h(1.5) - 1.0;
        z.u_hi = z.big_h(n as f64 + 0.5);
        z
    }

    /// ∫₁ˣ t^-theta dt = (x^q − 1)/q, or ln x when q = 0.
    fn big_h(&self, x: f64) -> f64 {
        let l = dmath::ln(x);
        l * dmath::expm1_over_x(self.q * l)
    }

    /// Inverse of `big_h`.
    fn big_h_inv(&self, y: f64) -> f64 {
        dmath::exp(y * dmath::ln1p_over_x(self.q * y))
    }

    /// x^-theta.
    fn h(&self, x: f64) -> f64 {
        dmath::exp(-self.theta * dmath::ln(x))
    }

    /// A rank in 1..=n, or None if rounding trouble kept rejecting (not seen
    /// in practice; bounded so that it cannot hang).
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> Option<u64> {
        for _ in 0..10_000 {
            let u = self.u_hi + unit(rng) * (self.u_lo - self.u_hi);
            let x = self.big_h_inv(u);
            // the saturating float-to-int cast maps NaN to 0
            let k = ((x + 0.5) as u64).clamp(1, self.n);
            if k == 1 || u >= self.big_h(k as f64 + 0.5) - self.h(k as f64) {
                return Some(k);
            }
        }
        None
    }
}

/// A fixed pseudo-random bijection of \[0, n), used to scatter popularity
/// ranks over the pages of the footprint.
///
/// It is a balanced Feistel network of 6 rounds over the smallest domain of
/// 2^(2h) values that holds n (h ≥ 1), with cycle walking: values of the
/// domain at or above n are encrypted again until they fall below n. Each
/// round maps (L, R) to (R, L xor F(R xor key_i)) with F the SplitMix64
/// finaliser truncated to h bits; the round keys come from the profile seed
/// through SplitMix64. A Feistel network is a bijection of its domain
/// whatever F is, and cycle walking restricts a bijection to a bijection of
/// \[0, n); since the domain is less than 4n, a value takes fewer than 4
/// rounds of walking on average.
#[derive(Clone, Debug)]
pub struct Scatter {
    n: u64,
    half_bits: u32,
    mask: u64,
    keys: [u64; SCATTER_ROUNDS],
}

const SCATTER_ROUNDS: usize = 6;

/// The SplitMix64 output function.
#[inline]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Scatter {
    /// The permutation of \[0, n) keyed by `seed`.
    pub fn new(n: u64, seed: u64) -> Scatter {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let mut state = seed ^ 0x5ca7_7e25_ca77_e250;
        let mut keys = [0u64; SCATTER_ROUNDS];
        for k in &mut keys {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            *k = mix64(state);
        }
        Scatter {
            n,
            half_bits,
            mask: (1u64 << half_bits) - 1,
            keys,
        }
    }

    /// Size of the permuted range.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether the range is empty.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The image of `x`, or None if `x >= n`.
    pub fn forward(&self, x: u64) -> Option<u64> {
        (x < self.n).then(|| self.permute(x))
    }

    /// The preimage of `y`, or None if `y >= n`.
    pub fn inverse(&self, y: u64) -> Option<u64> {
        if y >= self.n {
            return None;
        }
        let mut v = self.decrypt(y);
        while v >= self.n {
            v = self.decrypt(v);
        }
        Some(v)
    }

    /// `forward` for `x < n`.
    #[inline]
    fn permute(&self, x: u64) -> u64 {
        let mut v = self.encrypt(x);
        while v >= self.n {
            v = self.encrypt(v);
        }
        v
    }

    #[inline]
    fn round(&self, r: u64, i: usize) -> u64 {
        mix64(r ^ self.keys[i]) & self.mask
    }

    #[inline]
    fn encrypt(&self, v: u64) -> u64 {
        let (mut l, mut r) = (v >> self.half_bits, v & self.mask);
        for i in 0..SCATTER_ROUNDS {
            (l, r) = (r, l ^ self.round(r, i));
        }
        (l << self.half_bits) | r
    }

    #[inline]
    fn decrypt(&self, v: u64) -> u64 {
        let (mut l, mut r) = (v >> self.half_bits, v & self.mask);
        for i in (0..SCATTER_ROUNDS).rev() {
            (l, r) = (r ^ self.round(l, i), l);
        }
        (l << self.half_bits) | r
    }
}

/// A compiled plain address model.
#[derive(Clone, Debug)]
pub(super) enum AddrSampler {
    Uniform,
    Zipf(Zipf),
    HotCold { hot: u64, hot_share: f64 },
}

/// What the address models need to know about the footprint.
pub(super) struct Geometry<'a> {
    pub(super) pages: u64,
    pub(super) page_bytes: u64,
    pub(super) footprint: u64,
    pub(super) scatter: &'a Scatter,
}

impl AddrSampler {
    /// The plain model under `a` (which validate() has checked).
    pub(super) fn new(a: &Address, pages: u64) -> AddrSampler {
        match a {
            Address::Uniform => AddrSampler::Uniform,
            Address::Zipf { theta } => AddrSampler::Zipf(Zipf::new(pages, *theta)),
            Address::HotCold {
                hot_fraction,
                hot_share,
            } => {
                // validate() guarantees pages >= 2, so the clamp range is sound
                let hot = ((hot_fraction * pages as f64).round() as u64).clamp(1, pages - 1);
                AddrSampler::HotCold {
                    hot,
                    hot_share: *hot_share,
                }
            }
            Address::Sequential { base, .. } => AddrSampler::new(base, pages),
            Address::PerOp { address, .. } => AddrSampler::new(address, pages),
        }
    }

    /// The offset of a request of `size` bytes: a page from the model, moved
    /// down if the request would run past the footprint's end.
    fn offset(&self, rng: &mut Xoshiro256PlusPlus, size: u64, g: &Geometry) -> Result<u64> {
        let page = match self {
            AddrSampler::Uniform => below(rng, g.pages),
            AddrSampler::Zipf(z) => {
                let k = z.sample(rng).ok_or_else(|| {
                    Error::Invalid("the zipf sampler did not converge (numerical trouble)".into())
                })?;
                g.scatter.permute(k - 1)
            }
            AddrSampler::HotCold { hot, hot_share } => {
                let rank = if unit(rng) < *hot_share {
                    below(rng, *hot)
                } else {
                    hot + below(rng, g.pages - hot)
                };
                g.scatter.permute(rank)
            }
        };
        let mut offset = page * g.page_bytes;
        if offset + size > g.footprint {
            // size <= footprint (validated): the last aligned offset that fits
            offset = (g.footprint - size) / g.page_bytes * g.page_bytes;
        }
        Ok(offset)
    }
}

/// The sequential streams of an address model.
#[derive(Clone, Debug)]
struct Streams {
    share: f64,
    /// 1 / run_requests.
    end_run: Option<f64>,
    /// Where each stream goes on (None: not started).
    next: Vec<Option<u64>>,
}

/// A compiled address model: a plain model and maybe streams.
#[derive(Clone, Debug)]
pub(super) struct AddrModel {
    base: AddrSampler,
    streams: Option<Streams>,
}

impl AddrModel {
    pub(super) fn new(a: &Address, pages: u64) -> AddrModel {
        let streams = match a {
            Address::Sequential {
                share,
                streams,
                run_requests,
                ..
            } => Some(Streams {
                share: *share,
                end_run: run_requests.map(|r| 1.0 / r),
                next: vec![None; *streams as usize],
            }),
            _ => None,
        };
        AddrModel {
            base: AddrSampler::new(a, pages),
            streams,
        }
    }

    pub(super) fn offset(
        &mut self,
        rng: &mut Xoshiro256PlusPlus,
        size: u64,
        g: &Geometry,
    ) -> Result<u64> {
        let Some(s) = &mut self.streams else {
            return self.base.offset(rng, size, g);
        };
        if unit(rng) >= s.share {
            return self.base.offset(rng, size, g);
        }
        let i = below(rng, s.next.len() as u64) as usize;
        let go_on = match s.next[i] {
            None => None,
            Some(at) => {
                let run_ends = match s.end_run {
                    Some(p) => unit(rng) < p,
                    None => false,
                };
                // at <= footprint always
                (!run_ends && size <= g.footprint - at).then_some(at)
            }
        };
        let offset = match go_on {
            Some(at) => at,
            None => self.base.offset(rng, size, g)?,
        };
        s.next[i] = Some(offset + size);
        Ok(offset)
    }
}

#[cfg(test)]
mod tests {
    use rand_xoshiro::rand_core::SeedableRng;

    use super::*;

    #[test]
    fn scatter_is_a_bijection() {
        for n in [1u64, 2, 3, 5, 16, 17, 1000, 4097] {
            let s = Scatter::new(n, 7);
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = s.forward(x).unwrap();
                assert!(!seen[y as usize], "n={n}: {y} twice");
                seen[y as usize] = true;
                assert_eq!(s.inverse(y), Some(x));
            }
            assert_eq!(s.forward(n), None);
            assert_eq!(s.inverse(n), None);
        }
        let big = Scatter::new(u64::MAX, 1);
        let y = big.forward(12345).unwrap();
        assert_eq!(big.inverse(y), Some(12345));
        assert_eq!(Scatter::new(0, 1).forward(0), None);
    }

    #[test]
    fn scatter_spreads_hot_ranks() {
        // the first 1% of ranks of 100k pages land all over the range
        let s = Scatter::new(100_000, 1);
        let mut buckets = [0u32; 10];
        for r in 0..1000 {
            buckets[(s.forward(r).unwrap() / 10_000) as usize] += 1;
        }
        assert!(
            buckets.iter().all(|&b| (50..=150).contains(&b)),
            "{buckets:?}"
        );
    }

    #[test]
    fn zipf_matches_its_distribution() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        for theta in [0.5, 0.99, 1.0, 1.5] {
            let n = 50u64;
            let z = Zipf::new(n, theta);
            let norm: f64 = (1..=n).map(|k| (k as f64).powf(-theta)).sum();
            let mut counts = vec![0u64; n as usize + 1];
            let draws = 400_000;
            for _ in 0..draws {
                counts[z.sample(&mut rng).unwrap() as usize] += 1;
            }
            for k in [1u64, 2, 5, 50] {
                let want = (k as f64).powf(-theta) / norm;
                let got = counts[k as usize] as f64 / draws as f64;
                let sd = (want * (1.0 - want) / draws as f64).sqrt();
                assert!(
                    (got - want).abs() < 5.0 * sd,
                    "theta {theta} k {k}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn zipf_handles_huge_ranges() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let n = 1u64 << 40;
        let z = Zipf::new(n, 0.99);
        let mut ones = 0;
        for _ in 0..10_000 {
            let k = z.sample(&mut rng).unwrap();
            assert!((1..=n).contains(&k));
            ones += (k == 1) as u32;
        }
        assert!(ones > 0);
    }
}
