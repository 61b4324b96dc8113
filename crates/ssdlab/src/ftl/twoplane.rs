//! Request-level two-plane allocation: DVPFTL's adaptive parallelism
//! management (APM, Luo et al., IEEE Access 2018, §III-C), its virtual
//! pages (DVP, §III-A) with APM inside each chip, and the PaRP comparator
//! its Fig. 12 measures against (Park et al., IEEE CAL 2010, as DVPFTL
//! describes it).
//!
//! Each places a host write request as a whole (`Ftl::plan_request`): which
//! plane each of its pages goes to, and how many dummy pages pad the planes
//! so that the die's programs go as two-plane commands (the command builder
//! joins the heads of a die's planes as it does for every scheme; a dummy
//! page is programmed without data and counted in `flash.wasted_pages`).
//!
//! * **APM.** Stage 1: requests go to the channels in turn. Stage 2: the
//!   request is split into two sub-requests, its pages alternating between
//!   them. Sub_req1's plane is, while the spread of per-plane erase sums
//!   Δe (Eq. 6) is below `th_dn`, the plane of the channel with the fewest
//!   valid pages (counting pages assigned and not yet programmed); from
//!   `th_dn` to `th_up` the plane of the channel with the fewest erases;
//!   beyond, the plane of the whole drive with the fewest erases.
//!   Sub_req2's plane is chosen by the same rule among the other planes of
//!   Sub_req1's die. A plane that may take no more valid data (GC needs
//!   room) is chosen only if no other may: when the channel has none, the
//!   drive's planes are searched; when Sub_req1's siblings have none, the
//!   request stays on Sub_req1's plane. Ties go round. Stage 3: an odd page out is padded with a dummy
//!   page only while the dummy pages so far stay within Eq. (8)'s bound,
//!   Y_dum / Y_req ≤ α·T_nom / T_dum − T_2plane / (2·T_dum); otherwise it
//!   goes as a normal program.
//! * **PaRP.** A request goes to one plane of the next die in turn (dies
//!   visited channel first, the plane within the die in turn; a plane that
//!   may take no more valid data is passed over while another may). The next
//!   request, if it arrives while none of the first one's pages has been
//!   programmed yet, pairs with it: its pages go to the die's other plane,
//!   page i beside page i, and the shorter of the two is padded with dummy
//!   pages. A request that finds no partner goes as normal programs.
//! * **DVP.** A virtual flash chip is two adjacent ways over all channels
//!   (`domain::vfc_chips`); a request's pages are striped one per chip, channel
//!   first, the stripe continuing from request to request; each chip's
//!   share is placed by APM's stages 2 and 3 among the chip's planes.
//!
//! With hot/cold separation a request is one chunk: all its pages go to
//! the stream its first page is judged to belong to, where its alignment
//! is planned.
//!
//! The times of Eq. (7), from the drive's timing: T_nom = command cycles +
//! one page's transfer + tPROG (one page by a normal program);
//! T_2plane = command cycles + two pages' transfer + tPROG (one two-plane
//! program); T_dum = T_2plane / 2 (a dummy page fills half a two-plane
//! program, which makes Eq. (7)'s left side the time of all two-plane
//! programs, dummies included).

use super::{Ftl, Writer};
use crate::addr::{DieId, Lpn, PlaneId, Ppn, INVALID};
use crate::config::Requirement;
use crate::config::{
    BlockGroups, BufferCapacity, Config, DieOrder, Mapping, PlaneAllocation, WriteUnit,
};
use crate::domain::{die_turns, vfc_shape, Domains, VfcLayout};

/// Where a request's pages go, and the dummy pages that pad them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The plane of each of the request's pages, in order.
    pub pages: Vec<PlaneId>,
    /// Dummy pages queued before the request's pages (bringing a plane
    /// that is behind to its sibling's page index), and after them
    /// (completing the last two-plane program): (plane, count).
    pub before: Vec<(PlaneId, u32)>,
    pub after: Vec<(PlaneId, u32)>,
    /// The write stream (hot or cold) the alignment was planned on; the
    /// dummy pages go to it.
    pub hot: bool,
    /// Pages with a fixed destination (DVPFTL's sequential log), by page
    /// (INVALID: placed by `pages` alone); empty if none.
    pub dst: Vec<Ppn>,
}

