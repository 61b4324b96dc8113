//! Unit tests of the FTL.

use super::*;
use crate::addr::PlaneId;
use rand::SeedableRng;

fn small() -> Config {
    Config::preset("small").unwrap()
}

#[test]
fn static_order_cwdp_spreads_channels_first() {
    let c = small();
    let t = static_table(&c);
    // small: 4 ch x 2 chips x 1 die x 2 planes; plane = ((c*2+w)*1+d)*2+p
    assert_eq!(&t[..5], &[0, 4, 8, 12, 2]);
    let mut sorted = t.clone();
    sorted.sort();
    assert_eq!(sorted, (0..16).collect::<Vec<_>>());
    let mut c2 = small();
    c2.ftl.static_order = "PDWC".into();
    assert_eq!(&static_table(&c2)[..3], &[0, 1, 2]);
}

#[test]
fn write_rewrite_and_close() {
    let c = small();
    let mut f = Ftl::new(&c, &crate::domain::Domains::new(&c), true);
    let ppb = f.pages_per_block();
    let a = f
        .write(PlaneId(0), 7, 1, Writer::Host { hot: false }, 0)
        .unwrap();
    assert_eq!(f.lookup(7), Some(a));
    let b = f
        .write(PlaneId(0), 7, 2, Writer::Host { hot: false }, 0)
        .unwrap();
    assert_eq!(f.owner(a), None);
    assert_eq!(f.valid_count(f.map.gblock_of(a)), 1);
    assert_eq!(b, a + 1);
    for i in 2..ppb {
        f.write(PlaneId(0), 1000 + i, 0, Writer::Host { hot: false }, 0)
            .unwrap();
    }
    assert_eq!(f.block_state(crate::addr::BlockId(0)), BlockState::Closed);
    f.maps.versions.as_mut().unwrap().latest[7] = 2;
    f.check(|_| None).unwrap();
}

#[test]
fn fill_hits_its_targets_and_checks() {
    let c = small();
    let mut f = Ftl::new(&c, &crate::domain::Domains::new(&c), true);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut rep = PreconditionReport::default();
    f.precondition_fill((0.5, 0.5), 0.8, &mut rng, &mut rep)
        .unwrap();
    let ppp = 512 * 128u64;
    assert_eq!(rep.pages_written, 16 * ppp / 2);
    assert_eq!(
        rep.valid_pages,
        16 * (ppp as f64 * 0.5 * 0.8).round() as u64
    );
    assert_eq!(rep.valid_pages_capped, 0);
    assert_eq!(f.free_pages(PlaneId(3)), ppp / 2);
    f.check(|_| None).unwrap();
}

#[test]
fn fill_draws_each_planes_level_from_its_range() {
    // The SPD paper's warm-up: each plane filled to a random level from 93
    // to 95 % of its pages, 80 % of them valid. With aligned block groups
    // the planes of a die share their level.
    let mut c = small();
    c.geometry.channels = 8; // 32 planes
    c.ftl.overprovisioning = 0.25;
    for groups in [false, true] {
        c.ftl.block_groups = if groups {
            BlockGroups::Die
        } else {
            BlockGroups::Plane
        };
        let mut f = Ftl::new(&c, &crate::domain::Domains::new(&c), true);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut rep = PreconditionReport::default();
        f.precondition_fill((0.93, 0.95), 0.8, &mut rng, &mut rep)
            .unwrap();
        let ppp = 512 * 128u64;
        let written: Vec<u64> = PlaneId::all(32).map(|p| ppp - f.free_pages(p)).collect();
        let level = |w: u64| w as f64 / ppp as f64;
        for &w in &written {
            assert!((0.93..=0.95).contains(&level(w)), "{}", level(w));
        }
        let (min, max) = (
            *written.iter().min().unwrap(),
            *written.iter().max().unwrap(),
        );
        assert!(level(max) - level(min) > 0.01, "levels differ by plane");
        let mean = written.iter().sum::<u64>() as f64 / 32.0 / ppp as f64;
        assert!((mean - 0.94).abs() < 0.004, "mean level {mean}");
        if groups {
            for d in written.chunks(2) {
                assert_eq!(d[0], d[1], "planes of a die share the level");
            }
        } else {
            assert!(written.chunks(2).any(|d| d[0] != d[1]));
        }
        assert_eq!(rep.pages_written, written.iter().sum::<u64>());
        // 80 % of 94 % is more than the 75 % of the drive that is logical
        // space: the valid pages are capped at each plane's share of it.
        let want: u64 = written
            .iter()
            .map(|&w| (w as f64 * 0.8).round() as u64)
            .sum();
        assert_eq!(rep.valid_pages + rep.valid_pages_capped, want);
        // (Per plane: a plane at 93 % holds a little less than its share.)
        assert!(rep.valid_pages <= f.logical_pages);
        assert!(rep.valid_pages as f64 > 0.99 * f.logical_pages as f64);
        f.check(|_| None).unwrap();
    }
}

