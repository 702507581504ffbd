//! Sample stream: one file per profiled process, written by the sampler.
//!
//! Records are appended in chunks (see [`crate::container`]). Stacks are
//! deduplicated into a parent-linked table: each [`StackNode`] is one frame
//! plus the id of the node for its caller, so a sample stores a single id and
//! a stack of depth 20 seen a million times is stored once.

use crate::container::{
    encode_into, ContainerReader, ContainerWriter, Kind, RawChunk, Salvaged, Skipped,
};
use crate::error::{FormatError, Result, StackTableRefused};
use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

pub const STREAM: Kind = Kind {
    name: "blame sample stream",
    magic: *b"BLAMESMP",
    version: 1,
};

/// How an event is sampled: every N occurrences, or N times a second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub enum Sampling {
    Period(u64),
    Frequency(u64),
}

/// One event the sampler recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct EventDesc {
    /// User-facing name, e.g. `cpu-clock`, `cache-misses`, `r01a1`.
    pub name: String,
    pub sampling: Sampling,
    /// What one unit of a sample's weight is: `ns` for clocks, `events` for counters.
    pub unit: String,
    /// True for cache/TLB miss events: post-processing uses the approximate data-centric passes.
    pub memory: bool,
}

/// Everything known about the process when its stream is opened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct StreamHeader {
    pub host: String,
    pub command: Vec<String>,
    pub pid: u32,
    pub ppid: u32,
    /// MPI rank from `OMPI_COMM_WORLD_RANK`, `PMI_RANK` or `SLURM_PROCID`.
    pub rank: Option<u32>,
    pub world_size: Option<u32>,
    pub events: Vec<EventDesc>,
    /// `hybrid`, `dwarf`, `fp` or `ptrace`.
    pub call_graph: String,
    /// Unix time in nanoseconds when sampling of this process began.
    pub start_time_ns: u64,
    /// Free-form facts (sampler version, kernel, paranoid level...).
    pub extra: Vec<(String, String)>,
}

/// Names of processes that launch the application rather than being part of it.
const LAUNCHERS: &[&str] = &[
    "mpirun",
    "mpiexec",
    "mpirun.openmpi",
    "mpiexec.openmpi",
    "mpiexec.hydra",
    "mpirun.mpich",
    "mpiexec.mpich",
    "orterun",
    "prterun",
    "orted",
    "prted",
    "srun",
    "hydra_pmi_proxy",
    "bash",
    "sh",
    "dash",
    "env",
    "blame",
    "time",
];

/// True when `command` runs a launcher (mpirun, a shell, ...) rather than the application.
pub fn is_launcher(command: &[String]) -> bool {
    command
        .first()
        .and_then(|c| Path::new(c).file_name())
        .is_some_and(|name| LAUNCHERS.contains(&name.to_string_lossy().as_ref()))
}

/// Event names that count memory accesses or misses (approximate
/// data-centric mode), with perf's modifiers (`:u`, `/P`): misses, `perf
/// mem` loads and stores (`cpu/mem-loads,ldlat=30/P`), AMD IBS. The one
/// place this is decided, for the recorder's events and perf.data's.
pub fn is_memory_event(name: &str) -> bool {
    let base = name.split(':').next().unwrap_or_default();
    let n = base.to_ascii_lowercase();
    n.contains("miss")
        || n.starts_with("mem-")
        || n.starts_with("mem_")
        || ["mem-loads", "mem-stores", "ibs_op"]
            .iter()
            .any(|m| n.contains(m))
}

/// A file mapped into the process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct Mapping {
    pub pid: u32,
    pub start: u64,
    pub end: u64,
    pub file_offset: u64,
    pub path: String,
    /// GNU build-id of the object, empty when it has none or it could not be read.
    pub build_id: Vec<u8>,
}

/// A thread's name (from PERF_RECORD_COMM or /proc).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct ThreadName {
    pub pid: u32,
    pub tid: u32,
    pub name: String,
}

/// One node of the stack table. The stack of a node is its frame followed by
/// the stack of its parent, so the innermost frame comes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct StackNode {
    /// Ids start at 1; 0 is the empty stack.
    pub id: u32,
    pub parent: u32,
    /// The sampled PC for the innermost frame, a return address for the others.
    pub address: u64,
}

/// One sample. `time_delta_ns` is relative to the previous sample of the same
/// chunk (the first sample of a chunk carries the absolute time), which keeps
/// samples a few bytes each; readers hand out absolute times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub(crate) struct EncodedSample {
    tid: u32,
    time_delta_ns: i64,
    event: u16,
    weight: u64,
    stack: u32,
    data_address: Option<u64>,
}

/// A sample as readers see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub tid: u32,
    /// Nanoseconds, on the clock of `StreamHeader::start_time_ns`'s host (CLOCK_MONOTONIC for perf).
    pub time_ns: u64,
    /// Index into `StreamHeader::events`.
    pub event: u16,
    /// The event count this sample stands for (period, or ns for clocks).
    pub weight: u64,
    pub stack: u32,
    pub data_address: Option<u64>,
}

/// Samples the kernel or the sampler had to drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct Lost {
    pub event: u16,
    pub count: u64,
}

/// The last record of a stream whose process ended while being recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct ProcessEnd {
    /// Exit code, or `128 + signal` when killed.
    pub exit_status: Option<i32>,
    pub signal: Option<i32>,
    pub time_ns: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub(crate) enum WireRecord {
    Mapping(Mapping),
    Thread(ThreadName),
    Stack(StackNode),
    Sample(EncodedSample),
    Lost(Lost),
    Exec { command: Vec<String> },
    End(ProcessEnd),
}

