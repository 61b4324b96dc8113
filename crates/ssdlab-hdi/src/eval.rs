//! Replaying an LBA stream through several identifiers and comparing them
//! with the WDAC reference.

use serde::{Deserialize, Serialize};

use crate::HotDataIdentifier;

/// Results of one scheme in an [`Evaluation`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SchemeResult {
    /// Scheme name.
    pub name: String,
    /// Writes judged hot during the evaluation.
    pub hot: u64,
    /// Writes judged cold by the scheme's (post-)identifier.
    pub cold: u64,
    /// Writes judged cold by a dual-layer pre-classifier ("cold I").
    pub cold_i: u64,
    /// `hot / writes` (0 when there were no writes).
    pub hot_ratio: f64,
    /// `cold_i / writes` (0 when there were no writes).
    pub cold_i_ratio: f64,
    /// Hot ratio of each interval of `interval` writes (the last one may be
    /// shorter).
    pub hot_ratio_per_interval: Vec<f64>,
    /// Number of writes whose decision differs from the reference's.
    pub false_identifications: u64,
    /// `false_identifications / writes`: the false identification rate
    /// (0 for the reference itself).
    pub false_identification_rate: f64,
    /// False identification rate of each interval.
    pub false_identification_rate_per_interval: Vec<f64>,
    /// Size of the structures in bits as the paper counts them.
    pub memory_bits: u64,
    /// `memory_bits` rounded up to bytes.
    pub memory_bytes: usize,
    /// Decay operations performed during the evaluation.
    pub decays: u64,
    /// Bits those decays reset or aged (an operation count of their cost;
    /// [`HotDataIdentifier::decay_bits`]); None where not modelled.
    #[serde(default)]
    pub decay_bits: Option<u64>,
}

/// The outcome of [`evaluate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Number of writes replayed.
    pub writes: u64,
    /// Interval length in writes (0: no per-interval breakdown).
    pub interval: u64,
    /// Name of the reference scheme (the first one), if any.
    pub reference: Option<String>,
    /// One result per scheme, in the order given; the first is the reference.
    pub schemes: Vec<SchemeResult>,
}

impl Evaluation {
    /// The result of the scheme called `name`, if present.
    pub fn scheme(&self, name: &str) -> Option<&SchemeResult> {
        self.schemes.iter().find(|s| s.name == name)
    }
}

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// Replay `lbas` through every scheme and compare each with `schemes[0]`,
/// the reference (normally WDAC).
///
/// Each write is given to every scheme via
/// [`HotDataIdentifier::record_write`]; a scheme's decision is a false
/// identification when it differs from the reference's decision for the
/// same write. Ratios are reported overall and for consecutive intervals of
/// `interval` writes (`interval == 0` gives empty per-interval vectors).
/// Counts and decays are those accumulated during this call, so schemes may
/// be pre-warmed. An empty `schemes` slice just consumes the stream.
pub fn evaluate<I>(lbas: I, schemes: &mut [Box<dyn HotDataIdentifier>], interval: u64) -> Evaluation
where
    I: IntoIterator<Item = u64>,
{
    let n = schemes.len();
    let start_counts: Vec<_> = schemes.iter().map(|s| s.counts()).collect();
    let start_decays: Vec<_> = schemes.iter().map(|s| s.decays()).collect();
    let start_decay_bits: Vec<_> = schemes.iter().map(|s| s.decay_bits()).collect();
    let mut hot = vec![0u64; n];
    let mut wrong = vec![0u64; n];
    let mut iv_hot = vec![0u64; n];
    let mut iv_wrong = vec![0u64; n];
    let mut per_iv_hot: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut per_iv_fir: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut writes = 0u64;
    let mut iv_writes = 0u64;
    let mut decisions = vec![false; n];

    for lba in lbas {
        for (d, s) in decisions.iter_mut().zip(schemes.iter_mut()) {
            *d = s.record_write(lba);
        }
        if let Some(&reference) = decisions.first() {
            for i in 0..n {
                let h = decisions[i];
                let w = h != reference;
                hot[i] += u64::from(h);
                wrong[i] += u64::from(w);
                iv_hot[i] += u64::from(h);
                iv_wrong[i] += u64::from(w);
            }
        }
        writes += 1;
        iv_writes += 1;
        if interval > 0 && iv_writes == interval {
            for i in 0..n {
                per_iv_hot[i].push(ratio(iv_hot[i], iv_writes));
                per_iv_fir[i].push(ratio(iv_wrong[i], iv_writes));
                iv_hot[i] = 0;
                iv_wrong[i] = 0;
            }
            iv_writes = 0;
        }
    }
    if interval > 0 && iv_writes > 0 {
        for i in 0..n {
            per_iv_hot[i].push(ratio(iv_hot[i], iv_writes));
            per_iv_fir[i].push(ratio(iv_wrong[i], iv_writes));
        }
    }

    let results = schemes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let c = s.counts();
            let c0 = start_counts[i];
            let cold_i = c.cold_i.saturating_sub(c0.cold_i);
            SchemeResult {
                name: s.name().to_string(),
                hot: hot[i],
                cold: (writes - hot[i]).saturating_sub(cold_i),
                cold_i,
                hot_ratio: ratio(hot[i], writes),
                cold_i_ratio: ratio(cold_i, writes),
                hot_ratio_per_interval: std::mem::take(&mut per_iv_hot[i]),
                false_identifications: wrong[i],
                false_identification_rate: ratio(wrong[i], writes),
                false_identification_rate_per_interval: std::mem::take(&mut per_iv_fir[i]),
                memory_bits: s.memory_bits(),
                memory_bytes: s.memory_bytes(),
                decays: s.decays().saturating_sub(start_decays[i]),
                decay_bits: s
                    .decay_bits()
                    .map(|b| b.saturating_sub(start_decay_bits[i].unwrap_or(0))),
            }
        })
        .collect();

    Evaluation {
        writes,
        interval,
        reference: schemes.first().map(|s| s.name().to_string()),
        schemes: results,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn empty_inputs() {
        let e = evaluate(std::iter::empty(), &mut [], 10);
        assert_eq!(e.writes, 0);
        assert!(e.schemes.is_empty());
        let mut s = presets::paper_set();
        let e = evaluate(std::iter::empty(), &mut s, 0);
        assert_eq!(e.schemes.len(), 6);
        assert_eq!(e.schemes[0].hot_ratio, 0.0);
        assert!(e.schemes[0].hot_ratio_per_interval.is_empty());
    }

    #[test]
    fn reference_has_zero_fir_and_intervals_cover_stream() {
        let mut s = presets::paper_set();
        let e = evaluate((0..1000u64).map(|i| i % 7), &mut s, 300);
        assert_eq!(e.writes, 1000);
        for r in &e.schemes {
            assert_eq!(r.hot_ratio_per_interval.len(), 4);
            assert_eq!(r.hot + r.cold + r.cold_i, 1000, "{}", r.name);
        }
        assert_eq!(e.schemes[0].false_identification_rate, 0.0);
        assert!(e.schemes[0].hot_ratio > 0.9);
    }
}
