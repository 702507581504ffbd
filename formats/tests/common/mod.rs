//! Fixtures shared by the format tests: deterministic files of every format
//! and a parser of the container's chunk layout.
#![allow(dead_code)]

use blame_formats::results::*;
use blame_formats::static_db::*;
use blame_formats::stream::*;

/// A small deterministic PRNG (xorshift64*), so tests need no extra crates.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub fn stream_header() -> StreamHeader {
    StreamHeader {
        host: "node17".into(),
        command: vec!["./solver".into(), "in.txt".into()],
        pid: 4242,
        ppid: 4200,
        rank: Some(3),
        world_size: Some(4),
        events: vec![
            EventDesc {
                name: "cpu-clock".into(),
                sampling: Sampling::Frequency(1000),
                unit: "ns".into(),
                memory: false,
            },
            EventDesc {
                name: "cache-misses".into(),
                sampling: Sampling::Period(10_000),
                unit: "events".into(),
                memory: true,
            },
        ],
        call_graph: "dwarf".into(),
        start_time_ns: 1_700_000_000_000_000_000,
        extra: vec![("kernel".into(), "6.1.0".into())],
    }
}

/// `n` distinct stacks of `depth` frames (innermost first) with shared
/// outer frames, like a real program: main → a few drivers → many leaves.
pub fn stacks(n: usize, depth: usize, rng: &mut Rng) -> Vec<Vec<u64>> {
    let base = 0x5555_5555_4000u64;
    (0..n)
        .map(|_| {
            let mut frames = Vec::with_capacity(depth);
            for level in 0..depth {
                // Outer levels (high index) have few choices, inner ones many.
                let outer = depth - 1 - level;
                let choices = 1 + (outer as u64 * outer as u64).min(400);
                let site = rng.below(choices);
                frames.push(base + (level as u64) * 0x1_0000 + site * 0x37 + 5);
            }
            frames
        })
        .collect()
}

/// (tid, time, event, weight, frames, data address) of a written sample.
pub type WrittenSample = (u32, u64, u16, u64, Vec<u64>, Option<u64>);

/// What was written to a stream, for comparison with what is read.
pub struct StreamFixture {
    pub bytes: Vec<u8>,
    pub mappings: Vec<Mapping>,
    pub threads: Vec<ThreadName>,
    pub samples: Vec<WrittenSample>,
    pub lost: Vec<Lost>,
    pub execs: Vec<Vec<String>>,
    pub end: ProcessEnd,
    pub records: u64,
}

/// A stream using every record kind, in chunks of about `chunk_bytes`.
pub fn stream_fixture(samples: usize, chunk_bytes: usize) -> StreamFixture {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut w = StreamWriter::new(Vec::new(), "<fixture>", &stream_header())
        .unwrap()
        .with_chunk_bytes(chunk_bytes);
    let mappings = vec![
        Mapping {
            pid: 4242,
            start: 0x5555_5555_4000,
            end: 0x5555_5556_0000,
            file_offset: 0,
            path: "/home/u/solver".into(),
            build_id: vec![0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4],
        },
        Mapping {
            pid: 4242,
            start: 0x7f00_0000_0000,
            end: 0x7f00_0020_0000,
            file_offset: 0x1000,
            path: "/usr/lib/x86_64-linux-gnu/libc.so.6".into(),
            build_id: vec![],
        },
    ];
    let threads = vec![
        ThreadName {
            pid: 4242,
            tid: 4242,
            name: "solver".into(),
        },
        ThreadName {
            pid: 4242,
            tid: 4243,
            name: "omp-worker".into(),
        },
    ];
    let mut records = 0u64;
    for m in &mappings {
        w.write_mapping(m.clone()).unwrap();
        records += 1;
    }
    for t in &threads {
        w.write_thread(t.clone()).unwrap();
        records += 1;
    }
    let table = stacks(60, 12, &mut rng);
    let mut written = Vec::new();
    let mut time = 1_000_000u64;
    for i in 0..samples {
        let frames = table[rng.below(table.len() as u64) as usize].clone();
        let tid = 4242 + (i % 2) as u32;
        time += 250_000 + rng.below(1000);
        let event = (i % 3 == 0) as u16;
        let weight = if event == 1 { 10_000 } else { 1_000_000 };
        let data = (event == 1).then(|| 0x7ffd_0000_0000 + rng.below(1 << 20));
        let before = w.records_written();
        w.write_sample_with_stack(tid, time, event, weight, &frames, data)
            .unwrap();
        records += w.records_written() - before;
        written.push((tid, time, event, weight, frames, data));
        if i == samples / 2 {
            w.write_exec(vec!["./solver".into(), "--phase2".into()])
                .unwrap();
            records += 1;
        }
    }
    // An empty stack is id 0.
    let lost = vec![Lost {
        event: 0,
        count: 17,
    }];
    w.write_lost(lost[0]).unwrap();
    let end = ProcessEnd {
        exit_status: Some(0),
        signal: None,
        time_ns: time + 1,
    };
    w.write_end(end.clone()).unwrap();
    records += 2;
    assert_eq!(records, w.records_written());
    let bytes = w.finish().unwrap();
    StreamFixture {
        bytes,
        mappings,
        threads,
        samples: written,
        lost,
        execs: vec![vec!["./solver".into(), "--phase2".into()]],
        end,
        records,
    }
}

