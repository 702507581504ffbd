//! Post-processing throughput: a profile of one process with 2,000,000
//! samples over 1,000 distinct depth-20 stacks whose addresses are real code
//! of this benchmark binary (so symbolization reads real DWARF), against a
//! static db with a summary per function so every sample's blame is lifted
//! through 19 transfer functions. Prints samples/s and the stage times of
//! Figure 4.10 for 1 and 2 threads (a rayon pool of each size), then the
//! speedup of the median warm passes.
//!
//! Run: `cargo bench -p blame-post --bench post_throughput`
//! (`POST_BENCH_SAMPLES=N` samples, `POST_BENCH_WARM=N` warm passes)

use blame_formats::static_db::*;
use blame_formats::stream::{EventDesc, Mapping, Sampling, StreamHeader, StreamWriter};
use blame_post::input::symbolize::Symbolizer;
use blame_post::{post, Run, ShardSpec, StaticIndex};
use std::hint::black_box;

macro_rules! leaf_functions {
    ($($name:ident = $k:literal),*) => {
        // Distinct constants keep the optimizer from folding them into one body.
        $(#[inline(never)] fn $name(x: u64) -> u64 { black_box(x).wrapping_mul($k).rotate_left(($k % 61) as u32) ^ $k })*
        fn code_addresses() -> Vec<u64> { vec![$($name as fn(u64) -> u64 as usize as u64 + 4),*] }
    };
}
leaf_functions!(
    f00 = 1000003,
    f01 = 2007925,
    f02 = 3031685,
    f03 = 4071283,
    f04 = 5126719,
    f05 = 6197993,
    f06 = 7285105,
    f07 = 8388055,
    f08 = 9506843,
    f09 = 10641469,
    f10 = 11791933,
    f11 = 12958235,
    f12 = 14140375,
    f13 = 15338353,
    f14 = 16552169,
    f15 = 17781823,
    f16 = 19027315,
    f17 = 20288645,
    f18 = 21565813,
    f19 = 22858819,
    f20 = 24167663,
    f21 = 25492345,
    f22 = 26832865,
    f23 = 28189223,
    f24 = 29561419,
    f25 = 30949453,
    f26 = 32353325,
    f27 = 33773035,
    f28 = 35208583,
    f29 = 36659969
);

fn self_mappings() -> Vec<Mapping> {
    let exe = std::fs::read_link("/proc/self/exe")
        .unwrap()
        .to_string_lossy()
        .into_owned();
    std::fs::read_to_string("/proc/self/maps")
        .unwrap()
        .lines()
        .filter(|l| l.ends_with(&exe))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (s, e) = f[0].split_once('-').unwrap();
            Mapping {
                pid: std::process::id(),
                start: u64::from_str_radix(s, 16).unwrap(),
                end: u64::from_str_radix(e, 16).unwrap(),
                file_offset: u64::from_str_radix(f[2], 16).unwrap(),
                path: exe.clone(),
                build_id: vec![],
            }
        })
        .collect()
}

