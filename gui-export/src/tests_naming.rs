//! How the views name and group what they show: `main` among the blame
//! points, "defined at" with the file, calling contexts grouped by call
//! path, macro temporaries out of the default views.

use crate::tests::fixture;
use crate::views::{self, Filters};
use blame_formats::results::*;

/// The fixture with a variable of `main`'s (which has exit variables, so
/// post never listed it among the implicit blame points).
fn with_main() -> Results {
    let mut r = fixture();
    let mut v = r.variables[0].clone();
    v.key.name = "s".into();
    v.key.function = "main".into();
    v.key.line = 26;
    r.variables.push(v);
    r
}

#[test]
fn main_is_a_blame_point_without_a_threshold() {
    let r = with_main();
    let v = views::blame_points(&r, &Filters::default(), None).unwrap();
    let points: Vec<(&str, &str)> = v
        .blame_points
        .iter()
        .map(|p| (p.function.as_str(), p.reason.as_str()))
        .collect();
    assert!(points.contains(&("main", "implicit")), "{points:?}");
    assert!(points.contains(&("foo", "implicit")), "{points:?}");
    let main = v
        .blame_points
        .iter()
        .find(|p| p.function == "main")
        .unwrap();
    assert_eq!(main.variables[0].name, "s");
    // The threshold still adds explicit ones: bar's loopC has 1 of 6 samples.
    let v = views::blame_points(&r, &Filters::default(), Some(10.0)).unwrap();
    assert!(v
        .blame_points
        .iter()
        .any(|p| p.function == "bar" && p.reason == "explicit"));
    let v = views::blame_points(&r, &Filters::default(), Some(50.0)).unwrap();
    assert!(!v.blame_points.iter().any(|p| p.function == "bar"));
}

#[test]
fn internal_names_are_macro_temporaries_and_reserved_identifiers() {
    for name in [
        "hypre__nx",
        "xxx__i",
        "__range1",
        "s._M_impl",
        "dom.m_x._M_impl._M_start",
        "std::__ioinit",
        "_Tmp",
        "grid.__pad",
    ] {
        assert!(views::is_internal_name(name), "{name}");
    }
    for name in [
        "x", "_x", "my_var", "s.grid.u", "_", "a_b_c", "ns::g", "this", "_m_x",
    ] {
        assert!(!views::is_internal_name(name), "{name}");
    }
}

/// The fixture plus a loop macro's temporary in foo and a padding field.
fn with_temporaries() -> Results {
    let mut r = fixture();
    for name in ["hypre__nx", "se.__pad"] {
        let mut v = r.variables[3].clone();
        v.key.name = name.into();
        v.key.function = "foo".into();
        r.variables.push(v);
    }
    let mut c = r.contexts[0].clone();
    c.variable = 4;
    r.contexts.push(c);
    r
}

#[test]
fn macro_temporaries_are_out_of_the_default_views() {
    let r = with_temporaries();
    let names = |f: &Filters| -> Vec<String> {
        views::by_variable(&r, f)
            .unwrap()
            .variables
            .into_iter()
            .map(|v| v.name)
            .collect()
    };
    let default = names(&Filters::default());
    assert!(!default.iter().any(|n| n.contains("__")), "{default:?}");
    let all = names(&Filters {
        all_variables: true,
        ..Default::default()
    });
    assert!(all.contains(&"hypre__nx".to_string()), "{all:?}");
    assert!(all.contains(&"se.__pad".to_string()), "{all:?}");
    // The data-structure tree, blame points and exports leave them out too.
    let tree = crate::trees::data_stacks(&r, 0);
    assert!(tree
        .iter()
        .all(|s| s.frames.iter().all(|f| !f.name.contains("__"))));
    assert!(crate::trees::data_stacks_with(&r, 0, true)
        .iter()
        .any(|s| s.frames.iter().any(|f| f.name == "foo::hypre__nx")));
    let points = views::blame_points(&r, &Filters::default(), None).unwrap();
    assert!(points
        .blame_points
        .iter()
        .flat_map(|p| &p.variables)
        .all(|v| !v.name.contains("__")));
    // Asked for by name, a temporary is still shown.
    let d = views::drilldown(
        &r,
        &Filters::default(),
        "hypre__nx",
        &mut crate::source::SourceCache::new(vec![]),
    )
    .unwrap();
    assert_eq!(d.variables.len(), 1);
}

/// The frames of a stack `main → foo → ... → inner` with `inner` at `line`.
fn stack(path: &[&str], line: u32) -> Vec<SymFrame> {
    path.iter()
        .enumerate()
        .map(|(i, f)| SymFrame {
            function: f.to_string(),
            file: "/src/fig3_14.c".into(),
            line: if i == 0 { line } else { 20 + i as u32 },
            column: 0,
            inlined: false,
        })
        .collect()
}

/// Many contexts of one variable: 30 lines of `bar` under foo and main on
/// two ranks (one call path), and 25 other call paths of one context each.
fn many_contexts() -> Results {
    let mut r = fixture();
    r.stacks.clear();
    r.frames.clear();
    r.contexts.clear();
    let add = |r: &mut Results, process: u32, path: &[&str], line: u32, samples: f64| {
        let stack = r.push_stack(process, stack(path, line), vec![1.0]);
        r.contexts.push(ContextBlame {
            variable: 0,
            process,
            stack,
            samples,
        });
    };
    for line in 0..30 {
        add(&mut r, line % 2, &["bar", "foo", "main"], 100 + line, 0.1);
    }
    for k in 0..25 {
        let callee = format!("helper{k:02}");
        add(&mut r, 0, &[callee.as_str(), "foo", "main"], 7, 0.01);
    }
    r
}

