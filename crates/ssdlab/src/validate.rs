//! The model-validation suite: the simulator measured against results
//! nobody here wrote — datasheet timing arithmetic, the Pollaczek–Khinchine
//! formula for the M/D/1 queue, and the analytic write-amplification models
//! of uniform random writes under random and FIFO victim selection
//! (Desnoyers, "Analytic models of SSD write performance", ACM TOS 2014),
//! and the bad-block rules counted out on constructed cases.
//! Each check states its tolerance. `ssdlab validate` prints them; the test
//! suite asserts that every one passes.

use std::sync::Arc;

use serde::Serialize;

use crate::config::{
    BufferCapacity, Config, GcThreshold, HostMode, IdleGc, Migration, SchedPolicy, VictimPolicy,
};
use crate::error::Result;
use crate::workload::synthetic::{Address, Arrival, Profile, SizeDist};
use crate::workload::{IoRecord, Op, Source};
use crate::Report;
use crate::{Precondition, Simulator};

/// One check: what was measured, what theory says, and whether they agree.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub name: String,
    pub measured: f64,
    pub expected: f64,
    pub unit: &'static str,
    /// How agreement is judged, in words.
    pub tolerance: String,
    pub pass: bool,
}

impl Check {
    fn within(
        name: impl Into<String>,
        measured: f64,
        expected: f64,
        unit: &'static str,
        rel: f64,
    ) -> Check {
        // (equal passes even at an expected 0, where the ratio is undefined)
        let pass = measured == expected || ((measured - expected) / expected).abs() <= rel;
        Check {
            name: name.into(),
            measured,
            expected,
            unit,
            tolerance: if rel == 0.0 {
                "exact".into()
            } else {
                // at most six decimals, trailing zeros dropped: 1e-6 is
                // "0.0001%", not its binary expansion
                let pct = format!("{:.6}", rel * 100.0);
                format!(
                    "within {}%",
                    pct.trim_end_matches('0').trim_end_matches('.')
                )
            },
            pass,
        }
    }
    fn within_abs(
        name: impl Into<String>,
        measured: f64,
        expected: f64,
        unit: &'static str,
        abs: f64,
    ) -> Check {
        Check {
            name: name.into(),
            measured,
            expected,
            unit,
            tolerance: format!("within {abs} absolute"),
            pass: (measured - expected).abs() <= abs,
        }
    }
    fn exact_ns(name: impl Into<String>, measured_us: f64, expected_ns: u64) -> Check {
        // Latencies are reported in µs from an HDR histogram with 3
        // significant digits; a single sample's mean is exact.
        let expected = expected_ns as f64 / 1e3;
        Check {
            name: name.into(),
            measured: measured_us,
            expected,
            unit: "us",
            tolerance: "exact (to the nanosecond)".into(),
            pass: (measured_us - expected).abs() < 1e-3,
        }
    }
}

/// A one-die, one-channel SLC drive with the SPD paper's timings.
pub fn one_die(planes: u32) -> Config {
    let mut c = Config::preset("spd-512g").expect("preset exists");
    c.name = format!("validation-1die-{planes}p");
    c.geometry.channels = 1;
    c.geometry.chips_per_channel = 1;
    c.geometry.dies_per_chip = 1;
    c.geometry.planes_per_die = planes;
    c.geometry.blocks_per_plane = 64;
    c.geometry.pages_per_block = 64;
    c.ftl.overprovisioning = 0.25;
    c.gc.threshold = GcThreshold::Blocks(2);
    c.buffer.capacity = BufferCapacity::None;
    c.ftl.static_order = "PCWD".into();
    c
}

/// [`one_die`] with 8 blocks of `pages_per_block` pages per plane and half
/// of them logical: a drive whose GC a few dozen writes set off.
pub fn small_die(planes: u32, pages_per_block: u32) -> Config {
    let mut c = one_die(planes);
    c.geometry.blocks_per_plane = 8;
    c.geometry.pages_per_block = pages_per_block;
    c.ftl.overprovisioning = 0.5;
    c
}

fn records(name: &str, recs: Vec<IoRecord>) -> Source {
    Source::Records {
        name: name.into(),
        records: Arc::new(recs),
    }
}

fn rec(time_ns: u64, op: Op, page: u64) -> IoRecord {
    IoRecord::new(time_ns, op, page * 4096, 4096)
}

fn run(cfg: &Config, src: &Source, pre: &str) -> Result<Report> {
    Simulator::new(cfg, src, &Precondition::parse(pre)?)?.run(&mut |_| {})
}

/// Isolated commands, each timed end to end through the whole simulator and
/// compared with the datasheet arithmetic of DESIGN §3.
pub fn timing_checks() -> Result<Vec<Check>> {
    let mut out = vec![];
    let c = one_die(2);
    let t = crate::flash::FlashTiming::new(&c);
    let (tr, tp, te, x) = (t.read_ns[0], t.program_ns[0], t.erase_ns, t.xfer_ns);

    // Single-page read of preconditioned data: tR, then the transfer out.
    let r = run(
        &c,
        &records("one read", vec![rec(0, Op::Read, 0)]),
        "trace-reads",
    )?;
    out.push(Check::exact_ns(
        "single-page read = tR + transfer",
        r.read.latency_us.mean,
        tr + x,
    ));

    // Two-plane read: LPNs 0 and 1 sit at aligned addresses of planes 0
    // and 1; one tR, then the pages leave one after the other, and each
    // read completes when its own data is out.
    let both = vec![rec(0, Op::Read, 0), rec(0, Op::Read, 1)];
    let r = run(&c, &records("two-plane read", both), "trace-reads")?;
    out.push(Check::within(
        "two reads of aligned pages used one two-plane read",
        r.flash.multiplane_read_share,
        1.0,
        "share",
        0.0,
    ));
    out.push(Check::exact_ns(
        "two-plane read: first page out at tR + transfer",
        r.read.latency_us.mean * 2.0 - r.read.latency_us.max,
        tr + x,
    ));
    out.push(Check::exact_ns(
        "two-plane read: second page out at tR + 2 transfers",
        r.read.latency_us.max,
        tr + 2 * x,
    ));

    // Command and address cycles occupy the channel before the array phase.
    let mut cc = c.clone();
    cc.timing.command_ns = 500.0;
    let r = run(
        &cc,
        &records("one read, command overhead", vec![rec(0, Op::Read, 0)]),
        "trace-reads",
    )?;
    out.push(Check::exact_ns(
        "single-page read with command cycles = cmd + tR + transfer",
        r.read.latency_us.mean,
        500 + tr + x,
    ));

    // Single-page program (no buffer, completion at program end).
    let r = run(
        &c,
        &records("one write", vec![rec(0, Op::Write, 0)]),
        "none",
    )?;
    out.push(Check::exact_ns(
        "single-page program = transfer + tPROG",
        r.write.latency_us.mean,
        x + tp,
    ));

    // Two-plane program: LPNs 0 and 1 go to planes 0 and 1 (order P first)
    // at aligned write points: two transfers, one tPROG.
    let two = IoRecord::new(0, Op::Write, 0, 8192);
    let r = run(&c, &records("two-plane write", vec![two]), "none")?;
    out.push(Check::exact_ns(
        "two-plane program = 2 transfers + one tPROG",
        r.write.latency_us.mean,
        2 * x + tp,
    ));
    let mp = r.flash.multiplane_program_share;
    out.push(Check::within(
        "two-plane program used one multi-plane command",
        mp,
        1.0,
        "share",
        0.0,
    ));

    // Two unaligned programs: plane 1's write point is moved one page ahead
    // first, so the same two-page write cannot go multi-plane: the die runs
    // them one after the other.
    let recs = vec![rec(0, Op::Write, 3), two_at(1_000_000_000)];
    let r = run(&c, &records("unaligned writes", recs), "none")?;
    let lat = r.write.latency_us.max;
    out.push(Check::exact_ns(
        "two unaligned programs = 2 x (transfer + tPROG)",
        lat,
        2 * (x + tp),
    ));

    // Erase and copyback, through GC on one plane of 8 blocks x 4 pages with
    // a 2-block threshold: GC starts when fewer than 8 pages are free, i.e.
    // when the 25th page is programmed. Block 0 is made the only block with
    // fewer than two valid pages, so greedy picks it; its GC is queued behind
    // the program that triggered it (GC then has priority).
    let c1 = small_die(1, 4);
    let r = run(&c1, &gc_scenario(false), "none")?;
    out.push(Check::within(
        "GC ran once on an all-invalid block",
        r.gc.count as f64,
        1.0,
        "GCs",
        0.0,
    ));
    out.push(Check::exact_ns(
        "GC of an empty victim = transfer + tPROG (trigger) + tBERS",
        r.gc.time_us.mean,
        x + tp + te,
    ));
    // A write arriving 1 µs after the one that triggers that GC waits behind
    // its program, then behind the erase (GC has priority): it is blocked by
    // GC for transfer + tPROG + tBERS − 1 µs, and it is the only one.
    let mut late = gc_scenario(false);
    if let Source::Records { records, .. } = &mut late {
        let mut recs = records.as_ref().clone();
        let t = recs.last().map_or(0, |r| r.time_ns) + 1_000;
        recs.push(rec(t, Op::Write, 7));
        *records = Arc::new(recs);
    }
    let r = run(&c1, &late, "none")?;
    out.push(Check::within(
        "one host write waited through GC",
        r.gc.blocked_writes as f64,
        1.0,
        "writes",
        0.0,
    ));
    out.push(Check::exact_ns(
        "its time blocked by GC = transfer + tPROG + tBERS - 1 us",
        r.gc.mean_blocked_us,
        x + tp + te - 1_000,
    ));

    let r = run(&c1, &gc_scenario(true), "none")?;
    out.push(Check::within(
        "GC moved one page by copyback",
        r.flash.copybacks as f64,
        1.0,
        "pages",
        0.0,
    ));
    out.push(Check::exact_ns(
        "GC of a one-valid-page victim = trigger + copyback (tR + tPROG) + tBERS",
        r.gc.time_us.mean,
        x + tp + tr + tp + te,
    ));
    Ok(out)
}

/// Parallel GC (`flash.plane_registers` = k copyback workers per plane): on
/// an idle plane, a GC of a victim with n valid pages takes
/// ⌈n/k⌉ · (tR + tPROG) + tBERS, for k = 1, 2, 4 and n = 0, 1, k, 2k + 1.
/// (Measured from the GC's trigger, which waits for the program that
/// triggered it: transfer + tPROG more; the drive's command cycles are 0.)
pub fn parallel_gc_checks() -> Result<Vec<Check>> {
    let mut out = vec![];
    for k in [1u32, 2, 4] {
        let mut ns = vec![0, 1, k, 2 * k + 1];
        ns.dedup();
        for n in ns {
            let mut c = small_die(1, 32);
            c.flash.plane_registers = k;
            let t = crate::flash::FlashTiming::new(&c);
            let (tr, tp, te, x) = (t.read_ns[0], t.program_ns[0], t.erase_ns, t.xfer_ns);
            let r = run(&c, &victim_with(n as u64), "none")?;
            out.push(Check::within(
                format!("k={k}: one GC, {n} pages moved by copyback"),
                (r.gc.count * 1000 + r.flash.copybacks) as f64,
                (1000 + n) as f64,
                "GCs x 1000 + pages",
                0.0,
            ));
            let rounds = n.div_ceil(k) as u64;
            out.push(Check::exact_ns(
                format!("k={k}, n={n}: GC = ceil(n/k) x (tR + tPROG) + tBERS (+ trigger)"),
                r.gc.time_us.mean,
                x + tp + rounds * (tr + tp) + te,
            ));
        }
    }
    // IPPBE (gc.blocks_per_gc = 2): the two blocks with the fewest valid
    // pages (3 and 5), their 8 pages moved, both erased in one tBERS.
    let mut c = small_die(1, 32);
    c.gc.blocks_per_gc = 2;
    let t = crate::flash::FlashTiming::new(&c);
    let (tr, tp, te, x) = (t.read_ns[0], t.program_ns[0], t.erase_ns, t.xfer_ns);
    let r = run(&c, &victims_with(3, 5), "none")?;
    out.push(Check::within(
        "IPPBE: one GC erases two blocks and moves their 3 + 5 valid pages",
        (r.gc.count * 10_000 + r.gc.erases * 100 + r.flash.copybacks) as f64,
        (10_000 + 200 + 8) as f64,
        "GCs x 10^4 + erases x 100 + pages",
        0.0,
    ));
    out.push(Check::exact_ns(
        "IPPBE: GC = 8 x (tR + tPROG) + one tBERS (+ trigger)",
        r.gc.time_us.mean,
        x + tp + 8 * (tr + tp) + te,
    ));
    Ok(out)
}

/// Single-page writes one second apart on one die of two planes of 8
/// blocks of 32 pages in aligned block groups, written round-robin over the
/// planes (write k to plane k mod 2, group k / 64; 256 logical pages, GC
/// when a plane has fewer than two free blocks: at the 385th write, in
/// plane 0). Group 0 is left with 4 valid pages in plane 0 and 32 in plane
/// 1, group 1 with 12 and 12, the other closed groups with at least 16 per
/// plane and 33 in all.
pub fn twin_groups() -> Source {
    let mut lpns: Vec<u64> = (0..256).collect();
    lpns.extend((0..64).step_by(2).take(28)); // group 0, plane 0: 4 left
    lpns.extend((64..128).step_by(2).take(20)); // group 1, plane 0: 12 left
    lpns.extend((65..128).step_by(2).take(20)); // group 1, plane 1: 12 left
    for (from, n) in [(128, 15), (129, 15), (192, 15), (193, 16)] {
        lpns.extend((from..from + 64).step_by(2).take(n));
    }
    let recs = lpns
        .iter()
        .enumerate()
        .map(|(i, &l)| rec(i as u64 * 1_000_000_000, Op::Write, l))
        .collect();
    records("twin-groups", recs)
}

