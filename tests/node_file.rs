//! One file per node: `blame record -- mpirun -np 4 ./app` writes every
//! process the recorder follows into one node file (a section per process
//! image), and `blame post` reads, shards and salvages it like stream files:
//!
//! - one node file, every rank a section, named `rank-N` in the results;
//!   `--shard 0/2` + `--shard 1/2` + `blame merge` equal one post (and
//!   `merge --sum-contexts` gives its variables, refusing `--rank` drill-downs); the
//!   variables are those of a recording with one file per process;
//! - a flipped bit in the middle of one rank's section loses that chunk
//!   only (the other ranks' samples are all kept), `--strict` refuses;
//! - `kill -9` of the recorder mid-run leaves a file that `blame check`
//!   calls cut and from which `blame post` salvages every rank.
mod e2e_support;

use blame_formats::node_file::NodeIndex;
use blame_formats::stream::{decode_chunk, Record};
use e2e_support::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const NP: usize = 4;

fn mpirun(np: usize) -> Vec<String> {
    [
        "mpirun",
        "--allow-run-as-root",
        "--oversubscribe",
        "-np",
        &np.to_string(),
    ]
    .map(String::from)
    .to_vec()
}

fn record_with(run: &Path, extra: &[&str], argv: &[String]) {
    run_ok(
        blame()
            .args(["record", "-F", "1000"])
            .args(extra)
            .arg("-o")
            .arg(run)
            .arg("--")
            .args(argv),
    );
}

fn node_files(run: &Path) -> Vec<PathBuf> {
    // Not there yet while a recorder starts.
    let Ok(entries) = std::fs::read_dir(run) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "bnode"))
        .collect();
    v.sort();
    v
}

/// Application samples per rank, as `blame dump` reads them.
fn samples_per_rank(run: &Path) -> BTreeMap<u64, usize> {
    let mut out = BTreeMap::new();
    for s in dump(run) {
        if let Some(r) = s["rank"].as_u64() {
            *out.entry(r).or_default() += 1;
        }
    }
    out
}

fn by_variable(run: &Path, db: &Path) -> Value {
    report_json(&[
        run.to_str().unwrap(),
        "--static",
        db.to_str().unwrap(),
        "--by-variable",
    ])
}

/// Rows of a by-variable report, sorted, for exact comparison.
fn rows(report: &Value) -> Vec<Value> {
    let mut rows = report["variables"].as_array().unwrap().clone();
    rows.sort_by_key(|v| format!("{}::{}", v["function"], v["name"]));
    rows
}

