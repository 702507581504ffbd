//! `blame daemon` end to end, as root: two "jobs" of two users, each in a
//! cgroup the test makes (or its own session where cgroups cannot be made),
//! built through `blame cc` with `$BLAME_DB_STORE`, sampled by the daemon
//! with no user action; each job's run directory belongs to its user (0700),
//! holds only that job's processes, and posts to that program's variables
//! with the db the daemon found by build-id. A second test kills the daemon
//! with SIGKILL mid-job, starts it again, and checks that the job's run kept
//! what was flushed and counts the samples missed while no daemon ran.

mod e2e_support;
use e2e_support::*;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where a new cgroup can be made: the cgroup v2 mount, else systemd's v1
/// hierarchy; `None` when neither is writable (then jobs are sessions).
fn cgroup_root() -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut v2 = None;
    let mut systemd = None;
    for line in mounts.lines() {
        let (left, right) = line.split_once(" - ")?;
        let point = left.split_whitespace().nth(4)?;
        let mut r = right.split_whitespace();
        let fstype = r.next()?;
        let opts = r.nth(1).unwrap_or("");
        if fstype == "cgroup2" {
            v2.get_or_insert(PathBuf::from(point));
        } else if fstype == "cgroup" && opts.contains("name=systemd") {
            systemd.get_or_insert(PathBuf::from(point));
        }
    }
    [v2, systemd].into_iter().flatten().find(|root| {
        let probe = root.join(format!("blame-probe-{}", std::process::id()));
        let ok = std::fs::create_dir(&probe).is_ok();
        let _ = std::fs::remove_dir(&probe);
        ok
    })
}

struct Cgroup(Option<PathBuf>);

