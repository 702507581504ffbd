//! Faults and bad inputs around recordings and their results (issue 14,
//! items 3, 4, 5, 8, 9 and part of 12): recording as an unprivileged user,
//! a recorder killed with kill -9, damaged streams, end markers, results
//! that carry what produced them, a static db that no longer matches the
//! binary, lost samples, and JSON-lines inputs that overflow. Every
//! recording here needs perf_event or ptrace; CI runs as root and must run
//! all of them (see `e2e_support::sampling_allowed`).

mod e2e_support;
use e2e_support::*;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `cmd`, which must fail; returns its output.
fn run_fails(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(
        !out.status.success(),
        "{cmd:?} succeeded\nstderr:\n{}",
        stderr(&out)
    );
    out
}

/// (start, end, records) of every chunk of a container file, header chunk first.
fn chunk_spans(bytes: &[u8]) -> Vec<(usize, usize, u32)> {
    let mut at = 16;
    let mut out = Vec::new();
    while at + 20 <= bytes.len() {
        let f =
            |i: usize| u32::from_le_bytes(bytes[at + 4 * i..at + 4 * i + 4].try_into().unwrap());
        assert_eq!(&bytes[at..at + 4], b"CHNK", "chunk at {at}");
        let end = at + 20 + f(1) as usize;
        out.push((at, end.min(bytes.len()), f(3)));
        at = end;
    }
    out
}

/// Samples in the chunk of a sample stream that starts at byte `start`.
fn samples_in_chunk(bytes: &[u8], start: usize) -> u64 {
    use blame_formats::container::ContainerReader;
    use blame_formats::stream::{decode_chunk, Record, StreamHeader, STREAM};
    let (mut r, _): (_, StreamHeader) = ContainerReader::open(bytes, "<stream>", STREAM).unwrap();
    while let Some(c) = r.next_raw_chunk().unwrap() {
        if c.offset == start as u64 {
            return decode_chunk(c, Path::new("<stream>"))
                .unwrap()
                .iter()
                .filter(|r| matches!(r, Record::Sample(_)))
                .count() as u64;
        }
    }
    panic!("no chunk at byte {start}")
}

fn streams_of(run: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(run)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "bstream"))
        .collect();
    v.sort();
    v
}

fn results_json(run: &Path, extra: &[&str]) -> (Value, String) {
    let out = run_ok(
        blame()
            .arg("report")
            .arg(run)
            .args(extra)
            .args(["--format", "json"]),
    );
    (serde_json::from_slice(&out.stdout).unwrap(), stderr(&out))
}

fn variable_names(report: &Value) -> Vec<String> {
    report["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap().to_string())
        .collect()
}

// ---------------------------------------------------------------------------
// Item 3: recording as an unprivileged user, with the default options.

const TEST_USER: &str = "blame-unpriv";

/// The user's locked memory is shared by all its processes: its tests run
/// one at a time, or one's recorder changes what the other may lock.
static AS_USER: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|v| v.split_whitespace().nth(1).map(|u| u == "0"))
        .unwrap_or(false)
}

/// The unprivileged user's (uid, gid), created when missing. Needs root,
/// which CI has: elsewhere the test is skipped, in CI it fails.
fn unprivileged_user() -> Option<(u32, u32)> {
    if !is_root() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs the tests as root: this test creates a user and records as that user"
        );
        eprintln!("skipping: creating a user to record as needs root");
        return None;
    }
    let id = |flag: &str| -> Option<u32> {
        let out = Command::new("id").args([flag, TEST_USER]).output().ok()?;
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    };
    if id("-u").is_none() {
        let out = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                TEST_USER,
            ])
            .output()
            .expect("useradd runs");
        // 9: created meanwhile by another test.
        assert!(
            out.status.success() || out.status.code() == Some(9),
            "useradd: {}",
            stderr(&out)
        );
    }
    Some((id("-u").unwrap(), id("-g").unwrap()))
}

/// `sh -c SCRIPT` as the unprivileged user.
fn as_user(script: &str) -> Command {
    let mut cmd = Command::new("runuser");
    cmd.args(["-u", TEST_USER, "--", "sh", "-c", script]);
    cmd
}

