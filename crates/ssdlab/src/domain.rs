//! How the drive's planes are grouped: the order dies are visited in turn,
//! DVPFTL's virtual flash chips, and the domain of a GC unit — a plane, a
//! die (aligned block groups), or a virtual flash chip (DVPFTL's two-layer
//! map). [`Domains`] is the one statement of a GC unit's shape: GC, the
//! FTL, FAST's hybrid map and the request-level allocators all read it,
//! and the virtual flash chips are laid out once, by [`Domains::new`].

use crate::addr::{DieId, PlaneId};
use crate::config::{BlockGroups, Config, DieOrder, Mapping, PlaneAllocation};

/// The dies of a drive in the order `order` visits them in turn: with
/// `channel-first`, die index `c·W·D + w·D + d` (channel c, chip w of the
/// channel, die d of the chip) is visited at turn `d·C·W + w·C + c`.
pub fn die_turns(
    channels: u32,
    chips_per_channel: u32,
    dies_per_chip: u32,
    order: DieOrder,
) -> Vec<DieId> {
    let all = channels * chips_per_channel * dies_per_chip;
    match order {
        DieOrder::Index => DieId::all(all).collect(),
        DieOrder::ChannelFirst => (0..all)
            .map(|k| {
                let (c, w, d) = (
                    k % channels,
                    k / channels % chips_per_channel,
                    k / (channels * chips_per_channel),
                );
                DieId((c * chips_per_channel + w) * dies_per_chip + d)
            })
            .collect(),
    }
}

/// DVP's virtual flash chips (DVPFTL §III-A): VFC j is chip (way) 2j and
/// 2j + 1 of every channel; its chips in stripe order, channel first
/// (Fig. 5: consecutive sector groups on consecutive channels), then the
/// second way. With one way per channel, one VFC of the channels' chips.
/// Chip index `channel * ways + way`.
pub fn vfc_chips(channels: u32, ways: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity((channels * ways) as usize);
    for j in 0..ways.div_ceil(2) {
        for w in 2 * j..(2 * j + 2).min(ways) {
            for c in 0..channels {
                out.push(c * ways + w);
            }
        }
    }
    out
}

/// Chips per virtual flash chip, and virtual flash chips, of `cfg`'s drive.
pub fn vfc_shape(cfg: &Config) -> (u32, u32) {
    let g = &cfg.geometry;
    let vfcs = g.chips_per_channel.div_ceil(2);
    (g.channels * g.chips_per_channel / vfcs, vfcs)
}

/// The virtual flash chips of a drive (`vfc_chips`): which chips form
/// each, in stripe order, and where each chip stands.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct VfcLayout {
    /// Chips per VFC, and VFCs.
    pub chips: u32,
    pub vfcs: u32,
    /// Planes of a chip.
    pub planes_per_chip: u32,
    /// Per chip (`channel * ways + way`): its VFC and its index in the
    /// VFC's stripe order.
    slot_of_chip: Vec<(u32, u32)>,
    /// Per VFC: its chips in stripe order.
    order: Vec<Vec<u32>>,
}

impl VfcLayout {
    fn new(cfg: &Config) -> VfcLayout {
        let g = &cfg.geometry;
        let chips_all = g.channels * g.chips_per_channel;
        let flat = vfc_chips(g.channels, g.chips_per_channel);
        let (chips, vfcs) = vfc_shape(cfg);
        let order: Vec<Vec<u32>> = flat.chunks(chips as usize).map(|c| c.to_vec()).collect();
        let mut slot_of_chip = vec![(0, 0); chips_all as usize];
        for (v, c) in order.iter().enumerate() {
            for (k, &chip) in c.iter().enumerate() {
                slot_of_chip[chip as usize] = (v as u32, k as u32);
            }
        }
        VfcLayout {
            chips,
            vfcs,
            planes_per_chip: g.dies_per_chip * g.planes_per_die,
            slot_of_chip,
            order,
        }
    }

    /// VFC of a plane.
    #[inline]
    pub fn vfc_of_plane(&self, plane: u32) -> u32 {
        self.slot_of_chip[(plane / self.planes_per_chip) as usize].0
    }