/// What a salvaging read ([`StreamReader::next_item_salvaging`]) hands out.
#[derive(Debug)]
pub enum Item {
    Record(Record),
    Skipped(Skipped),
}

/// A record as readers see it.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    Mapping(Mapping),
    Thread(ThreadName),
    Stack(StackNode),
    Sample(Sample),
    Lost(Lost),
    Exec { command: Vec<String> },
    End(ProcessEnd),
}

/// (parent id, address) keys hashed by FxHash (rustc-hash): the keys come
/// from the profiled program's own code addresses, so the DoS resistance of
/// the default SipHash buys nothing here and costs half the writer's time.
type NodeMap = HashMap<(u32, u64), u32, rustc_hash::FxBuildHasher>;

/// Words of frames the whole-stack cache of [`StackInterner`] may hold (8 MiB).
const STACK_CACHE_WORDS: usize = 1 << 20;

/// Interns stacks (outermost caller last) into parent-linked nodes.
///
/// A cache of whole stacks (hash of all frames → id, frames kept in an arena
/// to confirm the match) answers a repeated stack with one lookup instead of
/// one per frame; it is cleared when it reaches `STACK_CACHE_WORDS`, so its
/// memory is bounded however many distinct stacks a program has.
#[derive(Default)]
pub struct StackInterner {
    nodes: NodeMap,
    next_id: u32,
    /// Hash of a whole stack → (id, start in `arena`, depth).
    whole: HashMap<u64, (u32, u32, u32), rustc_hash::FxBuildHasher>,
    arena: Vec<u64>,
}

