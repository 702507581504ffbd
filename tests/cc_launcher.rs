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
