//! Flows' partitions of the flash (`[[flows]]`'s `channels`, `chips`,
//! `dies`, `planes`): which planes a flow's pages may go to, and the check
//! that each partition can hold its flow's logical pages.
//!
//! A partition is the planes of every combination of its lists (MQSim's
//! `Channel_IDs`, `Chip_IDs`, `Die_IDs`, `Plane_IDs`), each an index within
//! its parent, an absent list meaning all. A flow with a partition needs
//! its own namespace: its logical pages are those the partition holds. The
//! drive's other logical pages (flows without a partition, shared space)
//! go to the planes in no partition, or, when every plane is in one, to
//! any plane (DFTL's translation pages, beyond the logical space, go
//! anywhere).
//!
//! **Capacity.** Each plane offers the drive's logical pages per plane,
//! `ceil(logical / planes)` (what static allocation gives a plane of an
//! unpartitioned drive). A domain (a flow's partition, or the rest's planes)
//! of `n` logical pages over `k` planes puts `n / k` on each of its planes
//! on average (dynamic allocation's mean; static allocation's stripe puts
//! `ceil(n / k)` or `floor(n / k)`); the domains that share a plane must
//! together fit its share, so that every plane keeps, within a page per
//! domain, the spare space it has without partitions. A flow's partition
//! of `k` planes so holds at most `k × ceil(logical / planes)` pages.

use serde::{Deserialize, Serialize};

use super::{BufferCapacity, Config, Mapping};
use crate::error::{Error, Result};

/// How a resource of the controller is shared among flows.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Sharing {
    /// One pool for every flow.
    #[default]
    Shared,
    /// An equal part per flow; a flow uses only its own.
    Partitioned,
}

impl Sharing {
    pub fn is_shared(&self) -> bool {
        *self == Sharing::Shared
    }
}

impl Config {
    /// Does any flow confine its pages to a partition of the flash?
    pub fn has_partitions(&self) -> bool {
        self.flows.iter().any(|f| f.partitioned())
    }

    /// The planes (global indices, ascending) of flow `i`'s partition, or
    /// None if it has none. Indices beyond the drive are left out (the
    /// configuration's validation refuses them).
    pub fn partition_planes(&self, i: usize) -> Option<Vec<u32>> {
        let f = &self.flows[i];
        if !f.partitioned() {
            return None;
        }
        let g = &self.geometry;
        let list = |l: &Option<Vec<u32>>, n: u32| -> Vec<u32> {
            match l {
                Some(v) => {
                    let mut v: Vec<u32> = v.iter().copied().filter(|&x| x < n).collect();
                    v.sort_unstable();
                    v.dedup();
                    v
                }
                None => (0..n).collect(),
            }
        };
        let (cs, ws, ds, ps) = (
            list(&f.channels, g.channels),
            list(&f.chips, g.chips_per_channel),
            list(&f.dies, g.dies_per_chip),
            list(&f.planes, g.planes_per_die),
        );
        let mut out = Vec::with_capacity(cs.len() * ws.len() * ds.len() * ps.len());
        for &c in &cs {
            for &w in &ws {
                for &d in &ds {
                    for &p in &ps {
                        out.push(
                            ((c * g.chips_per_channel + w) * g.dies_per_chip + d)
                                * g.planes_per_die
                                + p,
                        );
                    }
                }
            }
        }
        Some(out)
    }

