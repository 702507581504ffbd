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

use crate::container::{
    encode_into, ChunkHeader, ContainerReader, ContainerWriter, Kind, RawChunk, Salvaged, Skipped,
    CHUNK_HEADER_LEN,
};
use crate::error::{FormatError, Result};
use crate::stream::{decode_or_skip, ChunkSource, Item, Pending, StreamHeader, StreamWriter};
use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

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

/// Writes a node file. Shared by the sections' writers ([`SharedNode`]):
/// each sealed chunk of a section is one write of the file, so sections
/// interleave chunk by chunk.
pub struct NodeWriter {
    container: ContainerWriter<BufWriter<File>>,
    path: PathBuf,
    next_section: u32,
}

/// A node file shared by the writers of its sections.
pub type SharedNode = Arc<Mutex<NodeWriter>>;

fn lock(node: &SharedNode) -> MutexGuard<'_, NodeWriter> {
    // A writer that panicked left whole chunks or a torn one: readers cope.
    node.lock().unwrap_or_else(|e| e.into_inner())
}

impl NodeWriter {
    /// Creates `path` (failing if it exists: never clobbers another
    /// recorder's file, never follows a symlink) and writes its preamble and
    /// header through to the file.
    pub fn create(path: impl AsRef<Path>, header: &NodeHeader) -> Result<SharedNode> {
        let path = path.as_ref();
        let file = crate::files::create_new(path).map_err(|e| FormatError::io(path, e))?;
        let mut container = ContainerWriter::new(BufWriter::new(file), path, NODE, header)?;
        container.flush()?;
        Ok(Arc::new(Mutex::new(NodeWriter {
            container,
            path: path.to_path_buf(),
            next_section: 0,
        })))
    }

    /// Starts the section of one process image: its open chunk is written
    /// through to the file, and the returned writer's chunks go to this file.
    pub fn open_section(node: &SharedNode, header: &StreamHeader) -> Result<StreamWriter> {
        let (section, label) = {
            let mut w = lock(node);
            let section = w.next_section;
            w.next_section += 1;
            (section, format!("{}#{section}", w.path.display()))
        };
        let mut sink = SectionSink {
            node: node.clone(),
            section,
            seq: 0,
            bytes: 0,
            label,
        };
        let mut payload = Vec::new();
        encode_into(&mut payload, header)?;
        sink.write(KIND_OPEN, &payload, 1)?;
        crate::stream::SectionOut::flush(&mut sink)?;
        Ok(StreamWriter::for_section(sink))
    }

    /// Appends the file's end marker (every section should be closed
    /// first) and flushes: readers know the recorder closed the file.
    pub fn finish(node: &SharedNode) -> Result<()> {
        let mut w = lock(node);
        w.container.write_end()?;
        w.container.flush()
    }

    /// Flushes the file's buffered chunks to the operating system.
    pub fn flush(node: &SharedNode) -> Result<()> {
        lock(node).container.flush()
    }

    pub fn path(node: &SharedNode) -> PathBuf {
        lock(node).path.clone()
    }

    /// Sections opened so far.
    pub fn sections(node: &SharedNode) -> u32 {
        lock(node).next_section
    }

    pub fn bytes_written(node: &SharedNode) -> u64 {
        lock(node).container.bytes_written()
    }
}

/// Where the chunks of one section go: the shared node file.
pub struct SectionSink {
    node: SharedNode,
    section: u32,
    seq: u32,
    bytes: u64,
    label: String,
}

impl SectionSink {
    fn write(&mut self, kind: u32, payload: &[u8], count: u32) -> Result<()> {
        let mut w = lock(&self.node);
        let before = w.container.bytes_written();
        let r =
            w.container
                .write_chunk_prefixed(&tag(self.section, self.seq, kind), payload, count);
        self.bytes += w.container.bytes_written() - before;
        // A failed write may have left part of the chunk: the seq moves on
        // all the same, so readers see the chunk as lost, not as reordered.
        self.seq += 1;
        r
    }
}

impl crate::stream::SectionOut for SectionSink {
    fn write_records(&mut self, payload: &[u8], count: u32) -> Result<()> {
        self.write(KIND_RECORDS, payload, count)
    }

    fn flush(&mut self) -> Result<()> {
        lock(&self.node).container.flush()
    }