    /// VFC of a chip, and the chip's index in the VFC's stripe order.
    #[inline]
    pub fn slot_of_chip(&self, chip: u32) -> (u32, u32) {
        self.slot_of_chip[chip as usize]
    }

    /// The chip at `slot` of VFC `vfc`'s stripe order.
    #[inline]
    pub fn chip(&self, vfc: u32, slot: u32) -> u32 {
        self.order[vfc as usize][slot as usize]
    }

    /// Planes of the chip at `slot` of VFC `vfc`.
    pub fn chip_planes(&self, vfc: u32, slot: u32) -> std::ops::Range<u32> {
        let chip = self.chip(vfc, slot);
        chip * self.planes_per_chip..(chip + 1) * self.planes_per_chip
    }

    /// Planes of a VFC.
    pub fn planes(&self, vfc: u32) -> impl Iterator<Item = u32> + '_ {
        (0..self.chips).flat_map(move |k| self.chip_planes(vfc, k))
    }

    /// Planes of a VFC: its chips times their planes.
    pub fn planes_per_vfc(&self) -> u32 {
        self.chips * self.planes_per_chip
    }
}

/// What a GC unit (and a hybrid map's domain) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DomainKind {
    /// A plane: per-plane blocks and GC.
    Plane,
    /// A die: aligned block groups (`ftl.block_groups = "die"`), whose
    /// blocks of one index on every plane are opened, collected and erased
    /// together.
    Die,
    /// A virtual flash chip (`ftl.mapping = "vfc"`): DVPFTL's merges span
    /// its chips.
    Vfc,
}

/// The GC units of a drive: their kind, the unit of each plane, and each
/// unit's dies. A unit is an index (into `Gc::jobs`): a plane, a die or a
/// virtual flash chip.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Domains {
    kind: DomainKind,
    ppd: u32,
    /// The virtual flash chips, where the map or the allocator uses them
    /// (`ftl.mapping = "vfc"`, `ftl.plane_allocation = "dvp"`).
    vfc: Option<VfcLayout>,
    /// `DomainKind::Vfc`: each plane's unit, and each unit's dies.
    vfc_of_plane: Vec<u32>,
    vfc_dies: Vec<Vec<DieId>>,
}

impl Domains {
    /// The domains of `cfg`'s drive; the one construction of its virtual
    /// flash chips.
    pub fn new(cfg: &Config) -> Domains {
        let ppd = cfg.geometry.planes_per_die;
        let kind = if cfg.ftl.mapping == Mapping::Vfc {
            DomainKind::Vfc
        } else if cfg.ftl.block_groups == BlockGroups::Die {
            DomainKind::Die
        } else {
            DomainKind::Plane
        };
        let vfc = (kind == DomainKind::Vfc || cfg.ftl.plane_allocation == PlaneAllocation::Dvp)
            .then(|| VfcLayout::new(cfg));
        let (vfc_of_plane, vfc_dies) = match (&vfc, kind) {
            (Some(v), DomainKind::Vfc) => (
                (0..cfg.total_planes()).map(|p| v.vfc_of_plane(p)).collect(),
                (0..v.vfcs)
                    .map(|j| {
                        let mut d: Vec<DieId> = v.planes(j).map(|p| DieId(p / ppd)).collect();
                        d.dedup();
                        d
                    })
                    .collect(),
            ),
            _ => (Vec::new(), Vec::new()),
        };
        Domains {
            kind,
            ppd,
            vfc,
            vfc_of_plane,
            vfc_dies,
        }
    }

    #[inline]
    pub fn kind(&self) -> DomainKind {
        self.kind
    }

    /// Are GC units dies of aligned block groups?
    #[inline]
    pub fn is_die(&self) -> bool {
        self.kind == DomainKind::Die
    }

    /// Are GC units virtual flash chips?
    #[inline]
    pub fn is_vfc(&self) -> bool {
        self.kind == DomainKind::Vfc
    }

    /// The virtual flash chips, if the map or the allocator uses them.
    #[inline]
    pub fn vfc(&self) -> Option<&VfcLayout> {
        self.vfc.as_ref()
    }