/// A directory the unprivileged user can use: the blame binary and the
/// program copied in (the checkout may be private to root), and an own
/// subdirectory for runs.
fn user_workspace(uid: u32, gid: u32) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let exe = compile(&program("hot.c"), dir.path(), false);
    let blame_bin = dir.path().join("blame");
    if std::fs::hard_link(env!("CARGO_BIN_EXE_blame"), &blame_bin).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_blame"), &blame_bin).unwrap();
    }
    let home = dir.path().join("u");
    std::fs::create_dir(&home).unwrap();
    std::os::unix::fs::chown(&home, Some(uid), Some(gid)).unwrap();
    (dir, blame_bin, exe, home)
}

#[test]
fn an_unprivileged_user_records_with_the_default_options() {
    let _one_at_a_time = AS_USER.lock().unwrap_or_else(|e| e.into_inner());
    let Some((uid, gid)) = unprivileged_user() else {
        return;
    };
    let (_dir, blame_bin, exe, home) = user_workspace(uid, gid);
    let run = home.join("run");
    // The default options: hybrid call graphs, whose 4 MiB per CPU ring
    // buffers are more than a user may lock on most machines.
    let out = as_user(&format!(
        "{} record -o {} -- {} 60000",
        blame_bin.display(),
        run.display(),
        exe.display()
    ))
    .output()
    .unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let m = manifest(&run);
    assert!(m["samples"].as_u64().unwrap() >= 20, "{m}\n{err}");
    // It says which sampler it chose, and why when it is not the full one.
    let sampler = m["sampler"].as_str().unwrap();
    assert!(
        err.contains(&format!("with {sampler} (")),
        "the summary names the sampler: {err}"
    );
    match sampler {
        "perf_event" => {
            let kib = m["ring_buffer_kib"].as_u64().expect("ring size recorded");
            // What each call-graph mode asks for per CPU.
            let wanted = match m["call_graph"].as_str().unwrap() {
                "dwarf" => 8192,
                "hybrid" => 4096,
                _ => 2048,
            };
            if kib < wanted {
                assert!(
                    err.contains(&format!(
                        "perf ring buffers of {kib} KiB per CPU instead of {wanted} KiB"
                    )) && err.contains("perf_event_mlock_kb")
                        && err.contains("ulimit -l"),
                    "{err}"
                );
            }
        }
        "ptrace" => assert!(err.contains("falling back to the ptrace sampler"), "{err}"),
        other => panic!("sampler {other}"),
    }
    // What was recorded resolves as root's recordings do.
    let samples = dump(&run);
    assert!(samples
        .iter()
        .any(|s| s["stack"][0]["function"] == "hot_loop"));
}

#[test]
fn an_unprivileged_user_without_lockable_memory_falls_back_to_ptrace_and_says_why() {
    let _one_at_a_time = AS_USER.lock().unwrap_or_else(|e| e.into_inner());
    let Some((uid, gid)) = unprivileged_user() else {
        return;
    };
    let (_dir, blame_bin, exe, home) = user_workspace(uid, gid);
    // A first recording holds this user's share of perf_event_mlock_kb ...
    let mut first = as_user(&format!(
        "exec {} record -o {} -- {} 100000000",
        blame_bin.display(),
        home.join("first").display(),
        exe.display()
    ))
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let started = Instant::now();
    while !home.join("first").exists() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(700));
    // ... and the second may lock nothing more (ulimit -l 0).
    let run = home.join("second");
    let out = as_user(&format!(
        "ulimit -l 0 && {} record -o {} -- {} 60000",
        blame_bin.display(),
        run.display(),
        exe.display()
    ))
    .output()
    .unwrap();
    let _ = Command::new("pkill")
        .args(["-INT", "-P", &first.id().to_string()])
        .status();
    let _ = Command::new("kill")
        .args(["-INT", &first.id().to_string()])
        .status();
    let _ = first.wait();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let m = manifest(&run);
    assert_eq!(m["sampler"], "ptrace", "{err}");
    assert!(err.contains("falling back to the ptrace sampler"), "{err}");
    assert!(err.contains("with ptrace (ptrace)"), "{err}");
    assert!(m["samples"].as_u64().unwrap() >= 20, "{m}");
}