#[test]
fn contexts_are_grouped_by_call_path_and_the_list_is_capped() {
    let r = many_contexts();
    let mut sources = crate::source::SourceCache::new(vec![]);
    let d = views::drilldown(&r, &Filters::default(), "foo::se", &mut sources).unwrap();
    let se = &d.variables[0];
    assert_eq!(se.contexts, 55);
    let top = &se.paths[0];
    assert_eq!(top.functions, ["bar", "foo", "main"]);
    assert_eq!(top.contexts, 30);
    assert_eq!(top.ranks, [0, 1]);
    assert!((top.samples - 3.0).abs() < 1e-9);
    assert_eq!(top.frames.len(), 3, "the heaviest context's frames");
    // 26 call paths: 20 listed, the other 6 summed up.
    assert_eq!(se.paths.len(), views::DRILL_PATHS);
    let more = se.more.as_ref().unwrap();
    assert_eq!((more.paths, more.contexts), (6, 6));
    assert!((more.samples - 0.06).abs() < 1e-9);
    let text = crate::render::render_drilldown(&d, views::OutputFormat::Text);
    assert!(
        text.contains("55 calling contexts on 26 call paths"),
        "{text}"
    );
    assert!(
        text.contains("bar <- foo <- main  [30 contexts, ranks 0-1]"),
        "{text}"
    );
    assert!(
        text.contains("6 more contexts on 6 more call paths (0.06 samples"),
        "{text}"
    );
    assert_eq!(text.matches(" <- foo <- main  [").count(), 20, "{text}");
    // --top sets the cap.
    let d = views::drilldown(
        &r,
        &Filters {
            top: Some(1),
            ..Default::default()
        },
        "foo::se",
        &mut sources,
    )
    .unwrap();
    assert_eq!(d.variables[0].paths.len(), 1);
    assert_eq!(d.variables[0].more.as_ref().unwrap().contexts, 25);
    let csv = crate::render::render_drilldown(&d, views::OutputFormat::Csv);
    assert!(
        csv.contains("25 more contexts on 25 more call paths"),
        "{csv}"
    );
}

/// In the HTML report: "defined at" shows the file and line (base name,
/// the full path on hover); a drill-down groups contexts by call path and
/// caps the list; macro temporaries stay hidden until "all variables".
#[test]
fn the_html_report_names_files_groups_contexts_and_hides_temporaries() {
    use crate::tests_browser::{chromium, click_text, js, launch, open, screenshot};
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut r = many_contexts();
    let mut temp = r.variables[3].clone();
    temp.key.name = "hypre__nx".into();
    r.variables.push(temp);
    let html =
        crate::html::html_with_sources(&r, None, &mut crate::source::SourceCache::new(vec![]))
            .unwrap();
    let browser = launch(chrome, &dir.path().join("profile"));
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(std::time::Duration::from_secs(20));
    open(&tab, &html, dir.path());
    tab.wait_for_element(".row").unwrap();

    // Defined at: function, file base name and line; the full path on hover.
    let cell = js(
        &tab,
        "(() => { const c = [...document.querySelectorAll('.row')].find(r => r.firstChild.textContent === 'se').children[3]; return c.textContent + '|' + c.title; })()",
    );
    assert_eq!(cell, "foo fig3_14.c:19|/src/fig3_14.c:19");

    // The temporary is hidden, then shown with the box.
    let count = || js(&tab, "document.getElementById('count').textContent");
    assert_eq!(count(), "4 of 4 variables");
    js(
        &tab,
        "(() => { const b = document.getElementById('fall'); b.checked = true; b.dispatchEvent(new Event('change')); })()",
    );
    assert_eq!(count(), "5 of 5 variables");

    // Drill-down: 55 contexts on 26 call paths, 20 boxes, the rest summed up.
    click_text(&tab, ".row", "se");
    let right = js(&tab, "document.getElementById('right').textContent");
    let right = right.as_str().unwrap();
    assert!(right.contains("defined in foo fig3_14.c:19"), "{right}");
    assert!(
        right.contains("Calling contexts (55 on 26 call paths)"),
        "{right}"
    );
    assert!(right.contains("30 contexts, ranks 0-1"), "{right}");
    assert!(right.contains("bar ← foo ← main"), "{right}");
    assert!(
        right.contains("6 more contexts on 6 more call paths (0.06 samples"),
        "{right}"
    );
    assert_eq!(
        js(&tab, "document.querySelectorAll('#right .ctx').length"),
        20
    );
    screenshot(&tab, "html-grouped-contexts.png");
    click_text(&tab, "#right .more", "show all");
    assert_eq!(
        js(&tab, "document.querySelectorAll('#right .ctx').length"),
        26
    );
}

#[test]
fn call_paths_of_a_drilldown_name_functions_as_the_source_does() {
    let mut r = many_contexts();
    let process = 0;
    let stack = r.push_stack(
        process,
        stack(&["_ZN6System6forcesEv", "foo", "main"], 9),
        vec![1.0],
    );
    r.contexts.push(ContextBlame {
        variable: 0,
        process,
        stack,
        samples: 50.0,
    });
    let mut sources = crate::source::SourceCache::new(vec![]);
    let d = views::drilldown(&r, &Filters::default(), "foo::se", &mut sources).unwrap();
    let top = &d.variables[0].paths[0];
    assert_eq!(top.functions, ["System::forces()", "foo", "main"]);
    assert_eq!(top.frames[0].function, "System::forces()");
}
