//! Writes small valid files of every format into `<dir>/<target>/`, the seed
//! corpora of the cargo-fuzz targets (`scripts/fuzz.sh` runs this first).
//!
//! `cargo run -p blame-formats --example fuzz_seeds -- fuzz/corpus`

use blame_formats::jsonl::{write_sample, JsonSample};
use blame_formats::results::*;
use blame_formats::static_db::*;
use blame_formats::stream::*;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fuzz/corpus".into());
    let dir = Path::new(&dir);
    for t in [
        "stream",
        "node_file",
        "static_db",
        "results",
        "jsonl",
        "alloc_log",
    ] {
        std::fs::create_dir_all(dir.join(t))?;
    }
    let event = EventDesc {
        name: "cpu-clock".into(),
        sampling: Sampling::Frequency(1000),
        unit: "ns".into(),
        memory: false,
    };
    let header = StreamHeader {
        host: "h".into(),
        command: vec!["./a".into()],
        pid: 7,
        ppid: 1,
        rank: Some(0),
        world_size: Some(2),
        events: vec![event.clone()],
        call_graph: "fp".into(),
        start_time_ns: 1,
        extra: vec![],
    };
    for (name, samples) in [("small", 3u64), ("chunks", 300)] {
        let mut w = StreamWriter::new(Vec::new(), "seed", &header)?.with_chunk_bytes(1024);
        w.write_mapping(Mapping {
            pid: 7,
            start: 0x400000,
            end: 0x401000,
            file_offset: 0,
            path: "/a".into(),
            build_id: vec![1, 2],
        })?;
        w.write_thread(ThreadName {
            pid: 7,
            tid: 7,
            name: "a".into(),
        })?;
        for i in 0..samples {
            let frames = [0x400100 + i % 5, 0x400200 + i % 3, 0x400300];
            w.write_sample_with_stack(7, 1000 * i, 0, 1, &frames, (i % 2 == 0).then_some(i))?;
        }
        w.write_lost(Lost { event: 0, count: 1 })?;
        w.write_exec(vec!["./b".into()])?;
        w.write_end(ProcessEnd {
            exit_status: Some(0),
            signal: None,
            time_ns: 9,
        })?;
        std::fs::write(dir.join("stream").join(name), w.finish()?)?;
    }

    // A node file: two processes' sections, interleaved; the second left open.
    let path = dir.join("node_file").join("two");
    let _ = std::fs::remove_file(&path);
    let node = blame_formats::node_file::NodeWriter::create(
        &path,
        &blame_formats::node_file::NodeHeader {
            host: "h".into(),
            recorder_pid: 5,
            start_time_ns: 1,
            extra: vec![],
        },
    )?;
    let mut sections = Vec::new();
    for rank in 0..2u32 {
        let h = StreamHeader {
            pid: 7 + rank,
            rank: Some(rank),
            ..header.clone()
        };
        sections.push(
            blame_formats::node_file::NodeWriter::open_section(&node, &h)?.with_chunk_bytes(1024),
        );
    }
    for i in 0..200u64 {
        for (rank, w) in sections.iter_mut().enumerate() {
            let frames = [0x400100 + i % 5, 0x400200 + rank as u64, 0x400300];
            w.write_sample_with_stack(7 + rank as u32, 1000 * i, 0, 1, &frames, None)?;
        }
    }
    let open = sections.pop().expect("two");
    sections.pop().expect("two").close()?;
    drop(open);
    blame_formats::node_file::NodeWriter::finish(&node)?;

    let mut db = StaticDb::default();
    db.insert(FunctionSummary {
        linkage_name: "f".into(),
        name: "f".into(),
        file: "a.c".into(),
        line: 1,
        ir_hash: 5,
        has_line_info: true,
        variables: vec![
            Variable {
                name: "s".into(),
                kind: VarKind::Param,
                type_name: "struct S *".into(),
                line: 1,
                parent: None,
                param_index: Some(0),
                is_exit: true,
                is_pointer: true,
                explicit_lines: vec![2, 3],
                implicit_lines: vec![4],
                write_lines: vec![3],
                aliases: vec![1],
                heap_bytes: 0,
                element_of: None,
                is_record: false,
                is_result: false,
                is_scalar: false,
            },
            Variable {
                name: "s.x".into(),
                kind: VarKind::Field,
                type_name: "int".into(),
                line: 1,
                parent: Some(0),
                param_index: None,
                is_exit: true,
                is_pointer: false,
                explicit_lines: vec![3],
                implicit_lines: vec![],
                write_lines: vec![3],
                aliases: vec![],
                heap_bytes: 0,
                element_of: None,
                is_record: false,
                is_result: false,
                is_scalar: false,
            },
        ],
        call_sites: vec![CallSite {
            line: 3,
            column: 2,
            callee: Some("g".into()),
            arg_count: 1,
            outputs: vec![OutputBinding {
                output: CallOutput::Arg(0),
                blamed: vec![0],
                pointees: vec![],
                field: String::new(),
                explicit: vec![],
            }],
            model: Some(vec![CallOutput::Return]),
        }],
        side_effects: vec![SideEffect {
            blamed_param: 0,
            from_param: 0,
            implicit: false,
            ..Default::default()
        }],
        param_aliases: vec![(0, 0)],
        param_alias_paths: vec![],
        loops: vec![LoopInfo {
            header_line: 2,
            lines: vec![2, 3],
            parent: None,
        }],
        reads: vec![LineReads {
            line: 3,
            reads: vec![MemRead {
                variable: 1,
                index: ReadIndex::Const(2),
            }],
            costs: vec![ReadCost {
                reuse: Reuse::Stride(8),
                footprint: 0,
                outer: Default::default(),
                sweep: 0,
                swept_before: false,
            }],
        }],
        lines: vec![1, 2, 3, 4],
        param_writes: None,
        param_reads: None,
        unit: String::new(),
        unit_globals: vec![],
        fields_feeding_data: vec![],
        returns_into: vec![],
        unit_function_pointers: vec![],
    });
    let tmp = tempfile::tempdir()?;
    let p = tmp.path().join("db");
    db.write(
        &p,
        &StaticDbHeader {
            producer: "seed".into(),
            llvm_version: "19".into(),
        },
    )?;
    std::fs::copy(&p, dir.join("static_db").join("one"))?;

    let key = VariableKey {
        name: "s.x".into(),
        function: "f".into(),
        file: "a.c".into(),
        line: 1,
        type_name: "int".into(),
        kind: "field".into(),
        event: 0,
        scalar: false,
    };
    let value = ProcessValue {
        process: 0,
        inclusive: 2.0,
        exclusive: 1.0,
        methods: vec![("raw".into(), 1.0)],
        explicit: 0.0,
        inherited: 0.0,
    };
    let results = Results {
        header: ResultsHeader {
            producer: "seed".into(),
            events: vec![event],
            processes: vec![ProcessInfo {
                rank: Some(0),
                pid: 7,
                host: "h".into(),
                command: vec!["./a".into()].into(),
                launcher: false,
                samples: vec![3.0],
                lost: 1,
            }],
            shard: Some(Shard { index: 0, count: 1 }),
            blame_points: vec!["g".into()],
            coverage: vec![],
            provenance: Some(Provenance::default()),
            damage: vec![],
            summed: None,
        },
        variables: vec![VariableBlame {
            key: key.clone(),
            values: vec![value.clone()],
        }],
        functions: vec![FunctionBlame {
            key: FunctionKey {
                name: "f".into(),
                file: "a.c".into(),
                event: 0,
            },
            values: vec![value],
        }],
        frames: vec![SymFrame {
            function: "f".into(),
            file: "a.c".into(),
            line: 3,
            column: 0,
            inlined: false,
        }],
        stacks: vec![StackRecord {
            process: 0,
            frames: vec![0],
            samples: vec![1.0],
        }],
        contexts: vec![ContextBlame {
            variable: 0,
            process: 0,
            stack: 0,
            samples: 1.0,
        }],
    };
    let p = tmp.path().join("res");
    results.write(&p)?;
    std::fs::copy(&p, dir.join("results").join("one"))?;

    let mut jl = b"# seed\n".to_vec();
    write_sample(
        &mut jl,
        &JsonSample {
            stack: results.frames.clone(),
            event: "cpu-clock".into(),
            weight: 1.0,
            rank: Some(0),
            thread: 1,
            pid: Some(7),
            time_ns: Some(5),
            data_address: Some(0x1000),
        },
    )?;
    jl.extend_from_slice(b"{\"stack\":[{\"function\":\"bar\",\"file\":\"ex.c\",\"line\":9,\"column\":2,\"inlined\":true}],\"event\":\"cpu-clock\",\"weight\":1,\"rank\":0,\"thread\":1}\n");
    std::fs::write(dir.join("jsonl").join("two"), jl)?;

    let mut al = blame_formats::alloc_log::MAGIC.to_vec();
    al.extend_from_slice(&1u32.to_le_bytes()); // version 1
    al.extend_from_slice(&7u32.to_le_bytes());
    let maps = b"00400000-00401000 r-xp 00000000 08:01 12 /a\n";
    let rec = |kind: u32, depth: u32, words: [u64; 4]| {
        let mut b = kind.to_le_bytes().to_vec();
        b.extend_from_slice(&depth.to_le_bytes());
        for w in words {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b
    };
    al.extend(rec(6, 0, [0, 0, maps.len() as u64, 0]));
    al.extend_from_slice(maps);
    for kind in 1..=5u32 {
        al.extend(rec(kind, 2, [kind as u64, 0x1000, 64, 0x2000]));
        al.extend_from_slice(&0x400100u64.to_le_bytes());
        al.extend_from_slice(&0x400200u64.to_le_bytes());
    }
    std::fs::write(dir.join("alloc_log").join("all_kinds"), al)?;
    println!("seeds written to {}", dir.display());
    Ok(())
}
