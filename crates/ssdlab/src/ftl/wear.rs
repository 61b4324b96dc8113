//! Wear: erases summed per plane (DVPFTL's e_{i,j,q}, Eq. 5) and their
//! spread over the planes, Δe = max − min (Eq. 6), kept up to date as blocks
//! are erased (what an erase-aware allocator reads, and what the wear
//! metrics report).

use crate::addr::PlaneId;

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Wear {
    per_plane: Vec<u64>,
    max: u64,
    min: u64,
    /// Planes whose sum is `min`.
    at_min: usize,
}

impl Wear {
    pub fn new(planes: usize) -> Wear {
        Wear {
            per_plane: vec![0; planes],
            max: 0,
            min: 0,
            at_min: planes,
        }
    }

    /// A block of `plane` was erased. O(1), except when the last plane at
    /// the minimum leaves it (then one pass over the planes: at most once
    /// per erase of every plane).
    pub fn erased(&mut self, plane: PlaneId) {
        let e = &mut self.per_plane[plane.index()];
        *e += 1;
        self.max = self.max.max(*e);
        if *e - 1 == self.min {
            self.at_min -= 1;
            if self.at_min == 0 {
                self.min += 1;
                self.at_min = self.per_plane.iter().filter(|&&s| s == self.min).count();
            }
        }
    }

    /// Erases of each plane's blocks so far.
    pub fn per_plane(&self) -> &[u64] {
        &self.per_plane
    }

    /// Δe: the most erases of a plane minus the fewest.
    pub fn delta(&self) -> u64 {
        self.max - self.min
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_follows_the_sums() {
        let mut w = Wear::new(3);
        assert_eq!(w.delta(), 0);
        w.erased(PlaneId(0));
        w.erased(PlaneId(0));
        assert_eq!(w.delta(), 2);
        w.erased(PlaneId(1));
        assert_eq!(w.delta(), 2, "plane 2 still has none");
        w.erased(PlaneId(2));
        assert_eq!((w.min, w.delta()), (1, 1));
        w.erased(PlaneId(1));
        w.erased(PlaneId(2));
        assert_eq!((w.min, w.max, w.delta()), (2, 2, 0));
        assert_eq!(w.per_plane(), &[2, 2, 2]);
        // Against a direct computation over a long pseudo-random sequence.
        let mut w = Wear::new(7);
        let mut x = 1u64;
        for _ in 0..10_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            w.erased(PlaneId(((x >> 33) % 7) as u32));
            let (lo, hi) = (
                w.per_plane().iter().min().unwrap(),
                w.per_plane().iter().max().unwrap(),
            );
            assert_eq!(w.delta(), hi - lo);
        }
    }
}
