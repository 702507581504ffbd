//! Damaged files: every truncation and every flipped byte gives a typed
//! error or a clean, correct prefix, never a panic or a wrong answer.

mod common;

use blame_formats::alloc_log::AllocLog;
use blame_formats::container::{ContainerWriter, Kind};
use blame_formats::results::{Results, RESULTS};
use blame_formats::static_db::{StaticDb, STATIC_DB};
use blame_formats::stream::*;
use blame_formats::FormatError;
use common::*;
use std::path::Path;

/// Records in the data chunks that end at or before `cut`.
fn records_before(spans: &[Span], cut: usize) -> u64 {
    spans[1..]
        .iter()
        .filter(|s| s.end <= cut)
        .map(|s| s.records as u64)
        .sum()
}

/// The recovered part of a stream is exactly a prefix of what was written.
fn assert_prefix(s: &Stream, fx: &StreamFixture) {
    assert!(s.samples.len() <= fx.samples.len());
    for (got, want) in s.samples.iter().zip(&fx.samples) {
        assert_eq!((got.tid, got.time_ns, got.weight), (want.0, want.1, want.3));
        assert_eq!(s.frames(got.stack).unwrap(), want.4);
    }
    assert_eq!(s.mappings[..], fx.mappings[..s.mappings.len()]);
}

#[test]
fn stream_cut_at_every_chunk_boundary_is_a_clean_prefix() {
    let fx = stream_fixture(4000, 1024);
    let spans = chunks(&fx.bytes);
    assert!(spans.len() > 20);
    let last = spans.len() - 1; // the end marker
    assert_eq!(spans[last].records, 0);
    for (i, span) in spans.iter().enumerate() {
        let (s, rec) = read_stream_bytes(&fx.bytes[..span.end]).unwrap();
        assert!(rec.stopped_by.is_none(), "cut after chunk {i}");
        assert_eq!(rec.complete, i == last, "cut after chunk {i}");
        assert_eq!(rec.records_recovered, records_before(&spans, span.end));
        assert_prefix(&s, &fx);
        // The strict reader accepts a sampler killed between chunks too.
        if i == last {
            assert_eq!(rec.records_recovered, fx.records);
        }
    }
}

#[test]
fn stream_cut_at_every_byte_of_the_last_chunks_reports_truncation() {
    let fx = stream_fixture(4000, 1024);
    let spans = chunks(&fx.bytes);
    let n = spans.len();
    // The last data chunk and the end marker.
    for span in &spans[n - 2..] {
        for cut in span.start + 1..span.end {
            let (s, rec) = read_stream_bytes(&fx.bytes[..cut]).unwrap();
            match &rec.stopped_by {
                Some(FormatError::Truncated { offset, what, .. }) => {
                    assert_eq!(*offset, span.start as u64, "cut at {cut}");
                    assert!(what.contains("incomplete chunk"), "{what}");
                }
                other => panic!("cut at {cut}: {other:?}"),
            }
            assert!(!rec.complete);
            assert_eq!(rec.records_recovered, records_before(&spans, cut));
            assert_prefix(&s, &fx);
        }
    }
}

#[test]
fn stream_cut_anywhere_never_panics_and_recovers_whole_chunks() {
    let fx = stream_fixture(600, 1024);
    let spans = chunks(&fx.bytes);
    for cut in 0..fx.bytes.len() {
        match read_stream_bytes(&fx.bytes[..cut]) {
            Ok((s, rec)) => {
                assert!(cut >= spans[0].end, "header cut at {cut} was accepted");
                assert_eq!(rec.records_recovered, records_before(&spans, cut));
                assert_prefix(&s, &fx);
                let at_boundary = spans.iter().any(|s| s.end == cut);
                assert_eq!(rec.stopped_by.is_none(), at_boundary, "cut at {cut}");
            }
            Err(e) => {
                assert!(cut < spans[0].end, "cut at {cut}: {e}");
                assert!(e.is_truncation(), "cut at {cut}: {e}");
            }
        }
    }
}

