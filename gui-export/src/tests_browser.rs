//! The HTML report tested as a person uses it: headless Chromium (Debian's
//! `chromium`, driven over the DevTools protocol) opens the file from disk,
//! and the test clicks through the flat view, expands a variable into its
//! fields, opens a drill-down and reads what is on screen. Screenshots go to
//! `target/test-artifacts/`. Outside CI a missing Chromium skips with a
//! printed reason; under `CI=true` it fails.

use crate::tests::fixture;
use blame_formats::results::{Results, SymFrame, VariableBlame};
use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, LaunchOptions, Tab};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub(crate) fn chromium() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("CHROMIUM").unwrap_or("/usr/bin/chromium".into()));
    if path.exists() {
        return Some(path);
    }
    let reason = format!("{} not found: run scripts/deps.sh", path.display());
    assert!(std::env::var("CI").is_err(), "{reason}");
    eprintln!("skipping: {reason}");
    None
}

pub(crate) fn launch(path: PathBuf, profile: &Path) -> Browser {
    let args: Vec<&OsStr> = [
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    Browser::new(
        LaunchOptions::default_builder()
            .path(Some(path))
            .headless(true)
            .sandbox(false)
            .window_size(Some((1400, 900)))
            .user_data_dir(Some(profile.to_path_buf()))
            .args(args)
            .idle_browser_timeout(Duration::from_secs(120))
            .build()
            .expect("launch options"),
    )
    .expect("chromium starts")
}

fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/test-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) fn screenshot(tab: &Tab, name: &str) {
    let png = tab
        .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
        .expect("screenshot");
    std::fs::write(artifacts().join(name), png).unwrap();
}

pub(crate) fn js(tab: &Tab, expr: &str) -> serde_json::Value {
    tab.evaluate(expr, false)
        .unwrap_or_else(|e| panic!("{expr}: {e}"))
        .value
        .unwrap_or(serde_json::Value::Null)
}

pub(crate) fn open(tab: &Tab, html: &str, dir: &Path) {
    let file = dir.join("report.html");
    std::fs::write(&file, html).unwrap();
    tab.navigate_to(&format!("file://{}", file.display()))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
}

/// Clicks the first element matching `selector` whose text contains `text`.
pub(crate) fn click_text(tab: &Tab, selector: &str, text: &str) {
    let clicked = js(
        tab,
        &format!(
            "(() => {{ const e = [...document.querySelectorAll({sel})].find(e => e.textContent.includes({text})); if (!e) return false; e.click(); return true; }})()",
            sel = serde_json::to_string(selector).unwrap(),
            text = serde_json::to_string(text).unwrap()
        ),
    );
    assert_eq!(clicked, true, "no {selector} containing {text:?}");
}

