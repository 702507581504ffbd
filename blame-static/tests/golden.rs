//! Golden tests of the static pass against real clang-19 output of the
//! dissertation's example programs (tests/programs, same line numbering as
//! the figures).

mod common;

use blame_formats::static_db::*;
use blame_static::{analyze_module, load_file, LoadError};
use std::path::{Path, PathBuf};
use std::process::Command;

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/programs")
        .join(name)
}

fn compile_with(name: &str, dir: &Path, extra: &[&str]) -> PathBuf {
    let bc = dir.join(format!("{name}.bc"));
    common::compile_file(&program(name), &bc, extra);
    bc
}

/// Summaries of a program compiled with `-g -O0`, by demangled name.
fn summaries(name: &str) -> std::collections::BTreeMap<String, FunctionSummary> {
    let dir = tempfile::tempdir().unwrap();
    let bc = compile_with(name, dir.path(), &["-g"]);
    let m = load_file(&bc).unwrap();
    analyze_module(&m, None)
        .summaries
        .into_iter()
        .map(|s| (s.name.clone(), s))
        .collect()
}

fn var<'a>(f: &'a FunctionSummary, name: &str) -> &'a Variable {
    f.variables
        .iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name} in {}: {:#?}", f.name, f.variables))
}

fn idx(f: &FunctionSummary, name: &str) -> u32 {
    f.variables.iter().position(|v| v.name == name).unwrap() as u32
}

/// Table 3.4: explicit and implicit source lines of `oneFunc` (Figure 3.5).
#[test]
fn table_3_4_one_func() {
    let s = summaries("fig3_5.c");
    let f = &s["oneFunc"];
    let want: [(&str, &[u32], &[u32]); 4] = [
        ("x", &[8, 9, 10, 12], &[10, 11]),
        ("y", &[8, 9, 10, 12], &[10, 11]),
        ("z", &[8, 10, 14], &[]),
        ("s", &[7, 14, 16, 17], &[14, 15]),
    ];
    for (name, explicit, implicit) in want {
        let v = var(f, name);
        assert_eq!(v.explicit_lines, explicit, "explicit lines of {name}");
        assert_eq!(v.implicit_lines, implicit, "implicit lines of {name}");
    }
    // Table 3.4 also gives s.i line 7, the declaration of s: the field
    // mapping `V ≡ V1 -> f` is an IR statement of the dissertation's
    // language, but no instruction in LLVM, and a field is not declared.
    // Everything else matches s.
    let si = var(f, "s.i");
    assert_eq!(si.explicit_lines, [14, 16, 17]);
    assert_eq!(si.implicit_lines, [14, 15]);
    assert_eq!(si.parent, Some(idx(f, "s")));
    // x = y makes them aliases (Table 3.3, statement 1).
    assert_eq!(var(f, "x").aliases, [idx(f, "y")]);
    assert_eq!(f.variables.iter().filter(|v| v.is_exit).count(), 0);
}

