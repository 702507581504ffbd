//! A result built by the program's own builder, on real clang-19 output:
//! values stored through a standard container's `push_back` come from the
//! method's parameter (a side effect), and a named return value (`Matrix
//! m; ...; return m;`, living in the caller's object) leaves its function,
//! so the numbers assembled in a loop reach the matrix the caller gets.

mod common;

use blame_formats::static_db::*;
use blame_static::analyze_into_db;
use common::{bitcode, summary, var};

const MATRIX_H: &str = r#"#pragma once
#include <vector>
class Matrix {
public:
  class Builder {
  public:
    void add(int col, double value);
    Matrix build();
  private:
    std::vector<int> cols_;
    std::vector<double> values_;
  };
  std::vector<int> cols;
  std::vector<double> values;
};
Matrix assemble(int n);
"#;

const MATRIX_CPP: &str = r#"#include "matrix.h"
void Matrix::Builder::add(int col, double value) {
  cols_.push_back(col);
  values_.push_back(value);
}
Matrix Matrix::Builder::build() {
  Matrix m;
  m.cols = std::move(cols_);
  m.values = std::move(values_);
  return m;
}
"#;

const ASSEMBLE_CPP: &str = r#"#include "matrix.h"
#include <cmath>
Matrix assemble(int n) {
  Matrix::Builder b;
  for (int i = 0; i < n; i++) {
    double c = std::exp(0.1 * i) / (1.0 + i);
    b.add(i, c);
  }
  return b.build();
}
"#;

#[test]
fn assembled_values_reach_the_matrix_a_builder_returns() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("matrix.h"), MATRIX_H).unwrap();
    let flags = ["-fstandalone-debug"];
    let matrix = bitcode(dir.path(), "matrix.cpp", MATRIX_CPP, &flags);
    let assemble = bitcode(dir.path(), "assemble.cpp", ASSEMBLE_CPP, &flags);
    let db = dir.path().join("static.db");
    let up = analyze_into_db(&[matrix, assemble], &db).unwrap();
    let add = summary(&up.db, "Matrix::Builder::add");
    assert!(
        add.side_effects.iter().any(|e| e.blamed_param == 0
            && e.blamed_path == ".values_"
            && e.from_param == 2
            && !e.implicit),
        "push_back stores the value in values_: {:?}",
        add.side_effects
    );
    let build = summary(&up.db, "Matrix::Builder::build");
    let m = var(build, "m");
    assert!(m.is_exit, "the named return value is the caller's object");
    assert_eq!(m.param_index, Some(0));
    let assemble = summary(&up.db, "assemble");
    let result = assemble
        .variables
        .iter()
        .find(|v| v.kind == VarKind::Param && v.param_index == Some(0) && v.is_exit)
        .expect("assemble's hidden result pointer");
    assert!(
        result.explicit_lines.contains(&6),
        "the value computed on line 6 reaches the returned matrix: {:?}",
        result.explicit_lines
    );
}

const HISTORY_C: &str = r#"#include <math.h>
void solve(int n, double *x, const double *b, double *hist, int iters) {
  for (int it = 0; it < iters; it++) {
    double rr = 0;
    for (int i = 0; i < n; i++) { x[i] = 0.5 * (x[i] + b[i]); rr += x[i] * x[i]; }
    hist[it] = sqrt(rr);
  }
}
"#;

const HISTORY_CPP: &str = r#"#include <cmath>
#include <vector>
void solve(int n, double *x, const double *b, std::vector<double> &hist, int iters) {
  for (int it = 0; it < iters; it++) {
    double rr = 0;
    for (int i = 0; i < n; i++) { x[i] = 0.5 * (x[i] + b[i]); rr += x[i] * x[i]; }
    hist.push_back(std::sqrt(rr));
  }
}
"#;

