//! One results file, every format: the by-variable columns (`samples` of
//! explicit blame, `explicit %`, `total %`, `excl %`) carry the same names,
//! order and numbers in text, CSV, JSON and the HTML page's data; and the
//! data-tree exports weigh each variable as the report does, children never
//! adding up to more than their parent (nested structs, swapped buffers,
//! aliases).

use crate::export::{export, ExportFormat};
use crate::render::{render_variables, VARIABLE_COLUMNS};
use crate::trees::TreeKind;
use crate::views::{self, Filters, OutputFormat};
use blame_formats::results::*;
use blame_formats::stream::{EventDesc, Sampling};
use std::collections::BTreeMap;

fn key(name: &str, function: &str, type_name: &str, scalar: bool) -> VariableKey {
    VariableKey {
        name: name.into(),
        function: function.into(),
        file: "/src/list_grid.c".into(),
        line: 40,
        type_name: type_name.into(),
        kind: if name.contains('.') { "field" } else { "local" }.into(),
        event: 0,
        scalar,
    }
}

/// (total, explicit, exclusive) blame per rank.
fn values(per_rank: &[(f64, f64, f64)]) -> Vec<ProcessValue> {
    per_rank
        .iter()
        .enumerate()
        .map(|(p, &(inclusive, explicit, exclusive))| ProcessValue {
            process: p as u32,
            inclusive,
            exclusive,
            explicit,
            inherited: 0.0,
            methods: vec![],
        })
        .collect()
}

/// Two ranks of 100 samples each. `s` holds a grid whose arrays `u` and
/// `rhs` are their own samples (nested structs) and a residual computed
/// from them in the same samples (a derived scalar); `b` holds two buffers
/// `cur` and `next` swapped every step, so the same samples blame both
/// (swapped buffers); `p` and `plist` are two names of one list (aliases);
/// `r` is a derived scalar. Explicit, total and exclusive blame all differ.
pub(crate) fn list_and_grid() -> Results {
    let process = |rank: u32| ProcessInfo {
        rank: Some(rank),
        pid: 200 + rank,
        host: "h".into(),
        command: vec!["./list_grid".into()].into(),
        launcher: false,
        samples: vec![100.0],
        lost: 0,
    };
    let v = |name: &str, ty: &str, scalar: bool, per_rank: &[(f64, f64, f64)]| VariableBlame {
        key: key(name, "main", ty, scalar),
        values: values(per_rank),
    };
    let mut variables = vec![
        v("s", "State", false, &[(90.0, 85.0, 0.0), (88.0, 84.0, 0.0)]),
        v(
            "s.grid",
            "Grid",
            false,
            &[(60.0, 57.0, 0.0), (59.0, 58.0, 0.0)],
        ),
        v(
            "s.grid.u",
            "double *",
            false,
            &[(41.0, 40.0, 3.0), (40.0, 40.0, 2.0)],
        ),
        v(
            "s.grid.rhs",
            "double *",
            false,
            &[(19.0, 17.0, 1.0), (19.0, 18.0, 0.0)],
        ),
        // Computed from the grid in the same samples: a derived scalar.
        VariableBlame {
            key: key("s.residual", "main", "double", true),
            values: [0, 1]
                .map(|process| ProcessValue {
                    process,
                    inclusive: 85.0,
                    exclusive: 0.0,
                    explicit: 80.0,
                    inherited: 60.0,
                    methods: vec![],
                })
                .to_vec(),
        },
        v(
            "b",
            "Buffers",
            false,
            &[(30.0, 28.0, 0.0), (29.0, 26.0, 0.0)],
        ),
        v(
            "b.cur",
            "double *",
            false,
            &[(30.0, 28.0, 0.0), (29.0, 26.0, 0.0)],
        ),
        v(
            "b.next",
            "double *",
            false,
            &[(30.0, 28.0, 0.0), (29.0, 26.0, 0.0)],
        ),
        v(
            "p",
            "struct node *",
            false,
            &[(9.0, 7.0, 1.0), (11.0, 9.0, 2.0)],
        ),
        v(
            "plist",
            "struct node *",
            false,
            &[(9.0, 7.0, 0.0), (11.0, 9.0, 0.0)],
        ),
        v("p.x", "double", true, &[(5.0, 4.0, 0.0), (6.0, 5.0, 0.0)]),
        v("r", "double", true, &[(70.0, 20.0, 5.0), (72.0, 22.0, 6.0)]),
    ];
    variables.sort_by(|a, b| a.key.cmp(&b.key));
    Results {
        header: ResultsHeader {
            producer: "test".into(),
            events: vec![EventDesc {
                name: "cpu-clock".into(),
                sampling: Sampling::Frequency(1000),
                unit: "ns".into(),
                memory: false,
            }],
            processes: vec![process(0), process(1)],
            shard: None,
            blame_points: vec!["main".into()],
            coverage: vec![],
            provenance: None,
            damage: vec![],
            summed: None,
        },
        variables,
        ..Default::default()
    }
}

