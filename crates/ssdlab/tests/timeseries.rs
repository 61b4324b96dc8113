//! The per-interval time series (metrics.interval_ms) adds up to the run's
//! totals and is absent unless asked for.

use ssdlab::workload::synthetic::Profile;
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Simulator};

#[test]
fn intervals_add_up_to_the_totals() {
    let mut c = Config::preset("small").unwrap();
    c.metrics.interval_ms = 1000.0;
    let mut p = Profile::demo();
    p.requests = 20_000;
    let pre = Precondition::parse("fill:0.9:0.8+trace-reads").unwrap();
    let r = Simulator::new(&c, &Source::Synthetic(p.clone()), &pre)
        .unwrap()
        .run(&mut |_| {})
        .unwrap();
    let ts = r.timeseries.as_ref().expect("asked for");
    assert!(
        ts.len() >= 60,
        "about 67 s of simulated time in 1 s intervals: {}",
        ts.len()
    );
    assert_eq!(ts.iter().map(|i| i.requests).sum::<u64>(), r.requests);
    assert_eq!(ts.iter().map(|i| i.gc_count).sum::<u64>(), r.gc.count);
    assert_eq!(
        ts.iter().map(|i| i.host_pages_programmed).sum::<u64>(),
        r.flash.host_programs
    );
    assert_eq!(
        ts.iter().map(|i| i.gc_pages_moved).sum::<u64>(),
        r.flash.gc_programs
    );
    // Wear: the intervals' erases add up, and the spread after the last
    // erase is the report's (DVPFTL Eqs. 5-6, per-plane erase sums).
    assert!(r.gc.erases > 0, "the aged drive collects");
    assert_eq!(ts.iter().map(|i| i.erases).sum::<u64>(), r.gc.erases);
    let e = &r.erase_count;
    assert_eq!(e.plane_delta, e.plane_max - e.plane_min);
    assert_eq!(ts.last().unwrap().erase_delta, e.plane_delta);
    assert!(ts
        .windows(2)
        .all(|w| w[1].erases > 0 || w[1].erase_delta == w[0].erase_delta));
    let planes = c.total_planes() as f64;
    let blocks = planes * c.geometry.blocks_per_plane as f64;
    assert!(
        (e.mean * blocks - r.gc.erases as f64).abs() < 1e-6 * blocks,
        "every GC erase is one block's erase"
    );
    assert!(e.plane_min as f64 <= r.gc.erases as f64 / planes);
    assert!(e.plane_max as f64 >= r.gc.erases as f64 / planes);
    for (k, i) in ts.iter().enumerate() {
        assert_eq!(i.t_s, k as f64);
        assert!((i.iops - i.requests as f64).abs() < 1e-9, "1 s intervals");
    }
    let json = serde_json::to_value(&r).unwrap();
    assert!(json["timeseries"].is_array());

    c.metrics.interval_ms = 0.0;
    let r = Simulator::new(&c, &Source::Synthetic(p), &pre)
        .unwrap()
        .run(&mut |_| {})
        .unwrap();
    assert!(r.timeseries.is_none());
    assert!(serde_json::to_value(&r)
        .unwrap()
        .get("timeseries")
        .is_none());
}