impl Plan {
    /// All `n` pages on `plane`, no dummy page.
    fn single(plane: PlaneId, n: u32) -> Plan {
        Plan {
            pages: vec![plane; n as usize],
            before: vec![],
            after: vec![],
            hot: false,
            dst: vec![],
        }
    }

    /// `n` pages alternating between `a` and `b`, no dummy page.
    fn alternating(a: PlaneId, b: PlaneId, n: u32) -> Plan {
        Plan {
            pages: (0..n).map(|i| if i % 2 == 0 { a } else { b }).collect(),
            before: vec![],
            after: vec![],
            hot: false,
            dst: vec![],
        }
    }

    #[inline]
    pub fn plane_of(&self, i: u32) -> PlaneId {
        self.pages[i as usize]
    }

    /// The fixed destination of page `i`, or INVALID.
    #[inline]
    pub fn dst_of(&self, i: u32) -> Ppn {
        self.dst.get(i as usize).copied().unwrap_or(INVALID)
    }
}

pub use crate::metrics::TwoPlaneReport;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Policy {
    Apm,
    Parp,
    Dvp,
}

/// PaRP: the request waiting for a partner.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Open {
    /// Its plane, and the die's plane a partner would take.
    plane: PlaneId,
    other: PlaneId,
    pages: u32,
    /// The page index its first page takes.
    start: u32,
    /// `programmed[plane]` when it was placed: unchanged while none of
    /// its pages has been programmed.
    mark: u64,
}

/// The state of a two-plane allocator (module documentation).
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct TwoPlane {
    policy: Policy,
    th_dn: u64,
    th_up: u64,
    dummy_bound: f64,
    channels: u32,
    planes: u32,
    ppd: u32,
    ppb: u32,
    /// Stage 1: the channel of the next request (APM).
    channel_next: u32,
    /// Where the scan for the fewest starts, so that ties go round.
    tie: u32,
    /// PaRP: dies in turn, channel first, and the next turn; the plane
    /// within each die in turn.
    dies: Vec<DieId>,
    die_next: usize,
    plane_turn: Vec<u32>,
    open: Option<Open>,
    /// DVP: the virtual flash chips (their chips in stripe order, channel
    /// first, then the way within the pair), the drive's chips, and the
    /// next slot of the stripe (over all virtual flash chips).
    vfc: Option<VfcLayout>,
    chips: u32,
    stripe: u32,
    /// Planes a page may go to when its chip's (or channel's) may take no
    /// more: the drive's; under `mapping = "vfc"` each VFC's (a logical
    /// block never leaves its VFC), with each VFC's next stripe slot.
    all_planes: Vec<u32>,
    vfc_planes: Option<Vec<Vec<u32>>>,
    vfc_stripe: Vec<u32>,
    /// Host programs dispatched per plane (PaRP's "not programmed yet").
    programmed: Vec<u64>,
    y_req: u64,
    y_dum: u64,
    /// The write stream of the request being planned (hot/cold separation).
    hot: bool,
    #[serde(with = "every_field")]
    report: TwoPlaneReport,
}

/// The report in a saved drive state: every field written (its own serde
/// leaves a zero out of JSON, which a binary encoding cannot).
mod every_field {
    use super::TwoPlaneReport;

    type Fields = (String, [u64; 6], [f64; 4], u64, [u64; 3], u64);

