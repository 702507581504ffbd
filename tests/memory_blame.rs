//! Memory blame against valgrind's DHAT on three programs of the corpus: a
//! C++ code with `std::vector` members (particles), an AMR proxy with
//! per-block arrays of arrays under MPI (amrblocks, 2 ranks) and an MPI halo
//! exchange (halo, 2 ranks). Each is built once (`blame cc`, DWARF 4 so
//! valgrind 3.19 reads it), recorded with `--track-allocations`, posted and
//! reported with `blame report --memory --format json`; the same binary
//! runs under DHAT with the same arguments (one output per rank).
//!
//! Per process, the totals (bytes allocated, allocation calls, bytes at the
//! peak, bytes live at exit) agree with DHAT's within 1%, and each
//! allocation line of the source lands on the variable that receives its
//! blocks (`bp->array[v][i] = malloc(..)` on `blocks.array`,
//! `parts_.resize(n)` on `sys.parts_`) with DHAT's bytes for the blocks
//! allocated from that line.

mod e2e_support;
use e2e_support::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The builds and runs are heavy for a 2-core machine: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn corpus(name: &str) -> PathBuf {
    program("corpus").join(name)
}

fn mpi_env(cmd: &mut Command) -> &mut Command {
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .env("OMPI_CC", "clang-19")
        .env("OMPI_CXX", "clang++-19")
}

/// `blame cc` of every source with `ext` in `dir`, linked into `prog`.
fn build(work: &Path, db: &Path, dir: &Path, compiler: &str, ext: &str) -> PathBuf {
    let mut srcs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    srcs.sort();
    let mut objs = Vec::new();
    for s in &srcs {
        let obj = work.join(format!("{}.o", s.file_stem().unwrap().to_string_lossy()));
        run_ok(
            mpi_env(&mut blame())
                .env("BLAME_DB", db)
                .args(["cc", "--", compiler, "-g", "-gdwarf-4", "-O2", "-c"])
                .arg(s)
                .arg("-o")
                .arg(&obj),
        );
        objs.push(obj);
    }
    let exe = work.join("prog");
    run_ok(
        mpi_env(&mut Command::new(compiler))
            .arg("-g")
            .args(&objs)
            .arg("-lm")
            .arg("-o")
            .arg(&exe),
    );
    exe
}

/// DHAT's totals of one process and its program points (bytes, and the
/// `file:line`s on their stacks).
struct Dhat {
    bytes: f64,
    blocks: f64,
    peak: f64,
    at_end: f64,
    points: Vec<(f64, Vec<String>)>,
}

impl Dhat {
    /// Bytes of the blocks allocated with one of `lines` on their stack.
    fn bytes_from(&self, lines: &[&str]) -> f64 {
        self.points
            .iter()
            .filter(|(_, ls)| {
                ls.iter().any(|l| {
                    lines
                        .iter()
                        .any(|w| l == w || l.ends_with(&format!("/{w}")))
                })
            })
            .map(|(b, _)| b)
            .sum()
    }
}

fn read_dhat(path: &Path) -> Dhat {
    let d: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let ftbl: Vec<&str> = d["ftbl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    let mut out = Dhat {
        bytes: 0.0,
        blocks: 0.0,
        peak: 0.0,
        at_end: 0.0,
        points: Vec::new(),
    };
    for pp in d["pps"].as_array().unwrap() {
        let n = |k: &str| pp[k].as_f64().unwrap();
        out.bytes += n("tb");
        out.blocks += n("tbk");
        out.peak += n("gb");
        out.at_end += n("eb");
        let mut lines: Vec<String> = pp["fs"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|i| {
                let f = ftbl[i.as_u64().unwrap() as usize];
                // `0x...: fn (file.c:31)`
                let inner = f.rsplit_once('(')?.1.strip_suffix(')')?;
                inner.contains(':').then(|| inner.to_string())
            })
            .collect();
        lines.sort();
        lines.dedup();
        out.points.push((n("tb"), lines));
    }
    out
}

fn close(what: &str, ours: f64, theirs: f64) -> Option<String> {
    let tolerance = 0.01 * theirs.abs().max(1.0);
    ((ours - theirs).abs() > tolerance)
        .then(|| format!("{what}: blame {ours}, DHAT {theirs} (more than 1% apart)"))
}

