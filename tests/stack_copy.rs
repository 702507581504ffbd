//! Stacks cut short by the user-stack copy (why stacks through MPI solvers
//! lacked their outer frames): a frame with 32 KiB of local arrays puts
//! `main`'s return address beyond the default 8 KiB copy, as
//! `perf record --call-graph dwarf` with its default 8 KiB does too. The
//! recorder says so, naming `--stack-size`; with a copy large enough the
//! stacks reach `main`, as they do with the default hybrid call graphs (the
//! frame-pointer callchain continues past the copy). Needs perf_event (root in CI).

mod e2e_support;
use e2e_support::*;
use std::path::Path;

/// Records `exe` with `extra` arguments; (stderr, share of samples whose stack has main).
fn record_share_with_main(dir: &Path, exe: &Path, name: &str, extra: &[&str]) -> (String, f64) {
    let run = dir.join(name);
    let out = run_ok(
        blame()
            .args(["record", "-F", "1000", "-o"])
            .arg(&run)
            .args(extra)
            .arg("--")
            .arg(exe),
    );
    let samples = dump(&run);
    assert!(samples.len() >= 50, "only {} samples", samples.len());
    let with_main = samples
        .iter()
        .filter(|s| {
            s["stack"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["function"] == "main")
        })
        .count();
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        with_main as f64 / samples.len() as f64,
    )
}

#[test]
fn stacks_cut_by_the_copy_are_reported_and_a_larger_copy_reaches_main() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("big_frames.c"), dir.path(), false);
    let (stderr, share) =
        record_share_with_main(dir.path(), &exe, "small", &["--call-graph", "dwarf"]);
    assert!(share < 0.5, "main in {:.0}% of the stacks", share * 100.0);
    assert!(
        stderr.contains("cut short at the end of the 8192-byte user-stack copy")
            && stderr.contains("--stack-size 65528"),
        "{stderr}"
    );
    let (stderr, share) = record_share_with_main(
        dir.path(),
        &exe,
        "large",
        &["--call-graph", "dwarf", "--stack-size", "65528"],
    );
    assert!(share > 0.9, "main in {:.0}% of the stacks", share * 100.0);
    assert!(!stderr.contains("cut short"), "{stderr}");
    // The default, hybrid: the program keeps frame pointers, so the kernel's
    // callchain continues where the 2 KiB copy ends.
    let (stderr, share) = record_share_with_main(dir.path(), &exe, "hybrid", &[]);
    assert!(
        share > 0.9,
        "hybrid: main in {:.0}% of the stacks",
        share * 100.0
    );
    assert!(!stderr.contains("cut short"), "{stderr}");
}