    pub(super) fn serialize<S: serde::Serializer>(
        r: &TwoPlaneReport,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let f: Fields = (
            r.policy.clone(),
            [
                r.requests,
                r.pages,
                r.two_plane_requests,
                r.dummy_pages,
                r.single_programs,
                r.crowded_requests,
            ],
            [r.t_nom_us, r.t_2plane_us, r.t_dum_us, r.dummy_ratio_bound],
            r.erase_delta,
            r.by_rule,
            r.sequential_pages,
        );
        serde::Serialize::serialize(&f, s)
    }

    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<TwoPlaneReport, D::Error> {
        let (policy, n, t, erase_delta, by_rule, sequential_pages): Fields =
            serde::Deserialize::deserialize(d)?;
        Ok(TwoPlaneReport {
            policy,
            requests: n[0],
            pages: n[1],
            two_plane_requests: n[2],
            dummy_pages: n[3],
            single_programs: n[4],
            crowded_requests: n[5],
            t_nom_us: t[0],
            t_2plane_us: t[1],
            t_dum_us: t[2],
            dummy_ratio_bound: t[3],
            erase_delta,
            by_rule,
            sequential_pages,
        })
    }
}

impl TwoPlane {
    /// The allocator `cfg` asks for, if it is a two-plane one, over the
    /// drive's `domains` (DVP stripes over their virtual flash chips).
    pub fn new(cfg: &Config, domains: &Domains) -> Option<TwoPlane> {
        let policy = match cfg.ftl.plane_allocation {
            PlaneAllocation::Apm => Policy::Apm,
            PlaneAllocation::Parp => Policy::Parp,
            PlaneAllocation::Dvp => Policy::Dvp,
            _ => return None,
        };
        let g = &cfg.geometry;
        let (t_nom, t_2plane) = eq7_times_ns(cfg);
        let t_dum = t_2plane / 2.0;
        let bound = dummy_ratio_bound(cfg.ftl.apm.alpha, t_nom, t_2plane);
        let planes = cfg.total_planes();
        Some(TwoPlane {
            policy,
            th_dn: cfg.ftl.apm.th_dn,
            th_up: cfg.ftl.apm.th_up,
            dummy_bound: bound,
            channels: g.channels,
            planes,
            ppd: g.planes_per_die,
            ppb: g.pages_per_block,
            channel_next: 0,
            tie: 0,
            dies: die_turns(
                g.channels,
                g.chips_per_channel,
                g.dies_per_chip,
                DieOrder::ChannelFirst,
            ),
            die_next: 0,
            plane_turn: vec![0; cfg.total_dies() as usize],
            open: None,
            vfc: domains.vfc().cloned(),
            chips: g.channels * g.chips_per_channel,
            stripe: 0,
            all_planes: (0..planes).collect(),
            vfc_planes: domains
                .is_vfc()
                .then(|| domains.vfc())
                .flatten()
                .map(|v| (0..v.vfcs).map(|j| v.planes(j).collect()).collect()),
            vfc_stripe: vec![0; vfc_shape(cfg).1 as usize],
            programmed: vec![0; planes as usize],
            y_req: 0,
            y_dum: 0,
            hot: false,
            report: TwoPlaneReport {
                policy: match policy {
                    Policy::Apm => "apm",
                    Policy::Parp => "parp",
                    Policy::Dvp => "dvp",
                }
                .into(),
                t_nom_us: t_nom / 1e3,
                t_2plane_us: t_2plane / 1e3,
                t_dum_us: t_dum / 1e3,
                dummy_ratio_bound: bound,
                ..TwoPlaneReport::default()
            },
        })
    }

    /// A host program of `plane` was dispatched.
    #[inline]
    pub fn programmed(&mut self, plane: PlaneId) {
        self.programmed[plane.index()] += 1;
    }

    pub fn report(&self, erase_delta: u64) -> TwoPlaneReport {
        TwoPlaneReport {
            erase_delta,
            ..self.report.clone()
        }
    }