impl Cgroup {
    fn new(root: &Option<PathBuf>, name: &str) -> Cgroup {
        Cgroup(root.as_ref().map(|r| {
            let p = r.join(format!("{name}-{}", std::process::id()));
            std::fs::create_dir_all(&p).unwrap();
            p
        }))
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        if let Some(p) = &self.0 {
            for _ in 0..50 {
                if std::fs::remove_dir(p).is_ok() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

/// Runs `argv` as `user` in `cgroup` (or a new session), without waiting.
fn spawn_job(cgroup: &Cgroup, user: &str, argv: &[&Path], args: &[&str]) -> Child {
    let enter = match &cgroup.0 {
        Some(cg) => format!("echo $$ > {}/cgroup.procs && ", cg.display()),
        None => String::new(),
    };
    let mut script = format!("{enter}exec setpriv --reuid={user} --regid={user} --clear-groups");
    for a in argv {
        script.push_str(&format!(" '{}'", a.display()));
    }
    for a in args {
        script.push_str(&format!(" '{a}'"));
    }
    Command::new("setsid")
        .args(["sh", "-c", &script])
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

/// A test directory every user may enter (binaries and dbs are read by the jobs' users).
fn open_dir() -> tempfile::TempDir {
    let d = tempfile::Builder::new()
        .prefix("blame-daemon-test")
        .tempdir()
        .unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    d
}

/// `src` built through `blame cc` (its own db, registered in `store`).
fn build(dir: &Path, src: &str, store: &Path) -> PathBuf {
    let out = dir.join(src.trim_end_matches(".c"));
    let db = dir.join(format!("{src}.db"));
    run_ok(
        blame()
            .env("BLAME_DB", &db)
            .env("BLAME_DB_STORE", store)
            .env("BLAME_CC_SYNC", "1")
            .args(["cc", "--", "clang-19", "-O2", "-g"])
            .arg(program(src))
            .arg("-o")
            .arg(&out),
    );
    for f in [&out, &db] {
        let mode = if f == &out { 0o755 } else { 0o644 };
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    out
}

struct Daemon {
    child: Child,
    socket: PathBuf,
}

impl Daemon {
    fn start(config: &Path, socket: &Path) -> Daemon {
        let child = Command::new(env!("CARGO_BIN_EXE_blame"))
            .args(["daemon", "run", "--config"])
            .arg(config)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut child = child;
        while !socket.exists() {
            if child.try_wait().unwrap().is_some() {
                let out = child.wait_with_output().unwrap();
                panic!(
                    "the daemon exited: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            assert!(Instant::now() < deadline, "the daemon did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Daemon {
            child,
            socket: socket.to_path_buf(),
        }
    }

    fn ask(&self, what: &str) -> serde_json::Value {
        let out = run_ok(
            blame()
                .args(["daemon", what, "--json", "--socket"])
                .arg(&self.socket),
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn stop(mut self) -> String {
        self.ask("stop");
        let out = std::mem::replace(&mut self.child, Command::new("true").spawn().unwrap())
            .wait_with_output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn config(dir: &Path, users: &[&str], extra: &str) -> (PathBuf, PathBuf, PathBuf) {
    let runs = dir.join("runs");
    let socket = dir.join("daemon.sock");
    let store = dir.join("store");
    std::fs::create_dir_all(&store).unwrap();
    let path = dir.join("daemon.toml");
    let users: Vec<String> = users.iter().map(|u| format!("{u:?}")).collect();
    std::fs::write(
        &path,
        format!(
            "dir = {:?}\nsocket = {:?}\nstatic_db_store = {:?}\nrate_hz = 499\ninclude_users = [{}]\nflush_interval_s = 1\n{}",
            runs,
            socket,
            store,
            users.join(", "),
            if extra.is_empty() { "job_end_after_s = 1\n" } else { extra }
        ),
    )
    .unwrap();
    (path, runs, socket)
}

/// The job run directories under `runs` whose name starts with `user.`.
fn runs_of(runs: &Path, user: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(runs)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("{user}."))
        })
        .collect();
    v.sort();
    v
}

/// `blame post` then `blame report --format json` of `run`, as `user`, naming no db.
fn post_as(user: &str, run: &Path) -> serde_json::Value {
    let as_user = |args: &[&str]| {
        let mut c = Command::new("setpriv");
        c.args([
            &format!("--reuid={user}"),
            &format!("--regid={user}"),
            "--clear-groups",
            env!("CARGO_BIN_EXE_blame"),
        ])
        .args(args)
        .arg(run)
        .current_dir(run);
        run_ok(&mut c)
    };
    as_user(&["post"]);
    let out = as_user(&["report", "--format", "json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn wait_for(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn ended_jobs(status: &serde_json::Value) -> usize {
    status["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["state"] == "ended")
        .count()
}

#[test]
fn two_users_jobs_get_their_own_runs_with_their_own_variables() {
    if !sampling_allowed() || unprivileged_user().is_none() {
        return;
    }
    let (ua, ub) = ("blame-dmn-a", "blame-dmn-b");
    let (uid_a, _) = system_user(ua);
    let (uid_b, _) = system_user(ub);
    let dir = open_dir();
    let (cfg, runs, socket) = config(
        dir.path(),
        &[ua, ub],
        "job_end_after_s = 1\npost_on_end = true\npost_min_interval_s = 0\n",
    );
    let store = dir.path().join("store");
    let scaling = build(dir.path(), "scaling.c", &store);
    let hot = build(dir.path(), "hot.c", &store);
    let root = cgroup_root();
    let (cg_a, cg_b) = (
        Cgroup::new(&root, "blame-job-a"),
        Cgroup::new(&root, "blame-job-b"),
    );

    let daemon = Daemon::start(&cfg, &socket);
    let mut a = spawn_job(&cg_a, ua, &[&scaling], &["16"]);
    let mut b = spawn_job(&cg_b, ub, &[&hot], &[]);
    assert!(a.wait().unwrap().success());
    assert!(b.wait().unwrap().success());
    wait_for("both jobs to end", 60, || {
        ended_jobs(&daemon.ask("status")) >= 2
    });
    let status = daemon.ask("status");
    assert!(status["samples"].as_u64().unwrap() > 0, "{status:#}");
    // post_on_end: each ended job is posted, as its user, one after the other.
    wait_for("the daemon's posts", 120, || {
        [ua, ub].iter().all(|u| {
            runs_of(&runs, u)
                .first()
                .is_some_and(|d| d.join("results.bres").exists())
        })
    });
    daemon.stop();

    for (user, uid) in [(ua, uid_a), (ub, uid_b)] {
        let dirs = runs_of(&runs, user);
        assert_eq!(dirs.len(), 1, "one job of {user}: {dirs:?}");
        let meta = dirs[0].symlink_metadata().unwrap();
        assert_eq!(
            (meta.uid(), meta.mode() & 0o777),
            (uid, 0o700),
            "{user}'s run"
        );
        // Streams, manifest, the vDSO's copy, daemon.json, post.log and
        // the posted results.
        let vdso = std::fs::read_to_string("/proc/self/maps").is_ok_and(|m| m.contains("[vdso]"));
        assert!(
            !vdso || dirs[0].join("vdso.so").is_file(),
            "{user}'s run has the vDSO"
        );
        for f in std::fs::read_dir(&dirs[0]).unwrap() {
            let f = f.unwrap().path();
            assert_eq!(f.symlink_metadata().unwrap().uid(), uid, "{}", f.display());
        }
        let log = std::fs::read_to_string(dirs[0].join("post.log")).unwrap();
        assert!(log.contains("wrote"), "{log}");
        let info: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dirs[0].join("daemon.json")).unwrap()).unwrap();
        assert_eq!(info["state"], "ended");
        assert_eq!(info["user"], user);
        let kind = if root.is_some() { "cg-" } else { "session-" };
        assert!(info["job"].as_str().unwrap().starts_with(kind), "{info:#}");
    }
    // The other user cannot read a run.
    let peek = Command::new("setpriv")
        .args([
            &format!("--reuid={ub}"),
            &format!("--regid={ub}"),
            "--clear-groups",
            "ls",
        ])
        .arg(&runs_of(&runs, ua)[0])
        .output()
        .unwrap();
    assert!(!peek.status.success(), "{ub} listed {ua}'s run");

    // Each run posts, as its user, with the db the daemon found by build-id.
    let run_a = &runs_of(&runs, ua)[0];
    let m = manifest(run_a);
    assert!(
        m["static_db"].as_str().unwrap().ends_with("scaling.c.db"),
        "{m:#}"
    );
    let report_a = post_as(ua, run_a);
    let field = explicit_of(&report_a, Some("main"), "field");
    let coeffs = explicit_of(&report_a, Some("main"), "coeffs");
    // relax() does 16 x 1600 sweeps for field, smooth() 8,000 for coeffs.
    assert!(
        field > 55.0 && coeffs > 5.0 && field > coeffs,
        "{report_a:#}"
    );
    let names: Vec<String> = percents(&report_a).into_iter().map(|p| p.1).collect();
    assert!(
        !names.contains(&"s".to_string()),
        "hot.c's `s` in {ua}'s job: {names:?}"
    );

    let report_b = post_as(ub, &runs_of(&runs, ub)[0]);
    // hot.c: main's `s` takes hot_loop's sum.
    assert!(
        explicit_of(&report_b, Some("main"), "s") > 50.0,
        "{report_b:#}"
    );
    let names: Vec<String> = percents(&report_b).into_iter().map(|p| p.1).collect();
    assert!(!names.contains(&"field".to_string()), "{names:?}");
}

#[test]
fn a_daemon_killed_mid_job_keeps_what_it_flushed_and_counts_the_gap() {
    if !sampling_allowed() || unprivileged_user().is_none() {
        return;
    }
    let uc = "blame-dmn-c";
    system_user(uc);
    let dir = open_dir();
    let (cfg, runs, socket) = config(dir.path(), &[uc], "");
    let store = dir.path().join("store");
    let scaling = build(dir.path(), "scaling.c", &store);
    let root = cgroup_root();
    let cg = Cgroup::new(&root, "blame-job-c");

    let mut first = Daemon::start(&cfg, &socket);
    // About 7 s of CPU: field's 400 x 1600 sweeps, still running when the
    // first daemon is killed and the second takes over.
    let mut job = spawn_job(&cg, uc, &[&scaling], &["400"]);
    // Killed after a flush saved the job's processes (what a restart needs).
    let state = runs.join(".blame-daemon/state.json");
    wait_for("a flush that saved the job", 30, || {
        std::fs::read_to_string(&state).is_ok_and(|s| s.contains("\"pid\""))
            && runs_of(&runs, uc)
                .first()
                .is_some_and(|d| d.join("daemon.json").exists())
    });
    let info_of = |d: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(d.join("daemon.json")).unwrap()).unwrap()
    };
    let flushed = info_of(&runs_of(&runs, uc)[0])["samples"].as_u64().unwrap();
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    // A second without any daemon: the job's CPU time in it is the gap.
    std::thread::sleep(Duration::from_millis(1000));
    // A new daemon takes the stale socket over and resumes the job.
    let second = Daemon::start(&cfg, &socket);
    assert!(job.wait().unwrap().success());
    wait_for("the job to end", 60, || {
        ended_jobs(&second.ask("status")) >= 1
    });
    second.stop();
    drop(first);

    let dirs = runs_of(&runs, uc);
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let info = info_of(&dirs[0]);
    let gaps = info["gaps"].as_array().unwrap();
    assert_eq!(gaps.len(), 1, "{info:#}");
    assert!(gaps[0]["missed_samples"].as_u64().unwrap() > 0, "{info:#}");
    assert_eq!(info["state"], "ended");
    // What the first daemon flushed is read (its stream was cut by the
    // kill: post salvages it), and the second daemon's samples add to it.
    let streams: Vec<_> = std::fs::read_dir(&dirs[0])
        .unwrap()
        .filter_map(Result::ok)
        .filter(|f| f.file_name().to_string_lossy().ends_with(".bnode"))
        .collect();
    assert_eq!(
        streams.len(),
        2,
        "the first daemon's node file and the second's"
    );
    let report = post_as(uc, &dirs[0]);
    let total = report["total_samples"].as_f64().unwrap() as u64;
    assert!(
        total > flushed && flushed > 0,
        "{total} samples posted, {flushed} flushed before the kill"
    );
    assert!(
        explicit_of(&report, Some("main"), "field") > 50.0,
        "{report:#}"
    );
    let m = manifest(&dirs[0]);
    let notices = m["notices"].to_string();
    assert!(notices.contains("samples missed"), "{m:#}");
}

/// Under a real Slurm without cgroups (proctrack/linuxproc): the tasks of
/// `srun -n 2` are grouped by their `SLURM_JOB_ID`/`SLURM_STEP_ID` into
/// one run `USER.slurm-JOB.0` with a stream per rank, and the Epilog of
/// `examples/daemon/` ends the job's run at once (no `job_end_after_s` wait).
#[test]
fn a_slurm_step_is_one_run_with_its_ranks_and_the_epilog_ends_it() {
    if !sampling_allowed() || unprivileged_user().is_none() {
        return;
    }
    let Some(cluster) = e2e_support::slurm::Cluster::up() else {
        return;
    };
    let ud = "blame-dmn-d";
    system_user(ud);
    let dir = open_dir();
    let (cfg, runs, socket) = config(dir.path(), &[ud], "job_end_after_s = 600\n");
    let store = dir.path().join("store");
    let scaling = build(dir.path(), "scaling.c", &store);
    let daemon = Daemon::start(&cfg, &socket);
    let mut srun = cluster.cmd("setpriv", dir.path());
    srun.args([
        &format!("--reuid={ud}"),
        &format!("--regid={ud}"),
        "--clear-groups",
        "srun",
        "-n",
        "2",
    ])
    .arg(&scaling)
    .arg("16");
    run_ok(&mut srun);
    let step = |runs: &Path| -> Option<PathBuf> {
        runs_of(runs, ud).into_iter().find(|d| {
            d.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("{ud}.slurm-"))
        })
    };
    wait_for("the step's run", 30, || step(&runs).is_some());
    let run = step(&runs).unwrap();
    let name = run.file_name().unwrap().to_string_lossy().into_owned();
    let (job, step_id) = name
        .trim_start_matches(&format!("{ud}.slurm-"))
        .split_once('.')
        .unwrap();
    assert_eq!(step_id, "0", "{name}");
    // The Epilog, as slurmd runs it (root, SLURM_JOB_ID set).
    let bin = Path::new(env!("CARGO_BIN_EXE_blame")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    run_ok(
        Command::new("sh")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/daemon/slurm-epilog.sh"))
            .env("PATH", path)
            .env("SLURM_JOB_ID", job)
            .env("BLAME_DAEMON_SOCKET", &socket),
    );
    wait_for("the epilog to end the job", 30, || {
        daemon.ask("status")["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|j| j["name"] == name.as_str() && j["state"] == "ended")
    });
    daemon.stop();
    let report = post_as(ud, &run);
    let ranks: Vec<u64> = report["variables"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["name"] == "field")
        .map(|v| v["ranks"]["ranks"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, vec![2], "field on both ranks: {report:#}");
    assert!(
        explicit_of(&report, Some("main"), "field") > explicit_of(&report, Some("main"), "coeffs"),
        "{report:#}"
    );
    // Both ranks' sections in the job's one node file.
    let m = manifest(&run);
    let ranks: Vec<u64> = m["processes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["rank"].as_u64())
        .collect();
    assert_eq!(ranks.len(), 2, "{m:#}");
    assert_eq!(m["node_files"].as_array().unwrap().len(), 1, "{m:#}");
}

/// A run directory on a file system that fills up: the daemon counts what
/// it cannot write, stops writing that job, keeps answering and stops
/// cleanly. A symlink the job's user planted in the run at the manifest's
/// name is replaced, never written through.
#[test]
fn a_full_disk_and_a_planted_symlink_neither_stop_the_daemon_nor_reach_other_files() {
    if !sampling_allowed() || unprivileged_user().is_none() {
        return;
    }
    let ue = "blame-dmn-e";
    system_user(ue);
    let dir = open_dir();
    let (cfg, runs, socket) = config(dir.path(), &[ue], "");
    let store = dir.path().join("store");
    let scaling = build(dir.path(), "scaling.c", &store);
    // 64 KiB in all, nearly full before the job starts.
    std::fs::create_dir_all(&runs).unwrap();
    // A machine that lets root mount tmpfs (any Linux but some containers).
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs"])
        .arg(&runs)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("cannot mount a tmpfs here: only the symlink half of this test runs");
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(runs.clone());
    let filler = runs.join("filler");
    let _ = Command::new("dd")
        .args(["if=/dev/zero", "bs=4096", "count=14"])
        .arg(format!("of={}", filler.display()))
        .stderr(Stdio::null())
        .status();
    // The user's run directory exists already (an earlier job of the same
    // session name) with a symlink at the manifest's name to a root file.
    let (uid, gid) = system_user(ue);
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "root's\n").unwrap();
    let daemon = Daemon::start(&cfg, &socket);
    let cg = Cgroup::new(&cgroup_root(), "blame-job-e");
    if let Some(path) = &cg.0 {
        // The run's name for a top-level cgroup: USER.cg-NAME.
        let name = format!("{ue}.cg-{}", path.file_name().unwrap().to_string_lossy());
        let pre = runs.join(name);
        std::fs::create_dir(&pre).unwrap();
        std::os::unix::fs::symlink(&secret, pre.join("manifest.json")).unwrap();
        std::os::unix::fs::lchown(&pre, Some(uid), Some(gid)).unwrap();
    }
    let mut job = spawn_job(&cg, ue, &[&scaling], &["120"]);
    assert!(job.wait().unwrap().success());
    wait_for("the job to end", 60, || {
        ended_jobs(&daemon.ask("status")) >= 1
    });
    let status = daemon.ask("status");
    let said = status["errors"].to_string();
    assert!(
        !mounted || said.contains("No space left") || said.contains("writing failed"),
        "{status:#}"
    );
    daemon.stop();
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "root's\n");
}

/// A job that starts thousands of short processes (a shell loop): the
/// daemon keeps up, forgets each process when it ends, and its memory stays small.
#[test]
fn a_job_forking_thousands_of_processes_is_followed_and_forgotten() {
    if !sampling_allowed() || unprivileged_user().is_none() {
        return;
    }
    let uf = "blame-dmn-f";
    system_user(uf);
    let dir = open_dir();
    let (cfg, runs, socket) = config(dir.path(), &[uf], "");
    let daemon = Daemon::start(&cfg, &socket);
    let cg = Cgroup::new(&cgroup_root(), "blame-job-f");
    let sh = PathBuf::from("/bin/sh");
    let mut job = spawn_job(
        &cg,
        uf,
        &[&sh],
        &[
            "-c",
            "i=0; while [ $i -lt 3000 ]; do /bin/true; i=$((i+1)); done",
        ],
    );
    assert!(job.wait().unwrap().success());
    wait_for("the job to end", 120, || {
        ended_jobs(&daemon.ask("status")) >= 1
    });
    let status = daemon.ask("status");
    assert!(
        status["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|j| j["processes"] == 0),
        "{status:#}"
    );
    assert!(
        status["rss_kib"].as_u64().unwrap() < 100 * 1024,
        "{status:#}"
    );
    daemon.stop();
    let _ = runs;
}
