//! Names in reports, end to end over `tests/programs/naming.c`: `main` is a
//! blame point without a threshold, a function-static local is reported
//! under its function, no string literal and no nameless variable appears,
//! macro temporaries stay out of the default views, and (recorded for real)
//! libc's startup frames are never raw `[libc.so.6+0x...]` addresses.

mod e2e_support;
use e2e_support::*;
use serde_json::Value;
use std::path::Path;

/// One JSON-lines sample per stack (innermost first, each frame a function
/// and a text of its line), reported with `args` as JSON.
fn report_of(stacks: &[&[(&str, &str)]], args: &[&str]) -> Value {
    let src = program("naming.c");
    let dir = tempfile::tempdir().unwrap();
    let db = analyze(&src, dir.path(), false);
    let lines: Vec<String> = stacks
        .iter()
        .map(|stack| {
            let frames: Vec<Value> = stack
                .iter()
                .map(|(f, needle)| {
                    serde_json::json!({"function": f, "file": "naming.c", "line": line_of(&src, needle)})
                })
                .collect();
            serde_json::json!({"stack": frames, "event": "cycles", "weight": 1, "rank": 0, "thread": 1})
                .to_string()
        })
        .collect();
    let samples = dir.path().join("samples.jsonl");
    std::fs::write(&samples, lines.join("\n")).unwrap();
    let mut all = vec![
        "--samples",
        samples.to_str().unwrap(),
        "--static",
        db.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    report_json(&all)
}

const MAKE: &[(&str, &str)] = &[("make", "/* make loop */"), ("main", "make(n);")];
const FILL: &[(&str, &str)] = &[("fill", "/* fill loop */"), ("main", "fill(b, n);")];
const HISTORY: &[(&str, &str)] = &[("fill", "/* history */"), ("main", "fill(b, n);")];
const SCALE: &[(&str, &str)] = &[("scale", "/* scale loop */"), ("main", "scale(b, n);")];
const PRINT: &[(&str, &str)] = &[("main", "/* print */")];

#[test]
fn main_is_a_blame_point_with_its_variables() {
    let r = report_of(&[MAKE, FILL, FILL], &["--blame-points"]);
    let points = r["blame_points"].as_array().unwrap();
    let main = points
        .iter()
        .find(|p| p["function"] == "main")
        .unwrap_or_else(|| panic!("main is no blame point: {r:#}"));
    let vars: Vec<&str> = main["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert!(vars.contains(&"b"), "{vars:?}");
    // make and fill return or write through pointers: not blame points.
    assert!(points.iter().all(|p| p["function"] != "make"), "{r:#}");
}

#[test]
fn a_function_static_is_its_functions_and_literals_are_no_variables() {
    let r = report_of(&[HISTORY, PRINT], &["--by-variable"]);
    let vars = r["variables"].as_array().unwrap();
    let history = vars
        .iter()
        .find(|v| v["name"] == "history")
        .unwrap_or_else(|| panic!("no history: {r:#}"));
    assert_eq!(history["function"], "fill");
    assert_eq!(history["kind"], "local");
    assert!(history["file"].as_str().unwrap().ends_with("naming.c"));
    for v in vars {
        let name = v["name"].as_str().unwrap();
        assert!(!name.is_empty() && !name.starts_with(".str"), "{r:#}");
    }
}

#[test]
fn macro_temporaries_are_shown_only_when_asked_for() {
    let names = |r: &Value| -> Vec<String> { percents(r).into_iter().map(|(n, _, _)| n).collect() };
    let default = report_of(&[SCALE], &["--by-variable"]);
    let shown = names(&default);
    assert!(
        shown.iter().any(|n| n == "b"),
        "q lifted to main's b: {shown:?}"
    );
    assert!(!shown.iter().any(|n| n.contains("__")), "{shown:?}");
    let all = names(&report_of(&[SCALE], &["--by-variable", "--all-variables"]));
    assert!(all.iter().any(|n| n == "xxx__i"), "{all:?}");
}

/// Recorded for real: the frame of libc's startup code between
/// `__libc_start_main` and `main` is named from libc's debug file, or
/// folded into `__libc_start_main` without one; never a raw address.
#[test]
fn libc_startup_frames_are_never_raw_addresses() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("naming.c"), dir.path(), false);
    let run = record(dir.path(), &[exe.to_str().unwrap()]);
    let r = report_json(&[run.to_str().unwrap(), "--by-function"]);
    let functions: Vec<&str> = r["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["function"].as_str().unwrap())
        .collect();
    assert!(functions.contains(&"main"), "{functions:?}");
    assert!(
        functions.iter().any(|f| f.starts_with("__libc_start_main")),
        "{functions:?}"
    );
    assert!(
        !functions.iter().any(|f| f.starts_with("[libc")),
        "a raw libc frame: {functions:?}"
    );
    let libc = Path::new("/lib/x86_64-linux-gnu/libc.so.6");
    let id = std::process::Command::new("readelf")
        .arg("-n")
        .arg(libc)
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find_map(|l| l.trim().strip_prefix("Build ID: ").map(str::to_string))
        });
    let debug_file =
        id.map(|id| format!("/usr/lib/debug/.build-id/{}/{}.debug", &id[..2], &id[2..]));
    if debug_file.is_some_and(|f| Path::new(&f).is_file()) {
        assert!(
            functions.contains(&"__libc_start_call_main"),
            "named from libc's debug file: {functions:?}"
        );
    }
}

/// Recorded for real: a sweep timed with `clock_gettime` spends its time
/// in the vDSO, which no file on disk holds. The recorder saves a copy in
/// the run directory, so those samples are one named function
/// (`__vdso_clock_gettime`), not a raw address per instruction.
#[test]
fn vdso_frames_are_named_from_the_recorders_copy() {
    let vdso = std::fs::read_to_string("/proc/self/maps").is_ok_and(|m| m.contains("[vdso]"));
    if !sampling_allowed() || !vdso {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("timed_relax.c"), dir.path(), false);
    let run = record(dir.path(), &[exe.to_str().unwrap(), "16", "3000000"]);
    assert!(run.join("vdso.so").is_file(), "the recorder saved the vDSO");
    let r = report_json(&[run.to_str().unwrap(), "--by-function"]);
    let functions: Vec<(&str, f64)> = r["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let name = f["function"].as_str().unwrap();
            (name, f["exclusive"].as_f64().unwrap_or(0.0))
        })
        .collect();
    assert!(
        !functions.iter().any(|(f, _)| f.starts_with("[[vdso]")),
        "a raw vDSO frame: {functions:?}"
    );
    let clock: f64 = functions
        .iter()
        .filter(|(f, _)| f.contains("vdso") && f.contains("clock_gettime"))
        .map(|(_, x)| x)
        .sum();
    let total = r["total_samples"].as_f64().unwrap();
    assert!(
        clock > 0.1 * total,
        "the clock's own time is named: {clock} of {total} samples, {functions:?}"
    );
}