/// Table 3.8: blamed lines of each variable of Figure 3.14.
#[test]
fn table_3_8_fig3_14() {
    let s = summaries("fig3_14.c");
    let bar = &s["bar"];
    let want: [(&str, &[u32], bool); 4] = [
        ("i", &[7, 8], false),
        ("loopC", &[7, 8, 9], false),
        ("x", &[7, 8, 9, 11, 12], true),
        ("y", &[7, 8, 9, 11, 14], true),
    ];
    for (name, lines, exit) in want {
        let v = var(bar, name);
        assert_eq!(v.lines(), lines, "lines of {name}");
        assert_eq!(v.is_exit, exit, "exit flag of {name}");
    }
    // Line 11 (if (loopC % 2)) reaches x and y only through control flow.
    assert!(var(bar, "x").implicit_lines.contains(&11));
    assert!(!var(bar, "x").explicit_lines.contains(&11));
    assert_eq!(var(bar, "x").param_index, Some(0));
    assert_eq!(var(bar, "y").param_index, Some(1));
    assert_eq!(
        bar.loops,
        vec![LoopInfo {
            header_line: 8,
            lines: vec![8, 9],
            parent: None
        }]
    );

    let foo = &s["foo"];
    for (name, lines) in [
        ("se", &[19, 20, 21][..]),
        ("se.sX", &[20]),
        ("se.sY", &[21]),
    ] {
        assert_eq!(var(foo, name).lines(), lines, "lines of {name}");
    }
    assert_eq!(var(foo, "se.sX").parent, Some(idx(foo, "se")));
    assert_eq!(var(foo, "se").type_name, "StructEx");
    assert_eq!(var(foo, "se.sX").type_name, "int *");
    // Line 22, in parentheses in Table 3.8, is the call to bar: which field
    // it blames is decided by the transfer function at the call site.
    let call = foo
        .call_sites
        .iter()
        .find(|c| c.callee.as_deref() == Some("bar"))
        .unwrap();
    assert_eq!(call.line, 22);
    assert_eq!(call.model, None);
    assert_eq!(
        call.outputs,
        vec![
            OutputBinding {
                output: CallOutput::Arg(0),
                blamed: vec![idx(foo, "se.sX")],
                explicit: vec![idx(foo, "se.sX")],
                // The memory passed: the field itself (a read through `x`
                // inside bar reads se.sX's pointee).
                pointees: vec![idx(foo, "se.sX")],
                field: String::new(),
            },
            OutputBinding {
                output: CallOutput::Arg(1),
                blamed: vec![idx(foo, "se.sY")],
                explicit: vec![idx(foo, "se.sY")],
                pointees: vec![idx(foo, "se.sY")],
                field: String::new(),
            },
        ]
    );
    let malloc = foo
        .call_sites
        .iter()
        .find(|c| c.callee.as_deref() == Some("malloc"))
        .unwrap();
    assert_eq!(malloc.model, Some(vec![CallOutput::Return]));
    assert!(s["main"]
        .variables
        .iter()
        .all(|v| v.kind == VarKind::Return));
    for f in s.values() {
        f.validate().unwrap();
        assert!(f.has_line_info);
    }
}

/// Figure 3.12: doStuffOnSide makes x take blame from y.
#[test]
fn fig3_12_side_effect() {
    let s = summaries("fig3_12.c");
    assert_eq!(
        s["doStuffOnSide"].side_effects,
        vec![SideEffect {
            blamed_param: 0,
            from_param: 1,
            implicit: false,
            ..Default::default()
        }]
    );
    let baz = &s["baz"];
    assert!(baz.side_effects.is_empty());
    let c = &baz.call_sites[0];
    assert_eq!(c.callee.as_deref(), Some("doStuffOnSide"));
    assert_eq!(c.line, 11);
    assert_eq!(c.outputs[0].blamed, vec![idx(baz, "x")]);
    assert_eq!(c.outputs[1].blamed, vec![idx(baz, "y")]);
    assert_eq!(var(baz, "x").lines(), [12]);
}

/// Figure 3.13: absorbEV aliases x with s->x; doStuff writes through s->x.
#[test]
fn fig3_13_side_effect_alias() {
    let s = summaries("fig3_13.c");
    let absorb = &s["absorbEV"];
    assert_eq!(absorb.param_aliases, vec![(0, 1)]);
    assert!(absorb.side_effects.contains(&SideEffect {
        blamed_param: 1,
        from_param: 0,
        implicit: false,
        ..Default::default()
    }));
    let do_stuff = &s["doStuff"];
    let sx = var(do_stuff, "s.x");
    assert_eq!(sx.kind, VarKind::Field);
    assert!(sx.is_exit);
    assert_eq!(sx.type_name, "int *");
    assert_eq!(sx.lines(), [10]);
    let top = &s["top"];
    let names: Vec<(&str, Vec<u32>)> = top
        .call_sites
        .iter()
        .map(|c| {
            (
                c.callee.as_deref().unwrap(),
                c.outputs.iter().flat_map(|o| o.blamed.clone()).collect(),
            )
        })
        .collect();
    let (x, sv) = (idx(top, "x"), idx(top, "s"));
    assert_eq!(
        names,
        vec![("absorbEV", vec![x, sv]), ("doStuff", vec![sv])]
    );
}