    /// Plan a request of `pages` pages; under `mapping = "vfc"`, `vfc_of`
    /// gives each page's virtual flash chip.
    fn plan(&mut self, ftl: &Ftl, pages: u32, hot: bool, vfc_of: Option<&[u32]>) -> Plan {
        self.report.requests += 1;
        self.report.pages += pages as u64;
        self.y_req += pages as u64;
        self.hot = hot;
        let mut plan = match self.policy {
            Policy::Apm => self.plan_apm(ftl, pages),
            Policy::Parp => self.plan_parp(ftl, pages),
            Policy::Dvp => self.plan_dvp(ftl, pages, vfc_of),
        };
        plan.hot = hot;
        plan
    }

    /// The page index within its block that the next page queued on
    /// `plane` will take in the request's write stream: its write point
    /// advanced by the pages already queued there (GC moves, and pages of
    /// the other stream, may still come between).
    fn projected(&self, ftl: &Ftl, plane: PlaneId) -> u32 {
        let page = ftl
            .peek_write(plane, Writer::Host { hot: self.hot })
            .map_or(0, |(_, page)| page);
        (page + ftl.plane_pending(plane)) % self.ppb
    }

    /// Dummy pages that bring the plane behind to the other's page index:
    /// (the plane to pad, how many), padding the shorter way round.
    fn realign(&self, ftl: &Ftl, a: PlaneId, b: PlaneId) -> (PlaneId, u32) {
        let (pa, pb) = (self.projected(ftl, a), self.projected(ftl, b));
        let b_behind = (pa + self.ppb - pb) % self.ppb;
        let a_behind = (pb + self.ppb - pa) % self.ppb;
        if b_behind <= a_behind {
            (b, b_behind)
        } else {
            (a, a_behind)
        }
    }

    /// May `dummies` more dummy pages be programmed (Eq. 8)?
    fn within_bound(&self, dummies: u32) -> bool {
        (self.y_dum + dummies as u64) as f64 <= self.dummy_bound * self.y_req as f64
    }

    fn plan_apm(&mut self, ftl: &Ftl, pages: u32) -> Plan {
        let per_channel = self.planes / self.channels;
        let channel = self.channel_next;
        self.channel_next = (channel + 1) % self.channels;
        let all = std::mem::take(&mut self.all_planes);
        let (plan, two_plane) = self.place_pair(
            ftl,
            channel * per_channel..(channel + 1) * per_channel,
            pages,
            &all,
        );
        self.all_planes = all;
        self.count_request(two_plane);
        plan
    }

    /// Count a planned request: one of two-plane programs, or of normal ones.
    fn count_request(&mut self, two_plane: bool) {
        if two_plane {
            self.report.two_plane_requests += 1;
        } else {
            self.report.single_programs += 1;
        }
    }

    /// APM's stages 2 and 3 for `pages` pages whose plane is sought among
    /// `local` (a channel's planes; under DVP a chip's), or among `all`
    /// (the drive's planes, or a VFC's) where Eq. 6's third rule or a lack
    /// of room sends it: Sub_req1's plane, Sub_req2's on the same die, and
    /// the dummy pages of a two-plane plan if Eq. (8) allows them. Returns
    /// the plan and whether it is one of two-plane programs.
    fn place_pair(
        &mut self,
        ftl: &Ftl,
        local: std::ops::Range<u32>,
        pages: u32,
        all: &[u32],
    ) -> (Plan, bool) {
        let delta = ftl.wear().delta();
        let rule = if delta < self.th_dn {
            0
        } else if delta < self.th_up {
            1
        } else {
            2
        };
        self.report.by_rule[rule] += 1;
        let erases = ftl.wear().per_plane();
        let key = |p: u32| {
            let plane = PlaneId(p);
            let load = if rule == 0 {
                ftl.plane_valid(plane) as u64 + ftl.plane_pending(plane) as u64
            } else {
                erases[p as usize]
            };
            (ftl.tier(plane), load)
        };
        let tie = self.tie;
        self.tie = self.tie.wrapping_add(1);
        let fewest = |candidates: &mut dyn Iterator<Item = u32>| -> u32 {
            let c: Vec<u32> = candidates.collect();
            let n = c.len() as u32;
            (0..n)
                .map(|i| c[((tie + i) % n) as usize])
                .min_by_key(|&p| key(p))
                .expect("a channel has planes")
        };
        let mut first = PlaneId(if rule == 2 {
            fewest(&mut all.iter().copied())
        } else {
            fewest(&mut local.into_iter())
        });
        if !ftl.has_room(first) {
            // No plane of the channel may take more valid data (GC needs
            // room to work in): any plane of the drive (VFC) that may.
            first = PlaneId(fewest(&mut all.iter().copied()));
        }
        let die = first.die(self.ppd);
        let second = PlaneId(fewest(
            &mut die.planes(self.ppd).map(|p| p.0).filter(|&p| p != first.0),
        ));
        if !ftl.has_room(second) {
            // Its sibling may take no more: the pages stay on one plane.
            return (Plan::single(first, pages), false);
        }
        // Stage 3: two-plane programs if the dummy pages they take (to
        // bring the planes to one page index, and to complete an odd
        // count) keep Eq. (8); otherwise normal programs, no dummies.
        let mut plan = Plan::alternating(first, second, pages);
        let before = self.realign(ftl, first, second);
        let after = (second, pages % 2);
        if !self.within_bound(before.1 + after.1) {
            return (plan, false);
        }
        self.y_dum += (before.1 + after.1) as u64;
        self.report.dummy_pages += (before.1 + after.1) as u64;
        plan.before = vec![before];
        plan.after = vec![after];
        (plan, true)
    }

