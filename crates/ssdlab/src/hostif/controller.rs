//! The controller's own time: its DRAM channel and its firmware.
//!
//! **DRAM** (`interface.controller.dram`), one channel (a
//! [`super::server::Server`]: an access takes the first idle interval long
//! enough for it from when it is ready). An access of `n` bytes, `timing =
//! "datasheet"`, starts at a row boundary and covers r = ⌈n / row_bytes⌉
//! rows; each row is opened (tRCD), read or written after the CAS latency
//! (tCL) and precharged (tRP, closed-page policy), and the data moves in
//! ⌈n / (bus_bytes × burst_length)⌉ bursts of burst_length transfers at
//! transfer_rate_mts:
//!
//! t = r × (tRCD + tCL + tRP) + bursts × burst_length × 1000 / rate ns,
//!
//! rounded up to a whole ns. Writes are charged tCL as reads are (the
//! write latency tCWL is shorter); refresh and bank interleaving are not
//! modelled. `timing = "mqsim"` is MQSim's estimate (docs/fidelity.md).
//!
//! **Firmware**: `firmware_ns_per_command` plus `firmware_ns_per_page` per
//! page, once per command before its pages start.

use super::server::Server;
use crate::config::{Dram, DramTiming};
use crate::engine::Time;

/// The DRAM channel's model and state.
pub(crate) struct DramChannel {
    pub(crate) dram: Dram,
    server: Server,
    /// The clock (bookings before it are over).
    pub(crate) now: Time,
    pub(crate) accesses: u64,
    pub(crate) bytes: u64,
    pub(crate) busy_ns: u64,
    pub(crate) wait_ns: u64,
}

impl DramChannel {
    pub(crate) fn new(dram: Dram) -> DramChannel {
        DramChannel {
            dram,
            server: Server::default(),
            now: 0,
            accesses: 0,
            bytes: 0,
            busy_ns: 0,
            wait_ns: 0,
        }
    }

    /// The checker's part.
    pub(crate) fn check(&self) -> Result<(), String> {
        self.server.check()
    }

    pub(crate) fn reset(&mut self) {
        self.accesses = 0;
        self.bytes = 0;
        self.busy_ns = 0;
        self.wait_ns = 0;
    }

    /// ns one access of `n` bytes takes (module documentation).
    pub(crate) fn access_ns(d: &Dram, n: u64) -> Time {
        match d.timing {
            DramTiming::Datasheet => {
                let rows = n.div_ceil(d.row_bytes as u64).max(1);
                let bursts = n.div_ceil((d.bus_bytes * d.burst_length) as u64).max(1);
                let t = rows as f64 * (d.trcd_ns + d.tcl_ns + d.trp_ns)
                    + (bursts * d.burst_length as u64) as f64 * 1000.0 / d.transfer_rate_mts as f64;
                t.ceil() as Time
            }
            DramTiming::Mqsim => {
                // MQSim's estimate with its burst size B = bus_bytes and
                // its burst transfer time T = one clock (2000 / rate ns),
                // in its arithmetic: integer divisions where it divides
                // integers, whole ns where it converts to its time type.
                let (b, row) = (d.bus_bytes as u64, d.row_bytes as u64);
                let clock = 2000.0 / d.transfer_rate_mts as f64;
                let (rcd, cl, rp) = (d.trcd_ns, d.tcl_ns, d.trp_ns);
                if n <= row {
                    (rcd + cl + ((n / b / 2) as f64 * clock).trunc()).trunc() as Time
                } else {
                    let per_row = ((row / b / 2) as f64 * clock + rp).trunc();
                    let tail = ((n % row) as f64 / (b as f64 * clock)).trunc();
                    (rcd + cl + per_row * (n / row / 2) as f64 + rcd + cl + tail).trunc() as Time
                }
            }
        }
    }

    /// Book an access of `n` bytes ready at `at`: when it ends.
    pub(crate) fn book(&mut self, at: Time, n: u64) -> Time {
        let ns = Self::access_ns(&self.dram, n);
        let start = self.server.book(self.now, at, ns);
        self.wait_ns += start - at;
        self.accesses += 1;
        self.bytes += n;
        self.busy_ns += ns;
        start + ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datasheet_access() {
        let d = Dram::default();
        // 4096 bytes: 2 rows, 256 bursts of 8 transfers at 1600 MT/s.
        let t: f64 = 2.0 * 41.25 + 256.0 * 8.0 * 1000.0 / 1600.0;
        assert_eq!(DramChannel::access_ns(&d, 4096), t.ceil() as Time);
        // 4 bytes: one row, one burst.
        assert_eq!(
            DramChannel::access_ns(&d, 4),
            (41.25f64 + 5.0).ceil() as Time
        );
    }

    #[test]
    fn mqsim_estimate_as_mqsim_gives_it() {
        let d = Dram {
            transfer_rate_mts: 200,
            bus_bytes: 1,
            burst_length: 2,
            row_bytes: 8192,
            trcd_ns: 13.0,
            tcl_ns: 13.0,
            trp_ns: 13.0,
            timing: DramTiming::Mqsim,
        };
        // 5 ns a byte within a row; beyond it the estimate's own arithmetic.
        assert_eq!(DramChannel::access_ns(&d, 4096), 26 + 20_480);
        assert_eq!(DramChannel::access_ns(&d, 8192), 26 + 40_960);
        assert_eq!(DramChannel::access_ns(&d, 12_288), 26 + 26 + 409);
        assert_eq!(DramChannel::access_ns(&d, 32_768), 26 + 2 * 40_973 + 26);
    }

    #[test]
    fn served_one_at_a_time() {
        let mut c = DramChannel::new(Dram::default());
        let a = c.book(0, 4096);
        let b = c.book(0, 4096);
        assert_eq!(b, 2 * a);
        assert_eq!(c.wait_ns, a);
    }
}
