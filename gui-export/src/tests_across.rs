//! `blame diff` and `blame scaling` over hand-built results: variables
//! matched across builds, the changes and their order, and Extra-P's models
//! of a variable whose share grows with the ranks.

use crate::across::diff::diff;
use crate::across::scaling::{scaling, ScalingOptions, ScalingRun, TimeBase};
use crate::tests::fixture;
use crate::views::{Filters, OutputFormat, RankBy};
use blame_formats::results::*;

/// The fixture with explicit blame equal to total blame.
fn run_a() -> Results {
    let mut r = fixture();
    for v in &mut r.variables {
        for x in &mut v.values {
            x.explicit = x.inclusive;
        }
    }
    r
}

/// A rebuild of A: every line 5 further down, `se.sX` twice as hot,
/// `loopC` gone and a new `tmp`; the same number of samples.
fn run_b() -> Results {
    let mut r = run_a();
    for v in &mut r.variables {
        v.key.line += 5;
        v.key.file = "/elsewhere/fig3_14.c".into();
        if v.key.name == "se.sX" {
            for x in &mut v.values {
                x.inclusive = 3.0;
                x.explicit = 2.5;
            }
        }
    }
    r.variables.retain(|v| v.key.name != "loopC");
    let mut tmp = r.variables[0].clone();
    tmp.key.name = "tmp".into();
    tmp.key.function = "bar".into();
    tmp.values.truncate(1);
    tmp.values[0].inclusive = 1.0;
    tmp.values[0].explicit = 1.0;
    r.variables.push(tmp);
    r
}

#[test]
fn diff_matches_moved_variables_and_orders_by_the_change_of_share() {
    let v = diff(&run_a(), "a", &run_b(), "b", &Filters::default()).unwrap();
    assert_eq!((v.a.total_samples, v.b.total_samples), (6.0, 6.0));
    let names: Vec<(&str, &str)> = v
        .variables
        .iter()
        .map(|r| (r.name.as_str(), r.status.as_str()))
        .collect();
    // sX: 3 → 5 explicit of 6 (+33.3%); loopC 1 → 0 and tmp 0 → 1 (±16.7%).
    assert_eq!(
        names,
        [
            ("se.sX", "both"),
            ("loopC", "only_a"),
            ("tmp", "only_b"),
            ("se", "both"),
            ("se.sY", "both")
        ]
    );
    let sx = &v.variables[0];
    assert_eq!((sx.line_a, sx.line_b), (Some(19), Some(24)));
    assert_eq!(
        (sx.a.explicit, sx.b.explicit, sx.delta.explicit),
        (3.0, 5.0, 2.0)
    );
    assert!((sx.delta.explicit_percent - 100.0 / 3.0).abs() < 1e-9);
    assert_eq!(
        (sx.a.samples, sx.b.samples, sx.delta.samples),
        (3.0, 6.0, 3.0)
    );
    assert!((sx.delta.percent - 50.0).abs() < 1e-9);
    let gone = &v.variables[1];
    assert_eq!(
        (gone.a.explicit, gone.b.explicit, gone.line_b),
        (1.0, 0.0, None)
    );
}

#[test]
fn diff_ranks_by_total_when_asked_and_filters_by_share() {
    let filters = Filters {
        rank_by: RankBy::Total,
        min_percent: 20.0,
        ..Default::default()
    };
    let v = diff(&run_a(), "a", &run_b(), "b", &filters).unwrap();
    let names: Vec<&str> = v.variables.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["se.sX", "se", "se.sY"]);
    assert_eq!(v.rank_by, RankBy::Total);
}