/// TwinBlk's victim (`gc.twin_victim`) against group greedy, on
/// [`twin_groups`]: the group with the fewest valid pages in the plane that
/// needs GC (group 0, 4 there, 36 in all) against the group with the fewest
/// in all its planes (group 1, 24). One GC either way; its pages counted.
pub fn twin_victim_checks() -> Result<Vec<Check>> {
    let mut out = vec![];
    let c = small_die(2, 32);
    let c = crate::scheme::by_name("twinblk")?.apply(&c)?;
    for (twin, pages, which) in [
        (
            true,
            36,
            "TwinBlk: greedy in the plane that needs GC picks group 0 (4 + 32 valid pages)",
        ),
        (
            false,
            24,
            "group greedy picks the fewest valid pages in all planes: group 1 (12 + 12)",
        ),
    ] {
        let mut c = c.clone();
        c.gc.twin_victim = twin;
        let r = run(&c, &twin_groups(), "none")?;
        out.push(Check::within(
            which,
            (r.gc.count * 10_000 + r.gc.erases * 100 + r.gc.pages_migrated) as f64,
            (10_000 + 200 + pages) as f64,
            "GCs x 10^4 + erases x 100 + pages",
            0.0,
        ));
    }
    Ok(out)
}

/// Single-page writes one second apart, two at a time into a write buffer
/// of two pages, on one die of two planes of 8 blocks of 32 pages under
/// SPD's Die-Writes (each pair one Die-Write: its first page to plane 0, its
/// second to plane 1, both at the die's next page index; 256 logical
/// pages). LPNs 0..255 fill groups 0 to 3 (group 0: the even LPNs 0..62 on
/// plane 0, the odd ones on plane 1); rewrites then leave group 0 with 5
/// valid pages on plane 0 (LPNs 54..62, pages 27..31) and 16 on plane 1
/// (LPNs 33..63, pages 16..31), and groups 1 to 3 with at least 33, until
/// the 193rd Die-Write (evicted when a last page arrives) leaves the
/// planes 63 free pages (below two blocks): one Die-GC, of group 0.
pub fn die_copy_groups() -> Source {
    let mut lpns: Vec<u64> = (0..256).collect();
    lpns.extend((0..54).step_by(2)); // group 0, plane 0: 5 left
    lpns.extend((1..32).step_by(2)); // group 0, plane 1: 16 left
                                     // 87 more rewrites over groups 1 to 3, 28, 28 and 31.
    for (g, n) in [(1u64, 28), (2, 28), (3, 31)] {
        lpns.extend((64 * g..64 * g + 64).step_by(2).take(n));
    }
    // A last write: the buffer evicts a pair when a third page arrives.
    lpns.push(255);
    let recs = lpns
        .iter()
        .enumerate()
        .map(|(i, &l)| rec(i as u64 * 1_000_000_000, Op::Write, l))
        .collect();
    records("die-copy-groups", recs)
}

/// Die-GC by copyback (`gc.migration = "copyback"` under SPD), on
/// [`die_copy_groups`]: group 0's 21 valid pages, 5 on plane 0 and 16 on
/// plane 1, make a share of 11 per plane. With k register sets per plane:
/// the 5 rows of both planes go as ceil(5/k) two-plane copybacks (each
/// plane's pages read in turn, 2 tR, one tPROG; plane 1's registers take
/// up to k of its pages in each), plane 1's other copybacks, up to its
/// share of 11, as commands of its own (tR + tPROG); its 5 pages past the
/// share are read out (tR + transfer) and programmed on plane 0
/// (transfer and tPROG); plane 0, at 10 pages, is padded by one (transfer
/// and tPROG); one tBERS.
pub fn die_copy_checks() -> Result<Vec<Check>> {
    let mut out = vec![];
    for k in [1u32, 2, 4] {
        let mut c = small_die(2, 32);
        c.buffer.capacity = BufferCapacity::Pages(2);
        let mut c = crate::scheme::by_name("spd")?.apply(&c)?;
        c.gc.migration = crate::config::Migration::Copyback;
        c.flash.plane_registers = k;
        c.gc.moves_in_flight = k;
        c.check.enabled = true;
        let t = crate::flash::FlashTiming::new(&c);
        let (tr, tp, te, x) = (t.read_ns[0], t.program_ns[0], t.erase_ns, t.xfer_ns);
        let r = run(&c, &die_copy_groups(), "none")?;
        out.push(Check::within(
            format!(
                "Die-GC by copyback, k={k}: one GC, 16 copybacks, 5 pages across planes, 1 pad"
            ),
            (r.gc.count * 1_000_000
                + r.flash.copybacks * 10_000
                + r.gc.pages_migrated * 100
                + r.flash.wasted_pages) as f64,
            (1_000_000 + 16 * 10_000 + 21 * 100 + 1) as f64,
            "GCs x 10^6 + copybacks x 10^4 + pages moved x 100 + padding",
            0.0,
        ));
        let k = k as u64;
        let both = 5u64.div_ceil(k);
        let alone = (11 - (k * both).min(11)).div_ceil(k);
        out.push(Check::exact_ns(
            format!("k={k}: GC = {both} (2 tR + tPROG) + {alone} (tR + tPROG) + 5 (tR + xfer) + 6 (xfer + tPROG) + tBERS (+ trigger)"),
            r.gc.time_us.mean,
            2 * x + tp + both * (2 * tr + tp) + alone * (tr + tp) + 5 * (tr + x) + 6 * (x + tp) + te,
        ));
    }
    Ok(out)
}

/// Relaxed program order in SPD's aligned groups: one die of two planes of
/// 8 TLC blocks of 18 pages (6 wordlines, PA-SSD's Fig. 5 layout), a write
/// buffer of two pages (each pair of writes one Die-Write), 13 single-page
/// writes one second apart (the 13th evicts the 6th pair). Every Die-Write
/// takes one page type on both planes (checker on: one page index per
/// multi-plane program). Type-blind (`host.page_types = "none"`), the six
/// Die-Writes take the layout's first six pages; under sLF (every write
/// wants an LSB page) the LSB pages of wordlines 0 to 5: 12 LSB pages.
pub fn typed_die_write_checks() -> Result<Vec<Check>> {
    let mut out = vec![];
    let mut c = small_die(2, 18);
    c.cell.kind = crate::config::CellType::Tlc;
    c.cell.page_layout = crate::config::PageLayout::Wordlines;
    c.buffer.capacity = BufferCapacity::Pages(2);
    let mut c = crate::scheme::by_name("spd")?.apply(&c)?;
    c.ftl.program_order = crate::config::ProgramOrder::Relaxed;
    c.check.enabled = true;
    let recs = (0..13u64)
        .map(|i| rec(i * 1_000_000_000, Op::Write, i))
        .collect();
    let src = records("typed-die-writes", recs);
    // The layout's first six pages, on each of the two planes.
    let mut blind = [0u64; 3];
    for (t, _) in c.page_layout().into_iter().take(6) {
        blind[t as usize] += 2;
    }
    for (types, want, what) in [
        (
            "none",
            blind,
            "type-blind: the layout's first 6 pages on both planes",
        ),
        (
            "slf",
            [12, 0, 0],
            "sLF: the LSB pages of wordlines 0 to 5 on both planes",
        ),
    ] {
        let mut c = c.clone();
        c.host.page_types = types.into();
        let r = run(&c, &src, "none")?;
        let h = &r.flash.page_types.host;
        out.push(Check::within(
            format!("Die-Writes by page type, {what}"),
            (h.lsb * 10_000 + h.csb * 100 + h.msb) as f64,
            (want[0] * 10_000 + want[1] * 100 + want[2]) as f64,
            "LSB x 10^4 + CSB x 100 + MSB pages",
            0.0,
        ));
    }
    Ok(out)
}

/// GC pacing, on one plane of 8 blocks of 32 pages whose GC moves 4 pages
/// by copyback ([`victim_with`]; GC starts at the 193rd write, at t0, after
/// its transfer + tPROG). One host request arrives 1 µs into the first
/// copyback. Without preemption a host write waits for the rest of it, the
/// other 3 copybacks and the erase (GC holds its plane's writes), then
/// transfer + tPROG; with semi-preemptive GC and a hard threshold of one
/// block (the plane has 63 free pages) it goes right after the first
/// copyback; with a hard threshold of two blocks (64 pages: above the free
/// space) GC is not preemptible. Under `sched.policy = "gc-first"` a host
/// read likewise waits for the whole GC, or for the rest of one copyback.
/// Idle-time GC: see [`idle_checks`].
pub fn pacing_checks() -> Result<Vec<Check>> {
    let mut out = vec![];
    let c = small_die(1, 32);
    let t = crate::flash::FlashTiming::new(&c);
    let (tr, tp, te, x) = (t.read_ns[0], t.program_ns[0], t.erase_ns, t.xfer_ns);
    let mv = tr + tp;
    let t0 = 192 * 1_000_000_000;
    let arrive = t0 + x + tp + 1_000;
    let with = |op: Op| {
        let Source::Records { records: r, .. } = victim_with(4) else {
            unreachable!("victim_with gives records")
        };
        let mut recs = r.as_ref().clone();
        recs.push(rec(arrive, op, 100));
        records(&format!("victim-with-4-and-a-{op:?}"), recs)
    };
    // (hard threshold in blocks, or None: not preemptive)
    for (op, policy) in [
        (Op::Write, SchedPolicy::ReadPriority),
        (Op::Read, SchedPolicy::GcFirst),
    ] {
        let what = if op == Op::Write {
            "host write"
        } else {
            "host read (gc-first)"
        };
        let own = if op == Op::Write { x + tp } else { tr + x };
        for hard in [None, Some(1), Some(2)] {
            let mut c = c.clone();
            c.sched.policy = policy;
            c.gc.preemptive = hard.is_some();
            c.gc.hard_threshold = hard.map(GcThreshold::Blocks);
            let r = run(&c, &with(op), "none")?;
            let lat = if op == Op::Write {
                r.write.latency_us.max
            } else {
                r.read.latency_us.max
            };
            let preempts = hard == Some(1);
            let (label, expected) = match hard {
                None => (
                    format!("{what} mid-GC, not preemptive = rest of the copyback + 3 copybacks + tBERS + its own"),
                    mv - 1_000 + 3 * mv + te + own,
                ),
                Some(1) => (
                    format!("{what} mid-GC, preemptive (63 free >= 32) = rest of the copyback + its own"),
                    mv - 1_000 + own,
                ),
                Some(_) => (
                    format!("{what} mid-GC, below the hard threshold (63 free < 64) = as not preemptive"),
                    mv - 1_000 + 3 * mv + te + own,
                ),
            };
            out.push(Check::exact_ns(label, lat, expected));
            if hard.is_some() {
                let n =
                    r.gc.pacing
                        .as_ref()
                        .and_then(|p| p.preemptions)
                        .unwrap_or(u64::MAX);
                out.push(Check::within_abs(
                    format!(
                        "{what}, hard threshold {} blocks: preemptions counted",
                        hard.unwrap_or(0)
                    ),
                    n as f64,
                    preempts as u64 as f64,
                    "transactions",
                    0.0,
                ));
            }
            if preempts && op == Op::Write {
                // The GC, from its trigger, also waited for the write's
                // program it let go first.
                out.push(Check::exact_ns(
                    "preempted GC = trigger + 4 copybacks + the host program + tBERS",
                    r.gc.time_us.mean,
                    x + tp + 4 * mv + (x + tp) + te,
                ));
            }
        }
    }
    out.extend(idle_checks()?);
    Ok(out)
}

/// 161 single-page writes one second apart on one plane of 8 blocks of 32
/// pages (128 logical pages): block 0 keeps 2 valid pages, every other
/// closed block at least 29; the plane is left with 95 free pages, above
/// the GC threshold (64), below an idle watermark of 3 blocks (96). Then
/// reads of LPN 100 at `reads` (ns).
fn idle_scenario(reads: &[u64]) -> Source {
    let mut lpns: Vec<u64> = (0..32).collect();
    lpns.extend(2..32);
    lpns.extend(32..128);
    lpns.extend([32, 34, 36]);
    let mut recs: Vec<IoRecord> = lpns
        .iter()
        .enumerate()
        .map(|(i, &l)| rec(i as u64 * 1_000_000_000, Op::Write, l))
        .collect();
    recs.extend(reads.iter().map(|&t| rec(t, Op::Read, 100)));
    records(&format!("idle-gc-{}-reads", reads.len()), recs)
}