/// One chunk as laid out in a container file.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub records: u32,
}

/// The chunks of a well-formed container, header chunk first.
pub fn chunks(bytes: &[u8]) -> Vec<Span> {
    let mut at = 16;
    let mut out = Vec::new();
    while at < bytes.len() {
        let f =
            |i: usize| u32::from_le_bytes(bytes[at + 4 * i..at + 4 * i + 4].try_into().unwrap());
        assert_eq!(&bytes[at..at + 4], b"CHNK");
        let end = at + 20 + f(1) as usize;
        out.push(Span {
            start: at,
            end,
            records: f(3),
        });
        at = end;
    }
    assert_eq!(at, bytes.len());
    out
}

pub fn function(i: usize, rng: &mut Rng) -> FunctionSummary {
    let nvars = 3 + rng.below(8) as usize;
    let variables: Vec<Variable> = (0..nvars)
        .map(|v| Variable {
            name: if v > 0 && v % 3 == 0 {
                format!("s{}.field{v}", v - 1)
            } else {
                format!("var_{i}_{v}")
            },
            kind: [
                VarKind::Local,
                VarKind::Param,
                VarKind::Return,
                VarKind::Global,
                VarKind::Field,
            ][v % 5],
            type_name: "struct Vec3 *".into(),
            line: 10 + v as u32,
            parent: (v > 0 && v % 3 == 0).then(|| v as u32 - 1),
            param_index: (v % 5 == 1).then_some(v as u32),
            is_exit: v % 2 == 0,
            is_pointer: v % 4 == 0,
            explicit_lines: (0..rng.below(20) as u32).map(|l| 10 + l * 2).collect(),
            implicit_lines: vec![12, 40],
            write_lines: vec![11 + v as u32],
            aliases: if v > 1 { vec![0] } else { vec![] },
            heap_bytes: 0,
            element_of: None,
            is_record: false,
            is_result: false,
            is_scalar: false,
        })
        .collect();
    FunctionSummary {
        linkage_name: format!("_Z4fn{i}Pd"),
        name: format!("fn{i}(double*)"),
        file: format!("src/unit{}.c", i % 7),
        line: 100 + i as u32,
        ir_hash: rng.next(),
        has_line_info: !i.is_multiple_of(11),
        variables,
        call_sites: vec![CallSite {
            line: 15,
            column: 7,
            callee: (!i.is_multiple_of(4)).then(|| "MPI_Recv".to_string()),
            arg_count: 3,
            outputs: vec![
                OutputBinding {
                    output: CallOutput::Return,
                    blamed: vec![0, 1],
                    pointees: vec![],
                    field: String::new(),
                    explicit: vec![],
                },
                OutputBinding {
                    output: CallOutput::Arg(2),
                    blamed: vec![2],
                    pointees: vec![],
                    field: String::new(),
                    explicit: vec![],
                },
            ],
            model: i.is_multiple_of(4).then(|| vec![CallOutput::Arg(0)]),
        }],
        side_effects: vec![SideEffect {
            blamed_param: 0,
            from_param: 1,
            implicit: false,
            ..Default::default()
        }],
        param_aliases: vec![(0, 1)],
        param_alias_paths: vec![],
        loops: vec![
            LoopInfo {
                header_line: 20,
                lines: vec![20, 21, 22],
                parent: None,
            },
            LoopInfo {
                header_line: 21,
                lines: vec![21],
                parent: Some(0),
            },
        ],
        reads: vec![LineReads {
            line: 21,
            reads: vec![
                MemRead {
                    variable: 0,
                    index: ReadIndex::Var(1),
                },
                MemRead {
                    variable: 1,
                    index: ReadIndex::Const(-4),
                },
                MemRead {
                    variable: 2,
                    index: ReadIndex::Expr(9),
                },
                MemRead {
                    variable: 0,
                    index: ReadIndex::None,
                },
            ],
            costs: vec![
                ReadCost {
                    reuse: Reuse::Stride(8),
                    footprint: 0,
                    outer: Default::default(),
                    sweep: 0,
                    swept_before: false,
                },
                ReadCost {
                    reuse: Reuse::Irregular,
                    footprint: 4096,
                    outer: Default::default(),
                    sweep: 0,
                    swept_before: false,
                },
                ReadCost {
                    reuse: Reuse::Invariant,
                    footprint: 0,
                    outer: Default::default(),
                    sweep: 0,
                    swept_before: false,
                },
                ReadCost {
                    reuse: Reuse::Fixed,
                    footprint: 8,
                    outer: Default::default(),
                    sweep: 0,
                    swept_before: false,
                },
            ],
        }],
        lines: (10..60).collect(),
        param_writes: Some(vec![
            vec![ParamAccess {
                path: vec!["fx".into()],
                deref: 1,
            }],
            vec![],
        ]),
        param_reads: None,
        unit: "/src/unit.c".into(),
        unit_globals: vec![],
        fields_feeding_data: vec![],
        returns_into: vec![],
        unit_function_pointers: vec![],
    }
}

