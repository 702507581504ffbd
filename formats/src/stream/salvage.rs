//! Salvaging a damaged stream: everything intact read, damaged chunks
//! skipped and listed, a torn tail ending the read, samples whose stack
//! lost a node dropped and counted ([`salvage_from`], [`Salvage`]), and
//! which stacks are whole ([`SalvagedStacks`]).

use super::header::StreamHeader;
use super::reader::{ChunkSource, StreamReader};
use super::records::{Item, Record, StackNode};
use super::whole_stream::Stream;
use crate::container::Skipped;
use crate::error::{FormatError, Result, StackTableRefused};
use std::path::Path;

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
