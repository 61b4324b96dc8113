//! `ssdlab scoreboard`: the scoreboards reproductions left in a directory
//! as one table, the agreement of a quick run with a full one, and the
//! table written into a document between two markers (so that a document
//! quoting it is regenerated, never typed).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::scoreboard::{collect, fmt_num, summary_table, Figure, Paper, Scale, Scoreboard};

/// Percentage points within which a quick run's figure agrees with the full
/// run's (figures in percent).
pub const AGREE_POINTS: f64 = 5.0;
/// Relative difference within which a quick run's figure agrees with the
/// full run's (counts, rates, times).
pub const AGREE_RELATIVE: f64 = 0.05;

/// The marker lines a document holds the table between.
pub const BEGIN: &str = "<!-- scoreboard:begin -->";
pub const END: &str = "<!-- scoreboard:end -->";

#[derive(Args)]
pub struct ScoreboardArgs {
    /// A directory a reproduction wrote (`ssdlab reproduce NAME --out DIR`)
    /// or `reproduce all` wrote: its scoreboards and those of the folders
    /// under it.
    dir: PathBuf,
    /// A full run's directory to compare this (quick) one with: per paper,
    /// the figures whose quick and full values agree within 5 points
    /// (figures in percent) or 5 % (others).
    #[arg(long, value_name = "FULL_DIR")]
    against: Option<PathBuf>,
    /// Also print every figure with its verdict and cause, and every
    /// conclusion.
    #[arg(long)]
    detail: bool,
    /// Write the table(s) into this document, replacing what is between its
    /// lines `<!-- scoreboard:begin -->` and `<!-- scoreboard:end -->`.
    #[arg(long, value_name = "FILE")]
    into: Option<PathBuf>,
}

/// One paper's agreement between a quick and a full run.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    pub paper: String,
    /// Figures present in both runs.
    pub compared: usize,
    /// Of which agree.
    pub agree: usize,
    /// Those that do not: figure, quantity, quick value, full value.
    pub apart: Vec<(String, String, f64, f64)>,
}

impl Agreement {
    pub fn share(&self) -> f64 {
        if self.compared == 0 {
            0.0
        } else {
            self.agree as f64 / self.compared as f64
        }
    }
}

/// Do a quick run's and a full run's values of one figure agree?
pub fn agree(scale: Scale, quick: f64, full: f64) -> bool {
    if !quick.is_finite() || !full.is_finite() {
        return false;
    }
    match scale {
        Scale::Percent => (quick - full).abs() <= AGREE_POINTS + 1e-9,
        Scale::Absolute => {
            if full == 0.0 {
                quick == 0.0
            } else {
                ((quick - full) / full).abs() <= AGREE_RELATIVE + 1e-9
            }
        }
    }
}

fn key(f: &Figure) -> (String, String, String) {
    let paper = match f.paper {
        Paper::Value(_) => "=",
        Paper::AtMost(_) => "<=",
        Paper::AtLeast(_) => ">=",
    };
    (f.figure.clone(), f.quantity.clone(), paper.to_string())
}

/// Per paper of `quick`, its figures matched by figure and quantity with
/// the same paper's in `full`.
pub fn agreement(quick: &[Scoreboard], full: &[Scoreboard]) -> Vec<Agreement> {
    let mut out = Vec::new();
    for q in quick {
        let Some(f) = full.iter().find(|f| f.paper == q.paper) else {
            continue;
        };
        let mut a = Agreement {
            paper: q.paper.clone(),
            compared: 0,
            agree: 0,
            apart: Vec::new(),
        };
        for qf in &q.figures {
            let k = key(qf);
            let Some(ff) = f.figures.iter().find(|ff| key(ff) == k) else {
                continue;
            };
            a.compared += 1;
            if agree(qf.scale, qf.ours, ff.ours) {
                a.agree += 1;
            } else {
                a.apart
                    .push((qf.figure.clone(), qf.quantity.clone(), qf.ours, ff.ours));
            }
        }
        out.push(a);
    }
    out
}

/// The agreement as a Markdown table, with the figures that differ.
pub fn agreement_table(rows: &[Agreement]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| paper | figures in both runs | quick within 5 points / 5 % of full | share |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|");
    for a in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.0} % |",
            a.paper,
            a.compared,
            a.agree,
            a.share() * 100.0
        );
    }
    for a in rows.iter().filter(|a| !a.apart.is_empty()) {
        let _ = writeln!(s, "\n{}: quick and full differ on", a.paper);
        for (fig, q, quick, full) in &a.apart {
            let _ = writeln!(
                s,
                "- {fig}, {q}: quick {}, full {}",
                fmt_num(*quick),
                fmt_num(*full)
            );
        }
    }
    s
}

/// `text` with what lies between its marker lines replaced by `block`;
/// `origin` names the document in errors.
pub fn replace_block(text: &str, block: &str, origin: &str) -> Result<String> {
    let find = |marker: &str| {
        text.match_indices(marker)
            .map(|(i, _)| i)
            .filter(|&i| {
                (i == 0 || text.as_bytes()[i - 1] == b'\n')
                    && text[i + marker.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| c == '\n' || c == '\r')
            })
            .collect::<Vec<_>>()
    };
    let (begins, ends) = (find(BEGIN), find(END));
    if begins.len() != 1 || ends.len() != 1 {
        bail!(
            "{origin}: expected one line `{BEGIN}` and one line `{END}` (found {} and {})",
            begins.len(),
            ends.len()
        );
    }
    let (b, e) = (begins[0] + BEGIN.len(), ends[0]);
    if e < b {
        bail!("{origin}: `{END}` comes before `{BEGIN}`");
    }
    let mut out = String::with_capacity(text.len() + block.len());
    out.push_str(&text[..b]);
    out.push('\n');
    out.push_str(block.trim_end());
    out.push('\n');
    out.push_str(&text[e..]);
    Ok(out)
}

