//! `blame record` on real programs compiled with clang-19: the hottest
//! stack, every sampler and call-graph mode, MPI ranks, threads, and a
//! recorder or target stopped mid-run. These need perf_event (root in CI).

mod e2e_support;
use e2e_support::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn functions(sample: &Value) -> Vec<String> {
    sample["stack"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["function"].as_str().unwrap().to_string())
        .collect()
}

/// Share of samples whose innermost frames are `callee` called from `caller`.
fn share_of_call(samples: &[Value], callee: &str, caller: &str) -> f64 {
    let hits = samples
        .iter()
        .filter(|s| {
            let f = functions(s);
            f.windows(2).any(|w| w[0] == callee && w[1] == caller) && f[0] == callee
        })
        .count();
    hits as f64 / samples.len().max(1) as f64
}

/// `blame record FLAGS -o RUN -- PROGRAM ARGS`, which must succeed.
fn record_cmd(run: &Path, flags: &[&str], program: &Path, args: &[&str]) -> std::process::Output {
    run_ok(
        blame()
            .arg("record")
            .args(flags)
            .arg("-o")
            .arg(run)
            .arg("--")
            .arg(program)
            .args(args),
    )
}

fn record_hot(extra: &[&str]) -> (tempfile::TempDir, Vec<Value>, Value) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("hot.c"), dir.path(), false);
    let run = dir.path().join("run");
    let flags: Vec<&str> = extra.iter().copied().chain(["-F", "1000"]).collect();
    let out = record_cmd(&run, &flags, &exe, &["30000"]);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(stderr.contains("[ blame record:"), "{stderr}");
    let samples = dump(&run);
    let m = manifest(&run);
    (dir, samples, m)
}

fn check_hot(samples: &[Value], manifest: &Value, mode: &str) {
    assert!(
        samples.len() >= 50,
        "{mode}: only {} samples",
        samples.len()
    );
    assert_eq!(
        manifest["samples"].as_u64().unwrap() as usize,
        samples.len()
    );
    // The machine's L1 data cache, for the access weights of memory events.
    if std::path::Path::new("/sys/devices/system/cpu/cpu0/cache/index0").exists() {
        let line = manifest["cache"]["line_bytes"].as_u64().unwrap_or(0);
        let l1d = manifest["cache"]["l1d_bytes"].as_u64().unwrap_or(0);
        assert!(
            line >= 32 && l1d >= 8192,
            "{mode}: cache {}",
            manifest["cache"]
        );
    }
    let share = share_of_call(samples, "hot_loop", "main");
    assert!(
        share > 0.8,
        "{mode}: main -> hot_loop in {:.0}% of samples; first: {:?}",
        share * 100.0,
        samples.first().map(functions)
    );
    assert_eq!(manifest["exit_status"], 0);
}

#[test]
fn hottest_stack_with_dwarf_unwinding() {
    if !sampling_allowed() {
        return;
    }
    let (_dir, samples, m) = record_hot(&["--call-graph", "dwarf"]);
    check_hot(&samples, &m, "dwarf");
    assert_eq!(m["call_graph"], "dwarf");
    // Unwound through libc to the entry point: full stacks.
    let full = samples
        .iter()
        .filter(|s| functions(s).iter().any(|f| f == "_start"))
        .count();
    assert!(
        full * 10 >= samples.len() * 9,
        "{full} of {} reach _start",
        samples.len()
    );
}

#[test]
fn hottest_stack_with_frame_pointers() {
    if !sampling_allowed() {
        return;
    }
    let (_dir, samples, m) = record_hot(&["--call-graph", "fp"]);
    check_hot(&samples, &m, "fp");
    assert_eq!(m["call_graph"], "fp");
}

#[test]
fn hottest_stack_with_hybrid_call_graphs_by_default() {
    if !sampling_allowed() {
        return;
    }
    let (_dir, samples, m) = record_hot(&[]);
    check_hot(&samples, &m, "hybrid");
    assert_eq!(m["call_graph"], "hybrid");
}

#[test]
fn hottest_stack_with_the_ptrace_sampler() {
    let (_dir, samples, m) = record_hot(&["--sampler", "ptrace"]);
    check_hot(&samples, &m, "ptrace");
    assert_eq!(m["sampler"], "ptrace");
    assert_eq!(m["events"][0]["name"], "cpu-clock");
}