/// Records `argv` with allocation tracing, runs it under DHAT, and checks
/// the totals of every application process and the owners of `lines`
/// (`file:line` of an allocation → the variable row that owns its blocks).
fn check(
    name: &str,
    work: &Path,
    db: &Path,
    argv: &[String],
    ranks: usize,
    owners: &[(&str, &[&str])],
) -> PathBuf {
    let run = work.join("run");
    run_ok(
        mpi_env(&mut blame())
            .args(["record", "--track-allocations", "-o"])
            .arg(&run)
            .arg("--")
            .args(argv),
    );
    run_ok(blame().arg("post").arg(&run).arg("--static").arg(db));
    let out = run_ok(blame().arg("report").arg(&run).args([
        "--static",
        db.to_str().unwrap(),
        "--memory",
        "--format",
        "json",
    ]));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = String::from_utf8(
        run_ok(blame().arg("report").arg(&run).args([
            "--static",
            db.to_str().unwrap(),
            "--memory",
        ]))
        .stdout,
    )
    .unwrap();
    eprintln!("{name}:\n{text}");

    // The same binary under DHAT, one output per rank.
    let dhat_out = work.join("dhat");
    std::fs::create_dir_all(&dhat_out).unwrap();
    let mut cmd = Command::new(&argv[0]);
    let file = if ranks > 1 {
        "--dhat-out-file=DIR/dhat.%q{OMPI_COMM_WORLD_RANK}.json"
    } else {
        "--dhat-out-file=DIR/dhat.0.json"
    }
    .replace("DIR", dhat_out.to_str().unwrap());
    let valgrind = [
        "valgrind",
        "--tool=dhat",
        "--run-libc-freeres=no",
        "--run-cxx-freeres=no",
        file.as_str(),
    ];
    let exe_at = argv
        .iter()
        .position(|a| a.ends_with("prog"))
        .expect("the program in argv");
    let args: Vec<String> = if ranks == 1 {
        cmd = Command::new("valgrind");
        valgrind[1..]
            .iter()
            .map(|s| s.to_string())
            .chain(argv.iter().cloned())
            .collect()
    } else {
        argv[1..exe_at]
            .iter()
            .cloned()
            .chain(valgrind.iter().map(|s| s.to_string()))
            .chain(argv[exe_at..].iter().cloned())
            .collect()
    };
    run_ok(mpi_env(&mut cmd).args(&args));

    let processes = report["processes"].as_array().unwrap();
    assert_eq!(processes.len(), ranks, "{name}: one profile per rank");
    let mut failures = Vec::new();
    for p in processes {
        let rank = p["rank"].as_u64().unwrap_or(0);
        let dhat = read_dhat(&dhat_out.join(format!("dhat.{rank}.json")));
        let n = |k: &str| p[k].as_f64().unwrap();
        assert!(
            p["exact"].as_bool().unwrap(),
            "{name}: the tracer's counters"
        );
        failures.extend(close(
            &format!("{name} rank {rank} bytes"),
            n("bytes"),
            dhat.bytes,
        ));
        failures.extend(close(
            &format!("{name} rank {rank} blocks"),
            n("allocs"),
            dhat.blocks,
        ));
        failures.extend(close(
            &format!("{name} rank {rank} peak"),
            n("peak_bytes"),
            dhat.peak,
        ));
        failures.extend(close(
            &format!("{name} rank {rank} leaked"),
            n("leaked_bytes"),
            dhat.at_end,
        ));
        for (owner, lines) in owners {
            let theirs = dhat.bytes_from(lines);
            if theirs == 0.0 {
                let seen: Vec<&String> = dhat.points.iter().flat_map(|(_, l)| l).take(30).collect();
                panic!("{name}: DHAT saw no blocks from {lines:?}; lines seen: {seen:?}");
            }
            // The owner's own blocks from that line: its sites whose stacks hold it.
            let row = report["variables"]
                .as_array()
                .unwrap()
                .iter()
                .find(|v| v["name"] == *owner);
            let Some(row) = row else {
                failures.push(format!("{name}: no row {owner} (the blocks of {lines:?})"));
                continue;
            };
            let ours = row["per_rank"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["rank"].as_u64().unwrap_or(0) == rank)
                .map_or(0.0, |r| r["bytes"].as_f64().unwrap());
            failures.extend(close(
                &format!("{name} rank {rank}: {owner}'s bytes against DHAT's of {lines:?}"),
                ours,
                theirs,
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The HTML report has the Memory tab's data: the rows and timelines.
    let html = work.join("report.html");
    run_ok(
        blame()
            .args(["export", "--format", "html", "-o"])
            .arg(&html)
            .arg(&run)
            .arg("--static")
            .arg(db),
    );
    let page = std::fs::read_to_string(&html).unwrap();
    let data = page
        .split("<script id=\"blame-data\" type=\"application/json\">")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .expect("the page's data");
    let data: Value = serde_json::from_str(data).unwrap();
    let heap = &data["heap"];
    assert_eq!(
        heap["timelines"].as_array().map(Vec::len),
        Some(ranks),
        "{name}: a timeline per rank"
    );
    let (owner, _) = owners[0];
    assert!(
        heap["view"]["variables"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["name"] == owner),
        "{name}: {owner} in the Memory tab"
    );
    assert!(
        heap["timelines"][0]["series"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == owner),
        "{name}: {owner} among the timeline's variables"
    );
    run
}

/// `go` for `go tool pprof` (Debian golang-go).
fn go() -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("go"))
        .find(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("/usr/bin/go"))
}

/// `blame export --format pprof-heap` read by the real `go tool pprof`:
/// the leaf frames are the variables, each value type selectable.
fn check_pprof(run: &Path, db: &Path, work: &Path, variable: &str, alloc_space: f64) {
    let file = work.join("heap.pb.gz");
    run_ok(
        blame()
            .args(["export", "--format", "pprof-heap", "-o"])
            .arg(&file)
            .arg(run)
            .arg("--static")
            .arg(db),
    );
    let top = |index: &str| {
        let out = run_ok(
            Command::new(go())
                .args(["tool", "pprof", "-top", "-nodecount=100", "-unit=B"])
                .arg(format!("-sample_index={index}"))
                .arg(&file)
                .env("HOME", work)
                .env("PPROF_TMPDIR", work),
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let alloc = top("alloc_space");
    let line = alloc
        .lines()
        .find(|l| l.trim_end().ends_with(variable))
        .unwrap_or_else(|| panic!("{variable} is a leaf of the heap profile:\n{alloc}"));
    // `flat flat% sum% cum cum% name`: flat in bytes (-unit=B).
    let flat: f64 = line
        .split_whitespace()
        .next()
        .unwrap()
        .trim_end_matches('B')
        .parse()
        .unwrap();
    assert_eq!(
        flat,
        alloc_space.round(),
        "{variable}'s bytes in pprof: {line}"
    );
    assert!(
        top("peak_space").contains(variable),
        "peak_space is a sample index"
    );
}

fn mpirun(exe: &Path, args: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "mpirun",
        "--allow-run-as-root",
        "--oversubscribe",
        "-np",
        "2",
    ]
    .map(String::from)
    .to_vec();
    v.push(exe.to_string_lossy().into_owned());
    v.extend(args.iter().map(|s| s.to_string()));
    v
}

/// particles: the particle vector (`parts_.resize(n)`), the cell list's
/// `head_` (constructed with n^3 cells) and `next_` (`assign` in `build`),
/// each a `std::vector` member of `System sys` in main; the blocks are made
/// inside libstdc++'s templates, their owners are the members.
#[test]
fn particles_vector_members_against_dhat() {
    if !sampling_allowed() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("static.db");
    let exe = build(work.path(), &db, &corpus("particles"), "clang++-19", "cpp");
    let argv = vec![
        exe.to_string_lossy().into_owned(),
        "1500".into(),
        "3".into(),
    ];
    let run = check(
        "particles",
        work.path(),
        &db,
        &argv,
        1,
        &[
            ("sys.parts_", &["particles.cpp:81"]),
            ("sys.cells_.next_", &["particles.cpp:56"]),
            ("sys.cells_.head_", &["particles.cpp:53"]),
        ],
    );
    // 1500 particles of 9 doubles.
    check_pprof(&run, &db, work.path(), "sys.parts_", 1500.0 * 72.0);
}

/// amrblocks: every block's `array` is an array of `num_vars` arrays of
/// rows (init.c: `bp->array = malloc`, `bp->array[v] = malloc`,
/// `bp->array[v][i] = malloc` through the element pointer `bp =
/// &blocks[n]`): all of them are `blocks.array`; the ghost buffers are
/// `send_buff` and `recv_buff`.
#[test]
fn amrblocks_arrays_of_arrays_under_mpi_against_dhat() {
    if !sampling_allowed() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("static.db");
    let exe = build(work.path(), &db, &corpus("amrblocks"), "mpicc", "c");
    check(
        "amrblocks",
        work.path(),
        &db,
        &mpirun(&exe, &["12", "5", "4"]),
        2,
        &[
            ("blocks.array", &["init.c:27", "init.c:29", "init.c:31"]),
            ("send_buff", &["main.c:117"]),
            ("recv_buff", &["main.c:118"]),
        ],
    );
}

/// halo: the grid's three fields (`g->u = calloc(..)` in a setup function
/// given `&grid`) and the halo's four buffers land on main's `grid.u`,
/// `grid.unew`, `grid.cond` and `halo.send_w`... .
#[test]
fn halo_mpi_against_dhat() {
    if !sampling_allowed() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("static.db");
    let exe = build(work.path(), &db, &corpus("halo"), "mpicc", "c");
    check(
        "halo",
        work.path(),
        &db,
        &mpirun(&exe, &["256", "20"]),
        2,
        &[
            ("grid.u", &["halo.c:53"]),
            ("grid.unew", &["halo.c:54"]),
            ("grid.cond", &["halo.c:55"]),
            ("halo.send_w", &["halo.c:68"]),
            ("halo.recv_e", &["halo.c:71"]),
        ],
    );
}

/// A million allocations sampled by bytes (`BLAME_ALLOC_EXACT=1000`,
/// `BLAME_ALLOC_SAMPLE=4096`: after the first thousand, one logged block
/// per 4 KiB allocated): the totals stay the tracer's exact counts, which
/// the source's arithmetic gives, the log stays small, and the sampled
/// owners' bytes estimate what the source allocates into them. amr_churn
/// (bench/alloc) regrids blocks `levels[l].blocks[i]` whose `var` is an
/// array of 4 arrays of 6 rows of 6 doubles (29 allocations, 1,376 bytes)
/// and whose `work` list grows by 4 reallocs to 8 ints (60 bytes).
#[test]
fn sampled_small_blocks_keep_exact_totals_and_estimate_owners() {
    if !sampling_allowed() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("static.db");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/alloc");
    let exe = build(work.path(), &db, &src, "clang-19", "c");
    let run = work.path().join("run");
    run_ok(
        blame()
            .env("BLAME_ALLOC_EXACT", "1000")
            .env("BLAME_ALLOC_SAMPLE", "4096")
            .args(["record", "--track-allocations", "-o"])
            .arg(&run)
            .arg("--")
            .arg(&exe)
            .arg("1"),
    );
    run_ok(blame().arg("post").arg(&run).arg("--static").arg(&db));
    let out = run_ok(blame().arg("report").arg(&run).args([
        "--static",
        db.to_str().unwrap(),
        "--memory",
        "--format",
        "json",
    ]));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = &report["processes"][0];
    let blocks: u64 = 1_000_000 / 33;
    // The blocks, the three levels' block arrays and printf's buffer.
    assert_eq!(p["allocs"].as_u64(), Some(33 * blocks + 3 + 1), "{p}");
    assert!(p["sampled_blocks"].as_u64().unwrap() > 1000, "{p}");
    let log: u64 = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|f| f.extension().is_some_and(|x| x == "balloc"))
        .map(|f| f.metadata().unwrap().len())
        .sum();
    assert!(log < 4 << 20, "the log stays small: {log} bytes");
    let bytes_of = |name: &str| -> f64 {
        report["variables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("a row {name}: {report}"))["bytes"]
            .as_f64()
            .unwrap()
    };
    for (owner, per_block) in [("levels.blocks.var", 1376.0), ("levels.blocks.work", 60.0)] {
        let want = per_block * blocks as f64;
        let got = bytes_of(owner);
        // About want/4096 sampled blocks: within five standard errors.
        let tolerance = 5.0 / (want / 4096.0).sqrt();
        assert!(
            (got - want).abs() < tolerance * want,
            "{owner}: {got} bytes estimated, the source allocates {want} (tolerance {tolerance:.3})"
        );
    }
}
