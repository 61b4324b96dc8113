//! Small, dependency-free SVG charts for the figures ssdlab writes.
//!
//! A plotting crate would need a font backend to lay out text (system fonts
//! or an embedded font file), which a fresh machine may not have; these
//! charts emit SVG `<text>` and let the viewer render it, so they work
//! everywhere and are byte-identical across runs.

use std::fmt::Write;

const W: f64 = 720.0;
/// Height of a chart whose legend fits; a longer legend makes it taller.
const H: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 200.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 55.0;
/// Vertical space of one legend entry.
const LEGEND_ROW: f64 = 18.0;
/// Characters of a legend entry shown (the whole name is its tooltip).
const LEGEND_CHARS: usize = 26;

/// Colours of successive series: the colour-blind-safe Okabe-Ito palette
/// without its yellow (too light on white), then four darker hues unlike
/// any of them.
const COLOURS: [&str; 11] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#882255",
    "#999933", "#6A3D9A", "#8C564B",
];
/// Dash patterns of lines, taken in turn once every colour has been used.
const DASHES: [&str; 3] = ["", "7 4", "2 3"];

/// Series a chart can tell apart by colour and dash pattern.
pub const DISTINCT_STYLES: usize = COLOURS.len() * DASHES.len();

/// Series `i`'s colour and dash pattern: distinct for the first
/// `COLOURS.len() * DASHES.len()` series.
fn style(i: usize) -> (&'static str, &'static str) {
    (
        COLOURS[i % COLOURS.len()],
        DASHES[(i / COLOURS.len()) % DASHES.len()],
    )
}

/// Bars past the colours get a hatch over their colour: the pattern's id.
fn hatch(i: usize) -> Option<usize> {
    let k = i / COLOURS.len();
    (k > 0).then_some(i)
}

/// The text of a title with markdown emphasis and code marks removed.
pub fn plain(s: &str) -> String {
    s.replace("**", "").replace('`', "")
}

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
    /// The chart's height (taller than `H` for a long legend).
    h: f64,
}

impl Frame {
    fn px(&self, x: f64) -> f64 {
        LEFT + (x - self.x0) / (self.x1 - self.x0).max(1e-12) * (W - LEFT - RIGHT)
    }
    fn py(&self, y: f64) -> f64 {
        self.h - BOTTOM - (y - self.y0) / (self.y1 - self.y0).max(1e-12) * (self.h - TOP - BOTTOM)
    }
}

/// The height of a chart with `entries` legend entries.
fn height(entries: usize) -> f64 {
    H.max(TOP + 10.0 + entries as f64 * LEGEND_ROW + BOTTOM)
}

fn header(out: &mut String, h: f64, title: &str, x_label: &str, y_label: &str) {
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" font-family="sans-serif" font-size="12">
<rect width="{W}" height="{h}" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>
<text x="{}" y="{}" text-anchor="middle">{}</text>
<text x="16" y="{}" text-anchor="middle" transform="rotate(-90 16 {})">{}</text>
"#,
        (LEFT + W - RIGHT) / 2.0,
        esc(&plain(title)),
        (LEFT + W - RIGHT) / 2.0,
        h - 12.0,
        esc(x_label),
        (TOP + h - BOTTOM) / 2.0,
        (TOP + h - BOTTOM) / 2.0,
        esc(y_label)
    );
}