/// Idle-time GC with `gc.idle = { after_us = 1000, high_watermark =
/// { blocks = 3 } }` on [`idle_scenario`]'s drive: after the last write
/// completes (at T = 160 s + transfer + tPROG), one idle GC starts at
/// exactly T + 1 ms, moves block 0's 2 pages and erases it (2 × (tR +
/// tPROG) + tBERS), which lifts the plane to 125 free pages: no second.
/// A host read arriving 1 µs into its first copyback waits for the rest
/// of it only (then tR + transfer); the GC pauses, and resumes 1 ms after
/// that read completes.
pub fn idle_checks() -> Result<Vec<Check>> {
    let mut out = vec![];
    let mut c = small_die(1, 32);
    c.gc.idle = Some(IdleGc {
        after_us: 1_000.0,
        high_watermark: GcThreshold::Blocks(3),
    });
    let t = crate::flash::FlashTiming::new(&c);
    let (tr, tp, te, x) = (t.read_ns[0], t.program_ns[0], t.erase_ns, t.xfer_ns);
    let mv = tr + tp;
    let start = 160 * 1_000_000_000 + x + tp + 1_000_000;
    let idle = |r: &Report| r.gc.pacing.as_ref().and_then(|p| p.idle.clone());

    let r = run(&c, &idle_scenario(&[200_000_000_000]), "none")?;
    let i = idle(&r).unwrap_or_default();
    out.push(Check::within(
        "idle GC: one GC, 2 pages moved, 1 block erased",
        (r.gc.count * 10_000 + i.gcs * 1_000 + i.moves * 10 + i.erases) as f64,
        11_021.0,
        "GCs x 10^4 + idle GCs x 1000 + moves x 10 + erases",
        0.0,
    ));
    out.push(Check::exact_ns(
        "idle GC on an idle die = 2 x (tR + tPROG) + tBERS",
        r.gc.time_us.mean,
        2 * mv + te,
    ));
    out.push(Check::exact_ns(
        "a read after idle GC = tR + transfer",
        r.read.latency_us.max,
        tr + x,
    ));

    let r = run(
        &c,
        &idle_scenario(&[start + 1_000, 300_000_000_000]),
        "none",
    )?;
    let i = idle(&r).unwrap_or_default();
    let lat = mv - 1_000 + tr + x;
    out.push(Check::exact_ns(
        "a read 1 us into idle GC (started at last completion + after_us) = rest of the copyback + tR + transfer",
        r.read.latency_us.max,
        lat,
    ));
    out.push(Check::exact_ns(
        "idle GC paused by it resumes after_us after it: GC = 1 us + the read + after_us + (tR + tPROG) + tBERS",
        r.gc.time_us.mean,
        1_000 + lat + 1_000_000 + mv + te,
    ));
    out.push(Check::within(
        "idle GC paused once and resumed once",
        (i.gcs * 100 + i.resumed * 10 + i.erases) as f64,
        111.0,
        "idle GCs x 100 + resumed x 10 + erases",
        0.0,
    ));
    Ok(out)
}

/// As [`victim_with`], with blocks 0 and 1 keeping `n0` and `n1` valid pages.
pub fn victims_with(n0: u64, n1: u64) -> Source {
    let mut lpns: Vec<u64> = (0..64).collect(); // blocks 0 and 1
    lpns.extend(n0..32);
    lpns.extend(32 + n1..64);
    lpns.extend(64..128);
    let more = 193 - lpns.len();
    lpns.extend((64..128).step_by(2).take(more));
    let recs = lpns
        .iter()
        .enumerate()
        .map(|(i, &l)| rec(i as u64 * 1_000_000_000, Op::Write, l))
        .collect();
    records(&format!("victims-with-{n0}-{n1}"), recs)
}

/// Single-page writes one second apart on one plane of 8 blocks of 32 pages
/// (128 logical pages, GC below 64 free pages: at the 193rd page written),
/// leaving block 0 with `n` valid pages and every other closed block with
/// at least 16, so that greedy picks block 0.
pub fn victim_with(n: u64) -> Source {
    let mut lpns: Vec<u64> = (0..32).collect(); // block 0
    lpns.extend(n..32); // block 0 keeps lpns 0..n
    lpns.extend(32..128); // new data
                          // Rewrites of every other LPN of the new data, up to the trigger: at
                          // most half of any block becomes invalid.
    let more = 193 - lpns.len();
    lpns.extend((32..128).step_by(2).take(more));
    let recs = lpns
        .iter()
        .enumerate()
        .map(|(i, &l)| rec(i as u64 * 1_000_000_000, Op::Write, l))
        .collect();
    records(&format!("victim-with-{n}"), recs)
}

/// 25 single-page writes, one second apart, leaving block 0 with one valid
/// page (`keep_one`) or none, and every other closed block with two or more.
fn gc_scenario(keep_one: bool) -> Source {
    let mut lpns = vec![0u64; 4];
    if !keep_one {
        lpns.push(0);
    }
    lpns.extend(1..=15);
    lpns.extend([1, 5, 9, 13, 2, 6]);
    lpns.truncate(25);
    let recs = lpns
        .iter()
        .enumerate()
        .map(|(i, &l)| rec(i as u64 * 1_000_000_000, Op::Write, l))
        .collect();
    records(if keep_one { "gc-copyback" } else { "gc-erase" }, recs)
}

fn two_at(time_ns: u64) -> IoRecord {
    IoRecord::new(time_ns, Op::Write, 0, 8192)
}

/// Mean response of an M/D/1 queue (Pollaczek–Khinchine): S + ρS / (2(1−ρ)).
pub fn md1_response(service_ns: f64, rho: f64) -> f64 {
    service_ns + rho * service_ns / (2.0 * (1.0 - rho))
}

/// Single-page reads, uniform over the drive's logical space.
fn page_reads(c: &Config, name: String, seed: u64, requests: u64, arrival: Arrival) -> Profile {
    Profile {
        name,
        seed,
        requests,
        read_share: 1.0,
        footprint_bytes: c.logical_pages() * 4096,
        page_bytes: 4096,
        read_size: Some(SizeDist::constant(4096)),
        write_size: Some(SizeDist::constant(4096)),
        address: Address::Uniform,
        arrival,
        latency_hint: None,
    }
}

/// Poisson single-page reads at utilisation `rho` of drive `c`'s one die,
/// and the service time S = tR + transfer (ns).
fn md1_reads(c: &Config, rho: f64, requests: u64) -> (Profile, f64) {
    let t = crate::flash::FlashTiming::new(c);
    let s = (t.read_ns[0] + t.xfer_ns) as f64;
    let arrival = Arrival::Poisson {
        iops: rho / s * 1e9,
    };
    (
        page_reads(c, format!("md1-rho{rho}"), 11, requests, arrival),
        s,
    )
}

/// One die serving Poisson single-page reads is an M/D/1 queue with service
/// time tR + transfer.
pub fn md1_checks(requests: u64) -> Result<Vec<Check>> {
    let mut out = vec![];
    let c = one_die(1);
    for rho in [0.5, 0.8] {
        let (p, s) = md1_reads(&c, rho, requests);
        let r = run(&c, &Source::Synthetic(p), "trace-reads")?;
        out.push(Check::within(
            format!("M/D/1 mean read response at utilisation {rho}"),
            r.read.latency_us.mean,
            md1_response(s, rho) / 1e3,
            "us",
            0.03,
        ));
    }
    Ok(out)
}

/// Write amplification of uniform random writes under FIFO cleaning:
/// 1/(1−x) with x = exp(−(1−x)/ρ) (Desnoyers 2014), solved by iteration.
pub fn fifo_wa(rho: f64) -> f64 {
    // x is the valid fraction of the cleaned block; the non-trivial root
    // lies below 1. Iterate from 0 (the map is a contraction there).
    let mut x = 0.0f64;
    for _ in 0..10_000 {
        x = (-(1.0 - x) / rho).exp();
    }
    1.0 / (1.0 - x)
}

/// A single-plane drive with ρ = valid / physical pages, a few blocks held
/// free, and no buffer.
pub fn wa_drive(rho: f64, victim: VictimPolicy) -> Config {
    let mut c = one_die(1);
    c.name = format!("validation-wa-{rho}");
    c.geometry.blocks_per_plane = 1024;
    c.geometry.pages_per_block = 64;
    c.ftl.overprovisioning = 1.0 - rho;
    c.gc.threshold = GcThreshold::Blocks(2);
    c.gc.victim = victim;
    c.host.mode = HostMode::ClosedLoop;
    c.host.queue_depth = 1;
    c
}

/// Measured write amplification after `warm` and over `measure` drive
/// writes of uniform random single-page writes.
pub fn measure_wa(
    rho: f64,
    victim: VictimPolicy,
    warm: f64,
    measure: f64,
    seed: u64,
) -> Result<f64> {
    let mut c = wa_drive(rho, victim);
    let phys = c.physical_pages() as f64;
    c.host.warmup_requests = (warm * phys) as u64;
    c.seed = seed;
    let p = Profile {
        name: format!("uniform-writes-rho{rho}"),
        seed,
        requests: ((warm + measure) * phys) as u64,
        read_share: 0.0,
        footprint_bytes: c.logical_pages() * 4096,
        page_bytes: 4096,
        read_size: Some(SizeDist::constant(4096)),
        write_size: Some(SizeDist::constant(4096)),
        address: Address::Uniform,
        arrival: Arrival::Poisson { iops: 1000.0 },
        latency_hint: None,
    };
    // Every logical page holds data before the run: ρ of the drive is valid.
    let r = run(&c, &Source::Synthetic(p), &format!("fill:{rho}:1"))?;
    Ok(r.write_amplification)
}

pub fn wa_checks() -> Result<Vec<Check>> {
    let mut out = vec![];
    for rho in [0.7, 0.8] {
        let random = measure_wa(rho, VictimPolicy::Random, 4.0, 4.0, 21)?;
        out.push(Check::within(
            format!("WA, random victim, rho {rho}: 1/(1-rho)"),
            random,
            1.0 / (1.0 - rho),
            "x",
            0.03,
        ));
        let fifo = measure_wa(rho, VictimPolicy::Fifo, 4.0, 4.0, 22)?;
        let fifo_ref = fifo_wa(rho);
        out.push(Check::within(
            format!("WA, FIFO victim, rho {rho}: 1/(1-x), x = exp(-(1-x)/rho)"),
            fifo,
            fifo_ref,
            "x",
            0.03,
        ));
        let greedy = measure_wa(rho, VictimPolicy::Greedy, 4.0, 4.0, 23)?;
        out.push(Check {
            name: format!("WA, greedy victim, rho {rho}: no higher than measured FIFO + 1%"),
            measured: greedy,
            expected: fifo * 1.01,
            unit: "x",
            tolerance: "at most".into(),
            pass: greedy <= fifo * 1.01,
        });
    }
    Ok(out)
}

/// Long random runs under every victim policy and both migration methods
/// with the consistency checker on: no LPN lost or stale.
pub fn consistency_checks(requests: u64) -> Result<Vec<Check>> {
    let mut out = vec![];
    for victim in [
        VictimPolicy::Greedy,
        VictimPolicy::Fifo,
        VictimPolicy::Random,
        VictimPolicy::DChoices,
        VictimPolicy::CostBenefit,
    ] {
        for migration in [Migration::Copyback, Migration::Controller] {
            let mut c = Config::preset("small")?;
            c.geometry.channels = 2;
            c.geometry.chips_per_channel = 1;
            c.geometry.blocks_per_plane = 64;
            c.geometry.pages_per_block = 32;
            c.ftl.overprovisioning = 0.2;
            c.gc.threshold = GcThreshold::Blocks(3);
            c.gc.victim = victim;
            c.gc.migration = migration;
            c.check.enabled = true;
            c.check.interval_requests = requests / 4;
            let p = Profile {
                name: "consistency".into(),
                seed: 5,
                requests,
                read_share: 0.3,
                footprint_bytes: c.logical_pages() * 4096,
                page_bytes: 4096,
                read_size: Some(SizeDist::uniform(4096, 16384)),
                write_size: Some(SizeDist::uniform(4096, 32768)),
                address: Address::HotCold {
                    hot_fraction: 0.2,
                    hot_share: 0.8,
                },
                arrival: Arrival::Poisson { iops: 3000.0 },
                latency_hint: None,
            };
            let name = format!("consistency, {victim:?} victim, {migration:?} migration");
            let ok = run(&c, &Source::Synthetic(p), "fill:0.9:0.8");
            let (pass, gcs) = match &ok {
                Ok(r) => (r.gc.count > 0, r.gc.count as f64),
                Err(_) => (false, 0.0),
            };
            out.push(Check {
                name,
                measured: gcs,
                expected: 0.0,
                unit: "GCs",
                tolerance: match ok {
                    Ok(_) => "checker passed; GC must have run".into(),
                    Err(e) => format!("checker failed: {e}"),
                },
                pass,
            });
        }
    }
    Ok(out)
}

/// PA-SSD §3: type-blind allocation of n-page writes on the strict TLC
/// layout (Fig. 5) makes a request slow (some MSB page) with probability
/// 1 − (2/3)^n and fast (all LSB) with (1/3)^n, each page's type being
/// LSB, CSB or MSB with probability 1/3. Measured on `pa-tlc` with 1/24 of
/// its blocks (a fresh drive; no GC), `requests` writes of n pages at random
/// page offsets, one every 10 ms; within 0.02 absolute.
pub fn page_type_checks(requests: u64) -> Result<Vec<Check>> {
    use rand::{Rng, SeedableRng};
    let mut c = Config::preset("pa-tlc")?;
    c.geometry.blocks_per_plane = 16;
    c.gc.threshold = GcThreshold::Blocks(2);
    let page = c.geometry.page_size_bytes as u64;
    let logical = c.logical_pages();
    let mut out = vec![];
    for n in [1u64, 2, 4] {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(n);
        let recs = (0..requests)
            .map(|i| {
                let offset = rng.gen_range(0..logical - n) * page;
                IoRecord::new(i * 10_000_000, Op::Write, offset, n * page)
            })
            .collect();
        let r = run(&c, &records(&format!("pa-blind-{n}"), recs), "none")?;
        let w = &r.write_speed;
        let total = (w.fast + w.medium + w.slow) as f64;
        let third = 1.0 / 3.0f64;
        out.push(Check::within_abs(
            format!("TLC, type-blind, {n}-page writes: share of fast requests = (1/3)^{n}"),
            w.fast as f64 / total,
            third.powi(n as i32),
            "share",
            0.02,
        ));
        out.push(Check::within_abs(
            format!("TLC, type-blind, {n}-page writes: share of slow requests = 1 - (2/3)^{n}"),
            w.slow as f64 / total,
            1.0 - (2.0 * third).powi(n as i32),
            "share",
            0.02,
        ));
    }
    Ok(out)
}