#[test]
fn stream_flipped_bytes_name_the_damage() {
    let fx = stream_fixture(500, 1024);
    let spans = chunks(&fx.bytes);
    assert!(spans.len() > 5);
    let header_end = spans[0].end;
    for pos in 0..fx.bytes.len() {
        // Every byte, with a mask that rotates over all eight bits.
        for mask in [0xffu8, 1 << (pos % 8)] {
            let mut bad = fx.bytes.clone();
            bad[pos] ^= mask;
            let got = read_stream_bytes(&bad);
            match pos {
                0..=7 => assert!(
                    matches!(got, Err(FormatError::WrongMagic { found, .. }) if found[..] == bad[..8]),
                    "{pos}: {got:?}"
                ),
                8..=11 => {
                    let v = u32::from_le_bytes(bad[8..12].try_into().unwrap());
                    assert!(
                        matches!(got, Err(FormatError::UnsupportedVersion { found, supported: 1, .. }) if found == v),
                        "{pos}: {got:?}"
                    )
                }
                // Flags are reserved: version 1 readers ignore them.
                12..=15 => assert!(got.is_ok_and(|(_, r)| r.complete)),
                _ if pos < header_end => assert!(
                    matches!(
                        got,
                        Err(FormatError::CorruptHeader { .. } | FormatError::Truncated { .. })
                    ),
                    "{pos}: {got:?}"
                ),
                _ => {
                    let chunk = spans
                        .iter()
                        .position(|s| s.start <= pos && pos < s.end)
                        .unwrap();
                    let (s, rec) = got.unwrap();
                    match rec.stopped_by {
                        Some(FormatError::CorruptChunk {
                            chunk: c, offset, ..
                        }) => {
                            assert_eq!(c, chunk as u64, "byte {pos}");
                            assert_eq!(offset, spans[chunk].start as u64);
                        }
                        // A length field that grew past the end of the file.
                        Some(FormatError::Truncated { offset, .. }) => {
                            assert_eq!(offset, spans[chunk].start as u64, "byte {pos}")
                        }
                        other => panic!("byte {pos} mask {mask:#x}: {other:?}"),
                    }
                    assert!(!rec.complete);
                    assert_eq!(
                        rec.records_recovered,
                        records_before(&spans, spans[chunk].start)
                    );
                    assert_prefix(&s, &fx);
                }
            }
        }
    }
}

#[test]
fn stream_with_data_after_the_end_marker_is_corrupt() {
    let fx = stream_fixture(10, 1024);
    let mut bad = fx.bytes.clone();
    bad.extend(raw_chunk(&[0], 1));
    let (_, rec) = read_stream_bytes(&bad).unwrap();
    assert!(
        matches!(&rec.stopped_by, Some(FormatError::CorruptChunk { reason, .. }) if reason.contains("after the end marker")),
        "{:?}",
        rec.stopped_by
    );
}

/// Whole-file formats: any cut or flip (outside the reserved flags) is an error.
fn whole_file_damage(bytes: &[u8], read: impl Fn(&[u8]) -> Result<(), FormatError>, stride: usize) {
    read(bytes).unwrap();
    let spans = chunks(bytes);
    assert!(spans.len() >= 3);
    for span in &spans {
        let e = read(&bytes[..span.end]);
        if span.end == bytes.len() {
            assert!(e.is_ok());
        } else {
            assert!(
                matches!(&e, Err(FormatError::Truncated { offset, what, .. }) if *offset == span.end as u64 && what.contains("end marker")),
                "cut at boundary {}: {e:?}",
                span.end
            );
        }
    }
    // Every byte of every chunk header, then a stride through the payloads.
    let mut positions: Vec<usize> = (0..16).collect();
    for s in &spans {
        positions.extend(s.start..s.start + 20);
        positions.extend((s.start + 20..s.end).step_by(stride));
        positions.push(s.end - 1);
    }
    for &pos in &positions {
        let cut = read(&bytes[..pos]);
        assert!(cut.is_err(), "cut at {pos} accepted");
        let mut bad = bytes.to_vec();
        bad[pos] ^= 0x5a;
        let got = read(&bad);
        if (12..16).contains(&pos) {
            assert!(got.is_ok());
            continue;
        }
        let e = got.expect_err("flipped byte accepted");
        let chunk = spans.iter().position(|s| s.start <= pos && pos < s.end);
        match (&e, chunk) {
            (FormatError::WrongMagic { .. }, None) => assert!(pos < 8),
            (FormatError::UnsupportedVersion { .. }, None) => assert!(pos < 12),
            (FormatError::CorruptHeader { .. }, Some(0)) => {}
            (FormatError::CorruptChunk { chunk: c, .. }, Some(i)) => assert_eq!(*c, i as u64),
            (FormatError::Truncated { .. }, Some(_)) => {}
            _ => panic!("byte {pos} (chunk {chunk:?}): {e}"),
        }
    }
}

