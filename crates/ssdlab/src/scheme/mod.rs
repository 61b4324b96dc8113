//! Named schemes: the FTL designs ssdlab implements, each a composition of
//! policies expressed as configuration overrides (DESIGN §1, §6). A scheme
//! never forks the simulator; it only sets keys, so `ssdlab presets show`
//! with `--scheme` prints exactly what a scheme is.

pub(crate) mod compose;
pub mod conventions;

use crate::config::{Config, Requirement};
use crate::error::{Error, Result};

/// Every policy's requirements of the others and exclusions, each stated in
/// the policy's own file, in the order they are checked. A new policy with
/// constraints adds its function here.
const REQUIREMENTS: &[fn(&Config) -> Requirement] = &[
    crate::ftl::groups::requirements,
    crate::sched::diewrite::requirements,
    crate::sched::superpage::requirements,
    crate::ftl::mapping::dftl::requirements,
    crate::ftl::mapping::fast::requirements,
    crate::sched::diewrite::combine_requirements,
    crate::gc::paragc::requirements,
    crate::ftl::alloc::requirements,
    crate::ftl::alloc::partition_requirements,
    crate::flash::executor::requirements,
    crate::flash::cache::requirements,
    crate::ftl::parity_requirements,
    crate::ftl::lanes::requirements,
    crate::host::pagetype::requirements,
    crate::sched::pas_requirements,
    crate::sched::flin::requirements,
    crate::gc::plane::requirements,
    crate::gc::pace::requirements,
    crate::ftl::twoplane::requirements,
    crate::ftl::bad::requirements,
    crate::ftl::levelling::requirements,
];

/// Check that the configuration's policies compose: the first violated
/// requirement is a config error naming the key to change.
pub(crate) fn check_requirements(cfg: &Config, origin: &str) -> Result<()> {
    for req in REQUIREMENTS {
        if let Err((key, why)) = req(cfg) {
            return Err(Error::config(origin, key, why));
        }
    }
    Ok(())
}

impl Config {
    /// Reject impossible or inconsistent settings with the offending key:
    /// the values (`config/validate.rs`), and whether the policies they
    /// choose compose (every policy's requirements, above).
    pub fn validate(&self, origin: &str) -> Result<()> {
        self.validate_with(origin, check_requirements)
    }
}

/// A named scheme.
#[derive(Debug)]
pub struct Scheme {
    pub name: &'static str,
    pub description: &'static str,
    /// Overrides (`key=value`, as for `--set`) for a drive.
    overrides: fn(&Config) -> Vec<String>,
    /// Only for drives with MLC or TLC cells (page types to choose from).
    pub multi_bit: bool,
}

impl Scheme {
    /// The `--set` overrides this scheme applies to `cfg`.
    pub fn overrides(&self, cfg: &Config) -> Vec<String> {
        (self.overrides)(cfg)
    }
    /// `cfg` with this scheme's policies, validated.
    pub fn apply(&self, cfg: &Config) -> Result<Config> {
        self.apply_with(cfg, &[])
    }

    /// `cfg` with this scheme's policies, then the overrides `sets` (`--set`
    /// values, which win), validated once as a whole: an override may make
    /// a scheme valid on a drive it alone does not suit, and whatever it
    /// makes invalid is refused. The scheme's own overrides are computed on
    /// the drive as `sets` leave it (its geometry, say).
    pub fn apply_with(&self, cfg: &Config, sets: &[String]) -> Result<Config> {
        let drive = cfg.with_overrides_unvalidated(sets)?;
        let mut c = cfg
            .with_overrides_unvalidated(&self.overrides(&drive))?
            .with_overrides_unvalidated(sets)?;
        c.name = format!("{}+{}", cfg.name, self.name);
        let origin = if sets.is_empty() {
            format!("scheme `{}`", self.name)
        } else {
            format!(
                "scheme `{}` with --set {}",
                self.name,
                crate::workload::input::escape_controls(&sets.join(" --set "))
            )
        };
        if self.multi_bit && c.cell.kind == crate::config::CellType::Slc {
            return Err(Error::config(
                &origin,
                "cell.type",
                format!(
                    "scheme `{}` chooses page types: it needs an MLC or TLC drive (pa-tlc)",
                    self.name
                ),
            ));
        }
        c.validate(&origin)?;
        Ok(c)
    }
}

