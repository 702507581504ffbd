//! Root on a shared node never writes or reads through a path another user
//! controls, hostile manifests, and outputs that would destroy inputs: the
//! cases of issue 31 in RELIABILITY.md ("Paths of other users"). Each test
//! plays the other user as root does (chown, `runuser`) with `blametest`.

mod e2e_support;
use e2e_support::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A 0755 scratch directory (blametest must be able to reach what it owns
/// in it).
fn scratch() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    d
}

/// A directory of root's only (0700) holding `name` with "secret\n".
fn root_only(parent: &Path, name: &str) -> (PathBuf, PathBuf) {
    let dir = parent.join("root-only");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, b"secret\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    (dir, file)
}

/// `dir`, made and given to `uid`:`gid` with `mode`.
fn users_dir(dir: &Path, uid: u32, gid: u32, mode: u32) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::os::unix::fs::chown(dir, Some(uid), Some(gid)).unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).unwrap();
    dir.to_path_buf()
}

fn lchown(path: &Path, uid: u32, gid: u32) {
    std::os::unix::fs::lchown(path, Some(uid), Some(gid)).unwrap();
}

/// JSON-lines samples whose one frame names `file`:1.
fn samples_naming(path: &Path, file: &Path) {
    let line = format!(
        "{{\"stack\":[{{\"function\":\"main\",\"file\":{:?},\"line\":1}}],\"event\":\"cpu-clock\",\"rank\":0}}\n",
        file.display().to_string()
    );
    std::fs::write(path, line.repeat(5)).unwrap();
}

