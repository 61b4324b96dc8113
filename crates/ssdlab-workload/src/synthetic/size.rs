//! Request sizes: [`SizeDist`] and [`LogNormal`] as written, and the
//! compiled `SizeSampler` with the lognormal mean and its solver.

use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::dmath;
use super::rng::{below, unit};
use super::{MAX_FOOTPRINT_BYTES, MAX_LOGNORMAL_SIGMA, MIN_LOGNORMAL_SIGMA};
use crate::error::{Error, Result};

/// A request-size distribution: exactly one of `fixed` (with optional
/// `weights`), `empirical`, `uniform`, `lognormal` or `mixture`; see
/// [request sizes](super#request-sizes).
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
    /// A weighted mixture of distributions: each component is a `SizeDist`
    /// of its own (not a mixture) with its `weight`; see
    /// [mixtures](super#mixtures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mixture: Option<Vec<SizeDist>>,
    /// The relative weight (finite, ≥ 0) of this distribution as a component
    /// of a `mixture`; only there, and required there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
}

/// Lognormal request sizes: see [lognormal sizes](super#lognormal-sizes).
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
    /// Smallest size in bytes (rounded up to a page); one page when left
    /// out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<u64>,
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

    /// Smallest size in pages: `min` rounded up to whole pages, at least 1.
    fn min_pages(&self, page_bytes: u64) -> u64 {
        match (self.min, page_bytes) {
            (Some(m), p) if p > 0 => m.div_ceil(p).max(1),
            _ => 1,
        }
    }

    /// μ, the mean of ln(size in bytes) before rounding, solved so that the
    /// generated sizes have mean `mean`; `cap_bytes` stands for `max` when
    /// it is not given (a profile uses its footprint). NaN if the parameters
    /// are invalid.
    pub fn location(&self, page_bytes: u64, cap_bytes: u64) -> f64 {
        let k_max = self.max_pages(page_bytes, cap_bytes);
        let k_min = self.min_pages(page_bytes);
        if !self.feasible(page_bytes, k_min, k_max) {
            return f64::NAN;
        }
        solve_location(self.mean / page_bytes as f64, self.sigma, k_min, k_max)
            + dmath::ln(page_bytes as f64)
    }

    /// The exact mean of the generated sizes in bytes (equal to `mean` up to
    /// ~1e−9 relative): see [`rounded_lognormal_mean`]. NaN if invalid.
    pub fn expected_mean(&self, page_bytes: u64, cap_bytes: u64) -> f64 {
        let mu = self.location(page_bytes, cap_bytes);
        if mu.is_nan() {
            return f64::NAN;
        }
        let p = page_bytes as f64;
        p * clamped_mean_pages(
            mu - dmath::ln(p),
            self.sigma,
            self.min_pages(page_bytes),
            self.max_pages(page_bytes, cap_bytes),
        )
    }

    fn feasible(&self, page_bytes: u64, k_min: u64, k_max: u64) -> bool {
        page_bytes > 0
            && k_max >= 1
            && k_min < k_max
            && (MIN_LOGNORMAL_SIGMA..=MAX_LOGNORMAL_SIGMA).contains(&self.sigma)
            && self.mean > (k_min as f64) * page_bytes as f64
            && self.mean < (k_max as f64) * page_bytes as f64
    }
}

