//! Files on a machine shared with other users, and honest failures: the
//! fault and bad-input cases of RELIABILITY.md ("Files, locks and exit
//! codes"). Temporary files never follow a planted symlink, `blame cc`
//! never uses a temporary directory it did not make, a run directory of
//! another user is refused, two recorders never share one, `blame record`
//! exits as its command did, and bad inputs fail quickly with one message.

mod e2e_support;
use e2e_support::*;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The next `n` process ids the kernel will hand out (as an attacker
/// guesses them), wrapping at pid_max.
fn next_pids(n: u32) -> Vec<u32> {
    let read = |p: &str| -> u32 { std::fs::read_to_string(p).unwrap().trim().parse().unwrap() };
    let last = read("/proc/sys/kernel/ns_last_pid");
    let max = read("/proc/sys/kernel/pid_max");
    (1..=n)
        .map(|i| {
            let p = last + i;
            if p >= max {
                300 + p - max
            } else {
                p
            }
        })
        .collect()
}

/// A file outside the directory blame writes, that a planted symlink aims at.
fn victim() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let v = d.path().join("root-only-file");
    std::fs::write(&v, b"secret\n").unwrap();
    std::fs::set_permissions(&v, std::fs::Permissions::from_mode(0o600)).unwrap();
    (d, v)
}

/// Plants a symlink to `target` at `name(pid)` in `dir` for the next pids.
fn plant_symlinks(dir: &Path, target: &Path, name: impl Fn(u32) -> String) {
    for pid in next_pids(3000) {
        let _ = std::os::unix::fs::symlink(target, dir.join(name(pid)));
    }
}

fn assert_untouched(victim: &Path) {
    let now = std::fs::read(victim).unwrap();
    assert!(
        now == b"secret\n",
        "a file outside the directory was written through a planted symlink ({} bytes now)",
        now.len()
    );
}

