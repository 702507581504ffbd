//! Exports and views over a small hand-built result (the Figure 3.14 run:
//! three samples in `bar` under `main → foo`, two ranks).

use crate::export::{export, pprof, ExportFormat};
use crate::trees::{self, TreeKind};
use crate::views::{self, Filters};
use blame_formats::results::*;
use blame_formats::stream::{EventDesc, Sampling};
use prost::Message;
use std::io::Read;

fn frame(function: &str, line: u32) -> SymFrame {
    SymFrame {
        function: function.into(),
        file: "/src/fig3_14.c".into(),
        line,
        column: 0,
        inlined: false,
    }
}

fn key(name: &str, function: &str, kind: &str) -> VariableKey {
    VariableKey {
        name: name.into(),
        function: function.into(),
        file: "/src/fig3_14.c".into(),
        line: 19,
        type_name: "StructEx".into(),
        kind: kind.into(),
        event: 0,
        scalar: false,
    }
}

/// A value whose blame is all explicit (data flow), as a loop-free kernel's.
fn value(process: u32, inclusive: f64) -> ProcessValue {
    ProcessValue {
        process,
        inclusive,
        exclusive: 0.0,
        methods: vec![],
        explicit: inclusive,
        inherited: 0.0,
    }
}

pub(crate) fn fixture() -> Results {
    let process = |rank: u32| ProcessInfo {
        rank: Some(rank),
        pid: 100 + rank,
        host: "h".into(),
        command: vec!["./fig3_14".into()].into(),
        launcher: false,
        samples: vec![3.0],
        lost: 0,
    };
    let mut r = Results {
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
            blame_points: vec!["foo".into()],
            coverage: vec![],
            provenance: None,
            damage: vec![],
            summed: None,
        },
        variables: vec![
            VariableBlame {
                key: key("se", "foo", "local"),
                values: vec![value(0, 3.0), value(1, 3.0)],
            },
            VariableBlame {
                key: key("se.sX", "foo", "field"),
                values: vec![value(0, 2.0), value(1, 1.0)],
            },
            VariableBlame {
                key: key("se.sY", "foo", "field"),
                values: vec![value(0, 2.0), value(1, 2.0)],
            },
            VariableBlame {
                key: key("loopC", "bar", "local"),
                values: vec![value(0, 1.0)],
            },
        ],
        functions: vec![],
        ..Default::default()
    };
    for (p, l) in [(0, 9), (0, 12), (0, 14), (1, 9), (1, 12), (1, 14)] {
        let frames = vec![frame("bar", l), frame("foo", 22), frame("main", 27)];
        r.push_stack(p, frames, vec![1.0]);
    }
    r.contexts = vec![
        ContextBlame {
            variable: r.variable_index(&key("loopC", "bar", "local")).unwrap(),
            process: 0,
            stack: 0,
            samples: 1.0,
        },
        ContextBlame {
            variable: r.variable_index(&key("se.sX", "foo", "field")).unwrap(),
            process: 0,
            stack: 1,
            samples: 1.0,
        },
    ];
    r
}

