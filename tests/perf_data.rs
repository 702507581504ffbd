//! `--perf-data`: captures of the real Linux `perf record` (dwarf and fp
//! call graphs) of programs compiled with clang-19, post-processed like a
//! blame recording: code views, variables through a static db, the
//! approximate data-centric passes on an event marked as memory, several
//! files as MPI ranks, and cut or corrupt files. These need perf_event
//! (root in CI).

mod e2e_support;
use e2e_support::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn perf() -> Command {
    let bin = if Path::new("/usr/bin/perf").exists() {
        "/usr/bin/perf"
    } else {
        "perf"
    };
    Command::new(bin)
}

/// `perf record -e cpu-clock -F 1000 --call-graph MODE -o OUT -- ARGV`.
fn perf_record(out: &Path, call_graph: &str, argv: &[&str]) -> PathBuf {
    run_ok(
        perf()
            .args([
                "record",
                "-q",
                "-e",
                "cpu-clock",
                "-F",
                "1000",
                "--call-graph",
            ])
            .arg(call_graph)
            .arg("-o")
            .arg(out)
            .arg("--")
            .args(argv),
    );
    assert!(out.is_file(), "perf record wrote no {}", out.display());
    out.to_path_buf()
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Folded stacks (`caller;...;leaf count`) of a capture.
fn folded(data: &Path, dir: &Path) -> Vec<(String, f64)> {
    let out = dir.join(format!(
        "{}.folded",
        data.file_name().unwrap().to_string_lossy()
    ));
    run_ok(
        blame()
            .args(["export", "--format", "folded", "--perf-data"])
            .arg(data)
            .arg("-o")
            .arg(&out),
    );
    std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let (stack, n) = l.rsplit_once(' ')?;
            Some((stack.to_string(), n.parse().ok()?))
        })
        .collect()
}

fn function<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["function"] == name)
        .unwrap_or_else(|| panic!("no function {name} in {report:#}"))
}

fn variable<'a>(report: &'a Value, function: &str, name: &str) -> &'a Value {
    report["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["function"] == function && v["name"] == name)
        .unwrap_or_else(|| panic!("no variable {function}::{name} in {report:#}"))
}

/// The hot program under perf with each call-graph mode: hot_loop holds
/// the samples and main calls it.
fn check_hot_capture(call_graph: &str) {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("hot.c"), dir.path(), false);
    let data = perf_record(
        &dir.path().join(format!("{call_graph}.data")),
        call_graph,
        &[path_str(&exe), "30000"],
    );
    let report = report_json(&["--perf-data", path_str(&data), "--by-function"]);
    let total = report["total_samples"].as_f64().unwrap();
    assert!(total >= 50.0, "{call_graph}: only {total} samples");
    let hot = function(&report, "hot_loop");
    let main = function(&report, "main");
    let hot_excl = hot["exclusive_percent"].as_f64().unwrap();
    let main_incl = main["inclusive_percent"].as_f64().unwrap();
    assert!(hot_excl > 80.0, "{call_graph}: hot_loop has {hot_excl}%");
    assert!(main_incl > 80.0, "{call_graph}: main has {main_incl}%");
    // main is hot_loop's caller: the stacks end in main;hot_loop.
    let stacks = folded(&data, dir.path());
    let all: f64 = stacks.iter().map(|s| s.1).sum();
    let called: f64 = stacks
        .iter()
        .filter(|(s, _)| s.ends_with("main;hot_loop"))
        .map(|s| s.1)
        .sum();
    assert!(
        called > 0.8 * all,
        "{call_graph}: main;hot_loop in {called} of {all} samples: {stacks:?}"
    );
    // blame post writes results beside the capture by default.
    let out = run_ok(blame().arg("post").arg("--perf-data").arg(&data));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let bres = data.with_extension("bres");
    assert!(bres.is_file(), "{stderr}");
    assert!(stderr.contains("1 processes"), "{stderr}");
}

#[test]
fn hot_loop_from_a_dwarf_capture() {
    if !sampling_allowed() {
        return;
    }
    check_hot_capture("dwarf");
}