fn v(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Aligned block groups per die with die-round-robin allocation: what
/// TwinBlk and SPD share.
fn die_groups() -> Vec<String> {
    v(&[
        "ftl.block_groups=die",
        "ftl.plane_allocation=die-round-robin",
        "gc.migration=controller",
    ])
}

fn spd(c: &Config) -> Vec<String> {
    let n = c.geometry.planes_per_die;
    let mut o = die_groups();
    o.extend(v(&["ftl.write_unit=die", "buffer.eviction=die-write"]));
    o.push(format!("buffer.evict_pages={n}"));
    o
}

/// The parallel-GC paper's existing scheme (Alg. 1, §V-A1): per-plane greedy
/// GC moving pages by copyback, the odd/even copyback rule kept by mapping
/// each move to a destination page of its source's parity (Alg. 3, so that
/// every scheme it is compared with pays the same rule), the die busy for the
/// whole GC (Alg. 2 line 7), GC > read > write; one register set per plane.
fn serial_gc(_: &Config) -> Vec<String> {
    v(&[
        "ftl.block_groups=plane",
        "ftl.write_unit=page",
        "ftl.plane_allocation=static",
        "gc.migration=copyback",
        "flash.copyback_odd_even=true",
        "gc.parity_destinations=true",
        "gc.hold_die=true",
        "sched.policy=gc-first",
        "flash.plane_registers=1",
        "gc.moves_in_flight=1",
        "gc.blocks_per_gc=1",
    ])
}

/// PA-SSD (Zhang et al., TPDS 2020): relaxed program order, the pools and
/// three active blocks per plane, no buffer for wordlines not fully
/// programmed, page types from specifying scheme `types`, PAS if `pas`.
fn pa_ssd(types: &str, pas: bool) -> Vec<String> {
    let mut o = v(&[
        "ftl.block_groups=plane",
        "ftl.write_unit=page",
        "ftl.hot_data=none",
        "cell.page_layout=wordlines",
        "ftl.program_order=relaxed",
        "ftl.type_pools=true",
        "flash.wordline_buffer=false",
    ]);
    o.push(format!("host.page_types={types}"));
    o.push(format!("sched.pas={pas}"));
    o
}

/// APM, PaRP and DVP: the request-level allocator `policy`, placing host
/// requests as they arrive (no write buffer), page-level everything else.
fn two_plane(policy: &str) -> Vec<String> {
    let mut o = v(&[
        "ftl.block_groups=plane",
        "ftl.write_unit=page",
        "buffer.capacity=\"none\"",
    ]);
    o.push(format!("ftl.plane_allocation={policy}"));
    o
}

macro_rules! pa_scheme {
    ($name:literal, $types:literal, $pas:literal, $desc:literal) => {
        Scheme {
            name: $name,
            description: $desc,
            overrides: |_| pa_ssd($types, $pas),
            multi_bit: true,
        }
    };
}

/// Every scheme, comparators first.
pub const SCHEMES: &[Scheme] = &[
    Scheme {
        name: "baseline-d",
        description: "SPD paper's Baseline-D: static allocation, per-die LRU buffer, one page per eviction, dies in turn",
        overrides: |_| {
            v(&[
                "ftl.block_groups=plane",
                "ftl.write_unit=page",
                "ftl.plane_allocation=static",
                "buffer.eviction=die-round-robin",
                "buffer.evict_pages=1",
            ])
        },
        multi_bit: false,
    },
    Scheme {
        name: "baseline-p",
        description: "SPD paper's Baseline-P: as Baseline-D, an eviction takes one LRU page per plane of a die (multi-plane when aligned by chance)",
        overrides: |_| {
            v(&[
                "ftl.block_groups=plane",
                "ftl.write_unit=page",
                "ftl.plane_allocation=static",
                "buffer.eviction=die-multi-plane",
            ])
        },
        multi_bit: false,
    },
    Scheme {
        name: "twinblk",
        description: "TwinBlk (Tavakkol et al., IEEE CAL 2016): planes of a die share the active block index, writes round-robin over them, GC on twin blocks chosen greedily in the plane that needs GC",
        overrides: |c| {
            let mut o = die_groups();
            o.extend(v(&[
                "ftl.write_unit=page",
                "buffer.eviction=die-round-robin",
                "gc.twin_victim=true",
            ]));
            o.push(format!("buffer.evict_pages={}", c.geometry.planes_per_die));
            o
        },
        multi_bit: false,
    },
    Scheme {
        name: "superpage",
        description: "SuperPage: a die's aligned pages form a super page, the unit of writing; an update rewrites its whole logical super page (clean pages read first); GC on super blocks",
        overrides: |_| {
            let mut o = die_groups();
            o.extend(v(&["ftl.write_unit=super-page", "buffer.eviction=super-page"]));
            o
        },
        multi_bit: false,
    },
    Scheme {
        name: "paragc",
        description: "ParaGC (Shahidi et al., SC'16): a plane below the GC threshold (ParaGC's urgent one, 5% in its paper) starts GC, sibling planes below one point more (its early 6%) join; joined GCs align their planes' write points through the cache, then move pages multi-plane",
        overrides: |c| {
            // The drive's own threshold is the urgent one (the SPD paper runs
            // every scheme at 7%); ParaGC's early threshold is one point above.
            let (urgent, early) = crate::gc::paragc::ParaGc::thresholds(c);
            let mut o = v(&[
                "ftl.block_groups=plane",
                "ftl.write_unit=page",
                "ftl.plane_allocation=static",
                "buffer.eviction=die-multi-plane",
            ]);
            o.push(format!("gc.threshold={{percent={urgent:?}}}"));
            o.push(format!("gc.join_percent={early:?}"));
            // Its alignment of joined GCs' write points (no effect under
            // FAST: merges, not moves, into units FAST places itself).
            o.extend(v(&["ftl.align_block_index=true", "gc.join_align=true"]));
            o
        },
        multi_bit: false,
    },
    Scheme {
        name: "serial-gc",
        description: "Parallel-GC paper's existing scheme (Zhu et al., IEEE Access 2020, Alg. 1): per-plane greedy GC, one copyback at a time, parity-matched destinations, die held for the GC, GC > read > write",
        overrides: serial_gc,
        multi_bit: false,
    },
    Scheme {
        name: "ippbe",
        description: "IPPBE (Garrett et al., ISLPED'18) as the parallel-GC paper compares it: serial-gc, but a GC takes the plane's two emptiest blocks and erases both in one tBERS",
        overrides: |c| {
            let mut o = serial_gc(c);
            o.push("gc.blocks_per_gc=2".into());
            o
        },
        multi_bit: false,
    },
    Scheme {
        name: "parallel-gc",
        description: "Parallel GC (Zhu et al., IEEE Access 2020): serial-gc with four register sets per plane, four copyback workers per GC (k: --set flash.plane_registers=K --set gc.moves_in_flight=K)",
        overrides: |c| {
            let mut o = serial_gc(c);
            o.extend(v(&["flash.plane_registers=4", "gc.moves_in_flight=4"]));
            o
        },
        multi_bit: false,
    },
    Scheme {
        name: "pa-baseline",
        description: "PA-SSD paper's conventional TLC SSD: strict program order of the wordlines (Fig. 5), one active block per plane, type-blind allocation, lower pages of wordlines buffered",
        overrides: |_| {
            v(&[
                "cell.page_layout=wordlines",
                "ftl.program_order=strict",
                "ftl.type_pools=false",
                "flash.wordline_buffer=true",
                "host.page_types=none",
                "sched.pas=false",
            ])
        },
        multi_bit: true,
    },
    pa_scheme!("pa-su", "su", false, "PA-SSD with sU: each write request a uniformly random page type"),
    pa_scheme!("pa-slf", "slf", false, "PA-SSD with sLF: LSB pages first"),
    pa_scheme!("pa-ssb-su", "ssb+su", false, "PA-SSD with sSB+sU: one-page requests LSB, others uniform"),
    pa_scheme!("pa-ssb-sub", "ssb+sub", false, "PA-SSD with sSB+sUB: one-page requests LSB, others by the free pages of each type"),
    pa_scheme!("pa-sqd-su", "sqd+su", false, "PA-SSD with sQD+sU: LSB while more than 10 requests are outstanding, else uniform"),
    pa_scheme!("pa-sqd-sub", "sqd+sub", false, "PA-SSD with sQD+sUB: LSB while more than 10 requests are outstanding, else by the free pages of each type"),
    pa_scheme!("pa-su-pas", "su", true, "PA-SSD with sU and PAS scheduling"),
    pa_scheme!("pa-ssb-su-pas", "ssb+su", true, "PA-SSD with sSB+sU and PAS scheduling"),
    pa_scheme!("pa-ssb-sub-pas", "ssb+sub", true, "PA-SSD with sSB+sUB and PAS scheduling"),
    pa_scheme!("pa-sqd-su-pas", "sqd+su", true, "PA-SSD with sQD+sU and PAS scheduling"),
    pa_scheme!("pa-sqd-sub-pas", "sqd+sub", true, "PA-SSD with sQD+sUB and PAS scheduling"),
    Scheme {
        name: "parp",
        description: "PaRP (Park et al., IEEE CAL 2010, as DVPFTL describes it): requests to dies in turn; two successive requests pair on a die's two planes, the shorter padded with dummy pages; no write buffer",
        overrides: |_| two_plane("parp"),
        multi_bit: false,
    },
    Scheme {
        name: "apm",
        description: "DVPFTL's adaptive parallelism management (Luo et al., IEEE Access 2018): each request split over two planes of a die chosen by valid pages or erase counts, dummy pages within the alpha rule; no write buffer",
        overrides: |_| two_plane("apm"),
        multi_bit: false,
    },
    Scheme {
        name: "dvpftl",
        description: "DVPFTL (Luo et al., IEEE Access 2018): two-layer map (virtual blocks of one block per chip of a virtual flash chip, two adjacent ways over all channels; log-based hybrid LBA map with merges); host pages striped over the VFC's chips, each chip's share on two planes of a die by APM; DL-MBF_s hot/cold clustering; no write buffer",
        overrides: |_| {
            let mut o = two_plane("dvp");
            o.push("ftl.mapping=vfc".into());
            // The prototype's "DVP+DL-MBF_s+APM": DL-MBF_s clusters hot
            // and cold host pages into their own log blocks.
            o.push("ftl.hot_data=dl-mbf-s".into());
            o
        },
        multi_bit: false,
    },
    Scheme {
        name: "spd",
        description: "SPD (Gao et al., TPDS 2020): Die-Write, Die-Read and Die-GC with aligned write points on all planes of a die",
        overrides: spd,
        multi_bit: false,
    },
    Scheme {
        name: "spd-plus",
        description: "SPD+: SPD, and pages evicted to a die under Die-GC join the GC's Die-Writes",
        overrides: |c| {
            let mut o = spd(c);
            o.push("gc.combine_host_writes=true".into());
            o
        },
        multi_bit: false,
    },
];

/// A scheme by name.
pub fn by_name(name: &str) -> Result<&'static Scheme> {
    named(SCHEMES, name, "scheme", "known schemes", |s| s.name)
}