fn hash_frames(frames: &[u64]) -> u64 {
    let mut h = (frames.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for &f in frames {
        h = (h.rotate_left(23) ^ f).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h ^ (h >> 31)
}

impl StackInterner {
    /// Returns the id of `frames` (innermost first) and pushes any new nodes to `new_nodes`.
    pub fn intern(&mut self, frames: &[u64], new_nodes: &mut Vec<StackNode>) -> u32 {
        let hash = hash_frames(frames);
        if let Some(&(id, start, len)) = self.whole.get(&hash) {
            let start = start as usize;
            if self.arena.get(start..start + len as usize) == Some(frames) {
                return id;
            }
        }
        let id = self.intern_frames(frames, new_nodes);
        if frames.len() <= STACK_CACHE_WORDS / 16 {
            if self.arena.len() + frames.len() > STACK_CACHE_WORDS {
                self.arena.clear();
                self.whole.clear();
            }
            let start = self.arena.len() as u32;
            self.arena.extend_from_slice(frames);
            self.whole.insert(hash, (id, start, frames.len() as u32));
        }
        id
    }

    /// The frame-by-frame walk: one lookup per frame, from the outermost.
    fn intern_frames(&mut self, frames: &[u64], new_nodes: &mut Vec<StackNode>) -> u32 {
        let mut parent = 0u32;
        for &address in frames.iter().rev() {
            parent = match self.nodes.get(&(parent, address)) {
                Some(&id) => id,
                None => {
                    self.next_id += 1;
                    let id = self.next_id;
                    self.nodes.insert((parent, address), id);
                    new_nodes.push(StackNode {
                        id,
                        parent,
                        address,
                    });
                    id
                }
            };
        }
        parent
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// Appends records to a sample stream, in chunks of about `chunk_bytes`:
/// a stream file of its own, or a process's section of a node file
/// ([`crate::node_file::NodeWriter::open_section`]).
pub struct StreamWriter<W: Write = std::io::BufWriter<File>> {
    sink: Sink<W>,
    buf: Vec<u8>,
    records_in_buf: u32,
    last_time: u64,
    chunk_bytes: usize,
    stacks: StackInterner,
    new_nodes: Vec<StackNode>,
    samples_written: u64,
    records_written: u64,
}

/// Where a [`StreamWriter`]'s chunks go.
enum Sink<W: Write> {
    File(ContainerWriter<W>),
    Section(Box<dyn SectionOut>),
}

/// A section of a file holding several streams (a node file's, whose layer
/// implements it): where a [`StreamWriter`] of that section puts its chunks.
pub(crate) trait SectionOut: Send {
    /// Appends one chunk of `count` records.
    fn write_records(&mut self, payload: &[u8], count: u32) -> Result<()>;
    fn flush(&mut self) -> Result<()>;
    /// Writes the section's close chunk (its totals) and flushes.
    fn close(self: Box<Self>, records: u64, samples: u64) -> Result<()>;
    /// Bytes of this section's chunks written so far.
    fn bytes_written(&self) -> u64;
    fn section(&self) -> u32;
    /// `FILE#SECTION`, for messages.
    fn label(&self) -> String;
}

impl StreamWriter<std::io::BufWriter<File>> {
    /// The writer of a node file's section: its chunks go to `sink`.
    pub(crate) fn for_section(sink: impl SectionOut + 'static) -> Self {
        Self::with_sink(Sink::Section(Box::new(sink)))
    }

    /// Creates `path` (failing if it exists, so concurrent recorders never
    /// clobber each other) and writes its preamble and header through to the
    /// file at once, so a recorder killed right after leaves a readable
    /// stream, not an empty file.
    pub fn create(path: impl AsRef<Path>, header: &StreamHeader) -> Result<Self> {
        let path = path.as_ref();
        let file = crate::files::create_new(path).map_err(|e| FormatError::io(path, e))?;
        let mut w = Self::new(std::io::BufWriter::new(file), path, header)?;
        w.flush()?;
        Ok(w)
    }
}

impl<W: Write> StreamWriter<W> {
    pub fn new(out: W, path: impl Into<PathBuf>, header: &StreamHeader) -> Result<Self> {
        Ok(Self::with_sink(Sink::File(ContainerWriter::new(
            out, path, STREAM, header,
        )?)))
    }

    fn with_sink(sink: Sink<W>) -> Self {
        StreamWriter {
            sink,
            buf: Vec::with_capacity(1 << 18),
            records_in_buf: 0,
            last_time: 0,
            chunk_bytes: 1 << 18,
            stacks: StackInterner::default(),
            new_nodes: Vec::new(),
            samples_written: 0,
            records_written: 0,
        }
    }

    /// Sets the uncompressed size at which a chunk is sealed (the most a crash can lose).
    pub fn with_chunk_bytes(mut self, bytes: usize) -> Self {
        self.chunk_bytes = bytes.clamp(1 << 10, crate::container::MAX_CHUNK_BYTES as usize / 2);
        self
    }

    fn push(&mut self, record: &WireRecord) -> Result<()> {
        encode_into(&mut self.buf, record)?;
        self.records_in_buf += 1;
        self.records_written += 1;
        if self.buf.len() >= self.chunk_bytes {
            self.seal_chunk()?;
        }
        Ok(())
    }

    /// Writes the buffered records as one chunk.
    pub fn seal_chunk(&mut self) -> Result<()> {
        if self.records_in_buf == 0 {
            return Ok(());
        }
        match &mut self.sink {
            Sink::File(c) => c.write_chunk(&self.buf, self.records_in_buf)?,
            Sink::Section(s) => s.write_records(&self.buf, self.records_in_buf)?,
        }
        self.buf.clear();
        self.records_in_buf = 0;
        self.last_time = 0;
        Ok(())
    }

    /// Seals the current chunk and flushes it to the operating system.
    pub fn flush(&mut self) -> Result<()> {
        self.seal_chunk()?;
        match &mut self.sink {
            Sink::File(c) => c.flush(),
            Sink::Section(s) => s.flush(),
        }
    }

    pub fn write_mapping(&mut self, m: Mapping) -> Result<()> {
        self.push(&WireRecord::Mapping(m))
    }

    pub fn write_thread(&mut self, t: ThreadName) -> Result<()> {
        self.push(&WireRecord::Thread(t))
    }

    pub fn write_lost(&mut self, lost: Lost) -> Result<()> {
        self.push(&WireRecord::Lost(lost))
    }

    pub fn write_exec(&mut self, command: Vec<String>) -> Result<()> {
        self.push(&WireRecord::Exec { command })
    }

    pub fn write_end(&mut self, end: ProcessEnd) -> Result<()> {
        self.push(&WireRecord::End(end))
    }

    /// Interns `frames` (innermost first) and returns its stack id, writing new table nodes.
    pub fn intern_stack(&mut self, frames: &[u64]) -> Result<u32> {
        let id = self.stacks.intern(frames, &mut self.new_nodes);
        let nodes = std::mem::take(&mut self.new_nodes);
        for node in &nodes {
            self.push(&WireRecord::Stack(*node))?;
        }
        self.new_nodes = nodes;
        self.new_nodes.clear();
        Ok(id)
    }

    /// Writes a sample whose stack was interned with [`Self::intern_stack`].
    pub fn write_sample(&mut self, s: Sample) -> Result<()> {
        let delta = s.time_ns.wrapping_sub(self.last_time) as i64;
        self.last_time = s.time_ns;
        self.samples_written += 1;
        self.push(&WireRecord::Sample(EncodedSample {
            tid: s.tid,
            time_delta_ns: delta,
            event: s.event,
            weight: s.weight,
            stack: s.stack,
            data_address: s.data_address,
        }))
    }

    /// Interns the stack and writes the sample in one call.
    #[allow(clippy::too_many_arguments)]
    pub fn write_sample_with_stack(
        &mut self,
        tid: u32,
        time_ns: u64,
        event: u16,
        weight: u64,
        frames: &[u64],
        data_address: Option<u64>,
    ) -> Result<()> {
        let stack = self.intern_stack(frames)?;
        self.write_sample(Sample {
            tid,
            time_ns,
            event,
            weight,
            stack,
            data_address,
        })
    }

    pub fn samples_written(&self) -> u64 {
        self.samples_written
    }

    /// The section of the node file this writer writes, if it does.
    pub fn section(&self) -> Option<u32> {
        match &self.sink {
            Sink::File(_) => None,
            Sink::Section(s) => Some(s.section()),
        }
    }

    pub fn records_written(&self) -> u64 {
        self.records_written
    }

    /// Bytes on disk so far (sealed chunks only; a section's own chunks).
    pub fn bytes_written(&self) -> u64 {
        match &self.sink {
            Sink::File(c) => c.bytes_written(),
            Sink::Section(s) => s.bytes_written(),
        }
    }

    /// Seals the last chunk, appends the end marker (so readers know the
    /// stream is complete) and returns the underlying writer, flushed.
    /// A node file's section has no writer of its own: use [`Self::close`].
    pub fn finish(mut self) -> Result<W> {
        self.seal_chunk()?;
        match self.sink {
            Sink::File(mut c) => {
                c.write_end()?;
                c.flush()?;
                Ok(c.into_inner())
            }
            Sink::Section(s) => Err(FormatError::Invalid {
                context: s.label(),
                reason: "a node file's section is closed with `close`, not `finish`".into(),
            }),
        }
    }

    /// Seals the last chunk and marks the stream complete: a stream file
    /// gets its end marker, a node file's section its close chunk. Either
    /// way it is flushed to the operating system.
    pub fn close(mut self) -> Result<()> {
        self.seal_chunk()?;
        match self.sink {
            Sink::File(mut c) => {
                c.write_end()?;
                c.flush()
            }
            Sink::Section(s) => s.close(self.records_written, self.samples_written),
        }
    }
}

/// Reads a sample stream record by record.
pub struct StreamReader<R: Read> {
    container: ContainerReader<R>,
    pending: Pending,
}

/// The decoded records of the chunk being handed out, one by one, with
/// absolute sample times.
#[derive(Default)]
pub(crate) struct Pending {
    records: std::vec::IntoIter<WireRecord>,
    last_time: u64,
    records_read: u64,
}

impl Pending {
    pub(crate) fn next(&mut self) -> Option<Record> {
        let wire = self.records.next()?;
        self.records_read += 1;
        Some(from_wire(wire, &mut self.last_time))
    }

    /// The records of the next chunk (sample times restart in each chunk).
    pub(crate) fn load(&mut self, records: Vec<WireRecord>) {
        self.records = records.into_iter();
        self.last_time = 0;
    }

    pub(crate) fn records_read(&self) -> u64 {
        self.records_read
    }
}

/// Decodes an intact chunk's records; a chunk that does not decompress or
/// decode is a damaged stretch, skipped (reading resumes at `next_offset`).
pub(crate) fn decode_or_skip(
    chunk: RawChunk,
    path: &Path,
    next_offset: u64,
) -> std::result::Result<Vec<WireRecord>, Skipped> {
    let offset = chunk.offset;
    chunk
        .decompress(path)
        .and_then(|c| c.decode::<WireRecord>(path))
        .map_err(|error| Skipped {
            offset,
            resumed_at: Some(next_offset),
            error,
        })
}

/// The chunks of one process's stream, wherever they are stored: a stream
/// file ([`StreamReader`]) or a section of a node file
/// ([`crate::node_file::SectionReader`]). What post-processing, `blame
/// dump` and `blame check` read.
pub trait ChunkSource {
    /// The next intact chunk, undecoded, or the next damaged stretch.
    /// `Ok(None)` at the end; a torn tail is the `Truncated` error.
    fn next_chunk_salvaging(&mut self) -> Result<Option<Salvaged>>;
    /// The next record of an intact chunk, or the next damaged stretch.
    /// Do not mix with `next_chunk_salvaging` on the same source.
    fn next_item_salvaging(&mut self) -> Result<Option<Item>>;
    /// The file (and, for a section, which process in it) for messages.
    fn path(&self) -> &Path;
    /// Byte offset just past the last chunk read.
    fn offset(&self) -> u64;
    /// The writer closed this stream (end marker, or section close).
    fn complete(&self) -> bool;
    /// The writer promised to close it: not closed means cut short.
    fn end_marker_expected(&self) -> bool;
    fn records_read(&self) -> u64;
}

impl<R: Read> ChunkSource for StreamReader<R> {
    fn next_chunk_salvaging(&mut self) -> Result<Option<Salvaged>> {
        StreamReader::next_chunk_salvaging(self)
    }
    fn next_item_salvaging(&mut self) -> Result<Option<Item>> {
        StreamReader::next_item_salvaging(self)
    }
    fn path(&self) -> &Path {
        StreamReader::path(self)
    }
    fn offset(&self) -> u64 {
        StreamReader::offset(self)
    }
    fn complete(&self) -> bool {
        StreamReader::complete(self)
    }
    fn end_marker_expected(&self) -> bool {
        StreamReader::end_marker_expected(self)
    }
    fn records_read(&self) -> u64 {
        StreamReader::records_read(self)
    }
}

impl StreamReader<BufReader<File>> {
    pub fn open(path: impl AsRef<Path>) -> Result<(Self, StreamHeader)> {
        let path = path.as_ref();
        let file = crate::files::open_regular(path).map_err(|e| FormatError::io(path, e))?;
        Self::new(BufReader::new(file), path)
    }
}

impl<R: Read> StreamReader<R> {
    pub fn new(input: R, path: impl Into<PathBuf>) -> Result<(Self, StreamHeader)> {
        let (container, header) = ContainerReader::open(input, path, STREAM)?;
        Ok((
            StreamReader {
                container,
                pending: Pending::default(),
            },
            header,
        ))
    }

    /// The next record, `Ok(None)` at a clean end.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        loop {
            if let Some(record) = self.pending.next() {
                return Ok(Some(record));
            }
            match self.container.next_chunk()? {
                None => return Ok(None),
                Some(chunk) => {
                    // Decode the whole chunk before handing any of it out: a
                    // corrupt chunk yields an error, never half its records.
                    self.pending.load(chunk.decode(self.container.path())?);
                }
            }
        }
    }

    /// The next undecoded chunk, for readers that decode chunks in parallel
    /// with [`decode_chunk`] (chunks are independent). Do not mix with
    /// [`Self::next_record`] on the same reader.
    pub fn next_chunk(&mut self) -> Result<Option<RawChunk>> {
        self.container.next_raw_chunk()
    }

    /// The next record of an intact chunk, or the next damaged stretch,
    /// skipped (a chunk that is corrupt, or intact but does not decode).
    /// `Ok(None)` at the end; a torn tail is the `Truncated` error, after
    /// every record before it. Do not mix with [`Self::next_record`].
    pub fn next_item_salvaging(&mut self) -> Result<Option<Item>> {
        loop {
            if let Some(record) = self.pending.next() {
                return Ok(Some(Item::Record(record)));
            }
            let chunk = match self.container.next_raw_chunk_salvaging()? {
                None => return Ok(None),
                Some(Salvaged::Skipped(skip)) => return Ok(Some(Item::Skipped(skip))),
                Some(Salvaged::Chunk(c)) => c,
            };
            match decode_or_skip(chunk, self.container.path(), self.container.offset()) {
                Ok(records) => self.pending.load(records),
                Err(skip) => return Ok(Some(Item::Skipped(skip))),
            }
        }
    }

    /// [`Self::next_chunk`], skipping damaged chunks (see
    /// [`ContainerReader::next_raw_chunk_salvaging`]).
    pub fn next_chunk_salvaging(&mut self) -> Result<Option<Salvaged>> {
        self.container.next_raw_chunk_salvaging()
    }

    pub fn path(&self) -> &Path {
        self.container.path()
    }

    /// Byte offset just past the last chunk read.
    pub fn offset(&self) -> u64 {
        self.container.offset()
    }

    /// True when the writer ends its streams with an end marker (every
    /// stream written since blame 0.2): a stream without one was cut short.
    pub fn end_marker_expected(&self) -> bool {
        self.container.end_marker_expected()
    }

    pub fn records_read(&self) -> u64 {
        self.pending.records_read()
    }

    /// True once the end marker written by [`StreamWriter::finish`] was read:
    /// the recording of this process was closed cleanly.
    pub fn complete(&self) -> bool {
        self.container.saw_end()
    }
}

fn from_wire(wire: WireRecord, last_time: &mut u64) -> Record {
    match wire {
        WireRecord::Mapping(m) => Record::Mapping(m),
        WireRecord::Thread(t) => Record::Thread(t),
        WireRecord::Stack(s) => Record::Stack(s),
        WireRecord::Lost(l) => Record::Lost(l),
        WireRecord::Exec { command } => Record::Exec { command },
        WireRecord::End(e) => Record::End(e),
        WireRecord::Sample(e) => {
            *last_time = last_time.wrapping_add(e.time_delta_ns as u64);
            Record::Sample(Sample {
                tid: e.tid,
                time_ns: *last_time,
                event: e.event,
                weight: e.weight,
                stack: e.stack,
                data_address: e.data_address,
            })
        }
    }
}

/// Decompresses and decodes every record of one chunk of a sample stream
/// (see [`StreamReader::next_chunk`]).
pub fn decode_chunk(chunk: RawChunk, path: &Path) -> Result<Vec<Record>> {
    let mut out = Vec::with_capacity((chunk.record_count as usize).min(4096));
    decode_chunk_each(chunk, path, |r| out.push(r))?;
    Ok(out)
}

/// Decompresses one chunk of a sample stream and hands its records to
/// `each` one at a time as they are decoded, without a vector of records:
/// what post-processing's first pass uses. On an error `each` has seen the
/// records before the damage, so a caller that must not use half a chunk
/// keeps what it collects apart until this returns `Ok`.
pub fn decode_chunk_each(chunk: RawChunk, path: &Path, mut each: impl FnMut(Record)) -> Result<()> {
    let chunk = chunk.decompress(path)?;
    let mut last_time = 0;
    chunk.decode_each::<WireRecord>(path, |w| {
        each(from_wire(w, &mut last_time));
        Ok(())
    })
}

/// The mappings a stream's first chunk holds before its first sample,
/// decompressing and decoding no further than that sample: what a reader
/// needs to open the debug info of the process's binaries early. Empty when
/// the first chunk is damaged.
pub fn leading_mappings(reader: &mut dyn ChunkSource) -> Vec<Mapping> {
    let mut mappings = Vec::new();
    if let Ok(Some(Salvaged::Chunk(c))) = reader.next_chunk_salvaging() {
        let path = reader.path().to_path_buf();
        let _ = c.decode_leading::<WireRecord>(&path, |w| match w {
            WireRecord::Mapping(m) => {
                mappings.push(m);
                true
            }
            WireRecord::Sample(_) => false,
            _ => true,
        });
    }
    mappings
}

/// A whole stream in memory, with its stack table resolved.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    pub header: Option<StreamHeader>,
    pub mappings: Vec<Mapping>,
    pub threads: Vec<ThreadName>,
    /// Indexed by stack id; entry 0 is the empty stack.
    pub stacks: Vec<StackNode>,
    pub samples: Vec<Sample>,
    pub lost: Vec<Lost>,
    pub execs: Vec<Vec<String>>,
    pub end: Option<ProcessEnd>,
}

impl Stream {
    /// The frames of stack `id`, innermost first. Fails on a dangling or cyclic id.
    pub fn frames(&self, id: u32) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        let mut cur = id;
        while cur != 0 {
            let node = self
                .stacks
                .get(cur as usize)
                .filter(|n| n.id == cur)
                .ok_or_else(|| FormatError::Invalid {
                    context: "stack table".into(),
                    reason: format!("stack id {cur} is not defined"),
                })?;
            out.push(node.address);
            if out.len() > self.stacks.len() {
                return Err(FormatError::Invalid {
                    context: "stack table".into(),
                    reason: format!("stack {id} has a cycle"),
                });
            }
            cur = node.parent;
        }
        Ok(out)
    }

    pub fn header(&self) -> &StreamHeader {
        self.header.as_ref().expect("a read stream has a header")
    }
}

