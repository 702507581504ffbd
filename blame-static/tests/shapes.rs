//! Every function shape of the benchmark generator (`bench/shapes/shapes.py`:
//! branches over arrays, a big switch, straight-line array code, 8-deep loop
//! nests, a nest with a long body, constant tables, call chains, C++
//! accessors) is analyzed to the end, with a read table for its lines. Small
//! sizes and not timed: `bench/analyze_shapes.sh` measures them at up to
//! 20,000 statements.

mod common;

use blame_static::{analyze_module, load_file};
use std::path::Path;
use std::process::Command;

fn generator() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/shapes/shapes.py")
}

fn shapes() -> Vec<(String, String)> {
    let out = Command::new("python3")
        .arg(generator())
        .arg("--list")
        .output()
        .expect("python3 runs");
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (s, ext) = l.split_once(' ').unwrap();
            (s.to_string(), ext.to_string())
        })
        .collect()
}

#[test]
fn every_shape_is_analyzed_to_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let list = shapes();
    assert!(list.len() >= 8, "{list:?}");
    for (shape, ext) in list {
        for n in [16, 120] {
            let out = Command::new("python3")
                .arg(generator())
                .args([shape.as_str(), &n.to_string()])
                .output()
                .expect("python3 runs");
            assert!(out.status.success(), "{shape} {n}");
            let text = String::from_utf8(out.stdout).unwrap();
            let bc = common::bitcode(dir.path(), &format!("{shape}{n}.{ext}"), &text, &[]);
            let result = analyze_module(&load_file(&bc).unwrap(), None);
            let f = result
                .summaries
                .iter()
                .find(|s| s.name == "f" || s.name.starts_with("f("))
                .unwrap_or_else(|| panic!("{shape} {n}: no summary of f"));
            assert!(!f.reads.is_empty(), "{shape} {n}: no reads");
            assert!(
                f.reads.iter().all(|r| r.reads.len() == r.costs.len()),
                "{shape} {n}: a read without its cost"
            );
        }
    }
}