/// The entry of a registry named `name`, or an error naming the known ones.
pub(crate) fn named<'a, T>(
    items: &'a [T],
    name: &str,
    what: &str,
    known: &str,
    name_of: fn(&T) -> &str,
) -> Result<&'a T> {
    items.iter().find(|i| name_of(i) == name).ok_or_else(|| {
        Error::Invalid(format!(
            "unknown {what} `{name}`{}; {known}: {}",
            crate::error::did_you_mean(name, items.iter().map(name_of)),
            items.iter().map(name_of).collect::<Vec<_>>().join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scheme_applies_to_the_spd_drive_in_both_plane_counts() {
        for planes in [2, 4] {
            let base = Config::preset("spd-512g")
                .unwrap()
                .with_overrides(&[format!("geometry.planes_per_die={planes}")])
                .unwrap();
            for s in SCHEMES {
                match s.apply(&base) {
                    Ok(c) => assert!(c.name.ends_with(s.name)),
                    // The page-type schemes refuse an SLC drive, naming
                    // the drive to use.
                    Err(e) => {
                        assert!(s.multi_bit, "{}: {e}", s.name);
                        assert!(e.to_string().contains("pa-tlc"), "{e}");
                    }
                }
            }
        }
        let tlc = Config::preset("pa-tlc").unwrap();
        for s in SCHEMES.iter().filter(|s| s.multi_bit) {
            s.apply(&tlc).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        }
        assert!(by_name("nope")
            .unwrap_err()
            .to_string()
            .contains("spd-plus"));
    }
}