    /// DVP: the request's pages striped over the chips of a virtual flash
    /// chip, channel first (a virtual page is one page on each), each
    /// chip's share placed by APM's stages 2 and 3 within the chip.
    /// Under `mapping = "vfc"` each page goes to its logical block's VFC
    /// (`vfc_of`), each VFC's stripe continuing where its last left off.
    fn plan_dvp(&mut self, ftl: &Ftl, pages: u32, vfc_of: Option<&[u32]>) -> Plan {
        let (slots, vfcs) = self.vfc_shape();
        let mut plan = Plan::single(PlaneId::NONE, pages);
        let mut two_plane = false;
        match vfc_of {
            None => {
                let vfc = self.stripe / slots;
                let start = self.stripe % slots;
                let all = std::mem::take(&mut self.all_planes);
                let idx: Vec<u32> = (0..pages).collect();
                two_plane |= self.stripe_over(ftl, &mut plan, vfc, start, &idx, &all);
                self.all_planes = all;
                // The next request continues the stripe; past the virtual
                // page's last chip, the next virtual flash chip.
                let next = start + pages;
                self.stripe = if next >= slots {
                    ((vfc + 1) % vfcs) * slots + next % slots
                } else {
                    vfc * slots + next
                };
            }
            Some(of) => {
                let vfc_planes = self.vfc_planes.take().expect("mapping = \"vfc\"");
                for vfc in 0..vfcs {
                    let idx: Vec<u32> = (0..pages).filter(|&i| of[i as usize] == vfc).collect();
                    if idx.is_empty() {
                        continue;
                    }
                    let start = self.vfc_stripe[vfc as usize];
                    let all = &vfc_planes[vfc as usize];
                    two_plane |= self.stripe_over(ftl, &mut plan, vfc, start, &idx, all);
                    self.vfc_stripe[vfc as usize] = (start + idx.len() as u32) % slots;
                }
                self.vfc_planes = Some(vfc_planes);
            }
        }
        self.count_request(two_plane);
        plan
    }

    /// DVP: chips per virtual flash chip (stripe slots), and VFCs.
    fn vfc_shape(&self) -> (u32, u32) {
        let v = self.vfc.as_ref().expect("DVP lays out virtual flash chips");
        (v.chips, v.vfcs)
    }