/// PA-SSD Fig. 11 and Eq. (1): three programs of 500, 2 000 and 5 500 µs
/// (`pa-tlc`'s LSB, CSB and MSB) queued in one plane complete, on average,
/// after 7 000 µs in the order MSB, CSB, LSB, 5 833 µs as CSB, MSB, LSB and
/// 3 667 µs as LSB, CSB, MSB; PAS (`sched.pas`) turns the first order into
/// the third. The order comes from the scheduler's write queue, the times
/// from the drive's program times.
pub fn pas_checks() -> Result<Vec<Check>> {
    use crate::addr::PlaneId;
    use crate::sched::{Class, Queues};
    use crate::types::TxnId;
    let c = Config::preset("pa-tlc")?;
    let t = crate::flash::FlashTiming::new(&c);
    let mean_completion = |types: &[usize]| {
        // Eq. (1): the k-th waits for the k − 1 before it.
        let mut done = 0u64;
        let total: u64 = types
            .iter()
            .map(|&ty| {
                done += t.program_ns[ty];
                done
            })
            .sum();
        total as f64 / types.len() as f64 / 1e3
    };
    let queued = |pas: bool, types: &[u8]| -> Vec<usize> {
        let mut q = Queues::new(1, 1, c.sched.policy);
        if pas {
            q = q.with_pas(c.sched.pas_preemptions);
        }
        for (i, &ty) in types.iter().enumerate() {
            q.push_write(PlaneId(0), TxnId(i as u32), ty);
        }
        std::iter::from_fn(|| q.pop(PlaneId(0), Class::Write))
            .map(|id| types[id.0 as usize] as usize)
            .collect()
    };
    Ok(vec![
        Check::within(
            "PAS off: programs queued MSB, CSB, LSB complete on average after 7000 us",
            mean_completion(&queued(false, &[2, 1, 0])),
            7000.0,
            "us",
            0.0,
        ),
        Check::within(
            "programs in the order CSB, MSB, LSB complete on average after 5833 us",
            mean_completion(&queued(false, &[1, 2, 0])),
            17500.0 / 3.0,
            "us",
            1e-6,
        ),
        Check::within(
            "PAS on: programs queued MSB, CSB, LSB run LSB, CSB, MSB: 3667 us on average",
            mean_completion(&queued(true, &[2, 1, 0])),
            11000.0 / 3.0,
            "us",
            1e-6,
        ),
    ])
}

/// A run with latency attribution on, and every request's completion.
fn run_attributed(
    cfg: &Config,
    src: &Source,
    pre: &str,
) -> Result<(Report, Vec<crate::Completion>)> {
    let mut c = cfg.clone();
    c.metrics.attribution = true;
    let mut sim = Simulator::new(&c, src, &Precondition::parse(pre)?)?;
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = log.clone();
    sim.log_requests(Box::new(move |done: &crate::Completion| {
        sink.lock().expect("no poisoned lock").push(*done)
    }));
    let r = sim.run(&mut |_| {})?;
    let done = std::mem::take(&mut *log.lock().expect("no poisoned lock"));
    Ok((r, done))
}

/// Latency attribution (`metrics.attribution`): a request's parts, against
/// the timing arithmetic of isolated commands and against the M/D/1 queue's
/// mean wait (Pollaczek–Khinchine: W = ρS / (2(1−ρ)), all of it behind
/// other host reads).
pub fn attribution_checks(requests: u64) -> Result<Vec<Check>> {
    use crate::attribution::Part;
    let mut out = vec![];
    let part = |c: &crate::Completion, p: Part| c.parts.map_or(0, |x| x[p as usize]) as f64 / 1e3;
    let mut c = one_die(2);
    c.timing.command_ns = 500.0;
    let t = crate::flash::FlashTiming::new(&c);
    let (tr, tp, te, x) = (t.read_ns[0], t.program_ns[0], t.erase_ns, t.xfer_ns);
    let (_, done) = run_attributed(
        &c,
        &records("one read, attributed", vec![rec(0, Op::Read, 0)]),
        "trace-reads",
    )?;
    out.push(Check::exact_ns(
        "attribution: an idle read's transfer = command cycles + data out",
        part(&done[0], Part::Transfer),
        500 + x,
    ));
    out.push(Check::exact_ns(
        "attribution: an idle read's array time = tR",
        part(&done[0], Part::Array),
        tr,
    ));

    // The write that arrives 1 µs after the one that triggers a GC of an
    // empty victim waits for that program (host work), then for the erase
    // (GC), then is transferred and programmed.
    let c1 = small_die(1, 4);
    let mut late = gc_scenario(false);
    if let Source::Records { records, .. } = &mut late {
        let mut recs = records.as_ref().clone();
        let t = recs.last().map_or(0, |r| r.time_ns) + 1_000;
        recs.push(rec(t, Op::Write, 7));
        *records = Arc::new(recs);
    }
    let (_, done) = run_attributed(&c1, &late, "none")?;
    let last = done.last().expect("requests completed");
    for (name, p, ns) in [
        (
            "behind host work = transfer + tPROG - 1 us",
            Part::BehindHost,
            x + tp - 1_000,
        ),
        ("behind GC = tBERS", Part::BehindGc, te),
        ("transfer", Part::Transfer, x),
        ("array = tPROG", Part::Array, tp),
    ] {
        out.push(Check::exact_ns(
            format!("attribution: a write behind a GC's trigger and erase, {name}"),
            part(last, p),
            ns,
        ));
    }

    // One die serving Poisson reads (M/D/1): the mean wait behind other
    // reads is Pollaczek–Khinchine's.
    let c = one_die(1);
    let rho = 0.5;
    let (p, s) = md1_reads(&c, rho, requests);
    let (_, done) = run_attributed(&c, &Source::Synthetic(p), "trace-reads")?;
    let n = done.len().max(1) as f64;
    let wait = done.iter().map(|d| part(d, Part::BehindHost)).sum::<f64>() / n;
    out.push(Check::within(
        format!("attribution: M/D/1 mean wait behind other reads at utilisation {rho}"),
        wait,
        (md1_response(s, rho) - s) / 1e3,
        "us",
        0.03,
    ));
    let served = done
        .iter()
        .map(|d| part(d, Part::Array) + part(d, Part::Transfer))
        .sum::<f64>()
        / n;
    out.push(Check::within(
        "attribution: M/D/1 mean array + transfer = the service time",
        served,
        s / 1e3,
        "us",
        1e-9,
    ));
    Ok(out)
}

/// The steady-state check (SNIA PTS's rule over five rounds): one die
/// serving single-page reads in a closed loop at queue depth 1 completes
/// one every tR + transfer, so every round's completion rate is 1/S, its
/// mean latency S, and the window is steady.
pub fn steady_state_checks(requests: u64) -> Result<Vec<Check>> {
    let mut out = vec![];
    let mut c = one_die(1);
    c.host.mode = HostMode::ClosedLoop;
    c.host.queue_depth = 1;
    let t = crate::flash::FlashTiming::new(&c);
    let s = (t.read_ns[0] + t.xfer_ns) as f64;
    let p = page_reads(
        &c,
        "closed-loop reads".into(),
        3,
        requests,
        Arrival::Poisson { iops: 1.0 },
    );
    let r = run(&c, &Source::Synthetic(p), "trace-reads")?;
    let st = r
        .steady_state
        .as_ref()
        .expect("enough requests for the check");
    for v in &st.variables {
        let expected = match v.name.as_str() {
            "completion_rate_per_s" => 1e9 / s,
            "mean_latency_us" => s / 1e3,
            _ => continue,
        };
        let (lo, hi) = v
            .rounds
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| {
                (l.min(x), h.max(x))
            });
        out.push(Check::within(
            format!(
                "steady state: closed-loop QD1 reads, {} of the slowest round",
                v.name
            ),
            lo,
            expected,
            "",
            1e-6,
        ));
        out.push(Check::within(
            format!(
                "steady state: closed-loop QD1 reads, {} of the fastest round",
                v.name
            ),
            hi,
            expected,
            "",
            1e-6,
        ));
    }
    out.push(Check::within(
        "steady state: closed-loop QD1 reads are judged steady",
        st.steady as u8 as f64,
        1.0,
        "",
        0.0,
    ));
    Ok(out)
}

/// Program and erase suspension (`flash.suspension`), exact to the
/// nanosecond on one die: a read arriving in the middle of an erase (or of
/// a program's array phase) completes after the suspend latency, tR and its
/// transfer; the operation ends that much later plus the resume latency; a
/// read arriving during a program's data transfer suspends it when its
/// array phase starts; and beyond `max_per_op` suspensions a read waits for
/// the operation to end. The drive's command cycles are 0.
pub fn suspension_checks() -> Result<Vec<Check>> {
    use crate::attribution::Part;
    let mut out = vec![];
    let suspend = |mut c: Config, max: u32| {
        c.flash.suspension = crate::config::Suspension {
            program: true,
            erase: true,
            program_suspend_us: 100.0,
            erase_suspend_us: 700.0,
            resume_us: 40.0,
            max_per_op: max,
        };
        c
    };
    let with_reads = |src: Source, reads: &[(u64, u64)]| {
        let Source::Records {
            name,
            records: given,
        } = src
        else {
            unreachable!("a list of records")
        };
        let mut recs = given.as_ref().clone();
        recs.extend(reads.iter().map(|&(t, lpn)| rec(t, Op::Read, lpn)));
        recs.sort_by_key(|r| r.time_ns);
        records(&name, recs)
    };
    let part = |c: &crate::Completion, p: Part| c.parts.map_or(0, |x| x[p as usize]) as f64 / 1e3;

    // The erase of gc_scenario's GC: on one plane of 8 blocks x 4 pages,
    // the 25th write (at 24 s) triggers a GC of an all-invalid block, whose
    // erase starts when that write's program ends.
    let c1 = small_die(1, 4);
    let t = crate::flash::FlashTiming::new(&c1);
    let (tr, tp, te, x) = (t.read_ns[0], t.program_ns[0], t.erase_ns, t.xfer_ns);
    let (se, sp, res) = (700_000, 100_000, 40_000);
    let erase_start = 24_000_000_000 + x + tp;
    let window_e = se + tr + x + res;
    let c = suspend(c1.clone(), 0);
    let (r, done) = run_attributed(
        &c,
        &with_reads(gc_scenario(false), &[(erase_start + te / 2, 7)]),
        "none",
    )?;
    out.push(Check::exact_ns(
        "suspension: a read in the middle of an erase = erase suspend + tR + transfer",
        r.read.latency_us.mean,
        se + tr + x,
    ));
    out.push(Check::exact_ns(
        "suspension: that erase ends later by suspend + tR + transfer + resume (GC = trigger + tBERS + that)",
        r.gc.time_us.mean,
        x + tp + te + window_e,
    ));
    let read = done
        .iter()
        .find(|d| d.op == Op::Read)
        .expect("the read completed");
    out.push(Check::exact_ns(
        "suspension: attribution, that read's suspended part = erase suspend latency",
        part(read, Part::Suspended),
        se,
    ));
    let counts = r
        .suspension
        .as_ref()
        .map_or((0, 0), |u| (u.erase_suspensions, u.program_suspensions));
    out.push(Check::within(
        "suspension: one erase suspension, no program suspension",
        (counts.0 * 1000 + counts.1) as f64,
        1000.0,
        "erases x 1000 + programs",
        0.0,
    ));

    // A program: one write at 0 (transfer, then tPROG), and a read of
    // another page in the middle of its array phase, or during its transfer.
    let c0 = one_die(1);
    let c = suspend(c0.clone(), 0);
    let window_p = sp + tr + x + res;
    let at = x + tp / 2;
    let src = records("a read during a program", {
        vec![rec(0, Op::Write, 0), rec(at, Op::Read, 100)]
    });
    let (r, done) = run_attributed(&c, &src, "trace-reads")?;
    out.push(Check::exact_ns(
        "suspension: a read in the middle of a program's array phase = program suspend + tR + transfer",
        r.read.latency_us.mean,
        sp + tr + x,
    ));
    out.push(Check::exact_ns(
        "suspension: that program ends later by suspend + tR + transfer + resume",
        r.write.latency_us.mean,
        x + tp + window_p,
    ));
    let write = done
        .iter()
        .find(|d| d.op == Op::Write)
        .expect("the write completed");
    out.push(Check::exact_ns(
        "suspension: attribution, that write's suspended part = suspend + tR + transfer + resume",
        part(write, Part::Suspended),
        window_p,
    ));
    let src = records("a read during a program's transfer", {
        vec![rec(0, Op::Write, 0), rec(x / 2, Op::Read, 100)]
    });
    let r = run(&c, &src, "trace-reads")?;
    out.push(Check::exact_ns(
        "suspension: a read during a program's data transfer waits for its array phase, then suspend + tR + transfer",
        r.read.latency_us.mean,
        (x - x / 2) + sp + tr + x,
    ));
    // Suspension off: the read waits for the program.
    let r = run(&c0, &src, "trace-reads")?;
    out.push(Check::exact_ns(
        "suspension off: that read waits for the program's end, then tR + transfer",
        r.read.latency_us.mean,
        (x + tp - x / 2) + tr + x,
    ));

    // max_per_op = 2: three reads in one erase, each after the previous
    // suspension ended; the third waits for the erase.
    let c = suspend(c1, 2);
    let arrivals = [100_000, 1_100_000, 2_100_000];
    let reads: Vec<(u64, u64)> = arrivals
        .iter()
        .zip([7, 8, 10])
        .map(|(&a, lpn)| (erase_start + a, lpn))
        .collect();
    let (r, done) = run_attributed(&c, &with_reads(gc_scenario(false), &reads), "none")?;
    let lat: Vec<u64> = done
        .iter()
        .filter(|d| d.op == Op::Read)
        .map(|d| d.completion_ns - d.arrival_ns)
        .collect();
    let erase_end = te + 2 * window_e;
    out.push(Check::exact_ns(
        "suspension, max_per_op = 2: the first two reads in an erase = erase suspend + tR + transfer each",
        (lat.first().copied().unwrap_or(0) + lat.get(1).copied().unwrap_or(0)) as f64 / 2e3,
        se + tr + x,
    ));
    out.push(Check::exact_ns(
        "suspension, max_per_op = 2: the third waits for the erase's end (tBERS + 2 suspensions), then tR + transfer",
        lat.get(2).copied().unwrap_or(0) as f64 / 1e3,
        erase_end - arrivals[2] + tr + x,
    ));
    out.push(Check::within(
        "suspension, max_per_op = 2: two erase suspensions",
        r.suspension.as_ref().map_or(0, |u| u.erase_suspensions) as f64,
        2.0,
        "suspensions",
        0.0,
    ));
    Ok(out)
}