// ---------------------------------------------------------------------------
// Items 4 and 5: damaged recordings are salvaged, streams end with the end
// marker, `check` says complete or cut at byte N.

#[test]
fn kill_9_of_the_recorder_with_a_forking_target_is_salvaged() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("forker.c"), dir.path(), false);
    let run = dir.path().join("run");
    // Stream files: the layout whose per-process files this test damages.
    let mut recorder = blame()
        .args(["record", "--per-process-files", "-o"])
        .arg(&run)
        .arg("--")
        .arg(&exe)
        .arg("60")
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while streams_of_or_none(&run) < 20 && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    recorder.kill().unwrap(); // SIGKILL
    recorder.wait().unwrap();
    // What kill -9 leaves for a process started in the recorder's last
    // moment, when it lands between creating the stream and writing it.
    std::fs::write(run.join("pid-4000000.bstream"), b"").unwrap();
    let streams = streams_of(&run);
    assert!(streams.len() >= 10, "{} streams", streams.len());

    let out = run_ok(blame().arg("post").arg(&run));
    let err = stderr(&out);
    assert!(
        err.contains("SKIPPED: ") && err.contains("pid-4000000.bstream: empty (0 bytes)"),
        "{err}"
    );
    // Streams the recorder did not close are named, with where they end.
    let cut: Vec<&str> = err.lines().filter(|l| l.contains("cut at byte")).collect();
    assert!(!cut.is_empty(), "{err}");
    assert!(err.contains("the recording is damaged"), "{err}");
    // Everything else is kept: one process per readable stream (the kill
    // may also have cut a stream inside its header: skipped and named too).
    let skipped = err
        .lines()
        .filter(|l| l.ends_with(": stream skipped"))
        .count();
    let results = run_ok(blame().arg("check").arg(run.join("results.bres")));
    let text = String::from_utf8_lossy(&results.stdout);
    assert!(
        text.contains(&format!("results of {} processes", streams.len() - skipped)),
        "{text}\n{err}"
    );
    // `check` says which streams were closed and which were cut.
    let checks: Vec<(bool, String)> = streams
        .iter()
        .filter(|p| !p.ends_with("pid-4000000.bstream"))
        .map(|p| {
            let out = blame().arg("check").arg(p).output().unwrap();
            (
                out.status.success(),
                String::from_utf8_lossy(&out.stdout).into_owned() + &stderr(&out),
            )
        })
        .collect();
    assert!(checks
        .iter()
        .any(|(ok, t)| *ok && t.ends_with("complete\n")));
    assert!(checks
        .iter()
        .any(|(ok, t)| !*ok && t.contains("cut at byte")));
    // --strict refuses, naming a stream.
    let out = run_fails(
        blame()
            .args(["post", "--strict", "-o"])
            .arg(dir.path().join("strict.bres"))
            .arg(&run),
    );
    assert!(
        stderr(&out).contains("refused (--strict)"),
        "{}",
        stderr(&out)
    );
    // `report` and `dump` read the same salvaged run.
    run_ok(blame().arg("report").arg(&run));
    assert!(!dump(&run).is_empty());
}

fn streams_of_or_none(run: &Path) -> usize {
    if run.exists() {
        streams_of(run).len()
    } else {
        0
    }
}

/// Records two images of hot.c under a shell (whose stream exists only when
/// it was sampled).
fn record_two_hot(dir: &Path, reps: &str) -> PathBuf {
    let exe = compile(&program("hot.c"), dir, false);
    let run = dir.join("run");
    run_ok(
        blame()
            .args(["record", "--per-process-files", "-o"])
            .arg(&run)
            .args(["--", "sh", "-c"])
            .arg(format!("{0} {reps} & {0} {reps}; wait", exe.display())),
    );
    run
}

