//! What each writer writes, its reader reads back unchanged.

mod common;

use blame_formats::alloc_log::{AllocKind, AllocLog};
use blame_formats::jsonl::{read_samples, write_sample, JsonSample};
use blame_formats::results::{FunctionBlame, Results, SymFrame, VariableBlame};
use blame_formats::static_db::StaticDb;
use blame_formats::stream::*;
use common::*;
use std::path::Path;

#[test]
fn stream_round_trip_of_every_record_kind_in_many_chunks() {
    let fx = stream_fixture(5000, 1024);
    let spans = chunks(&fx.bytes);
    assert!(spans.len() > 20, "want many chunks, got {}", spans.len());
    let (s, rec) = read_stream_bytes(&fx.bytes).unwrap();
    assert!(rec.stopped_by.is_none());
    assert!(rec.complete);
    assert_eq!(rec.records_recovered, fx.records);
    assert_eq!(s.header(), &stream_header());
    assert_eq!(s.mappings, fx.mappings);
    assert_eq!(s.threads, fx.threads);
    assert_eq!(s.lost, fx.lost);
    assert_eq!(s.execs, fx.execs);
    assert_eq!(s.end.as_ref(), Some(&fx.end));
    assert_eq!(s.samples.len(), fx.samples.len());
    for (got, (tid, time, event, weight, frames, data)) in s.samples.iter().zip(&fx.samples) {
        assert_eq!(
            (
                got.tid,
                got.time_ns,
                got.event,
                got.weight,
                got.data_address
            ),
            (*tid, *time, *event, *weight, *data)
        );
        assert_eq!(&s.frames(got.stack).unwrap(), frames);
    }
}

#[test]
fn stacks_are_interned_once_and_shared_prefixes_share_nodes() {
    let mut w = StreamWriter::new(Vec::new(), "<t>", &stream_header()).unwrap();
    let a = w.intern_stack(&[3, 2, 1]).unwrap();
    let b = w.intern_stack(&[4, 2, 1]).unwrap();
    let a2 = w.intern_stack(&[3, 2, 1]).unwrap();
    let empty = w.intern_stack(&[]).unwrap();
    let outer = w.intern_stack(&[2, 1]).unwrap();
    assert_eq!(a, a2);
    assert_ne!(a, b);
    assert_eq!(empty, 0);
    // Nodes: 1, 2<-1, 3<-2<-1, 4<-2<-1: the suffix [2, 1] was already there.
    assert_eq!(w.records_written(), 4);
    for (stack, t) in [(a, 10), (b, 20), (empty, 30), (outer, 40)] {
        w.write_sample(Sample {
            tid: 1,
            time_ns: t,
            event: 0,
            weight: 1,
            stack,
            data_address: None,
        })
        .unwrap();
    }
    let (s, rec) = read_stream_bytes(&w.finish().unwrap()).unwrap();
    assert!(rec.complete);
    assert_eq!(s.stacks.len(), 5);
    let frames: Vec<Vec<u64>> = s
        .samples
        .iter()
        .map(|x| s.frames(x.stack).unwrap())
        .collect();
    assert_eq!(
        frames,
        vec![vec![3, 2, 1], vec![4, 2, 1], vec![], vec![2, 1]]
    );
    assert!(s.frames(99).is_err());
}

#[test]
fn stream_times_survive_chunk_boundaries_and_going_backwards() {
    // Per-chunk delta coding: times that go back (two CPUs' clocks) and
    // extreme values must still read back exactly.
    let mut w = StreamWriter::new(Vec::new(), "<t>", &stream_header())
        .unwrap()
        .with_chunk_bytes(1024);
    let times = [5u64, 3, u64::MAX, 0, 1 << 63, 42];
    let mut all = Vec::new();
    for round in 0..200u64 {
        for &t in &times {
            let t = t.wrapping_add(round);
            w.write_sample_with_stack(7, t, 0, u64::MAX, &[round, 1], Some(u64::MAX))
                .unwrap();
            all.push(t);
        }
    }
    let bytes = w.finish().unwrap();
    assert!(chunks(&bytes).len() > 3);
    let (s, _) = read_stream_bytes(&bytes).unwrap();
    let got: Vec<u64> = s.samples.iter().map(|x| x.time_ns).collect();
    assert_eq!(got, all);
}