/// A solver storing its residual norms in the history it is handed (an
/// array or a `std::vector` it appends to) only records numbers through
/// that parameter, so a caller handing it a history writes a record
/// there; the solution it computes from the data is no record.
#[test]
fn a_history_a_callee_fills_is_a_record_parameter() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("history.c", HISTORY_C), ("history.cpp", HISTORY_CPP)] {
        let bc = bitcode(dir.path(), name, text, &[]);
        let db = dir.path().join(format!("{name}.db"));
        let up = analyze_into_db(&[bc], &db).unwrap();
        let solve = summary(&up.db, "solve");
        assert!(
            var(solve, "hist").is_record,
            "{name}: only norms go into hist"
        );
        assert!(
            !var(solve, "x").is_record,
            "{name}: x is computed from x and b"
        );
    }
}

const PROBES_C: &str = r#"#include <stdlib.h>
typedef struct { int nx, ny; double h; } Grid;
typedef struct { int nrec, nt; long *cell; float *traces; } Receivers;
void receivers_init(const Grid *g, Receivers *rec, int n, int nt) {
  rec->nrec = n;
  rec->nt = nt;
  rec->cell = malloc(n * sizeof *rec->cell);
  rec->traces = calloc((size_t)n * nt, sizeof *rec->traces);
  for (int r = 0; r < n; r++) rec->cell[r] = (long)r * g->nx + g->ny / 2;
}
void receivers_record(Receivers *rec, const float *vz, int it) {
  for (int r = 0; r < rec->nrec; r++)
    rec->traces[(size_t)r * rec->nt + it] = vz[rec->cell[r]];
}
void smooth(int n, float *out, const float *in) {
  for (int i = 1; i < n - 1; i++) out[i] = 0.5f * in[i] + 0.25f * (in[i - 1] + in[i + 1]);
}
"#;

/// Samples of the data at stations read from an index array (a
/// seismogram, a probe list) are numbers taken from it: the receivers a
/// function fills that way are a record parameter; a kernel computing its
/// output from neighbours is not.
#[test]
fn seismograms_sampled_at_stations_are_a_record_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let bc = bitcode(dir.path(), "probes.c", PROBES_C, &[]);
    let db = dir.path().join("probes.db");
    let up = analyze_into_db(&[bc], &db).unwrap();
    assert!(var(summary(&up.db, "receivers_record"), "rec").is_record);
    assert!(!var(summary(&up.db, "smooth"), "out").is_record);
}

const OMP_C: &str = r#"void relax(double *u, const double *f, int n) {
#pragma omp parallel for
  for (int i = 1; i < n - 1; i++) u[i] = 0.5 * (u[i - 1] + u[i + 1]) + f[i];
}
"#;

/// A function whose loop is an OpenMP region writes what the region
/// writes through the shared arguments it hands the fork: `relax` writes
/// below `u` (the region's `(*u)[i]`), not below `f`.
#[test]
fn a_function_forking_a_region_writes_what_the_region_writes() {
    let dir = tempfile::tempdir().unwrap();
    let bc = bitcode(dir.path(), "relax.c", OMP_C, &["-fopenmp"]);
    let db = dir.path().join("relax.db");
    let up = analyze_into_db(&[bc], &db).unwrap();
    let writes = summary(&up.db, "relax")
        .param_writes
        .clone()
        .expect("relax's write sets");
    assert!(!writes[0].is_empty(), "u is written: {writes:?}");
    assert!(writes[1].is_empty(), "f is only read: {writes:?}");
}

const STEPS_C: &str = r#"typedef struct { double time, seconds, norm; int iters; } StepRecord;
double wtime(void);
int advance(double *u, int n);
void reduce_max(const double *in, double *out, int n) {
  for (int i = 0; i < n; i++) out[i] = in[i];
}
void print4(const double *t);
void show(double v);
void run(double *u, int n, int nsteps) {
  double timing[2] = {0.0, 0.0}, tmax[2];
  StepRecord rec[64];
  double a[64], b[64];
  for (int step = 0; step < nsteps && step < 64; step++) {
    double t0 = wtime();
    int it = advance(u, n);
    rec[step] = (StepRecord){0.1 * (step + 1), wtime() - t0, u[0], it};
    timing[0] += rec[step].seconds;
  }
  timing[1] = wtime();
  reduce_max(timing, tmax, 2);
  print4(tmax);
  for (int i = 0; i < nsteps && i < 64; i++) show(rec[i].seconds);
  for (int i = 0; i < 64; i++) a[i] = u[i % n];
  for (int k = 0; k < 10; k++) {
    for (int i = 1; i < 63; i++) b[i] = 0.5 * (a[i - 1] + a[i + 1]);
    for (int i = 1; i < 63; i++) a[i] = b[i];
  }
  u[0] = a[1];
}
"#;

