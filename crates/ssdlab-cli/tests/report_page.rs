//! The HTML report as a person sees it. A sweep of more schemes than the
//! charts have colours, on a workload that runs no GC beside one that
//! does, and a reproduction's scoreboard, made into pages; the pages are
//! checked as HTML (distinct series styles, absolute values where the
//! baseline is 0, no markup in titles, the paper's figures drawn beside
//! ours) and then looked at: headless Chromium (from the distribution's
//! packages) renders each page to PNG, and the screenshots are checked for
//! a readable title band. The screenshots stay in
//! `target/tmp/report-page/` for a person to look at. Without Chromium
//! (`chromium`, `chromium-browser`, `google-chrome`, or `SSDLAB_CHROMIUM`)
//! the screenshot part is skipped, saying so.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::*;

/// More schemes than the charts' eleven colours.
const SCHEMES: [(&str, &str); 13] = [
    ("greedy", ""),
    ("fifo", "gc.victim=\"fifo\""),
    ("random", "gc.victim=\"random\""),
    ("cost-benefit", "gc.victim=\"cost-benefit\""),
    ("d-choices", "gc.victim=\"d-choices\""),
    ("controller", "gc.migration=\"controller\""),
    ("baseline-p", "-"),
    ("twinblk", "-"),
    ("superpage", "-"),
    ("paragc", "-"),
    ("spd", "-"),
    ("spd-plus", "-"),
    ("fcfs", "sched.policy=\"fcfs\""),
];

fn out_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-page");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sweep(dir: &Path) -> PathBuf {
    let mut spec = String::from(
        "experiment = \"colours\"\npresets = [\"small\"]\n\
         workloads = [\"spd/hm_0\", \"spd/prn_0\"]\nprecondition = \"fill:0.94:0.8\"\n\
         limit = 6000\nbaseline = \"greedy\"\nseed = 1\n",
    );
    for (name, set) in SCHEMES {
        spec.push_str(&format!("[[scheme]]\nname = \"{name}\"\n"));
        match set {
            "-" => {}
            // the baseline also splits its latencies into parts
            "" => spec
                .push_str("set = [\"metrics.interval_ms=50.0\", \"metrics.attribution=true\"]\n"),
            s => spec.push_str(&format!("set = [{:?}, \"metrics.interval_ms=50.0\"]\n", s)),
        }
    }
    let path = dir.join("spec.toml");
    std::fs::write(&path, spec).unwrap();
    let out = dir.join("sweep");
    ok(&[
        "sweep",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    ok(&["report", out.to_str().unwrap()]);
    out.join("report.html")
}

fn reproduction(dir: &Path) -> PathBuf {
    let out = dir.join("hdi");
    ok(&[
        "reproduce",
        "hdi",
        "--quick",
        "--out",
        out.to_str().unwrap(),
    ]);
    ok(&["report", out.to_str().unwrap()]);
    out.join("report.html")
}

/// The values of attribute `attr` in every element `tag` of `svg`.
fn attrs<'a>(svg: &'a str, tag: &str, attr: &str) -> Vec<&'a str> {
    let open = format!("<{tag} ");
    let key = format!(" {attr}=\"");
    svg.match_indices(&open)
        .filter_map(|(i, _)| {
            let el = &svg[i..i + svg[i..].find('>').unwrap()];
            let k = el.find(&key)? + key.len();
            Some(&el[k..k + el[k..].find('"').unwrap()])
        })
        .collect()
}

fn check_sweep_html(html: &str) {
    // the title without markup
    let title = &html[html.find("<title>").unwrap() + 7..html.find("</title>").unwrap()];
    assert!(
        !title.contains('`') && !title.contains('<'),
        "title: {title}"
    );
    // every line of a latency chart has its own colour and dash pattern
    let figures: Vec<&str> = html.split("<figure>").skip(1).collect();
    let cdf = figures
        .iter()
        .find(|f| f.contains("write latency CDF"))
        .expect("a write latency CDF");
    let styles: BTreeSet<(String, String)> = cdf
        .match_indices("<path ")
        .map(|(i, _)| {
            let el = &cdf[i..i + cdf[i..].find("/>").unwrap()];
            let get = |k: &str| {
                el.find(k)
                    .map(|p| el[p + k.len()..].split('"').next().unwrap().to_string())
                    .unwrap_or_default()
            };
            (get("stroke=\""), get("stroke-dasharray=\""))
        })
        .collect();
    assert_eq!(styles.len(), SCHEMES.len(), "{styles:?}");
    // and every bar of the bar charts too (hatches past the colours)
    let bars = figures
        .iter()
        .find(|f| f.contains("Erases"))
        .expect("the erases chart");
    let fills: BTreeSet<&str> = attrs(bars, "rect", "fill")
        .into_iter()
        .filter(|f| *f != "white" && *f != "none")
        .collect();
    assert!(fills.len() >= SCHEMES.len(), "{fills:?}");
    // why requests were slow: the baseline's parts, as bars whose shares
    // sum to 100 %, for reads and writes, the other runs not listed
    let why = &html[html
        .find("<h2>Why requests were slow</h2>")
        .expect("the section")..];
    let why = &why[..why.find("<section").unwrap_or(why.len())];
    assert_eq!(
        why.matches("<h3>").count(),
        2,
        "one per workload's run: {why}"
    );
    for row in why.split("<tr><td>").skip(1) {
        let total: f64 = row
            .split("width:")
            .skip(1)
            .map(|w| w.split('%').next().unwrap().parse::<f64>().unwrap())
            .sum();
        assert!((total - 100.0).abs() < 0.05, "{total}: {row}");
    }
    assert!(
        why.contains("<td>read</td>") && why.contains("<td>write</td>"),
        "{why}"
    );
    // GC count: greedy runs no GC on hm_0, so the table is absolute, not
    // ratios of 0 to 0
    let gc = &html[html.find("<h3>GC count</h3>").unwrap()..];
    let gc = &gc[..gc.find("</table>").unwrap()];
    assert!(gc.contains("Absolute values"), "{gc}");
    assert!(!gc.contains("1.000 (+0.0%)"), "{gc}");
    // GC timelines are drawn where GC ran, and the all-zero one is named
    assert!(html.contains("GCs per interval"));
    assert!(html.contains("0 throughout in every run, not drawn"));
    // legends name the scheme, not the run's file name
    assert!(
        !html.contains(">colours__small"),
        "raw file names in a legend"
    );
}

