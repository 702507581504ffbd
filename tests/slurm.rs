//! blame under a real Slurm: a single-node cluster from Debian's packages
//! (munge, slurmctld, slurmd), brought up by `scripts/slurm-up.sh`, and the
//! forms users type:
//!
//! - `srun -n N blame record -o RUN -- ./app` (one recorder per task),
//! - `blame record -- srun ...`, refused with the per-task command,
//! - `salloc -n N blame record -o RUN -- mpirun -np N ./app`,
//! - the batch script `examples/slurm/blame-job.sh` under `sbatch`,
//! - `srun -n K blame post RUN` (a job step: shards, the last one merges),
//! - a job array of `blame post --shard $SLURM_ARRAY_TASK_ID/K`, then `blame merge`.
//!
//! Needs root to start the daemons; in CI (root) it always runs.

mod e2e_support;

use e2e_support::slurm::Cluster;
use e2e_support::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn blame_exe() -> &'static str {
    env!("CARGO_BIN_EXE_blame")
}

fn by_variable(dir: &Path, run: &str, db: &Path) -> Value {
    let out = run_ok(
        Command::new(blame_exe())
            .current_dir(dir)
            .args(["report", run, "--static"])
            .arg(db)
            .args(["--format", "json"]),
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every rank's process was recorded: its manifest entry names its file
/// (a node file: one per recorder) and the file exists.
fn assert_ranks(run: &Path, n: u32) {
    let mut entries = Vec::new();
    for m in std::fs::read_dir(run).unwrap().flatten() {
        let name = m.file_name().to_string_lossy().into_owned();
        if name.starts_with("manifest") && name.ends_with(".json") {
            let v: Value = serde_json::from_slice(&std::fs::read(m.path()).unwrap()).unwrap();
            entries.extend(v["processes"].as_array().unwrap().clone());
        }
    }
    for r in 0..n {
        let e = entries
            .iter()
            .find(|e| e["rank"] == r && e["launcher"] == false);
        let file = e.and_then(|e| e["file"].as_str());
        assert!(
            file.is_some_and(|f| f.ends_with(".bnode") && run.join(f).exists()),
            "rank {r}'s stream in {}: {entries:?}",
            run.display(),
        );
    }
}

#[test]
fn slurm_forms_record_post_and_merge() {
    if !sampling_allowed() {
        return;
    }
    let Some(cluster) = Cluster::up() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = d.join("s.db");
    // The MPI quadrature through blame cc, and a serial program.
    run_ok(
        blame()
            .env("BLAME_DB", &db)
            .env("OMPI_CC", "clang-19")
            .args(["cc", "--", "mpicc", "-g", "-O2", "-c"])
            .arg(program("quad_mpi.c"))
            .arg("-o")
            .arg(d.join("quad.o")),
    );
    run_ok(
        Command::new("mpicc")
            .env("OMPI_CC", "clang-19")
            .arg("-g")
            .arg(d.join("quad.o"))
            .arg("-o")
            .arg(d.join("quad"))
            .arg("-lm"),
    );
    let bl = blame_exe();

    // srun -n 2 blame record: one recorder per task, ranks from SLURM_PROCID.
    run_ok(cluster.cmd("srun", d).args([
        "-n", "2", bl, "record", "-F", "2000", "-o", "runA", "--", "./quad", "2000000",
    ]));
    assert_ranks(&d.join("runA"), 2);
    // Post as a job step: each task a shard, the last one merges.
    let post = run_ok(
        cluster
            .cmd("srun", d)
            .args(["-n", "2", bl, "post", "runA", "--static"])
            .arg(&db),
    );
    let said = String::from_utf8_lossy(&post.stderr);
    assert!(
        said.contains("shard 0/2") && said.contains("shard 1/2"),
        "{said}"
    );
    assert!(
        d.join("runA/results.bres").exists(),
        "the last shard merged: {said}"
    );
    let sharded = by_variable(d, "runA", &db);
    assert!(
        explicit_of(&sharded, Some("main"), "quad") >= 30.0,
        "{sharded}"
    );

    // blame record -- srun: refused, with the command that works.
    let refused = cluster
        .cmd(bl, d)
        .args([
            "record", "-o", "runB", "--", "srun", "-n", "2", "./quad", "1000",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("srun -n 2 blame record -o runB -- ./quad 1000"),
        "{err}"
    );

    // salloc + mpirun inside the allocation.
    run_ok(cluster.cmd("salloc", d).args([
        "-n", "2", bl, "record", "-F", "2000", "-o", "runC", "--", "mpirun", "-np", "2", "./quad",
        "2000000",
    ]));
    assert_ranks(&d.join("runC"), 2);
    run_ok(
        Command::new(bl)
            .current_dir(d)
            .args(["post", "runC", "--static"])
            .arg(&db),
    );
    let whole = by_variable(d, "runC", &db);
    std::fs::remove_file(d.join("runC/results.bres")).unwrap();

    // A job array of shards, then blame merge: the same as the whole.
    run_ok(cluster.cmd("sbatch", d).args([
        "--wait",
        "--array=0-1",
        "-o",
        "array-%a.out",
        &format!(
            "--wrap={bl} post runC --static {} --shard $SLURM_ARRAY_TASK_ID/2",
            db.display()
        ),
    ]));
    for i in 0..2 {
        assert!(d.join(format!("runC/results.bres.shard-{i}-of-2")).exists());
    }
    std::fs::remove_file(d.join("runC/results.bres")).ok();
    run_ok(Command::new(bl).current_dir(d).args(["merge", "runC"]));
    let merged = by_variable(d, "runC", &db);
    assert_eq!(
        merged["variables"], whole["variables"],
        "job array + merge = whole"
    );

    // The batch script of examples/slurm under sbatch.
    let job = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/slurm/blame-job.sh");
    run_ok(
        cluster
            .cmd("sbatch", d)
            .env("BLAME", bl)
            .env("BLAME_DB", &db)
            .env("RUN", "runD")
            .args(["--wait", "-n", "2", "-o", "job.out"])
            .arg(&job)
            .args(["./quad", "2000000"]),
    );
    let out = std::fs::read_to_string(d.join("job.out")).unwrap();
    assert!(out.contains("merged 2 shards"), "{out}");
    assert!(
        out.contains("quad"),
        "the report names the variables: {out}"
    );
    assert_ranks(&d.join("runD"), 2);
}
