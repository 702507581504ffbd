//! Writing a node file ([`NodeWriter`], shared by its sections' writers
//! as a [`SharedNode`]): each section's chunks tagged and written through
//! its [`SectionSink`], one write per chunk, its open and close chunks
//! included.

use super::{tag, NodeHeader, SectionClose, KIND_CLOSE, KIND_OPEN, KIND_RECORDS, NODE};
use crate::container::{encode_into, ContainerWriter};
use crate::error::{FormatError, Result};
use crate::stream::{StreamHeader, StreamWriter};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

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