#[test]
fn moved_and_changed_binaries_of_a_capture() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("hot.c"), dir.path(), false);
    let data = perf_record(
        &dir.path().join("moved.data"),
        "dwarf",
        &[path_str(&exe), "10000"],
    );
    // The binary moved: its unwind tables and DWARF are found with --binary-path.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::rename(&exe, elsewhere.join("hot")).unwrap();
    let report = report_json(&[
        "--perf-data",
        path_str(&data),
        "--binary-path",
        path_str(&elsewhere),
        "--by-function",
    ]);
    assert!(
        function(&report, "hot_loop")["exclusive_percent"]
            .as_f64()
            .unwrap()
            > 80.0
    );
    assert!(
        function(&report, "main")["inclusive_percent"]
            .as_f64()
            .unwrap()
            > 80.0
    );
    // Another program under the same name: perf's build-id refuses it.
    let other = compile(&program("post_transfer.c"), dir.path(), false);
    std::fs::copy(&other, elsewhere.join("hot")).unwrap();
    let out = blame()
        .args(["report", "--by-function", "--perf-data"])
        .arg(&data)
        .arg("--binary-path")
        .arg(&elsewhere)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("build-id"), "{stderr}");
}

#[test]
fn hot_loop_from_an_fp_capture() {
    if !sampling_allowed() {
        return;
    }
    check_hot_capture("fp");
}

/// post_transfer.c: the time of diffuse() is blamed on
/// sim.fields.temperature in main through four call levels.
fn transfer_capture(dir: &Path, call_graph: &str) -> (PathBuf, PathBuf) {
    let src = program("post_transfer.c");
    let exe = compile(&src, dir, false);
    let db = analyze(&src, dir, false);
    let data = perf_record(
        &dir.join(format!("transfer-{call_graph}.data")),
        call_graph,
        &[path_str(&exe), "2000"],
    );
    (data, db)
}

#[test]
fn variables_of_a_capture_through_the_static_db() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for mode in ["dwarf", "fp"] {
        let (data, db) = transfer_capture(dir.path(), mode);
        let report = report_json(&[
            "--perf-data",
            path_str(&data),
            "--static",
            path_str(&db),
            "--by-variable",
        ]);
        let temperature = percent_of(&report, "main", "sim.fields.temperature");
        let pressure = percent_of(&report, "main", "sim.fields.pressure");
        assert!(
            temperature > 80.0,
            "{mode}: sim.fields.temperature has {temperature}%: {:?}",
            percents(&report)
        );
        assert!(
            pressure < 20.0,
            "{mode}: sim.fields.pressure has {pressure}%"
        );
        assert!(percent_of(&report, "main", "sim") >= temperature);
    }
}

