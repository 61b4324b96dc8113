//! The scoreboard: every published figure a reproduction compares with,
//! judged by one tolerance rule, and every conclusion of the paper, held or
//! not. Each `ssdlab reproduce NAME` writes its part as `scoreboard.json` in
//! its output directory; `ssdlab reproduce all` joins them into one table
//! (`scoreboard.md`); `ssdlab report` draws each figure with the paper's
//! value beside ours.
//!
//! The rule: a figure is **within tolerance** when ours is within 15
//! percentage points of the paper's (for figures in percent: changes and
//! shares) or within 15 % of it (counts, rates, times). A figure within
//! tolerance whose sign is the paper's opposite (both at least 1 point from
//! zero) is **flagged**: the number is close but the paper's point fails. A
//! figure the paper gives as a bound ("at most", "below") is within
//! tolerance when ours meets the bound, or misses it by less than the
//! tolerance (flagged then). A figure a parameter was fitted to is
//! **calibrated**: shown, never counted. A figure outside tolerance carries
//! the measured cause of the miss (`cause`).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// Percentage points of the tolerance for figures in percent.
pub const POINTS: f64 = 15.0;
/// Relative tolerance for counts, rates and times.
pub const RELATIVE: f64 = 0.15;
/// The tolerance rule, in words (printed under every scoreboard).
pub const RULE: &str = "within tolerance: within 15 percentage points of the paper's figure \
(figures in percent), or within 15 % of it (counts, rates, times); a bound the paper states \
(\"at most\", \"below\") is met or missed by less than that. Flagged: within tolerance but on \
the other side of zero from the paper (both at least 1 point away), or a bound missed by less \
than the tolerance. Calibrated: a figure a parameter was fitted to; shown, not counted.";

/// How a figure's difference from the paper's is measured.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Scale {
    /// Percent (a change or a share in %): the difference in points.
    Percent,
    /// A count, rate or time: the difference relative to the paper's.
    Absolute,
}

/// What the paper states.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub enum Paper {
    /// A number.
    Value(f64),
    /// At most this ("at most 1.4 % lower" is at most +0 and at least -1.4:
    /// two bounds, two figures).
    AtMost(f64),
    /// At least this.
    AtLeast(f64),
}

impl Paper {
    /// The number drawn as the paper's (the bound itself for a bound).
    pub fn value(self) -> f64 {
        match self {
            Paper::Value(v) | Paper::AtMost(v) | Paper::AtLeast(v) => v,
        }
    }
}

/// The verdict on one figure.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Within,
    Flagged,
    Miss,
    Calibrated,
    /// Equal to the paper's because the model is built that way (a
    /// structure sized as the paper sizes it): shown, not counted.
    ByConstruction,
}

/// One published figure beside ours.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Figure {
    /// Where the paper gives it: "Fig. 9", "Table 3".
    pub figure: String,
    /// What it is: "write latency, SPD against Baseline-D, average".
    pub quantity: String,
    /// The unit of both values ("%", "us", "MB/s", "pages").
    pub unit: String,
    pub scale: Scale,
    pub paper: Paper,
    pub ours: f64,
    /// A parameter was fitted to this figure.
    #[serde(default)]
    pub calibrated: bool,
    /// Why ours differs (for a miss: the measured cause, and where the
    /// documentation shows the evidence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    pub verdict: Verdict,
}

impl Figure {
    /// A figure judged by the rule.
    pub fn new(
        figure: impl Into<String>,
        quantity: impl Into<String>,
        unit: impl Into<String>,
        scale: Scale,
        paper: Paper,
        ours: f64,
    ) -> Figure {
        let mut f = Figure {
            figure: figure.into(),
            quantity: quantity.into(),
            unit: unit.into(),
            scale,
            paper,
            ours,
            calibrated: false,
            cause: None,
            verdict: Verdict::Miss,
        };
        f.verdict = judge(scale, paper, ours);
        f
    }

    /// The same figure marked as the target of a fitted parameter.
    pub fn calibrated(mut self) -> Figure {
        self.calibrated = true;
        self.verdict = Verdict::Calibrated;
        self
    }

