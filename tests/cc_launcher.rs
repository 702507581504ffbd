//! `blame cc` as a compiler launcher on real compiles: the object is built
//! as without it and the unit's summaries land in the static db; a failing
//! compile fails exactly as without the launcher; mpicc works in front of it.

mod e2e_support;
use e2e_support::*;
use std::process::Command;

/// What `blame check` says of a static db.
fn check(db: &std::path::Path) -> String {
    String::from_utf8_lossy(&run_ok(blame().arg("check").arg(db)).stdout).into_owned()
}

#[test]
fn a_compile_through_the_launcher_builds_the_object_and_fills_the_db() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db/static.db");
    let obj = dir.path().join("hot.o");
    run_ok(
        blame()
            .env("BLAME_DB", &db)
            .args(["cc", "--", "clang-19", "-g", "-O2", "-c"])
            .arg(program("hot.c"))
            .arg("-o")
            .arg(&obj),
    );
    assert!(obj.is_file(), "the object is built");
    let text = check(&db);
    assert!(
        text.contains("static db") && text.contains("3 functions"),
        "{text}"
    );
    // The db then serves post-processing of a program linked from the object.
    let exe = dir.path().join("hot");
    run_ok(Command::new("clang-19").arg(&obj).arg("-o").arg(&exe));
    run_ok(Command::new(&exe).arg("10"));
}

#[test]
fn a_failing_compile_fails_as_without_the_launcher() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.c");
    std::fs::write(&bad, "int main(void) { return undeclared; }\n").unwrap();
    let plain = Command::new("clang-19")
        .arg("-c")
        .arg(&bad)
        .arg("-o")
        .arg(dir.path().join("a.o"))
        .output()
        .unwrap();
    let launched = blame()
        .env("BLAME_DB", dir.path().join("static.db"))
        .args(["cc", "--", "clang-19", "-c"])
        .arg(&bad)
        .arg("-o")
        .arg(dir.path().join("b.o"))
        .output()
        .unwrap();
    assert!(!plain.status.success());
    assert_eq!(launched.status.code(), plain.status.code());
    assert!(String::from_utf8_lossy(&launched.stderr).contains("use of undeclared identifier"));
    assert!(!dir.path().join("b.o").exists());
}

#[test]
fn mpicc_behind_the_launcher() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("static.db");
    run_ok(
        blame()
            .env("BLAME_DB", &db)
            .env("OMPI_CC", "clang-19")
            .args(["cc", "--", "mpicc", "-g", "-O2", "-c"])
            .arg(program("quad_mpi.c"))
            .arg("-o")
            .arg(dir.path().join("quad_mpi.o")),
    );
    assert!(dir.path().join("quad_mpi.o").is_file());
    let text = check(&db);
    assert!(text.contains("2 functions"), "f and main: {text}");
}

#[test]
fn a_static_db_of_an_older_blame_is_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("static.db");
    // A version-1 preamble (before access patterns were recorded).
    let mut old = b"BLAMESDB".to_vec();
    old.extend_from_slice(&1u32.to_le_bytes());
    old.extend_from_slice(&0u32.to_le_bytes());
    std::fs::write(&db, &old).unwrap();
    let out = blame()
        .env("BLAME_DB", &db)
        .args(["cc", "--", "clang-19", "-g", "-O2", "-c"])
        .arg(program("hot.c"))
        .arg("-o")
        .arg(dir.path().join("hot.o"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("written by an older blame") && err.contains("delete it"),
        "{err}"
    );
    // The compile itself succeeds (the launcher only warns) and the old db
    // is left as it was.
    assert!(out.status.success() && dir.path().join("hot.o").is_file());
    assert_eq!(std::fs::read(&db).unwrap(), old);
}

/// A unit that defines no function (only data) compiles quietly: nothing to
/// analyze is no warning.
#[test]
fn a_unit_of_data_only_compiles_silently() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("e.c");
    std::fs::write(&src, "#ifdef UNUSED\nvoid f(void) {}\n#endif\nint x;\n").unwrap();
    let out = run_ok(
        blame()
            .env("BLAME_DB", dir.path().join("s.db"))
            .args(["cc", "--", "clang-19", "-g", "-O2", "-c"])
            .arg(&src)
            .arg("-o")
            .arg(dir.path().join("e.o")),
    );
    assert!(dir.path().join("e.o").is_file());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "no warning");
}

/// When the extra step fails, the warning names the user's source file,
/// never the temporary bitcode it analyzed.
#[test]
fn warnings_name_the_source_not_a_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("static.db");
    // A db no blame can read: the analysis step fails after the compile.
    std::fs::write(&db, b"BLAMESDB\x01\x00\x00\x00\x00\x00\x00\x00").unwrap();
    let out = blame()
        .env("BLAME_DB", &db)
        .args(["cc", "--", "clang-19", "-g", "-O2", "-c"])
        .arg(program("hot.c"))
        .arg("-o")
        .arg(dir.path().join("hot.o"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("hot.c"), "{err}");
    assert!(
        !err.contains(".bc") && !err.contains("blame-cc-"),
        "a temporary file named: {err}"
    );
}