/// A container with `per_chunk` records per chunk, encoded the way FORMATS.md
/// documents it (bincode, varint, little endian) independently of the writers:
/// by bincode 1's serde path, which wrote every file before blame moved to
/// bincode 2's derives. `head` is the file's preamble and header chunk.
fn rechunk<T: serde::Serialize>(
    head: &[u8],
    kind: Kind,
    records: &[T],
    per_chunk: usize,
) -> Vec<u8> {
    use bincode1::Options;
    let opts = bincode1::DefaultOptions::new()
        .with_varint_encoding()
        .with_little_endian();
    // The writer's own preamble and (empty) header are replaced by `head`.
    let mut w = ContainerWriter::new(Vec::new(), "<t>", kind, &()).unwrap();
    let skip = w.bytes_written() as usize;
    for group in records.chunks(per_chunk) {
        let mut payload = Vec::new();
        for r in group {
            opts.serialize_into(&mut payload, r).unwrap();
        }
        w.write_chunk(&payload, group.len() as u32).unwrap();
    }
    w.write_end().unwrap();
    let mut out = head.to_vec();
    out.extend_from_slice(&w.into_inner()[skip..]);
    out
}

/// The preamble and header chunk of a container file.
fn head_of(file: &[u8]) -> &[u8] {
    let compressed = u32::from_le_bytes(file[20..24].try_into().unwrap()) as usize;
    &file[..16 + 20 + compressed]
}

/// The preamble, header chunk and process table chunk of results of
/// version 9 (what comes before their data chunks).
fn results_head_of(file: &[u8]) -> &[u8] {
    let head = head_of(file).len();
    let compressed = u32::from_le_bytes(file[head + 4..head + 8].try_into().unwrap()) as usize;
    &file[..head + 20 + compressed]
}

/// The preamble and header chunk of `r` as results of `version` 7 or 8
/// (the process table inside the header) lay them out.
fn results_head_v7(r: &Results, version: u32) -> Vec<u8> {
    use blame_formats::results::{ProcessCounts, ProcessTableBytes};
    let h = &r.header;
    let processes = (
        ProcessTableBytes::of(&h.processes),
        ProcessCounts::of(&h.processes, h.events.len()),
    );
    let kind = Kind { version, ..RESULTS };
    ContainerWriter::new(Vec::new(), "<t>", kind, &results_header(h, processes))
        .unwrap()
        .into_inner()
}

#[test]
fn static_db_damage_is_always_an_error() {
    let db = static_db(200, 9);
    let records: Vec<_> = db.functions.values().cloned().collect();
    let head = ContainerWriter::new(Vec::new(), "<t>", STATIC_DB, &db_header())
        .unwrap()
        .into_inner();
    let bytes = rechunk(&head, STATIC_DB, &records, 10);
    assert_eq!(StaticDb::read_bytes(&bytes).unwrap(), (db, db_header()));
    whole_file_damage(&bytes, |b| StaticDb::read_bytes(b).map(|_| ()), 211);
}

#[test]
fn results_damage_is_always_an_error() {
    let r = results(200);
    let records = result_records(&r, RESULTS.version);
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join("results.bres");
    r.write(&written).unwrap();
    let written = std::fs::read(&written).unwrap();
    let bytes = rechunk(results_head_of(&written), RESULTS, &records, 25);
    assert_eq!(Results::read_bytes(&bytes).unwrap(), r);
    whole_file_damage(&bytes, |b| Results::read_bytes(b).map(|_| ()), 211);
}

#[test]
fn small_static_db_every_byte_flipped_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    static_db(3, 1).write(&path, &db_header()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    for pos in (0..bytes.len()).filter(|p| !(12..16).contains(p)) {
        for mask in [1u8, 0x10, 0xff] {
            let mut bad = bytes.clone();
            bad[pos] ^= mask;
            assert!(
                StaticDb::read_bytes(&bad).is_err(),
                "byte {pos} ^ {mask:#x}"
            );
        }
        assert!(StaticDb::read_bytes(&bytes[..pos]).is_err(), "cut at {pos}");
    }
}

/// Encodes a bincode varint the way the container does (u64 > u32::MAX).
fn varint_u64(v: u64) -> Vec<u8> {
    let mut b = vec![253u8];
    b.extend_from_slice(&v.to_le_bytes());
    b
}

