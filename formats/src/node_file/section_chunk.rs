//! One chunk of a section as the index finds it ([`ChunkRef`]: its header
//! and tag), and its body read, checked and stripped of its tag: a records
//! chunk raw, the open chunk decoded into the process's stream header.

use super::read_at::{read_full_at, ReadAt};
use super::SECTION_TAG_LEN;
use crate::container::{ChunkHeader, ContainerReader, RawChunk, Skipped, CHUNK_HEADER_LEN};
use crate::error::{FormatError, Result};
use crate::stream::StreamHeader;
use std::path::Path;

/// One chunk of a section, as its header and tag say (body not yet read).
#[derive(Debug, Clone, Copy)]
pub struct ChunkRef {
    pub offset: u64,
    pub header: ChunkHeader,
    pub seq: u32,
    pub(super) kind: u32,
}

impl ChunkRef {
    /// Byte offset just past the chunk.
    pub fn end(&self) -> u64 {
        self.offset + CHUNK_HEADER_LEN + self.header.clen as u64
    }
}

/// Reads, checks and decodes a section's open chunk.
pub(super) fn read_open_chunk<R: ReadAt>(
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
pub(super) fn read_section_chunk<R: ReadAt>(
    src: &R,
    path: &Path,
    chunk: &ChunkRef,
) -> Result<RawChunk> {
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