/// Names of regular files (not the planted symlinks) in `dir`.
fn regular_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().symlink_metadata().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// JSON-lines samples of `n` distinct functions.
fn write_samples(path: &Path, n: usize) {
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!(
            "{{\"stack\":[{{\"function\":\"leaf_{i:x}_{}\",\"file\":\"f{i}.c\",\"line\":{}}},{{\"function\":\"main\",\"file\":\"main.c\",\"line\":3}}],\"event\":\"cpu-clock\",\"rank\":{}}}\n",
            i * 7919,
            i + 1,
            i % 3
        ));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn results_are_not_written_through_symlinks_planted_at_temporary_names() {
    let dir = tempfile::tempdir().unwrap();
    let (_v, victim) = victim();
    let samples = dir.path().join("s.jsonl");
    write_samples(&samples, 20);
    // The names the writer used to take: results.tmp.PID.
    plant_symlinks(dir.path(), &victim, |pid| format!("results.tmp.{pid}"));
    let out = dir.path().join("results.bres");
    run_ok(
        blame()
            .args(["post", "--samples"])
            .arg(&samples)
            .arg("-o")
            .arg(&out),
    );
    assert_untouched(&victim);
    assert!(out.symlink_metadata().unwrap().is_file());
    let check = run_ok(blame().arg("check").arg(&out));
    assert!(
        String::from_utf8_lossy(&check.stdout).contains("results of 3 processes"),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    assert_eq!(regular_files(dir.path()), ["results.bres", "s.jsonl"]);
}

#[test]
fn the_static_db_is_not_written_through_symlinks_planted_at_temporary_names() {
    let dir = tempfile::tempdir().unwrap();
    let (_v, victim) = victim();
    let bc = dir.path().join("hot.bc");
    run_ok(
        Command::new("clang-19")
            .args(["-g", "-O0", "-emit-llvm", "-c"])
            .arg(program("hot.c"))
            .arg("-o")
            .arg(&bc),
    );
    let db = dir.path().join("static.db");
    plant_symlinks(dir.path(), &victim, |pid| format!("static.tmp.{pid}"));
    run_ok(blame().arg("analyze").arg(&bc).arg("-o").arg(&db));
    assert_untouched(&victim);
    let check = run_ok(blame().arg("check").arg(&db));
    assert!(
        String::from_utf8_lossy(&check.stdout).contains("3 functions"),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    assert_eq!(
        regular_files(dir.path()),
        ["hot.bc", "static.db", "static.lock"]
    );
}

#[test]
fn the_manifest_the_allocation_tracer_and_its_logs_are_not_written_through_planted_symlinks() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (_v, victim) = victim();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    plant_symlinks(&run, &victim, |pid| format!(".{pid}.tmp"));
    plant_symlinks(&run, &victim, |pid| format!(".blame_alloc.{pid}.tmp"));
    // And the allocation logs the preloaded tracer writes, planted once the
    // recording runs (planted before, they would be an earlier recording),
    // at the next pids: `/bin/true` then runs as one of them.
    let started = dir.path().join("started");
    let go = dir.path().join("go");
    let script = format!(
        "touch {s}; while [ ! -e {g} ]; do sleep 0.05; done; /bin/true",
        s = started.display(),
        g = go.display()
    );
    let recorder = blame()
        .args(["record", "--track-allocations", "-o"])
        .arg(&run)
        .args(["--", "sh", "-c", &script])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !started.exists() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the recording never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    plant_symlinks(&run, &victim, |pid| format!("alloc-{pid}.balloc"));
    std::fs::write(&go, b"").unwrap();
    let out = recorder.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_untouched(&victim);
    manifest(&run);
    for f in ["manifest.json", ".blame_alloc.so"] {
        let m = run.join(f).symlink_metadata().unwrap();
        assert!(m.is_file(), "{f} is a regular file");
    }
    assert!(
        regular_files(&run).iter().all(|f| !f.ends_with(".tmp")),
        "{:?}",
        regular_files(&run)
    );
}

/// A fake `clang-19` in front of the real one that records where it writes
/// its bitcode and that directory's mode, in `log`.
fn logging_clang(bin: &Path, log: &Path) {
    let real = String::from_utf8(run_ok(Command::new("which").arg("clang-19")).stdout).unwrap();
    let script = format!(
        "#!/bin/sh\nout=\nprev=\nfor a in \"$@\"; do [ \"$prev\" = -o ] && out=\"$a\"; prev=\"$a\"; done\n[ -n \"$BLAME_CAPTURE_BITCODE\" ] && out=\"$BLAME_CAPTURE_BITCODE\"\nd=$(dirname \"$out\")\necho \"$d $(stat -c %a \"$d\") $(stat -c %U \"$d\")\" >> {}\nexec {} \"$@\"\n",
        log.display(),
        real.trim()
    );
    std::fs::create_dir_all(bin).unwrap();
    let path = bin.join("clang-19");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn path_with(bin: &Path) -> String {
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap())
}

#[test]
fn blame_cc_never_uses_a_temporary_directory_someone_else_made() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // Another user's world-writable directories at the names blame cc used to take.
    let planted: Vec<PathBuf> = next_pids(3000)
        .into_iter()
        .map(|pid| tmp.join(format!("blame-cc-{pid}")))
        .collect();
    for p in &planted {
        std::fs::create_dir(p).unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    let bin = dir.path().join("bin");
    let log = dir.path().join("clang.log");
    logging_clang(&bin, &log);
    let db = dir.path().join("static.db");
    let obj = dir.path().join("hot.o");
    run_ok(
        blame()
            .env("TMPDIR", &tmp)
            .env("PATH", path_with(&bin))
            .env("BLAME_DB", &db)
            .args(["cc", "--", "clang-19", "-g", "-O2", "-c"])
            .arg(program("hot.c"))
            .arg("-o")
            .arg(&obj),
    );
    for p in &planted {
        assert_eq!(
            std::fs::read_dir(p).unwrap().count(),
            0,
            "blame cc wrote its bitcode into {}",
            p.display()
        );
    }
    // Lines "DIR MODE OWNER" of each clang run (where its output, or the
    // capture plugin's bitcode, goes): the bitcode goes to the queue beside
    // the db, private to the user.
    let log = std::fs::read_to_string(&log).unwrap();
    let queue = dir.path().join("static.queue");
    let private = log
        .lines()
        .find(|l| Path::new(l.split_whitespace().next().unwrap_or("")) == queue)
        .unwrap_or_else(|| panic!("the bitcode compile is logged: {log}"));
    let fields: Vec<&str> = private.split_whitespace().collect();
    assert_eq!(fields[1], "700", "a private directory: {private}");
    let check = run_ok(blame().arg("check").arg(&db));
    assert!(String::from_utf8_lossy(&check.stdout).contains("3 functions"));
    // Nothing left in the queue once the db has the unit.
    let left: Vec<_> = std::fs::read_dir(&queue)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".bc") || n.ends_with(".job"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A queue directory anybody can write (planted before the first build) is
/// refused: the compile succeeds, the warning says why, nothing goes there.
#[test]
fn a_world_writable_analysis_queue_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("static.db");
    let queue = dir.path().join("static.queue");
    std::fs::create_dir(&queue).unwrap();
    std::fs::set_permissions(&queue, std::fs::Permissions::from_mode(0o777)).unwrap();
    let obj = dir.path().join("hot.o");
    let out = run_ok(
        blame()
            .env("BLAME_DB", &db)
            .args(["cc", "--", "clang-19", "-g", "-O2", "-c"])
            .arg(program("hot.c"))
            .arg("-o")
            .arg(&obj),
    );
    assert!(obj.is_file());
    let err = stderr(&out);
    assert!(
        err.contains("no blame summary for") && err.contains("writable by every user"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&queue).unwrap().count(), 0);
}

/// A fake `clang-19` that says it started, then takes `secs` seconds.
fn slow_clang(bin: &Path, started: &Path, secs: u32) {
    std::fs::create_dir_all(bin).unwrap();
    let path = bin.join("clang-19");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\ntouch {}\nsleep {secs}\nexit 1\n",
            started.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn blame_cc_dirs(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("blame-cc-"))
        .collect()
}

#[test]
fn a_killed_blame_cc_leaves_no_temporary_directory() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // What a `blame cc` killed with SIGKILL an hour ago left (its pid is gone);
    // and one of a process that still runs (this test), which stays.
    let dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    let _ = { dead }.wait();
    let stale = tmp.join(format!("blame-cc-{dead_pid}-AbC123"));
    let live = tmp.join(format!("blame-cc-{}-XyZ789", std::process::id()));
    for d in [&stale, &live] {
        std::fs::create_dir(d).unwrap();
        std::fs::write(d.join("tu0.bc"), b"x").unwrap();
        std::fs::File::open(d)
            .unwrap()
            .set_modified(std::time::SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
    }
    let bin = dir.path().join("bin");
    let started = dir.path().join("started");
    slow_clang(&bin, &started, 2);
    // The real compile is plain `cc`; the slow clang-19 is the bitcode step.
    let mut child = blame()
        .env("TMPDIR", &tmp)
        .env("PATH", path_with(&bin))
        .env("BLAME_DB", dir.path().join("static.db"))
        .args(["cc", "--", "cc", "-c"])
        .arg(program("hot.c"))
        .arg("-o")
        .arg(dir.path().join("hot.o"))
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !started.exists() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "bitcode step never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!stale.exists(), "the dead process's directory is removed");
    assert!(live.exists(), "a live process's directory stays");
    // blame cc itself makes none (its bitcode goes to the db's queue).
    assert_eq!(blame_cc_dirs(&tmp).len(), 1, "{:?}", blame_cc_dirs(&tmp));
    nix_kill(child.id(), 15);
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(15), "dies of the signal: {status}");
    assert_eq!(
        blame_cc_dirs(&tmp),
        [live.file_name().unwrap().to_string_lossy().into_owned()]
    );
    // Nor anything in its analysis queue.
    let queue = dir.path().join("static.queue");
    let left = std::fs::read_dir(&queue).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0, "queue {} holds files", queue.display());
}