#[test]
fn length_fields_claiming_2_pow_60_entries_are_errors_not_allocations() {
    let valid = stream_fixture(1, 1024).bytes;
    // WireRecord::Exec (variant 5) with a command list of 2^60 strings, and
    // with one string of 2^60 bytes; WireRecord::Mapping with a huge path.
    let mut huge_vec = vec![5u8];
    huge_vec.extend(varint_u64(1 << 60));
    huge_vec.extend([1, b'x']);
    let mut huge_string = vec![5u8, 1];
    huge_string.extend(varint_u64(1 << 60));
    huge_string.extend(b"abc");
    let mut huge_path = vec![0u8, 1, 2, 3, 4];
    huge_path.extend(varint_u64(1 << 60));
    for payload in [huge_vec, huge_string, huge_path] {
        let file = with_payload_chunk(&valid, &payload, 1);
        let (_, rec) = read_stream_bytes(&file).unwrap();
        assert!(
            matches!(
                &rec.stopped_by,
                Some(FormatError::CorruptChunk { chunk: 1, .. })
            ),
            "{:?}",
            rec.stopped_by
        );
        assert_eq!(rec.records_recovered, 0);
    }
    // The same in the header: a stream header whose host claims 2^60 bytes.
    let mut header = valid[..16].to_vec();
    let mut payload = varint_u64(1 << 60);
    payload.extend(b"host");
    header.extend(raw_chunk(&payload, 1));
    assert!(matches!(
        read_stream_bytes(&header),
        Err(FormatError::CorruptHeader { .. })
    ));
    // A static db whose function list claims 2^60 variables.
    let dir = tempfile::tempdir().unwrap();
    static_db(1, 1)
        .write(dir.path().join("db"), &db_header())
        .unwrap();
    let db = std::fs::read(dir.path().join("db")).unwrap();
    let mut f = vec![1, b'f', 1, b'f', 1, b'a', 1, 0, 1];
    f.extend(varint_u64(1 << 60));
    let file = with_payload_chunk(&db, &f, 1);
    assert!(matches!(
        StaticDb::read_bytes(&file),
        Err(FormatError::CorruptChunk { chunk: 1, .. })
    ));
}

#[test]
fn chunk_headers_claiming_huge_sizes_or_counts_are_rejected_before_reading() {
    let valid = stream_fixture(1, 1024).bytes;
    let header_end = chunks(&valid)[0].end;
    let chunk_header = |clen: u32, ulen: u32, count: u32| {
        let mut b = valid[..header_end].to_vec();
        b.extend_from_slice(b"CHNK");
        for v in [clen, ulen, count, 0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&[0u8; 64]);
        b
    };
    for (clen, ulen, count, needle) in [
        (u32::MAX, 100, 1, "over the"),
        (10, u32::MAX, 1, "over the"),
        (10, 100, u32::MAX, "records in 100 bytes"),
        (64, 100, 0, "end marker (0 records) with a 100 byte payload"),
        (64, 100, 1, "checksum"),
    ] {
        let (_, rec) = read_stream_bytes(&chunk_header(clen, ulen, count)).unwrap();
        match rec.stopped_by {
            Some(FormatError::CorruptChunk {
                chunk: 1, reason, ..
            }) => {
                assert!(reason.contains(needle), "{reason}")
            }
            other => panic!("{clen} {ulen} {count}: {other:?}"),
        }
    }
    // An end marker (0 records) must have an empty payload.
    let mut b = valid[..header_end].to_vec();
    b.extend(raw_chunk(&[1, 2, 3], 0));
    let (_, rec) = read_stream_bytes(&b).unwrap();
    assert!(
        matches!(&rec.stopped_by, Some(FormatError::CorruptChunk { reason, .. }) if reason.contains("end marker (0 records) with a 3 byte payload")),
        "{:?}",
        rec.stopped_by
    );
    // A valid zstd frame whose size disagrees with the chunk header.
    let mut b = valid[..header_end].to_vec();
    let mut c = raw_chunk(&[0u8; 10], 1);
    c[8..12].copy_from_slice(&(1u32 << 20).to_le_bytes());
    b.extend(c);
    let (_, rec) = read_stream_bytes(&b).unwrap();
    assert!(
        matches!(&rec.stopped_by, Some(FormatError::CorruptChunk { reason, .. }) if reason.contains("zstd frame holds 10 bytes")),
        "{:?}",
        rec.stopped_by
    );
}

#[test]
fn leftover_bytes_in_a_chunk_are_corruption() {
    let valid = stream_fixture(1, 1024).bytes;
    // One Lost record (variant 4: event 0, count 1) and two stray bytes.
    let file = with_payload_chunk(&valid, &[4, 0, 1, 7, 7], 1);
    let (_, rec) = read_stream_bytes(&file).unwrap();
    assert!(
        matches!(&rec.stopped_by, Some(FormatError::CorruptChunk { reason, .. }) if reason.contains("2 bytes left over")),
        "{:?}",
        rec.stopped_by
    );
    let ok = with_payload_chunk(&valid, &[4, 0, 1], 1);
    let (s, rec) = read_stream_bytes(&ok).unwrap();
    assert!(rec.stopped_by.is_none());
    assert_eq!(s.lost, vec![Lost { event: 0, count: 1 }]);
}

