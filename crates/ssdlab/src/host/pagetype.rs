//! PA-SSD's page-type specifying schemes (§4.2): the host interface gives
//! each write request a page type (a lane of the relaxed program order,
//! `ftl/lanes.rs`), which its page-sized sub-requests inherit; pa-BLAlloc
//! then takes a page of that type in the chosen plane if it can.
//!
//! `host.page_types` names a scheme: `none` (type-blind, the default), a
//! complement scheme alone — `su` (uniform over the types), `slf` (LSB
//! first: always LSB), `sub` (types in proportion to the drive's free
//! pages of each type) — or a primary scheme and its complement:
//! `ssb+X` (a request of one sub-request gets LSB), `sqd+X` (every request
//! gets LSB while more than `host.queue_threshold` requests are
//! outstanding), `swb+X` (LSB while the write buffer is full), `shg+X`
//! (the type the host hints: synthetic profiles with `latency_hint` give
//! hints; a request without one gets the complement's). Pages
//! without a request of their own (buffer evictions, GC moves) get the
//! complement's type, GC moves always `sub` (the paper: "GC writes use
//! sUB"); those draws are the FTL's (`ftl/pagetype.rs`).

use crate::config::{Config, ProgramOrder};
use crate::ftl::pagetype::{complement_type, Complement};

/// The primary scheme: LSB under a condition, else the complement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Primary {
    /// sSB: requests of one page-sized sub-request.
    SmallRequests,
    /// sQD: while the device queue holds more than the threshold.
    QueueDepth(u32),
    /// sWB: while the write buffer is full.
    BufferFull,
    /// sHG: the type the host hints (the record's `hint`), if it gives one.
    HostHint,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TypeScheme {
    pub(crate) primary: Option<Primary>,
    pub(crate) complement: Complement,
}

/// What a request's type may depend on.
pub(crate) struct Situation {
    /// Page-sized sub-requests of the request.
    pub(crate) pages: u64,
    /// Requests outstanding before this one.
    pub(crate) outstanding: u64,
    pub(crate) buffer_full: bool,
    /// The host's hint (0 fastest), if the record carries one.
    pub(crate) hint: Option<u8>,
    /// Free pages of each type in the drive.
    pub(crate) free: [u64; 3],
    /// Page types of the cell.
    pub(crate) bits: usize,
}

impl TypeScheme {
    /// The scheme `host.page_types` names (None: `none`). Errors name the
    /// accepted forms.
    pub(crate) fn parse(s: &str, queue_threshold: u32) -> Result<Option<TypeScheme>, String> {
        let complement = |c: &str| match c {
            "su" => Ok(Complement::Uniform),
            "slf" => Ok(Complement::LsbFirst),
            "sub" => Ok(Complement::FreeProportional),
            _ => Err(format!("`{c}` is not a complement scheme (su, slf or sub)")),
        };
        let s = s.trim().to_ascii_lowercase();
        if s == "none" {
            return Ok(None);
        }
        let scheme = match s.split_once('+') {
            None => TypeScheme {
                primary: None,
                complement: complement(&s)?,
            },
            Some((p, c)) => TypeScheme {
                primary: Some(match p {
                    "ssb" => Primary::SmallRequests,
                    "sqd" => Primary::QueueDepth(queue_threshold),
                    "swb" => Primary::BufferFull,
                    "shg" => Primary::HostHint,
                    _ => {
                        return Err(format!(
                            "`{p}` is not a primary scheme (ssb, sqd, swb or shg)"
                        ))
                    }
                }),
                complement: complement(c)?,
            },
        };
        Ok(Some(scheme))
    }

    /// The type (lane, fast to slow) of a write request; `u` a uniform
    /// draw in [0, 1).
    pub(crate) fn request_type(&self, s: &Situation, u: f64) -> u8 {
        if let (Some(Primary::HostHint), Some(h)) = (self.primary, s.hint) {
            return h.min(s.bits as u8 - 1);
        }
        let lsb = match self.primary {
            Some(Primary::SmallRequests) => s.pages == 1,
            Some(Primary::QueueDepth(t)) => s.outstanding > t as u64,
            Some(Primary::BufferFull) => s.buffer_full,
            Some(Primary::HostHint) | None => false,
        };
        if lsb {
            0
        } else {
            complement_type(self.complement, s.free, s.bits, u)
        }
    }
}

/// What a page-type scheme requires: a valid name, and relaxed program
/// order (the types are lanes of it).
pub(crate) fn requirements(c: &Config) -> crate::config::Requirement {
    match TypeScheme::parse(&c.host.page_types, c.host.queue_threshold) {
        Err(e) => Err(("host.page_types", e)),
        Ok(Some(_)) if c.ftl.program_order != ProgramOrder::Relaxed => Err((
            "host.page_types",
            "a page-type scheme needs ftl.program_order = \"relaxed\" (pages of a type are chosen within a block)".into(),
        )),
        Ok(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_parse_by_the_papers_names() {
        let p = |s| TypeScheme::parse(s, 10).unwrap();
        assert_eq!(p("none"), None);
        assert_eq!(
            p("sQD+sUB"),
            Some(TypeScheme {
                primary: Some(Primary::QueueDepth(10)),
                complement: Complement::FreeProportional
            })
        );
        assert_eq!(p("slf").unwrap().complement, Complement::LsbFirst);
        assert!(TypeScheme::parse("sxx+su", 10)
            .unwrap_err()
            .contains("primary"));
        assert!(TypeScheme::parse("ssb+sqd", 10)
            .unwrap_err()
            .contains("complement"));
    }

    #[test]
    fn primaries_give_lsb_under_their_condition() {
        let s = |pages, outstanding, buffer_full| Situation {
            pages,
            outstanding,
            buffer_full,
            hint: None,
            free: [0, 0, 100],
            bits: 3,
        };
        let sub = TypeScheme::parse("ssb+sub", 10).unwrap().unwrap();
        assert_eq!(sub.request_type(&s(1, 0, false), 0.5), 0);
        // Only MSB pages free: sUB gives MSB.
        assert_eq!(sub.request_type(&s(2, 0, false), 0.5), 2);
        let qd = TypeScheme::parse("sqd+su", 10).unwrap().unwrap();
        assert_eq!(qd.request_type(&s(4, 11, false), 0.99), 0);
        assert_eq!(qd.request_type(&s(4, 10, false), 0.99), 2);
    }

    #[test]
    fn host_hints_decide_where_given() {
        let hg = TypeScheme::parse("shg+slf", 10).unwrap().unwrap();
        let s = |hint| Situation {
            pages: 2,
            outstanding: 0,
            buffer_full: false,
            hint,
            free: [1, 1, 1],
            bits: 3,
        };
        assert_eq!(hg.request_type(&s(Some(2)), 0.5), 2);
        assert_eq!(hg.request_type(&s(Some(1)), 0.5), 1);
        assert_eq!(hg.request_type(&s(None), 0.5), 0);
    }
}