/// How much of a damaged stream could be read.
#[derive(Debug)]
pub struct Recovery {
    pub records_recovered: u64,
    /// Why reading stopped early; `None` when every chunk present was intact.
    pub stopped_by: Option<FormatError>,
    /// True when the stream ends with the writer's end marker. False with
    /// `stopped_by == None` means the file ends at a chunk boundary without
    /// it: the sampler was killed, or the copy was cut between chunks.
    pub complete: bool,
}

/// Reads a whole stream; any damage is an error.
pub fn read_stream(path: impl AsRef<Path>) -> Result<Stream> {
    let (stream, recovery) = read_stream_recovering(path)?;
    match recovery.stopped_by {
        None => Ok(stream),
        Some(e) => Err(e),
    }
}

/// Reads as much of a stream as is intact. A damaged header is still an
/// error; damage after it stops reading and is reported in [`Recovery`].
pub fn read_stream_recovering(path: impl AsRef<Path>) -> Result<(Stream, Recovery)> {
    let (reader, header) = StreamReader::open(path)?;
    collect(reader, header)
}

/// [`read_stream_recovering`] over bytes in memory (used by tests and fuzzing).
pub fn read_stream_bytes(bytes: &[u8]) -> Result<(Stream, Recovery)> {
    let (reader, header) = StreamReader::new(bytes, "<memory>")?;
    collect(reader, header)
}

