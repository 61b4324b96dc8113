//! The synthetic workload generator and its profile language.
//!
//! A [`Profile`] describes an open-loop stream of requests: how many (or for
//! how long), the read share, the request sizes of reads and of writes, where
//! the requests land in a footprint of `footprint_bytes` starting at offset 0,
//! and how they arrive in time. The language is meant to build look-alikes of
//! published block traces (MSR Cambridge, UMass Financial and WebSearch,
//! Microsoft production servers, SYSTOR '17, ...): measured size histograms or
//! lognormal sizes, skewed popularity, interleaved sequential streams,
//! separate read and write locality, and bursty arrivals.
//!
//! # The language
//!
//! Profiles are TOML. The smallest useful profile:
//!
//! ```toml
//! name = "demo"
//! seed = 1
//! requests = 200000
//! read_share = 0.3
//! footprint_bytes = 2147483648
//! page_bytes = 4096                              # default 4096
//! read_size = { uniform = [4096, 16384] }        # or { fixed = [4096, 8192], weights = [3, 1] }
//! write_size = { uniform = [4096, 32768] }
//! address = { kind = "hot-cold", hot_fraction = 0.2, hot_share = 0.8 }
//! arrival = { kind = "poisson", iops = 300.0 }
//! ```
//!
//! A profile using every feature (the numbers are illustrative, not those of
//! any real trace):
//!
//! ```toml
//! name = "server-look-alike"
//! seed = 7
//! duration_s = 600                     # instead of `requests`
//! read_share = 0.65
//! footprint_bytes = 17179869184        # 16 GiB
//! read_size = { empirical = [[4096, 55], [8192, 15], [16384, 10], [65536, 20]] }
//! write_size = { lognormal = { mean = 12288, sigma = 1.0, max = 1048576 } }
//! address = { kind = "zipf", theta = 0.9 }
//! write_address = { kind = "hot-cold", hot_fraction = 0.1, hot_share = 0.7, sequential = { share = 0.4, streams = 4, run_requests = 256 } }
//! arrival = { kind = "on-off", on_iops = 4000, off_iops = 150, on_ms = 40, off_ms = 160 }
//! ```
//!
//! ## Keys
//!
//! | key | value |
//! |-----|-------|
//! | `name` | string shown in summaries (required) |
//! | `seed` | integer seed of the random stream (required); same seed, same requests |
//! | `requests` | number of requests, ≥ 1 |
//! | `duration_s` | seconds of arrivals, > 0; give exactly one of `requests` and `duration_s` |
//! | `read_share` | probability that a request is a read, in \[0, 1\] (required) |
//! | `footprint_bytes` | size of the address range used, starting at offset 0 (required) |
//! | `page_bytes` | alignment unit of offsets and of `uniform` / `lognormal` sizes (default 4096) |
//! | `read_size`, `write_size` | size distribution of reads / writes ([sizes](#request-sizes)); each is required unless that direction never occurs (`read_share` 0 or 1) |
//! | `address` | address model of every request ([addresses](#addresses), required) |
//! | `read_address`, `write_address` | optional address models of reads / writes, overriding `address` for that direction |
//! | `arrival` | arrival process ([arrivals](#arrivals), required) |
//!
//! Unknown keys are errors. Every error is an [`Error::Config`] naming the
//! dotted field it is about (`write_size.lognormal.sigma`,
//! `write_address.sequential.share`, `arrival.on_ms`, ...).
//!
//! ## Request sizes
//!
//! `read_size` and `write_size` are tables with exactly one of:
//!
//! - `fixed = [bytes, ...]`, optionally with `weights = [w, ...]` (one
//!   finite weight ≥ 0 per size, positive sum; equal weights if left out): one
//!   of the listed sizes, with probability proportional to its weight;
//! - `empirical = [[bytes, weight], ...]`: a measured histogram, exactly the
//!   same distribution — and the same random draws — as `fixed` with the
//!   sizes and `weights` listed separately. Sizes need not be multiples of
//!   `page_bytes` in either form;
//! - `uniform = [min, max]`: uniform over the multiples of `page_bytes` in
//!   \[min, max\] (there must be at least one);
//! - `lognormal = { mean = bytes, sigma = s, max = bytes }` (`max` optional):
//!   a lognormal size of the given mean and log-spread, rounded up to whole
//!   pages and clamped to \[`page_bytes`, `max`\] (described next).
//!
//! ### Lognormal sizes
//!
//! A draw is `Y = exp(μ + sigma·Z)` bytes with Z standard normal; the size is
//! `ceil(Y / page_bytes)` pages, at least 1 page and at most `K = max /
//! page_bytes` pages (`max` rounded down to a page; without `max` the
//! footprint takes its place). `sigma` is the standard deviation of ln Y and
//! must be in \[0.01, 4\]; `mean` must lie strictly between `page_bytes` and
//! `K · page_bytes`.
//!
//! **`mean` is the mean of the sizes actually generated**, after rounding and
//! clamping. For a plain lognormal `μ = ln(mean) − sigma²/2` would do, but
//! rounding up adds about half a page on average (exactly `page_bytes ·
//! E[ceil(Y/p) − Y/p]`, which is ½ page when Y spreads over many pages and
//! more when Y is often below one page, since those draws are lifted to a
//! whole page), and clamping at `max` removes `E[(Y − K·p)⁺]`-ish mass from the
//! top. With `mean = 12288, sigma = 1` and 4 KiB pages, the plain choice of μ
//! would give a mean of 14 336 bytes, 17 % too much. So the generator solves
//! for μ instead: with `p = page_bytes`, the mean of the generated sizes is
//! exactly
//!
//! ```text
//! E[size] = p · (1 + Σ_{k=1}^{K−1} P(Y > k·p)) = p · (1 + Σ_{k=1}^{K−1} Q((ln(k·p) − μ) / sigma))
//! ```
//!
//! (Q the standard normal upper tail), which rises continuously from `p` to
//! `K·p` as μ grows; μ is found by bisection to about 1e−12. The sum is
//! evaluated term by term for k ≤ max(64, 10/sigma) and by the
//! Euler–Maclaurin formula, with the integral in closed form, beyond — in
//! O(1) time whatever K, to about 1e−11, with this module's own
//! `ln`/`exp`/`erfc`, so it is the same on every platform.
//! [`LogNormal::expected_mean`] returns that exact mean (which equals `mean`
//! to ~1e−9), [`LogNormal::location`] the solved μ,
//! [`rounded_lognormal_mean`] the exact mean for any μ you choose yourself
//! (for instance to see the shift of the plain choice), and
//! [`Profile::mean_size`] the exact mean of a profile's reads or writes. When
//! `mean` is within a page or so of `page_bytes` (or of the largest size),
//! most sizes are one page (or the largest) and the spread is smaller than
//! `sigma` suggests.
//!
//! ## Addresses
//!
//! `address` (and `read_address` / `write_address`) is a table with a `kind`:
//!
//! - `{ kind = "uniform" }`: every page of the `pages = footprint_bytes /
//!   page_bytes` page slots equally likely;
//! - `{ kind = "zipf", theta = t }` (t > 0): popularity rank k (1 = most
//!   popular) with probability proportional to 1/k^t;
//! - `{ kind = "hot-cold", hot_fraction = f, hot_share = s }` (both in (0,
//!   1)): a rank among the first `hot = round(f · pages)` ranks with
//!   probability s and among the others otherwise, uniformly within each group.
//!
//! A rank is turned into a page by the [`Scatter`] permutation (keyed by the
//! seed), so popular pages are spread over the whole footprint rather than
//! packed at its start. Every model of a profile uses the same permutation:
//! with `read_address` and `write_address` both skewed, reads and writes are
//! hot on the same pages.
//!
//! `read_address` replaces `address` for reads, `write_address` for writes;
//! each model given keeps its own sequential streams (below).
//!
//! ### Sequential streams
//!
//! Any model may add `sequential = { share = s, streams = n, run_requests =
//! r }` (`streams` default 1, at most 65 536; `run_requests` optional), making
//! it a mixture of the base model above and `n` sequential streams:
//!
//! - a request goes to a stream with probability `s` (in (0, 1]), the stream
//!   chosen uniformly; the others draw their start from the base model;
//! - a stream request *continues* its stream — it starts exactly at the byte
//!   where the stream's previous request ended — unless the stream must
//!   restart: it has not started yet, or its run ends here (with probability
//!   `1/r` when `run_requests = r` is given (r ≥ 1), so runs last r requests
//!   on average, geometrically distributed; never otherwise), or the request
//!   would run past the end of the footprint. A restarting request starts at a
//!   fresh location drawn from the base model, and the stream goes on from its
//!   end.
//!
//! So the share of requests that start exactly where an earlier request
//! ended is `s · (1 − 1/r)` (`s` without `run_requests`), less the `n` stream
//! starts and the restarts at the footprint's end (rare unless the footprint
//! is small: a stream restarts when it reaches the end). To get a measured
//! sequential fraction `f` with runs of `r` requests, use `s = f / (1 − 1/r)`.
//! Continuations are page-aligned when sizes are multiples of `page_bytes`
//! (`uniform` and `lognormal` sizes always are); a continuation of a 512-byte
//! `fixed` request starts 512 bytes on. Memory is O(streams), whatever the
//! footprint.
//!
//! ## Arrivals
//!
//! `arrival` is a table with a `kind`:
//!
//! - `{ kind = "poisson", iops = λ }`: exponential gaps of mean `1e9 / λ` ns;
//! - `{ kind = "on-off", on_iops = λ₁, off_iops = λ₀, on_ms = a, off_ms = b }`:
//!   a Markov-modulated Poisson process. Time alternates between on and off
//!   periods whose lengths are exponential with means `a` and `b`
//!   milliseconds (each ≥ 0.01); during an on period requests arrive as a
//!   Poisson process of rate λ₁ > 0, during an off period of rate λ₀ ≥ 0
//!   (0: silence). The process starts in its stationary state: on with
//!   probability a/(a + b). Its long-run mean rate
//!   ([`Arrival::mean_iops`]) is `(λ₁·a + λ₀·b) / (a + b)`; the gaps between
//!   requests have a coefficient of variation above 1 (bursty) whenever
//!   λ₁ ≠ λ₀.
//!
//! ## Length
//!
//! With `requests = n` the stream has exactly n requests. With `duration_s =
//! d` it has every request arriving at or before `d` seconds (arrival times in
//! whole nanoseconds, `d · 1e9` rounded down): it stops at the first arrival
//! later than that, which is not generated. The first requests of a
//! `duration_s` profile are those of the same profile with `requests`.
//!
//! # How a request is drawn
//!
//! All randomness comes from one `Xoshiro256PlusPlus` seeded with
//! `seed_from_u64(seed)`. For each request, in this order:
//!
//! 1. the direction: a read if a uniform draw in \[0, 1) is below `read_share`;
//! 2. the size, from that direction's distribution: `fixed` / `empirical`
//!    draw one uniform (none if there is one size); `uniform` draws one
//!    integer; `lognormal` draws normal deviates by Marsaglia's polar method
//!    (pairs of uniforms until one falls inside the unit disc; one deviate is
//!    used per size);
//! 3. the start, from that direction's address model: with `sequential`, one
//!    uniform decides stream or not, then an integer picks the stream, then
//!    (for a running stream, when `run_requests` is set) one uniform decides
//!    whether the run ends; a request that neither continues a stream nor
//!    goes to one draws a page from the base model (one integer for
//!    `uniform`, the rejection-inversion draws for `zipf`, one uniform and one
//!    integer for `hot-cold`);
//! 4. the offset is `page * page_bytes` (or the stream's position); a request
//!    drawn from the base model that would run past the end of the footprint
//!    is moved down to the last page-aligned offset where it fits, so requests
//!    never cross the footprint's end;
//! 5. the arrival time: for Poisson one exponential gap `−ln(1 − U) · 1e9/λ`
//!    ns; for on-off, at the first request one uniform picks the initial
//!    phase and one exponential its length, then exponential gaps at the
//!    current phase's rate, each period boundary crossed discarding the gap
//!    (memorylessness makes this exact) and drawing the next period's length.
//!    Times are accumulated from 0 in floating point (the first request
//!    arrives after one gap) and rounded down to whole nanoseconds.
//!
//! A profile without the newer features (`empirical`, `lognormal`,
//! `sequential`, `read_address` / `write_address`, `on-off`, `duration_s`)
//! draws exactly as it always has, so its stream is unchanged.
//!
//! The stream is the same on every platform: random numbers come from the
//! integer generator only, integer ranges use Lemire's multiply-and-reject
//! method, and the transcendental functions needed (`ln`, `exp`, `erfc`) are
//! computed here with basic IEEE arithmetic rather than the platform's libm,
//! whose last-bit results differ between systems. Zipf ranks are drawn by
//! rejection-inversion (Hörmann & Derflinger, 1996) in O(1) time and memory
//! whatever the footprint.
//!
//! # Building a look-alike
//!
//! From a trace's published characterisation (or your own statistics of it):
//! the read ratio gives `read_share`; the per-direction size histograms give
//! `empirical` sizes (or mean and log-spread give `lognormal`); the working
//! set gives `footprint_bytes`; the popularity skew gives a `zipf` theta or a
//! `hot-cold` split, separately for reads and writes if they differ; the
//! fraction of requests starting where a recent one ended gives
//! `sequential.share` (see above for `run_requests`); the mean IOPS and its
//! burstiness give `on-off` parameters whose long-run mean is the trace's.
//!
//! # In Rust
//!
//! [`Profile`] keeps the fields it has always had. The TOML keys added later
//! live in enum variants rather than new fields, so that code building
//! profiles with struct literals keeps compiling: `read_address` /
//! `write_address` make `address` an [`Address::PerOp`], `sequential` wraps
//! the base model in [`Address::Sequential`], and `duration_s` wraps the
//! arrival process in [`Arrival::Until`] (with `requests` 0). The helpers
//! [`Address::with_sequential`], [`Address::per_op`], [`Arrival::until`],
//! [`Profile::duration_s`] and [`Profile::request_limit`] hide the encoding.