/// A text table's rows as cells: columns are two or more spaces apart.
fn text_rows(text: &str) -> Vec<Vec<String>> {
    let re = regex::Regex::new(r"\s{2,}").unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| re.split(l.trim()).map(str::to_string).collect())
        .collect()
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        format!("{x:.2}")
    }
}

fn pct(x: f64) -> String {
    format!("{x:.1}%")
}

/// name → [samples, explicit %, total %, excl %] as a report shows them.
type Columns = BTreeMap<String, [String; 4]>;

fn from_json_rows(rows: &[serde_json::Value]) -> Columns {
    rows.iter()
        .map(|v| {
            let f = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"));
            (
                v["name"].as_str().unwrap().to_string(),
                [
                    num(f("samples")),
                    pct(f("explicit_percent")),
                    pct(f("total_percent")),
                    pct(f("exclusive_percent")),
                ],
            )
        })
        .collect()
}

fn from_table(header: &[String], rows: &[Vec<String>]) -> Columns {
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let cols = VARIABLE_COLUMNS.map(at);
    rows.iter()
        .map(|r| (r[0].clone(), cols.map(|c| r[c].clone())))
        .collect()
}

#[test]
fn every_format_shows_the_same_columns_and_numbers() {
    let r = list_and_grid();
    let view = views::by_variable(&r, &Filters::default()).unwrap();

    // Text: the two sections (data structures, derived scalars) share the header.
    let text = render_variables(&view, OutputFormat::Text);
    let rows = text_rows(&text);
    let header = rows[0].clone();
    assert_eq!(&header[4..8], VARIABLE_COLUMNS, "{text}");
    let body: Vec<Vec<String>> = rows.into_iter().filter(|r| *r != header).collect();
    let from_text = from_table(&header, &body);

    // CSV: the same header, the same cells.
    let csv = render_variables(&view, OutputFormat::Csv);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let csv_header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(csv_header, header, "CSV and text headers");
    let csv_rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    let from_csv = from_table(&csv_header, &csv_rows);

    // JSON: `samples`, `explicit_percent`, `total_percent`, `exclusive_percent`, in that order.
    let json = render_variables(&view, OutputFormat::Json);
    let first_row = &json[json.find("\"variables\"").unwrap()..];
    let order: Vec<usize> = [
        "\"samples\"",
        "\"explicit_percent\"",
        "\"total_percent\"",
        "\"exclusive_percent\"",
    ]
    .iter()
    .map(|k| first_row.find(k).unwrap())
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{json}");
    let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
    let from_json = from_json_rows(parsed["variables"].as_array().unwrap());

    // HTML: the page's data carries the same keys and values, its table the same headers.
    let html = crate::html::html(&r, None).unwrap();
    let data = html
        .split("<script id=\"blame-data\" type=\"application/json\">")
        .nth(1)
        .unwrap()
        .split("</script>")
        .next()
        .unwrap();
    let page: serde_json::Value = serde_json::from_str(data).unwrap();
    let from_html = from_json_rows(page["variables"].as_array().unwrap());
    let cols = format!(
        "[\"samples\", \"{}\"], [\"explicit_percent\", \"{}\"], [\"total_percent\", \"{}\"], [\"exclusive_percent\", \"{}\"]",
        VARIABLE_COLUMNS[0], VARIABLE_COLUMNS[1], VARIABLE_COLUMNS[2], VARIABLE_COLUMNS[3]
    );
    assert!(html.contains(&cols), "the page's columns: {cols}");

    assert_eq!(from_text.len(), 12, "{text}");
    assert_eq!(from_csv, from_text, "CSV against text");
    assert_eq!(from_json, from_text, "JSON against text");
    assert_eq!(from_html, from_text, "HTML against text");
    // The numbers are those of the results: `samples` is explicit blame.
    assert_eq!(
        from_text["s.grid.u"],
        ["80", "40.0%", "40.5%", "2.5%"].map(String::from)
    );
    assert_eq!(
        from_text["r"],
        ["42", "21.0%", "71.0%", "5.5%"].map(String::from)
    );
}

