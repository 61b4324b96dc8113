//! The SPD paper's figures a reproduction is compared with: every claim,
//! the metric it is about, and the paper's number (a data table).

use super::*;

/// A quantity the paper reports.
#[derive(Clone, Copy)]
pub(super) enum Metric {
    WriteLatency,
    ReadLatency,
    /// Share of host page programs served by multi-plane commands.
    HostMultiplane,
    /// SPD's definition: planes busy together, sampled at each buffer eviction.
    PlaneUtilisation,
    BufferHitRatio,
    GcTimeTotal,
    /// Mean time of one GC, trigger to erase.
    GcMean,
    GcMeanRead,
    GcMeanWrite,
    GcMeanTransfer,
    GcMeanErase,
    GcCount,
    Erases,
    BlockedShare,
    MeanBlocked,
}

impl Metric {
    pub(super) fn title(self) -> &'static str {
        match self {
            Metric::WriteLatency => "write latency (mean)",
            Metric::ReadLatency => "read latency (mean)",
            Metric::HostMultiplane => "multi-plane share of host page writes",
            Metric::PlaneUtilisation => "plane utilisation (sampled at each buffer eviction)",
            Metric::BufferHitRatio => "buffer hit ratio",
            Metric::GcTimeTotal => "total GC time",
            Metric::GcMean => "mean GC time",
            Metric::GcMeanRead => "mean GC time: read part",
            Metric::GcMeanWrite => "mean GC time: write part",
            Metric::GcMeanTransfer => "mean GC time: transfer part",
            Metric::GcMeanErase => "mean GC time: erase part",
            Metric::GcCount => "GC count",
            Metric::Erases => "erases",
            Metric::BlockedShare => "share of host-write time blocked by GC",
            Metric::MeanBlocked => "mean time a host write is blocked by GC",
        }
    }

    pub(super) fn value(self, r: &Report) -> f64 {
        match self {
            Metric::WriteLatency => r.write.latency_us.mean,
            Metric::ReadLatency => r.read.latency_us.mean,
            Metric::HostMultiplane => r.flash.host_multiplane_program_share,
            Metric::PlaneUtilisation => r.plane_utilization.at_eviction.mean,
            Metric::BufferHitRatio => buffer_hit_ratio(r),
            Metric::GcTimeTotal => r.gc.time_us.total,
            Metric::GcMean => r.gc.time_us.mean,
            Metric::GcMeanRead => r.gc.time_us.mean_read,
            Metric::GcMeanWrite => r.gc.time_us.mean_write,
            Metric::GcMeanTransfer => r.gc.time_us.mean_transfer,
            Metric::GcMeanErase => r.gc.time_us.mean_erase,
            Metric::GcCount => r.gc.count as f64,
            Metric::Erases => r.flash.erases as f64,
            Metric::BlockedShare => r.gc.blocked_share,
            Metric::MeanBlocked => r.gc.mean_blocked_us,
        }
    }

    /// What an absolute value is multiplied by to be in the scoreboard's
    /// unit (shares in percent).
    pub(super) fn percent_factor(self) -> f64 {
        match self {
            Metric::HostMultiplane
            | Metric::PlaneUtilisation
            | Metric::BufferHitRatio
            | Metric::BlockedShare => 100.0,
            _ => 1.0,
        }
    }

    /// An absolute value with its unit.
    pub(super) fn show(self, v: f64) -> String {
        match self {
            Metric::HostMultiplane
            | Metric::PlaneUtilisation
            | Metric::BufferHitRatio
            | Metric::BlockedShare => format!("{:.1}%", v * 100.0),
            Metric::GcCount | Metric::Erases => fmt_value(v),
            _ => format!("{} us", fmt_value(v)),
        }
    }
}

/// One figure of the paper: a metric of an experiment, absolute or relative
/// to one variant, and what the paper reports for some variants.
pub(super) struct Claim {
    pub(super) experiment: &'static str,
    pub(super) figure: &'static str,
    pub(super) metric: Metric,
    /// Relative change against this variant (percent), or absolute if None.
    pub(super) vs: Option<&'static str>,
    /// The paper's figure per variant label, in the same sign convention as
    /// ours. `"*"` stands for every other variant of the experiment; a
    /// variant matched by neither is not printed for this claim. An empty
    /// text means the paper gives no number we could use.
    pub(super) paper: &'static [(&'static str, &'static str)],
}