fn nix_kill(pid: u32, sig: i32) {
    run_ok(
        Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(pid.to_string()),
    );
}

#[test]
fn a_run_directory_of_another_user_is_refused() {
    let Some((uid, gid)) = unprivileged_user() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("theirs");
    std::fs::create_dir(&run).unwrap();
    std::os::unix::fs::chown(&run, Some(uid), Some(gid)).unwrap();
    let out = blame()
        .args(["record", "-o"])
        .arg(&run)
        .args(["--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("belongs to blametest"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_dir(&run).unwrap().count(),
        0,
        "nothing written"
    );
    // Nor a directory every user can write into.
    let open = dir.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = blame()
        .args(["record", "-o"])
        .arg(&open)
        .args(["--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("writable by every user"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_read_only_output_directory_is_one_clear_error_before_the_command_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let ro = dir.path().join("ro");
    let scratch = dir.path().join("scratch");
    std::fs::create_dir(&ro).unwrap();
    std::fs::create_dir(&scratch).unwrap();
    let marker = scratch.join("ran");
    let mut cmd = blame();
    cmd.current_dir(dir.path())
        .args(["record", "-o"])
        .arg(&ro)
        .args(["--", "sh", "-c"])
        .arg(format!(
            "touch {}; for i in 1 2 3 4 5 6 7 8; do sh -c true; done",
            marker.display()
        ));
    // Root writes anywhere: run as a user for whom the directory is read-only.
    if is_root() {
        let Some((uid, gid)) = unprivileged_user() else {
            return;
        };
        for d in [&ro, &scratch] {
            std::os::unix::fs::chown(d, Some(uid), Some(gid)).unwrap();
        }
        cmd.uid(uid).gid(gid);
    }
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = output_within(&mut cmd, 60).expect("blame record returns");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot create files here"), "{err}");
    assert!(err.contains("Permission denied"), "{err}");
    assert_eq!(
        err.lines().filter(|l| l.contains("ermission")).count(),
        1,
        "{err}"
    );
    assert!(!marker.exists(), "the command did not run");
}

fn record_exit(argv: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    blame()
        .args(["record", "-o"])
        .arg(dir.path().join("run"))
        .arg("--")
        .args(argv)
        .output()
        .unwrap()
}

#[test]
fn blame_record_exits_as_its_command_did() {
    if !sampling_allowed() {
        return;
    }
    let out = record_exit(&["sh", "-c", "exit 3"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let out = record_exit(&["sh", "-c", "kill -9 $$"]);
    assert_eq!(out.status.code(), Some(128 + 9), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("killed by signal 9"),
        "{}",
        stderr(&out)
    );
    let out = record_exit(&["true"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn blame_record_says_why_a_command_cannot_start() {
    if !sampling_allowed() {
        return;
    }
    let out = record_exit(&["no-such-command-anywhere"]);
    assert_eq!(out.status.code(), Some(127), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot run `no-such-command-anywhere`: command not found in PATH"),
        "{}",
        stderr(&out)
    );
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("not-executable.sh");
    std::fs::write(&script, "#!/bin/sh\necho hi\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = record_exit(&[script.to_str().unwrap()]);
    // Root may run anything with an x bit: this file has none.
    assert_eq!(out.status.code(), Some(126), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Permission denied"),
        "{}",
        stderr(&out)
    );
    let missing = dir.path().join("missing");
    let out = record_exit(&[missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(127), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("No such file or directory"),
        "{}",
        stderr(&out)
    );
    // A FIFO or a directory where the program should be is named as such.
    let fifo = dir.path().join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .args(["-m", "755"])
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for (path, what) in [
        (&fifo, "a FIFO"),
        (&dir.path().to_path_buf(), "a directory"),
    ] {
        let out = record_exit(&[path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(126), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("is {what}, not a program")),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn a_rate_above_the_kernels_limit_names_the_limit_and_the_sysctl() {
    if !sampling_allowed() {
        return;
    }
    let Some(limit) = std::fs::read_to_string("/proc/sys/kernel/perf_event_max_sample_rate")
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok())
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = blame()
        .args(["record", "-F"])
        .arg((limit + 1).to_string())
        .arg("-o")
        .arg(dir.path().join("run"))
        .args(["--", "true"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains(&limit.to_string()) && err.contains("perf_event_max_sample_rate"),
        "{err}"
    );
    assert!(
        !dir.path().join("run").exists(),
        "a failed record leaves no run"
    );
}

#[test]
fn a_second_recorder_and_a_post_are_refused_while_a_recording_runs() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let started = dir.path().join("started");
    let first = blame()
        .args(["record", "-o"])
        .arg(&run)
        .args(["--", "sh", "-c"])
        .arg(format!("touch {}; sleep 4", started.display()))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !started.exists() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the first recording never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Even --force, which replaces an earlier recording, must not touch this one.
    let second = output_within(
        blame()
            .args(["record", "--force", "-o"])
            .arg(&run)
            .args(["--", "true"]),
        30,
    )
    .expect("the second recorder returns at once");
    let err = stderr(&second);
    assert_eq!(second.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "another `blame record` (pid {}) is recording into",
            first.id()
        )),
        "{err}"
    );
    let post = output_within(blame().arg("post").arg(&run), 30).expect("post returns at once");
    let err = stderr(&post);
    assert_eq!(post.status.code(), Some(1), "{err}");
    assert!(err.contains("is still recording into"), "{err}");
    let first = first.wait_with_output().unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    assert_eq!(
        manifest(&run)["command"][0],
        "sh",
        "the first run is intact"
    );
}

#[test]
fn a_fifo_named_like_a_stream_fails_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let fifo = run.join("x.bstream");
    run_ok(Command::new("mkfifo").arg(&fifo));
    for args in [
        vec!["check".to_string(), fifo.display().to_string()],
        vec!["post".to_string(), run.display().to_string()],
        vec!["dump".to_string(), run.display().to_string()],
    ] {
        let out = output_within(blame().args(&args), 20)
            .unwrap_or_else(|| panic!("blame {args:?} hangs on a FIFO"));
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("not a regular file (a FIFO)"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_zero_or_negative_duration_is_refused() {
    let me = std::process::id().to_string();
    for d in ["0", "-1", "nan", "0.0"] {
        let out = output_within(
            blame()
                .args(["record", "--pid", &me])
                .arg(format!("--duration={d}")),
            30,
        )
        .expect("returns");
        assert_eq!(
            out.status.code(),
            Some(2),
            "--duration {d}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("positive number of seconds"),
            "{}",
            stderr(&out)
        );
    }
}

/// Runs `blame ARGS` with writes to files limited to `blocks` (the shell's
/// `ulimit -f`): a write past it fails as on a full disk.
fn blame_with_file_limit(blocks: u32, args: &[&std::ffi::OsStr]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_blame"))
        .args(args);
    cmd.output().unwrap()
}

#[test]
fn a_full_disk_keeps_the_old_file_and_leaves_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let samples = dir.path().join("s.jsonl");
    write_samples(&samples, 50);
    let html = dir.path().join("out.html");
    let res = dir.path().join("r.bres");
    std::fs::write(&html, b"old report\n").unwrap();
    std::fs::write(&res, b"old results\n").unwrap();
    let out = blame_with_file_limit(
        0,
        &[
            "export".as_ref(),
            "--samples".as_ref(),
            samples.as_os_str(),
            "--format".as_ref(),
            "html".as_ref(),
            "-o".as_ref(),
            html.as_os_str(),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot write"), "{}", stderr(&out));
    // The message names the file asked for, not a temporary one.
    assert!(!stderr(&out).contains(".out.html."), "{}", stderr(&out));
    let out = blame_with_file_limit(
        0,
        &[
            "post".as_ref(),
            "--samples".as_ref(),
            samples.as_os_str(),
            "-o".as_ref(),
            res.as_os_str(),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(std::fs::read(&html).unwrap(), b"old report\n");
    assert_eq!(std::fs::read(&res).unwrap(), b"old results\n");
    assert_eq!(regular_files(dir.path()), ["out.html", "r.bres", "s.jsonl"]);
}

#[test]
fn an_os_error_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing-run");
    let out = blame().arg("post").arg(&missing).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("(os error 2)").count(), 1, "{err}");
}

#[test]
fn a_recording_leaves_no_lock_or_probe_files() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    run_ok(
        blame()
            .args(["record", "-o"])
            .arg(&run)
            .args(["--", "true"]),
    );
    // The lock is on the directory itself, the write probe is removed.
    let names: Vec<String> = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n == "manifest.json" || n == "vdso.so" || n.ends_with(".bnode")),
        "{names:?}"
    );
}