use std::path::Path;

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Deserializer, Serialize};

use super::{IoRecord, Op};
use crate::error::{Error, Result};

/// Default alignment unit of request offsets.
pub const DEFAULT_PAGE_BYTES: u64 = 4096;

/// Largest footprint accepted (the trace readers' address limit).
pub const MAX_FOOTPRINT_BYTES: u64 = 1 << 63;

/// Most sequential streams an address model may have.
pub const MAX_STREAMS: u32 = 65_536;

/// Smallest `sigma` of a lognormal size distribution.
pub const MIN_LOGNORMAL_SIGMA: f64 = 0.01;

/// Largest `sigma` of a lognormal size distribution.
pub const MAX_LOGNORMAL_SIGMA: f64 = 4.0;

/// Shortest mean on or off period of on-off arrivals, in milliseconds.
pub const MIN_PERIOD_MS: f64 = 0.01;

fn default_page_bytes() -> u64 {
    DEFAULT_PAGE_BYTES
}

/// A synthetic workload: see the [module documentation](self) for the
/// meaning of every field and the TOML form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "ProfileSpec", into = "ProfileSpec")]
pub struct Profile {
    /// Name shown in summaries.
    pub name: String,
    /// Seed of the random stream; same seed, same requests.
    pub seed: u64,
    /// Number of requests generated (at least 1), or 0 when the stream is
    /// bounded by time instead (TOML `duration_s`, kept in
    /// [`Arrival::Until`]).
    pub requests: u64,
    /// Probability that a request is a read, in \[0, 1\].
    pub read_share: f64,
    /// Size of the address range used, starting at offset 0.
    pub footprint_bytes: u64,
    /// Alignment unit of offsets (and of `uniform` and `lognormal` sizes);
    /// default 4096.
    pub page_bytes: u64,
    /// Size distribution of reads; required unless `read_share` is 0.
    pub read_size: Option<SizeDist>,
    /// Size distribution of writes; required unless `read_share` is 1.
    pub write_size: Option<SizeDist>,
    /// Where requests land; TOML `read_address` / `write_address` make it an
    /// [`Address::PerOp`].
    pub address: Address,
    /// When requests arrive; TOML `duration_s` makes it an
    /// [`Arrival::Until`].
    pub arrival: Arrival,
}

/// The TOML form of [`Profile`]: the keys the language has, which the Rust
/// type folds into its enums (see [In Rust](self#in-rust)).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileSpec {
    name: String,
    seed: u64,
    #[serde(
        default,
        skip_serializing_if = "is_zero",
        deserialize_with = "positive_requests"
    )]
    requests: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    duration_s: Option<f64>,
    read_share: f64,
    footprint_bytes: u64,
    #[serde(default = "default_page_bytes")]
    page_bytes: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    read_size: Option<SizeDist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    write_size: Option<SizeDist>,
    address: Address,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    read_address: Option<Address>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    write_address: Option<Address>,
    arrival: Arrival,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `requests` as written in TOML: 0 is refused there (leave the key out to
/// bound the stream by `duration_s`).
fn positive_requests<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<u64, D::Error> {
    let n = u64::deserialize(d)?;
    if n == 0 {
        return Err(serde::de::Error::custom(
            "must be at least 1 (to bound the stream by time, leave `requests` out and give `duration_s`)",
        ));
    }
    Ok(n)
}

impl From<ProfileSpec> for Profile {
    fn from(s: ProfileSpec) -> Profile {
        let address = if s.read_address.is_some() || s.write_address.is_some() {
            Address::PerOp {
                address: Box::new(s.address),
                read: s.read_address.map(Box::new),
                write: s.write_address.map(Box::new),
            }
        } else {
            s.address
        };
        let arrival = match s.duration_s {
            Some(duration_s) => s.arrival.until(duration_s),
            None => s.arrival,
        };
        Profile {
            name: s.name,
            seed: s.seed,
            requests: s.requests,
            read_share: s.read_share,
            footprint_bytes: s.footprint_bytes,
            page_bytes: s.page_bytes,
            read_size: s.read_size,
            write_size: s.write_size,
            address,
            arrival,
        }
    }
}

impl From<Profile> for ProfileSpec {
    fn from(p: Profile) -> ProfileSpec {
        let (address, read_address, write_address) = match p.address {
            Address::PerOp {
                address,
                read,
                write,
            } => (*address, read.map(|a| *a), write.map(|a| *a)),
            a => (a, None, None),
        };
        let (arrival, duration_s) = match p.arrival {
            Arrival::Until {
                duration_s,
                process,
            } => (*process, Some(duration_s)),
            a => (a, None),
        };
        ProfileSpec {
            name: p.name,
            seed: p.seed,
            requests: p.requests,
            duration_s,
            read_share: p.read_share,
            footprint_bytes: p.footprint_bytes,
            page_bytes: p.page_bytes,
            read_size: p.read_size,
            write_size: p.write_size,
            address,
            read_address,
            write_address,
            arrival,
        }
    }
}

/// A request-size distribution: exactly one of `fixed` (with optional
/// `weights`), `empirical`, `uniform` or `lognormal`; see
/// [request sizes](self#request-sizes).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeDist {
    /// Sizes in bytes, each > 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed: Option<Vec<u64>>,
    /// Relative weights of the `fixed` sizes (same length; default equal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<Vec<f64>>,
    /// `[min, max]` bytes: uniform over the multiples of `page_bytes` in the
    /// range (which must contain at least one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uniform: Option<[u64; 2]>,
    /// `(bytes, weight)` pairs: the same distribution (and random draws) as
    /// `fixed` with these sizes and `weights`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empirical: Option<Vec<(u64, f64)>>,
    /// Lognormal sizes of a given mean, rounded up to whole pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lognormal: Option<LogNormal>,
}

/// Lognormal request sizes: see [lognormal sizes](self#lognormal-sizes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogNormal {
    /// Mean of the generated sizes in bytes (after rounding and clamping),
    /// strictly between `page_bytes` and the largest size.
    pub mean: f64,
    /// Standard deviation of the natural log of the size before rounding,
    /// in \[0.01, 4\].
    pub sigma: f64,
    /// Largest size in bytes (rounded down to a page, at least one page);
    /// the footprint when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u64>,
}

impl LogNormal {
    /// Largest size in pages: `max` (or `cap_bytes` without it) in whole pages.
    fn max_pages(&self, page_bytes: u64, cap_bytes: u64) -> u64 {
        self.max
            .unwrap_or(cap_bytes)
            .min(MAX_FOOTPRINT_BYTES)
            .checked_div(page_bytes)
            .unwrap_or(0)
    }

    /// μ, the mean of ln(size in bytes) before rounding, solved so that the
    /// generated sizes have mean `mean`; `cap_bytes` stands for `max` when
    /// it is not given (a profile uses its footprint). NaN if the parameters
    /// are invalid.
    pub fn location(&self, page_bytes: u64, cap_bytes: u64) -> f64 {
        let k_max = self.max_pages(page_bytes, cap_bytes);
        if !self.feasible(page_bytes, k_max) {
            return f64::NAN;
        }
        solve_location(self.mean / page_bytes as f64, self.sigma, k_max)
            + dmath::ln(page_bytes as f64)
    }

    /// The exact mean of the generated sizes in bytes (equal to `mean` up to
    /// ~1e−9 relative): see [`rounded_lognormal_mean`]. NaN if invalid.
    pub fn expected_mean(&self, page_bytes: u64, cap_bytes: u64) -> f64 {
        let mu = self.location(page_bytes, cap_bytes);
        if mu.is_nan() {
            return f64::NAN;
        }
        rounded_lognormal_mean(
            mu,
            self.sigma,
            page_bytes,
            self.max_pages(page_bytes, cap_bytes) * page_bytes,
        )
    }

    fn feasible(&self, page_bytes: u64, k_max: u64) -> bool {
        page_bytes > 0
            && k_max >= 1
            && (MIN_LOGNORMAL_SIGMA..=MAX_LOGNORMAL_SIGMA).contains(&self.sigma)
            && self.mean > page_bytes as f64
            && self.mean < (k_max as f64) * page_bytes as f64
    }
}