fn axes(out: &mut String, f: &Frame, xt: &[(f64, String)], yt: &[f64]) {
    let (l, r, t, b) = (LEFT, W - RIGHT, TOP, f.h - BOTTOM);
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
    if f.y0 < 0.0 && f.y1 > 0.0 {
        let py = f.py(0.0);
        let _ = writeln!(
            out,
            r##"<line x1="{l}" y1="{py:.1}" x2="{r}" y2="{py:.1}" stroke="#444"/>"##
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

/// A legend entry's key: a line sample, a bar swatch, or a ghost (outline).
#[derive(Clone, Copy)]
enum Key {
    Line,
    Bar,
}

/// `name` cut to [`LEGEND_CHARS`] characters (with an ellipsis).
fn short(name: &str) -> String {
    short_to(name, LEGEND_CHARS)
}

fn legend(out: &mut String, names: &[&str], key: Key) {
    for (i, name) in names.iter().enumerate() {
        let y = TOP + 10.0 + i as f64 * LEGEND_ROW;
        let x = W - RIGHT + 14.0;
        let (colour, dash) = style(i);
        match key {
            Key::Line => {
                let _ = write!(
                    out,
                    r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{colour}" stroke-width="2.2"{}/>"#,
                    x + 18.0,
                    dash_attr(dash)
                );
            }
            Key::Bar => {
                let _ = write!(
                    out,
                    r#"<rect x="{x}" y="{}" width="14" height="10" fill="{}"/>"#,
                    y - 5.0,
                    bar_fill(i)
                );
            }
        }
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}"><title>{}</title>{}</text>"#,
            x + 24.0,
            y + 4.0,
            esc(name),
            esc(&short(name))
        );
    }
}

fn dash_attr(dash: &str) -> String {
    if dash.is_empty() {
        String::new()
    } else {
        format!(r#" stroke-dasharray="{dash}""#)
    }
}

/// A bar's fill: its colour, or a hatch of its colour once every colour
/// has been used.
fn bar_fill(i: usize) -> String {
    match hatch(i) {
        Some(id) => format!("url(#ssdlab-hatch-{id})"),
        None => style(i).0.to_string(),
    }
}

/// The hatch patterns bars past the colours use (identical definitions
/// under one id in every chart, so charts inlined in one page agree).
fn hatches(out: &mut String, series: usize) {
    let ids: Vec<usize> = (0..series).filter_map(hatch).collect();
    if ids.is_empty() {
        return;
    }
    out.push_str("<defs>");
    for id in ids {
        let (colour, _) = style(id);
        let angle = if (id / COLOURS.len()) % 2 == 1 {
            45
        } else {
            -45
        };
        let _ = write!(
            out,
            r#"<pattern id="ssdlab-hatch-{id}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate({angle})"><rect width="6" height="6" fill="white"/><rect width="3" height="6" fill="{colour}"/></pattern>"#
        );
    }
    out.push_str("</defs>\n");
}

/// One series of a line chart: a name and its (x, y) points.
pub struct Series<'a> {
    pub name: &'a str,
    pub points: Vec<(f64, f64)>,
}

/// How a line chart's x values are read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum XAxis {
    Linear,
    /// The x values are log10 of the quantity; ticks at its powers of ten,
    /// labelled with the quantity.
    Log10,
}

/// A line chart of several series on shared axes; y starts at 0 unless a
/// value is negative. Series are told apart by colour, then dash pattern.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    line_chart_on(title, x_label, y_label, series, XAxis::Linear)
}

/// [`line_chart`] with a choice of x axis.
pub fn line_chart_on(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    x_axis: XAxis,
) -> String {
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
        h: height(series.len()),
    };
    let xt: Vec<(f64, String)> = match x_axis {
        XAxis::Linear => ticks(f.x0, f.x1)
            .into_iter()
            .filter(|&x| x <= f.x1 * (1.0 + 1e-9))
            .map(|x| (x, fmt_tick(x)))
            .collect(),
        XAxis::Log10 => {
            let (lo, hi) = (f.x0.ceil() as i32, f.x1.floor() as i32);
            let step = ((hi - lo) / 6 + 1).max(1);
            (lo..=hi)
                .step_by(step as usize)
                .map(|k| (k as f64, fmt_tick(10f64.powi(k))))
                .collect()
        }
    };
    let mut out = String::new();
    header(&mut out, f.h, title, x_label, y_label);
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
        let (colour, dash) = style(i);
        let _ = writeln!(
            out,
            r#"<path d="{d}" fill="none" stroke="{colour}" stroke-width="1.8"{}/>"#,
            dash_attr(dash)
        );
        if s.points.len() == 1 {
            // a single point draws no line: mark it
            let (x, y) = s.points[0];
            let _ = writeln!(
                out,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"/>"#,
                f.px(x),
                f.py(y)
            );
        }
    }
    legend(
        &mut out,
        &series.iter().map(|s| s.name).collect::<Vec<_>>(),
        Key::Line,
    );
    out.push_str("</svg>\n");
    out
}