fn post(run: &Path, db: &Path, extra: &[&str]) -> Output {
    let out = blame()
        .arg("post")
        .arg(run)
        .arg("--static")
        .arg(db)
        .args(extra)
        .output()
        .unwrap();
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Copies the files of a run directory (not its lock) to `to`.
fn copy_run(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        if p.is_file()
            && !p
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("results")
        {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
}

#[test]
fn four_ranks_under_one_recorder_share_one_node_file() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = program("quad_mpi.c");
    let exe = compile(&src, dir.path(), true);
    let db = analyze(&src, dir.path(), true);
    let mut argv = mpirun(NP);
    argv.push(exe.to_string_lossy().into_owned());
    // Long enough (about 6 s of the four ranks on two cores) for a rank to
    // span three or more one-second flushes, so a section has a chunk in
    // its middle (at about 3 s, one run in three had a rank of two chunks).
    argv.push("30000000".into());

    // One recorder, one node file: every rank a section.
    let run = dir.path().join("run");
    record_with(&run, &[], &argv);
    let files = node_files(&run);
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(
        !std::fs::read_dir(&run).unwrap().any(|e| e
            .unwrap()
            .path()
            .extension()
            .is_some_and(|x| x == "bstream")),
        "no per-process files"
    );
    let index = NodeIndex::open(&files[0]).unwrap();
    assert!(index.complete, "{}", index.describe());
    let ranks: Vec<u32> = index
        .sections
        .iter()
        .filter_map(|s| s.header.as_ref()?.rank)
        .collect();
    let mut sorted = ranks.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, (0..NP as u32).collect::<Vec<_>>(), "{ranks:?}");
    let m = manifest(&run);
    for p in m["processes"].as_array().unwrap() {
        assert_eq!(p["file"], files[0].file_name().unwrap().to_str().unwrap());
        assert!(p["section"].is_u64(), "{p}");
    }
    let check = run_ok(blame().arg("check").arg(&files[0]));
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(
        said.contains("process sections") && said.contains("complete"),
        "{said}"
    );
    for r in 0..NP {
        assert!(said.contains(&format!("rank-{r} (pid")), "{said}");
    }

    // Post: every rank named rank-N, every sample counted.
    let whole = by_variable(&run, &db);
    let per_rank = samples_per_rank(&run);
    assert_eq!(per_rank.len(), NP, "{per_rank:?}");
    assert_eq!(
        whole["total_samples"].as_f64().unwrap(),
        per_rank.values().sum::<usize>() as f64,
        "post counts every application sample of every section"
    );
    let quad = explicit_of(&whole, Some("main"), "quad");
    assert!(quad >= 30.0, "main::quad {quad}\n{whole}");
    let text = run_ok(
        blame()
            .arg("report")
            .arg(&run)
            .arg("--static")
            .arg(&db)
            .arg("--by-variable"),
    );
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("rank") || text.contains("quad_part"),
        "{text}"
    );

    // Two shards, then merge: the same results as one post.
    std::fs::remove_file(run.join("results.bres")).unwrap();
    for i in 0..2 {
        let out = post(&run, &db, &["--shard", &format!("{i}/2")]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    // The last shard merged already; merge again explicitly.
    std::fs::remove_file(run.join("results.bres")).ok();
    run_ok(blame().arg("merge").arg(&run));
    assert_eq!(rows(&by_variable(&run, &db)), rows(&whole));
    // Contexts summed over ranks (the root of a hierarchical merge): the
    // same variables and rank statistics; the drill-down of one rank needs
    // per-rank contexts and names the shard results that have them.
    std::fs::remove_file(run.join("results.bres")).ok();
    run_ok(blame().arg("merge").arg("--sum-contexts").arg(&run));
    assert_eq!(rows(&by_variable(&run, &db)), rows(&whole));
    let refused = blame()
        .arg("report")
        .arg(&run)
        .arg("--static")
        .arg(&db)
        .args(["--variable", "quad", "--rank", "0"])
        .output()
        .unwrap();
    let said = stderr(&refused);
    assert!(!refused.status.success(), "{said}");
    assert!(
        said.contains("--sum-contexts") && said.contains("results.bres.shard-0-of-2"),
        "{said}"
    );
    std::fs::remove_file(run.join("results.bres")).ok();
    run_ok(blame().arg("merge").arg(&run));

    // The same program recorded with one file per process: the same
    // variables, blamed alike (different samples: shares within margins).
    let old = dir.path().join("old");
    record_with(&old, &["--per-process-files"], &argv);
    assert!(node_files(&old).is_empty());
    let old_report = by_variable(&old, &db);
    let names = |r: &Value| -> Vec<String> {
        let mut v: Vec<String> = rows(r)
            .iter()
            .filter(|v| v["explicit_percent"].as_f64().unwrap_or(0.0) >= 20.0)
            .map(|v| format!("{}::{}", v["function"], v["name"]))
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&whole), names(&old_report), "{whole}\n{old_report}");
    let old_quad = explicit_of(&old_report, Some("main"), "quad");
    assert!((quad - old_quad).abs() < 15.0, "{quad} vs {old_quad}");

    // A flipped bit in the middle of one rank's section (the rank with the
    // most chunks: on a loaded machine a rank may start late): that chunk
    // is lost, nothing else.
    let damaged = dir.path().join("damaged");
    copy_run(&run, &damaged);
    let file = damaged.join(files[0].file_name().unwrap());
    let mut bytes = std::fs::read(&file).unwrap();
    let data_chunks = |s: &blame_formats::node_file::SectionInfo| {
        s.chunks.iter().filter(|c| c.header.count > 0).count()
    };
    let section = index
        .sections
        .iter()
        .filter(|s| s.header.as_ref().is_some_and(|h| h.rank.is_some()))
        .max_by_key(|s| data_chunks(s))
        .unwrap();
    let victim_rank = section.header.as_ref().and_then(|h| h.rank).unwrap();
    let chunks: Vec<_> = section
        .chunks
        .iter()
        .filter(|c| c.header.count > 0)
        .collect();
    assert!(
        chunks.len() >= 3,
        "rank {victim_rank} has {} chunks",
        chunks.len()
    );
    let victim = *chunks[chunks.len() / 2];
    let lost_samples = {
        let body = &bytes[victim.offset as usize + 20..victim.end() as usize];
        let raw = blame_formats::container::RawChunk {
            index: 0,
            offset: victim.offset,
            record_count: victim.header.count,
            uncompressed_len: victim.header.ulen,
            compressed: body[blame_formats::node_file::SECTION_TAG_LEN..].to_vec(),
        };
        decode_chunk(raw, Path::new("x"))
            .unwrap()
            .iter()
            .filter(|r| matches!(r, Record::Sample(_)))
            .count()
    };
    bytes[victim.offset as usize + 40] ^= 0x10;
    std::fs::write(&file, &bytes).unwrap();
    let out = post(&damaged, &db, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let tag = format!("#rank-{victim_rank}:");
    assert!(
        err.contains(&format!("{tag} damaged bytes")) && err.contains("checksum mismatch"),
        "{err}"
    );
    for r in (0..NP as u32).filter(|&r| r != victim_rank) {
        assert!(
            !err.contains(&format!("#rank-{r}:")),
            "rank {r} is whole: {err}"
        );
    }
    // Samples after the chunk whose stacks were first written in it go too
    // (their stack-table nodes are lost); post says how many.
    let through_lost_nodes: usize = err
        .lines()
        .filter(|l| l.contains(&tag))
        .find_map(|l| {
            let (_, rest) = l.split_once(&format!("{tag} "))?;
            let (n, what) = rest.split_once(' ')?;
            what.starts_with("samples dropped: their stacks were defined in the skipped bytes")
                .then(|| n.parse().ok())
                .flatten()
        })
        .unwrap_or(0);
    let after = samples_per_rank(&damaged);
    for r in 0..NP as u64 {
        let lost = lost_samples + through_lost_nodes;
        let expect = per_rank[&r] - if r == victim_rank as u64 { lost } else { 0 };
        assert_eq!(after[&r], expect, "rank {r}: {err}");
    }
    let strict = post(&damaged, &db, &["--strict", "-o", "/dev/null"]);
    assert!(!strict.status.success());
    assert!(stderr(&strict).contains("--strict"), "{}", stderr(&strict));
    // blame check says which section is damaged.
    let check = blame().arg("check").arg(&file).output().unwrap();
    assert!(!check.status.success());
    let said = String::from_utf8_lossy(&check.stdout).into_owned() + &stderr(&check);
    assert!(said.contains("checksum mismatch"), "{said}");
}

#[test]
fn kill_9_of_the_recorder_leaves_a_node_file_post_salvages() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = program("quad_mpi.c");
    let exe = compile(&src, dir.path(), true);
    let run = dir.path().join("run");
    let mut argv = mpirun(NP);
    argv.push(exe.to_string_lossy().into_owned());
    argv.push("4000000000".into());
    let mut recorder = blame()
        .args(["record", "-F", "1000", "-o"])
        .arg(&run)
        .arg("--")
        .args(&argv)
        .stderr(Stdio::null())
        .stdout(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let pgid = recorder.id();
    // Whatever happens, the recorder's group (mpirun with it) dies with the test.
    struct KillGroup(u32);
    impl Drop for KillGroup {
        fn drop(&mut self) {
            let _ = Command::new("kill")
                .args(["-9", "--", &format!("-{}", self.0)])
                .status();
        }
    }
    let _group = KillGroup(pgid);
    // Until every rank's section holds samples (the recorder flushes each
    // second), or a generous limit on a loaded machine.
    let started = Instant::now();
    let ready = |run: &Path| -> bool {
        let Some(f) = node_files(run).pop() else {
            return false;
        };
        NodeIndex::open(f).is_ok_and(|i| {
            i.sections
                .iter()
                .filter(|s| {
                    s.header.as_ref().is_some_and(|h| h.rank.is_some()) && s.chunks.len() >= 2
                })
                .count()
                == NP
        })
    };
    while !ready(&run) && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(200));
    }
    // The recorder first, then what it launched.
    Command::new("kill")
        .args(["-9", &pgid.to_string()])
        .status()
        .unwrap();
    recorder.wait().unwrap();
    Command::new("kill")
        .args(["-9", "--", &format!("-{pgid}")])
        .status()
        .unwrap();
    assert!(ready(&run), "every rank sampled within 60 s");
    assert!(
        !run.join("manifest.json").exists(),
        "killed before its manifest"
    );
    let file = node_files(&run).pop().unwrap();
    let index = NodeIndex::open(&file).unwrap();
    assert!(!index.complete, "{}", index.describe());

    let check = blame().arg("check").arg(&file).output().unwrap();
    assert!(!check.status.success());
    let said = String::from_utf8_lossy(&check.stderr);
    assert!(said.contains("cut at byte"), "{said}");

    let db = analyze(&src, dir.path(), true);
    let out = post(&run, &db, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("cut at byte") && err.contains("the recording is damaged"),
        "{err}"
    );
    let per_rank = samples_per_rank(&run);
    assert_eq!(per_rank.len(), NP, "{per_rank:?}");
    let report = by_variable(&run, &db);
    assert_eq!(
        report["total_samples"].as_f64().unwrap(),
        per_rank.values().sum::<usize>() as f64
    );
}
