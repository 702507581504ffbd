//! Calls through a vtable slot, on real clang-19 output: each is named by
//! the method the object's class declares at that slot (two interfaces
//! with a method at the same slot and arity are told apart by the object's
//! class: a `unique_ptr`'s `operator->`, a raw pointer member, a
//! reference parameter), takes what its overrides of other units write,
//! and the unit calling it is analyzed again when an override arrives
//! after it.

mod common;

use blame_static::analyze_into_db;
use common::{bitcode, summary};

const IFACE_H: &str = r#"#pragma once
#include <memory>
struct Vec { double *d; int n; };
class Op {
public:
  virtual ~Op() = default;
  virtual void apply(const Vec &r, Vec &z) const = 0;
};
class Solver {
public:
  virtual ~Solver() = default;
  virtual void solve(const Vec &b, Vec &x) = 0;
};
std::unique_ptr<Op> make_op();
"#;

const CALLER: &str = r#"#include "iface.h"
struct Cg {
  std::unique_ptr<Op> M;
  Op *raw;
  Vec r, z, p;
  void step();
};
void Cg::step() {
  M->apply(r, z);
  raw->apply(r, p);
}
void run(Solver &s, const Vec &b, Vec &x) { s.solve(b, x); }
"#;

const OVERRIDE: &str = r#"#include "iface.h"
class Jacobi final : public Op {
public:
  void apply(const Vec &r, Vec &z) const override {
    for (int i = 0; i < r.n; i++) z.d[i] = 0.5 * r.d[i];
  }
};
std::unique_ptr<Op> make_op() { return std::make_unique<Jacobi>(); }
"#;

#[test]
fn virtual_calls_are_named_by_the_method_of_the_objects_class() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("iface.h"), IFACE_H).unwrap();
    let flags = ["-fstandalone-debug"];
    let caller = bitcode(dir.path(), "cg.cpp", CALLER, &flags);
    let over = bitcode(dir.path(), "jacobi.cpp", OVERRIDE, &flags);
    let db = dir.path().join("static.db");
    // The caller first, alone: its virtual calls are named already.
    let first = analyze_into_db(std::slice::from_ref(&caller), &db).unwrap();
    let step = summary(&first.db, "Cg::step");
    let callees: Vec<(u32, Option<&str>)> = step
        .call_sites
        .iter()
        .filter(|c| c.callee.as_deref().is_none_or(|n| n.contains("apply")))
        .map(|c| (c.line, c.callee.as_deref()))
        .collect();
    assert_eq!(
        callees,
        vec![
            (9, Some("_ZNK2Op5applyERK3VecRS0_")),
            (10, Some("_ZNK2Op5applyERK3VecRS0_"))
        ],
        "both calls through Op's slot 2, by unique_ptr and raw pointer"
    );
    let run = summary(&first.db, "run");
    assert!(
        run.call_sites
            .iter()
            .any(|c| c.callee.as_deref() == Some("_ZN6Solver5solveERK3VecRS0_")),
        "Solver::solve shares Op::apply's slot and arity: told apart by the class: {:?}",
        run.call_sites
    );
    // The override's unit arrives after: the caller's unit is analyzed
    // again, since its virtual call now has an override's sets.
    let second = analyze_into_db(std::slice::from_ref(&over), &db).unwrap();
    assert_eq!(
        second.reanalyzed_units, 1,
        "the unit calling Op::apply is analyzed again"
    );
}
