//! Helpers for end-to-end tests: compile real programs with clang-19, build
//! a static db with `blame analyze`, record with `blame record`, report.
#![allow(dead_code)]

pub mod slurm;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The blame binary, run in an empty directory of its own so that a
/// developer's `.blame/static.db` in the checkout never reaches a test
/// (tests pass absolute paths).
pub fn blame() -> Command {
    let cwd = Path::new(env!("CARGO_TARGET_TMPDIR")).join("blame-tests-cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_blame"));
    cmd.current_dir(cwd);
    cmd
}

pub fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

/// Runs a command and fails the test with its output when it fails.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed with {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn is_cxx(src: &Path) -> bool {
    src.extension().is_some_and(|e| e == "cpp" || e == "cc")
}

fn mpi_flags() -> Vec<String> {
    let out = run_ok(Command::new("mpicc").arg("--showme:compile"));
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Compiles `src` into an optimized binary with debug info in `dir`.
pub fn compile(src: &Path, dir: &Path, mpi: bool) -> PathBuf {
    let exe = dir.join(src.file_stem().unwrap());
    let mut cmd = if mpi {
        let mut c = Command::new("mpicc");
        c.env("OMPI_CC", "clang-19");
        c
    } else if is_cxx(src) {
        Command::new("clang++-19")
    } else {
        Command::new("clang-19")
    };
    run_ok(
        cmd.args(["-g", "-O2", "-fno-omit-frame-pointer"])
            .arg(src)
            .arg("-o")
            .arg(&exe)
            .arg("-lm"),
    );
    exe
}

/// Builds the static db of `src` with clang-19 bitcode and `blame analyze`.
pub fn analyze(src: &Path, dir: &Path, mpi: bool) -> PathBuf {
    let bc = dir.join(format!("{}.bc", src.file_stem().unwrap().to_string_lossy()));
    let mut cmd = Command::new(if is_cxx(src) {
        "clang++-19"
    } else {
        "clang-19"
    });
    cmd.args(["-g", "-O0", "-emit-llvm", "-c"])
        .arg(src)
        .arg("-o")
        .arg(&bc);
    if mpi {
        cmd.args(mpi_flags());
    }
    run_ok(&mut cmd);
    let db = dir.join("static.db");
    run_ok(blame().arg("analyze").arg(&bc).arg("-o").arg(&db));
    db
}

/// Records `argv` into `dir/run` with the default sampler.
pub fn record(dir: &Path, argv: &[&str]) -> PathBuf {
    let run = dir.join("run");
    run_ok(
        blame()
            .args(["record", "-F", "2000", "-o"])
            .arg(&run)
            .arg("--")
            .args(argv),
    );
    run
}

pub fn report_json(args: &[&str]) -> serde_json::Value {
    let out = run_ok(blame().arg("report").args(args).args(["--format", "json"]));
    serde_json::from_slice(&out.stdout).expect("report --format json prints JSON")
}

/// (name, function) → percent, from a by-variable report.
pub fn percents(report: &serde_json::Value) -> Vec<(String, String, f64)> {
    report["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap().to_string(),
                v["function"].as_str().unwrap().to_string(),
                v["total_percent"].as_f64().unwrap(),
            )
        })
        .collect()
}

pub fn percent_of(report: &serde_json::Value, function: &str, name: &str) -> f64 {
    percents(report)
        .into_iter()
        .find(|(n, f, _)| n == name && f == function)
        .map(|x| x.2)
        .unwrap_or(0.0)
}

/// Explicit blame (percent) of `name` in `function` (any function when
/// `None`) in a by-variable report; 0 when not reported.
pub fn explicit_of(report: &serde_json::Value, function: Option<&str>, name: &str) -> f64 {
    report["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == name && function.is_none_or(|f| v["function"] == f))
        .and_then(|v| v["explicit_percent"].as_f64())
        .unwrap_or(0.0)
}

/// A `--compare` report's value of `method` for the variable `name` (of
/// `function`, or any function when `None`); 0 when not reported.
pub fn method_value(
    report: &serde_json::Value,
    name: &str,
    function: Option<&str>,
    method: &str,
) -> f64 {
    report["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == name && function.is_none_or(|f| v["function"] == f))
        .and_then(|v| v["values"][method].as_f64())
        .unwrap_or(0.0)
}

/// The 1-based number of the first line of `src` containing `needle`.
pub fn line_of(src: &Path, needle: &str) -> u32 {
    let text = std::fs::read_to_string(src).unwrap();
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} in {}", src.display())) as u32
        + 1
}

/// Whether this machine lets us sample with perf_event (root, or a
/// permissive perf_event_paranoid). In CI sampling must work: a machine
/// that refuses it fails the test instead of skipping it.
pub fn sampling_allowed() -> bool {
    let root = nix_is_root();
    let paranoid: i32 = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(4);
    let ok = root || paranoid <= 1;
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must be able to sample: run as root or set kernel.perf_event_paranoid<=1"
        );
        eprintln!(
            "skipping: perf_event sampling not permitted here (paranoid={paranoid}, not root)"
        );
    }
    ok
}

fn nix_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|v| v.split_whitespace().nth(1).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// The samples of a recording as JSON values (`blame dump`).
pub fn dump(run: &Path) -> Vec<serde_json::Value> {
    let out = run_ok(blame().arg("dump").arg(run));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("dump prints JSON lines"))
        .collect()
}

/// The recording's manifest.
pub fn manifest(run: &Path) -> serde_json::Value {
    let bytes = std::fs::read(run.join("manifest.json")).expect("manifest.json written");
    serde_json::from_slice(&bytes).expect("manifest is JSON")
}

/// Whether the tests run as root (where a second, unprivileged user can be
/// made for the tests that need one).
pub fn is_root() -> bool {
    nix_is_root()
}

/// An unprivileged user to run blame as, `(uid, gid)`: `blametest`, made
/// with `useradd` when missing. Only root can switch users: elsewhere None
/// (the test skips), except in CI, which runs as root and must not skip.
pub fn unprivileged_user() -> Option<(u32, u32)> {
    if !nix_is_root() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs as root: tests that need a second user must not skip"
        );
        eprintln!("skipping: only root can run blame as another user");
        return None;
    }
    let (uid, gid) = system_user("blametest");
    assert_ne!(uid, 0);
    Some((uid, gid))
}

/// `name` as a system user without a home (made with `useradd` when
/// missing; root only): (uid, gid).
pub fn system_user(name: &str) -> (u32, u32) {
    let id = |flag: &str| -> Option<u32> {
        let out = Command::new("id").args([flag, name]).output().ok()?;
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    };
    if id("-u").is_none() {
        // Another test may be adding it at the same time: check again after.
        let _ = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
            ])
            .arg(name)
            .output();
    }
    (
        id("-u").unwrap_or_else(|| panic!("useradd {name}")),
        id("-g").unwrap_or_else(|| panic!("{name} has a group")),
    )
}

/// Runs `cmd`, killing it after `secs`: None when it had to be killed.
pub fn output_within(cmd: &mut Command, secs: u64) -> Option<Output> {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