    /// The same figure marked as equal by construction.
    pub fn by_construction(mut self) -> Figure {
        self.verdict = Verdict::ByConstruction;
        self
    }

    /// The same figure with the cause of its difference.
    pub fn because(mut self, cause: impl Into<String>) -> Figure {
        self.cause = Some(cause.into());
        self
    }
}

/// `f` with `cause` if it is outside tolerance or flagged (the measured
/// cause of the difference); a figure within tolerance as it is.
pub fn explained(f: Figure, cause: &str) -> Figure {
    if matches!(f.verdict, Verdict::Miss | Verdict::Flagged) {
        f.because(cause)
    } else {
        f
    }
}

/// How far `ours` is from `paper` in the scale's terms, as a share of the
/// tolerance (at most 1: within).
fn distance(scale: Scale, paper: f64, ours: f64) -> f64 {
    match scale {
        Scale::Percent => (ours - paper).abs() / POINTS,
        Scale::Absolute => {
            if paper == 0.0 {
                if ours == 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else {
                ((ours - paper) / paper).abs() / RELATIVE
            }
        }
    }
}

/// The rule of the module documentation.
pub fn judge(scale: Scale, paper: Paper, ours: f64) -> Verdict {
    if !ours.is_finite() {
        return Verdict::Miss;
    }
    match paper {
        Paper::Value(p) => {
            if distance(scale, p, ours) > 1.0 + 1e-9 {
                Verdict::Miss
            } else if scale == Scale::Percent
                && p * ours < 0.0
                && p.abs() >= 1.0
                && ours.abs() >= 1.0
            {
                Verdict::Flagged
            } else {
                Verdict::Within
            }
        }
        Paper::AtMost(b) | Paper::AtLeast(b) => {
            let met = match paper {
                Paper::AtMost(_) => ours <= b,
                _ => ours >= b,
            };
            if met {
                Verdict::Within
            } else if distance(scale, b, ours) <= 1.0 + 1e-9 {
                Verdict::Flagged
            } else {
                Verdict::Miss
            }
        }
    }
}

/// A conclusion the paper draws (an ordering, a trend), and whether our
/// figures hold it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Conclusion {
    /// The paper's claim, in its words or close to them, with where it is.
    pub statement: String,
    pub held: bool,
    /// Our figures that decide it.
    pub evidence: String,
}

/// One reproduction's part of the scoreboard.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Scoreboard {
    /// The paper, as the tables name it: "SPD", "Parallel GC", "PA-SSD",
    /// "DVPFTL (FTL)", "DVPFTL (HDI)".
    pub paper: String,
    /// The command that made it (`ssdlab reproduce spd --quick`).
    pub command: String,
    pub quick: bool,
    pub figures: Vec<Figure>,
    pub conclusions: Vec<Conclusion>,
}

/// The file a reproduction writes its part to.
pub const FILE: &str = "scoreboard.json";

/// Counts of one scoreboard (or several).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub figures: usize,
    pub within: usize,
    pub flagged: usize,
    pub calibrated: usize,
    pub by_construction: usize,
    pub conclusions: usize,
    pub held: usize,
}

impl Tally {
    /// Figures that count (all but the calibrated ones and those equal by
    /// construction).
    pub fn counted(&self) -> usize {
        self.figures - self.calibrated - self.by_construction
    }
}

impl Scoreboard {
    pub fn new(paper: &str, command: &str, quick: bool) -> Scoreboard {
        Scoreboard {
            paper: paper.into(),
            command: command.into(),
            quick,
            figures: Vec::new(),
            conclusions: Vec::new(),
        }
    }

    pub fn figure(&mut self, f: Figure) {
        self.figures.push(f);
    }

    pub fn conclusion(
        &mut self,
        statement: impl Into<String>,
        held: bool,
        evidence: impl Into<String>,
    ) {
        self.conclusions.push(Conclusion {
            statement: statement.into(),
            held,
            evidence: evidence.into(),
        });
    }