#[test]
fn inconsistent_stack_tables_are_errors() {
    let valid = stream_fixture(1, 1024).bytes;
    // Stack node 2 before node 1; a node that is its own parent; a sample
    // referring to an undefined stack.
    for payload in [
        vec![2u8, 2, 0, 5],
        vec![2u8, 1, 1, 5],
        vec![3u8, 1, 0, 0, 1, 9, 0],
    ] {
        let file = with_payload_chunk(&valid, &payload, 1);
        let (_, rec) = read_stream_bytes(&file).unwrap();
        assert!(
            matches!(&rec.stopped_by, Some(FormatError::Invalid { .. })),
            "{payload:?}: {:?}",
            rec.stopped_by
        );
    }
}

#[test]
fn wrong_files_are_named_as_such() {
    let stream = stream_fixture(1, 1024).bytes;
    let e = StaticDb::read_bytes(&stream).unwrap_err();
    assert!(matches!(e, FormatError::WrongMagic { found, .. } if &found == b"BLAMESMP"));
    // A short text file is the wrong file, not a truncated one.
    for short in [&b"hello"[..], b"{\"stack\":[]}", b"\x7fELF\x02\x01\x01"] {
        assert!(matches!(
            read_stream_bytes(short),
            Err(FormatError::WrongMagic { .. })
        ));
    }
    // A real prefix of the magic is a truncation at that byte.
    assert!(matches!(
        read_stream_bytes(b"BLAME"),
        Err(FormatError::Truncated { offset: 5, .. })
    ));
    assert!(matches!(
        read_stream_bytes(b""),
        Err(FormatError::Truncated { offset: 0, .. })
    ));
    let mut v2 = stream.clone();
    v2[8] = 2;
    let e = read_stream_bytes(&v2).unwrap_err();
    assert!(matches!(
        e,
        FormatError::UnsupportedVersion {
            found: 2,
            supported: 1,
            ..
        }
    ));
}

#[test]
fn error_messages_say_what_where_and_what_to_do() {
    let p = || Path::new("run1/rank-0.bstream").to_path_buf();
    let cases = [
        (
            FormatError::WrongMagic {
                path: p(),
                expected: "blame sample stream",
                found: *b"BLAMESDB",
            },
            "run1/rank-0.bstream: not a blame sample stream file (magic bytes [66, 76, 65, 77, 69, 83, 68, 66]); check that you passed the right file",
        ),
        (
            FormatError::UnsupportedVersion {
                path: p(),
                kind: "blame sample stream",
                found: 7,
                supported: 1,
            },
            "run1/rank-0.bstream: blame sample stream format version 7 is not supported (this build reads version 1); use a matching blame release",
        ),
        (
            FormatError::Truncated {
                path: p(),
                offset: 4096,
                what: "incomplete chunk 3 body (10 of 99 bytes present)".into(),
            },
            "run1/rank-0.bstream: truncated at byte 4096: incomplete chunk 3 body (10 of 99 bytes present)",
        ),
        (
            FormatError::CorruptChunk {
                path: p(),
                chunk: 3,
                offset: 4096,
                reason: "checksum mismatch".into(),
            },
            "run1/rank-0.bstream: corrupt chunk 3 at byte 4096: checksum mismatch",
        ),
        (
            FormatError::CorruptHeader {
                path: p(),
                reason: "zstd: not a zstd frame".into(),
            },
            "run1/rank-0.bstream: corrupt header: zstd: not a zstd frame",
        ),
    ];
    for (e, want) in cases {
        assert_eq!(e.to_string(), want);
    }
    // Real errors from the reader carry the file, the byte and the chunk.
    let fx = stream_fixture(300, 1024);
    let spans = chunks(&fx.bytes);
    let mut bad = fx.bytes.clone();
    bad[spans[2].start + 30] ^= 1;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rank-0.bstream");
    std::fs::write(&path, &bad).unwrap();
    let e = read_stream(&path).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}: corrupt chunk 2 at byte {}: checksum mismatch",
            path.display(),
            spans[2].start
        )
    );
    std::fs::write(&path, &fx.bytes[..spans[2].start + 7]).unwrap();
    let e = read_stream(&path).unwrap_err().to_string();
    assert!(
        e.contains(&format!("truncated at byte {}", spans[2].start))
            && e.contains("everything before byte"),
        "{e}"
    );
    let e = blame_formats::static_db::StaticDb::read(dir.path().join("missing")).unwrap_err();
    assert!(e.to_string().contains("missing: I/O error"), "{e}");
}