#[test]
fn a_flipped_bit_mid_stream_loses_one_chunk_and_strict_refuses() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = record_two_hot(dir.path(), "300000");
    let m = manifest(&run);
    let hot: Vec<&Value> = m["processes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["launcher"] == false)
        .collect();
    assert_eq!(hot.len(), 2, "{m}");
    let damaged = run.join(hot[0]["file"].as_str().unwrap());
    let whole_samples = hot[1]["samples"].as_u64().unwrap();
    let mut bytes = std::fs::read(&damaged).unwrap();
    let spans = chunk_spans(&bytes);
    // The header chunk, at least two data chunks, the end marker.
    assert!(spans.len() >= 4, "{} chunks: record longer", spans.len());
    // One bit in the body of a data chunk in the middle.
    let (start, end, _) = spans[spans.len() / 2];
    let in_chunk = samples_in_chunk(&bytes, start);
    bytes[(start + end) / 2] ^= 0x08;
    std::fs::write(&damaged, &bytes).unwrap();

    let out = run_ok(blame().arg("post").arg(&run));
    let err = stderr(&out);
    let name = damaged.file_name().unwrap().to_string_lossy();
    assert!(
        err.contains(&format!("SKIPPED: {}", damaged.display()))
            && err.contains(&format!("damaged bytes {start}..{end} skipped"))
            && err.contains("checksum mismatch"),
        "{name}: {err}"
    );
    // The other process is whole, the damaged one keeps its other chunks.
    // Every process is in the results (the shell has a stream when it was sampled).
    let (report, _) = results_json(&run, &["--by-function"]);
    assert!(report["functions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["function"] == "hot_loop"));
    let processes = m["processes"].as_array().unwrap().len();
    let results = run_ok(blame().arg("check").arg(run.join("results.bres")));
    let text = String::from_utf8_lossy(&results.stdout);
    assert!(
        text.contains(&format!("results of {processes} processes")),
        "{text}"
    );
    // Samples of one stream (a pid has one stream per image: the shell's
    // child before its exec is another).
    let of = |file: &str| dump(&run.join(file)).len() as u64;
    assert_eq!(of(hot[1]["file"].as_str().unwrap()), whole_samples);
    let kept = of(hot[0]["file"].as_str().unwrap());
    let recorded = hot[0]["samples"].as_u64().unwrap();
    // All but the damaged chunk's samples, less the few whose stacks were
    // first defined in it.
    let rest = recorded - in_chunk;
    assert!(
        kept <= rest && kept * 10 >= rest * 9,
        "kept {kept} of {recorded}, {in_chunk} in the damaged chunk"
    );
    // check names the damage; --strict refuses.
    let out = run_fails(blame().arg("check").arg(&damaged));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains(&format!("complete; damaged bytes {start}..{end} skipped")),
        "{}",
        stderr(&out)
    );
    let out = run_fails(
        blame()
            .args(["post", "--strict", "-o"])
            .arg(dir.path().join("x.bres"))
            .arg(&run),
    );
    assert!(stderr(&out).contains("checksum mismatch") && stderr(&out).contains("--strict"));
    run_fails(blame().args(["dump", "--strict"]).arg(&run));
}

#[test]
fn check_says_complete_or_cut_at_byte_n() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("hot.c"), dir.path(), false);
    let run = dir.path().join("run");
    run_ok(
        blame()
            .args(["record", "--per-process-files", "-o"])
            .arg(&run)
            .arg("--")
            .arg(&exe)
            .arg("150000"),
    );
    let stream = streams_of(&run).pop().unwrap();
    let bytes = std::fs::read(&stream).unwrap();
    let spans = chunk_spans(&bytes);
    // The recorder closed the stream: its last chunk is the end marker.
    let last = *spans.last().unwrap();
    assert_eq!((last.2, last.1 - last.0), (0, 29), "the end marker");
    let out = run_ok(blame().arg("check").arg(&stream));
    assert!(String::from_utf8_lossy(&out.stdout)
        .trim_end()
        .ends_with("; complete"));
    // The run directory stands for its sample files.
    let out = run_ok(blame().arg("check").arg(&run));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        said.starts_with(&format!("{}: ", stream.display()))
            && said.trim_end().ends_with("; complete"),
        "{said}"
    );
    let out = run_fails(blame().arg("check").arg(dir.path()));
    assert!(
        stderr(&out).contains("not a run directory"),
        "{}",
        stderr(&out)
    );
    // Cut between chunks, and inside one.
    let boundary = spans[spans.len() - 2].1;
    let inside = spans[1].0 + 30;
    for (cut, at) in [(boundary, boundary), (inside, spans[1].0)] {
        let copy = dir.path().join(format!("cut-{cut}.bstream"));
        std::fs::write(&copy, &bytes[..cut]).unwrap();
        let out = run_fails(blame().arg("check").arg(&copy));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("cut at byte {at} ")),
            "cut at {cut}: {err}"
        );
    }
}

