//! Composition: the one place where a configuration's policy choices
//! become the policy objects the layers run — the buffer's eviction policy,
//! the write unit, and the GC reclaimer. Each layer then only runs what it
//! was given; no layer asks which scheme it is part of.

use crate::buffer::{DieMultiPlane, DieRoundRobin, DieWrite, EvictionPolicy};
use crate::config::{BlockGroups, Config, Eviction, WriteUnit};
use crate::gc::fast_merge::Merges;
use crate::gc::paragc::ParaGc;
use crate::gc::Reclaimer;
use crate::sched::diewrite::DieWrites;
use crate::sched::superpage::SuperPageEviction;
use crate::sched::unit::Unit;

/// The buffer's eviction policy (`buffer.eviction`).
pub(crate) fn eviction(cfg: &Config) -> Box<dyn EvictionPolicy> {
    let n = cfg.geometry.planes_per_die;
    match cfg.buffer.eviction {
        Eviction::DieRoundRobin => Box::new(DieRoundRobin::new(cfg.buffer.evict_pages)),
        Eviction::DieMultiPlane => Box::new(DieMultiPlane::new(n)),
        Eviction::SuperPage => Box::new(SuperPageEviction::new(n)),
        Eviction::DieWrite => Box::new(DieWrite::new(cfg.buffer.evict_pages, n)),
    }
}

/// The write unit (`ftl.write_unit`, with SPD+'s `gc.combine_host_writes`).
pub(crate) fn write_unit(cfg: &Config) -> Unit {
    let die_writes = || Box::new(DieWrites::new(cfg, cfg.gc.combine_host_writes));
    match cfg.ftl.write_unit {
        WriteUnit::Page => Unit::Page,
        WriteUnit::Die => Unit::Die(die_writes()),
        WriteUnit::SuperPage => Unit::SuperPage(die_writes(), Box::default()),
    }
}

/// The GC reclaimer: FAST's merges under `ftl.mapping = "fast"`; else
/// ParaGC when `gc.join_percent` is set; else the die-group GC with aligned
/// block groups, or the per-plane one.
pub(crate) fn reclaimer(cfg: &Config) -> Reclaimer {
    if cfg.ftl.mapping.hybrid() {
        Reclaimer::Merge(Box::new(Merges::new(cfg)))
    } else if let Some(p) = ParaGc::from_config(cfg) {
        Reclaimer::Para(Box::new(p))
    } else if cfg.ftl.block_groups == BlockGroups::Die {
        Reclaimer::Group
    } else {
        Reclaimer::Plane
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_registered_scheme_composes_its_policies() {
        let base = Config::preset("small").unwrap();
        let compose = |name: &str| {
            let c = crate::scheme::by_name(name).unwrap().apply(&base).unwrap();
            (write_unit(&c), reclaimer(&c))
        };
        assert!(matches!(
            compose("baseline-d"),
            (Unit::Page, Reclaimer::Plane)
        ));
        assert!(matches!(compose("twinblk"), (Unit::Page, Reclaimer::Group)));
        assert!(matches!(compose("spd"), (Unit::Die(_), Reclaimer::Group)));
        assert!(matches!(compose("spd-plus"), (Unit::Die(d), Reclaimer::Group) if d.combine));
        assert!(matches!(
            compose("superpage"),
            (Unit::SuperPage(..), Reclaimer::Group)
        ));
        assert!(matches!(
            compose("paragc"),
            (Unit::Page, Reclaimer::Para(_))
        ));
        let fast = base.with_overrides(&["ftl.mapping=fast".into()]).unwrap();
        assert!(matches!(reclaimer(&fast), Reclaimer::Merge(_)));
    }
}