pub fn static_db(functions: usize, seed: u64) -> StaticDb {
    let mut rng = Rng(seed);
    let mut db = StaticDb::default();
    for i in 0..functions {
        db.insert(function(i, &mut rng));
    }
    db
}

pub fn db_header() -> StaticDbHeader {
    StaticDbHeader {
        producer: "blame 0.1.0".into(),
        llvm_version: "19.1.7".into(),
    }
}

pub fn results(variables: usize) -> Results {
    let mut rng = Rng(77);
    let events = stream_header().events;
    let processes: Vec<ProcessInfo> = (0..4)
        .map(|r| ProcessInfo {
            rank: Some(r),
            pid: 100 + r,
            host: format!("node{r}").into(),
            command: vec!["./solver".into()].into(),
            launcher: false,
            samples: vec![1000.0 + r as f64, 10.5],
            lost: r as u64,
        })
        .chain(std::iter::once(ProcessInfo {
            rank: None,
            pid: 99,
            host: "node0".into(),
            command: vec!["mpirun".into(), "-np".into(), "4".into()].into(),
            launcher: true,
            samples: vec![0.0, 0.0],
            lost: 0,
        }))
        .collect();
    let key = |i: usize| VariableKey {
        name: format!("grid.cells[{i}]"),
        function: format!("update{}", i % 13),
        file: "solver.c".into(),
        line: i as u32 % 500,
        type_name: "double *".into(),
        kind: ["local", "param", "global", "field", "heap"][i % 5].into(),
        event: (i % 2) as u16,
        scalar: false,
    };
    let values = |rng: &mut Rng| -> Vec<ProcessValue> {
        (0..4)
            .map(|p| ProcessValue {
                process: p,
                inclusive: rng.below(10_000) as f64 / 4.0,
                exclusive: rng.below(100) as f64,
                methods: vec![("raw".into(), 1.5), ("direct".into(), 2.0)],
                explicit: 0.0,
                inherited: 0.0,
            })
            .collect()
    };
    let variables_v: Vec<VariableBlame> = (0..variables)
        .map(|i| VariableBlame {
            key: key(i),
            values: values(&mut rng),
        })
        .collect();
    let functions = (0..variables / 4 + 1)
        .map(|i| FunctionBlame {
            key: FunctionKey {
                name: format!("update{i}"),
                file: "solver.c".into(),
                event: 0,
            },
            values: values(&mut rng),
        })
        .collect();
    let nstacks = variables / 2 + 1;
    let contexts = (0..variables)
        .map(|i| ContextBlame {
            variable: i as u32,
            process: (i % 4) as u32,
            stack: (i % nstacks) as u32,
            samples: 3.0,
        })
        .collect();
    let mut r = Results {
        header: ResultsHeader {
            producer: "blame 0.1.0".into(),
            events,
            processes,
            shard: Some(Shard { index: 1, count: 3 }),
            blame_points: vec!["MPI_Allreduce".into()],
            coverage: vec![],
            provenance: Some(Provenance {
                static_db: Some(FileId {
                    path: ".blame/static.db".into(),
                    bytes: 1234,
                    hash: 0x1234_5678_9abc_def0,
                }),
                inputs: blame_formats::results::InputsId::of(&fixture_inputs()),
                options: vec![("loop-threshold".into(), "0.75".into())],
            }),
            damage: vec!["run/rank-3.bstream: damaged bytes 100..200 skipped".into()],
            summed: None,
        },
        variables: variables_v,
        functions,
        frames: vec![],
        stacks: vec![],
        contexts,
    };
    for i in 0..nstacks {
        let frames = (0..8)
            .map(|d| SymFrame {
                function: format!("f{d}_{}", i % 17),
                file: "solver.c".into(),
                line: (d * 10 + i % 9) as u32,
                column: (d % 3) as u32,
                inlined: d == 1,
            })
            .collect();
        r.push_stack((i % 4) as u32, frames, vec![i as f64, 0.25]);
    }
    r
}

