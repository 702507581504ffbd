//! What the static pass names, on real clang-19 output: globals as the
//! program spells them (demangled, qualified), function-static locals under
//! their function, no string literal or other compiler-made global, types
//! with each qualifier once, and class members by name even where clang
//! left the class declared only (constructor homing).

mod common;

use blame_formats::static_db::*;
use blame_static::{analyze_into_db, analyze_module, load_file};
use std::path::Path;

use common::{bitcode, var};

fn summaries(bc: &Path) -> Vec<FunctionSummary> {
    analyze_module(&load_file(bc).unwrap(), None).summaries
}

fn function<'a>(s: &'a [FunctionSummary], name: &str) -> &'a FunctionSummary {
    s.iter()
        .find(|f| f.name == name || f.name.starts_with(&format!("{name}(")))
        .unwrap_or_else(|| panic!("no function {name}"))
}

const C_PROGRAM: &str = r#"#include <stdio.h>
typedef int Index_t;
double table[8];
void f(const Index_t *const p, Index_t *const q, const Index_t *r, int n) {
  static double buf[100];
  for (int i = 0; i < n; i++) buf[i] += p[i] + r[i];
  q[0] = (Index_t)buf[1];
  printf("hello %d\n", q[0]);
  puts("a literal");
  table[1] = buf[2];
}
"#;

#[test]
fn function_statics_are_their_functions_locals_and_literals_are_no_variables() {
    let dir = tempfile::tempdir().unwrap();
    let s = summaries(&bitcode(dir.path(), "k.c", C_PROGRAM, &[]));
    let f = function(&s, "f");
    // `static double buf[100]` is f's, by its source name (symbol `f.buf`).
    let buf = var(f, "buf");
    assert_eq!(buf.kind, VarKind::Local);
    assert_eq!(buf.line, 5);
    assert_eq!(var(f, "table").kind, VarKind::Global);
    // The format strings (`.str`, `.str.1`) are not variables.
    for v in &f.variables {
        assert!(!v.name.is_empty(), "a variable without a name: {v:#?}");
        assert!(!v.name.starts_with(".str"), "{}", v.name);
    }
    // Each qualifier once, a pointer's after its `*`.
    assert_eq!(var(f, "p").type_name, "const Index_t *const");
    assert_eq!(var(f, "q").type_name, "Index_t *const");
    assert_eq!(var(f, "r").type_name, "const Index_t *");
}

const CXX_PROGRAM: &str = r#"#include <iostream>
namespace ns { double g[10]; }
struct S { static int count; };
int S::count = 3;
void f(int k) {
  static double buf[100];
  buf[k] += 1;
  std::cout << "x" << ns::g[k] << S::count << buf[k];
}
int main() { f(1); }
"#;

#[test]
fn cxx_globals_are_demangled_and_qualified() {
    let dir = tempfile::tempdir().unwrap();
    let s = summaries(&bitcode(dir.path(), "k.cc", CXX_PROGRAM, &[]));
    let f = function(&s, "f");
    let names: Vec<&str> = f.variables.iter().map(|v| v.name.as_str()).collect();
    // `_ZSt4cout`, declared without debug info in this unit: the C++
    // library's own stream, never a program variable.
    assert!(!names.contains(&"std::cout"), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("_ZSt")), "{names:?}");
    assert!(names.contains(&"ns::g"), "{names:?}");
    assert!(names.contains(&"S::count"), "{names:?}");
    assert_eq!(var(f, "buf").kind, VarKind::Local, "_ZZ1fiE3buf is f's");
    for v in s.iter().flat_map(|f| &f.variables) {
        assert!(!v.name.is_empty(), "a variable without a name: {v:#?}");
        assert!(!v.name.starts_with("_Z"), "mangled: {}", v.name);
    }
}

const DOM_H: &str = "struct Dom {\n  Dom(int n);\n  int n;\n  double *x;\n  double *e;\n};\n";

/// With clang's defaults a class whose constructor is in another unit is
/// only declared in this one; analyzed together with that unit, its members
/// are named as declared, never `field1`.
#[test]
fn a_class_homed_in_another_unit_has_its_members_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dom.h"), DOM_H).unwrap();
    let user = bitcode(
        dir.path(),
        "t.cc",
        "#include \"dom.h\"\nvoid advance(Dom &d) { for (int i = 0; i < d.n; i++) d.x[i] += 1; }\n",
        &[],
    );
    let home = bitcode(
        dir.path(),
        "dom.cc",
        "#include \"dom.h\"\nDom::Dom(int n_) : n(n_), x(0), e(0) {}\n",
        &[],
    );
    // Alone, the unit only declares Dom.
    let alone = summaries(&user);
    let fields: Vec<&str> = function(&alone, "advance")
        .variables
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert!(
        !fields.contains(&"d.x"),
        "the test no longer shows constructor homing: {fields:?}"
    );
    let db = dir.path().join("static.db");
    let up = analyze_into_db(&[user, home], &db).unwrap();
    let advance = up
        .db
        .functions
        .values()
        .find(|f| f.name.starts_with("advance"))
        .unwrap();
    assert_eq!(var(advance, "d.x").type_name, "double *");
    assert!(advance.variables.iter().all(|v| !v.name.contains("field")));
}

/// A unit of data only is nothing to analyze, not an error; the db is not
/// even created for it.
#[test]
fn a_unit_without_functions_is_no_error() {
    let dir = tempfile::tempdir().unwrap();
    let bc = bitcode(dir.path(), "e.c", "int x;\n", &[]);
    let db = dir.path().join("static.db");
    let up = analyze_into_db(std::slice::from_ref(&bc), &db).unwrap();
    assert_eq!(up.without_functions, [bc.display().to_string()]);
    assert!(!db.exists());
}

/// An unnamed parameter (`int` in `g(double *a, int, P)`) is nothing the
/// source can name: no variable, and no field path `.x` below it.
#[test]
fn unnamed_parameters_are_no_variables() {
    let dir = tempfile::tempdir().unwrap();
    let s = summaries(&bitcode(
        dir.path(),
        "u.cc",
        "struct P { double x; };\ndouble g(double *a, int, P) { return a[0] * 2; }\n\
         int main() { double v[2] = {1, 2}; return (int)g(v, 1, P{}); }\n",
        &[],
    ));
    let g = function(&s, "g");
    let names: Vec<&str> = g.variables.iter().map(|v| v.name.as_str()).collect();
    assert!(names.contains(&"a"), "{names:?}");
    for v in s.iter().flat_map(|f| &f.variables) {
        assert!(
            !v.name.is_empty() && !v.name.starts_with('.'),
            "a variable without a name: {v:#?}"
        );
    }
}