    /// The GC unit of a plane: the plane, its die, or its VFC.
    #[inline]
    pub fn of_plane(&self, plane: PlaneId) -> usize {
        match self.kind {
            DomainKind::Plane => plane.index(),
            DomainKind::Die => (plane.0 / self.ppd) as usize,
            DomainKind::Vfc => self.vfc_of_plane[plane.index()] as usize,
        }
    }

    /// Blocks of one plane's index a unit's victim spans: a die's planes
    /// (an aligned group), else one.
    #[inline]
    pub fn planes_per_victim(&self) -> u32 {
        if self.kind == DomainKind::Die {
            self.ppd
        } else {
            1
        }
    }

    /// The die of a plane or die unit `u` (a VFC spans several: `dies`).
    #[inline]
    pub fn die_of(&self, u: usize) -> DieId {
        DieId(match self.kind {
            DomainKind::Die => u as u32,
            DomainKind::Plane | DomainKind::Vfc => u as u32 / self.ppd,
        })
    }

    /// The dies unit `u`'s collection keeps busy (GC-active clock): its
    /// die, or a virtual flash chip's.
    pub fn dies(&self, u: usize) -> Vec<DieId> {
        match self.kind {
            DomainKind::Vfc => self.vfc_dies[u].clone(),
            DomainKind::Plane | DomainKind::Die => vec![self.die_of(u)],
        }
    }

    /// The planes to ask whether unit `u` needs collecting again: its
    /// plane, or its die's first plane (a die unit asks all its planes),
    /// or every plane of a virtual flash chip.
    pub fn trigger_planes(&self, u: usize) -> Vec<PlaneId> {
        match self.kind {
            DomainKind::Vfc => self.vfc_dies[u]
                .iter()
                .flat_map(|d| d.planes(self.ppd))
                .collect(),
            DomainKind::Die => vec![PlaneId(u as u32 * self.ppd)],
            DomainKind::Plane => vec![PlaneId(u as u32)],
        }
    }

    /// The planes of unit `u`.
    pub fn planes(&self, u: usize) -> Vec<PlaneId> {
        match self.kind {
            DomainKind::Plane => vec![PlaneId(u as u32)],
            DomainKind::Die => DieId(u as u32).planes(self.ppd).collect(),
            DomainKind::Vfc => self.trigger_planes(u),
        }
    }

    /// What a unit is called in messages.
    pub fn name(&self) -> &'static str {
        match self.kind {
            DomainKind::Plane => "plane",
            DomainKind::Die => "die",
            DomainKind::Vfc => "virtual flash chip",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §III-A: VFC j = PFC(i, 2j) ∪ PFC(i, 2j + 1) over all channels i,
    /// striped channel first (Fig. 5).
    #[test]
    fn virtual_flash_chips_pair_adjacent_ways() {
        // 4 channels x 2 ways (Fig. 5): one VFC of 8 chips; chip c*2+w.
        assert_eq!(vfc_chips(4, 2), [0, 2, 4, 6, 1, 3, 5, 7]);
        // 2 channels x 4 ways: VFC 0 = ways 0-1, VFC 1 = ways 2-3.
        assert_eq!(vfc_chips(2, 4), [0, 4, 1, 5, 2, 6, 3, 7]);
        // One way: the channels' chips.
        assert_eq!(vfc_chips(8, 1), (0..8).collect::<Vec<_>>());
    }

    /// A unit's planes are the planes whose unit it is, for every kind.
    #[test]
    fn units_and_their_planes_agree() {
        for kind in [DomainKind::Plane, DomainKind::Die, DomainKind::Vfc] {
            let mut c = Config::preset("small").unwrap();
            c.geometry.chips_per_channel = 4;
            match kind {
                DomainKind::Plane => {}
                DomainKind::Die => c.ftl.block_groups = BlockGroups::Die,
                DomainKind::Vfc => c.ftl.mapping = Mapping::Vfc,
            }
            let d = Domains::new(&c);
            for p in PlaneId::all(c.total_planes()) {
                let u = d.of_plane(p);
                assert_eq!(d.kind(), kind);
                assert!(d.planes(u).contains(&p), "{kind:?}: plane {p}");
                assert!(d.dies(u).contains(&p.die(c.geometry.planes_per_die)));
            }
        }
    }
}