#[test]
fn stream_file_round_trip_and_create_refuses_to_clobber() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rank-3.bstream");
    let mut w = StreamWriter::create(&path, &stream_header()).unwrap();
    w.write_sample_with_stack(1, 100, 0, 1, &[0x401000, 0x401100], None)
        .unwrap();
    w.flush().unwrap();
    w.finish().unwrap();
    let s = read_stream(&path).unwrap();
    assert_eq!(s.samples.len(), 1);
    assert!(matches!(
        StreamWriter::create(&path, &stream_header()),
        Err(blame_formats::FormatError::Io { .. })
    ));
}

#[test]
fn parallel_chunk_decoding_gives_the_same_records() {
    let fx = stream_fixture(3000, 2048);
    let (mut r, _) = StreamReader::new(&fx.bytes[..], "<t>").unwrap();
    let mut via_chunks = Vec::new();
    while let Some(c) = r.next_chunk().unwrap() {
        via_chunks.extend(decode_chunk(c, Path::new("<t>")).unwrap());
    }
    let (mut r, _) = StreamReader::new(&fx.bytes[..], "<t>").unwrap();
    let mut sequential = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        sequential.push(rec);
    }
    assert!(r.complete());
    assert_eq!(via_chunks, sequential);
    assert_eq!(sequential.len() as u64, fx.records);
}

#[test]
fn static_db_round_trip_in_several_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let db = static_db(3000, 1);
    let path = dir.path().join("unit.bsdb");
    db.write(&path, &db_header()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert!(chunks(&bytes).len() >= 3, "{} chunks", chunks(&bytes).len());
    let (back, header) = StaticDb::read(&path).unwrap();
    assert_eq!(header, db_header());
    assert_eq!(back, db);
    assert_eq!(StaticDb::read_bytes(&bytes).unwrap().0, db);
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn static_db_merge_across_translation_units() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = static_db(10, 1);
    let b_all = static_db(20, 2); // functions 0..20, other hashes
    let mut b = StaticDb::default();
    for f in b_all.functions.values().filter(|f| f.line >= 105) {
        b.insert(f.clone());
    }
    a.write(dir.path().join("a.bsdb"), &db_header()).unwrap();
    b.write(dir.path().join("b.bsdb"), &db_header()).unwrap();
    let (mut merged, _) = StaticDb::read(dir.path().join("a.bsdb")).unwrap();
    merged.merge(StaticDb::read(dir.path().join("b.bsdb")).unwrap().0);
    assert_eq!(merged.len(), 20);
    // Overlapping keys (functions 5..10) take the later summary.
    let f7 = &b_all.functions.values().find(|f| f.line == 107).unwrap();
    assert_eq!(
        merged.cached(&f7.linkage_name, &f7.file, f7.ir_hash),
        Some(*f7)
    );
    let f2 = a
        .functions
        .values()
        .find(|f| f.line == 102)
        .unwrap()
        .clone();
    assert!(merged
        .cached(&f2.linkage_name, &f2.file, f2.ir_hash)
        .is_some());
    assert!(merged
        .cached(&f2.linkage_name, &f2.file, f2.ir_hash ^ 1)
        .is_none());
    // Merging is what writing both into one db gives.
    a.merge(b);
    assert_eq!(a, merged);
    a.write(dir.path().join("m.bsdb"), &db_header()).unwrap();
    assert_eq!(StaticDb::read(dir.path().join("m.bsdb")).unwrap().0, merged);
}

#[test]
fn empty_static_db_and_results_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    StaticDb::default()
        .write(dir.path().join("e.bsdb"), &db_header())
        .unwrap();
    assert!(StaticDb::read(dir.path().join("e.bsdb"))
        .unwrap()
        .0
        .is_empty());
    let mut r = results(0);
    r.variables.clear();
    r.functions.clear();
    r.stacks.clear();
    r.contexts.clear();
    r.write(dir.path().join("e.bres")).unwrap();
    assert_eq!(Results::read(dir.path().join("e.bres")).unwrap(), r);
}

#[test]
fn results_round_trip_in_several_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let r = results(20000);
    let path = dir.path().join("shard-1.bres");
    r.write(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert!(chunks(&bytes).len() >= 3, "{} chunks", chunks(&bytes).len());
    assert_eq!(Results::read(&path).unwrap(), r);
    assert_eq!(Results::read_bytes(&bytes).unwrap(), r);
}

