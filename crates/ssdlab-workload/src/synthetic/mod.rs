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
//! | `latency_hint` | optional `{ lsb = A, csb = B, msb = C }`: shares of write requests carrying a host page-type hint (PA-SSD's sHG; the rest carry none; A + B + C ≤ 1); drawn after everything else of a request, so a profile without it keeps its stream |
//! | `balanced` | optional, default false: draw the request kind, the sizes and the arrivals [balanced](#balanced-draws), so that short streams keep the profile's shares, mean sizes and mean rate |
//!
//! Unknown keys are errors. Every error is an [`Error::Config`] naming the
//! origin (the file), the dotted field it is about
//! (`write_size.lognormal.sigma`, `write_size.mixture[2].weight`,
//! `write_address.sequential.share`, `arrival.on_ms`, ...) and the line: for
//! a TOML error the line and column of the offending text, for a value
//! found invalid after parsing the line of the field's top-level key.
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
//! - `lognormal = { mean = bytes, sigma = s, max = bytes, min = bytes }`
//!   (`max` and `min` optional): a lognormal size of the given mean and
//!   log-spread, rounded up to whole pages and clamped to \[`min`, `max`\]
//!   (described next);
//! - `mixture = [{ weight = w, ... }, ...]`: a weighted mixture of the
//!   distributions above ([mixtures](#mixtures)).
//!
//! ### Lognormal sizes
//!
//! A draw is `Y = exp(μ + sigma·Z)` bytes with Z standard normal; the size is
//! `ceil(Y / page_bytes)` pages, at least `J = ceil(min / page_bytes)` pages
//! (1 without `min`) and at most `K = max / page_bytes` pages (`max` rounded
//! down to a page; without `max` the footprint takes its place). `sigma` is
//! the standard deviation of ln Y and must be in \[0.01, 4\]; `min` must be
//! positive and below `K` pages; `mean` must lie strictly between `J ·
//! page_bytes` and `K · page_bytes`. `min` serves a mixture's large-request
//! component, which must not produce small requests.
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
//! `K·p` as μ grows; μ is found by bisection to about 1e−12. With `min`,
//! the sum starts at k = J and the leading 1 becomes J: `E[size] = p · (J +
//! Σ_{k=J}^{K−1} Q(...))`, computed as the difference of two sums of the
//! form above. The sum is
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
//! ### Mixtures
//!
//! `mixture = [c₁, c₂, ...]` lists components, each a size table of its own
//! (`fixed`, `empirical`, `uniform` or `lognormal`, not another mixture)
//! with a `weight` (finite, ≥ 0; the weights need not sum to 1 but must have
//! a positive sum). A draw picks component i with probability `weight_i / Σ
//! weight` (one uniform) and then draws that component's size. So the mean
//! is the weighted mean of the components' means, and the share of sizes in
//! any range is the weighted share — which lets a profile meet a mean size
//! and, say, a share of requests larger than one page at once:
//!
//! ```toml
//! page_bytes = 8192
//! # ... the other top-level keys, then (a table section comes last):
//! # 94 % small writes (at most one 8 KiB page), 6 % large ones of 2 pages or more
//! [write_size]
//! mixture = [
//!     { weight = 0.94, empirical = [[512, 3], [4096, 5], [8192, 2]] },
//!     { weight = 0.06, lognormal = { mean = 49152, sigma = 1.0, min = 16384, max = 1048576 } },
//! ]
//! ```
//!
//! `weight` is refused outside a mixture's component, and a component
//! without one is an error naming it: `write_size.mixture[2].weight`
//! (components count from 1). A component of weight 0 is never drawn.
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
//! ## Balanced draws
//!
//! With `balanced = true` (which [`Profile::scaled`], and so `ssdlab trace
//! generate --scale`, sets on a profile it scales down), the draws that
//! decide a profile's table row are spread evenly instead of drawn
//! independently, so that a stream of a few thousand requests has the
//! shares, mean sizes and mean rate the whole profile has (independent
//! draws of heavy-tailed sizes drift by 10 % and more at that length):
//!
//! - the direction: request k (from 1) is a read with probability
//!   `read_share · k − reads so far` (clipped to \[0, 1\]), so the reads of
//!   any prefix are within one of `read_share` times its length;
//! - the sizes of each direction and the arrival draws (the exponential gaps
//!   of each period kind, and the on and off period lengths) come from
//!   *strata*: for a quantity drawn about n times in the stream (the
//!   requests expected, times the direction's share, or the on-off cycles
//!   expected), (0, 1) is cut into n equal strata, each run of n draws
//!   takes every stratum once in a keyed random order, at a uniform place
//!   within it, and the value is the distribution's quantile there
//!   (`lognormal` through the inverse normal distribution, the others as in
//!   their independent draws).
//!
//! Every draw keeps its distribution; only their joint spread is tighter.
//! Addresses are drawn as without `balanced`. A profile scaled down keeps
//! its row within 5 % down to [`Profile::min_scale`]: at least
//! [`MIN_SCALED_REQUESTS`] requests, [`MIN_SCALED_DRAWS`] of each direction
//! that has at least 1 % of them, and [`MIN_SCALED_RUNS`] runs of each
//! sequential stream model with `run_requests` (the footprint of a few long
//! runs depends on where each lands); [`Profile::scaled`] refuses less.
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
//!    used per size); `mixture` draws one uniform to pick the component,
//!    then that component's draws;
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
//! `mixture`, `sequential`, `read_address` / `write_address`, `on-off`,
//! `duration_s`, `balanced`) draws exactly as it always has, so its stream
//! is unchanged. With `balanced`, steps 1, 2 and 5 draw as
//! [above](#balanced-draws).
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
//! the base model in [`Address::Sequential`], `duration_s` wraps the
//! arrival process in [`Arrival::Until`] (with `requests` 0), and `balanced`
//! wraps it (outside any `Until`) in [`Arrival::Balanced`]. The helpers
//! [`Address::with_sequential`], [`Address::per_op`], [`Arrival::until`],
//! [`Arrival::balanced`], [`Profile::duration_s`], [`Profile::balanced`]
//! and [`Profile::request_limit`] hide the encoding.

