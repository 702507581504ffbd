//! Calls through function pointers, on real clang-19 output: each is named
//! by its slot (a struct's field, a parameter), calls what the program
//! stores there (a table of another unit, a callback installed through a
//! setter from yet another unit), writes and reads what those functions do,
//! and returns what they return, and a wrapper forwarding its parameters
//! to a slot computes what they compute; the unit calling through a slot
//! is analyzed again when a unit storing a function there arrives after it.

mod common;

use blame_formats::static_db::{ParamAccess, ReturnedPointer};
use blame_static::analyze_into_db;
use common::{bitcode, summary};

const VEC_H: &str = r#"#pragma once
struct Vec;
typedef struct Ops {
  double *(*data)(struct Vec *v);
  void (*scale)(double a, struct Vec *v);
  void (*axpy)(double a, struct Vec *x, struct Vec *z);
} Ops;
typedef struct Vec { double *d; int n; const Ops *ops; double norm; } Vec;
extern const Ops vec_ops;
typedef int (*ApplyFn)(Vec *x, Vec *y, void *ctx);
typedef struct Solver { ApplyFn apply; void *ctx; int calls; } Solver;
void solver_set(Solver *s, ApplyFn f, void *ctx);
int solver_run(Solver *s, Vec *x, Vec *y);
"#;

const IMPL: &str = r#"#include "vec.h"
static double *vec_data(Vec *v) { return v->d; }
static void vec_scale(double a, Vec *v) {
  for (int i = 0; i < v->n; i++) v->d[i] *= a;
}
static void vec_axpy(double a, Vec *x, Vec *z) {
  for (int i = 0; i < z->n; i++) z->d[i] += a * x->d[i];
}
const Ops vec_ops = {vec_data, vec_scale, vec_axpy};
"#;

const SOLVER: &str = r#"#include "vec.h"
void solver_set(Solver *s, ApplyFn f, void *ctx) { s->apply = f; s->ctx = ctx; }
int solver_run(Solver *s, Vec *x, Vec *y) { return s->apply(x, y, s->ctx); }
void scale_all(Vec *v) { v->ops->scale(2.0, v); }
double *data_of(Vec *v) { return v->ops->data(v); }
void axpy(double a, Vec *x, Vec *z) { z->ops->axpy(a, x, z); }
"#;

const MAIN: &str = r#"#include "vec.h"
static int copy_first(Vec *x, Vec *y, void *ctx) {
  (void)ctx;
  y->d[0] = x->d[0];
  return 0;
}
int main(void) {
  double a[4] = {1, 2, 3, 4}, b[4] = {0};
  Vec x = {a, 4, &vec_ops, 0}, y = {b, 4, &vec_ops, 0};
  Solver s = {0};
  solver_set(&s, copy_first, 0);
  return solver_run(&s, &x, &y);
}
"#;

fn whole() -> Vec<ParamAccess> {
    vec![ParamAccess {
        path: vec![],
        deref: 0,
    }]
}

#[test]
fn calls_through_slots_call_what_the_program_stores_there() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vec.h"), VEC_H).unwrap();
    let imp = bitcode(dir.path(), "impl.c", IMPL, &[]);
    let solver = bitcode(dir.path(), "solver.c", SOLVER, &[]);
    let main = bitcode(dir.path(), "main.c", MAIN, &[]);
    let db = dir.path().join("static.db");
    // The table's unit, then the unit calling through it and through the
    // installed callback.
    analyze_into_db(&[imp, solver], &db).unwrap();
    let (db_now, _) = blame_formats::static_db::StaticDb::read(&db).unwrap();
    let scale_all = summary(&db_now, "scale_all");
    assert_eq!(
        scale_all.call_sites[0].callee.as_deref(),
        Some("*Ops+8"),
        "named by the field the pointer is loaded from"
    );
    let writes = scale_all.param_writes.as_ref().unwrap();
    assert_ne!(
        writes[0],
        whole(),
        "writes what vec_scale writes, not all its argument reaches"
    );
    assert!(
        writes[0].iter().any(|w| w.path == ["d"]),
        "vec_scale writes v->d[..]: {writes:?}"
    );
    assert_eq!(
        summary(&db_now, "data_of").returns_into,
        vec![ReturnedPointer {
            arg: 0,
            path: vec!["d".into()],
            deref: 1
        }],
        "returns what vec_data returns: below its argument"
    );
    // A wrapper forwarding its parameters to the slot computes `z` from
    // `x` as vec_axpy does: a caller blaming its `x` blames its `z`.
    let axpy = summary(&db_now, "axpy");
    assert!(
        axpy.side_effects
            .iter()
            .any(|e| e.blamed_param == 2 && e.from_param == 1 && !e.implicit),
        "{:?}",
        axpy.side_effects
    );
    let run = summary(&db_now, "solver_run");
    assert_eq!(run.call_sites[0].callee.as_deref(), Some("*Solver+0"));
    assert_eq!(
        run.param_writes.as_ref().unwrap()[2],
        whole(),
        "no callback installed yet: the call may write anything y reaches"
    );
    // The unit installing the callback arrives: the caller's unit is
    // analyzed again and writes what the callback writes.
    let second = analyze_into_db(&[main], &db).unwrap();
    assert_eq!(
        second.reanalyzed_units, 2,
        "solver.c is analyzed again, then main.c (solver_run's sets changed)"
    );
    let (db_now, _) = blame_formats::static_db::StaticDb::read(&db).unwrap();
    let run = summary(&db_now, "solver_run");
    let writes = run.param_writes.as_ref().unwrap();
    assert!(
        writes[2] != whole() && writes[2].iter().all(|w| w.path == ["d"]),
        "copy_first writes y->d[0]: {writes:?}"
    );
    assert!(writes[1].is_empty(), "nor does it write x: {writes:?}");
}