fn collect<R: Read>(
    mut reader: StreamReader<R>,
    header: StreamHeader,
) -> Result<(Stream, Recovery)> {
    let mut s = Stream {
        header: Some(header),
        stacks: vec![StackNode {
            id: 0,
            parent: 0,
            address: 0,
        }],
        ..Default::default()
    };
    let stopped_by = loop {
        match reader.next_record() {
            Ok(None) => break None,
            Err(e) => break Some(e),
            Ok(Some(record)) => match record {
                Record::Mapping(m) => s.mappings.push(m),
                Record::Thread(t) => s.threads.push(t),
                Record::Stack(node) => {
                    if node.id as usize != s.stacks.len() || node.parent >= node.id {
                        break Some(FormatError::Invalid {
                            context: reader.container.path().display().to_string(),
                            reason: format!(
                                "stack node {} (parent {}) out of order after {} nodes",
                                node.id,
                                node.parent,
                                s.stacks.len() - 1
                            ),
                        });
                    }
                    s.stacks.push(node);
                }
                Record::Sample(sample) => {
                    if sample.stack as usize >= s.stacks.len() {
                        break Some(FormatError::Invalid {
                            context: reader.container.path().display().to_string(),
                            reason: format!(
                                "sample refers to stack {} before it is defined",
                                sample.stack
                            ),
                        });
                    }
                    s.samples.push(sample)
                }
                Record::Lost(l) => s.lost.push(l),
                Record::Exec { command } => s.execs.push(command),
                Record::End(e) => s.end = Some(e),
            },
        }
    };
    Ok((
        s,
        Recovery {
            records_recovered: reader.records_read(),
            complete: stopped_by.is_none() && reader.complete(),
            stopped_by,
        },
    ))
}