// Where the code is: the profile language (this documentation), `Profile`
// and its checks here; the TOML form and its error messages in `spec.rs`;
// the models and their samplers in `size.rs`, `address.rs` and
// `arrival.rs`; the request stream in `generator.rs`; the uniform draws
// every sampler shares in `rng.rs`; the platform-independent `ln`/`exp`/
// `erfc` in `dmath.rs`.

use serde::{Deserialize, Serialize};

use super::Op;
use crate::error::{Error, Result};

mod address;
mod arrival;
mod dmath;
mod generator;
mod rng;
mod size;
mod spec;

pub use address::{Address, Scatter};
pub use arrival::Arrival;
pub use generator::Generator;
pub use size::{rounded_lognormal_mean, LogNormal, SizeDist};

use size::sub_field;
use spec::ProfileSpec;

/// Default alignment unit of request offsets.
pub const DEFAULT_PAGE_BYTES: u64 = 4096;

/// Largest footprint accepted (the trace readers' address limit).
pub const MAX_FOOTPRINT_BYTES: u64 = 1 << 63;

/// Requests a profile scaled down keeps at least ([`Profile::min_scale`]).
pub const MIN_SCALED_REQUESTS: f64 = 10_000.0;

/// Requests of each direction (of 1 % or more of a profile's requests) a
/// profile scaled down keeps at least ([`Profile::min_scale`]).
pub const MIN_SCALED_DRAWS: f64 = 1000.0;

/// Sequential runs of each address model with `run_requests` a profile
/// scaled down keeps at least ([`Profile::min_scale`]).
pub const MIN_SCALED_RUNS: f64 = 100.0;

