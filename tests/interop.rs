//! Interoperation with HPC tools on real recordings of
//! `tests/programs/interop_mpi.c` at 1, 2 and 4 MPI ranks and three input
//! sizes: an ensemble exported for Thicket and loaded by Thicket (PyPI
//! llnl-thicket) with one metadata row per run and each run's report values;
//! a Cube4 export read back by pycubexr (PyPI, the Cube reader Extra-P
//! uses) with per-rank values equal to `report --rank N`, and the three
//! sizes as a directory of Cube files that Extra-P (PyPI extrap) reads and
//! models per variable; Score-P filter
//! files and region classes in report, Thicket, Cube and folded exports.
//! The Python consumers come from scripts/test-tools.sh (missing outside CI:
//! those checks are skipped). These need perf_event (root in CI).

mod e2e_support;
use e2e_support::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The recordings every test reads: (ranks, input size, run dir).
struct Fixture {
    dir: PathBuf,
    db: PathBuf,
    runs: Vec<(u32, u32, PathBuf)>,
}

fn fixture() -> Option<&'static Fixture> {
    static FIXTURE: OnceLock<Option<Fixture>> = OnceLock::new();
    FIXTURE
        .get_or_init(|| {
            if !sampling_allowed() {
                return None;
            }
            // Kept for the whole test binary (tests share it), replaced by the next run.
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("interop");
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let src = program("interop_mpi.c");
            let exe = compile(&src, &dir, true);
            let db = analyze(&src, &dir, true);
            let mut runs = Vec::new();
            for (ranks, n) in [(1, 1), (2, 1), (4, 1), (2, 2), (2, 3)] {
                let run = dir.join(format!("run-p{ranks}-n{n}"));
                run_ok(
                    blame()
                        .args(["record", "-F", "2000", "-o"])
                        .arg(&run)
                        .args(["--", "mpirun", "--allow-run-as-root", "--oversubscribe"])
                        .args(["-np", &ranks.to_string()])
                        .arg(&exe)
                        .arg(n.to_string())
                        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
                );
                runs.push((ranks, n, run));
            }
            Some(Fixture { dir, db, runs })
        })
        .as_ref()
}

impl Fixture {
    fn run(&self, ranks: u32, n: u32) -> &str {
        self.runs
            .iter()
            .find(|r| r.0 == ranks && r.1 == n)
            .unwrap()
            .2
            .to_str()
            .unwrap()
    }
    fn db(&self) -> &str {
        self.db.to_str().unwrap()
    }
}

/// Python of scripts/test-tools.sh, or `None` (skip) outside CI.
fn python() -> Option<PathBuf> {
    let tools = std::env::var_os("BLAME_TEST_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-tools"));
    let path = tools.join("venv/bin/python");
    if path.exists() {
        return Some(path);
    }
    let reason = format!("{} missing: run scripts/test-tools.sh", path.display());
    assert!(std::env::var_os("CI").is_none(), "{reason}");
    eprintln!("skipping: {reason}");
    None
}