/// What a salvaging read ([`salvage_stream`]) kept of a stream and what it
/// had to leave out.
#[derive(Debug, Default)]
pub struct Salvage {
    pub records_recovered: u64,
    /// Damaged chunks skipped (reading resumed after each where it could).
    pub skipped: Vec<Skipped>,
    /// A torn tail: the byte offset of the incomplete last chunk, and why.
    pub torn_at: Option<(u64, String)>,
    /// The end marker was read: the recorder closed the stream.
    pub complete: bool,
    /// The writer promised an end marker (streams of blame 0.1 have none).
    pub end_marker_expected: bool,
    /// Bytes of the file read (its length unless reading stopped early).
    pub bytes_read: u64,
    /// Samples dropped because their stack was defined in a skipped chunk.
    pub samples_dropped: u64,
    /// Reading stopped at an inconsistency in valid chunks (a stack table
    /// out of order): nothing after it was read.
    pub stopped_by: Option<FormatError>,
}

impl Salvage {
    /// True when every byte of the stream was read and it ends with its end marker.
    pub fn is_whole(&self) -> bool {
        self.complete && self.skipped.is_empty() && self.stopped_by.is_none()
    }

    /// Where the intact part of a stream that was not closed ends.
    pub fn cut_at(&self) -> Option<u64> {
        if self.complete {
            return None;
        }
        Some(match &self.torn_at {
            Some((offset, _)) => *offset,
            None => self.bytes_read,
        })
    }

