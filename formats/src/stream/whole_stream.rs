//! A whole stream in memory with its stack table resolved ([`Stream`]),
//! and reading one: any damage an error ([`read_stream`]), or as much as is
//! intact with where reading stopped ([`Recovery`]).

use super::header::StreamHeader;
use super::reader::StreamReader;
use super::records::{Lost, Mapping, ProcessEnd, Record, Sample, StackNode, ThreadName};
use crate::error::{FormatError, Result};
use std::io::Read;
use std::path::Path;

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
