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

/// Cheap address arithmetic for one geometry. All indices are global
/// (plane index over the whole drive, block index within its plane).
#[derive(Clone, Copy, Debug)]
pub struct AddrMap {
    pub pages_per_block: u32,
    pub blocks_per_plane: u32,
    pub pages_per_plane: u32,
    pub planes_per_die: u32,
    pub dies_per_chip: u32,
    pub chips_per_channel: u32,
}

impl AddrMap {
    #[inline]
    pub fn plane_of(&self, ppn: Ppn) -> u32 {
        ppn / self.pages_per_plane
    }
    /// Block index within its plane.
    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        (ppn % self.pages_per_plane) / self.pages_per_block
    }
    /// Page index within its block.
    #[inline]
    pub fn page_of(&self, ppn: Ppn) -> u32 {
        ppn % self.pages_per_block
    }
    /// Global block id (plane * blocks_per_plane + block).
    #[inline]
    pub fn gblock_of(&self, ppn: Ppn) -> u32 {
        ppn / self.pages_per_block
    }
    #[inline]
    pub fn ppn(&self, plane: u32, block: u32, page: u32) -> Ppn {
        plane * self.pages_per_plane + block * self.pages_per_block + page
    }
    #[inline]
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        plane / self.planes_per_die
    }
    #[inline]
    pub fn chip_of_die(&self, die: u32) -> u32 {
        die / self.dies_per_chip
    }
    #[inline]
    pub fn channel_of_chip(&self, chip: u32) -> u32 {
        chip / self.chips_per_channel
    }
}