/// Figure 5.1: y = x makes the reads through y reads of x's memory.
#[test]
fn fig5_1_pointer_aliasing() {
    let s = summaries("fig5_1.c");
    let f = &s["f"];
    let (x, y) = (idx(f, "x"), idx(f, "y"));
    assert_eq!(var(f, "x").aliases, vec![y]);
    assert_eq!(var(f, "y").aliases, vec![x]);
    let line = |l: u32| {
        f.reads
            .iter()
            .find(|r| r.line == l)
            .map(|r| r.reads.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        line(5),
        vec![MemRead {
            variable: x,
            index: ReadIndex::Const(15)
        }]
    );
    assert_eq!(
        line(7),
        vec![MemRead {
            variable: y,
            index: ReadIndex::Const(14)
        }]
    );
}

/// Figure 5.2: the distinct reads of each line and the loop.
#[test]
fn fig5_2_reads_and_loop() {
    let s = summaries("fig5_2.c");
    let f = &s["loop"];
    let (x, y, a, b) = (idx(f, "x"), idx(f, "y"), idx(f, "a"), idx(f, "b"));
    let r = |variable, index| MemRead { variable, index };
    let line = |l: u32| {
        let mut v = f
            .reads
            .iter()
            .find(|r| r.line == l)
            .map(|r| r.reads.clone())
            .unwrap_or_default();
        v.sort();
        v
    };
    let sorted = |mut v: Vec<MemRead>| {
        v.sort();
        v
    };
    assert_eq!(
        line(4),
        sorted(vec![
            r(x, ReadIndex::Var(a)),
            r(y, ReadIndex::Var(b)),
            r(a, ReadIndex::None),
            r(b, ReadIndex::None)
        ])
    );
    assert_eq!(
        line(5),
        sorted(vec![
            r(y, ReadIndex::Var(a)),
            r(y, ReadIndex::Var(b)),
            r(a, ReadIndex::None),
            r(b, ReadIndex::None)
        ])
    );
    assert_eq!(
        line(6),
        sorted(vec![r(x, ReadIndex::Var(b)), r(b, ReadIndex::None)])
    );
    assert_eq!(f.loops.len(), 1);
    assert_eq!(f.loops[0].header_line, 3);
    // clang puts the back-edge branch on the closing brace (line 7).
    assert_eq!(f.loops[0].lines, vec![3, 4, 5, 6, 7]);
}

/// Structs of structs, arrays of structs, pointer fields and globals.
#[test]
fn structs_arrays_and_globals() {
    let s = summaries("structs.c");
    let step = &s["step"];
    let x = var(step, "w.parts.pos.x");
    assert_eq!(x.kind, VarKind::Field);
    assert_eq!(x.type_name, "double");
    assert!(x.is_exit);
    assert!(x.lines().contains(&10));
    assert!(!x.lines().contains(&11));
    let pos = var(step, "w.parts.pos");
    assert_eq!(x.parent, Some(idx(step, "w.parts.pos")));
    assert!(pos.lines().contains(&10) && pos.lines().contains(&11));
    assert_eq!(var(step, "w.temperature").lines(), [13]);
    let g = var(step, "g_energy");
    assert_eq!(g.kind, VarKind::Global);
    assert!(g.is_exit);
    assert_eq!(g.write_lines, [14]);
    // dt flows into w (a side effect: w is blamed by dt).
    assert!(step.side_effects.contains(&SideEffect {
        blamed_param: 0,
        from_param: 1,
        implicit: false,
        ..Default::default()
    }));
    let main = &s["main"];
    assert_eq!(var(main, "world.n").write_lines, [28]);
    let c = main
        .call_sites
        .iter()
        .find(|c| c.callee.as_deref() == Some("step"))
        .unwrap();
    assert!(c.outputs[0].blamed.contains(&idx(main, "world")));
    assert!(var(&s["kinetic"], "return").lines().contains(&21));
}

/// A value argument names the variables it is read from (`axpy(x,
/// -alpha, p, n)` binds argument 1 to alpha, blaming nothing itself), so
/// the callee's side effect from it reaches the caller; an extern array
/// declared here without debug info is typed from the IR.
#[test]
fn value_arguments_name_their_sources() {
    let s = summaries("byvalue_side_effect.c");
    assert!(s["axpy"].side_effects.contains(&SideEffect {
        blamed_param: 0,
        from_param: 1,
        implicit: false,
        ..Default::default()
    }));
    let f = &s["update"];
    let c = f
        .call_sites
        .iter()
        .find(|c| c.callee.as_deref() == Some("axpy"))
        .unwrap();
    let a = c
        .outputs
        .iter()
        .find(|o| o.output == CallOutput::Arg(1))
        .expect("a binding of the value argument");
    assert!(a.blamed.is_empty() && a.explicit.is_empty(), "{a:?}");
    assert!(a.pointees.contains(&idx(f, "alpha")), "{a:?}");
    let n = c.outputs.iter().find(|o| o.output == CallOutput::Arg(3));
    assert!(n.is_none_or(|o| o.pointees.contains(&idx(f, "n"))), "{n:?}");
    assert_eq!(var(f, "grid").type_name, "double [64][64]");
    assert_eq!(var(f, "grid").kind, VarKind::Global);
    // sum3(const double *v) cannot write loc: out, copied from loc after
    // the call, is not computed by it; *s is.
    let g = &s["gather"];
    assert!(var(g, "s").explicit_lines.contains(&33));
    assert!(
        !var(g, "out").explicit_lines.contains(&33),
        "{:?}",
        var(g, "out")
    );
    assert!(var(g, "out").explicit_lines.contains(&34));
}

/// A C++ class: demangled names, `this` fields, member functions.
#[test]
fn cxx_member_function() {
    let s = summaries("cxx_class.cpp");
    let relax = &s["Grid::relax(double)"];
    assert_eq!(relax.linkage_name, "_ZN4Grid5relaxEd");
    let this = var(relax, "this");
    assert_eq!(this.kind, VarKind::Param);
    assert!(this.is_exit);
    assert_eq!(var(relax, "this.cells").lines(), [8, 9]);
    assert!(var(relax, "this.total").lines().contains(&10));
    let main = &s["main"];
    let call = main
        .call_sites
        .iter()
        .find(|c| c.callee.as_deref() == Some("_ZN4Grid5relaxEd"))
        .unwrap();
    assert!(call.outputs[0].blamed.contains(&idx(main, "g")));
    assert!(var(main, "g.cells").aliases.contains(&idx(main, "buf")));
}

#[test]
fn without_debug_info_the_analysis_still_runs() {
    let dir = tempfile::tempdir().unwrap();
    let bc = compile_with("fig3_14.c", dir.path(), &[]);
    let m = load_file(&bc).unwrap();
    let r = analyze_module(&m, None);
    assert_eq!(r.summaries.len(), 3);
    for f in &r.summaries {
        assert!(!f.has_line_info, "{}", f.name);
        assert!(f.lines.is_empty());
        f.validate().unwrap();
    }
}

#[test]
fn bad_inputs_have_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.bc");
    std::fs::write(&text, "this is not bitcode\n").unwrap();
    assert!(matches!(
        load_file(&text),
        Err(LoadError::NotBitcode { .. })
    ));

    let truncated = dir.path().join("trunc.bc");
    let bc = compile_with("fig3_14.c", dir.path(), &["-g"]);
    let bytes = std::fs::read(&bc).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    assert!(matches!(
        load_file(&truncated),
        Err(LoadError::Invalid { .. } | LoadError::NewerLlvm { .. })
    ));

    let empty = dir.path().join("empty.ll");
    std::fs::write(
        &empty,
        "; ModuleID = 'e'\nsource_filename = \"e.c\"\ndeclare i32 @puts(ptr)\n",
    )
    .unwrap();
    assert!(matches!(load_file(&empty), Err(LoadError::Empty { .. })));

    // What LLVM 19 says about bitcode from a newer producer.
    let e = blame_static::llvm_loader::classify_parse_error(
        "x.bc",
        true,
        "Unknown attribute kind (102) (Producer: 'LLVM21.1.0' Reader: 'LLVM 19.1.7')".into(),
    );
    assert!(matches!(e, LoadError::NewerLlvm { .. }), "{e}");
    assert!(e.to_string().contains("newer LLVM"));
}