#[test]
fn jsonl_round_trip_and_defaults() {
    let samples = vec![
        JsonSample {
            stack: vec![
                SymFrame {
                    function: "bar".into(),
                    file: "ex.c".into(),
                    line: 9,
                    column: 3,
                    inlined: true,
                },
                SymFrame {
                    function: "foo \"quoted\" ünïcode".into(),
                    file: "ex.c".into(),
                    line: 22,
                    column: 0,
                    inlined: false,
                },
            ],
            event: "cpu-clock".into(),
            weight: 2.5,
            rank: Some(0),
            thread: 1,
            pid: Some(77),
            time_ns: Some(u64::MAX),
            data_address: Some(0x7ffd_0000_1000),
        },
        JsonSample {
            stack: vec![],
            event: "cache-misses".into(),
            weight: 0.0,
            rank: None,
            thread: 0,
            pid: None,
            time_ns: None,
            data_address: None,
        },
    ];
    let mut out = Vec::new();
    for s in &samples {
        write_sample(&mut out, s).unwrap();
    }
    let text = String::from_utf8(out.clone()).unwrap();
    assert_eq!(text.lines().count(), 2);
    assert!(!text.lines().nth(1).unwrap().contains("rank"));
    // JSON leaves out a zero column and a false `inlined` (bincode does not).
    assert!(text.contains("\"column\":3,\"inlined\":true"));
    assert!(!text.contains("\"column\":0") && !text.contains("\"inlined\":false"));
    assert_eq!(read_samples(&out[..], "t").unwrap(), samples);

    // The example line, comments and blank lines.
    let doc = b"# a comment\n\n{\"stack\":[{\"function\":\"bar\",\"file\":\"ex.c\",\"line\":9},{\"function\":\"foo\",\"file\":\"ex.c\",\"line\":22}],\"event\":\"cpu-clock\",\"weight\":1,\"rank\":0,\"thread\":1}\n{\"stack\":[{\"function\":\"main\"}],\"event\":\"cpu-clock\"}\n";
    let got = read_samples(&doc[..], "t").unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].stack[0].function, "bar");
    assert_eq!(got[0].stack[1].line, 22);
    assert_eq!(got[0].rank, Some(0));
    assert_eq!((got[1].weight, got[1].thread, got[1].rank), (1.0, 0, None));
    assert_eq!(
        (got[1].stack[0].file.as_str(), got[1].stack[0].line),
        ("", 0)
    );
}

#[test]
fn jsonl_errors_name_the_line() {
    for (doc, needle) in [
        (
            &b"{\"stack\":[],\"event\":\"e\"}\nnot json\n"[..],
            "t.jsonl:2: not a sample",
        ),
        (
            b"{\"stack\":[],\"event\":\"e\",\"weight\":-1}\n",
            "t.jsonl:1: weight -1",
        ),
        (b"{\"stack\":[],\"weight\":1}\n", "missing field `event`"),
        (b"{\"stack\":[],\"event\":\"e\"}\n\xff\xfe\n", "t.jsonl:2"),
    ] {
        let e = read_samples(doc, "t.jsonl").unwrap_err().to_string();
        assert!(e.contains(needle), "{e:?} lacks {needle:?}");
    }
}

#[test]
fn alloc_log_round_trip_of_every_kind() {
    let bytes = alloc_log_bytes(100);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("alloc-4242.log");
    std::fs::write(&path, &bytes).unwrap();
    let log = AllocLog::read(&path).unwrap();
    assert_eq!(log.pid, 4242);
    assert_eq!(log.maps.len(), 1);
    assert_eq!(log.events.len(), 100);
    assert_eq!(log.torn_at, None);
    let kinds = [
        AllocKind::Malloc,
        AllocKind::Calloc,
        AllocKind::Realloc,
        AllocKind::Free,
        AllocKind::Aligned,
    ];
    for (i, e) in log.events.iter().enumerate() {
        let i = i as u64;
        assert_eq!(e.kind, kinds[i as usize % 5]);
        assert_eq!(
            (e.time_ns, e.address, e.size),
            (10 * i, 0x1000 + i * 64, 64 + i)
        );
        assert_eq!(
            e.old_address,
            if e.kind == AllocKind::Realloc {
                0x1000
            } else {
                0
            }
        );
        assert_eq!(log.frames(e).len() as u64, i % 7);
    }
}

