//! Address types. The one place that fixes the width of logical and physical
//! page numbers.
//!
//! Physical pages are numbered plane-major: `ppn = plane * pages_per_plane +
//! block * pages_per_block + page`, and planes are numbered
//! `((channel * chips + chip) * dies + die) * planes + plane`, so the die of a
//! plane is `plane / planes_per_die` and the chip of a die is `die / dies_per_chip`.

/// Logical page number.
pub type Lpn = u32;
/// Physical page number (packed physical address, see module docs).
pub type Ppn = u32;
/// Marker for "no page" in maps.
pub const INVALID: u32 = u32::MAX;

/// An id that is an index (into a drive-wide or slab vector): the type,
/// `index()`, `Display`, and indexing of any `Vec` by it — so that the ids of
/// planes, dies, blocks, transactions and requests cannot be mixed up.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        #[repr(transparent)]
        pub struct $name(pub u32);

        impl $name {
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl<T> std::ops::Index<$name> for Vec<T> {
            type Output = T;
            #[inline]
            fn index(&self, i: $name) -> &T {
                &self[i.0 as usize]
            }
        }

        impl<T> std::ops::IndexMut<$name> for Vec<T> {
            #[inline]
            fn index_mut(&mut self, i: $name) -> &mut T {
                &mut self[i.0 as usize]
            }
        }
    };
}
pub(crate) use id_type;

id_type! {
    /// A block, numbered over the whole drive (`plane * blocks_per_plane +
    /// index`; the index within its plane is `block_of` of its pages).
    BlockId
}

impl BlockId {
    /// The plane the block belongs to.
    #[inline]
    pub fn plane(self, blocks_per_plane: u32) -> PlaneId {
        PlaneId(self.0 / blocks_per_plane)
    }
    /// The block's first page.
    #[inline]
    pub fn first_page(self, pages_per_block: u32) -> Ppn {
        self.0 * pages_per_block
    }
}

id_type! {
    /// A plane, numbered over the whole drive (`die * planes_per_die + i`); its
    /// blocks are `plane * blocks_per_plane ..`.
    PlaneId
}

impl PlaneId {
    /// No plane (one not chosen yet).
    pub const NONE: PlaneId = PlaneId(INVALID);
    /// The die the plane belongs to.
    #[inline]
    pub fn die(self, planes_per_die: u32) -> DieId {
        DieId(self.0 / planes_per_die)
    }
    /// The plane's index within its die.
    #[inline]
    pub fn in_die(self, planes_per_die: u32) -> u32 {
        self.0 % planes_per_die
    }
    /// Every plane of a drive of `planes` planes.
    pub fn all(planes: u32) -> impl Iterator<Item = PlaneId> {
        (0..planes).map(PlaneId)
    }
}

id_type! {
    /// A die, numbered over the whole drive (`(channel * chips + chip) * dies +
    /// die`); its planes are `die * planes_per_die ..` (a bare `u32` beside
    /// planes, GC units and channels would not say which it is).
    DieId
}

impl DieId {
    /// The first plane of the die.
    #[inline]
    pub fn first_plane(self, planes_per_die: u32) -> PlaneId {
        PlaneId(self.0 * planes_per_die)
    }
    /// Plane `i` of the die.
    #[inline]
    pub fn plane(self, i: u32, planes_per_die: u32) -> PlaneId {
        PlaneId(self.0 * planes_per_die + i)
    }
    /// The planes of the die.
    #[inline]
    pub fn planes(self, planes_per_die: u32) -> impl Iterator<Item = PlaneId> + Clone {
        (self.0 * planes_per_die..(self.0 + 1) * planes_per_die).map(PlaneId)
    }
    /// Every die of a drive of `dies` dies.
    pub fn all(dies: u32) -> impl Iterator<Item = DieId> {
        (0..dies).map(DieId)
    }
}