fn check_reproduction_html(html: &str) {
    assert!(html.contains("The papers' figures beside ours"));
    assert!(
        html.contains("url(#ssdlab-paper)"),
        "paper values drawn as ghost bars"
    );
    assert!(html.contains("paper: -16.97"), "Fig. 10's first workload");
    assert!(html.contains("figures within tolerance"));
}

fn chromium() -> Option<String> {
    if let Ok(c) = std::env::var("SSDLAB_CHROMIUM") {
        return Some(c);
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(str::to_string)
}

/// The screenshot's pixels: (width, height, RGB rows).
fn decode(png_path: &Path) -> (usize, usize, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(png_path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let rgb: Vec<u8> = buf[..info.buffer_size()]
        .chunks(channels)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width as usize, info.height as usize, rgb)
}

fn luminance(p: &[u8]) -> f64 {
    let lin = |c: u8| {
        let c = c as f64 / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(p[0]) + 0.7152 * lin(p[1]) + 0.0722 * lin(p[2])
}

/// Renders `page` to `png` and checks it: the page is not blank, and the
/// title band holds light text on a dark ground with a contrast ratio of
/// at least 4.5 (WCAG AA) between its lightest and its commonest pixels.
fn screenshot(browser: &str, page: &Path, png_path: &Path) {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1400,3000",
        ])
        .arg(format!("--screenshot={}", png_path.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("starting the browser");
    assert!(
        out.status.success() && png_path.is_file(),
        "{browser} made no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, h, rgb) = decode(png_path);
    assert_eq!((w, h), (1400, 3000));
    let px = |x: usize, y: usize| &rgb[(y * w + x) * 3..(y * w + x) * 3 + 3];
    // the title band: the top 70 px
    let mut counts = std::collections::BTreeMap::new();
    let mut lightest: f64 = 0.0;
    for y in 0..70 {
        for x in 0..w {
            let p = px(x, y);
            *counts.entry([p[0], p[1], p[2]]).or_insert(0usize) += 1;
            lightest = lightest.max(luminance(p));
        }
    }
    let ground = counts.iter().max_by_key(|(_, n)| **n).unwrap().0;
    let ratio = (lightest + 0.05) / (luminance(ground) + 0.05);
    assert!(
        ratio >= 4.5,
        "title band contrast {ratio:.2} (ground {ground:?})"
    );
    // the page below is not blank: many distinct colours (charts)
    let distinct: BTreeSet<[u8; 3]> = (70..h)
        .step_by(3)
        .flat_map(|y| (0..w).step_by(3).map(move |x| (x, y)))
        .map(|(x, y)| {
            let p = px(x, y);
            [p[0], p[1], p[2]]
        })
        .collect();
    assert!(
        distinct.len() > 50,
        "{} colours: a blank page?",
        distinct.len()
    );
}

#[test]
fn report_pages_read_well() {
    let dir = out_dir();
    let sweep_page = sweep(&dir);
    check_sweep_html(&std::fs::read_to_string(&sweep_page).unwrap());
    let repro_page = reproduction(&dir);
    check_reproduction_html(&std::fs::read_to_string(&repro_page).unwrap());
    match chromium() {
        Some(browser) => {
            for (page, name) in [(&sweep_page, "sweep.png"), (&repro_page, "reproduce-hdi.png")] {
                screenshot(&browser, page, &dir.join(name));
            }
            eprintln!("screenshots of the report pages: {}", dir.display());
        }
        None => eprintln!(
            "note: no Chromium found (chromium, chromium-browser, google-chrome or SSDLAB_CHROMIUM): \
             the report pages were checked as HTML only, not rendered; install the distribution's \
             chromium package to look at them"
        ),
    }
}