    pub fn tally(&self) -> Tally {
        let count = |v: Verdict| self.figures.iter().filter(|f| f.verdict == v).count();
        Tally {
            figures: self.figures.len(),
            within: count(Verdict::Within),
            flagged: count(Verdict::Flagged),
            calibrated: count(Verdict::Calibrated),
            by_construction: count(Verdict::ByConstruction),
            conclusions: self.conclusions.len(),
            held: self.conclusions.iter().filter(|c| c.held).count(),
        }
    }

    /// Writes `dir/scoreboard.json`.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        crate::output::write_atomic(&dir.join(FILE), text.as_bytes())
    }

    /// Reads `dir/scoreboard.json`, if there is one.
    pub fn read(dir: &Path) -> Result<Option<Scoreboard>> {
        let path = dir.join(FILE);
        if !path.is_file() {
            return Ok(None);
        }
        let text = ssdlab::workload::input::read_text_limited(
            &path,
            ssdlab::workload::input::MAX_SPEC_BYTES,
            "a scoreboard",
        )?;
        let s = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a reproduction's scoreboard", path.display()))?;
        Ok(Some(s))
    }

    /// Markdown: the figures (paper, ours, verdict, cause) and conclusions.
    pub fn detail(&self) -> String {
        let mut s = String::new();
        let t = self.tally();
        let _ = writeln!(
            s,
            "## Scoreboard: {}\n\n{} of {} figures within tolerance ({} flagged), {} calibrated or equal by construction (not counted); {} of {} conclusions held. `{}`.\n",
            self.paper,
            t.within,
            t.counted(),
            t.flagged,
            t.calibrated + t.by_construction,
            t.held,
            t.conclusions,
            self.command
        );
        let _ = writeln!(
            s,
            "| figure | quantity | paper | ours | verdict | cause of the difference |"
        );
        let _ = writeln!(s, "|---|---|---:|---:|---|---|");
        for f in &self.figures {
            let paper = match f.paper {
                Paper::Value(v) => fmt_num(v),
                Paper::AtMost(v) => format!("≤ {}", fmt_num(v)),
                Paper::AtLeast(v) => format!("≥ {}", fmt_num(v)),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} {} | {} {} | {} | {} |",
                f.figure,
                f.quantity,
                paper,
                f.unit,
                fmt_num(f.ours),
                f.unit,
                verdict_text(f.verdict),
                f.cause.as_deref().unwrap_or("")
            );
        }
        if !self.conclusions.is_empty() {
            let _ = writeln!(s, "\n| the paper concludes | held | our figures |");
            let _ = writeln!(s, "|---|---|---|");
            for c in &self.conclusions {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} |",
                    c.statement,
                    if c.held { "yes" } else { "**no**" },
                    c.evidence
                );
            }
        }
        let _ = writeln!(s, "\nRule: {RULE}");
        s
    }
}

fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Within => "within",
        Verdict::Flagged => "**flagged**",
        Verdict::Miss => "**miss**",
        Verdict::Calibrated => "calibrated",
        Verdict::ByConstruction => "by construction",
    }
}

/// The scoreboards under `dir`, in path order: its own, its
/// subdirectories' and theirs (`reproduce all` writes dvp/ with dvp/hdi/,
/// pa/, pgc/, spd/).
pub fn collect(dir: &Path) -> Result<Vec<Scoreboard>> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<Scoreboard>) -> Result<()> {
        if let Some(b) = Scoreboard::read(dir)? {
            out.push(b);
        }
        if depth == 0 {
            return Ok(());
        }
        let mut subdirs: Vec<std::path::PathBuf> = match std::fs::read_dir(dir) {
            Ok(entries) => entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect(),
            Err(_) => Vec::new(),
        };
        subdirs.sort();
        for d in subdirs {
            walk(&d, depth - 1, out)?;
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, 2, &mut out)?;
    Ok(out)
}