#[test]
fn textual_ir_loads_like_bitcode() {
    let dir = tempfile::tempdir().unwrap();
    let ll = dir.path().join("f.ll");
    let out = Command::new("clang-19")
        .args(["-g", "-O0", "-emit-llvm", "-S"])
        .arg(program("fig3_14.c"))
        .arg("-o")
        .arg(&ll)
        .output()
        .unwrap();
    assert!(out.status.success());
    let from_ll = analyze_module(&load_file(&ll).unwrap(), None).summaries;
    let bc = compile_with("fig3_14.c", dir.path(), &["-g"]);
    let from_bc = analyze_module(&load_file(&bc).unwrap(), None).summaries;
    assert_eq!(from_ll, from_bc);
}

#[test]
fn unchanged_functions_reuse_their_cached_summary() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(program("fig3_14.c")).unwrap();
    let a = dir.path().join("a.c");
    std::fs::write(&a, &src).unwrap();
    let compile = |path: &Path, out: &str| {
        let bc = dir.path().join(out);
        assert!(Command::new("clang-19")
            .args(["-g", "-O0", "-emit-llvm", "-c"])
            .arg(path)
            .arg("-o")
            .arg(&bc)
            .status()
            .unwrap()
            .success());
        load_file(&bc).unwrap()
    };
    let m1 = compile(&a, "a1.bc");
    let first = analyze_module(&m1, None);
    let mut db = StaticDb::default();
    for s in first.summaries {
        db.insert(s);
    }
    // Same lines, one function body changed.
    std::fs::write(&a, src.replace("loopC++;", "loopC += 2;")).unwrap();
    let m2 = compile(&a, "a2.bc");
    let second = analyze_module(&m2, Some(&db));
    assert_eq!(second.reused, 2);
    let redone: Vec<&str> = second.timings.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(redone, vec!["bar"]);
}