/// Cache program and cache read (`flash.cache_program`,
/// `flash.cache_read`), exact to the nanosecond on one plane with command
/// cycles c: n page writes queued at once run one page per
/// max(tPROG, c + transfer) after the first (c + transfer + tPROG, as
/// without cache, where each takes c + transfer + tPROG); n page reads one
/// page per c + max(tR, transfer) (the next read's command goes before the
/// page's data out), without cache c + tR + transfer each; a single page
/// gains nothing. Both when the array is the bottleneck and when the
/// channel is. Run with latency attribution on, so that every page's
/// parts are checked to sum to its latency.
/// When a buffer slot frees (`buffer.slot_frees`), on a one-page buffer of
/// a one-plane die: writes at time 0 of pages that each fill it.
pub fn slot_frees_checks() -> Result<Vec<Check>> {
    use crate::config::{SlotFrees, WriteCompletion};
    let mut c = one_die(1);
    c.buffer.capacity = BufferCapacity::Pages(1);
    let t = crate::flash::FlashTiming::new(&c);
    let (tp, x) = (t.program_ns[0], t.xfer_ns);
    let writes = |n: u64| records("writes", (0..n).map(|p| rec(0, Op::Write, p)).collect());
    let mut ssdsim = c.clone();
    ssdsim.buffer.slot_frees = SlotFrees::Eviction;
    ssdsim.host.write_completion = WriteCompletion::Transfer;
    let mut out = vec![];
    let (r, _) = run_attributed(&c, &writes(2), "none")?;
    out.push(Check::exact_ns(
        "buffer slot frees at program: the second of two writes waits for the first's program = transfer + tPROG",
        r.write.latency_us.max,
        x + tp,
    ));
    let (r, _) = run_attributed(&ssdsim, &writes(2), "none")?;
    out.push(Check::exact_ns(
        "buffer slot frees at eviction (SSDSim): the second write completes when the page it evicted has crossed the channel = transfer",
        r.write.latency_us.max,
        x,
    ));
    let (r, _) = run_attributed(&ssdsim, &writes(3), "none")?;
    out.push(Check::exact_ns(
        "buffer slot frees at eviction (SSDSim): the third write's evicted page follows the first's program = 2 x transfer + tPROG",
        r.write.latency_us.max,
        2 * x + tp,
    ));
    let mut at_program = ssdsim.clone();
    at_program.host.write_completion = WriteCompletion::Program;
    let (r, _) = run_attributed(&at_program, &writes(3), "none")?;
    out.push(Check::exact_ns(
        "buffer slot frees at eviction, program completion: the third write completes with the second's program = 2 x (transfer + tPROG)",
        r.write.latency_us.max,
        2 * (x + tp),
    ));
    Ok(out)
}

pub fn cache_checks() -> Result<Vec<Check>> {
    let mut out = vec![];
    let n = 16u64;
    let cmd = 500;
    // The array the bottleneck (SPD's SLC timing), and the channel (a
    // bus 40 times slower).
    for slow_bus in [false, true] {
        let mut c = one_die(1);
        c.timing.command_ns = cmd as f64;
        if slow_bus {
            c.timing.bus_ns_per_byte *= 40.0;
        }
        let t = crate::flash::FlashTiming::new(&c);
        let (tr, tp, x) = (t.read_ns[0], t.program_ns[0], t.xfer_ns);
        let what = if slow_bus {
            "transfer-bound"
        } else {
            "array-bound"
        };
        let mut on = c.clone();
        on.flash.cache_program = true;
        on.flash.cache_read = true;
        let writes = records("writes", (0..n).map(|p| rec(0, Op::Write, p)).collect());
        let reads = records("reads", (0..n).map(|p| rec(0, Op::Read, p)).collect());
        let one_write = records("one write", vec![rec(0, Op::Write, 0)]);
        let one_read = records("one read", vec![rec(0, Op::Read, 0)]);

        let (r, _) = run_attributed(&on, &writes, "none")?;
        out.push(Check::exact_ns(
            format!("cache program ({what}): {n} writes = c + transfer + tPROG + {} x max(tPROG, c + transfer)", n - 1),
            r.write.latency_us.max,
            cmd + x + tp + (n - 1) * tp.max(cmd + x),
        ));
        out.push(Check::within(
            format!(
                "cache program ({what}): every page after the first through the cache register"
            ),
            r.cache.as_ref().map_or(0, |k| k.cached_program_pages) as f64,
            (n - 1) as f64,
            "pages",
            0.0,
        ));
        let (r, _) = run_attributed(&c, &writes, "none")?;
        out.push(Check::exact_ns(
            format!("cache program off ({what}): {n} writes = {n} x (c + transfer + tPROG)"),
            r.write.latency_us.max,
            n * (cmd + x + tp),
        ));
        let (r, _) = run_attributed(&on, &one_write, "none")?;
        out.push(Check::exact_ns(
            format!("cache program ({what}): a single write gains nothing = c + transfer + tPROG"),
            r.write.latency_us.max,
            cmd + x + tp,
        ));

        let (r, _) = run_attributed(&on, &reads, "trace-reads")?;
        out.push(Check::exact_ns(
            format!(
                "cache read ({what}): {n} reads = c + tR + {} x (c + max(tR, transfer)) + transfer",
                n - 1
            ),
            r.read.latency_us.max,
            cmd + tr + (n - 1) * (cmd + tr.max(x)) + x,
        ));
        out.push(Check::within(
            format!(
                "cache read ({what}): every page after the first read while the one before left"
            ),
            r.cache.as_ref().map_or(0, |k| k.cached_read_pages) as f64,
            (n - 1) as f64,
            "pages",
            0.0,
        ));
        let (r, _) = run_attributed(&c, &reads, "trace-reads")?;
        out.push(Check::exact_ns(
            format!("cache read off ({what}): {n} reads = {n} x (c + tR + transfer)"),
            r.read.latency_us.max,
            n * (cmd + tr + x),
        ));
        let (r, _) = run_attributed(&on, &one_read, "trace-reads")?;
        out.push(Check::exact_ns(
            format!("cache read ({what}): a single read gains nothing = c + tR + transfer"),
            r.read.latency_us.max,
            cmd + tr + x,
        ));
    }
    Ok(out)
}

/// Bad blocks (`flash.bad_blocks`), exactly. Factory bad blocks: every
/// plane has round(f × blocks_per_plane) of them. Grown: with
/// `retire_at_endurance` a block retires at exactly its E-th erase
/// (`cell.endurance` = E). The read-only point of a constructed case: one
/// plane of B blocks under a sequential overwrite with FIFO victims takes
/// its blocks in strict rotation (each victim is the oldest closed block,
/// whose pages were all overwritten, and an erased block goes to the back
/// of the free list), so with S spares set aside the W = B − S blocks it
/// works with are erased in strict rotation: block i's E-th erase is erase
/// (E − 1)·W + i + 1, each later erase retires the next block (a spare,
/// never erased, takes its place), and the (S + 1)-th retirement ends the
/// run at erase (E − 1)·W + S + 1.
pub fn bad_block_checks() -> Result<Vec<Check>> {
    use crate::addr::PlaneId;
    use crate::config::BadBlocks;
    let mut out = vec![];
    // Factory bad blocks: 5 % of 64 blocks, round(3.2) = 3 per plane.
    let mut c = one_die(2);
    c.name = "validation-factory-bad".into();
    c.flash.bad_blocks = Some(BadBlocks {
        factory_fraction: 0.05,
        spare_blocks: Some(5),
        ..BadBlocks::default()
    });
    let sim = Simulator::new(
        &c,
        &records("nothing", vec![rec(0, Op::Read, 0)]),
        &Precondition::parse("none")?,
    )?;
    let per_plane: Vec<u32> = (0..c.total_planes())
        .map(|p| sim.ftl().retired_blocks(PlaneId(p)))
        .collect();
    let expected = (0.05f64 * c.geometry.blocks_per_plane as f64).round();
    for (name, v) in [
        ("fewest", per_plane.iter().min()),
        ("most", per_plane.iter().max()),
    ] {
        out.push(Check::within(
            format!("bad blocks: factory fraction 5 % of 64 blocks gives round(3.2) = 3 per plane ({name})"),
            v.copied().unwrap_or(0) as f64,
            expected,
            "blocks",
            0.0,
        ));
    }

    // Endurance E = 3, S = 2 spares, one plane of B = 16 blocks of 4 pages,
    // 8 blocks of logical pages written over and over in order.
    let (e, s, b) = (3u32, 2u32, 16u64);
    let mut c = one_die(1);
    c.name = "validation-read-only".into();
    c.geometry.blocks_per_plane = b as u32;
    c.geometry.pages_per_block = 4;
    c.ftl.overprovisioning = 0.5;
    c.gc.victim = VictimPolicy::Fifo;
    c.cell.endurance = Some(e);
    c.flash.bad_blocks = Some(BadBlocks {
        factory_fraction: 0.0,
        retire_at_endurance: true,
        erase_failure_probability: 0.0,
        spare_blocks: Some(s),
    });
    let logical = c.logical_pages();
    let recs = (0..1000u64)
        .map(|i| rec(i * 5_000_000, Op::Write, i % logical))
        .collect();
    let sim = Simulator::new(
        &c,
        &records("sequential overwrite", recs),
        &Precondition::parse("none")?,
    )?;
    let (r, sim) = sim.run_inspect(&mut |_| {})?;
    let Some(bad) = r.bad_blocks.clone() else {
        return Err(crate::error::Error::Invalid(
            "bad-block validation: the run reported no bad blocks".into(),
        ));
    };
    let counts = sim.ftl().erase_counts();
    let retired_at_e = counts.iter().filter(|&&n| n == e).count();
    out.push(Check::within(
        "bad blocks: blocks that reached E = 3 erases = blocks retired at the endurance limit",
        retired_at_e as f64,
        bad.grown_endurance as f64,
        "blocks",
        0.0,
    ));
    out.push(Check::within(
        "bad blocks: no block erased more than E = 3 times",
        counts.iter().copied().max().unwrap_or(0) as f64,
        e as f64,
        "erases",
        0.0,
    ));
    out.push(Check::within(
        "bad blocks: 2 spares, the 3rd retirement makes the drive read-only",
        (bad.grown_endurance as f64) * f64::from(u8::from(bad.read_only.is_some())),
        (s + 1) as f64,
        "blocks",
        0.0,
    ));
    out.push(Check::within(
        "bad blocks: read-only at erase (E - 1)·(B - S) + S + 1 = 31 of a sequential overwrite (FIFO victims)",
        r.gc.erases as f64,
        ((e as u64 - 1) * (b - s as u64) + s as u64 + 1) as f64,
        "erases",
        0.0,
    ));
    Ok(out)
}

/// A two-plane drive of 64 blocks of 64 pages for the wear-levelling
/// checks: rated `endurance` cycles, wear levelling as given.
pub fn wear_drive(endurance: u32, dynamic: bool, static_threshold: Option<u32>) -> Config {
    let mut c = one_die(2);
    c.name = format!("validation-wear-{endurance}");
    c.cell.endurance = Some(endurance);
    c.ftl.plane_allocation = crate::config::PlaneAllocation::Static;
    c.ftl.wear_levelling = crate::config::WearLevelling {
        dynamic,
        static_threshold,
    };
    c
}

/// `requests` single-page writes over the drive's logical pages: uniform,
/// or `hot_share` of them to the first `hot_fraction` of the pages.
pub fn wear_writes(c: &Config, requests: u64, hot: Option<(f64, f64)>, seed: u64) -> Source {
    Source::Synthetic(Profile {
        name: "wear-writes".into(),
        seed,
        requests,
        read_share: 0.0,
        footprint_bytes: c.logical_pages() * 4096,
        page_bytes: 4096,
        read_size: Some(SizeDist::constant(4096)),
        write_size: Some(SizeDist::constant(4096)),
        address: match hot {
            Some((hot_fraction, hot_share)) => Address::HotCold {
                hot_fraction,
                hot_share,
            },
            None => Address::Uniform,
        },
        arrival: Arrival::Poisson { iops: 1000.0 },
        latency_hint: None,
    })
}