/// The exact mean, in bytes, of `clamp(ceil(Y / p), 1, K) · p` with
/// `Y = exp(mu + sigma·Z)` bytes, Z standard normal, `p = page_bytes` and
/// `K = max_bytes / p`: that is
/// `p · (1 + Σ_{k=1}^{K−1} Q((ln(k·p) − mu) / sigma))`, evaluated
/// deterministically in O(1) time (see
/// [lognormal sizes](self#lognormal-sizes)). NaN unless `page_bytes > 0`,
/// `max_bytes >= page_bytes` and `sigma > 0`.
pub fn rounded_lognormal_mean(mu: f64, sigma: f64, page_bytes: u64, max_bytes: u64) -> f64 {
    let k_max = max_bytes.checked_div(page_bytes).unwrap_or(0);
    if k_max == 0 || !(sigma > 0.0 && sigma.is_finite()) || !mu.is_finite() {
        return f64::NAN;
    }
    let p = page_bytes as f64;
    p * rounded_mean_pages(mu - dmath::ln(p), sigma, k_max)
}

impl SizeDist {
    /// Always `bytes`.
    pub fn constant(bytes: u64) -> SizeDist {
        SizeDist {
            fixed: Some(vec![bytes]),
            ..SizeDist::default()
        }
    }

    /// One of `sizes`, equally likely.
    pub fn fixed(sizes: Vec<u64>) -> SizeDist {
        SizeDist {
            fixed: Some(sizes),
            ..SizeDist::default()
        }
    }

    /// One of `sizes`, with probabilities proportional to `weights`.
    pub fn weighted(sizes: Vec<u64>, weights: Vec<f64>) -> SizeDist {
        SizeDist {
            fixed: Some(sizes),
            weights: Some(weights),
            ..SizeDist::default()
        }
    }

    /// A measured histogram: `(bytes, weight)` pairs (same as
    /// [`weighted`](Self::weighted)).
    pub fn empirical(pairs: Vec<(u64, f64)>) -> SizeDist {
        SizeDist {
            empirical: Some(pairs),
            ..SizeDist::default()
        }
    }

    /// Uniform over the multiples of the page size in `[min, max]`.
    pub fn uniform(min: u64, max: u64) -> SizeDist {
        SizeDist {
            uniform: Some([min, max]),
            ..SizeDist::default()
        }
    }

    /// Lognormal sizes of mean `mean` bytes (after rounding up to pages),
    /// log-spread `sigma`, at most `max` bytes (the footprint if None).
    pub fn lognormal(mean: f64, sigma: f64, max: Option<u64>) -> SizeDist {
        SizeDist {
            lognormal: Some(LogNormal { mean, sigma, max }),
            ..SizeDist::default()
        }
    }

    /// Check the distribution; `field` names it in errors (e.g. `read_size`).
    /// A `lognormal` without `max` is checked as if the footprint were 2^63
    /// bytes ([`Profile::validate`] checks it against the real footprint).
    pub fn validate(&self, origin: &str, field: &str, page_bytes: u64) -> Result<()> {
        self.compile(page_bytes, MAX_FOOTPRINT_BYTES, false)
            .map(|_| ())
            .map_err(|(sub, msg)| Error::config(origin, sub_field(field, sub), msg))
    }

    /// Mean request size in bytes (for a valid distribution; NaN otherwise),
    /// exact: for `lognormal` this is the mean after rounding and clamping
    /// (equal to its `mean` up to ~1e−9), without `max` as if the footprint
    /// were 2^63 bytes — [`Profile::mean_size`] uses the real footprint.
    pub fn mean(&self, page_bytes: u64) -> f64 {
        match self.compile(page_bytes, MAX_FOOTPRINT_BYTES, true) {
            Ok(s) => s.mean(),
            Err(_) => f64::NAN,
        }
    }

    /// Largest size the distribution can produce (0 if invalid); for a
    /// `lognormal` without `max`, the largest whole-page size below 2^63.
    pub fn max_bytes(&self, page_bytes: u64) -> u64 {
        match self.compile(page_bytes, MAX_FOOTPRINT_BYTES, false) {
            Ok(s) => s.max(),
            Err(_) => 0,
        }
    }

    /// The sampler, or (sub-field, message) explaining why not. A
    /// `lognormal` without `max` is capped at `cap_bytes`; its location is
    /// solved only if `solve` (otherwise NaN: the sampler is for checks).
    fn compile(
        &self,
        page_bytes: u64,
        cap_bytes: u64,
        solve: bool,
    ) -> std::result::Result<SizeSampler, (&'static str, String)> {
        let given: Vec<&str> = [
            ("fixed", self.fixed.is_some()),
            ("uniform", self.uniform.is_some()),
            ("empirical", self.empirical.is_some()),
            ("lognormal", self.lognormal.is_some()),
        ]
        .iter()
        .filter(|(_, g)| *g)
        .map(|(n, _)| *n)
        .collect();
        if given.len() > 1 {
            return Err((
                "",
                format!(
                    "give only one of `fixed`, `empirical`, `uniform` and `lognormal` (found `{}`)",
                    given.join("` and `")
                ),
            ));
        }
        if given.is_empty() {
            return Err((
                "",
                "give `fixed = [bytes, ...]` (optionally with `weights`), `empirical = [[bytes, weight], ...]`, \
                 `uniform = [min, max]` or `lognormal = { mean = bytes, sigma = s }`"
                    .into(),
            ));
        }
        if self.weights.is_some() && self.fixed.is_none() {
            return Err((
                "weights",
                format!("`weights` go with `fixed` sizes, not `{}`", given[0]),
            ));
        }
        if let Some(sizes) = &self.fixed {
            return fixed_sampler(sizes, self.weights.as_deref(), "fixed", "weights");
        }
        if let Some(pairs) = &self.empirical {
            let sizes: Vec<u64> = pairs.iter().map(|p| p.0).collect();
            let weights: Vec<f64> = pairs.iter().map(|p| p.1).collect();
            return fixed_sampler(&sizes, Some(&weights), "empirical", "empirical");
        }
        if let Some(ln) = &self.lognormal {
            return lognormal_sampler(ln, page_bytes, cap_bytes, solve);
        }
        let Some([min, max]) = self.uniform else {
            unreachable!("one distribution is given")
        };
        if min == 0 {
            return Err((
                "uniform",
                "the minimum size is 0; sizes must be positive".into(),
            ));
        }
        if min > max {
            return Err(("uniform", format!("min {min} is larger than max {max}")));
        }
        if page_bytes == 0 {
            return Err(("uniform", "page_bytes is 0".into()));
        }
        let lo = min.div_ceil(page_bytes);
        let hi = max / page_bytes;
        if lo > hi {
            return Err((
                "uniform",
                format!("[{min}, {max}] contains no multiple of page_bytes ({page_bytes})"),
            ));
        }
        match hi.checked_mul(page_bytes) {
            Some(v) if v <= MAX_FOOTPRINT_BYTES => {}
            _ => return Err(("uniform", format!("max {max} is larger than 2^63 bytes"))),
        }
        Ok(SizeSampler::Pages {
            lo,
            span: hi - lo + 1,
            page_bytes,
        })
    }
}

/// `field.sub`, or `field` when `sub` is empty.
fn sub_field(field: &str, sub: &str) -> String {
    if sub.is_empty() {
        field.to_string()
    } else {
        format!("{field}.{sub}")
    }
}

/// The sampler of `fixed` sizes (or `empirical` pairs), errors naming
/// `size_field` / `weight_field`.
fn fixed_sampler(
    sizes: &[u64],
    weights: Option<&[f64]>,
    size_field: &'static str,
    weight_field: &'static str,
) -> std::result::Result<SizeSampler, (&'static str, String)> {
    if sizes.is_empty() {
        return Err((size_field, "the list of sizes is empty".into()));
    }
    if let Some(i) = sizes.iter().position(|&s| s == 0) {
        return Err((
            size_field,
            format!("size #{} is 0; sizes must be positive", i + 1),
        ));
    }
    if let Some(&s) = sizes.iter().find(|&&s| s > MAX_FOOTPRINT_BYTES) {
        return Err((size_field, format!("size {s} is larger than 2^63 bytes")));
    }
    let weights = match weights {
        None => vec![1.0; sizes.len()],
        Some(w) => {
            if w.len() != sizes.len() {
                return Err((
                    weight_field,
                    format!(
                        "{} weights for {} sizes; give one weight per size",
                        w.len(),
                        sizes.len()
                    ),
                ));
            }
            if let Some(x) = w.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
                return Err((
                    weight_field,
                    format!("weight {x} is not a finite number >= 0"),
                ));
            }
            w.to_vec()
        }
    };
    let mut cumulative = Vec::with_capacity(weights.len());
    let mut total = 0.0;
    for w in &weights {
        total += w;
        cumulative.push(total);
    }
    if !(total > 0.0 && total.is_finite()) {
        return Err((
            weight_field,
            "the weights must have a positive, finite sum".into(),
        ));
    }
    Ok(SizeSampler::Fixed {
        sizes: sizes.to_vec(),
        cumulative,
        total,
    })
}

/// The sampler of a `lognormal` distribution (see [`SizeDist::compile`]).
fn lognormal_sampler(
    ln: &LogNormal,
    page_bytes: u64,
    cap_bytes: u64,
    solve: bool,
) -> std::result::Result<SizeSampler, (&'static str, String)> {
    if page_bytes == 0 {
        return Err(("lognormal", "page_bytes is 0".into()));
    }
    if !(MIN_LOGNORMAL_SIGMA..=MAX_LOGNORMAL_SIGMA).contains(&ln.sigma) {
        return Err((
            "lognormal.sigma",
            format!(
                "{} is not in [{MIN_LOGNORMAL_SIGMA}, {MAX_LOGNORMAL_SIGMA}]",
                ln.sigma
            ),
        ));
    }
    if let Some(m) = ln.max {
        if m < page_bytes {
            return Err((
                "lognormal.max",
                format!("{m} is smaller than one page ({page_bytes} bytes)"),
            ));
        }
        if m > MAX_FOOTPRINT_BYTES {
            return Err(("lognormal.max", format!("{m} is larger than 2^63 bytes")));
        }
    }
    let k_max = ln.max_pages(page_bytes, cap_bytes);
    let top = k_max.saturating_mul(page_bytes);
    if !ln.feasible(page_bytes, k_max) {
        let what = if ln.max.is_some() {
            "`max` in whole pages"
        } else {
            "the footprint in whole pages"
        };
        return Err((
            "lognormal.mean",
            format!(
                "{} is not strictly between page_bytes ({page_bytes}) and the largest size ({top} bytes, {what})",
                ln.mean
            ),
        ));
    }
    let loc = if solve {
        solve_location(ln.mean / page_bytes as f64, ln.sigma, k_max)
    } else {
        f64::NAN
    };
    Ok(SizeSampler::LogNormal {
        loc,
        sigma: ln.sigma,
        k_max,
        page_bytes,
    })
}

