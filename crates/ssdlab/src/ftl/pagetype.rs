//! Page-type draws (PA-SSD §4.2): the type a write wants when no request
//! of its own says (the complement schemes: sU, sLF, sUB), and a GC
//! move's draw, which every look at the move repeats.

/// The complement scheme: a type for any write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Complement {
    /// sU: uniform over the cell's types.
    Uniform,
    /// sLF: LSB first (always LSB).
    LsbFirst,
    /// sUB: in proportion to the drive's free pages of each type.
    FreeProportional,
}

/// The complement scheme's type for a draw `u` in [0, 1).
pub(crate) fn complement_type(c: Complement, free: [u64; 3], bits: usize, u: f64) -> u8 {
    match c {
        Complement::LsbFirst => 0,
        Complement::Uniform => ((u * bits as f64) as usize).min(bits - 1) as u8,
        Complement::FreeProportional => proportional(free, bits, u),
    }
}

/// sUB: lane with probability free[lane] / Σ free (LSB if nothing is free).
pub(crate) fn proportional(free: [u64; 3], bits: usize, u: f64) -> u8 {
    let total: u64 = free[..bits].iter().sum();
    if total == 0 {
        return 0;
    }
    let mut x = u * total as f64;
    for (lane, &f) in free[..bits].iter().enumerate() {
        if x < f as f64 {
            return lane as u8;
        }
        x -= f as f64;
    }
    (bits - 1) as u8
}

/// A uniform draw in [0, 1) from a number (SplitMix64): GC moves take
/// their type from their transaction's sequence number, so that the
/// builder's look-ahead and the commit agree.
pub(crate) fn unit_from(n: u64) -> f64 {
    let mut z = n.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proportional_draws_follow_the_free_pages() {
        let free = [100, 300, 600];
        let n = 100_000;
        let mut counts = [0u32; 3];
        for i in 0..n {
            counts[proportional(free, 3, unit_from(i)) as usize] += 1;
        }
        for (c, f) in counts.iter().zip(free) {
            let share = *c as f64 / n as f64;
            assert!((share - f as f64 / 1000.0).abs() < 0.01, "{counts:?}");
        }
    }
}
