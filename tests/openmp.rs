//! OpenMP programs: the samples of an outlined parallel region reach the
//! variables its enclosing function shares, on the master thread (whose
//! stack passes through `__kmpc_fork_call`) and on the worker threads
//! (whose stacks start in the runtime and are completed with the master's).

mod e2e_support;

use e2e_support::*;
use std::process::Command;

#[test]
fn parallel_regions_blame_the_shared_arrays_of_main_on_every_thread() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let obj = dir.path().join("t.o");
    run_ok(
        blame()
            .env("BLAME_DB", &db)
            .args(["cc", "--", "clang-19", "-g", "-O2", "-fopenmp", "-c"])
            .arg(program("omp_solver.c"))
            .arg("-o")
            .arg(&obj),
    );
    let exe = dir.path().join("omp_solver");
    run_ok(
        Command::new("clang-19")
            .args(["-g", "-fopenmp"])
            .arg(&obj)
            .arg("-o")
            .arg(&exe),
    );
    let run = dir.path().join("run");
    run_ok(
        blame()
            .env("OMP_NUM_THREADS", "2")
            // Idle workers sleep instead of spinning in the runtime.
            .env("OMP_WAIT_POLICY", "passive")
            .args(["record", "-F", "2000", "-o"])
            .arg(&run)
            .arg("--")
            .arg(&exe),
    );
    run_ok(blame().arg("post").arg(&run).arg("--static").arg(&db));
    let r = report_json(&[run.to_str().unwrap(), "--static", db.to_str().unwrap()]);
    // Shares of the samples that reached a variable: threads waiting in the
    // runtime (more of them on a loaded machine) compute none.
    let covered = r["coverage"]["percent"].as_f64().unwrap();
    let explicit = |name: &str| 100.0 * explicit_of(&r, Some("main"), name) / covered;
    // relax (3 sweeps per step) computes u, rhs computes f.
    let (u, f) = (explicit("u"), explicit("f"));
    assert!(u >= 65.0, "u {u}% in {r}");
    assert!(
        (2.0..=35.0).contains(&f),
        "f {f}% (relax only reads it) in {r}"
    );
    for v in r["variables"].as_array().unwrap() {
        if v["derived"] == true {
            continue;
        }
        // A worker's sample whose stack the runtime left without the
        // master's frames (none of the master's samples in that region to
        // complete it from) stays in the region: one sample in a few
        // thousand, in some runs. A data structure the regions keep is more.
        let percent = v["total_percent"].as_f64().unwrap();
        assert!(
            v["function"] == "main" || percent < 1.0,
            "a data structure left in a region: {v}"
        );
    }
    // Samples of threads waiting in the runtime (barriers, idle workers:
    // more on a loaded machine) compute no variable; the rest all do.
    let coverage = &r["coverage"];
    let runtime: f64 = coverage["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| {
            let why = x["reason"].as_str().unwrap_or("");
            why.contains("libomp") || why.contains("__kmp") || why.contains("runtime's own thread")
        })
        .map(|x| x["percent"].as_f64().unwrap())
        .sum();
    assert!(covered + runtime >= 95.0, "coverage {coverage}");
}
