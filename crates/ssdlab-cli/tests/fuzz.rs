//! The fuzz targets (`ssdlab_cli::fuzz`) under `cargo test`, bounded:
//! every seed and every regression case kept from the long libFuzzer runs
//! (`fuzz/seeds/TARGET/`, `fuzz/regressions/TARGET/`), a fixed number of
//! seeded mutations of each seed (so that inputs that almost parse reach
//! the code behind the parsers), and bolero's random inputs. The property
//! is the targets' own: no panic, and errors that say where. Long runs:
//! docs/reliability.md.

use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab_cli::fuzz;

/// Mutated copies of each seed.
const MUTATIONS: usize = 64;
/// bolero's random inputs per target.
const RANDOM_INPUTS: usize = 3_000;

fn cases(dir: &str, target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz")
        .join(dir)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return vec![];
    };
    let mut files: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

/// A few random edits of `seed`: byte flips, insertions of bytes that mean
/// something to the parsers, deletions, a cut, a duplicated stretch.
fn mutate(seed: &[u8], rng: &mut Xoshiro256PlusPlus) -> Vec<u8> {
    const TOKENS: &[&[u8]] = &[
        b"0",
        b"-1",
        b"NaN",
        b"inf",
        b"1e308",
        b"18446744073709551615",
        b"9223372036854775808",
        b"\n",
        b",",
        b" ",
        b"=",
        b"\"",
        b"[",
        b"]",
        b"{",
        b"}",
        b"\0",
        b"\xff",
        b".",
    ];
    let mut v = seed.to_vec();
    for _ in 0..rng.gen_range(1..=4) {
        let at = if v.is_empty() {
            0
        } else {
            rng.gen_range(0..v.len())
        };
        match rng.gen_range(0..5) {
            0 if !v.is_empty() => v[at] ^= 1 << rng.gen_range(0..8),
            1 => {
                let t = TOKENS[rng.gen_range(0..TOKENS.len())];
                v.splice(at..at, t.iter().copied());
            }
            2 if !v.is_empty() => {
                let end = (at + rng.gen_range(1..16)).min(v.len());
                v.drain(at..end);
            }
            3 => v.truncate(at.max(3)),
            _ if !v.is_empty() => {
                let end = (at + rng.gen_range(1..64)).min(v.len());
                let copy = v[at..end].to_vec();
                v.splice(at..at, copy);
            }
            _ => {}
        }
    }
    v
}

fn exercise(target: &str) {
    let seeds = cases("seeds", target);
    assert!(!seeds.is_empty(), "no seeds for fuzz target `{target}`");
    for (path, bytes) in seeds.iter().chain(&cases("regressions", target)) {
        eprintln!("{}", path.display());
        fuzz::run(target, bytes);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5eed);
    for (_, bytes) in &seeds {
        for _ in 0..MUTATIONS {
            fuzz::run(target, &mutate(bytes, &mut rng));
        }
    }
    bolero::check!()
        .with_iterations(RANDOM_INPUTS)
        .for_each(|data: &[u8]| fuzz::run(target, data));
}

#[test]
fn fuzz_trace() {
    exercise("trace");
}

#[test]
fn fuzz_config() {
    exercise("config");
}

#[test]
fn fuzz_profile() {
    exercise("profile");
}

#[test]
fn fuzz_sweep() {
    exercise("sweep");
}

#[test]
fn every_target_is_tested() {
    assert_eq!(fuzz::TARGETS, ["trace", "config", "profile", "sweep"]);
}