/// The paper's reported results: Gao et al., "Boosting the Performance of
/// SSDs via Fully Exploiting the Plane Level Parallelism", IEEE TPDS 31(9),
/// 2020, Section 5 (evaluation), by figure and table. Relative figures are
/// (scheme − reference) / reference, averaged over the workloads ("avg")
/// unless the text says otherwise.
pub(super) const CLAIMS: &[Claim] = &[
    // --- Without GC (drive not aged) ---
    Claim {
        experiment: "no-gc",
        figure: "Fig. 9",
        metric: Metric::WriteLatency,
        vs: Some("baseline-d"),
        paper: &[
            ("baseline-p", "at most 1.4% lower"),
            ("twinblk", "-7.8% avg"),
            ("superpage", "-10.4% avg"),
            ("spd", "below -15% on hm_0, prn_0, proj_3, src2_0, prxy_0"),
        ],
    },
    Claim {
        experiment: "no-gc",
        figure: "Fig. 10",
        metric: Metric::HostMultiplane,
        vs: None,
        paper: &[("spd", "100%"), ("*", "")],
    },
    Claim {
        experiment: "no-gc",
        figure: "Fig. 11",
        metric: Metric::PlaneUtilisation,
        vs: Some("baseline-d"),
        paper: &[
            ("superpage", "+32.9% avg"),
            ("spd", "+34.5% avg"),
            ("*", ""),
        ],
    },
    Claim {
        experiment: "no-gc",
        figure: "Fig. 12",
        metric: Metric::BufferHitRatio,
        vs: Some("baseline-d"),
        paper: &[("spd", "-1.92% avg"), ("*", "")],
    },
    Claim {
        experiment: "no-gc",
        figure: "Table 3",
        metric: Metric::ReadLatency,
        vs: Some("baseline-d"),
        paper: &[
            ("baseline-p", "-0.049%"),
            ("twinblk", "-0.011%"),
            ("superpage", "-0.304%"),
            ("spd", "-0.096%"),
        ],
    },
    // --- With GC (aged drive) ---
    Claim {
        experiment: "gc",
        figure: "Fig. 13",
        metric: Metric::WriteLatency,
        vs: Some("baseline-d"),
        paper: &[("spd", "-48.61% avg"), ("*", "")],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 13",
        metric: Metric::WriteLatency,
        vs: Some("baseline-p"),
        paper: &[("spd", "-47.65% avg")],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 13",
        metric: Metric::WriteLatency,
        vs: Some("twinblk"),
        paper: &[("spd", "-42.05% avg")],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 13",
        metric: Metric::WriteLatency,
        vs: Some("superpage"),
        paper: &[("spd", "-28.19% avg")],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 13",
        metric: Metric::WriteLatency,
        vs: Some("paragc"),
        paper: &[("spd", "-28.58% avg")],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 14",
        metric: Metric::GcTimeTotal,
        vs: Some("baseline-d"),
        paper: &[
            ("twinblk", "-6.9% avg"),
            ("superpage", "-22.4% avg"),
            ("paragc", "-30.8% avg"),
            ("spd", "-36.4% avg"),
            ("*", ""),
        ],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 15",
        metric: Metric::GcMeanRead,
        vs: None,
        paper: &[("*", "")],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 15",
        metric: Metric::GcMeanWrite,
        vs: None,
        paper: &[("*", "")],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 15",
        metric: Metric::GcMeanTransfer,
        vs: None,
        paper: &[("*", "")],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 15",
        metric: Metric::GcMeanErase,
        vs: None,
        paper: &[("*", "")],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 16",
        metric: Metric::GcCount,
        vs: Some("baseline-d"),
        paper: &[("spd", "-32.9% to -50.1%"), ("*", "")],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 17",
        metric: Metric::Erases,
        vs: Some("twinblk"),
        paper: &[("spd", "-13.43% avg")],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 17",
        metric: Metric::Erases,
        vs: Some("superpage"),
        paper: &[("spd", "-34.23% avg")],
    },
    Claim {
        experiment: "gc",
        figure: "Fig. 17",
        metric: Metric::Erases,
        vs: Some("paragc"),
        paper: &[("spd", "-10.04% avg")],
    },
    Claim {
        experiment: "gc",
        figure: "Table 4",
        metric: Metric::ReadLatency,
        vs: Some("baseline-d"),
        paper: &[
            ("baseline-p", "-0.052%"),
            ("twinblk", "+0.042%"),
            ("superpage", "-4.173%"),
            ("paragc", "-1.144%"),
            ("spd", "-1.203%"),
        ],
    },
    // --- SPD+ ---
    Claim {
        experiment: "spd-plus",
        figure: "Fig. 18",
        metric: Metric::BlockedShare,
        vs: None,
        paper: &[("spd", "18.2% avg; 5.1% on prn_1"), ("*", "")],
    },
    Claim {
        experiment: "spd-plus",
        figure: "Fig. 19",
        metric: Metric::WriteLatency,
        vs: Some("spd"),
        paper: &[(
            "spd-plus",
            "-23.2% avg; -28.7% on proj_3; -0.5%, -0.2%, -5.1% on prn_0, prn_1, ts_0",
        )],
    },
    Claim {
        experiment: "spd-plus",
        figure: "Fig. 20",
        metric: Metric::MeanBlocked,
        vs: Some("spd"),
        paper: &[("spd-plus", "-27.1% avg; -2.2% on prn_1; -31.2% on proj_3")],
    },
    Claim {
        experiment: "spd-plus",
        figure: "§6.4",
        metric: Metric::GcTimeTotal,
        vs: Some("spd"),
        paper: &[("spd-plus", "+0.012% avg")],
    },
    Claim {
        experiment: "spd-plus",
        figure: "§6.4",
        metric: Metric::GcCount,
        vs: Some("spd"),
        paper: &[("spd-plus", "+0.027% avg")],
    },
    Claim {
        experiment: "spd-plus",
        figure: "§6.4",
        metric: Metric::ReadLatency,
        vs: Some("spd"),
        paper: &[("spd-plus", "-0.33% avg")],
    },
    // --- Sensitivity ---
    Claim {
        experiment: "buffer-size",
        figure: "Fig. 21",
        metric: Metric::WriteLatency,
        vs: None,
        paper: &[("*", "")],
    },
    Claim {
        experiment: "buffer-size",
        figure: "Fig. 21",
        metric: Metric::WriteLatency,
        vs: Some("baseline-d"),
        paper: &[("spd", "")],
    },
    Claim {
        experiment: "four-plane",
        figure: "Fig. 22",
        metric: Metric::WriteLatency,
        vs: Some("baseline-d"),
        paper: &[("spd", "-43.9% avg"), ("baseline-p", "similar"), ("*", "")],
    },
    Claim {
        experiment: "mapping",
        figure: "Fig. 23",
        metric: Metric::WriteLatency,
        vs: Some("spd"),
        paper: &[("dftl-spd", "+22.47% on rsrch_0"), ("*", "")],
    },
    Claim {
        experiment: "mapping",
        figure: "Fig. 23",
        metric: Metric::WriteLatency,
        vs: Some("fast-baseline-d"),
        paper: &[("fast-spd", "-23.43% avg")],
    },
    Claim {
        experiment: "hot-cold",
        figure: "Fig. 24",
        metric: Metric::WriteLatency,
        vs: Some("baseline-d"),
        paper: &[
            ("baseline-d+hot-cold", "-23.83% avg"),
            ("spd-plus", "-57.64% avg"),
            ("*", ""),
        ],
    },
];

/// The paper's text for `variant` under `claim`, if the claim covers it.
pub(super) fn paper_text(claim: &Claim, variant: &str) -> Option<&'static str> {
    let find = |k: &str| claim.paper.iter().find(|(v, _)| *v == k).map(|p| p.1);
    find(variant).or_else(|| find("*"))
}