#[test]
fn alloc_log_cut_anywhere_and_flipped_bytes() {
    let bytes = alloc_log_bytes(40);
    let full = AllocLog::parse(&bytes, Path::new("t")).unwrap();
    for cut in 0..bytes.len() {
        match AllocLog::parse(&bytes[..cut], Path::new("t")) {
            Ok(l) => {
                assert!(cut >= 16);
                assert_eq!(l.events[..], full.events[..l.events.len()]);
            }
            Err(e) => {
                assert!(cut < 16, "cut at {cut}: {e}");
                assert!(e.is_truncation() || matches!(e, FormatError::WrongMagic { .. }));
            }
        }
    }
    for pos in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[pos] ^= 0xff;
        match AllocLog::parse(&bad, Path::new("t")) {
            Ok(l) => assert!(pos >= 12, "byte {pos}: {l:?}"),
            Err(FormatError::WrongMagic { .. }) => assert!(pos < 8),
            Err(FormatError::UnsupportedVersion { found, .. }) => {
                assert!((8..12).contains(&pos));
                assert_ne!(found, 1);
            }
            // Found at the damaged record or, when a length was hit, at a later one.
            Err(FormatError::CorruptChunk { .. }) => assert!(pos >= 16),
            Err(e) => panic!("byte {pos}: {e}"),
        }
    }
    // Length fields claiming huge sizes.
    let mut deep = bytes[..16].to_vec();
    deep.extend(alloc_record(1, 0, 0, 0, 0, &[]));
    deep[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        AllocLog::parse(&deep, Path::new("t")),
        Err(FormatError::CorruptChunk { .. })
    ));
    let mut maps = bytes[..16].to_vec();
    maps.extend(alloc_record(6, 0, 0, 1 << 60, 0, &[]));
    let e = AllocLog::parse(&maps, Path::new("t")).unwrap_err();
    assert!(
        e.to_string()
            .contains("maps line of 1152921504606846976 bytes"),
        "{e}"
    );
}

/// A version-6 process naming a host or command past the header's tables
/// is a corrupt header, never a panic or a process with another's strings.
#[test]
fn results_process_table_indices_past_the_tables_are_errors() {
    let r = results(5);
    let h = &r.header;
    for (host, command) in [(1u32, 0u32), (0, 1), (u32::MAX, 0)] {
        // The version-6 header, laid out as FORMATS.md documents it (a
        // tuple encodes as the struct of its fields): one host, one command.
        let table = (
            vec!["node0".to_string()],
            vec![vec!["./app".to_string()]],
            vec![(Some(0u32), 7u32, host, command, false, vec![1.0f64], 0u64)],
        );
        let bytes = results_file(6, &results_header(h, table), &Results::default());
        match Results::read_bytes(&bytes) {
            Err(FormatError::CorruptHeader { reason, .. }) => {
                assert!(reason.contains("host or command"), "{reason}")
            }
            other => panic!("host {host} command {command}: {other:?}"),
        }
    }
}

