//! Reading one section of a node file ([`SectionReader`]): only its
//! chunks, each checked, chunks lost to damage found by their missing
//! sequence numbers, the section's close told from a cut.

use super::read_at::ReadAt;
use super::section_chunk::{read_section_chunk, ChunkRef};
use super::{KIND_CLOSE, KIND_RECORDS};
use crate::container::{Salvaged, Skipped};
use crate::error::{FormatError, Result};
use crate::stream::{decode_or_skip, ChunkSource, Item, Pending};
use std::path::{Path, PathBuf};

/// Reads one section of a node file: only its chunks, each checked; chunks
/// lost to damage are found by their missing sequence numbers.
pub struct SectionReader<R: ReadAt> {
    pub(super) src: R,
    pub(super) label: PathBuf,
    pub(super) chunks: Vec<ChunkRef>,
    pub(super) next: usize,
    pub(super) expected_seq: u32,
    pub(super) closed: bool,
    /// The file's torn tail, reported once by a section left open.
    pub(super) torn_at: Option<(u64, String)>,
    pub(super) offset: u64,
    pub(super) pending: Pending,
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
