//! Composition: the one place where a configuration's policy choices
//! become the policy objects the layers run — the buffer's eviction policy,
//! the write unit, the GC reclaimer, the hot-data identifier, the
//! page-type specifying scheme and the request-level allocator.
//! `Simulator::new` builds them here and hands each to its layer; a layer
//! only runs what it was given, and never asks which scheme it is part of.

use crate::buffer::{DieMultiPlane, DieRoundRobin, DieWrite, EvictionPolicy, SuperPageEviction};
use crate::config::{BlockGroups, Config, Eviction, WriteUnit};
use crate::domain::Domains;
use crate::error::{Error, Result};
use crate::ftl::twoplane::TwoPlane;
use crate::gc::fast_merge::Merges;
use crate::gc::paragc::ParaGc;
use crate::gc::Reclaimer;
use crate::host::pagetype::TypeScheme;
use crate::sched::diewrite::DieWrites;
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

/// The hot-data identifier of the hot/cold write streams (`ftl.hot_data`),
/// if any.
pub(crate) fn hot_data(cfg: &Config) -> Option<Box<dyn ssdlab_hdi::HotDataIdentifier>> {
    cfg.hot_data_identifier()
}

/// PA-SSD's page-type specifying scheme (`host.page_types`), if any.
pub(crate) fn page_types(cfg: &Config) -> Result<Option<TypeScheme>> {
    TypeScheme::parse(&cfg.host.page_types, cfg.host.queue_threshold)
        .map_err(|e| Error::config(&cfg.name, "host.page_types", e))
}

/// The request-level allocator (APM, PaRP, DVP: `ftl.plane_allocation`),
/// if any, over the drive's `domains`.
pub(crate) fn request_allocator(cfg: &Config, domains: &Domains) -> Option<TwoPlane> {
    TwoPlane::new(cfg, domains)
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