    /// One line for users: "complete", "cut at byte N", and what was skipped.
    pub fn describe(&self) -> String {
        let mut text = match (self.complete, self.end_marker_expected, self.cut_at()) {
            (true, _, _) => "complete".to_string(),
            (false, true, Some(n)) => format!(
                "cut at byte {n} (no end marker: the recorder did not close it; everything before byte {n} is intact)"
            ),
            (false, false, Some(n)) => format!(
                "ends at byte {n} without an end marker (written by a blame that wrote none: complete or cut cannot be told)"
            ),
            (false, _, None) => unreachable!("a stream not complete is cut somewhere"),
        };
        for s in &self.skipped {
            match s.resumed_at {
                Some(r) => text.push_str(&format!(
                    "; damaged bytes {}..{} skipped ({}), read on from byte {r}",
                    s.offset, r, s.error
                )),
                None => text.push_str(&format!(
                    "; damaged from byte {} to the end, skipped ({})",
                    s.offset, s.error
                )),
            }
        }
        if self.samples_dropped > 0 {
            text.push_str(&format!(
                "; {} samples dropped: their stacks were defined in the skipped bytes",
                self.samples_dropped
            ));
        }
        if let Some(e) = &self.stopped_by {
            text.push_str(&format!("; reading stopped: {e}"));
        }
        text
    }
}

/// Marks a stack-table hole: a node defined in a skipped chunk.
const HOLE: StackNode = StackNode {
    id: u32::MAX,
    parent: u32::MAX,
    address: 0,
};

/// Reads everything intact of a stream: damaged chunks are skipped (and
/// listed), a torn tail ends reading, samples whose stack lost a node with
/// a skipped chunk are dropped (and counted). Only a damaged or missing
/// header is an error.
pub fn salvage_stream(path: impl AsRef<Path>) -> Result<(Stream, Salvage)> {
    let (reader, header) = StreamReader::open(path)?;
    salvage_from(reader, header)
}

/// [`salvage_stream`] over bytes in memory.
pub fn salvage_stream_bytes(bytes: &[u8]) -> Result<(Stream, Salvage)> {
    let (reader, header) = StreamReader::new(bytes, "<memory>")?;
    salvage_from(reader, header)
}

/// [`salvage_stream`] over any stream's chunks (a node file's section too).
pub fn salvage_from<S: ChunkSource>(
    mut reader: S,
    header: StreamHeader,
) -> Result<(Stream, Salvage)> {
    let path = reader.path().to_path_buf();
    let mut s = Stream {
        header: Some(header),
        stacks: vec![StackNode {
            id: 0,
            parent: 0,
            address: 0,
        }],
        ..Default::default()
    };
    let mut table = SalvagedStacks::default();
    let mut out = Salvage {
        end_marker_expected: reader.end_marker_expected(),
        ..Default::default()
    };
    loop {
        let record = match reader.next_item_salvaging() {
            Ok(None) => break,
            Ok(Some(Item::Skipped(skip))) => {
                out.skipped.push(skip);
                table.damaged = true;
                continue;
            }
            Ok(Some(Item::Record(r))) => r,
            Err(FormatError::Truncated { offset, what, .. }) => {
                out.torn_at = Some((offset, what));
                break;
            }
            Err(e) => return Err(e),
        };
        match record {
            Record::Mapping(m) => s.mappings.push(m),
            Record::Thread(t) => s.threads.push(t),
            Record::Stack(node) => {
                if let Err(reason) = table.push(node) {
                    out.stopped_by = Some(FormatError::Invalid {
                        context: path.display().to_string(),
                        reason: reason.to_string(),
                    });
                    break;
                }
                let len = s.stacks.len();
                s.stacks.resize(node.id as usize, HOLE);
                debug_assert!(len <= node.id as usize);
                s.stacks.push(node);
            }
            Record::Sample(sample) => match table.check(sample.stack) {
                Ok(true) => s.samples.push(sample),
                Ok(false) => out.samples_dropped += 1,
                Err(reason) => {
                    out.stopped_by = Some(FormatError::Invalid {
                        context: path.display().to_string(),
                        reason: reason.to_string(),
                    });
                    break;
                }
            },
            Record::Lost(l) => s.lost.push(l),
            Record::Exec { command } => s.execs.push(command),
            Record::End(e) => s.end = Some(e),
        }
    }
    out.records_recovered = reader.records_read();
    out.complete = reader.complete();
    out.bytes_read = reader.offset();
    Ok((s, out))
}

/// Which stack ids of a salvaged stream have every node of their stack:
/// the nodes a skipped chunk defined are holes, and so is every stack
/// through them.
#[derive(Debug, Clone)]
pub struct SalvagedStacks {
    /// Indexed by stack id; entry 0, the empty stack, is whole.
    whole: Vec<bool>,
    /// A damaged stretch was skipped: ids past the table may be holes.
    pub damaged: bool,
}

impl Default for SalvagedStacks {
    fn default() -> Self {
        SalvagedStacks {
            whole: vec![true],
            damaged: false,
        }
    }
}

impl SalvagedStacks {
    /// Adds a node. After damage, ids skipped over are holes; otherwise a
    /// node out of order is an error (the stream's writer broke its rules).
    pub fn push(&mut self, node: StackNode) -> std::result::Result<(), StackTableRefused> {
        let next = self.whole.len();
        if self.damaged && node.id as usize > next {
            self.whole.resize(node.id as usize, false);
        }
        if node.id as usize != self.whole.len() || node.parent >= node.id {
            return Err(StackTableRefused::OutOfOrder {
                id: node.id,
                parent: node.parent,
                nodes: self.whole.len() - 1,
            });
        }
        self.whole.push(self.whole[node.parent as usize]);
        Ok(())
    }

    /// True when stack `id` is whole, false when it passes through a hole
    /// (or was defined in skipped bytes); an error for an id never defined
    /// in an undamaged stream.
    pub fn check(&self, id: u32) -> std::result::Result<bool, StackTableRefused> {
        match self.whole.get(id as usize) {
            Some(&whole) => Ok(whole),
            None if self.damaged => Ok(false),
            None => Err(StackTableRefused::Undefined { id }),
        }
    }