/// Step records whose times are summed into a timing array that is
/// reduced into the maxima printed are records, each judged once what it
/// feeds is (`rec` -> `timing` -> `tmax`); a Jacobi pair copying elements
/// of each other (`b[i] = f(a)`, `a[i] = b[i]`) and feeding the solution
/// is data.
#[test]
fn a_chain_of_records_is_judged_one_link_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let bc = bitcode(dir.path(), "steps.c", STEPS_C, &[]);
    let db = dir.path().join("steps.db");
    let up = analyze_into_db(&[bc], &db).unwrap();
    let run = summary(&up.db, "run");
    for name in ["tmax", "timing", "rec"] {
        let v = var(run, name);
        assert!(
            v.is_record || v.is_result,
            "{name} only records numbers: {v:?}"
        );
    }
    for name in ["a", "b"] {
        assert!(!var(run, name).is_record, "{name} feeds the solution");
    }
}

const HANDLE_C: &str = r#"typedef struct { double *u; double *work; double **levels; int n; } Mem;
int solve(void *h, double *u) {
  Mem *m = (Mem *)h;
  m->u = u;
  m->levels[0] = u;
  for (int i = 0; i < m->n; i++) m->u[i] += m->work[i];
  return 0;
}
"#;

/// A solver behind a `void *` handle storing the caller's vector in its
/// memory (`m->u = u` through `Mem *m = (Mem *)h`): the handle's `.u` is
/// the vector, a parameter alias as if the handle were typed; a slot of a
/// per-level array holding it (`levels[0] = u`) is not the vector.
#[test]
fn a_handles_member_set_through_a_cast_holds_the_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let bc = bitcode(dir.path(), "handle.c", HANDLE_C, &[]);
    let db = dir.path().join("handle.db");
    let up = analyze_into_db(&[bc], &db).unwrap();
    let solve = summary(&up.db, "solve");
    let pairs: Vec<((u32, u32), (String, String))> = solve
        .param_aliases
        .iter()
        .copied()
        .zip(solve.param_alias_paths.iter().cloned())
        .collect();
    assert!(
        pairs.contains(&((0, 1), (".u".into(), String::new()))),
        "{pairs:?}"
    );
    assert!(
        !pairs.iter().any(|(_, (a, _))| a.starts_with(".levels")),
        "{pairs:?}"
    );
}

const WORK_C: &str = r#"#include <stdlib.h>
typedef struct { double *v; double *h; int n; } Work;
void work_init(Work *w, int n) {
  w->n = n;
  w->v = calloc((size_t)n, sizeof(double));
  w->h = calloc((size_t)n, sizeof(double));
}
void work_free(Work *w) {
  free(w->v);
  free(w->h);
}
typedef struct { Work gw; double norms[8]; } Mem;
void mem_create(Mem *m) { work_init(&m->gw, 4); }
void mem_free(Mem *m) { work_free(&m->gw); }
"#;

/// A workspace a setup function links to its buffers and a destructor
/// releases is a data structure, not a record: releasing writes nothing
/// (`work_free` has no verdict on its parameter), and a call storing
/// pointers into a member links it (`mem_create`'s `m.gw` is no record).
#[test]
fn a_workspace_set_up_and_released_is_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let bc = bitcode(dir.path(), "work.c", WORK_C, &[]);
    let db = dir.path().join("work.db");
    let up = analyze_into_db(&[bc], &db).unwrap();
    assert!(!var(summary(&up.db, "work_free"), "w").is_record);
    for f in ["mem_create", "mem_free"] {
        let s = summary(&up.db, f);
        assert!(
            s.variables.iter().all(|v| v.name != "m.gw" || !v.is_record),
            "{f}: {:?}",
            s.variables
        );
    }
}
