//! Reads of a variable's own storage see exactly the stores that reach
//! them, through merges of the values of branches and loops (SSA values),
//! on real clang-19 output, including generated code with thousands of
//! branches (the merges keep the graph linear: see bench/analyze_scaling.sh).

mod common;

use blame_formats::static_db::*;
use blame_static::{analyze_module, load_file};
use std::path::Path;

fn summary(dir: &Path, text: &str, function: &str) -> FunctionSummary {
    let bc = common::bitcode(dir, "t.c", text, &[]);
    analyze_module(&load_file(&bc).unwrap(), None)
        .summaries
        .into_iter()
        .find(|f| f.name == function)
        .expect("function analyzed")
}

fn lines_of(f: &FunctionSummary, name: &str) -> Vec<u32> {
    f.variables
        .iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("{name} in {:?}", f.variables))
        .explicit_lines
        .clone()
}

/// A chain of conditional updates: every update of `s` reaches the final
/// `*out = s`, so `out`'s blame holds every `s +=` line, and `t`, assigned
/// from `s` once in the middle, holds only the updates before it.
#[test]
fn a_chain_of_branches_merges_every_store_that_reaches() {
    let dir = tempfile::tempdir().unwrap();
    let n = 3000;
    let mut c = String::from("void f(int x, int *out, int *mid) {\n  int s = 0, t = 0;\n");
    for k in 0..n {
        c.push_str(&format!("  if (x > {k}) s += {k};\n"));
        if k == n / 2 {
            c.push_str("  t = s;\n");
        }
    }
    c.push_str("  *out = s;\n  *mid = t;\n}\n");
    let f = summary(dir.path(), &c, "f");
    let first_update = 3;
    let t_line = 3 + n / 2 + 1;
    let last_update = 3 + n;
    let out = lines_of(&f, "out");
    assert!(
        out.contains(&first_update) && out.contains(&last_update),
        "{out:?}"
    );
    let mid = lines_of(&f, "mid");
    assert!(mid.contains(&first_update), "{mid:?}");
    assert!(mid.contains(&t_line), "{mid:?}");
    assert!(
        !mid.contains(&last_update),
        "an update after `t = s` cannot reach t: {mid:?}"
    );
}

/// A loop: the store at the end of the body reaches the read at its top
/// through the merge at the loop header; a store killed before any read
/// reaches nothing.
#[test]
fn loops_carry_values_around_and_kills_hold() {
    let dir = tempfile::tempdir().unwrap();
    let c = "void f(int n, int *out, int *other) {\n\
             \x20 int s = 1, u = 5;\n\
             \x20 u = 7;\n\
             \x20 for (int i = 0; i < n; i++) {\n\
             \x20   *out = s;\n\
             \x20   s = s * 3 + i;\n\
             \x20 }\n\
             \x20 *other = u;\n\
             }\n";
    let f = summary(dir.path(), c, "f");
    let out = lines_of(&f, "out");
    assert!(
        out.contains(&6),
        "the body's store reaches the read at the top: {out:?}"
    );
    let other = lines_of(&f, "other");
    assert!(other.contains(&3), "{other:?}");
    assert!(!other.contains(&2), "u = 5 is killed by u = 7: {other:?}");
}

/// Generated code (issue 14): a function of 20,000 branches is analysed
/// (near-linear: merges, not reaching-definition sets; the time and memory
/// are measured by bench/analyze_scaling.sh) and every update still reaches
/// the result.
#[test]
fn a_generated_function_of_20000_branches_is_analysed() {
    let dir = tempfile::tempdir().unwrap();
    let n = 20_000;
    let mut c = String::from("void f(int x, int *out) {\n  int s = 0;\n");
    for k in 0..n {
        c.push_str(&format!("  if (x > {k}) s += {k};\n"));
    }
    c.push_str("  *out = s;\n}\n");
    let f = summary(dir.path(), &c, "f");
    let out = lines_of(&f, "out");
    assert!(
        out.contains(&3) && out.contains(&(2 + n)),
        "first and last update reach out"
    );
}