#[test]
fn mpi_ranks_get_their_own_streams() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("quad_mpi.c"), dir.path(), true);
    let run = dir.path().join("run");
    run_ok(
        blame()
            .args(["record", "-F", "2000", "-o"])
            .arg(&run)
            .args([
                "--",
                "mpirun",
                "--allow-run-as-root",
                "--oversubscribe",
                "-np",
                "2",
            ])
            .arg(&exe),
    );
    // One recorder, one node file: every rank (and mpirun) a section of it.
    let files = node_files(&run);
    assert_eq!(files.len(), 1, "{files:?}");
    let m = manifest(&run);
    let procs = m["processes"].as_array().unwrap();
    for rank in [0, 1] {
        let p = procs
            .iter()
            .find(|p| p["rank"] == rank)
            .unwrap_or_else(|| panic!("rank {rank} in {procs:?}"));
        assert_eq!(p["file"], files[0].as_str());
        assert!(p["section"].is_u64(), "{p}");
        assert_eq!(p["launcher"], false);
        assert!(
            p["samples"].as_u64().unwrap() > 0,
            "rank {rank} has samples"
        );
    }
    assert!(
        procs.iter().any(|p| p["launcher"] == true),
        "mpirun is recorded and marked as a launcher"
    );
    let samples = dump(&run);
    for rank in [0, 1] {
        let n = samples.iter().filter(|s| s["rank"] == rank).count();
        assert!(n > 0, "samples of rank {rank}");
    }
}

#[test]
fn threads_are_sampled_separately() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("threads");
    run_ok(
        Command::new("clang-19")
            .args(["-g", "-O2", "-pthread"])
            .arg(program("threads.c"))
            .arg("-o")
            .arg(&exe),
    );
    let run = dir.path().join("run");
    record_cmd(&run, &[], &exe, &[]);
    let samples = dump(&run);
    let thread_of = |f: &str| -> Vec<u64> {
        let mut t: Vec<u64> = samples
            .iter()
            .filter(|s| functions(s)[0] == f)
            .map(|s| s["thread"].as_u64().unwrap())
            .collect();
        t.dedup();
        t
    };
    let (a, b) = (thread_of("work_a"), thread_of("work_b"));
    assert_eq!(a.len(), 1, "work_a runs on one thread: {a:?}");
    assert_eq!(b.len(), 1, "work_b runs on one thread: {b:?}");
    assert_ne!(a, b, "two threads");
    for (f, thread_fn) in [("work_a", "thread_a"), ("work_b", "thread_b")] {
        assert!(
            share_of_call(&samples, f, thread_fn) > 0.3,
            "{f} <- {thread_fn} stacks"
        );
    }
}

/// Starts a long recording of hot.c in the background.
fn start_long_recording(dir: &Path) -> (std::process::Child, std::path::PathBuf) {
    let exe = compile(&program("hot.c"), dir, false);
    let run = dir.join("run");
    let child = blame()
        .args(["record", "-o"])
        .arg(&run)
        .arg("--")
        .arg(&exe)
        .arg("100000000")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the target runs and samples are being taken.
    let start = Instant::now();
    while target_of(child.id()).is_none() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(600));
    (child, run)
}

fn target_of(recorder: u32) -> Option<i32> {
    std::fs::read_to_string(format!("/proc/{recorder}/task/{recorder}/children"))
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Files of an interrupted recording are complete: `blame check` reads
/// them and the manifest's counts match the samples in them.
fn check_complete(run: &Path) -> Value {
    let m = manifest(run);
    for p in m["processes"].as_array().unwrap() {
        let file = run.join(p["file"].as_str().unwrap());
        let out = run_ok(blame().arg("check").arg(&file));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("torn"), "{text}");
    }
    let samples = dump(run);
    assert!(samples.len() > 100, "{} samples", samples.len());
    assert_eq!(m["samples"].as_u64().unwrap() as usize, samples.len());
    m
}

#[test]
fn ctrl_c_to_the_recorder_stops_the_target_and_closes_the_files() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (child, run) = start_long_recording(dir.path());
    nix_kill(child.id() as i32, "INT");
    let out = child.wait_with_output().unwrap();
    // The recorder exits as its target did, as perf: 128 + SIGINT.
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m = check_complete(&run);
    assert_eq!(m["interrupted"], "signal 2");
    assert_eq!(m["signal"], 2, "the target got the forwarded SIGINT");
}

