//! The chunked container every binary blame file uses.
//!
//! ```text
//! file   := preamble header-chunk chunk*
//! preamble := magic[8] version:u32le flags:u32le            (16 bytes)
//! chunk  := "CHNK":u32le compressed_len:u32le uncompressed_len:u32le
//!           record_count:u32le crc32(compressed):u32le zstd-frame[compressed_len]
//! ```
//!
//! A chunk's payload is `record_count` bincode values (varint, little endian).
//! Chunks are independent, so a writer that dies loses at most the chunk it was
//! filling, and a reader stops at the last complete chunk of a torn file.
//!
//! A writer that finishes cleanly appends an *end marker*: a chunk with zero
//! records and an empty payload ([`ContainerWriter::write_end`]). Nothing may
//! follow it. Whole-file formats (static db, results) require it, so a file
//! cut exactly at a chunk boundary is reported as truncated instead of being
//! read as a smaller, wrong, result.

use crate::error::{FormatError, Result};
use bincode::Options;
use serde::{de::DeserializeOwned, Serialize};
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

pub const CHUNK_MAGIC: u32 = u32::from_le_bytes(*b"CHNK");
pub const PREAMBLE_LEN: u64 = 16;
pub const CHUNK_HEADER_LEN: u64 = 20;
/// No chunk may claim more than this many uncompressed bytes; a larger claim
/// is corruption, never an allocation.
pub const MAX_CHUNK_BYTES: u32 = 64 << 20;

/// What kind of file a container holds: its magic and the version this build writes.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    pub name: &'static str,
    pub magic: [u8; 8],
    pub version: u32,
}

/// The bincode settings of every payload: varint integers, little endian, and
/// a byte limit so no length field can make the decoder allocate past the input.
pub(crate) fn codec(limit: u64) -> impl Options + Copy {
    bincode::DefaultOptions::new()
        .with_varint_encoding()
        .with_little_endian()
        .with_limit(limit)
}

/// Appends one value to a payload buffer.
pub(crate) fn encode_into<T: Serialize>(buf: &mut Vec<u8>, value: &T) -> Result<()> {
    codec(u64::MAX)
        .serialize_into(buf, value)
        .map_err(|e| FormatError::Encode {
            context: "record".into(),
            reason: e.to_string(),
        })
}

/// Writes a container: preamble, header chunk, then data chunks.
pub struct ContainerWriter<W: Write> {
    out: W,
    path: PathBuf,
    bytes_written: u64,
    chunks_written: u64,
    level: i32,
}

impl<W: Write> ContainerWriter<W> {
    pub fn new<H: Serialize>(
        out: W,
        path: impl Into<PathBuf>,
        kind: Kind,
        header: &H,
    ) -> Result<Self> {
        let mut w = ContainerWriter {
            out,
            path: path.into(),
            bytes_written: 0,
            chunks_written: 0,
            level: 1,
        };
        let mut pre = Vec::with_capacity(PREAMBLE_LEN as usize);
        pre.extend_from_slice(&kind.magic);
        pre.extend_from_slice(&kind.version.to_le_bytes());
        pre.extend_from_slice(&0u32.to_le_bytes());
        w.write_raw(&pre)?;
        let mut payload = Vec::new();
        encode_into(&mut payload, header)?;
        w.write_chunk(&payload, 1)?;
        Ok(w)
    }

    /// Compresses and writes one chunk holding `record_count` encoded records.
    pub fn write_chunk(&mut self, payload: &[u8], record_count: u32) -> Result<()> {
        if payload.len() > MAX_CHUNK_BYTES as usize {
            return Err(FormatError::Encode {
                context: self.path.display().to_string(),
                reason: format!(
                    "chunk of {} bytes exceeds the {} byte limit",
                    payload.len(),
                    MAX_CHUNK_BYTES
                ),
            });
        }
        let compressed = zstd::bulk::compress(payload, self.level)
            .map_err(|e| FormatError::io(&self.path, e))?;
        let mut head = Vec::with_capacity(CHUNK_HEADER_LEN as usize);
        head.extend_from_slice(&CHUNK_MAGIC.to_le_bytes());
        head.extend_from_slice(&(compressed.len() as u32).to_le_bytes());
        head.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        head.extend_from_slice(&record_count.to_le_bytes());
        head.extend_from_slice(&crc32fast::hash(&compressed).to_le_bytes());
        // One write per chunk keeps a torn tail to a single partial chunk.
        head.extend_from_slice(&compressed);
        self.write_raw(&head)?;
        self.chunks_written += 1;
        Ok(())
    }

    /// Appends the end marker (a chunk of zero records): the file is complete.
    /// Write nothing after it.
    pub fn write_end(&mut self) -> Result<()> {
        self.write_chunk(&[], 0)
    }