#[test]
fn a_person_clicks_through_the_report() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("evil.c");
    std::fs::write(
        &src,
        "int x;\n  x = 1; // </script><script>alert(1)</script>\n",
    )
    .unwrap();
    let mut r = fixture();
    for st in r.stacks.clone() {
        let f = &mut r.frames[st.frames[0] as usize];
        f.file = src.display().to_string();
        f.line = 2;
    }
    r.variables[3].key.name = "<img src=x onerror=alert(2)>".into();
    let html = crate::html::html_with_sources(
        &r,
        None,
        &mut crate::source::SourceCache::new(vec![dir.path().to_path_buf()]),
    )
    .unwrap();

    let browser = launch(chrome, &dir.path().join("profile"));
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(20));
    open(&tab, &html, dir.path());

    // Flat view: rows sorted by samples, the run summary, rank statistics.
    tab.wait_for_element(".row").unwrap();
    let first = js(&tab, "document.querySelector('.row').textContent");
    assert!(first.as_str().unwrap().starts_with("se"), "{first}");
    let summary = js(&tab, "document.getElementById('summary').textContent");
    assert!(
        summary
            .as_str()
            .unwrap()
            .contains("6 samples, 2 process(es)"),
        "{summary}"
    );
    // The hostile name is a row's text, not an element.
    assert_eq!(js(&tab, "document.querySelectorAll('img').length"), 0);
    assert_eq!(js(&tab, "document.scripts.length"), 2);
    click_text(&tab, ".row", "<img src=x onerror=alert(2)>");
    screenshot(&tab, "html-flat-view.png");

    // Drill-down: the context's frames and the source line, as text.
    click_text(&tab, ".row", "se.sX");
    let right = js(&tab, "document.getElementById('right').textContent");
    let right = right.as_str().unwrap();
    assert!(right.contains("se.sX [StructEx]"), "{right}");
    assert!(right.contains("per rank: min 33.3%"), "{right}");
    assert!(right.contains("bar  evil.c:2"), "{right}");
    let src_line = js(&tab, "document.querySelector('.src').textContent");
    assert_eq!(
        src_line.as_str().unwrap().trim(),
        "x = 1; // </script><script>alert(1)</script>"
    );
    screenshot(&tab, "html-drilldown.png");

    // Filters: type regex and rank.
    js(
        &tab,
        "(() => { const f = document.getElementById('ffunc'); f.value = '^bar$'; f.dispatchEvent(new Event('input')); })()",
    );
    assert_eq!(
        js(&tab, "document.getElementById('count').textContent"),
        "1 of 4 variables"
    );
    js(
        &tab,
        "(() => { const f = document.getElementById('ffunc'); f.value = ''; f.dispatchEvent(new Event('input')); const r = document.getElementById('frank'); r.value = '1'; r.dispatchEvent(new Event('change')); })()",
    );
    assert_eq!(
        js(&tab, "document.getElementById('count').textContent"),
        "3 of 4 variables",
        "rank 1 never blamed the renamed loopC"
    );

    // Data structures: expand `foo::se` into its fields, types in brackets.
    click_text(&tab, "#tabs button", "Data structures");
    click_text(&tab, ".lbl", "foo::se");
    let tree = js(&tab, "document.querySelector('.tree').innerText");
    let tree = tree.as_str().unwrap();
    assert!(tree.contains("sY [StructEx]"), "{tree}");
    assert!(tree.contains("sX [StructEx]"), "{tree}");
    screenshot(&tab, "html-data-structures.png");

    // Code tree and blame points render from the same file.
    click_text(&tab, "#tabs button", "Code");
    let code = js(&tab, "document.querySelector('.tree').innerText");
    assert!(code.as_str().unwrap().contains("main"), "{code}");
    click_text(&tab, "#tabs button", "Blame points");
    let points = js(&tab, "document.querySelector('.tree').innerText");
    assert!(points.as_str().unwrap().contains("foo"), "{points}");
}

/// 100,000 variables-in-context rows: the list is virtualized, so the page
/// keeps a few dozen rows in the DOM and filtering stays interactive. The
/// timings are printed (and recorded in BENCHMARKS.md), not asserted.
#[test]
fn a_hundred_thousand_rows_stay_virtualized() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut r: Results = fixture();
    let template = r.variables[0].clone();
    r.variables = (0..100_000)
        .map(|i| {
            let mut v: VariableBlame = template.clone();
            v.key.name = format!("field_{i}.x");
            v.key.function = format!("f{}", i % 977);
            for p in &mut v.values {
                p.inclusive = 1.0 + (i % 13) as f64;
            }
            v
        })
        .collect();
    r.contexts.clear();
    let started = std::time::Instant::now();
    let html = crate::html::html(&r, None).unwrap();
    let generate = started.elapsed();

    let browser = launch(chrome, &dir.path().join("profile"));
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(60));
    let started = std::time::Instant::now();
    open(&tab, &html, dir.path());
    tab.wait_for_element(".row").unwrap();
    let load = started.elapsed();
    let in_dom = js(&tab, "document.querySelectorAll('.row').length");
    let in_dom = in_dom.as_u64().unwrap();
    assert!(
        (1..200).contains(&in_dom),
        "{in_dom} rows in the DOM: not virtualized"
    );
    let filter_ms = js(
        &tab,
        "(() => { const t = performance.now(); const f = document.getElementById('search'); f.value = 'field_9'; f.dispatchEvent(new Event('input')); return performance.now() - t; })()",
    );
    assert_eq!(
        js(&tab, "document.getElementById('count').textContent"),
        "11111 of 100000 variables"
    );
    let scroll_ms = js(
        &tab,
        "(() => { const t = performance.now(); const s = document.getElementById('scroller'); s.scrollTop = 100000; s.dispatchEvent(new Event('scroll')); return performance.now() - t; })()",
    );
    screenshot(&tab, "html-100k-rows.png");
    println!(
        "html 100k rows: {} bytes, generated in {:.0} ms, loaded and first rows painted in {:.0} ms, filter {:.0} ms, scroll repaint {:.1} ms, {in_dom} rows in DOM",
        html.len(),
        generate.as_secs_f64() * 1e3,
        load.as_secs_f64() * 1e3,
        filter_ms.as_f64().unwrap_or(f64::NAN),
        scroll_ms.as_f64().unwrap_or(f64::NAN)
    );
}