/// Address model: which page of the footprint a request starts at.
///
/// In TOML a table with a `kind` (`uniform`, `zipf` or `hot-cold`), the
/// parameters of that kind and optionally a `sequential` table; see
/// [addresses](self#addresses).
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
    /// [sequential streams](self#sequential-streams).
    Sequential {
        /// The model of non-stream requests and of stream restarts:
        /// `Uniform`, `Zipf` or `HotCold`.
        base: Box<Address>,
        /// Probability that a request goes to a stream, in (0, 1].
        share: f64,
        /// Number of streams, 1 to [`MAX_STREAMS`].
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

    /// The model requests of direction `op` use.
    pub fn for_op(&self, op: Op) -> &Address {
        match self {
            Address::PerOp {
                address,
                read,
                write,
            } => match op {
                Op::Read => read.as_deref().unwrap_or(address),
                Op::Write => write.as_deref().unwrap_or(address),
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

/// Arrival process.
///
/// In TOML a table with a `kind` (`poisson` or `on-off`) and its parameters;
/// see [arrivals](self#arrivals).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ModelSpec", into = "ModelSpec")]
pub enum Arrival {
    /// Exponential inter-arrival times with mean `1 / iops` seconds.
    Poisson {
        /// Mean arrival rate, requests per second, > 0.
        iops: f64,
    },
    /// Alternating on and off periods of exponential lengths, Poisson
    /// arrivals at a rate per period kind (a two-state Markov-modulated
    /// Poisson process).
    OnOff {
        /// Arrival rate during on periods, requests per second, > 0.
        on_iops: f64,
        /// Arrival rate during off periods, ≥ 0.
        off_iops: f64,
        /// Mean length of an on period in milliseconds, ≥ 0.01.
        on_ms: f64,
        /// Mean length of an off period in milliseconds, ≥ 0.01.
        off_ms: f64,
    },
    /// `process`, with the stream ending at `duration_s` seconds (TOML: a
    /// top-level `duration_s`, with `requests` left out). Only as a
    /// profile's `arrival`, with `requests` 0.
    Until {
        /// Length of the stream in seconds, > 0.
        duration_s: f64,
        /// The arrival process (not `Until`).
        process: Box<Arrival>,
    },
}

impl Arrival {
    /// The long-run mean arrival rate in requests per second: `iops`, or
    /// `(on_iops·on_ms + off_iops·off_ms) / (on_ms + off_ms)`.
    pub fn mean_iops(&self) -> f64 {
        match self {
            Arrival::Poisson { iops } => *iops,
            Arrival::OnOff {
                on_iops,
                off_iops,
                on_ms,
                off_ms,
            } => (on_iops * on_ms + off_iops * off_ms) / (on_ms + off_ms),
            Arrival::Until { process, .. } => process.mean_iops(),
        }
    }

    /// This process, ending the stream at `duration_s` seconds.
    pub fn until(self, duration_s: f64) -> Arrival {
        Arrival::Until {
            duration_s,
            process: Box::new(self),
        }
    }

    /// The duration of an `Until`.
    pub fn duration_s(&self) -> Option<f64> {
        match self {
            Arrival::Until { duration_s, .. } => Some(*duration_s),
            _ => None,
        }
    }

    /// The process itself, without any `Until`.
    pub fn process(&self) -> &Arrival {
        match self {
            Arrival::Until { process, .. } => process.process(),
            a => a,
        }
    }
}

/// The TOML form of [`Address`] and [`Arrival`]: a flat table, so that a
/// badly typed parameter is reported at its own key (serde's tagged enums
/// report errors at the table only).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelSpec {
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    theta: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hot_fraction: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hot_share: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    iops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    on_iops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    off_iops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    on_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    off_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sequential: Option<SequentialSpec>,
}

/// The TOML form of the sequential part of [`Address::Sequential`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SequentialSpec {
    share: f64,
    #[serde(default = "one_stream")]
    streams: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    run_requests: Option<f64>,
}

fn one_stream() -> u32 {
    1
}

impl ModelSpec {
    /// The values of the parameters `wanted` for this kind (one of
    /// `known`): an error names a missing parameter or one set that does not
    /// apply.
    fn take<const N: usize>(
        &self,
        table: &str,
        known: &[&str],
        wanted: [&str; N],
    ) -> std::result::Result<[f64; N], String> {
        let all = [
            ("theta", self.theta),
            ("hot_fraction", self.hot_fraction),
            ("hot_share", self.hot_share),
            ("iops", self.iops),
            ("on_iops", self.on_iops),
            ("off_iops", self.off_iops),
            ("on_ms", self.on_ms),
            ("off_ms", self.off_ms),
        ];
        if !known.contains(&self.kind.as_str()) {
            return Err(format!(
                "{table}.kind: unknown kind `{}`; known kinds: {}",
                self.kind,
                known.join(", ")
            ));
        }
        let mut out = [0.0; N];
        for (name, value) in all {
            match (wanted.iter().position(|w| *w == name), value) {
                (Some(i), Some(v)) => out[i] = v,
                (Some(_), None) => {
                    return Err(format!(
                        "{table}.{name}: kind `{}` needs `{name}`",
                        self.kind
                    ))
                }
                (None, Some(_)) => {
                    return Err(format!(
                        "{table}.{name}: `{name}` does not apply to kind `{}`",
                        self.kind
                    ))
                }
                (None, None) => {}
            }
        }
        Ok(out)
    }
}

impl TryFrom<ModelSpec> for Address {
    type Error = String;
    fn try_from(s: ModelSpec) -> std::result::Result<Address, String> {
        const KINDS: &[&str] = &["uniform", "zipf", "hot-cold"];
        let base = match s.kind.as_str() {
            "zipf" => {
                let [theta] = s.take("address", KINDS, ["theta"])?;
                Address::Zipf { theta }
            }
            "hot-cold" => {
                let [hot_fraction, hot_share] =
                    s.take("address", KINDS, ["hot_fraction", "hot_share"])?;
                Address::HotCold {
                    hot_fraction,
                    hot_share,
                }
            }
            _ => {
                s.take("address", KINDS, [])?;
                Address::Uniform
            }
        };
        Ok(match s.sequential {
            None => base,
            Some(q) => base.with_sequential(q.share, q.streams, q.run_requests),
        })
    }
}

impl From<Address> for ModelSpec {
    fn from(a: Address) -> ModelSpec {
        match a {
            Address::Uniform => ModelSpec {
                kind: "uniform".into(),
                ..ModelSpec::default()
            },
            Address::Zipf { theta } => ModelSpec {
                kind: "zipf".into(),
                theta: Some(theta),
                ..ModelSpec::default()
            },
            Address::HotCold {
                hot_fraction,
                hot_share,
            } => ModelSpec {
                kind: "hot-cold".into(),
                hot_fraction: Some(hot_fraction),
                hot_share: Some(hot_share),
                ..ModelSpec::default()
            },
            Address::Sequential {
                base,
                share,
                streams,
                run_requests,
            } => ModelSpec {
                sequential: Some(SequentialSpec {
                    share,
                    streams,
                    run_requests,
                }),
                ..ModelSpec::from(*base)
            },
            // not representable in a model table: only valid at the top
            // level, which ProfileSpec unpacks (to_toml refuses the rest)
            Address::PerOp { address, .. } => ModelSpec::from(*address),
        }
    }
}

impl TryFrom<ModelSpec> for Arrival {
    type Error = String;
    fn try_from(s: ModelSpec) -> std::result::Result<Arrival, String> {
        const KINDS: &[&str] = &["poisson", "on-off"];
        let arrival = if s.kind == "on-off" {
            let [on_iops, off_iops, on_ms, off_ms] =
                s.take("arrival", KINDS, ["on_iops", "off_iops", "on_ms", "off_ms"])?;
            Arrival::OnOff {
                on_iops,
                off_iops,
                on_ms,
                off_ms,
            }
        } else {
            let [iops] = s.take("arrival", KINDS, ["iops"])?;
            Arrival::Poisson { iops }
        };
        if s.sequential.is_some() {
            return Err(
                "arrival.sequential: `sequential` belongs in an address model, not in `arrival`"
                    .into(),
            );
        }
        Ok(arrival)
    }
}

impl From<Arrival> for ModelSpec {
    fn from(a: Arrival) -> ModelSpec {
        match a {
            Arrival::Poisson { iops } => ModelSpec {
                kind: "poisson".into(),
                iops: Some(iops),
                ..ModelSpec::default()
            },
            Arrival::OnOff {
                on_iops,
                off_iops,
                on_ms,
                off_ms,
            } => ModelSpec {
                kind: "on-off".into(),
                on_iops: Some(on_iops),
                off_iops: Some(off_iops),
                on_ms: Some(on_ms),
                off_ms: Some(off_ms),
                ..ModelSpec::default()
            },
            // only valid at the top level, which ProfileSpec unpacks
            Arrival::Until { process, .. } => ModelSpec::from(*process),
        }
    }
}

impl Profile {
    /// The built-in profile of the README demo: 200 000 requests, 30 %
    /// reads of 4–16 KiB, writes of 4–32 KiB, 80 % of the requests to 20 %
    /// of a 2 GiB footprint, Poisson arrivals at 300 IOPS (about half of what the `small`
    /// preset sustains with GC running, so queues stay short), seed 1.
    pub fn demo() -> Profile {
        Profile {
            name: "demo".to_string(),
            seed: 1,
            requests: 200_000,
            read_share: 0.3,
            footprint_bytes: 2 << 30,
            page_bytes: DEFAULT_PAGE_BYTES,
            read_size: Some(SizeDist::uniform(4 << 10, 16 << 10)),
            write_size: Some(SizeDist::uniform(4 << 10, 32 << 10)),
            address: Address::HotCold {
                hot_fraction: 0.2,
                hot_share: 0.8,
            },
            arrival: Arrival::Poisson { iops: 300.0 },
        }
    }

    /// Parse and validate a profile; `origin` (usually the file name) names
    /// it in errors, which are [`Error::Config`] naming the field.
    pub fn from_toml(text: &str, origin: &str) -> Result<Profile> {
        let profile: Profile = toml::from_str(text).map_err(|e| toml_error(text, origin, &e))?;
        profile.validate(origin)?;
        Ok(profile)
    }

    /// Read, parse and validate a profile file.
    pub fn load(path: &Path) -> Result<Profile> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Profile::from_toml(&text, &path.display().to_string())
    }

    /// The profile as TOML (as accepted by [`Profile::from_toml`]). Fails
    /// for a profile whose [`Address::PerOp`] or [`Arrival::Until`] is not
    /// at the top level, which TOML cannot express.
    pub fn to_toml(&self) -> Result<String> {
        let fail = |e: String| {
            Error::Invalid(format!(
                "profile `{}` cannot be written as TOML: {e}",
                self.name
            ))
        };
        if let Err((field, msg)) = self.check_shape() {
            return Err(fail(format!("{field}: {msg}")));
        }
        toml::to_string(self).map_err(|e| fail(e.to_string()))
    }

    /// Number of page slots the address model draws from.
    pub fn pages(&self) -> u64 {
        self.footprint_bytes
            .checked_div(self.page_bytes)
            .unwrap_or(0)
    }

    /// The stream's length in seconds (TOML `duration_s`), if bounded by time.
    pub fn duration_s(&self) -> Option<f64> {
        self.arrival.duration_s()
    }

    /// The stream's length in requests, if bounded by a count.
    pub fn request_limit(&self) -> Option<u64> {
        (self.requests > 0).then_some(self.requests)
    }

    /// The long-run mean arrival rate in requests per second.
    pub fn mean_iops(&self) -> f64 {
        self.arrival.mean_iops()
    }

    /// The exact mean size in bytes of the requests of direction `op` (NaN
    /// if the profile has no valid size distribution for it); for
    /// `lognormal` sizes without `max`, capped at this footprint.
    pub fn mean_size(&self, op: Op) -> f64 {
        let dist = match op {
            Op::Read => &self.read_size,
            Op::Write => &self.write_size,
        };
        match dist
            .as_ref()
            .map(|d| d.compile(self.page_bytes, self.footprint_bytes, true))
        {
            Some(Ok(s)) => s.mean(),
            _ => f64::NAN,
        }
    }

    /// Check every field; errors are [`Error::Config`] naming `origin` and
    /// the field.
    pub fn validate(&self, origin: &str) -> Result<()> {
        let err = |field: &str, msg: String| Err(Error::config(origin, field, msg));
        if let Err((field, msg)) = self.check_shape() {
            return err(&field, msg);
        }
        match (self.requests, self.duration_s()) {
            (0, None) => {
                return err(
                    "requests",
                    "must be at least 1 (or leave it out and give `duration_s`)".into(),
                )
            }
            (n, Some(_)) if n > 0 => {
                return err(
                    "duration_s",
                    "give either `requests` or `duration_s`, not both".into(),
                )
            }
            _ => {}
        }
        if !(0.0..=1.0).contains(&self.read_share) {
            return err(
                "read_share",
                format!("{} is not in [0, 1]", self.read_share),
            );
        }
        if self.page_bytes == 0 {
            return err("page_bytes", "must be positive".into());
        }
        if self.footprint_bytes > MAX_FOOTPRINT_BYTES {
            return err("footprint_bytes", "is larger than 2^63 bytes".into());
        }
        if self.footprint_bytes < self.page_bytes {
            return err(
                "footprint_bytes",
                format!(
                    "{} is smaller than one page ({} bytes)",
                    self.footprint_bytes, self.page_bytes
                ),
            );
        }
        let dists = [
            (
                "read_size",
                &self.read_size,
                self.read_share > 0.0,
                "read_share > 0",
            ),
            (
                "write_size",
                &self.write_size,
                self.read_share < 1.0,
                "read_share < 1",
            ),
        ];
        for (field, dist, needed, why) in dists {
            match dist {
                None if needed => return err(field, format!("is required when {why}")),
                None => {}
                Some(d) => {
                    let s = d
                        .compile(self.page_bytes, self.footprint_bytes, false)
                        .map_err(|(sub, msg)| Error::config(origin, sub_field(field, sub), msg))?;
                    let largest = s.max();
                    if needed && largest > self.footprint_bytes {
                        return err(
                            "footprint_bytes",
                            format!(
                                "{} is smaller than the largest request of {field} ({largest} bytes)",
                                self.footprint_bytes
                            ),
                        );
                    }
                }
            }
        }
        let models: Vec<(&Address, &str)> = match &self.address {
            Address::PerOp {
                address,
                read,
                write,
            } => [
                Some((&**address, "address")),
                read.as_deref().map(|a| (a, "read_address")),
                write.as_deref().map(|a| (a, "write_address")),
            ]
            .into_iter()
            .flatten()
            .collect(),
            a => vec![(a, "address")],
        };
        for (model, field) in models {
            if let Err((f, msg)) = self.check_model(model, field) {
                return err(&f, msg);
            }
        }
        let bad = |x: f64, field: &str, what: &str| {
            err(&format!("arrival.{field}"), format!("{x} is not {what}"))
        };
        // rates whose mean gap in ns is finite
        let rate_ok = |x: f64| x > 0.0 && x.is_finite() && (1e9 / x).is_finite();
        match self.arrival.process() {
            Arrival::Poisson { iops } => {
                if !rate_ok(*iops) {
                    return err("arrival.iops", format!("{iops} is not a finite number > 0"));
                }
            }
            Arrival::OnOff {
                on_iops,
                off_iops,
                on_ms,
                off_ms,
            } => {
                if !rate_ok(*on_iops) {
                    return bad(*on_iops, "on_iops", "a finite number > 0");
                }
                if !(*off_iops == 0.0 || rate_ok(*off_iops)) {
                    return bad(*off_iops, "off_iops", "a finite number >= 0");
                }
                for (x, field) in [(*on_ms, "on_ms"), (*off_ms, "off_ms")] {
                    if !(x >= MIN_PERIOD_MS && (x * 1e6).is_finite()) {
                        return bad(
                            x,
                            field,
                            &format!("a finite number of milliseconds >= {MIN_PERIOD_MS}"),
                        );
                    }
                }
            }
            Arrival::Until { .. } => unreachable!("process() unwraps Until"),
        }
        if let Some(d) = self.duration_s() {
            if !(d > 0.0 && d * 1e9 < u64::MAX as f64) {
                return err(
                    "duration_s",
                    format!("{d} is not a number of seconds in (0, 1.8e10)"),
                );
            }
        }
        Ok(())
    }

    /// `PerOp` and `Until` only at the top, `Sequential` only over a plain
    /// model.
    fn check_shape(&self) -> std::result::Result<(), (String, String)> {
        let inner = |a: &Address, field: &str| -> std::result::Result<(), (String, String)> {
            let msg = match a {
                Address::PerOp { .. } => {
                    "per-direction models (`read_address` / `write_address`) cannot be nested"
                }
                Address::Sequential { base, .. }
                    if !matches!(
                        **base,
                        Address::Uniform | Address::Zipf { .. } | Address::HotCold { .. }
                    ) =>
                {
                    "the base of a sequential mixture must be a uniform, zipf or hot-cold model"
                }
                _ => return Ok(()),
            };
            Err((field.to_string(), msg.to_string()))
        };
        match &self.address {
            Address::PerOp {
                address,
                read,
                write,
            } => {
                inner(address, "address")?;
                if let Some(a) = read {
                    inner(a, "read_address")?;
                }
                if let Some(a) = write {
                    inner(a, "write_address")?;
                }
            }
            a => inner(a, "address")?,
        }
        if let Arrival::Until { process, .. } = &self.arrival {
            if matches!(**process, Arrival::Until { .. }) {
                return Err((
                    "duration_s".into(),
                    "an `Until` arrival process cannot be nested".into(),
                ));
            }
        }
        Ok(())
    }

    /// Check the values of one address model (of shape checked already);
    /// `field` names it (`address`, `read_address` or `write_address`).
    fn check_model(&self, a: &Address, field: &str) -> std::result::Result<(), (String, String)> {
        let fail = |sub: &str, msg: String| Err((format!("{field}.{sub}"), msg));
        match a {
            Address::Uniform => {}
            Address::Zipf { theta } => {
                if !(*theta > 0.0 && theta.is_finite()) {
                    return fail("theta", format!("{theta} is not a finite number > 0"));
                }
            }
            Address::HotCold {
                hot_fraction,
                hot_share,
            } => {
                if !(*hot_fraction > 0.0 && *hot_fraction < 1.0) {
                    return fail("hot_fraction", format!("{hot_fraction} is not in (0, 1)"));
                }
                if !(*hot_share > 0.0 && *hot_share < 1.0) {
                    return fail("hot_share", format!("{hot_share} is not in (0, 1)"));
                }
                if self.pages() < 2 {
                    return Err((
                        "footprint_bytes".into(),
                        "a hot-cold address model needs a footprint of at least 2 pages".into(),
                    ));
                }
            }
            Address::Sequential {
                base,
                share,
                streams,
                run_requests,
            } => {
                self.check_model(base, field)?;
                if !(*share > 0.0 && *share <= 1.0) {
                    return fail("sequential.share", format!("{share} is not in (0, 1]"));
                }
                if !(1..=MAX_STREAMS).contains(streams) {
                    return fail(
                        "sequential.streams",
                        format!("{streams} is not in [1, {MAX_STREAMS}]"),
                    );
                }
                if let Some(r) = run_requests {
                    if !(*r >= 1.0 && r.is_finite()) {
                        return fail(
                            "sequential.run_requests",
                            format!("{r} is not a finite number >= 1"),
                        );
                    }
                }
            }
            Address::PerOp { .. } => unreachable!("check_shape refuses nested PerOp"),
        }
        Ok(())
    }
}

/// Turn a TOML error into a [`Error::Config`] naming the field as closely as
/// the error allows.
fn toml_error(text: &str, origin: &str, e: &toml::de::Error) -> Error {
    let msg = e.message().trim().replace('\n', " ");
    let span = e.span().map(|s| {
        let mut start = s.start.min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        start..s.end
    });
    // serde names a missing or unknown field in the message; the span then
    // points at the table that lacks it or at the unknown key
    let named = ["missing field `", "unknown field `"]
        .iter()
        .find_map(|p| backticked_after(&msg, p));
    let field = match (named, &span) {
        (Some(f), Some(s)) => {
            // a span at an inline table's `{` is about that table
            let inside = if text[s.start..].starts_with('{') {
                s.start + 1
            } else {
                s.start
            };
            join_key(&table_path(text, inside), f)
        }
        (Some(f), None) => f.to_string(),
        (None, Some(s)) => key_path(text, s.start),
        (None, None) => String::new(),
    };
    let field = if field.is_empty() {
        "toml".to_string()
    } else {
        field
    };
    // our own conversion errors start with the dotted field they are about,
    // written for the table's usual key: `address.kind` is about
    // `read_address.kind` when the table is `read_address`
    let (field, msg) = match msg.split_once(": ") {
        Some((f, m)) if f.chars().all(is_key_char) => match f.split_once('.') {
            Some((head, rest)) if field == head || field.ends_with(&format!("_{head}")) => {
                (format!("{field}.{rest}"), m.to_string())
            }
            _ => (field, msg),
        },
        _ => (field, msg),
    };
    let at = match span {
        Some(s) => {
            let before = &text[..s.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!(" (line {line}, column {col})")
        }
        None => String::new(),
    };
    Error::config(origin, field, format!("{msg}{at}"))
}

fn backticked_after<'a>(msg: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = &msg[msg.find(prefix)? + prefix.len()..];
    Some(&rest[..rest.find('`')?])
}

fn join_key(table: &str, key: &str) -> String {
    if table.is_empty() {
        key.to_string()
    } else {
        format!("{table}.{key}")
    }
}

/// The `[section]` in force at byte `pos` and the inline tables open there,
/// as a dotted path (no key of its own).
fn table_path(text: &str, pos: usize) -> String {
    let (section, keys, _) = scan_keys(text, pos);
    let mut parts: Vec<&str> = section.into_iter().collect();
    parts.extend(keys);
    parts.join(".")
}

/// The dotted key whose key or value contains byte `pos`.
fn key_path(text: &str, pos: usize) -> String {
    let (section, mut keys, current) = scan_keys(text, pos);
    let pos = pos.min(text.len());
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let on_header = text[line_start..]
        .lines()
        .next()
        .and_then(section_name)
        .is_some();
    match current {
        Some(k) => keys.push(k),
        None if on_header => {}
        None => {
            // `pos` is on a key itself
            let rest = &text[pos.min(text.len())..];
            let end = rest.find(|c: char| !is_key_char(c)).unwrap_or(rest.len());
            if end > 0 {
                keys.push(&rest[..end]);
            }
        }
    }
    let mut parts: Vec<&str> = section.into_iter().collect();
    parts.extend(keys);
    parts.join(".")
}

/// `x.y` for a `[x.y]` or `[[x.y]]` header line.
fn section_name(line: &str) -> Option<&str> {
    let l = line.trim();
    if !l.starts_with('[') {
        return None;
    }
    let l = l.split('#').next().unwrap_or("").trim();
    Some(l.trim_start_matches('[').trim_end_matches(']').trim())
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'
}

/// Scan the line holding `pos` up to `pos`: the section header in force, the
/// keys of the inline tables open at `pos`, and the key whose value `pos` is
/// in, if any.
fn scan_keys(text: &str, pos: usize) -> (Option<&str>, Vec<&str>, Option<&str>) {
    let pos = pos.min(text.len());
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    // the section in force: the header at or above this line (an error in
    // a table that serde buffers, such as a tagged enum, points at its header)
    let section = text[..end].lines().rev().find_map(section_name);
    if section_name(&text[start..end]).is_some() {
        return (section, Vec::new(), None);
    }
    let line = &text[start..pos];
    let mut open: Vec<&str> = Vec::new();
    let mut current: Option<&str> = None;
    let mut token_start: Option<usize> = None;
    let mut last_token: Option<&str> = None;
    let mut in_string: Option<char> = None;
    for (i, c) in line.char_indices() {
        if let Some(q) = in_string {
            if c == q {
                in_string = None;
            }
            continue;
        }
        if is_key_char(c) {
            token_start.get_or_insert(i);
            continue;
        }
        if let Some(s) = token_start.take() {
            last_token = Some(&line[s..i]);
        }
        match c {
            '"' | '\'' => in_string = Some(c),
            '=' => current = last_token,
            '{' => {
                if let Some(k) = current.take() {
                    open.push(k);
                }
            }
            '}' => {
                open.pop();
                current = None;
            }
            ',' if !open.is_empty() => current = None,
            '#' => break,
            _ => {}
        }
    }
    (section, open, current)
}

// ---------------------------------------------------------------------------
// Samplers

/// A compiled size distribution.
#[derive(Clone, Debug)]
enum SizeSampler {
    Fixed {
        sizes: Vec<u64>,
        cumulative: Vec<f64>,
        total: f64,
    },
    /// `(lo + uniform(span)) * page_bytes`.
    Pages { lo: u64, span: u64, page_bytes: u64 },
    /// `clamp(ceil(exp(loc + sigma Z)), 1, k_max) * page_bytes` (`loc` in
    /// ln pages).
    LogNormal {
        loc: f64,
        sigma: f64,
        k_max: u64,
        page_bytes: u64,
    },
}

impl SizeSampler {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> u64 {
        match self {
            SizeSampler::Fixed {
                sizes,
                cumulative,
                total,
            } => {
                if sizes.len() == 1 {
                    return sizes[0];
                }
                let x = unit(rng) * total;
                let i = cumulative.partition_point(|&c| c <= x);
                // x < total, so i < len; guard against rounding anyway
                sizes[i.min(sizes.len() - 1)]
            }
            SizeSampler::Pages {
                lo,
                span,
                page_bytes,
            } => (lo + below(rng, *span)) * page_bytes,
            SizeSampler::LogNormal {
                loc,
                sigma,
                k_max,
                page_bytes,
            } => {
                let y = dmath::exp(loc + sigma * std_normal(rng));
                // y >= k_max (or NaN, which cannot happen) gives the largest
                let pages = if y < *k_max as f64 {
                    (y.ceil() as u64).clamp(1, *k_max)
                } else {
                    *k_max
                };
                pages * page_bytes
            }
        }
    }

    fn mean(&self) -> f64 {
        match self {
            SizeSampler::Fixed {
                sizes,
                cumulative,
                total,
            } => {
                let mut prev = 0.0;
                let mut sum = 0.0;
                for (s, c) in sizes.iter().zip(cumulative) {
                    sum += (*s as f64) * (c - prev);
                    prev = *c;
                }
                sum / total
            }
            SizeSampler::Pages {
                lo,
                span,
                page_bytes,
            } => (*lo as f64 + (*span - 1) as f64 / 2.0) * *page_bytes as f64,
            SizeSampler::LogNormal {
                loc,
                sigma,
                k_max,
                page_bytes,
            } => *page_bytes as f64 * rounded_mean_pages(*loc, *sigma, *k_max),
        }
    }

    fn max(&self) -> u64 {
        match self {
            SizeSampler::Fixed { sizes, .. } => sizes.iter().copied().max().unwrap_or(0),
            SizeSampler::Pages {
                lo,
                span,
                page_bytes,
            } => (lo + span - 1).saturating_mul(*page_bytes),
            SizeSampler::LogNormal {
                k_max, page_bytes, ..
            } => k_max.saturating_mul(*page_bytes),
        }
    }
}

/// A standard normal deviate by Marsaglia's polar method (one of the pair).
fn std_normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    loop {
        let u = 2.0 * unit(rng) - 1.0;
        let v = 2.0 * unit(rng) - 1.0;
        let s = u * u + v * v;
        if s < 1.0 && s > 0.0 {
            return u * (-2.0 * dmath::ln(s) / s).sqrt();
        }
    }
}