/// Results of version 2 (blame 0.1: no provenance, lost counts or damage
/// notes) are still read; their provenance is unknown, so `report`
/// recomputes them from the run instead of trusting them.
#[test]
fn results_of_version_2_are_read_with_unknown_provenance() {
    use bincode1::Options;
    use blame_formats::container::{ContainerWriter, Kind};
    use blame_formats::results::{Coverage, ResultRecordV3, Shard, StackRecordV3, RESULTS};
    #[derive(bincode::Encode)]
    struct ProcessV2 {
        rank: Option<u32>,
        pid: u32,
        host: String,
        command: Vec<String>,
        launcher: bool,
        samples: Vec<f64>,
    }
    #[derive(bincode::Encode)]
    struct HeaderV2 {
        producer: String,
        events: Vec<EventDesc>,
        processes: Vec<ProcessV2>,
        shard: Option<Shard>,
        blame_points: Vec<String>,
        coverage: Vec<Coverage>,
    }
    let now = results(40);
    let header = HeaderV2 {
        producer: "blame 0.1.0".into(),
        events: now.header.events.clone(),
        processes: now
            .header
            .processes
            .iter()
            .map(|p| ProcessV2 {
                rank: p.rank,
                pid: p.pid,
                host: p.host.to_string(),
                command: p.command.to_vec(),
                launcher: p.launcher,
                samples: p.samples.clone(),
            })
            .collect(),
        shard: None,
        blame_points: now.header.blame_points.clone(),
        coverage: now.header.coverage.clone(),
    };
    let v2 = Kind {
        version: 2,
        ..RESULTS
    };
    let mut w = ContainerWriter::new(Vec::new(), "<v2>", v2, &header).unwrap();
    let mut payload = Vec::new();
    let records: Vec<ResultRecordV3> = now
        .variables
        .iter()
        .cloned()
        .map(ResultRecordV3::Variable)
        .chain(now.stacks.iter().map(|st| {
            ResultRecordV3::Stack(StackRecordV3 {
                process: st.process,
                frames: now.frames_of(st).cloned().collect(),
                samples: st.samples.clone(),
            })
        }))
        .collect();
    for r in &records {
        bincode1::DefaultOptions::new()
            .with_varint_encoding()
            .with_little_endian()
            .serialize_into(&mut payload, r)
            .unwrap();
    }
    w.write_chunk(&payload, records.len() as u32).unwrap();
    w.write_end().unwrap();
    let old = Results::read_bytes(&w.into_inner()).unwrap();
    assert_eq!(old.header.provenance, None);
    assert!(old.header.damage.is_empty());
    assert!(old.header.processes.iter().all(|p| p.lost == 0));
    assert_eq!(old.header.processes.len(), now.header.processes.len());
    assert_eq!(old.variables, now.variables);
    assert_eq!(old.stacks.len(), now.stacks.len());
    for (a, b) in old.stacks.iter().zip(&now.stacks) {
        assert_eq!(a.process, b.process);
        assert_eq!(a.samples, b.samples);
        assert!(old.frames_of(a).eq(now.frames_of(b)));
    }
    // Version 1 and anything newer than this build are refused, with what to do.
    let dir = tempfile::tempdir().unwrap();
    now.write(dir.path().join("r.bres")).unwrap();
    let mut bytes = std::fs::read(dir.path().join("r.bres")).unwrap();
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    let e = Results::read_bytes(&bytes).unwrap_err().to_string();
    assert!(
        e.contains("version 1 is not supported") && e.contains("matching blame release"),
        "{e}"
    );
}

