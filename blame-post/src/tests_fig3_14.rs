//! Resolution over hand-written summaries of the dissertation's Figure 3.14
//! program (blamed lines of Table 3.8), independent of the static pass.

use crate::aggregation::aggregate::Accumulator;
use crate::attribution::resolve::resolve;
use crate::attribution::static_index::StaticIndex;
use crate::input::{Context, ProcessProfile};
use blame_formats::results::SymFrame;
use blame_formats::static_db::*;

pub(crate) fn var(
    name: &str,
    kind: VarKind,
    parent: Option<u32>,
    param: Option<u32>,
    exit: bool,
    lines: &[u32],
) -> Variable {
    Variable {
        type_name: "int *".into(),
        parent,
        param_index: param,
        is_exit: exit,
        is_pointer: exit,
        explicit_lines: lines.to_vec(),
        ..Variable::new(name, kind)
    }
}

pub(crate) fn func(
    name: &str,
    variables: Vec<Variable>,
    call_sites: Vec<CallSite>,
) -> FunctionSummary {
    FunctionSummary {
        linkage_name: name.into(),
        name: name.into(),
        file: "fig3_14.c".into(),
        line: 0,
        ir_hash: 0,
        has_line_info: true,
        variables,
        call_sites,
        side_effects: vec![],
        param_aliases: vec![],
        param_alias_paths: vec![],
        loops: vec![],
        reads: vec![],
        lines: vec![],
        param_writes: None,
        param_reads: None,
        unit: String::new(),
        unit_globals: vec![],
        fields_feeding_data: vec![],
        returns_into: vec![],
        unit_function_pointers: vec![],
    }
}

/// A call on `line` to `callee` whose argument 0 binds variable `var`.
fn call_binding_arg0(
    line: u32,
    callee: &str,
    arg_count: u32,
    var: u32,
    model: Option<Vec<CallOutput>>,
) -> CallSite {
    CallSite {
        line,
        column: 1,
        callee: Some(callee.into()),
        arg_count,
        outputs: vec![OutputBinding {
            output: CallOutput::Arg(0),
            blamed: vec![var],
            pointees: vec![var],
            field: String::new(),
            explicit: vec![var],
        }],
        model,
    }
}

pub(crate) fn fig3_14_index() -> StaticIndex {
    let bar = func(
        "bar",
        vec![
            var("i", VarKind::Local, None, None, false, &[7, 8]),
            var("loopC", VarKind::Local, None, None, false, &[7, 8, 9]),
            var("x", VarKind::Param, None, Some(0), true, &[7, 8, 9, 11, 12]),
            var("y", VarKind::Param, None, Some(1), true, &[7, 8, 9, 11, 14]),
        ],
        vec![],
    );
    let foo = func(
        "foo",
        vec![
            var("se", VarKind::Local, None, None, false, &[19, 20, 21]),
            var("se.sX", VarKind::Field, Some(0), None, false, &[20]),
            var("se.sY", VarKind::Field, Some(0), None, false, &[21]),
        ],
        vec![CallSite {
            line: 22,
            column: 3,
            callee: Some("bar".into()),
            arg_count: 2,
            outputs: vec![
                OutputBinding {
                    output: CallOutput::Arg(0),
                    blamed: vec![1],
                    pointees: vec![],
                    field: String::new(),
                    explicit: vec![1],
                },
                OutputBinding {
                    output: CallOutput::Arg(1),
                    blamed: vec![2],
                    pointees: vec![],
                    field: String::new(),
                    explicit: vec![2],
                },
            ],
            model: None,
        }],
    );
    let main = func(
        "main",
        vec![],
        vec![CallSite {
            line: 27,
            column: 3,
            callee: Some("foo".into()),
            arg_count: 0,
            outputs: vec![],
            model: None,
        }],
    );
    let mut db = StaticDb::default();
    for f in [bar, foo, main] {
        db.insert(f);
    }
    StaticIndex::new(db)
}

fn frame(function: &str, line: u32) -> SymFrame {
    SymFrame {
        function: function.into(),
        file: "fig3_14.c".into(),
        line,
        column: 0,
        inlined: false,
    }
}

pub(crate) fn stack(bar_line: u32) -> Vec<SymFrame> {
    vec![frame("bar", bar_line), frame("foo", 22), frame("main", 27)]
}