/// Per-parameter write sets: a call to a body of the module may-defines
/// only what that body writes through each argument; side effects carry
/// the field paths written and read.
#[test]
fn write_sets_and_side_effect_paths() {
    let s = summaries("write_sets.c");
    let step = &s["step"];
    // kernel() writes app->x.array[..] only: the cycle count (line 22)
    // and the time (21) are not computed from the calls before them.
    for (name, line) in [("app.cycle", 22), ("app.time", 21)] {
        let v = var(step, name);
        assert_eq!(v.explicit_lines, vec![line], "{v:?}");
    }
    // gather() fills out from app->coords: tmp from app.coords, not from
    // all of app (through the local copy c); scale() writes v->array from
    // the value of a.
    assert!(
        s["gather"].side_effects.contains(&SideEffect {
            blamed_param: 1,
            from_param: 0,
            from_path: ".coords".into(),
            ..Default::default()
        }),
        "{:?}",
        s["gather"].side_effects
    );
    // A call reads what its read set says, below the argument: the norm
    // of app->x (line 36) is computed from kernel()'s write (34), while the
    // accessor cycle_of() reads nothing, so the cycle count (35) is not.
    let adv = &s["advance"];
    let e = var(adv, "e");
    assert!(e.explicit_lines.contains(&34), "{e:?}");
    let cycle = var(adv, "app.cycle");
    assert!(!cycle.explicit_lines.contains(&34), "{cycle:?}");
    assert!(
        s["scale"]
            .side_effects
            .iter()
            .any(|e| e.blamed_param == 0 && e.blamed_path == ".array" && e.from_param == 1),
        "{:?}",
        s["scale"].side_effects
    );
}

/// OpenMP: a `parallel for` forks a region of the module, which writes
/// `unew` and only reads `u` and `f` (the fork's model blames the shared
/// variables the region writes); the reduction's private copy of `sum` is
/// named as the compiler's, the shared `sum` takes its blame.
#[test]
fn openmp_regions_write_only_what_they_write() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("kernels.bc");
    common::compile_file(
        &program("corpus/jacobi/kernels.c"),
        &bc,
        &["-g", "-fopenmp"],
    );
    let m = load_file(&bc).unwrap();
    let s: std::collections::BTreeMap<String, FunctionSummary> = analyze_module(&m, None)
        .summaries
        .into_iter()
        .map(|s| (s.name.clone(), s))
        .collect();
    let sweep = &s["jacobi_sweep"];
    let fork = sweep
        .call_sites
        .iter()
        .find(|c| c.callee.as_deref() == Some("__kmpc_fork_call"))
        .expect("the fork");
    let model = fork.model.clone().expect("a library model");
    // __kmpc_fork_call(loc, argc, region, &nx, &ny, &u, &h2, &f, &unew, &omega)
    // in the order the region captures them; only unew is written.
    let written: Vec<String> = model
        .iter()
        .filter_map(|o| match o {
            CallOutput::Arg(k) => fork
                .outputs
                .iter()
                .find(|b| b.output == CallOutput::Arg(*k))
                .and_then(|b| b.pointees.first())
                .map(|&v| sweep.variables[v as usize].name.clone()),
            CallOutput::Return => None,
        })
        .collect();
    assert_eq!(written, ["unew"], "{model:?}");
    let region = &s["residual_norm.omp_outlined_debug__"];
    assert!(region.variables.iter().any(|v| v.name == ".private.sum"));
    let shared = var(region, "sum");
    assert!(
        shared.is_exit && shared.explicit_lines.contains(&27),
        "{shared:?}"
    );
}