/// Results of version 3 (every frame and every context's whole key in its
/// record) are read into the version 4 layout: the same stacks and
/// contexts, frames and keys stored once; a context key without a variable
/// record gets one with no values.
#[test]
fn results_of_version_3_are_read_with_frames_and_keys_interned() {
    use bincode1::Options;
    use blame_formats::container::{ContainerWriter, Kind};
    use blame_formats::results::{ContextBlameV3, ResultRecordV3, StackRecordV3, RESULTS};
    let now = results(40);
    let v3 = Kind {
        version: 3,
        ..RESULTS
    };
    let mut stray = now.variables[0].key.clone();
    stray.name = "not_a_variable_record".into();
    let mut records: Vec<ResultRecordV3> = now
        .variables
        .iter()
        .cloned()
        .map(ResultRecordV3::Variable)
        .chain(now.functions.iter().cloned().map(ResultRecordV3::Function))
        .chain(now.stacks.iter().map(|st| {
            ResultRecordV3::Stack(StackRecordV3 {
                process: st.process,
                frames: now.frames_of(st).cloned().collect(),
                samples: st.samples.clone(),
            })
        }))
        .chain(now.contexts.iter().map(|c| {
            ResultRecordV3::Context(ContextBlameV3 {
                variable: now.context_key(c).clone(),
                process: c.process,
                stack: c.stack,
                samples: c.samples,
            })
        }))
        .collect();
    records.push(ResultRecordV3::Context(ContextBlameV3 {
        variable: stray.clone(),
        process: 0,
        stack: 0,
        samples: 2.0,
    }));
    // The header of versions 3 and 4: version 5's without `summed` (a
    // tuple encodes as the struct of its fields).
    let h = &now.header;
    let processes = processes_v5(&h.processes);
    let provenance = provenance_v5(&h.provenance);
    let header_v3 = (
        &h.producer,
        &h.events,
        &processes,
        &h.shard,
        &h.blame_points,
        &h.coverage,
        &provenance,
        &h.damage,
    );
    let mut w = ContainerWriter::new(Vec::new(), "<v3>", v3, &header_v3).unwrap();
    let mut payload = Vec::new();
    for r in &records {
        bincode1::DefaultOptions::new()
            .with_varint_encoding()
            .with_little_endian()
            .serialize_into(&mut payload, r)
            .unwrap();
    }
    w.write_chunk(&payload, records.len() as u32).unwrap();
    w.write_end().unwrap();
    let bytes = w.into_inner();
    let old = Results::read_bytes(&bytes).unwrap();
    // Converted as read, by the flat and the streaming reads alike.
    assert_flat_reads_the_same(&bytes);
    assert_eq!(old.header, now.header);
    assert_eq!(old.variables[..now.variables.len()], now.variables[..]);
    assert_eq!(old.variables.len(), now.variables.len() + 1);
    assert!(old.variables.last().unwrap().values.is_empty());
    assert_eq!(old.functions, now.functions);
    // Each distinct frame once.
    let mut distinct = old.frames.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), old.frames.len());
    assert_eq!(old.stacks.len(), now.stacks.len());
    for (a, b) in old.stacks.iter().zip(&now.stacks) {
        assert!(old.frames_of(a).eq(now.frames_of(b)));
        assert_eq!((a.process, &a.samples), (b.process, &b.samples));
    }
    assert_eq!(old.contexts.len(), now.contexts.len() + 1);
    for (a, b) in old.contexts.iter().zip(&now.contexts) {
        assert_eq!(old.context_key(a), now.context_key(b));
        assert_eq!(
            (a.process, a.stack, a.samples),
            (b.process, b.stack, b.samples)
        );
    }
    assert_eq!(old.context_key(old.contexts.last().unwrap()), &stray);
    // Written again, it is version 4 and reads back equal.
    let dir = tempfile::tempdir().unwrap();
    old.write(dir.path().join("r.bres")).unwrap();
    assert_eq!(Results::read(dir.path().join("r.bres")).unwrap(), old);
}

/// What bincode 1's serde path (which wrote the files of earlier blame
/// versions) decodes from `payload` as `count` values of `T` and encodes
/// again is `payload` itself: the bytes bincode 2's derives write now are
/// bincode 1's.
fn bincode_1_agrees<T: serde::de::DeserializeOwned + serde::Serialize>(payload: &[u8], count: u32) {
    use bincode1::Options;
    let old = bincode1::DefaultOptions::new()
        .with_varint_encoding()
        .with_little_endian();
    let mut rest = payload;
    let mut again = Vec::new();
    for _ in 0..count {
        let value: T = old.deserialize_from(&mut rest).unwrap();
        old.serialize_into(&mut again, &value).unwrap();
    }
    assert!(
        rest.is_empty(),
        "{} bytes bincode 1 did not read",
        rest.len()
    );
    assert!(again == payload, "bincode 1 writes other bytes");
}