/// Category labels of a bar chart's x axis, rotated when they would
/// overlap.
fn category_labels(out: &mut String, f: &Frame, categories: &[&str]) {
    let b = f.h - BOTTOM;
    let width = f.px(1.0) - f.px(0.0);
    let longest = categories
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(0);
    let rotate = longest as f64 * 6.5 > width;
    for (i, c) in categories.iter().enumerate() {
        let px = f.px(i as f64 + 0.5);
        let label: String = if rotate && c.chars().count() > 30 {
            format!("{}…", c.chars().take(29).collect::<String>())
        } else {
            c.to_string()
        };
        if rotate {
            let _ = writeln!(
                out,
                r#"<text x="{px:.1}" y="{}" text-anchor="end" font-size="11" transform="rotate(-30 {px:.1} {})"><title>{}</title>{}</text>"#,
                b + 14.0,
                b + 14.0,
                esc(c),
                esc(&label)
            );
        } else {
            let _ = writeln!(
                out,
                r#"<text x="{px:.1}" y="{}" text-anchor="middle">{}</text>"#,
                b + 18.0,
                esc(&label)
            );
        }
    }
}

/// The frame of a bar chart over `values`, with room for `entries` legend
/// entries and for rotated category labels.
fn bar_frame(
    values: impl Iterator<Item = f64> + Clone,
    categories: &[&str],
    entries: usize,
) -> (Frame, Vec<f64>) {
    let y1 = values.clone().fold(0f64, f64::max).max(1e-12);
    let y0 = values.fold(0f64, f64::min);
    let yt = ticks(y0, y1);
    let longest = categories
        .iter()
        .map(|c| c.chars().count().min(30))
        .max()
        .unwrap_or(0);
    // rotated labels hang below the axis: about half their length
    let extra = (longest as f64 * 3.5 - 20.0).max(0.0);
    let f = Frame {
        x0: 0.0,
        x1: categories.len().max(1) as f64,
        y0,
        y1: yt.last().copied().unwrap_or(y1).max(y1),
        h: height(entries) + extra,
    };
    (f, yt)
}

/// A grouped bar chart: one group per category, one bar per series.
pub fn bar_chart(
    title: &str,
    y_label: &str,
    categories: &[&str],
    series: &[(&str, Vec<f64>)],
) -> String {
    bar_chart_with_errors(title, y_label, categories, series, None)
}

/// Error bars of a bar chart: per series, per category, the interval
/// (low, high) drawn over the bar.
pub type ErrorBars = [Vec<(f64, f64)>];

/// [`bar_chart`] with an error bar (a whiskered vertical line from low to
/// high, e.g. a 95 % confidence interval) over each bar; without
/// `errors`, the same chart byte for byte.
pub fn bar_chart_with_errors(
    title: &str,
    y_label: &str,
    categories: &[&str],
    series: &[(&str, Vec<f64>)],
    errors: Option<&ErrorBars>,
) -> String {
    let whiskers = errors
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|&(lo, hi)| [lo, hi]);
    let (f, yt) = bar_frame(
        series
            .iter()
            .flat_map(|s| s.1.iter().copied())
            .chain(whiskers),
        categories,
        series.len(),
    );
    let mut out = String::new();
    header(&mut out, f.h, title, "", y_label);
    hatches(&mut out, series.len());
    axes(&mut out, &f, &[], &yt);
    category_labels(&mut out, &f, categories);
    let k = series.len().max(1) as f64;
    let slot = (f.px(1.0) - f.px(0.0)) * 0.8 / k;
    for (j, (name, values)) in series.iter().enumerate() {
        for (i, &v) in values.iter().enumerate() {
            let x = f.px(i as f64 + 0.1) + j as f64 * slot;
            let (ya, yb) = (f.py(v.max(0.0)), f.py(v.min(0.0)));
            let _ = writeln!(
                out,
                r#"<rect x="{x:.1}" y="{ya:.1}" width="{:.1}" height="{:.1}" fill="{}" stroke="{}" stroke-width="0.6"><title>{}: {}</title></rect>"#,
                slot * 0.9,
                (yb - ya).max(0.0),
                bar_fill(j),
                style(j).0,
                esc(name),
                fmt_tick(v)
            );
            if let Some(&(lo, hi)) = errors.and_then(|e| e.get(j)).and_then(|e| e.get(i)) {
                let cx = x + slot * 0.45;
                let (y_lo, y_hi) = (f.py(lo), f.py(hi));
                let cap = (slot * 0.25).min(6.0);
                let _ = writeln!(
                    out,
                    r##"<path d="M{:.1},{y_hi:.1} H{:.1} M{cx:.1},{y_hi:.1} V{y_lo:.1} M{:.1},{y_lo:.1} H{:.1}" stroke="#222" stroke-width="1.2" fill="none"><title>{}: 95 % CI {} to {}</title></path>"##,
                    cx - cap,
                    cx + cap,
                    cx - cap,
                    cx + cap,
                    esc(name),
                    fmt_tick(lo),
                    fmt_tick(hi)
                );
            }
        }
    }
    legend(
        &mut out,
        &series.iter().map(|s| s.0).collect::<Vec<_>>(),
        Key::Bar,
    );
    out.push_str("</svg>\n");
    out
}