#[test]
fn a_clock_capture_marked_as_memory_event_goes_through_chapter_5() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (data, db) = transfer_capture(dir.path(), "dwarf");
    let args = [
        "--perf-data",
        path_str(&data),
        "--static",
        path_str(&db),
        "--by-variable",
    ];
    // As recorded, cpu-clock is a time event: whole samples, no methods.
    let time = report_json(&args);
    assert!(time["variables"][0]
        .get("methods")
        .is_none_or(Value::is_null));
    let memory = report_json(
        &[
            &args[..],
            &[
                "--memory-event",
                "cpu-clock",
                "--skid",
                "lines:1:1",
                "--method",
                "all",
            ],
        ]
        .concat(),
    );
    let sim = variable(&memory, "main", "sim");
    let methods = &sim["methods"];
    for m in blame_report::views::MEMORY_METHODS {
        assert!(
            methods[m].as_f64().is_some_and(|v| v > 0.0),
            "method {m} missing for sim: {sim:#}"
        );
    }
    // Approximate attribution splits a sample among the variables of its line(s).
    let fractional = memory["variables"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|v| v["methods"].as_object().into_iter().flatten())
        .filter(|(_, x)| x.as_f64().is_some_and(|x| x.fract() != 0.0))
        .count();
    assert!(fractional > 0, "no fractional attribution: {memory:#}");
    // Loop compensation moves weight to the loop's variables (sim drives the step loop).
    let (raw, looped) = (
        methods["raw"].as_f64().unwrap(),
        methods["loop"].as_f64().unwrap(),
    );
    assert!(looped >= raw, "sim: loop {looped} < raw {raw}");
    // An event the capture does not have is refused by name.
    let out = blame()
        .arg("report")
        .args(args)
        .args(["--memory-event", "cache-misses"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("events: cpu-clock"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn processes_by_pid_and_files_as_ranks() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("hot.c"), dir.path(), false);
    let exe = path_str(&exe);
    // One capture of a shell running two programs: one process each, no ranks.
    let both = perf_record(
        &dir.path().join("both.data"),
        "fp",
        &["sh", "-c", &format!("{exe} 12000 & {exe} 12000; wait")],
    );
    let out = run_ok(blame().arg("post").arg("--perf-data").arg(&both));
    let bres = both.with_extension("bres");
    let check = run_ok(blame().arg("check").arg(&bres));
    let text = String::from_utf8_lossy(&check.stdout);
    let n: usize = text
        .split("results of ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        n >= 2,
        "two hot processes expected: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = report_json(&["--perf-data", path_str(&both), "--by-function"]);
    assert!(
        function(&report, "hot_loop")["exclusive_percent"]
            .as_f64()
            .unwrap()
            > 80.0
    );
    // One file alone has no ranks.
    let ranked = blame()
        .args(["report", "--by-function", "--rank", "0", "--perf-data"])
        .arg(&both)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&ranked.stderr);
    assert!(
        !ranked.status.success() && stderr.contains("ranks in this run: none"),
        "{stderr}"
    );

    // Two files: rank 0 and rank 1, in the order given.
    let r0 = perf_record(&dir.path().join("r0.data"), "fp", &[exe, "6000"]);
    let r1 = perf_record(&dir.path().join("r1.data"), "fp", &[exe, "24000"]);
    let files = ["--perf-data", path_str(&r0), "--perf-data", path_str(&r1)];
    let samples = |rank: &str| {
        report_json(&[&files[..], &["--by-function", "--rank", rank]].concat())["total_samples"]
            .as_f64()
            .unwrap()
    };
    let (s0, s1) = (samples("0"), samples("1"));
    assert!(s0 > 0.0 && s1 > 0.0, "rank 0: {s0}, rank 1: {s1}");
    assert!(
        s1 > 2.0 * s0,
        "rank 1 ran 4x longer: rank 0 {s0}, rank 1 {s1}"
    );
}

fn post_fails(data: &Path) -> String {
    let out = blame()
        .arg("post")
        .arg("--perf-data")
        .arg(data)
        .arg("-o")
        .arg(data.with_extension("bres"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{} should fail cleanly: {stderr}",
        data.display()
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn missing_foreign_cut_and_corrupt_files_are_clear_errors() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.data");
    let e = post_fails(&missing);
    assert!(
        e.contains("missing.data") && e.contains("No such file"),
        "{e}"
    );

    let foreign = dir.path().join("source.data");
    std::fs::copy(program("hot.c"), &foreign).unwrap();
    let e = post_fails(&foreign);
    assert!(
        e.contains("source.data") && e.contains("not a perf.data file"),
        "{e}"
    );

    let exe = compile(&program("hot.c"), dir.path(), false);
    let good = perf_record(
        &dir.path().join("good.data"),
        "dwarf",
        &[path_str(&exe), "4000"],
    );
    let bytes = std::fs::read(&good).unwrap();
    let cut = |name: &str, len: usize| {
        let p = dir.path().join(name);
        std::fs::write(&p, &bytes[..len]).unwrap();
        p
    };
    for (name, len) in [
        ("empty.data", 0),
        ("header.data", 60),
        ("half.data", bytes.len() / 2),
        ("tail.data", bytes.len() - 10),
    ] {
        let e = post_fails(&cut(name, len));
        assert!(e.contains(name), "{e}");
        assert!(
            e.contains("truncated") || e.contains("not a perf.data"),
            "{name}: {e}"
        );
    }
    // perf killed before it wrote the header: the data size is still 0.
    let mut unfinished = bytes.clone();
    unfinished[48..56].fill(0);
    let p = dir.path().join("unfinished.data");
    std::fs::write(&p, &unfinished).unwrap();
    assert!(post_fails(&p).contains("stopped before it finished"));

    // Flipped bytes all over the file: an error or a result, never a crash.
    let data_at = u64::from_le_bytes(bytes[40..48].try_into().unwrap()) as usize;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..24 {
        let mut bad = bytes.clone();
        for _ in 0..8 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Half the rounds hit the header and attributes, half the records.
            let at = if round % 2 == 0 {
                (state % data_at as u64) as usize
            } else {
                data_at + (state % (bad.len() - data_at) as u64) as usize
            };
            bad[at] ^= (state >> 32) as u8 | 1;
        }
        let p = dir.path().join(format!("flipped-{round}.data"));
        std::fs::write(&p, &bad).unwrap();
        let out = blame()
            .arg("post")
            .arg("--perf-data")
            .arg(&p)
            .arg("-o")
            .arg(p.with_extension("bres"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0) | Some(1)),
            "round {round}: {:?} {stderr}",
            out.status
        );
        if !out.status.success() {
            assert!(
                stderr.contains(&format!("flipped-{round}.data")),
                "{stderr}"
            );
        }
    }
}

#[test]
fn one_perf_record_per_mpi_rank() {
    if !sampling_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = program("quad_mpi.c");
    let exe = compile(&src, dir.path(), true);
    let db = analyze(&src, dir.path(), true);
    let perf_bin = if Path::new("/usr/bin/perf").exists() {
        "/usr/bin/perf"
    } else {
        "perf"
    };
    let script = format!(
        "exec {perf_bin} record -q -e cpu-clock -F 1000 --call-graph fp -o {}/rank$OMPI_COMM_WORLD_RANK.data -- {}",
        dir.path().display(),
        exe.display()
    );
    run_ok(
        Command::new("mpirun")
            .args(["--allow-run-as-root", "--oversubscribe", "-np", "2"])
            .args(["sh", "-c", &script]),
    );
    let r0 = dir.path().join("rank0.data");
    let r1 = dir.path().join("rank1.data");
    let args = [
        "--perf-data",
        path_str(&r0),
        "--perf-data",
        path_str(&r1),
        "--static",
        path_str(&db),
        "--by-variable",
    ];
    let report = report_json(&args);
    let quad_part = variable(&report, "main", "quad_part");
    assert_eq!(quad_part["ranks"]["ranks"], 2, "{quad_part:#}");
    for rank in ["0", "1"] {
        let one = report_json(&[&args[..], &["--rank", rank]].concat());
        assert!(
            percent_of(&one, "main", "quad_part") > 0.0,
            "rank {rank}: {:?}",
            percents(&one)
        );
    }
}

/// Two global arrays, the first 16 times the second, each written once.
const GLOBALS_C: &str = r#"#include <stdio.h>
double big[1 << 22];
double small_arr[1 << 18];
int main(void) {
  for (int i = 0; i < (1 << 22); i++) big[i] = i;
  for (int i = 0; i < (1 << 18); i++) small_arr[i] = i;
  printf("%f\n", big[100] + small_arr[7]);
  return 0;
}
"#;

#[test]
fn data_addresses_of_a_capture_attribute_directly() {
    if !sampling_allowed() {
        return;
    }
    // page-faults is a software event with data addresses (`-d`): the
    // faulting address, so every sample lands in the array it touched.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("globals.c");
    std::fs::write(&src, GLOBALS_C).unwrap();
    let exe = compile(&src, dir.path(), false);
    let db = analyze(&src, dir.path(), false);
    let data = dir.path().join("faults.data");
    run_ok(
        perf()
            .args(["record", "-q", "-e", "page-faults", "-c", "1", "-d"])
            .args(["--call-graph", "fp", "-o"])
            .arg(&data)
            .arg("--")
            .arg(&exe),
    );
    let report = report_json(&[
        "--perf-data",
        path_str(&data),
        "--static",
        path_str(&db),
        "--memory-event",
        "page-faults",
        "--compare",
        "direct",
    ]);
    let direct = |name: &str| method_value(&report, name, None, "direct");
    let (big, small) = (direct("big"), direct("small_arr"));
    assert!(
        small > 0.0 && big > 4.0 * small,
        "direct attribution big {big}, small_arr {small}: {report:#}"
    );
}
