//! Table 5.6 on a real program, end to end: the spmv kernel of
//! `bench/datacentric` runs under valgrind's lackey, the evaluation harness
//! (`examples/datacentric_eval.rs`) simulates an L1 cache over the trace and
//! compares each approximate method with direct attribution by data
//! address. Checks that the access-pattern weights put the misses where the
//! addresses say they are, which loop compensation alone cannot on this
//! kernel (every miss is on `sum += val[k] * x[col[k]]`).

mod e2e_support;
use e2e_support::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The harness, an example of blame-post that `cargo test --workspace`
/// builds next to the test binaries.
fn harness() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    let eval = profile_dir.join("examples/datacentric_eval");
    assert!(
        eval.exists(),
        "{} missing: run cargo test --workspace (or cargo build -p blame-post --example datacentric_eval)",
        eval.display()
    );
    eval
}

fn valgrind_present() -> bool {
    let found = Command::new("valgrind").arg("--version").output().is_ok();
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "valgrind missing: scripts/deps.sh installs it"
        );
        eprintln!("skipping: valgrind missing (scripts/deps.sh installs it)");
    }
    found
}

#[test]
fn access_weights_match_direct_attribution_on_spmv() {
    if !valgrind_present() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = root.join("bench/datacentric/kernels/spmv.c");
    run_ok(
        Command::new("clang-19")
            .args(["-shared", "-fPIC", "-O2", "-o"])
            .arg(d.join("libblame_alloc.so"))
            .arg(root.join("alloc-tracer/blame_alloc.c"))
            .arg("-ldl"),
    );
    run_ok(
        Command::new("clang-19")
            .args(["-g", "-O1", "-fno-pie", "-no-pie", "-o"])
            .arg(d.join("spmv"))
            .arg(&src),
    );
    run_ok(
        Command::new("clang-19")
            .args(["-g", "-O0", "-emit-llvm", "-c", "-o"])
            .arg(d.join("spmv.bc"))
            .arg(&src),
    );
    run_ok(
        blame()
            .arg("analyze")
            .arg(d.join("spmv.bc"))
            .arg("-o")
            .arg(d.join("spmv.db")),
    );
    let allocs = d.join("allocs");
    std::fs::create_dir(&allocs).unwrap();
    // 8192 rows: x (64 KiB) does not fit the simulated 32 KiB L1.
    run_ok(
        Command::new("valgrind")
            .args(["--tool=lackey", "--trace-mem=yes"])
            .arg(format!("--log-file={}", d.join("trace").display()))
            .arg(d.join("spmv"))
            .arg("8192")
            .env("BLAME_ALLOC_DIR", &allocs)
            .env("LD_PRELOAD", d.join("libblame_alloc.so")),
    );
    let log = std::fs::read_dir(&allocs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "balloc"))
        .expect("allocation log");
    let out = run_ok(
        Command::new(harness())
            .arg("--binary")
            .arg(d.join("spmv"))
            .arg("--static")
            .arg(d.join("spmv.db"))
            .arg("--trace")
            .arg(d.join("trace"))
            .arg("--allocs")
            .arg(&log)
            .args(["--skid", "3:2", "--period", "7", "--json"]),
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = |m: &str| report["correlation"][m].as_f64().unwrap_or(f64::NAN);
    let overlap = |m: &str| report["overlap"][m].as_f64().unwrap_or(f64::NAN);
    eprintln!(
        "Pearson {}\noverlap {}",
        report["correlation"], report["overlap"]
    );
    let direct = &report["direct"];
    let share = |map: &serde_json::Value, v: &str| {
        let total: f64 = map
            .as_object()
            .unwrap()
            .values()
            .filter_map(|x| x.as_f64())
            .sum();
        map[v].as_f64().unwrap_or(0.0) / total
    };
    // The gather misses most (the addresses say so) ...
    assert!(share(direct, "x") > 0.5, "{report:#}");
    // ... and the access-pattern weights say so too, with and without skid.
    for (m, loop_only) in [
        ("no_skid_loop_access", "no_skid_loop"),
        ("skid_loop_access", "skid_loop_skid"),
    ] {
        assert!(r(m) >= 0.95, "{m}: Pearson {}\n{report:#}", r(m));
        assert!(
            overlap(m) > overlap(loop_only) + 0.2,
            "{m}: overlap {} vs {loop_only} {}",
            overlap(m),
            overlap(loop_only)
        );
    }
    let method = &report["methods"]["skid+loop+access"];
    assert!(share(method, "x") > 0.5, "{report:#}");
    assert!(share(method, "sum") < 0.01, "the accumulator is a register");
}