// ---------------------------------------------------------------------------
// Item 8: results carry what produced them.

#[test]
fn results_are_reused_only_for_what_produced_them() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("hot.c"), dir.path(), false);
    let db = analyze(&program("hot.c"), dir.path(), false);
    let other_dir = dir.path().join("other");
    std::fs::create_dir(&other_dir).unwrap();
    let other = analyze(&program("fig3_14.c"), &other_dir, false);
    let run = dir.path().join("run");
    run_ok(
        blame()
            .args(["record", "-o"])
            .arg(&run)
            .arg("--")
            .arg(&exe)
            .arg("60000"),
    );
    run_ok(blame().arg("post").arg(&run).arg("--static").arg(&db));
    let stored = run.join("results.bres");
    let cached = std::fs::read(&stored).unwrap();
    let (r, err) = results_json(&run, &[]);
    assert!(variable_names(&r).contains(&"sum".to_string()), "{r}");
    assert!(
        !err.contains("computing"),
        "the stored results are used: {err}"
    );

    // Another db: computed with it, not the stored results; the cache stays.
    let (r, err) = results_json(&run, &["--static", other.to_str().unwrap()]);
    assert!(!variable_names(&r).contains(&"sum".to_string()), "{r}");
    assert!(
        err.contains("does not match this report") && err.contains("static db"),
        "{err}"
    );
    assert!(err.contains("for this report only"), "{err}");
    assert_eq!(std::fs::read(&stored).unwrap(), cached);
    // A one-off option: the same.
    let (_, err) = results_json(&run, &["--loop-threshold", "0.5"]);
    assert!(err.contains("for this report only"), "{err}");
    assert_eq!(std::fs::read(&stored).unwrap(), cached);
    let (r, err) = results_json(&run, &[]);
    assert!(
        variable_names(&r).contains(&"sum".to_string()) && !err.contains("computing"),
        "{err}"
    );

    // The db the results came from changes: recomputed, and the cache refreshed.
    std::fs::copy(&other, &db).unwrap();
    let (r, err) = results_json(&run, &[]);
    assert!(err.contains("computing the results again"), "{err}");
    assert!(!variable_names(&r).contains(&"sum".to_string()), "{r}");
    assert_ne!(std::fs::read(&stored).unwrap(), cached);
}

// ---------------------------------------------------------------------------
// Item 9 and item 12's notes: a db that does not describe the binary.

#[test]
fn a_rebuilt_binary_with_moved_lines_is_named_by_function() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The db describes hot.c as it was; the binary was rebuilt after six
    // lines were added at the top.
    let db = analyze(&program("hot.c"), dir.path(), false);
    let moved = dir.path().join("v2");
    std::fs::create_dir(&moved).unwrap();
    let src = moved.join("hot.c");
    std::fs::write(
        &src,
        format!(
            "/* six\n   lines\n   added\n   above\n   the\n   code */\n{}",
            std::fs::read_to_string(program("hot.c")).unwrap()
        ),
    )
    .unwrap();
    let exe = compile(&src, &moved, false);
    let run = dir.path().join("run");
    run_ok(
        blame()
            .args(["record", "-o"])
            .arg(&run)
            .arg("--")
            .arg(&exe)
            .arg("60000"),
    );
    let out = run_ok(blame().arg("post").arg(&run).arg("--static").arg(&db));
    let err = stderr(&out);
    assert!(
        err.contains("the static db does not match the sampled binary")
            && err.contains("hot_loop of hot.c ("),
        "{err}"
    );
    // The binary the db was built for: no warning.
    let exe = compile(&program("hot.c"), dir.path(), false);
    let run = dir.path().join("run-v1");
    run_ok(
        blame()
            .args(["record", "-o"])
            .arg(&run)
            .arg("--")
            .arg(&exe)
            .arg("60000"),
    );
    let out = run_ok(blame().arg("post").arg(&run).arg("--static").arg(&db));
    assert!(!stderr(&out).contains("does not match"), "{}", stderr(&out));
}