    /// Stripe the request's pages `idx` over the chips of `vfc` from stripe
    /// slot `start`, one per chip, channel first; each chip's share placed
    /// by APM's stages 2 and 3 within the chip (or `all`). Whether any
    /// share went as two-plane programs.
    fn stripe_over(
        &mut self,
        ftl: &Ftl,
        plan: &mut Plan,
        vfc: u32,
        start: u32,
        idx: &[u32],
        all: &[u32],
    ) -> bool {
        let (slots, _) = self.vfc_shape();
        let per_chip = self.planes / self.chips;
        let n = idx.len() as u32;
        let mut two_plane = false;
        for k in 0..n.min(slots) {
            let slot = (start + k) % slots;
            let chip = self.vfc.as_ref().expect("DVP").chip(vfc, slot);
            // This chip takes pages k, k + slots, k + 2 slots, ...
            let share = (n - k).div_ceil(slots);
            let (sub, two) =
                self.place_pair(ftl, chip * per_chip..(chip + 1) * per_chip, share, all);
            two_plane |= two;
            for (q, &p) in sub.pages.iter().enumerate() {
                plan.pages[idx[(k + q as u32 * slots) as usize] as usize] = p;
            }
            plan.before.extend(sub.before);
            plan.after.extend(sub.after);
        }
        two_plane
    }

    fn plan_parp(&mut self, ftl: &Ftl, pages: u32) -> Plan {
        if let Some(o) = self.open.take() {
            // The partner: its pages beside the first's, page i beside
            // page i, when none of the first's is programmed yet, the
            // other plane is not past the first's starting index and may
            // still take more valid data (GC needs room).
            let (pad, behind) = (
                (o.start + self.ppb - self.projected(ftl, o.other)) % self.ppb,
                self.ppb / 2,
            );
            if self.programmed[o.plane.index()] == o.mark && pad < behind && ftl.tier(o.other) < 2 {
                self.report.two_plane_requests += 1;
                self.report.single_programs -= 1;
                let after = if pages > o.pages {
                    (o.plane, pages - o.pages)
                } else {
                    (o.other, o.pages - pages)
                };
                self.y_dum += (pad + after.1) as u64;
                self.report.dummy_pages += (pad + after.1) as u64;
                return Plan {
                    pages: vec![o.other; pages as usize],
                    before: vec![(o.other, pad)],
                    after: vec![after],
                    hot: false,
                    dst: vec![],
                };
            }
        }
        // The die in turn, the plane within it in turn; a plane that may
        // take no more valid data (GC needs room) is passed over while
        // another may (the next of the die, then the next die).
        // (None may: the first that is not crowded, `alloc.rs`.)
        let ndies = self.dies.len();
        let mut pick = None;
        for most in [0, 1] {
            for d in 0..ndies {
                let die = self.dies[(self.die_next + d) % ndies];
                let turn = self.plane_turn[die.index()];
                let free = (0..self.ppd)
                    .map(|i| die.plane((turn + i) % self.ppd, self.ppd))
                    .find(|&p| ftl.tier(p) <= most);
                if let Some(plane) = free {
                    pick = Some((d, die, plane));
                    break;
                }
            }
            if pick.is_some() {
                break;
            }
        }
        let (d, die, plane) = pick.unwrap_or_else(|| {
            let die = self.dies[self.die_next];
            (
                0,
                die,
                die.plane(self.plane_turn[die.index()] % self.ppd, self.ppd),
            )
        });
        self.die_next = (self.die_next + d + 1) % ndies;
        let i = plane.0 - die.first_plane(self.ppd).0;
        self.plane_turn[die.index()] = (i + 1) % self.ppd;
        self.report.single_programs += 1;
        // A partner would take the die's next plane that may take data.
        let other = (1..self.ppd)
            .map(|k| die.plane((i + k) % self.ppd, self.ppd))
            .find(|&p| ftl.has_room(p));
        self.open = other.map(|other| Open {
            plane,
            other,
            pages,
            start: self.projected(ftl, plane),
            mark: self.programmed[plane.index()],
        });
        Plan::single(plane, pages)
    }
}

