//! Across runs on real recordings: `blame diff` between two builds of
//! `tests/programs/scaling.c` (the second with its lines moved), checked
//! against the two runs' own reports, and `blame scaling` over five input
//! sizes, whose models come back from Extra-P (PyPI `extrap`, installed by
//! scripts/test-tools.sh; outside CI a missing Extra-P skips that test).
//! A run exported for Thicket is loaded by Thicket (PyPI llnl-thicket) with
//! the report's values. These need perf_event (root in CI).

mod e2e_support;
use e2e_support::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `scaling.c` (with `prefix` lines above it) compiled and analyzed in `dir`.
fn build(dir: &Path, prefix: &str) -> (PathBuf, PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let src = dir.join("scaling.c");
    let text = std::fs::read_to_string(program("scaling.c")).unwrap();
    std::fs::write(&src, format!("{prefix}{text}")).unwrap();
    (compile(&src, dir, false), analyze(&src, dir, false))
}

fn record_n(dir: &Path, exe: &Path, n: u32) -> PathBuf {
    let run = dir.join(format!("run-n{n}"));
    run_ok(
        blame()
            .args(["record", "-F", "2000", "-o"])
            .arg(&run)
            .arg("--")
            .arg(exe)
            .arg(n.to_string()),
    );
    run
}