/// E[clamp(ceil(Y), 1, k_max)] for Y = exp(loc + sigma·Z) (in pages):
/// 1 + Σ_{k=1}^{k_max−1} P(Y > k).
///
/// The terms are summed one by one up to `max(64, 10/sigma)`, where the
/// summand is smooth on the scale of one page (its j-th derivative is of
/// order (sigma·k)^−j); the rest by the Euler–Maclaurin formula up to the
/// third derivative, whose remainder is then below 1e−11 of the mean.
fn rounded_mean_pages(loc: f64, sigma: f64, k_max: u64) -> f64 {
    if k_max <= 1 {
        return 1.0;
    }
    let last = k_max - 1;
    let z = |x: f64| (dmath::ln(x) - loc) / sigma;
    // Q(40) is below the smallest double: nothing is left beyond
    const NOTHING_LEFT: f64 = 40.0;
    let mut sum = 1.0;
    // sigma >= MIN_LOGNORMAL_SIGMA keeps this at most 1000
    let direct = last.min((10.0 / sigma).ceil().clamp(64.0, 1e6) as u64);
    for k in 1..=direct {
        let zk = z(k as f64);
        if zk > NOTHING_LEFT {
            return sum;
        }
        sum += dmath::normal_sf(zk);
    }
    if last > direct {
        // Σ_{k=a}^{b} T(k) for T(x) = Q(z(x)), smooth and decreasing:
        // ∫_a^b T + (T(a) + T(b))/2 + (T'(b) − T'(a))/12 − (T'''(b) − T'''(a))/720,
        // with ∫_a^b T = [x T(x)]_a^b + e^(loc + sigma²/2) P(z(a) − sigma < Z < z(b) − sigma)
        // (by parts, then x = e^(loc + sigma z)), T'(x) = −φ(z)/(sigma x) and
        // T'''(x) = φ(z) (1 − z² − 3 sigma z − 2 sigma²)/(sigma x)³.
        let (a, b) = ((direct + 1) as f64, last as f64);
        let (za, zb) = (z(a), z(b));
        if za > NOTHING_LEFT {
            return sum;
        }
        let (ta, tb) = (dmath::normal_sf(za), dmath::normal_sf(zb));
        let integral = b * tb - a * ta
            + dmath::exp(loc + 0.5 * sigma * sigma) * dmath::normal_between(za - sigma, zb - sigma);
        let d1 = |x: f64, zx: f64| -dmath::normal_pdf(zx) / (sigma * x);
        let d3 = |x: f64, zx: f64| {
            let sx = sigma * x;
            dmath::normal_pdf(zx) * (1.0 - zx * zx - 3.0 * sigma * zx - 2.0 * sigma * sigma)
                / (sx * sx * sx)
        };
        sum += integral + 0.5 * (ta + tb) + (d1(b, zb) - d1(a, za)) / 12.0
            - (d3(b, zb) - d3(a, za)) / 720.0;
    }
    sum
}