    /// Number of stack ids known, holes included (entry 0 counts).
    pub fn len(&self) -> usize {
        self.whole.len()
    }

    pub fn is_empty(&self) -> bool {
        self.whole.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_events_by_name() {
        assert!(is_memory_event("cpu/mem-loads,ldlat=30/P"));
        assert!(is_memory_event("cache-misses:u"));
        assert!(is_memory_event("L1-dcache-load-misses"));
        assert!(is_memory_event("ibs_op//"));
        assert!(is_memory_event("mem-stores"));
        assert!(!is_memory_event("cpu-clock"));
        assert!(!is_memory_event("cycles:P"));
        assert!(!is_memory_event("task-clock:u"));
    }

    /// The mappings before the first sample are read without decoding the
    /// rest of the chunk, and a later mapping (a `dlopen` after samples
    /// began) is not among them.
    #[test]
    fn leading_mappings_stop_at_the_first_sample() {
        let header = crate::node_file::tests::header(1, None);
        let mapping = |start: u64| Mapping {
            pid: 1,
            start,
            end: start + 0x1000,
            file_offset: 0,
            path: format!("/lib{start:x}.so"),
            build_id: vec![],
        };
        let mut w = StreamWriter::new(Vec::new(), "<t>", &header).unwrap();
        w.write_mapping(mapping(0x1000)).unwrap();
        w.write_mapping(mapping(0x4000)).unwrap();
        for i in 0..5000u64 {
            w.write_sample_with_stack(1, i, 0, 1, &[0x1010, 0x4020 + i % 7], None)
                .unwrap();
        }
        w.write_mapping(mapping(0x9000)).unwrap();
        let bytes = w.finish().unwrap();
        let (mut r, _) = StreamReader::new(&bytes[..], "<t>").unwrap();
        let got = leading_mappings(&mut r);
        assert_eq!(got, vec![mapping(0x1000), mapping(0x4000)]);
    }

    /// Every stream record encodes to the bytes bincode 1's serde path
    /// wrote for it (streams of earlier blame versions stay readable, and
    /// files written now are read by them), extremes of every varint width
    /// included.
    #[test]
    fn records_are_bincode_1_bytes() {
        use bincode1::Options;
        let old = bincode1::DefaultOptions::new()
            .with_varint_encoding()
            .with_little_endian();
        let mut records = Vec::new();
        for v in [0u64, 250, 251, 65_535, 65_536, 1 << 32, u64::MAX] {
            records.extend([
                WireRecord::Mapping(Mapping {
                    pid: v as u32,
                    start: v,
                    end: v.wrapping_add(1),
                    file_offset: v / 3,
                    path: "/usr/lib/libé.so".into(),
                    build_id: vec![v as u8; 20],
                }),
                WireRecord::Thread(ThreadName {
                    pid: 1,
                    tid: v as u32,
                    name: String::new(),
                }),
                WireRecord::Stack(StackNode {
                    id: v as u32,
                    parent: (v >> 1) as u32,
                    address: v,
                }),
                WireRecord::Sample(EncodedSample {
                    tid: v as u32,
                    time_delta_ns: -(v as i64),
                    event: v as u16,
                    weight: v,
                    stack: v as u32,
                    data_address: (v % 2 == 0).then_some(v),
                }),
                WireRecord::Lost(Lost { event: 1, count: v }),
                WireRecord::Exec {
                    command: vec!["./a".into(), v.to_string()],
                },
                WireRecord::End(ProcessEnd {
                    exit_status: Some(-(v as i32)),
                    signal: None,
                    time_ns: v,
                }),
            ]);
        }
        for r in &records {
            let mut now = Vec::new();
            crate::container::encode_into(&mut now, r).unwrap();
            assert_eq!(now, old.serialize(r).unwrap(), "{r:?}");
            let (back, used): (WireRecord, usize) =
                bincode::decode_from_slice(&now, crate::container::codec()).unwrap();
            assert_eq!((&back, used), (r, now.len()));
        }
    }

    /// The whole-stack cache must give exactly the ids of the frame-by-frame
    /// walk, before and after it is cleared for being full.
    #[test]
    fn whole_stack_cache_agrees_with_the_frame_walk() {
        let mut cached = StackInterner::default();
        let mut walk = StackInterner::default();
        let mut nodes = Vec::new();
        let stack = |i: u64| -> Vec<u64> {
            let depth = 1 + (i % 23) as usize;
            (0..depth as u64)
                .map(|d| 0x4000 + d * 16 + (i * 7919) % (d + 3))
                .collect()
        };
        // Enough distinct words to overflow the cache at least once.
        let n = (STACK_CACHE_WORDS / 8) as u64;
        for round in 0..2 {
            for i in 0..n {
                let f = stack(i);
                let a = cached.intern(&f, &mut nodes);
                let b = walk.intern_frames(&f, &mut Vec::new());
                assert_eq!(a, b, "stack {i} round {round}");
            }
        }
        assert_eq!(cached.len(), walk.len());
        // Every node was announced exactly once, in id order.
        assert_eq!(nodes.len(), cached.len());
        assert!(nodes
            .iter()
            .enumerate()
            .all(|(i, n)| n.id as usize == i + 1));
        assert_eq!(cached.intern(&[], &mut nodes), 0);
    }
}