#[test]
fn aligned_open_takes_the_index_a_sibling_plane_writes() {
    let mut c = small();
    c.geometry.blocks_per_plane = 8;
    c.geometry.pages_per_block = 4;
    c.ftl.overprovisioning = 0.3;
    let host = Writer::Host { hot: false };
    let open_next = |align: bool| {
        let mut c = c.clone();
        c.ftl.align_block_index = align;
        let mut f = Ftl::new(&c, &crate::domain::Domains::new(&c), false);
        // Plane 1 (plane 0's sibling) fills block 0 and opens the next.
        for lpn in 0..5 {
            f.write(PlaneId(1), lpn, 0, host, 0).unwrap();
        }
        // Where plane 0 opens its first block: what peek_write says is
        // where the write goes.
        let peek = f.peek_write(PlaneId(0), host).unwrap();
        let ppn = f.write(PlaneId(0), 100, 0, host, 0).unwrap();
        assert_eq!(peek, (f.map.block_of(ppn), f.map.page_of(ppn)));
        (f.map.block_of(f.lookup(4).unwrap()), peek.0)
    };
    // Plane 1's second block: the first index free on both planes (0 is
    // taken on plane 1), and plane 0 then opens the same index rather
    // than its oldest free block.
    assert_eq!(open_next(true), (1, 1));
    assert_eq!(open_next(false), (1, 0));
}

#[test]
fn host_writes_leave_the_gc_reserve() {
    let mut c = small();
    c.geometry.blocks_per_plane = 8;
    c.geometry.pages_per_block = 4;
    c.gc.threshold = crate::config::GcThreshold::Blocks(1);
    c.ftl.overprovisioning = 0.3;
    let mut f = Ftl::new(&c, &crate::domain::Domains::new(&c), false);
    let mut n = 0;
    while f
        .write(PlaneId(0), n, 0, Writer::Host { hot: false }, 0)
        .is_some()
    {
        n += 1;
    }
    assert_eq!(n, 7 * 4, "host may not take the last free block");
    assert!(
        f.write(PlaneId(0), 300, 0, Writer::GC, 0).is_some(),
        "GC may"
    );
}

#[test]
fn trace_read_mapping_cleans_with_any_victim_policy() {
    // A plane almost full of valid data: mapping more LPNs needs
    // functional GC, which must not give up on a full-valid victim.
    for victim in [
        crate::config::VictimPolicy::Greedy,
        crate::config::VictimPolicy::Fifo,
        crate::config::VictimPolicy::Random,
    ] {
        let mut c = small();
        c.geometry.pages_per_block = 16;
        c.geometry.blocks_per_plane = 256;
        c.ftl.overprovisioning = 0.07;
        c.gc.threshold = crate::config::GcThreshold::Percent(6.0);
        c.gc.victim = victim;
        c.validate("t").unwrap();
        let mut f = Ftl::new(&c, &crate::domain::Domains::new(&c), true);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let mut rep = PreconditionReport::default();
        f.precondition_fill((0.92, 0.92), 0.97, &mut rng, &mut rep)
            .unwrap();
        let all = 0..f.logical_pages as u32;
        f.precondition_map(all, &mut rng, &mut rep)
            .unwrap_or_else(|e| panic!("{victim:?}: {e}"));
        assert!(rep.functional_gc > 0, "{victim:?}");
        for plane in PlaneId::all(f.planes()) {
            assert!(!f.needs_gc(plane));
        }
        f.check(|_| None).unwrap();
    }
}
