//! Allocation of the large per-page maps.
//!
//! A 512 GiB drive has 134 M physical pages; its forward and reverse maps
//! take about 1 GiB and are read and written at random, so with 4 KiB pages
//! nearly every access also misses the TLB. On Linux, maps of 64 MiB or more
//! are advised to use transparent huge pages (`madvise(MADV_HUGEPAGE)`, which
//! works when the system's THP mode is `always` or `madvise`): measured on
//! the 512 GB benchmarks, the run phase is 20–30% faster, while allocation
//! may take up to about a second longer when the kernel must compact memory
//! to find 2 MiB pages (docs/benchmarks.md). Elsewhere, or if the advice is
//! refused, the maps are ordinary allocations. Results never depend on it.

/// Maps smaller than this are allocated normally (tests, small drives).
const HUGE_MIN_BYTES: usize = 64 << 20;

/// Ask for huge pages behind the memory of `v` (whole 2 MiB pages inside
/// it; smaller slices are left alone).
pub fn advise_huge_slice(v: &mut [u32]) {
    let bytes = std::mem::size_of_val(v);
    if bytes >= HUGE_MIN_BYTES {
        advise_huge(v.as_mut_ptr() as usize, bytes);
    }
}

#[cfg(target_os = "linux")]
fn advise_huge(addr: usize, bytes: usize) {
    const HUGE: usize = 2 << 20;
    let start = addr.div_ceil(HUGE) * HUGE;
    let end = (addr + bytes) / HUGE * HUGE;
    if end > start {
        // SAFETY: [start, end) lies inside an allocation this function's
        // caller owns and has not touched yet; the advice changes only how
        // the kernel backs it, and a refusal (an error return) is harmless.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_addr: usize, _bytes: usize) {}

/// Memory available to a new allocation, in bytes: `SSDLAB_MEMORY_BYTES`
/// if set (a limit of one's own, e.g. a cluster job's share), else the
/// smaller of Linux's `MemAvailable` (free memory plus what the kernel can
/// reclaim) and the room left under the process's cgroup limit
/// (`memory.max` − `memory.current`, cgroup v2); None where neither is
/// known (no check).
pub fn available_bytes() -> Option<u64> {
    if let Some(v) = std::env::var_os("SSDLAB_MEMORY_BYTES") {
        if let Some(n) = v.to_str().and_then(|s| s.trim().parse().ok()) {
            return Some(n);
        }
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        });
    let cgroup = (|| {
        let read = |f: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{f}")).ok();
        let max: u64 = read("memory.max")?.trim().parse().ok()?; // "max": no limit
        let current: u64 = read("memory.current")?.trim().parse().ok()?;
        Some(max.saturating_sub(current))
    })();
    match (meminfo, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
