//! One chunk of a container: its header parsed and checked against the
//! limits ([`ChunkHeader`]), its body as read, checksum matched
//! ([`RawChunk`]), decompressed with the thread's reused buffer and zstd
//! context into a [`Chunk`], whose records are decoded one at a time or
//! read in place.

use super::{CHUNK_HEADER_LEN, CHUNK_MAGIC, MAX_CHUNK_BYTES};
use crate::error::{BadChunkHeader, FormatError, Result};
use crate::record_bytes::{codec, RecordBytes, RecordFault};
use bincode::Decode;
use std::path::Path;

/// The fields of a chunk header, checked against the limits.
#[derive(Debug, Clone, Copy)]
pub struct ChunkHeader {
    /// Bytes of the chunk's body after its header (prefix and zstd frame).
    pub clen: u32,
    pub ulen: u32,
    pub count: u32,
    pub crc: u32,
}

impl ChunkHeader {
    /// Parses a chunk header; why it cannot be one otherwise.
    pub fn parse(
        head: &[u8; CHUNK_HEADER_LEN as usize],
    ) -> std::result::Result<ChunkHeader, BadChunkHeader> {
        let field =
            |i: usize| u32::from_le_bytes(head[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
        let (magic, clen, ulen, count, crc) = (field(0), field(1), field(2), field(3), field(4));
        if magic != CHUNK_MAGIC {
            return Err(BadChunkHeader::Marker { found: magic });
        }
        if ulen > MAX_CHUNK_BYTES || clen > MAX_CHUNK_BYTES.saturating_add(1 << 16) {
            return Err(BadChunkHeader::TooLarge {
                ulen,
                clen,
                limit: MAX_CHUNK_BYTES,
            });
        }
        if count as u64 > ulen as u64 {
            return Err(BadChunkHeader::TooManyRecords { count, ulen });
        }
        if count == 0 && ulen != 0 {
            return Err(BadChunkHeader::EndWithPayload { ulen });
        }
        Ok(ChunkHeader {
            clen,
            ulen,
            count,
            crc,
        })
    }
}

/// One decompressed chunk: its position and the records it holds.
pub struct Chunk {
    pub index: u64,
    pub offset: u64,
    pub record_count: u32,
    pub payload: Vec<u8>,
}

impl Chunk {
    /// Decodes every record of the chunk, or fails naming this chunk.
    pub fn decode<T: Decode<()>>(&self, path: &Path) -> Result<Vec<T>> {
        // Never trust the count for allocation: each record takes at least one
        // byte, and a record may be much larger in memory than on disk, so the
        // up-front reservation is capped; the vector grows with what decodes.
        let mut out = Vec::with_capacity(
            (self.record_count as usize)
                .min(self.payload.len())
                .min(4096),
        );
        self.decode_each(path, |value| {
            out.push(value);
            Ok(())
        })?;
        Ok(out)
    }

    /// Decodes the records of the chunk one at a time, straight from the
    /// decompressed bytes, handing each to `each` as it is decoded (no
    /// vector of records). On an error, `each` has seen the records before
    /// the damage: callers that must not use half a chunk keep what they
    /// collect apart until this returns `Ok`. An error of `each` stops
    /// decoding and is returned.
    pub fn decode_each<T: Decode<()>>(
        &self,
        path: &Path,
        mut each: impl FnMut(T) -> Result<()>,
    ) -> Result<()> {
        self.read_records(path, |rec| {
            each(rec.decode()?)?;
            Ok(())
        })
    }

    /// Reads the records of the chunk in place: `each` decodes one record
    /// from the bytes it is lent ([`RecordBytes`]), once per record, and
    /// may refuse it; a record that does not decode, or bytes left over
    /// after the last, are corruption naming this chunk. On an error,
    /// `each` has seen the records before the damage.
    pub fn read_records(
        &self,
        path: &Path,
        mut each: impl FnMut(&mut RecordBytes<'_>) -> std::result::Result<(), RecordFault>,
    ) -> Result<()> {
        let mut rest = RecordBytes::new(&self.payload);
        for i in 0..self.record_count {
            each(&mut rest).map_err(|fault| match fault {
                RecordFault::Decode(e) => {
                    self.corrupt(path, format!("record {i} of {}: {e}", self.record_count))
                }
                RecordFault::Refused(e) => e,
            })?;
        }
        if !rest.rest().is_empty() {
            return Err(self.corrupt(
                path,
                format!(
                    "{} bytes left over after its {} records",
                    rest.rest().len(),
                    self.record_count
                ),
            ));
        }
        Ok(())
    }

    /// The error of a record of this chunk that does not decode or does not fit.
    pub fn corrupt(&self, path: &Path, reason: impl std::fmt::Display) -> FormatError {
        FormatError::CorruptChunk {
            path: path.to_path_buf(),
            chunk: self.index,
            offset: self.offset,
            reason: reason.to_string(),
        }
    }
}

/// A chunk whose checksum matched, not yet decompressed.
pub struct RawChunk {
    pub index: u64,
    pub offset: u64,
    pub record_count: u32,
    pub uncompressed_len: u32,
    pub compressed: Vec<u8>,
}

impl RawChunk {
    /// Decodes records from the start of the chunk, decompressing only as
    /// far as they are read, until `each` returns `false` or the records
    /// end: for readers that need a chunk's first records only (a stream's
    /// mappings come before its first sample). A damaged chunk is an error.
    pub fn decode_leading<T: Decode<()>>(
        &self,
        path: &Path,
        mut each: impl FnMut(T) -> bool,
    ) -> Result<()> {
        let corrupt = |i: u32, reason: String| FormatError::CorruptChunk {
            path: path.to_path_buf(),
            chunk: self.index,
            offset: self.offset,
            reason: format!("record {i} of {}: {reason}", self.record_count),
        };
        let mut input = std::io::BufReader::new(
            zstd::stream::read::Decoder::with_buffer(&self.compressed[..])
                .map_err(|e| corrupt(0, format!("zstd: {e}")))?,
        );
        for i in 0..self.record_count {
            let value = bincode::decode_from_std_read(&mut input, codec())
                .map_err(|e| corrupt(i, e.to_string()))?;
            if !each(value) {
                break;
            }
        }
        Ok(())
    }

    pub fn decompress(self, path: &Path) -> Result<Chunk> {
        let corrupt = |reason: String| FormatError::CorruptChunk {
            path: path.to_path_buf(),
            chunk: self.index,
            offset: self.offset,
            reason: reason.to_string(),
        };
        let ulen = self.uncompressed_len as usize;
        // The zstd frame states its own size: check it against the chunk
        // header before allocating the output buffer.
        match zstd::zstd_safe::get_frame_content_size(&self.compressed) {
            Ok(Some(n)) if n != ulen as u64 => {
                return Err(corrupt(format!(
                    "zstd frame holds {n} bytes, chunk header says {ulen}"
                )))
            }
            Ok(_) => {}
            Err(_) => return Err(corrupt("zstd: not a zstd frame".into())),
        }
        let mut payload = SPARE_PAYLOAD.with(|spare| spare.take());
        payload.clear();
        payload.reserve(ulen);
        DECOMPRESSOR
            .with(|d| match d.borrow_mut().as_mut() {
                Ok(d) => d.decompress_to_buffer(&self.compressed, &mut payload),
                Err(e) => Err(std::io::Error::new(e.kind(), e.to_string())),
            })
            .map_err(|e| corrupt(format!("zstd: {e}")))?;
        if payload.len() != ulen {
            return Err(corrupt(format!(
                "decompressed to {} bytes, header says {ulen}",
                payload.len()
            )));
        }
        Ok(Chunk {
            index: self.index,
            offset: self.offset,
            record_count: self.record_count,
            payload,
        })
    }
}

/// The largest payload buffer a thread keeps for its next chunk.
const SPARE_PAYLOAD_MAX: usize = 8 << 20;

impl Drop for Chunk {
    /// The payload's memory goes to the thread's next chunk: a merge of
    /// 10^3 parts decompresses two chunks per part, and a buffer of a
    /// chunk's size allocated and freed each time costs glibc a heap
    /// consolidation.
    fn drop(&mut self) {
        if self.payload.capacity() <= SPARE_PAYLOAD_MAX {
            let payload = std::mem::take(&mut self.payload);
            SPARE_PAYLOAD.with(|spare| {
                if spare.borrow().capacity() < payload.capacity() {
                    spare.replace(payload);
                }
            });
        }
    }
}

thread_local! {
    /// The payload buffer of the thread's last chunk (see `Drop for Chunk`).
    static SPARE_PAYLOAD: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };

    /// One zstd decompression context per thread, reused for every chunk:
    /// a context is ~100 KiB, whose allocation and first use cost more than
    /// decompressing a small chunk (a merge of 10^3 partial results
    /// decompresses two small chunks per part).
    static DECOMPRESSOR: std::cell::RefCell<std::io::Result<zstd::bulk::Decompressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Decompressor::new());
}