#[test]
fn table_3_10_from_the_three_samples_of_table_3_9() {
    let index = fig3_14_index();
    let mut table = crate::input::frame_table::FrameTable::default();
    let contexts = [9, 12, 14]
        .iter()
        .map(|&l| table.intern_stack(stack(l)))
        .collect::<Vec<_>>();
    let profile = ProcessProfile {
        index: 0,
        frames: table.into_frames(),
        contexts: contexts
            .into_iter()
            .map(|frames| Context {
                frames,
                counts: vec![1.0],
                direct: vec![],
                skid_window: None,
            })
            .collect(),
        heap_sites: vec![],
        allocations: None,
        memory: None,
        warnings: vec![],
        damage: vec![],
        lost: 0,
        read_time: Default::default(),
        symbolize_time: Default::default(),
        reference: vec![],
    };
    let mut acc = Accumulator::default();
    acc.add_process(&index, &profile, 1);
    let (vars, _, _, _, _) = acc.into_records();
    let got: std::collections::BTreeMap<String, f64> = vars
        .iter()
        .map(|v| {
            (
                format!("{}:{}", v.key.function, v.key.name),
                v.values[0].inclusive,
            )
        })
        .collect();
    let want: std::collections::BTreeMap<String, f64> = [
        ("foo:se", 3.0),
        ("foo:se.sX", 2.0),
        ("foo:se.sY", 2.0),
        ("bar:loopC", 1.0),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    // Exit variables x and y are intermediate steps (3.4.3): not listed.
    assert_eq!(got, want);
}

#[test]
fn sample_on_a_write_to_x_blames_only_x_lifted_to_se_sx() {
    let index = fig3_14_index();
    let r = resolve(&index, &stack(12));
    let names: Vec<String> = r
        .blamed
        .iter()
        .map(|&(f, v)| {
            index.functions[f as usize].variables[v as usize]
                .name
                .clone()
        })
        .collect();
    assert_eq!(names, vec!["se", "se.sX"]);
}

#[test]
fn stack_without_any_summary_is_code_only() {
    let index = fig3_14_index();
    let r = resolve(&index, &[frame("memcpy", 0), frame("_start", 0)]);
    assert!(r.code_only);
    assert!(r.blamed.is_empty());
}

#[test]
fn library_frames_pass_blame_through_the_call_site_model() {
    let mut db = StaticDb::default();
    db.insert(func(
        "main",
        vec![
            var("buf", VarKind::Local, None, None, false, &[5]),
            var("other", VarKind::Local, None, None, false, &[6]),
        ],
        vec![CallSite {
            line: 5,
            column: 1,
            callee: Some("MPI_Recv".into()),
            arg_count: 7,
            outputs: vec![OutputBinding {
                output: CallOutput::Arg(0),
                blamed: vec![0],
                pointees: vec![],
                field: String::new(),
                explicit: vec![0],
            }],
            model: Some(vec![CallOutput::Arg(0)]),
        }],
    ));
    let index = StaticIndex::new(db);
    let frames = vec![
        frame("poll_progress", 0),
        frame("PMPI_Recv", 0),
        frame("main", 5),
    ];
    let r = resolve(&index, &frames);
    assert_eq!(r.blamed, vec![(0, 0)]);
}

#[test]
fn recursion_blames_a_variable_once_per_sample() {
    let mut db = StaticDb::default();
    db.insert(func(
        "walk",
        vec![var("acc", VarKind::Param, None, Some(0), true, &[3, 4])],
        vec![CallSite {
            line: 4,
            column: 1,
            callee: Some("walk".into()),
            arg_count: 1,
            outputs: vec![OutputBinding {
                output: CallOutput::Arg(0),
                blamed: vec![0],
                pointees: vec![],
                field: String::new(),
                explicit: vec![0],
            }],
            model: None,
        }],
    ));
    db.insert(func(
        "main",
        vec![var("total", VarKind::Local, None, None, false, &[9])],
        vec![CallSite {
            line: 9,
            column: 1,
            callee: Some("walk".into()),
            arg_count: 1,
            outputs: vec![OutputBinding {
                output: CallOutput::Arg(0),
                blamed: vec![0],
                pointees: vec![],
                field: String::new(),
                explicit: vec![0],
            }],
            model: None,
        }],
    ));
    let index = StaticIndex::new(db);
    let frames = vec![
        frame("walk", 3),
        frame("walk", 4),
        frame("walk", 4),
        frame("main", 9),
    ];
    let mut table = crate::input::frame_table::FrameTable::default();
    let frames = table.intern_stack(frames);
    let profile = ProcessProfile {
        index: 0,
        frames: table.into_frames(),
        contexts: vec![Context {
            frames,
            counts: vec![1.0],
            direct: vec![],
            skid_window: None,
        }],
        heap_sites: vec![],
        allocations: None,
        memory: None,
        warnings: vec![],
        damage: vec![],
        lost: 0,
        read_time: Default::default(),
        symbolize_time: Default::default(),
        reference: vec![],
    };
    let mut acc = Accumulator::default();
    acc.add_process(&index, &profile, 1);
    let (vars, _, _, _, _) = acc.into_records();
    assert_eq!(vars.len(), 1);
    assert_eq!(vars[0].key.name, "total");
    assert_eq!(vars[0].values[0].inclusive, 1.0);
}

fn json_samples(n: usize) -> Vec<blame_formats::jsonl::JsonSample> {
    // Two ranks, three sample points, uneven counts so every shard split differs.
    (0..n)
        .map(|i| blame_formats::jsonl::JsonSample {
            stack: stack([9, 12, 14][i % 3]),
            event: "cpu-clock".into(),
            weight: 1.0 + (i % 5) as f64,
            rank: Some((i % 2) as u32),
            thread: 1,
            pid: None,
            time_ns: None,
            data_address: None,
        })
        .collect()
}

#[test]
fn merged_shards_equal_the_whole_for_1_2_3_7_shards() {
    let index = fig3_14_index();
    let run = crate::Run::from_json_samples(json_samples(101)).unwrap();
    let whole = crate::post(&run, &index, crate::ShardSpec::WHOLE, Default::default())
        .unwrap()
        .results
        .try_into()
        .unwrap();
    let whole = crate::aggregation::merge::merge(vec![whole]).unwrap();
    assert!(whole.variables.iter().any(|v| v.key.name == "se"));
    for n in [1u32, 2, 3, 7] {
        let parts: Vec<blame_formats::results::Results> = (0..n)
            .map(|i| {
                crate::post(
                    &run,
                    &index,
                    crate::ShardSpec::new(i, n).unwrap(),
                    Default::default(),
                )
                .unwrap()
                .results
                .try_into()
                .unwrap()
            })
            .collect();
        // Partial results are sums over disjoint samples: no shard holds everything when n > 1.
        if n > 1 {
            assert!(parts.iter().all(|p| p.header.shard.is_some()));
        }
        let merged = crate::aggregation::merge::merge(parts).unwrap();
        assert_eq!(merged, whole, "merge of {n} shards differs from the whole");
    }
}

/// What `blame post --shard I/N` writes and how its last shard merges (the
/// others' files read back, its own results from memory), as files: the
/// merged file holds the bytes of the whole post's, for block shards (fewer
/// shards than processes) and sample shards (more), and for stacks shared
/// by every rank as well as stacks of a rank alone.
#[test]
fn sharded_posts_merge_to_the_bytes_of_one_post() {
    let index = fig3_14_index();
    let samples: Vec<blame_formats::jsonl::JsonSample> = (0..240)
        .map(|i| {
            let rank = (i % 5) as u32;
            // Ranks 3 and 4 also sample a stack of their own (main at
            // another line), so paths are shared by some ranks, not all.
            let mut stack = stack([9, 12, 14][i % 3]);
            if rank >= 3 && i % 4 == 0 {
                stack[2] = frame("main", 28 + rank);
            }
            blame_formats::jsonl::JsonSample {
                stack,
                event: "cpu-clock".into(),
                weight: 1.0 + (i % 7) as f64,
                rank: Some(rank),
                thread: 1,
                pid: None,
                time_ns: None,
                data_address: None,
            }
        })
        .collect();
    let run = crate::Run::from_json_samples(samples).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let whole_path = dir.path().join("whole.bres");
    crate::post(&run, &index, crate::ShardSpec::WHOLE, Default::default())
        .unwrap()
        .results
        .write(&whole_path)
        .unwrap();
    let whole = std::fs::read(&whole_path).unwrap();
    for n in [2u32, 3, 5, 7] {
        let mut parts = Vec::new();
        for i in 0..n {
            let out = crate::post(
                &run,
                &index,
                crate::ShardSpec::new(i, n).unwrap(),
                Default::default(),
            )
            .unwrap()
            .results;
            if i + 1 == n {
                parts.push(crate::aggregation::merge::Part::Flat(Box::new(out)));
            } else {
                let path = dir.path().join(format!("part-{i}-of-{n}.bres"));
                out.write(&path).unwrap();
                parts.push(crate::aggregation::merge::Part::File(path));
            }
        }
        // Read ahead whole, and record by record as read (large parts).
        let mut streamed = crate::aggregation::merge::Merger::default();
        let mut scratch = Default::default();
        for part in &parts {
            match part {
                crate::aggregation::merge::Part::File(path) => {
                    scratch = streamed.add_file(path, scratch).unwrap()
                }
                crate::aggregation::merge::Part::Flat(r) => {
                    streamed.add_flat((**r).clone(), None).unwrap();
                }
                crate::aggregation::merge::Part::Loaded(_) => unreachable!(),
            }
        }
        let merged_path = dir.path().join(format!("merged-{n}.bres"));
        for merger in [
            crate::aggregation::merge::read_parts(parts, &|_| {}).unwrap(),
            streamed,
        ] {
            merger.finish_flat().unwrap().write(&merged_path).unwrap();
            assert!(
                std::fs::read(&merged_path).unwrap() == whole,
                "{n} shards merged differ from one post"
            );
        }
    }
    // The same bytes as the records' vectors write.
    let read = blame_formats::results::Results::read(&whole_path).unwrap();
    let again = dir.path().join("again.bres");
    read.write(&again).unwrap();
    assert!(std::fs::read(&again).unwrap() == whole);
}

/// `diffuse(f->temperature, ...)` in `advance(Fields *f)`, called as
/// `advance(&sim->fields)` from `simulate(Simulation *sim)`, called as
/// `simulate(&sim)` from main: main gets `sim.fields.temperature`.
#[test]
fn field_paths_continue_below_the_variables_passed() {
    let call = |line, callee: &str, targets: Vec<u32>| CallSite {
        line,
        column: 1,
        callee: Some(callee.into()),
        arg_count: 1,
        outputs: vec![OutputBinding {
            output: CallOutput::Arg(0),
            blamed: targets.clone(),
            pointees: vec![],
            field: String::new(),
            explicit: targets,
        }],
        model: None,
    };
    let mut temperature = var("f.temperature", VarKind::Field, Some(0), None, true, &[]);
    temperature.type_name = "double *".into();
    let mut db = StaticDb::default();
    db.insert(func(
        "diffuse",
        vec![var("out", VarKind::Param, None, Some(0), true, &[3])],
        vec![],
    ));
    // (Typed as the program declares them: a path continues below a
    // struct, never below an array of numbers.)
    let typed = |mut v: Variable, t: &str| {
        v.type_name = t.into();
        v
    };
    db.insert(func(
        "advance",
        vec![
            typed(
                var("f", VarKind::Param, None, Some(0), true, &[]),
                "Fields *",
            ),
            temperature,
        ],
        vec![call(10, "diffuse", vec![1, 0])],
    ));
    db.insert(func(
        "simulate",
        vec![
            typed(
                var("sim", VarKind::Param, None, Some(0), true, &[]),
                "Simulation *",
            ),
            typed(
                var("sim.fields", VarKind::Field, Some(0), None, true, &[]),
                "Fields",
            ),
        ],
        vec![call(20, "advance", vec![1])],
    ));
    db.insert(func(
        "main",
        vec![typed(
            var("sim", VarKind::Local, None, None, false, &[]),
            "Simulation",
        )],
        vec![call(30, "simulate", vec![0])],
    ));
    let index = StaticIndex::new(db);
    let frames = vec![
        frame("diffuse", 3),
        frame("advance", 10),
        frame("simulate", 20),
        frame("main", 30),
    ];
    let mut table = crate::input::frame_table::FrameTable::default();
    let frames = table.intern_stack(frames);
    let profile = ProcessProfile {
        index: 0,
        frames: table.into_frames(),
        contexts: vec![Context {
            frames,
            counts: vec![1.0],
            direct: vec![],
            skid_window: None,
        }],
        heap_sites: vec![],
        allocations: None,
        memory: None,
        warnings: vec![],
        damage: vec![],
        lost: 0,
        read_time: Default::default(),
        symbolize_time: Default::default(),
        reference: vec![],
    };
    let mut acc = Accumulator::default();
    acc.add_process(&index, &profile, 1);
    let (vars, _, _, _, _) = acc.into_records();
    let got: Vec<(String, String, String)> = vars
        .iter()
        .map(|v| {
            (
                v.key.function.clone(),
                v.key.name.clone(),
                v.key.type_name.clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "main".to_string(),
                "sim".to_string(),
                "Simulation".to_string()
            ),
            ("main".into(), "sim.fields".into(), "Fields".into()),
            (
                "main".into(),
                "sim.fields.temperature".into(),
                "double *".into()
            ),
        ]
    );
}

/// `main` is a blame point by definition (3.5.1.2) even with exit variables
/// (its return value, `argv`); other functions with exit variables are not.
#[test]
fn main_is_an_implicit_blame_point_whatever_its_exit_variables() {
    use blame_formats::results::{FunctionBlame, FunctionKey};
    let mut db = StaticDb::default();
    db.insert(func(
        "main",
        vec![
            var("a", VarKind::Local, None, None, false, &[3]),
            var("return", VarKind::Return, None, None, true, &[4]),
        ],
        vec![],
    ));
    db.insert(func(
        "make",
        vec![var("return", VarKind::Return, None, None, true, &[9])],
        vec![],
    ));
    db.insert(func(
        "work",
        vec![var("i", VarKind::Local, None, None, false, &[12])],
        vec![],
    ));
    let index = StaticIndex::new(db);
    let functions: Vec<FunctionBlame> = ["main", "make", "work"]
        .iter()
        .map(|name| FunctionBlame {
            key: FunctionKey {
                name: name.to_string(),
                file: "fig3_14.c".into(),
                event: 0,
            },
            values: vec![],
        })
        .collect();
    assert_eq!(
        crate::implicit_blame_points(&index, &functions),
        ["main", "work"]
    );
}

/// `axpy(x, alpha, p)` computes `*x` from its value parameter `a`: the
/// call's binding of argument 1 names `alpha` (blaming nothing itself), so
/// a sample on the line that computes alpha (`alpha = rz / dot(p, w)`)
/// blames `x` through the side effect, in both modes.
#[test]
fn a_side_effect_from_a_value_parameter_blames_the_written_argument() {
    let mut axpy = func(
        "axpy",
        vec![
            var("y", VarKind::Param, None, Some(0), true, &[3]),
            var("a", VarKind::Param, None, Some(1), false, &[]),
        ],
        vec![],
    );
    axpy.side_effects = vec![SideEffect {
        blamed_param: 0,
        from_param: 1,
        implicit: false,
        ..Default::default()
    }];
    let solve = func(
        "solve",
        vec![
            var("x", VarKind::Param, None, Some(0), true, &[]),
            var("alpha", VarKind::Local, None, None, false, &[10]),
            var("n", VarKind::Local, None, None, false, &[9]),
        ],
        vec![CallSite {
            line: 11,
            column: 1,
            callee: Some("axpy".into()),
            arg_count: 3,
            outputs: vec![
                OutputBinding {
                    output: CallOutput::Arg(0),
                    blamed: vec![0],
                    explicit: vec![0],
                    pointees: vec![0],
                    field: String::new(),
                },
                OutputBinding {
                    output: CallOutput::Arg(1),
                    blamed: vec![],
                    explicit: vec![],
                    pointees: vec![1],
                    field: String::new(),
                },
                OutputBinding {
                    output: CallOutput::Arg(2),
                    blamed: vec![],
                    explicit: vec![],
                    pointees: vec![2],
                    field: String::new(),
                },
            ],
            model: None,
        }],
    );
    let mut db = StaticDb::default();
    db.insert(axpy);
    db.insert(solve);
    let index = StaticIndex::new(db);
    let fi = index.lookup("solve", "fig3_14.c").unwrap() as u32;
    let r = resolve(&index, &[frame("solve", 10)]);
    assert!(r.blamed.contains(&(fi, 0)), "x: {r:?}");
    assert!(r.blamed.contains(&(fi, 1)), "alpha: {r:?}");
    // The loop bound passed by value is not blamed by alpha's line, and a
    // sample inside axpy blames only what its pointer output reaches.
    let r = resolve(&index, &[frame("axpy", 3), frame("solve", 11)]);
    assert!(r.blamed.contains(&(fi, 0)), "x: {r:?}");
    assert!(
        !r.blamed.contains(&(fi, 1)) && !r.blamed.contains(&(fi, 2)),
        "{r:?}"
    );
}

/// A worker thread of a library (OpenBLAS spinning between calls) never
/// enters the program's code: its samples reach no variable, and the reason
/// says so instead of asking for a rebuild with `blame cc`.
#[test]
fn a_library_thread_outside_the_program_is_a_runtime_thread() {
    let index = fig3_14_index();
    let worker = [
        frame("sched_yield", 0),
        frame("blas_thread_server", 0),
        frame("start_thread", 0),
        frame("__GI___clone3", 0),
    ];
    let r = resolve(&index, &worker);
    assert!(r.blamed.is_empty());
    let why = r.unexplained.expect("a reason").to_string();
    assert!(why.contains("runtime's own thread"), "{why}");
    // The main thread's loader frames keep theirs.
    let r = resolve(
        &index,
        &[frame("_dl_relocate_object", 0), frame("_start", 0)],
    );
    let why = r.unexplained.expect("a reason").to_string();
    assert!(why.contains("no static summary"), "{why}");
}

/// `const Node &b = nodes[c.n[k]];` binds a reference on the sampled line:
/// the sample computes the address, so it stays on the callee's `b`; it is
/// not lifted to the caller's mesh that `b` points into. A later line
/// writing through the reference (`b.x = ..`) is lifted.
#[test]
fn a_pointer_bound_on_the_sampled_line_keeps_its_blame() {
    let this = var("this", VarKind::Param, None, Some(0), true, &[31]);
    let nodes = {
        let mut v = var("this.nodes", VarKind::Field, Some(0), None, true, &[31]);
        v.aliases = vec![2];
        v
    };
    let b = {
        let mut v = var("b", VarKind::Local, None, None, false, &[30, 31]);
        v.is_pointer = true;
        v.write_lines = vec![30];
        v.aliases = vec![1];
        v
    };
    let len = func("edge", vec![this, nodes, b], vec![]);
    let caller = func(
        "flux",
        vec![var("mesh", VarKind::Local, None, None, false, &[])],
        vec![CallSite {
            line: 59,
            column: 1,
            callee: Some("edge".into()),
            arg_count: 1,
            outputs: vec![binding(0, vec![0])],
            model: None,
        }],
    );
    let mut db = StaticDb::default();
    db.insert(len);
    db.insert(caller);
    let index = StaticIndex::new(db);
    let (ei, ci) = (
        index.lookup("edge", "fig3_14.c").unwrap() as u32,
        index.lookup("flux", "fig3_14.c").unwrap() as u32,
    );
    let r = resolve(&index, &[frame("edge", 30), frame("flux", 59)]);
    assert!(r.blamed.contains(&(ei, 2)), "b: {r:?}");
    assert!(!r.blamed.contains(&(ci, 0)), "the mesh is only read: {r:?}");
    let r = resolve(&index, &[frame("edge", 31), frame("flux", 59)]);
    assert!(r.blamed.contains(&(ci, 0)), "written through b: {r:?}");
}

/// A callee writing through a parameter whose caller-side pointees are
/// unknown (an unnamed temporary: the binding has no pointees, only what
/// the output is computed into): the exclusive blame of the write goes
/// where its inclusive blame goes, to the caller, not to the callee's
/// parameter (whose inclusive blame was lifted).
#[test]
fn exclusive_blame_follows_an_output_with_unknown_pointees() {
    let mut p = var("p", VarKind::Param, None, Some(0), true, &[3]);
    p.write_lines = vec![3];
    let fill = func("fill", vec![p], vec![]);
    let main = func(
        "main",
        vec![var("acc", VarKind::Local, None, None, false, &[])],
        vec![CallSite {
            line: 10,
            column: 1,
            callee: Some("fill".into()),
            arg_count: 1,
            outputs: vec![OutputBinding {
                output: CallOutput::Arg(0),
                blamed: vec![0],
                explicit: vec![0],
                pointees: vec![],
                field: String::new(),
            }],
            model: None,
        }],
    );
    let mut db = StaticDb::default();
    db.insert(fill);
    db.insert(main);
    let index = StaticIndex::new(db);
    let (fi, mi) = (
        index.lookup("fill", "fig3_14.c").unwrap() as u32,
        index.lookup("main", "fig3_14.c").unwrap() as u32,
    );
    let r = resolve(&index, &[frame("fill", 3), frame("main", 10)]);
    assert!(r.blamed.contains(&(mi, 0)), "{r:?}");
    assert!(r.exclusive.contains(&(mi, 0)), "{r:?}");
    assert!(!r.exclusive.contains(&(fi, 0)), "{r:?}");
}

/// Argument `k` of a call, bound to `pointees` (blamed and explicit).
fn binding(k: u32, pointees: Vec<u32>) -> OutputBinding {
    OutputBinding {
        output: CallOutput::Arg(k),
        blamed: pointees.clone(),
        explicit: pointees.clone(),
        pointees,
        field: String::new(),
    }
}

/// `gather(dom, xl)` fills `xl` from `dom->x` (side effect `xl` from
/// `.x`); `update(app, a)` writes `app->v.array` from `a`. A line of the
/// caller computing `dom.f` (another field) does not blame `xl`; one
/// computing `dom.x` does; and a line computing `a` blames `app.v.array`
/// (a derived path below `app`), not only `app`.
#[test]
fn side_effects_fire_on_the_paths_they_read_and_blame_the_paths_they_write() {
    let mut gather = func(
        "gather",
        vec![
            var("dom", VarKind::Param, None, Some(0), true, &[]),
            var("xl", VarKind::Param, None, Some(1), true, &[3]),
        ],
        vec![],
    );
    gather.side_effects = vec![SideEffect {
        blamed_param: 1,
        from_param: 0,
        from_path: ".x".into(),
        ..Default::default()
    }];
    let mut update = func(
        "update",
        vec![
            var("app", VarKind::Param, None, Some(0), true, &[]),
            var("a", VarKind::Param, None, Some(1), false, &[]),
        ],
        vec![],
    );
    update.side_effects = vec![SideEffect {
        blamed_param: 0,
        from_param: 1,
        blamed_path: ".v.array".into(),
        blamed_type: "double *".into(),
        ..Default::default()
    }];
    let kernel = func(
        "kernel",
        vec![
            var("dom", VarKind::Param, None, Some(0), true, &[20, 21]),
            var("dom.f", VarKind::Field, Some(0), None, true, &[20]),
            var("dom.x", VarKind::Field, Some(0), None, true, &[21]),
            var("xl", VarKind::Local, None, None, false, &[]),
            {
                // (A struct: a path continues below it.)
                let mut app = var("app", VarKind::Param, None, Some(1), true, &[]);
                app.type_name = "App *".into();
                app
            },
            var("a", VarKind::Local, None, None, false, &[22]),
        ],
        vec![
            // The calls run after the lines computing their inputs.
            CallSite {
                line: 30,
                column: 1,
                callee: Some("gather".into()),
                arg_count: 2,
                outputs: vec![binding(0, vec![0]), binding(1, vec![3])],
                model: None,
            },
            CallSite {
                line: 31,
                column: 1,
                callee: Some("update".into()),
                arg_count: 2,
                outputs: vec![
                    binding(0, vec![4]),
                    OutputBinding {
                        output: CallOutput::Arg(1),
                        blamed: vec![],
                        explicit: vec![],
                        pointees: vec![5],
                        field: String::new(),
                    },
                ],
                model: None,
            },
        ],
    );
    let mut db = StaticDb::default();
    db.insert(gather);
    db.insert(update);
    db.insert(kernel);
    let index = StaticIndex::new(db);
    let fi = index.lookup("kernel", "fig3_14.c").unwrap() as u32;
    let r = resolve(&index, &[frame("kernel", 20)]);
    assert!(r.blamed.contains(&(fi, 1)), "dom.f: {r:?}");
    assert!(
        !r.blamed.contains(&(fi, 3)),
        "xl is not computed from dom.f: {r:?}"
    );
    let r = resolve(&index, &[frame("kernel", 21)]);
    assert!(
        r.blamed.contains(&(fi, 3)),
        "xl is filled from dom.x: {r:?}"
    );
    let r = resolve(&index, &[frame("kernel", 22)]);
    assert!(r.blamed.contains(&(fi, 4)), "app: {r:?}");
    // A line after the calls (and in no loop with them) computes nothing
    // they read: `dom.x` computed at line 40 does not fill `xl`.
    let mut late = index.functions[fi as usize].clone();
    late.variables[2].explicit_lines = vec![40];
    let mut db = StaticDb::default();
    for f in &index.functions {
        if f.name != "kernel" {
            db.insert(f.clone());
        }
    }
    db.insert(late.clone());
    let index2 = StaticIndex::new(db);
    let fi2 = index2.lookup("kernel", "fig3_14.c").unwrap() as u32;
    let r2 = resolve(&index2, &[frame("kernel", 40)]);
    assert!(
        !r2.blamed.contains(&(fi2, 3)),
        "xl was filled before line 40 ran: {r2:?}"
    );
    // Unless a loop holds both: the next iteration's gather reads it.
    late.loops = vec![LoopInfo {
        header_line: 29,
        lines: vec![29, 30, 31, 40],
        parent: None,
    }];
    let mut db = StaticDb::default();
    for f in &index.functions {
        if f.name != "kernel" {
            db.insert(f.clone());
        }
    }
    db.insert(late);
    let index3 = StaticIndex::new(db);
    let fi3 = index3.lookup("kernel", "fig3_14.c").unwrap() as u32;
    let r3 = resolve(&index3, &[frame("kernel", 40)]);
    assert!(r3.blamed.contains(&(fi3, 3)), "in a loop, xl is: {r3:?}");
    assert!(
        r.derived
            .iter()
            .any(|d| d.base == (fi, 4) && d.suffix == ".v.array" && d.type_name == "double *"),
        "app.v.array: {r:?}"
    );
}

/// A time loop: `rhs(u, b)` (side effect: `b` from `u`) at line 30, then
/// `solve(b, u)` at line 31. A sample of the solve blames `u`; the rhs's
/// side effect would make `b` of it through the next step, but line 31
/// reads `b`: a recurrence, and `b` is not blamed for the solve it feeds.
/// A line that does not read `b` (`solve(x, u)`) still fires it.
#[test]
fn a_side_effect_of_the_next_step_does_not_blame_what_the_line_reads() {
    let mut rhs = func(
        "rhs",
        vec![
            var("u", VarKind::Param, None, Some(0), true, &[]),
            var("b", VarKind::Param, None, Some(1), true, &[3]),
        ],
        vec![],
    );
    rhs.side_effects = vec![SideEffect {
        blamed_param: 1,
        from_param: 0,
        ..Default::default()
    }];
    let site = |line: u32, callee: &str, outputs: Vec<OutputBinding>| CallSite {
        line,
        column: 1,
        callee: Some(callee.into()),
        arg_count: 2,
        outputs,
        model: None,
    };
    let step = |solve_reads: u32| {
        let mut f = func(
            "step",
            vec![
                var("u", VarKind::Local, None, None, false, &[31]),
                var("b", VarKind::Local, None, None, false, &[30]),
                var("x", VarKind::Local, None, None, false, &[]),
            ],
            vec![
                site(30, "rhs", vec![binding(0, vec![0]), binding(1, vec![1])]),
                site(
                    31,
                    "solve",
                    vec![binding(0, vec![solve_reads]), binding(1, vec![0])],
                ),
            ],
        );
        f.loops = vec![LoopInfo {
            header_line: 29,
            lines: vec![29, 30, 31],
            parent: None,
        }];
        f
    };
    for (solve_reads, b_blamed) in [(1, false), (2, true)] {
        let mut db = StaticDb::default();
        db.insert(rhs.clone());
        db.insert(step(solve_reads));
        let index = StaticIndex::new(db);
        let fi = index.lookup("step", "fig3_14.c").unwrap() as u32;
        let r = resolve(&index, &[frame("step", 31)]);
        assert!(r.blamed.contains(&(fi, 0)), "u: {r:?}");
        assert_eq!(r.blamed.contains(&(fi, 1)), b_blamed, "b: {r:?}");
    }
}

/// A record on the stack holding a parameter (`Collision c; c.fbank =
/// fbank; react(&c)`): what is written below `c.fbank` is the parameter's,
/// and so the caller's `bank` (with its path `.site`), not a row of
/// `collide`. A field of an object behind a local pointer (`panel->trail`)
/// stays that object's.
#[test]
fn a_stack_record_of_handles_lifts_to_what_it_holds() {
    let mut collide = func(
        "collide",
        vec![
            var("fbank", VarKind::Param, None, Some(0), true, &[]),
            var("c", VarKind::Local, None, None, false, &[]),
            var("c.fbank", VarKind::Field, Some(1), None, false, &[]),
            var("c.fbank.site", VarKind::Field, Some(2), None, false, &[10]),
        ],
        vec![],
    );
    collide.variables[0].aliases = vec![2];
    collide.variables[2].aliases = vec![0];
    let main = func(
        "main",
        vec![var("bank", VarKind::Local, None, None, false, &[])],
        vec![CallSite {
            line: 20,
            column: 1,
            callee: Some("collide".into()),
            arg_count: 1,
            outputs: vec![binding(0, vec![0])],
            model: None,
        }],
    );
    for pointer in [false, true] {
        let mut collide = collide.clone();
        collide.variables[1].is_pointer = pointer;
        let mut db = StaticDb::default();
        db.insert(collide);
        db.insert(main.clone());
        let index = StaticIndex::new(db);
        let fc = index.lookup("collide", "fig3_14.c").unwrap() as u32;
        let fm = index.lookup("main", "fig3_14.c").unwrap() as u32;
        let r = resolve(&index, &[frame("collide", 10), frame("main", 20)]);
        assert!(r.blamed.contains(&(fm, 0)), "main's bank: {r:?}");
        assert_eq!(r.blamed.contains(&(fc, 3)), pointer, "c.fbank.site: {r:?}");
    }
}

/// A field path carried over from a callee (`app.ksp` + `.rnorm`) is a
/// scalar when its type is only ever a scalar's (`PetscReal`, a typedef of
/// double), so the report lists it with the derived scalars; the paths
/// between the base and the leaf are not.
#[test]
fn a_derived_path_to_a_scalar_field_is_a_scalar() {
    let mut rnorm = var("ksp.rnorm", VarKind::Field, Some(0), None, true, &[5]);
    rnorm.type_name = "PetscReal".into();
    rnorm.is_scalar = true;
    let mut ksp = var("ksp", VarKind::Param, None, Some(0), true, &[]);
    ksp.type_name = "KSP".into();
    let mut db = StaticDb::default();
    db.insert(func("KSPSolve", vec![ksp, rnorm], vec![]));
    let mut app = var("app", VarKind::Local, None, None, false, &[]);
    app.type_name = "AppCtx".into();
    db.insert(func("main", vec![app], vec![]));
    let index = StaticIndex::new(db);
    assert!(index.is_scalar_type("PetscReal"));
    assert!(!index.is_scalar_type("KSP") && !index.is_scalar_type("Unknown_t"));
    let main = index.lookup("main", "fig3_14.c").unwrap() as u32;
    let d = crate::attribution::resolve::DerivedField {
        base: (main, 0),
        suffix: ".ksp.rnorm".into(),
        type_name: "PetscReal".into(),
    };
    let keys = crate::attribution::keys::derived_keys(&index, &d, 0);
    let got: Vec<(&str, bool)> = keys.iter().map(|k| (k.name.as_str(), k.scalar)).collect();
    assert_eq!(got, vec![("app.ksp", false), ("app.ksp.rnorm", true)]);
}

/// A local array of a few numbers (`double fin[9]`, a cell's populations;
/// a 3 x 3 tensor) ranks as a scalar does; a larger one, or one of
/// structs, holds data.
#[test]
fn small_local_arrays_of_numbers_rank_as_scalars() {
    let mut x = var("x", VarKind::Local, None, None, false, &[]);
    x.type_name = "double".into();
    x.is_scalar = true;
    let mut db = StaticDb::default();
    db.insert(func("main", vec![x], vec![]));
    let index = StaticIndex::new(db);
    let small = |t: &str| crate::attribution::keys::small_scalar_array(&index, t);
    assert!(small("double [9]") && small("const double [3][3]"));
    assert!(!small("double [64]") && !small("double") && !small("Cell [4]"));
    assert!(!small("double [n]"));
}

/// A call to a library routine whose frame the unwinder did not see (a
/// tail call into `free`, the PLT stub): a sample on the call's own line,
/// which writes nothing, is the call's, blamed by its model (`operator
/// delete` on the node it releases).
fn release_index() -> StaticIndex {
    let mut db = StaticDb::default();
    let mut p = var("p", VarKind::Param, None, Some(0), false, &[]);
    p.is_pointer = true;
    db.insert(func(
        "deallocate",
        vec![p],
        vec![call_binding_arg0(
            158,
            "_ZdlPvm",
            2,
            0,
            Some(vec![CallOutput::Arg(0)]),
        )],
    ));
    StaticIndex::new(db)
}

#[test]
fn a_sample_on_a_line_that_only_calls_a_library_routine_is_the_calls() {
    let index = release_index();
    let r = resolve(&index, &[frame("deallocate", 158)]);
    assert_eq!(r.blamed, vec![(0, 0)], "{r:?}");
    assert!(r.unexplained.is_none(), "{r:?}");
}

/// Optimized code the line table gives to the caller a function was
/// inlined into (a sort's comparator at `stl_algo.h:1870`): the line is
/// not the function's, so its caller's call takes the sample, and the db
/// check does not count it as a line the db lacks.
#[test]
fn a_line_of_another_file_is_the_callers() {
    let mut db = StaticDb::default();
    let mut lambda = func("cmp", vec![], vec![]);
    lambda.file = "Sparse.cpp".into();
    lambda.lines = vec![30, 31];
    db.insert(lambda);
    db.insert(func(
        "partition",
        vec![var("first", VarKind::Local, None, None, false, &[1870])],
        vec![call_binding_arg0(1870, "cmp", 2, 0, None)],
    ));
    let index = StaticIndex::new(db);
    let inner = SymFrame {
        function: "cmp".into(),
        file: "stl_algo.h".into(),
        line: 1870,
        column: 0,
        inlined: true,
    };
    let r = resolve(&index, &[inner, frame("partition", 1870)]);
    let partition = index.lookup("partition", "fig3_14.c").unwrap() as u32;
    assert_eq!(r.blamed, vec![(partition, 0)], "{r:?}");
}

/// A recursive tree walk: samples in its prologue (a signature over two
/// lines, the second declaring the output parameter) and on the line of
/// its recursive call are what the walk computes, `acc`.
#[test]
fn a_walks_prologue_and_its_recursive_call_line_blame_what_it_computes() {
    let mut db = StaticDb::default();
    let mut acc = var("acc", VarKind::Param, None, Some(0), true, &[18]);
    acc.line = 31;
    let walk_call = |line: u32| call_binding_arg0(line, "walk", 1, 0, None);
    let mut walk = func("walk", vec![acc], vec![walk_call(51)]);
    walk.line = 30;
    walk.lines = vec![30, 31, 18, 51, 52];
    walk.lines.sort_unstable();
    db.insert(walk);
    db.insert(func(
        "main",
        vec![var("bodies", VarKind::Local, None, None, false, &[])],
        vec![walk_call(10)],
    ));
    let index = StaticIndex::new(db);
    let main = index.lookup("main", "fig3_14.c").unwrap() as u32;
    for line in [31, 51] {
        let r = resolve(&index, &[frame("walk", line), frame("main", 10)]);
        assert_eq!(r.blamed, vec![(main, 0)], "line {line}: {r:?}");
    }
}
