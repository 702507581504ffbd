//! Salvaging reads of damaged sample streams: a damaged chunk anywhere is
//! skipped and everything else is kept; a cut is reported at its byte.

mod common;

use blame_formats::container::{ContainerReader, FLAG_END_MARKER};
use blame_formats::stream::*;
use blame_formats::FormatError;
use common::*;

/// Samples of each chunk of a well-formed stream, header chunk first.
fn samples_per_chunk(bytes: &[u8]) -> Vec<usize> {
    let (mut r, _): (_, StreamHeader) = ContainerReader::open(bytes, "<memory>", STREAM).unwrap();
    let mut out = vec![0];
    while let Some(c) = r.next_raw_chunk().unwrap() {
        let records = decode_chunk(c, std::path::Path::new("<memory>")).unwrap();
        out.push(
            records
                .iter()
                .filter(|r| matches!(r, Record::Sample(_)))
                .count(),
        );
    }
    out
}

/// Every salvaged sample is a written one, in order, with its whole stack.
fn assert_subsequence(s: &Stream, fx: &StreamFixture) {
    let mut written = fx.samples.iter();
    for got in &s.samples {
        let frames = s.frames(got.stack).unwrap();
        assert!(
            written.any(|w| (w.0, w.1, w.3) == (got.tid, got.time_ns, got.weight) && w.4 == frames),
            "sample at {} is not one written, or out of order",
            got.time_ns
        );
    }
}

#[test]
fn a_flipped_bit_in_a_middle_chunk_loses_that_chunk_only() {
    let fx = stream_fixture(3000, 1024);
    let spans = chunks(&fx.bytes);
    let per_chunk = samples_per_chunk(&fx.bytes);
    assert!(spans.len() > 20);
    let damaged = spans.len() / 2;
    let span = spans[damaged];
    // Every byte of the chunk, one rotating bit each: header fields and body.
    for pos in span.start..span.end {
        let mut bad = fx.bytes.clone();
        bad[pos] ^= 1 << (pos % 8);
        let (s, rec) = salvage_stream_bytes(&bad).unwrap();
        assert!(rec.complete, "byte {pos}: the end marker was found again");
        assert!(
            rec.torn_at.is_none() && rec.stopped_by.is_none(),
            "byte {pos}"
        );
        assert_eq!(rec.skipped.len(), 1, "byte {pos}: {:?}", rec.skipped);
        let skip = &rec.skipped[0];
        assert_eq!(skip.offset, span.start as u64, "byte {pos}");
        assert_eq!(skip.resumed_at, Some(span.end as u64), "byte {pos}");
        assert_eq!(
            rec.records_recovered,
            fx.records - span.records as u64,
            "byte {pos}"
        );
        // Samples of the other chunks are kept, except those whose stacks
        // were first defined in the lost chunk.
        assert_eq!(
            s.samples.len() as u64 + rec.samples_dropped,
            (fx.samples.len() - per_chunk[damaged]) as u64,
            "byte {pos}"
        );
        assert!(
            s.samples.len() > fx.samples.len() * 8 / 10,
            "byte {pos}: {} of {} samples kept",
            s.samples.len(),
            fx.samples.len()
        );
        assert_subsequence(&s, &fx);
        assert_eq!(s.mappings, fx.mappings);
        assert_eq!(s.end.as_ref(), Some(&fx.end));
        let text = rec.describe();
        assert!(
            text.starts_with("complete")
                && text.contains(&format!("damaged bytes {}..", span.start)),
            "{text}"
        );
    }
}

#[test]
fn several_damaged_chunks_are_each_skipped() {
    let fx = stream_fixture(3000, 1024);
    let spans = chunks(&fx.bytes);
    let mut bad = fx.bytes.clone();
    let hit = [3, 9, 10, spans.len() - 2];
    for &i in &hit {
        bad[spans[i].start + 25] ^= 0x40;
    }
    let (s, rec) = salvage_stream_bytes(&bad).unwrap();
    assert!(rec.complete);
    // Chunks 9 and 10 are adjacent: one stretch, from 9 to where 11 starts.
    let got: Vec<(u64, Option<u64>)> = rec
        .skipped
        .iter()
        .map(|k| (k.offset, k.resumed_at))
        .collect();
    let span = |i: usize| (spans[i].start as u64, Some(spans[i].end as u64));
    assert_eq!(
        got,
        vec![
            span(3),
            (spans[9].start as u64, Some(spans[10].end as u64)),
            span(spans.len() - 2)
        ]
    );
    let lost: u64 = hit.iter().map(|&i| spans[i].records as u64).sum();
    assert_eq!(rec.records_recovered, fx.records - lost);
    assert_subsequence(&s, &fx);
}

#[test]
fn a_cut_is_reported_at_its_byte_and_the_end_marker_says_complete() {
    let fx = stream_fixture(1000, 1024);
    let spans = chunks(&fx.bytes);
    let (_, whole) = salvage_stream_bytes(&fx.bytes).unwrap();
    assert!(whole.is_whole() && whole.end_marker_expected);
    assert_eq!(whole.describe(), "complete");
    // Between chunks: everything read, no end marker.
    let at = spans[spans.len() / 2].end;
    let (_, rec) = salvage_stream_bytes(&fx.bytes[..at]).unwrap();
    assert!(!rec.complete && rec.skipped.is_empty());
    assert_eq!(rec.cut_at(), Some(at as u64));
    assert!(
        rec.describe().starts_with(&format!("cut at byte {at} ")),
        "{}",
        rec.describe()
    );
    // Inside a chunk: the intact part ends where that chunk starts.
    let span = spans[spans.len() / 3];
    let (_, rec) = salvage_stream_bytes(&fx.bytes[..span.start + 30]).unwrap();
    assert_eq!(rec.cut_at(), Some(span.start as u64));
    assert!(rec.skipped.is_empty(), "{:?}", rec.skipped);
}

#[test]
fn empty_and_header_less_streams_are_errors_naming_the_cut() {
    for n in [0, 10, 16, 30] {
        let e = salvage_stream_bytes(&FX_HEAD.with(|b| b[..n].to_vec())).unwrap_err();
        assert!(matches!(e, FormatError::Truncated { .. }), "{n} bytes: {e}");
    }
}

thread_local! {
    static FX_HEAD: Vec<u8> = stream_fixture(10, 1024).bytes;
}

#[test]
fn streams_of_writers_without_end_markers_are_not_called_cut() {
    let fx = stream_fixture(100, 1024);
    let spans = chunks(&fx.bytes);
    // A blame 0.1 stream: flags 0, no end marker.
    let mut old = fx.bytes[..spans[spans.len() - 2].end].to_vec();
    assert_eq!(
        u32::from_le_bytes(old[12..16].try_into().unwrap()),
        FLAG_END_MARKER
    );
    old[12..16].copy_from_slice(&0u32.to_le_bytes());
    let (s, rec) = salvage_stream_bytes(&old).unwrap();
    assert_eq!(s.samples.len(), fx.samples.len());
    assert!(!rec.complete && !rec.end_marker_expected);
    assert!(
        rec.describe().contains("without an end marker"),
        "{}",
        rec.describe()
    );
}