#[test]
fn a_killed_target_leaves_complete_files() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (child, run) = start_long_recording(dir.path());
    let target = target_of(child.id()).expect("target runs");
    nix_kill(target, "KILL");
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(128 + 9),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m = check_complete(&run);
    assert_eq!(m["signal"], 9);
    assert!(String::from_utf8_lossy(&out.stderr).contains("killed by signal 9"));
}

#[test]
fn attach_to_a_running_pid_for_a_duration() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("hot.c"), dir.path(), false);
    let mut target = spawn_quiet(&exe, "100000000");
    std::thread::sleep(Duration::from_millis(200));
    let run = dir.path().join("run");
    let out = blame()
        .args([
            "record",
            "--pid",
            &target.id().to_string(),
            "--duration",
            "0.7",
            "-o",
        ])
        .arg(&run)
        .output()
        .unwrap();
    target.kill().unwrap();
    target.wait().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let samples = dump(&run);
    assert!(samples.len() > 100, "{} samples", samples.len());
    assert!(share_of_call(&samples, "hot_loop", "main") > 0.8);
}

#[test]
fn clear_errors_for_bad_requests() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let out = blame()
        .args(["record", "-e", "cylces", "-o"])
        .arg(&run)
        .args(["--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown event 'cylces'"));

    if sampling_allowed() {
        // A hardware event: recorded where the PMU exists, refused clearly where not.
        let out = blame()
            .args(["record", "-e", "cache-misses", "-o"])
            .arg(&run)
            .args(["--", "true"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            assert!(
                stderr.contains("event 'cache-misses' is not supported on this machine"),
                "{stderr}"
            );
            assert!(!run.exists() || std::fs::read_dir(&run).unwrap().count() == 0);
        }
        // A directory that already holds a recording is not overwritten silently.
        run_ok(
            blame()
                .args(["record", "-f", "-o"])
                .arg(&run)
                .args(["--", "true"]),
        );
        let out = blame()
            .args(["record", "-o"])
            .arg(&run)
            .args(["--", "true"])
            .output()
            .unwrap();
        assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    }

    let out = blame()
        .args(["record", "-o"])
        .arg(dir.path().join("run2"))
        .args(["--", "/nonexistent/program"])
        .output()
        .unwrap();
    // Why, and the shell's status for a command not found.
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("cannot run `/nonexistent/program`: No such file or directory"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(127));
    // A failed recording leaves no directory it made.
    assert!(!dir.path().join("run2").exists());
}

/// Starts `exe ARG` in the background, its output discarded.
fn spawn_quiet(exe: &Path, arg: &str) -> std::process::Child {
    Command::new(exe)
        .arg(arg)
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

fn nix_kill(pid: i32, sig: &str) {
    run_ok(
        Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(pid.to_string()),
    );
}

#[test]
fn track_allocations_logs_heap_blocks_beside_each_stream() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("post_transfer.c"), dir.path(), false);
    let run = dir.path().join("run");
    record_cmd(&run, &["--track-allocations"], &exe, &["50"]);
    let m = manifest(&run);
    let pid = m["processes"][0]["pid"].as_u64().unwrap();
    let log = blame_formats::alloc_log::AllocLog::read(run.join(format!("alloc-{pid}.balloc")))
        .expect("the traced process wrote its allocation log");
    assert_eq!(log.torn_at, None);
    assert!(
        log.events.iter().filter(|e| e.size == 8 << 15).count() >= 2,
        "the program's two big arrays are logged"
    );
    // Post-processing reads the run with its logs.
    run_ok(blame().arg("post").arg(&run));
}