#[test]
fn diff_renders_as_text_csv_json_and_a_page() {
    let v = diff(&run_a(), "a", &run_b(), "b", &Filters::default()).unwrap();
    let text = crate::render::render_diff(&v, OutputFormat::Text);
    assert!(
        text.contains("A = a (6 samples), B = b (6 samples)"),
        "{text}"
    );
    let sx = text.lines().find(|l| l.starts_with("se.sX")).unwrap();
    assert!(sx.contains("foo fig3_14.c:19→24"), "{sx}");
    assert!(sx.contains("+2") && sx.contains("+33.3%"), "{sx}");
    let csv = crate::render::render_diff(&v, OutputFormat::Csv);
    assert!(csv.starts_with("variable,type,kind,defined at,in,A explicit,B explicit,Δ samples,"));
    assert!(
        csv.contains("loopC,StructEx,local,bar fig3_14.c:19,A only,1,0,-1,"),
        "{csv}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&crate::render::render_diff(&v, OutputFormat::Json)).unwrap();
    assert_eq!(
        json["variables"][0]["delta"]["samples"], 2.0,
        "explicit blame"
    );
    let page = crate::html::diff_html(&v);
    assert!(page.contains("\"se.sX\"") && !page.contains("__BLAME_DATA__"));
}

/// Results of a run on `ranks` ranks, 1000 cpu-clock samples (1 s) each:
/// `halo` takes 10·p samples per rank (a share of p%), `matrix` the rest.
fn ranks_run(ranks: u32) -> Results {
    let mut r = fixture();
    r.header.processes = (0..ranks)
        .map(|rank| ProcessInfo {
            rank: Some(rank),
            pid: 100 + rank,
            host: "h".into(),
            command: vec!["./halo".into()].into(),
            launcher: false,
            samples: vec![1000.0],
            lost: 0,
        })
        .collect();
    let var = |name: &str, per_rank: f64| {
        let mut v = r.variables[0].clone();
        v.key.name = name.into();
        v.key.function = "main".into();
        v.values = (0..ranks)
            .map(|p| ProcessValue {
                process: p,
                inclusive: per_rank,
                exclusive: 0.0,
                explicit: per_rank,
                inherited: 0.0,
                methods: vec![],
            })
            .collect();
        v
    };
    let halo = 10.0 * ranks as f64;
    r.variables = vec![var("halo", halo), var("matrix", 1000.0 - halo)];
    r.contexts.clear();
    r
}

#[test]
fn scaling_models_come_from_extrap_with_the_ranks_as_parameter() {
    let Some(extrap) = crate::tests_consumers::test_tool("venv/bin/extrap", "Extra-P") else {
        return;
    };
    let results: Vec<Results> = [1, 2, 4, 8, 16].map(ranks_run).into();
    let runs: Vec<ScalingRun> = results
        .iter()
        .enumerate()
        .map(|(i, r)| ScalingRun {
            label: format!("run{i}"),
            results: r,
            params: vec![],
            wall_seconds: None,
        })
        .collect();
    let v = scaling(
        &runs,
        &ScalingOptions {
            filters: Filters::default(),
            time: TimeBase::Cpu,
            extrap,
            extrap_input: None,
        },
    )
    .unwrap();
    assert_eq!(v.parameters, ["p"]);
    assert!(v.modeler.starts_with("Extra-P"), "{}", v.modeler);
    let halo = v.variables.iter().find(|r| r.name == "halo").unwrap();
    // Share p%, time p·(10p samples)/1000 Hz = p²/100 s.
    let share = halo.share_model.as_ref().unwrap();
    let exps: Vec<(f64, f64)> = share.terms[0]
        .factors
        .iter()
        .map(|f| (f.exponent, f.log_exponent))
        .collect();
    assert_eq!(exps, [(1.0, 0.0)], "{}", share.function);
    let time = halo.time_model.as_ref().unwrap();
    assert_eq!(time.terms[0].factors[0].exponent, 2.0, "{}", time.function);
    assert!(time.adjusted_r2.unwrap() > 0.99);
    assert!(halo.grows);
    let matrix = v.variables.iter().find(|r| r.name == "matrix").unwrap();
    assert!(!matrix.grows);
    let text = crate::render::render_scaling(&v, OutputFormat::Text);
    assert!(
        text.contains("# share grows with scale: main::halo\n"),
        "{text}"
    );
}

#[test]
fn scaling_needs_a_parameter_that_varies() {
    let results: Vec<Results> = [2, 2].map(ranks_run).into();
    let runs: Vec<ScalingRun> = results
        .iter()
        .map(|r| ScalingRun {
            label: "r".into(),
            results: r,
            params: vec![],
            wall_seconds: None,
        })
        .collect();
    let err = scaling(
        &runs,
        &ScalingOptions {
            filters: Filters::default(),
            time: TimeBase::Cpu,
            extrap: "/nonexistent/extrap".into(),
            extrap_input: None,
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("differ in no parameter"), "{err}");
}