#[test]
fn a_db_that_matches_nothing_and_a_stripped_binary_are_noted() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("hot.c"), dir.path(), false);
    // A db of other sources, sharing no function name with hot.c.
    let src = dir.path().join("unrelated.c");
    std::fs::write(&src, "int unrelated(int x) { return x + 1; }\n").unwrap();
    let other = analyze(&src, dir.path(), false);
    let run = dir.path().join("run");
    run_ok(
        blame()
            .args(["record", "-o"])
            .arg(&run)
            .arg("--")
            .arg(&exe)
            .arg("40000"),
    );
    let out = run_ok(blame().arg("post").arg(&run).arg("--static").arg(&other));
    assert!(
        stderr(&out).contains("the static db has no summary for any sampled function"),
        "{}",
        stderr(&out)
    );
    let stripped = dir.path().join("hot-stripped");
    run_ok(Command::new("strip").arg("-o").arg(&stripped).arg(&exe));
    let run = dir.path().join("run-stripped");
    run_ok(
        blame()
            .args(["record", "-o"])
            .arg(&run)
            .arg("--")
            .arg(&stripped)
            .arg("40000"),
    );
    let out = run_ok(blame().arg("post").arg(&run));
    assert!(
        stderr(&out).contains(&format!("{}: no debug info (stripped", stripped.display())),
        "{}",
        stderr(&out)
    );
}

// ---------------------------------------------------------------------------
// Item 12: lost samples after recording, overflowing JSON-lines inputs.

#[test]
fn lost_samples_are_reported_by_post_and_report() {
    use blame_formats::stream::*;
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let header = StreamHeader {
        host: "h".into(),
        command: vec!["./app".into()],
        pid: 42,
        ppid: 1,
        rank: Some(0),
        world_size: Some(1),
        events: vec![EventDesc {
            name: "cpu-clock".into(),
            sampling: Sampling::Frequency(1000),
            unit: "ns".into(),
            memory: false,
        }],
        call_graph: "fp".into(),
        start_time_ns: 1,
        extra: vec![],
    };
    let mut w = StreamWriter::create(run.join("rank-0.bstream"), &header).unwrap();
    for t in 0..100 {
        w.write_sample_with_stack(42, t * 1000, 0, 1_000_000, &[0x1000, 0x2000], None)
            .unwrap();
    }
    w.write_lost(Lost {
        event: 0,
        count: 37,
    })
    .unwrap();
    w.finish().unwrap();
    let out = run_ok(blame().arg("post").arg(&run));
    assert!(
        stderr(&out).contains("37 samples were lost while recording")
            && stderr(&out).contains("rank 0: 37"),
        "{}",
        stderr(&out)
    );
    let out = run_ok(blame().arg("report").arg(&run));
    assert!(
        stderr(&out).contains("37 samples were lost while recording"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn json_lines_weights_that_overflow_and_too_many_events_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge.jsonl");
    let line = |event: &str, weight: &str| {
        format!(
            "{{\"stack\":[{{\"function\":\"f\",\"file\":\"a.c\",\"line\":3}}],\"event\":\"{event}\",\"weight\":{weight}}}\n"
        )
    };
    std::fs::write(
        &huge,
        line("cpu-clock", "1e308") + &line("cpu-clock", "1e308"),
    )
    .unwrap();
    let out = run_fails(blame().args(["post", "--samples"]).arg(&huge));
    assert!(stderr(&out).contains("add up to inf"), "{}", stderr(&out));

    let many = dir.path().join("many.jsonl");
    let text: String = (0..65_537).map(|i| line(&format!("e{i}"), "1")).collect();
    std::fs::write(&many, text).unwrap();
    let out = run_fails(blame().args(["post", "--samples"]).arg(&many));
    assert!(
        stderr(&out).contains("65537 distinct event names, more than the 65536"),
        "{}",
        stderr(&out)
    );
}