/// One quantity of a paper's figure: our value beside the paper's.
pub struct PaperBar<'a> {
    pub label: &'a str,
    /// The paper's value, if it gives one as a number.
    pub paper: Option<f64>,
    pub ours: f64,
    /// Within the stated tolerance of the paper's value (None: not judged).
    pub within: Option<bool>,
}

/// Our values as horizontal bars, one row per quantity, each under a ghost
/// bar (outline, hatched) of the paper's value; ours coloured by the
/// tolerance verdict. Quantities are named at the left, in full (wrapped).
pub fn paper_chart(title: &str, unit: &str, bars: &[PaperBar]) -> String {
    const GOOD: &str = "#009E73";
    const MISS: &str = "#D55E00";
    const NEUTRAL: &str = "#0072B2";
    const LABEL_W: f64 = 300.0;
    const ROW: f64 = 44.0;
    const LINE_CHARS: usize = 46;
    let (l, r) = (LABEL_W, W - 24.0);
    let top = TOP + 26.0;
    let h = top + bars.len().max(1) as f64 * ROW + 40.0;
    let values = bars.iter().flat_map(|b| [Some(b.ours), b.paper]).flatten();
    let hi = values.clone().fold(0f64, f64::max);
    let lo = values.fold(0f64, f64::min);
    let xt = ticks(lo, if hi > lo { hi } else { lo + 1.0 });
    let (x0, x1) = (
        xt.first().copied().unwrap_or(lo).min(lo),
        xt.last().copied().unwrap_or(hi).max(hi),
    );
    let px = |v: f64| l + (v - x0) / (x1 - x0).max(1e-12) * (r - l);
    let mut out = String::new();
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" font-family="sans-serif" font-size="12">
<rect width="{W}" height="{h}" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>
<defs><pattern id="ssdlab-paper" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="white"/><rect width="1.5" height="6" fill="#9aa5b1"/></pattern></defs>
"##,
        W / 2.0,
        esc(&plain(title))
    );
    // the legend, above the bars
    let mut lx = 24.0;
    for (fill, stroke, name) in [
        ("url(#ssdlab-paper)", "#5a6673", "paper"),
        (GOOD, GOOD, "ours, within tolerance"),
        (MISS, MISS, "ours, outside tolerance"),
        (NEUTRAL, NEUTRAL, "ours, not judged"),
    ] {
        let _ = writeln!(
            out,
            r#"<rect x="{lx}" y="{}" width="14" height="10" fill="{fill}" stroke="{stroke}"/><text x="{}" y="{}" font-size="11">{name}</text>"#,
            TOP - 6.0,
            lx + 18.0,
            TOP + 3.0
        );
        lx += 26.0 + name.len() as f64 * 6.0;
    }
    // grid and ticks
    let bottom = top + bars.len().max(1) as f64 * ROW;
    for &v in &xt {
        let x = px(v);
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{bottom}" stroke="{}"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
            if v == 0.0 { "#444" } else { "#ddd" },
            bottom + 16.0,
            fmt_tick(v)
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        (l + r) / 2.0,
        bottom + 32.0,
        esc(unit)
    );
    for (i, b) in bars.iter().enumerate() {
        let y = top + i as f64 * ROW;
        // the label, wrapped on words into at most two lines
        let mut lines: Vec<String> = vec![String::new()];
        for word in b.label.split(' ') {
            let cur = lines.last_mut().expect("one line");
            if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > LINE_CHARS {
                lines.push(word.to_string());
            } else {
                if !cur.is_empty() {
                    cur.push(' ');
                }
                cur.push_str(word);
            }
        }
        if lines.len() > 2 {
            let rest = lines[1..].join(" ");
            lines.truncate(1);
            lines.push(short_to(&rest, LINE_CHARS));
        }
        let _ = write!(
            out,
            r#"<text x="{}" y="{}" text-anchor="end"><title>{}</title>"#,
            l - 8.0,
            y + 16.0,
            esc(b.label)
        );
        for (k, line) in lines.iter().enumerate() {
            let _ = write!(
                out,
                r#"<tspan x="{}" dy="{}">{}</tspan>"#,
                l - 8.0,
                if k == 0 { 0.0 } else { 14.0 },
                esc(line)
            );
        }
        out.push_str("</text>\n");
        let bar = |v: f64| {
            let (a, c) = (px(v.min(0.0)), px(v.max(0.0)));
            (a, (c - a).max(1.0))
        };
        if let Some(p) = b.paper {
            let (x, w) = bar(p);
            let _ = writeln!(
                out,
                r##"<rect x="{x:.1}" y="{:.1}" width="{w:.1}" height="15" fill="url(#ssdlab-paper)" stroke="#5a6673" stroke-dasharray="3 2"><title>paper: {}</title></rect>"##,
                y + 5.0,
                fmt_tick(p)
            );
        }
        let colour = match b.within {
            Some(true) => GOOD,
            Some(false) => MISS,
            None => NEUTRAL,
        };
        let (x, w) = bar(b.ours);
        let _ = writeln!(
            out,
            r#"<rect x="{x:.1}" y="{:.1}" width="{w:.1}" height="15" fill="{colour}"><title>ours: {}</title></rect>"#,
            y + 22.0,
            fmt_tick(b.ours)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// `s` cut to `n` characters with an ellipsis.
fn short_to(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
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
        // more series than colours: distinct styles, hatched bars
        let many: Vec<Series> = (0..14)
            .map(|i| Series {
                name: "s",
                points: vec![(0.0, i as f64), (1.0, i as f64)],
            })
            .collect();
        let l = line_chart("`t` **x**", "x", "y", &many);
        assert!(l.contains(">t x</text>"), "title without markup");
        let styles: std::collections::BTreeSet<(&str, &str)> = (0..14).map(style).collect();
        assert_eq!(styles.len(), 14);
        assert!(l.contains("stroke-dasharray"));
        let names: Vec<String> = (0..14).map(|i| format!("s{i}")).collect();
        let bars: Vec<(&str, Vec<f64>)> = names.iter().map(|n| (n.as_str(), vec![1.0])).collect();
        let b = bar_chart("t", "y", &["only"], &bars);
        assert!(b.contains("url(#ssdlab-hatch-11)") && b.contains("id=\"ssdlab-hatch-11\""));
        // error bars: none, the same bytes; some, one whisker per bar, the
        // axis stretched to the highest
        let series = [("s1", vec![1.0, 2.0]), ("s2", vec![0.5, 2.0])];
        let plain = bar_chart("t", "y", &["p", "q"], &series);
        assert_eq!(
            plain,
            bar_chart_with_errors("t", "y", &["p", "q"], &series, None)
        );
        let errors = vec![vec![(0.8, 1.2), (1.5, 2.5)], vec![(0.5, 0.5), (1.0, 7.0)]];
        let e = bar_chart_with_errors("t", "y", &["p", "q"], &series, Some(&errors));
        assert_eq!(e.matches(": 95 % CI ").count(), 4);
        assert!(e.contains("s2: 95 % CI 1 to 7"), "{e}");
        assert!(
            e.contains(">8</text>") && !plain.contains(">8</text>"),
            "{e}"
        );
        let p = paper_chart(
            "t",
            "%",
            &[
                PaperBar {
                    label: "a",
                    paper: Some(-30.0),
                    ours: -25.0,
                    within: Some(true),
                },
                PaperBar {
                    label: "b",
                    paper: None,
                    ours: 3.0,
                    within: None,
                },
            ],
        );
        assert!(p.contains("paper: -30") && p.contains("ours: -25"));
    }
}
