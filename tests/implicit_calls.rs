//! Implicit blame through calls, end to end over `tests/programs/treewalk.c`:
//! a tree walk's opening test decides whether `interact` adds into a body's
//! acceleration, so the samples of the test are the accelerations' (total
//! blame, through control flow), and the distance it computes is a scalar
//! derived from that walk, not a row among the data structures.

mod e2e_support;
use e2e_support::*;
use serde_json::Value;

/// `n` samples of each stack (innermost first, each frame a function and a
/// text of its line), reported by variable as JSON.
fn report_of(stacks: &[(&[(&str, &str)], usize)]) -> Value {
    let src = program("treewalk.c");
    let dir = tempfile::tempdir().unwrap();
    let db = analyze(&src, dir.path(), false);
    let mut lines: Vec<String> = Vec::new();
    for (stack, n) in stacks {
        let frames: Vec<Value> = stack
            .iter()
            .map(|(f, needle)| {
                serde_json::json!({"function": f, "file": "treewalk.c", "line": line_of(&src, needle)})
            })
            .collect();
        let sample = serde_json::json!({"stack": frames, "event": "cycles", "weight": 1, "rank": 0, "thread": 1});
        lines.extend(std::iter::repeat_n(sample.to_string(), *n));
    }
    let samples = dir.path().join("samples.jsonl");
    std::fs::write(&samples, lines.join("\n")).unwrap();
    report_json(&[
        "--samples",
        samples.to_str().unwrap(),
        "--static",
        db.to_str().unwrap(),
        "--by-variable",
    ])
}

const OPENING: &[(&str, &str)] = &[
    ("walk", "/* opening test */"),
    ("walk", "walk(nodes, n->child[0], pos, acc);"),
    ("main", "/* forces */"),
];
const INTERACT: &[(&str, &str)] = &[
    ("interact", "/* interact */"),
    ("walk", "interact(n->com, pos, acc);"),
    ("walk", "walk(nodes, n->child[0], pos, acc);"),
    ("main", "/* forces */"),
];

fn row<'a>(r: &'a Value, function: &str, name: &str) -> Option<&'a Value> {
    r["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["function"] == function && v["name"] == name)
}

#[test]
fn the_opening_test_of_a_walk_is_the_accelerations_and_its_distance_is_derived() {
    let r = report_of(&[(OPENING, 30), (INTERACT, 70)]);
    let acc = row(&r, "main", "acc").unwrap_or_else(|| panic!("no main::acc: {r:#}"));
    // Every sample: the interactions explicitly, the opening tests through
    // the branch that decides them.
    assert!(acc["explicit_percent"].as_f64().unwrap() >= 69.0, "{acc}");
    assert!(acc["total_percent"].as_f64().unwrap() >= 99.0, "{acc}");
    assert_ne!(acc["derived"], true, "{acc}");
    // `r2`: its own explicit blame, all of it inherited from the walk.
    if let Some(r2) = row(&r, "walk", "r2") {
        assert_eq!(r2["derived"], true, "{r2}");
    }
    // The walk's first data row is the accelerations.
    let first = r["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["derived"] != true)
        .unwrap();
    assert_eq!(
        (first["function"].as_str(), first["name"].as_str()),
        (Some("main"), Some("acc")),
        "{r:#}"
    );
}