/// A version-7 process table whose indices go past its host or command
/// tables, whose bytes do not decode, or counts naming a process the table
/// does not hold: a corrupt header, from every reader.
#[test]
fn results_v7_process_tables_that_contradict_themselves_are_errors() {
    let r = results(5);
    let h = &r.header;
    let identities = |host: u32, command: u32| {
        bincode::encode_to_vec(
            (
                vec!["node0".to_string()],
                vec![vec!["./app".to_string()]],
                vec![(Some(0u32), 7u32, host, command, false)],
            ),
            codec(),
        )
        .unwrap()
    };
    let cases = [
        ("past the hosts", identities(1, 0), 0u32),
        ("past the commands", identities(0, 1), 0),
        ("not a table", vec![0xff; 9], 0),
        ("counts of a process it lacks", identities(0, 0), 1),
    ];
    for (what, bytes, counted) in cases {
        // Laid out as FORMATS.md documents version 7 (a tuple encodes as
        // the struct of its fields): the table as (processes, bytes), then
        // the counts as (process, samples, lost).
        let processes = ((1u64, bytes), vec![(counted, vec![1.0f64], 0u64)]);
        let bytes = results_file(7, &results_header(h, processes), &Results::default());
        match Results::read_bytes(&bytes) {
            Err(FormatError::CorruptHeader { .. }) => {}
            other => panic!("{what}: {other:?}"),
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.bres");
        std::fs::write(&path, &bytes).unwrap();
        match blame_formats::results_flat::FlatResults::read(&path) {
            // The flat reader decodes the table only when it is used.
            Ok(flat) if counted == 0 => assert!(flat.processes.processes(1).is_none(), "{what}"),
            Err(FormatError::CorruptHeader { .. }) => {}
            other => panic!("{what}, read flat: {:?}", other.map(|_| ())),
        }
    }
}

/// Version 8 stacks may name call paths: a stack naming a path not read
/// before it, a path naming a frame not read before it, a path after
/// stacks or a path in an older version is a corrupt chunk, from both
/// readers. Version 7's layout is still read.
#[test]
fn results_call_paths_out_of_place_or_out_of_range_are_errors() {
    use blame_formats::results::{CallPath, PathStack, ResultRecord};
    use blame_formats::results_flat::FlatResults;
    let mut r = results(50);
    // Another process's stack on the first stack's path: a path stored once.
    let mut shared = r.stacks[0].clone();
    shared.process = (shared.process + 1) % 4;
    r.stacks.push(shared);
    let records = result_records(&r, 8);
    assert!(records
        .iter()
        .any(|rec| matches!(rec, ResultRecord::Stack(_))));
    assert!(records
        .iter()
        .any(|rec| matches!(rec, ResultRecord::PathStack(_))));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.bres");
    r.write(&path).unwrap();
    let written = std::fs::read(&path).unwrap();
    let head = results_head_of(&written).to_vec();
    let head_v7 = results_head_v7(&r, 7);
    let read_both = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        (Results::read(&path), FlatResults::read(&path))
    };
    let v7 = Kind {
        version: 7,
        ..RESULTS
    };
    let (whole, flat) = read_both(&rechunk(&head_v7, v7, &result_records(&r, 7), 40));
    assert_eq!(whole.unwrap(), r);
    assert_eq!(flat.unwrap(), FlatResults::from(r.clone()));
    // Version 8: call paths, and the process table inside the header.
    let v8 = Kind {
        version: 8,
        ..RESULTS
    };
    let head_v8 = results_head_v7(&r, 8);
    let (whole, flat) = read_both(&rechunk(&head_v8, v8, &result_records(&r, 8), 40));
    assert_eq!(whole.unwrap(), r);
    assert_eq!(flat.unwrap(), FlatResults::from(r.clone()));

    let with = |extra: ResultRecord| {
        let mut records = result_records(&r, 8);
        records.push(extra);
        rechunk(&head, RESULTS, &records, 40)
    };
    let cases = [
        (
            "a stack naming a path not read",
            with(ResultRecord::PathStack(PathStack {
                process: 0,
                path_step: 9999,
                samples: vec![1.0],
            })),
            "refers to path",
        ),
        (
            "a stack stepping out of the paths' range",
            with(ResultRecord::PathStack(PathStack {
                process: 0,
                path_step: i64::MIN,
                samples: vec![1.0],
            })),
            "a path out of range",
        ),
        (
            "a path naming a frame not read",
            with(ResultRecord::Path(CallPath {
                frames: vec![0, 100_000],
            })),
            "path refers to frame 100000",
        ),
        (
            "a path after the stacks",
            with(ResultRecord::Path(CallPath { frames: vec![0] })),
            "a call path after",
        ),
        (
            "call paths in version 7",
            rechunk(&head_v7, v7, &result_records(&r, 8), 40),
            "older than version 8",
        ),
    ];
    for (what, bytes, says) in cases {
        let (whole, flat) = read_both(&bytes);
        for e in [whole.map(|_| ()), flat.map(|_| ()), streamed(&path)] {
            match e {
                Err(FormatError::CorruptChunk { reason, .. }) => {
                    assert!(reason.contains(says), "{what}: {reason}")
                }
                other => panic!("{what}: {other:?}"),
            }
        }
    }
}

/// Damage that checksums cannot see (a writer's bug, or bytes damaged
/// before they were compressed): records whose bytes are flipped, in a
/// chunk whose checksum is valid. Both readers of results never panic,
/// agree on whether the file is readable, and read the same records when
/// it is.
#[test]
fn results_records_damaged_under_a_valid_checksum_are_read_alike_or_refused() {
    use blame_formats::results_flat::FlatResults;
    let mut r = results(60);
    // Stacks of several processes on shared paths, and frame ids past 250.
    for i in 0..r.stacks.len() {
        let mut shared = r.stacks[i].clone();
        shared.process = (shared.process + 1) % 4;
        r.stacks.push(shared);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.bres");
    r.write(&path).unwrap();
    let head = results_head_of(&std::fs::read(&path).unwrap()).to_vec();
    let records = result_records(&r, RESULTS.version);
    let mut payload = Vec::new();
    for rec in &records {
        payload.extend(bincode::encode_to_vec(rec, codec()).unwrap());
    }
    let file = |payload: &[u8], count: u32| {
        let mut out = head.clone();
        out.extend(raw_chunk(payload, count));
        out.extend(raw_chunk(&[], 0));
        out
    };
    let read_both = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        (Results::read(&path), FlatResults::read(&path))
    };
    let (whole, flat) = read_both(&file(&payload, records.len() as u32));
    assert_eq!(whole.unwrap(), r);
    assert_eq!(flat.unwrap(), FlatResults::from(r.clone()));
    let mut rng = Rng(11);
    let mut refused = 0;
    for round in 0..400 {
        let mut bad = payload.clone();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(bad.len() as u64) as usize;
            bad[at] ^= 1 << rng.below(8);
        }
        let (whole, flat) = read_both(&file(&bad, records.len() as u32));
        // A merge's read, record by record, refuses what the others refuse.
        assert_eq!(
            streamed(&path).is_ok(),
            flat.is_ok(),
            "round {round}: the streaming read disagrees"
        );
        match (whole, flat) {
            (Ok(whole), Ok(flat)) => {
                assert_eq!(flat, FlatResults::from(whole), "round {round}")
            }
            (Err(a), Err(b)) => {
                refused += 1;
                for e in [a, b] {
                    assert!(
                        matches!(e, FormatError::CorruptChunk { .. }),
                        "round {round}: {e}"
                    );
                }
            }
            (whole, flat) => panic!(
                "round {round}: the readers disagree: {:?} against {:?}",
                whole.map(|_| ()),
                flat.map(|_| ())
            ),
        }
    }
    // Flips in counts and names leave readable records; the others must
    // have exercised the refusals (94 of 400 with this seed).
    assert!(refused >= 40, "{refused} of 400 damaged payloads refused");
}