#[test]
fn static_db_and_results_are_bincode_1_bytes() {
    use blame_formats::container::ContainerReader;
    use blame_formats::results::{ResultRecord, RESULTS};
    use blame_formats::static_db::{FunctionSummary, StaticDbHeader, STATIC_DB};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("unit.bsdb");
    static_db(300, 4).write(&db, &db_header()).unwrap();
    let bytes = std::fs::read(&db).unwrap();
    let (mut r, header) =
        ContainerReader::open_header(&bytes[..], &db, STATIC_DB, STATIC_DB.version).unwrap();
    bincode_1_agrees::<StaticDbHeader>(&header.payload, header.record_count);
    while let Some(c) = r.next_chunk().unwrap() {
        bincode_1_agrees::<FunctionSummary>(&c.payload, c.record_count);
    }
    let res = dir.path().join("results.bres");
    results(3000).write(&res).unwrap();
    let bytes = std::fs::read(&res).unwrap();
    let (mut r, _) = ContainerReader::open_header(&bytes[..], &res, RESULTS, 4).unwrap();
    // The process table's chunk (version 9): hosts, commands, then each
    // process as (rank, pid, host, command, launcher).
    let table = r.next_chunk().unwrap().unwrap();
    type Table = (
        Vec<String>,
        Vec<Vec<String>>,
        Vec<(Option<u32>, u32, u32, u32, bool)>,
    );
    bincode_1_agrees::<Table>(&table.payload, table.record_count);
    let mut n = 0;
    while let Some(c) = r.next_chunk().unwrap() {
        bincode_1_agrees::<ResultRecord>(&c.payload, c.record_count);
        n += c.record_count;
    }
    assert!(n > 3000, "{n} records");
}

/// Processes as results versions 3 to 5 wrote them (host and command in
/// every process; a tuple encodes as the struct of its fields).
#[allow(clippy::type_complexity)]
fn processes_v5(
    processes: &[blame_formats::results::ProcessInfo],
) -> Vec<(Option<u32>, u32, String, Vec<String>, bool, Vec<f64>, u64)> {
    processes
        .iter()
        .map(|p| {
            (
                p.rank,
                p.pid,
                p.host.to_string(),
                p.command.to_vec(),
                p.launcher,
                p.samples.clone(),
                p.lost,
            )
        })
        .collect()
}

/// Results of version 5 (summed contexts; host and command in every
/// process) are read as they were written.
#[test]
fn results_of_version_5_are_read() {
    use blame_formats::results::SummedContexts;
    let mut now = results(40);
    now.header.summed = Some(SummedContexts {
        from: vec!["a/results.bres".into()],
    });
    let h = &now.header;
    let processes = processes_v5(&h.processes);
    let provenance = provenance_v5(&h.provenance);
    let header_v5 = (
        &h.producer,
        &h.events,
        &processes,
        &h.shard,
        &h.blame_points,
        &h.coverage,
        &provenance,
        &h.damage,
        &h.summed,
    );
    let bytes = results_file(5, &header_v5, &now);
    assert_eq!(Results::read_bytes(&bytes).unwrap(), now);
    assert_flat_reads_the_same(&bytes);
}

/// The flat reader of merges reads what [`Results::read`] reads, its
/// processes as a table and counts.
fn assert_flat_reads_the_same(bytes: &[u8]) {
    use blame_formats::results_flat::FlatResults;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.bres");
    std::fs::write(&path, bytes).unwrap();
    let whole = Results::read(&path).unwrap();
    let flat = FlatResults::read(&path).unwrap();
    let processes = flat.processes.processes(whole.header.events.len()).unwrap();
    assert_eq!(processes.len(), whole.header.processes.len());
    assert_eq!(flat, FlatResults::from(whole));
    assert_eq!(streamed(&path), flat);
}

/// A file read as a merge reads it, each record dropped once seen
/// (`FlatReader::read_each` without keeping), rebuilt from the records.
fn streamed(path: &std::path::Path) -> blame_formats::results_flat::FlatResults {
    use blame_formats::results_flat::{FlatItem, FlatReader, FlatResults, FlatStacks};
    let (head, reader) = FlatReader::open(path).unwrap();
    let mut out = FlatResults {
        header: head.header,
        processes: head.processes,
        counts: head.counts,
        ..Default::default()
    };
    let mut stacks = FlatStacks::default();
    let scratch = reader
        .read_each(FlatStacks::default(), false, |item| match item {
            FlatItem::Variable { key, values } => out.variables.push(VariableBlame {
                key: key.to_key(),
                values: values.to_vec(),
            }),
            FlatItem::Function { key, values } => out.functions.push(FunctionBlame {
                key: key.to_key(),
                values: values.to_vec(),
            }),
            FlatItem::Frame(f) => out.frames.push(f.to_frame()),
            FlatItem::Path(frames) => drop(stacks.push_path(frames)),
            FlatItem::Stack {
                process,
                path,
                samples,
            } => drop(stacks.push_on_path(process, path, samples)),
            FlatItem::Context(c) => out.contexts.push(c),
        })
        .unwrap();
    // It held one record at a time.
    assert!(scratch.len() <= 1 && scratch.paths() <= 1);
    out.stacks = stacks;
    out
}