/// Wear levelling against what it promises, exactly where it can be:
/// dynamic levelling's choice (every time a block could be opened in a
/// worn drive, the hot write's block has the fewest erases of the plane's
/// free blocks and the cold write's the most); static levelling's bound on
/// the erase spread of a plane's blocks under a 90/10 hot/cold workload;
/// and the lifetime of a uniform random workload against the closed form
/// blocks × endurance × pages per block × page bytes / WAF.
pub fn wear_checks() -> Result<Vec<Check>> {
    use crate::addr::PlaneId;
    use crate::ftl::{Ftl, PreconditionReport, Writer};
    use crate::sim::lifetime::{lifetime, LifetimeOptions};
    use rand::SeedableRng;

    let mut out = vec![];
    // Dynamic levelling's choice, checked every 97 writes of a skewed
    // untimed replay: with hot/cold streams (the first tenth of the pages
    // written hot), the hot stream's next block has the fewest erases of the
    // plane's free blocks and the cold stream's (GC's) the most; with one
    // stream, every opening the fewest.
    for split in [true, false] {
        let mut c = wear_drive(1_000_000, true, None);
        if split {
            c.ftl.hot_data = "mbf".into();
        }
        let src = wear_writes(&c, 60_000, Some((0.1, 0.9)), 31);
        let page = c.geometry.page_size_bytes as u64;
        let writes = crate::host::address::write_pages(
            &src,
            &crate::host::address::AddressMap::Fold,
            c.logical_pages(),
            page,
        )?;
        let domains = crate::domain::Domains::new(&c);
        let mut ftl = Ftl::new(&c, &domains, false);
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(c.seed);
        let mut report = PreconditionReport::default();
        let (mut looked, mut wrong) = (0u64, 0u64);
        let bpp = ftl.blocks_per_plane();
        let hot_pages = c.logical_pages() / 10;
        for (i, &lpn) in writes.iter().enumerate() {
            let w = Writer::Host {
                hot: split && (lpn as u64) < hot_pages,
            };
            let plane = ftl.choose_plane(lpn, w, |_| 0);
            ftl.make_room(plane, &mut rng, &mut report)?;
            ftl.write(plane, lpn, 0, w, 0).expect("room was made");
            if i % 97 != 0 {
                continue;
            }
            for p in PlaneId::all(ftl.planes()) {
                let ec = ftl.erase_counts();
                let free: Vec<u32> = (p.0 * bpp..(p.0 + 1) * bpp)
                    .filter(|&b| {
                        ftl.block_state(crate::addr::BlockId(b)) == crate::ftl::BlockState::Free
                    })
                    .collect();
                let (Some(&lo), Some(&hi)) = (
                    free.iter().min_by_key(|&&b| (ec[b as usize], b)),
                    free.iter().max_by_key(|&&b| (ec[b as usize], b)),
                ) else {
                    continue;
                };
                looked += 1;
                let cold = if split { hi } else { lo };
                if ftl.levelled_next_block(p, Writer::Host { hot: true }) != Some(lo)
                    || ftl.levelled_next_block(p, Writer::GC) != Some(cold)
                {
                    wrong += 1;
                }
            }
        }
        let ec = ftl.erase_counts();
        let spread = ec.iter().max().unwrap_or(&0) - ec.iter().min().unwrap_or(&0);
        out.push(Check {
            name: if split {
                format!("dynamic levelling, hot/cold streams: the hot stream opens the least-worn free block, the cold (GC) stream the most-worn ({looked} looks, erase spread {spread})")
            } else {
                format!("dynamic levelling, one stream: every opening takes the least-worn free block ({looked} looks, erase spread {spread})")
            },
            measured: wrong as f64,
            expected: 0.0,
            unit: "wrong choices",
            tolerance: "exact".into(),
            pass: wrong == 0 && looked > 100 && spread > 0,
        });
    }

    // Static levelling under 90/10 hot/cold writes, until the first block
    // reaches 300 cycles. A victim picked while a plane's spread is at most
    // T raises the plane's most by at most one; a levelling victim never
    // raises it; the spread passes T + 1 only while no closed block lies
    // more than T below the most (the least-worn blocks free or open), and
    // each block the plane opens meanwhile (at most its free blocks, the GC
    // threshold's 2 plus the stream's, before a least-worn free block is
    // opened in FIFO order) adds at most one more: bound T + 1 + 3.
    let t = 8;
    let opts = LifetimeOptions {
        worn_share: None,
        years: 5.0,
        precondition: None,
    };
    let bound = t + 4;
    let skew = |c: &Config| wear_writes(c, 40_000, Some((0.1, 0.9)), 32);
    let on = wear_drive(300, false, Some(t));
    let with = lifetime(&on, &skew(&on), &opts, &mut |_| {})?;
    let levelled = with.wear_levelling.as_ref().map_or(0, |w| w.static_blocks);
    out.push(Check {
        name: format!(
            "static levelling, T = {t}, 90/10 writes to the first worn block: largest spread of a plane's blocks <= T + 4 ({levelled} blocks levelled)"
        ),
        measured: with.erase_count.plane_block_spread as f64,
        expected: bound as f64,
        unit: "erases",
        tolerance: "at most".into(),
        pass: with.erase_count.plane_block_spread <= bound && levelled > 0,
    });
    let off = wear_drive(300, false, None);
    let without = lifetime(&off, &skew(&off), &opts, &mut |_| {})?;
    out.push(Check {
        name: format!(
            "no static levelling, the same writes: the spread grows past T + 4 (the lifetime with it is {:.2}x this one's)",
            with.host_bytes as f64 / without.host_bytes.max(1) as f64
        ),
        measured: without.erase_count.plane_block_spread as f64,
        expected: bound as f64,
        unit: "erases",
        tolerance: "more than".into(),
        pass: without.erase_count.plane_block_spread > bound,
    });

    // The lifetime of uniform random writes until half the blocks are
    // worn: each erase follows a block's worth of programs, so host bytes ≈
    // blocks × endurance × pages per block × page bytes / WAF (WAF
    // measured) when the mean block has reached the endurance; under
    // dynamic levelling the blocks' counts lie within a few erases of each
    // other, so at the median block the mean is the endurance within 2 %.
    let e = 100;
    let c = wear_drive(e, true, None);
    let r = lifetime(
        &c,
        &wear_writes(&c, 30_000, None, 33),
        &LifetimeOptions {
            worn_share: Some(0.5),
            years: 5.0,
            precondition: None,
        },
        &mut |_| {},
    )?;
    let g = &c.geometry;
    let blocks = (g.channels
        * g.chips_per_channel
        * g.dies_per_chip
        * g.planes_per_die
        * g.blocks_per_plane) as f64;
    let expected = blocks * e as f64 * g.pages_per_block as f64 * g.page_size_bytes as f64
        / r.write_amplification;
    out.push(Check::within(
        format!(
            "lifetime, uniform random writes, half the blocks worn (endurance {e}, WAF {:.3}): host bytes = blocks x endurance x block bytes / WAF",
            r.write_amplification
        ),
        r.host_bytes as f64,
        expected,
        "bytes",
        0.02,
    ));
    Ok(out)
}

/// The host interface on one request at a time, against its closed forms:
/// the link's time from the PCI Express and SATA specifications' framing
/// and encoding (written out here from the constants, not by the model's
/// functions), the DRAM's from the datasheet formula, firmware's as added.
/// Each check runs the same request with and without the interface: the
/// difference is the interface's time, exactly.
pub fn interface_checks() -> Result<Vec<Check>> {
    use crate::config::{Controller, Dram, Interface, Link};
    let mut out = vec![];
    let base = one_die(2);
    let with = |link: Option<Link>, controller: Option<Controller>| {
        let mut c = base.clone();
        c.interface = Some(Interface { link, controller });
        c
    };
    // ns a message of `b` wire bytes takes on PCIe generation 3 x4: a
    // lane's share, 8 bits a byte × 130/128 at 8 GT/s.
    let gen3x4 = |b: u64| (b.div_ceil(4) as f64 * 8.0 * 130.0 / 128.0 / 8.0).ceil() as u64;
    // A TLP of p data bytes: 16-byte (request) or 12-byte (completion)
    // header, 4 bytes of framing and sequence number, 4 of LCRC.
    let req = |p: u64| p + 16 + 8;
    let cpl = |p: u64| p + 12 + 8;
    let diff = |cfg: &Config, src: &Source, pre: &str, write: bool| -> Result<f64> {
        let (a, b) = (run(cfg, src, pre)?, run(&base, src, pre)?);
        Ok(if write {
            a.write.latency_us.mean - b.write.latency_us.mean
        } else {
            a.read.latency_us.mean - b.read.latency_us.mean
        })
    };
    let pcie = Some(Link::Pcie {
        generation: 3,
        lanes: 4,
        max_payload: 256,
    });
    // A 16 KiB write: doorbell, entry fetch (request up, 64-byte entry
    // down), 64 read requests, the data in 64 completions; then the
    // completion entry and the interrupt.
    let n = 16384;
    let expected = gen3x4(req(4))
        + gen3x4(req(0))
        + gen3x4(cpl(64))
        + gen3x4(64 * req(0))
        + gen3x4(n + 64 * 20)
        + gen3x4(req(16) + req(4));
    let src = records("one 16 KiB write", vec![IoRecord::new(0, Op::Write, 0, n)]);
    out.push(Check::exact_ns(
        "PCIe 3.0 x4 link time of a 16 KiB write = its closed form",
        diff(&with(pcie.clone(), None), &src, "none", true)?,
        expected,
    ));
    // A 4 KiB read: command as above; its data goes up in 16 posted writes
    // with the completion entry and the interrupt.
    let expected = gen3x4(req(4))
        + gen3x4(req(0))
        + gen3x4(cpl(64))
        + gen3x4(4096 + 16 * 24 + req(16) + req(4));
    let src = records("one read", vec![rec(0, Op::Read, 0)]);
    out.push(Check::exact_ns(
        "PCIe 3.0 x4 link time of a 4 KiB read = its closed form",
        diff(&with(pcie.clone(), None), &src, "trace-reads", false)?,
        expected,
    ));
    // Latency attribution counts that time in its `host` part, the rest as
    // without the interface.
    let mut attributed = with(pcie, None);
    attributed.metrics.attribution = true;
    let r = run(&attributed, &src, "trace-reads")?;
    let all = r
        .attribution
        .as_ref()
        .and_then(|a| a.read.first())
        .ok_or_else(|| crate::Error::Invalid("attribution reported no read".into()))?;
    out.push(Check::exact_ns(
        "latency attribution's host part of that read = the link's closed form",
        all.share_pct.host.unwrap_or(0.0) / 100.0 * all.mean_us,
        expected,
    ));
    // SATA 6 Gb/s: 8b/10b makes a byte 5/3 ns; each FIS adds SOF, CRC and
    // EOF (12 bytes); NCQ write: Register H2D (20), Register D2H (20), DMA
    // Setup (28) and DMA Activate (4), one data FIS (4-byte header), Set
    // Device Bits (8).
    let sata = |b: u64| (b as f64 * 10.0 / 6.0).ceil() as u64;
    let fis = |b: u64| b + 12;
    let expected =
        sata(fis(20)) + sata(fis(20)) + sata(fis(28) + fis(4)) + sata(fis(4 + 4096)) + sata(fis(8));
    let src = records("one write", vec![rec(0, Op::Write, 0)]);
    out.push(Check::exact_ns(
        "SATA 6 Gb/s link time of a 4 KiB write = its closed form",
        diff(&with(Some(Link::Sata), None), &src, "none", true)?,
        expected,
    ));
    // DRAM (datasheet defaults, DDR3L-1600 x16: tRCD = tCL = tRP = 13.75
    // ns, BL8, 2 KiB rows): a buffered 4 KiB write reads its map entry (4
    // bytes: one row, one burst) and is written into DRAM (two rows, 256
    // bursts); a burst of 8 transfers at 1600 MT/s is 5 ns.
    let mut buffered = base.clone();
    buffered.buffer.capacity = BufferCapacity::Pages(64);
    let mut dram_cfg = buffered.clone();
    dram_cfg.interface = Some(Interface {
        link: None,
        controller: Some(Controller {
            dram: Some(Dram::default()),
            ..Controller::default()
        }),
    });
    let row: f64 = 13.75 * 3.0;
    let expected = (row + 5.0).ceil() as u64 + (2.0 * row + 256.0 * 5.0).ceil() as u64;
    let (a, b) = (run(&dram_cfg, &src, "none")?, run(&buffered, &src, "none")?);
    out.push(Check::exact_ns(
        "DRAM time of a buffered 4 KiB write = map entry + admission (datasheet formula)",
        a.write.latency_us.mean - b.write.latency_us.mean,
        expected,
    ));
    // Firmware: 5 µs a command and 1 µs a page, on a 2-page write.
    let fw = with(
        None,
        Some(Controller {
            firmware_ns_per_command: 5000,
            firmware_ns_per_page: 1000,
            ..Controller::default()
        }),
    );
    let src = records(
        "one 8 KiB write",
        vec![IoRecord::new(0, Op::Write, 0, 8192)],
    );
    out.push(Check::exact_ns(
        "firmware time of a 2-page write = per command + 2 x per page",
        diff(&fw, &src, "none", true)?,
        7000,
    ));
    Ok(out)
}

/// The small drive the flows' checks run on: `channels` channels of one
/// chip, 64 blocks of 32 pages per plane, 20 % over-provisioning, GC at 3
/// free blocks, no write buffer.
fn flows_drive(channels: u32) -> Result<Config> {
    let mut c = Config::preset("small")?;
    c.geometry.channels = channels;
    c.geometry.chips_per_channel = 1;
    c.geometry.blocks_per_plane = 64;
    c.geometry.pages_per_block = 32;
    c.ftl.overprovisioning = 0.2;
    c.gc.threshold = GcThreshold::Blocks(3);
    c.buffer.capacity = BufferCapacity::None;
    Ok(c)
}

