//! The profile language's look-alike features: empirical and lognormal
//! sizes, sequential streams, per-direction address models, on-off arrivals
//! and `duration_s`; and that profiles without them generate what they
//! always did.

use std::collections::HashSet;

use ssdlab_workload::synthetic::{
    rounded_lognormal_mean, Address, Arrival, Generator, LogNormal, Profile, SizeDist,
};
use ssdlab_workload::Error;
use ssdlab_workload::{IoRecord, Op};

// ---------------------------------------------------------------------------
// helpers

fn base() -> Profile {
    Profile {
        name: "test".into(),
        seed: 5,
        requests: 100_000,
        read_share: 0.3,
        footprint_bytes: 1 << 40,
        page_bytes: 4096,
        read_size: Some(SizeDist::uniform(4096, 16384)),
        write_size: Some(SizeDist::uniform(4096, 32768)),
        address: Address::Uniform,
        arrival: Arrival::Poisson { iops: 20_000.0 },
        latency_hint: None,
    }
}

fn generate(p: &Profile) -> Vec<IoRecord> {
    Generator::try_new(p).unwrap().map(|r| r.unwrap()).collect()
}

/// FNV-1a over the fields of every record (as in tests/workload.rs).
fn digest(recs: &[IoRecord]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for r in recs {
        for v in [r.time_ns, (r.op == Op::Read) as u64, r.offset, r.size] {
            for b in v.to_le_bytes() {
                h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
    h
}

/// The share of `recs` that are continuations: a request is one when its
/// offset equals `offset + size` of some earlier request of the stream
/// given (the first request never is). With a footprint of 2^28 pages and
/// uniform fresh starts, a non-stream request matches an earlier end by
/// chance with probability below 1e5 / 2^28 < 0.04 %.
fn continuation_share(recs: &[&IoRecord]) -> f64 {
    let mut ends = HashSet::new();
    let mut continuing = 0usize;
    for r in recs {
        continuing += ends.contains(&r.offset) as usize;
        ends.insert(r.offset + r.size);
    }
    continuing as f64 / recs.len() as f64
}

fn config_error(text: &str) -> (String, String) {
    match Profile::from_toml(text, "p.toml") {
        Err(Error::Config { origin, field, msg }) => {
            assert_eq!(origin, "p.toml");
            (field, msg)
        }
        other => panic!("expected a config error for\n{text}\ngot {other:?}"),
    }
}

fn mean(xs: impl Iterator<Item = f64>) -> (f64, f64, usize) {
    let (mut n, mut s, mut s2) = (0usize, 0.0, 0.0);
    for x in xs {
        n += 1;
        s += x;
        s2 += x * x;
    }
    let m = s / n as f64;
    let var = (s2 / n as f64 - m * m).max(0.0);
    (m, var.sqrt(), n)
}

// ---------------------------------------------------------------------------
// compatibility

#[test]
fn profiles_without_new_features_are_unchanged() {
    // Digests recorded with the generator as it was before the look-alike
    // features; they cover paths the pinned digests of tests/workload.rs
    // (demo, zipf fixture) do not: uniform addresses, fixed sizes below a
    // page, shifting at a tiny footprint, single-direction streams, a 1 PiB
    // zipf footprint.
    let pin = Profile {
        name: "pin".into(),
        seed: 11,
        requests: 20_000,
        read_share: 0.4,
        footprint_bytes: 1 << 30,
        page_bytes: 4096,
        read_size: Some(SizeDist::fixed(vec![512, 4096, 12288])),
        write_size: Some(SizeDist::weighted(vec![4096, 65536], vec![3.0, 1.0])),
        address: Address::Uniform,
        arrival: Arrival::Poisson { iops: 5000.0 },
        latency_hint: None,
    };
    let cases = [
        ("uniform", pin.clone(), 0x3804_fd87_66e5_44b5u64),
        (
            "hotcold-small",
            Profile {
                footprint_bytes: 80 * 1024,
                address: Address::HotCold {
                    hot_fraction: 0.5,
                    hot_share: 0.5,
                },
                ..pin.clone()
            },
            0x54e0_4c91_4123_19f1,
        ),
        (
            "zipf-1.2-small",
            Profile {
                footprint_bytes: 100 * 1024,
                address: Address::Zipf { theta: 1.2 },
                ..pin.clone()
            },
            0xf2fb_ee48_21f8_6dbc,
        ),
        (
            "reads-only",
            Profile {
                read_share: 1.0,
                write_size: None,
                read_size: Some(SizeDist::constant(8192)),
                ..pin.clone()
            },
            0x223b_c5e0_788a_bfad,
        ),
        (
            "writes-only",
            Profile {
                read_share: 0.0,
                read_size: None,
                write_size: Some(SizeDist::uniform(4096, 1 << 20)),
                page_bytes: 512,
                ..pin.clone()
            },
            0xac50_cc26_008f_5787,
        ),
        (
            "huge-zipf",
            Profile {
                footprint_bytes: 1 << 50,
                address: Address::Zipf { theta: 0.8 },
                ..pin.clone()
            },
            0x6f8a_fa67_fc78_7896,
        ),
    ];
    for (name, p, want) in cases {
        assert_eq!(digest(&generate(&p)), want, "{name}");
        // and the same through TOML
        let again = Profile::from_toml(&p.to_toml().unwrap(), name).unwrap();
        assert_eq!(again, p, "{name}");
    }
}

// ---------------------------------------------------------------------------
// sizes

#[test]
fn empirical_sizes_honour_their_weights_and_equal_fixed_with_weights() {
    let pairs = vec![(4096, 50.0), (8192, 30.0), (16384, 15.0), (131072, 5.0)];
    let p = Profile {
        read_share: 0.5,
        read_size: Some(SizeDist::empirical(pairs.clone())),
        write_size: Some(SizeDist::empirical(vec![(512, 1.0), (4096, 3.0)])),
        ..base()
    };
    let recs = generate(&p);
    let reads: Vec<u64> = recs
        .iter()
        .filter(|r| r.op == Op::Read)
        .map(|r| r.size)
        .collect();
    for (size, w) in &pairs {
        let got = reads.iter().filter(|s| *s == size).count() as f64 / reads.len() as f64;
        // within 1 point (the standard error is at most 0.23 points here)
        assert!((got - w / 100.0).abs() < 0.01, "{size}: {got}");
    }
    assert!(reads.iter().all(|s| pairs.iter().any(|(x, _)| x == s)));
    let want = 0.5 * 4096.0 + 0.3 * 8192.0 + 0.15 * 16384.0 + 0.05 * 131072.0;
    assert!((p.mean_size(Op::Read) - want).abs() < 1e-6);
    assert_eq!(p.mean_size(Op::Write), 0.25 * 512.0 + 0.75 * 4096.0);
    // the same distribution and the same draws as fixed + weights
    let fixed = Profile {
        read_size: Some(SizeDist::weighted(
            vec![4096, 8192, 16384, 131072],
            vec![50.0, 30.0, 15.0, 5.0],
        )),
        write_size: Some(SizeDist::weighted(vec![512, 4096], vec![1.0, 3.0])),
        ..p.clone()
    };
    assert_eq!(generate(&fixed), recs);
}

#[test]
fn lognormal_mean_is_the_requested_mean_exactly() {
    // (mean, sigma, max): typical trace-like shapes
    let cases = [
        (12288.0, 1.0, None),
        (8192.0, 0.5, None),
        (65536.0, 1.0, Some(512 << 10)),
        (24576.0, 1.5, Some(128 << 10)),
        (5000.0, 0.8, Some(64 << 10)),
    ];
    for (want, sigma, max) in cases {
        let dist = SizeDist::lognormal(want, sigma, max);
        let p = Profile {
            read_share: 0.0,
            read_size: None,
            write_size: Some(dist.clone()),
            requests: 200_000,
            ..base()
        };
        let exact = p.mean_size(Op::Write);
        // the method: within 1 % of the requested mean (in fact ~1e-9)
        assert!((exact / want - 1.0).abs() < 0.01, "{want} {sigma}: {exact}");
        assert!((exact / want - 1.0).abs() < 1e-6, "{want} {sigma}: {exact}");
        let ln = LogNormal {
            mean: want,
            sigma,
            max,
            min: None,
        };
        assert!((ln.expected_mean(4096, 1 << 40) / exact - 1.0).abs() < 1e-12);
        assert!((dist.mean(4096) / want - 1.0).abs() < 1e-6);
        // the draws: 200k of them within 1 % of the exact mean
        let recs = generate(&p);
        let top = max.unwrap_or(1 << 40) / 4096 * 4096;
        assert!(recs
            .iter()
            .all(|r| r.size.is_multiple_of(4096) && (4096..=top).contains(&r.size)));
        let (m, sd, n) = mean(recs.iter().map(|r| r.size as f64));
        let se = sd / (n as f64).sqrt() / m;
        assert!(se < 0.004, "{want} {sigma}: standard error {se}");
        assert!(
            (m / exact - 1.0).abs() < 0.01,
            "{want} {sigma}: sample mean {m} vs {exact} (se {se})"
        );
        // sigma is the spread of ln(size) before rounding: after rounding the
        // log-spread is of the same order
        let (_, lsd, _) = mean(recs.iter().map(|r| (r.size as f64).ln()));
        assert!(lsd > 0.3 * sigma && lsd < 1.2 * sigma, "{sigma}: {lsd}");
    }
}

#[test]
fn lognormal_sizes_follow_the_rounded_distribution() {
    // P(size > k pages) = P(Y > k·p): the difference of the exact means
    // with the cap at k + 1 and at k pages, divided by p
    let (want, sigma) = (12288.0, 1.0);
    let p = Profile {
        read_share: 0.0,
        read_size: None,
        write_size: Some(SizeDist::lognormal(want, sigma, None)),
        requests: 200_000,
        ..base()
    };
    let mu = LogNormal {
        mean: want,
        sigma,
        max: None,
        min: None,
    }
    .location(4096, 1 << 40);
    let recs = generate(&p);
    for k in 1..=8u64 {
        let tail = (rounded_lognormal_mean(mu, sigma, 4096, (k + 1) * 4096)
            - rounded_lognormal_mean(mu, sigma, 4096, k * 4096))
            / 4096.0;
        let got = recs.iter().filter(|r| r.size > k * 4096).count() as f64 / recs.len() as f64;
        // within half a point (the standard error is at most 0.12 points)
        assert!(
            (got - tail).abs() < 0.005,
            "P(size > {k} pages): {got} vs {tail}"
        );
    }
}

#[test]
fn lognormal_documented_shift_of_the_plain_location() {
    // exp(mu + sigma Z) with mu = ln(mean) - sigma²/2 has mean `mean`;
    // rounded up to 4 KiB pages it gains about half a page (more at small
    // sizes, lifted to a whole page): 12288 becomes 14336 with sigma = 1
    let mu = 12288f64.ln() - 0.5;
    let shifted = rounded_lognormal_mean(mu, 1.0, 4096, 1 << 40);
    assert!((shifted - 14336.0).abs() < 10.0, "{shifted}");
    // big requests: the shift is still about half a page
    let mu = (1u64 << 20) as f64;
    let shifted = rounded_lognormal_mean(mu.ln() - 0.5, 1.0, 4096, 1 << 40);
    assert!((shifted - mu - 2048.0).abs() < 20.0, "{shifted}");
    // clamping at max pulls the mean down
    let clamped = rounded_lognormal_mean(mu.ln() - 0.5, 1.0, 4096, 2 << 20);
    assert!(clamped < mu, "{clamped}");
    // the solved location is below the plain one, and reproduces the mean
    let ln = LogNormal {
        mean: 12288.0,
        sigma: 1.0,
        max: None,
        min: None,
    };
    let loc = ln.location(4096, 1 << 40);
    assert!(loc < 12288f64.ln() - 0.5);
    let back = rounded_lognormal_mean(loc, 1.0, 4096, 1 << 40);
    assert!((back / 12288.0 - 1.0).abs() < 1e-9, "{back}");
    assert!(rounded_lognormal_mean(0.0, 0.0, 4096, 1 << 40).is_nan());
}

#[test]
fn lognormal_without_max_is_capped_by_the_footprint() {
    let p = Profile {
        read_share: 1.0,
        write_size: None,
        read_size: Some(SizeDist::lognormal(20000.0, 2.0, None)),
        footprint_bytes: 64 << 10,
        requests: 200_000,
        ..base()
    };
    let exact = p.mean_size(Op::Read);
    assert!((exact / 20000.0 - 1.0).abs() < 1e-6, "{exact}");
    let recs = generate(&p);
    assert!(recs
        .iter()
        .all(|r| r.size <= 64 << 10 && r.offset == 0 || r.offset + r.size <= 64 << 10));
    assert!(recs.iter().any(|r| r.size == 64 << 10));
    let (m, _, _) = mean(recs.iter().map(|r| r.size as f64));
    assert!((m / exact - 1.0).abs() < 0.01, "{m}");
    // a mean the footprint cannot hold is an error naming it
    let text = p
        .clone()
        .to_toml()
        .unwrap()
        .replace("mean = 20000.0", "mean = 70000.0");
    let (f, msg) = config_error(&text);
    assert_eq!(f, "read_size.lognormal.mean", "{msg}");
    assert!(msg.contains("footprint"), "{msg}");
}

// ---------------------------------------------------------------------------
// addresses

#[test]
fn sequential_share_is_the_measured_continuation_share() {
    for (base_model, share, streams, run, want) in [
        // no runs: every stream request but the first of each stream continues
        (Address::Uniform, 0.3, 4, None, 0.3),
        (Address::Uniform, 0.6, 32, None, 0.6),
        // runs of 16 requests on average: 1 in 16 stream requests restarts
        (
            Address::Uniform,
            0.3,
            4,
            Some(16.0),
            0.3 * (1.0 - 1.0 / 16.0),
        ),
        // a skewed base model for the fresh starts
        (
            Address::HotCold {
                hot_fraction: 0.1,
                hot_share: 0.5,
            },
            0.4,
            8,
            Some(64.0),
            0.4 * (1.0 - 1.0 / 64.0),
        ),
    ] {
        let p = Profile {
            address: base_model.clone().with_sequential(share, streams, run),
            ..base()
        };
        let recs = generate(&p);
        let all: Vec<&IoRecord> = recs.iter().collect();
        let got = continuation_share(&all);
        assert!(
            (got - want).abs() < 0.01,
            "{base_model:?} share {share} streams {streams} run {run:?}: {got} vs {want}"
        );
        assert!(recs.iter().all(|r| r.offset + r.size <= 1 << 40));
        // the same through TOML
        let again = Profile::from_toml(&p.to_toml().unwrap(), "again").unwrap();
        assert_eq!(again, p);
        assert_eq!(generate(&again), recs);
    }
}

#[test]
fn stream_runs_have_the_configured_mean_length() {
    // one stream taking every request: runs are maximal chains of
    // continuations; their mean length is run_requests
    let p = Profile {
        address: Address::Uniform.with_sequential(1.0, 1, Some(20.0)),
        ..base()
    };
    let recs = generate(&p);
    let mut runs = 1usize;
    for w in recs.windows(2) {
        runs += (w[1].offset != w[0].offset + w[0].size) as usize;
    }
    let mean_run = recs.len() as f64 / runs as f64;
    assert!((mean_run / 20.0 - 1.0).abs() < 0.05, "{mean_run}");
}

#[test]
fn streams_restart_at_the_end_of_the_footprint() {
    // one stream taking every request, no run limit: a request continues
    // the previous one exactly when it fits before the footprint's end, and
    // restarts at a fresh (zipf) location otherwise
    let footprint = 4u64 << 20;
    let p = Profile {
        footprint_bytes: footprint,
        read_size: Some(SizeDist::lognormal(65536.0, 1.0, Some(1 << 20))),
        write_size: Some(SizeDist::fixed(vec![512, 4096])),
        address: Address::Zipf { theta: 0.9 }.with_sequential(1.0, 1, None),
        ..base()
    };
    let recs = generate(&p);
    assert!(recs.iter().all(|r| r.offset + r.size <= footprint));
    let mut restarts = 0;
    for w in recs.windows(2) {
        let end = w[0].offset + w[0].size;
        if end + w[1].size <= footprint {
            assert_eq!(w[1].offset, end, "{w:?}");
        } else {
            restarts += 1;
        }
    }
    // a stream crosses the 4 MiB in ~200 requests from a fresh start
    assert!(restarts > 100 && restarts < 5000, "{restarts}");
    // a continuation of a 512-byte write is not page-aligned
    assert!(recs.iter().any(|r| !r.offset.is_multiple_of(4096)));
}

#[test]
fn reads_and_writes_can_have_their_own_address_models() {
    let p = Profile {
        read_share: 0.5,
        address: Address::per_op(
            Address::HotCold {
                hot_fraction: 0.05,
                hot_share: 0.9,
            },
            None,
            Some(Address::Uniform.with_sequential(1.0, 1, None)),
        ),
        ..base()
    };
    let g = Generator::try_new(&p).unwrap();
    let hot = g.hot_pages().unwrap();
    let recs = generate(&p);
    let reads: Vec<&IoRecord> = recs.iter().filter(|r| r.op == Op::Read).collect();
    let writes: Vec<&IoRecord> = recs.iter().filter(|r| r.op == Op::Write).collect();
    // writes: one log-like stream, every write but the first continues it
    assert_eq!(continuation_share(&writes), 1.0 - 1.0 / writes.len() as f64);
    // reads: hot-cold from `address`, not sequential
    assert!(continuation_share(&reads) < 0.01);
    let hot_share = reads
        .iter()
        .filter(|r| g.rank_of_page(r.offset / 4096).unwrap() < hot)
        .count() as f64
        / reads.len() as f64;
    assert!((hot_share - 0.9).abs() < 0.01, "{hot_share}");
    // TOML: read_address / write_address
    let text = p.to_toml().unwrap();
    assert!(
        text.contains("[write_address]") || text.contains("write_address ="),
        "{text}"
    );
    assert!(!text.contains("read_address"), "{text}");
    let again = Profile::from_toml(&text, "again").unwrap();
    assert_eq!(again, p);
    assert_eq!(generate(&again), recs);
}

// ---------------------------------------------------------------------------
// arrivals and length

/// (count, mean gap ns, coefficient of variation of the gaps, last time)
fn gap_stats(p: &Profile) -> (usize, f64, f64, u64) {
    let mut prev = 0u64;
    let (mut n, mut s, mut s2) = (0usize, 0.0f64, 0.0f64);
    for r in Generator::try_new(p).unwrap() {
        let t = r.unwrap().time_ns;
        let g = (t - prev) as f64;
        prev = t;
        n += 1;
        s += g;
        s2 += g * g;
    }
    let m = s / n as f64;
    let sd = (s2 / n as f64 - m * m).sqrt();
    (n, m, sd / m, prev)
}

#[test]
fn on_off_arrivals_have_the_documented_mean_rate_and_are_bursty() {
    let bursty = Arrival::OnOff {
        on_iops: 20_000.0,
        off_iops: 200.0,
        on_ms: 2.0,
        off_ms: 8.0,
    };
    let want = bursty.mean_iops();
    assert_eq!(want, (20_000.0 * 2.0 + 200.0 * 8.0) / 10.0);
    // 600 s = 60 000 on/off cycles: the rate's standard error is ~0.5 %
    let p = Profile {
        requests: 0,
        arrival: bursty.clone().until(600.0),
        ..base()
    };
    assert_eq!(p.mean_iops(), want);
    let (n, _, cv, last) = gap_stats(&p);
    assert!(last <= 600_000_000_000);
    let iops = n as f64 / 600.0;
    assert!((iops / want - 1.0).abs() < 0.02, "{iops} vs {want}");
    assert!(cv > 1.5, "cv {cv}");

    // silent off periods, counted in requests
    let silent = Arrival::OnOff {
        on_iops: 5_000.0,
        off_iops: 0.0,
        on_ms: 5.0,
        off_ms: 15.0,
    };
    let p = Profile {
        requests: 300_000,
        arrival: silent.clone(),
        ..base()
    };
    let (n, _, cv, last) = gap_stats(&p);
    assert_eq!(n, 300_000);
    let iops = n as f64 / (last as f64 / 1e9);
    assert!(
        (iops / silent.mean_iops() - 1.0).abs() < 0.02,
        "{iops} vs {}",
        silent.mean_iops()
    );
    assert!(cv > 1.5, "cv {cv}");

    // Poisson gaps, for contrast: cv 1
    let (_, _, cv, _) = gap_stats(&base());
    assert!((cv - 1.0).abs() < 0.03, "{cv}");
    // on = off rates: Poisson again
    let flat = Profile {
        arrival: Arrival::OnOff {
            on_iops: 20_000.0,
            off_iops: 20_000.0,
            on_ms: 1.0,
            off_ms: 1.0,
        },
        ..base()
    };
    let (_, m, cv, _) = gap_stats(&flat);
    assert!((cv - 1.0).abs() < 0.03, "{cv}");
    assert!((m / 50_000.0 - 1.0).abs() < 0.02, "{m}");
}

#[test]
fn duration_stops_at_the_first_arrival_past_it() {
    for arrival in [
        Arrival::Poisson { iops: 1000.0 },
        Arrival::OnOff {
            on_iops: 5000.0,
            off_iops: 10.0,
            on_ms: 2.0,
            off_ms: 8.0,
        },
    ] {
        let timed = Profile {
            requests: 0,
            arrival: arrival.clone().until(10.0),
            address: Address::Zipf { theta: 0.9 }.with_sequential(0.3, 2, None),
            ..base()
        };
        assert_eq!(timed.duration_s(), Some(10.0));
        assert_eq!(timed.request_limit(), None);
        let recs = generate(&timed);
        assert!(recs.iter().all(|r| r.time_ns <= 10_000_000_000));
        let n = recs.len();
        let expect = 10.0 * arrival.mean_iops();
        assert!(
            (n as f64 / expect - 1.0).abs() < 0.15,
            "{n} requests in 10 s at {expect}"
        );
        assert_eq!(Generator::try_new(&timed).unwrap().size_hint(), (0, None));
        // the same profile counted in requests: the timed stream is its
        // prefix, and the next request arrives after 10 s
        let counted = Profile {
            requests: n as u64 + 1,
            arrival,
            ..timed.clone()
        };
        let more = generate(&counted);
        assert_eq!(&more[..n], &recs[..]);
        assert!(more[n].time_ns > 10_000_000_000);
        // TOML: duration_s instead of requests
        let text = timed.to_toml().unwrap();
        assert!(
            text.contains("duration_s = 10.0") && !text.contains("requests"),
            "{text}"
        );
        assert_eq!(Profile::from_toml(&text, "again").unwrap(), timed);
    }
}

#[test]
fn new_features_are_deterministic() {
    let p = Profile {
        requests: 30_000,
        read_size: Some(SizeDist::lognormal(16384.0, 1.2, Some(1 << 20))),
        write_size: Some(SizeDist::empirical(vec![(4096, 3.0), (65536, 1.0)])),
        address: Address::per_op(
            Address::Zipf { theta: 0.99 }.with_sequential(0.2, 4, Some(32.0)),
            Some(Address::Uniform),
            None,
        ),
        arrival: Arrival::OnOff {
            on_iops: 10_000.0,
            off_iops: 100.0,
            on_ms: 10.0,
            off_ms: 30.0,
        },
        ..base()
    };
    let a = generate(&p);
    assert_eq!(a.len(), 30_000);
    assert_eq!(generate(&p), a);
    let other = generate(&Profile {
        seed: 6,
        ..p.clone()
    });
    let differing = a.iter().zip(&other).filter(|(x, y)| x != y).count();
    assert!(differing > 29_000, "{differing}");
    // pinned: the stream must be the same on every platform and build
    assert_eq!(digest(&a), NEW_FEATURES_DIGEST, "{:#018x}", digest(&a));
}

const NEW_FEATURES_DIGEST: u64 = 0xd5af_1599_afc5_b033;

#[test]
fn huge_footprints_need_no_memory() {
    // 1 PiB: zipf with streams, lognormal sizes capped by the footprint
    let p = Profile {
        footprint_bytes: 1 << 50,
        requests: 50_000,
        read_size: Some(SizeDist::lognormal(32768.0, 2.0, None)),
        address: Address::Zipf { theta: 0.99 }.with_sequential(0.5, 1000, Some(100.0)),
        ..base()
    };
    let recs = generate(&p);
    assert!(recs.iter().all(|r| r.offset + r.size <= 1 << 50));
    assert!((p.mean_size(Op::Read) / 32768.0 - 1.0).abs() < 1e-6);
}

// ---------------------------------------------------------------------------
// TOML

/// The full example of the module documentation.
const REFERENCE: &str = r#"
name = "server-look-alike"
seed = 7
duration_s = 600                     # instead of `requests`
read_share = 0.65
footprint_bytes = 17179869184        # 16 GiB
read_size = { empirical = [[4096, 55], [8192, 15], [16384, 10], [65536, 20]] }
write_size = { lognormal = { mean = 12288, sigma = 1.0, max = 1048576 } }
address = { kind = "zipf", theta = 0.9 }
write_address = { kind = "hot-cold", hot_fraction = 0.1, hot_share = 0.7, sequential = { share = 0.4, streams = 4, run_requests = 256 } }
arrival = { kind = "on-off", on_iops = 4000, off_iops = 150, on_ms = 40, off_ms = 160 }
"#;

#[test]
fn the_reference_example_parses_and_round_trips() {
    let p = Profile::from_toml(REFERENCE, "ref.toml").unwrap();
    assert_eq!(p.duration_s(), Some(600.0));
    assert_eq!(p.requests, 0);
    assert_eq!(p.mean_iops(), (4000.0 * 40.0 + 150.0 * 160.0) / 200.0);
    assert!((p.mean_size(Op::Write) / 12288.0 - 1.0).abs() < 1e-6);
    assert_eq!(p.address.for_op(Op::Read), &Address::Zipf { theta: 0.9 });
    assert!(matches!(
        p.address.for_op(Op::Write),
        Address::Sequential { streams: 4, .. }
    ));
    let text = p.to_toml().unwrap();
    assert_eq!(Profile::from_toml(&text, "again").unwrap(), p, "{text}");
    let recs: Vec<IoRecord> = Generator::try_new(&p)
        .unwrap()
        .take(10_000)
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(recs.len(), 10_000);
}

#[test]
fn toml_errors_name_the_new_fields() {
    let good = REFERENCE;
    Profile::from_toml(good, "p.toml").unwrap();
    let cases = [
        // length
        (
            "duration_s = 600 ",
            "requests = 5\nduration_s = 600 ",
            "duration_s",
        ),
        ("duration_s = 600 ", "duration_s = 0 ", "duration_s"),
        ("duration_s = 600 ", "duration_s = -1 ", "duration_s"),
        ("duration_s = 600 ", "duration_s = \"long\" ", "duration_s"),
        ("duration_s = 600 ", "", "requests"),
        ("duration_s = 600 ", "requests = 0 ", "requests"),
        // empirical
        (
            "[[4096, 55], [8192, 15]",
            "[[4096, -55], [8192, 15]",
            "read_size.empirical",
        ),
        (
            "[[4096, 55], [8192, 15]",
            "[[0, 55], [8192, 15]",
            "read_size.empirical",
        ),
        (
            "[[4096, 55], [8192, 15]",
            "[[4096], [8192, 15]",
            "read_size.empirical",
        ),
        (
            "{ empirical = [[4096, 55], [8192, 15], [16384, 10], [65536, 20]] }",
            "{ empirical = [] }",
            "read_size.empirical",
        ),
        (
            "{ empirical = [[4096",
            "{ fixed = [4096], empirical = [[4096",
            "read_size",
        ),
        (
            "{ empirical = [[4096",
            "{ weights = [1], empirical = [[4096",
            "read_size.weights",
        ),
        // lognormal
        ("mean = 12288,", "mean = 4096,", "write_size.lognormal.mean"),
        (
            "mean = 12288,",
            "mean = 2000000,",
            "write_size.lognormal.mean",
        ),
        (
            "mean = 12288,",
            "mean = \"big\",",
            "write_size.lognormal.mean",
        ),
        ("mean = 12288,", "", "write_size.lognormal.mean"),
        ("sigma = 1.0", "sigma = 0", "write_size.lognormal.sigma"),
        ("sigma = 1.0", "sigma = 9", "write_size.lognormal.sigma"),
        ("sigma = 1.0", "sigma = nan", "write_size.lognormal.sigma"),
        ("max = 1048576", "max = 100", "write_size.lognormal.max"),
        ("max = 1048576", "max = 34359738368", "footprint_bytes"),
        (
            "max = 1048576",
            "max = 1048576, min = 0",
            "write_size.lognormal.min",
        ),
        (
            "max = 1048576",
            "max = 1048576, min = 2000000",
            "write_size.lognormal.min",
        ),
        (
            "max = 1048576",
            "max = 1048576, min = 16384",
            "write_size.lognormal.mean",
        ),
        (
            "max = 1048576",
            "max = 1048576, mini = 1",
            "write_size.lognormal.mini",
        ),
        // mixture
        (
            "{ empirical = [[4096, 55], [8192, 15], [16384, 10], [65536, 20]] }",
            "{ mixture = [] }",
            "read_size.mixture",
        ),
        (
            "{ empirical = [[4096, 55], [8192, 15], [16384, 10], [65536, 20]] }",
            "{ mixture = [{ fixed = [4096] }] }",
            "read_size.mixture[1]",
        ),
        (
            "{ empirical = [[4096, 55], [8192, 15], [16384, 10], [65536, 20]] }",
            "{ mixture = [{ weight = 1, fixed = [4096] }, { weight = -1, fixed = [8192] }] }",
            "read_size.mixture[2].weight",
        ),
        (
            "{ empirical = [[4096, 55], [8192, 15], [16384, 10], [65536, 20]] }",
            "{ mixture = [{ weight = 1, fixed = [4096] }, { weight = 1, lognormal = { mean = 4096, sigma = 1 } }] }",
            "read_size.mixture[2].lognormal.mean",
        ),
        (
            "{ empirical = [[4096, 55], [8192, 15], [16384, 10], [65536, 20]] }",
            "{ mixture = [{ weight = 1, mixture = [{ weight = 1, fixed = [4096] }] }] }",
            "read_size.mixture[1].mixture",
        ),
        (
            "{ empirical = [[4096, 55], [8192, 15], [16384, 10], [65536, 20]] }",
            "{ mixture = [{ weight = 0, fixed = [4096] }] }",
            "read_size.mixture",
        ),
        (
            "{ empirical = [[4096, 55], [8192, 15], [16384, 10], [65536, 20]] }",
            "{ weight = 2, fixed = [4096] }",
            "read_size.weight",
        ),
        (
            "{ empirical = [[4096, 55], [8192, 15], [16384, 10], [65536, 20]] }",
            "{ mixture = [{ weight = 1, fixed = [4096], wieght = 2 }] }",
            "read_size.mixture.wieght",
        ),
        // sequential
        ("share = 0.4", "share = 0", "write_address.sequential.share"),
        (
            "share = 0.4",
            "share = 1.5",
            "write_address.sequential.share",
        ),
        (
            "share = 0.4",
            "share = \"x\"",
            "write_address.sequential.share",
        ),
        ("share = 0.4, ", "", "write_address.sequential.share"),
        (
            "streams = 4",
            "streams = 0",
            "write_address.sequential.streams",
        ),
        (
            "streams = 4",
            "streams = 100000",
            "write_address.sequential.streams",
        ),
        (
            "streams = 4",
            "streams = -1",
            "write_address.sequential.streams",
        ),
        (
            "run_requests = 256",
            "run_requests = 0.5",
            "write_address.sequential.run_requests",
        ),
        (
            "run_requests = 256",
            "run_length = 256",
            "write_address.sequential.run_length",
        ),
        // per-direction models
        (
            "hot_share = 0.7",
            "hot_share = 1.7",
            "write_address.hot_share",
        ),
        (
            "kind = \"hot-cold\"",
            "kind = \"lukewarm\"",
            "write_address.kind",
        ),
        (
            "kind = \"hot-cold\", hot_fraction = 0.1, hot_share = 0.7",
            "kind = \"zipf\"",
            "write_address.theta",
        ),
        ("theta = 0.9", "theta = -1", "address.theta"),
        (
            "write_address = { kind",
            "read_address = { kind = \"zipf\", theta = 0 }\nwrite_address = { kind",
            "read_address.theta",
        ),
        (
            "write_address = { kind",
            "read_address = { kind = \"zipf\", theta = \"x\" }\nwrite_address = { kind",
            "read_address.theta",
        ),
        (
            "write_address = { kind",
            "read_adress = { kind = \"uniform\" }\nwrite_address = { kind",
            "read_adress",
        ),
        // on-off
        ("on_iops = 4000", "on_iops = 0", "arrival.on_iops"),
        ("off_iops = 150", "off_iops = -1", "arrival.off_iops"),
        ("on_ms = 40", "on_ms = 0", "arrival.on_ms"),
        ("off_ms = 160", "off_ms = inf", "arrival.off_ms"),
        ("off_ms = 160", "off_ms = \"long\"", "arrival.off_ms"),
        (", off_ms = 160", "", "arrival.off_ms"),
        ("off_ms = 160", "off_ms = 160, iops = 3", "arrival.iops"),
        ("kind = \"on-off\"", "kind = \"bursty\"", "arrival.kind"),
        (
            "off_ms = 160",
            "off_ms = 160, sequential = { share = 0.5 }",
            "arrival.sequential",
        ),
    ];
    for (from, to, field) in cases {
        assert!(good.contains(from), "{from}");
        let text = good.replacen(from, to, 1);
        let (f, msg) = config_error(&text);
        assert_eq!(f, field, "{from} -> {to}: {msg}");
    }
}

#[test]
fn rust_values_toml_cannot_express_are_refused() {
    let nested = Profile {
        address: Address::per_op(
            Address::per_op(Address::Uniform, None, None),
            None,
            Some(Address::Uniform),
        ),
        ..base()
    };
    assert!(nested.to_toml().is_err());
    match nested.validate("x") {
        Err(Error::Config { field, .. }) => assert_eq!(field, "address"),
        other => panic!("{other:?}"),
    }
    let double = Profile {
        address: Address::Uniform
            .with_sequential(0.5, 2, None)
            .with_sequential(0.5, 2, None),
        ..base()
    };
    assert!(double.to_toml().is_err());
    let twice = Profile {
        requests: 0,
        arrival: Arrival::Poisson { iops: 1.0 }.until(1.0).until(2.0),
        ..base()
    };
    match twice.validate("x") {
        Err(Error::Config { field, .. }) => assert_eq!(field, "duration_s"),
        other => panic!("{other:?}"),
    }
    let both = Profile {
        arrival: Arrival::Poisson { iops: 1.0 }.until(1.0),
        ..base()
    };
    match Generator::try_new(&both) {
        Err(Error::Config { field, .. }) => assert_eq!(field, "duration_s"),
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------
// mixtures and lognormal `min`

/// A mixture as the PA-SSD look-alikes use it: 90 % small requests (at most
/// one 8 KiB page) from a histogram and 10 % large ones from a lognormal of
/// at least two pages.
const MIXTURE: &str = r#"
name = "mix"
seed = 3
requests = 200000
read_share = 0
footprint_bytes = 17179869184
page_bytes = 8192
write_size = { mixture = [{ weight = 0.9, empirical = [[512, 1], [4096, 2], [8192, 1]] }, { weight = 0.1, lognormal = { mean = 65536, sigma = 1.0, min = 16384, max = 1048576 } }] }
address = { kind = "uniform" }
arrival = { kind = "poisson", iops = 1000 }
"#;

#[test]
fn a_mixture_draws_its_components_in_proportion_and_keeps_their_means() {
    let p = Profile::from_toml(MIXTURE, "mix.toml").unwrap();
    // exact mean: 0.9 × (512 + 2·4096 + 8192)/4 + 0.1 × 65536
    let small = (512.0 + 2.0 * 4096.0 + 8192.0) / 4.0;
    let want = 0.9 * small + 0.1 * 65536.0;
    let exact = p.mean_size(Op::Write);
    assert!((exact / want - 1.0).abs() < 1e-9, "{exact} vs {want}");
    let recs = generate(&p);
    let large: Vec<f64> = recs
        .iter()
        .filter(|r| r.size > 8192)
        .map(|r| r.size as f64)
        .collect();
    // every large draw comes from the lognormal, which never goes below min
    assert!(recs.iter().all(|r| r.size <= 8192 || r.size >= 16384));
    let share = large.len() as f64 / recs.len() as f64;
    assert!((share - 0.1).abs() < 0.004, "large share {share}");
    let (m_large, _, _) = mean(large.into_iter());
    assert!((m_large / 65536.0 - 1.0).abs() < 0.03, "{m_large}");
    let (m, _, _) = mean(recs.iter().map(|r| r.size as f64));
    assert!((m / exact - 1.0).abs() < 0.02, "{m} vs {exact}");
    // deterministic, and the TOML round trip keeps the mixture
    assert_eq!(digest(&recs), digest(&generate(&p)));
    let back = Profile::from_toml(&p.to_toml().unwrap(), "back.toml").unwrap();
    assert_eq!(back, p);
}

#[test]
fn a_lognormal_with_min_never_goes_below_it_and_keeps_its_mean() {
    for (mean_b, sigma, min) in [
        (40_000.0, 1.0, 16384u64),
        (20_000.0, 2.0, 12288),
        (9000.0, 0.5, 8192),
    ] {
        let p = Profile {
            read_share: 0.0,
            read_size: None,
            write_size: Some(SizeDist {
                lognormal: Some(LogNormal {
                    mean: mean_b,
                    sigma,
                    max: Some(1 << 20),
                    min: Some(min),
                }),
                ..SizeDist::default()
            }),
            requests: 100_000,
            ..base()
        };
        let exact = p.mean_size(Op::Write);
        assert!((exact / mean_b - 1.0).abs() < 1e-9, "{mean_b}: {exact}");
        let recs = generate(&p);
        assert!(recs.iter().all(|r| r.size >= min && r.size <= 1 << 20));
        let (m, _, _) = mean(recs.iter().map(|r| r.size as f64));
        assert!((m / mean_b - 1.0).abs() < 0.02, "{mean_b}: {m}");
    }
}

#[test]
fn validation_errors_give_the_line_of_their_key() {
    let text = MIXTURE.replace("weight = 0.1,", "weight = -0.1,");
    let (field, msg) = config_error(&text.replace("mix.toml", "p.toml"));
    assert_eq!(field, "write_size.mixture[2].weight");
    // the profile starts with an empty line: write_size is on line 8
    assert!(msg.ends_with("(line 8)"), "{msg}");
    let text = MIXTURE.replace("read_share = 0", "read_share = 2");
    let (field, msg) = config_error(&text);
    assert_eq!(field, "read_share");
    assert!(msg.ends_with("(line 5)"), "{msg}");
}
