//! Small, dependency-free SVG charts for the figures ssdlab writes.
//!
//! A plotting crate would need a font backend to lay out text (system fonts
//! or an embedded font file), which a fresh machine may not have; these
//! charts emit SVG `<text>` and let the viewer render it, so they work
//! everywhere and are byte-identical across runs.

use std::fmt::Write;

const W: f64 = 720.0;
const H: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 180.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 55.0;

/// Colours of successive series (colour-blind-safe palette).
const COLOURS: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// "Nice" tick values covering [lo, hi]: the last one is at or above hi.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-12);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() * step;
    (0..)
        .map(|i| first + i as f64 * step)
        .take_while(|v| *v < hi + step * (1.0 - 1e-9))
        .collect()
}

fn fmt_tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    let short = |x: f64, unit: &str| {
        let t = format!("{x:.2}");
        format!("{}{unit}", t.trim_end_matches('0').trim_end_matches('.'))
    };
    if a >= 1e9 {
        short(v / 1e9, "G")
    } else if a >= 1e6 {
        short(v / 1e6, "M")
    } else if a >= 1e4 {
        short(v / 1e3, "k")
    } else if a < 1e-3 {
        format!("{v:.1e}")
    } else if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

struct Frame {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

impl Frame {
    fn px(&self, x: f64) -> f64 {
        LEFT + (x - self.x0) / (self.x1 - self.x0).max(1e-12) * (W - LEFT - RIGHT)
    }
    fn py(&self, y: f64) -> f64 {
        H - BOTTOM - (y - self.y0) / (self.y1 - self.y0).max(1e-12) * (H - TOP - BOTTOM)
    }
}

fn header(out: &mut String, title: &str, x_label: &str, y_label: &str) {
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">
<rect width="{W}" height="{H}" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>
<text x="{}" y="{}" text-anchor="middle">{}</text>
<text x="16" y="{}" text-anchor="middle" transform="rotate(-90 16 {})">{}</text>
"#,
        (LEFT + W - RIGHT) / 2.0,
        esc(title),
        (LEFT + W - RIGHT) / 2.0,
        H - 12.0,
        esc(x_label),
        (TOP + H - BOTTOM) / 2.0,
        (TOP + H - BOTTOM) / 2.0,
        esc(y_label)
    );
}

fn axes(out: &mut String, f: &Frame, xt: &[(f64, String)], yt: &[f64]) {
    let (l, r, t, b) = (LEFT, W - RIGHT, TOP, H - BOTTOM);
    let _ = writeln!(
        out,
        r##"<rect x="{l}" y="{t}" width="{}" height="{}" fill="none" stroke="#444"/>"##,
        r - l,
        b - t
    );
    for &y in yt {
        let py = f.py(y);
        let _ = writeln!(
            out,
            r##"<line x1="{l}" y1="{py:.1}" x2="{r}" y2="{py:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            l - 6.0,
            py + 4.0,
            fmt_tick(y)
        );
    }
    for (x, label) in xt {
        let px = f.px(*x);
        let _ = writeln!(
            out,
            r##"<line x1="{px:.1}" y1="{b}" x2="{px:.1}" y2="{}" stroke="#444"/><text x="{px:.1}" y="{}" text-anchor="middle">{}</text>"##,
            b + 4.0,
            b + 18.0,
            esc(label)
        );
    }
}

fn legend(out: &mut String, names: &[&str]) {
    for (i, name) in names.iter().enumerate() {
        let y = TOP + 10.0 + i as f64 * 18.0;
        let x = W - RIGHT + 14.0;
        let _ = writeln!(
            out,
            r#"<rect x="{x}" y="{}" width="14" height="4" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            y - 2.0,
            COLOURS[i % COLOURS.len()],
            x + 20.0,
            y + 4.0,
            esc(name)
        );
    }
}

/// One series of a line chart: a name and its (x, y) points.
pub struct Series<'a> {
    pub name: &'a str,
    pub points: Vec<(f64, f64)>,
}