/// Version 6 (the processes' counts in the table) is still read.
#[test]
fn results_of_version_6_are_read() {
    let now = results(40);
    let h = &now.header;
    // Each process's own host and command, in order (a table may repeat them).
    let table = (
        h.processes
            .iter()
            .map(|p| p.host.to_string())
            .collect::<Vec<_>>(),
        h.processes
            .iter()
            .map(|p| p.command.to_vec())
            .collect::<Vec<_>>(),
        h.processes
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let i = i as u32;
                (p.rank, p.pid, i, i, p.launcher, p.samples.clone(), p.lost)
            })
            .collect::<Vec<_>>(),
    );
    let bytes = results_file(6, &results_header(h, table), &now);
    assert_eq!(Results::read_bytes(&bytes).unwrap(), now);
    assert_flat_reads_the_same(&bytes);
}

/// Version 7 lists the counts of the processes that counted anything:
/// the others are read back with zero counts, and a result of many
/// processes whose counts are mostly zero is small.
#[test]
fn results_store_only_the_counts_of_processes_that_counted() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = results(3000);
    let one = r.header.processes[0].clone();
    let events = r.header.events.len();
    r.header.processes = (0..4096u32)
        .map(|i| blame_formats::results::ProcessInfo {
            rank: Some(i),
            pid: 1000 + i,
            samples: if i == 7 {
                vec![5.0; events]
            } else {
                vec![0.0; events]
            },
            lost: u64::from(i == 9),
            ..one.clone()
        })
        .collect();
    // A process whose samples are shorter than the events is kept as it is.
    r.header.processes[11].samples.clear();
    let path = dir.path().join("results.bres");
    r.write(&path).unwrap();
    assert_eq!(Results::read(&path).unwrap(), r);
    assert_flat_reads_the_same(&std::fs::read(&path).unwrap());
    let flat = blame_formats::results_flat::FlatResults::read(&path).unwrap();
    let counted: Vec<u32> = flat.counts.iter().map(|c| c.process).collect();
    assert_eq!(counted, [7, 9, 11]);
}

/// Every record kind in several chunks reads flat as it reads whole.
#[test]
fn flat_results_hold_what_results_hold() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.bres");
    results(20000).write(&path).unwrap();
    assert_flat_reads_the_same(&std::fs::read(&path).unwrap());
}

/// Version 6 stores each distinct host and command once: a result of many
/// ranks of one command on a few hosts is not much larger than its counts.
#[test]
fn results_store_each_host_and_command_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = results(10);
    let one = r.header.processes[0].clone();
    r.header.processes = (0..2000u32)
        .map(|i| blame_formats::results::ProcessInfo {
            rank: Some(i),
            pid: 1000 + i,
            host: format!("node{}", i / 64).into(),
            command: vec!["./solver".to_string(), "--long-input-file-name.dat".into()].into(),
            samples: vec![i as f64; one.samples.len()],
            ..one.clone()
        })
        .collect();
    let path = dir.path().join("results.bres");
    r.write(&path).unwrap();
    let back = Results::read(&path).unwrap();
    assert_eq!(back, r);
    // One allocation per host and command, shared by their processes.
    assert!(std::sync::Arc::ptr_eq(
        &back.header.processes[0].command,
        &back.header.processes[1999].command
    ));
    assert!(std::sync::Arc::ptr_eq(
        &back.header.processes[0].host,
        &back.header.processes[63].host
    ));
}

/// Provenance as results versions 3 to 5 wrote it: every input listed (the
/// fixture's inputs, whose identity the fixture's provenance holds).
#[allow(clippy::type_complexity)]
fn provenance_v5(
    p: &Option<blame_formats::results::Provenance>,
) -> Option<(
    Option<blame_formats::results::FileId>,
    Vec<blame_formats::results::FileId>,
    Vec<(String, String)>,
)> {
    p.as_ref().map(|p| {
        assert_eq!(
            p.inputs,
            blame_formats::results::InputsId::of(&fixture_inputs())
        );
        (p.static_db.clone(), fixture_inputs(), p.options.clone())
    })
}