pub fn alloc_record(
    kind: u32,
    time: u64,
    addr: u64,
    size: u64,
    old: u64,
    frames: &[u64],
) -> Vec<u8> {
    let mut b = Vec::new();
    for v in [kind, frames.len() as u32] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    for v in [time, addr, size, old] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    for f in frames {
        b.extend_from_slice(&f.to_le_bytes());
    }
    b
}

pub fn alloc_log_bytes(events: usize) -> Vec<u8> {
    let mut b = blame_formats::alloc_log::MAGIC.to_vec();
    b.extend_from_slice(&1u32.to_le_bytes()); // version 1
    b.extend_from_slice(&4242u32.to_le_bytes());
    let maps = b"55550000-55551000 r-xp 00000000 08:01 12 /bin/prog\n";
    b.extend(alloc_record(6, 0, 0, maps.len() as u64, 0, &[]));
    b.extend_from_slice(maps);
    for i in 0..events as u64 {
        let kind = [1, 2, 3, 4, 5][i as usize % 5];
        let frames: Vec<u64> = (0..(i % 7)).map(|d| 0x5555_0000 + d * 0x40 + i).collect();
        b.extend(alloc_record(
            kind,
            10 * i,
            0x1000 + i * 64,
            64 + i,
            if kind == 3 { 0x1000 } else { 0 },
            &frames,
        ));
    }
    b
}

/// A container file built by hand: a valid preamble and header chunk taken
/// from `valid`, followed by one chunk whose (uncompressed) payload is `payload`.
pub fn with_payload_chunk(valid: &[u8], payload: &[u8], records: u32) -> Vec<u8> {
    let header_end = chunks(valid)[0].end;
    let mut out = valid[..header_end].to_vec();
    out.extend(raw_chunk(payload, records));
    out
}

