//! Node file: the sample streams of every process one recorder follows
//! (all ranks of a node under one `blame record -- mpirun ...`), in one
//! file, one *section* per process image.
//!
//! ```text
//! file    := preamble header-chunk section-chunk* [end-marker]
//! header  := NodeHeader (host, recorder pid, start time, facts)
//! section-chunk := "CHNK" compressed_len uncompressed_len record_count crc32
//!                  section:u32le seq:u32le kind:u32le zstd-frame
//! ```
//!
//! The container is [`crate::container`]'s; a section chunk stores a
//! 12-byte tag uncompressed in front of its zstd frame (counted in
//! `compressed_len`, covered by the CRC), so a reader learns which process
//! a chunk belongs to from its first 32 bytes and never decompresses the
//! chunks of processes it does not read. `seq` counts a section's chunks
//! from 0; `kind` is 0 for the section's open chunk (one record: the
//! process's [`StreamHeader`]), 1 for records (exactly a stream chunk's:
//! mappings, threads, stack nodes, samples, lost, exec, end) and 2 for the
//! close chunk (one [`SectionClose`]), the section's end marker. The file's
//! own end marker says the recorder closed the file.
//!
//! Readers build a [`NodeIndex`] by walking chunk headers (a positioned read
//! of 32 bytes per chunk, bodies skipped); a header that does not parse is
//! damage, skipped with the container's resynchronisation. A section reader
//! ([`SectionReader`]) then reads only its chunks, checks their CRCs, and
//! tells lost chunks from the gaps in `seq` (and the close chunk's `seq`),
//! whatever bytes they were lost with. A recorder killed mid-run leaves a
//! file whose last chunk may be torn: everything before it is read, and the
//! sections it never closed are "cut".
//!
//! This file holds the layout's constants, the header, the section tags
//! and [`StreamIn`]; its modules hold the rest, one job each: writing a
//! node file and its sections (`writer`), positioned reads (`read_at`), a
//! section chunk's reference and body (`section_chunk`), the index of
//! sections walked from chunk headers (`index`) and reading one section
//! (`section_reader`).

mod index;
mod read_at;
mod section_chunk;
mod section_reader;
mod writer;

pub use index::{NodeIndex, SectionInfo};
pub use read_at::ReadAt;
pub use section_chunk::ChunkRef;
pub use section_reader::SectionReader;
pub use writer::{NodeWriter, SectionSink, SharedNode};

use crate::container::Kind;
use crate::error::Result;
use crate::stream::{ChunkSource, StreamHeader};
use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const NODE: Kind = Kind {
    name: "blame node file",
    magic: *b"BLAMENOD",
    version: 1,
};

/// File name extension of node files.
pub const EXTENSION: &str = "bnode";

/// Bytes of the section tag in front of a section chunk's zstd frame.
pub const SECTION_TAG_LEN: usize = 12;

/// A section's first chunk: the process's stream header.
const KIND_OPEN: u32 = 0;
/// Stream records.
const KIND_RECORDS: u32 = 1;
/// The section's last chunk: the writer closed it.
const KIND_CLOSE: u32 = 2;

/// What the recorder writing a node file knew when it created it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct NodeHeader {
    pub host: String,
    pub recorder_pid: u32,
    /// Unix time in nanoseconds when the file was created.
    pub start_time_ns: u64,
    /// Free-form facts (sampler version, kernel...).
    pub extra: Vec<(String, String)>,
}

/// The record of a section's close chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct SectionClose {
    pub records: u64,
    pub samples: u64,
}

fn tag(section: u32, seq: u32, kind: u32) -> [u8; SECTION_TAG_LEN] {
    let mut t = [0u8; SECTION_TAG_LEN];
    t[0..4].copy_from_slice(&section.to_le_bytes());
    t[4..8].copy_from_slice(&seq.to_le_bytes());
    t[8..12].copy_from_slice(&kind.to_le_bytes());
    t
}

fn parse_tag(bytes: &[u8]) -> (u32, u32, u32) {
    let word = |i: usize| u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
    (word(0), word(1), word(2))
}

/// One process's stream: a stream file, or a section of a node file.
#[derive(Clone)]
pub enum StreamIn {
    File(PathBuf),
    /// Section `.1` (an index into the index's sections).
    Section(Arc<NodeIndex>, usize),
}