pub fn cmd_scoreboard(a: ScoreboardArgs) -> Result<ExitCode> {
    let boards = read_boards(&a.dir)?;
    let mut block = String::new();
    let quick = boards.iter().all(|b| b.quick);
    let _ = writeln!(
        block,
        "From `ssdlab scoreboard {}`{} (ssdlab {}): {} run{}.\n",
        a.dir.file_name().map_or_else(
            || a.dir.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        ),
        if a.against.is_some() {
            " with `--against`"
        } else {
            ""
        },
        env!("CARGO_PKG_VERSION"),
        if quick { "quick" } else { "full" },
        if quick { "s (`--quick`)" } else { "s" },
    );
    block.push_str(&summary_table(&boards));
    if let Some(full) = &a.against {
        let full_boards = read_boards(full)?;
        if let Some(b) = full_boards.iter().find(|b| b.quick) {
            bail!(
                "{}: `--against` takes a full run, but {}'s scoreboard is from `{}`",
                full.display(),
                b.paper,
                b.command
            );
        }
        let _ = writeln!(
            block,
            "\nQuick against full (`{}` against `{}`): a figure agrees when the two values are within {AGREE_POINTS} points (figures in percent) or {} % (others).\n",
            a.dir.display(),
            full.display(),
            AGREE_RELATIVE * 100.0
        );
        block.push_str(&agreement_table(&agreement(&boards, &full_boards)));
    }
    println!("{block}");
    if a.detail {
        for b in &boards {
            println!("{}", b.detail());
        }
    }
    if let Some(doc) = &a.into {
        let origin = doc.display().to_string();
        let text = std::fs::read_to_string(doc).with_context(|| format!("reading {origin}"))?;
        let new = replace_block(&text, &block, &origin)?;
        crate::output::write_atomic(doc, new.as_bytes())?;
        eprintln!("wrote the table into {origin}");
    }
    Ok(ExitCode::SUCCESS)
}

fn read_boards(dir: &Path) -> Result<Vec<Scoreboard>> {
    if !dir.is_dir() {
        bail!("{}: not a directory", dir.display());
    }
    let boards = collect(dir)?;
    if boards.is_empty() {
        bail!(
            "{}: no scoreboard.json here or in the folders under it (each `ssdlab reproduce NAME` writes one)",
            dir.display()
        );
    }
    Ok(boards)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(paper: &str, quick: bool, figs: &[(&str, Scale, f64)]) -> Scoreboard {
        let mut b = Scoreboard::new(paper, "cmd", quick);
        for (name, scale, ours) in figs {
            b.figure(Figure::new(
                *name,
                "q",
                "%",
                *scale,
                Paper::Value(10.0),
                *ours,
            ));
        }
        b
    }

    #[test]
    fn agreement_counts_figures_in_both_runs() {
        let q = board(
            "P",
            true,
            &[
                ("a", Scale::Percent, -20.0),
                ("b", Scale::Percent, -20.0),
                ("c", Scale::Absolute, 105.0),
                ("d", Scale::Absolute, 106.0),
                ("only quick", Scale::Percent, 1.0),
            ],
        );
        let f = board(
            "P",
            false,
            &[
                ("a", Scale::Percent, -25.0),
                ("b", Scale::Percent, -25.5),
                ("c", Scale::Absolute, 100.0),
                ("d", Scale::Absolute, 100.0),
            ],
        );
        let rows = agreement(&[q], &[f]);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].compared, 4);
        assert_eq!(rows[0].agree, 2);
        let apart: Vec<&str> = rows[0].apart.iter().map(|a| a.0.as_str()).collect();
        assert_eq!(apart, ["b", "d"]);
        assert!(agreement_table(&rows).contains("| P | 4 | 2 | 50 % |"));
    }

    #[test]
    fn the_block_between_the_markers_is_replaced() {
        let doc = format!("# T\n\nbefore\n{BEGIN}\nold\ntable\n{END}\nafter\n");
        let new = replace_block(&doc, "| new |\n", "doc.md").unwrap();
        assert_eq!(
            new,
            format!("# T\n\nbefore\n{BEGIN}\n| new |\n{END}\nafter\n")
        );
        // Again: the same.
        assert_eq!(replace_block(&new, "| new |", "doc.md").unwrap(), new);
    }

    #[test]
    fn missing_or_repeated_markers_are_refused() {
        let e = replace_block("no markers\n", "x", "doc.md").unwrap_err();
        assert!(e.to_string().contains("doc.md: expected one line"), "{e}");
        let twice = format!("{BEGIN}\n{END}\n{BEGIN}\n{END}\n");
        assert!(replace_block(&twice, "x", "d").is_err());
        let reversed = format!("{END}\n{BEGIN}\n");
        let e = replace_block(&reversed, "x", "d").unwrap_err();
        assert!(e.to_string().contains("comes before"), "{e}");
        // A marker quoted inside a line is not a marker.
        let quoted = format!("see `{BEGIN}`\n{BEGIN}\n{END}\n");
        assert!(replace_block(&quoted, "x", "d").is_ok());
    }
}