/// Version 9 keeps the process table in the chunk after the header: a
/// file without it, a table chunk of more than one record, or a table
/// damaged under a valid checksum is refused by both readers; results of
/// different tables read in turn on one thread (which remembers the last
/// table it read) each get their own.
#[test]
fn results_process_table_chunks_are_checked_and_told_apart() {
    use blame_formats::results::ProcessTableBytes;
    use blame_formats::results_flat::FlatResults;
    let a = results(20);
    let mut b = results(21);
    for p in &mut b.header.processes {
        p.pid += 1000;
    }
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a.bres"), dir.path().join("b.bres"));
    a.write(&pa).unwrap();
    b.write(&pb).unwrap();
    for _ in 0..2 {
        for (path, r) in [(&pa, &a), (&pb, &b), (&pa, &a)] {
            assert_eq!(&Results::read(path).unwrap(), r);
            let flat = FlatResults::read(path).unwrap();
            assert_eq!(flat.processes, ProcessTableBytes::of(&r.header.processes));
        }
    }
    let written = std::fs::read(&pa).unwrap();
    let head = head_of(&written).to_vec();
    let table = &results_head_of(&written)[head.len()..];
    let records = result_records(&a, RESULTS.version);
    let with_table = |table: &[u8]| {
        let mut out = head.clone();
        out.extend_from_slice(table);
        rechunk(&out, RESULTS, &records, 40)
    };
    let payload = {
        let mut d = zstd::bulk::Decompressor::new().unwrap();
        d.decompress(&table[20..], 1 << 20).unwrap()
    };
    // The number of hosts, past what the table holds.
    let mut flipped = payload.clone();
    flipped[0] ^= 0x40;
    let at = payload.len() / 2;
    let cases = [
        (
            "no table",
            head.iter()
                .copied()
                .chain(raw_chunk(&[], 0))
                .collect::<Vec<u8>>(),
        ),
        (
            "a table of two records",
            with_table(&raw_chunk(&payload, 2)),
        ),
        ("a damaged table", with_table(&raw_chunk(&flipped, 1))),
        (
            "a table cut short",
            with_table(&raw_chunk(&payload[..at], 1)),
        ),
    ];
    for (what, bytes) in cases {
        let path = dir.path().join("bad.bres");
        std::fs::write(&path, &bytes).unwrap();
        let whole = Results::read(&path).map(|_| ());
        assert!(
            matches!(
                whole,
                Err(FormatError::CorruptHeader { .. } | FormatError::CorruptChunk { .. })
            ),
            "{what}: {whole:?}"
        );
        // The flat reader decodes the table only when it is used.
        match FlatResults::read(&path) {
            Ok(flat) => assert!(flat.processes.processes(1).is_none(), "{what}"),
            Err(FormatError::CorruptHeader { .. } | FormatError::CorruptChunk { .. }) => {}
            other => panic!("{what}, read flat: {:?}", other.map(|_| ())),
        }
    }
}

/// A read of `path` as a merge reads it: every record handed on as it
/// is decoded, none kept.
fn streamed(path: &std::path::Path) -> Result<(), FormatError> {
    use blame_formats::results_flat::{FlatReader, FlatStacks};
    let (_, reader) = FlatReader::open(path)?;
    reader
        .read_each(FlatStacks::default(), false, |_item| {})
        .map(drop)
}