fn json_of(args: &[&str]) -> Value {
    let out = run_ok(blame().args(args).args(["--format", "json"]));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// The report row of `function::name` defined at `line`.
fn report_row<'a>(report: &'a Value, function: &str, name: &str, line: u64) -> &'a Value {
    report["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["function"] == function && v["name"] == name && v["line"] == line)
        .unwrap_or_else(|| panic!("{function}::{name}:{line} not in {report:#}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn diff_of_two_builds_matches_the_two_reports() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (exe_a, db_a) = build(&dir.path().join("a"), "");
    // The rebuild moves every line down by three.
    let (exe_b, db_b) = build(&dir.path().join("b"), "/* rebuilt */\n\n\n");
    let run_a = record_n(&dir.path().join("a"), &exe_a, 2);
    let run_b = record_n(&dir.path().join("b"), &exe_b, 8);
    let (ra, rb) = (run_a.to_str().unwrap(), run_b.to_str().unwrap());
    let (da, dbb) = (db_a.to_str().unwrap(), db_b.to_str().unwrap());
    let report_a = report_json(&[ra, "--static", da]);
    let report_b = report_json(&[rb, "--static", dbb]);
    let diff = json_of(&["diff", ra, rb, "--static", da, "--static-b", dbb]);
    assert_eq!(diff["a"]["total_samples"], report_a["total_samples"]);
    assert_eq!(diff["b"]["total_samples"], report_b["total_samples"]);
    let rows = diff["variables"].as_array().unwrap();
    for row in rows.iter().filter(|r| r["status"] == "both") {
        let (f, n) = (
            row["function"].as_str().unwrap(),
            row["name"].as_str().unwrap(),
        );
        let (la, lb) = (
            row["line_a"].as_u64().unwrap(),
            row["line_b"].as_u64().unwrap(),
        );
        assert_eq!(lb, la + 3, "{f}::{n} matched across the moved lines");
        let a = report_row(&report_a, f, n, la);
        let b = report_row(&report_b, f, n, lb);
        for (side, rep) in [("a", a), ("b", b)] {
            for k in ["samples", "total_percent", "total", "explicit_percent"] {
                assert!(
                    close(row[side][k].as_f64().unwrap(), rep[k].as_f64().unwrap()),
                    "{f}::{n} {side}.{k}: diff {} report {}",
                    row[side][k],
                    rep[k]
                );
            }
        }
        for k in ["samples", "total_percent", "total", "explicit_percent"] {
            let d = b[k].as_f64().unwrap() - a[k].as_f64().unwrap();
            assert!(
                close(row["delta"][k].as_f64().unwrap(), d),
                "{f}::{n} delta.{k}"
            );
        }
    }
    // Every reported variable of either run is in the diff.
    for (report, side) in [(&report_a, "line_a"), (&report_b, "line_b")] {
        for v in report["variables"].as_array().unwrap() {
            assert!(
                rows.iter().any(|r| r["function"] == v["function"]
                    && r["name"] == v["name"]
                    && r[side] == v["line"]),
                "{}::{} missing from the diff",
                v["function"],
                v["name"]
            );
        }
    }
    // n=2 → n=8: field's share grows, coeffs' shrinks; they lead, largest change first.
    let find = |n: &str| {
        rows.iter()
            .find(|r| r["function"] == "main" && r["name"] == n)
            .unwrap()
    };
    let (field, coeffs) = (find("field"), find("coeffs"));
    assert!(
        field["delta"]["explicit_percent"].as_f64().unwrap() > 10.0,
        "{field:#}"
    );
    assert!(
        coeffs["delta"]["explicit_percent"].as_f64().unwrap() < -10.0,
        "{coeffs:#}"
    );
    let data: Vec<f64> = rows
        .iter()
        .filter(|r| r["derived"] == false)
        .map(|r| r["delta"]["explicit_percent"].as_f64().unwrap().abs())
        .collect();
    assert!(
        data.windows(2).all(|w| w[0] >= w[1]),
        "ordered by change: {data:?}"
    );
    // The other formats.
    let text = run_ok(blame().args(["diff", ra, rb, "--static", da, "--static-b", dbb]));
    let text = String::from_utf8_lossy(&text.stdout);
    let line = text.lines().find(|l| l.starts_with("field ")).unwrap();
    assert!(
        line.contains("main scaling.c:") && line.contains('→'),
        "{line}"
    );
    let page = dir.path().join("diff.html");
    run_ok(
        blame()
            .args(["diff", ra, rb, "--format", "html", "-o"])
            .arg(&page),
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("\"field\"") && html.contains("blame diff"));
    let csv = run_ok(blame().args(["diff", ra, rb, "--format", "csv"]));
    assert!(String::from_utf8_lossy(&csv.stdout).starts_with("variable,type,kind,defined at,in,"));
}

/// A tool of scripts/test-tools.sh (`rel` under target/test-tools), or
/// `None` (skip) outside CI.
fn test_tool(rel: &str) -> Option<PathBuf> {
    let tools = std::env::var_os("BLAME_TEST_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-tools"));
    let path = tools.join(rel);
    if path.exists() {
        return Some(path);
    }
    let reason = format!("{} missing: run scripts/test-tools.sh", path.display());
    assert!(std::env::var_os("CI").is_none(), "{reason}");
    eprintln!("skipping: {reason}");
    None
}

/// An Extra-P model of the JSON view (`constant` plus `terms` of
/// `coefficient · n^exponent · log2(n)^log_exponent`) at `n`.
fn eval_model(model: &Value, n: f64) -> f64 {
    let terms = model["terms"].as_array().unwrap();
    model["constant"].as_f64().unwrap()
        + terms
            .iter()
            .map(|t| {
                t["factors"].as_array().unwrap().iter().fold(
                    t["coefficient"].as_f64().unwrap(),
                    |x, f| {
                        x * n.powf(f["exponent"].as_f64().unwrap())
                            * n.log2().powf(f["log_exponent"].as_f64().unwrap())
                    },
                )
            })
            .sum::<f64>()
}

#[test]
fn scaling_over_five_input_sizes_gets_a_model_from_extrap_that_predicts_linear_growth() {
    if !sampling_allowed() {
        return;
    }
    let Some(extrap) = test_tool("venv/bin/extrap") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (exe, db) = build(dir.path(), "");
    let sizes = [1, 2, 4, 8, 16];
    let runs: Vec<PathBuf> = sizes
        .iter()
        .map(|&n| record_n(dir.path(), &exe, n))
        .collect();
    let input = dir.path().join("extrap.txt");
    let mut args: Vec<String> = vec!["scaling".into()];
    args.extend(runs.iter().map(|r| r.to_string_lossy().into_owned()));
    args.extend(["--param".into(), "n=1,2,4,8,16".into()]);
    args.extend(["--static".into(), db.to_string_lossy().into_owned()]);
    args.extend(["--extrap".into(), extrap.to_string_lossy().into_owned()]);
    args.extend([
        "--extrap-input".into(),
        input.to_string_lossy().into_owned(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let view = json_of(&args);
    let text = std::fs::read_to_string(&input).unwrap();
    assert!(
        text.contains("PARAMETER n\nPOINTS ( 1 ) ( 2 ) ( 4 ) ( 8 ) ( 16 )\nMETRIC time\n"),
        "{text}"
    );
    let var = |name: &str| {
        view["variables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["function"] == "main" && v["name"] == name)
            .unwrap_or_else(|| panic!("main::{name} in {view:#}"))
    };
    // field's work is linear in n. Extra-P picks among hypotheses that fit
    // the five points about equally (`n^1`, `n^(2/3)·log2(n)`), so the test
    // judges what the model predicts, not which term it chose: a model in n
    // that fits, meets the measured times and doubles from 16 to 32.
    let field = var("field");
    let model = &field["time_model"];
    let terms = model["terms"].as_array().unwrap();
    assert!(!terms.is_empty(), "{}", model["function"]);
    for term in terms {
        for factor in term["factors"].as_array().unwrap() {
            assert_eq!(factor["parameter"], "n", "{}", model["function"]);
        }
    }
    assert!(model["adjusted_r2"].as_f64().unwrap() > 0.95, "{model:#}");
    let at = |n: f64| eval_model(model, n);
    let times = field["time"].as_array().unwrap();
    for (t, n) in times.iter().zip(sizes) {
        let (measured, predicted) = (t[0].as_f64().unwrap(), at(n as f64));
        assert!(
            (predicted - measured).abs() <= 0.1 * measured + 0.005,
            "{} at n={n}: {predicted} against {measured}",
            model["function"]
        );
    }
    let doubling = at(32.0) / at(16.0);
    assert!(
        (1.7..=2.3).contains(&doubling),
        "{} grows {doubling}x from 16 to 32",
        model["function"]
    );
    assert_eq!(field["grows"], true, "{field:#}");
    // coeffs' work does not depend on n: its time stays, its share shrinks.
    let coeffs = var("coeffs");
    assert_eq!(coeffs["grows"], false);
    let t = &coeffs["time"];
    let (first, last) = (t[0][0].as_f64().unwrap(), t[4][0].as_f64().unwrap());
    assert!(
        (last / first - 1.0).abs() < 0.3,
        "coeffs' time {first} → {last}"
    );
    // The text view names the growing variable.
    let out = run_ok(blame().args(&args[..args.len()]).args(["--format", "text"]));
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.contains("# share grows with scale: main::field"),
        "{out}"
    );
}

#[test]
fn thicket_loads_an_exported_recording_with_the_reports_blame() {
    if !sampling_allowed() {
        return;
    }
    let Some(python) = test_tool("venv/bin/python") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (exe, db) = build(dir.path(), "");
    let run = record_n(dir.path(), &exe, 2);
    let (r, d) = (run.to_str().unwrap(), db.to_str().unwrap());
    let report = report_json(&[r, "--static", d]);
    let file = dir.path().join("run.thicket.json");
    run_ok(
        blame()
            .args(["export", r, "--static", d, "--format", "thicket", "-o"])
            .arg(&file),
    );
    let out = run_ok(
        std::process::Command::new(&python)
            .arg("-c")
            .arg(
                "import sys,thicket as th\n\
                 tk=th.Thicket.from_json(open(sys.argv[1]).read())\n\
                 df=tk.dataframe.reset_index()\n\
                 for _, x in df.iterrows(): print('row', x['node'].frame['name'], x['node'].frame['type'], x['cpu-clock (inc)'], x['explicit (inc)'])\n\
                 m=tk.metadata.iloc[0]\n\
                 print('meta', m['ranks'], m['samples'], m['sampler'], m['wall_seconds'] > 0)",
            )
            .arg(&file)
            .env("MPLCONFIGDIR", dir.path()),
    );
    let out = String::from_utf8_lossy(&out.stdout);
    for name in ["field", "coeffs"] {
        let row = report["variables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["function"] == "main" && v["name"] == name)
            .unwrap();
        let want = format!(
            "row main::{name} variable {:?} {:?}",
            row["total"].as_f64().unwrap(),
            row["samples"].as_f64().unwrap()
        );
        assert!(out.contains(&want), "{want:?} in {out}");
    }
    assert!(
        out.lines().any(|l| l.starts_with("row main function")),
        "{out}"
    );
    let meta = format!(
        "meta 0 {:?} perf_event True",
        report["total_samples"].as_f64().unwrap()
    );
    assert!(out.contains(&meta), "{meta:?} in {out}");
}