/// Eq. (7)'s T_nom and T_2plane of `cfg`'s drive, nanoseconds (module
/// documentation; tPROG is the mean over the cell's page types).
pub fn eq7_times_ns(cfg: &Config) -> (f64, f64) {
    let t = &cfg.timing;
    let prog = t.program_us.iter().sum::<f64>() / t.program_us.len().max(1) as f64 * 1e3;
    let xfer = cfg.geometry.page_size_bytes as f64 * t.bus_ns_per_byte;
    (t.command_ns + xfer + prog, t.command_ns + 2.0 * xfer + prog)
}

/// Eq. (8)'s bound on dummy pages per requested page with T_dum =
/// T_2plane / 2: 2·α·T_nom / T_2plane − 1 (none below zero).
pub fn dummy_ratio_bound(alpha: f64, t_nom: f64, t_2plane: f64) -> f64 {
    let t_dum = t_2plane / 2.0;
    (alpha * t_nom / t_dum - t_2plane / (2.0 * t_dum)).max(0.0)
}

impl Ftl {
    /// A two-plane allocator's placement of a host write request of
    /// `pages` pages (module documentation), its alignment planned in the
    /// hot or the cold write stream; `None` under other policies.
    /// `lpns` are the request's pages (under `mapping = "vfc"` each goes
    /// to its logical block's virtual flash chip; pages that continue a
    /// VFC's sequential log go to their places in it, the others are
    /// placed by the allocator).
    pub fn plan_request(&mut self, lpns: &[Lpn], hot: bool) -> Option<Plan> {
        let mut tp = self.alloc.two_plane.take()?;
        let seq = self
            .vfc_seq_plan(lpns)
            .filter(|d| d.iter().any(|&p| p != INVALID));
        // The pages the allocator places (all but the sequential log's).
        let rest: std::borrow::Cow<[Lpn]> = match &seq {
            Some(d) => (0..lpns.len())
                .filter(|&i| d[i] == INVALID)
                .map(|i| lpns[i])
                .collect(),
            None => lpns.into(),
        };
        let vfc_of: Option<Vec<u32>> = self
            .fast()
            .and_then(|f| f.vfc.as_ref().map(|v| (f, v)))
            .map(|(f, v)| rest.iter().map(|&l| v.vfc_of_lbn(f.lbn_of(l).0)).collect());
        let mut plan = if rest.is_empty() {
            Plan::single(PlaneId::NONE, 0)
        } else if self.all_crowded() {
            // Every plane is crowded: each page where its data is
            // (`alloc.rs`), one by one.
            tp.report.crowded_requests += 1;
            Plan {
                pages: rest.iter().map(|&l| self.crowded_plane(l)).collect(),
                ..Plan::single(PlaneId::NONE, 0)
            }
        } else {
            tp.plan(self, rest.len() as u32, hot, vfc_of.as_deref())
        };
        plan.hot = hot;
        if let Some(d) = seq {
            // The allocator's pages in order between the fixed ones.
            let mut placed = plan.pages.iter();
            plan.pages = d
                .iter()
                .map(|&p| {
                    if p == INVALID {
                        *placed.next().expect("a placed page")
                    } else {
                        self.map.plane_of(p)
                    }
                })
                .collect();
            tp.report.sequential_pages += d.iter().filter(|&&p| p != INVALID).count() as u64;
            plan.dst = d;
        }
        self.alloc.two_plane = Some(tp);
        Some(plan)
    }

    /// Place host write requests with `allocator` (APM, PaRP or DVP).
    pub(crate) fn set_request_allocator(&mut self, allocator: Option<TwoPlane>) {
        self.alloc.two_plane = allocator;
    }

    /// Does a request-level allocator place host write requests whole?
    #[inline]
    pub fn plans_requests(&self) -> bool {
        self.alloc.two_plane.is_some()
    }

    /// What the two-plane allocator did (`None` under other policies).
    pub fn two_plane_report(&self) -> Option<TwoPlaneReport> {
        self.alloc
            .two_plane
            .as_ref()
            .map(|tp| tp.report(self.wear().delta()))
    }
}