/// The exact mean, in bytes, of `clamp(ceil(Y / p), 1, K) · p` with
/// `Y = exp(mu + sigma·Z)` bytes, Z standard normal, `p = page_bytes` and
/// `K = max_bytes / p`: that is
/// `p · (1 + Σ_{k=1}^{K−1} Q((ln(k·p) − mu) / sigma))`, evaluated
/// deterministically in O(1) time (see
/// [lognormal sizes](super#lognormal-sizes)). NaN unless `page_bytes > 0`,
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
            lognormal: Some(LogNormal {
                mean,
                sigma,
                max,
                min: None,
            }),
            ..SizeDist::default()
        }
    }

    /// Check the distribution; `field` names it in errors (e.g. `read_size`).
    /// A `lognormal` without `max` is checked as if the footprint were 2^63
    /// bytes ([`Profile::validate`](super::Profile::validate) checks it
    /// against the real footprint).
    pub fn validate(&self, origin: &str, field: &str, page_bytes: u64) -> Result<()> {
        self.compile(page_bytes, MAX_FOOTPRINT_BYTES, false)
            .map(|_| ())
            .map_err(|(sub, msg)| Error::config(origin, sub_field(field, &sub), msg))
    }

    /// Mean request size in bytes (for a valid distribution; NaN otherwise),
    /// exact: for `lognormal` this is the mean after rounding and clamping
    /// (equal to its `mean` up to ~1e−9), without `max` as if the footprint
    /// were 2^63 bytes — [`Profile::mean_size`](super::Profile::mean_size)
    /// uses the real footprint.
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
    pub(super) fn compile(
        &self,
        page_bytes: u64,
        cap_bytes: u64,
        solve: bool,
    ) -> std::result::Result<SizeSampler, (String, String)> {
        if self.weight.is_some() {
            return Err((
                "weight".into(),
                "only a component of a `mixture` has a `weight`".into(),
            ));
        }
        self.compile_any(page_bytes, cap_bytes, solve)
    }

    /// [`compile`](Self::compile) without the check on `weight`.
    fn compile_any(
        &self,
        page_bytes: u64,
        cap_bytes: u64,
        solve: bool,
    ) -> std::result::Result<SizeSampler, (String, String)> {
        let given: Vec<&str> = [
            ("fixed", self.fixed.is_some()),
            ("uniform", self.uniform.is_some()),
            ("empirical", self.empirical.is_some()),
            ("lognormal", self.lognormal.is_some()),
            ("mixture", self.mixture.is_some()),
        ]
        .iter()
        .filter(|(_, g)| *g)
        .map(|(n, _)| *n)
        .collect();
        if given.len() > 1 {
            return Err((
                String::new(),
                format!(
                    "give only one of `fixed`, `empirical`, `uniform`, `lognormal` and `mixture` (found `{}`)",
                    given.join("` and `")
                ),
            ));
        }
        if given.is_empty() {
            return Err((
                String::new(),
                "give `fixed = [bytes, ...]` (optionally with `weights`), `empirical = [[bytes, weight], ...]`, \
                 `uniform = [min, max]`, `lognormal = { mean = bytes, sigma = s }` or \
                 `mixture = [{ weight = w, ... }, ...]`"
                    .into(),
            ));
        }
        if self.weights.is_some() && self.fixed.is_none() {
            return Err((
                "weights".into(),
                format!("`weights` go with `fixed` sizes, not `{}`", given[0]),
            ));
        }
        let own = |(sub, msg): (&'static str, String)| (sub.to_string(), msg);
        if let Some(sizes) = &self.fixed {
            return fixed_sampler(sizes, self.weights.as_deref(), "fixed", "weights").map_err(own);
        }
        if let Some(pairs) = &self.empirical {
            let sizes: Vec<u64> = pairs.iter().map(|p| p.0).collect();
            let weights: Vec<f64> = pairs.iter().map(|p| p.1).collect();
            return fixed_sampler(&sizes, Some(&weights), "empirical", "empirical").map_err(own);
        }
        if let Some(ln) = &self.lognormal {
            return lognormal_sampler(ln, page_bytes, cap_bytes, solve).map_err(own);
        }
        if let Some(parts) = &self.mixture {
            return mixture_sampler(parts, page_bytes, cap_bytes, solve);
        }
        let Some([min, max]) = self.uniform else {
            unreachable!("one distribution is given")
        };
        uniform_sampler(min, max, page_bytes).map_err(own)
    }
}

