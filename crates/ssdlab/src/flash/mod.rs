//! The physical model's timing and its command counters. The flash array
//! knows page types, array and bus times, and the rules of multi-plane
//! commands; it knows nothing of LPNs. Resource state (which die is busy, when
//! a channel frees) lives in the simulator, which executes commands with the
//! times computed here.

pub(crate) mod cache;
pub mod executor;
pub(crate) mod suspend;

use serde::Serialize;

use crate::config::{Alignment, Config};
use crate::engine::Time;

/// Array operation of a flash command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CmdKind {
    Read = 0,
    Program = 1,
    Erase = 2,
    Copyback = 3,
}

impl CmdKind {
    pub const ALL: [CmdKind; 4] = [
        CmdKind::Read,
        CmdKind::Program,
        CmdKind::Erase,
        CmdKind::Copyback,
    ];
    pub fn name(self) -> &'static str {
        match self {
            CmdKind::Read => "read",
            CmdKind::Program => "program",
            CmdKind::Erase => "erase",
            CmdKind::Copyback => "copyback",
        }
    }
}

/// Who asked for a flash operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Host = 0,
    Gc = 1,
    /// DFTL translation pages: reads of missed map entries, write-backs.
    Mapping = 2,
}

impl Origin {
    pub const ALL: [Origin; 3] = [Origin::Host, Origin::Gc, Origin::Mapping];
    pub fn name(self) -> &'static str {
        match self {
            Origin::Host => "host",
            Origin::Gc => "gc",
            Origin::Mapping => "mapping",
        }
    }
}

/// Timing of one drive, precomputed in nanoseconds.
#[derive(Clone, Debug)]
pub struct FlashTiming {
    /// Array read time per page type index.
    pub read_ns: [Time; 3],
    pub program_ns: [Time; 3],
    pub erase_ns: Time,
    /// Channel time to move one page.
    pub xfer_ns: Time,
    /// Command/address cycles per command (they occupy the channel).
    pub cmd_ns: Time,
    /// Page-type index (0 = LSB, 1 = CSB, 2 = MSB) of each page index in a block.
    pub page_type: Vec<u8>,
}

fn us_to_ns(us: f64) -> Time {
    (us * 1000.0).round() as Time
}

impl FlashTiming {
    pub fn new(cfg: &Config) -> Self {
        let per_type = |v: &[f64]| -> [Time; 3] {
            let mut out = [0; 3];
            for (i, o) in out.iter_mut().enumerate() {
                *o = us_to_ns(if v.len() == 1 {
                    v[0]
                } else {
                    v[i.min(v.len() - 1)]
                });
            }
            out
        };
        let page_type = cfg
            .page_layout()
            .iter()
            .map(|&(t, _)| t.index() as u8)
            .collect();
        let read_ns = per_type(&cfg.timing.read_us);
        let mut program_ns = per_type(&cfg.timing.program_us);
        if !cfg.flash.wordline_buffer {
            // A program of bit b first reads the wordline's pages of bits
            // below it (the data of the lower pages is not kept).
            let bits = cfg.cell.kind.bits();
            for b in 1..bits {
                program_ns[b] += read_ns[..b].iter().sum::<Time>();
            }
        }
        FlashTiming {
            read_ns,
            program_ns,
            erase_ns: us_to_ns(cfg.timing.erase_us),
            xfer_ns: (cfg.timing.bus_ns_per_byte * cfg.geometry.page_size_bytes as f64).round()
                as Time,
            cmd_ns: cfg.timing.command_ns.round() as Time,
            page_type,
        }
    }
    #[inline]
    pub fn read_time(&self, page: u32) -> Time {
        self.read_ns[self.page_type[page as usize] as usize]
    }
    #[inline]
    pub fn program_time(&self, page: u32) -> Time {
        self.program_ns[self.page_type[page as usize] as usize]
    }
}

/// The multi-plane rules of a die.
#[derive(Clone, Copy, Debug)]
pub struct PlaneRules {
    pub enabled: bool,
    pub alignment: Alignment,
    pub pairs_only: bool,
}

impl PlaneRules {
    pub fn new(cfg: &Config) -> Self {
        PlaneRules {
            enabled: cfg.flash.multiplane && cfg.geometry.planes_per_die > 1,
            alignment: cfg.flash.multiplane_alignment,
            pairs_only: cfg.flash.plane_pairs_only && cfg.geometry.planes_per_die > 2,
        }
    }
    /// May planes `a` and `b` (indices within one die) be in one command?
    #[inline]
    pub fn may_pair(&self, a: u32, b: u32) -> bool {
        self.enabled && a != b && (!self.pairs_only || a / 2 == b / 2)
    }
    /// Are two in-plane addresses aligned for a multi-plane command?
    #[inline]
    pub fn aligned(&self, block_a: u32, page_a: u32, block_b: u32, page_b: u32) -> bool {
        match self.alignment {
            Alignment::BlockAndPage => block_a == block_b && page_a == page_b,
            Alignment::Page => page_a == page_b,
        }
    }
    /// Are two blocks aligned for a multi-plane erase?
    #[inline]
    pub fn erase_aligned(&self, block_a: u32, block_b: u32) -> bool {
        match self.alignment {
            Alignment::BlockAndPage => block_a == block_b,
            Alignment::Page => true,
        }
    }
}

