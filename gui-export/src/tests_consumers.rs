//! Exports read by their real consumers (issue: "exports validate"):
//! pprof by `go tool pprof` (Debian golang-go), speedscope against the
//! schema published in the npm package `speedscope`, Hatchet's literal JSON
//! by Hatchet itself (PyPI llnl-hatchet). `scripts/test-tools.sh` installs
//! the Python and npm parts into `target/test-tools`. Outside CI a missing
//! consumer skips with a printed reason; under `CI=true` it fails.

use crate::export::{export, ExportFormat};
use crate::tests::fixture;
use crate::trees::TreeKind;
use std::path::{Path, PathBuf};
use std::process::Command;

fn test_tools() -> PathBuf {
    std::env::var_os("BLAME_TEST_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/test-tools"))
}

/// The consumer at `path`, or `None` (skip) outside CI when it is missing.
fn consumer(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    let reason = format!(
        "{what} not found at {}: run scripts/test-tools.sh",
        path.display()
    );
    assert!(std::env::var("CI").is_err(), "{reason}");
    eprintln!("skipping: {reason}");
    None
}

/// A tool installed by scripts/test-tools.sh (`rel` under target/test-tools),
/// or `None` (skip) outside CI when it is missing.
pub(crate) fn test_tool(rel: &str, what: &str) -> Option<PathBuf> {
    consumer(test_tools().join(rel), what)
}

fn go() -> Option<PathBuf> {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("go"))
        .find(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("/usr/bin/go"));
    consumer(found, "go (Debian golang-go)")
}

fn python() -> Option<PathBuf> {
    consumer(test_tools().join("venv/bin/python"), "test-tools venv")
}

fn write_export(dir: &Path, format: ExportFormat, tree: TreeKind, name: &str) -> PathBuf {
    let bytes = export(&fixture(), format, tree, None).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn go_tool_pprof_reads_both_trees_with_variable_and_rank_labels() {
    let Some(go) = go() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (tree, leaf, rank1) in [
        (TreeKind::Code, "bar", "3, 50.00% of 6 total"),
        // Rank 0's fields share se's 3 samples (2 + 1), beside loopC's 1.
        (TreeKind::Data, "sX", "3, 42.86% of 7 total"),
    ] {
        let file = write_export(dir.path(), ExportFormat::Pprof, tree, "blame.pb.gz");
        let raw = run(Command::new(&go)
            .args(["tool", "pprof", "-raw"])
            .arg(&file)
            .env("HOME", dir.path())
            .env("PPROF_TMPDIR", dir.path()));
        assert!(
            raw.contains("cpu-clock samples/count"),
            "sample type named: {raw}"
        );
        assert!(raw.contains(leaf), "{leaf} in {raw}");
        assert!(
            raw.contains("rank:[0]") && raw.contains("rank:[1]"),
            "{raw}"
        );
        let top = run(Command::new(&go)
            .args(["tool", "pprof", "-top", "-tagfocus=rank=^1$"])
            .arg(&file)
            .env("HOME", dir.path())
            .env("PPROF_TMPDIR", dir.path()));
        assert!(top.contains(leaf), "{top}");
        assert!(top.contains(rank1), "rank 1 has 3 samples: {top}");
    }
}

#[test]
fn speedscope_export_validates_against_the_published_schema() {
    let Some(python) = python() else { return };
    let Some(schema) = consumer(
        test_tools().join("speedscope/file-format-schema.json"),
        "speedscope schema",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for tree in [TreeKind::Code, TreeKind::Data] {
        let file = write_export(
            dir.path(),
            ExportFormat::Speedscope,
            tree,
            "p.speedscope.json",
        );
        let out = run(Command::new(&python)
            .arg("-c")
            .arg(
                "import json,sys,jsonschema\n\
                 s=json.load(open(sys.argv[1])); d=json.load(open(sys.argv[2]))\n\
                 jsonschema.validate(d, s)\n\
                 print(len(d['profiles']))",
            )
            .arg(&schema)
            .arg(&file));
        assert_eq!(out.trim(), "2", "one profile per rank");
    }
}

#[test]
fn hatchet_loads_the_literal_and_sums_the_samples() {
    let Some(python) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (tree, root) in [(TreeKind::Code, "main"), (TreeKind::Data, "foo::se")] {
        let file = write_export(dir.path(), ExportFormat::Hatchet, tree, "hatchet.json");
        let out = run(Command::new(&python)
            .arg("-c")
            .arg(
                "import json,sys,hatchet as ht\n\
                 gf=ht.GraphFrame.from_literal(json.load(open(sys.argv[1])))\n\
                 df=gf.dataframe\n\
                 print(sorted(r.frame['name'] for r in gf.graph.roots))\n\
                 print(list(df.columns))",
            )
            .arg(&file)
            .env("MPLCONFIGDIR", dir.path()));
        assert!(
            out.contains(&format!("'{root}'")),
            "{root} is a root: {out}"
        );
        assert!(out.contains("cpu-clock (inc)"), "{out}");
    }
}

#[test]
fn thicket_loads_both_trees_with_the_blame_and_the_metadata() {
    let Some(python) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = write_export(
        dir.path(),
        ExportFormat::Thicket,
        TreeKind::Data,
        "thicket.json",
    );
    let out = run(Command::new(&python)
        .arg("-c")
        .arg(
            "import json,sys,thicket as th\n\
             tk=th.Thicket.from_json(open(sys.argv[1]).read())\n\
             df=tk.dataframe.reset_index()\n\
             df['n']=df['node'].apply(lambda n: n.frame['name'])\n\
             df['t']=df['node'].apply(lambda n: n.frame['type'])\n\
             print(sorted(r.frame['name'] for r in tk.graph.roots))\n\
             for _, r in df.sort_values('n').iterrows(): print('row', r['n'], r['t'], r['cpu-clock (inc)'], r['cpu-clock'])\n\
             m=tk.metadata.iloc[0]\n\
             print('meta', m['command'], m['ranks'], m['event'], m['samples'])",
        )
        .arg(&file)
        .env("MPLCONFIGDIR", dir.path()));
    assert!(
        out.contains("['main', 'variables']"),
        "code and data roots: {out}"
    );
    // The fixture: se blamed for 6 samples, sX 3, sY 4; bar 6 inclusive in the code tree.
    for row in [
        "row foo::se variable 6.0 0.0",
        "row sX field 3.0 3.0",
        "row sY field 4.0 4.0",
        "row bar function 6.0 6.0",
        "row main function 6.0 0.0",
    ] {
        assert!(out.contains(row), "{row:?} in {out}");
    }
    assert!(out.contains("meta ./fig3_14 2 cpu-clock 6.0"), "{out}");
}
