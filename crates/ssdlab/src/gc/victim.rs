//! GC victim selection. Each policy keeps an index of the closed (fully
//! written, not active, not being collected) blocks of every plane, updated in
//! O(1) or O(log n) as pages are invalidated, so that picking a victim never
//! scans all blocks of a plane:
//!
//! - greedy: blocks bucketed by valid-page count (intrusive doubly linked
//!   lists); the victim is a block of the lowest non-empty bucket.
//! - fifo: closed blocks in the order they were closed; the oldest goes.
//! - random: a dense member list with positions; uniform choice.
//! - d-choices: `d` uniform samples, the one with fewest valid pages goes.
//! - cost-benefit (the flash form of Kawaguchi, Nishioka & Motoda, USENIX
//!   1995, after LFS's Rosenblum & Ousterhout): maximise age·(1−u)/(2u), with
//!   u the valid share and age the time since the block was closed. For a
//!   fixed valid count the score grows with age, so the exact maximum is among
//!   the oldest block of each valid-count bucket: one ordered set per bucket,
//!   `pages_per_block + 1` candidates per pick.
//!
//! Blocks are global block ids (`plane * blocks_per_plane + block`).

use std::collections::{BTreeSet, VecDeque};

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::addr::INVALID;
use crate::config::VictimPolicy;
use crate::engine::Time;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct VictimIndex {
    policy: VictimPolicy,
    d: u32,
    blocks_per_plane: u32,
    pages_per_block: u32,
    kind: Kind,
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
enum Kind {
    Buckets {
        /// head[plane * (ppb+1) + valid] -> first block or INVALID
        head: Vec<u32>,
        prev: Vec<u32>,
        next: Vec<u32>,
        /// valid count the block is filed under
        filed: Vec<u32>,
        /// lowest possibly non-empty bucket per plane
        low: Vec<u32>,
    },
    Fifo(Vec<VecDeque<u32>>),
    Members {
        members: Vec<Vec<u32>>,
        pos: Vec<u32>,
    },
    CostBenefit {
        /// per plane, per valid count: (closed time, block)
        sets: Vec<Vec<BTreeSet<(Time, u32)>>>,
        closed: Vec<Time>,
        filed: Vec<u32>,
    },
}

impl VictimIndex {
    pub fn new(
        policy: VictimPolicy,
        d: u32,
        planes: u32,
        blocks_per_plane: u32,
        pages_per_block: u32,
    ) -> Self {
        let nblocks = (planes * blocks_per_plane) as usize;
        let buckets = pages_per_block as usize + 1;
        let kind = match policy {
            VictimPolicy::Greedy => Kind::Buckets {
                head: vec![INVALID; planes as usize * buckets],
                prev: vec![INVALID; nblocks],
                next: vec![INVALID; nblocks],
                filed: vec![INVALID; nblocks],
                low: vec![pages_per_block + 1; planes as usize],
            },
            VictimPolicy::Fifo => Kind::Fifo((0..planes).map(|_| VecDeque::new()).collect()),
            VictimPolicy::Random | VictimPolicy::DChoices => Kind::Members {
                members: (0..planes).map(|_| Vec::new()).collect(),
                pos: vec![INVALID; nblocks],
            },
            VictimPolicy::CostBenefit => Kind::CostBenefit {
                sets: (0..planes)
                    .map(|_| (0..buckets).map(|_| BTreeSet::new()).collect())
                    .collect(),
                closed: vec![0; nblocks],
                filed: vec![INVALID; nblocks],
            },
        };
        VictimIndex {
            policy,
            d,
            blocks_per_plane,
            pages_per_block,
            kind,
        }
    }

    #[inline]
    fn plane_of(&self, gb: u32) -> usize {
        (gb / self.blocks_per_plane) as usize
    }

    /// A block was closed (its last page written) with `valid` valid pages.
    pub fn insert(&mut self, gb: u32, valid: u32, now: Time) {
        let plane = self.plane_of(gb);
        let buckets = self.pages_per_block as usize + 1;
        match &mut self.kind {
            Kind::Buckets {
                head,
                prev,
                next,
                filed,
                low,
            } => {
                let h = &mut head[plane * buckets + valid as usize];
                prev[gb as usize] = INVALID;
                next[gb as usize] = *h;
                if *h != INVALID {
                    prev[*h as usize] = gb;
                }
                *h = gb;
                filed[gb as usize] = valid;
                low[plane] = low[plane].min(valid);
            }
            Kind::Fifo(q) => q[plane].push_back(gb),
            Kind::Members { members, pos } => {
                pos[gb as usize] = members[plane].len() as u32;
                members[plane].push(gb);
            }
            Kind::CostBenefit {
                sets,
                closed,
                filed,
            } => {
                closed[gb as usize] = now;
                filed[gb as usize] = valid;
                sets[plane][valid as usize].insert((now, gb));
            }
        }
    }

    /// Is the block in the index (closed and not picked)?
    pub fn contains(&self, gb: u32) -> bool {
        match &self.kind {
            Kind::Buckets { filed, .. } | Kind::CostBenefit { filed, .. } => {
                filed[gb as usize] != INVALID
            }
            Kind::Fifo(q) => q[self.plane_of(gb)].contains(&gb),
            Kind::Members { pos, .. } => pos[gb as usize] != INVALID,
        }
    }

    /// A page of an indexed block was invalidated: its valid count is now `valid`.
    #[inline]
    pub fn update(&mut self, gb: u32, valid: u32) {
        match &mut self.kind {
            Kind::Buckets { filed, .. } => {
                if filed[gb as usize] != INVALID {
                    self.remove(gb);
                    self.insert(gb, valid, 0);
                }
            }
            Kind::CostBenefit {
                sets,
                closed,
                filed,
            } => {
                let old = filed[gb as usize];
                if old != INVALID {
                    let plane = (gb / self.blocks_per_plane) as usize;
                    let t = closed[gb as usize];
                    sets[plane][old as usize].remove(&(t, gb));
                    sets[plane][valid as usize].insert((t, gb));
                    filed[gb as usize] = valid;
                }
            }
            Kind::Fifo(_) | Kind::Members { .. } => {}
        }
    }

    /// Take a block out of the index (it was chosen, perhaps by another policy layer).
    pub fn remove(&mut self, gb: u32) {
        let plane = self.plane_of(gb);
        let buckets = self.pages_per_block as usize + 1;
        match &mut self.kind {
            Kind::Buckets {
                head,
                prev,
                next,
                filed,
                ..
            } => {
                let v = filed[gb as usize];
                if v == INVALID {
                    return;
                }
                let (p, n) = (prev[gb as usize], next[gb as usize]);
                if p != INVALID {
                    next[p as usize] = n;
                } else {
                    head[plane * buckets + v as usize] = n;
                }
                if n != INVALID {
                    prev[n as usize] = p;
                }
                filed[gb as usize] = INVALID;
            }
            Kind::Fifo(q) => {
                if let Some(i) = q[plane].iter().position(|&b| b == gb) {
                    q[plane].remove(i);
                }
            }
            Kind::Members { members, pos } => {
                let i = pos[gb as usize];
                if i == INVALID {
                    return;
                }
                let m = &mut members[plane];
                let last = *m.last().expect("member list not empty");
                m.swap_remove(i as usize);
                if last != gb {
                    pos[last as usize] = i;
                }
                pos[gb as usize] = INVALID;
            }
            Kind::CostBenefit {
                sets,
                closed,
                filed,
            } => {
                let v = filed[gb as usize];
                if v != INVALID {
                    sets[plane][v as usize].remove(&(closed[gb as usize], gb));
                    filed[gb as usize] = INVALID;
                }
            }
        }
    }

    /// Choose a victim in `plane` and take it out of the index. `valid` gives
    /// the current valid count of a global block.
    pub fn pick(
        &mut self,
        plane: u32,
        now: Time,
        rng: &mut Xoshiro256PlusPlus,
        valid: impl Fn(u32) -> u32,
    ) -> Option<u32> {
        let p = plane as usize;
        let buckets = self.pages_per_block as usize + 1;
        let gb = match &mut self.kind {
            Kind::Buckets { head, low, .. } => {
                let mut v = low[p] as usize;
                while v < buckets && head[p * buckets + v] == INVALID {
                    v += 1;
                }
                low[p] = v as u32;
                if v == buckets {
                    return None;
                }
                head[p * buckets + v]
            }
            Kind::Fifo(q) => return q[p].pop_front(),
            Kind::Members { members, .. } => {
                let m = &members[p];
                if m.is_empty() {
                    return None;
                }
                if self.policy == VictimPolicy::Random {
                    m[rng.gen_range(0..m.len())]
                } else {
                    let mut best = m[rng.gen_range(0..m.len())];
                    for _ in 1..self.d {
                        let c = m[rng.gen_range(0..m.len())];
                        if valid(c) < valid(best) {
                            best = c;
                        }
                    }
                    best
                }
            }
            Kind::CostBenefit { sets, .. } => {
                let ppb = self.pages_per_block as f64;
                let mut best: Option<(f64, u32)> = None;
                for (v, set) in sets[p].iter().enumerate() {
                    let Some(&(t, b)) = set.first() else { continue };
                    if v == 0 {
                        best = Some((f64::INFINITY, b));
                        break;
                    }
                    let u = v as f64 / ppb;
                    let age = (now - t) as f64 + 1.0;
                    let score = age * (1.0 - u) / (2.0 * u);
                    if best.is_none_or(|(s, _)| score > s) {
                        best = Some((score, b));
                    }
                }
                best?.1
            }
        };
        self.remove(gb);
        Some(gb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn rng() -> Xoshiro256PlusPlus {
        Xoshiro256PlusPlus::seed_from_u64(7)
    }

    #[test]
    fn greedy_picks_fewest_valid_and_tracks_updates() {
        let mut vi = VictimIndex::new(VictimPolicy::Greedy, 1, 2, 8, 4);
        let valid = |_| 0;
        vi.insert(0, 3, 0);
        vi.insert(1, 2, 0);
        vi.insert(2, 4, 0);
        vi.insert(9, 0, 0); // other plane
        vi.update(2, 1);
        assert_eq!(vi.pick(0, 0, &mut rng(), valid), Some(2));
        assert_eq!(vi.pick(0, 0, &mut rng(), valid), Some(1));
        assert_eq!(vi.pick(0, 0, &mut rng(), valid), Some(0));
        assert_eq!(vi.pick(0, 0, &mut rng(), valid), None);
        assert_eq!(vi.pick(1, 0, &mut rng(), valid), Some(9));
    }

    #[test]
    fn fifo_picks_oldest() {
        let mut vi = VictimIndex::new(VictimPolicy::Fifo, 1, 1, 8, 4);
        for b in [5, 3, 7] {
            vi.insert(b, 4, 0);
        }
        let got: Vec<_> = std::iter::from_fn(|| vi.pick(0, 0, &mut rng(), |_| 0)).collect();
        assert_eq!(got, vec![5, 3, 7]);
    }

    #[test]
    fn cost_benefit_prefers_old_and_empty() {
        let mut vi = VictimIndex::new(VictimPolicy::CostBenefit, 1, 1, 8, 4);
        vi.insert(0, 2, 100); // u = .5, age 901 -> 450
        vi.insert(1, 1, 900); // u = .25, age 101 -> 151
        vi.insert(2, 3, 0); // u = .75, age 1001 -> 167
        assert_eq!(vi.pick(0, 1000, &mut rng(), |_| 0), Some(0));
        vi.update(2, 0);
        assert_eq!(vi.pick(0, 1000, &mut rng(), |_| 0), Some(2));
    }

    #[test]
    fn random_and_dchoices_return_members_once() {
        for policy in [VictimPolicy::Random, VictimPolicy::DChoices] {
            let mut vi = VictimIndex::new(policy, 3, 1, 64, 4);
            for b in 0..64 {
                vi.insert(b, b % 5, 0);
            }
            let mut r = rng();
            let mut seen: Vec<_> =
                std::iter::from_fn(|| vi.pick(0, 0, &mut r, |b| b % 5)).collect();
            seen.sort();
            assert_eq!(seen, (0..64).collect::<Vec<_>>(), "{policy:?}");
        }
    }
}