#[test]
fn one_recorder_per_rank_shares_a_directory() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("quad_mpi.c"), dir.path(), true);
    let run = dir.path().join("run");
    run_ok(
        Command::new("mpirun")
            .args(["--allow-run-as-root", "--oversubscribe", "-np", "2"])
            .arg(env!("CARGO_BIN_EXE_blame"))
            .args(["record", "-F", "2000", "-o"])
            .arg(&run)
            .arg("--")
            .arg(&exe),
    );
    let mut names: Vec<String> = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // Each rank's recorder locks its rank (a second job on this -o is
    // refused) and writes its own node file: never one shared by two writers.
    assert_eq!(
        names[..4],
        [
            ".blame-rank-0.lock",
            ".blame-rank-1.lock",
            "manifest-rank-0.json",
            "manifest-rank-1.json",
        ]
    );
    // And the vDSO's copy, for symbolization (the same from every rank).
    assert_eq!(names.len(), 7, "{names:?}");
    assert_eq!(names[6], "vdso.so");
    for (r, name) in names[4..6].iter().enumerate() {
        assert!(
            name.starts_with("node-") && name.ends_with(&format!(".rank-{r}.bnode")),
            "{names:?}"
        );
    }
    let samples = dump(&run);
    for rank in [0, 1] {
        assert!(samples.iter().any(|s| s["rank"] == rank), "rank {rank}");
    }
}

/// The node files of a run directory, by name.
fn node_files(run: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(run)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".bnode"))
        .collect();
    v.sort();
    v
}

#[test]
fn refused_perf_event_open_falls_back_to_ptrace() {
    // A real seccomp filter makes perf_event_open fail with EACCES, as
    // container and cluster policies do.
    let dir = tempfile::tempdir().unwrap();
    let deny = dir.path().join("deny_perf");
    run_ok(
        Command::new("clang-19")
            .arg("-O2")
            .arg(program("deny_perf.c"))
            .arg("-o")
            .arg(&deny),
    );
    let exe = compile(&program("hot.c"), dir.path(), false);
    let run = dir.path().join("run");
    let out = run_ok(
        Command::new(&deny)
            .arg(env!("CARGO_BIN_EXE_blame"))
            .args(["record", "-o"])
            .arg(&run)
            .arg("--")
            .arg(&exe)
            .arg("30000"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("perf_event_open refused") && stderr.contains("ptrace sampler"),
        "{stderr}"
    );
    let m = manifest(&run);
    assert_eq!(m["sampler"], "ptrace");
    let samples = dump(&run);
    check_hot(&samples, &m, "ptrace fallback");
    // Forcing perf_event where it is refused is an error, not a fallback.
    let out = Command::new(&deny)
        .arg(env!("CARGO_BIN_EXE_blame"))
        .args(["record", "--sampler", "perf", "-o"])
        .arg(dir.path().join("run2"))
        .args(["--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("perf_event_open refused"));
}

#[test]
fn kernel_frames_are_kept_and_symbolized_with_kernel() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("syscalls.c"), dir.path(), false);
    let run = dir.path().join("run");
    record_cmd(&run, &["--kernel"], &exe, &[]);
    assert!(
        run.join("kallsyms").is_file(),
        "kernel symbols saved with the run"
    );
    let samples = dump(&run);
    let in_kernel = samples
        .iter()
        .filter(|s| {
            let f = functions(s);
            f[0].ends_with(" [kernel]") && f.iter().any(|x| x == "main")
        })
        .count();
    assert!(
        in_kernel * 2 > samples.len(),
        "{in_kernel} of {} samples have symbolized kernel frames above main",
        samples.len()
    );
    // Without --kernel, user stacks only.
    let run2 = dir.path().join("run2");
    record_cmd(&run2, &[], &exe, &[]);
    assert!(dump(&run2)
        .iter()
        .all(|s| functions(s).iter().all(|f| !f.contains("[kernel"))));
}

#[test]
fn data_addresses_of_page_faults_attribute_directly_to_heap_blocks() {
    if !sampling_allowed() {
        return;
    }
    // page-faults with -d carries the faulting address: a real data-address
    // source without a PMU. Heap blocks are named from the allocation log.
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("heap_faults.c"), dir.path(), false);
    let db = analyze(&program("heap_faults.c"), dir.path(), false);
    let run = dir.path().join("run");
    let flags = [
        "-e",
        "page-faults",
        "-c",
        "1",
        "-d",
        "--call-graph",
        "fp",
        "--track-allocations",
    ];
    record_cmd(&run, &flags, &exe, &[]);
    let report = report_json(&[
        run.to_str().unwrap(),
        "--static",
        db.to_str().unwrap(),
        "--memory-event",
        "page-faults",
        "--compare",
        "direct",
    ]);
    let direct = |name: &str| method_value(&report, name, Some("main"), "direct");
    let (field, halo) = (direct("field"), direct("halo"));
    assert!(
        halo > 100.0 && field > 4.0 * halo,
        "direct attribution: field {field}, halo {halo} (8:1 by size)\n{report:#}"
    );
    // The approximation, from the code alone, agrees: both faults are in
    // `touch(a, n)`, called twice on one line (`touch(field, ..) +
    // touch(halo, ..)`; the return address's column tells the calls apart),
    // and its accumulator `s` and counter `i` take nothing.
    let approx =
        |name: &str, function: &str| method_value(&report, name, Some(function), "loop+access");
    let (afield, ahalo) = (approx("field", "main"), approx("halo", "main"));
    assert!(
        (afield - field).abs() <= 0.05 * field && (ahalo - halo).abs() <= 0.05 * halo,
        "loop+access: field {afield} vs {field}, halo {ahalo} vs {halo}\n{report:#}"
    );
    assert!(approx("s", "touch") < 0.01 * field, "{report:#}");
}