fn main() {
    let samples: usize = std::env::var("POST_BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let dir = tempfile::tempdir().unwrap();
    let mappings = self_mappings();
    let code = code_addresses();
    // 1,000 stacks of depth 20 sharing prefixes like a call tree.
    let mut rng = 0x2545F4914F6CDD1Du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let stacks: Vec<Vec<u64>> = (0..1000)
        .map(|_| {
            let mut s: Vec<u64> = (0..20)
                .map(|d| code[(d * 7 + (next() % 3) as usize) % code.len()])
                .collect();
            s.reverse();
            s
        })
        .collect();
    let header = StreamHeader {
        host: "bench".into(),
        command: vec!["bench".into()],
        pid: std::process::id(),
        ppid: 1,
        rank: Some(0),
        world_size: Some(1),
        events: vec![EventDesc {
            name: "cpu-clock".into(),
            sampling: Sampling::Frequency(1000),
            unit: "ns".into(),
            memory: false,
        }],
        call_graph: "dwarf".into(),
        start_time_ns: 0,
        extra: vec![],
    };
    let run_dir = dir.path().join("run");
    std::fs::create_dir(&run_dir).unwrap();
    let mut w = StreamWriter::create(run_dir.join("rank-0.bstream"), &header).unwrap();
    for m in &mappings {
        w.write_mapping(m.clone()).unwrap();
    }
    for i in 0..samples {
        let s = &stacks[(next() % 1000) as usize];
        let jitter = next() % 50_000;
        w.write_sample_with_stack(
            1 + (i % 4) as u32,
            i as u64 * 1_000_000 + jitter,
            0,
            1_000_000,
            s,
            None,
        )
        .unwrap();
    }
    w.finish().unwrap();

    // A summary per symbolized function: one variable over all its lines,
    // an exit parameter, and a call site binding it, so blame climbs the stack.
    let mut sym = Symbolizer::new(vec![]);
    let mut db = StaticDb::default();
    for &a in &code {
        for is_return in [false, true] {
            for f in sym.frames_for(&mappings, a, is_return) {
                let lines: Vec<u32> = (f.line.saturating_sub(5)..f.line + 5).collect();
                db.insert(FunctionSummary {
                    linkage_name: f.function.clone(),
                    name: f.function.clone(),
                    file: f.file.clone(),
                    line: f.line,
                    ir_hash: 0,
                    has_line_info: true,
                    variables: vec![
                        Variable {
                            name: "state".into(),
                            kind: VarKind::Param,
                            type_name: "u64 *".into(),
                            line: f.line,
                            parent: None,
                            param_index: Some(0),
                            is_exit: true,
                            is_pointer: true,
                            explicit_lines: lines.clone(),
                            implicit_lines: vec![],
                            write_lines: vec![],
                            aliases: vec![],
                            heap_bytes: 0,
                            element_of: None,
                            is_record: false,
                            is_result: false,
                            is_scalar: false,
                        },
                        Variable {
                            name: "local".into(),
                            kind: VarKind::Local,
                            type_name: "u64".into(),
                            line: f.line,
                            parent: None,
                            param_index: None,
                            is_exit: false,
                            is_pointer: false,
                            explicit_lines: lines.clone(),
                            implicit_lines: vec![],
                            write_lines: lines.clone(),
                            aliases: vec![],
                            heap_bytes: 0,
                            element_of: None,
                            is_record: false,
                            is_result: false,
                            is_scalar: false,
                        },
                    ],
                    call_sites: lines
                        .iter()
                        .map(|&l| CallSite {
                            line: l,
                            column: 0,
                            callee: None,
                            arg_count: 1,
                            outputs: vec![OutputBinding {
                                output: CallOutput::Arg(0),
                                blamed: vec![0, 1],
                                pointees: vec![],
                                field: String::new(),
                                explicit: vec![0, 1],
                            }],
                            model: None,
                        })
                        .collect(),
                    side_effects: vec![],
                    param_aliases: vec![],
                    param_alias_paths: vec![],
                    loops: vec![],
                    reads: vec![],
                    lines,
                    param_writes: None,
                    param_reads: None,
                    unit: String::new(),
                    unit_globals: vec![],
                    fields_feeding_data: vec![],
                    returns_into: vec![],
                    unit_function_pointers: vec![],
                });
            }
        }
    }
    let db_path = dir.path().join("static.db");
    db.write(
        &db_path,
        &StaticDbHeader {
            producer: "bench".into(),
            llvm_version: "-".into(),
        },
    )
    .unwrap();
    let bytes = std::fs::metadata(run_dir.join("rank-0.bstream"))
        .unwrap()
        .len();
    println!(
        "profile: {samples} samples, 1000 stacks of depth 20, {bytes} bytes ({:.2} B/sample)",
        bytes as f64 / samples as f64
    );

    // Each thread count gets its own pool, so RAYON_NUM_THREADS does not
    // matter here. A cold pass per thread count, then `POST_BENCH_WARM` (3)
    // warm rounds, each a pass on 1 then on 2 threads, so that load from
    // elsewhere on a shared machine hits both alike; the summary compares
    // the median warm passes.
    let warm: usize = std::env::var("POST_BENCH_WARM")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3)
        .max(1);
    let pools: Vec<(usize, rayon::ThreadPool)> = [1usize, 2]
        .into_iter()
        .map(|n| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap();
            (n, pool)
        })
        .collect();
    let pass = |threads: usize, round: &str| {
        let t0 = std::time::Instant::now();
        let (db, _) = StaticDb::read(&db_path).unwrap();
        let index = StaticIndex::new(db);
        let load_static = t0.elapsed();
        let run = Run::open_dir(&run_dir, vec![], blame_post::OnDamage::Salvage).unwrap();
        let out = post(&run, &index, ShardSpec::WHOLE, Default::default()).unwrap();
        let total = t0.elapsed();
        let t = out.times;
        let no_sym = total - t.symbolize;
        println!(
            "threads {threads} {round}: {:.2} M samples/s overall, {:.2} M samples/s excluding symbolization | load static {:.3}s read+count {:.3}s symbolize {:.3}s resolve {:.3}s reduce {:.3}s | {} contexts, {} variables",
            out.samples / total.as_secs_f64() / 1e6,
            out.samples / no_sym.as_secs_f64() / 1e6,
            load_static.as_secs_f64(),
            t.read.as_secs_f64(),
            t.symbolize.as_secs_f64(),
            t.resolve.as_secs_f64(),
            t.reduce.as_secs_f64(),
            out.contexts,
            out.results.variables.len()
        );
        assert_eq!(out.samples as usize, samples);
        (total.as_secs_f64(), no_sym.as_secs_f64(), t)
    };
    for (threads, pool) in &pools {
        pool.install(|| pass(*threads, "cold"));
    }
    let mut passes: Vec<Vec<(f64, f64, blame_post::StageTimes)>> = vec![Vec::new(); pools.len()];
    for _ in 0..warm {
        for (i, (threads, pool)) in pools.iter().enumerate() {
            passes[i].push(pool.install(|| pass(*threads, "warm")));
        }
    }
    let medians: Vec<(f64, f64, blame_post::StageTimes)> = passes
        .into_iter()
        .map(|mut p| {
            p.sort_by(|a, b| a.0.total_cmp(&b.0));
            p[p.len() / 2]
        })
        .collect();
    let (one, two) = (medians[0], medians[1]);
    println!(
        "median warm pass: 1 thread {:.3}s ({:.2} M samples/s), 2 threads {:.3}s ({:.2} M samples/s): speedup {:.2}x overall, {:.2}x excluding symbolization; read+count {:.2}x, resolve {:.2}x, reduce {:.2}x",
        one.0,
        samples as f64 / one.0 / 1e6,
        two.0,
        samples as f64 / two.0 / 1e6,
        one.0 / two.0,
        one.1 / two.1,
        one.2.read.as_secs_f64() / two.2.read.as_secs_f64(),
        one.2.resolve.as_secs_f64() / two.2.resolve.as_secs_f64(),
        one.2.reduce.as_secs_f64() / two.2.reduce.as_secs_f64(),
    );
}
