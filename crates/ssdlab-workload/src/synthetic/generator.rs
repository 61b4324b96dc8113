//! The request stream of a profile: [`Generator`] and what a profile
//! compiles to.

use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::address::{AddrModel, AddrSampler, Geometry, Scatter};
use super::arrival::ArrivalSampler;
use super::rng::{unit, Strata};
use super::size::{sub_field, SizeSampler};
use super::{Profile, SizeDist};
use crate::error::{Error, Result};
use crate::{IoRecord, Op};

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
    /// `latency_hint`: cumulative shares of writes hinted LSB, CSB, MSB.
    hint: Option<[f64; 3]>,
    /// `balanced`: reads so far, and the draws of read and write sizes.
    balanced: Option<Balanced>,
}

/// The state of a profile's `balanced` draws (besides the arrivals').
#[derive(Clone, Debug)]
struct Balanced {
    reads: u64,
    sizes: [Strata; 2],
}

impl Compiled {
    fn new(p: &Profile, origin: &str) -> Result<Compiled> {
        p.validate(origin)?;
        let compile = |d: &Option<SizeDist>, field: &str| -> Result<Option<SizeSampler>> {
            d.as_ref()
                .map(|d| {
                    d.compile(p.page_bytes, p.footprint_bytes, true)
                        .map_err(|(sub, msg)| Error::config(origin, sub_field(field, &sub), msg))
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
        // `balanced`: strata sized for the requests expected
        let expected = match p.duration_s() {
            Some(d) => d * p.arrival.mean_iops(),
            None => p.requests as f64,
        };
        let balanced = p.balanced().then(|| Balanced {
            reads: 0,
            sizes: [
                Strata::new(
                    (expected * p.read_share).round() as u64,
                    p.seed ^ 0x7265_6164,
                ),
                Strata::new(
                    (expected * (1.0 - p.read_share)).round() as u64,
                    p.seed ^ 0x7772_6974,
                ),
            ],
        });
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
            arrival: ArrivalSampler::new(
                &p.arrival,
                p.balanced().then_some((expected, p.seed ^ 0x6172_7269)),
            ),
            limit,
            hint: p.latency_hint.map(|[l, c, m]| [l, l + c, l + c + m]),
            balanced,
        })
    }
}

/// Generates the requests of a [`Profile`]; see the [module documentation](super).
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
        // `balanced`: a read with the probability that keeps the reads so
        // far within one of read_share × requests
        let read_odds = match &c.balanced {
            Some(b) => c.read_share * (self.emitted + 1) as f64 - b.reads as f64,
            None => c.read_share,
        };
        let op = if unit(rng) < read_odds {
            Op::Read
        } else {
            Op::Write
        };
        let sizes = match op {
            Op::Read => &c.read_size,
            Op::Write | Op::Trim => &c.write_size,
        };
        // validate() requires the distribution of every op that can occur
        let size = match (sizes, &mut c.balanced) {
            (Some(s), Some(b)) => {
                let k = usize::from(op != Op::Read);
                b.reads += u64::from(op == Op::Read);
                s.quantile(b.sizes[k].next(rng))
            }
            (Some(s), None) => s.sample(rng),
            (None, _) => {
                return Err(Error::Invalid(format!(
                    "internal: no size distribution for {op:?} requests"
                )))
            }
        };
        let model = match op {
            Op::Read => c.read_model,
            Op::Write | Op::Trim => c.write_model,
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
        // Drawn last, and only with hints, so that profiles without them
        // keep their streams.
        let hint = match (op, c.hint) {
            (Op::Write, Some(cum)) => {
                let u = unit(&mut self.rng);
                cum.iter().position(|&c| u < c).map(|t| t as u8)
            }
            _ => None,
        };
        self.emitted += 1;
        Ok(Some(
            IoRecord::new(time_ns, op, offset, size).with_hint(hint),
        ))
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