/// Runs a Python script that prints one JSON document.
fn python_json(python: &Path, script: &str, args: &[&Path], home: &Path) -> Value {
    let out = run_ok(
        std::process::Command::new(python)
            .arg("-c")
            .arg(script)
            .args(args)
            .env("MPLCONFIGDIR", home),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn variable<'a>(report: &'a Value, function: &str, name: &str) -> &'a Value {
    report["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["function"] == function && v["name"] == name)
        .unwrap_or_else(|| panic!("{function}::{name} not in {report:#}"))
}

fn function<'a>(report: &'a Value, name: &str) -> Option<&'a Value> {
    report["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["function"] == name)
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn thicket_loads_an_ensemble_of_ranks_and_sizes_with_each_runs_values() {
    let Some(fx) = fixture() else { return };
    let Some(python) = python() else { return };
    let file = fx.dir.join("ensemble.thicket.json");
    let mut cmd = blame();
    cmd.arg("export");
    for (_, _, run) in &fx.runs {
        cmd.arg(run);
    }
    run_ok(
        cmd.args(["--static", fx.db(), "--format", "thicket"])
            .args(["--param", "n=1,1,1,2,3", "-o"])
            .arg(&file),
    );
    let got = python_json(
        &python,
        "import sys, json, thicket as th\n\
         tk = th.Thicket.from_json(open(sys.argv[1]).read())\n\
         meta = tk.metadata.reset_index()\n\
         runs = [{k: (v if isinstance(v, str) else str(int(v)) if k == 'profile' else float(v)) for k, v in r.items() if k in ('profile','run','ranks','n','samples','date','command','git_revision')} for _, r in meta.iterrows()]\n\
         rows = {}\n\
         for _, x in tk.dataframe.reset_index().iterrows():\n\
         \x20   f = x['node'].frame\n\
         \x20   key = '%s|%s' % (f['name'], x['profile'])\n\
         \x20   e = x['explicit (inc)']\n\
         \x20   c = x['class']\n\
         \x20   rows[key] = [float(x['cpu-clock (inc)']), None if e is None or e != e else float(e), c if isinstance(c, str) else None, f['type']]\n\
         print(json.dumps({'runs': runs, 'rows': rows}))",
        &[&file],
        &fx.dir,
    );
    let runs = got["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 5, "one metadata row per run: {got:#}");
    for (ranks, n, run) in &fx.runs {
        let r = run.to_str().unwrap();
        let meta = runs
            .iter()
            .find(|m| m["run"] == r)
            .unwrap_or_else(|| panic!("{r} in {runs:#?}"));
        assert_eq!(num(&meta["ranks"]), *ranks as f64, "{meta}");
        assert_eq!(num(&meta["n"]), *n as f64, "{meta}");
        let date = meta["date"].as_str().unwrap();
        assert!(date.len() == 20 && date.ends_with('Z'), "{date}");
        assert!(
            meta["command"].as_str().unwrap().contains("interop_mpi"),
            "{meta}"
        );
        // The program's directory is in a git work tree here (the checkout's
        // target/): its revision is in the metadata.
        let git = std::process::Command::new("git")
            .arg("-C")
            .arg(&fx.dir)
            .args(["rev-parse", "HEAD"])
            .output()
            .ok()
            .filter(|o| o.status.success());
        if let Some(out) = git {
            let rev = String::from_utf8_lossy(&out.stdout).trim().to_string();
            assert_eq!(meta["git_revision"], rev.as_str(), "{meta}");
        }
        // As a string: a 53-bit id does not survive a JSON float.
        let profile = meta["profile"].as_str().unwrap();
        // The run's own report: the same samples, variables and functions.
        let report = report_json(&[r, "--static", fx.db()]);
        assert_eq!(num(&meta["samples"]), num(&report["total_samples"]));
        let row = |name: &str| {
            got["rows"][format!("{name}|{profile}")]
                .as_array()
                .unwrap_or_else(|| panic!("{name} of {r} not loaded"))
                .clone()
        };
        let field = variable(&report, "main", "field");
        let loaded = row("main::field");
        assert!(close(num(&loaded[0]), num(&field["total"])), "{loaded:?}");
        assert!(close(num(&loaded[1]), num(&field["samples"])), "{loaded:?}");
        assert_eq!(loaded[3], "variable");
        let functions = report_json(&[r, "--static", fx.db(), "--by-function"]);
        let compute = function(&functions, "compute").unwrap();
        let loaded = row("compute");
        assert!(
            close(num(&loaded[0]), num(&compute["inclusive"])),
            "{loaded:?}"
        );
        assert_eq!(loaded[2], "USR");
        assert_eq!(row("exchange")[2], "COM");
        if *ranks > 1 {
            assert_eq!(row("MPI_Allreduce")[2], "MPI");
        }
    }
    // More input, more work in compute (2 ranks: n = 1, 2, 3).
    let compute_of = |ranks: u32, n: u32| {
        let r = fx.run(ranks, n);
        let profile = runs.iter().find(|m| m["run"] == r).unwrap()["profile"].clone();
        num(&got["rows"][format!("compute|{}", profile.as_str().unwrap())][0])
    };
    let (c1, c3) = (compute_of(2, 1), compute_of(2, 3));
    // Three times the work; sampled beside spinning ranks on a busy
    // machine, the ratio is noisy.
    assert!(c3 > 1.4 * c1, "compute at n=1: {c1}, n=3: {c3}");
}

#[test]
fn cube_reader_reads_the_cubex_export_with_per_rank_values() {
    let Some(fx) = fixture() else { return };
    let Some(python) = python() else { return };
    let run = fx.run(4, 1);
    let file = fx.dir.join("p4.cubex");
    run_ok(
        blame()
            .args([
                "export",
                run,
                "--static",
                fx.db(),
                "--format",
                "cubex",
                "-o",
            ])
            .arg(&file),
    );
    let got = python_json(
        &python,
        "import sys, json\n\
         from pycubexr import CubexParser\n\
         out = {'metrics': {}, 'regions': {}}\n\
         with CubexParser(sys.argv[1]) as c:\n\
         \x20   groups = c._anchor_result.system_tree_nodes[0].all_location_groups()\n\
         \x20   out['groups'] = [[g.name, int(g.rank)] for g in groups]\n\
         \x20   out['locations'] = len(c.get_locations())\n\
         \x20   out['root'] = c.get_region(c.get_root_cnodes()[0]).name\n\
         \x20   for m in c.get_metrics():\n\
         \x20       v = c.get_metric_values(m)\n\
         \x20       per = {}\n\
         \x20       for cn in c.all_cnodes():\n\
         \x20           name = c.get_region(cn).name\n\
         \x20           vals = [float(x) for x in v.cnode_values(cn, convert_to_inclusive=True)]\n\
         \x20           old = per.get(name, [0.0] * len(vals))\n\
         \x20           per[name] = [a + b for a, b in zip(old, vals)]\n\
         \x20       out['metrics'][m.name] = per\n\
         \x20   for r in c._anchor_result.regions:\n\
         \x20       out['regions'][r.name] = [r.paradigm, r.description]\n\
         print(json.dumps(out))",
        &[&file],
        &fx.dir,
    );
    assert_eq!(got["root"], "interop_mpi");
    assert_eq!(got["locations"], 4);
    let groups: Vec<(String, u64)> = got["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g[0].as_str().unwrap().to_string(), g[1].as_u64().unwrap()))
        .collect();
    assert_eq!(
        groups,
        (0..4)
            .map(|r| (format!("MPI Rank {r}"), r))
            .collect::<Vec<_>>()
    );
    let metric = |m: &str, region: &str| -> Vec<f64> {
        got["metrics"][m][region]
            .as_array()
            .unwrap_or_else(|| panic!("{m} of {region} not read"))
            .iter()
            .map(num)
            .collect()
    };
    for rank in 0..4u32 {
        let rs = rank.to_string();
        let l = rank as usize;
        let functions = report_json(&[run, "--static", fx.db(), "--by-function", "--rank", &rs]);
        for f in ["compute", "exchange", "main"] {
            let want = function(&functions, f).map_or(0.0, |f| num(&f["inclusive"]));
            let samples = metric("samples", f)[l];
            assert!(
                close(samples, want),
                "{f} rank {rank}: cube {samples}, report {want}"
            );
            assert!(close(metric("time", f)[l], want / 2000.0), "{f} time");
        }
        let vars = report_json(&[run, "--static", fx.db(), "--rank", &rs]);
        for (func, name) in [("main", "field"), ("exchange", "local")] {
            let v = variable(&vars, func, name);
            let path = format!("{func}::{name}");
            assert!(
                close(metric("blame_total", &path)[l], num(&v["total"])),
                "{path} rank {rank}"
            );
            assert!(
                close(metric("blame_explicit", &path)[l], num(&v["samples"])),
                "{path} rank {rank}"
            );
            // Blame is on the data tree only.
            assert_eq!(metric("samples", &path)[l], 0.0);
        }
    }
    let region = |n: &str| got["regions"][n].clone();
    assert_eq!(region("MPI_Allreduce")[0], "mpi");
    assert_eq!(region("MPI_Allreduce")[1], "region class MPI");
    assert_eq!(region("exchange")[1], "region class COM");
    assert_eq!(region("compute")[0], "user");
    assert_eq!(region("compute")[1], "region class USR");
}

#[test]
fn scorep_filter_and_region_classes_apply_to_every_view() {
    let Some(fx) = fixture() else { return };
    let run = fx.run(2, 1);
    let filter = fx.dir.join("hide.filt");
    std::fs::write(
        &filter,
        "# the kernel and MPI's internals fold into their callers\n\
         SCOREP_REGION_NAMES_BEGIN\n\
         \x20 EXCLUDE compute   # the local work\n\
         \x20         ompi_* mca_*\n\
         \x20 EXCLUDE MANGLED exchang?\n\
         SCOREP_REGION_NAMES_END\n\
         SCOREP_REGION_NAMES_BEGIN\n\
         \x20 INCLUDE exchange  # the last matching rule decides\n\
         SCOREP_REGION_NAMES_END\n",
    )
    .unwrap();
    let f = filter.to_str().unwrap();
    let before = report_json(&[run, "--static", fx.db(), "--by-function"]);
    let after = report_json(&[run, "--static", fx.db(), "--by-function", "--filter", f]);
    assert_eq!(before["total_samples"], after["total_samples"]);
    assert!(function(&after, "compute").is_none());
    assert!(function(&after, "exchange").is_some(), "INCLUDE came last");
    assert!(
        after["functions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| !r["function"].as_str().unwrap().starts_with("ompi_")),
        "{after:#}"
    );
    // compute's own samples are main's own now (with compute alone hidden:
    // the filter above also folds MPI's internals called from main).
    let only = fx.dir.join("compute.filt");
    std::fs::write(
        &only,
        "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE compute\nSCOREP_REGION_NAMES_END\n",
    )
    .unwrap();
    let folded_compute = report_json(&[
        run,
        "--static",
        fx.db(),
        "--by-function",
        "--filter",
        only.to_str().unwrap(),
    ]);
    let main_excl = |r: &Value| num(&function(r, "main").unwrap()["exclusive"]);
    let compute_excl = num(&function(&before, "compute").unwrap()["exclusive"]);
    assert!(
        close(
            main_excl(&folded_compute),
            main_excl(&before) + compute_excl
        ),
        "main exclusive {} + compute {compute_excl} -> {}",
        main_excl(&before),
        main_excl(&folded_compute)
    );
    assert!(main_excl(&after) >= main_excl(&folded_compute));
    // Variables keep their blame.
    let vars = report_json(&[run, "--static", fx.db(), "--filter", f]);
    let plain = report_json(&[run, "--static", fx.db()]);
    assert_eq!(
        variable(&vars, "main", "field")["samples"],
        variable(&plain, "main", "field")["samples"]
    );
    // Exports: folded stacks, Thicket and Cube have no compute frame.
    let folded = fx.dir.join("filtered.folded");
    run_ok(
        blame()
            .args(["export", run, "--static", fx.db(), "--format", "folded"])
            .args(["--filter", f, "-o"])
            .arg(&folded),
    );
    let text = std::fs::read_to_string(&folded).unwrap();
    assert!(text.contains(";main;exchange;MPI_Allreduce"), "{text}");
    assert!(
        !text.contains(";compute") && !text.contains(";ompi_"),
        "{text}"
    );
    for format in ["thicket", "cubex"] {
        let out = fx.dir.join(format!("filtered.{format}"));
        run_ok(
            blame()
                .args(["export", run, "--static", fx.db(), "--format", format])
                .args(["--filter", f, "-o"])
                .arg(&out),
        );
        let bytes = std::fs::read(&out).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("\"compute\"") && !text.contains("<name>compute</name>"));
        assert!(text.contains("exchange"));
    }
    // The class column and the class filter.
    let text = run_ok(blame().args(["report", run, "--static", fx.db(), "--by-function"]));
    let text = String::from_utf8_lossy(&text.stdout);
    let line = text.lines().find(|l| l.starts_with("compute ")).unwrap();
    assert!(line.contains(" USR "), "{line}");
    let mpi = report_json(&[
        run,
        "--static",
        fx.db(),
        "--by-function",
        "--class",
        "MPI,WRP",
    ]);
    let classes: std::collections::BTreeSet<&str> = mpi["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["class"].as_str().unwrap())
        .collect();
    assert!(classes.contains("MPI"), "{classes:?}");
    assert!(
        classes.iter().all(|c| ["MPI", "WRP", "FLT"].contains(c)),
        "{classes:?}"
    );
    assert!(function(&mpi, "MPI_Allreduce").is_some());
    assert_eq!(mpi["total_samples"], before["total_samples"]);
    // A filter that is not Score-P's syntax: its line, exit code 1.
    std::fs::write(&filter, "SCOREP_REGION_NAMES_BEGIN\nfoo\n").unwrap();
    let out = blame()
        .args(["report", run, "--static", fx.db(), "--filter", f])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("filter line 2"), "{err}");
}

#[test]
fn extrap_reads_a_directory_of_cube_exports_and_models_variable_blame() {
    let Some(fx) = fixture() else { return };
    let Some(python) = python() else { return };
    let extrap = python.with_file_name("extrap");
    let dir = fx.dir.join("cubes");
    let sizes = [1, 2, 3];
    let mut cmd = blame();
    cmd.arg("export");
    for n in sizes {
        cmd.arg(fx.run(2, n));
    }
    run_ok(
        cmd.args(["--static", fx.db(), "--format", "cubex"])
            .args(["--param", "n=1,2,3", "-o"])
            .arg(&dir),
    );
    for n in sizes {
        assert!(dir.join(format!("blame.n{n}.r1/profile.cubex")).is_file());
    }
    let out = run_ok(
        std::process::Command::new(&extrap)
            .arg("--cube")
            .arg(&dir)
            .args(["--scaling", "strong"])
            .env("MPLCONFIGDIR", &fx.dir),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // The variable's call path, then its blame_total metric block.
    let block = text
        .split("Callpath: ")
        .find(|b| b.starts_with("interop_mpi->[variables]->main::field\n"))
        .unwrap_or_else(|| panic!("no main::field call path in {text}"));
    let metric = block
        .split("Metric: ")
        .find(|m| m.starts_with("blame_total\n"))
        .unwrap_or_else(|| panic!("no blame_total in {block}"));
    let means: Vec<f64> = metric
        .lines()
        .filter_map(|l| l.split("Mean: ").nth(1))
        .map(|m| m.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(means.len(), 3, "{metric}");
    for (n, mean) in sizes.iter().zip(&means) {
        let report = report_json(&[fx.run(2, *n), "--static", fx.db()]);
        let want = num(&variable(&report, "main", "field")["total"]);
        assert!(
            (mean - want).abs() <= 0.01 * want,
            "n={n}: Extra-P {mean}, report {want}"
        );
    }
    assert!(metric.contains("Model: "), "{metric}");
}