    /// A line describing every partition (for a saved drive state's keys:
    /// aging places data by them), or None without partitions.
    pub fn partitions_key(&self) -> Option<String> {
        self.has_partitions().then(|| {
            self.flows
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let ns = f.namespace.map_or("shared".to_string(), |n| {
                        format!("{}+{}", n.first_page, n.pages)
                    });
                    let planes = self
                        .partition_planes(i)
                        .map_or("all".to_string(), |p| format!("{p:?}"));
                    format!("{ns}:{planes}")
                })
                .collect::<Vec<_>>()
                .join(";")
        })
    }

    /// `buffer.sharing`'s requirements (checked with or without flows).
    fn validate_buffer_sharing(&self, origin: &str) -> Result<()> {
        if self.buffer.sharing.is_shared() {
            return Ok(());
        }
        let key = "buffer.sharing";
        if self.flows.is_empty() {
            return Err(Error::config(
                origin,
                key,
                "partitions the write buffer among flows: give [[flows]] (or --flow) too",
            ));
        }
        if self.buffer.capacity == BufferCapacity::None {
            return Err(Error::config(
                origin,
                key,
                "partitions the write buffer, but the drive has none (set buffer.capacity)",
            ));
        }
        if let Some(i) = self.flows.iter().position(|f| f.namespace.is_none()) {
            return Err(Error::config(
                origin,
                format!("flows[{i}].namespace"),
                format!(
                    "flow `{}`: a partitioned write buffer (buffer.sharing) needs every flow's \
                     own namespace (a buffered page belongs to the flow that wrote it; two flows \
                     writing one page would hold it in two partitions)",
                    self.flows[i].name
                ),
            ));
        }
        if let BufferCapacity::Pages(n) = self.buffer.capacity {
            if n < self.flows.len() as u64 {
                return Err(Error::config(
                    origin,
                    "buffer.capacity",
                    format!(
                        "{n} pages cannot be split among {} flows (buffer.sharing = \"partitioned\"): \
                         at least one each",
                        self.flows.len()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `ftl.mapping_cache_sharing`'s requirements (checked with or without
    /// flows).
    fn validate_sharing(&self, origin: &str) -> Result<()> {
        self.validate_buffer_sharing(origin)?;
        if self.ftl.mapping_cache_sharing.is_shared() {
            return Ok(());
        }
        let key = "ftl.mapping_cache_sharing";
        if self.flows.is_empty() {
            return Err(Error::config(
                origin,
                key,
                "partitions the cached mapping table among flows: give [[flows]] (or --flow) too",
            ));
        }
        if self.ftl.mapping != Mapping::Dftl {
            return Err(Error::config(
                origin,
                key,
                "applies to DFTL's cached mapping table (ftl.mapping = \"dftl\")",
            ));
        }
        if let Some(i) = self.flows.iter().position(|f| f.namespace.is_none()) {
            return Err(Error::config(
                origin,
                format!("flows[{i}].namespace"),
                format!(
                    "flow `{}`: a partitioned mapping cache (ftl.mapping_cache_sharing) needs \
                     every flow's own namespace (a mapping entry belongs to the flow whose \
                     namespace holds it)",
                    self.flows[i].name
                ),
            ));
        }
        if self.ftl.mapping_cache_entries < self.flows.len() as u64 {
            return Err(Error::config(
                origin,
                "ftl.mapping_cache_entries",
                format!(
                    "{} entries cannot be split among {} flows (partitioned): at least one each",
                    self.ftl.mapping_cache_entries,
                    self.flows.len()
                ),
            ));
        }
        Ok(())
    }

    /// The partitions' values, each error naming the flow and its key.
    pub(crate) fn validate_partitions(&self, origin: &str) -> Result<()> {
        self.validate_sharing(origin)?;
        let g = &self.geometry;
        for (i, f) in self.flows.iter().enumerate() {
            let ferr = |k: &str, m: String| {
                Err(Error::config(
                    origin,
                    format!("flows[{i}].{k}"),
                    format!("flow `{}`: {m}", f.name),
                ))
            };
            for (key, list, n, what, parent) in [
                ("channels", &f.channels, g.channels, "channel", "the drive"),
                ("chips", &f.chips, g.chips_per_channel, "chip", "a channel"),
                ("dies", &f.dies, g.dies_per_chip, "die", "a chip"),
                ("planes", &f.planes, g.planes_per_die, "plane", "a die"),
            ] {
                let Some(list) = list else { continue };
                if list.is_empty() {
                    return ferr(
                        key,
                        format!("an empty list leaves the flow no {what}; omit the key for every {what}"),
                    );
                }
                for (j, &x) in list.iter().enumerate() {
                    if x >= n {
                        return ferr(
                            key,
                            format!("{what} {x}: {parent} has {n} {what}s (0..={})", n - 1),
                        );
                    }
                    if list[..j].contains(&x) {
                        return ferr(key, format!("lists {what} {x} twice"));
                    }
                }
            }
            if f.partitioned() && f.namespace.is_none() {
                return ferr(
                    f.partition_key(),
                    "a partition needs the flow's own namespace (flows[i].namespace): its logical \
                     pages are then the ones its partition holds"
                        .replace("[i]", &format!("[{i}]")),
                );
            }
        }
        if !self.has_partitions() {
            return Ok(());
        }
        // Capacity: per plane, the domains on it must fit its share, on
        // average (module documentation).
        let planes = self.total_planes() as usize;
        let logical = self.logical_pages();
        let share_pages = logical.div_ceil(planes as u64);
        let share = share_pages as f64;
        let mut load = vec![0f64; planes];
        let mut on = vec![Vec::<usize>::new(); planes];
        let mut partitioned_pages = 0u64;
        for (i, f) in self.flows.iter().enumerate() {
            let (Some(ps), Some(ns)) = (self.partition_planes(i), f.namespace) else {
                continue;
            };
            let k = ps.len() as u64;
            let holds = k * share_pages;
            if ns.pages > holds {
                return Err(Error::config(
                    origin,
                    format!("flows[{i}].{}", f.partition_key()),
                    format!(
                        "flow `{}`: its partition of {k} planes holds {k} × {share_pages} = \
                         {holds} logical pages (the drive's {logical} logical pages over its \
                         {planes} planes, rounded up), fewer than its namespace's {}",
                        f.name, ns.pages
                    ),
                ));
            }
            partitioned_pages += ns.pages;
            for &p in &ps {
                load[p as usize] += ns.pages as f64 / k as f64;
                on[p as usize].push(i);
            }
        }
        // The rest (every logical page outside the partitioned namespaces)
        // goes to the planes in no partition, or to every plane if none is.
        let rest = logical.saturating_sub(partitioned_pages);
        let rest_planes = self.rest_planes();
        let rest_share = rest as f64 / rest_planes.len() as f64;
        let mut rest_at = vec![0f64; planes];
        for &p in &rest_planes {
            rest_at[p as usize] = rest_share;
        }
        let over = |p: usize| load[p] + rest_at[p] > share + 1e-6;
        let Some(p) = (0..planes).find(|&p| over(p)) else {
            return Ok(());
        };
        // (A plane in no partition is overloaded by the rest alone: name
        // the first partitioned flow, whose partition leaves too few.)
        let i = on[p]
            .first()
            .copied()
            .or_else(|| self.flows.iter().position(|f| f.partitioned()))
            .unwrap_or(0);
        let f = &self.flows[i];
        let names: Vec<String> = on[p]
            .iter()
            .map(|&j| format!("`{}`", self.flows[j].name))
            .collect();
        let whose = if names.is_empty() {
            "no flow's partition holds it".to_string()
        } else {
            format!("{:.1} of flows {}", load[p], names.join(", "))
        };
        let rest_to = if rest_planes.len() < planes {
            format!("the {} planes in no partition", rest_planes.len())
        } else {
            "every plane, each being in a partition".to_string()
        };
        Err(Error::config(
            origin,
            format!("flows[{i}].{}", f.partition_key()),
            format!(
                "flow `{}`: plane {p} would hold {:.1} logical pages on average, more than the \
                 {share_pages} a plane offers (the drive's {logical} logical pages over its {planes} \
                 planes, rounded up): {whose}, and {:.1} of the {rest} logical pages outside the partitioned \
                 namespaces (which go to {rest_to}); size the namespaces in proportion to the \
                 planes they get",
                f.name,
                load[p] + rest_at[p],
                rest_at[p],
            ),
        ))
    }

    /// The planes (ascending) that logical pages outside every partitioned
    /// namespace go to: those in no partition, or every plane if each is in
    /// one.
    pub fn rest_planes(&self) -> Vec<u32> {
        let planes = self.total_planes();
        let mut taken = vec![false; planes as usize];
        for i in 0..self.flows.len() {
            for p in self.partition_planes(i).unwrap_or_default() {
                taken[p as usize] = true;
            }
        }
        let free: Vec<u32> = (0..planes).filter(|&p| !taken[p as usize]).collect();
        if free.is_empty() {
            (0..planes).collect()
        } else {
            free
        }
    }
}