/// Flows (`[[flows]]`): two identical flows under round robin share the
/// device equally and are slowed alike (FLIN's fairness ≈ 1); weighted
/// round robin fetches in the ratio of the weights under saturation; a
/// flow of queue depth 1 never has two requests in flight. Counted from
/// the request log on a small drive, every request arriving at time 0
/// (saturation) and the device holding two commands.
pub fn flow_checks() -> Result<Vec<Check>> {
    use crate::config::{Arbitration, FlowConfig, Priority, Queues};
    let c = flows_drive(2)?;
    let n = 300u64;
    let reads = |name: &str, gap: u64| Source::Records {
        name: name.into(),
        records: Arc::new(
            (0..n)
                .map(|i| IoRecord::new(i * gap, Op::Read, i * 4096, 4096))
                .collect(),
        ),
    };
    let flow = |name: &str, depth: u32, priority: Priority| FlowConfig {
        queue_depth: depth,
        priority,
        ..FlowConfig::of_workload(name)
    };
    let pre = Precondition::parse("fill:0.5:0.5+trace-reads")?;
    let logged = |c: &Config, src: &[Source]| -> Result<(Report, Vec<crate::Completion>)> {
        let mut sim = Simulator::with_flows(c, src, &pre)?;
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = log.clone();
        sim.log_requests(Box::new(move |x| sink.lock().expect("unpoisoned").push(*x)));
        let r = sim.run(&mut |_| {})?;
        let v = std::mem::take(&mut *log.lock().expect("unpoisoned"));
        Ok((r, v))
    };
    let fetched = |x: &crate::Completion| x.arrival_ns + x.host_wait_ns;
    let mut out = vec![];

    // Round robin, two identical flows.
    let mut rr = c.clone();
    rr.flows = vec![
        flow("a", 16, Priority::Medium),
        flow("b", 16, Priority::Medium),
    ];
    rr.queues = Some(Queues {
        device_slots: Some(2),
        ..Queues::default()
    });
    let src = [reads("a", 0), reads("b", 0)];
    let (mut r, log) = logged(&rr, &src)?;
    // While both are backlogged: until the first flow's last fetch.
    let end = (0..2)
        .map(|f| {
            log.iter()
                .filter(|x| x.flow == Some(f))
                .map(fetched)
                .max()
                .unwrap_or(0)
        })
        .min()
        .unwrap_or(0);
    let a = log
        .iter()
        .filter(|x| x.flow == Some(0) && fetched(x) < end)
        .count();
    let both = log.iter().filter(|x| fetched(x) < end).count();
    out.push(Check::within_abs(
        "flows: round robin, two identical saturated flows: share of flow a's fetches",
        a as f64 / both.max(1) as f64,
        0.5,
        "share",
        0.005,
    ));
    let alone = crate::sim::flows::alone_mean_latencies(&rr, &src, &pre, &mut |_| {
        crate::sim::Control::Continue
    })?;
    r.set_alone(&alone);
    out.push(Check::within(
        "flows: round robin, two identical flows: fairness (min/max slowdown, FLIN)",
        r.fairness.unwrap_or(0.0),
        1.0,
        "ratio",
        0.02,
    ));

    // Weighted round robin: high 3, low 1.
    let mut wrr = c.clone();
    wrr.flows = vec![
        flow("low", 16, Priority::Low),
        flow("high", 16, Priority::High),
    ];
    let mut q = Queues {
        arbitration: Arbitration::Wrr,
        device_slots: Some(2),
        ..Queues::default()
    };
    q.weights.high = 3;
    q.weights.low = 1;
    wrr.queues = Some(q);
    let (_, log) = logged(&wrr, &[reads("low", 0), reads("high", 0)])?;
    let end = log
        .iter()
        .filter(|x| x.flow == Some(1))
        .map(fetched)
        .max()
        .unwrap_or(0);
    let high = log.iter().filter(|x| x.flow == Some(1)).count();
    let low = log
        .iter()
        .filter(|x| x.flow == Some(0) && fetched(x) < end)
        .count();
    out.push(Check::within(
        "flows: weighted round robin 3:1, saturated: high fetches per low fetch",
        high as f64 / low.max(1) as f64,
        3.0,
        "ratio",
        0.02,
    ));

    // Queue depth 1 beside a deeper flow, arrivals faster than service.
    let mut one = c.clone();
    one.flows = vec![
        flow("one", 1, Priority::Medium),
        flow("deep", 8, Priority::Medium),
    ];
    let (_, log) = logged(&one, &[reads("one", 1_000), reads("deep", 1_000)])?;
    let mut ev: Vec<(u64, i32)> = log
        .iter()
        .filter(|x| x.flow == Some(0))
        .flat_map(|x| [(fetched(x), 1), (x.completion_ns, -1)])
        .collect();
    ev.sort_unstable();
    let (mut now, mut most) = (0i32, 0i32);
    for (_, d) in ev {
        now += d;
        most = most.max(now);
    }
    out.push(Check::within(
        "flows: a flow of queue depth 1: most requests in flight at once",
        most as f64,
        1.0,
        "requests",
        0.0,
    ));
    out.push(Check::within(
        "flows: a flow of queue depth 1: requests completed (each once)",
        log.iter().filter(|x| x.flow == Some(0)).count() as f64,
        n as f64,
        "requests",
        0.0,
    ));
    Ok(out)
}

/// Flows' partitions of the flash, counted out: two flows on disjoint
/// halves of the channels (4 channels, 2 planes per die: flow a on
/// channels 0 and 1, b on 2 and 3), each writing its namespace (half the
/// logical space) once in page order, without a buffer. Under static
/// allocation each flow's page `r` goes to its partition's plane `r mod 4`
/// (the partition's planes in the static order, channels fastest), so each
/// of its channels holds exactly the pages `r` with `r mod 4` on it; no
/// page of a flow lies outside its channels; every page is one host
/// program. Then three passes in a scrambled order under round-robin
/// allocation (GC runs): still none outside, and each flow's namespace
/// valid exactly once.
pub fn partition_checks() -> Result<Vec<Check>> {
    use crate::config::{FlowConfig, Namespace, PlaneAllocation, Priority};
    let mut c = flows_drive(4)?;
    c.check.enabled = true;
    let half = c.logical_pages() / 2;
    let flow = |name: &str, first: u64, channels: Vec<u32>| FlowConfig {
        queue_depth: 8,
        priority: Priority::Medium,
        namespace: Some(Namespace {
            first_page: first,
            pages: half,
        }),
        channels: Some(channels),
        ..FlowConfig::of_workload(name)
    };
    c.flows = vec![flow("a", 0, vec![0, 1]), flow("b", half, vec![2, 3])];
    let writes = |name: &str, passes: u64| {
        let n = half * passes;
        Source::Records {
            name: name.into(),
            records: Arc::new(
                (0..n)
                    .map(|i| {
                        let p = if i < half {
                            i
                        } else {
                            (i * 2_654_435_761) % half
                        };
                        IoRecord::new(i * 4_000, Op::Write, p * 4096, 4096)
                    })
                    .collect(),
            ),
        }
    };
    // Per flow, its valid pages per channel.
    let run = |c: &Config, passes: u64| -> Result<(Report, Vec<Vec<u64>>)> {
        let src = [writes("a", passes), writes("b", passes)];
        let sim = Simulator::with_flows(c, &src, &Precondition::parse("none")?)?;
        let (r, sim) = sim.run_inspect(&mut |_| {})?;
        sim.check().map_err(crate::error::Error::Invalid)?;
        let ftl = sim.ftl();
        let per = c
            .flows
            .iter()
            .map(|f| {
                let ns = f.namespace.expect("a namespace");
                let mut n = vec![0u64; 4];
                for lpn in ns.first_page..ns.first_page + ns.pages {
                    if let Some(ppn) = ftl.lookup(lpn as u32) {
                        let die = ftl.map.die_of_plane(ftl.map.plane_of(ppn));
                        n[ftl.map.channel_of_chip(ftl.map.chip_of_die(die)) as usize] += 1;
                    }
                }
                n
            })
            .collect();
        Ok((r, per))
    };
    let mut out = vec![];
    let (r, per) = run(&c, 1)?;
    // Pages r < half with r mod 4 in {0, 2} (channel 0's planes: the
    // partition's static order is c0p0, c1p0, c0p1, c1p1).
    let on = |rs: [u64; 2]| -> u64 {
        rs.iter()
            .map(|&j| if j < half { (half - 1 - j) / 4 + 1 } else { 0 })
            .sum()
    };
    let (first, second) = (on([0, 2]), on([1, 3]));
    for (f, name, mine) in [(0usize, "a", [0usize, 1]), (1, "b", [2, 3])] {
        out.push(Check::within_abs(
            format!("partitions, static: flow {name}'s pages outside its channels"),
            per[f]
                .iter()
                .enumerate()
                .filter(|(ch, _)| !mine.contains(ch))
                .map(|(_, n)| n)
                .sum::<u64>() as f64,
            0.0,
            "pages",
            0.0,
        ));
        out.push(Check::within(
            format!(
                "partitions, static: flow {name}'s pages on channel {} (r mod 4 in {{0, 2}})",
                mine[0]
            ),
            per[f][mine[0]] as f64,
            first as f64,
            "pages",
            0.0,
        ));
        out.push(Check::within(
            format!(
                "partitions, static: flow {name}'s pages on channel {} (r mod 4 in {{1, 3}})",
                mine[1]
            ),
            per[f][mine[1]] as f64,
            second as f64,
            "pages",
            0.0,
        ));
    }
    out.push(Check::within(
        "partitions, static: host programs = both namespaces' pages",
        r.flash.host_programs as f64,
        (2 * half) as f64,
        "programs",
        0.0,
    ));
    let mut rr = c.clone();
    rr.ftl.plane_allocation = PlaneAllocation::RoundRobin;
    let (r, per) = run(&rr, 3)?;
    out.push(Check::within_abs(
        "partitions, round robin with GC: pages of a flow outside its channels",
        (per[0][2] + per[0][3] + per[1][0] + per[1][1]) as f64,
        0.0,
        "pages",
        0.0,
    ));
    out.push(Check::within(
        "partitions, round robin with GC: valid pages = both namespaces' pages",
        per.iter().flatten().sum::<u64>() as f64,
        (2 * half) as f64,
        "pages",
        0.0,
    ));
    out.push(Check::within(
        "partitions, round robin with GC: host programs = 3 passes over both namespaces",
        r.flash.host_programs as f64,
        (6 * half) as f64,
        "programs",
        0.0,
    ));
    Ok(out)
}

/// DFTL's cached mapping table partitioned among flows, counted out: 64
/// entries, two flows of reads spaced far apart (each read done before
/// the next arrives). Flow a cycles over 32 pages, flow b reads a new page
/// twice as often. Shared, between two reads of one of a's pages come 31
/// of a's and 64 of b's: 95 other entries, more than the table holds, so
/// every read misses. Partitioned (32 entries each), a's 32 pages stay in
/// its part: a misses only its first 32 reads; b still misses every read.
pub fn cache_partition_checks() -> Result<Vec<Check>> {
    use crate::config::{FlowConfig, Mapping, Namespace, Priority, Sharing};
    let mut c = flows_drive(2)?;
    c.ftl.mapping = Mapping::Dftl;
    c.ftl.mapping_cache_entries = 64;
    let half = c.logical_pages() / 2;
    let (cycles, working) = (20u64, 32u64);
    let a_reads = cycles * working;
    let flow = |name: &str, first: u64| FlowConfig {
        queue_depth: 8,
        priority: Priority::Medium,
        namespace: Some(Namespace {
            first_page: first,
            pages: half,
        }),
        ..FlowConfig::of_workload(name)
    };
    c.flows = vec![flow("a", 0), flow("b", half)];
    let reads = |name: &str, n: u64, gap: u64, page: &dyn Fn(u64) -> u64| Source::Records {
        name: name.into(),
        records: Arc::new(
            (0..n)
                .map(|i| IoRecord::new(i * gap, Op::Read, page(i) * 4096, 4096))
                .collect(),
        ),
    };
    let src = [
        reads("a", a_reads, 2_000_000, &|i| i % working),
        reads("b", 2 * a_reads, 1_000_000, &|i| working + i),
    ];
    let pre = Precondition::parse("fill:0.5:0.5+trace-reads")?;
    let misses = |c: &Config| -> Result<u64> {
        let r = Simulator::with_flows(c, &src, &pre)?.run(&mut |_| {})?;
        Ok(r.mapping.totals.cache_misses)
    };
    let mut out = vec![];
    out.push(Check::within(
        "mapping cache shared by two flows: misses (every read: a's entries pushed out by b's)",
        misses(&c)? as f64,
        (3 * a_reads) as f64,
        "misses",
        0.0,
    ));
    let mut p = c.clone();
    p.ftl.mapping_cache_sharing = Sharing::Partitioned;
    out.push(Check::within(
        "mapping cache partitioned, 32 entries per flow: misses (a's first 32 reads, every b read)",
        misses(&p)? as f64,
        (working + 2 * a_reads) as f64,
        "misses",
        0.0,
    ));
    Ok(out)
}

/// The write buffer partitioned among flows, counted out: one die (one
/// LRU list), 64 slots, writes spaced far apart (each done before the next
/// arrives). Flow a rewrites 32 pages in turn, flow b writes a new page
/// twice as often. Shared, between two writes of one of a's pages come 31
/// of a's and 64 of b's: 95 other pages, more than the buffer holds, so
/// the page has left (least recently used) and no write hits. Partitioned
/// (32 slots each), a's 32 pages stay in its share: every write of a after
/// its first 32 hits; b's evictions take only b's pages.
pub fn buffer_partition_checks() -> Result<Vec<Check>> {
    use crate::config::{FlowConfig, Namespace, Priority, Sharing};
    let mut c = flows_drive(1)?;
    c.geometry.dies_per_chip = 1;
    c.buffer.capacity = BufferCapacity::Pages(64);
    let half = c.logical_pages() / 2;
    let (cycles, working) = (20u64, 32u64);
    let a_writes = cycles * working;
    let flow = |name: &str, first: u64| FlowConfig {
        queue_depth: 8,
        priority: Priority::Medium,
        namespace: Some(Namespace {
            first_page: first,
            pages: half,
        }),
        ..FlowConfig::of_workload(name)
    };
    c.flows = vec![flow("a", 0), flow("b", half)];
    let writes = |name: &str, n: u64, gap: u64, page: &dyn Fn(u64) -> u64| Source::Records {
        name: name.into(),
        records: Arc::new(
            (0..n)
                .map(|i| IoRecord::new(i * gap, Op::Write, page(i) * 4096, 4096))
                .collect(),
        ),
    };
    let src = [
        writes("a", a_writes, 2_000_000, &|i| i % working),
        writes("b", 2 * a_writes, 1_000_000, &|i| working + i),
    ];
    let hits = |c: &Config| -> Result<u64> {
        let r = Simulator::with_flows(c, &src, &Precondition::parse("none")?)?.run(&mut |_| {})?;
        Ok(r.buffer.write_hits)
    };
    let mut out = vec![];
    out.push(Check::within(
        "write buffer shared by two flows: write hits (none: a's pages pushed out by b's)",
        hits(&c)? as f64,
        0.0,
        "hits",
        0.0,
    ));
    let mut p = c.clone();
    p.buffer.sharing = Sharing::Partitioned;
    out.push(Check::within(
        "write buffer partitioned, 32 slots per flow: write hits (all of a's after its first 32)",
        hits(&p)? as f64,
        (a_writes - working) as f64,
        "hits",
        0.0,
    ));
    Ok(out)
}