/// What the request-level allocators (`ftl.plane_allocation = "apm"`,
/// `"parp"` or `"dvp"`) require of the other policies, and what they exclude: the
/// first violated requirement as (the key to change, why).
pub(crate) fn requirements(c: &Config) -> Requirement {
    let apm = &c.ftl.apm;
    if !(apm.alpha > 0.0 && apm.alpha < 1.0) {
        return Err(("ftl.apm.alpha", format!("{} is outside (0, 1)", apm.alpha)));
    }
    if apm.th_dn >= apm.th_up {
        return Err((
            "ftl.apm.th_dn",
            format!("th_dn ({}) must be below th_up ({})", apm.th_dn, apm.th_up),
        ));
    }
    let name = match c.ftl.plane_allocation {
        PlaneAllocation::Apm => "apm",
        PlaneAllocation::Parp => "parp",
        PlaneAllocation::Dvp => "dvp",
        _ => return Ok(()),
    };
    let ways = c.geometry.chips_per_channel;
    if name == "dvp" && ways > 1 && ways % 2 == 1 {
        return Err((
            "geometry.chips_per_channel",
            format!("plane_allocation = \"dvp\" pairs adjacent ways into virtual flash chips: it needs one way or an even number ({ways} given)"),
        ));
    }
    if c.buffer.capacity != BufferCapacity::None {
        return Err((
            "buffer.capacity",
            format!("plane_allocation = \"{name}\" places host write requests as they arrive: it needs buffer.capacity = \"none\""),
        ));
    }
    if c.ftl.write_unit != WriteUnit::Page || c.ftl.block_groups != BlockGroups::Plane {
        return Err((
            "ftl.write_unit",
            format!("plane_allocation = \"{name}\" chooses planes page by page: it needs write_unit = \"page\" and block_groups = \"plane\""),
        ));
    }
    if c.ftl.mapping == Mapping::Fast {
        return Err((
            "ftl.mapping",
            format!("plane_allocation = \"{name}\" needs a page-level map or \"vfc\" (FAST fixes each page's plane)"),
        ));
    }
    if c.ftl.mapping == Mapping::Vfc && name != "dvp" {
        return Err((
            "ftl.plane_allocation",
            format!("mapping = \"vfc\" keeps a logical block in its virtual flash chip: it needs plane_allocation = \"dvp\", not \"{name}\""),
        ));
    }
    if !c.flash.multiplane || c.geometry.planes_per_die < 2 {
        return Err((
            "flash.multiplane",
            format!("plane_allocation = \"{name}\" pairs two planes of a die: it needs multiplane = true and at least two planes per die (geometry.planes_per_die)"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eq. (8) with T_dum = T_2plane / 2 is 2αT_nom/T_2plane − 1; at the
    /// break-even α (T_2plane / (2 T_nom)) no dummy page is allowed.
    #[test]
    fn the_bound_follows_eq_8() {
        let (t_nom, t_2) = (700.0, 840.0);
        let b = dummy_ratio_bound(0.65, t_nom, t_2);
        assert!((b - (2.0 * 0.65 * 700.0 / 840.0 - 1.0)).abs() < 1e-12);
        assert_eq!(dummy_ratio_bound(t_2 / (2.0 * t_nom), t_nom, t_2), 0.0);
        // Eq. (7) holds with equality at the bound.
        let (y_req, y_dum) = (1000.0, b * 1000.0);
        let lhs = y_dum * (t_2 / 2.0) + y_req / 2.0 * t_2;
        assert!((lhs - 0.65 * y_req * t_nom).abs() < 1e-6);
    }

    #[test]
    fn a_plan_alternates_or_not() {
        let p = Plan::alternating(PlaneId(4), PlaneId(5), 5);
        assert_eq!(
            (0..5).map(|i| p.plane_of(i).0).collect::<Vec<_>>(),
            [4, 5, 4, 5, 4]
        );
        let q = Plan::single(PlaneId(4), 5);
        assert!((0..5).all(|i| q.plane_of(i) == PlaneId(4)));
    }
}