/// A number as the tables show it: at most three decimals, no trailing
/// zeros.
pub fn fmt_num(v: f64) -> String {
    if v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The one table over several reproductions: per paper, figures within
/// tolerance of those counted, flagged, calibrated, misses, conclusions
/// held; the rule under it.
pub fn summary_table(boards: &[Scoreboard]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| paper | figures within tolerance | flagged | outside tolerance | calibrated or by construction (not counted) | conclusions held | run |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---|");
    let mut all = Tally::default();
    for b in boards {
        let t = b.tally();
        let misses = t.counted() - t.within - t.flagged;
        let _ = writeln!(
            s,
            "| {} | {} / {} | {} | {} | {} | {} / {} | `{}` |",
            b.paper,
            t.within,
            t.counted(),
            t.flagged,
            misses,
            t.calibrated + t.by_construction,
            t.held,
            t.conclusions,
            b.command
        );
        all.figures += t.figures;
        all.within += t.within;
        all.flagged += t.flagged;
        all.calibrated += t.calibrated;
        all.by_construction += t.by_construction;
        all.conclusions += t.conclusions;
        all.held += t.held;
    }
    let misses = all.counted() - all.within - all.flagged;
    let _ = writeln!(
        s,
        "| **all** | **{} / {}** | {} | {} | {} | **{} / {}** | |",
        all.within,
        all.counted(),
        all.flagged,
        misses,
        all.calibrated + all.by_construction,
        all.held,
        all.conclusions
    );
    let _ = writeln!(s, "\n{RULE}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule() {
        use Paper::*;
        use Scale::*;
        use Verdict::*;
        assert_eq!(judge(Percent, Value(-30.0), -16.0), Within);
        assert_eq!(judge(Percent, Value(-30.0), -14.9), Miss);
        assert_eq!(judge(Percent, Value(-5.0), 4.0), Flagged);
        assert_eq!(judge(Percent, Value(-0.5), 4.0), Within);
        assert_eq!(judge(Absolute, Value(100.0), 115.0), Within);
        assert_eq!(judge(Absolute, Value(100.0), 116.0), Miss);
        assert_eq!(judge(Absolute, Value(0.0), 0.0), Within);
        assert_eq!(judge(Percent, AtMost(-15.0), -20.0), Within);
        assert_eq!(judge(Percent, AtMost(-15.0), -5.0), Flagged);
        assert_eq!(judge(Percent, AtMost(-15.0), 1.0), Miss);
        assert_eq!(judge(Percent, AtLeast(0.0), f64::NAN), Miss);
        let f = Figure::new("Fig. 1", "x", "%", Percent, Value(-30.0), -10.0).calibrated();
        assert_eq!(f.verdict, Calibrated);
    }

    #[test]
    fn tallies_and_tables() {
        let mut b = Scoreboard::new("P", "ssdlab reproduce p --quick", true);
        b.figure(Figure::new(
            "Fig. 1",
            "a",
            "%",
            Scale::Percent,
            Paper::Value(-30.0),
            -25.0,
        ));
        b.figure(
            Figure::new("Fig. 1", "b", "%", Scale::Percent, Paper::Value(-30.0), 5.0)
                .because("why"),
        );
        b.figure(
            Figure::new(
                "Fig. 2",
                "c",
                "us",
                Scale::Absolute,
                Paper::Value(100.0),
                50.0,
            )
            .calibrated(),
        );
        b.conclusion("A beats B", true, "A -25 %");
        let t = b.tally();
        assert_eq!(
            (t.figures, t.within, t.calibrated, t.counted(), t.held),
            (3, 1, 1, 2, 1)
        );
        let table = summary_table(&[b.clone()]);
        assert!(
            table.contains("| P | 1 / 2 | 0 | 1 | 1 | 1 / 1 |"),
            "{table}"
        );
        b.figure(
            Figure::new(
                "Table 1",
                "m",
                "KB",
                Scale::Absolute,
                Paper::Value(1.0),
                1.0,
            )
            .by_construction(),
        );
        assert_eq!(b.tally().counted(), 2);
        let d = b.detail();
        assert!(
            d.contains("| Fig. 1 | b | -30 % | 5 % | **miss** | why |"),
            "{d}"
        );
    }
}