/// The sampler of `uniform = [min, max]`.
fn uniform_sampler(
    min: u64,
    max: u64,
    page_bytes: u64,
) -> std::result::Result<SizeSampler, (&'static str, String)> {
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

/// The sampler of a `mixture`: every component compiled (errors name it
/// `mixture[i]`, counting from 1), with its weight.
fn mixture_sampler(
    parts: &[SizeDist],
    page_bytes: u64,
    cap_bytes: u64,
    solve: bool,
) -> std::result::Result<SizeSampler, (String, String)> {
    if parts.is_empty() {
        return Err(("mixture".into(), "the list of components is empty".into()));
    }
    let mut samplers = Vec::with_capacity(parts.len());
    let mut cumulative = Vec::with_capacity(parts.len());
    let mut total = 0.0;
    for (i, part) in parts.iter().enumerate() {
        let at = format!("mixture[{}]", i + 1);
        let Some(w) = part.weight else {
            return Err((
                at,
                "a component needs a `weight` (a finite number >= 0)".into(),
            ));
        };
        if !(w.is_finite() && w >= 0.0) {
            return Err((
                format!("{at}.weight"),
                format!("{w} is not a finite number >= 0"),
            ));
        }
        if part.mixture.is_some() {
            return Err((
                format!("{at}.mixture"),
                "a component cannot itself be a mixture".into(),
            ));
        }
        let s = part
            .compile_any(page_bytes, cap_bytes, solve)
            .map_err(|(sub, msg)| (sub_field(&at, &sub), msg))?;
        total += w;
        samplers.push(s);
        cumulative.push(total);
    }
    if !(total > 0.0 && total.is_finite()) {
        return Err((
            "mixture".into(),
            "the components' weights must have a positive, finite sum".into(),
        ));
    }
    Ok(SizeSampler::Mixture {
        parts: samplers,
        cumulative,
        total,
    })
}

/// `field.sub`, or `field` when `sub` is empty.
pub(super) fn sub_field(field: &str, sub: &str) -> String {
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
    let k_min = ln.min_pages(page_bytes);
    if let Some(m) = ln.min {
        if m == 0 {
            return Err(("lognormal.min", "is 0; sizes must be positive".into()));
        }
        if k_min >= k_max {
            return Err((
                "lognormal.min",
                format!(
                    "{m} in whole pages ({} bytes) is not below the largest size ({top} bytes)",
                    k_min.saturating_mul(page_bytes)
                ),
            ));
        }
    }
    if !ln.feasible(page_bytes, k_min, k_max) {
        let what = if ln.max.is_some() {
            "`max` in whole pages"
        } else {
            "the footprint in whole pages"
        };
        let bottom = match ln.min {
            Some(_) => format!(
                "the smallest size ({} bytes, `min` in whole pages)",
                k_min * page_bytes
            ),
            None => format!("page_bytes ({page_bytes})"),
        };
        return Err((
            "lognormal.mean",
            format!(
                "{} is not strictly between {bottom} and the largest size ({top} bytes, {what})",
                ln.mean
            ),
        ));
    }
    let loc = if solve {
        solve_location(ln.mean / page_bytes as f64, ln.sigma, k_min, k_max)
    } else {
        f64::NAN
    };
    Ok(SizeSampler::LogNormal {
        loc,
        sigma: ln.sigma,
        k_min,
        k_max,
        page_bytes,
    })
}

/// A compiled size distribution.
#[derive(Clone, Debug)]
pub(super) enum SizeSampler {
    Fixed {
        sizes: Vec<u64>,
        cumulative: Vec<f64>,
        total: f64,
    },
    /// `(lo + uniform(span)) * page_bytes`.
    Pages { lo: u64, span: u64, page_bytes: u64 },
    /// `clamp(ceil(exp(loc + sigma Z)), k_min, k_max) * page_bytes` (`loc`
    /// in ln pages).
    LogNormal {
        loc: f64,
        sigma: f64,
        k_min: u64,
        k_max: u64,
        page_bytes: u64,
    },
    /// One of `parts`, picked with probability proportional to its weight
    /// (`cumulative` holds the running sums of the weights).
    Mixture {
        parts: Vec<SizeSampler>,
        cumulative: Vec<f64>,
        total: f64,
    },
}

impl SizeSampler {
    pub(super) fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> u64 {
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
                k_min,
                k_max,
                page_bytes,
            } => {
                let y = dmath::exp(loc + sigma * std_normal(rng));
                // y >= k_max (or NaN, which cannot happen) gives the largest
                let pages = if y < *k_max as f64 {
                    (y.ceil() as u64).clamp(*k_min, *k_max)
                } else {
                    *k_max
                };
                pages * page_bytes
            }
            SizeSampler::Mixture {
                parts,
                cumulative,
                total,
            } => {
                let x = unit(rng) * total;
                let i = cumulative.partition_point(|&c| c <= x);
                parts[i.min(parts.len() - 1)].sample(rng)
            }
        }
    }

    /// The size at quantile `u` in (0, 1) of the distribution [`sample`]
    /// draws from (a profile's `balanced` draws).
    ///
    /// [`sample`]: SizeSampler::sample
    pub(super) fn quantile(&self, u: f64) -> u64 {
        match self {
            SizeSampler::Fixed {
                sizes,
                cumulative,
                total,
            } => {
                let x = u * total;
                let i = cumulative.partition_point(|&c| c <= x);
                sizes[i.min(sizes.len() - 1)]
            }
            SizeSampler::Pages {
                lo,
                span,
                page_bytes,
            } => (lo + ((u * *span as f64) as u64).min(span - 1)) * page_bytes,
            SizeSampler::LogNormal {
                loc,
                sigma,
                k_min,
                k_max,
                page_bytes,
            } => {
                let y = dmath::exp(loc + sigma * dmath::normal_quantile(u));
                let pages = if y < *k_max as f64 {
                    (y.ceil() as u64).clamp(*k_min, *k_max)
                } else {
                    *k_max
                };
                pages * page_bytes
            }
            SizeSampler::Mixture {
                parts,
                cumulative,
                total,
            } => {
                let x = u * total;
                let i = cumulative.partition_point(|&c| c <= x).min(parts.len() - 1);
                let lo = if i == 0 { 0.0 } else { cumulative[i - 1] };
                let w = cumulative[i] - lo;
                let v = if w > 0.0 { (x - lo) / w } else { 0.5 };
                parts[i].quantile(v.clamp(f64::MIN_POSITIVE, 1.0 - f64::EPSILON / 2.0))
            }
        }
    }

    pub(super) fn mean(&self) -> f64 {
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
                k_min,
                k_max,
                page_bytes,
            } => *page_bytes as f64 * clamped_mean_pages(*loc, *sigma, *k_min, *k_max),
            SizeSampler::Mixture {
                parts,
                cumulative,
                total,
            } => {
                let mut prev = 0.0;
                let mut sum = 0.0;
                for (p, c) in parts.iter().zip(cumulative) {
                    if c > &prev {
                        sum += p.mean() * (c - prev);
                    }
                    prev = *c;
                }
                sum / total
            }
        }
    }

    pub(super) fn max(&self) -> u64 {
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
            // a component of weight 0 is never drawn
            SizeSampler::Mixture {
                parts, cumulative, ..
            } => {
                let mut prev = 0.0;
                let mut largest = 0;
                for (p, c) in parts.iter().zip(cumulative) {
                    if *c > prev {
                        largest = largest.max(p.max());
                    }
                    prev = *c;
                }
                largest
            }
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

/// E[clamp(ceil(Y), k_min, k_max)] for Y = exp(loc + sigma·Z) (in pages),
/// 1 ≤ k_min ≤ k_max: `k_min + Σ_{k=k_min}^{k_max−1} P(Y > k)`, which is
/// `k_min + f(k_max) − f(k_min)` with `f = rounded_mean_pages` (exactly
/// `f(k_max)` when k_min is 1).
fn clamped_mean_pages(loc: f64, sigma: f64, k_min: u64, k_max: u64) -> f64 {
    if k_min <= 1 {
        return rounded_mean_pages(loc, sigma, k_max);
    }
    if k_min >= k_max {
        return k_max as f64;
    }
    k_min as f64 + (rounded_mean_pages(loc, sigma, k_max) - rounded_mean_pages(loc, sigma, k_min))
}

/// The location (in ln pages) whose rounded, clamped lognormal has mean
/// `target` pages, k_min < target < k_max: bisection on the increasing
/// function `clamped_mean_pages(·, sigma, k_min, k_max)`.
fn solve_location(target: f64, sigma: f64, k_min: u64, k_max: u64) -> f64 {
    let f = |loc: f64| clamped_mean_pages(loc, sigma, k_min, k_max) - target;
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn clamped_mean_matches_brute_force_and_solves() {
        for (loc, sigma, k_min, k_max) in [
            (1.0, 1.0, 2u64, 128u64),
            (3f64.ln(), 2.0, 4, 100_000),
            (0.0, 0.5, 3, 3),
            (50f64.ln(), 0.01, 2, 1000),
            (500f64.ln(), 1.5, 100, 1_000_000),
        ] {
            let brute = k_min.min(k_max) as f64
                + (k_min..k_max)
                    .map(|k| dmath::normal_sf((dmath::ln(k as f64) - loc) / sigma))
                    .sum::<f64>();
            let got = clamped_mean_pages(loc, sigma, k_min, k_max);
            assert!(
                ((got - brute) / brute).abs() < 1e-10,
                "{loc} {sigma} {k_min} {k_max}: {got} vs {brute}"
            );
        }
        // k_min 1 is the unclamped-below mean, bit for bit
        assert_eq!(
            clamped_mean_pages(0.7, 1.1, 1, 256).to_bits(),
            rounded_mean_pages(0.7, 1.1, 256).to_bits()
        );
        for (target, sigma, k_min, k_max) in [
            (3.0, 1.0, 2u64, 256u64),
            (40.0, 1.0, 2, 128),
            (2.0001, 0.3, 2, 1 << 20),
        ] {
            let loc = solve_location(target, sigma, k_min, k_max);
            let got = clamped_mean_pages(loc, sigma, k_min, k_max);
            assert!(((got - target) / target).abs() < 1e-9, "{target}: {got}");
        }
    }

    #[test]
    fn mixture_errors_name_the_component() {
        let part = |w: Option<f64>, d: SizeDist| SizeDist { weight: w, ..d };
        let mix = |parts: Vec<SizeDist>| SizeDist {
            mixture: Some(parts),
            ..SizeDist::default()
        };
        let cases = [
            (mix(vec![]), "mixture"),
            (
                mix(vec![part(None, SizeDist::constant(4096))]),
                "mixture[1]",
            ),
            (
                mix(vec![
                    part(Some(1.0), SizeDist::constant(4096)),
                    part(Some(f64::NAN), SizeDist::constant(4096)),
                ]),
                "mixture[2].weight",
            ),
            (
                mix(vec![
                    part(Some(1.0), SizeDist::constant(4096)),
                    part(Some(1.0), SizeDist::uniform(100, 200)),
                ]),
                "mixture[2].uniform",
            ),
            (
                mix(vec![part(
                    Some(1.0),
                    mix(vec![part(Some(1.0), SizeDist::constant(1))]),
                )]),
                "mixture[1].mixture",
            ),
            (part(Some(1.0), SizeDist::constant(4096)), "weight"),
        ];
        for (d, field) in cases {
            let (sub, msg) = d.compile(4096, 1 << 40, true).unwrap_err();
            assert_eq!(sub, field, "{msg}");
        }
        // weight-0 components are never drawn and do not count for the maximum
        let d = mix(vec![
            part(Some(1.0), SizeDist::constant(4096)),
            part(Some(0.0), SizeDist::constant(1 << 30)),
        ]);
        assert_eq!(d.max_bytes(4096), 4096);
        assert_eq!(d.mean(4096), 4096.0);
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
            let loc = solve_location(target, sigma, 1, k_max);
            let got = rounded_mean_pages(loc, sigma, k_max);
            assert!(
                ((got - target) / target).abs() < 1e-9,
                "{target} {sigma} {k_max}: {got} at {loc}"
            );
        }
    }
}
