//! The host link: how long a message takes on the wire, and the link's
//! directions as serial servers.
//!
//! **PCI Express** (NVMe): a message of `p` data bytes travels as
//! ⌈p / max_payload⌉ transaction layer packets (one, with no data, for a
//! read request); each packet adds its overhead: 4 bytes of framing and
//! sequence number (generation 1–2: start symbol, 2-byte sequence number,
//! end symbol; generation 3–5: the 4-byte STP token, which carries the
//! sequence number), 4 bytes of LCRC and its header — 16 bytes for memory
//! requests (64-bit addresses), 12 for completions. The bytes are striped
//! over the lanes (the busiest lane carries ⌈bytes / lanes⌉), each lane
//! moving 2.5, 5, 8, 16 or 32 GT/s with 8b/10b encoding (generations 1–2:
//! 10 bits a byte) or 128b/130b (3–5: 65/8 bits a byte). A message takes
//! ⌈lane bytes × bits a byte / rate⌉ ns. The two directions are separate
//! (full duplex). Data-link packets (acknowledgements, flow control) and
//! ordered sets are not modelled.
//!
//! **SATA 6 Gb/s**: a frame information structure (FIS) of `b` bytes adds
//! 12 bytes of primitives (SOF, CRC, EOF, one 4-byte word each); data goes
//! in data FISes of at most 8192 bytes, each with a 4-byte header; 8b/10b
//! at 6 Gb/s makes a byte 5/3 ns. One direction at a time (half duplex):
//! both directions share one server. Flow-control primitives (HOLD,
//! X_RDY/R_RDY handshakes) are not modelled.
//!
//! Each direction is a [`Server`]: a message takes the first idle interval
//! long enough for it from when it is ready.

use super::server::Server;
use crate::config::Link;
use crate::engine::Time;

/// A direction of the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dir {
    /// Host to device.
    Down = 0,
    /// Device to host.
    Up = 1,
}

/// TLP header bytes of a memory request (4 DW: 64-bit addresses).
pub const TLP_REQUEST_HEADER: u64 = 16;
/// TLP header bytes of a completion (3 DW).
pub const TLP_COMPLETION_HEADER: u64 = 12;
/// Framing and sequence number (4) plus LCRC (4) around every TLP.
pub const TLP_FRAMING: u64 = 8;
/// Bytes of SOF, CRC and EOF around every FIS.
pub const FIS_FRAMING: u64 = 12;
/// Most data bytes in one SATA data FIS.
pub const FIS_MAX_DATA: u64 = 8192;
/// NVMe submission queue entry and completion queue entry, bytes.
pub const NVME_SQE: u64 = 64;
pub const NVME_CQE: u64 = 16;
/// A doorbell register write and an MSI-X interrupt message, data bytes.
pub const DOORBELL: u64 = 4;
pub const MSIX: u64 = 4;

/// A PCIe transaction layer packet's kind (its header size).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Tlp {
    /// A memory write or read request (16-byte header).
    Request,
    /// A completion with data (12-byte header).
    Completion,
}

/// The link's model and state.
pub(crate) struct LinkModel {
    pub(crate) link: Link,
    /// Each direction (SATA: index 0 for both).
    dirs: [Server; 2],
    /// The clock (bookings before it are over).
    pub(crate) now: Time,
    /// Busy time and wire bytes per direction.
    pub(crate) busy_ns: [u64; 2],
    pub(crate) wire_bytes: [u64; 2],
    /// Time messages waited for a busy direction.
    pub(crate) wait_ns: u64,
}

impl LinkModel {
    pub(crate) fn new(link: Link) -> LinkModel {
        LinkModel {
            link,
            dirs: [Server::default(), Server::default()],
            now: 0,
            busy_ns: [0; 2],
            wire_bytes: [0; 2],
            wait_ns: 0,
        }
    }

    /// The checker's part.
    pub(crate) fn check(&self) -> Result<(), String> {
        self.dirs[0].check()?;
        self.dirs[1].check()
    }

    pub(crate) fn reset(&mut self) {
        self.busy_ns = [0; 2];
        self.wire_bytes = [0; 2];
        self.wait_ns = 0;
    }

    /// Wire bytes of a PCIe message of `payload` data bytes in `tlp`
    /// packets of at most `max_payload` bytes (none: one request packet).
    pub(crate) fn pcie_wire_bytes(payload: u64, tlp: Tlp, max_payload: u64) -> u64 {
        let header = match tlp {
            Tlp::Request => TLP_REQUEST_HEADER,
            Tlp::Completion => TLP_COMPLETION_HEADER,
        };
        let packets = payload.div_ceil(max_payload).max(1);
        payload + packets * (header + TLP_FRAMING)
    }