    fn close(mut self: Box<Self>, records: u64, samples: u64) -> Result<()> {
        let mut payload = Vec::new();
        encode_into(&mut payload, &SectionClose { records, samples })?;
        self.write(KIND_CLOSE, &payload, 1)?;
        self.flush()
    }

    fn bytes_written(&self) -> u64 {
        self.bytes
    }

    fn section(&self) -> u32 {
        self.section
    }

    fn label(&self) -> String {
        self.label.clone()
    }
}

/// Positioned reads: a file, or bytes in memory (tests, fuzzing).
pub trait ReadAt {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize>;
    fn size(&self) -> std::io::Result<u64>;
}

impl ReadAt for File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(self, buf, offset)
    }
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

impl ReadAt for &[u8] {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        let start = (offset as usize).min(self.len());
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.len() as u64)
    }
}

/// Fills `buf` from `offset` as far as the input goes; the bytes read.
fn read_full_at<R: ReadAt>(src: &R, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match src.read_at(&mut buf[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Sequential reads from a position of a [`ReadAt`].
struct ReadFrom<'a, R> {
    src: &'a R,
    pos: u64,
}

impl<R: ReadAt> Read for ReadFrom<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.src.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// One chunk of a section, as its header and tag say (body not yet read).
#[derive(Debug, Clone, Copy)]
pub struct ChunkRef {
    pub offset: u64,
    pub header: ChunkHeader,
    pub seq: u32,
    kind: u32,
}

impl ChunkRef {
    /// Byte offset just past the chunk.
    pub fn end(&self) -> u64 {
        self.offset + CHUNK_HEADER_LEN + self.header.clen as u64
    }
}

/// One process image's section of a node file.
#[derive(Debug, Clone)]
pub struct SectionInfo {
    pub section: u32,
    /// The process's stream header; `None` when its open chunk is damaged
    /// (the section's records cannot be read without it).
    pub header: Option<StreamHeader>,
    /// The section's chunks after its open chunk, in file order.
    pub chunks: Vec<ChunkRef>,
}

impl SectionInfo {
    /// `rank-N` for an MPI rank, else `pid-N`: what a stream file of this
    /// process would have been named.
    pub fn label(&self) -> String {
        match &self.header {
            Some(h) => match h.rank {
                Some(r) => format!("rank-{r}"),
                None => format!("pid-{}", h.pid),
            },
            None => format!("section-{}", self.section),
        }
    }

    /// The close chunk is present (not checked for damage).
    pub fn closed(&self) -> bool {
        self.chunks.last().is_some_and(|c| c.kind == KIND_CLOSE)
    }

    /// Bytes of the section's chunks after its open chunk.
    pub fn bytes(&self) -> u64 {
        self.chunks
            .iter()
            .map(|c| CHUNK_HEADER_LEN + c.header.clen as u64)
            .sum()
    }
}

/// Where every section of a node file is, found by walking chunk headers.
#[derive(Debug)]
pub struct NodeIndex {
    pub path: PathBuf,
    pub header: NodeHeader,
    /// In the order the recorder opened them.
    pub sections: Vec<SectionInfo>,
    /// Damaged stretches the walk skipped (their sections, unknown here,
    /// see the gaps when they read their chunks).
    pub damage: Vec<Skipped>,
    /// A torn last chunk: where the intact part of the file ends, and why.
    pub torn_at: Option<(u64, String)>,
    /// The file ends with its end marker: the recorder closed it.
    pub complete: bool,
    /// The file's length when it was walked.
    pub bytes: u64,
}

impl NodeIndex {
    /// Walks the node file at `path`. Only a damaged preamble or header
    /// chunk is an error; other damage is listed in the index.
    pub fn open(path: impl AsRef<Path>) -> Result<NodeIndex> {
        let path = path.as_ref();
        let file = crate::files::open_regular(path).map_err(|e| FormatError::io(path, e))?;
        Self::scan(&file, path)
    }

    /// [`Self::open`] over any positioned input.
    pub fn scan<R: ReadAt>(src: &R, path: impl Into<PathBuf>) -> Result<NodeIndex> {
        let path = path.into();
        let size = src.size().map_err(|e| FormatError::io(&path, e))?;
        let (reader, chunk) = ContainerReader::open_header(
            BufReader::new(ReadFrom { src, pos: 0 }),
            &path,
            NODE,
            NODE.version,
        )?;
        let header: NodeHeader = ContainerReader::<&[u8]>::decode_header(&chunk, &path)?;
        let (version, flags) = (reader.version, reader.flags);
        let mut index = NodeIndex {
            path,
            header,
            sections: Vec::new(),
            damage: Vec::new(),
            torn_at: None,
            complete: false,
            bytes: size,
        };
        let mut by_id: HashMap<u32, usize> = HashMap::new();
        let mut at = reader.offset();
        let mut head = [0u8; CHUNK_HEADER_LEN as usize + SECTION_TAG_LEN];
        while at < size {
            let got =
                read_full_at(src, &mut head, at).map_err(|e| FormatError::io(&index.path, e))?;
            let parsed = (got >= CHUNK_HEADER_LEN as usize)
                .then(|| {
                    ChunkHeader::parse(head[..CHUNK_HEADER_LEN as usize].try_into().expect("20"))
                        .ok()
                })
                .flatten();
            let Some(h) = parsed else {
                match index.resync(src, at, version, flags)? {
                    Some(next) => {
                        at = next;
                        continue;
                    }
                    None => break,
                }
            };
            let end = at + CHUNK_HEADER_LEN + h.clen as u64;
            if h.count == 0 {
                // The end marker: nothing may follow it.
                index.complete = true;
                if end != size {
                    index.damage.push(Skipped {
                        offset: end,
                        resumed_at: None,
                        error: FormatError::CorruptChunk {
                            path: index.path.clone(),
                            chunk: 0,
                            offset: end,
                            reason: "data after the end marker".into(),
                        },
                    });
                }
                break;
            }
            if end > size || (h.clen as usize) < SECTION_TAG_LEN || got < head.len() {
                // Runs past the end (a torn tail, or a damaged length) or
                // too short for a section chunk: the container decides.
                match index.resync(src, at, version, flags)? {
                    Some(next) => {
                        at = next;
                        continue;
                    }
                    None => break,
                }
            }
            let (section, seq, kind) = parse_tag(&head[CHUNK_HEADER_LEN as usize..]);
            let slot = *by_id.entry(section).or_insert_with(|| {
                index.sections.push(SectionInfo {
                    section,
                    header: None,
                    chunks: Vec::new(),
                });
                index.sections.len() - 1
            });
            let chunk = ChunkRef {
                offset: at,
                header: h,
                seq,
                kind,
            };
            if kind == KIND_OPEN && seq == 0 && index.sections[slot].header.is_none() {
                match read_open_chunk(src, &index.path, &chunk) {
                    Ok(header) => index.sections[slot].header = Some(header),
                    Err(skip) => index.damage.push(skip),
                }
            } else {
                index.sections[slot].chunks.push(chunk);
            }
            at = end;
        }
        Ok(index)
    }

    /// Skips the damaged chunk at `at` the way the container's salvaging
    /// reader does; where reading resumes, `None` at the end.
    fn resync<R: ReadAt>(
        &mut self,
        src: &R,
        at: u64,
        version: u32,
        flags: u32,
    ) -> Result<Option<u64>> {
        let mut reader = ContainerReader::resume_at(
            BufReader::new(ReadFrom { src, pos: at }),
            &self.path,
            at,
            version,
            flags,
        );
        match reader.next_raw_chunk_salvaging() {
            Ok(Some(Salvaged::Skipped(skip))) => {
                let next = skip.resumed_at;
                self.damage.push(skip);
                Ok(next)
            }
            Ok(Some(Salvaged::Chunk(_))) => {
                // A whole chunk, but too short to carry a section tag.
                let next = reader.offset();
                self.damage.push(Skipped {
                    offset: at,
                    resumed_at: Some(next),
                    error: FormatError::CorruptChunk {
                        path: self.path.clone(),
                        chunk: 0,
                        offset: at,
                        reason: "a chunk without a section tag".into(),
                    },
                });
                Ok(Some(next))
            }
            Ok(None) => {
                self.complete = reader.saw_end();
                Ok(None)
            }
            Err(FormatError::Truncated { offset, what, .. }) => {
                self.torn_at = Some((offset, what));
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// The reader of section `i` (an index into `sections`), over a new
    /// handle of the file. Fails when the section's header is damaged.
    pub fn section_reader(&self, i: usize) -> Result<SectionReader<File>> {
        let file =
            crate::files::open_regular(&self.path).map_err(|e| FormatError::io(&self.path, e))?;
        self.section_reader_in(file, i)
    }

    /// [`Self::section_reader`] over `src`, the same bytes the index walked.
    pub fn section_reader_in<R: ReadAt>(&self, src: R, i: usize) -> Result<SectionReader<R>> {
        let s = &self.sections[i];
        let label = self.section_path(i);
        if s.header.is_none() {
            return Err(FormatError::CorruptHeader {
                path: label,
                reason: format!(
                    "the open chunk of section {} is damaged: its {} chunks cannot be read",
                    s.section,
                    s.chunks.len()
                ),
            });
        }
        Ok(SectionReader {
            src,
            label,
            chunks: s.chunks.clone(),
            next: 0,
            expected_seq: 1,
            closed: false,
            torn_at: self.torn_at.clone(),
            offset: 0,
            pending: Pending::default(),
        })
    }

    /// `FILE#LABEL`: how messages name section `i`.
    pub fn section_path(&self, i: usize) -> PathBuf {
        let mut p = self.path.clone().into_os_string();
        p.push(format!("#{}", self.sections[i].label()));
        PathBuf::from(p)
    }

    /// One line for users: complete or cut, and the damage the walk skipped.
    pub fn describe(&self) -> String {
        let mut text = if self.complete {
            "complete".to_string()
        } else {
            let cut = self.torn_at.as_ref().map(|t| t.0).unwrap_or(self.bytes);
            format!("cut at byte {cut} (no end marker: the recorder did not close it; everything before byte {cut} is intact)")
        };
        for s in &self.damage {
            match s.resumed_at {
                Some(r) => text.push_str(&format!(
                    "; damaged bytes {}..{r} skipped ({}), read on from byte {r}",
                    s.offset, s.error
                )),
                None => text.push_str(&format!(
                    "; damaged from byte {} to the end, skipped ({})",
                    s.offset, s.error
                )),
            }
        }
        text
    }
}

/// Reads, checks and decodes a section's open chunk.
fn read_open_chunk<R: ReadAt>(
    src: &R,
    path: &Path,
    chunk: &ChunkRef,
) -> std::result::Result<StreamHeader, Skipped> {
    let skipped = |error| Skipped {
        offset: chunk.offset,
        resumed_at: Some(chunk.end()),
        error,
    };
    let raw = read_section_chunk(src, path, chunk).map_err(skipped)?;
    let decoded = raw
        .decompress(path)
        .and_then(|c| ContainerReader::<&[u8]>::decode_header::<StreamHeader>(&c, path));
    decoded.map_err(skipped)
}

/// Reads a section chunk's body, checks its CRC and strips its tag.
fn read_section_chunk<R: ReadAt>(src: &R, path: &Path, chunk: &ChunkRef) -> Result<RawChunk> {
    let mut body = vec![0u8; chunk.header.clen as usize];
    let got = read_full_at(src, &mut body, chunk.offset + CHUNK_HEADER_LEN)
        .map_err(|e| FormatError::io(path, e))?;
    let corrupt = |reason: String| FormatError::CorruptChunk {
        path: path.to_path_buf(),
        chunk: chunk.seq as u64,
        offset: chunk.offset,
        reason,
    };
    if got < body.len() {
        return Err(corrupt(format!(
            "{got} of its {} bytes present: the file is shorter than when it was indexed",
            body.len()
        )));
    }
    // Fuzzing builds skip the checksum so mutated inputs reach the decoders.
    if !cfg!(fuzzing) && crc32fast::hash(&body) != chunk.header.crc {
        return Err(corrupt("checksum mismatch".into()));
    }
    body.drain(..SECTION_TAG_LEN);
    Ok(RawChunk {
        index: chunk.seq as u64,
        offset: chunk.offset,
        record_count: chunk.header.count,
        uncompressed_len: chunk.header.ulen,
        compressed: body,
    })
}

/// Reads one section of a node file: only its chunks, each checked; chunks
/// lost to damage are found by their missing sequence numbers.
pub struct SectionReader<R: ReadAt> {
    src: R,
    label: PathBuf,
    chunks: Vec<ChunkRef>,
    next: usize,
    expected_seq: u32,
    closed: bool,
    /// The file's torn tail, reported once by a section left open.
    torn_at: Option<(u64, String)>,
    offset: u64,
    pending: Pending,
}

impl<R: ReadAt> SectionReader<R> {
    fn lost(&self, from: u32, to: u32, at: u64) -> Skipped {
        Skipped {
            offset: at,
            resumed_at: Some(at),
            error: FormatError::CorruptChunk {
                path: self.label.clone(),
                chunk: from as u64,
                offset: at,
                reason: format!(
                    "chunks {from}..{to} of this process's section are missing (lost with damaged bytes before byte {at})"
                ),
            },
        }
    }
}

impl<R: ReadAt> ChunkSource for SectionReader<R> {
    fn next_chunk_salvaging(&mut self) -> Result<Option<Salvaged>> {
        loop {
            let Some(&chunk) = self.chunks.get(self.next) else {
                if !self.closed {
                    if let Some((offset, what)) = self.torn_at.take() {
                        return Err(FormatError::Truncated {
                            path: self.label.clone(),
                            offset,
                            what,
                        });
                    }
                }
                return Ok(None);
            };
            if chunk.seq > self.expected_seq && !self.closed {
                let skip = self.lost(self.expected_seq, chunk.seq, chunk.offset);
                self.expected_seq = chunk.seq;
                return Ok(Some(Salvaged::Skipped(skip)));
            }
            self.next += 1;
            let raw = read_section_chunk(&self.src, &self.label, &chunk);
            self.offset = chunk.end();
            let skip = |error| {
                Ok(Some(Salvaged::Skipped(Skipped {
                    offset: chunk.offset,
                    resumed_at: Some(chunk.end()),
                    error,
                })))
            };
            let raw = match raw {
                Ok(raw) => raw,
                Err(error @ FormatError::CorruptChunk { .. }) => {
                    // Its tag is not checked either; the one expected next
                    // is most likely right, and then it is not lost twice.
                    if chunk.seq == self.expected_seq {
                        self.expected_seq += 1;
                    }
                    return skip(error);
                }
                Err(e) => return Err(e),
            };
            if self.closed || chunk.seq < self.expected_seq {
                return skip(FormatError::CorruptChunk {
                    path: self.label.clone(),
                    chunk: chunk.seq as u64,
                    offset: chunk.offset,
                    reason: format!(
                        "chunk {} of the section is out of order (after chunk {}{})",
                        chunk.seq,
                        self.expected_seq.saturating_sub(1),
                        if self.closed { ", its close" } else { "" }
                    ),
                });
            }
            self.expected_seq = chunk.seq + 1;
            match chunk.kind {
                KIND_RECORDS => return Ok(Some(Salvaged::Chunk(raw))),
                KIND_CLOSE => self.closed = true,
                other => {
                    return skip(FormatError::CorruptChunk {
                        path: self.label.clone(),
                        chunk: chunk.seq as u64,
                        offset: chunk.offset,
                        reason: format!("unknown section chunk kind {other}"),
                    })
                }
            }
        }
    }

    fn next_item_salvaging(&mut self) -> Result<Option<Item>> {
        loop {
            if let Some(record) = self.pending.next() {
                return Ok(Some(Item::Record(record)));
            }
            let chunk = match self.next_chunk_salvaging()? {
                None => return Ok(None),
                Some(Salvaged::Skipped(skip)) => return Ok(Some(Item::Skipped(skip))),
                Some(Salvaged::Chunk(c)) => c,
            };
            match decode_or_skip(chunk, &self.label, self.offset) {
                Ok(records) => self.pending.load(records),
                Err(skip) => return Ok(Some(Item::Skipped(skip))),
            }
        }
    }

    fn path(&self) -> &Path {
        &self.label
    }

    fn offset(&self) -> u64 {
        self.offset
    }

    fn complete(&self) -> bool {
        self.closed
    }

    fn end_marker_expected(&self) -> bool {
        true
    }

    fn records_read(&self) -> u64 {
        self.pending.records_read()
    }
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
    use crate::stream::{salvage_from, EventDesc, Lost, Sampling, Stream};

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