/// Division by a number fixed for the run (a geometry figure): a shift and
/// a mask when it is a power of two, as in every preset, else the hardware
/// division (a division is tens of cycles, and address arithmetic does
/// several per page operation).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Divisor {
    d: u32,
    /// log2(d) if d is a power of two, else `NOT_POW2`.
    shift: u32,
}

impl Divisor {
    const NOT_POW2: u32 = u32::MAX;

    pub fn new(d: u32) -> Divisor {
        assert!(d > 0, "division by zero");
        Divisor {
            d,
            shift: if d.is_power_of_two() {
                d.trailing_zeros()
            } else {
                Self::NOT_POW2
            },
        }
    }
    #[inline]
    pub fn get(self) -> u32 {
        self.d
    }
    #[inline]
    pub fn quotient(self, x: u32) -> u32 {
        if self.shift != Self::NOT_POW2 {
            x >> self.shift
        } else {
            x / self.d
        }
    }
    #[inline]
    pub fn remainder(self, x: u32) -> u32 {
        if self.shift != Self::NOT_POW2 {
            x & (self.d - 1)
        } else {
            x % self.d
        }
    }
}

/// Cheap address arithmetic for one geometry. All indices are global
/// (plane index over the whole drive, block index within its plane).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct AddrMap {
    pub pages_per_block: u32,
    pub blocks_per_plane: u32,
    pub pages_per_plane: u32,
    pub planes_per_die: u32,
    pub dies_per_chip: u32,
    pub chips_per_channel: u32,
    ppb: Divisor,
    bpp: Divisor,
    ppp: Divisor,
    ppd: Divisor,
    dpc: Divisor,
    cpc: Divisor,
}

impl AddrMap {
    pub fn new(
        pages_per_block: u32,
        blocks_per_plane: u32,
        planes_per_die: u32,
        dies_per_chip: u32,
        chips_per_channel: u32,
    ) -> AddrMap {
        let pages_per_plane = pages_per_block * blocks_per_plane;
        AddrMap {
            pages_per_block,
            blocks_per_plane,
            pages_per_plane,
            planes_per_die,
            dies_per_chip,
            chips_per_channel,
            ppb: Divisor::new(pages_per_block),
            bpp: Divisor::new(blocks_per_plane),
            ppp: Divisor::new(pages_per_plane),
            ppd: Divisor::new(planes_per_die),
            dpc: Divisor::new(dies_per_chip),
            cpc: Divisor::new(chips_per_channel),
        }
    }
    #[inline]
    pub fn plane_of(&self, ppn: Ppn) -> PlaneId {
        PlaneId(self.ppp.quotient(ppn))
    }
    /// Block index within its plane.
    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        self.ppb.quotient(self.ppp.remainder(ppn))
    }
    /// Page index within its block.
    #[inline]
    pub fn page_of(&self, ppn: Ppn) -> u32 {
        self.ppb.remainder(ppn)
    }
    /// Global block id (plane * blocks_per_plane + block).
    #[inline]
    pub fn gblock_of(&self, ppn: Ppn) -> BlockId {
        BlockId(self.ppb.quotient(ppn))
    }
    /// A global block id's index within its plane.
    #[inline]
    pub fn block_index(&self, block: BlockId) -> u32 {
        self.bpp.remainder(block.0)
    }
    /// The plane of a global block id.
    #[inline]
    pub fn plane_of_block(&self, block: BlockId) -> PlaneId {
        PlaneId(self.bpp.quotient(block.0))
    }
    #[inline]
    pub fn ppn(&self, plane: PlaneId, block: u32, page: u32) -> Ppn {
        plane.0 * self.pages_per_plane + block * self.pages_per_block + page
    }
    #[inline]
    pub fn die_of_plane(&self, plane: PlaneId) -> DieId {
        DieId(self.ppd.quotient(plane.0))
    }
    #[inline]
    pub fn chip_of_die(&self, die: DieId) -> u32 {
        self.dpc.quotient(die.0)
    }
    #[inline]
    pub fn channel_of_chip(&self, chip: u32) -> u32 {
        self.cpc.quotient(chip)
    }
}