/// A line chart of several series on shared axes; y starts at 0 unless a
/// value is negative.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    let pts = series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, 0f64, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1, y1) = (0.0, 1.0, 1.0);
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    let yt = ticks(y0, y1);
    let f = Frame {
        x0,
        x1: if x1 > x0 { x1 } else { x0 + 1.0 },
        y0,
        y1: yt.last().copied().unwrap_or(y1).max(y1),
    };
    let xt: Vec<(f64, String)> = ticks(f.x0, f.x1)
        .into_iter()
        .filter(|&x| x <= f.x1 * (1.0 + 1e-9))
        .map(|x| (x, fmt_tick(x)))
        .collect();
    let mut out = String::new();
    header(&mut out, title, x_label, y_label);
    axes(&mut out, &f, &xt, &yt);
    for (i, s) in series.iter().enumerate() {
        let mut d = String::new();
        for (k, &(x, y)) in s.points.iter().enumerate() {
            let _ = write!(
                d,
                "{}{:.1},{:.1}",
                if k == 0 { "M" } else { " L" },
                f.px(x),
                f.py(y)
            );
        }
        let _ = writeln!(
            out,
            r#"<path d="{d}" fill="none" stroke="{}" stroke-width="1.6"/>"#,
            COLOURS[i % COLOURS.len()]
        );
    }
    legend(&mut out, &series.iter().map(|s| s.name).collect::<Vec<_>>());
    out.push_str("</svg>\n");
    out
}

/// A grouped bar chart: one group per category, one bar per series.
pub fn bar_chart(
    title: &str,
    y_label: &str,
    categories: &[&str],
    series: &[(&str, Vec<f64>)],
) -> String {
    let y1 = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .fold(0f64, f64::max)
        .max(1e-12);
    let y0 = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .fold(0f64, f64::min);
    let yt = ticks(y0, y1);
    let n = categories.len().max(1) as f64;
    let f = Frame {
        x0: 0.0,
        x1: n,
        y0,
        y1: yt.last().copied().unwrap_or(y1).max(y1),
    };
    let xt: Vec<(f64, String)> = categories
        .iter()
        .enumerate()
        .map(|(i, c)| (i as f64 + 0.5, c.to_string()))
        .collect();
    let mut out = String::new();
    header(&mut out, title, "", y_label);
    axes(&mut out, &f, &xt, &yt);
    let k = series.len().max(1) as f64;
    let slot = (f.px(1.0) - f.px(0.0)) * 0.8 / k;
    for (j, (_, values)) in series.iter().enumerate() {
        for (i, &v) in values.iter().enumerate() {
            let x = f.px(i as f64 + 0.1) + j as f64 * slot;
            let (ya, yb) = (f.py(v.max(0.0)), f.py(v.min(0.0)));
            let _ = writeln!(
                out,
                r#"<rect x="{x:.1}" y="{ya:.1}" width="{:.1}" height="{:.1}" fill="{}"/>"#,
                slot * 0.9,
                (yb - ya).max(0.0),
                COLOURS[j % COLOURS.len()]
            );
        }
    }
    legend(&mut out, &series.iter().map(|s| s.0).collect::<Vec<_>>());
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(
            ticks(0.0, 1.0),
            vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        let t = ticks(0.0, 37.0);
        assert_eq!(t.first(), Some(&0.0));
        assert_eq!(*t.last().unwrap(), 40.0, "{t:?}");
        assert_eq!(fmt_tick(150000.0), "150k");
        assert_eq!(fmt_tick(2.5e6), "2.5M");
    }

    #[test]
    fn charts_are_well_formed_and_deterministic() {
        let s = [Series {
            name: "a<b",
            points: vec![(0.0, 0.1), (1.0, 0.3), (2.0, 0.2)],
        }];
        let a = line_chart("t", "x", "y", &s);
        assert_eq!(a, line_chart("t", "x", "y", &s));
        assert!(
            a.starts_with("<svg")
                && a.ends_with("</svg>\n")
                && a.contains("a&lt;b")
                && a.contains("<path")
        );
        let b = bar_chart(
            "t",
            "y",
            &["p", "q"],
            &[("s1", vec![1.0, -0.5]), ("s2", vec![0.5, 2.0])],
        );
        assert_eq!(
            b.matches("<rect x=").count(),
            4 + 1 + 2,
            "4 bars, the frame, 2 legend keys"
        );
    }
}
