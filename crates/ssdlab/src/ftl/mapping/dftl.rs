//! DFTL's cost on the timed path: mapping reads and write-backs.
//!
//! The forward map is extended by the translation pages (LPNs after the
//! host's), so it stays the ground truth: a translation page is allocated,
//! moved by GC, aged and checked like host data, and DFTL's directory is
//! its forward-map entry. What DFTL adds is cost, all of it here: a host
//! read asks the cached mapping table (`cache.rs`); a miss joins or issues a
//! mapping read (`Origin::Mapping`, queued with host reads) and parks a
//! `MapWaiter` until the page arrives (`map_loaded`). Entries an insert
//! pushes out dirty, and translation pages a finished GC changed
//! (`map_moved`, `flush_gc_translation`), are written back by `map_program`
//! like a host page. The map's content is not modelled (the forward map is
//! always exact): only when a translation page is read or written matters.

use crate::config::Requirement;
use rustc_hash::FxHashMap;

use crate::addr::{Lpn, PlaneId, INVALID};
use crate::config::{Config, Mapping};
use crate::flash::{CmdKind, Origin};
use crate::ftl::mapping::cache::MappingCache;
use crate::sched::Class;
use crate::sim::Simulator;
use crate::types::ReqId;
use crate::types::TxnId;
use crate::types::Writer;

/// DFTL's timed side: the cached mapping table (None: the map is all in
/// DRAM), the translation-page reads under way with what waits for each,
/// and the translation pages GC moves changed for entries not cached
/// (written back when a GC finishes).
pub(crate) struct Dftl {
    pub(crate) cmt: Option<MappingCache>,
    pub(crate) waiters: FxHashMap<Lpn, Vec<MapWaiter>>,
    pub(crate) gc_translation: Vec<Lpn>,
}

impl Dftl {
    pub(crate) fn new(cfg: &Config) -> Dftl {
        let logical = cfg.logical_pages();
        Dftl {
            cmt: (cfg.ftl.mapping == Mapping::Dftl).then(|| {
                let mut c = MappingCache::new(
                    logical as Lpn,
                    logical,
                    cfg.mapping_entries_per_page(),
                    cfg.ftl.mapping_cache_entries,
                );
                if !cfg.ftl.mapping_cache_sharing.is_shared() {
                    let firsts: Vec<Lpn> = cfg
                        .flows
                        .iter()
                        .filter_map(|f| f.namespace.map(|n| n.first_page as Lpn))
                        .collect();
                    c.partition(&firsts, cfg.ftl.mapping_cache_entries);
                }
                c
            }),
            waiters: FxHashMap::default(),
            gc_translation: Vec::new(),
        }
    }
}

/// DFTL: what waits for a translation page to arrive from flash.
#[derive(Clone, Copy)]
pub(crate) enum MapWaiter {
    /// A host read (or a read-modify-write's read) of a page whose entry missed.
    Read { req: ReqId, lpn: Lpn, rmw: bool },
    /// A programmed host page whose entry missed: load it, dirty.
    Update(Lpn),
    /// The page is written back (read, modified, programmed).
    WriteBack,
}

impl Simulator {
    /// A mapping transaction (`Owner::Mapping`) completed: a translation
    /// page arrived (what waited for it goes on), or was written back.
    pub(crate) fn map_txn_done(&mut self, t: TxnId) {
        let tx = self.txns[t];
        if tx.kind == CmdKind::Read {
            self.read_unpin(tx.src);
            let waiters = self.dftl.waiters.remove(&tx.lpn).unwrap_or_default();
            self.map_loaded(tx.lpn, &waiters);
        } else if self.inflight.get(&tx.lpn) == Some(&t) {
            self.inflight.remove(&tx.lpn);
        }
    }

    /// Get translation page `tp` for `w`: join a read of it under way, else
    /// read it (a mapping read, queued with host reads); a page never
    /// written holds no entries, and one being programmed is still in the
    /// controller: no read.
    pub(crate) fn map_fetch(&mut self, tp: Lpn, w: MapWaiter) {
        if let Some(list) = self.dftl.waiters.get_mut(&tp) {
            list.push(w);
            return;
        }
        let ppn = match self.ftl.lookup(tp) {
            Some(p) if !self.inflight.contains_key(&tp) => p,
            _ => return self.map_loaded(tp, &[w]),
        };
        self.ftl.pin(ppn);
        let plane = self.ftl.map.plane_of(ppn);
        let t = self.new_txn(CmdKind::Read, Origin::Mapping, plane, tp, ppn);
        self.dftl.waiters.insert(tp, vec![w]);
        self.enqueue(plane, Class::Read, t);
    }

    /// Translation page `tp` is in the controller: serve what waited for it.
    pub(crate) fn map_loaded(&mut self, tp: Lpn, waiters: &[MapWaiter]) {
        for &w in waiters {
            match w {
                MapWaiter::Read { req, lpn, rmw } => {
                    self.cmt_insert(lpn, false);
                    self.host_read_flash(req, lpn, rmw);
                }
                MapWaiter::Update(lpn) => self.cmt_insert(lpn, true),
                MapWaiter::WriteBack => self.map_program(tp),
            }
        }
    }

