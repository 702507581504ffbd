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

/// A time loop: the first copy makes `b` from `u`, the second `u` from `b`
/// (as `rhs(u, b)` then `solve(b, u)` would). The second's `u` reaches the
/// first only in the next step, and the first writes what the second
/// reads: a recurrence, so `b` is blamed for its own computation, not for
/// what it feeds; `u` takes both. A call that does not write what the
/// other reads (`x` copied from `p`, `p` cleared later in the step) still
/// sees the previous step's write.
#[test]
fn a_recurrence_through_calls_does_not_give_the_input_what_it_feeds() {
    let dir = tempfile::tempdir().unwrap();
    let c = "#include <string.h>\n\
             void f(int steps, int n, double *u, double *b, double *x, double *p) {\n\
             \x20 for (int s = 0; s < steps; s++) {\n\
             \x20   memcpy(b, u, n * sizeof(double));\n\
             \x20   memcpy(u, b, n * sizeof(double));\n\
             \x20   memcpy(x, p, n * sizeof(double));\n\
             \x20   memset(p, 0, n * sizeof(double));\n\
             \x20 }\n\
             }\n";
    let f = summary(dir.path(), c, "f");
    let b = lines_of(&f, "b");
    assert!(b.contains(&4), "{b:?}");
    assert!(!b.contains(&5), "b is not computed by what it feeds: {b:?}");
    let u = lines_of(&f, "u");
    assert!(u.contains(&4) && u.contains(&5), "{u:?}");
    let x = lines_of(&f, "x");
    assert!(
        x.contains(&7),
        "x copied from p sees the previous step's clear: {x:?}"
    );
}

/// A load depends on its address: the index a binary search computes is
/// part of what the value loaded at it computes (`*out = grid[lo]` is
/// blamed for the search), as the GEP operands of def-use chains are.
#[test]
fn a_loaded_value_depends_on_the_index_computed_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let c = "void f(int n, const double *grid, double e, double *out) {\n\
             \x20 int lo = 0, hi = n;\n\
             \x20 while (hi - lo > 1) {\n\
             \x20   int mid = (lo + hi) / 2;\n\
             \x20   if (grid[mid] > e) hi = mid;\n\
             \x20   else lo = mid;\n\
             \x20 }\n\
             \x20 *out = grid[lo];\n\
             }\n";
    let f = summary(dir.path(), c, "f");
    let out = lines_of(&f, "out");
    assert!(
        out.contains(&4) && out.contains(&6) && out.contains(&8),
        "the search computes the index out's value is loaded at: {out:?}"
    );
}