pub fn raw_chunk(payload: &[u8], records: u32) -> Vec<u8> {
    let compressed = zstd::bulk::compress(payload, 1).unwrap();
    let mut out = Vec::new();
    out.extend_from_slice(b"CHNK");
    out.extend_from_slice(&(compressed.len() as u32).to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&records.to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&compressed).to_le_bytes());
    out.extend(compressed);
    out
}

/// The sample inputs the fixture's results name in their provenance.
pub fn fixture_inputs() -> Vec<FileId> {
    vec![FileId {
        path: "run/rank-0.bstream".into(),
        bytes: 99,
        hash: 7,
    }]
}

/// The bincode settings of every payload (`container::codec`, which is
/// the crate's own), for laying out old or damaged records by hand.
pub fn codec() -> impl bincode::config::Config {
    bincode::config::standard()
        .with_little_endian()
        .with_variable_int_encoding()
}

/// The header of `h` as results versions 6 and 7 lay it out (a tuple
/// encodes as the struct of its fields), with `processes` in place of the
/// process table.
pub fn results_header<'a, P: bincode::Encode + 'a>(
    h: &'a ResultsHeader,
    processes: P,
) -> impl bincode::Encode + 'a {
    (
        &h.producer,
        &h.events,
        processes,
        &h.shard,
        &h.blame_points,
        &h.coverage,
        &h.provenance,
        &h.damage,
        &h.summed,
    )
}

/// The data records of `r` laid out as results of `version` lay them out:
/// stacks with their frames before version 8; from version 8 each call
/// path that more than one stack runs through once, in the order stacks
/// first name them, the stacks on those naming them (by the step from the
/// path named before), the others with their frames.
pub fn result_records(r: &Results, version: u32) -> Vec<ResultRecord> {
    use blame_formats::results::{CallPath, PathStack};
    let mut uses: std::collections::HashMap<&[u32], usize> = Default::default();
    for st in &r.stacks {
        *uses.entry(&st.frames).or_default() += 1;
    }
    let mut paths: std::collections::HashMap<&[u32], u32> = Default::default();
    let mut path_records = Vec::new();
    let mut stacks = Vec::new();
    let mut before = 0;
    for st in &r.stacks {
        if version < 8 || uses[&st.frames[..]] == 1 {
            stacks.push(ResultRecord::Stack(st.clone()));
            continue;
        }
        let path = *paths.entry(&st.frames).or_insert_with(|| {
            path_records.push(ResultRecord::Path(CallPath {
                frames: st.frames.clone(),
            }));
            path_records.len() as u32 - 1
        });
        stacks.push(ResultRecord::PathStack(PathStack {
            process: st.process,
            path_step: i64::from(path) - i64::from(before),
            samples: st.samples.clone(),
        }));
        before = path;
    }
    r.variables
        .iter()
        .cloned()
        .map(ResultRecord::Variable)
        .chain(r.functions.iter().cloned().map(ResultRecord::Function))
        .chain(r.frames.iter().cloned().map(ResultRecord::Frame))
        .chain(path_records)
        .chain(stacks)
        .chain(r.contexts.iter().cloned().map(ResultRecord::Context))
        .collect()
}

/// A results file of `version` with `header` and the records of `r`, in
/// one chunk (the data records are laid out alike from version 4 on; none
/// when `r` has none).
pub fn results_file<H: bincode::Encode>(version: u32, header: &H, r: &Results) -> Vec<u8> {
    use blame_formats::container::{ContainerWriter, Kind};
    let kind = Kind { version, ..RESULTS };
    let mut w = ContainerWriter::new(Vec::new(), "<old>", kind, header).unwrap();
    let records = result_records(r, version);
    if !records.is_empty() {
        let mut payload = Vec::new();
        for r in &records {
            payload.extend(bincode::encode_to_vec(r, codec()).unwrap());
        }
        w.write_chunk(&payload, records.len() as u32).unwrap();
    }
    w.write_end().unwrap();
    w.into_inner()
}