    /// ns to move `wire` bytes over the link.
    pub(crate) fn wire_ns(link: &Link, wire: u64) -> Time {
        match *link {
            Link::Pcie {
                generation, lanes, ..
            } => {
                // (bits a byte as num/den, lane rate in Mb/s)
                let (num, den, mbps): (u64, u64, u64) = match generation {
                    1 => (10, 1, 2_500),
                    2 => (10, 1, 5_000),
                    3 => (65, 8, 8_000),
                    4 => (65, 8, 16_000),
                    _ => (65, 8, 32_000),
                };
                let lane = wire.div_ceil(lanes as u64);
                (lane * num * 1000).div_ceil(den * mbps)
            }
            Link::Sata => (wire * 5).div_ceil(3),
        }
    }

    /// Wire bytes of a SATA FIS of `bytes` bytes.
    pub(crate) fn fis_wire_bytes(bytes: u64) -> u64 {
        bytes + FIS_FRAMING
    }

    /// Wire bytes of the data FISes carrying `data` bytes.
    pub(crate) fn data_fis_wire_bytes(data: u64) -> u64 {
        let fises = data.div_ceil(FIS_MAX_DATA).max(1);
        data + fises * (4 + FIS_FRAMING)
    }

    /// Book `wire` bytes in direction `dir`, ready at `at`: when they have
    /// crossed.
    pub(crate) fn book(&mut self, dir: Dir, at: Time, wire: u64) -> Time {
        let ns = Self::wire_ns(&self.link, wire);
        let i = match self.link {
            Link::Pcie { .. } => dir as usize,
            Link::Sata => 0,
        };
        let start = self.dirs[i].book(self.now, at, ns);
        self.wait_ns += start - at;
        self.busy_ns[dir as usize] += ns;
        self.wire_bytes[dir as usize] += wire;
        start + ns
    }

    /// A command of `bytes` data bytes arrives at `at` (write: its data
    /// travels with it): the device fetches it (and a write's data), as the
    /// protocol orders the messages. When the device has it.
    pub(crate) fn command(&mut self, at: Time, write: bool, bytes: u64) -> Time {
        match self.link {
            Link::Pcie { max_payload, .. } => {
                let mps = max_payload as u64;
                // The host rings the doorbell; the device reads the entry.
                let mut t = self.book(
                    Dir::Down,
                    at,
                    Self::pcie_wire_bytes(DOORBELL, Tlp::Request, mps),
                );
                t = self.book(Dir::Up, t, Self::pcie_wire_bytes(0, Tlp::Request, mps));
                t = self.book(
                    Dir::Down,
                    t,
                    Self::pcie_wire_bytes(NVME_SQE, Tlp::Completion, mps),
                );
                if write {
                    // One read request per max_payload bytes, then the data
                    // comes back in completions.
                    let requests = bytes.div_ceil(mps).max(1);
                    t = self.book(
                        Dir::Up,
                        t,
                        requests * Self::pcie_wire_bytes(0, Tlp::Request, mps),
                    );
                    t = self.book(
                        Dir::Down,
                        t,
                        Self::pcie_wire_bytes(bytes, Tlp::Completion, mps),
                    );
                }
                t
            }
            Link::Sata => {
                // NCQ: Register FIS H2D, Register FIS D2H (queued); a write
                // then gets DMA Setup and DMA Activate, and its data FISes.
                let mut t = self.book(Dir::Down, at, Self::fis_wire_bytes(20));
                t = self.book(Dir::Up, t, Self::fis_wire_bytes(20));
                if write {
                    t = self.book(
                        Dir::Up,
                        t,
                        Self::fis_wire_bytes(28) + Self::fis_wire_bytes(4),
                    );
                    t = self.book(Dir::Down, t, Self::data_fis_wire_bytes(bytes));
                }
                t
            }
        }
    }

    /// A command of `bytes` data bytes completes at `at` (a read: its data
    /// goes back first): when the host has its completion.
    pub(crate) fn completion(&mut self, at: Time, write: bool, bytes: u64) -> Time {
        match self.link {
            Link::Pcie { max_payload, .. } => {
                let mps = max_payload as u64;
                let mut wire = Self::pcie_wire_bytes(NVME_CQE, Tlp::Request, mps)
                    + Self::pcie_wire_bytes(MSIX, Tlp::Request, mps);
                if !write {
                    wire += Self::pcie_wire_bytes(bytes, Tlp::Request, mps);
                }
                self.book(Dir::Up, at, wire)
            }
            Link::Sata => {
                // A read: DMA Setup and its data FISes; then Set Device Bits.
                let mut wire = Self::fis_wire_bytes(8);
                if !write {
                    wire += Self::fis_wire_bytes(28) + Self::data_fis_wire_bytes(bytes);
                }
                self.book(Dir::Up, at, wire)
            }
        }
    }
}