/// `x` rounded up to two significant digits (a scale limit to quote).
pub fn round_up(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return x;
    }
    // x × 10^k has two digits before the point
    let k = 1 - x.log10().floor() as i32;
    let scale = 10f64.powi(k.abs());
    if k >= 0 {
        (x * scale).ceil() / scale
    } else {
        (x / scale).ceil() * scale
    }
}

/// Most sequential streams an address model may have.
pub const MAX_STREAMS: u32 = 65_536;

/// Smallest `sigma` of a lognormal size distribution.
pub const MIN_LOGNORMAL_SIGMA: f64 = 0.01;

/// Largest `sigma` of a lognormal size distribution.
pub const MAX_LOGNORMAL_SIGMA: f64 = 4.0;

/// Shortest mean on or off period of on-off arrivals, in milliseconds.
pub const MIN_PERIOD_MS: f64 = 0.01;

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
    /// Host page-type hints of writes (PA-SSD's sHG, the NVMe access-latency
    /// field): the shares of write requests hinted LSB, CSB and MSB (the
    /// rest carry no hint); None: no hints.
    pub latency_hint: Option<[f64; 3]>,
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
            latency_hint: None,
        }
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

    /// The smallest scale [`scaled`](Self::scaled) accepts: the one that
    /// keeps [`MIN_SCALED_REQUESTS`] requests, [`MIN_SCALED_DRAWS`]
    /// requests of each direction that has at least 1 % of them, and
    /// [`MIN_SCALED_RUNS`] sequential runs in every address model whose runs
    /// end (`run_requests`). Scaled down further,
    /// a profile's mean sizes and footprint drift from the whole profile's
    /// by more than 5 % (see [balanced draws](self#balanced-draws)). Above
    /// 1 when even the whole profile has fewer.
    pub fn min_scale(&self) -> f64 {
        let n = match self.duration_s() {
            Some(d) => d * self.mean_iops(),
            None => self.requests as f64,
        };
        let mut least: f64 = MIN_SCALED_REQUESTS / n;
        let shares = [self.read_share, 1.0 - self.read_share];
        for share in shares {
            if share >= 0.01 {
                least = least.max(MIN_SCALED_DRAWS / (n * share));
            }
        }
        let mut runs = |model: &Address, requests: f64| {
            if let Address::Sequential {
                share,
                run_requests: Some(r),
                ..
            } = model
            {
                if requests * share > 0.0 {
                    least = least.max(MIN_SCALED_RUNS * r / (requests * share));
                }
            }
        };
        let (read, write) = (
            self.address.for_op(Op::Read),
            self.address.for_op(Op::Write),
        );
        if std::ptr::eq(read, write) {
            runs(read, n);
        } else {
            runs(read, n * shares[0]);
            runs(write, n * shares[1]);
        }
        least
    }

    /// This profile with `scale` times the requests and footprint.
    ///
    /// The request count becomes `round(requests × scale)` (at least 1) —
    /// or, for a profile bounded by time (`duration_s`), the duration
    /// becomes `duration_s × scale`, which scales the expected request
    /// count — and the footprint becomes `round(footprint × scale /
    /// page_bytes)` pages of `page_bytes` (at least one). Everything else
    /// stays: read share, request-size distributions, arrival process (so a
    /// count-bounded stream's duration scales too), seed, and the address
    /// model's parameters. Hot-cold fractions are relative, so the hot set
    /// scales with the footprint; a Zipf exponent keeps the shape of the
    /// skew, though the share of the hottest pages shifts slightly with the
    /// page count. Scaled down, the profile draws [balanced](self#balanced-draws),
    /// so that its shares, mean sizes and mean rate stay those of the whole
    /// profile on the shorter stream. The result is validated: a footprint
    /// scaled below the largest request is an error.
    pub fn scaled(&self, scale: f64) -> Result<Profile> {
        if !(scale > 0.0 && scale.is_finite()) {
            return Err(Error::Invalid(format!(
                "scale {scale} is not a finite number > 0"
            )));
        }
        let least = self.min_scale();
        if scale < 1.0 && scale < least {
            let limit = if least >= 1.0 {
                "it cannot be scaled down".to_string()
            } else {
                format!("its smallest scale is {}", round_up(least))
            };
            return Err(Error::Invalid(format!(
                "scale {scale} is too small for profile `{}`: {limit}. A profile scaled down keeps at \
                 least {MIN_SCALED_REQUESTS} requests, {MIN_SCALED_DRAWS} requests of each \
                 direction (of 1 % or more of them) and {MIN_SCALED_RUNS} runs of each sequential \
                 stream model that has `run_requests`, below which its mean gap between arrivals, \
                 mean sizes or footprint drift from the whole profile's by more than 5 %",
                self.name
            )));
        }
        let mut p = self.clone();
        let pages = (p.pages() as f64 * scale).round();
        let max_pages = (MAX_FOOTPRINT_BYTES / p.page_bytes) as f64;
        if pages > max_pages {
            return Err(Error::Invalid(format!(
                "scale {scale} makes the footprint of profile `{}` too large ({pages} pages of {} bytes)",
                p.name, p.page_bytes
            )));
        }
        p.footprint_bytes = (pages as u64).max(1) * p.page_bytes;
        let by_time = p.requests == 0;
        match p.arrival.duration_s_mut() {
            Some(duration_s) if by_time => *duration_s *= scale,
            _ => {
                let requests = (p.requests as f64 * scale).round();
                if requests > u64::MAX as f64 {
                    return Err(Error::Invalid(format!(
                        "scale {scale} makes profile `{}` too long ({requests} requests)",
                        p.name
                    )));
                }
                p.requests = (requests as u64).max(1);
            }
        }
        if scale < 1.0 {
            p.arrival = p.arrival.balanced();
        }
        p.validate(&format!("profile `{}` scaled by {scale}", p.name))?;
        Ok(p)
    }

    /// Whether the profile draws balanced (TOML `balanced = true`, kept in
    /// [`Arrival::Balanced`]).
    pub fn balanced(&self) -> bool {
        self.arrival.is_balanced()
    }

    /// The long-run mean arrival rate in requests per second.
    pub fn mean_iops(&self) -> f64 {
        self.arrival.mean_iops()
    }

    /// The exact mean size in bytes of the requests of direction `op` (NaN
    /// if the profile has no valid size distribution for it, as for trims,
    /// which profiles do not generate); for
    /// `lognormal` sizes without `max`, capped at this footprint.
    pub fn mean_size(&self, op: Op) -> f64 {
        let dist = match op {
            Op::Read => &self.read_size,
            Op::Write => &self.write_size,
            Op::Trim => &None,
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
        if let Some(h) = self.latency_hint {
            let sum: f64 = h.iter().sum();
            if h.iter().any(|x| !(0.0..=1.0).contains(x)) || sum.is_nan() || sum > 1.0 + 1e-9 {
                return err(
                    "latency_hint",
                    format!(
                        "shares {h:?} must each lie in [0, 1] and add up to at most 1 (the rest of the writes carry no hint)"
                    ),
                );
            }
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
                        .map_err(|(sub, msg)| Error::config(origin, sub_field(field, &sub), msg))?;
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
            Arrival::Until { .. } | Arrival::Balanced { .. } => {
                unreachable!("process() unwraps Until and Balanced")
            }
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

    /// `PerOp`, `Balanced` and `Until` only at the top (in that order),
    /// `Sequential` only over a plain model.
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
        let unbalanced = match &self.arrival {
            Arrival::Balanced { process } => process,
            a => a,
        };
        let plain = match unbalanced {
            Arrival::Until { process, .. } => process,
            a => a,
        };
        if matches!(plain, Arrival::Until { .. } | Arrival::Balanced { .. }) {
            return Err((
                "duration_s".into(),
                "`Until` and `Balanced` arrival processes only wrap a plain one, \
                 `Balanced` outside `Until`"
                    .into(),
            ));
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
