//! Table 5.6 on a real program, end to end: the spmv kernel of
//! `bench/datacentric` runs under valgrind's lackey, the evaluation harness
//! (`examples/datacentric_eval.rs`) simulates an L1 cache over the trace and
//! compares each approximate method with direct attribution by data
//! address. Checks that the access-pattern weights put the misses where the
//! addresses say they are, which loop compensation alone cannot on this
//! kernel (every miss is on `sum += val[k] * x[col[k]]`); likewise on
//! mv_row (a cached vector known by its heap block's size) and gemm_scale
//! (an output row rescaled in place before its accumulation).

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

/// A kernel of `bench/datacentric/kernels` built as `run.sh` builds it, run
/// under lackey with the allocation tracer; the harness's JSON report
/// (`extra`: more harness options).
struct Traced {
    _dir: tempfile::TempDir,
    binary: PathBuf,
    db: PathBuf,
    trace: PathBuf,
    log: PathBuf,
}

fn trace_kernel(kernel: &str, args: &[&str]) -> Traced {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = root.join(format!("bench/datacentric/kernels/{kernel}.c"));
    run_ok(
        Command::new("clang-19")
            .args(["-shared", "-fPIC", "-O2", "-static-libgcc", "-o"])
            .arg(d.join("libblame_alloc.so"))
            .arg(root.join("alloc-tracer/blame_alloc.c"))
            .args(["-ldl", "-lm"]),
    );
    run_ok(
        Command::new("clang-19")
            .args(["-g", "-O1", "-fno-pie", "-no-pie", "-o"])
            .arg(d.join(kernel))
            .arg(&src)
            .arg("-lm"),
    );
    run_ok(
        Command::new("clang-19")
            .args(["-g", "-O0", "-emit-llvm", "-c", "-o"])
            .arg(d.join("k.bc"))
            .arg(&src),
    );
    run_ok(
        blame()
            .arg("analyze")
            .arg(d.join("k.bc"))
            .arg("-o")
            .arg(d.join("k.db")),
    );
    let allocs = d.join("allocs");
    std::fs::create_dir(&allocs).unwrap();
    run_ok(
        Command::new("valgrind")
            .args(["--tool=lackey", "--trace-mem=yes"])
            .arg(format!("--log-file={}", d.join("trace").display()))
            .arg(d.join(kernel))
            .args(args)
            .env("BLAME_ALLOC_DIR", &allocs)
            .env("LD_PRELOAD", d.join("libblame_alloc.so")),
    );
    let log = std::fs::read_dir(&allocs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "balloc"))
        .expect("allocation log");
    Traced {
        binary: d.join(kernel),
        db: d.join("k.db"),
        trace: d.join("trace"),
        log,
        _dir: dir,
    }
}

impl Traced {
    fn report(&self, extra: &[&str]) -> serde_json::Value {
        let out = run_ok(
            Command::new(harness())
                .arg("--binary")
                .arg(&self.binary)
                .arg("--static")
                .arg(&self.db)
                .arg("--trace")
                .arg(&self.trace)
                .arg("--allocs")
                .arg(&self.log)
                .args(["--skid", "3:2", "--period", "7", "--json"])
                .args(extra),
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

/// A variable's share of the misses in one column of the report.
fn share(map: &serde_json::Value, v: &str) -> f64 {
    let total: f64 = map
        .as_object()
        .unwrap()
        .values()
        .filter_map(|x| x.as_f64())
        .sum();
    map[v].as_f64().unwrap_or(0.0) / total
}

#[test]
fn access_weights_match_direct_attribution_on_spmv() {
    if !valgrind_present() {
        return;
    }
    // 8192 rows: x (64 KiB) does not fit the simulated 32 KiB L1.
    let report = trace_kernel("spmv", &["8192"]).report(&[]);
    let r = |m: &str| report["correlation"][m].as_f64().unwrap_or(f64::NAN);
    let overlap = |m: &str| report["overlap"][m].as_f64().unwrap_or(f64::NAN);
    eprintln!(
        "Pearson {}\noverlap {}",
        report["correlation"], report["overlap"]
    );
    let direct = &report["direct"];
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

/// Issue 20: `y = W x` with the input vector `x` (2.5 KB) a heap block
/// passed as a parameter. Both reads of the miss line have stride 8; only
/// the block's size, from the allocation log, tells that `x` stays in the
/// L1 while the weights stream. Without the sizes the vector takes about
/// half of the misses.
#[test]
fn heap_block_sizes_keep_a_cached_vector_out_of_the_misses() {
    if !valgrind_present() {
        return;
    }
    // 300 outputs: W is 750 KB, x 2.5 KB.
    let traced = trace_kernel("mv_row", &["300"]);
    let report = traced.report(&[]);
    let direct = &report["direct"];
    assert!(share(direct, "weights") > 0.9, "{report:#}");
    let method = &report["methods"]["skid+loop+access"];
    for m in ["no_skid_loop_access", "skid_loop_access"] {
        let r = report["correlation"][m].as_f64().unwrap_or(f64::NAN);
        let o = report["overlap"][m].as_f64().unwrap_or(f64::NAN);
        assert!(
            r >= 0.95 && o >= 0.85,
            "{m}: Pearson {r}, overlap {o}\n{report:#}"
        );
    }
    assert!(share(method, "inputs") < 0.05, "{report:#}");
    let blind = traced.report(&["--no-heap-sizes"]);
    let without = share(&blind["methods"]["skid+loop+access"], "inputs");
    assert!(without > 0.3, "without sizes, inputs {without}\n{blind:#}");
}

/// Issue 35: each row of C rescaled in place (`c[i][j] *= beta`), then
/// accumulated in the order i, k, j with B streaming, C two-dimensional with
/// a column count fixed at compile time. The row (768 bytes) stays in the
/// L1: C misses only in the rescaling pass, B on the accumulation line. The
/// read table bounds the row's sweep by its pitch and knows the rescaling
/// pass swept it before, so the accumulation line's misses go to B; before,
/// with only the 36 KB matrix to bound the sweep, C took half of them
/// (Pearson 0.69, overlap 0.51).
#[test]
fn an_output_rescaled_before_its_accumulation_misses_only_in_the_rescaling() {
    if !valgrind_present() {
        return;
    }
    let report = trace_kernel("gemm_scale", &[]).report(&[]);
    assert!(share(&report["direct"], "b") > 0.9, "{report:#}");
    for m in ["no_skid_loop_access", "skid_loop_access"] {
        let r = report["correlation"][m].as_f64().unwrap_or(f64::NAN);
        let o = report["overlap"][m].as_f64().unwrap_or(f64::NAN);
        assert!(
            r >= 0.95 && o >= 0.85,
            "{m}: Pearson {r}, overlap {o}\n{report:#}"
        );
    }
    let method = &report["methods"]["skid+loop+access"];
    assert!(share(method, "c") < 0.05, "{report:#}");
}