#[test]
fn by_variable_has_rank_statistics_and_percentages_of_the_run() {
    let v = views::by_variable(&fixture(), &Filters::default()).unwrap();
    assert_eq!(v.total_samples, 6.0);
    let names: Vec<&str> = v.variables.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["se", "se.sY", "se.sX", "loopC"]);
    let sx = &v.variables[2];
    assert_eq!(sx.percent, 50.0);
    assert_eq!((sx.ranks.min, sx.ranks.max), (100.0 / 3.0, 200.0 / 3.0));
    assert!((sx.ranks.imbalance - (200.0 / 3.0 / 50.0 - 1.0) * 100.0).abs() < 1e-9);
    let only_rank1 = views::by_variable(
        &fixture(),
        &Filters {
            rank: Some(1),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(only_rank1.total_samples, 3.0);
    assert!(only_rank1.variables.iter().all(|r| r.name != "loopC"));
    assert!(views::by_variable(
        &fixture(),
        &Filters {
            rank: Some(7),
            ..Default::default()
        }
    )
    .is_err());
}

#[test]
fn data_tree_nests_fields_under_their_container() {
    let r = fixture();
    let stacks = trees::data_stacks(&r, 0);
    let se_rank0: Vec<_> = stacks
        .iter()
        .filter(|s| s.process == 0 && s.frames[0].name == "foo::se")
        .collect();
    // se's fields (2 + 2) exceed its blame (3): they share its width (2 + 1),
    // so se has no weight of its own.
    assert_eq!(
        se_rank0.iter().map(|s| s.frames.len()).collect::<Vec<_>>(),
        vec![2, 2]
    );
    let folded =
        String::from_utf8(export(&r, ExportFormat::Folded, TreeKind::Data, None).unwrap()).unwrap();
    assert!(folded.contains("rank 0;foo::se;sX 2\n"), "{folded}");
    assert!(folded.contains("rank 0;foo::se;sY 1\n"), "{folded}");
    assert!(folded.contains("rank 1;foo::se;sX 1\n"), "{folded}");
    assert!(folded.contains("rank 1;foo::se;sY 2\n"), "{folded}");
}

#[test]
fn shared_samples_are_split_among_the_children() {
    use crate::trees::share;
    assert_eq!(share(&[2.0, 2.0], 3.0, true), [2.0, 1.0]);
    assert_eq!(share(&[1.0, 2.0], 3.0, true), [1.0, 2.0], "they fit");
    assert_eq!(share(&[5.0, 5.0, 5.0], 10.0, true), [4.0, 3.0, 3.0]);
    assert_eq!(share(&[1.0, 3.0], 2.0, false), [0.5, 1.5]);
}

#[test]
fn code_tree_exports_decode() {
    let r = fixture();
    let folded =
        String::from_utf8(export(&r, ExportFormat::Folded, TreeKind::Code, None).unwrap()).unwrap();
    assert_eq!(folded, "rank 0;main;foo;bar 3\nrank 1;main;foo;bar 3\n");
    let speedscope: serde_json::Value = serde_json::from_slice(
        &export(&r, ExportFormat::Speedscope, TreeKind::Code, None).unwrap(),
    )
    .unwrap();
    assert_eq!(speedscope["profiles"].as_array().unwrap().len(), 2);
    assert_eq!(speedscope["profiles"][0]["type"], "sampled");
    let gz = export(&r, ExportFormat::Pprof, TreeKind::Data, None).unwrap();
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut raw)
        .unwrap();
    let p = pprof::Profile::decode(&raw[..]).unwrap();
    assert_eq!(p.string_table[0], "");
    let total: i64 = p.sample.iter().map(|s| s.value[0]).sum();
    assert!(total > 0);
    let label_keys: Vec<&str> = p.sample[0]
        .label
        .iter()
        .map(|l| p.string_table[l.key as usize].as_str())
        .collect();
    assert_eq!(label_keys, ["variable", "rank"]);
    let hatchet: serde_json::Value =
        serde_json::from_slice(&export(&r, ExportFormat::Hatchet, TreeKind::Code, None).unwrap())
            .unwrap();
    assert_eq!(hatchet[0]["frame"]["name"], "main");
    assert_eq!(hatchet[0]["metrics"]["cpu-clock (inc)"], 6.0);
    let firefox: serde_json::Value =
        serde_json::from_slice(&export(&r, ExportFormat::Firefox, TreeKind::Code, None).unwrap())
            .unwrap();
    let threads = firefox["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 2, "one thread per rank");
    assert_eq!(threads[0]["processName"], "rank 0");
    let weights: i64 = threads
        .iter()
        .flat_map(|t| {
            t["samples"]["weight"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w.as_i64().unwrap())
        })
        .sum();
    assert_eq!(weights, 6);
    let svg =
        String::from_utf8(export(&r, ExportFormat::Svg, TreeKind::Code, None).unwrap()).unwrap();
    assert!(svg.starts_with("<?xml") && svg.contains("bar"));
}

#[test]
fn html_shows_hostile_names_and_source_as_text() {
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
    r.variables[3].key.name = "</script><script>alert(2)</script>".into();
    let html = crate::html::html_with_sources(
        &r,
        None,
        &mut crate::source::SourceCache::new(vec![dir.path().to_path_buf()]),
    )
    .unwrap();
    // The only script end tags are the page's own two.
    assert_eq!(
        html.matches("</script>").count(),
        2,
        "data must not close the script element"
    );
    assert!(html.contains("\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"));
    assert!(
        !html.contains("innerHTML"),
        "the page never parses data as markup"
    );
}

#[test]
fn pearson_and_method_comparison() {
    assert_eq!(
        views::pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]).map(|r| (r * 1e9).round()),
        Some(1e9)
    );
    assert!((views::pearson(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]).unwrap() + 1.0).abs() < 1e-12);
    assert_eq!(views::pearson(&[1.0, 1.0], &[1.0, 2.0]), None);
    let mut r = fixture();
    r.header.events[0].memory = true;
    let methods = |direct: f64, raw: f64, lp: f64| {
        vec![
            ("direct".to_string(), direct),
            ("raw".to_string(), raw),
            ("loop".to_string(), lp),
        ]
    };
    r.variables[0].values = vec![ProcessValue {
        methods: methods(5.0, 2.0, 4.0),
        ..value(0, 4.0)
    }];
    r.variables[1].values = vec![ProcessValue {
        methods: methods(1.0, 3.0, 1.5),
        ..value(0, 1.5)
    }];
    r.variables[2].values = vec![ProcessValue {
        methods: methods(0.0, 1.0, 0.5),
        ..value(0, 0.5)
    }];
    r.variables[3].values = vec![];
    let c = views::compare(&r, &Filters::default(), "direct").unwrap();
    assert_eq!(c.methods, ["direct", "loop", "raw"]);
    assert_eq!(
        c.variables
            .iter()
            .map(|v| v.ranks["direct"])
            .collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(c.variables[0].ranks["raw"], 2, "raw ranks se second");
    let loop_r = c.correlation["loop"].unwrap();
    let raw_r = c.correlation["raw"].unwrap();
    assert!(loop_r > 0.99 && raw_r < loop_r, "loop {loop_r} raw {raw_r}");
    r.header.events[0].memory = false;
    assert!(
        views::compare(&r, &Filters::default(), "direct").is_err(),
        "time events have no methods to compare"
    );
}
