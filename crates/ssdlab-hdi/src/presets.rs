//! The configurations of the paper's Table 1, ready to use.
//!
//! | scheme | structure | decay window | threshold | bits |
//! |---|---|---|---|---|
//! | WDAC | window of 2^12 LBAs | sliding | 4 | 131072 |
//! | MIHF | 2^12 × 4-bit counters, K = 2 | 2^12 (halving) | H = 2 | 16384 |
//! | MBF | 4 × 2^11-bit filters, K = 2 | 2^9 | 4 | 8192 |
//! | DL-MBF_s | pre 2^11 + post 4 × 2^11 | pre see [`PreClassifierParams`], post 2^8 | 2 | 10240 |
//! | DL-MBF_c | pre 2^11 + post 4 × 2^10 | pre see [`PreClassifierParams`], post 2^8 | 2 | 6144 |
//! | DL-MBF_a | pre 2^11 + post 8 × 2^10 | pre see [`PreClassifierParams`], post 2^8 | 2 | 10240 |
//! | DL-MIHF | pre 2^11 + MIHF with decay window 2^11 | | H = 2 | 18432 |

use crate::{
    DualLayer, HotDataIdentifier, Mbf, MbfParams, Mihf, MihfParams, PreClassifierParams,
    UpdateWindow, UpdateWindowParams, Wdac, WdacParams,
};

/// WDAC with Table 1 parameters.
pub fn wdac() -> Wdac {
    Wdac::new(WdacParams::default())
}

/// MIHF with Table 1 parameters.
pub fn mihf() -> Mihf {
    Mihf::new(MihfParams::default())
}

/// MBF with Table 1 parameters.
pub fn mbf() -> Mbf {
    Mbf::new(MbfParams::default())
}

/// Post-identifier MBF of DL-MBF: half MBF's decay window (2^8) and hot
/// threshold 2, with `filters` filters of `bits` bits.
pub fn dl_post_mbf(filters: usize, bits: usize) -> Mbf {
    Mbf::with_name(
        "MBF(post)",
        MbfParams {
            filters,
            bits_per_filter: bits,
            decay_window: 1 << 8,
            hot_threshold: 2.0,
            ..MbfParams::default()
        },
    )
}

/// DL-MBF with a given name, pre-classifier parameters and post filters.
pub fn dl_mbf_with(
    name: &str,
    pre: PreClassifierParams,
    filters: usize,
    bits: usize,
) -> DualLayer<Mbf> {
    DualLayer::new(name, pre, dl_post_mbf(filters, bits))
}

/// DL-MBF (the default DL-MBF, identical to DL-MBF_s but named "DL-MBF").
pub fn dl_mbf() -> DualLayer<Mbf> {
    dl_mbf_with("DL-MBF", PreClassifierParams::default(), 4, 1 << 11)
}

/// DL-MBF_s: post-identifier of 4 × 2^11-bit filters.
pub fn dl_mbf_s() -> DualLayer<Mbf> {
    dl_mbf_with("DL-MBF_s", PreClassifierParams::default(), 4, 1 << 11)
}

/// DL-MBF_c: post-identifier of 4 × 2^10-bit filters.
pub fn dl_mbf_c() -> DualLayer<Mbf> {
    dl_mbf_with("DL-MBF_c", PreClassifierParams::default(), 4, 1 << 10)
}

/// DL-MBF_a: post-identifier of 8 × 2^10-bit filters.
pub fn dl_mbf_a() -> DualLayer<Mbf> {
    dl_mbf_with("DL-MBF_a", PreClassifierParams::default(), 8, 1 << 10)
}

/// DL-MIHF: the pre-classifier in front of MIHF (Table 1 counters, decay
/// window halved to 2^11 by analogy with DL-MBF). Not a Table 1 scheme; it
/// shows the framework taking another post-identifier.
pub fn dl_mihf() -> DualLayer<Box<dyn HotDataIdentifier>> {
    let post: Box<dyn HotDataIdentifier> = Box::new(Mihf::with_name(
        "MIHF(post)",
        MihfParams {
            decay_window: 1 << 11,
            ..MihfParams::default()
        },
    ));
    DualLayer::new("DL-MIHF", PreClassifierParams::default(), post)
}

/// The paper's comparison set, reference first: WDAC, MIHF, MBF, DL-MBF_s,
/// DL-MBF_c, DL-MBF_a.
pub fn paper_set() -> Vec<Box<dyn HotDataIdentifier>> {
    vec![
        Box::new(wdac()),
        Box::new(mihf()),
        Box::new(mbf()),
        Box::new(dl_mbf_s()),
        Box::new(dl_mbf_c()),
        Box::new(dl_mbf_a()),
    ]
}

/// Names of the schemes [`by_name`] knows, as the command line and
/// configurations spell them.
pub const NAMES: &[&str] = &[
    "wdac", "mihf", "mbf", "dl-mbf", "dl-mbf-s", "dl-mbf-c", "dl-mbf-a", "dl-mihf",
];

/// Identifiers whose window is measured in time rather than in writes; they
/// need a clock ([`HotDataIdentifier::set_time_ns`]) and are built with
/// their parameters by [`update_window`], not by [`by_name`].
pub const TIMED_NAMES: &[&str] = &["update-window"];

/// The SPD paper's hotness: a page is hot when written at least
/// `hot_updates` times within the last `window_ns` of simulated time.
pub fn update_window(window_ns: u64, hot_updates: u32) -> UpdateWindow {
    UpdateWindow::new(UpdateWindowParams {
        window_ns,
        hot_updates,
    })
}

/// A scheme with Table 1 parameters by its name (see [`NAMES`]).
pub fn by_name(name: &str) -> Option<Box<dyn HotDataIdentifier>> {
    Some(match name {
        "wdac" => Box::new(wdac()),
        "mihf" => Box::new(mihf()),
        "mbf" => Box::new(mbf()),
        "dl-mbf" => Box::new(dl_mbf()),
        "dl-mbf-s" => Box::new(dl_mbf_s()),
        "dl-mbf-c" => Box::new(dl_mbf_c()),
        "dl-mbf-a" => Box::new(dl_mbf_a()),
        "dl-mihf" => Box::new(dl_mihf()),
        _ => return None,
    })
}

#[cfg(test)]
mod decay_cost {
    use super::*;

    /// The decay-cost count follows Table 1: MBF resets a 2^11-bit filter
    /// every 2^9 writes; DL-MBF_s's post-identifier (2^8 global writes)
    /// twice as often, plus the pre-classifier's 2^11 bits every 2^11
    /// writes; DL-MBF_c's post filters are half as large.
    #[test]
    fn decay_bits_per_write_follow_table_1() {
        let w = 1u64 << 16;
        let mut schemes: Vec<Box<dyn HotDataIdentifier>> = vec![
            Box::new(mbf()),
            Box::new(dl_mbf_s()),
            Box::new(dl_mbf_c()),
            Box::new(wdac()),
        ];
        for s in schemes.iter_mut() {
            for i in 0..w {
                s.record_write(i.wrapping_mul(2654435761) % 5000);
            }
        }
        let per_write = |s: &dyn HotDataIdentifier| s.decay_bits().map(|b| b as f64 / w as f64);
        assert_eq!(per_write(schemes[0].as_ref()), Some(4.0));
        assert_eq!(per_write(schemes[1].as_ref()), Some(9.0));
        assert_eq!(per_write(schemes[2].as_ref()), Some(5.0));
        assert_eq!(per_write(schemes[3].as_ref()), None);
    }
}