    /// Load an entry into the cached mapping table; a dirty entry it pushes
    /// out has its translation page written back.
    pub(crate) fn cmt_insert(&mut self, lpn: Lpn, dirty: bool) {
        let c = self.dftl.cmt.as_mut().expect("DFTL");
        if let Some(tp) = c.insert(lpn, dirty) {
            self.map_fetch(tp, MapWaiter::WriteBack);
        }
    }

    /// The host reads (`dirty` false) or changes the entry of `lpn`: true if
    /// it may go on now (no DFTL, or the entry is cached); on a miss `w`
    /// waits for the entry's translation page.
    pub(crate) fn map_access(&mut self, lpn: Lpn, dirty: bool, w: MapWaiter) -> bool {
        let Some(c) = self.dftl.cmt.as_mut() else {
            return true;
        };
        if c.access(lpn, dirty) {
            self.metrics.mapping.cache_hits += 1;
            return true;
        }
        self.metrics.mapping.cache_misses += 1;
        let tp = c.translation_page(lpn);
        self.map_fetch(tp, w);
        false
    }

    /// GC moved `lpn`: a cached entry changes in DRAM; otherwise its
    /// translation page is written back when the GC finishes (one write per
    /// translation page however many of its pages the GC moved). Moving a
    /// translation page changes only the directory, which is in DRAM.
    pub(crate) fn map_moved(&mut self, lpn: Lpn) {
        if let Some(c) = self.dftl.cmt.as_mut() {
            if !c.is_translation(lpn) && !c.mark_dirty(lpn) {
                self.dftl.gc_translation.push(c.translation_page(lpn));
            }
        }
    }

    pub(crate) fn flush_gc_translation(&mut self) {
        if self.dftl.gc_translation.is_empty() {
            return;
        }
        let mut pages = std::mem::take(&mut self.dftl.gc_translation);
        pages.sort_unstable();
        pages.dedup();
        for &tp in &pages {
            self.metrics.mapping.gc_translation_updates += 1;
            self.map_fetch(tp, MapWaiter::WriteBack);
        }
        pages.clear();
        self.dftl.gc_translation = pages;
    }

    /// Program translation page `tp` (its new version): like a host page,
    /// to the hot stream if there is one; with Die-Writes, completed with
    /// the die's least recently used dirty buffer pages, then padding. A
    /// write-back of a page whose previous write-back is still queued joins
    /// it (the queued program takes the newest content when it goes).
    pub(crate) fn map_program(&mut self, tp: Lpn) {
        if let Some(&t) = self.inflight.get(&tp) {
            if self.txns[t].src == INVALID {
                self.metrics.mapping.writes_coalesced += 1;
                return;
            }
        }
        let version = self.next_version(tp);
        let t = self.new_txn(
            CmdKind::Program,
            Origin::Mapping,
            PlaneId::NONE,
            tp,
            INVALID,
        );
        self.txns[t].version = version;
        self.txns[t].hot = true;
        self.inflight.insert(tp, t);
        if self.unit.gangs() {
            let die = self.ftl.static_die(tp);
            let mut txns = vec![t];
            txns.extend(self.evict_from_die(die, self.ppd as usize - 1));
            while !txns.len().is_multiple_of(self.ppd as usize) {
                txns.push(self.pad_txn());
            }
            self.enqueue_die_writes(die, &txns, Class::Write);
        } else {
            let queues = &self.sched.queues;
            let plane = self
                .ftl
                .choose_plane(tp, Writer::Host { hot: true }, |d| queues.die_load(d));
            self.ftl.assign(plane);
            self.txns[t].plane = plane;
            self.enqueue(plane, Class::Write, t);
        }
    }
}

/// What DFTL (`ftl.mapping = "dftl"`) requires of the other policies, and what it excludes: the
/// first violated requirement as (the key to change, why).
pub(crate) fn requirements(c: &Config) -> Requirement {
    if c.ftl.mapping != Mapping::Dftl {
        return Ok(());
    }
    if c.ftl.mapping_cache_entries == 0 {
        return Err((
            "ftl.mapping_cache_entries",
            "DFTL needs a cached mapping table of at least one entry".into(),
        ));
    }
    let e = c.ftl.mapping_entry_bytes;
    if e == 0 || e > c.geometry.page_size_bytes {
        return Err((
            "ftl.mapping_entry_bytes",
            "must be at least 1 and at most the page size".into(),
        ));
    }
    if c.logical_pages() + c.translation_pages() > u32::MAX as u64 - 1 {
        return Err((
            "ftl.mapping",
            "logical pages plus translation pages exceed the 32-bit LPN space".into(),
        ));
    }
    Ok(())
}