/// Commands counted by kind, origin and number of pages. With one register
/// per plane (the default) a command's pages are the planes it uses; with
/// multi-register planes (`flash.plane_registers`) a plane may contribute
/// several pages, and "multi-plane" below means "several pages".
#[derive(Clone, Debug)]
pub struct CmdCounters {
    planes: usize,
    /// [kind][origin][pages-1] -> commands
    counts: Vec<u64>,
}

impl CmdCounters {
    /// Counters for commands of up to `max_pages` pages (planes per die ×
    /// registers per plane).
    pub fn new(max_pages: u32) -> Self {
        let planes = max_pages as usize;
        CmdCounters {
            planes,
            counts: vec![0; 4 * Origin::ALL.len() * planes],
        }
    }
    #[inline]
    pub fn add(&mut self, kind: CmdKind, origin: Origin, planes: usize) {
        self.counts
            [(kind as usize * Origin::ALL.len() + origin as usize) * self.planes + planes - 1] += 1;
    }
    /// Commands of this kind and origin that used exactly `planes` planes.
    pub fn get(&self, kind: CmdKind, origin: Origin, planes: usize) -> u64 {
        self.counts
            [(kind as usize * Origin::ALL.len() + origin as usize) * self.planes + planes - 1]
    }
    /// Page operations (planes summed) of a kind and origin.
    pub fn pages(&self, kind: CmdKind, origin: Origin) -> u64 {
        (1..=self.planes)
            .map(|n| n as u64 * self.get(kind, origin, n))
            .sum()
    }
    /// Page operations of a kind and origin that were part of a multi-plane command.
    pub fn multiplane_pages(&self, kind: CmdKind, origin: Origin) -> u64 {
        (2..=self.planes)
            .map(|n| n as u64 * self.get(kind, origin, n))
            .sum()
    }
    pub fn max_planes(&self) -> usize {
        self.planes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CellType, PageType};

    /// PA-SSD's Fig. 5: the page IDs of each type in a TLC block of six
    /// wordlines, in the strict program order.
    #[test]
    fn wordline_layout_numbers_pages_as_fig_5() {
        let mut c = Config::preset("pa-tlc").unwrap();
        c.geometry.pages_per_block = 18;
        let layout = c.page_layout();
        let ids = |t: PageType| -> Vec<usize> { (0..18).filter(|&i| layout[i].0 == t).collect() };
        assert_eq!(ids(PageType::Lsb), [0, 1, 3, 6, 9, 12]);
        assert_eq!(ids(PageType::Csb), [2, 4, 7, 10, 13, 15]);
        assert_eq!(ids(PageType::Msb), [5, 8, 11, 14, 16, 17]);
        // Each type's pages lie on wordlines 0..5 in ID order.
        for t in [PageType::Lsb, PageType::Csb, PageType::Msb] {
            let wls: Vec<u32> = ids(t).iter().map(|&i| layout[i].1).collect();
            assert_eq!(wls, [0, 1, 2, 3, 4, 5]);
        }
        // The type sequence L L C (L C M)* C M M.
        let seq: String = layout
            .iter()
            .map(|(t, _)| match t {
                PageType::Lsb => 'L',
                PageType::Csb => 'C',
                PageType::Msb => 'M',
            })
            .collect();
        assert_eq!(seq, "LLCLCMLCMLCMLCMCMM");
    }

    /// Without the wordline buffer a CSB program reads one lower page first
    /// and an MSB program two (PA-SSD §5.1: 2 100 and 5 700 µs).
    #[test]
    fn unbuffered_wordlines_add_the_lower_page_reads() {
        let mut c = Config::preset("pa-tlc").unwrap();
        let t = FlashTiming::new(&c);
        assert_eq!(t.program_ns[..3], [500_000, 2_000_000, 5_500_000]);
        c.flash.wordline_buffer = false;
        let t = FlashTiming::new(&c);
        assert_eq!(t.program_ns[..3], [500_000, 2_100_000, 5_700_000]);
        // Page 2 is the first CSB page of the Fig. 5 layout.
        assert_eq!(t.program_time(2), 2_100_000);
    }

    #[test]
    fn mlc_timing_follows_its_own_page_types() {
        let mut c = Config::preset("small").unwrap();
        c.cell.kind = CellType::Mlc;
        c.timing.read_us = vec![50.0, 80.0];
        c.timing.program_us = vec![500.0, 2000.0];
        c.validate("t").unwrap();
        let t = FlashTiming::new(&c);
        assert_eq!(
            (t.program_time(0), t.program_time(1), t.program_time(2)),
            (500_000, 2_000_000, 500_000)
        );
        assert_eq!((t.read_time(0), t.read_time(1)), (50_000, 80_000));
        c.cell.page_pattern = vec![PageType::Lsb, PageType::Csb];
        assert!(c
            .validate("t")
            .unwrap_err()
            .to_string()
            .contains("page_pattern"));
    }

    #[test]
    fn switching_cell_type_takes_its_default_pattern() {
        let c = Config::preset("small").unwrap();
        let c = c
            .with_overrides(&[
                "cell.type=tlc".into(),
                "timing.program_us=[500.0, 2000.0, 5500.0]".into(),
            ])
            .unwrap();
        let t = FlashTiming::new(&c);
        assert_eq!(
            (t.program_time(0), t.program_time(1), t.program_time(2)),
            (500_000, 2_000_000, 5_500_000)
        );
    }
}
