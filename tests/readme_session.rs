//! README's "A session", run line by line as it is written (in a directory
//! holding the demo solver, `blame` and `blame-analyzer` on the PATH), and
//! what the run keeps: the manifest names the static db the program was
//! built with, so `blame post` works from any directory; with that db gone,
//! `post` refuses to replace the results (naming the db) unless `--force`,
//! and a report says the db is missing.

mod e2e_support;
use e2e_support::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The lines of README's "A session" block, comments dropped.
fn session_lines() -> Vec<String> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let section = readme
        .split("\n## A session\n")
        .nth(1)
        .expect("README has a section \"A session\"");
    let block = section
        .split("```\n")
        .nth(1)
        .expect("a code block in \"A session\"");
    block
        .lines()
        .map(|l| l.split("  #").next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// A shell in `dir` with the built `blame` first on the PATH, MPI allowed to
/// run as root and oversubscribe, and the user's db store inside the test.
fn shell(dir: &Path, home: &Path, line: &str) -> Command {
    let bin = Path::new(env!("CARGO_BIN_EXE_blame")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", home)
        .env_remove("XDG_DATA_HOME")
        .env_remove("BLAME_DB")
        .env_remove("BLAME_DB_STORE")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    c
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn variables(report: &serde_json::Value) -> Vec<(String, String, f64)> {
    report["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["function"].as_str().unwrap().to_string(),
                v["name"].as_str().unwrap().to_string(),
                v["samples"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_readme_session_runs_as_written_and_never_loses_a_result() {
    if !sampling_allowed() {
        return;
    }
    if Command::new("mpicc").arg("--version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "CI has OpenMPI");
        eprintln!("skipping: no mpicc (scripts/deps.sh installs OpenMPI)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/solver/solver.c"),
        work.join("solver.c"),
    )
    .unwrap();

    let lines = session_lines();
    assert_eq!(lines.len(), 6, "{lines:?}");
    let mut outputs = Vec::new();
    for line in &lines {
        let out = shell(&work, &home, line).output().unwrap();
        assert!(out.status.success(), "`{line}` failed:\n{}", text(&out));
        outputs.push(text(&out));
    }
    let post = &outputs[3];
    assert!(post.contains("blame: wrote run/results.bres"), "{post}");
    // A launcher without debug info is expected, not warned about.
    assert!(!post.contains("no debug info"), "{post}");
    let report = &outputs[4];
    assert!(report.contains("s.grid.u"), "{report}");
    assert!(work.join("run.html").is_file());

    // The data-tree flame graph of the run weighs each variable as the
    // report does: a top-level variable at its count, a node never above
    // its count, children never above their parent.
    let out = shell(
        &work,
        &home,
        "blame export run --format folded --tree data -o data.folded",
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let folded = std::fs::read_to_string(work.join("data.folded")).unwrap();
    let mut nodes: std::collections::BTreeMap<Vec<String>, f64> = Default::default();
    for line in folded.lines() {
        let (stack, w) = line.rsplit_once(' ').unwrap();
        let frames: Vec<String> = stack
            .split(';')
            .filter(|f| !f.starts_with("rank ") && !f.starts_with("pid "))
            .map(str::to_string)
            .collect();
        for n in 1..=frames.len() {
            *nodes.entry(frames[..n].to_vec()).or_default() += w.parse::<f64>().unwrap();
        }
    }
    let report = report_json(&[work.join("run").to_str().unwrap()]);
    for v in report["variables"].as_array().unwrap() {
        let mut path: Vec<String> = v["name"]
            .as_str()
            .unwrap()
            .split('.')
            .map(str::to_string)
            .collect();
        path[0] = format!("{}::{}", v["function"].as_str().unwrap(), path[0]);
        let want = v["samples"].as_f64().unwrap();
        let got = nodes.get(&path).copied().unwrap_or(0.0);
        assert!(got <= want, "{path:?}: {got} > report {want}\n{folded}");
        if path.len() == 1 {
            assert_eq!(got, want, "{path:?}\n{folded}");
        }
    }
    for (path, w) in &nodes {
        let kids: f64 = nodes
            .iter()
            .filter(|(k, _)| k.len() == path.len() + 1 && k.starts_with(path))
            .map(|(_, x)| x)
            .sum();
        assert!(kids <= *w, "{path:?}: children {kids} > {w}\n{folded}");
    }
    assert!(nodes.contains_key(&["main::s".to_string(), "grid".to_string()][..]));

    // The manifest names the db, found by the binary's build-id (the link
    // through `blame cc` registered it in the user's store).
    let m = manifest(&work.join("run"));
    let dbs = m["static_dbs"]
        .as_array()
        .expect("static_dbs in the manifest");
    assert_eq!(dbs.len(), 1, "{m:#}");
    let db = PathBuf::from(dbs[0]["db"].as_str().unwrap());
    assert_eq!(db, work.join(".blame/static.db"));
    assert_eq!(dbs[0]["found_by"], "build-id", "{m:#}");

    // `post` from another directory: the same variables.
    let run = work.join("run");
    let from_here = report_json(&[run.to_str().unwrap()]);
    let results = run.join("results.bres");
    let kept = std::fs::read(&results).unwrap();
    std::fs::remove_file(&results).unwrap();
    let out = shell(tmp.path(), &home, "blame post work/run")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let elsewhere = report_json(&[run.to_str().unwrap()]);
    assert!(!variables(&from_here).is_empty());
    assert_eq!(variables(&elsewhere), variables(&from_here));

    // The db moved away: post refuses to replace the results, naming it.
    let kept = std::fs::read(&results).unwrap_or(kept);
    std::fs::rename(work.join(".blame"), work.join("moved")).unwrap();
    let out = shell(tmp.path(), &home, "blame post work/run")
        .output()
        .unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("not replacing"), "{said}");
    assert!(
        said.contains(&db.display().to_string()) && said.contains("is missing"),
        "{said}"
    );
    assert_eq!(std::fs::read(&results).unwrap(), kept, "results untouched");
    // A report of the run says the db is missing, not "not built with blame cc".
    let out = shell(&work, &home, "blame report run").output().unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("is missing"), "{said}");
    assert!(!said.contains("not built with blame cc"), "{said}");
    // Sharded, the same: the last shard's merge and `blame merge` refuse.
    let out = shell(&work, &home, "blame post --shard 0/2 run")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = shell(&work, &home, "blame post --shard 1/2 run")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("not replacing"), "{}", text(&out));
    let out = shell(&work, &home, "blame merge run").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(std::fs::read(&results).unwrap(), kept, "results untouched");
    run_ok(&mut shell(&work, &home, "blame merge --force run"));
    assert_ne!(std::fs::read(&results).unwrap(), kept);
    std::fs::write(&results, &kept).unwrap();
    // --force replaces them.
    let out = shell(&work, &home, "blame post --force run")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_ne!(std::fs::read(&results).unwrap(), kept);
}