/// Each variable node of a data-tree export, summed over ranks, from
/// folded stacks (`rank N;root;field... weight`).
fn folded_nodes(folded: &str) -> BTreeMap<Vec<String>, f64> {
    let mut nodes: BTreeMap<Vec<String>, f64> = BTreeMap::new();
    for line in folded.lines() {
        let (stack, w) = line.rsplit_once(' ').unwrap();
        let w: f64 = w.parse().unwrap();
        let frames: Vec<String> = stack.split(';').skip(1).map(str::to_string).collect();
        for n in 1..=frames.len() {
            *nodes.entry(frames[..n].to_vec()).or_default() += w;
        }
    }
    nodes
}

/// The same from a speedscope export (a profile per rank).
fn speedscope_nodes(doc: &serde_json::Value) -> BTreeMap<Vec<String>, f64> {
    let names: Vec<String> = doc["shared"]["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect();
    let mut nodes: BTreeMap<Vec<String>, f64> = BTreeMap::new();
    for p in doc["profiles"].as_array().unwrap() {
        for (s, w) in p["samples"]
            .as_array()
            .unwrap()
            .iter()
            .zip(p["weights"].as_array().unwrap())
        {
            let frames: Vec<String> = s
                .as_array()
                .unwrap()
                .iter()
                .map(|i| names[i.as_u64().unwrap() as usize].clone())
                .collect();
            for n in 1..=frames.len() {
                *nodes.entry(frames[..n].to_vec()).or_default() += w.as_f64().unwrap();
            }
        }
    }
    nodes
}

#[test]
fn data_tree_exports_weigh_each_variable_as_the_report_does() {
    let r = list_and_grid();
    let view = views::by_variable(&r, &Filters::default()).unwrap();
    let report: BTreeMap<Vec<String>, f64> = view
        .variables
        .iter()
        .map(|v| {
            let mut path: Vec<String> = v.name.split('.').map(str::to_string).collect();
            path[0] = format!("{}::{}", v.function, path[0]);
            (path, v.explicit)
        })
        .collect();
    let folded =
        String::from_utf8(export(&r, ExportFormat::Folded, TreeKind::Data, None).unwrap()).unwrap();
    let speedscope: serde_json::Value = serde_json::from_slice(
        &export(&r, ExportFormat::Speedscope, TreeKind::Data, None).unwrap(),
    )
    .unwrap();
    for (what, nodes) in [
        ("folded", folded_nodes(&folded)),
        ("speedscope", speedscope_nodes(&speedscope)),
    ] {
        let at = |path: &[&str]| {
            nodes
                .get(&path.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .copied()
                .unwrap_or(0.0)
        };
        for (path, &want) in &report {
            let got = nodes.get(path).copied().unwrap_or(0.0);
            // Never more than the report; children never more than their parent.
            assert!(got <= want + 1e-9, "{what} {path:?}: {got} > report {want}");
            let kids: f64 = nodes
                .iter()
                .filter(|(k, _)| k.len() == path.len() + 1 && k.starts_with(path))
                .map(|(_, w)| w)
                .sum();
            assert!(
                kids <= got + 1e-9,
                "{what} {path:?}: children {kids} > {got}"
            );
            // Top-level variables (aliases among them) and fields whose
            // samples are their own weigh exactly their report count.
            let shared = path.len() == 2 && (path[0] == "main::b" || path[1] == "residual");
            if !shared {
                assert!(
                    (got - want).abs() <= 0.01 * want,
                    "{what} {path:?}: {got}, report {want}\n{folded}"
                );
            }
        }
        // Nested structs: the grid's arrays are its own samples, and the
        // grid keeps its width beside the residual computed from it, which
        // has what the grid leaves of s (169 - 115).
        assert_eq!(at(&["main::s", "grid"]), 115.0, "{what}");
        assert_eq!(at(&["main::s", "residual"]), 54.0, "{what}");
        assert_eq!(at(&["main::s", "grid", "u"]), 80.0, "{what}");
        assert_eq!(at(&["main::s", "grid", "rhs"]), 35.0, "{what}");
        // Aliases: each name of the list is a root of its own, at its count.
        assert_eq!(at(&["main::p"]), 16.0, "{what}");
        assert_eq!(at(&["main::plist"]), 16.0, "{what}");
        // Swapped buffers: the same samples blame `cur` and `next` (54 +
        // 54 > 54): they share b's width, evenly.
        let (cur, next) = (at(&["main::b", "cur"]), at(&["main::b", "next"]));
        assert_eq!((cur, next), (27.0, 27.0), "{what}");
        assert_eq!(at(&["main::b"]), 54.0, "{what}");
    }
}

#[test]
fn an_ambiguous_variable_name_lists_the_candidates() {
    let mut r = list_and_grid();
    let mut other = r.variables[0].clone();
    other.key.name = "p".into();
    other.key.function = "sum".into();
    r.variables.push(other);
    r.variables.sort_by(|a, b| a.key.cmp(&b.key));
    let mut sources = crate::source::SourceCache::new(vec![]);
    let e = views::drilldown(&r, &Filters::default(), "p", &mut sources)
        .expect_err("ambiguous")
        .to_string();
    assert!(e.contains("names 2 variables"), "{e}");
    assert!(e.contains("main::p (struct node *"), "{e}");
    assert!(e.contains("sum::p ("), "{e}");
    // Either, named with its function.
    let d = views::drilldown(&r, &Filters::default(), "sum::p", &mut sources).unwrap();
    assert_eq!(d.variables.len(), 1);
    assert_eq!(d.variables[0].variable.function, "sum");
}

/// Swapped buffers caught mid-swap: `cur` is blamed in both calling contexts
/// of `b`, `next` only in the first. The samples of the first context blame
/// both, and are split between them there; the second context's are
/// `cur`'s alone: cur 30 + 40, next 30 (a proportional share of the
/// overlap would give 62.5 and 37.5).
#[test]
fn shared_samples_are_split_context_by_context() {
    let mut r = list_and_grid();
    r.header.processes.truncate(1);
    let only = |name: &str, blame: f64| VariableBlame {
        key: key(name, "main", "double *", false),
        values: values(&[(blame, blame, 0.0)]),
    };
    r.variables = vec![only("b", 100.0), only("b.cur", 100.0), only("b.next", 60.0)];
    r.variables.sort_by(|a, b| a.key.cmp(&b.key));
    let frame = |line: u32| SymFrame {
        function: "main".into(),
        file: "/src/list_grid.c".into(),
        line,
        column: 0,
        inlined: false,
    };
    r.push_stack(0, vec![frame(10)], vec![60.0]);
    r.push_stack(0, vec![frame(20)], vec![40.0]);
    let index = |name: &str| r.variables.iter().position(|v| v.key.name == name).unwrap() as u32;
    r.contexts = [
        ("b", 0, 60.0),
        ("b", 1, 40.0),
        ("b.cur", 0, 60.0),
        ("b.cur", 1, 40.0),
        ("b.next", 0, 60.0),
    ]
    .iter()
    .map(|&(name, stack, samples)| ContextBlame {
        variable: index(name),
        process: 0,
        stack,
        samples,
    })
    .collect();
    let folded =
        String::from_utf8(export(&r, ExportFormat::Folded, TreeKind::Data, None).unwrap()).unwrap();
    assert_eq!(folded, "main::b;cur 70\nmain::b;next 30\n");
}