    fn write_raw(&mut self, bytes: &[u8]) -> Result<()> {
        self.out
            .write_all(bytes)
            .map_err(|e| FormatError::io(&self.path, e))?;
        self.bytes_written += bytes.len() as u64;
        Ok(())
    }

    pub fn flush(&mut self) -> Result<()> {
        self.out.flush().map_err(|e| FormatError::io(&self.path, e))
    }

    pub fn bytes_written(&self) -> u64 {
        self.bytes_written
    }

    pub fn chunks_written(&self) -> u64 {
        self.chunks_written
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
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
    pub fn decode<T: DeserializeOwned>(&self, path: &Path) -> Result<Vec<T>> {
        let opts = codec(self.payload.len() as u64);
        let mut rest: &[u8] = &self.payload;
        let mut de = bincode::Deserializer::with_reader(&mut rest, opts);
        // Never trust the count for allocation: each record takes at least one
        // byte, and a record may be much larger in memory than on disk, so the
        // up-front reservation is capped; the vector grows with what decodes.
        let mut out = Vec::with_capacity(
            (self.record_count as usize)
                .min(self.payload.len())
                .min(4096),
        );
        for i in 0..self.record_count {
            let value = serde::Deserialize::deserialize(&mut de).map_err(|e| {
                FormatError::CorruptChunk {
                    path: path.to_path_buf(),
                    chunk: self.index,
                    offset: self.offset,
                    reason: format!("record {i} of {}: {e}", self.record_count),
                }
            })?;
            out.push(value);
        }
        drop(de);
        if !rest.is_empty() {
            return Err(FormatError::CorruptChunk {
                path: path.to_path_buf(),
                chunk: self.index,
                offset: self.offset,
                reason: format!(
                    "{} bytes left over after its {} records",
                    rest.len(),
                    self.record_count
                ),
            });
        }
        Ok(out)
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
    pub fn decompress(self, path: &Path) -> Result<Chunk> {
        let corrupt = |reason: String| FormatError::CorruptChunk {
            path: path.to_path_buf(),
            chunk: self.index,
            offset: self.offset,
            reason,
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
        let payload = zstd::bulk::decompress(&self.compressed, ulen)
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

/// Reads a container chunk by chunk from any byte source.
pub struct ContainerReader<R: Read> {
    input: R,
    path: PathBuf,
    offset: u64,
    next_index: u64,
    ended: bool,
    pub version: u32,
}

impl<R: Read> ContainerReader<R> {
    /// Checks the preamble and returns the reader with the decoded header.
    pub fn open<H: DeserializeOwned>(
        input: R,
        path: impl Into<PathBuf>,
        kind: Kind,
    ) -> Result<(Self, H)> {
        let mut r = ContainerReader {
            input,
            path: path.into(),
            offset: 0,
            next_index: 0,
            ended: false,
            version: 0,
        };
        let mut pre = [0u8; PREAMBLE_LEN as usize];
        let got = r.read_up_to(&mut pre)?;
        let magic: [u8; 8] = pre[0..8].try_into().expect("8 bytes");
        // A short file that does not even start like the magic is the wrong
        // file, not a truncated one.
        let seen = got.min(8);
        if magic[..seen] != kind.magic[..seen] {
            return Err(FormatError::WrongMagic {
                path: r.path.clone(),
                expected: kind.name,
                found: magic,
            });
        }
        if got < pre.len() {
            return Err(FormatError::Truncated {
                path: r.path.clone(),
                offset: got as u64,
                what: "file preamble (magic and version) incomplete".into(),
            });
        }
        if magic != kind.magic {
            return Err(FormatError::WrongMagic {
                path: r.path.clone(),
                expected: kind.name,
                found: magic,
            });
        }
        r.version = u32::from_le_bytes(pre[8..12].try_into().expect("4 bytes"));
        if r.version != kind.version {
            return Err(FormatError::UnsupportedVersion {
                path: r.path.clone(),
                kind: kind.name,
                found: r.version,
                supported: kind.version,
            });
        }
        let header_chunk = match r.next_chunk() {
            Ok(Some(c)) => c,
            Ok(None) if r.ended => {
                return Err(FormatError::CorruptHeader {
                    path: r.path.clone(),
                    reason: "end marker where the header chunk should be".into(),
                })
            }
            Ok(None) => {
                return Err(FormatError::Truncated {
                    path: r.path.clone(),
                    offset: r.offset,
                    what: "the header chunk is missing".into(),
                })
            }
            Err(FormatError::CorruptChunk { reason, .. }) => {
                return Err(FormatError::CorruptHeader {
                    path: r.path.clone(),
                    reason,
                })
            }
            Err(e) => return Err(e),
        };
        let mut headers: Vec<H> =
            header_chunk
                .decode(&r.path)
                .map_err(|e| FormatError::CorruptHeader {
                    path: r.path.clone(),
                    reason: e.to_string(),
                })?;
        if headers.len() != 1 {
            return Err(FormatError::CorruptHeader {
                path: r.path.clone(),
                reason: format!("header chunk holds {} records, expected 1", headers.len()),
            });
        }
        Ok((r, headers.pop().expect("one header")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Byte offset just past the last complete chunk read.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// True once the end marker was read: the writer finished the file.
    pub fn saw_end(&self) -> bool {
        self.ended
    }

    /// For whole-file formats: fails with [`FormatError::Truncated`] unless
    /// the end marker was read (call after `next_chunk` returned `None`).
    pub fn require_end(&self) -> Result<()> {
        if self.ended {
            return Ok(());
        }
        Err(FormatError::Truncated {
            path: self.path.clone(),
            offset: self.offset,
            what: format!(
                "the file ends after chunk {} without its end marker; it was cut short \
                 (copy it again or re-create it)",
                self.next_index.saturating_sub(1)
            ),
        })
    }

    /// The next chunk, `None` at a clean end of file or at the end marker.
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>> {
        match self.next_raw_chunk()? {
            None => Ok(None),
            Some(raw) => raw.decompress(&self.path).map(Some),
        }
    }

    /// The next chunk with its checksum verified but still compressed, so
    /// callers can decompress several chunks in parallel.
    pub fn next_raw_chunk(&mut self) -> Result<Option<RawChunk>> {
        if self.ended {
            return Ok(None);
        }
        let start = self.offset;
        let mut head = [0u8; CHUNK_HEADER_LEN as usize];
        let got = self.read_up_to(&mut head)?;
        if got == 0 {
            return Ok(None);
        }
        if got < head.len() {
            return Err(self.truncated(
                start,
                format!(
                    "chunk {} header ({} of {} bytes present)",
                    self.next_index,
                    got,
                    head.len()
                ),
            ));
        }
        let field =
            |i: usize| u32::from_le_bytes(head[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
        let (magic, clen, ulen, count, crc) = (field(0), field(1), field(2), field(3), field(4));
        let index = self.next_index;
        let corrupt = |reason: String| FormatError::CorruptChunk {
            path: self.path.clone(),
            chunk: index,
            offset: start,
            reason,
        };
        if magic != CHUNK_MAGIC {
            return Err(corrupt(format!("bad chunk marker {magic:#010x}")));
        }
        if ulen > MAX_CHUNK_BYTES || clen > MAX_CHUNK_BYTES.saturating_add(1 << 16) {
            return Err(corrupt(format!("chunk claims {ulen} bytes ({clen} compressed), over the {MAX_CHUNK_BYTES} byte limit")));
        }
        if count as u64 > ulen as u64 {
            return Err(corrupt(format!(
                "chunk claims {count} records in {ulen} bytes"
            )));
        }
        let mut compressed = Vec::new();
        let got = (&mut self.input)
            .take(clen as u64)
            .read_to_end(&mut compressed)
            .map_err(|e| FormatError::io(&self.path, e))?;
        self.offset += got as u64;
        if got < clen as usize {
            return Err(self.truncated(
                start,
                format!("chunk {index} body ({got} of {clen} bytes present)"),
            ));
        }
        // Fuzzing builds skip the checksum so mutated inputs reach the decoders.
        if !cfg!(fuzzing) && crc32fast::hash(&compressed) != crc {
            return Err(corrupt("checksum mismatch".into()));
        }
        self.next_index += 1;
        if count == 0 {
            // The end marker: an empty payload, and nothing after it.
            if ulen != 0 {
                return Err(corrupt(format!(
                    "end marker (0 records) with a {ulen} byte payload"
                )));
            }
            let mut probe = [0u8; 1];
            if self.read_up_to(&mut probe)? != 0 {
                return Err(FormatError::CorruptChunk {
                    path: self.path.clone(),
                    chunk: index + 1,
                    offset: self.offset - 1,
                    reason: "data after the end marker".into(),
                });
            }
            self.ended = true;
            return Ok(None);
        }
        Ok(Some(RawChunk {
            index,
            offset: start,
            record_count: count,
            uncompressed_len: ulen,
            compressed,
        }))
    }

    fn truncated(&self, chunk_start: u64, what: String) -> FormatError {
        FormatError::Truncated {
            path: self.path.clone(),
            offset: chunk_start,
            what: format!("incomplete {what}; everything before byte {chunk_start} is intact"),
        }
    }

    fn read_up_to(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut filled = 0;
        while filled < buf.len() {
            match self.input.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(FormatError::io(&self.path, e)),
            }
        }
        self.offset += filled as u64;
        Ok(filled)
    }
}