impl StreamIn {
    /// Every stream of `path`: the file itself, or each readable section
    /// of a node file (with the node file's index, for its damage).
    pub fn all_of(path: &Path) -> Result<(Vec<StreamIn>, Option<Arc<NodeIndex>>)> {
        if !is_node_file(path) {
            return Ok((vec![StreamIn::File(path.to_path_buf())], None));
        }
        let index = Arc::new(NodeIndex::open(path)?);
        let streams = (0..index.sections.len())
            .map(|i| StreamIn::Section(index.clone(), i))
            .collect();
        Ok((streams, Some(index)))
    }

    /// Opens the stream: its chunks and its header. A section whose open
    /// chunk is damaged is the `CorruptHeader` error.
    pub fn open(&self) -> Result<(Box<dyn ChunkSource + Send>, StreamHeader)> {
        match self {
            StreamIn::File(path) => {
                let (reader, header) = crate::stream::StreamReader::open(path)?;
                Ok((Box::new(reader), header))
            }
            StreamIn::Section(index, i) => {
                let reader = index.section_reader(*i)?;
                let header = index.sections[*i]
                    .header
                    .clone()
                    .expect("checked by section_reader");
                Ok((Box::new(reader), header))
            }
        }
    }

    /// The file, or `FILE#rank-N` for a section.
    pub fn path(&self) -> PathBuf {
        match self {
            StreamIn::File(path) => path.clone(),
            StreamIn::Section(index, i) => index.section_path(*i),
        }
    }
}

