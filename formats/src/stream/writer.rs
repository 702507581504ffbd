//! Writing a sample stream ([`StreamWriter`]): records encoded into
//! chunks of about a set size, stacks interned as they come, to a stream
//! file of its own or to a node file's section ([`SectionOut`]).

use super::header::StreamHeader;
use super::records::{
    EncodedSample, Lost, Mapping, ProcessEnd, Sample, StackNode, ThreadName, WireRecord,
};
use super::stack_interner::StackInterner;
use super::STREAM;
use crate::container::{encode_into, ContainerWriter};
use crate::error::{FormatError, Result};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

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