/// clang homes a class's debug info in the unit of its constructor
/// (`-fno-standalone-debug` is its default): `blame cc` compiles the
/// analysis bitcode with `-fstandalone-debug`, so a unit using the class
/// alone still names its members.
#[test]
fn members_of_a_class_homed_elsewhere_are_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("dom.h"),
        "struct Dom {\n  Dom(int n);\n  int n;\n  double *x;\n  double *e;\n};\n",
    )
    .unwrap();
    let src = dir.path().join("t.cc");
    std::fs::write(
        &src,
        "#include \"dom.h\"\nvoid advance(Dom &d) { for (int i = 0; i < d.n; i++) d.x[i] = 0.5 * d.x[i] + 1.0; }\n\
         void energy(Dom &d) { for (int i = 0; i < d.n; i++) d.e[i] += 2.0; }\n",
    )
    .unwrap();
    let db = dir.path().join("static.db");
    run_ok(
        blame()
            .env("BLAME_DB", &db)
            .args(["cc", "--", "clang++-19", "-g", "-O2", "-c"])
            .arg(&src)
            .arg("-o")
            .arg(dir.path().join("t.o")),
    );
    // A sample on advance's loop blames `d.x`, by the member's name.
    let sample = serde_json::json!({
        "stack": [{"function": "advance(Dom&)", "file": src.display().to_string(), "line": 2}],
        "event": "cycles", "weight": 1, "rank": 0, "thread": 1,
    });
    let samples = dir.path().join("samples.jsonl");
    std::fs::write(&samples, sample.to_string()).unwrap();
    let report = report_json(&[
        "--samples",
        samples.to_str().unwrap(),
        "--static",
        db.to_str().unwrap(),
    ]);
    let names: Vec<String> = percents(&report).into_iter().map(|(n, _, _)| n).collect();
    assert!(names.iter().any(|n| n == "d.x"), "{names:?}");
    assert!(!names.iter().any(|n| n.contains("field")), "{names:?}");
}

/// One compile through the capture plugin builds exactly the plain
/// compile's object (with the frame-pointer flags off; with them on, the
/// plain compile given those flags), writes the dependency file as the
/// plain compile does, and queues the unit, which `blame cc --wait` drains.
#[test]
fn the_captured_compile_builds_the_plain_object_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("static.db");
    let flags = ["-g", "-O2", "-MMD", "-Wall", "-DREPS=3", "-c"];
    let compile = |out: &str, extra: &[&str], through_blame: bool, fp: bool| {
        let mut c = if through_blame {
            let mut c = blame();
            c.env("BLAME_DB", &db).args(["cc", "--", "clang-19"]);
            if !fp {
                c.env("BLAME_CC_FRAME_POINTERS", "0");
            }
            c
        } else {
            Command::new("clang-19")
        };
        // The same directory: it is in the debug info.
        c.current_dir(dir.path())
            .args(extra)
            .args(flags)
            .arg(program("hot.c"))
            .arg("-o")
            .arg(dir.path().join(out));
        run_ok(&mut c);
        std::fs::read(dir.path().join(out)).unwrap()
    };
    let plain = compile("plain.o", &[], false, false);
    let plain_deps = std::fs::read_to_string(dir.path().join("plain.d")).unwrap();
    let captured = compile("captured.o", &[], true, false);
    assert!(
        plain == captured,
        "the object differs from the plain compile's"
    );
    let deps = std::fs::read_to_string(dir.path().join("captured.d")).unwrap();
    assert_eq!(deps.replace("captured.o", "plain.o"), plain_deps);
    let fp_flags = ["-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer"];
    let plain_fp = compile("plain_fp.o", &fp_flags, false, false);
    let captured_fp = compile("captured_fp.o", &[], true, true);
    assert!(
        plain_fp == captured_fp,
        "frame pointers: only the two flags differ"
    );
    let out = run_ok(blame().env("BLAME_DB", &db).args(["cc", "--wait"]));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr)
            .matches("warning")
            .count(),
        0
    );
    assert!(check(&db).contains("3 functions"), "{}", check(&db));
    let queue = dir.path().join("static.queue");
    let left = std::fs::read_dir(&queue)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.path()
                .extension()
                .is_some_and(|x| x == "bc" || x == "job")
        })
        .count();
    assert_eq!(left, 0, "the queue is drained");
}

/// A compiler that is not clang 19 (gcc) compiles unchanged; a clang-19
/// front end of blame's own makes the analysis bitcode.
#[test]
fn gcc_compiles_unchanged_and_clang_makes_the_analysis_bitcode() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("static.db");
    let obj = dir.path().join("hot.o");
    run_ok(
        blame()
            .env("BLAME_DB", &db)
            .env("BLAME_CC_FRAME_POINTERS", "0")
            .current_dir(dir.path())
            .args(["cc", "--", "gcc", "-g", "-O2", "-c"])
            .arg(program("hot.c"))
            .arg("-o")
            .arg(&obj),
    );
    let plain = dir.path().join("plain.o");
    run_ok(
        Command::new("gcc")
            .current_dir(dir.path())
            .args(["-g", "-O2", "-c"])
            .arg(program("hot.c"))
            .arg("-o")
            .arg(&plain),
    );
    assert!(std::fs::read(&obj).unwrap() == std::fs::read(&plain).unwrap());
    assert!(check(&db).contains("3 functions"), "{}", check(&db));
}

/// `blame analyze` writes where `blame cc` does: `$BLAME_DB` when set.
#[test]
fn analyze_writes_the_db_blame_db_names() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("hot.bc");
    run_ok(
        Command::new("clang-19")
            .args(["-g", "-O0", "-emit-llvm", "-c"])
            .arg(program("hot.c"))
            .arg("-o")
            .arg(&bc),
    );
    let db = dir.path().join("named.db");
    run_ok(blame().env("BLAME_DB", &db).arg("analyze").arg(&bc));
    assert!(check(&db).contains("3 functions"), "{}", check(&db));
}