/// The variables table fits its content (no cell cut: "heap-via-pointer",
/// long "defined at" texts) and shows the numbers of the text report; the
/// Code tab opens at `main`, expanded two levels.
#[test]
fn columns_fit_and_the_code_tab_opens_at_main() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut r = crate::tests_columns::list_and_grid();
    for v in &mut r.variables {
        if v.key.name == "p" || v.key.name == "plist" {
            v.key.kind = "heap-via-pointer".into();
        }
        if v.key.name == "r" {
            v.key.function = "accumulate_particle_contributions_over_the_list".into();
        }
    }
    let frame = |f: &str, line: u32| SymFrame {
        function: f.into(),
        file: "/src/list_grid.c".into(),
        line,
        column: 0,
        inlined: false,
    };
    for p in 0..2 {
        for (leaf, n) in [("update", 6.0), ("compute_rhs", 3.0)] {
            let frames = vec![
                frame(leaf, 10),
                frame("solve", 20),
                frame("main", 30),
                frame("__libc_start_call_main", 0),
                frame("_start", 0),
            ];
            r.push_stack(p, frames, vec![n]);
        }
    }
    let html = crate::html::html(&r, None).unwrap();
    let browser = launch(chrome, &dir.path().join("profile"));
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(20));
    open(&tab, &html, dir.path());
    tab.wait_for_element(".row").unwrap();

    // No cell of the header or of a row is cut.
    let cut = js(
        &tab,
        "JSON.stringify([...document.querySelectorAll('.thead div, .row div')].filter(d => d.scrollWidth > d.clientWidth + 1).map(d => d.textContent))",
    );
    assert_eq!(cut, "[]", "cells cut short");
    // The header's columns are the rows' columns.
    let aligned = js(
        &tab,
        "(() => { const h = [...document.querySelector('.thead').children].map(c => c.getBoundingClientRect().left), r = [...document.querySelector('.row').children].map(c => c.getBoundingClientRect().left); return h.every((x, i) => Math.abs(x - r[i]) < 1); })()",
    );
    assert_eq!(aligned, true, "header and rows aligned");
    screenshot(&tab, "html-columns.png");

    // The page's cells are the text report's, row by row.
    let text = crate::render::render_variables(
        &crate::views::by_variable(&r, &crate::views::Filters::default()).unwrap(),
        crate::views::OutputFormat::Text,
    );
    let shown = js(
        &tab,
        "JSON.stringify([...document.querySelectorAll('.row')].map(r => [...r.children].slice(0, 8).map(c => c.textContent)))",
    );
    let shown: Vec<Vec<String>> = serde_json::from_str(shown.as_str().unwrap()).unwrap();
    let columns = regex::Regex::new(r"\s{2,}").unwrap();
    for row in &shown {
        let line = text
            .lines()
            .find(|l| l.split("  ").next() == Some(row[0].as_str()))
            .unwrap_or_else(|| panic!("{} not in\n{text}", row[0]));
        let cells: Vec<&str> = columns.split(line.trim()).collect();
        // (The page marks derived scalars in their kind; text lists them apart.)
        assert_eq!(cells[4..8], row[4..8], "{line}");
        assert_eq!(cells[3], row[3], "{line}");
    }
    assert_eq!(shown.len(), 12);

    // Code: main first, open, its callees open, theirs shown closed.
    click_text(&tab, "#tabs button", "Code");
    let top = js(
        &tab,
        "document.querySelector('.tree > .node > .lbl').textContent",
    );
    assert!(top.as_str().unwrap().starts_with("▾ main"), "{top}");
    let visible = js(
        &tab,
        "JSON.stringify([...document.querySelectorAll('.tree > .node:first-child .lbl')].filter(l => l.offsetParent !== null).map(l => l.textContent.split('  (self')[0]))",
    );
    let visible: Vec<String> = serde_json::from_str(visible.as_str().unwrap()).unwrap();
    assert_eq!(
        visible,
        ["▾ main", "▾ solve", "  update", "  compute_rhs"],
        "main expanded two levels"
    );
    screenshot(&tab, "html-code-tab.png");
}