#[test]
fn record_under_another_users_directory_is_refused_and_a_swapped_link_never_written_through() {
    let Some((uid, gid)) = unprivileged_user() else {
        return;
    };
    if !sampling_allowed() {
        return;
    }
    let d = scratch();
    let (victim_dir, victim) = root_only(d.path(), "manifest.json");
    // The user's directory in a scratch area; root records into DIR/run.
    let theirs = users_dir(&d.path().join("theirs"), uid, gid, 0o755);
    let run = theirs.join("run");
    let started = d.path().join("started");
    let go = d.path().join("go");
    let script = format!(
        "touch {s}; while [ ! -e {g} ]; do sleep 0.05; done",
        s = started.display(),
        g = go.display()
    );
    let mut recorder = blame()
        .args(["record", "-o"])
        .arg(&run)
        .args(["--", "sh", "-c", &script])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !started.exists() && recorder.try_wait().unwrap().is_none() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "neither started nor refused"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    if started.exists() {
        // The owner swaps the run dir for a link to root's directory.
        std::fs::rename(&run, theirs.join("moved")).unwrap();
        std::os::unix::fs::symlink(&victim_dir, &run).unwrap();
        lchown(&run, uid, gid);
    }
    std::fs::write(&go, b"").unwrap();
    let out = recorder.wait_with_output().unwrap();
    assert_eq!(
        std::fs::read(&victim).unwrap(),
        b"secret\n",
        "root's file replaced"
    );
    assert_eq!(
        std::fs::read_dir(&victim_dir).unwrap().count(),
        1,
        "nothing written into root's directory"
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("belongs to blametest"),
        "{}",
        stderr(&out)
    );
    assert!(!started.exists(), "the command never ran");
    assert!(!run.exists(), "no run dir made in the user's directory");

    // A link another user planted at -o in a sticky scratch directory.
    let sticky = d.path().join("scratch");
    std::fs::create_dir(&sticky).unwrap();
    std::fs::set_permissions(&sticky, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let planted = sticky.join("run");
    std::os::unix::fs::symlink(&victim_dir, &planted).unwrap();
    lchown(&planted, uid, gid);
    let out = blame()
        .args(["record", "-o"])
        .arg(&planted)
        .args(["--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("symbolic link made by blametest"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_dir(&victim_dir).unwrap().count(), 1);
}

#[test]
fn root_writes_no_output_under_a_directory_another_user_controls() {
    let Some((uid, gid)) = unprivileged_user() else {
        return;
    };
    let d = scratch();
    let src = d.path().join("main.c");
    std::fs::write(&src, "int main() {}\n").unwrap();
    let samples = d.path().join("s.jsonl");
    samples_naming(&samples, &src);
    let theirs = users_dir(&d.path().join("theirs"), uid, gid, 0o755);
    let (victim_dir, victim) = root_only(d.path(), "out.html");
    // Each writer, given a path under the user's directory (a link the
    // user can swap in at any time, here already there).
    let inside = users_dir(&theirs.join("sub"), uid, gid, 0o755);
    let link = theirs.join("link");
    std::os::unix::fs::symlink(&victim_dir, &link).unwrap();
    lchown(&link, uid, gid);
    for out_path in [inside.join("out.html"), link.join("out.html")] {
        let out = blame()
            .args(["export", "--samples"])
            .arg(&samples)
            .args(["--format", "html", "-o"])
            .arg(&out_path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains("blametest"), "{}", stderr(&out));
        let out = blame()
            .args(["post", "--samples"])
            .arg(&samples)
            .arg("-o")
            .arg(out_path.with_extension("bres"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains("blametest"), "{}", stderr(&out));
    }
    assert_eq!(std::fs::read(&victim).unwrap(), b"secret\n");
    assert_eq!(std::fs::read_dir(&victim_dir).unwrap().count(), 1);
    assert_eq!(std::fs::read_dir(&inside).unwrap().count(), 0);
    // Root's own directory is fine.
    run_ok(
        blame()
            .args(["export", "--samples"])
            .arg(&samples)
            .args(["--format", "html", "-o"])
            .arg(d.path().join("mine.html")),
    );
}

#[test]
fn root_posts_a_users_run_with_the_users_rights_only() {
    let Some((uid, gid)) = unprivileged_user() else {
        return;
    };
    if !sampling_allowed() {
        return;
    }
    let d = scratch();
    // Root's recording, in a directory only root may enter.
    let rootdir = d.path().join("rootdir");
    std::fs::create_dir(&rootdir).unwrap();
    std::fs::set_permissions(&rootdir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let root_run = rootdir.join("run");
    run_ok(
        blame()
            .args(["record", "-F", "2000", "-o"])
            .arg(&root_run)
            .args([
                "--",
                "sh",
                "-c",
                "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done",
            ]),
    );
    let stream = run_ok_sample_file(&root_run);
    // The user plants a link to it in their run dir.
    let theirs = users_dir(&d.path().join("userdir"), uid, gid, 0o755);
    let link = theirs.join(stream.file_name().unwrap());
    std::os::unix::fs::symlink(&stream, &link).unwrap();
    lchown(&link, uid, gid);
    let out = output_within(blame().arg("post").arg(&theirs), 120).expect("post returns");
    let err = stderr(&out);
    assert!(
        err.contains("working on it with that user's rights"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("Permission denied"), "{err}");
    assert!(err.contains(&*link.display().to_string()), "{err}");
    assert!(
        !theirs.join("results.bres").exists(),
        "no results of root's recording in the user's directory"
    );
}

/// The sample file of a run (its node file).
fn run_ok_sample_file(run: &Path) -> PathBuf {
    std::fs::read_dir(run)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.extension()
                .is_some_and(|x| x == "bnode" || x == "bstream")
        })
        .expect("a sample file")
}

#[test]
fn html_export_embeds_no_file_the_debug_info_names_outside_the_sources() {
    let d = scratch();
    let secret_dir = d.path().join("etc");
    std::fs::create_dir(&secret_dir).unwrap();
    let shadow = secret_dir.join("shadow");
    std::fs::write(&shadow, "root:*:19000:0:99999:7:::\n").unwrap();
    std::fs::set_permissions(&shadow, std::fs::Permissions::from_mode(0o600)).unwrap();
    // `#line 1 "…/shadow"` before main: the debug info names that file
    // for main's lines, and the static db blames `x` there.
    let src = d.path().join("prog.c");
    std::fs::write(
        &src,
        format!(
            "int g;\n#line 1 \"{}\"\nint main(void) {{ int x = 0; for (int i = 0; i < 100; i++) x += i * g; g = x; return 0; }}\n",
            shadow.display()
        ),
    )
    .unwrap();
    let db = analyze(&src, d.path(), false);
    let samples = d.path().join("s.jsonl");
    samples_naming(&samples, &shadow);
    let html = d.path().join("r.html");
    for roots in [vec![], vec![secret_dir.clone()]] {
        let mut cmd = blame();
        cmd.args(["export", "--samples"])
            .arg(&samples)
            .arg("--static")
            .arg(&db)
            .args(["--format", "html", "-o"])
            .arg(&html);
        for r in &roots {
            cmd.arg("--source-root").arg(r);
        }
        let out = run_ok(&mut cmd);
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(page.contains("\"x\""), "the page shows main's variable");
        assert!(!page.contains("root:*"), "the page holds the secret file");
        assert!(
            page.contains("sources_left_out"),
            "the page says what was left out"
        );
        assert!(
            stderr(&out).contains("is left out of the report"),
            "{}",
            stderr(&out)
        );
    }
    // World-readable, under a root: shown.
    std::fs::set_permissions(&shadow, std::fs::Permissions::from_mode(0o644)).unwrap();
    run_ok(
        blame()
            .args(["export", "--samples"])
            .arg(&samples)
            .arg("--static")
            .arg(&db)
            .args(["--format", "html", "-o"])
            .arg(&html)
            .arg("--source-root")
            .arg(&secret_dir),
    );
    assert!(std::fs::read_to_string(&html).unwrap().contains("root:*"));
}

/// Puts a hostile manifest at a path.
type MakeManifest = dyn Fn(&Path);

#[test]
fn hostile_manifests_are_errors_naming_them_and_never_hang() {
    let d = scratch();
    let kinds: [(&str, &MakeManifest, &str); 4] = [
        (
            "zero",
            &|p| std::os::unix::fs::symlink("/dev/zero", p).unwrap(),
            "a character device",
        ),
        (
            "fifo",
            &|p| {
                let made = Command::new("mkfifo").arg(p).status().unwrap();
                assert!(made.success());
            },
            "a FIFO",
        ),
        (
            "malformed",
            &|p| std::fs::write(p, b"{\"processes\": [").unwrap(),
            "not a blame manifest",
        ),
        (
            "huge",
            &|p| {
                let f = std::fs::File::create(p).unwrap();
                f.set_len(300 << 20).unwrap();
            },
            "larger than 256 MiB",
        ),
    ];
    for (name, make, says) in kinds {
        let run = d.path().join(name);
        std::fs::create_dir(&run).unwrap();
        let manifest = run.join("manifest.json");
        make(&manifest);
        let html = d.path().join(format!("{name}.html"));
        let commands: [Vec<&std::ffi::OsStr>; 3] = [
            vec!["post".as_ref(), run.as_os_str()],
            vec!["report".as_ref(), run.as_os_str()],
            vec![
                "export".as_ref(),
                run.as_os_str(),
                "--format".as_ref(),
                "html".as_ref(),
                "-o".as_ref(),
                html.as_os_str(),
            ],
        ];
        for args in commands {
            let t = Instant::now();
            let out = output_within(blame().args(&args), 30)
                .unwrap_or_else(|| panic!("{args:?} with a {name} manifest hangs"));
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?} {name}: {err}");
            assert!(err.contains(says), "{args:?} {name}: {err}");
            assert!(err.contains(&*manifest.display().to_string()), "{err}");
            assert!(err.contains("--force"), "{err}");
            assert!(t.elapsed() < Duration::from_secs(20));
        }
        // --force carries on without it (to the next problem: no samples).
        let out = output_within(blame().args(["post", "--force"]).arg(&run), 30).unwrap();
        assert!(
            stderr(&out).contains("carrying on without it"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn an_output_naming_an_input_is_refused() {
    let d = scratch();
    let src = d.path().join("main.c");
    std::fs::write(&src, "int main() {}\n").unwrap();
    let samples = d.path().join("s.jsonl");
    samples_naming(&samples, &src);
    let before = std::fs::read(&samples).unwrap();
    // The samples themselves, by name and by another link to them.
    let hard = d.path().join("hard.jsonl");
    std::fs::hard_link(&samples, &hard).unwrap();
    for out_path in [&samples, &hard] {
        for args in [
            vec!["post", "--samples"],
            vec!["export", "--format", "folded", "--samples"],
        ] {
            let out = blame()
                .args(&args)
                .arg(&samples)
                .arg("-o")
                .arg(out_path)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
            assert!(
                stderr(&out).contains("would destroy that input"),
                "{}",
                stderr(&out)
            );
        }
    }
    assert_eq!(std::fs::read(&samples).unwrap(), before);
    // The static db.
    let db = d.path().join("s.db");
    std::fs::write(&db, b"the db").unwrap();
    let out = blame()
        .args(["post", "--samples"])
        .arg(&samples)
        .arg("--static")
        .arg(&db)
        .arg("-o")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("would destroy that input"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&db).unwrap(), b"the db");
    // A file of a run directory.
    let run = d.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let node = run.join("node-vm.bnode");
    std::fs::write(&node, b"the recording").unwrap();
    let out = blame()
        .arg("export")
        .arg(&run)
        .args(["--format", "folded", "-o"])
        .arg(&node)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("would destroy that input"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&node).unwrap(), b"the recording");
}

#[test]
fn the_daemon_client_believes_no_impostor_on_another_users_socket() {
    let Some((uid, gid)) = unprivileged_user() else {
        return;
    };
    if Command::new("python3").arg("-V").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "CI has python3");
        return;
    }
    let d = scratch();
    let theirs = users_dir(&d.path().join("theirs"), uid, gid, 0o755);
    let sock = theirs.join("d.sock");
    // The user's own server at the daemon's socket path, answering as a
    // daemon would.
    let script = format!(
        "import socket,os\ns=socket.socket(socket.AF_UNIX)\ns.bind({p:?})\nos.chmod({p:?},0o777)\ns.listen(1)\nopen({r:?},'w').close()\nc,_=s.accept()\nc.recv(1000)\nc.sendall(b'{{\"reply\":\"done\",\"message\":\"stopping\"}}\\n')\n",
        p = sock.display().to_string(),
        r = theirs.join("ready").display().to_string()
    );
    let mut impostor = Command::new("runuser")
        .args(["-u", "blametest", "--", "python3", "-c", &script])
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !theirs.join("ready").exists() {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the impostor never listened"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = output_within(blame().args(["daemon", "stop", "--socket"]).arg(&sock), 30)
        .expect("the client returns");
    let _ = impostor.kill();
    let _ = impostor.wait();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("blametest"), "{err}");
    assert!(err.contains("not a blame daemon"), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("stopping"));
}

/// JSON-lines samples of `n` distinct stacks (a post of a few seconds).
fn many_samples(path: &Path, n: usize) {
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!(
            "{{\"stack\":[{{\"function\":\"leaf_{i}\",\"file\":\"f{}.c\",\"line\":{}}},{{\"function\":\"mid_{}\",\"file\":\"m.c\",\"line\":3}},{{\"function\":\"main\",\"file\":\"main.c\",\"line\":3}}],\"event\":\"cpu-clock\",\"rank\":{}}}\n",
            i % 97,
            i % 1000 + 1,
            i % 13,
            i % 4
        ));
    }
    std::fs::write(path, text).unwrap();
}

fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn a_killed_post_leaves_no_temporary_and_stale_ones_are_removed() {
    let d = scratch();
    let samples = d.path().join("s.jsonl");
    many_samples(&samples, 8_000);
    let out = d.path().join("results.bres");
    // SIGINT and SIGTERM at every moment of a post, writing included.
    let t = Instant::now();
    let _ = run_ok(
        blame()
            .args(["post", "--samples"])
            .arg(&samples)
            .arg("-o")
            .arg(&out),
    );
    let whole = t.elapsed();
    for i in 0..8u32 {
        let mut child = blame()
            .args(["post", "--samples"])
            .arg(&samples)
            .arg("-o")
            .arg(&out)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(whole.mul_f64(0.4 + f64::from(i) * 0.08));
        let sig = if i % 2 == 0 { "-INT" } else { "-TERM" };
        let _ = Command::new("kill")
            .arg(sig)
            .arg(child.id().to_string())
            .status();
        let status = child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert!(
            status.success() || matches!(status.signal(), Some(2) | Some(15)),
            "{status:?}"
        );
        assert_eq!(temporaries(d.path()), Vec::<String>::new(), "after {sig}");
    }
    run_ok(blame().arg("check").arg(&out));
    // A temporary of a post killed with SIGKILL an hour ago is removed by
    // the next post; a fresh one (a post still writing) is not.
    let stale = d.path().join(".results.bres.AbC123.tmp");
    let fresh = d.path().join(".results.bres.XyZ789.tmp");
    std::fs::write(&stale, b"half").unwrap();
    std::fs::write(&fresh, b"half").unwrap();
    run_ok(Command::new("touch").args(["-d", "1 hour ago"]).arg(&stale));
    run_ok(
        blame()
            .args(["post", "--samples"])
            .arg(&samples)
            .arg("-o")
            .arg(&out),
    );
    assert!(!stale.exists(), "the stale temporary is removed");
    assert!(fresh.exists(), "a fresh one may be a running post's");
}

/// Attaching to another user's process without the rights to: the error
/// names the process and its owner (issue 31, item 8), not a bare EPERM.
#[test]
fn attaching_to_another_users_process_names_it_and_its_owner() {
    if !is_root() {
        assert!(std::env::var_os("CI").is_none(), "CI runs as root");
        return;
    }
    let (uid, gid) = system_user("blametest");
    let d = scratch();
    let theirs = users_dir(&d.path().join("theirs"), uid, gid, 0o755);
    let mut victim = Command::new("sleep").arg("30").spawn().unwrap();
    let pid = victim.id().to_string();
    let out = output_within(
        Command::new("runuser")
            .args(["-u", "blametest", "--"])
            .arg(env!("CARGO_BIN_EXE_blame"))
            .args(["record", "--pid", &pid, "--duration", "1", "-o"])
            .arg(theirs.join("run"))
            .current_dir(&theirs),
        60,
    )
    .expect("record returns");
    let _ = victim.kill();
    let _ = victim.wait();
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains(&format!("process {pid}")), "{err}");
    assert!(err.contains("belongs to uid 0"), "{err}");
}