#[test]
fn an_attached_process_that_ends_ends_the_recording() {
    if !sampling_allowed() {
        return;
    }
    // The target is never reaped while we record (its zombie stays in
    // /proc): the recorder must stop on the exit record, not wait for
    // --duration.
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("hot.c"), dir.path(), false);
    let mut target = spawn_quiet(&exe, "40000");
    std::thread::sleep(Duration::from_millis(100));
    let run = dir.path().join("run");
    let start = Instant::now();
    let out = blame()
        .args([
            "record",
            "--pid",
            &target.id().to_string(),
            "--duration",
            "60",
            "-o",
        ])
        .arg(&run)
        .output()
        .unwrap();
    let took = start.elapsed();
    target.wait().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(took < Duration::from_secs(20), "stopped after {took:?}");
    let m = manifest(&run);
    assert_eq!(m["processes"][0]["ended"], true);
    assert!(share_of_call(&dump(&run), "hot_loop", "main") > 0.8);
}

#[test]
fn a_binary_rebuilt_after_the_recording_is_refused() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("hot.c"), dir.path(), false);
    let run = dir.path().join("run");
    record_cmd(&run, &[], &exe, &["3000"]);
    // Same path, different code: its build-id changes.
    run_ok(
        Command::new("clang-19")
            .args(["-g", "-O1"])
            .arg(program("hot.c"))
            .arg("-o")
            .arg(&exe),
    );
    let out = blame().arg("post").arg(&run).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("build-id"), "{stderr}");
}

/// Builds tests/programs/fp_mix.c with frame pointers (as `blame cc` builds
/// programs) against fp_mix_lib.c built as a shared library without them (as
/// libc, libm, MPI and BLAS are built).
fn build_fp_mix(dir: &Path) -> std::path::PathBuf {
    run_ok(
        Command::new("clang-19")
            .args(["-g", "-O2", "-fomit-frame-pointer", "-fPIC", "-shared"])
            .arg(program("fp_mix_lib.c"))
            .arg("-o")
            .arg(dir.join("libfpmix.so"))
            .arg("-lm"),
    );
    let exe = dir.join("fp_mix");
    run_ok(
        Command::new("clang-19")
            .args([
                "-g",
                "-O2",
                "-fno-omit-frame-pointer",
                "-mno-omit-leaf-frame-pointer",
            ])
            .arg(program("fp_mix.c"))
            .arg("-o")
            .arg(&exe)
            .arg(format!("-L{}", dir.display()))
            .arg("-lfpmix")
            .arg(format!("-Wl,-rpath,{}", dir.display()))
            .arg("-lm"),
    );
    exe
}

/// Calling contexts (function:line from the sampled frame up to main; "<cut>"
/// when main is missing) and their shares of the samples; the share of
/// samples reaching main.
fn contexts(samples: &[Value]) -> (std::collections::HashMap<String, f64>, f64) {
    let mut shares = std::collections::HashMap::new();
    let mut with_main = 0;
    for s in samples {
        let frames: Vec<String> = s["stack"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| format!("{}:{}", f["function"].as_str().unwrap(), f["line"]))
            .collect();
        let key = match frames.iter().position(|f| f.starts_with("main:")) {
            Some(i) => {
                with_main += 1;
                frames[..=i].join(" <- ")
            }
            None => frames.join(" <- ") + " <- <cut>",
        };
        *shares.entry(key).or_insert(0.0) += 1.0 / samples.len() as f64;
    }
    (shares, with_main as f64 / samples.len().max(1) as f64)
}