/// The location (in ln pages) whose rounded, clamped lognormal has mean
/// `target` pages, 1 < target < k_max: bisection on the increasing function
/// `rounded_mean_pages(·, sigma, k_max)`.
fn solve_location(target: f64, sigma: f64, k_max: u64) -> f64 {
    let f = |loc: f64| rounded_mean_pages(loc, sigma, k_max) - target;
    // beyond these the mean is 1 or k_max to the last bit
    let floor = -60.0 * sigma - 60.0;
    let ceiling = dmath::ln(k_max as f64) + 60.0 * sigma + 60.0;
    // start from the answer without rounding and clamping
    let start = dmath::ln(target) - 0.5 * sigma * sigma;
    let (mut lo, mut hi) = (start, start);
    let mut step = 0.5;
    while lo > floor && f(lo) > 0.0 {
        lo = (lo - step).max(floor);
        step *= 2.0;
    }
    step = 0.5;
    while hi < ceiling && f(hi) < 0.0 {
        hi = (hi + step).min(ceiling);
        step *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi || hi - lo <= 1e-13 * (1.0 + mid.abs()) {
            break;
        }
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// A uniform draw in \[0, 1) with 53 random bits.
#[inline]
fn unit(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform integer in \[0, n) (n > 0), without bias (Lemire 2019).
#[inline]
fn below(rng: &mut Xoshiro256PlusPlus, n: u64) -> u64 {
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

/// Zipf ranks 1..=n with P(k) ∝ k^-theta, by rejection-inversion.
///
/// With h(x) = x^-theta and H its integral from 1, a uniform u over
/// \[H(1.5) − 1, H(n + 0.5)\] is inverted to x = H⁻¹(u) and rounded to the rank
/// k; k is accepted when u lies in the top h(k) of the strip
/// \[H(k − 0.5), H(k + 0.5)\] (which is at least that long, h being convex),
/// so every rank is accepted with probability ∝ h(k). Rank 1's strip is
/// exactly h(1) long and always accepted.
#[derive(Clone, Debug)]
struct Zipf {
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
enum AddrSampler {
    Uniform,
    Zipf(Zipf),
    HotCold { hot: u64, hot_share: f64 },
}

/// What the address models need to know about the footprint.
struct Geometry<'a> {
    pages: u64,
    page_bytes: u64,
    footprint: u64,
    scatter: &'a Scatter,
}

impl AddrSampler {
    /// The plain model under `a` (which validate() has checked).
    fn new(a: &Address, pages: u64) -> AddrSampler {
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
struct AddrModel {
    base: AddrSampler,
    streams: Option<Streams>,
}

impl AddrModel {
    fn new(a: &Address, pages: u64) -> AddrModel {
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

    fn offset(&mut self, rng: &mut Xoshiro256PlusPlus, size: u64, g: &Geometry) -> Result<u64> {
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

/// A compiled arrival process.
#[derive(Clone, Debug)]
enum ArrivalSampler {
    Poisson {
        mean_gap_ns: f64,
    },
    OnOff {
        /// Mean gap in ns during on (0) and off (1) periods; None: no arrivals.
        gap_ns: [Option<f64>; 2],
        /// Mean period lengths in ns.
        len_ns: [f64; 2],
        /// Probability of starting in an on period.
        p_on: f64,
        /// The current period (0 on, 1 off) and when it ends; None before
        /// the first request.
        phase: Option<(usize, f64)>,
    },
}

/// An exponential draw of mean 1: −ln(1 − U) with 1 − U in (0, 1].
#[inline]
fn exponential(rng: &mut Xoshiro256PlusPlus) -> f64 {
    -dmath::ln(1.0 - unit(rng))
}

impl ArrivalSampler {
    fn new(a: &Arrival) -> ArrivalSampler {
        match a.process() {
            Arrival::OnOff {
                on_iops,
                off_iops,
                on_ms,
                off_ms,
            } => ArrivalSampler::OnOff {
                gap_ns: [1e9 / on_iops, 1e9 / off_iops].map(|g| g.is_finite().then_some(g)),
                len_ns: [on_ms * 1e6, off_ms * 1e6],
                p_on: on_ms / (on_ms + off_ms),
                phase: None,
            },
            Arrival::Poisson { iops } => ArrivalSampler::Poisson {
                mean_gap_ns: 1e9 / iops,
            },
            Arrival::Until { .. } => unreachable!("process() unwraps Until"),
        }
    }

    /// Move `clock` (ns) to the next arrival.
    fn advance(&mut self, clock: &mut f64, rng: &mut Xoshiro256PlusPlus) {
        match self {
            ArrivalSampler::Poisson { mean_gap_ns } => {
                *clock += -dmath::ln(1.0 - unit(rng)) * *mean_gap_ns;
            }
            ArrivalSampler::OnOff {
                gap_ns,
                len_ns,
                p_on,
                phase,
            } => {
                let (mut now, mut end) = match *phase {
                    Some(p) => p,
                    None => {
                        let now = if unit(rng) < *p_on { 0 } else { 1 };
                        (now, *clock + exponential(rng) * len_ns[now])
                    }
                };
                loop {
                    if let Some(g) = gap_ns[now] {
                        let t = *clock + exponential(rng) * g;
                        if t < end {
                            *clock = t;
                            break;
                        }
                    }
                    // no arrival in the rest of this period: the next one
                    *clock = end;
                    if *clock >= u64::MAX as f64 || clock.is_nan() {
                        break; // the caller reports the overflow
                    }
                    now ^= 1;
                    end = *clock + exponential(rng) * len_ns[now];
                }
                *phase = Some((now, end));
            }
        }
    }
}

/// How the stream ends.
#[derive(Clone, Copy, Debug)]
enum Limit {
    Requests(u64),
    /// At the first arrival after this time (ns).
    Until(u64),
}

/// Everything a valid profile compiles to.
#[derive(Clone, Debug)]
struct Compiled {
    read_share: f64,
    read_size: Option<SizeSampler>,
    write_size: Option<SizeSampler>,
    /// The plain model of `address`, for the rank queries.
    primary: AddrSampler,
    /// The models in use; reads use `models[read_model]`, writes
    /// `models[write_model]` (the same one unless overridden).
    models: Vec<AddrModel>,
    read_model: usize,
    write_model: usize,
    scatter: Scatter,
    pages: u64,
    page_bytes: u64,
    footprint: u64,
    arrival: ArrivalSampler,
    limit: Limit,
}

impl Compiled {
    fn new(p: &Profile, origin: &str) -> Result<Compiled> {
        p.validate(origin)?;
        let compile = |d: &Option<SizeDist>, field: &str| -> Result<Option<SizeSampler>> {
            d.as_ref()
                .map(|d| {
                    d.compile(p.page_bytes, p.footprint_bytes, true)
                        .map_err(|(sub, msg)| Error::config(origin, sub_field(field, sub), msg))
                })
                .transpose()
        };
        let pages = p.pages();
        let (read_a, write_a) = (p.address.for_op(Op::Read), p.address.for_op(Op::Write));
        let mut models = vec![AddrModel::new(read_a, pages)];
        let write_model = if std::ptr::eq(read_a, write_a) {
            0
        } else {
            models.push(AddrModel::new(write_a, pages));
            1
        };
        let limit = match p.duration_s() {
            // validate() bounds d * 1e9 below 2^64
            Some(d) => Limit::Until((d * 1e9) as u64),
            None => Limit::Requests(p.requests),
        };
        Ok(Compiled {
            read_share: p.read_share,
            read_size: compile(&p.read_size, "read_size")?,
            write_size: compile(&p.write_size, "write_size")?,
            primary: AddrSampler::new(&p.address, pages),
            models,
            read_model: 0,
            write_model,
            scatter: Scatter::new(pages, p.seed),
            pages,
            page_bytes: p.page_bytes,
            footprint: p.footprint_bytes,
            arrival: ArrivalSampler::new(&p.arrival),
            limit,
        })
    }
}

/// Generates the requests of a [`Profile`]; see the [module documentation](self).
///
/// An invalid profile makes the first item an error (and the stream ends
/// there); use [`Generator::try_new`] to find out at construction.
#[derive(Debug)]
pub struct Generator {
    rng: Xoshiro256PlusPlus,
    state: std::result::Result<Compiled, Option<Error>>,
    emitted: u64,
    clock_ns: f64,
    done: bool,
}

impl Generator {
    /// A generator for `profile`; never fails (see [`Generator::try_new`]).
    pub fn new(profile: &Profile) -> Generator {
        let origin = format!("profile `{}`", profile.name);
        Generator {
            rng: Xoshiro256PlusPlus::seed_from_u64(profile.seed),
            state: Compiled::new(profile, &origin).map_err(Some),
            emitted: 0,
            clock_ns: 0.0,
            done: false,
        }
    }

    /// A generator for `profile`, or the validation error.
    pub fn try_new(profile: &Profile) -> Result<Generator> {
        let mut g = Generator::new(profile);
        match &mut g.state {
            Ok(_) => Ok(g),
            Err(e) => Err(e
                .take()
                .unwrap_or_else(|| Error::Invalid("invalid profile".into()))),
        }
    }

    /// Number of page slots addresses are drawn from (0 if the profile is
    /// invalid).
    pub fn pages(&self) -> u64 {
        self.state.as_ref().map_or(0, |c| c.pages)
    }

    /// For a `hot-cold` `address` (under any `sequential`; for per-direction
    /// models, the `address` table's): the number of hot ranks (ranks below
    /// it are hot).
    pub fn hot_pages(&self) -> Option<u64> {
        match self.state.as_ref().ok()?.primary {
            AddrSampler::HotCold { hot, .. } => Some(hot),
            _ => None,
        }
    }

    /// The popularity rank (0 = most popular for `zipf`; below
    /// [`hot_pages`](Self::hot_pages) = hot for `hot-cold`) of page `page`
    /// (offset / page_bytes), for the model of `address` as in
    /// [`hot_pages`](Self::hot_pages). For `uniform` the rank is the page
    /// itself. Skewed models of `read_address` / `write_address` share the
    /// same ranks.
    pub fn rank_of_page(&self, page: u64) -> Option<u64> {
        let c = self.state.as_ref().ok()?;
        match c.primary {
            AddrSampler::Uniform => (page < c.pages).then_some(page),
            _ => c.scatter.inverse(page),
        }
    }

    /// The page holding popularity rank `rank` (inverse of
    /// [`rank_of_page`](Self::rank_of_page)).
    pub fn page_of_rank(&self, rank: u64) -> Option<u64> {
        let c = self.state.as_ref().ok()?;
        match c.primary {
            AddrSampler::Uniform => (rank < c.pages).then_some(rank),
            _ => c.scatter.forward(rank),
        }
    }

    fn generate(&mut self) -> Result<Option<IoRecord>> {
        let c = match &mut self.state {
            Ok(c) => c,
            Err(e) => {
                let e = e.take();
                return match e {
                    Some(e) => Err(e),
                    None => Ok(None),
                };
            }
        };
        if let Limit::Requests(n) = c.limit {
            if self.emitted >= n {
                return Ok(None);
            }
        }
        let rng = &mut self.rng;
        let op = if unit(rng) < c.read_share {
            Op::Read
        } else {
            Op::Write
        };
        let sizes = match op {
            Op::Read => &c.read_size,
            Op::Write => &c.write_size,
        };
        // validate() requires the distribution of every op that can occur
        let size = match sizes {
            Some(s) => s.sample(rng),
            None => {
                return Err(Error::Invalid(format!(
                    "internal: no size distribution for {op:?} requests"
                )))
            }
        };
        let model = match op {
            Op::Read => c.read_model,
            Op::Write => c.write_model,
        };
        let geometry = Geometry {
            pages: c.pages,
            page_bytes: c.page_bytes,
            footprint: c.footprint,
            scatter: &c.scatter,
        };
        let offset = c.models[model].offset(rng, size, &geometry)?;
        c.arrival.advance(&mut self.clock_ns, rng);
        if !self.clock_ns.is_finite() || self.clock_ns >= u64::MAX as f64 {
            return Err(Error::Invalid(format!(
                "arrival times of the synthetic profile overflow u64 nanoseconds after {} requests",
                self.emitted
            )));
        }
        let time_ns = self.clock_ns as u64;
        if let Limit::Until(end) = c.limit {
            if time_ns > end {
                return Ok(None);
            }
        }
        self.emitted += 1;
        Ok(Some(IoRecord {
            time_ns,
            op,
            offset,
            size,
        }))
    }
}

impl Iterator for Generator {
    type Item = Result<IoRecord>;

    fn next(&mut self) -> Option<Result<IoRecord>> {
        if self.done {
            return None;
        }
        match self.generate() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.state {
            Ok(c) if !self.done => match c.limit {
                Limit::Requests(n) => {
                    let left = usize::try_from(n - self.emitted).unwrap_or(usize::MAX);
                    (left, Some(left))
                }
                Limit::Until(_) => (0, None),
            },
            Err(Some(_)) => (1, Some(1)),
            _ => (0, Some(0)),
        }
    }
}

/// Platform-independent `ln`, `exp` and `erfc` from IEEE basic operations
/// only (which are exactly rounded everywhere); `ln` and `exp` are accurate
/// to a few ulp, `erfc` to about 1e−13 relative (1e−15 absolute below 2).
mod dmath {
    /// ln 2 split so that `k * LN2_HI` is exact for |k| < 2^20.
    const LN2_HI: f64 = 6.931_471_803_691_238e-1;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    const SQRT2: f64 = std::f64::consts::SQRT_2;

    /// Σ z^k / (2k + 1), k = 0..: atanh(s) = s · series(s²). Enough terms for
    /// z ≤ 1/9 (|s| ≤ 1/3).
    #[inline]
    fn atanh_series(z: f64) -> f64 {
        // 1/(2k+1) for k < 24, computed at compile time: IEEE division is
        // correctly rounded, so the values (and the series) are the same as
        // dividing at run time, without 24 divisions per call.
        const INV_ODD: [f64; 24] = {
            let mut t = [0.0; 24];
            let mut k = 0;
            while k < 24 {
                t[k] = 1.0 / (2 * k + 1) as f64;
                k += 1;
            }
            t
        };
        let mut acc = 0.0;
        let mut k = 24;
        while k > 0 {
            k -= 1;
            acc = acc * z + INV_ODD[k];
        }
        acc
    }

    /// Natural logarithm (NaN for x < 0 or NaN, −∞ for 0, ∞ for ∞).
    pub fn ln(x: f64) -> f64 {
        if x.is_nan() || x < 0.0 {
            return f64::NAN;
        }
        if x == 0.0 {
            return f64::NEG_INFINITY;
        }
        if x.is_infinite() {
            return x;
        }
        let (mut x, mut e) = (x, 0i64);
        if x < f64::MIN_POSITIVE {
            x *= (1u64 << 54) as f64;
            e = -54;
        }
        let bits = x.to_bits();
        e += ((bits >> 52) & 0x7ff) as i64 - 1023;
        let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
        if m > SQRT2 {
            m *= 0.5;
            e += 1;
        }
        // m in (√2/2, √2]; f = m − 1 is exact.
        let f = m - 1.0;
        let s = f / (2.0 + f);
        let ln_m = 2.0 * s * atanh_series(s * s);
        let e = e as f64;
        e * LN2_HI + (ln_m + e * LN2_LO)
    }

    /// ln(1 + y) / y, continuous at y = 0 (value 1); y > −1.
    pub fn ln1p_over_x(y: f64) -> f64 {
        if y.abs() <= 0.5 {
            // ln(1+y) = 2 atanh(s), s = y/(2+y): no cancellation near 0
            let d = 2.0 + y;
            let s = y / d;
            2.0 * atanh_series(s * s) / d
        } else {
            ln(1.0 + y) / y
        }
    }

    /// Σ r^k / (k + 1)!, k = 0..: (e^r − 1)/r for |r| ≤ 0.5.
    #[inline]
    fn expm1_series(r: f64) -> f64 {
        let mut acc = 1.0;
        let mut k = 20;
        while k > 1 {
            acc = 1.0 + acc * r / k as f64;
            k -= 1;
        }
        acc
    }

    /// (e^y − 1) / y, continuous at y = 0 (value 1).
    pub fn expm1_over_x(y: f64) -> f64 {
        if y.abs() <= 0.5 {
            expm1_series(y)
        } else {
            (exp(y) - 1.0) / y
        }
    }

    /// e^x (0 below about −745, ∞ above about 709.8, NaN for NaN).
    pub fn exp(x: f64) -> f64 {
        if x.is_nan() {
            return x;
        }
        if x > 709.79 {
            return f64::INFINITY;
        }
        if x < -745.2 {
            return 0.0;
        }
        let k = (x * std::f64::consts::LOG2_E).round();
        let r = (x - k * LN2_HI) - k * LN2_LO;
        // e^r = 1 + r · (e^r − 1)/r, |r| ≤ 0.35
        let er = 1.0 + r * expm1_series(r);
        let k = k as i64;
        let pow2 = |e: i64| f64::from_bits(((e + 1023) as u64) << 52);
        if k > 1023 {
            er * pow2(1023) * pow2(k - 1023)
        } else if k < -1022 {
            er * pow2(-1022) * pow2(k + 1022)
        } else {
            er * pow2(k)
        }
    }

    /// erfc(x) for x >= 0.
    fn erfc_nonneg(x: f64) -> f64 {
        if x < 2.0 {
            // erf(x) = 2/√π e^(−x²) Σ (2x²)^n x / (1·3·…·(2n+1)): positive
            // terms, no cancellation inside the sum
            let x2 = 2.0 * x * x;
            let mut term = x;
            let mut sum = x;
            let mut n = 1.0;
            while term > 1e-17 * sum {
                term *= x2 / (2.0 * n + 1.0);
                sum += term;
                n += 1.0;
            }
            1.0 - std::f64::consts::FRAC_2_SQRT_PI * exp(-x * x) * sum
        } else {
            // the continued fraction erfc(x) = e^(−x²)/√π / (x + (1/2)/(x + 1/(x
            // + (3/2)/(x + …)))), evaluated from 10 + 160/x² levels down (50
            // at x = 2; it has converged to 1e−15 from about 8 + 136/x²)
            let mut f = x;
            let mut n = (10.0 + 160.0 / (x * x)).ceil() as u32;
            while n > 0 {
                f = x + (n as f64 * 0.5) / f;
                n -= 1;
            }
            exp(-x * x) * (0.5 * std::f64::consts::FRAC_2_SQRT_PI) / f
        }
    }

    /// Q(z) = P(Z > z) for a standard normal Z.
    pub fn normal_sf(z: f64) -> f64 {
        let t = std::f64::consts::FRAC_1_SQRT_2;
        if z >= 0.0 {
            0.5 * erfc_nonneg(z * t)
        } else {
            1.0 - 0.5 * erfc_nonneg(-z * t)
        }
    }

    /// P(lo < Z < hi) for a standard normal Z, lo <= hi, computed from the
    /// nearer tails.
    pub fn normal_between(lo: f64, hi: f64) -> f64 {
        if lo >= 0.0 {
            normal_sf(lo) - normal_sf(hi)
        } else if hi <= 0.0 {
            normal_sf(-hi) - normal_sf(-lo)
        } else {
            1.0 - normal_sf(-lo) - normal_sf(hi)
        }
    }

    /// The standard normal density.
    pub fn normal_pdf(z: f64) -> f64 {
        // 1/√(2π)
        0.398_942_280_401_432_7 * exp(-0.5 * z * z)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn close(a: f64, b: f64, rel: f64) -> bool {
            a == b || ((a - b) / b).abs() <= rel
        }

        #[test]
        fn matches_std_closely() {
            let mut x = 1e-310;
            while x < 1e300 {
                assert!(
                    close(ln(x), x.ln(), 4e-16) || (ln(x) - x.ln()).abs() < 1e-15,
                    "ln {x}"
                );
                x *= 1.37;
            }
            for i in -7000..7000 {
                let x = i as f64 * 0.1013;
                assert!(
                    close(exp(x), x.exp(), 1e-15),
                    "exp {x}: {} vs {}",
                    exp(x),
                    x.exp()
                );
            }
            for i in -999..2000 {
                let y = i as f64 * 1e-3;
                assert!(
                    close(ln1p_over_x(y), y.ln_1p() / y, 1e-15) || i == 0,
                    "ln1p {y}"
                );
                assert!(
                    close(expm1_over_x(y), y.exp_m1() / y, 1e-15) || i == 0,
                    "expm1 {y}"
                );
            }
            assert_eq!(ln1p_over_x(0.0), 1.0);
            assert_eq!(expm1_over_x(0.0), 1.0);
            assert_eq!(ln(1.0), 0.0);
            assert_eq!(exp(0.0), 1.0);
            assert!(ln(-1.0).is_nan() && ln(0.0) == f64::NEG_INFINITY);
            assert!(exp(1000.0).is_infinite() && exp(-1000.0) == 0.0);
        }

        #[test]
        fn normal_tails() {
            // references from mpmath at 40 digits
            let cases = [
                (0.0, 0.5),
                (0.5, 0.308_537_538_725_986_9),
                (1.0, 0.158_655_253_931_457_05),
                (2.0, 0.022_750_131_948_179_21),
                (2.9, 0.001_865_813_300_384_037_5),
                (3.0, 0.001_349_898_031_630_094_6),
                (5.0, 2.866_515_718_791_939e-7),
                (10.0, 7.619_853_024_160_527e-24),
                (30.0, 4.906_713_927_148_187e-198),
            ];
            for (z, q) in cases {
                assert!(
                    close(normal_sf(z), q, 1e-12),
                    "Q({z}) = {} vs {q}",
                    normal_sf(z)
                );
                assert!(
                    (normal_sf(-z) - (1.0 - q)).abs() < 1e-15,
                    "Q(-{z}) = {}",
                    normal_sf(-z)
                );
            }
            assert!((normal_between(-1.0, 1.0) - 0.682_689_492_137_085_9).abs() < 1e-15);
            assert!(close(
                normal_between(5.0, 10.0),
                2.866_515_718_791_939e-7,
                1e-12
            ));
            assert!(close(normal_pdf(1.0), 0.241_970_724_519_143_37, 1e-15));
        }
    }
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn lemire_is_in_range() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        for n in [1u64, 2, 3, 7, u64::MAX] {
            for _ in 0..1000 {
                assert!(below(&mut rng, n) < n);
            }
        }
    }

    #[test]
    fn rounded_mean_matches_brute_force() {
        // the Euler–Maclaurin tail against the plain sum
        for (loc, sigma, k_max) in [
            (3f64.ln() - 0.5, 1.0, 200_000u64),
            (2000f64.ln(), 0.05, 300_000),
            (5000f64.ln(), 2.0, 400_000),
            (1030f64.ln(), 0.01, 100_000),
            (100f64.ln(), 3.0, 1_000_000),
            (0.3, 0.7, 5),
            (-2.0, 1.0, 1),
            // transitions right at the end of the term-by-term part
            (65f64.ln(), 0.3, 1_000_000),
            (1001f64.ln(), 0.01, 100_000),
            (1001f64.ln() + 0.02, 0.01, 1003),
            (80f64.ln(), 1.06, 1_000_000),
            (500f64.ln(), 0.02, 100_000),
            (40f64.ln(), 0.01, 100_000),
        ] {
            let brute = 1.0
                + (1..k_max)
                    .map(|k| dmath::normal_sf((dmath::ln(k as f64) - loc) / sigma))
                    .sum::<f64>();
            let got = rounded_mean_pages(loc, sigma, k_max);
            assert!(
                ((got - brute) / brute).abs() < 1e-10,
                "{loc} {sigma} {k_max}: {got} vs {brute}"
            );
        }
    }

    #[test]
    fn solved_location_hits_the_target() {
        for (target, sigma, k_max) in [
            (3.0, 1.0, 1u64 << 40),
            (1.0001, 1.0, 1 << 40),
            (1.5, 0.01, 2),
            (1.999_999, 0.5, 2),
            (200.0, 4.0, 256),
            (1e9, 0.3, 1 << 51),
        ] {
            let loc = solve_location(target, sigma, k_max);
            let got = rounded_mean_pages(loc, sigma, k_max);
            assert!(
                ((got - target) / target).abs() < 1e-9,
                "{target} {sigma} {k_max}: {got} at {loc}"
            );
        }
    }

    #[test]
    fn demo_is_valid_and_round_trips() {
        let demo = Profile::demo();
        demo.validate("demo").unwrap();
        let text = demo.to_toml().unwrap();
        assert_eq!(Profile::from_toml(&text, "demo.toml").unwrap(), demo);
    }

    #[test]
    fn toml_errors_name_fields() {
        let base = Profile::demo().to_toml().unwrap();
        let cases = [
            (base.replace("seed = 1", "seed = \"x\""), "seed"),
            (base.replace("seed = 1", "sead = 1"), "sead"),
            (base.replace("seed = 1\n", ""), "seed"),
            (
                base.replace("hot_share = 0.8", "hot_share = \"a\""),
                "address.hot_share",
            ),
            (
                base.replace("hot_share = 0.8", "hot_shar = 0.8"),
                "address.hot_shar",
            ),
            (
                base.replace("kind = \"hot-cold\"", "kind = \"hot\""),
                "address.kind",
            ),
            (
                base.replace("kind = \"hot-cold\"", "kind = \"zipf\""),
                "address.theta",
            ),
            (
                base.replace("iops = 300.0", "iops = 300.0\ntheta = 1"),
                "arrival.theta",
            ),
            (base.replace("iops = 300.0", "iops = []"), "arrival.iops"),
            (
                base.replace("read_share = 0.3", "read_share = 1.3"),
                "read_share",
            ),
            (
                base.replace("[write_size]", "[write_size]\nfixed = [0]"),
                "write_size",
            ),
        ];
        for (text, field) in cases {
            let e = Profile::from_toml(&text, "p.toml").unwrap_err();
            match &e {
                Error::Config {
                    origin, field: f, ..
                } => {
                    assert_eq!(origin, "p.toml");
                    assert_eq!(f, field, "{e}\n{text}");
                }
                other => panic!("{other}"),
            }
        }
    }
}
