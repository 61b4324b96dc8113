//! Bad blocks (`flash.bad_blocks`): factory bad blocks, grown bad blocks
//! and the spare blocks that replace them. Absent: every block is good for
//! ever (the model without bad blocks).
//!
//! The defaults and their sources are in docs/fidelity.md ("Bad blocks").

use super::*;

/// The share of a part's blocks its datasheet allows to be invalid over its
/// life, factory and grown together: 80 of 4096 (the "valid blocks" table of
/// Numonyx's NAND04GW3B2B 4 Gbit SLC datasheet gives at least 4016 valid
/// blocks of 4096). The default spares: that share of a plane's blocks,
/// rounded up, so that a plane outlasts the bad blocks its parts may have.
pub const DATASHEET_INVALID_FRACTION: f64 = 80.0 / 4096.0;

/// `flash.bad_blocks` (module documentation).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BadBlocks {
    /// Share of each plane's blocks bad when the drive is built: exactly
    /// round(fraction × blocks_per_plane) per plane, chosen at random
    /// (seeded, a stream of its own). Never allocated. Default 0: the
    /// datasheets bound factory and grown bad blocks together only.
    pub factory_fraction: f64,
    /// A block retires at the erase that brings its erase count to
    /// `cell.endurance`.
    pub retire_at_endurance: bool,
    /// Probability that an erase fails: the block retires after it (GC had
    /// moved its valid data out, so nothing is lost).
    pub erase_failure_probability: f64,
    /// Spare blocks per plane, set aside from the over-provisioned space:
    /// factory bad blocks use the first, each grown bad block is replaced
    /// by the next; a block that retires with none left ends the run
    /// (read-only). Absent: ceil(blocks_per_plane × 80/4096)
    /// ([`DATASHEET_INVALID_FRACTION`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spare_blocks: Option<u32>,
}

impl Default for BadBlocks {
    fn default() -> BadBlocks {
        BadBlocks {
            factory_fraction: 0.0,
            retire_at_endurance: true,
            erase_failure_probability: 0.0,
            spare_blocks: None,
        }
    }
}

impl Config {
    /// Factory bad blocks per plane (with `flash.bad_blocks`):
    /// round(factory_fraction × blocks_per_plane).
    pub fn factory_bad_blocks(&self) -> u32 {
        self.flash.bad_blocks.as_ref().map_or(0, |b| {
            (b.factory_fraction * self.geometry.blocks_per_plane as f64).round() as u32
        })
    }

    /// The most spare blocks a plane can set aside: its blocks, less those
    /// its share of the logical capacity (logical pages spread evenly over
    /// the planes, rounded up to blocks) fills, less GC's threshold and one
    /// block for GC's destination. 0 if there is no such room.
    pub fn max_spare_blocks(&self) -> u32 {
        let ppb = self.geometry.pages_per_block as u64;
        let share = self.plane_share_pages().div_ceil(ppb.max(1));
        let need = share + self.gc_threshold_pages().div_ceil(ppb.max(1)) + 1;
        (self.geometry.blocks_per_plane as u64).saturating_sub(need) as u32
    }

    /// Logical pages per plane, the drive's evenly spread.
    fn plane_share_pages(&self) -> u64 {
        (self.logical_pages() + self.translation_pages())
            .div_ceil(self.total_planes().max(1) as u64)
    }

    /// Spare blocks per plane (with `flash.bad_blocks`): `spare_blocks`, or
    /// ceil(blocks_per_plane × [`DATASHEET_INVALID_FRACTION`]).
    pub fn spare_blocks(&self) -> u32 {
        self.flash.bad_blocks.as_ref().map_or(0, |b| {
            b.spare_blocks.unwrap_or_else(|| {
                (self.geometry.blocks_per_plane as f64 * DATASHEET_INVALID_FRACTION).ceil() as u32
            })
        })
    }

    /// The values of `flash.bad_blocks`, and whether its spares fit the
    /// over-provisioned space and cover the factory bad blocks.
    pub(crate) fn bad_block_values(&self) -> Requirement {
        let Some(b) = &self.flash.bad_blocks else {
            return Ok(());
        };
        if !(0.0..1.0).contains(&b.factory_fraction) {
            return Err((
                "flash.bad_blocks.factory_fraction",
                format!("{} is outside [0, 1)", b.factory_fraction),
            ));
        }
        if !(0.0..=1.0).contains(&b.erase_failure_probability) {
            return Err((
                "flash.bad_blocks.erase_failure_probability",
                format!("{} is outside [0, 1]", b.erase_failure_probability),
            ));
        }
        let g = &self.geometry;
        let most = self.max_spare_blocks();
        let s = self.spare_blocks();
        {
            if s > most {
                return Err((
                    "flash.bad_blocks.spare_blocks",
                    format!(
                        "{s} spare blocks per plane{} do not fit in the over-provisioned space: of a plane's {} \
                         blocks (geometry.blocks_per_plane) of {} pages, its share of the logical capacity \
                         fills {} pages, GC's threshold (gc.threshold) keeps {} free and needs one block more, which leaves at most {most}; lower \
                         spare_blocks or raise ftl.overprovisioning",
                        if b.spare_blocks.is_none() {
                            " (the default, 80/4096 of its blocks rounded up)"
                        } else {
                            ""
                        },
                        g.blocks_per_plane,
                        g.pages_per_block,
                        self.plane_share_pages(),
                        self.gc_threshold_pages()
                    ),
                ));
            }
        }
        let factory = self.factory_bad_blocks();
        let spares = self.spare_blocks();
        if factory > spares {
            return Err((
                "flash.bad_blocks.factory_fraction",
                format!(
                    "{} of geometry.blocks_per_plane = {} gives {factory} factory bad blocks per plane, more than its {spares} spare \
                     blocks{}: the drive would ship read-only; lower factory_fraction or give it \
                     more spares",
                    b.factory_fraction,
                    g.blocks_per_plane,
                    if b.spare_blocks.is_some() {
                        " (flash.bad_blocks.spare_blocks)"
                    } else {
                        " (the default spare_blocks, 80/4096 of its blocks rounded up)"
                    }
                ),
            ));
        }
        Ok(())
    }
}