/// Every context holding 4% of one recording's samples holds at least 0.5% of the other's
/// (fp_mix's recursion spreads its samples over a dozen depths of a few percent each: a
/// context of 3.3% in one recording held 0.8% in the other under a loaded machine).
fn assert_same_contexts(a: &[Value], b: &[Value], what: &str) {
    let (ca, main_a) = contexts(a);
    let (cb, main_b) = contexts(b);
    assert!(
        main_a > 0.95 && main_b > 0.95,
        "{what}: main in {main_a:.3} and {main_b:.3} of the stacks"
    );
    for (x, y, name) in [(&ca, &cb, "first"), (&cb, &ca, "second")] {
        for (ctx, share) in x.iter() {
            let other = y.get(ctx).copied().unwrap_or(0.0);
            assert!(
                *share < 0.04 || other >= 0.005,
                "{what}: {ctx} holds {share:.3} of the {name} recording's samples but {other:.3} of the other's"
            );
        }
    }
}

/// Hybrid call graphs (the default) resolve the calling contexts of dwarf
/// unwinding on a program with frame pointers that calls libm and a library
/// without frame pointers from a stack deeper than the 2 KiB copy: leaf frames
/// without frame pointers are unwound from the copy, outer frames come from
/// the kernel's callchain.
#[test]
fn hybrid_call_graphs_resolve_the_contexts_of_dwarf() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = build_fp_mix(dir.path());
    let mut recorded = Vec::new();
    for mode in ["dwarf", "hybrid"] {
        let run = dir.path().join(mode);
        let out = record_cmd(
            &run,
            &["--call-graph", mode, "-F", "2000", "-e", "cpu-clock"],
            &exe,
            &["6000"],
        );
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(!stderr.contains("cut short"), "{mode}: {stderr}");
        assert_eq!(manifest(&run)["call_graph"], mode);
        recorded.push(dump(&run));
    }
    let (dwarf, hybrid) = (&recorded[0], &recorded[1]);
    assert!(dwarf.len() >= 200 && hybrid.len() >= 200);
    assert_same_contexts(dwarf, hybrid, "fp_mix");
    // The library's leaf and libm's below it, under 13 frames of `descend`.
    let (ch, _) = contexts(hybrid);
    let deep = |c: &String| c.matches("descend").count() == 13;
    for leaf in ["lib_sum_sqrt:", "own_work:"] {
        assert!(
            ch.iter()
                .any(|(c, &s)| c.starts_with(leaf) && deep(c) && s > 0.02),
            "{leaf} under 13 descend frames: {ch:?}"
        );
    }
}

/// Where a library without frame pointers uses rbp for data and calls back
/// into the program, the callchain above the callback is broken: hybrid
/// stacks deeper than the copy are cut there, the recorder says so and names
/// `--stack-size`, and a copy as large as dwarf's resolves them again.
#[test]
fn hybrid_stacks_broken_by_a_callback_are_reported_and_a_larger_copy_resolves_them() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = build_fp_mix(dir.path());
    let record = |name: &str, flags: &[&str]| {
        let run = dir.path().join(name);
        let flags: Vec<&str> = flags.iter().copied().chain(["-F", "2000"]).collect();
        let out = record_cmd(&run, &flags, &exe, &["6000", "callback"]);
        (String::from_utf8_lossy(&out.stderr).to_string(), dump(&run))
    };
    let (stderr, _) = record("small", &[]);
    assert!(
        stderr.contains("cut short") && stderr.contains("--stack-size"),
        "{stderr}"
    );
    let (_, dwarf) = record("dwarf", &["--call-graph", "dwarf"]);
    let (stderr, large) = record("large", &["--stack-size", "8192"]);
    assert!(!stderr.contains("cut short"), "{stderr}");
    assert_same_contexts(&dwarf, &large, "fp_mix callback");
}
