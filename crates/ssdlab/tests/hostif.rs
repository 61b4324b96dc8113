//! The host interface (`[interface]`): off, nothing moves; on, every
//! request pays its link and controller time and no request is lost; a
//! half-duplex link serialises what a full-duplex one overlaps. The
//! closed-form checks of single requests are in the validation suite
//! (`validate::interface_checks`).

use std::sync::Arc;

use ssdlab::config::{BufferCapacity, Controller, Dram, Interface, Link};
use ssdlab::workload::{IoRecord, Op, Source};
use ssdlab::{Config, Precondition, Simulator};

mod common;

fn mixed(n: u64) -> Source {
    // Reads and writes of 1–4 pages, 20 µs apart, over 400 pages.
    let recs = (0..n)
        .map(|i| {
            let op = if i % 3 == 0 { Op::Read } else { Op::Write };
            IoRecord::new(i * 20_000, op, (i * 37 % 400) * 4096, (1 + i % 4) * 4096)
        })
        .collect();
    Source::Records {
        name: "mixed".into(),
        records: Arc::new(recs),
    }
}

fn drive() -> Config {
    let mut c = common::tiny();
    c.buffer.capacity = BufferCapacity::Pages(64);
    c
}

fn pcie(c: &Config) -> Config {
    let mut c = c.clone();
    c.interface = Some(Interface {
        link: Some(Link::Pcie {
            generation: 2,
            lanes: 1,
            max_payload: 128,
        }),
        controller: Some(Controller {
            dram: Some(Dram::default()),
            firmware_ns_per_command: 3000,
            firmware_ns_per_page: 500,
            ..Controller::default()
        }),
    });
    c
}

#[test]
fn off_adds_no_section_and_on_adds_time_to_every_request() {
    let src = mixed(3000);
    let (off, _) = common::run_checked(&drive(), &src, "trace-reads");
    assert!(off.interface.is_none());
    let on_cfg = pcie(&drive());
    let sim = Simulator::new(&on_cfg, &src, &Precondition::parse("trace-reads").unwrap()).unwrap();
    let (on, done) = common::run_logged(sim);
    assert_eq!(on.requests, off.requests);
    let i = on.interface.as_ref().expect("interface section");
    assert_eq!(i.commands, 3000);
    // Every request waits at least its firmware time plus a command's
    // transfer before its pages start.
    assert!(i.command_us_mean >= 3.5, "{i:?}");
    for d in &done {
        assert!(d.completion_ns - d.arrival_ns >= 3500, "{d:?}");
    }
    assert!(on.read.latency_us.mean > off.read.latency_us.mean);
    assert!(on.write.latency_us.mean > off.write.latency_us.mean);
    let link = i.link.as_ref().unwrap();
    assert_eq!(link.kind, "pcie");
    // Writes carry their data down, reads theirs up.
    assert!(link.wire_bytes[0] > off.write.bytes);
    assert!(link.wire_bytes[1] > off.read.bytes);
    let dram = i.dram.as_ref().unwrap();
    assert!(dram.accesses > 0 && dram.busy_us > 0.0 && dram.utilisation < 1.0);
}

#[test]
fn half_duplex_serialises_what_full_duplex_overlaps() {
    // Reads and writes at once: on SATA their data share one direction's
    // time, so the link waits more than PCIe 1.0 x1's at a similar rate.
    let src = mixed(2000);
    let mut sata = drive();
    sata.interface = Some(Interface {
        link: Some(Link::Sata),
        controller: None,
    });
    let (r, _) = common::run_checked(&sata, &src, "trace-reads");
    let l = r.interface.unwrap().link.unwrap();
    assert_eq!(l.kind, "sata");
    assert!(l.wait_us > 0.0);
    // Half duplex: the two directions' busy time never exceeds the span.
    assert!(l.utilisation[0] + l.utilisation[1] <= 1.0 + 1e-9, "{l:?}");
}

#[test]
fn the_same_seed_gives_the_same_report() {
    let src = mixed(1500);
    let c = pcie(&drive());
    let a = common::run_checked(&c, &src, "trace-reads").0;
    let b = common::run_checked(&c, &src, "trace-reads").0;
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
}