/// FLIN (`sched.policy = "flin"`, `sched/flin.rs`), against what can be
/// worked out by hand: with one flow it orders exactly as `fcfs` (every
/// request completes at the same time); its wait-balancing lets a host
/// write go before a read queued now exactly when the write has waited
/// longer than c_w² / c_r − c_r (proportional waits (w_w + c_r) / c_w
/// against c_w / c_r, service times c of the drive's program and read);
/// ReorderForFairness puts a starved flow's new transaction where the
/// fairness of the queue's estimated slowdowns is largest (a case worked
/// out in the comment); two identical flows stay equally slowed.
pub fn flin_checks() -> Result<Vec<Check>> {
    use crate::config::FlowConfig;
    use crate::sched::flin::{best_place, Entry, Flin};
    let mut out = vec![];
    let mut c = flows_drive(2)?;
    c.buffer.capacity = BufferCapacity::Pages(64);
    let flow = |name: &str| FlowConfig {
        queue_depth: 16,
        ..FlowConfig::of_workload(name)
    };
    let logged = |c: &Config, src: &[Source], pre: &Precondition| -> Result<Vec<(u64, u64)>> {
        let mut sim = Simulator::with_flows(c, src, pre)?;
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = log.clone();
        sim.log_requests(Box::new(move |x| {
            sink.lock()
                .expect("unpoisoned")
                .push((x.arrival_ns, x.completion_ns))
        }));
        sim.run(&mut |_| {})?;
        let v = std::mem::take(&mut *log.lock().expect("unpoisoned"));
        Ok(v)
    };

    // One flow, reads and writes of 1 to 4 pages, GC running.
    let mixed = Source::Records {
        name: "mixed".into(),
        records: Arc::new(
            (0..6_000u64)
                .map(|i| {
                    let op = if i % 2 == 0 { Op::Write } else { Op::Read };
                    IoRecord::new(i * 3_000, op, (i * 7919 % 4096) * 4096, 4096 * (1 + i % 4))
                })
                .collect(),
        ),
    };
    let pre = Precondition::parse("fill:0.95:0.95")?;
    let mut one = c.clone();
    one.flows = vec![flow("mixed")];
    one.sched.policy = SchedPolicy::Fcfs;
    let fcfs = logged(&one, std::slice::from_ref(&mixed), &pre)?;
    one.sched.policy = SchedPolicy::Flin;
    let flin = logged(&one, std::slice::from_ref(&mixed), &pre)?;
    let differ =
        fcfs.len().abs_diff(flin.len()) + fcfs.iter().zip(&flin).filter(|(a, b)| a != b).count();
    out.push(Check::within_abs(
        "flin: one flow: requests completing otherwise than under fcfs",
        differ as f64,
        0.0,
        "requests",
        0.0,
    ));

    // Wait-balancing: the wait after which a write goes before a read
    // queued now.
    let two = {
        let mut t = c.clone();
        t.flows = vec![flow("a"), flow("b")];
        t.sched.policy = SchedPolicy::Flin;
        t
    };
    let f = Flin::new(&two);
    let [cr, cw] = f.cost;
    let now = 1u64 << 40;
    let (mut lo, mut hi) = (0u64, now);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if Flin::read_first((now, cr), (now - mid, cw), 0, now) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let expected = (cw as f64 * cw as f64 / cr as f64 - cr as f64).floor() + 1.0;
    out.push(Check::within_abs(
        "flin: wait-balancing: a write's wait before it goes ahead of a new read (c_w^2/c_r - c_r)",
        hi as f64 / 1e3,
        expected / 1e3,
        "us",
        0.001,
    ));

    // ReorderForFairness by hand: flow 0 has three transactions queued (10
    // ns each, alone 10, 20, 30: each after the last); flow 1's new one
    // (alone 10). Fairness (min/max estimated slowdown) with it at place
    // 3: 1/4; 2: 1/3; 1: 1/2; 0: 1/2 — the latest best is place 1.
    let e = |flow, alone| Entry {
        flow,
        at: 0,
        cost: 10,
        alone,
        low: false,
        barrier: false,
    };
    let place = best_place(&[e(0, 10), e(0, 20), e(0, 30)], &e(1, 10), 0, 0, 0);
    out.push(Check::within_abs(
        "flin: ReorderForFairness, a case by hand: the new transaction's place",
        place as f64,
        1.0,
        "place",
        0.0,
    ));

    // Two identical read flows.
    let n = 300u64;
    let reads = |name: &str| Source::Records {
        name: name.into(),
        records: Arc::new(
            (0..n)
                .map(|i| IoRecord::new(0, Op::Read, i * 4096, 4096))
                .collect(),
        ),
    };
    let src = [reads("a"), reads("b")];
    let pre = Precondition::parse("fill:0.5:0.5+trace-reads")?;
    let mut r = Simulator::with_flows(&two, &src, &pre)?.run(&mut |_| {})?;
    let alone = crate::sim::flows::alone_mean_latencies(&two, &src, &pre, &mut |_| {
        crate::sim::Control::Continue
    })?;
    r.set_alone(&alone);
    out.push(Check::within(
        "flin: two identical flows: fairness (min/max slowdown)",
        r.fairness.unwrap_or(0.0),
        1.0,
        "ratio",
        0.02,
    ));
    out.extend(flin_stage_checks()?);
    Ok(out)
}

/// FLIN's stage 2 and stage 3's GC term, exactly. Stage 2: on a drive of
/// one die of one plane, a medium-class flow's 400 reads queued at 0 and
/// a high-class flow's 400 from 1 µs, under weighted round robin (weights
/// 4 / 2 / 1): once both are queued, the reads are served four high, two
/// medium, so any 300 served in a row hold exactly 200 of the high flow's;
/// an urgent flow's reads all go before any other class's queued beside
/// them. Stage 3: a die whose host writes since its GC queues last emptied
/// were 3 of flow a and 1 of flow b, 8 GC transactions pending: flow a's
/// write slot goes after ⌈8 × 3/4⌉ = 6 of them; then (a 4, b 1 writes, 2
/// pending) flow b's after ⌈2 × 1/5⌉ = 1.
pub fn flin_stage_checks() -> Result<Vec<Check>> {
    use crate::config::{Arbitration, FlowConfig, Priority, Queues};
    use crate::sched::flin::Flin;
    use crate::sched::Class;
    use crate::types::TxnId;
    let mut out = vec![];
    let mut c = flows_drive(1)?;
    c.geometry.dies_per_chip = 1;
    c.geometry.planes_per_die = 1;
    c.sched.policy = SchedPolicy::Flin;
    c.queues = Some(Queues {
        arbitration: Arbitration::Wrr,
        ..Queues::default()
    });
    let flow = |name: &str, priority: Priority, start_us: f64| FlowConfig {
        start_us,
        queue_depth: 400,
        priority,
        ..FlowConfig::of_workload(name)
    };
    let reads = |name: &str, first: u64, n: u64| Source::Records {
        name: name.into(),
        records: Arc::new(
            (0..n)
                .map(|i| IoRecord::new(0, Op::Read, (first + i) * 4096, 4096))
                .collect(),
        ),
    };
    // The flows of the requests in the order they completed.
    let served = |c: &Config, src: &[Source]| -> Result<Vec<u32>> {
        let pre = Precondition::parse("fill:0.5:0.5+trace-reads")?;
        let mut sim = Simulator::with_flows(c, src, &pre)?;
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = log.clone();
        sim.log_requests(Box::new(move |x| {
            sink.lock()
                .expect("unpoisoned")
                .push((x.completion_ns, x.flow.unwrap_or(u32::MAX)))
        }));
        sim.run(&mut |_| {})?;
        let mut v = std::mem::take(&mut *log.lock().expect("unpoisoned"));
        v.sort();
        Ok(v.into_iter().map(|(_, f)| f).collect())
    };
    let mut wrr = c.clone();
    wrr.flows = vec![
        flow("m", Priority::Medium, 0.0),
        flow("h", Priority::High, 1.0),
    ];
    let order = served(&wrr, &[reads("m", 0, 400), reads("h", 400, 400)])?;
    // From the 13th read of the high flow on (its first round behind).
    let start = order
        .iter()
        .enumerate()
        .filter(|(_, &f)| f == 1)
        .nth(12)
        .map_or(order.len(), |(i, _)| i);
    let window = order.get(start..start + 300).unwrap_or(&[]);
    let high = window.iter().filter(|&&f| f == 1).count();
    let medium = window.iter().filter(|&&f| f == 0).count();
    out.push(Check::within_abs(
        "flin: stage 2: of 300 reads served in a row (weights 4:2), the high class's",
        high as f64,
        200.0,
        "reads",
        0.0,
    ));
    out.push(Check::within_abs(
        "flin: stage 2: of the same 300, the medium class's",
        medium as f64,
        100.0,
        "reads",
        0.0,
    ));
    let mut urgent = c.clone();
    urgent.flows = vec![
        flow("m", Priority::Medium, 0.0),
        flow("u", Priority::Urgent, 1.0),
    ];
    let order = served(&urgent, &[reads("m", 0, 400), reads("u", 400, 100)])?;
    let first = order.iter().position(|&f| f == 1).unwrap_or(0);
    let last = order.iter().rposition(|&f| f == 1).unwrap_or(0);
    let between = order[first..=last].iter().filter(|&&f| f != 1).count()
        + (order.iter().filter(|&&f| f == 1).count() != 100) as usize;
    out.push(Check::within_abs(
        "flin: stage 2: other classes' reads served among an urgent flow's 100",
        between as f64,
        0.0,
        "reads",
        0.0,
    ));

    // Stage 3's GC share, on a constructed die (die 0 of a drive with two
    // flows): the write slot has waited long, no read slot.
    let mut two = flows_drive(2)?;
    two.sched.policy = SchedPolicy::Flin;
    two.flows = vec![
        flow("a", Priority::Medium, 0.0),
        flow("b", Priority::Medium, 0.0),
    ];
    let mut f = Flin::new(&two);
    for (i, g) in [0u32, 0, 0, 1].into_iter().enumerate() {
        f.tag(TxnId(i as u32), g);
        f.served(0, Class::Write, 0, TxnId(i as u32), 0);
    }
    let mut pending = 8u32;
    for (k, (g, name, expected)) in [(0u32, "a", 6.0), (1, "b", 1.0)].into_iter().enumerate() {
        let w = TxnId(4 + k as u32);
        f.tag(w, g);
        let mut before = 0u32;
        let now = 1u64 << 40;
        loop {
            let gc_time = pending as u64 * f.cost[1];
            let order = f.decide(0, pending, gc_time, None, Some((0, f.cost[1], g)), now);
            if order.is_some_and(|o| o[0] == Class::Gc) && pending > 0 {
                pending -= 1;
                f.served(0, Class::Gc, 0, TxnId(0), pending as usize);
                before += 1;
            } else {
                f.served(0, Class::Write, 0, w, pending as usize);
                break;
            }
        }
        out.push(Check::within_abs(
            format!("flin: stage 3: GC transactions dispatched before flow {name}'s write slot"),
            before as f64,
            expected,
            "transactions",
            0.0,
        ));
    }
    Ok(out)
}

/// The whole suite.
pub fn all() -> Result<Vec<Check>> {
    let mut v = timing_checks()?;
    v.extend(attribution_checks(300_000)?);
    v.extend(steady_state_checks(10_000)?);
    v.extend(parallel_gc_checks()?);
    v.extend(twin_victim_checks()?);
    v.extend(die_copy_checks()?);
    v.extend(typed_die_write_checks()?);
    v.extend(suspension_checks()?);
    v.extend(cache_checks()?);
    v.extend(slot_frees_checks()?);
    v.extend(pacing_checks()?);
    v.extend(bad_block_checks()?);
    v.extend(page_type_checks(20_000)?);
    v.extend(pas_checks()?);
    v.extend(md1_checks(300_000)?);
    v.extend(wa_checks()?);
    v.extend(consistency_checks(40_000)?);
    v.extend(wear_checks()?);
    v.extend(flow_checks()?);
    v.extend(partition_checks()?);
    v.extend(cache_partition_checks()?);
    v.extend(buffer_partition_checks()?);
    v.extend(flin_checks()?);
    v.extend(interface_checks()?);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_reference_values() {
        // x = exp(-(1-x)/rho): at rho = 0.8, x ≈ 0.6286 → WA ≈ 2.693.
        let wa = fifo_wa(0.8);
        let x = 1.0 - 1.0 / wa;
        assert!((x - (-(1.0 - x) / 0.8f64).exp()).abs() < 1e-12);
        assert!(wa > 2.6 && wa < 2.8, "{wa}");
    }

    #[test]
    fn md1_reference() {
        assert_eq!(md1_response(100.0, 0.5), 150.0);
        assert!((md1_response(100.0, 0.8) - 300.0).abs() < 1e-9);
    }
}