/// True when `path` names a node file (by its extension).
pub fn is_node_file(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == EXTENSION)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::stream::{salvage_from, EventDesc, Lost, Sampling, Stream, StreamWriter};

    /// A stream header of one cpu-clock event (also the stream tests').
    pub(crate) fn header(pid: u32, rank: Option<u32>) -> StreamHeader {
        StreamHeader {
            host: "h".into(),
            command: vec!["./app".into()],
            pid,
            ppid: 1,
            rank,
            world_size: rank.map(|_| 3),
            events: vec![EventDesc {
                name: "cpu-clock".into(),
                sampling: Sampling::Frequency(1000),
                unit: "ns".into(),
                memory: false,
            }],
            call_graph: "fp".into(),
            start_time_ns: 1,
            extra: vec![],
        }
    }

    fn node_header() -> NodeHeader {
        NodeHeader {
            host: "h".into(),
            recorder_pid: 1,
            start_time_ns: 2,
            extra: vec![],
        }
    }

    /// Three ranks' sections interleaved chunk by chunk in one file; the
    /// first two closed. `finish`: the file's end marker too.
    fn write_node(path: &Path, n: u64, finish: bool) {
        let node = NodeWriter::create(path, &node_header()).unwrap();
        let mut writers: Vec<StreamWriter> = (0..3)
            .map(|r| {
                NodeWriter::open_section(&node, &header(100 + r, Some(r)))
                    .unwrap()
                    .with_chunk_bytes(1024)
            })
            .collect();
        for i in 0..n {
            for (r, w) in writers.iter_mut().enumerate() {
                let leaf = 0x1000 + (i % 40) * 16 + r as u64;
                w.write_sample_with_stack(100 + r as u32, i * 1000, 0, 1, &[leaf, 0x2000], None)
                    .unwrap();
            }
        }
        writers[0].write_lost(Lost { event: 0, count: 4 }).unwrap();
        let mut writers = writers.into_iter();
        writers.next().unwrap().close().unwrap();
        writers.next().unwrap().close().unwrap();
        let mut last = writers.next().unwrap();
        last.flush().unwrap();
        if finish {
            NodeWriter::finish(&node).unwrap();
        } else {
            NodeWriter::flush(&node).unwrap();
        }
    }

    fn sections(bytes: &[u8]) -> (NodeIndex, Vec<(Stream, crate::stream::Salvage)>) {
        let index = NodeIndex::scan(&bytes, "n.bnode").unwrap();
        let read = (0..index.sections.len())
            .map(|i| {
                let r = index.section_reader_in(bytes, i).unwrap();
                salvage_from(r, index.sections[i].header.clone().unwrap()).unwrap()
            })
            .collect();
        (index, read)
    }

    #[test]
    fn sections_round_trip_and_say_whether_they_were_closed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.bnode");
        write_node(&path, 2000, true);
        let bytes = std::fs::read(&path).unwrap();
        let (index, read) = sections(&bytes);
        assert!(index.complete && index.damage.is_empty() && index.torn_at.is_none());
        assert_eq!(
            index.sections.iter().map(|s| s.label()).collect::<Vec<_>>(),
            ["rank-0", "rank-1", "rank-2"]
        );
        for (r, (stream, salvage)) in read.iter().enumerate() {
            assert_eq!(stream.samples.len(), 2000);
            assert_eq!(stream.header().pid, 100 + r as u32);
            assert!(salvage.skipped.is_empty(), "{}", salvage.describe());
            assert_eq!(salvage.complete, r < 2, "{r}: {}", salvage.describe());
            // Every sample's stack resolves to its own rank's frames.
            let f = stream.frames(stream.samples[5].stack).unwrap();
            assert_eq!(f, [0x1000 + 5 * 16 + r as u64, 0x2000]);
        }
        assert_eq!(read[0].0.lost[0].count, 4);
        // Times are absolute again, across chunks.
        assert_eq!(read[1].0.samples[1999].time_ns, 1999 * 1000);
        assert!(index.sections[0].closed() && !index.sections[2].closed());
    }

    /// A recorder killed mid-write: the file ends in a torn chunk; every
    /// whole chunk before it is read, and open sections are cut.
    #[test]
    fn a_torn_tail_keeps_every_whole_chunk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.bnode");
        write_node(&path, 2000, false);
        let whole = std::fs::read(&path).unwrap();
        let cut = &whole[..whole.len() - 7];
        let (index, read) = sections(cut);
        assert!(!index.complete);
        assert!(index.torn_at.is_some(), "{}", index.describe());
        let (_, salvage) = &read[2];
        assert!(
            !salvage.complete && salvage.torn_at.is_some(),
            "{}",
            salvage.describe()
        );
        assert!(
            read[2].0.samples.len() > 1500,
            "{}",
            read[2].0.samples.len()
        );
        assert_eq!(read[0].0.samples.len(), 2000, "closed sections are whole");
    }

    /// One flipped byte in a chunk of one section: that chunk is lost, the
    /// other sections are whole.
    #[test]
    fn damage_in_one_section_loses_only_that_chunk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.bnode");
        write_node(&path, 2000, true);
        let mut bytes = std::fs::read(&path).unwrap();
        let index = NodeIndex::scan(&bytes.as_slice(), "n.bnode").unwrap();
        let victim = index.sections[1].chunks[index.sections[1].chunks.len() / 2];
        bytes[victim.offset as usize + 40] ^= 0x40;
        let (index, read) = sections(&bytes);
        assert!(index.damage.is_empty(), "the walk does not check bodies");
        for (i, (stream, salvage)) in read.iter().enumerate() {
            if i == 1 {
                assert_eq!(salvage.skipped.len(), 1, "{}", salvage.describe());
                assert!(salvage.describe().contains("checksum mismatch"));
                assert!(stream.samples.len() < 2000 && stream.samples.len() > 1800);
            } else {
                assert!(salvage.skipped.is_empty(), "{i}: {}", salvage.describe());
                assert_eq!(stream.samples.len(), 2000);
            }
        }
        // A damaged chunk header: the walk resynchronises, and the section
        // that owned the chunk finds it missing from its sequence numbers.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[victim.offset as usize] ^= 0x01;
        let (index, read) = sections(&bytes);
        assert_eq!(index.damage.len(), 1, "{}", index.describe());
        let d = read[1].1.describe();
        assert!(d.contains("are missing"), "{d}");
        assert!(read[0].1.skipped.is_empty() && read[2].1.skipped.is_empty());
    }

    #[test]
    fn garbage_is_an_error_or_damage_never_a_panic() {
        assert!(NodeIndex::scan(&&b"BLAMENOD"[..], "x").is_err());
        assert!(NodeIndex::scan(&&b"BLAMESMP\x01\0\0\0\x01\0\0\0"[..], "x").is_err());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.bnode");
        write_node(&path, 50, true);
        let bytes = std::fs::read(&path).unwrap();
        for cut in (0..bytes.len()).step_by(7) {
            let b = &bytes[..cut];
            if let Ok(index) = NodeIndex::scan(&b, "x") {
                for i in 0..index.sections.len() {
                    if let (Ok(r), Some(h)) = (
                        index.section_reader_in(b, i),
                        index.sections[i].header.clone(),
                    ) {
                        let _ = salvage_from(r, h);
                    }
                }
            }
        }
    }
}
