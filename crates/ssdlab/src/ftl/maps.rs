//! The FTL's maps: logical page → physical page (forward) and back
//! (reverse), the ground truth of where every page's data is, and the
//! versions the consistency checker compares.
//!
//! Memory: 4 bytes per logical page (forward) and per physical page
//! (reverse); versions, 4 more bytes of each, only with the checker on.

use super::PageMap;

/// Data versions for the consistency checker: every host write of an LPN
/// gets the next version number, and the page that holds it carries it.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Versions {
    /// Latest version the host wrote per LPN (0 = only preconditioned data).
    pub latest: Vec<u32>,
    /// Version stored in each physical page.
    pub page: Vec<u32>,
}

/// The forward and reverse maps, and the checker's versions.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Maps {
    /// Forward map: the page of each LPN (host pages, then DFTL's
    /// translation pages), or INVALID.
    pub(crate) l2p: PageMap,
    /// Reverse map: the LPN each physical page holds valid data of, or
    /// INVALID.
    pub(crate) p2l: PageMap,
    pub(crate) versions: Option<Versions>,
}

impl Maps {
    /// Maps of `mapped` logical and `physical` pages; `check`: keep
    /// versions.
    pub(crate) fn new(mapped: usize, physical: usize, check: bool) -> Maps {
        Maps {
            l2p: PageMap::new_random_access(mapped),
            p2l: PageMap::new(physical),
            versions: check.then(|| Versions {
                latest: vec![0; mapped],
                page: vec![0; physical],
            }),
        }
    }
}
